/* The scout rules (domain/scout.c) with an explicit now: the UTC day boundary, budget
 * arithmetic, lease expiry, credential states, begin decisions, request and signal checks,
 * URL canonicalisation and content hashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <sodium.h>

#include "domain/agentkey.h"
#include "domain/scout.h"
#include "util/timefmt.h"

#define SEC INT64_C(1000000)
#define DAY (INT64_C(86400) * SEC)
/* 2025-11-29T00:00:00Z */
#define MIDNIGHT (INT64_C(1764374400) * SEC)

static void test_day_boundary(void **state)
{
    (void)state;
    int64_t t;
    assert_int_equal(time_parse_iso("2025-11-29T00:00:00Z", 0, &t), 0);
    assert_int_equal(t, MIDNIGHT);
    assert_int_equal(scout_day_start(MIDNIGHT), MIDNIGHT);
    assert_int_equal(scout_day_start(MIDNIGHT + 1), MIDNIGHT);
    assert_int_equal(scout_day_start(MIDNIGHT + DAY - 1), MIDNIGHT);
    assert_int_equal(scout_day_start(MIDNIGHT + DAY), MIDNIGHT + DAY);
    assert_int_equal(scout_day_start(MIDNIGHT - 1), MIDNIGHT - DAY);
    /* a time zone offset never matters: 23:59:59-05:00 is the next UTC day */
    assert_int_equal(time_parse_iso("2025-11-29T23:59:59-05:00", 0, &t), 0);
    assert_int_equal(scout_day_start(t), MIDNIGHT + DAY);
    /* before the epoch the floor still goes down */
    assert_int_equal(scout_day_start(-1), -DAY);
    assert_int_equal(scout_day_start(0), 0);
}

static void test_budget_arithmetic(void **state)
{
    (void)state;
    assert_int_equal(scout_remaining(100, 0), 100);
    assert_int_equal(scout_remaining(100, 99), 1);
    assert_int_equal(scout_remaining(100, 100), 0);
    assert_int_equal(scout_remaining(100, 150), 0); /* a lowered limit leaves 0, never < 0 */
    assert_int_equal(scout_remaining(0, 0), 0);
    /* the run may take the smaller of its cap and the day's remainder */
    assert_int_equal(scout_run_remaining(10, 0, 1000, 0), 10);
    assert_int_equal(scout_run_remaining(10, 4, 1000, 0), 6);
    assert_int_equal(scout_run_remaining(10, 0, 1000, 995), 5);
    assert_int_equal(scout_run_remaining(10, 10, 1000, 0), 0);
    assert_int_equal(scout_run_remaining(10, 0, 5, 5), 0);
    /* fits: exactly up to the cap, never beyond, never 0 or negative units */
    assert_true(scout_reserve_fits(10, 10, 0, 1000, 0));
    assert_false(scout_reserve_fits(11, 10, 0, 1000, 0));
    assert_true(scout_reserve_fits(1, 10, 9, 1000, 0));
    assert_false(scout_reserve_fits(1, 10, 10, 1000, 0));
    assert_true(scout_reserve_fits(3, 10, 0, 1000, 997));
    assert_false(scout_reserve_fits(4, 10, 0, 1000, 997));
    assert_false(scout_reserve_fits(0, 10, 0, 1000, 0));
    assert_false(scout_reserve_fits(-1, 10, 0, 1000, 0));
    assert_false(scout_reserve_fits(INT64_MAX, SCOUT_BUDGET_MAX, 0, SCOUT_BUDGET_MAX, 0));
}

/* A day's spend across midnight: yesterday's use does not count today. */
static void test_daily_budget_resets_at_midnight(void **state)
{
    (void)state;
    int64_t before = MIDNIGHT - SEC, after = MIDNIGHT;
    int64_t day_before = scout_day_start(before), day_after = scout_day_start(after);
    assert_int_not_equal(day_before, day_after);
    /* the spend is keyed by day: 100 used yesterday, none today */
    int64_t used_yesterday = 100, used_today = 0;
    assert_false(scout_reserve_fits(1, 500, 0, 100, used_yesterday));
    assert_true(scout_reserve_fits(1, 500, 0, 100, used_today));
}

