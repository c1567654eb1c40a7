/*
 * Unit tests for src/domain/votes.c: Fan Verdict arithmetic and the display conventions
 * of api-v1.md (Votes rule 4) at their exact thresholds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "domain/votes.h"

static void test_rooting_names(void **state)
{
    (void)state;
    assert_string_equal(rooting_names[ROOTING_HOME], "home");
    assert_string_equal(rooting_names[ROOTING_AWAY], "away");
    assert_string_equal(rooting_names[ROOTING_NEUTRAL], "neutral");
    assert_string_equal(rooting_names[ROOTING_UNDISCLOSED], "undisclosed");
    assert_string_equal(rooting_names[ROOTING_UNSPECIFIED], "unspecified");
}

static void test_rooting_from_name(void **state)
{
    (void)state;
    for (int i = 0; i < ROOTING_COUNT; i++)
        assert_int_equal(rooting_from_name(rooting_names[i]), i);
    assert_int_equal(rooting_from_name("home"), ROOTING_HOME);
    assert_int_equal(rooting_from_name("away"), ROOTING_AWAY);
    assert_int_equal(rooting_from_name("neutral"), ROOTING_NEUTRAL);
    assert_int_equal(rooting_from_name("undisclosed"), ROOTING_UNDISCLOSED);
    assert_int_equal(rooting_from_name("unspecified"), ROOTING_UNSPECIFIED);
    assert_int_equal(rooting_from_name(NULL), ROOTING_UNSPECIFIED);

    static const char *const bad[] = {"",      "Home", "HOME",  "home ", " home", "hom",
                                      "homes", "none", "other", "null",  "away\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(rooting_from_name(bad[i]), -1);
}

static void test_choices_total(void **state)
{
    (void)state;
    struct choices z = {0, 0, 0};
    assert_int_equal(choices_total(&z), 0);
    struct choices c = {7, 3, 1};
    assert_int_equal(choices_total(&c), 11);
    struct choices big = {INT64_C(3000000000), INT64_C(4000000000), 5};
    assert_int_equal(choices_total(&big), INT64_C(7000000005));
}

static void test_votes_overall(void **state)
{
    (void)state;
    struct votes v;
    memset(&v, 0, sizeof v);
    struct choices t = votes_overall(&v);
    assert_int_equal(t.correct, 0);
    assert_int_equal(t.incorrect, 0);
    assert_int_equal(t.unsure, 0);

    for (int r = 0; r < ROOTING_COUNT; r++) {
        v.by_rooting[r].correct = r + 1;          /* 1+2+3+4+5 = 15 */
        v.by_rooting[r].incorrect = 10 * (r + 1); /* 150 */
        v.by_rooting[r].unsure = r == ROOTING_UNSPECIFIED ? 100 : 0;
    }
    t = votes_overall(&v);
    assert_int_equal(t.correct, 15);
    assert_int_equal(t.incorrect, 150);
    assert_int_equal(t.unsure, 100);
    assert_int_equal(choices_total(&t), 265);

    /* only one group has ballots: that group is the whole */
    memset(&v, 0, sizeof v);
    v.by_rooting[ROOTING_UNSPECIFIED] = (struct choices){4, 5, 6};
    t = votes_overall(&v);
    assert_int_equal(t.correct, 4);
    assert_int_equal(t.incorrect, 5);
    assert_int_equal(t.unsure, 6);
}

static void test_percentage(void **state)
{
    (void)state;
    assert_true(votes_percentage(0, 0) == 0.0);
    assert_true(votes_percentage(5, 0) == 0.0);
    assert_true(votes_percentage(0, 10) == 0.0);
    assert_true(votes_percentage(10, 10) == 100.0);
    assert_true(votes_percentage(1, 2) == 50.0);
    assert_true(votes_percentage(1, 8) == 12.5);
    /* raw arithmetic, unrounded */
    assert_true(votes_percentage(1, 3) == 100.0 / 3.0);
    assert_true(votes_percentage(7, 11) > 63.636 && votes_percentage(7, 11) < 63.637);
    assert_true(votes_percentage(1, 11) > 9.090 && votes_percentage(1, 11) < 9.091);
    /* large counts do not overflow */
    assert_true(votes_percentage(INT64_C(3000000000), INT64_C(6000000000)) == 50.0);
    /* a negative total (never stored) is treated as no ballots */
    assert_true(votes_percentage(1, -1) == 0.0);
}

