/*
 * The SQLite driver of the store interface (store.h): one connection per thread, WAL,
 * synchronous=FULL, statements cached per connection by SQL text.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/log.h"

#define STMT_CACHE 128

struct cached_stmt {
    uint64_t hash;
    char *sql;
    sqlite3_stmt *stmt;
};

/* write commits made by this process, for store_data_version() */
static atomic_ulong local_commits;

struct store {
    sqlite3 *db;
    int last_rc;
    bool writing;
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

static int map_rc(struct store *s, int rc)
{
    s->last_rc = rc;
    return rc_of(rc);
}

int store_open(const char *uri, bool create, struct store **out, char *err, size_t errlen)
{
    static const char *const pragmas = "PRAGMA journal_mode=WAL;"
                                       "PRAGMA synchronous=FULL;"
                                       "PRAGMA foreign_keys=ON;"
                                       "PRAGMA mmap_size=1073741824;"
                                       "PRAGMA cache_size=-65536;"
                                       "PRAGMA temp_store=MEMORY;";
    struct store *s = calloc(1, sizeof *s);
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
    int rc = SQLITE_NOMEM;
    if (!s)
        goto fail;
    rc = sqlite3_open_v2(uri, &s->db, flags, NULL);
    if (rc != SQLITE_OK)
        goto fail;
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, 5000);
    rc = sqlite3_exec(s->db, pragmas, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        goto fail;
    *out = s;
    return 0;
fail:
    snprintf(err, errlen, "cannot open database %s: %s", uri,
             s && s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
    if (s) {
        sqlite3_close_v2(s->db);
        free(s);
    }
    return STORE_GONE;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    for (int i = 0; i < STMT_CACHE; i++) {
        sqlite3_finalize(s->cache[i].stmt);
        free(s->cache[i].sql);
    }
    sqlite3_close_v2(s->db);
    free(s);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

struct store_stmt *store_prepare(struct store *s, const char *sql)
{
    uint64_t h = fnv1a(sql);
    unsigned slot = (unsigned)(h % STMT_CACHE);
    for (unsigned i = 0; i < STMT_CACHE; i++) {
        struct cached_stmt *c = &s->cache[(slot + i) % STMT_CACHE];
        if (!c->stmt)
            break;
        if (c->hash == h && strcmp(c->sql, sql) == 0) {
            sqlite3_reset(c->stmt);
            sqlite3_clear_bindings(c->stmt);
            return (struct store_stmt *)c->stmt;
        }
    }
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL);
    if (rc != SQLITE_OK) {
        map_rc(s, rc);
        log_error("store", "cannot prepare statement: %s", sqlite3_errmsg(s->db));
        return NULL;
    }
    /* a free slot; when the cache is full, evict one whose statement is not running: a
     * caller may still be stepping an older statement (a list query while it prepares the
     * per-row ones) and that one must survive */
    struct cached_stmt *c = NULL;
    for (unsigned i = 0; i < STMT_CACHE && !c; i++) {
        struct cached_stmt *t = &s->cache[(slot + i) % STMT_CACHE];
        if (!t->stmt)
            c = t;
    }
    for (unsigned i = 0; i < STMT_CACHE && !c; i++) {
        struct cached_stmt *t = &s->cache[(slot + i) % STMT_CACHE];
        if (!sqlite3_stmt_busy(t->stmt))
            c = t;
    }
    if (!c) {
        fputs("whistle: statement cache exhausted by running statements\n", stderr);
        abort();
    }
    if (c->stmt) {
        sqlite3_finalize(c->stmt);
        free(c->sql);
    }
    c->hash = h;
    c->sql = strdup(sql);
    c->stmt = stmt;
    if (!c->sql) {
        fputs("whistle: out of memory\n", stderr);
        abort();
    }
    return (struct store_stmt *)stmt;
}

void store_bind_text(struct store_stmt *st, int idx, const char *v)
{
    if (v)
        sqlite3_bind_text((sqlite3_stmt *)st, idx, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null((sqlite3_stmt *)st, idx);
}

void store_bind_int(struct store_stmt *st, int idx, int64_t v)
{
    if (v == STORE_NULL_INT)
        sqlite3_bind_null((sqlite3_stmt *)st, idx);
    else
        sqlite3_bind_int64((sqlite3_stmt *)st, idx, v);
}

void store_bind_double(struct store_stmt *st, int idx, double v)
{
    sqlite3_bind_double((sqlite3_stmt *)st, idx, v);
}

void store_bind_null(struct store_stmt *st, int idx)
{
    sqlite3_bind_null((sqlite3_stmt *)st, idx);
}

int store_step(struct store_stmt *st)
{
    sqlite3_stmt *stmt = (sqlite3_stmt *)st;
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW)
        return STORE_ROW;
    if (rc == SQLITE_DONE)
        return STORE_DONE;
    sqlite3 *db = sqlite3_db_handle(stmt);
    int mapped = rc_of(rc);
    if (mapped != STORE_CONSTRAINT)
        log_error("store", "statement failed: %s", sqlite3_errmsg(db));
    sqlite3_reset(stmt);
    return mapped;
}

const char *store_col_text(struct store_stmt *st, int col)
{
    return (const char *)sqlite3_column_text((sqlite3_stmt *)st, col);
}

int64_t store_col_int(struct store_stmt *st, int col)
{
    if (sqlite3_column_type((sqlite3_stmt *)st, col) == SQLITE_NULL)
        return STORE_NULL_INT;
    return sqlite3_column_int64((sqlite3_stmt *)st, col);
}

bool store_col_null(struct store_stmt *st, int col)
{
    return sqlite3_column_type((sqlite3_stmt *)st, col) == SQLITE_NULL;
}

void store_reset(struct store_stmt *st)
{
    sqlite3_reset((sqlite3_stmt *)st);
}

int store_run(struct store_stmt *st)
{
    int rc = store_step(st);
    store_reset(st);
    return rc < 0 ? rc : 0;
}

void store_col_copy(struct store_stmt *st, int col, char *dst, size_t n)
{
    const char *v = store_col_text(st, col);
    snprintf(dst, n, "%s", v ? v : "");
}

int64_t store_changes(struct store *s)
{
    return sqlite3_changes64(s->db);
}

int store_exec(struct store *s, const char *sql)
{
    char *msg = NULL;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        log_error("store", "%s", msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
    }
    return map_rc(s, rc);
}

/* Runs one of the transaction-control statements through the statement cache. */
static int control(struct store *s, const char *sql)
{
    struct store_stmt *st = store_prepare(s, sql);
    if (!st)
        return STORE_ERR;
    int rc = sqlite3_step((sqlite3_stmt *)st);
    sqlite3_reset((sqlite3_stmt *)st);
    return map_rc(s, rc);
}

int store_begin_read(struct store *s)
{
    return control(s, "BEGIN");
}

int store_begin_write(struct store *s)
{
    int rc = control(s, "BEGIN IMMEDIATE");
    s->writing = rc >= 0;
    return rc;
}

int store_commit(struct store *s)
{
    int rc = control(s, "COMMIT");
    if (rc < 0) {
        store_rollback(s);
        return rc;
    }
    if (s->writing)
        atomic_fetch_add(&local_commits, 1);
    s->writing = false;
    return rc;
}

void store_rollback(struct store *s)
{
    s->writing = false;
    if (!sqlite3_get_autocommit(s->db))
        control(s, "ROLLBACK");
}

int store_data_version(struct store *s, uint64_t out[2])
{
    struct store_stmt *st = store_prepare(s, "PRAGMA data_version");
    if (!st)
        return STORE_ERR;
    int rc = store_step(st);
    if (rc == STORE_ROW)
        out[0] = (uint64_t)store_col_int(st, 0);
    store_reset(st);
    out[1] = atomic_load(&local_commits);
    return rc == STORE_ROW ? 0 : (rc < 0 ? rc : STORE_ERR);
}

const char *store_errmsg(struct store *s)
{
    return sqlite3_errmsg(s->db);
}

/* ---- per-thread connections for the server ---------------------------------------- */

static char *thread_uri;
static pthread_key_t thread_key;
static pthread_once_t thread_once = PTHREAD_ONCE_INIT;

static void thread_destroy(void *p)
{
    store_close(p);
}

static void thread_key_init(void)
{
    pthread_key_create(&thread_key, thread_destroy);
}

void store_thread_setup(const char *uri)
{
    pthread_once(&thread_once, thread_key_init);
    free(thread_uri);
    thread_uri = strdup(uri);
}

struct store *store_thread(void)
{
    struct store *s = pthread_getspecific(thread_key);
    if (s)
        return s;
    char err[512];
    if (store_open(thread_uri, false, &s, err, sizeof err) < 0) {
        log_error("store", "%s", err);
        return NULL;
    }
    pthread_setspecific(thread_key, s);
    return s;
}

void store_thread_drop(void)
{
    struct store *s = pthread_getspecific(thread_key);
    if (s) {
        store_close(s);
        pthread_setspecific(thread_key, NULL);
    }
}
