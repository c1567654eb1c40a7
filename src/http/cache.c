#include "http/cache.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_SLOTS     512          /* entries per thread */
#define CACHE_MAX_BODY  (512 * 1024) /* larger bodies are not cached */
#define CACHE_MAX_BYTES (64u << 20)  /* per thread */

/* the incidents whose tallies a body shows, with their fingerprints (cache.h) */
struct deps {
    bool all; /* more than CACHE_DEPS_MAX: depends on every tally */
    size_t n;
    char **ids;
    uint64_t *fps;
};

struct slot {
    uint64_t hash;
    char *key;
    struct cache_token token;
    struct deps deps;
    struct cache_body *body;
    struct cache_body *gz; /* the body's gzip form, once a client took it */
};

static _Thread_local struct slot *slots;
static _Thread_local size_t bytes;
/* the response being rendered on this thread */
static _Thread_local struct {
    bool all;
    size_t n;
    char *ids[CACHE_DEPS_MAX];
    uint64_t fps[CACHE_DEPS_MAX];
} rendering;
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void on_thread_exit(void *unused)
{
    (void)unused;
    cache_thread_release();
}

static void exit_key_init(void)
{
    pthread_key_create(&exit_key, on_thread_exit);
}

static uint64_t hash_key(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

void cache_body_unref(struct cache_body *b)
{
    if (b && atomic_fetch_sub(&b->refs, 1) == 1)
        free(b);
}

static void deps_free(struct deps *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->ids[i]);
    free(d->ids);
    free(d->fps);
    memset(d, 0, sizeof *d);
}

/* A copy of the rendering thread's dependencies; false when out of memory. */
static bool deps_copy(struct deps *d)
{
    memset(d, 0, sizeof *d);
    d->all = rendering.all;
    if (d->all || rendering.n == 0)
        return true;
    d->ids = calloc(rendering.n, sizeof *d->ids);
    d->fps = calloc(rendering.n, sizeof *d->fps);
    if (!d->ids || !d->fps) {
        deps_free(d);
        return false;
    }
    for (; d->n < rendering.n; d->n++) {
        if (!(d->ids[d->n] = strdup(rendering.ids[d->n]))) {
            deps_free(d);
            return false;
        }
        d->fps[d->n] = rendering.fps[d->n];
    }
    return true;
}

void cache_deps_begin(void)
{
    for (size_t i = 0; i < rendering.n; i++)
        free(rendering.ids[i]);
    rendering.n = 0;
    rendering.all = false;
}

void cache_deps_add(void *unused, const char *id, uint64_t fp)
{
    (void)unused;
    if (rendering.all)
        return;
    for (size_t i = 0; i < rendering.n; i++)
        if (rendering.fps[i] == fp && strcmp(rendering.ids[i], id) == 0)
            return; /* read twice, unchanged */
    char *copy = rendering.n < CACHE_DEPS_MAX ? strdup(id) : NULL;
    if (!copy) {
        cache_deps_begin();
        rendering.all = true;
        return;
    }
    rendering.ids[rendering.n] = copy;
    rendering.fps[rendering.n++] = fp;
}

static void slot_clear(struct slot *s)
{
    if (s->body) {
        bytes -= s->body->len;
        cache_body_unref(s->body);
    }
    if (s->gz) {
        bytes -= s->gz->len;
        cache_body_unref(s->gz);
    }
    free(s->key);
    deps_free(&s->deps);
    memset(s, 0, sizeof *s);
}

/* Whether an entry stored under s->token is valid under token (cache.h). */
static bool valid(struct slot *s, const struct cache_token *token, cache_fresh_fn fresh)
{
    if (s->token.content != token->content)
        return false;
    if (s->token.tally == token->tally)
        return true;
    if (s->deps.all)
        return false;
    if (s->deps.n > 0 &&
        (!fresh || fresh((const char *const *)s->deps.ids, s->deps.n, s->deps.fps) != 1))
        return false;
    s->token.tally = token->tally;
    return true;
}

/* The valid entry for key under token, or NULL (a stale one is dropped). */
static struct slot *find(const char *key, const struct cache_token *token, cache_fresh_fn fresh)
{
    if (!slots)
        return NULL;
    uint64_t h = hash_key(key);
    struct slot *s = &slots[h % CACHE_SLOTS];
    if (!s->body || s->hash != h || strcmp(s->key, key) != 0)
        return NULL;
    if (!valid(s, token, fresh)) {
        slot_clear(s); /* stale: the database changed since it was stored */
        return NULL;
    }
    return s;
}

static struct cache_body *ref(struct cache_body *b)
{
    if (b)
        atomic_fetch_add(&b->refs, 1);
    return b;
}

struct cache_body *cache_get(const char *key, const struct cache_token *token, cache_fresh_fn fresh)
{
    struct slot *s = find(key, token, fresh);
    return s ? ref(s->body) : NULL;
}

struct cache_body *cache_get_gzip(const char *key, const struct cache_token *token,
                                  cache_fresh_fn fresh)
{
    struct slot *s = find(key, token, fresh);
    return s ? ref(s->gz) : NULL;
}

static struct cache_body *body_new(int status, const char *content_type, const char *data,
                                   size_t len)
{
    struct cache_body *b = malloc(sizeof *b + len);
    if (!b)
        return NULL;
    atomic_init(&b->refs, 1);
    b->status = status;
    b->content_type = content_type;
    b->len = len;
    memcpy(b->data, data, len);
    return b;
}

void cache_put_gzip(const char *key, const struct cache_token *token, const char *body, size_t len)
{
    /* the entry just read or stored under this very token (nothing is dropped here) */
    if (!slots)
        return;
    uint64_t h = hash_key(key);
    struct slot *s = &slots[h % CACHE_SLOTS];
    if (!s->body || s->hash != h || strcmp(s->key, key) != 0 ||
        s->token.content != token->content || s->token.tally != token->tally)
        return;
    if (s->gz || bytes + len > CACHE_MAX_BYTES)
        return;
    s->gz = body_new(s->body->status, s->body->content_type, body, len);
    if (s->gz)
        bytes += len;
}

void cache_put(const char *key, const struct cache_token *token, int status,
               const char *content_type, const char *body, size_t len)
{
    if (len > CACHE_MAX_BODY)
        return;
    if (!slots) {
        slots = calloc(CACHE_SLOTS, sizeof *slots);
        if (!slots)
            return;
        /* the cache is freed when its thread exits */
        pthread_once(&exit_once, exit_key_init);
        pthread_setspecific(exit_key, slots);
    }
    uint64_t h = hash_key(key);
    struct slot *s = &slots[h % CACHE_SLOTS];
    slot_clear(s); /* direct-mapped: a collision evicts */
    if (bytes + len > CACHE_MAX_BYTES)
        return;
    struct cache_body *b = body_new(status, content_type, body, len);
    char *k = strdup(key);
    struct deps d;
    if (!b || !k || !deps_copy(&d)) {
        free(b);
        free(k);
        return;
    }
    s->hash = h;
    s->key = k;
    s->token = *token;
    s->deps = d;
    s->body = b;
    bytes += len;
}

void cache_thread_release(void)
{
    cache_deps_begin();
    if (!slots)
        return;
    for (size_t i = 0; i < CACHE_SLOTS; i++)
        slot_clear(&slots[i]);
    free(slots);
    slots = NULL;
}
