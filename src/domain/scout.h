#ifndef WHISTLE_DOMAIN_SCOUT_H
#define WHISTLE_DOMAIN_SCOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The private scout interface (api-v1.md "POST /api/agents/v1/scout", issue 7,
 * docs/scout.md): budget arithmetic, the UTC day, run leases, and the checks of a request
 * body and of one signal. Everything here is pure: `now` is an argument.
 */
#define SCOUT_KEY_MAX      100                    /* characters (api-v1.md Limits) */
#define SCOUT_SIGNALS_MAX  500                    /* items (api-v1.md Limits) */
#define SCOUT_BUDGET_MAX   INT64_C(1000000000000) /* 10^12 reads or micro-USD */
#define SCOUT_DAY_US       (INT64_C(86400) * 1000000)
#define SCOUT_RUN_SECS_MIN 10
#define SCOUT_RUN_SECS_MAX 86400
/* The request body: 500 signals with their texts need more than the 64 KiB of other JSON
 * bodies (docs/scout.md). */
#define SCOUT_BODY_MAX (1024 * 1024)

/* Budgets of a new credential when `whistle scout-key create` is not told otherwise. */
#define SCOUT_DEFAULT_X_PER_DAY     1000
#define SCOUT_DEFAULT_MODEL_PER_DAY 5000000 /* $5.00 */
#define SCOUT_DEFAULT_X_PER_RUN     100
#define SCOUT_DEFAULT_MODEL_PER_RUN 500000 /* $0.50 */
#define SCOUT_DEFAULT_RUN_SECONDS   900

/* Size limits of the free-form objects, in bytes of their compact JSON. */
#define SCOUT_CHECKPOINTS_MAX 16384
#define SCOUT_EVALUATIONS_MAX 65536
#define SCOUT_REPORT_MAX      16384

/* Signal field limits. */
#define SCOUT_URL_MAX       2048 /* bytes */
#define SCOUT_AUTHOR_MAX    200  /* characters */
#define SCOUT_TEXT_MAX      5000 /* characters */
#define SCOUT_HASH_TEXT_MIN 20   /* characters of normalised text that identify content */

enum scout_kind { SCOUT_X, SCOUT_MODEL, SCOUT_NKINDS };

/* "x" or "model". */
const char *scout_kind_name(enum scout_kind k);

/* ---- the day, budgets and leases ---- */

/* The start of the UTC day that contains now: daily budgets reset at 00:00:00Z. */
int64_t scout_day_start(int64_t now);

/* limit - used, never below 0 (a limit lowered below what was used leaves 0). */
int64_t scout_remaining(int64_t limit, int64_t used);

/* What a run may still reserve of one kind: the smaller of its own remaining cap and the
 * credential's remaining budget of the day. */
int64_t scout_run_remaining(int64_t run_cap, int64_t run_used, int64_t day_limit, int64_t day_used);

/* Whether units (>= 1) fit in both the run cap and the daily budget. The store grants the
 * reservation with conditional updates that apply the same rule atomically. */
bool scout_reserve_fits(int64_t units, int64_t run_cap, int64_t run_used, int64_t day_limit,
                        int64_t day_used);

/* When a run begun at started with a lease of run_seconds expires. */
int64_t scout_lease_end(int64_t started, int64_t run_seconds);

enum scout_run_state { SCOUT_RUN_RUNNING, SCOUT_RUN_COMPLETED, SCOUT_RUN_EXPIRED };

/* The state of a run at now from its stored status ("running", "completed", "expired"): a
 * running run expires at expires_at exactly (now >= expires_at). */
enum scout_run_state scout_run_state(int64_t now, const char *status, int64_t expires_at);
const char *scout_run_state_name(enum scout_run_state s);

enum scout_credential_state {
    SCOUT_CRED_ACTIVE,
    SCOUT_CRED_DISABLED, /* authenticates; begin and reserve answer skip "disabled" */
    SCOUT_CRED_REVOKED,
    SCOUT_CRED_EXPIRED,
};

/* Revocation wins over expiry, expiry over disabling; expires_at and revoked_at are
 * INT64_MIN when unset; a credential expires at expires_at exactly. */
