/* Rolling-window limits over the store: the one place that counts and records events
 * (today in the vote_events table; issue 20 moves them to bounded counter rows). */
#include "app/app.h"
#include "domain/ratelimit.h"
#include "store/votes.h"

int app_rate_limited(struct store *s, const char *subject, int limit, int64_t window_us,
                     int64_t now, int64_t *retry_s)
{
    int64_t count = 0, oldest = 0;
    int rc = vote_events_count(s, subject, now - window_us, &count, &oldest);
    if (rc < 0)
        return rc;
    return rate_window_check(count, oldest, limit, window_us, now, retry_s);
}

int app_rate_record(struct store *s, const char *subject, int64_t window_us, int64_t now)
{
    return vote_events_record(s, subject, now, now - window_us);
}
