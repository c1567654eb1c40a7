/*
 * CollegeFootballData (api.collegefootballdata.com) responses, read with jansson: /games (an
 * array of games, camelCase keys) and /teams (an array of teams). docs/games.md lists the
 * keys used and how each maps onto a Game and a Team.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "domain/gamesync.h"
#include "domain/ids.h"
#include "providers/provider.h"
#include "util/buf.h"
#include "util/timefmt.h"

#define STAGE_LABEL_MAX 200

struct cfbd_team_entry {
    const char *school;
    struct team t;
};

struct cfbd_teams {
    struct cfbd_team_entry *v; /* arena-owned, sorted by school */
    size_t n;
};

void cfbd_team_id(const char *school, char *out, size_t outlen)
{
    size_t n = 0;
    bool dash = false;
    n = (size_t)snprintf(out, outlen, "cfb-");
    for (const unsigned char *p = (const unsigned char *)school; *p && n + 2 < outlen; p++) {
        if (*p == '&' || *p == '\'' || *p == '.' || *p >= 0x80)
            continue;
        if (isalnum(*p)) {
            if (dash && n > 4)
                out[n++] = '-';
            dash = false;
            out[n++] = (char)tolower(*p);
        } else {
            dash = true;
        }
    }
    out[n] = '\0';
}

/* An abbreviation when the provider gives none: a one-word school's first four letters
 * ("SMU", "CLEM"), else the initials of its words ("Boise State" -> "BS"). */
static const char *derive_abbreviation(struct arena *a, const char *school)
{
    char out[16];
    size_t n = 0;
    if (!strchr(school, ' ')) {
        for (const char *p = school; *p && n < 4; p++)
            out[n++] = (char)toupper((unsigned char)*p);
    } else {
        bool start = true;
        for (const unsigned char *p = (const unsigned char *)school; *p && n + 1 < sizeof out;
             p++) {
            if (start && isalnum(*p))
                out[n++] = (char)toupper(*p);
            start = *p == ' ' || *p == '-';
        }
    }
    out[n] = '\0';
    return arena_strdup(a, n ? out : "?");
}

static const char *str_or_null(struct arena *a, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) && json_string_length(v) ? arena_strdup(a, json_string_value(v))
                                                      : NULL;
}

/* Appends s to the JSON array unless it is empty or already there or equal to one of
 * `not`. */
static void alias_add(json_t *arr, const char *s, const char *not1, const char *not2)
{
    if (!s || !*s || (not1 && strcmp(s, not1) == 0) || (not2 && strcmp(s, not2) == 0))
        return;
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) if (strcmp(json_string_value(v), s) == 0) return;
    json_array_append_new(arr, json_string(s));
}

static const char *aliases_json(struct arena *a, json_t *arr)
{
    char *dump = json_dumps(arr, JSON_COMPACT | JSON_ENSURE_ASCII);
    const char *out = arena_strdup(a, dump ? dump : "[]");
    free(dump);
    return out;
}

static int entry_cmp(const void *x, const void *y)
{
    const struct cfbd_team_entry *a = x, *b = y;
    return strcmp(a->school, b->school);
}

/* A response that must be a JSON array (what: "games" or "teams"); NULL with err. */
static json_t *load_array(const char *data, size_t len, const char *what, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        snprintf(err, errlen, "%s: not JSON: %s at line %d", what, jerr.text, jerr.line);
        return NULL;
    }
    if (!json_is_array(doc)) {
        snprintf(err, errlen, "%s: must be a JSON array", what);
        json_decref(doc);
        return NULL;
    }
    return doc;
}

