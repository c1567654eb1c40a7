#include "app/incident.h"

#include <string.h>

#include "domain/incident.h"
#include "store/games.h"
#include "store/incidents.h"
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
    store_rollback(c->s);
    return rc < 0 ? APP_UNAVAILABLE : rc;
}

int incident_list(const struct app_ctx *c, const struct incident_filter *f, struct incident **list,
                  size_t *n, bool *more)
{
    /* one read transaction: the page and its tallies are one snapshot, and SQLite takes its
     * WAL read lock once instead of once per statement */
    *list = NULL;
    *n = 0;
    *more = false;
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = incidents_list(c->s, c->a, f, list, n, more);
    store_rollback(c->s);
    return rc < 0 ? APP_UNAVAILABLE : APP_OK;
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
    return games_list(c->s, c->a, f, list, n, more) < 0 ? APP_UNAVAILABLE : APP_OK;
}
