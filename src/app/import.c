/*
 * import_document: one JSON document {"teams", "games", "incidents"} in the API's own shapes
 * (docs/import-format.md), applied in one transaction. Any invalid value refuses the whole
 * document, writes nothing, and names its JSON path. A dry run takes the same path and rolls
 * the transaction back at the end, so it checks exactly what an import would.
 */
#include "app/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/account.h"
#include "domain/comment.h"
#include "domain/ids.h"
#include "domain/question.h"
#include "domain/votes.h"
#include "store/admin.h"
#include "store/comments.h"
#include "store/votes.h"
#include "util/jsonin.h"
#include "util/uuid.h"

struct import {
    struct store *s;
    struct jin j;
    int64_t now;
    json_t *seen; /* ids already in the file, per kind */
    size_t teams, games, incidents, comments;
    json_t *authors;    /* display-name key -> [account id, banned] of comment authors */
    const char **names; /* every team's names (the display-name rule), read once */
    size_t nnames;
    bool names_read;
    struct arena a;
    json_t *merges;    /* [index, id, duplicate_of] to apply after every incident exists */
    bool store_failed; /* the refusal is the store's, not the document's */
    const struct import_options *opt;
};

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        if ((expr) < 0)                                                                            \
            return -1;                                                                             \
    } while (0)

/* Store failures inside an import are reported at the current path. */
static int store_fail(struct import *im, int rc)
{
    im->store_failed = true;
    return jin_fail(&im->j, "database error (%d): %s", rc, store_errmsg(im->s));
}

static int check_id(struct import *im, json_t *obj, const char *kind, const char **id)
{
    CHECK(jin_str(&im->j, obj, "id", true, false, id));
    size_t m = jin_push_key(&im->j, "id");
    if (!entity_id_is_valid(*id)) {
        jin_fail(&im->j, "\"%.80s\" must be 1 to 255 characters of A-Z a-z 0-9 . _ : ~ -", *id);
        return -1;
    }
    jin_pop(&im->j, m);
    (void)kind;
    return 0;
}

static int once(struct import *im, const char *kind, const char *id)
{
    char key[300];
    snprintf(key, sizeof key, "%s/%s", kind, id);
    if (json_object_get(im->seen, key)) {
        size_t m = jin_push_key(&im->j, "id");
        jin_fail(&im->j, "\"%s\" appears twice in the file", id);
        jin_pop(&im->j, m);
        return -1;
    }
    json_object_set_new(im->seen, key, json_true());
    return 0;
}

static int parse_team(struct import *im, json_t *obj, struct team *t)
{
    static const char *const keys[] = {
        "id",       "name",      "abbreviation", "logoUrl", "conference", "league",
        "division", "shortName", "active",       "aliases", NULL};
    struct jin *j = &im->j;
    CHECK(jin_object(j, obj, "an object"));
    CHECK(jin_keys(j, obj, keys, NULL));
    CHECK(check_id(im, obj, "team", &t->id));
    CHECK(jin_str(j, obj, "name", true, false, &t->name));
    CHECK(jin_str(j, obj, "abbreviation", true, false, &t->abbreviation));
    CHECK(jin_str(j, obj, "logoUrl", false, true, &t->logo_url));
    CHECK(jin_str(j, obj, "conference", false, true, &t->conference));
    CHECK(jin_enum(j, obj, "league", false, true, league_names, &t->league));
    CHECK(jin_str(j, obj, "division", false, true, &t->division));
    CHECK(jin_str(j, obj, "shortName", false, true, &t->short_name));
    int active;
    CHECK(jin_bool(j, obj, "active", false, 1, &active));
    t->active = active;
    json_t *aliases = json_object_get(obj, "aliases");
    t->aliases_json = "[]";
    if (aliases) {
        size_t m = jin_push_key(j, "aliases");
        if (!json_is_array(aliases))
            return jin_fail(j, "must be an array of strings");
        size_t k;
        json_t *a;
        json_array_foreach(aliases, k, a)
        {
            if (!json_is_string(a)) {
                jin_push_index(j, k);
                return jin_fail(j, "must be a string");
            }
        }
        jin_pop(j, m);
        char *dump = json_dumps(aliases, JSON_COMPACT | JSON_ENSURE_ASCII);
        /* the text must live as long as the document: keep it on the object under a key no
         * JSON input can collide with (it starts with \x01 and is never read back as input) */
        json_object_set_new(obj, "\001aliases", json_string(dump));
        free(dump);
        t->aliases_json = json_string_value(json_object_get(obj, "\001aliases"));
    }
    return 0;
}

static int import_team(struct import *im, json_t *obj)
{
    struct team t;
    CHECK(parse_team(im, obj, &t));
    CHECK(once(im, "team", t.id));
    int rc = admin_upsert_team(im->s, &t);
    if (rc < 0)
        return store_fail(im, rc);
    im->teams++;
    return 0;
}

