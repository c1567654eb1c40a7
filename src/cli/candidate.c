/*
 * whistle candidate list|show|publish|reject and whistle lead list|show: the operator's
 * side of lead research (issue 4; docs/research.md). Writes are one transaction each; a
 * refusal writes nothing.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "app/candidate.h"
#include "app/desk.h"
#include "cli/cli.h"
#include "domain/question.h"
#include "domain/vocab.h"
#include "http/query.h"
#include "domain/research.h"
#include "research/pipeline.h"
#include "util/jsonw.h"
#include "util/timefmt.h"
#include "util/uuid.h"

static const char candidate_usage[] =
    "whistle candidate list [--db PATH] [--json]\n"
    "       whistle candidate show LEAD_ID [--db PATH] [--json]\n"
    "       whistle candidate publish LEAD_ID [--title TEXT] [--description TEXT]\n"
    "               [--summary TEXT] [--question-file Q.json] [--db PATH] [--json]\n"
    "       whistle candidate reject LEAD_ID --reason TEXT [--db PATH] [--json]";
static const char lead_usage[] =
    "whistle lead list [--status pending|running|rejected|published|duplicate|failed|candidate]\n"
    "               [--limit N] [--db PATH] [--json]\n"
    "       whistle lead show LEAD_ID [--db PATH] [--json]";

struct args {
    const char *db, *title, *description, *summary, *question_file, *reason, *status;
    int64_t limit;
    bool json;
};

static void lead_json(struct jw *w, const struct research_lead *l)
{
    jw_fmt(w,
           "id:%s game_id:%s status:%s candidate:%dB reason:%s incident_id:%s duplicate_lead:%s "
           "account_id:%s contributor:%s category:%s period:%ld clock:%s attempts:%ld "
           "created_at:%ldT updated_at:%ldT candidate_at:%ldT lease_until:%ldT "
           "next_attempt_at:%ldT",
           l->id, l->game_id, l->status, research_is_candidate(l->status, l->candidate_at),
           l->reason, l->incident_id, l->duplicate_lead, l->account_id, l->contributor, l->category,
           l->period, l->clock, (int64_t)l->attempts, l->created_at, l->updated_at, l->candidate_at,
           l->lease_until, l->next_attempt_at);
}

static void lead_line(const struct research_lead *l)
{
    char at[TIME_ISO_MAX];
    time_format_iso(l->created_at, at);
    printf("%s  %-9s%s  %s  %s P%lld %s  %s\n", l->id, l->status,
           research_is_candidate(l->status, l->candidate_at) ? " (candidate)" : "", at, l->game_id,
           (long long)(l->period == INT64_MIN ? 0 : l->period), l->clock ? l->clock : "-",
           l->reason ? l->reason : "");
}

struct listing {
    struct jw *w;
    bool json;
    int n;
};

static int list_one(void *ctx, const struct research_lead *l)
{
    struct listing *c = ctx;
    c->n++;
    if (c->json) {
        jw_obj_begin(c->w);
        lead_json(c->w, l);
        jw_obj_end(c->w);
    } else {
        lead_line(l);
    }
    return 0;
}

static int fetch_json(void *ctx, const struct research_fetch_row *r)
{
    struct jw *w = ctx;
    jw_fmt(w,
           "{url:%s final_url:%s http_status:%ld content_type:%s title:%s publisher:%s "
           "content_hash:%s bytes:%ld domain:%s mentions_teams:%dB error:%s fetched_at:%ldT}",
           r->url, r->final_url, r->http_status < 0 ? JW_NULL_INT : r->http_status, r->content_type,
           r->title, r->publisher, r->content_hash, r->bytes, r->domain, r->mentions, r->error,
           r->fetched_at);
    return 0;
}

static int event_json(void *ctx, const struct research_event_row *e)
{
    struct jw *w = ctx;
    jw_fmt(w, "{seq:%ld at:%ldT event:%s from:%s to:%s actor:%s reason:%s}", e->seq, e->at,
           e->event, e->from_status, e->to_status, e->actor, e->reason);
    return 0;
}

/* The whole record of one lead (app/desk.h desk_lead): fields, submitted description and
 * URLs, every fetch and the audit trail. Printed as JSON, or as indented text. */
