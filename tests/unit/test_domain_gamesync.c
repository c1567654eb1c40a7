/*
 * Unit tests for src/domain/gamesync.c: US Eastern kickoffs to UTC across daylight saving
 * (explicit dates on both federal rules, then every day of 1999-2035 against the system's
 * tz database), the status rules and what counts as a change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "domain/gamesync.h"
#include "util/timefmt.h"

static const char *utc(int64_t us)
{
    static char out[TIME_ISO_MAX];
    time_format_iso(us, out);
    return out;
}

#define EASTERN(y, m, d, hh, mm) utc(gamesync_eastern_to_utc(y, m, d, hh, mm))

static void test_eastern_rule_since_2007(void **state)
{
    (void)state;
    /* 2024: daylight time from Sunday 10 March 02:00 to Sunday 3 November 02:00 */
    assert_string_equal(EASTERN(2024, 3, 10, 1, 59), "2024-03-10T06:59:00Z");
    assert_string_equal(EASTERN(2024, 3, 10, 3, 0), "2024-03-10T07:00:00Z");
    /* the skipped hour counts as daylight time */
    assert_string_equal(EASTERN(2024, 3, 10, 2, 30), "2024-03-10T06:30:00Z");
    assert_string_equal(EASTERN(2024, 3, 9, 20, 0), "2024-03-10T01:00:00Z");
    assert_string_equal(EASTERN(2024, 11, 3, 0, 30), "2024-11-03T04:30:00Z");
    /* the repeated hour: its first (daylight) occurrence */
    assert_string_equal(EASTERN(2024, 11, 3, 1, 30), "2024-11-03T05:30:00Z");
    assert_string_equal(EASTERN(2024, 11, 3, 2, 0), "2024-11-03T07:00:00Z");
    assert_string_equal(EASTERN(2024, 11, 3, 13, 0), "2024-11-03T18:00:00Z");
    assert_string_equal(EASTERN(2024, 10, 31, 20, 15), "2024-11-01T00:15:00Z");
    /* 2007, the first year of the rule: 11 March and 4 November */
    assert_string_equal(EASTERN(2007, 3, 10, 12, 0), "2007-03-10T17:00:00Z");
    assert_string_equal(EASTERN(2007, 3, 11, 12, 0), "2007-03-11T16:00:00Z");
    assert_string_equal(EASTERN(2007, 11, 3, 13, 0), "2007-11-03T17:00:00Z");
    assert_string_equal(EASTERN(2007, 11, 4, 13, 0), "2007-11-04T18:00:00Z");
    /* a Super Bowl in February and a September Monday night */
    assert_string_equal(EASTERN(2025, 2, 9, 18, 30), "2025-02-09T23:30:00Z");
    assert_string_equal(EASTERN(2019, 9, 9, 22, 20), "2019-09-10T02:20:00Z");
    /* leap day */
    assert_string_equal(EASTERN(2024, 2, 29, 23, 59), "2024-03-01T04:59:00Z");
}

static void test_eastern_rule_1987_to_2006(void **state)
{
    (void)state;
    /* 2006: first Sunday of April (2 April) to last Sunday of October (29 October) */
    assert_string_equal(EASTERN(2006, 4, 2, 1, 59), "2006-04-02T06:59:00Z");
    assert_string_equal(EASTERN(2006, 4, 2, 3, 0), "2006-04-02T07:00:00Z");
    assert_string_equal(EASTERN(2006, 3, 12, 12, 0), "2006-03-12T17:00:00Z");
    assert_string_equal(EASTERN(2006, 10, 22, 13, 0), "2006-10-22T17:00:00Z");
    assert_string_equal(EASTERN(2006, 10, 29, 13, 0), "2006-10-29T18:00:00Z");
    assert_string_equal(EASTERN(2006, 11, 2, 20, 0), "2006-11-03T01:00:00Z");
    /* 2000: 2 April and 29 October */
    assert_true(gamesync_eastern_dst(2000, 4, 2, 3, 0));
    assert_false(gamesync_eastern_dst(2000, 4, 1, 12, 0));
    assert_true(gamesync_eastern_dst(2000, 10, 29, 1, 59));
    assert_false(gamesync_eastern_dst(2000, 10, 29, 2, 0));
}

/* Every day from 1999 to 2035 at four wall-clock times outside the switching hours, against
 * mktime() under TZ=America/New_York (the tz database). Single-threaded test: setenv is
 * fine here; Whistle itself never sets TZ. */
