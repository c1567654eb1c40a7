#include "store/tallies.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "domain/votes.h"
#include "util/log.h"
#include "util/str.h"
#include "util/thread.h"
#include "util/timefmt.h"

/* The versions row first (no incident: the store's versions and the log's largest and
 * smallest numbers, in the statement's snapshot), then one row per tally row: incident, log
 * number (catch-up) or nothing, question version, rooting and counts. One statement, so one
 * snapshot on SQLite. */
#define VERSIONS_ROW                                                                               \
    "SELECT NULL, (SELECT n FROM cache_versions WHERE name = 'content'),"                          \
    " (SELECT n FROM cache_versions WHERE name = 'tally'),"                                        \
    " (SELECT coalesce(max(seq), 0) FROM tally_log), (SELECT min(seq) FROM tally_log),"            \
    " NULL, NULL, NULL, NULL"
/* every tally row, in the primary key's order (an incident's rows together) */
#define LOAD_SQL                                                                                   \
    VERSIONS_ROW " UNION ALL SELECT incident_id, NULL, NULL, NULL, question_version, rooting,"     \
                 " correct, incorrect, unsure FROM vote_tallies"
/* the tally rows of the incidents logged above ?1, up to ?1 + ?2 (an incident once, its rows
 * together); an incident whose rows are gone comes once with none */
#define CATCH_UP_SQL                                                                               \
    VERSIONS_ROW " UNION ALL SELECT m.incident_id, m.seq, NULL, NULL, t.question_version,"         \
                 " t.rooting, t.correct, t.incorrect, t.unsure"                                    \
                 " FROM (SELECT incident_id, max(seq) AS seq FROM tally_log"                       \
                 " WHERE seq > ?1 AND seq <= ?1 + ?2 GROUP BY incident_id) m"                      \
                 " LEFT JOIN vote_tallies t ON t.incident_id = m.incident_id"

/* One incident's tallies for one question version, summed over the slots. A count that does
 * not fit (negative, or past 32 bits) makes the entry one the copy cannot answer for. */
struct tally {
    struct tally *next; /* in its bucket */
    int64_t qv;
    uint32_t n[ROOTING_COUNT][3];
    bool unknown;
    char id[];
};

/* A table of entries by incident ID (chained buckets, a power of two). */
struct table {
    struct tally **buckets;
    size_t nbuckets, entries, bytes;
};

/* Readers share lock; the swap of a loaded table and a catch-up's changes take it alone. */
static pthread_rwlock_t lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static struct table tab;  /* under lock, as the three below */
static bool have;         /* tab holds the database at versions ver (else nothing answers) */
static uint64_t ver[2];   /* content, tally */
static int64_t last_mark; /* the largest log number applied */
static atomic_size_t max_bytes, catch_up_max = TALLIES_CATCH_UP;
static atomic_bool enabled, loaded;
/* one catch-up or load at a time; a request's thread never waits for it */
static pthread_mutex_t catch_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_llong hits, catch_ups, behind, loads;
/* the loading thread's wake-up: a load wanted */
static pthread_mutex_t wake_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static bool want_load;
static bool has_thread;

static size_t entry_size(size_t idlen)
{
    return sizeof(struct tally) + idlen + 1;
}

static size_t bucket_of(const struct table *t, const char *id)
{
    return (size_t)(str_hash(id) & (t->nbuckets - 1));
}

static int table_init(struct table *t)
{
    t->nbuckets = 1024;
    t->entries = 0;
    t->bytes = t->nbuckets * sizeof *t->buckets;
    t->buckets = calloc(t->nbuckets, sizeof *t->buckets);
    return t->buckets ? 0 : -1;
}

static void table_free(struct table *t)
{
    for (size_t i = 0; t->buckets && i < t->nbuckets; i++)
        while (t->buckets[i]) {
            struct tally *e = t->buckets[i];
            t->buckets[i] = e->next;
            free(e);
        }
    free(t->buckets);
    memset(t, 0, sizeof *t);
}

/* The entry of (id, qv) in t, or NULL. */
static struct tally *table_find(const struct table *t, const char *id, int64_t qv)
{
    for (struct tally *e = t->buckets[bucket_of(t, id)]; e; e = e->next)
        if (e->qv == qv && strcmp(e->id, id) == 0)
            return e;
    return NULL;
}

/* Takes every entry of incident id out of t and frees it. */
static void table_drop(struct table *t, const char *id)
{
    struct tally **l = &t->buckets[bucket_of(t, id)];
    while (*l) {
        struct tally *e = *l;
        if (strcmp(e->id, id) != 0) {
            l = &e->next;
            continue;
        }
        *l = e->next;
        t->entries--;
        t->bytes -= entry_size(strlen(e->id));
        free(e);
    }
}

