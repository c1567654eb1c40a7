#ifndef WHISTLE_STORE_RESEARCH_H
#define WHISTLE_STORE_RESEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "store/agents.h"
#include "store/store.h"
#include "util/arena.h"

/*
 * Lead research rows (migration 004): claims and leases, fetch records, the audit trail,
 * candidates. Callers own transactions; functions return 0 (or a count / found flag as
 * stated) or a negative store_rc. Strings of the structs below live in the caller's arena.
 */

/* A lead as research and the operator commands see it. */
struct research_lead {
    const char *id, *account_id, *game_id, *description, *source_urls_json, *clock, *category;
    const char *status, *claim_token, *incident_id, *duplicate_lead, *reason, *contributor;
    int64_t period; /* INT64_MIN for null; the submitter's confidence is never read here */
    int attempts;
    int64_t created_at, updated_at, lease_until, next_attempt_at, candidate_at; /* or MIN */
};

/* Claims the oldest lead that is due: pending (past its backoff) or running with an
 * expired lease and not a candidate. The claim is one conditional UPDATE, so two workers,
 * in this process or another, never hold the same lead. Returns 1 with *out filled, 0 when
 * nothing is due. */
int research_claim(struct store *s, struct arena *a, int64_t now, int64_t lease_us,
                   const char *token, struct research_lead *out);

/* Reads a lead by id (any owner): 1 found, 0 missing. */
int research_lead_get(struct store *s, struct arena *a, const char *id, struct research_lead *out);

/* Calls fn for leads with status (all when NULL; "candidate" means running candidates),
 * newest first, at most limit. */
int research_leads_each(struct store *s, struct arena *a, const char *status, int limit,
                        int (*fn)(void *ctx, const struct research_lead *l), void *ctx);

/* The outcome of a research attempt or an operator decision, written only while the claim
 * is still this worker's (token), or unconditionally when token is NULL (operators).
 * Returns 1 written, 0 when the claim was lost (the lead was claimed again elsewhere). */
struct research_outcome {
    const char *status;         /* pending, running, rejected, published, duplicate, failed */
    const char *reason;         /* the decision's reason */
    const char *incident_id;    /* published or duplicate: the incident, else NULL */
    const char *duplicate_lead; /* duplicate of an earlier lead, else NULL */
    int64_t next_attempt_at;    /* pending after a transient failure, else INT64_MIN */
    bool candidate;             /* running and waiting for publication */
};
int research_set_outcome(struct store *s, const char *lead_id, const char *token,
                         const struct research_outcome *o, int64_t now);

/* Gives a claimed lead back untouched (the worker stops mid-attempt): pending again, the
 * attempt not counted, with a "released" event; only while the claim is still token's.
 * 1 released, 0 when the claim was lost, or a negative store_rc. */
int research_release(struct store *s, const char *lead_id, const char *token, int64_t now);

/* Appends an event to the lead's audit trail. */
int research_event(struct store *s, const char *lead_id, int64_t at, const char *event,
                   const char *from_status, const char *to_status, const char *actor,
                   const char *reason);

struct research_event_row {
    int64_t seq, at;
    const char *event, *from_status, *to_status, *actor, *reason;
};
int research_events_each(struct store *s, const char *lead_id,
                         int (*fn)(void *ctx, const struct research_event_row *e), void *ctx);

/* One source URL's fetch record. */
struct research_fetch_row {
    int position;
    const char *url, *final_url, *content_type, *title, *publisher, *content_hash, *domain, *error;
    long http_status; /* -1: no response */
    int64_t bytes, fetched_at;
    bool mentions;
};
/* Replaces the lead's fetch records with rows. */
int research_save_fetches(struct store *s, const char *lead_id,
                          const struct research_fetch_row *rows, int n);
int research_fetches_each(struct store *s, const char *lead_id,
                          int (*fn)(void *ctx, const struct research_fetch_row *r), void *ctx);

/* Deduplication candidates of one game (step 4). */
struct research_play {
    const char *id, *clock, *category, *incident_id, *duplicate_lead;
    const char *urls_json; /* leads: the submitted URLs; incidents: NULL */
    int64_t period;
};
/* Published incidents of the game (id, period, clock, category). */
int research_game_incidents_each(struct store *s, const char *game_id,
                                 int (*fn)(void *ctx, const struct research_play *p), void *ctx);
/* Leads of the game accepted before lead (created_at, id), neither rejected nor failed. */
int research_earlier_leads_each(struct store *s, const char *game_id, const char *lead_id,
                                int64_t created_at,
                                int (*fn)(void *ctx, const struct research_play *p), void *ctx);
/* A published incident of the game citing url: 1 with id, 0 none. */
int research_incident_by_source(struct store *s, const char *game_id, const char *url,
                                char id[ID_LEN]);
/* An earlier lead of the game (as research_earlier_leads_each) whose research fetched url
 * or ended at it: 1 with its id, incident id ("" when none) and duplicate_lead ("" when
 * none), 0 none. */
int research_lead_by_url(struct store *s, const char *game_id, const char *lead_id,
                         int64_t created_at, const char *url, char id[ID_LEN],
                         char incident_id[ID_LEN], char duplicate_lead[ID_LEN]);

#endif
