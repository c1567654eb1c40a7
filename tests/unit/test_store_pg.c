/*
 * Unit tests for src/store/pg.c (the PostgreSQL driver) against a real database: a fresh
 * database per test on the throwaway cluster named by WHISTLE_TEST_PG (tests/run.sh starts
 * one when PostgreSQL is installed). Without WHISTLE_TEST_PG every test is skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "store/store.h"
#include "util/log.h"

struct fixture {
    char name[64];
    char uri[512];
    struct store *admin; /* on the maintenance database: creates and drops the test one */
    struct store *s;
    char err[512];
};

/* uri with its database name (the path after the authority) replaced by name */
static void uri_with_db(const char *uri, const char *name, char *out, size_t n)
{
    const char *scheme = strstr(uri, "://");
    const char *path = scheme ? strchr(scheme + 3, '/') : NULL;
    if (!path) {
        snprintf(out, n, "%s", uri);
        return;
    }
    const char *rest = path + strcspn(path, "?");
    snprintf(out, n, "%.*s/%s%s", (int)(path - uri), uri, name, rest);
}

static int setup_db(void **state)
{
    static int counter;
    const char *base = getenv("WHISTLE_TEST_PG");
    if (!base || !*base) {
        *state = NULL;
        return 0;
    }
    struct fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->name, sizeof f->name, "unit_%d_%d", (int)getpid(), ++counter);
    uri_with_db(base, f->name, f->uri, sizeof f->uri);
    char sql[128];
    if (store_open(base, false, &f->admin, f->err, sizeof f->err) != 0) {
        fprintf(stderr, "setup: %s\n", f->err);
        free(f);
        return -1;
    }
    /* CREATE DATABASE cannot run inside a multi-statement string: one at a time */
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", f->name);
    store_exec(f->admin, sql);
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", f->name);
    if (store_exec(f->admin, sql) < 0 ||
        store_open(f->uri, true, &f->s, f->err, sizeof f->err) != 0) {
        fprintf(stderr, "setup: %s %s\n", f->err, store_errmsg(f->admin));
        store_close(f->admin);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown_db(void **state)
{
    struct fixture *f = *state;
    if (!f)
        return 0;
    store_close(f->s);
    char sql[128];
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", f->name);
    store_exec(f->admin, sql);
    store_close(f->admin);
    free(f);
    return 0;
}

static struct fixture *fx(void **state)
{
    if (!*state)
        skip();
    return *state;
}

static struct fixture *migrated(void **state)
{
    struct fixture *f = fx(state);
    assert_int_equal(store_migrate(f->s, f->err, sizeof f->err), 0);
    return f;
}

static int64_t query_int(struct store *s, const char *sql)
{
    struct store_stmt *st = store_prepare(s, sql);
    assert_non_null(st);
    assert_int_equal(store_step(st), STORE_ROW);
    int64_t v = store_col_int(st, 0);
    store_reset(st);
    return v;
}

static void test_uri_selects_the_driver(void **state)
{
    struct fixture *f = fx(state);
    assert_true(store_uri_is_pg("postgresql://h/db"));
    assert_true(store_uri_is_pg("postgres://h/db"));
    assert_false(store_uri_is_pg("/tmp/postgresql.db"));
    assert_false(store_uri_is_pg("whistle.db"));
    assert_string_equal(store_driver_name(f->s), "postgresql");
}

static void test_open_unreachable_is_gone(void **state)
{
    (void)fx(state);
    struct store *s = NULL;
    char err[512];
    int rc = store_open("postgresql://whistle@/no_such_db_at_all?host=/nonexistent-whistle-dir",
                        false, &s, err, sizeof err);
    assert_int_equal(rc, STORE_GONE);
    assert_null(s);
    assert_non_null(strstr(err, "cannot open database"));
}

static void test_migrate_is_idempotent_and_refuses_newer(void **state)
{
    struct fixture *f = migrated(state);
    assert_int_equal(store_schema_version(f->s), store_known_version());
    assert_int_equal(store_migrate(f->s, f->err, sizeof f->err), 0);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM schema_version"), store_known_version());
    assert_int_equal(store_exec(f->s, "INSERT INTO schema_version VALUES (999, 0)"), 0);
    assert_int_equal(store_migrate(f->s, f->err, sizeof f->err), -1);
    assert_non_null(strstr(f->err, "newer than this binary"));
    /* the refusal left no transaction open */
    assert_int_equal(store_begin_write(f->s), 0);
    store_rollback(f->s);
}

static void test_placeholders_numbered_outside_quotes_and_comments(void **state)
{
    struct fixture *f = fx(state);
    struct store_stmt *st = store_prepare(f->s, "SELECT ? + 1, '?', ?, \"?x\".y, ? /* ? */ -- ?\n"
                                                " FROM (SELECT 5 AS y) AS \"?x\"");
    store_bind_int(st, 1, 41);
    store_bind_text(st, 2, "it's");
    store_bind_null(st, 3);
    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 42);
    assert_string_equal(store_col_text(st, 1), "?");
    assert_string_equal(store_col_text(st, 2), "it's");
    assert_int_equal(store_col_int(st, 3), 5);
    assert_true(store_col_null(st, 4));
    assert_null(store_col_text(st, 4));
    assert_int_equal(store_col_int(st, 4), STORE_NULL_INT);
    assert_int_equal(store_step(st), STORE_DONE);
    store_reset(st);
}

