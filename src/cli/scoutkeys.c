/*
 * whistle scout-key create|list|revoke|set-budget|disable|enable (docs/scout.md): scout
 * credentials and their budgets, over the use cases of app/scoutkeys.h (the desk calls the
 * same ones). The secret of a credential is printed once, by create, and never stored (only
 * its SHA-256, as for agent keys).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "app/scoutkeys.h"
#include "cli/cli.h"
#include "domain/scout.h"
#include "http/query.h"
#include "util/jsonw.h"
#include "util/timefmt.h"
#include "util/uuid.h"

static const char usage[] =
    "whistle scout-key create --name NAME [--x-per-day N] [--model-micro-usd-per-day N]\n"
    "                         [--x-per-run N] [--model-micro-usd-per-run N] [--run-seconds N]\n"
    "                         [--expires-days N] [--db PATH] [--json]\n"
    "       whistle scout-key list [--db PATH] [--json]\n"
    "       whistle scout-key revoke ID [--db PATH] [--json]\n"
    "       whistle scout-key set-budget ID [--x-per-day N] [--model-micro-usd-per-day N]\n"
    "                         [--x-per-run N] [--model-micro-usd-per-run N] [--run-seconds N]\n"
    "                         [--db PATH] [--json]\n"
    "       whistle scout-key disable|enable ID [--db PATH] [--json]";

struct opts {
    const char *db, *name;
    bool json;
    struct scoutkey_budget budget;
    int64_t expires_days;      /* 0: never */
    char id[UUID_STR_LEN + 1]; /* the ID argument, normalized */
};

/* "--x-per-day must be …": the range of budget k (app/scoutkeys.h holds the rule). */
static int budget_refuse(int k)
{
    const struct scoutkey_budget_field *f = &scoutkey_budget_fields[k];
    return cli_refuse("--%s must be an integer from %lld to %lld", f->option, (long long)f->min,
                      (long long)f->max);
}

/* A budget option (--x-per-day …): budget k of dest's opts; its range is checked once all
 * are read (scoutkey_budget_invalid). */
static int take_budget(void *dest, const char *v, int k)
{
    struct opts *o = dest;
    o->budget.set[k] = true;
    return qp_parse_int(v, &o->budget.v[k]) < 0 ? budget_refuse(k) : CLI_OK;
}

static int parse(int argc, char **argv, struct opts *o)
{
    struct cli_opt long_opts[4 + SCOUTKEY_NBUDGETS] = {
        CLI_OPTS_COMMON(struct opts),
        {"name", CLI_OPT_STRING, CLI_OPT_AT(struct opts, name)},
        {"expires-days", CLI_OPT_INT, CLI_OPT_AT(struct opts, expires_days), 1,
         SCOUTKEY_EXPIRES_DAYS_MAX},
    };
    for (int k = 0; k < SCOUTKEY_NBUDGETS; k++)
        long_opts[4 + k] = (struct cli_opt){scoutkey_budget_fields[k].option, CLI_OPT_TAKE,
                                            .take = take_budget, .k = k};
    int rc = cli_options(argc, argv, 2, long_opts, CLI_LEN(long_opts), o, usage);
    if (rc != CLI_OK)
        return rc;
    int k = scoutkey_budget_invalid(&o->budget);
    return k < 0 ? 0 : budget_refuse(k);
}

/* A use case's outcome as an exit status (refusals said on stderr). */
static int outcome(int rc, const char *message)
{
    if (rc == SCOUTKEY_OK)
        return CLI_OK;
    if (rc == APP_UNAVAILABLE)
        return cli_refuse("the database failed; nothing was changed");
    return cli_refuse("%s", message ? message : "refused");
}

/* Whether any budget option is there. */
static bool any_budget(const struct opts *o)
{
    for (int k = 0; k < SCOUTKEY_NBUDGETS; k++)
        if (o->budget.set[k])
            return true;
    return false;
}

/* create: --name, required and valid */
static int create_check(const struct cli_action *act, void *args, char **pos)
{
    (void)act, (void)pos;
    const struct opts *o = args;
    if (!o->name)
        return cli_usage(usage);
    if (!scoutkey_name_valid(o->name))
        return cli_refuse("--name must be 1 to 100 characters without control characters");
    return CLI_OK;
}

