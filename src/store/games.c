#include "store/games.h"
#include "store/where.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/vocab.h"
#include "store/listindex.h"
#include "util/buf.h"

#define TEAM_COLS(t)                                                                               \
    t ".id, " t ".name, " t ".abbreviation, " t ".logo_url, " t ".conference, " t ".league, " t    \
      ".division, " t ".short_name, " t ".active, " t ".aliases"

/* clang-format off */
#define GAME_COLS                                                                                  \
    "SELECT g.id, g.home_score, g.away_score, g.starts_at, g.kickoff_tbd, g.period, g.clock,"    \
    " g.status, g.season, g.week, g.league, g.season_type, g.stage_label, g.created_at,"         \
    " g.updated_at, g.neutral_site, " TEAM_COLS("h") ", " TEAM_COLS("a")
#define GAME_JOINS                                                                                 \
    " JOIN teams h ON h.id = g.home_team_id JOIN teams a ON a.id = g.away_team_id"
#define GAME_SELECT GAME_COLS " FROM games g" GAME_JOINS
/* clang-format on */

static const char *dup(struct arena *a, struct store_stmt *st, int col)
{
    return arena_strdup(a, store_col_text(st, col));
}

/* A team (a struct team) read from TEAM_COLS (store_cols). */
#define TEAM(kind, f) STORE_COL_##kind(struct team, f)
static const struct store_col team_cols[] = {
    TEAM(DUP, id),           TEAM(DUP, name),       TEAM(DUP, abbreviation),
    TEAM(DUP, logo_url),     TEAM(DUP, conference), TEAM(DUP, league),
    TEAM(DUP, division),     TEAM(DUP, short_name), TEAM(BOOL, active),
    TEAM(DUP, aliases_json), STORE_COL_END};
#undef TEAM

#define GAME(kind, f) STORE_COL_##kind(struct game, f)
/* The game's own columns home_score to stage_label in this order: what GAME_COLS and
 * SYNC_COLS share. */
static const struct store_col game_fields_cols[] = {
    GAME(INT, home_score), GAME(INT, away_score), GAME(INT, starts_at),   GAME(BOOL, kickoff_tbd),
    GAME(INT, period),     GAME(DUP, clock),      GAME(DUP, status),      GAME(INT, season),
    GAME(INT, week),       GAME(DUP, league),     GAME(DUP, season_type), GAME(DUP, stage_label),
    STORE_COL_END};
/* GAME_COLS' columns after stage_label, before the teams. */
static const struct store_col game_stamp_cols[] = {GAME(INT, created_at), GAME(INT, updated_at),
                                                   GAME(BOOL, neutral_site), STORE_COL_END};
#undef GAME

static void read_game(struct arena *a, struct store_stmt *st, struct game *g)
{
    g->id = dup(a, st, 0);
    int c = store_cols(st, a, 1, game_fields_cols, g);
    c = store_cols(st, a, c, game_stamp_cols, g);
    c = store_cols(st, a, c, team_cols, &g->home);
    store_cols(st, a, c, team_cols, &g->away);
}

void games_week_keys(struct buf *sql, const char *t)
{
    buf_printf(sql, "%sleague, %sseason DESC, (CASE %sseason_type", t, t, t);
    for (int k = 0; season_type_names[k]; k++)
        buf_printf(sql, " WHEN '%s' THEN %d", season_type_names[k], season_type_rank[k]);
    buf_printf(sql, " ELSE %d END), %sweek DESC, %skickoff_known DESC, %sstarts_at, %sid",
               SEASON_TYPE_COUNT, t, t, t, t);
}

/* The games index's order (game_filter.by_week) over the columns of alias g: the order of
 * the index games_by_week (migration 015), so a page walks the index. */
static void week_order(struct buf *sql)
{
    buf_puts(sql, " ORDER BY ");
    games_week_keys(sql, "g.");
}

/* The index a page of games walks (migration 019): of the filters present, the one whose
 * values select the fewest games (where_count, as for incidents in store/incidents.c),
 * in the list's order (_kickoff or _recent); the other filters are checked inside it
 * (docs/scale.md). */
