#ifndef WHISTLE_APP_DESK_H
#define WHISTLE_APP_DESK_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "domain/model.h"
#include "store/accounts.h"
#include "store/audit.h"
#include "store/incidents.h"
#include "store/research.h"

/*
 * The reads of the editorial desk (docs/desk.md): who may use it, the leads waiting for an
 * editor (or that failed a gate), one lead's full record, incidents to edit, one incident
 * with everything an editor changes, and the audit log. Each is one read transaction; the
 * writes are the use cases of app/editorial.h, app/candidate.h, app/accounts.h and
 * app/comments.h. Every function returns APP_OK or APP_UNAVAILABLE; results live in c->a.
 */

/* The account's desk role: "admin", "editor" or NULL (none; a banned account has none). */
int desk_role(const struct app_ctx *c, const char *account_id, bool banned, const char **role);

/* Leads with status ("candidate": researched leads waiting for an editor; "failed",
 * "rejected", …), newest first, at most limit. */
int desk_leads(const struct app_ctx *c, const char *status, int limit, struct research_lead **out,
               size_t *n);

struct desk_lead {
    struct research_lead lead;
    bool found, candidate;
    struct research_fetch_row *fetches;
    size_t nfetches;
    struct research_event_row *events;
    size_t nevents;
    struct audit_record *audit;
    size_t naudit;
};
int desk_lead(const struct app_ctx *c, const char *id, struct desk_lead *out);

/* Published incidents matching f (its limit and offset) whose title contains text
 * (case-insensitive; NULL or "" any). */
int desk_incidents(const struct app_ctx *c, const struct incident_filter *f, const char *text,
                   struct incident **out, size_t *n, bool *more);

struct desk_incident {
    bool found;
    struct incident inc;
    struct source *sources;
    size_t nsources;
    struct question *questions; /* every version, ascending */
    size_t nquestions;
    int64_t ballots; /* on the current question version: archived by a new version */
    struct audit_record *audit;
    size_t naudit;
};
int desk_incident(const struct app_ctx *c, const char *id, struct desk_incident *out);

/* ---- accounts (admin) ---- */

/* Accounts whose email contains text (NULL: all), newest first, at most limit. */
int desk_accounts(const struct app_ctx *c, const char *text, int64_t limit,
                  struct account_row **out, size_t *n);

struct desk_account {
    bool found;
    struct account_row account; /* without its password hash */
    char display_name[128];     /* "" when none */
    bool moderator, editor, admin;
    struct audit_record *audit;
    size_t naudit;
};
int desk_account(const struct app_ctx *c, const char *id, struct desk_account *out);

/* ---- lead quotas in use (domain/quota.h is the rule) ---- */

/* One agent key with leads in the last day: the key's own leads in each per-agent window
 * and its agent's (the account's, which the limit counts) beside the quotas' amounts. */
struct desk_quota {
    const char *key_id, *key_name, *key_prefix, *owner, *account_id;
    int64_t key_used[2];   /* QUOTA_AGENT_MINUTE, QUOTA_AGENT_DAY */
    int64_t agent_used[2]; /* the same windows, every key of the agent */
};
/* The keys with leads in the last day (busiest first, at most limit) and the all-agents
 * daily count (QUOTA_GLOBAL_DAY) at c->now. */
int desk_quotas(const struct app_ctx *c, int64_t limit, struct desk_quota **out, size_t *n,
                int64_t *global_day);

/* The audit log, newest first, optionally of one target kind, target id and action (each
 * NULL: any). */
int desk_audit(const struct app_ctx *c, const char *target_kind, const char *target_id,
               const char *action, int64_t limit, int64_t offset, struct audit_record **out,
               size_t *n);

#endif
