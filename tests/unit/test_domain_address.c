/* The outbound-fetch address policy (domain/address.c) and HTML metadata extraction
 * (research/fetch.c). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/* ---- the client address of a request (issue 14, item 2) ---- */

static struct address addr(const char *text)
{
    struct address a;
    if (address_parse(text, &a) < 0)
        fail_msg("bad test address %s", text);
    return a;
}

static const char *text_of(const struct address *a)
{
    static char t[ADDRESS_TEXT_MAX];
    address_format(a, t, sizeof t);
    return t;
}

static void test_address_parse(void **state)
{
    (void)state;
    struct address a;
    assert_int_equal(address_parse("203.0.113.7", &a), 0);
    assert_int_equal(a.family, AF_INET);
    assert_string_equal(text_of(&a), "203.0.113.7");
    assert_int_equal(address_parse("[2001:DB8::1]", &a), 0);
    assert_string_equal(text_of(&a), "2001:db8::1");
    assert_int_equal(address_parse("::ffff:198.51.100.9", &a), 0); /* mapped: IPv4 */
    assert_int_equal(a.family, AF_INET);
    assert_string_equal(text_of(&a), "198.51.100.9");
    const char *bad[] = {"",        " 1.2.3.4",         "1.2.3.4:80",   "[1.2.3.4]", "1.2.3",
                         "unknown", "2001:db8::1%eth0", "[2001:db8::1", "::1]",      "1.2.3.4.5",
                         NULL};
    for (int i = 0; bad[i]; i++)
        assert_int_equal(address_parse(bad[i], &a), -1);
    assert_int_equal(address_parse(NULL, &a), -1);
}

static void test_address_ranges(void **state)
{
    (void)state;
    struct address_range r[4];
    assert_int_equal(address_range_parse("10.0.0.0/8", &r[0]), 0);
    assert_int_equal(address_range_parse("2001:db8:a::/48", &r[1]), 0);
    assert_int_equal(address_range_parse("127.0.0.1", &r[2]), 0); /* a host */
    assert_int_equal(r[2].bits, 32);
    assert_int_equal(address_range_parse("::ffff:192.0.2.0/120", &r[3]), 0); /* mapped: v4 /24 */
    assert_int_equal(r[3].bits, 24);
    struct address a = addr("10.200.1.2");
    assert_true(address_in_ranges(&a, r, 4));
    a = addr("11.0.0.1");
    assert_false(address_in_ranges(&a, r, 4));
    a = addr("2001:db8:a:ffff::1");
    assert_true(address_in_ranges(&a, r, 4));
    a = addr("2001:db8:b::1");
    assert_false(address_in_ranges(&a, r, 4));
    a = addr("::ffff:10.1.1.1"); /* mapped form of a trusted IPv4 address */
    assert_true(address_in_ranges(&a, r, 4));
    a = addr("192.0.2.77");
    assert_true(address_in_ranges(&a, r, 4));
    assert_false(address_in_ranges(&a, r, 0));
    struct address_range x;
    assert_int_equal(address_range_parse("0.0.0.0/0", &x), 0);
    assert_true(address_in_ranges(&a, &x, 1));
    const char *bad[] = {"10.0.0.1/8", "10.0.0.0/33",    "2001:db8::/129",      "10.0.0.0/",
                         "/8",         "10.0.0.0/8x",    "10.0.0.0/-1",         "example.org",
                         "",           "2001:db8::1/64", "::ffff:192.0.2.0/64", NULL};
    for (int i = 0; bad[i]; i++)
        assert_int_equal(address_range_parse(bad[i], &x), -1);
}

