/*
 * Unit tests for src/util/arena.c: the per-request bump allocator.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/arena.h"

/* The arena is large (it embeds its first chunk): keep it off the test's stack frame and
 * release it in the teardown even when an assertion fails. */
static int setup_arena(void **state)
{
    struct arena *a = malloc(sizeof *a);
    if (!a)
        return -1;
    arena_init(a);
    *state = a;
    return 0;
}

static int teardown_arena(void **state)
{
    struct arena *a = *state;
    arena_release(a);
    free(a);
    return 0;
}

static bool aligned16(const void *p)
{
    return ((uintptr_t)p & 15) == 0;
}

static bool inside_inline(const struct arena *a, const void *p)
{
    const char *c = p;
    return c >= a->inline_mem && c < a->inline_mem + sizeof a->inline_mem;
}

static void test_first_allocations_are_inline(void **state)
{
    struct arena *a = *state;
    void *p = arena_alloc(a, 10);
    void *q = arena_alloc(a, 10);
    assert_true(inside_inline(a, p));
    assert_true(inside_inline(a, q));
    assert_true(aligned16(p));
    assert_true(aligned16(q));
    assert_true((char *)q >= (char *)p + 10);
    assert_null(a->chunks);
    /* the whole inline block is usable before a chunk is needed */
    void *r = arena_alloc(a, ARENA_INLINE - 64);
    assert_true(inside_inline(a, r));
    memset(r, 0x11, ARENA_INLINE - 64);
    assert_null(a->chunks);
    void *s = arena_alloc(a, 64);
    assert_non_null(a->chunks);
    assert_false(inside_inline(a, s));
}

static void test_alignment_every_size(void **state)
{
    struct arena *a = *state;
    for (size_t n = 0; n < 600; n++) {
        void *p = arena_alloc(a, n);
        assert_non_null(p);
        if (!aligned16(p))
            fail_msg("arena_alloc(%zu) returned %p, not 16-byte aligned", n, p);
        memset(p, 0xab, n);
    }
}

/* Many allocations over many chunks: every block keeps its own bytes. */
static void test_many_allocations_do_not_overlap(void **state)
{
    struct arena *a = *state;
    enum { N = 20000 };
    unsigned char **ptrs = calloc(N, sizeof *ptrs);
    size_t *sizes = calloc(N, sizeof *sizes);
    assert_non_null(ptrs);
    assert_non_null(sizes);
    uint32_t x = 12345;
    for (size_t i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        sizes[i] = 1 + (x >> 16) % 700;
        ptrs[i] = arena_alloc(a, sizes[i]);
        assert_true(aligned16(ptrs[i]));
        memset(ptrs[i], (int)(i & 0xff), sizes[i]);
    }
    size_t total = 0;
    for (size_t i = 0; i < N; i++)
        total += sizes[i];
    assert_true(total > 100 * 16384); /* far more than the inline block: many chunks */
    assert_non_null(a->chunks);
    for (size_t i = 0; i < N; i++) {
        for (size_t k = 0; k < sizes[i]; k++)
            if (ptrs[i][k] != (unsigned char)(i & 0xff))
                fail_msg("block %zu byte %zu overwritten", i, k);
    }
    free(ptrs);
    free(sizes);
}

static void test_large_allocation(void **state)
{
    struct arena *a = *state;
    char *small = arena_alloc(a, 100);
    memset(small, 's', 100);
    size_t big_n = 1000000;
    char *big = arena_alloc(a, big_n);
    assert_non_null(big);
    assert_true(aligned16(big));
    memset(big, 'B', big_n); /* ASan checks the whole range is ours */
    char *after = arena_alloc(a, 32);
    assert_true(aligned16(after));
    memset(after, 'a', 32);
    assert_true(after + 32 <= big || after >= big + big_n);
    /* a chunk-sized and a just-over-chunk-sized request */
    char *c1 = arena_alloc(a, 16384);
    memset(c1, 1, 16384);
    char *c2 = arena_alloc(a, 16385);
    memset(c2, 2, 16385);
    for (size_t i = 0; i < 100; i++)
        assert_int_equal(small[i], 's');
    for (size_t i = 0; i < big_n; i += 4093)
        assert_int_equal(big[i], 'B');
    assert_int_equal(big[big_n - 1], 'B');
    for (size_t i = 0; i < 32; i++)
        assert_int_equal(after[i], 'a');
}

