#ifndef WHISTLE_APP_METRICS_H
#define WHISTLE_APP_METRICS_H

#include <stdint.h>

#include "app/app.h"
#include "store/metrics.h"

/*
 * What the use cases count for GET /metrics (docs/operators.md "Metrics"): process-wide
 * counters bumped lock-free (C11 atomics, relaxed) when a use case commits, and the
 * database's gauges read at scrape time.
 */
enum app_counter {
    APP_COUNT_BALLOTS, /* ballots cast (new or changed), committed */
    APP_COUNTERS,
};
void app_count(enum app_counter which);
int64_t app_count_value(enum app_counter which);

/* The worker's queues and task outcomes as the database holds them now (one read
 * transaction): APP_OK with *out, or APP_UNAVAILABLE. */
int metrics_read(const struct app_ctx *c, struct store_gauges *out);

#endif
