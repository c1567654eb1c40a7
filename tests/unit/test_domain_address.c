/* The outbound-fetch address policy (domain/address.c) and HTML metadata extraction
 * (research/fetch.c). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "domain/address.h"
#include "research/fetch.h"
#include "util/buf.h"

static bool public_addr(const char *text)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    if (strchr(text, ':')) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        in6->sin6_family = AF_INET6;
        if (inet_pton(AF_INET6, text, &in6->sin6_addr) != 1)
            fail_msg("bad test address %s", text);
    } else {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        in->sin_family = AF_INET;
        if (inet_pton(AF_INET, text, &in->sin_addr) != 1)
            fail_msg("bad test address %s", text);
    }
    return address_is_public((struct sockaddr *)&ss);
}

static void test_refused_addresses(void **state)
{
    (void)state;
    const char *refused[] = {
        "127.0.0.1",
        "127.1.2.3",
        "0.0.0.0",
        "10.0.0.1",
        "10.255.255.255",
        "172.16.0.1",
        "172.31.255.255",
        "192.168.1.1",
        "100.64.0.1",
        "100.127.255.255",
        "169.254.169.254",
        "169.254.0.1",
        "224.0.0.1",
        "239.255.255.250",
        "255.255.255.255",
        "240.0.0.1",
        "192.0.2.1",
        "198.51.100.7",
        "203.0.113.9",
        "198.18.0.1",
        "::",
        "::1",
        "fe80::1",
        "fc00::1",
        "fd12:3456::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "::ffff:169.254.169.254",
        "64:ff9b::7f00:1",
        "64:ff9b::a9fe:a9fe",
        "::127.0.0.1",
        "2001:db8::1",
        "2002:7f00:1::",
        "2002:a00:1::",
        "2001:0:4136:e378::1",
        "fec0::1",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (public_addr(refused[i]))
            fail_msg("%s was allowed", refused[i]);
    assert_false(address_is_public(NULL));
}

static void test_public_addresses(void **state)
{
    (void)state;
    const char *allowed[] = {"93.184.216.34",        "8.8.8.8",        "1.1.1.1",
                             "172.15.255.255",       "172.32.0.1",     "100.63.255.255",
                             "100.128.0.1",          "11.0.0.1",       "2606:4700::1111",
                             "2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::808:808",
                             "2002:808:808::"};
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (!public_addr(allowed[i]))
            fail_msg("%s was refused", allowed[i]);
}

static void test_html_meta(void **state)
{
    (void)state;
    char *title, *pub;
    const char *a = "<html><head><title>  Plain\n title </title>"
                    "<meta property=\"og:title\" content=\"OG &amp; title\">"
                    "<meta property=\"og:site_name\" content=\"Example Sports\"></head></html>";
    fetch_html_meta(a, strlen(a), &title, &pub, NULL);
    assert_string_equal(title, "OG & title");
    assert_string_equal(pub, "Example Sports");
    free(title);
    free(pub);
    const char *b = "<title>Only a title</title><p>text";
    fetch_html_meta(b, strlen(b), &title, &pub, NULL);
    assert_string_equal(title, "Only a title");
    assert_null(pub);
    free(title);
    fetch_html_meta("", 0, &title, &pub, NULL);
    assert_null(title);
    assert_null(pub);
    const char *c = "<html><head><title>   </title></head></html>";
    fetch_html_meta(c, strlen(c), &title, &pub, NULL);
    assert_null(title); /* blank titles are no titles */
}

/* research reads the page's text, never its scripts, styles or title */
static void test_html_text(void **state)
{
    (void)state;
    char *title, *pub;
    struct buf text = BUF_INIT;
    const char *a = "<html><head><title>Ohio State</title><style>.Michigan{}</style>"
                    "<script>var team = 'Oregon';</script></head><body><p>The flag on "
                    "<b>Michigan</b>&amp;co</p><noscript>Texas</noscript></body></html>";
    fetch_html_meta(a, strlen(a), &title, &pub, &text);
    assert_non_null(text.p);
    assert_non_null(strstr(text.p, "Michigan"));
    assert_non_null(strstr(text.p, "&co"));
    assert_null(strstr(text.p, "Oregon"));
    assert_null(strstr(text.p, "Ohio State"));
    assert_null(strstr(text.p, "Texas"));
    assert_null(strstr(text.p, ".Michigan{"));
    free(title);
    buf_release(&text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused_addresses),
        cmocka_unit_test(test_html_text),
        cmocka_unit_test(test_public_addresses),
        cmocka_unit_test(test_html_meta),
    };
    return cmocka_run_group_tests_name("domain/address, research/fetch", tests, NULL, NULL);
}
