/*
 * The round trips of the PostgreSQL write paths (issue 20 item 2, docs/scale.md): a ballot
 * reaches the database in one round trip (the server-side function, then its tally version
 * bump after the commit, in one pipeline: store_step_write), and only a written ballot moves
 * the tally version; a lead too (whistle_submit_lead, migration 020), whatever its outcome, and
 * only an accepted or replayed one moves the content version. Counted with store_round_trips on a
 * fresh database of the cluster WHISTLE_TEST_PG names; every test skips without it.
 */
#include "handlerkit.h"
#include "pgtmp.h"

#include <sodium.h>

#include "app/lead.h"
#include "store/votes.h"
#include "util/arena.h"
#include "util/log.h"

struct db {
    char name[64];
    struct store *admin; /* the maintenance connection that created the database */
    struct store *s;
};

static int setup_pg(void **state)
{
    *state = NULL;
    struct db *d = calloc(1, sizeof *d);
    int rc = d && sodium_init() >= 0 ? pgtmp_open("writes", d->name, &d->admin, &d->s) : -1;
    if (rc > 0 && (store_exec(d->s, HK_SEED) < 0 || store_exec(d->s, TMPDB_COPY_GAMES) < 0)) {
        fprintf(stderr, "setup_pg: %s\n", store_errmsg(d->s));
        rc = -1;
    }
    if (rc <= 0) {
        free(d);
        return rc;
    }
    *state = d;
    return 0;
}

static int teardown(void **state)
{
    struct db *d = *state;
    if (d)
        pgtmp_close(d->name, d->admin, d->s);
    free(d);
    return 0;
}

static uint64_t tally_version(struct store *s)
{
    uint64_t v[2];
    assert_int_equal(store_data_version(s, v), 0);
    return v[1];
}

/* One anonymous voter's ballot on HK_P, version 1: every window applies, each `limit`. */
static struct ballot_write ballot(const char *voter, const char *choice, int64_t limit)
{
    static const char *const subjects[BALLOT_WRITE_WINDOWS] = {"voter:t", "ip:t", "anon-ip:t",
                                                               "new-voter-ip:t"};
    struct ballot_write w = {.incident_id = HK_P,
                             .visibility = "published",
                             .version = 1,
                             .voter = voter,
                             .choice = choice,
                             .now = INT64_C(1764000000000000)};
    for (int k = 0; k < BALLOT_WRITE_WINDOWS; k++) {
        w.subject[k] = subjects[k];
        w.limit[k] = limit;
        w.window_us[k] = INT64_C(60000000);
    }
    return w;
}

/* The ballot's write in round trips, whether it moved the tally version, and its answer. */
static struct ballot_answer last_answer;
static struct arena answer_arena;
static int cast(struct store *s, const struct ballot_write *w, int64_t *trips, bool *moved)
{
    int64_t retry = 0;
    int window = -1;
    uint64_t before = tally_version(s);
    int64_t t0 = store_round_trips(s);
    int rc = ballots_cast_server(s, &answer_arena, w, &retry, &window, &last_answer);
    *trips = store_round_trips(s) - t0;
    *moved = tally_version(s) != before;
    return rc;
}

/* The answer of the last cast: the unspecified group's tallies and the question's labels. */
static void assert_answer(int64_t correct, int64_t incorrect, int64_t unsure)
{
    const struct choices *g = &last_answer.votes.by_rooting[ROOTING_UNSPECIFIED];
    assert_int_equal(g->correct, correct);
    assert_int_equal(g->incorrect, incorrect);
    assert_int_equal(g->unsure, unsure);
    assert_int_equal(last_answer.question.version, 1);
    assert_string_equal(last_answer.question.a_label, "Correct");
    assert_string_equal(last_answer.question.b_label, "Incorrect");
    assert_string_equal(last_answer.question.unsure_label, "Unsure");
    for (int r = 0; r < ROOTING_COUNT; r++)
        if (r != ROOTING_UNSPECIFIED)
            assert_int_equal(last_answer.votes.by_rooting[r].correct, 0);
}

