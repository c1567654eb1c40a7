/* The scout tables (store/scout.c) against a real SQLite file: conditional grants that
 * never pass a cap, deduplication across runs, and scout_play_support() as the research
 * pipeline calls it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <sodium.h>

#include "domain/scout.h"
#include "store/scout.h"
#include "store/store.h"
#include "tmpdb.h"

#define SEC  INT64_C(1000000)
#define NOW  (INT64_C(1764374400) * SEC)
#define CRED "c0000000-0000-4000-8000-000000000001"
#define RUN1 "a0000000-0000-4000-8000-000000000001"
#define RUN2 "a0000000-0000-4000-8000-000000000002"
#define RUN3 "a0000000-0000-4000-8000-000000000003"

static int setup(void **state)
{
    struct tmpdb *d = tmpdb_open(NULL);
    if (!d)
        return -1;
    struct scout_credential c = {
        .id = CRED,
        .name = "t",
        .prefix = "ws_x",
        .per_day = {10, 1000},
        .per_run = {4, 500},
        .run_seconds = 900,
        .created_at = NOW,
        .expires_at = INT64_MIN,
    };
    if (scout_credential_insert(d->s, &c, "hash") < 0)
        return -1;
    *state = d;
    return 0;
}

static int teardown(void **state)
{
    tmpdb_close(*state);
    return 0;
}

static void begin(struct store *s, const char *id, const char *key, int64_t now)
{
    struct scout_run r = {.started_at = now, .expires_at = now + 900 * SEC, .cap = {4, 500}};
    snprintf(r.id, sizeof r.id, "%s", id);
    snprintf(r.credential_id, sizeof r.credential_id, "%s", CRED);
    snprintf(r.key, sizeof r.key, "%s", key);
    assert_int_equal(scout_run_insert(s, &r, "{}"), 0);
}

/* housekeeping: runs whose lease ended are marked expired and free their key; the edge is
 * inclusive (a lease ending at now has ended) */
static void test_expire_all(void **state)
{
    struct tmpdb *d = *state;
    struct scout_run r;
    begin(d->s, RUN1, "k1", NOW);
    begin(d->s, RUN2, "k2", NOW + 10 * SEC);
    assert_int_equal(scout_runs_expire_all(d->s, NOW + 900 * SEC - 1), 0);
    assert_int_equal(scout_run_get(d->s, RUN1, &r), 1);
    assert_string_equal(r.status, "running");
    assert_int_equal(scout_runs_expire_all(d->s, NOW + 900 * SEC), 0);
    assert_int_equal(scout_run_get(d->s, RUN1, &r), 1);
    assert_string_equal(r.status, "expired");
    assert_int_equal(scout_run_get(d->s, RUN2, &r), 1);
    assert_string_equal(r.status, "running");
    /* the key is free again */
    begin(d->s, RUN3, "k1", NOW + 901 * SEC);
}

static void test_grants_stop_at_the_caps(void **state)
{
    struct tmpdb *d = *state;
    int64_t day = scout_day_start(NOW);
    begin(d->s, RUN1, "k", NOW);
    /* a second active run of the same key is refused by the unique constraint */
    struct scout_run r = {.started_at = NOW, .expires_at = NOW + SEC, .cap = {1, 1}};
    snprintf(r.id, sizeof r.id, "%s", RUN2);
    snprintf(r.credential_id, sizeof r.credential_id, "%s", CRED);
    snprintf(r.key, sizeof r.key, "k");
    assert_int_equal(scout_run_insert(d->s, &r, "{}"), STORE_CONSTRAINT);
    /* the run cap (4) */
    for (int i = 0; i < 4; i++)
        assert_int_equal(scout_run_take(d->s, RUN1, SCOUT_X, 1, NOW), 1);
    assert_int_equal(scout_run_take(d->s, RUN1, SCOUT_X, 1, NOW), 0);
    /* the daily limit (passed in): 7 of 10, then 3 more, then nothing */
    assert_int_equal(scout_spend_take(d->s, CRED, day, SCOUT_X, 7, 10), 1);
    assert_int_equal(scout_spend_take(d->s, CRED, day, SCOUT_X, 4, 10), 0);
    assert_int_equal(scout_spend_take(d->s, CRED, day, SCOUT_X, 3, 10), 1);
    assert_int_equal(scout_spend_take(d->s, CRED, day, SCOUT_X, 1, 10), 0);
    int64_t used[SCOUT_NKINDS];
    assert_int_equal(scout_spend_used(d->s, CRED, day, used), 0);
    assert_int_equal(used[SCOUT_X], 10);
    assert_int_equal(used[SCOUT_MODEL], 0);
    /* the next UTC day starts from zero */
    assert_int_equal(scout_spend_take(d->s, CRED, day + SCOUT_DAY_US, SCOUT_X, 10, 10), 1);
    /* an expired lease grants nothing, and expiring it frees the key */
    assert_int_equal(scout_run_take(d->s, RUN1, SCOUT_MODEL, 1, NOW + 900 * SEC), 0);
    assert_int_equal(scout_run_expire(d->s, CRED, "k", NULL, NOW + 900 * SEC), 0);
    assert_int_equal(scout_run_active(d->s, CRED, "k", NOW + 900 * SEC, &r), 0);
    begin(d->s, RUN2, "k", NOW + 900 * SEC);
}