/* homeTeam / awayTeam: a full Team (upserted) or {"id": …} naming an existing team. */
static int game_team(struct import *im, json_t *game, const char *key, const char **id)
{
    struct jin *j = &im->j;
    json_t *t;
    size_t m;
    CHECK(jin_member_object(j, game, key, "a Team object or {\"id\": …}", &t, &m));
    if (json_object_size(t) == 1 && json_object_get(t, "id")) {
        CHECK(check_id(im, t, "team", id));
    } else {
        struct team team;
        CHECK(parse_team(im, t, &team));
        int rc = admin_upsert_team(im->s, &team);
        if (rc < 0)
            return store_fail(im, rc);
        *id = team.id;
    }
    int rc = admin_team_exists(im->s, *id);
    if (rc < 0)
        return store_fail(im, rc);
    if (!rc)
        return jin_fail(j, "no team with id \"%s\" in the file or the database", *id);
    jin_pop(j, m);
    return 0;
}

static int import_game(struct import *im, json_t *obj)
{
    static const char *const keys[] = {"id",        "homeTeam",    "awayTeam",   "homeScore",
                                       "awayScore", "startsAt",    "kickoffTbd", "period",
                                       "clock",     "status",      "season",     "week",
                                       "league",    "seasonType",  "stageLabel", "createdAt",
                                       "updatedAt", "neutralSite", NULL};
    static const char *const ignored[] = {"url", "links", NULL};
    struct jin *j = &im->j;
    struct game g;
    memset(&g, 0, sizeof g);
    CHECK(jin_object(j, obj, "an object"));
    CHECK(jin_keys(j, obj, keys, ignored));
    CHECK(check_id(im, obj, "game", &g.id));
    CHECK(once(im, "game", g.id));
    CHECK(game_team(im, obj, "homeTeam", &g.home.id));
    CHECK(game_team(im, obj, "awayTeam", &g.away.id));
    if (strcmp(g.home.id, g.away.id) == 0) {
        size_t m = jin_push_key(j, "awayTeam");
        jin_fail(j, "a team cannot play itself");
        jin_pop(j, m);
        return -1;
    }
    CHECK(jin_int(j, obj, "homeScore", false, true, 0, 999, &g.home_score));
    CHECK(jin_int(j, obj, "awayScore", false, true, 0, 999, &g.away_score));
    CHECK(jin_time(j, obj, "startsAt", false, true, &g.starts_at));
    int tbd;
    CHECK(jin_bool(j, obj, "kickoffTbd", false, 0, &tbd));
    g.kickoff_tbd = tbd;
    CHECK(jin_int(j, obj, "period", false, true, 0, 30, &g.period));
    CHECK(jin_str(j, obj, "clock", false, true, &g.clock));
    CHECK(jin_enum(j, obj, "status", true, false, game_status_names, &g.status));
    CHECK(jin_int(j, obj, "season", true, false, 2000, 2100, &g.season));
    CHECK(jin_int(j, obj, "week", true, false, 0, 30, &g.week));
    CHECK(jin_enum(j, obj, "league", true, false, league_names, &g.league));
    CHECK(jin_enum(j, obj, "seasonType", false, false, season_type_names, &g.season_type));
    if (!g.season_type)
        g.season_type = season_type_names[SEASON_TYPE_REGULAR];
    CHECK(jin_str(j, obj, "stageLabel", false, true, &g.stage_label));
    int neutral;
    CHECK(jin_bool(j, obj, "neutralSite", false, 0, &neutral));
    g.neutral_site = neutral;
    CHECK(jin_time(j, obj, "createdAt", false, false, &g.created_at));
    CHECK(jin_time(j, obj, "updatedAt", false, false, &g.updated_at));

    /* absent timestamps keep their stored values, so re-importing changes nothing */
    if (g.created_at == MODEL_NULL || g.updated_at == MODEL_NULL) {
        int64_t c = im->now, u = im->now;
        int rc = admin_game_times(im->s, g.id, &c, &u);
        if (rc < 0)
            return store_fail(im, rc);
        if (g.created_at == MODEL_NULL)
            g.created_at = c;
        if (g.updated_at == MODEL_NULL)
            g.updated_at = u;
    }
    int rc = admin_upsert_game(im->s, &g);
    if (rc < 0)
        return store_fail(im, rc);
    im->games++;
    return 0;
}

static int check_http_url(struct jin *j, const char *url)
{
    size_t n = strlen(url);
    const char *rest = NULL;
    if (strncmp(url, "https://", 8) == 0)
        rest = url + 8;
    else if (strncmp(url, "http://", 7) == 0)
        rest = url + 7;
    if (!rest || !*rest || *rest == '/' || n > 2048)
        return jin_fail(j, "\"%.80s\" is not an absolute http(s) URL", url);
    for (const char *p = url; *p; p++)
        if ((unsigned char)*p <= 0x20 || *p == 0x7f || *p == '"' || *p == '<' || *p == '>' ||
            *p == '\\')
            return jin_fail(j, "\"%.80s\" is not an absolute http(s) URL", url);
    return 0;
}