static int show(const struct desk_lead *d, bool json)
{
    const struct research_lead *l = &d->lead;
    struct buf b = BUF_INIT;
    struct jw w;
    jw_init(&w, &b);
    jw_obj_begin(&w);
    lead_json(&w, l);
    jw_kstr(&w, "description", l->description);
    jw_kraw(&w, "source_urls", l->source_urls_json, "[]");
    jw_key(&w, "fetches");
    jw_arr_begin(&w);
    for (size_t i = 0; i < d->nfetches; i++)
        fetch_json(&w, &d->fetches[i]);
    jw_arr_end(&w);
    jw_key(&w, "events");
    jw_arr_begin(&w);
    for (size_t i = 0; i < d->nevents; i++)
        event_json(&w, &d->events[i]);
    jw_arr_end(&w);
    jw_obj_end(&w);
    if (json) {
        cli_print_json(&b);
    } else {
        /* the text form is the JSON pretty-printed: one field per line */
        json_t *doc = json_loadb(b.p, b.len, 0, NULL);
        char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
        puts(text ? text : b.p);
        free(text);
        json_decref(doc);
    }
    buf_release(&b);
    return CLI_OK;
}

/* Maps a use case's outcome: CLI_OK, or the reason printed and CLI_REFUSED. */
static int outcome(int rc, const struct candidate_result *r, const char *id)
{
    if (rc == CANDIDATE_OK)
        return CLI_OK;
    if (rc == APP_UNAVAILABLE)
        return cli_refuse("the database failed; lead %s is unchanged", id);
    if (rc == CANDIDATE_MISSING)
        return cli_refuse("no lead %s", id);
    return cli_refuse("%s", r->message);
}

static int publish(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)act;
    const struct args *o = args;
    const char *arg = pos[0];
    char id[UUID_STR_LEN + 1];
    if (uuid_normalize(arg, id) < 0)
        return cli_refuse("lead id must be a UUID");
    json_t *doc = NULL;
    struct question q;
    if (o->question_file) {
        json_error_t jerr;
        doc = json_load_file(o->question_file, JSON_REJECT_DUPLICATES, &jerr);
        if (!doc)
            return cli_refuse("%s: line %d column %d: %s", o->question_file, jerr.line, jerr.column,
                              jerr.text);
        struct jin j;
        jin_init(&j, "");
        if (question_parse_file(&j, doc, &q) < 0) {
            json_decref(doc);
            return cli_refuse("%s: %s", o->question_file, j.err);
        }
    }
    struct candidate_publish_input in = {.title = o->title,
                                         .description = o->description,
                                         .summary = o->summary,
                                         .question = doc ? &q : NULL};
    struct candidate_result r;
    int rc = outcome(candidate_publish(&op->c, id, &in, &r), &r, id);
    json_decref(doc);
    if (rc != CLI_OK)
        return rc;
    if (o->json)
        cli_printf_json("{\"lead_id\":\"%s\",\"status\":\"published\",\"incident_id\":\"%s\"}", id,
                        r.incident_id);
    else
        printf("lead %s published as incident %s\n", id, r.incident_id);
    return CLI_OK;
}

static int reject(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)act;
    const struct args *o = args;
    const char *arg = pos[0];
    if (!o->reason)
        return cli_usage(candidate_usage);
    char id[UUID_STR_LEN + 1];
    if (uuid_normalize(arg, id) < 0)
        return cli_refuse("lead id must be a UUID");
    struct candidate_result r;
    int rc = outcome(candidate_reject(&op->c, id, o->reason, &r), &r, id);
    if (rc != CLI_OK)
        return rc;
    if (o->json)
        cli_printf_json("{\"lead_id\":\"%s\",\"status\":\"rejected\"}", id);
    else
        printf("lead %s rejected\n", id);
    return CLI_OK;
}

