#include "store/agents.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/uuid.h"

static const struct store_col auth_cols[] = {
    STORE_COL_CHARS(struct agent_auth, key_id),
    STORE_COL_CHARS(struct agent_auth, account_id),
    STORE_COL_CHARS(struct agent_auth, scope),
    STORE_COL_INT(struct agent_auth, expires_at),
    STORE_COL_INT(struct agent_auth, revoked_at),
    STORE_COL_BOOL(struct agent_auth, banned),
    STORE_COL_END,
};

int agents_key_by_hash(struct store *s, const char *hash, struct agent_auth *out)
{
    return STORE_ONE_COLS(
        s, auth_cols, out,
        "SELECT k.id, k.account_id, k.scope, k.expires_at, k.revoked_at, a.banned"
        " FROM agent_keys k JOIN accounts a ON a.id = k.account_id WHERE k.secret_hash = ?",
        STORE_TEXT(hash));
}

int agents_key_touch(struct store *s, const char *key_id, int64_t now)
{
    return STORE_RUN(s, "UPDATE agent_keys SET last_used_at = ? WHERE id = ?", STORE_INT(now),
                     STORE_TEXT(key_id));
}

int agents_account_find(struct store *s, const char *email, char id[ID_LEN])
{
    return store_one_text(
        STORE_SELECT(s, "SELECT id FROM accounts WHERE email = ?", STORE_TEXT(email)), id, ID_LEN);
}

int agents_account_ensure(struct store *s, const char *email, bool verified, int64_t now,
                          char id[ID_LEN])
{
    int rc = agents_account_find(s, email, id);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    uuid_v4(id);
    return STORE_RUN(
        s,
        "INSERT INTO accounts (id, email, email_verified, banned, created_at, updated_at)"
        " VALUES (?, ?, ?, 0, ?, ?)",
        STORE_TEXT(id), STORE_TEXT(email), STORE_INT(verified), STORE_INT(now), STORE_INT(now));
}

int agents_account_set_banned(struct store *s, const char *email, bool banned, int64_t now)
{
    return STORE_CHANGED(s, "UPDATE accounts SET banned = ?, updated_at = ? WHERE email = ?",
                         STORE_INT(banned), STORE_INT(now), STORE_TEXT(email));
}

int agents_key_insert(struct store *s, const char *id, const char *account_id, const char *name,
                      const char *prefix, const char *hash, int64_t created, int64_t expires)
{
    return STORE_RUN(
        s,
        "INSERT INTO agent_keys (id, account_id, name, prefix, secret_hash, scope, created_at,"
        " expires_at) VALUES (?, ?, ?, ?, ?, 'submit_lead', ?, ?)",
        STORE_TEXT(id), STORE_TEXT(account_id), STORE_TEXT(name), STORE_TEXT(prefix),
        STORE_TEXT(hash), STORE_INT(created), STORE_INT(expires));
}

