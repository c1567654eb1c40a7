#ifndef WHISTLE_DOMAIN_RATELIMIT_H
#define WHISTLE_DOMAIN_RATELIMIT_H

#include <stdint.h>

/*
 * The one rolling-window rule behind every per-subject limit (ballots per voter and per
 * address, failed sign-ins, sign-up and reset forms): with `count` events after
 * now - window_us, the oldest of them at `oldest`, another event is allowed while
 * count < limit. Pure: `now` comes from the caller.
 */

/* 0 when another event is allowed, else 1 and *retry_s, the whole seconds (at least 1)
 * until the oldest counted event leaves the window. */
int rate_window_check(int64_t count, int64_t oldest, int limit, int64_t window_us, int64_t now,
                      int64_t *retry_s);

#endif
