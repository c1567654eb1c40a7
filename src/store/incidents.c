#include "store/incidents.h"

#include <stdlib.h>
#include <string.h>

#include "domain/votes.h"
#include "store/listindex.h"
#include "store/where.h"
#include "util/buf.h"
#include "util/uuid.h"

#define INCIDENT_COLS                                                                              \
    "i.id, i.game_id, i.title, i.play_description, i.neutral_summary, i.category, i.period,"       \
    " i.clock, i.original_ruling, i.final_ruling, i.replay_involved, i.consequence, i.status,"     \
    " i.origin_kind, i.provenance, i.reviewed_at, i.published_at, i.created_at, i.updated_at,"     \
    " i.duplicate_of, i.slug, i.penalty_called, i.comment_count, g.league, g.season_type,"         \
    " h.name, a.name, i.visibility, q.version, q.question_type, q.question_text,"                  \
    " q.option_a_label, q.option_b_label, q.unsure_label, q.stored_a_label, q.stored_b_label,"     \
    " q.stored_unsure_label, q.factual_context, q.created_at, q.superseded_at"

#define INCIDENT_JOINS                                                                             \
    " JOIN games g ON g.id = i.game_id"                                                            \
    " JOIN teams h ON h.id = g.home_team_id JOIN teams a ON a.id = g.away_team_id"                 \
    " LEFT JOIN questions q ON q.incident_id = i.id AND q.version = i.question_version"

#define INCIDENT_FROM " FROM incidents i" INCIDENT_JOINS

/* a single incident also reads its survivor's slug and visibility (merged duplicates) */
#define INCIDENT_SURVIVOR_COLS ", d.slug, d.visibility"
#define INCIDENT_SURVIVOR_FROM " LEFT JOIN incidents d ON d.id = i.duplicate_of"

enum { COL_VISIBILITY = 27, COL_Q = 28, COL_SURVIVOR = 40 };

static const char *dup(struct arena *a, struct store_stmt *st, int col)
{
    return arena_strdup(a, store_col_text(st, col));
}

/* A question version (a struct question) read from q.version on (INCIDENT_COLS). */
#define QUESTION(kind, f) STORE_COL_##kind(struct question, f)
static const struct store_col question_cols[] = {QUESTION(INT, version),
                                                 QUESTION(DUP, type),
                                                 QUESTION(DUP, text),
                                                 QUESTION(DUP, a_label),
                                                 QUESTION(DUP, b_label),
                                                 QUESTION(DUP, unsure_label),
                                                 QUESTION(DUP, stored_a),
                                                 QUESTION(DUP, stored_b),
                                                 QUESTION(DUP, stored_unsure),
                                                 QUESTION(DUP, factual_context_json),
                                                 QUESTION(INT, created_at),
                                                 QUESTION(INT, superseded_at),
                                                 STORE_COL_END};
#undef QUESTION

/* An incident's own columns (a struct incident), i.id to i.visibility (COL_VISIBILITY) of
 * INCIDENT_COLS. */
#define INCIDENT(kind, f) STORE_COL_##kind(struct incident, f)
static const struct store_col incident_cols[] = {INCIDENT(DUP, id),
                                                 INCIDENT(DUP, game_id),
                                                 INCIDENT(DUP, title),
                                                 INCIDENT(DUP, play_description),
                                                 INCIDENT(DUP, neutral_summary),
                                                 INCIDENT(DUP, category),
                                                 INCIDENT(INT, period),
                                                 INCIDENT(DUP, clock),
                                                 INCIDENT(DUP, original_ruling),
                                                 INCIDENT(DUP, final_ruling),
                                                 INCIDENT(TRI, replay_involved),
                                                 INCIDENT(DUP, consequence),
                                                 INCIDENT(DUP, status),
                                                 INCIDENT(DUP, origin_kind),
                                                 INCIDENT(DUP, provenance_json),
                                                 INCIDENT(INT, reviewed_at),
                                                 INCIDENT(INT, published_at),
                                                 INCIDENT(INT, created_at),
                                                 INCIDENT(INT, updated_at),
                                                 INCIDENT(DUP, duplicate_of),
                                                 INCIDENT(DUP, slug),
                                                 INCIDENT(TRI, penalty_called),
                                                 INCIDENT(INT, comment_count),
                                                 INCIDENT(DUP, league),
                                                 INCIDENT(DUP, season_type),
                                                 INCIDENT(DUP, home_name),
                                                 INCIDENT(DUP, away_name),
                                                 INCIDENT(DUP, visibility),
                                                 STORE_COL_END};
