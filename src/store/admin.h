#ifndef WHISTLE_STORE_ADMIN_H
#define WHISTLE_STORE_ADMIN_H

#include <stddef.h>

#include "domain/model.h"
#include "store/store.h"

/*
 * Writes behind the operator commands (import, incident withdraw/merge/set-question/
 * set-status). Callers own the transaction: every function here runs inside the caller's
 * store_begin_write() … store_commit(), so a refused command writes nothing. Functions
 * return 0 or a negative store_rc unless stated otherwise.
 */

/* Row existence and state. */
int admin_team_exists(struct store *s, const char *id); /* 1 found, 0 missing */
int admin_game_exists(struct store *s, const char *id); /* 1 found, 0 missing */

/* The stored createdAt / updatedAt of game id into *created_at, *updated_at: 1 found, 0
 * not found (outputs untouched), or <0. */
int admin_game_times(struct store *s, const char *id, int64_t *created_at, int64_t *updated_at);

/* 1 when the database holds no game and no incident (`import --if-empty`), 0 when it holds
 * some, or <0. */
int admin_is_empty(struct store *s);

struct incident_state {
    char visibility[16];
    char status[16]; /* maturity: developing … resolved */
    char duplicate_of[40];
    char slug[128];
    int64_t question_version; /* MODEL_NULL when none */
    int64_t published_at, created_at, updated_at;
    int64_t duplicates; /* incidents merged into this one */
    char game_id[256];
};
/* 1 found (out filled), 0 no such incident (out zeroed, question_version MODEL_NULL). */
int admin_incident_state(struct store *s, const char *id, struct incident_state *out);

/* Which incident (other than id) uses slug, currently or historically: 1 with its id in
 * out, 0 none (out ""). */
int admin_slug_owner(struct store *s, const char *slug, const char *id, char out[40]);

/* Derives a unique slug for a new incident from its title into out (size >= SLUG_MAX + 16):
 * the title's slug, "-<first 8 of id>" appended when another incident has it. */
int admin_derive_slug(struct store *s, const char *id, const char *title, char *out, size_t outlen);

int admin_upsert_team(struct store *s, const struct team *t);
int admin_upsert_game(struct store *s, const struct game *g);

/* Upserts the incident's own columns. visibility is "published" or "withdrawn";
 * question_version may be MODEL_NULL. Records an old slug in incident_slugs when the slug
 * changes. */
int admin_upsert_incident(struct store *s, const struct incident *i, const char *visibility,
                          int64_t question_version);

#define ADMIN_MAX_SOURCES 32

/* Removes the incident's source with url: 1 removed, 0 the incident does not cite it (its
 * updated_at was touched all the same: roll the transaction back). */
int admin_remove_source(struct store *s, const char *incident_id, const char *url, int64_t now);
/* Replaces the incident's sources (at most ADMIN_MAX_SOURCES) (ids are derived from incident id and
 * URL, so the same file gives the same ids; added_at of a kept source is preserved when absent). */
int admin_replace_sources(struct store *s, const char *incident_id, const struct source *src,
                          size_t n, int64_t now);

/* Appends one source after the incident's last (its id derived like the others) and
 * touches the incident's updated_at: 1 added, 0 when the incident already cites src->url. */
int admin_add_source(struct store *s, const char *incident_id, const struct source *src,
                     int64_t now);

/* Replaces the incident's question versions with qs (ascending; the last may be current). */
int admin_replace_questions(struct store *s, const char *incident_id, const struct question *qs,
                            size_t n);

/* Replaces the legacy (imported) ballots of one question version and recounts its tallies.
 * choices[k] is 0/1/2 (correct/incorrect/unsure), rootings[k] an enum rooting. */
int admin_replace_legacy_ballots(struct store *s, const char *incident_id, int64_t version,
                                 const int *choices, const int *rootings, size_t n, int64_t now);

/* Sets visibility (published, withdrawn, merged) and duplicate_of; now == MODEL_NULL keeps
 * updated_at as it is. */
int admin_set_visibility(struct store *s, const char *id, const char *visibility,
                         const char *duplicate_of, int64_t now);
int admin_set_status(struct store *s, const char *id, const char *status, int64_t now);
/* Rewrites the editorial fields of incident i->id (title, play description, neutral summary,
 * period, clock, rulings, replay, consequence, penalty called) and touches updated_at; the
 * slug, visibility, provenance and counters are left alone. */
int admin_update_editorial(struct store *s, const struct incident *i, int64_t now);

/* Supersedes the current question (superseded_at = now) and makes q (version set by the
 * caller) current; prior ballots stay with their version, archived. */
int admin_new_question(struct store *s, const char *id, const struct question *q, int64_t now);
/* Replaces the current question's presented labels, keeping its stored labels. */
int admin_clarify_question(struct store *s, const char *id, int64_t version,
                           const struct question *q, int64_t now);

#endif
