/*
 * Browser accounts (app/accounts.h; docs/accounts.md): sign-up with email verification,
 * sign-in and sign-out, password reset and change, bans. Sessions are random tokens in a
 * signed cookie, stored hashed; every answer that could tell whether an email address is
 * registered reads the same either way; email goes out through the outbox (app/mail.c).
 */
#include "app/accounts.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "app/comments.h"
#include "app/editorial.h"
#include "app/mail.h"
#include "domain/comment.h"
#include "domain/voter.h"
#include "store/comments.h"
#include "util/log.h"

#define SUBJECT_MAX 80

void account_result_wipe(struct account_result *r)
{
    sodium_memzero(r->cookie, sizeof r->cookie);
    sodium_memzero(r->challenge, sizeof r->challenge);
}

static void result_init(struct account_result *r)
{
    memset(r, 0, sizeof *r);
}

/* The address typed, normalized into r->email; -1 (and "") when it is not an address. */
static int take_email(struct account_result *r, const char *email)
{
    if (account_email_normalize(email, r->email) == 0)
        return 0;
    r->email[0] = '\0';
    return -1;
}

/* A rate-limit subject: "<kind>:" and the keyed hash of value (never the value itself). */
static void subject_of(const char *kind, const char *hash_kind, const char *value,
                       char out[SUBJECT_MAX])
{
    char h[VOTER_HASH_LEN + 1];
    voter_hash(hash_kind, value ? value : "", h);
    snprintf(out, SUBJECT_MAX, "%s:%s", kind, h);
}

/* A per-address subject: "<kind>:" and the client address's hash (app_address_hash: an
 * IPv6 address counts per /64). */
static void address_subject(const char *kind, const char *client_addr, char out[SUBJECT_MAX])
{
    char h[VOTER_HASH_LEN + 1];
    app_address_hash(client_addr, h);
    snprintf(out, SUBJECT_MAX, "%s:%s", kind, h);
}

/* ---- emailed links ---------------------------------------------------------------- */

static const char *link_purpose(enum account_link_kind kind)
{
    return kind == ACCOUNT_LINK_VERIFY ? "verify" : "reset";
}

/* Creates a single-use link for the account and mails it (mail kind says which message;
 * a verification link lasts 24 hours, the others are reset links of 1 hour), at c->now. In
 * the caller's transaction: 0 or a negative store_rc. */
static int send_link(const struct app_ctx *c, enum app_mail_kind mail, const char *account_id,
                     const char *email, const char *base_url)
{
    bool verify = mail == APP_MAIL_VERIFY;
    char token[ACCOUNT_TOKEN_LEN + 1], hash[ACCOUNT_TOKEN_HASH_HEX + 1];
    account_token_new(token, hash);
    int rc =
        account_tokens_insert(c->s, true, hash, account_id, verify ? "verify" : "reset", c->now,
                              c->now + (verify ? ACCOUNT_VERIFY_TTL_US : ACCOUNT_RESET_TTL_US));
    if (rc >= 0)
        rc = app_mail_link(c->s, true, mail, email, base_url, token, c->now);
    sodium_memzero(token, sizeof token);
    return rc;
}

/* Looks a link's token up (read only): ACCOUNT_OK with *t and its storage hash, a link
 * outcome, or a negative store_rc. */
static int link_state(const struct app_ctx *c, enum account_link_kind kind, const char *token,
                      struct account_token_row *t, char hash[ACCOUNT_TOKEN_HASH_HEX + 1])
{
    int rc = account_token_hash(token, hash) < 0
                 ? 0
                 : account_tokens_find(c->s, hash, link_purpose(kind), t);
    if (rc <= 0)
        return rc < 0 ? rc : ACCOUNT_LINK_UNKNOWN;
    switch (account_token_state(c->now, t->expires_at, t->used_at)) {
    case ACCOUNT_TOKEN_USED:
        return ACCOUNT_LINK_USED;
    case ACCOUNT_TOKEN_EXPIRED:
        return ACCOUNT_LINK_EXPIRED;
    default:
        return ACCOUNT_OK;
    }
}

enum account_outcome account_link_check(const struct app_ctx *c, enum account_link_kind kind,
                                        const char *token)
{
    struct account_token_row t;
    char hash[ACCOUNT_TOKEN_HASH_HEX + 1];
    int rc = link_state(c, kind, token, &t, hash);
    return rc < 0 ? app_unavailable(c, "accounts", rc, "link check") : rc;
}

/* ---- sign-up and reset requests ----------------------------------------------------- */

/* Sign-ups and password-reset requests cost an argon2id hash or an email each: at most
 * limits->mail_forms_per_ip per client address per hour, counted whether or not the address
 * typed has an account (so the limit tells nothing). 0 allowed (subject is the event to
 * record with the request's writes), 1 limited (*retry_s), or a negative store_rc. */
static int mail_form_limited(const struct app_ctx *c, const struct whistle_limits *limits,
                             const char *client_addr, char subject[SUBJECT_MAX], int64_t *retry_s)
{
    address_subject("mailform-ip", client_addr, subject);
    return app_rate_limited(c->s, subject, limits->mail_forms_per_ip, ACCOUNT_MAIL_FORM_WINDOW_US,
                            c->now, retry_s);
}

/* Every store call an account write makes under its locks, with placeholder arguments, for
 * store_prepare_ahead (app.h): no statement is prepared while a key is held. Nothing
 * executes; lookups find nothing. arg is the write's struct app_ctx. */