static int parse_sources(struct import *im, json_t *arr, const char *incident_id)
{
    static const char *const keys[] = {"url",         "title",        "publisher",
                                       "source_kind", "published_at", "added_at",
                                       "supports",    "added_by",     NULL};
    static const char *const ignored[] = {"id", NULL};
    struct jin *j = &im->j;
    struct source src[ADMIN_MAX_SOURCES];
    size_t m = jin_push_key(j, "sources");
    if (!json_is_array(arr))
        return jin_fail(j, "must be an array of Source objects");
    if (json_array_size(arr) > ADMIN_MAX_SOURCES)
        return jin_fail(j, "at most %d sources per incident", ADMIN_MAX_SOURCES);
    size_t k;
    json_t *o;
    json_array_foreach(arr, k, o)
    {
        size_t mi = jin_push_index(j, k);
        struct source *s = &src[k];
        CHECK(jin_object(j, o, "a Source object"));
        CHECK(jin_keys(j, o, keys, ignored));
        CHECK(jin_str(j, o, "url", true, false, &s->url));
        size_t mu = jin_push_key(j, "url");
        CHECK(check_http_url(j, s->url));
        jin_pop(j, mu);
        for (size_t p = 0; p < k; p++) {
            if (strcmp(src[p].url, s->url) == 0) {
                jin_push_key(j, "url");
                return jin_fail(j, "the same URL is listed twice");
            }
        }
        CHECK(jin_str(j, o, "title", true, false, &s->title));
        CHECK(jin_str(j, o, "publisher", false, true, &s->publisher));
        CHECK(jin_enum(j, o, "source_kind", true, false, source_kind_names, &s->kind));
        CHECK(jin_time(j, o, "published_at", false, true, &s->published_at));
        CHECK(jin_time(j, o, "added_at", false, false, &s->added_at));
        CHECK(jin_str(j, o, "supports", true, false, &s->supports));
        CHECK(jin_str(j, o, "added_by", false, true, &s->added_by));
        if (s->added_by && !uuid_is_valid(s->added_by)) {
            jin_push_key(j, "added_by");
            return jin_fail(j, "must be a UUID or null");
        }
        jin_pop(j, mi);
    }
    jin_pop(j, m);
    int rc = admin_replace_sources(im->s, incident_id, src, json_array_size(arr), im->now);
    return rc < 0 ? store_fail(im, rc) : 0;
}

/* The question versions of one incident: question_history (superseded ones; the current
 * version may be repeated there) plus debate_question (current). Returns the current
 * version in *current (MODEL_NULL when none). */
#define MAX_VERSIONS 64

static int parse_questions(struct import *im, json_t *inc, int64_t published_at,
                           struct question qs[MAX_VERSIONS], size_t *count, int64_t *current,
                           bool *touched)
{
    struct jin *j = &im->j;
    json_t *dq = json_object_get(inc, "debate_question");
    json_t *hist = json_object_get(inc, "question_history");
    *current = MODEL_NULL;
    *count = 0;
    *touched = dq || hist;
    if (!*touched)
        return 0; /* keep what is stored */
    size_t n = 0;
    int64_t max_hist = 0;
    if (hist && !json_is_null(hist)) {
        size_t m = jin_push_key(j, "question_history");
        if (!json_is_array(hist))
            return jin_fail(j, "must be an array");
        if (json_array_size(hist) > MAX_VERSIONS - 1)
            return jin_fail(j, "at most %d versions", MAX_VERSIONS - 1);
        size_t k;
        json_t *h;
        json_array_foreach(hist, k, h)
        {
            size_t mi = jin_push_index(j, k);
            CHECK(question_parse_history(j, h, &qs[n]));
            if (qs[n].version <= max_hist) {
                jin_push_key(j, "question_version");
                return jin_fail(j, "versions must be listed in ascending order, each once");
            }
            max_hist = qs[n].version;
            n++;
            jin_pop(j, mi);
        }
        jin_pop(j, m);
    }
    if (dq && !json_is_null(dq)) {
        size_t m = jin_push_key(j, "debate_question");
        struct question q;
        CHECK(question_parse_current(j, dq, published_at, &q));
        if (q.version == MODEL_NULL) {
            q.version = max_hist + 1;
            /* the API lists the current version in question_history too */
            if (n && qs[n - 1].superseded_at == MODEL_NULL)
                q.version = qs[n - 1].version;
        }
        if (n && qs[n - 1].version == q.version) {
            if (qs[n - 1].superseded_at != MODEL_NULL) {
                jin_pop(j, m);
                jin_push_key(j, "question_history");
                jin_push_index(j, n - 1);
                return jin_fail(j, "the current version %lld cannot have superseded_at",
                                (long long)q.version);
            }
            n--; /* the snapshot of the current version is taken from debate_question */
        } else if (q.version < max_hist) {
            jin_push_key(j, "question_version");
            return jin_fail(j, "must be higher than every version in question_history");
        }
        for (size_t k = 0; k < n; k++) {
            if (qs[k].superseded_at == MODEL_NULL) {
                jin_pop(j, m);
                jin_push_key(j, "question_history");
                jin_push_index(j, k);
                jin_push_key(j, "superseded_at");
                return jin_fail(j, "a version before the current one needs superseded_at");
            }
        }
        qs[n++] = q;
        *current = q.version;
        jin_pop(j, m);
    }
    *count = n;
    return 0;
}

