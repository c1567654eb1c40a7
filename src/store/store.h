#ifndef WHISTLE_STORE_STORE_H
#define WHISTLE_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The store's driver interface: prepare / bind / step / column / transaction over one
 * portable SQL dialect (ARCHITECTURE.md "Layers"). Placeholders are written "?" and
 * numbered from 1. Two drivers implement it (src/store/driver.h): SQLite (sqlite.c, a file
 * path) and PostgreSQL (pg.c, a postgresql:// or postgres:// URI; docs/deploy.md).
 *
 * A struct store is one connection and is used by one thread at a time. Statements come
 * from a per-connection cache keyed by their SQL text, so the hot path never re-prepares;
 * a statement handed out by store_prepare() is reset and its bindings cleared. Bind and
 * step it before the next store_prepare(): once stepped (and until reset) it stays valid
 * while other statements are prepared, but an idle one may be evicted from the cache.
 *
 * Return conventions of every store function (here and in the other store/ headers): an
 * action returns 0 or a negative store_rc; a lookup ("get", "find", "by_…", "exists",
 * "claim") returns 1 found (its out parameters filled), 0 missing (out parameters empty:
 * zeroed, "" or as its header says), or a negative store_rc — never a found flag in an out
 * parameter, never an empty string as the only sign of "missing". incidents_get() adds
 * INCIDENT_MERGED (2) to the two for a merged duplicate (incidents.h).
 */
#define STORE_NULL_INT INT64_MIN

enum store_rc {
    STORE_ROW = 1,
    STORE_DONE = 0,
    STORE_ERR = -1,        /* a bug: bad SQL, misuse */
    STORE_BUSY = -2,       /* locked longer than the busy timeout: retry later */
    STORE_CONSTRAINT = -3, /* a constraint refused the write */
    STORE_GONE = -4,       /* the database cannot be reached: the connection is reopened */
};

struct store;
struct store_stmt;

/* Opens a connection to uri and configures it: a postgresql:// or postgres:// URI opens
 * PostgreSQL through libpq (the database must exist; create is ignored), anything else is
 * an SQLite file (WAL, FULL sync, foreign keys, busy timeout; with create false a missing
 * file is an error). Returns 0 and *out (free with store_close), or a negative store_rc
 * with a message in err. */
int store_open(const char *uri, bool create, struct store **out, char *err, size_t errlen);
void store_close(struct store *s);
/* True when uri selects the PostgreSQL driver. */
bool store_uri_is_pg(const char *uri);
/* True when s is a PostgreSQL connection (false: SQLite), for the SQL the drivers differ in. */
bool store_is_pg(const struct store *s);
/* "sqlite" or "postgresql": the driver of an open connection (static storage). */
const char *store_driver_name(const struct store *s);

/* Applies the compiled-in migrations that are missing, in one transaction. Refuses (-1)
 * a database whose schema is newer than this binary. */
int store_migrate(struct store *s, char *err, size_t errlen);
int store_schema_version(struct store *s);
/* The schema version this binary's migrations produce. */
int store_known_version(void);
/* The i-th compiled-in migration (0-based, in order): its SQL text and *version; NULL past
 * the last. The vocabulary test reads the CHECK constraints from it. */
const char *store_migration(size_t i, int *version);

struct store_stmt *store_prepare(struct store *s, const char *sql);
void store_bind_text(struct store_stmt *st, int idx, const char *v); /* NULL binds null */
void store_bind_int(struct store_stmt *st, int idx, int64_t v);      /* STORE_NULL_INT: null */
/* A null whose type the SQL does not give (PostgreSQL infers parameter types from their
 * context): in a SELECT list (INSERT … SELECT ?, …) bind a null number with
 * store_bind_int(STORE_NULL_INT), which declares an integer, not with store_bind_null. */
void store_bind_null(struct store_stmt *st, int idx);
void store_bind_double(struct store_stmt *st, int idx, double v);
/* Bytes as a BLOB: SQLite only (the fragments' compressed bodies, store/fragments.h); false,
 * with nothing bound, on a driver that stores none. */
bool store_bind_blob(struct store_stmt *st, int idx, const void *p, size_t n);
int store_step(struct store_stmt *st); /* STORE_ROW, STORE_DONE or a negative store_rc */
const char *store_col_text(struct store_stmt *st,
                           int col);                   /* NULL for null; valid until next step */
int64_t store_col_int(struct store_stmt *st, int col); /* STORE_NULL_INT for null */
bool store_col_null(struct store_stmt *st, int col);
/* A column's bytes as stored (text or blob: a blob may hold NUL bytes) and their length in
 * *len; NULL for null. Valid until the next step. */
const void *store_col_bytes(struct store_stmt *st, int col, size_t *len);
void store_reset(struct store_stmt *st);
/* Steps a statement that returns no rows and resets it: 0 or a negative store_rc. */
int store_run(struct store_stmt *st);
/* One statement that returns no rows, with its parameters bound in order (?1, ?2, …), run
 * and reset: STORE_RUN(s, "UPDATE t SET a = ? WHERE id = ?", STORE_INT(a), STORE_TEXT(id)).
 * 0 or a negative store_rc (STORE_ERR when it cannot be prepared). The argument kinds are
 * checked by the compiler: STORE_TEXT takes a const char * (NULL binds null), STORE_INT an
 * integer (STORE_NULL_INT binds null). */
struct store_arg {
    bool text;
    const char *s;
    int64_t i;
};
#define STORE_TEXT(v) ((struct store_arg){.text = true, .s = (v)})
#define STORE_INT(v)  ((struct store_arg){.text = false, .i = (v)})
int store_run_args(struct store *s, const char *sql, const struct store_arg *args, size_t n);
#define STORE_RUN(s, sql, ...)                                                                     \
    store_run_args((s), (sql), (const struct store_arg[]){__VA_ARGS__},                            \
                   sizeof((const struct store_arg[]){__VA_ARGS__}) / sizeof(struct store_arg))
/* A statement that returns rows, prepared with its parameters bound in order (as STORE_RUN),
 * ready to step and then reset: NULL when it cannot be prepared. */
struct store_stmt *store_select_args(struct store *s, const char *sql, const struct store_arg *args,
                                     size_t n);
#define STORE_SELECT(s, sql, ...)                                                                  \
    store_select_args((s), (sql), (const struct store_arg[]){__VA_ARGS__},                         \
                      sizeof((const struct store_arg[]){__VA_ARGS__}) / sizeof(struct store_arg))
/* Steps st (a STORE_SELECT's; NULL: STORE_ERR) through its rows, calling row(ctx, st) on each,
 * and resets it: a non-zero return of row stops, and a negative one is returned; 0 otherwise,
 * or a negative store_rc. The row iterator of the X_each reads. */
int store_rows(struct store_stmt *st, int (*row)(void *ctx, struct store_stmt *st), void *ctx);
/* STORE_SELECT stepped once and reset: 1 when the statement returns a row, 0 when none, or a
 * negative store_rc. */
int store_exists_args(struct store *s, const char *sql, const struct store_arg *args, size_t n);
#define STORE_EXISTS(s, sql, ...)                                                                  \
    store_exists_args((s), (sql), (const struct store_arg[]){__VA_ARGS__},                         \
                      sizeof((const struct store_arg[]){__VA_ARGS__}) / sizeof(struct store_arg))
/* STORE_RUN for a statement that changes rows (UPDATE, INSERT … ON CONFLICT DO NOTHING,
 * DELETE): 1 when it changed at least one, 0 when none, or a negative store_rc. */
int store_changed_args(struct store *s, const char *sql, const struct store_arg *args, size_t n);
#define STORE_CHANGED(s, sql, ...)                                                                 \
    store_changed_args((s), (sql), (const struct store_arg[]){__VA_ARGS__},                        \
                       sizeof((const struct store_arg[]){__VA_ARGS__}) / sizeof(struct store_arg))
/* STORE_RUN of an INSERT of a new row whose first column is its id: a fresh UUID (util/uuid.h
 * uuid_v4) bound to ?1, the arguments to ?2, ?3, … in order. 0 or a negative store_rc. */
int store_insert_args(struct store *s, const char *sql, const struct store_arg *args, size_t n);
#define STORE_INSERT(s, sql, ...)                                                                  \
    store_insert_args((s), (sql), (const struct store_arg[]){__VA_ARGS__},                         \
                      sizeof((const struct store_arg[]){__VA_ARGS__}) / sizeof(struct store_arg))
/* The lookups of one row as one call, STORE_SELECT's statement read by store_count (a count or
 * another aggregate into the int64_t *out: 0 or a negative store_rc), store_one_text (column 0
 * into dst of size n: 1, 0 or a negative store_rc) and store_one_cols (a record by its column
 * table: 1, 0 or a negative store_rc); all below. */
#define STORE_COUNT(s, out, sql, ...) store_count(STORE_SELECT((s), (sql), __VA_ARGS__), (out))
#define STORE_ONE_TEXT(s, dst, n, sql, ...)                                                        \
    store_one_text(STORE_SELECT((s), (sql), __VA_ARGS__), (dst), (n))
#define STORE_ONE_COLS(s, cols, out, sql, ...)                                                     \
    store_one_cols(STORE_SELECT((s), (sql), __VA_ARGS__), (cols), (out))
/* Returns from the calling function with a negative store_rc (any negative int). */
#define STORE_TRY(expr)                                                                            \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ < 0)                                                                               \
            return rc_;                                                                            \
    } while (0)
