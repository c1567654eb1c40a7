#include "store/fragcodec.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <lz4.h>

#include "util/lz4dict.h"

/* The dictionary's size, and how many plain bodies make the first one (bodies.c uses the same:
 * measured on the seeded million, BENCHMARKS.md session 28) */
#define DICT_MAX    (32 << 10)
#define DICT_BODIES 8

/* The dictionaries this process has read (immutable: never freed, found by ID). */
struct dict {
    struct dict *next;
    int64_t id;
    int len;
    char bytes[];
};

static pthread_rwlock_t dicts_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct dict *dicts;

static const struct dict *known(int64_t id)
{
    pthread_rwlock_rdlock(&dicts_lock);
    const struct dict *d = dicts;
    while (d && d->id != id)
        d = d->next;
    pthread_rwlock_unlock(&dicts_lock);
    return d;
}

/* The dictionary id of s: from memory, else read (and kept). NULL when s has none (*rc 0) or
 * the read failed (*rc negative). */
static const struct dict *dict_of(struct store *s, int64_t id, int *rc)
{
    *rc = 0;
    const struct dict *d = known(id);
    if (d)
        return d;
    struct store_stmt *st =
        STORE_SELECT(s, "SELECT dict FROM fragment_dicts WHERE id = ?", STORE_INT(id));
    if (!st) {
        *rc = STORE_ERR;
        return NULL;
    }
    int step = store_step(st);
    size_t len = 0;
    const void *p = step == STORE_ROW ? store_col_bytes(st, 0, &len) : NULL;
    struct dict *made = NULL;
    if (p && len > 0 && len <= DICT_MAX && (made = malloc(sizeof *made + len))) {
        made->id = id;
        made->len = (int)len;
        memcpy(made->bytes, p, len);
    }
    store_reset(st);
    if (step < 0) {
        *rc = step;
        return NULL;
    }
    if (!made)
        return NULL;
    pthread_rwlock_wrlock(&dicts_lock);
    const struct dict *again = dicts;
    while (again && again->id != id)
        again = again->next;
    if (again) {
        free(made);
    } else {
        made->next = dicts;
        dicts = made;
        again = made;
    }
    pthread_rwlock_unlock(&dicts_lock);
    return again;
}

/* The ID of the database's newest dictionary, made now from DICT_BODIES plain bodies when
 * there is none and they are there: 1 with *id, 0 none, or a negative store_rc. */
static int newest(struct store *s, int64_t *id)
{
    for (int pass = 0; pass < 2; pass++) {
        struct store_stmt *st =
            store_prepare(s, "SELECT id FROM fragment_dicts ORDER BY rowid DESC LIMIT 1");
        if (!st)
            return STORE_ERR;
        int rc = store_step(st);
        if (rc == STORE_ROW)
            *id = store_col_int(st, 0);
        store_reset(st);
        if (rc != STORE_DONE)
            return rc == STORE_ROW ? 1 : rc;
        if (pass == 1)
            return 0;
        /* 32 KiB of bodies as they are (bytes: substr of a blob counts bytes) */
        rc = STORE_RUN(s,
                       "INSERT INTO fragment_dicts (id, dict)"
                       " SELECT abs(random() >> 1) + 1,"
                       " substr(CAST(group_concat(body, '') AS BLOB), 1, ?)"
                       " FROM (SELECT body FROM incident_fragments WHERE typeof(body) = 'text'"
                       " LIMIT ?) HAVING count(*) >= ?",
                       STORE_INT(DICT_MAX), STORE_INT(DICT_BODIES), STORE_INT(DICT_BODIES));
        if (rc < 0)
            return rc;
    }
    return 0;
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

int fragcodec_encode(struct store *s, const char *body, size_t len, unsigned char **out,
                     size_t *outlen)
{
    *out = NULL;
    *outlen = 0;
    if (len == 0 || len > LZ4_MAX_INPUT_SIZE || len > UINT32_MAX)
        return 0;
    int64_t id = 0;
    int rc = newest(s, &id);
    if (rc <= 0)
        return rc;
    const struct dict *d = dict_of(s, id, &rc);
    if (!d)
        return rc;
    const char *packed;
    size_t c = lz4dict_compress(d->bytes, d->len, body, len, &packed);
    if (c == 0 || c + FRAGCODEC_HEAD >= len)
        return 0; /* plain is as short */
    unsigned char *buf = malloc(FRAGCODEC_HEAD + c);
    if (!buf)
        return STORE_ERR;
    memcpy(buf + FRAGCODEC_HEAD, packed, c);
    buf[0] = FRAGCODEC_V1;
    put_le(buf + 1, (uint64_t)id, 8);
    put_le(buf + 9, (uint64_t)len, 4);
    *out = buf;
    *outlen = FRAGCODEC_HEAD + c;
    return 1;
}

int fragcodec_decode(struct store *s, struct arena *a, const void *p, size_t n, const char **body,
                     size_t *len)
{
    const unsigned char *b = p;
    *body = NULL;
    *len = 0;
    if (n == 0 || b[0] != FRAGCODEC_V1) { /* plain: JSON has no NUL (a hand edit may) */
        if (memchr(p, '\0', n))
            return 0;
        char *copy = arena_alloc(a, n + 1);
        memcpy(copy, p, n);
        copy[n] = '\0';
        *body = copy;
        *len = n;
        return 1;
    }
    if (n <= FRAGCODEC_HEAD)
        return 0;
    int64_t id = (int64_t)get_le(b + 1, 8);
    size_t plain = (size_t)get_le(b + 9, 4);
    /* LZ4 expands a byte to at most 255: a head that states more is damaged, and must not
     * make a read allocate it */
    if (plain == 0 || plain > LZ4_MAX_INPUT_SIZE || n - FRAGCODEC_HEAD > INT32_MAX ||
        plain > (n - FRAGCODEC_HEAD) * 255)
        return 0;
    int rc;
    const struct dict *d = dict_of(s, id, &rc);
    if (!d)
        return rc;
    char *outp = arena_alloc(a, plain + 1);
    int got =
        LZ4_decompress_safe_usingDict((const char *)b + FRAGCODEC_HEAD, outp,
                                      (int)(n - FRAGCODEC_HEAD), (int)plain, d->bytes, d->len);
    if (got < 0 || (size_t)got != plain || memchr(outp, '\0', plain))
        return 0;
    outp[plain] = '\0';
    *body = outp;
    *len = plain;
    return 1;
}