static int import_ballots(struct import *im, json_t *arr, const char *id, int64_t version)
{
    struct jin *j = &im->j;
    size_t m = jin_push_key(j, "ballots");
    if (!json_is_array(arr))
        return jin_fail(j, "must be an array of Ballot objects");
    if (version == MODEL_NULL && json_array_size(arr) > 0)
        return jin_fail(j, "ballots need a current debate_question");
    size_t n = json_array_size(arr);
    int *choices = calloc(n ? n : 1, sizeof *choices);
    int *rootings = calloc(n ? n : 1, sizeof *rootings);
    int rc = -1;
    size_t k;
    json_t *b;
    static const char *const keys[] = {"choice", "rooting", NULL};
    json_array_foreach(arr, k, b)
    {
        size_t mi = jin_push_index(j, k);
        const char *choice, *rooting;
        if (jin_object(j, b, "a Ballot object") < 0 || jin_keys(j, b, keys, NULL) < 0 ||
            jin_enum(j, b, "choice", true, false, choice_names, &choice) < 0 ||
            jin_enum(j, b, "rooting", false, true, ballot_rooting_names, &rooting) < 0)
            goto out;
        choices[k] = vocab_find(choice_names, choice);
        rootings[k] = rooting_from_name(rooting);
        jin_pop(j, mi);
    }
    jin_pop(j, m);
    if (version != MODEL_NULL) {
        int src = admin_replace_legacy_ballots(im->s, id, version, choices, rootings, n, im->now);
        if (src < 0) {
            store_fail(im, src);
            goto out;
        }
    }
    rc = 0;
out:
    free(choices);
    free(rootings);
    return rc;
}

/* ---- comments (docs/import-format.md "Comment") ---- */

static const char *const comment_status_names[] = {COMMENT_PENDING, COMMENT_PUBLISHED,
                                                   COMMENT_REJECTED, COMMENT_DELETED, NULL};

/* An imported UUID (lower case, canonical) at key of obj: 0 with *out (NULL when absent or
 * null and nullable), or -1. */
static int lower_uuid(struct jin *j, json_t *obj, const char *key, bool required, const char **out)
{
    CHECK(jin_str(j, obj, key, required, !required, out));
    if (*out && (!uuid_is_valid(*out) || strcspn(*out, "ABCDEF") != strlen(*out))) {
        jin_push_key(j, key);
        return jin_fail(j, "\"%.80s\" is not a lower-case UUID", *out);
    }
    return 0;
}

/* The author of an imported comment: the account with that display name (the names are
 * unique, case and punctuation aside), or a new one known only by it — no email a message
 * can reach, no password: it cannot sign in (docs/import-format.md). */
static int comment_author(struct import *im, json_t *c, char id[ID_LEN], bool *banned)
{
    static const char *const keys[] = {"display_name", "suspended", NULL};
    static const char *const ignored[] = {"badge", NULL};
    struct jin *j = &im->j;
    json_t *au;
    size_t m;
    CHECK(jin_member_object(j, c, "author", "an object {\"display_name\"}", &au, &m));
    CHECK(jin_keys(j, au, keys, ignored));
    const char *name;
    int suspended;
    CHECK(jin_str(j, au, "display_name", true, false, &name));
    CHECK(jin_bool(j, au, "suspended", false, 0, &suspended));
    if (!im->names_read) {
        int rc = teams_all_names(im->s, &im->a, &im->names, &im->nnames);
        if (rc < 0)
            return store_fail(im, rc);
        im->names_read = true;
    }
    char clean[DISPLAY_NAME_MAX + 1], key[DISPLAY_NAME_MAX + 1];
    const char *why = display_name_check(name, im->names, im->nnames, clean, key);
    if (why) {
        jin_push_key(j, "display_name");
        return jin_fail(j, "\"%.80s\": %s", name, why);
    }
    json_t *known = json_object_get(im->authors, key);
    if (known) {
        snprintf(id, ID_LEN, "%s", json_string_value(json_array_get(known, 0)));
        *banned = json_is_true(json_array_get(known, 1));
        jin_pop(j, m);
        return 0;
    }
    int rc = accounts_by_display_key(im->s, key, id, banned);
    if (rc == 0) {
        char email[ID_LEN + 32];
        uuid_v4(id);
        snprintf(email, sizeof email, "%s@" ACCOUNT_IMPORTED_DOMAIN, id);
        *banned = suspended;
        rc = accounts_insert_named(im->s, id, email, clean, key, *banned, im->now);
    }
    if (rc < 0)
        return store_fail(im, rc);
    json_object_set_new(im->authors, key, json_pack("[sb]", id, *banned));
    jin_pop(j, m);
    return 0;
}

/* One comment of incident_id: top-level ones first (replies == false), then replies, so
 * that a reply's parent exists whatever the order of the array. */