/* A row reader: puts the current row of st at place k of the array rows, its strings (if it
 * copies any) allocated in a. What store_read_one, store_page, store_grow and listindex_serve
 * (store/listindex.h) call on each row. */
struct arena;
typedef void (*store_read_fn)(struct arena *a, struct store_stmt *st, void *rows, size_t k);
/* store_one (below) with a store_read_fn, the reader the pages share: read(a, st, row, 0) on
 * the row, its copies in a. 1 when there was a row, 0 when none, or a negative store_rc. */
int store_read_one(struct store_stmt *st, struct arena *a, store_read_fn read, void *row);
/* The reader of a list of IDs: column 0's text, copied into a, at ((const char **)rows)[k]. */
void store_read_id(struct arena *a, struct store_stmt *st, void *rows, size_t k);
/* Steps st (NULL: STORE_ERR), a page whose SQL asks for limit + 1 rows, into rows (room for
 * limit), read(a, st, rows, k) for each, and resets it: 0 with *n rows read and *more true
 * when a row came past limit, or a negative store_rc. */
int store_page(struct store_stmt *st, struct arena *a, store_read_fn read, void *rows,
               int64_t limit, size_t *n, bool *more);
/* Steps st (NULL: STORE_ERR) through all its rows into an array of elements of size bytes
 * allocated in a (grown as rows come; never NULL), read(a, st, rows, k) for each, and resets
 * it: 0 with the array (arena-owned) stored in the caller's pointer at out (a T ** for
 * elements of type T) and *n, or a negative store_rc. */
