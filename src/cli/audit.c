/*
 * whistle audit list [--kind KIND --target ID] [--limit N] [--db PATH] [--json]: the audit
 * log (docs/desk.md), newest first — every editorial, account and credential action of the
 * desk and of the CLI, read through the desk's use case (app/desk.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "app/desk.h"
#include "cli/cli.h"
#include "http/query.h"
#include "util/jsonw.h"
#include "util/timefmt.h"

static const char usage[] =
    "whistle audit list [--kind incident|lead|account|comment|…] [--target ID]\n"
    "               [--action incident.withdraw|…] [--limit N] [--db PATH] [--json]";

static void record_json(struct jw *w, const void *items, size_t i)
{
    const struct audit_record *r = (const struct audit_record *)items + i;
    jw_fmt(w,
           "{id:%s at:%ldT actor:%s role:%s action:%s target_kind:%s target_id:%s before:%sJ "
           "after:%sJ reason:%s request_id:%s}",
           r->id, r->at, r->actor, r->role, r->action, r->target_kind, r->target_id, r->before_json,
           r->after_json, r->reason, r->request_id);
}

struct args {
    const char *db, *kind, *target, *action;
    int64_t limit;
    bool json;
};

int cli_audit(int argc, char **argv)
{
    static const struct cli_opt opts[] = {
        CLI_OPTS_COMMON(struct args),
        {"kind", CLI_OPT_STRING, CLI_OPT_AT(struct args, kind)},
        {"target", CLI_OPT_STRING, CLI_OPT_AT(struct args, target)},
        {"limit", CLI_OPT_INT, CLI_OPT_AT(struct args, limit), 1, 10000},
        {"action", CLI_OPT_STRING, CLI_OPT_AT(struct args, action)},
    };
    struct args a = {.limit = 100};
    if (argc < 2 || strcmp(argv[1], "list") != 0)
        return cli_usage(usage);
    int rc = cli_options(argc, argv, 2, opts, CLI_LEN(opts), &a, usage);
    if (rc != CLI_OK)
        return rc;
    if (optind != argc)
        return cli_usage(usage);
    struct cli_op op;
    if (cli_op_open(&op, a.db) != CLI_OK)
        return CLI_REFUSED;
    struct audit_record *r;
    size_t n;
    if (desk_audit(&op.c, a.kind, a.target, a.action, a.limit, 0, &r, &n) != APP_OK) {
        rc = cli_refuse("cannot read the audit log: %s", store_errmsg(op.s));
    } else if (a.json) {
        cli_print_json_list("records", r, n, record_json);
    } else {
        for (size_t i = 0; i < n; i++) {
            char at[TIME_ISO_MAX];
            time_format_iso(r[i].at, at);
            printf("%s  %-28s %s %s  by %s%s%s%s\n", at, r[i].action, r[i].target_kind,
                   r[i].target_id, r[i].actor, r[i].role ? " (" : "", r[i].role ? r[i].role : "",
                   r[i].role ? ")" : "");
            if (r[i].reason)
                printf("    reason: %s\n", r[i].reason);
        }
        if (n == 0)
            fprintf(stderr, "no audit records\n");
    }
    cli_op_close(&op);
    return rc;
}
