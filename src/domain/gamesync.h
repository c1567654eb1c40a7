#ifndef WHISTLE_DOMAIN_GAMESYNC_H
#define WHISTLE_DOMAIN_GAMESYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "domain/model.h"

/*
 * The rules of games fed by providers (issue 17, docs/games.md): US Eastern kickoff times
 * to UTC, a game's status from the facts a provider gives, and what counts as a change.
 * Pure: every function takes its inputs, `now` included.
 */

/* How long after kickoff a game that is not final is taken as live when the provider gives
 * no in-progress flag; after it the game is "unknown" until the provider says more. */
#define GAMESYNC_LIVE_WINDOW_US (INT64_C(5) * 3600 * 1000000)

/* True when US Eastern time observes daylight saving at the local wall-clock time
 * y-m-d hh:mm. The federal rule since 2007: from the second Sunday of March, 02:00, to the
 * first Sunday of November, 02:00; 1987-2006: first Sunday of April to last Sunday of
 * October. A wall time in the skipped hour (02:00-02:59 on the spring day) counts as
 * daylight time; one in the repeated hour (01:00-01:59 on the autumn day) as its first,
 * daylight, occurrence. Computed from the rule, never from the process time zone, so it is
 * safe in every thread. */
bool gamesync_eastern_dst(int64_t y, unsigned m, unsigned d, unsigned hh, unsigned mm);

/* UTC microseconds of the US Eastern wall-clock time y-m-d hh:mm (see above). */
int64_t gamesync_eastern_to_utc(int64_t y, unsigned m, unsigned d, unsigned hh, unsigned mm);

/* What a provider says about one game; the status follows from it (docs/games.md). */
struct gamesync_facts {
    int64_t kickoff;  /* UTC microseconds; with kickoff_tbd the day's midnight, US Eastern */
    bool kickoff_tbd; /* the day is known, the time is not */
    bool final;       /* completed, or scores posted (nflverse) */
    bool canceled, postponed, delayed;
    bool in_progress; /* the provider says the game is being played */
};

/* One of upcoming, live, final, postponed, delayed, canceled, unknown (static storage):
 * canceled, postponed, final, delayed, in progress (live) as the provider says; else
 * upcoming before kickoff (before the end of the day with a TBD kickoff), live for
 * GAMESYNC_LIVE_WINDOW_US after a known kickoff, unknown after that. */
const char *gamesync_status(const struct gamesync_facts *f, int64_t now);

/* True when a and b differ in any provider-fed field: teams, scores, kickoff, TBD flag,
 * period, clock, status, season, week, league, season type, stage label (IDs are equal,
 * created_at and updated_at are not compared). Null strings equal only null. */
bool gamesync_differs(const struct game *a, const struct game *b);

#endif