static int account_statements(struct store *s, void *arg)
{
    static const char none[] = APP_PLACEHOLDER_ID, mail[] = "none@none.invalid";
    struct app_ctx c = *(const struct app_ctx *)arg;
    c.s = s;
    struct account_row a;
    struct account_token_row t;
    char id[ID_LEN];
    bool banned;
    int rc = app_rate_record(s, none, ACCOUNT_MAIL_FORM_WINDOW_US, 0);
    if (rc >= 0)
        rc = accounts_by_email(s, mail, &a);
    if (rc >= 0)
        rc = accounts_by_id(s, none, &a);
    if (rc >= 0)
        rc = accounts_by_display_key(s, none, id, &banned);
    if (rc >= 0)
        rc = accounts_create(s, none, mail, none, 0);
    if (rc >= 0)
        rc = send_link(&c, APP_MAIL_VERIFY, none, mail, "http://none.invalid");
    if (rc >= 0)
        rc = account_tokens_find(s, none, "reset", &t);
    if (rc >= 0)
        rc = account_tokens_use(s, none, 0);
    if (rc >= 0)
        rc = account_tokens_spend_all(s, none, "reset", 0);
    if (rc >= 0)
        rc = accounts_set_verified(s, none, 0);
    if (rc >= 0)
        rc = accounts_set_password(s, none, none, 0);
    if (rc >= 0)
        rc = accounts_set_email(s, none, mail, 0);
    if (rc >= 0)
        rc = sessions_revoke(s, none, 0);
    if (rc >= 0)
        rc = sessions_revoke_all(s, none, NULL, 0);
    if (rc >= 0)
        rc = sessions_insert(s, none, none, 0, 0);
    if (rc >= 0)
        rc = agents_account_set_banned(s, mail, false, 0);
    if (rc >= 0)
        rc = app_audit(&c, none, none, none, NULL, NULL, NULL);
    return rc < 0 ? rc : 0;
}

/* Begins an account write (PostgreSQL write rule, app.h): its statements prepared first,
 * then a row write holding the keys its rule reads then writes ("account:<id>",
 * "email:<address>", a rate-limit subject), never the deployment's write lock. */
static int account_begin(const struct app_ctx *c, const char *const *keys, size_t n)
{
    return app_begin_locked(c->s, account_statements, (void *)c, keys, n);
}

static const char *account_key(const struct app_ctx *c, const char *account_id)
{
    return arena_printf(c->a, "account:%s", account_id);
}

/* Opens the write transaction of an accepted mail form: the client's event is recorded and
 * the address looked up, under the keys of the address (one account per address: a sign-up
 * creates it only while holding it) and of the client's window. 1 with its account in *a,
 * 0 when it has none, or a negative store_rc. */
static int mail_form_begin(const struct app_ctx *c, const char *subject, const char *email,
                           struct account_row *a)
{
    const char *keys[] = {arena_printf(c->a, "email:%s", email), subject};
    int rc = account_begin(c, keys, 2);
    if (rc >= 0)
        rc = app_rate_record(c->s, subject, ACCOUNT_MAIL_FORM_WINDOW_US, c->now);
    return rc < 0 ? rc : accounts_by_email(c->s, email, a);
}

enum account_outcome account_signup(const struct app_ctx *c, const struct whistle_limits *limits,
                                    const char *base_url, const char *email, const char *password,
                                    const char *client_addr, struct account_result *out)
{
    char subject[SUBJECT_MAX], pw_hash[ACCOUNT_PASSWORD_HASH_MAX];
    result_init(out);
    if (take_email(out, email) < 0)
        return ACCOUNT_BAD_EMAIL;
    out->problem = password ? account_password_problem(password, out->email) : "enter a password";
    if (out->problem)
        return ACCOUNT_BAD_PASSWORD;
    int rc = mail_form_limited(c, limits, client_addr, subject, &out->retry_s);
    if (rc != 0)
        return rc < 0 ? app_unavailable(c, "accounts", rc, "sign-up") : ACCOUNT_LIMITED;
    /* the hash is computed whether or not the address is taken: both answers take as long */
    if (account_password_hash(password, limits, pw_hash) < 0)
        return app_unavailable(c, "accounts", STORE_ERR, "sign-up: password hash");
    struct account_row a;
    rc = mail_form_begin(c, subject, out->email, &a);
    if (rc == 1) {
        /* the address has an account: tell its owner (who may have forgotten) */
        rc = send_link(c, APP_MAIL_ALREADY_REGISTERED, a.id, a.email, base_url);
    } else if (rc == 0) {
        char id[UUID_STR_LEN + 1];
        uuid_v4(id);
        rc = accounts_create(c->s, id, out->email, pw_hash, c->now);
        if (rc >= 0)
            rc = send_link(c, APP_MAIL_VERIFY, id, out->email, base_url);
    }
    if (rc >= 0)
        rc = store_commit(c->s);
    sodium_memzero(pw_hash, sizeof pw_hash);
    /* STORE_CONSTRAINT: a concurrent sign-up created the account (and sent its email) a
     * moment ago: the answer is the same as ever */
    if (rc == STORE_CONSTRAINT) {
        store_rollback(c->s);
        rc = 0;
    }
    return rc < 0 ? app_unavailable(c, "accounts", rc, "sign-up") : ACCOUNT_OK;
}

/* Every store call a reset request makes under its client address's lock, with
 * placeholder arguments, for store_prepare_ahead (no statement prepared under a lock,
 * app.h). Nothing executes. */
static int forgot_statements(struct store *s, void *arg)
{
    (void)arg;
    int64_t v;
    int rc = app_rate_limited(s, "", 1, ACCOUNT_MAIL_FORM_WINDOW_US, 0, &v);
    if (rc >= 0)
        rc = app_rate_record(s, "", ACCOUNT_MAIL_FORM_WINDOW_US, 0);
    if (rc >= 0)
        rc = reset_requests_insert(s, "", "", 0);
    return rc < 0 ? rc : 0;
}

/* The request half (issue 14 item 8): the same statements, one row of the same shape and
 * the same crypto (a random id) for every address, registered or not, banned or capped; no
 * account is looked up. PostgreSQL write rule: a row write under the lock of the client
 * address's window only (the window is read, checked and moved under it). */
