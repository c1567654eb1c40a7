#include "store/fragments.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/votes.h"
#include "store/bodies.h"
#include "store/fragcodec.h"
#include "store/tallies.h"
#include "util/str.h"

/* One statement, so one snapshot on either driver without a transaction around it: the
 * facts and fragment of each incident, joined with its current question version's tally
 * rows (one row per rooting group and slot, the incident's columns repeated; the slots are
 * summed here, store/votes.h). On SQLite a join on the tallies' primary key, not a grouped
 * subquery: SQLite would build an automatic index for that on every run. On PostgreSQL a
 * lateral subquery that OFFSET 0 keeps the planner from flattening, so each incident's rows
 * come from the primary key: as a join, a page of 100 incidents was planned as a hash of the
 * whole table (9 ms at 10,000 incidents against 2.4); and the fragment comes on the first
 * of the incident's rows only (the 2 or 3 a page's incidents have sent the body 2 or 3 times,
 * a megabyte for a page of 100, each copy taken out of its compressed storage). On SQLite a
 * fragment is keyed by its incident's rowid (migration 026), and is the incident's only when its
 * row names it. */
#define FACTS_HEAD(body)                                                                           \
    "SELECT i.id, i.visibility, i.slug, i.duplicate_of, d.slug, d.visibility,"                     \
    " i.comment_count, i.question_version, CASE WHEN x.incident_id IS NULL " body " END,"          \
    " t.rooting, t.correct, t.incorrect, t.unsure"                                                 \
    " FROM incidents i LEFT JOIN incidents d ON d.id = i.duplicate_of"
#define FACTS_STALE " LEFT JOIN fragment_stale x ON x.incident_id = i.id"
#define FACTS_SQLITE                                                                               \
    FACTS_HEAD("THEN f.body")                                                                      \
    " LEFT JOIN incident_fragments f ON f.n = i.rowid AND f.incident_id = i.id" FACTS_STALE        \
    " LEFT JOIN vote_tallies t"                                                                    \
    " ON t.incident_id = i.id AND t.question_version = i.question_version"                         \
    " WHERE i.id"
#define FACTS_PG                                                                                   \
    FACTS_HEAD("AND coalesce(t.k, 1) = 1 THEN f.body")                                             \
    " LEFT JOIN incident_fragments f ON f.incident_id = i.id" FACTS_STALE                          \
    " LEFT JOIN LATERAL (SELECT rooting, correct, incorrect, unsure, row_number() OVER () AS k"    \
    " FROM vote_tallies WHERE incident_id = i.id AND question_version = i.question_version"        \
    " OFFSET 0) t ON true WHERE i.id"

/* The same columns by key (SQLite, the list index's rowids), from valid fragments alone:
 * their own copy of the incident's facts (true while no stale row names it, migration 026),
 * without the incident's row or an ID index; the key last. */
#define KEYED_SQL_COLS(tallies, join)                                                              \
    "SELECT f.incident_id, f.visibility, f.slug, f.duplicate_of, d.slug, d.visibility,"            \
    " f.comment_count, f.question_version, f.body, " tallies ", f.n"                               \
    " FROM incident_fragments f LEFT JOIN incidents d ON d.id = f.duplicate_of" join               \
    " WHERE NOT EXISTS (SELECT 1 FROM fragment_stale x WHERE x.incident_id = f.incident_id)"       \
    " AND f.n"
#define KEYED_SQL                                                                                  \
    KEYED_SQL_COLS(                                                                                \
        "t.rooting, t.correct, t.incorrect, t.unsure",                                             \
        " LEFT JOIN vote_tallies t"                                                                \
        " ON t.incident_id = f.incident_id AND t.question_version = f.question_version")
/* without the tallies: the process's copy has them (store/tallies.h) */
#define KEYED_SQL_BARE KEYED_SQL_COLS("NULL, NULL, NULL, NULL", "")
#define KEY_COL        13

/* PostgreSQL's statement by ID from valid fragments alone (migration 027: their own copy of
 * the facts, without the incident's row), then, in the same statement and snapshot, the tally
 * rows of every question version of those incidents, each with its version in the question
 * version's column and no visibility (read_facts keeps those of each incident's current
 * version): a row per incident and one per tally row, the fragment on its own row once, and
 * neither the incident's row nor a lateral subquery per incident (BENCHMARKS.md session 27).
 * The body's hash (migration 028) in the last column. KEYED_PG_HASHES leaves the bodies out:
 * the node's copy (store/bodies.h) has them under their hashes. $1 is the ID array
 * store_select_ids binds. */
