#include "app/desk.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "domain/quota.h"
#include "store/agents.h"
#include "store/comments.h"
#include "store/incidents.h"

int desk_role(const struct app_ctx *c, const char *account_id, bool banned, const char **role)
{
    *role = NULL;
    if (banned)
        return APP_OK;
    int rc = store_begin_read(c->s);
    if (rc >= 0 && (rc = account_roles_has(c->s, account_id, "admin")) == 1)
        *role = "admin";
    else if (rc >= 0 && (rc = account_roles_has(c->s, account_id, "editor")) == 1)
        *role = "editor";
    return app_rollback(c, rc, APP_OK);
}

static int lead_one(void *rows, const struct research_lead *l)
{
    *(struct research_lead *)app_rows_push(rows) = *l;
    return 0;
}

int desk_leads(const struct app_ctx *c, const char *status, int limit, struct research_lead **out,
               size_t *n)
{
    struct app_rows L = APP_ROWS_INIT(c->a, struct research_lead);
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = research_leads_each(c->s, c->a, status, limit, lead_one, &L);
    *out = L.v;
    *n = L.n;
    return app_rollback(c, rc, APP_OK);
}

static int fetch_one(void *rows, const struct research_fetch_row *r)
{
#define FETCH_TEXT(m) offsetof(struct research_fetch_row, m)
    static const size_t texts[] = {FETCH_TEXT(url),          FETCH_TEXT(final_url),
                                   FETCH_TEXT(content_type), FETCH_TEXT(title),
                                   FETCH_TEXT(publisher),    FETCH_TEXT(content_hash),
                                   FETCH_TEXT(domain),       FETCH_TEXT(error)};
#undef FETCH_TEXT
    app_rows_copy(rows, r, texts, sizeof texts / sizeof *texts);
    return 0;
}

static int event_one(void *rows, const struct research_event_row *r)
{
#define EVENT_TEXT(m) offsetof(struct research_event_row, m)
    static const size_t texts[] = {EVENT_TEXT(event), EVENT_TEXT(from_status),
                                   EVENT_TEXT(to_status), EVENT_TEXT(actor), EVENT_TEXT(reason)};
#undef EVENT_TEXT
    app_rows_copy(rows, r, texts, sizeof texts / sizeof *texts);
    return 0;
}

int desk_lead(const struct app_ctx *c, const char *id, struct desk_lead *out)
{
    memset(out, 0, sizeof *out);
    struct app_rows fetches = APP_ROWS_INIT(c->a, struct research_fetch_row),
                    events = APP_ROWS_INIT(c->a, struct research_event_row);
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = research_lead_get(c->s, c->a, id, &out->lead);
    if (rc == 1) {
        out->found = true;
        out->candidate =
            strcmp(out->lead.status, "running") == 0 && out->lead.candidate_at != INT64_MIN;
        if ((rc = research_fetches_each(c->s, id, fetch_one, &fetches)) >= 0 &&
            (rc = research_events_each(c->s, id, event_one, &events)) >= 0)
            rc = audit_list(c->s, c->a, "lead", id, NULL, 200, 0, &out->audit, &out->naudit);
    }
    out->fetches = fetches.v;
    out->nfetches = fetches.n;
    out->events = events.v;
    out->nevents = events.n;
    return app_rollback(c, rc, APP_OK);
}

int desk_incidents(const struct app_ctx *c, const struct incident_filter *f, const char *text,
                   struct incident **out, size_t *n, bool *more)
{
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = incidents_list(c->s, c->a, f, out, n, more);
    if (rc >= 0 && text && *text) {
        size_t k = 0, tl = strlen(text);
        for (size_t i = 0; i < *n; i++) {
            const char *t = (*out)[i].title;
            bool hit = false;
            for (size_t j = 0; t && t[j] && !hit; j++)
                hit = strncasecmp(t + j, text, tl) == 0;
            if (hit)
                (*out)[k++] = (*out)[i];
        }
        *n = k;
    }
    return app_rollback(c, rc, APP_OK);
}

