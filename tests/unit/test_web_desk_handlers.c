/* The outcome mapping of every /desk handler (src/web/desk.c) without a socket
 * (handlerkit.h): the one role gate (signed out, a fan, an editor on an admin page, a bearer
 * credential, a foreign origin, a wrong CSRF token, a re-asked password), then each page's
 * success and refusals (400 bad input, 404 missing record, 409 conflicting state). */
#include "handlerkit.h"

#include "domain/voter.h"

#define ADMIN  "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
#define EDITOR "eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee"
#define FAN    "ffffffff-ffff-4fff-8fff-ffffffffffff"
#define KEY    "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
#define CAND   "cccccccc-cccc-4ccc-8ccc-cccccccccccc" /* a candidate lead */
#define PEND   "dddddddd-dddd-4ddd-8ddd-dddddddddddd" /* a pending lead: not a candidate */
#define SCOUT  "99999999-9999-4999-8999-999999999999"

static struct hk_user admin, editor, fan;

static int setup(void **state)
{
    static const unsigned char secret[32] = {9};
    static const struct hk_fixture fixture = {
        .secret = secret,
        .fast_passwords = true,
        .accounts = {{ADMIN, "admin@example.com", "admin", &admin},
                     {EDITOR, "editor@example.com", "editor", &editor},
                     {FAN, "fan@example.com", NULL, &fan}},
    };
    struct hk *k = hk_setup(state, &fixture);
    if (!k)
        return -1;
    int64_t now = time_now_us();
    if (hk_agent_key(k, KEY, FAN, NULL, "wk_test", "h", now, now + 86400000000LL) < 0)
        return -1;
    return hk_exec(k,
                   "INSERT INTO leads (id, account_id, key_id, game_id, description, source_urls,"
                   " status, created_at, updated_at, candidate_at) VALUES"
                   " ('" CAND "', '" FAN "', '" KEY "', 'nfl-g1', 'a missed hold',"
                   " '[\"https://example.com/a\"]', 'running', %lld, %lld, %lld),"
                   " ('" PEND "', '" FAN "', '" KEY "', 'nfl-g1', 'a late hit',"
                   " '[\"https://example.com/b\"]', 'pending', %lld, %lld, NULL);"
                   "INSERT INTO scout_credentials (id, name, prefix, secret_hash, x_per_day,"
                   " model_per_day, x_per_run, model_per_run, run_seconds, created_at) VALUES"
                   " ('" SCOUT "', 'night scout', 'ws_test', 'sh', 100, 1000, 10, 100, 60, %lld)",
                   (long long)now, (long long)now, (long long)now, (long long)now, (long long)now,
                   (long long)now);
}

/* Every desk route, with its gate: admin only, a POST, the password re-asked. */
static const struct {
    const char *method, *target;
    bool admin, reauth;
} routes[] = {
    {"GET", "/desk", false, false},
    {"GET", "/desk/leads/" CAND, false, false},
    {"POST", "/desk/leads/" CAND "/publish", false, false},
    {"POST", "/desk/leads/" CAND "/reject", false, false},
    {"GET", "/desk/incidents", false, false},
    {"GET", "/desk/incidents/" HK_P, false, false},
    {"POST", "/desk/incidents/" HK_P "/edit", false, false},
    {"POST", "/desk/incidents/" HK_P "/status", false, false},
    {"POST", "/desk/incidents/" HK_P "/sources", false, false},
    {"POST", "/desk/incidents/" HK_P "/sources/remove", false, false},
    {"POST", "/desk/incidents/" HK_P "/question", false, false},
    {"POST", "/desk/incidents/" HK_P "/withdraw", false, false},
    {"POST", "/desk/incidents/" HK_P "/merge", false, false},
    {"GET", "/desk/audit", false, false},
    {"GET", "/desk/quotas", false, false},
    {"GET", "/desk/accounts", true, false},
    {"GET", "/desk/accounts/" FAN, true, false},
    {"POST", "/desk/accounts/" FAN "/ban", true, true},
    {"POST", "/desk/accounts/" FAN "/unban", true, false},
    {"POST", "/desk/accounts/" FAN "/roles", true, true},
    {"POST", "/desk/keys/" KEY "/revoke", true, false},
    {"GET", "/desk/scout-keys", true, false},
    {"POST", "/desk/scout-keys", true, true},
    {"POST", "/desk/scout-keys/" SCOUT "/budget", true, false},
    {"POST", "/desk/scout-keys/" SCOUT "/disable", true, false},
    {"POST", "/desk/scout-keys/" SCOUT "/enable", true, false},
    {"POST", "/desk/scout-keys/" SCOUT "/revoke", true, false},
};
#define NROUTES (sizeof routes / sizeof routes[0])

