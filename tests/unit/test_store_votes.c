/* Ballots and their aggregates (store/votes.c) against a real SQLite file: a revote moves
 * the tallies and never double-counts; rate-limit windows with an explicit now. */
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

#include "domain/votes.h"
#include "store/incidents.h"
#include "store/store.h"
#include "tmpdb.h"
#include "store/votes.h"

#define SEC INT64_C(1000000)
#define NOW (INT64_C(1764000000) * SEC)
#define INC "11111111-1111-4111-8111-111111111111"

static int setup(void **state)
{
    struct tmpdb *d =
        tmpdb_open("INSERT INTO teams (id, name, abbreviation) VALUES ('h', 'H', 'H'),"
                   " ('a', 'A', 'A');"
                   "INSERT INTO games (id, home_team_id, away_team_id, status, season, week,"
                   " league, season_type, created_at, updated_at) VALUES ('g', 'h', 'a',"
                   " 'final', 2025, 1, 'nfl', 'regular', 0, 0);"
                   "INSERT INTO incidents (id, game_id, title, play_description, category,"
                   " status, origin_kind, provenance, published_at, created_at, updated_at,"
                   " question_version) VALUES ('" INC "', 'g', 't', 'p', 'penalty',"
                   " 'developing', 'human', '{}', 0, 0, 0, 1)");
    *state = d;
    return d ? 0 : -1;
}

static int teardown(void **state)
{
    tmpdb_close(*state);
    return 0;
}

static struct choices totals(struct store *s, int64_t version)
{
    struct votes v;
    assert_int_equal(incidents_tallies(s, INC, version, &v), 0);
    return votes_overall(&v);
}

static void test_revote_moves_and_never_double_counts(void **state)
{
    struct tmpdb *d = *state;
    assert_int_equal(ballots_put(d->s, INC, 1, "voter-a", "correct", NULL, NOW), 0);
    assert_int_equal(ballots_put(d->s, INC, 1, "voter-b", "correct", NULL, NOW), 0);
    struct choices c = totals(d->s, 1);
    assert_int_equal(c.correct, 2);
    assert_int_equal(choices_total(&c), 2);

    /* a changes its mind: one leaves "correct", one enters "incorrect" */
    assert_int_equal(ballots_put(d->s, INC, 1, "voter-a", "incorrect", NULL, NOW + SEC), 0);
    c = totals(d->s, 1);
    assert_int_equal(c.correct, 1);
    assert_int_equal(c.incorrect, 1);
    assert_int_equal(choices_total(&c), 2);

    /* the same ballot again changes nothing */
    assert_int_equal(ballots_put(d->s, INC, 1, "voter-a", "incorrect", NULL, NOW + 2 * SEC), 0);
    c = totals(d->s, 1);
    assert_int_equal(choices_total(&c), 2);

    char choice[16];
    assert_int_equal(ballots_choice(d->s, INC, 1, "voter-a", choice), 1);
    assert_string_equal(choice, "incorrect");
    assert_int_equal(ballots_choice(d->s, INC, 1, "nobody", choice), 0);
    assert_string_equal(choice, "");

    /* the tallies always equal the ballots table */
    struct store_stmt *st = store_prepare(d->s, "SELECT count(*) FROM ballots");
    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 2);
    store_reset(st);

    /* another version is counted apart: old ballots are never reinterpreted */
    assert_int_equal(ballots_put(d->s, INC, 2, "voter-a", "unsure", NULL, NOW), 0);
    assert_int_equal(totals(d->s, 2).unsure, 1);
    c = totals(d->s, 1);
    assert_int_equal(c.correct, 1);
    assert_int_equal(choices_total(&c), 2);
}

static void test_rooting_groups_are_tallied_apart(void **state)
{
    struct tmpdb *d = *state;
    struct votes v;
    assert_int_equal(ballots_put(d->s, INC, 1, "v1", "correct", "home", NOW), 0);
    assert_int_equal(ballots_put(d->s, INC, 1, "v2", "correct", NULL, NOW), 0);
    assert_int_equal(ballots_put(d->s, INC, 1, "v1", "unsure", "away", NOW), 0);
    assert_int_equal(incidents_tallies(d->s, INC, 1, &v), 0);
    assert_int_equal(choices_total(&v.by_rooting[ROOTING_HOME]), 0);
    assert_int_equal(v.by_rooting[ROOTING_AWAY].unsure, 1);
    assert_int_equal(v.by_rooting[ROOTING_UNSPECIFIED].correct, 1);
}

static void test_rate_limit_window_edges(void **state)
{
    struct tmpdb *d = *state;
    int64_t count = -1, started = -1;
    /* no window yet: 0 events */
    assert_int_equal(rate_windows_get(d->s, "voter:x", &count, &started), 0);
    assert_int_equal(count, 0);
    assert_int_equal(rate_windows_put(d->s, "voter:x", 2, NOW - 59 * SEC), 0);
    assert_int_equal(rate_windows_put(d->s, "voter:y", 1, NOW - 3600 * SEC), 0);
    assert_int_equal(rate_windows_put(d->s, "voter:x", 3, NOW - 59 * SEC), 0); /* one row */
    assert_int_equal(rate_windows_get(d->s, "voter:x", &count, &started), 0);
    assert_int_equal(count, 3);
    assert_int_equal(started, NOW - 59 * SEC);
    /* housekeeping forgets the windows that started long ago */
    assert_int_equal(rate_windows_prune(d->s, NOW - 60 * SEC), 0);
    assert_int_equal(rate_windows_get(d->s, "voter:y", &count, &started), 0);
    assert_int_equal(count, 0);
    assert_int_equal(rate_windows_get(d->s, "voter:x", &count, &started), 0);
    assert_int_equal(count, 3);
}

static void test_secret_is_created_once(void **state)
{
    struct tmpdb *d = *state;
    unsigned char a[32], b[32];
    assert_int_equal(settings_secret(d->s, "cookie_secret", a), 0);
    assert_int_equal(settings_secret(d->s, "cookie_secret", b), 0);
    assert_memory_equal(a, b, 32);
    static const unsigned char zero[32];
    assert_memory_not_equal(a, zero, 32);
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_revote_moves_and_never_double_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rooting_groups_are_tallied_apart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rate_limit_window_edges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_secret_is_created_once, setup, teardown),
    };
    return cmocka_run_group_tests_name("store/votes", tests, NULL, NULL);
}
