#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(void)
{
    fputs("whistle: out of memory\n", stderr);
    abort();
}

void buf_grow(struct buf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p)
        oom();
    b->p = p;
    b->cap = cap;
}

void buf_append(struct buf *b, const void *data, size_t n)
{
    if (b->len + n + 1 > b->cap)
        buf_grow(b, n);
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

void buf_putc(struct buf *b, char c)
{
    if (b->len + 2 > b->cap)
        buf_grow(b, 1);
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    buf_grow(b, 64);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    if (n < 0) {
        va_end(cp);
        return;
    }
    if ((size_t)n >= b->cap - b->len) {
        buf_grow(b, (size_t)n);
        vsnprintf(b->p + b->len, b->cap - b->len, fmt, cp);
    }
    va_end(cp);
    b->len += (size_t)n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void buf_reset(struct buf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}

void buf_release(struct buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

char *buf_detach(struct buf *b, size_t *len)
{
    if (!b->p) {
        buf_grow(b, 0);
        b->p[0] = '\0';
    }
    char *p = b->p;
    if (len)
        *len = b->len;
    b->p = NULL;
    b->len = b->cap = 0;
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
