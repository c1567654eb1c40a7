/*
 * Unit tests for src/util/timefmt.c: ISO 8601 formatting and RFC 3339 parsing of the
 * int64 microsecond timestamps used everywhere inside Whistle.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/timefmt.h"

#define US  INT64_C(1000000)
#define DAY (INT64_C(86400) * US)

static void assert_format(int64_t us, const char *want)
{
    char out[TIME_ISO_MAX];
    memset(out, 'x', sizeof out);
    size_t n = time_format_iso(us, out);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
}

static int64_t parse_ok(const char *s, unsigned flags)
{
    int64_t us = 0;
    int rc = time_parse_iso(s, flags, &us);
    if (rc != 0)
        fail_msg("time_parse_iso refused \"%s\"", s);
    return us;
}

static void assert_parse_refused(const char *s, unsigned flags)
{
    int64_t us = 77;
    if (time_parse_iso(s, flags, &us) != -1)
        fail_msg("time_parse_iso accepted \"%s\"", s);
    assert_int_equal(us, 77); /* untouched */
}

/* ---- time_days_from_civil --------------------------------------------------------- */

static void test_days_from_civil_known(void **state)
{
    (void)state;
    static const struct {
        int64_t y;
        unsigned m, d;
        int64_t days;
    } cases[] = {
        {1970, 1, 1, 0},      {1969, 12, 31, -1},      {2000, 1, 1, 10957},   {2000, 3, 1, 11017},
        {2024, 2, 29, 19782}, {2024, 3, 1, 19783},     {1900, 3, 1, -25508},  {2100, 3, 1, 47541},
        {1, 1, 1, -719162},   {9999, 12, 31, 2932896}, {1600, 1, 1, -135140}, {2025, 11, 29, 20421},
        {1970, 1, 2, 1},      {1970, 12, 31, 364},     {1971, 1, 1, 365},     {1972, 12, 31, 1095},
        {0, 3, 1, -719468},   {-1, 12, 31, -719529},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t got = time_days_from_civil(cases[i].y, cases[i].m, cases[i].d);
        if (got != cases[i].days)
            fail_msg("days_from_civil(%lld, %u, %u) = %lld, want %lld", (long long)cases[i].y,
                     cases[i].m, cases[i].d, (long long)got, (long long)cases[i].days);
    }
}

