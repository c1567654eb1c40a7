#include "app/incident.h"

#include <string.h>

#include "domain/incident.h"
#include "store/fragments.h"
#include "store/games.h"
#include "store/incidents.h"
#include "store/listindex.h"
#include "store/votes.h"

/* Locates a page key (slug, former slug, UUID): MOVED/MERGED/MISSING end the read, FOUND
 * leaves the incident's ID in *id. */
static int locate(const struct app_ctx *c, const char *key, struct incident_view *out,
                  const char **id)
{
    struct incident_ref ref;
    int rc = incidents_locate(c->s, key, &ref);
    if (rc <= 0)
        return rc < 0 ? rc : INCIDENT_READ_MISSING;
    switch (incident_public_state(ref.visibility, ref.survivor_visibility)) {
    case INCIDENT_PUBLIC_GONE:
        return INCIDENT_READ_MISSING;
    case INCIDENT_PUBLIC_REDIRECT:
        out->survivor_id = arena_strdup(c->a, ref.survivor_id);
        out->survivor_key =
            arena_strdup(c->a, ref.survivor_slug[0] ? ref.survivor_slug : ref.survivor_id);
        return INCIDENT_READ_MERGED;
    case INCIDENT_PUBLIC_VISIBLE:
        break;
    }
    out->key = arena_strdup(c->a, ref.slug[0] ? ref.slug : ref.id);
    if (ref.historical)
        return INCIDENT_READ_MOVED;
    *id = arena_strdup(c->a, ref.id);
    return INCIDENT_READ_FOUND;
}

/* Reads the incident and what was asked for; FOUND, MISSING, MERGED or a store_rc. */
static int read_view(const struct app_ctx *c, const char *id, unsigned what, const char *voter,
                     struct incident_view *out)
{
    struct incident *inc = &out->inc;
    int rc = incidents_get(c->s, c->a, id, inc);
    if (rc <= 0)
        return rc < 0 ? rc : INCIDENT_READ_MISSING;
    switch (incident_public_state(inc->visibility, inc->survivor_visibility)) {
    case INCIDENT_PUBLIC_GONE:
        return INCIDENT_READ_MISSING;
    case INCIDENT_PUBLIC_REDIRECT:
        out->survivor_id = inc->duplicate_of;
        out->survivor_key = inc->survivor_slug ? inc->survivor_slug : inc->duplicate_of;
        return INCIDENT_READ_MERGED;
    case INCIDENT_PUBLIC_VISIBLE:
        break;
    }
    out->key = inc->slug ? inc->slug : inc->id;
    if (inc->has_question &&
        (rc = incidents_tallies(c->s, id, inc->question.version, &inc->votes)) < 0)
        return rc;
    if ((what & INCIDENT_READ_DETAILS) &&
        ((rc = incidents_sources(c->s, c->a, id, &out->sources, &out->nsources)) < 0 ||
         (rc = incidents_questions(c->s, c->a, id, &out->history, &out->nhistory)) < 0))
        return rc;
    if ((what & INCIDENT_READ_GAME) && (rc = games_get(c->s, c->a, inc->game_id, &out->game)) < 0)
        return rc;
    if (voter && inc->has_question &&
        (rc = ballots_get(c->s, id, inc->question.version, voter, out->choice, out->rooting)) < 0)
        return rc;
    return INCIDENT_READ_FOUND;
}

int incident_read(const struct app_ctx *c, const char *key, unsigned what, const char *voter,
                  struct incident_view *out)
{
    memset(out, 0, sizeof *out);
    /* one read transaction: the incident, its tallies, sources and history are one snapshot */
    int rc = store_begin_read(c->s);
    if (rc < 0)
        goto out;
    const char *id = key;
    if (what & INCIDENT_READ_PAGE_KEY)
        rc = locate(c, key, out, &id);
    if (rc == INCIDENT_READ_FOUND)
        rc = read_view(c, id, what, voter, out);
out:
    return app_rollback(c, rc, rc);
}

