/*
 * The worker loop: a table of tasks run in turn against one database connection. A task
 * that did work is run again at once; when every task is idle the loop sleeps poll_us. A
 * store failure drops the connection and backs off (doubling up to 30 s), so a database
 * that comes back is picked up without a restart.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "domain/lead.h"
#include "research/pipeline.h"
#include "store/accounts.h"
#include "store/agents.h"
#include "store/scout.h"
#include "store/votes.h"
#include "util/log.h"
#include "util/timefmt.h"
#include "worker/worker.h"

/* How long an idle rate window is kept: far beyond the longest window (an hour). */
#define RATE_WINDOWS_RETENTION_US (INT64_C(86400) * 1000000)
/* How long finished account rows (expired or revoked sessions, used or expired links, sent
 * mail) are kept: a week, so a stale link is still recognised as expired. */
#define ACCOUNTS_RETENTION_US (INT64_C(7) * 86400 * 1000000)

static const struct worker_task tasks[] = {
    {"research", research_step},
    {"housekeeping", worker_housekeeping},
    {"outbox", outbox_deliver},
    {"games-refresh", games_refresh},
};
static const size_t ntasks = sizeof tasks / sizeof tasks[0];

/* Housekeeping runs at most once a minute per worker; it returns 0 (idle) so that it
 * never keeps the loop busy. */
int worker_housekeeping(struct store *s, const struct worker_config *cfg, int64_t now)
{
    static _Thread_local int64_t last;
    (void)cfg;
    if (last && now - last < INT64_C(60) * 1000000 && now >= last)
        return 0;
    last = now;
    int rc = store_begin_write(s);
    if (rc < 0)
        return rc;
    if ((rc = leads_idempotency_prune(s, NULL, now - LEAD_IDEMPOTENCY_RETENTION_US)) < 0 ||
        (rc = rate_windows_prune(s, now - RATE_WINDOWS_RETENTION_US)) < 0 ||
        (rc = accounts_prune(s, now - ACCOUNTS_RETENTION_US)) < 0 ||
        (rc = scout_runs_expire_all(s, now)) < 0) {
        store_rollback(s);
        return rc;
    }
    return store_commit(s) < 0 ? -1 : 0;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* One pass over the table: units of work done, or a negative store_rc. */
static int run_pass(struct store *s, const struct worker_config *cfg)
{
    int done = 0;
    for (size_t i = 0; i < ntasks; i++) {
        int rc = tasks[i].run(s, cfg, time_now_us());
        if (rc < 0) {
            log_warn("worker", "task %s failed (%d): %s", tasks[i].name, rc, store_errmsg(s));
            return rc;
        }
        done += rc;
    }
    return done;
}

static struct store *open_store(const struct worker_config *cfg)
{
    char err[256];
    struct store *s = NULL;
    if (store_open(cfg->db, false, &s, err, sizeof err) < 0) {
        log_warn("worker", "cannot open database: %s", err);
        return NULL;
    }
    return s;
}

int worker_loop(const struct worker_config *cfg, atomic_bool *stop)
{
    struct store *s = NULL;
    int backoff = 0;
    log_info("worker", "started (%zu tasks, auto-publish %s, mail %s)", ntasks,
             cfg->auto_publish ? "on" : "off", cfg->smtp_url ? "via SMTP" : "to the log");
    while (!atomic_load(stop)) {
        if (!s && !(s = open_store(cfg))) {
            backoff = backoff ? (backoff * 2 > 30000 ? 30000 : backoff * 2) : 500;
            for (int waited = 0; waited < backoff && !atomic_load(stop); waited += 100)
                sleep_ms(100);
            continue;
        }
        int rc = run_pass(s, cfg);
        if (rc < 0) {
            if (rc == STORE_GONE) {
                store_close(s);
                s = NULL;
            }
            backoff = backoff ? (backoff * 2 > 30000 ? 30000 : backoff * 2) : 500;
            for (int waited = 0; waited < backoff && !atomic_load(stop); waited += 100)
                sleep_ms(100);
            continue;
        }
        backoff = 0;
        if (rc == 0)
            for (int64_t waited = 0; waited < cfg->poll_us / 1000 && !atomic_load(stop);
                 waited += 50)
                sleep_ms(50);
    }
    if (s)
        store_close(s);
    log_info("worker", "stopped");
    return 0;
}

int worker_drain(const struct worker_config *cfg)
{
    struct store *s = open_store(cfg);
    if (!s)
        return STORE_GONE;
    int total = 0, rc;
    while ((rc = run_pass(s, cfg)) > 0)
        total += rc;
    store_close(s);
    return rc < 0 ? rc : total;
}

static pthread_t thread;
static bool running;
static atomic_bool thread_stop;
static const struct worker_config *thread_cfg;

static void *thread_main(void *arg)
{
    (void)arg;
    worker_loop(thread_cfg, &thread_stop);
    return NULL;
}

int worker_thread_start(const struct worker_config *cfg)
{
    thread_cfg = cfg;
    atomic_store(&thread_stop, false);
    if (pthread_create(&thread, NULL, thread_main, NULL) != 0)
        return -1;
    running = true;
    return 0;
}

void worker_thread_stop(void)
{
    if (!running)
        return;
    atomic_store(&thread_stop, true);
    pthread_join(thread, NULL);
    running = false;
}
