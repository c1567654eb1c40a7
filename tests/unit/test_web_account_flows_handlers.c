/* The outcome mapping of the account flows after sign-up (src/web/accounts.c: verify, resend,
 * sign-out, forgot, reset, password change, two-factor enrolment and sign-in code), the
 * developer portal's key revocation (developers.c), and the pages and assets not covered by
 * test_web_handlers.c (games, the feed namespace, developers.js), without a socket
 * (handlerkit.h). Emailed links are seeded with explicit expiry times around now. */
#include "handlerkit.h"

#include "domain/totp.h"
#include "domain/voter.h"

#define FAN   "f0000000-0000-4000-8000-000000000001"
#define STAFF "f0000000-0000-4000-8000-000000000002"
#define OWNER "f0000000-0000-4000-8000-000000000003"
#define KEY   "b0000000-0000-4000-8000-000000000001" /* FAN's */
#define KEY2  "b0000000-0000-4000-8000-000000000002" /* OWNER's */
#define HOUR  (3600LL * 1000000)

static struct hk_user fan, staff, owner;
static struct hk_voter anon;

static int setup(void **state)
{
    static const unsigned char secret[32] = {3, 1, 4};
    static const struct hk_fixture fixture = {
        .secret = secret,
        .fast_passwords = true,
        .anon = &anon,
        .accounts = {{FAN, "fan@example.com", NULL, &fan},
                     {STAFF, "staff@example.com", "editor", &staff},
                     {OWNER, "owner@example.com", NULL, &owner}},
    };
    struct hk *k = hk_setup(state, &fixture);
    if (!k)
        return -1;
    int64_t now = time_now_us();
    if (hk_agent_key(k, KEY, FAN, "my bot", "wk_fan1", "h1", now, now + 24 * HOUR) < 0)
        return -1;
    return hk_agent_key(k, KEY2, OWNER, "their bot", "wk_own2", "h2", now, now + 24 * HOUR);
}

static void test_pages_and_assets(void **state)
{
    (void)state;
    hk_expect(hk_get("/games"), 200, "text/html", "Home Team");
    hk_expect(hk_get("/games?league=nfl&page=1"), 200, "text/html", "Away Team");
    hk_expect(hk_get("/games?league=mls"), 400, "text/html", NULL);
    hk_expect(hk_get("/games?page=0"), 400, "text/html", NULL);
    hk_expect(hk_get("/ns/1.0"), 200, "text/html", "id=\"namespace\"");
    hk_expect(hk_get("/ns/1.0?x=1"), 400, "text/html", NULL);
    hk_expect(hk_get("/static/developers.js"), 200, "text/javascript", NULL);
    struct request *r = hk_do("POST", "/static/developers.js", NULL, NULL);
    assert_non_null(http_reply_header(r, "Allow"));
    hk_expect(r, 405, NULL, NULL);
}

static void test_verify(void **state)
{
    struct hk *k = *state;
    int64_t now = time_now_us();
    char ok[ACCOUNT_TOKEN_LEN + 1], old[ACCOUNT_TOKEN_LEN + 1], used[ACCOUNT_TOKEN_LEN + 1];
    assert_int_equal(store_exec(k->db->s, "UPDATE accounts SET email_verified = 0, verified_at ="
                                          " NULL WHERE id = '" FAN "'"),
                     STORE_DONE);
    hk_link_token(k, FAN, "verify", now, now + HOUR, 0, ok);
    hk_link_token(k, FAN, "verify", now - 1 - HOUR, now - 1, 0, old);
    hk_link_token(k, FAN, "verify", now, now + HOUR, now - HOUR, used);
    char body[200];
    snprintf(body, sizeof body, "token=%s", old);
    hk_expect(hk_anon_post(&anon, "/account/verify", body), 410, "text/html", "expired");
    snprintf(body, sizeof body, "token=%s", used);
    hk_expect(hk_anon_post(&anon, "/account/verify", body), 410, "text/html", "already used");
    hk_expect(hk_anon_post(&anon, "/account/verify", "token=not-a-real-token"), 400, "text/html",
              "not valid");
    hk_expect(hk_anon_post(&anon, "/account/verify", "token=a&token=b"), 400, "text/html", NULL);
    snprintf(body, sizeof body, "csrf=wrong&token=%s", ok);
    hk_expect(hk_as(NULL, "POST", "/account/verify", body, NULL), 403, "text/html", NULL);
    snprintf(body, sizeof body, "token=%s", ok);
    hk_expect(hk_anon_post(&anon, "/account/verify", body), 200, "text/html", "id=\"verified\"");
    hk_expect(hk_anon_post(&anon, "/account/verify", body), 410, "text/html", "already used");
}

