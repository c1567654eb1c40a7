/*
 * Unit tests for src/util/jsonw.c: the streaming JSON writer (escaping, comma handling,
 * numbers, times) used by every response body.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/jsonw.h"

/* Each test writes into one buffer; the teardown frees it even when an assertion fails. */
static int setup_buf(void **state)
{
    struct buf *b = malloc(sizeof *b);
    if (!b)
        return -1;
    *b = (struct buf)BUF_INIT;
    *state = b;
    return 0;
}

static int teardown_buf(void **state)
{
    struct buf *b = *state;
    buf_release(b);
    free(b);
    return 0;
}

/* The JSON literal json_escape_into() makes of the n bytes at s. */
static const char *escaped(struct buf *b, const char *s, size_t n)
{
    buf_reset(b);
    json_escape_into(b, s, n);
    assert_int_equal(b->len, strlen(b->p));
    return b->p;
}

#define ESC(b, lit) escaped((b), (lit), sizeof(lit) - 1)

/* ---- escaping --------------------------------------------------------------------- */

static void test_escape_plain(void **state)
{
    struct buf *b = *state;
    assert_string_equal(ESC(b, ""), "\"\"");
    assert_string_equal(ESC(b, "abc"), "\"abc\"");
    assert_string_equal(ESC(b, "a/b's {x}: [1]"), "\"a/b's {x}: [1]\"");
    assert_string_equal(ESC(b, "\x7f"), "\"\x7f\"");
}

static void test_escape_quote_backslash(void **state)
{
    struct buf *b = *state;
    assert_string_equal(ESC(b, "\""), "\"\\\"\"");
    assert_string_equal(ESC(b, "\\"), "\"\\\\\"");
    assert_string_equal(ESC(b, "say \"hi\"\\n"), "\"say \\\"hi\\\"\\\\n\"");
    assert_string_equal(ESC(b, "\\\""), "\"\\\\\\\"\"");
}

static void test_escape_control(void **state)
{
    struct buf *b = *state;
    assert_string_equal(ESC(b, "\n"), "\"\\n\"");
    assert_string_equal(ESC(b, "\t"), "\"\\t\"");
    assert_string_equal(ESC(b, "\r"), "\"\\r\"");
    assert_string_equal(ESC(b, "\x01"), "\"\\u0001\"");
    assert_string_equal(ESC(b, "\b"), "\"\\u0008\"");
    assert_string_equal(ESC(b, "\f"), "\"\\u000c\"");
    assert_string_equal(ESC(b, "\x1f"), "\"\\u001f\"");
    assert_string_equal(ESC(b, "\x10"), "\"\\u0010\"");
    assert_string_equal(ESC(b, "a\nb\tc\x01"
                               "d"),
                        "\"a\\nb\\tc\\u0001d\"");
    /* every control character comes out escaped, never raw */
    for (int c = 1; c < 0x20; c++) {
        char in = (char)c;
        buf_reset(b);
        json_escape_into(b, &in, 1);
        assert_true(b->len >= 4);
        assert_int_equal(b->p[1], '\\');
        for (size_t i = 0; i < b->len; i++)
            assert_true((unsigned char)b->p[i] >= 0x20);
    }
    /* an embedded NUL (jw_strn with explicit length) */
    assert_string_equal(ESC(b, "a\0b"), "\"a\\u0000b\"");
}

static void test_escape_html_sensitive(void **state)
{
    struct buf *b = *state;
    assert_string_equal(ESC(b, "<"), "\"\\u003c\"");
    assert_string_equal(ESC(b, ">"), "\"\\u003e\"");
    assert_string_equal(ESC(b, "&"), "\"\\u0026\"");
    assert_string_equal(
        ESC(b, "</script><script>alert(1)</script>"),
        "\"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\"");
    assert_string_equal(ESC(b, "a&amp;b"), "\"a\\u0026amp;b\"");
    assert_string_equal(ESC(b, "<!--"), "\"\\u003c!--\"");
}

