/* The database's gauges for GET /metrics (store/metrics.h): SQL only. */
#include "store/metrics.h"

#include <string.h>

/* A row of leads by status: its count, and how many of them are due. */
static int lead_row(void *ctx, struct store_stmt *st)
{
    struct store_gauges *out = ctx;
    int k = vocab_find(lead_status_names, store_col_text(st, 0));
    if (k >= 0)
        out->leads[k] = store_col_int(st, 1);
    out->leads_due += store_col_int(st, 2);
    return 0;
}

static void read_outbox(struct arena *a, struct store_stmt *st, void *row, size_t k)
{
    (void)a;
    struct store_gauges *out = &((struct store_gauges *)row)[k];
    out->outbox_queued = store_col_int(st, 0);
    out->outbox_due = store_col_int(st, 1);
    out->outbox_sent = store_col_int(st, 2);
    out->outbox_failed = store_col_int(st, 3);
}

int store_gauges_read(struct store *s, int64_t now, struct store_gauges *out)
{
    memset(out, 0, sizeof *out);
    STORE_TRY(store_rows(
        STORE_SELECT(
            s,
            "SELECT status, count(*), coalesce(sum(CASE WHEN status = 'pending' AND"
            " coalesce(next_attempt_at, 0) <= ? THEN 1 ELSE 0 END), 0) FROM leads GROUP BY status",
            STORE_INT(now)),
        lead_row, out));
    int rc = store_read_one(
        STORE_SELECT(
            s,
            "SELECT coalesce(sum(CASE WHEN sent_at IS NULL AND failed_at IS NULL THEN 1 ELSE 0"
            " END), 0), coalesce(sum(CASE WHEN sent_at IS NULL AND failed_at IS NULL AND"
            " next_attempt_at <= ? THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN sent_at IS NOT"
            " NULL THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN failed_at IS NOT NULL THEN 1"
            " ELSE 0 END), 0) FROM outbox",
            STORE_INT(now)),
        NULL, read_outbox, out);
    return rc < 0 ? rc : 0;
}
