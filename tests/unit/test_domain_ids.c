/*
 * Unit tests for src/domain/ids.c: entity IDs, slugs and slugs derived from titles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "domain/ids.h"

/* ---- entity_id_is_valid ----------------------------------------------------------- */

static void test_entity_id_charset(void **state)
{
    (void)state;
    assert_true(entity_id_is_valid("a"));
    assert_true(entity_id_is_valid("Z"));
    assert_true(entity_id_is_valid("0"));
    assert_true(entity_id_is_valid("-"));
    assert_true(
        entity_id_is_valid("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:~-"));
    assert_true(entity_id_is_valid("ncaaf:2025:401752677"));
    assert_true(entity_id_is_valid("team.ohio-state_buckeyes~1"));

    /* every other printable ASCII character is refused */
    const char *allowed = "._:~-";
    for (int c = 0x20; c < 0x7f; c++) {
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (alnum || strchr(allowed, c))
            continue;
        char id[4] = {'a', (char)c, 'b', '\0'};
        if (entity_id_is_valid(id))
            fail_msg("entity_id_is_valid accepted \"%s\"", id);
    }
    static const char *const bad[] = {"a/b",  "a%2F", "%",           "/",    "..%2F", "a b",
                                      "a\tb", "a\nb", "caf\xc3\xa9", "\x7f", "a\x01", "\xff"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(entity_id_is_valid(bad[i]));
}

static void test_entity_id_length(void **state)
{
    (void)state;
    char id[400];
    memset(id, 'x', sizeof id);
    id[255] = '\0';
    assert_true(entity_id_is_valid(id));
    id[254] = '\0';
    assert_true(entity_id_is_valid(id));
    id[254] = 'x';
    id[255] = 'x';
    id[256] = '\0';
    assert_false(entity_id_is_valid(id));
    id[256] = 'x';
    id[399] = '\0';
    assert_false(entity_id_is_valid(id));
    assert_int_equal(ENTITY_ID_MAX, 255);
}

static void test_entity_id_empty_null(void **state)
{
    (void)state;
    assert_false(entity_id_is_valid(""));
    assert_false(entity_id_is_valid(NULL));
}

/* ---- slug_is_valid ---------------------------------------------------------------- */

static void test_slug_valid(void **state)
{
    (void)state;
    assert_true(slug_is_valid("a"));
    assert_true(slug_is_valid("0"));
    assert_true(slug_is_valid("pass-interference"));
    assert_true(slug_is_valid("week-1-ohio-state-at-texas-2025"));
    assert_true(slug_is_valid("a-b-c-1-2-3"));
}

static void test_slug_invalid(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",    "-",   "--",  "-a",  "a-",  "a--b",        "-a-",   "Abc", "abC",
        "a_b", "a b", "a.b", "a/b", "a+b", "caf\xc3\xa9", "a---b", "a\n", "\xe2\x80\x94",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (slug_is_valid(bad[i]))
            fail_msg("slug_is_valid accepted \"%s\"", bad[i]);
    assert_false(slug_is_valid(NULL));
}

static void test_slug_length(void **state)
{
    (void)state;
    char s[200];
    memset(s, 'a', sizeof s);
    s[120] = '\0';
    assert_true(slug_is_valid(s));
    s[120] = 'a';
    s[121] = '\0';
    assert_false(slug_is_valid(s));
    /* 120 with dashes in it */
    for (int i = 1; i < 119; i += 2)
        s[i] = '-';
    s[120] = '\0';
    assert_true(slug_is_valid(s));
    assert_int_equal(SLUG_MAX, 120);
}

/* ---- slug_from_title -------------------------------------------------------------- */

static void assert_slug(const char *title, const char *want)
{
    char out[SLUG_MAX + 1];
    memset(out, '#', sizeof out);
    size_t n = slug_from_title(title, out, sizeof out);
    if (strcmp(out, want) != 0)
        fail_msg("slug_from_title(\"%s\") = \"%s\", want \"%s\"", title, out, want);
    assert_int_equal(n, strlen(want));
    if (n > 0)
        assert_true(slug_is_valid(out));
}

static void test_slug_from_title_basic(void **state)
{
    (void)state;
    assert_slug("Pass Interference", "pass-interference");
    assert_slug("pass interference", "pass-interference");
    assert_slug("PASS INTERFERENCE", "pass-interference");
    assert_slug("Week 1: Ohio State at Texas", "week-1-ohio-state-at-texas");
    assert_slug("a", "a");
    assert_slug("42", "42");
    assert_slug("MiXeD CaSe 2025", "mixed-case-2025");
}

static void test_slug_from_title_punctuation(void **state)
{
    (void)state;
    assert_slug("  Leading and trailing  ", "leading-and-trailing");
    assert_slug("--Dashes--everywhere--", "dashes-everywhere");
    assert_slug("Was it a catch?!?", "was-it-a-catch");
    assert_slug("Targeting... or not???", "targeting-or-not");
    assert_slug("4th & 1 -- spot/measurement", "4th-1-spot-measurement");
    assert_slug("O'Neil's \"fumble\"", "o-neil-s-fumble");
    assert_slug("a_b.c:d~e", "a-b-c-d-e");
    assert_slug("tab\tnewline\nend", "tab-newline-end");
    assert_slug("<script>alert(1)</script>", "script-alert-1-script");
    assert_slug("<script></script>", "script-script");
    assert_slug("<b>Bold</b> call", "b-bold-b-call");
}

static void test_slug_from_title_no_alnum(void **state)
{
    (void)state;
    static const char *const titles[] = {
        "", "!!!", "   ", "---", "<>&\"'", "\xe2\x80\x94", "\xc3\xa9\xc3\xa9", "?"};
    for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++) {
        char out[SLUG_MAX + 1];
        memset(out, '#', sizeof out);
        assert_int_equal(slug_from_title(titles[i], out, sizeof out), 0);
        assert_string_equal(out, "");
    }
}

