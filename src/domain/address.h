#ifndef WHISTLE_DOMAIN_ADDRESS_H
#define WHISTLE_DOMAIN_ADDRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/*
 * Which addresses an outbound research fetch may connect to (ARCHITECTURE.md security
 * rules): public unicast only. Refused: loopback, unspecified, RFC 1918 private, carrier
 * NAT, link-local (so the 169.254.169.254 metadata service), multicast, reserved and
 * documentation ranges, IPv6 loopback / ULA / link-local / multicast, and the IPv4-mapped,
 * IPv4-compatible and NAT64 forms of refused IPv4 addresses.
 */
bool address_is_public(const struct sockaddr *sa);

/*
 * The client address of a request (issue 14, item 2; docs/deploy.md, docs/security.md).
 * Every per-address limit, the ballot and sign-in keys, the comment limits, the access log
 * line and the connection share key on it, so it is computed in one place: http/server.c
 * calls address_client() once per request with the socket peer, the operators' trusted
 * proxies (--trusted-proxy) and the request's X-Forwarded-For headers.
 */
struct address {
    int family; /* AF_INET or AF_INET6; an IPv4-mapped IPv6 address is stored as AF_INET */
    unsigned char b[16];
};

/* A CIDR range: `bits` leading bits of `net` (the rest are zero). */
struct address_range {
    struct address net;
    int bits;
};

/* Room for an address as text, with a "/64" suffix. */
#define ADDRESS_TEXT_MAX 64

/* Parses an IPv4 or IPv6 literal ("203.0.113.7", "2001:db8::1", "[2001:db8::1]");
 * ::ffff:a.b.c.d becomes a.b.c.d. 0, or -1 when text is not exactly one address. */
int address_parse(const char *text, struct address *out);
/* The address of a socket (sockaddr_in or sockaddr_in6): 0, or -1 for another family. */
int address_of_sockaddr(const struct sockaddr *sa, struct address *out);
/* Canonical text (inet_ntop) into out (ADDRESS_TEXT_MAX). */
void address_format(const struct address *a, char *out, size_t n);

/* Parses "a.b.c.d/N" (N 0..32), "x::/N" (N 0..128) or a bare address (a host: /32, /128).
 * The bits past the prefix must be zero. 0, or -1 with nothing else said. */
int address_range_parse(const char *text, struct address_range *out);
/* Whether a is inside any of the n ranges (an IPv4 address never matches an IPv6 range:
 * mapped addresses were folded to IPv4 when parsed). */
bool address_in_ranges(const struct address *a, const struct address_range *r, size_t n);

/*
 * The client address of a request whose socket peer is `peer`. When the peer is not inside
 * a trusted range, it is the client and X-Forwarded-For is ignored (a client that connects
 * directly cannot choose its address). When it is, `xff` (every X-Forwarded-For header of
 * the request joined by "," in order, or NULL) is read from the right: each trusted proxy
 * appends the address it received the request from, so the right-most hop that is not
 * itself trusted is the client; hops to its left were written by the client and are never
 * read. A hop that is not an address (an empty element, a port, junk) ends the walk at the
 * peer: a malformed header gives the proxy's own address, which limits everyone behind it
 * together rather than trusting a value no proxy wrote. A header whose hops are all
 * trusted gives the left-most one; no header gives the peer.
 */
void address_client(const struct address *peer, const char *xff,
                    const struct address_range *trusted, size_t ntrusted, struct address *out);

/*
 * The key every per-address limit counts under: an IPv4 address as it is; an IPv6 address
 * folded to its /64 ("2001:db8:1:2::/64"), the block one subscriber usually holds, so that
 * walking through one's own /64 gains nothing. Text that is not an address is kept as it is.
 */
void address_limit_key(const char *addr, char *out, size_t n);

#endif
