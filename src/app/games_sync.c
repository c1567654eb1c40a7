/*
 * Sync games from a provider (app/games.h, docs/games.md). The stored copies are read
 * first, outside any write transaction, and compared in memory: an unchanged game costs no
 * write and no lock, and each write transaction holds at most GAMES_SYNC_BATCH upserts
 * (the PostgreSQL write rule of app.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/games.h"
#include "domain/gamesync.h"
#include "providers/http.h"
#include "store/admin.h"
#include "store/games.h"
#include "util/buf.h"

#define CFBD_DEFAULT_URL "https://api.collegefootballdata.com"

static int game_id_cmp(const void *x, const void *y)
{
    const struct game *a = x, *b = y;
    return strcmp(a->id, b->id);
}

static int game_ptr_cmp(const void *x, const void *y)
{
    const struct game *const *a = x, *const *b = y;
    return strcmp((*a)->id, (*b)->id);
}

static const struct game *find_game(const struct game *v, size_t n, const char *id)
{
    struct game key = {.id = id};
    return n ? bsearch(&key, v, n, sizeof *v, game_id_cmp) : NULL;
}

/* Runs op(c, items[i], arg) for i in [0, n) in write transactions of at most
 * GAMES_SYNC_BATCH items; *written counts the calls that returned > 0 in committed
 * transactions. 0 or a negative store_rc (the failed transaction rolled back).
 *
 * Row writes, never the deployment's write lock: each op is one upsert or conditional
 * update that locks its own game's (team's) row, and items come sorted by ID, so two syncs
 * of overlapping games take their rows in one order. What a sync compares its batch with
 * was read before the write (as it always was): a write is a blind upsert of the provider's
 * facts, which no other rule reads then writes (editors do not edit games; imports take the
 * exclusive lock). */
static int write_batches(struct app_ctx *c,
                         int (*op)(struct app_ctx *c, const void *item, const void *arg),
                         const void *const *items, size_t n, const void *arg, size_t *written)
{
    for (size_t i = 0; i < n; i += GAMES_SYNC_BATCH) {
        size_t w = 0;
        int rc = store_begin_row_write(c->s);
        for (size_t k = i; rc >= 0 && k < n && k < i + GAMES_SYNC_BATCH; k++) {
            rc = op(c, items[k], arg);
            w += rc > 0;
        }
        if (rc >= 0)
            rc = store_commit(c->s);
        else
            store_rollback(c->s);
        if (rc < 0)
            return rc;
        *written += w;
    }
    return 0;
}

static int team_op(struct app_ctx *c, const void *item, const void *arg)
{
    const struct provider_team *pt = item;
    (void)arg;
    return teams_sync_upsert(c->s, &pt->t, pt->authoritative);
}

static int game_op(struct app_ctx *c, const void *item, const void *provider)
{
    return games_sync_upsert(c->s, item, provider, c->now);
}

static int vanish_op(struct app_ctx *c, const void *item, const void *status)
{
    const struct game *g = item;
    return games_sync_vanish(c->s, g->id, status, c->now);
}

/* ---- teams ---------------------------------------------------------------------------- */

struct stored_teams {
    struct arena *a;
    struct team *v;
    size_t n, cap;
};

static int keep_team(void *ctx, const struct team *t)
{
    struct stored_teams *st = ctx;
    if (st->n == st->cap) {
        st->cap = st->cap ? st->cap * 2 : 256;
        struct team *grown = realloc(st->v, st->cap * sizeof *st->v);
        if (!grown)
            abort();
        st->v = grown;
    }
    struct team *c = &st->v[st->n++];
    c->id = arena_strdup(st->a, t->id);
    c->name = arena_strdup(st->a, t->name);
    c->abbreviation = arena_strdup(st->a, t->abbreviation);
    c->logo_url = arena_strdup(st->a, t->logo_url);
    c->conference = arena_strdup(st->a, t->conference);
    c->league = arena_strdup(st->a, t->league);
    c->division = arena_strdup(st->a, t->division);
    c->short_name = arena_strdup(st->a, t->short_name);
    c->active = t->active;
    c->aliases_json = arena_strdup(st->a, t->aliases_json);
    return 0;
}

static int team_id_cmp(const void *x, const void *y)
{
    const struct team *a = x, *b = y;
    return strcmp(a->id, b->id);
}

static bool str_ne(const char *a, const char *b)
{
    return (!a || !b) ? a != b : strcmp(a, b) != 0;
}