#undef INCIDENT

static void read_incident(struct arena *a, struct store_stmt *st, struct incident *i)
{
    store_cols(st, a, 0, incident_cols, i);
    i->survivor_slug = i->survivor_visibility = NULL;
    i->has_question = !store_col_null(st, COL_Q);
    if (i->has_question)
        store_cols(st, a, COL_Q, question_cols, &i->question);
    memset(&i->votes, 0, sizeof i->votes);
}

/* A group's tallies are the sums of its slot rows (migration 009, store/votes.h). */
#define TALLY_SUMS                                                                                 \
    "CAST(sum(correct) AS BIGINT), CAST(sum(incorrect) AS BIGINT), CAST(sum(unsure) AS BIGINT)"

static _Thread_local void (*watch_fn)(void *, const char *, uint64_t);
static _Thread_local void *watch_ctx;

void incidents_watch_tallies(void (*fn)(void *ctx, const char *id, uint64_t fp), void *ctx)
{
    watch_fn = fn;
    watch_ctx = ctx;
}

/* FNV-1a of the counters: two tallies with the same fingerprint render the same. */
static uint64_t tally_fp(const struct votes *v)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t r = 0; r < sizeof v->by_rooting / sizeof v->by_rooting[0]; r++) {
        int64_t c[3] = {v->by_rooting[r].correct, v->by_rooting[r].incorrect,
                        v->by_rooting[r].unsure};
        const unsigned char *p = (const unsigned char *)c;
        for (size_t i = 0; i < sizeof c; i++)
            h = (h ^ p[i]) * 1099511628211ULL;
    }
    return h;
}

static void tallies_seen(const char *id, const struct votes *v)
{
    if (watch_fn)
        watch_fn(watch_ctx, id, tally_fp(v));
}

int incidents_tallies(struct store *s, const char *id, int64_t version, struct votes *v)
{
    memset(v, 0, sizeof *v);
    struct store_stmt *st =
        STORE_SELECT(s,
                     "SELECT rooting, " TALLY_SUMS " FROM vote_tallies"
                     " WHERE incident_id = ? AND question_version = ? GROUP BY rooting",
                     STORE_TEXT(id), STORE_INT(version));
    if (!st)
        return STORE_ERR;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        int r = rooting_from_name(store_col_text(st, 0));
        if (r < 0)
            continue;
        v->by_rooting[r].correct = store_col_int(st, 1);
        v->by_rooting[r].incorrect = store_col_int(st, 2);
        v->by_rooting[r].unsure = store_col_int(st, 3);
    }
    store_reset(st);
    if (rc < 0)
        return rc;
    tallies_seen(id, v);
    return 0;
}

/* The current-version tallies of n incidents in one query (one SQL text per count, each
 * prepared once): a page costs two statements, not one per incident. */
static int current_tallies(struct store *s, const char *const *ids, size_t n, struct votes *out)
{
    memset(out, 0, n * sizeof *out);
    if (n == 0)
        return 0;
    struct store_stmt *st =
        store_select_ids(s,
                         "SELECT t.incident_id, t.rooting, " TALLY_SUMS
                         " FROM vote_tallies t JOIN incidents i ON i.id = t.incident_id"
                         " AND t.question_version = i.question_version WHERE t.incident_id",
                         " GROUP BY t.incident_id, t.rooting", ids, n, n);
    if (!st)
        return STORE_ERR;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        const char *id = store_col_text(st, 0);
        int r = rooting_from_name(store_col_text(st, 1));
        if (r < 0 || !id)
            continue;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(ids[i], id) != 0)
                continue;
            out[i].by_rooting[r].correct = store_col_int(st, 2);
            out[i].by_rooting[r].incorrect = store_col_int(st, 3);
            out[i].by_rooting[r].unsure = store_col_int(st, 4);
            break;
        }
    }
    store_reset(st);
    return rc < 0 ? rc : 0;
}