enum account_outcome account_forgot(const struct app_ctx *c, const struct whistle_limits *limits,
                                    const char *email, const char *client_addr,
                                    struct account_result *out)
{
    char subject[SUBJECT_MAX], id[UUID_STR_LEN + 1];
    result_init(out);
    if (take_email(out, email) < 0)
        return ACCOUNT_BAD_EMAIL;
    /* a refusal first without any lock (a flood past the limit costs one read each) */
    int rc = mail_form_limited(c, limits, client_addr, subject, &out->retry_s);
    if (rc != 0)
        return rc < 0 ? app_unavailable(c, "accounts", rc, "reset request") : ACCOUNT_LIMITED;
    uuid_v4(id);
    store_prepare_ahead(c->s, forgot_statements, NULL);
    rc = store_begin_row_write(c->s);
    if (rc >= 0)
        rc = store_lock_key(c->s, subject);
    if (rc >= 0) /* again under the lock: two requests racing for the last place */
        rc = app_rate_limited(c->s, subject, limits->mail_forms_per_ip, ACCOUNT_MAIL_FORM_WINDOW_US,
                              c->now, &out->retry_s);
    if (rc == 1) {
        store_rollback(c->s);
        return ACCOUNT_LIMITED;
    }
    if (rc >= 0)
        rc = app_rate_record(c->s, subject, ACCOUNT_MAIL_FORM_WINDOW_US, c->now);
    if (rc >= 0)
        rc = reset_requests_insert(c->s, id, out->email, c->now);
    return app_commit(c, "accounts", rc, "reset request") < 0 ? APP_UNAVAILABLE : ACCOUNT_OK;
}

/* Every store call account_forgot_process makes under the recipient's lock, with
 * placeholder arguments, for store_prepare_ahead. Nothing executes; lookups find nothing. */
static int forgot_process_statements(struct store *s, void *arg)
{
    (void)arg;
    struct reset_request_row q;
    struct account_row a;
    int rc = reset_requests_oldest(s, &q);
    if (rc >= 0)
        rc = reset_requests_take(s, "");
    if (rc >= 0)
        rc = accounts_by_email(s, "", &a);
    if (rc >= 0)
        rc = account_tokens_insert(s, true, "", "", "reset", 0, 0);
    if (rc >= 0)
        rc = app_mail_link(s, false, APP_MAIL_RESET, "", "", "", 0);
    return rc < 0 ? rc : 0;
}

/* The worker half: the request's work as account_forgot did it before issue 14 item 8,
 * at the request's time (the link lasts 1 hour from the request, the per-recipient cap
 * counts the hour before it). PostgreSQL write rule: a row write under the recipient's
 * lock ("mail-to:<address>": two workers never both pass the hourly cap of one address);
 * the delete of the request row is the claim. */
int account_forgot_process(const struct app_ctx *c, const char *base_url)
{
    struct reset_request_row q;
    struct account_row a;
    char key[SUBJECT_MAX + 256];
    /* a look first, in a read: an idle lane polls without taking any write lock */
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = reset_requests_oldest(c->s, &q);
    store_rollback(c->s);
    if (rc <= 0)
        goto out;
    snprintf(key, sizeof key, "mail-to:%s", q.email);
    store_prepare_ahead(c->s, forgot_process_statements, NULL);
    rc = store_begin_row_write(c->s);
    if (rc >= 0)
        rc = store_lock_key(c->s, key);
    if (rc >= 0) /* 0: another worker took it first; the next pass takes the next one */
        rc = reset_requests_take(c->s, q.id);
    bool mail = false;
    if (rc == 1 && c->now - q.created_at < ACCOUNT_RESET_TTL_US) {
        rc = accounts_by_email(c->s, q.email, &a);
        mail = rc == 1 && !a.banned;
    }
    if (mail) {
        struct app_ctx then = *c;
        then.now = q.created_at;
        rc = send_link(&then, APP_MAIL_RESET, a.id, a.email, base_url);
    }
    if (rc >= 0)
        rc = store_commit(c->s);
    if (rc >= 0)
        return 1;
out:
    if (rc < 0) {
        store_rollback(c->s);
        log_warn("accounts", "reset request: store failure %d", rc);
    }
    return rc;
}

/* ---- verification ----------------------------------------------------------------- */

enum account_outcome account_verify(const struct app_ctx *c, const char *token)
{
    struct account_token_row t;
    char hash[ACCOUNT_TOKEN_HASH_HEX + 1];
    int result = ACCOUNT_OK;
    /* single use: the conditional update of the token row (account_tokens_use) */
    int rc = account_begin(c, NULL, 0);
    if (rc >= 0)
        rc = link_state(c, ACCOUNT_LINK_VERIFY, token, &t, hash);
    if (rc > 0) { /* a link outcome */
        result = rc;
        goto refused;
    }
    if (rc == 0)
        rc = account_tokens_use(c->s, hash, c->now);
    if (rc == 0) { /* another request used it a moment ago */
        result = ACCOUNT_LINK_TAKEN;
        goto refused;
    }
    if (rc == 1)
        rc = accounts_set_verified(c->s, t.account_id, c->now);
    return app_commit(c, "accounts", rc, "verify") < 0 ? APP_UNAVAILABLE : ACCOUNT_OK;
refused:
    store_rollback(c->s);
    return result;
}

enum account_outcome account_resend_verification(const struct app_ctx *c, const char *base_url,
                                                 const struct account_row *a)
{
    if (a->verified)
        return ACCOUNT_VERIFIED;
    int rc = account_begin(c, NULL, 0);
    if (rc >= 0)
        rc = send_link(c, APP_MAIL_VERIFY, a->id, a->email, base_url);
    return app_commit(c, "accounts", rc, "resend verification") < 0 ? APP_UNAVAILABLE : ACCOUNT_OK;
}

/* ---- sign-in, sessions, passwords --------------------------------------------------- */

