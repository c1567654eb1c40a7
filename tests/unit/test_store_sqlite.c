/*
 * Unit tests for src/store/sqlite.c and src/store/migrate.c against a real SQLite
 * database in a temporary file: open, migrations, the statement cache, bind / step /
 * column, constraint mapping, transactions and the per-thread connection.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "store/driver.h"
#include "store/store.h"
#include "util/log.h"

struct fixture {
    char path[64];
    struct store *s;
    char err[512];
};

static void remove_db_files(const char *path)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s%s", path, suffixes[i]);
        unlink(p);
    }
}

/* A fresh temporary file, opened (create) but not migrated. */
static int setup_db(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->path, sizeof f->path, "/tmp/whistle-unit-XXXXXX");
    int fd = mkstemp(f->path);
    if (fd < 0) {
        free(f);
        return -1;
    }
    close(fd);
    if (store_open(f->path, true, &f->s, f->err, sizeof f->err) != 0) {
        fprintf(stderr, "setup: %s\n", f->err);
        remove_db_files(f->path);
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
    remove_db_files(f->path);
    free(f);
    return 0;
}

static int setup_migrated(void **state)
{
    if (setup_db(state) != 0)
        return -1;
    struct fixture *f = *state;
    if (store_migrate(f->s, f->err, sizeof f->err) != 0) {
        fprintf(stderr, "setup: %s\n", f->err);
        teardown_db(state);
        return -1;
    }
    return 0;
}

/* The single integer a one-row query returns. */
static int64_t query_int(struct store *s, const char *sql)
{
    struct store_stmt *st = store_prepare(s, sql);
    assert_non_null(st);
    assert_int_equal(store_step(st), STORE_ROW);
    int64_t v = store_col_int(st, 0);
    store_reset(st);
    return v;
}

static bool table_exists(struct store *s, const char *name)
{
    struct store_stmt *st =
        store_prepare(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?");
    assert_non_null(st);
    store_bind_text(st, 1, name);
    assert_int_equal(store_step(st), STORE_ROW);
    bool yes = store_col_int(st, 0) == 1;
    store_reset(st);
    return yes;
}

/* ---- open ------------------------------------------------------------------------- */

static void test_open_configures_connection(void **state)
{
    struct fixture *f = *state;
    struct store_stmt *st = store_prepare(f->s, "PRAGMA journal_mode");
    assert_non_null(st);
    assert_int_equal(store_step(st), STORE_ROW);
    assert_string_equal(store_col_text(st, 0), "wal");
    store_reset(st);
    assert_int_equal(query_int(f->s, "PRAGMA foreign_keys"), 1);
    assert_int_equal(query_int(f->s, "PRAGMA synchronous"), 2); /* FULL */
    assert_true(query_int(f->s, "PRAGMA busy_timeout") > 0);
}

static void test_open_missing_without_create(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/whistle-unit-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path); /* a name that surely does not exist */

    struct store *s = NULL;
    char err[512] = "";
    int rc = store_open(path, false, &s, err, sizeof err);
    assert_int_equal(rc, STORE_GONE);
    assert_null(s);
    assert_non_null(strstr(err, "cannot open database"));
    assert_non_null(strstr(err, path));
    assert_int_equal(access(path, F_OK), -1); /* and nothing was created */

    /* a directory that does not exist cannot be created into either */
    rc = store_open("/nonexistent-whistle-dir/x.db", true, &s, err, sizeof err);
    assert_int_equal(rc, STORE_GONE);
    assert_null(s);
    assert_non_null(strstr(err, "/nonexistent-whistle-dir/x.db"));
}

static void test_open_not_a_database(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/whistle-unit-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char junk[] = "this is not an SQLite database, just some text. ";
    for (int i = 0; i < 200; i++)
        assert_int_equal(write(fd, junk, sizeof junk - 1), (ssize_t)(sizeof junk - 1));
    close(fd);

    struct store *s = NULL;
    char err[512] = "";
    int rc = store_open(path, false, &s, err, sizeof err);
    remove_db_files(path);
    assert_int_equal(rc, STORE_GONE);
    assert_null(s);
    assert_non_null(strstr(err, "cannot open database"));
}

static void test_reopen_existing_without_create(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(store_migrate(f->s, f->err, sizeof f->err), 0);
    store_close(f->s);
    f->s = NULL;
    assert_int_equal(store_open(f->path, false, &f->s, f->err, sizeof f->err), 0);
    assert_non_null(f->s);
    assert_int_equal(store_schema_version(f->s), store_known_version());
    assert_true(table_exists(f->s, "incidents"));
}

/* ---- migrations ------------------------------------------------------------------- */