static void test_lease_expiry(void **state)
{
    (void)state;
    int64_t start = MIDNIGHT + 3600 * SEC;
    int64_t end = scout_lease_end(start, 900);
    assert_int_equal(end, start + 900 * SEC);
    assert_int_equal(scout_run_state(start, "running", end), SCOUT_RUN_RUNNING);
    assert_int_equal(scout_run_state(end - 1, "running", end), SCOUT_RUN_RUNNING);
    assert_int_equal(scout_run_state(end, "running", end), SCOUT_RUN_EXPIRED);
    assert_int_equal(scout_run_state(end + DAY, "running", end), SCOUT_RUN_EXPIRED);
    assert_int_equal(scout_run_state(start, "expired", end), SCOUT_RUN_EXPIRED);
    /* completion wins over the lease: a finished run stays completed */
    assert_int_equal(scout_run_state(end + DAY, "completed", end), SCOUT_RUN_COMPLETED);
    assert_string_equal(scout_run_state_name(SCOUT_RUN_EXPIRED), "expired");
}

static void test_credential_state(void **state)
{
    (void)state;
    int64_t now = MIDNIGHT;
    assert_int_equal(scout_credential_state(now, INT64_MIN, INT64_MIN, false), SCOUT_CRED_ACTIVE);
    assert_int_equal(scout_credential_state(now, INT64_MIN, INT64_MIN, true), SCOUT_CRED_DISABLED);
    assert_int_equal(scout_credential_state(now, now + 1, INT64_MIN, false), SCOUT_CRED_ACTIVE);
    assert_int_equal(scout_credential_state(now, now, INT64_MIN, false), SCOUT_CRED_EXPIRED);
    assert_int_equal(scout_credential_state(now, now, INT64_MIN, true), SCOUT_CRED_EXPIRED);
    assert_int_equal(scout_credential_state(now, now, now - 1, true), SCOUT_CRED_REVOKED);
    assert_string_equal(scout_credential_state_name(SCOUT_CRED_DISABLED), "disabled");
}

static void test_begin_decision(void **state)
{
    (void)state;
    int64_t both[2] = {5, 5}, x_only[2] = {5, 0}, none[2] = {0, 0};
    assert_int_equal(scout_begin_decision(false, false, both), SCOUT_GO);
    assert_int_equal(scout_begin_decision(false, false, x_only), SCOUT_GO);
    assert_int_equal(scout_begin_decision(false, false, none), SCOUT_SKIP_BUDGET);
    assert_int_equal(scout_begin_decision(false, true, both), SCOUT_SKIP_RUN_ACTIVE);
    assert_int_equal(scout_begin_decision(false, true, none), SCOUT_SKIP_RUN_ACTIVE);
    assert_int_equal(scout_begin_decision(true, true, none), SCOUT_SKIP_DISABLED);
    assert_string_equal(scout_skip_reason(SCOUT_SKIP_BUDGET), "budget_exhausted");
    assert_string_equal(scout_skip_reason(SCOUT_SKIP_RUN_ACTIVE), "run_active");
    assert_string_equal(scout_skip_reason(SCOUT_SKIP_DISABLED), "disabled");
    assert_null(scout_skip_reason(SCOUT_GO));
}

static void test_credentials_share_the_agent_key_format(void **state)
{
    (void)state;
    char k[AGENT_KEY_LEN + 1], h[AGENT_KEY_HASH_HEX + 1];
    credential_generate(SCOUT_KEY_PREFIX, k, h);
    assert_memory_equal(k, "ws_", 3);
    assert_int_equal(strlen(k), AGENT_KEY_LEN);
    assert_true(credential_well_formed(SCOUT_KEY_PREFIX, k));
    assert_false(agent_key_well_formed(k));
    /* the prefix is under the checksum: editing it does not make an agent key */
    k[1] = 'k';
    assert_false(agent_key_well_formed(k));
    assert_false(credential_well_formed(SCOUT_KEY_PREFIX, k));
    agent_key_generate(k, h);
    assert_false(credential_well_formed(SCOUT_KEY_PREFIX, k));
    assert_true(credential_well_formed(AGENT_KEY_PREFIX, k));
}

/* ---- requests ---- */

static int parse(const char *body, struct scout_request *r, char *err)
{
    return scout_request_parse(body, strlen(body), r, err, 400);
}

static void expect_error(const char *body, const char *fragment)
{
    struct scout_request r;
    char err[400] = "";
    if (parse(body, &r, err) == 0) {
        scout_request_release(&r);
        fail_msg("accepted: %s", body);
    }
    if (!strstr(err, fragment))
        fail_msg("%s: message %s lacks %s", body, err, fragment);
}

