/* The outcome mapping of the comment, profile and moderation handlers (src/web/comments.c,
 * profile.c, moderate.c) without a socket (handlerkit.h): signed out, a bearer credential,
 * a foreign origin and a wrong CSRF token are refused before any use case; each use-case
 * outcome becomes its status (400 invalid, 403 not allowed, 404 missing, 409 closed or taken,
 * 429 with Retry-After) or its redirect. */
#include "handlerkit.h"

#include "domain/voter.h"

#define MOD    "a0000000-0000-4000-8000-00000000000a"
#define AUTHOR "a0000000-0000-4000-8000-00000000000b"
#define OTHER  "a0000000-0000-4000-8000-00000000000c"
#define NONAME "a0000000-0000-4000-8000-00000000000d"
#define C_NEW  "c0000000-0000-4000-8000-000000000001" /* AUTHOR's, a minute old */
#define C_OLD  "c0000000-0000-4000-8000-000000000002" /* AUTHOR's, an hour old */
#define C_GONE "c0000000-0000-4000-8000-000000000003" /* AUTHOR's, deleted */
#define C_NONE "c0000000-0000-4000-8000-000000000009"

#define DAY_US (86400LL * 1000000)

static struct hk_user mod, author, other, noname;

static int setup(void **state)
{
    static const unsigned char secret[32] = {5};
    static const struct hk_fixture fixture = {
        .secret = secret,
        .account_age_us = 30 * DAY_US,
        .accounts = {{MOD, "mod@example.com", "moderator", &mod},
                     {AUTHOR, "author@example.com", NULL, &author},
                     {OTHER, "other@example.com", NULL, &other},
                     {NONAME, "noname@example.com", NULL, &noname}},
    };
    struct hk *k = hk_setup(state, &fixture);
    if (!k)
        return -1;
    k->limits.comment_per_account = 3;
    k->limits.comment_per_ip = 100;
    int64_t now = time_now_us();
    return hk_exec(k,
                   "UPDATE accounts SET display_name = 'Alice Author', display_key = 'aliceauthor'"
                   " WHERE id = '" AUTHOR "';"
                   "UPDATE accounts SET display_name = 'Otto Other', display_key = 'ottoother'"
                   " WHERE id = '" OTHER "';"
                   "UPDATE accounts SET display_name = 'Mo Mod', display_key = 'momod'"
                   " WHERE id = '" MOD "';"
                   "INSERT INTO comments (id, incident_id, account_id, body, status, visible,"
                   " created_at) VALUES"
                   " ('" C_NEW "', '" HK_P "', '" AUTHOR
                   "', 'Fresh thoughts', 'published', 1, %lld),"
                   " ('" C_OLD "', '" HK_P "', '" AUTHOR "', 'Old thoughts', 'published', 1, %lld),"
                   " ('" C_GONE "', '" HK_P "', '" AUTHOR "', 'Gone', 'deleted', 0, %lld)",
                   (long long)(now - 60000000LL), (long long)(now - 3600000000LL),
                   (long long)(now - 3600000000LL));
}

/* Every comment, profile and moderation form: refused before any use case runs. */
static void test_form_refusals(void **state)
{
    (void)state;
    const char *forms[] = {"/incidents/late-flag/comments",
                           "/comments/" C_NEW "/edit",
                           "/comments/" C_NEW "/delete",
                           "/comments/" C_NEW "/report",
                           "/account/profile",
                           "/moderate/comments/" C_NEW "/approve",
                           "/moderate/accounts/" OTHER "/suspend"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        hk_expect(hk_post(NULL, forms[i], "body=hello+there"), 403, "text/html", NULL);
        hk_expect(hk_as(&author, "POST", forms[i], "csrf=wrong&body=hi+there", NULL), 403,
                  "text/html", NULL);
        char body[200];
        snprintf(body, sizeof body, "csrf=%s", author.csrf);
        hk_expect(hk_as(&author, "POST", forms[i], body, "https://evil.example"), 403, "text/html",
                  NULL);
        char q[200];
        snprintf(q, sizeof q, "%s?x=1", forms[i]);
        hk_expect(hk_as(&author, "POST", q, body, NULL), 400, "text/html", NULL);
        snprintf(body, sizeof body, "csrf=%s&nonsense=1", author.csrf);
        hk_expect(hk_as(&author, "POST", forms[i], body, NULL), 400, "text/html", NULL);
        {
            const char *auth[][2] = {{"Content-Type", "application/x-www-form-urlencoded"},
                                     {"Origin", HK_ORIGIN},
                                     {"Authorization", "Bearer wk_abc"},
                                     {NULL, NULL}};
            const char *cookies[][2] = {{ACCOUNT_COOKIE_NAME, author.cookie}, {NULL, NULL}};
            struct http_fake f = {.headers = auth, .cookies = cookies};
            snprintf(body, sizeof body, "csrf=%s", author.csrf);
            hk_expect(hk_do("POST", forms[i], &f, body), 403, "text/html", "session only");
        }
    }
}

