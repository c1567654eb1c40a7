/*
 * Lead quota windows with an explicit `now`: the pure decision (domain/quota.c) and the
 * counting at the exact window edges against a real SQLite database (store/agents.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sodium.h>

#include "domain/quota.h"
#include "store/agents.h"
#include "store/store.h"
#include "tmpdb.h"

#define SEC INT64_C(1000000)
#define NOW (INT64_C(1764000000) * SEC) /* a fixed instant: no clock is read */

/* the spec's amounts (api-v1.md Limits), serve's defaults */
static const int64_t SPEC[QUOTA_COUNT] = {QUOTA_AGENT_MINUTE_MAX, QUOTA_AGENT_DAY_MAX,
                                          QUOTA_GLOBAL_DAY_MAX};

static struct quota_usage empty(void)
{
    struct quota_usage u;
    for (int k = 0; k < QUOTA_COUNT; k++) {
        u.count[k] = 0;
        u.oldest[k] = INT64_MIN;
    }
    return u;
}

static void test_rules_match_the_spec(void **state)
{
    (void)state;
    assert_int_equal(SPEC[QUOTA_AGENT_MINUTE], 3);
    assert_int_equal(quota_rules[QUOTA_AGENT_MINUTE].window_us, 60 * SEC);
    assert_int_equal(SPEC[QUOTA_AGENT_DAY], 20);
    assert_int_equal(quota_rules[QUOTA_AGENT_DAY].window_us, 86400 * SEC);
    assert_int_equal(SPEC[QUOTA_GLOBAL_DAY], 200);
    assert_int_equal(quota_rules[QUOTA_GLOBAL_DAY].window_us, 86400 * SEC);
    assert_int_equal(quota_window_start(QUOTA_AGENT_MINUTE, NOW), NOW - 60 * SEC);
    assert_int_equal(quota_window_start(QUOTA_AGENT_DAY, NOW), NOW - 86400 * SEC);
}

static void test_empty_usage_accepts(void **state)
{
    (void)state;
    struct quota_usage u = empty();
    struct quota_decision d = quota_decide(&u, SPEC, NOW);
    assert_int_equal(d.exceeded, -1);
    assert_int_equal(d.tightest, QUOTA_AGENT_MINUTE);
    assert_int_equal(d.remaining, 2); /* this lead takes one of three */
    assert_int_equal(d.reset_s, 60);
}

static void test_minute_limit_and_retry_after(void **state)
{
    (void)state;
    struct quota_usage u = empty();
    u.count[QUOTA_AGENT_MINUTE] = 2;
    u.oldest[QUOTA_AGENT_MINUTE] = NOW - 10 * SEC;
    u.count[QUOTA_AGENT_DAY] = 2;
    u.oldest[QUOTA_AGENT_DAY] = NOW - 10 * SEC;
    assert_int_equal(quota_decide(&u, SPEC, NOW).exceeded, -1);
    assert_int_equal(quota_decide(&u, SPEC, NOW).remaining, 0);

    u.count[QUOTA_AGENT_MINUTE] = 3;
    struct quota_decision d = quota_decide(&u, SPEC, NOW);
    assert_int_equal(d.exceeded, QUOTA_AGENT_MINUTE);
    assert_int_equal(d.retry_after_s, 50); /* the oldest leaves the window in 50 s */
    assert_int_equal(d.remaining, 0);

    /* a fraction of a second rounds up; never below one second */
    u.oldest[QUOTA_AGENT_MINUTE] = NOW - 60 * SEC + 1;
    assert_int_equal(quota_decide(&u, SPEC, NOW).retry_after_s, 1);
    u.oldest[QUOTA_AGENT_MINUTE] = NOW - 10 * SEC - 1;
    assert_int_equal(quota_decide(&u, SPEC, NOW).retry_after_s, 50);
    u.oldest[QUOTA_AGENT_MINUTE] = NOW - 10 * SEC + 1;
    assert_int_equal(quota_decide(&u, SPEC, NOW).retry_after_s, 51);
}

