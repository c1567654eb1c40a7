#include "store/accounts.h"

#include <stdio.h>
#include <string.h>

#define ACCOUNT_COLS "id, email, coalesce(password_hash, ''), email_verified, banned"

/* An account (a struct account_row) read from ACCOUNT_COLS (store_cols). */
#define ACCOUNT(kind, f) STORE_COL_##kind(struct account_row, f)
static const struct store_col account_cols[] = {
    ACCOUNT(CHARS, id),      ACCOUNT(CHARS, email), ACCOUNT(CHARS, password_hash),
    ACCOUNT(BOOL, verified), ACCOUNT(BOOL, banned), STORE_COL_END};
#undef ACCOUNT

static int account_by(struct store *s, const char *sql, const char *v, struct account_row *out)
{
    return STORE_ONE_COLS(s, account_cols, out, sql, STORE_TEXT(v));
}

int accounts_by_email(struct store *s, const char *email, struct account_row *out)
{
    return account_by(s, "SELECT " ACCOUNT_COLS " FROM accounts WHERE email = ?", email, out);
}

int accounts_by_id(struct store *s, const char *id, struct account_row *out)
{
    return account_by(s, "SELECT " ACCOUNT_COLS " FROM accounts WHERE id = ?", id, out);
}

int accounts_search(struct store *s, struct arena *a, const char *text, int64_t limit,
                    struct account_row **out, size_t *n)
{
    /* emails are stored lower-cased: the pattern is too, with % _ \\ escaped */
    char *like = NULL;
    if (text) {
        like = arena_alloc(a, strlen(text) * 2 + 3);
        size_t k = 0;
        like[k++] = '%';
        for (const char *p = text; *p; p++) {
            if (*p == '%' || *p == '_' || *p == '\\')
                like[k++] = '\\';
            like[k++] = (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
        }
        like[k++] = '%';
        like[k] = '\0';
    }
    struct store_stmt *st =
        STORE_SELECT(s,
                     "SELECT " ACCOUNT_COLS " FROM accounts WHERE CAST(? AS TEXT) IS NULL"
                     " OR email LIKE ? ESCAPE '\\' ORDER BY created_at DESC, id LIMIT ?",
                     STORE_TEXT(like), STORE_TEXT(like), STORE_INT(limit));
    if (!st)
        return STORE_ERR;
    struct account_row *v = arena_alloc(a, sizeof *v * (size_t)(limit > 0 ? limit : 1));
    size_t k = 0;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW && k < (size_t)limit) {
        store_cols(st, NULL, 0, account_cols, &v[k]);
        v[k++].password_hash[0] = '\0'; /* never leaves the store for a listing */
    }
    store_reset(st);
    *out = v;
    *n = k;
    return rc < 0 ? rc : 0;
}

int accounts_create(struct store *s, const char *id, const char *email, const char *pw_hash,
                    int64_t now)
{
    return STORE_RUN(
        s,
        "INSERT INTO accounts (id, email, email_verified, banned, password_hash,"
        " password_changed_at, created_at, updated_at) VALUES (?, ?, 0, 0, ?, ?, ?, ?)",
        STORE_TEXT(id), STORE_TEXT(email), STORE_TEXT(pw_hash), STORE_INT(now), STORE_INT(now),
        STORE_INT(now));
}

int accounts_set_password(struct store *s, const char *id, const char *pw_hash, int64_t now)
{
    return STORE_RUN(s,
                     "UPDATE accounts SET password_hash = ?, password_changed_at = ?,"
                     " updated_at = ? WHERE id = ?",
                     STORE_TEXT(pw_hash), STORE_INT(now), STORE_INT(now), STORE_TEXT(id));
}

int accounts_set_verified(struct store *s, const char *id, int64_t now)
{
    return STORE_RUN(
        s,
        "UPDATE accounts SET email_verified = 1, verified_at = coalesce(verified_at, ?),"
        " updated_at = ? WHERE id = ?",
        STORE_INT(now), STORE_INT(now), STORE_TEXT(id));
}

