/* The comment use cases (app/comments.c) against a real SQLite file with an explicit now:
 * each outcome, the edit window, pre-moderation, reports, moderation and suspension, and
 * that incidents.comment_count equals the visible comments after every change. */
#include "handlerkit.h"

#include "app/comments.h"
#include "store/comments.h"

#define SEC INT64_C(1000000)
#define NOW (INT64_C(1764000000) * SEC)

#define A1 "a1111111-1111-4111-8111-111111111111" /* verified, named */
#define A2 "a2222222-2222-4222-8222-222222222222" /* verified, named */
#define A3 "a3333333-3333-4333-8333-333333333333" /* verified, named */
#define AU "a4444444-4444-4444-8444-444444444444" /* unverified */
#define AN "a5555555-5555-4555-8555-555555555555" /* verified, no display name */
#define AM "a6666666-6666-4666-8666-666666666666" /* moderator */
#define ACCOUNTS                                                                                   \
    "INSERT INTO accounts (id, email, display_name, display_key, email_verified, banned,"          \
    " created_at, updated_at) VALUES"                                                              \
    " ('" A1 "', 'a1@example.org', 'Fan One', 'fanone', 1, 0, 0, 0),"                              \
    " ('" A2 "', 'a2@example.org', 'Fan Two', 'fantwo', 1, 0, 0, 0),"                              \
    " ('" A3 "', 'a3@example.org', 'Fan Three', 'fanthree', 1, 0, 0, 0),"                          \
    " ('" AU "', 'au@example.org', 'Unverified', 'unverified', 0, 0, 0, 0),"                       \
    " ('" AN "', 'an@example.org', NULL, NULL, 1, 0, 0, 0),"                                       \
    " ('" AM "', 'am@example.org', 'The Mod', 'themod', 1, 0, 0, 0);"                              \
    "INSERT INTO account_roles (account_id, role, granted_at, granted_by) VALUES"                  \
    " ('" AM "', 'moderator', 0, 'operator')"

/* The fixture: the seed with ACCOUNTS, its use-case context (t->c) at NOW. */
static int setup(void **state)
{
    struct hk *t = hk_open(ACCOUNTS);
    *state = t;
    if (!t)
        return -1;
    t->c.now = NOW;
    return 0;
}

static int64_t scalar(struct hk *t, const char *sql)
{
    struct store_stmt *st = store_prepare(t->c.s, sql);
    assert_non_null(st);
    assert_int_equal(store_step(st), STORE_ROW);
    int64_t v = store_col_int(st, 0);
    store_reset(st);
    return v;
}

/* The invariant: the stored count equals the visible rows, and every reply_count its rows. */
static void check_counts(struct hk *t)
{
    assert_int_equal(
        scalar(t, "SELECT comment_count FROM incidents WHERE id = '" HK_P "'"),
        scalar(t, "SELECT count(*) FROM comments WHERE incident_id = '" HK_P "'"
                  " AND status = 'published' AND report_hidden = 0 AND author_hidden = 0"));
    assert_int_equal(scalar(t, "SELECT count(*) FROM comments c WHERE reply_count <>"
                               " (SELECT count(*) FROM comments r WHERE r.parent_id = c.id"
                               " AND r.visible = 1)"),
                     0);
}

static int64_t count(struct hk *t)
{
    return scalar(t, "SELECT comment_count FROM incidents WHERE id = '" HK_P "'");
}

static const char *post(struct hk *t, const char *account, const char *parent, const char *body,
                        int expect)
{
    struct comment_post in = {.account_id = account,
                              .key = "late-flag",
                              .parent_id = parent,
                              .body = body,
                              .address = "192.0.2.1",
                              .limit_account = 5,
                              .limit_address = 30};
    struct comment_result r;
    assert_int_equal(comment_post(&t->c, &in, &r), expect);
    check_counts(t);
    return r.id;
}

static void approve(struct hk *t, const char *id)
{
    struct comment_result r;
    assert_int_equal(comment_moderate(&t->c, NULL, id, "approve", NULL, &r), COMMENT_OK);
    check_counts(t);
}

