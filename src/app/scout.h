#ifndef WHISTLE_APP_SCOUT_H
#define WHISTLE_APP_SCOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "store/scout.h"
#include "util/buf.h"

/*
 * The private scout interface (api-v1.md, docs/scout.md): authenticating a ws_ credential
 * and running one op (status, begin, reserve, finish) in one write transaction. The answer
 * documents are the protocol's own receipts (a retried begin or finish answers the stored
 * receipt byte for byte), so the use case writes them.
 */
enum scout_auth_outcome {
    SCOUT_AUTH_OK = 0,  /* *out is the credential (a disabled one authenticates) */
    SCOUT_AUTH_REFUSED, /* missing, wrong kind, malformed, unknown, revoked, expired: *why */
    /* APP_UNAVAILABLE */
};

int scout_authenticate(const struct app_ctx *c, const char *bearer, struct scout_credential *out,
                       const char **why);

enum scout_outcome {
    SCOUT_OUT_ANSWER = 0,    /* *answer is the JSON answer (200), a skip included */
    SCOUT_OUT_INVALID,       /* the body is wrong: message names the field (400) */
    SCOUT_OUT_FOREIGN_RUN,   /* runId is not a run of this credential (400) */
    SCOUT_OUT_CONFLICT,      /* the runId or finish was used with another payload (409) */
    SCOUT_OUT_RUN_EXPIRED,   /* the run's lease has ended (409) */
    SCOUT_OUT_RUN_COMPLETED, /* the run was finished (409) */
    /* APP_UNAVAILABLE: nothing was written */
};

/* Runs the op the body names. candidates: whether the server creates research candidates
 * from signals (shown by status). *message (in c->a, or static) explains a refusal. */
int scout_op(const struct app_ctx *c, const struct scout_credential *cred, bool candidates,
             const char *body, size_t len, struct buf *answer, const char **message);

#endif