static const char *game_index(struct store *s, const struct game_filter *f, char *name, size_t size)
{
    const int64_t none = STORE_NULL_INT;
    struct where_driver d[8];
    int n = 0;
    const char *by = f->team_id ? "home" : "all";
    if (where_hinted(s)) {
#define CANDIDATE(ix, cond, text, i)                                                               \
    d[n++] = (struct where_driver)                                                                 \
    {                                                                                              \
        ix, where_count(s, "games g", "games_" ix "_kickoff", cond, text, NULL, i, none)           \
    }
        if (f->team_id) {
            CANDIDATE("home", "g.home_team_id = ?", f->team_id, none);
            d[n - 1].rows += where_count(s, "games g", "games_away_kickoff", "g.away_team_id = ?",
                                         f->team_id, NULL, none, none);
        }
        if (f->season != STORE_NULL_INT)
            CANDIDATE("season", "g.season = ?", NULL, f->season);
        if (f->week != STORE_NULL_INT)
            CANDIDATE("week", "g.week = ?", NULL, f->week);
        if (f->status)
            CANDIDATE("status", "g.status = ?", f->status, none);
        if (f->season_type)
            CANDIDATE("type", "g.season_type = ?", f->season_type, none);
        if (f->league)
            CANDIDATE("league", "g.league = ?", f->league, none);
#undef CANDIDATE
        d[n++] = (struct where_driver){"all", INT64_MAX};
        by = where_cheapest(d, n);
    }
    snprintf(name, size, "games_%s_%s", by, f->recent ? "recent" : "kickoff");
    return name;
}

static void game_conditions(struct where *w, const void *filter)
{
    const struct game_filter *f = filter;
    where_int(w, "g.season = ?", f->season);
    where_int(w, "g.week = ?", f->week);
    where_text(w, "g.league = ?", f->league);
    where_text(w, "g.season_type = ?", f->season_type);
    where_text(w, "g.status = ?", f->status);
    where_int(w, "g.starts_at >= ?", f->from);
    where_int(w, "g.starts_at < ?", f->to);
}

static void read_row(struct arena *a, struct store_stmt *st, void *rows, size_t k)
{
    read_game(a, st, &((struct game *)rows)[k]);
}

static void read_team_row(struct arena *a, struct store_stmt *st, void *rows, size_t k)
{
    store_cols(st, a, 0, team_cols, &((struct team *)rows)[k]);
}

/* A page from the list index (store/listindex.h) when the process holds one of the
 * request's content version: 1 answered, 0 not (SQL answers), or a negative store_rc. */
static int indexed_page(struct store *s, struct arena *a, const struct game_filter *f,
                        struct game *list, size_t *n, bool *more)
{
    if (!f->versioned || f->by_week)
        return 0;
    const struct listindex_query q = {LISTINDEX_QUERY(f), .has_verdict = -1};
    const char **ids;
    return listindex_serve(s, a, f->version,
                           f->recent ? LISTINDEX_GAMES_RECENT : LISTINDEX_GAMES_KICKOFF, &q,
                           GAME_SELECT " WHERE g.id", read_row, list, &ids, n, more);
}

/* The games' page query (where_page): the page's ids, known kickoffs and kickoffs (pid, pk,
 * ps); a team's games are its home games and its away games. */
static const struct where_list game_pages = WHERE_LIST(
    "g.id AS pid, g.kickoff_known AS pk, g.starts_at AS ps", "g.id, g.kickoff_known, g.starts_at",
    "games g", " WHERE 1 = 1", "g.home_team_id", "g.away_team_id");

#define PAGE_ROWS " JOIN games g ON g.id = p.pid" GAME_JOINS

int games_list(struct store *s, struct arena *a, const struct game_filter *f, struct game **out,
               size_t *n, bool *more)
{
    struct game *games = arena_alloc(a, sizeof *games * (size_t)f->limit);
    size_t count = 0;
    int rc = indexed_page(s, a, f, games, &count, more);
    if (rc == 0) {
        /* SQL answers: the page's ids first through the index of the driving filter in the
         * list's order, then their columns; the pages' by-week order has no index: SQLite
         * chooses, as before */
        char index[32] = "";
        if (!f->by_week)
            game_index(s, f, index, sizeof index);
        bool arms = !f->by_week && f->team_id && strncmp(index, "games_home_", 11) == 0;
        /* the page's order [recent][arms], then the rows' */
        static const char *const order[2][2] = {
            {" ORDER BY g.kickoff_known DESC, g.starts_at ASC, g.id ASC",
             " ORDER BY pk DESC, ps ASC, pid ASC"},
            {" ORDER BY g.kickoff_known DESC, g.starts_at DESC, g.id ASC",
             " ORDER BY pk DESC, ps DESC, pid ASC"}};
        static const char *const rows[2] = {PAGE_ROWS " ORDER BY p.pk DESC, p.ps ASC, p.pid ASC",
                                            PAGE_ROWS " ORDER BY p.pk DESC, p.ps DESC, p.pid ASC"};
        struct buf week = BUF_INIT, week_rows = BUF_INIT;
        if (f->by_week) {
            week_order(&week);
            buf_puts(&week_rows, PAGE_ROWS);
            week_order(&week_rows);
        }
        const struct where_page p = {
            .head = GAME_COLS " FROM ",
            .index = f->by_week ? NULL : index,
            .team = f->team_id,
            .away_index = !arms       ? NULL
                          : f->recent ? "games_away_recent"
                                      : "games_away_kickoff",
            .order = f->by_week ? week.p : order[f->recent][arms],
            .tail = f->by_week ? week_rows.p : rows[f->recent],
            .conditions = game_conditions,
            .filter = f,
            .limit = f->limit,
            .offset = f->offset,
        };
        rc = store_page(where_page(s, &game_pages, &p), a, read_row, games, f->limit, &count, more);
        buf_release(&week);
        buf_release(&week_rows);
    }
    if (rc < 0)
        return rc;
    *out = games;
    *n = count;
    return 0;
}