/* A1's first three comments, approved: A1 is trusted from here on. */
static void trust(struct hk *t, const char *account)
{
    for (int i = 0; i < 3; i++) {
        approve(t, post(t, account, NULL, "warm-up words", COMMENT_OK));
        t->c.now += 61 * SEC;
    }
}

static void test_post_refusals(void **state)
{
    struct hk *t = *state;
    struct comment_post in = {.account_id = A1,
                              .key = "gone",
                              .body = "hello",
                              .address = "x",
                              .limit_account = 5,
                              .limit_address = 30};
    struct comment_result r;
    assert_int_equal(comment_post(&t->c, &in, &r), COMMENT_MISSING);
    in.key = "late-flag-again";
    assert_int_equal(comment_post(&t->c, &in, &r), COMMENT_MERGED);
    assert_string_equal(r.survivor_id, HK_P);
    in.key = HK_NONE;
    assert_int_equal(comment_post(&t->c, &in, &r), COMMENT_MISSING);
    in.key = "late-flag";
    in.body = "x";
    assert_int_equal(comment_post(&t->c, &in, &r), COMMENT_INVALID);
    in.body = "fine words";
    in.account_id = AU;
    assert_int_equal(comment_post(&t->c, &in, &r), COMMENT_FORBIDDEN);
    in.account_id = AN;
    assert_int_equal(comment_post(&t->c, &in, &r), COMMENT_NEEDS_NAME);
    in.account_id = A1;
    in.parent_id = HK_NONE;
    assert_int_equal(comment_post(&t->c, &in, &r), COMMENT_INVALID);
    in.parent_id = "not-a-uuid";
    assert_int_equal(comment_post(&t->c, &in, &r), COMMENT_INVALID);
    assert_int_equal(scalar(t, "SELECT count(*) FROM comments"), 0);
}

static void test_premoderation_and_replies(void **state)
{
    struct hk *t = *state;
    const char *held = post(t, A1, NULL, "first words", COMMENT_OK);
    struct comment cm;
    assert_int_equal(comments_get(t->c.s, t->c.a, held, &cm), 1);
    assert_string_equal(cm.status, "pending");
    assert_string_equal(cm.held_reason, "new_account");
    assert_int_equal(count(t), 0);
    approve(t, held);
    assert_int_equal(count(t), 1);
    t->c.now += 61 * SEC;
    trust(t, A2);
    const char *top = post(t, A2, NULL, "a trusted take", COMMENT_OK);
    const char *reply = post(t, A2, top, "a reply", COMMENT_OK);
    const char *nested = post(t, A2, reply, "a nested reply", COMMENT_OK);
    assert_int_equal(comments_get(t->c.s, t->c.a, nested, &cm), 1);
    assert_string_equal(cm.parent_id, top);
    assert_int_equal(comments_get(t->c.s, t->c.a, top, &cm), 1);
    assert_int_equal(cm.reply_count, 2);
    /* a word-list match is held even for a trusted account */
    struct comment_result r;
    assert_int_equal(comment_words_change(&t->c, true, "Frob", &r), COMMENT_OK);
    t->c.now += 61 * SEC;
    const char *listed = post(t, A2, NULL, "total FROB", COMMENT_OK);
    assert_int_equal(comments_get(t->c.s, t->c.a, listed, &cm), 1);
    assert_string_equal(cm.held_reason, "word_list");
}

