/*
 * The nflverse schedule CSV (games.csv of the nflverse/nfldata releases), read with libcsv:
 * one row per game, columns located by their header name so added columns do not matter.
 * docs/games.md lists the columns used and how each maps onto a Game.
 */
#include <csv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/gamesync.h"
#include "domain/ids.h"
#include "providers/provider.h"
#include "util/buf.h"
#include "util/timefmt.h"

#define MAX_FIELDS 256

/* clang-format off */
/* The 32 franchises under their current names; relocated franchises' old codes are aliases
 * (nflverse keeps the code of the season: OAK until 2019, SD until 2016, STL until 2015). */
static const struct team nfl_teams[] = {
    {"nfl-ari", "Arizona Cardinals", "ARI", NULL, "NFC", "nfl", "NFC West", "Cardinals", true, "[\"Arizona\"]"},
    {"nfl-atl", "Atlanta Falcons", "ATL", NULL, "NFC", "nfl", "NFC South", "Falcons", true, "[\"Atlanta\"]"},
    {"nfl-bal", "Baltimore Ravens", "BAL", NULL, "AFC", "nfl", "AFC North", "Ravens", true, "[\"Baltimore\"]"},
    {"nfl-buf", "Buffalo Bills", "BUF", NULL, "AFC", "nfl", "AFC East", "Bills", true, "[\"Buffalo\"]"},
    {"nfl-car", "Carolina Panthers", "CAR", NULL, "NFC", "nfl", "NFC South", "Panthers", true, "[\"Carolina\"]"},
    {"nfl-chi", "Chicago Bears", "CHI", NULL, "NFC", "nfl", "NFC North", "Bears", true, "[\"Chicago\"]"},
    {"nfl-cin", "Cincinnati Bengals", "CIN", NULL, "AFC", "nfl", "AFC North", "Bengals", true, "[\"Cincinnati\"]"},
    {"nfl-cle", "Cleveland Browns", "CLE", NULL, "AFC", "nfl", "AFC North", "Browns", true, "[\"Cleveland\"]"},
    {"nfl-dal", "Dallas Cowboys", "DAL", NULL, "NFC", "nfl", "NFC East", "Cowboys", true, "[\"Dallas\"]"},
    {"nfl-den", "Denver Broncos", "DEN", NULL, "AFC", "nfl", "AFC West", "Broncos", true, "[\"Denver\"]"},
    {"nfl-det", "Detroit Lions", "DET", NULL, "NFC", "nfl", "NFC North", "Lions", true, "[\"Detroit\"]"},
    {"nfl-gb", "Green Bay Packers", "GB", NULL, "NFC", "nfl", "NFC North", "Packers", true, "[\"Green Bay\"]"},
    {"nfl-hou", "Houston Texans", "HOU", NULL, "AFC", "nfl", "AFC South", "Texans", true, "[\"Houston\"]"},
    {"nfl-ind", "Indianapolis Colts", "IND", NULL, "AFC", "nfl", "AFC South", "Colts", true, "[\"Indianapolis\"]"},
    {"nfl-jax", "Jacksonville Jaguars", "JAX", NULL, "AFC", "nfl", "AFC South", "Jaguars", true, "[\"Jacksonville\"]"},
    {"nfl-kc", "Kansas City Chiefs", "KC", NULL, "AFC", "nfl", "AFC West", "Chiefs", true, "[\"Kansas City\"]"},
    {"nfl-lv", "Las Vegas Raiders", "LV", NULL, "AFC", "nfl", "AFC West", "Raiders", true, "[\"Las Vegas\",\"OAK\",\"Oakland Raiders\"]"},
    {"nfl-lac", "Los Angeles Chargers", "LAC", NULL, "AFC", "nfl", "AFC West", "Chargers", true, "[\"LA Chargers\",\"SD\",\"San Diego Chargers\"]"},
    {"nfl-lar", "Los Angeles Rams", "LAR", NULL, "NFC", "nfl", "NFC West", "Rams", true, "[\"LA Rams\",\"LA\",\"STL\",\"St. Louis Rams\"]"},
    {"nfl-mia", "Miami Dolphins", "MIA", NULL, "AFC", "nfl", "AFC East", "Dolphins", true, "[\"Miami\"]"},
    {"nfl-min", "Minnesota Vikings", "MIN", NULL, "NFC", "nfl", "NFC North", "Vikings", true, "[\"Minnesota\"]"},
    {"nfl-ne", "New England Patriots", "NE", NULL, "AFC", "nfl", "AFC East", "Patriots", true, "[\"New England\"]"},
    {"nfl-no", "New Orleans Saints", "NO", NULL, "NFC", "nfl", "NFC South", "Saints", true, "[\"New Orleans\"]"},
    {"nfl-nyg", "New York Giants", "NYG", NULL, "NFC", "nfl", "NFC East", "Giants", true, "[\"NY Giants\"]"},
    {"nfl-nyj", "New York Jets", "NYJ", NULL, "AFC", "nfl", "AFC East", "Jets", true, "[\"NY Jets\"]"},
    {"nfl-phi", "Philadelphia Eagles", "PHI", NULL, "NFC", "nfl", "NFC East", "Eagles", true, "[\"Philadelphia\"]"},
    {"nfl-pit", "Pittsburgh Steelers", "PIT", NULL, "AFC", "nfl", "AFC North", "Steelers", true, "[\"Pittsburgh\"]"},
    {"nfl-sea", "Seattle Seahawks", "SEA", NULL, "NFC", "nfl", "NFC West", "Seahawks", true, "[\"Seattle\"]"},
    {"nfl-sf", "San Francisco 49ers", "SF", NULL, "NFC", "nfl", "NFC West", "49ers", true, "[\"San Francisco\"]"},
    {"nfl-tb", "Tampa Bay Buccaneers", "TB", NULL, "NFC", "nfl", "NFC South", "Buccaneers", true, "[\"Tampa Bay\"]"},
    {"nfl-ten", "Tennessee Titans", "TEN", NULL, "AFC", "nfl", "AFC South", "Titans", true, "[\"Tennessee\"]"},
    {"nfl-was", "Washington Commanders", "WAS", NULL, "NFC", "nfl", "NFC East", "Commanders", true, "[\"Washington\",\"Washington Football Team\"]"},
};
/* clang-format on */