static void test_migrate_fresh_and_twice(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(store_migrate(f->s, f->err, sizeof f->err), 0);
    assert_int_equal(store_schema_version(f->s), store_known_version());
    static const char *const tables[] = {"schema_version", "teams",          "games",
                                         "incidents",      "incident_slugs", "questions",
                                         "sources",        "ballots",        "vote_tallies"};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (!table_exists(f->s, tables[i]))
            fail_msg("table %s missing after migration", tables[i]);
    int64_t applied = query_int(f->s, "SELECT applied_at FROM schema_version WHERE version = 1");
    assert_true(applied > INT64_C(1704067200000000)); /* microseconds, after 2024 */
    int64_t recorded = query_int(f->s, "SELECT count(*) FROM schema_version");
    /* the migration's temporary storage on disk (026 copies every fragment), the
     * connection's own in memory again after it */
    assert_int_equal(query_int(f->s, "PRAGMA temp_store"), 2);

    /* again: nothing to do, nothing changes */
    assert_int_equal(store_migrate(f->s, f->err, sizeof f->err), 0);
    assert_int_equal(store_schema_version(f->s), store_known_version());
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM schema_version"), recorded);
    assert_int_equal(query_int(f->s, "SELECT applied_at FROM schema_version WHERE version = 1"),
                     applied);

    /* and from a second connection to the same file */
    struct store *s2 = NULL;
    assert_int_equal(store_open(f->path, false, &s2, f->err, sizeof f->err), 0);
    assert_int_equal(store_migrate(s2, f->err, sizeof f->err), 0);
    assert_int_equal(store_schema_version(s2), store_known_version());
    store_close(s2);
}

static void test_migrate_refuses_newer_schema(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(store_exec(f->s, "CREATE TABLE schema_version (version INTEGER PRIMARY KEY,"
                                      " applied_at BIGINT NOT NULL);"
                                      "INSERT INTO schema_version VALUES (999, 0)"),
                     STORE_DONE);
    f->err[0] = '\0';
    int rc = store_migrate(f->s, f->err, sizeof f->err);
    assert_true(rc < 0);
    assert_non_null(strstr(f->err, "999"));
    /* nothing was applied, and no transaction was left open */
    assert_false(table_exists(f->s, "teams"));
    assert_int_equal(store_schema_version(f->s), 999);
    assert_int_equal(store_begin_write(f->s), STORE_DONE);
    store_rollback(f->s);
}

static void test_migrate_version_two_refused(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(store_migrate(f->s, f->err, sizeof f->err), 0);
    char sql[80], want[32];
    int next = store_known_version() + 1;
    snprintf(sql, sizeof sql, "INSERT INTO schema_version VALUES (%d, 0)", next);
    snprintf(want, sizeof want, "version %d", next);
    assert_int_equal(store_exec(f->s, sql), STORE_DONE);
    assert_true(store_migrate(f->s, f->err, sizeof f->err) < 0);
    assert_non_null(strstr(f->err, want));
}

/* ---- statement cache -------------------------------------------------------------- */

static void test_prepare_cache_reuses_and_resets(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(store_exec(f->s, "CREATE TABLE t (n INTEGER);"
                                      "INSERT INTO t VALUES (1), (2), (3)"),
                     STORE_DONE);
    const char *sql = "SELECT n FROM t WHERE n >= coalesce(?, 0) ORDER BY n";
    struct store_stmt *st = store_prepare(f->s, sql);
    assert_non_null(st);
    store_bind_int(st, 1, 2);
    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 2);
    /* abandoned mid-iteration with a binding: the next prepare resets and clears it */
    for (int round = 0; round < 50; round++) {
        struct store_stmt *again = store_prepare(f->s, sql);
        assert_ptr_equal(again, st);
        int64_t want = 1;
        int rc;
        while ((rc = store_step(again)) == STORE_ROW)
            assert_int_equal(store_col_int(again, 0), want++);
        assert_int_equal(rc, STORE_DONE);
        assert_int_equal(want, 4);
        store_bind_int(again, 1, 3);
    }
    /* a copy of the text in another buffer hits the same cache entry */
    char copy[128];
    snprintf(copy, sizeof copy, "%s", sql);
    assert_ptr_equal(store_prepare(f->s, copy), st);
}

