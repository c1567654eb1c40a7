/* The account and key use cases (app/accounts.c, app/keys.c, app/mail.c) against a real
 * SQLite file, every time window driven by an explicit `now`: each outcome of each use
 * case, the limits before and after their window, and what the emails carry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "app/accounts.h"
#include "app/mail.h"
#include "domain/voter.h"
#include "store/accounts.h"
#include "store/agents.h"
#include "tmpdb.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/uuid.h"

#define SEC      INT64_C(1000000)
#define NOW      (INT64_C(1764000000) * SEC)
#define PW       "correct horse battery"
#define PW2      "another long passphrase"
#define IP       "192.0.2.1"
#define IP2      "192.0.2.2"
#define BASE     "https://whistle.example"
#define MAX_MAIL 16

struct fx {
    struct tmpdb *d;
    struct arena a;
    struct whistle_limits lim;
};

static int setup(void **state)
{
    static struct fx f;
    unsigned char key[32] = {9};
    if (sodium_init() < 0)
        return -1;
    voter_set_secret(key);
    memset(&f, 0, sizeof f);
    f.d = tmpdb_open(NULL);
    if (!f.d)
        return -1;
    arena_init(&f.a);
    f.lim = (struct whistle_limits){
        .signin_per_account = 5,
        .signin_per_ip = 20,
        .max_agent_keys = 3,
        .mail_forms_per_ip = 20,
        /* the smallest argon2id cost keeps the suite fast; the rules are the same */
        .password_ops = crypto_pwhash_OPSLIMIT_MIN,
        .password_memory_kib = 8192};
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    arena_release(&f->a);
    tmpdb_close(f->d);
    return 0;
}

static struct app_ctx at(struct fx *f, int64_t now)
{
    return (struct app_ctx){.s = f->d->s, .a = &f->a, .now = now, .request_id = "unit"};
}

/* One email as the outbox would deliver it. */
struct mail {
    const char *to, *subject;
    char token[ACCOUNT_TOKEN_LEN + 1]; /* of the link in the body, "" when none */
    bool reset_link;                   /* the link is /account/reset, not /account/verify */
};

/* Runs the worker's half of every queued reset request at `when` (the mail lane,
 * account_forgot_process); returns how many it took. */
static int settle(struct fx *f, int64_t when)
{
    struct app_ctx c = at(f, when);
    int n = 0, rc;
    while ((rc = account_forgot_process(&c, BASE)) == 1)
        n++;
    assert_int_equal(rc, 0);
    return n;
}

/* The queued reset requests. */
static int64_t queued(struct fx *f)
{
    struct store_stmt *st = store_prepare(f->d->s, "SELECT count(*) FROM reset_requests");
    assert_non_null(st);
    assert_int_equal(store_step(st), STORE_ROW);
    int64_t n = store_col_int(st, 0);
    store_reset(st);
    return n;
}

/* Settles the reset requests, then claims (and marks sent) every message due at `when`; *n
 * of them into m. */
static void drain(struct fx *f, int64_t when, struct mail m[MAX_MAIL], int *n)
{
    struct outbox_msg msg;
    settle(f, when);
    *n = 0;
    while (*n < MAX_MAIL && outbox_claim(f->d->s, &f->a, when, 60 * SEC, &msg) == 1) {
        struct mail *x = &m[(*n)++];
        memset(x, 0, sizeof *x);
        x->to = msg.recipient;
        x->subject = msg.subject;
        const char *t = strstr(msg.body, "?token=");
        if (t) {
            memcpy(x->token, t + 7, ACCOUNT_TOKEN_LEN);
            x->token[ACCOUNT_TOKEN_LEN] = '\0';
            x->reset_link = strstr(msg.body, "/account/reset?token=") != NULL;
        }
        assert_int_equal(outbox_sent(f->d->s, msg.id, when), 0);
    }
}

/* The one message due at `when`, which must be for `to`. */
static struct mail one_mail(struct fx *f, int64_t when, const char *to)
{
    struct mail m[MAX_MAIL];
    int n;
    drain(f, when, m, &n);
    assert_int_equal(n, 1);
    assert_string_equal(m[0].to, to);
    return m[0];
}

static int64_t mails_to(struct fx *f, const char *to, int64_t since)
{
    int64_t n = -1;
    assert_int_equal(outbox_recent(f->d->s, to, since, &n), 0);
    return n;
}

/* Signs up and verifies email at `when`; the account row in *a. */
static void verified_account(struct fx *f, int64_t when, const char *email, struct account_row *a)
{
    struct app_ctx c = at(f, when);
    struct account_result r;
    assert_int_equal(account_signup(&c, &f->lim, BASE, email, PW, IP, &r), ACCOUNT_OK);
    struct mail m = one_mail(f, when, email);
    assert_int_equal(account_verify(&c, m.token), ACCOUNT_OK);
    assert_int_equal(accounts_by_email(f->d->s, email, a), 1);
    assert_true(a->verified);
}

static enum account_outcome signin(struct fx *f, int64_t when, const char *email, const char *pw,
                                   const char *ip, struct account_result *r)
{
    struct app_ctx c = at(f, when);
    enum account_outcome o = account_signin(&c, &f->lim, email, pw, ip, NULL, r);
    account_result_wipe(r);
    return o;
}

/* ---- sign-up and verification ------------------------------------------------------- */

