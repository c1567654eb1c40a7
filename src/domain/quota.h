#ifndef WHISTLE_DOMAIN_QUOTA_H
#define WHISTLE_DOMAIN_QUOTA_H

#include <stdint.h>

/*
 * Lead quotas (api-v1.md Limits): 3 per minute and 20 per rolling day per agent, 200 per
 * day for all agents together. Every window is rolling: a lead accepted at time t counts
 * while now - t < window, so it stops counting exactly `window` after it was accepted.
 * The windows are fixed here; the amounts are serve's options (--lead-quota-minute,
 * --lead-quota-day, --lead-quota-global: the spec's 3, 20 and 200 by default, raised only
 * for a load test), so every function that decides takes them as max[QUOTA_COUNT].
 */
#define QUOTA_MINUTE_US (INT64_C(60) * 1000000)
#define QUOTA_DAY_US    (INT64_C(86400) * 1000000)

enum quota_limit { QUOTA_AGENT_MINUTE, QUOTA_AGENT_DAY, QUOTA_GLOBAL_DAY, QUOTA_COUNT };

/* The spec's amounts: the options' defaults (cli/settings.c). */
#define QUOTA_AGENT_MINUTE_MAX 3
#define QUOTA_AGENT_DAY_MAX    20
#define QUOTA_GLOBAL_DAY_MAX   200

struct quota_rule {
    const char *name; /* RateLimit policy name */
    int64_t window_us;
    /* for messages, around the amount: "per-agent" limit of 3 leads "per minute" */
    const char *who, *span;
};

extern const struct quota_rule quota_rules[QUOTA_COUNT];

/* What the store counted for each window: the number of leads accepted inside it and
 * the oldest acceptance time among them (INT64_MIN when none). */
struct quota_usage {
    int64_t count[QUOTA_COUNT];
    int64_t oldest[QUOTA_COUNT];
};

struct quota_decision {
    int exceeded;          /* -1 when a lead may be accepted, else the enum quota_limit */
    int64_t retry_after_s; /* when exceeded: whole seconds until a slot frees (>= 1) */
    int tightest;          /* the rule closest to exhaustion (for the RateLimit field) */
    int64_t remaining;     /* its remaining leads (after this one when accepted) */
    int64_t reset_s;       /* seconds until its oldest counted lead leaves the window */
};

/* The start of a rule's window at now: leads with created_at > start count. */
int64_t quota_window_start(enum quota_limit limit, int64_t now);

/* Decides whether one more lead fits at now given usage and the amounts max (leads per
 * window, in the rules' order). When it fits, `remaining` already counts it; when it does
 * not, `exceeded` names the first limit hit and `retry_after_s` waits for every exhausted
 * limit. */
struct quota_decision quota_decide(const struct quota_usage *u, const int64_t max[QUOTA_COUNT],
                                   int64_t now);

#endif
