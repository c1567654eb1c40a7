/* The outcome mapping of the account and developer-portal handlers (src/web/accounts.c,
 * developers.c) without a socket (handlerkit.h): each outcome of sign-up and sign-in becomes
 * its page, status, cookie or redirect; every form refuses a query string, a foreign origin
 * and a missing CSRF token before any use case runs; signed-out visitors are sent to sign in. */
#include "handlerkit.h"

#include "domain/account.h"
#include "domain/voter.h"

#define ORIGIN "http://127.0.0.1:8080"

static struct hk_voter anon;

static int setup(void **state)
{
    static const unsigned char secret[32] = {7};
    /* the smallest argon2id cost keeps the suite fast; the rules are the same */
    static const struct hk_fixture fixture = {
        .secret = secret, .fast_passwords = true, .anon = &anon};
    return hk_setup(state, &fixture) ? 0 : -1;
}

/* An anonymous form post with the voter cookie; origin NULL sends none. */
static struct request *post(const char *path, const char *body, const char *origin)
{
    return hk_voter_post(&anon, path, HK_FORM, origin, body);
}

/* A same-origin form post of fields with the visitor's CSRF token last ("…&csrf=…"). */
static struct request *form_post(const char *path, const char *fields)
{
    char body[300];
    snprintf(body, sizeof body, "%s&csrf=%s", fields, anon.csrf);
    return post(path, body, ORIGIN);
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
             anon.csrf);
    hk_expect(post("/account/signup", body, "https://evil.example"), 403, "text/html", NULL);
    hk_expect(post("/account/signup", body, NULL), 403, "text/html", NULL);
    hk_expect(post("/account/signup", "email=fan%40example.com&password=x&csrf=wrong", ORIGIN), 403,
              "text/html", NULL);
    hk_expect(post("/account/signup?x=1", body, ORIGIN), 400, "text/html", NULL);
    hk_expect(form_post("/account/signup", "email=fan%40example.com&email=b%40example.com"), 400,
              "text/html", "repeated");
}

static void test_signup_and_signin_outcomes(void **state)
{
    (void)state;
    hk_expect(form_post("/account/signup", "email=not-an-address&password=long+enough+pass+9"), 400,
              "text/html", "valid email");
    hk_expect(form_post("/account/signup", "email=fan%40example.com&password=short"), 400,
              "text/html", NULL);
    const char *fan = "email=fan%40example.com&password=a+long+enough+passphrase+42";
    hk_expect(form_post("/account/signup", fan), 200, "text/html", "check-inbox");
    /* the same address again reads the same (enumeration-safe) */
    hk_expect(form_post("/account/signup", fan), 200, "text/html", "check-inbox");

    hk_expect(form_post("/account/signin", "email=fan%40example.com&password=wrong+one+entirely"),
              403, "text/html", "is wrong");
    hk_expect(form_post("/account/signin", "email=&password="), 400, "text/html", NULL);
    /* an unverified account signs in (it may not create keys yet) */
    struct request *r =
        form_post("/account/signin",
                  "email=fan%40example.com&password=a+long+enough+passphrase+42&next=%2Faccount");
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
    /* a key needs a signed-in session: the anonymous form token is not one */
    hk_expect(form_post("/developers/keys", "name=bot"), 403, "text/html", NULL);
    hk_expect(hk_get("/account/verify"), 400, "text/html", "no token");
    hk_expect(hk_get("/account/reset?token=unknown-token"), 400, "text/html", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_forms_and_refusals, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_signup_and_signin_outcomes, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_signed_out_visitors, setup, hk_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