/* Twice the buckets, the entries moved (none when memory is short: the chains grow). */
static void table_grow(struct table *t)
{
    size_t n = t->nbuckets * 2;
    struct tally **b = calloc(n, sizeof *b);
    if (!b)
        return;
    for (size_t i = 0; i < t->nbuckets; i++)
        while (t->buckets[i]) {
            struct tally *e = t->buckets[i];
            t->buckets[i] = e->next;
            size_t k = (size_t)(str_hash(e->id) & (n - 1));
            e->next = b[k];
            b[k] = e;
        }
    free(t->buckets);
    t->bytes += (n - t->nbuckets) * sizeof *b;
    t->buckets = b;
    t->nbuckets = n;
}

static void table_link(struct table *t, struct tally *e)
{
    if (t->entries >= t->nbuckets && t->nbuckets < ((size_t)1 << 26))
        table_grow(t);
    size_t b = bucket_of(t, e->id);
    e->next = t->buckets[b];
    t->buckets[b] = e;
    t->entries++;
    t->bytes += entry_size(strlen(e->id));
}

static struct tally *new_entry(const char *id, int64_t qv)
{
    size_t len = strlen(id);
    struct tally *e = calloc(1, entry_size(len));
    if (!e)
        return NULL;
    e->qv = qv;
    memcpy(e->id, id, len + 1);
    return e;
}

/* Adds one tally row (rooting name, the three counts) to e. */
static void add_row(struct tally *e, const char *rooting, const int64_t c[3])
{
    int r = rooting ? rooting_from_name(rooting) : -1;
    if (r < 0) {
        e->unknown = true;
        return;
    }
    for (int k = 0; k < 3; k++) {
        int64_t sum = (int64_t)e->n[r][k] + c[k];
        if (c[k] < 0 || sum > (int64_t)UINT32_MAX)
            e->unknown = true;
        else
            e->n[r][k] = (uint32_t)sum;
    }
}

/* The counts of a row of LOAD_SQL or CATCH_UP_SQL. */
static void row_counts(struct store_stmt *st, int64_t c[3])
{
    for (int k = 0; k < 3; k++)
        c[k] = store_col_int(st, 6 + k);
}

/* The versions row: the versions, the log's largest number and its smallest (0: none). */
static void row_versions(struct store_stmt *st, uint64_t v[2], int64_t *mark, int64_t *low)
{
    v[0] = (uint64_t)store_col_int(st, 1);
    v[1] = (uint64_t)store_col_int(st, 2);
    *mark = store_col_int(st, 3);
    *low = store_col_null(st, 4) ? 0 : store_col_int(st, 4);
}

bool tallies_enabled(void)
{
    return atomic_load(&enabled);
}

/* Replaces the copy with t read at versions v, the log up to mark (t is the copy's after). */
static void install(struct table *t, const uint64_t v[2], int64_t mark)
{
    struct table old;
    pthread_rwlock_wrlock(&lock);
    old = tab;
    tab = *t;
    ver[0] = v[0];
    ver[1] = v[1];
    last_mark = mark;
    have = true;
    pthread_rwlock_unlock(&lock);
    table_free(&old);
    memset(t, 0, sizeof *t);
}

/* Drops the copy: nothing answers until it loads again. */
static void forget(void)
{
    struct table old;
    pthread_rwlock_wrlock(&lock);
    old = tab;
    memset(&tab, 0, sizeof tab);
    have = false;
    pthread_rwlock_unlock(&lock);
    table_free(&old);
}

/* The copy outgrew --tally-copy-mb: off for the process's life (it is dropped). */
static void over_budget(void)
{
    atomic_store(&enabled, false);
    log_warn("tallies",
             "the tallies need more than --tally-copy-mb (%zu MiB): reads take them from the "
             "database",
             atomic_load(&max_bytes) >> 20);
}

