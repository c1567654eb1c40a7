#ifndef WHISTLE_APP_INCIDENT_H
#define WHISTLE_APP_INCIDENT_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "domain/model.h"

/*
 * Reading one incident, for the API (by UUID), the pages (by slug, former slug or UUID) and
 * the ballot reply: the visibility rule (domain/incident.h) applied in one place, in one
 * read snapshot.
 */
enum incident_read_outcome {
    INCIDENT_READ_FOUND = 0, /* view->inc (and what `what` asked for) */
    INCIDENT_READ_MISSING,   /* no such incident, withdrawn, or a duplicate of one that is
                              * not published: 404 */
    INCIDENT_READ_MERGED,    /* a merged duplicate: view->survivor_id / survivor_key, 308 */
    INCIDENT_READ_MOVED,     /* by page key only: the key is a former slug, or the UUID of an
                              * incident that has a slug; view->key is current, 308 */
    /* APP_UNAVAILABLE (-1): the store failed */
};

#define INCIDENT_READ_PAGE_KEY (1u << 0) /* key may be a slug or former slug (else a UUID) */
#define INCIDENT_READ_DETAILS  (1u << 1) /* sources and the question history */
#define INCIDENT_READ_GAME     (1u << 2) /* the game with its teams */

struct incident_view {
    struct incident inc;
    const char *key;          /* the canonical page key: the slug, or the ID */
    const char *survivor_id;  /* MERGED: the surviving incident's ID */
    const char *survivor_key; /* and its page key */
    struct source *sources;
    size_t nsources;
    struct question *history; /* every question version, ascending */
    size_t nhistory;
    struct game game;
    char choice[16], rooting[16]; /* voter's ballot on the current question; "" when none */
};

/* Reads the incident designated by key (a normalized UUID unless INCIDENT_READ_PAGE_KEY)
 * with its current question and tallies, plus what `what` asks for; with voter (a stored
 * voter identity) also that voter's ballot. Everything in out lives in c->a. Returns an
 * incident_read_outcome or APP_UNAVAILABLE. */
int incident_read(const struct app_ctx *c, const char *key, unsigned what, const char *voter,
                  struct incident_view *out);

/* One page of published incidents (api-v1.md ordering: publication time desc, then ID desc)
 * with their current question and tallies, read in one snapshot; *more when a further
 * record exists. Returns APP_OK or APP_UNAVAILABLE; the list lives in c->a. */
struct incident_filter;
int incident_list(const struct app_ctx *c, const struct incident_filter *f, struct incident **list,
                  size_t *n, bool *more);

/* A game and, when list is not NULL, up to `limit` of its published incidents, in one
 * snapshot: 1 found, 0 no such game, APP_UNAVAILABLE. */
int game_read(const struct app_ctx *c, const char *id, struct game *out, int64_t limit,
              struct incident **list, size_t *n);

/* One page of teams by ID, of one league or all (league NULL). APP_OK or APP_UNAVAILABLE;
 * list in c->a. */
struct team;
int team_list(const struct app_ctx *c, const char *league, int64_t limit, int64_t offset,
              struct team **list, size_t *n, bool *more);

/* One page of games (api-v1.md ordering). APP_OK or APP_UNAVAILABLE; list in c->a. */
struct game_filter;
int game_list(const struct app_ctx *c, const struct game_filter *f, struct game **list, size_t *n,
              bool *more);

#endif