int cfbd_read_teams(const char *data, size_t len, struct arena *a, struct cfbd_teams **out,
                    char *err, size_t errlen)
{
    json_t *doc = load_array(data, len, "teams", err, errlen);
    if (!doc)
        return -1;
    struct cfbd_teams *ts = arena_alloc(a, sizeof *ts);
    ts->v = arena_alloc(a, sizeof *ts->v * (json_array_size(doc) + 1));
    ts->n = 0;
    size_t i;
    json_t *o;
    json_array_foreach(doc, i, o)
    {
        const char *school = str_or_null(a, o, "school");
        if (!json_is_object(o) || !school)
            continue; /* a team without a school cannot be matched to a game: skipped */
        struct cfbd_team_entry *e = &ts->v[ts->n++];
        memset(e, 0, sizeof *e);
        e->school = school;
        char id[128];
        cfbd_team_id(school, id, sizeof id);
        const char *mascot = str_or_null(a, o, "mascot");
        struct buf name = BUF_INIT;
        buf_puts(&name, school);
        if (mascot)
            buf_printf(&name, " %s", mascot);
        e->t.id = arena_strdup(a, id);
        e->t.name = arena_strdup(a, name.p);
        buf_release(&name);
        e->t.abbreviation = str_or_null(a, o, "abbreviation");
        if (!e->t.abbreviation)
            e->t.abbreviation = derive_abbreviation(a, school);
        e->t.conference = str_or_null(a, o, "conference");
        e->t.league = "college";
        e->t.short_name = school;
        e->t.active = true;
        json_t *logos = json_object_get(o, "logos");
        json_t *logo = json_is_array(logos) ? json_array_get(logos, 0) : NULL;
        if (json_is_string(logo) && strncmp(json_string_value(logo), "https://", 8) == 0)
            e->t.logo_url = arena_strdup(a, json_string_value(logo));
        json_t *aliases = json_array();
        alias_add(aliases, mascot, school, e->t.name);
        json_t *alt = json_object_get(o, "alternateNames");
        size_t k;
        json_t *v;
        if (json_is_array(alt))
            json_array_foreach(alt, k, v) if (json_is_string(v))
                alias_add(aliases, json_string_value(v), school, e->t.name);
        e->t.aliases_json = aliases_json(a, aliases);
        json_decref(aliases);
    }
    json_decref(doc);
    qsort(ts->v, ts->n, sizeof *ts->v, entry_cmp);
    *out = ts;
    return 0;
}

static const struct team *team_lookup(const struct cfbd_teams *ts, const char *school)
{
    if (!ts)
        return NULL;
    struct cfbd_team_entry key = {.school = school};
    const struct cfbd_team_entry *e = bsearch(&key, ts->v, ts->n, sizeof *ts->v, entry_cmp);
    return e ? &e->t : NULL;
}

struct row {
    struct arena *a;
    struct provider_batch *b;
    size_t n;
    const char *gid;
};

#define REJECT(r, fieldname, ...)                                                                  \
    do {                                                                                           \
        provider_batch_reject((r)->b, (r)->a, (r)->n, (r)->gid, fieldname, __VA_ARGS__);           \
        return -1;                                                                                 \
    } while (0)

/* An integer key within [lo, hi]; null (or absent, when !required) gives MODEL_NULL. */
static int get_int(struct row *r, json_t *o, const char *key, bool required, int64_t lo, int64_t hi,
                   int64_t *out)
{
    json_t *v = json_object_get(o, key);
    *out = MODEL_NULL;
    if (!v || json_is_null(v)) {
        if (required)
            REJECT(r, key, "is required");
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        REJECT(r, key, "must be an integer from %lld to %lld", (long long)lo, (long long)hi);
    *out = json_integer_value(v);
    return 0;
}

/* A boolean key; null or absent is false. */
static int get_bool(struct row *r, json_t *o, const char *key, bool *out)
{
    json_t *v = json_object_get(o, key);
    *out = false;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_boolean(v))
        REJECT(r, key, "must be true, false or null");
    *out = json_is_true(v);
    return 0;
}

/* The team named by key into *out (*authoritative when it comes from the /teams list). */
static int get_team(struct row *r, json_t *o, const char *key, const char *conf_key,
                    const struct cfbd_teams *ts, struct team *out, bool *authoritative)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v) || !json_string_length(v))
        REJECT(r, key, "must be the school's name");
    const char *school = json_string_value(v);
    const struct team *known = team_lookup(ts, school);
    if (known) {
        *out = *known;
        *authoritative = true;
        return 0;
    }
    char tid[128];
    cfbd_team_id(school, tid, sizeof tid);
    if (strlen(tid) <= 4 || !entity_id_is_valid(tid))
        REJECT(r, key, "no team ID can be made of \"%s\"", school);
    struct team t = {0};
    t.id = arena_strdup(r->a, tid);
    t.name = arena_strdup(r->a, school);
    t.abbreviation = derive_abbreviation(r->a, school);
    t.conference = str_or_null(r->a, o, conf_key);
    t.league = "college";
    t.short_name = t.name;
    t.active = true;
    t.aliases_json = "[]";
    *out = t;
    *authoritative = false;
    return 0;
}

