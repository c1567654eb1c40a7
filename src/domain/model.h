#ifndef WHISTLE_DOMAIN_MODEL_H
#define WHISTLE_DOMAIN_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "domain/vocab.h"

/*
 * The records the store reads and the API writes. Strings are owned by whoever filled the
 * record (an arena, for requests); NULL means JSON null. Integers use MODEL_NULL for null;
 * tri-state booleans use -1 for null.
 */
#define MODEL_NULL INT64_MIN

struct team {
    const char *id, *name, *abbreviation, *logo_url, *conference, *league, *division, *short_name;
    bool active;
    const char *aliases_json; /* a JSON array of strings */
};

struct game {
    const char *id;
    struct team home, away;
    int64_t home_score, away_score, starts_at, period;
    bool kickoff_tbd;
    const char *clock, *status, *league, *season_type, *stage_label;
    int64_t season, week, created_at, updated_at;
    bool neutral_site; /* not in the spec's Game: stored, imported, exported, shown on pages */
};

/* Ballot aggregates of one rooting group: correct = option A, incorrect = option B. */
struct choices {
    int64_t correct, incorrect, unsure;
};

struct votes {
    struct choices by_rooting[ROOTING_COUNT];
};

struct question {
    int64_t version;
    const char *type, *text, *a_label, *b_label, *unsure_label;
    const char *stored_a, *stored_b, *stored_unsure;
    const char *factual_context_json;
    int64_t created_at, superseded_at;
};

struct source {
    const char *id, *url, *title, *publisher, *kind, *supports, *added_by;
    int64_t published_at, added_at;
};

struct incident {
    const char *id, *game_id, *title, *play_description, *neutral_summary, *category;
    int64_t period;
    const char *clock, *original_ruling, *final_ruling, *consequence, *status, *origin_kind;
    int replay_involved, penalty_called;
    const char *provenance_json;
    int64_t reviewed_at, published_at, created_at, updated_at;
    const char *duplicate_of, *slug;
    const char *visibility;          /* published, withdrawn or merged */
    const char *survivor_slug;       /* a merged duplicate's survivor: its slug (or NULL) */
    const char *survivor_visibility; /* and its visibility; NULL when not merged */
    int64_t comment_count;
    /* through the game */
    const char *league, *season_type, *home_name, *away_name;
    bool has_question;
    struct question question; /* the current one when has_question */
    struct votes votes;
};

#endif
