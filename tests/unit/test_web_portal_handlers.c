/* The outcomes of the account and developer-portal pages that test_web_accounts_handlers.c
 * meets only signed out (src/web/accounts.c, developers.c), without a socket (handlerkit.h):
 * the signed-in account and developer pages, key creation (200 with the secret shown once,
 * 400, 403 unverified, 409 at the key limit), emailed links opened (200, 410), a suspended
 * account's sign-in (403), and the sign-in and sign-up limits (429 with Retry-After). */
#include "handlerkit.h"

#include "domain/voter.h"

#define FAN    "d0000000-0000-4000-8000-000000000001"
#define NEWBIE "d0000000-0000-4000-8000-000000000002" /* not verified */
#define HOUR   (3600LL * 1000000)

static struct hk_user fan, newbie;
static struct hk_voter anon;

static int setup(void **state)
{
    static const unsigned char secret[32] = {8, 8};
    static const struct hk_fixture fixture = {
        .secret = secret,
        .fast_passwords = true,
        .anon = &anon,
        .accounts = {{FAN, "fan@example.com", NULL, &fan},
                     {NEWBIE, "newbie@example.com", NULL, &newbie}},
    };
    struct hk *k = hk_setup(state, &fixture);
    if (!k)
        return -1;
    k->limits.max_agent_keys = 1;
    return hk_exec(k, "UPDATE accounts SET email_verified = 0, verified_at = NULL"
                      " WHERE id = '" NEWBIE "'");
}

static void test_signed_in_pages(void **state)
{
    (void)state;
    hk_expect(hk_as(&fan, "GET", "/account", NULL, NULL), 200, "text/html", "fan@example.com");
    hk_expect(hk_as(&fan, "GET", "/account?notice=password", NULL, NULL), 200, "text/html",
              "Your password is changed");
    hk_expect(hk_as(&fan, "GET", "/developers", NULL, NULL), 200, "text/html", fan.csrf);
    hk_expect(hk_as(&fan, "GET", "/developers?notice=revoked", NULL, NULL), 200, "text/html",
              "The key is revoked");
    hk_expect(hk_as(&fan, "GET", "/developers?notice=bogus", NULL, NULL), 400, "text/html", NULL);
    hk_expect(hk_get("/account/signin?notice=signedout"), 200, "text/html", "You are signed out.");
    hk_expect(hk_get("/account/signin?next=%2F%2Fevil.example"), 400, "text/html", NULL);
}

static void test_key_create(void **state)
{
    (void)state;
    hk_expect(hk_post(&newbie, "/developers/keys", "name=bot"), 403, "text/html",
              "Verify your email address first");
    hk_expect(hk_post(&fan, "/developers/keys", "name=%01bad"), 400, "text/html", NULL);
    hk_expect(hk_as(&fan, "POST", "/developers/keys", "csrf=wrong&name=bot", NULL), 403,
              "text/html", NULL);
    hk_expect(hk_post(&fan, "/developers/keys", "name=my+bot"), 200, "text/html", "wk_");
    /* the key limit is one here */
    hk_expect(hk_post(&fan, "/developers/keys", "name=second+bot"), 409, "text/html",
              "most active keys");
    hk_expect(hk_as(&fan, "GET", "/developers", NULL, NULL), 200, "text/html", "my bot");
}

static void test_links(void **state)
{
    struct hk *k = *state;
    int64_t now = time_now_us();
    const char *purposes[] = {"verify", "reset"};
    const char *pages[] = {"/account/verify", "/account/reset"};
    for (size_t i = 0; i < 2; i++) {
        char ok[ACCOUNT_TOKEN_LEN + 1], old[ACCOUNT_TOKEN_LEN + 1];
        hk_link_token(k, NEWBIE, purposes[i], now, now + HOUR, 0, ok);
        hk_link_token(k, NEWBIE, purposes[i], now - 2 * HOUR, now - 1, 0, old);
        char target[200];
        snprintf(target, sizeof target, "%s?token=%s", pages[i], ok);
        /* opening the link changes nothing: the page only shows a button */
        hk_expect(hk_get(target), 200, "text/html", "name=\"token\"");
        hk_expect(hk_get(target), 200, "text/html", NULL);
        snprintf(target, sizeof target, "%s?token=%s", pages[i], old);
        hk_expect(hk_get(target), 410, "text/html", "expired");
    }
}

static void test_signin_refusals(void **state)
{
    struct hk *k = *state;
    assert_int_equal(store_exec(k->db->s, "UPDATE accounts SET banned = 1 WHERE id = '" FAN "'"),
                     STORE_DONE);
    hk_expect(hk_anon_post(&anon, "/account/signin",
                           "email=fan%40example.com&password=a+long+enough+passphrase+42"),
              403, "text/html", "suspended");
    k->limits.signin_per_account = 1;
    hk_expect_limit(&anon, "/account/signin", "email=newbie%40example.com&password=wrong+one+here",
                    403, "is wrong", "email=newbie%40example.com&password=wrong+one+here",
                    "Too many failed sign-ins");
}

static void test_signup_limited(void **state)
{
    struct hk *k = *state;
    k->limits.mail_forms_per_ip = 1;
    hk_expect_limit(&anon, "/account/signup",
                    "email=one%40example.com&password=a+long+enough+passphrase+42", 200,
                    "check-inbox", "email=two%40example.com&password=a+long+enough+passphrase+42",
                    "Too many sign-ups");
}

static void test_store_unavailable(void **state)
{
    (void)state;
    hk_store_down();
    hk_expect(hk_as(&fan, "GET", "/account", NULL, NULL), 503, "text/html", NULL);
    hk_expect(hk_as(&fan, "GET", "/developers", NULL, NULL), 503, "text/html", NULL);
    hk_expect(hk_post(&fan, "/developers/keys", "name=bot"), 503, "text/html", NULL);
    hk_expect(hk_get("/account/verify?token=abc"), 503, "text/html", NULL);
    hk_expect(hk_anon_post(&anon, "/account/signin", "email=fan%40example.com&password=x+y+z+w+v"),
              503, "text/html", NULL);
    hk_expect(hk_anon_post(&anon, "/account/signup",
                           "email=z%40example.com&password=a+long+passphrase+4"),
              503, "text/html", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_signed_in_pages, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_key_create, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_links, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_signin_refusals, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_signup_limited, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_store_unavailable, setup, hk_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
