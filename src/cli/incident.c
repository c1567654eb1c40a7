/*
 * whistle incident withdraw|merge|set-question|set-status|add-source|remove-source: each calls its
 * use case (app/editorial.h: one transaction and one audit record each; a refusal writes nothing)
 * and maps the outcome to an exit status.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "app/editorial.h"
#include "cli/cli.h"
#include "domain/question.h"
#include "util/timefmt.h"
#include "util/uuid.h"

static const char incident_usage[] =
    "whistle incident withdraw ID [--reason TEXT] [--db PATH] [--json]\n"
    "       whistle incident merge ID --into SURVIVOR [--force] [--reason TEXT] [--db PATH] "
    "[--json]\n"
    "       whistle incident set-question ID --file Q.json [--clarify] [--db PATH] [--json]\n"
    "       whistle incident set-status ID developing|corroborated|explained|resolved "
    "[--db PATH] [--json]\n"
    "       whistle incident add-source ID --url URL --kind KIND --title TEXT --supports TEXT\n"
    "               [--publisher NAME] [--published-at TIME] [--db PATH] [--json]\n"
    "       whistle incident remove-source ID --url URL [--reason TEXT] [--db PATH] [--json]";

struct args {
    const char *db, *into, *file, *id, *value;
    const char *url, *kind, *title, *supports, *publisher, *published_at, *reason;
    bool json, clarify, force;
    char id_buf[UUID_STR_LEN + 1]; /* ID, normalized (id points here) */
};

/* Maps a use case's outcome to the CLI's: CLI_OK, or the reason printed and CLI_REFUSED. */
static int outcome(int rc, const struct edit_result *r)
{
    if (rc == EDIT_OK)
        return CLI_OK;
    if (rc == APP_UNAVAILABLE)
        return cli_refuse("the database failed; nothing was changed");
    return cli_refuse("%s", r->message);
}

static int withdraw(const struct app_ctx *c, struct args *a, struct buf *out)
{
    struct edit_result r;
    int rc = outcome(incident_withdraw(c, a->id, a->reason, &r), &r);
    if (rc == CLI_OK)
        buf_printf(out, "{\"id\":\"%s\",\"visibility\":\"withdrawn\"}", a->id);
    return rc;
}

static int merge(const struct app_ctx *c, struct args *a, struct buf *out)
{
    char into[UUID_STR_LEN + 1];
    if (!a->into)
        return cli_usage(incident_usage);
    if (uuid_normalize(a->into, into) < 0)
        return cli_refuse("--into must name the surviving incident's UUID");
    struct edit_result r;
    int rc = outcome(incident_merge(c, a->id, into, a->reason, a->force, &r), &r);
    if (rc == CLI_OK)
        buf_printf(out, "{\"id\":\"%s\",\"duplicate_of\":\"%s\"}", a->id, into);
    return rc;
}