static void test_edit_window_and_delete(void **state)
{
    struct hk *t = *state;
    trust(t, A1);
    const char *id = post(t, A1, NULL, "original", COMMENT_OK);
    const char *reply = post(t, A1, id, "reply", COMMENT_OK);
    struct comment_result r;
    struct comment cm;
    t->c.now += 10 * 60 * SEC - 1;
    assert_int_equal(comment_edit(&t->c, A1, id, "changed", &r), COMMENT_OK);
    assert_int_equal(comment_edit(&t->c, A2, id, "hijack", &r), COMMENT_FORBIDDEN);
    assert_int_equal(comment_read_own(&t->c, A1, id, &cm, &r), COMMENT_OK);
    t->c.now += 1;
    assert_int_equal(comment_edit(&t->c, A1, id, "too late", &r), COMMENT_CLOSED);
    assert_int_equal(comment_read_own(&t->c, A1, id, &cm, &r), COMMENT_CLOSED);
    assert_int_equal(comments_get(t->c.s, t->c.a, id, &cm), 1);
    assert_string_equal(cm.body, "changed");
    assert_int_equal(cm.edited_at, NOW + 3 * 61 * SEC + 10 * 60 * SEC - 1);
    int64_t before = count(t);
    assert_int_equal(comment_delete(&t->c, A2, id, &r), COMMENT_FORBIDDEN);
    assert_int_equal(comment_delete(&t->c, A1, id, &r), COMMENT_OK);
    check_counts(t);
    assert_int_equal(count(t), before - 1);
    assert_int_equal(comment_delete(&t->c, A1, id, &r), COMMENT_CLOSED);
    assert_int_equal(comments_get(t->c.s, t->c.a, reply, &cm), 1);
    assert_true(cm.visible);
}

static void test_reports_moderation_suspension(void **state)
{
    struct hk *t = *state;
    trust(t, A1);
    const char *id = post(t, A1, NULL, "spicy", COMMENT_OK);
    const char *r2 = post(t, A1, id, "my own reply", COMMENT_OK);
    struct comment_result r;
    int64_t before = count(t);
    assert_int_equal(comment_report(&t->c, A1, id, "spam", &r), COMMENT_INVALID);
    t->c.now += SEC; /* the log orders entries by time */
    assert_int_equal(comment_report(&t->c, A2, id, "boring", &r), COMMENT_INVALID);
    t->c.now += SEC; /* the log orders entries by time */
    assert_int_equal(comment_report(&t->c, A2, id, "spam", &r), COMMENT_OK);
    t->c.now += SEC; /* the log orders entries by time */
    assert_int_equal(comment_report(&t->c, A2, id, "abuse", &r), COMMENT_OK); /* counts once */
    assert_int_equal(comment_report(&t->c, A3, id, "abuse", &r), COMMENT_OK);
    t->c.now += SEC; /* the log orders entries by time */
    assert_int_equal(count(t), before);
    assert_int_equal(comment_report(&t->c, AM, id, "abuse", &r), COMMENT_OK);
    t->c.now += SEC; /* the log orders entries by time */
    check_counts(t);
    assert_int_equal(count(t), before - 1);
    assert_int_equal(comment_report(&t->c, A2, id, "abuse", &r), COMMENT_MISSING); /* hidden */
    /* moderation: only moderators (or the operator); reject needs a reason */
    assert_int_equal(comment_moderate(&t->c, A2, id, "approve", NULL, &r), COMMENT_FORBIDDEN);
    t->c.now += SEC; /* the log orders entries by time */
    assert_int_equal(comment_moderate(&t->c, AM, id, "reject", "", &r), COMMENT_INVALID);
    t->c.now += SEC; /* the log orders entries by time */
    assert_int_equal(comment_moderate(&t->c, AM, id, "approve", NULL, &r), COMMENT_OK);
    t->c.now += SEC; /* the log orders entries by time */
    check_counts(t);
    assert_int_equal(count(t), before);
    assert_int_equal(comment_moderate(&t->c, AM, id, "feature", NULL, &r), COMMENT_OK);
    t->c.now += SEC; /* the log orders entries by time */
    assert_int_equal(comment_moderate(&t->c, AM, id, "reject", "off topic", &r), COMMENT_OK);
    t->c.now += SEC; /* the log orders entries by time */
    check_counts(t);
    assert_int_equal(count(t), before - 1);
    assert_int_equal(comment_moderate(&t->c, AM, id, "feature", NULL, &r), COMMENT_CLOSED);
    t->c.now += SEC; /* the log orders entries by time */
    /* suspension hides every visible comment of the author and lifting it restores them */
    assert_int_equal(comment_suspend(&t->c, A2, A1, true, NULL, &r), COMMENT_FORBIDDEN);
    t->c.now += SEC; /* the log orders entries by time */
    assert_int_equal(comment_suspend(&t->c, AM, A1, true, "abuse", &r), COMMENT_OK);
    t->c.now += SEC; /* the log orders entries by time */
    check_counts(t);
    assert_int_equal(count(t), before - 1 - 1 - 3);
    struct comment_post in = {.account_id = A1,
                              .key = "late-flag",
                              .body = "muted?",
                              .limit_account = 5,
                              .limit_address = 30};
    assert_int_equal(comment_post(&t->c, &in, &r), COMMENT_FORBIDDEN);
    assert_int_equal(comment_suspend(&t->c, NULL, A1, false, NULL, &r), COMMENT_OK);
    t->c.now += SEC; /* the log orders entries by time */
    check_counts(t);
    assert_int_equal(count(t), before - 1);
    struct comment cm;
    assert_int_equal(comments_get(t->c.s, t->c.a, r2, &cm), 1);
    assert_true(cm.visible);
    struct moderation_entry *log;
    size_t n;
    assert_int_equal(moderation_log_of(t->c.s, t->c.a, id, &log, &n), 0);
    assert_int_equal(n, 6); /* hidden, approve, feature, reject, suspend, unsuspend */
    assert_string_equal(log[0].action, "hidden_by_reports");
    assert_string_equal(log[3].reason, "off topic");
    assert_string_equal(log[4].actor_name, "The Mod");
}