static void test_prepare_many_distinct_statements(void **state)
{
    struct fixture *f = *state;
    /* more texts than the cache holds: each still prepares and runs */
    for (int i = 0; i < 400; i++) {
        char sql[64];
        snprintf(sql, sizeof sql, "SELECT %d + 1", i);
        struct store_stmt *st = store_prepare(f->s, sql);
        assert_non_null(st);
        assert_int_equal(store_step(st), STORE_ROW);
        assert_int_equal(store_col_int(st, 0), i + 1);
        assert_int_equal(store_step(st), STORE_DONE);
    }
    for (int i = 399; i >= 0; i--) {
        char sql[64];
        snprintf(sql, sizeof sql, "SELECT %d + 1", i);
        assert_int_equal(query_int(f->s, sql), i + 1);
    }
}

/*
 * store.h: once stepped (and until reset) a statement stays valid while other statements
 * are prepared, even when the cache is full and evicts. (Checked through SQLite's list of
 * live statements, so no freed memory is touched.)
 */
static void test_prepared_statement_survives_other_prepares(void **state)
{
    struct fixture *f = *state;
    struct store_stmt *held = store_prepare(f->s, "SELECT 'held' UNION ALL SELECT 'again'");
    assert_non_null(held);
    assert_int_equal(store_step(held), STORE_ROW); /* running: must not be evicted */
    for (int i = 0; i < 1000; i++) {
        char sql[64];
        snprintf(sql, sizeof sql, "SELECT %d", i);
        assert_non_null(store_prepare(f->s, sql));
    }
    /* an evicted handle would now be another statement (or a finalized one) */
    assert_int_equal(store_step(held), STORE_ROW);
    assert_string_equal(store_col_text(held, 0), "again");
    assert_int_equal(store_step(held), STORE_DONE);
}

/* store_cache_find itself (driver.h), on a table of 4 entries: a hit, the free entry where a
 * probe ends, and when the table is full the first entry from the slot on that is not
 * running. */
struct fake_entry {
    struct store_cached k;
    bool running;
};

static bool fake_running(const struct store_cached *e)
{
    return ((const struct fake_entry *)e)->running;
}

static void test_cache_find_probe(void **state)
{
    (void)state;
    struct fake_entry t[4] = {0};
    char sql[4][64];
    bool hit;
    /* empty: the entry at the slot of the hash */
    uint64_t h = store_sql_hash("A");
    struct store_cached *e = store_cache_find(t, 4, sizeof t[0], "A", h, fake_running, &hit);
    assert_false(hit);
    assert_ptr_equal(e, &t[h % 4].k);
    /* fill all four, in probe order from each one's slot */
    for (int i = 0; i < 4; i++) {
        snprintf(sql[i], sizeof sql[i], "S%d", i);
        uint64_t hi = store_sql_hash(sql[i]);
        e = store_cache_find(t, 4, sizeof t[0], sql[i], hi, fake_running, &hit);
        assert_false(hit);
        e->hash = hi;
        e->sql = sql[i];
    }
    for (int i = 0; i < 4; i++) {
        char copy[64];
        snprintf(copy, sizeof copy, "S%d", i); /* the same text in another buffer */
        e = store_cache_find(t, 4, sizeof t[0], copy, store_sql_hash(copy), fake_running, &hit);
        assert_true(hit);
        assert_ptr_equal(e->sql, sql[i]);
    }
    /* full: a miss takes the first entry from its slot on that is not running */
    uint64_t hx = store_sql_hash("X");
    size_t slot = hx % 4;
    t[slot].running = true;
    t[(slot + 1) % 4].running = true;
    e = store_cache_find(t, 4, sizeof t[0], "X", hx, fake_running, &hit);
    assert_false(hit);
    assert_ptr_equal(e, &t[(slot + 2) % 4].k);
}

static void test_prepare_bad_sql(void **state)
{
    struct fixture *f = *state;
    assert_null(store_prepare(f->s, "SELEC nonsense"));
    assert_null(store_prepare(f->s, "SELECT * FROM no_such_table"));
    assert_true(strlen(store_errmsg(f->s)) > 0);
    /* the connection still works */
    assert_int_equal(query_int(f->s, "SELECT 7"), 7);
}

/* ---- bind / step / column --------------------------------------------------------- */

