/*
 * Unit tests for src/http/query.c: the strict query-string checker (qp_parse) and its
 * decimal integer reader (qp_parse_int).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "http/query.h"

static const char *const sort_values[] = {"newest", "oldest", "Top", NULL};

/* One table exercising every type; indexes below name the entries. */
static const struct qp_spec specs[] = {
    {.name = "limit", .type = QP_INT, .min = 1, .max = 100, .def = 20},
    {.name = "offset", .type = QP_INT, .min = 0, .max = INT64_MAX, .def = 0},
    {.name = "delta", .type = QP_INT, .min = -10, .max = 10, .def = -3},
    {.name = "sort", .type = QP_ENUM, .values = sort_values},
    {.name = "team", .type = QP_ID},
    {.name = "id", .type = QP_UUID},
    {.name = "from", .type = QP_TIME},
    {.name = "has_verdict", .type = QP_BOOL},
};

enum { S_LIMIT, S_OFFSET, S_DELTA, S_SORT, S_TEAM, S_ID, S_FROM, S_BOOL, NSPECS };

struct result {
    int rc;
    struct qp_value out[NSPECS];
    char err[256];
};

static void parse_pairs(const struct qp_pair *pairs, size_t n, struct result *r)
{
    memset(r, 0x5a, sizeof *r); /* garbage in: qp_parse must initialise every slot */
    r->err[0] = '\0';
    r->rc = qp_parse(specs, NSPECS, pairs, n, r->out, r->err, sizeof r->err);
}

static void parse1(const char *key, const char *value, struct result *r)
{
    const struct qp_pair p = {key, value};
    parse_pairs(&p, 1, r);
}

static void assert_ok(const char *key, const char *value, struct result *r)
{
    parse1(key, value, r);
    if (r->rc != 0)
        print_error("%s=%s refused: %s\n", key, value ? value : "(null)", r->err);
    assert_int_equal(r->rc, 0);
}

/* Refused, with a message that names the parameter. */
static void assert_refused(const char *key, const char *value)
{
    struct result r;
    parse1(key, value, &r);
    if (r.rc != -1)
        print_error("%s=%s accepted\n", key, value ? value : "(null)");
    assert_int_equal(r.rc, -1);
    assert_non_null(strstr(r.err, key));
}

/* ---- qp_parse_int ----------------------------------------------------------------- */

