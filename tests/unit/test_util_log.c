/*
 * Unit tests for src/util/log.c: one line per call on stderr, the level's floor, control
 * characters escaped (no request can end its own log line and forge another), and a line
 * longer than the buffer cut, never overrun.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/log.h"

/* Runs fn with stderr sent to a temporary file and returns what it wrote (malloc'd). */
static char *captured(void (*fn)(void))
{
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
    fn();
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    off_t size = lseek(fileno(tmp), 0, SEEK_END);
    assert_true(size >= 0);
    char *out = calloc(1, (size_t)size + 1);
    assert_non_null(out);
    assert_true(pread(fileno(tmp), out, (size_t)size, 0) == size);
    fclose(tmp);
    return out;
}

static void two_lines(void)
{
    log_info("access", "GET %s %d", "/x", 200);
    log_error("store", "failed: %s", "disk full");
}

static void test_lines(void **state)
{
    (void)state;
    char *out = captured(two_lines);
    assert_string_equal(out, "info access: GET /x 200\nerror store: failed: disk full\n");
    free(out);
}

static void forged(void)
{
    log_info("access", "GET %s 404", "/x\ninfo access: GET /forged\x1b[31m\x7f");
}

static void test_control_characters_escaped(void **state)
{
    (void)state;
    char *out = captured(forged);
    assert_string_equal(out,
                        "info access: GET /x\\x0ainfo access: GET /forged\\x1b[31m\\x7f 404\n");
    free(out);
}

static void quiet(void)
{
    log_set_level(LOG_WARN);
    log_info("access", "not shown");
    log_warn("store", "shown");
    log_set_level(LOG_INFO);
}

static void test_level_floor(void **state)
{
    (void)state;
    char *out = captured(quiet);
    assert_string_equal(out, "warn store: shown\n");
    free(out);
}

static char long_text[5000];

static void long_line(void)
{
    log_info("access", "%s", long_text);
}

/* 5,000 newlines: the line is cut at the buffer (1,023 bytes before escaping), every kept
 * byte escaped to four, and it still ends with exactly one newline */
static void test_long_line_cut(void **state)
{
    (void)state;
    memset(long_text, '\n', sizeof long_text - 1);
    char *out = captured(long_line);
    size_t len = strlen(out);
    const char *head = "info access: ";
    assert_memory_equal(out, head, strlen(head));
    assert_int_equal(len, strlen(head) + 4 * (1023 - strlen(head)) + 1);
    assert_int_equal(out[len - 1], '\n');
    assert_null(memchr(out, '\n', len - 1));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_control_characters_escaped),
        cmocka_unit_test(test_level_floor),
        cmocka_unit_test(test_long_line_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