static void test_bind_and_columns(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(store_exec(f->s, "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER,"
                                      " s TEXT, m INTEGER)"),
                     STORE_DONE);
    const char *ins = "INSERT INTO t (id, n, s, m) VALUES (?, ?, ?, ?)";
    struct store_stmt *st = store_prepare(f->s, ins);
    assert_non_null(st);
    store_bind_int(st, 1, 1);
    store_bind_int(st, 2, 42);
    store_bind_text(st, 3, "caf\xc3\xa9 \"quoted\" 'single'");
    store_bind_int(st, 4, -7);
    assert_int_equal(store_step(st), STORE_DONE);
    assert_int_equal(store_changes(f->s), 1);

    st = store_prepare(f->s, ins);
    store_bind_int(st, 1, 2);
    store_bind_int(st, 2, STORE_NULL_INT);
    store_bind_text(st, 3, NULL);
    store_bind_null(st, 4);
    assert_int_equal(store_step(st), STORE_DONE);

    st = store_prepare(f->s, ins);
    store_bind_int(st, 1, 3);
    store_bind_int(st, 2, INT64_MAX);
    store_bind_text(st, 3, "");
    store_bind_int(st, 4, INT64_MIN + 1);
    assert_int_equal(store_step(st), STORE_DONE);

    /* parameters left unbound are null */
    st = store_prepare(f->s, ins);
    store_bind_int(st, 1, 4);
    assert_int_equal(store_step(st), STORE_DONE);

    st = store_prepare(f->s, "SELECT id, n, s, m FROM t ORDER BY id");
    assert_non_null(st);
    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 1);
    assert_int_equal(store_col_int(st, 1), 42);
    assert_string_equal(store_col_text(st, 2), "caf\xc3\xa9 \"quoted\" 'single'");
    assert_int_equal(store_col_int(st, 3), -7);
    assert_false(store_col_null(st, 1));
    assert_string_equal(store_col_text(st, 1), "42");

    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 2);
    assert_true(store_col_int(st, 1) == STORE_NULL_INT);
    assert_true(store_col_null(st, 1));
    assert_null(store_col_text(st, 2));
    assert_true(store_col_null(st, 2));
    assert_true(store_col_int(st, 3) == STORE_NULL_INT);

    assert_int_equal(store_step(st), STORE_ROW);
    assert_true(store_col_int(st, 1) == INT64_MAX);
    assert_string_equal(store_col_text(st, 2), "");
    assert_false(store_col_null(st, 2));
    assert_true(store_col_int(st, 3) == INT64_MIN + 1);

    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 4);
    assert_true(store_col_null(st, 1));
    assert_true(store_col_null(st, 2));
    assert_true(store_col_null(st, 3));

    assert_int_equal(store_step(st), STORE_DONE);
    store_reset(st);

    /* a NULL bound through STORE_NULL_INT matches IS NULL */
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM t WHERE n IS NULL"), 2);

    struct store_stmt *up = store_prepare(f->s, "UPDATE t SET m = 0 WHERE id > ?");
    store_bind_int(up, 1, 1);
    assert_int_equal(store_step(up), STORE_DONE);
    assert_int_equal(store_changes(f->s), 3);
}

/* ---- errors ----------------------------------------------------------------------- */

static void test_constraint_violations(void **state)
{
    struct fixture *f = *state;
    struct store_stmt *st = store_prepare(
        f->s, "INSERT INTO teams (id, name, abbreviation, league) VALUES (?, ?, ?, ?)");
    assert_non_null(st);
    store_bind_text(st, 1, "osu");
    store_bind_text(st, 2, "Ohio State");
    store_bind_text(st, 3, "OSU");
    store_bind_text(st, 4, "college");
    assert_int_equal(store_step(st), STORE_DONE);

    /* primary key */
    st = store_prepare(f->s,
                       "INSERT INTO teams (id, name, abbreviation, league) VALUES (?, ?, ?, ?)");
    store_bind_text(st, 1, "osu");
    store_bind_text(st, 2, "Again");
    store_bind_text(st, 3, "AG");
    store_bind_text(st, 4, "college");
    assert_int_equal(store_step(st), STORE_CONSTRAINT);
    /* the statement is reset and usable again with other values */
    store_bind_text(st, 1, "tex");
    assert_int_equal(store_step(st), STORE_DONE);

    /* NOT NULL */
    st = store_prepare(f->s,
                       "INSERT INTO teams (id, name, abbreviation, league) VALUES (?, ?, ?, ?)");
    store_bind_text(st, 1, "nn");
    store_bind_text(st, 2, NULL);
    store_bind_text(st, 3, "NN");
    store_bind_text(st, 4, "nfl");
    assert_int_equal(store_step(st), STORE_CONSTRAINT);

    /* CHECK */
    st = store_prepare(f->s,
                       "INSERT INTO teams (id, name, abbreviation, league) VALUES (?, ?, ?, ?)");
    store_bind_text(st, 1, "xfl");
    store_bind_text(st, 2, "XFL team");
    store_bind_text(st, 3, "X");
    store_bind_text(st, 4, "xfl");
    assert_int_equal(store_step(st), STORE_CONSTRAINT);

    /* FOREIGN KEY (foreign_keys is on for every connection) */
    struct store_stmt *g = store_prepare(
        f->s, "INSERT INTO games (id, home_team_id, away_team_id, status, season, week, league,"
              " season_type, created_at, updated_at) VALUES (?, ?, ?, 'upcoming', 2025, 1,"
              " 'college', 'regular', 0, 0)");
    assert_non_null(g);
    store_bind_text(g, 1, "g1");
    store_bind_text(g, 2, "osu");
    store_bind_text(g, 3, "no-such-team");
    assert_int_equal(store_step(g), STORE_CONSTRAINT);
    store_bind_text(g, 1, "g1");
    store_bind_text(g, 2, "osu");
    store_bind_text(g, 3, "tex");
    assert_int_equal(store_step(g), STORE_DONE);

    assert_int_equal(query_int(f->s, "SELECT count(*) FROM teams"), 2);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM games"), 1);

    /* store_exec maps the same way */
    assert_int_equal(store_exec(f->s, "INSERT INTO teams (id, name, abbreviation)"
                                      " VALUES ('osu', 'x', 'y')"),
                     STORE_CONSTRAINT);
}

