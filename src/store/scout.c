/*
 * The scout tables (migrations/005_scout.sql). Budgets are granted only by conditional
 * UPDATEs (`used + ? <= limit`): the database decides, so two concurrent reservations on
 * any number of processes or nodes can never overspend (ARCHITECTURE.md storage rules).
 */
#include "store/scout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/uuid.h"

#define CRED_COLUMNS                                                                               \
    "id, name, prefix, x_per_day, model_per_day, x_per_run, model_per_run, run_seconds,"           \
    " disabled, created_at, expires_at, revoked_at, last_used_at"

/* A credential (a struct scout_credential) read from CRED_COLUMNS (store_cols). */
#define CRED(kind, f) STORE_COL_##kind(struct scout_credential, f)
static const struct store_col credential_cols[] = {CRED(CHARS, id),
                                                   CRED(CHARS, name),
                                                   CRED(CHARS, prefix),
                                                   CRED(INT, per_day[SCOUT_X]),
                                                   CRED(INT, per_day[SCOUT_MODEL]),
                                                   CRED(INT, per_run[SCOUT_X]),
                                                   CRED(INT, per_run[SCOUT_MODEL]),
                                                   CRED(INT, run_seconds),
                                                   CRED(BOOL, disabled),
                                                   CRED(INT, created_at),
                                                   CRED(INT, expires_at),
                                                   CRED(INT, revoked_at),
                                                   CRED(INT, last_used_at),
                                                   STORE_COL_END};
#undef CRED

static int credential_by(struct store *s, const char *sql, const char *v,
                         struct scout_credential *out)
{
    return STORE_ONE_COLS(s, credential_cols, out, sql, STORE_TEXT(v));
}

int scout_credential_by_hash(struct store *s, const char *hash, struct scout_credential *out)
{
    return credential_by(s, "SELECT " CRED_COLUMNS " FROM scout_credentials WHERE secret_hash = ?",
                         hash, out);
}

int scout_credential_by_id(struct store *s, const char *id, struct scout_credential *out)
{
    return credential_by(s, "SELECT " CRED_COLUMNS " FROM scout_credentials WHERE id = ?", id, out);
}

int scout_credential_insert(struct store *s, const struct scout_credential *c, const char *hash)
{
    return STORE_RUN(s,
                     "INSERT INTO scout_credentials (id, name, prefix, secret_hash, x_per_day,"
                     " model_per_day, x_per_run, model_per_run, run_seconds, disabled, created_at,"
                     " expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     STORE_TEXT(c->id), STORE_TEXT(c->name), STORE_TEXT(c->prefix),
                     STORE_TEXT(hash), STORE_INT(c->per_day[SCOUT_X]),
                     STORE_INT(c->per_day[SCOUT_MODEL]), STORE_INT(c->per_run[SCOUT_X]),
                     STORE_INT(c->per_run[SCOUT_MODEL]), STORE_INT(c->run_seconds),
                     STORE_INT(c->disabled), STORE_INT(c->created_at), STORE_INT(c->expires_at));
}

int scout_credential_update(struct store *s, const struct scout_credential *c)
{
    return STORE_CHANGED(
        s,
        "UPDATE scout_credentials SET x_per_day = ?, model_per_day = ?, x_per_run = ?,"
        " model_per_run = ?, run_seconds = ?, disabled = ? WHERE id = ?",
        STORE_INT(c->per_day[SCOUT_X]), STORE_INT(c->per_day[SCOUT_MODEL]),
        STORE_INT(c->per_run[SCOUT_X]), STORE_INT(c->per_run[SCOUT_MODEL]),
        STORE_INT(c->run_seconds), STORE_INT(c->disabled), STORE_TEXT(c->id));
}

int scout_credential_revoke(struct store *s, const char *id, int64_t now)
{
    return STORE_CHANGED(
        s, "UPDATE scout_credentials SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
        STORE_INT(now), STORE_TEXT(id));
}

int scout_credential_touch(struct store *s, const char *id, int64_t now)
{
    return STORE_RUN(s, "UPDATE scout_credentials SET last_used_at = ? WHERE id = ?",
                     STORE_INT(now), STORE_TEXT(id));
}

