#include "util/buf.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The storage of every buffer that has not allocated: "" and never written. */
char buf_slop[1];

static void oom(void)
{
    fputs("whistle: out of memory\n", stderr);
    abort();
}

void buf_grow(struct buf *b, size_t extra)
{
    assert(b->p && b->len < (b->alloc ? b->alloc : 1));
    size_t need = b->len + extra + 1;
    if (need <= b->alloc)
        return;
    size_t alloc = b->alloc ? b->alloc : 256;
    while (alloc < need)
        alloc *= 2;
    char *p = realloc(b->alloc ? b->p : NULL, alloc);
    if (!p)
        oom();
    if (!b->alloc)
        p[0] = '\0';
    b->p = p;
    b->alloc = alloc;
}

/* True when n more bytes fit under the cap; marks the buffer overflowed when not. Once
 * overflowed, nothing more is appended until a reset: the content never has a hole. */
static bool fits(struct buf *b, size_t n)
{
    if (!b->max || (!b->overflow && n <= b->max && b->len <= b->max - n))
        return true;
    b->overflow = true;
    return false;
}

void buf_setlen(struct buf *b, size_t len)
{
    assert(b->alloc && len < b->alloc);
    if (len > b->len && !fits(b, len - b->len)) {
        b->p[b->len] = '\0';
        return;
    }
    b->len = len;
    b->p[len] = '\0';
}

void buf_append(struct buf *b, const void *data, size_t n)
{
    if (!n || !fits(b, n))
        return;
    if (b->len + n + 1 > b->alloc)
        buf_grow(b, n);
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

void buf_putc_grow(struct buf *b, char c)
{
    if (!fits(b, 1))
        return;
    if (b->len + 2 > b->alloc)
        buf_grow(b, 1);
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    buf_grow(b, 64);
    int n = vsnprintf(b->p + b->len, b->alloc - b->len, fmt, ap);
    if (n >= 0 && (size_t)n >= b->alloc - b->len) {
        buf_grow(b, (size_t)n);
        vsnprintf(b->p + b->len, b->alloc - b->len, fmt, cp);
    }
    va_end(cp);
    if (n < 0) {
        b->p[b->len] = '\0';
        return;
    }
    buf_setlen(b, b->len + (size_t)n);
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

int err_printf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

void buf_reset(struct buf *b)
{
    b->len = 0;
    b->overflow = false;
    if (b->alloc)
        b->p[0] = '\0';
}

void buf_release(struct buf *b)
{
    if (b->alloc)
        free(b->p);
    *b = (struct buf)BUF_INIT_MAX(b->max);
}

char *buf_detach(struct buf *b, size_t *len)
{
    if (!b->alloc)
        buf_grow(b, 0);
    char *p = b->p;
    if (len)
        *len = b->len;
    *b = (struct buf)BUF_INIT_MAX(b->max);
    return p;
}

void buf_put_urlencoded(struct buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
            *c == '-' || *c == '.' || *c == '_' || *c == '~') {
            buf_putc(b, (char)*c);
        } else {
            char e[3] = {'%', hex[*c >> 4], hex[*c & 15]};
            buf_append(b, e, 3);
        }
    }
}