int store_grow(struct store_stmt *st, struct arena *a, store_read_fn read, size_t size, void *out,
               size_t *n);
/* store_rows with each row read into an arena of its own: read(a, st, row, 0) into a row of
 * size bytes allocated in that arena, then call(ctx, row), and the arena released when call
 * returns (the row and its copies are valid during the call only). A non-zero return of call
 * stops, and a negative one is returned; 0 otherwise, or a negative store_rc. The X_each reads
 * of whole tables (export, sync), whose rows are not kept. */
int store_read_each(struct store_stmt *st, store_read_fn read, size_t size,
                    int (*call)(void *ctx, const void *row), void *ctx);
/* The placeholders of a statement over n IDs: the smallest power of two that is at least n
 * and at least min, so that a few SQL texts (each prepared once per connection) serve every
 * count. */
size_t store_id_slots(size_t n, size_t min);
/* A statement over a list of IDs, head naming the column ("… WHERE i.id"), ready to step and
 * then reset; NULL when it cannot be prepared. On SQLite head " IN (?, ?, …)" tail with
 * `slots` placeholders (slots >= n), ids[0..n) bound in order and null bound to the rest. On
 * PostgreSQL head " = ANY (CAST(? AS text[]))" tail with the ids as one array, whatever
 * slots: one text, so one prepared statement and one generic plan (store/pg.c forces
 * generic plans) for every count, where the placeholders made one per power of two. */