static struct request *as(const struct hk_user *u, size_t i, const char *origin, bool good_csrf)
{
    bool post = strcmp(routes[i].method, "POST") == 0;
    char body[300] = "";
    if (post)
        snprintf(body, sizeof body, "csrf=%s", good_csrf && u ? u->csrf : "wrong");
    return hk_as(u, routes[i].method, routes[i].target, post ? body : NULL, origin);
}

/* The gate, for every route: nothing runs before it says yes. */
static void test_gate(void **state)
{
    (void)state;
    for (size_t i = 0; i < NROUTES; i++) {
        bool post = strcmp(routes[i].method, "POST") == 0;
        /* signed out: a page sends to sign in, a form is refused */
        if (post)
            hk_expect(as(NULL, i, NULL, false), 403, "text/html", "sign in first");
        else
            hk_expect_redirect(as(NULL, i, NULL, false), 303, "/account/signin?next=/desk");
        /* a fan has no desk role; an editor is not an admin */
        hk_expect(as(&fan, i, NULL, true), 403, "text/html",
                  routes[i].admin ? "admins only" : "editors only");
        if (routes[i].admin)
            hk_expect(as(&editor, i, NULL, true), 403, "text/html", "admins only");
        /* a bearer credential is never a desk session */
        const char *auth[][2] = {{"Authorization", "Bearer wk_abc"}, {NULL, NULL}};
        const char *cookies[][2] = {{ACCOUNT_COOKIE_NAME, admin.cookie}, {NULL, NULL}};
        struct http_fake f = {.headers = auth, .cookies = cookies};
        hk_expect(hk_do(routes[i].method, routes[i].target, &f, post ? "csrf=x" : NULL), 403,
                  "text/html", "signed-in browser session only");
        if (!post)
            continue;
        /* a staff form from elsewhere, or without the session's token */
        hk_expect(as(&admin, i, "https://evil.example", true), 403, "text/html", NULL);
        hk_expect(as(&admin, i, "", true), 403, "text/html", NULL);
        hk_expect(as(&admin, i, NULL, false), 403, "text/html", NULL);
        char q[200];
        snprintf(q, sizeof q, "%s?x=1", routes[i].target);
        hk_expect(hk_as(&admin, "POST", q, "csrf=x", NULL), 400, "text/html", NULL);
        /* the admin actions that re-ask the password refuse a wrong one */
        if (routes[i].reauth)
            hk_expect(hk_post(&admin, routes[i].target, "password=not+mine"), 403, "text/html",
                      "password again");
    }
}

