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
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
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

int fetch_url(const struct fetch_policy *p, const char *url, int64_t now, struct fetch_result *out)
{
    memset(out, 0, sizeof *out);
    out->status = -1;
    out->fetched_at = now;
    if (!url || strncasecmp(url, "http", 4) != 0 ||
        (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0)) {
        bool has_scheme = url && strstr(url, ":") && strcspn(url, ":") < strcspn(url, "/");
        out->error = has_scheme ? "bad_scheme" : "bad_url";
        return -1;
    }
    if (!lead_url_valid(url)) {
        out->error = "bad_url";
        return -1;
    }
    CURL *h = curl_easy_init();
    if (!h) {
        out->error = "unreachable";
        return -1;
    }
    struct ctx c = {.p = p, .body = BUF_INIT};
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, p->max_redirects);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, p->timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, p->timeout_ms < 5000 ? p->timeout_ms : 5000L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROXY, "");
    curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(h, CURLOPT_USERAGENT, "Whistle-research/1");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &c);
    curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
    curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &c);
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)p->max_bytes);

    CURLcode rc = curl_easy_perform(h);
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
        out->bytes = c.body.len;
        unsigned char hash[crypto_hash_sha256_BYTES];
        crypto_hash_sha256(hash, (const unsigned char *)c.body.p, c.body.len);
        sodium_bin2hex(out->hash, sizeof out->hash, hash, sizeof hash);
        struct buf text = BUF_INIT;
        if (ct && strcasestr(ct, "html"))
            fetch_html_meta(c.body.p, c.body.len, &out->title, &out->publisher, &text);
        else if (ct && strncasecmp(ct, "text/", 5) == 0 && c.body.len)
            buf_append(&text, c.body.p, c.body.len);
        if (text.len) {
            out->text = buf_detach(&text, &out->text_len);
        }
    } else if (c.blocked) {
        out->error = "blocked_address";
    } else if (c.too_large || rc == CURLE_FILESIZE_EXCEEDED) {
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
    curl_easy_cleanup(h);
    buf_release(&c.body);
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