int incidents_tally_fingerprints(struct store *s, const char *const *ids, size_t n, uint64_t *fps)
{
    struct votes *v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        return STORE_ERR;
    int rc = current_tallies(s, ids, n, v);
    for (size_t i = 0; rc == 0 && i < n; i++)
        fps[i] = tally_fp(&v[i]);
    free(v);
    return rc;
}

void incidents_tallies_shown(const char *id, const struct votes *v)
{
    tallies_seen(id, v);
}

/* The tallies of a page's incidents that have a question. */
static int page_tallies(struct store *s, struct incident *list, size_t count)
{
    const char **ids = calloc(count ? count : 1, sizeof *ids);
    struct votes *v = calloc(count ? count : 1, sizeof *v);
    size_t n = 0;
    int rc = ids && v ? 0 : STORE_ERR;
    for (size_t i = 0; rc == 0 && i < count; i++)
        if (list[i].has_question)
            ids[n++] = list[i].id;
    if (rc == 0)
        rc = current_tallies(s, ids, n, v);
    for (size_t i = 0, k = 0; rc == 0 && i < count; i++) {
        if (!list[i].has_question)
            continue;
        list[i].votes = v[k++];
        tallies_seen(list[i].id, &list[i].votes);
    }
    free(ids);
    free(v);
    return rc;
}

/* The index a page of incidents walks (migration 019): the game's when a game is asked
 * for (a game has a few incidents), else of the filters present the one whose values
 * select the fewest published incidents (where_count; on a tie the first in this order).
 * The other filters are checked inside that index, so a request reads at most that many
 * index entries, then only the page's rows (docs/scale.md). */
#define PUB "i.visibility = 'published' AND "
static const char *incident_index(struct store *s, const struct incident_filter *f)
{
    bool season = f->season != STORE_NULL_INT, week = f->week != STORE_NULL_INT;
    const int64_t none = STORE_NULL_INT;
    struct where_driver d[12];
    int n = 0;
    if (f->game_id)
        return "incidents_by_game";
    if (!where_hinted(s))
        return f->team_id ? "incidents_by_home" : "incidents_by_published";
#define CANDIDATE(ix, cond, text, text2, i, j)                                                     \
    d[n++] = (struct where_driver)                                                                 \
    {                                                                                              \
        ix, where_count(s, "incidents i", ix, PUB cond, text, text2, i, j)                         \
    }
    if (f->team_id) {
        CANDIDATE("incidents_by_home", "i.g_home = ?", f->team_id, NULL, none, none);
        d[n - 1].rows += where_count(s, "incidents i", "incidents_by_away", PUB "i.g_away = ?",
                                     f->team_id, NULL, none, none);
    }
    if (season && week)
        CANDIDATE("incidents_by_season_week", "i.g_season = ? AND i.g_week = ?", NULL, NULL,
                  f->season, f->week);
    if (f->has_verdict == 0)
        CANDIDATE("incidents_unverdicted", "i.question_version IS NULL", NULL, NULL, none, none);
    if (week)
        CANDIDATE("incidents_by_week", "i.g_week = ?", NULL, NULL, f->week, none);
    if (season)
        CANDIDATE("incidents_by_season", "i.g_season = ?", NULL, NULL, f->season, none);
    if (f->category)
        CANDIDATE("incidents_by_category", "i.category = ?", f->category, NULL, none, none);
    if (f->league && f->season_type)
        CANDIDATE("incidents_by_league_type", "i.g_league = ? AND i.g_season_type = ?", f->league,
                  f->season_type, none, none);
    if (f->status)
        CANDIDATE("incidents_by_status", "i.status = ?", f->status, NULL, none, none);
    if (f->season_type)
        CANDIDATE("incidents_by_type", "i.g_season_type = ?", f->season_type, NULL, none, none);
    if (f->league)
        CANDIDATE("incidents_by_league", "i.g_league = ?", f->league, NULL, none, none);
#undef CANDIDATE
    d[n++] = (struct where_driver){"incidents_by_published", INT64_MAX};
    return where_cheapest(d, n);
}

