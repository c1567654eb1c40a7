#include "research/fetch.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <libxml/HTMLparser.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "domain/address.h"
#include "domain/lead.h"
#include "util/buf.h"
#include "util/str.h"
#include "util/timefmt.h"

struct ctx {
    const struct fetch_policy *p;
    struct buf body;
    bool too_large;
    bool blocked;
};

void fetch_global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t on_data(char *data, size_t size, size_t n, void *userp)
{
    struct ctx *c = userp;
    size_t len = size * n;
    if (c->body.len + len > c->p->max_bytes) {
        c->too_large = true;
        return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
    }
    buf_append(&c->body, data, len);
    return len;
}

/* "ip:port" ("[ip]:port" for IPv6) of a socket address. */
static void addr_text(const struct sockaddr *sa, char *out, size_t n)
{
    char ip[INET6_ADDRSTRLEN] = "";
    unsigned port = 0;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
        port = ntohs(in->sin_port);
        snprintf(out, n, "%s:%u", ip, port);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
        port = ntohs(in6->sin6_port);
        snprintf(out, n, "[%s]:%u", ip, port);
    } else {
        snprintf(out, n, "?");
    }
}

/* Every connection curl makes, the first and each redirect's, opens its socket here: the
 * resolved address is checked before any packet is sent. */
static curl_socket_t on_open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *addr)
{
    struct ctx *c = clientp;
    bool allowed = purpose == CURLSOCKTYPE_IPCXN && address_is_public(&addr->addr);
    if (!allowed && purpose == CURLSOCKTYPE_IPCXN) {
        char text[64];
        addr_text(&addr->addr, text, sizeof text);
        for (size_t i = 0; i < c->p->nallow && !allowed; i++)
            allowed = strcmp(text, c->p->allow[i]) == 0;
    }
    if (!allowed) {
        c->blocked = true;
        return CURL_SOCKET_BAD;
    }
    return socket(addr->family, addr->socktype, addr->protocol);
}

static char *dup_trim(const char *s, size_t max)
{
    if (!s)
        return NULL;
    size_t n;
    s = str_trim(s, &n);
    if (n == 0)
        return NULL;
    if (n > max) {
        n = max;
        while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--; /* never cut inside a UTF-8 sequence */
    }
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    memcpy(out, s, n);
    out[n] = '\0';
    return out;
}

/* Depth-first walk for <title>, the Open Graph metas and the readable text (bounded
 * depth). */
static void walk(xmlNode *n, int depth, char **title, char **og_title, char **site,
                 struct buf *text)
{
    for (; n && depth < 64; n = n->next) {
        if (text && (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) && n->content) {
            buf_append(text, (const char *)n->content, strlen((const char *)n->content));
            buf_append(text, " ", 1);
        }
        if (n->type == XML_ELEMENT_NODE && n->name) {
            const char *name = (const char *)n->name;
            if (!*title && strcasecmp(name, "title") == 0) {
                xmlChar *t = xmlNodeGetContent(n);
                *title = dup_trim((const char *)t, 300);
                xmlFree(t);
            } else if (strcasecmp(name, "meta") == 0) {
                xmlChar *prop = xmlGetProp(n, (const xmlChar *)"property");
                if (!prop)
                    prop = xmlGetProp(n, (const xmlChar *)"name");
                xmlChar *content = xmlGetProp(n, (const xmlChar *)"content");
                if (prop && content) {
                    if (!*og_title && strcasecmp((const char *)prop, "og:title") == 0)
                        *og_title = dup_trim((const char *)content, 300);
                    else if (!*site && strcasecmp((const char *)prop, "og:site_name") == 0)
                        *site = dup_trim((const char *)content, 200);
                }
                xmlFree(prop);
                xmlFree(content);
            }
            bool hidden = strcasecmp(name, "script") == 0 || strcasecmp(name, "style") == 0 ||
                          strcasecmp(name, "noscript") == 0 || strcasecmp(name, "title") == 0;
            walk(n->children, depth + 1, title, og_title, site, hidden ? NULL : text);
        }
    }
}

void fetch_html_meta(const char *html, size_t len, char **title, char **publisher, struct buf *text)
{
    *title = *publisher = NULL;
    if (len > INT32_MAX)
        return;
    htmlDocPtr doc = htmlReadMemory(html, (int)len, NULL, NULL,
                                    HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET |
                                        HTML_PARSE_RECOVER | HTML_PARSE_NOBLANKS);
    if (!doc)
        return;
    char *plain = NULL, *og = NULL;
    walk(xmlDocGetRootElement(doc), 0, &plain, &og, publisher, text);
    xmlFreeDoc(doc);
    if (og) {
        free(plain);
        *title = og;
    } else {
        *title = plain;
    }
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* The checks before any connection: http or https, and a URL a lead may carry. NULL, or the
 * error code. */
static const char *url_refused(const char *url)
{
    if (!url || strncasecmp(url, "http", 4) != 0 ||
        (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0)) {
        bool has_scheme = url && strstr(url, ":") && strcspn(url, ":") < strcspn(url, "/");
        return has_scheme ? "bad_scheme" : "bad_url";
    }
    return lead_url_valid(url) ? NULL : "bad_url";
}

/* One transfer's easy handle with every rule of the policy: the protocols (also after a
 * redirect), the redirect cap, the time and byte caps, no proxy, and the socket callback
 * that checks each resolved address before connecting. Every fetch goes through here. */
static CURL *easy_for(const struct fetch_policy *p, const char *url, long timeout_ms, struct ctx *c)
{
    CURL *h = curl_easy_init();
    if (!h)
        return NULL;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, p->max_redirects);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 5000 ? timeout_ms : 5000L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROXY, "");
    curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(h, CURLOPT_USERAGENT, "Whistle-research/1");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
    curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, c);
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)p->max_bytes);
    curl_easy_setopt(h, CURLOPT_PRIVATE, c);
    return h;
}

