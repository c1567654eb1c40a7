#ifndef WHISTLE_DOMAIN_BALLOTLIMIT_H
#define WHISTLE_DOMAIN_BALLOTLIMIT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Which rolling windows a Fan Verdict ballot must pass (issue 14, items 2 and 3;
 * docs/pages.md "The Fan Verdict's integrity"). Each is one bounded rate_windows row under
 * the rule of domain/ratelimit.h; the client address is the trusted one of
 * http_client_addr, an IPv6 address counted per /64.
 *
 *   voter       every ballot: ballots per voter per minute (--vote-limit-voter)
 *   address     every ballot: ballots per client address per minute (--vote-limit-ip)
 *   anon        an anonymous ballot: anonymous ballots per client address per debate per
 *               day (--anon-vote-limit-ip, 20): dropping the voter cookie gives a new voter
 *               but not a new address, so one address counts at most 20 anonymous
 *               voters on a debate a day, however many cookies it throws away
 *   new voter   an anonymous voter's first ballot anywhere: new anonymous voters per client
 *               address per hour (--new-voter-limit-ip, 30). A voter cookie is minted by
 *               the page without a write (it is signed, not stored); it counts as minted
 *               when it first votes, so cookies collected elsewhere and spent from one
 *               address count there too
 *
 * An account's ballots pass only the first two: signed-in voters are not capped per
 * address. PostgreSQL's whistle_ballot (migration 025) applies the same windows in the
 * ballot's one round trip.
 */
#define BALLOT_MINUTE_US    (INT64_C(60) * 1000000)
#define BALLOT_ANON_DAY_US  (INT64_C(86400) * 1000000)
#define BALLOT_NEW_VOTER_US (INT64_C(3600) * 1000000)

enum ballot_window {
    BALLOT_WINDOW_VOTER,
    BALLOT_WINDOW_ADDRESS,
    BALLOT_WINDOW_ANON,
    BALLOT_WINDOW_NEW_VOTER,
    BALLOT_WINDOWS
};

/* One window as read: its limit, length, and the row's (count, started); count 0 when the
 * subject has none yet. applies false: the window is not this ballot's. */
struct ballot_window_state {
    bool applies;
    int limit;
    int64_t window_us;
    int64_t count, started;
};

/* The window of kind k: whether it applies to a ballot by an account or an anonymous voter
 * (new_voter: one with no ballot yet), and its length. */
bool ballot_window_applies(enum ballot_window k, bool account, bool new_voter);
int64_t ballot_window_us(enum ballot_window k);

/* Checks the windows in the order of enum ballot_window: BALLOT_WINDOWS when every window
 * that applies takes another ballot at now, else the first full one, with *retry_s the
 * whole seconds (at least 1) until it ends. Pure. */
enum ballot_window ballot_windows_check(const struct ballot_window_state w[BALLOT_WINDOWS],
                                        int64_t now, int64_t *retry_s);

#endif
