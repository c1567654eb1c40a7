#include "store/bodies.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <lz4.h>

#include "store/store.h"
#include "util/log.h"
#include "util/lz4dict.h"
#include "util/str.h"
#include "util/thread.h"
#include "util/timefmt.h"

/* The dictionary: the first bodies the process keeps, as LZ4's dictionary (any bytes will
 * do). Measured on 500 bodies of the seeded million (BENCHMARKS.md session 28): 32 KiB of
 * them compress a 4 KiB body to 384 bytes in 15 µs and decompress it in 0.7 µs; zstd with the
 * same dictionary, 259 bytes but 3 to 4.5 µs to decompress, the time a page waits for. Bodies
 * seen before it is made are not kept. */
#define DICT_BODIES 8
#define DICT_MAX    (32 << 10)
#define LOAD_BATCH  500

/* One incident's body: its ID (NUL-terminated), then clen compressed bytes. */
struct body {
    struct body *next; /* in its bucket */
    int64_t hash;
    uint32_t clen, plen;
    atomic_bool used; /* read since the eviction's hand last passed it */
    char id[];
};

/* Readers (bodies_get) share the lock; a put or an eviction takes it alone, ahead of readers
 * that come after it. */
static pthread_rwlock_t lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static struct body **buckets; /* under lock, as the four below */
static size_t nbuckets, hand, bytes, entries;
static atomic_size_t max_bytes; /* set before the readers start */
static atomic_bool loaded;
static atomic_bool dropped; /* a body came before the dictionary and was not kept */
static atomic_llong hits, misses;

/* The dictionary, made once and never freed; samples gathers its bodies until then. */
static pthread_mutex_t dict_mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(const char *) dict;
static int dict_len; /* set before dict */
static char *samples;
static size_t samples_len, samples_n;

static size_t size_of(const struct body *b, size_t idlen)
{
    return sizeof *b + idlen + 1 + b->clen;
}

/* The entry of id, NULL when none; *link the pointer that holds it (or its bucket's end). */
static struct body *find(const char *id, struct body ***link)
{
    struct body **l = &buckets[str_hash(id) & (nbuckets - 1)];
    while (*l && strcmp((*l)->id, id) != 0)
        l = &(*l)->next;
    *link = l;
    return *l;
}

static void drop(struct body **link)
{
    struct body *b = *link;
    *link = b->next;
    bytes -= size_of(b, strlen(b->id));
    entries--;
    free(b);
}

/* Second chance over the buckets (CLOCK): the hand takes the entries not read since it last
 * passed them and marks the others unread, until the copy is within its budget. Two rounds
 * at most: the first leaves every entry unread. */
static void evict(void)
{
    for (size_t steps = 0; bytes > max_bytes && steps < 2 * nbuckets; steps++) {
        struct body **l = &buckets[hand];
        while (*l && bytes > max_bytes) {
            if (atomic_exchange_explicit(&(*l)->used, false, memory_order_relaxed))
                l = &(*l)->next;
            else
                drop(l);
        }
        if (bytes > max_bytes)
            hand = (hand + 1) & (nbuckets - 1);
    }
}

static void make_tables(size_t max)
{
    max_bytes = max;
    /* a bucket for every 512 bytes of budget (an entry is about 450 at the seeded million) */
    nbuckets = 1024;
    while (nbuckets < max / 512)
        nbuckets <<= 1;
    buckets = calloc(nbuckets, sizeof *buckets);
    if (!buckets)
        max_bytes = 0;
}

void bodies_setup_empty(size_t max)
{
    pthread_rwlock_wrlock(&lock);
    if (buckets) {
        for (size_t i = 0; i < nbuckets; i++)
            while (buckets[i])
                drop(&buckets[i]);
        free(buckets);
        buckets = NULL;
    }
    bytes = entries = hand = 0;
    max_bytes = 0;
    if (max)
        make_tables(max);
    pthread_rwlock_unlock(&lock);
    atomic_store(&loaded, true); /* bodies_setup clears it for its thread */
    atomic_store(&hits, 0);
    atomic_store(&misses, 0);
}

