#ifndef WHISTLE_PROVIDERS_HTTP_H
#define WHISTLE_PROVIDERS_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/*
 * GET of a provider document (issue 17, docs/games.md) with libcurl: http/https only, a
 * time cap per attempt and a byte cap, an optional bearer key (sent only in the
 * Authorization header, never logged nor put in an error message), a conditional request
 * when a validator from the last fetch is known (If-None-Match / If-Modified-Since; a 304
 * answers "not modified"), and retries: a 429 waits its Retry-After (seconds or an HTTP
 * date) when that is at most max_wait_s, a 5xx, a timeout or a failed connection waits
 * 1 s, 2 s, 4 s... (backoff_ms doubled) up to `attempts` tries in all.
 *
 * Unlike lead research (research/fetch.c) the URL is the operator's own configuration, so
 * no address is refused: a provider may sit on a private network, and the tests stand one
 * in on loopback.
 */
struct provider_http_req {
    const char *url;
    const char *bearer;        /* the key, or NULL */
    const char *etag;          /* from the last 200, or NULL */
    const char *last_modified; /* from the last 200, or NULL */
    long timeout_ms;           /* per attempt; 0: 30 s */
    size_t max_bytes;          /* 0: 64 MiB */
    int attempts;              /* 0: 3 */
    long backoff_ms;           /* first wait after a 5xx or a network failure; 0: 1000 */
    long max_wait_s;           /* longest Retry-After honoured in place; 0: 60 */
};

struct provider_http_res {
    long status;     /* the last HTTP status, -1 when none was received */
    struct buf body; /* the 200 body (buf_release it) */
    char *etag;      /* malloc'd validators of a 200, or NULL */
    char *last_modified;
    long retry_after_s; /* the last 429's Retry-After, -1 when none */
    int attempts;       /* requests made */
    const char *error;  /* NULL on a 200 or a 304; else a static reason: "rate limited (429)",
                           "server error (HTTP 5xx)", "HTTP 401", "timeout", "too large",
                           "unreachable", "bad URL" */
};

/* Fetches req->url. 0 with res->status 200 (body) or 304 (not modified), or -1 with
 * res->error set. Release res with provider_http_release() either way. */
int provider_http_get(const struct provider_http_req *req, struct provider_http_res *res);
void provider_http_release(struct provider_http_res *res);

/* Seconds of a Retry-After value at `now` (seconds since the epoch): delta-seconds or an
 * IMF-fixdate; -1 when it is neither. Exposed for tests. */
long provider_retry_after(const char *v, int64_t now_s);

#endif
