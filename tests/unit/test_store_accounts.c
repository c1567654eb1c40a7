/* Accounts in the store (store/accounts.c) against a real SQLite file: single-use links,
 * sessions and their revocation, the per-account key count and
 * revocation, and the outbox's claim / lease / retry / erase cycle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "store/accounts.h"
#include "store/agents.h"
#include "tmpdb.h"
#include "util/arena.h"

#define SEC    INT64_C(1000000)
#define NOW    (INT64_C(1764000000) * SEC)
#define A1     "11111111-1111-4111-8111-111111111111"
#define A2     "22222222-2222-4222-8222-222222222222"
#define H32(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c
#define H(c)   H32(c) H32(c) /* 64 hex characters */

static int setup(void **state)
{
    struct tmpdb *d = tmpdb_open(NULL);
    if (!d)
        return -1;
    if (accounts_create(d->s, A1, "one@example.org", "$argon2id$x", NOW) < 0 ||
        accounts_create(d->s, A2, "two@example.org", "$argon2id$y", NOW) < 0)
        return -1;
    *state = d;
    return 0;
}

static int teardown(void **state)
{
    tmpdb_close(*state);
    return 0;
}

static struct store *S(void **state)
{
    return ((struct tmpdb *)*state)->s;
}

static void test_accounts_by_email_and_id(void **state)
{
    struct account_row a;
    assert_int_equal(accounts_by_email(S(state), "one@example.org", &a), 1);
    assert_string_equal(a.id, A1);
    assert_string_equal(a.password_hash, "$argon2id$x");
    assert_false(a.verified);
    assert_false(a.banned);
    assert_int_equal(accounts_by_email(S(state), "nobody@example.org", &a), 0);
    assert_int_equal(accounts_create(S(state), "33333333-3333-4333-8333-333333333333",
                                     "one@example.org", "h", NOW),
                     STORE_CONSTRAINT);
    assert_int_equal(accounts_set_verified(S(state), A1, NOW), 0);
    assert_int_equal(accounts_set_password(S(state), A1, "$argon2id$z", NOW), 0);
    assert_int_equal(accounts_by_id(S(state), A1, &a), 1);
    assert_true(a.verified);
    assert_string_equal(a.password_hash, "$argon2id$z");
    /* an operator-made account has no password */
    char id[ID_LEN];
    assert_int_equal(agents_account_ensure(S(state), "ops@example.org", true, NOW, id), 0);
    assert_int_equal(accounts_by_email(S(state), "ops@example.org", &a), 1);
    assert_string_equal(a.password_hash, "");
}

static void test_link_tokens_single_use(void **state)
{
    struct store *s = S(state);
    struct account_token_row t;
    assert_int_equal(account_tokens_insert(s, true, H("a"), A1, "verify", NOW, NOW + 10 * SEC), 0);
    assert_int_equal(account_tokens_find(s, H("a"), "verify", &t), 1);
    assert_string_equal(t.account_id, A1);
    assert_int_equal(t.used_at, INT64_MIN);
    assert_int_equal(account_tokens_find(s, H("a"), "reset", &t), 0); /* another purpose */
    assert_int_equal(account_tokens_use(s, H("a"), NOW + SEC), 1);
    assert_int_equal(account_tokens_use(s, H("a"), NOW + 2 * SEC), 0); /* once only */
    assert_int_equal(account_tokens_find(s, H("a"), "verify", &t), 1);
    assert_int_equal(t.used_at, NOW + SEC);
    /* an expired token cannot be used */
    assert_int_equal(account_tokens_insert(s, true, H("b"), A1, "verify", NOW, NOW + 10 * SEC), 0);
    assert_int_equal(account_tokens_use(s, H("b"), NOW + 10 * SEC), 0);
    /* spending all the reset links of one account leaves the other's */
    assert_int_equal(account_tokens_insert(s, true, H("c"), A1, "reset", NOW, NOW + 10 * SEC), 0);
    assert_int_equal(account_tokens_insert(s, true, H("d"), A2, "reset", NOW, NOW + 10 * SEC), 0);
    assert_int_equal(account_tokens_spend_all(s, A1, "reset", NOW), 0);
    assert_int_equal(account_tokens_use(s, H("c"), NOW), 0);
    assert_int_equal(account_tokens_use(s, H("d"), NOW), 1);
    /* insert false: the same statement, nothing kept */
    assert_int_equal(account_tokens_insert(s, false, H("e"), A1, "reset", NOW, NOW + 10 * SEC), 0);
    assert_int_equal(account_tokens_find(s, H("e"), "reset", &t), 0);
}