static int import_comment(struct import *im, json_t *o, const char *incident_id, bool replies)
{
    static const char *const keys[] = {
        "id",          "parent_id",         "author",       "body",      "status",
        "held_reason", "featured",          "created_at",   "edited_at", "deleted_at",
        "reviewed_at", "hidden_by_reports", "open_reports", NULL};
    static const char *const ignored[] = {"reply_count", NULL};
    struct jin *j = &im->j;
    CHECK(jin_object(j, o, "a Comment object"));
    CHECK(jin_keys(j, o, keys, ignored));
    const char *id, *parent;
    CHECK(lower_uuid(j, o, "parent_id", false, &parent));
    if ((parent != NULL) != replies)
        return 0; /* the other pass */
    CHECK(lower_uuid(j, o, "id", true, &id));
    CHECK(once(im, "comment", id));
    struct comment c, old;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "%s", id);
    snprintf(c.incident_id, sizeof c.incident_id, "%s", incident_id);
    int rc = comments_get(im->s, &im->a, id, &old);
    if (rc < 0)
        return store_fail(im, rc);
    if (rc == 1 && strcmp(old.incident_id, incident_id) != 0) {
        jin_push_key(j, "id");
        return jin_fail(j, "comment %s belongs to incident %s", id, old.incident_id);
    }
    if (parent) {
        struct comment p;
        size_t m = jin_push_key(j, "parent_id");
        rc = comments_get(im->s, &im->a, parent, &p);
        if (rc < 0)
            return store_fail(im, rc);
        if (rc == 0 || strcmp(p.incident_id, incident_id) != 0 || p.parent_id[0])
            return jin_fail(j,
                            "no top-level comment %s on this incident in the file or the "
                            "database (replies are one level deep)",
                            parent);
        if ((rc = comments_has_replies(im->s, id)) < 0)
            return store_fail(im, rc);
        if (rc == 1)
            return jin_fail(j, "comment %s has replies: it cannot become a reply", id);
        jin_pop(j, m);
        snprintf(c.parent_id, sizeof c.parent_id, "%s", parent);
    }
    bool banned;
    CHECK(comment_author(im, o, c.account_id, &banned));
    const char *status, *held, *body = NULL;
    CHECK(jin_enum(j, o, "status", false, false, comment_status_names, &status));
    snprintf(c.status, sizeof c.status, "%s", status ? status : COMMENT_PUBLISHED);
    bool deleted = strcmp(c.status, COMMENT_DELETED) == 0;
    if (deleted) {
        /* the words of a deleted comment are gone: its body is "" (or absent) */
        json_t *b = json_object_get(o, "body");
        if (b && (!json_is_string(b) || json_string_length(b) > 0)) {
            jin_push_key(j, "body");
            return jin_fail(j, "a deleted comment keeps no words: \"\"");
        }
        c.body = "";
    } else {
        CHECK(jin_str(j, o, "body", true, false, &body));
        char *clean = arena_alloc(&im->a, strlen(body) + 1);
        const char *why = comment_body_clean(body, clean, strlen(body) + 1);
        if (why) {
            jin_push_key(j, "body");
            return jin_fail(j, "%s", why);
        }
        c.body = clean;
    }
    CHECK(jin_enum(j, o, "held_reason", false, true, comment_held_reasons, &held));
    if (held && strcmp(c.status, COMMENT_PENDING) != 0) {
        jin_push_key(j, "held_reason");
        return jin_fail(j, "only a pending comment is held");
    }
    snprintf(c.held_reason, sizeof c.held_reason, "%s", held ? held : "");
    int featured, hidden;
    CHECK(jin_bool(j, o, "featured", false, 0, &featured));
    if (featured && strcmp(c.status, COMMENT_PUBLISHED) != 0) {
        jin_push_key(j, "featured");
        return jin_fail(j, "only a published comment can be featured");
    }
    CHECK(jin_bool(j, o, "hidden_by_reports", false, 0, &hidden));
    CHECK(jin_int(j, o, "open_reports", false, false, 0, INT32_MAX, &c.open_reports));
    if (c.open_reports == MODEL_NULL)
        c.open_reports = 0;
    CHECK(jin_time(j, o, "created_at", false, false, &c.created_at));
    if (c.created_at == MODEL_NULL)
        c.created_at = rc == 1 ? old.created_at : im->now;
    CHECK(jin_time(j, o, "edited_at", false, true, &c.edited_at));
    CHECK(jin_time(j, o, "deleted_at", false, true, &c.deleted_at));
    CHECK(jin_time(j, o, "reviewed_at", false, true, &c.reviewed_at));
    c.featured = featured;
    c.report_hidden = hidden;
    c.author_hidden = banned;
    c.visible = comment_visible(c.status, c.report_hidden, c.author_hidden);
    if ((rc = comments_import_put(im->s, &c)) < 0)
        return store_fail(im, rc);
    im->comments++;
    return 0;
}

/* An incident's comments (upserted by id: comments absent from the file stay), then its
 * comment_count and reply counts derived from what is visible. */
static int import_comments(struct import *im, json_t *obj, const char *incident_id)
{
    struct jin *j = &im->j;
    json_t *arr = json_object_get(obj, "comments");
    if (arr) {
        size_t m = jin_push_key(j, "comments");
        if (!json_is_array(arr))
            return jin_fail(j, "must be an array of Comment objects");
        for (int pass = 0; pass < 2; pass++) {
            size_t k;
            json_t *o;
            json_array_foreach(arr, k, o)
            {
                size_t mi = jin_push_index(j, k);
                CHECK(import_comment(im, o, incident_id, pass == 1));
                jin_pop(j, mi);
            }
        }
        jin_pop(j, m);
    }
    int rc = comments_recount(im->s, incident_id);
    return rc < 0 ? store_fail(im, rc) : 0;
}

