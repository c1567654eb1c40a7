/*
 * Exporting every team, game and incident as an import document (app/import.h
 * export_document): the use case behind `whistle export`, the twin of import_document. It
 * owns the read transaction and decides what the document holds; cli/export.c writes it.
 */
#include <string.h>

#include "app/import.h"
#include "domain/vocab.h"
#include "store/comments.h"
#include "store/games.h"
#include "store/incidents.h"

struct export_run {
    const struct app_ctx *c;
    const struct export_visit *v;
    struct export_report *out;
};

static int team_one(void *ctx, const struct team *t)
{
    struct export_run *x = ctx;
    x->out->teams++;
    return x->v->team(x->v->arg, t);
}

static int game_one(void *ctx, const struct game *g)
{
    struct export_run *x = ctx;
    x->out->games++;
    return x->v->game(x->v->arg, g);
}

/* One incident with its sources, question versions, ballots and comments (read into an
 * arena of its own, released before the next). */
static int incident_one(void *ctx, const struct incident *i, const char *visibility)
{
    struct export_run *x = ctx;
    const struct export_visit *v = x->v;
    struct store *s = x->c->s;
    x->out->incidents++;
    struct arena a;
    struct source *src = NULL;
    struct question *qs = NULL;
    size_t nsrc = 0, nq = 0;
    arena_init(&a);
    int rc = incidents_sources(s, &a, i->id, &src, &nsrc);
    if (rc == 0)
        rc = incidents_questions(s, &a, i->id, &qs, &nq);
    if (rc < 0)
        goto out;
    /* a merged incident is exported published, with duplicate_of */
    int vis = vocab_find(visibility_names, visibility);
    rc = v->incident(v->arg, i,
                     visibility_names[vis == VISIBILITY_WITHDRAWN ? vis : VISIBILITY_PUBLISHED],
                     src, nsrc, qs, nq);
    if (rc >= 0 && i->has_question)
        rc = incidents_ballots(s, i->id, i->question.version, v->ballot, v->arg);
    v->comments(v->arg);
    if (rc >= 0)
        rc = comments_each(s, &a, i->id, v->comment, v->arg);
    v->incident_end(v->arg);
out:
    arena_release(&a);
    return rc;
}

int export_document(const struct app_ctx *ctx, const struct export_visit *v,
                    struct export_report *out)
{
    memset(out, 0, sizeof *out);
    struct export_run x = {.c = ctx, .v = v, .out = out};
    int rc = store_begin_read(ctx->s); /* one consistent snapshot */
    v->section(v->arg, "teams");
    if (rc >= 0)
        rc = teams_each(ctx->s, team_one, &x);
    v->section(v->arg, "games");
    if (rc >= 0)
        rc = games_each(ctx->s, game_one, &x);
    v->section(v->arg, "incidents");
    if (rc >= 0)
        rc = incidents_each(ctx->s, incident_one, &x);
    /* a database that holds the bundled sample data says so in its export too */
    int sample = rc >= 0 ? import_sample_loaded(ctx) : 0;
    if (sample < 0)
        rc = sample;
    out->sample = sample == 1;
    store_rollback(ctx->s);
    return rc < 0 ? APP_UNAVAILABLE : APP_OK;
}
