/*
 * The SQLite driver of the store interface (store.h): one connection per thread, WAL,
 * synchronous=FULL, statements cached per connection by SQL text.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "store/driver.h"
#include "util/log.h"

#define STMT_CACHE      128
#define BUSY_TIMEOUT_MS 5000 /* how long a writer waits for the write lock (STORE_BUSY after) */
#define PROBE_WAIT_MS   100  /* how long the write probe waits for this process's writers */
#define WAL_HDR_WORDS   12   /* the WAL-index header: 48 bytes, kept twice (sq_data_version) */
#define WAL_SHM_REGION  32768

struct cached_stmt {
    struct store_cached k; /* first: the handle and the cache key */
    sqlite3_stmt *stmt;    /* NULL exactly when k.sql is */
};

struct sqlite_store {
    struct store base; /* first */
    sqlite3 *db;
    char *path; /* for reopen */
    int last_rc;
    bool writing;
    pthread_mutex_t *gate;    /* the writer gate this connection holds, or NULL */
    int budget_ticks;         /* progress-handler calls left in this read (read_budget) */
    int64_t changes_at_begin; /* sqlite3_total_changes64 when the write transaction began */
    /* sq_data_version's gate: the WAL-index header as it was just before the versions in
     * seen_versions were read; seen_ok when both are set */
    bool seen_ok;
    uint32_t seen_hdr[WAL_HDR_WORDS];
    uint64_t seen_versions[2];
    struct cached_stmt cache[STMT_CACHE];
};

/* SQLite result code → store_rc: the one mapping every function here uses. */
static int rc_of(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_DONE:
        return STORE_DONE;
    case SQLITE_ROW:
        return STORE_ROW;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_INTERRUPT: /* over the read budget */
        return STORE_BUSY;
    case SQLITE_CONSTRAINT:
        return STORE_CONSTRAINT;
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_PERM:
        return STORE_GONE;
    default:
        return STORE_ERR;
    }
}

static int map_rc(struct sqlite_store *s, int rc)
{
    s->last_rc = rc;
    return rc_of(rc);
}

static const struct store_driver sqlite_driver;

static struct sqlite_store *conn(struct store *s)
{
    return (struct sqlite_store *)s;
}

static sqlite3_stmt *raw(struct store_stmt *st)
{
    return ((struct cached_stmt *)st)->stmt;
}

/*
 * The writer gate: one writer at a time per database file is SQLite's rule (BEGIN
 * IMMEDIATE), but a connection that finds the write lock taken waits in SQLite's busy
 * handler, which sleeps and polls (1, 2, 5, 10 … 100 ms): with a dozen threads writing, a
 * ballot waited up to a second for a lock that was free most of that time (bench/writes.sh:
 * p99 ~1 s at ~1,600 ballots/s). The threads of this process queue on a mutex instead,
 * woken the moment the writer before them commits; the busy handler still arbitrates with
 * other processes on the file (a worker or a CLI command). Gates are picked by a hash of the
 * path, so two files rarely share one, and a wait is bounded like SQLite's
 * (BUSY_TIMEOUT_MS, then STORE_BUSY).
 */
#define GATES 16
static pthread_mutex_t gates[GATES] = {
#define G PTHREAD_MUTEX_INITIALIZER
    G, G, G, G, G, G, G, G, G, G, G, G, G, G, G, G,
#undef G
};

static pthread_mutex_t *gate_of(const char *path)
{
    return &gates[store_sql_hash(path) % GATES];
}

/* 0 with the gate held, or STORE_BUSY after wait_ms. */
static int gate_enter(struct sqlite_store *s, int wait_ms)
{
    pthread_mutex_t *g = gate_of(s->path);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += wait_ms / 1000;
    until.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    int rc = pthread_mutex_timedlock(g, &until);
    if (rc != 0)
        return rc == EBUSY || rc == ETIMEDOUT ? STORE_BUSY : STORE_ERR;
    s->gate = g;
    return 0;
}

static void gate_leave(struct sqlite_store *s)
{
    if (s->gate) {
        pthread_mutex_unlock(s->gate);
        s->gate = NULL;
    }
}

/* Opens path and configures the connection: 0 and *out, or STORE_GONE with a message in
 * err. */