static void incident_conditions(struct where *w, const void *filter)
{
    const struct incident_filter *f = filter;
    where_text(w, "i.game_id = ?", f->game_id);
    where_text(w, "i.category = ?", f->category);
    where_text(w, "i.status = ?", f->status);
    where_flag(w, "i.question_version IS NOT NULL", f->has_verdict == 1);
    where_flag(w, "i.question_version IS NULL", f->has_verdict == 0);
    where_int(w, "i.published_at >= ?", f->from);
    where_int(w, "i.published_at < ?", f->to);
    where_int(w, "i.g_season = ?", f->season);
    where_int(w, "i.g_week = ?", f->week);
    where_text(w, "i.g_league = ?", f->league);
    where_text(w, "i.g_season_type = ?", f->season_type);
}

static void read_row(struct arena *a, struct store_stmt *st, void *rows, size_t k)
{
    read_incident(a, st, &((struct incident *)rows)[k]);
}

/* A single incident's row: the list's columns, then its survivor's slug and visibility. */
static void read_single(struct arena *a, struct store_stmt *st, void *row, size_t k)
{
    struct incident *i = &((struct incident *)row)[k];
    read_incident(a, st, i);
    i->survivor_slug = dup(a, st, COL_SURVIVOR);
    i->survivor_visibility = dup(a, st, COL_SURVIVOR + 1);
}

/* The list index's query of f (store/listindex.h) in *q: false when the index does not
 * apply (no content version, or a game's incidents: SQL answers) */
static bool index_query(const struct incident_filter *f, struct listindex_query *q)
{
    *q = (struct listindex_query){
        LISTINDEX_QUERY(f),
        .category = f->category,
        .has_verdict = f->has_verdict,
    };
    return f->versioned && !f->game_id;
}

/* A page from the list index (store/listindex.h) when the process holds one of the
 * request's content version, its rows read by `select` with read: 1 answered (*ids the
 * page's ids), 0 not (SQL answers), or a negative store_rc. The rows are looked up by
 * primary key: the visibility is compared as an expression, else SQLite walks
 * incidents_by_published. */
static int indexed_page(struct store *s, struct arena *a, const struct incident_filter *f,
                        const char *select, store_read_fn read, struct incident *list,
                        const char ***ids, size_t *n, bool *more)
{
    struct listindex_query q;
    if (!index_query(f, &q))
        return 0;
    return listindex_serve(s, a, f->version, LISTINDEX_INCIDENTS, &q, select, read, list, ids, n,
                           more);
}

/* The published incidents' page query (where_page): the page's ids and publication times
 * (pid, pat), the team's incidents on the game attributes copied onto each incident
 * (migration 011). */
static const struct where_list incident_pages =
    WHERE_LIST("i.id AS pid, i.published_at AS pat", "i.id, i.published_at", "incidents i",
               " WHERE i.visibility = 'published'", "i.g_home", "i.g_away");

/* The statement of a page: head, then the page's ids in the spec's order, then tail. The
 * page's ids come first, through the index of the driving filter, so OFFSET walks a narrow
 * index; then the columns of those ids only. */
static struct store_stmt *page_stmt(struct store *s, const struct incident_filter *f,
                                    const char *head, const char *tail)
{
    const char *index = incident_index(s, f);
    bool arms = f->team_id && strcmp(index, "incidents_by_home") == 0;
    const struct where_page p = {
        .head = head,
        .index = index,
        .team = f->team_id,
        .away_index = arms ? "incidents_by_away" : NULL,
        .order = arms ? " ORDER BY pat DESC, pid DESC" : " ORDER BY i.published_at DESC, i.id DESC",
        .tail = tail,
        .conditions = incident_conditions,
        .filter = f,
        .limit = f->limit,
        .offset = f->offset,
    };
    return where_page(s, &incident_pages, &p);
}

