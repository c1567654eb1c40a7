#ifndef WHISTLE_APP_ACCOUNTS_H
#define WHISTLE_APP_ACCOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "domain/totp.h"
#include "domain/account.h"
#include "domain/agentkey.h"
#include "domain/limits.h"
#include "store/accounts.h"
#include "util/uuid.h"

/*
 * Browser accounts and agent keys (docs/accounts.md, docs/agents.md): the use cases behind
 * the /account pages, /developers and `whistle key|account`. The handlers read the form and check
 * CSRF and origin; everything a rule decides — the password policy, the rate limits, which
 * answer may tell whether an address is registered, link expiry, the key cap — happens
 * here, in the transaction each function owns.
 *
 * Limits come in as a parameter (struct whistle_limits, serve's options: req->cfg->limits on
 * the server); `base_url` is the origin of the links written into emails (no trailing
 * slash). Rate-limit subjects are built from the client
 * address (`client_addr`, any text: only its keyed hash is stored).
 *
 * Every function returns an outcome below or APP_UNAVAILABLE (the store failed, or the
 * password could not be hashed: nothing was written).
 */
enum account_outcome {
    ACCOUNT_UNAVAILABLE = APP_UNAVAILABLE,
    ACCOUNT_OK = APP_OK,
    ACCOUNT_BAD_EMAIL,      /* the address typed is not an email address */
    ACCOUNT_MISSING,        /* sign-in: no valid address, or an empty password */
    ACCOUNT_BAD_PASSWORD,   /* the policy refuses the new password: out->problem says why */
    ACCOUNT_LIMITED,        /* a rate limit: try again in out->retry_s seconds */
    ACCOUNT_WRONG_PASSWORD, /* sign-in: wrong address or password (one answer for both);
                             * password change: the current password is wrong */
    ACCOUNT_SUSPENDED,      /* sign-in with the right password to a banned account */
    ACCOUNT_LINK_UNKNOWN,   /* an emailed link whose token is malformed or unknown */
    ACCOUNT_LINK_USED,      /* … already used (links work once) */
    ACCOUNT_LINK_EXPIRED,   /* … expired */
    ACCOUNT_LINK_TAKEN,     /* … valid when checked, used or expired by the time of the
                             * write (another request took it a moment ago) */
    ACCOUNT_VERIFIED,       /* resend: the address is already verified, nothing sent */
    ACCOUNT_NOT_FOUND,      /* ban: no account has this address; claim: no account has
                             * this display name */
    ACCOUNT_TAKEN,          /* claim: another account has this address */
    ACCOUNT_NOT_IMPORTED,   /* claim: the account has an address of its own already */
    ACCOUNT_CODE_NEEDED,    /* sign-in: the password is right and two-factor is on: the
                             * code form carries out->challenge */
    ACCOUNT_WRONG_CODE,     /* a TOTP code that is wrong, already used, or a challenge that
                             * is unknown, used or expired */
    ACCOUNT_NOT_STAFF,      /* two-factor is for staff accounts (a role) only */
    ACCOUNT_TOTP_ON,        /* enrolment: two-factor is on already */
    ACCOUNT_TOTP_NONE,      /* confirm: nothing pending; disable: two-factor is off */
};

/* The two kinds of emailed single-use link. */
enum account_link_kind { ACCOUNT_LINK_VERIFY, ACCOUNT_LINK_RESET };

/* What a use case hands back besides its outcome. `cookie` holds a new session's secret
 * cookie value (sign-in, password change): the caller sends it and wipes it with
 * account_result_wipe(). */
struct account_result {
    char email[ACCOUNT_EMAIL_MAX + 2]; /* the address typed, normalized (sign-up, sign-in,
                                        * forgot), "" when it was not an address */
    const char *problem;               /* ACCOUNT_BAD_PASSWORD: the reason (static text) */
    int64_t retry_s;                   /* ACCOUNT_LIMITED: seconds to wait */
    char cookie[ACCOUNT_COOKIE_LEN + 1];
    char challenge[ACCOUNT_TOKEN_LEN + 1]; /* ACCOUNT_CODE_NEEDED: the sign-in's second step */
};
void account_result_wipe(struct account_result *r);

