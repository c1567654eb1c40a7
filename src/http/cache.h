#ifndef WHISTLE_HTTP_CACHE_H
#define WHISTLE_HTTP_CACHE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A per-thread cache of public GET response bodies, keyed by path and query and validated
 * by a token from the store (store.h store_data_version) read before each lookup, so a
 * stale entry is never served: a withdrawal shows on the next request (api-v1.md "What the
 * service does" 7). Only the body is cached; headers (X-Request-Id) are per request.
 *
 * The token has two parts (issue 20 item 5): the content version, moved by every committed
 * write but ballots, and the tally version, moved by every ballot. An entry also keeps the
 * incidents whose tallies its body shows, each with a fingerprint of the tallies it
 * rendered (recorded by the store as they are read: cache_deps_add; more than
 * CACHE_DEPS_MAX of them count as "every tally"). Validation:
 *   content version moved                        -> miss;
 *   tally version the same                       -> hit;
 *   tally version moved, the body shows no tally -> hit (the entry takes the new version);
 *   else the tallies of its incidents are read now (one statement): all fingerprints equal
 *   -> hit (the entry takes the new version), else miss.
 * Why that is race-free: the versions move only after their commit is visible (store.h),
 * the token is read before the handler renders, and each fingerprint comes from the very
 * rows the body was rendered from. A ballot that the re-check did not see has not moved the
 * tally version the entry takes, so the next request checks again. A ballot on incident A
 * thus leaves every cached body without A's tallies valid on every node.
 *
 * Bodies are reference-counted: a response being sent keeps its body alive after the
 * entry is evicted. An entry may also hold its body's gzip form (http/gzip.h), made at the
 * first request that takes gzip and dropped with the entry.
 */
#define CACHE_DEPS_MAX 200

struct cache_body {
    atomic_int refs;
    int status;
    const char *content_type; /* static string */
    size_t len;
    char data[];
};

struct cache_token {
    uint64_t content, tally;
};

/* Whether the tallies of ids still have the fingerprints fps: 1 yes, 0 no, negative when
 * it cannot tell (a miss). */
typedef int (*cache_fresh_fn)(const char *const *ids, size_t n, const uint64_t *fps);

/* The tally dependencies of the response the calling thread renders: cache_deps_begin
 * forgets the last ones; cache_deps_add (the store's tally watcher, store/incidents.h)
 * records one incident's tallies as read. */
void cache_deps_begin(void);
void cache_deps_add(void *unused, const char *id, uint64_t fp);

/* Finds a body for key valid under token (fresh checks tally dependencies); returns it with
 * a reference the caller owns (cache_body_unref), or NULL. */
struct cache_body *cache_get(const char *key, const struct cache_token *token,
                             cache_fresh_fn fresh);

/* Stores a copy of body for key under token with the thread's recorded tally dependencies
 * (replacing an older entry). */
void cache_put(const char *key, const struct cache_token *token, int status,
               const char *content_type, const char *body, size_t len);

/* The gzip form of the entry for key valid under token, with a reference the caller owns,
 * or NULL (no entry, or none compressed yet). */
struct cache_body *cache_get_gzip(const char *key, const struct cache_token *token,
                                  cache_fresh_fn fresh);

/* Keeps the gzip form of the entry for key under token beside it (nothing when that entry
 * is not there). */
void cache_put_gzip(const char *key, const struct cache_token *token, const char *body, size_t len);

void cache_body_unref(struct cache_body *b);

/* Frees the calling thread's cache (thread exit). */
void cache_thread_release(void);

#endif
