#ifndef WHISTLE_STORE_DRIVER_H
#define WHISTLE_STORE_DRIVER_H

/*
 * The inside of the store interface: what a driver (sqlite.c, pg.c) implements. store.c
 * dispatches every public store_* call through the driver of the connection or statement,
 * so the rest of the program never knows which database it talks to. Only drivers and
 * store.c include this header.
 */
#include "store/store.h"

/* data_version's answer when it ran no statement (below) */
#define VERSION_UNCHANGED 1

struct store_driver {
    const char *name;
    void (*close)(struct store *s);
    struct store_stmt *(*prepare)(struct store *s, const char *sql);
    void (*bind_text)(struct store_stmt *st, int idx, const char *v);
    void (*bind_int)(struct store_stmt *st, int idx, int64_t v);
    void (*bind_null)(struct store_stmt *st, int idx);
    void (*bind_double)(struct store_stmt *st, int idx, double v);
    /* bytes as a BLOB (SQLite); NULL: the driver stores none (PostgreSQL) */
    void (*bind_blob)(struct store_stmt *st, int idx, const void *p, size_t n);
    int (*step)(struct store_stmt *st);
    const char *(*col_text)(struct store_stmt *st, int col);
    int64_t (*col_int)(struct store_stmt *st, int col);
    bool (*col_null)(struct store_stmt *st, int col);
    /* a column's bytes, text or blob, and their length; NULL for null */
    const void *(*col_bytes)(struct store_stmt *st, int col, size_t *len);
    void (*reset)(struct store_stmt *st);
    int64_t (*changes)(struct store *s);
    int (*exec)(struct store *s, const char *sql);
    int (*begin_read)(struct store *s);
    int (*begin_write)(struct store *s);
    int (*begin_row_write)(struct store *s); /* NULL: begin_write */
    int (*commit)(struct store *s);
    void (*rollback)(struct store *s);
    const char *(*errmsg)(struct store *s);
    /* store_data_version: 0 when it ran a statement, VERSION_UNCHANGED when it answered
     * without one (SQLite: nothing committed since its last read), or a negative store_rc */
    int (*data_version)(struct store *s, uint64_t out[2]);
    /* store_write_probe: 0 or a negative store_rc, the reason left for errmsg */
    int (*write_probe)(struct store *s);
    /* store_step_write; NULL: store_step (the driver's writes all run in transactions) */
    int (*step_write)(struct store_stmt *st, bool tallies_only);
    /* Called by store_thread() before it hands the connection out: true when it looks
     * usable without a round trip. A transaction left open (a bug) is rolled back here. */
    bool (*idle_ok)(struct store *s);
    /* Closes the connection and opens it again in place (the struct store and its cached
     * statement handles stay valid, their server-side state is forgotten): 0, or a
     * negative store_rc with a message in err and the connection still broken. */
    int (*reopen)(struct store *s, char *err, size_t errlen);
};

/* The first member of every driver's connection and statement: the driver that owns it.
 * broken: a call failed because the connection is lost (STORE_GONE); set by the driver and
 * by store.c, cleared by a successful reopen. store_thread() never hands out a broken
 * connection. */
struct store {
    const struct store_driver *drv;
    bool broken;
    bool read_budget; /* store_begin_read bounds the read (store_thread connections) */
    /* a store_thread connection: store_data_version may answer from the version lease */
    bool leased;
    /* set by the driver: the last commit or store_step_write moved a version (the version
     * lease makes its caller wait: store.c lease_wait) */
    bool moved;
    /* store_prepare_ahead is running: a step prepares its statement (a driver that
     * prepares on the server does it now) and answers STORE_DONE without executing */
    bool prepare_only;
    bool key_locked; /* store_lock_key holds a lock until the transaction ends */
    void (*trace)(void *arg, const char *what); /* store_trace */
    void *trace_arg;
    /* what the commit of the open write transaction moves (store_data_version) */
    enum { STORE_BUMP_NONE, STORE_BUMP_CONTENT, STORE_BUMP_TALLY } bump;
    bool wrote; /* store_exec ran in the write transaction (DDL): bump even if no row moved */
    int64_t round_trips; /* store_round_trips: counted by the driver */
};

struct store_stmt {
    const struct store_driver *drv;
    struct store *conn; /* the connection that prepared it */
};

/* What store_open() needs of a driver to open a connection: its connection
 * struct (size bytes, beginning with struct store) keeps its own copy of the URI in the
 * char * at byte uri_at, for reopen; connect opens it (0, or a negative store_rc with a
 * message in err); name_uri: an error may name the URI (false: a PostgreSQL URI may hold a
 * password). */
struct store_opener {
    const struct store_driver *drv;
    size_t size, uri_at;
    bool name_uri;
    int (*connect)(struct store *s, bool create, char *err, size_t errlen);
};
/* Each driver's: store_open() opens a connection with it. */
extern const struct store_opener store_sqlite_opener, store_pg_opener;

/* FNV-1a of a statement's text: the key of both drivers' statement caches. */
uint64_t store_sql_hash(const char *sql);

/* The head of an entry of a driver's statement cache, its first member: the handle
 * store_prepare() hands out, and the key. */
struct store_cached {
    struct store_stmt base; /* first */
    uint64_t hash;          /* store_sql_hash(sql) */
    char *sql;              /* the caller's text, owned by the entry; NULL: a free entry */
};

/*
 * The statement cache of a connection, both drivers': an open-addressed table of n entries
 * of size bytes each, every one beginning with a struct store_cached. Returns the entry that
 * holds sql (h its store_sql_hash; *hit true), or the entry to fill (*hit false): a free
 * one, else, the table being full, the first from sql's slot on that running() says is not
 * running: a caller may still be stepping an older statement (a list query while it
 * prepares the per-row ones) and that one must survive. Changes nothing; aborts when every
 * entry runs. The entry is the table's.
 */
struct store_cached *store_cache_find(void *table, size_t n, size_t size, const char *sql,
                                      uint64_t h, bool (*running)(const struct store_cached *e),
                                      bool *hit);

#endif
