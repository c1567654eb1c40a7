/*
 * Agent keys (app/accounts.h; docs/agents.md "Keys", docs/accounts.md "/developers"): the
 * one home of who may create, revoke and list keys, for the portal and `whistle key` alike.
 * The secret of a key is returned once, by key_create, and never stored.
 */
#include <sodium.h>
#include <string.h>

#include "app/accounts.h"
#include "app/editorial.h"
#include "store/agents.h"
#include "util/log.h"

void key_new_wipe(struct key_new *k)
{
    sodium_memzero(k->secret, sizeof k->secret);
}

/* Whether the account itself may hold keys at all: a banned account may not, nor one whose
 * address is not verified (the link proves a mailbox behind the key). */
static enum key_outcome owner_refusal(const struct account_row *a)
{
    if (a->banned)
        return KEY_SUSPENDED;
    if (!a->verified)
        return KEY_UNVERIFIED;
    return KEY_OK;
}

/* Every store call key_create and key_revoke make under their key, with placeholder
 * arguments, for store_prepare_ahead (app.h): nothing executes, lookups find nothing. */
static int key_statements(struct store *s, void *arg)
{
    (void)arg;
    static const char none[] = APP_PLACEHOLDER_ID;
    char id[ID_LEN];
    int64_t n;
    int rc = accounts_active_keys(s, none, 0, &n);
    if (rc >= 0)
        rc = agents_account_ensure(s, "none@none.invalid", true, 0, id);
    if (rc >= 0)
        rc = agents_key_insert(s, none, none, NULL, none, none, 0, 0);
    if (rc >= 0)
        rc = accounts_key_revoke(s, none, none, 0);
    if (rc >= 0)
        rc = agents_key_revoke(s, none, 0);
    if (rc >= 0)
        rc = app_audit_ahead(s);
    return rc < 0 ? rc : 0;
}

enum key_outcome key_may_create(const struct app_ctx *c, const struct whistle_limits *limits,
                                const struct account_row *a, int64_t *active)
{
    *active = 0;
    int rc = accounts_active_keys(c->s, a->id, c->now, active);
    if (rc < 0)
        return app_unavailable(c, "keys", rc, "key count");
    enum key_outcome o = owner_refusal(a);
    if (o == KEY_OK && *active >= limits->max_agent_keys)
        o = KEY_LIMIT;
    return o;
}

enum key_outcome key_create(const struct app_ctx *c, const struct whistle_limits *limits,
                            const struct key_request *in, struct key_new *out)
{
    const struct account_row *a = in->account;
    char account_id[ID_LEN], hash[AGENT_KEY_HASH_HEX + 1], prefix[AGENT_KEY_SHOWN + 1];
    memset(out, 0, sizeof *out);
    if (a) {
        enum key_outcome o = owner_refusal(a);
        if (o != KEY_OK)
            return o;
    }
    /* a name is required from an account; the operator may leave it out */
    if (a || in->name) {
        out->problem = account_key_name(in->name, out->name);
        if (out->problem)
            return KEY_BAD_NAME;
    }
    int64_t active = 0;
    /* the count and the insert share one write transaction under the owning account's key
     * (the operator's: the owner's address, whose account it may create): two concurrent
     * requests can never both take the last free slot */
    const char *lock = a ? arena_printf(c->a, "account:%s", a->id)
                         : arena_printf(c->a, "email:%s", in->owner_email ? in->owner_email : "");
    int rc = app_begin_locked(c->s, key_statements, (void *)c, &lock, 1);
    if (rc >= 0 && a) {
        rc = accounts_active_keys(c->s, a->id, c->now, &active);
        if (rc >= 0 && active >= limits->max_agent_keys) {
            store_rollback(c->s);
            return KEY_LIMIT;
        }
        memcpy(account_id, a->id, sizeof account_id);
    } else if (rc >= 0) {
        /* an operator vouches for the address: the account is created verified */
        rc = agents_account_ensure(c->s, in->owner_email, true, c->now, account_id);
    }
    uuid_v4(out->id);
    agent_key_generate(out->secret, hash);
    memcpy(prefix, out->secret, AGENT_KEY_SHOWN);
    prefix[AGENT_KEY_SHOWN] = '\0';
    out->expires_at = c->now + AGENT_KEY_LIFETIME_US;
    if (rc >= 0)
        rc = agents_key_insert(c->s, out->id, account_id, out->name[0] ? out->name : NULL, prefix,
                               hash, c->now, out->expires_at);
    rc = app_commit(c, "keys", rc, "key create");
    if (rc < 0) {
        key_new_wipe(out);
        return rc;
    }
    return KEY_OK;
}

enum key_outcome key_revoke(const struct app_ctx *c, const char *account_id, const char *key_id)
{
    /* an account revokes under its own key (its count of active keys moves); the operator's
     * revocation is one conditional update of the key's row */
    const char *lock = account_id ? arena_printf(c->a, "account:%s", account_id) : NULL;
    int rc = app_begin_locked(c->s, key_statements, (void *)c, &lock, lock ? 1 : 0);
    if (rc >= 0)
        rc = account_id ? accounts_key_revoke(c->s, account_id, key_id, c->now)
                        : agents_key_revoke(c->s, key_id, c->now);
    if (rc == 0 || rc == 2) { /* nothing to write */
        store_rollback(c->s);
        return rc == 0 ? KEY_NOT_FOUND : KEY_ALREADY_REVOKED;
    }
    if (rc > 0)
        rc = app_audit(c, "key.revoke", "agent_key", key_id, "{\"revoked\":false}",
                       "{\"revoked\":true}", NULL);
    return app_commit(c, "keys", rc, "key revoke") < 0 ? APP_UNAVAILABLE : KEY_OK;
}

/* key_list's rows, and the clock their state is judged at. */
struct list_ctx {
    struct app_rows rows;
    int64_t now;
};

static int list_one(void *p, const struct agent_key_row *k)
{
    struct list_ctx *l = p;
    struct arena *ar = l->rows.a;
    *(struct key_info *)app_rows_push(&l->rows) = (struct key_info){
        .id = arena_strdup(ar, k->id),
        .owner = arena_strdup(ar, k->owner),
        .name = arena_strdup(ar, k->name),
        .prefix = arena_strdup(ar, k->prefix),
        .scope = arena_strdup(ar, k->scope),
        .created_at = k->created_at,
        .expires_at = k->expires_at,
        .revoked_at = k->revoked_at,
        .last_used_at = k->last_used_at,
        .state = agent_key_state(l->now, k->expires_at, k->revoked_at, k->banned, k->scope),
    };
    return 0;
}

enum key_outcome key_list(const struct app_ctx *c, const char *owner_email, struct key_info **keys,
                          size_t *n)
{
    struct list_ctx l = {.rows = APP_ROWS_INIT(c->a, struct key_info), .now = c->now};
    int rc = agents_keys_each(c->s, owner_email, list_one, &l);
    *keys = l.rows.v;
    *n = rc < 0 ? 0 : l.rows.n;
    return rc < 0 ? app_unavailable(c, "keys", rc, "key list") : KEY_OK;
}