static void test_request_ops_and_fields(void **state)
{
    (void)state;
    struct scout_request r;
    char err[400];
    assert_int_equal(parse("{\"op\":\"status\"}", &r, err), 0);
    assert_int_equal(r.op, SCOUT_OP_STATUS);
    assert_null(r.key);
    scout_request_release(&r);
    assert_int_equal(parse("{\"op\":\"status\",\"key\":\"q\"}", &r, err), 0);
    assert_string_equal(r.key, "q");
    scout_request_release(&r);
    assert_int_equal(
        parse("{\"op\":\"begin\",\"key\":\"k\",\"runId\":\"AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA\"}",
              &r, err),
        0);
    assert_int_equal(r.op, SCOUT_OP_BEGIN);
    assert_string_equal(r.run_id, "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa");
    scout_request_release(&r);
    assert_int_equal(parse("{\"op\":\"reserve\",\"runId\":\"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa\","
                           "\"kind\":\"model\",\"units\":250}",
                           &r, err),
                     0);
    assert_int_equal(r.kind, SCOUT_MODEL);
    assert_int_equal(r.units, 250);
    scout_request_release(&r);
    assert_int_equal(parse("{\"op\":\"finish\",\"runId\":\"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa\","
                           "\"signals\":[],\"checkpoints\":{\"b\":1,\"a\":[2]},\"report\":{}}",
                           &r, err),
                     0);
    assert_int_equal(r.nsignals, 0);
    assert_string_equal(r.checkpoints_json, "{\"a\":[2],\"b\":1}");
    assert_string_equal(r.report_json, "{}");
    assert_null(r.evaluations_json);
    assert_int_equal(strlen(r.body_hash), 64);
    scout_request_release(&r);

    expect_error("", "not valid JSON");
    expect_error("[]", "JSON object");
    expect_error("{}", "op is required");
    expect_error("{\"op\":\"frobnicate\"}", "op must be one of");
    expect_error("{\"op\":7}", "op must be one of");
    expect_error("{\"op\":\"status\",\"extra\":1}", "unsupported field extra");
    expect_error("{\"op\":\"status\",\"units\":1}", "units is not a field of op status");
    expect_error("{\"op\":\"begin\",\"runId\":\"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa\"}",
                 "key is required for op begin");
    expect_error("{\"op\":\"begin\",\"key\":\"k\"}", "runId is required for op begin");
    expect_error("{\"op\":\"begin\",\"key\":\"k\",\"runId\":\"run-1\"}", "runId must be a UUID");
    expect_error(
        "{\"op\":\"begin\",\"key\":\"\",\"runId\":\"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa\"}",
        "key must be");
    expect_error("{\"op\":\"begin\",\"key\":5,\"runId\":\"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa\"}",
                 "key must be");
    expect_error("{\"op\":\"reserve\",\"runId\":\"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa\","
                 "\"kind\":\"x\"}",
                 "units is required");
    expect_error("{\"op\":\"reserve\",\"runId\":\"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa\","
                 "\"kind\":\"x\",\"units\":0}",
                 "units must be an integer >= 1");
    expect_error("{\"op\":\"reserve\",\"runId\":\"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa\","
                 "\"kind\":\"x\",\"units\":1.5}",
                 "units must be an integer");
    expect_error("{\"op\":\"reserve\",\"runId\":\"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa\","
                 "\"kind\":\"gpu\",\"units\":1}",
                 "kind must be x");
    expect_error("{\"op\":\"finish\",\"runId\":\"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa\"}",
                 "signals is required");
    expect_error("{\"op\":\"finish\",\"runId\":\"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa\","
                 "\"signals\":{}}",
                 "signals must be an array");
    expect_error("{\"op\":\"finish\",\"runId\":\"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa\","
                 "\"signals\":[],\"report\":[]}",
                 "report must be a JSON object");
    expect_error("{\"op\":\"status\",\"op\":\"status\"}", "not valid JSON");
}