static void test_booleans_and_wide_integers(void **state)
{
    struct fixture *f = fx(state);
    struct store_stmt *st = store_prepare(f->s, "SELECT 1 = 1, 1 = 2, CAST(? AS BIGINT), ?");
    store_bind_int(st, 1, INT64_MAX - 1);
    store_bind_double(st, 2, 0.25);
    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 1);
    assert_int_equal(store_col_int(st, 1), 0);
    assert_int_equal(store_col_int(st, 2), INT64_MAX - 1);
    assert_string_equal(store_col_text(st, 3), "0.25");
    store_reset(st);
}

static void test_parameter_types_follow_the_bind_function(void **state)
{
    struct fixture *f = fx(state);
    assert_int_equal(store_exec(f->s, "CREATE TABLE t (a BIGINT, b TEXT, c DOUBLE PRECISION)"), 0);
    /* in a SELECT list nothing infers a type: a null bound as an int is still an int */
    static const char sql[] = "INSERT INTO t (a, b, c) SELECT ?, ?, ?";
    struct store_stmt *st = store_prepare(f->s, sql);
    store_bind_int(st, 1, STORE_NULL_INT);
    store_bind_text(st, 2, NULL);
    store_bind_null(st, 3);
    assert_int_equal(store_run(st), 0);
    st = store_prepare(f->s, sql);
    store_bind_int(st, 1, 7);
    store_bind_text(st, 2, "x");
    store_bind_double(st, 3, 1.5); /* declared now: prepared again */
    assert_int_equal(store_run(st), 0);
    st = store_prepare(f->s, sql);
    store_bind_null(st, 1);
    store_bind_text(st, 2, "y");
    store_bind_null(st, 3);
    assert_int_equal(store_run(st), 0);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM t"), 3);
    assert_int_equal(query_int(f->s, "SELECT sum(a) FROM t"), 7);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM t WHERE c = 1.5"), 1);
}

static void test_running_statement_survives_other_statements(void **state)
{
    struct fixture *f = migrated(state);
    assert_int_equal(store_exec(f->s, "INSERT INTO settings VALUES ('a', '1'), ('b', '2'),"
                                      " ('c', '3')"),
                     0);
    struct store_stmt *list = store_prepare(f->s, "SELECT name FROM settings ORDER BY name");
    char seen[8] = "";
    size_t n = 0;
    while (store_step(list) == STORE_ROW) {
        seen[n++] = store_col_text(list, 0)[0];
        /* another statement runs on the same connection while the list is open */
        struct store_stmt *up = store_prepare(f->s, "UPDATE settings SET value = ? WHERE name = ?");
        store_bind_text(up, 1, "x");
        store_bind_text(up, 2, store_col_text(list, 0));
        assert_int_equal(store_run(up), 0);
        assert_int_equal(store_changes(f->s), 1);
    }
    store_reset(list);
    assert_string_equal(seen, "abc");
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM settings WHERE value = 'x'"), 3);
}