/* Midnight US Eastern of the Eastern day that contains the UTC instant t. */
static int64_t eastern_midnight(int64_t t)
{
    char iso[TIME_ISO_MAX];
    for (int off = 4; off <= 5; off++) {
        time_format_iso(t - (int64_t)off * 3600 * 1000000, iso);
        unsigned y, m, d, hh, mm;
        if (sscanf(iso, "%4u-%2u-%2uT%2u:%2u", &y, &m, &d, &hh, &mm) != 5)
            return t;
        if ((off == 4) == gamesync_eastern_dst(y, m, d, hh, mm))
            return gamesync_eastern_to_utc(y, m, d, 0, 0);
    }
    return t;
}

static bool contains_ci(const char *s, const char *word)
{
    return s && strcasestr(s, word) != NULL;
}

/* The game object o's ID as Whistle's "cfb:<id>" into *gid (arena-owned); r->gid names the
 * row from then on. 0, or -1 with the row rejected. */
static int read_id(struct row *r, json_t *o, const char **gid)
{
    if (!json_is_object(o))
        REJECT(r, "(game)", "must be an object");
    int64_t id;
    json_t *idv = json_object_get(o, "id");
    if (json_is_integer(idv)) {
        char text[32];
        snprintf(text, sizeof text, "%lld", (long long)json_integer_value(idv));
        r->gid = arena_strdup(r->a, text);
    }
    if (get_int(r, o, "id", true, 1, INT64_C(999999999999), &id) < 0)
        return -1;
    char text[64];
    snprintf(text, sizeof text, "cfb:%lld", (long long)id);
    *gid = arena_strdup(r->a, text);
    return 0;
}

static int read_game(struct row *r, json_t *o, const struct cfbd_teams *ts, int64_t now)
{
    struct game g = {0};
    if (read_id(r, o, &g.id) < 0)
        return -1;
    if (get_int(r, o, "season", true, 1920, 2100, &g.season) < 0 ||
        get_int(r, o, "week", true, 0, 30, &g.week) < 0)
        return -1;
    json_t *st = json_object_get(o, "seasonType");
    if (!json_is_string(st))
        REJECT(r, "seasonType", "must be a string (regular, postseason, …)");
    const char *stv = json_string_value(st);
    int season_type = vocab_find(season_type_names, stv); /* CFBD uses our names */
    g.season_type = season_type_names[season_type >= 0 ? season_type : SEASON_TYPE_UNKNOWN];
    json_t *sd = json_object_get(o, "startDate");
    if (!json_is_string(sd) || time_parse_iso(json_string_value(sd), 0, &g.starts_at) < 0)
        REJECT(r, "startDate", "must be an ISO 8601 date-time");
    bool tbd, completed, tbd2, neutral;
    if (get_bool(r, o, "startTimeTBD", &tbd) < 0 || get_bool(r, o, "startTimeTbd", &tbd2) < 0 ||
        get_bool(r, o, "completed", &completed) < 0 || get_bool(r, o, "neutralSite", &neutral) < 0)
        return -1;
    g.neutral_site = neutral;
    g.kickoff_tbd = tbd || tbd2;
    if (g.kickoff_tbd)
        g.starts_at = eastern_midnight(g.starts_at);
    struct team home, away;
    bool home_auth, away_auth;
    if (get_team(r, o, "homeTeam", "homeConference", ts, &home, &home_auth) < 0 ||
        get_team(r, o, "awayTeam", "awayConference", ts, &away, &away_auth) < 0)
        return -1;
    g.home.id = home.id;
    g.away.id = away.id;
    if (strcmp(g.home.id, g.away.id) == 0)
        REJECT(r, "awayTeam", "a team cannot play itself");
    if (get_int(r, o, "homePoints", false, 0, 999, &g.home_score) < 0 ||
        get_int(r, o, "awayPoints", false, 0, 999, &g.away_score) < 0)
        return -1;
    json_t *notes = json_object_get(o, "notes");
    if (notes && !json_is_null(notes) && !json_is_string(notes))
        REJECT(r, "notes", "must be a string or null");
    const char *note = json_is_string(notes) ? json_string_value(notes) : NULL;
    while (note && (*note == ' ' || *note == '\t'))
        note++;
    if (note && *note)
        g.stage_label = arena_strndup(r->a, note, strnlen(note, STAGE_LABEL_MAX));
    g.league = "college";
    g.period = MODEL_NULL;
    struct gamesync_facts f = {
        .kickoff = g.starts_at,
        .kickoff_tbd = g.kickoff_tbd,
        .final = completed,
        .canceled = contains_ci(note, "cancel"),
        .postponed = contains_ci(note, "postpone"),
    };
    g.status = gamesync_status(&f, now);
    *provider_batch_game(r->b) = g;
    provider_batch_team(r->b, &home, home_auth);
    provider_batch_team(r->b, &away, away_auth);
    provider_scope_season(&r->b->scope, g.season);
    return 0;
}

