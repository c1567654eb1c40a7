#ifndef WHISTLE_STORE_METRICS_H
#define WHISTLE_STORE_METRICS_H

#include <stdint.h>

#include "domain/vocab.h"
#include "store/store.h"

/*
 * What GET /metrics reads from the database at scrape time (app/metrics.h): the worker's
 * queues and the outcomes of its tasks, as rows stand now (every node and worker of a
 * deployment sees the same numbers). 0 or a negative store_rc; the caller owns the read
 * transaction.
 */
struct store_gauges {
    int64_t leads[LEAD_STATUS_COUNT]; /* leads by status (lead_status_names) */
    int64_t leads_due;                /* pending leads whose next attempt is due now */
    int64_t outbox_queued, outbox_due, outbox_sent, outbox_failed; /* email by state */
};
int store_gauges_read(struct store *s, int64_t now, struct store_gauges *out);

#endif
