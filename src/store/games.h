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
    /* the games index (/games): by league, season descending, season type (vocab.h
     * season_type_rank: postseason, regular, preseason), week descending, then kickoff;
     * overrides recent */
    bool by_week;
    int64_t limit, offset;
    /* the content version the request read for its cache token (store_data_version): with
     * it the page may come from the list index built at that version (store/listindex.h) */
    bool versioned;
    uint64_t version;
};

/* Reads one page of games into *out (arena-owned, *n entries); *more tells whether a
 * further record exists. Returns 0 or a negative store_rc. */
/* The sort keys of the games index (game_filter.by_week), each column prefixed by t ("g." or
 * ""): the ORDER BY of games_list and the column list of the index games_by_week, whose
 * migration the vocabulary test holds to this text. */
struct buf;
void games_week_keys(struct buf *sql, const char *t);
int games_list(struct store *s, struct arena *a, const struct game_filter *f, struct game **out,
               size_t *n, bool *more);

/* Reads one game: 1 found, 0 no such game, or a negative store_rc. */
int games_get(struct store *s, struct arena *a, const char *id, struct game *out);

/* One page of teams by ID (league NULL: every league) into *out (arena-owned, *n entries);
 * *more tells whether a further team exists. Returns 0 or a negative store_rc. */
int teams_list(struct store *s, struct arena *a, const char *league, int64_t limit, int64_t offset,
               struct team **out, size_t *n, bool *more);

/* Calls fn for every team, then returns; the team's strings live until fn returns. */
int teams_each(struct store *s, int (*fn)(void *ctx, const struct team *t), void *ctx);
/* Calls fn for every game in ID order. */
int games_each(struct store *s, int (*fn)(void *ctx, const struct game *g), void *ctx);

/* Inserts g or, when its ID exists, replaces every field (created_at too unless
 * keep_created). provider names where the game comes from ("nflverse", "cfbd"); NULL (an
 * import) keeps the stored one. 0 or a negative store_rc. */
int games_upsert(struct store *s, const struct game *g, bool keep_created, const char *provider);

/* ---- games from providers (issue 17; app/games_sync.c) ----------------------------- */

/* The stored games that came from provider ("nflverse", "cfbd") in season, and in week /
 * season_type unless MODEL_NULL / NULL: *out is a malloc'd array (free it)
 * of *n games whose strings live in a; only the sync fields are read (teams by ID only).
 * 0 or a negative store_rc. */
int games_sync_snapshot(struct store *s, struct arena *a, const char *provider, int64_t season,
                        int64_t week, const char *season_type, struct game **out, size_t *n);

/* The stored game id if it came from provider, sync fields only (as the snapshot): 1 found
 * (*out filled, strings in a), 0 not found (or another provider's / an imported game), or
 * a negative store_rc. */
int games_sync_get(struct store *s, struct arena *a, const char *provider, const char *id,
                   struct game *out);

/* Inserts g (created_at and updated_at = now) or, when its ID exists, replaces its
 * provider-fed fields (updated_at = now, created_at kept); the game is provider's from now
 * on. 0 or a negative store_rc. */
int games_sync_upsert(struct store *s, const struct game *g, const char *provider, int64_t now);

/* Sets the status of a game gone from its provider (period and clock cleared, updated_at =
 * now) unless it has it already: 1 changed, 0 unchanged, or a negative store_rc. */
int games_sync_vanish(struct store *s, const char *id, const char *status, int64_t now);

/* Writes a provider's team: with replace, inserts or updates it when a field differs;
 * without, inserts it only when no team has its ID. 1 written, 0 unchanged, or a negative
 * store_rc. */
int teams_sync_upsert(struct store *s, const struct team *t, bool replace);

/* 1 when a game of provider is live or delayed, or is upcoming / unknown
 * with a kickoff in [now - since_us, now + ahead_us); 0 otherwise; or a negative store_rc. */
int games_provider_busy(struct store *s, const char *provider, int64_t now, int64_t since_us,
                        int64_t ahead_us);

/* The worker's schedule of one provider source (table provider_sources). */
struct provider_source_state {
    const char *etag, *last_modified; /* arena-owned or NULL */
    int64_t failures;
};

/* Claims source when it is due (next_at <= now; a new source is due at once): moves next_at
 * to now + lease_us so no other worker takes it meanwhile, reads its validators into *st.
 * Runs in the caller's write transaction. 1 claimed, 0 not due, or a negative store_rc. */
int provider_source_claim(struct store *s, struct arena *a, const char *source, int64_t now,
                          int64_t lease_us, struct provider_source_state *st);

/* Records an attempt: validators (NULL keeps the stored ones unless clear), the next due
 * time, the consecutive failures and the status line; synced_at = now when synced.
 * 0 or a negative store_rc. */
int provider_source_done(struct store *s, const char *source, const char *etag,
                         const char *last_modified, int64_t now, bool synced, int64_t next_at,
                         int64_t failures, const char *outcome);

#endif