int desk_incident(const struct app_ctx *c, const char *id, struct desk_incident *out)
{
    memset(out, 0, sizeof *out);
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = incidents_get(c->s, c->a, id, &out->inc);
    if (rc == 1) {
        out->found = true;
        rc = incidents_sources(c->s, c->a, id, &out->sources, &out->nsources);
        if (rc >= 0)
            rc = incidents_questions(c->s, c->a, id, &out->questions, &out->nquestions);
        if (rc >= 0 && out->inc.has_question) {
            struct votes v;
            rc = incidents_tallies(c->s, id, out->inc.question.version, &v);
            for (size_t k = 0; rc >= 0 && k < ROOTING_COUNT; k++)
                out->ballots +=
                    v.by_rooting[k].correct + v.by_rooting[k].incorrect + v.by_rooting[k].unsure;
        }
        if (rc >= 0)
            rc = audit_list(c->s, c->a, "incident", id, NULL, 500, 0, &out->audit, &out->naudit);
    }
    return app_rollback(c, rc, APP_OK);
}

int desk_audit(const struct app_ctx *c, const char *target_kind, const char *target_id,
               const char *action, int64_t limit, int64_t offset, struct audit_record **out,
               size_t *n)
{
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = audit_list(c->s, c->a, target_kind, target_id, action, limit, offset, out, n);
    return app_rollback(c, rc, APP_OK);
}

int desk_accounts(const struct app_ctx *c, const char *text, int64_t limit,
                  struct account_row **out, size_t *n)
{
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = accounts_search(c->s, c->a, text, limit, out, n);
    return app_rollback(c, rc, APP_OK);
}

int desk_account(const struct app_ctx *c, const char *id, struct desk_account *out)
{
    memset(out, 0, sizeof *out);
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = accounts_by_id(c->s, id, &out->account);
    if (rc == 1) {
        out->found = true;
        out->account.password_hash[0] = '\0';
        bool *has[] = {&out->moderator, &out->editor, &out->admin};
        const char *roles[] = {"moderator", "editor", "admin"};
        rc = accounts_display_name(c->s, id, out->display_name, sizeof out->display_name);
        for (size_t k = 0; rc >= 0 && k < 3; k++)
            if ((rc = account_roles_has(c->s, id, roles[k])) >= 0)
                *has[k] = rc == 1;
        if (rc >= 0)
            rc = audit_list(c->s, c->a, "account", id, NULL, 200, 0, &out->audit, &out->naudit);
    }
    return app_rollback(c, rc, APP_OK);
}

static int quota_one(void *rows, const struct lead_quota_row *r)
{
    struct arena *a = ((struct app_rows *)rows)->a;
    *(struct desk_quota *)app_rows_push(rows) =
        (struct desk_quota){.key_id = arena_strdup(a, r->key_id),
                            .key_name = arena_strdup(a, r->key_name),
                            .key_prefix = arena_strdup(a, r->key_prefix),
                            .owner = arena_strdup(a, r->owner),
                            .account_id = arena_strdup(a, r->account_id),
                            .key_used = {r->minute, r->day}};
    return 0;
}

int desk_quotas(const struct app_ctx *c, int64_t limit, struct desk_quota **out, size_t *n,
                int64_t *global_day)
{
    struct app_rows Q = APP_ROWS_INIT(c->a, struct desk_quota);
    struct quota_usage u = {0};
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = leads_quota_each(c->s, quota_window_start(QUOTA_AGENT_MINUTE, c->now),
                              quota_window_start(QUOTA_AGENT_DAY, c->now), limit, quota_one, &Q);
    /* the all-agents window as the quota counts it (no account has the empty id) */
    if (rc >= 0)
        rc = leads_quota_usage(c->s, "", c->now, &u);
    /* an agent's use is the sum over its keys: the limit counts the account */
    struct desk_quota *v = Q.v;
    for (size_t i = 0; i < Q.n; i++)
        for (size_t j = 0; j < Q.n; j++)
            if (strcmp(v[i].account_id, v[j].account_id) == 0)
                for (int w = 0; w < 2; w++)
                    v[i].agent_used[w] += v[j].key_used[w];
    *out = v;
    *n = Q.n;
    *global_day = u.count[QUOTA_GLOBAL_DAY];
    return app_rollback(c, rc, APP_OK);
}
