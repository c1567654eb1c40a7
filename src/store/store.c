/*
 * The store interface's dispatch (store.h): picks the driver from the uri, forwards every
 * call to the driver that owns the connection or statement, and keeps the server's
 * per-thread connections (reopened with backoff after the database was unreachable).
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/driver.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/timefmt.h"
#include "util/uuid.h"

bool store_uri_is_pg(const char *uri)
{
    return strncmp(uri, "postgresql://", 13) == 0 || strncmp(uri, "postgres://", 11) == 0;
}

int store_open(const char *uri, bool create, struct store **out, char *err, size_t errlen)
{
    /* a zeroed connection of the driver's with its own copy of uri, then the driver's connect */
    const struct store_opener *o = store_uri_is_pg(uri) ? &store_pg_opener : &store_sqlite_opener;
    struct store *s = calloc(1, o->size);
    char **copy = s ? (char **)((char *)s + o->uri_at) : NULL;
    if (s)
        *copy = strdup(uri);
    if (!s || !*copy) {
        snprintf(err, errlen, "cannot open database%s%s: out of memory", o->name_uri ? " " : "",
                 o->name_uri ? uri : "");
        free(s);
        return STORE_ERR;
    }
    s->drv = o->drv;
    int rc = o->connect(s, create, err, errlen);
    if (rc < 0) {
        free(*copy);
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

const char *store_driver_name(const struct store *s)
{
    return s->drv->name;
}

bool store_is_pg(const struct store *s)
{
    return strcmp(s->drv->name, "postgresql") == 0;
}

void store_close(struct store *s)
{
    if (s)
        s->drv->close(s);
}

uint64_t store_sql_hash(const char *sql)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *sql; sql++)
        h = (h ^ (unsigned char)*sql) * 1099511628211ULL;
    return h;
}

struct store_cached *store_cache_find(void *table, size_t n, size_t size, const char *sql,
                                      uint64_t h, bool (*running)(const struct store_cached *e),
                                      bool *hit)
{
    size_t slot = (size_t)(h % n);
    *hit = false;
    /* the probe ends at the first free entry: sql is not cached, and that one is free */
    for (size_t i = 0; i < n; i++) {
        struct store_cached *e = (void *)((char *)table + (slot + i) % n * size);
        if (!e->sql)
            return e;
        if (e->hash == h && strcmp(e->sql, sql) == 0) {
            *hit = true;
            return e;
        }
    }
    for (size_t i = 0; i < n; i++) {
        struct store_cached *e = (void *)((char *)table + (slot + i) % n * size);
        if (!running(e))
            return e;
    }
    fputs("whistle: statement cache exhausted by running statements\n", stderr);
    abort();
}

/* Failures by kind since start (store_error_counts): bugs, busy, gone. */
static atomic_llong failures[3];

/* Every result of a call that talks to the database passes here: STORE_GONE marks the
 * connection broken, so that store_thread() reopens it before handing it out again. A
 * constraint's refusal is an answer, not a failure: it is not counted. */
static int seen(struct store *s, int rc)
{
    if (rc == STORE_GONE)
        s->broken = true;
    if (rc == STORE_ERR || rc == STORE_BUSY || rc == STORE_GONE)
        atomic_fetch_add_explicit(&failures[rc == STORE_ERR    ? 0
                                            : rc == STORE_BUSY ? 1
                                                               : 2],
                                  1, memory_order_relaxed);
    return rc;
}

void store_error_counts(int64_t *error, int64_t *busy, int64_t *gone)
{
    *error = atomic_load_explicit(&failures[0], memory_order_relaxed);
    *busy = atomic_load_explicit(&failures[1], memory_order_relaxed);
    *gone = atomic_load_explicit(&failures[2], memory_order_relaxed);
}

/* Reopens a connection found dead by the first statement of a unit of work (nothing was
 * done yet, so running that statement again is safe): true when it may be retried. */
static bool reopened(struct store *s, int rc)
{
    if (rc != STORE_GONE)
        return false;
    char err[512];
    if (s->drv->reopen(s, err, sizeof err) < 0) {
        log_warn("store", "%s", err);
        return false;
    }
    log_info("store", "database connection lost and opened again");
    return true;
}

