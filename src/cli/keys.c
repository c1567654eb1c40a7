/*
 * whistle key create|list|revoke and whistle account ban|unban (docs/agents.md): the
 * operator's side of the key use cases (app/keys.c) that /developers also calls. The
 * secret of a key is printed once, by create, and never stored.
 */
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "app/accounts.h"
#include "cli/cli.h"
#include "domain/account.h"
#include "domain/agentkey.h"
#include "util/jsonw.h"
#include "util/timefmt.h"
#include "util/uuid.h"

static const char key_usage[] =
    "whistle key create --owner EMAIL [--name NAME] [--db PATH] [--json]\n"
    "       whistle key list [--owner EMAIL] [--db PATH] [--json]\n"
    "       whistle key revoke KEY_ID [--db PATH] [--json]";
static const char account_usage[] =
    "whistle account ban|unban EMAIL [--db PATH] [--json]\n"
    "       whistle account grant|revoke EMAIL moderator|editor|admin [--db PATH] [--json]\n"
    "       whistle account claim DISPLAY_NAME EMAIL [--db PATH] [--json]\n"
    "       whistle account totp-off EMAIL [--db PATH] [--json]";

struct opts {
    const char *db, *owner, *name;
    bool json;
};

static int parse(int argc, char **argv, struct opts *o, const char *usage)
{
    static const struct cli_opt long_opts[] = {
        CLI_OPTS_COMMON(struct opts),
        {"owner", CLI_OPT_STRING, CLI_OPT_AT(struct opts, owner)},
        {"name", CLI_OPT_STRING, CLI_OPT_AT(struct opts, name)},
    };
    return cli_options(argc, argv, 2, long_opts, CLI_NOPTS(long_opts), o, usage);
}

static int create(const char *db, const char *email, const char *name, bool json)
{
    struct cli_op o;
    if (cli_op_open(&o, db) != CLI_OK)
        return CLI_REFUSED;
    struct key_request in = {.owner_email = email, .name = name};
    struct key_new k;
    int rc = CLI_OK;
    switch (key_create(&o.c, NULL, &in, &k)) {
    case KEY_OK:
        break;
    case KEY_BAD_NAME:
        rc = cli_refuse("--name: %s", k.problem);
        goto out;
    default:
        rc = cli_refuse("cannot create the key: %s", store_errmsg(o.s));
        goto out;
    }
    struct buf b = BUF_INIT;
    struct jw w;
    jw_init(&w, &b);
    jw_obj_begin(&w);
    jw_key(&w, "id");
    jw_str(&w, k.id);
    jw_key(&w, "secret");
    jw_str(&w, k.secret);
    jw_key(&w, "owner");
    jw_str(&w, email);
    jw_key(&w, "expires_at");
    jw_time(&w, k.expires_at);
    jw_obj_end(&w);
    key_new_wipe(&k);
    if (!json)
        fprintf(stderr, "created agent key for %s (shown once; store it now):\n", email);
    cli_print_json(&b);
    sodium_memzero(b.p, b.len);
    buf_release(&b);
out:
    cli_op_close(&o);
    return rc;
}

static void list_plain(const struct key_info *k)
{
    char created[TIME_ISO_MAX], expires[TIME_ISO_MAX], used[TIME_ISO_MAX] = "never";
    time_format_iso(k->created_at, created);
    time_format_iso(k->expires_at, expires);
    if (k->last_used_at != INT64_MIN)
        time_format_iso(k->last_used_at, used);
    printf("%s  %s…  %-8s  %s  created %s  expires %s  last used %s%s%s\n", k->id, k->prefix,
           agent_key_state_name(k->state), k->owner, created, expires, used, k->name ? "  " : "",
           k->name ? k->name : "");
}