/* The statement cache is full and evicts (store_cache_find): a running statement keeps its
 * result and its slot, every other statement is prepared again on the server (DEALLOCATE of
 * the one it replaces) and answers its own rows. */
static void test_cache_evicts_but_not_a_running_statement(void **state)
{
    struct fixture *f = migrated(state);
    struct store_stmt *held = store_prepare(f->s, "SELECT 'held' UNION ALL SELECT 'again'");
    assert_int_equal(store_step(held), STORE_ROW); /* running: must not be evicted */
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 400; i++) {
            char sql[64];
            snprintf(sql, sizeof sql, "SELECT %d + CAST(? AS BIGINT)", i);
            struct store_stmt *st = store_prepare(f->s, sql);
            assert_non_null(st);
            store_bind_int(st, 1, round);
            assert_int_equal(store_step(st), STORE_ROW);
            assert_int_equal(store_col_int(st, 0), i + round);
            store_reset(st);
        }
    }
    assert_int_equal(store_step(held), STORE_ROW);
    assert_string_equal(store_col_text(held, 0), "again");
    assert_int_equal(store_step(held), STORE_DONE);
    /* the server holds no more prepared statements than the cache has slots */
    assert_true(query_int(f->s, "SELECT count(*) FROM pg_prepared_statements") <= 128);
}

static void test_constraint_and_failed_transaction(void **state)
{
    struct fixture *f = migrated(state);
    struct store_stmt *st = store_prepare(f->s, "INSERT INTO settings (name, value) VALUES (?, ?)");
    store_bind_text(st, 1, "k");
    store_bind_text(st, 2, "v");
    assert_int_equal(store_run(st), 0);
    assert_int_equal(store_changes(f->s), 1);
    /* outside a transaction: refused, the connection stays usable */
    st = store_prepare(f->s, "INSERT INTO settings (name, value) VALUES (?, ?)");
    store_bind_text(st, 1, "k");
    store_bind_text(st, 2, "w");
    assert_int_equal(store_run(st), STORE_CONSTRAINT);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM settings"), 1);
    /* inside one: the commit of the failed transaction is an error and writes nothing */
    assert_int_equal(store_begin_write(f->s), 0);
    st = store_prepare(f->s, "INSERT INTO settings (name, value) VALUES (?, ?)");
    store_bind_text(st, 1, "other");
    store_bind_text(st, 2, "v");
    assert_int_equal(store_run(st), 0);
    st = store_prepare(f->s, "INSERT INTO settings (name, value) VALUES (?, ?)");
    store_bind_text(st, 1, "k");
    store_bind_text(st, 2, "w");
    assert_int_equal(store_run(st), STORE_CONSTRAINT);
    assert_true(store_commit(f->s) < 0);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM settings"), 1);
}

static void test_write_transaction_holds_the_write_lock(void **state)
{
    struct fixture *f = migrated(state);
    struct store *other = NULL;
    assert_int_equal(store_open(f->uri, false, &other, f->err, sizeof f->err), 0);
    static const char locks[] =
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted";
    assert_int_equal(query_int(other, locks), 0);
    assert_int_equal(store_begin_write(f->s), 0);
    assert_int_equal(query_int(other, locks), 1);
    assert_int_equal(store_commit(f->s), 0);
    assert_int_equal(query_int(other, locks), 0);
    assert_int_equal(store_begin_write(f->s), 0);
    store_rollback(f->s);
    assert_int_equal(query_int(other, locks), 0);
    store_close(other);
}