bool bodies_enabled(void)
{
    return max_bytes > 0;
}

bool bodies_loaded(void)
{
    return atomic_load(&loaded);
}

void bodies_set_loaded(bool done)
{
    atomic_store(&loaded, done);
}

/* Makes the dictionary from the samples, if any (under dict_mu). */
static void make_dict(void)
{
    if (atomic_load(&dict) || samples_len == 0)
        return;
    dict_len = (int)samples_len;
    atomic_store_explicit(&dict, samples, memory_order_release);
    samples = NULL;
    samples_len = 0;
}

/* Adds body (up to the samples' room) to the dictionary's samples until there are enough,
 * or the loading is done, then makes it: whether there is a dictionary now. */
static bool have_dict(const char *body, size_t len)
{
    if (atomic_load_explicit(&dict, memory_order_acquire))
        return true;
    pthread_mutex_lock(&dict_mu);
    if (!atomic_load(&dict)) {
        size_t take = len < DICT_MAX - samples_len ? len : DICT_MAX - samples_len;
        char *grown = take ? realloc(samples, samples_len + take) : NULL;
        if (grown) {
            memcpy(grown + samples_len, body, take);
            samples = grown;
            samples_len += take;
            samples_n++;
        }
        if (samples_n >= DICT_BODIES || samples_len == DICT_MAX || atomic_load(&loaded))
            make_dict();
    }
    bool made = atomic_load(&dict) != NULL;
    pthread_mutex_unlock(&dict_mu);
    if (!made)
        atomic_store(&dropped, true);
    return made;
}

void bodies_put(const char *id, int64_t hash, const char *body, size_t len)
{
    if (!bodies_enabled() || len > LZ4_MAX_INPUT_SIZE || !have_dict(body, len))
        return;
    const char *d = atomic_load_explicit(&dict, memory_order_acquire);
    const char *packed;
    size_t clen = lz4dict_compress(d, dict_len, body, len, &packed);
    if (clen == 0)
        return;
    size_t idlen = strlen(id);
    struct body *b = malloc(sizeof *b + idlen + 1 + clen);
    if (!b)
        return;
    b->hash = hash;
    b->clen = (uint32_t)clen;
    b->plen = (uint32_t)len;
    atomic_init(&b->used, false);
    memcpy(b->id, id, idlen + 1);
    memcpy(b->id + idlen + 1, packed, clen);
    pthread_rwlock_wrlock(&lock);
    if (!buckets) { /* emptied in between (a test) */
        pthread_rwlock_unlock(&lock);
        free(b);
        return;
    }
    struct body **link;
    if (find(id, &link))
        drop(link);
    b->next = *link;
    *link = b;
    bytes += size_of(b, idlen);
    entries++;
    evict();
    pthread_rwlock_unlock(&lock);
}

bool bodies_get(struct arena *a, const char *id, int64_t hash, const char **body, size_t *len)
{
    *body = NULL;
    *len = 0;
    const char *d = atomic_load_explicit(&dict, memory_order_acquire);
    bool got = false;
    if (d) {
        pthread_rwlock_rdlock(&lock);
        struct body **link;
        struct body *b = buckets ? find(id, &link) : NULL;
        if (b && b->hash == hash) {
            char *out = arena_alloc(a, (size_t)b->plen + 1);
            int n = LZ4_decompress_safe_usingDict(b->id + strlen(b->id) + 1, out, (int)b->clen,
                                                  (int)b->plen, d, dict_len);
            if (n >= 0 && (uint32_t)n == b->plen) {
                out[n] = '\0';
                *body = out;
                *len = (size_t)n;
                got = true;
                if (!atomic_load_explicit(&b->used, memory_order_relaxed))
                    atomic_store_explicit(&b->used, true, memory_order_relaxed);
            }
        }
        pthread_rwlock_unlock(&lock);
    }
    atomic_fetch_add_explicit(got ? &hits : &misses, 1, memory_order_relaxed);
    return got;
}