static int create(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)act, (void)pos;
    const struct opts *o = args;
    struct scoutkey_new k;
    const char *why = NULL;
    int rc = scoutkey_create(&op->c, o->name, &o->budget, o->expires_days, &k, &why);
    rc = outcome(rc, why);
    if (rc == CLI_OK) {
        struct cli_json j;
        cli_json_init(&j);
        scoutkey_json(&j.w, &k.cred, op->c.now);
        jw_kstr(&j.w, "secret", k.secret);
        scoutkey_new_wipe(&k);
        if (!o->json)
            fprintf(stderr,
                    "created scout credential %s (the secret is shown once; store it "
                    "now):\n",
                    o->name);
        cli_json_print_secret(&j);
    }
    return rc;
}

/* set-budget, disable, enable, revoke (act->k: the scoutkey_change): budgets only with
 * set-budget, and at least one; ID normalized into o->id */
static int change_check(const struct cli_action *act, void *args, char **pos)
{
    struct opts *o = args;
    if (o->name || o->expires_days || any_budget(o) != (act->k == SCOUTKEY_SET_BUDGET))
        return cli_usage(usage);
    if (uuid_normalize(pos[0], o->id) < 0)
        return cli_refuse("ID must be a scout credential's UUID (see whistle scout-key list)");
    return CLI_OK;
}

static int change(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    static const char *const done[] = {"changed the budgets of", "disabled", "enabled", "revoked"};
    (void)pos;
    const struct opts *o = args;
    const char *id = o->id;
    enum scoutkey_change what = (enum scoutkey_change)act->k;
    struct scout_credential k;
    const char *why = NULL;
    int rc = scoutkey_change(&op->c, id, what, &o->budget, &k, &why);
    rc = outcome(rc, why);
    if (rc == CLI_OK && o->json) {
        struct cli_json j;
        cli_json_init(&j);
        scoutkey_json(&j.w, &k, op->c.now);
        cli_json_print(&j);
    } else if (rc == CLI_OK) {
        fprintf(stderr, "%s %s\n", done[what], id);
    }
    return rc;
}

/* list: no option but --db and --json */
static int list_check(const struct cli_action *act, void *args, char **pos)
{
    (void)act, (void)pos;
    const struct opts *o = args;
    return o->name || any_budget(o) || o->expires_days ? cli_usage(usage) : CLI_OK;
}

static int list(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)act, (void)pos;
    const struct opts *o = args;
    struct scout_credential *v;
    size_t n;
    int rc = outcome(scoutkey_list(&op->c, &v, &n), NULL);
    struct buf out = BUF_INIT;
    struct jw w;
    jw_init(&w, &out);
    jw_obj_begin(&w);
    jw_key(&w, "scout_keys");
    jw_arr_begin(&w);
    for (size_t i = 0; rc == CLI_OK && i < n; i++) {
        const struct scout_credential *c = &v[i];
        scoutkey_json(&w, c, op->c.now);
        jw_obj_end(&w);
        if (o->json)
            continue;
        char created[TIME_ISO_MAX], used[TIME_ISO_MAX] = "never";
        time_format_iso(c->created_at, created);
        if (c->last_used_at != INT64_MIN)
            time_format_iso(c->last_used_at, used);
        printf("%s  %s…  %-8s  x %lld/day %lld/run  model %lld/day %lld/run µUSD  %llds  "
               "created %s  last used %s  %s\n",
               c->id, c->prefix,
               scout_credential_state_name(
                   scout_credential_state(op->c.now, c->expires_at, c->revoked_at, c->disabled)),
               (long long)c->per_day[SCOUT_X], (long long)c->per_run[SCOUT_X],
               (long long)c->per_day[SCOUT_MODEL], (long long)c->per_run[SCOUT_MODEL],
               (long long)c->run_seconds, created, used, c->name);
    }
    jw_arr_end(&w);
    jw_obj_end(&w);
    if (rc == CLI_OK && o->json)
        cli_print_json(&out);
    else if (rc == CLI_OK && n == 0)
        fprintf(stderr, "no scout credentials\n");
    buf_release(&out);
    return rc;
}

int cli_scout_key(int argc, char **argv)
{
    static const struct cli_action acts[] = {
        {"create", 0, .check = create_check, .run = create},
        {"list", 0, .check = list_check, .run = list},
        {"set-budget", 1, .check = change_check, .run = change, .k = SCOUTKEY_SET_BUDGET},
        {"disable", 1, .check = change_check, .run = change, .k = SCOUTKEY_DISABLE},
        {"enable", 1, .check = change_check, .run = change, .k = SCOUTKEY_ENABLE},
        {"revoke", 1, .check = change_check, .run = change, .k = SCOUTKEY_REVOKE},
    };
    struct opts o = {0};
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    return cli_dispatch(acts, CLI_LEN(acts), argc, argv, o.db, &o, usage);
}