static void test_exec(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(store_exec(f->s, "CREATE TABLE a (x INTEGER); CREATE TABLE b (y TEXT);"
                                      "INSERT INTO a VALUES (1); INSERT INTO a VALUES (2)"),
                     STORE_DONE);
    assert_int_equal(query_int(f->s, "SELECT sum(x) FROM a"), 3);
    assert_int_equal(store_exec(f->s, "THIS IS NOT SQL"), STORE_ERR);
    assert_int_equal(store_exec(f->s, "SELECT * FROM missing_table"), STORE_ERR);
    assert_int_equal(store_exec(f->s, ""), STORE_DONE);
}

/* ---- transactions ----------------------------------------------------------------- */

static void test_transactions(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(store_exec(f->s, "CREATE TABLE t (n INTEGER)"), STORE_DONE);

    assert_int_equal(store_begin_write(f->s), STORE_DONE);
    assert_int_equal(store_exec(f->s, "INSERT INTO t VALUES (1)"), STORE_DONE);
    store_rollback(f->s);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM t"), 0);

    assert_int_equal(store_begin_write(f->s), STORE_DONE);
    assert_int_equal(store_exec(f->s, "INSERT INTO t VALUES (2)"), STORE_DONE);
    assert_int_equal(store_commit(f->s), STORE_DONE);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM t"), 1);

    /* the committed row is visible to another connection; the rolled-back one is not */
    struct store *s2 = NULL;
    assert_int_equal(store_open(f->path, false, &s2, f->err, sizeof f->err), 0);
    assert_int_equal(store_begin_read(s2), STORE_DONE);
    assert_int_equal(query_int(s2, "SELECT sum(n) FROM t"), 2);
    assert_int_equal(store_commit(s2), STORE_DONE);
    store_close(s2);

    /* rollback outside a transaction is harmless; commit outside one is an error */
    store_rollback(f->s);
    assert_true(store_commit(f->s) < 0);
    /* nested begin is an error, and the outer transaction survives it */
    assert_int_equal(store_begin_write(f->s), STORE_DONE);
    assert_true(store_begin_write(f->s) < 0);
    assert_int_equal(store_exec(f->s, "INSERT INTO t VALUES (3)"), STORE_DONE);
    assert_int_equal(store_commit(f->s), STORE_DONE);
    assert_int_equal(query_int(f->s, "SELECT sum(n) FROM t"), 5);
}

/* The write probe of /readyz: nothing lasts (no commit, so caches keyed on the data version
 * stay valid), no transaction is left open, and a write lock held elsewhere counts as
 * writable instead of being waited for. A read-only file: tests/http/test_http_rules.py. */
static void test_write_probe(void **state)
{
    struct fixture *f = *state;
    char why[200];
    uint64_t v0[2], v1[2];
    assert_int_equal(store_data_version(f->s, v0), STORE_DONE);
    assert_int_equal(store_write_probe(f->s, why, sizeof why), STORE_DONE);
    assert_string_equal(why, "");
    assert_int_equal(store_data_version(f->s, v1), STORE_DONE);
    assert_memory_equal(v0, v1, sizeof v0);
    assert_int_equal(query_int(f->s, "SELECT n FROM store_probe WHERE id = 1"), 0);
    assert_int_equal(query_int(f->s, "SELECT count(*) FROM store_probe"), 1);
    assert_int_equal(store_begin_write(f->s), STORE_DONE); /* nothing was left open */
    store_rollback(f->s);

    struct store *s2 = NULL;
    assert_int_equal(store_open(f->path, false, &s2, f->err, sizeof f->err), 0);
    assert_int_equal(store_begin_write(s2), STORE_DONE);
    assert_int_equal(store_write_probe(f->s, why, sizeof why), STORE_DONE);
    store_rollback(s2);
    store_close(s2);
    assert_int_equal(store_begin_write(f->s), STORE_DONE);
    store_rollback(f->s);
}

