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

static const struct cli_opt opts[] = {
    CLI_OPTS_COMMON(struct opts),
    {"queue", CLI_OPT_STRING, CLI_OPT_AT(struct opts, queue)},
    {"reason", CLI_OPT_STRING, CLI_OPT_AT(struct opts, reason)},
    {"limit", CLI_OPT_INT, CLI_OPT_AT(struct opts, limit), 1, 100000,
     "must be an integer in range"},
    {"offset", CLI_OPT_INT, CLI_OPT_AT(struct opts, offset), 0, 100000,
     "must be an integer in range"},
};

/* The refusal message of an outcome, printed; CLI_REFUSED. */
static int refused(int rc, const struct comment_result *r)
{
    if (rc == APP_UNAVAILABLE)
        return cli_refuse("the database failed; nothing was changed");
    return cli_refuse("%s", r->message ? r->message : "refused");
}

static int list(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)act, (void)pos;
    const struct app_ctx *c = &op->c;
    const struct opts *o = args;
    const char *queue = o->queue ? o->queue : "pending";
    if (strcmp(queue, "pending") && strcmp(queue, "reported") && strcmp(queue, "recent"))
        return cli_refuse("--queue must be pending, reported or recent");
    struct comment_review *items;
    size_t n;
    bool more;
    if (comments_read_queue(c, queue, o->limit, o->offset, &items, &n, &more) != COMMENT_OK)
        return cli_refuse("the database failed");
    if (o->json) {
        struct cli_json j;
        cli_json_begin(&j);
        jw_kstr(&j.w, "queue", queue);
        jw_key(&j.w, "data");
        jw_arr_begin(&j.w);
        for (size_t i = 0; i < n; i++)
            render_comment(&j.w, &items[i].c, COMMENT_FORM_REVIEW, &items[i]);
        jw_arr_end(&j.w);
        jw_kbool(&j.w, "more", more);
        cli_json_print(&j);
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
    return CLI_OK;
}

static void word_json(struct jw *w, const void *items, size_t i)
{
    jw_str(w, ((const char *const *)items)[i]);
}

/* words list|add WORD|remove WORD: pos ends with NULL (as argv does) */
static int words(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)act;
    const struct app_ctx *c = &op->c;
    const struct opts *o = args;
    const char *what = pos[0];
    if (!what)
        return cli_usage(comment_usage);
    if (strcmp(what, "list") == 0 && !pos[1]) {
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
    } else if ((strcmp(what, "add") == 0 || strcmp(what, "remove") == 0) && pos[1] && !pos[2]) {
        struct comment_result r;
        int x = comment_words_change(c, what[0] == 'a', pos[1], &r);
        if (x != COMMENT_OK)
            return refused(x, &r);
        const struct cli_field f[] = {{"word", r.id}, {"result", r.message}};
        if (o->json)
            cli_print_json_strings(f, CLI_LEN(f));
        else
            fprintf(stderr, "%s: %s\n", r.id, r.message);
    } else {
        return cli_usage(comment_usage);
    }
    return CLI_OK;
}

/* approve, reject, feature, unfeature ID */
static int moderate(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    const struct opts *o = args;
    struct comment_result r;
    int x = comment_moderate(&op->c, NULL, pos[0], act->name, o->reason, &r);
    if (x != COMMENT_OK)
        return refused(x, &r);
    if (o->json)
        printf("{\"id\":\"%s\",\"action\":\"%s\"}\n", r.id, act->name);
    else
        fprintf(stderr, "%s: %s\n", r.id, act->name);
    return CLI_OK;
}

int cli_comment(int argc, char **argv)
{
    static const struct cli_action acts[] = {
        {"list", 0, .run = list},        {"words", -1, .run = words},
        {"approve", 1, .run = moderate}, {"reject", 1, .run = moderate},
        {"feature", 1, .run = moderate}, {"unfeature", 1, .run = moderate},
    };
    struct opts o = {.limit = 50};
    return cli_command(argc, argv, opts, CLI_LEN(opts), acts, CLI_LEN(acts), &o, comment_usage);
}

/* grant, revoke EMAIL ROLE */
static int role(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    const struct opts *o = args;
    struct comment_result r;
    int x = account_role_change(&op->c, pos[0], pos[1], strcmp(act->name, "grant") == 0, &r);
    if (x != COMMENT_OK)
        return refused(x, &r);
    const struct cli_field f[] = {{"email", pos[0]}, {"role", pos[1]}, {"result", r.message}};
    if (o->json)
        cli_print_json_strings(f, CLI_LEN(f));
    else
        fprintf(stderr, "%s %s: %s\n", pos[0], pos[1], r.message);
    return CLI_OK;
}

int cli_account_role(int argc, char **argv)
{
    static const struct cli_action acts[] = {{"grant", 2, .run = role}, {"revoke", 2, .run = role}};
    struct opts o = {.limit = 50};
    return cli_command(argc, argv, opts, CLI_LEN(opts), acts, CLI_LEN(acts), &o, role_usage);
}