#define KEYED_PG_COLS(body)                                                                        \
    "SELECT f.incident_id, f.visibility, f.slug, f.duplicate_of, d.slug, d.visibility,"            \
    " f.comment_count, f.question_version, " body ", NULL, NULL, NULL, NULL, f.body_hash"          \
    " FROM incident_fragments f LEFT JOIN incidents d ON d.id = f.duplicate_of"                    \
    " WHERE f.body IS NOT NULL"                                                                    \
    " AND NOT EXISTS (SELECT 1 FROM fragment_stale x WHERE x.incident_id = f.incident_id)"         \
    " AND f.incident_id"
#define KEYED_PG        KEYED_PG_COLS("f.body")
#define KEYED_PG_HASHES KEYED_PG_COLS("NULL")
#define KEYED_PG_TALLIES                                                                           \
    " UNION ALL SELECT t.incident_id, NULL, NULL, NULL, NULL, NULL, NULL, t.question_version,"     \
    " NULL, t.rooting, t.correct, t.incorrect, t.unsure, NULL FROM vote_tallies t"                 \
    " WHERE t.incident_id = ANY (CAST($1 AS text[]))"
#define HASH_COL 13
/* The bodies of some of those, for the node's copy to miss */
#define BODIES_PG "SELECT incident_id, body_hash, body FROM incident_fragments WHERE incident_id"

/* ---- the process's cache of what the statement below reads ----------------------------- */

/* One incident's facts and fragment as read at versions (content, tally), in one block:
 * the strings of f point into data. Immutable once in the table but for list (set once,
 * under the write lock), its place in the order and used. Counted references: the table's
 * own while it is in it, and one per request that read from it (its arena lets go when it is
 * released), so a request reads the entry's bytes where they are, without a copy, even after
 * the entry has left the table.
 *
 * The order is a second chance's (CLOCK): entries join at the newest end, and a hit only
 * sets its entry's used (under the read lock, so that reads of the cache run side by side
 * and write no other entry's memory). Eviction, under the write lock, takes the oldest: a
 * used one loses its mark and goes to the newest end instead, an unused one goes. */
struct cached {
    struct cached *next;          /* in its bucket */
    struct cached *newer, *older; /* in the order (write lock) */
    atomic_int refs;
    atomic_bool used; /* read since it joined or last had its second chance */
    uint64_t content, tally;
    size_t bytes; /* this block's and list's */
    char *list;   /* fragments_keep_list's bytes, or NULL; f.list_len long */
    struct incident_facts f;
    char data[];
};

static void unref(struct cached *e)
{
    if (atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) == 1) {
        free(e->list);
        free(e);
    }
}

/* The entries one read answered from, let go when its arena is released. */
struct held {
    size_t n;
    struct cached *e[];
};

static void let_go(void *arg)
{
    struct held *h = arg;
    for (size_t i = 0; i < h->n; i++)
        unref(h->e[i]);
}

/* Readers (cache_get, the counts) share it; whatever changes the table or the order takes
 * it alone, ahead of readers that come after it (a steady stream of hits cannot starve a
 * put). */
static pthread_rwlock_t cache_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static struct cached **buckets; /* under cache_lock, as everything below */
static size_t nbuckets, cache_bytes, cache_max;
static struct cached *newest, *oldest;
static atomic_llong cache_hits, cache_misses;

void fragments_cache_counts(int64_t *hits, int64_t *misses, size_t *bytes)
{
    *hits = atomic_load(&cache_hits);
    *misses = atomic_load(&cache_misses);
    pthread_rwlock_rdlock(&cache_lock);
    *bytes = cache_bytes;
    pthread_rwlock_unlock(&cache_lock);
}

bool fragments_cache_enabled(void)
{
    pthread_rwlock_rdlock(&cache_lock);
    bool on = cache_max > 0;
    pthread_rwlock_unlock(&cache_lock);
    return on;
}

static size_t bucket_of(const char *id)
{
    return (size_t)(str_hash(id) & (nbuckets - 1));
}

/* The entry of id, NULL when none; *link the pointer that holds it (or the bucket's end). */
static struct cached *find_in(size_t bucket, const char *id, struct cached ***link)
{
    struct cached **l = &buckets[bucket];
    while (*l && strcmp((*l)->f.id, id) != 0)
        l = &(*l)->next;
    *link = l;
    return *l;
}

static struct cached *find(const char *id, struct cached ***link)
{
    return find_in(bucket_of(id), id, link);
}

static void unlink_use(struct cached *e)
{
    if (e->newer)
        e->newer->older = e->older;
    else
        newest = e->older;
    if (e->older)
        e->older->newer = e->newer;
    else
        oldest = e->newer;
    e->newer = e->older = NULL;
}

static void link_newest(struct cached *e)
{
    e->older = newest;
    if (newest)
        newest->newer = e;
    newest = e;
    if (!oldest)
        oldest = e;
}

