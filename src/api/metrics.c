/*
 * GET /metrics (docs/operators.md "Metrics"), served only on --metrics-listen: the request
 * counters of the HTTP layer, the store's failures, what the use cases count, and the
 * worker's queues and task outcomes read from the database at scrape time. Prometheus text
 * exposition format 0.0.4.
 */
#include "api/api.h"
#include "app/metrics.h"
#include "store/bodies.h"
#include "store/fragments.h"
#include "store/listindex.h"
#include "store/tallies.h"
#include "util/timefmt.h"

/* One labelled sample line. */
static void sample(struct buf *out, const char *name, const char *label, const char *value,
                   long long v)
{
    buf_printf(out, "%s{%s=\"%s\"} %lld\n", name, label, value, v);
}

static void family(struct buf *out, const char *name, const char *type, const char *help)
{
    buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A family of one sample without labels. */
static void single(struct buf *out, const char *name, const char *type, const char *help,
                   long long v)
{
    family(out, name, type, help);
    buf_printf(out, "%s %lld\n", name, v);
}

/* A counter family of two samples by their "answer" label: a (na of them) and b (nb). */
static void answers(struct buf *out, const char *name, const char *help, const char *a, int64_t na,
                    const char *b, int64_t nb)
{
    family(out, name, "counter", help);
    sample(out, name, "answer", a, na);
    sample(out, name, "answer", b, nb);
}

void api_metrics_write(struct buf *out)
{
    http_metrics_write(out);

    int64_t error, busy, gone;
    store_error_counts(&error, &busy, &gone);
    family(out, "whistle_store_errors_total", "counter",
           "Database calls that failed, by kind: error (a bug or a refused statement), busy "
           "(a lock or the read budget ran out), gone (the database could not be reached).");
    sample(out, "whistle_store_errors_total", "kind", "error", error);
    sample(out, "whistle_store_errors_total", "kind", "busy", busy);
    sample(out, "whistle_store_errors_total", "kind", "gone", gone);

    int64_t leased, own, waits;
    store_lease_counts(&leased, &own, &waits);
    answers(out, "whistle_version_reads_total",
            "Requests' version reads under --version-lease (PostgreSQL) by what answered them: "
            "lease (the watcher's poll, no round trip) or own (the poll was older than the "
            "lease: the request's own round trip).",
            "lease", leased, "own", own);
    single(out, "whistle_version_lease_waits_total", "counter",
           "Commits that moved a version and waited the lease before their answer.", waits);

    single(out, "whistle_ballots_cast_total", "counter",
           "Fan Verdict ballots committed by this process (new or changed).",
           app_count_value(APP_COUNT_BALLOTS));

    int64_t served, missed;
    size_t indexed, bytes;
    listindex_counts(&served, &missed);
    listindex_current(&indexed, &bytes);
    answers(out, "whistle_list_index_requests_total",
            "Incident and game list requests (a game's incidents aside) by what answered them: "
            "index (the in-memory list index of the request's content version) or sql (none "
            "was there).",
            "index", served, "sql", missed);
    single(out, "whistle_list_index_incidents", "gauge",
           "Published incidents the current list index holds (0: no index yet, or none).",
           (long long)indexed);
    single(out, "whistle_list_index_bytes", "gauge",
           "Approximate memory of the current list index (twice while it is rebuilt).",
           (long long)bytes);

    int64_t hits, misses;
    fragments_cache_counts(&hits, &misses, &bytes);
    answers(out, "whistle_fragment_cache_reads_total",
            "Incidents read for the API (a single or a list page's) by what answered them: "
            "cache (the in-memory copy read at the request's versions) or database.",
            "cache", hits, "database", misses);
    single(out, "whistle_fragment_cache_bytes", "gauge",
           "Memory the fragments' cache holds (at most --fragment-cache-mb).", (long long)bytes);

    size_t kept;
    bool loaded;
    bodies_counts(&hits, &misses, &kept, &bytes, &loaded);
    answers(out, "whistle_fragment_bodies_reads_total",
            "PostgreSQL: bodies of valid fragments a read asked the node's copy for, by what "
            "answered them: copy (held under the hash read with the facts) or database.",
            "copy", hits, "database", misses);
    single(out, "whistle_fragment_bodies", "gauge",
           "Fragments' bodies the node's copy holds (PostgreSQL, --fragment-bodies-mb).",
           (long long)kept);
    single(out, "whistle_fragment_bodies_bytes", "gauge",
           "Memory the node's copy of the fragments' bodies holds, compressed.", (long long)bytes);
    single(out, "whistle_fragment_bodies_loaded", "gauge",
           "1 once the node's copy has read every stored body at start (or has none to read).",
           (long long)loaded);

    struct tallies_counts tc;
    tallies_counts(&tc);
    single(out, "whistle_tally_copy_reads_total", "counter",
           "Incidents whose tallies a read took from the process's copy "
           "(--tally-copy-mb) instead of the database.",
           tc.hits);
    answers(out, "whistle_tally_copy_checks_total",
            "Reads that asked whether the tally copy holds their versions, by answer: "
            "caught_up (it ran a catch-up over the change feed) or behind (it could not, and "
            "the read took its tallies from the database).",
            "caught_up", tc.catch_ups, "behind", tc.behind);
    single(out, "whistle_tally_copy_loads_total", "counter",
           "Whole reads of the tally copy (at start, and when a catch-up found too much).",
           tc.loads);
    single(out, "whistle_tally_copy_incidents", "gauge",
           "Incident question versions with ballots the tally copy holds (0: none, or not "
           "loaded).",
           (long long)tc.entries);
    single(out, "whistle_tally_copy_bytes", "gauge", "Memory the tally copy holds.",
           (long long)tc.bytes);

    struct arena a;
    arena_init(&a);
    struct app_ctx c = {.s = store_thread(), .a = &a, .now = time_now_us()};
    struct store_gauges g;
    bool up = c.s && metrics_read(&c, &g) == APP_OK;
    arena_release(&a);
    family(out, "whistle_database_up", "gauge",
           "1 when this scrape could read the database's gauges below, 0 when not (they are "
           "then left out).");
    buf_printf(out, "whistle_database_up %d\n", up ? 1 : 0);
    if (!up)
        return;
    family(out, "whistle_leads", "gauge",
           "Agent leads by status, as the database holds them now: the research queue "
           "(pending, running) and its outcomes (published, rejected, duplicate, failed).");
    for (int k = 0; k < LEAD_STATUS_COUNT; k++)
        sample(out, "whistle_leads", "status", lead_status_names[k], g.leads[k]);
    family(out, "whistle_outbox_messages", "gauge",
           "Account emails by state: queued (not yet sent or given up), sent, failed.");
    sample(out, "whistle_outbox_messages", "state", "queued", g.outbox_queued);
    sample(out, "whistle_outbox_messages", "state", "sent", g.outbox_sent);
    sample(out, "whistle_outbox_messages", "state", "failed", g.outbox_failed);
    family(out, "whistle_worker_queue_depth", "gauge",
           "Work a worker may claim now: pending leads and queued emails whose attempt is due.");
    sample(out, "whistle_worker_queue_depth", "queue", "leads", g.leads_due);
    sample(out, "whistle_worker_queue_depth", "queue", "outbox", g.outbox_due);
}