/* Under catch_mu. */
static int load_locked(struct store *s)
{
    struct table t;
    if (table_init(&t) < 0)
        return STORE_ERR;
    struct store_stmt *st = store_prepare(s, LOAD_SQL);
    if (!st) {
        table_free(&t);
        return STORE_ERR;
    }
    uint64_t v[2] = {0, 0};
    int64_t mark = -1, low = 0;
    bool over = false;
    struct tally *cur = NULL;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        const char *id = store_col_text(st, 0);
        if (!id) {
            row_versions(st, v, &mark, &low);
            continue;
        }
        int64_t qv = store_col_int(st, 4);
        if (!cur || cur->qv != qv || strcmp(cur->id, id) != 0) {
            cur = table_find(&t, id, qv);
            if (!cur) {
                if (t.bytes + entry_size(strlen(id)) > atomic_load(&max_bytes)) {
                    over = true;
                    break;
                }
                if (!(cur = new_entry(id, qv))) {
                    rc = STORE_ERR;
                    break;
                }
                table_link(&t, cur);
            }
        }
        int64_t c[3];
        row_counts(st, c);
        add_row(cur, store_col_text(st, 5), c);
    }
    store_reset(st);
    (void)low; /* a load reads every tally: how far back the log goes does not matter */
    if (rc >= 0 && (over || mark < 0)) {
        table_free(&t);
        forget();
        if (over)
            over_budget();
        return over ? 0 : STORE_ERR;
    }
    if (rc < 0) {
        table_free(&t);
        forget();
        return rc;
    }
    install(&t, v, mark);
    return 0;
}

int tallies_load(struct store *s)
{
    pthread_mutex_lock(&catch_mu);
    int rc = load_locked(s);
    pthread_mutex_unlock(&catch_mu);
    atomic_fetch_add(&loads, 1);
    return rc;
}

/* One incident's new entries, gathered by a catch-up before they replace its old ones. */
struct changed {
    struct changed *next;
    char *id;
    struct tally *entries; /* linked through next */
};

static void free_changed(struct changed *c)
{
    while (c) {
        struct changed *n = c->next;
        while (c->entries) {
            struct tally *e = c->entries;
            c->entries = e->next;
            free(e);
        }
        free(c->id);
        free(c);
        c = n;
    }
}

/* Asks the loading thread to read the copy whole (tests without one: nothing answers until
 * tallies_load). */
static void want_reload(void)
{
    forget();
    pthread_mutex_lock(&wake_mu);
    want_load = true;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&wake_mu);
}

/* Under catch_mu: the log above the copy's number, applied. */
static int catch_up_locked(struct store *s)
{
    pthread_rwlock_rdlock(&lock);
    int64_t from = last_mark;
    bool had = have;
    uint64_t held[2] = {ver[0], ver[1]};
    pthread_rwlock_unlock(&lock);
    if (!had)
        return 0;
    int64_t span = (int64_t)atomic_load(&catch_up_max);
    struct store_stmt *st = STORE_SELECT(s, CATCH_UP_SQL, STORE_INT(from), STORE_INT(span));
    if (!st)
        return STORE_ERR;
    atomic_fetch_add(&catch_ups, 1);
    uint64_t v[2] = {0, 0};
    int64_t mark = -1, low = 0;
    struct changed *list = NULL;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        const char *id = store_col_text(st, 0);
        if (!id) {
            row_versions(st, v, &mark, &low);
            continue;
        }
        if (!list || strcmp(list->id, id) != 0) { /* an incident's rows come together */
            struct changed *c = calloc(1, sizeof *c);
            if (!c || !(c->id = strdup(id))) {
                free(c);
                rc = STORE_ERR;
                break;
            }
            c->next = list;
            list = c;
        }
        if (store_col_null(st, 4) && store_col_null(st, 5))
            continue; /* no tally row left */
        int64_t qv = store_col_int(st, 4);
        struct tally *e = list->entries;
        while (e && e->qv != qv)
            e = e->next;
        if (!e) {
            if (!(e = new_entry(id, qv))) {
                rc = STORE_ERR;
                break;
            }
            e->next = list->entries;
            list->entries = e;
        }
        int64_t c[3];
        row_counts(st, c);
        add_row(e, store_col_text(st, 5), c);
    }
    store_reset(st);
    if (rc < 0 || mark < 0) {
        free_changed(list);
        return rc < 0 ? rc : STORE_ERR;
    }
    /* a snapshot older than the copy (a read transaction's): nothing to learn from it */
    if (v[0] < held[0] || v[1] < held[1]) {
        free_changed(list);
        return 0;
    }
    /* further behind than one catch-up reads, numbers gone past the copy's (the log keeps
     * the last million), or the log's end gone (a hand edit): read it whole */
    if (mark - from > span || mark < from || (mark > from && low > from + 1)) {
        free_changed(list);
        want_reload();
        return 0;
    }
    bool over = false;
    pthread_rwlock_wrlock(&lock);
    for (struct changed *c = list; c; c = c->next) {
        table_drop(&tab, c->id);
        while (c->entries) {
            struct tally *e = c->entries;
            c->entries = e->next;
            table_link(&tab, e);
        }
    }
    ver[0] = v[0];
    ver[1] = v[1];
    last_mark = mark;
    over = tab.bytes > atomic_load(&max_bytes);
    pthread_rwlock_unlock(&lock);
    free_changed(list);
    if (over) {
        forget();
        over_budget();
    }
    return 0;
}

