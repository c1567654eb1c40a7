/* GET /api/v1/openapi.json, GET /healthz, GET /readyz */
#include <stdio.h>

#include "api/api.h"
#include "store/store.h"

extern const unsigned char openapi_json[];
extern const size_t openapi_json_len;

void api_openapi(struct request *req)
{
    if (api_no_query(req) < 0)
        return;
    buf_append(&req->out, openapi_json, openapi_json_len);
    reply_json(req, 200);
}

void api_healthz(struct request *req)
{
    if (api_no_query(req) < 0)
        return;
    buf_puts(&req->out, "{\"status\":\"ok\"}");
    reply_json(req, 200);
}

void api_readyz(struct request *req)
{
    if (api_no_query(req) < 0)
        return;
    struct store *s = store_thread();
    int v = s ? store_schema_version(s) : -1;
    if (v <= 0) {
        reply_error(req, 503, "the database is not reachable or not migrated");
        return;
    }
    char why[256];
    if (store_write_probe(s, why, sizeof why) < 0) {
        /* every write would be answered 503: the node is not ready (issue 14 item 8) */
        reply_error(req, 503, "the database cannot be written: %s", why);
        return;
    }
    buf_puts(&req->out, "{\"status\":\"ready\"}");
    reply_json(req, 200);
}