static void test_escape_line_separators(void **state)
{
    struct buf *b = *state;
    assert_string_equal(ESC(b, "\xe2\x80\xa8"), "\"\\u2028\"");
    assert_string_equal(ESC(b, "\xe2\x80\xa9"), "\"\\u2029\"");
    assert_string_equal(ESC(b, "a\xe2\x80\xa8z\xe2\x80\xa9"), "\"a\\u2028z\\u2029\"");
    /* neighbours in the same block pass through: U+2026 ellipsis, U+20AC euro, U+2027 */
    assert_string_equal(ESC(b, "\xe2\x80\xa6"), "\"\xe2\x80\xa6\"");
    assert_string_equal(ESC(b, "\xe2\x82\xac"), "\"\xe2\x82\xac\"");
    assert_string_equal(ESC(b, "\xe2\x80\xa7"), "\"\xe2\x80\xa7\"");
    assert_string_equal(ESC(b, "\xe2\x80\xaa"), "\"\xe2\x80\xaa\"");
    /* the length bounds the look-ahead: a U+2028 cut after two bytes is not read past n */
    const char cut[] = "\xe2\x80\xa8";
    buf_reset(b);
    json_escape_into(b, cut, 2);
    assert_string_equal(b->p, "\"\xe2\x80\"");
    buf_reset(b);
    json_escape_into(b, cut, 1);
    assert_string_equal(b->p, "\"\xe2\"");
}

static void test_escape_utf8_passthrough(void **state)
{
    struct buf *b = *state;
    assert_string_equal(ESC(b, "caf\xc3\xa9"), "\"caf\xc3\xa9\"");
    assert_string_equal(ESC(b, "\xe6\x97\xa5\xe6\x9c\xac"), "\"\xe6\x97\xa5\xe6\x9c\xac\"");
    assert_string_equal(ESC(b, "\xf0\x9f\x8f\x88 td"), "\"\xf0\x9f\x8f\x88 td\"");
    assert_string_equal(ESC(b, "\xc2\xa0<\xc3\xa9>"), "\"\xc2\xa0\\u003c\xc3\xa9\\u003e\"");
}

static void test_escape_long_input_grows(void **state)
{
    struct buf *b = *state;
    enum { N = 10000 };
    char *in = malloc(N);
    assert_non_null(in);
    for (size_t i = 0; i < N; i++)
        in[i] = (i % 2) ? '"' : 'x';
    buf_reset(b);
    json_escape_into(b, in, N);
    free(in);
    assert_int_equal(b->len, 2 + N / 2 + N / 2 * 2);
    assert_int_equal(strlen(b->p), b->len);
    assert_memory_equal(b->p, "\"x\\\"x\\\"", 7);
    assert_int_equal(b->p[b->len - 1], '"');
    assert_int_equal(b->p[b->len - 2], '"');
    assert_int_equal(b->p[b->len - 3], '\\');
}

/* Appends to a non-empty buffer without disturbing what is there. */
static void test_escape_appends(void **state)
{
    struct buf *b = *state;
    buf_reset(b);
    buf_puts(b, "prefix:");
    json_escape_into(b, "<a>", 3);
    assert_string_equal(b->p, "prefix:\"\\u003ca\\u003e\"");
}

/* ---- scalar writers --------------------------------------------------------------- */

static void test_scalars_in_array(void **state)
{
    struct buf *b = *state;
    struct jw w;
    jw_init(&w, b);
    jw_arr_begin(&w);
    jw_int(&w, 0);
    jw_int(&w, -1);
    jw_int(&w, INT64_MAX);
    jw_int(&w, INT64_MIN + 1);
    jw_int(&w, JW_NULL_INT);
    jw_bool(&w, true);
    jw_bool(&w, false);
    jw_null(&w);
    jw_str(&w, NULL);
    jw_str(&w, "");
    jw_strn(&w, "abcdef", 3);
    jw_tristate(&w, -1);
    jw_tristate(&w, -100);
    jw_tristate(&w, 0);
    jw_tristate(&w, 1);
    jw_tristate(&w, 42);
    jw_raw(&w, "{\"k\":[1]}");
    jw_arr_end(&w);
    assert_string_equal(b->p, "[0,-1,9223372036854775807,-9223372036854775807,null,true,false,"
                              "null,null,\"\",\"abc\",null,null,false,true,true,{\"k\":[1]}]");
}

