/*
 * The round trips of the PostgreSQL write paths (issue 20 item 2, docs/scale.md): a ballot
 * reaches the database in one round trip (the server-side function, then its tally version
 * bump after the commit, in one pipeline: store_step_write), and only a written ballot moves
 * the tally version; a lead too (whistle_submit_lead, migration 020), whatever its outcome, and
 * only an accepted or replayed one moves the content version; the lookup before a ballot, by
 * slug too, is one round trip (incidents_locate). Counted with store_round_trips on a
 * fresh database of the cluster WHISTLE_TEST_PG names; every test skips without it.
 */
#include "handlerkit.h"
#include "pgtmp.h"

#include <sodium.h>

#include "app/lead.h"
#include "domain/ballotlimit.h"
#include "domain/vocab.h"
#include "domain/votes.h"
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

/* The lookup before a ballot (app/ballot.c): a page key's incident, by slug too, in one round
 * trip, so that a ballot by slug is two in all (the lookup, the write) */
static void test_locate_is_one_round_trip(void **state)
{
    struct db *d = *state;
    if (!d)
        skip();
    hk_expect_locate(d->s, true);
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

/* One step of test_ballot_rules: a ballot by voter from address ip, at seconds after T0 (an
 * account's, with rooting or none, or an anonymous one: the anonymous windows apply to it),
 * and what it must answer: the outcome and, when refused, the full window (0-based) and the
 * seconds to wait. */
struct rule_step {
    const char *voter, *ip, *choice;
    bool account;
    const char *rooting;
    double at;
    int outcome, window;
    int64_t retry;
};

#define T0 INT64_C(1764000000000000)

/* The ballot of step t on HK_P: limits voter 2, address 4, anonymous 3, new voter 2, over the
 * real windows' lengths; subjects in buf */
static struct ballot_write rule_ballot(const struct rule_step *t, char buf[4][64])
{
    static const int64_t limits[BALLOT_WRITE_WINDOWS] = {2, 4, 3, 2};
    static const int64_t lengths[BALLOT_WRITE_WINDOWS] = {BALLOT_MINUTE_US, BALLOT_MINUTE_US,
                                                          BALLOT_ANON_DAY_US, BALLOT_NEW_VOTER_US};
    struct ballot_write w = {.incident_id = HK_P,
                             .visibility = "published",
                             .version = 1,
                             .voter = t->voter,
                             .choice = t->choice,
                             .rooting = t->rooting,
                             .now = T0 + (int64_t)(t->at * 1e6)};
    snprintf(buf[0], 64, "voter:%s", t->voter);
    snprintf(buf[1], 64, "ip:%s", t->ip);
    snprintf(buf[2], 64, "anon-ip:%s:p", t->ip);
    snprintf(buf[3], 64, "new-voter-ip:%s", t->ip);
    for (int k = 0; k < BALLOT_WRITE_WINDOWS; k++) {
        w.subject[k] = k < 2 || !t->account ? buf[k] : NULL;
        w.limit[k] = limits[k];
        w.window_us[k] = lengths[k];
    }
    return w;
}

/* A subject's window row: its count, and its start in seconds after T0 (-1: no row) */
static int64_t window_count(struct store *s, const char *subject, double *started)
{
    int64_t count, at;
    assert_int_equal(rate_windows_get(s, subject, &count, &at), 0);
    *started = at ? (double)(at - T0) / 1e6 : -1;
    return count;
}

#define DONE    BALLOT_WRITE_DONE
#define LIMITED BALLOT_WRITE_LIMITED

/*
 * Every outcome of whistle_ballot (migration 025): a new ballot, the same again (stands,
 * moves no tally), a changed choice in the same group, a changed group, each window full
 * (the first full one in the rule's order, with the whole seconds to wait, and nothing
 * counted), the new-voter window only for a voter without a ballot, a window that ended
 * starting again, stale incidents; after every standing ballot its answer is the tallies of
 * the live ballots and the labels, and at the end the tally rows are the live ballots.
 */
static void test_ballot_rules(void **state)
{
    struct db *d = *state;
    if (!d)
        skip();
    static const struct rule_step steps[] = {
        {"r1", "a1", "correct", false, NULL, 0, DONE, 0, 0},       /* new: every window counts 1 */
        {"r1", "a1", "correct", false, NULL, 1, DONE, 0, 0},       /* the same again: stands */
        {"r1", "a1", "incorrect", false, NULL, 2, LIMITED, 0, 58}, /* the voter's 2 a minute */
        {"r2", "a1", "unsure", false, NULL, 3.5, DONE, 0, 0},
        /* the anonymous cap (3) and the new-voter cap (2) are both full: the first answers */
        {"r3", "a1", "correct", false, NULL, 10, LIMITED, 2, 86390},
        {"r4", "a2", "correct", true, "home", 11, DONE, 0, 0},   /* an account: two windows */
        {"r4", "a2", "unsure", true, "away", 12, DONE, 0, 0},    /* another group */
        {"r5", "a1", "correct", true, "home", 12.5, DONE, 0, 0}, /* a1's 4th this minute */
        {"r6", "a1", "incorrect", true, "home", 13.25, LIMITED, 1, 47},
        {"r7", "a3", "correct", false, NULL, 20, DONE, 0, 0},
        {"r8", "a3", "incorrect", false, NULL, 21, DONE, 0, 0},
        {"r9", "a3", "incorrect", false, NULL, 22, LIMITED, 3, 3598}, /* a3's 3rd new voter */
        {"r7", "a3", "unsure", false, NULL, 23, DONE, 0, 0},          /* r7 is not new: passes */
        {"r2", "a1", "incorrect", false, NULL, 30, LIMITED, 1, 30},
        /* a minute after r1's first ballot its window and a1's start again */
        {"r1", "a1", "correct", true, "neutral", 61, DONE, 0, 0},
        {"r1", "a1", "incorrect", true, NULL, 62, DONE, 0, 0}, /* no rooting: unspecified */
    };
    /* the model: each voter's live ballot (choice and group index, -1: none) */
    int live_choice[16], live_group[16];
    for (int v = 0; v < 16; v++)
        live_choice[v] = live_group[v] = -1;
    arena_init(&answer_arena);
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        const struct rule_step *t = &steps[i];
        char buf[4][64];
        struct ballot_write w = rule_ballot(t, buf);
        int64_t retry = 0, trips;
        int window = -1;
        bool moved;
        int64_t before[4];
        for (int k = 0; k < 4; k++) {
            double started;
            before[k] = window_count(d->s, buf[k], &started);
        }
        assert_int_equal(cast(d->s, &w, &trips, &moved), t->outcome);
        assert_int_equal(trips, 1);
        if (t->outcome == LIMITED) {
            int64_t r = 0;
            /* the same ballot again: refused the same way, and nothing was counted */
            assert_int_equal(
                ballots_cast_server(d->s, &answer_arena, &w, &r, &window, &last_answer), LIMITED);
            retry = r;
            assert_int_equal(window, t->window);
            assert_int_equal(retry, t->retry);
            for (int k = 0; k < 4; k++) {
                double started;
                assert_int_equal(window_count(d->s, buf[k], &started), before[k]);
            }
            continue;
        }
        int v = t->voter[1] - '0';
        live_choice[v] = vocab_find(choice_names, t->choice);
        live_group[v] = w.rooting ? rooting_from_name(w.rooting) : ROOTING_UNSPECIFIED;
        struct votes want = {0};
        for (int u = 0; u < 16; u++) {
            if (live_choice[u] < 0)
                continue;
            struct choices *g = &want.by_rooting[live_group[u]];
            g->correct += live_choice[u] == CHOICE_CORRECT;
            g->incorrect += live_choice[u] == CHOICE_INCORRECT;
            g->unsure += live_choice[u] == CHOICE_UNSURE;
        }
        assert_memory_equal(&last_answer.votes, &want, sizeof want);
        assert_string_equal(last_answer.question.b_label, "Incorrect");
    }
    /* r1's ballot at 61 s started its own and a1's windows again; a3's new-voter window
     * counted r7 and r8 only (r7's second ballot is not a new voter's) */
    double started;
    assert_int_equal(window_count(d->s, "voter:r1", &started), 2);
    assert_true(started == 61);
    assert_int_equal(window_count(d->s, "ip:a1", &started), 2);
    assert_true(started == 61);
    assert_int_equal(window_count(d->s, "new-voter-ip:a3", &started), 2);
    assert_true(started == 20);
    assert_int_equal(window_count(d->s, "anon-ip:a3:p", &started), 3);
    /* r3 and r9 were refused: their voter windows exist, and counted nothing */
    assert_int_equal(window_count(d->s, "voter:r3", &started), 0);
    assert_true(started == 10);
    assert_int_equal(window_count(d->s, "voter:r9", &started), 0);
    /* stale: another visibility, another version, a withdrawn incident; no window is made */
    static const struct {
        const char *incident, *visibility;
        int64_t version;
    } stale[] = {{HK_P, "withdrawn", 1}, {HK_P, "published", 2}, {HK_W, "published", 1}};
    for (size_t i = 0; i < sizeof stale / sizeof stale[0]; i++) {
        char buf[4][64];
        struct rule_step t = {"s1", "a9", "correct", false, NULL, 100, 0, 0, 0};
        struct ballot_write w = rule_ballot(&t, buf);
        w.incident_id = stale[i].incident;
        w.visibility = stale[i].visibility;
        w.version = stale[i].version;
        int64_t trips;
        bool moved;
        assert_int_equal(cast(d->s, &w, &trips, &moved), BALLOT_WRITE_STALE);
        assert_false(moved);
        assert_int_equal(window_count(d->s, "voter:s1", &started), 0);
        assert_true(started == -1);
    }
    arena_release(&answer_arena);
    /* the tally rows (over the slots) are the live ballots, group by group */
    struct store_stmt *st = store_prepare(
        d->s, "SELECT count(*) FROM (SELECT rooting, sum(correct) AS c, sum(incorrect) AS i,"
              " sum(unsure) AS u FROM vote_tallies WHERE incident_id = '" HK_P "' GROUP BY rooting)"
              " t FULL JOIN (SELECT coalesce(rooting, 'unspecified') AS rooting,"
              " count(*) FILTER (WHERE choice = 'correct') AS c,"
              " count(*) FILTER (WHERE choice = 'incorrect') AS i,"
              " count(*) FILTER (WHERE choice = 'unsure') AS u FROM ballots"
              " WHERE incident_id = '" HK_P "' GROUP BY 1) b USING (rooting)"
              " WHERE (coalesce(t.c, 0), coalesce(t.i, 0), coalesce(t.u, 0))"
              " <> (coalesce(b.c, 0), coalesce(b.i, 0), coalesce(b.u, 0))");
    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 0);
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
        cmocka_unit_test_setup_teardown(test_locate_is_one_round_trip, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_ballot_is_one_round_trip, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_lead_is_one_round_trip, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_one_ballot_function, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_ballot_rules, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_bump_prepared_once_per_connection, setup_pg, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