int teams_list(struct store *s, struct arena *a, const char *league, int64_t limit, int64_t offset,
               struct team **out, size_t *n, bool *more)
{
    struct where w;
    where_init(&w, "SELECT " TEAM_COLS("t") " FROM teams t WHERE 1 = 1");
    where_text(&w, "t.league = ?", league);
    buf_puts(&w.sql, " ORDER BY t.id LIMIT ? OFFSET ?");
    int i;
    struct store_stmt *st = where_prepare(&w, s, &i);
    if (!st)
        return STORE_ERR;
    store_bind_int(st, i++, limit + 1);
    store_bind_int(st, i++, offset);
    struct team *teams = arena_alloc(a, sizeof *teams * (size_t)limit);
    int rc = store_page(st, a, read_team_row, teams, limit, n, more);
    if (rc < 0)
        return rc;
    *out = teams;
    return 0;
}

int games_get(struct store *s, struct arena *a, const char *id, struct game *out)
{
    return store_read_one(STORE_SELECT(s, GAME_SELECT " WHERE g.id = ?", STORE_TEXT(id)), a,
                          read_row, out);
}

/* store_read_each's call of a team's or a game's row: the STORE_EACH callback (ctx). */
static int call_team(void *each, const void *row)
{
    return STORE_EACH_CALL(each, struct team, row);
}

static int call_game(void *each, const void *row)
{
    return STORE_EACH_CALL(each, struct game, row);
}

int teams_each(struct store *s, int (*fn)(void *ctx, const struct team *t), void *ctx)
{
    return store_read_each(store_prepare(s, "SELECT " TEAM_COLS("t") " FROM teams t ORDER BY t.id"),
                           read_team_row, sizeof(struct team), call_team,
                           STORE_EACH(struct team, fn, ctx, NULL));
}

int games_each(struct store *s, int (*fn)(void *ctx, const struct game *g), void *ctx)
{
    return store_read_each(store_prepare(s, GAME_SELECT " ORDER BY g.id"), read_row,
                           sizeof(struct game), call_game, STORE_EACH(struct game, fn, ctx, NULL));
}

/* ---- games from providers ------------------------------------------------------------ */

#define SYNC_COLS                                                                                  \
    "id, home_team_id, away_team_id, home_score, away_score, starts_at, kickoff_tbd, period,"      \
    " clock, status, season, week, league, season_type, stage_label, neutral_site"

/* A row of SYNC_COLS into game k of rows (teams carry their IDs only). */
static void read_sync_row(struct arena *a, struct store_stmt *st, void *rows, size_t k)
{
    struct game *g = &((struct game *)rows)[k];
    memset(g, 0, sizeof *g);
    g->id = dup(a, st, 0);
    g->home.id = dup(a, st, 1);
    g->away.id = dup(a, st, 2);
    store_cols(st, a, 3, game_fields_cols, g);
    g->neutral_site = store_col_int(st, 15) != 0;
}

int games_sync_snapshot(struct store *s, struct arena *a, const char *provider, int64_t season,
                        int64_t week, const char *season_type, struct game **out, size_t *n)
{
    static const char *const sql[4] = {
        "SELECT " SYNC_COLS " FROM games WHERE provider = ? AND season = ?",
        "SELECT " SYNC_COLS " FROM games WHERE provider = ? AND season = ? AND week = ?",
        "SELECT " SYNC_COLS " FROM games WHERE provider = ? AND season = ? AND season_type = ?",
        "SELECT " SYNC_COLS " FROM games WHERE provider = ? AND season = ? AND week = ?"
        " AND season_type = ?",
    };
    *out = NULL;
    *n = 0;
    int shape = (week != MODEL_NULL) | (season_type ? 2 : 0);
    struct store_stmt *st = store_prepare(s, sql[shape]);
    if (!st)
        return STORE_ERR;
    int i = 1;
    store_bind_text(st, i++, provider);
    store_bind_int(st, i++, season);
    if (week != MODEL_NULL)
        store_bind_int(st, i++, week);
    if (season_type)
        store_bind_text(st, i++, season_type);
    struct game *v = NULL;
    size_t count = 0, cap = 0;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        if (count == cap) {
            cap = cap ? cap * 2 : 64;
            struct game *grown = realloc(v, cap * sizeof *v);
            if (!grown)
                abort();
            v = grown;
        }
        read_sync_row(a, st, v, count++);
    }
    store_reset(st);
    if (rc < 0) {
        free(v);
        return rc;
    }
    *out = v;
    *n = count;
    return 0;
}