static void test_signup_new_account_and_verify(void **state)
{
    struct fx *f = *state;
    struct app_ctx c = at(f, NOW);
    struct account_result r;
    struct account_row a;
    assert_int_equal(account_signup(&c, &f->lim, BASE, " New@Example.ORG", PW, IP, &r),
                     ACCOUNT_BAD_EMAIL);
    assert_int_equal(account_signup(&c, &f->lim, BASE, "New@Example.ORG", PW, IP, &r), ACCOUNT_OK);
    assert_string_equal(r.email, "new@example.org");
    assert_int_equal(accounts_by_email(f->d->s, "new@example.org", &a), 1);
    assert_false(a.verified);
    struct mail m = one_mail(f, NOW, "new@example.org");
    assert_string_equal(m.subject, "Verify your email address for Whistle");
    assert_false(m.reset_link);
    /* the link is checked without being spent, then spent once */
    assert_int_equal(account_link_check(&c, ACCOUNT_LINK_VERIFY, m.token), ACCOUNT_OK);
    assert_int_equal(account_link_check(&c, ACCOUNT_LINK_RESET, m.token), ACCOUNT_LINK_UNKNOWN);
    assert_int_equal(account_verify(&c, m.token), ACCOUNT_OK);
    assert_int_equal(accounts_by_email(f->d->s, "new@example.org", &a), 1);
    assert_true(a.verified);
    assert_int_equal(account_verify(&c, m.token), ACCOUNT_LINK_USED);
    assert_int_equal(account_link_check(&c, ACCOUNT_LINK_VERIFY, m.token), ACCOUNT_LINK_USED);
    /* verified: nothing to resend */
    assert_int_equal(account_resend_verification(&c, BASE, &a), ACCOUNT_VERIFIED);
    assert_int_equal(mails_to(f, "new@example.org", NOW - SEC), 1);
}

static void test_signup_refuses_bad_passwords_without_writing(void **state)
{
    struct fx *f = *state;
    struct app_ctx c = at(f, NOW);
    struct account_result r;
    struct account_row a;
    assert_int_equal(account_signup(&c, &f->lim, BASE, "p@example.org", "short", IP, &r),
                     ACCOUNT_BAD_PASSWORD);
    assert_string_equal(r.problem, "the password must be at least 10 characters long");
    assert_int_equal(account_signup(&c, &f->lim, BASE, "p@example.org", "password123", IP, &r),
                     ACCOUNT_BAD_PASSWORD);
    assert_int_equal(account_signup(&c, &f->lim, BASE, "p@example.org", "p@example.org", IP, &r),
                     ACCOUNT_BAD_PASSWORD);
    assert_int_equal(account_signup(&c, &f->lim, BASE, "p@example.org", NULL, IP, &r),
                     ACCOUNT_BAD_PASSWORD);
    assert_string_equal(r.problem, "enter a password");
    assert_int_equal(account_signup(&c, &f->lim, BASE, "not-an-address", PW, IP, &r),
                     ACCOUNT_BAD_EMAIL);
    assert_string_equal(r.email, "");
    assert_int_equal(accounts_by_email(f->d->s, "p@example.org", &a), 0);
    assert_int_equal(mails_to(f, "p@example.org", 0), 0);
}

/* A sign-up with a taken address answers exactly like a new one, changes nothing of the
 * account and mails its owner a reset link instead. */
static void test_signup_taken_address_is_enumeration_safe(void **state)
{
    struct fx *f = *state;
    struct account_row a, b;
    struct account_result r;
    verified_account(f, NOW, "owner@example.org", &a);
    struct app_ctx c = at(f, NOW + SEC);
    assert_int_equal(account_signup(&c, &f->lim, BASE, "OWNER@example.org", PW2, IP, &r),
                     ACCOUNT_OK);
    assert_string_equal(r.email, "owner@example.org");
    assert_int_equal(accounts_by_email(f->d->s, "owner@example.org", &b), 1);
    assert_string_equal(b.id, a.id);
    assert_string_equal(b.password_hash, a.password_hash);
    struct mail m = one_mail(f, NOW + SEC, "owner@example.org");
    assert_string_equal(m.subject, "Your Whistle account");
    assert_true(m.reset_link);
    assert_int_equal(account_link_check(&c, ACCOUNT_LINK_RESET, m.token), ACCOUNT_OK);
    /* the old password still signs in, the one typed at the second sign-up does not */
    assert_int_equal(signin(f, NOW + 2 * SEC, "owner@example.org", PW, IP, &r), ACCOUNT_OK);
    assert_int_equal(signin(f, NOW + 2 * SEC, "owner@example.org", PW2, IP, &r),
                     ACCOUNT_WRONG_PASSWORD);
}

/* Sign-ups and reset requests share one hourly limit per client address, counted whether or
 * not the address typed has an account; another client is not affected. */
static void test_mail_forms_limited_per_client_for_an_hour(void **state)
{
    struct fx *f = *state;
    struct account_result r;
    f->lim.mail_forms_per_ip = 2;
    struct app_ctx c = at(f, NOW);
    assert_int_equal(account_signup(&c, &f->lim, BASE, "m1@example.org", PW, IP, &r), ACCOUNT_OK);
    c.now = NOW + 10 * SEC;
    assert_int_equal(account_forgot(&c, &f->lim, "nobody@example.org", IP, &r), ACCOUNT_OK);
    c.now = NOW + 20 * SEC;
    assert_int_equal(account_signup(&c, &f->lim, BASE, "m2@example.org", PW, IP, &r),
                     ACCOUNT_LIMITED);
    assert_int_equal(r.retry_s, 3600 - 20);
    assert_int_equal(account_forgot(&c, &f->lim, "m1@example.org", IP, &r), ACCOUNT_LIMITED);
    assert_int_equal(account_signup(&c, &f->lim, BASE, "m2@example.org", PW, IP2, &r), ACCOUNT_OK);
    /* the limited request wrote nothing */
    struct account_row a;
    assert_int_equal(accounts_by_email(f->d->s, "m1@example.org", &a), 1);
    assert_int_equal(mails_to(f, "m1@example.org", 0), 1);
    /* the first event leaves the window an hour later */
    c.now = NOW + ACCOUNT_MAIL_FORM_WINDOW_US;
    assert_int_equal(account_forgot(&c, &f->lim, "m1@example.org", IP, &r), ACCOUNT_OK);
    assert_int_equal(settle(f, c.now), 2); /* the one of "nobody" too, which mails nothing */
    assert_int_equal(mails_to(f, "m1@example.org", 0), 2);
}

