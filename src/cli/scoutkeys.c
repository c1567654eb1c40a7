/*
 * whistle scout-key create|list|revoke|set-budget|disable|enable (docs/scout.md): scout
 * credentials and their budgets. The secret of a credential is printed once, by create,
 * and never stored (only its SHA-256, as for agent keys).
 */
#include <getopt.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "domain/agentkey.h"
#include "domain/scout.h"
#include "http/query.h"
#include "store/scout.h"
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

/* The budget options, in the order of struct opts.budget. */
enum { B_X_DAY, B_MODEL_DAY, B_X_RUN, B_MODEL_RUN, B_RUN_SECONDS, B_COUNT };
#define OPT_BUDGET 1000 /* getopt codes of the budget options: OPT_BUDGET + B_… */
static const struct {
    const char *name;
    int64_t min, max;
} budget_opts[B_COUNT] = {
    {"x-per-day", 0, SCOUT_BUDGET_MAX},
    {"model-micro-usd-per-day", 0, SCOUT_BUDGET_MAX},
    {"x-per-run", 0, SCOUT_BUDGET_MAX},
    {"model-micro-usd-per-run", 0, SCOUT_BUDGET_MAX},
    {"run-seconds", SCOUT_RUN_SECS_MIN, SCOUT_RUN_SECS_MAX},
};

struct opts {
    const char *db, *name;
    bool json;
    bool set[B_COUNT];
    int64_t budget[B_COUNT];
    int64_t expires_days; /* 0: never */
};

static int parse(int argc, char **argv, struct opts *o)
{
    static const struct option long_opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"json", no_argument, NULL, 'j'},
        {"name", required_argument, NULL, 'n'},
        {"expires-days", required_argument, NULL, 'e'},
        {"x-per-day", required_argument, NULL, OPT_BUDGET + B_X_DAY},
        {"model-micro-usd-per-day", required_argument, NULL, OPT_BUDGET + B_MODEL_DAY},
        {"x-per-run", required_argument, NULL, OPT_BUDGET + B_X_RUN},
        {"model-micro-usd-per-run", required_argument, NULL, OPT_BUDGET + B_MODEL_RUN},
        {"run-seconds", required_argument, NULL, OPT_BUDGET + B_RUN_SECONDS},
        {NULL, 0, NULL, 0}};
    int c;
    optind = 2;
    while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
        switch (c) {
        case 'd':
            o->db = optarg;
            break;
        case 'j':
            o->json = true;
            break;
        case 'n':
            o->name = optarg;
            break;
        case 'e':
            if (qp_parse_int(optarg, &o->expires_days) < 0 || o->expires_days < 1 ||
                o->expires_days > 3650)
                return cli_refuse("--expires-days must be an integer from 1 to 3650");
            break;
        default:
            if (c >= OPT_BUDGET && c < OPT_BUDGET + B_COUNT) {
                int b = c - OPT_BUDGET;
                if (qp_parse_int(optarg, &o->budget[b]) < 0 || o->budget[b] < budget_opts[b].min ||
                    o->budget[b] > budget_opts[b].max)
                    return cli_refuse("--%s must be an integer from %lld to %lld",
                                      budget_opts[b].name, (long long)budget_opts[b].min,
                                      (long long)budget_opts[b].max);
                o->set[b] = true;
                break;
            }
            return cli_usage(usage);
        }
    }
    return 0;
}

/* Applies the budget options that were given to c. */
static void apply_budgets(const struct opts *o, struct scout_credential *c)
{
    int64_t *fields[B_COUNT] = {&c->per_day[SCOUT_X], &c->per_day[SCOUT_MODEL],
                                &c->per_run[SCOUT_X], &c->per_run[SCOUT_MODEL], &c->run_seconds};
    for (int b = 0; b < B_COUNT; b++)
        if (o->set[b])
            *fields[b] = o->budget[b];
}