static void test_time_values(void **state)
{
    struct buf *b = *state;
    struct jw w;
    jw_init(&w, b);
    jw_arr_begin(&w);
    jw_time(&w, 0);
    jw_time(&w, INT64_C(1764435600000000));
    jw_time(&w, INT64_C(1764435600000000) + 250000);
    jw_time(&w, -1);
    jw_time(&w, JW_NULL_INT);
    jw_arr_end(&w);
    assert_string_equal(b->p, "[\"1970-01-01T00:00:00Z\",\"2025-11-29T17:00:00Z\","
                              "\"2025-11-29T17:00:00.250000Z\",\"1969-12-31T23:59:59.999999Z\","
                              "null]");
}

static const char *number1(struct buf *b, double v)
{
    struct jw w;
    buf_reset(b);
    jw_init(&w, b);
    jw_number1(&w, v);
    return b->p;
}

static void test_number1_rounding(void **state)
{
    struct buf *b = *state;
    assert_string_equal(number1(b, 63.636), "63.6");
    assert_string_equal(number1(b, 9.09), "9.1");
    assert_string_equal(number1(b, 100), "100");
    assert_string_equal(number1(b, 0), "0");
    assert_string_equal(number1(b, 33.35), "33.4");
    assert_string_equal(number1(b, 33.34), "33.3");
    assert_string_equal(number1(b, 100.0 / 3), "33.3");
    assert_string_equal(number1(b, 200.0 / 3), "66.7");
    assert_string_equal(number1(b, 12.5), "12.5");
    assert_string_equal(number1(b, 12.0), "12");
    assert_string_equal(number1(b, 99.94), "99.9");
    assert_string_equal(number1(b, 99.95), "100");
    assert_string_equal(number1(b, 99.99), "100");
    assert_string_equal(number1(b, 0.04), "0");
    assert_string_equal(number1(b, 0.05), "0.1");
    assert_string_equal(number1(b, 0.96), "1");
    assert_string_equal(number1(b, 1e-12), "0");
    assert_string_equal(number1(b, 45.45), "45.5");
    assert_string_equal(number1(b, 18.18), "18.2");
    assert_string_equal(number1(b, 7.0 / 11 * 100), "63.6");
    assert_string_equal(number1(b, 1.0 / 11 * 100), "9.1");
}

static void test_number1_not_finite(void **state)
{
    struct buf *b = *state;
    assert_string_equal(number1(b, NAN), "0");
    assert_string_equal(number1(b, INFINITY), "0");
    assert_string_equal(number1(b, -INFINITY), "0");
}

static void test_number1_negative(void **state)
{
    struct buf *b = *state;
    assert_string_equal(number1(b, -12.34), "-12.3");
    assert_string_equal(number1(b, -1.0), "-1");
    assert_string_equal(number1(b, -0.04), "0");
    assert_string_equal(number1(b, -1.25), "-1.3");
    /* between -1 and 0 the sign must survive (tenths / 10 is 0 there) */
    assert_string_equal(number1(b, -0.5), "-0.5");
    assert_string_equal(number1(b, -0.06), "-0.1");
}

/*
 * Values whose tenths do not fit a long long. The writer must still produce a JSON
 * number of that value; it runs in a child process because the arithmetic may be undefined
 * behaviour that the sanitizer build turns into an abort.
 */