int accounts_set_email(struct store *s, const char *id, const char *email, int64_t now)
{
    return STORE_RUN(s, "UPDATE accounts SET email = ?, updated_at = ? WHERE id = ?",
                     STORE_TEXT(email), STORE_INT(now), STORE_TEXT(id));
}

int account_tokens_insert(struct store *s, bool insert, const char *hash, const char *account_id,
                          const char *purpose, int64_t now, int64_t expires)
{
    return STORE_RUN(
        s,
        "INSERT INTO account_tokens (token_hash, account_id, purpose, created_at, expires_at)"
        " SELECT ?, ?, ?, ?, ? WHERE ? = 1",
        STORE_TEXT(hash), STORE_TEXT(account_id), STORE_TEXT(purpose), STORE_INT(now),
        STORE_INT(expires), STORE_INT(insert));
}

/* A token (a struct account_token_row) read from account_id, expires_at, used_at. */
#define TOKEN(kind, f) STORE_COL_##kind(struct account_token_row, f)
static const struct store_col token_cols[] = {TOKEN(CHARS, account_id), TOKEN(INT, expires_at),
                                              TOKEN(INT, used_at), STORE_COL_END};
#undef TOKEN

int account_tokens_find(struct store *s, const char *hash, const char *purpose,
                        struct account_token_row *out)
{
    return STORE_ONE_COLS(s, token_cols, out,
                          "SELECT account_id, expires_at, used_at FROM account_tokens"
                          " WHERE token_hash = ? AND purpose = ?",
                          STORE_TEXT(hash), STORE_TEXT(purpose));
}

int account_tokens_use(struct store *s, const char *hash, int64_t now)
{
    /* the conditional update is the single-use guarantee: of two requests racing with
     * the same link, exactly one changes the row */
    return STORE_CHANGED(s,
                         "UPDATE account_tokens SET used_at = ?"
                         " WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?",
                         STORE_INT(now), STORE_TEXT(hash), STORE_INT(now));
}

int account_tokens_spend_all(struct store *s, const char *account_id, const char *purpose,
                             int64_t now)
{
    return STORE_RUN(s,
                     "UPDATE account_tokens SET used_at = ?"
                     " WHERE account_id = ? AND purpose = ? AND used_at IS NULL",
                     STORE_INT(now), STORE_TEXT(account_id), STORE_TEXT(purpose));
}

/* The tables of a hashed token of an account (token_hash, account_id, created_at, expires_at):
 * sessions and sign-in challenges, inserted by hashed_token_insert. */
enum hashed_token { HASHED_SESSION, HASHED_SIGNIN_CHALLENGE };

/* Inserts a hashed token of account_id made at now, valid until expires, into the table of
 * `kind`. 0 or a negative store_rc. */
static int hashed_token_insert(struct store *s, enum hashed_token kind, const char *hash,
                               const char *account_id, int64_t now, int64_t expires)
{
    static const char *const sql[] = {
        [HASHED_SESSION] = "INSERT INTO sessions (token_hash, account_id, created_at, expires_at)"
                           " VALUES (?, ?, ?, ?)",
        [HASHED_SIGNIN_CHALLENGE] = "INSERT INTO signin_challenges (token_hash, account_id,"
                                    " created_at, expires_at) VALUES (?, ?, ?, ?)",
    };
    return STORE_RUN(s, sql[kind], STORE_TEXT(hash), STORE_TEXT(account_id), STORE_INT(now),
                     STORE_INT(expires));
}

int sessions_insert(struct store *s, const char *hash, const char *account_id, int64_t now,
                    int64_t expires)
{
    return hashed_token_insert(s, HASHED_SESSION, hash, account_id, now, expires);
}

/* A session's columns after its account's: expires_at, last_seen_at, staff. */
#define SESSION(kind, f) STORE_COL_##kind(struct session_row, f)
static const struct store_col session_cols[] = {
    SESSION(INT, expires_at), SESSION(INT, last_seen_at), SESSION(BOOL, staff), STORE_COL_END};
