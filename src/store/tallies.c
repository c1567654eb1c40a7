#include "store/tallies.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
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

/* PostgreSQL (migration 031). The load: the versions (read before, store_data_version), then
 * in one REPEATABLE READ snapshot that snapshot and every tally row, in batches of the primary
 * key's order. */
#define LOAD_PG_SNAPSHOT "SELECT CAST(pg_current_snapshot() AS text)"
#define LOAD_PG_BATCH                                                                              \
    "SELECT incident_id, question_version, rooting, slot, correct, incorrect, unsure"              \
    " FROM vote_tallies WHERE (incident_id, question_version, rooting, slot) > (?, ?, ?, ?)"       \
    " ORDER BY incident_id, question_version, rooting, slot LIMIT ?"
#define LOAD_PG_ROWS 20000
/* The catch-up, in one statement (one snapshot): the log rows of the transactions the copy's
 * snapshot ?1 did not see (an ID at or past its xmax, or one it lists as in progress), at
 * most ?2; then the versions row (this statement's snapshot, the horizon below which the log
 * was trimmed, how many log rows were read) and, as on SQLite, the current tally rows of each
 * incident logged, an incident's rows together. */
#define CATCH_UP_PG                                                                                \
    "WITH p AS (SELECT CAST(? AS pg_snapshot) AS s),"                                              \
    " l AS (SELECT incident_id FROM tally_log WHERE xid >= (SELECT pg_snapshot_xmax(s) FROM p)"    \
    " UNION ALL SELECT incident_id FROM tally_log"                                                 \
    " WHERE xid = ANY (ARRAY(SELECT pg_snapshot_xip(s) FROM p)) LIMIT ?),"                         \
    " m AS (SELECT DISTINCT incident_id FROM l)"                                                   \
    " SELECT NULL, CAST(pg_current_snapshot() AS text),"                                           \
    " CAST((SELECT xid FROM tally_log_horizon WHERE id = 1) AS text), (SELECT count(*) FROM l),"   \
    " NULL, NULL, NULL, NULL, NULL"                                                                \
    " UNION ALL SELECT m.incident_id, NULL, NULL, NULL, t.question_version, t.rooting,"            \
    " t.correct, t.incorrect, t.unsure"                                                            \
    " FROM m LEFT JOIN vote_tallies t ON t.incident_id = m.incident_id ORDER BY 1 NULLS FIRST"
/* The worker's trim: the rows of transactions more than ?1 IDs before the oldest one running,
 * and the horizon moved just past the largest deleted, in one statement (one transaction).
 * With nothing to delete it changes no row: no transaction ID, so no version moves (pg.c
 * WROTE) and no cached body is dropped by a housekeeping pass. */
#define PRUNE_PG                                                                                   \
    "WITH d AS (DELETE FROM tally_log WHERE xid < CAST(CAST(greatest(CAST(CAST("                   \
    "pg_snapshot_xmin(pg_current_snapshot()) AS text) AS bigint) - ?, 0) AS text) AS xid8)"        \
    " RETURNING xid),"                                                                             \
    " m AS (SELECT CAST(CAST(CAST(CAST(max(xid) AS text) AS bigint) + 1 AS text) AS xid8) AS x"    \
    " FROM d)"                                                                                     \
    " UPDATE tally_log_horizon SET xid = (SELECT x FROM m) WHERE id = 1 AND (SELECT x FROM m) > "  \
    "xid"

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
static int64_t last_mark; /* SQLite: the largest log number applied */
static char *snap;        /* PostgreSQL: the snapshot the copy was last read in (pg_snapshot) */
static bool on_pg;        /* the copy is a PostgreSQL database's */
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

/* Replaces the copy with t read at versions v, the log up to mark or in snapshot sn (owned
 * from here; t is the copy's after). */