static struct scout_signal sig(const char *json, json_t **keep)
{
    struct scout_signal s;
    char field[16], err[300];
    *keep = json_loads(json, 0, NULL);
    assert_non_null(*keep);
    if (scout_signal_parse(*keep, &s, field, err, sizeof err) < 0)
        fail_msg("%s: %s", json, err);
    return s;
}

static int add(struct store *s, const char *run, const char *json)
{
    json_t *keep;
    struct scout_signal g = sig(json, &keep);
    int rc = scout_signal_insert(s, run, CRED, &g, 10, NOW);
    scout_signal_release(&g);
    json_decref(keep);
    return rc;
}

static void test_dedup_and_play_support(void **state)
{
    struct tmpdb *d = *state;
    begin(d->s, RUN1, "a", NOW);
    begin(d->s, RUN2, "b", NOW);
    begin(d->s, RUN3, "c", NOW);
    const char *g = "\"game_id\":\"g1\",\"period\":4";
    char b[512];
    snprintf(b, sizeof b, "{\"url\":\"https://twitter.com/u/status/1\",%s,\"clock\":\"2:13\"}", g);
    assert_int_equal(add(d->s, RUN1, b), 1);
    /* the same post under another spelling, in another run: a duplicate */
    snprintf(b, sizeof b, "{\"url\":\"https://x.com/u/status/1?s=20\",%s}", g);
    assert_int_equal(add(d->s, RUN2, b), 0);
    snprintf(b, sizeof b,
             "{\"url\":\"https://news.example.com/a\",%s,\"clock\":\"2:30\","
             "\"text\":\"The late hit on the quarterback was not flagged\"}",
             g);
    assert_int_equal(add(d->s, RUN1, b), 1);
    /* the same text copied to another URL: a duplicate by content hash */
    snprintf(b, sizeof b,
             "{\"url\":\"https://copy.example.org/b\",%s,"
             "\"text\":\"the LATE hit on the quarterback was not flagged\"}",
             g);
    assert_int_equal(add(d->s, RUN2, b), 0);
    snprintf(b, sizeof b, "{\"url\":\"https://blog.example.com/c\",%s}", g); /* same domain */
    assert_int_equal(add(d->s, RUN2, b), 1);
    snprintf(b, sizeof b, "{\"url\":\"https://far.example.net/d\",%s,\"clock\":\"9:00\"}", g);
    assert_int_equal(add(d->s, RUN2, b), 1);
    snprintf(b, sizeof b, "{\"url\":\"https://running.example.net/e\",%s}", g);
    assert_int_equal(add(d->s, RUN3, b), 1); /* its run never completes */
    assert_int_equal(add(d->s, RUN1,
                         "{\"url\":\"https://other.example/x\",\"game_id\":\"g1\","
                         "\"period\":3}"),
                     1);

    /* nothing counts before the runs complete */
    assert_int_equal(scout_play_support(d->s, "g1", 4, "2:13", 60), 0);
    assert_int_equal(scout_run_complete(d->s, RUN1, NOW, "h", "{}", NULL, NULL), 1);
    assert_int_equal(scout_run_complete(d->s, RUN1, NOW, "h", "{}", NULL, NULL), 0);
    assert_int_equal(scout_run_complete(d->s, RUN2, NOW, "h", "{}", NULL, NULL), 1);
    /* x.com (2:13), example.com (2:30, and one without a clock); far.example.net is 6:47
     * away from 2:13 */
    assert_int_equal(scout_play_support(d->s, "g1", 4, "2:13", 60), 2);
    assert_int_equal(scout_play_support(d->s, "g1", 4, "2:13", 10), 2); /* blog has no clock */
    assert_int_equal(scout_play_support(d->s, "g1", 4, "9:00", 10), 2); /* far, blog */
    assert_int_equal(scout_play_support(d->s, "g1", 4, NULL, 0), 3);
    assert_int_equal(scout_play_support(d->s, "g1", 3, NULL, 0), 1);
    assert_int_equal(scout_play_support(d->s, "g2", 4, NULL, 0), 0);
    /* a revoked credential's signals stop counting */
    assert_int_equal(scout_credential_revoke(d->s, CRED, NOW), 1);
    assert_int_equal(scout_credential_revoke(d->s, CRED, NOW), 0); /* revoked already */
    assert_int_equal(scout_play_support(d->s, "g1", 4, NULL, 0), 0);
}

static void test_checkpoints_replace(void **state)
{
    struct tmpdb *d = *state;
    begin(d->s, RUN1, "a", NOW);
    struct buf b = BUF_INIT;
    assert_int_equal(scout_checkpoints_get(d->s, CRED, "a", &b), 0);
    assert_int_equal(scout_checkpoints_put(d->s, CRED, "a", "{\"n\":1}", RUN1, NOW), 0);
    assert_int_equal(scout_checkpoints_put(d->s, CRED, "a", "{\"n\":2}", RUN1, NOW), 0);
    assert_int_equal(scout_checkpoints_get(d->s, CRED, "a", &b), 1);
    assert_string_equal(b.p, "{\"n\":2}");
    buf_release(&b);
    assert_int_equal(scout_checkpoints_get(d->s, CRED, "b", &b), 0);
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_grants_stop_at_the_caps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expire_all, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dedup_and_play_support, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checkpoints_replace, setup, teardown),
    };
    return cmocka_run_group_tests_name("store/scout", tests, NULL, NULL);
}
