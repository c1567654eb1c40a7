#include "domain/ratelimit.h"

#define SEC_US INT64_C(1000000)

int rate_window_check(int64_t count, int64_t oldest, int limit, int64_t window_us, int64_t now,
                      int64_t *retry_s)
{
    if (count < limit)
        return 0;
    int64_t wait = (oldest + window_us - now + SEC_US - 1) / SEC_US;
    *retry_s = wait < 1 ? 1 : wait;
    return 1;
}
