/*
 * whistle incident withdraw|merge|set-question|set-status: one transaction each; a refusal
 * writes nothing.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/question.h"
#include "domain/lead.h"
#include "store/admin.h"
#include "store/incidents.h"
#include "util/timefmt.h"
#include "util/uuid.h"

static const char incident_usage[] =
    "whistle incident withdraw ID [--db PATH] [--json]\n"
    "       whistle incident merge ID --into SURVIVOR [--db PATH] [--json]\n"
    "       whistle incident set-question ID --file Q.json [--clarify] [--db PATH] [--json]\n"
    "       whistle incident set-status ID developing|corroborated|explained|resolved "
    "[--db PATH] [--json]\n"
    "       whistle incident add-source ID --url URL --kind KIND --title TEXT --supports TEXT\n"
    "               [--publisher NAME] [--published-at TIME] [--db PATH] [--json]";

struct args {
    const char *db, *into, *file, *id, *value;
    const char *url, *kind, *title, *supports, *publisher, *published_at;
    bool json, clarify;
};

/* Loads the incident's state; refuses when it is missing. */
static int load(struct store *s, const char *id, struct incident_state *st)
{
    int rc = admin_incident_state(s, id, st);
    if (rc < 0)
        return cli_refuse("cannot read incident %s: %s", id, store_errmsg(s));
    if (!st->exists)
        return cli_refuse("no incident %s", id);
    return 0;
}

static int withdraw(struct store *s, struct args *a, int64_t now, struct buf *out)
{
    struct incident_state st;
    if (load(s, a->id, &st))
        return CLI_REFUSED;
    if (strcmp(st.visibility, "withdrawn") == 0)
        return cli_refuse("incident %s is already withdrawn", a->id);
    if (admin_set_visibility(s, a->id, "withdrawn", NULL, now) < 0)
        return cli_refuse("cannot withdraw %s: %s", a->id, store_errmsg(s));
    buf_printf(out, "{\"id\":\"%s\",\"visibility\":\"withdrawn\"}", a->id);
    return CLI_OK;
}

static int merge(struct store *s, struct args *a, int64_t now, struct buf *out)
{
    char into[UUID_STR_LEN + 1];
    struct incident_state st, sv;
    if (!a->into)
        return cli_usage(incident_usage);
    if (uuid_normalize(a->into, into) < 0)
        return cli_refuse("--into must name the surviving incident's UUID");
    if (strcmp(into, a->id) == 0)
        return cli_refuse("an incident cannot be merged into itself");
    if (load(s, a->id, &st) || load(s, into, &sv))
        return CLI_REFUSED;
    if (strcmp(st.visibility, "published") != 0)
        return cli_refuse("incident %s is %s; only a published incident can be merged", a->id,
                          strcmp(st.visibility, "merged") == 0 ? "already a merged duplicate"
                                                               : st.visibility);
    if (strcmp(sv.visibility, "published") != 0)
        return cli_refuse("survivor %s is %s; the survivor must be published", into,
                          strcmp(sv.visibility, "merged") == 0 ? "itself a merged duplicate"
                                                               : sv.visibility);
    if (st.duplicates > 0)
        return cli_refuse("incident %s has %lld duplicate(s) merged into it; merging it would "
                          "make a chain (merge those into %s first)",
                          a->id, (long long)st.duplicates, into);
    if (admin_set_visibility(s, a->id, "merged", into, now) < 0)
        return cli_refuse("cannot merge %s: %s", a->id, store_errmsg(s));
    buf_printf(out, "{\"id\":\"%s\",\"duplicate_of\":\"%s\"}", a->id, into);
    return CLI_OK;
}

static bool same(const char *x, const char *y)
{
    return strcmp(x ? x : "", y ? y : "") == 0;
}