struct store_stmt *store_select_ids(struct store *s, const char *head, const char *tail,
                                    const char *const *ids, size_t n, size_t slots);
/* head " IN (?, ?, …)" tail with integer keys (n of them, the rest of the slots bound null),
 * on either driver. */
struct store_stmt *store_select_keys(struct store *s, const char *head, const char *tail,
                                     const int64_t *keys, size_t n, size_t slots);
/* Copies a text column into dst (size n, "" for null): 0. dst is sized by the column's
 * maximum; a longer value (written around the rules) is never truncated: dst is left "",
 * the error is logged and counted, and STORE_ERR comes back for the read to fail. */
int store_col_copy(struct store_stmt *st, int col, char *dst, size_t n);
int64_t store_changes(struct store *s);

/* Runs sql (no parameters, any number of statements, no rows wanted). */
int store_exec(struct store *s, const char *sql);

/* Transactions: begin_write takes the write lock up front (BEGIN IMMEDIATE on SQLite; a
 * transaction-scoped advisory lock on PostgreSQL, taken exclusively, see pg.c), so two
 * writers never deadlock on a lock upgrade and a read-check-write sequence inside one write
 * transaction is atomic on every node. On PostgreSQL it stops every other write of the
 * deployment: maintenance only (import, migrations, cache flush); a request's write uses
 * store_begin_row_write and locks its own keys and rows (app.h app_begin_locked).
 * begin_read gives one consistent snapshot (REPEATABLE READ on PostgreSQL). */
int store_begin_read(struct store *s);
int store_begin_write(struct store *s);
/* A write whose rule is kept by the rows it locks itself (a named row of write_locks, an
 * agent key, a store_lock_key, a unique key with INSERT … ON CONFLICT), not by one writer
 * at a time: on PostgreSQL it takes the deployment lock in shared mode, so such writes run
 * side by side on every node while the store_begin_write ones (maintenance) still exclude
 * them all; on SQLite it is store_begin_write. Every write of a request is one of these. */
int store_begin_row_write(struct store *s);
/* Inside store_begin_row_write: waits for, then holds until the transaction ends, the lock
 * of `key` (PostgreSQL: a transaction-scoped advisory lock on a 64-bit hash of the text, for
 * rows no write_locks row names, such as one author's comments; SQLite: nothing to do, the
 * transaction already holds the database's write lock). Take keys in one fixed order. 0 or
 * a negative store_rc. */
int store_lock_key(struct store *s, const char *key);
/* Runs fn(s, arg) with every statement step only preparing its statement: nothing executes
 * and each step answers STORE_DONE (a lookup finds nothing). fn calls the store functions a
 * write will run under store_lock_key, with placeholder arguments, so that on PostgreSQL
 * their statements are prepared (once per connection, with the parameter types their binds
 * declare) before the lock is taken: no statement is prepared while a lock is held (app.h).
 * Call it outside any transaction. A statement prepared while a key lock is held logs a
 * warning. Returns 0 or fn's negative store_rc (the write then finds the same failure). */
int store_prepare_ahead(struct store *s, int (*fn)(struct store *s, void *arg), void *arg);
int store_commit(struct store *s);
void store_rollback(struct store *s);
/* Inside a write transaction: what it writes is ballots and their tallies only, so its commit
 * moves the tally version instead of the content version (store_data_version). */
void store_write_tallies_only(struct store *s);
/*
 * Steps st, a write that is whole in one statement run outside any transaction (a call of a
 * server-side function, store/votes.c ballots_cast_server: PostgreSQL runs it in an implicit
 * transaction of its own), then, once it committed, moves the version it changed
 * (store_data_version: the tally version when tallies_only, else the content version), if
 * and only if the statement set the session setting whistle.moved to 'true' (STORE_MOVED_IF
 * in its select list): a refused write moves nothing. PostgreSQL sends the statement and
 * the bump in one pipeline, each in its own implicit transaction, so the bump runs only after
 * the commit and a reader that sees the new version sees the write: one round trip (pg.c).
 * A failed bump after a committed write answers its error (the caller says "unavailable"; a
 * retry of the same write moves the version). Other drivers: store_step. Answers what
 * store_step answers.
 */