/* The writer gate (sqlite.c): writers of one process queue on it instead of SQLite's
 * sleeping busy handler, and every way a write transaction ends lets the next one in (a
 * leaked gate would make the next begin wait 5 s and answer STORE_BUSY). */
struct gate_writer {
    const char *path;
    atomic_int began;
    int rc;
};

static void *gate_writer_run(void *arg)
{
    struct gate_writer *w = arg;
    struct store *s = NULL;
    char err[256];
    w->rc = store_open(w->path, false, &s, err, sizeof err);
    if (w->rc == 0)
        w->rc = store_begin_write(s);
    atomic_store(&w->began, 1);
    if (w->rc == 0)
        w->rc = store_exec(s, "INSERT INTO t VALUES (10)");
    if (w->rc == 0)
        w->rc = store_commit(s);
    store_close(s);
    return NULL;
}

static void test_writer_gate(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(store_exec(f->s, "CREATE TABLE t (n INTEGER)"), STORE_DONE);

    /* a second writer waits while the first holds the write, and gets in at its commit */
    assert_int_equal(store_begin_write(f->s), STORE_DONE);
    struct gate_writer w = {.path = f->path};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, gate_writer_run, &w), 0);
    nanosleep(&(struct timespec){.tv_nsec = 100 * 1000000L}, NULL);
    assert_int_equal(atomic_load(&w.began), 0);
    assert_int_equal(store_exec(f->s, "INSERT INTO t VALUES (1)"), STORE_DONE);
    assert_int_equal(store_commit(f->s), STORE_DONE);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(w.rc, STORE_DONE);
    assert_int_equal(query_int(f->s, "SELECT sum(n) FROM t"), 11);

    /* the gate is let go by a rollback, a failed begin inside a transaction, and a close
     * with the transaction still open */
    struct store *s2 = NULL;
    assert_int_equal(store_open(f->path, false, &s2, f->err, sizeof f->err), 0);
    assert_int_equal(store_begin_write(s2), STORE_DONE);
    store_rollback(s2);
    assert_int_equal(store_begin_write(f->s), STORE_DONE);
    assert_true(store_begin_write(f->s) < 0);
    assert_int_equal(store_commit(f->s), STORE_DONE);
    assert_int_equal(store_begin_write(s2), STORE_DONE);
    assert_int_equal(store_exec(s2, "INSERT INTO t VALUES (100)"), STORE_DONE);
    store_close(s2); /* rolls back */
    assert_int_equal(store_begin_write(f->s), STORE_DONE);
    assert_int_equal(query_int(f->s, "SELECT sum(n) FROM t"), 11);
    assert_int_equal(store_commit(f->s), STORE_DONE);
}

/* ---- per-thread connection -------------------------------------------------------- */

static void test_thread_connection(void **state)
{
    struct fixture *f = *state;
    store_thread_setup(f->path);
    struct store *a = store_thread();
    assert_non_null(a);
    assert_ptr_equal(store_thread(), a);
    assert_int_equal(store_schema_version(a), store_known_version());

    /* a connection marked broken is reopened in place: the same handle, working */
    a->broken = true;
    assert_ptr_equal(store_thread(), a);
    assert_false(a->broken);
    assert_int_equal(query_int(a, "SELECT 1"), 1);

    /* a transaction left open (a bug) is rolled back before the connection is handed out */
    assert_int_equal(store_begin_write(a), STORE_DONE);
    assert_int_equal(store_exec(a, "CREATE TABLE left_open (n INTEGER)"), STORE_DONE);
    assert_ptr_equal(store_thread(), a);
    assert_int_equal(store_begin_write(a), STORE_DONE);
    assert_int_equal(query_int(a, "SELECT count(*) FROM sqlite_schema"
                                  " WHERE name = 'left_open'"),
                     0);
    store_rollback(a);

    /* a database that cannot be opened gives NULL, not a crash */
    char missing[80];
    snprintf(missing, sizeof missing, "%s-missing", f->path);
    store_thread_setup(missing);
    assert_null(store_thread());
    assert_null(store_thread());
    store_thread_setup(f->path); /* closes nothing: the thread has no connection */
}

/* ---- the file's lock held for the process's life (store_hold_file) ---------------- */

/* Whether this process holds a POSIX lock on the SHARED range of path's file (SQLite's
 * SHARED_FIRST, 0x40000002), as /proc/locks says. */