#undef SESSION

/* store_one's reader of a session (a struct session_row but its hash): its account from
 * ACCOUNT_COLS' columns, then session_cols. */
static int session_row(void *out, struct store_stmt *st)
{
    struct session_row *r = out;
    store_cols(st, NULL, store_cols(st, NULL, 0, account_cols, &r->account), session_cols, r);
    return 0;
}

int sessions_find(struct store *s, const char *hash, int64_t now, struct session_row *out)
{
    struct store_stmt *st = STORE_SELECT(
        s,
        "SELECT a.id, a.email, coalesce(a.password_hash, ''), a.email_verified, a.banned,"
        " x.expires_at, coalesce(x.last_seen_at, x.created_at),"
        " CASE WHEN EXISTS (SELECT 1 FROM account_roles r WHERE r.account_id = a.id)"
        " THEN 1 ELSE 0 END"
        " FROM sessions x JOIN accounts a ON a.id = x.account_id"
        " WHERE x.token_hash = ? AND x.revoked_at IS NULL AND x.expires_at > ?",
        STORE_TEXT(hash), STORE_INT(now));
    int rc = store_one(st, session_row, out);
    if (rc == 1)
        snprintf(out->hash, sizeof out->hash, "%s", hash);
    return rc;
}

int sessions_touch(struct store *s, const char *hash, int64_t now)
{
    return STORE_RUN(s,
                     "UPDATE sessions SET last_seen_at = ? WHERE token_hash = ?"
                     " AND (last_seen_at IS NULL OR last_seen_at < ?)",
                     STORE_INT(now), STORE_TEXT(hash), STORE_INT(now));
}

int sessions_revoke(struct store *s, const char *hash, int64_t now)
{
    return STORE_RUN(
        s, "UPDATE sessions SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL",
        STORE_INT(now), STORE_TEXT(hash));
}

int sessions_revoke_all(struct store *s, const char *account_id, const char *keep_hash, int64_t now)
{
    return STORE_RUN(s,
                     "UPDATE sessions SET revoked_at = ? WHERE account_id = ?"
                     " AND revoked_at IS NULL AND token_hash <> ?",
                     STORE_INT(now), STORE_TEXT(account_id),
                     STORE_TEXT(keep_hash ? keep_hash : ""));
}

int accounts_active_keys(struct store *s, const char *account_id, int64_t now, int64_t *count)
{
    return STORE_COUNT(s, count,
                       "SELECT count(*) FROM agent_keys WHERE account_id = ?"
                       " AND revoked_at IS NULL AND expires_at > ?",
                       STORE_TEXT(account_id), STORE_INT(now));
}

int accounts_key_revoke(struct store *s, const char *account_id, const char *key_id, int64_t now)
{
    int rc = STORE_EXISTS(s, "SELECT 1 FROM agent_keys WHERE id = ? AND account_id = ?",
                          STORE_TEXT(key_id), STORE_TEXT(account_id));
    if (rc != 1)
        return rc;
    return agents_key_revoke(s, key_id, now);
}

int outbox_enqueue(struct store *s, bool insert, const char *recipient, const char *subject,
                   const char *body, int64_t now)
{
    return STORE_INSERT(
        s,
        "INSERT INTO outbox (id, recipient, subject, body, created_at, next_attempt_at)"
        " SELECT ?, ?, ?, ?, ?, ? WHERE ? = 1",
        STORE_TEXT(recipient), STORE_TEXT(subject), STORE_TEXT(body), STORE_INT(now),
        STORE_INT(now), STORE_INT(insert));
}

int outbox_recent(struct store *s, const char *recipient, int64_t since, int64_t *count)
{
    return STORE_COUNT(s, count,
                       "SELECT count(*) FROM outbox WHERE recipient = ? AND created_at > ?",
                       STORE_TEXT(recipient), STORE_INT(since));
}