static void test_resend_and_signout(void **state)
{
    struct hk *k = *state;
    /* verified: nothing to send */
    hk_expect_redirect(hk_post(&fan, "/account/resend-verification", ""), 303, "/developers");
    assert_int_equal(store_exec(k->db->s, "UPDATE accounts SET email_verified = 0, verified_at ="
                                          " NULL WHERE id = '" FAN "'"),
                     STORE_DONE);
    hk_expect_redirect(hk_post(&fan, "/account/resend-verification", ""), 303,
                       "/developers?notice=sent");
    hk_expect(hk_post(NULL, "/account/resend-verification", ""), 403, "text/html", NULL);
    hk_expect(hk_as(&fan, "POST", "/account/resend-verification", "csrf=wrong", NULL), 403,
              "text/html", NULL);

    hk_expect(hk_as(&fan, "POST", "/account/signout", "csrf=wrong", NULL), 403, "text/html", NULL);
    hk_expect(hk_as(&fan, "POST", "/account/signout", "csrf=x", "https://evil.example"), 403,
              "text/html", NULL);
    struct request *r = hk_post(&fan, "/account/signout", "");
    const char *cookie = http_reply_header(r, "Set-Cookie");
    assert_non_null(cookie);
    assert_non_null(strstr(cookie, ACCOUNT_COOKIE_NAME "=;"));
    hk_expect_redirect(r, 303, "/account/signin?notice=signedout");
    /* the session is over: its pages send to sign in */
    hk_expect_redirect(hk_as(&fan, "GET", "/account", NULL, NULL), 303,
                       "/account/signin?next=/account");
    /* signed out already: the same answer (anonymous token) */
    hk_expect_redirect(hk_anon_post(&anon, "/account/signout", ""), 303,
                       "/account/signin?notice=signedout");
}

static void test_forgot_and_reset(void **state)
{
    struct hk *k = *state;
    hk_expect(hk_anon_post(&anon, "/account/forgot", "email=fan%40example.com"), 200, "text/html",
              "check-inbox");
    /* an unknown address reads the same (enumeration-safe) */
    hk_expect(hk_anon_post(&anon, "/account/forgot", "email=nobody%40example.com"), 200,
              "text/html", "check-inbox");
    hk_expect(hk_anon_post(&anon, "/account/forgot", "email=not-an-address"), 400, "text/html",
              "valid email");
    hk_expect(hk_anon_post(&anon, "/account/forgot", "email=a%40b.c&email=d%40e.f"), 400,
              "text/html", NULL);
    hk_expect(hk_as(NULL, "POST", "/account/forgot", "csrf=wrong&email=a%40b.c", NULL), 403,
              "text/html", NULL);

    int64_t now = time_now_us();
    char ok[ACCOUNT_TOKEN_LEN + 1], old[ACCOUNT_TOKEN_LEN + 1], body[300];
    hk_link_token(k, FAN, "reset", now, now + HOUR, 0, ok);
    hk_link_token(k, FAN, "reset", now - 1 - HOUR, now - 1, 0, old);
    hk_expect(hk_get("/account/reset?token=x&token=y"), 400, "text/html", NULL);
    snprintf(body, sizeof body, "/account/reset?token=%s", ok);
    hk_expect(hk_get(body), 200, "text/html", "name=\"token\"");
    hk_expect(hk_anon_post(&anon, "/account/reset", "password=whatever+long+enough"), 400,
              "text/html", "no token");
    snprintf(body, sizeof body, "token=%s&password=short", ok);
    hk_expect(hk_anon_post(&anon, "/account/reset", body), 400, "text/html", "form-error");
    snprintf(body, sizeof body, "token=%s&password=a+brand+new+passphrase+7", old);
    hk_expect(hk_anon_post(&anon, "/account/reset", body), 410, "text/html", NULL);
    hk_expect(
        hk_anon_post(&anon, "/account/reset", "token=bogus&password=a+brand+new+passphrase+7"), 400,
        "text/html", "not valid");
    snprintf(body, sizeof body, "token=%s&password=a+brand+new+passphrase+7", ok);
    hk_expect_redirect(hk_anon_post(&anon, "/account/reset", body), 303,
                       "/account/signin?notice=reset");
    hk_expect(hk_anon_post(&anon, "/account/reset", body), 410, "text/html", NULL);
    /* a reset signs out every session */
    hk_expect_redirect(hk_as(&fan, "GET", "/account", NULL, NULL), 303,
                       "/account/signin?next=/account");
}