/* The result of a finished (or abandoned) transfer into out. */
static void conclude(CURL *h, CURLcode rc, struct ctx *c, struct fetch_result *out)
{
    long status = 0, redirects = 0;
    char *eff = NULL, *ct = NULL;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(h, CURLINFO_REDIRECT_COUNT, &redirects);
    curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &eff);
    curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ct);
    out->final_url = dup_or_null(eff);
    out->redirects = redirects;
    if (rc == CURLE_OK) {
        out->status = status;
        out->content_type = dup_or_null(ct);
        out->bytes = c->body.len;
        unsigned char hash[crypto_hash_sha256_BYTES];
        crypto_hash_sha256(hash, (const unsigned char *)c->body.p, c->body.len);
        sodium_bin2hex(out->hash, sizeof out->hash, hash, sizeof hash);
        struct buf text = BUF_INIT;
        if (ct && strcasestr(ct, "html"))
            fetch_html_meta(c->body.p, c->body.len, &out->title, &out->publisher, &text);
        else if (ct && strncasecmp(ct, "text/", 5) == 0 && c->body.len)
            buf_append(&text, c->body.p, c->body.len);
        if (text.len) {
            out->text = buf_detach(&text, &out->text_len);
        }
    } else if (c->blocked) {
        out->error = "blocked_address";
    } else if (c->too_large || rc == CURLE_FILESIZE_EXCEEDED) {
        out->error = "too_large";
    } else if (rc == CURLE_TOO_MANY_REDIRECTS) {
        out->error = "too_many_redirects";
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
        out->error = "timeout";
    } else if (rc == CURLE_UNSUPPORTED_PROTOCOL) {
        out->error = "bad_scheme";
    } else if (rc == CURLE_URL_MALFORMAT) {
        out->error = "bad_url";
    } else if (rc == CURLE_COULDNT_RESOLVE_HOST) {
        out->error = "unresolvable"; /* no such host: retrying will not make it exist */
    } else {
        out->error = "unreachable";
    }
}

int fetch_urls(const struct fetch_policy *p, const char *const *urls, int n, int64_t now,
               const atomic_bool *stop, struct fetch_result *out)
{
    int rc = -1;
    CURLM *m = curl_multi_init();
    struct ctx *ctxs = calloc((size_t)(n > 0 ? n : 1), sizeof *ctxs);
    CURL **handles = calloc((size_t)(n > 0 ? n : 1), sizeof *handles);
    long deadline_ms = p->deadline_ms > 0 ? p->deadline_ms : p->timeout_ms;
    long per_url_ms = p->timeout_ms < deadline_ms ? p->timeout_ms : deadline_ms;
    int running = 0;
    for (int i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].status = -1;
        out[i].fetched_at = now;
        out[i].error = !m || !ctxs || !handles ? "unreachable" : url_refused(urls[i]);
        if (out[i].error)
            continue;
        ctxs[i] = (struct ctx){.p = p, .body = BUF_INIT};
        handles[i] = easy_for(p, urls[i], per_url_ms, &ctxs[i]);
        if (!handles[i] || curl_multi_add_handle(m, handles[i]) != CURLM_OK) {
            out[i].error = "unreachable";
            continue;
        }
        running++;
    }
    /* every transfer at once; the whole lot ends by the deadline, or at once on stop */
    int64_t start = time_mono_us();
    bool stopped = false;
    while (running > 0) {
        if (curl_multi_perform(m, &running) != CURLM_OK)
            break;
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            /* the message is freed with its handle (curl_multi_info_read(3)): read it first */
            CURL *done = msg->easy_handle;
            CURLcode result = msg->data.result;
            for (int i = 0; i < n; i++) {
                if (handles[i] != done)
                    continue;
                conclude(handles[i], result, &ctxs[i], &out[i]);
                curl_multi_remove_handle(m, handles[i]);
                curl_easy_cleanup(handles[i]);
                handles[i] = NULL;
                break;
            }
        }
        if (running == 0)
            break;
        if (stop && atomic_load(stop)) {
            stopped = true;
            break;
        }
        if (time_mono_us() - start >= (int64_t)deadline_ms * 1000)
            break;
        curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    /* what is still running when the deadline passed (or the worker stops) timed out */
    for (int i = 0; i < n; i++) {
        if (!handles[i])
            continue;
        conclude(handles[i], CURLE_OPERATION_TIMEDOUT, &ctxs[i], &out[i]);
        if (stopped)
            out[i].error = "stopped";
        curl_multi_remove_handle(m, handles[i]);
        curl_easy_cleanup(handles[i]);
    }
    for (int i = 0; ctxs && i < n; i++)
        buf_release(&ctxs[i].body);
    rc = stopped ? -1 : 0;
    free(handles);
    free(ctxs);
    if (m)
        curl_multi_cleanup(m);
    return rc;
}

int fetch_url(const struct fetch_policy *p, const char *url, int64_t now, struct fetch_result *out)
{
    const char *one[1] = {url};
    struct fetch_policy alone = *p;
    alone.deadline_ms = p->timeout_ms; /* one URL: its own timeout is the deadline */
    fetch_urls(&alone, one, 1, now, NULL, out);
    return out->error ? -1 : 0;
}

void fetch_result_release(struct fetch_result *r)
{
    free(r->final_url);
    free(r->content_type);
    free(r->title);
    free(r->publisher);
    free(r->text);
    memset(r, 0, sizeof *r);
}