static int sq_connect(const char *path, bool create, sqlite3 **out, char *err, size_t errlen)
{
    static const char *const pragmas = "PRAGMA journal_mode=WAL;"
                                       "PRAGMA synchronous=FULL;"
                                       "PRAGMA foreign_keys=ON;"
                                       "PRAGMA mmap_size=1073741824;"
                                       "PRAGMA cache_size=-65536;"
                                       "PRAGMA temp_store=MEMORY;";
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, flags, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_extended_result_codes(db, 1);
        sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
        rc = sqlite3_exec(db, pragmas, NULL, NULL, NULL);
    }
    if (rc == SQLITE_OK) {
        *out = db;
        return 0;
    }
    snprintf(err, errlen, "cannot open database %s: %s", path,
             db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close_v2(db);
    return STORE_GONE;
}

/* store_sqlite_opener's connect: sq_connect of the connection's path into its db. */
static int sq_open_connect(struct store *s, bool create, char *err, size_t errlen)
{
    return sq_connect(conn(s)->path, create, &conn(s)->db, err, errlen);
}

const struct store_opener store_sqlite_opener = {&sqlite_driver, sizeof(struct sqlite_store),
                                                 offsetof(struct sqlite_store, path), true,
                                                 sq_open_connect};

/* Finalizes every cached statement and closes the database. */
static void sq_disconnect(struct sqlite_store *s)
{
    for (int i = 0; i < STMT_CACHE; i++) {
        sqlite3_finalize(s->cache[i].stmt);
        free(s->cache[i].k.sql);
        s->cache[i].stmt = NULL;
        s->cache[i].k.sql = NULL;
    }
    sqlite3_close_v2(s->db);
    s->db = NULL;
}

static void sq_close(struct store *base)
{
    struct sqlite_store *s = conn(base);
    sq_disconnect(s); /* a transaction still open is rolled back by the close */
    gate_leave(s);
    free(s->path);
    free(s);
}

/* store_cache_find's running(): a statement stepped and not yet reset or done */
static bool sq_running(const struct store_cached *e)
{
    return sqlite3_stmt_busy(((const struct cached_stmt *)e)->stmt);
}

static struct store_stmt *sq_prepare(struct store *base, const char *sql)
{
    struct sqlite_store *s = conn(base);
    uint64_t h = store_sql_hash(sql);
    bool hit;
    struct cached_stmt *c = (struct cached_stmt *)store_cache_find(
        s->cache, STMT_CACHE, sizeof s->cache[0], sql, h, sq_running, &hit);
    if (hit) {
        sqlite3_reset(c->stmt);
        sqlite3_clear_bindings(c->stmt);
        return &c->k.base;
    }
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL);
    if (rc != SQLITE_OK) {
        map_rc(s, rc);
        log_error("store", "cannot prepare statement: %s", sqlite3_errmsg(s->db));
        return NULL;
    }
    if (c->stmt) {
        sqlite3_finalize(c->stmt);
        free(c->k.sql);
    }
    c->k.base.drv = &sqlite_driver;
    c->k.base.conn = &s->base;
    c->k.hash = h;
    c->k.sql = strdup(sql);
    c->stmt = stmt;
    if (!c->k.sql) {
        fputs("whistle: out of memory\n", stderr);
        abort();
    }
    return &c->k.base;
}

static void sq_bind_text(struct store_stmt *st, int idx, const char *v)
{
    if (v)
        sqlite3_bind_text(raw(st), idx, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(raw(st), idx);
}

static void sq_bind_blob(struct store_stmt *st, int idx, const void *p, size_t n)
{
    sqlite3_bind_blob64(raw(st), idx, p, n, SQLITE_TRANSIENT);
}

static void sq_bind_int(struct store_stmt *st, int idx, int64_t v)
{
    if (v == STORE_NULL_INT)
        sqlite3_bind_null(raw(st), idx);
    else
        sqlite3_bind_int64(raw(st), idx, v);
}

static void sq_bind_double(struct store_stmt *st, int idx, double v)
{
    sqlite3_bind_double(raw(st), idx, v);
}

static void sq_bind_null(struct store_stmt *st, int idx)
{
    sqlite3_bind_null(raw(st), idx);
}

static int sq_step(struct store_stmt *st)
{
    /* store_prepare_ahead: sq_prepare compiled the statement already, nothing to do */
    if (st->conn->prepare_only)
        return STORE_DONE;
    sqlite3_stmt *stmt = raw(st);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW)
        return STORE_ROW;
    if (rc == SQLITE_DONE)
        return STORE_DONE;
    sqlite3 *db = sqlite3_db_handle(stmt);
    int mapped = rc_of(rc);
    if (rc == SQLITE_INTERRUPT)
        log_warn("store", "read over its budget (%d instructions): refused", STORE_READ_BUDGET_OPS);
    else if (mapped != STORE_CONSTRAINT)
        log_error("store", "statement failed: %s", sqlite3_errmsg(db));
    sqlite3_reset(stmt);
    return mapped;
}