static void list_json(struct jw *w, const void *items, size_t i)
{
    const struct key_info *k = (const struct key_info *)items + i;
    jw_obj_begin(w);
    jw_key(w, "id");
    jw_str(w, k->id);
    jw_key(w, "owner");
    jw_str(w, k->owner);
    jw_key(w, "name");
    jw_str(w, k->name);
    jw_key(w, "prefix");
    jw_str(w, k->prefix);
    jw_key(w, "scope");
    jw_str(w, k->scope);
    jw_key(w, "created_at");
    jw_time(w, k->created_at);
    jw_key(w, "expires_at");
    jw_time(w, k->expires_at);
    jw_key(w, "revoked_at");
    jw_time(w, k->revoked_at);
    jw_key(w, "last_used_at");
    jw_time(w, k->last_used_at);
    jw_key(w, "state");
    jw_str(w, agent_key_state_name(k->state));
    jw_obj_end(w);
}

static int list(const char *db, const char *owner, bool json)
{
    struct cli_op o;
    if (cli_op_open(&o, db) != CLI_OK)
        return CLI_REFUSED;
    struct key_info *keys;
    size_t n;
    int rc = CLI_OK;
    if (key_list(&o.c, owner, &keys, &n) != KEY_OK) {
        rc = cli_refuse("cannot list keys: %s", store_errmsg(o.s));
    } else if (json) {
        cli_print_json_list("keys", keys, n, list_json);
    } else {
        for (size_t i = 0; i < n; i++)
            list_plain(&keys[i]);
        if (n == 0)
            fprintf(stderr, "no agent keys\n");
    }
    cli_op_close(&o);
    return rc;
}

static int revoke(const char *db, const char *id, bool json)
{
    struct cli_op o;
    if (cli_op_open(&o, db) != CLI_OK)
        return CLI_REFUSED;
    int rc = CLI_OK;
    switch (key_revoke(&o.c, NULL, id)) {
    case KEY_OK:
        if (json)
            printf("{\"id\":\"%s\",\"state\":\"revoked\"}\n", id);
        else
            fprintf(stderr, "revoked %s\n", id);
        break;
    case KEY_NOT_FOUND:
        rc = cli_refuse("no agent key %s", id);
        break;
    case KEY_ALREADY_REVOKED:
        rc = cli_refuse("agent key %s is already revoked", id);
        break;
    default:
        rc = cli_refuse("cannot revoke: %s", store_errmsg(o.s));
    }
    cli_op_close(&o);
    return rc;
}

int cli_key(int argc, char **argv)
{
    struct opts o = {0};
    int rc = parse(argc, argv, &o, key_usage);
    if (rc)
        return rc;
    const char *action = argv[1];
    char email[ACCOUNT_EMAIL_MAX + 2];
    if (strcmp(action, "create") == 0) {
        if (optind != argc || !o.owner)
            return cli_usage(key_usage);
        if (account_email_normalize(o.owner, email) < 0)
            return cli_refuse("--owner must be an email address");
        return create(o.db, email, o.name, o.json);
    }
    if (strcmp(action, "list") == 0) {
        if (optind != argc)
            return cli_usage(key_usage);
        if (o.owner && account_email_normalize(o.owner, email) < 0)
            return cli_refuse("--owner must be an email address");
        return list(o.db, o.owner ? email : NULL, o.json);
    }
    if (strcmp(action, "revoke") == 0) {
        char id[UUID_STR_LEN + 1];
        if (optind != argc - 1)
            return cli_usage(key_usage);
        if (uuid_normalize(argv[optind], id) < 0)
            return cli_refuse("KEY_ID must be a key's UUID (see whistle key list)");
        return revoke(o.db, id, o.json);
    }
    return cli_usage(key_usage);
}

/* whistle account claim: an imported comment author's account gets its person's address
 * (docs/import-format.md, "Authors"). */