/* Consecutive calendar days map to consecutive integers over four centuries. */
static void test_days_from_civil_contiguous(void **state)
{
    (void)state;
    static const unsigned dim[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t expect = time_days_from_civil(1800, 1, 1);
    for (int64_t y = 1800; y < 2200; y++) {
        bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        for (unsigned m = 1; m <= 12; m++) {
            unsigned n = dim[m - 1] + (m == 2 && leap);
            for (unsigned d = 1; d <= n; d++) {
                if (time_days_from_civil(y, m, d) != expect)
                    fail_msg("days_from_civil(%lld, %u, %u) not contiguous", (long long)y, m, d);
                expect++;
            }
        }
    }
}

/* ---- time_format_iso -------------------------------------------------------------- */

static void test_format_epoch_and_fractions(void **state)
{
    (void)state;
    assert_format(0, "1970-01-01T00:00:00Z");
    assert_format(1, "1970-01-01T00:00:00.000001Z");
    assert_format(500000, "1970-01-01T00:00:00.500000Z");
    assert_format(999999, "1970-01-01T00:00:00.999999Z");
    assert_format(US, "1970-01-01T00:00:01Z");
    assert_format(DAY - 1, "1970-01-01T23:59:59.999999Z");
    assert_format(DAY, "1970-01-02T00:00:00Z");
    assert_format(INT64_C(1764435600) * US, "2025-11-29T17:00:00Z");
    assert_format(INT64_C(1764435600) * US + 123456, "2025-11-29T17:00:00.123456Z");
}

static void test_format_before_1970(void **state)
{
    (void)state;
    assert_format(-1, "1969-12-31T23:59:59.999999Z");
    assert_format(-US, "1969-12-31T23:59:59Z");
    assert_format(-500000, "1969-12-31T23:59:59.500000Z");
    assert_format(-DAY, "1969-12-31T00:00:00Z");
    assert_format(-DAY - 1, "1969-12-30T23:59:59.999999Z");
    assert_format(INT64_C(-2208988800) * US, "1900-01-01T00:00:00Z");
    assert_format(INT64_C(-62135596800) * US, "0001-01-01T00:00:00Z");
}

static void test_format_calendar_edges(void **state)
{
    (void)state;
    assert_format(INT64_C(19782) * DAY, "2024-02-29T00:00:00Z");
    assert_format(INT64_C(19783) * DAY - US, "2024-02-29T23:59:59Z");
    assert_format(INT64_C(19783) * DAY, "2024-03-01T00:00:00Z");
    assert_format(INT64_C(946684799) * US, "1999-12-31T23:59:59Z");
    assert_format(INT64_C(946684800) * US, "2000-01-01T00:00:00Z");
    assert_format(INT64_C(11016) * DAY, "2000-02-29T00:00:00Z");
    assert_format(INT64_C(47540) * DAY, "2100-02-28T00:00:00Z");
    assert_format(INT64_C(47541) * DAY, "2100-03-01T00:00:00Z");
    assert_format(INT64_C(1735689599) * US + 999999, "2024-12-31T23:59:59.999999Z");
    assert_format(INT64_C(1735689600) * US, "2025-01-01T00:00:00Z");
    assert_format(INT64_C(253402300799) * US, "9999-12-31T23:59:59Z");
}

static void test_format_extremes_fit(void **state)
{
    (void)state;
    char out[TIME_ISO_MAX];
    /* clamped years keep the fixed-width shape and never overflow the buffer */
    size_t n = time_format_iso(INT64_MAX, out);
    assert_int_equal(n, strlen(out));
    assert_true(n < TIME_ISO_MAX);
    assert_memory_equal(out, "9999-", 5);
    n = time_format_iso(INT64_MIN, out);
    assert_int_equal(n, strlen(out));
    assert_true(n < TIME_ISO_MAX);
    assert_memory_equal(out, "0000-", 5);
}

/* ---- time_parse_iso: valid -------------------------------------------------------- */

static void test_parse_basic(void **state)
{
    (void)state;
    assert_int_equal(parse_ok("1970-01-01T00:00:00Z", 0), 0);
    assert_int_equal(parse_ok("2025-11-29T17:00:00Z", 0), INT64_C(1764435600) * US);
    assert_int_equal(parse_ok("2025-11-29T17:00:00z", 0), INT64_C(1764435600) * US);
    assert_int_equal(parse_ok("2025-11-29t17:00:00Z", 0), INT64_C(1764435600) * US);
    assert_int_equal(parse_ok("2025-11-29t17:00:00z", 0), INT64_C(1764435600) * US);
    assert_int_equal(parse_ok("1969-12-31T23:59:59Z", 0), -US);
    assert_int_equal(parse_ok("2024-02-29T12:00:00Z", 0), INT64_C(19782) * DAY + 12 * 3600 * US);
    assert_int_equal(parse_ok("0001-01-01T00:00:00Z", 0), INT64_C(-62135596800) * US);
    assert_int_equal(parse_ok("9999-12-31T23:59:59Z", 0), INT64_C(253402300799) * US);
    assert_int_equal(parse_ok("2000-02-29T00:00:00Z", 0), INT64_C(11016) * DAY);
}

static void test_parse_offsets(void **state)
{
    (void)state;
    const int64_t base = INT64_C(1764435600) * US; /* 2025-11-29T17:00:00Z */
    assert_int_equal(parse_ok("2025-11-29T19:00:00+02:00", 0), base);
    assert_int_equal(parse_ok("2025-11-29T12:00:00-05:00", 0), base);
    assert_int_equal(parse_ok("2025-11-29T22:30:00+05:30", 0), base);
    assert_int_equal(parse_ok("2025-11-29T17:00:00+00:00", 0), base);
    assert_int_equal(parse_ok("2025-11-29T17:00:00-00:00", 0), base);
    assert_int_equal(parse_ok("2025-11-29T16:15:00-00:45", 0), base);
    /* offsets that cross a day, a month and a year */
    assert_int_equal(parse_ok("2025-11-30T01:00:00+08:00", 0), base);
    assert_int_equal(parse_ok("2025-01-01T00:30:00+01:00", 0), INT64_C(1735687800) * US);
    assert_int_equal(parse_ok("2024-12-31T23:30:00-01:00", 0), INT64_C(1735691400) * US);
    assert_int_equal(parse_ok("2025-11-29T23:59:00+23:59", 0), base - 17 * 3600 * US);
    /* fraction and offset together */
    assert_int_equal(parse_ok("2025-11-29T19:00:00.5+02:00", 0), base + 500000);
}

static void test_parse_fractions(void **state)
{
    (void)state;
    const int64_t base = INT64_C(1764435600) * US;
    assert_int_equal(parse_ok("2025-11-29T17:00:00.1Z", 0), base + 100000);
    assert_int_equal(parse_ok("2025-11-29T17:00:00.12Z", 0), base + 120000);
    assert_int_equal(parse_ok("2025-11-29T17:00:00.123Z", 0), base + 123000);
    assert_int_equal(parse_ok("2025-11-29T17:00:00.1234Z", 0), base + 123400);
    assert_int_equal(parse_ok("2025-11-29T17:00:00.12345Z", 0), base + 123450);
    assert_int_equal(parse_ok("2025-11-29T17:00:00.123456Z", 0), base + 123456);
    /* beyond microseconds: truncated, never rounded */
    assert_int_equal(parse_ok("2025-11-29T17:00:00.1234567Z", 0), base + 123456);
    assert_int_equal(parse_ok("2025-11-29T17:00:00.12345678Z", 0), base + 123456);
    assert_int_equal(parse_ok("2025-11-29T17:00:00.123456789Z", 0), base + 123456);
    assert_int_equal(parse_ok("2025-11-29T17:00:00.999999999Z", 0), base + 999999);
    assert_int_equal(parse_ok("2025-11-29T17:00:00.000000Z", 0), base);
    assert_int_equal(parse_ok("2025-11-29T17:00:00.000000999Z", 0), base);
    assert_int_equal(parse_ok("2025-11-29T17:00:00.000001Z", 0), base + 1);
    /* before the epoch the fraction still counts forward from the second */
    assert_int_equal(parse_ok("1969-12-31T23:59:59.25Z", 0), -750000);
}

static void test_parse_bare_date(void **state)
{
    (void)state;
    assert_int_equal(parse_ok("2025-11-29", TIME_DATE_OK), INT64_C(20421) * DAY);
    assert_int_equal(parse_ok("1970-01-01", TIME_DATE_OK), 0);
    assert_int_equal(parse_ok("1969-12-31", TIME_DATE_OK), -DAY);
    assert_int_equal(parse_ok("2024-02-29", TIME_DATE_OK), INT64_C(19782) * DAY);
    assert_parse_refused("2025-11-29", 0);
    assert_parse_refused("2024-02-29", 0);
    /* a full timestamp is fine with the flag too */
    assert_int_equal(parse_ok("2025-11-29T17:00:00Z", TIME_DATE_OK), INT64_C(1764435600) * US);
    /* the flag does not relax the date itself */
    assert_parse_refused("2025-02-29", TIME_DATE_OK);
    assert_parse_refused("2025-11-29T", TIME_DATE_OK);
    assert_parse_refused("2025-11-29Z", TIME_DATE_OK);
    assert_parse_refused("2025-11-29 ", TIME_DATE_OK);
    assert_parse_refused("2025-11", TIME_DATE_OK);
    assert_parse_refused("20251129", TIME_DATE_OK);
}

/* ---- time_parse_iso: invalid ------------------------------------------------------ */

static void test_parse_invalid(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "2025-02-29T00:00:00Z", /* not a leap year */
        "1900-02-29T00:00:00Z", /* century, not a leap year */
        "2024-13-01T00:00:00Z",
        "2024-00-01T00:00:00Z",
        "2024-01-00T00:00:00Z",
        "2024-01-32T00:00:00Z",
        "2024-04-31T00:00:00Z",
        "2024-06-31T00:00:00Z",
        "2024-01-01T24:00:00Z",
        "2024-01-01T23:60:00Z",
        "2024-01-01T23:59:60Z", /* no leap seconds */
        "2024-01-01T23:59:59",  /* missing zone */
        "2024-01-01T23:59:59ZZ",
        "2024-01-01T23:59:59Z ",
        "2024-01-01T23:59:59Zjunk",
        " 2024-01-01T23:59:59Z",
        "2024-01-01T23:59:59.Z",
        "2024-01-01T23:59:59.1234567890Z", /* 10 fraction digits */
        "2024-01-01T23:59:59,5Z",
        "2024-01-01T23:59:59.5",
        "2025-1-01T00:00:00Z",
        "2025-01-1T00:00:00Z",
        "25-01-01T00:00:00Z",
        "+2025-01-01T00:00:00Z",
        "02025-01-01T00:00:00Z",
        "2025/01/01T00:00:00Z",
        "2025-01-01 00:00:00Z",
        "2025-01-01X00:00:00Z",
        "2025-01-01T0:00:00Z",
        "2025-01-01T00:0:00Z",
        "2025-01-01T00:00:0Z",
        "2025-01-01T00:00Z",
        "2025-01-01T00-00-00Z",
        "2025-01-01T00:00:00+0100",
        "2025-01-01T00:00:00+01",
        "2025-01-01T00:00:00+1:00",
        "2025-01-01T00:00:00+24:00",
        "2025-01-01T00:00:00+01:60",
        "2025-01-01T00:00:00+01:00Z",
        "2025-01-01T00:00:00UTC",
        "2025-01-01T00:00:00 Z",
        "0000-01-01T00:00:00Z", /* year 0 is out of range */
        "abcd-01-01T00:00:00Z",
        "2025",
        "2025-",
        "2025-01-",
        "T00:00:00Z",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_parse_refused(bad[i], 0);
        assert_parse_refused(bad[i], TIME_DATE_OK);
    }
    int64_t us = 5;
    assert_int_equal(time_parse_iso(NULL, TIME_DATE_OK, &us), -1);
    assert_int_equal(us, 5);
}