void store_trace(struct store *s, void (*fn)(void *arg, const char *what), void *arg)
{
    s->trace = fn;
    s->trace_arg = arg;
}

static void traced(struct store *s, const char *what)
{
    if (s->trace)
        s->trace(s->trace_arg, what);
}

struct store_stmt *store_prepare(struct store *s, const char *sql)
{
    traced(s, sql);
    return s->drv->prepare(s, sql);
}

void store_bind_text(struct store_stmt *st, int idx, const char *v)
{
    st->drv->bind_text(st, idx, v);
}

bool store_bind_blob(struct store_stmt *st, int idx, const void *p, size_t n)
{
    if (!st->drv->bind_blob)
        return false;
    st->drv->bind_blob(st, idx, p, n);
    return true;
}

const void *store_col_bytes(struct store_stmt *st, int col, size_t *len)
{
    return st->drv->col_bytes(st, col, len);
}

void store_bind_int(struct store_stmt *st, int idx, int64_t v)
{
    st->drv->bind_int(st, idx, v);
}

void store_bind_double(struct store_stmt *st, int idx, double v)
{
    st->drv->bind_double(st, idx, v);
}

void store_bind_null(struct store_stmt *st, int idx)
{
    st->drv->bind_null(st, idx);
}

int store_step(struct store_stmt *st)
{
    return seen(st->conn, st->drv->step(st));
}

int store_prepare_ahead(struct store *s, int (*fn)(struct store *s, void *arg), void *arg)
{
    assert(!s->prepare_only);
    s->prepare_only = true;
    int rc = fn(s, arg);
    s->prepare_only = false;
    return rc < 0 ? rc : 0;
}

const char *store_col_text(struct store_stmt *st, int col)
{
    return st->drv->col_text(st, col);
}

int64_t store_col_int(struct store_stmt *st, int col)
{
    return st->drv->col_int(st, col);
}

bool store_col_null(struct store_stmt *st, int col)
{
    return st->drv->col_null(st, col);
}

void store_reset(struct store_stmt *st)
{
    st->drv->reset(st);
}

int store_run(struct store_stmt *st)
{
    int rc = store_step(st);
    store_reset(st);
    return rc < 0 ? rc : 0;
}

/* Binds args[0..n) to st's parameters first, first + 1, … in order. */
static void bind_args(struct store_stmt *st, int first, const struct store_arg *args, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (args[k].text)
            store_bind_text(st, (int)k + first, args[k].s);
        else
            store_bind_int(st, (int)k + first, args[k].i);
    }
}

struct store_stmt *store_select_args(struct store *s, const char *sql, const struct store_arg *args,
                                     size_t n)
{
    struct store_stmt *st = store_prepare(s, sql);
    if (st)
        bind_args(st, 1, args, n);
    return st;
}

int store_insert_args(struct store *s, const char *sql, const struct store_arg *args, size_t n)
{
    char id[UUID_STR_LEN + 1];
    uuid_v4(id);
    struct store_stmt *st = store_prepare(s, sql);
    if (!st)
        return STORE_ERR;
    store_bind_text(st, 1, id);
    bind_args(st, 2, args, n);
    return store_run(st);
}

int store_run_args(struct store *s, const char *sql, const struct store_arg *args, size_t n)
{
    struct store_stmt *st = store_select_args(s, sql, args, n);
    return st ? store_run(st) : STORE_ERR;
}

int store_exists_args(struct store *s, const char *sql, const struct store_arg *args, size_t n)
{
    struct store_stmt *st = store_select_args(s, sql, args, n);
    if (!st)
        return STORE_ERR;
    int rc = store_step(st);
    store_reset(st);
    return rc < 0 ? rc : rc == STORE_ROW;
}

int store_rows(struct store_stmt *st, int (*row)(void *ctx, struct store_stmt *st), void *ctx)
{
    if (!st)
        return STORE_ERR;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW)
        if ((rc = row(ctx, st)) != 0)
            break;
    store_reset(st);
    return rc < 0 ? rc : 0;
}