static void test_mail_per_recipient_cap(void **state)
{
    struct fx *f = *state;
    struct account_row a;
    struct account_result r;
    verified_account(f, NOW, "cap@example.org", &a);
    for (int i = 1; i <= APP_MAIL_PER_RECIPIENT_HOUR + 2; i++) {
        struct app_ctx c = at(f, NOW + i * SEC);
        assert_int_equal(account_forgot(&c, &f->lim, "cap@example.org", IP, &r), ACCOUNT_OK);
        assert_int_equal(settle(f, c.now + SEC / 2), 1);
    }
    /* the verification email and 4 reset emails: the hour's cap, then silence */
    assert_int_equal(mails_to(f, "cap@example.org", NOW - SEC), APP_MAIL_PER_RECIPIENT_HOUR);
    struct app_ctx later = at(f, NOW + 3600 * SEC + 2 * SEC);
    assert_int_equal(account_forgot(&later, &f->lim, "cap@example.org", IP2, &r), ACCOUNT_OK);
    assert_int_equal(settle(f, later.now), 1);
    assert_int_equal(mails_to(f, "cap@example.org", NOW - SEC), APP_MAIL_PER_RECIPIENT_HOUR + 1);
}

static void test_verification_links_expire_and_resend(void **state)
{
    struct fx *f = *state;
    struct account_result r;
    struct account_row a;
    struct app_ctx c = at(f, NOW);
    assert_int_equal(account_signup(&c, &f->lim, BASE, "late@example.org", PW, IP, &r), ACCOUNT_OK);
    struct mail m = one_mail(f, NOW, "late@example.org");
    assert_int_equal(accounts_by_email(f->d->s, "late@example.org", &a), 1);
    /* valid until the last microsecond of its 24 hours */
    c.now = NOW + ACCOUNT_VERIFY_TTL_US - 1;
    assert_int_equal(account_link_check(&c, ACCOUNT_LINK_VERIFY, m.token), ACCOUNT_OK);
    c.now = NOW + ACCOUNT_VERIFY_TTL_US;
    assert_int_equal(account_link_check(&c, ACCOUNT_LINK_VERIFY, m.token), ACCOUNT_LINK_EXPIRED);
    assert_int_equal(account_verify(&c, m.token), ACCOUNT_LINK_EXPIRED);
    assert_int_equal(account_verify(&c, "short"), ACCOUNT_LINK_UNKNOWN);
    assert_int_equal(account_verify(&c, NULL), ACCOUNT_LINK_UNKNOWN);
    char other[ACCOUNT_TOKEN_LEN + 1], hash[ACCOUNT_TOKEN_HASH_HEX + 1];
    account_token_new(other, hash);
    assert_int_equal(account_verify(&c, other), ACCOUNT_LINK_UNKNOWN);
    /* a new link works */
    assert_int_equal(account_resend_verification(&c, BASE, &a), ACCOUNT_OK);
    struct mail again = one_mail(f, c.now, "late@example.org");
    assert_string_not_equal(again.token, m.token);
    assert_int_equal(account_verify(&c, again.token), ACCOUNT_OK);
    assert_int_equal(accounts_by_email(f->d->s, "late@example.org", &a), 1);
    assert_true(a.verified);
}

/* ---- sign-in, sessions, sign-out ---------------------------------------------------- */

static void test_signin_outcomes_and_sessions(void **state)
{
    struct fx *f = *state;
    struct account_row a;
    struct account_result r;
    struct session_row sess;
    verified_account(f, NOW, "in@example.org", &a);
    struct app_ctx c = at(f, NOW + SEC);
    assert_int_equal(account_signin(&c, &f->lim, "in@example.org", "", IP, NULL, &r),
                     ACCOUNT_MISSING);
    assert_int_equal(account_signin(&c, &f->lim, "in", PW, IP, NULL, &r), ACCOUNT_MISSING);
    assert_int_equal(account_signin(&c, &f->lim, "in@example.org", PW2, IP, NULL, &r),
                     ACCOUNT_WRONG_PASSWORD);
    /* an unknown address reads the same as a wrong password */
    assert_int_equal(account_signin(&c, &f->lim, "out@example.org", PW, IP, NULL, &r),
                     ACCOUNT_WRONG_PASSWORD);
    assert_int_equal(account_signin(&c, &f->lim, "IN@example.org", PW, IP, NULL, &r), ACCOUNT_OK);
    char first[ACCOUNT_COOKIE_LEN + 1];
    memcpy(first, r.cookie, sizeof first);
    assert_int_equal(account_session(&c, first, 0, &sess), 1);
    assert_string_equal(sess.account.id, a.id);
    /* signing in again from this browser ends the session it had */
    assert_int_equal(account_signin(&c, &f->lim, "in@example.org", PW, IP, first, &r), ACCOUNT_OK);
    assert_int_equal(account_session(&c, first, 0, &sess), 0);
    assert_int_equal(account_session(&c, r.cookie, 0, &sess), 1);
    /* forged and missing cookies name no session */
    char forged[ACCOUNT_COOKIE_LEN + 1];
    memcpy(forged, r.cookie, sizeof forged);
    forged[ACCOUNT_COOKIE_LEN - 1] = forged[ACCOUNT_COOKIE_LEN - 1] == '0' ? '1' : '0';
    assert_int_equal(account_session(&c, forged, 0, &sess), 0);
    assert_int_equal(account_session(&c, NULL, 0, &sess), 0);
    /* sign-out ends it; sessions last 30 days otherwise */
    struct app_ctx late = at(f, NOW + SEC + ACCOUNT_SESSION_TTL_US);
    assert_int_equal(account_session(&late, r.cookie, 0, &sess), 0);
    assert_int_equal(account_session(&c, r.cookie, 0, &sess), 1);
    assert_int_equal(account_signout(&c, sess.hash), ACCOUNT_OK);
    assert_int_equal(account_session(&c, r.cookie, 0, &sess), 0);
    account_result_wipe(&r);
}

