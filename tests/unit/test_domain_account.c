/* Account rules (domain/account.c): email normalisation, password policy and hashing,
 * link tokens and their expiry, session cookies and CSRF tokens, rate windows, the
 * post-sign-in path, key names and the outbox back-off — each with an explicit `now`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "domain/account.h"
#include "domain/limits.h"
#include "domain/ratelimit.h"
#include "domain/voter.h"

#define SEC INT64_C(1000000)
#define NOW (INT64_C(1764000000) * SEC)

static int setup(void **state)
{
    (void)state;
    unsigned char key[32] = {7};
    if (sodium_init() < 0)
        return -1;
    voter_set_secret(key);
    return 0;
}

static void test_email_normalize(void **state)
{
    (void)state;
    char out[ACCOUNT_EMAIL_MAX + 2];
    assert_int_equal(account_email_normalize("Me@Example.ORG", out), 0);
    assert_string_equal(out, "me@example.org");
    const char *bad[] = {"",
                         "me",
                         "@example.org",
                         "me@",
                         "me@example",
                         "me@.example.org",
                         "me@example.org.",
                         "a@b@c.org",
                         "m e@example.org",
                         "me@exa\tmple.org",
                         "mé@example.org",
                         NULL};
    for (int i = 0; bad[i]; i++)
        assert_int_equal(account_email_normalize(bad[i], out), -1);
    char longest[300];
    memset(longest, 'a', 250);
    memcpy(longest + 250, "@b.c", 5);
    assert_int_equal(account_email_normalize(longest, out), 0); /* 254 characters */
    memset(longest, 'a', 251);
    memcpy(longest + 251, "@b.c", 5);
    assert_int_equal(account_email_normalize(longest, out), -1);
}

static void test_password_policy(void **state)
{
    (void)state;
    assert_null(account_password_problem("correct horse battery", "me@example.org"));
    assert_non_null(strstr(account_password_problem("short", NULL), "at least 10"));
    assert_non_null(strstr(account_password_problem("123456789", NULL), "at least 10"));
    /* ten characters counted as Unicode characters, not bytes */
    assert_null(account_password_problem("ééééééééé1", NULL));
    assert_non_null(account_password_problem("éééééééé1", NULL));
    char big[300];
    memset(big, 'x', 257);
    big[257] = '\0';
    assert_non_null(strstr(account_password_problem(big, NULL), "at most 256"));
    big[256] = '\0';
    assert_null(account_password_problem(big, NULL));
    /* the bundled list, case-insensitively; comments are not passwords */
    assert_true(account_password_is_common("password123"));
    assert_true(account_password_is_common("PassWord123"));
    assert_true(account_password_is_common("qwertyuiop"));
    assert_true(account_password_is_common("1q2w3e4r5t"));
    assert_false(account_password_is_common("correct horse battery"));
    assert_false(account_password_is_common("# The most common passwords, refused at sign-up, "
                                            "reset and change (case-insensitive, one"));
    assert_non_null(strstr(account_password_problem("Password1234", NULL), "most common"));
    /* a listed password with digits or symbols added at either end */
    assert_true(account_password_is_common("Football2024!"));
    assert_true(account_password_is_common("123iloveyou"));
    assert_true(account_password_is_common("!!monkey!!99"));
    assert_true(account_password_is_common("sunshine-2025"));
    assert_false(account_password_is_common("football is fun"));
    assert_false(account_password_is_common("7529384610"));   /* digits alone are not a word */
    assert_false(account_password_is_common("abc12345678x")); /* the stem must be listed */
    assert_false(account_password_is_common("1111abc1111"));  /* "abc" is too short a stem */
    assert_non_null(strstr(account_password_problem("Me@Example.org", "me@example.org"), "email"));
    assert_non_null(strstr(account_password_problem("averylongname", "averylongname@example.org"),
                           "name part"));
}

