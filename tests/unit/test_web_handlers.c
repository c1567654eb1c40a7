/* The outcome mapping of the src/web handlers (pages, ballots, feed, static assets) without a
 * socket (handlerkit.h): statuses, redirects, page headers, cookies, and every refusal of a
 * ballot in the form and JSON answers. */
#include "handlerkit.h"

#include "domain/voter.h"

static struct hk_voter anon;

static int setup(void **state)
{
    static const unsigned char secret[32] = {1, 2, 3};
    static const struct hk_fixture fixture = {.secret = secret, .anon = &anon};
    return hk_setup(state, &fixture) ? 0 : -1;
}

static void test_pages(void **state)
{
    (void)state;
    struct request *r = hk_get("/");
    assert_non_null(http_reply_header(r, "Content-Security-Policy"));
    hk_expect(r, 200, "text/html", "Late flag");
    hk_expect(hk_get("/?league=nfl&status="), 200, "text/html", "Late flag");
    hk_expect(hk_get("/?league=mls"), 400, "text/html", NULL);

    r = hk_get("/incidents/late-flag");
    assert_non_null(strstr(http_reply_header(r, "Set-Cookie"), VOTER_COOKIE_NAME));
    hk_expect(r, 200, "text/html", "Was the flag correct?");
    r = hk_get("/incidents/old-late-flag"); /* a former slug moves to the current one */
    assert_string_equal(http_reply_header(r, "Location"),
                        "http://127.0.0.1:8080/incidents/late-flag");
    hk_expect(r, 308, NULL, NULL);
    r = hk_get("/incidents/" HK_P);
    assert_string_equal(http_reply_header(r, "Location"),
                        "http://127.0.0.1:8080/incidents/late-flag");
    hk_expect(r, 308, NULL, NULL);
    r = hk_get("/incidents/late-flag-again"); /* merged: the survivor's page */
    assert_string_equal(http_reply_header(r, "Location"),
                        "http://127.0.0.1:8080/incidents/late-flag");
    hk_expect(r, 308, NULL, NULL);
    r = hk_get("/incidents/gone");
    assert_null(http_reply_header(r, "Set-Cookie")); /* no cookie for a page that is not there */
    hk_expect(r, 404, "text/html", "no debate here");
    hk_expect(hk_get("/incidents/nothing-here"), 404, "text/html", NULL);
    hk_expect(hk_get("/incidents/late-flag?utm_source=x"), 200, "text/html", NULL);

    hk_expect(hk_get("/games/nfl-g1"), 200, "text/html", "Late flag");
    hk_expect(hk_get("/games/nfl-g2"), 200, "text/html", "No published incidents");
    hk_expect(hk_get("/games/none"), 404, "text/html", NULL);
}

static void test_feed_and_assets(void **state)
{
    (void)state;
    hk_expect(hk_get("/incidents/feed.xml"), 200, "application/rss+xml", "Late flag");
    hk_expect_error(hk_get("/incidents/feed.xml?x=1"), 400, "invalid_request");
    hk_expect(hk_get("/static/whistle.css"), 200, "text/css", NULL);
    hk_expect(hk_get("/static/vote.js"), 200, "text/javascript", NULL);
    hk_expect(hk_get("/favicon.ico"), 204, "image/x-icon", NULL);
}

/* A ballot request: form or JSON, with or without the voter cookie and a same-origin Origin. */
static struct request *ballot(const char *key, const char *body, bool json, bool with_cookie,
                              const char *origin)
{
    char target[200];
    snprintf(target, sizeof target, "/incidents/%s/vote", key);
    return hk_voter_post(with_cookie ? &anon : NULL, target, json ? "application/json" : HK_FORM,
                         origin, body);
}

static void test_ballots(void **state)
{
    (void)state;
    const char *origin = "http://127.0.0.1:8080";
    char form[200], json[200];
    snprintf(form, sizeof form, "choice=correct&question_version=1&csrf=%s", anon.csrf);
    snprintf(json, sizeof json, "{\"choice\":\"incorrect\",\"question_version\":1,\"csrf\":\"%s\"}",
             anon.csrf);

    struct request *r = ballot("late-flag", form, false, true, origin);
    assert_string_equal(http_reply_header(r, "Location"),
                        "http://127.0.0.1:8080/incidents/late-flag#verdict");
    hk_expect(r, 303, NULL, NULL);
    hk_expect(ballot("late-flag", json, true, true, origin), 200, "application/json",
              "\"incorrect\":1");

    hk_expect_error(ballot("late-flag", json, true, false, origin), 403, "csrf_failed");
    hk_expect_error(ballot("late-flag", json, true, true, "https://evil.example"), 403,
                    "csrf_failed");
    hk_expect_error(ballot("late-flag", json, true, true, NULL), 403, "csrf_failed");
    hk_expect_error(
        ballot("late-flag", "{\"choice\":\"correct\",\"question_version\":1}", true, true, origin),
        403, "csrf_failed");
    char bad[200];
    snprintf(bad, sizeof bad, "{\"choice\":\"maybe\",\"question_version\":1,\"csrf\":\"%s\"}",
             anon.csrf);
    hk_expect_error(ballot("late-flag", bad, true, true, origin), 400, "invalid_request");
    snprintf(bad, sizeof bad, "{\"choice\":\"correct\",\"question_version\":2,\"csrf\":\"%s\"}",
             anon.csrf);
    hk_expect_error(ballot("late-flag", bad, true, true, origin), 409, "vote_closed");
    hk_expect_error(ballot("late-flag-again", json, true, true, origin), 409, "vote_closed");
    hk_expect_error(ballot("gone", json, true, true, origin), 404, "not_found");
    hk_expect(ballot("gone", form, false, true, origin), 404, "text/html", NULL);
    hk_expect(ballot("late-flag", "choice=correct&choice=unsure", false, true, origin), 400,
              "text/html", "repeated");
    hk_expect_error(ballot("late-flag", "[]", true, true, origin), 400, "invalid_request");
}

static void test_store_unavailable(void **state)
{
    (void)state;
    hk_store_down();
    const char *pages[] = {"/", "/incidents/late-flag", "/games/nfl-g1"};
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
        hk_expect_retry(hk_get(pages[i]), 503, "text/html", "temporarily unavailable");
    }
    hk_expect_error(hk_get("/incidents/feed.xml"), 503, "unavailable");
    char json[200];
    snprintf(json, sizeof json, "{\"choice\":\"correct\",\"question_version\":1,\"csrf\":\"%s\"}",
             anon.csrf);
    hk_expect_error(ballot("late-flag", json, true, true, "http://127.0.0.1:8080"), 503,
                    "unavailable");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pages, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_feed_and_assets, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_ballots, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_store_unavailable, setup, hk_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
