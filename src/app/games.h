#ifndef WHISTLE_APP_GAMES_H
#define WHISTLE_APP_GAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "providers/provider.h"

/*
 * Sync games from a provider (issue 17, docs/games.md): the use case behind `whistle games
 * sync` and the worker's games-refresh task.
 *
 * app_games_sync() writes one provider batch: teams first, then games in transactions of
 * at most GAMES_SYNC_BATCH changed games; a game equal to its stored copy is not written
 * (re-running a sync changes nothing), a changed one gets updatedAt = now, a new one is
 * inserted. A game is never deleted: a stored game of the provider inside the batch's scope
 * that the batch no longer carries is marked with the provider's vanished status (cfbd:
 * canceled, nflverse: unknown), but only when no row of the batch was rejected (a document
 * cut short must not mark the rest of a season as gone). Committed batches stay committed
 * when a later one fails; running the sync again completes it.
 */
#define GAMES_SYNC_BATCH 200

struct games_sync_report {
    size_t inserted, updated, unchanged, rejected, vanished;
    size_t teams;        /* team records inserted or updated */
    size_t not_stored;   /* scoreboard: games not stored from the provider (sync /games) */
    bool scoreboard;     /* the report of a scoreboard (app_games_scoreboard) */
    bool vanish_skipped; /* rows were rejected, so vanished games were not looked for */
    bool not_modified;   /* the provider answered 304: nothing was read */
    long http_status;    /* the last HTTP status (0 for a file) */
    int attempts;        /* HTTP requests made */
    long retry_after_s;  /* the provider's last Retry-After, -1 when none */
};

enum games_sync_outcome {
    GAMES_SYNC_OK = APP_OK,
    GAMES_SYNC_FETCH_FAILED = 1, /* file unreadable, provider unreachable, HTTP error */
    GAMES_SYNC_BAD_DOCUMENT = 2, /* not the provider's format as a whole */
    /* APP_UNAVAILABLE: the store failed (batches committed before stay) */
};

int app_games_sync(struct app_ctx *c, const struct provider_batch *b, struct games_sync_report *r);

/* Applies a scoreboard batch (b->live, CFBD /scoreboard) to the provider's stored games
 * (domain/gamesync.h gamesync_apply_live): status, period, clock, scores, neutral site. A
 * game that is not stored from the provider is counted in r->not_stored and skipped (a
 * scoreboard has no season or week to file it under); an unchanged one costs no write;
 * changed ones are written in transactions of at most GAMES_SYNC_BATCH, updatedAt = now.
 * Nothing is inserted, nothing is marked vanished. GAMES_SYNC_OK or APP_UNAVAILABLE. */
int app_games_scoreboard(struct app_ctx *c, const struct provider_batch *b,
                         struct games_sync_report *r);

/* Where a sync reads from. */
struct games_source {
    const char *provider;    /* "nflverse" or "cfbd" */
    const char *location;    /* nflverse: a file or an http(s) URL of games.csv; cfbd: a saved
                                /games response, or NULL for the API */
    const char *teams_file;  /* cfbd: a saved /teams response, or NULL */
    bool with_teams;         /* cfbd from the API: fetch /teams too */
    bool scoreboard;         /* cfbd: /scoreboard (live facts) instead of /games; location is
                                then a saved /scoreboard response or NULL for the API */
    const char *cfbd_url;    /* the API's base URL; NULL: https://api.collegefootballdata.com */
    const char *cfbd_key;    /* the bearer key (never logged) */
    int64_t season, week;    /* cfbd: the season asked for; week MODEL_NULL for every week */
    const char *season_type; /* cfbd: regular, postseason or both (NULL: both) */
    long timeout_ms;
    size_t max_bytes;
    int attempts;
    long backoff_ms, max_wait_s;
    const char *etag, *last_modified; /* validators for a conditional request, or NULL */
};

/* Reads src (file or HTTP), parses it with the provider's reader and runs app_games_sync.
 * r->rejects... are not kept: rejected rows are handed to on_reject (may be NULL) before
 * the write. The validators of a 200 are copied into *etag / *last_modified (malloc'd, or
 * NULL; free them) when those are not NULL. err receives the reason of a refusal. */
int app_games_sync_source(struct app_ctx *c, const struct games_source *src,
                          void (*on_reject)(void *ctx, const struct provider_reject *rj),
                          void *reject_ctx, struct games_sync_report *r, char **etag,
                          char **last_modified, char *err, size_t errlen);

/* The one-line summary of a report ("3 inserted, 1 updated, ...") into out. */
void app_games_report_line(const struct games_sync_report *r, char *out, size_t outlen);

#endif
