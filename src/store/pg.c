/*
 * The PostgreSQL driver of the store interface (store.h), over libpq: one connection per
 * thread, statements prepared once per connection (named server-side prepared statements,
 * cached by SQL text like the SQLite driver's), the same portable SQL as SQLite.
 *
 * How the SQLite semantics the rest of the program relies on are kept:
 *
 * - Placeholders: "?" in the SQL text becomes $1, $2, … (outside quotes and comments).
 *   Parameters travel as text. A parameter bound with store_bind_int is declared int8
 *   (even when the value is null), store_bind_double float8; text and store_bind_null are
 *   left for the server to infer from the context. The statement is prepared at its first
 *   execution, once the bindings are known, and again if a later execution declares a
 *   parameter differently (an int bound where the first execution had a null: inferred
 *   types are wrong in a SELECT list, e.g. INSERT … SELECT ?, …). The preparation goes in
 *   one pipeline with that execution: a statement's first run costs one round trip, as
 *   every later one (but store_prepare_ahead's, which prepares without running).
 * - Rows: a statement is executed at its first step and its whole result is kept, so a
 *   caller may step a list query while it prepares and runs other statements on the same
 *   connection (the SQLite driver allows that too).
 * - Booleans: a boolean result column ('t' / 'f') reads as 1 / 0 through store_col_int.
 * - Write locks (issue 20, docs/scale.md "Which lock each write takes"). SQLite's BEGIN
 *   IMMEDIATE lets one writer at a time in, so every read-check-write sequence is atomic
 *   there. Here no write of a request serializes the deployment: store_begin_row_write
 *   takes a transaction-scoped advisory lock (WRITE_LOCK_KEY) in *shared* mode, and each
 *   write then locks what its rule reads then writes: store_lock_key (an advisory lock on a
 *   hash of "account:<id>", "incident:<id>", a rate-limit subject…, taken in one sorted
 *   order by app_begin_locked), a row (a conditional UPDATE, FOR UPDATE SKIP LOCKED for
 *   queue claims, a row of write_locks) or a unique constraint. Under READ COMMITTED each
 *   statement taken after a lock sees everything committed before it was granted.
 *   store_begin_write takes WRITE_LOCK_KEY *exclusively*: one writer across every node,
 *   for maintenance only (import, migrations that are missing, whistle cache flush), which
 *   waits for every write in flight and holds new ones off. Every lock is released by
 *   COMMIT or ROLLBACK or when a connection dies; lock_timeout (5 s, SQLite's busy
 *   timeout) turns a long wait into STORE_BUSY. A statement prepared while a key is held
 *   logs a warning (needs_prepare): keyed writes prepare theirs first (store_prepare_ahead).
 * - Reads without waiting for BEGIN or ROLLBACK (issue 13): store_begin_read only marks the
 *   read; its first statement goes in one pipeline with BEGIN ISOLATION LEVEL REPEATABLE READ
 *   (and the request's SET LOCAL statement_timeout), one round trip, so every later
 *   statement of the read sees the same snapshot. The read's ROLLBACK is sent without
 *   waiting for its answer, which is collected before the connection's next use (drain).
 *   A read costs one round trip per statement, a read that never ran a statement none.
 * - store_data_version: the last values of two sequences, whistle_content_seq (bumped after
 *   every committed write transaction but the ballots) and whistle_tally_seq (after every
 *   ballot): pg_commit, pg_step_write. Reading them takes no lock and one round trip; a
 *   ballot no longer moves what every cached body depends on (http/cache.h).
 * - Writes in one statement (store_step_write: a ballot, a lead): the statement, a sync, the
 *   version bump, a sync, in one pipeline: one round trip, the bump in an implicit
 *   transaction of its own after the write's (pg_step_write). The bump is one statement,
 *   prepared once per connection in that same pipeline (bump_prepared).
 * - store_round_trips: every exchange this driver waits for counts one (command, a
 *   statement's execution with its preparation if any, a preparation ahead, a pipeline,
 *   COMMIT); the ROLLBACK of a read, sent without waiting, counts nothing.
 */
#include <inttypes.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/driver.h"
#include "util/log.h"

#define STMT_CACHE 128
#define OID_INT8   20
#define OID_FLOAT8 701
/* pg_advisory_xact_lock key of store_begin_write: "Whistle" in ASCII */
#define WRITE_LOCK_KEY "24603125091691621"

struct pg_stmt {
    struct store_cached k; /* first: the handle and the cache key (k.sql NULL: a free slot) */
    struct pg_store *s;
    char *pgsql;   /* the same with $n placeholders */
    char name[24]; /* server-side prepared statement name, once prepared */
    bool prepared; /* on this connection */
    int nparams;
    Oid *types;    /* per parameter: the type the current binding declares (0: inferred) */
    Oid *prep;     /* per parameter: the types the prepared statement was prepared with */
    char **values; /* per parameter: NULL for null, else ibuf[i] or an owned copy */
    char **owned;  /* per parameter: malloc'd text bound to it, freed on rebind */
    char (*ibuf)[32];
    PGresult *res; /* the executed result while the statement runs */
    int row;       /* current row of res */
    bool pinned;   /* prepared ahead (store_prepare_ahead) for the transaction under way */
};

/* At most this many statements of one transaction are pinned (pin): a keyed write
 * prepares a handful ahead */
#define PINS_MAX 32

