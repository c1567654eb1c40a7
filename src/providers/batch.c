/* Provider batches: growable arrays of games, teams and rejected rows (provider.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/provider.h"
#include "util/buf.h"

void provider_batch_init(struct provider_batch *b, const char *provider, const char *prefix,
                         const char *vanished_status)
{
    memset(b, 0, sizeof *b);
    b->provider = provider;
    b->id_prefix = prefix;
    b->vanished_status = vanished_status;
    b->scope.week = MODEL_NULL;
}

void provider_batch_release(struct provider_batch *b)
{
    free(b->games);
    free(b->teams);
    free(b->rejects);
    free(b->live);
    b->games = NULL;
    b->teams = NULL;
    b->rejects = NULL;
    b->live = NULL;
    b->ngames = b->nteams = b->nrejects = b->nlive = 0;
    b->capgames = b->capteams = b->caprejects = b->caplive = 0;
}

/* Makes room for one more element of size sz in *arr (n used, *cap allocated). */
static void *grow(void *arr, size_t n, size_t *cap, size_t sz)
{
    if (n < *cap)
        return arr;
    size_t c = *cap ? *cap * 2 : 64;
    void *p = realloc(arr, c * sz);
    if (!p)
        abort(); /* as buf.h: a process that cannot allocate cannot go on */
    *cap = c;
    return p;
}

struct game *provider_batch_game(struct provider_batch *b)
{
    b->games = grow(b->games, b->ngames, &b->capgames, sizeof *b->games);
    struct game *g = &b->games[b->ngames++];
    memset(g, 0, sizeof *g);
    return g;
}

struct gamesync_live *provider_batch_live(struct provider_batch *b)
{
    b->live = grow(b->live, b->nlive, &b->caplive, sizeof *b->live);
    struct gamesync_live *l = &b->live[b->nlive++];
    memset(l, 0, sizeof *l);
    return l;
}

void provider_batch_team(struct provider_batch *b, const struct team *t, bool authoritative)
{
    b->teams = grow(b->teams, b->nteams, &b->capteams, sizeof *b->teams);
    b->teams[b->nteams].t = *t;
    b->teams[b->nteams].authoritative = authoritative;
    b->nteams++;
}

void provider_batch_reject(struct provider_batch *b, struct arena *a, size_t row,
                           const char *game_id, const char *field, const char *fmt, ...)
{
    struct buf msg = BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    b->rejects = grow(b->rejects, b->nrejects, &b->caprejects, sizeof *b->rejects);
    struct provider_reject *r = &b->rejects[b->nrejects++];
    r->row = row;
    r->game_id = arena_strdup(a, game_id);
    r->field = arena_strdup(a, field);
    r->message = arena_strdup(a, msg.p);
    buf_release(&msg);
}

void provider_scope_season(struct provider_scope *sc, int64_t season)
{
    for (size_t i = 0; i < sc->nseasons; i++)
        if (sc->seasons[i] == season)
            return;
    if (sc->nseasons < PROVIDER_MAX_SEASONS)
        sc->seasons[sc->nseasons++] = season;
}

static int team_cmp(const void *x, const void *y)
{
    const struct provider_team *a = x, *b = y;
    int c = strcmp(a->t.id, b->t.id);
    if (c)
        return c;
    return (int)b->authoritative - (int)a->authoritative; /* authoritative first */
}

static int game_cmp(const void *x, const void *y)
{
    const struct game *a = x, *b = y;
    return strcmp(a->id, b->id);
}

void provider_batch_finish(struct provider_batch *b, struct arena *a)
{
    if (b->nteams > 1)
        qsort(b->teams, b->nteams, sizeof *b->teams, team_cmp);
    size_t k = 0;
    for (size_t i = 0; i < b->nteams; i++)
        if (k == 0 || strcmp(b->teams[k - 1].t.id, b->teams[i].t.id) != 0)
            b->teams[k++] = b->teams[i];
    b->nteams = k;

    /* A provider listing one game twice is a malformed document: which copy is right is
     * unknown, so every copy is rejected (row numbers are gone after sorting: the message
     * names the ID). */
    if (b->ngames > 1)
        qsort(b->games, b->ngames, sizeof *b->games, game_cmp);
    k = 0;
    for (size_t i = 0; i < b->ngames;) {
        size_t j = i + 1;
        while (j < b->ngames && strcmp(b->games[i].id, b->games[j].id) == 0)
            j++;
        if (j - i > 1)
            provider_batch_reject(b, a, 0, b->games[i].id, "id", "game %s is listed %zu times",
                                  b->games[i].id, j - i);
        else
            b->games[k++] = b->games[i];
        i = j;
    }
    b->ngames = k;
}
