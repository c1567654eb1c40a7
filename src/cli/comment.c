/*
 * whistle comment list|approve|reject|feature|unfeature|words and whistle account
 * grant|revoke (docs/comments.md): the moderation queues and roles for operators, through
 * the same use cases as /moderate (app/comments.h). Decisions are logged as "operator".
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "api/render.h"
#include "app/comments.h"
#include "cli/cli.h"
#include "http/query.h"
#include "util/jsonw.h"
#include "util/timefmt.h"

static const char comment_usage[] =
    "whistle comment list [--queue pending|reported|recent] [--limit N] [--offset N]"
    " [--db PATH] [--json]\n"
    "       whistle comment approve|feature|unfeature ID [--reason R] [--db PATH] [--json]\n"
    "       whistle comment reject ID --reason R [--db PATH] [--json]\n"
    "       whistle comment words add|remove WORD [--db PATH] [--json]\n"
    "       whistle comment words list [--db PATH] [--json]";
static const char role_usage[] =
    "whistle account grant|revoke EMAIL moderator|editor|admin [--db PATH] [--json]";

struct opts {
    const char *db, *queue, *reason;
    int64_t limit, offset;
    bool json;
};

static int parse(int argc, char **argv, struct opts *o, const char *usage)
{
    static const struct cli_opt long_opts[] = {
        CLI_OPTS_COMMON(struct opts),
        {"queue", CLI_OPT_STRING, CLI_OPT_AT(struct opts, queue)},
        {"reason", CLI_OPT_STRING, CLI_OPT_AT(struct opts, reason)},
        {"limit", CLI_OPT_INT, CLI_OPT_AT(struct opts, limit), 1, 100000,
         "must be an integer in range"},
        {"offset", CLI_OPT_INT, CLI_OPT_AT(struct opts, offset), 0, 100000,
         "must be an integer in range"},
    };
    o->limit = 50;
    return cli_options(argc, argv, 2, long_opts, CLI_NOPTS(long_opts), o, usage);
}

/* The refusal message of an outcome, printed; CLI_REFUSED. */
static int refused(int rc, const struct comment_result *r)
{
    if (rc == APP_UNAVAILABLE)
        return cli_refuse("the database failed; nothing was changed");
    return cli_refuse("%s", r->message ? r->message : "refused");
}

static int list(const struct app_ctx *c, const struct opts *o)
{
    const char *queue = o->queue ? o->queue : "pending";
    if (strcmp(queue, "pending") && strcmp(queue, "reported") && strcmp(queue, "recent"))
        return cli_refuse("--queue must be pending, reported or recent");
    struct comment_review *items;
    size_t n;
    bool more;
    if (comments_read_queue(c, queue, o->limit, o->offset, &items, &n, &more) != COMMENT_OK)
        return cli_refuse("the database failed");
    struct buf out = BUF_INIT;
    if (o->json) {
        struct jw w;
        jw_init(&w, &out);
        jw_obj_begin(&w);
        jw_key(&w, "queue");
        jw_str(&w, queue);
        jw_key(&w, "data");
        jw_arr_begin(&w);
        for (size_t i = 0; i < n; i++)
            render_comment(&w, &items[i].c, COMMENT_FORM_REVIEW, &items[i]);
        jw_arr_end(&w);
        jw_key(&w, "more");
        jw_bool(&w, more);
        jw_obj_end(&w);
        cli_print_json(&out);
    } else {
        for (size_t i = 0; i < n; i++) {
            const struct comment *k = &items[i].c;
            char when[TIME_ISO_MAX];
            time_format_iso(k->created_at, when);
            printf("%s  %s  %-9s %s%s reports=%lld  %s: %.60s\n", k->id, when, k->status,
                   k->held_reason[0] ? k->held_reason : "-", k->featured ? " featured" : "",
                   (long long)k->open_reports, k->display_name ? k->display_name : "?", k->body);
        }
        if (n == 0)
            fprintf(stderr, "the %s queue is empty\n", queue);
    }
    buf_release(&out);
    return CLI_OK;
}

static void word_json(struct jw *w, const void *items, size_t i)
{
    jw_str(w, ((const char *const *)items)[i]);
}

