/*
 * Unit tests for src/domain/research.c: resolution of a lead's game and play (with an
 * explicit now), retry classification and backoff, same-play matching, team mentions, the
 * publication gates and the neutral headline.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "domain/research.h"

#define S  INT64_C(1000000)
#define T0 (INT64_C(1764435600) * S) /* 2025-11-29T17:00:00Z */

static struct research_facts played(void)
{
    struct research_facts f = {
        .game_found = true,
        .game_status = "final",
        .game_starts_at = T0,
        .game_period = 4,
        .period = 4,
        .clock = "2:13",
        .urls = 2,
        .attempts = 1,
    };
    return f;
}

static void test_resolve(void **state)
{
    (void)state;
    struct research_decision d;
    struct research_facts f = played();
    research_resolve(&f, T0 + 4 * 3600 * S, &d);
    assert_int_equal(d.verdict, RESEARCH_CONTINUE);

    f.game_found = false;
    research_resolve(&f, T0, &d);
    assert_int_equal(d.verdict, RESEARCH_REJECTED);
    assert_string_equal(d.gate, "game");

    const char *unplayed[] = {"upcoming", "postponed", "canceled"};
    for (size_t i = 0; i < 3; i++) {
        f = played();
        f.game_status = unplayed[i];
        research_resolve(&f, T0 + 3600 * S, &d);
        assert_int_equal(d.verdict, RESEARCH_REJECTED);
        assert_non_null(strstr(d.reason, unplayed[i]));
    }
    /* live, delayed and unknown games may have had the play */
    const char *maybe[] = {"live", "delayed", "unknown"};
    for (size_t i = 0; i < 3; i++) {
        f = played();
        f.game_status = maybe[i];
        research_resolve(&f, T0 + S, &d);
        assert_int_equal(d.verdict, RESEARCH_CONTINUE);
    }
    /* kickoff edge: at kickoff is allowed, one microsecond before is not */
    f = played();
    f.game_status = "live";
    research_resolve(&f, T0, &d);
    assert_int_equal(d.verdict, RESEARCH_CONTINUE);
    research_resolve(&f, T0 - 1, &d);
    assert_int_equal(d.verdict, RESEARCH_REJECTED);
    f.game_starts_at = INT64_MIN; /* unknown kickoff: nothing to compare */
    research_resolve(&f, T0 - 1, &d);
    assert_int_equal(d.verdict, RESEARCH_CONTINUE);

    f = played();
    f.period = INT64_MIN;
    research_resolve(&f, T0 + S, &d);
    assert_int_equal(d.verdict, RESEARCH_REJECTED);
    assert_string_equal(d.gate, "play");
    f = played();
    f.period = 5; /* overtime the game never reached */
    research_resolve(&f, T0 + S, &d);
    assert_int_equal(d.verdict, RESEARCH_REJECTED);
    f.game_period = 5;
    research_resolve(&f, T0 + S, &d);
    assert_int_equal(d.verdict, RESEARCH_CONTINUE);
    f.game_period = INT64_MIN;
    research_resolve(&f, T0 + S, &d);
    assert_int_equal(d.verdict, RESEARCH_CONTINUE);
    f = played();
    f.clock = NULL;
    research_resolve(&f, T0 + S, &d);
    assert_int_equal(d.verdict, RESEARCH_REJECTED);
    f.clock = "16:00";
    research_resolve(&f, T0 + S, &d);
    assert_int_equal(d.verdict, RESEARCH_REJECTED);
}

static void test_after_fetch(void **state)
{
    (void)state;
    struct research_policy p = RESEARCH_POLICY_DEFAULT;
    struct research_decision d;
    struct research_facts f = played();
    f.fetched = 1;
    research_after_fetch(&f, &p, &d);
    assert_int_equal(d.verdict, RESEARCH_CONTINUE);
    f.fetched = 0;
    f.transient = 1;
    for (int a = 1; a < p.max_attempts; a++) {
        f.attempts = a;
        research_after_fetch(&f, &p, &d);
        assert_int_equal(d.verdict, RESEARCH_RETRY);
    }
    f.attempts = p.max_attempts;
    research_after_fetch(&f, &p, &d);
    assert_int_equal(d.verdict, RESEARCH_FAILED);
    f.transient = 0;
    f.attempts = 1;
    research_after_fetch(&f, &p, &d);
    assert_int_equal(d.verdict, RESEARCH_REJECTED);
    assert_non_null(strstr(d.reason, "unreachable sources"));
}

static void test_backoff_and_transient(void **state)
{
    (void)state;
    struct research_policy p = RESEARCH_POLICY_DEFAULT;
    assert_true(research_backoff_us(&p, 1) == 30 * S);
    assert_true(research_backoff_us(&p, 2) == 60 * S);
    assert_true(research_backoff_us(&p, 3) == 120 * S);
    assert_true(research_backoff_us(&p, 60) == 3600 * S);
    assert_true(research_fetch_transient("timeout", -1));
    assert_true(research_fetch_transient("unreachable", -1));
    assert_false(research_fetch_transient("blocked_address", -1));
    assert_false(research_fetch_transient("unresolvable", -1));
    assert_false(research_fetch_transient("too_large", -1));
    assert_false(research_fetch_transient("bad_scheme", -1));
    assert_true(research_fetch_transient(NULL, 503));
    assert_true(research_fetch_transient(NULL, 429));
    assert_true(research_fetch_transient(NULL, 408));
    assert_false(research_fetch_transient(NULL, 404));
    assert_false(research_fetch_transient(NULL, 410));
    assert_false(research_fetch_transient(NULL, 200));
}