/* nflverse codes that differ from the current abbreviation */
static const struct {
    const char *code, *id;
} nfl_codes[] = {
    {"OAK", "nfl-lv"}, {"SD", "nfl-lac"}, {"LA", "nfl-lar"}, {"STL", "nfl-lar"}, {"LAR", "nfl-lar"},
};

const struct team *nflverse_team(const char *abbreviation)
{
    const char *id = NULL;
    for (size_t i = 0; i < sizeof nfl_codes / sizeof nfl_codes[0] && !id; i++)
        if (strcmp(abbreviation, nfl_codes[i].code) == 0)
            id = nfl_codes[i].id;
    for (size_t i = 0; i < sizeof nfl_teams / sizeof nfl_teams[0]; i++)
        if (id ? strcmp(nfl_teams[i].id, id) == 0
               : strcmp(nfl_teams[i].abbreviation, abbreviation) == 0)
            return &nfl_teams[i];
    return NULL;
}

/* The columns read; every one is required in the header. */
enum col {
    C_GAME_ID,
    C_SEASON,
    C_GAME_TYPE,
    C_WEEK,
    C_GAMEDAY,
    C_GAMETIME,
    C_AWAY_TEAM,
    C_AWAY_SCORE,
    C_HOME_TEAM,
    C_HOME_SCORE,
    C_COUNT
};
static const char *const col_names[C_COUNT] = {
    "game_id",  "season",    "game_type",  "week",      "gameday",
    "gametime", "away_team", "away_score", "home_team", "home_score",
};

/* game_type -> season type, stage label and postseason round (docs/games.md) */
static const struct {
    const char *code, *season_type, *label;
} game_types[] = {
    {"PRE", "preseason", NULL},
    {"REG", "regular", NULL},
    {"WC", "postseason", "Wild Card"},
    {"DIV", "postseason", "Divisional"},
    {"CON", "postseason", "Conference Championship"},
    {"SB", "postseason", "Super Bowl"},
};

struct reader {
    struct arena *a;
    struct provider_batch *b;
    int64_t now;
    size_t row;             /* the record being read, 1-based */
    struct buf fields;      /* the current record's fields, each NUL-terminated */
    size_t off[MAX_FIELDS]; /* offsets of the fields in `fields` */
    size_t nfields;
    int col[C_COUNT]; /* header position of each column, -1 when absent */
    int location_col; /* the optional column `location`, -1 when absent */
    bool header_done;
    bool header_bad;
};

static void on_field(void *s, size_t len, void *data)
{
    struct reader *r = data;
    if (r->nfields == MAX_FIELDS)
        return;
    r->off[r->nfields++] = r->fields.len;
    if (len)
        buf_append(&r->fields, s, len);
    buf_append(&r->fields, "", 1);
}