static void test_eastern_matches_tz_database(void **state)
{
    (void)state;
    if (access("/usr/share/zoneinfo/America/New_York", R_OK) != 0)
        skip();
    setenv("TZ", "America/New_York", 1);
    tzset();
    static const int hours[] = {0, 3, 12, 20};
    int checked = 0;
    for (int64_t day = time_days_from_civil(1999, 1, 1); day <= time_days_from_civil(2035, 12, 31);
         day++) {
        time_t t0 = (time_t)(day * 86400);
        struct tm g;
        gmtime_r(&t0, &g);
        for (size_t h = 0; h < sizeof hours / sizeof hours[0]; h++) {
            struct tm tm = {.tm_year = g.tm_year,
                            .tm_mon = g.tm_mon,
                            .tm_mday = g.tm_mday,
                            .tm_hour = hours[h],
                            .tm_min = 15,
                            .tm_isdst = -1};
            int64_t want = (int64_t)mktime(&tm) * 1000000;
            int64_t got = gamesync_eastern_to_utc(g.tm_year + 1900, (unsigned)g.tm_mon + 1,
                                                  (unsigned)g.tm_mday, (unsigned)hours[h], 15);
            if (got != want)
                fail_msg("%04d-%02d-%02d %02d:15 Eastern: got %s", g.tm_year + 1900, g.tm_mon + 1,
                         g.tm_mday, hours[h], utc(got));
            checked++;
        }
    }
    assert_true(checked > 50000);
    unsetenv("TZ");
    tzset();
}

#define HOUR (INT64_C(3600) * 1000000)

static void test_status_rules(void **state)
{
    (void)state;
    int64_t k = 1000 * HOUR;
    struct gamesync_facts f = {.kickoff = k};
    assert_string_equal(gamesync_status(&f, k - 1), "upcoming");
    assert_string_equal(gamesync_status(&f, k), "live");
    assert_string_equal(gamesync_status(&f, k + 5 * HOUR - 1), "live");
    assert_string_equal(gamesync_status(&f, k + 5 * HOUR), "unknown");
    f.final = true;
    assert_string_equal(gamesync_status(&f, k - HOUR), "final");
    f.delayed = true;
    assert_string_equal(gamesync_status(&f, k), "final"); /* final wins over delayed */
    f.final = false;
    assert_string_equal(gamesync_status(&f, k - HOUR), "delayed");
    f.postponed = true;
    assert_string_equal(gamesync_status(&f, k), "postponed");
    f.canceled = true;
    assert_string_equal(gamesync_status(&f, k), "canceled");

    struct gamesync_facts live = {.kickoff = k, .in_progress = true};
    assert_string_equal(gamesync_status(&live, k - HOUR), "live");
    /* a TBD kickoff: the day is known, the time is not */
    struct gamesync_facts tbd = {.kickoff = k, .kickoff_tbd = true};
    assert_string_equal(gamesync_status(&tbd, k + 23 * HOUR), "upcoming");
    assert_string_equal(gamesync_status(&tbd, k + 24 * HOUR), "unknown");
    struct gamesync_facts none = {.kickoff = MODEL_NULL};
    assert_string_equal(gamesync_status(&none, k), "unknown");
}

static void test_differs_field_by_field(void **state)
{
    (void)state;
    struct game a = {.id = "nfl:x",
                     .home = {.id = "h"},
                     .away = {.id = "a"},
                     .home_score = 1,
                     .away_score = 2,
                     .starts_at = 3,
                     .period = MODEL_NULL,
                     .clock = NULL,
                     .status = "final",
                     .league = "nfl",
                     .season_type = "regular",
                     .stage_label = NULL,
                     .season = 2024,
                     .week = 1,
                     .created_at = 1,
                     .updated_at = 2};
    struct game b = a;
    b.created_at = 7; /* timestamps are not compared */
    b.updated_at = 8;
    assert_false(gamesync_differs(&a, &b));
    b.stage_label = "Super Bowl";
    assert_true(gamesync_differs(&a, &b));
    b = a, b.home_score = MODEL_NULL;
    assert_true(gamesync_differs(&a, &b));
    b = a, b.starts_at = 4;
    assert_true(gamesync_differs(&a, &b));
    b = a, b.kickoff_tbd = true;
    assert_true(gamesync_differs(&a, &b));
    b = a, b.clock = "1:00";
    assert_true(gamesync_differs(&a, &b));
    b = a, b.status = "unknown";
    assert_true(gamesync_differs(&a, &b));
    b = a, b.away.id = "z";
    assert_true(gamesync_differs(&a, &b));
    b = a, b.week = 2;
    assert_true(gamesync_differs(&a, &b));
    b = a, b.neutral_site = true;
    assert_true(gamesync_differs(&a, &b));
}

