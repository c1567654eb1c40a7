/* libFuzzer: the server's request handling from the request head on, without a socket:
 * the input is a raw head ("METHOD TARGET VERSION", header lines, a blank line, a body),
 * read the way libmicrohttpd hands it over, and dispatched through http_fake_request():
 * the raw-target checks (%00, %2F, length), the framing checks on the headers (Content-
 * Length, Transfer-Encoding, whitespace in names), routing (404, 405, the CORS preflight),
 * body caps (413) and a handler that parses its query and form. The fake peer (127.0.0.1)
 * is a trusted proxy, so every X-Forwarded-For header is read as the client address
 * (domain/address.c address_client). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "domain/address.h"
#include "http/http.h"
#include "util/form.h"

/* header lines a fuzzed head may carry (the server itself has no such limit) */
#define FUZZ_MAX_HEADERS 8

static const char *const kinds[] = {"a", "b", NULL};
static const struct qp_spec specs[] = {
    {"limit", QP_INT, 1, 100, 20, NULL},
    {"kind", QP_ENUM, 0, 0, 0, kinds},
    {"id", QP_UUID, 0, 0, 0, NULL},
    {"from", QP_TIME, 0, 0, 0, NULL},
};

static void read_handler(struct request *req)
{
    struct qp_value v[sizeof specs / sizeof specs[0]];
    if (http_query(req, specs, sizeof specs / sizeof specs[0], v) < 0)
        return;
    (void)http_header(req, "Accept");
    (void)http_cookie(req, "whistle_voter");
    reply_body(req, 200, "application/json");
}

static void form_handler(struct request *req)
{
    struct form_pair pairs[16];
    if (form_parse(&req->arena, req->body.p ? req->body.p : "", req->body.len, pairs, 16) < 0) {
        reply_error(req, 400, "malformed form");
        return;
    }
    reply_body(req, 204, "text/plain");
}

static const struct route routes[] = {
    {HTTP_GET, "/api/v1/things", false, read_handler, 0, ROUTE_CORS, NULL},
    {HTTP_GET, "/api/v1/things/", true, read_handler, 0, 0, NULL},
    {HTTP_POST, "/things/", true, form_handler, 1024, 0, "/vote"},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct server_config cfg = {.listen = "127.0.0.1:0", .base_url = "http://x"};
    static struct address_range trusted[2];
    static int ready;
    if (!ready) {
        address_range_parse("127.0.0.1", &trusted[0]);
        address_range_parse("10.0.0.0/8", &trusted[1]);
        cfg.trusted_proxies = trusted;
        cfg.ntrusted_proxies = 2;
        http_fake_setup(&cfg, routes, sizeof routes / sizeof routes[0]);
        ready = 1;
    }
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    /* libmicrohttpd ends a line at LF (CR before it dropped) and hands over C strings */
    char *lines[FUZZ_MAX_HEADERS * 2 + 2];
    size_t nl = 0;
    char *p = s, *body = NULL;
    while (nl < sizeof lines / sizeof lines[0]) {
        char *lf = strchr(p, '\n');
        if (lf) {
            *lf = '\0';
            if (lf > p && lf[-1] == '\r')
                lf[-1] = '\0';
        }
        if (!*p) { /* blank line: the body follows */
            body = lf ? lf + 1 : NULL;
            break;
        }
        lines[nl++] = p;
        if (!lf)
            break;
        p = lf + 1;
    }
    if (nl == 0) {
        free(s);
        return 0;
    }
    char *method = lines[0], *target = strchr(lines[0], ' ');
    if (!target) {
        free(s);
        return 0;
    }
    *target++ = '\0';
    char *version = strchr(target, ' ');
    if (version)
        *version = '\0';
    const char *headers[FUZZ_MAX_HEADERS * 2 + 2][2];
    size_t nh = 0;
    for (size_t i = 1; i < nl; i++) {
        char *colon = strchr(lines[i], ':');
        if (!colon)
            continue;
        *colon = '\0';
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        headers[nh][0] = lines[i];
        headers[nh][1] = v;
        nh++;
    }
    headers[nh][0] = headers[nh][1] = NULL;
    struct http_fake fake = {.headers = headers, .cookies = NULL, .client_addr = NULL};
    struct request *req = http_fake_request(method, target, &fake, body);
    if (req->status < 100 || req->status > 599 || !req->content_type)
        __builtin_trap();
    http_fake_free(req);
    free(s);
    return 0;
}