static void test_post(void **state)
{
    (void)state;
    struct request *r = hk_post(&author, "/incidents/late-flag/comments", "body=A+fair+call.");
    const char *loc = http_reply_header(r, "Location");
    assert_non_null(loc);
    assert_non_null(strstr(loc, HK_ORIGIN "/incidents/late-flag#c-"));
    hk_expect(r, 303, NULL, NULL);
    hk_expect(hk_post(&author, "/incidents/late-flag/comments", "body=x"), 400, "text/html",
              "not posted");
    hk_expect(hk_post(&author, "/incidents/late-flag/comments", "body=Hello+there&parent_id=nope"),
              400, "text/html", "parent_id");
    hk_expect(hk_post(&noname, "/incidents/late-flag/comments", "body=Hello+there"), 403,
              "text/html", "display name");
    hk_expect(hk_post(&author, "/incidents/gone/comments", "body=Hello+there"), 404, "text/html",
              "no debate here");
    r = hk_post(&author, "/incidents/late-flag-again/comments", "body=Hello+there");
    assert_non_null(strstr(r->out.p, "/incidents/late-flag#discussion"));
    hk_expect(r, 409, "text/html", "merged");
    /* a reply to a comment */
    hk_expect(hk_post(&other, "/incidents/late-flag/comments", "body=I+disagree.&parent_id=" C_NEW),
              303, NULL, NULL);
}

static void test_post_rate_limited(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        char body[64];
        snprintf(body, sizeof body, "body=Comment+number+%d", i);
        hk_expect(hk_post(&other, "/incidents/late-flag/comments", body), 303, NULL, NULL);
    }
    hk_expect_retry(hk_post(&other, "/incidents/late-flag/comments", "body=One+too+many"), 429,
                    "text/html", NULL);
}

static void test_edit(void **state)
{
    (void)state;
    struct request *r = hk_as(&author, "GET", "/comments/" C_NEW "/edit", NULL, NULL);
    hk_expect(r, 200, "text/html", "Fresh thoughts");
    hk_expect_redirect(hk_as(NULL, "GET", "/comments/" C_NEW "/edit", NULL, NULL), 303,
                       "/account/signin");
    hk_expect(hk_as(&other, "GET", "/comments/" C_NEW "/edit", NULL, NULL), 403, "text/html",
              "only its author");
    hk_expect(hk_as(&author, "GET", "/comments/" C_NONE "/edit", NULL, NULL), 404, "text/html",
              NULL);
    hk_expect(hk_as(&author, "GET", "/comments/" C_GONE "/edit", NULL, NULL), 409, "text/html",
              NULL);
    hk_expect(hk_as(&author, "GET", "/comments/" C_NEW "/edit?x=1", NULL, NULL), 400, "text/html",
              NULL);

    hk_expect_redirect(hk_post(&author, "/comments/" C_NEW "/edit", "body=Fresher+thoughts"), 303,
                       "/incidents/late-flag#c-" C_NEW);
    hk_expect(hk_post(&author, "/comments/" C_NEW "/edit", "body=x"), 400, "text/html",
              "not saved");
    hk_expect(hk_post(&other, "/comments/" C_NEW "/edit", "body=Not+mine+to+edit"), 403,
              "text/html", "only its author");
    hk_expect(hk_post(&author, "/comments/" C_OLD "/edit", "body=Too+late+now"), 409, "text/html",
              "10 minutes");
    hk_expect(hk_post(&author, "/comments/" C_NONE "/edit", "body=Nothing+here"), 404, "text/html",
              NULL);
}

static void test_delete_and_report(void **state)
{
    (void)state;
    hk_expect(hk_post(&other, "/comments/" C_NEW "/delete", ""), 403, "text/html",
              "only its author");
    hk_expect(hk_post(&author, "/comments/" C_NONE "/delete", ""), 404, "text/html", NULL);
    hk_expect(hk_post(&author, "/comments/" C_GONE "/delete", ""), 409, "text/html", NULL);

    hk_expect(hk_post(&other, "/comments/" C_OLD "/report", "reason=spam"), 200, "text/html",
              "Your report was recorded");
    hk_expect(hk_post(&other, "/comments/" C_OLD "/report", "reason=Nonsense"), 400, "text/html",
              NULL);
    hk_expect(hk_post(&other, "/comments/" C_NONE "/report", "reason=spam"), 404, "text/html",
              NULL);
    hk_expect(hk_post(&other, "/comments/" C_GONE "/report", "reason=spam"), 404, "text/html",
              "not shown");
    hk_expect(hk_post(&author, "/comments/" C_OLD "/report", "reason=spam"), 400, "text/html",
              "your own comment");

    hk_expect_redirect(hk_post(&author, "/comments/" C_NEW "/delete", ""), 303,
                       "/incidents/late-flag#c-" C_NEW);
    hk_expect(hk_post(&author, "/comments/" C_NEW "/delete", ""), 409, "text/html", NULL);
}

