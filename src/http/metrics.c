/*
 * The HTTP layer's share of GET /metrics (http.h, docs/operators.md "Metrics"): requests by
 * route pattern, method and status, and one latency histogram. Every counter is a C11
 * atomic bumped with relaxed ordering when a request completes (no lock on the request
 * path); a scrape reads them all, so its cost is a constant times the number of routes.
 * The label of a request is its route table row's pattern ("/api/v1/incidents/{id}"),
 * never the raw path: a client cannot grow the set of series.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"

/* The statuses Whistle answers; anything else counts under "other". */
static const int statuses[] = {200, 201, 202, 204, 301, 302, 303, 304, 307, 308,
                               400, 401, 403, 404, 405, 406, 409, 410, 411, 413,
                               414, 415, 422, 429, 431, 500, 501, 503, 0};
#define NSTATUS (sizeof statuses / sizeof statuses[0]) /* the last slot is "other" */

static const char *const methods[] = {"GET",    "HEAD",  "POST",    "PUT",
                                      "DELETE", "PATCH", "OPTIONS", "other"};
#define NMETHOD (sizeof methods / sizeof methods[0])

/* Latency buckets, upper bounds in microseconds (Prometheus "le" in seconds). */
static const int64_t bounds_us[] = {500,    1000,   2500,   5000,    10000,   25000,  50000,
                                    100000, 250000, 500000, 1000000, 2500000, 5000000};
#define NBOUND (sizeof bounds_us / sizeof bounds_us[0])

struct series {
    char *route; /* the pattern, escaped for a label value */
    atomic_llong n[NMETHOD][NSTATUS];
};

static struct series *series; /* [0]: requests no route took ("none"); then one per pattern */
static size_t nseries;
static size_t *series_of; /* route row -> series index */
static const struct route *table;
static size_t ntable;
static atomic_llong buckets[NBOUND + 1]; /* the last: above every bound (+Inf only) */
static atomic_llong total_us;
static atomic_llong cache_hits, cache_misses; /* X-Whistle-Cache answers (cache.h) */

/* A route row's pattern: its path, "{id}" for the segment of a param route, its suffix. */
static char *pattern(const struct route *r)
{
    struct buf b = BUF_INIT;
    buf_puts(&b, r->path);
    if (r->param)
        buf_puts(&b, "{id}");
    if (r->param && r->suffix)
        buf_puts(&b, r->suffix);
    size_t len;
    char *raw = buf_detach(&b, &len);
    /* label values escape backslash, double quote and line feed (none occurs in a path
     * the route table holds, but the format demands it) */
    struct buf e = BUF_INIT;
    for (const char *p = raw; *p; p++) {
        if (*p == '\\' || *p == '"')
            buf_putc(&e, '\\');
        if (*p == '\n')
            buf_puts(&e, "\\n");
        else
            buf_putc(&e, *p);
    }
    free(raw);
    return buf_detach(&e, &len);
}

void http_metrics_init(const struct route *routes, size_t n)
{
    table = routes;
    ntable = n;
    series = calloc(n + 1, sizeof *series);
    series_of = calloc(n ? n : 1, sizeof *series_of);
    if (!series || !series_of) {
        fputs("whistle: out of memory\n", stderr);
        abort();
    }
    series[0].route = strdup("none");
    nseries = 1;
    /* rows with the same pattern (GET and POST of one page) share one series: the method
     * is a label of its own */
    for (size_t i = 0; i < n; i++) {
        char *p = pattern(&routes[i]);
        size_t k = 1;
        while (k < nseries && strcmp(series[k].route, p) != 0)
            k++;
        if (k == nseries)
            series[nseries++].route = p;
        else
            free(p);
        series_of[i] = k;
    }
}

static size_t method_slot(enum http_method m)
{
    for (size_t i = 0; i < NMETHOD - 1; i++)
        if ((unsigned)m == 1u << i)
            return i;
    return NMETHOD - 1;
}

static size_t status_slot(int status)
{
    for (size_t i = 0; i < NSTATUS - 1; i++)
        if (statuses[i] == status)
            return i;
    return NSTATUS - 1;
}

void http_metrics_count(const struct request *req, int64_t us)
{
    if (!series)
        return;
    size_t s = 0;
    if (req->route && req->route >= table && req->route < table + ntable)
        s = series_of[req->route - table];
    atomic_fetch_add_explicit(&series[s].n[method_slot(req->method)][status_slot(req->status)], 1,
                              memory_order_relaxed);
    size_t b = 0;
    while (b < NBOUND && us > bounds_us[b])
        b++;
    atomic_fetch_add_explicit(&buckets[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&total_us, us > 0 ? us : 0, memory_order_relaxed);
    if (req->cache_state)
        atomic_fetch_add_explicit(req->cache_state[0] == 'h' ? &cache_hits : &cache_misses, 1,
                                  memory_order_relaxed);
}

void http_metrics_write(struct buf *out)
{
    buf_puts(out, "# HELP whistle_http_requests_total HTTP requests answered, by route pattern "
                  "(the route table's, never the raw path), method and status.\n"
                  "# TYPE whistle_http_requests_total counter\n");
    for (size_t s = 0; s < nseries; s++)
        for (size_t m = 0; m < NMETHOD; m++)
            for (size_t k = 0; k < NSTATUS; k++) {
                long long v = atomic_load_explicit(&series[s].n[m][k], memory_order_relaxed);
                if (!v)
                    continue;
                buf_printf(out, "whistle_http_requests_total{route=\"%s\",method=\"%s\",",
                           series[s].route, methods[m]);
                if (k == NSTATUS - 1)
                    buf_printf(out, "status=\"other\"} %lld\n", v);
                else
                    buf_printf(out, "status=\"%d\"} %lld\n", statuses[k], v);
            }
    buf_puts(out, "# HELP whistle_http_request_duration_seconds Time from the request's start "
                  "to its answer being handed to the connection.\n"
                  "# TYPE whistle_http_request_duration_seconds histogram\n");
    long long cumulative = 0;
    for (size_t b = 0; b <= NBOUND; b++) {
        cumulative += atomic_load_explicit(&buckets[b], memory_order_relaxed);
        if (b < NBOUND)
            buf_printf(out, "whistle_http_request_duration_seconds_bucket{le=\"%g\"} %lld\n",
                       (double)bounds_us[b] / 1e6, cumulative);
        else
            buf_printf(out, "whistle_http_request_duration_seconds_bucket{le=\"+Inf\"} %lld\n",
                       cumulative);
    }
    buf_printf(out, "whistle_http_request_duration_seconds_sum %.6f\n",
               (double)atomic_load_explicit(&total_us, memory_order_relaxed) / 1e6);
    buf_printf(out, "whistle_http_request_duration_seconds_count %lld\n", cumulative);
    buf_puts(out, "# HELP whistle_http_cache_total Cacheable requests by what the response cache "
                  "did (X-Whistle-Cache): hit, or miss (rendered).\n"
                  "# TYPE whistle_http_cache_total counter\n");
    buf_printf(out, "whistle_http_cache_total{result=\"hit\"} %lld\n",
               atomic_load_explicit(&cache_hits, memory_order_relaxed));
    buf_printf(out, "whistle_http_cache_total{result=\"miss\"} %lld\n",
               atomic_load_explicit(&cache_misses, memory_order_relaxed));
}