int store_step_write(struct store_stmt *st, bool tallies_only);
#define STORE_MOVED_IF(cond) "set_config('whistle.moved', CAST(" cond " AS TEXT), false)"

/* The client-server round trips this connection has waited for since it opened: a statement,
 * a transaction's BEGIN or COMMIT, a pipeline (any number of statements) each count one
 * (PostgreSQL); always 0 on SQLite (no server). For tests and docs/scale.md's figures. */
int64_t store_round_trips(struct store *s);
/* Inside a write transaction: what it writes is derived data that no response shows
 * differently (the pre-rendered fragments, store/fragments.h), so its commit moves neither
 * version and calls no after-commit hook. */
void store_write_derived(struct store *s);
/* fn(s) runs after every committed write transaction that moved the content version, on the
 * same connection, outside any transaction (the fragments' rebuild, app/incident.c
 * incident_fragments_rebuild); set once at start-up. Its own writes are store_write_derived: it is
 * not called again. */
void store_after_content_commit(void (*fn)(struct store *s));

const char *store_errmsg(struct store *s);

/* The failed database calls of this process since it started, by kind (STORE_ERR,
 * STORE_BUSY, STORE_GONE; a constraint's refusal is not a failure): GET /metrics. */
void store_error_counts(int64_t *error, int64_t *busy, int64_t *gone);

/*
 * The response cache's validation token (http/cache.h), in one round trip: out[0], the
 * content version, moves after every committed write transaction (store_begin_write,
 * store_begin_row_write) except the ballots; out[1], the tally version, moves after every
 * committed ballot. Both move only once the commit is visible, never before: a reader that
 * sees a new value sees the write. PostgreSQL: the sequences whistle_content_seq and
 * whistle_tally_seq bumped right after COMMIT (pg.c), mixed with the server's start time
 * (a crash may hand out a sequence value again); SQLite: the cache_versions rows, bumped
 * inside the write transaction (one writer), read outside a transaction only when some
 * transaction committed since this connection's last read (the WAL-index header, which
 * every commit of every process changes before it returns: sqlite.c sq_data_version), so
 * that a read with nothing new takes no lock. Writes made behind Whistle's back (psql,
 * sqlite3) move nothing: docs/operators.md says how to bump by hand.
 */
int store_data_version(struct store *s, uint64_t out[2]);

/*
 * The version lease (PostgreSQL; whistle serve and worker --version-lease, the CLI's
 * WHISTLE_VERSION_LEASE; docs/architecture.md "The version lease"). Without it every
 * request reads the versions above in a round trip of its own: at a 1 ms round trip a node's
 * reads are bounded by its threads (2 threads: about 1,000 requests a second). With a lease
 * of L µs:
 * - a watcher thread (watch: whistle serve) polls the versions every L/2 on a connection of
 *   its own, noting the time before each poll was sent;
 * - a request's version read (store_data_version on a store_thread connection) takes the
 *   last poll's answer when that poll started at most L ago (store_lease_covers), else runs
 *   its own read as before;
 * - every commit that moved a version, on every connection of the process, returns only
 *   store_lease_wait_us(L) later: its caller answers nobody before every node's polls
 *   show it.
 * So a request that arrives after a write's answer, on any node with the same lease, reads
 * versions polled after the write committed (its poll started after the answer less L, the
 * answer came L after the commit): the same guarantee as a read of its own, with no round
 * trip, while each write is answered L later. Every process that writes must have the lease
 * of the nodes (or a longer one). SQLite: nothing (its read is a look at shared memory);
 * lease_us 0: off. Call before the threads that use the store start; store_lease_stop ends
 * the watcher. 0, or -1 when the watcher cannot start.
 */
int store_lease_setup(const char *uri, int64_t lease_us, bool watch);
void store_lease_stop(void);
/* Whether a poll sent at poll_start_us still covers a read at now_us under a lease of
 * lease_us (monotonic µs): it started at most lease_us before, and not after. */
bool store_lease_covers(int64_t poll_start_us, int64_t now_us, int64_t lease_us);
/* How long a commit that moved a version waits under a lease of lease_us (0: none): the lease
 * and a margin for the clocks of two machines running apart. */