/* The cache versions (store.h store_data_version): a committed write transaction of another
 * connection moves the content version, a ballot's (store_write_tallies_only) the tally
 * version; a read, a rolled-back write and a write transaction that changed nothing move
 * neither. */
static void test_data_version_moves_on_commits_by_others(void **state)
{
    struct fixture *f = migrated(state);
    struct store *other = NULL;
    assert_int_equal(store_open(f->uri, false, &other, f->err, sizeof f->err), 0);
    uint64_t a[2], b[2], c[2], d[2];
    assert_int_equal(store_data_version(f->s, a), 0);
    assert_int_equal(query_int(other, "SELECT count(*) FROM settings"), 0); /* a read */
    assert_int_equal(store_begin_write(other), 0); /* a write that changes nothing */
    assert_int_equal(store_exec(other, "UPDATE settings SET value = 'x' WHERE name = 'none'"), 0);
    assert_int_equal(store_commit(other), 0);
    assert_int_equal(store_begin_write(other), 0); /* rolled back */
    assert_int_equal(store_exec(other, "INSERT INTO settings VALUES ('r', 'v')"), 0);
    store_rollback(other);
    assert_int_equal(store_data_version(f->s, b), 0);
    assert_true(a[0] == b[0] && a[1] == b[1]);
    assert_int_equal(store_begin_write(other), 0);
    assert_int_equal(store_exec(other, "INSERT INTO settings VALUES ('n', 'v')"), 0);
    assert_int_equal(store_commit(other), 0);
    assert_int_equal(store_data_version(f->s, c), 0);
    assert_true(c[0] != b[0] && c[1] == b[1]);
    assert_int_equal(store_begin_row_write(other), 0); /* a ballot */
    assert_int_equal(store_exec(other, "INSERT INTO settings VALUES ('t', 'v')"), 0);
    store_write_tallies_only(other);
    assert_int_equal(store_commit(other), 0);
    assert_int_equal(store_data_version(f->s, d), 0);
    assert_true(d[0] == c[0] && d[1] != c[1]);
    store_close(other);
}

/* The version lease's rules (store.h store_lease_setup), with explicit times: a poll covers
 * a read from the instant it was sent until exactly one lease later, never a read before it
 * was sent, nothing without a lease; a commit waits longer than the lease. */
static void test_lease_covers_one_lease_after_the_poll_was_sent(void **state)
{
    (void)state;
    const int64_t sent = 5000000, lease = 2000;
    assert_true(store_lease_covers(sent, sent, lease));
    assert_true(store_lease_covers(sent, sent + lease, lease));
    assert_false(store_lease_covers(sent, sent + lease + 1, lease));
    assert_false(store_lease_covers(sent, sent - 1, lease)); /* sent after the read began */
    assert_false(store_lease_covers(sent, sent, 0));         /* no lease */
    assert_int_equal(store_lease_wait_us(0), 0);
    for (int64_t l = 1000; l <= 1000000; l *= 10)
        assert_true(store_lease_wait_us(l) > l + l / 20);
}

/* Per connection: the VERSION LEASED and VERSION READ trace lines (store_trace). */
struct version_reads {
    int leased, own;
};

static void count_version_reads(void *arg, const char *what)
{
    struct version_reads *r = arg;
    if (strcmp(what, "VERSION LEASED") == 0)
        r->leased++;
    else if (strcmp(what, "VERSION READ") == 0)
        r->own++;
}

/* Reads the versions on T until one comes from the watcher's lease (its first poll: at most
 * 4 s), then checks that one did. */
static void wait_leased(struct store *t, const struct version_reads *r)
{
    uint64_t v[2];
    for (int i = 0; i < 400 && r->leased == 0; i++) {
        assert_int_equal(store_data_version(t, v), 0);
        if (r->leased == 0)
            usleep(10000);
    }
    assert_true(r->leased > 0);
}

