/* The ballot and incident-read use cases (src/app) against a real SQLite file, with an
 * explicit now for every window: each outcome, and that a refused ballot writes nothing. */
#include "handlerkit.h"

#include "app/ballot.h"
#include "app/incident.h"
#include "domain/incident.h"
#include "domain/votes.h"

#define SEC INT64_C(1000000)
#define NOW (INT64_C(1764000000) * SEC)

static struct ballot_input input(const char *key, const char *voter, const char *choice)
{
    struct ballot_input in = {.key = key,
                              .version = 1,
                              .choice = choice,
                              .voter = voter,
                              .address = "192.0.2.1",
                              .limit_voter = 3,
                              .limit_address = 5,
                              .limit_anon = 20,
                              .limit_new_voter = 30};
    return in;
}

static int64_t total(struct app_ctx *c)
{
    struct incident_view v;
    assert_int_equal(incident_read(c, HK_P, 0, NULL, &v), INCIDENT_READ_FOUND);
    struct choices all = votes_overall(&v.inc.votes);
    return choices_total(&all);
}

static void test_rule(void **state)
{
    (void)state;
    assert_int_equal(incident_public_state("published", NULL), INCIDENT_PUBLIC_VISIBLE);
    assert_int_equal(incident_public_state("withdrawn", NULL), INCIDENT_PUBLIC_GONE);
    assert_int_equal(incident_public_state("merged", "published"), INCIDENT_PUBLIC_REDIRECT);
    assert_int_equal(incident_public_state("merged", "withdrawn"), INCIDENT_PUBLIC_GONE);
    assert_int_equal(incident_public_state("merged", "merged"), INCIDENT_PUBLIC_GONE);
    assert_int_equal(incident_public_state("merged", NULL), INCIDENT_PUBLIC_GONE);
    assert_int_equal(incident_public_state(NULL, NULL), INCIDENT_PUBLIC_GONE);
}

/* A page key's incident in one statement, on SQLite (test_pg_writes: PostgreSQL, one round
 * trip each) */
static void test_locate(void **state)
{
    struct hk *k = *state;
    hk_expect_locate(k->c.s, false);
}

static void test_read_outcomes(void **state)
{
    struct hk *k = *state;
    struct app_ctx c = hk_ctx(k, NOW);
    struct incident_view v;
    assert_int_equal(incident_read(&c, HK_P, INCIDENT_READ_DETAILS, NULL, &v), INCIDENT_READ_FOUND);
    assert_int_equal(v.nsources, 1);
    assert_int_equal(v.nhistory, 1);
    assert_string_equal(v.key, "late-flag");
    assert_int_equal(incident_read(&c, HK_D, 0, NULL, &v), INCIDENT_READ_MERGED);
    assert_string_equal(v.survivor_id, HK_P);
    assert_string_equal(v.survivor_key, "late-flag");
    assert_int_equal(incident_read(&c, HK_W, 0, NULL, &v), INCIDENT_READ_MISSING);
    assert_int_equal(incident_read(&c, HK_NONE, 0, NULL, &v), INCIDENT_READ_MISSING);
    /* page keys: current slug, former slug (moved), UUID of a slugged incident (moved) */
    assert_int_equal(
        incident_read(&c, "late-flag", INCIDENT_READ_PAGE_KEY | INCIDENT_READ_GAME, NULL, &v),
        INCIDENT_READ_FOUND);
    assert_string_equal(v.game.id, "nfl-g1");
    assert_int_equal(incident_read(&c, "old-late-flag", INCIDENT_READ_PAGE_KEY, NULL, &v),
                     INCIDENT_READ_MOVED);
    assert_string_equal(v.key, "late-flag");
    assert_int_equal(incident_read(&c, HK_P, INCIDENT_READ_PAGE_KEY, NULL, &v),
                     INCIDENT_READ_MOVED);
    assert_int_equal(incident_read(&c, "late-flag-again", INCIDENT_READ_PAGE_KEY, NULL, &v),
                     INCIDENT_READ_MERGED);
    assert_int_equal(incident_read(&c, "gone", INCIDENT_READ_PAGE_KEY, NULL, &v),
                     INCIDENT_READ_MISSING);
    /* the survivor withdrawn: its duplicate reads as missing, never a redirect */
    assert_int_equal(
        store_exec(k->db->s, "UPDATE incidents SET visibility = 'withdrawn' WHERE id = '" HK_P "'"),
        STORE_DONE);
    assert_int_equal(incident_read(&c, HK_D, 0, NULL, &v), INCIDENT_READ_MISSING);
    assert_int_equal(incident_read(&c, "late-flag-again", INCIDENT_READ_PAGE_KEY, NULL, &v),
                     INCIDENT_READ_MISSING);
}

