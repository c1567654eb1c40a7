#ifndef WHISTLE_PROVIDERS_PROVIDER_H
#define WHISTLE_PROVIDERS_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "domain/gamesync.h"
#include "domain/model.h"
#include "util/arena.h"

/*
 * Provider format readers (issue 17, docs/games.md): each turns one provider document (the
 * nflverse schedule CSV, a CollegeFootballData /games response) into a batch of Game and
 * Team records plus the rows it rejected. Readers never touch the store or the network;
 * src/app/games_sync.c writes a batch, src/providers/http.c fetches documents.
 *
 * A batch owns malloc'd arrays (provider_batch_release) whose strings live in the arena
 * passed to the reader.
 */
#define PROVIDER_MAX_SEASONS 64

struct provider_reject {
    size_t row;          /* nflverse: CSV record number, the header is row 1; cfbd: array
                            position, the first game is row 1 */
    const char *game_id; /* the provider's ID of the row when it could be read, else NULL */
    const char *field;   /* the provider's column or key name */
    const char *message;
};

/* Which games a batch speaks for: a stored game of this provider inside the scope that the
 * batch does not carry has vanished from the provider. */
struct provider_scope {
    int64_t seasons[PROVIDER_MAX_SEASONS];
    size_t nseasons;
    int64_t week;            /* MODEL_NULL: every week */
    const char *season_type; /* NULL: every season type */
};

struct provider_team {
    struct team t;
    bool authoritative; /* from the provider's team list: update a stored team; otherwise
                           a team is only inserted when missing */
};

struct provider_batch {
    const char *provider;        /* "nflverse" or "cfbd" */
    const char *id_prefix;       /* "nfl:" or "cfb:" */
    const char *vanished_status; /* the status of a game gone from the provider */
    struct provider_scope scope;
    struct game *games;
    size_t ngames, capgames;
    struct provider_team *teams; /* sorted by ID, one entry per team */
    size_t nteams, capteams;
    struct provider_reject *rejects;
    size_t nrejects, caprejects;
    struct gamesync_live *live; /* a scoreboard's games (cfbd_read_scoreboard), in order */
    size_t nlive, caplive;
};

void provider_batch_init(struct provider_batch *b, const char *provider, const char *prefix,
                         const char *vanished_status);
void provider_batch_release(struct provider_batch *b);
/* Appends a zeroed game / live entry / team / reject and returns it. */
struct game *provider_batch_game(struct provider_batch *b);
struct gamesync_live *provider_batch_live(struct provider_batch *b);
void provider_batch_team(struct provider_batch *b, const struct team *t, bool authoritative);
void provider_batch_reject(struct provider_batch *b, struct arena *a, size_t row,
                           const char *game_id, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Adds a season to the scope (once). */
void provider_scope_season(struct provider_scope *sc, int64_t season);
/* Sorts the teams by ID and keeps one entry per ID (an authoritative one when there is
 * one); rejects a second game with an ID already in the batch. Call once, after reading. */
void provider_batch_finish(struct provider_batch *b, struct arena *a);

/* ---- nflverse (src/providers/nflverse.c) --------------------------------------------- */

/* Reads the nflverse schedule CSV (games.csv of nflverse/nfldata; columns found by their
 * header name). Returns 0 with b filled, or -1 with the reason in err when the document
 * as a whole cannot be read (not CSV, a required column missing). now decides the status of
 * games without a score (domain/gamesync.h). */
int nflverse_read(const char *data, size_t len, int64_t now, struct arena *a,
                  struct provider_batch *b, char *err, size_t errlen);

/* The Team record of an nflverse abbreviation (relocated franchises' old codes included:
 * OAK, SD, STL); NULL when unknown. Static storage. */
const struct team *nflverse_team(const char *abbreviation);

/* ---- CollegeFootballData (src/providers/cfbd.c) ------------------------------------------ */

struct cfbd_teams; /* the /teams response, indexed by school */

/* Reads a /teams response into *out (arena-owned). 0, or -1 with the reason in err. */
int cfbd_read_teams(const char *data, size_t len, struct arena *a, struct cfbd_teams **out,
                    char *err, size_t errlen);

/* Reads a /games response (a JSON array of games, the API's camelCase keys). teams may be
 * NULL (teams then carry what the games say and never replace a stored team). The scope
 * is what was asked for (season, week, season type); seasons the response carries are
 * added. 0, or -1 with the reason in err when the document is not a JSON array. */
int cfbd_read_games(const char *data, size_t len, const struct cfbd_teams *teams, int64_t now,
                    struct arena *a, struct provider_batch *b, char *err, size_t errlen);

/* Reads a /scoreboard response (a JSON array of ScoreboardGame: id, status "scheduled",
 * "in_progress" or "completed", period, clock, neutralSite, homeTeam.points,
 * awayTeam.points) into b->live, one entry per game in order; a malformed game is rejected
 * (row = its array position) and the others are kept. 0, or -1 with the reason in err when
 * the document is not a JSON array. */
int cfbd_read_scoreboard(const char *data, size_t len, struct arena *a, struct provider_batch *b,
                         char *err, size_t errlen);

/* "cfb-" and the school name in lower case, letters and digits, other runs as "-"
 * ("Texas A&M" -> "cfb-texas-am"; "&", "'" and "." are dropped). out has room for 128. */
void cfbd_team_id(const char *school, char *out, size_t outlen);

#endif
