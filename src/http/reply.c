/*
 * Replies and the error catalogue: every error body on every endpoint is
 * {"error":{"code","message"}} and every code comes from the table below.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "http/http.h"
#include "http/reply.h"
#include "util/jsonw.h"

static const struct {
    int status;
    const char *code;
} catalogue[] = {
    {400, "invalid_request"},
    {401, "unauthorized"},
    {403, "forbidden"},
    {404, "not_found"},
    {405, "method_not_allowed"},
    {406, "not_acceptable"},
    {409, "conflict"},
    {411, "length_required"},
    {413, "payload_too_large"},
    {414, "uri_too_long"},
    {415, "unsupported_media_type"},
    {429, "rate_limited"},
    {431, "headers_too_large"},
    {500, "internal"},
    {501, "not_implemented"},
    {503, "unavailable"},
};

const char *http_error_code(int status)
{
    for (size_t i = 0; i < sizeof catalogue / sizeof catalogue[0]; i++)
        if (catalogue[i].status == status)
            return catalogue[i].code;
    return status >= 500 ? "internal" : "invalid_request";
}

void reply_header(struct request *req, const char *name, const char *value)
{
    assert(name && value);
    if (req->nheaders == req->headers_cap) {
        int cap = req->headers_cap ? req->headers_cap * 2 : 8;
        const char *(*h)[2] = arena_alloc(&req->arena, (size_t)cap * sizeof *h);
        if (req->nheaders)
            memcpy(h, req->headers, (size_t)req->nheaders * sizeof *h);
        req->headers = h;
        req->headers_cap = cap;
    }
    req->headers[req->nheaders][0] = name;
    req->headers[req->nheaders][1] = value;
    req->nheaders++;
}

void reply_body(struct request *req, int status, const char *content_type)
{
    req->status = status;
    req->content_type = content_type;
    req->answered = true;
}

void reply_json(struct request *req, int status)
{
    reply_body(req, status, "application/json");
}

__attribute__((format(printf, 4, 0))) static void
error_v(struct request *req, int status, const char *code, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    buf_reset(&req->out);
    struct jw w;
    jw_init(&w, &req->out);
    jw_obj_begin(&w);
    jw_key(&w, "error");
    jw_obj_begin(&w);
    jw_kstr(&w, "code", code);
    jw_kstr(&w, "message", msg);
    jw_obj_end(&w);
    jw_obj_end(&w);
    reply_json(req, status);
}

void reply_error(struct request *req, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_v(req, status, http_error_code(status), fmt, ap);
    va_end(ap);
}

void reply_error_code(struct request *req, int status, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_v(req, status, code, fmt, ap);
    va_end(ap);
}

const char *reply_retry_later(struct request *req, enum reply_busy why)
{
    bool pool = why == REPLY_PASSWORD_BUSY;
    reply_header(req, "Retry-After", pool ? HTTP_PASSWORD_RETRY_AFTER_S : HTTP_RETRY_AFTER_S);
    return pool ? HTTP_PASSWORD_BUSY_MSG : HTTP_UNAVAILABLE_MSG;
}

void reply_unavailable(struct request *req)
{
    reply_error(req, 503, "%s", reply_retry_later(req, REPLY_UNAVAILABLE));
}

void reply_password_busy(struct request *req)
{
    reply_error(req, 503, "%s", reply_retry_later(req, REPLY_PASSWORD_BUSY));
}