static void test_ballot_outcomes(void **state)
{
    struct hk *k = *state;
    struct app_ctx c = hk_ctx(k, NOW);
    struct ballot_result r;
    struct ballot_input in = input("late-flag", "v1", "correct");
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_OK);
    assert_string_equal(r.incident_id, HK_P);
    assert_string_equal(r.key, "late-flag");
    assert_int_equal(total(&c), 1);
    in.choice = "unsure"; /* a revote replaces the ballot */
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_OK);
    assert_int_equal(total(&c), 1);

    in = input("late-flag", "v2", "maybe");
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_INVALID);
    assert_non_null(strstr(r.message, "choice"));
    in = input("late-flag", "v2", "correct");
    in.version = 0;
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_INVALID);
    in = input("late-flag", "v2", "correct");
    in.rooting = "home"; /* anonymous ballots carry no rooting */
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_INVALID);
    in.account = true;
    in.rooting = "fans";
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_INVALID);
    in.rooting = "home";
    in.suspended = true;
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_FORBIDDEN);
    in = input("late-flag", "v2", "correct");
    in.version = 2;
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_CLOSED);
    assert_non_null(strstr(r.message, "superseded"));
    in = input("late-flag-again", "v2", "correct");
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_CLOSED);
    assert_non_null(strstr(r.message, "merged"));
    in = input("gone", "v2", "correct");
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_MISSING);
    in = input("no-such-debate", "v2", "correct");
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_MISSING);
    assert_int_equal(total(&c), 1); /* nothing refused was written */
}

/* Per-voter limit: 3 a minute; the 4th waits until the oldest leaves the window. */
static void test_ballot_limits(void **state)
{
    struct hk *k = *state;
    struct app_ctx c = hk_ctx(k, NOW);
    struct ballot_result r;
    struct ballot_input in = input(HK_P, "v1", "correct");
    for (int i = 0; i < 3; i++) {
        c.now = NOW + i * 10 * SEC;
        assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_OK);
    }
    c.now = NOW + 30 * SEC;
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_RATE_LIMITED);
    assert_int_equal(r.retry_s, 30);
    c.now = NOW + 60 * SEC - 1; /* the window opened by the first ballot still holds 3 */
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_RATE_LIMITED);
    assert_int_equal(r.retry_s, 1);
    c.now = NOW + 60 * SEC + 1; /* that window is over: this ballot opens the next one */
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_OK);
    /* per-address limit: 5 a minute across voters of one address */
    const char *voters[] = {"v2", "v3", "v4", "v5"};
    c.now = NOW + 61 * SEC;
    int ok = 0;
    for (int i = 0; i < 4; i++) {
        in = input(HK_P, voters[i], "incorrect");
        ok += ballot_cast(&c, &in, &r) == BALLOT_OK;
    }
    /* the address's window also restarted at 60 s + 1 µs (domain/ratelimit.h: anchored at
     * its first event) and holds 1: all 4 fit, the next one is refused */
    assert_int_equal(ok, 4);
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_RATE_LIMITED);
}

