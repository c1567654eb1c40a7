#include "util/timefmt.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define US_PER_SEC INT64_C(1000000)
#define US_PER_DAY (INT64_C(86400) * US_PER_SEC)

/* Howard Hinnant's days_from_civil / civil_from_days: exact for the whole int range. */
int64_t time_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static char *put2(char *o, unsigned v)
{
    o[0] = (char)('0' + v / 10 % 10);
    o[1] = (char)('0' + v % 10);
    return o + 2;
}

size_t time_format_iso(int64_t us, char out[TIME_ISO_MAX])
{
    int64_t days = us / US_PER_DAY;
    int64_t rem = us % US_PER_DAY;
    if (rem < 0) {
        rem += US_PER_DAY;
        days--;
    }
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    if (y < 0)
        y = 0;
    if (y > 9999)
        y = 9999;
    unsigned secs = (unsigned)(rem / US_PER_SEC);
    unsigned frac = (unsigned)(rem % US_PER_SEC);
    /* written by hand: this runs several times per incident on the hot read path */
    char *o = out;
    o = put2(o, (unsigned)(y / 100));
    o = put2(o, (unsigned)(y % 100));
    *o++ = '-';
    o = put2(o, m);
    *o++ = '-';
    o = put2(o, d);
    *o++ = 'T';
    o = put2(o, secs / 3600);
    *o++ = ':';
    o = put2(o, secs / 60 % 60);
    *o++ = ':';
    o = put2(o, secs % 60);
    if (frac) {
        *o++ = '.';
        for (unsigned div = 100000; div; div /= 10)
            *o++ = (char)('0' + frac / div % 10);
    }
    *o++ = 'Z';
    *o = '\0';
    return (size_t)(o - out);
}

/* Reads exactly n decimal digits at *p, advancing it. */
static bool digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    *p += n;
    *out = v;
    return true;
}

static bool is_leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m)
{
    static const int dim[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : dim[m - 1];
}

int time_parse_iso(const char *s, unsigned flags, int64_t *us)
{
    const char *p = s;
    int y, mo, d, h = 0, mi = 0, sec = 0;
    int64_t frac = 0;
    int64_t offset_s = 0;

    if (!s || !digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
        !digits(&p, 2, &d))
        return -1;
    if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
        return -1;
    if (*p == '\0') {
        if (!(flags & TIME_DATE_OK))
            return -1;
        goto done;
    }
    if (*p != 'T' && *p != 't')
        return -1;
    p++;
    if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi) || *p++ != ':' ||
        !digits(&p, 2, &sec))
        return -1;
    if (h > 23 || mi > 59 || sec > 59)
        return -1;
    if (*p == '.') {
        p++;
        int nd = 0;
        int64_t scale = 100000;
        while (*p >= '0' && *p <= '9') {
            if (nd < 6) {
                frac += (*p - '0') * scale;
                scale /= 10;
            }
            nd++;
            p++;
        }
        if (nd < 1 || nd > 9)
            return -1;
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p == '-' ? -1 : 1;
        int oh, om;
        p++;
        if (!digits(&p, 2, &oh) || *p++ != ':' || !digits(&p, 2, &om) || oh > 23 || om > 59)
            return -1;
        offset_s = sign * (oh * 3600 + om * 60);
    } else {
        return -1;
    }
    if (*p != '\0')
        return -1;
done:
    *us = (time_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + sec -
           offset_s) *
              US_PER_SEC +
          frac;
    /* an offset can move the instant out of the years we represent */
    if (*us < time_days_from_civil(1, 1, 1) * US_PER_DAY ||
        *us >= time_days_from_civil(10000, 1, 1) * US_PER_DAY)
        return -1;
    return 0;
}

/* Test hook (black-box tests only): when WHISTLE_TEST_NOW_OFFSET_FILE names a file, its
 * integer content is read on every call and added, in seconds, to the clock, so tests can
 * cross a minute, a day or a 90-day expiry without sleeping. Unset in production; serve
 * warns at start when it is set. */
static const char *offset_file;
static pthread_once_t offset_once = PTHREAD_ONCE_INIT;

static void offset_init(void)
{
    const char *f = getenv("WHISTLE_TEST_NOW_OFFSET_FILE");
    offset_file = f && *f ? f : NULL;
}

static int64_t test_offset_us(void)
{
    pthread_once(&offset_once, offset_init);
    if (!offset_file)
        return 0;
    FILE *f = fopen(offset_file, "r");
    if (!f)
        return 0;
    long long secs = 0;
    if (fscanf(f, "%lld", &secs) != 1)
        secs = 0;
    fclose(f);
    return (int64_t)secs * US_PER_SEC;
}

bool time_test_clock_enabled(void)
{
    pthread_once(&offset_once, offset_init);
    return offset_file != NULL;
}

int64_t time_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * US_PER_SEC + ts.tv_nsec / 1000 + test_offset_us();
}

int64_t time_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * US_PER_SEC + ts.tv_nsec / 1000;
}