static void test_key_limits(void **state)
{
    (void)state;
    char key[SCOUT_KEY_MAX * 2 + 2];
    memset(key, 'k', SCOUT_KEY_MAX);
    key[SCOUT_KEY_MAX] = '\0';
    assert_true(scout_key_valid(key));
    key[SCOUT_KEY_MAX] = 'k';
    key[SCOUT_KEY_MAX + 1] = '\0';
    assert_false(scout_key_valid(key));
    /* characters, not bytes: 100 two-byte characters fit */
    for (int i = 0; i < SCOUT_KEY_MAX; i++)
        memcpy(key + 2 * i, "\xc3\xa9", 2);
    key[2 * SCOUT_KEY_MAX] = '\0';
    assert_true(scout_key_valid(key));
    assert_false(scout_key_valid("a\nb"));
    assert_false(scout_key_valid(""));
    assert_false(scout_key_valid(NULL));
}

static void test_too_many_signals(void **state)
{
    (void)state;
    for (int n = SCOUT_SIGNALS_MAX; n <= SCOUT_SIGNALS_MAX + 1; n++) {
        char *body = malloc(128 + 4 * (size_t)n);
        size_t len =
            (size_t)snprintf(body, 128, "{\"op\":\"finish\",\"runId\":\"%s\",\"signals\":[",
                             "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa");
        for (int i = 0; i < n; i++)
            len += (size_t)snprintf(body + len, 8, "%s{}", i ? "," : "");
        memcpy(body + len, "]}", 3);
        struct scout_request r;
        char err[400] = "";
        int rc = parse(body, &r, err);
        if (n == SCOUT_SIGNALS_MAX) {
            assert_int_equal(rc, 0);
            assert_int_equal(r.nsignals, SCOUT_SIGNALS_MAX);
            scout_request_release(&r);
        } else {
            assert_int_equal(rc, -1);
            assert_non_null(strstr(err, "signals has 501 items; at most 500"));
        }
        free(body);
    }
}

/* ---- signals ---- */

static int signal_of(const char *json, struct scout_signal *s, char field[16], char *err)
{
    json_t *item = json_loads(json, JSON_DECODE_ANY, NULL);
    assert_non_null(item);
    int rc = scout_signal_parse(item, s, field, err, 300);
    if (rc == 0)
        scout_signal_release(s);
    json_decref(item);
    return rc;
}