/* N failed sign-ins for one email address from one client address lock that pair (even
 * with the right password) for the window; the owner elsewhere is not locked out (issue 14,
 * item 2); once the window is over the pair is free again. */
static void test_signin_limited_per_address_then_free(void **state)
{
    struct fx *f = *state;
    struct account_row a;
    struct account_result r;
    f->lim.signin_per_account = 3;
    verified_account(f, NOW, "lock@example.org", &a);
    for (int i = 0; i < 3; i++)
        assert_int_equal(signin(f, NOW + i * SEC, "lock@example.org", PW2, IP2, &r),
                         ACCOUNT_WRONG_PASSWORD);
    assert_int_equal(signin(f, NOW + 10 * SEC, "lock@example.org", PW, IP2, &r), ACCOUNT_LIMITED);
    assert_int_equal(r.retry_s, 15 * 60 - 10);
    /* the attacker at IP2 did not lock the owner out: from IP the password works */
    assert_int_equal(signin(f, NOW + 11 * SEC, "lock@example.org", PW, IP, &r), ACCOUNT_OK);
    account_result_wipe(&r);
    /* ... and the owner's own failures count apart from the attacker's */
    for (int i = 0; i < 2; i++)
        assert_int_equal(signin(f, NOW + 12 * SEC, "lock@example.org", PW2, IP, &r),
                         ACCOUNT_WRONG_PASSWORD);
    assert_int_equal(signin(f, NOW + 13 * SEC, "lock@example.org", PW, IP, &r), ACCOUNT_OK);
    account_result_wipe(&r);
    /* an address without an account is limited the same way */
    for (int i = 0; i < 3; i++)
        assert_int_equal(signin(f, NOW + i * SEC, "ghost@example.org", PW, IP2, &r),
                         ACCOUNT_WRONG_PASSWORD);
    assert_int_equal(signin(f, NOW + 10 * SEC, "ghost@example.org", PW, IP2, &r), ACCOUNT_LIMITED);
    assert_int_equal(signin(f, NOW + ACCOUNT_SIGNIN_WINDOW_US - 1, "lock@example.org", PW, IP2, &r),
                     ACCOUNT_LIMITED);
    assert_int_equal(signin(f, NOW + ACCOUNT_SIGNIN_WINDOW_US, "lock@example.org", PW, IP2, &r),
                     ACCOUNT_OK);
    account_result_wipe(&r);
}

static void test_signin_limited_per_client(void **state)
{
    struct fx *f = *state;
    struct account_row a;
    struct account_result r;
    char email[64];
    f->lim.signin_per_ip = 3;
    verified_account(f, NOW, "ip@example.org", &a);
    for (int i = 0; i < 3; i++) {
        snprintf(email, sizeof email, "guess%d@example.org", i);
        assert_int_equal(signin(f, NOW + SEC, email, PW, IP, &r), ACCOUNT_WRONG_PASSWORD);
    }
    assert_int_equal(signin(f, NOW + 2 * SEC, "ip@example.org", PW, IP, &r), ACCOUNT_LIMITED);
    assert_int_equal(signin(f, NOW + 2 * SEC, "ip@example.org", PW, IP2, &r), ACCOUNT_OK);
    assert_int_equal(signin(f, NOW + SEC + ACCOUNT_SIGNIN_WINDOW_US, "ip@example.org", PW, IP, &r),
                     ACCOUNT_OK);
}

static void test_banned_account(void **state)
{
    struct fx *f = *state;
    struct account_row a;
    struct account_result r;
    verified_account(f, NOW, "ban@example.org", &a);
    struct app_ctx c = at(f, NOW + SEC);
    assert_int_equal(account_set_banned(&c, "nobody@example.org", true, NULL), ACCOUNT_NOT_FOUND);
    assert_int_equal(account_set_banned(&c, "ban@example.org", true, NULL), ACCOUNT_OK);
    /* only the right password learns of the ban */
    assert_int_equal(signin(f, NOW + SEC, "ban@example.org", PW2, IP, &r), ACCOUNT_WRONG_PASSWORD);
    assert_int_equal(signin(f, NOW + SEC, "ban@example.org", PW, IP, &r), ACCOUNT_SUSPENDED);
    /* no reset link for a banned account, and the same answer */
    assert_int_equal(account_forgot(&c, &f->lim, "ban@example.org", IP, &r), ACCOUNT_OK);
    assert_int_equal(settle(f, c.now), 1);
    assert_int_equal(queued(f), 0);
    assert_int_equal(mails_to(f, "ban@example.org", NOW), 0); /* after the verification */
    assert_int_equal(account_set_banned(&c, "ban@example.org", false, NULL), ACCOUNT_OK);
    assert_int_equal(signin(f, NOW + 2 * SEC, "ban@example.org", PW, IP, &r), ACCOUNT_OK);
}

/* ---- reset and password change ------------------------------------------------------ */

static void record(void *arg, const char *what)
{
    buf_printf(arg, "%s\n", what);
}

