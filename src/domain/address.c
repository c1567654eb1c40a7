#include "domain/address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static bool v4_public(uint32_t a)
{
    static const struct {
        uint32_t net, mask;
    } refused[] = {
        {0x00000000, 0xff000000}, /* 0.0.0.0/8 "this network" */
        {0x0a000000, 0xff000000}, /* 10/8 */
        {0x64400000, 0xffc00000}, /* 100.64/10 carrier-grade NAT */
        {0x7f000000, 0xff000000}, /* 127/8 loopback */
        {0xa9fe0000, 0xffff0000}, /* 169.254/16 link-local, metadata */
        {0xac100000, 0xfff00000}, /* 172.16/12 */
        {0xc0000000, 0xffffff00}, /* 192.0.0/24 IETF */
        {0xc0000200, 0xffffff00}, /* 192.0.2/24 documentation */
        {0xc0586300, 0xffffff00}, /* 192.88.99/24 6to4 relay */
        {0xc0a80000, 0xffff0000}, /* 192.168/16 */
        {0xc6120000, 0xfffe0000}, /* 198.18/15 benchmarking */
        {0xc6336400, 0xffffff00}, /* 198.51.100/24 documentation */
        {0xcb007100, 0xffffff00}, /* 203.0.113/24 documentation */
        {0xe0000000, 0xf0000000}, /* 224/4 multicast */
        {0xf0000000, 0xf0000000}, /* 240/4 reserved, broadcast */
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if ((a & refused[i].mask) == refused[i].net)
            return false;
    return true;
}

static uint32_t v4_at(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static bool v6_public(const unsigned char *b)
{
    static const unsigned char zero[16];
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    if (memcmp(b, mapped, 12) == 0 || memcmp(b, nat64, 12) == 0)
        return v4_public(v4_at(b + 12)); /* ::ffff:a.b.c.d, 64:ff9b::a.b.c.d */
    if (memcmp(b, zero, 12) == 0)
        return false; /* ::, ::1 and the deprecated IPv4-compatible ::a.b.c.d */
    if (b[0] == 0xff)
        return false; /* ff00::/8 multicast */
    if ((b[0] & 0xfe) == 0xfc)
        return false; /* fc00::/7 unique local */
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
        return false; /* fe80::/10 link-local */
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)
        return false; /* fec0::/10 site-local (deprecated) */
    if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8)
        return false; /* 2001:db8::/32 documentation */
    if (b[0] == 0x20 && b[1] == 0x02)
        return v4_public(v4_at(b + 2)); /* 6to4 2002:a.b.c.d::/48 */
    if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0)
        return false; /* 2001::/32 Teredo: embeds arbitrary IPv4 */
    return true;
}

bool address_is_public(const struct sockaddr *sa)
{
    if (!sa)
        return false;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        return v4_public(ntohl(in->sin_addr.s_addr));
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        return v6_public(in6->sin6_addr.s6_addr);
    }
    return false;
}

/* ---- the client address of a request ------------------------------------------------ */

static const unsigned char v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* Folds ::ffff:a.b.c.d to a.b.c.d. */
static void set_v6(struct address *a, const unsigned char b[16])
{
    memset(a, 0, sizeof *a);
    if (memcmp(b, v4_mapped, 12) == 0) {
        a->family = AF_INET;
        memcpy(a->b, b + 12, 4);
    } else {
        a->family = AF_INET6;
        memcpy(a->b, b, 16);
    }
}

int address_parse(const char *text, struct address *out)
{
    char tmp[INET6_ADDRSTRLEN + 2];
    size_t n = text ? strlen(text) : 0;
    if (n == 0 || n >= sizeof tmp)
        return -1;
    if (text[0] == '[') {
        if (n < 3 || text[n - 1] != ']')
            return -1;
        memcpy(tmp, text + 1, n - 2);
        tmp[n - 2] = '\0';
        if (!strchr(tmp, ':'))
            return -1; /* brackets hold IPv6 only */
    } else {
        memcpy(tmp, text, n + 1);
    }
    unsigned char b[16];
    memset(out, 0, sizeof *out);
    if (inet_pton(AF_INET, tmp, b) == 1) {
        out->family = AF_INET;
        memcpy(out->b, b, 4);
        return 0;
    }
    if (inet_pton(AF_INET6, tmp, b) == 1) {
        set_v6(out, b);
        return 0;
    }
    return -1;
}