/* The doorkeeper (TinyLFU's): an incident read from the database enters the cache only when
 * it was read once before within the window, so that a walk over many incidents read once (a
 * client paging to the end, a filter rotation, a cold page of 100) neither pays a copy and the
 * fresh memory for each of them nor pushes out the incidents read again and again. A bit per
 * hash of the ID, eight per entry the budget holds; once half are set they are all cleared
 * (the window: about four budgets' worth of first reads). Set and read without the cache's
 * lock: a lost race admits one incident early or late. Off: every incident read is kept. */
static _Atomic uint64_t *door;
static size_t door_mask; /* bits - 1 */
static atomic_size_t door_set;
static atomic_bool door_on = true;

static bool door_admits(const char *id)
{
    if (!door || !atomic_load_explicit(&door_on, memory_order_relaxed))
        return true;
    uint64_t h = str_hash(id) * 0x9e3779b97f4a7c15u;
    size_t bit = (size_t)(h >> 17) & door_mask;
    uint64_t m = (uint64_t)1 << (bit & 63);
    if (atomic_fetch_or_explicit(&door[bit >> 6], m, memory_order_relaxed) & m)
        return true;
    if (atomic_fetch_add_explicit(&door_set, 1, memory_order_relaxed) + 1 >= (door_mask + 1) / 2) {
        for (size_t w = 0; w <= door_mask >> 6; w++)
            atomic_store_explicit(&door[w], 0, memory_order_relaxed);
        atomic_store(&door_set, 0);
    }
    return false;
}

void fragments_cache_doorkeeper(bool on)
{
    atomic_store(&door_on, on);
}

void fragments_cache_setup(size_t max_bytes)
{
    pthread_rwlock_wrlock(&cache_lock);
    free((void *)door);
    door = NULL;
    door_mask = 0;
    atomic_store(&door_set, 0);
    while (oldest) {
        struct cached *e = oldest;
        unlink_use(e);
        unref(e);
    }
    free(buckets);
    buckets = NULL;
    cache_bytes = cache_max = 0;
    if (max_bytes > 0) {
        /* about one bucket per 4 KiB entry the budget holds, a power of two */
        nbuckets = 1024;
        while (nbuckets < max_bytes / 4096 && nbuckets < ((size_t)1 << 24))
            nbuckets <<= 1;
        buckets = calloc(nbuckets, sizeof *buckets);
        cache_max = buckets ? max_bytes : 0;
        size_t bits = 4096;
        while (bits < 8 * (max_bytes / 4096) && bits < ((size_t)1 << 30))
            bits <<= 1;
        door = calloc(bits / 64, sizeof *door);
        door_mask = door ? bits - 1 : 0;
    }
    pthread_rwlock_unlock(&cache_lock);
}

/* Takes e out of the cache and frees it. */
static void drop(struct cached *e, struct cached **link)
{
    *link = e->next;
    unlink_use(e);
    cache_bytes -= e->bytes;
    unref(e); /* the table's; a request that read it may still hold it */
}

/* Drops the oldest unused entries while the cache is over its budget; a used one it passes
 * loses its mark and goes to the newest end (a second chance). Under the write lock, so no
 * hit sets a mark meanwhile: each entry is passed at most once before one goes. */
static void evict(void)
{
    while (cache_bytes > cache_max && oldest) {
        struct cached *x = oldest;
        if (atomic_exchange_explicit(&x->used, false, memory_order_relaxed)) {
            unlink_use(x);
            link_newest(x);
            continue;
        }
        struct cached **link;
        find(x->f.id, &link);
        drop(x, link);
    }
}

/* The text members of f, the ID first: what an entry copies into its data (a hit reads them
 * there). */
#define FACT_TEXTS 6
static void fact_texts(struct incident_facts *f, const char **t[FACT_TEXTS])
{
    t[0] = &f->id;
    t[1] = &f->visibility;
    t[2] = &f->slug;
    t[3] = &f->duplicate_of;
    t[4] = &f->survivor_slug;
    t[5] = &f->survivor_visibility;
}

/* Copies s into the entry's data at *at; the copy, or NULL for NULL. */
static const char *keep(char **at, const char *s, size_t len)
{
    if (!s)
        return NULL;
    char *d = *at;
    memcpy(d, s, len);
    d[len] = '\0';
    *at += len + 1;
    return d;
}

/* Keeps f (found, with a valid fragment) read at versions v, replacing the entry of its
 * incident; the oldest entries go while the cache is over its budget. */
