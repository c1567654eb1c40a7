#ifndef WHISTLE_STORE_SCOUT_H
#define WHISTLE_STORE_SCOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "domain/scout.h"
#include "store/store.h"
#include "util/buf.h"

/*
 * The scout tables (migrations/005_scout.sql): credentials, daily spend, runs,
 * reservations, checkpoints and signals. Functions return 0 (or a found/changed count as
 * stated) or a negative store_rc; callers own transactions.
 */
#define SCOUT_ID_LEN 37

struct scout_credential {
    char id[SCOUT_ID_LEN];
    char name[404]; /* 100 characters of UTF-8 */
    char prefix[16];
    int64_t per_day[SCOUT_NKINDS]; /* X reads, model micro-USD per UTC day */
    int64_t per_run[SCOUT_NKINDS];
    int64_t run_seconds;
    bool disabled;
    int64_t created_at, expires_at, revoked_at, last_used_at; /* INT64_MIN for null */
};

/* Finds a credential by the hash of its secret, or by id: 1 found, 0 unknown. */
int scout_credential_by_hash(struct store *s, const char *hash, struct scout_credential *out);
int scout_credential_by_id(struct store *s, const char *id, struct scout_credential *out);
/* Inserts c with the storage hash of its secret. */
int scout_credential_insert(struct store *s, const struct scout_credential *c, const char *hash);
/* Writes c's budgets, run seconds and disabled flag: 1 changed, 0 no such credential. */
int scout_credential_update(struct store *s, const struct scout_credential *c);
/* Revokes a credential: 1 revoked now, 0 no such credential or revoked already. */
int scout_credential_revoke(struct store *s, const char *id, int64_t now);
int scout_credential_touch(struct store *s, const char *id, int64_t now);
/* Calls fn for every credential, newest first (fn's non-zero return stops; a negative one is
 * returned). */
int scout_credentials_each(struct store *s, int (*fn)(void *ctx, const struct scout_credential *c),
                           void *ctx);

/* What credential id reserved of each kind on the UTC day starting at day. */
int scout_spend_used(struct store *s, const char *cred, int64_t day, int64_t used[SCOUT_NKINDS]);
/* Adds units to the day's spend of kind if the total stays <= limit, in one conditional
 * UPDATE: 1 granted, 0 refused. */
int scout_spend_take(struct store *s, const char *cred, int64_t day, enum scout_kind kind,
                     int64_t units, int64_t limit);

struct scout_run {
    char id[SCOUT_ID_LEN];
    char credential_id[SCOUT_ID_LEN];
    char key[404];
    char status[12]; /* as stored: running, completed, expired */
    int64_t started_at, expires_at;
    int64_t cap[SCOUT_NKINDS], used[SCOUT_NKINDS];
    char finish_hash[65]; /* "" until completed */
};

/* A run by id (of any credential: compare credential_id): 1 found, 0 unknown. */
int scout_run_get(struct store *s, const char *id, struct scout_run *out);
/* Appends the stored begin or finish answer of a run to out: 1 found, 0 no such run. */
int scout_run_receipt(struct store *s, const char *id, bool finish, struct buf *out);
/* The running, unexpired run of (credential, key): 1 found, 0 none. */
int scout_run_active(struct store *s, const char *cred, const char *key, int64_t now,
                     struct scout_run *out);
/* Marks the runs of (credential, key), or the one run id when key is NULL, whose lease
 * ended at or before now as expired, which frees the key. */
int scout_run_expire(struct store *s, const char *cred, const char *key, const char *id,
                     int64_t now);
/* Housekeeping: marks every running run whose lease ended at or before now as expired
 * (freeing its key), so lists and status never carry stale runs. */
int scout_runs_expire_all(struct store *s, int64_t now);
/* Inserts a running run; STORE_CONSTRAINT when the id exists or the key has an active run. */
int scout_run_insert(struct store *s, const struct scout_run *r, const char *receipt);
/* Adds units to the run's use of kind if it stays <= its cap and the run is running and
 * unexpired at now, in one conditional UPDATE: 1 granted, 0 refused. */
int scout_run_take(struct store *s, const char *id, enum scout_kind kind, int64_t units,
                   int64_t now);
int scout_reservation_insert(struct store *s, const char *run_id, enum scout_kind kind,
                             int64_t units, int64_t day, int64_t now);
/* Completes a running run: 1 done, 0 it was not running. */
int scout_run_complete(struct store *s, const char *id, int64_t now, const char *finish_hash,
                       const char *receipt, const char *evaluations, const char *report);
/* Calls fn for each running, unexpired run of a credential, oldest first (at most 100). */
int scout_runs_active_each(struct store *s, const char *cred, int64_t now,
                           int (*fn)(void *ctx, const struct scout_run *r), void *ctx);

/* The checkpoints stored for (credential, key) into out (compact JSON): 1, or 0 none. */
int scout_checkpoints_get(struct store *s, const char *cred, const char *key, struct buf *out);
int scout_checkpoints_put(struct store *s, const char *cred, const char *key, const char *json,
                          const char *run_id, int64_t now);

/* Records a signal unless one with the same canonical URL or content hash exists (from
 * any run of any credential): 1 recorded, 0 a duplicate. */
int scout_signal_insert(struct store *s, const char *run_id, const char *cred,
                        const struct scout_signal *sig, int score, int64_t now);

/* Signals from completed scout runs that agree with a play: same game_id, same period,
 * and a clock within window_s seconds of clock (any clock when clock is NULL; signals
 * without a clock agree with any clock). Returns the number of distinct registrable
 * domains (util/urlhost.h url_registrable_domain) among their URLs, or a negative store_rc.
 * Signals of revoked credentials no longer count. */
int scout_play_support(struct store *s, const char *game_id, int64_t period, const char *clock,
                       int window_s);

#endif
