#include "app/lead.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "domain/agentkey.h"
#include "domain/lead.h"
#include "store/admin.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/timefmt.h"
#include "util/uuid.h"

int agent_authenticate(const struct app_ctx *c, const char *bearer, struct agent_auth *out,
                       const char **why)
{
    static const char *const unread[] = {
        [BEARER_FOREIGN] = "a scout credential (ws_…) works only on the scout interface; the "
                           "agent endpoints need an agent key (wk_…)",
        [BEARER_MALFORMED] = "the agent key is malformed (wrong prefix, length or checksum)",
    };
    *why = NULL;
    char hash[AGENT_KEY_HASH_HEX + 1];
    enum bearer_read got = bearer_credential(bearer, AGENT_KEY_PREFIX, SCOUT_KEY_PREFIX, hash);
    if (got == BEARER_NONE)
        return AGENT_AUTH_MISSING;
    if (got != BEARER_WELL_FORMED) {
        *why = unread[got];
        return AGENT_AUTH_REFUSED;
    }
    int rc = agents_key_by_hash(c->s, hash, out);
    if (rc < 0)
        return APP_UNAVAILABLE;
    if (rc == 0) {
        *why = "the agent key is not valid";
        return AGENT_AUTH_REFUSED;
    }
    static const char *const refused[] = {
        [AGENT_KEY_REVOKED] = "the agent key has been revoked",
        [AGENT_KEY_EXPIRED] = "the agent key has expired (keys last 90 days)",
        [AGENT_KEY_BANNED] = "the account that owns this agent key is banned",
        [AGENT_KEY_UNSCOPED] = "the agent key does not have the submit_lead scope",
    };
    enum agent_key_state st =
        agent_key_state(c->now, out->expires_at, out->revoked_at, out->banned, out->scope);
    if (st != AGENT_KEY_ACTIVE) {
        *why = refused[st];
        return AGENT_AUTH_REFUSED;
    }
    return AGENT_AUTH_OK;
}

/* The receipt's quota of a replay: the counts of now, and a replay takes nothing. */
static void replayed_quota(const struct quota_usage *usage, const int64_t *max, int64_t now,
                           struct lead_receipt *out)
{
    out->quota = quota_decide(usage, max, now);
    out->quota.remaining = out->quota.exceeded >= 0 ? 0 : out->quota.remaining + 1;
}

static int conflict(const struct app_ctx *c, const char *idem, struct lead_receipt *out)
{
    out->message =
        arena_printf(c->a, "Idempotency-Key %s was used with a different payload for lead %s", idem,
                     out->lead_id);
    return LEAD_IDEM_CONFLICT;
}

static int unknown_game(const struct app_ctx *c, const struct lead_input *in,
                        struct lead_receipt *out)
{
    out->message = arena_printf(c->a, "game_id %.255s names no game (see GET /api/v1/games/{id})",
                                in->game_id);
    return LEAD_UNKNOWN_GAME;
}

static int accepted(const struct app_ctx *c, const struct lead_input *in,
                    const struct lead_receipt *out)
{
    log_info("leads", "accepted lead %s game %.64s rid=%s", out->lead_id, in->game_id,
             c->request_id ? c->request_id : "-");
    return LEAD_ACCEPTED;
}

/* The new lead's row: id out->lead_id, accepted at now. */
static struct lead_row row_of(const struct agent_auth *auth, const struct lead_input *in,
                              const struct lead_receipt *out, int64_t now)
{
    return (struct lead_row){
        .id = out->lead_id,
        .account_id = auth->account_id,
        .key_id = auth->key_id,
        .game_id = in->game_id,
        .description = in->description,
        .source_urls_json = in->source_urls_json,
        .clock = in->clock,
        .category = in->category,
        .period = in->period,
        .has_confidence = in->has_confidence,
        .confidence = in->confidence,
        .created_at = now,
    };
}

/* The idempotency replay: the earlier lead when the payload is the same, else a conflict. */
static int replay(const struct app_ctx *c, const int64_t *max, const struct agent_auth *auth,
                  const char *idem, const char *found_fp, const struct lead_input *in,
                  struct lead_receipt *out)
{
    if (strcmp(found_fp, in->fingerprint) != 0)
        return conflict(c, idem, out);
    struct quota_usage usage;
    int rc;
    if ((rc = leads_quota_usage(c->s, auth->account_id, c->now, &usage)) < 0 ||
        (rc = agents_key_touch(c->s, auth->key_id, c->now)) < 0 || (rc = store_commit(c->s)) < 0)
        return rc;
    replayed_quota(&usage, max, c->now, out);
    return LEAD_REPLAYED;
}

/* In the write transaction: replay, game check, quota, insert. A lead_outcome, or a
 * negative store_rc; the caller commits nothing (replay and insert commit themselves). */
