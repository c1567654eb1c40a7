/*
 * Unit tests for src/store/research.c with an explicit now: lead claims and their leases,
 * backoff, claim tokens (a worker whose lease expired cannot write its outcome), the audit
 * trail's sequence and candidates that are never re-claimed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "store/research.h"
#include "tmpdb.h"

#define SEC   INT64_C(1000000)
#define NOW   (INT64_C(1764000000) * SEC)
#define LEASE (120 * SEC)
#define L1    "11111111-1111-4111-8111-111111111111"
#define L2    "22222222-2222-4222-8222-222222222222"

static int setup(void **state)
{
    struct tmpdb *d = tmpdb_open(
        "INSERT INTO teams (id, name, abbreviation) VALUES ('h', 'H', 'H'), ('a', 'A', 'A');"
        "INSERT INTO games (id, home_team_id, away_team_id, status, season, week, league,"
        " season_type, created_at, updated_at) VALUES ('g', 'h', 'a', 'final', 2025, 1, 'nfl',"
        " 'regular', 0, 0);"
        "INSERT INTO accounts (id, email, display_name, created_at, updated_at) VALUES"
        " ('acc', 'x@example.org', 'Scout Bot', 0, 0);"
        "INSERT INTO agent_keys (id, account_id, prefix, secret_hash, created_at, expires_at)"
        " VALUES ('key', 'acc', 'wk_', 'h', 0, 0);"
        "INSERT INTO leads (id, account_id, key_id, game_id, description, source_urls, period,"
        " clock, created_at, updated_at) VALUES"
        " ('" L1 "', 'acc', 'key', 'g', 'first lead', '[\"http://a.example/1\"]', 2, '3:00', 10,"
        " 10),"
        " ('" L2 "', 'acc', 'key', 'g', 'second lead', '[\"http://b.example/2\"]', 2, '3:10', 20,"
        " 20)");
    *state = d;
    return d ? 0 : -1;
}

static int teardown(void **state)
{
    tmpdb_close(*state);
    return 0;
}

static int claim(struct store *s, struct arena *a, int64_t now, const char *token,
                 struct research_lead *l)
{
    assert_true(store_begin_write(s) >= 0);
    int rc = research_claim(s, a, now, LEASE, token, l);
    assert_true(store_commit(s) >= 0);
    return rc;
}

static void test_claims_oldest_once_and_lease(void **state)
{
    struct tmpdb *d = *state;
    struct arena a;
    arena_init(&a);
    struct research_lead l;
    assert_int_equal(claim(d->s, &a, NOW, "t1", &l), 1);
    assert_string_equal(l.id, L1); /* oldest first */
    assert_string_equal(l.status, "running");
    assert_string_equal(l.contributor, "Scout Bot");
    assert_int_equal(l.attempts, 1);
    assert_true(l.lease_until == NOW + LEASE);
    assert_int_equal(claim(d->s, &a, NOW, "t2", &l), 1);
    assert_string_equal(l.id, L2);
    /* both held: nothing due, up to the last microsecond of the lease */
    assert_int_equal(claim(d->s, &a, NOW + LEASE - 1, "t3", &l), 0);
    assert_int_equal(claim(d->s, &a, NOW + LEASE, "t3", &l), 0);
    /* the lease has passed: the first lead is taken over, attempt 2 */
    assert_int_equal(claim(d->s, &a, NOW + LEASE + 1, "t4", &l), 1);
    assert_string_equal(l.id, L1);
    assert_int_equal(l.attempts, 2);
    assert_string_equal(l.claim_token, "t4");
    /* the first worker's claim is gone: its outcome is refused */
    struct research_outcome o = {.status = "rejected", .reason = "r", .next_attempt_at = INT64_MIN};
    assert_int_equal(research_set_outcome(d->s, L1, "t1", &o, NOW + LEASE + 2), 0);
    assert_int_equal(research_set_outcome(d->s, L1, "t4", &o, NOW + LEASE + 2), 1);
    assert_int_equal(research_lead_get(d->s, &a, L1, &l), 1);
    assert_string_equal(l.status, "rejected");
    assert_null(l.claim_token);
    arena_release(&a);
}

static void test_backoff_and_candidates(void **state)
{
    struct tmpdb *d = *state;
    struct arena a;
    arena_init(&a);
    struct research_lead l;
    assert_int_equal(claim(d->s, &a, NOW, "t1", &l), 1);
    assert_string_equal(l.id, L1);
    struct research_outcome retry = {
        .status = "pending", .reason = "transient", .next_attempt_at = NOW + 30 * SEC};
    assert_int_equal(research_set_outcome(d->s, L1, "t1", &retry, NOW), 1);
    assert_int_equal(claim(d->s, &a, NOW + 30 * SEC - 1, "t2", &l), 1);
    assert_string_equal(l.id, L2); /* L1 waits for its backoff */
    assert_int_equal(claim(d->s, &a, NOW + 30 * SEC - 1, "t3", &l), 0);
    assert_int_equal(claim(d->s, &a, NOW + 30 * SEC, "t3", &l), 1);
    assert_string_equal(l.id, L1);
    assert_int_equal(l.attempts, 2);
    /* a candidate stays running and is never claimed again, whatever the time */
    struct research_outcome cand = {.status = "running",
                                    .reason = "candidate",
                                    .next_attempt_at = INT64_MIN,
                                    .candidate = true};
    assert_int_equal(research_set_outcome(d->s, L1, "t3", &cand, NOW + 31 * SEC), 1);
    assert_int_equal(research_set_outcome(d->s, L2, "t2", &cand, NOW + 31 * SEC), 1);
    assert_int_equal(claim(d->s, &a, NOW + 86400 * SEC, "t5", &l), 0);
    assert_int_equal(research_lead_get(d->s, &a, L1, &l), 1);
    assert_true(l.candidate_at == NOW + 31 * SEC);
    arena_release(&a);
}

static int count_events(void *ctx, const struct research_event_row *e)
{
    int *n = ctx;
    assert_int_equal(e->seq, *n + 1);
    (*n)++;
    return 0;
}

static void test_events_sequence(void **state)
{
    struct tmpdb *d = *state;
    for (int i = 0; i < 3; i++)
        assert_int_equal(research_event(d->s, L1, NOW + i, "gate", NULL, NULL, "worker", "why"), 0);
    assert_int_equal(research_event(d->s, L2, NOW, "claimed", "pending", "running", "worker", "w"),
                     0);
    int n = 0;
    assert_int_equal(research_events_each(d->s, L1, count_events, &n), 0);
    assert_int_equal(n, 3);
    n = 0;
    assert_int_equal(research_events_each(d->s, L2, count_events, &n), 0);
    assert_int_equal(n, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_claims_oldest_once_and_lease, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backoff_and_candidates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_events_sequence, setup, teardown),
    };
    return cmocka_run_group_tests_name("store/research", tests, NULL, NULL);
}