static void test_forgot_limited(void **state)
{
    struct hk *k = *state;
    k->limits.mail_forms_per_ip = 1;
    hk_expect_limit(&anon, "/account/forgot", "email=fan%40example.com", 200, NULL,
                    "email=fan%40example.com", "Too many");
}

static void test_password(void **state)
{
    struct hk *k = *state;
    hk_expect(hk_post(NULL, "/account/password", "current=x&password=y"), 403, "text/html", NULL);
    hk_expect(hk_post(&fan, "/account/password", "current=wrong+one&password=a+new+passphrase+99"),
              403, "text/html", "current password is wrong");
    hk_expect(
        hk_post(&fan, "/account/password", "current=a+long+enough+passphrase+42&password=short"),
        400, "text/html", NULL);
    struct request *r = hk_post(&fan, "/account/password",
                                "current=a+long+enough+passphrase+42&password=a+new+passphrase+99");
    assert_non_null(strstr(http_reply_header(r, "Set-Cookie"), ACCOUNT_COOKIE_NAME "="));
    hk_expect_redirect(r, 303, "/account?notice=password");
    k->limits.signin_per_account = 1;
    hk_expect(hk_post(&owner, "/account/password", "current=wrong&password=a+new+passphrase+99"),
              403, "text/html", NULL);
    hk_expect_retry(
        hk_post(&owner, "/account/password", "current=wrong&password=a+new+passphrase+99"), 429,
        "text/html", "Too many failed sign-ins");
}

/* The base32 key on the enrolment page (id="totp-secret") decoded into secret: its length. */
static size_t page_secret(const struct request *r, unsigned char *secret, size_t max)
{
    const char *p = strstr(r->out.p, "id=\"totp-secret\">");
    assert_non_null(p);
    p += strlen("id=\"totp-secret\">");
    uint64_t acc = 0;
    int bits = 0;
    size_t n = 0;
    for (; *p && *p != '<' && n < max; p++) {
        int v = *p >= 'A' && *p <= 'Z' ? *p - 'A' : *p >= '2' && *p <= '7' ? *p - '2' + 26 : -1;
        if (v < 0)
            continue;
        acc = (acc << 5) | (uint64_t)v;
        bits += 5;
        if (bits >= 8) {
            secret[n++] = (unsigned char)(acc >> (bits - 8));
            bits -= 8;
        }
    }
    return n;
}

static void test_totp(void **state)
{
    (void)state;
    hk_expect(hk_post(&fan, "/account/totp", "password=a+long+enough+passphrase+42"), 403,
              "text/html", "for moderators, editors and admins");
    hk_expect(hk_post(&staff, "/account/totp", "password=wrong"), 403, "text/html",
              "password is wrong");
    hk_expect(hk_post(&staff, "/account/totp/confirm", "code=123456"), 409, "text/html",
              "no set-up is waiting");
    hk_expect(hk_post(&staff, "/account/totp/disable", "password=a+long+enough+passphrase+42"), 409,
              "text/html", NULL);
    struct request *r = hk_post(&staff, "/account/totp", "password=a+long+enough+passphrase+42");
    unsigned char secret[64];
    size_t n = page_secret(r, secret, sizeof secret);
    hk_expect(r, 200, "text/html", "totp-confirm-form");
    assert_true(n >= 10);
    char code[9], wrong[9];
    int64_t now_s = time_now_us() / 1000000;
    assert_int_equal(totp_code(secret, n, now_s, 6, code), 0);
    snprintf(wrong, sizeof wrong, "%06d", (atoi(code) + 500000) % 1000000);
    char body[64];
    snprintf(body, sizeof body, "code=%s", wrong);
    hk_expect(hk_post(&staff, "/account/totp/confirm", body), 403, "text/html", "code is wrong");
    snprintf(body, sizeof body, "code=%s", code);
    hk_expect_redirect(hk_post(&staff, "/account/totp/confirm", body), 303,
                       "/account?notice=totp-on");
    hk_expect(hk_post(&staff, "/account/totp", "password=a+long+enough+passphrase+42"), 409,
              "text/html", "on already");

    /* sign-in now asks for a code: the challenge, then the code */
    char signin[200];
    snprintf(signin, sizeof signin,
             "email=staff%%40example.com&password=a+long+enough+passphrase+42&next=%%2Fdesk");
    r = hk_anon_post(&anon, "/account/signin", signin);
    const char *p = strstr(r->out.p, "name=\"challenge\" value=\"");
    assert_non_null(p);
    char challenge[128];
    p += strlen("name=\"challenge\" value=\"");
    size_t len = strcspn(p, "\"");
    assert_true(len < sizeof challenge);
    memcpy(challenge, p, len);
    challenge[len] = '\0';
    hk_expect(r, 200, "text/html", "Two-factor code");
    char form[400];
    snprintf(form, sizeof form, "challenge=%s&code=%s&next=%%2Fdesk", challenge, wrong);
    hk_expect(hk_anon_post(&anon, "/account/signin/code", form), 403, "text/html", "code is wrong");
    hk_expect(hk_anon_post(&anon, "/account/signin/code", "challenge=a&challenge=b"), 400,
              "text/html", NULL);
    hk_expect(hk_as(NULL, "POST", "/account/signin/code", "csrf=wrong&code=1", NULL), 403,
              "text/html", NULL);
    /* the code of the next step (the current one was used by the confirmation) */
    totp_code(secret, n, now_s + 30, 6, code);
    snprintf(form, sizeof form, "challenge=%s&code=%s&next=%%2Fdesk", challenge, code);
    r = hk_anon_post(&anon, "/account/signin/code", form);
    assert_non_null(strstr(http_reply_header(r, "Set-Cookie"), ACCOUNT_COOKIE_NAME "="));
    hk_expect_redirect(r, 303, "/desk");

    hk_expect(hk_post(&staff, "/account/totp/disable", "password=wrong"), 403, "text/html",
              "password is wrong");
    hk_expect_redirect(
        hk_post(&staff, "/account/totp/disable", "password=a+long+enough+passphrase+42"), 303,
        "/account?notice=totp-off");
}

