#include "app/candidate.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "app/editorial.h"
#include "domain/research.h"
#include "research/pipeline.h"
#include "store/comments.h"
#include "store/research.h"
#include "util/buf.h"

/* Every store call a candidate's publication or rejection makes under the lead's key, with
 * placeholder arguments, for store_prepare_ahead (app.h). Nothing executes. */
static int candidate_statements(struct store *s, void *arg)
{
    static const char none[] = APP_PLACEHOLDER_ID;
    struct research_lead l;
    struct research_outcome o = {.status = none, .next_attempt_at = INT64_MIN};
    char name[128];
    int rc = research_lead_get(s, arg, none, &l);
    if (rc >= 0)
        rc = accounts_display_name(s, none, name, sizeof name);
    if (rc >= 0)
        rc = research_publish_statements(s, arg);
    if (rc >= 0)
        rc = research_set_outcome(s, none, NULL, &o, 0);
    if (rc >= 0)
        rc = research_event(s, none, 0, none, none, none, none, none);
    if (rc >= 0)
        rc = app_audit_ahead(s);
    return rc < 0 ? rc : 0;
}

/* A row write under the lead's key ("lead:<id>": its status is read then written, so two
 * editors never both publish or reject it); a publication takes the publication key too
 * (research_publish). Never the deployment's write lock. */
static int begin_on_lead(const struct app_ctx *c, const char *lead_id)
{
    const char *key = arena_printf(c->a, "lead:%s", lead_id);
    return app_begin_locked(c->s, candidate_statements, c->a, &key, 1);
}

/* Begins the write transaction under the lead's key (begin_on_lead), loads the lead and
 * checks it is a candidate: CANDIDATE_OK, another outcome with the message set, or a
 * negative store_rc (the caller rolls back). */
static int begin_load(const struct app_ctx *c, const char *id, struct research_lead *l,
                      struct candidate_result *r)
{
    int rc = begin_on_lead(c, id);
    if (rc >= 0)
        rc = research_lead_get(c->s, c->a, id, l);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        r->message = "no such lead";
        return CANDIDATE_MISSING;
    }
    if (research_is_candidate(l->status, l->candidate_at))
        return CANDIDATE_OK;
    r->message = arena_printf(c->a, "lead %s is not a candidate (status %s%s%s)", l->id, l->status,
                              l->reason ? ": " : "", l->reason ? l->reason : "");
    return CANDIDATE_NOT_CANDIDATE;
}

static const char *too_long(const char *name, const char *v, size_t max)
{
    if (v && (!*v || strlen(v) > max))
        return name;
    return NULL;
}

int candidate_publish(const struct app_ctx *c, const char *lead_id,
                      const struct candidate_publish_input *in, struct candidate_result *r)
{
    memset(r, 0, sizeof *r);
    const char *bad = too_long("title must be 1 to 300 bytes", in->title, 300);
    if (!bad)
        bad = too_long("description must be 1 to 5000 bytes", in->description, 5000);
    if (!bad)
        bad = too_long("summary must be 1 to 2000 bytes", in->summary, 2000);
    if (bad) {
        r->message = bad;
        return CANDIDATE_INVALID;
    }
    struct research_lead l;
    int rc = begin_load(c, lead_id, &l, r);
    if (rc != CANDIDATE_OK)
        goto out;
    /* the spec's provenance names the publishing editor by their display name */
    char name[128] = "";
    if (c->actor && strncmp(c->actor, "account:", 8) == 0 &&
        (rc = accounts_display_name(c->s, c->actor + 8, name, sizeof name)) < 0)
        goto out;
    struct research_publish_opts po = {
        .editor = name[0] ? name : NULL,
        .actor = c->actor ? c->actor : "operator",
        .title = in->title,
        .description = in->description,
        .summary = in->summary,
        .question = in->question,
    };
    rc = research_publish(c->s, c->a, &l, NULL, &po, c->now, r->incident_id);
    if (rc == 0) /* an operator holds no claim: only a lost race reads as 0 */
        rc = STORE_BUSY;
    char after[96];
    snprintf(after, sizeof after, "{\"status\":\"published\",\"incident_id\":\"%s\"}",
             r->incident_id);
    if (rc > 0 &&
        (rc = app_audit(c, "candidate.publish", "lead", l.id, "{\"status\":\"running\"}", after,
                        NULL)) >= 0 &&
        (rc = store_commit(c->s)) >= 0)
        return CANDIDATE_OK;
out:
    return app_rollback(c, rc, rc);
}

int candidate_reject(const struct app_ctx *c, const char *lead_id, const char *reason,
                     struct candidate_result *r)
{
    memset(r, 0, sizeof *r);
    if (!reason || !*reason || strlen(reason) > LEAD_REJECT_REASON_MAX) {
        r->message = "reason must be 1 to 500 bytes";
        return CANDIDATE_INVALID;
    }
    struct research_lead l;
    int rc = begin_load(c, lead_id, &l, r);
    if (rc != CANDIDATE_OK)
        goto out;
    static const char prefix[] = "rejected by an operator: ";
    static_assert(sizeof prefix - 1 + LEAD_REJECT_REASON_MAX <= LEAD_REASON_MAX,
                  "a rejection's reason fits leads.reason as the store reads it");
    char why[LEAD_REASON_MAX + 1];
    snprintf(why, sizeof why, "%s%s", prefix, reason);
    const char *rejected = lead_status_names[LEAD_STATUS_REJECTED];
    struct research_outcome o = {.status = rejected, .reason = why, .next_attempt_at = INT64_MIN};
    const char *actor = c->actor ? c->actor : "operator";
    if ((rc = research_set_outcome(c->s, l.id, NULL, &o, c->now)) == 1 &&
        (rc = research_event(c->s, l.id, c->now, "rejected", l.status, rejected, actor, why)) >=
            0 &&
        (rc = app_audit(c, "candidate.reject", "lead", l.id, "{\"status\":\"running\"}",
                        "{\"status\":\"rejected\"}", reason)) >= 0 &&
        (rc = store_commit(c->s)) >= 0)
        return CANDIDATE_OK;
    if (rc >= 0)
        rc = STORE_BUSY;
out:
    return app_rollback(c, rc, rc);
}
