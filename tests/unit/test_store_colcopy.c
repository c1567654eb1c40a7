/* store_col_copy: a text column read into an array sized by the domain's maximum. A value
 * that fits is copied whole; null reads as ""; a longer value (written around the rules) is
 * never truncated and never aborts the process: dst is left "", the failure is counted, and
 * STORE_ERR comes back, so that the read that needed it fails (settings_get, leads_get). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "store/votes.h"
#include "tmpdb.h"

static void test_fits_null_and_overlong(void **state)
{
    (void)state;
    struct tmpdb *d = tmpdb_open("INSERT INTO settings (name, value) VALUES ('seven', '1234567');");
    assert_non_null(d);
    char out[8];
    int64_t e0, e1, busy, gone;

    /* exactly the array's size less the terminator: copied whole */
    memset(out, 'z', sizeof out);
    assert_int_equal(settings_get(d->s, "seven", out, sizeof out), 1);
    assert_string_equal(out, "1234567");
    /* unset: 0, out untouched by the copy */
    assert_int_equal(settings_get(d->s, "absent", out, sizeof out), 0);

    /* one byte longer than the array: the read fails, counted, nothing truncated */
    store_error_counts(&e0, &busy, &gone);
    memset(out, 'z', sizeof out);
    assert_int_equal(settings_get(d->s, "seven", out, 7), STORE_ERR);
    assert_string_equal(out, "");
    store_error_counts(&e1, &busy, &gone);
    assert_int_equal(e1, e0 + 1);

    /* the connection is still good for the next statement */
    assert_int_equal(settings_get(d->s, "seven", out, sizeof out), 1);
    assert_string_equal(out, "1234567");

    /* a null value reads as "" */
    struct store_stmt *st = STORE_SELECT(d->s, "SELECT NULL");
    assert_non_null(st);
    assert_int_equal(store_step(st), STORE_ROW);
    memset(out, 'z', sizeof out);
    assert_int_equal(store_col_copy(st, 0, out, sizeof out), 0);
    assert_string_equal(out, "");
    store_reset(st);
    tmpdb_close(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fits_null_and_overlong),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
