/* The outcome mapping of the src/api handlers that test_api_handlers.c leaves out, without a
 * socket (handlerkit.h): the teams list, an incident's public comments, and the success and
 * refusals of the agent-lead and scout endpoints past their credential checks (202, 400, 404,
 * 409, 429 with Retry-After). Credentials are made as the CLI makes them (a random key; only
 * its SHA-256 stored). */
#include "handlerkit.h"

#include "domain/agentkey.h"
#include "domain/voter.h"
#include "util/uuid.h"

#define AGENT   "e0000000-0000-4000-8000-000000000001"
#define AGENT2  "e0000000-0000-4000-8000-000000000002"
#define KEY_ID  "e0000000-0000-4000-8000-00000000000a"
#define KEY2_ID "e0000000-0000-4000-8000-00000000000b"
#define SC_ID   "e0000000-0000-4000-8000-00000000000c"
#define COMMENT "e0000000-0000-4000-8000-00000000000d"
#define RUN     "e0000000-0000-4000-8000-0000000000aa"

static char key[AGENT_KEY_LEN + 1], key2[AGENT_KEY_LEN + 1], scout[AGENT_KEY_LEN + 1];

static struct hk_user agent1, agent2;

static int setup(void **state)
{
    static const unsigned char secret[32] = {2, 7};
    static const struct hk_fixture fixture = {
        .secret = secret,
        .accounts = {{AGENT, "agent@example.com", NULL, &agent1},
                     {AGENT2, "agent2@example.com", NULL, &agent2}},
    };
    struct hk *k = hk_setup(state, &fixture);
    if (!k)
        return -1;
    char h1[AGENT_KEY_HASH_HEX + 1], h2[AGENT_KEY_HASH_HEX + 1], h3[AGENT_KEY_HASH_HEX + 1];
    agent_key_generate(key, h1);
    agent_key_generate(key2, h2);
    credential_generate(SCOUT_KEY_PREFIX, scout, h3);
    int64_t now = time_now_us(), later = now + 86400000000LL;
    if (hk_agent_key(k, KEY_ID, AGENT, NULL, "wk_a", h1, now, later) < 0 ||
        hk_agent_key(k, KEY2_ID, AGENT2, NULL, "wk_b", h2, now, later) < 0)
        return -1;
    return hk_exec(k,
                   "INSERT INTO scout_credentials (id, name, prefix, secret_hash, x_per_day,"
                   " model_per_day, x_per_run, model_per_run, run_seconds, created_at) VALUES"
                   " ('" SC_ID "', 'scout', 'ws_a', '%s', 100, 1000, 2, 100, 600, %lld);"
                   "UPDATE accounts SET display_name = 'Ann Agent', display_key = 'annagent'"
                   " WHERE id = '" AGENT "';"
                   "INSERT INTO comments (id, incident_id, account_id, body, status, visible,"
                   " created_at) VALUES ('" COMMENT "', '" HK_P "', '" AGENT "', 'Clear hold.',"
                   " 'published', 1, %lld)",
                   h3, (long long)now, (long long)now);
}

static void test_teams(void **state)
{
    (void)state;
    hk_expect(hk_get("/api/v1/teams"), 200, "application/json", "\"id\":\"nfl-h\"");
    struct request *r = hk_get("/api/v1/teams?league=nfl&limit=1");
    assert_non_null(strstr(r->out.p, "\"nextOffset\":1"));
    hk_expect(r, 200, "application/json", "\"pagination\"");
    hk_expect(hk_get("/api/v1/teams?league=college"), 200, "application/json", "\"data\":[]");
    hk_expect_error(hk_get("/api/v1/teams?league=mls"), 400, "invalid_request");
    hk_expect_error(hk_get("/api/v1/teams?limit=101"), 400, "invalid_request");
    hk_expect_error(hk_get("/api/v1/teams?bogus=1"), 400, "invalid_request");
}

static void test_incident_comments(void **state)
{
    (void)state;
    struct request *r = hk_get("/api/v1/incidents/" HK_P "/comments");
    assert_non_null(strstr(r->out.p, "Clear hold."));
    assert_null(strstr(r->out.p, "agent@example.com")); /* never an email */
    hk_expect(r, 200, "application/json", "\"id\":\"" COMMENT "\"");
    hk_expect(hk_get("/api/v1/incidents/" HK_P "/comments?sort=newest&limit=1"), 200,
              "application/json", "Ann Agent");
    hk_expect_error(hk_get("/api/v1/incidents/" HK_P "/comments?sort=sideways"), 400,
                    "invalid_request");
    hk_expect_error(hk_get("/api/v1/incidents/not-a-uuid/comments"), 400, "invalid_request");
    hk_expect_error(hk_get("/api/v1/incidents/" HK_NONE "/comments"), 404, "not_found");
    hk_expect_error(hk_get("/api/v1/incidents/" HK_W "/comments"), 404, "not_found");
    r = hk_get("/api/v1/incidents/" HK_D "/comments");
    assert_string_equal(http_reply_header(r, "Location"),
                        HK_ORIGIN "/api/v1/incidents/" HK_P "/comments");
    hk_expect(r, 308, "application/json", NULL);
}