/* The right-most untrusted hop of X-Forwarded-For, from trusted peers only. */
static void test_address_client(void **state)
{
    (void)state;
    struct address_range t[2];
    assert_int_equal(address_range_parse("127.0.0.1", &t[0]), 0);
    assert_int_equal(address_range_parse("10.0.0.0/8", &t[1]), 0);
    struct address proxy = addr("127.0.0.1"), stranger = addr("198.51.100.1"), out;
    static const struct {
        const char *peer, *xff, *client;
    } cases[] = {
        /* a trusted peer: the right-most hop that is not trusted */
        {"127.0.0.1", "203.0.113.9", "203.0.113.9"},
        {"127.0.0.1", "1.1.1.1, 203.0.113.9", "203.0.113.9"},  /* the left one was the client's */
        {"127.0.0.1", "203.0.113.9, 10.1.2.3", "203.0.113.9"}, /* through a second proxy */
        {"127.0.0.1", "203.0.113.9,10.1.2.3,127.0.0.1", "203.0.113.9"},
        {"127.0.0.1", " 2001:db8::5 ", "2001:db8::5"},
        {"127.0.0.1", "[2001:db8::5]", "2001:db8::5"},
        {"127.0.0.1", "::ffff:203.0.113.9", "203.0.113.9"},
        {"127.0.0.1", "10.9.9.9, 10.1.1.1", "10.9.9.9"}, /* all trusted: the left-most */
        /* malformed: the peer, never a guess */
        {"127.0.0.1", "", "127.0.0.1"},
        {"127.0.0.1", "garbage", "127.0.0.1"},
        {"127.0.0.1", "203.0.113.9,", "127.0.0.1"},
        {"127.0.0.1", "203.0.113.9:4711", "127.0.0.1"},
        {"127.0.0.1", ",10.1.1.1", "127.0.0.1"},
        {"127.0.0.1", "unknown, 10.1.1.1", "127.0.0.1"},
        {"127.0.0.1", "203.0.113.9, ,10.1.1.1", "127.0.0.1"},
        /* junk left of the client is the client's own and never read */
        {"127.0.0.1", "junk, 203.0.113.9", "203.0.113.9"},
        {"127.0.0.1", NULL, "127.0.0.1"},
        /* an untrusted peer: the header is ignored */
        {"198.51.100.1", "203.0.113.9", "198.51.100.1"},
        {"198.51.100.1", NULL, "198.51.100.1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct address peer = addr(cases[i].peer);
        address_client(&peer, cases[i].xff, t, 2, &out);
        if (strcmp(text_of(&out), cases[i].client) != 0)
            fail_msg("peer %s xff \"%s\": got %s, want %s", cases[i].peer,
                     cases[i].xff ? cases[i].xff : "(none)", text_of(&out), cases[i].client);
    }
    /* no trusted proxy configured: always the peer */
    address_client(&proxy, "203.0.113.9", NULL, 0, &out);
    assert_string_equal(text_of(&out), "127.0.0.1");
    address_client(&stranger, "203.0.113.9", t, 2, &out);
    assert_string_equal(text_of(&out), "198.51.100.1");
    /* a long header of trusted hops is walked without trouble */
    char big[8192] = "";
    size_t n = 0;
    for (int i = 0; i < 600; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "%s10.0.0.%d", i ? "," : "", i % 250);
    address_client(&proxy, big, t, 2, &out);
    assert_string_equal(text_of(&out), "10.0.0.0");
}

static void test_address_limit_key(void **state)
{
    (void)state;
    char k[ADDRESS_TEXT_MAX];
    address_limit_key("203.0.113.9", k, sizeof k);
    assert_string_equal(k, "203.0.113.9");
    address_limit_key("2001:db8:1:2:aaaa:bbbb:cccc:dddd", k, sizeof k);
    assert_string_equal(k, "2001:db8:1:2::/64");
    address_limit_key("2001:db8:1:2::1", k, sizeof k);
    assert_string_equal(k, "2001:db8:1:2::/64");
    address_limit_key("2001:db8:1:3::1", k, sizeof k);
    assert_string_equal(k, "2001:db8:1:3::/64");
    address_limit_key("::ffff:203.0.113.9", k, sizeof k); /* mapped: the IPv4 address */
    assert_string_equal(k, "203.0.113.9");
    address_limit_key("::1", k, sizeof k);
    assert_string_equal(k, "::/64");
    address_limit_key("not an address", k, sizeof k);
    assert_string_equal(k, "not an address");
    address_limit_key(NULL, k, sizeof k);
    assert_string_equal(k, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused_addresses), cmocka_unit_test(test_html_text),
        cmocka_unit_test(test_public_addresses),  cmocka_unit_test(test_html_meta),
        cmocka_unit_test(test_address_parse),     cmocka_unit_test(test_address_ranges),
        cmocka_unit_test(test_address_client),    cmocka_unit_test(test_address_limit_key),
    };
    return cmocka_run_group_tests_name("domain/address, research/fetch", tests, NULL, NULL);
}
