/*
 * Unit tests for src/util/html.c html_fmt: the template writer of the web pages. Each
 * directive, NULL arguments, the escaping of every special character (the same bytes as
 * html_text/html_attr), and an unknown directive caught by an assertion.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/html.h"

static void literal_text_as_it_stands(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    html_fmt(&b, "<p class=\"x\">a & b</p>");
    assert_string_equal(b.p, "<p class=\"x\">a & b</p>");
    html_fmt(&b, "");
    assert_string_equal(b.p, "<p class=\"x\">a & b</p>");
    buf_release(&b);
}

static void text_and_attr_escape_like_html_text(void **state)
{
    (void)state;
    const char *nasty = "<script>\"x\" & 'y'</script>";
    struct buf want = BUF_INIT, got = BUF_INIT;
    html_raw(&want, "<a href=\"/i/");
    html_attr(&want, nasty);
    html_raw(&want, "\">");
    html_text(&want, nasty);
    html_raw(&want, "</a>");
    html_fmt(&got, "<a href=\"/i/%a\">%t</a>", nasty, nasty);
    assert_string_equal(got.p, want.p);
    assert_string_equal(got.p, "<a href=\"/i/&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;"
                               "&lt;/script&gt;\">&lt;script&gt;&quot;x&quot; &amp; "
                               "&#39;y&#39;&lt;/script&gt;</a>");
    buf_release(&want);
    buf_release(&got);
}

static void each_special_character(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {{"&", "&amp;"}, {"<", "&lt;"},      {">", "&gt;"}, {"\"", "&quot;"},
                 {"'", "&#39;"}, {"plain", "plain"}, {"", ""},      {"%t", "%t"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct buf b = BUF_INIT;
        html_fmt(&b, "[%t|%a]", cases[i].in, cases[i].in);
        char want[64];
        snprintf(want, sizeof want, "[%s|%s]", cases[i].out, cases[i].out);
        assert_string_equal(b.p, want);
        buf_release(&b);
    }
}

static void null_writes_nothing(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    html_fmt(&b, "a%tb%ac%rd", (const char *)NULL, (const char *)NULL, (const char *)NULL);
    assert_string_equal(b.p, "abcd");
    buf_release(&b);
}

static void raw_is_not_escaped(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    html_fmt(&b, "<ul>%r</ul>", "<li>&amp; \"q\"</li>");
    assert_string_equal(b.p, "<ul><li>&amp; \"q\"</li></ul>");
    buf_release(&b);
}

static void integers_and_percent(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    html_fmt(&b, "%d/%d %lld %lld 100%% %%t", 0, -42, (long long)INT64_MAX, (long long)INT64_MIN);
    assert_string_equal(b.p, "0/-42 9223372036854775807 -9223372036854775808 100% %t");
    buf_release(&b);
}

static void appends_to_what_is_there(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    html_raw(&b, "<ol>");
    html_fmt(&b, "<li id=\"q%lld\">%t · %a</li>", 3LL, "x<y", "a\"b");
    html_fmt(&b, "%r", "</ol>");
    assert_string_equal(b.p, "<ol><li id=\"q3\">x&lt;y · a&quot;b</li></ol>");
    buf_release(&b);
}

/* Runs html_fmt with an unknown directive in a child: it must die of the failed
 * assertion (SIGABRT) in a build with assertions. */
static void unknown_directive_is_caught(void **state)
{
    (void)state;
#ifdef NDEBUG
    skip();
#else
    static const char *const bad[] = {"%s", "%x", "%l", "%ld", "%lx", "trailing %"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            /* the child's own message of the failed assertion is expected: keep it quiet */
            if (!freopen("/dev/null", "w", stderr))
                _exit(3);
            struct buf b = BUF_INIT;
            html_fmt(&b, bad[i], "x");
            _exit(0);
        }
        int st = 0;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFSIGNALED(st));
        assert_int_equal(WTERMSIG(st), SIGABRT);
    }
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(literal_text_as_it_stands),
        cmocka_unit_test(text_and_attr_escape_like_html_text),
        cmocka_unit_test(each_special_character),
        cmocka_unit_test(null_writes_nothing),
        cmocka_unit_test(raw_is_not_escaped),
        cmocka_unit_test(integers_and_percent),
        cmocka_unit_test(appends_to_what_is_there),
        cmocka_unit_test(unknown_directive_is_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