static bool is_json_number(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return false;
    if (*s == '.') {
        s++;
        if (!(*s >= '0' && *s <= '9'))
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

static void test_number1_huge_is_valid_json(void **state)
{
    (void)state;
    static const double huge[] = {1e18, -1e18, 1e300, -1e300};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            struct buf cb = BUF_INIT;
            struct jw w;
            close(fds[0]);
            jw_init(&w, &cb);
            jw_number1(&w, huge[i]);
            ssize_t wr = write(fds[1], cb.p, cb.len);
            _exit(wr == (ssize_t)cb.len ? 0 : 3);
        }
        close(fds[1]);
        char out[128] = "";
        size_t n = 0;
        ssize_t r;
        while ((r = read(fds[0], out + n, sizeof out - 1 - n)) > 0)
            n += (size_t)r;
        out[n] = '\0';
        close(fds[0]);
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fail_msg("jw_number1(%g) crashed the writer (status 0x%x)", huge[i], status);
        if (!is_json_number(out))
            fail_msg("jw_number1(%g) wrote \"%s\", not a JSON number", huge[i], out);
        double back = strtod(out, NULL);
        if (!(fabs(back - huge[i]) <= fabs(huge[i]) * 1e-9))
            fail_msg("jw_number1(%g) wrote \"%s\"", huge[i], out);
    }
}

/* ---- structure and commas --------------------------------------------------------- */

static void test_empty_containers(void **state)
{
    struct buf *b = *state;
    struct jw w;
    jw_init(&w, b);
    jw_obj_begin(&w);
    jw_obj_end(&w);
    assert_string_equal(b->p, "{}");

    buf_reset(b);
    jw_init(&w, b);
    jw_arr_begin(&w);
    jw_arr_end(&w);
    assert_string_equal(b->p, "[]");

    buf_reset(b);
    jw_init(&w, b);
    jw_obj_begin(&w);
    jw_key(&w, "a");
    jw_arr_begin(&w);
    jw_arr_end(&w);
    jw_key(&w, "b");
    jw_obj_begin(&w);
    jw_obj_end(&w);
    jw_key(&w, "c");
    jw_arr_begin(&w);
    jw_arr_begin(&w);
    jw_arr_end(&w);
    jw_arr_begin(&w);
    jw_int(&w, 1);
    jw_arr_end(&w);
    jw_arr_begin(&w);
    jw_int(&w, 1);
    jw_int(&w, 2);
    jw_arr_end(&w);
    jw_arr_end(&w);
    jw_obj_end(&w);
    assert_string_equal(b->p, "{\"a\":[],\"b\":{},\"c\":[[],[1],[1,2]]}");
}

static void test_keys_are_escaped(void **state)
{
    struct buf *b = *state;
    struct jw w;
    jw_init(&w, b);
    jw_obj_begin(&w);
    jw_key(&w, "a\"b");
    jw_int(&w, 1);
    jw_key(&w, "<k>");
    jw_str(&w, "v");
    jw_obj_end(&w);
    assert_string_equal(b->p, "{\"a\\\"b\":1,\"\\u003ck\\u003e\":\"v\"}");
}