static bool holds_shared(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    char want[64], line[256];
    snprintf(want, sizeof want, ":%llu 1073741826 ", (unsigned long long)st.st_ino);
    FILE *f = fopen("/proc/locks", "r");
    assert_non_null(f);
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        int pid = 0;
        found = strstr(line, want) && sscanf(line, "%*d: POSIX ADVISORY %*s %d", &pid) == 1 &&
                pid == (int)getpid();
    }
    fclose(f);
    return found;
}

struct lock_round {
    const char *path;
    struct store *s;
};

static void *close_one(void *arg)
{
    store_close(((struct lock_round *)arg)->s);
    return NULL;
}

static void *open_one(void *arg)
{
    struct lock_round *r = arg;
    char err[256];
    if (store_open(r->path, false, &r->s, err, sizeof err) == 0)
        store_exec(r->s, "SELECT count(*) FROM sqlite_master");
    return NULL;
}

/* Rounds of one connection closed on a thread while another thread's new connection reads
 * for the first time: how many left the process without its SHARED lock. */
static int rounds_losing_the_lock(const char *path, int rounds)
{
    int lost = 0;
    char err[256];
    for (int i = 0; i < rounds; i++) {
        struct lock_round old = {path, NULL}, fresh = {path, NULL};
        assert_int_equal(store_open(path, false, &old.s, err, sizeof err), 0);
        assert_int_equal(store_exec(old.s, "SELECT count(*) FROM sqlite_master"), STORE_DONE);
        pthread_t a, b;
        assert_int_equal(pthread_create(&a, NULL, close_one, &old), 0);
        assert_int_equal(pthread_create(&b, NULL, open_one, &fresh), 0);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        assert_non_null(fresh.s);
        lost += !holds_shared(path);
        store_close(fresh.s);
    }
    return lost;
}

/* SQLite's unix VFS can drop the process's SHARED lock when a connection closes on one
 * thread while another's takes its first lock (store.c, store_hold_file): another process
 * then deletes the WAL under this one. While the hold lives the lock is never dropped. */
static void test_the_file_stays_locked(void **state)
{
    struct fixture *f = *state;
    store_close(f->s); /* the rounds' connections alone */
    f->s = NULL;
    int without = rounds_losing_the_lock(f->path, 400);
    print_message("without the hold: the lock lost in %d of 400 rounds\n", without);
    char err[256];
    assert_int_equal(store_hold_file(f->path, err, sizeof err), 0);
    assert_true(holds_shared(f->path));
    assert_int_equal(rounds_losing_the_lock(f->path, 600), 0);
    assert_true(holds_shared(f->path));
    /* PostgreSQL, or none: nothing held (the file's lock goes with the last connection) */
    assert_int_equal(store_hold_file(NULL, err, sizeof err), 0);
    assert_false(holds_shared(f->path));
    assert_int_equal(store_hold_file("/nonexistent/dir/whistle.db", err, sizeof err), STORE_GONE);
    assert_non_null(strstr(err, "/nonexistent/dir/whistle.db"));
    char err2[256];
    assert_int_equal(store_open(f->path, false, &f->s, err2, sizeof err2), 0);
}

/* ---- the versions' gate (sq_data_version) ------------------------------------------ */

static void count_reads(void *arg, const char *what)
{
    if (strcmp(what, "VERSION READ") == 0)
        (*(int *)arg)++;
}

/* One statement run behind the store's back, on a connection of its own (as sqlite3, a
 * worker or another process would). */
