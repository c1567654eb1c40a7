/*
 * Scout credentials (app/scoutkeys.h): create, change (budgets, disable, enable, revoke)
 * and list, each change with its audit record, for `whistle scout-key` and the desk.
 *
 * PostgreSQL write rule (ARCHITECTURE.md "Storage rules"): a change locks the credential's
 * own key ("scout-key:<id>", store_lock_key) inside a row write, so two admins changing the
 * same credential serialise while every other write runs on; a create inserts a fresh
 * UUID and needs no lock beyond its row.
 */
#include "app/scoutkeys.h"

#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "app/editorial.h"
#include "domain/scout.h"
#include "util/log.h"
#include "util/uuid.h"

const struct scoutkey_budget_field scoutkey_budget_fields[SCOUTKEY_NBUDGETS] = {
    {"x_per_day", "x-per-day", 0, SCOUT_BUDGET_MAX},
    {"model_micro_usd_per_day", "model-micro-usd-per-day", 0, SCOUT_BUDGET_MAX},
    {"x_per_run", "x-per-run", 0, SCOUT_BUDGET_MAX},
    {"model_micro_usd_per_run", "model-micro-usd-per-run", 0, SCOUT_BUDGET_MAX},
    {"run_seconds", "run-seconds", SCOUT_RUN_SECS_MIN, SCOUT_RUN_SECS_MAX},
};

int scoutkey_budget_invalid(const struct scoutkey_budget *b)
{
    for (int k = 0; b && k < SCOUTKEY_NBUDGETS; k++)
        if (b->set[k] &&
            (b->v[k] < scoutkey_budget_fields[k].min || b->v[k] > scoutkey_budget_fields[k].max))
            return k;
    return -1;
}

/* Why b is refused (naming the field as JSON and the desk do), or NULL. */
static const char *budget_refusal(const struct app_ctx *c, const struct scoutkey_budget *b)
{
    int k = scoutkey_budget_invalid(b);
    if (k < 0)
        return NULL;
    return arena_printf(c->a, "%s must be an integer from %lld to %lld",
                        scoutkey_budget_fields[k].name, (long long)scoutkey_budget_fields[k].min,
                        (long long)scoutkey_budget_fields[k].max);
}

void scoutkey_new_wipe(struct scoutkey_new *k)
{
    sodium_memzero(k->secret, sizeof k->secret);
}

static void apply(const struct scoutkey_budget *b, struct scout_credential *c)
{
    int64_t *fields[SCOUTKEY_NBUDGETS] = {&c->per_day[SCOUT_X], &c->per_day[SCOUT_MODEL],
                                          &c->per_run[SCOUT_X], &c->per_run[SCOUT_MODEL],
                                          &c->run_seconds};
    for (int k = 0; b && k < SCOUTKEY_NBUDGETS; k++)
        if (b->set[k])
            *fields[k] = b->v[k];
}

void scoutkey_json(struct jw *w, const struct scout_credential *c, int64_t now)
{
    const int64_t budgets[SCOUTKEY_NBUDGETS] = {c->per_day[SCOUT_X], c->per_day[SCOUT_MODEL],
                                                c->per_run[SCOUT_X], c->per_run[SCOUT_MODEL],
                                                c->run_seconds};
    jw_obj_begin(w);
    jw_kstr(w, "id", c->id);
    jw_kstr(w, "name", c->name);
    jw_kstr(w, "prefix", c->prefix);
    jw_kstr(w, "state",
            scout_credential_state_name(
                scout_credential_state(now, c->expires_at, c->revoked_at, c->disabled)));
    for (int k = 0; k < SCOUTKEY_NBUDGETS; k++)
        jw_kint(w, scoutkey_budget_fields[k].name, budgets[k]);
    jw_ktime(w, "created_at", c->created_at);
    jw_ktime(w, "expires_at", c->expires_at);
    jw_ktime(w, "revoked_at", c->revoked_at);
    jw_ktime(w, "last_used_at", c->last_used_at);
}

/* The audit form of a credential: its settings and state at now, in the arena. */
static const char *audit_json(const struct app_ctx *c, const struct scout_credential *k)
{
    struct buf b = BUF_INIT;
    struct jw w;
    jw_init(&w, &b);
    scoutkey_json(&w, k, c->now);
    jw_obj_end(&w);
    const char *s = arena_strdup(c->a, b.p);
    buf_release(&b);
    return s;
}

/* argv and forms are checked by no one else: valid UTF-8 here too */
bool scoutkey_name_valid(const char *s)
{
    json_t *utf8 = s ? json_string(s) : NULL; /* NULL for invalid UTF-8 */
    bool ok = utf8 && scout_key_valid(s);
    json_decref(utf8);
    return ok;
}