/* store_read_one's arguments, carried to read_one_row through store_one's out. */
struct read_one {
    struct arena *a;
    store_read_fn read;
    void *row;
};

/* store_one's reader for store_read_one: the store_read_fn at place 0. */
static int read_one_row(void *out, struct store_stmt *st)
{
    const struct read_one *r = out;
    r->read(r->a, st, r->row, 0);
    return 0;
}

int store_read_one(struct store_stmt *st, struct arena *a, store_read_fn read, void *row)
{
    return store_one(st, read_one_row, &(struct read_one){a, read, row});
}

/* store_read_each's arguments, carried to read_each_row through store_rows' ctx. */
struct read_each {
    store_read_fn read;
    size_t size;
    int (*call)(void *ctx, const void *row);
    void *ctx;
};

/* store_rows' row function for store_read_each: the row in an arena of its own. */
static int read_each_row(void *ctx, struct store_stmt *st)
{
    const struct read_each *r = ctx;
    struct arena a;
    arena_init(&a);
    void *row = arena_alloc(&a, r->size);
    r->read(&a, st, row, 0);
    int rc = r->call(r->ctx, row);
    arena_release(&a);
    return rc;
}

int store_read_each(struct store_stmt *st, store_read_fn read, size_t size,
                    int (*call)(void *ctx, const void *row), void *ctx)
{
    return store_rows(st, read_each_row, &(struct read_each){read, size, call, ctx});
}

void store_read_id(struct arena *a, struct store_stmt *st, void *rows, size_t k)
{
    ((const char **)rows)[k] = arena_strdup(a, store_col_text(st, 0));
}

int store_page(struct store_stmt *st, struct arena *a, store_read_fn read, void *rows,
               int64_t limit, size_t *n, bool *more)
{
    *n = 0;
    *more = false;
    if (!st)
        return STORE_ERR;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        if (*n == (size_t)limit) {
            *more = true;
            break;
        }
        read(a, st, rows, (*n)++);
    }
    store_reset(st);
    return rc < 0 ? rc : 0;
}

int store_grow(struct store_stmt *st, struct arena *a, store_read_fn read, size_t size, void *out,
               size_t *n)
{
    if (!st)
        return STORE_ERR;
    size_t cap = 4, count = 0;
    char *list = arena_alloc(a, size * cap);
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        if (count == cap) {
            char *bigger = arena_alloc(a, size * cap * 2);
            memcpy(bigger, list, size * cap);
            list = bigger;
            cap *= 2;
        }
        read(a, st, list, count++);
    }
    store_reset(st);
    if (rc < 0)
        return rc;
    memcpy(out, &list, sizeof list); /* the caller's T *: every object pointer is alike here */
    *n = count;
    return 0;
}

size_t store_id_slots(size_t n, size_t min)
{
    size_t slots = min;
    while (slots < n)
        slots *= 2;
    return slots;
}

/* "head IN (?, ?, …)tail" with slots placeholders, prepared */
static struct store_stmt *select_slots(struct store *s, const char *head, const char *tail,
                                       size_t slots)
{
    struct buf sql = BUF_INIT;
    buf_printf(&sql, "%s IN (?", head);
    for (size_t k = 1; k < slots; k++)
        buf_puts(&sql, ", ?");
    buf_printf(&sql, ")%s", tail);
    struct store_stmt *st = store_prepare(s, sql.p);
    buf_release(&sql);
    return st;
}

/* ids as a PostgreSQL array literal, each element quoted (its backslashes and double quotes
 * escaped) */
static void text_array(struct buf *b, const char *const *ids, size_t n)
{
    buf_putc(b, '{');
    for (size_t k = 0; k < n; k++) {
        buf_puts(b, k ? ",\"" : "\"");
        for (const char *p = ids[k]; *p; p++) {
            if (*p == '"' || *p == '\\')
                buf_putc(b, '\\');
            buf_putc(b, *p);
        }
        buf_putc(b, '"');
    }
    buf_putc(b, '}');
}