struct pg_store {
    struct store base; /* first */
    PGconn *conn;
    char *uri; /* for reopen */
    bool writing;
    bool read_pending; /* store_begin_read called, BEGIN not sent yet */
    bool draining;     /* a ROLLBACK was sent, its answer not read yet */
    int64_t changes;
    uint64_t epoch; /* hash of the server's start time, read at connect (pg_data_version) */
    unsigned next_name;
    /* the version bumps of pg_step_write (content, tally) prepared on this connection */
    bool bump_prepared[2];
    char err[512];
    struct pg_stmt *pins[PINS_MAX]; /* the pinned statements, until the transaction ends */
    int npins;
    struct pg_stmt cache[STMT_CACHE];
};

static const struct store_driver pg_driver;

static struct pg_store *conn_of(struct store *s)
{
    return (struct pg_store *)s;
}

static struct pg_stmt *stmt_of(struct store_stmt *st)
{
    return (struct pg_stmt *)st;
}

/* Notices are not logged. One matters: a server that ends an idle session (shutdown,
 * restart, pg_terminate_backend) sends a FATAL error before it closes the socket, and libpq
 * hands an error that arrives while no query runs to the notice receiver. */
static void on_notice(void *arg, const PGresult *res)
{
    struct pg_store *s = arg;
    const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
    if (sev && (strcmp(sev, "FATAL") == 0 || strcmp(sev, "PANIC") == 0))
        s->base.broken = true;
}

static void set_err(struct pg_store *s, const char *msg)
{
    snprintf(s->err, sizeof s->err, "%s", msg ? msg : "unknown error");
    size_t n = strlen(s->err);
    while (n > 0 && (s->err[n - 1] == '\n' || s->err[n - 1] == ' '))
        s->err[--n] = '\0';
}

/*
 * Maps a failed result to a store_rc and records its message. SQLSTATE classes: 23
 * integrity constraint; 40001 serialization, 40P01 deadlock, 55P03 lock not available
 * (lock_timeout) are worth a retry; 08 connection exceptions, 57P operator intervention
 * (shutdown, crash recovery) and a connection libpq reports bad mean the database is gone.
 */
static int map_result(struct pg_store *s, PGresult *res)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    set_err(s, res ? PQresultErrorMessage(res) : PQerrorMessage(s->conn));
    if (PQstatus(s->conn) != CONNECTION_OK || !state || strncmp(state, "08", 2) == 0 ||
        strncmp(state, "57P", 3) == 0) {
        s->base.broken = true;
        log_error("store", "database connection lost: %s", s->err);
        return STORE_GONE;
    }
    if (strncmp(state, "23", 2) == 0)
        return STORE_CONSTRAINT;
    if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 || strcmp(state, "55P03") == 0) {
        log_warn("store", "statement failed: %s", s->err);
        return STORE_BUSY;
    }
    log_error("store", "statement failed: %s", s->err);
    return STORE_ERR;
}

/* Reads the answer of a ROLLBACK sent without waiting (pg_rollback), before the connection
 * is used again. */
static void drain(struct pg_store *s)
{
    if (!s->draining)
        return;
    s->draining = false;
    PGresult *r;
    while ((r = PQgetResult(s->conn)) != NULL)
        PQclear(r);
}

/* Runs a parameterless command (any number of statements): 0 or a negative store_rc. */
static int command(struct pg_store *s, const char *sql)
{
    if (s->base.broken)
        return STORE_GONE;
    drain(s);
    s->read_pending = false;
    s->base.round_trips++;
    PGresult *res = PQexec(s->conn, sql);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    int rc = 0;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY)
        rc = map_result(s, res);
    else
        s->changes = strtoll(PQcmdTuples(res), NULL, 10);
    PQclear(res);
    return rc;
}

/* Text order is part of the API (ties in list order, pagination): SQLite compares bytes,
 * and so does PostgreSQL under the C collation only. A database created with a language
 * collation still works, but orders some ids differently: say so once per process. */
static void warn_collation(struct pg_store *s)
{
    static atomic_bool warned;
    if (atomic_load(&warned))
        return;
    PGresult *r = PQexec(s->conn, "SELECT datcollate FROM pg_database"
                                  " WHERE datname = current_database()");
    if (r && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
        const char *c = PQgetvalue(r, 0, 0);
        if (strcmp(c, "C") != 0 && strcmp(c, "POSIX") != 0 && strncmp(c, "C.", 2) != 0 &&
            !atomic_exchange(&warned, true))
            log_warn("store",
                     "database collation is %s, not C: text sorts differently than on"
                     " SQLite (create it with --locale=C, docs/deploy.md)",
                     c);
    }
    PQclear(r);
}

/* Connects s->conn to s->uri and configures the session: 0, or a negative store_rc with a
 * message in err (s->conn is then NULL). */
static int pg_connect(struct pg_store *s, char *err, size_t errlen)
{
    /* defaults first: with expand_dbname the URI's own settings override them */
    static const char *const keys[] = {"connect_timeout", "application_name", "dbname", NULL};
    const char *values[] = {"5", "whistle", s->uri, NULL};
    s->conn = PQconnectdbParams(keys, values, 1);
    if (!s->conn || PQstatus(s->conn) != CONNECTION_OK) {
        char msg[400];
        snprintf(msg, sizeof msg, "%s", s->conn ? PQerrorMessage(s->conn) : "out of memory");
        size_t n = strlen(msg);
        while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
            msg[--n] = '\0';
        /* the URI may carry a password: name the database by its driver only */
        snprintf(err, errlen, "cannot open database (postgresql): %s", msg);
        PQfinish(s->conn);
        s->conn = NULL;
        return STORE_GONE;
    }
    PQsetNoticeReceiver(s->conn, on_notice, s);
    s->base.broken = false;
    /* plan_cache_mode: every statement here is a short indexed OLTP query prepared once
     * per connection; left to itself PostgreSQL keeps re-planning the multi-join reads
     * (custom plans, ~1 ms of planning for the incident list, 4x its throughput) because
     * their generic plan's estimate looks worse, although it is the same index plan */
    int rc = command(s, "SET lock_timeout = '5s'; SET client_min_messages = warning;"
                        " SET plan_cache_mode = force_generic_plan");
    if (rc < 0) {
        snprintf(err, errlen, "cannot configure database connection: %s", s->err);
        PQfinish(s->conn);
        s->conn = NULL;
        s->base.broken = true;
        return rc;
    }
    warn_collation(s);
    PGresult *r = PQexec(s->conn, "SELECT CAST(pg_postmaster_start_time() AS TEXT)");
    s->epoch = r && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
                   ? store_sql_hash(PQgetvalue(r, 0, 0))
                   : 0;
    PQclear(r);
    return 0;
}