static int credential_each_row(void *each, struct store_stmt *st)
{
    struct scout_credential c;
    store_cols(st, NULL, 0, credential_cols, &c);
    return STORE_EACH_CALL(each, struct scout_credential, &c);
}

int scout_credentials_each(struct store *s, int (*fn)(void *ctx, const struct scout_credential *c),
                           void *ctx)
{
    return store_rows(store_prepare(s, "SELECT " CRED_COLUMNS
                                       " FROM scout_credentials ORDER BY created_at DESC, id"),
                      credential_each_row, STORE_EACH(struct scout_credential, fn, ctx, NULL));
}

/* ---- daily spend ------------------------------------------------------------------- */

int scout_spend_used(struct store *s, const char *cred, int64_t day, int64_t used[SCOUT_NKINDS])
{
    used[SCOUT_X] = used[SCOUT_MODEL] = 0;
    struct store_stmt *st =
        STORE_SELECT(s, "SELECT kind, used FROM scout_spend WHERE credential_id = ? AND day = ?",
                     STORE_TEXT(cred), STORE_INT(day));
    if (!st)
        return STORE_ERR;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        const char *k = store_col_text(st, 0);
        used[k && strcmp(k, "x") == 0 ? SCOUT_X : SCOUT_MODEL] = store_col_int(st, 1);
    }
    store_reset(st);
    return rc < 0 ? rc : 0;
}

int scout_spend_take(struct store *s, const char *cred, int64_t day, enum scout_kind kind,
                     int64_t units, int64_t limit)
{
    int rc = STORE_RUN(s,
                       "INSERT INTO scout_spend (credential_id, day, kind, used)"
                       " VALUES (?, ?, ?, 0) ON CONFLICT (credential_id, day, kind) DO NOTHING",
                       STORE_TEXT(cred), STORE_INT(day), STORE_TEXT(scout_kind_name(kind)));
    if (rc < 0)
        return rc;
    /* the grant itself: one statement that re-checks the limit against the row it locks */
    return STORE_CHANGED(s,
                         "UPDATE scout_spend SET used = used + ?"
                         " WHERE credential_id = ? AND day = ? AND kind = ? AND used + ? <= ?",
                         STORE_INT(units), STORE_TEXT(cred), STORE_INT(day),
                         STORE_TEXT(scout_kind_name(kind)), STORE_INT(units), STORE_INT(limit));
}

/* ---- runs -------------------------------------------------------------------------- */

#define RUN_COLUMNS                                                                                \
    "id, credential_id, run_key, status, started_at, expires_at, x_cap, model_cap, x_used,"        \
    " model_used, finish_hash"

/* A run (a struct scout_run) read from RUN_COLUMNS (store_cols). */
#define RUN(kind, f) STORE_COL_##kind(struct scout_run, f)
static const struct store_col run_cols[] = {RUN(CHARS, id),          RUN(CHARS, credential_id),
                                            RUN(CHARS, key),         RUN(CHARS, status),
                                            RUN(INT, started_at),    RUN(INT, expires_at),
                                            RUN(INT, cap[SCOUT_X]),  RUN(INT, cap[SCOUT_MODEL]),
                                            RUN(INT, used[SCOUT_X]), RUN(INT, used[SCOUT_MODEL]),
                                            RUN(CHARS, finish_hash), STORE_COL_END};
#undef RUN

int scout_run_get(struct store *s, const char *id, struct scout_run *out)
{
    return STORE_ONE_COLS(s, run_cols, out, "SELECT " RUN_COLUMNS " FROM scout_runs WHERE id = ?",
                          STORE_TEXT(id));
}

/* Appends a JSON text column (column 0; "{}" for null) to a struct buf (out). */
static int json_row(void *out, struct store_stmt *st)
{
    const char *t = store_col_text(st, 0);
    buf_puts(out, t ? t : "{}");
    return 0;
}

int scout_run_receipt(struct store *s, const char *id, bool finish, struct buf *out)
{
    return store_one(STORE_SELECT(s,
                                  finish ? "SELECT finish_receipt FROM scout_runs WHERE id = ?"
                                         : "SELECT begin_receipt FROM scout_runs WHERE id = ?",
                                  STORE_TEXT(id)),
                     json_row, out);
}