static void commit_insert(struct store *s, const char *name, bool tallies_only)
{
    char sql[128];
    snprintf(sql, sizeof sql, "INSERT INTO settings VALUES ('%s', 'v')", name);
    assert_int_equal(tallies_only ? store_begin_row_write(s) : store_begin_write(s), 0);
    assert_int_equal(store_exec(s, sql), 0);
    if (tallies_only)
        store_write_tallies_only(s);
    assert_int_equal(store_commit(s), 0);
}

/* The version lease: a request's connection (store_thread) takes the watcher's versions with
 * no round trip of its own, and still sees every write of another connection whose commit
 * returned before it asked, the content version's and the tallies'. That holds because the
 * commit waits the lease (every poll a read may take was sent after it); without the wait a
 * read would take the poll sent up to half a lease before the write (checked). A commit that
 * moved nothing does not wait. */
static void test_lease_answers_reads_and_sees_every_answered_write(void **state)
{
    struct fixture *f = migrated(state);
    const int64_t lease = 200000; /* 200 ms: a poll every 100 ms, on a loaded machine too */
    store_thread_setup(f->uri);
    struct store *t = store_thread();
    assert_non_null(t);
    assert_int_equal(store_lease_setup(f->uri, lease, true), 0);
    struct version_reads r = {0};
    store_trace(t, count_version_reads, &r);
    wait_leased(t, &r);
    uint64_t v[2], w[2];
    int64_t leased0, own0, waits0, leased1, own1, waits1;
    store_lease_counts(&leased0, &own0, &waits0);
    struct store *other = NULL;
    assert_int_equal(store_open(f->uri, false, &other, f->err, sizeof f->err), 0);
    for (int k = 0; k < 6; k++) {
        assert_int_equal(store_data_version(t, v), 0);
        char name[16];
        snprintf(name, sizeof name, "lease%d", k);
        commit_insert(other, name, k % 2 == 1); /* odd: a ballot's, the tally version */
        assert_int_equal(store_data_version(t, w), 0);
        assert_true(k % 2 == 1 ? (w[1] != v[1] && w[0] == v[0]) : (w[0] != v[0] && w[1] == v[1]));
    }
    /* a write transaction that changed nothing moves no version and does not wait */
    assert_int_equal(store_begin_write(other), 0);
    assert_int_equal(store_exec(other, "UPDATE settings SET value = 'x' WHERE name = 'none'"), 0);
    assert_int_equal(store_commit(other), 0);
    store_lease_counts(&leased1, &own1, &waits1);
    assert_int_equal(waits1 - waits0, 6);
    assert_true(leased1 > leased0); /* most of the 12 reads above came from the lease */
    store_close(other);
    store_trace(t, NULL, NULL);
    store_lease_stop();
    /* stopped: every read is the connection's own again */
    r = (struct version_reads){0};
    store_trace(t, count_version_reads, &r);
    assert_int_equal(store_data_version(t, v), 0);
    assert_int_equal(r.own, 1);
    assert_int_equal(r.leased, 0);
    /* and a watcher started again after the stop answers reads again (its condition
     * variable was destroyed by the stop and is made anew) */
    assert_int_equal(store_lease_setup(f->uri, lease, true), 0);
    wait_leased(t, &r);
    store_lease_stop();
    store_trace(t, NULL, NULL);
    store_thread_setup(f->uri); /* closes the thread's connection before teardown drops the db */
}

static void test_read_transaction_is_one_snapshot(void **state)
{
    struct fixture *f = migrated(state);
    struct store *other = NULL;
    assert_int_equal(store_open(f->uri, false, &other, f->err, sizeof f->err), 0);
    assert_int_equal(store_begin_read(f->s), 0);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM settings"), 0);
    assert_int_equal(store_exec(other, "INSERT INTO settings VALUES ('n', 'v')"), 0);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM settings"), 0);
    store_rollback(f->s);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM settings"), 1);
    store_close(other);
}

