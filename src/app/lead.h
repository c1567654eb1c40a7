#ifndef WHISTLE_APP_LEAD_H
#define WHISTLE_APP_LEAD_H

#include <stddef.h>

#include "app/app.h"
#include "domain/limits.h"
#include "domain/quota.h"
#include "store/agents.h"

/*
 * Agent leads (api-v1.md "Agent leads"; docs/agents.md): authenticating an agent key,
 * submitting a lead under the key's quotas and an Idempotency-Key, reading its status.
 */

/* Authenticating the Bearer credential of an agent request. */
enum agent_auth_outcome {
    AGENT_AUTH_OK = 0,  /* *out is the key's record */
    AGENT_AUTH_MISSING, /* no credential at all (401 + WWW-Authenticate) */
    AGENT_AUTH_REFUSED, /* wrong kind, malformed, unknown, revoked, expired, banned,
                         * unscoped: *why says which, for the agent (403) */
    /* APP_UNAVAILABLE */
};

/* bearer is the Authorization header's value (NULL when absent). */
int agent_authenticate(const struct app_ctx *c, const char *bearer, struct agent_auth *out,
                       const char **why);

enum lead_outcome {
    LEAD_ACCEPTED = 0,   /* a new lead: receipt */
    LEAD_REPLAYED,       /* the Idempotency-Key's earlier lead, same payload: receipt */
    LEAD_INVALID,        /* the body or the Idempotency-Key is wrong: message (400) */
    LEAD_UNKNOWN_GAME,   /* game_id names no game: message (400) */
    LEAD_IDEM_CONFLICT,  /* the key was used with another payload: lead_id, message (409) */
    LEAD_QUOTA_EXCEEDED, /* quota (429): decision says which limit and when */
    /* APP_UNAVAILABLE: nothing was written */
};

struct lead_receipt {
    char lead_id[37];
    const char *message;         /* INVALID / UNKNOWN_GAME / IDEM_CONFLICT (in c->a) */
    struct quota_decision quota; /* ACCEPTED, REPLAYED, QUOTA_EXCEEDED: for RateLimit */
};

/* Submits a lead: idem is the Idempotency-Key (NULL when absent), body the JSON, under the
 * quotas of limits->lead_quota. The lead, its idempotency record and the key's last use are
 * one transaction. */
int lead_submit(const struct app_ctx *c, const struct whistle_limits *limits,
                const struct agent_auth *auth, const char *idem, const char *body, size_t len,
                struct lead_receipt *out);

/* Reads the status of one of the agent's leads (id normalized): 1 found, 0 not this agent's
 * (or none), APP_UNAVAILABLE. */
int lead_status_read(const struct app_ctx *c, const struct agent_auth *auth, const char *id,
                     struct lead_status *out);

#endif