int outbox_claim(struct store *s, struct arena *a, int64_t now, int64_t lease_us,
                 struct outbox_msg *out)
{
#define PICK(lock)                                                                                 \
    "SELECT id FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL"                            \
    " AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)"                  \
    " ORDER BY next_attempt_at, id LIMIT 1" lock
    /* Driver-specific like research_claim: on PostgreSQL the message is row-locked as it is
     * picked and messages another worker's claim holds are skipped (FOR UPDATE SKIP LOCKED),
     * so claims in row writes never pick the same message; SQLite's write transaction
     * serializes them. The UPDATE below re-checks the lease either way. */
    bool pg = store_is_pg(s);
    int rc =
        STORE_ONE_TEXT(s, out->id, sizeof out->id, pg ? PICK(" FOR UPDATE SKIP LOCKED") : PICK(""),
                       STORE_INT(now), STORE_INT(now));
#undef PICK
    if (rc != 1)
        return rc;
    /* the claim re-checks the lease, so two workers never both take one message */
    struct store_stmt *st =
        STORE_SELECT(s,
                     "UPDATE outbox SET claimed_until = ?, attempts = attempts + 1"
                     " WHERE id = ? AND sent_at IS NULL AND failed_at IS NULL"
                     " AND (claimed_until IS NULL OR claimed_until <= ?)"
                     " RETURNING recipient, subject, body, attempts",
                     STORE_INT(now + lease_us), STORE_TEXT(out->id), STORE_INT(now));
    if (!st)
        return STORE_ERR;
    rc = store_step(st);
    if (rc == STORE_ROW) {
        out->recipient = arena_strdup(a, store_col_text(st, 0));
        out->subject = arena_strdup(a, store_col_text(st, 1));
        out->body = arena_strdup(a, store_col_text(st, 2));
        out->attempts = (int)store_col_int(st, 3);
    }
    store_reset(st);
    return rc < 0 ? rc : rc == STORE_ROW;
}

int outbox_sent(struct store *s, const char *id, int64_t now)
{
    return STORE_RUN(
        s,
        "UPDATE outbox SET sent_at = ?, body = '', claimed_until = NULL, last_error = NULL"
        " WHERE id = ?",
        STORE_INT(now), STORE_TEXT(id));
}

int outbox_failed(struct store *s, const char *id, int64_t now, int64_t retry_at, const char *error)
{
    bool failed = retry_at == INT64_MIN;
    return STORE_RUN(s,
                     failed ? "UPDATE outbox SET failed_at = ?, body = '', claimed_until = NULL,"
                              " last_error = ? WHERE id = ?"
                            : "UPDATE outbox SET next_attempt_at = ?, claimed_until = NULL,"
                              " last_error = ? WHERE id = ?",
                     STORE_INT(failed ? now : retry_at), STORE_TEXT(error), STORE_TEXT(id));
}

/* ---- password-reset requests ---- */

int reset_requests_insert(struct store *s, const char *id, const char *email, int64_t now)
{
    return STORE_RUN(s, "INSERT INTO reset_requests (id, email, created_at) VALUES (?, ?, ?)",
                     STORE_TEXT(id), STORE_TEXT(email), STORE_INT(now));
}

/* A request (a struct reset_request_row) read from id, email, created_at. */
#define RESET(kind, f) STORE_COL_##kind(struct reset_request_row, f)
static const struct store_col reset_request_cols[] = {RESET(CHARS, id), RESET(CHARS, email),
                                                      RESET(INT, created_at), STORE_COL_END};
#undef RESET

int reset_requests_oldest(struct store *s, struct reset_request_row *out)
{
    return store_one_cols(store_prepare(s, "SELECT id, email, created_at FROM reset_requests"
                                           " ORDER BY created_at, id LIMIT 1"),
                          reset_request_cols, out);
}

int reset_requests_take(struct store *s, const char *id)
{
    /* the delete is the claim: of two workers taking one request, exactly one deletes it */
    int rc = STORE_RUN(s, "DELETE FROM reset_requests WHERE id = ?", STORE_TEXT(id));
    return rc < 0 ? rc : store_changes(s) == 1;
}

