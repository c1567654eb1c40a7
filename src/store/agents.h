#ifndef WHISTLE_STORE_AGENTS_H
#define WHISTLE_STORE_AGENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "domain/lead.h"
#include "domain/quota.h"
#include "store/store.h"

/*
 * Accounts, agent keys, leads and lead idempotency records. Functions return 0 (or a
 * found/not-found count as stated) or a negative store_rc; callers own transactions.
 */
#define ID_LEN 37

struct agent_auth {
    char key_id[ID_LEN];
    char account_id[ID_LEN];
    char scope[32];
    int64_t expires_at, revoked_at; /* revoked_at INT64_MIN when not revoked */
    bool banned;
};

/* Finds a key by the hash of its secret: 1 found, 0 unknown. */
int agents_key_by_hash(struct store *s, const char *hash, struct agent_auth *out);
int agents_key_touch(struct store *s, const char *key_id, int64_t now);

/* The account of email (lower-cased by the caller): 1 found, 0 missing. */
int agents_account_find(struct store *s, const char *email, char id[ID_LEN]);
/* Creates the account when missing (verified as given) and returns its id. */
int agents_account_ensure(struct store *s, const char *email, bool verified, int64_t now,
                          char id[ID_LEN]);
/* Sets or clears the ban of an account: 1 changed, 0 no such account. */
int agents_account_set_banned(struct store *s, const char *email, bool banned, int64_t now);

int agents_key_insert(struct store *s, const char *id, const char *account_id, const char *name,
                      const char *prefix, const char *hash, int64_t created, int64_t expires);
/* Revokes a key: 1 revoked now, 2 already revoked, 0 no such key. */
int agents_key_revoke(struct store *s, const char *id, int64_t now);

struct agent_key_row {
    const char *id, *owner, *name, *prefix, *scope;
    int64_t created_at, expires_at, revoked_at, last_used_at; /* INT64_MIN for null */
    bool banned;
};
/* Calls fn for every key (of owner when not NULL), newest first. */
int agents_keys_each(struct store *s, const char *owner,
                     int (*fn)(void *ctx, const struct agent_key_row *k), void *ctx);

/* ---- leads ---- */

struct lead_row {
    const char *id, *account_id, *key_id, *game_id, *description, *source_urls_json, *clock,
        *category;
    int64_t period; /* INT64_MIN for null */
    bool has_confidence;
    double confidence;
    int64_t created_at;
};

/* The lead recorded for (account, Idempotency-Key): 1 with fingerprint and lead id, 0 none.
 * Records older than `since` are ignored (they have expired). */
int leads_idempotency_find(struct store *s, const char *account_id, const char *idem_key,
                           int64_t since, char fingerprint[65], char lead_id[ID_LEN]);
/* Records (account, key) → lead; STORE_CONSTRAINT when another request recorded it first. */
int leads_idempotency_insert(struct store *s, const char *account_id, const char *idem_key,
                             const char *fingerprint, const char *lead_id, int64_t now);
/* Forgets idempotency records older than `before` (of one account, or all when NULL). */
int leads_idempotency_prune(struct store *s, const char *account_id, int64_t before);

/* Leads per agent key accepted after minute_start and after day_start (day_start <=
 * minute_start), for the keys with any after day_start, busiest first, at most limit; the
 * row's strings live until fn returns. 0 or a negative store_rc (or fn's). */
struct lead_quota_row {
    const char *key_id, *key_name, *key_prefix, *owner, *account_id;
    int64_t minute, day;
};
int leads_quota_each(struct store *s, int64_t minute_start, int64_t day_start, int64_t limit,
                     int (*fn)(void *ctx, const struct lead_quota_row *r), void *ctx);
/* Counts leads inside each quota window at now. */
int leads_quota_usage(struct store *s, const char *account_id, int64_t now, struct quota_usage *u);
/* Locks the 'leads' row of write_locks until the transaction ends: lead submissions, whose
 * all-agents daily quota and idempotency records are read-check-write, take it one at a
 * time on every node, while ballots and the other row-locking writes go on beside them. */
int leads_lock(struct store *s);
int leads_insert(struct store *s, const struct lead_row *l);

/* The outcome of leads_submit_server (migration 020 whistle_submit_lead's o_outcome). */
enum {
    LEAD_WRITE_ACCEPTED = 0,       /* the lead, its idempotency record, the key's last use */
    LEAD_WRITE_REPLAYED = 1,       /* the key's earlier lead (lead_id), same payload */
    LEAD_WRITE_UNKNOWN_GAME = 2,   /* nothing written */
    LEAD_WRITE_QUOTA = 3,          /* a quota window is full (usage): nothing written */
    LEAD_WRITE_CONFLICT = 4,       /* the key's earlier lead (lead_id) has another payload */
    LEAD_WRITE_NO_SERVER_PATH = 5, /* this driver has none: run the portable steps */
};
struct lead_write_result {
    int64_t now; /* the acceptance time: created_at, or the newest lead's when later */
    char lead_id[ID_LEN];
    struct quota_usage usage; /* at now, before this lead (not for UNKNOWN_GAME, CONFLICT) */
};
/* The whole lead submission (the 'leads' row lock, idempotency, game, quota windows, insert,
 * the key's last use) in one statement, its own transaction, and after its commit the content
 * version's move when it wrote (store_step_write): one round trip, every lock held only
 * inside the server (PostgreSQL: whistle_submit_lead, migration 020). l->created_at is the
 * clock read just before the call, `retention` how long idempotency records live, max the
 * quotas' amounts (domain/quota.h order). A LEAD_WRITE_* value or a negative store_rc. */
int leads_submit_server(struct store *s, const struct lead_row *l, const char *idem_key,
                        const char *fingerprint, int64_t retention, const int64_t *max,
                        struct lead_write_result *out);

struct lead_status {
    char id[ID_LEN];
    char game_id[256];
    char status[16];
    char incident_id[ID_LEN]; /* "" unless the incident is public */
    int64_t created_at, updated_at;
    char reason[LEAD_REASON_MAX + 1]; /* the last decision's reason ("" when none) */
};
/* Reads a lead owned by account_id: 1 found, 0 missing or another agent's. */
int leads_get(struct store *s, const char *id, const char *account_id, struct lead_status *out);

#endif