static void install(struct table *t, const uint64_t v[2], int64_t mark, char *sn, bool pg)
{
    struct table old;
    pthread_rwlock_wrlock(&lock);
    old = tab;
    tab = *t;
    ver[0] = v[0];
    ver[1] = v[1];
    last_mark = mark;
    char *old_snap = snap;
    snap = sn;
    on_pg = pg;
    have = true;
    pthread_rwlock_unlock(&lock);
    table_free(&old);
    free(old_snap);
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

/* Adds a tally row of incident id (question version qv, rooting, counts c) to t; *cur is the
 * entry the row before went to (rows of one entry come together). 0, 1 when t would pass the
 * budget, or STORE_ERR. */
static int table_add(struct table *t, struct tally **cur, const char *id, int64_t qv,
                     const char *rooting, const int64_t c[3])
{
    struct tally *e = *cur;
    if (!e || e->qv != qv || strcmp(e->id, id) != 0) {
        e = table_find(t, id, qv);
        if (!e) {
            if (t->bytes + entry_size(strlen(id)) > atomic_load(&max_bytes))
                return 1;
            if (!(e = new_entry(id, qv)))
                return STORE_ERR;
            table_link(t, e);
        }
        *cur = e;
    }
    add_row(e, rooting, c);
    return 0;
}

/* SQLite: every tally and the versions in one statement. 0, 1 past the budget, or a negative
 * store_rc. */
static int load_sqlite(struct store *s, struct table *t, uint64_t v[2], int64_t *mark)
{
    struct store_stmt *st = store_prepare(s, LOAD_SQL);
    if (!st)
        return STORE_ERR;
    int64_t low = 0;
    struct tally *cur = NULL;
    int rc, added = 0;
    while (added == 0 && (rc = store_step(st)) == STORE_ROW) {
        const char *id = store_col_text(st, 0);
        if (!id) {
            row_versions(st, v, mark, &low);
            continue;
        }
        int64_t c[3];
        row_counts(st, c);
        added = table_add(t, &cur, id, store_col_int(st, 4), store_col_text(st, 5), c);
    }
    store_reset(st);
    /* a load reads every tally: how far back the log goes (low) does not matter */
    if (added != 0)
        return added;
    return rc < 0 ? rc : *mark < 0 ? STORE_ERR : 0;
}

/* *dst (capacity *cap) becomes a copy of src; false when memory is short. */
static bool keep_text(char **dst, size_t *cap, const char *src)
{
    size_t n = strlen(src) + 1;
    if (n > *cap) {
        char *p = realloc(*dst, n);
        if (!p)
            return false;
        *dst = p;
        *cap = n;
    }
    memcpy(*dst, src, n);
    return true;
}

/* PostgreSQL: the versions, then in one REPEATABLE READ snapshot that snapshot (*sn, owned)
 * and every tally row, LOAD_PG_ROWS at a time by primary key. Returns as load_sqlite. */
static int load_pg(struct store *s, struct table *t, uint64_t v[2], char **sn)
{
    int rc = store_data_version(s, v);
    if (rc < 0 || (rc = store_begin_read(s)) < 0)
        return rc;
    struct store_stmt *st = store_prepare(s, LOAD_PG_SNAPSHOT);
    rc = st ? store_step(st) : STORE_ERR;
    if (rc == STORE_ROW)
        rc = store_col_text(st, 0) && (*sn = strdup(store_col_text(st, 0))) ? 0 : STORE_ERR;
    else if (rc >= 0)
        rc = STORE_ERR;
    if (st)
        store_reset(st);
    /* the key of the last row read: every tally row is past ('', minimum, '', minimum) */
    char *kid = NULL, *kroot = NULL;
    size_t kid_cap = 0, kroot_cap = 0;
    int64_t kqv = INT64_MIN, kslot = INT64_MIN;
    if (rc == 0 && (!keep_text(&kid, &kid_cap, "") || !keep_text(&kroot, &kroot_cap, "")))
        rc = STORE_ERR;
    struct tally *cur = NULL;
    int added = 0;
    while (rc == 0 && added == 0) {
        st = STORE_SELECT(s, LOAD_PG_BATCH, STORE_TEXT(kid), STORE_INT(kqv), STORE_TEXT(kroot),
                          STORE_INT(kslot), STORE_INT(LOAD_PG_ROWS));
        if (!st) {
            rc = STORE_ERR;
            break;
        }
        int64_t got = 0;
        while (added == 0 && (rc = store_step(st)) == STORE_ROW) {
            const char *id = store_col_text(st, 0), *rooting = store_col_text(st, 2);
            int64_t c[3] = {store_col_int(st, 4), store_col_int(st, 5), store_col_int(st, 6)};
            kqv = store_col_int(st, 1);
            kslot = store_col_int(st, 3);
            if (!id || !rooting || !keep_text(&kid, &kid_cap, id) ||
                !keep_text(&kroot, &kroot_cap, rooting)) {
                rc = STORE_ERR;
                break;
            }
            added = table_add(t, &cur, id, kqv, rooting, c);
            got++;
        }
        store_reset(st);
        if (rc >= 0)
            rc = got < LOAD_PG_ROWS ? 1 : 0; /* 1: the last batch */
    }
    store_rollback(s);
    free(kid);
    free(kroot);
    if (added != 0)
        return added;
    return rc < 0 ? rc : 0;
}

/* Under catch_mu. */
static int load_locked(struct store *s)
{
    struct table t;
    if (table_init(&t) < 0)
        return STORE_ERR;
    bool pg = store_is_pg(s);
    uint64_t v[2] = {0, 0};
    int64_t mark = -1;
    char *sn = NULL;
    int rc = pg ? load_pg(s, &t, v, &sn) : load_sqlite(s, &t, v, &mark);
    if (rc != 0) {
        table_free(&t);
        free(sn);
        forget();
        if (rc > 0)
            over_budget();
        return rc > 0 ? 0 : rc;
    }
    install(&t, v, mark, sn, pg);
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

/* The versions row of a catch-up. SQLite: the versions, the log's largest number and its
 * smallest (0: none). PostgreSQL: the statement's snapshot, the log's horizon, how many log
 * rows were read. */
struct caught {
    bool got;
    uint64_t v[2];
    int64_t mark, low;
    char *snap;
    uint64_t horizon;
    int64_t rows;
};

/* The rows of a catch-up statement into *list (an incident's rows together, each incident
 * once with its current entries, none when it has no tally row left) and its versions row
 * into *k. 0 or a negative store_rc. */
static int gather(struct store_stmt *st, bool pg, struct changed **list, struct caught *k)
{
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        const char *id = store_col_text(st, 0);
        if (!id) {
            k->got = true;
            if (!pg) {
                row_versions(st, k->v, &k->mark, &k->low);
                continue;
            }
            const char *sn = store_col_text(st, 1), *h = store_col_text(st, 2);
            if (!sn || !h || !(k->snap = strdup(sn)))
                return STORE_ERR;
            k->horizon = strtoull(h, NULL, 10);
            k->rows = store_col_int(st, 3);
            continue;
        }
        if (!*list || strcmp((*list)->id, id) != 0) {
            struct changed *c = calloc(1, sizeof *c);
            if (!c || !(c->id = strdup(id))) {
                free(c);
                return STORE_ERR;
            }
            c->next = *list;
            *list = c;
        }
        if (store_col_null(st, 4) && store_col_null(st, 5))
            continue; /* no tally row left */
        int64_t qv = store_col_int(st, 4);
        struct tally *e = (*list)->entries;
        while (e && e->qv != qv)
            e = e->next;
        if (!e) {
            if (!(e = new_entry(id, qv)))
                return STORE_ERR;
            e->next = (*list)->entries;
            (*list)->entries = e;
        }
        int64_t c[3];
        row_counts(st, c);
        add_row(e, store_col_text(st, 5), c);
    }
    return rc < 0 ? rc : k->got ? 0 : STORE_ERR;
}

/* Replaces the entries of every incident of list in the copy, which then holds versions v,
 * the log up to mark or in snapshot sn (owned from here). */
static void apply(struct changed *list, const uint64_t v[2], int64_t mark, char *sn)
{
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
    if (sn) {
        free(snap);
        snap = sn;
    }
    bool over = tab.bytes > atomic_load(&max_bytes);
    pthread_rwlock_unlock(&lock);
    if (over) {
        forget();
        over_budget();
    }
}

/* Under catch_mu: the log since the copy's number (SQLite) or snapshot (PostgreSQL), applied.
 * at: the versions the caller read before this statement (PostgreSQL: what the copy then
 * holds, as its snapshot is taken after them). */
static int catch_up_locked(struct store *s, const uint64_t at[2])
{
    pthread_rwlock_rdlock(&lock);
    int64_t from = last_mark;
    bool had = have, pg = on_pg;
    uint64_t held[2] = {ver[0], ver[1]};
    char *prev = had && pg && snap ? strdup(snap) : NULL;
    pthread_rwlock_unlock(&lock);
    if (!had || pg != store_is_pg(s) || (pg && !prev)) {
        free(prev);
        return had && pg && !prev ? STORE_ERR : 0;
    }
    int64_t span = (int64_t)atomic_load(&catch_up_max);
    struct store_stmt *st = pg ? STORE_SELECT(s, CATCH_UP_PG, STORE_TEXT(prev), STORE_INT(span + 1))
                               : STORE_SELECT(s, CATCH_UP_SQL, STORE_INT(from), STORE_INT(span));
    if (!st) {
        free(prev);
        return STORE_ERR;
    }
    atomic_fetch_add(&catch_ups, 1);
    struct caught k = {.mark = -1};
    struct changed *list = NULL;
    int rc = gather(st, pg, &list, &k);
    store_reset(st);
    bool reload = false;
    if (rc >= 0 && pg) {
        /* more than a catch-up reads, rows the copy had not seen trimmed (below the horizon,
         * which is past the xmin of the copy's snapshot), or transaction IDs gone backwards
         * (another cluster behind the same address, a restored dump: its IDs say nothing
         * about the copy's snapshot) */
        uint64_t was = strtoull(prev, NULL, 10);
        reload = k.rows > span || k.horizon > was || strtoull(k.snap, NULL, 10) < was;
        /* the snapshot of this statement was taken after the caller read at */
        k.v[0] = at[0];
        k.v[1] = at[1] > held[1] ? at[1] : held[1];
    } else if (rc >= 0) {
        /* a snapshot older than the copy (a read transaction's): nothing to learn from it */
        if (k.v[0] < held[0] || k.v[1] < held[1]) {
            free_changed(list);
            return 0;
        }
        /* further behind than one catch-up reads, numbers gone past the copy's (the log
         * keeps the last million), or the log's end gone (a hand edit): read it whole */
        reload = k.mark - from > span || k.mark < from || (k.mark > from && k.low > from + 1);
    }
    free(prev);
    if (rc < 0 || reload) {
        free_changed(list);
        free(k.snap);
        if (reload)
            want_reload();
        return rc < 0 ? rc : 0;
    }
    apply(list, k.v, k.mark, k.snap);
    free_changed(list);
    return 0;
}

/* Whether the copy holds versions at or later ones. PostgreSQL's content version is not
 * ordered (store_data_version mixes the server's start into it): there the copy holds at when
 * it was read after that very content version, and at least at's tally version. */
static bool covered(const uint64_t at[2])
{
    pthread_rwlock_rdlock(&lock);
    bool ok = have && (on_pg ? ver[0] == at[0] : ver[0] >= at[0]) && ver[1] >= at[1];
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
        if (catch_up_locked(s, at) < 0)
            log_warn("tallies", "catching up failed: %s", store_errmsg(s));
        pthread_mutex_unlock(&catch_mu);
        ok = covered(at);
    }
    if (!ok)
        atomic_fetch_add(&behind, 1);
    return ok;
}

int tallies_prune(struct store *s, int64_t keep)
{
    return store_is_pg(s) ? STORE_RUN(s, PRUNE_PG, STORE_INT(keep)) : 0;
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
    if (has_thread || !max) {
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