/* Failed sign-ins are limited per (email address, client address) pair and per client
 * address, over a rolling window (issue 14, item 2). The pair: an attacker elsewhere who
 * types a victim's address fills only their own pair's window, never the victim's, so they
 * cannot lock the victim out; the same attacker trying many accounts from one address meets
 * the per-address window. The email counts whether or not it is registered (the limit tells
 * nothing). The windows share the ballot limits' table (rate_windows, domain/ratelimit.h)
 * under subjects of their own. */
struct signin_subjects {
    char email[SUBJECT_MAX], ip[SUBJECT_MAX];
};

static void signin_subjects(const char *email, const char *client_addr, struct signin_subjects *j)
{
    char addr[VOTER_HASH_LEN + 1], pair[512];
    app_address_hash(client_addr, addr);
    snprintf(pair, sizeof pair, "%s\n%s", email ? email : "", addr);
    subject_of("signin-pair", "signin-email", pair, j->email);
    address_subject("signin-ip", client_addr, j->ip);
}

/* 1 when either subject is at its limit (*retry_s), 0, or a negative store_rc. */
static int signin_limited(const struct app_ctx *c, const struct whistle_limits *limits,
                          const struct signin_subjects *j, int64_t *retry_s)
{
    int rc = app_rate_limited(c->s, j->email, limits->signin_per_account, ACCOUNT_SIGNIN_WINDOW_US,
                              c->now, retry_s);
    if (rc != 0)
        return rc;
    return app_rate_limited(c->s, j->ip, limits->signin_per_ip, ACCOUNT_SIGNIN_WINDOW_US, c->now,
                            retry_s);
}

/* Records a failed sign-in against both subjects, in a transaction of its own. */
static int signin_failed(const struct app_ctx *c, const struct signin_subjects *j)
{
    const char *keys[] = {j->email, j->ip};
    int rc = account_begin(c, keys, 2);
    if (rc >= 0)
        rc = app_rate_record(c->s, j->email, ACCOUNT_SIGNIN_WINDOW_US, c->now);
    if (rc >= 0)
        rc = app_rate_record(c->s, j->ip, ACCOUNT_SIGNIN_WINDOW_US, c->now);
    return app_commit(c, "accounts", rc, "failed sign-in") < 0 ? APP_UNAVAILABLE
                                                               : ACCOUNT_WRONG_PASSWORD;
}

/* A new session for account_id in the caller's write transaction (out->cookie); one this
 * browser already had ends (a session is never carried over, whoever it belonged to). */
static int session_open(const struct app_ctx *c, const char *account_id, const char *old_cookie,
                        struct account_result *out)
{
    char hash[ACCOUNT_TOKEN_HASH_HEX + 1], old[ACCOUNT_TOKEN_HASH_HEX + 1];
    bool had = account_session_check(old_cookie, old);
    account_session_new(out->cookie, hash);
    int rc = had ? sessions_revoke(c->s, old, c->now) : 0;
    if (rc >= 0)
        rc = sessions_insert(c->s, hash, account_id, c->now, c->now + ACCOUNT_SESSION_TTL_US);
    return rc;
}

enum account_outcome account_signin(const struct app_ctx *c, const struct whistle_limits *limits,
                                    const char *email, const char *password,
                                    const char *client_addr, const char *old_cookie,
                                    struct account_result *out)
{
    struct signin_subjects j;
    result_init(out);
    if (take_email(out, email) < 0 || !password || !password[0])
        return ACCOUNT_MISSING;
    signin_subjects(out->email, client_addr, &j);
    int rc = signin_limited(c, limits, &j, &out->retry_s);
    if (rc != 0)
        return rc < 0 ? app_unavailable(c, "accounts", rc, "sign-in") : ACCOUNT_LIMITED;
    struct account_row a;
    rc = accounts_by_email(c->s, out->email, &a);
    if (rc < 0)
        return app_unavailable(c, "accounts", rc, "sign-in");
    /* a missing account or password costs one argon2id verification too */
    bool ok;
    if (rc == 1 && a.password_hash[0]) {
        ok = account_password_verify(a.password_hash, password);
    } else {
        account_password_dummy_verify(password, limits);
        ok = false;
    }
    if (!ok)
        return signin_failed(c, &j);
    if (a.banned)
        return ACCOUNT_SUSPENDED;
    /* two-factor on: no session yet, a challenge that the code form carries */
    struct totp_row t;
    rc = totp_get(c->s, a.id, &t);
    if (rc < 0)
        return app_unavailable(c, "accounts", rc, "sign-in");
    if (rc == 1 && t.enabled) {
        char ch[ACCOUNT_TOKEN_HASH_HEX + 1];
        account_token_new(out->challenge, ch);
        rc = store_begin_row_write(c->s);
        if (rc >= 0)
            rc = signin_challenge_insert(c->s, ch, a.id, c->now, c->now + ACCOUNT_CHALLENGE_TTL_US);
        rc = app_commit(c, "accounts", rc, "sign-in challenge");
        if (rc < 0) {
            sodium_memzero(out->challenge, sizeof out->challenge);
            return rc;
        }
        return ACCOUNT_CODE_NEEDED;
    }
    rc = account_begin(c, NULL, 0); /* new rows only: a session of its own */
    if (rc >= 0)
        rc = session_open(c, a.id, old_cookie, out);
    rc = app_commit(c, "accounts", rc, "sign-in");
    if (rc < 0) {
        account_result_wipe(out);
        return rc;
    }
    return ACCOUNT_OK;
}

enum account_outcome account_signout(const struct app_ctx *c, const char *session_hash)
{
    int rc = account_begin(c, NULL, 0);
    if (rc >= 0)
        rc = sessions_revoke(c->s, session_hash, c->now);
    return app_commit(c, "accounts", rc, "sign-out") < 0 ? APP_UNAVAILABLE : ACCOUNT_OK;
}

