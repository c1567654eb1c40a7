/* Voter cookies, CSRF tokens and stored hashes (domain/voter.c); form bodies (util/form.c);
 * HTML escaping (util/html.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "domain/voter.h"
#include "util/form.h"
#include "util/html.h"

static const unsigned char key_a[32] = {1, 2, 3};
static const unsigned char key_b[32] = {9, 9, 9};

static void test_cookie_round_trip(void **state)
{
    (void)state;
    voter_set_secret(key_a);
    char c1[VOTER_COOKIE_LEN + 1], c2[VOTER_COOKIE_LEN + 1], id[VOTER_ID_LEN + 1];
    voter_new_cookie(c1);
    voter_new_cookie(c2);
    assert_int_equal(strlen(c1), VOTER_COOKIE_LEN);
    assert_int_equal(c1[VOTER_ID_LEN], '.');
    assert_string_not_equal(c1, c2);
    assert_true(voter_check_cookie(c1, id));
    assert_memory_equal(id, c1, VOTER_ID_LEN);
}

static void test_tampered_cookies_are_refused(void **state)
{
    (void)state;
    voter_set_secret(key_a);
    char c[VOTER_COOKIE_LEN + 1], t[VOTER_COOKIE_LEN + 2], id[VOTER_ID_LEN + 1];
    voter_new_cookie(c);
    for (size_t i = 0; i < VOTER_COOKIE_LEN; i++) {
        if (i == VOTER_ID_LEN)
            continue;
        memcpy(t, c, sizeof c);
        t[i] = t[i] == '0' ? '1' : '0';
        if (voter_check_cookie(t, id))
            fail_msg("cookie with character %zu changed accepted", i);
    }
    assert_false(voter_check_cookie(NULL, id));
    assert_false(voter_check_cookie("", id));
    memcpy(t, c, sizeof c);
    t[VOTER_COOKIE_LEN - 1] = '\0';
    assert_false(voter_check_cookie(t, id));
    memcpy(t, c, sizeof c);
    t[VOTER_ID_LEN] = '-';
    assert_false(voter_check_cookie(t, id));
    /* a cookie signed under another secret is not ours */
    voter_set_secret(key_b);
    assert_false(voter_check_cookie(c, id));
    voter_set_secret(key_a);
    assert_true(voter_check_cookie(c, id));
}

static void test_csrf_tokens_are_per_voter(void **state)
{
    (void)state;
    voter_set_secret(key_a);
    char c1[VOTER_COOKIE_LEN + 1], c2[VOTER_COOKIE_LEN + 1];
    char id1[VOTER_ID_LEN + 1], id2[VOTER_ID_LEN + 1];
    char t1[VOTER_TOKEN_LEN + 1], t2[VOTER_TOKEN_LEN + 1];
    voter_new_cookie(c1);
    voter_new_cookie(c2);
    voter_check_cookie(c1, id1);
    voter_check_cookie(c2, id2);
    voter_csrf_token(id1, t1);
    voter_csrf_token(id2, t2);
    assert_int_equal(strlen(t1), VOTER_TOKEN_LEN);
    assert_true(voter_csrf_ok(id1, t1));
    assert_false(voter_csrf_ok(id1, t2)); /* another voter's token */
    assert_false(voter_csrf_ok(id1, NULL));
    assert_false(voter_csrf_ok(id1, ""));
    t1[0] = t1[0] == 'a' ? 'b' : 'a';
    assert_false(voter_csrf_ok(id1, t1));
}

static void test_stored_hash_never_contains_the_id(void **state)
{
    (void)state;
    voter_set_secret(key_a);
    char c[VOTER_COOKIE_LEN + 1], id[VOTER_ID_LEN + 1];
    char h1[VOTER_HASH_LEN + 1], h2[VOTER_HASH_LEN + 1], h3[VOTER_HASH_LEN + 1];
    voter_new_cookie(c);
    voter_check_cookie(c, id);
    voter_hash("ballot", id, h1);
    voter_hash("ballot", id, h2);
    voter_hash("ip", id, h3);
    assert_string_equal(h1, h2);     /* stable: one ballot per voter */
    assert_string_not_equal(h1, h3); /* separated by purpose */
    assert_null(strstr(h1, id));
    assert_int_equal(strlen(h1), VOTER_HASH_LEN);
}

static void test_form_parse(void **state)
{
    (void)state;
    struct arena a;
    struct form_pair p[8];
    arena_init(&a);
    const char *body = "choice=incorrect&question_version=2&csrf=ab%2Fc&note=two+words";
    assert_int_equal(form_parse(&a, body, strlen(body), p, 8), 4);
    assert_string_equal(p[0].name, "choice");
    assert_string_equal(p[0].value, "incorrect");
    assert_string_equal(p[2].value, "ab/c");
    assert_string_equal(p[3].value, "two words");
    assert_int_equal(form_parse(&a, "", 0, p, 8), 0);
    assert_int_equal(form_parse(&a, "a=1&&b=", 7, p, 8), 2);
    assert_string_equal(p[1].value, "");
    assert_int_equal(form_parse(&a, "novalue", 7, p, 8), -1);
    assert_int_equal(form_parse(&a, "a=%zz", 5, p, 8), -1);
    assert_int_equal(form_parse(&a, "a=%4", 4, p, 8), -1);
    assert_int_equal(form_parse(&a, "a=%00", 5, p, 8), -1);        /* NUL */
    assert_int_equal(form_parse(&a, "a=1&b=2&c=3", 11, p, 2), -1); /* too many */
    /* the length bounds the parse: bytes after it are not read */
    assert_int_equal(form_parse(&a, "a=1&b=2", 3, p, 8), 1);
    arena_release(&a);
}

static void test_html_escaping(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    html_text(&b, "<script>alert(\"x\" & 'y')</script>");
    assert_string_equal(b.p, "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
    buf_reset(&b);
    html_text(&b, NULL);
    html_text(&b, "plain é");
    assert_string_equal(b.p, "plain é");
    buf_release(&b);
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cookie_round_trip),
        cmocka_unit_test(test_tampered_cookies_are_refused),
        cmocka_unit_test(test_csrf_tokens_are_per_voter),
        cmocka_unit_test(test_stored_hash_never_contains_the_id),
        cmocka_unit_test(test_form_parse),
        cmocka_unit_test(test_html_escaping),
    };
    return cmocka_run_group_tests_name("domain/voter, util/form, util/html", tests, NULL, NULL);
}
