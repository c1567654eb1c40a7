/* Comment rules (domain/comment.c): body cleaning and length, the edit window (explicit
 * now), pre-moderation, the report threshold, the word list and display names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "domain/comment.h"

#define SEC INT64_C(1000000)

static const char *clean(const char *in, char *out, size_t n)
{
    return comment_body_clean(in, out, n);
}

static void test_body(void **state)
{
    (void)state;
    char out[16000], big[12000];
    assert_null(clean("  ok\r\nline two \r\n\r\n\r\n\r\n\r\nend  ", out, sizeof out));
    assert_string_equal(out, "ok\nline two \n\n\nend");
    assert_non_null(clean("", out, sizeof out));
    assert_non_null(clean(" \n\t ", out, sizeof out));
    assert_non_null(clean("x", out, sizeof out));
    assert_null(clean("xy", out, sizeof out));
    assert_null(clean("\xc3\xa9\xc3\xa9", out, sizeof out)); /* two characters, four bytes */
    assert_non_null(clean("\xc3\xa9", out, sizeof out));
    assert_non_null(clean("bell\x07", out, sizeof out));
    assert_non_null(clean("del\x7f", out, sizeof out));
    assert_null(clean("tab\tinside", out, sizeof out));
    assert_non_null(clean("bad \xc3\x28 utf8", out, sizeof out));
    assert_non_null(clean("overlong \xc0\xaf", out, sizeof out));
    assert_non_null(clean("surrogate \xed\xa0\x80", out, sizeof out));
    memset(big, 'a', 2000);
    big[2000] = '\0';
    assert_null(clean(big, out, sizeof out));
    big[2000] = 'b';
    big[2001] = '\0';
    assert_non_null(clean(big, out, sizeof out));
    /* 2,000 characters of two bytes each are 2,000 characters */
    for (int i = 0; i < 2000; i++)
        memcpy(big + 2 * i, "\xc3\xa9", 2);
    big[4000] = '\0';
    assert_null(clean(big, out, sizeof out));
    assert_non_null(clean("toolong", out, 4)); /* the buffer must hold the input */
}

static void test_edit_window(void **state)
{
    (void)state;
    int64_t t = INT64_C(1764000000) * SEC;
    assert_true(comment_edit_open(t, t));
    assert_true(comment_edit_open(t, t + 10 * 60 * SEC - 1));
    assert_false(comment_edit_open(t, t + 10 * 60 * SEC));
    assert_false(comment_edit_open(t, t - 1));
}

static void test_hold_and_visibility(void **state)
{
    (void)state;
    assert_int_equal(comment_hold_for(0, false), COMMENT_HOLD_NEW);
    assert_int_equal(comment_hold_for(2, false), COMMENT_HOLD_NEW);
    assert_int_equal(comment_hold_for(3, false), COMMENT_HOLD_NONE);
    assert_int_equal(comment_hold_for(3, true), COMMENT_HOLD_WORDS);
    assert_int_equal(comment_hold_for(0, true), COMMENT_HOLD_WORDS);
    assert_string_equal(comment_hold_name(COMMENT_HOLD_NEW), "new_account");
    assert_string_equal(comment_hold_name(COMMENT_HOLD_WORDS), "word_list");
    assert_null(comment_hold_name(COMMENT_HOLD_NONE));
    assert_true(comment_visible("published", false, false));
    assert_false(comment_visible("published", true, false));
    assert_false(comment_visible("published", false, true));
    assert_false(comment_visible("pending", false, false));
    assert_false(comment_visible("rejected", false, false));
    assert_false(comment_visible("deleted", false, false));
    assert_false(comment_visible(NULL, false, false));
    assert_false(comment_reports_hide(2));
    assert_true(comment_reports_hide(3));
    assert_true(comment_report_reason_ok("off_topic"));
    assert_false(comment_report_reason_ok("boring"));
    assert_false(comment_report_reason_ok(NULL));
    assert_true(account_role_ok("moderator"));
    assert_false(account_role_ok("owner"));
}

static void test_words(void **state)
{
    (void)state;
    const char *words[] = {"frob", "bad call"};
    assert_int_equal(comment_word_match("what a FROB!", words, 2), 0);
    assert_int_equal(comment_word_match("frobnicate", words, 2), -1);
    assert_int_equal(comment_word_match("unfrob", words, 2), -1);
    assert_int_equal(comment_word_match("a Bad Call indeed", words, 2), 1);
    assert_int_equal(comment_word_match("a bad caller", words, 2), -1);
    assert_int_equal(comment_word_match("nothing here", words, 2), -1);
    char w[COMMENT_WORD_MAX * 4 + 1];
    assert_null(comment_word_clean("  Bad Call ", w, sizeof w));
    assert_string_equal(w, "bad call");
    assert_non_null(comment_word_clean("   ", w, sizeof w));
    char long_word[80];
    memset(long_word, 'x', 61);
    long_word[61] = '\0';
    assert_non_null(comment_word_clean(long_word, w, sizeof w));
}

static void test_display_names(void **state)
{
    (void)state;
    const char *teams[] = {"Alabama Crimson Tide", "Bama", "BAL", NULL};
    char out[DISPLAY_NAME_MAX + 1], key[DISPLAY_NAME_MAX + 1];
    assert_null(display_name_check("  Fan_1 O'Neil ", teams, 3, out, key));
    assert_string_equal(out, "Fan_1 O'Neil");
    assert_string_equal(key, "fan1oneil");
    assert_non_null(display_name_check("ab", teams, 3, out, key));
    assert_non_null(display_name_check("a-_", teams, 3, out, key)); /* one letter or digit */
    assert_non_null(display_name_check("abcdefghijklmnopqrstuvwxyz12345", teams, 3, out, key));
    assert_null(display_name_check("abcdefghijklmnopqrstuvwxyz1234", teams, 3, out, key));
    assert_non_null(display_name_check("me@example.org", teams, 3, out, key));
    assert_non_null(display_name_check("The Whistle", teams, 3, out, key));
    assert_non_null(display_name_check("W.h.i.s.t.l.e", teams, 3, out, key));
    assert_non_null(display_name_check("Official Refs", teams, 3, out, key));
    assert_non_null(display_name_check("Moderator", teams, 3, out, key));
    assert_non_null(display_name_check("alabama crimson-tide", teams, 3, out, key));
    assert_non_null(display_name_check("Alabama Crimson Tide HQ", teams, 3, out, key));
    assert_non_null(display_name_check("bama", teams, 3, out, key));
    assert_null(display_name_check("Bama Fan 99", teams, 3, out, key));
    assert_non_null(display_name_check("Bad<b>", teams, 3, out, key));
    assert_non_null(display_name_check("caf\xc3\xa9 fan", teams, 3, out, key));
    assert_non_null(display_name_check("-dash", teams, 3, out, key));
    assert_non_null(display_name_check("two  spaces", teams, 3, out, key));
    assert_non_null(display_name_check(NULL, teams, 3, out, key));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_body),
        cmocka_unit_test(test_edit_window),
        cmocka_unit_test(test_hold_and_visibility),
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_display_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
