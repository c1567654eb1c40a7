#ifndef WHISTLE_STORE_INCIDENTS_H
#define WHISTLE_STORE_INCIDENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "domain/model.h"
#include "store/store.h"
#include "util/arena.h"

/* Filters of GET /api/v1/incidents; NULL / MODEL_NULL / -1 mean "not filtered". League,
 * season, week, season type and team apply through the incident's game. */
struct incident_filter {
    const char *game_id, *category, *status, *team_id, *league, *season_type;
    int64_t season, week, from, to; /* from inclusive, to exclusive, on publication */
    int has_verdict;                /* -1 any, 0 without a question, 1 with one */
    int64_t limit, offset;
    /* the content version the request read for its cache token (store_data_version): with
     * it the page may come from the list index built at that version (store/listindex.h) */
    bool versioned;
    uint64_t version;
};

/* One page of published incidents (publication time desc, then ID desc) with their
 * current question and vote tallies; arena-owned. Returns 0 or a negative store_rc. */
int incidents_list(struct store *s, struct arena *a, const struct incident_filter *f,
                   struct incident **out, size_t *n, bool *more);

/* The IDs of the same page as incidents_list from the process's list index
 * (store/listindex.h), without reading the store: 1 with the page's ids and their keys
 * (arena-owned; *keys NULL when the index holds none: listindex_ids) and *more, the caller to
 * check them and count the request (listindex_count_request); 0 when no index of f's
 * content version serves f (counted as missed); -1 when the index does not apply (no
 * version, or a game's incidents: not counted). */
int incidents_index_ids(struct arena *a, const struct incident_filter *f, const char ***ids,
                        const int64_t **keys, size_t *n, bool *more);

/* The IDs of the same page as incidents_list from SQL, in its order (one statement): what
 * app/incident.h incident_list_items reads through the fragments. arena-owned; 0 or a
 * negative store_rc. */
int incidents_page_ids(struct store *s, struct arena *a, const struct incident_filter *f,
                       const char ***ids, size_t *n, bool *more);

/* Reads one incident by ID, whatever its visibility (domain/incident.h decides what the
 * public sees), with its current question; tallies are not read (incidents_tallies). For a
 * merged duplicate also its survivor's slug and visibility. 1 found, 0 no such incident, or
 * a negative store_rc. */
int incidents_get(struct store *s, struct arena *a, const char *id, struct incident *out);

/* What a page URL key (a slug, a former slug or a UUID) designates: raw facts, no rule. */
struct incident_ref {
    char id[37];
    char slug[128];               /* current slug, "" when none */
    char visibility[16];          /* published, withdrawn, merged */
    char survivor_id[37];         /* merged: the survivor's ID, else "" */
    char survivor_slug[128];      /* and its slug ("" when none) */
    char survivor_visibility[16]; /* and its visibility ("" when not merged) */
    int64_t question_version;     /* INT64_MIN when none */
    bool historical;              /* the key was a former slug or the UUID of a slugged incident */
};
/* 1 found (see ref), 0 no such key, or a negative store_rc. */
int incidents_locate(struct store *s, const char *key, struct incident_ref *ref);

/* The incident's sources in their order, and every question version ascending. */
int incidents_sources(struct store *s, struct arena *a, const char *id, struct source **out,
                      size_t *n);
int incidents_questions(struct store *s, struct arena *a, const char *id, struct question **out,
                        size_t *n);

/* Reads the tallies of one question version into v (zeroed first). */
int incidents_tallies(struct store *s, const char *id, int64_t version, struct votes *v);

/* Tells the tally watcher (below) that a response shows v as the tallies of incident id,
 * read by a statement of another file (store/fragments.h fragments_read). */
void incidents_tallies_shown(const char *id, const struct votes *v);

/*
 * Tally dependencies of a response (http/cache.h): while a watcher is set on the calling
 * thread, every read of an incident's tallies here (incidents_tallies, the tallies of an
 * incidents_list page) calls fn(ctx, incident id, fingerprint of the tallies read). fn NULL
 * stops watching. Every tally read of the program goes through this file, so a body that
 * shows tallies cannot forget to say so.
 */
void incidents_watch_tallies(void (*fn)(void *ctx, const char *id, uint64_t fp), void *ctx);

/* The fingerprints of the current question version's tallies of n incidents, now, in one
 * statement: equal to those a watcher was told iff the tallies are the same. 0 or a negative
 * store_rc. */
int incidents_tally_fingerprints(struct store *s, const char *const *ids, size_t n, uint64_t *fps);

/* Calls fn for every incident, whatever its visibility ("published", "withdrawn",
 * "merged"), in ID order; strings live until fn returns. */
int incidents_each(struct store *s,
                   int (*fn)(void *ctx, const struct incident *i, const char *visibility),
                   void *ctx);

/* Calls fn with each ballot (choice, rooting or NULL) of one question version (store_rows: a
 * non-zero return of fn stops, a negative one is returned). */
int incidents_ballots(struct store *s, const char *id, int64_t version,
                      int (*fn)(void *ctx, const char *choice, const char *rooting), void *ctx);

#endif