/* One ScoreboardGame (docs/games.md "Live games"). */
static int read_live(struct row *r, json_t *o)
{
    const char *gid;
    if (read_id(r, o, &gid) < 0)
        return -1;
    static const char *const states[] = {"scheduled", "in_progress", "completed"};
    json_t *st = json_object_get(o, "status");
    int state = -1;
    for (int i = 0; i < 3 && json_is_string(st); i++)
        if (strcmp(json_string_value(st), states[i]) == 0)
            state = i;
    if (state < 0)
        REJECT(r, "status", "must be scheduled, in_progress or completed");
    struct gamesync_live l = {.state = (enum gamesync_live_state)state, .neutral_site = -1};
    if (get_int(r, o, "period", false, 1, 30, &l.period) < 0)
        return -1;
    json_t *clock = json_object_get(o, "clock");
    char norm[16];
    if (clock && !json_is_null(clock)) {
        if (!json_is_string(clock) ||
            gamesync_clock(json_string_value(clock), norm, sizeof norm) < 0)
            REJECT(r, "clock", "must be a game clock M:SS or MM:SS (minutes 0 to 15) or null");
        l.clock = arena_strdup(r->a, norm);
    }
    json_t *ns = json_object_get(o, "neutralSite");
    if (ns && !json_is_null(ns)) {
        if (!json_is_boolean(ns))
            REJECT(r, "neutralSite", "must be true, false or null");
        l.neutral_site = json_is_true(ns);
    }
    static const char *const sides[] = {"homeTeam", "awayTeam"};
    int64_t *points[] = {&l.home_score, &l.away_score};
    for (int i = 0; i < 2; i++) {
        json_t *t = json_object_get(o, sides[i]);
        *points[i] = MODEL_NULL;
        if (!t || json_is_null(t))
            continue;
        if (!json_is_object(t))
            REJECT(r, sides[i], "must be an object (id, name, points...) or null");
        char key[32];
        snprintf(key, sizeof key, "%s.points", sides[i]);
        json_t *p = json_object_get(t, "points");
        if (p && !json_is_null(p) &&
            (!json_is_integer(p) || json_integer_value(p) < 0 || json_integer_value(p) > 999))
            REJECT(r, key, "must be an integer from 0 to 999 or null");
        if (json_is_integer(p))
            *points[i] = json_integer_value(p);
    }
    if (l.state == GAMESYNC_SCHEDULED) {
        l.period = MODEL_NULL; /* a pregame listing says nothing of the clock */
        l.clock = NULL;
    }
    l.id = gid;
    *provider_batch_live(r->b) = l;
    return 0;
}

/* Reads each element of a JSON array response into b, row by row: a scoreboard's live rows
 * (live), else games (with teams and now), whose batch it then finishes. 0, or -1 with err
 * when the response is no JSON array. */
static int read_rows(const char *data, size_t len, bool live, const struct cfbd_teams *teams,
                     int64_t now, struct arena *a, struct provider_batch *b, char *err,
                     size_t errlen)
{
    json_t *doc = load_array(data, len, live ? "scoreboard" : "games", err, errlen);
    if (!doc)
        return -1;
    size_t i;
    json_t *o;
    json_array_foreach(doc, i, o)
    {
        struct row r = {.a = a, .b = b, .n = i + 1};
        if (live)
            read_live(&r, o);
        else
            read_game(&r, o, teams, now);
    }
    json_decref(doc);
    if (!live)
        provider_batch_finish(b, a);
    return 0;
}

int cfbd_read_scoreboard(const char *data, size_t len, struct arena *a, struct provider_batch *b,
                         char *err, size_t errlen)
{
    return read_rows(data, len, true, NULL, 0, a, b, err, errlen);
}

int cfbd_read_games(const char *data, size_t len, const struct cfbd_teams *teams, int64_t now,
                    struct arena *a, struct provider_batch *b, char *err, size_t errlen)
{
    return read_rows(data, len, false, teams, now, a, b, err, errlen);
}