int scout_run_active(struct store *s, const char *cred, const char *key, int64_t now,
                     struct scout_run *out)
{
    return STORE_ONE_COLS(s, run_cols, out,
                          "SELECT " RUN_COLUMNS
                          " FROM scout_runs WHERE credential_id = ? AND active_key = ?"
                          " AND status = 'running' AND expires_at > ?",
                          STORE_TEXT(cred), STORE_TEXT(key), STORE_INT(now));
}

int scout_run_expire(struct store *s, const char *cred, const char *key, const char *id,
                     int64_t now)
{
    return STORE_RUN(s,
                     key ? "UPDATE scout_runs SET status = 'expired', active_key = NULL"
                           " WHERE credential_id = ? AND active_key = ?"
                           " AND status = 'running' AND expires_at <= ?"
                         : "UPDATE scout_runs SET status = 'expired', active_key = NULL"
                           " WHERE credential_id = ? AND id = ?"
                           " AND status = 'running' AND expires_at <= ?",
                     STORE_TEXT(cred), STORE_TEXT(key ? key : id), STORE_INT(now));
}

int scout_runs_expire_all(struct store *s, int64_t now)
{
    return STORE_RUN(s,
                     "UPDATE scout_runs SET status = 'expired', active_key = NULL"
                     " WHERE status = 'running' AND expires_at <= ?",
                     STORE_INT(now));
}

int scout_run_insert(struct store *s, const struct scout_run *r, const char *receipt)
{
    return STORE_RUN(
        s,
        "INSERT INTO scout_runs (id, credential_id, run_key, active_key, status, started_at,"
        " expires_at, x_cap, model_cap, x_used, model_used, begin_receipt)"
        " VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, 0, 0, ?)",
        STORE_TEXT(r->id), STORE_TEXT(r->credential_id), STORE_TEXT(r->key), STORE_TEXT(r->key),
        STORE_INT(r->started_at), STORE_INT(r->expires_at), STORE_INT(r->cap[SCOUT_X]),
        STORE_INT(r->cap[SCOUT_MODEL]), STORE_TEXT(receipt));
}

int scout_run_take(struct store *s, const char *id, enum scout_kind kind, int64_t units,
                   int64_t now)
{
    /* one run by its id: at most one row changes */
    return STORE_CHANGED(s,
                         kind == SCOUT_X
                             ? "UPDATE scout_runs SET x_used = x_used + ? WHERE id = ?"
                               " AND status = 'running' AND expires_at > ? AND x_used + ? <= x_cap"
                             : "UPDATE scout_runs SET model_used = model_used + ? WHERE id = ?"
                               " AND status = 'running' AND expires_at > ?"
                               " AND model_used + ? <= model_cap",
                         STORE_INT(units), STORE_TEXT(id), STORE_INT(now), STORE_INT(units));
}

int scout_reservation_insert(struct store *s, const char *run_id, enum scout_kind kind,
                             int64_t units, int64_t day, int64_t now)
{
    return STORE_INSERT(s,
                        "INSERT INTO scout_reservations (id, run_id, kind, units, day, created_at)"
                        " VALUES (?, ?, ?, ?, ?, ?)",
                        STORE_TEXT(run_id), STORE_TEXT(scout_kind_name(kind)), STORE_INT(units),
                        STORE_INT(day), STORE_INT(now));
}

int scout_run_complete(struct store *s, const char *id, int64_t now, const char *finish_hash,
                       const char *receipt, const char *evaluations, const char *report)
{
    return STORE_CHANGED(
        s,
        "UPDATE scout_runs SET status = 'completed', active_key = NULL, finished_at = ?,"
        " finish_hash = ?, finish_receipt = ?, evaluations = ?, report = ?"
        " WHERE id = ? AND status = 'running'",
        STORE_INT(now), STORE_TEXT(finish_hash), STORE_TEXT(receipt), STORE_TEXT(evaluations),
        STORE_TEXT(report), STORE_TEXT(id));
}

static int run_each_row(void *each, struct store_stmt *st)
{
    struct scout_run r;
    store_cols(st, NULL, 0, run_cols, &r);
    return STORE_EACH_CALL(each, struct scout_run, &r);
}