/* The number of rows of every table, as "name=count\n" lines (sorted by name). */
static void table_rows(struct fx *f, struct buf *out)
{
    struct arena a;
    arena_init(&a);
    const char *names[64];
    size_t n = 0;
    struct store_stmt *st = store_prepare(
        f->d->s, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                 " ORDER BY name");
    assert_non_null(st);
    while (store_step(st) == STORE_ROW && n < 64)
        names[n++] = arena_strdup(&a, store_col_text(st, 0));
    store_reset(st);
    assert_true(n > 10 && n < 64);
    buf_reset(out);
    for (size_t i = 0; i < n; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", names[i]);
        st = store_prepare(f->d->s, sql);
        assert_non_null(st);
        assert_int_equal(store_step(st), STORE_ROW);
        buf_printf(out, "%s=%lld\n", names[i], (long long)store_col_int(st, 0));
        store_reset(st);
    }
    arena_release(&a);
}

/* What one forgot-password request at `now` from client address ip does: its statements and
 * transaction steps in order (trace), and the tables whose row counts it changed, with the
 * change (rows: "name +n" lines). */
static void forgot_work(struct fx *f, int64_t now, const char *email, const char *ip,
                        struct buf *trace, struct buf *rows)
{
    struct app_ctx c = at(f, now);
    struct account_result r;
    struct buf before = BUF_INIT, after = BUF_INIT;
    table_rows(f, &before);
    buf_reset(trace);
    store_trace(f->d->s, record, trace);
    assert_int_equal(account_forgot(&c, &f->lim, email, ip, &r), ACCOUNT_OK);
    store_trace(f->d->s, NULL, NULL);
    table_rows(f, &after);
    buf_reset(rows);
    /* the same tables in the same order: compare line by line */
    char *b = before.p, *a = after.p;
    while (*b && *a) {
        char *be = strchr(b, '\n'), *ae = strchr(a, '\n');
        char *beq = strchr(b, '='), *aeq = strchr(a, '=');
        assert_true(beq - b == aeq - a && memcmp(b, a, (size_t)(beq - b)) == 0);
        long long d = strtoll(aeq + 1, NULL, 10) - strtoll(beq + 1, NULL, 10);
        if (d)
            buf_printf(rows, "%.*s %+lld\n", (int)(beq - b), b, d);
        b = be + 1;
        a = ae + 1;
    }
    buf_release(&before);
    buf_release(&after);
}

/* The one queued request: its address and time. */
static void the_request(struct fx *f, const char *email, int64_t created_at)
{
    struct reset_request_row q;
    assert_int_equal(queued(f), 1);
    assert_int_equal(reset_requests_oldest(f->d->s, &q), 1);
    assert_string_equal(q.email, email);
    assert_int_equal(q.created_at, created_at);
    assert_int_equal(strlen(q.id), UUID_STR_LEN);
}

/* docs/accounts.md promises the same work for registered and unregistered addresses
 * (issue 14 item 8). A forgot-password request runs the same statements in the same order
 * AND writes the same rows (one new rate window of its client address, one queued request;
 * no token, no message, no account read) for an address with an account, one without, a
 * banned one and one whose hourly mail cap is reached. Each request comes from a client
 * address of its own so that each opens a window of its own. Only the worker's half,
 * later, mails the registered address. A structural test, not a timing one. */
static void test_forgot_does_the_same_work_either_way(void **state)
{
    struct fx *f = *state;
    struct account_row a;
    struct buf known = BUF_INIT, unknown = BUF_INIT, banned = BUF_INIT, capped = BUF_INIT;
    struct buf known_rows = BUF_INIT, rows = BUF_INIT;
    static const char *const caps[] = {"192.0.2.20", "192.0.2.21", "192.0.2.22", "192.0.2.23",
                                       "192.0.2.24"};
    _Static_assert(sizeof caps / sizeof caps[0] == APP_MAIL_PER_RECIPIENT_HOUR, "one per mail");
    const int64_t t1 = NOW + SEC, t2 = NOW + 2 * SEC;
    verified_account(f, NOW, "known@example.org", &a);
    verified_account(f, NOW, "banned@example.org", &a);
    struct app_ctx c = at(f, NOW);
    assert_int_equal(account_set_banned(&c, "banned@example.org", true, NULL), ACCOUNT_OK);

    forgot_work(f, t1, "Known@example.org", "192.0.2.10", &known, &known_rows);
    the_request(f, "known@example.org", t1);
    assert_string_equal(known_rows.p, "rate_windows +1\nreset_requests +1\n");
    assert_int_equal(settle(f, t1), 1);
    forgot_work(f, t1, "unknown@example.org", "192.0.2.11", &unknown, &rows);
    assert_string_equal(rows.p, known_rows.p);
    the_request(f, "unknown@example.org", t1);
    assert_int_equal(settle(f, t1), 1);
    forgot_work(f, t1, "banned@example.org", "192.0.2.12", &banned, &rows);
    assert_string_equal(rows.p, known_rows.p);
    the_request(f, "banned@example.org", t1);
    assert_int_equal(settle(f, t1), 1);

    assert_non_null(strstr(known.p, "BEGIN ROW WRITE\n"));
    assert_non_null(strstr(known.p, "INSERT INTO reset_requests"));
    assert_non_null(strstr(known.p, "COMMIT\n"));
    assert_null(strstr(known.p, "ROLLBACK"));
    assert_null(strstr(known.p, "accounts"));
    assert_null(strstr(known.p, "outbox"));
    assert_string_equal(known.p, unknown.p);
    assert_string_equal(known.p, banned.p);
    /* the worker mailed the registered address only */
    assert_int_equal(mails_to(f, "known@example.org", NOW + SEC / 2), 1);
    assert_int_equal(mails_to(f, "unknown@example.org", 0), 0);
    assert_int_equal(mails_to(f, "banned@example.org", NOW + SEC / 2), 0);

    /* the per-recipient cap: the same request once it is reached */
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        forgot_work(f, t2, "known@example.org", caps[k], &capped, &rows);
        assert_string_equal(rows.p, known_rows.p);
        assert_string_equal(known.p, capped.p);
        assert_int_equal(settle(f, t2), 1);
    }
    assert_int_equal(mails_to(f, "known@example.org", NOW - SEC), APP_MAIL_PER_RECIPIENT_HOUR);
    assert_int_equal(queued(f), 0);
    buf_release(&known);
    buf_release(&unknown);
    buf_release(&banned);
    buf_release(&capped);
    buf_release(&known_rows);
    buf_release(&rows);
}

