/*
 * POST /api/agents/v1/scout: the private scout interface (api-v1.md, issue 7,
 * docs/scout.md). One endpoint; `op` selects status, begin, reserve or finish. A scout
 * credential (ws_…) is the only credential accepted; everything an op writes is one
 * transaction, committed before the answer. Answers carry run receipts, budgets and the
 * scout's own checkpoints, never an incident or a research candidate.
 */

#include "api/api.h"
#include "app/scout.h"
#include "domain/limits.h"

/* The refusals of scout_op: the status and error code (NULL: the status's own) of each. */
static const struct {
    int rc;
    int status;
    const char *code;
} refusals[] = {
    {SCOUT_OUT_INVALID, 400, NULL},
    {SCOUT_OUT_FOREIGN_RUN, 400, NULL},
    {SCOUT_OUT_CONFLICT, 409, ERR_IDEMPOTENCY_CONFLICT},
    {SCOUT_OUT_RUN_EXPIRED, 409, ERR_RUN_EXPIRED},
    {SCOUT_OUT_RUN_COMPLETED, 409, ERR_RUN_COMPLETED},
};

void api_scout(struct request *req)
{
    struct app_ctx c;
    struct scout_credential cred;
    const char *why = NULL;
    if (api_ctx(req, &c) < 0 || api_no_query(req) < 0)
        return;
    switch (scout_authenticate(&c, http_header(req, "Authorization"), &cred, &why)) {
    case SCOUT_AUTH_OK:
        break;
    case SCOUT_AUTH_REFUSED:
        reply_error_code(req, 403, ERR_INVALID_CREDENTIAL, "%s", why);
        return;
    default:
        reply_unavailable(req);
        return;
    }
    if (!api_json_content_type(req)) {
        reply_error(req, 400, "Content-Type must be application/json");
        return;
    }
    const char *msg = NULL;
    int rc = scout_op(&c, &cred, req->cfg->limits->scout_candidates, req->body.p, req->body.len,
                      &req->out, &msg);
    if (rc == SCOUT_OUT_ANSWER) {
        reply_json(req, 200);
        return;
    }
    for (size_t k = 0; k < sizeof refusals / sizeof refusals[0]; k++) {
        if (refusals[k].rc == rc) {
            int status = refusals[k].status;
            const char *code = refusals[k].code;
            reply_error_code(req, status, code ? code : http_error_code(status), "%s", msg);
            return;
        }
    }
    reply_unavailable(req);
}
