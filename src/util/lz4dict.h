#ifndef WHISTLE_UTIL_LZ4DICT_H
#define WHISTLE_UTIL_LZ4DICT_H

#include <stddef.h>

/* LZ4 against a dictionary (any bytes, at most 64 KiB are used), with the calling thread's own
 * stream and scratch, kept until the thread ends: the PostgreSQL node's copy of the bodies
 * (store/bodies.c) and SQLite's stored bodies (store/fragcodec.c). Compresses src (len bytes)
 * into the thread's scratch: its length, with *out pointing at it (valid until the thread's
 * next call), or 0 when it cannot (too long, no memory). Decompress with
 * LZ4_decompress_safe_usingDict and the same dictionary. */
size_t lz4dict_compress(const char *dict, int dict_len, const char *src, size_t len,
                        const char **out);

#endif