static int set_question(const struct app_ctx *c, struct args *a, struct buf *out)
{
    if (!a->file)
        return cli_usage(incident_usage);
    json_error_t jerr;
    json_t *doc = json_load_file(a->file, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    if (!doc && jerr.line < 1)
        return cli_refuse("%s", jerr.text);
    if (!doc)
        return cli_refuse("%s: line %d column %d: %s", a->file, jerr.line, jerr.column, jerr.text);
    int status = CLI_REFUSED;
    struct jin j;
    struct question q;
    jin_init(&j, "");
    if (jin_no_nul(&j, doc) < 0 || question_parse_file(&j, doc, &q) < 0) {
        cli_refuse("%s: %s", a->file, j.err);
    } else {
        struct edit_result r;
        status = outcome(incident_set_question(c, a->id, &q, a->clarify, &r), &r);
        if (status == CLI_OK)
            buf_printf(out, "{\"id\":\"%s\",\"question_version\":%lld,\"clarified\":%s}", a->id,
                       (long long)r.version, a->clarify ? "true" : "false");
    }
    json_decref(doc);
    return status;
}

static int set_status(const struct app_ctx *c, struct args *a, struct buf *out)
{
    struct edit_result r;
    int rc = outcome(incident_set_status(c, a->id, a->value, &r), &r);
    if (rc == CLI_OK)
        buf_printf(out, "{\"id\":\"%s\",\"status\":\"%s\"}", a->id, a->value);
    return rc;
}

static int add_source(const struct app_ctx *c, struct args *a, struct buf *out)
{
    if (!a->url || !a->kind || !a->title || !a->supports)
        return cli_usage(incident_usage);
    int64_t published = MODEL_NULL;
    if (a->published_at && time_parse_iso(a->published_at, TIME_DATE_OK, &published) < 0)
        return cli_refuse("--published-at must be an ISO 8601 date or date-time");
    struct source src = {.url = a->url,
                         .title = a->title,
                         .publisher = a->publisher,
                         .kind = a->kind,
                         .supports = a->supports,
                         .published_at = published};
    struct edit_result r;
    int rc = outcome(incident_add_source(c, a->id, &src, &r), &r);
    if (rc == CLI_OK)
        buf_printf(out, "{\"id\":\"%s\",\"source_added\":true}", a->id);
    return rc;
}

static int remove_source(const struct app_ctx *c, struct args *a, struct buf *out)
{
    if (!a->url || a->kind || a->title || a->supports || a->publisher || a->published_at)
        return cli_usage(incident_usage);
    struct edit_result r;
    int rc = outcome(incident_remove_source(c, a->id, a->url, a->reason, &r), &r);
    if (rc == CLI_OK)
        buf_printf(out, "{\"id\":\"%s\",\"source_removed\":true}", a->id);
    return rc;
}

/* ID (and set-status's value), before the database is opened: the incident's UUID into a->id */
static int id_check(const struct cli_action *act, void *args, char **pos)
{
    struct args *a = args;
    if (uuid_normalize(pos[0], a->id_buf) < 0)
        return cli_refuse("incident id must be a UUID");
    a->id = a->id_buf;
    a->value = act->npos > 1 ? pos[1] : NULL;
    return CLI_OK;
}

/* The edits, by the action table's .k */
enum { WITHDRAW, MERGE, SET_QUESTION, SET_STATUS, ADD_SOURCE, REMOVE_SOURCE };
static int (*const edits[])(const struct app_ctx *, struct args *, struct buf *) = {
    [WITHDRAW] = withdraw,     [MERGE] = merge,           [SET_QUESTION] = set_question,
    [SET_STATUS] = set_status, [ADD_SOURCE] = add_source, [REMOVE_SOURCE] = remove_source};

/* Runs the row's edit (edits[act->k]): its --json answer on stdout, or "ACTION: done" on
 * stderr, when it was made. */
static int edit(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)pos;
    struct args *a = args;
    struct buf out = BUF_INIT;
    int rc = edits[act->k](&op->c, a, &out);
    if (rc == CLI_OK && a->json)
        cli_print_json(&out);
    else if (rc == CLI_OK)
        fprintf(stderr, "%s: done\n", act->name);
    buf_release(&out);
    return rc;
}

int cli_incident(int argc, char **argv)
{
    static const struct cli_opt opts[] = {
        CLI_OPTS_COMMON(struct args),
        {"into", CLI_OPT_STRING, CLI_OPT_AT(struct args, into)},
        {"file", CLI_OPT_STRING, CLI_OPT_AT(struct args, file)},
        {"clarify", CLI_OPT_FLAG, CLI_OPT_AT(struct args, clarify)},
        {"url", CLI_OPT_STRING, CLI_OPT_AT(struct args, url)},
        {"kind", CLI_OPT_STRING, CLI_OPT_AT(struct args, kind)},
        {"title", CLI_OPT_STRING, CLI_OPT_AT(struct args, title)},
        {"supports", CLI_OPT_STRING, CLI_OPT_AT(struct args, supports)},
        {"publisher", CLI_OPT_STRING, CLI_OPT_AT(struct args, publisher)},
        {"published-at", CLI_OPT_STRING, CLI_OPT_AT(struct args, published_at)},
        {"reason", CLI_OPT_STRING, CLI_OPT_AT(struct args, reason)},
        {"force", CLI_OPT_FLAG, CLI_OPT_AT(struct args, force)}};
    static const struct cli_action acts[] = {{"withdraw", 1, id_check, edit, WITHDRAW},
                                             {"merge", 1, id_check, edit, MERGE},
                                             {"set-question", 1, id_check, edit, SET_QUESTION},
                                             {"set-status", 2, id_check, edit, SET_STATUS},
                                             {"add-source", 1, id_check, edit, ADD_SOURCE},
                                             {"remove-source", 1, id_check, edit, REMOVE_SOURCE}};
    struct args a = {0};
    return cli_command(argc, argv, opts, CLI_LEN(opts), acts, CLI_LEN(acts), &a, incident_usage);
}
