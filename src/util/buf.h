#ifndef WHISTLE_UTIL_BUF_H
#define WHISTLE_UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * A growable byte buffer, always NUL-terminated after buf_* calls. BUF_INIT gives an
 * empty buffer that allocates on first append; buf_release() frees the storage and
 * resets the buffer to BUF_INIT. buf_detach() hands the storage to the caller (you now
 * own it; free() it) and resets the buffer.
 *
 * Allocation failure aborts the process: a server that cannot allocate a few KiB cannot
 * answer anyway, and every caller stays simple.
 */
struct buf {
    char *p;
    size_t len;
    size_t cap;
};

#define BUF_INIT                                                                                   \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void buf_grow(struct buf *b, size_t extra);
void buf_append(struct buf *b, const void *data, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_putc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void buf_reset(struct buf *b);
void buf_release(struct buf *b);
char *buf_detach(struct buf *b, size_t *len);

/* Appends s percent-encoded for a URL path segment or query value (RFC 3986 unreserved kept). */
void buf_put_urlencoded(struct buf *b, const char *s);

#endif