static int import_incident(struct import *im, json_t *obj, size_t index)
{
    static const char *const keys[] = {"id",
                                       "game_id",
                                       "title",
                                       "play_description",
                                       "neutral_summary",
                                       "category",
                                       "period",
                                       "clock",
                                       "original_ruling",
                                       "final_ruling",
                                       "replay_involved",
                                       "consequence",
                                       "status",
                                       "origin_kind",
                                       "provenance",
                                       "reviewed_at",
                                       "published_at",
                                       "created_at",
                                       "updated_at",
                                       "duplicate_of",
                                       "slug",
                                       "penalty_called",
                                       "comment_count",
                                       "visibility",
                                       "sources",
                                       "debate_question",
                                       "question_history",
                                       "ballots",
                                       "comments",
                                       NULL};
    static const char *const ignored[] = {"url",
                                          "links",
                                          "votes",
                                          "matchup",
                                          "public_url",
                                          "display_question",
                                          "ruling_version",
                                          "publication_status",
                                          "league",
                                          "seasonType",
                                          NULL};
    struct jin *j = &im->j;
    struct incident i;
    memset(&i, 0, sizeof i);
    CHECK(jin_object(j, obj, "an object"));
    CHECK(jin_keys(j, obj, keys, ignored));
    const char *raw_id;
    CHECK(jin_str(j, obj, "id", true, false, &raw_id));
    if (!uuid_is_valid(raw_id) || strcspn(raw_id, "ABCDEF") != strlen(raw_id)) {
        jin_push_key(j, "id");
        return jin_fail(j, "\"%.80s\" is not a lower-case UUID", raw_id);
    }
    i.id = raw_id;
    CHECK(once(im, "incident", i.id));
    CHECK(jin_str(j, obj, "game_id", true, false, &i.game_id));
    int rc = admin_game_exists(im->s, i.game_id);
    if (rc < 0)
        return store_fail(im, rc);
    if (!rc) {
        jin_push_key(j, "game_id");
        return jin_fail(j, "no game with id \"%.80s\" in the file or the database", i.game_id);
    }
    CHECK(jin_str(j, obj, "title", true, false, &i.title));
    CHECK(jin_str(j, obj, "play_description", true, false, &i.play_description));
    CHECK(jin_str(j, obj, "neutral_summary", false, true, &i.neutral_summary));
    CHECK(jin_enum(j, obj, "category", true, false, category_names, &i.category));
    CHECK(jin_int(j, obj, "period", false, true, 1, 30, &i.period));
    CHECK(jin_str(j, obj, "clock", false, true, &i.clock));
    CHECK(jin_str(j, obj, "original_ruling", false, true, &i.original_ruling));
    CHECK(jin_str(j, obj, "final_ruling", false, true, &i.final_ruling));
    CHECK(jin_bool(j, obj, "replay_involved", true, -1, &i.replay_involved));
    CHECK(jin_str(j, obj, "consequence", false, true, &i.consequence));
    CHECK(jin_enum(j, obj, "status", false, false, maturity_names, &i.status));
    if (!i.status)
        i.status = maturity_names[MATURITY_DEVELOPING];
    CHECK(jin_enum(j, obj, "origin_kind", false, false, origin_names, &i.origin_kind));
    if (!i.origin_kind)
        i.origin_kind = origin_names[ORIGIN_MIGRATION];
    json_t *prov = json_object_get(obj, "provenance");
    char *prov_text = NULL;
    if (prov) {
        size_t m = jin_push_key(j, "provenance");
        CHECK(jin_object(j, prov, "an object"));
        jin_pop(j, m);
        prov_text = json_dumps(prov, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_SORT_KEYS);
    } else {
        json_t *d = json_pack("{s{ss}s{ss}s{ss}}", "discovery", "kind", i.origin_kind, "research",
                              "kind", "editorial", "publication", "kind", "import");
        prov_text = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS);
        json_decref(d);
    }
    json_object_set_new(obj, "\001provenance", json_string(prov_text));
    free(prov_text);
    i.provenance_json = json_string_value(json_object_get(obj, "\001provenance"));
    CHECK(jin_time(j, obj, "reviewed_at", false, true, &i.reviewed_at));
    CHECK(jin_time(j, obj, "published_at", false, false, &i.published_at));
    CHECK(jin_time(j, obj, "created_at", false, false, &i.created_at));
    CHECK(jin_time(j, obj, "updated_at", false, false, &i.updated_at));
    CHECK(jin_bool(j, obj, "penalty_called", true, -1, &i.penalty_called));
    /* checked, then derived from the visible comments (import_comments) */
    CHECK(jin_int(j, obj, "comment_count", false, false, 0, INT32_MAX, &i.comment_count));
    i.comment_count = 0;
    const char *visibility;
    CHECK(jin_enum(j, obj, "visibility", false, false, import_visibility_names, &visibility));
    if (!visibility)
        visibility = visibility_names[VISIBILITY_PUBLISHED];
    const char *dup_of;
    CHECK(jin_str(j, obj, "duplicate_of", false, true, &dup_of));
    if (dup_of) {
        if (!uuid_is_valid(dup_of) || strcmp(dup_of, i.id) == 0) {
            jin_push_key(j, "duplicate_of");
            return jin_fail(j, "must be the UUID of another incident");
        }
        json_array_append_new(im->merges, json_pack("[iss]", (json_int_t)index, i.id, dup_of));
    }

    struct incident_state old;
    rc = admin_incident_state(im->s, i.id, &old);
    if (rc < 0)
        return store_fail(im, rc);
    bool existed = rc == 1;
    /* absent timestamps keep stored values (or default), so re-importing changes nothing */
    if (i.published_at == MODEL_NULL)
        i.published_at = existed ? old.published_at : im->now;
    if (i.created_at == MODEL_NULL)
        i.created_at = existed ? old.created_at : i.published_at;
    if (i.updated_at == MODEL_NULL)
        i.updated_at = existed ? old.updated_at : i.published_at;

    const char *slug;
    CHECK(jin_str(j, obj, "slug", false, true, &slug));
    char slug_buf[SLUG_MAX + 16];
    if (slug) {
        char owner[40];
        if (!slug_is_valid(slug)) {
            jin_push_key(j, "slug");
            return jin_fail(j, "\"%.80s\" must match ^[a-z0-9]+(-[a-z0-9]+)*$ (at most %d)", slug,
                            SLUG_MAX);
        }
        rc = admin_slug_owner(im->s, slug, i.id, owner);
        if (rc < 0)
            return store_fail(im, rc);
        if (rc == 1) {
            jin_push_key(j, "slug");
            return jin_fail(j, "\"%s\" belongs to incident %s", slug, owner);
        }
        i.slug = slug;
    } else if (json_is_null(json_object_get(obj, "slug"))) {
        i.slug = NULL; /* explicitly no slug: public_url falls back to the id */
    } else if (existed && old.slug[0]) {
        i.slug = old.slug; /* derived once, never changes with later headline edits */
    } else {
        int drc = admin_derive_slug(im->s, i.id, i.title, slug_buf, sizeof slug_buf);
        if (drc < 0)
            return store_fail(im, drc);
        i.slug = slug_buf;
    }

    /* the questions decide the current version; they are written after the incident row
     * they reference */
    int64_t version;
    bool touched;
    struct question qs[MAX_VERSIONS];
    size_t nq;
    CHECK(parse_questions(im, obj, i.published_at, qs, &nq, &version, &touched));
    if (!touched)
        version = existed ? old.question_version : MODEL_NULL;
    rc = admin_upsert_incident(im->s, &i, visibility, version);
    if (rc == 0 && touched)
        rc = admin_replace_questions(im->s, i.id, qs, nq);
    if (rc < 0)
        return store_fail(im, rc);
    json_t *sources = json_object_get(obj, "sources");
    if (sources)
        CHECK(parse_sources(im, sources, i.id));
    json_t *ballots = json_object_get(obj, "ballots");
    if (ballots)
        CHECK(import_ballots(im, ballots, i.id, version));
    CHECK(import_comments(im, obj, i.id));
    im->incidents++;
    return 0;
}