int reset_requests_prune(struct store *s, int64_t before)
{
    return STORE_RUN(s, "DELETE FROM reset_requests WHERE created_at <= ?", STORE_INT(before));
}

int accounts_prune(struct store *s, int64_t before)
{
    static const char *const sql[] = {
        "DELETE FROM sessions WHERE expires_at <= ? OR revoked_at <= ?",
        "DELETE FROM account_tokens WHERE expires_at <= ? OR used_at <= ?",
        "DELETE FROM outbox WHERE sent_at <= ? OR failed_at <= ?",
        "DELETE FROM signin_challenges WHERE expires_at <= ? OR used_at <= ?",
    };
    for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++)
        STORE_TRY(STORE_RUN(s, sql[i], STORE_INT(before), STORE_INT(before)));
    return 0;
}

/* ---- TOTP two-factor ---- */

/* A secret (a struct totp_row) read from secret, enabled, last_step. */
#define TOTP(kind, f) STORE_COL_##kind(struct totp_row, f)
static const struct store_col totp_cols[] = {TOTP(CHARS, secret_hex), TOTP(BOOL, enabled),
                                             TOTP(INT, last_step), STORE_COL_END};
#undef TOTP

int totp_get(struct store *s, const char *account_id, struct totp_row *out)
{
    return STORE_ONE_COLS(s, totp_cols, out,
                          "SELECT secret, enabled, coalesce(last_step, -1) FROM account_totp"
                          " WHERE account_id = ?",
                          STORE_TEXT(account_id));
}

int totp_put_pending(struct store *s, const char *account_id, const char *secret_hex, int64_t now)
{
    return STORE_RUN(
        s,
        "INSERT INTO account_totp (account_id, secret, enabled, created_at) VALUES (?, ?, 0, ?)"
        " ON CONFLICT (account_id) DO UPDATE SET secret = excluded.secret, enabled = 0,"
        " created_at = excluded.created_at, last_step = NULL",
        STORE_TEXT(account_id), STORE_TEXT(secret_hex), STORE_INT(now));
}

int totp_enable(struct store *s, const char *account_id, int64_t step)
{
    return STORE_CHANGED(s,
                         "UPDATE account_totp SET enabled = 1, last_step = ? WHERE account_id = ?"
                         " AND enabled = 0",
                         STORE_INT(step), STORE_TEXT(account_id));
}

int totp_use_step(struct store *s, const char *account_id, int64_t step)
{
    return STORE_CHANGED(
        s,
        "UPDATE account_totp SET last_step = ? WHERE account_id = ? AND enabled = 1"
        " AND (last_step IS NULL OR last_step < ?)",
        STORE_INT(step), STORE_TEXT(account_id), STORE_INT(step));
}

int totp_delete(struct store *s, const char *account_id)
{
    return STORE_CHANGED(s, "DELETE FROM account_totp WHERE account_id = ?",
                         STORE_TEXT(account_id));
}

int signin_challenge_insert(struct store *s, const char *hash, const char *account_id, int64_t now,
                            int64_t expires)
{
    return hashed_token_insert(s, HASHED_SIGNIN_CHALLENGE, hash, account_id, now, expires);
}

int signin_challenge_find(struct store *s, const char *hash, int64_t now, char account_id[ID_LEN])
{
    return STORE_ONE_TEXT(s, account_id, ID_LEN,
                          "SELECT account_id FROM signin_challenges WHERE"
                          " token_hash = ? AND used_at IS NULL AND expires_at > ?",
                          STORE_TEXT(hash), STORE_INT(now));
}

int signin_challenge_use(struct store *s, const char *hash, int64_t now)
{
    return STORE_CHANGED(
        s, "UPDATE signin_challenges SET used_at = ? WHERE token_hash = ? AND used_at IS NULL",
        STORE_INT(now), STORE_TEXT(hash));
}
