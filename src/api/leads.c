/*
 * POST /api/v1/agent-leads and GET /api/v1/agent-leads/{id} (api-v1.md; docs/agents.md).
 * A lead is accepted for validation only: it is never a verdict. Everything a request
 * writes (lead, idempotency record, key use) is one transaction, committed before the 202.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "domain/agentkey.h"
#include "domain/lead.h"
#include "domain/quota.h"
#include "store/admin.h"
#include "store/agents.h"
#include "util/jsonw.h"
#include "util/log.h"
#include "util/timefmt.h"
#include "util/uuid.h"

/* Checks the Bearer agent key. Answers 401/403/503 itself and returns -1 on failure. */
static int authenticate(struct request *req, int64_t now, struct store *s, struct agent_auth *a)
{
    const char *h = http_header(req, "Authorization");
    if (!h || strncasecmp(h, "Bearer ", 7) != 0) {
        reply_header(req, "WWW-Authenticate", "Bearer realm=\"whistle\"");
        reply_error_code(req, 401, ERR_INVALID_CREDENTIAL,
                         "an agent key is required: Authorization: Bearer wk_…");
        return -1;
    }
    const char *key = h + 7;
    while (*key == ' ')
        key++;
    if (strncmp(key, SCOUT_KEY_PREFIX, 3) == 0) {
        reply_error_code(req, 403, ERR_INVALID_CREDENTIAL,
                         "a scout credential (ws_…) works only on the scout interface; the agent "
                         "endpoints need an agent key (wk_…)");
        return -1;
    }
    if (!agent_key_well_formed(key)) {
        reply_error_code(req, 403, ERR_INVALID_CREDENTIAL,
                         "the agent key is malformed (wrong prefix, length or checksum)");
        return -1;
    }
    char hash[AGENT_KEY_HASH_HEX + 1];
    agent_key_hash(key, hash);
    int rc = agents_key_by_hash(s, hash, a);
    if (rc < 0) {
        api_store_failed(req, rc);
        return -1;
    }
    if (rc == 0) {
        reply_error_code(req, 403, ERR_INVALID_CREDENTIAL, "the agent key is not valid");
        return -1;
    }
    enum agent_key_state st =
        agent_key_state(now, a->expires_at, a->revoked_at, a->banned, a->scope);
    if (st != AGENT_KEY_ACTIVE) {
        static const char *const why[] = {
            [AGENT_KEY_REVOKED] = "the agent key has been revoked",
            [AGENT_KEY_EXPIRED] = "the agent key has expired (keys last 90 days)",
            [AGENT_KEY_BANNED] = "the account that owns this agent key is banned",
            [AGENT_KEY_UNSCOPED] = "the agent key does not have the submit_lead scope",
        };
        reply_error_code(req, 403, ERR_INVALID_CREDENTIAL, "%s", why[st]);
        return -1;
    }
    return 0;
}

/* The preamble of both agent endpoints: the thread's connection, no query string, a valid
 * agent key. Answers the request itself and returns -1 when one of them fails. */
static int agent_request(struct request *req, int64_t now, struct store **s,
                         struct agent_auth *auth)
{
    *s = store_thread();
    if (!*s) {
        reply_unavailable(req);
        return -1;
    }
    if (api_no_query(req) < 0 || authenticate(req, now, *s, auth) < 0)
        return -1;
    return 0;
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
                   (long long)quota_rules[k].max, (long long)(quota_rules[k].window_us / 1000000));
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
    jw_init(&w, &req->out);
    jw_obj_begin(&w);
    jw_key(&w, "data");
    jw_obj_begin(&w);
    jw_key(&w, "id");
    jw_str(&w, id);
    jw_key(&w, "status");
    jw_str(&w, "accepted_for_validation");
    jw_key(&w, "links");
    jw_obj_begin(&w);
    jw_key(&w, "self");
    jw_str(&w, self);
    jw_obj_end(&w);
    jw_obj_end(&w);
    jw_obj_end(&w);
    reply_header(req, "Location", self);
    ratelimit_headers(req, d);
    reply_json(req, 202);
}

