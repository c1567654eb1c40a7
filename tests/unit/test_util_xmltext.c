/*
 * Unit tests for src/util/xmltext.c: what the RSS feed writes is always well-formed XML 1.0,
 * whatever bytes a title holds. libxml2's own parser is the judge: every text is written with
 * xmlTextWriter (as src/web/feed.c does) and parsed back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/xmlwriter.h>

#include "util/xmltext.h"

/* The cleaned text of the n bytes s. */
static char *clean(const char *s, size_t n)
{
    char *out = malloc(XML_TEXT_MAX(n));
    assert_non_null(out);
    size_t len = xml_text_clean(out, s, n);
    assert_int_equal(strlen(out), len);
    return out;
}

static void assert_cleans_to(const char *s, size_t n, const char *want)
{
    char *out = clean(s, n);
    assert_string_equal(out, want);
    free(out);
}

static void quiet(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

/* 1 when <t>text</t>, written by xmlTextWriter, parses as XML 1.0 with text as its content. */
static int round_trips(const char *text)
{
    xmlBufferPtr xb = xmlBufferCreate();
    xmlTextWriterPtr w = xmlNewTextWriterMemory(xb, 0);
    xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL);
    xmlTextWriterWriteElement(w, (const xmlChar *)"t", (const xmlChar *)text);
    xmlTextWriterEndDocument(w);
    xmlFreeTextWriter(w);
    xmlDocPtr doc = xmlReadMemory((const char *)xmlBufferContent(xb), xmlBufferLength(xb), NULL,
                                  NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    int ok = 0;
    if (doc) {
        xmlChar *got = xmlNodeGetContent(xmlDocGetRootElement(doc));
        ok = got && strcmp((const char *)got, text) == 0;
        xmlFree(got);
        xmlFreeDoc(doc);
    }
    xmlBufferFree(xb);
    return ok;
}

static void test_allowed_text_is_kept(void **state)
{
    (void)state;
    static const char keep[] = "Late hit\t<b>&amp;\"'\r\n é 中 \xF0\x9F\x8F\x88 \xEF\xBF\xBD "
                               "\xED\x9F\xBF \xEE\x80\x80 \xF4\x8F\xBF\xBF \xC2\x85";
    assert_cleans_to(keep, sizeof keep - 1, keep);
    assert_cleans_to("", 0, "");
}

static void test_forbidden_characters_are_dropped(void **state)
{
    (void)state;
    /* C0 controls but tab, LF, CR; U+FFFE and U+FFFF (EF BF BE, EF BF BF) */
    static const char in[] = "a\x01"
                             "b\x08\x0B\x0C\x1F"
                             "c\xEF\xBF\xBE"
                             "d\xEF\xBF\xBF"
                             "e\x7F";
    assert_cleans_to(in, sizeof in - 1, "abcde\x7F");
    assert_cleans_to("\0x", 2, "x"); /* a NUL inside the counted bytes */
}

static void test_bytes_that_are_not_utf8_become_replacement_characters(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"\x80", "\xEF\xBF\xBD"},                                 /* a stray continuation byte */
        {"a\xC3", "a\xEF\xBF\xBD"},                               /* truncated at the end */
        {"\xC3(", "\xEF\xBF\xBD("},                               /* truncated before ASCII */
        {"\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD"},                 /* overlong "/" */
        {"\xE0\x80\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"}, /* overlong, 3 bytes */
        {"\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"}, /* a lone surrogate U+D800 */
        {"\xF4\x90\x80\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"}, /* > 10FFFF */
        {"\xFF", "\xEF\xBF\xBD"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        assert_cleans_to(cases[k].in, strlen(cases[k].in), cases[k].want);
}

/* Every string of one or two bytes, and every three-byte string starting EF (the block of
 * U+FFFE and U+FFFF), plus a few around the surrogates: the cleaned text round-trips through
 * libxml2's writer and parser. */
static void test_every_short_byte_string_makes_well_formed_xml(void **state)
{
    (void)state;
    xmlSetGenericErrorFunc(NULL, quiet);
    unsigned char s[4];
    size_t checked = 0;
    for (unsigned a = 0; a < 256; a++) {
        s[0] = (unsigned char)a;
        char *out = clean((const char *)s, 1);
        assert_true(round_trips(out));
        free(out);
        for (unsigned b = 0; b < 256; b++) {
            s[1] = (unsigned char)b;
            out = clean((const char *)s, 2);
            if (!round_trips(out))
                fail_msg("bytes %02x %02x clean to text libxml2 refuses", a, b);
            free(out);
            checked++;
        }
    }
    const unsigned leads[] = {0xED, 0xEF};
    for (size_t l = 0; l < 2; l++) {
        s[0] = (unsigned char)leads[l];
        for (unsigned b = 0x80; b < 0x100; b++)
            for (unsigned c = 0; c < 0x100; c++) {
                s[1] = (unsigned char)b;
                s[2] = (unsigned char)c;
                char *out = clean((const char *)s, 3);
                if (!round_trips(out))
                    fail_msg("bytes %02x %02x %02x clean to text libxml2 refuses", s[0], b, c);
                free(out);
                checked++;
            }
    }
    assert_true(checked > 90000);
}

#define T(f) cmocka_unit_test(f)
int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_allowed_text_is_kept),
        T(test_forbidden_characters_are_dropped),
        T(test_bytes_that_are_not_utf8_become_replacement_characters),
        T(test_every_short_byte_string_makes_well_formed_xml),
    };
    int rc = cmocka_run_group_tests_name("util/xmltext", tests, NULL, NULL);
    xmlCleanupParser();
    return rc;
}
