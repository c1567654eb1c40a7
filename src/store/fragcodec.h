#ifndef WHISTLE_STORE_FRAGCODEC_H
#define WHISTLE_STORE_FRAGCODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/arena.h"

/*
 * SQLite's compressed fragment bodies (migration 030, issue 13; store/fragments.h). A stored
 * body is either plain text (a JSON fragment: its first byte is '{') or a blob: the byte
 * FRAGCODEC_V1, the 8 bytes of its dictionary's ID and the 4 of its plain length (little
 * endian), then an LZ4 block compressed against that dictionary. Dictionaries are 32 KiB of
 * stored bodies as they were (fragment_dicts), made once by the first writer that finds 8
 * plain bodies and none made, and never changed: a process keeps every one it has read, by
 * ID (random, so never another database's).
 */

#define FRAGCODEC_V1   0x01
#define FRAGCODEC_HEAD 13

/* The form of body (len bytes) to store on SQLite s, inside the write transaction that stores
 * it (which may make the first dictionary): 1 with the compressed bytes in *out (malloc'd, the
 * caller frees), 0 to store it plain (no dictionary yet, or it would not shrink), or a negative
 * store_rc. */
int fragcodec_encode(struct store *s, const char *body, size_t len, unsigned char **out,
                     size_t *outlen);
/* The plain body of stored bytes p (n of them): plain text as it is, compressed decompressed
 * into a (NUL-terminated): 1 with *body and *len; 0 when it cannot be read (an unknown
 * dictionary, a damaged blob, a NUL byte: the caller reads the incident from its rows); or a
 * negative store_rc (its dictionary could not be read from s). */
int fragcodec_decode(struct store *s, struct arena *a, const void *p, size_t n, const char **body,
                     size_t *len);

#endif
