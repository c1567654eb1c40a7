#ifndef WHISTLE_APP_APP_H
#define WHISTLE_APP_APP_H

#include <stdint.h>

#include "store/store.h"
#include "util/arena.h"

/*
 * The use-case layer (ARCHITECTURE.md "Layers", docs/architecture.md): one function per
 * thing a user or operator does — read an incident, cast a ballot, sign up, submit a lead,
 * post or moderate a comment, sync games. A use case
 *
 *   - takes a struct app_ctx (the connection, an arena for what it returns, `now`, and who
 *     acts) plus its inputs, already parsed from HTTP / CLI but not yet judged;
 *   - applies the domain rules (src/domain), owns its transaction (begin, one exit path
 *     that commits or rolls back), writes its audit record in that transaction;
 *   - returns an outcome enum of its own (`enum ballot_outcome`, …) whose negative values
 *     are shared: APP_UNAVAILABLE when the store failed (nothing was written). api/, web/
 *     and cli/ map each outcome to a status + error code, an HTML page or an exit code and
 *     never decide a rule themselves.
 *
 * Use cases never see a struct request or argv; HTTP and CLI never see SQL.
 *
 * PostgreSQL write rule (ARCHITECTURE.md "Storage rules"): a new write locks only the rows
 * its rule needs and holds them for as few round trips as possible; no statement is
 * prepared while a lock is held that could be prepared before it.
 */

/* Outcomes shared by every use case; each use case's own enum starts at APP_OK (0). */
enum {
    APP_OK = 0,
    APP_UNAVAILABLE = -1, /* the store failed or could not be reached; nothing was written */
};

struct app_ctx {
    struct store *s;        /* the connection (store_thread() on the server) */
    struct arena *a;        /* owns every string and array a use case returns */
    int64_t now;            /* microseconds since the epoch (UTC) */
    const char *actor;      /* who acts, for audit: "account:<id>", "agent:<key id>",
                             * "operator" (CLI), "worker"; NULL when anonymous */
    const char *role;       /* the actor's role for audit (editor, admin…), or NULL */
    const char *request_id; /* X-Request-Id of the HTTP request, NULL on the CLI */
    /* the store's versions (content, tally: store_data_version) the request read for its
     * cache token before any of its reads, or NULL (store/fragments.h fragments_read) */
    const uint64_t *versions;
};

/* Begins a write that locks only what its rule needs (the PostgreSQL write rule above,
 * docs/scale.md "Which lock each write takes"): prepare(s, arg), when not NULL, runs through
 * store_prepare_ahead (every store call the write makes, with placeholder arguments), then
 * store_begin_row_write, then store_lock_key for each of the n keys in one fixed order for
 * the whole program (sorted by strcmp, a key named twice taken once; NULL or "" skipped), so
 * two writes that share keys never deadlock. Keys name what a rule reads then writes:
 * "account:<id>", "email:<normalised address>", "incident:<id>", "lead:<id>", "game:<id>",
 * "team:<id>", a rate-limit subject, "publish" (slugs of new incidents). Writes that take a
 * key inside their own code besides these (comments-of:, totp:) take it after them. SQLite:
 * BEGIN IMMEDIATE, keys cost nothing. 0 or a negative store_rc (nothing to roll back then
 * but what store_rollback undoes). */
#define APP_LOCK_KEYS_MAX 8

/* The id a prepare-ahead function (app_begin_locked's prepare) passes wherever a store call
 * wants one: a well-formed UUID that names no row, so lookups find nothing. */
#define APP_PLACEHOLDER_ID "00000000-0000-4000-8000-000000000000"
int app_begin_locked(struct store *s, int (*prepare)(struct store *s, void *arg), void *arg,
                     const char *const *keys, size_t n);

/* A use case's store failure, its single exit: rolls the transaction (if any) back, logs one
 * line as module ("<what>: store failure <rc>" and the request id) and returns
 * APP_UNAVAILABLE. */
int app_unavailable(const struct app_ctx *c, const char *module, int rc, const char *what);

/* The end of a write that came this far with rc: commits when rc >= 0. APP_OK when that
 * succeeded, else app_unavailable(c, module, rc, what) (rolled back, logged). */
int app_commit(const struct app_ctx *c, const char *module, int rc, const char *what);

/* The end of a read, or of a write that wrote nothing: rolls the transaction back; returns
 * APP_UNAVAILABLE when rc < 0 (the store failed), else result. */
int app_rollback(const struct app_ctx *c, int rc, int result);

/* An array of rows a use case returns, grown in an arena as a store callback meets them:
 * APP_ROWS_INIT(arena, type) to start; v holds the n rows (NULL while there are none). The
 * arena owns v. */
struct app_rows {
    struct arena *a;
    size_t size; /* bytes per row */
    void *v;
    size_t n, cap;
};
#define APP_ROWS_INIT(arena, type)                                                                 \
    {                                                                                              \
        .a = (arena), .size = sizeof(type)                                                         \
    }

/* Room for one more row at the end of rows, counted in rows->n: returns it, uninitialised.
 * A full array is copied into twice the room (16 rows at first), the old copy left to the
 * arena, which owns both. */
void *app_rows_push(struct app_rows *rows);

/* Pushes a copy of row (rows->size bytes, app_rows_push) and copies into rows' arena each of
 * its n string members (const char *, NULL stays NULL) at the byte offsets strings[]
 * (offsetof), so the copy outlives the store callback that lent row. Returns the copy; the
 * arena owns it and its strings. */
void *app_rows_copy(struct app_rows *rows, const void *row, const size_t *strings, size_t n);

/* Per-subject rolling-window limits over the store (domain/ratelimit.h is the rule, one
 * bounded rate_windows row per subject). app_rate_limited: 1 when subject's window already
 * holds `limit` events (with *retry_s), 0 when another is allowed, or a negative store_rc.
 * app_rate_record: counts one event now; 0 or a negative store_rc. Both run in the caller's
 * transaction (a write transaction for app_rate_record). */
int app_rate_limited(struct store *s, const char *subject, int limit, int64_t window_us,
                     int64_t now, int64_t *retry_s);
int app_rate_record(struct store *s, const char *subject, int64_t window_us, int64_t now);

/* The stored identity every per-address limit counts under: the keyed hash (voter_hash
 * "ip", 64 hex digits and a NUL) of the client address's limit key, an IPv6 address folded
 * to its /64 (domain/address.h address_limit_key). addr is the request's client address
 * (http_client_addr); NULL counts as "". */
void app_address_hash(const char *addr, char out[65]);

#endif
