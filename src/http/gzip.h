#ifndef WHISTLE_HTTP_GZIP_H
#define WHISTLE_HTTP_GZIP_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/*
 * Compressed responses (issue 13, docs/operators.md): a cacheable response of at least
 * GZIP_MIN_BODY bytes goes gzip-compressed to a client whose Accept-Encoding takes gzip, and
 * every cacheable response says Vary: Accept-Encoding. The response cache keeps the
 * compressed body beside the plain one (cache.h), so a compressed cached read costs what a
 * plain one does.
 */
#define GZIP_MIN_BODY 1024

/* Whether an Accept-Encoding value (NULL: the header is absent) takes gzip: "gzip" or
 * "x-gzip" with a q-value above 0, or "*" above 0 when gzip is not itself refused (q=0). */
bool gzip_accepted(const char *accept_encoding);

/* Appends the gzip form of data (one member) to out: 0, or -1. level: zlib's 1 (fastest,
 * for a body compressed once per request) to 9; 6 is gzip's default (for a body the response
 * cache keeps: compressed once, sent many times). */
int gzip_compress(const char *data, size_t len, int level, struct buf *out);

#endif