/* Sign-up. The answer must not tell whether the address already has an account: with a
 * taken address the owner is mailed a sign-in hint and a reset link, otherwise an
 * unverified account is created and a verification link mailed; both return ACCOUNT_OK
 * after the same argon2id work. ACCOUNT_BAD_EMAIL, ACCOUNT_BAD_PASSWORD, ACCOUNT_LIMITED
 * (limits->mail_forms_per_ip per client address per hour, shared with account_forgot). */
enum account_outcome account_signup(const struct app_ctx *c, const struct whistle_limits *limits,
                                    const char *base_url, const char *email, const char *password,
                                    const char *client_addr, struct account_result *out);

/* The state of an emailed link of that kind, without changing anything: ACCOUNT_OK
 * (valid), ACCOUNT_LINK_UNKNOWN, ACCOUNT_LINK_USED or ACCOUNT_LINK_EXPIRED. */
enum account_outcome account_link_check(const struct app_ctx *c, enum account_link_kind kind,
                                        const char *token);

/* Spends a verification link and marks its account verified: ACCOUNT_OK, or a link
 * outcome (ACCOUNT_LINK_TAKEN when another request spent it first). */
enum account_outcome account_verify(const struct app_ctx *c, const char *token);

/* Mails a new verification link to the signed-in account a: ACCOUNT_OK, or
 * ACCOUNT_VERIFIED when there is nothing to verify. */
enum account_outcome account_resend_verification(const struct app_ctx *c, const char *base_url,
                                                 const struct account_row *a);

/* Sign-in with an address and a password. Failed sign-ins count against the pair (email
 * address, registered or not; client address) and against the client address alone over
 * ACCOUNT_SIGNIN_WINDOW_US, so a stranger's failures never lock the account's owner out; at
 * limits->signin_per_account (per pair) or ->signin_per_ip the answer is ACCOUNT_LIMITED before the
 * password is even checked. A missing account costs the same argon2id work as a wrong
 * password. On ACCOUNT_OK a new session exists (out->cookie) and the browser's previous
 * session (old_cookie, the cookie it sent, may be NULL) has ended. ACCOUNT_MISSING,
 * ACCOUNT_WRONG_PASSWORD, ACCOUNT_SUSPENDED. */
enum account_outcome account_signin(const struct app_ctx *c, const struct whistle_limits *limits,
                                    const char *email, const char *password,
                                    const char *client_addr, const char *old_cookie,
                                    struct account_result *out);

/* Ends the session whose storage hash is session_hash: ACCOUNT_OK. */
enum account_outcome account_signout(const struct app_ctx *c, const char *session_hash);

/* The live session named by a session cookie (may be NULL): 1 with *out, 0 when there is
 * none (no cookie, a forged one, an ended session), or APP_UNAVAILABLE. A staff session idle
 * for staff_idle_us (0: no idle limit) has ended: it is revoked and 0 answered; a live one
 * has its last request recorded now and then (domain/account.h). */
int account_session(const struct app_ctx *c, const char *cookie, int64_t staff_idle_us,
                    struct session_row *out);

/* A password-reset request: queues one reset_requests row for the typed address and
 * returns, the same work whether or not an account uses it (no account lookup here: the
 * worker's mail lane does it, account_forgot_process). ACCOUNT_OK either way (the answer
 * tells nothing), ACCOUNT_BAD_EMAIL, ACCOUNT_LIMITED (shared with sign-up, per client
 * address). */
enum account_outcome account_forgot(const struct app_ctx *c, const struct whistle_limits *limits,
                                    const char *email, const char *client_addr,
                                    struct account_result *out);

/* The worker's half of a reset request (worker/outbox.c, the mail lane): takes the oldest
 * queued request and deletes it; when its address has an account that is not banned and
 * the request is younger than the link's lifetime, mails a reset link (valid until 1 hour
 * after the request, the per-recipient hourly cap applying) in the same transaction.
 * 1 when a request was taken (or another worker took it first), 0 when none is queued, or
 * a negative store_rc (rolled back; the request stays queued). */
int account_forgot_process(const struct app_ctx *c, const char *base_url);

/* Hands an account that an import created for a comment's author (known only by its
 * display name, its address under ACCOUNT_IMPORTED_DOMAIN) to its person: the account gets
 * that address, still unverified and without a password; "forgot password" then mails
 * the person a reset link, and the reset sets the password and verifies the address
 * (docs/import-format.md). One audit record. ACCOUNT_OK, ACCOUNT_BAD_EMAIL, ACCOUNT_NOT_FOUND,
 * ACCOUNT_NOT_IMPORTED, ACCOUNT_TAKEN. */
