#ifndef WHISTLE_RESEARCH_PIPELINE_H
#define WHISTLE_RESEARCH_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "domain/model.h"
#include "store/research.h"
#include "util/arena.h"
#include "worker/worker.h"

/*
 * The lead research pipeline (issue 4): claim → resolve → fetch → deduplicate → gate →
 * publish, one lead per call. The rules are in domain/research.h, the rows in
 * store/research.h; this file does the I/O between them. Fetches run outside any
 * transaction under the claim's lease; the outcome, the fetch records and the audit events
 * of an attempt are written in one transaction, and only while the claim is still ours, so
 * a worker that dies mid-lead leaves nothing half-written and its lead is retried once the
 * lease expires.
 */

/* The worker task: researches one due lead. 1 when a lead was handled, 0 when none was
 * due, or a negative store_rc. */
int research_step(struct store *s, const struct worker_config *cfg, int64_t now);

struct research_publish_opts {
    const char *actor;               /* "auto" or "operator" (provenance and the audit trail) */
    const char *editor;              /* the publishing editor's display name (desk), or NULL */
    const char *title;               /* NULL: a neutral headline from the facts */
    const char *description;         /* NULL: the lead's description */
    const char *summary;             /* NULL: the Developing summary */
    const struct question *question; /* NULL: no Fan Verdict question yet */
};

/* Publishes a candidate lead as a Developing incident, inside the caller's write
 * transaction: the incident, its sources (only fetches that answered 2xx), the question,
 * the lead's outcome (published, incidentId) and the audit event. token is the worker's
 * claim, or NULL for an operator. Returns 1 with incident_id, 0 when the claim was lost, or
 * a negative store_rc. */
int research_publish(struct store *s, struct arena *a, const struct research_lead *l,
                     const char *token, const struct research_publish_opts *o, int64_t now,
                     char incident_id[ID_LEN]);
/* The store key research_publish takes before it derives the new incident's slug (read
 * then written): publications take turns among themselves, nothing else waits (app.h
 * app_begin_locked). */
#define RESEARCH_PUBLISH_KEY "publish"
/* Every store call research_publish makes, with placeholder arguments, for
 * store_prepare_ahead (arg: an arena): no statement is prepared under its key. */
int research_publish_statements(struct store *s, void *arg);

#endif