static void test_ballot_is_one_round_trip(void **state)
{
    struct db *d = *state;
    if (!d)
        skip();
    int64_t trips;
    bool moved;
    /* the first on this connection prepares its statement in the same pipeline */
    arena_init(&answer_arena);
    struct ballot_write w = ballot("v1", "correct", 2);
    assert_int_equal(cast(d->s, &w, &trips, &moved), BALLOT_WRITE_DONE);
    assert_int_equal(trips, 1);
    assert_true(moved);
    /* the same round trip answered the tallies after the ballot and the labels */
    assert_answer(1, 0, 0);
    /* a replacement */
    w = ballot("v1", "incorrect", 2);
    assert_int_equal(cast(d->s, &w, &trips, &moved), BALLOT_WRITE_DONE);
    assert_int_equal(trips, 1);
    assert_true(moved);
    assert_answer(0, 1, 0);
    /* refused by a full window: one round trip, nothing moves, no answer */
    w = ballot("v1", "unsure", 2);
    assert_int_equal(cast(d->s, &w, &trips, &moved), BALLOT_WRITE_LIMITED);
    assert_int_equal(trips, 1);
    assert_false(moved);
    assert_null(last_answer.question.a_label);
    /* stale (the question version moved): nothing moves either */
    w = ballot("v2", "unsure", 5);
    w.version = 2;
    assert_int_equal(cast(d->s, &w, &trips, &moved), BALLOT_WRITE_STALE);
    assert_int_equal(trips, 1);
    assert_false(moved);
    /* a failed statement (a choice the table refuses) answers its error and moves nothing,
     * even right after a written ballot; the connection stays usable */
    w = ballot("v3", "bogus", 5);
    assert_int_equal(cast(d->s, &w, &trips, &moved), STORE_CONSTRAINT);
    assert_int_equal(trips, 1);
    assert_false(moved);
    w = ballot("v4", "correct", 5);
    assert_int_equal(cast(d->s, &w, &trips, &moved), BALLOT_WRITE_DONE);
    assert_int_equal(trips, 1);
    assert_true(moved);
    assert_answer(1, 1, 0);
    arena_release(&answer_arena);
    /* the tallies are the live ballots */
    struct store_stmt *st =
        store_prepare(d->s, "SELECT sum(correct), sum(incorrect), sum(unsure) FROM vote_tallies"
                            " WHERE incident_id = '" HK_P "'");
    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 1);
    assert_int_equal(store_col_int(st, 1), 1);
    assert_int_equal(store_col_int(st, 2), 0);
    store_reset(st);
}

/* How many statements s's server session has prepared under name. */
static int64_t prepared_named(struct store *s, const char *name)
{
    struct store_stmt *st =
        store_prepare(s, "SELECT count(*) FROM pg_prepared_statements WHERE name = ?");
    store_bind_text(st, 1, name);
    assert_int_equal(store_step(st), STORE_ROW);
    int64_t n = store_col_int(st, 0);
    store_reset(st);
    return n;
}

/* The tally version's bump after a ballot is one statement prepared once per connection
 * (store/pg.c pg_step_write), and prepared again on a new connection. */
static void test_bump_prepared_once_per_connection(void **state)
{
    struct db *d = *state;
    if (!d)
        skip();
    static const struct {
        const char *voter, *choice;
        int64_t limit;
        int outcome;
        bool moved;
    } steps[] = {
        {"b1", "correct", 5, BALLOT_WRITE_DONE, true},
        {"b1", "unsure", 5, BALLOT_WRITE_DONE, true},
        {"b1", "unsure", 5, BALLOT_WRITE_DONE, true}, /* the same again stands, as before */
        {"b2", "unsure", 1, BALLOT_WRITE_LIMITED, false},
    };
    arena_init(&answer_arena);
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
            struct ballot_write w = ballot(steps[i].voter, steps[i].choice, steps[i].limit + round);
            int64_t trips;
            bool moved;
            assert_int_equal(cast(d->s, &w, &trips, &moved), steps[i].outcome);
            assert_int_equal(trips, 1);
            assert_int_equal(moved, steps[i].moved);
            assert_int_equal(prepared_named(d->s, "whistle_bump_tally"), 1);
        }
        /* the server ends the session (as a restart does): the statement that finds out fails,
         * the next unit of work reopens, and the bump is prepared again on the new session */
        assert_int_equal(store_exec(d->s, "SELECT pg_terminate_backend(pg_backend_pid())"),
                         STORE_GONE);
        uint64_t v[2];
        assert_int_equal(store_data_version(d->s, v), 0);
        assert_int_equal(prepared_named(d->s, "whistle_bump_tally"), 0);
    }
    arena_release(&answer_arena);
}

#define ACCOUNT "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
#define KEY     "kkkkkkkk-kkkk-4kkk-8kkk-kkkkkkkkkkkk"
#define AGENT                                                                                      \
    "INSERT INTO accounts (id, email, created_at, updated_at) VALUES ('" ACCOUNT "',"              \
    " 'agent@example.com', 0, 0);"                                                                 \
    "INSERT INTO agent_keys (id, account_id, prefix, secret_hash, created_at, expires_at) VALUES"  \
    " ('" KEY "', '" ACCOUNT "', 'wk_test', 'h', 0, 9000000000000000)"

static uint64_t content_version(struct store *s)
{
    uint64_t v[2];
    assert_int_equal(store_data_version(s, v), 0);
    return v[0];
}

