#ifndef WHISTLE_STORE_GAMES_H
#define WHISTLE_STORE_GAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "domain/model.h"
#include "store/store.h"
#include "util/arena.h"

/* Filters of GET /api/v1/games; NULL / MODEL_NULL mean "not filtered". */
struct game_filter {
    int64_t season, week, from, to; /* from inclusive, to exclusive, on kickoff */
    const char *team_id, *league, *season_type, *status;
    bool recent; /* descending kickoff; unknown kickoffs stay last either way */
    int64_t limit, offset;
};

/* Reads one page of games into *out (arena-owned, *n entries); *more tells whether a
 * further record exists. Returns 0 or a negative store_rc. */
int games_list(struct store *s, struct arena *a, const struct game_filter *f, struct game **out,
               size_t *n, bool *more);

/* Reads one game: STORE_ROW (found), STORE_DONE (no such game) or a negative store_rc. */
int games_get(struct store *s, struct arena *a, const char *id, struct game *out);

/* Calls fn for every team, then returns; the team's strings live until fn returns. */
int teams_each(struct store *s, int (*fn)(void *ctx, const struct team *t), void *ctx);
/* Calls fn for every game in ID order. */
int games_each(struct store *s, int (*fn)(void *ctx, const struct game *g), void *ctx);

#endif