static void test_nested_document(void **state)
{
    struct buf *b = *state;
    struct jw w;
    jw_init(&w, b);
    jw_obj_begin(&w);
    jw_key(&w, "id");
    jw_str(&w, "abc");
    jw_key(&w, "n");
    jw_int(&w, 1);
    jw_key(&w, "neg");
    jw_int(&w, -5);
    jw_key(&w, "nil");
    jw_int(&w, JW_NULL_INT);
    jw_key(&w, "flags");
    jw_arr_begin(&w);
    jw_tristate(&w, -1);
    jw_tristate(&w, 0);
    jw_tristate(&w, 1);
    jw_bool(&w, false);
    jw_arr_end(&w);
    jw_key(&w, "percentages");
    jw_obj_begin(&w);
    jw_key(&w, "correct");
    jw_number1(&w, 63.636);
    jw_key(&w, "incorrect");
    jw_number1(&w, 9.09);
    jw_key(&w, "unsure");
    jw_number1(&w, 27.27);
    jw_obj_end(&w);
    jw_key(&w, "when");
    jw_time(&w, INT64_C(1764435600000000));
    jw_key(&w, "never");
    jw_time(&w, JW_NULL_INT);
    jw_key(&w, "list");
    jw_arr_begin(&w);
    jw_obj_begin(&w);
    jw_key(&w, "a");
    jw_int(&w, 1);
    jw_obj_end(&w);
    jw_obj_begin(&w);
    jw_key(&w, "b");
    jw_arr_begin(&w);
    jw_int(&w, 1);
    jw_int(&w, 2);
    jw_obj_begin(&w);
    jw_key(&w, "c");
    jw_str(&w, "d");
    jw_key(&w, "e");
    jw_null(&w);
    jw_obj_end(&w);
    jw_arr_end(&w);
    jw_key(&w, "f");
    jw_str(&w, NULL);
    jw_obj_end(&w);
    jw_arr_begin(&w);
    jw_arr_end(&w);
    jw_obj_begin(&w);
    jw_obj_end(&w);
    jw_arr_end(&w);
    jw_key(&w, "raw");
    jw_raw(&w, "{\"x\":[1,2]}");
    jw_key(&w, "last");
    jw_str(&w, "<&>\n");
    jw_obj_end(&w);
    assert_string_equal(b->p,
                        "{\"id\":\"abc\",\"n\":1,\"neg\":-5,\"nil\":null,"
                        "\"flags\":[null,false,true,false],"
                        "\"percentages\":{\"correct\":63.6,\"incorrect\":9.1,\"unsure\":27.3},"
                        "\"when\":\"2025-11-29T17:00:00Z\",\"never\":null,"
                        "\"list\":[{\"a\":1},{\"b\":[1,2,{\"c\":\"d\",\"e\":null}],\"f\":null},"
                        "[],{}],"
                        "\"raw\":{\"x\":[1,2]},"
                        "\"last\":\"\\u003c\\u0026\\u003e\\n\"}");
    assert_int_equal(w.depth, 0);
}

/* Nesting up to the documented limit keeps commas right at every level. */
static void test_deep_nesting(void **state)
{
    struct buf *b = *state;
    struct buf want = BUF_INIT;
    struct jw w;
    const int levels = JW_MAX_DEPTH - 1;
    jw_init(&w, b);
    for (int i = 0; i < levels; i++) {
        jw_arr_begin(&w);
        jw_int(&w, i);
        buf_printf(&want, "[%d,", i);
    }
    jw_str(&w, "core");
    buf_puts(&want, "\"core\"");
    for (int i = 0; i < levels; i++) {
        jw_arr_end(&w);
        jw_int(&w, i);
        buf_printf(&want, "],%d", i);
    }
    assert_string_equal(b->p, want.p);
    buf_release(&want);
}

/* The writer keeps working across buffer growth (a long list of members). */
static void test_many_members(void **state)
{
    struct buf *b = *state;
    struct buf want = BUF_INIT;
    struct jw w;
    jw_init(&w, b);
    jw_obj_begin(&w);
    buf_putc(&want, '{');
    for (int i = 0; i < 2000; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        jw_key(&w, key);
        jw_int(&w, i * 7);
        buf_printf(&want, "%s\"k%d\":%d", i ? "," : "", i, i * 7);
    }
    jw_obj_end(&w);
    buf_putc(&want, '}');
    assert_string_equal(b->p, want.p);
    assert_int_equal(b->len, want.len);
    buf_release(&want);
}

/* jw_fmt writes the bytes of the jw_k* calls it stands for: every kind, with and without a
 * value (NULL string and JSON text, JW_NULL_INT integer and time), both booleans, a nested
 * object member, members after others in an open object and a record as an array element. */