int64_t store_lease_wait_us(int64_t lease_us);
/* Version reads of the requests' connections answered by the lease (leased) and by their own
 * round trip with a lease set (own), and the commits that waited, since start: GET /metrics. */
void store_lease_counts(int64_t *leased, int64_t *own, int64_t *waits);
/* Moves the content version (whistle cache flush): every node's cached bodies are stale. */
int store_cache_flush(struct store *s);

/* A test's view of the work done on s: fn(arg, what) for every statement prepared (the SQL
 * text, cache hits included), every store_exec, every transaction control ("BEGIN
 * READ", "BEGIN WRITE", "BEGIN ROW WRITE", "COMMIT", "ROLLBACK") and every
 * store_data_version that ran its statement ("VERSION READ"), in order.
 * fn NULL stops it. For tests that compare the work of two paths. */
void store_trace(struct store *s, void (*fn)(void *arg, const char *what), void *arg);

/* The write probe of GET /readyz: 0 when the database takes writes now, or a negative
 * store_rc with the reason in why (a read-only file, PostgreSQL read-only or in recovery).
 * Nothing lasts and nothing grows (the one row of store_probe updated in a transaction that
 * is rolled back: store_data_version does not move), and it never waits long for another
 * writer: a write lock held elsewhere shows the database takes writes (SQLite: the probe
 * waits up to 100 ms for this process's writers, so that a writer failing on a read-only
 * file is not mistaken for one that writes). Call it outside a transaction. */
int store_write_probe(struct store *s, char *why, size_t whylen);

/* The calling thread's connection to the server's database, opened on first use.
 * store_thread_setup() names the database once at start-up (and closes the calling
 * thread's connection, if it has one); connections close when their thread exits. Returns NULL when
 * the database cannot be reached now (PostgreSQL: with a per-thread backoff that ends as soon as
 * any thread reaches the database again).
 *
 * The store heals itself: callers never drop or reopen a connection. A call that finds the
 * connection lost (STORE_GONE) marks it broken; store_thread() reopens a broken connection
 * in place before handing it out, and first checks an idle PostgreSQL connection without a
 * round trip (a server that restarted has closed its socket). When the first statement of
 * a unit of work (store_begin_read, store_begin_write, store_begin_row_write,
 * store_data_version) finds the connection dead, it is reopened and the statement run
 * again (nothing was done yet); a connection lost later in a transaction answers
 * STORE_GONE and the caller answers "unavailable". The struct store pointer stays the
 * same across a reopen.
 *
 * Call it once per request (or unit of work), before its first transaction, and pass the
 * connection down: a transaction still open when store_thread() runs is a leak (on
 * PostgreSQL it would hold the deployment-wide write lock) and is rolled back and logged. */
void store_thread_setup(const char *uri);

/* SQLite: opens a connection to uri, reads once and keeps it open, replacing the one a call
 * before kept (NULL or a PostgreSQL uri: none), so that the process holds the file's SHARED
 * lock for as long as it runs (a race in SQLite's unix VFS can otherwise drop it, and another
 * process then deletes the WAL under this one: store.c). store_thread_setup calls it; every
 * long-running process that opens and closes connections on several threads (serve, worker)
 * does, before its threads start. 0, or a negative store_rc with the reason in err. */
int store_hold_file(const char *uri, char *err, size_t errlen);

/* The page size of the databases `whistle migrate` creates (SQLite's default). */
#define STORE_SQLITE_PAGE 4096
/* Gives SQLite's page caches, of every connection of the process, one region of about bytes,
 * mapped once and never given back: a page cache that grows takes its pages from there, not
 * from the allocator of the thread that reads, whose heaps glibc unmaps once a request has
 * freed them and maps again for the next one. Pages a full region cannot hold come from the
 * allocator as before. Call before the process opens any database (whistle serve does, for
 * its request threads' caches): 0, or -1 when SQLite was already started or the memory
 * cannot be had (the caches then use the allocator). */
int store_sqlite_page_pool(size_t bytes);

/* The budget of one read transaction on a store_thread() connection (a request's read):
 * beyond it the read fails with STORE_BUSY, answered 503, so no request shape can occupy a
 * worker for seconds. SQLite counts virtual-machine instructions (independent of the load
 * on the machine; a page costs a few thousand, a full scan of a million incidents tens of
 * millions); PostgreSQL bounds each statement of the read (SET LOCAL statement_timeout). */