static void test_signal_checks(void **state)
{
    (void)state;
    struct scout_signal s;
    char field[16], err[300];
    json_t *item = json_loads("{\"url\":\"https://www.Example.com/a/?utm_source=x&b=2&a=1#top\","
                              "\"author\":\"@ref\",\"posted_at\":\"2025-11-29T20:01:02Z\","
                              "\"text\":\"That late hit was never flagged, unbelievable call\","
                              "\"game_id\":\"cfb:2025-w13\",\"period\":4,\"clock\":\"2:13\"}",
                              0, NULL);
    assert_int_equal(scout_signal_parse(item, &s, field, err, sizeof err), 0);
    assert_string_equal(s.canonical_url, "https://example.com/a?a=1&b=2");
    assert_string_equal(s.domain, "example.com");
    assert_int_equal(strlen(s.content_hash), 64);
    assert_int_equal(s.period, 4);
    assert_string_equal(s.clock, "2:13");
    assert_int_equal(scout_signal_score(&s, true), 100);
    assert_int_equal(scout_signal_score(&s, false), 75);
    scout_signal_release(&s);
    json_decref(item);

    item = json_loads("{\"url\":\"http://a.example/x\",\"text\":null,\"period\":null}", 0, NULL);
    assert_int_equal(scout_signal_parse(item, &s, field, err, sizeof err), 0);
    assert_string_equal(s.content_hash, "");
    assert_null(s.text);
    assert_int_equal(s.period, INT64_MIN);
    assert_int_equal(scout_signal_score(&s, false), 10);
    scout_signal_release(&s);
    json_decref(item);

    static const struct {
        const char *json, *field;
    } bad[] = {
        {"{}", "url"},
        {"{\"url\":\"ftp://a.example/x\"}", "url"},
        {"{\"url\":\"/relative\"}", "url"},
        {"{\"url\":7}", "url"},
        {"{\"url\":\"https://a.example\",\"period\":0}", "period"},
        {"{\"url\":\"https://a.example\",\"period\":31}", "period"},
        {"{\"url\":\"https://a.example\",\"period\":\"4\"}", "period"},
        {"{\"url\":\"https://a.example\",\"clock\":\"16:00\"}", "clock"},
        {"{\"url\":\"https://a.example\",\"clock\":\"2:61\"}", "clock"},
        {"{\"url\":\"https://a.example\",\"posted_at\":\"yesterday\"}", "posted_at"},
        {"{\"url\":\"https://a.example\",\"game_id\":\"a b\"}", "game_id"},
        {"{\"url\":\"https://a.example\",\"author\":\"\"}", "author"},
        {"{\"url\":\"https://a.example\",\"text\":5}", "text"},
        {"{\"url\":\"https://a.example\",\"likes\":5}", "likes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (signal_of(bad[i].json, &s, field, err) == 0)
            fail_msg("accepted %s", bad[i].json);
        if (strcmp(field, bad[i].field) != 0)
            fail_msg("%s: field %s, want %s (%s)", bad[i].json, field, bad[i].field, err);
    }
    assert_int_equal(signal_of("5", &s, field, err), -1);
    assert_string_equal(field, "");
}

static void test_canonical_urls(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"https://twitter.com/ref/status/123?s=20&t=abc", "https://x.com/ref/status/123"},
        {"https://mobile.twitter.com/ref/status/123", "https://x.com/ref/status/123"},
        {"http://www.x.com/ref/status/123/", "https://x.com/ref/status/123"},
        {"HTTPS://News.Example.COM:443/a/b/../c", "https://news.example.com/a/c"},
        {"https://example.com", "https://example.com/"},
        {"https://example.com:8443/a#frag", "https://example.com:8443/a"},
        {"https://user:pw@example.com/a", "https://example.com/a"},
        {"https://example.com/a?fbclid=1&gclid=2&UTM_medium=3", "https://example.com/a"},
        {"https://example.com/a?z=1&y=2", "https://example.com/a?y=2&z=1"},
        {"https://m.example.co.uk/story", "https://example.co.uk/story"},
        {"https://www.com/x", "https://www.com/x"}, /* a www that is the whole name stays */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *c = scout_canonical_url(cases[i].in);
        if (!c || strcmp(c, cases[i].out) != 0)
            fail_msg("%s -> %s, want %s", cases[i].in, c ? c : "(null)", cases[i].out);
        free(c);
    }
    assert_null(scout_canonical_url("mailto:a@example.com"));
    assert_null(scout_canonical_url("not a url"));
    assert_null(scout_canonical_url(NULL));
}

static void test_content_hash(void **state)
{
    (void)state;
    char a[65], b[65], c[65];
    scout_content_hash("Terrible  no-call on the late hit https://t.co/abc", a);
    scout_content_hash("  terrible no-call ON THE late hit https://t.co/xyz\n", b);
    scout_content_hash("Terrible no-call on the early hit", c);
    assert_int_equal(strlen(a), 64);
    assert_string_equal(a, b); /* case, white space and links do not make new content */
    assert_string_not_equal(a, c);
    scout_content_hash("bad call", a); /* too short to identify content */
    assert_string_equal(a, "");
    scout_content_hash("https://t.co/only-a-link-and-nothing-else", a);
    assert_string_equal(a, "");
}

static void test_clock_seconds(void **state)
{
    (void)state;
    assert_int_equal(scout_clock_seconds("2:13"), 133);
    assert_int_equal(scout_clock_seconds("15:00"), 900);
    assert_int_equal(scout_clock_seconds("0:00"), 0);
    assert_int_equal(scout_clock_seconds("16:00"), -1);
    assert_int_equal(scout_clock_seconds("2:3"), -1);
    assert_int_equal(scout_clock_seconds(NULL), -1);
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_day_boundary),
        cmocka_unit_test(test_budget_arithmetic),
        cmocka_unit_test(test_daily_budget_resets_at_midnight),
        cmocka_unit_test(test_lease_expiry),
        cmocka_unit_test(test_credential_state),
        cmocka_unit_test(test_begin_decision),
        cmocka_unit_test(test_credentials_share_the_agent_key_format),
        cmocka_unit_test(test_request_ops_and_fields),
        cmocka_unit_test(test_key_limits),
        cmocka_unit_test(test_too_many_signals),
        cmocka_unit_test(test_signal_checks),
        cmocka_unit_test(test_canonical_urls),
        cmocka_unit_test(test_content_hash),
        cmocka_unit_test(test_clock_seconds),
    };
    return cmocka_run_group_tests_name("domain/scout", tests, NULL, NULL);
}
