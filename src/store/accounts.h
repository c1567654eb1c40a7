#ifndef WHISTLE_STORE_ACCOUNTS_H
#define WHISTLE_STORE_ACCOUNTS_H

#include <stdbool.h>
#include <stdint.h>

#include "store/agents.h"
#include "store/store.h"
#include "util/arena.h"

/*
 * Browser accounts (migration 006): passwords, single-use email links, sessions and the
 * email outbox (failed sign-ins are counted with store/votes.h's rate-limit events). Functions
 * return 0 (or a found count as stated) or a negative store_rc; callers own transactions. Tokens
 * are passed as their storage hashes.
 */
struct account_row {
    char id[ID_LEN];
    char email[256];
    char password_hash[128]; /* "" when the account has no password (operator-made) */
    bool verified, banned;
};

/* By email (lower-cased) or id: 1 found, 0 missing. */
int accounts_by_email(struct store *s, const char *email, struct account_row *out);
int accounts_by_id(struct store *s, const char *id, struct account_row *out);
/* Accounts whose email contains text (NULL: all), newest first, at most limit; arena-owned,
 * without their password hashes. 0 or a negative store_rc. */
int accounts_search(struct store *s, struct arena *a, const char *text, int64_t limit,
                    struct account_row **out, size_t *n);
/* A new unverified account with a password; STORE_CONSTRAINT when the email is taken. */
int accounts_create(struct store *s, const char *id, const char *email, const char *pw_hash,
                    int64_t now);
int accounts_set_password(struct store *s, const char *id, const char *pw_hash, int64_t now);
int accounts_set_verified(struct store *s, const char *id, int64_t now);
/* A new address for the account (STORE_CONSTRAINT when another account has it). */
int accounts_set_email(struct store *s, const char *id, const char *email, int64_t now);

/* ---- single-use links ("verify", "reset") ---- */

/* Stores a link's token hash. With insert false the same statement runs and inserts nothing
 * (see outbox_enqueue). */
int account_tokens_insert(struct store *s, bool insert, const char *hash, const char *account_id,
                          const char *purpose, int64_t now, int64_t expires);
struct account_token_row {
    char account_id[ID_LEN];
    int64_t expires_at, used_at; /* used_at INT64_MIN when unused */
};
/* 1 found (of that purpose), 0 unknown. */
int account_tokens_find(struct store *s, const char *hash, const char *purpose,
                        struct account_token_row *out);
/* Marks a token used if it still is unused and unexpired: 1 taken now, 0 not (another
 * request took it first, or it expired). */
int account_tokens_use(struct store *s, const char *hash, int64_t now);
/* Marks every unused token of (account, purpose) used (a reset spends older reset links). */
int account_tokens_spend_all(struct store *s, const char *account_id, const char *purpose,
                             int64_t now);

/* ---- sessions ---- */

int sessions_insert(struct store *s, const char *hash, const char *account_id, int64_t now,
                    int64_t expires);
struct session_row {
    char hash[65];
    struct account_row account;
    int64_t expires_at;
    int64_t last_seen_at; /* its last recorded request (its creation before any) */
    bool staff;           /* the account has a role (moderator, editor, admin) */
};
/* A live session (not revoked, not expired at now) with its account: 1, or 0. */
int sessions_find(struct store *s, const char *hash, int64_t now, struct session_row *out);
/* Records now as the session's last request (when it is later than the stored one). */
int sessions_touch(struct store *s, const char *hash, int64_t now);
int sessions_revoke(struct store *s, const char *hash, int64_t now);
/* Revokes every live session of the account except keep_hash (may be NULL). */
int sessions_revoke_all(struct store *s, const char *account_id, const char *keep_hash,
                        int64_t now);

/* ---- TOTP two-factor (migration 013) ---- */

struct totp_row {
    char secret_hex[2 * 32 + 1];
    bool enabled;
    int64_t last_step; /* -1: no code accepted yet */
};
/* The account's TOTP secret, pending or enabled: 1, or 0 none. */
int totp_get(struct store *s, const char *account_id, struct totp_row *out);
/* Stores a new pending secret (replacing a pending one). */
int totp_put_pending(struct store *s, const char *account_id, const char *secret_hex, int64_t now);
/* Turns a pending secret on, step its first accepted code: 1 done, 0 nothing pending. */
int totp_enable(struct store *s, const char *account_id, int64_t step);
/* Spends step on an enabled secret if it is later than the last one: 1 accepted, 0 not
 * (a replay, or no enabled secret). One conditional UPDATE. */
int totp_use_step(struct store *s, const char *account_id, int64_t step);
/* Forgets the account's secret: 1 removed, 0 there was none. */
int totp_delete(struct store *s, const char *account_id);

int signin_challenge_insert(struct store *s, const char *hash, const char *account_id, int64_t now,
                            int64_t expires);
/* The account of a live (unused, unexpired at now) challenge: 1 with account_id, or 0. */
int signin_challenge_find(struct store *s, const char *hash, int64_t now, char account_id[ID_LEN]);
/* Spends a challenge: 1 spent now, 0 it was spent already. */
int signin_challenge_use(struct store *s, const char *hash, int64_t now);

/* ---- agent keys of an account (the /developers portal) ---- */

/* Active keys (not revoked, not expired at now) of the account. */
int accounts_active_keys(struct store *s, const char *account_id, int64_t now, int64_t *count);
/* Revokes the account's key: 1 revoked now, 2 already revoked, 0 no such key of theirs. */
int accounts_key_revoke(struct store *s, const char *account_id, const char *key_id, int64_t now);

/* ---- outbox ---- */

/* Queues a message. With insert false the same statement runs and inserts nothing: for
 * answers that must do the same work whether or not an address is registered. */
int outbox_enqueue(struct store *s, bool insert, const char *recipient, const char *subject,
                   const char *body, int64_t now);
/* Messages queued for recipient after `since`. */
int outbox_recent(struct store *s, const char *recipient, int64_t since, int64_t *count);
struct outbox_msg {
    char id[ID_LEN];
    const char *recipient, *subject, *body; /* arena copies */
    int attempts;                           /* including this one */
};
/* Claims the oldest due message for lease_us (attempts counted): 1 claimed, 0 none due. */
int outbox_claim(struct store *s, struct arena *a, int64_t now, int64_t lease_us,
                 struct outbox_msg *out);
/* Delivered: recorded and the body erased. */
int outbox_sent(struct store *s, const char *id, int64_t now);
/* Not delivered: try again at retry_at, or give up (retry_at INT64_MIN; body erased). */
int outbox_failed(struct store *s, const char *id, int64_t now, int64_t retry_at,
                  const char *error);

/* ---- password-reset requests (migration 022) ---- */

/* Queues a reset request for the normalized address email (the same row whether or not an
 * account uses it). */
int reset_requests_insert(struct store *s, const char *id, const char *email, int64_t now);
struct reset_request_row {
    char id[ID_LEN];
    char email[256];
    int64_t created_at;
};
/* The oldest queued request: 1 with *out, 0 none. */
int reset_requests_oldest(struct store *s, struct reset_request_row *out);
/* Deletes a request: 1 deleted now, 0 it was gone (another worker took it). */
int reset_requests_take(struct store *s, const char *id);
/* Forgets requests made at or before `before` (never taken: the worker was not running). */
int reset_requests_prune(struct store *s, int64_t before);

/* Housekeeping: forgets sessions, links and sign-in challenges that expired, were revoked
 * or used, failure
 * events, and finished mail, all at or before `before` (a link kept a while after it
 * expired is still recognised as expired rather than unknown). */
int accounts_prune(struct store *s, int64_t before);

#endif
