/* AgentLead validation (domain/lead.c): every field rule and its message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "domain/lead.h"

#define VALID_URLS "\"source_urls\":[\"https://example.com/a\"]"

/* Parses body; expects failure whose message contains want (or success when want NULL). */
static void check(const char *body, const char *want)
{
    struct lead_input in;
    char err[400] = "";
    int rc = lead_parse(body, strlen(body), &in, err, sizeof err);
    if (!want) {
        if (rc != 0)
            fail_msg("refused %s: %s", body, err);
        lead_input_release(&in);
        return;
    }
    if (rc == 0) {
        lead_input_release(&in);
        fail_msg("accepted %s (wanted an error naming %s)", body, want);
    }
    if (!strstr(err, want))
        fail_msg("message \"%s\" for %s does not name %s", err, body, want);
}

static void body(char *out, size_t n, const char *extra)
{
    snprintf(out, n, "{\"game_id\":\"g1\",\"description\":\"ten chars!\"," VALID_URLS "%s%s}",
             extra[0] ? "," : "", extra);
}

static void test_minimal_and_full_bodies(void **state)
{
    (void)state;
    char b[512];
    body(b, sizeof b, "");
    check(b, NULL);
    body(b, sizeof b, "\"period\":4,\"clock\":\"2:13\",\"category\":\"penalty\",\"confidence\":70");
    check(b, NULL);
    body(b, sizeof b, "\"period\":null,\"clock\":null,\"category\":null,\"confidence\":null");
    check(b, NULL);
}

static void test_shape_errors(void **state)
{
    (void)state;
    check("", "not valid JSON");
    check("[]", "JSON object");
    check("{\"game_id\":\"g\",\"game_id\":\"h\"}", "not valid JSON"); /* duplicate key */
    check("{\"description\":\"ten chars!\"," VALID_URLS "}", "game_id is required");
    check("{\"game_id\":\"g\"," VALID_URLS "}", "description is required");
    check("{\"game_id\":\"g\",\"description\":\"ten chars!\"}", "source_urls is required");
    char b[512];
    body(b, sizeof b, "\"verdict\":\"wrong call\"");
    check(b, "unsupported field verdict");
}

static void test_field_ranges(void **state)
{
    (void)state;
    char b[12000], extra[11000];
    check("{\"game_id\":\"\",\"description\":\"ten chars!\"," VALID_URLS "}", "game_id");
    check("{\"game_id\":7,\"description\":\"ten chars!\"," VALID_URLS "}", "game_id");
    char id[300];
    memset(id, 'g', 256);
    id[256] = '\0';
    snprintf(b, sizeof b, "{\"game_id\":\"%s\",\"description\":\"ten chars!\"," VALID_URLS "}", id);
    check(b, "game_id");
    id[255] = '\0';
    snprintf(b, sizeof b, "{\"game_id\":\"%s\",\"description\":\"ten chars!\"," VALID_URLS "}", id);
    check(b, NULL);

    check("{\"game_id\":\"g\",\"description\":\"nine char\"," VALID_URLS "}", "description");
    /* characters, not bytes: ten two-byte characters are enough, nine are not */
    check("{\"game_id\":\"g\",\"description\":\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"," VALID_URLS "}",
          NULL);
    check("{\"game_id\":\"g\",\"description\":\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
          "\xc3\xa9\xc3\xa9\xc3\xa9\"," VALID_URLS "}",
          "description");
    memset(extra, 'x', 5001);
    extra[5001] = '\0';
    snprintf(b, sizeof b, "{\"game_id\":\"g\",\"description\":\"%s\"," VALID_URLS "}", extra);
    check(b, "description");
    extra[5000] = '\0';
    snprintf(b, sizeof b, "{\"game_id\":\"g\",\"description\":\"%s\"," VALID_URLS "}", extra);
    check(b, NULL);

    body(b, sizeof b, "\"period\":0");
    check(b, "period");
    body(b, sizeof b, "\"period\":31");
    check(b, "period");
    body(b, sizeof b, "\"period\":1.5");
    check(b, "period");
    body(b, sizeof b, "\"period\":30");
    check(b, NULL);
    body(b, sizeof b, "\"category\":\"no_call\"");
    check(b, "category");
    body(b, sizeof b, "\"category\":\"catch\"");
    check(b, "category");
    /* the message is built from the vocabulary (domain/vocab.h) and says the same as ever */
    body(b, sizeof b, "\"category\":\"foul\"");
    check(b, "category must be one of penalty, replay, clock, spot, targeting, other, or null "
             "(no_call and catch are not accepted)");
    body(b, sizeof b, "\"category\":\"targeting\"");
    check(b, NULL);
    body(b, sizeof b, "\"confidence\":-1");
    check(b, "confidence");
    body(b, sizeof b, "\"confidence\":100.5");
    check(b, "confidence");
    body(b, sizeof b, "\"confidence\":\"high\"");
    check(b, "confidence");
    body(b, sizeof b, "\"confidence\":55.5");
    check(b, NULL);
    body(b, sizeof b, "\"confidence\":0");
    check(b, NULL);
}