static const char *sq_col_text(struct store_stmt *st, int col)
{
    return (const char *)sqlite3_column_text(raw(st), col);
}

static const void *sq_col_bytes(struct store_stmt *st, int col, size_t *len)
{
    sqlite3_stmt *stmt = raw(st);
    const void *p = sqlite3_column_type(stmt, col) == SQLITE_BLOB ? sqlite3_column_blob(stmt, col)
                                                                  : sqlite3_column_text(stmt, col);
    *len = p ? (size_t)sqlite3_column_bytes(stmt, col) : 0;
    return p;
}

static int64_t sq_col_int(struct store_stmt *st, int col)
{
    if (sqlite3_column_type(raw(st), col) == SQLITE_NULL)
        return STORE_NULL_INT;
    return sqlite3_column_int64(raw(st), col);
}

static bool sq_col_null(struct store_stmt *st, int col)
{
    return sqlite3_column_type(raw(st), col) == SQLITE_NULL;
}

static void sq_reset(struct store_stmt *st)
{
    sqlite3_reset(raw(st));
}

static int64_t sq_changes(struct store *s)
{
    return sqlite3_changes64(conn(s)->db);
}

static int sq_exec(struct store *base, const char *sql)
{
    struct sqlite_store *s = conn(base);
    char *msg = NULL;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        log_error("store", "%s", msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
    }
    return map_rc(s, rc);
}

/* Runs one of the transaction-control statements through the statement cache. */
static int control(struct sqlite_store *s, const char *sql)
{
    struct store_stmt *st = sq_prepare(&s->base, sql);
    if (!st)
        return STORE_ERR;
    int rc = sqlite3_step(raw(st));
    sqlite3_reset(raw(st));
    return map_rc(s, rc);
}

#define BUDGET_TICK 100000 /* instructions between two progress-handler calls */

static int over_budget(void *arg)
{
    struct sqlite_store *s = arg;
    return --s->budget_ticks < 0;
}

static int sq_begin_read(struct store *base)
{
    struct sqlite_store *s = conn(base);
    if (base->read_budget) {
        s->budget_ticks = STORE_READ_BUDGET_OPS / BUDGET_TICK;
        sqlite3_progress_handler(s->db, BUDGET_TICK, over_budget, s);
    }
    return control(s, "BEGIN");
}

static int sq_begin_write(struct store *base)
{
    struct sqlite_store *s = conn(base);
    bool entered = !s->gate; /* held already: BEGIN fails inside a transaction, as before */
    int rc = entered ? gate_enter(s, BUSY_TIMEOUT_MS) : 0;
    if (rc < 0)
        return rc;
    rc = control(s, "BEGIN IMMEDIATE");
    if (rc < 0 && entered)
        gate_leave(s);
    s->writing = rc >= 0;
    s->changes_at_begin = sqlite3_total_changes64(s->db);
    return rc;
}

static void sq_rollback(struct store *base)
{
    struct sqlite_store *s = conn(base);
    s->writing = false;
    if (s->base.read_budget)
        sqlite3_progress_handler(s->db, 0, NULL, NULL);
    if (!sqlite3_get_autocommit(s->db))
        control(s, "ROLLBACK");
    gate_leave(s);
}

/* The version bump of a write transaction (store_data_version), inside it: one writer, so
 * the new value becomes visible with the write and not before. Before migration 018 made
 * cache_versions the UPDATE fails and changes nothing (migrations themselves, an old file). */
static void bump_version(struct sqlite_store *s)
{
    const char *sql = NULL;
    if (!s->base.wrote && sqlite3_total_changes64(s->db) == s->changes_at_begin)
        return; /* no row changed */
    if (s->base.bump == STORE_BUMP_CONTENT)
        sql = "UPDATE cache_versions SET n = n + 1 WHERE name = 'content'";
    else if (s->base.bump == STORE_BUMP_TALLY)
        sql = "UPDATE cache_versions SET n = n + 1 WHERE name = 'tally'";
    if (sql)
        sqlite3_exec(s->db, sql, NULL, NULL, NULL);
}