static void test_password_hash_and_verify(void **state)
{
    (void)state;
    /* the smallest argon2id cost keeps the suite fast; the rules are the same */
    struct whistle_limits lim = {.password_ops = crypto_pwhash_OPSLIMIT_MIN,
                                 .password_memory_kib = 8192};
    char h1[ACCOUNT_PASSWORD_HASH_MAX], h2[ACCOUNT_PASSWORD_HASH_MAX];
    assert_int_equal(account_password_hash("correct horse battery", &lim, h1), 0);
    assert_int_equal(account_password_hash("correct horse battery", &lim, h2), 0);
    assert_true(strncmp(h1, "$argon2id$", 10) == 0);
    assert_string_not_equal(h1, h2); /* salted */
    assert_true(account_password_verify(h1, "correct horse battery"));
    assert_false(account_password_verify(h1, "correct horse batterY"));
    assert_false(account_password_verify(NULL, "correct horse battery"));
    account_password_dummy_verify("anything at all", &lim); /* returns, whatever the input */
    /* the cost travels in the hash: a hash made at another cost still verifies */
    struct whistle_limits other = {.password_ops = crypto_pwhash_OPSLIMIT_MIN + 1,
                                   .password_memory_kib = 8192};
    assert_int_equal(account_password_hash("correct horse battery", &other, h2), 0);
    assert_true(account_password_verify(h2, "correct horse battery"));
    lim.password_memory_kib = 4; /* below libsodium's minimum (8 KiB) */
    assert_int_equal(account_password_hash("correct horse battery", &lim, h2), -1);
}

static void test_tokens(void **state)
{
    (void)state;
    char t1[ACCOUNT_TOKEN_LEN + 1], h1[65], t2[ACCOUNT_TOKEN_LEN + 1], h2[65], h[65];
    account_token_new(t1, h1);
    account_token_new(t2, h2);
    assert_int_equal(strlen(t1), ACCOUNT_TOKEN_LEN);
    assert_string_not_equal(t1, t2);
    assert_int_equal(account_token_hash(t1, h), 0);
    assert_string_equal(h, h1);
    assert_int_equal(strlen(h1), 64);
    assert_int_equal(account_token_hash("short", h), -1);
    t1[5] = '-';
    assert_int_equal(account_token_hash(t1, h), -1);
    assert_int_equal(account_token_hash(NULL, h), -1);
}

static void test_token_state(void **state)
{
    (void)state;
    int64_t exp = NOW + ACCOUNT_VERIFY_TTL_US;
    assert_int_equal(account_token_state(NOW, exp, INT64_MIN), ACCOUNT_TOKEN_VALID);
    assert_int_equal(account_token_state(exp - 1, exp, INT64_MIN), ACCOUNT_TOKEN_VALID);
    assert_int_equal(account_token_state(exp, exp, INT64_MIN), ACCOUNT_TOKEN_EXPIRED);
    assert_int_equal(account_token_state(NOW, exp, NOW), ACCOUNT_TOKEN_USED);
    assert_int_equal(account_token_state(exp + SEC, exp, NOW), ACCOUNT_TOKEN_USED);
    assert_int_equal(ACCOUNT_VERIFY_TTL_US, 24 * 3600 * SEC);
    assert_int_equal(ACCOUNT_RESET_TTL_US, 3600 * SEC);
}

static void test_session_cookie(void **state)
{
    (void)state;
    char c[ACCOUNT_COOKIE_LEN + 1], h[65], h2[65];
    account_session_new(c, h);
    assert_int_equal(strlen(c), ACCOUNT_COOKIE_LEN);
    assert_true(account_session_check(c, h2));
    assert_string_equal(h, h2);
    /* the stored hash is the token's, not the cookie's */
    char tok[ACCOUNT_TOKEN_LEN + 1];
    memcpy(tok, c, ACCOUNT_TOKEN_LEN);
    tok[ACCOUNT_TOKEN_LEN] = '\0';
    assert_int_equal(account_token_hash(tok, h2), 0);
    assert_string_equal(h, h2);
    char bad[ACCOUNT_COOKIE_LEN + 1];
    memcpy(bad, c, sizeof bad);
    bad[ACCOUNT_COOKIE_LEN - 1] = bad[ACCOUNT_COOKIE_LEN - 1] == '0' ? '1' : '0';
    assert_false(account_session_check(bad, h2));
    memcpy(bad, c, sizeof bad);
    bad[0] = bad[0] == 'a' ? 'b' : 'a';
    assert_false(account_session_check(bad, h2));
    assert_false(account_session_check(NULL, h2));
    assert_false(account_session_check("", h2));
    /* another secret, another signature */
    unsigned char other[32] = {9};
    voter_set_secret(other);
    assert_false(account_session_check(c, h2));
    unsigned char key[32] = {7};
    voter_set_secret(key);
    assert_true(account_session_check(c, h2));
}