/* store_pg_opener's connect: pg_connect (the database is created by the operator,
 * docs/deploy.md: create is ignored). */
static int pg_open_connect(struct store *s, bool create, char *err, size_t errlen)
{
    (void)create;
    return pg_connect(conn_of(s), err, errlen);
}

const struct store_opener store_pg_opener = {
    &pg_driver, sizeof(struct pg_store), offsetof(struct pg_store, uri), false, pg_open_connect};

static void clear_bindings(struct pg_stmt *p)
{
    for (int i = 0; i < p->nparams; i++) {
        free(p->owned[i]);
        p->owned[i] = NULL;
        p->values[i] = NULL;
        p->types[i] = 0;
    }
}

static void stmt_free(struct pg_stmt *p)
{
    if (!p->k.sql)
        return;
    PQclear(p->res);
    clear_bindings(p);
    free(p->k.sql);
    free(p->pgsql);
    free(p->types);
    free(p->prep);
    free(p->values);
    free(p->owned);
    free(p->ibuf);
    memset(p, 0, sizeof *p);
}

static void pg_close(struct store *base)
{
    struct pg_store *s = conn_of(base);
    for (int i = 0; i < STMT_CACHE; i++)
        stmt_free(&s->cache[i]);
    PQfinish(s->conn);
    free(s->uri);
    free(s);
}

/* The SQL text with "?" numbered as $1, $2, … outside string literals, quoted identifiers
 * and comments. Returns a malloc'd string and the parameter count in *n. */
static char *number_placeholders(const char *sql, int *n)
{
    size_t len = strlen(sql);
    char *out = malloc(len * 6 + 1); /* "?" → "$99999" at worst */
    if (!out)
        return NULL;
    size_t o = 0;
    int count = 0;
    for (size_t i = 0; i < len; i++) {
        char c = sql[i];
        if (c == '\'' || c == '"') {
            out[o++] = c;
            for (i++; i < len; i++) {
                out[o++] = sql[i];
                if (sql[i] == c)
                    break; /* a doubled quote reopens at the next character */
            }
        } else if (c == '-' && sql[i + 1] == '-') {
            for (; i < len && sql[i] != '\n'; i++)
                out[o++] = sql[i];
            if (i < len)
                out[o++] = '\n';
        } else if (c == '/' && sql[i + 1] == '*') {
            const char *end = strstr(sql + i + 2, "*/");
            size_t stop = end ? (size_t)(end - sql) + 2 : len;
            for (; i < stop; i++)
                out[o++] = sql[i];
            i--;
        } else if (c == '?') {
            o += (size_t)snprintf(out + o, 7, "$%d", ++count);
        } else {
            out[o++] = c;
        }
    }
    out[o] = '\0';
    *n = count;
    return out;
}

static bool stmt_init(struct pg_stmt *p, struct pg_store *s, const char *sql, uint64_t h)
{
    p->k.base.drv = &pg_driver;
    p->k.base.conn = &s->base;
    p->s = s;
    p->k.hash = h;
    p->row = -1;
    p->k.sql = strdup(sql);
    p->pgsql = number_placeholders(sql, &p->nparams);
    size_t n = (size_t)p->nparams + 1;
    p->types = calloc(n, sizeof *p->types);
    p->prep = calloc(n, sizeof *p->prep);
    p->values = calloc(n, sizeof *p->values);
    p->owned = calloc(n, sizeof *p->owned);
    p->ibuf = calloc(n, sizeof *p->ibuf);
    return p->k.sql && p->pgsql && p->types && p->prep && p->values && p->owned && p->ibuf;
}

/* store_cache_find's running(): a statement with a result not yet stepped through, or one
 * pinned for the transaction under way (its preparation must not happen again under the
 * transaction's locks) */
static bool pg_running(const struct store_cached *e)
{
    const struct pg_stmt *p = (const struct pg_stmt *)e;
    return p->res != NULL || p->pinned;
}

/* Keeps p in the cache until the transaction ends (unpin_all): store_prepare_ahead prepared
 * it so that the write's locks are never held across its preparation, and a statement the
 * write prepares under them must not evict it. */
static void pin(struct pg_store *s, struct pg_stmt *p)
{
    if (!p->pinned && s->npins < PINS_MAX) {
        p->pinned = true;
        s->pins[s->npins++] = p;
    }
}

/* The end of a transaction (commit or rollback): its prepared-ahead statements may go. */
static void unpin_all(struct pg_store *s)
{
    if (s->base.prepare_only)
        return;
    for (int i = 0; i < s->npins; i++)
        s->pins[i]->pinned = false;
    s->npins = 0;
}

