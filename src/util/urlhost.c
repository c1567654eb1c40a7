#include <libpsl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uriparser/Uri.h>

#include "util/urlhost.h"

int url_host(const char *url, char *out, size_t n)
{
    UriUriA uri;
    const char *err = NULL;
    if (!url || uriParseSingleUriA(&uri, url, &err) != URI_SUCCESS)
        return -1;
    int rc = -1;
    size_t len = uri.hostText.first ? (size_t)(uri.hostText.afterLast - uri.hostText.first) : 0;
    if (len > 0 && len < n) {
        for (size_t i = 0; i < len; i++) {
            char c = uri.hostText.first[i];
            out[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
        }
        out[len] = '\0';
        /* a fully qualified name's trailing dot names the same host */
        if (len > 1 && out[len - 1] == '.')
            out[len - 1] = '\0';
        rc = 0;
    }
    uriFreeUriMembersA(&uri);
    return rc;
}

static int is_ip_literal(const char *h)
{
    if (strchr(h, ':'))
        return 1;
    for (const char *p = h; *p; p++)
        if (!((*p >= '0' && *p <= '9') || *p == '.'))
            return 0;
    return 1;
}

int url_registrable_domain(const char *url, char *out, size_t n)
{
    if (url_host(url, out, n) < 0)
        return -1;
    if (is_ip_literal(out))
        return 0;
    const char *reg = psl_registrable_domain(psl_builtin(), out);
    if (reg && reg != out)
        memmove(out, reg, strlen(reg) + 1);
    return 0;
}

struct origin {
    char scheme[8], host[256];
    long port;
};

static int parse_origin(const char *url, struct origin *o)
{
    UriUriA uri;
    const char *err = NULL;
    if (!url || uriParseSingleUriA(&uri, url, &err) != URI_SUCCESS)
        return -1;
    size_t sl = uri.scheme.first ? (size_t)(uri.scheme.afterLast - uri.scheme.first) : 0;
    size_t pl = uri.portText.first ? (size_t)(uri.portText.afterLast - uri.portText.first) : 0;
    char port[8] = "";
    int rc = -1;
    if (sl > 0 && sl < sizeof o->scheme && pl < sizeof port) {
        memcpy(o->scheme, uri.scheme.first, sl);
        o->scheme[sl] = '\0';
        memcpy(port, uri.portText.first ? uri.portText.first : "", pl);
        port[pl] = '\0';
        rc = 0;
    }
    uriFreeUriMembersA(&uri);
    if (rc < 0 || url_host(url, o->host, sizeof o->host) < 0)
        return -1;
    char *end = NULL;
    if (port[0]) {
        o->port = strtol(port, &end, 10);
        if (*end || o->port < 1 || o->port > 65535)
            return -1;
    } else if (strcasecmp(o->scheme, "http") == 0) {
        o->port = 80;
    } else if (strcasecmp(o->scheme, "https") == 0) {
        o->port = 443;
    } else {
        return -1;
    }
    return 0;
}

static bool is_loopback_name(const char *h)
{
    return strcmp(h, "localhost") == 0 || strcmp(h, "127.0.0.1") == 0 || strcmp(h, "::1") == 0;
}

bool url_same_origin(const char *base, const char *url)
{
    struct origin a, b;
    if (parse_origin(base, &a) < 0 || parse_origin(url, &b) < 0)
        return false;
    if (strcasecmp(a.scheme, b.scheme) != 0 || a.port != b.port)
        return false;
    return strcmp(a.host, b.host) == 0 || (is_loopback_name(a.host) && is_loopback_name(b.host));
}