/* The leads of o->status (LIST_CANDIDATES: the candidates), newest first, up to o->limit. */
static int list(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)act, (void)pos;
    const struct args *o = args;
    const char *status = o->status;
    bool json = o->json;
    struct buf b = BUF_INIT;
    struct jw w;
    jw_init(&w, &b);
    jw_obj_begin(&w);
    jw_key(&w, status && strcmp(status, "candidate") == 0 ? "candidates" : "leads");
    jw_arr_begin(&w);
    struct listing c = {&w, json, 0};
    struct research_lead *leads;
    size_t n;
    int rc = desk_leads(&op->c, status, (int)o->limit, &leads, &n);
    for (size_t i = 0; rc == APP_OK && i < n; i++)
        list_one(&c, &leads[i]);
    jw_arr_end(&w);
    jw_obj_end(&w);
    if (rc < 0) {
        buf_release(&b);
        return cli_refuse("cannot list leads: %s", store_errmsg(op->s));
    }
    if (json)
        cli_print_json(&b);
    else if (c.n == 0)
        fprintf(stderr, "no leads\n");
    buf_release(&b);
    return CLI_OK;
}

static const struct cli_opt opts[] = {
    CLI_OPTS_COMMON(struct args),
    {"title", CLI_OPT_STRING, CLI_OPT_AT(struct args, title)},
    {"description", CLI_OPT_STRING, CLI_OPT_AT(struct args, description)},
    {"summary", CLI_OPT_STRING, CLI_OPT_AT(struct args, summary)},
    {"question-file", CLI_OPT_STRING, CLI_OPT_AT(struct args, question_file)},
    {"reason", CLI_OPT_STRING, CLI_OPT_AT(struct args, reason)},
    {"status", CLI_OPT_STRING, CLI_OPT_AT(struct args, status)},
    {"limit", CLI_OPT_INT, CLI_OPT_AT(struct args, limit), 1, 10000},
};

static int show_lead(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)act;
    const struct args *a = args;
    char id[UUID_STR_LEN + 1];
    if (uuid_normalize(pos[0], id) < 0)
        return cli_refuse("lead id must be a UUID");
    struct desk_lead d;
    if (desk_lead(&op->c, id, &d) != APP_OK)
        return cli_refuse("cannot read lead %s: %s", id, store_errmsg(op->s));
    if (!d.found)
        return cli_refuse("no lead %s", id);
    return show(&d, a->json);
}

/* `lead list --status`: a lead status, or "candidate" (running leads awaiting an operator) */
#define LIST_CANDIDATES "candidate"

/* candidate list: the candidates, whatever --status says */
static int candidates_check(const struct cli_action *act, void *args, char **pos)
{
    (void)act, (void)pos;
    ((struct args *)args)->status = LIST_CANDIDATES;
    return CLI_OK;
}

/* lead list --status: a lead status or LIST_CANDIDATES */
static int status_check(const struct cli_action *act, void *args, char **pos)
{
    (void)act, (void)pos;
    const struct args *a = args;
    char statuses[200];
    if (a->status && vocab_find(lead_status_names, a->status) < 0 &&
        strcmp(a->status, LIST_CANDIDATES) != 0)
        return cli_refuse("--status must be one of %s, " LIST_CANDIDATES,
                          strlist_join(lead_status_names, statuses, sizeof statuses));
    return CLI_OK;
}

int cli_candidate(int argc, char **argv)
{
    static const struct cli_action acts[] = {
        {"list", 0, .check = candidates_check, .run = list},
        {"show", 1, .run = show_lead},
        {"publish", 1, .run = publish},
        {"reject", 1, .run = reject},
    };
    struct args a = {.limit = 100};
    return cli_command(argc, argv, opts, CLI_LEN(opts), acts, CLI_LEN(acts), &a, candidate_usage);
}

int cli_lead(int argc, char **argv)
{
    static const struct cli_action acts[] = {
        {"list", 0, .check = status_check, .run = list},
        {"show", 1, .run = show_lead},
    };
    struct args a = {.limit = 100};
    return cli_command(argc, argv, opts, CLI_LEN(opts), acts, CLI_LEN(acts), &a, lead_usage);
}