static int submit(struct app_ctx *c, const int64_t *max, const struct agent_auth *auth,
                  const char *idem, const struct lead_input *in, struct lead_receipt *out)
{
    /* read the clock again under the leads lock: acceptance times then follow commit order,
     * so no lead committed before this one can look younger than it */
    c->now = time_now_us();
    char found_fp[65];
    /* the idempotency lookup comes first: a replay is answered even past the quota */
    int rc = leads_idempotency_find(c->s, auth->account_id, idem,
                                    c->now - LEAD_IDEMPOTENCY_RETENTION_US, found_fp, out->lead_id);
    if (rc != 0)
        return rc < 0 ? rc : replay(c, max, auth, idem, found_fp, in, out);
    if ((rc = admin_game_exists(c->s, in->game_id)) <= 0)
        return rc < 0 ? rc : unknown_game(c, in, out);
    struct quota_usage usage;
    if ((rc = leads_quota_usage(c->s, auth->account_id, c->now, &usage)) < 0)
        return rc;
    out->quota = quota_decide(&usage, max, c->now);
    if (out->quota.exceeded >= 0)
        return LEAD_QUOTA_EXCEEDED;
    uuid_v4(out->lead_id);
    struct lead_row row = row_of(auth, in, out, c->now);
    /* forget this agent's expired records first: a key reused after the retention period
     * starts a new lead under the same (account, key) primary key */
    if ((rc = leads_idempotency_prune(c->s, auth->account_id,
                                      c->now - LEAD_IDEMPOTENCY_RETENTION_US)) < 0 ||
        (rc = leads_insert(c->s, &row)) < 0 ||
        (rc = leads_idempotency_insert(c->s, auth->account_id, idem, in->fingerprint, out->lead_id,
                                       c->now)) < 0 ||
        (rc = agents_key_touch(c->s, auth->key_id, c->now)) < 0 || (rc = store_commit(c->s)) < 0)
        return rc;
    return accepted(c, in, out);
}

/* PostgreSQL: the same steps in one statement and one round trip, every lock taken and
 * released inside the server (store/agents.h leads_submit_server, migration 020). A lead_outcome,
 * NO_SERVER_PATH (run submit), or a negative store_rc. */
#define NO_SERVER_PATH 100
static int submit_server(const struct app_ctx *c, const int64_t *max, const struct agent_auth *auth,
                         const char *idem, const struct lead_input *in, struct lead_receipt *out)
{
    uuid_v4(out->lead_id);
    int64_t now = time_now_us();
    struct lead_row row = row_of(auth, in, out, now);
    struct lead_write_result w;
    int rc = leads_submit_server(c->s, &row, idem, in->fingerprint, LEAD_IDEMPOTENCY_RETENTION_US,
                                 max, &w);
    if (rc < 0 || rc == LEAD_WRITE_NO_SERVER_PATH)
        return rc < 0 ? rc : NO_SERVER_PATH;
    snprintf(out->lead_id, sizeof out->lead_id, "%s", w.lead_id);
    now = w.now; /* after the newest lead: acceptance times follow commit order */
    switch (rc) {
    case LEAD_WRITE_ACCEPTED:
        out->quota = quota_decide(&w.usage, max, now);
        return accepted(c, in, out);
    case LEAD_WRITE_REPLAYED:
        replayed_quota(&w.usage, max, now, out);
        return LEAD_REPLAYED;
    case LEAD_WRITE_UNKNOWN_GAME:
        return unknown_game(c, in, out);
    case LEAD_WRITE_QUOTA:
        out->quota = quota_decide(&w.usage, max, now);
        return LEAD_QUOTA_EXCEEDED;
    default:
        return conflict(c, idem, out);
    }
}

int lead_submit(const struct app_ctx *c, const struct whistle_limits *limits,
                const struct agent_auth *auth, const char *idem, const char *body, size_t len,
                struct lead_receipt *out)
{
    memset(out, 0, sizeof *out);
    if (!idem) {
        out->message = "the Idempotency-Key header is required";
        return LEAD_INVALID;
    }
    if (!lead_idempotency_key_valid(idem)) {
        out->message = "Idempotency-Key must be 8 to 128 characters of a-z A-Z 0-9 _ . : -";
        return LEAD_INVALID;
    }
    char err[400];
    struct lead_input in;
    if (lead_parse(body, len, &in, err, sizeof err) < 0) {
        out->message = arena_strdup(c->a, err);
        return LEAD_INVALID;
    }
    const int64_t *max = limits->lead_quota;
    int rc = submit_server(c, max, auth, idem, &in, out);
    if (rc == NO_SERVER_PATH) {
        struct app_ctx tc = *c;
        /* the lead's rules need only the 'leads' row (store/agents.h leads_lock), not the
         * deployment: ballots go on while leads queue on it */
        rc = store_begin_row_write(c->s);
        if (rc >= 0)
            rc = leads_lock(c->s);
        if (rc >= 0)
            rc = submit(&tc, max, auth, idem, &in, out);
        if (rc != LEAD_ACCEPTED && rc != LEAD_REPLAYED)
            store_rollback(c->s);
    }
    lead_input_release(&in);
    return rc < 0 ? APP_UNAVAILABLE : rc;
}

int lead_status_read(const struct app_ctx *c, const struct agent_auth *auth, const char *id,
                     struct lead_status *out)
{
    int rc = leads_get(c->s, id, auth->account_id, out);
    return rc < 0 ? APP_UNAVAILABLE : rc;
}