static int set_question(struct store *s, struct args *a, int64_t now, struct buf *out)
{
    struct incident_state st;
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
        goto out;
    }
    if (load(s, a->id, &st))
        goto out;
    if (strcmp(st.visibility, "published") != 0) {
        cli_refuse("incident %s is %s; its question cannot change", a->id, st.visibility);
        goto out;
    }
    struct arena ar;
    arena_init(&ar);
    struct question *versions = NULL;
    size_t n = 0;
    if (incidents_questions(s, &ar, a->id, &versions, &n) < 0) {
        cli_refuse("cannot read questions of %s: %s", a->id, store_errmsg(s));
        arena_release(&ar);
        goto out;
    }
    const struct question *cur = NULL;
    for (size_t k = 0; k < n; k++)
        if (versions[k].version == st.question_version)
            cur = &versions[k];
    if (a->clarify) {
        /* api-v1.md DebateQuestion rule 2: a synonymous label clarification keeps the
         * version and the ballots; a change of question or context needs a new version */
        if (!cur) {
            cli_refuse("incident %s has no current question to clarify", a->id);
        } else if (!same(cur->type, q.type) || !same(cur->text, q.text) ||
                   !same(cur->factual_context_json, q.factual_context_json)) {
            cli_refuse("--clarify changes labels only; the question type, text or factual "
                       "context differs (run without --clarify for a new version)");
        } else if (admin_clarify_question(s, a->id, cur->version, &q, now) < 0) {
            cli_refuse("cannot clarify: %s", store_errmsg(s));
        } else {
            buf_printf(out, "{\"id\":\"%s\",\"question_version\":%lld,\"clarified\":true}", a->id,
                       (long long)cur->version);
            status = CLI_OK;
        }
    } else {
        q.version = n ? versions[n - 1].version + 1 : 1;
        q.created_at = now;
        if (admin_new_question(s, a->id, &q, now) < 0) {
            cli_refuse("cannot set the question: %s", store_errmsg(s));
        } else {
            buf_printf(out, "{\"id\":\"%s\",\"question_version\":%lld,\"clarified\":false}", a->id,
                       (long long)q.version);
            status = CLI_OK;
        }
    }
    arena_release(&ar);
out:
    json_decref(doc);
    return status;
}

static int set_status(struct store *s, struct args *a, int64_t now, struct buf *out)
{
    static const char *const values[] = {"developing", "corroborated", "explained", "resolved"};
    struct incident_state st;
    bool ok = false;
    for (size_t k = 0; k < 4; k++)
        ok = ok || (a->value && strcmp(a->value, values[k]) == 0);
    if (!ok)
        return cli_refuse("status must be one of developing, corroborated, explained, resolved");
    if (load(s, a->id, &st))
        return CLI_REFUSED;
    if (admin_set_status(s, a->id, a->value, now) < 0)
        return cli_refuse("cannot set status: %s", store_errmsg(s));
    buf_printf(out, "{\"id\":\"%s\",\"status\":\"%s\"}", a->id, a->value);
    return CLI_OK;
}

/* Later reporting (api-v1.md "Incident status": developing → corroborated / explained):
 * the operator cites it here, then moves the status with set-status. */
static int add_source(struct store *s, struct args *a, int64_t now, struct buf *out)
{
    static const char *const kinds[] = {"report", "video", "image", "official_statement",
                                        "rule",   "other"};
    struct incident_state st;
    if (!a->url || !a->kind || !a->title || !a->supports)
        return cli_usage(incident_usage);
    bool kind_ok = false;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        kind_ok = kind_ok || strcmp(a->kind, kinds[k]) == 0;
    if (!kind_ok)
        return cli_refuse("--kind must be one of report, video, image, official_statement, rule, "
                          "other");
    if (strlen(a->url) > 2000 || !lead_url_valid(a->url))
        return cli_refuse("--url must be an absolute http or https URL");
    if (!*a->title || strlen(a->title) > 500)
        return cli_refuse("--title must be 1 to 500 bytes");
    if (!*a->supports || strlen(a->supports) > 2000)
        return cli_refuse("--supports must be 1 to 2000 bytes");
    if (a->publisher && (!*a->publisher || strlen(a->publisher) > 200))
        return cli_refuse("--publisher must be 1 to 200 bytes");
    int64_t published = MODEL_NULL;
    if (a->published_at && time_parse_iso(a->published_at, TIME_DATE_OK, &published) < 0)
        return cli_refuse("--published-at must be an ISO 8601 date or date-time");
    if (load(s, a->id, &st))
        return CLI_REFUSED;
    if (strcmp(st.visibility, "published") != 0)
        return cli_refuse("incident %s is %s; sources can be added to published incidents only",
                          a->id, st.visibility);
    struct source src = {.url = a->url,
                         .title = a->title,
                         .publisher = a->publisher,
                         .kind = a->kind,
                         .supports = a->supports,
                         .published_at = published};
    int rc = admin_add_source(s, a->id, &src, now);
    if (rc < 0)
        return cli_refuse("cannot add the source: %s", store_errmsg(s));
    if (rc == 0)
        return cli_refuse("incident %s already cites %s", a->id, a->url);
    buf_printf(out, "{\"id\":\"%s\",\"source_added\":true}", a->id);
    return CLI_OK;
}