/* The JSON object of a credential (never its secret or hash), with its state at now. */
static void credential_json(struct jw *w, const struct scout_credential *c, int64_t now)
{
    jw_obj_begin(w);
    jw_key(w, "id");
    jw_str(w, c->id);
    jw_key(w, "name");
    jw_str(w, c->name);
    jw_key(w, "prefix");
    jw_str(w, c->prefix);
    jw_key(w, "state");
    jw_str(w, scout_credential_state_name(
                  scout_credential_state(now, c->expires_at, c->revoked_at, c->disabled)));
    jw_key(w, "x_per_day");
    jw_int(w, c->per_day[SCOUT_X]);
    jw_key(w, "model_micro_usd_per_day");
    jw_int(w, c->per_day[SCOUT_MODEL]);
    jw_key(w, "x_per_run");
    jw_int(w, c->per_run[SCOUT_X]);
    jw_key(w, "model_micro_usd_per_run");
    jw_int(w, c->per_run[SCOUT_MODEL]);
    jw_key(w, "run_seconds");
    jw_int(w, c->run_seconds);
    jw_key(w, "created_at");
    jw_time(w, c->created_at);
    jw_key(w, "expires_at");
    jw_time(w, c->expires_at);
    jw_key(w, "revoked_at");
    jw_time(w, c->revoked_at);
    jw_key(w, "last_used_at");
    jw_time(w, c->last_used_at);
}

struct create_ctx {
    const struct opts *o;
    struct buf *out;
};

static int create(struct store *s, void *p)
{
    struct create_ctx *x = p;
    int64_t now = time_now_us();
    struct scout_credential c = {
        .per_day = {SCOUT_DEFAULT_X_PER_DAY, SCOUT_DEFAULT_MODEL_PER_DAY},
        .per_run = {SCOUT_DEFAULT_X_PER_RUN, SCOUT_DEFAULT_MODEL_PER_RUN},
        .run_seconds = SCOUT_DEFAULT_RUN_SECONDS,
        .created_at = now,
        .expires_at = x->o->expires_days ? now + x->o->expires_days * SCOUT_DAY_US : INT64_MIN,
        .revoked_at = INT64_MIN,
        .last_used_at = INT64_MIN,
    };
    apply_budgets(x->o, &c);
    char secret[AGENT_KEY_LEN + 1], hash[AGENT_KEY_HASH_HEX + 1];
    uuid_v4(c.id);
    snprintf(c.name, sizeof c.name, "%s", x->o->name);
    credential_generate(SCOUT_KEY_PREFIX, secret, hash);
    memcpy(c.prefix, secret, AGENT_KEY_SHOWN);
    c.prefix[AGENT_KEY_SHOWN] = '\0';
    if (scout_credential_insert(s, &c, hash) < 0) {
        sodium_memzero(secret, sizeof secret);
        return cli_refuse("cannot create the scout credential: %s", store_errmsg(s));
    }
    struct jw w;
    jw_init(&w, x->out);
    credential_json(&w, &c, now);
    jw_key(&w, "secret");
    jw_str(&w, secret);
    jw_obj_end(&w);
    sodium_memzero(secret, sizeof secret);
    return CLI_OK;
}

struct change_ctx {
    const char *id;
    const struct opts *o;
    int action; /* 'b' set-budget, 'd' disable, 'e' enable, 'r' revoke */
    struct buf *out;
};

static int change(struct store *s, void *p)
{
    struct change_ctx *x = p;
    int64_t now = time_now_us();
    struct scout_credential c;
    int rc = scout_credential_by_id(s, x->id, &c);
    if (rc < 0)
        return cli_refuse("cannot read the scout credential: %s", store_errmsg(s));
    if (rc == 0)
        return cli_refuse("no scout credential %s", x->id);
    if (x->action == 'r') {
        rc = scout_credential_revoke(s, x->id, now);
        if (rc < 0)
            return cli_refuse("cannot revoke: %s", store_errmsg(s));
        if (rc == 2)
            return cli_refuse("scout credential %s is already revoked", x->id);
        c.revoked_at = now;
    } else {
        if (c.revoked_at != INT64_MIN)
            return cli_refuse("scout credential %s is revoked", x->id);
        if (x->action == 'b')
            apply_budgets(x->o, &c);
        else
            c.disabled = x->action == 'd';
        if (scout_credential_update(s, &c) < 0)
            return cli_refuse("cannot change the scout credential: %s", store_errmsg(s));
    }
    struct jw w;
    jw_init(&w, x->out);
    credential_json(&w, &c, now);
    jw_obj_end(&w);
    return CLI_OK;
}

struct list_ctx {
    struct jw w;
    int64_t now;
    bool json;
    size_t n;
};

