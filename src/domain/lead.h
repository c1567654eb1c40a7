#ifndef WHISTLE_DOMAIN_LEAD_H
#define WHISTLE_DOMAIN_LEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * AgentLead (api-v1.md): the body of POST /api/v1/agent-leads, checked strictly. A lead is
 * a pointer to a possible event, never a verdict; nothing in it is trusted beyond its shape.
 */
#define LEAD_DESCRIPTION_MIN 10
#define LEAD_DESCRIPTION_MAX 5000
#define LEAD_URLS_MAX        5
#define LEAD_GAME_ID_MAX     255
/* A lead's last decision reason (leads.reason): the longest is an operator's rejection,
 * "rejected by an operator: " and up to LEAD_REJECT_REASON_MAX bytes of the operator's words */
#define LEAD_REJECT_REASON_MAX 500
#define LEAD_REASON_MAX        600

/* How long an Idempotency-Key is remembered (docs/agents.md: 7 days; the issue asks for
 * at least 24 hours). The worker's housekeeping forgets older records. */
#define LEAD_IDEMPOTENCY_RETENTION_US (INT64_C(7) * 86400 * 1000000)

struct lead_input {
    const char *game_id;
    const char *description;
    const char *clock;    /* NULL when absent or null */
    const char *category; /* NULL when absent or null */
    int64_t period;       /* INT64_MIN when absent or null */
    bool has_confidence;
    double confidence;
    char *source_urls_json; /* the URL array as compact JSON */
    char fingerprint[65];   /* SHA-256 (hex) of the canonical JSON of the whole body */
    void *doc;              /* the parsed document the strings point into */
};

/* Parses and checks a body. Returns 0, or -1 with a message that names the field in err.
 * On success release the input with lead_input_release(). */
int lead_parse(const char *body, size_t len, struct lead_input *out, char *err, size_t errlen);
void lead_input_release(struct lead_input *in);

/* Field rules, exposed for unit tests. */
/* What an agent may read of a lead's last decision (the status record's `reason`): the
 * research reason of a rejected or failed lead, which speaks only of the lead's own game,
 * play and sources; "rejected by an operator" without the operator's words; NULL for every
 * other status (a duplicate's reason names other leads, and incidentId says enough). */
const char *lead_public_reason(const char *status, const char *reason);
bool lead_clock_valid(const char *s); /* M:SS or MM:SS, minutes 0..15 */
bool lead_url_valid(const char *s);   /* absolute http(s) URI with a host (RFC 3986) */
size_t utf8_length(const char *s);    /* characters of valid UTF-8 */

/* Idempotency-Key: 8..128 characters of a-z A-Z 0-9 _ . : - */
bool lead_idempotency_key_valid(const char *s);

#endif
