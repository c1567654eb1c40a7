/*
 * Unit tests for src/util/urlhost.c: URL hosts and registrable domains (public suffix list
 * through libpsl), which research uses to count independent publishers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/urlhost.h"

static void test_host(void **state)
{
    (void)state;
    char h[64];
    assert_int_equal(url_host("https://WWW.Example.COM:8443/a?b#c", h, sizeof h), 0);
    assert_string_equal(h, "www.example.com");
    assert_int_equal(url_host("http://news.example.org./x", h, sizeof h), 0);
    assert_string_equal(h, "news.example.org");
    assert_int_equal(url_host("http://[::1]:80/", h, sizeof h), 0);
    assert_string_equal(h, "::1");
    assert_int_equal(url_host("mailto:someone@example.com", h, sizeof h), -1);
    assert_int_equal(url_host("not a url", h, sizeof h), -1);
    assert_int_equal(url_host(NULL, h, sizeof h), -1);
    /* too small a buffer is refused, not truncated */
    assert_int_equal(url_host("https://averyveryverylonghostname.example/", h, 8), -1);
}

static void test_registrable(void **state)
{
    (void)state;
    char d[128];
    assert_int_equal(url_registrable_domain("https://www.espn.com/story/1", d, sizeof d), 0);
    assert_string_equal(d, "espn.com");
    assert_int_equal(url_registrable_domain("https://a.b.news.bbc.co.uk/x", d, sizeof d), 0);
    assert_string_equal(d, "bbc.co.uk");
    assert_int_equal(url_registrable_domain("https://m.USATODAY.com/", d, sizeof d), 0);
    assert_string_equal(d, "usatoday.com");
    /* IP literals and bare hosts stand for themselves */
    assert_int_equal(url_registrable_domain("http://127.0.0.1:8080/x", d, sizeof d), 0);
    assert_string_equal(d, "127.0.0.1");
    assert_int_equal(url_registrable_domain("http://localhost:8080/x", d, sizeof d), 0);
    assert_string_equal(d, "localhost");
    /* two subdomains of one publisher are one domain */
    char e[128];
    assert_int_equal(url_registrable_domain("https://sports.yahoo.com/a", d, sizeof d), 0);
    assert_int_equal(url_registrable_domain("https://www.yahoo.com/b", e, sizeof e), 0);
    assert_string_equal(d, e);
}

static void test_same_origin(void **state)
{
    (void)state;
    const char *local = "http://127.0.0.1:8080";
    /* the loopback spellings of a loopback base, same scheme and port */
    assert_true(url_same_origin(local, "http://127.0.0.1:8080"));
    assert_true(url_same_origin(local, "http://localhost:8080"));
    assert_true(url_same_origin(local, "http://LOCALHOST:8080/incidents/x?y#z"));
    assert_true(url_same_origin(local, "http://[::1]:8080"));
    assert_true(url_same_origin("http://localhost:8080", "http://127.0.0.1:8080/"));
    assert_true(url_same_origin("http://[::1]:8080/", "http://localhost:8080"));
    /* another port, another scheme, another host, nothing at all */
    assert_false(url_same_origin(local, "http://localhost:8081"));
    assert_false(url_same_origin(local, "https://localhost:8080"));
    assert_false(url_same_origin(local, "http://localhost"));
    assert_false(url_same_origin(local, "http://127.0.0.2:8080"));
    assert_false(url_same_origin(local, "http://evil.example:8080"));
    assert_false(url_same_origin(local, "null"));
    assert_false(url_same_origin(local, ""));
    assert_false(url_same_origin(local, NULL));
    /* a public base: its own host only, default ports understood */
    const char *pub = "https://whistle.example";
    assert_true(url_same_origin(pub, "https://whistle.example"));
    assert_true(url_same_origin(pub, "https://Whistle.Example:443/developers"));
    assert_false(url_same_origin(pub, "http://whistle.example"));
    assert_false(url_same_origin(pub, "https://localhost"));
    assert_false(url_same_origin(pub, "https://whistle.example.evil.example"));
    assert_false(url_same_origin("https://localhost", pub));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host),
        cmocka_unit_test(test_registrable),
        cmocka_unit_test(test_same_origin),
    };
    return cmocka_run_group_tests_name("util/urlhost", tests, NULL, NULL);
}