static void test_pages(void **state)
{
    (void)state;
    hk_expect(hk_as(&editor, "GET", "/desk", NULL, NULL), 200, "text/html", CAND);
    hk_expect(hk_as(&editor, "GET", "/desk?status=pending", NULL, NULL), 200, "text/html", PEND);
    hk_expect(hk_as(&editor, "GET", "/desk?status=bogus", NULL, NULL), 400, "text/html", NULL);
    hk_expect(hk_as(&editor, "GET", "/desk/leads/" CAND, NULL, NULL), 200, "text/html",
              "a missed hold");
    hk_expect(hk_as(&editor, "GET", "/desk/leads/" HK_NONE, NULL, NULL), 404, "text/html",
              "no lead");
    hk_expect(hk_as(&editor, "GET", "/desk/leads/nope", NULL, NULL), 404, "text/html", "by UUID");
    hk_expect(hk_as(&editor, "GET", "/desk/leads/" CAND "?x=1", NULL, NULL), 400, "text/html",
              NULL);
    hk_expect(hk_as(&editor, "GET", "/desk/incidents", NULL, NULL), 200, "text/html", "Late flag");
    hk_expect(hk_as(&editor, "GET", "/desk/incidents?q=late&category=penalty", NULL, NULL), 200,
              "text/html", "Late flag");
    hk_expect(hk_as(&editor, "GET", "/desk/incidents?page=0", NULL, NULL), 400, "text/html", NULL);
    hk_expect(hk_as(&editor, "GET", "/desk/incidents/" HK_P "?done=edited", NULL, NULL), 200,
              "text/html", "Done: edited");
    hk_expect(hk_as(&editor, "GET", "/desk/incidents/" HK_NONE, NULL, NULL), 404, "text/html",
              "no incident");
    hk_expect(hk_as(&editor, "GET", "/desk/incidents/" HK_P "?done=bogus", NULL, NULL), 400,
              "text/html", NULL);
    hk_expect(hk_as(&editor, "GET", "/desk/audit", NULL, NULL), 200, "text/html", "Audit log");
    hk_expect(hk_as(&editor, "GET", "/desk/audit?kind=bogus", NULL, NULL), 400, "text/html", NULL);
    hk_expect(hk_as(&editor, "GET", "/desk/quotas", NULL, NULL), 200, "text/html", "id=\"global\"");
    hk_expect(hk_as(&editor, "GET", "/desk/quotas?x=1", NULL, NULL), 400, "text/html", NULL);
    hk_expect(hk_as(&admin, "GET", "/desk/accounts", NULL, NULL), 200, "text/html",
              "fan@example.com");
    hk_expect(hk_as(&admin, "GET", "/desk/accounts?q=editor", NULL, NULL), 200, "text/html",
              "editor@example.com");
    hk_expect(hk_as(&admin, "GET", "/desk/accounts?x=1", NULL, NULL), 400, "text/html", NULL);
    hk_expect(hk_as(&admin, "GET", "/desk/accounts/" FAN, NULL, NULL), 200, "text/html", "wk_test");
    hk_expect(hk_as(&admin, "GET", "/desk/accounts/" HK_NONE, NULL, NULL), 404, "text/html",
              "no account");
    hk_expect(hk_as(&admin, "GET", "/desk/accounts/" FAN "?done=banned", NULL, NULL), 200,
              "text/html", "Done: banned");
    hk_expect(hk_as(&admin, "GET", "/desk/accounts/" FAN "?x=1", NULL, NULL), 400, "text/html",
              NULL);
    hk_expect(hk_as(&admin, "GET", "/desk/scout-keys", NULL, NULL), 200, "text/html",
              "night scout");
    hk_expect(hk_as(&admin, "GET", "/desk/scout-keys?done=nope", NULL, NULL), 400, "text/html",
              NULL);
}

static void test_leads(void **state)
{
    (void)state;
    hk_expect(hk_post(&editor, "/desk/leads/" CAND "/publish", "title=A+title"), 400, "text/html",
              "neutral summary");
    hk_expect(hk_post(&editor, "/desk/leads/" CAND "/publish",
                      "title=A+title&summary=S&question_type=call_correctness"),
              400, "text/html", "all five fields");
    hk_expect(hk_post(&editor, "/desk/leads/" HK_NONE "/publish", "title=T&summary=S"), 404,
              "text/html", NULL);
    hk_expect(hk_post(&editor, "/desk/leads/" PEND "/publish", "title=T&summary=S"), 409,
              "text/html", NULL);
    hk_expect(hk_post(&editor, "/desk/leads/nope/publish", "title=T&summary=S"), 404, "text/html",
              "by UUID");
    hk_expect(hk_post(&editor, "/desk/leads/" CAND "/reject", ""), 400, "text/html", "reason");
    hk_expect(hk_post(&editor, "/desk/leads/" PEND "/reject", "reason=dup"), 409, "text/html",
              NULL);
    hk_expect(hk_post(&editor, "/desk/leads/" HK_NONE "/reject", "reason=dup"), 404, "text/html",
              NULL);
    hk_expect_redirect(hk_post(&editor, "/desk/leads/" CAND "/reject", "reason=not+a+call"), 303,
                       "/desk?done=rejected");
    /* rejected: no longer a candidate */
    hk_expect(hk_post(&editor, "/desk/leads/" CAND "/reject", "reason=again"), 409, "text/html",
              NULL);
}