/* The queue is emptied: a request is deleted when the worker takes it (by one worker only),
 * and one older than a reset link's lifetime is deleted without an email; the link of a
 * request taken late still lasts 1 hour from the request. */
static void test_forgot_queue_is_emptied(void **state)
{
    struct fx *f = *state;
    struct account_row a;
    struct account_result r;
    struct reset_request_row q;
    verified_account(f, NOW, "queue@example.org", &a);
    struct app_ctx c = at(f, NOW + SEC);
    assert_int_equal(settle(f, c.now), 0); /* nothing queued: nothing done */
    /* taken by one worker only: the delete is the claim */
    assert_int_equal(account_forgot(&c, &f->lim, "queue@example.org", IP, &r), ACCOUNT_OK);
    assert_int_equal(reset_requests_oldest(f->d->s, &q), 1);
    assert_int_equal(reset_requests_take(f->d->s, q.id), 1);
    assert_int_equal(reset_requests_take(f->d->s, q.id), 0);
    assert_int_equal(queued(f), 0);
    /* taken at the very end of the link's lifetime: mailed, the link valid until then */
    assert_int_equal(account_forgot(&c, &f->lim, "queue@example.org", IP, &r), ACCOUNT_OK);
    struct mail m = one_mail(f, NOW + SEC + ACCOUNT_RESET_TTL_US - 2, "queue@example.org");
    struct app_ctx late = at(f, NOW + SEC + ACCOUNT_RESET_TTL_US - 1);
    assert_int_equal(account_link_check(&late, ACCOUNT_LINK_RESET, m.token), ACCOUNT_OK);
    late.now++;
    assert_int_equal(account_link_check(&late, ACCOUNT_LINK_RESET, m.token), ACCOUNT_LINK_EXPIRED);
    /* taken after it: deleted, nothing mailed */
    assert_int_equal(account_forgot(&c, &f->lim, "queue@example.org", IP, &r), ACCOUNT_OK);
    assert_int_equal(settle(f, NOW + SEC + ACCOUNT_RESET_TTL_US), 1);
    assert_int_equal(queued(f), 0);
    assert_int_equal(mails_to(f, "queue@example.org", NOW + SEC / 2), 1);
    /* housekeeping forgets what no worker took within the lifetime */
    assert_int_equal(account_forgot(&c, &f->lim, "queue@example.org", IP, &r), ACCOUNT_OK);
    assert_int_equal(reset_requests_prune(f->d->s, c.now - 1), 0);
    assert_int_equal(queued(f), 1);
    assert_int_equal(reset_requests_prune(f->d->s, c.now), 0);
    assert_int_equal(queued(f), 0);
}

static void test_forgot_and_reset(void **state)
{
    struct fx *f = *state;
    struct account_row a;
    struct account_result r, s1;
    struct session_row sess;
    verified_account(f, NOW, "reset@example.org", &a);
    struct app_ctx c = at(f, NOW + SEC);
    assert_int_equal(account_forgot(&c, &f->lim, "bad address", IP, &r), ACCOUNT_BAD_EMAIL);
    assert_int_equal(account_forgot(&c, &f->lim, "none@example.org", IP, &r), ACCOUNT_OK);
    assert_int_equal(settle(f, c.now), 1);
    assert_int_equal(mails_to(f, "none@example.org", 0), 0);
    assert_int_equal(account_signin(&c, &f->lim, "reset@example.org", PW, IP, NULL, &s1),
                     ACCOUNT_OK);
    assert_int_equal(account_forgot(&c, &f->lim, "Reset@example.org", IP, &r), ACCOUNT_OK);
    struct mail old = one_mail(f, c.now, "reset@example.org");
    c.now = NOW + 2 * SEC;
    assert_int_equal(account_forgot(&c, &f->lim, "reset@example.org", IP, &r), ACCOUNT_OK);
    struct mail m = one_mail(f, c.now, "reset@example.org");
    assert_string_equal(m.subject, "Reset your Whistle password");
    assert_true(m.reset_link);
    /* a refused password leaves the link valid */
    assert_int_equal(account_reset(&c, &f->lim, m.token, "short", &r), ACCOUNT_BAD_PASSWORD);
    assert_int_equal(account_reset(&c, &f->lim, m.token, NULL, &r), ACCOUNT_BAD_PASSWORD);
    assert_string_equal(r.problem, "enter a new password");
    assert_int_equal(account_reset(&c, &f->lim, m.token, PW2, &r), ACCOUNT_OK);
    /* one transaction: the password, every session, every other reset link */
    assert_int_equal(signin(f, c.now, "reset@example.org", PW, IP2, &r), ACCOUNT_WRONG_PASSWORD);
    assert_int_equal(account_session(&c, s1.cookie, 0, &sess), 0);
    assert_int_equal(account_reset(&c, &f->lim, m.token, PW, &r), ACCOUNT_LINK_USED);
    assert_int_equal(account_reset(&c, &f->lim, old.token, PW, &r), ACCOUNT_LINK_USED);
    assert_int_equal(account_reset(&c, &f->lim, "nope", PW, &r), ACCOUNT_LINK_UNKNOWN);
    assert_int_equal(signin(f, c.now, "reset@example.org", PW2, IP2, &r), ACCOUNT_OK);
    account_result_wipe(&s1);
}