static bool team_differs(const struct team *a, const struct team *b)
{
    return str_ne(a->name, b->name) || str_ne(a->abbreviation, b->abbreviation) ||
           str_ne(a->logo_url, b->logo_url) || str_ne(a->conference, b->conference) ||
           str_ne(a->league, b->league) || str_ne(a->division, b->division) ||
           str_ne(a->short_name, b->short_name) || a->active != b->active ||
           str_ne(a->aliases_json, b->aliases_json);
}

static int team_ptr_cmp(const void *x, const void *y)
{
    const struct provider_team *const *a = x, *const *b = y;
    return strcmp((*a)->t.id, (*b)->t.id);
}

/* Writes the batch's teams that are missing or (from the provider's team list) differ, in
 * one transaction. */
static int sync_teams(struct app_ctx *c, const struct provider_batch *b,
                      struct games_sync_report *r)
{
    struct stored_teams st = {.a = c->a};
    int rc = teams_each(c->s, keep_team, &st);
    if (rc < 0)
        goto out;
    if (st.n > 1)
        qsort(st.v, st.n, sizeof *st.v, team_id_cmp);
    const void **todo = malloc((b->nteams + 1) * sizeof *todo);
    if (!todo)
        abort();
    size_t ntodo = 0;
    for (size_t i = 0; i < b->nteams; i++) {
        const struct provider_team *pt = &b->teams[i];
        const struct team *have =
            st.n ? bsearch(&pt->t, st.v, st.n, sizeof *st.v, team_id_cmp) : NULL;
        if (!have || (pt->authoritative && team_differs(have, &pt->t)))
            todo[ntodo++] = pt;
    }
    qsort(todo, ntodo, sizeof *todo, team_ptr_cmp); /* in ID order (write_batches) */
    rc = write_batches(c, team_op, todo, ntodo, NULL, &r->teams);
    free(todo);
out:
    free(st.v);
    return rc < 0 ? rc : 0;
}

/* ---- games ---------------------------------------------------------------------------- */

/* The stored games of the batch's scope, sorted by ID (malloc'd; free it). */
static int snapshot(struct app_ctx *c, const struct provider_batch *b, struct game **out, size_t *n)
{
    struct game *all = NULL;
    size_t total = 0;
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < b->scope.nseasons; i++) {
        struct game *v;
        size_t k;
        int rc = games_sync_snapshot(c->s, c->a, b->provider, b->scope.seasons[i], b->scope.week,
                                     b->scope.season_type, &v, &k);
        if (rc < 0) {
            free(all);
            return rc;
        }
        if (k) {
            struct game *grown = realloc(all, (total + k) * sizeof *all);
            if (!grown)
                abort();
            all = grown;
            memcpy(all + total, v, k * sizeof *v);
            total += k;
        }
        free(v);
    }
    if (total > 1)
        qsort(all, total, sizeof *all, game_id_cmp);
    *out = all;
    *n = total;
    return 0;
}

int app_games_sync(struct app_ctx *c, const struct provider_batch *b, struct games_sync_report *r)
{
    struct game *stored = NULL;
    size_t nstored = 0;
    const void **changed = NULL;
    int rc = sync_teams(c, b, r);
    if (rc < 0)
        goto out;
    rc = snapshot(c, b, &stored, &nstored);
    if (rc < 0)
        goto out;
    r->rejected = b->nrejects;
    /* one list serves the changed games, then the vanished ones */
    changed = malloc(((b->ngames > nstored ? b->ngames : nstored) + 1) * sizeof *changed);
    if (!changed)
        abort();
    size_t nchanged = 0, inserted = 0, updated = 0;
    for (size_t i = 0; i < b->ngames; i++) {
        struct game *g = &b->games[i];
        const struct game *have = find_game(stored, nstored, g->id);
        if (have)
            gamesync_keep_live(have, g); /* a schedule never erases a scoreboard's facts */
        if (have && !gamesync_differs(have, g)) {
            r->unchanged++;
            continue;
        }
        if (!have) {
            /* outside the scope's snapshot (e.g. moved to another week): does it exist? */
            int e = admin_game_exists(c->s, g->id);
            if (e < 0) {
                rc = e;
                goto out;
            }
            have = e ? g : NULL;
        }
        changed[nchanged++] = g;
        if (have)
            updated++;
        else
            inserted++;
    }
    size_t written = 0;
    rc = write_batches(c, game_op, changed, nchanged, b->provider, &written);
    if (rc < 0)
        goto out;
    r->inserted = inserted;
    r->updated = updated;

    if (b->nrejects) {
        r->vanish_skipped = true;
        goto out;
    }
    /* the batch's games are sorted by ID (provider_batch_finish), so find_game works */
    nchanged = 0;
    for (size_t i = 0; i < nstored; i++)
        if (!find_game(b->games, b->ngames, stored[i].id) &&
            strcmp(stored[i].status, b->vanished_status) != 0)
            changed[nchanged++] = &stored[i];
    rc = write_batches(c, vanish_op, changed, nchanged, b->vanished_status, &r->vanished);
out:
    free(stored);
    free(changed);
    return rc < 0 ? APP_UNAVAILABLE : GAMES_SYNC_OK;
}