static void test_fmt_same_as_members(void **state)
{
    struct buf *b = *state;
    struct buf want = BUF_INIT;
    struct jw w, v;
    jw_init(&w, b);
    jw_init(&v, &want);
    const char *volatile none = NULL; /* a NULL the compiler cannot see: printf forbids one */

    jw_obj_begin(&w);
    jw_kstr(&w, "before", "x");
    jw_fmt(&w,
           "s:%s snull:%s j:%sJ jnull:%sJ i:%ld ineg:%ld inull:%ld t:%ldT tnull:%ldT yes:%dB "
           "no:%dB inner:{a_1:%s B2:%ld} last:%s",
           "a\"<b", none, "[1,{\"k\":2}]", none, (int64_t)42, (int64_t)-7, JW_NULL_INT,
           (int64_t)1700000000123456, JW_NULL_INT, true, 0, "in", (int64_t)0, "end");
    jw_key(&w, "list");
    jw_arr_begin(&w);
    jw_fmt(&w, "{id:%s n:%ld}", "r1", (int64_t)1);
    jw_fmt(&w, "{id:%s n:%ld}", "r2", (int64_t)2);
    jw_fmt(&w, "{}");
    jw_arr_end(&w);
    jw_obj_end(&w);

    jw_obj_begin(&v);
    jw_kstr(&v, "before", "x");
    jw_kstr(&v, "s", "a\"<b");
    jw_kstr(&v, "snull", NULL);
    jw_kraw(&v, "j", "[1,{\"k\":2}]", "null");
    jw_kraw(&v, "jnull", NULL, "null");
    jw_kint(&v, "i", 42);
    jw_kint(&v, "ineg", -7);
    jw_kint(&v, "inull", JW_NULL_INT);
    jw_ktime(&v, "t", 1700000000123456);
    jw_ktime(&v, "tnull", JW_NULL_INT);
    jw_kbool(&v, "yes", true);
    jw_kbool(&v, "no", false);
    jw_key(&v, "inner");
    jw_obj_begin(&v);
    jw_kstr(&v, "a_1", "in");
    jw_kint(&v, "B2", 0);
    jw_obj_end(&v);
    jw_kstr(&v, "last", "end");
    jw_key(&v, "list");
    jw_arr_begin(&v);
    for (int i = 1; i <= 2; i++) {
        jw_obj_begin(&v);
        jw_kstr(&v, "id", i == 1 ? "r1" : "r2");
        jw_kint(&v, "n", i);
        jw_obj_end(&v);
    }
    jw_obj_begin(&v);
    jw_obj_end(&v);
    jw_arr_end(&v);
    jw_obj_end(&v);

    assert_string_equal(b->p, want.p);
    assert_string_equal(b->p, "{\"before\":\"x\",\"s\":\"a\\\"\\u003cb\",\"snull\":null,"
                              "\"j\":[1,{\"k\":2}],\"jnull\":null,\"i\":42,\"ineg\":-7,"
                              "\"inull\":null,\"t\":\"2023-11-14T22:13:20.123456Z\","
                              "\"tnull\":null,\"yes\":true,\"no\":false,"
                              "\"inner\":{\"a_1\":\"in\",\"B2\":0},\"last\":\"end\","
                              "\"list\":[{\"id\":\"r1\",\"n\":1},{\"id\":\"r2\",\"n\":2},{}]}");
    buf_release(&want);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup_buf, teardown_buf)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_escape_plain),
        T(test_escape_quote_backslash),
        T(test_escape_control),
        T(test_escape_html_sensitive),
        T(test_escape_line_separators),
        T(test_escape_utf8_passthrough),
        T(test_escape_long_input_grows),
        T(test_escape_appends),
        T(test_scalars_in_array),
        T(test_time_values),
        T(test_number1_rounding),
        T(test_number1_not_finite),
        T(test_number1_negative),
        T(test_number1_huge_is_valid_json),
        T(test_empty_containers),
        T(test_keys_are_escaped),
        T(test_nested_document),
        T(test_deep_nesting),
        T(test_many_members),
        T(test_fmt_same_as_members),
    };
    return cmocka_run_group_tests_name("util/jsonw", tests, NULL, NULL);
}