static void test_reset_link_expires_and_proves_the_mailbox(void **state)
{
    struct fx *f = *state;
    struct account_result r;
    struct account_row a;
    struct app_ctx c = at(f, NOW);
    assert_int_equal(account_signup(&c, &f->lim, BASE, "unv@example.org", PW, IP, &r), ACCOUNT_OK);
    (void)one_mail(f, NOW, "unv@example.org");
    c.now = NOW + SEC;
    assert_int_equal(account_forgot(&c, &f->lim, "unv@example.org", IP, &r), ACCOUNT_OK);
    struct mail m = one_mail(f, c.now, "unv@example.org");
    c.now = NOW + SEC + ACCOUNT_RESET_TTL_US;
    assert_int_equal(account_link_check(&c, ACCOUNT_LINK_RESET, m.token), ACCOUNT_LINK_EXPIRED);
    assert_int_equal(account_reset(&c, &f->lim, m.token, PW2, &r), ACCOUNT_LINK_EXPIRED);
    c.now = NOW + SEC + ACCOUNT_RESET_TTL_US - 1;
    assert_int_equal(account_reset(&c, &f->lim, m.token, PW2, &r), ACCOUNT_OK);
    assert_int_equal(accounts_by_email(f->d->s, "unv@example.org", &a), 1);
    assert_true(a.verified);
}

static void test_password_change(void **state)
{
    struct fx *f = *state;
    struct account_row a;
    struct account_result r, other;
    struct session_row sess;
    f->lim.signin_per_account = 2;
    verified_account(f, NOW, "chg@example.org", &a);
    struct app_ctx c = at(f, NOW + SEC);
    assert_int_equal(account_signin(&c, &f->lim, "chg@example.org", PW, IP, NULL, &other),
                     ACCOUNT_OK);
    assert_int_equal(account_password_change(&c, &f->lim, &a, PW, "short", IP, &r),
                     ACCOUNT_BAD_PASSWORD);
    assert_int_equal(account_password_change(&c, &f->lim, &a, PW, "chg@example.org", IP, &r),
                     ACCOUNT_BAD_PASSWORD);
    assert_int_equal(account_password_change(&c, &f->lim, &a, PW, PW2, IP, &r), ACCOUNT_OK);
    /* the other session ended, the new cookie names a live one */
    assert_int_equal(account_session(&c, other.cookie, 0, &sess), 0);
    assert_int_equal(account_session(&c, r.cookie, 0, &sess), 1);
    account_result_wipe(&r);
    assert_int_equal(accounts_by_email(f->d->s, "chg@example.org", &a), 1);
    /* a wrong current password counts as a failed sign-in */
    assert_int_equal(account_password_change(&c, &f->lim, &a, PW, PW, IP, &r),
                     ACCOUNT_WRONG_PASSWORD);
    assert_int_equal(account_password_change(&c, &f->lim, &a, NULL, PW, IP, &r),
                     ACCOUNT_WRONG_PASSWORD);
    assert_int_equal(account_password_change(&c, &f->lim, &a, PW2, PW, IP, &r), ACCOUNT_LIMITED);
    assert_int_equal(signin(f, c.now, "chg@example.org", PW2, IP, &r), ACCOUNT_LIMITED);
    /* the pair (account, IP) is limited, not the account: from IP2 it signs in */
    assert_int_equal(signin(f, c.now, "chg@example.org", PW2, IP2, &r), ACCOUNT_OK);
    account_result_wipe(&r);
    c.now += ACCOUNT_SIGNIN_WINDOW_US;
    assert_int_equal(account_password_change(&c, &f->lim, &a, PW2, PW, IP, &r), ACCOUNT_OK);
    account_result_wipe(&r);
    account_result_wipe(&other);
}

/* ---- agent keys ------------------------------------------------------------------------ */

static struct key_info *find_key(struct key_info *keys, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i].id, id) == 0)
            return &keys[i];
    return NULL;
}