/* ---- round trips ------------------------------------------------------------------ */

static void assert_round_trip(int64_t us)
{
    char text[TIME_ISO_MAX];
    time_format_iso(us, text);
    int64_t back = 0;
    if (time_parse_iso(text, 0, &back) != 0)
        fail_msg("cannot parse formatted %lld: \"%s\"", (long long)us, text);
    if (back != us)
        fail_msg("round trip of %lld via \"%s\" gave %lld", (long long)us, text, (long long)back);
}

static void test_round_trip(void **state)
{
    (void)state;
    static const int64_t fixed[] = {
        0,
        1,
        -1,
        999999,
        -999999,
        US,
        -US,
        DAY - 1,
        DAY,
        -DAY,
        -DAY - 1,
        INT64_C(1764435600) * US + 1,
        INT64_C(19782) * DAY,
        INT64_C(19782) * DAY + DAY - 1,
        INT64_C(-62135596800) * US,          /* 0001-01-01 */
        INT64_C(253402300799) * US + 999999, /* 9999-12-31T23:59:59.999999 */
        INT64_C(-2208988800) * US + 123456,  /* 1900-01-01 */
        INT64_C(951782400) * US,             /* 2000-02-29 */
        INT64_C(4107542400) * US - 1,        /* 2100-02-28T23:59:59.999999 */
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        assert_round_trip(fixed[i]);

    /* a deterministic spread over years 1..9999, with and without fractions */
    const int64_t lo = INT64_C(-62135596800) * US;
    const int64_t span = INT64_C(253402300799) * US + 999999 - lo;
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t us = lo + (int64_t)(x % (uint64_t)span);
        if (i % 3 == 0)
            us -= us % US; /* whole seconds: no fraction printed */
        assert_round_trip(us);
    }
}