int incidents_index_ids(struct arena *a, const struct incident_filter *f, const char ***ids,
                        const int64_t **keys, size_t *n, bool *more)
{
    *ids = NULL;
    *keys = NULL;
    *n = 0;
    *more = false;
    struct listindex_query q;
    if (!index_query(f, &q))
        return -1;
    int rc = listindex_ids(a, f->version, LISTINDEX_INCIDENTS, &q, ids, keys, n, more);
    if (rc == 0)
        listindex_count_request(false);
    return rc;
}

int incidents_page_ids(struct store *s, struct arena *a, const struct incident_filter *f,
                       const char ***ids, size_t *n, bool *more)
{
    *ids = NULL;
    *n = 0;
    *more = false;
    const char **list = arena_alloc(a, sizeof *list * (size_t)f->limit);
    int rc = store_page(page_stmt(s, f, "SELECT p.pid FROM ", " ORDER BY p.pat DESC, p.pid DESC"),
                        a, store_read_id, list, f->limit, n, more);
    if (rc < 0)
        return rc;
    *ids = list;
    return 0;
}

int incidents_list(struct store *s, struct arena *a, const struct incident_filter *f,
                   struct incident **out, size_t *n, bool *more)
{
    struct incident *list = arena_alloc(a, sizeof *list * (size_t)f->limit);
    size_t count = 0;
    const char **ids;
    int rc = indexed_page(s, a, f,
                          "SELECT " INCIDENT_COLS INCIDENT_FROM
                          " WHERE i.visibility || '' = 'published' AND i.id",
                          read_row, list, &ids, &count, more);
    if (rc == 0) /* SQL answers */
        rc = store_page(page_stmt(s, f, "SELECT " INCIDENT_COLS " FROM ",
                                  " JOIN incidents i ON i.id = p.pid" INCIDENT_JOINS
                                  " ORDER BY p.pat DESC, p.pid DESC"),
                        a, read_row, list, f->limit, &count, more);
    if (rc < 0)
        return rc;
    rc = page_tallies(s, list, count);
    if (rc < 0)
        return rc;
    *out = list;
    *n = count;
    return 0;
}

int incidents_get(struct store *s, struct arena *a, const char *id, struct incident *out)
{
    return store_read_one(STORE_SELECT(s,
                                       "SELECT " INCIDENT_COLS INCIDENT_SURVIVOR_COLS INCIDENT_FROM
                                           INCIDENT_SURVIVOR_FROM " WHERE i.id = ?",
                                       STORE_TEXT(id)),
                          a, read_single, out);
}

/* An incident_ref read from i.id, i.slug, i.visibility, i.question_version, d.id, d.slug,
 * d.visibility and whether the key was a former slug. */
#define REF(kind, f) STORE_COL_##kind(struct incident_ref, f)
static const struct store_col ref_cols[] = {REF(CHARS, id),
                                            REF(CHARS, slug),
                                            REF(CHARS, visibility),
                                            REF(INT, question_version),
                                            REF(CHARS, survivor_id),
                                            REF(CHARS, survivor_slug),
                                            REF(CHARS, survivor_visibility),
                                            REF(BOOL, historical),
                                            STORE_COL_END};
#undef REF

#define REF_COLS                                                                                   \
    "SELECT i.id, i.slug, i.visibility, i.question_version, d.id, d.slug, d.visibility, "
#define REF_SURVIVOR " LEFT JOIN incidents d ON d.id = i.duplicate_of"

int incidents_locate(struct store *s, const char *key, struct incident_ref *ref)
{
    memset(ref, 0, sizeof *ref);
    char id[UUID_STR_LEN + 1];
    if (uuid_normalize(key, id) == 0) {
        int rc = STORE_ONE_COLS(s, ref_cols, ref,
                                REF_COLS "0 FROM incidents i" REF_SURVIVOR " WHERE i.id = ?",
                                STORE_TEXT(id));
        if (rc == 1)
            ref->historical = ref->slug[0] != '\0';
        return rc;
    }
    /* a slug: the incident's current one, or a former one (incident_slugs), in one statement
     * (one round trip on PostgreSQL: a ballot by slug is its lookup and its write) */
    return STORE_ONE_COLS(s, ref_cols, ref,
                          REF_COLS "h.historical FROM (SELECT id, 0 AS historical FROM incidents"
                                   " WHERE slug = ? UNION ALL SELECT incident_id, 1"
                                   " FROM incident_slugs WHERE slug = ?) h"
                                   " JOIN incidents i ON i.id = h.id" REF_SURVIVOR
                                   " ORDER BY h.historical LIMIT 1",
                          STORE_TEXT(key), STORE_TEXT(key));
}