int app_games_scoreboard(struct app_ctx *c, const struct provider_batch *b,
                         struct games_sync_report *r)
{
    /* the stored copies, read before any write transaction; the merged games live in the
     * arena, the list of changed ones is malloc'd */
    const void **changed = malloc((b->nlive + 1) * sizeof *changed);
    if (!changed)
        abort();
    size_t nchanged = 0;
    int rc = 0;
    r->rejected = b->nrejects;
    for (size_t i = 0; i < b->nlive; i++) {
        const struct gamesync_live *l = &b->live[i];
        struct game have;
        rc = games_sync_get(c->s, c->a, b->provider, l->id, &have);
        if (rc < 0)
            goto out;
        if (rc == 0) {
            r->not_stored++;
            continue;
        }
        struct game *g = arena_alloc(c->a, sizeof *g);
        *g = have;
        gamesync_apply_live(g, l, c->now);
        if (!gamesync_differs(&have, g)) {
            r->unchanged++;
            continue;
        }
        changed[nchanged++] = g;
    }
    size_t written = 0;
    /* in ID order, like the schedule's (write_batches) */
    qsort(changed, nchanged, sizeof *changed, game_ptr_cmp);
    rc = write_batches(c, game_op, changed, nchanged, b->provider, &written);
    if (rc >= 0)
        r->updated = nchanged;
out:
    free(changed);
    return rc < 0 ? APP_UNAVAILABLE : GAMES_SYNC_OK;
}

/* ---- reading a source ------------------------------------------------------------------ */

/* Reads the file at path into out, at most max bytes. 0 or -1 with err. */
static int read_file(const char *path, size_t max, struct buf *out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    char chunk[65536];
    size_t n;
    int rc = 0;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (out->len + n > max) {
            snprintf(err, errlen, "%s is larger than %zu bytes", path, max);
            rc = -1;
            break;
        }
        buf_append(out, chunk, n);
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        rc = -1;
    }
    fclose(f);
    return rc;
}

static bool is_url(const char *s)
{
    return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0;
}

/* GETs url under src's limits into body. 0, 1 (not modified: a conditional request's 304;
 * an unconditional one's leaves body empty and answers 0) or -1 with err. */
static int fetch(const struct games_source *src, const char *url, const char *bearer,
                 bool conditional, struct buf *body, struct games_sync_report *r, char **etag,
                 char **last_modified, char *err, size_t errlen)
{
    struct provider_http_req req = {
        .url = url,
        .bearer = bearer,
        .etag = conditional ? src->etag : NULL,
        .last_modified = conditional ? src->last_modified : NULL,
        .timeout_ms = src->timeout_ms,
        .max_bytes = src->max_bytes,
        .attempts = src->attempts,
        .backoff_ms = src->backoff_ms,
        .max_wait_s = src->max_wait_s,
    };
    struct provider_http_res res;
    int rc = provider_http_get(&req, &res);
    r->http_status = res.status;
    r->attempts += res.attempts;
    if (res.retry_after_s >= 0)
        r->retry_after_s = res.retry_after_s;
    if (rc < 0) {
        /* the URL carries no key (it goes in a header), so it may be named */
        snprintf(err, errlen, "%s: %s after %d attempt%s", url, res.error, res.attempts,
                 res.attempts == 1 ? "" : "s");
    } else if (res.status == 304) {
        rc = conditional ? 1 : 0;
    } else {
        *body = res.body;
        res.body = (struct buf)BUF_INIT;
        if (etag) {
            *etag = res.etag;
            res.etag = NULL;
        }
        if (last_modified) {
            *last_modified = res.last_modified;
            res.last_modified = NULL;
        }
    }
    provider_http_release(&res);
    return rc;
}