static struct store_stmt *pg_prepare(struct store *base, const char *sql)
{
    struct pg_store *s = conn_of(base);
    uint64_t h = store_sql_hash(sql);
    bool hit;
    struct pg_stmt *c = (struct pg_stmt *)store_cache_find(s->cache, STMT_CACHE, sizeof s->cache[0],
                                                           sql, h, pg_running, &hit);
    if (hit) {
        PQclear(c->res);
        c->res = NULL;
        c->row = -1;
        clear_bindings(c);
        return &c->k.base;
    }
    if (c->prepared && !s->base.broken && PQtransactionStatus(s->conn) != PQTRANS_INERROR) {
        char sqlbuf[48];
        snprintf(sqlbuf, sizeof sqlbuf, "DEALLOCATE %s", c->name);
        command(s, sqlbuf);
    }
    stmt_free(c);
    if (!stmt_init(c, s, sql, h)) {
        fputs("whistle: out of memory\n", stderr);
        abort();
    }
    return &c->k.base;
}

static bool param_ok(struct pg_stmt *p, int idx)
{
    if (idx >= 1 && idx <= p->nparams)
        return true;
    log_error("store", "parameter %d out of range (statement has %d)", idx, p->nparams);
    return false;
}

static void pg_bind_null(struct store_stmt *st, int idx)
{
    struct pg_stmt *p = stmt_of(st);
    if (!param_ok(p, idx))
        return;
    free(p->owned[idx - 1]);
    p->owned[idx - 1] = NULL;
    p->values[idx - 1] = NULL;
    p->types[idx - 1] = 0;
}

static void pg_bind_text(struct store_stmt *st, int idx, const char *v)
{
    struct pg_stmt *p = stmt_of(st);
    pg_bind_null(st, idx);
    if (!v || !param_ok(p, idx))
        return;
    p->owned[idx - 1] = strdup(v);
    if (!p->owned[idx - 1]) {
        fputs("whistle: out of memory\n", stderr);
        abort();
    }
    p->values[idx - 1] = p->owned[idx - 1];
}

/* Clears parameter idx of st (pg_bind_null) for a number: its statement, or NULL when idx is
 * out of range. */
static struct pg_stmt *bind_number(struct store_stmt *st, int idx)
{
    struct pg_stmt *p = stmt_of(st);
    pg_bind_null(st, idx);
    return param_ok(p, idx) ? p : NULL;
}

static void pg_bind_int(struct store_stmt *st, int idx, int64_t v)
{
    struct pg_stmt *p = bind_number(st, idx);
    if (!p)
        return;
    p->types[idx - 1] = OID_INT8;
    if (v == STORE_NULL_INT)
        return;
    snprintf(p->ibuf[idx - 1], sizeof p->ibuf[0], "%" PRId64, v);
    p->values[idx - 1] = p->ibuf[idx - 1];
}

static void pg_bind_double(struct store_stmt *st, int idx, double v)
{
    struct pg_stmt *p = bind_number(st, idx);
    if (!p)
        return;
    snprintf(p->ibuf[idx - 1], sizeof p->ibuf[0], "%.17g", v);
    p->values[idx - 1] = p->ibuf[idx - 1];
    p->types[idx - 1] = OID_FLOAT8;
}

/* True when the bindings declare a parameter type the prepared statement was not prepared
 * with (an inferred parameter, 0, fits whatever was prepared). */
static bool types_changed(const struct pg_stmt *p)
{
    for (int i = 0; i < p->nparams; i++)
        if (p->types[i] != 0 && p->types[i] != p->prep[i])
            return true;
    return false;
}

/* Whether the statement must be prepared (again) before it runs; if so names it and fixes
 * the types it is prepared with. */
static bool needs_prepare(struct pg_stmt *p)
{
    if (p->prepared && types_changed(p)) {
        /* the old one stays on the server under its unique name until the connection
         * closes: this happens at most once per parameter of a statement (below) */
        p->prepared = false;
    }
    if (p->prepared)
        return false;
    /* declared types only accumulate: a parameter once declared keeps its type when a later
     * binding leaves it to inference */
    for (int i = 0; i < p->nparams; i++)
        if (p->types[i] != 0)
            p->prep[i] = p->types[i];
    /* the write rule (app/app.h): a statement a locked write needs is prepared before the
     * lock (store_prepare_ahead); one prepared under it is a bug worth a line */
    if (p->s->base.key_locked)
        log_warn("store", "statement prepared while a key lock is held: %.80s", p->k.sql);
    snprintf(p->name, sizeof p->name, "w%u", ++p->s->next_name);
    return true;
}

/* Keeps the statement's result (takes res): 0, or a negative store_rc when it failed. */
static int take_result(struct pg_stmt *p, PGresult *res)
{
    struct pg_store *s = p->s;
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st == PGRES_TUPLES_OK) {
        /* RETURNING reports its rows like a write; a plain SELECT leaves changes alone */
        if (strncmp(PQcmdStatus(res), "SELECT", 6) != 0)
            s->changes = strtoll(PQcmdTuples(res), NULL, 10);
        p->res = res;
        p->row = -1;
        return 0;
    }
    if (st == PGRES_COMMAND_OK) {
        s->changes = strtoll(PQcmdTuples(res), NULL, 10);
        p->res = res;
        p->row = -1;
        return 0;
    }
    int rc = map_result(s, res);
    if (rc != STORE_CONSTRAINT && rc != STORE_GONE)
        log_error("store", "in statement: %s", p->k.sql);
    PQclear(res);
    return rc;
}

/* The statement's execution in one pipeline (one round trip), after BEGIN and the read's
 * budget when it opens a read (begin), and after its preparation (prepare: needs_prepare
 * named it). */