/* A source (a struct source) read from id, url, title, publisher, kind, published_at,
 * added_at, supports, added_by. */
#define SOURCE(kind, f) STORE_COL_##kind(struct source, f)
static const struct store_col source_cols[] = {SOURCE(DUP, id),       SOURCE(DUP, url),
                                               SOURCE(DUP, title),    SOURCE(DUP, publisher),
                                               SOURCE(DUP, kind),     SOURCE(INT, published_at),
                                               SOURCE(INT, added_at), SOURCE(DUP, supports),
                                               SOURCE(DUP, added_by), STORE_COL_END};
#undef SOURCE

static void read_source(struct arena *a, struct store_stmt *st, void *rows, size_t k)
{
    struct source *src = &((struct source *)rows)[k];
    store_cols(st, a, 0, source_cols, src);
}

int incidents_sources(struct store *s, struct arena *a, const char *id, struct source **out,
                      size_t *n)
{
    return store_grow(STORE_SELECT(s,
                                   "SELECT id, url, title, publisher, source_kind, published_at,"
                                   " added_at, supports, added_by FROM sources"
                                   " WHERE incident_id = ? ORDER BY position, id",
                                   STORE_TEXT(id)),
                      a, read_source, sizeof **out, out, n);
}

static void read_question_row(struct arena *a, struct store_stmt *st, void *rows, size_t k)
{
    store_cols(st, a, 0, question_cols, &((struct question *)rows)[k]);
}

int incidents_questions(struct store *s, struct arena *a, const char *id, struct question **out,
                        size_t *n)
{
    return store_grow(
        STORE_SELECT(s,
                     "SELECT version, question_type, question_text, option_a_label,"
                     " option_b_label, unsure_label, stored_a_label, stored_b_label,"
                     " stored_unsure_label, factual_context, created_at, superseded_at"
                     " FROM questions WHERE incident_id = ? ORDER BY version",
                     STORE_TEXT(id)),
        a, read_question_row, sizeof **out, out, n);
}

int incidents_each(struct store *s,
                   int (*fn)(void *ctx, const struct incident *i, const char *visibility),
                   void *ctx)
{
    struct store_stmt *st =
        store_prepare(s, "SELECT " INCIDENT_COLS INCIDENT_FROM " ORDER BY i.id");
    if (!st)
        return STORE_ERR;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        struct arena a;
        struct incident inc;
        arena_init(&a);
        read_incident(&a, st, &inc);
        const char *vis = arena_strdup(&a, store_col_text(st, COL_VISIBILITY));
        int r = fn(ctx, &inc, vis);
        arena_release(&a);
        if (r < 0) {
            rc = r;
            break;
        }
    }
    store_reset(st);
    return rc < 0 ? rc : 0;
}

struct ballot_cb {
    int (*fn)(void *ctx, const char *choice, const char *rooting);
    void *ctx;
};

static int ballot_row(void *arg, struct store_stmt *st)
{
    const struct ballot_cb *cb = arg;
    return cb->fn(cb->ctx, store_col_text(st, 0), store_col_text(st, 1));
}

int incidents_ballots(struct store *s, const char *id, int64_t version,
                      int (*fn)(void *ctx, const char *choice, const char *rooting), void *ctx)
{
    struct ballot_cb cb = {fn, ctx};
    return store_rows(STORE_SELECT(s,
                                   "SELECT choice, rooting FROM ballots WHERE incident_id = ?"
                                   " AND question_version = ? ORDER BY length(voter), voter",
                                   STORE_TEXT(id), STORE_INT(version)),
                      ballot_row, &cb);
}