/* One lead submission: its outcome, its round trips, whether the content version moved. */
static int submit(struct store *s, const char *idem, const char *game, const char *text,
                  int64_t *trips, bool *moved, struct lead_receipt *out)
{
    struct arena a;
    arena_init(&a);
    struct app_ctx c = {.s = s, .a = &a, .now = 0};
    struct agent_auth auth = {.key_id = KEY, .account_id = ACCOUNT};
    char body[512];
    snprintf(body, sizeof body,
             "{\"game_id\": \"%s\", \"description\": \"%s: the receiver was held\","
             " \"source_urls\": [\"https://www.example.com/a\"]}",
             game, text);
    uint64_t before = content_version(s);
    int64_t t0 = store_round_trips(s);
    struct whistle_limits lim = {
        .lead_quota = {QUOTA_AGENT_MINUTE_MAX, QUOTA_AGENT_DAY_MAX, QUOTA_GLOBAL_DAY_MAX}};
    int rc = lead_submit(&c, &lim, &auth, idem, body, strlen(body), out);
    *trips = store_round_trips(s) - t0;
    *moved = content_version(s) != before;
    arena_release(&a);
    return rc;
}

static void test_lead_is_one_round_trip(void **state)
{
    struct db *d = *state;
    if (!d)
        skip();
    assert_true(store_exec(d->s, AGENT) >= 0);
    struct lead_receipt r;
    int64_t trips;
    bool moved;
    assert_int_equal(submit(d->s, "idem-0001", "nfl-g1", "one", &trips, &moved, &r), LEAD_ACCEPTED);
    assert_int_equal(trips, 1);
    assert_true(moved);
    assert_int_equal(r.quota.tightest, QUOTA_AGENT_MINUTE);
    assert_int_equal(r.quota.remaining, 2);
    char first[37];
    snprintf(first, sizeof first, "%s", r.lead_id);
    /* a retry: the same lead, nothing taken */
    assert_int_equal(submit(d->s, "idem-0001", "nfl-g1", "one", &trips, &moved, &r), LEAD_REPLAYED);
    assert_int_equal(trips, 1);
    assert_true(moved); /* the key's last use */
    assert_string_equal(r.lead_id, first);
    assert_int_equal(r.quota.remaining, 2);
    /* the same key with another payload */
    assert_int_equal(submit(d->s, "idem-0001", "nfl-g1", "other", &trips, &moved, &r),
                     LEAD_IDEM_CONFLICT);
    assert_int_equal(trips, 1);
    assert_false(moved);
    assert_string_equal(r.lead_id, first);
    assert_non_null(strstr(r.message, first));
    /* no such game */
    assert_int_equal(submit(d->s, "idem-0002", "nfl-none", "two", &trips, &moved, &r),
                     LEAD_UNKNOWN_GAME);
    assert_int_equal(trips, 1);
    assert_false(moved);
    /* two more fill the minute; the next is refused */
    assert_int_equal(submit(d->s, "idem-0003", "nfl-g1", "three", &trips, &moved, &r),
                     LEAD_ACCEPTED);
    assert_int_equal(submit(d->s, "idem-0004", "nfl-g2", "four", &trips, &moved, &r),
                     LEAD_ACCEPTED);
    assert_int_equal(r.quota.remaining, 0);
    assert_int_equal(submit(d->s, "idem-0005", "nfl-g1", "five", &trips, &moved, &r),
                     LEAD_QUOTA_EXCEEDED);
    assert_int_equal(trips, 1);
    assert_false(moved);
    assert_int_equal(r.quota.exceeded, QUOTA_AGENT_MINUTE);
    assert_true(r.quota.retry_after_s >= 1 && r.quota.retry_after_s <= 60);
    /* a replay is answered past the quota */
    assert_int_equal(submit(d->s, "idem-0001", "nfl-g1", "one", &trips, &moved, &r), LEAD_REPLAYED);
    assert_int_equal(r.quota.remaining, 0);
    struct store_stmt *st = store_prepare(
        d->s, "SELECT count(*), count(DISTINCT l.created_at) FROM leads l JOIN lead_idempotency i"
              " ON i.lead_id = l.id WHERE l.account_id = '" ACCOUNT "'");
    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 3);
    store_reset(st);
}

/* Migration 021: only the ballot function of migration 013 is left (the one of 009 ignored the
 * anonymous caps). */
static void test_one_ballot_function(void **state)
{
    struct db *d = *state;
    if (!d)
        skip();
    struct store_stmt *st = store_prepare(d->s, "SELECT count(*), min(pronargs) FROM pg_proc"
                                                " WHERE proname = 'whistle_cast_ballot'");
    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 1);
    assert_int_equal(store_col_int(st, 1), 11);
    store_reset(st);
}

int main(void)
{
    log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ballot_is_one_round_trip, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_lead_is_one_round_trip, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_one_ballot_function, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_bump_prepared_once_per_connection, setup_pg, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
