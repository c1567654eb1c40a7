/* The editorial use cases (app/editorial.c) against a real SQLite file: every change writes
 * exactly one audit record in its transaction, every refusal writes nothing. */
#include "handlerkit.h"

#include "app/editorial.h"
#include "app/incident.h"
#include "store/audit.h"

#define NOW (INT64_C(1764000000) * 1000000)

static size_t audits(struct app_ctx *c, const char *id, struct audit_record **out)
{
    size_t n = 0;
    assert_int_equal(audit_list(c->s, c->a, "incident", id, NULL, 100, 0, out, &n), 0);
    return n;
}

static void test_changes_are_audited(void **state)
{
    struct hk *k = *state;
    struct app_ctx c = hk_ctx(k, NOW);
    c.actor = "account:ed";
    c.role = "editor";
    struct edit_result r;
    struct audit_record *log = NULL;

    assert_int_equal(incident_set_status(&c, HK_P, "corroborated", &r), EDIT_OK);
    assert_int_equal(audits(&c, HK_P, &log), 1);
    assert_string_equal(log[0].action, "incident.set_status");
    assert_string_equal(log[0].actor, "account:ed");
    assert_string_equal(log[0].role, "editor");
    assert_string_equal(log[0].before_json, "{\"status\":\"developing\"}");
    assert_string_equal(log[0].after_json, "{\"status\":\"corroborated\"}");

    struct source src = {.url = "https://example.org/b",
                         .title = "Pool report",
                         .kind = "official_statement",
                         .supports = "the rule",
                         .published_at = MODEL_NULL};
    c.now += 1000000; /* the log reads newest first */
    assert_int_equal(incident_add_source(&c, HK_P, &src, &r), EDIT_OK);
    assert_int_equal(incident_add_source(&c, HK_P, &src, &r), EDIT_DUPLICATE);
    assert_int_equal(audits(&c, HK_P, &log), 2);

    struct question q = {.type = "call_correct",
                         .text = "Was the flag correct?",
                         .a_label = "Right call",
                         .b_label = "Wrong call",
                         .unsure_label = "Unsure",
                         .stored_a = "Right call",
                         .stored_b = "Wrong call",
                         .stored_unsure = "Unsure",
                         .factual_context_json = "{}"};
    c.now += 1000000;
    assert_int_equal(incident_set_question(&c, HK_P, &q, true, &r), EDIT_OK);
    assert_int_equal(r.version, 1); /* a clarification keeps the version */
    q.text = "Should the flag have been thrown?";
    assert_int_equal(incident_set_question(&c, HK_P, &q, true, &r), EDIT_REFUSED);
    c.now += 1000000;
    assert_int_equal(incident_set_question(&c, HK_P, &q, false, &r), EDIT_OK);
    assert_int_equal(r.version, 2);
    assert_int_equal(audits(&c, HK_P, &log), 4);
    assert_string_equal(log[0].action, "incident.set_question");

    c.now += 1000000;
    assert_int_equal(incident_withdraw(&c, HK_P, "duplicate report", &r), EDIT_OK);
    assert_int_equal(audits(&c, HK_P, &log), 5);
    assert_string_equal(log[0].reason, "duplicate report");
    struct incident_view v;
    assert_int_equal(incident_read(&c, HK_P, 0, NULL, &v), INCIDENT_READ_MISSING);
}

static void test_refusals_write_nothing(void **state)
{
    struct hk *k = *state;
    struct app_ctx c = hk_ctx(k, NOW);
    c.actor = "operator";
    struct edit_result r;
    struct audit_record *log = NULL;
    assert_int_equal(incident_set_status(&c, HK_P, "settled", &r), EDIT_INVALID);
    assert_int_equal(incident_withdraw(&c, HK_NONE, NULL, &r), EDIT_MISSING);
    assert_int_equal(incident_withdraw(&c, HK_W, NULL, &r), EDIT_REFUSED);
    assert_int_equal(incident_merge(&c, HK_P, HK_P, NULL, false, &r), EDIT_INVALID);
    assert_int_equal(incident_merge(&c, HK_P, HK_W, NULL, false, &r), EDIT_REFUSED);
    assert_non_null(strstr(r.message, "survivor"));
    /* P has a duplicate merged into it: merging P elsewhere would make a chain */
    assert_int_equal(store_exec(c.s, "INSERT INTO incidents (id, game_id, title, play_description,"
                                     " category, status, origin_kind, provenance, published_at,"
                                     " created_at, updated_at) VALUES ('" HK_NONE "', 'nfl-g1',"
                                     " 'Other', 'Other play.', 'catch', 'developing', 'human',"
                                     " '{}', 1, 1, 1)"),
                     STORE_DONE);
    assert_int_equal(incident_merge(&c, HK_P, HK_NONE, NULL, false, &r), EDIT_REFUSED);
    assert_non_null(strstr(r.message, "chain"));
    struct source bad = {.url = "ftp://x", .title = "t", .kind = "report", .supports = "s"};
    assert_int_equal(incident_add_source(&c, HK_P, &bad, &r), EDIT_INVALID);
    assert_int_equal(audits(&c, HK_P, &log) + audits(&c, HK_W, &log), 0);
    /* another game's incident: refused and explained, unless the operator insists */
    assert_int_equal(
        store_exec(c.s, "UPDATE incidents SET game_id = 'nfl-g2' WHERE id = '" HK_NONE "'"),
        STORE_DONE);
    assert_int_equal(incident_merge(&c, HK_NONE, HK_P, "same play", false, &r), EDIT_REFUSED);
    assert_non_null(strstr(r.message, "game nfl-g2"));
    assert_non_null(strstr(r.message, "--force"));
    assert_int_equal(audits(&c, HK_NONE, &log), 0);
    assert_int_equal(incident_merge(&c, HK_NONE, HK_P, "same play", true, &r), EDIT_OK);
    assert_int_equal(audits(&c, HK_NONE, &log), 1);
    assert_string_equal(log[0].after_json, "{\"duplicate_of\":\"" HK_P "\"}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_changes_are_audited, hk_setup_seed, hk_teardown),
        cmocka_unit_test_setup_teardown(test_refusals_write_nothing, hk_setup_seed, hk_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