static void test_day_and_global_limits(void **state)
{
    (void)state;
    struct quota_usage u = empty();
    u.count[QUOTA_AGENT_DAY] = 20;
    u.oldest[QUOTA_AGENT_DAY] = NOW - 3600 * SEC;
    struct quota_decision d = quota_decide(&u, SPEC, NOW);
    assert_int_equal(d.exceeded, QUOTA_AGENT_DAY);
    assert_int_equal(d.retry_after_s, 86400 - 3600);

    u = empty();
    u.count[QUOTA_GLOBAL_DAY] = 199;
    u.oldest[QUOTA_GLOBAL_DAY] = NOW - 5 * SEC;
    d = quota_decide(&u, SPEC, NOW);
    assert_int_equal(d.exceeded, -1);
    assert_int_equal(d.tightest, QUOTA_GLOBAL_DAY);
    assert_int_equal(d.remaining, 0);
    u.count[QUOTA_GLOBAL_DAY] = 200;
    d = quota_decide(&u, SPEC, NOW);
    assert_int_equal(d.exceeded, QUOTA_GLOBAL_DAY);
    assert_string_equal(quota_rules[d.exceeded].who, "global");
    assert_string_equal(quota_rules[d.exceeded].span, "per 24 hours (all agents)");
}

/* The amounts are serve's options: a raised minute quota takes more leads, and the decision
 * counts against the amounts it is given, not the spec's. */
static void test_amounts_come_from_the_caller(void **state)
{
    (void)state;
    const int64_t raised[QUOTA_COUNT] = {5, 1000, 100000};
    struct quota_usage u = empty();
    u.count[QUOTA_AGENT_MINUTE] = 4;
    u.oldest[QUOTA_AGENT_MINUTE] = NOW - 30 * SEC;
    struct quota_decision d = quota_decide(&u, raised, NOW);
    assert_int_equal(d.exceeded, -1);
    assert_int_equal(d.tightest, QUOTA_AGENT_MINUTE);
    assert_int_equal(d.remaining, 0);
    assert_int_equal(quota_decide(&u, SPEC, NOW).exceeded, QUOTA_AGENT_MINUTE);
    u.count[QUOTA_AGENT_MINUTE] = 5;
    d = quota_decide(&u, raised, NOW);
    assert_int_equal(d.exceeded, QUOTA_AGENT_MINUTE);
    assert_int_equal(d.retry_after_s, 30);
}

static void test_retry_after_waits_for_every_exhausted_limit(void **state)
{
    (void)state;
    struct quota_usage u = empty();
    u.count[QUOTA_AGENT_MINUTE] = 3;
    u.oldest[QUOTA_AGENT_MINUTE] = NOW - 30 * SEC;
    u.count[QUOTA_GLOBAL_DAY] = 200;
    u.oldest[QUOTA_GLOBAL_DAY] = NOW - 86000 * SEC;
    struct quota_decision d = quota_decide(&u, SPEC, NOW);
    assert_int_equal(d.exceeded, QUOTA_AGENT_MINUTE); /* the first limit is named */
    assert_int_equal(d.retry_after_s, 400);           /* but the wait covers the global one */
}

/* ---- the windows as the store counts them --------------------------------------------- */

static int setup(void **state)
{
    struct tmpdb *d =
        tmpdb_open("INSERT INTO teams (id, name, abbreviation) VALUES ('h', 'H', 'H'),"
                   " ('a', 'A', 'A');"
                   "INSERT INTO games (id, home_team_id, away_team_id, status, season,"
                   " week, league, season_type, created_at, updated_at) VALUES ('g',"
                   " 'h', 'a', 'final', 2025, 1, 'nfl', 'regular', 0, 0);"
                   "INSERT INTO accounts (id, email, created_at, updated_at) VALUES"
                   " ('acc1', 'one@example.com', 0, 0), ('acc2', 'two@example.com', 0,"
                   " 0);"
                   "INSERT INTO agent_keys (id, account_id, prefix, secret_hash,"
                   " created_at, expires_at) VALUES ('k1', 'acc1', 'wk_', 'h1', 0, 1),"
                   " ('k2', 'acc2', 'wk_', 'h2', 0, 1)");
    *state = d;
    return d ? 0 : -1;
}