enum scout_credential_state scout_credential_state(int64_t now, int64_t expires_at,
                                                   int64_t revoked_at, bool disabled);
const char *scout_credential_state_name(enum scout_credential_state s);

enum scout_skip { SCOUT_GO, SCOUT_SKIP_DISABLED, SCOUT_SKIP_RUN_ACTIVE, SCOUT_SKIP_BUDGET };

/* Whether begin may claim a run: a disabled credential first, then an active run of the
 * key, then a budget that leaves nothing to reserve of any kind (left[k] as computed by
 * scout_run_remaining with run_used 0). */
enum scout_skip scout_begin_decision(bool disabled, bool run_active,
                                     const int64_t left[SCOUT_NKINDS]);
/* "disabled", "run_active", "budget_exhausted" (NULL for SCOUT_GO). */
const char *scout_skip_reason(enum scout_skip s);

/* ---- request bodies ---- */

enum scout_op { SCOUT_OP_STATUS, SCOUT_OP_BEGIN, SCOUT_OP_RESERVE, SCOUT_OP_FINISH };

struct scout_request {
    enum scout_op op;
    const char *key; /* NULL when absent */
    bool has_run_id;
    char run_id[37]; /* lower-cased UUID */
    enum scout_kind kind;
    int64_t units;
    void *signals;          /* finish: the json_t array (items checked one by one later) */
    size_t nsignals;        /* its length */
    char *evaluations_json; /* compact JSON, NULL when absent */
    char *checkpoints_json; /* compact JSON, NULL when absent */
    char *report_json;      /* compact JSON, NULL when absent */
    char body_hash[65];     /* SHA-256 (hex) of the exact body bytes */
    void *doc;              /* the parsed document the strings point into */
};

/* Parses and checks a body for its op: known fields only, the fields the op requires and
 * no field it does not use, types and ranges. Returns 0, or -1 with a message that names
 * the field in err. On success release it with scout_request_release(). */
int scout_request_parse(const char *body, size_t len, struct scout_request *out, char *err,
                        size_t errlen);
void scout_request_release(struct scout_request *r);

/* key: 1..100 characters of valid UTF-8 without control characters. */
bool scout_key_valid(const char *s);

/* ---- signals ---- */

struct scout_signal {
    const char *url, *author, *text, *game_id, *clock; /* NULL when absent or null */
    int64_t posted_at;                                 /* INT64_MIN when absent */
    int64_t period;                                    /* INT64_MIN when absent */
    char *canonical_url;                               /* malloc'd */
    char content_hash[65];                             /* "" when the text is too short */
    char domain[256];                                  /* registrable domain */
};

/* Checks one item of signals (a json_t *) and derives its canonical URL, content hash and
 * registrable domain. Returns 0, or -1 with the offending field's name in field (size 16)
 * and a message in err. On success release it with scout_signal_release(). The strings
 * point into the item. */
int scout_signal_parse(const void *item, struct scout_signal *out, char field[16], char *err,
                       size_t errlen);
void scout_signal_release(struct scout_signal *s);

/* The canonical form of an http(s) URL for deduplication: https, lower-case host without
 * "www." / "mobile." / "m.", twitter.com as x.com, no user information, default port,
 * fragment or trailing slash, tracking parameters (utm_*, fbclid, gclid, …; the whole
 * query on x.com) removed and the remaining parameters sorted. Returns a malloc'd string,
 * or NULL when url is not an absolute http(s) URL with a host. */
char *scout_canonical_url(const char *url);

/* The content hash of a text: SHA-256 (hex) of its normalised form (ASCII lower case, URLs
 * removed, white space collapsed and trimmed); "" when that form has fewer than
 * SCOUT_HASH_TEXT_MIN characters, too little to identify content. */
void scout_content_hash(const char *text, char out[65]);

/* The server's score of a signal, 0..100: how well it anchors a play (a known game, a
 * period, a clock) and how much it says (text, time, author). */
int scout_signal_score(const struct scout_signal *s, bool game_known);

/* Seconds of a game clock "M:SS" / "MM:SS", or -1 when malformed. */
int scout_clock_seconds(const char *clock);

#endif
