/*
 * Unit tests for store_sqlite_page_pool (store/sqlite.c): SQLite's page caches in one region
 * given before any database is opened (whistle serve). A binary of its own: SQLite takes the
 * region only before it starts, which any other test would have done.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "store/store.h"

static void test_the_page_caches_take_their_pages_from_the_region(void **state)
{
    (void)state;
    /* none, or too small for one page: refused, and SQLite is not started by it */
    assert_int_equal(store_sqlite_page_pool(0), -1);
    assert_int_equal(store_sqlite_page_pool(100), -1);
    assert_int_equal(store_sqlite_page_pool(4u << 20), 0);

    char dir[] = "/tmp/whistle-pagepool-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/t.db", dir);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(
        sqlite3_exec(db,
                     "CREATE TABLE t (x TEXT);"
                     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                     " WHERE i < 2000) INSERT INTO t SELECT hex(randomblob(200)) FROM n;"
                     "SELECT count(*) FROM t;",
                     NULL, NULL, NULL),
        SQLITE_OK);
    int used = 0, high = 0, overflow = 0, ohigh = 0;
    assert_int_equal(sqlite3_status(SQLITE_STATUS_PAGECACHE_USED, &used, &high, 0), SQLITE_OK);
    assert_int_equal(sqlite3_status(SQLITE_STATUS_PAGECACHE_OVERFLOW, &overflow, &ohigh, 0),
                     SQLITE_OK);
    /* the table's pages (about 200) are in the region's slots, none from the allocator */
    assert_true(used > 100);
    assert_int_equal(overflow, 0);

    /* once SQLite has started, the region cannot be given any more */
    assert_int_equal(store_sqlite_page_pool(4u << 20), -1);
    sqlite3_close(db);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_page_caches_take_their_pages_from_the_region),
    };
    return cmocka_run_group_tests_name("store/page pool", tests, NULL, NULL);
}
