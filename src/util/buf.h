#ifndef WHISTLE_UTIL_BUF_H
#define WHISTLE_UTIL_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * A growable byte buffer (git's strbuf contract).
 *
 * - p is never NULL and always NUL-terminated: BUF_INIT points it at buf_slop, a shared
 *   static "", until the first append allocates (alloc is 0 until then). buf_release()
 *   frees the storage and resets the buffer to empty, buf_detach() hands the storage to
 *   the caller (you now own it; free() it) and resets the buffer; both keep the cap. Nothing may
 * write through p while alloc is 0: write only into space buf_grow() reserved, then buf_setlen().
 * - A buffer may carry a cap (BUF_INIT_MAX(n): len never exceeds n). An append that does
 *   not fit is not made at all (never half of it), marks the buffer overflowed and makes
 *   every later append a no-op: the caller checks buf_overflowed() before using the
 *   content, so a capped buffer is never silently truncated. buf_reset(), buf_release() and
 *   buf_detach() clear the mark.
 *
 * Allocation failure aborts the process: a server that cannot allocate a few KiB cannot
 * answer anyway, and every caller stays simple.
 */
struct buf {
    char *p;       /* never NULL; buf_slop while alloc is 0 */
    size_t len;    /* bytes before the terminating NUL */
    size_t alloc;  /* bytes allocated at p, 0 for the slop */
    size_t max;    /* the cap on len, 0 for none */
    bool overflow; /* an append did not fit under max and was not made */
};

extern char buf_slop[1];

#define BUF_INIT_MAX(n)                                                                            \
    {                                                                                              \
        buf_slop, 0, 0, (n), false                                                                 \
    }
#define BUF_INIT BUF_INIT_MAX(0)

/* Makes room for extra more bytes (plus the NUL) after len; the cap is not checked here. */
void buf_grow(struct buf *b, size_t extra);
/* Sets len after writing directly into space reserved by buf_grow() and terminates. Past
 * the cap the write is undone (len stays) and the buffer is marked overflowed. */
void buf_setlen(struct buf *b, size_t len);
void buf_append(struct buf *b, const void *data, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_putc_grow(struct buf *b, char c);
/* Appends one byte: in place when it fits under no cap (the JSON writer's hot path), else
 * through buf_putc_grow. */
static inline void buf_putc(struct buf *b, char c)
{
    if (!b->max && b->len + 2 <= b->alloc) {
        b->p[b->len++] = c;
        b->p[b->len] = '\0';
        return;
    }
    buf_putc_grow(b, c);
}
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Writes a message into err (size errlen, truncated to fit) and returns -1: the refusal of a
 * validator that reports why in a caller's buffer. */
int err_printf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* True when an append since the last reset did not fit under the cap. */
static inline bool buf_overflowed(const struct buf *b)
{
    return b->overflow;
}
void buf_reset(struct buf *b);
void buf_release(struct buf *b);
/* The storage (you now own it; free() it; "" when nothing was appended) and its length in
 * *len when len is not NULL; the buffer is reset to empty, keeping its cap. */
char *buf_detach(struct buf *b, size_t *len);

/* Appends s percent-encoded for a URL path segment or query value (RFC 3986 unreserved kept). */
void buf_put_urlencoded(struct buf *b, const char *s);

#endif
