#ifndef WHISTLE_UTIL_URLHOST_H
#define WHISTLE_UTIL_URLHOST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The host and the registrable domain of a URL: "https://WWW.Example.co.uk/x" has host
 * "www.example.co.uk" and registrable domain "example.co.uk" (the public suffix list, via
 * libpsl's built-in list). Research counts distinct registrable domains, so two pages of
 * one publisher never pass for independent discussion.
 */

/* Writes the lower-cased host of url (RFC 3986, parsed with uriparser) into out; IPv6
 * literals without brackets. Returns 0, or -1 when url has no host or out is too small. */
int url_host(const char *url, char *out, size_t n);

/* Writes the registrable domain of url into out: the public suffix plus one label; for an
 * IP literal or a host that is itself a public suffix (or has no dot), the host. Returns 0
 * or -1 as url_host(). */
int url_registrable_domain(const char *url, char *out, size_t n);

/* Whether url (an Origin header or a Referer) has the origin of base: the same scheme, host
 * and port (the scheme's default when absent), case-insensitively. When base's host is a
 * loopback spelling (localhost, 127.0.0.1, ::1), every loopback spelling counts as that
 * host: http://localhost:8080 and http://127.0.0.1:8080 are one local server. "null" and
 * anything unparsable are never the same origin. */
bool url_same_origin(const char *base, const char *url);

#endif