static void test_rate_limits(void **state)
{
    struct hk *t = *state;
    trust(t, A3);
    t->c.now += 61 * SEC;
    for (int i = 0; i < 5; i++)
        post(t, A3, NULL, "quick words", COMMENT_OK);
    struct comment_post in = {.account_id = A3,
                              .key = "late-flag",
                              .body = "one more",
                              .limit_account = 5,
                              .limit_address = 30};
    struct comment_result r;
    assert_int_equal(comment_post(&t->c, &in, &r), COMMENT_RATE_LIMITED);
    assert_true(r.retry_s >= 1 && r.retry_s <= 60);
    t->c.now += 60 * SEC;
    assert_int_equal(comment_post(&t->c, &in, &r), COMMENT_OK);
}

static void test_display_name_and_roles(void **state)
{
    struct hk *t = *state;
    struct comment_result r;
    assert_int_equal(account_display_name_set(&t->c, AN, "Home Team", &r), COMMENT_INVALID);
    assert_int_equal(account_display_name_set(&t->c, AN, "fan-one", &r), COMMENT_TAKEN);
    assert_int_equal(account_display_name_set(&t->c, AN, "New Voice", &r), COMMENT_OK);
    assert_int_equal(account_display_name_set(&t->c, AN, "Newer Voice", &r), COMMENT_CLOSED);
    assert_int_equal(account_role_change(&t->c, "a1@example.org", "admin", true, &r), COMMENT_OK);
    assert_string_equal(r.message, "granted");
    assert_int_equal(account_role_change(&t->c, "nobody@example.org", "admin", true, &r),
                     COMMENT_MISSING);
    assert_int_equal(account_role_change(&t->c, "a1@example.org", "boss", true, &r),
                     COMMENT_INVALID);
    assert_int_equal(comment_is_moderator(&t->c, A1), 1);
    assert_int_equal(account_role_change(&t->c, "a1@example.org", "admin", false, &r), COMMENT_OK);
    assert_int_equal(comment_is_moderator(&t->c, A1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_post_refusals, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_premoderation_and_replies, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_edit_window_and_delete, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_reports_moderation_suspension, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_rate_limits, setup, hk_teardown),
        cmocka_unit_test_setup_teardown(test_display_name_and_roles, setup, hk_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