static void cache_put(const uint64_t v[2], const struct incident_facts *f)
{
    struct incident_facts texts = *f; /* only to name f's texts */
    const char **t[FACT_TEXTS];
    fact_texts(&texts, t);
    size_t len[FACT_TEXTS], total = f->fragment_len + 1;
    for (size_t k = 0; k < FACT_TEXTS; k++)
        total += (len[k] = *t[k] ? strlen(*t[k]) : 0) + 1;
    struct cached *e = malloc(sizeof *e + total);
    if (!e)
        return;
    e->newer = e->older = NULL;
    atomic_init(&e->refs, 1);
    atomic_init(&e->used, false);
    e->list = NULL;
    e->content = v[0];
    e->tally = v[1];
    e->bytes = sizeof *e + total;
    e->f = *f;
    fact_texts(&e->f, t);
    char *at = e->data;
    for (size_t k = 0; k < FACT_TEXTS; k++) /* each still points at f's text */
        *t[k] = keep(&at, *t[k], len[k]);
    e->f.fragment = keep(&at, f->fragment, f->fragment_len);
    e->f.list_json = NULL;
    e->f.list_len = 0;
    pthread_rwlock_wrlock(&cache_lock);
    if (!cache_max) { /* emptied and turned off since (a test) */
        pthread_rwlock_unlock(&cache_lock);
        free(e);
        return;
    }
    struct cached **link;
    struct cached *old = find(e->f.id, &link);
    if (old)
        drop(old, link); /* *link is now what followed it */
    e->next = *link;
    *link = e;
    link_newest(e);
    cache_bytes += e->bytes;
    evict();
    pthread_rwlock_unlock(&cache_lock);
}

void fragments_keep_list(const uint64_t at[2], const char *id, const char *json, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, json, len);
    copy[len] = '\0';
    pthread_rwlock_wrlock(&cache_lock);
    struct cached **link;
    struct cached *e = cache_max ? find(id, &link) : NULL;
    if (e && !e->list && e->content == at[0] && e->tally == at[1]) {
        e->list = copy;
        e->f.list_len = len;
        e->bytes += len + 1;
        cache_bytes += len + 1;
        copy = NULL;
        evict();
    }
    pthread_rwlock_unlock(&cache_lock);
    free(copy);
}

/* out[i] from the cache for each ids[i] whose entry was read at versions v (its strings the
 * entry's own, held until a is released); hit[i] says which. The number of hits, or -1 when
 * there is no cache. */
static long cache_get(struct arena *a, const uint64_t v[2], const char *const *ids, size_t n,
                      bool list, struct incident_facts *out, bool *hit)
{
    long hits = 0;
    struct held *held = arena_alloc(a, sizeof *held + n * sizeof held->e[0]);
    held->n = 0;
    pthread_rwlock_rdlock(&cache_lock);
    if (!cache_max) {
        pthread_rwlock_unlock(&cache_lock);
        return -1;
    }
    /* A page's entries are far apart in memory (each a block of kilobytes): their buckets,
     * then the first entry of each and its ID (the first of its texts), are asked of memory
     * all at once, so that the page waits for a few misses rather than one after another
     * (perf: most of the lookups' time was those loads) */
    size_t *bucket = arena_alloc(a, sizeof *bucket * (n ? n : 1));
    for (size_t i = 0; i < n; i++) {
        bucket[i] = bucket_of(ids[i]);
        __builtin_prefetch(&buckets[bucket[i]]);
    }
    for (size_t i = 0; i < n; i++) {
        const struct cached *e = buckets[bucket[i]];
        if (e) {
            __builtin_prefetch(&e->f.id);
            __builtin_prefetch(e->data);
        }
    }
    for (size_t i = 0; i < n; i++) {
        struct cached **link;
        struct cached *e = find_in(bucket[i], ids[i], &link);
        hit[i] = e && e->content == v[0] && e->tally == v[1];
        if (!hit[i])
            continue;
        hits++;
        atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
        held->e[held->n++] = e;
        struct incident_facts *f = &out[i];
        *f = e->f;
        f->id = ids[i]; /* the caller's */
        /* the list form the API wrote from this entry, when the caller writes that form */
        bool kept = list && e->list;
        f->list_json = kept ? e->list : NULL;
        f->list_len = kept ? e->f.list_len : 0;
        f->fragment = kept ? NULL : e->f.fragment;
        f->fragment_len = kept ? 0 : e->f.fragment_len;
        f->from_cache = true;
        if (!atomic_load_explicit(&e->used, memory_order_relaxed)) /* its line stays shared */
            atomic_store_explicit(&e->used, true, memory_order_relaxed);
    }
    pthread_rwlock_unlock(&cache_lock);
    if (held->n)
        arena_defer(a, let_go, held);
    atomic_fetch_add(&cache_hits, (long long)hits);
    atomic_fetch_add(&cache_misses, (long long)n - hits);
    return hits;
}

/* ---- the statement --------------------------------------------------------------------- */

/* Where each of n IDs is in a page (a small open-addressed table, so that a page's rows find
 * their incident without comparing every ID of the page). */
struct id_table {
    size_t mask;
    uint32_t *slot; /* index + 1, 0 empty */
};