enum account_outcome account_claim(const struct app_ctx *c, const char *display_name,
                                   const char *email, struct account_result *out);

/* Sets a new password through a reset link: in one transaction the link is spent with every
 * other reset link of the account, the password set, the address marked verified (the link
 * proved the mailbox) and every session ended. ACCOUNT_OK, a link outcome, or
 * ACCOUNT_BAD_PASSWORD (the link stays valid). limits gives the argon2id cost. */
enum account_outcome account_reset(const struct app_ctx *c, const struct whistle_limits *limits,
                                   const char *token, const char *password,
                                   struct account_result *out);

/* Changes the password of the signed-in account a (session_hash its session), the current
 * password checked like a sign-in under the same limits: every session ends and a new one
 * replaces this one (out->cookie). ACCOUNT_OK, ACCOUNT_LIMITED, ACCOUNT_WRONG_PASSWORD,
 * ACCOUNT_BAD_PASSWORD. */
enum account_outcome account_password_change(const struct app_ctx *c,
                                             const struct whistle_limits *limits,
                                             const struct account_row *a, const char *current,
                                             const char *password, const char *client_addr,
                                             struct account_result *out);

/* Bans or unbans the account of email (normalized): every key of a banned account stops
 * working and a ban ends its sessions at once. One audit record (reason may be NULL).
 * ACCOUNT_OK or ACCOUNT_NOT_FOUND. */
enum account_outcome account_set_banned(const struct app_ctx *c, const char *email, bool banned,
                                        const char *reason);

/* ---- two-factor sign-in (TOTP, RFC 6238; docs/accounts.md "Two-factor sign-in") ------ */

/* Staff only (an account with a role). The secret lives in the database; a code is used
 * once (its time step must be later than the last accepted one); every change writes one
 * audit record (account.totp_enable, account.totp_disable). */

#define ACCOUNT_CHALLENGE_TTL_US (INT64_C(300) * ACCOUNT_SEC) /* the code form: 5 minutes */

struct totp_enrolment {
    char base32[TOTP_BASE32_MAX]; /* the secret as apps type it */
    const char *uri;              /* otpauth://totp/… (c->a) */
};

/* Starts enrolment for staff account a (staff: it has a role), the password checked like a
 * sign-in under the same limits: a new pending secret (replacing a pending one), shown in
 * *out. ACCOUNT_OK, ACCOUNT_NOT_STAFF, ACCOUNT_TOTP_ON, ACCOUNT_LIMITED,
 * ACCOUNT_WRONG_PASSWORD. */
enum account_outcome account_totp_begin(const struct app_ctx *c,
                                        const struct whistle_limits *limits,
                                        const struct account_row *a, bool staff,
                                        const char *password, const char *client_addr,
                                        struct totp_enrolment *out, struct account_result *r);

/* Turns the pending secret on with a code of it: ACCOUNT_OK, ACCOUNT_TOTP_NONE,
 * ACCOUNT_WRONG_CODE. */
enum account_outcome account_totp_confirm(const struct app_ctx *c, const struct account_row *a,
                                          const char *code);

/* Turns two-factor off (the password again, like a sign-in): ACCOUNT_OK, ACCOUNT_TOTP_NONE,
 * ACCOUNT_LIMITED, ACCOUNT_WRONG_PASSWORD. */
enum account_outcome account_totp_disable(const struct app_ctx *c,
                                          const struct whistle_limits *limits,
                                          const struct account_row *a, const char *password,
                                          const char *client_addr, struct account_result *r);

/* An operator's recovery of a staff account whose authenticator is lost (`whistle account
 * totp-off EMAIL`): the account's key, on or pending, is deleted and one audit record
 * (account.totp_disable, the operator named, the reason "authenticator lost") written; its
 * sessions stay. ACCOUNT_OK, ACCOUNT_NOT_FOUND, ACCOUNT_TOTP_NONE. */
enum account_outcome account_totp_reset(const struct app_ctx *c, const char *email);

/* Whether two-factor is on for the account (*on) and an enrolment is pending (*pending). */
int account_totp_state(const struct app_ctx *c, const char *account_id, bool *on, bool *pending);

