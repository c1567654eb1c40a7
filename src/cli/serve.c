/* whistle serve, whistle migrate */
#include <getopt.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "api/api.h"
#include "app/ballot.h"
#include "domain/voter.h"
#include "store/bodies.h"
#include "store/tallies.h"
#include "store/incidents.h"
#include "store/fragments.h"
#include "store/listindex.h"
#include "store/votes.h"
#include "web/web.h"
#include "cli/cli.h"
#include "cli/settings.h"
#include "http/query.h"
#include "util/jsonw.h"
#include "util/log.h"
#include "util/timefmt.h"
#include "research/fetch.h"
#include "worker/worker.h"

/* The response cache's validation token: the thread's connection's data version. */
static int cache_token(uint64_t out[2])
{
    struct store *s = store_thread();
    if (!s)
        return -1;
    return store_data_version(s, out) < 0 ? -1 : 0;
}

/* Whether the tallies of a cached body's incidents are still those it rendered. */
static int cache_fresh(const char *const *ids, size_t n, const uint64_t *fps)
{
    struct store *s = store_thread();
    uint64_t *now = s ? calloc(n, sizeof *now) : NULL;
    if (!now)
        return -1;
    int rc = incidents_tally_fingerprints(s, ids, n, now) < 0 ? -1 : 1;
    for (size_t i = 0; rc == 1 && i < n; i++)
        if (now[i] != fps[i])
            rc = 0;
    free(now);
    return rc;
}

/* Memory a request frees stays with the process for the next request. glibc's defaults give
 * the top of a heap back to the kernel once 128 KiB of it is free, and serve a block of 128
 * KiB or more (a page of 100 incidents, libpq's result for it, the response) from a mapping
 * of its own: a large page then faulted every one of its pages in again, zeroed by the
 * kernel, on every request (perf on a PostgreSQL node answering pages of 100: clear_page and
 * the page faults were a third of the node's time, and a page's p99 fell by about a third
 * without them; BENCHMARKS.md session 27). Blocks up to 4 MiB now come from the heaps, and
 * a heap keeps up to 64 MiB free at its top; larger blocks (an export) still have their own
 * mapping. */
static void keep_freed_memory(void)
{
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

/* SQLite's page caches, of the request threads, in one region (store.h store_sqlite_page_pool):
 * 64 MiB a thread (a connection's cache, store/sqlite.c), but never more than the file and
 * 1 MiB for it to grow (a small database's caches never hold more), nor 1 GiB in all; none
 * on PostgreSQL. */
static void page_pool(const char *db, int threads)
{
    if (store_uri_is_pg(db))
        return;
    size_t per = (size_t)64 << 20, grow = (size_t)1 << 20;
    struct stat sb;
    size_t file = stat(db, &sb) == 0 && sb.st_size > 0 ? (size_t)sb.st_size : 0;
    if (file + grow < per)
        per = file + grow;
    size_t total = per * (size_t)threads;
    if (total > (size_t)1 << 30)
        total = (size_t)1 << 30;
    if (store_sqlite_page_pool(total) < 0)
        log_info("store", "SQLite's page caches use the allocator");
}

int cli_serve(int argc, char **argv)
{
    struct cli_settings st;
    int prc = cli_settings_parse(CLI_SERVE, argc, argv, &st);
    if (prc != CLI_RUN)
        return prc;
    keep_freed_memory();
    struct server_config *cfg = &st.http;
    struct worker_config *wcfg = &st.worker;
    if (cfg->threads == 0) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        cfg->threads = ncpu > 0 ? (int)(ncpu < HTTP_THREADS_MAX ? ncpu : HTTP_THREADS_MAX) : 2;
    }
    page_pool(st.db, cfg->threads);
    cfg->memory_limit = HTTP_CONNECTION_MEMORY;
    cfg->cache_token = st.no_cache ? NULL : cache_token;
    /* argon2id off the HTTP threads (http/pool.h): half the cores, so that reads keep the
     * rest while sign-ins are hashed */
    if (cfg->password_threads == 0) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        cfg->password_threads =
            ncpu > 1
                ? (int)(ncpu / 2 < HTTP_PASSWORD_THREADS_MAX ? ncpu / 2 : HTTP_PASSWORD_THREADS_MAX)
                : 1;
    }
    cfg->busy = web_password_busy;
    cfg->cache_watch = incidents_watch_tallies;
    cfg->cache_fresh = cache_fresh;

    const char *base = st.base_url;
    char base_buf[512];
    if (!base) {
        if ((size_t)snprintf(base_buf, sizeof base_buf, "http://%s", cfg->listen) >=
            sizeof base_buf)
            return cli_refuse("--listen is too long");
        base = base_buf;
        cfg->base_from_listen = true;
    }
    /* no trailing slash: URLs are built as base + "/api/…" */
    char *b = strdup(base);
    size_t bl = strlen(b);
    while (bl > 0 && b[bl - 1] == '/')
        b[--bl] = '\0';
    cfg->base_url = b;

    if (time_test_clock_enabled())
        fprintf(stderr, "whistle: WARNING: WHISTLE_TEST_NOW_OFFSET_FILE is set: the clock is "
                        "shifted for tests; never set it in production\n");
    const char *path = st.db;
    struct store *s = cli_open_store(path);
    if (!s) {
        free(b);
        return CLI_REFUSED;
    }
    /* the cookie secret lives in the database, so every node of a deployment shares it */
    unsigned char secret[32];
    struct app_ctx ac = {.s = s, .actor = "operator"};
    int src = ballot_cookie_secret(&ac, secret);
    store_close(s);
    if (src < 0) {
        free(b);
        return cli_refuse("cannot load or create the cookie secret");
    }
    voter_set_secret(secret);
    sodium_memzero(secret, sizeof secret);
    store_thread_setup(path);
    /* the worker thread must inherit the signal mask that http_serve() sigwaits on */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    /* the list index's builder (store/listindex.h) inherits that mask too */
    if (store_lease_setup(path, st.version_lease_us, true) < 0) {
        free(b);
        return cli_refuse("cannot start the version lease's thread");
    }
    listindex_setup(path, st.list_index_max);
    fragments_cache_setup((size_t)st.fragment_cache_mb << 20);
    bodies_setup(path, (size_t)st.fragment_bodies_mb << 20);
    tallies_setup(path, (size_t)st.tally_copy_mb << 20);
    wcfg->db = path;
    wcfg->base_url = b;
    bool with_worker = !st.no_worker;
    if (with_worker && !wcfg->smtp_url)
        fprintf(stderr, "whistle: no --smtp-url: account emails (with their single-use links) "
                        "are written to the log instead of sent; set --smtp-url in production\n");
    char busy[256];
    if (http_listen_check(cfg->listen, busy, sizeof busy) < 0 ||
        (cfg->metrics_listen && http_listen_check(cfg->metrics_listen, busy, sizeof busy) < 0)) {
        free(b);
        return cli_refuse("%s", busy);
    }
    cfg->metrics = api_metrics_write;
    if (with_worker) {
        fetch_global_init();
        if (worker_thread_start(wcfg) < 0) {
            free(b);
            return cli_refuse("cannot start the worker thread");
        }
    }
    int rc = http_serve(cfg, api_routes, api_nroutes);
    worker_thread_stop();
    store_lease_stop();
    free(b);
    return rc == 0 ? CLI_OK : CLI_REFUSED;
}