static void test_sessions(void **state)
{
    struct store *s = S(state);
    struct session_row r;
    assert_int_equal(sessions_insert(s, H("1"), A1, NOW, NOW + 100 * SEC), 0);
    assert_int_equal(sessions_insert(s, H("2"), A1, NOW, NOW + 100 * SEC), 0);
    assert_int_equal(sessions_insert(s, H("3"), A2, NOW, NOW + 100 * SEC), 0);
    assert_int_equal(sessions_find(s, H("1"), NOW, &r), 1);
    assert_string_equal(r.account.id, A1);
    assert_string_equal(r.account.email, "one@example.org");
    assert_string_equal(r.hash, H("1"));
    assert_int_equal(sessions_find(s, H("1"), NOW + 100 * SEC, &r), 0); /* expired */
    assert_int_equal(sessions_find(s, H("9"), NOW, &r), 0);
    assert_int_equal(sessions_revoke(s, H("1"), NOW), 0);
    assert_int_equal(sessions_find(s, H("1"), NOW, &r), 0);
    assert_int_equal(sessions_find(s, H("2"), NOW, &r), 1);
    assert_int_equal(sessions_insert(s, H("4"), A1, NOW, NOW + 100 * SEC), 0);
    assert_int_equal(sessions_revoke_all(s, A1, H("4"), NOW), 0);
    assert_int_equal(sessions_find(s, H("2"), NOW, &r), 0);
    assert_int_equal(sessions_find(s, H("4"), NOW, &r), 1); /* kept */
    assert_int_equal(sessions_find(s, H("3"), NOW, &r), 1); /* another account's */
    assert_int_equal(sessions_revoke_all(s, A1, NULL, NOW), 0);
    assert_int_equal(sessions_find(s, H("4"), NOW, &r), 0);
}

