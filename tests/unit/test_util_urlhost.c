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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host),
        cmocka_unit_test(test_registrable),
    };
    return cmocka_run_group_tests_name("util/urlhost", tests, NULL, NULL);
}
