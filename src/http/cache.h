#ifndef WHISTLE_HTTP_CACHE_H
#define WHISTLE_HTTP_CACHE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A per-thread cache of public GET response bodies, keyed by path and query and
 * validated by a token from the store that changes whenever the database may have changed
 * (any commit, from this process or another one). A stale entry is never served: the
 * token is read before each lookup, so a withdrawal shows on the next request (api-v1.md
 * "What the service does" 7). Only the body is cached; headers (X-Request-Id) are per
 * request.
 *
 * Bodies are reference-counted: a response being sent keeps its body alive after the
 * entry is evicted.
 */
struct cache_body {
    atomic_int refs;
    int status;
    const char *content_type; /* static string */
    size_t len;
    char data[];
};

struct cache_token {
    uint64_t a, b;
};

/* Finds a body for key valid under token; returns it with a reference the caller owns
 * (cache_body_unref), or NULL. */
struct cache_body *cache_get(const char *key, const struct cache_token *token);

/* Stores a copy of body for key under token (replacing an older entry). */
void cache_put(const char *key, const struct cache_token *token, int status,
               const char *content_type, const char *body, size_t len);

void cache_body_unref(struct cache_body *b);

/* Frees the calling thread's cache (thread exit). */
void cache_thread_release(void);

#endif