int account_session(const struct app_ctx *c, const char *cookie, int64_t staff_idle_us,
                    struct session_row *out)
{
    char hash[ACCOUNT_TOKEN_HASH_HEX + 1];
    if (!account_session_check(cookie, hash))
        return 0;
    int rc = sessions_find(c->s, hash, c->now, out);
    if (rc <= 0)
        return rc < 0 ? app_unavailable(c, "accounts", rc, "session") : 0;
    bool ended = account_session_idle_ended(c->now, out->last_seen_at, out->staff, staff_idle_us);
    if (!ended && !account_session_touch_due(c->now, out->last_seen_at, out->staff, staff_idle_us))
        return 1;
    /* a row write (ARCHITECTURE.md "Storage rules"): the session's own row, one statement */
    rc = store_begin_row_write(c->s);
    if (rc >= 0)
        rc = ended ? sessions_revoke(c->s, hash, c->now) : sessions_touch(c->s, hash, c->now);
    if (rc >= 0)
        rc = store_commit(c->s);
    if (rc < 0)
        return app_unavailable(c, "accounts", rc, ended ? "idle session" : "session touch");
    if (!ended)
        out->last_seen_at = c->now;
    return ended ? 0 : 1;
}

enum account_outcome account_reset(const struct app_ctx *c, const struct whistle_limits *limits,
                                   const char *token, const char *password,
                                   struct account_result *out)
{
    struct account_token_row t;
    struct account_row a;
    char hash[ACCOUNT_TOKEN_HASH_HEX + 1], pw_hash[ACCOUNT_PASSWORD_HASH_MAX];
    result_init(out);
    int rc = link_state(c, ACCOUNT_LINK_RESET, token, &t, hash);
    if (rc == ACCOUNT_OK) {
        rc = accounts_by_id(c->s, t.account_id, &a);
        rc = rc == 1 ? ACCOUNT_OK : rc == 0 ? ACCOUNT_LINK_UNKNOWN : rc;
    }
    if (rc != ACCOUNT_OK)
        return rc < 0 ? app_unavailable(c, "accounts", rc, "reset") : rc;
    out->problem = password ? account_password_problem(password, a.email) : "enter a new password";
    if (out->problem)
        return ACCOUNT_BAD_PASSWORD;
    if (account_password_hash(password, limits, pw_hash) < 0)
        return app_unavailable(c, "accounts", STORE_ERR, "reset: password hash");
    /* one transaction: the link is spent, the password set, the address counts as verified
     * (the link proved the mailbox) and every session of the account ends */
    int result = ACCOUNT_OK;
    const char *key = account_key(c, a.id);
    rc = account_begin(c, &key, 1);
    if (rc >= 0)
        rc = account_tokens_use(c->s, hash, c->now);
    if (rc == 0) {
        result = ACCOUNT_LINK_TAKEN;
        store_rollback(c->s);
        goto done;
    }
    if (rc >= 0)
        rc = accounts_set_password(c->s, a.id, pw_hash, c->now);
    if (rc >= 0)
        rc = accounts_set_verified(c->s, a.id, c->now);
    if (rc >= 0)
        rc = account_tokens_spend_all(c->s, a.id, "reset", c->now);
    if (rc >= 0)
        rc = sessions_revoke_all(c->s, a.id, NULL, c->now);
    if (rc >= 0)
        rc = store_commit(c->s);
    if (rc < 0)
        result = app_unavailable(c, "accounts", rc, "reset");
done:
    sodium_memzero(pw_hash, sizeof pw_hash);
    return result;
}

enum account_outcome account_password_change(const struct app_ctx *c,
                                             const struct whistle_limits *limits,
                                             const struct account_row *a, const char *current,
                                             const char *password, const char *client_addr,
                                             struct account_result *out)
{
    struct signin_subjects j;
    char hash[ACCOUNT_TOKEN_HASH_HEX + 1], pw_hash[ACCOUNT_PASSWORD_HASH_MAX];
    result_init(out);
    /* the current password is checked like a sign-in, under the same limits */
    signin_subjects(a->email, client_addr, &j);
    int rc = signin_limited(c, limits, &j, &out->retry_s);
    if (rc != 0)
        return rc < 0 ? app_unavailable(c, "accounts", rc, "password change") : ACCOUNT_LIMITED;
    if (!current || !account_password_verify(a->password_hash, current))
        return signin_failed(c, &j);
    out->problem = password ? account_password_problem(password, a->email) : "enter a new password";
    if (out->problem)
        return ACCOUNT_BAD_PASSWORD;
    if (account_password_hash(password, limits, pw_hash) < 0)
        return app_unavailable(c, "accounts", STORE_ERR, "password change: password hash");
    /* every session ends, this one too: the browser gets a fresh session */
    account_session_new(out->cookie, hash);
    const char *key = account_key(c, a->id);
    rc = account_begin(c, &key, 1);
    if (rc >= 0)
        rc = accounts_set_password(c->s, a->id, pw_hash, c->now);
    if (rc >= 0)
        rc = sessions_revoke_all(c->s, a->id, NULL, c->now);
    if (rc >= 0)
        rc = account_tokens_spend_all(c->s, a->id, "reset", c->now);
    if (rc >= 0)
        rc = sessions_insert(c->s, hash, a->id, c->now, c->now + ACCOUNT_SESSION_TTL_US);
    if (rc >= 0)
        rc = store_commit(c->s);
    sodium_memzero(pw_hash, sizeof pw_hash);
    if (rc < 0) {
        account_result_wipe(out);
        return app_unavailable(c, "accounts", rc, "password change");
    }
    return ACCOUNT_OK;
}

/* Begins a write of the account that has `email` under that account's key: the account is
 * looked up, its key taken, and the address read again under it (a claim may have moved
 * it meanwhile: then the lookup starts over). 1 with *a, 0 when no account has the address
 * (nothing open), or a negative store_rc. */