/* The item's state from its facts; FOUND leaves the rest to the caller. */
static void item_state(const struct incident_facts *f, struct incident_item *it)
{
    it->id = f->id;
    it->state = INCIDENT_READ_MISSING;
    if (!f->found)
        return;
    switch (incident_public_state(f->visibility, f->survivor_visibility)) {
    case INCIDENT_PUBLIC_GONE:
        return;
    case INCIDENT_PUBLIC_REDIRECT:
        it->state = INCIDENT_READ_MERGED;
        it->survivor_id = f->duplicate_of;
        it->survivor_key = f->survivor_slug ? f->survivor_slug : f->duplicate_of;
        return;
    case INCIDENT_PUBLIC_VISIBLE:
        it->state = INCIDENT_READ_FOUND;
        return;
    }
}

/* The items without a fragment, from their rows (the way incident_read reads them). */
static int item_rows(const struct app_ctx *c, struct incident_item *it, bool details)
{
    struct incident_view v;
    memset(&v, 0, sizeof v);
    int rc = read_view(c, it->id, details ? INCIDENT_READ_DETAILS : 0, NULL, &v);
    if (rc < 0)
        return rc;
    if (rc != INCIDENT_READ_FOUND) {
        /* withdrawn or merged since the facts were read */
        it->state = rc;
        it->survivor_id = v.survivor_id;
        it->survivor_key = v.survivor_key;
        return 0;
    }
    it->inc = v.inc;
    it->sources = v.sources;
    it->nsources = v.nsources;
    it->history = v.history;
    it->nhistory = v.nhistory;
    return 0;
}

/* The items of ids (keys: theirs from the list index, or NULL: fragments_read); in_read:
 * inside the caller's read transaction (else the incidents without a fragment are read in one
 * of their own); at: the store's versions read before (the fragments' cache may answer), or
 * NULL. 0 or a negative store_rc. */
static int read_items(const struct app_ctx *c, const uint64_t *at, const char *const *ids,
                      const int64_t *keys, size_t n, bool details, bool in_read,
                      struct incident_item *out)
{
    memset(out, 0, n * sizeof *out);
    struct incident_facts *facts = arena_alloc(c->a, sizeof *facts * (n ? n : 1));
    int rc = fragments_read(c->s, c->a, at, ids, keys, n, !details, facts);
    if (rc < 0)
        return rc;
    bool rows = false, keepable = at && fragments_cache_enabled();
    for (size_t i = 0; i < n; i++) {
        struct incident_item *it = &out[i];
        item_state(&facts[i], it);
        if (it->state != INCIDENT_READ_FOUND)
            continue;
        if (!facts[i].fragment && !facts[i].list_json) {
            rows = true;
            continue;
        }
        it->fragment = facts[i].fragment;
        it->fragment_len = facts[i].fragment_len;
        it->list_json = facts[i].list_json;
        it->list_len = facts[i].list_len;
        /* an entry read a second time keeps its list form: one read once (a deep page
         * nobody asks for again) does not pay for the copy */
        if (keepable && facts[i].from_cache) {
            it->cached = true;
            it->at[0] = at[0];
            it->at[1] = at[1];
        }
        it->comment_count = facts[i].comment_count;
        it->votes = facts[i].votes;
        if (facts[i].question_version != STORE_NULL_INT)
            incidents_tallies_shown(it->id, &it->votes);
    }
    if (!rows)
        return 0;
    /* the incidents without a valid fragment, from their rows in one read snapshot */
    if (!in_read)
        rc = store_begin_read(c->s);
    for (size_t i = 0; rc >= 0 && i < n; i++)
        if (out[i].state == INCIDENT_READ_FOUND && !out[i].fragment && !out[i].list_json)
            rc = item_rows(c, &out[i], details);
    if (!in_read)
        store_rollback(c->s);
    return rc;
}

void incident_item_keep_list(const struct incident_item *it, const char *json, size_t len)
{
    if (it->cached && it->fragment && !it->list_json)
        fragments_keep_list(it->at, it->id, json, len);
}

/* The store's versions before the request's reads: the ones its cache token carries, or
 * without the response cache (--no-cache) read here when a process cache would use them (the
 * list index, the fragments' cache); v or c->versions, or NULL. */