static int sq_commit(struct store *base)
{
    struct sqlite_store *s = conn(base);
    if (s->base.read_budget)
        sqlite3_progress_handler(s->db, 0, NULL, NULL);
    if (s->writing)
        bump_version(s);
    int rc = control(s, "COMMIT");
    if (rc < 0) {
        sq_rollback(base);
        return rc;
    }
    s->writing = false;
    gate_leave(s);
    return rc;
}

/* The write lock first, without waiting: a lock held by another connection (SQLITE_BUSY)
 * shows the file takes writes. Then one row changed (migration 014): in WAL mode BEGIN
 * IMMEDIATE succeeds on a file opened read-only, the first write is what SQLite refuses.
 * The caller rolls back, so nothing reaches the file. */
static int sq_write_probe(struct store *base)
{
    struct sqlite_store *s = conn(base);
    /* A writer of this process holding the gate for longer than PROBE_WAIT_MS shows that
     * writes go through; a shorter wait sees past a writer that is failing (a read-only
     * file: the worker's writes take the gate, then fail) to the file itself. */
    if (gate_enter(s, PROBE_WAIT_MS) < 0)
        return 0;
    sqlite3_busy_timeout(s->db, 0);
    int rc = control(s, "BEGIN IMMEDIATE");
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    if (rc == STORE_BUSY) {
        gate_leave(s);
        return 0;
    }
    return rc < 0 ? rc : control(s, "UPDATE store_probe SET n = n + 1");
}

/*
 * The WAL-index header (https://sqlite.org/walformat.html, "The WAL-Index Header"): 48 bytes
 * at the start of the shared-memory file, followed by a copy of themselves. A writer updates
 * them when it commits, before its commit returns: the second copy, a memory barrier, then
 * the first (wal.c walIndexWriteHdr); they hold the commit counter (iChange), the last
 * committed frame (mxFrame) and the WAL's salts, so any committed transaction of any
 * connection or process, and any restart of the WAL, changes them. Read as SQLite's own
 * readers do before they take a lock (walIndexTryHdr): the first copy, then (ordered after
 * it) the second; two that differ are a write in progress. The region is the one SQLite maps for
 * this connection, asked of the VFS (xShmMap of the database file, no extending: a mapping
 * that exists, or none). Copies into hdr and returns true when it read a settled header.
 */