static void test_lead_publish(void **state)
{
    (void)state;
    struct request *r =
        hk_post(&editor, "/desk/leads/" CAND "/publish", "title=A+missed+hold&summary=Neutral");
    const char *loc = http_reply_header(r, "Location");
    if (!loc)
        fprintf(stderr, "%d %.*s\n", r->status, (int)r->out.len, r->out.p);
    assert_non_null(loc);
    assert_non_null(strstr(loc, HK_ORIGIN "/desk/incidents/"));
    assert_non_null(strstr(loc, "?done=published"));
    hk_expect(r, 303, NULL, NULL);
    hk_expect(hk_post(&editor, "/desk/leads/" CAND "/publish", "title=T&summary=S"), 409,
              "text/html", NULL);
}

#define INC(what) "/desk/incidents/" HK_P "/" what

static void test_incident_writes(void **state)
{
    (void)state;
    hk_expect_redirect(hk_post(&editor, INC("edit"),
                               "title=Late+flag+2&play_description=A+late+flag.&"
                               "neutral_summary=Neutral&reason=typo"),
                       303, "/desk/incidents/" HK_P "?done=edited");
    hk_expect(hk_post(&editor, INC("edit"), "title=T&play_description=P&period=eleven"), 400,
              "text/html", "period must be");
    hk_expect(hk_post(&editor, INC("edit"), "title=&play_description=P"), 400, "text/html", NULL);
    hk_expect(hk_post(&editor, "/desk/incidents/" HK_NONE "/edit",
                      "title=T&play_description=P&neutral_summary=N"),
              404, "text/html", NULL);
    hk_expect(hk_post(&editor, "/desk/incidents/nope/edit", "title=T"), 404, "text/html",
              "by UUID");

    hk_expect_redirect(hk_post(&editor, INC("status"), "status=corroborated"), 303,
                       "/desk/incidents/" HK_P "?done=status");
    hk_expect(hk_post(&editor, INC("status"), "status=bogus"), 400, "text/html", NULL);
    hk_expect(hk_post(&editor, "/desk/incidents/" HK_NONE "/status", "status=resolved"), 404,
              "text/html", NULL);
    hk_expect(hk_post(&editor, "/desk/incidents/" HK_NONE "/sources",
                      "url=https%3A%2F%2Fexample.com%2Fc&title=T&kind=report&supports=x"),
              404, "text/html", NULL);
    hk_expect(hk_post(&editor, "/desk/incidents/" HK_NONE "/sources/remove",
                      "url=https%3A%2F%2Fexample.com%2Fa"),
              404, "text/html", NULL);
    hk_expect(hk_post(&editor, "/desk/incidents/" HK_NONE "/question",
                      "question_type=t&question_text=q&option_a_label=a&option_b_label=b&"
                      "unsure_label=u&confirm=yes"),
              404, "text/html", NULL);

    hk_expect_redirect(hk_post(&editor, INC("sources"),
                               "url=https%3A%2F%2Fexample.com%2Fb&title=More&kind=report&"
                               "supports=the+call"),
                       303, "/desk/incidents/" HK_P "?done=source");
    hk_expect(hk_post(&editor, INC("sources"), "url=not-a-url&title=T&kind=report&supports=x"), 400,
              "text/html", NULL);
    hk_expect_redirect(
        hk_post(&editor, INC("sources/remove"), "url=https%3A%2F%2Fexample.com%2Fb&reason=weak"),
        303, "/desk/incidents/" HK_P "?done=source-removed");
    hk_expect(hk_post(&editor, INC("sources/remove"), "url=https%3A%2F%2Fnowhere.example%2F"), 404,
              "text/html", NULL);

    const char *q = "question_type=call_correctness&question_text=Right%3F&option_a_label=Yes&"
                    "option_b_label=No&unsure_label=Unsure";
    hk_expect(hk_post(&editor, INC("question"), ""), 400, "text/html", "three labels");
    hk_expect(hk_post(&editor, INC("question"), "question_type=x"), 400, "text/html",
              "all five fields");
    hk_expect_redirect(hk_post(&editor, INC("question"), q), 303,
                       "/desk/incidents/" HK_P "?done=question");
    char clarify[400];
    snprintf(clarify, sizeof clarify, "%s&clarify=yes", q);
    hk_expect_redirect(hk_post(&editor, INC("question"), clarify), 303,
                       "/desk/incidents/" HK_P "?done=clarified");

    hk_expect(hk_post(&editor, INC("merge"), "into=nope"), 400, "text/html", "survivor");
    hk_expect(hk_post(&editor, INC("merge"), "into=" HK_P), 400, "text/html", NULL);
    hk_expect(hk_post(&editor, INC("merge"), "into=" HK_W), 409, "text/html", NULL);
    hk_expect(hk_post(&editor, INC("withdraw"), ""), 400, "text/html", "a reason");
    hk_expect(hk_post(&editor, "/desk/incidents/" HK_NONE "/withdraw", "reason=x"), 404,
              "text/html", NULL);
    hk_expect_redirect(hk_post(&editor, INC("withdraw"), "reason=wrong+game"), 303,
                       "/desk/incidents/" HK_P "?done=withdrawn");
    hk_expect(hk_post(&editor, INC("withdraw"), "reason=again"), 409, "text/html", NULL);
    /* the audit log read the writes */
    hk_expect(hk_as(&editor, "GET", "/desk/audit?kind=incident", NULL, NULL), 200, "text/html",
              "incident.withdraw");
}