static void test_slug_from_title_non_ascii(void **state)
{
    (void)state;
    assert_slug("Caf\xc3\xa9 call", "caf-call");
    assert_slug("na\xc3\xafve ruling", "na-ve-ruling");
    assert_slug("Touchdown \xf0\x9f\x8f\x88 review", "touchdown-review");
    assert_slug("Penalty \xe2\x80\x94 or not", "penalty-or-not");
    assert_slug("\xc3\x89quipe", "quipe");
    assert_slug("\xe6\x97\xa5\xe6\x9c\xac 2025", "2025");
}

static void test_slug_from_title_truncation(void **state)
{
    (void)state;
    char title[400];
    char want[100];

    /* 16 words of 4 letters: "word-" * 16 = 79 chars without the final dash */
    title[0] = '\0';
    size_t tn = 0;
    for (int i = 0; i < 16; i++)
        tn += (size_t)snprintf(title + tn, sizeof title - tn, "%sword", i ? " " : "");
    assert_slug(title,
                "word-word-word-word-word-word-word-word-word-word-word-word-word-word-word-word");

    /* one more word does not fit: cut at the previous word boundary */
    tn += (size_t)snprintf(title + tn, sizeof title - tn, " more");
    assert_slug(title,
                "word-word-word-word-word-word-word-word-word-word-word-word-word-word-word-word");

    /* exactly 80 characters is kept whole */
    memset(want, 'b', 80);
    want[80] = '\0';
    memset(want, 'a', 39);
    want[39] = '-';
    assert_slug(want, want);
    memcpy(title, want, 81);
    title[39] = ' ';
    assert_slug(title, want);

    /* a word that would end at 81: dropped with its dash */
    memset(title, 'a', 39);
    title[39] = ' ';
    memset(title + 40, 'b', 41);
    title[81] = '\0';
    assert_slug(title, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");

    /* a dash that lands at position 79 cannot be followed by anything: stop before it */
    memset(title, 'c', 79);
    title[79] = ' ';
    title[80] = 'd';
    title[81] = '\0';
    memset(want, 'c', 79);
    want[79] = '\0';
    assert_slug(title, want);

    /* one single word longer than 80: no boundary, cut at 80 */
    memset(title, 'e', 300);
    title[300] = '\0';
    memset(want, 'e', 80);
    want[80] = '\0';
    assert_slug(title, want);

    /* the result never exceeds 80 and never ends with a dash, for many shapes */
    for (int wl = 1; wl <= 20; wl++) {
        size_t n = 0;
        while (n + (size_t)wl + 1 < 300) {
            memset(title + n, 'w', (size_t)wl);
            n += (size_t)wl;
            title[n++] = ' ';
        }
        title[n] = '\0';
        char out[SLUG_MAX + 1];
        size_t got = slug_from_title(title, out, sizeof out);
        assert_true(got <= 80);
        assert_true(got > 80 - (size_t)wl - 1);
        assert_int_equal(strlen(out), got);
        assert_true(slug_is_valid(out));
        assert_int_equal(out[got - 1], 'w');
    }
}

/* A smaller out buffer caps the length too (outlen - 1). */
static void test_slug_from_title_small_buffer(void **state)
{
    (void)state;
    char out[11];
    memset(out, '#', sizeof out);
    size_t n = slug_from_title("alpha beta gamma", out, sizeof out);
    assert_string_equal(out, "alpha-beta");
    assert_int_equal(n, 10);
    n = slug_from_title("alphabetagamma", out, sizeof out);
    assert_string_equal(out, "alphabetag");
    assert_int_equal(n, 10);
    char one[1];
    assert_int_equal(slug_from_title("abc", one, sizeof one), 0);
    assert_int_equal(one[0], '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entity_id_charset),
        cmocka_unit_test(test_entity_id_length),
        cmocka_unit_test(test_entity_id_empty_null),
        cmocka_unit_test(test_slug_valid),
        cmocka_unit_test(test_slug_invalid),
        cmocka_unit_test(test_slug_length),
        cmocka_unit_test(test_slug_from_title_basic),
        cmocka_unit_test(test_slug_from_title_punctuation),
        cmocka_unit_test(test_slug_from_title_no_alnum),
        cmocka_unit_test(test_slug_from_title_non_ascii),
        cmocka_unit_test(test_slug_from_title_truncation),
        cmocka_unit_test(test_slug_from_title_small_buffer),
    };
    return cmocka_run_group_tests_name("domain/ids", tests, NULL, NULL);
}