static int execute_pipelined(struct pg_stmt *p, bool begin, bool prepare)
{
    struct pg_store *s = p->s;
    PGconn *c = s->conn;
    char budget[64];
    snprintf(budget, sizeof budget, "SET LOCAL statement_timeout = %d", STORE_READ_BUDGET_MS);
    int sent = 0;
    bool ok = PQenterPipelineMode(c);
    if (ok && begin)
        sent += ok = PQsendQueryParams(c, "BEGIN ISOLATION LEVEL REPEATABLE READ", 0, NULL, NULL,
                                       NULL, NULL, 0);
    if (ok && begin && s->base.read_budget)
        sent += ok = PQsendQueryParams(c, budget, 0, NULL, NULL, NULL, NULL, 0);
    if (ok && prepare)
        sent += ok = PQsendPrepare(c, p->name, p->pgsql, p->nparams, p->prep);
    if (ok)
        sent += ok = PQsendQueryPrepared(c, p->name, p->nparams, (const char *const *)p->values,
                                         NULL, NULL, 0);
    ok = ok && PQpipelineSync(c);
    s->base.round_trips++;
    if (!ok) {
        /* what was sent cannot be told from what was not: the connection starts again */
        set_err(s, PQerrorMessage(c));
        s->base.broken = true;
        return STORE_GONE;
    }
    /* each query's result, then the NULL that closes it; then the sync */
    int rc = 0;
    PGresult *last = NULL;
    for (int i = 0; i < sent; i++) {
        PGresult *r = PQgetResult(c);
        if (i == sent - 1) {
            last = r;
        } else {
            ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
            if (st != PGRES_COMMAND_OK && rc == 0)
                rc = map_result(s, r);
            PQclear(r);
        }
        if (r)
            PQclear(PQgetResult(c));
    }
    PGresult *sync;
    while ((sync = PQgetResult(c)) != NULL) {
        bool done = PQresultStatus(sync) == PGRES_PIPELINE_SYNC;
        PQclear(sync);
        if (done)
            break;
    }
    if (!PQexitPipelineMode(c)) {
        set_err(s, PQerrorMessage(c));
        s->base.broken = true;
        rc = STORE_GONE;
    }
    if (rc < 0) {
        PQclear(last);
        return rc;
    }
    p->prepared = p->prepared || prepare;
    return take_result(p, last);
}

/* The first statement of a read: BEGIN, the read's budget, the statement's preparation
 * when needed and its execution in one round trip. */
static int execute_opening_read(struct pg_stmt *p)
{
    return execute_pipelined(p, true, needs_prepare(p));
}

static int pg_reopen(struct store *base, char *err, size_t errlen);

/* Prepares (first time on this connection) and executes the statement; keeps the result. */
static int execute(struct pg_stmt *p)
{
    struct pg_store *s = p->s;
    if (s->base.broken)
        return STORE_GONE;
    drain(s);
    if (s->read_pending && !s->base.prepare_only) {
        s->read_pending = false;
        int rc = execute_opening_read(p);
        char err[512];
        /* nothing was read yet: a connection found dead (the server restarted) is opened
         * again and the read begins again, as store_begin_read does for the other drivers */
        if (rc == STORE_GONE && pg_reopen(&s->base, err, sizeof err) == 0) {
            log_info("store", "database connection lost and opened again");
            rc = execute_opening_read(p);
        }
        return rc;
    }
    bool prepare = needs_prepare(p);
    if (prepare && !s->base.prepare_only) /* its first run: prepared in the same round trip */
        return execute_pipelined(p, false, true);
    if (prepare) {
        s->base.round_trips++;
        PGresult *r = PQprepare(s->conn, p->name, p->pgsql, p->nparams, p->prep);
        if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
            int rc = map_result(s, r);
            PQclear(r);
            return rc;
        }
        PQclear(r);
        p->prepared = true;
    }
    if (s->base.prepare_only) {
        pin(s, p);
        return STORE_DONE;
    }
    s->base.round_trips++;
    return take_result(p, PQexecPrepared(s->conn, p->name, p->nparams,
                                         (const char *const *)p->values, NULL, NULL, 0));
}

static int pg_step(struct store_stmt *st)
{
    struct pg_stmt *p = stmt_of(st);
    if (!p->res) {
        int rc = execute(p);
        if (rc < 0)
            return rc;
        if (!p->res)
            return STORE_DONE; /* store_prepare_ahead: prepared, not executed */
    }
    p->row++;
    return p->row < PQntuples(p->res) ? STORE_ROW : STORE_DONE;
}

static bool has_value(struct pg_stmt *p, int col)
{
    return p->res && p->row >= 0 && p->row < PQntuples(p->res) && col >= 0 &&
           col < PQnfields(p->res) && !PQgetisnull(p->res, p->row, col);
}

static const char *pg_col_text(struct store_stmt *st, int col)
{
    struct pg_stmt *p = stmt_of(st);
    return has_value(p, col) ? PQgetvalue(p->res, p->row, col) : NULL;
}

static const void *pg_col_bytes(struct store_stmt *st, int col, size_t *len)
{
    struct pg_stmt *p = stmt_of(st);
    bool has = has_value(p, col);
    *len = has ? (size_t)PQgetlength(p->res, p->row, col) : 0;
    return has ? PQgetvalue(p->res, p->row, col) : NULL;
}

static int64_t pg_col_int(struct store_stmt *st, int col)
{
    const char *v = pg_col_text(st, col);
    if (!v)
        return STORE_NULL_INT;
    if (v[0] == 't' && v[1] == '\0')
        return 1;
    if (v[0] == 'f' && v[1] == '\0')
        return 0;
    return strtoll(v, NULL, 10);
}