static int account_begin_by_email(const struct app_ctx *c, const char *email, struct account_row *a)
{
    for (int attempt = 0; attempt < 3; attempt++) {
        char id[ID_LEN];
        int rc = accounts_by_email(c->s, email, a);
        if (rc <= 0)
            return rc;
        snprintf(id, sizeof id, "%s", a->id);
        const char *key = account_key(c, id);
        if ((rc = account_begin(c, &key, 1)) < 0 || (rc = accounts_by_email(c->s, email, a)) < 0)
            return rc;
        if (rc == 1 && strcmp(a->id, id) == 0)
            return 1;
        store_rollback(c->s);
    }
    return STORE_BUSY;
}

enum account_outcome account_set_banned(const struct app_ctx *c, const char *email, bool banned,
                                        const char *reason)
{
    struct account_row a = {0};
    /* prepared outside every lock: the write holds the account's key, then the author's
     * comment lock (app.h) */
    comments_prepare_writes(c);
    int rc = account_begin_by_email(c, email, &a);
    if (rc == 0)
        return ACCOUNT_NOT_FOUND;
    if (rc == 1)
        rc = agents_account_set_banned(c->s, email, banned, c->now);
    if (rc == 0) {
        store_rollback(c->s);
        return ACCOUNT_NOT_FOUND;
    }
    bool was = a.banned;
    const char *by = c->actor && strncmp(c->actor, "account:", 8) == 0 ? c->actor + 8 : NULL;
    /* a banned account's comments are hidden until it is unbanned (docs/comments.md) */
    if (rc > 0)
        rc = comments_author_suspended(c, by, a.id, banned, NULL);
    /* a ban ends every session of the account at once; one audit record either way */
    if (rc >= 0 && banned)
        rc = sessions_revoke_all(c->s, a.id, NULL, c->now);
    if (rc >= 0)
        rc = app_audit(c, banned ? "account.ban" : "account.unban", "account", a.id,
                       was ? "{\"banned\":true}" : "{\"banned\":false}",
                       banned ? "{\"banned\":true}" : "{\"banned\":false}", reason);
    return app_commit(c, "accounts", rc, banned ? "ban" : "unban") < 0 ? APP_UNAVAILABLE
                                                                       : ACCOUNT_OK;
}

enum account_outcome account_claim(const struct app_ctx *c, const char *display_name,
                                   const char *email, struct account_result *out)
{
    memset(out, 0, sizeof *out);
    if (account_email_normalize(email ? email : "", out->email) < 0 ||
        strstr(out->email, "@" ACCOUNT_IMPORTED_DOMAIN))
        return ACCOUNT_BAD_EMAIL;
    char clean[DISPLAY_NAME_MAX + 1], key[DISPLAY_NAME_MAX + 1], id[ID_LEN];
    if (display_name_check(display_name ? display_name : "", NULL, 0, clean, key))
        return ACCOUNT_NOT_FOUND; /* no account can have a name the rule refuses */
    bool banned;
    struct account_row a;
    /* the account's key and the new address's (one account per address, as a sign-up) */
    int rc = accounts_by_display_key(c->s, key, id, &banned);
    if (rc == 0)
        return ACCOUNT_NOT_FOUND;
    if (rc > 0) {
        const char *keys[] = {account_key(c, id), arena_printf(c->a, "email:%s", out->email)};
        rc = account_begin(c, keys, 2);
    }
    enum account_outcome result = ACCOUNT_OK;
    if (rc >= 0)
        rc = accounts_by_id(c->s, id, &a);
    if (rc == 0) {
        result = ACCOUNT_NOT_FOUND;
        goto out;
    }
    if (rc > 0) {
        const char *at = strrchr(a.email, '@');
        if (!at || strcmp(at + 1, ACCOUNT_IMPORTED_DOMAIN) != 0) {
            result = ACCOUNT_NOT_IMPORTED;
            goto out;
        }
        rc = accounts_set_email(c->s, id, out->email, c->now);
    }
    if (rc == STORE_CONSTRAINT) {
        result = ACCOUNT_TAKEN;
        goto out;
    }
    /* the audit record names the account, not the address */
    if (rc >= 0)
        rc = app_audit(c, "account.claim", "account", id, "{\"imported\":true}",
                       "{\"imported\":false}", NULL);
    if (rc >= 0)
        rc = store_commit(c->s);
out:
    if (result != ACCOUNT_OK)
        store_rollback(c->s); /* a refusal: nothing was written */
    else if (rc < 0)
        result = app_unavailable(c, "accounts", rc, "claim");
    return result;
}

/* ---- two-factor sign-in (TOTP) ---- */

/* The account's TOTP secret as bytes: 1 (enabled or pending in t), 0 none, or a negative
 * store_rc. */
static int totp_secret(const struct app_ctx *c, const char *account_id, struct totp_row *t,
                       unsigned char secret[TOTP_SECRET_BYTES])
{
    int rc = totp_get(c->s, account_id, t);
    if (rc != 1)
        return rc;
    size_t n = 0;
    if (sodium_hex2bin(secret, TOTP_SECRET_BYTES, t->secret_hex, strlen(t->secret_hex), NULL, &n,
                       NULL) != 0 ||
        n != TOTP_SECRET_BYTES)
        return STORE_ERR;
    return 1;
}

/* Every store call a two-factor write makes under the account's two-factor lock, with
 * placeholder arguments, for store_prepare_ahead: no statement is prepared while the lock
 * is held (app.h). Nothing executes; lookups find nothing. */