static void test_parse_int_valid(void **state)
{
    (void)state;
    int64_t v = 42;
    assert_int_equal(qp_parse_int("0", &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(qp_parse_int("-0", &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(qp_parse_int("5", &v), 0);
    assert_int_equal(v, 5);
    assert_int_equal(qp_parse_int("-17", &v), 0);
    assert_int_equal(v, -17);
    assert_int_equal(qp_parse_int("007", &v), 0);
    assert_int_equal(v, 7);
    assert_int_equal(qp_parse_int("9223372036854775807", &v), 0);
    assert_true(v == INT64_MAX);
    assert_int_equal(qp_parse_int("-9223372036854775807", &v), 0);
    assert_true(v == -INT64_MAX);
}

static void test_parse_int_invalid(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "-",
        "+5",
        " 5",
        "5 ",
        "5x",
        "x5",
        "--5",
        "-+5",
        "5-",
        "1.0",
        "1e3",
        "0x10",
        "1,000",
        "99999999999999999999",
        "9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "-99999999999999999999",
        "123456789012345678901234567890",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v = 1234;
        if (qp_parse_int(bad[i], &v) != -1)
            fail_msg("qp_parse_int accepted \"%s\"", bad[i]);
        assert_int_equal(v, 1234); /* untouched on failure */
    }
}

/* ---- qp_parse: table rules ---------------------------------------------------------- */

static void test_no_pairs_applies_defaults(void **state)
{
    (void)state;
    struct result r;
    parse_pairs(NULL, 0, &r);
    assert_int_equal(r.rc, 0);
    for (int i = 0; i < NSPECS; i++) {
        assert_false(r.out[i].set);
        assert_null(r.out[i].s);
    }
    assert_int_equal(r.out[S_LIMIT].i, 20);
    assert_int_equal(r.out[S_OFFSET].i, 0);
    assert_int_equal(r.out[S_DELTA].i, -3);
    assert_int_equal(r.out[S_SORT].i, 0);
    assert_int_equal(r.out[S_BOOL].i, 0);
}

static void test_only_given_parameters_are_set(void **state)
{
    (void)state;
    const struct qp_pair pairs[] = {{"offset", "40"}, {"sort", "oldest"}, {"has_verdict", "true"}};
    struct result r;
    parse_pairs(pairs, 3, &r);
    assert_int_equal(r.rc, 0);
    assert_false(r.out[S_LIMIT].set);
    assert_int_equal(r.out[S_LIMIT].i, 20);
    assert_true(r.out[S_OFFSET].set);
    assert_int_equal(r.out[S_OFFSET].i, 40);
    assert_string_equal(r.out[S_OFFSET].s, "40");
    assert_true(r.out[S_SORT].set);
    assert_int_equal(r.out[S_SORT].i, 1);
    assert_true(r.out[S_BOOL].set);
    assert_int_equal(r.out[S_BOOL].i, 1);
    assert_false(r.out[S_TEAM].set);
    assert_false(r.out[S_ID].set);
    assert_false(r.out[S_FROM].set);
}

static void test_unknown_parameter(void **state)
{
    (void)state;
    struct result r;
    parse1("colour", "red", &r);
    assert_int_equal(r.rc, -1);
    assert_non_null(strstr(r.err, "unknown"));
    assert_non_null(strstr(r.err, "colour"));

    /* names are case-sensitive: "Limit" is not "limit" */
    parse1("Limit", "5", &r);
    assert_int_equal(r.rc, -1);
    assert_non_null(strstr(r.err, "Limit"));

    /* a known prefix or extension is still unknown */
    parse1("limits", "5", &r);
    assert_int_equal(r.rc, -1);
    parse1("lim", "5", &r);
    assert_int_equal(r.rc, -1);
    parse1("", "5", &r);
    assert_int_equal(r.rc, -1);

    /* an unknown parameter is refused even after valid ones */
    const struct qp_pair pairs[] = {{"limit", "5"}, {"page", "2"}};
    parse_pairs(pairs, 2, &r);
    assert_int_equal(r.rc, -1);
    assert_non_null(strstr(r.err, "page"));
}

static void test_unknown_parameter_echo_is_sanitised(void **state)
{
    (void)state;
    struct result r;
    parse1("ev\x01il\nname\x7f", "1", &r);
    assert_int_equal(r.rc, -1);
    assert_non_null(strstr(r.err, "ev?il?name?"));
    for (const char *p = r.err; *p; p++)
        assert_true(*p >= 0x20 && *p < 0x7f);

    /* a very long name is cut, and the message stays within err */
    char longkey[1000];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    parse1(longkey, "1", &r);
    assert_int_equal(r.rc, -1);
    assert_true(strlen(r.err) < 200);
    assert_non_null(strstr(r.err, "kkkkkkkk"));

    /* a non-ASCII name is echoed as '?' bytes */
    parse1("caf\xc3\xa9", "1", &r);
    assert_int_equal(r.rc, -1);
    assert_non_null(strstr(r.err, "caf??"));
}

static void test_repeated_parameter(void **state)
{
    (void)state;
    struct result r;
    const struct qp_pair same[] = {{"limit", "5"}, {"limit", "5"}};
    parse_pairs(same, 2, &r);
    assert_int_equal(r.rc, -1);
    assert_non_null(strstr(r.err, "limit"));
    assert_non_null(strstr(r.err, "repeated"));

    const struct qp_pair apart[] = {{"sort", "newest"}, {"limit", "5"}, {"sort", "oldest"}};
    parse_pairs(apart, 3, &r);
    assert_int_equal(r.rc, -1);
    assert_non_null(strstr(r.err, "sort"));
    assert_non_null(strstr(r.err, "repeated"));

    /* repeated with an empty second value: still an error */
    const struct qp_pair empty2[] = {{"has_verdict", "true"}, {"has_verdict", ""}};
    parse_pairs(empty2, 2, &r);
    assert_int_equal(r.rc, -1);
    assert_non_null(strstr(r.err, "has_verdict"));
}

static void test_missing_and_empty_value(void **state)
{
    (void)state;
    static const char *const names[] = {"limit", "sort", "team", "id", "from", "has_verdict"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct result r;
        parse1(names[i], NULL, &r);
        assert_int_equal(r.rc, -1);
        assert_non_null(strstr(r.err, names[i]));
        assert_non_null(strstr(r.err, "no value"));
        parse1(names[i], "", &r);
        assert_int_equal(r.rc, -1);
        assert_non_null(strstr(r.err, names[i]));
        assert_non_null(strstr(r.err, "no value"));
    }
}

static void test_err_is_bounded(void **state)
{
    (void)state;
    char err[8];
    memset(err, 'x', sizeof err);
    const struct qp_pair p = {"limit", "0"};
    struct qp_value out[NSPECS];
    assert_int_equal(qp_parse(specs, NSPECS, &p, 1, out, err, sizeof err), -1);
    assert_int_equal(strlen(err), sizeof err - 1);
}

/* ---- qp_parse: QP_INT ------------------------------------------------------------- */

static void test_int_bounds_inclusive(void **state)
{
    (void)state;
    struct result r;
    assert_ok("limit", "1", &r);
    assert_true(r.out[S_LIMIT].set);
    assert_int_equal(r.out[S_LIMIT].i, 1);
    assert_ok("limit", "100", &r);
    assert_int_equal(r.out[S_LIMIT].i, 100);
    assert_ok("limit", "50", &r);
    assert_int_equal(r.out[S_LIMIT].i, 50);
    assert_ok("delta", "-10", &r);
    assert_int_equal(r.out[S_DELTA].i, -10);
    assert_ok("delta", "10", &r);
    assert_int_equal(r.out[S_DELTA].i, 10);
    assert_ok("delta", "-0", &r);
    assert_int_equal(r.out[S_DELTA].i, 0);
    assert_ok("offset", "9223372036854775807", &r);
    assert_true(r.out[S_OFFSET].i == INT64_MAX);
}

static void test_int_out_of_range(void **state)
{
    (void)state;
    assert_refused("limit", "0");
    assert_refused("limit", "101");
    assert_refused("limit", "-1");
    assert_refused("delta", "-11");
    assert_refused("delta", "11");
    assert_refused("offset", "-1");

    struct result r;
    parse1("limit", "101", &r);
    assert_non_null(strstr(r.err, "limit"));
    assert_non_null(strstr(r.err, "1"));
    assert_non_null(strstr(r.err, "100"));
    parse1("delta", "12", &r);
    assert_non_null(strstr(r.err, "-10"));
}

static void test_int_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "+5",       " 5",  "5 ",  "5x",  "x",  "-",     "--1", "1.5", "0x1", "1e2",
        "\xd9\xa3", "\t5", "5\n", "%35", "5;", "1,000", "-+1", "+-1", "- 1", "99999999999999999999",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_refused("limit", bad[i]);
        assert_refused("offset", bad[i]);
    }
}

/* ---- qp_parse: QP_ENUM ------------------------------------------------------------ */

static void test_enum_exact_match(void **state)
{
    (void)state;
    struct result r;
    assert_ok("sort", "newest", &r);
    assert_int_equal(r.out[S_SORT].i, 0);
    assert_string_equal(r.out[S_SORT].s, "newest");
    assert_ptr_equal(r.out[S_SORT].s, sort_values[0]);
    assert_ok("sort", "oldest", &r);
    assert_int_equal(r.out[S_SORT].i, 1);
    assert_ok("sort", "Top", &r);
    assert_int_equal(r.out[S_SORT].i, 2);

    static const char *const bad[] = {"NEWEST",  "Newest", "top",     "TOP", "newest ",
                                      " newest", "newes",  "newestt", "new", "oldest,newest"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_refused("sort", bad[i]);
}

static void test_enum_message_lists_values(void **state)
{
    (void)state;
    struct result r;
    parse1("sort", "random", &r);
    assert_int_equal(r.rc, -1);
    assert_non_null(strstr(r.err, "sort"));
    assert_non_null(strstr(r.err, "newest, oldest, Top"));
}

/* ---- qp_parse: QP_ID -------------------------------------------------------------- */

static void test_id_charset(void **state)
{
    (void)state;
    struct result r;
    assert_ok("team", "ABCxyz019._:~-", &r);
    assert_true(r.out[S_TEAM].set);
    assert_string_equal(r.out[S_TEAM].s, "ABCxyz019._:~-");
    assert_ok("team", "a", &r);
    assert_ok("team", "ncaaf:2025:wk1", &r);

    static const char *const bad[] = {"a/b",  "a%2Fb", "%",   "/",    "a b", "a+b", "a?b",
                                      "a#b",  "a&b",   "a=b", "a\"b", "a'b", "a<b", "caf\xc3\xa9",
                                      "a\\b", "a,b",   "a;b", "a@b",  "a!b", "a*b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_refused("team", bad[i]);
}

static void test_id_length(void **state)
{
    (void)state;
    char id[300];
    memset(id, 'a', sizeof id);
    id[255] = '\0';
    struct result r;
    parse1("team", id, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(strlen(r.out[S_TEAM].s), 255);
    id[255] = 'a';
    id[256] = '\0';
    assert_refused("team", id);
}

/* ---- qp_parse: QP_UUID ------------------------------------------------------------ */

static void test_uuid_normalised(void **state)
{
    (void)state;
    struct result r;
    assert_ok("id", "0F8FAD5B-D9CB-469F-A165-70867728950E", &r);
    assert_true(r.out[S_ID].set);
    assert_string_equal(r.out[S_ID].s, "0f8fad5b-d9cb-469f-a165-70867728950e");
    assert_ptr_equal(r.out[S_ID].s, r.out[S_ID].norm);
    assert_ok("id", "0f8fad5b-d9cb-469f-a165-70867728950e", &r);
    assert_string_equal(r.out[S_ID].s, "0f8fad5b-d9cb-469f-a165-70867728950e");

    assert_refused("id", "0f8fad5b-d9cb-469f-a165-70867728950");
    assert_refused("id", "0f8fad5b-d9cb-469f-a165-70867728950e0");
    assert_refused("id", "0f8fad5bd9cb469fa16570867728950e");
    assert_refused("id", "{0f8fad5b-d9cb-469f-a165-70867728950e}");
    assert_refused("id", "0g8fad5b-d9cb-469f-a165-70867728950e");
}

/* ---- qp_parse: QP_TIME ------------------------------------------------------------ */

static void test_time_forms(void **state)
{
    (void)state;
    struct result r;
    assert_ok("from", "2025-11-29", &r);
    assert_true(r.out[S_FROM].set);
    assert_int_equal(r.out[S_FROM].i, INT64_C(20421) * 86400 * 1000000);
    assert_string_equal(r.out[S_FROM].s, "2025-11-29");
    assert_ok("from", "2025-11-29T17:00:00Z", &r);
    assert_int_equal(r.out[S_FROM].i, (INT64_C(20421) * 86400 + 17 * 3600) * 1000000);
    assert_ok("from", "2025-11-29T17:00:00.25Z", &r);
    assert_int_equal(r.out[S_FROM].i, (INT64_C(20421) * 86400 + 17 * 3600) * 1000000 + 250000);
    assert_ok("from", "2025-11-29T19:00:00+02:00", &r);
    assert_int_equal(r.out[S_FROM].i, (INT64_C(20421) * 86400 + 17 * 3600) * 1000000);

    assert_refused("from", "2025-11-29T17:00:00");
    assert_refused("from", "2025-02-29");
    assert_refused("from", "29/11/2025");
    assert_refused("from", "1764435600");
    assert_refused("from", "2025-11-29 17:00:00Z");
}

/* ---- qp_parse: QP_BOOL ------------------------------------------------------------ */

static void test_bool_only_true_false(void **state)
{
    (void)state;
    struct result r;
    assert_ok("has_verdict", "true", &r);
    assert_int_equal(r.out[S_BOOL].i, 1);
    assert_ok("has_verdict", "false", &r);
    assert_true(r.out[S_BOOL].set);
    assert_int_equal(r.out[S_BOOL].i, 0);

    static const char *const bad[] = {"1",  "0",   "yes",   "no",    "TRUE", "True",
                                      "on", "off", "true ", " true", "t",    "falsey"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_refused("has_verdict", bad[i]);
}

/* The first bad pair wins, and later pairs are not examined. */
static void test_first_error_reported(void **state)
{
    (void)state;
    struct result r;
    const struct qp_pair pairs[] = {{"limit", "5"}, {"sort", "up"}, {"page", "1"}};
    parse_pairs(pairs, 3, &r);
    assert_int_equal(r.rc, -1);
    assert_non_null(strstr(r.err, "sort"));
    assert_null(strstr(r.err, "page"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_int_valid),
        cmocka_unit_test(test_parse_int_invalid),
        cmocka_unit_test(test_no_pairs_applies_defaults),
        cmocka_unit_test(test_only_given_parameters_are_set),
        cmocka_unit_test(test_unknown_parameter),
        cmocka_unit_test(test_unknown_parameter_echo_is_sanitised),
        cmocka_unit_test(test_repeated_parameter),
        cmocka_unit_test(test_missing_and_empty_value),
        cmocka_unit_test(test_err_is_bounded),
        cmocka_unit_test(test_int_bounds_inclusive),
        cmocka_unit_test(test_int_out_of_range),
        cmocka_unit_test(test_int_malformed),
        cmocka_unit_test(test_enum_exact_match),
        cmocka_unit_test(test_enum_message_lists_values),
        cmocka_unit_test(test_id_charset),
        cmocka_unit_test(test_id_length),
        cmocka_unit_test(test_uuid_normalised),
        cmocka_unit_test(test_time_forms),
        cmocka_unit_test(test_bool_only_true_false),
        cmocka_unit_test(test_first_error_reported),
    };
    return cmocka_run_group_tests_name("http/query", tests, NULL, NULL);
}
