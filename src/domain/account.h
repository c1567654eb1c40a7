#ifndef WHISTLE_DOMAIN_ACCOUNT_H
#define WHISTLE_DOMAIN_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Browser accounts (issue 6; docs/accounts.md): the rules, pure where they can be. Every
 * window and expiry takes `now` (microseconds) from the caller.
 *
 * Tokens (email links and session cookies) are 43 base62 characters of 32 random bytes;
 * only their SHA-256 (hex) is ever stored. A session cookie is "TOKEN.SIGNATURE", the
 * signature being HMAC(server secret, "session:" TOKEN) (domain/voter.h's secret), so a
 * forged or damaged cookie is refused without a database lookup.
 */
#define ACCOUNT_TOKEN_LEN      43
#define ACCOUNT_TOKEN_HASH_HEX 64
#define ACCOUNT_COOKIE_LEN     (ACCOUNT_TOKEN_LEN + 1 + 32)
#define ACCOUNT_COOKIE_NAME    "__Host-whistle_session"
#define ACCOUNT_CSRF_LEN       32
#define ACCOUNT_EMAIL_MAX      254
/* The address domain of an account an import created for a comment's author, known only by
 * its display name (<account id>@imported.invalid; .invalid never resolves, RFC 2606): no
 * mail reaches it until an operator gives the account its person's address (account_claim). */
#define ACCOUNT_IMPORTED_DOMAIN   "imported.invalid"
#define ACCOUNT_PASSWORD_MIN      10  /* characters (Unicode code points) */
#define ACCOUNT_PASSWORD_MAX      256 /* characters */
#define ACCOUNT_PASSWORD_HASH_MAX 128 /* crypto_pwhash_STRBYTES */

#define ACCOUNT_SEC                 INT64_C(1000000)
#define ACCOUNT_VERIFY_TTL_US       (INT64_C(24) * 3600 * ACCOUNT_SEC) /* verification links */
#define ACCOUNT_RESET_TTL_US        (INT64_C(3600) * ACCOUNT_SEC)      /* password-reset links */
#define ACCOUNT_SESSION_TTL_US      (INT64_C(30) * 86400 * ACCOUNT_SEC)
#define ACCOUNT_SIGNIN_WINDOW_US    (INT64_C(15) * 60 * ACCOUNT_SEC)
#define ACCOUNT_MAIL_FORM_WINDOW_US (INT64_C(3600) * ACCOUNT_SEC)

/* The limits operators set (sign-in and sign-up rates, agent keys per account) are in
 * struct whistle_limits (domain/limits.h), reached through the request's server config. */

/* A plausible email address, lower-cased into out: one "@", something on both sides, a dot
 * in the domain, printable ASCII without spaces, at most 254 characters. 0 or -1. */
int account_email_normalize(const char *in, char out[ACCOUNT_EMAIL_MAX + 2]);

/* The password policy: NULL when pw is acceptable, else the reason (a static string) —
 * too short, too long, one of the bundled most common passwords (case-insensitive), or the
 * email address itself. pw must be UTF-8. */
const char *account_password_problem(const char *pw, const char *email);

/* Whether pw is on the bundled list of common passwords (data/common-passwords.txt),
 * case-insensitively, or is one of them with digits or symbols added at either end. */
bool account_password_is_common(const char *pw);

/* argon2id (libsodium's crypto_pwhash_str) at the cost in lim (password_memory_kib,
 * password_ops; lim NULL or a 0 field: libsodium's interactive limits, 2 passes, 64 MiB).
 * 0, or -1 when out of memory or the cost is below libsodium's minimums. */
struct whistle_limits;
int account_password_hash(const char *pw, const struct whistle_limits *lim,
                          char out[ACCOUNT_PASSWORD_HASH_MAX]);
/* The cost is read from the hash itself. */
bool account_password_verify(const char *hash, const char *pw);
/* Spends the time of one verification against a fixed hash made at lim's cost, so that
 * "no such account" takes as long as "wrong password". */
void account_password_dummy_verify(const char *pw, const struct whistle_limits *lim);

/* A fresh random token and its storage hash. */
void account_token_new(char token[ACCOUNT_TOKEN_LEN + 1], char hash[ACCOUNT_TOKEN_HASH_HEX + 1]);
/* The storage hash of a token; -1 when the token is not well formed (never looked up). */
int account_token_hash(const char *token, char hash[ACCOUNT_TOKEN_HASH_HEX + 1]);

enum account_token_state { ACCOUNT_TOKEN_VALID, ACCOUNT_TOKEN_EXPIRED, ACCOUNT_TOKEN_USED };
/* A link token is single-use and expires at expires_at exactly; used_at is INT64_MIN when
 * unused. A used token reports USED even after it would have expired. */
enum account_token_state account_token_state(int64_t now, int64_t expires_at, int64_t used_at);

/* Staff sessions (an account with a role: moderator, editor or admin) end after
 * staff_idle_us without a request (--staff-idle-timeout); a fan's session lasts its 30 days.
 * last_seen is the session's last recorded request (its creation before any).
 * account_session_idle_ended: whether the session has ended at now.
 * account_session_touch_due: whether now should be recorded as its last request — at most
 * every quarter of the timeout, so a busy editor writes a few rows an hour, not one a page. */
bool account_session_idle_ended(int64_t now, int64_t last_seen, bool staff, int64_t staff_idle_us);
bool account_session_touch_due(int64_t now, int64_t last_seen, bool staff, int64_t staff_idle_us);

/* A new session cookie value and the storage hash of its token. */
void account_session_new(char cookie[ACCOUNT_COOKIE_LEN + 1],
                         char hash[ACCOUNT_TOKEN_HASH_HEX + 1]);
/* Checks a cookie's shape and signature (constant time) and gives its storage hash. */
bool account_session_check(const char *cookie, char hash[ACCOUNT_TOKEN_HASH_HEX + 1]);
/* The CSRF token of the forms a session's pages carry. */
void account_session_csrf(const char *session_hash, char token[ACCOUNT_CSRF_LEN + 1]);
bool account_session_csrf_ok(const char *session_hash, const char *token);

/* The ballot identity of a signed-in voter: stable per account, never the anonymous
 * cookie's, a keyed hash like every stored voter identity. */
void account_voter(const char *account_id, char out[65]);

/* The path to go to after signing in: `next` when it is a local path ("/x", never "//x",
 * no backslash or control character, at most 512 bytes), else "/developers". */
const char *account_safe_next(const char *next);

/* A key name from a form: trimmed of surrounding white space into out; NULL when it is
 * acceptable (1 to 100 characters, no control characters), else the reason. */
const char *account_key_name(const char *in, char out[404]);

/* When the outbox tries a message again after `attempts` failed deliveries, or INT64_MIN
 * when it gives up (after OUTBOX_MAX_ATTEMPTS). Back-off: 1, 5, 15, 60 minutes, then 3 h. */
#define OUTBOX_MAX_ATTEMPTS 8
int64_t account_outbox_retry_at(int attempts, int64_t now);

#endif
