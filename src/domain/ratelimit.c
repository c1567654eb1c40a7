#include "domain/ratelimit.h"

#define SEC_US INT64_C(1000000)

static int over(int64_t count, int64_t started, int64_t window_us, int64_t now)
{
    return count <= 0 || now - started >= window_us;
}

int rate_window_check(int64_t count, int64_t started, int limit, int64_t window_us, int64_t now,
                      int64_t *retry_s)
{
    if (over(count, started, window_us, now) || count < limit)
        return 0;
    int64_t wait = (started + window_us - now + SEC_US - 1) / SEC_US;
    *retry_s = wait < 1 ? 1 : wait;
    return 1;
}

void rate_window_add(int64_t *count, int64_t *started, int64_t window_us, int64_t now)
{
    if (over(*count, *started, window_us, now)) {
        *count = 1;
        *started = now;
    } else {
        (*count)++;
    }
}