int cli_incident(int argc, char **argv)
{
    static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"into", required_argument, NULL, 'i'},
                                         {"file", required_argument, NULL, 'f'},
                                         {"clarify", no_argument, NULL, 'c'},
                                         {"url", required_argument, NULL, 'u'},
                                         {"kind", required_argument, NULL, 'k'},
                                         {"title", required_argument, NULL, 't'},
                                         {"supports", required_argument, NULL, 's'},
                                         {"publisher", required_argument, NULL, 'p'},
                                         {"published-at", required_argument, NULL, 'P'},
                                         {NULL, 0, NULL, 0}};
    static const struct {
        const char *name;
        int (*run)(struct store *, struct args *, int64_t, struct buf *);
        int positional; /* after ID */
    } actions[] = {{"withdraw", withdraw, 0},
                   {"merge", merge, 0},
                   {"set-question", set_question, 0},
                   {"set-status", set_status, 1},
                   {"add-source", add_source, 0}};
    struct args a = {0};
    int c;
    if (argc < 2)
        return cli_usage(incident_usage);
    const char *action = argv[1];
    optind = 2;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd':
            a.db = optarg;
            break;
        case 'j':
            a.json = true;
            break;
        case 'i':
            a.into = optarg;
            break;
        case 'f':
            a.file = optarg;
            break;
        case 'c':
            a.clarify = true;
            break;
        case 'u':
            a.url = optarg;
            break;
        case 'k':
            a.kind = optarg;
            break;
        case 't':
            a.title = optarg;
            break;
        case 's':
            a.supports = optarg;
            break;
        case 'p':
            a.publisher = optarg;
            break;
        case 'P':
            a.published_at = optarg;
            break;
        default:
            return cli_usage(incident_usage);
        }
    }
    for (size_t k = 0; k < sizeof actions / sizeof actions[0]; k++) {
        if (strcmp(action, actions[k].name) != 0)
            continue;
        if (argc - optind != 1 + actions[k].positional)
            return cli_usage(incident_usage);
        char id[UUID_STR_LEN + 1];
        if (uuid_normalize(argv[optind], id) < 0)
            return cli_refuse("incident id must be a UUID");
        a.id = id;
        a.value = actions[k].positional ? argv[optind + 1] : NULL;
        struct store *s = cli_open_store(cli_db_path(a.db));
        if (!s)
            return CLI_REFUSED;
        struct buf out = BUF_INIT;
        int rc = store_begin_write(s);
        if (rc < 0) {
            cli_refuse("cannot lock the database: %s", store_errmsg(s));
            store_close(s);
            return CLI_REFUSED;
        }
        rc = actions[k].run(s, &a, time_now_us(), &out);
        if (rc == CLI_OK && store_commit(s) < 0)
            rc = cli_refuse("cannot commit: %s", store_errmsg(s));
        if (rc != CLI_OK)
            store_rollback(s);
        else if (a.json)
            cli_print_json(&out);
        else
            fprintf(stderr, "%s: done\n", action);
        buf_release(&out);
        store_close(s);
        return rc;
    }
    return cli_usage(incident_usage);
}
