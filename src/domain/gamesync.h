#ifndef WHISTLE_DOMAIN_GAMESYNC_H
#define WHISTLE_DOMAIN_GAMESYNC_H

#include <stdbool.h>
#include <stddef.h>
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
 * period, clock, status, season, week, league, season type, stage label, neutral site
 * (IDs are equal,
 * created_at and updated_at are not compared). Null strings equal only null. */
bool gamesync_differs(const struct game *a, const struct game *b);

/* ---- live facts (CFBD /scoreboard) ----------------------------------------------------
 *
 * A provider's scoreboard says, for the games of the day, whether each is scheduled, in
 * progress or completed, with the period, the game clock and the points. It carries no
 * season or week, so it updates stored games only (docs/games.md "Live games"). */

enum gamesync_live_state { GAMESYNC_SCHEDULED, GAMESYNC_IN_PROGRESS, GAMESYNC_COMPLETED };

struct gamesync_live {
    const char *id; /* the game's ID, namespaced ("cfb:401628455") */
    enum gamesync_live_state state;
    int64_t period;                 /* 1..30, MODEL_NULL when the provider gives none */
    const char *clock;              /* gamesync_clock() form, NULL when none */
    int64_t home_score, away_score; /* MODEL_NULL when none */
    int neutral_site;               /* 0 or 1; -1 when the provider does not say */
};

/* The spec's game clock form from a provider's: "M:SS", "MM:SS", or "H:MM:SS" /
 * "HH:MM:SS" with zero hours, minutes 0..15 and seconds 00..59 (15:00 at most), written
 * "M:SS" without a leading zero on the minutes ("07:12" -> "7:12", "00:00:00" -> "0:00"),
 * the form of the spec's lead clock. 0 with out filled (room for 8), or -1. */
int gamesync_clock(const char *in, char *out, size_t outlen);

/* Applies a scoreboard's facts to the stored game g (docs/games.md "Status mapping"):
 *   completed   -> final, with the period and clock the provider gives (the last ones);
 *   in_progress -> live, with the period and clock (null when the provider gives none);
 *   scheduled   -> upcoming before kickoff (before the end of a TBD kickoff's day), delayed
 *                  after it (the provider says the game has not begun); period and clock
 *                  null; a stored canceled, postponed or final is kept;
 * points replace the scores when given (a null keeps the stored score), and the neutral
 * site is set when given. The caller compares g with its stored copy (gamesync_differs). */
void gamesync_apply_live(struct game *g, const struct gamesync_live *l, int64_t now);

/* A schedule document (nflverse games.csv, CFBD /games) has no live feed: its live and
 * unknown are inferred from the clock and its period and clock are null. So that it never
 * erases what a scoreboard said, when incoming (from such a document) has no period and
 * no clock:
 *   stored live or final with a period (a scoreboard's), incoming live or unknown ->
 *     incoming keeps the stored status, period, clock, and the stored scores where its own
 *     are null (the document lags behind the scoreboard);
 *   stored delayed, incoming live or unknown -> incoming keeps delayed;
 *   stored final with a period, incoming final -> incoming keeps the stored period and clock.
 * Anything else in incoming (final, a new kickoff, canceled, postponed...) wins. */
void gamesync_keep_live(const struct game *stored, struct game *incoming);

#endif
