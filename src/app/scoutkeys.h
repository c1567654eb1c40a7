#ifndef WHISTLE_APP_SCOUTKEYS_H
#define WHISTLE_APP_SCOUTKEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "domain/agentkey.h"
#include "store/scout.h"
#include "util/jsonw.h"

/*
 * Scout credentials (docs/scout.md, docs/desk.md "Scout credentials"): the one home of
 * their rules — name, budgets and their ranges, expiry, which changes a revoked credential
 * refuses — for `whistle scout-key` and the desk alike. Every change is one write
 * transaction that locks only the credential's row key and writes one audit record
 * (target kind "scout"); a refusal writes nothing. The secret is returned once, by
 * scoutkey_create, and never stored (only its SHA-256).
 */
enum scoutkey_outcome {
    SCOUTKEY_OK = 0,
    SCOUTKEY_INVALID, /* an input is wrong: message names it */
    SCOUTKEY_MISSING, /* no such credential */
    SCOUTKEY_REVOKED, /* the credential is revoked (a revoke: already) */
    /* APP_UNAVAILABLE */
};

/* The budgets, in this order everywhere (form fields, CLI options, JSON). */
enum {
    SCOUTKEY_X_DAY,
    SCOUTKEY_MODEL_DAY,
    SCOUTKEY_X_RUN,
    SCOUTKEY_MODEL_RUN,
    SCOUTKEY_RUN_SECONDS,
    SCOUTKEY_NBUDGETS
};

struct scoutkey_budget_field {
    const char *name;   /* the JSON and form name: x_per_day, … */
    const char *option; /* the CLI option: x-per-day, … */
    int64_t min, max;
};
extern const struct scoutkey_budget_field scoutkey_budget_fields[SCOUTKEY_NBUDGETS];

/* The budgets given (set[k]) among the five. */
struct scoutkey_budget {
    bool set[SCOUTKEY_NBUDGETS];
    int64_t v[SCOUTKEY_NBUDGETS];
};

/* The first budget of b outside its range (scoutkey_budget_fields[k].min..max), or -1 when
 * all are in range: callers name the field their own way (a form field, a CLI option). */
int scoutkey_budget_invalid(const struct scoutkey_budget *b);

/* A credential's name: 1..100 characters of valid UTF-8 without control characters. */
bool scoutkey_name_valid(const char *name);

#define SCOUTKEY_EXPIRES_DAYS_MAX 3650

struct scoutkey_new {
    struct scout_credential cred;
    char secret[AGENT_KEY_LEN + 1]; /* shown once; wipe with scoutkey_new_wipe */
};
void scoutkey_new_wipe(struct scoutkey_new *k);

/* Creates a credential named name (scoutkey_name_valid) with the default budgets overridden
 * by b, expiring after expires_days (0: never;
 * 1..SCOUTKEY_EXPIRES_DAYS_MAX). SCOUTKEY_OK with *out, SCOUTKEY_INVALID with *message. */
int scoutkey_create(const struct app_ctx *c, const char *name, const struct scoutkey_budget *b,
                    int64_t expires_days, struct scoutkey_new *out, const char **message);

enum scoutkey_change {
    SCOUTKEY_SET_BUDGET, /* b: at least one budget */
    SCOUTKEY_DISABLE,
    SCOUTKEY_ENABLE,
    SCOUTKEY_REVOKE,
};

/* Changes credential id (a normalized UUID); *out is the credential afterwards. */
int scoutkey_change(const struct app_ctx *c, const char *id, enum scoutkey_change what,
                    const struct scoutkey_budget *b, struct scout_credential *out,
                    const char **message);

/* Every credential, newest first, in c->a. */
int scoutkey_list(const struct app_ctx *c, struct scout_credential **out, size_t *n);

/* Writes the JSON object of a credential (never its secret or hash) with its state at now
 * into w, leaving the object open (the caller ends it with jw_obj_end). */
void scoutkey_json(struct jw *w, const struct scout_credential *c, int64_t now);

#endif