static void test_overall_display_threshold(void **state)
{
    (void)state;
    assert_int_equal(votes_overall_display(0), VOTE_DISPLAY_COUNTS);
    assert_int_equal(votes_overall_display(1), VOTE_DISPLAY_COUNTS);
    assert_int_equal(votes_overall_display(19), VOTE_DISPLAY_COUNTS);
    assert_int_equal(votes_overall_display(20), VOTE_DISPLAY_PERCENTAGES);
    assert_int_equal(votes_overall_display(21), VOTE_DISPLAY_PERCENTAGES);
    assert_int_equal(votes_overall_display(INT64_MAX), VOTE_DISPLAY_PERCENTAGES);
    assert_int_equal(VOTES_MIN_FOR_PERCENTAGES, 20);
}

static void test_rooting_shown_threshold(void **state)
{
    (void)state;
    assert_false(votes_rooting_shown(0));
    assert_false(votes_rooting_shown(20));
    assert_false(votes_rooting_shown(49));
    assert_true(votes_rooting_shown(50));
    assert_true(votes_rooting_shown(51));
    assert_true(votes_rooting_shown(INT64_MAX));
    assert_int_equal(VOTES_MIN_FOR_ROOTING, 50);
}

static void test_subgroup_display_thresholds(void **state)
{
    (void)state;
    assert_int_equal(votes_subgroup_display(0), VOTE_DISPLAY_HIDDEN);
    assert_int_equal(votes_subgroup_display(1), VOTE_DISPLAY_HIDDEN);
    assert_int_equal(votes_subgroup_display(9), VOTE_DISPLAY_HIDDEN);
    assert_int_equal(votes_subgroup_display(10), VOTE_DISPLAY_COUNTS);
    assert_int_equal(votes_subgroup_display(11), VOTE_DISPLAY_COUNTS);
    assert_int_equal(votes_subgroup_display(19), VOTE_DISPLAY_COUNTS);
    assert_int_equal(votes_subgroup_display(20), VOTE_DISPLAY_PERCENTAGES);
    assert_int_equal(votes_subgroup_display(21), VOTE_DISPLAY_PERCENTAGES);
    assert_int_equal(votes_subgroup_display(INT64_MAX), VOTE_DISPLAY_PERCENTAGES);
    assert_int_equal(VOTES_MIN_SUBGROUP_COUNTS, 10);
    assert_int_equal(VOTES_MIN_SUBGROUP_PERCENTAGES, 20);
}

/* The thresholds agree over a whole range with the spec's wording. */
static void test_display_rules_sweep(void **state)
{
    (void)state;
    for (int64_t n = 0; n <= 200; n++) {
        assert_int_equal(votes_overall_display(n),
                         n < 20 ? VOTE_DISPLAY_COUNTS : VOTE_DISPLAY_PERCENTAGES);
        assert_int_equal(votes_rooting_shown(n) != 0, n >= 50);
        enum vote_display want = n < 10   ? VOTE_DISPLAY_HIDDEN
                                 : n < 20 ? VOTE_DISPLAY_COUNTS
                                          : VOTE_DISPLAY_PERCENTAGES;
        assert_int_equal(votes_subgroup_display(n), want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rooting_names),
        cmocka_unit_test(test_rooting_from_name),
        cmocka_unit_test(test_choices_total),
        cmocka_unit_test(test_votes_overall),
        cmocka_unit_test(test_percentage),
        cmocka_unit_test(test_overall_display_threshold),
        cmocka_unit_test(test_rooting_shown_threshold),
        cmocka_unit_test(test_subgroup_display_thresholds),
        cmocka_unit_test(test_display_rules_sweep),
    };
    return cmocka_run_group_tests_name("domain/votes", tests, NULL, NULL);
}
