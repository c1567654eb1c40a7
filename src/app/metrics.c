/* Counters and gauges for GET /metrics (app/metrics.h). */
#include "app/metrics.h"

#include <stdatomic.h>

static atomic_llong counters[APP_COUNTERS];

void app_count(enum app_counter which)
{
    atomic_fetch_add_explicit(&counters[which], 1, memory_order_relaxed);
}

int64_t app_count_value(enum app_counter which)
{
    return atomic_load_explicit(&counters[which], memory_order_relaxed);
}

int metrics_read(const struct app_ctx *c, struct store_gauges *out)
{
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = store_gauges_read(c->s, c->now, out);
    return app_rollback(c, rc, APP_OK);
}