static int list_one(void *p, const struct scout_credential *c)
{
    struct list_ctx *x = p;
    x->n++;
    if (x->json) {
        credential_json(&x->w, c, x->now);
        jw_obj_end(&x->w);
        return 0;
    }
    char created[TIME_ISO_MAX], used[TIME_ISO_MAX] = "never";
    time_format_iso(c->created_at, created);
    if (c->last_used_at != INT64_MIN)
        time_format_iso(c->last_used_at, used);
    printf("%s  %s…  %-8s  x %lld/day %lld/run  model %lld/day %lld/run µUSD  %llds  created %s"
           "  last used %s  %s\n",
           c->id, c->prefix,
           scout_credential_state_name(
               scout_credential_state(x->now, c->expires_at, c->revoked_at, c->disabled)),
           (long long)c->per_day[SCOUT_X], (long long)c->per_run[SCOUT_X],
           (long long)c->per_day[SCOUT_MODEL], (long long)c->per_run[SCOUT_MODEL],
           (long long)c->run_seconds, created, used, c->name);
    return 0;
}

static int list(const struct opts *o)
{
    struct store *s = cli_open_store(cli_db_path(o->db));
    if (!s)
        return CLI_REFUSED;
    struct buf out = BUF_INIT;
    struct list_ctx x = {.now = time_now_us(), .json = o->json};
    jw_init(&x.w, &out);
    jw_obj_begin(&x.w);
    jw_key(&x.w, "scout_keys");
    jw_arr_begin(&x.w);
    int rc = scout_credentials_each(s, list_one, &x);
    jw_arr_end(&x.w);
    jw_obj_end(&x.w);
    if (rc < 0) {
        rc = cli_refuse("cannot list scout credentials: %s", store_errmsg(s));
    } else {
        rc = CLI_OK;
        if (o->json)
            cli_print_json(&out);
        else if (x.n == 0)
            fprintf(stderr, "no scout credentials\n");
    }
    buf_release(&out);
    store_close(s);
    return rc;
}

/* A name: valid UTF-8 (argv is not checked by anyone else) and the rule of scout keys,
 * 1..100 characters without control characters. */
static bool name_valid(const char *s)
{
    json_t *utf8 = json_string(s); /* NULL for invalid UTF-8 */
    bool ok = utf8 && scout_key_valid(s);
    json_decref(utf8);
    return ok;
}

int cli_scout_key(int argc, char **argv)
{
    struct opts o = {0};
    if (argc < 2)
        return cli_usage(usage);
    const char *action = argv[1];
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    bool any_budget = false;
    for (int b = 0; b < B_COUNT; b++)
        any_budget = any_budget || o.set[b];
    struct buf out = BUF_INIT;
    if (strcmp(action, "create") == 0) {
        if (optind != argc || !o.name)
            return cli_usage(usage);
        if (!name_valid(o.name))
            return cli_refuse("--name must be 1 to 100 characters without control characters");
        struct create_ctx x = {&o, &out};
        rc = cli_in_tx(o.db, create, &x);
        if (rc == CLI_OK) {
            if (!o.json)
                fprintf(stderr,
                        "created scout credential %s (the secret is shown once; store "
                        "it now):\n",
                        o.name);
            cli_print_json(&out);
        }
    } else if (strcmp(action, "list") == 0) {
        if (optind != argc || o.name || any_budget || o.expires_days)
            return cli_usage(usage);
        rc = list(&o);
    } else if (strcmp(action, "revoke") == 0 || strcmp(action, "set-budget") == 0 ||
               strcmp(action, "disable") == 0 || strcmp(action, "enable") == 0) {
        char id[UUID_STR_LEN + 1];
        bool budget = strcmp(action, "set-budget") == 0;
        if (optind != argc - 1 || o.name || o.expires_days || any_budget != budget)
            return cli_usage(usage);
        if (uuid_normalize(argv[optind], id) < 0)
            return cli_refuse("ID must be a scout credential's UUID (see whistle scout-key list)");
        struct change_ctx x = {id, &o, budget ? 'b' : action[0] == 'r' ? 'r' : action[0], &out};
        rc = cli_in_tx(o.db, change, &x);
        if (rc == CLI_OK) {
            if (o.json)
                cli_print_json(&out);
            else
                fprintf(stderr, "%s %s\n",
                        budget            ? "changed the budgets of"
                        : x.action == 'r' ? "revoked"
                        : x.action == 'd' ? "disabled"
                                          : "enabled",
                        id);
        }
    } else {
        rc = cli_usage(usage);
    }
    buf_release(&out);
    return rc;
}