static int claim(const char *db, const char *name, const char *email, bool json)
{
    struct cli_op op;
    if (cli_op_open(&op, db) != CLI_OK)
        return CLI_REFUSED;
    struct account_result r;
    int rc = CLI_OK;
    switch (account_claim(&op.c, name, email, &r)) {
    case ACCOUNT_OK:
        if (json)
            printf("{\"display_name\":\"%s\",\"email\":\"%s\"}\n", name, r.email);
        else
            fprintf(stderr,
                    "%s now has the address %s: \"forgot password\" on the site sets "
                    "its password\n",
                    name, r.email);
        break;
    case ACCOUNT_BAD_EMAIL:
        rc = cli_refuse("EMAIL must be an email address (not an imported one)");
        break;
    case ACCOUNT_NOT_FOUND:
        rc = cli_refuse("no account has the display name \"%s\"", name);
        break;
    case ACCOUNT_NOT_IMPORTED:
        rc = cli_refuse("\"%s\" has an address of its own: only an imported author's account "
                        "can be claimed",
                        name);
        break;
    case ACCOUNT_TAKEN:
        rc = cli_refuse("another account has the address %s", r.email);
        break;
    default:
        rc = cli_refuse("cannot change the account: %s", store_errmsg(op.s));
    }
    cli_op_close(&op);
    return rc;
}

/* whistle account totp-off EMAIL: a staff member lost their authenticator */
static int totp_off(const char *db, const char *arg, bool json)
{
    char email[ACCOUNT_EMAIL_MAX + 2];
    if (account_email_normalize(arg, email) < 0)
        return cli_refuse("EMAIL must be an email address");
    struct cli_op op;
    if (cli_op_open(&op, db) != CLI_OK)
        return CLI_REFUSED;
    int rc;
    switch (account_totp_reset(&op.c, email)) {
    case ACCOUNT_OK:
        rc = CLI_OK;
        break;
    case ACCOUNT_NOT_FOUND:
        rc = cli_refuse("no account %s", email);
        break;
    case ACCOUNT_TOTP_NONE:
        rc = cli_refuse("%s has no two-factor key (on or pending)", email);
        break;
    default:
        rc = cli_refuse("cannot change the account: %s", store_errmsg(op.s));
    }
    cli_op_close(&op);
    if (rc == CLI_OK) {
        if (json)
            printf("{\"owner\":\"%s\",\"totp\":false}\n", email);
        else
            fprintf(stderr,
                    "two-factor sign-in is off for %s: it signs in with its password "
                    "and may enrol a new authenticator\n",
                    email);
    }
    return rc;
}

int cli_account(int argc, char **argv)
{
    struct opts o = {0};
    if (argc < 2)
        return cli_usage(account_usage);
    const char *action = argv[1];
    if (strcmp(action, "grant") == 0 || strcmp(action, "revoke") == 0)
        return cli_account_role(argc, argv);
    int rc = parse(argc, argv, &o, account_usage);
    if (rc)
        return rc;
    if (strcmp(action, "claim") == 0)
        return optind == argc - 2 ? claim(o.db, argv[optind], argv[optind + 1], o.json)
                                  : cli_usage(account_usage);
    if (strcmp(action, "totp-off") == 0)
        return optind == argc - 1 ? totp_off(o.db, argv[optind], o.json) : cli_usage(account_usage);
    bool banned = strcmp(action, "ban") == 0;
    if ((!banned && strcmp(action, "unban") != 0) || optind != argc - 1)
        return cli_usage(account_usage);
    char email[ACCOUNT_EMAIL_MAX + 2];
    if (account_email_normalize(argv[optind], email) < 0)
        return cli_refuse("EMAIL must be an email address");
    struct cli_op op;
    if (cli_op_open(&op, o.db) != CLI_OK)
        return CLI_REFUSED;
    switch (account_set_banned(&op.c, email, banned, NULL)) {
    case ACCOUNT_OK:
        rc = CLI_OK;
        break;
    case ACCOUNT_NOT_FOUND:
        rc = cli_refuse("no account %s", email);
        break;
    default:
        rc = cli_refuse("cannot change the account: %s", store_errmsg(op.s));
    }
    cli_op_close(&op);
    if (rc == CLI_OK) {
        if (o.json)
            printf("{\"owner\":\"%s\",\"banned\":%s}\n", email, banned ? "true" : "false");
        else
            fprintf(stderr, "%s %s\n", banned ? "banned" : "unbanned", email);
    }
    return rc;
}