static bool pg_col_null(struct store_stmt *st, int col)
{
    return !has_value(stmt_of(st), col);
}

static void pg_reset(struct store_stmt *st)
{
    struct pg_stmt *p = stmt_of(st);
    PQclear(p->res);
    p->res = NULL;
    p->row = -1;
}

static int64_t pg_changes(struct store *s)
{
    return conn_of(s)->changes;
}

static int pg_exec(struct store *s, const char *sql)
{
    return command(conn_of(s), sql);
}

static void pg_rollback(struct store *base)
{
    struct pg_store *s = conn_of(base);
    unpin_all(s);
    bool writing = s->writing;
    s->writing = false;
    s->read_pending = false;
    if (s->base.broken)
        return;
    drain(s);
    PGTransactionStatusType t = PQtransactionStatus(s->conn);
    if (t != PQTRANS_INTRANS && t != PQTRANS_INERROR)
        return;
    /* the end of a read is not waited for (drain collects its answer); a write's is */
    if (!writing && PQsendQuery(s->conn, "ROLLBACK"))
        s->draining = true;
    else
        command(s, "ROLLBACK");
}

/* The read begins with its first statement (execute_opening_read): no round trip here. A
 * request's read is bounded there (store.h STORE_READ_BUDGET_MS). */
static int pg_begin_read(struct store *base)
{
    struct pg_store *s = conn_of(base);
    if (s->base.broken)
        return STORE_GONE;
    drain(s);
    s->read_pending = true;
    return 0;
}

/* A write transaction opened by sql (BEGIN and a lock) in one round trip. */
static int begin_writing(struct store *base, const char *sql)
{
    struct pg_store *s = conn_of(base);
    int rc = command(s, sql);
    if (rc < 0) {
        pg_rollback(base);
        return rc;
    }
    s->writing = true;
    return 0;
}

static int pg_begin_write(struct store *base)
{
    return begin_writing(base, "BEGIN; SELECT pg_advisory_xact_lock(" WRITE_LOCK_KEY ")");
}

static int pg_begin_row_write(struct store *base)
{
    return begin_writing(base, "BEGIN; SELECT pg_advisory_xact_lock_shared(" WRITE_LOCK_KEY ")");
}

/* One row (migration 014) updated in a transaction the caller rolls back: refused in a
 * read-only transaction (default_transaction_read_only, a standby in recovery). SKIP LOCKED:
 * a probe of another connection holding the row means that one got its write in. */
static int pg_write_probe(struct store *base)
{
    return command(conn_of(base), "BEGIN; UPDATE store_probe SET n = n + 1 WHERE id IN"
                                  " (SELECT id FROM store_probe FOR UPDATE SKIP LOCKED)");
}

/* The statements around COMMIT that move a version (store_data_version): the first notes
 * whether the transaction wrote anything (an id is assigned by the first row it changes or
 * locks; a background job that found nothing to do has none), the last bumps the sequence
 * then. to_regclass: before migration 018 made the sequence, nextval(NULL) is NULL. */
#define WROTE                                                                                      \
    "SELECT set_config('whistle.wrote', CAST(txid_current_if_assigned() IS NOT NULL AS TEXT),"     \
    " false); COMMIT; SELECT CASE WHEN current_setting('whistle.wrote') = 'true' THEN "
#define BUMP_CONTENT "nextval(to_regclass('whistle_content_seq'))"
#define BUMP_TALLY   "nextval(to_regclass('whistle_tally_seq'))"

/*
 * COMMIT, and for a write transaction the version bump, sent as one simple query: one round
 * trip, no lock held by the bump (nextval is not transactional and waits for nobody). The
 * server runs the bump only once COMMIT succeeded, so a reader that sees the new version sees
 * the write; it runs it even when this client dies in between (the query is already there).
 * Between the commit and the bump (microseconds, inside the server) a reader may still get
 * the old version and a cached body without the write: the writer has not been answered yet,
 * so no request that started after the write's answer can see it.
 */
static int pg_commit(struct store *base)
{
    struct pg_store *s = conn_of(base);
    unpin_all(s);
    if (s->base.broken)
        return STORE_GONE;
    drain(s);
    if (s->read_pending) {
        /* a read that ran no statement has nothing to commit */
        s->read_pending = false;
        return 0;
    }
    const char *sql = "COMMIT";
    if (s->writing && base->bump == STORE_BUMP_CONTENT)
        sql = WROTE BUMP_CONTENT " END";
    else if (s->writing && base->bump == STORE_BUMP_TALLY)
        sql = WROTE BUMP_TALLY " END";
    /* the result of COMMIT: the first one, or the second after the set_config */
    int commit_at = sql[0] == 'S' ? 1 : 0, at = 0;
    s->base.moved = false;
    int rc = 0;
    s->base.round_trips++;
    if (!PQsendQuery(s->conn, sql)) {
        set_err(s, PQerrorMessage(s->conn));
        s->base.broken = PQstatus(s->conn) != CONNECTION_OK;
        rc = s->base.broken ? STORE_GONE : STORE_ERR;
    }
    PGresult *res;
    while (rc == 0 && (res = PQgetResult(s->conn)) != NULL) {
        ExecStatusType st = PQresultStatus(res);
        bool want_rows = at != commit_at;
        if (at <= commit_at && st != (want_rows ? PGRES_TUPLES_OK : PGRES_COMMAND_OK)) {
            rc = map_result(s, res);
        } else if (at == commit_at && strcmp(PQcmdStatus(res), "COMMIT") != 0) {
            /* COMMIT of a transaction that had failed answers ROLLBACK: nothing was written */
            set_err(s, "transaction aborted by an earlier error");
            rc = STORE_ERR;
        } else if (at > commit_at && st != PGRES_TUPLES_OK) {
            /* committed; only the bump failed: caches may miss it, say so */
            log_error("store", "cache version bump failed: %s", PQresultErrorMessage(res));
        } else if (at > commit_at) {
            s->base.moved = PQntuples(res) == 1 && !PQgetisnull(res, 0, 0);
        }
        at++;
        PQclear(res);
    }
    if (rc < 0) {
        while ((res = PQgetResult(s->conn)) != NULL)
            PQclear(res);
        if (PQstatus(s->conn) != CONNECTION_OK)
            s->base.broken = true;
        pg_rollback(base);
        return rc;
    }
    s->writing = false;
    return 0;
}