static int teardown(void **state)
{
    tmpdb_close(*state);
    return 0;
}

static void add_lead(struct store *s, const char *account, int64_t at)
{
    static int n;
    char id[40];
    snprintf(id, sizeof id, "lead-%d", ++n);
    struct lead_row l = {.id = id,
                         .account_id = account,
                         .key_id = strcmp(account, "acc1") == 0 ? "k1" : "k2",
                         .game_id = "g",
                         .description = "something happened",
                         .source_urls_json = "[\"https://example.com/\"]",
                         .period = INT64_MIN,
                         .created_at = at};
    assert_int_equal(leads_insert(s, &l), 0);
}

static void test_minute_edge_in_the_store(void **state)
{
    struct tmpdb *d = *state;
    struct quota_usage u;
    /* exactly 60 s old: out of the minute window; 60 s minus 1 µs: still in */
    add_lead(d->s, "acc1", NOW - 60 * SEC);
    add_lead(d->s, "acc1", NOW - 60 * SEC + 1);
    add_lead(d->s, "acc1", NOW);
    add_lead(d->s, "acc2", NOW - 1 * SEC);
    assert_int_equal(leads_quota_usage(d->s, "acc1", NOW, &u), 0);
    assert_int_equal(u.count[QUOTA_AGENT_MINUTE], 2);
    assert_int_equal(u.oldest[QUOTA_AGENT_MINUTE], NOW - 60 * SEC + 1);
    assert_int_equal(u.count[QUOTA_AGENT_DAY], 3);
    assert_int_equal(u.count[QUOTA_GLOBAL_DAY], 4); /* every agent */
    /* one microsecond later the older one has left */
    assert_int_equal(leads_quota_usage(d->s, "acc1", NOW + 1, &u), 0);
    assert_int_equal(u.count[QUOTA_AGENT_MINUTE], 1);
}

static void test_day_edge_in_the_store(void **state)
{
    struct tmpdb *d = *state;
    struct quota_usage u;
    for (int i = 0; i < 20; i++)
        add_lead(d->s, "acc1", NOW - 86400 * SEC + 1 + i * 60 * SEC);
    assert_int_equal(leads_quota_usage(d->s, "acc1", NOW, &u), 0);
    assert_int_equal(u.count[QUOTA_AGENT_DAY], 20);
    struct quota_decision dec = quota_decide(&u, SPEC, NOW);
    assert_int_equal(dec.exceeded, QUOTA_AGENT_DAY);
    assert_int_equal(dec.retry_after_s, 1);
    /* the rolling day moves on: at NOW + 1 µs the oldest has left */
    assert_int_equal(leads_quota_usage(d->s, "acc1", NOW + 1, &u), 0);
    assert_int_equal(u.count[QUOTA_AGENT_DAY], 19);
    assert_int_equal(quota_decide(&u, SPEC, NOW + 1).exceeded, -1);
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules_match_the_spec),
        cmocka_unit_test(test_empty_usage_accepts),
        cmocka_unit_test(test_minute_limit_and_retry_after),
        cmocka_unit_test(test_day_and_global_limits),
        cmocka_unit_test(test_amounts_come_from_the_caller),
        cmocka_unit_test(test_retry_after_waits_for_every_exhausted_limit),
        cmocka_unit_test_setup_teardown(test_minute_edge_in_the_store, setup, teardown),
        cmocka_unit_test_setup_teardown(test_day_edge_in_the_store, setup, teardown),
    };
    return cmocka_run_group_tests_name("domain/quota", tests, NULL, NULL);
}