static void id_table_init(struct id_table *t, struct arena *a, const char *const *ids, size_t n)
{
    size_t size = 16;
    while (size < 2 * n)
        size <<= 1;
    t->mask = size - 1;
    t->slot = arena_alloc(a, sizeof *t->slot * size);
    memset(t->slot, 0, sizeof *t->slot * size);
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)str_hash(ids[i]) & t->mask;
        while (t->slot[k])
            k = (k + 1) & t->mask;
        t->slot[k] = (uint32_t)(i + 1);
    }
}

/* The index of id among ids, or -1. */
static long id_table_find(const struct id_table *t, const char *const *ids, const char *id)
{
    for (size_t k = (size_t)str_hash(id) & t->mask; t->slot[k]; k = (k + 1) & t->mask)
        if (strcmp(ids[t->slot[k] - 1], id) == 0)
            return (long)t->slot[k] - 1;
    return -1;
}

/* A tally row of KEYED_PG, kept until the statement's last row (its incident's current
 * question version is known only from the incident's own row). */
struct tally_row {
    struct tally_row *next;
    size_t i;
    int64_t version;
    int rooting;
    int64_t correct, incorrect, unsure;
};

static void add_tally(struct incident_facts *f, int r, int64_t correct, int64_t incorrect,
                      int64_t unsure)
{
    f->votes.by_rooting[r].correct += correct;
    f->votes.by_rooting[r].incorrect += incorrect;
    f->votes.by_rooting[r].unsure += unsure;
}

/* The rows of st into out (out[i] for ids[i], found through where, and with keys only the
 * row of key keys[i]): each incident's facts, its fragment and its tallies' sums. split: the
 * rows of KEYED_PG (a row without a visibility is a tally row of the question version in its
 * column 7). 0 or a negative store_rc. */
static int read_facts(struct store *s, struct store_stmt *st, struct arena *a,
                      const char *const *ids, const struct id_table *where, const int64_t *keys,
                      bool split, struct incident_facts *out)
{
    struct tally_row *pending = NULL;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        const char *id = store_col_text(st, 0);
        long i = id ? id_table_find(where, ids, id) : -1;
        if (i < 0 || (keys && keys[i] != store_col_int(st, KEY_COL)))
            continue;
        struct incident_facts *f = &out[i];
        const char *rooting = store_col_text(st, 9);
        int r = rooting ? rooting_from_name(rooting) : -1; /* NULL: no tally row */
        if (split && !store_col_text(st, 1)) {
            if (r < 0)
                continue;
            struct tally_row *t = arena_alloc(a, sizeof *t);
            *t = (struct tally_row){pending,
                                    (size_t)i,
                                    store_col_int(st, 7),
                                    r,
                                    store_col_int(st, 10),
                                    store_col_int(st, 11),
                                    store_col_int(st, 12)};
            pending = t;
            continue;
        }
        if (!f->found) {
            f->found = true;
            f->visibility = arena_strdup(a, store_col_text(st, 1));
            f->slug = arena_strdup(a, store_col_text(st, 2));
            f->duplicate_of = arena_strdup(a, store_col_text(st, 3));
            f->survivor_slug = arena_strdup(a, store_col_text(st, 4));
            f->survivor_visibility = arena_strdup(a, store_col_text(st, 5));
            f->comment_count = store_col_int(st, 6);
            f->question_version = store_col_int(st, 7);
            if (split && !store_col_null(st, HASH_COL)) {
                f->hashed = true;
                f->body_hash = store_col_int(st, HASH_COL);
            }
        }
        size_t stored_len;
        const void *stored = store_col_bytes(st, 8, &stored_len); /* on one of its rows */
        if (stored && !f->fragment) {
            /* SQLite's may be compressed (store/fragcodec.h); one it cannot read is none:
             * the incident is read from its rows */
            int got = fragcodec_decode(s, a, stored, stored_len, &f->fragment, &f->fragment_len);
            if (got < 0) {
                rc = got;
                break;
            }
        }
        if (r >= 0)
            add_tally(f, r, store_col_int(st, 10), store_col_int(st, 11), store_col_int(st, 12));
    }
    store_reset(st);
    for (struct tally_row *t = pending; rc >= 0 && t; t = t->next) {
        struct incident_facts *f = &out[t->i];
        if (f->found && f->question_version != STORE_NULL_INT && f->question_version == t->version)
            add_tally(f, t->rooting, t->correct, t->incorrect, t->unsure);
    }
    return rc < 0 ? rc : 0;
}

const char *fragments_facts_sql(bool pg)
{
    return pg ? FACTS_PG : FACTS_SQLITE;
}

/* The facts of the n incidents of ids from the database by ID (see fragments_read) into
 * out. */