/* A new question version with ballots needs the editor's confirmation (409 until then). */
static void test_question_confirm(void **state)
{
    struct hk *k = *state;
    assert_int_equal(store_exec(k->db->s,
                                "INSERT INTO vote_tallies (incident_id, question_version, rooting,"
                                " correct) VALUES ('" HK_P "', 1, 'unspecified', 1)"),
                     STORE_DONE);
    const char *q = "question_type=call_correctness&question_text=Right%3F&option_a_label=Yes&"
                    "option_b_label=No&unsure_label=Unsure";
    hk_expect(hk_post(&editor, INC("question"), q), 409, "text/html", "I confirm");
    char confirm[400];
    snprintf(confirm, sizeof confirm, "%s&confirm=yes", q);
    hk_expect_redirect(hk_post(&editor, INC("question"), confirm), 303,
                       "/desk/incidents/" HK_P "?done=question");
}

static void test_merge(void **state)
{
    struct hk *k = *state;
    assert_int_equal(store_exec(k->db->s,
                                "INSERT INTO incidents (id, game_id, title, play_description,"
                                " category, status, origin_kind, provenance, published_at,"
                                " created_at, updated_at, slug, visibility) VALUES"
                                " ('" HK_NONE "', 'nfl-g1', 'Other flag', 'x', 'penalty',"
                                " 'developing', 'human', '{}', 1, 1, 1, 'other-flag',"
                                " 'published')"),
                     STORE_DONE);
    hk_expect_redirect(
        hk_post(&editor, "/desk/incidents/" HK_NONE "/merge", "into=" HK_P "&reason=same+play"),
        303, "/desk/incidents/" HK_NONE "?done=merged");
    hk_expect(hk_post(&editor, "/desk/incidents/" HK_NONE "/merge", "into=" HK_P), 409, "text/html",
              NULL);
}

#define ACC(what) "/desk/accounts/" FAN "/" what

static void test_accounts(void **state)
{
    (void)state;
    hk_expect(hk_post(&admin, ACC("ban"), "password=a+long+enough+passphrase+42"), 400, "text/html",
              "needs a reason");
    hk_expect(hk_post(&admin, "/desk/accounts/" ADMIN "/ban",
                      "password=a+long+enough+passphrase+42&reason=x"),
              409, "text/html", "their own account");
    hk_expect(hk_post(&admin, "/desk/accounts/" HK_NONE "/ban",
                      "password=a+long+enough+passphrase+42&reason=x"),
              404, "text/html", "no account");
    hk_expect(hk_post(&admin, ACC("unban"), ""), 409, "text/html", "not banned");
    hk_expect_redirect(
        hk_post(&admin, ACC("ban"), "password=a+long+enough+passphrase+42&reason=spam"), 303,
        "/desk/accounts/" FAN "?done=banned");
    hk_expect(hk_post(&admin, ACC("ban"), "password=a+long+enough+passphrase+42&reason=spam"), 409,
              "text/html", "already banned");
    hk_expect_redirect(hk_post(&admin, ACC("unban"), ""), 303,
                       "/desk/accounts/" FAN "?done=unbanned");
    hk_expect(hk_post(&admin, "/desk/accounts/" HK_NONE "/unban", ""), 404, "text/html", NULL);

    hk_expect(hk_post(&admin, ACC("roles"), "password=a+long+enough+passphrase+42&change=maybe"),
              400, "text/html", "grant or revoke");
    hk_expect(hk_post(&admin, ACC("roles"),
                      "password=a+long+enough+passphrase+42&change=grant&role=king"),
              400, "text/html", NULL);
    hk_expect_redirect(hk_post(&admin, ACC("roles"),
                               "password=a+long+enough+passphrase+42&change=grant&role=moderator"),
                       303, "/desk/accounts/" FAN "?done=role");
    hk_expect(hk_post(&admin, "/desk/accounts/nope/roles", "password=a+long+enough+passphrase+42"),
              404, "text/html", "by UUID");

    hk_expect_redirect(hk_post(&admin, "/desk/keys/" KEY "/revoke", ""), 303,
                       "/desk/accounts?done=revoked");
    hk_expect(hk_post(&admin, "/desk/keys/" KEY "/revoke", ""), 409, "text/html",
              "already revoked");
    hk_expect(hk_post(&admin, "/desk/keys/" HK_NONE "/revoke", ""), 404, "text/html", "no key");
}