static void test_session_csrf(void **state)
{
    (void)state;
    char h[65], c[ACCOUNT_COOKIE_LEN + 1], t[ACCOUNT_CSRF_LEN + 1], t2[ACCOUNT_CSRF_LEN + 1];
    account_session_new(c, h);
    account_session_csrf(h, t);
    assert_int_equal(strlen(t), 32);
    assert_true(account_session_csrf_ok(h, t));
    assert_false(account_session_csrf_ok(h, NULL));
    assert_false(account_session_csrf_ok(h, "0123"));
    /* the anonymous voter's token for the same text differs (another HMAC label) */
    voter_csrf_token(h, t2);
    assert_string_not_equal(t, t2);
    assert_false(account_session_csrf_ok(h, t2));
}

/* Staff sessions end after the idle timeout without a request, to the microsecond; a fan's
 * never does; the last request is recorded at most every quarter of the timeout. */
static void test_staff_idle_timeout(void **state)
{
    (void)state;
    const int64_t idle = 1800 * SEC, seen = 1700000000 * SEC;
    assert_false(account_session_idle_ended(seen, seen, true, idle));
    assert_false(account_session_idle_ended(seen + idle - 1, seen, true, idle));
    assert_true(account_session_idle_ended(seen + idle, seen, true, idle));
    assert_false(account_session_idle_ended(seen + 100 * idle, seen, false, idle)); /* a fan */
    assert_false(account_session_idle_ended(seen + 100 * idle, seen, true, 0));     /* no limit */
    assert_false(account_session_touch_due(seen + idle / 4 - 1, seen, true, idle));
    assert_true(account_session_touch_due(seen + idle / 4, seen, true, idle));
    assert_false(account_session_touch_due(seen + idle, seen, false, idle));
    /* a staff member who is seen every quarter never reaches the timeout */
    int64_t last = seen;
    for (int64_t now = seen; now < seen + 10 * idle; now += idle / 8) {
        assert_false(account_session_idle_ended(now, last, true, idle));
        if (account_session_touch_due(now, last, true, idle))
            last = now;
    }
}

static void test_account_voter(void **state)
{
    (void)state;
    char a[65], b[65], v[65];
    account_voter("11111111-1111-4111-8111-111111111111", a);
    account_voter("11111111-1111-4111-8111-111111111111", b);
    assert_string_equal(a, b); /* stable */
    account_voter("22222222-2222-4222-8222-222222222222", b);
    assert_string_not_equal(a, b);
    voter_hash("ballot", "11111111-1111-4111-8111-111111111111", v);
    assert_string_not_equal(a, v); /* never collides with an anonymous voter's identity */
}

static void test_rate_window(void **state)
{
    (void)state;
    int64_t retry = 0, w = ACCOUNT_SIGNIN_WINDOW_US;
    assert_int_equal(rate_window_check(4, NOW - 60 * SEC, 5, w, NOW, &retry), 0);
    assert_int_equal(rate_window_check(5, NOW - 60 * SEC, 5, w, NOW, &retry), 1);
    assert_int_equal(retry, 14 * 60);
    assert_int_equal(rate_window_check(5, NOW - w + 1, 5, w, NOW, &retry), 1);
    assert_int_equal(retry, 1); /* at least one second */
    assert_int_equal(rate_window_check(6, NOW, 5, w, NOW, &retry), 1);
    assert_int_equal(retry, 15 * 60);
    /* the window is over exactly window_us after its first event */
    assert_int_equal(rate_window_check(5, NOW - w, 5, w, NOW, &retry), 0);
    assert_int_equal(rate_window_check(0, 0, 1, w, NOW, &retry), 0); /* no window yet */
}