int fragments_read_rows(struct store *s, struct arena *a, const char *const *ids, size_t n,
                        struct incident_facts *out)
{
    memset(out, 0, n * sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i].id = ids[i];
    if (n == 0)
        return 0;
    bool pg = store_is_pg(s);
    /* one text per power of two of IDs (the rest bound null): a few statements in the
     * connection's cache, not one per page size */
    size_t slots = store_id_slots(n, 1);
    /* a single incident (the hot read) with a constant text */
    struct store_stmt *st =
        slots == 1 ? STORE_SELECT(s, pg ? FACTS_PG " = ?" : FACTS_SQLITE " = ?", STORE_TEXT(ids[0]))
                   : store_select_ids(s, fragments_facts_sql(pg), "", ids, n, slots);
    if (!st)
        return STORE_ERR;
    struct id_table where;
    id_table_init(&where, a, ids, n);
    return read_facts(s, st, a, ids, &where, NULL, false, out);
}

/* Reads the incidents i of ids with todo[i] (with their keys[i], when there are keys) through
 * read, in one call, into out[i]; the others' out[i] are left as they are. 0 or a negative
 * store_rc. */
typedef int reader(struct store *s, struct arena *a, const uint64_t *at, const char *const *ids,
                   const int64_t *keys, size_t n, struct incident_facts *out);
static int read_todo(struct store *s, struct arena *a, const uint64_t *at, const char *const *ids,
                     const int64_t *keys, size_t n, const bool *todo, reader *read,
                     struct incident_facts *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m += todo[i];
    if (m == 0)
        return 0;
    const char **sub = arena_alloc(a, sizeof *sub * m);
    int64_t *sub_keys = keys ? arena_alloc(a, sizeof *sub_keys * m) : NULL;
    struct incident_facts *got = arena_alloc(a, sizeof *got * m);
    m = 0;
    for (size_t i = 0; i < n; i++)
        if (todo[i]) {
            if (keys)
                sub_keys[m] = keys[i];
            sub[m++] = ids[i];
        }
    int rc = read(s, a, at, sub, sub_keys, m, got);
    for (size_t i = 0, k = 0; rc >= 0 && i < n; i++)
        if (todo[i])
            out[i] = got[k++];
    return rc < 0 ? rc : 0;
}

static int read_by_id(struct store *s, struct arena *a, const uint64_t *at, const char *const *ids,
                      const int64_t *keys, size_t n, struct incident_facts *out)
{
    (void)at;
    (void)keys;
    return fragments_read_rows(s, a, ids, n, out);
}

/* The bodies of the incidents of out (out[i] for ids[i], found through where) read with a
 * hash and without a body: from the node's copy (store/bodies.h), then those it has not in one
 * statement, each used only when its hash is the one read with the facts (and then kept in the
 * copy); those still without one are read by ID after. 0 or a negative store_rc. */
static int fill_bodies(struct store *s, struct arena *a, const char *const *ids,
                       const struct id_table *where, size_t n, struct incident_facts *out)
{
    const char **need = arena_alloc(a, sizeof *need * n);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        struct incident_facts *f = &out[i];
        if (f->found && !f->fragment && f->hashed &&
            !bodies_get(a, ids[i], f->body_hash, &f->fragment, &f->fragment_len))
            need[m++] = ids[i];
    }
    if (m == 0)
        return 0;
    struct store_stmt *st = store_select_ids(s, BODIES_PG, "", need, m, 1);
    if (!st)
        return STORE_ERR;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        const char *id = store_col_text(st, 0);
        const char *body = store_col_text(st, 2);
        long i = id ? id_table_find(where, ids, id) : -1;
        if (i < 0 || !body || out[i].fragment || store_col_int(st, 1) != out[i].body_hash)
            continue; /* rendered again since the facts were read: read by ID */
        struct incident_facts *f = &out[i];
        f->fragment_len = strlen(body);
        f->fragment = arena_strndup(a, body, f->fragment_len);
        bodies_put(ids[i], f->body_hash, f->fragment, f->fragment_len);
    }
    store_reset(st);
    return rc < 0 ? rc : 0;
}

/* As fragments_read_rows, the incidents that hold a valid fragment from it alone: on SQLite by
 * key (their rowids, from the list index), on PostgreSQL by ID, the bodies from the node's
 * copy once it is loaded (else with the facts, and kept in it); on both, the tallies from the
 * process's copy when it holds the versions at (store/tallies.h); the others (a stale or missing
 * fragment, a key that is no longer the incident's, tallies the copy cannot tell) by ID
 * through the incident's row. */