#define SK(what) "/desk/scout-keys/" SCOUT "/" what

static void test_scout_keys(void **state)
{
    (void)state;
    hk_expect(hk_post(&admin, "/desk/scout-keys",
                      "password=a+long+enough+passphrase+42&name=s2&expires_days=0"),
              400, "text/html", "expires_days");
    hk_expect(hk_post(&admin, "/desk/scout-keys",
                      "password=a+long+enough+passphrase+42&name=s2&x_per_day=abc"),
              400, "text/html", "must be an integer");
    hk_expect(hk_post(&admin, "/desk/scout-keys", "password=a+long+enough+passphrase+42&name="),
              400, "text/html", NULL);
    hk_expect(hk_post(&admin, "/desk/scout-keys", "password=a+long+enough+passphrase+42&name=s2"),
              200, "text/html", "shown this once");

    hk_expect(hk_post(&admin, SK("budget"), "x_per_day=-5"), 400, "text/html",
              "must be an integer");
    hk_expect_redirect(hk_post(&admin, SK("budget"), "x_per_day=50"), 303,
                       "/desk/scout-keys?done=budget");
    hk_expect_redirect(hk_post(&admin, SK("disable"), ""), 303, "/desk/scout-keys?done=disabled");
    hk_expect_redirect(hk_post(&admin, SK("enable"), ""), 303, "/desk/scout-keys?done=enabled");
    hk_expect(hk_post(&admin, "/desk/scout-keys/" HK_NONE "/disable", ""), 404, "text/html", NULL);
    hk_expect(hk_post(&admin, "/desk/scout-keys/nope/enable", ""), 404, "text/html", "by UUID");
    hk_expect_redirect(hk_post(&admin, SK("revoke"), ""), 303, "/desk/scout-keys?done=revoked");
    hk_expect(hk_post(&admin, SK("revoke"), ""), 409, "text/html", NULL);
    hk_expect(hk_post(&admin, SK("budget"), "x_per_day=50"), 409, "text/html", NULL);
}

/* A banned staff account keeps no desk: its role no longer opens the gate. */
static void test_banned_staff(void **state)
{
    struct hk *k = *state;
    assert_int_equal(store_exec(k->db->s, "UPDATE accounts SET banned = 1 WHERE id = '" EDITOR "'"),
                     STORE_DONE);
    hk_expect(hk_as(&editor, "GET", "/desk", NULL, NULL), 403, "text/html", "editors only");
    hk_expect(hk_post(&editor, "/desk/leads/" CAND "/reject", "reason=x"), 403, "text/html",
              "editors only");
}

static void test_store_unavailable(void **state)
{
    (void)state;
    hk_store_down();
    for (size_t i = 0; i < NROUTES; i++) {
        hk_expect_retry(as(&admin, i, NULL, true), 503, "text/html", "temporarily unavailable");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_gate, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_pages, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_leads, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_lead_publish, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_incident_writes, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_question_confirm, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_merge, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_accounts, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_scout_keys, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_banned_staff, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_store_unavailable, setup, hk_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