struct store_stmt *store_select_ids(struct store *s, const char *head, const char *tail,
                                    const char *const *ids, size_t n, size_t slots)
{
    if (store_is_pg(s)) {
        struct buf sql = BUF_INIT, arr = BUF_INIT;
        buf_printf(&sql, "%s = ANY (CAST(? AS text[]))%s", head, tail);
        text_array(&arr, ids, n);
        struct store_stmt *st = store_prepare(s, sql.p);
        if (st)
            store_bind_text(st, 1, arr.p);
        buf_release(&sql);
        buf_release(&arr);
        return st;
    }
    struct store_stmt *st = select_slots(s, head, tail, slots);
    for (size_t k = 0; st && k < slots; k++)
        store_bind_text(st, (int)k + 1, k < n ? ids[k] : NULL);
    return st;
}

struct store_stmt *store_select_keys(struct store *s, const char *head, const char *tail,
                                     const int64_t *keys, size_t n, size_t slots)
{
    struct store_stmt *st = select_slots(s, head, tail, slots);
    for (size_t k = 0; st && k < slots; k++)
        store_bind_int(st, (int)k + 1, k < n ? keys[k] : STORE_NULL_INT);
    return st;
}

int store_changed_args(struct store *s, const char *sql, const struct store_arg *args, size_t n)
{
    int rc = store_run_args(s, sql, args, n);
    return rc < 0 ? rc : store_changes(s) > 0;
}

int store_col_copy(struct store_stmt *st, int col, char *dst, size_t n)
{
    assert(n > 0);
    const char *v = store_col_text(st, col);
    size_t len = v ? strlen(v) : 0;
    if (len >= n) {
        /* Every fixed array read into is sized by the domain's maximum for its column (ids,
         * slugs of SLUG_MAX, enum names), so a longer value was written around the rules (a
         * hand edit, a bug). Never truncated (a cut id or slug names another record) and
         * never an abort (one bad row would stop the server): the read fails. */
        dst[0] = '\0';
        log_error("store",
                  "column %d holds %zu bytes, more than the %zu it is read into: "
                  "the read fails",
                  col, len, n - 1);
        return seen(st->conn, STORE_ERR);
    }
    memcpy(dst, v ? v : "", len + 1);
    return 0;
}

int store_cols(struct store_stmt *st, struct arena *a, int first, const struct store_col *cols,
               void *rec)
{
    int c = first;
    for (const struct store_col *k = cols; k->kind != STORE_COL_END_; k++, c++) {
        char *f = (char *)rec + k->off;
        int64_t v = k->kind >= STORE_COL_INT_ ? store_col_int(st, c) : 0;
        switch (k->kind) {
        case STORE_COL_CHARS_:
            store_col_copy(st, c, f, k->size);
            break;
        case STORE_COL_DUP_:
            *(const char **)f = arena_strdup(a, store_col_text(st, c));
            break;
        case STORE_COL_VIEW_:
            *(const char **)f = store_col_text(st, c);
            break;
        case STORE_COL_INT_:
            if (k->size == sizeof(int))
                *(int *)f = (int)v;
            else
                *(int64_t *)f = v;
            break;
        case STORE_COL_BOOL_:
            *(bool *)f = v != 0;
            break;
        case STORE_COL_TRI_:
            *(int *)f = v == STORE_NULL_INT ? -1 : v != 0;
            break;
        case STORE_COL_END_:
            break;
        }
    }
    return c;
}

/* store_one_cols' arguments, carried to cols_row through store_one's out. */
struct one_cols {
    const struct store_col *cols;
    void *rec;
};

/* store_one's reader for store_one_cols: the table into the record. */
static int cols_row(void *out, struct store_stmt *st)
{
    const struct one_cols *o = out;
    store_cols(st, NULL, 0, o->cols, o->rec);
    return 0;
}

int store_one_cols(struct store_stmt *st, const struct store_col *cols, void *out)
{
    return store_one(st, cols_row, &(struct one_cols){cols, out});
}

int64_t store_changes(struct store *s)
{
    return s->drv->changes(s);
}

int store_exec(struct store *s, const char *sql)
{
    traced(s, sql);
    if (s->bump != STORE_BUMP_NONE)
        s->wrote = true;
    return seen(s, s->drv->exec(s, sql));
}