static void test_key_revoke(void **state)
{
    (void)state;
    hk_expect_redirect(hk_get("/developers/keys/" KEY "/revoke"), 303,
                       "/account/signin?next=/developers");
    hk_expect(hk_as(&fan, "GET", "/developers/keys/" KEY "/revoke", NULL, NULL), 200, "text/html",
              "my bot");
    hk_expect(hk_as(&fan, "GET", "/developers/keys/" KEY2 "/revoke", NULL, NULL), 404, "text/html",
              "no such key");
    hk_expect(hk_as(&fan, "GET", "/developers/keys/nope/revoke", NULL, NULL), 404, "text/html",
              "no such key");
    hk_expect(hk_as(&fan, "GET", "/developers/keys/" KEY "/revoke?x=1", NULL, NULL), 400,
              "text/html", NULL);

    hk_expect(hk_post(NULL, "/developers/keys/" KEY "/revoke", ""), 403, "text/html", NULL);
    hk_expect(hk_as(&fan, "POST", "/developers/keys/" KEY "/revoke", "csrf=wrong", NULL), 403,
              "text/html", NULL);
    hk_expect(hk_post(&fan, "/developers/keys/" KEY2 "/revoke", ""), 404, "text/html",
              "no such key");
    hk_expect(hk_post(&fan, "/developers/keys/nope/revoke", ""), 404, "text/html", "no such key");
    hk_expect_redirect(hk_post(&fan, "/developers/keys/" KEY "/revoke", ""), 303,
                       "/developers?notice=revoked");
    /* again: the same answer (revoking is idempotent for its owner) */
    hk_expect_redirect(hk_post(&fan, "/developers/keys/" KEY "/revoke", ""), 303,
                       "/developers?notice=revoked");
}

static void test_store_unavailable(void **state)
{
    (void)state;
    hk_store_down();
    hk_expect_retry(hk_get("/games"), 503, "text/html", NULL);
    hk_expect(hk_anon_post(&anon, "/account/verify", "token=x"), 503, "text/html", NULL);
    hk_expect(hk_anon_post(&anon, "/account/forgot", "email=fan%40example.com"), 503, "text/html",
              NULL);
    hk_expect(hk_anon_post(&anon, "/account/reset", "token=x&password=y"), 503, "text/html", NULL);
    hk_expect(hk_post(&fan, "/account/signout", ""), 503, "text/html", NULL);
    hk_expect(hk_as(&fan, "GET", "/developers/keys/" KEY "/revoke", NULL, NULL), 503, "text/html",
              NULL);
    hk_expect(hk_get("/ns/1.0"), 200, "text/html", NULL); /* no store needed */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pages_and_assets, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_verify, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_resend_and_signout, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_forgot_and_reset, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_forgot_limited, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_password, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_totp, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_key_revoke, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_store_unavailable, setup, hk_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
