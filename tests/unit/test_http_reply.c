/*
 * Unit tests for src/http/reply.c: response headers are never dropped, however many a
 * handler adds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "http/http.h"
#include "util/arena.h"

static void test_headers_grow_without_dropping(void **state)
{
    (void)state;
    struct request req;
    memset(&req, 0, sizeof req);
    arena_init(&req.arena);
    enum { N = 40 };
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "X-H%d", i);
        reply_header(&req, arena_strdup(&req.arena, name), arena_strdup(&req.arena, name + 2));
    }
    assert_int_equal(req.nheaders, N);
    assert_true(req.headers_cap >= N);
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "X-H%d", i);
        assert_string_equal(req.headers[i][0], name);
        assert_string_equal(req.headers[i][1], name + 2);
    }
    arena_release(&req.arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headers_grow_without_dropping),
    };
    return cmocka_run_group_tests_name("http/reply", tests, NULL, NULL);
}
