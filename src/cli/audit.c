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
    jw_obj_begin(w);
    jw_key(w, "id");
    jw_str(w, r->id);
    jw_key(w, "at");
    jw_time(w, r->at);
    jw_key(w, "actor");
    jw_str(w, r->actor);
    jw_key(w, "role");
    jw_str(w, r->role);
    jw_key(w, "action");
    jw_str(w, r->action);
    jw_key(w, "target_kind");
    jw_str(w, r->target_kind);
    jw_key(w, "target_id");
    jw_str(w, r->target_id);
    jw_key(w, "before");
    jw_raw(w, r->before_json ? r->before_json : "null");
    jw_key(w, "after");
    jw_raw(w, r->after_json ? r->after_json : "null");
    jw_key(w, "reason");
    jw_str(w, r->reason);
    jw_key(w, "request_id");
    jw_str(w, r->request_id);
    jw_obj_end(w);
}

int cli_audit(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"kind", required_argument, NULL, 'k'},
                                         {"target", required_argument, NULL, 't'},
                                         {"limit", required_argument, NULL, 'l'},
                                         {"action", required_argument, NULL, 'a'},
                                         {NULL, 0, NULL, 0}};
    const char *db = NULL, *kind = NULL, *target = NULL, *action = NULL;
    int64_t limit = 100;
    bool json = false;
    if (argc < 2 || strcmp(argv[1], "list") != 0)
        return cli_usage(usage);
    optind = 2;
    int c;
    while ((c = cli_getopt(argc, argv, opts, &db, &json)) != -1) {
        switch (c) {
        case 'k':
            kind = optarg;
            break;
        case 't':
            target = optarg;
            break;
        case 'a':
            action = optarg;
            break;
        case 'l':
            if (qp_parse_int(optarg, &limit) < 0 || limit < 1 || limit > 10000)
                return cli_refuse("--limit must be an integer from 1 to 10000");
            break;
        default:
            return cli_usage(usage);
        }
    }
    if (optind != argc)
        return cli_usage(usage);
    struct cli_op op;
    if (cli_op_open(&op, db) != CLI_OK)
        return CLI_REFUSED;
    struct audit_record *r;
    size_t n;
    int rc = CLI_OK;
    if (desk_audit(&op.c, kind, target, action, limit, 0, &r, &n) != APP_OK) {
        rc = cli_refuse("cannot read the audit log: %s", store_errmsg(op.s));
    } else if (json) {
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
