/*
 * The worker: three lanes, each a thread with its own loop and its own database connection,
 * so that no kind of work waits behind another (issue 14 item 4): research (slow: outbound
 * fetches under a deadline), mail (account email: a verification link must not wait behind
 * a tarpit source) and upkeep (housekeeping, games-refresh). In a lane, the tasks of its
 * table run in turn; a task that did work is run again at once; when every task of the
 * lane is idle the lane sleeps poll_us. A store failure drops the lane's connection and
 * backs off (doubling up to 30 s), so a database that comes back is picked up without a
 * restart. Every claim (a lead, a message) is a row with a lease, so lanes, workers and
 * nodes never take the same unit twice.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "domain/account.h"
#include "domain/lead.h"
#include "research/pipeline.h"
#include "store/accounts.h"
#include "store/agents.h"
#include "store/scout.h"
#include "store/tallies.h"
#include "store/votes.h"
#include "util/log.h"
#include "util/thread.h"
#include "util/timefmt.h"
#include "worker/worker.h"

/* How long an idle rate window is kept: far beyond the longest window (an hour). */
#define RATE_WINDOWS_RETENTION_US (INT64_C(86400) * 1000000)
/* How long finished account rows (expired or revoked sessions, used or expired links, sent
 * mail) are kept: a week, so a stale link is still recognised as expired. */
#define ACCOUNTS_RETENTION_US (INT64_C(7) * 86400 * 1000000)

static const struct worker_task research_tasks[] = {{"research", research_step}};
static const struct worker_task mail_tasks[] = {
    {"reset-requests", reset_requests_step},
    {"outbox", outbox_deliver},
};
static const struct worker_task upkeep_tasks[] = {
    {"housekeeping", worker_housekeeping},
    {"games-refresh", games_refresh},
};

struct lane {
    const char *name;
    const struct worker_task *tasks;
    size_t ntasks;
};

#define LANE(name, t)                                                                              \
    {                                                                                              \
        name, t, sizeof t / sizeof t[0]                                                            \
    }
static const struct lane lanes[WORKER_LANES] = {
    LANE("research", research_tasks),
    LANE("mail", mail_tasks),
    LANE("upkeep", upkeep_tasks),
};

/* Housekeeping runs at most once a minute per worker; it returns 0 (idle) so that it
 * never keeps the loop busy. */
int worker_housekeeping(struct store *s, const struct worker_config *cfg, int64_t now)
{
    static _Thread_local int64_t last;
    (void)cfg;
    if (last && now - last < INT64_C(60) * 1000000 && now >= last)
        return 0;
    last = now;
    /* a row write: each statement deletes rows past their retention, which no rule reads
     * then writes any more (a window, a record or a run that old is over) */
    int rc = store_begin_row_write(s);
    if (rc < 0)
        return rc;
    if ((rc = leads_idempotency_prune(s, NULL, now - LEAD_IDEMPOTENCY_RETENTION_US)) < 0 ||
        (rc = rate_windows_prune(s, now - RATE_WINDOWS_RETENTION_US)) < 0 ||
        (rc = accounts_prune(s, now - ACCOUNTS_RETENTION_US)) < 0 ||
        (rc = reset_requests_prune(s, now - ACCOUNT_RESET_TTL_US)) < 0 ||
        (rc = scout_runs_expire_all(s, now)) < 0 ||
        (rc = tallies_prune(s, TALLIES_LOG_KEEP_XIDS)) < 0) {
        store_rollback(s);
        return rc;
    }
    return store_commit(s) < 0 ? -1 : 0;
}

/* One pass over a lane's table: units of work done, or a negative store_rc. */
static int run_pass(const struct lane *l, struct store *s, const struct worker_config *cfg)
{
    int done = 0;
    for (size_t i = 0; i < l->ntasks; i++) {
        int rc = l->tasks[i].run(s, cfg, time_now_us());
        if (rc < 0) {
            log_warn("worker", "task %s failed (%d): %s", l->tasks[i].name, rc, store_errmsg(s));
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

/* The lanes' sleeps between passes and after a failure, ended at once by worker_thread_stop
 * (a stop waited up to 50 ms for them before, at every server's exit). */
static struct stopper lanes_wake = STOPPER_INIT;

/* A lane's loop until *cfg->stop: its own connection, reopened after a failure. */
static void lane_loop(const struct lane *l, const struct worker_config *cfg)
{
    struct store *s = NULL;
    int backoff = 0;
    while (!atomic_load(cfg->stop)) {
        int rc = STORE_GONE;
        if (s || (s = open_store(cfg)))
            rc = run_pass(l, s, cfg);
        if (rc < 0) {
            if (rc == STORE_GONE && s) {
                store_close(s);
                s = NULL;
            }
            backoff = backoff ? (backoff * 2 > 30000 ? 30000 : backoff * 2) : 500;
            stopper_sleep(&lanes_wake, (int64_t)backoff * 1000);
            continue;
        }
        backoff = 0;
        if (rc == 0)
            stopper_sleep(&lanes_wake, cfg->poll_us);
    }
    if (s)
        store_close(s);
}

int worker_drain(const struct worker_config *cfg)
{
    static atomic_bool never;
    struct worker_config c = *cfg;
    c.stop = &never;
    struct store *s = open_store(&c);
    if (!s)
        return STORE_GONE;
    int total = 0, rc;
    do {
        int pass = 0;
        rc = 0;
        for (size_t i = 0; i < WORKER_LANES && rc >= 0; i++) {
            rc = run_pass(&lanes[i], s, &c);
            pass += rc > 0 ? rc : 0;
        }
        total += pass;
        if (rc >= 0)
            rc = pass;
    } while (rc > 0);
    store_close(s);
    return rc < 0 ? rc : total;
}

/* The running worker: one thread per lane, each with a copy of the configuration whose
 * stop points at the shared flag. */
static struct lane_thread {
    pthread_t thread;
    const struct lane *lane;
    struct worker_config cfg;
    bool running;
} threads[WORKER_LANES];
static atomic_bool thread_stop;

static void *thread_main(void *arg)
{
    struct lane_thread *t = arg;
    lane_loop(t->lane, &t->cfg);
    return NULL;
}

int worker_thread_start(const struct worker_config *cfg)
{
    atomic_store(&thread_stop, false);
    stopper_reset(&lanes_wake);
    log_info("worker", "started: lanes research, mail and upkeep (auto-publish %s, mail %s)",
             cfg->auto_publish ? "on" : "off", cfg->smtp_url ? "via SMTP" : "to the log");
    for (size_t i = 0; i < WORKER_LANES; i++) {
        threads[i].lane = &lanes[i];
        threads[i].cfg = *cfg;
        threads[i].cfg.stop = &thread_stop;
        if (pthread_create(&threads[i].thread, NULL, thread_main, &threads[i]) != 0) {
            worker_thread_stop();
            return -1;
        }
        threads[i].running = true;
    }
    return 0;
}

void worker_thread_stop(void)
{
    atomic_store(&thread_stop, true);
    stopper_stop(&lanes_wake);
    bool any = false;
    for (size_t i = 0; i < WORKER_LANES; i++) {
        if (!threads[i].running)
            continue;
        pthread_join(threads[i].thread, NULL);
        threads[i].running = false;
        any = true;
    }
    if (any)
        log_info("worker", "stopped");
}
