/*
 * The worker's games-refresh task (worker.h, docs/games.md): keeps the games of the
 * configured provider sources current on a schedule kept in the database.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/games.h"
#include "store/games.h"
#include "util/buf.h"
#include "util/log.h"
#include "worker/worker.h"

#define SECOND_US         INT64_C(1000000)
#define CLAIM_LEASE       (INT64_C(600) * SECOND_US) /* a crashed run is retried after this */
#define BUSY_SINCE_US     (INT64_C(5) * 3600 * SECOND_US)
#define BUSY_AHEAD_US     (INT64_C(3) * 3600 * SECOND_US)
#define WAIT_IN_PLACE_S   5 /* the longest Retry-After the worker sleeps through */
#define SCOREBOARD_SOURCE "cfbd-scoreboard"

/* Claims source in its own write transaction: 1 claimed, 0 not due, or a negative rc. A row
 * write: the claim is a conditional update of the source's row (provider_source_claim), so
 * of two workers exactly one moves next_at past now. */
static int claim(struct store *s, struct arena *a, const char *source, int64_t now,
                 struct provider_source_state *st)
{
    int rc = store_begin_row_write(s);
    if (rc < 0)
        return rc;
    rc = provider_source_claim(s, a, source, now, CLAIM_LEASE, st);
    if (rc < 0) {
        store_rollback(s);
        return rc;
    }
    int c = store_commit(s);
    return c < 0 ? c : rc;
}

static int done(struct store *s, const char *source, const char *etag, const char *lm, int64_t now,
                bool synced, int64_t next_at, int64_t failures, const char *line)
{
    int rc = store_begin_row_write(s); /* the claimed source's row alone */
    if (rc < 0)
        return rc;
    rc = provider_source_done(s, source, etag, lm, now, synced, next_at, failures, line);
    if (rc < 0) {
        store_rollback(s);
        return rc;
    }
    return store_commit(s);
}

/* The wait after `failures` consecutive failures: hot period doubled per failure, at most
 * the cold period, never shorter than the provider's Retry-After. */
static int64_t backoff_us(const struct worker_config *cfg, int64_t failures, long retry_after_s)
{
    int64_t wait = cfg->games_hot_us;
    for (int64_t i = 1; i < failures && wait < cfg->games_cold_us; i++)
        wait *= 2;
    if (wait > cfg->games_cold_us)
        wait = cfg->games_cold_us;
    if (retry_after_s > 0 && retry_after_s * SECOND_US > wait)
        wait = retry_after_s * SECOND_US;
    return wait;
}

/* Ends the run of source whose outcome is out (app_games_sync_source): the next due time
 * (now + ok_period after a success, the back-off after a failure) into *next, one status
 * line in the log, kept in provider_sources with the validators and the failure count
 * (failures: the count before this run) and copied into msg. 0 or a negative store_rc. */
static int finish_run(struct store *s, const struct worker_config *cfg, const char *source,
                      int64_t now, int out, const struct games_sync_report *r, const char *err,
                      int64_t failures, int64_t ok_period, const char *etag, const char *lm,
                      int64_t *next, char *msg, size_t msglen)
{
    bool ok = out == GAMES_SYNC_OK;
    char line[512];
    failures = ok ? 0 : failures + 1;
    if (ok) {
        *next = now + ok_period;
        app_games_report_line(r, line, sizeof line);
    } else {
        *next = now + backoff_us(cfg, failures, r->retry_after_s);
        snprintf(line, sizeof line, "failed: %s",
                 out == APP_UNAVAILABLE ? "the database failed" : err);
    }
    snprintf(msg, msglen, "%s (%d HTTP request%s); next in %lld s", line, r->attempts,
             r->attempts == 1 ? "" : "s", (long long)((*next - now) / SECOND_US));
    if (ok)
        log_info("worker", "games-refresh %s: %s", source, msg);
    else
        log_warn("worker", "games-refresh %s: %s", source, msg);
    int rc = done(s, source, etag, lm, now, ok, *next, failures, msg);
    if (rc >= 0 && out == APP_UNAVAILABLE)
        rc = STORE_ERR;
    return rc < 0 ? rc : 0;
}

/* What every sync the worker runs asks of provider: CFBD's URL and key, and the worker's
 * patience (it has other tasks: it waits in place only briefly, a longer Retry-After moves
 * the source's next due time instead). */
static struct games_source worker_source(const struct worker_config *cfg, const char *provider)
{
    return (struct games_source){
        .provider = provider,
        .cfbd_url = cfg->cfbd_url,
        .cfbd_key = cfg->cfbd_key,
        .attempts = 2,
        .max_wait_s = WAIT_IN_PLACE_S,
    };
}

/* One source's run: the arena its strings live in, the source's stored state (claim) and
 * the sync it asks for, started from worker_source. */
struct source_run {
    struct arena a;
    struct provider_source_state st;
    struct games_source src;
};

/* Opens a run of source for provider: its arena, then claim; run->src from worker_source
 * when claimed. 1 claimed, 0 not due, or a negative rc; run->a is released with
 * arena_release either way. */
