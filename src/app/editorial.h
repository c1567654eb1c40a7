#ifndef WHISTLE_APP_EDITORIAL_H
#define WHISTLE_APP_EDITORIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "app/app.h"
#include "domain/model.h"

/*
 * Editorial changes to a published incident (api-v1.md "Incident status", "Duplicates",
 * DebateQuestion rules; docs/operators.md): withdraw, merge into a survivor, move its
 * maturity, cite a source, set or clarify its Fan Verdict question. Shared by the CLI
 * (`whistle incident …`) and the editorial desk. Each is one write transaction that also
 * writes one audit record (store/audit.h: c->actor, the changed fields before and after,
 * the reason); a refusal writes nothing.
 */
enum edit_outcome {
    EDIT_OK = 0,
    EDIT_INVALID,   /* an input is wrong: message names it */
    EDIT_MISSING,   /* no such incident (or survivor): message */
    EDIT_REFUSED,   /* the incident's state forbids it: message says why */
    EDIT_DUPLICATE, /* the source is already cited */
    /* APP_UNAVAILABLE */
};

struct edit_result {
    const char *message; /* why, for people (c->a or static) */
    int64_t version;     /* set-question: the version now current */
};

/* id and into are normalized UUIDs; reason may be NULL. */
int incident_withdraw(const struct app_ctx *c, const char *id, const char *reason,
                      struct edit_result *r);
/* A duplicate reports the same play of the same game: merging incidents of two different
 * games is refused (EDIT_REFUSED, the message says why) unless across_games. */
int incident_merge(const struct app_ctx *c, const char *id, const char *into, const char *reason,
                   bool across_games, struct edit_result *r);
/* status: developing, corroborated, explained, resolved. */
int incident_set_status(const struct app_ctx *c, const char *id, const char *status,
                        struct edit_result *r);
/* src: url, title, kind, supports required; publisher optional; published_at MODEL_NULL. */
int incident_add_source(const struct app_ctx *c, const char *id, const struct source *src,
                        struct edit_result *r);
/* Removes the source with url from a published incident (EDIT_MISSING when it is not cited);
 * reason may be NULL. A row write: it locks the incident's key only. */
int incident_remove_source(const struct app_ctx *c, const char *id, const char *url,
                           const char *reason, struct edit_result *r);
/* A new question version (earlier ballots archived with theirs), or with clarify a
 * synonymous relabelling of the current one (same type, text and context; ballots kept). */
int incident_set_question(const struct app_ctx *c, const char *id, const struct question *q,
                          bool clarify, struct edit_result *r);

/* Rewrites the editorial fields of a published incident from f: title, play_description,
 * neutral_summary (required), period (MODEL_NULL or 1..10), clock (NULL or M:SS),
 * original_ruling, final_ruling, consequence (NULL or up to 500 bytes), replay_involved and
 * penalty_called (-1 unknown, 0, 1). The slug never changes (a new title keeps the URL).
 * The audit record holds the changed fields before and after; EDIT_INVALID when nothing
 * changed. */
int incident_edit(const struct app_ctx *c, const char *id, const struct incident *f,
                  const char *reason, struct edit_result *r);

/* Writes one audit record in the caller's transaction (actor, role from c). before/after
 * are JSON objects or NULL. 0 or a negative store_rc. */
int app_audit(const struct app_ctx *c, const char *action, const char *target_kind,
              const char *target_id, const char *before_json, const char *after_json,
              const char *reason);

/* The audit record's insert with placeholder values (APP_PLACEHOLDER_ID), for a write's
 * prepare-ahead function (app_begin_locked's prepare): store_prepare_ahead prepares it,
 * nothing executes. 0 or a negative store_rc; nothing to free. */
int app_audit_ahead(struct store *s);

#endif