/* Merged duplicates are applied once every incident of the file exists. */
static int apply_merges(struct import *im)
{
    size_t k;
    json_t *m;
    json_array_foreach(im->merges, k, m)
    {
        size_t index = (size_t)json_integer_value(json_array_get(m, 0));
        const char *id = json_string_value(json_array_get(m, 1));
        const char *into = json_string_value(json_array_get(m, 2));
        jin_init(&im->j, "incidents");
        jin_push_index(&im->j, index);
        jin_push_key(&im->j, "duplicate_of");
        struct incident_state st;
        int rc = admin_incident_state(im->s, into, &st);
        if (rc < 0)
            return store_fail(im, rc);
        if (rc == 0)
            return jin_fail(&im->j, "no incident %s in the file or the database", into);
        int vis = vocab_find(visibility_names, st.visibility);
        if (vis != VISIBILITY_PUBLISHED)
            return jin_fail(&im->j, "incident %s is %s; a duplicate needs a published survivor",
                            into, vis == VISIBILITY_MERGED ? "itself a duplicate" : st.visibility);
        /* no chains, as with `whistle incident merge`: an incident that others were merged
         * into (earlier in the file or in the database) cannot become a duplicate itself */
        struct incident_state self;
        rc = admin_incident_state(im->s, id, &self);
        if (rc < 0)
            return store_fail(im, rc);
        if (self.duplicates > 0)
            return jin_fail(&im->j,
                            "incident %s has %lld duplicate(s) merged into it; merging it into "
                            "%s would make a chain",
                            id, (long long)self.duplicates, into);
        /* MODEL_NULL: updated_at stays as imported */
        rc = admin_set_visibility(im->s, id, visibility_names[VISIBILITY_MERGED], into, MODEL_NULL);
        if (rc < 0)
            return store_fail(im, rc);
    }
    return 0;
}

static int import_section(struct import *im, json_t *doc, const char *key,
                          int (*one)(struct import *, json_t *, size_t))
{
    json_t *arr = json_object_get(doc, key);
    if (!arr)
        return 0;
    jin_init(&im->j, key);
    if (!json_is_array(arr))
        return jin_fail(&im->j, "must be an array");
    size_t total = json_array_size(arr);
    size_t k;
    json_t *o;
    json_array_foreach(arr, k, o)
    {
        jin_init(&im->j, key);
        jin_push_index(&im->j, k);
        CHECK(one(im, o, k));
        if (im->opt->progress && total >= 2000 && (k + 1) % 1000 == 0)
            im->opt->progress(im->opt->progress_arg, key, k + 1, total);
    }
    return 0;
}