static void behind(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* The versions are read again only when some transaction committed since the connection's
 * last read, whoever committed it; a repeat with nothing new runs no statement and answers
 * what the last read found. */
static void test_data_version_gate(void **state)
{
    struct fixture *f = *state;
    int reads = 0;
    uint64_t v[2], w[2];
    store_trace(f->s, count_reads, &reads);

    assert_int_equal(store_data_version(f->s, v), 0);
    assert_int_equal(store_data_version(f->s, w), 0);
    assert_int_equal(store_data_version(f->s, w), 0);
    assert_int_equal(reads, 1); /* the first read; nothing committed since */
    assert_memory_equal(v, w, sizeof v);

    /* a write of this connection that moves the content version */
    assert_int_equal(store_cache_flush(f->s), STORE_DONE);
    assert_int_equal(store_data_version(f->s, w), 0);
    assert_int_equal(reads, 2);
    assert_true(w[0] > v[0] && w[1] == v[1]);
    v[0] = w[0];
    assert_int_equal(store_data_version(f->s, w), 0);
    assert_int_equal(reads, 2);

    /* another connection's commit of the tally version, then of something that moves no
     * version: each is read, and the second read finds the versions unchanged */
    behind(f->path, "UPDATE cache_versions SET n = n + 1 WHERE name = 'tally'");
    assert_int_equal(store_data_version(f->s, w), 0);
    assert_int_equal(reads, 3);
    assert_true(w[0] == v[0] && w[1] == v[1] + 1);
    behind(f->path, "CREATE TABLE behind (n INTEGER)");
    assert_int_equal(store_data_version(f->s, v), 0);
    assert_int_equal(reads, 4);
    assert_memory_equal(v, w, sizeof v);
    assert_int_equal(store_data_version(f->s, v), 0);
    assert_int_equal(reads, 4);

    /* a checkpoint that restarts the WAL changes nothing a reader sees; the next writer
     * starts the WAL over (new salts), and that commit is read */
    behind(f->path, "PRAGMA wal_checkpoint(TRUNCATE)");
    assert_int_equal(store_data_version(f->s, v), 0);
    assert_memory_equal(v, w, sizeof v);
    behind(f->path, "UPDATE cache_versions SET n = n + 5 WHERE name = 'content'");
    int before = reads;
    assert_int_equal(store_data_version(f->s, v), 0);
    assert_int_equal(reads, before + 1);
    assert_true(v[0] == w[0] + 5);

    /* inside a transaction the statement always runs (the answer is the transaction's) */
    assert_int_equal(store_begin_read(f->s), STORE_DONE);
    before = reads;
    assert_int_equal(store_data_version(f->s, w), 0);
    assert_int_equal(store_data_version(f->s, w), 0);
    assert_int_equal(reads, before + 2);
    assert_memory_equal(v, w, sizeof v);
    store_rollback(f->s);
    store_trace(f->s, NULL, NULL);
}

/* Many commits from another thread's connection while this one polls: every poll answers
 * a version that counts at least every commit that thread had finished before the poll
 * began (each flush moves the content version by one or more), the last poll all 300. */
struct bumper {
    const char *path;
    atomic_llong done; /* the content version's rises committed so far */
};

static void *bump_many(void *arg)
{
    struct bumper *b = arg;
    struct store *s = NULL;
    char err[256];
    if (store_open(b->path, false, &s, err, sizeof err) != 0)
        return NULL;
    for (int i = 0; i < 300; i++) {
        if (store_cache_flush(s) != STORE_DONE)
            break;
        atomic_fetch_add(&b->done, 1);
    }
    store_close(s);
    return NULL;
}

static void test_data_version_gate_concurrent(void **state)
{
    struct fixture *f = *state;
    uint64_t v0[2], v[2];
    assert_int_equal(store_data_version(f->s, v0), 0);
    struct bumper b = {.path = f->path};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, bump_many, &b), 0);
    for (;;) {
        long long committed = atomic_load(&b.done);
        assert_int_equal(store_data_version(f->s, v), 0);
        assert_true(v[0] >= v0[0] + (uint64_t)committed);
        if (committed == 300)
            break;
    }
    pthread_join(t, NULL);
    assert_int_equal(store_data_version(f->s, v), 0);
    assert_true(v[0] >= v0[0] + 300);
}

#define T(f, setup) cmocka_unit_test_setup_teardown(f, setup, teardown_db)

int main(void)
{
    log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        T(test_open_configures_connection, setup_db),
        cmocka_unit_test(test_open_missing_without_create),
        T(test_the_file_stays_locked, setup_migrated),
        cmocka_unit_test(test_cache_find_probe),
        cmocka_unit_test(test_open_not_a_database),
        T(test_reopen_existing_without_create, setup_db),
        T(test_migrate_fresh_and_twice, setup_db),
        T(test_migrate_refuses_newer_schema, setup_db),
        T(test_migrate_version_two_refused, setup_db),
        T(test_prepare_cache_reuses_and_resets, setup_db),
        T(test_prepare_many_distinct_statements, setup_db),
        T(test_prepared_statement_survives_other_prepares, setup_db),
        T(test_prepare_bad_sql, setup_db),
        T(test_bind_and_columns, setup_db),
        T(test_constraint_violations, setup_migrated),
        T(test_exec, setup_db),
        T(test_transactions, setup_db),
        T(test_write_probe, setup_migrated),
        T(test_writer_gate, setup_db),
        T(test_thread_connection, setup_migrated),
        T(test_data_version_gate, setup_migrated),
        T(test_data_version_gate_concurrent, setup_migrated),
    };
    return cmocka_run_group_tests_name("store/sqlite", tests, NULL, NULL);
}