static const char *field(struct reader *r, enum col c)
{
    int i = r->col[c];
    return i >= 0 && (size_t)i < r->nfields ? r->fields.p + r->off[i] : "";
}

/* Parses a whole decimal integer within [lo, hi]; 0 or -1. */
static int parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!*s || strlen(s) > 9)
        return -1;
    int64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (*p - '0');
    }
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* "YYYY-MM-DD" into y, m, d (a real calendar day); 0 or -1. */
static int parse_day(const char *s, int64_t *y, unsigned *m, unsigned *d)
{
    char tail;
    unsigned yy, mm, dd;
    if (strlen(s) != 10 || sscanf(s, "%4u-%2u-%2u%c", &yy, &mm, &dd, &tail) != 3)
        return -1;
    char iso[16];
    snprintf(iso, sizeof iso, "%04u-%02u-%02u", yy, mm, dd);
    int64_t us;
    /* time_parse_iso checks the day exists (no 2024-02-30) */
    if (strcmp(iso, s) != 0 || time_parse_iso(iso, TIME_DATE_OK, &us) < 0)
        return -1;
    *y = yy, *m = mm, *d = dd;
    return 0;
}

/* "HH:MM" or "HH:MM:SS" (seconds ignored); 0 or -1. */
static int parse_clock(const char *s, unsigned *hh, unsigned *mm)
{
    unsigned h, m, sec;
    char tail;
    size_t n = strlen(s);
    int k = n == 5   ? sscanf(s, "%2u:%2u%c", &h, &m, &tail)
            : n == 8 ? sscanf(s, "%2u:%2u:%2u%c", &h, &m, &sec, &tail) - 1
                     : 0;
    if (k != 2 || s[2] != ':' || h > 23 || m > 59)
        return -1;
    *hh = h, *mm = m;
    return 0;
}

#define REJECT(fieldname, ...)                                                                     \
    do {                                                                                           \
        provider_batch_reject(r->b, r->a, r->row, gid[0] ? gid : NULL, fieldname, __VA_ARGS__);    \
        return;                                                                                    \
    } while (0)

static void read_header(struct reader *r)
{
    r->location_col = -1;
    for (size_t i = 0; i < r->nfields; i++)
        if (strcmp(r->fields.p + r->off[i], "location") == 0)
            r->location_col = (int)i;
    for (int c = 0; c < C_COUNT; c++) {
        r->col[c] = -1;
        for (size_t i = 0; i < r->nfields; i++) {
            const char *name = r->fields.p + r->off[i];
            if (i == 0 && strncmp(name, "\xef\xbb\xbf", 3) == 0)
                name += 3; /* a UTF-8 byte order mark */
            if (strcmp(name, col_names[c]) == 0) {
                r->col[c] = (int)i;
                break;
            }
        }
        if (r->col[c] < 0)
            r->header_bad = true;
    }
    r->header_done = true;
}

static void read_score(struct reader *r, enum col c, int64_t *out)
{
    const char *s = field(r, c);
    *out = MODEL_NULL;
    if (*s && parse_int(s, 0, 999, out) < 0)
        *out = INT64_MAX; /* the caller rejects */
}