static int one_team(struct import *im, json_t *o, size_t k)
{
    (void)k;
    return import_team(im, o);
}

static int one_game(struct import *im, json_t *o, size_t k)
{
    (void)k;
    return import_game(im, o);
}

/* Refuses the document as a whole before anything is read from it. */
static int check_document(struct import *im, json_t *doc, struct import_report *out)
{
    static const char *const top[] = {"teams", "games", "incidents", "sample", NULL};
    jin_init(&im->j, "");
    if (!json_is_object(doc)) {
        snprintf(out->err, sizeof out->err,
                 "the document must be an object {\"teams\", \"games\", \"incidents\"}");
        return -1;
    }
    if (jin_keys(&im->j, doc, top, NULL) < 0) {
        snprintf(out->err, sizeof out->err, "%s (expected teams, games, incidents, sample)",
                 im->j.err);
        return -1;
    }
    if (jin_no_nul(&im->j, doc) < 0) {
        snprintf(out->err, sizeof out->err, "%s", im->j.err);
        return -1;
    }
    json_t *sample = json_object_get(doc, "sample");
    if (sample && !json_is_true(sample)) {
        snprintf(out->err, sizeof out->err,
                 "sample: must be true (the bundled demo's marker) or absent");
        return -1;
    }
    return 0;
}

int import_document(struct app_ctx *ctx, json_t *doc, const struct import_options *opt,
                    struct import_report *out)
{
    struct import im = {.s = ctx->s, .now = ctx->now, .opt = opt};
    arena_init(&im.a);
    int outcome = IMPORT_INVALID;
    bool in_tx = false;
    memset(out, 0, sizeof *out);
    if (check_document(&im, doc, out) < 0)
        goto out;
    outcome = IMPORT_UNAVAILABLE;
    /* maintenance keeps the deployment's exclusive write lock (docs/scale.md "Which lock
     * each write takes"): an import rewrites games, incidents and ballots wholesale, so every
     * other write of every node waits for it */
    if (store_begin_write(im.s) < 0) {
        snprintf(out->err, sizeof out->err, "cannot lock the database: %s", store_errmsg(im.s));
        goto out;
    }
    in_tx = true;
    if (opt->if_empty) {
        int empty = admin_is_empty(im.s);
        if (empty < 0) {
            snprintf(out->err, sizeof out->err, "cannot read the database: %s", store_errmsg(im.s));
            goto out;
        }
        if (!empty) {
            outcome = IMPORT_NOT_EMPTY;
            goto out;
        }
    }
    im.seen = json_object();
    im.authors = json_object();
    im.merges = json_array();
    if (import_section(&im, doc, "teams", one_team) < 0 ||
        import_section(&im, doc, "games", one_game) < 0 ||
        import_section(&im, doc, "incidents", import_incident) < 0 || apply_merges(&im) < 0) {
        /* a store failure names the place it happened, as the document's refusals do */
        outcome = im.store_failed ? IMPORT_UNAVAILABLE : IMPORT_INVALID;
        snprintf(out->err, sizeof out->err, im.store_failed ? "import refused: %s" : "%s",
                 im.j.err);
        goto out;
    }
    if (json_is_true(json_object_get(doc, "sample"))) {
        int rc = settings_put(im.s, IMPORT_SAMPLE_SETTING, "1");
        if (rc < 0) {
            outcome = IMPORT_UNAVAILABLE;
            snprintf(out->err, sizeof out->err, "import refused: sample: database error (%d): %s",
                     rc, store_errmsg(im.s));
            goto out;
        }
    }
    out->teams = im.teams;
    out->games = im.games;
    out->incidents = im.incidents;
    out->comments = im.comments;
    if (opt->dry_run) {
        outcome = IMPORT_OK; /* rolled back below: a dry run writes nothing */
        goto out;
    }
    in_tx = false;
    if (store_commit(im.s) < 0) {
        store_rollback(im.s);
        snprintf(out->err, sizeof out->err, "import failed to commit: %s", store_errmsg(im.s));
        goto out;
    }
    outcome = IMPORT_OK;
out:
    if (in_tx)
        store_rollback(im.s);
    json_decref(im.seen);
    json_decref(im.authors);
    json_decref(im.merges);
    arena_release(&im.a);
    return outcome;
}

int import_sample_loaded(const struct app_ctx *ctx)
{
    char v[8];
    int rc = settings_get(ctx->s, IMPORT_SAMPLE_SETTING, v, sizeof v);
    if (rc < 0)
        return APP_UNAVAILABLE;
    return rc == 1 && strcmp(v, "1") == 0;
}

int import_sample_loaded_at(const struct app_ctx *ctx, const uint64_t *content_version)
{
    /* read after the request's version was: never older than that version's state */
    static _Thread_local struct {
        bool set;
        uint64_t version;
        int loaded;
    } memo;
    if (content_version && memo.set && memo.version == *content_version)
        return memo.loaded;
    int rc = import_sample_loaded(ctx);
    if (content_version && rc >= 0) {
        memo.set = true;
        memo.version = *content_version;
        memo.loaded = rc;
    }
    return rc;
}
