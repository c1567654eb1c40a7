#include "store/games.h"

#include <string.h>

#include "util/buf.h"

#define TEAM_COLS(t)                                                                               \
    t ".id, " t ".name, " t ".abbreviation, " t ".logo_url, " t ".conference, " t ".league, " t    \
      ".division, " t ".short_name, " t ".active, " t ".aliases"

/* clang-format off */
#define GAME_SELECT                                                                                \
    "SELECT g.id, g.home_score, g.away_score, g.starts_at, g.kickoff_tbd, g.period, g.clock,"    \
    " g.status, g.season, g.week, g.league, g.season_type, g.stage_label, g.created_at,"         \
    " g.updated_at, " TEAM_COLS("h") ", " TEAM_COLS("a") " FROM games g"                         \
    " JOIN teams h ON h.id = g.home_team_id JOIN teams a ON a.id = g.away_team_id"
/* clang-format on */

static const char game_select[] = GAME_SELECT;

static const char *dup(struct arena *a, struct store_stmt *st, int col)
{
    return arena_strdup(a, store_col_text(st, col));
}

static int read_team(struct arena *a, struct store_stmt *st, int c, struct team *t)
{
    t->id = dup(a, st, c);
    t->name = dup(a, st, c + 1);
    t->abbreviation = dup(a, st, c + 2);
    t->logo_url = dup(a, st, c + 3);
    t->conference = dup(a, st, c + 4);
    t->league = dup(a, st, c + 5);
    t->division = dup(a, st, c + 6);
    t->short_name = dup(a, st, c + 7);
    t->active = store_col_int(st, c + 8) != 0;
    t->aliases_json = dup(a, st, c + 9);
    return c + 10;
}

static void read_game(struct arena *a, struct store_stmt *st, struct game *g)
{
    g->id = dup(a, st, 0);
    g->home_score = store_col_int(st, 1);
    g->away_score = store_col_int(st, 2);
    g->starts_at = store_col_int(st, 3);
    g->kickoff_tbd = store_col_int(st, 4) != 0;
    g->period = store_col_int(st, 5);
    g->clock = dup(a, st, 6);
    g->status = dup(a, st, 7);
    g->season = store_col_int(st, 8);
    g->week = store_col_int(st, 9);
    g->league = dup(a, st, 10);
    g->season_type = dup(a, st, 11);
    g->stage_label = dup(a, st, 12);
    g->created_at = store_col_int(st, 13);
    g->updated_at = store_col_int(st, 14);
    int c = read_team(a, st, 15, &g->home);
    read_team(a, st, c, &g->away);
}

int games_list(struct store *s, struct arena *a, const struct game_filter *f, struct game **out,
               size_t *n, bool *more)
{
    /* The SQL text depends only on which filters are present, so each shape is prepared
     * once per connection and cached (store_prepare). */
    struct buf sql = BUF_INIT;
    buf_puts(&sql, game_select);
    buf_puts(&sql, " WHERE 1 = 1");
    if (f->season != MODEL_NULL)
        buf_puts(&sql, " AND g.season = ?");
    if (f->week != MODEL_NULL)
        buf_puts(&sql, " AND g.week = ?");
    if (f->team_id)
        buf_puts(&sql, " AND (g.home_team_id = ? OR g.away_team_id = ?)");
    if (f->league)
        buf_puts(&sql, " AND g.league = ?");
    if (f->season_type)
        buf_puts(&sql, " AND g.season_type = ?");
    if (f->status)
        buf_puts(&sql, " AND g.status = ?");
    if (f->from != MODEL_NULL)
        buf_puts(&sql, " AND g.starts_at >= ?");
    if (f->to != MODEL_NULL)
        buf_puts(&sql, " AND g.starts_at < ?");
    buf_puts(&sql, f->recent ? " ORDER BY g.kickoff_known DESC, g.starts_at DESC, g.id ASC"
                             : " ORDER BY g.kickoff_known DESC, g.starts_at ASC, g.id ASC");
    buf_puts(&sql, " LIMIT ? OFFSET ?");

    int rc = 0;
    struct store_stmt *st = store_prepare(s, sql.p);
    buf_release(&sql);
    if (!st)
        return STORE_ERR;
    int i = 1;
    if (f->season != MODEL_NULL)
        store_bind_int(st, i++, f->season);
    if (f->week != MODEL_NULL)
        store_bind_int(st, i++, f->week);
    if (f->team_id) {
        store_bind_text(st, i++, f->team_id);
        store_bind_text(st, i++, f->team_id);
    }
    if (f->league)
        store_bind_text(st, i++, f->league);
    if (f->season_type)
        store_bind_text(st, i++, f->season_type);
    if (f->status)
        store_bind_text(st, i++, f->status);
    if (f->from != MODEL_NULL)
        store_bind_int(st, i++, f->from);
    if (f->to != MODEL_NULL)
        store_bind_int(st, i++, f->to);
    store_bind_int(st, i++, f->limit + 1);
    store_bind_int(st, i++, f->offset);

    struct game *games = arena_alloc(a, sizeof *games * (size_t)f->limit);
    size_t count = 0;
    *more = false;
    while ((rc = store_step(st)) == STORE_ROW) {
        if (count == (size_t)f->limit) {
            *more = true;
            break;
        }
        read_game(a, st, &games[count++]);
    }
    store_reset(st);
    if (rc < 0)
        return rc;
    *out = games;
    *n = count;
    return 0;
}

int games_get(struct store *s, struct arena *a, const char *id, struct game *out)
{
    struct store_stmt *st = store_prepare(s, GAME_SELECT " WHERE g.id = ?");
    if (!st)
        return STORE_ERR;
    store_bind_text(st, 1, id);
    int rc = store_step(st);
    if (rc == STORE_ROW)
        read_game(a, st, out);
    store_reset(st);
    return rc;
}

int teams_each(struct store *s, int (*fn)(void *ctx, const struct team *t), void *ctx)
{
    struct store_stmt *st =
        store_prepare(s, "SELECT " TEAM_COLS("t") " FROM teams t ORDER BY t.id");
    if (!st)
        return STORE_ERR;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        struct arena a;
        struct team t;
        arena_init(&a);
        read_team(&a, st, 0, &t);
        int r = fn(ctx, &t);
        arena_release(&a);
        if (r < 0) {
            rc = r;
            break;
        }
    }
    store_reset(st);
    return rc < 0 ? rc : 0;
}

int games_each(struct store *s, int (*fn)(void *ctx, const struct game *g), void *ctx)
{
    struct buf sql = BUF_INIT;
    buf_puts(&sql, game_select);
    buf_puts(&sql, " ORDER BY g.id");
    struct store_stmt *st = store_prepare(s, sql.p);
    buf_release(&sql);
    if (!st)
        return STORE_ERR;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        struct arena a;
        struct game g;
        arena_init(&a);
        read_game(&a, st, &g);
        int r = fn(ctx, &g);
        arena_release(&a);
        if (r < 0) {
            rc = r;
            break;
        }
    }
    store_reset(st);
    return rc < 0 ? rc : 0;
}