void api_leads_submit(struct request *req)
{
    int64_t now = time_now_us();
    struct store *s;
    struct agent_auth auth;
    if (agent_request(req, now, &s, &auth) < 0)
        return;
    const char *idem = http_header(req, "Idempotency-Key");
    if (!idem) {
        reply_error(req, 400, "the Idempotency-Key header is required");
        return;
    }
    if (!lead_idempotency_key_valid(idem)) {
        reply_error(req, 400, "Idempotency-Key must be 8 to 128 characters of a-z A-Z 0-9 _ . : -");
        return;
    }
    if (!api_json_content_type(req)) {
        reply_error(req, 400, "Content-Type must be application/json");
        return;
    }
    char err[400];
    struct lead_input in;
    if (lead_parse(req->body.p ? req->body.p : "", req->body.len, &in, err, sizeof err) < 0) {
        reply_error(req, 400, "%s", err);
        return;
    }

    char found_fp[65], lead_id[ID_LEN];
    struct quota_usage usage;
    struct quota_decision d;
    int rc = store_begin_write(s);
    if (rc < 0)
        goto failed;
    /* read the clock again under the write lock: acceptance times then follow commit order,
     * so no lead committed before this one can look younger than it */
    now = time_now_us();
    /* the idempotency lookup comes first: a replay is answered even past the quota */
    rc = leads_idempotency_find(s, auth.account_id, idem, now - LEAD_IDEMPOTENCY_RETENTION_US,
                                found_fp, lead_id);
    if (rc < 0)
        goto failed;
    if (rc == 1) {
        if (strcmp(found_fp, in.fingerprint) != 0) {
            store_rollback(s);
            reply_error_code(req, 409, ERR_IDEMPOTENCY_CONFLICT,
                             "Idempotency-Key %s was used with a different payload for lead %s",
                             idem, lead_id);
            goto out;
        }
        if ((rc = leads_quota_usage(s, auth.account_id, now, &usage)) < 0 ||
            (rc = agents_key_touch(s, auth.key_id, now)) < 0 || (rc = store_commit(s)) < 0)
            goto failed;
        d = quota_decide(&usage, now);
        d.remaining = d.exceeded >= 0 ? 0 : d.remaining + 1; /* a replay takes nothing */
        receipt(req, lead_id, &d);
        goto out;
    }
    rc = admin_game_exists(s, in.game_id);
    if (rc < 0)
        goto failed;
    if (rc == 0) {
        store_rollback(s);
        reply_error(req, 400, "game_id %.255s names no game (see GET /api/v1/games/{id})",
                    in.game_id);
        goto out;
    }
    rc = leads_quota_usage(s, auth.account_id, now, &usage);
    if (rc < 0)
        goto failed;
    d = quota_decide(&usage, now);
    if (d.exceeded >= 0) {
        store_rollback(s);
        char retry[24];
        snprintf(retry, sizeof retry, "%lld", (long long)d.retry_after_s);
        reply_header(req, "Retry-After", arena_strdup(&req->arena, retry));
        ratelimit_headers(req, &d);
        reply_error_code(req, 429, ERR_QUOTA_EXCEEDED, "quota reached: the %s; retry in %lld s",
                         quota_rules[d.exceeded].label, (long long)d.retry_after_s);
        goto out;
    }
    uuid_v4(lead_id);
    struct lead_row row = {
        .id = lead_id,
        .account_id = auth.account_id,
        .key_id = auth.key_id,
        .game_id = in.game_id,
        .description = in.description,
        .source_urls_json = in.source_urls_json,
        .clock = in.clock,
        .category = in.category,
        .period = in.period,
        .has_confidence = in.has_confidence,
        .confidence = in.confidence,
        .created_at = now,
    };
    /* forget this agent's expired records first: a key reused after the retention period
     * starts a new lead under the same (account, key) primary key */
    if ((rc = leads_idempotency_prune(s, auth.account_id, now - LEAD_IDEMPOTENCY_RETENTION_US)) <
            0 ||
        (rc = leads_insert(s, &row)) < 0 ||
        (rc = leads_idempotency_insert(s, auth.account_id, idem, in.fingerprint, lead_id, now)) <
            0 ||
        (rc = agents_key_touch(s, auth.key_id, now)) < 0 || (rc = store_commit(s)) < 0)
        goto failed;
    log_info("leads", "accepted lead %s game %.64s rid=%s", lead_id, in.game_id, req->id);
    receipt(req, lead_id, &d);
    goto out;
failed:
    store_rollback(s);
    api_store_failed(req, rc);
out:
    lead_input_release(&in);
}

void api_leads_get(struct request *req)
{
    int64_t now = time_now_us();
    struct store *s;
    struct agent_auth auth;
    if (agent_request(req, now, &s, &auth) < 0)
        return;
    char id[UUID_STR_LEN + 1];
    if (uuid_normalize(req->param, id) < 0) {
        reply_error(req, 400, "lead id must be a UUID");
        return;
    }
    struct lead_status l;
    int rc = leads_get(s, id, auth.account_id, &l);
    if (rc < 0) {
        api_store_failed(req, rc);
        return;
    }
    if (rc == 0) {
        reply_error(req, 404, "no lead %s for this agent", id);
        return;
    }
    struct jw w;
    jw_init(&w, &req->out);
    jw_obj_begin(&w);
    jw_key(&w, "data");
    jw_obj_begin(&w);
    jw_key(&w, "id");
    jw_str(&w, l.id);
    jw_key(&w, "game_id");
    jw_str(&w, l.game_id);
    jw_key(&w, "created_at");
    jw_time(&w, l.created_at);
    jw_key(&w, "status");
    jw_str(&w, l.status);
    jw_key(&w, "updatedAt");
    jw_time(&w, l.updated_at);
    jw_key(&w, "incidentId");
    jw_str(&w, l.incident_id[0] ? l.incident_id : NULL);
    jw_obj_end(&w);
    jw_obj_end(&w);
    reply_json(req, 200);
}