static const uint64_t *read_versions(const struct app_ctx *c, uint64_t v[2])
{
    if (c->versions)
        return c->versions;
    if ((listindex_enabled() || fragments_cache_enabled()) && store_data_version(c->s, v) == 0)
        return v;
    return NULL;
}

int incident_items(const struct app_ctx *c, const char *const *ids, size_t n, bool details,
                   struct incident_item *out)
{
    /* one statement when every incident has its fragment (none when the fragments' cache
     * has them all): no transaction around it (no BEGIN / ROLLBACK round trips) */
    uint64_t v[2];
    const uint64_t *at = read_versions(c, v);
    return read_items(c, at, ids, NULL, n, details, false, out) < 0 ? APP_UNAVAILABLE : APP_OK;
}

/* f with the content version the list index needs (store/listindex.h), from at */
static struct incident_filter versioned(const struct incident_filter *f, const uint64_t *at)
{
    struct incident_filter fv = *f;
    if (!fv.versioned && at) {
        fv.versioned = true;
        fv.version = at[0];
    }
    return fv;
}

/* Whether every item of a page is published (else its ids came from an index older than
 * the read) */
static bool all_found(const struct incident_item *items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (items[i].state != INCIDENT_READ_FOUND)
            return false;
    return true;
}

int incident_list_items(const struct app_ctx *c, const struct incident_filter *f,
                        struct incident_item **list, size_t *n, bool *more)
{
    *list = NULL;
    *n = 0;
    *more = false;
    const char **ids = NULL;
    const int64_t *keys = NULL;
    size_t count = 0;
    uint64_t v[2];
    const uint64_t *at = read_versions(c, v);
    const struct incident_filter fv = versioned(f, at);
    /* the page's ids from the list index, then its incidents' facts and fragments in one
     * statement (one snapshot, no transaction; those without a fragment from their rows):
     * served when every one is published there */
    int rc = incidents_index_ids(c->a, &fv, &ids, &keys, &count, more);
    if (rc == 1) {
        struct incident_item *items = arena_alloc(c->a, sizeof *items * (count ? count : 1));
        rc = read_items(c, at, ids, keys, count, false, false, items);
        bool served = rc >= 0 && all_found(items, count);
        listindex_count_request(served);
        if (rc < 0)
            return APP_UNAVAILABLE;
        if (served) {
            *list = items;
            *n = count;
            return APP_OK;
        }
    }
    /* else from SQL: the page's ids and its incidents in one read transaction (one
     * snapshot) */
    rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = incidents_page_ids(c->s, c->a, &fv, &ids, &count, more);
    struct incident_item *items = arena_alloc(c->a, sizeof *items * (count ? count : 1));
    if (rc >= 0)
        rc = read_items(c, NULL, ids, NULL, count, false, true, items); /* the snapshot's own */
    store_rollback(c->s);
    if (rc < 0)
        return APP_UNAVAILABLE;
    /* every ID of the page is published in this snapshot: each item is FOUND */
    *list = items;
    *n = count;
    return APP_OK;
}

/* One stale fragment, claimed and rendered in the caller's write transaction: 0 or a
 * negative store_rc. */
static int rebuild_one(const struct app_ctx *c, incident_fragment_fn render, const char *id)
{
    int rc = fragments_claim(c->s, id);
    if (rc <= 0)
        return rc;
    struct incident_view v;
    memset(&v, 0, sizeof v);
    rc = incidents_get(c->s, c->a, id, &v.inc);
    if (rc <= 0)
        return rc < 0 ? rc : fragments_put(c->s, id, NULL);
    if ((rc = incidents_sources(c->s, c->a, id, &v.sources, &v.nsources)) < 0 ||
        (rc = incidents_questions(c->s, c->a, id, &v.history, &v.nhistory)) < 0)
        return rc;
    struct buf body = BUF_INIT;
    render(&body, &v.inc, v.sources, v.nsources, v.history, v.nhistory);
    rc = fragments_put(c->s, id, body.p);
    buf_release(&body);
    return rc;
}

/* Stale IDs a read, and SQLite's incidents a transaction (incident_fragments_rebuild). */
enum { REBUILD_BATCH = 256 };