static void test_profile(void **state)
{
    (void)state;
    hk_expect_redirect(hk_get("/account/profile"), 303, "/account/signin?next=/account/profile");
    hk_expect(hk_as(&author, "GET", "/account/profile", NULL, NULL), 200, "text/html",
              "Alice Author");
    hk_expect(hk_as(&noname, "GET", "/account/profile", NULL, NULL), 200, "text/html",
              "name=\"display_name\"");
    hk_expect(hk_as(&noname, "GET", "/account/profile?x=1", NULL, NULL), 400, "text/html", NULL);

    hk_expect(hk_post(&noname, "/account/profile", "display_name=x"), 400, "text/html",
              "form-error");
    hk_expect(hk_post(&noname, "/account/profile", "display_name=Alice+Author"), 409, "text/html",
              "taken");
    hk_expect(hk_post(&author, "/account/profile", "display_name=Another+Name"), 409, "text/html",
              "set once");
    hk_expect_redirect(hk_post(&noname, "/account/profile", "display_name=Nora+Newname"), 303,
                       "/account/profile");
    hk_expect(hk_as(&noname, "GET", "/account/profile", NULL, NULL), 200, "text/html",
              "Nora Newname");
}

static void test_moderate(void **state)
{
    (void)state;
    hk_expect_redirect(hk_get("/moderate"), 303, "/account/signin?next=/moderate");
    hk_expect(hk_as(&author, "GET", "/moderate", NULL, NULL), 403, "text/html", "moderators only");
    const char *auth[][2] = {{"Authorization", "Bearer wk_abc"}, {NULL, NULL}};
    const char *cookies[][2] = {{ACCOUNT_COOKIE_NAME, mod.cookie}, {NULL, NULL}};
    struct http_fake f = {.headers = auth, .cookies = cookies};
    hk_expect(hk_do("GET", "/moderate", &f, NULL), 403, "text/html", "session only");
    hk_expect(hk_do("GET", "/comments/" C_NEW "/edit", &f, NULL), 403, "text/html", "session only");
    hk_expect(hk_as(&mod, "GET", "/moderate?queue=bogus", NULL, NULL), 400, "text/html", NULL);
    hk_expect(hk_as(&mod, "GET", "/moderate?queue=recent", NULL, NULL), 200, "text/html",
              "Fresh thoughts");
    hk_expect(hk_as(&mod, "GET", "/moderate?queue=pending&done=approve", NULL, NULL), 200,
              "text/html", "Moderation");

    hk_expect(hk_post(&author, "/moderate/comments/" C_NEW "/reject", "reason=x"), 403, "text/html",
              NULL);
    hk_expect_redirect(hk_post(&mod, "/moderate/comments/" C_NEW "/feature", "queue=recent"), 303,
                       "/moderate?queue=recent&done=feature");
    hk_expect_redirect(hk_post(&mod, "/moderate/comments/" C_NEW "/unfeature", "queue=nonsense"),
                       303, "/moderate?queue=pending&done=unfeature");
    hk_expect_redirect(hk_post(&mod, "/moderate/comments/" C_NEW "/reject", "reason=rude"), 303,
                       "/moderate?queue=pending&done=reject");
    hk_expect(hk_post(&mod, "/moderate/comments/" C_NEW "/feature", ""), 409, "text/html",
              "only a published comment");
    hk_expect_redirect(hk_post(&mod, "/moderate/comments/" C_NEW "/approve", ""), 303,
                       "/moderate?queue=pending&done=approve");
    hk_expect(hk_post(&mod, "/moderate/comments/" C_NONE "/approve", ""), 404, "text/html", NULL);
    hk_expect(hk_post(&mod, "/moderate/comments/" C_GONE "/approve", ""), 409, "text/html", NULL);

    hk_expect_redirect(hk_post(&mod, "/moderate/accounts/" OTHER "/suspend", "reason=spam"), 303,
                       "/moderate?queue=pending&done=suspend");
    hk_expect(hk_post(&other, "/incidents/late-flag/comments", "body=Still+here%3F"), 403,
              "text/html", "suspended");
    hk_expect_redirect(hk_post(&mod, "/moderate/accounts/" OTHER "/unsuspend", ""), 303,
                       "/moderate?queue=pending&done=unsuspend");
    hk_expect(hk_post(&mod, "/moderate/accounts/" HK_NONE "/suspend", "reason=x"), 404, "text/html",
              NULL);
}

static void test_store_unavailable(void **state)
{
    (void)state;
    hk_store_down();
    hk_expect_retry(hk_post(&author, "/incidents/late-flag/comments", "body=Hello+there"), 503,
                    "text/html", NULL);
    hk_expect(hk_as(&author, "GET", "/comments/" C_NEW "/edit", NULL, NULL), 503, "text/html",
              NULL);
    hk_expect(hk_as(&author, "GET", "/account/profile", NULL, NULL), 503, "text/html", NULL);
    hk_expect(hk_as(&mod, "GET", "/moderate", NULL, NULL), 503, "text/html", NULL);
    hk_expect(hk_post(&mod, "/moderate/comments/" C_NEW "/approve", ""), 503, "text/html", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_form_refusals, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_post, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_post_rate_limited, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_edit, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_delete_and_report, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_profile, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_moderate, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_store_unavailable, setup, hk_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
