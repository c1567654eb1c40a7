/* The outcome mapping of every src/api handler, without a socket (handlerkit.h): status,
 * content type, error code and headers for each outcome a handler can meet. */
#include "handlerkit.h"

static void test_incidents_get(void **state)
{
    (void)state;
    hk_expect(hk_get("/api/v1/incidents/" HK_P), 200, "application/json", "\"id\":\"" HK_P "\"");
    /* uppercase is the same UUID */
    hk_expect(hk_get("/api/v1/incidents/11111111-1111-4111-8111-111111111111"), 200, NULL, NULL);
    hk_expect_error(hk_get("/api/v1/incidents/not-a-uuid"), 400, "invalid_request");
    hk_expect_error(hk_get("/api/v1/incidents/" HK_NONE), 404, "not_found");
    hk_expect_error(hk_get("/api/v1/incidents/" HK_W), 404, "not_found");
    hk_expect_error(hk_get("/api/v1/incidents/" HK_P "?x=1"), 400, "invalid_request");

    struct request *r = hk_get("/api/v1/incidents/" HK_D);
    assert_string_equal(http_reply_header(r, "Location"),
                        "http://127.0.0.1:8080/api/v1/incidents/" HK_P);
    hk_expect(r, 308, "application/json", "\"duplicate_of\":\"" HK_P "\"");
}

static void test_incidents_list(void **state)
{
    (void)state;
    struct request *r = hk_get("/api/v1/incidents");
    assert_non_null(strstr(r->out.p, HK_P));
    assert_null(strstr(r->out.p, HK_D)); /* merged duplicates and withdrawn ones are not listed */
    assert_null(strstr(r->out.p, HK_W));
    hk_expect(r, 200, "application/json", "\"pagination\"");
    hk_expect(hk_get("/api/v1/incidents?league=nfl&category=penalty&limit=1"), 200, NULL,
              "\"nextOffset\":null");
    hk_expect(hk_get("/api/v1/incidents?category=spot"), 200, NULL, "\"data\":[]");
    hk_expect_error(hk_get("/api/v1/incidents?limit=0"), 400, "invalid_request");
    hk_expect_error(hk_get("/api/v1/incidents?category=bogus"), 400, "invalid_request");
    hk_expect_error(hk_get("/api/v1/incidents?limit=1&limit=2"), 400, "invalid_request");
    hk_expect_error(hk_get("/api/v1/incidents?unknown=1"), 400, "invalid_request");
    hk_expect_error(hk_get("/api/v1/incidents?from=2025-02-01&to=2025-01-01"), 400,
                    "invalid_request");
}

static void test_games(void **state)
{
    (void)state;
    hk_expect(hk_get("/api/v1/games"), 200, "application/json", "nfl-g2");
    hk_expect(hk_get("/api/v1/games/nfl-g1"), 200, "application/json", "\"homeScore\":20");
    hk_expect_error(hk_get("/api/v1/games/nope"), 404, "not_found");
    hk_expect_error(hk_get("/api/v1/games?sort=sideways"), 400, "invalid_request");
    hk_expect_error(hk_get("/api/v1/games/nfl-g1?limit=1"), 400, "invalid_request");
}

static void test_routing(void **state)
{
    (void)state;
    struct request *r = hk_do("DELETE", "/api/v1/games", NULL, NULL);
    assert_string_equal(http_reply_header(r, "Allow"), "GET, HEAD");
    hk_expect_error(r, 405, "method_not_allowed");
    hk_expect_error(hk_get("/api/v1/nothing"), 404, "not_found");
    hk_expect_error(hk_do("GET", "/api/v1/games", NULL, "x"), 413, "payload_too_large");
    hk_expect(hk_get("/api/v1/openapi.json"), 200, "application/json", "\"openapi\"");
    hk_expect(hk_get("/healthz"), 200, NULL, NULL);
    hk_expect(hk_get("/readyz"), 200, NULL, NULL);
}

static void test_agent_leads_refusals(void **state)
{
    (void)state;
    const char *json[][2] = {{"Content-Type", "application/json"}, {NULL, NULL}};
    struct http_fake f = {.headers = json};
    struct request *r = hk_do("POST", "/api/v1/agent-leads", &f, "{}");
    assert_non_null(http_reply_header(r, "WWW-Authenticate"));
    hk_expect_error(r, 401, "invalid_credential");

    const char *scout[][2] = {
        {"Content-Type", "application/json"}, {"Authorization", "Bearer ws_abc"}, {NULL, NULL}};
    f.headers = scout;
    hk_expect_error(hk_do("POST", "/api/v1/agent-leads", &f, "{}"), 403, "invalid_credential");

    const char *bad[][2] = {{"Content-Type", "application/json"},
                            {"Authorization", "Bearer wk_not_a_key"},
                            {NULL, NULL}};
    f.headers = bad;
    hk_expect_error(hk_do("POST", "/api/v1/agent-leads", &f, "{}"), 403, "invalid_credential");
    hk_expect_error(hk_do("GET", "/api/v1/agent-leads/" HK_P, &f, NULL), 403, "invalid_credential");
}

static void test_scout_refusals(void **state)
{
    (void)state;
    const char *none[][2] = {{"Content-Type", "application/json"}, {NULL, NULL}};
    struct http_fake f = {.headers = none};
    /* the scout interface answers 403 without a credential (docs/scout.md) */
    hk_expect_error(hk_do("POST", "/api/agents/v1/scout", &f, "{}"), 403, "invalid_credential");
    const char *agent[][2] = {
        {"Content-Type", "application/json"}, {"Authorization", "Bearer wk_abc"}, {NULL, NULL}};
    f.headers = agent;
    hk_expect_error(hk_do("POST", "/api/agents/v1/scout", &f, "{}"), 403, "invalid_credential");
}

/* The store cannot be reached: every reading handler answers 503 with Retry-After. */
static void test_store_unavailable(void **state)
{
    (void)state;
    hk_store_down();
    const char *targets[] = {"/api/v1/incidents", "/api/v1/incidents/" HK_P, "/api/v1/games",
                             "/api/v1/games/nfl-g1"};
    hk_expect_unavailable(targets, sizeof targets / sizeof targets[0]);
    hk_expect(hk_get("/readyz"), 503, NULL, NULL);
    hk_expect(hk_get("/healthz"), 200, NULL, NULL); /* liveness does not need the store */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_incidents_get, hk_setup_seed, hk_teardown),
        cmocka_unit_test_setup_teardown(test_incidents_list, hk_setup_seed, hk_teardown),
        cmocka_unit_test_setup_teardown(test_games, hk_setup_seed, hk_teardown),
        cmocka_unit_test_setup_teardown(test_routing, hk_setup_seed, hk_teardown),
        cmocka_unit_test_setup_teardown(test_agent_leads_refusals, hk_setup_seed, hk_teardown),
        cmocka_unit_test_setup_teardown(test_scout_refusals, hk_setup_seed, hk_teardown),
        cmocka_unit_test_setup_teardown(test_store_unavailable, hk_setup_seed, hk_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