static void test_clock_and_same_play(void **state)
{
    (void)state;
    assert_int_equal(research_clock_seconds("2:13"), 133);
    assert_int_equal(research_clock_seconds("15:00"), 900);
    assert_int_equal(research_clock_seconds("0:00"), 0);
    assert_int_equal(research_clock_seconds("16:00"), -1);
    assert_int_equal(research_clock_seconds("2:60"), -1);
    assert_int_equal(research_clock_seconds("213"), -1);
    assert_int_equal(research_clock_seconds(""), -1);
    assert_int_equal(research_clock_seconds(NULL), -1);
    assert_true(research_same_play(2, "11:00", "other", 2, "11:30", "other", 30));
    assert_false(research_same_play(2, "11:00", "other", 2, "11:31", "other", 30));
    assert_false(research_same_play(2, "11:00", "other", 3, "11:00", "other", 30));
    assert_false(research_same_play(2, "11:00", "other", 2, "11:00", "spot", 30));
    assert_true(research_same_play(2, "11:00", NULL, 2, "11:00", "spot", 30));
    assert_false(research_same_play(INT64_MIN, "11:00", NULL, INT64_MIN, "11:00", NULL, 30));
    assert_false(research_same_play(2, NULL, NULL, 2, "11:00", NULL, 30));
}

static void test_mentions(void **state)
{
    (void)state;
    const char *names[] = {"Ohio State", "OSU", "Michigan", "UM"};
    const char *t1 = "A late flag in the ohio state game";
    assert_true(research_mentions(t1, strlen(t1), names, 4));
    const char *t2 = "Michiganders were angry"; /* not on a word boundary */
    assert_false(research_mentions(t2, strlen(t2), names, 4));
    const char *t3 = "UM fans"; /* names under 3 characters never count */
    assert_false(research_mentions(t3, strlen(t3), names, 4));
    const char *t4 = "(OSU)";
    assert_true(research_mentions(t4, strlen(t4), names, 4));
    assert_false(research_mentions(NULL, 0, names, 4));
    /* the length bounds the search: a name past len is not seen */
    const char *t5 = "xx Michigan";
    assert_false(research_mentions(t5, 5, names, 4));
}

struct seen {
    int n;
    bool passed[4];
};

static void record(void *ctx, const char *gate, bool passed, const char *reason)
{
    struct seen *s = ctx;
    assert_non_null(gate);
    assert_non_null(reason);
    s->passed[s->n++] = passed;
}

static void test_gates(void **state)
{
    (void)state;
    struct research_policy p = RESEARCH_POLICY_DEFAULT;
    struct research_decision d;
    struct research_facts f = played();
    f.fetched = 2;
    f.mention_domains = 2;
    struct seen s = {0};
    research_gates(&f, &p, record, &s, &d);
    assert_int_equal(d.verdict, RESEARCH_CANDIDATE);
    assert_int_equal(s.n, 2);
    f.mention_domains = 1;
    s.n = 0;
    research_gates(&f, &p, record, &s, &d);
    assert_int_equal(d.verdict, RESEARCH_REJECTED);
    assert_string_equal(d.gate, "independent_discussion");
    assert_true(s.passed[0]);
    assert_false(s.passed[1]);
    /* scout signals count only when the server enables them */
    f.scout_domains = 3;
    research_gates(&f, &p, NULL, NULL, &d);
    assert_int_equal(d.verdict, RESEARCH_REJECTED);
    f.scout_enabled = true;
    research_gates(&f, &p, NULL, NULL, &d);
    assert_int_equal(d.verdict, RESEARCH_CANDIDATE);
    /* configurable threshold */
    p.min_domains = 1;
    f = played();
    f.fetched = 1;
    f.mention_domains = 1;
    research_gates(&f, &p, NULL, NULL, &d);
    assert_int_equal(d.verdict, RESEARCH_CANDIDATE);
    f.fetched = 0;
    research_gates(&f, &p, NULL, NULL, &d);
    assert_int_equal(d.verdict, RESEARCH_REJECTED);
    assert_string_equal(d.gate, "sources_reachable");
}

static void test_title(void **state)
{
    (void)state;
    char t[200], p[16];
    research_title("penalty", "Michigan", "Ohio State", 4, "2:13", t, sizeof t);
    assert_string_equal(t, "Debated penalty call: Michigan at Ohio State, Q4 2:13");
    research_title(NULL, "A", "B", 6, NULL, t, sizeof t);
    assert_string_equal(t, "Debated officiating decision: A at B, 2OT");
    research_title("catch", "A", "B", 5, "0:03", t, 12);
    assert_int_equal(strlen(t), 11);
    research_period_label(1, p, sizeof p);
    assert_string_equal(p, "Q1");
    research_period_label(5, p, sizeof p);
    assert_string_equal(p, "OT");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_after_fetch),
        cmocka_unit_test(test_backoff_and_transient),
        cmocka_unit_test(test_clock_and_same_play),
        cmocka_unit_test(test_mentions),
        cmocka_unit_test(test_gates),
        cmocka_unit_test(test_title),
    };
    return cmocka_run_group_tests_name("domain/research", tests, NULL, NULL);
}
