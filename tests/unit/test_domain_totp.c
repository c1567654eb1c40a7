/* domain/totp.h: RFC 6238 Appendix B's SHA-1 test vectors (through liboath), the accepted
 * drift, the replay rule, base32 and the otpauth URI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "domain/totp.h"

/* RFC 6238 Appendix B: the SHA-1 seed is the ASCII "12345678901234567890" */
static const unsigned char seed[] = "12345678901234567890";
#define SEED_LEN 20

static void test_rfc6238_vectors(void **state)
{
    (void)state;
    static const struct {
        int64_t t;
        const char *code;
    } v[] = {{59, "94287082"},         {1111111109, "07081804"}, {1111111111, "14050471"},
             {1234567890, "89005924"}, {2000000000, "69279037"}, {20000000000, "65353130"}};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        char out[9];
        assert_int_equal(totp_code(seed, SEED_LEN, v[k].t, 8, out), 0);
        assert_string_equal(out, v[k].code);
        /* the 6-digit code is the same number's last six digits */
        assert_int_equal(totp_code(seed, SEED_LEN, v[k].t, 6, out), 0);
        assert_string_equal(out, v[k].code + 2);
    }
}

static void test_match_window_and_step(void **state)
{
    (void)state;
    char code[9];
    const int64_t now = 1111111111; /* step 37037037 */
    assert_int_equal(totp_code(seed, SEED_LEN, now, 6, code), 0);
    assert_int_equal(totp_match(seed, SEED_LEN, now, code), now / TOTP_STEP_S);
    /* one step either side is accepted, two are not */
    assert_int_equal(totp_match(seed, SEED_LEN, now + TOTP_STEP_S, code), now / TOTP_STEP_S);
    assert_int_equal(totp_match(seed, SEED_LEN, now - TOTP_STEP_S, code), now / TOTP_STEP_S);
    assert_int_equal(totp_match(seed, SEED_LEN, now + 2 * TOTP_STEP_S, code), -1);
    assert_int_equal(totp_match(seed, SEED_LEN, now - 2 * TOTP_STEP_S, code), -1);
    /* only exactly six digits */
    assert_int_equal(totp_match(seed, SEED_LEN, now, "14050471"), -1);
    assert_int_equal(totp_match(seed, SEED_LEN, now, "05047"), -1);
    assert_int_equal(totp_match(seed, SEED_LEN, now, "05047x"), -1);
    assert_int_equal(totp_match(seed, SEED_LEN, now, NULL), -1);
    assert_int_equal(totp_match(seed, SEED_LEN, now, "000000"), -1);
}

static void test_replay_rule(void **state)
{
    (void)state;
    assert_true(totp_step_fresh(10, -1));
    assert_true(totp_step_fresh(11, 10));
    assert_false(totp_step_fresh(10, 10)); /* the same code again */
    assert_false(totp_step_fresh(9, 10));  /* an older one, inside the window */
    assert_false(totp_step_fresh(-1, -1));
}

static void test_base32_and_uri(void **state)
{
    (void)state;
    char b32[TOTP_BASE32_MAX];
    assert_int_equal(totp_base32(seed, SEED_LEN, b32), 0);
    assert_string_equal(b32, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
    struct buf b = BUF_INIT;
    totp_uri(&b, "ed+1@example.org", b32);
    assert_string_equal(b.p, "otpauth://totp/Whistle:ed%2B1%40example.org?secret="
                             "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Whistle&algorithm=SHA1"
                             "&digits=6&period=30");
    buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc6238_vectors),
        cmocka_unit_test(test_match_window_and_step),
        cmocka_unit_test(test_replay_rule),
        cmocka_unit_test(test_base32_and_uri),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
