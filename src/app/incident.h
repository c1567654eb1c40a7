#ifndef WHISTLE_APP_INCIDENT_H
#define WHISTLE_APP_INCIDENT_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "domain/model.h"
#include "util/buf.h"

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

/*
 * Reading incidents by ID through their pre-rendered fragments (store/fragments.h, issue 13):
 * one statement finds the visibility facts, the comment count and the valid fragment of
 * every ID, one more reads the tallies. An incident without a valid fragment (changed since
 * its fragment was rendered, or never rendered) is read from its rows instead; the renderer
 * (api/render.h render_incident_item) writes the same bytes either way.
 */
struct incident_item {
    int state; /* INCIDENT_READ_FOUND, _MISSING or _MERGED (survivor_id, survivor_key) */
    const char *id, *survivor_id, *survivor_key;
    /* FOUND with a fragment: it, and the live parts to splice in */
    const char *fragment;
    size_t fragment_len;
    /* FOUND, in the list form, from the fragments' cache: the bytes the API wrote for it
     * before at these versions (incident_item_keep_list), instead of the fragment */
    const char *list_json;
    size_t list_len;
    bool cached; /* read from the cache at the versions at: its list form may be kept */
    uint64_t at[2];
    int64_t comment_count;
    struct votes votes;
    /* FOUND without a fragment: the incident (its tallies included) and, when details were
     * asked for, its sources and question history */
    struct incident inc;
    struct source *sources;
    size_t nsources;
    struct question *history;
    size_t nhistory;
};

/* Keeps json (len bytes), the list form the API wrote for it from its fragment, with the
 * fragments' cache entry it was read from (store/fragments.h fragments_keep_list): the next
 * page at the same versions copies these bytes instead of splicing the fragment again.
 * Nothing for an item that was not read through the cache or that came as list_json. */
void incident_item_keep_list(const struct incident_item *it, const char *json, size_t len);

/* Reads n incidents by normalized UUID in one snapshot into out[0..n) (arena-owned), in the
 * order of ids; details: with the sources and question history (GET /api/v1/incidents/{id}),
 * else the list form. APP_OK or APP_UNAVAILABLE. */
int incident_items(const struct app_ctx *c, const char *const *ids, size_t n, bool details,
                   struct incident_item *out);

/* One page of published incidents as incident_list reads it (the same ids, order and *more),
 * as items in the list form, in one read snapshot. APP_OK or APP_UNAVAILABLE; arena-owned. */
struct incident_filter;
int incident_list_items(const struct app_ctx *c, const struct incident_filter *f,
                        struct incident_item **list, size_t *n, bool *more);

/* Renders the fragments of up to max incidents whose fragment is stale or missing, with
 * render (api/render.h render_incident_fragment), in transactions that move no cache
 * version; *done counts them. APP_OK or APP_UNAVAILABLE. */
typedef void (*incident_fragment_fn)(struct buf *out, const struct incident *i,
                                     const struct source *sources, size_t nsources,
                                     const struct question *history, size_t nhistory);
int incident_fragments_rebuild(const struct app_ctx *c, incident_fragment_fn render, size_t max,
                               size_t *done);

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