/* An agent request with key k (NULL: none), an Idempotency-Key (NULL: none), JSON or not. */
static struct request *agent(const char *method, const char *target, const char *k,
                             const char *idem, bool json, const char *body)
{
    char auth[128];
    snprintf(auth, sizeof auth, "Bearer %s", k ? k : "");
    const char *headers[4][2] = {{"Content-Type", json ? "application/json" : "text/plain"},
                                 {NULL, NULL},
                                 {NULL, NULL},
                                 {NULL, NULL}};
    int n = 1;
    if (k) {
        headers[n][0] = "Authorization";
        headers[n++][1] = auth;
    }
    if (idem) {
        headers[n][0] = "Idempotency-Key";
        headers[n++][1] = idem;
    }
    struct http_fake f = {.headers = headers};
    return hk_do(method, target, &f, body);
}

#define LEAD(desc)                                                                                 \
    "{\"game_id\":\"nfl-g1\",\"description\":\"" desc "\",\"source_urls\":"                        \
    "[\"https://news.example.com/story/1\"],\"period\":4,\"clock\":\"2:13\","                      \
    "\"category\":\"penalty\",\"confidence\":70}"

/* The lead ID of a 202 receipt into id (37 bytes). */
static void lead_id(const struct request *r, char id[UUID_STR_LEN + 1])
{
    const char *p = strstr(r->out.p, "\"id\":\"");
    if (!p)
        fprintf(stderr, "%d %.*s\n", r->status, (int)r->out.len, r->out.p);
    assert_non_null(p);
    snprintf(id, UUID_STR_LEN + 1, "%s", p + 6);
    assert_int_equal(strlen(id), UUID_STR_LEN);
}

static void test_leads(void **state)
{
    (void)state;
    struct request *r = agent("POST", "/api/v1/agent-leads", key, "idem-key-01", true,
                              LEAD("Late hit out of bounds not flagged"));
    char id[UUID_STR_LEN + 1], target[120];
    lead_id(r, id);
    assert_non_null(http_reply_header(r, "RateLimit"));
    snprintf(target, sizeof target, HK_ORIGIN "/api/v1/agent-leads/%s", id);
    assert_string_equal(http_reply_header(r, "Location"), target);
    hk_expect(r, 202, "application/json", "\"status\":\"accepted_for_validation\"");

    hk_expect_error(agent("POST", "/api/v1/agent-leads", key, NULL, true, LEAD("No key here")), 400,
                    "invalid_request");
    hk_expect_error(agent("POST", "/api/v1/agent-leads", key, "bad key!", true, LEAD("Bad key")),
                    400, "invalid_request");
    hk_expect_error(
        agent("POST", "/api/v1/agent-leads", key, "idem-key-02", true, "{\"game_id\":1}"), 400,
        "invalid_request");
    hk_expect_error(agent("POST", "/api/v1/agent-leads", key, "idem-key-03", true, "not json"), 400,
                    "invalid_request");
    hk_expect_error(agent("POST", "/api/v1/agent-leads", key, "idem-key-04", true,
                          "{\"game_id\":\"nfl-none\",\"description\":\"A late hit out of bounds\","
                          "\"source_urls\":[\"https://news.example.com/story/2\"]}"),
                    400, "invalid_request");
    hk_expect_error(agent("POST", "/api/v1/agent-leads?x=1", key, "idem-key-05", true, LEAD("x")),
                    400, "invalid_request");

    /* the same Idempotency-Key: the same receipt; another body with it: 409 */
    const char *idem = "idem-key-0123456789abcdef";
    r = agent("POST", "/api/v1/agent-leads", key, idem, true, LEAD("A hold in the end zone"));
    char first[UUID_STR_LEN + 1], again[UUID_STR_LEN + 1];
    lead_id(r, first);
    hk_expect(r, 202, "application/json", NULL);
    r = agent("POST", "/api/v1/agent-leads", key, idem, true, LEAD("A hold in the end zone"));
    lead_id(r, again);
    assert_string_equal(first, again);
    hk_expect(r, 202, "application/json", NULL);
    hk_expect_error(
        agent("POST", "/api/v1/agent-leads", key, idem, true, LEAD("Something else entirely here")),
        409, "idempotency_conflict");
    hk_expect_error(
        agent("POST", "/api/v1/agent-leads", key, idem, false, LEAD("A hold in the end zone")), 400,
        "invalid_request");

    /* a third lead in the minute fills the agent's quota; the fourth is refused */
    hk_expect(agent("POST", "/api/v1/agent-leads", key, "idem-key-06", true,
                    LEAD("A third lead here ok")),
              202, "application/json", NULL);
    hk_expect_retry_error(agent("POST", "/api/v1/agent-leads", key, "idem-key-07", true,
                                LEAD("A fourth lead over quota")),
                          429, "quota_exceeded");

    /* the status of a lead: its agent's only */
    snprintf(target, sizeof target, "/api/v1/agent-leads/%s", id);
    hk_expect(agent("GET", target, key, NULL, false, NULL), 200, "application/json",
              "\"status\":\"pending\"");
    hk_expect_error(agent("GET", target, key2, NULL, false, NULL), 404, "not_found");
    hk_expect_error(agent("GET", "/api/v1/agent-leads/" HK_NONE, key, NULL, false, NULL), 404,
                    "not_found");
    hk_expect_error(agent("GET", "/api/v1/agent-leads/nope", key, NULL, false, NULL), 400,
                    "invalid_request");
    r = agent("GET", target, NULL, NULL, false, NULL);
    assert_non_null(http_reply_header(r, "WWW-Authenticate"));
    hk_expect_error(r, 401, "invalid_credential");
}