int store_begin_read(struct store *s)
{
    traced(s, "BEGIN READ");
    int rc = seen(s, s->drv->begin_read(s));
    if (reopened(s, rc))
        rc = seen(s, s->drv->begin_read(s));
    return rc;
}

int store_lock_key(struct store *s, const char *key)
{
    /* drivers without a row-write mode hold the whole database's write lock already */
    if (!s->drv->begin_row_write)
        return 0;
    int rc =
        STORE_EXISTS(s, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", STORE_TEXT(key));
    if (rc >= 0 && !s->prepare_only)
        s->key_locked = true;
    return rc < 0 ? rc : 0;
}

/* Every write transaction that changed something moves the content version when it commits
 * unless it says it wrote tallies only (store_write_tallies_only): no caller can forget it.
 * The drivers tell whether it changed something (a background job that found nothing to
 * do moves nothing, or no cache would live longer than the worker's poll interval). */
static int began_write(struct store *s, int rc)
{
    s->bump = rc < 0 ? STORE_BUMP_NONE : STORE_BUMP_CONTENT;
    s->wrote = false;
    return rc;
}

int store_begin_write(struct store *s)
{
    traced(s, "BEGIN WRITE");
    int rc = seen(s, s->drv->begin_write(s));
    if (reopened(s, rc))
        rc = seen(s, s->drv->begin_write(s));
    return began_write(s, rc);
}

int store_begin_row_write(struct store *s)
{
    traced(s, "BEGIN ROW WRITE");
    int (*begin)(struct store *) =
        s->drv->begin_row_write ? s->drv->begin_row_write : s->drv->begin_write;
    int rc = seen(s, begin(s));
    if (reopened(s, rc))
        rc = seen(s, begin(s));
    return began_write(s, rc);
}

static void (*after_content)(struct store *s);
static void lease_wait(bool moved);

void store_after_content_commit(void (*fn)(struct store *s))
{
    after_content = fn;
}

int store_commit(struct store *s)
{
    s->key_locked = false;
    traced(s, "COMMIT");
    bool content = s->bump == STORE_BUMP_CONTENT;
    int rc = seen(s, s->drv->commit(s));
    s->bump = STORE_BUMP_NONE;
    /* taken before after_content, whose own commits would reset it */
    bool moved = rc == 0 && s->moved;
    s->moved = false;
    if (rc == 0 && content && after_content && !s->prepare_only)
        after_content(s);
    lease_wait(moved);
    return rc;
}

void store_rollback(struct store *s)
{
    s->key_locked = false;
    traced(s, "ROLLBACK");
    s->bump = STORE_BUMP_NONE;
    s->drv->rollback(s);
}

void store_write_tallies_only(struct store *s)
{
    if (s->bump != STORE_BUMP_NONE)
        s->bump = STORE_BUMP_TALLY;
}

void store_write_derived(struct store *s)
{
    s->bump = STORE_BUMP_NONE;
}

int store_step_write(struct store_stmt *st, bool tallies_only)
{
    struct store *s = st->conn;
    if (!s->drv->step_write)
        return store_step(st);
    s->moved = false;
    int rc = seen(s, s->drv->step_write(st, tallies_only));
    lease_wait(rc >= 0 && s->moved);
    s->moved = false;
    return rc;
}

int64_t store_round_trips(struct store *s)
{
    return s->round_trips;
}

const char *store_errmsg(struct store *s)
{
    return s->drv->errmsg(s);
}

static int read_version(struct store *s, uint64_t out[2])
{
    int rc = seen(s, s->drv->data_version(s, out));
    if (reopened(s, rc))
        rc = seen(s, s->drv->data_version(s, out));
    if (rc == 0)
        traced(s, "VERSION READ");
    return rc < 0 ? rc : 0;
}

/*
 * The version lease (store.h store_lease_setup). lease_us: 0 off. The watcher's last poll:
 * the versions it read and the monotonic time taken before it sent the statement. Counts:
 * version reads of the requests' connections answered by the lease and by their own round
 * trip, and commits that waited.
 */
static _Atomic int64_t lease_us;
static struct {
    pthread_mutex_t mu;
    pthread_cond_t wake; /* on CLOCK_MONOTONIC: the watcher's rest, cut short by stop */
    uint64_t v[2];
    int64_t start;
    bool valid, stop, running;
    pthread_t thread;
    char *uri;
} lease = {.mu = PTHREAD_MUTEX_INITIALIZER};
static atomic_llong lease_counts[3];

bool store_lease_covers(int64_t poll_start_us, int64_t now_us, int64_t lease_for_us)
{
    return lease_for_us > 0 && poll_start_us <= now_us && now_us - poll_start_us <= lease_for_us;
}

int64_t store_lease_wait_us(int64_t lease_for_us)
{
    /* the margin: the monotonic clocks of two machines may run apart by a few hundred parts
     * per million (NTP's slew), far below 1/16; the 50 µs are the timer's rounding */
    return lease_for_us > 0 ? lease_for_us + lease_for_us / 16 + 50 : 0;
}

static bool lease_answer(uint64_t out[2], int64_t l)
{
    pthread_mutex_lock(&lease.mu);
    bool ok = lease.valid && store_lease_covers(lease.start, time_mono_us(), l);
    if (ok)
        memcpy(out, lease.v, sizeof lease.v);
    pthread_mutex_unlock(&lease.mu);
    return ok;
}

int store_data_version(struct store *s, uint64_t out[2])
{
    int64_t l = atomic_load(&lease_us);
    if (l > 0 && s->leased) {
        if (lease_answer(out, l)) {
            atomic_fetch_add_explicit(&lease_counts[0], 1, memory_order_relaxed);
            traced(s, "VERSION LEASED");
            return 0;
        }
        atomic_fetch_add_explicit(&lease_counts[1], 1, memory_order_relaxed);
    }
    return read_version(s, out);
}

/* The watcher: polls the versions every half lease on a connection of its own, so that a
 * poll that started at most one lease ago is there whenever the round trip takes less than
 * half of one; when it does not (a slow or lost database), requests read their own. */
static void *lease_main(void *arg)
{
    (void)arg;
    struct store *s = NULL;
    bool failing = false;
    pthread_mutex_lock(&lease.mu);
    while (!lease.stop) {
        int64_t start = time_mono_us(), period = atomic_load(&lease_us) / 2;
        pthread_mutex_unlock(&lease.mu);
        char err[512] = "";
        uint64_t v[2];
        int rc = s ? 0 : store_open(lease.uri, false, &s, err, sizeof err);
        if (rc == 0 && s->broken)
            rc = s->drv->reopen(s, err, sizeof err);
        if (rc == 0)
            rc = read_version(s, v);
        if (rc < 0 && !failing)
            log_warn("store", "version lease: no poll (%s): requests read their own versions",
                     err[0] ? err : store_errmsg(s));
        else if (rc == 0 && failing)
            log_info("store", "version lease: polling again");
        failing = rc < 0;
        pthread_mutex_lock(&lease.mu);
        if (rc == 0) {
            memcpy(lease.v, v, sizeof v);
            lease.start = start;
            lease.valid = true;
        }
        int64_t until = start + (period > 0 ? period : 1000);
        struct timespec ts = {.tv_sec = until / 1000000, .tv_nsec = (until % 1000000) * 1000};
        while (!lease.stop && pthread_cond_timedwait(&lease.wake, &lease.mu, &ts) == 0)
            ;
    }
    pthread_mutex_unlock(&lease.mu);
    store_close(s);
    return NULL;
}

int store_lease_setup(const char *uri, int64_t lease_for_us, bool watch)
{
    atomic_store(&lease_us, lease_for_us > 0 && store_uri_is_pg(uri) ? lease_for_us : 0);
    if (!watch || atomic_load(&lease_us) == 0 || lease.running)
        return 0;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&lease.wake, &ca);
    pthread_condattr_destroy(&ca);
    lease.uri = strdup(uri);
    lease.stop = lease.valid = false;
    if (!lease.uri || pthread_create(&lease.thread, NULL, lease_main, NULL) != 0) {
        free(lease.uri);
        lease.uri = NULL;
        atomic_store(&lease_us, 0);
        return -1;
    }
    lease.running = true;
    return 0;
}