static void test_clock_form(void **state)
{
    (void)state;
    char out[16];
    static const char *const ok[][2] = {
        {"7:12", "7:12"},  {"07:12", "7:12"},    {"15:00", "15:00"},  {"0:00", "0:00"},
        {"00:00", "0:00"}, {"00:07:12", "7:12"}, {"0:00:59", "0:59"}, {"12:05", "12:05"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(gamesync_clock(ok[i][0], out, sizeof out), 0);
        assert_string_equal(out, ok[i][1]);
    }
    static const char *const bad[] = {"",      "7",       "7:1",    "7:123", "16:00", "15:01",
                                      "7:60",  "1:07:12", "-1:00",  " 7:12", "7:12 ", "7.12",
                                      "7::12", "1:2:3:4", "123:00", ":12"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(gamesync_clock(bad[i], out, sizeof out), -1);
    assert_int_equal(gamesync_clock(NULL, out, sizeof out), -1);
}

static struct game stored_game(int64_t kickoff)
{
    struct game g = {.id = "cfb:1",
                     .home = {.id = "cfb-a"},
                     .away = {.id = "cfb-b"},
                     .home_score = MODEL_NULL,
                     .away_score = MODEL_NULL,
                     .starts_at = kickoff,
                     .period = MODEL_NULL,
                     .status = "upcoming",
                     .league = "college",
                     .season_type = "regular",
                     .season = 2024,
                     .week = 7};
    return g;
}

/* The scoreboard's facts on a stored game: two polls of a live game whose period and clock
 * move, then its end; a pregame listing before and after kickoff. */
static void test_apply_live(void **state)
{
    (void)state;
    int64_t k = 1000 * HOUR;
    struct game g = stored_game(k), before;
    struct gamesync_live l = {.id = "cfb:1",
                              .state = GAMESYNC_IN_PROGRESS,
                              .period = 2,
                              .clock = "7:12",
                              .home_score = 14,
                              .away_score = 10,
                              .neutral_site = -1};
    before = g;
    gamesync_apply_live(&g, &l, k + HOUR);
    assert_string_equal(g.status, "live");
    assert_int_equal(g.period, 2);
    assert_string_equal(g.clock, "7:12");
    assert_int_equal(g.home_score, 14);
    assert_int_equal(g.away_score, 10);
    assert_false(g.neutral_site);
    assert_true(gamesync_differs(&before, &g));
    /* the same poll again changes nothing */
    before = g;
    gamesync_apply_live(&g, &l, k + HOUR);
    assert_false(gamesync_differs(&before, &g));
    /* the next poll: the third period, a null score keeps the stored one */
    l.period = 3, l.clock = "14:51", l.away_score = MODEL_NULL;
    gamesync_apply_live(&g, &l, k + 2 * HOUR);
    assert_int_equal(g.period, 3);
    assert_string_equal(g.clock, "14:51");
    assert_int_equal(g.away_score, 10);
    assert_true(gamesync_differs(&before, &g));
    /* completed: final, the last period and clock kept */
    struct gamesync_live end = {.id = "cfb:1",
                                .state = GAMESYNC_COMPLETED,
                                .period = 4,
                                .clock = "0:00",
                                .home_score = 31,
                                .away_score = 28,
                                .neutral_site = 1};
    gamesync_apply_live(&g, &end, k + 4 * HOUR);
    assert_string_equal(g.status, "final");
    assert_int_equal(g.period, 4);
    assert_string_equal(g.clock, "0:00");
    assert_int_equal(g.home_score, 31);
    assert_true(g.neutral_site);
    /* a pregame listing of a final game changes nothing */
    struct gamesync_live pre = {.id = "cfb:1",
                                .state = GAMESYNC_SCHEDULED,
                                .period = MODEL_NULL,
                                .home_score = MODEL_NULL,
                                .away_score = MODEL_NULL,
                                .neutral_site = -1};
    before = g;
    gamesync_apply_live(&g, &pre, k + 5 * HOUR);
    assert_false(gamesync_differs(&before, &g));
    /* scheduled: upcoming before kickoff, delayed after it */
    g = stored_game(k);
    g.status = "live"; /* what the clock inferred */
    gamesync_apply_live(&g, &pre, k - 1);
    assert_string_equal(g.status, "upcoming");
    gamesync_apply_live(&g, &pre, k + 10 * 60 * INT64_C(1000000));
    assert_string_equal(g.status, "delayed");
    assert_int_equal(g.period, MODEL_NULL);
    assert_null(g.clock);
    /* a TBD kickoff is delayed only once its day is over */
    g = stored_game(k);
    g.kickoff_tbd = true;
    gamesync_apply_live(&g, &pre, k + 20 * HOUR);
    assert_string_equal(g.status, "upcoming");
    gamesync_apply_live(&g, &pre, k + 24 * HOUR);
    assert_string_equal(g.status, "delayed");
    /* a postponement stands against a pregame listing */
    g = stored_game(k);
    g.status = "postponed";
    gamesync_apply_live(&g, &pre, k + HOUR);
    assert_string_equal(g.status, "postponed");
}

/* A schedule document never erases a scoreboard's facts, and its own facts still win. */
static void test_keep_live(void **state)
{
    (void)state;
    int64_t k = 1000 * HOUR;
    struct game stored = stored_game(k);
    stored.status = "live", stored.period = 3, stored.clock = "4:02";
    stored.home_score = 21, stored.away_score = 17;
    /* /games: inferred live, no points yet */
    struct game in = stored_game(k);
    in.status = "live";
    gamesync_keep_live(&stored, &in);
    assert_false(gamesync_differs(&stored, &in));
    /* inferred unknown (the 5-hour window passed): still live while the scoreboard says so */
    in = stored_game(k);
    in.status = "unknown";
    gamesync_keep_live(&stored, &in);
    assert_string_equal(in.status, "live");
    assert_int_equal(in.period, 3);
    /* the schedule says final: final wins, the scoreboard's last period is not invented */
    in = stored_game(k);
    in.status = "final", in.home_score = 28, in.away_score = 17;
    gamesync_keep_live(&stored, &in);
    assert_string_equal(in.status, "final");
    assert_int_equal(in.period, MODEL_NULL);
    assert_null(in.clock);
    /* stored final from the scoreboard (period 4, 0:00), the schedule final too: kept */
    struct game fin = stored;
    fin.status = "final", fin.period = 4, fin.clock = "0:00";
    gamesync_keep_live(&fin, &in);
    assert_int_equal(in.period, 4);
    assert_string_equal(in.clock, "0:00");
    /* the scoreboard said completed, the schedule still infers live: final stands */
    in = stored_game(k);
    in.status = "live";
    gamesync_keep_live(&fin, &in);
    assert_false(gamesync_differs(&fin, &in));
    /* a new kickoff makes the game upcoming: the schedule wins */
    in = stored_game(k + 24 * HOUR);
    gamesync_keep_live(&stored, &in);
    assert_string_equal(in.status, "upcoming");
    assert_int_equal(in.period, MODEL_NULL);
    /* delayed (the scoreboard: not begun) is kept against an inferred live */
    struct game delayed = stored_game(k);
    delayed.status = "delayed";
    in = stored_game(k);
    in.status = "live";
    gamesync_keep_live(&delayed, &in);
    assert_string_equal(in.status, "delayed");
    /* nothing stored from a scoreboard (nflverse): the inference stands */
    struct game plain = stored_game(k);
    plain.status = "upcoming";
    in = stored_game(k);
    in.status = "live";
    gamesync_keep_live(&plain, &in);
    assert_string_equal(in.status, "live");
    assert_int_equal(in.period, MODEL_NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eastern_rule_since_2007),
        cmocka_unit_test(test_eastern_rule_1987_to_2006),
        cmocka_unit_test(test_eastern_matches_tz_database),
        cmocka_unit_test(test_status_rules),
        cmocka_unit_test(test_differs_field_by_field),
        cmocka_unit_test(test_clock_form),
        cmocka_unit_test(test_apply_live),
        cmocka_unit_test(test_keep_live),
    };
    return cmocka_run_group_tests_name("domain/gamesync", tests, NULL, NULL);
}