static const char *query_text(struct store *s, const char *sql, char *out, size_t n)
{
    struct store_stmt *st = store_prepare(s, sql);
    assert_non_null(st);
    assert_int_equal(store_step(st), STORE_ROW);
    snprintf(out, n, "%s", store_col_text(st, 0));
    store_reset(st);
    return out;
}

#define AHEAD_SQL "SELECT 4242 + CAST(? AS BIGINT)"
#define AHEAD_NAME                                                                                 \
    "SELECT name FROM pg_prepared_statements WHERE statement = 'SELECT 4242 + CAST($1 AS BIGINT)'"

/* store_prepare_ahead's statement of a keyed write (app_begin_locked) */
static int ahead(struct store *s, void *arg)
{
    (void)arg;
    struct store_stmt *st = store_prepare(s, AHEAD_SQL);
    store_bind_int(st, 1, 1);
    return store_step(st);
}

/* A statement prepared ahead stays in the cache until its transaction ends, however many
 * others are prepared under the transaction's key lock (more than the cache holds): the
 * write never prepares it again while it holds the lock (issue 20). */
static void test_prepared_ahead_stays_until_the_transaction_ends(void **state)
{
    struct fixture *f = migrated(state);
    assert_int_equal(store_prepare_ahead(f->s, ahead, NULL), 0);
    char before[32], after[32];
    query_text(f->s, AHEAD_NAME, before, sizeof before);
    assert_int_equal(store_begin_row_write(f->s), 0);
    assert_int_equal(store_lock_key(f->s, "test:pins"), 0);
    log_set_level(LOG_ERROR); /* each prepare under the lock logs a warning */
    for (int i = 0; i < 300; i++) {
        char sql[64];
        snprintf(sql, sizeof sql, "SELECT %d + CAST(? AS BIGINT)", i);
        struct store_stmt *st = store_prepare(f->s, sql);
        store_bind_int(st, 1, 0);
        assert_int_equal(store_step(st), STORE_ROW);
        store_reset(st);
    }
    log_set_level(LOG_INFO);
    struct store_stmt *st = store_prepare(f->s, AHEAD_SQL);
    store_bind_int(st, 1, 1);
    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 4243);
    store_reset(st);
    /* the same server-side statement: it was not prepared again */
    assert_string_equal(query_text(f->s, AHEAD_NAME, after, sizeof after), before);
    assert_int_equal(store_commit(f->s), 0);
}

/* A read opens with its first statement (BEGIN, the request's budget and the statement in
 * one pipeline) and its ROLLBACK is not waited for: the budget holds inside the read only,
 * a failed read leaves nothing behind, and the next read or write sees what others did. */
static void test_read_opens_with_its_first_statement(void **state)
{
    struct fixture *f = migrated(state);
    char v[64];
    store_thread_setup(f->uri);
    struct store *s = store_thread();
    struct store *other = NULL;
    assert_int_equal(store_open(f->uri, false, &other, f->err, sizeof f->err), 0);
    for (int round = 0; round < 3; round++) {
        assert_int_equal(store_begin_read(s), 0);
        assert_string_not_equal(
            query_text(s, "SELECT current_setting('statement_timeout')", v, sizeof v), "0");
        assert_int_equal(query_int(s, "SELECT count(*) FROM settings"), round);
        snprintf(v, sizeof v, "INSERT INTO settings VALUES ('n%d', 'v')", round);
        assert_int_equal(store_exec(other, v), 0);
        assert_int_equal(query_int(s, "SELECT count(*) FROM settings"), round);
        if (round == 1) {
            /* a failing statement: the read is rolled back all the same */
            struct store_stmt *st = store_prepare(s, "SELECT 1 / (SELECT count(*) - count(*)"
                                                     " FROM settings)");
            assert_true(store_step(st) < 0);
            store_reset(st);
        }
        store_rollback(s);
    }
    assert_ptr_equal(store_thread(), s);
    assert_string_equal(query_text(s, "SELECT current_setting('statement_timeout')", v, sizeof v),
                        "0");
    /* a read that ran nothing, then a write right after a read */
    assert_int_equal(store_begin_read(s), 0);
    store_rollback(s);
    assert_int_equal(store_begin_read(s), 0);
    assert_int_equal(query_int(s, "SELECT count(*) FROM settings"), 3);
    store_rollback(s);
    assert_int_equal(store_begin_write(s), 0);
    assert_int_equal(store_exec(s, "INSERT INTO settings VALUES ('w', 'v')"), 0);
    assert_int_equal(store_commit(s), 0);
    assert_int_equal(query_int(other, "SELECT count(*) FROM settings"), 4);
    store_close(other);
    store_thread_setup(f->uri); /* closes the thread's connection before teardown drops the db */
}

