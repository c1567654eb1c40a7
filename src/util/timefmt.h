#ifndef WHISTLE_UTIL_TIMEFMT_H
#define WHISTLE_UTIL_TIMEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Timestamps are int64 microseconds since 1970-01-01T00:00:00Z everywhere inside Whistle;
 * they become ISO 8601 text only at the edges. The conversions here use the proleptic
 * Gregorian calendar and never consult the process time zone.
 */
#define TIME_ISO_MAX 40

/* Writes "YYYY-MM-DDTHH:MM:SSZ" (".ffffff" before the Z when us has a fraction) into out,
 * NUL-terminated; returns the length. Years outside 0000..9999 are clamped. */
size_t time_format_iso(int64_t us, char out[TIME_ISO_MAX]);

enum time_parse_flags {
    TIME_DATE_OK = 1, /* accept a bare "YYYY-MM-DD" as midnight UTC */
};

/* Parses an RFC 3339 date-time ("2025-11-29T17:00:00Z", optional fraction of 1..9 digits,
 * "Z" or "+HH:MM"/"-HH:MM"; a lowercase 't'/'z' too) and, with TIME_DATE_OK, a bare date.
 * Returns 0 and sets *us, or -1 when s is malformed or out of range (year 1..9999). */
int time_parse_iso(const char *s, unsigned flags, int64_t *us);

/* Days since the epoch of a proleptic Gregorian date (month 1..12, day 1..31). */
int64_t time_days_from_civil(int64_t y, unsigned m, unsigned d);

/* The current time from CLOCK_REALTIME, in microseconds: the `now` that callers pass to
 * domain code (which never reads a clock itself). Honours the black-box test hook
 * WHISTLE_TEST_NOW_OFFSET_FILE (see timefmt.c). */
int64_t time_now_us(void);
bool time_test_clock_enabled(void);

/* A monotonic clock for durations (request timing), in microseconds. */
int64_t time_mono_us(void);

#endif