static void test_key_create_rules_for_an_account(void **state)
{
    struct fx *f = *state;
    struct account_row a;
    struct account_result r;
    struct key_new k;
    int64_t active = -1;
    struct app_ctx c = at(f, NOW);
    assert_int_equal(account_signup(&c, &f->lim, BASE, "dev@example.org", PW, IP, &r), ACCOUNT_OK);
    assert_int_equal(accounts_by_email(f->d->s, "dev@example.org", &a), 1);
    struct key_request in = {.account = &a, .name = "bot"};
    assert_int_equal(key_create(&c, &f->lim, &in, &k), KEY_UNVERIFIED);
    assert_int_equal(key_may_create(&c, &f->lim, &a, &active), KEY_UNVERIFIED);
    struct mail m = one_mail(f, NOW, "dev@example.org");
    assert_int_equal(account_verify(&c, m.token), ACCOUNT_OK);
    assert_int_equal(accounts_by_email(f->d->s, "dev@example.org", &a), 1);
    in.name = "  ";
    assert_int_equal(key_create(&c, &f->lim, &in, &k), KEY_BAD_NAME);
    assert_string_equal(k.problem, "give the key a name");
    in.name = NULL;
    assert_int_equal(key_create(&c, &f->lim, &in, &k), KEY_BAD_NAME);
    in.name = " bot ";
    char first[UUID_STR_LEN + 1] = "";
    for (int i = 0; i < 3; i++) {
        c.now = NOW + (i + 1) * SEC;
        assert_int_equal(key_create(&c, &f->lim, &in, &k), KEY_OK);
        assert_true(agent_key_well_formed(k.secret));
        assert_string_equal(k.name, "bot");
        assert_int_equal(k.expires_at, c.now + AGENT_KEY_LIFETIME_US);
        if (i == 0)
            memcpy(first, k.id, sizeof first);
        key_new_wipe(&k);
    }
    assert_int_equal(key_create(&c, &f->lim, &in, &k), KEY_LIMIT);
    assert_int_equal(key_may_create(&c, &f->lim, &a, &active), KEY_LIMIT);
    assert_int_equal(active, 3);
    /* a revoked key frees its slot */
    assert_int_equal(key_revoke(&c, a.id, first), KEY_OK);
    assert_int_equal(key_revoke(&c, a.id, first), KEY_ALREADY_REVOKED);
    assert_int_equal(key_may_create(&c, &f->lim, &a, &active), KEY_OK);
    assert_int_equal(active, 2);
    /* and so does an expired one, 90 days on */
    c.now = NOW + SEC + AGENT_KEY_LIFETIME_US;
    assert_int_equal(key_may_create(&c, &f->lim, &a, &active), KEY_OK);
    assert_int_equal(active, 2);
    struct key_info *keys;
    size_t n;
    assert_int_equal(key_list(&c, "dev@example.org", &keys, &n), KEY_OK);
    assert_int_equal(n, 3);
    assert_int_equal(find_key(keys, n, first)->state, AGENT_KEY_REVOKED);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(keys[i].owner, "dev@example.org");
        assert_string_equal(keys[i].name, "bot");
        if (strcmp(keys[i].id, first) != 0)
            assert_int_equal(keys[i].state,
                             keys[i].expires_at <= c.now ? AGENT_KEY_EXPIRED : AGENT_KEY_ACTIVE);
    }
    /* a banned owner may create none */
    assert_int_equal(account_set_banned(&c, "dev@example.org", true, NULL), ACCOUNT_OK);
    assert_int_equal(accounts_by_email(f->d->s, "dev@example.org", &a), 1);
    assert_int_equal(key_create(&c, &f->lim, &in, &k), KEY_SUSPENDED);
    assert_int_equal(key_may_create(&c, &f->lim, &a, &active), KEY_SUSPENDED);
}

static void test_key_revoke_is_owned_and_operator_keys(void **state)
{
    struct fx *f = *state;
    struct account_row a;
    struct key_new k, mine;
    struct app_ctx c = at(f, NOW);
    verified_account(f, NOW, "own@example.org", &a);
    /* the operator vouches for a new address, past any cap, with or without a name */
    struct key_request op = {.owner_email = "ops@example.org"};
    for (int i = 0; i < f->lim.max_agent_keys + 1; i++) {
        assert_int_equal(key_create(&c, &f->lim, &op, &k), KEY_OK);
        key_new_wipe(&k);
    }
    struct key_new bad;
    op.name = "\x01";
    assert_int_equal(key_create(&c, &f->lim, &op, &bad), KEY_BAD_NAME);
    struct account_row ops;
    assert_int_equal(accounts_by_email(f->d->s, "ops@example.org", &ops), 1);
    assert_true(ops.verified);
    assert_string_equal(ops.password_hash, "");
    struct key_request in = {.account = &a, .name = "mine"};
    assert_int_equal(key_create(&c, &f->lim, &in, &mine), KEY_OK);
    key_new_wipe(&mine);
    /* an account cannot revoke another's key, nor an unknown one; the operator can */
    assert_int_equal(key_revoke(&c, a.id, k.id), KEY_NOT_FOUND);
    assert_int_equal(key_revoke(&c, a.id, "00000000-0000-4000-8000-000000000000"), KEY_NOT_FOUND);
    assert_int_equal(key_revoke(&c, NULL, k.id), KEY_OK);
    assert_int_equal(key_revoke(&c, NULL, k.id), KEY_ALREADY_REVOKED);
    assert_int_equal(key_revoke(&c, NULL, "00000000-0000-4000-8000-000000000000"), KEY_NOT_FOUND);
    struct key_info *keys;
    size_t n;
    assert_int_equal(key_list(&c, NULL, &keys, &n), KEY_OK);
    assert_int_equal(n, (size_t)f->lim.max_agent_keys + 2);
    assert_int_equal(find_key(keys, n, k.id)->state, AGENT_KEY_REVOKED);
    assert_null(find_key(keys, n, k.id)->name);
    assert_string_equal(find_key(keys, n, mine.id)->name, "mine");
    assert_int_equal(key_list(&c, "own@example.org", &keys, &n), KEY_OK);
    assert_int_equal(n, 1);
    assert_int_equal(key_list(&c, "nobody@example.org", &keys, &n), KEY_OK);
    assert_int_equal(n, 0);
    /* a ban shows on every key of the account */
    assert_int_equal(account_set_banned(&c, "own@example.org", true, NULL), ACCOUNT_OK);
    assert_int_equal(key_list(&c, "own@example.org", &keys, &n), KEY_OK);
    assert_int_equal(keys[0].state, AGENT_KEY_BANNED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_signup_new_account_and_verify, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signup_refuses_bad_passwords_without_writing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_signup_taken_address_is_enumeration_safe, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mail_forms_limited_per_client_for_an_hour, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mail_per_recipient_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verification_links_expire_and_resend, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signin_outcomes_and_sessions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signin_limited_per_address_then_free, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signin_limited_per_client, setup, teardown),
        cmocka_unit_test_setup_teardown(test_banned_account, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forgot_and_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forgot_does_the_same_work_either_way, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forgot_queue_is_emptied, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reset_link_expires_and_proves_the_mailbox, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_password_change, setup, teardown),
        cmocka_unit_test_setup_teardown(test_key_create_rules_for_an_account, setup, teardown),
        cmocka_unit_test_setup_teardown(test_key_revoke_is_owned_and_operator_keys, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