/* ---- a connection the server ended heals itself ---------------------------------- */

/* Ends s's session from the admin connection (as a server restart does) and waits, bounded,
 * until the server no longer lists it. Returns the pid that was ended. */
static int64_t terminate(struct fixture *f, struct store *s)
{
    int64_t pid = query_int(s, "SELECT pg_backend_pid()");
    struct store_stmt *st = store_prepare(f->admin, "SELECT pg_terminate_backend(CAST(? AS INT))");
    store_bind_int(st, 1, pid);
    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 1);
    store_reset(st);
    for (int i = 0; i < 500; i++) {
        st = store_prepare(f->admin, "SELECT count(*) FROM pg_stat_activity WHERE pid = ?");
        store_bind_int(st, 1, pid);
        assert_int_equal(store_step(st), STORE_ROW);
        int64_t n = store_col_int(st, 0);
        store_reset(st);
        if (n == 0)
            break;
        usleep(10000);
    }
    return pid;
}

static void test_thread_connection_reopens_after_termination(void **state)
{
    struct fixture *f = migrated(state);
    store_thread_setup(f->uri);
    struct store *s = store_thread();
    assert_non_null(s);
    /* a statement prepared on the old connection */
    assert_int_equal(query_int(s, "SELECT count(*) FROM schema_version"), store_known_version());
    int64_t pid = terminate(f, s);
    /* the same handle comes back, and a request's first transaction works on it: the idle
     * check found the closed socket (or, when the server's goodbye is still in flight, the
     * transaction's first statement finds it and reconnects) */
    assert_ptr_equal(store_thread(), s);
    assert_int_equal(store_begin_read(s), 0);
    assert_true(query_int(s, "SELECT pg_backend_pid()") != pid);
    assert_int_equal(query_int(s, "SELECT count(*) FROM schema_version"), store_known_version());
    store_rollback(s);
    store_thread_setup(f->uri); /* closes the thread's connection before teardown drops the db */
}

static void test_first_statement_of_a_transaction_reconnects(void **state)
{
    struct fixture *f = migrated(state);
    int64_t pid = terminate(f, f->s);
    /* nothing was done yet: begin reopens the connection and runs again */
    assert_int_equal(store_begin_read(f->s), 0);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM schema_version"), store_known_version());
    store_rollback(f->s);
    assert_true(query_int(f->s, "SELECT pg_backend_pid()") != pid);
    pid = terminate(f, f->s);
    assert_int_equal(store_begin_write(f->s), 0);
    assert_int_equal(store_exec(f->s, "INSERT INTO schema_version VALUES (998, 0)"), 0);
    assert_int_equal(store_commit(f->s), 0);
    /* a connection lost inside a transaction is not retried: STORE_GONE, then healed */
    assert_int_equal(store_begin_read(f->s), 0);
    terminate(f, f->s);
    struct store_stmt *st = store_prepare(f->s, "SELECT count(*) FROM schema_version");
    assert_int_equal(store_step(st), STORE_GONE);
    store_reset(st);
    store_rollback(f->s);
    uint64_t v[2];
    assert_int_equal(store_data_version(f->s, v), 0);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM schema_version WHERE version = 998"), 1);
}

