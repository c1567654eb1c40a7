/*
 * whistle key create|list|revoke and whistle account ban|unban (docs/agents.md): the
 * operator's side of the key use cases (app/keys.c) that /developers also calls. The
 * secret of a key is printed once, by create, and never stored.
 */
#include <getopt.h>
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
    char email[ACCOUNT_EMAIL_MAX + 2]; /* the --owner or EMAIL argument, normalized */
    char id[UUID_STR_LEN + 1];         /* the KEY_ID argument, normalized */
};

static const struct cli_opt opts[] = {
    CLI_OPTS_COMMON(struct opts),
    {"owner", CLI_OPT_STRING, CLI_OPT_AT(struct opts, owner)},
    {"name", CLI_OPT_STRING, CLI_OPT_AT(struct opts, name)},
};

/* --owner of key create (required) and key list (optional), normalized into o->email */
static int owner_check(const struct cli_action *act, void *args, char **pos)
{
    (void)pos;
    struct opts *o = args;
    bool create = strcmp(act->name, "create") == 0;
    if (create && !o->owner)
        return cli_usage(key_usage);
    if ((create || o->owner) && account_email_normalize(o->owner, o->email) < 0)
        return cli_refuse("--owner must be an email address");
    return CLI_OK;
}

static int create(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)act, (void)pos;
    const struct opts *o = args;
    const char *email = o->email;
    struct key_request in = {.owner_email = email, .name = o->name};
    struct key_new k;
    switch (key_create(&op->c, NULL, &in, &k)) {
    case KEY_OK:
        break;
    case KEY_BAD_NAME:
        return cli_refuse("--name: %s", k.problem);
    default:
        return cli_refuse("cannot create the key: %s", store_errmsg(op->s));
    }
    struct cli_json j;
    cli_json_begin(&j);
    jw_kstr(&j.w, "id", k.id);
    jw_kstr(&j.w, "secret", k.secret);
    jw_kstr(&j.w, "owner", email);
    jw_ktime(&j.w, "expires_at", k.expires_at);
    key_new_wipe(&k);
    if (!o->json)
        fprintf(stderr, "created agent key for %s (shown once; store it now):\n", email);
    cli_json_print_secret(&j);
    return CLI_OK;
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
    jw_fmt(w,
           "{id:%s owner:%s name:%s prefix:%s scope:%s created_at:%ldT expires_at:%ldT "
           "revoked_at:%ldT last_used_at:%ldT state:%s}",
           k->id, k->owner, k->name, k->prefix, k->scope, k->created_at, k->expires_at,
           k->revoked_at, k->last_used_at, agent_key_state_name(k->state));
}

static int list(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)act, (void)pos;
    const struct opts *o = args;
    struct key_info *keys;
    size_t n;
    if (key_list(&op->c, o->owner ? o->email : NULL, &keys, &n) != KEY_OK)
        return cli_refuse("cannot list keys: %s", store_errmsg(op->s));
    if (o->json) {
        cli_print_json_list("keys", keys, n, list_json);
    } else {
        for (size_t i = 0; i < n; i++)
            list_plain(&keys[i]);
        if (n == 0)
            fprintf(stderr, "no agent keys\n");
    }
    return CLI_OK;
}

/* KEY_ID, normalized into o->id */
static int key_id_check(const struct cli_action *act, void *args, char **pos)
{
    (void)act;
    struct opts *o = args;
    if (uuid_normalize(pos[0], o->id) < 0)
        return cli_refuse("KEY_ID must be a key's UUID (see whistle key list)");
    return CLI_OK;
}

static int revoke(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)act, (void)pos;
    const struct opts *o = args;
    const char *id = o->id;
    switch (key_revoke(&op->c, NULL, id)) {
    case KEY_OK:
        if (o->json)
            printf("{\"id\":\"%s\",\"state\":\"revoked\"}\n", id);
        else
            fprintf(stderr, "revoked %s\n", id);
        return CLI_OK;
    case KEY_NOT_FOUND:
        return cli_refuse("no agent key %s", id);
    case KEY_ALREADY_REVOKED:
        return cli_refuse("agent key %s is already revoked", id);
    default:
        return cli_refuse("cannot revoke: %s", store_errmsg(op->s));
    }
}

int cli_key(int argc, char **argv)
{
    static const struct cli_action acts[] = {
        {"create", 0, .check = owner_check, .run = create},
        {"list", 0, .check = owner_check, .run = list},
        {"revoke", 1, .check = key_id_check, .run = revoke},
    };
    struct opts o = {0};
    return cli_command(argc, argv, opts, CLI_LEN(opts), acts, CLI_LEN(acts), &o, key_usage);
}

/* whistle account claim: an imported comment author's account gets its person's address
 * (docs/import-format.md, "Authors"). */
static int claim(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)act;
    const struct opts *o = args;
    const char *name = pos[0];
    struct account_result r;
    int rc = CLI_OK;
    switch (account_claim(&op->c, name, pos[1], &r)) {
    case ACCOUNT_OK:
        if (o->json)
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
        rc = cli_refuse("cannot change the account: %s", store_errmsg(op->s));
    }
    return rc;
}

/* EMAIL of ban, unban and totp-off, normalized into o->email */
static int email_check(const struct cli_action *act, void *args, char **pos)
{
    (void)act;
    struct opts *o = args;
    if (account_email_normalize(pos[0], o->email) < 0)
        return cli_refuse("EMAIL must be an email address");
    return CLI_OK;
}

/* whistle account ban|unban|totp-off EMAIL: a staff member lost their authenticator
 * (totp-off); the account's use case, its refusal or its answer. */
static int account_change(const struct cli_action *act, struct cli_op *op, void *args, char **pos)
{
    (void)pos;
    const struct opts *o = args;
    const char *email = o->email;
    bool totp = strcmp(act->name, "totp-off") == 0, banned = strcmp(act->name, "ban") == 0;
    switch (totp ? account_totp_reset(&op->c, email)
                 : account_set_banned(&op->c, email, banned, NULL)) {
    case ACCOUNT_OK:
        break;
    case ACCOUNT_NOT_FOUND:
        return cli_refuse("no account %s", email);
    case ACCOUNT_TOTP_NONE:
        return cli_refuse("%s has no two-factor key (on or pending)", email);
    default:
        return cli_refuse("cannot change the account: %s", store_errmsg(op->s));
    }
    if (totp && o->json)
        printf("{\"owner\":\"%s\",\"totp\":false}\n", email);
    else if (totp)
        fprintf(stderr,
                "two-factor sign-in is off for %s: it signs in with its password "
                "and may enrol a new authenticator\n",
                email);
    else if (o->json)
        printf("{\"owner\":\"%s\",\"banned\":%s}\n", email, banned ? "true" : "false");
    else
        fprintf(stderr, "%s %s\n", banned ? "banned" : "unbanned", email);
    return CLI_OK;
}

int cli_account(int argc, char **argv)
{
    static const struct cli_action acts[] = {
        {"claim", 2, .run = claim},
        {"ban", 1, .check = email_check, .run = account_change},
        {"unban", 1, .check = email_check, .run = account_change},
        {"totp-off", 1, .check = email_check, .run = account_change},
    };
    struct opts o = {0};
    if (argc < 2)
        return cli_usage(account_usage);
    const char *action = argv[1];
    if (strcmp(action, "grant") == 0 || strcmp(action, "revoke") == 0)
        return cli_account_role(argc, argv);
    return cli_command(argc, argv, opts, CLI_LEN(opts), acts, CLI_LEN(acts), &o, account_usage);
}
