#include "domain/ballotlimit.h"

#include "domain/ratelimit.h"

bool ballot_window_applies(enum ballot_window k, bool account, bool new_voter)
{
    switch (k) {
    case BALLOT_WINDOW_VOTER:
    case BALLOT_WINDOW_ADDRESS:
        return true;
    case BALLOT_WINDOW_ANON:
        return !account;
    case BALLOT_WINDOW_NEW_VOTER:
        return !account && new_voter;
    default:
        return false;
    }
}

int64_t ballot_window_us(enum ballot_window k)
{
    switch (k) {
    case BALLOT_WINDOW_ANON:
        return BALLOT_ANON_DAY_US;
    case BALLOT_WINDOW_NEW_VOTER:
        return BALLOT_NEW_VOTER_US;
    default:
        return BALLOT_MINUTE_US;
    }
}

enum ballot_window ballot_windows_check(const struct ballot_window_state w[BALLOT_WINDOWS],
                                        int64_t now, int64_t *retry_s)
{
    for (int k = 0; k < BALLOT_WINDOWS; k++)
        if (w[k].applies &&
            rate_window_check(w[k].count, w[k].started, w[k].limit, w[k].window_us, now, retry_s))
            return (enum ballot_window)k;
    return BALLOT_WINDOWS;
}
