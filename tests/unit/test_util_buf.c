/*
 * Unit tests for src/util/buf.c: the growable, always NUL-terminated byte buffer, its
 * never-NULL empty state (the slop) and its cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/buf.h"

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

static void assert_invariants(const struct buf *b)
{
    assert_non_null(b->p);
    assert_true(b->alloc > b->len);
    assert_int_equal(b->p[b->len], '\0');
}

/* Empty is "", never NULL: the shared slop, which nothing writes to. */
static void assert_slop(const struct buf *b)
{
    assert_ptr_equal(b->p, buf_slop);
    assert_string_equal(b->p, "");
    assert_int_equal(b->len, 0);
    assert_int_equal(b->alloc, 0);
    assert_int_equal(buf_slop[0], '\0');
}

static void test_init_is_empty(void **state)
{
    struct buf *b = *state;
    assert_slop(b);
    assert_false(buf_overflowed(b));
    assert_int_equal(strlen(b->p), 0); /* usable as a string without a NULL check */
    buf_reset(b);                      /* fine on a buffer that never allocated */
    assert_slop(b);
    buf_append(b, "", 0); /* appending nothing allocates nothing */
    buf_puts(b, "");
    assert_slop(b);
    buf_release(b);
    assert_slop(b);
    struct buf local = BUF_INIT;
    assert_slop(&local);
}

static void test_append_puts_putc(void **state)
{
    struct buf *b = *state;
    buf_puts(b, "abc");
    assert_invariants(b);
    assert_string_equal(b->p, "abc");
    assert_int_equal(b->len, 3);
    buf_putc(b, '-');
    buf_append(b, "xyz123", 3);
    buf_puts(b, "");
    buf_append(b, "", 0);
    assert_string_equal(b->p, "abc-xyz");
    assert_int_equal(b->len, 7);
    /* binary data with NUL bytes */
    buf_append(b, "\0\1\2", 3);
    assert_int_equal(b->len, 10);
    assert_memory_equal(b->p, "abc-xyz\0\1\2", 11);
    assert_invariants(b);
}

static void test_putc_growth(void **state)
{
    struct buf *b = *state;
    for (int i = 0; i < 5000; i++) {
        buf_putc(b, (char)('a' + i % 26));
        assert_invariants(b);
    }
    assert_int_equal(b->len, 5000);
    for (int i = 0; i < 5000; i++)
        assert_int_equal(b->p[i], 'a' + i % 26);
}

static void test_append_large_block(void **state)
{
    struct buf *b = *state;
    enum { N = 100000 };
    char *block = malloc(N);
    assert_non_null(block);
    memset(block, 'q', N);
    buf_puts(b, "<");
    buf_append(b, block, N);
    buf_puts(b, ">");
    free(block);
    assert_invariants(b);
    assert_int_equal(b->len, N + 2);
    assert_int_equal(b->p[0], '<');
    assert_int_equal(b->p[N], 'q');
    assert_int_equal(b->p[N + 1], '>');
}

static void test_printf_small(void **state)
{
    struct buf *b = *state;
    buf_printf(b, "%d-%s-%c-%05.1f", 42, "x", 'y', 3.14159);
    assert_string_equal(b->p, "42-x-y-003.1");
    assert_int_equal(b->len, 12);
    buf_printf(b, "%s", "");
    assert_int_equal(b->len, 12);
    buf_printf(b, "|%lld", (long long)INT64_MIN);
    assert_string_equal(b->p, "42-x-y-003.1|-9223372036854775808");
    assert_invariants(b);
}

/* One printf larger than the initial capacity, and larger than what is left. */
static void test_printf_grows_past_capacity(void **state)
{
    struct buf *b = *state;
    char big[3000];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    buf_puts(b, "head:");
    size_t cap0 = b->alloc;
    buf_printf(b, "[%s]", big);
    assert_invariants(b);
    assert_true(b->alloc > cap0);
    assert_int_equal(b->len, 5 + 1 + 2999 + 1);
    assert_memory_equal(b->p, "head:[zzz", 9);
    assert_int_equal(b->p[b->len - 1], ']');
    assert_int_equal(b->p[b->len - 2], 'z');
    assert_int_equal(strlen(b->p), b->len);
}

/* Output lengths right around the space that is left: n - 1, n, n + 1. */
static void test_printf_exact_fit_boundaries(void **state)
{
    struct buf *b = *state;
    for (size_t pre = 180; pre < 260; pre++) {
        for (int extra = 60; extra < 80; extra++) {
            buf_release(b);
            char fill[300];
            memset(fill, 'f', pre);
            buf_append(b, fill, pre);
            char arg[100];
            memset(arg, 'a', (size_t)extra);
            arg[extra] = '\0';
            buf_printf(b, "%s!", arg);
            assert_invariants(b);
            assert_int_equal(b->len, pre + (size_t)extra + 1);
            assert_int_equal(strlen(b->p), b->len);
            assert_int_equal(b->p[pre], 'a');
            assert_int_equal(b->p[b->len - 1], '!');
        }
    }
}