static void read_row(struct reader *r)
{
    const char *gid = field(r, C_GAME_ID);
    if (r->nfields == 1 && !*gid)
        return; /* a blank line */
    if (!*gid)
        REJECT("game_id", "is empty");
    char id[ENTITY_ID_MAX + 2];
    if (snprintf(id, sizeof id, "nfl:%s", gid) >= (int)sizeof id - 1 || !entity_id_is_valid(id))
        REJECT("game_id", "must be 1..251 characters of A-Z a-z 0-9 . _ : ~ -");

    int64_t season, week;
    if (parse_int(field(r, C_SEASON), 1920, 2100, &season) < 0)
        REJECT("season", "must be a year from 1920 to 2100, got \"%s\"", field(r, C_SEASON));
    const char *gt = field(r, C_GAME_TYPE);
    size_t t = 0, nt = sizeof game_types / sizeof game_types[0];
    while (t < nt && strcmp(game_types[t].code, gt) != 0)
        t++;
    if (t == nt)
        REJECT("game_type", "must be one of PRE, REG, WC, DIV, CON, SB, got \"%s\"", gt);
    if (parse_int(field(r, C_WEEK), 0, 30, &week) < 0)
        REJECT("week", "must be an integer from 0 to 30, got \"%s\"", field(r, C_WEEK));
    int64_t y;
    unsigned mo, d, hh = 0, mi = 0;
    if (parse_day(field(r, C_GAMEDAY), &y, &mo, &d) < 0)
        REJECT("gameday", "must be a date YYYY-MM-DD, got \"%s\"", field(r, C_GAMEDAY));
    const char *gtime = field(r, C_GAMETIME);
    bool tbd = !*gtime;
    if (!tbd && parse_clock(gtime, &hh, &mi) < 0)
        REJECT("gametime", "must be HH:MM (US Eastern) or empty, got \"%s\"", gtime);
    const struct team *home = nflverse_team(field(r, C_HOME_TEAM));
    const struct team *away = nflverse_team(field(r, C_AWAY_TEAM));
    if (!home)
        REJECT("home_team", "unknown team abbreviation \"%s\"", field(r, C_HOME_TEAM));
    if (!away)
        REJECT("away_team", "unknown team abbreviation \"%s\"", field(r, C_AWAY_TEAM));
    if (home == away)
        REJECT("away_team", "a team cannot play itself");
    int64_t hs, as;
    read_score(r, C_HOME_SCORE, &hs);
    read_score(r, C_AWAY_SCORE, &as);
    if (hs == INT64_MAX)
        REJECT("home_score", "must be an integer from 0 to 999 or empty, got \"%s\"",
               field(r, C_HOME_SCORE));
    if (as == INT64_MAX)
        REJECT("away_score", "must be an integer from 0 to 999 or empty, got \"%s\"",
               field(r, C_AWAY_SCORE));
    if ((hs == MODEL_NULL) != (as == MODEL_NULL))
        REJECT(hs == MODEL_NULL ? "home_score" : "away_score",
               "is empty while the other score is not");

    /* `location` (optional): "Home", or "Neutral" for a neutral site (the Super Bowl, the
     * international games); empty when nflverse does not say */
    const char *loc = r->location_col >= 0 && (size_t)r->location_col < r->nfields
                          ? r->fields.p + r->off[r->location_col]
                          : "";
    if (*loc && strcmp(loc, "Home") != 0 && strcmp(loc, "Neutral") != 0)
        REJECT("location", "must be Home, Neutral or empty, got \"%s\"", loc);

    struct game *g = provider_batch_game(r->b);
    g->id = arena_strdup(r->a, id);
    g->neutral_site = strcmp(loc, "Neutral") == 0;
    g->home.id = home->id;
    g->away.id = away->id;
    g->home_score = hs;
    g->away_score = as;
    g->kickoff_tbd = tbd;
    g->starts_at = gamesync_eastern_to_utc(y, mo, d, hh, mi);
    g->period = MODEL_NULL;
    g->clock = NULL;
    g->season = season;
    g->week = week;
    g->league = "nfl";
    g->season_type = game_types[t].season_type;
    g->stage_label = game_types[t].label;
    struct gamesync_facts f = {
        .kickoff = g->starts_at, .kickoff_tbd = tbd, .final = hs != MODEL_NULL};
    g->status = gamesync_status(&f, r->now);
    provider_batch_team(r->b, home, true);
    provider_batch_team(r->b, away, true);
    provider_scope_season(&r->b->scope, season);
}

static void on_row(int c, void *data)
{
    (void)c;
    struct reader *r = data;
    r->row++;
    if (!r->header_done)
        read_header(r);
    else if (!r->header_bad)
        read_row(r);
    buf_reset(&r->fields);
    r->nfields = 0;
}

int nflverse_read(const char *data, size_t len, int64_t now, struct arena *a,
                  struct provider_batch *b, char *err, size_t errlen)
{
    struct csv_parser p;
    struct reader r = {.a = a, .b = b, .now = now, .fields = BUF_INIT};
    int rc = -1;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        snprintf(err, errlen, "cannot initialise the CSV parser");
        return -1;
    }
    if (csv_parse(&p, data, len, on_field, on_row, &r) != len ||
        csv_fini(&p, on_field, on_row, &r) != 0) {
        snprintf(err, errlen, "not a CSV document: %s after record %zu",
                 csv_strerror(csv_error(&p)), r.row);
        goto out;
    }
    if (!r.header_done) {
        snprintf(err, errlen, "empty document: no header row");
        goto out;
    }
    for (int c = 0; c < C_COUNT; c++)
        if (r.col[c] < 0) {
            snprintf(err, errlen, "the header has no column %s (is this the nflverse games.csv?)",
                     col_names[c]);
            goto out;
        }
    provider_batch_finish(b, a);
    rc = 0;
out:
    csv_free(&p);
    buf_release(&r.fields);
    return rc;
}
