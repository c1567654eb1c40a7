#include "providers/http.h"

#include <curl/curl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct ctx {
    struct buf body;
    size_t max_bytes;
    bool too_large;
    char *etag, *last_modified, *retry_after;
};

static size_t on_data(char *data, size_t size, size_t n, void *userp)
{
    struct ctx *c = userp;
    size_t len = size * n;
    if (c->body.len + len > c->max_bytes) {
        c->too_large = true;
        return 0; /* aborts the transfer */
    }
    buf_append(&c->body, data, len);
    return len;
}

/* The value of header `name` in the raw line, trimmed and malloc'd; NULL otherwise. */
static char *header_value(const char *line, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (len <= n + 1 || strncasecmp(line, name, n) != 0 || line[n] != ':')
        return NULL;
    const char *v = line + n + 1, *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
        end--;
    if (end - v > 512)
        return NULL;
    char *out = malloc((size_t)(end - v) + 1);
    if (!out)
        return NULL;
    memcpy(out, v, (size_t)(end - v));
    out[end - v] = '\0';
    return out;
}

static void take(char **slot, char *v)
{
    if (!v)
        return;
    free(*slot);
    *slot = v;
}

static size_t on_header(char *line, size_t size, size_t n, void *userp)
{
    struct ctx *c = userp;
    size_t len = size * n;
    take(&c->etag, header_value(line, len, "ETag"));
    take(&c->last_modified, header_value(line, len, "Last-Modified"));
    take(&c->retry_after, header_value(line, len, "Retry-After"));
    return len;
}

long provider_retry_after(const char *v, int64_t now_s)
{
    if (!v || !*v)
        return -1;
    char *end;
    long s = strtol(v, &end, 10);
    if (end != v && !*end && s >= 0)
        return s;
    time_t t = curl_getdate(v, NULL);
    if (t < 0)
        return -1;
    return t > now_s ? (long)(t - now_s) : 0;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* One request; fills res and returns the curl code. */
static CURLcode attempt(const struct provider_http_req *req, struct provider_http_res *res,
                        struct ctx *c)
{
    CURL *h = curl_easy_init();
    if (!h)
        return CURLE_FAILED_INIT;
    struct curl_slist *hdrs = NULL;
    struct buf line = BUF_INIT;
    if (req->bearer) {
        buf_printf(&line, "Authorization: Bearer %s", req->bearer);
        hdrs = curl_slist_append(hdrs, line.p);
        buf_reset(&line);
    }
    if (req->etag) {
        buf_printf(&line, "If-None-Match: %s", req->etag);
        hdrs = curl_slist_append(hdrs, line.p);
        buf_reset(&line);
    }
    if (req->last_modified) {
        buf_printf(&line, "If-Modified-Since: %s", req->last_modified);
        hdrs = curl_slist_append(hdrs, line.p);
    }
    /* the key sits in this buffer: wipe it before it is freed */
    if (line.alloc) /* never the shared empty string */
        memset(line.p, 0, line.alloc);
    buf_release(&line);
    hdrs = curl_slist_append(hdrs, "Accept: application/json, text/csv, */*");
    long timeout = req->timeout_ms > 0 ? req->timeout_ms : 30000;
    curl_easy_setopt(h, CURLOPT_URL, req->url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "https");
    /* redirects are followed (release assets redirect to a CDN), but the key is never sent
     * to another host: curl drops Authorization on a host change */
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 3L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout < 10000 ? timeout : 10000L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "Whistle-games/1");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, ""); /* gzip when offered */
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, c);
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)c->max_bytes);
    CURLcode rc = curl_easy_perform(h);
    long status = -1;
    if (curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK || status == 0)
        status = -1;
    res->status = rc == CURLE_OK ? status : -1;
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(h);
    return rc;
}

int provider_http_get(const struct provider_http_req *req, struct provider_http_res *res)
{
    memset(res, 0, sizeof *res);
    res->status = -1;
    res->retry_after_s = -1;
    if (!req->url ||
        (strncasecmp(req->url, "http://", 7) != 0 && strncasecmp(req->url, "https://", 8) != 0)) {
        res->error = "bad URL";
        return -1;
    }
    int attempts = req->attempts > 0 ? req->attempts : 3;
    long backoff = req->backoff_ms > 0 ? req->backoff_ms : 1000;
    long max_wait = req->max_wait_s > 0 ? req->max_wait_s : 60;
    for (int i = 0; i < attempts; i++) {
        struct ctx c = {.body = BUF_INIT, .max_bytes = req->max_bytes ? req->max_bytes : 64u << 20};
        res->attempts++;
        CURLcode rc = attempt(req, res, &c);
        long wait_ms = -1; /* -1: final answer */
        res->error = NULL;
        if (rc == CURLE_OK && (res->status == 200 || res->status == 304)) {
            if (res->status == 200) {
                res->body = c.body;
                c.body = (struct buf)BUF_INIT;
                res->etag = c.etag;
                res->last_modified = c.last_modified;
                c.etag = c.last_modified = NULL;
            }
        } else if (rc == CURLE_OK && res->status == 429) {
            res->error = "rate limited (429)";
            res->retry_after_s = provider_retry_after(c.retry_after, (int64_t)time(NULL));
            long s = res->retry_after_s >= 0 ? res->retry_after_s : backoff / 1000;
            if (s <= max_wait)
                wait_ms = s * 1000 > backoff ? s * 1000 : backoff;
        } else if (rc == CURLE_OK && res->status >= 500) {
            res->error = "server error (HTTP 5xx)";
            wait_ms = backoff;
        } else if (rc == CURLE_OK) {
            static const struct {
                long code;
                const char *text;
            } known[] = {{400, "HTTP 400"},
                         {401, "HTTP 401 (is the key right?)"},
                         {403, "HTTP 403 (is the key right?)"},
                         {404, "HTTP 404"},
                         {410, "HTTP 410"}};
            res->error = "unexpected HTTP status";
            for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
                if (known[k].code == res->status)
                    res->error = known[k].text;
        } else if (c.too_large || rc == CURLE_FILESIZE_EXCEEDED) {
            res->error = "too large";
        } else if (rc == CURLE_OPERATION_TIMEDOUT) {
            res->error = "timeout";
            wait_ms = backoff;
        } else if (rc == CURLE_URL_MALFORMAT || rc == CURLE_UNSUPPORTED_PROTOCOL) {
            res->error = "bad URL";
        } else {
            res->error = "unreachable";
            wait_ms = backoff;
        }
        buf_release(&c.body);
        free(c.etag);
        free(c.last_modified);
        free(c.retry_after);
        if (wait_ms < 0 || i + 1 == attempts)
            break;
        sleep_ms(wait_ms);
        backoff *= 2;
    }
    return res->error ? -1 : 0;
}

void provider_http_release(struct provider_http_res *res)
{
    buf_release(&res->body);
    free(res->etag);
    free(res->last_modified);
    res->etag = res->last_modified = NULL;
}