static int run_open(struct store *s, const struct worker_config *cfg, const char *provider,
                    const char *source, int64_t now, struct source_run *run)
{
    arena_init(&run->a);
    int rc = claim(s, &run->a, source, now, &run->st);
    if (rc > 0)
        run->src = worker_source(cfg, provider);
    return rc;
}

/* Syncs one source when it is due. 1 synced (or tried), 0 not due, or a negative rc. */
static int refresh_one(struct store *s, const struct worker_config *cfg, int64_t now,
                       const char *provider)
{
    bool nfl = strcmp(provider, "nflverse") == 0;
    char source[600], teams_source[64] = "";
    if (nfl)
        snprintf(source, sizeof source, "nflverse %s", cfg->games_nflverse);
    else
        snprintf(source, sizeof source, "cfbd %lld", (long long)cfg->games_cfbd_season);
    struct source_run run;
    int rc = run_open(s, cfg, provider, source, now, &run);
    if (rc <= 0)
        goto out;
    run.src.location = nfl ? cfg->games_nflverse : NULL;
    run.src.season = cfg->games_cfbd_season;
    run.src.week = MODEL_NULL;
    run.src.season_type = "both";
    run.src.etag = run.st.etag;
    run.src.last_modified = run.st.last_modified;
    if (!nfl) {
        /* the team list changes rarely: fetched on the cold period only */
        struct provider_source_state tst;
        snprintf(teams_source, sizeof teams_source, "cfbd-teams %lld",
                 (long long)cfg->games_cfbd_season);
        int t = claim(s, &run.a, teams_source, now, &tst);
        if (t < 0) {
            rc = t;
            goto out;
        }
        run.src.with_teams = t == 1;
        if (run.src.with_teams) {
            run.src.etag = run.src.last_modified = NULL; /* new team data needs the games again */
        }
    }
    struct app_ctx ctx = {.s = s, .a = &run.a, .now = now, .actor = "worker"};
    struct games_sync_report r;
    char err[1024] = "", msg[1200], *etag = NULL, *lm = NULL;
    int out = app_games_sync_source(&ctx, &run.src, NULL, NULL, &r, &etag, &lm, err, sizeof err);
    int64_t period = cfg->games_cold_us, next;
    if (out == GAMES_SYNC_OK) {
        int busy = games_provider_busy(s, provider, now, BUSY_SINCE_US, BUSY_AHEAD_US);
        period = busy > 0 ? cfg->games_hot_us : cfg->games_cold_us;
    }
    rc = finish_run(s, cfg, source, now, out, &r, err, run.st.failures, period, etag, lm, &next,
                    msg, sizeof msg);
    if (rc >= 0 && teams_source[0] && run.src.with_teams) {
        bool ok = out == GAMES_SYNC_OK;
        rc = done(s, teams_source, NULL, NULL, now, ok && !r.not_modified,
                  ok ? now + cfg->games_cold_us : next, ok ? 0 : run.st.failures + 1, msg);
    }
    free(etag);
    free(lm);
    if (rc >= 0)
        rc = 1;
out:
    arena_release(&run.a);
    return rc;
}

/* The CFBD scoreboard, its own source on the hot period, fetched only while a stored CFBD
 * game is live or delayed or starts within the busy window (docs/games.md "Live games"):
 * live status, period, clock and scores, then final. 1 run, 0 not due or no game near, or a
 * negative rc. */
static int refresh_scoreboard(struct store *s, const struct worker_config *cfg, int64_t now)
{
    int busy = games_provider_busy(s, "cfbd", now, BUSY_SINCE_US, BUSY_AHEAD_US);
    if (busy <= 0)
        return busy;
    struct source_run run;
    int rc = run_open(s, cfg, "cfbd", SCOREBOARD_SOURCE, now, &run);
    if (rc <= 0)
        goto out;
    run.src.scoreboard = true;
    struct app_ctx ctx = {.s = s, .a = &run.a, .now = now, .actor = "worker"};
    struct games_sync_report r;
    char err[1024] = "", msg[1200];
    int64_t next;
    int out = app_games_sync_source(&ctx, &run.src, NULL, NULL, &r, NULL, NULL, err, sizeof err);
    rc = finish_run(s, cfg, SCOREBOARD_SOURCE, now, out, &r, err, run.st.failures,
                    cfg->games_hot_us, NULL, NULL, &next, msg, sizeof msg);
    if (rc >= 0)
        rc = 1;
out:
    arena_release(&run.a);
    return rc;
}

int games_refresh(struct store *s, const struct worker_config *cfg, int64_t now)
{
    int done_any = 0, rc;
    if (cfg->games_nflverse) {
        rc = refresh_one(s, cfg, now, "nflverse");
        if (rc < 0)
            return rc;
        done_any |= rc;
    }
    if (cfg->games_cfbd_season) {
        rc = refresh_one(s, cfg, now, "cfbd");
        if (rc < 0)
            return rc;
        done_any |= rc;
        rc = refresh_scoreboard(s, cfg, now);
        if (rc < 0)
            return rc;
        done_any |= rc;
    }
    return done_any;
}
