#include "domain/quota.h"

const struct quota_rule quota_rules[QUOTA_COUNT] = {
    [QUOTA_AGENT_MINUTE] = {"minute", QUOTA_MINUTE_US, "per-agent", "per minute"},
    [QUOTA_AGENT_DAY] = {"day", QUOTA_DAY_US, "per-agent", "per 24 hours"},
    [QUOTA_GLOBAL_DAY] = {"global", QUOTA_DAY_US, "global", "per 24 hours (all agents)"},
};

int64_t quota_window_start(enum quota_limit limit, int64_t now)
{
    return now - quota_rules[limit].window_us;
}

/* Seconds (rounded up, at least 1) until the oldest counted lead leaves the window. */
static int64_t seconds_until_free(const struct quota_usage *u, int k, int64_t now)
{
    if (u->oldest[k] == INT64_MIN)
        return quota_rules[k].window_us / 1000000;
    int64_t us = u->oldest[k] + quota_rules[k].window_us - now;
    int64_t s = (us + 999999) / 1000000;
    return s < 1 ? 1 : s;
}

struct quota_decision quota_decide(const struct quota_usage *u, const int64_t max[QUOTA_COUNT],
                                   int64_t now)
{
    struct quota_decision d = {.exceeded = -1, .retry_after_s = 0, .tightest = 0};
    int64_t best = INT64_MAX;
    for (int k = 0; k < QUOTA_COUNT; k++) {
        int64_t left = max[k] - u->count[k];
        if (left <= 0) {
            /* name the first limit hit; wait until every exhausted one has a slot */
            if (d.exceeded < 0)
                d.exceeded = k;
            int64_t wait = seconds_until_free(u, k, now);
            if (wait > d.retry_after_s)
                d.retry_after_s = wait;
        }
        if (left < best) {
            best = left;
            d.tightest = k;
        }
    }
    d.remaining = best;
    if (d.exceeded < 0)
        d.remaining = best - 1; /* this lead takes one */
    if (d.remaining < 0)
        d.remaining = 0;
    d.reset_s = seconds_until_free(u, d.tightest, now);
    return d;
}