/* rate_window_add: the anchored fixed window moves in O(1) (domain/ratelimit.h). */
static void test_rate_window_add(void **state)
{
    (void)state;
    int64_t count = 0, started = 0, retry = 0, w = 60 * SEC;
    rate_window_add(&count, &started, w, NOW); /* the first event opens the window */
    assert_int_equal(count, 1);
    assert_int_equal(started, NOW);
    for (int i = 1; i < 5; i++)
        rate_window_add(&count, &started, w, NOW + i * SEC);
    assert_int_equal(count, 5);
    assert_int_equal(started, NOW); /* still anchored at the first event */
    assert_int_equal(rate_window_check(count, started, 5, w, NOW + 10 * SEC, &retry), 1);
    assert_int_equal(retry, 50);
    assert_int_equal(rate_window_check(count, started, 5, w, NOW + w - 1, &retry), 1);
    assert_int_equal(retry, 1);
    /* window_us after the first event the window is over: the next event opens a new one */
    assert_int_equal(rate_window_check(count, started, 5, w, NOW + w, &retry), 0);
    rate_window_add(&count, &started, w, NOW + w);
    assert_int_equal(count, 1);
    assert_int_equal(started, NOW + w);
    /* so no span of w holds more than 2 x limit: 5 late in one window, 5 early in the next */
    count = 5, started = NOW;
    rate_window_add(&count, &started, w, NOW + w + 1);
    assert_int_equal(count, 1);
    assert_int_equal(started, NOW + w + 1);
}

static void test_safe_next(void **state)
{
    (void)state;
    assert_string_equal(account_safe_next("/incidents/x"), "/incidents/x");
    assert_string_equal(account_safe_next("/account?x=1"), "/account?x=1");
    const char *bad[] = {"//evil.example", "https://evil.example/",
                         "evil",           "",
                         "/\\evil",        "/a\nb",
                         "/\\\\evil",      NULL};
    for (int i = 0; bad[i]; i++)
        assert_string_equal(account_safe_next(bad[i]), "/developers");
    assert_string_equal(account_safe_next(NULL), "/developers");
}

static void test_key_name(void **state)
{
    (void)state;
    char out[404];
    assert_null(account_key_name("  my bot \t", out));
    assert_string_equal(out, "my bot");
    assert_non_null(account_key_name("", out));
    assert_non_null(account_key_name("   ", out));
    assert_non_null(account_key_name(NULL, out));
    assert_non_null(account_key_name("a\x01z", out));
    char s[500];
    memset(s, 'k', 100);
    s[100] = '\0';
    assert_null(account_key_name(s, out));
    s[100] = 'k';
    s[101] = '\0';
    assert_non_null(account_key_name(s, out));
    /* 100 characters of two bytes each are fine */
    for (int i = 0; i < 100; i++)
        memcpy(s + 2 * i, "é", 2);
    s[200] = '\0';
    assert_null(account_key_name(s, out));
}

static void test_outbox_backoff(void **state)
{
    (void)state;
    int64_t min = 60 * SEC;
    assert_int_equal(account_outbox_retry_at(1, NOW), NOW + min);
    assert_int_equal(account_outbox_retry_at(2, NOW), NOW + 5 * min);
    assert_int_equal(account_outbox_retry_at(3, NOW), NOW + 15 * min);
    assert_int_equal(account_outbox_retry_at(4, NOW), NOW + 60 * min);
    assert_int_equal(account_outbox_retry_at(7, NOW), NOW + 180 * min);
    assert_int_equal(account_outbox_retry_at(OUTBOX_MAX_ATTEMPTS, NOW), INT64_MIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_email_normalize),
        cmocka_unit_test(test_password_policy),
        cmocka_unit_test(test_password_hash_and_verify),
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_token_state),
        cmocka_unit_test(test_session_cookie),
        cmocka_unit_test(test_session_csrf),
        cmocka_unit_test(test_account_voter),
        cmocka_unit_test(test_rate_window),
        cmocka_unit_test(test_rate_window_add),
        cmocka_unit_test(test_safe_next),
        cmocka_unit_test(test_key_name),
        cmocka_unit_test(test_outbox_backoff),
        cmocka_unit_test(test_staff_idle_timeout),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