/* Anonymous ballots from one address on one debate: 20 a day, whatever the cookie (issue 14,
 * item 3); an account's ballot is not counted; after the day the address votes again. The
 * per-minute limits are raised out of the way. */
static void test_anonymous_cap_per_address_per_debate(void **state)
{
    struct hk *k = *state;
    struct app_ctx c = hk_ctx(k, NOW);
    struct ballot_result r;
    char voter[32];
    int ok = 0;
    for (int i = 0; i < 25; i++) {
        snprintf(voter, sizeof voter, "fresh-%d", i); /* a dropped cookie: a new voter */
        struct ballot_input in = input(HK_P, voter, "correct");
        in.limit_voter = in.limit_address = 1000;
        c.now = NOW + i * 60 * SEC;
        int rc = ballot_cast(&c, &in, &r);
        if (rc == BALLOT_OK) {
            ok++;
            continue;
        }
        assert_int_equal(rc, BALLOT_RATE_LIMITED);
        assert_int_equal(r.limited_by, BALLOT_WINDOW_ANON);
        assert_int_equal(r.limit, 20);
        assert_int_equal(r.retry_s, 86400 - i * 60); /* the day opened by the first ballot */
    }
    assert_int_equal(ok, 20);
    assert_int_equal(total(&c), 20);
    /* another /64 of IPv6 or another IPv4 address is another subject; the same /64 is not */
    struct ballot_input in = input(HK_P, "v6-a", "correct");
    in.limit_voter = in.limit_address = 1000;
    in.address = "2001:db8:1:2::1";
    in.limit_anon = 1;
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_OK);
    in.voter = "v6-b";
    in.address = "2001:db8:1:2:ffff:ffff:ffff:ffff";
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_RATE_LIMITED);
    in.address = "2001:db8:1:3::1";
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_OK);
    /* an account's ballot from the capped address is not an anonymous ballot */
    in = input(HK_P, "acct:someone", "incorrect");
    in.limit_voter = in.limit_address = 1000;
    in.account = true;
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_OK);
    /* a day after the first anonymous ballot the address counts again */
    in = input(HK_P, "fresh-next-day", "correct");
    in.limit_voter = in.limit_address = 1000;
    c.now = NOW + 86400 * SEC;
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_OK);
}

/* New anonymous voters per address per hour: a voter's first ballot counts, a returning
 * voter's does not. */
static void test_new_voter_cap(void **state)
{
    struct hk *k = *state;
    struct app_ctx c = hk_ctx(k, NOW);
    struct ballot_result r;
    struct ballot_input in = input(HK_P, "n1", "correct");
    in.limit_new_voter = 2;
    in.limit_voter = in.limit_address = 1000;
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_OK);
    in.voter = "n2";
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_OK);
    in.voter = "n3";
    c.now = NOW + 10 * SEC;
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_RATE_LIMITED);
    assert_int_equal(r.limited_by, BALLOT_WINDOW_NEW_VOTER);
    assert_int_equal(r.retry_s, 3600 - 10);
    in.voter = "n1"; /* a voter who has voted before: a revote is allowed */
    in.choice = "unsure";
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_OK);
    in.voter = "n3";
    c.now = NOW + 3600 * SEC;
    assert_int_equal(ballot_cast(&c, &in, &r), BALLOT_OK);
    assert_int_equal(total(&c), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule),
        cmocka_unit_test_setup_teardown(test_locate, hk_setup_seed, hk_teardown),
        cmocka_unit_test_setup_teardown(test_read_outcomes, hk_setup_seed, hk_teardown),
        cmocka_unit_test_setup_teardown(test_ballot_outcomes, hk_setup_seed, hk_teardown),
        cmocka_unit_test_setup_teardown(test_ballot_limits, hk_setup_seed, hk_teardown),
        cmocka_unit_test_setup_teardown(test_anonymous_cap_per_address_per_debate, hk_setup_seed,
                                        hk_teardown),
        cmocka_unit_test_setup_teardown(test_new_voter_cap, hk_setup_seed, hk_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
