#ifndef WHISTLE_DOMAIN_RATELIMIT_H
#define WHISTLE_DOMAIN_RATELIMIT_H

#include <stdint.h>

/*
 * The one rolling-window rule behind every per-subject limit (ballots per voter and per
 * address, failed sign-ins, sign-up and reset forms), over one bounded counter per subject
 * (the rate_windows row, migration 009): a fixed window anchored at the subject's first
 * event — `started`, the time of that event, and `count`, the events since. Another event
 * is allowed while the window is over (now - started >= window_us) or count < limit; the
 * first event after the window opens a new one. So a subject gets `limit` events per
 * window, and at most 2 × limit inside any span of window_us (a burst at the end of one
 * window and one at the start of the next). O(1) in time and space, unlike the event log
 * it replaced. PostgreSQL's whistle_ballot (migration 025) restates this rule
 * server-side for the one-round-trip ballot; tests/http/test_votes.py proves both.
 * Pure: `now` comes from the caller.
 */

/* 0 when another event is allowed, else 1 and *retry_s, the whole seconds (at least 1)
 * until the window ends. A subject with no window yet has count 0. */
int rate_window_check(int64_t count, int64_t started, int limit, int64_t window_us, int64_t now,
                      int64_t *retry_s);

/* Counts one event at now into (*count, *started): a new window (1, now) when there was
 * none (*count 0) or the old one is over, else one more in the same window. */
void rate_window_add(int64_t *count, int64_t *started, int64_t window_us, int64_t now);

#endif