/* The write probe of /readyz: refused (with PostgreSQL's reason) in a read-only session,
 * leaves nothing behind, and a probe of another connection holding the row counts as
 * writable instead of being waited for. */
static void test_write_probe(void **state)
{
    struct fixture *f = migrated(state);
    char why[200];
    assert_int_equal(store_write_probe(f->s, why, sizeof why), 0);
    assert_string_equal(why, "");
    assert_int_equal(query_int(f->s, "SELECT n FROM store_probe WHERE id = 1"), 0);

    struct store *other = NULL;
    assert_int_equal(store_open(f->uri, false, &other, f->err, sizeof f->err), 0);
    assert_int_equal(store_exec(other, "BEGIN; SELECT id FROM store_probe FOR UPDATE"), 0);
    assert_int_equal(store_write_probe(f->s, why, sizeof why), 0);
    store_rollback(other);
    store_close(other);

    assert_int_equal(store_exec(f->s, "SET default_transaction_read_only = on"), 0);
    assert_true(store_write_probe(f->s, why, sizeof why) < 0);
    assert_non_null(strstr(why, "read-only"));
    assert_int_equal(query_int(f->s, "SELECT 1"), 1); /* a refusal, not a lost connection */
    assert_int_equal(store_exec(f->s, "SET default_transaction_read_only = off"), 0);
    assert_int_equal(store_write_probe(f->s, why, sizeof why), 0);
    assert_int_equal(query_int(f->s, "SELECT n FROM store_probe WHERE id = 1"), 0);
}

int main(void)
{
    log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_uri_selects_the_driver, setup_db, teardown_db),
        cmocka_unit_test_setup_teardown(test_thread_connection_reopens_after_termination, setup_db,
                                        teardown_db),
        cmocka_unit_test_setup_teardown(test_first_statement_of_a_transaction_reconnects, setup_db,
                                        teardown_db),
        cmocka_unit_test_setup_teardown(test_open_unreachable_is_gone, setup_db, teardown_db),
        cmocka_unit_test_setup_teardown(test_migrate_is_idempotent_and_refuses_newer, setup_db,
                                        teardown_db),
        cmocka_unit_test_setup_teardown(test_placeholders_numbered_outside_quotes_and_comments,
                                        setup_db, teardown_db),
        cmocka_unit_test_setup_teardown(test_booleans_and_wide_integers, setup_db, teardown_db),
        cmocka_unit_test_setup_teardown(test_parameter_types_follow_the_bind_function, setup_db,
                                        teardown_db),
        cmocka_unit_test_setup_teardown(test_running_statement_survives_other_statements, setup_db,
                                        teardown_db),
        cmocka_unit_test_setup_teardown(test_cache_evicts_but_not_a_running_statement, setup_db,
                                        teardown_db),
        cmocka_unit_test_setup_teardown(test_prepared_ahead_stays_until_the_transaction_ends,
                                        setup_db, teardown_db),
        cmocka_unit_test_setup_teardown(test_constraint_and_failed_transaction, setup_db,
                                        teardown_db),
        cmocka_unit_test_setup_teardown(test_write_transaction_holds_the_write_lock, setup_db,
                                        teardown_db),
        cmocka_unit_test_setup_teardown(test_data_version_moves_on_commits_by_others, setup_db,
                                        teardown_db),
        cmocka_unit_test(test_lease_covers_one_lease_after_the_poll_was_sent),
        cmocka_unit_test_setup_teardown(test_lease_answers_reads_and_sees_every_answered_write,
                                        setup_db, teardown_db),
        cmocka_unit_test_setup_teardown(test_read_transaction_is_one_snapshot, setup_db,
                                        teardown_db),
        cmocka_unit_test_setup_teardown(test_write_probe, setup_db, teardown_db),
        cmocka_unit_test_setup_teardown(test_read_opens_with_its_first_statement, setup_db,
                                        teardown_db),
    };
    return cmocka_run_group_tests_name("store_pg", tests, NULL, NULL);
}
