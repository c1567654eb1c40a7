/*
 * whistle key create|list|revoke and whistle account ban|unban (docs/agents.md). The
 * secret of a key is printed once, by create, and never stored.
 */
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "domain/account.h"
#include "domain/agentkey.h"
#include "store/agents.h"
#include "util/jsonw.h"
#include "util/timefmt.h"
#include "util/uuid.h"

static const char key_usage[] =
    "whistle key create --owner EMAIL [--name NAME] [--db PATH] [--json]\n"
    "       whistle key list [--owner EMAIL] [--db PATH] [--json]\n"
    "       whistle key revoke KEY_ID [--db PATH] [--json]";
static const char account_usage[] = "whistle account ban|unban EMAIL [--db PATH] [--json]";

struct opts {
    const char *db, *owner, *name;
    bool json;
};

static int parse(int argc, char **argv, struct opts *o, const char *usage)
{
    static const struct option long_opts[] = {{"db", required_argument, NULL, 'd'},
                                              {"json", no_argument, NULL, 'j'},
                                              {"owner", required_argument, NULL, 'o'},
                                              {"name", required_argument, NULL, 'n'},
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
        case 'o':
            o->owner = optarg;
            break;
        case 'n':
            o->name = optarg;
            break;
        default:
            return cli_usage(usage);
        }
    }
    return 0;
}

struct create_ctx {
    const char *email, *name;
    struct buf *out;
};

static int create(struct store *s, void *p)
{
    struct create_ctx *c = p;
    int64_t now = time_now_us();
    char account[ID_LEN], id[UUID_STR_LEN + 1], key[AGENT_KEY_LEN + 1],
        hash[AGENT_KEY_HASH_HEX + 1], prefix[AGENT_KEY_SHOWN + 1];
    /* an operator vouches for the address: the account is created verified */
    if (agents_account_ensure(s, c->email, true, now, account) < 0)
        return cli_refuse("cannot create the account: %s", store_errmsg(s));
    uuid_v4(id);
    agent_key_generate(key, hash);
    memcpy(prefix, key, AGENT_KEY_SHOWN);
    prefix[AGENT_KEY_SHOWN] = '\0';
    int64_t expires = now + AGENT_KEY_LIFETIME_US;
    if (agents_key_insert(s, id, account, c->name, prefix, hash, now, expires) < 0) {
        sodium_memzero(key, sizeof key);
        return cli_refuse("cannot create the key: %s", store_errmsg(s));
    }
    struct jw w;
    jw_init(&w, c->out);
    jw_obj_begin(&w);
    jw_key(&w, "id");
    jw_str(&w, id);
    jw_key(&w, "secret");
    jw_str(&w, key);
    jw_key(&w, "owner");
    jw_str(&w, c->email);
    jw_key(&w, "expires_at");
    jw_time(&w, expires);
    jw_obj_end(&w);
    sodium_memzero(key, sizeof key);
    return CLI_OK;
}

struct list_ctx {
    struct jw w;
    int64_t now;
    bool json;
    size_t n;
};

static int list_one(void *p, const struct agent_key_row *k)
{
    struct list_ctx *c = p;
    const char *state = agent_key_state_name(
        agent_key_state(c->now, k->expires_at, k->revoked_at, k->banned, k->scope));
    if (!c->json) {
        char created[TIME_ISO_MAX], expires[TIME_ISO_MAX], used[TIME_ISO_MAX] = "never";
        time_format_iso(k->created_at, created);
        time_format_iso(k->expires_at, expires);
        if (k->last_used_at != INT64_MIN)
            time_format_iso(k->last_used_at, used);
        printf("%s  %s…  %-8s  %s  created %s  expires %s  last used %s%s%s\n", k->id, k->prefix,
               state, k->owner, created, expires, used, k->name ? "  " : "",
               k->name ? k->name : "");
        c->n++;
        return 0;
    }
    struct jw *w = &c->w;
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
    jw_str(w, state);
    jw_obj_end(w);
    c->n++;
    return 0;
}

struct revoke_ctx {
    const char *id;
    struct buf *out;
};

static int revoke(struct store *s, void *p)
{
    struct revoke_ctx *c = p;
    int rc = agents_key_revoke(s, c->id, time_now_us());
    if (rc < 0)
        return cli_refuse("cannot revoke: %s", store_errmsg(s));
    if (rc == 0)
        return cli_refuse("no agent key %s", c->id);
    if (rc == 2)
        return cli_refuse("agent key %s is already revoked", c->id);
    buf_printf(c->out, "{\"id\":\"%s\",\"state\":\"revoked\"}", c->id);
    return CLI_OK;
}