static int read_keyed(struct store *s, struct arena *a, const uint64_t *at, const char *const *ids,
                      const int64_t *keys, size_t n, struct incident_facts *out)
{
    bool pg = store_is_pg(s);
    if (n == 0 || (!keys && !pg))
        return fragments_read_rows(s, a, ids, n, out);
    memset(out, 0, n * sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i].id = ids[i];
    bool copy = pg && bodies_enabled();
    bool hashes = copy && bodies_loaded();
    bool tallies = tallies_cover(s, at);
    struct store_stmt *st = pg ? store_select_ids(s, hashes ? KEYED_PG_HASHES : KEYED_PG,
                                                  tallies ? "" : KEYED_PG_TALLIES, ids, n, 1)
                               : store_select_keys(s, tallies ? KEYED_SQL_BARE : KEYED_SQL, "",
                                                   keys, n, store_id_slots(n, 1));
    struct id_table where;
    id_table_init(&where, a, ids, n);
    int rc = st ? read_facts(s, st, a, ids, &where, pg ? NULL : keys, pg, out) : STORE_ERR;
    if (rc >= 0 && hashes)
        rc = fill_bodies(s, a, ids, &where, n, out);
    if (rc < 0)
        return rc;
    bool *todo = arena_alloc(a, sizeof *todo * n);
    for (size_t i = 0; i < n; i++) {
        struct incident_facts *f = &out[i];
        todo[i] = !f->found || !f->fragment;
        if (!todo[i] && tallies && f->question_version != STORE_NULL_INT &&
            !tallies_get(ids[i], f->question_version, &f->votes))
            todo[i] = true;
        if (copy && !hashes && !todo[i] && f->hashed)
            bodies_put(ids[i], f->body_hash, f->fragment, f->fragment_len);
    }
    return read_todo(s, a, at, ids, NULL, n, todo, read_by_id, out);
}

int fragments_read(struct store *s, struct arena *a, const uint64_t *at, const char *const *ids,
                   const int64_t *keys, size_t n, bool list, struct incident_facts *out)
{
    bool *hit = at && n > 0 ? arena_alloc(a, sizeof *hit * n) : NULL;
    long hits = hit ? cache_get(a, at, ids, n, list, out, hit) : -1;
    if (hits < 0) /* no versions, or no cache */
        return read_keyed(s, a, at, ids, keys, n, out);
    if ((size_t)hits == n)
        return 0;
    /* the others in one statement, then kept */
    bool *miss = arena_alloc(a, sizeof *miss * n);
    for (size_t i = 0; i < n; i++)
        miss[i] = !hit[i];
    int rc = read_todo(s, a, at, ids, keys, n, miss, read_keyed, out);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n; i++)
        if (miss[i] && out[i].found && out[i].fragment && door_admits(ids[i]))
            cache_put(at, &out[i]);
    return 0;
}

int fragments_stale(struct store *s, struct arena *a, size_t max, const char ***ids, size_t *n)
{
    *ids = NULL;
    *n = 0;
    const char **list = arena_alloc(a, sizeof *list * (max ? max : 1));
    size_t count;
    bool more;
    int rc = store_page(
        STORE_SELECT(s, "SELECT incident_id FROM fragment_stale LIMIT ?", STORE_INT((int64_t)max)),
        a, store_read_id, list, (int64_t)max, &count, &more);
    if (rc < 0)
        return rc;
    *ids = list;
    *n = count;
    return 0;
}

int fragments_claim(struct store *s, const char *id)
{
    return STORE_EXISTS(s, "DELETE FROM fragment_stale WHERE incident_id = ? RETURNING incident_id",
                        STORE_TEXT(id));
}

int fragments_put(struct store *s, const char *id, const char *body)
{
    if (store_is_pg(s)) {
        if (!body)
            return STORE_RUN(s, "DELETE FROM incident_fragments WHERE incident_id = ?",
                             STORE_TEXT(id));
        /* the row's copy of the facts (and a new row's comment count) is the trigger's
         * (migration 027) */
        return STORE_RUN(s,
                         "INSERT INTO incident_fragments (incident_id, body) VALUES (?, ?)"
                         " ON CONFLICT (incident_id) DO UPDATE SET body = excluded.body",
                         STORE_TEXT(id), STORE_TEXT(body));
    }
    /* SQLite: under the incident's rowid, with the facts it was rendered from (this
     * transaction's, migration 026) */
    if (!body)
        return STORE_RUN(s,
                         "DELETE FROM incident_fragments"
                         " WHERE n = (SELECT rowid FROM incidents WHERE id = ?)",
                         STORE_TEXT(id));
    struct store_stmt *st =
        store_prepare(s, "INSERT INTO incident_fragments (n, incident_id, visibility, slug,"
                         " duplicate_of, question_version, comment_count, body)"
                         " SELECT rowid, id, visibility, slug, duplicate_of, question_version,"
                         " comment_count, ? FROM incidents WHERE id = ?"
                         " ON CONFLICT (n) DO UPDATE SET incident_id = excluded.incident_id,"
                         " visibility = excluded.visibility, slug = excluded.slug,"
                         " duplicate_of = excluded.duplicate_of,"
                         " question_version = excluded.question_version,"
                         " comment_count = excluded.comment_count, body = excluded.body");
    if (!st)
        return STORE_ERR;
    /* compressed once the database has a dictionary (migration 030, store/fragcodec.h) */
    unsigned char *z;
    size_t zlen;
    int rc = fragcodec_encode(s, body, strlen(body), &z, &zlen);
    if (rc < 0)
        return rc;
    if (rc == 1)
        store_bind_blob(st, 1, z, zlen);
    else
        store_bind_text(st, 1, body);
    store_bind_text(st, 2, id);
    rc = store_run(st);
    free(z);
    return rc;
}

