/*
 * POST /api/v1/agent-leads and GET /api/v1/agent-leads/{id} (api-v1.md; docs/agents.md).
 * A lead is accepted for validation only: it is never a verdict. Everything a request
 * writes (lead, idempotency record, key use) is one transaction, committed before the 202.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "app/lead.h"
#include "domain/lead.h"
#include "domain/quota.h"
#include "store/agents.h"
#include "util/jsonw.h"
#include "util/uuid.h"

/* The preamble of both agent endpoints: the use-case context, no query string, a valid
 * agent key. Answers the request itself and returns -1 when one of them fails. */
static int agent_request(struct request *req, struct app_ctx *c, struct agent_auth *auth)
{
    if (api_ctx(req, c) < 0 || api_no_query(req) < 0)
        return -1;
    const char *why = NULL;
    switch (agent_authenticate(c, http_header(req, "Authorization"), auth, &why)) {
    case AGENT_AUTH_OK:
        return 0;
    case AGENT_AUTH_MISSING:
        reply_header(req, "WWW-Authenticate", "Bearer realm=\"whistle\"");
        reply_error_code(req, 401, ERR_INVALID_CREDENTIAL,
                         "an agent key is required: Authorization: Bearer wk_…");
        return -1;
    case AGENT_AUTH_REFUSED:
        reply_error_code(req, 403, ERR_INVALID_CREDENTIAL, "%s", why);
        return -1;
    default:
        reply_unavailable(req);
        return -1;
    }
}

static const char *lead_url(struct request *req, const char *id)
{
    struct buf b = BUF_INIT;
    buf_printf(&b, "%s/api/v1/agent-leads/%s", req->cfg->base_url, id);
    const char *url = arena_strdup(&req->arena, b.p);
    buf_release(&b);
    return url;
}

/* RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers). */
static void ratelimit_headers(struct request *req, const struct quota_decision *d)
{
    struct buf b = BUF_INIT;
    for (int k = 0; k < QUOTA_COUNT; k++)
        buf_printf(&b, "%s\"%s\";q=%lld;w=%lld", k ? ", " : "", quota_rules[k].name,
                   (long long)req->cfg->limits->lead_quota[k],
                   (long long)(quota_rules[k].window_us / 1000000));
    reply_header(req, "RateLimit-Policy", arena_strdup(&req->arena, b.p));
    buf_reset(&b);
    buf_printf(&b, "\"%s\";r=%lld;t=%lld", quota_rules[d->tightest].name, (long long)d->remaining,
               (long long)d->reset_s);
    reply_header(req, "RateLimit", arena_strdup(&req->arena, b.p));
    buf_release(&b);
}

static void receipt(struct request *req, const char *id, const struct quota_decision *d)
{
    const char *self = lead_url(req, id);
    struct jw w;
    api_data_begin(req, &w);
    jw_obj_begin(&w);
    jw_kstr(&w, "id", id);
    jw_kstr(&w, "status", "accepted_for_validation");
    jw_key(&w, "links");
    jw_obj_begin(&w);
    jw_kstr(&w, "self", self);
    jw_obj_end(&w);
    jw_obj_end(&w);
    reply_header(req, "Location", self);
    ratelimit_headers(req, d);
    api_data_end(req, &w, 202);
}

void api_leads_submit(struct request *req)
{
    struct app_ctx c;
    struct agent_auth auth;
    if (agent_request(req, &c, &auth) < 0)
        return;
    /* the Idempotency-Key is checked before the body's type (the spec's order of errors) */
    const char *idem = http_header(req, "Idempotency-Key");
    if (idem && lead_idempotency_key_valid(idem) && !api_json_content_type(req)) {
        reply_error(req, 400, "Content-Type must be application/json");
        return;
    }
    struct lead_receipt r;
    int rc = lead_submit(&c, req->cfg->limits, &auth, idem, req->body.p, req->body.len, &r);
    switch (rc) {
    case LEAD_ACCEPTED:
    case LEAD_REPLAYED:
        receipt(req, r.lead_id, &r.quota);
        return;
    case LEAD_INVALID:
    case LEAD_UNKNOWN_GAME:
        reply_error(req, 400, "%s", r.message);
        return;
    case LEAD_IDEM_CONFLICT:
        reply_error_code(req, 409, ERR_IDEMPOTENCY_CONFLICT, "%s", r.message);
        return;
    case LEAD_QUOTA_EXCEEDED: {
        char retry[24];
        snprintf(retry, sizeof retry, "%lld", (long long)r.quota.retry_after_s);
        reply_header(req, "Retry-After", arena_strdup(&req->arena, retry));
        ratelimit_headers(req, &r.quota);
        const struct quota_rule *q = &quota_rules[r.quota.exceeded];
        reply_error_code(req, 429, ERR_QUOTA_EXCEEDED,
                         "quota reached: the %s limit of %lld leads %s; retry in %lld s", q->who,
                         (long long)req->cfg->limits->lead_quota[r.quota.exceeded], q->span,
                         (long long)r.quota.retry_after_s);
        return;
    }
    default:
        reply_unavailable(req);
        return;
    }
}

void api_leads_get(struct request *req)
{
    struct app_ctx c;
    struct agent_auth auth;
    if (agent_request(req, &c, &auth) < 0)
        return;
    char id[UUID_STR_LEN + 1];
    if (uuid_normalize(req->param, id) < 0) {
        reply_error(req, 400, "lead id must be a UUID");
        return;
    }
    struct lead_status l;
    int rc = lead_status_read(&c, &auth, id, &l);
    if (rc < 0) {
        reply_unavailable(req);
        return;
    }
    if (rc == 0) {
        reply_error(req, 404, "no lead %s for this agent", id);
        return;
    }
    struct jw w;
    api_data_begin(req, &w);
    jw_obj_begin(&w);
    jw_kstr(&w, "id", l.id);
    jw_kstr(&w, "game_id", l.game_id);
    jw_ktime(&w, "created_at", l.created_at);
    jw_kstr(&w, "status", l.status);
    jw_ktime(&w, "updatedAt", l.updated_at);
    jw_kstr_or_null(&w, "incidentId", l.incident_id);
    /* reason: a Whistle extension, docs/api-decisions.md */
    jw_kstr(&w, "reason", lead_public_reason(l.status, l.reason));
    jw_obj_end(&w);
    api_data_end(req, &w, 200);
}