/* Collects the answers of a pipeline synced `syncs` times and leaves pipeline mode: the
 * result of each query in the order sent into res[0..n-1] (PGRES_PIPELINE_ABORTED for one
 * skipped after an error in its segment; NULL past what came). false when the connection
 * failed (then broken, and what res holds is to be cleared all the same). */
static bool pipeline_collect(struct pg_store *s, int syncs, PGresult **res, int n)
{
    int got = 0;
    bool after_null = false;
    while (syncs > 0) {
        PGresult *r = PQgetResult(s->conn);
        if (!r) {
            if (after_null)
                break; /* two in a row: nothing more will come */
            after_null = true;
            continue;
        }
        after_null = false;
        if (PQresultStatus(r) == PGRES_PIPELINE_SYNC) {
            syncs--;
            PQclear(r);
        } else if (got < n) {
            res[got++] = r;
        } else {
            PQclear(r);
        }
    }
    for (int i = got; i < n; i++)
        res[i] = NULL;
    if (syncs > 0 || !PQexitPipelineMode(s->conn)) {
        set_err(s, PQerrorMessage(s->conn));
        s->base.broken = true;
        return false;
    }
    return true;
}

/*
 * The version bump after a write of store_step_write and the reset of its condition, in one
 * statement: CASE evaluates its condition before its result, so whistle.moved is read before
 * it is reset, and reset (then the sequence moved) only when the write set it. Both are
 * prepared once per connection under these names (pg_step_write, bump_prepared; indexed by
 * tallies_only). A failed bump rolls the reset back with it, as before.
 */
#define MOVED                                                                                      \
    "SELECT CASE WHEN current_setting('whistle.moved', true) = 'true' THEN"                        \
    " CASE WHEN set_config('whistle.moved', 'false', false) = 'false' THEN "
static const char *const bump_name[2] = {"whistle_bump_content", "whistle_bump_tally"};
static const char *const bump_sql[2] = {MOVED BUMP_CONTENT " END END", MOVED BUMP_TALLY " END END"};

/*
 * store_step_write: [the statement's preparation when needed,] the statement, a sync, [the
 * bump's preparation, once per connection,] the bump with the reset of whistle.moved, a sync;
 * one pipeline, one round trip. The sync makes the statement's implicit transaction commit
 * before the bump's begins, so the server runs the bump only after the commit (and only if
 * the statement set whistle.moved: a failed statement's transaction leaves it as the last
 * reset did). As pg_commit: the bump runs even if this client dies after sending. A
 * reconnection prepares the bump again (pg_reopen clears bump_prepared). Inside a
 * transaction, or for a statement already running, a plain step: the transaction's commit
 * moves the version.
 */
static int pg_step_write(struct store_stmt *st, bool tallies_only)
{
    struct pg_stmt *p = stmt_of(st);
    struct pg_store *s = p->s;
    if (p->res || s->writing || s->read_pending || s->base.prepare_only || s->base.broken)
        return pg_step(st);
    drain(s);
    if (PQtransactionStatus(s->conn) != PQTRANS_IDLE)
        return pg_step(st);
    PGconn *c = s->conn;
    bool prepare = needs_prepare(p);
    int bump = tallies_only ? 1 : 0;
    bool prepare_bump = !s->bump_prepared[bump];
    int sent = 0;
    bool ok = PQenterPipelineMode(c);
    if (ok && prepare)
        sent += ok = PQsendPrepare(c, p->name, p->pgsql, p->nparams, p->prep);
    if (ok)
        sent += ok = PQsendQueryPrepared(c, p->name, p->nparams, (const char *const *)p->values,
                                         NULL, NULL, 0);
    ok = ok && PQpipelineSync(c);
    if (ok && prepare_bump)
        ok = PQsendPrepare(c, bump_name[bump], bump_sql[bump], 0, NULL);
    ok = ok && PQsendQueryPrepared(c, bump_name[bump], 0, NULL, NULL, NULL, 0) && PQpipelineSync(c);
    s->base.round_trips++;
    if (!ok) {
        /* what was sent cannot be told from what was not: the connection starts again */
        set_err(s, PQerrorMessage(c));
        s->base.broken = true;
        return STORE_GONE;
    }
    PGresult *res[4];
    int n = sent + (prepare_bump ? 2 : 1);
    int rc = pipeline_collect(s, 2, res, n) ? 0 : STORE_GONE;
    if (rc == 0 && prepare) {
        if (PQresultStatus(res[0]) != PGRES_COMMAND_OK)
            rc = map_result(s, res[0]);
        else
            p->prepared = true;
    }
    /* the statement's result: kept, or its failure mapped (take_result clears it) */
    if (rc == 0)
        rc = take_result(p, res[sent - 1]);
    else
        PQclear(res[sent - 1]);
    res[sent - 1] = NULL;
    /* the bump's preparation (its failure aborts the bump: that error is the one to answer) */
    PGresult *failed = NULL;
    if (prepare_bump && PQresultStatus(res[sent]) == PGRES_COMMAND_OK)
        s->bump_prepared[bump] = true;
    else if (prepare_bump)
        failed = res[sent];
    if (!failed && PQresultStatus(res[n - 1]) != PGRES_TUPLES_OK)
        failed = res[n - 1];
    /* the bump's value: NULL when the statement moved nothing (whistle.moved unset) */
    s->base.moved = !failed && PQntuples(res[n - 1]) == 1 && !PQgetisnull(res[n - 1], 0, 0);
    if (rc == 0 && failed) {
        /* committed; the bump failed: answer it, so that a retry moves the version */
        rc = map_result(s, failed);
        PQclear(p->res);
        p->res = NULL;
    }
    for (int i = 0; i < n; i++)
        PQclear(res[i]);
    if (rc < 0)
        return rc;
    p->row++;
    return p->row < PQntuples(p->res) ? STORE_ROW : STORE_DONE;
}

