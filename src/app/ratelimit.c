/* Rolling-window limits over the store: the one place that reads and moves a subject's
 * window (one rate_windows row, domain/ratelimit.h is the rule). */
#include "app/app.h"
#include "domain/address.h"
#include "domain/ratelimit.h"
#include "domain/voter.h"
#include "store/votes.h"

int app_rate_limited(struct store *s, const char *subject, int limit, int64_t window_us,
                     int64_t now, int64_t *retry_s)
{
    int64_t count = 0, started = 0;
    int rc = rate_windows_get(s, subject, &count, &started);
    if (rc < 0)
        return rc;
    return rate_window_check(count, started, limit, window_us, now, retry_s);
}

int app_rate_record(struct store *s, const char *subject, int64_t window_us, int64_t now)
{
    int64_t count = 0, started = 0;
    int rc = rate_windows_get(s, subject, &count, &started);
    if (rc < 0)
        return rc;
    rate_window_add(&count, &started, window_us, now);
    return rate_windows_put(s, subject, count, started);
}

void app_address_hash(const char *addr, char out[65])
{
    char key[ADDRESS_TEXT_MAX];
    address_limit_key(addr ? addr : "", key, sizeof key);
    voter_hash("ip", key, out);
}
