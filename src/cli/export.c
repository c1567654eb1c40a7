/* whistle export: every team, game and incident as an import document (round-trips). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "api/render.h"
#include "app/import.h"
#include "cli/cli.h"
#include "store/comments.h"
#include "store/games.h"
#include "store/incidents.h"

struct export
{
    struct store *s;
    struct jw w;
    struct buf b;
    FILE *out;
    long long teams, games, incidents;
};

/* Writes what has accumulated once it is large, so memory stays flat on big exports. */
static void flush(struct export *e, bool force)
{
    if (force || e->b.len > (1 << 20)) {
        fwrite(e->b.p, 1, e->b.len, e->out);
        buf_reset(&e->b);
    }
}

static int team_cb(void *ctx, const struct team *t)
{
    struct export *e = ctx;
    e->teams++;
    render_team(&e->w, t);
    flush(e, false);
    return 0;
}

static int game_cb(void *ctx, const struct game *g)
{
    struct export *e = ctx;
    e->games++;
    render_game(&e->w, NULL, g);
    flush(e, false);
    return 0;
}

static int ballot_cb(void *ctx, const char *choice, const char *rooting)
{
    struct jw *w = ctx;
    jw_obj_begin(w);
    jw_key(w, "choice");
    jw_str(w, choice);
    jw_key(w, "rooting");
    jw_str(w, rooting);
    jw_obj_end(w);
    return 0;
}

/* One comment in the import document's Comment shape (docs/import-format.md). */
static int comment_cb(void *ctx, const struct comment *c)
{
    render_comment(ctx, c, COMMENT_FORM_DOCUMENT, NULL);
    return 0;
}

static int incident_cb(void *ctx, const struct incident *i, const char *visibility)
{
    struct export *e = ctx;
    e->incidents++;
    struct jw *w = &e->w;
    struct arena a;
    struct source *src = NULL;
    struct question *qs = NULL;
    size_t nsrc = 0, nq = 0;
    arena_init(&a);
    int rc = incidents_sources(e->s, &a, i->id, &src, &nsrc);
    if (rc == 0)
        rc = incidents_questions(e->s, &a, i->id, &qs, &nq);
    if (rc < 0)
        goto out;
    jw_obj_begin(w);
    render_incident_stored(w, i);
    jw_key(w, "visibility");
    /* a merged incident is exported published, with duplicate_of */
    int vis = vocab_find(visibility_names, visibility);
    jw_str(w, visibility_names[vis == VISIBILITY_WITHDRAWN ? vis : VISIBILITY_PUBLISHED]);
    jw_key(w, "sources");
    jw_arr_begin(w);
    for (size_t k = 0; k < nsrc; k++)
        render_source(w, &src[k], true);
    jw_arr_end(w);
    jw_key(w, "question_history");
    render_question_history(w, qs, nq, i->has_question ? i->question.version : MODEL_NULL, true);
    jw_key(w, "debate_question");
    if (i->has_question) {
        const struct question *q = &i->question;
        render_question(w, q, true);
        jw_key(w, "ballots");
        jw_arr_begin(w);
        rc = incidents_ballots(e->s, i->id, q->version, ballot_cb, w);
        jw_arr_end(w);
    } else {
        jw_null(w);
    }
    jw_key(w, "comments");
    jw_arr_begin(w);
    if (rc >= 0)
        rc = comments_each(e->s, &a, i->id, comment_cb, w);
    jw_arr_end(w);
    jw_obj_end(w);
    flush(e, false);
out:
    arena_release(&a);
    return rc;
}

static const char export_usage[] = "whistle export [--db PATH] [--output FILE] [--json]";

/* --json: the document on stdout is already the one JSON object; with --output, stdout gets
 * {"output", "teams", "games", "incidents"} instead of nothing. */
int cli_export(int argc, char **argv)
{
    static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"json", no_argument, NULL, 'j'},
                                         {NULL, 0, NULL, 0}};
    const char *db = NULL, *path = NULL;
    bool json = false;
    int c;
    optind = 1;
    while ((c = cli_getopt(argc, argv, opts, &db, &json)) != -1) {
        if (c == 'o')
            path = optarg;
        else
            return cli_usage(export_usage);
    }
    if (optind != argc)
        return cli_usage(export_usage);
    struct export e = {.b = BUF_INIT, .out = stdout};
    e.s = cli_open_store(cli_db_path(db));
    if (!e.s)
        return CLI_REFUSED;
    if (path) {
        e.out = fopen(path, "w");
        if (!e.out) {
            store_close(e.s);
            return cli_refuse("cannot write %s", path);
        }
    }
    jw_init(&e.w, &e.b);
    int rc = store_begin_read(e.s); /* one consistent snapshot */
    jw_obj_begin(&e.w);
    jw_key(&e.w, "teams");
    jw_arr_begin(&e.w);
    if (rc >= 0)
        rc = teams_each(e.s, team_cb, &e);
    jw_arr_end(&e.w);
    jw_key(&e.w, "games");
    jw_arr_begin(&e.w);
    if (rc >= 0)
        rc = games_each(e.s, game_cb, &e);
    jw_arr_end(&e.w);
    jw_key(&e.w, "incidents");
    jw_arr_begin(&e.w);
    if (rc >= 0)
        rc = incidents_each(e.s, incident_cb, &e);
    jw_arr_end(&e.w);
    /* a database that holds the bundled sample data says so in its export too (app/import.h) */
    struct app_ctx ac = {.s = e.s, .actor = "operator"};
    int sample = rc >= 0 ? import_sample_loaded(&ac) : 0;
    if (sample < 0)
        rc = sample;
    if (sample == 1) {
        jw_key(&e.w, "sample");
        jw_bool(&e.w, true);
    }
    jw_obj_end(&e.w);
    buf_putc(&e.b, '\n');
    store_rollback(e.s);
    int status = CLI_OK;
    if (rc < 0) {
        status = cli_refuse("export failed: %s", store_errmsg(e.s));
    } else {
        flush(&e, true);
        if (fflush(e.out) != 0 || ferror(e.out))
            status = cli_refuse("cannot write the export");
    }
    if (path && fclose(e.out) != 0 && status == CLI_OK)
        status = cli_refuse("cannot write %s", path);
    if (path && json && status == CLI_OK) {
        struct buf out = BUF_INIT;
        struct jw w;
        jw_init(&w, &out);
        jw_obj_begin(&w);
        jw_key(&w, "output");
        jw_str(&w, path);
        jw_key(&w, "teams");
        jw_int(&w, e.teams);
        jw_key(&w, "games");
        jw_int(&w, e.games);
        jw_key(&w, "incidents");
        jw_int(&w, e.incidents);
        jw_obj_end(&w);
        cli_print_json(&out);
        buf_release(&out);
    }
    buf_release(&e.b);
    store_close(e.s);
    return status;
}