#define STORE_READ_BUDGET_OPS 10000000
#define STORE_READ_BUDGET_MS  2000
struct store *store_thread(void);

/* ---- the lookups' and the X_each reads' helpers ---- */

/* Steps st (a STORE_SELECT's; NULL: STORE_ERR) to its first row, reads that row with
 * row(out, st) (0, or a negative store_rc for a read that failed) and resets st: 1 when there
 * was a row, 0 when none (out untouched), or a negative store_rc (row's included). The one-row
 * counterpart of store_rows, for the lookups ("get", "find", "by_…"); out and what row copies
 * into it are the caller's. */
static inline int store_one(struct store_stmt *st, int (*row)(void *out, struct store_stmt *st),
                            void *out)
{
    if (!st)
        return STORE_ERR;
    int rc = store_step(st);
    if (rc == STORE_ROW) {
        int read = row(out, st);
        if (read < 0)
            rc = read;
    }
    store_reset(st);
    return rc < 0 ? rc : rc == STORE_ROW;
}

/* store_one's reader of column 0 into an int64_t (out). */
static inline int store_int_row(void *out, struct store_stmt *st)
{
    *(int64_t *)out = store_col_int(st, 0);
    return 0;
}

/* Reads st's one row (a count(*) or another aggregate: column 0) into *out: 0 (*out untouched
 * when there is no row) or a negative store_rc. */
static inline int store_count(struct store_stmt *st, int64_t *out)
{
    int rc = store_one(st, store_int_row, out);
    return rc < 0 ? rc : 0;
}

/* A text column's destination: the caller's array dst of size n (store_col_copy). */
struct store_text_out {
    char *dst;
    size_t n;
};

/* store_one's reader of text columns 0, 1, … into an array of struct store_text_out (out),
 * a column an entry, up to the entry whose dst is NULL: 0, or STORE_ERR when a value is too
 * long for its array (that array left "", store_col_copy), so the lookup fails. */
static inline int store_texts_row(void *out, struct store_stmt *st)
{
    const struct store_text_out *t = out;
    int rc = 0;
    for (int k = 0; t[k].dst; k++)
        if (store_col_copy(st, k, t[k].dst, t[k].n) < 0)
            rc = STORE_ERR;
    return rc;
}

/* The lookup of one text value: store_one of st's column 0 copied into dst (size n, "" for
 * null; store_col_copy), dst "" when there is no row: 1, 0 or a negative store_rc (STORE_ERR
 * when the value does not fit). */
static inline int store_one_text(struct store_stmt *st, char *dst, size_t n)
{
    dst[0] = '\0';
    return store_one(st, store_texts_row, (struct store_text_out[]){{dst, n}, {NULL, 0}});
}

/* ---- row readers driven by a column table ---- */

/* What one column of a row is read into: a field of a record, at offset `off` and of `size`
 * bytes. A table of these, one entry a column in the SELECT's order and STORE_COL_END last,
 * is a record's reader (store_cols); the STORE_COL_* macros below build the entries and
 * check the field's type at compile time. The kinds read as integers come last. */
enum store_col_kind {
    STORE_COL_END_,   /* the table's end */
    STORE_COL_CHARS_, /* a char array: store_col_copy ("" for null) */
    STORE_COL_DUP_,   /* a const char *: the text copied into the reader's arena, NULL for null */
    STORE_COL_VIEW_,  /* a const char *: the text in place, NULL for null (store_col_text) */
    STORE_COL_INT_,   /* an int64_t (STORE_NULL_INT for null), or an int: the integer cast */
    STORE_COL_BOOL_,  /* a bool: the integer != 0 */
    STORE_COL_TRI_,   /* an int: -1 for null, else the integer != 0 */
};
struct store_col {
    size_t off;
    size_t size;
    enum store_col_kind kind;
};
/* 0, or a compile error when field f of T is not of type `type` (a negative array size). */
#define STORE_COL_IS_(T, f, type)                                                                  \
    (0 * sizeof(char[__builtin_types_compatible_p(__typeof__(((T *)0)->f), type) ? 1 : -1]))