int fragments_compress(struct store *s, size_t *done)
{
    *done = 0;
    int64_t after = -1;
    for (;;) {
        /* a batch a write transaction that moves no version: the bytes a reader gets are the
         * same, so no cache holds anything wrong */
        int rc = store_begin_write(s);
        if (rc < 0)
            return rc;
        store_write_derived(s);
        struct store_stmt *st = STORE_SELECT(s,
                                             "SELECT n, body FROM incident_fragments WHERE n > ?"
                                             " AND typeof(body) = 'text' ORDER BY n LIMIT 256",
                                             STORE_INT(after));
        size_t got = 0, shrunk = 0;
        struct {
            int64_t n;
            unsigned char *z;
            size_t zlen;
        } batch[256];
        while (st && (rc = store_step(st)) == STORE_ROW && got < 256) {
            after = store_col_int(st, 0);
            const char *body = store_col_text(st, 1);
            batch[got].n = after;
            batch[got].z = NULL;
            if (body &&
                (rc = fragcodec_encode(s, body, strlen(body), &batch[got].z, &batch[got].zlen)) < 0)
                break;
            got++;
        }
        if (st)
            store_reset(st);
        else
            rc = STORE_ERR;
        for (size_t i = 0; rc >= 0 && i < got; i++) {
            if (!batch[i].z)
                continue;
            struct store_stmt *up = store_prepare(
                s, "UPDATE incident_fragments SET body = ? WHERE n = ? AND typeof(body) = 'text'");
            if (!up) {
                rc = STORE_ERR;
                break;
            }
            store_bind_blob(up, 1, batch[i].z, batch[i].zlen);
            store_bind_int(up, 2, batch[i].n);
            rc = store_run(up);
            shrunk++;
        }
        for (size_t i = 0; i < got; i++)
            free(batch[i].z);
        if (rc < 0) {
            store_rollback(s);
            return rc;
        }
        if ((rc = store_commit(s)) < 0)
            return rc;
        *done += shrunk;
        /* none left, or none can be compressed yet (no dictionary: too few bodies) */
        if (got < 256 || shrunk == 0)
            return 0;
    }
}

int fragments_pack(struct store *s)
{
    /* the table's own definition, under another name (a copy of it written here could
     * drift from the migrations') */
    struct store_stmt *st = store_prepare(
        s, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'incident_fragments'");
    if (!st)
        return STORE_ERR;
    int rc = store_step(st);
    const char *sql = rc == STORE_ROW ? store_col_text(st, 0) : NULL;
    const char *cols = sql ? strchr(sql, '(') : NULL;
    char *create = NULL;
    if (cols && asprintf(&create, "CREATE TABLE incident_fragments_packed %s", cols) < 0)
        create = NULL;
    store_reset(st);
    if (rc < 0 || !create) {
        free(create);
        return rc < 0 ? rc : STORE_ERR;
    }
    /* legacy renaming: the comment count's trigger (on incidents) names the table, and SQLite
     * would refuse the drop that leaves it naming none until the rename */
    rc = store_exec(s, "PRAGMA legacy_alter_table = ON") == STORE_DONE ? 0 : STORE_ERR;
    if (rc >= 0)
        rc = store_begin_write(s);
    if (rc >= 0) {
        store_write_derived(s);
        const char *steps[] = {
            create,
            "INSERT INTO incident_fragments_packed SELECT * FROM incident_fragments ORDER BY n",
            "DROP TABLE incident_fragments",
            "ALTER TABLE incident_fragments_packed RENAME TO incident_fragments",
        };
        for (size_t i = 0; rc >= 0 && i < sizeof steps / sizeof steps[0]; i++)
            if (store_exec(s, steps[i]) != STORE_DONE)
                rc = STORE_ERR;
        if (rc >= 0)
            rc = store_commit(s);
        else
            store_rollback(s);
    }
    store_exec(s, "PRAGMA legacy_alter_table = OFF");
    free(create);
    return rc < 0 ? rc : 0;
}