static bool wal_header(struct sqlite_store *s, uint32_t hdr[WAL_HDR_WORDS])
{
    sqlite3_file *f = NULL;
    if (sqlite3_file_control(s->db, "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK || !f ||
        !f->pMethods || f->pMethods->iVersion < 2 || !f->pMethods->xShmMap)
        return false;
    void volatile *region = NULL;
    if (f->pMethods->xShmMap(f, 0, WAL_SHM_REGION, 0, &region) != SQLITE_OK || !region)
        return false;
    const uint32_t *w = (const uint32_t *)(uintptr_t)region;
    uint32_t again[WAL_HDR_WORDS];
    /* acquire: no load of the second copy is made before those of the first (SQLite's
     * writer puts a full barrier between its two copies) */
    for (int i = 0; i < WAL_HDR_WORDS; i++)
        hdr[i] = __atomic_load_n(&w[i], __ATOMIC_ACQUIRE);
    for (int i = 0; i < WAL_HDR_WORDS; i++)
        again[i] = __atomic_load_n(&w[WAL_HDR_WORDS + i], __ATOMIC_RELAXED);
    /* byte 12 is isInit: a header not yet written by anyone is not one to compare */
    return memcmp(hdr, again, sizeof again) == 0 && ((const unsigned char *)hdr)[12] == 1;
}

/*
 * The versions from the cache_versions rows, read by a statement of its own (outside a
 * transaction: a read transaction of its own, two fcntl locks and the b-tree). Outside a
 * transaction this connection gates that read: when the WAL-index header is what it was
 * just before its last read, no transaction has committed since, anywhere, so the rows
 * are what that read found and no statement is run (a cached read then takes no lock at
 * all). The header is read before the statement, never after: a commit in between
 * changes the header, so the next call reads again. A connection with no shared memory
 * (not in WAL mode, a read-only file) reads every time.
 */
static int sq_data_version(struct store *base, uint64_t out[2])
{
    struct sqlite_store *s = conn(base);
    uint32_t hdr[WAL_HDR_WORDS];
    bool gated = sqlite3_get_autocommit(s->db) && wal_header(s, hdr);
    if (gated && s->seen_ok && memcmp(hdr, s->seen_hdr, sizeof hdr) == 0) {
        out[0] = s->seen_versions[0];
        out[1] = s->seen_versions[1];
        return VERSION_UNCHANGED;
    }
    s->seen_ok = false;
    struct store_stmt *st = sq_prepare(base, "SELECT (SELECT n FROM cache_versions WHERE name ="
                                             " 'content'), (SELECT n FROM cache_versions WHERE"
                                             " name = 'tally')");
    if (!st)
        return STORE_ERR;
    int rc = sq_step(st);
    if (rc == STORE_ROW) {
        out[0] = (uint64_t)sq_col_int(st, 0);
        out[1] = (uint64_t)sq_col_int(st, 1);
    }
    sq_reset(st);
    if (rc != STORE_ROW)
        return rc < 0 ? rc : STORE_ERR;
    if (gated) {
        memcpy(s->seen_hdr, hdr, sizeof hdr);
        s->seen_versions[0] = out[0];
        s->seen_versions[1] = out[1];
        s->seen_ok = true;
    }
    return 0;
}

static const char *sq_errmsg(struct store *s)
{
    return sqlite3_errmsg(conn(s)->db);
}

/* Nothing to check without a round trip on a local file; a transaction left open (a bug)
 * is rolled back. */
static bool sq_idle_ok(struct store *base)
{
    struct sqlite_store *s = conn(base);
    if (!sqlite3_get_autocommit(s->db)) {
        log_error("store", "a transaction was left open: rolled back");
        sq_rollback(base);
    }
    return true;
}

/* Opens the file again (after an I/O error, a full disk, a file moved away) and, once that
 * worked, closes the old connection: its cached statements are finalized, so a handle held
 * across the reopen must not be used. On failure the old connection stays (broken). */
static int sq_reopen(struct store *base, char *err, size_t errlen)
{
    struct sqlite_store *s = conn(base);
    sqlite3 *db = NULL;
    int rc = sq_connect(s->path, false, &db, err, errlen);
    if (rc < 0)
        return rc;
    sq_disconnect(s);
    gate_leave(s); /* a transaction of the old connection ended with it */
    s->db = db;
    s->writing = false;
    s->seen_ok = false;
    s->base.broken = false;
    return 0;
}

static const struct store_driver sqlite_driver = {
    .name = "sqlite",
    .close = sq_close,
    .prepare = sq_prepare,
    .bind_text = sq_bind_text,
    .bind_blob = sq_bind_blob,
    .bind_int = sq_bind_int,
    .bind_null = sq_bind_null,
    .bind_double = sq_bind_double,
    .step = sq_step,
    .col_text = sq_col_text,
    .col_bytes = sq_col_bytes,
    .col_int = sq_col_int,
    .col_null = sq_col_null,
    .reset = sq_reset,
    .changes = sq_changes,
    .exec = sq_exec,
    .begin_read = sq_begin_read,
    .begin_write = sq_begin_write,
    .commit = sq_commit,
    .rollback = sq_rollback,
    .errmsg = sq_errmsg,
    .data_version = sq_data_version,
    .write_probe = sq_write_probe,
    .idle_ok = sq_idle_ok,
    .reopen = sq_reopen,
};

/* SQLite's page caches, of every connection of the process, in one region mapped once: see
 * store.h. SQLite writes a free-list link into each slot when it is given the region, so the
 * region is resident from then on. */
int store_sqlite_page_pool(size_t bytes)
{
    int hdr = 0;
    if (bytes == 0 || sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &hdr) != SQLITE_OK)
        return -1;
    size_t slot = ((size_t)STORE_SQLITE_PAGE + (size_t)hdr + 7) & ~(size_t)7;
    size_t n = bytes / slot;
    if (n == 0 || n > INT32_MAX)
        return -1;
    void *pool = mmap(NULL, n * slot, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pool == MAP_FAILED)
        return -1;
    if (sqlite3_config(SQLITE_CONFIG_PAGECACHE, pool, (int)slot, (int)n) != SQLITE_OK) {
        munmap(pool, n * slot);
        return -1;
    }
    return 0;
}
