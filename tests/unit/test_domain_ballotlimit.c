/* The windows of a Fan Verdict ballot (domain/ballotlimit.h), each with an explicit now:
 * which apply to whom, and the anonymous caps of issue 14, item 3 over a day. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "domain/ballotlimit.h"
#include "domain/ratelimit.h"

#define SEC INT64_C(1000000)
#define NOW (INT64_C(1764000000) * SEC)

static void test_which_windows_apply(void **state)
{
    (void)state;
    /* an account: the per-voter and per-address minutes only */
    assert_true(ballot_window_applies(BALLOT_WINDOW_VOTER, true, true));
    assert_true(ballot_window_applies(BALLOT_WINDOW_ADDRESS, true, true));
    assert_false(ballot_window_applies(BALLOT_WINDOW_ANON, true, true));
    assert_false(ballot_window_applies(BALLOT_WINDOW_NEW_VOTER, true, true));
    /* an anonymous voter: the anonymous cap always, the new-voter cap on a first ballot */
    assert_true(ballot_window_applies(BALLOT_WINDOW_ANON, false, false));
    assert_false(ballot_window_applies(BALLOT_WINDOW_NEW_VOTER, false, false));
    assert_true(ballot_window_applies(BALLOT_WINDOW_NEW_VOTER, false, true));
    assert_int_equal(ballot_window_us(BALLOT_WINDOW_VOTER), 60 * SEC);
    assert_int_equal(ballot_window_us(BALLOT_WINDOW_ADDRESS), 60 * SEC);
    assert_int_equal(ballot_window_us(BALLOT_WINDOW_ANON), 86400 * SEC);
    assert_int_equal(ballot_window_us(BALLOT_WINDOW_NEW_VOTER), 3600 * SEC);
}

static void init(struct ballot_window_state w[BALLOT_WINDOWS], bool account, bool new_voter)
{
    const int limits[BALLOT_WINDOWS] = {10, 60, 20, 30};
    for (int k = 0; k < BALLOT_WINDOWS; k++)
        w[k] = (struct ballot_window_state){
            .applies = ballot_window_applies((enum ballot_window)k, account, new_voter),
            .limit = limits[k],
            .window_us = ballot_window_us((enum ballot_window)k)};
}

/* The attack of issue 14 item 3: one address drops its cookie before every ballot, one
 * ballot every 0.18 s (360 in 65 s) on one debate, for a whole day at that pace. With the
 * default limits at most 20 are accepted in the day; the per-minute address limit (60) and
 * the new-voter limit (30 an hour) never even come into play before the anonymous cap. */
static void test_cookie_dropping_flood_gets_twenty_a_day(void **state)
{
    (void)state;
    struct ballot_window_state w[BALLOT_WINDOWS];
    int accepted = 0, first_refusal_by = -1;
    int64_t retry = 0;
    for (int64_t t = 0; t < 86400 * SEC; t += 180000) {
        init(w, false, true); /* every ballot: a new voter from the same address */
        /* the address's rows as they stand (state kept in `rows`) */
        static int64_t count[BALLOT_WINDOWS], started[BALLOT_WINDOWS];
        if (t == 0)
            for (int k = 0; k < BALLOT_WINDOWS; k++)
                count[k] = started[k] = 0;
        for (int k = BALLOT_WINDOW_ADDRESS; k < BALLOT_WINDOWS; k++) {
            w[k].count = count[k];
            w[k].started = started[k];
        }
        enum ballot_window full = ballot_windows_check(w, NOW + t, &retry);
        if (full != BALLOT_WINDOWS) {
            if (first_refusal_by < 0)
                first_refusal_by = (int)full;
            continue;
        }
        accepted++;
        for (int k = BALLOT_WINDOW_ADDRESS; k < BALLOT_WINDOWS; k++)
            rate_window_add(&count[k], &started[k], w[k].window_us, NOW + t);
    }
    assert_int_equal(accepted, 20);
    assert_int_equal(first_refusal_by, BALLOT_WINDOW_ANON);
}

/* The first full window in the rule's order is the one reported, with its wait. */
static void test_first_full_window_reported(void **state)
{
    (void)state;
    struct ballot_window_state w[BALLOT_WINDOWS];
    int64_t retry = 0;
    init(w, false, true);
    assert_int_equal(ballot_windows_check(w, NOW, &retry), BALLOT_WINDOWS); /* all empty */
    w[BALLOT_WINDOW_NEW_VOTER].count = 30;
    w[BALLOT_WINDOW_NEW_VOTER].started = NOW - 600 * SEC;
    assert_int_equal(ballot_windows_check(w, NOW, &retry), BALLOT_WINDOW_NEW_VOTER);
    assert_int_equal(retry, 3000);
    w[BALLOT_WINDOW_ANON].count = 20;
    w[BALLOT_WINDOW_ANON].started = NOW - 3600 * SEC;
    assert_int_equal(ballot_windows_check(w, NOW, &retry), BALLOT_WINDOW_ANON);
    assert_int_equal(retry, 82800);
    /* the hour is over an hour after its first new voter, the day 24 h after its first
     * ballot */
    w[BALLOT_WINDOW_NEW_VOTER].started = NOW - 3600 * SEC;
    assert_int_equal(ballot_windows_check(w, NOW, &retry), BALLOT_WINDOW_ANON);
    assert_int_equal(ballot_windows_check(w, NOW + 82800 * SEC - 1, &retry), BALLOT_WINDOW_ANON);
    assert_int_equal(retry, 1);
    assert_int_equal(ballot_windows_check(w, NOW + 82800 * SEC, &retry), BALLOT_WINDOWS);
    /* a voter who has voted before is not a new voter; an account has neither cap */
    init(w, false, false);
    w[BALLOT_WINDOW_NEW_VOTER].count = 30;
    w[BALLOT_WINDOW_NEW_VOTER].started = NOW;
    assert_int_equal(ballot_windows_check(w, NOW, &retry), BALLOT_WINDOWS);
    init(w, true, true);
    w[BALLOT_WINDOW_ANON].count = 20;
    w[BALLOT_WINDOW_ANON].started = NOW;
    assert_int_equal(ballot_windows_check(w, NOW, &retry), BALLOT_WINDOWS);
    w[BALLOT_WINDOW_VOTER].count = 10;
    w[BALLOT_WINDOW_VOTER].started = NOW - 15 * SEC;
    assert_int_equal(ballot_windows_check(w, NOW, &retry), BALLOT_WINDOW_VOTER);
    assert_int_equal(retry, 45);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_which_windows_apply),
        cmocka_unit_test(test_cookie_dropping_flood_gets_twenty_a_day),
        cmocka_unit_test(test_first_full_window_reported),
    };
    return cmocka_run_group_tests_name("domain/ballotlimit", tests, NULL, NULL);
}