/* Whether the copy holds versions at or later ones. */
static bool covered(const uint64_t at[2])
{
    pthread_rwlock_rdlock(&lock);
    bool ok = have && ver[0] >= at[0] && ver[1] >= at[1];
    pthread_rwlock_unlock(&lock);
    return ok;
}

bool tallies_cover(struct store *s, const uint64_t at[2])
{
    if (!atomic_load(&enabled) || !at)
        return false;
    if (covered(at))
        return true;
    bool ok = false;
    if (atomic_load(&loaded) && pthread_mutex_trylock(&catch_mu) == 0) {
        if (catch_up_locked(s) < 0)
            log_warn("tallies", "catching up failed: %s", store_errmsg(s));
        pthread_mutex_unlock(&catch_mu);
        ok = covered(at);
    }
    if (!ok)
        atomic_fetch_add(&behind, 1);
    return ok;
}

bool tallies_get(const char *id, int64_t qv, struct votes *v)
{
    pthread_rwlock_rdlock(&lock);
    bool ok = have;
    if (ok) {
        const struct tally *e = table_find(&tab, id, qv);
        ok = !e || !e->unknown;
        if (ok) {
            memset(v, 0, sizeof *v);
            for (int r = 0; e && r < ROOTING_COUNT; r++) {
                v->by_rooting[r].correct = e->n[r][0];
                v->by_rooting[r].incorrect = e->n[r][1];
                v->by_rooting[r].unsure = e->n[r][2];
            }
        }
    }
    pthread_rwlock_unlock(&lock);
    if (ok)
        atomic_fetch_add_explicit(&hits, 1, memory_order_relaxed);
    return ok;
}

void tallies_counts(struct tallies_counts *c)
{
    c->hits = atomic_load(&hits);
    c->catch_ups = atomic_load(&catch_ups);
    c->behind = atomic_load(&behind);
    c->loads = atomic_load(&loads);
    pthread_rwlock_rdlock(&lock);
    c->entries = have ? tab.entries : 0;
    c->bytes = have ? tab.bytes : 0;
    c->loaded = have;
    pthread_rwlock_unlock(&lock);
}

void tallies_setup_empty(size_t max, size_t catch_up)
{
    forget();
    atomic_store(&max_bytes, max);
    atomic_store(&catch_up_max, catch_up ? catch_up : TALLIES_CATCH_UP);
    atomic_store(&enabled, max > 0);
    atomic_store(&loaded, true);
    atomic_store(&hits, 0);
    atomic_store(&catch_ups, 0);
    atomic_store(&behind, 0);
    atomic_store(&loads, 0);
}

/* ---- the loading thread ------------------------------------------------------------------ */

/* Loads the copy at start, then again whenever a catch-up finds too much to apply, on a
 * connection of its own (opened for each load). */
static void *loader(void *arg)
{
    char *uri = arg;
    for (;;) {
        int64_t t0 = time_mono_us();
        struct store *s = NULL;
        char err[256];
        if (store_open(uri, false, &s, err, sizeof err) != 0) {
            log_warn("tallies", "cannot open the database: %s", err);
        } else {
            int rc = tallies_load(s);
            if (rc < 0)
                log_warn("tallies", "loading failed: %s", store_errmsg(s));
            store_close(s);
        }
        atomic_store(&loaded, true);
        struct tallies_counts c;
        tallies_counts(&c);
        log_info("tallies", "%zu incidents' tallies held in %zu KiB, read in %lld ms", c.entries,
                 c.bytes >> 10, (long long)((time_mono_us() - t0) / 1000));
        pthread_mutex_lock(&wake_mu);
        while (!want_load)
            pthread_cond_wait(&wake, &wake_mu);
        want_load = false;
        pthread_mutex_unlock(&wake_mu);
    }
    return NULL;
}

void tallies_setup(const char *uri, size_t max)
{
    if (has_thread || !max || store_uri_is_pg(uri)) {
        if (!has_thread)
            tallies_setup_empty(0, 0);
        return;
    }
    tallies_setup_empty(max, 0);
    atomic_store(&loaded, false);
    char *copy = strdup(uri);
    if (!copy) {
        atomic_store(&enabled, false);
        return;
    }
    /* the loader takes none of the server's signals (sigwait in http_serve) */
    if (thread_detached(loader, copy) == 0) {
        has_thread = true;
    } else {
        free(copy);
        atomic_store(&enabled, false);
    }
}
