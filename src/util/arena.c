#include "util/arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_chunk {
    struct arena_chunk *next;
    _Alignas(16) char mem[];
};

struct arena_defer {
    struct arena_defer *next;
    void (*fn)(void *);
    void *arg;
};

void arena_init(struct arena *a)
{
    a->chunks = NULL;
    a->defers = NULL;
    a->cur = a->inline_mem;
    a->left = sizeof a->inline_mem;
}

void *arena_alloc(struct arena *a, size_t n)
{
    if (n > SIZE_MAX / 2) {
        fputs("whistle: impossible allocation size\n", stderr);
        abort();
    }
    n = (n + 15) & ~(size_t)15;
    if (n > a->left) {
        size_t size = n > 16384 ? n : 16384;
        struct arena_chunk *c = malloc(sizeof *c + size);
        if (!c) {
            fputs("whistle: out of memory\n", stderr);
            abort();
        }
        c->next = a->chunks;
        a->chunks = c;
        a->cur = c->mem;
        a->left = size;
    }
    void *p = a->cur;
    a->cur += n;
    a->left -= n;
    return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
    return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return arena_strdup(a, "");
    char *p = arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void arena_defer(struct arena *a, void (*fn)(void *), void *arg)
{
    struct arena_defer *d = arena_alloc(a, sizeof *d);
    *d = (struct arena_defer){a->defers, fn, arg};
    a->defers = d;
}

void arena_release(struct arena *a)
{
    for (struct arena_defer *d = a->defers; d; d = d->next)
        d->fn(d->arg);
    struct arena_chunk *c = a->chunks;
    while (c) {
        struct arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    arena_init(a);
}