void bodies_counts(int64_t *h, int64_t *m, size_t *n, size_t *b, bool *done)
{
    *h = atomic_load(&hits);
    *m = atomic_load(&misses);
    pthread_rwlock_rdlock(&lock);
    *n = entries;
    *b = bytes;
    pthread_rwlock_unlock(&lock);
    *done = atomic_load(&loaded);
}

/* ---- the loading thread ------------------------------------------------------------------ */

static bool full(void)
{
    pthread_rwlock_rdlock(&lock);
    bool f = bytes + (bytes >> 6) >= max_bytes; /* within 1/64 of the budget */
    pthread_rwlock_unlock(&lock);
    return f;
}

/* Every stored body, in batches by incident ID on a connection of its own (closed at the
 * end), until the copy is (nearly) full. */
static void *load(void *arg)
{
    char *uri = arg;
    struct store *s = NULL;
    char err[256];
    int64_t t0 = time_mono_us();
    size_t count = 0;
    int rc = store_open(uri, false, &s, err, sizeof err);
    if (rc != 0) {
        log_warn("bodies", "cannot open the database: %s", err);
        s = NULL;
    }
    char last[64] = "";
    while (s && !full()) {
        struct store_stmt *st =
            STORE_SELECT(s,
                         "SELECT incident_id, body_hash, body FROM incident_fragments"
                         " WHERE body IS NOT NULL AND body_hash IS NOT NULL AND incident_id > ?"
                         " ORDER BY incident_id LIMIT ?",
                         STORE_TEXT(last), STORE_INT(LOAD_BATCH));
        if (!st) {
            rc = STORE_ERR;
            break;
        }
        size_t got = 0;
        while ((rc = store_step(st)) == STORE_ROW) {
            const char *id = store_col_text(st, 0);
            const char *body = store_col_text(st, 2);
            if (!id || !body || strlen(id) >= sizeof last)
                continue;
            bodies_put(id, store_col_int(st, 1), body, strlen(body));
            memcpy(last, id, strlen(id) + 1);
            got++;
        }
        store_reset(st);
        count += got;
        if (rc < 0)
            break;
        /* the first batch made the dictionary (if it was not made before): read again what
         * it could not keep */
        pthread_mutex_lock(&dict_mu);
        make_dict();
        pthread_mutex_unlock(&dict_mu);
        if (atomic_exchange(&dropped, false)) {
            last[0] = '\0';
            continue;
        }
        if (got < LOAD_BATCH)
            break;
    }
    if (s && rc < 0)
        log_warn("bodies", "loading stopped: %s", store_errmsg(s));
    store_close(s);
    size_t n, b;
    int64_t h, m;
    bool done;
    atomic_store(&loaded, true);
    bodies_counts(&h, &m, &n, &b, &done);
    log_info("bodies", "%zu fragments' bodies read, %zu kept in %zu KiB, in %lld ms", count, n,
             b >> 10, (long long)((time_mono_us() - t0) / 1000));
    free(uri);
    return NULL;
}

void bodies_setup(const char *uri, size_t max)
{
    if (bodies_enabled())
        return;
    if (!max || !store_uri_is_pg(uri)) {
        atomic_store(&loaded, true); /* nothing to load */
        return;
    }
    bodies_setup_empty(max);
    atomic_store(&loaded, false);
    char *copy = strdup(uri);
    if (!copy) {
        atomic_store(&loaded, true); /* reads fill it */
        return;
    }
    /* the loader takes none of the server's signals (sigwait in http_serve) */
    if (thread_detached(load, copy) < 0) {
        free(copy);
        atomic_store(&loaded, true);
    }
}