/* The second step of a sign-in: the challenge of ACCOUNT_CODE_NEEDED and a code. A wrong
 * code counts as a failed sign-in (the same limits); a right one spends the challenge and
 * opens a session as account_signin does. ACCOUNT_OK (out->cookie), ACCOUNT_WRONG_CODE,
 * ACCOUNT_LIMITED, ACCOUNT_SUSPENDED. */
enum account_outcome account_signin_code(const struct app_ctx *c,
                                         const struct whistle_limits *limits, const char *challenge,
                                         const char *code, const char *client_addr,
                                         const char *old_cookie, struct account_result *out);

/* Re-authentication before an admin action (the desk): the account's password, or, when
 * two-factor is on, a fresh code instead. ACCOUNT_OK, ACCOUNT_WRONG_PASSWORD,
 * ACCOUNT_WRONG_CODE. */
enum account_outcome account_reauth(const struct app_ctx *c, const struct account_row *a,
                                    const char *password, const char *code);

/* ---- agent keys -------------------------------------------------------------------- */

enum key_outcome {
    KEY_UNAVAILABLE = APP_UNAVAILABLE,
    KEY_OK = APP_OK,
    KEY_SUSPENDED,       /* the owner is banned: no key can be created */
    KEY_UNVERIFIED,      /* the owner's address is not verified yet */
    KEY_LIMIT,           /* the owner has limits->max_agent_keys active keys already */
    KEY_BAD_NAME,        /* out->problem says why */
    KEY_NOT_FOUND,       /* no such key (of this owner) */
    KEY_ALREADY_REVOKED, /* revoke: it was revoked before */
};

/* Who asks for a key. An account creates its own (the portal) under the rules above; the
 * operator (`whistle key create`) vouches for an address, the account being created
 * verified when missing, without the cap. */
struct key_request {
    const struct account_row *account; /* the signed-in owner, or NULL for the operator */
    const char *owner_email;           /* operator: the owner's address, normalized */
    const char *name;                  /* required from an account, optional from the operator */
};

/* A key just made. The secret exists only here: the caller shows it once and wipes it
 * (key_new_wipe). */
struct key_new {
    char id[UUID_STR_LEN + 1];
    char secret[AGENT_KEY_LEN + 1];
    char name[404]; /* "" when the operator gave none */
    int64_t expires_at;
    const char *problem; /* KEY_BAD_NAME: why (static text) */
};
void key_new_wipe(struct key_new *k);

/* Creates a key (scope submit_lead, AGENT_KEY_LIFETIME_US). For an account, the count of its
 * active keys and the insert share one write transaction, so two requests never both take
 * the last free slot. KEY_OK, KEY_SUSPENDED, KEY_UNVERIFIED, KEY_LIMIT, KEY_BAD_NAME.
 * limits is read only for an account (the operator may pass NULL). */
enum key_outcome key_create(const struct app_ctx *c, const struct whistle_limits *limits,
                            const struct key_request *in, struct key_new *out);

/* Whether account a may create a key now (KEY_OK, KEY_SUSPENDED, KEY_UNVERIFIED, KEY_LIMIT),
 * with its count of active keys in *active: what the portal offers. */
enum key_outcome key_may_create(const struct app_ctx *c, const struct whistle_limits *limits,
                                const struct account_row *a, int64_t *active);

/* Revokes key_id (normalized UUID): one of account_id's keys, or, account_id NULL, any key
 * (the operator, the desk). One audit record. KEY_OK, KEY_ALREADY_REVOKED, KEY_NOT_FOUND. */
enum key_outcome key_revoke(const struct app_ctx *c, const char *account_id, const char *key_id);

/* One key as listed (never its secret); strings live in the ctx's arena. */
struct key_info {
    const char *id, *owner, *name, *prefix, *scope;           /* name NULL when it has none */
    int64_t created_at, expires_at, revoked_at, last_used_at; /* INT64_MIN for never */
    enum agent_key_state state;                               /* at c->now */
};

/* The keys of owner_email (normalized), or of every account when NULL, newest first, in
 * an array in c->a: KEY_OK with *keys and *n. */
enum key_outcome key_list(const struct app_ctx *c, const char *owner_email, struct key_info **keys,
                          size_t *n);

#endif
