/*
 * Unit tests for src/util/uuid.c: canonical UUID checking, normalisation and version 4
 * generation from libsodium's CSPRNG.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "util/uuid.h"

static int setup_sodium(void **state)
{
    (void)state;
    return sodium_init() < 0 ? -1 : 0;
}

static void test_is_valid_accepts_canonical(void **state)
{
    (void)state;
    assert_true(uuid_is_valid("0f8fad5b-d9cb-469f-a165-70867728950e"));
    assert_true(uuid_is_valid("0F8FAD5B-D9CB-469F-A165-70867728950E"));
    assert_true(uuid_is_valid("0F8fad5b-D9cb-469F-a165-70867728950E"));
    assert_true(uuid_is_valid("00000000-0000-0000-0000-000000000000"));
    assert_true(uuid_is_valid("ffffffff-ffff-ffff-ffff-ffffffffffff"));
    /* the check is syntactic: any version and variant nibble */
    assert_true(uuid_is_valid("01234567-89ab-cdef-0123-456789abcdef"));
}

static void test_is_valid_refuses(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "0f8fad5b-d9cb-469f-a165-70867728950",     /* 35 */
        "0f8fad5b-d9cb-469f-a165-70867728950e0",   /* 37 */
        "0f8fad5b-d9cb-469f-a165-70867728950e ",   /* trailing space */
        " 0f8fad5b-d9cb-469f-a165-70867728950e",   /* leading space */
        "0f8fad5bd9cb469fa16570867728950e",        /* no dashes */
        "0f8fad5b-d9cb469f-a165-70867728950e-",    /* dash moved */
        "0f8fad5-bd9cb-469f-a165-70867728950e",    /* dash moved */
        "0f8fad5b-d9cb-469f-a16-570867728950e",    /* dash moved */
        "0f8fad5b_d9cb_469f_a165_70867728950e",    /* wrong separator */
        "0f8fad5b-d9cb-469f-a165+70867728950e",    /* wrong separator */
        "{0f8fad5b-d9cb-469f-a165-70867728950e}",  /* braces */
        "0g8fad5b-d9cb-469f-a165-70867728950e",    /* non-hex */
        "0f8fad5b-d9cb-469f-a165-70867728950z",    /* non-hex at the end */
        "0f8fad5b-d9cb-469f-a165-7086772895-e",    /* dash where a digit goes */
        "0f8fad5b-d9cb-469f-a165-70867728950\xc3", /* non-ASCII */
        "urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e",
        "-",
        "------------------------------------",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (uuid_is_valid(bad[i]))
            fail_msg("uuid_is_valid accepted \"%s\"", bad[i]);
    assert_false(uuid_is_valid(NULL));
}

/* A short string must not be read past its NUL (ASan would catch it in the sanitizer run). */
static void test_is_valid_short_heap_string(void **state)
{
    (void)state;
    char *s = malloc(4);
    assert_non_null(s);
    memcpy(s, "0f8", 4);
    assert_false(uuid_is_valid(s));
    free(s);
}

static void test_normalize(void **state)
{
    (void)state;
    char out[UUID_STR_LEN + 1];
    assert_int_equal(uuid_normalize("0F8FAD5B-D9CB-469F-A165-70867728950E", out), 0);
    assert_string_equal(out, "0f8fad5b-d9cb-469f-a165-70867728950e");
    assert_int_equal(uuid_normalize("0f8fad5b-d9cb-469f-a165-70867728950e", out), 0);
    assert_string_equal(out, "0f8fad5b-d9cb-469f-a165-70867728950e");
    assert_int_equal(uuid_normalize("ABCDEF01-2345-6789-ABCD-EF0123456789", out), 0);
    assert_string_equal(out, "abcdef01-2345-6789-abcd-ef0123456789");

    /* invalid input leaves out untouched */
    memset(out, '#', sizeof out);
    assert_int_equal(uuid_normalize("0F8FAD5B-D9CB-469F-A165-70867728950", out), -1);
    assert_int_equal(uuid_normalize("not-a-uuid", out), -1);
    assert_int_equal(uuid_normalize(NULL, out), -1);
    for (size_t i = 0; i < sizeof out; i++)
        assert_int_equal(out[i], '#');
}

static bool is_lower_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static void assert_v4_shape(const char *u)
{
    assert_int_equal(strlen(u), UUID_STR_LEN);
    assert_true(uuid_is_valid(u));
    for (int i = 0; i < UUID_STR_LEN; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23)
            assert_int_equal(u[i], '-');
        else
            assert_true(is_lower_hex(u[i]));
    }
    assert_int_equal(u[14], '4');           /* version nibble */
    assert_non_null(strchr("89ab", u[19])); /* RFC 4122 variant: 10xx */
    char norm[UUID_STR_LEN + 1];
    assert_int_equal(uuid_normalize(u, norm), 0);
    assert_string_equal(norm, u);
}

static void test_v4_format(void **state)
{
    (void)state;
    char u[UUID_STR_LEN + 1];
    memset(u, 'X', sizeof u);
    uuid_v4(u);
    assert_v4_shape(u);
}

static void test_v4_differs_and_varies(void **state)
{
    (void)state;
    char a[UUID_STR_LEN + 1], b[UUID_STR_LEN + 1];
    uuid_v4(a);
    uuid_v4(b);
    assert_string_not_equal(a, b);

    /* over many draws, every variant nibble shows up and the output never repeats */
    enum { N = 2000 };
    static char seen[N][UUID_STR_LEN + 1];
    bool variant[4] = {false, false, false, false};
    for (int i = 0; i < N; i++) {
        uuid_v4(seen[i]);
        assert_v4_shape(seen[i]);
        variant[strchr("89ab", seen[i][19]) - "89ab"] = true;
        for (int j = 0; j < i; j++)
            if (strcmp(seen[i], seen[j]) == 0)
                fail_msg("uuid_v4 repeated %s", seen[i]);
    }
    for (int v = 0; v < 4; v++)
        assert_true(variant[v]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_is_valid_accepts_canonical),
        cmocka_unit_test(test_is_valid_refuses),
        cmocka_unit_test(test_is_valid_short_heap_string),
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_v4_format),
        cmocka_unit_test(test_v4_differs_and_varies),
    };
    return cmocka_run_group_tests_name("util/uuid", tests, setup_sodium, NULL);
}