/* (content, tally) from the sequences in one statement (pg_sequence_last_value: no scan, a
 * few µs of server time, as cheap as the pg_current_snapshot() it replaces). The server's
 * start time is mixed into the content version: after a crash a sequence may hand out a
 * value again (its last advance was not flushed), and a cache must not take the new data
 * for the old. A restart ends every connection, so the value read at connect is current. */
static int pg_data_version(struct store *base, uint64_t out[2])
{
    struct store_stmt *st = pg_prepare(base, "SELECT pg_sequence_last_value('whistle_content_seq'),"
                                             " pg_sequence_last_value('whistle_tally_seq')");
    int rc = pg_step(st);
    if (rc == STORE_ROW) {
        out[0] = (uint64_t)pg_col_int(st, 0) ^ conn_of(base)->epoch;
        out[1] = (uint64_t)pg_col_int(st, 1);
    }
    pg_reset(st);
    return rc == STORE_ROW ? 0 : (rc < 0 ? rc : STORE_ERR);
}

static const char *pg_errmsg(struct store *s)
{
    return conn_of(s)->err;
}

/*
 * The zero-round-trip check store_thread() makes before handing out an idle connection.
 * Between requests nothing is expected from the server, so a readable socket means it
 * sent something on its own: when it shuts down or restarts (or an administrator
 * terminates the session) it sends a FATAL error and closes the socket. Reading and parsing
 * that input makes libpq report the closed connection (CONNECTION_BAD) or pass the FATAL
 * error to on_notice(). The check can miss a termination still in flight; the first
 * statement of the next transaction then finds the connection dead and store.c reopens it
 * and runs the statement again.
 */
static bool pg_idle_ok(struct store *base)
{
    struct pg_store *s = conn_of(base);
    if (s->base.broken || PQstatus(s->conn) != CONNECTION_OK)
        return false;
    drain(s);
    s->read_pending = false;
    PGTransactionStatusType t = PQtransactionStatus(s->conn);
    if (t == PQTRANS_INTRANS || t == PQTRANS_INERROR) {
        log_error("store", "a transaction was left open: rolled back");
        pg_rollback(base);
        t = PQtransactionStatus(s->conn);
    }
    if (t != PQTRANS_IDLE)
        return false;
    /* twice: the FATAL message and the end of the stream may come in separate reads */
    for (int i = 0; i < 2; i++) {
        struct pollfd pfd = {.fd = PQsocket(s->conn), .events = POLLIN};
        if (pfd.fd < 0)
            return false;
        int n = poll(&pfd, 1, 0);
        if (n == 0)
            return true;
        if (n < 0 || (pfd.revents & (POLLERR | POLLNVAL)))
            return false;
        /* a NOTICE or parameter change sent unasked is consumed and harmless; PQisBusy
         * parses what arrived, so that a FATAL error reaches on_notice() */
        if (!PQconsumeInput(s->conn))
            return false;
        PQisBusy(s->conn);
        if (s->base.broken || PQstatus(s->conn) != CONNECTION_OK)
            return false;
    }
    return true;
}

/* Reconnects in place. Statement handles survive: each is prepared again on the new
 * connection at its next execution (server-side names are not reused: next_name goes on). */
static int pg_reopen(struct store *base, char *err, size_t errlen)
{
    struct pg_store *s = conn_of(base);
    PQfinish(s->conn);
    s->conn = NULL;
    s->base.broken = true;
    s->writing = false;
    s->draining = false;
    for (int i = 0; i < STMT_CACHE; i++)
        s->cache[i].prepared = false;
    s->bump_prepared[0] = s->bump_prepared[1] = false;
    return pg_connect(s, err, errlen);
}

static const struct store_driver pg_driver = {
    .name = "postgresql",
    .close = pg_close,
    .prepare = pg_prepare,
    .bind_text = pg_bind_text,
    .bind_int = pg_bind_int,
    .bind_null = pg_bind_null,
    .bind_double = pg_bind_double,
    .step = pg_step,
    .col_text = pg_col_text,
    .col_bytes = pg_col_bytes,
    .col_int = pg_col_int,
    .col_null = pg_col_null,
    .reset = pg_reset,
    .changes = pg_changes,
    .exec = pg_exec,
    .begin_read = pg_begin_read,
    .begin_write = pg_begin_write,
    .begin_row_write = pg_begin_row_write,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .errmsg = pg_errmsg,
    .data_version = pg_data_version,
    .write_probe = pg_write_probe,
    .step_write = pg_step_write,
    .idle_ok = pg_idle_ok,
    .reopen = pg_reopen,
};