void store_lease_stop(void)
{
    if (!lease.running)
        return;
    pthread_mutex_lock(&lease.mu);
    lease.stop = true;
    pthread_cond_signal(&lease.wake);
    pthread_mutex_unlock(&lease.mu);
    pthread_join(lease.thread, NULL);
    pthread_cond_destroy(&lease.wake); /* store_lease_setup makes it anew */
    lease.running = lease.valid = false;
    free(lease.uri);
    lease.uri = NULL;
    atomic_store(&lease_us, 0);
}

void store_lease_counts(int64_t *leased, int64_t *own, int64_t *waits)
{
    *leased = atomic_load_explicit(&lease_counts[0], memory_order_relaxed);
    *own = atomic_load_explicit(&lease_counts[1], memory_order_relaxed);
    *waits = atomic_load_explicit(&lease_counts[2], memory_order_relaxed);
}

/* After a commit that moved a version, with a lease: the answer waits until every node's
 * leased versions show the write (store.h store_lease_setup). */
static void lease_wait(bool moved)
{
    int64_t wait = store_lease_wait_us(atomic_load(&lease_us));
    if (!moved || wait == 0)
        return;
    atomic_fetch_add_explicit(&lease_counts[2], 1, memory_order_relaxed);
    int64_t until = time_mono_us() + wait;
    struct timespec ts = {.tv_sec = until / 1000000, .tv_nsec = (until % 1000000) * 1000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

int store_write_probe(struct store *s, char *why, size_t whylen)
{
    int rc = seen(s, s->drv->write_probe(s));
    if (reopened(s, rc))
        rc = seen(s, s->drv->write_probe(s));
    snprintf(why, whylen, "%s", rc < 0 ? s->drv->errmsg(s) : "");
    s->drv->rollback(s);
    return rc;
}

int store_cache_flush(struct store *s)
{
    /* a write transaction that changes a row moves the content version at its commit;
     * maintenance (whistle cache flush), so the exclusive lock */
    int rc = store_begin_write(s);
    if (rc == 0)
        rc = store_exec(s, "UPDATE cache_versions SET n = n + 1 WHERE name = 'content'");
    if (rc == 0)
        return store_commit(s);
    store_rollback(s);
    return rc;
}

/* ---- per-thread connections for the server ---------------------------------------- */

/* Reconnection backoff (PostgreSQL): after a failed connection the thread answers
 * "unavailable" at once until the delay has passed, so an outage costs the database server
 * one connection attempt per thread per delay rather than one per request; the delay
 * doubles up to the maximum and is forgotten at the first success. A success on any thread
 * ends every thread's wait (reachable_gen), so once the database is back no thread keeps
 * answering "unavailable" for the rest of its delay. Opening an SQLite file is cheap and
 * local: it is retried on every request. */
#define RECONNECT_FIRST_US 50000
#define RECONNECT_MAX_US   2000000

struct thread_conn {
    struct store *s;  /* NULL until first opened; kept (broken) while it cannot reopen */
    int64_t retry_at; /* time_mono_us() before which no open is attempted */
    int64_t delay;    /* 0 while the database is reachable */
    unsigned gen;     /* reachable_gen when the last attempt failed */
};

static char *thread_uri;
static pthread_key_t thread_key;
static pthread_once_t thread_once = PTHREAD_ONCE_INIT;
static atomic_uint reachable_gen; /* bumped by every successful (re)open */

static void thread_destroy(void *p)
{
    struct thread_conn *tc = p;
    store_close(tc->s);
    free(tc);
}

static void thread_key_init(void)
{
    pthread_key_create(&thread_key, thread_destroy);
}

/*
 * The connection store_hold_file keeps (store.h). SQLite's unix VFS (3.40.1, Debian 12) keeps
 * the process's POSIX locks on a database file per inode and closes a connection's file
 * descriptor only when no connection of the process holds a lock, since closing any
 * descriptor of a file drops every lock the process holds on it. But unixClose decides that
 * under the inode's mutex and calls close() after releasing it, and unixLock takes only that
 * mutex: a connection closed on one thread while another thread's connection takes its first
 * SHARED lock can close its descriptor after that lock was granted, and the process is left
 * without the lock at the operating system's level while SQLite counts it held (and never
 * asks for it again). In WAL mode that lock is what tells another process that the file is in
 * use: a `whistle` command (or sqlite3) closing its last connection then takes EXCLUSIVE,
 * checkpoints, and deletes the -wal and -shm files under the server, which goes on writing
 * into the unlinked ones while every other process reads a new, empty log, until the server
 * exits and checkpoints its own. Seen in the test suite as an acknowledged write another
 * process could not read (tests/unit/test_store_sqlite.c test_the_file_stays_locked reproduces
 * the race: 5 % of rounds without the hold). A connection that has read once in WAL mode keeps
 * its SHARED lock until it is closed, so while the hold lives no connection of the process
 * ever releases the file's locks or closes a descriptor of it (they wait in SQLite's list of
 * unused descriptors, reused by the next open): the race has nothing left to drop.
 */
static struct store *held;
static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;

int store_hold_file(const char *uri, char *err, size_t errlen)
{
    pthread_mutex_lock(&held_mu);
    store_close(held);
    held = NULL;
    int rc = 0;
    if (uri && !store_uri_is_pg(uri)) {
        rc = store_open(uri, false, &held, err, errlen);
        if (rc == 0 && store_exec(held, "SELECT count(*) FROM sqlite_master") < 0) {
            snprintf(err, errlen, "cannot read %s: %s", uri, store_errmsg(held));
            store_close(held);
            held = NULL;
            rc = STORE_GONE;
        }
    }
    pthread_mutex_unlock(&held_mu);
    return rc < 0 ? rc : 0;
}

void store_thread_setup(const char *uri)
{
    pthread_once(&thread_once, thread_key_init);
    struct thread_conn *tc = pthread_getspecific(thread_key);
    if (tc) {
        store_close(tc->s);
        memset(tc, 0, sizeof *tc);
    }
    free(thread_uri);
    thread_uri = strdup(uri);
    char err[512];
    if (store_hold_file(uri, err, sizeof err) < 0)
        log_warn("store", "%s", err);
}

/* Opens the thread's connection, or reopens it in place when it is broken. */
static int thread_open(struct thread_conn *tc, char *err, size_t errlen)
{
    assert(thread_uri); /* store_thread_setup() ran first */
    if (!tc->s)
        return store_open(thread_uri, false, &tc->s, err, errlen);
    int rc = tc->s->drv->reopen(tc->s, err, errlen);
    if (rc < 0)
        tc->s->broken = true;
    return rc;
}

struct store *store_thread(void)
{
    struct thread_conn *tc = pthread_getspecific(thread_key);
    if (!tc) {
        tc = calloc(1, sizeof *tc);
        if (!tc)
            return NULL;
        pthread_setspecific(thread_key, tc);
    }
    if (tc->s && !tc->s->broken && tc->s->drv->idle_ok(tc->s))
        return tc->s;
    if (tc->s && !tc->s->broken) /* found dead while idle: the server closed it */
        tc->s->broken = true;
    int64_t now = time_mono_us();
    if (tc->delay && now < tc->retry_at && atomic_load(&reachable_gen) == tc->gen)
        return NULL;
    char err[512];
    if (thread_open(tc, err, sizeof err) < 0) {
        if (!store_uri_is_pg(thread_uri)) {
            log_error("store", "%s", err);
            return NULL;
        }
        if (!tc->delay) /* once per outage, not once per attempt */
            log_error("store", "%s (retrying with backoff)", err);
        tc->delay = tc->delay ? tc->delay * 2 : RECONNECT_FIRST_US;
        if (tc->delay > RECONNECT_MAX_US)
            tc->delay = RECONNECT_MAX_US;
        tc->retry_at = now + tc->delay;
        tc->gen = atomic_load(&reachable_gen);
        return NULL;
    }
    tc->s->read_budget = true;
    tc->s->leased = true;
    atomic_fetch_add(&reachable_gen, 1);
    if (tc->delay)
        log_info("store", "database reachable again");
    tc->delay = 0;
    return tc->s;
}
