#ifndef WHISTLE_DOMAIN_RESEARCH_H
#define WHISTLE_DOMAIN_RESEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The rules of lead research (issue 4; api-v1.md "What the service does" 4-5): when a lead
 * names a specific play of a played game, when a failed fetch is worth retrying, when two
 * reports are the same play, and the publication gates. Pure: every input, `now` included,
 * is an argument. A lead is never a verdict: nothing here reads the submitter's confidence,
 * and the submitter's description never counts as discussion.
 *
 * The thresholds are one table, struct research_policy, with its defaults below; operators
 * change them with serve/worker options (docs/research.md).
 */
struct research_policy {
    int min_domains;         /* independent discussion: distinct registrable domains */
    int clock_window_s;      /* two reports of one period within this many seconds: same play */
    int max_attempts;        /* research attempts before a transient failure is final */
    int64_t backoff_base_us; /* first retry delay, doubled per attempt */
    int64_t backoff_max_us;  /* longest retry delay */
};

#define RESEARCH_MIN_DOMAINS_DEFAULT 2

#define RESEARCH_POLICY_DEFAULT                                                                    \
    {                                                                                              \
        RESEARCH_MIN_DOMAINS_DEFAULT, 30, 3, INT64_C(30) * 1000000, INT64_C(3600) * 1000000        \
    }

/* What research knows about a lead when a decision is due. */
struct research_facts {
    bool game_found;
    const char *game_status; /* games.status */
    int64_t game_starts_at;  /* INT64_MIN when unknown */
    int64_t game_period;     /* the game's last known period, INT64_MIN when unknown */
    int64_t period;          /* the lead's, INT64_MIN when absent */
    const char *clock;       /* the lead's, NULL when absent */
    int urls;                /* source URLs of the lead */
    int fetched;             /* of those, answered 2xx */
    int transient;           /* of the others, failures worth retrying */
    int mention_domains;     /* distinct registrable domains of 2xx pages naming a team */
    int scout_domains;       /* same, from scout signals; 0 unless scout candidates are on */
    bool scout_enabled;
    int attempts; /* research attempts so far, this one included */
};

enum research_verdict {
    RESEARCH_CONTINUE,  /* this stage passed: go on */
    RESEARCH_CANDIDATE, /* every gate passed */
    RESEARCH_REJECTED,
    RESEARCH_RETRY, /* transient: back to pending after research_backoff_us() */
    RESEARCH_FAILED,
};

struct research_decision {
    enum research_verdict verdict;
    const char *gate; /* the rule that decided (a name from the gate table) */
    char reason[320];
};

/* Resolution (step 2): the game exists and has been played, and the lead names a specific
 * play (a period the game reached, and a clock). RESEARCH_CONTINUE or RESEARCH_REJECTED. */
void research_resolve(const struct research_facts *f, int64_t now, struct research_decision *d);

/* After the fetches (step 3): no source answered → retry while failures were transient and
 * attempts remain, failed when they ran out, rejected when every failure was permanent. */
void research_after_fetch(const struct research_facts *f, const struct research_policy *p,
                          struct research_decision *d);

/* The publication gates (step 5), in table order; the first that fails decides. Each
 * gate's outcome is passed to `each` (may be NULL) so the caller can record it. */
void research_gates(const struct research_facts *f, const struct research_policy *p,
                    void (*each)(void *ctx, const char *gate, bool passed, const char *reason),
                    void *ctx, struct research_decision *d);

/* Delay before retry number `attempts` (1 = the first retry). */
int64_t research_backoff_us(const struct research_policy *p, int attempts);

/* A fetch failure worth retrying: timeouts, unreachable hosts, 408, 429 and 5xx answers.
 * error is the fetcher's code (NULL when a response came), status the HTTP status. */
bool research_fetch_transient(const char *error, long status);

/* "M:SS"/"MM:SS" → seconds, or -1. */
int research_clock_seconds(const char *clock);

/* Two reports of one game describe the same play: same period, clocks within the window,
 * and the same category when both name one. Unknown periods or clocks never match. */
bool research_same_play(int64_t period_a, const char *clock_a, const char *category_a,
                        int64_t period_b, const char *clock_b, const char *category_b,
                        int window_s);

/* The text names one of names[] (case-insensitive, on word boundaries; names shorter than
 * 3 characters are ignored). */
bool research_mentions(const char *text, size_t len, const char *const *names, size_t n);

/* A neutral headline for a published lead: "Debated penalty call: Michigan at Ohio State,
 * Q4 2:13". Never uses the submitter's words. Returns the length written to out. */
size_t research_title(const char *category, const char *away, const char *home, int64_t period,
                      const char *clock, char *out, size_t n);

/* "Q4", "OT", "2OT" for a period (1-4 quarters, 5+ overtimes). */
void research_period_label(int64_t period, char *out, size_t n);

/* Whether a lead is a candidate waiting for an operator: running, with candidate_at set
 * (INT64_MIN when unset). */
bool research_is_candidate(const char *status, int64_t candidate_at);

#endif