int incident_fragments_rebuild(const struct app_ctx *c, incident_fragment_fn render, size_t max,
                               size_t *done)
{
    /* A batch of up to REBUILD_BATCH stale IDs a read (the read scans past the rows claimed before
     * it; one read per incident made a million renders quadratic on PostgreSQL: 40 a
     * second past 100,000). SQLite has one writer: the batch in one transaction.
     * PostgreSQL: one incident per transaction, so a rebuild holds one stale row's lock at
     * a time and never deadlocks with a write whose triggers mark several (migration 023);
     * an ID another rebuild claimed meanwhile is skipped (rebuild_one). */
    size_t per_tx = store_is_pg(c->s) ? 1 : REBUILD_BATCH;
    *done = 0;
    int rc = 0;
    while (rc >= 0 && *done < max) {
        /* each batch in its own arena: a rebuild of a million incidents stays small */
        struct arena a;
        arena_init(&a);
        struct app_ctx bc = *c;
        bc.a = &a;
        const char **ids;
        size_t n = 0;
        size_t want = max - *done < REBUILD_BATCH ? max - *done : REBUILD_BATCH;
        rc = fragments_stale(c->s, &a, want, &ids, &n);
        for (size_t i = 0; rc >= 0 && i < n; i += per_tx) {
            if ((rc = store_begin_row_write(c->s)) < 0)
                break;
            store_write_derived(c->s);
            for (size_t k = i; rc >= 0 && k < n && k < i + per_tx; k++)
                rc = rebuild_one(&bc, render, ids[k]);
            if (rc >= 0)
                rc = store_commit(c->s);
            else
                store_rollback(c->s);
        }
        arena_release(&a);
        if (n == 0)
            break;
        *done += n;
    }
    return rc < 0 ? APP_UNAVAILABLE : APP_OK;
}

int incident_list(const struct app_ctx *c, const struct incident_filter *f, struct incident **list,
                  size_t *n, bool *more)
{
    /* one read transaction: the page and its tallies are one snapshot, and SQLite takes its
     * WAL read lock once instead of once per statement */
    *list = NULL;
    *n = 0;
    *more = false;
    uint64_t v[2];
    const struct incident_filter fv = versioned(f, read_versions(c, v));
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = incidents_list(c->s, c->a, &fv, list, n, more);
    return app_rollback(c, rc, APP_OK);
}

int game_read(const struct app_ctx *c, const char *id, struct game *out, int64_t limit,
              struct incident **list, size_t *n)
{
    int rc = store_begin_read(c->s);
    int found = rc < 0 ? rc : games_get(c->s, c->a, id, out);
    if (found == 1 && list) {
        struct incident_filter f = {.game_id = id,
                                    .season = MODEL_NULL,
                                    .week = MODEL_NULL,
                                    .from = MODEL_NULL,
                                    .to = MODEL_NULL,
                                    .has_verdict = -1,
                                    .limit = limit};
        bool more = false;
        rc = incidents_list(c->s, c->a, &f, list, n, &more);
    }
    store_rollback(c->s);
    return found < 0 || rc < 0 ? APP_UNAVAILABLE : found == 1;
}

int team_list(const struct app_ctx *c, const char *league, int64_t limit, int64_t offset,
              struct team **list, size_t *n, bool *more)
{
    *list = NULL;
    *n = 0;
    *more = false;
    return teams_list(c->s, c->a, league, limit, offset, list, n, more) < 0 ? APP_UNAVAILABLE
                                                                            : APP_OK;
}

int game_list(const struct app_ctx *c, const struct game_filter *f, struct game **list, size_t *n,
              bool *more)
{
    *list = NULL;
    *n = 0;
    *more = false;
    struct game_filter fv = *f; /* the list index's version, as for incidents */
    uint64_t v[2];
    if (!fv.versioned && !fv.by_week && listindex_enabled() && store_data_version(c->s, v) == 0) {
        fv.versioned = true;
        fv.version = v[0];
    }
    return games_list(c->s, c->a, &fv, list, n, more) < 0 ? APP_UNAVAILABLE : APP_OK;
}
