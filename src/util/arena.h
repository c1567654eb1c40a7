#ifndef WHISTLE_UTIL_ARENA_H
#define WHISTLE_UTIL_ARENA_H

#include <stddef.h>

/*
 * A bump allocator: a request (or a CLI command) owns one arena, allocates from it
 * freely, and frees everything in one arena_release(). Memory comes in chunks; the first
 * one is embedded in the struct so small requests never call malloc. Allocation failure
 * aborts (see buf.h).
 */
#define ARENA_INLINE 4096

struct arena_chunk;
struct arena_defer;

struct arena {
    struct arena_chunk *chunks;
    struct arena_defer *defers; /* arena_defer's calls, the newest first */
    char *cur;
    size_t left;
    _Alignas(16) char inline_mem[ARENA_INLINE];
};

void arena_init(struct arena *a);
void *arena_alloc(struct arena *a, size_t n);       /* 16-byte aligned, uninitialised */
char *arena_strdup(struct arena *a, const char *s); /* NULL stays NULL */
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* A formatted string allocated in the arena. */
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Calls fn(arg) when the arena is released, before its memory goes (the newest first): what
 * the arena's memory refers to that it does not own, such as a reference to a shared entry
 * (store/fragments.c). */
void arena_defer(struct arena *a, void (*fn)(void *), void *arg);
void arena_release(struct arena *a);

#endif