static void report_rejects(const struct provider_batch *b,
                           void (*on_reject)(void *ctx, const struct provider_reject *rj),
                           void *ctx)
{
    if (on_reject)
        for (size_t i = 0; i < b->nrejects; i++)
            on_reject(ctx, &b->rejects[i]);
}

/* The most a source's document may weigh. */
static size_t doc_max(const struct games_source *src)
{
    return src->max_bytes ? src->max_bytes : 64u << 20;
}

/* {base}/path of the CFBD API (base without its trailing slashes) into url. */
static void cfbd_url(const struct games_source *src, struct buf *url, const char *path)
{
    const char *base = src->cfbd_url ? src->cfbd_url : CFBD_DEFAULT_URL;
    size_t bl = strlen(base);
    while (bl && base[bl - 1] == '/')
        bl--;
    buf_printf(url, "%.*s/%s", (int)bl, base, path);
}

/* How a kind of source is fetched (get: its document into doc, a CFBD teams document into teams;
 * 0, 1 not modified, or -1 with err; it may set the batch's scope), how it reads them into
 * the batch (read: 0 or -1 with err) and how the batch is written (apply). */
struct games_kind {
    const char *provider, *id_prefix, *canceled;
    int (*get)(const struct games_source *src, struct provider_batch *b, struct buf *doc,
               struct buf *teams, struct games_sync_report *r, char **etag, char **last_modified,
               char *err, size_t errlen);
    int (*read)(struct app_ctx *c, const struct buf *doc, const struct buf *teams,
                struct provider_batch *b, char *err, size_t errlen);
    int (*apply)(struct app_ctx *c, const struct provider_batch *b, struct games_sync_report *r);
};

static int nflverse_get(const struct games_source *src, struct provider_batch *b, struct buf *doc,
                        struct buf *teams, struct games_sync_report *r, char **etag,
                        char **last_modified, char *err, size_t errlen)
{
    (void)b;
    (void)teams;
    if (is_url(src->location))
        return fetch(src, src->location, NULL, true, doc, r, etag, last_modified, err, errlen);
    return read_file(src->location, doc_max(src), doc, err, errlen);
}

static int nflverse_doc(struct app_ctx *c, const struct buf *doc, const struct buf *teams,
                        struct provider_batch *b, char *err, size_t errlen)
{
    (void)teams;
    return nflverse_read(doc->p, doc->len, c->now, c->a, b, err, errlen);
}

/* /scoreboard: the live facts of the day's games (docs/games.md "Live games"). Never
 * conditional: a scoreboard changes with every play. */
static int scoreboard_get(const struct games_source *src, struct provider_batch *b, struct buf *doc,
                          struct buf *teams, struct games_sync_report *r, char **etag,
                          char **last_modified, char *err, size_t errlen)
{
    (void)b;
    (void)teams;
    (void)etag;
    (void)last_modified;
    r->scoreboard = true;
    if (src->location)
        return read_file(src->location, doc_max(src), doc, err, errlen);
    struct buf url = BUF_INIT;
    cfbd_url(src, &url, "scoreboard");
    int rc = fetch(src, url.p, src->cfbd_key, false, doc, r, NULL, NULL, err, errlen);
    buf_release(&url);
    return rc;
}

static int scoreboard_doc(struct app_ctx *c, const struct buf *doc, const struct buf *teams,
                          struct provider_batch *b, char *err, size_t errlen)
{
    (void)teams;
    return cfbd_read_scoreboard(doc->p, doc->len, c->a, b, err, errlen);
}

static int cfbd_get(const struct games_source *src, struct provider_batch *b, struct buf *games,
                    struct buf *teams, struct games_sync_report *r, char **etag,
                    char **last_modified, char *err, size_t errlen)
{
    const char *st =
        src->season_type && strcmp(src->season_type, "both") != 0 ? src->season_type : NULL;
    b->scope.week = src->week;
    b->scope.season_type = st;
    provider_scope_season(&b->scope, src->season);
    int rc;
    if (src->location) {
        rc = read_file(src->location, doc_max(src), games, err, errlen);
        if (rc == 0 && src->teams_file)
            rc = read_file(src->teams_file, doc_max(src), teams, err, errlen);
        return rc;
    }
    struct buf url = BUF_INIT;
    cfbd_url(src, &url, "games");
    buf_printf(&url, "?year=%lld", (long long)src->season);
    if (src->week != MODEL_NULL)
        buf_printf(&url, "&week=%lld", (long long)src->week);
    buf_printf(&url, "&seasonType=%s", st ? st : "both");
    rc = fetch(src, url.p, src->cfbd_key, true, games, r, etag, last_modified, err, errlen);
    if (rc == 0 && src->with_teams) {
        buf_reset(&url);
        cfbd_url(src, &url, "teams");
        buf_printf(&url, "?year=%lld", (long long)src->season);
        rc = fetch(src, url.p, src->cfbd_key, false, teams, r, NULL, NULL, err, errlen);
    }
    buf_release(&url);
    return rc;
}