int games_sync_get(struct store *s, struct arena *a, const char *provider, const char *id,
                   struct game *out)
{
    return store_read_one(
        STORE_SELECT(s, "SELECT " SYNC_COLS " FROM games WHERE id = ? AND provider = ?",
                     STORE_TEXT(id), STORE_TEXT(provider)),
        a, read_sync_row, out);
}

/* clang-format off */
#define GAME_UPSERT(created)                                                                       \
    "INSERT INTO games (id, home_team_id, away_team_id, home_score, away_score, starts_at,"       \
    " kickoff_tbd, period, clock, status, season, week, league, season_type, stage_label,"       \
    " created_at, updated_at, kickoff_known, provider, neutral_site)"                            \
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"                        \
    " ON CONFLICT (id) DO UPDATE SET home_team_id = excluded.home_team_id,"                      \
    " away_team_id = excluded.away_team_id, home_score = excluded.home_score,"                   \
    " away_score = excluded.away_score, starts_at = excluded.starts_at,"                         \
    " kickoff_tbd = excluded.kickoff_tbd, period = excluded.period,"                             \
    " clock = excluded.clock, status = excluded.status, season = excluded.season,"               \
    " week = excluded.week, league = excluded.league,"                                           \
    " season_type = excluded.season_type, stage_label = excluded.stage_label," created           \
    " updated_at = excluded.updated_at, kickoff_known = excluded.kickoff_known,"                 \
    " provider = coalesce(excluded.provider, games.provider),"                                   \
    " neutral_site = excluded.neutral_site"
/* clang-format on */

int games_upsert(struct store *s, const struct game *g, bool keep_created, const char *provider)
{
    struct store_stmt *st = store_prepare(
        s, keep_created ? GAME_UPSERT("") : GAME_UPSERT(" created_at = excluded.created_at,"));
    if (!st)
        return STORE_ERR;
    store_bind_text(st, 1, g->id);
    store_bind_text(st, 2, g->home.id);
    store_bind_text(st, 3, g->away.id);
    store_bind_int(st, 4, g->home_score);
    store_bind_int(st, 5, g->away_score);
    store_bind_int(st, 6, g->starts_at);
    store_bind_int(st, 7, g->kickoff_tbd);
    store_bind_int(st, 8, g->period);
    store_bind_text(st, 9, g->clock);
    store_bind_text(st, 10, g->status);
    store_bind_int(st, 11, g->season);
    store_bind_int(st, 12, g->week);
    store_bind_text(st, 13, g->league);
    store_bind_text(st, 14, g->season_type);
    store_bind_text(st, 15, g->stage_label);
    store_bind_int(st, 16, g->created_at);
    store_bind_int(st, 17, g->updated_at);
    store_bind_int(st, 18, g->starts_at != MODEL_NULL);
    store_bind_text(st, 19, provider);
    store_bind_int(st, 20, g->neutral_site);
    int rc = store_run(st);
    if (rc < 0)
        return rc;
    /* the copies the incident list filters on (migration 011), in the same transaction */
    return STORE_RUN(s,
                     "UPDATE incidents SET g_season = ?, g_week = ?, g_league = ?,"
                     " g_season_type = ?, g_home = ?, g_away = ? WHERE game_id = ?",
                     STORE_INT(g->season), STORE_INT(g->week), STORE_TEXT(g->league),
                     STORE_TEXT(g->season_type), STORE_TEXT(g->home.id), STORE_TEXT(g->away.id),
                     STORE_TEXT(g->id));
}

int games_sync_upsert(struct store *s, const struct game *g, const char *provider, int64_t now)
{
    struct game c = *g;
    c.created_at = now;
    c.updated_at = now;
    return games_upsert(s, &c, true, provider);
}