static int totp_statements(struct store *s, void *arg)
{
    (void)arg;
    static const char none[] = APP_PLACEHOLDER_ID;
    struct totp_row t;
    int rc = totp_get(s, none, &t);
    if (rc >= 0)
        rc = totp_put_pending(s, none, none, 0);
    if (rc >= 0)
        rc = totp_enable(s, none, 0);
    if (rc >= 0)
        rc = totp_use_step(s, none, 0);
    if (rc >= 0)
        rc = totp_delete(s, none);
    if (rc >= 0)
        rc = app_audit_ahead(s);
    if (rc >= 0)
        rc = signin_challenge_use(s, none, 0);
    if (rc >= 0)
        rc = sessions_revoke(s, none, 0);
    if (rc >= 0)
        rc = sessions_insert(s, none, none, 0, 0);
    return rc < 0 ? rc : 0;
}

/* A write of the account's TOTP row alone (ARCHITECTURE.md "Storage rules"): its statements
 * prepared first, then a row write that takes the account's two-factor lock key. */
static int totp_begin(const struct app_ctx *c, const char *account_id)
{
    char key[64];
    snprintf(key, sizeof key, "totp:%s", account_id);
    store_prepare_ahead(c->s, totp_statements, NULL);
    int rc = store_begin_row_write(c->s);
    return rc < 0 ? rc : store_lock_key(c->s, key);
}

/* The account acting on itself, for its audit records. */
static struct app_ctx self(const struct app_ctx *c, const char *account_id)
{
    struct app_ctx by = *c;
    by.actor = arena_printf(c->a, "account:%s", account_id);
    return by;
}

/* The password of a, checked like a sign-in under the same limits: ACCOUNT_OK,
 * ACCOUNT_LIMITED (r->retry_s), ACCOUNT_WRONG_PASSWORD, or APP_UNAVAILABLE. */
static int password_again(const struct app_ctx *c, const struct whistle_limits *limits,
                          const struct account_row *a, const char *password,
                          const char *client_addr, struct account_result *r)
{
    struct signin_subjects j;
    signin_subjects(a->email, client_addr, &j);
    int rc = signin_limited(c, limits, &j, &r->retry_s);
    if (rc != 0)
        return rc < 0 ? app_unavailable(c, "accounts", rc, "password check") : ACCOUNT_LIMITED;
    if (!password || !a->password_hash[0] || !account_password_verify(a->password_hash, password))
        return signin_failed(c, &j);
    return ACCOUNT_OK;
}

enum account_outcome account_totp_begin(const struct app_ctx *c,
                                        const struct whistle_limits *limits,
                                        const struct account_row *a, bool staff,
                                        const char *password, const char *client_addr,
                                        struct totp_enrolment *out, struct account_result *r)
{
    memset(out, 0, sizeof *out);
    result_init(r);
    if (!staff)
        return ACCOUNT_NOT_STAFF;
    int rc = password_again(c, limits, a, password, client_addr, r);
    if (rc != ACCOUNT_OK)
        return rc;
    unsigned char secret[TOTP_SECRET_BYTES];
    char hex[2 * TOTP_SECRET_BYTES + 1];
    randombytes_buf(secret, sizeof secret);
    sodium_bin2hex(hex, sizeof hex, secret, sizeof secret);
    int result = ACCOUNT_OK;
    struct totp_row t;
    rc = totp_begin(c, a->id);
    if (rc >= 0)
        rc = totp_get(c->s, a->id, &t);
    if (rc == 1 && t.enabled)
        result = ACCOUNT_TOTP_ON;
    else if (rc >= 0)
        rc = totp_put_pending(c->s, a->id, hex, c->now);
    if (rc >= 0 && result == ACCOUNT_OK)
        rc = store_commit(c->s);
    else
        store_rollback(c->s);
    if (rc >= 0 && result == ACCOUNT_OK && totp_base32(secret, sizeof secret, out->base32) < 0)
        rc = STORE_ERR;
    sodium_memzero(secret, sizeof secret);
    sodium_memzero(hex, sizeof hex);
    if (rc < 0)
        return app_unavailable(c, "accounts", rc, "two-factor enrolment");
    if (result == ACCOUNT_OK) {
        struct buf u = BUF_INIT;
        totp_uri(&u, a->email, out->base32);
        out->uri = arena_strdup(c->a, u.p);
        sodium_memzero(u.p, u.len);
        buf_release(&u);
    }
    return result;
}

enum account_outcome account_totp_confirm(const struct app_ctx *c, const struct account_row *a,
                                          const char *code)
{
    struct totp_row t;
    unsigned char secret[TOTP_SECRET_BYTES];
    int result = ACCOUNT_OK;
    int rc = totp_begin(c, a->id);
    if (rc >= 0)
        rc = totp_secret(c, a->id, &t, secret);
    if (rc == 0 || (rc == 1 && t.enabled)) {
        result = rc == 0 ? ACCOUNT_TOTP_NONE : ACCOUNT_TOTP_ON;
    } else if (rc == 1) {
        int64_t step = totp_match(secret, sizeof secret, c->now / ACCOUNT_SEC, code);
        if (step < 0) {
            result = ACCOUNT_WRONG_CODE;
        } else {
            rc = totp_enable(c->s, a->id, step);
            struct app_ctx by = self(c, a->id);
            if (rc > 0)
                rc = app_audit(&by, "account.totp_enable", "account", a->id, "{\"totp\":false}",
                               "{\"totp\":true}", NULL);
        }
    }
    sodium_memzero(secret, sizeof secret);
    if (rc >= 0 && result == ACCOUNT_OK)
        rc = store_commit(c->s);
    else
        store_rollback(c->s);
    return rc < 0 ? app_unavailable(c, "accounts", rc, "two-factor confirmation") : result;
}