int scout_runs_active_each(struct store *s, const char *cred, int64_t now,
                           int (*fn)(void *ctx, const struct scout_run *r), void *ctx)
{
    return store_rows(
        STORE_SELECT(s,
                     "SELECT " RUN_COLUMNS " FROM scout_runs WHERE credential_id = ?"
                     " AND status = 'running' AND expires_at > ? ORDER BY started_at, id LIMIT 100",
                     STORE_TEXT(cred), STORE_INT(now)),
        run_each_row, STORE_EACH(struct scout_run, fn, ctx, NULL));
}

/* ---- checkpoints ------------------------------------------------------------------- */

int scout_checkpoints_get(struct store *s, const char *cred, const char *key, struct buf *out)
{
    return store_one(
        STORE_SELECT(
            s, "SELECT checkpoints FROM scout_checkpoints WHERE credential_id = ? AND run_key = ?",
            STORE_TEXT(cred), STORE_TEXT(key)),
        json_row, out);
}

int scout_checkpoints_put(struct store *s, const char *cred, const char *key, const char *json,
                          const char *run_id, int64_t now)
{
    return STORE_RUN(
        s,
        "INSERT INTO scout_checkpoints (credential_id, run_key, checkpoints, run_id, updated_at)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (credential_id, run_key) DO UPDATE SET"
        " checkpoints = excluded.checkpoints, run_id = excluded.run_id,"
        " updated_at = excluded.updated_at",
        STORE_TEXT(cred), STORE_TEXT(key), STORE_TEXT(json), STORE_TEXT(run_id), STORE_INT(now));
}

/* ---- signals ----------------------------------------------------------------------- */

int scout_signal_insert(struct store *s, const char *run_id, const char *cred,
                        const struct scout_signal *sig, int score, int64_t now)
{
    char id[UUID_STR_LEN + 1];
    uuid_v4(id);
    /* both unique columns (canonical URL, content hash) decide: DO NOTHING without a target
     * covers either, in SQLite and PostgreSQL alike */
    return STORE_CHANGED(
        s,
        "INSERT INTO scout_signals (id, run_id, credential_id, url, canonical_url,"
        " content_hash, domain, author, posted_at, body, game_id, period, clock, score,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT DO NOTHING",
        STORE_TEXT(id), STORE_TEXT(run_id), STORE_TEXT(cred), STORE_TEXT(sig->url),
        STORE_TEXT(sig->canonical_url), STORE_TEXT(sig->content_hash[0] ? sig->content_hash : NULL),
        STORE_TEXT(sig->domain), STORE_TEXT(sig->author), STORE_INT(sig->posted_at),
        STORE_TEXT(sig->text), STORE_TEXT(sig->game_id), STORE_INT(sig->period),
        STORE_TEXT(sig->clock), STORE_INT(score), STORE_INT(now));
}

int scout_play_support(struct store *s, const char *game_id, int64_t period, const char *clock,
                       int window_s)
{
    int want = clock ? scout_clock_seconds(clock) : -1;
    struct store_stmt *st =
        STORE_SELECT(s,
                     "SELECT DISTINCT g.domain, g.clock FROM scout_signals g"
                     " JOIN scout_runs r ON r.id = g.run_id"
                     " JOIN scout_credentials c ON c.id = g.credential_id"
                     " WHERE g.game_id = ? AND g.period = ? AND r.status = 'completed'"
                     " AND c.revoked_at IS NULL ORDER BY g.domain",
                     STORE_TEXT(game_id), STORE_INT(period));
    if (!st)
        return STORE_ERR;
    /* rows come ordered by domain: count a domain once, when one of its signals agrees */
    char last[256] = "";
    bool have_last = false;
    int count = 0, rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        const char *domain = store_col_text(st, 0);
        const char *c = store_col_text(st, 1);
        if (!domain || (have_last && strcmp(domain, last) == 0))
            continue;
        int at = c ? scout_clock_seconds(c) : -1;
        int diff = want >= 0 && at >= 0 ? abs(want - at) : 0;
        if (diff > window_s)
            continue;
        snprintf(last, sizeof last, "%s", domain);
        have_last = true;
        count++;
    }
    store_reset(st);
    return rc < 0 ? rc : count;
}
