#include "domain/gamesync.h"

#include <stdio.h>
#include <string.h>

#include "domain/vocab.h"
#include "util/timefmt.h"

#define MINUTE_US (INT64_C(60) * 1000000)
#define DAY_US    (INT64_C(86400) * 1000000)

/* Day of the month of the n-th (1-based) Sunday of y-m; n = 0 asks for the last one. */
static unsigned nth_sunday(int64_t y, unsigned m, unsigned n)
{
    static const unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t first = time_days_from_civil(y, m, 1);
    /* 1970-01-01 was a Thursday: weekday 0 = Sunday */
    unsigned wd = (unsigned)(((first % 7) + 7 + 4) % 7);
    unsigned day = 1 + (7 - wd) % 7;
    if (n > 0)
        return day + 7 * (n - 1);
    unsigned last = mdays[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
    while (day + 7 <= last)
        day += 7;
    return day;
}

bool gamesync_eastern_dst(int64_t y, unsigned m, unsigned d, unsigned hh, unsigned mm)
{
    unsigned start_m, start_d, end_m, end_d;
    if (y >= 2007) {
        start_m = 3, start_d = nth_sunday(y, 3, 2);
        end_m = 11, end_d = nth_sunday(y, 11, 1);
    } else {
        start_m = 4, start_d = nth_sunday(y, 4, 1);
        end_m = 10, end_d = nth_sunday(y, 10, 0);
    }
    /* wall-clock minutes within the year, compared against both switches at 02:00 */
    int64_t t = (time_days_from_civil(y, m, d) * 24 + hh) * 60 + mm;
    int64_t start = (time_days_from_civil(y, start_m, start_d) * 24 + 2) * 60;
    int64_t end = (time_days_from_civil(y, end_m, end_d) * 24 + 2) * 60;
    return t >= start && t < end;
}

int64_t gamesync_eastern_to_utc(int64_t y, unsigned m, unsigned d, unsigned hh, unsigned mm)
{
    int64_t local = time_days_from_civil(y, m, d) * DAY_US + (int64_t)(hh * 60 + mm) * MINUTE_US;
    int64_t offset_h = gamesync_eastern_dst(y, m, d, hh, mm) ? 4 : 5;
    return local + offset_h * 60 * MINUTE_US;
}

static enum game_status status_of(const struct gamesync_facts *f, int64_t now)
{
    if (f->canceled)
        return GAME_STATUS_CANCELED;
    if (f->postponed)
        return GAME_STATUS_POSTPONED;
    if (f->final)
        return GAME_STATUS_FINAL;
    if (f->delayed)
        return GAME_STATUS_DELAYED;
    if (f->in_progress)
        return GAME_STATUS_LIVE;
    if (f->kickoff == MODEL_NULL)
        return GAME_STATUS_UNKNOWN;
    if (f->kickoff_tbd)
        return now < f->kickoff + DAY_US ? GAME_STATUS_UPCOMING : GAME_STATUS_UNKNOWN;
    if (now < f->kickoff)
        return GAME_STATUS_UPCOMING;
    return now < f->kickoff + GAMESYNC_LIVE_WINDOW_US ? GAME_STATUS_LIVE : GAME_STATUS_UNKNOWN;
}

const char *gamesync_status(const struct gamesync_facts *f, int64_t now)
{
    return game_status_names[status_of(f, now)];
}

static bool str_differs(const char *a, const char *b)
{
    if (!a || !b)
        return a != b;
    return strcmp(a, b) != 0;
}

bool gamesync_differs(const struct game *a, const struct game *b)
{
    return str_differs(a->home.id, b->home.id) || str_differs(a->away.id, b->away.id) ||
           a->home_score != b->home_score || a->away_score != b->away_score ||
           a->starts_at != b->starts_at || a->kickoff_tbd != b->kickoff_tbd ||
           a->period != b->period || str_differs(a->clock, b->clock) ||
           str_differs(a->status, b->status) || a->season != b->season || a->week != b->week ||
           str_differs(a->league, b->league) || str_differs(a->season_type, b->season_type) ||
           str_differs(a->stage_label, b->stage_label) || a->neutral_site != b->neutral_site;
}

int gamesync_clock(const char *in, char *out, size_t outlen)
{
    unsigned part[3];
    size_t np = 0, digits = 0;
    unsigned v = 0;
    if (!in || !*in)
        return -1;
    /* up to three parts of one or two digits separated by ':' */
    for (const char *p = in;; p++) {
        if (*p >= '0' && *p <= '9') {
            if (++digits > 2)
                return -1;
            v = v * 10 + (unsigned)(*p - '0');
            continue;
        }
        if ((*p && *p != ':') || !digits || np == 3)
            return -1;
        part[np++] = v;
        if (!*p)
            break;
        v = 0;
        digits = 0;
    }
    /* digits: those of the seconds, which take two */
    if (np < 2 || digits != 2 || (np == 3 && part[0] != 0))
        return -1;
    unsigned m = part[np - 2], sec = part[np - 1];
    if (m > 15 || sec > 59 || (m == 15 && sec > 0))
        return -1;
    snprintf(out, outlen, "%u:%02u", m, sec);
    return 0;
}

static bool kickoff_passed(const struct game *g, int64_t now)
{
    if (g->starts_at == MODEL_NULL)
        return false;
    return now >= g->starts_at + (g->kickoff_tbd ? DAY_US : 0);
}

void gamesync_apply_live(struct game *g, const struct gamesync_live *l, int64_t now)
{
    if (l->neutral_site >= 0)
        g->neutral_site = l->neutral_site != 0;
    if (l->state == GAMESYNC_SCHEDULED) {
        /* not begun: a provider's canceled, postponed or final stands */
        int st = vocab_find(game_status_names, g->status);
        if (st == GAME_STATUS_CANCELED || st == GAME_STATUS_POSTPONED || st == GAME_STATUS_FINAL)
            return;
        g->status =
            game_status_names[kickoff_passed(g, now) ? GAME_STATUS_DELAYED : GAME_STATUS_UPCOMING];
        g->period = MODEL_NULL;
        g->clock = NULL;
        return;
    }
    g->status =
        game_status_names[l->state == GAMESYNC_COMPLETED ? GAME_STATUS_FINAL : GAME_STATUS_LIVE];
    g->period = l->period;
    g->clock = l->clock;
    if (l->home_score != MODEL_NULL)
        g->home_score = l->home_score;
    if (l->away_score != MODEL_NULL)
        g->away_score = l->away_score;
}

void gamesync_keep_live(const struct game *stored, struct game *incoming)
{
    if (incoming->period != MODEL_NULL || incoming->clock)
        return;
    bool inferred =
        strcmp(incoming->status, "live") == 0 || strcmp(incoming->status, "unknown") == 0;
    if (strcmp(stored->status, "delayed") == 0 && inferred) {
        incoming->status = stored->status;
        return;
    }
    if (stored->period == MODEL_NULL)
        return;
    bool fed = strcmp(stored->status, "live") == 0 || strcmp(stored->status, "final") == 0;
    if (fed && inferred) {
        incoming->status = stored->status;
        incoming->period = stored->period;
        incoming->clock = stored->clock;
        if (incoming->home_score == MODEL_NULL)
            incoming->home_score = stored->home_score;
        if (incoming->away_score == MODEL_NULL)
            incoming->away_score = stored->away_score;
    } else if (strcmp(stored->status, "final") == 0 && strcmp(incoming->status, "final") == 0) {
        incoming->period = stored->period;
        incoming->clock = stored->clock;
    }
}
