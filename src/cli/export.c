/* whistle export: every team, game and incident as an import document (round-trips). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "api/render.h"
#include "app/import.h"
#include "cli/cli.h"
#include "store/comments.h"

struct export
{
    struct jw w;
    struct buf b;
    FILE *out;
    bool section_open; /* a section's array is open */
    bool ballots_open; /* the current incident's ballots' array is open */
};

/* Writes what has accumulated once it is large, so memory stays flat on big exports. */
static void flush(struct export *e, bool force)
{
    if (force || e->b.len > (1 << 20)) {
        fwrite(e->b.p, 1, e->b.len, e->out);
        buf_reset(&e->b);
    }
}

static void section_cb(void *ctx, const char *name)
{
    struct export *e = ctx;
    if (e->section_open)
        jw_arr_end(&e->w);
    jw_key(&e->w, name);
    jw_arr_begin(&e->w);
    e->section_open = true;
}

static int team_cb(void *ctx, const struct team *t)
{
    struct export *e = ctx;
    render_team(&e->w, t);
    flush(e, false);
    return 0;
}

static int game_cb(void *ctx, const struct game *g)
{
    struct export *e = ctx;
    render_game(&e->w, NULL, g);
    flush(e, false);
    return 0;
}

static int ballot_cb(void *ctx, const char *choice, const char *rooting)
{
    struct jw *w = &((struct export *)ctx)->w;
    jw_obj_begin(w);
    jw_kstr(w, "choice", choice);
    jw_kstr(w, "rooting", rooting);
    jw_obj_end(w);
    return 0;
}

/* One comment in the import document's Comment shape (docs/import-format.md). */
static int comment_cb(void *ctx, const struct comment *c)
{
    render_comment(&((struct export *)ctx)->w, c, COMMENT_FORM_DOCUMENT, NULL);
    return 0;
}

/* An incident up to its ballots (left open when it has a debate question). */
static int incident_cb(void *ctx, const struct incident *i, const char *visibility,
                       const struct source *src, size_t nsrc, const struct question *qs, size_t nq)
{
    struct export *e = ctx;
    struct jw *w = &e->w;
    jw_obj_begin(w);
    render_incident_stored(w, i);
    jw_kstr(w, "visibility", visibility);
    render_sources_history(w, src, nsrc, qs, nq, i->has_question ? i->question.version : MODEL_NULL,
                           true);
    jw_key(w, "debate_question");
    if (i->has_question) {
        render_question(w, &i->question, true);
        jw_key(w, "ballots");
        jw_arr_begin(w);
    } else {
        jw_null(w);
    }
    e->ballots_open = i->has_question;
    return 0;
}

static void comments_cb(void *ctx)
{
    struct export *e = ctx;
    if (e->ballots_open)
        jw_arr_end(&e->w);
    e->ballots_open = false;
    jw_key(&e->w, "comments");
    jw_arr_begin(&e->w);
}

static void incident_end_cb(void *ctx)
{
    struct export *e = ctx;
    jw_arr_end(&e->w);
    jw_obj_end(&e->w);
    flush(e, false);
}

static const char export_usage[] = "whistle export [--db PATH] [--output FILE] [--json]";

/* --json: the document on stdout is already the one JSON object; with --output, stdout gets
 * {"output", "teams", "games", "incidents"} instead of nothing. */
int cli_export(int argc, char **argv)
{
    struct args {
        const char *db, *output;
        bool json;
    } a = {0};
    static const struct cli_opt opts[] = {
        CLI_OPTS_COMMON(struct args),
        {"output", CLI_OPT_STRING, CLI_OPT_AT(struct args, output)},
    };
    int rc = cli_options(argc, argv, 1, opts, CLI_LEN(opts), &a, export_usage);
    if (rc != CLI_OK)
        return rc;
    const char *path = a.output;
    if (optind != argc)
        return cli_usage(export_usage);
    struct export e = {.b = BUF_INIT, .out = stdout};
    struct store *s = cli_open_store(cli_db_path(a.db));
    if (!s)
        return CLI_REFUSED;
    if (path) {
        e.out = fopen(path, "w");
        if (!e.out) {
            store_close(s);
            return cli_refuse("cannot write %s", path);
        }
    }
    jw_init(&e.w, &e.b);
    jw_obj_begin(&e.w);
    static const struct export_visit visit = {
        .section = section_cb,
        .team = team_cb,
        .game = game_cb,
        .incident = incident_cb,
        .ballot = ballot_cb,
        .comments = comments_cb,
        .comment = comment_cb,
        .incident_end = incident_end_cb,
    };
    struct export_visit v = visit;
    v.arg = &e;
    struct app_ctx ac = {.s = s, .actor = "operator"};
    struct export_report r;
    rc = export_document(&ac, &v, &r);
    jw_arr_end(&e.w);
    if (r.sample) {
        jw_kbool(&e.w, "sample", true);
    }
    jw_obj_end(&e.w);
    buf_putc(&e.b, '\n');
    int status = CLI_OK;
    if (rc < 0) {
        status = cli_refuse("export failed: %s", store_errmsg(s));
    } else {
        flush(&e, true);
        if (fflush(e.out) != 0 || ferror(e.out))
            status = cli_refuse("cannot write the export");
    }
    if (path && fclose(e.out) != 0 && status == CLI_OK)
        status = cli_refuse("cannot write %s", path);
    if (path && a.json && status == CLI_OK) {
        struct cli_json j;
        cli_json_begin(&j);
        jw_kstr(&j.w, "output", path);
        jw_kint(&j.w, "teams", r.teams);
        jw_kint(&j.w, "games", r.games);
        jw_kint(&j.w, "incidents", r.incidents);
        cli_json_print(&j);
    }
    buf_release(&e.b);
    store_close(s);
    return status;
}
