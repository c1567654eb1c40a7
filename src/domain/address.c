#include "domain/address.h"

#include <netinet/in.h>
#include <stdint.h>
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