static void test_printf_many(void **state)
{
    struct buf *b = *state;
    size_t want = 0;
    for (int i = 0; i < 10000; i++) {
        buf_printf(b, "%d,", i);
        char tmp[16];
        want += (size_t)snprintf(tmp, sizeof tmp, "%d,", i);
    }
    assert_int_equal(b->len, want);
    assert_int_equal(strlen(b->p), want);
    assert_memory_equal(b->p, "0,1,2,3,", 8);
    assert_memory_equal(b->p + want - 5, "9999,", 5);
}

static void vprintf_wrapper(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void vprintf_wrapper(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

static void test_vprintf(void **state)
{
    struct buf *b = *state;
    char big[700];
    memset(big, 'v', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    vprintf_wrapper(b, "%s/%s", big, big); /* forces the second vsnprintf pass */
    assert_int_equal(b->len, 699 * 2 + 1);
    assert_int_equal(b->p[699], '/');
    assert_invariants(b);
}

static void test_reset_keeps_storage(void **state)
{
    struct buf *b = *state;
    buf_puts(b, "something long enough");
    char *p = b->p;
    size_t cap = b->alloc;
    buf_reset(b);
    assert_ptr_equal(b->p, p);
    assert_int_equal(b->alloc, cap);
    assert_int_equal(b->len, 0);
    assert_string_equal(b->p, "");
    buf_puts(b, "again");
    assert_string_equal(b->p, "again");
}

static void test_release_resets(void **state)
{
    struct buf *b = *state;
    buf_puts(b, "data");
    buf_release(b);
    assert_slop(b);
    buf_puts(b, "reuse");
    assert_string_equal(b->p, "reuse");
}

static void test_detach(void **state)
{
    struct buf *b = *state;
    buf_printf(b, "body %d", 7);
    size_t len = 0;
    char *p = buf_detach(b, &len);
    assert_string_equal(p, "body 7");
    assert_int_equal(len, 6);
    assert_slop(b);
    free(p);

    buf_puts(b, "x");
    p = buf_detach(b, NULL);
    assert_string_equal(p, "x");
    free(p);
}

/* "always NUL-terminated after buf_* calls": an empty buffer detaches as "", not as
 * uninitialised storage. */
static void test_detach_empty_is_terminated(void **state)
{
    struct buf *b = *state;
    /* leave a dirty block of the size buf_grow asks for, so stale bytes would show */
    char *dirty = malloc(256);
    assert_non_null(dirty);
    memset(dirty, 'D', 256);
    free(dirty);

    size_t len = 99;
    char *p = buf_detach(b, &len);
    assert_non_null(p);
    assert_int_equal(len, 0);
    int first = (unsigned char)p[0];
    free(p);
    assert_int_equal(first, 0);
    assert_slop(b);
}

/* ---- the cap ---------------------------------------------------------------------- */

static void test_cap_refuses_what_does_not_fit(void **state)
{
    (void)state;
    struct buf b = BUF_INIT_MAX(8);
    buf_puts(&b, "abcd");
    buf_putc(&b, 'e');
    buf_append(&b, "fgh", 3); /* exactly the cap */
    assert_false(buf_overflowed(&b));
    assert_string_equal(b.p, "abcdefgh");
    assert_int_equal(b.len, 8);
    buf_append(&b, "", 0); /* nothing never overflows */
    assert_false(buf_overflowed(&b));
    buf_putc(&b, 'i');
    assert_true(buf_overflowed(&b));
    assert_string_equal(b.p, "abcdefgh"); /* unchanged, terminated */
    assert_invariants(&b);
    buf_release(&b);
    assert_false(buf_overflowed(&b));
    assert_int_equal(b.max, 8); /* the cap stays */
    assert_slop(&b);
}

/* An append that does not fit is not made at all (never half of it), and nothing after an
 * overflow is appended either, even a piece that would fit: the content has no hole. */
static void test_cap_all_or_nothing(void **state)
{
    (void)state;
    struct buf b = BUF_INIT_MAX(10);
    buf_puts(&b, "12345");
    buf_puts(&b, "678901"); /* 11 > 10 */
    assert_true(buf_overflowed(&b));
    assert_string_equal(b.p, "12345");
    buf_puts(&b, "6"); /* would fit, but the buffer already lost a piece */
    buf_printf(&b, "%d", 7);
    buf_put_urlencoded(&b, "x");
    assert_string_equal(b.p, "12345");
    assert_true(buf_overflowed(&b));
    buf_reset(&b);
    assert_false(buf_overflowed(&b));
    buf_put_urlencoded(&b, "a b c"); /* a%20b%20c: 9 */
    assert_false(buf_overflowed(&b));
    buf_put_urlencoded(&b, " "); /* %20 would make 12 */
    assert_true(buf_overflowed(&b));
    assert_string_equal(b.p, "a%20b%20c");
    buf_release(&b);
}

static void test_cap_printf(void **state)
{
    (void)state;
    struct buf b = BUF_INIT_MAX(300);
    char big[400];
    memset(big, 'p', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    buf_printf(&b, "%.290s", big);
    assert_false(buf_overflowed(&b));
    assert_int_equal(b.len, 290);
    buf_printf(&b, "%s", "0123456789"); /* exactly 300 */
    assert_false(buf_overflowed(&b));
    assert_int_equal(b.len, 300);
    buf_printf(&b, "%c", '!');
    assert_true(buf_overflowed(&b));
    assert_int_equal(b.len, 300);
    assert_int_equal(strlen(b.p), 300);
    assert_invariants(&b);
    buf_release(&b);

    /* a printf whose output alone is past the cap leaves the buffer as it was */
    struct buf c = BUF_INIT_MAX(16);
    buf_puts(&c, "ok");
    buf_printf(&c, "%s", big);
    assert_true(buf_overflowed(&c));
    assert_string_equal(c.p, "ok");
    buf_release(&c);
}

/* buf_setlen after a direct write into reserved space (the JSON writer's path) obeys the
 * cap the same way. */
static void test_cap_setlen(void **state)
{
    (void)state;
    struct buf b = BUF_INIT_MAX(4);
    buf_puts(&b, "ab");
    buf_grow(&b, 8);
    memcpy(b.p + b.len, "cdef", 4);
    buf_setlen(&b, 6);
    assert_true(buf_overflowed(&b));
    assert_string_equal(b.p, "ab");
    buf_reset(&b);
    buf_grow(&b, 8);
    memcpy(b.p, "wxyz", 4);
    buf_setlen(&b, 4);
    assert_false(buf_overflowed(&b));
    assert_string_equal(b.p, "wxyz");
    buf_setlen(&b, 2); /* shortening is always allowed */
    assert_string_equal(b.p, "wx");
    buf_release(&b);
}

static void test_detach_keeps_cap(void **state)
{
    (void)state;
    struct buf b = BUF_INIT_MAX(3);
    buf_puts(&b, "abcd");
    assert_true(buf_overflowed(&b));
    char *p = buf_detach(&b, NULL);
    assert_string_equal(p, "");
    free(p);
    assert_false(buf_overflowed(&b));
    assert_int_equal(b.max, 3);
    buf_puts(&b, "abc");
    assert_string_equal(b.p, "abc");
    buf_release(&b);
}

static void test_urlencoded(void **state)
{
    struct buf *b = *state;
    buf_put_urlencoded(b, "AZaz09-._~");
    assert_string_equal(b->p, "AZaz09-._~");
    buf_reset(b);
    buf_put_urlencoded(b, "a b/c?d=e&f#g%h+i");
    assert_string_equal(b->p, "a%20b%2Fc%3Fd%3De%26f%23g%25h%2Bi");
    buf_reset(b);
    buf_put_urlencoded(b, "caf\xc3\xa9 \xf0\x9f\x8f\x88");
    assert_string_equal(b->p, "caf%C3%A9%20%F0%9F%8F%88");
    buf_reset(b);
    buf_put_urlencoded(b, "\x01\x7f\xff:@!*'()[],;$");
    assert_string_equal(b->p, "%01%7F%FF%3A%40%21%2A%27%28%29%5B%5D%2C%3B%24");
    buf_reset(b);
    buf_puts(b, "q=");
    buf_put_urlencoded(b, "");
    assert_string_equal(b->p, "q=");
}

static void test_urlencoded_every_byte(void **state)
{
    struct buf *b = *state;
    char in[256];
    for (int c = 1; c < 256; c++)
        in[c - 1] = (char)c;
    in[255] = '\0';
    buf_put_urlencoded(b, in);
    size_t unreserved = 26 + 26 + 10 + 4;
    assert_int_equal(b->len, unreserved + (255 - unreserved) * 3);
    for (size_t i = 0; i < b->len; i++) {
        char c = b->p[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '.' || c == '_' || c == '~' || c == '%';
        assert_true(ok);
    }
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup_buf, teardown_buf)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_init_is_empty),
        T(test_append_puts_putc),
        T(test_putc_growth),
        T(test_append_large_block),
        T(test_printf_small),
        T(test_printf_grows_past_capacity),
        T(test_printf_exact_fit_boundaries),
        T(test_printf_many),
        T(test_vprintf),
        T(test_reset_keeps_storage),
        T(test_release_resets),
        T(test_detach),
        T(test_detach_empty_is_terminated),
        T(test_urlencoded),
        T(test_urlencoded_every_byte),
        T(test_cap_refuses_what_does_not_fit),
        T(test_cap_all_or_nothing),
        T(test_cap_printf),
        T(test_cap_setlen),
        T(test_detach_keeps_cap),
    };
    return cmocka_run_group_tests_name("util/buf", tests, NULL, NULL);
}