int games_sync_vanish(struct store *s, const char *id, const char *status, int64_t now)
{
    return STORE_CHANGED(s,
                         "UPDATE games SET status = ?, period = NULL, clock = NULL, updated_at = ?"
                         " WHERE id = ? AND status <> ?",
                         STORE_TEXT(status), STORE_INT(now), STORE_TEXT(id), STORE_TEXT(status));
}

int teams_sync_upsert(struct store *s, const struct team *t, bool replace)
{
    return STORE_CHANGED(
        s,
        replace ? "INSERT INTO teams (id, name, abbreviation, logo_url, conference, league,"
                  " division, short_name, active, aliases) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                  " ON CONFLICT (id) DO UPDATE SET name = excluded.name,"
                  " abbreviation = excluded.abbreviation, logo_url = excluded.logo_url,"
                  " conference = excluded.conference, league = excluded.league,"
                  " division = excluded.division, short_name = excluded.short_name,"
                  " active = excluded.active, aliases = excluded.aliases"
                  " WHERE teams.name IS DISTINCT FROM excluded.name"
                  " OR teams.abbreviation IS DISTINCT FROM excluded.abbreviation"
                  " OR teams.logo_url IS DISTINCT FROM excluded.logo_url"
                  " OR teams.conference IS DISTINCT FROM excluded.conference"
                  " OR teams.league IS DISTINCT FROM excluded.league"
                  " OR teams.division IS DISTINCT FROM excluded.division"
                  " OR teams.short_name IS DISTINCT FROM excluded.short_name"
                  " OR teams.active IS DISTINCT FROM excluded.active"
                  " OR teams.aliases IS DISTINCT FROM excluded.aliases"
                : "INSERT INTO teams (id, name, abbreviation, logo_url, conference, league,"
                  " division, short_name, active, aliases) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                  " ON CONFLICT (id) DO NOTHING",
        STORE_TEXT(t->id), STORE_TEXT(t->name), STORE_TEXT(t->abbreviation),
        STORE_TEXT(t->logo_url), STORE_TEXT(t->conference), STORE_TEXT(t->league),
        STORE_TEXT(t->division), STORE_TEXT(t->short_name), STORE_INT(t->active),
        STORE_TEXT(t->aliases_json ? t->aliases_json : "[]"));
}

int games_provider_busy(struct store *s, const char *provider, int64_t now, int64_t since_us,
                        int64_t ahead_us)
{
    return STORE_EXISTS(
        s,
        "SELECT 1 FROM games WHERE provider = ? AND (status IN ('live', 'delayed')"
        " OR (status IN ('upcoming', 'unknown') AND starts_at >= ? AND starts_at < ?))"
        " LIMIT 1",
        STORE_TEXT(provider), STORE_INT(now - since_us), STORE_INT(now + ahead_us));
}

int provider_source_claim(struct store *s, struct arena *a, const char *source, int64_t now,
                          int64_t lease_us, struct provider_source_state *out)
{
    memset(out, 0, sizeof *out);
    int rc = STORE_RUN(s,
                       "INSERT INTO provider_sources (source, next_at, failures) VALUES (?, 0, 0)"
                       " ON CONFLICT (source) DO NOTHING",
                       STORE_TEXT(source));
    if (rc < 0)
        return rc;
    struct store_stmt *st =
        STORE_SELECT(s,
                     "UPDATE provider_sources SET next_at = ? WHERE source = ? AND next_at <= ?"
                     " RETURNING etag, last_modified, failures",
                     STORE_INT(now + lease_us), STORE_TEXT(source), STORE_INT(now));
    if (!st)
        return STORE_ERR;
    rc = store_step(st);
    if (rc == STORE_ROW) {
        out->etag = dup(a, st, 0);
        out->last_modified = dup(a, st, 1);
        out->failures = store_col_int(st, 2);
    }
    store_reset(st);
    return rc < 0 ? rc : rc == STORE_ROW;
}

int provider_source_done(struct store *s, const char *source, const char *etag,
                         const char *last_modified, int64_t now, bool synced, int64_t next_at,
                         int64_t failures, const char *outcome)
{
    return STORE_RUN(
        s,
        "UPDATE provider_sources SET etag = coalesce(?, etag),"
        " last_modified = coalesce(?, last_modified), checked_at = ?,"
        " synced_at = CASE WHEN ? = 1 THEN ? ELSE synced_at END, next_at = ?, failures = ?,"
        " last_outcome = ? WHERE source = ?",
        STORE_TEXT(etag), STORE_TEXT(last_modified), STORE_INT(now), STORE_INT(synced),
        STORE_INT(now), STORE_INT(next_at), STORE_INT(failures), STORE_TEXT(outcome),
        STORE_TEXT(source));
}
