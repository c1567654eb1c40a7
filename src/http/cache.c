#include "http/cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_SLOTS     512          /* entries per thread */
#define CACHE_MAX_BODY  (512 * 1024) /* larger bodies are not cached */
#define CACHE_MAX_BYTES (64u << 20)  /* per thread */

struct slot {
    uint64_t hash;
    char *key;
    struct cache_token token;
    struct cache_body *body;
};

static _Thread_local struct slot *slots;
static _Thread_local size_t bytes;
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

static void slot_clear(struct slot *s)
{
    if (s->body) {
        bytes -= s->body->len;
        cache_body_unref(s->body);
    }
    free(s->key);
    memset(s, 0, sizeof *s);
}

struct cache_body *cache_get(const char *key, const struct cache_token *token)
{
    if (!slots)
        return NULL;
    uint64_t h = hash_key(key);
    struct slot *s = &slots[h % CACHE_SLOTS];
    if (!s->body || s->hash != h || strcmp(s->key, key) != 0)
        return NULL;
    if (s->token.a != token->a || s->token.b != token->b) {
        slot_clear(s); /* stale: the database changed since it was stored */
        return NULL;
    }
    atomic_fetch_add(&s->body->refs, 1);
    return s->body;
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
    struct cache_body *b = malloc(sizeof *b + len);
    char *k = strdup(key);
    if (!b || !k) {
        free(b);
        free(k);
        return;
    }
    atomic_init(&b->refs, 1);
    b->status = status;
    b->content_type = content_type;
    b->len = len;
    memcpy(b->data, body, len);
    s->hash = h;
    s->key = k;
    s->token = *token;
    s->body = b;
    bytes += len;
}

void cache_thread_release(void)
{
    if (!slots)
        return;
    for (size_t i = 0; i < CACHE_SLOTS; i++)
        slot_clear(&slots[i]);
    free(slots);
    slots = NULL;
}