/* The options of a command that takes only --db and --json. */
struct db_json {
    const char *db;
    bool json;
};

/* o's options from argv[first]: CLI_OK, else the usage printed (anything else is there). */
static int db_json_options(int argc, char **argv, int first, struct db_json *o, const char *usage)
{
    static const struct cli_opt opts[] = {CLI_OPTS_COMMON(struct db_json)};
    int rc = cli_options(argc, argv, first, opts, CLI_LEN(opts), o, usage);
    if (rc != CLI_OK)
        return rc;
    return optind == argc ? CLI_OK : cli_usage(usage);
}

/* whistle cache flush: after an edit made behind Whistle's back (psql, sqlite3), which moves
 * no cache version (store.h store_data_version). */
int cli_cache(int argc, char **argv)
{
    static const char usage[] = "whistle cache flush [--db PATH] [--json]";
    struct db_json o = {0};
    if (argc < 2 || strcmp(argv[1], "flush") != 0)
        return cli_usage(usage);
    int rc = db_json_options(argc, argv, 2, &o, usage);
    if (rc != CLI_OK)
        return rc;
    struct store *s = cli_open_store(cli_db_path(o.db));
    if (!s)
        return CLI_REFUSED;
    rc = store_cache_flush(s);
    if (rc < 0)
        fprintf(stderr, "whistle: cannot flush the response caches: %s\n", store_errmsg(s));
    store_close(s);
    if (rc < 0)
        return CLI_REFUSED;
    if (o.json)
        cli_printf_json("{\"flushed\":true}");
    else
        printf("response caches flushed: every node renders its next answers again\n");
    return 0;
}

int cli_migrate(int argc, char **argv)
{
    struct db_json o = {0};
    int rc = db_json_options(argc, argv, 1, &o, "whistle migrate [--db PATH] [--json]");
    if (rc != CLI_OK)
        return rc;
    struct store *s = cli_open_store(cli_db_path(o.db));
    if (!s)
        return CLI_REFUSED;
    int v = store_schema_version(s);
    /* the fragments of every incident imported or changed behind Whistle's back */
    long built = api_fragments_rebuild(s, SIZE_MAX);
    /* and SQLite's stored plain, compressed (migration 030) */
    size_t packed = 0;
    int packed_rc = built < 0 || store_is_pg(s) ? 0 : fragments_compress(s, &packed);
    if (packed_rc >= 0 && packed > 0)
        packed_rc = fragments_pack(s); /* their pages shared, not one each */
    store_close(s);
    if (built < 0)
        return cli_refuse("could not render the incidents' fragments");
    if (packed_rc < 0)
        return cli_refuse("could not compress the incidents' fragments");
    if (packed > 0)
        fprintf(stderr, "whistle: %zu fragments compressed\n", packed);
    if (o.json)
        cli_printf_json("{\"schema_version\":%d}", v);
    else
        printf("schema version %d\n", v);
    return CLI_OK;
}