int address_of_sockaddr(const struct sockaddr *sa, struct address *out)
{
    memset(out, 0, sizeof *out);
    if (sa && sa->sa_family == AF_INET) {
        out->family = AF_INET;
        memcpy(out->b, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        return 0;
    }
    if (sa && sa->sa_family == AF_INET6) {
        set_v6(out, ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr);
        return 0;
    }
    return -1;
}

void address_format(const struct address *a, char *out, size_t n)
{
    char t[INET6_ADDRSTRLEN];
    if (!inet_ntop(a->family == AF_INET ? AF_INET : AF_INET6, a->b, t, sizeof t))
        t[0] = '\0';
    snprintf(out, n, "%s", t);
}

int address_range_parse(const char *text, struct address_range *out)
{
    char host[INET6_ADDRSTRLEN + 2];
    const char *slash = text ? strchr(text, '/') : NULL;
    size_t hl = slash ? (size_t)(slash - text) : (text ? strlen(text) : 0);
    if (hl == 0 || hl >= sizeof host)
        return -1;
    memcpy(host, text, hl);
    host[hl] = '\0';
    memset(out, 0, sizeof *out);
    if (address_parse(host, &out->net) < 0)
        return -1;
    /* a range written in IPv6 stays IPv6, unless it is the mapped form of IPv4 */
    int max = out->net.family == AF_INET ? 32 : 128;
    bool mapped_text = out->net.family == AF_INET && strchr(host, ':');
    int bits = max;
    if (slash) {
        const char *p = slash + 1;
        if (!*p || strlen(p) > 3)
            return -1;
        bits = 0;
        for (; *p; p++) {
            if (*p < '0' || *p > '9')
                return -1;
            bits = bits * 10 + (*p - '0');
        }
        if (mapped_text) { /* ::ffff:a.b.c.d/N counts N over 128 bits */
            if (bits < 96)
                return -1;
            bits -= 96;
        }
        if (bits > max)
            return -1;
    }
    out->bits = bits;
    for (int i = bits; i < max; i++)
        if (out->net.b[i / 8] & (0x80 >> (i % 8)))
            return -1; /* host bits set: a typo more often than a meaning */
    return 0;
}

static bool in_range(const struct address *a, const struct address_range *r)
{
    if (a->family != r->net.family)
        return false;
    int full = r->bits / 8, rest = r->bits % 8;
    if (memcmp(a->b, r->net.b, (size_t)full) != 0)
        return false;
    if (rest == 0)
        return true;
    unsigned char mask = (unsigned char)(0xff << (8 - rest));
    return (a->b[full] & mask) == (r->net.b[full] & mask);
}

bool address_in_ranges(const struct address *a, const struct address_range *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (in_range(a, &r[i]))
            return true;
    return false;
}

/* The hop xff[start..end) with surrounding blanks trimmed: 0 and *out, or -1. */
static int hop_parse(const char *start, const char *end, struct address *out)
{
    while (start < end && (*start == ' ' || *start == '\t'))
        start++;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    char t[INET6_ADDRSTRLEN + 2];
    size_t n = (size_t)(end - start);
    if (n == 0 || n >= sizeof t)
        return -1;
    memcpy(t, start, n);
    t[n] = '\0';
    return address_parse(t, out);
}

void address_client(const struct address *peer, const char *xff,
                    const struct address_range *trusted, size_t ntrusted, struct address *out)
{
    *out = *peer;
    if (!xff || !address_in_ranges(peer, trusted, ntrusted))
        return;
    const char *end = xff + strlen(xff);
    struct address hop, last = *peer;
    for (;;) {
        const char *start = end;
        while (start > xff && start[-1] != ',')
            start--;
        if (hop_parse(start, end, &hop) < 0)
            return; /* malformed: the peer */
        if (!address_in_ranges(&hop, trusted, ntrusted)) {
            *out = hop;
            return;
        }
        last = hop;
        if (start == xff)
            break;
        end = start - 1; /* before the comma */
    }
    *out = last; /* every hop is trusted: the left-most */
}

void address_limit_key(const char *addr, char *out, size_t n)
{
    struct address a;
    if (address_parse(addr, &a) < 0) {
        snprintf(out, n, "%s", addr ? addr : "");
        return;
    }
    if (a.family == AF_INET6)
        memset(a.b + 8, 0, 8);
    char t[ADDRESS_TEXT_MAX];
    address_format(&a, t, sizeof t);
    snprintf(out, n, a.family == AF_INET6 ? "%s/64" : "%s", t);
}