#define STORE_COL_(T, f, kind, type)                                                               \
    {                                                                                              \
        offsetof(T, f) + STORE_COL_IS_(T, f, type), sizeof(((T *)0)->f), (kind)                    \
    }
#define STORE_COL_CHARS(T, f)                                                                      \
    {                                                                                              \
        offsetof(T, f) + STORE_COL_IS_(T, f[0], char), sizeof(((T *)0)->f), STORE_COL_CHARS_       \
    }
#define STORE_COL_DUP(T, f)   STORE_COL_(T, f, STORE_COL_DUP_, const char *)
#define STORE_COL_VIEW(T, f)  STORE_COL_(T, f, STORE_COL_VIEW_, const char *)
#define STORE_COL_INT(T, f)   STORE_COL_(T, f, STORE_COL_INT_, int64_t)
#define STORE_COL_INT32(T, f) STORE_COL_(T, f, STORE_COL_INT_, int)
#define STORE_COL_BOOL(T, f)  STORE_COL_(T, f, STORE_COL_BOOL_, bool)
#define STORE_COL_TRI(T, f)   STORE_COL_(T, f, STORE_COL_TRI_, int)
#define STORE_COL_END                                                                              \
    {                                                                                              \
        0, 0, STORE_COL_END_                                                                       \
    }

/* Reads columns first, first + 1, … of st's current row into the record rec, one column an
 * entry of cols up to STORE_COL_END; the DUP columns' copies are allocated in a (NULL when
 * the table has none) and are the caller's with a; the VIEW columns point into st, valid
 * until it is stepped again or reset. Returns the column after the last one read (where a
 * reader of the next part of the row starts). A value too long for its char array leaves that
 * array "" and is logged (store_col_copy); the other fields are still read, as the record
 * readers this replaced did. */
int store_cols(struct store_stmt *st, struct arena *a, int first, const struct store_col *cols,
               void *rec);

/* store_one's lookup of a record read by the column table cols from column 0 (store_cols with
 * no arena: no DUP columns) into out, the caller's: 1, 0 (out untouched) or a negative
 * store_rc. A value too long for its array is left "" and logged (store_cols), the row still
 * found. */
int store_one_cols(struct store_stmt *st, const struct store_col *cols, void *out);

struct arena;

/* The caller's callback of an X_each read, carried through store_rows (as its ctx) to the
 * file's row function, which reads the row into a T and passes it on with STORE_EACH_CALL:
 * fn is the callback, int (*)(void *ctx, const T *row), kept as a generic function pointer
 * (STORE_EACH checks its type against T), a the arena the row's copies go to (NULL when the
 * row is read in place, valid during the call only). All of it is the caller's. */
struct store_each {
    void (*fn)(void);
    void *ctx;
    struct arena *a;
};
/* A pointer to a struct store_each (a compound literal of the enclosing block) for fn, a
 * callback of rows of type T: a callback of another type does not compile. */
#define STORE_EACH(T, fn, ctx, a)                                                                  \
    (&(struct store_each){(void (*)(void))(1 ? (fn) : (int (*)(void *, const T *))0), (ctx), (a)})
/* The struct store_each that store_rows hands a row function as its ctx. */
static inline const struct store_each *store_each_of(void *ctx)
{
    return ctx;
}
/* In a row function (each: its ctx, a STORE_EACH of T): calls the callback with row (a
 * const T *) and answers what it returns. */
#define STORE_EACH_CALL(each, T, row)                                                              \
    (((int (*)(void *, const T *))store_each_of(each)->fn)(store_each_of(each)->ctx, (row)))
/* Defines `name`, the row function of an X_each read whose record T is read whole by the
 * column table cols (store_cols from column 0; DUP columns into the STORE_EACH's arena) and
 * handed to the callback. A macro because the callback takes a const T *: one function per
 * record type, without calling through a pointer of another type. */
#define STORE_COLS_ROW(name, T, cols)                                                              \
    static int name(void *each, struct store_stmt *st)                                             \
    {                                                                                              \
        T row_ = {0};                                                                              \
        store_cols(st, store_each_of(each)->a, 0, (cols), &row_);                                  \
        return STORE_EACH_CALL(each, T, &row_);                                                    \
    }

#endif
