#ifndef WHISTLE_WORKER_WORKER_H
#define WHISTLE_WORKER_WORKER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

/*
 * The background worker (ARCHITECTURE.md "Processes"): `whistle serve` runs it in threads
 * unless --no-worker, `whistle worker` runs it alone. It has WORKER_LANES lanes (worker.c:
 * research, mail, upkeep), each a thread with its own loop over its own table of tasks and
 * its own database connection, so that email never waits behind research. Each task does
 * one small step of work against the database; every piece of state a task needs (claims,
 * leases, attempts) lives in the database, so any number of workers on any number of nodes
 * can run side by side.
 */
#define WORKER_MAX_ALLOW 16
#define WORKER_LANES     3

struct whistle_limits;

/* Filled once from the options table (cli/settings.c: defaults, ranges) and then only
 * read. */
struct worker_config {
    const char *db;       /* the database uri */
    const char *base_url; /* origin of emitted URLs (mail links), no trailing slash */
    const struct whistle_limits *limits; /* scout_candidates (domain/limits.h) */
    bool auto_publish;                   /* research: publish candidates without an operator */
    int64_t poll_us;                     /* sleep when every task was idle */
    int64_t lease_us; /* how long a claim is held before another worker may retry */
    /* test-only allow list for research fetches: exact "HOST:PORT" loopback origins */
    const char *allow[WORKER_MAX_ALLOW];
    int nallow;
    int64_t fetch_timeout_us;  /* 0: the fetcher's default (10 s) */
    int64_t fetch_deadline_us; /* all sources of one lead together; 0: the default (15 s) */
    long fetch_max_bytes;      /* 0: the fetcher's default (2 MiB) */
    int min_domains;           /* research gate: 0 means the policy default (2) */
    /* email (worker/outbox.c): without smtp_url messages are written to the log */
    const char *smtp_url;      /* smtp://host:port or smtps://host:port */
    const char *smtp_user;     /* optional credentials (sent only over TLS) */
    const char *smtp_password; /* --smtp-password or $WHISTLE_SMTP_PASSWORD; never logged */
    const char *mail_from;     /* From: header; default "Whistle <no-reply@HOST of base_url>" */
    /* games-refresh (worker/games.c, docs/games.md): idle unless a source is set */
    const char *games_nflverse; /* the nflverse games.csv URL (or a file) */
    int64_t games_cfbd_season;  /* the CollegeFootballData season kept current; 0: none */
    const char *cfbd_url;       /* the API's base URL; NULL: the public API */
    const char *cfbd_key_file;  /* --cfbd-key-file; the key is read into cfbd_key */
    const char *cfbd_key;       /* never logged */
    int64_t games_hot_us;       /* refresh period while a game is live or near (default 60 s) */
    int64_t games_cold_us;      /* refresh period otherwise (default a day) */
    /* set by the worker for its lanes: a long unit of work (the fetches of a lead, an SMTP
     * send) ends early once *stop is true */
    const atomic_bool *stop;
};

/* One row of the task table. run() does at most one unit of work and returns 1 when it did
 * something (the worker runs the table again at once), 0 when there was nothing to do, or
 * a negative store_rc (logged; the worker backs off). `now` comes from the caller. */
struct worker_task {
    const char *name;
    int (*run)(struct store *s, const struct worker_config *cfg, int64_t now);
};

/* Runs every task of every lane, on one connection, until all are idle once (for tests and
 * `whistle worker --once`). Returns the number of units of work done, or a negative
 * store_rc. */
int worker_drain(const struct worker_config *cfg);

/* Starts one thread per lane (signals must already be blocked by the caller), each opening
 * its own connection (reopened after the database was unreachable). worker_thread_stop()
 * asks every lane to finish its current unit and joins them: a lead being fetched is given
 * back to the queue at once (research_release), an SMTP send is abandoned within about a
 * second and retried later (outbox.c): those lanes stop within ~1 s plus one transaction;
 * upkeep finishes its unit (a games-refresh download is bounded by its own timeouts). */
int worker_thread_start(const struct worker_config *cfg);
void worker_thread_stop(void);

/* Email delivery: sends one due message of the outbox (SMTP via libcurl to cfg->smtp_url,
 * or the log without one); a failed delivery is retried with back-off (domain/account.h). */
int outbox_deliver(struct store *s, const struct worker_config *cfg, int64_t now);

/* Password-reset requests (POST /account/forgot queues them, migration 022): takes the
 * oldest and does its work (app/accounts.h account_forgot_process: a reset email for an
 * address with an account that is not banned, nothing for any other), deleting it. Runs in
 * the mail lane before the outbox, so the email goes out in the same pass. */
int reset_requests_step(struct store *s, const struct worker_config *cfg, int64_t now);

/* games-refresh: syncs each configured provider source that is due (a claim in table
 * provider_sources, so workers on many nodes share one schedule): conditional request,
 * app_games_sync_source(), one status line in the log, then the next due time — the hot
 * period while one of its games is live or starts within 3 hours, the cold one otherwise,
 * doubling back-off after a failure and never before a 429's Retry-After. With a CFBD season,
 * the CFBD scoreboard (source "cfbd-scoreboard") too, on the hot period and only while a
 * stored CFBD game is live, delayed or near: live status, period, clock, scores, then final.
 * Returns 1 when it synced a source, 0 when none was due. */
int games_refresh(struct store *s, const struct worker_config *cfg, int64_t now);

/* Housekeeping: forgets expired idempotency records, old vote-limit events, expired
 * account tokens and reset requests never taken within a link's lifetime, marks scout runs
 * past their lease expired. */
int worker_housekeeping(struct store *s, const struct worker_config *cfg, int64_t now);

#endif