static int cfbd_doc(struct app_ctx *c, const struct buf *games, const struct buf *teams,
                    struct provider_batch *b, char *err, size_t errlen)
{
    struct cfbd_teams *index = NULL;
    if (teams->len && cfbd_read_teams(teams->p, teams->len, c->a, &index, err, errlen) < 0)
        return -1;
    return cfbd_read_games(games->p, games->len, index, c->now, c->a, b, err, errlen);
}

/* The kinds of source, each's provider name, game id prefix and canceled word. */
enum { KIND_NFLVERSE, KIND_SCOREBOARD, KIND_CFBD };
static const struct games_kind kinds[] = {
    [KIND_NFLVERSE] = {"nflverse", "nfl:", "unknown", nflverse_get, nflverse_doc, app_games_sync},
    [KIND_SCOREBOARD] = {"cfbd", "cfb:", "canceled", scoreboard_get, scoreboard_doc,
                         app_games_scoreboard},
    [KIND_CFBD] = {"cfbd", "cfb:", "canceled", cfbd_get, cfbd_doc, app_games_sync},
};

/* One sync of src by its kind: get, read, report the rejects, apply; the outcome. */
static int sync_kind(struct app_ctx *c, const struct games_source *src, const struct games_kind *k,
                     void (*on_reject)(void *, const struct provider_reject *), void *rctx,
                     struct games_sync_report *r, char **etag, char **last_modified, char *err,
                     size_t errlen)
{
    struct buf doc = BUF_INIT, teams = BUF_INIT;
    struct provider_batch b;
    provider_batch_init(&b, k->provider, k->id_prefix, k->canceled);
    int rc = k->get(src, &b, &doc, &teams, r, etag, last_modified, err, errlen);
    if (rc == 1) {
        r->not_modified = true;
        rc = GAMES_SYNC_OK;
    } else if (rc < 0) {
        rc = GAMES_SYNC_FETCH_FAILED;
    } else if (k->read(c, &doc, &teams, &b, err, errlen) < 0) {
        rc = GAMES_SYNC_BAD_DOCUMENT;
    } else {
        report_rejects(&b, on_reject, rctx);
        rc = k->apply(c, &b, r);
    }
    provider_batch_release(&b);
    buf_release(&doc);
    buf_release(&teams);
    return rc;
}

int app_games_sync_source(struct app_ctx *c, const struct games_source *src,
                          void (*on_reject)(void *ctx, const struct provider_reject *rj),
                          void *reject_ctx, struct games_sync_report *r, char **etag,
                          char **last_modified, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->retry_after_s = -1;
    if (etag)
        *etag = NULL;
    if (last_modified)
        *last_modified = NULL;
    int k = strcmp(src->provider, "nflverse") == 0 ? KIND_NFLVERSE
            : src->scoreboard                      ? KIND_SCOREBOARD
                                                   : KIND_CFBD;
    return sync_kind(c, src, &kinds[k], on_reject, reject_ctx, r, etag, last_modified, err, errlen);
}

void app_games_report_line(const struct games_sync_report *r, char *out, size_t outlen)
{
    if (r->not_modified) {
        snprintf(out, outlen, "not modified (HTTP 304)");
        return;
    }
    if (r->scoreboard) {
        snprintf(out, outlen,
                 "scoreboard: %zu updated, %zu unchanged, %zu rejected, %zu not stored", r->updated,
                 r->unchanged, r->rejected, r->not_stored);
        return;
    }
    snprintf(out, outlen,
             "%zu inserted, %zu updated, %zu unchanged, %zu rejected, %zu vanished, %zu teams"
             " written%s",
             r->inserted, r->updated, r->unchanged, r->rejected, r->vanished, r->teams,
             r->vanish_skipped ? " (vanished games not looked for: rows were rejected)" : "");
}