int agents_key_revoke(struct store *s, const char *id, int64_t now)
{
    /* the conditional update first: of two revocations exactly one changes the row, and
     * store_prepare_ahead (which runs nothing) reaches both statements */
    int rc =
        STORE_RUN(s, "UPDATE agent_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                  STORE_INT(now), STORE_TEXT(id));
    if (rc < 0)
        return rc;
    if (store_changes(s) > 0)
        return 1;
    rc = STORE_EXISTS(s, "SELECT 1 FROM agent_keys WHERE id = ?", STORE_TEXT(id));
    return rc < 0 ? rc : rc == 1 ? 2 : 0;
}

static const struct store_col key_cols[] = {
    STORE_COL_VIEW(struct agent_key_row, id),
    STORE_COL_VIEW(struct agent_key_row, owner),
    STORE_COL_VIEW(struct agent_key_row, name),
    STORE_COL_VIEW(struct agent_key_row, prefix),
    STORE_COL_VIEW(struct agent_key_row, scope),
    STORE_COL_INT(struct agent_key_row, created_at),
    STORE_COL_INT(struct agent_key_row, expires_at),
    STORE_COL_INT(struct agent_key_row, revoked_at),
    STORE_COL_INT(struct agent_key_row, last_used_at),
    STORE_COL_BOOL(struct agent_key_row, banned),
    STORE_COL_END,
};

STORE_COLS_ROW(key_row, struct agent_key_row, key_cols)

int agents_keys_each(struct store *s, const char *owner,
                     int (*fn)(void *ctx, const struct agent_key_row *k), void *ctx)
{
    return store_rows(
        STORE_SELECT(
            s,
            "SELECT k.id, a.email, k.name, k.prefix, k.scope, k.created_at, k.expires_at,"
            " k.revoked_at, k.last_used_at, a.banned FROM agent_keys k"
            " JOIN accounts a ON a.id = k.account_id WHERE (CAST(? AS TEXT) IS NULL OR a.email = ?)"
            " ORDER BY k.created_at DESC, k.id",
            STORE_TEXT(owner), STORE_TEXT(owner)),
        key_row, STORE_EACH(struct agent_key_row, fn, ctx, NULL));
}

int leads_idempotency_find(struct store *s, const char *account_id, const char *idem_key,
                           int64_t since, char fingerprint[65], char lead_id[ID_LEN])
{
    struct store_text_out out[] = {{fingerprint, 65}, {lead_id, ID_LEN}, {NULL, 0}};
    return store_one(STORE_SELECT(s,
                                  "SELECT fingerprint, lead_id FROM lead_idempotency"
                                  " WHERE account_id = ? AND idem_key = ? AND created_at > ?",
                                  STORE_TEXT(account_id), STORE_TEXT(idem_key), STORE_INT(since)),
                     store_texts_row, out);
}

int leads_idempotency_insert(struct store *s, const char *account_id, const char *idem_key,
                             const char *fingerprint, const char *lead_id, int64_t now)
{
    return STORE_RUN(
        s,
        "INSERT INTO lead_idempotency (account_id, idem_key, fingerprint, lead_id, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        STORE_TEXT(account_id), STORE_TEXT(idem_key), STORE_TEXT(fingerprint), STORE_TEXT(lead_id),
        STORE_INT(now));
}

int leads_idempotency_prune(struct store *s, const char *account_id, int64_t before)
{
    /* two texts so that each can use its index (the primary key, or created_at) */
    if (account_id)
        return STORE_RUN(s, "DELETE FROM lead_idempotency WHERE account_id = ? AND created_at <= ?",
                         STORE_TEXT(account_id), STORE_INT(before));
    return STORE_RUN(s, "DELETE FROM lead_idempotency WHERE created_at <= ?", STORE_INT(before));
}

/* store_one's reader of a count and a time (columns 0 and 1) into *out[0] and *out[1]. */
static int count_oldest_row(void *arg, struct store_stmt *st)
{
    int64_t **out = arg;
    *out[0] = store_col_int(st, 0);
    *out[1] = store_col_int(st, 1);
    return 0;
}

/* count and oldest acceptance time of leads created after `start` */
static int window(struct store *s, const char *account_id, int64_t start, int64_t *count,
                  int64_t *oldest)
{
    int64_t *out[2] = {count, oldest};
    int rc = store_one(
        account_id
            ? STORE_SELECT(s,
                           "SELECT count(*), min(created_at) FROM leads"
                           " WHERE account_id = ? AND created_at > ?",
                           STORE_TEXT(account_id), STORE_INT(start))
            : STORE_SELECT(s, "SELECT count(*), min(created_at) FROM leads WHERE created_at > ?",
                           STORE_INT(start)),
        count_oldest_row, out);
    return rc < 0 ? rc : 0;
}

int leads_quota_usage(struct store *s, const char *account_id, int64_t now, struct quota_usage *u)
{
    int rc = window(s, account_id, quota_window_start(QUOTA_AGENT_MINUTE, now),
                    &u->count[QUOTA_AGENT_MINUTE], &u->oldest[QUOTA_AGENT_MINUTE]);
    if (rc == 0)
        rc = window(s, account_id, quota_window_start(QUOTA_AGENT_DAY, now),
                    &u->count[QUOTA_AGENT_DAY], &u->oldest[QUOTA_AGENT_DAY]);
    if (rc == 0)
        rc = window(s, NULL, quota_window_start(QUOTA_GLOBAL_DAY, now), &u->count[QUOTA_GLOBAL_DAY],
                    &u->oldest[QUOTA_GLOBAL_DAY]);
    return rc;
}

static const struct store_col quota_cols[] = {
    STORE_COL_VIEW(struct lead_quota_row, key_id),
    STORE_COL_VIEW(struct lead_quota_row, key_name),
    STORE_COL_VIEW(struct lead_quota_row, key_prefix),
    STORE_COL_VIEW(struct lead_quota_row, owner),
    STORE_COL_VIEW(struct lead_quota_row, account_id),
    STORE_COL_INT(struct lead_quota_row, minute),
    STORE_COL_INT(struct lead_quota_row, day),
    STORE_COL_END,
};

STORE_COLS_ROW(quota_row, struct lead_quota_row, quota_cols)

int leads_quota_each(struct store *s, int64_t minute_start, int64_t day_start, int64_t limit,
                     int (*fn)(void *ctx, const struct lead_quota_row *r), void *ctx)
{
    return store_rows(
        STORE_SELECT(s,
                     "SELECT k.id, k.name, k.prefix, a.email, a.id,"
                     " sum(CASE WHEN l.created_at > ? THEN 1 ELSE 0 END), count(*)"
                     " FROM leads l JOIN agent_keys k ON k.id = l.key_id"
                     " JOIN accounts a ON a.id = l.account_id WHERE l.created_at > ?"
                     " GROUP BY k.id, k.name, k.prefix, a.email, a.id ORDER BY count(*) DESC, k.id"
                     " LIMIT ?",
                     STORE_INT(minute_start), STORE_INT(day_start), STORE_INT(limit)),
        quota_row, STORE_EACH(struct lead_quota_row, fn, ctx, NULL));
}

int leads_lock(struct store *s)
{
    return store_run_args(s, "UPDATE write_locks SET n = n + 1 WHERE name = 'leads'", NULL, 0);
}

/* Binds the lead's confidence, or null when it has none, to parameter k of st. */
static void bind_confidence(struct store_stmt *st, int k, const struct lead_row *l)
{
    if (l->has_confidence)
        store_bind_double(st, k, l->confidence);
    else
        store_bind_null(st, k);
}

int leads_insert(struct store *s, const struct lead_row *l)
{
    struct store_stmt *st = STORE_SELECT(
        s,
        "INSERT INTO leads (id, account_id, key_id, game_id, description, source_urls, period,"
        " clock, category, confidence, status, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)",
        STORE_TEXT(l->id), STORE_TEXT(l->account_id), STORE_TEXT(l->key_id), STORE_TEXT(l->game_id),
        STORE_TEXT(l->description), STORE_TEXT(l->source_urls_json), STORE_INT(l->period),
        STORE_TEXT(l->clock), STORE_TEXT(l->category));
    if (!st)
        return STORE_ERR;
    bind_confidence(st, 10, l);
    store_bind_int(st, 11, l->created_at);
    store_bind_int(st, 12, l->created_at);
    return store_run(st);
}

_Static_assert(QUOTA_COUNT == 3,
               "whistle_submit_lead counts the agent's minute and day, then all agents' day");

/* A PostgreSQL array literal of the quota rules' windows, or of the amounts max when not
 * NULL: {a,b,c} */
static void quota_literal(char *out, size_t n, const int64_t *max)
{
    size_t o = 0;
    for (int k = 0; k < QUOTA_COUNT && o < n; k++)
        o += (size_t)snprintf(out + o, n - o, "%c%lld", k ? ',' : '{',
                              (long long)(max ? max[k] : quota_rules[k].window_us));
    if (o < n)
        snprintf(out + o, n - o, "}");
}

/* Reads element k (1-based) of a PostgreSQL bigint array literal, {1,2,NULL}: INT64_MIN for
 * NULL or when missing. */
static int64_t array_at(const char *a, int k)
{
    for (int i = 1; a && *a; i++) {
        a++; /* past '{' or ',' */
        if (i == k)
            return strncmp(a, "NULL", 4) == 0 || *a == '}' ? INT64_MIN : strtoll(a, NULL, 10);
        a = strchr(a, ',');
    }
    return INT64_MIN;
}

int leads_submit_server(struct store *s, const struct lead_row *l, const char *idem_key,
                        const char *fingerprint, int64_t retention, const int64_t *max,
                        struct lead_write_result *out)
{
    memset(out, 0, sizeof *out);
    if (!store_is_pg(s))
        return LEAD_WRITE_NO_SERVER_PATH;
    struct store_stmt *st = STORE_SELECT(
        s,
        "SELECT o_outcome, o_now, o_lead, o_counts, o_oldest, " STORE_MOVED_IF(
            "o_outcome IN (0, 1)") " FROM whistle_submit_lead(?, ?, ?, ?, ?, ?, ?, ?, ?,"
                                   " ?, ?, ?, CAST(? AS DOUBLE PRECISION), ?,"
                                   " CAST(? AS BIGINT[]), CAST(? AS BIGINT[]))",
        STORE_TEXT(l->account_id), STORE_TEXT(l->key_id), STORE_TEXT(idem_key),
        STORE_TEXT(fingerprint), STORE_INT(retention), STORE_TEXT(l->id), STORE_TEXT(l->game_id),
        STORE_TEXT(l->description), STORE_TEXT(l->source_urls_json), STORE_INT(l->period),
        STORE_TEXT(l->clock), STORE_TEXT(l->category));
    if (!st)
        return STORE_ERR;
    char windows[96], limits[96];
    quota_literal(windows, sizeof windows, NULL);
    quota_literal(limits, sizeof limits, max);
    bind_confidence(st, 13, l);
    store_bind_int(st, 14, l->created_at);
    store_bind_text(st, 15, windows);
    store_bind_text(st, 16, limits);
    int rc = store_step_write(st, false);
    int outcome = STORE_ERR;
    if (rc == STORE_ROW) {
        outcome = (int)store_col_int(st, 0);
        out->now = store_col_int(st, 1);
        store_col_copy(st, 2, out->lead_id, sizeof out->lead_id);
        for (int k = 0; k < QUOTA_COUNT; k++) {
            out->usage.count[k] = array_at(store_col_text(st, 3), k + 1);
            out->usage.oldest[k] = array_at(store_col_text(st, 4), k + 1);
            if (out->usage.count[k] == INT64_MIN)
                out->usage.count[k] = 0;
        }
    }
    store_reset(st);
    if (rc < 0)
        return rc;
    return outcome >= LEAD_WRITE_ACCEPTED && outcome <= LEAD_WRITE_CONFLICT ? outcome : STORE_ERR;
}

static int status_row(void *arg, struct store_stmt *st)
{
    struct lead_status *out = arg;
    out->created_at = store_col_int(st, 3);
    out->updated_at = store_col_int(st, 4);
    if (store_col_copy(st, 0, out->id, sizeof out->id) < 0 ||
        store_col_copy(st, 1, out->game_id, sizeof out->game_id) < 0 ||
        store_col_copy(st, 2, out->status, sizeof out->status) < 0 ||
        store_col_copy(st, 5, out->incident_id, sizeof out->incident_id) < 0 ||
        store_col_copy(st, 6, out->reason, sizeof out->reason) < 0)
        return STORE_ERR;
    return 0;
}

int leads_get(struct store *s, const char *id, const char *account_id, struct lead_status *out)
{
    return store_one(STORE_SELECT(s,
                                  "SELECT l.id, l.game_id, l.status, l.created_at, l.updated_at,"
                                  " CASE WHEN i.visibility = 'published' THEN i.id END, l.reason"
                                  " FROM leads l LEFT JOIN incidents i ON i.id = l.incident_id"
                                  " WHERE l.id = ? AND l.account_id = ?",
                                  STORE_TEXT(id), STORE_TEXT(account_id)),
                     status_row, out);
}