static void test_strdup(void **state)
{
    struct arena *a = *state;
    assert_null(arena_strdup(a, NULL));
    char *e = arena_strdup(a, "");
    assert_non_null(e);
    assert_string_equal(e, "");
    const char *src = "hello, arena";
    char *d = arena_strdup(a, src);
    assert_string_equal(d, src);
    assert_true(d != src);
    assert_true(aligned16(d));

    char *n = arena_strndup(a, "abcdef", 3);
    assert_string_equal(n, "abc");
    char *z = arena_strndup(a, "abc", 0);
    assert_string_equal(z, "");
    /* bytes after an embedded NUL are copied too; the result is still terminated */
    char *bin = arena_strndup(a, "a\0b", 3);
    assert_memory_equal(bin, "a\0b\0", 4);

    /* a long string spans a fresh chunk */
    char longs[20000];
    memset(longs, 'L', sizeof longs - 1);
    longs[sizeof longs - 1] = '\0';
    char *l = arena_strdup(a, longs);
    assert_string_equal(l, longs);
    assert_string_equal(d, src); /* earlier copies untouched */
}

static void test_release_and_reuse(void **state)
{
    struct arena *a = *state;
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 1000; i++)
            memset(arena_alloc(a, 100), i, 100);
        assert_non_null(a->chunks);
        arena_release(a);
        assert_null(a->chunks);
        assert_ptr_equal(a->cur, a->inline_mem);
        assert_int_equal(a->left, ARENA_INLINE);
        void *p = arena_alloc(a, 8);
        assert_true(inside_inline(a, p));
    }
    arena_release(a);
    arena_release(a); /* twice is harmless */
}

/*
 * "Allocation failure aborts": a request the arena cannot satisfy must never come back
 * as a pointer. Run in a child so the expected abort does not end the test binary.
 */
static void test_impossible_size_aborts(void **state)
{
    (void)state;
    static const size_t sizes[] = {SIZE_MAX, SIZE_MAX - 14};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            struct arena *ca = malloc(sizeof *ca);
            if (!ca)
                _exit(5);
            arena_init(ca);
            void *p = arena_alloc(ca, sizes[i]);
            _exit(p ? 0 : 4);
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            fail_msg("arena_alloc(%zu) returned a pointer instead of aborting", sizes[i]);
    }
}

/* arena_defer: each call runs once at the release, the newest first, while the arena's
 * memory is still there; a released arena starts with none. */
static char deferred[8];
static size_t ndeferred;
static void note(void *arg)
{
    assert_true(ndeferred < sizeof deferred);
    deferred[ndeferred++] = *(const char *)arg; /* arg lives in the arena */
}

static void test_defer(void **state)
{
    struct arena *a = *state;
    ndeferred = 0;
    for (char c = 'a'; c <= 'c'; c++) {
        char *p = arena_alloc(a, 1);
        *p = c;
        arena_defer(a, note, p);
        (void)arena_alloc(a, 20000); /* memory of later chunks too */
    }
    assert_int_equal(ndeferred, 0);
    arena_release(a);
    assert_int_equal(ndeferred, 3);
    assert_memory_equal(deferred, "cba", 3);
    arena_release(a); /* nothing more */
    assert_int_equal(ndeferred, 3);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup_arena, teardown_arena)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_first_allocations_are_inline),
        T(test_alignment_every_size),
        T(test_many_allocations_do_not_overlap),
        T(test_large_allocation),
        T(test_strdup),
        T(test_release_and_reuse),
        T(test_impossible_size_aborts),
        T(test_defer),
    };
    return cmocka_run_group_tests_name("util/arena", tests, NULL, NULL);
}