/* format(parse(s)) == s for canonical text. */
static void test_canonical_text_round_trip(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "1970-01-01T00:00:00Z",        "2024-02-29T23:59:59Z",        "1999-12-31T23:59:59.999999Z",
        "2000-01-01T00:00:00.000001Z", "0001-01-01T00:00:00Z",        "9999-12-31T23:59:59Z",
        "1969-07-20T20:17:40Z",        "2025-11-29T17:00:00.120000Z",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char out[TIME_ISO_MAX];
        time_format_iso(parse_ok(texts[i], 0), out);
        assert_string_equal(out, texts[i]);
    }
}

static void test_now_is_plausible(void **state)
{
    (void)state;
    int64_t a = time_now_us();
    int64_t b = time_now_us();
    assert_true(a > INT64_C(1704067200) * US); /* after 2024-01-01 */
    assert_true(b >= a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_days_from_civil_known),
        cmocka_unit_test(test_days_from_civil_contiguous),
        cmocka_unit_test(test_format_epoch_and_fractions),
        cmocka_unit_test(test_format_before_1970),
        cmocka_unit_test(test_format_calendar_edges),
        cmocka_unit_test(test_format_extremes_fit),
        cmocka_unit_test(test_parse_basic),
        cmocka_unit_test(test_parse_offsets),
        cmocka_unit_test(test_parse_fractions),
        cmocka_unit_test(test_parse_bare_date),
        cmocka_unit_test(test_parse_invalid),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_canonical_text_round_trip),
        cmocka_unit_test(test_now_is_plausible),
    };
    return cmocka_run_group_tests_name("util/timefmt", tests, NULL, NULL);
}
