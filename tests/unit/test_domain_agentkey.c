/* Agent key format, checksum, hashing and state rules (domain/agentkey.c), explicit now. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "domain/agentkey.h"

#define DAY (INT64_C(86400) * 1000000)
#define NOW (INT64_C(1764000000) * 1000000)

static void test_generated_keys_are_well_formed_and_distinct(void **state)
{
    (void)state;
    char a[AGENT_KEY_LEN + 1], b[AGENT_KEY_LEN + 1];
    char ha[AGENT_KEY_HASH_HEX + 1], hb[AGENT_KEY_HASH_HEX + 1], again[AGENT_KEY_HASH_HEX + 1];
    agent_key_generate(a, ha);
    agent_key_generate(b, hb);
    assert_int_equal(strlen(a), 52);
    assert_memory_equal(a, "wk_", 3);
    assert_true(agent_key_well_formed(a));
    assert_true(agent_key_well_formed(b));
    assert_string_not_equal(a, b);
    assert_string_not_equal(ha, hb);
    agent_key_hash(a, again);
    assert_string_equal(ha, again);
    assert_int_equal(strlen(ha), 64);
    for (size_t i = 3; i < AGENT_KEY_LEN; i++)
        assert_non_null(
            strchr("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", a[i]));
}

static void test_any_single_change_is_refused(void **state)
{
    (void)state;
    char k[AGENT_KEY_LEN + 1], h[AGENT_KEY_HASH_HEX + 1];
    agent_key_generate(k, h);
    for (size_t i = 3; i < AGENT_KEY_LEN; i++) {
        char t[AGENT_KEY_LEN + 1];
        memcpy(t, k, sizeof t);
        t[i] = t[i] == 'a' ? 'b' : 'a';
        if (agent_key_well_formed(t))
            fail_msg("a key with character %zu changed passed the checksum", i);
    }
}

static void test_malformed_shapes(void **state)
{
    (void)state;
    char k[AGENT_KEY_LEN + 1], h[AGENT_KEY_HASH_HEX + 1], t[AGENT_KEY_LEN + 2];
    agent_key_generate(k, h);
    assert_false(agent_key_well_formed(NULL));
    assert_false(agent_key_well_formed(""));
    assert_false(agent_key_well_formed("wk_"));
    memcpy(t, k, sizeof k);
    t[0] = 'W';
    assert_false(agent_key_well_formed(t)); /* prefix is case-sensitive */
    memcpy(t, k, sizeof k);
    memcpy(t, "ws_", 3);
    assert_false(agent_key_well_formed(t)); /* a scout credential is not an agent key */
    memcpy(t, k, sizeof k);
    t[AGENT_KEY_LEN - 1] = '\0';
    assert_false(agent_key_well_formed(t)); /* too short */
    memcpy(t, k, sizeof k);
    t[AGENT_KEY_LEN] = 'x';
    t[AGENT_KEY_LEN + 1] = '\0';
    assert_false(agent_key_well_formed(t)); /* too long */
    memcpy(t, k, sizeof k);
    t[10] = '-';
    assert_false(agent_key_well_formed(t)); /* outside the alphabet */
}

static void test_base62(void **state)
{
    (void)state;
    char out[16];
    unsigned char zero[2] = {0, 0}, v62[1] = {62}, ff[2] = {0xff, 0xff};
    assert_int_equal(base62_encode(zero, 2, out, 4), 0);
    assert_string_equal(out, "0000");
    assert_int_equal(base62_encode(v62, 1, out, 3), 0);
    assert_string_equal(out, "010");
    assert_int_equal(base62_encode(ff, 2, out, 3), 0); /* 65535 = 17*3844 + 3*62 + 1 */
    assert_string_equal(out, "H31");
    assert_int_equal(base62_encode(ff, 2, out, 2), -1); /* does not fit */
}

static void test_state_at_explicit_now(void **state)
{
    (void)state;
    int64_t created = NOW;
    int64_t expires = created + AGENT_KEY_LIFETIME_US;
    assert_int_equal(AGENT_KEY_LIFETIME_US, 90 * DAY);
    assert_int_equal(agent_key_state(created, expires, INT64_MIN, false, "submit_lead"),
                     AGENT_KEY_ACTIVE);
    assert_int_equal(agent_key_state(created + 89 * DAY, expires, INT64_MIN, false, "submit_lead"),
                     AGENT_KEY_ACTIVE);
    assert_int_equal(agent_key_state(expires - 1, expires, INT64_MIN, false, "submit_lead"),
                     AGENT_KEY_ACTIVE);
    assert_int_equal(agent_key_state(expires, expires, INT64_MIN, false, "submit_lead"),
                     AGENT_KEY_EXPIRED);
    assert_int_equal(agent_key_state(expires + DAY, expires, INT64_MIN, false, "submit_lead"),
                     AGENT_KEY_EXPIRED);
    assert_int_equal(agent_key_state(created, expires, created, false, "submit_lead"),
                     AGENT_KEY_REVOKED);
    assert_int_equal(agent_key_state(created, expires, INT64_MIN, true, "submit_lead"),
                     AGENT_KEY_BANNED);
    /* a ban wins over revocation and expiry; revocation over expiry */
    assert_int_equal(agent_key_state(expires, expires, created, true, "submit_lead"),
                     AGENT_KEY_BANNED);
    assert_int_equal(agent_key_state(expires, expires, created, false, "submit_lead"),
                     AGENT_KEY_REVOKED);
    assert_int_equal(agent_key_state(created, expires, INT64_MIN, false, "read"),
                     AGENT_KEY_UNSCOPED);
    assert_string_equal(agent_key_state_name(AGENT_KEY_EXPIRED), "expired");
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_keys_are_well_formed_and_distinct),
        cmocka_unit_test(test_any_single_change_is_refused),
        cmocka_unit_test(test_malformed_shapes),
        cmocka_unit_test(test_base62),
        cmocka_unit_test(test_state_at_explicit_now),
    };
    return cmocka_run_group_tests_name("domain/agentkey", tests, NULL, NULL);
}
