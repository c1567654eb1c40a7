/* The outcome mapping of the account and developer-portal handlers (src/web/accounts.c,
 * developers.c) without a socket (handlerkit.h): each outcome of sign-up and sign-in becomes
 * its page, status, cookie or redirect; every form refuses a query string, a foreign origin
 * and a missing CSRF token before any use case runs; signed-out visitors are sent to sign in. */
#include "handlerkit.h"

#include "domain/account.h"
#include "domain/voter.h"

#define ORIGIN "http://127.0.0.1:8080"

static char voter_cookie[VOTER_COOKIE_LEN + 1], csrf[VOTER_TOKEN_LEN + 1];

static int setup(void **state)
{
    static const unsigned char secret[32] = {7};
    struct hk *k = hk_open(NULL);
    *state = k;
    if (!k)
        return -1;
    voter_set_secret(secret);
    /* the smallest argon2id cost keeps the suite fast; the rules are the same */
    k->limits.password_ops = crypto_pwhash_OPSLIMIT_MIN;
    k->limits.password_memory_kib = crypto_pwhash_MEMLIMIT_MIN / 1024;
    char id[VOTER_ID_LEN + 1];
    voter_new_cookie(voter_cookie);
    voter_check_cookie(voter_cookie, id);
    voter_csrf_token(id, csrf);
    return 0;
}

static int teardown(void **state)
{
    hk_close(*state);
    return 0;
}

/* An anonymous form post with the voter cookie; origin NULL sends none. */
static struct request *post(const char *path, const char *body, const char *origin)
{
    static char cookie[VOTER_COOKIE_LEN + 1];
    snprintf(cookie, sizeof cookie, "%s", voter_cookie);
    const char *headers[][2] = {
        {"Content-Type", "application/x-www-form-urlencoded"}, {"Origin", origin}, {NULL, NULL}};
    if (!origin)
        headers[1][0] = NULL;
    const char *cookies[][2] = {{VOTER_COOKIE_NAME, cookie}, {NULL, NULL}};
    struct http_fake f = {.headers = headers, .cookies = cookies};
    return hk_do("POST", path, &f, body);
}

static void test_forms_and_refusals(void **state)
{
    (void)state;
    const char *forms[] = {"/account/signup", "/account/signin", "/account/forgot"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        struct request *r = hk_get(forms[i]);
        assert_non_null(http_reply_header(r, "Content-Security-Policy"));
        hk_expect(r, 200, "text/html", "name=\"csrf\"");
        char target[64];
        snprintf(target, sizeof target, "%s?x=1", forms[i]);
        hk_expect(hk_get(target), 400, "text/html", NULL);
    }
    char body[300];
    snprintf(body, sizeof body, "email=fan%%40example.com&password=long+enough+pass+9&csrf=%s",
             csrf);
    hk_expect(post("/account/signup", body, "https://evil.example"), 403, "text/html", NULL);
    hk_expect(post("/account/signup", body, NULL), 403, "text/html", NULL);
    hk_expect(post("/account/signup", "email=fan%40example.com&password=x&csrf=wrong", ORIGIN), 403,
              "text/html", NULL);
    hk_expect(post("/account/signup?x=1", body, ORIGIN), 400, "text/html", NULL);
    snprintf(body, sizeof body, "email=fan%%40example.com&email=b%%40example.com&csrf=%s", csrf);
    hk_expect(post("/account/signup", body, ORIGIN), 400, "text/html", "repeated");
}

static void test_signup_and_signin_outcomes(void **state)
{
    (void)state;
    char body[300];
    snprintf(body, sizeof body, "email=not-an-address&password=long+enough+pass+9&csrf=%s", csrf);
    hk_expect(post("/account/signup", body, ORIGIN), 400, "text/html", "valid email");
    snprintf(body, sizeof body, "email=fan%%40example.com&password=short&csrf=%s", csrf);
    hk_expect(post("/account/signup", body, ORIGIN), 400, "text/html", NULL);
    snprintf(body, sizeof body,
             "email=fan%%40example.com&password=a+long+enough+passphrase+42&csrf=%s", csrf);
    hk_expect(post("/account/signup", body, ORIGIN), 200, "text/html", "check-inbox");
    /* the same address again reads the same (enumeration-safe) */
    hk_expect(post("/account/signup", body, ORIGIN), 200, "text/html", "check-inbox");

    snprintf(body, sizeof body, "email=fan%%40example.com&password=wrong+one+entirely&csrf=%s",
             csrf);
    hk_expect(post("/account/signin", body, ORIGIN), 403, "text/html", "is wrong");
    snprintf(body, sizeof body, "email=&password=&csrf=%s", csrf);
    hk_expect(post("/account/signin", body, ORIGIN), 400, "text/html", NULL);
    /* an unverified account signs in (it may not create keys yet) */
    snprintf(body, sizeof body,
             "email=fan%%40example.com&password=a+long+enough+passphrase+42&next=%%2Faccount&"
             "csrf=%s",
             csrf);
    struct request *r = post("/account/signin", body, ORIGIN);
    assert_non_null(strstr(http_reply_header(r, "Set-Cookie"), ACCOUNT_COOKIE_NAME));
    assert_string_equal(http_reply_header(r, "Location"), ORIGIN "/account");
    hk_expect(r, 303, NULL, NULL);
}

static void test_signed_out_visitors(void **state)
{
    (void)state;
    struct request *r = hk_get("/account");
    assert_string_equal(http_reply_header(r, "Location"), ORIGIN "/account/signin?next=/account");
    hk_expect(r, 303, NULL, NULL);
    hk_expect(hk_get("/account?notice=bogus"), 400, "text/html", NULL);
    r = hk_get("/developers");
    hk_expect(r, 200, "text/html", NULL);
    char body[200];
    snprintf(body, sizeof body, "name=bot&csrf=%s", csrf);
    /* a key needs a signed-in session: the anonymous form token is not one */
    hk_expect(post("/developers/keys", body, ORIGIN), 403, "text/html", NULL);
    hk_expect(hk_get("/account/verify"), 400, "text/html", "no token");
    hk_expect(hk_get("/account/reset?token=unknown-token"), 400, "text/html", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_forms_and_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signup_and_signin_outcomes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signed_out_visitors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