static int words(const struct app_ctx *c, int argc, char **argv, const struct opts *o)
{
    if (optind >= argc)
        return cli_usage(comment_usage);
    const char *what = argv[optind];
    struct buf out = BUF_INIT;
    struct jw w;
    int rc = CLI_OK;
    if (strcmp(what, "list") == 0 && optind == argc - 1) {
        const char **all;
        size_t n;
        if (comment_words_list(c, &all, &n) != COMMENT_OK)
            return cli_refuse("the database failed");
        if (o->json) {
            cli_print_json_list("words", all, n, word_json);
        } else {
            for (size_t i = 0; i < n; i++)
                printf("%s\n", all[i]);
        }
    } else if ((strcmp(what, "add") == 0 || strcmp(what, "remove") == 0) && optind == argc - 2) {
        struct comment_result r;
        int x = comment_words_change(c, what[0] == 'a', argv[optind + 1], &r);
        if (x != COMMENT_OK)
            return refused(x, &r);
        if (o->json) {
            jw_init(&w, &out);
            jw_obj_begin(&w);
            jw_key(&w, "word");
            jw_str(&w, r.id);
            jw_key(&w, "result");
            jw_str(&w, r.message);
            jw_obj_end(&w);
            cli_print_json(&out);
        } else {
            fprintf(stderr, "%s: %s\n", r.id, r.message);
        }
    } else {
        rc = cli_usage(comment_usage);
    }
    buf_release(&out);
    return rc;
}

int cli_comment(int argc, char **argv)
{
    struct opts o = {0};
    int rc = parse(argc, argv, &o, comment_usage);
    if (rc)
        return rc;
    const char *action = argv[1];
    struct cli_op op;
    bool decide = strcmp(action, "approve") == 0 || strcmp(action, "reject") == 0 ||
                  strcmp(action, "feature") == 0 || strcmp(action, "unfeature") == 0;
    if (!decide && strcmp(action, "list") && strcmp(action, "words"))
        return cli_usage(comment_usage);
    if ((decide && optind != argc - 1) || (strcmp(action, "list") == 0 && optind != argc))
        return cli_usage(comment_usage);
    if (cli_op_open(&op, o.db) != CLI_OK)
        return CLI_REFUSED;
    if (strcmp(action, "list") == 0) {
        rc = list(&op.c, &o);
    } else if (strcmp(action, "words") == 0) {
        rc = words(&op.c, argc, argv, &o);
    } else {
        struct comment_result r;
        int x = comment_moderate(&op.c, NULL, argv[optind], action, o.reason, &r);
        if (x != COMMENT_OK) {
            rc = refused(x, &r);
        } else if (o.json) {
            printf("{\"id\":\"%s\",\"action\":\"%s\"}\n", r.id, action);
        } else {
            fprintf(stderr, "%s: %s\n", r.id, action);
        }
    }
    cli_op_close(&op);
    return rc;
}

int cli_account_role(int argc, char **argv)
{
    struct opts o = {0};
    bool grant = strcmp(argv[1], "grant") == 0;
    int rc = parse(argc, argv, &o, role_usage);
    if (rc)
        return rc;
    if (optind != argc - 2)
        return cli_usage(role_usage);
    struct cli_op op;
    if (cli_op_open(&op, o.db) != CLI_OK)
        return CLI_REFUSED;
    struct comment_result r;
    int x = account_role_change(&op.c, argv[optind], argv[optind + 1], grant, &r);
    if (x != COMMENT_OK) {
        rc = refused(x, &r);
    } else if (o.json) {
        struct buf out = BUF_INIT;
        struct jw w;
        jw_init(&w, &out);
        jw_obj_begin(&w);
        jw_key(&w, "email");
        jw_str(&w, argv[optind]);
        jw_key(&w, "role");
        jw_str(&w, argv[optind + 1]);
        jw_key(&w, "result");
        jw_str(&w, r.message);
        jw_obj_end(&w);
        cli_print_json(&out);
        buf_release(&out);
    } else {
        fprintf(stderr, "%s %s: %s\n", argv[optind], argv[optind + 1], r.message);
    }
    cli_op_close(&op);
    return rc;
}