int cli_key(int argc, char **argv)
{
    struct opts o = {0};
    if (argc < 2)
        return cli_usage(key_usage);
    const char *action = argv[1];
    int rc = parse(argc, argv, &o, key_usage);
    if (rc)
        return rc;
    struct buf out = BUF_INIT;
    char email[256];
    if (strcmp(action, "create") == 0) {
        if (optind != argc || !o.owner)
            return cli_usage(key_usage);
        if (account_email_normalize(o.owner, email) < 0)
            return cli_refuse("--owner must be an email address");
        if (o.name && (strlen(o.name) == 0 || strlen(o.name) > 100))
            return cli_refuse("--name must be 1 to 100 characters");
        struct create_ctx c = {email, o.name, &out};
        rc = cli_in_tx(o.db, create, &c);
        if (rc == CLI_OK) {
            if (o.json) {
                cli_print_json(&out);
            } else {
                fprintf(stderr, "created agent key for %s (shown once; store it now):\n", email);
                cli_print_json(&out);
            }
        }
    } else if (strcmp(action, "list") == 0) {
        if (optind != argc)
            return cli_usage(key_usage);
        if (o.owner && account_email_normalize(o.owner, email) < 0)
            return cli_refuse("--owner must be an email address");
        struct store *s = cli_open_store(cli_db_path(o.db));
        if (!s)
            return CLI_REFUSED;
        struct list_ctx c = {.now = time_now_us(), .json = o.json};
        jw_init(&c.w, &out);
        jw_obj_begin(&c.w);
        jw_key(&c.w, "keys");
        jw_arr_begin(&c.w);
        rc = agents_keys_each(s, o.owner ? email : NULL, list_one, &c);
        jw_arr_end(&c.w);
        jw_obj_end(&c.w);
        if (rc < 0) {
            rc = cli_refuse("cannot list keys: %s", store_errmsg(s));
        } else {
            rc = CLI_OK;
            if (o.json)
                cli_print_json(&out);
            else if (c.n == 0)
                fprintf(stderr, "no agent keys\n");
        }
        store_close(s);
    } else if (strcmp(action, "revoke") == 0) {
        char id[UUID_STR_LEN + 1];
        if (optind != argc - 1)
            return cli_usage(key_usage);
        if (uuid_normalize(argv[optind], id) < 0)
            return cli_refuse("KEY_ID must be a key's UUID (see whistle key list)");
        struct revoke_ctx c = {id, &out};
        rc = cli_in_tx(o.db, revoke, &c);
        if (rc == CLI_OK && o.json)
            cli_print_json(&out);
        else if (rc == CLI_OK)
            fprintf(stderr, "revoked %s\n", id);
    } else {
        rc = cli_usage(key_usage);
    }
    buf_release(&out);
    return rc;
}

struct ban_ctx {
    const char *email;
    bool banned;
};

static int ban(struct store *s, void *p)
{
    struct ban_ctx *c = p;
    int rc = agents_account_set_banned(s, c->email, c->banned, time_now_us());
    if (rc < 0)
        return cli_refuse("cannot change the account: %s", store_errmsg(s));
    if (rc == 0)
        return cli_refuse("no account %s", c->email);
    return CLI_OK;
}

int cli_account(int argc, char **argv)
{
    struct opts o = {0};
    if (argc < 2)
        return cli_usage(account_usage);
    const char *action = argv[1];
    int rc = parse(argc, argv, &o, account_usage);
    if (rc)
        return rc;
    bool banned = strcmp(action, "ban") == 0;
    if ((!banned && strcmp(action, "unban") != 0) || optind != argc - 1)
        return cli_usage(account_usage);
    char email[256];
    if (account_email_normalize(argv[optind], email) < 0)
        return cli_refuse("EMAIL must be an email address");
    struct ban_ctx c = {email, banned};
    rc = cli_in_tx(o.db, ban, &c);
    if (rc == CLI_OK) {
        if (o.json)
            printf("{\"owner\":\"%s\",\"banned\":%s}\n", email, banned ? "true" : "false");
        else
            fprintf(stderr, "%s %s\n", banned ? "banned" : "unbanned", email);
    }
    return rc;
}