int scoutkey_create(const struct app_ctx *c, const char *name, const struct scoutkey_budget *b,
                    int64_t expires_days, struct scoutkey_new *out, const char **message)
{
    memset(out, 0, sizeof *out);
    *message = NULL;
    if (!scoutkey_name_valid(name)) {
        *message = "name must be 1 to 100 characters without control characters";
        return SCOUTKEY_INVALID;
    }
    *message = budget_refusal(c, b);
    if (*message)
        return SCOUTKEY_INVALID;
    if (expires_days < 0 || expires_days > SCOUTKEY_EXPIRES_DAYS_MAX) {
        *message = "expires_days must be from 1 to 3650 (or empty: never)";
        return SCOUTKEY_INVALID;
    }
    struct scout_credential *k = &out->cred;
    *k = (struct scout_credential){
        .per_day = {SCOUT_DEFAULT_X_PER_DAY, SCOUT_DEFAULT_MODEL_PER_DAY},
        .per_run = {SCOUT_DEFAULT_X_PER_RUN, SCOUT_DEFAULT_MODEL_PER_RUN},
        .run_seconds = SCOUT_DEFAULT_RUN_SECONDS,
        .created_at = c->now,
        .expires_at = expires_days ? c->now + expires_days * SCOUT_DAY_US : INT64_MIN,
        .revoked_at = INT64_MIN,
        .last_used_at = INT64_MIN,
    };
    apply(b, k);
    char hash[AGENT_KEY_HASH_HEX + 1];
    uuid_v4(k->id);
    snprintf(k->name, sizeof k->name, "%s", name);
    credential_generate(SCOUT_KEY_PREFIX, out->secret, hash);
    memcpy(k->prefix, out->secret, AGENT_KEY_SHOWN);
    k->prefix[AGENT_KEY_SHOWN] = '\0';
    const char *after = audit_json(c, k); /* built before the transaction opens */
    int rc = store_begin_row_write(c->s);
    if (rc >= 0)
        rc = scout_credential_insert(c->s, k, hash);
    if (rc >= 0)
        rc = app_audit(c, "scout.create", "scout", k->id, NULL, after, NULL);
    rc = app_commit(c, "scout-keys", rc, "create");
    if (rc < 0) {
        scoutkey_new_wipe(out);
        return rc;
    }
    return SCOUTKEY_OK;
}

/* Every store call a change makes under its credential's lock, with placeholder arguments:
 * store_prepare_ahead runs it before the transaction, so that on PostgreSQL no statement is
 * prepared while the lock is held (app.h). Nothing executes; lookups find nothing. */
static int change_statements(struct store *s, void *arg)
{
    (void)arg;
    static const char none[] = APP_PLACEHOLDER_ID;
    struct scout_credential k = {.id = APP_PLACEHOLDER_ID};
    int rc = scout_credential_by_id(s, none, &k);
    if (rc >= 0)
        rc = scout_credential_revoke(s, none, 0);
    if (rc >= 0)
        rc = scout_credential_update(s, &k);
    if (rc >= 0)
        rc = app_audit_ahead(s);
    return rc < 0 ? rc : 0;
}

static const char *const change_action[] = {"scout.set_budget", "scout.disable", "scout.enable",
                                            "scout.revoke"};

int scoutkey_change(const struct app_ctx *c, const char *id, enum scoutkey_change what,
                    const struct scoutkey_budget *b, struct scout_credential *out,
                    const char **message)
{
    *message = NULL;
    memset(out, 0, sizeof *out);
    if (what == SCOUTKEY_SET_BUDGET) {
        bool any = false;
        for (int k = 0; b && k < SCOUTKEY_NBUDGETS; k++)
            any = any || b->set[k];
        if (!any) {
            *message = "give at least one budget to change";
            return SCOUTKEY_INVALID;
        }
        *message = budget_refusal(c, b);
        if (*message)
            return SCOUTKEY_INVALID;
    }
    char lock[64];
    snprintf(lock, sizeof lock, "scout-key:%s", id);
    store_prepare_ahead(c->s, change_statements, NULL);
    int rc = store_begin_row_write(c->s), result = SCOUTKEY_OK;
    if (rc >= 0)
        rc = store_lock_key(c->s, lock);
    if (rc >= 0)
        rc = scout_credential_by_id(c->s, id, out);
    if (rc == 0) {
        *message = arena_printf(c->a, "no scout credential %s", id);
        result = SCOUTKEY_MISSING;
    } else if (rc > 0 && out->revoked_at != INT64_MIN) {
        *message = arena_printf(c->a, "scout credential %s is %s", id,
                                what == SCOUTKEY_REVOKE ? "already revoked" : "revoked");
        result = SCOUTKEY_REVOKED;
    }
    if (rc <= 0 || result != SCOUTKEY_OK) {
        store_rollback(c->s);
        return rc < 0 ? app_unavailable(c, "scout-keys", rc, "change") : result;
    }
    const char *before = audit_json(c, out);
    if (what == SCOUTKEY_REVOKE) {
        rc = scout_credential_revoke(c->s, id, c->now);
        out->revoked_at = c->now;
    } else {
        if (what == SCOUTKEY_SET_BUDGET)
            apply(b, out);
        else
            out->disabled = what == SCOUTKEY_DISABLE;
        rc = scout_credential_update(c->s, out);
    }
    if (rc >= 0)
        rc = app_audit(c, change_action[what], "scout", id, before, audit_json(c, out), NULL);
    return app_commit(c, "scout-keys", rc, change_action[what]) < 0 ? APP_UNAVAILABLE : SCOUTKEY_OK;
}

static int list_one(void *rows, const struct scout_credential *k)
{
    *(struct scout_credential *)app_rows_push(rows) = *k;
    return 0;
}

int scoutkey_list(const struct app_ctx *c, struct scout_credential **out, size_t *n)
{
    struct app_rows l = APP_ROWS_INIT(c->a, struct scout_credential);
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = scout_credentials_each(c->s, list_one, &l);
    store_rollback(c->s);
    *out = l.v;
    *n = l.n;
    return rc < 0 ? APP_UNAVAILABLE : SCOUTKEY_OK;
}
