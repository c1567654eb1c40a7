/* The database's gauges for GET /metrics (store/metrics.h): SQL only. */
#include "store/metrics.h"

#include <string.h>

int store_gauges_read(struct store *s, int64_t now, struct store_gauges *out)
{
    memset(out, 0, sizeof *out);
    struct store_stmt *st = store_prepare(
        s, "SELECT status, count(*), coalesce(sum(CASE WHEN status = 'pending' AND"
           " coalesce(next_attempt_at, 0) <= ? THEN 1 ELSE 0 END), 0) FROM leads GROUP BY status");
    if (!st)
        return STORE_ERR;
    store_bind_int(st, 1, now);
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        int k = vocab_find(lead_status_names, store_col_text(st, 0));
        if (k >= 0)
            out->leads[k] = store_col_int(st, 1);
        out->leads_due += store_col_int(st, 2);
    }
    store_reset(st);
    if (rc < 0)
        return rc;
    st = store_prepare(
        s, "SELECT coalesce(sum(CASE WHEN sent_at IS NULL AND failed_at IS NULL THEN 1 ELSE 0"
           " END), 0), coalesce(sum(CASE WHEN sent_at IS NULL AND failed_at IS NULL AND"
           " next_attempt_at <= ? THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN sent_at IS NOT"
           " NULL THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN failed_at IS NOT NULL THEN 1"
           " ELSE 0 END), 0) FROM outbox");
    if (!st)
        return STORE_ERR;
    store_bind_int(st, 1, now);
    rc = store_step(st);
    if (rc == STORE_ROW) {
        out->outbox_queued = store_col_int(st, 0);
        out->outbox_due = store_col_int(st, 1);
        out->outbox_sent = store_col_int(st, 2);
        out->outbox_failed = store_col_int(st, 3);
    }
    store_reset(st);
    return rc < 0 ? rc : 0;
}