enum account_outcome account_totp_disable(const struct app_ctx *c,
                                          const struct whistle_limits *limits,
                                          const struct account_row *a, const char *password,
                                          const char *client_addr, struct account_result *r)
{
    result_init(r);
    int rc = password_again(c, limits, a, password, client_addr, r);
    if (rc != ACCOUNT_OK)
        return rc;
    struct app_ctx by = self(c, a->id);
    rc = totp_begin(c, a->id);
    if (rc >= 0)
        rc = totp_delete(c->s, a->id);
    if (rc == 0) {
        store_rollback(c->s);
        return ACCOUNT_TOTP_NONE;
    }
    if (rc > 0)
        rc = app_audit(&by, "account.totp_disable", "account", a->id, "{\"totp\":true}",
                       "{\"totp\":false}", NULL);
    return app_commit(c, "accounts", rc, "two-factor off") < 0 ? APP_UNAVAILABLE : ACCOUNT_OK;
}

enum account_outcome account_totp_reset(const struct app_ctx *c, const char *email)
{
    struct account_row a;
    int rc = accounts_by_email(c->s, email, &a);
    if (rc == 0)
        return ACCOUNT_NOT_FOUND;
    if (rc > 0)
        rc = totp_begin(c, a.id);
    if (rc >= 0)
        rc = totp_delete(c->s, a.id);
    if (rc == 0) {
        store_rollback(c->s);
        return ACCOUNT_TOTP_NONE;
    }
    if (rc > 0)
        rc = app_audit(c, "account.totp_disable", "account", a.id, "{\"totp\":true}",
                       "{\"totp\":false}", "authenticator lost: reset by an operator");
    return app_commit(c, "accounts", rc, "two-factor reset") < 0 ? APP_UNAVAILABLE : ACCOUNT_OK;
}

int account_totp_state(const struct app_ctx *c, const char *account_id, bool *on, bool *pending)
{
    struct totp_row t;
    int rc = totp_get(c->s, account_id, &t);
    *on = rc == 1 && t.enabled;
    *pending = rc == 1 && !t.enabled;
    return rc < 0 ? app_unavailable(c, "accounts", rc, "two-factor state") : APP_OK;
}

/* Spends a code of the account's enabled secret in the caller's row write (totp_begin):
 * ACCOUNT_OK, ACCOUNT_WRONG_CODE (wrong, already used, two-factor off), or a negative
 * store_rc. */
static int code_spend(const struct app_ctx *c, const char *account_id, const char *code)
{
    struct totp_row t;
    unsigned char secret[TOTP_SECRET_BYTES];
    int rc = totp_secret(c, account_id, &t, secret);
    if (rc < 0)
        return rc;
    int64_t step =
        rc == 1 && t.enabled ? totp_match(secret, sizeof secret, c->now / ACCOUNT_SEC, code) : -1;
    sodium_memzero(secret, sizeof secret);
    if (!totp_step_fresh(step, t.last_step))
        return ACCOUNT_WRONG_CODE;
    rc = totp_use_step(c->s, account_id, step);
    return rc < 0 ? rc : rc == 1 ? ACCOUNT_OK : ACCOUNT_WRONG_CODE;
}

enum account_outcome account_signin_code(const struct app_ctx *c,
                                         const struct whistle_limits *limits, const char *challenge,
                                         const char *code, const char *client_addr,
                                         const char *old_cookie, struct account_result *out)
{
    result_init(out);
    char hash[ACCOUNT_TOKEN_HASH_HEX + 1], aid[ID_LEN];
    if (!challenge || account_token_hash(challenge, hash) < 0)
        return ACCOUNT_WRONG_CODE;
    int rc = signin_challenge_find(c->s, hash, c->now, aid);
    if (rc <= 0)
        return rc < 0 ? app_unavailable(c, "accounts", rc, "sign-in code") : ACCOUNT_WRONG_CODE;
    struct account_row a;
    rc = accounts_by_id(c->s, aid, &a);
    if (rc <= 0)
        return rc < 0 ? app_unavailable(c, "accounts", rc, "sign-in code") : ACCOUNT_WRONG_CODE;
    struct signin_subjects j;
    signin_subjects(a.email, client_addr, &j);
    rc = signin_limited(c, limits, &j, &out->retry_s);
    if (rc != 0)
        return rc < 0 ? app_unavailable(c, "accounts", rc, "sign-in code") : ACCOUNT_LIMITED;
    if (a.banned)
        return ACCOUNT_SUSPENDED;
    /* one transaction: the code's step and the challenge are spent with the new session */
    rc = totp_begin(c, a.id);
    if (rc >= 0)
        rc = code_spend(c, a.id, code);
    if (rc == ACCOUNT_OK) {
        rc = signin_challenge_use(c->s, hash, c->now);
        rc = rc < 0 ? rc : rc == 1 ? ACCOUNT_OK : ACCOUNT_WRONG_CODE;
    }
    if (rc == ACCOUNT_OK)
        rc = session_open(c, a.id, old_cookie, out);
    if (rc == ACCOUNT_OK)
        rc = store_commit(c->s);
    if (rc == ACCOUNT_OK)
        return ACCOUNT_OK;
    store_rollback(c->s);
    account_result_wipe(out);
    if (rc < 0)
        return app_unavailable(c, "accounts", rc, "sign-in code");
    int f = signin_failed(c, &j); /* a wrong code counts like a wrong password */
    return f == ACCOUNT_WRONG_PASSWORD ? ACCOUNT_WRONG_CODE : f;
}

enum account_outcome account_reauth(const struct app_ctx *c, const struct account_row *a,
                                    const char *password, const char *code)
{
    if (code && *code) {
        int rc = totp_begin(c, a->id);
        if (rc >= 0)
            rc = code_spend(c, a->id, code);
        if (rc == ACCOUNT_OK)
            rc = store_commit(c->s);
        if (rc == ACCOUNT_OK)
            return ACCOUNT_OK;
        store_rollback(c->s);
        return rc < 0 ? app_unavailable(c, "accounts", rc, "re-authentication")
                      : ACCOUNT_WRONG_CODE;
    }
    if (password && a->password_hash[0] && account_password_verify(a->password_hash, password))
        return ACCOUNT_OK;
    return ACCOUNT_WRONG_PASSWORD;
}
