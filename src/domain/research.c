#include "domain/research.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "domain/vocab.h"

static void decide(struct research_decision *d, enum research_verdict v, const char *gate,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void decide(struct research_decision *d, enum research_verdict v, const char *gate,
                   const char *fmt, ...)
{
    va_list ap;
    d->verdict = v;
    d->gate = gate;
    va_start(ap, fmt);
    vsnprintf(d->reason, sizeof d->reason, fmt, ap);
    va_end(ap);
}

int research_clock_seconds(const char *clock)
{
    if (!clock)
        return -1;
    const char *colon = strchr(clock, ':');
    size_t n = strlen(clock);
    if (!colon || (colon - clock != 1 && colon - clock != 2) || n - (size_t)(colon - clock) != 3)
        return -1;
    int minutes = 0;
    for (const char *p = clock; p < colon; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        minutes = minutes * 10 + (*p - '0');
    }
    if (colon[1] < '0' || colon[1] > '5' || colon[2] < '0' || colon[2] > '9' || minutes > 15)
        return -1;
    return minutes * 60 + (colon[1] - '0') * 10 + (colon[2] - '0');
}

void research_period_label(int64_t period, char *out, size_t n)
{
    if (period >= 1 && period <= 4)
        snprintf(out, n, "Q%lld", (long long)period);
    else if (period == 5)
        snprintf(out, n, "OT");
    else if (period > 5)
        snprintf(out, n, "%lldOT", (long long)(period - 4));
    else
        snprintf(out, n, "period unknown");
}

bool research_is_candidate(const char *status, int64_t candidate_at)
{
    return vocab_find(lead_status_names, status) == LEAD_STATUS_RUNNING &&
           candidate_at != INT64_MIN;
}

/* Games that cannot have had the play yet: api-v1.md Game status values. */
static bool not_played(const char *status)
{
    return vocab_find(unplayed_game_status_names, status) >= 0;
}

void research_resolve(const struct research_facts *f, int64_t now, struct research_decision *d)
{
    if (!f->game_found) {
        decide(d, RESEARCH_REJECTED, "game", "the game named by the lead does not exist");
        return;
    }
    if (not_played(f->game_status)) {
        decide(d, RESEARCH_REJECTED, "game", "the game has not been played (status %s)",
               f->game_status);
        return;
    }
    if (f->game_starts_at != INT64_MIN && f->game_starts_at > now) {
        decide(d, RESEARCH_REJECTED, "game", "the game has not kicked off yet");
        return;
    }
    if (f->period == INT64_MIN) {
        decide(d, RESEARCH_REJECTED, "play",
               "unknown play: the lead names no period, so no specific play can be resolved");
        return;
    }
    if (f->game_period != INT64_MIN && f->period > f->game_period) {
        decide(d, RESEARCH_REJECTED, "play",
               "unknown play: period %lld is after the game's last period (%lld)",
               (long long)f->period, (long long)f->game_period);
        return;
    }
    if (research_clock_seconds(f->clock) < 0) {
        decide(d, RESEARCH_REJECTED, "play",
               "unknown play: the lead names no game clock, so no specific play can be resolved");
        return;
    }
    decide(d, RESEARCH_CONTINUE, "play", "game and play resolved");
}

void research_after_fetch(const struct research_facts *f, const struct research_policy *p,
                          struct research_decision *d)
{
    if (f->fetched > 0) {
        decide(d, RESEARCH_CONTINUE, "fetch", "%d of %d sources answered", f->fetched, f->urls);
        return;
    }
    if (f->transient > 0 && f->attempts < p->max_attempts) {
        decide(d, RESEARCH_RETRY, "fetch",
               "no source could be fetched (%d transient failures); attempt %d of %d", f->transient,
               f->attempts, p->max_attempts);
        return;
    }
    if (f->transient > 0) {
        decide(d, RESEARCH_FAILED, "fetch",
               "no source could be fetched after %d attempts (last failures transient)",
               f->attempts);
        return;
    }
    decide(d, RESEARCH_REJECTED, "fetch",
           "unreachable sources: none of the %d source URLs "
           "could be fetched",
           f->urls);
}

/* ---- the gate table ---- */

typedef bool (*gate_check)(const struct research_facts *f, const struct research_policy *p,
                           char *why, size_t n);

static bool gate_reachable(const struct research_facts *f, const struct research_policy *p,
                           char *why, size_t n)
{
    (void)p;
    snprintf(why, n, "%d of %d source URLs answered", f->fetched, f->urls);
    return f->fetched > 0;
}

/* "independent discussion collected by the service itself" (spec item 5): pages the service
 * fetched from enough distinct publishers that name the game's teams, or, when the server
 * enables it, scout signals about the same game and play. */
static bool gate_discussion(const struct research_facts *f, const struct research_policy *p,
                            char *why, size_t n)
{
    bool pages = f->mention_domains >= p->min_domains;
    bool scouts = f->scout_enabled && f->scout_domains >= p->min_domains;
    if (f->scout_enabled)
        snprintf(why, n,
                 "independent discussion: %d distinct domains name the teams, %d scout signal "
                 "domains agree on the play (need %d)",
                 f->mention_domains, f->scout_domains, p->min_domains);
    else
        snprintf(why, n, "independent discussion: %d distinct domains name the teams (need %d)",
                 f->mention_domains, p->min_domains);
    return pages || scouts;
}

static const struct {
    const char *name;
    gate_check check;
} gates[] = {
    {"sources_reachable", gate_reachable},
    {"independent_discussion", gate_discussion},
};

void research_gates(const struct research_facts *f, const struct research_policy *p,
                    void (*each)(void *ctx, const char *gate, bool passed, const char *reason),
                    void *ctx, struct research_decision *d)
{
    char why[256];
    for (size_t i = 0; i < sizeof gates / sizeof gates[0]; i++) {
        bool ok = gates[i].check(f, p, why, sizeof why);
        if (each)
            each(ctx, gates[i].name, ok, why);
        if (!ok) {
            decide(d, RESEARCH_REJECTED, gates[i].name, "%s", why);
            return;
        }
    }
    decide(d, RESEARCH_CANDIDATE, "all", "every publication gate passed");
}

int64_t research_backoff_us(const struct research_policy *p, int attempts)
{
    int64_t d = p->backoff_base_us;
    for (int i = 1; i < attempts && d < p->backoff_max_us; i++)
        d *= 2;
    return d > p->backoff_max_us ? p->backoff_max_us : d;
}

bool research_fetch_transient(const char *error, long status)
{
    if (error)
        return strcmp(error, "timeout") == 0 || strcmp(error, "unreachable") == 0;
    return status == 408 || status == 429 || (status >= 500 && status <= 599);
}

bool research_same_play(int64_t period_a, const char *clock_a, const char *category_a,
                        int64_t period_b, const char *clock_b, const char *category_b, int window_s)
{
    if (period_a == INT64_MIN || period_b == INT64_MIN || period_a != period_b)
        return false;
    int a = research_clock_seconds(clock_a), b = research_clock_seconds(clock_b);
    if (a < 0 || b < 0 || (a > b ? a - b : b - a) > window_s)
        return false;
    return !category_a || !category_b || strcmp(category_a, category_b) == 0;
}

static bool word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

bool research_mentions(const char *text, size_t len, const char *const *names, size_t n)
{
    if (!text)
        return false;
    for (size_t k = 0; k < n; k++) {
        const char *name = names[k];
        size_t m = name ? strlen(name) : 0;
        if (m < 3 || m > len)
            continue;
        for (size_t i = 0; i + m <= len; i++) {
            if (strncasecmp(text + i, name, m) != 0)
                continue;
            bool left = i == 0 || !word_char((unsigned char)text[i - 1]);
            bool right = i + m == len || !word_char((unsigned char)text[i + m]);
            if (left && right)
                return true;
        }
    }
    return false;
}

/* How a title names the category; "officiating decision" for an unknown one. */
static const char *category_phrase(const char *category)
{
    int c = vocab_find(category_names, category);
    return category_words[c >= 0 ? c : CATEGORY_OTHER];
}

size_t research_title(const char *category, const char *away, const char *home, int64_t period,
                      const char *clock, char *out, size_t n)
{
    char p[24];
    research_period_label(period, p, sizeof p);
    int len = snprintf(out, n, "Debated %s: %s at %s, %s%s%s", category_phrase(category),
                       away ? away : "Away", home ? home : "Home", p, clock ? " " : "",
                       clock ? clock : "");
    return len < 0 ? 0 : ((size_t)len >= n ? n - 1 : (size_t)len);
}