static void test_scout(void **state)
{
    (void)state;
    const char *url = "/api/agents/v1/scout";
    hk_expect(agent("POST", url, scout, NULL, true, "{\"op\":\"status\"}"), 200, "application/json",
              "\"budgets\"");
    hk_expect_error(agent("POST", url, scout, NULL, false, "{\"op\":\"status\"}"), 400,
                    "invalid_request");
    hk_expect_error(agent("POST", url, scout, NULL, true, "{\"op\":\"dance\"}"), 400,
                    "invalid_request");
    hk_expect_error(agent("POST", "/api/agents/v1/scout?x=1", scout, NULL, true, "{}"), 400,
                    "invalid_request");
    hk_expect_error(agent("POST", url, key, NULL, true, "{\"op\":\"status\"}"), 403,
                    "invalid_credential");

    hk_expect(agent("POST", url, scout, NULL, true,
                    "{\"op\":\"begin\",\"key\":\"k\",\"runId\":\"" RUN "\"}"),
              200, "application/json", "\"status\":\"running\"");
    hk_expect_error(agent("POST", url, scout, NULL, true,
                          "{\"op\":\"begin\",\"key\":\"other\",\"runId\":\"" RUN "\"}"),
                    409, "idempotency_conflict");
    hk_expect(agent("POST", url, scout, NULL, true,
                    "{\"op\":\"reserve\",\"runId\":\"" RUN "\",\"kind\":\"x\",\"units\":1}"),
              200, "application/json", NULL);
    hk_expect_error(agent("POST", url, scout, NULL, true,
                          "{\"op\":\"reserve\",\"runId\":\"" HK_NONE "\",\"kind\":\"x\","
                          "\"units\":1}"),
                    400, "invalid_request");
    hk_expect(agent("POST", url, scout, NULL, true,
                    "{\"op\":\"finish\",\"runId\":\"" RUN "\",\"signals\":[]}"),
              200, "application/json", NULL);
    hk_expect_error(agent("POST", url, scout, NULL, true,
                          "{\"op\":\"begin\",\"key\":\"k\",\"runId\":\"" RUN "\"}"),
                    409, "run_completed");
}

/* A run whose lease has ended (started an hour ago with a 600 s lease): 409 run_expired. */
static void test_scout_expired(void **state)
{
    struct hk *k = *state;
    const char *url = "/api/agents/v1/scout";
    hk_expect(agent("POST", url, scout, NULL, true,
                    "{\"op\":\"begin\",\"key\":\"k\",\"runId\":\"" RUN "\"}"),
              200, "application/json", NULL);
    int64_t hour_ago = time_now_us() - 3600000000LL;
    assert_int_equal(
        hk_exec(k,
                "UPDATE scout_runs SET started_at = %lld, expires_at = %lld WHERE id = '" RUN "'",
                (long long)hour_ago, (long long)(hour_ago + 600000000LL)),
        0);
    hk_expect_error(agent("POST", url, scout, NULL, true,
                          "{\"op\":\"reserve\",\"runId\":\"" RUN "\",\"kind\":\"x\",\"units\":1}"),
                    409, "run_expired");
}

static void test_store_unavailable(void **state)
{
    (void)state;
    hk_store_down();
    const char *targets[] = {"/api/v1/teams", "/api/v1/incidents/" HK_P "/comments"};
    hk_expect_unavailable(targets, 2);
    hk_expect_error(agent("POST", "/api/v1/agent-leads", key, "idem-key-x1", true, LEAD("x")), 503,
                    "unavailable");
    hk_expect_error(agent("GET", "/api/v1/agent-leads/" HK_NONE, key, NULL, false, NULL), 503,
                    "unavailable");
    hk_expect_error(agent("POST", "/api/agents/v1/scout", scout, NULL, true, "{\"op\":\"status\"}"),
                    503, "unavailable");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_teams, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_incident_comments, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_leads, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_scout, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_scout_expired, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_store_unavailable, setup, hk_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
