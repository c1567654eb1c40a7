#include <libpsl.h>
#include <string.h>
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