static void test_active_keys_and_owned_revoke(void **state)
{
    struct store *s = S(state);
    int64_t n = -1;
    assert_int_equal(agents_key_insert(s, "k1", A1, "a", "wk_a", H("e"), NOW, NOW + 10 * SEC), 0);
    assert_int_equal(agents_key_insert(s, "k2", A1, "b", "wk_b", H("f"), NOW, NOW + 5 * SEC), 0);
    assert_int_equal(agents_key_insert(s, "k3", A2, "c", "wk_c", H("0"), NOW, NOW + 10 * SEC), 0);
    assert_int_equal(accounts_active_keys(s, A1, NOW, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(accounts_active_keys(s, A1, NOW + 5 * SEC, &n), 0);
    assert_int_equal(n, 1);                                     /* k2 expired */
    assert_int_equal(accounts_key_revoke(s, A1, "k3", NOW), 0); /* not theirs */
    assert_int_equal(accounts_key_revoke(s, A1, "nope", NOW), 0);
    assert_int_equal(accounts_key_revoke(s, A1, "k1", NOW), 1);
    assert_int_equal(accounts_key_revoke(s, A1, "k1", NOW), 2);
    assert_int_equal(accounts_active_keys(s, A1, NOW, &n), 0);
    assert_int_equal(n, 1);
}

static void test_outbox_cycle(void **state)
{
    struct store *s = S(state);
    struct arena a;
    arena_init(&a);
    struct outbox_msg m, m2;
    int64_t n = -1, lease = 60 * SEC;
    assert_int_equal(outbox_claim(s, &a, NOW, lease, &m), 0); /* empty */
    assert_int_equal(outbox_enqueue(s, true, "one@example.org", "Hi", "link 1", NOW), 0);
    assert_int_equal(outbox_enqueue(s, true, "one@example.org", "Hi", "link 2", NOW + SEC), 0);
    /* insert false: the same statement, nothing kept */
    assert_int_equal(outbox_enqueue(s, false, "one@example.org", "Hi", "kept nowhere", NOW), 0);
    assert_int_equal(outbox_recent(s, "one@example.org", NOW - SEC, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(outbox_recent(s, "two@example.org", NOW - SEC, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(outbox_claim(s, &a, NOW + SEC, lease, &m), 1);
    assert_string_equal(m.body, "link 1");
    assert_string_equal(m.recipient, "one@example.org");
    assert_int_equal(m.attempts, 1);
    /* claimed: the next claim takes the other message, not this one */
    assert_int_equal(outbox_claim(s, &a, NOW + SEC, lease, &m2), 1);
    assert_string_equal(m2.body, "link 2");
    assert_int_equal(outbox_claim(s, &a, NOW + SEC, lease, &m2), 0);
    /* a failure is retried at the time given */
    assert_int_equal(outbox_failed(s, m.id, NOW + SEC, NOW + 100 * SEC, "refused"), 0);
    assert_int_equal(outbox_claim(s, &a, NOW + 50 * SEC, lease, &m2), 0);
    /* the second message's lease runs out: another worker may take it */
    assert_int_equal(outbox_claim(s, &a, NOW + 62 * SEC, lease, &m2), 1);
    assert_string_equal(m2.body, "link 2");
    assert_int_equal(m2.attempts, 2);
    assert_int_equal(outbox_failed(s, m2.id, NOW + 62 * SEC, INT64_MIN, "gave up"), 0);
    assert_int_equal(outbox_claim(s, &a, NOW + 99 * SEC, lease, &m2), 0);
    assert_int_equal(outbox_claim(s, &a, NOW + 100 * SEC, lease, &m2), 1);
    assert_string_equal(m2.id, m.id);
    assert_int_equal(m2.attempts, 2);
    assert_int_equal(outbox_sent(s, m2.id, NOW + 100 * SEC), 0);
    assert_int_equal(outbox_claim(s, &a, NOW + 1000 * SEC, lease, &m2), 0);
    /* finished messages keep no body */
    struct store_stmt *st =
        store_prepare(s, "SELECT count(*) FROM outbox WHERE body = '' AND (sent_at IS NOT NULL"
                         " OR failed_at IS NOT NULL)");
    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 2);
    store_reset(st);
    /* housekeeping forgets them later */
    assert_int_equal(accounts_prune(s, NOW + 1000 * SEC), 0);
    assert_int_equal(outbox_recent(s, "one@example.org", 0, &n), 0);
    assert_int_equal(n, 0);
    arena_release(&a);
}

static void test_prune_keeps_live_rows(void **state)
{
    struct store *s = S(state);
    struct session_row r;
    struct account_token_row t;
    assert_int_equal(sessions_insert(s, H("5"), A1, NOW, NOW + 100 * SEC), 0);
    assert_int_equal(sessions_insert(s, H("6"), A1, NOW, NOW + 10 * SEC), 0);
    assert_int_equal(account_tokens_insert(s, true, H("7"), A1, "verify", NOW, NOW + 100 * SEC), 0);
    assert_int_equal(accounts_prune(s, NOW + 50 * SEC), 0);
    assert_int_equal(sessions_find(s, H("5"), NOW, &r), 1);
    assert_int_equal(sessions_find(s, H("6"), NOW, &r), 0);
    assert_int_equal(account_tokens_find(s, H("7"), "verify", &t), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_accounts_by_email_and_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_link_tokens_single_use, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sessions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_active_keys_and_owned_revoke, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outbox_cycle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prune_keeps_live_rows, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