static void test_source_urls(void **state)
{
    (void)state;
    check("{\"game_id\":\"g\",\"description\":\"ten chars!\",\"source_urls\":[]}", "source_urls");
    check("{\"game_id\":\"g\",\"description\":\"ten chars!\",\"source_urls\":\"https://a.b/\"}",
          "source_urls");
    check("{\"game_id\":\"g\",\"description\":\"ten chars!\",\"source_urls\":["
          "\"https://a.com/1\",\"https://a.com/2\",\"https://a.com/3\",\"https://a.com/4\","
          "\"https://a.com/5\",\"https://a.com/6\"]}",
          "source_urls");
    check("{\"game_id\":\"g\",\"description\":\"ten chars!\",\"source_urls\":["
          "\"https://a.com/1\",\"https://a.com/2\",\"https://a.com/3\",\"https://a.com/4\","
          "\"https://a.com/5\"]}",
          NULL);
    check("{\"game_id\":\"g\",\"description\":\"ten chars!\",\"source_urls\":["
          "\"https://a.com/1\",\"https://a.com/1\"]}",
          "source_urls[1] repeats");
    assert_true(lead_url_valid("https://example.com"));
    assert_true(lead_url_valid("HTTP://Example.com:8080/a?b=c#d"));
    assert_true(lead_url_valid("http://[::1]/x"));
    assert_false(lead_url_valid("ftp://example.com/"));
    assert_false(lead_url_valid("http://"));
    assert_false(lead_url_valid("/relative/path"));
    assert_false(lead_url_valid("not a url"));
    assert_false(lead_url_valid("http:// space.com"));
    assert_false(lead_url_valid("javascript:alert(1)"));
    assert_false(lead_url_valid("https:example.com"));
}

static void test_clock_rule(void **state)
{
    (void)state;
    const char *ok[] = {"0:00", "9:59", "15:59", "05:00", "00:00", "12:34"};
    const char *bad[] = {"16:00",   "1:60", "1:5",   "123:00", "",      ":00",
                         "1:00:00", "a:bc", "-1:00", "1:0a",   "99:00", "1 :00"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!lead_clock_valid(ok[i]))
            fail_msg("clock %s refused", ok[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (lead_clock_valid(bad[i]))
            fail_msg("clock \"%s\" accepted", bad[i]);
    char b[512];
    body(b, sizeof b, "\"clock\":\"16:00\"");
    check(b, "clock");
    body(b, sizeof b, "\"clock\":230");
    check(b, "clock");
}

static void test_idempotency_keys(void **state)
{
    (void)state;
    char k[200];
    assert_false(lead_idempotency_key_valid(NULL));
    assert_false(lead_idempotency_key_valid("1234567"));
    assert_true(lead_idempotency_key_valid("12345678"));
    assert_true(lead_idempotency_key_valid("aZ09_.:-"));
    assert_false(lead_idempotency_key_valid("abcdefg h"));
    assert_false(lead_idempotency_key_valid("abcdefg/h"));
    memset(k, 'k', 128);
    k[128] = '\0';
    assert_true(lead_idempotency_key_valid(k));
    k[128] = 'k';
    k[129] = '\0';
    assert_false(lead_idempotency_key_valid(k));
}

static void test_fingerprint_is_canonical(void **state)
{
    (void)state;
    struct lead_input a, b, c;
    char err[200];
    const char *x = "{\"game_id\":\"g\",\"description\":\"ten chars!\"," VALID_URLS "}";
    const char *y = "{ \"description\" : \"ten chars!\", " VALID_URLS ", \"game_id\":\"g\" }";
    const char *z = "{\"game_id\":\"h\",\"description\":\"ten chars!\"," VALID_URLS "}";
    assert_int_equal(lead_parse(x, strlen(x), &a, err, sizeof err), 0);
    assert_int_equal(lead_parse(y, strlen(y), &b, err, sizeof err), 0);
    assert_int_equal(lead_parse(z, strlen(z), &c, err, sizeof err), 0);
    assert_string_equal(a.fingerprint, b.fingerprint);
    assert_string_not_equal(a.fingerprint, c.fingerprint);
    assert_int_equal(strlen(a.fingerprint), 64);
    assert_string_equal(a.source_urls_json, "[\"https://example.com/a\"]");
    lead_input_release(&a);
    lead_input_release(&b);
    lead_input_release(&c);
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minimal_and_full_bodies),
        cmocka_unit_test(test_shape_errors),
        cmocka_unit_test(test_field_ranges),
        cmocka_unit_test(test_source_urls),
        cmocka_unit_test(test_clock_rule),
        cmocka_unit_test(test_idempotency_keys),
        cmocka_unit_test(test_fingerprint_is_canonical),
    };
    return cmocka_run_group_tests_name("domain/lead", tests, NULL, NULL);
}
