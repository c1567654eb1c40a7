/*
 * Unit tests for src/domain/vocab.c, and the drift test: every enum of the OpenAPI document
 * (src/api/openapi.json, compiled in as openapi_json) and every CHECK (column IN (…)) of the
 * migrations (compiled in) that names a vocabulary must list exactly the vocabulary's
 * values. A value added in one place and not the others fails here.
 *
 * An enum or a CHECK that is not vocabulary (a sort order, a page notice, a module's own
 * state names) is listed in not_vocabulary[] / not_vocabulary_columns[]; one that is in
 * neither list fails too, so a new enum is classified when it is added.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "domain/comment.h"
#include "domain/vocab.h"
#include "store/games.h"
#include "store/store.h"
#include "util/buf.h"

extern const unsigned char openapi_json[];
extern const size_t openapi_json_len;

static size_t count(const char *const *names)
{
    size_t n = 0;
    while (names[n])
        n++;
    return n;
}

/* ---- lookups ---- */

static void test_tables_match_enums(void **state)
{
    (void)state;
    assert_int_equal(count(category_names), CATEGORY_COUNT);
    assert_int_equal(count(maturity_names), MATURITY_COUNT);
    assert_int_equal(count(origin_names), ORIGIN_COUNT);
    assert_int_equal(count(game_status_names), GAME_STATUS_COUNT);
    assert_int_equal(count(league_names), LEAGUE_COUNT);
    assert_int_equal(count(season_type_names), SEASON_TYPE_COUNT);
    assert_int_equal(count(source_kind_names), SOURCE_KIND_COUNT);
    assert_int_equal(count(lead_status_names), LEAD_STATUS_COUNT);
    assert_int_equal(count(rooting_names), ROOTING_COUNT);
    assert_int_equal(count(choice_names), CHOICE_COUNT);
    assert_int_equal(count(visibility_names), VISIBILITY_COUNT);
    assert_string_equal(category_names[CATEGORY_NO_CALL], "no_call");
    assert_string_equal(maturity_names[MATURITY_DEVELOPING], "developing");
    assert_string_equal(season_type_names[SEASON_TYPE_POSTSEASON], "postseason");
    assert_string_equal(rooting_names[ROOTING_UNSPECIFIED], "unspecified");
    assert_string_equal(choice_names[CHOICE_UNSURE], "unsure");
    assert_string_equal(category_words[CATEGORY_SPOT], "ball spot");
    assert_string_equal(league_labels[LEAGUE_NFL], "NFL");
}

static void test_find(void **state)
{
    (void)state;
    for (int i = 0; i < CATEGORY_COUNT; i++)
        assert_int_equal(vocab_find(category_names, category_names[i]), i);
    for (int i = 0; i < GAME_STATUS_COUNT; i++)
        assert_int_equal(vocab_find(game_status_names, game_status_names[i]), i);
    assert_int_equal(vocab_find(maturity_names, "explained"), MATURITY_EXPLAINED);
    assert_int_equal(vocab_find(maturity_names, NULL), -1);
    static const char *const bad[] = {"",    "Penalty", "PENALTY", "penalty ", " penalty",
                                      "pen", "no-call", "nocall",  "null"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(vocab_find(category_names, bad[i]), -1);
}

static void test_subsets(void **state)
{
    (void)state;
    /* each subset is in its vocabulary's order, and only the flagged values */
    static const char *const leads[] = {"penalty", "replay", "clock", "spot", "targeting", "other"};
    static const char *const filter[] = {"upcoming", "live", "final", "postponed", "canceled"};
    static const char *const unplayed[] = {"upcoming", "postponed", "canceled"};
    static const char *const ballot[] = {"home", "away", "neutral", "undisclosed"};
    static const char *const import[] = {"published", "withdrawn"};
    const struct {
        const char *const *got, *const *want;
        size_t n;
    } cases[] = {
        {lead_category_names, leads, 6},           {game_status_filter_names, filter, 5},
        {unplayed_game_status_names, unplayed, 3}, {ballot_rooting_names, ballot, 4},
        {import_visibility_names, import, 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        assert_int_equal(count(cases[c].got), cases[c].n);
        for (size_t k = 0; k < cases[c].n; k++)
            assert_string_equal(cases[c].got[k], cases[c].want[k]);
    }
}

/* Every value of every list has words a person reads: not empty, capitalised, no
 * underscore (an enum value leaking onto a page would fail here), and distinct within its
 * list. The labels come from the same X-macro line as the value (vocab.h). */
static void test_labels(void **state)
{
    (void)state;
    const struct {
        const char *const *names, *const *labels;
        int n;
    } lists[] = {
        {category_names, category_labels, CATEGORY_COUNT},
        {maturity_names, maturity_labels, MATURITY_COUNT},
        {origin_names, origin_labels, ORIGIN_COUNT},
        {game_status_names, game_status_labels, GAME_STATUS_COUNT},
        {league_names, league_labels, LEAGUE_COUNT},
        {season_type_names, season_type_labels, SEASON_TYPE_COUNT},
        {source_kind_names, source_kind_labels, SOURCE_KIND_COUNT},
        {lead_status_names, lead_status_labels, LEAD_STATUS_COUNT},
        {rooting_names, rooting_labels, ROOTING_COUNT},
        {choice_names, choice_labels, CHOICE_COUNT},
        {visibility_names, visibility_labels, VISIBILITY_COUNT},
    };
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
        for (int k = 0; k < lists[l].n; k++) {
            const char *w = lists[l].labels[k];
            assert_non_null(w);
            assert_true(w[0] >= 'A' && w[0] <= 'Z');
            assert_null(strchr(w, '_'));
            for (int j = 0; j < k; j++)
                assert_string_not_equal(w, lists[l].labels[j]);
            assert_string_equal(vocab_label(lists[l].names, lists[l].labels, lists[l].names[k]), w);
        }
    }
    assert_string_equal(vocab_label(category_names, category_labels, "no_call"), "No call");
    assert_string_equal(vocab_label(source_kind_names, source_kind_labels, "official_statement"),
                        "Official statement");
    assert_string_equal(vocab_label(season_type_names, season_type_labels, "regular"),
                        "Regular season");
    /* a value this build does not know is shown as it is, NULL as nothing */
    assert_string_equal(vocab_label(category_names, category_labels, "fumble"), "fumble");
    assert_string_equal(vocab_label(category_names, category_labels, NULL), "");
    /* the games index lists postseason, regular, preseason, unknown */
    assert_true(season_type_rank[SEASON_TYPE_POSTSEASON] < season_type_rank[SEASON_TYPE_REGULAR]);
    assert_true(season_type_rank[SEASON_TYPE_REGULAR] < season_type_rank[SEASON_TYPE_PRESEASON]);
    assert_true(season_type_rank[SEASON_TYPE_PRESEASON] < season_type_rank[SEASON_TYPE_UNKNOWN]);
}

static void test_play_time(void **state)
{
    (void)state;
    const struct {
        const char *league;
        long long period;
        const char *clock, *want;
    } cases[] = {
        {"nfl", 2, "2:18", "Q2 2:18"}, {"college", 4, "0:07", "Q4 0:07"}, {"nfl", 1, NULL, "Q1"},
        {"nfl", 5, "9:41", "OT 9:41"}, {"college", 5, NULL, "OT"},        {"college", 6, "", "2OT"},
        {"college", 9, NULL, "5OT"},   {"nfl", -1, "3:00", "3:00"},       {"nfl", -1, NULL, ""},
        {NULL, 3, "1:00", "Q3 1:00"},  {"rugby", 5, "1:00", "OT 1:00"},
    };
    char out[32];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        vocab_play_time(out, sizeof out, cases[k].league, cases[k].period, cases[k].clock);
        assert_string_equal(out, cases[k].want);
    }
    char tiny[3];
    vocab_play_time(tiny, sizeof tiny, "nfl", 2, "12:00"); /* truncated, terminated */
    assert_string_equal(tiny, "Q2");
}

static void test_join(void **state)
{
    (void)state;
    char out[200];
    assert_string_equal(strlist_join(maturity_names, out, sizeof out),
                        "developing, corroborated, explained, resolved");
    char tiny[12];
    strlist_join(maturity_names, tiny, sizeof tiny); /* truncated, still terminated */
    assert_true(strlen(tiny) < sizeof tiny);
    const char *const none[] = {NULL};
    assert_string_equal(strlist_join(none, out, sizeof out), "");
}

/* ---- drift: the OpenAPI document ---- */

/* Where an OpenAPI enum sits (its JSON path) and the vocabulary it must equal. */
static const struct {
    const char *path;
    const char *const *names;
} openapi_enums[] = {
    {"components/schemas/Team/properties/league", league_names},
    {"components/schemas/Game/properties/status", game_status_names},
    {"components/schemas/Game/properties/league", league_names},
    {"components/schemas/Game/properties/seasonType", season_type_names},
    {"components/schemas/Source/properties/source_kind", source_kind_names},
    {"components/schemas/Incident/properties/category", category_names},
    {"components/schemas/Incident/properties/status", maturity_names},
    {"components/schemas/Incident/properties/origin_kind", origin_names},
    {"components/schemas/Incident/properties/league", league_names},
    {"components/schemas/Incident/properties/seasonType", season_type_names},
    {"components/schemas/IncidentDetail/properties/category", category_names},
    {"components/schemas/IncidentDetail/properties/status", maturity_names},
    {"components/schemas/IncidentDetail/properties/origin_kind", origin_names},
    {"components/schemas/IncidentDetail/properties/league", league_names},
    {"components/schemas/IncidentDetail/properties/seasonType", season_type_names},
    {"components/schemas/AgentLead/properties/category", lead_category_names},
    {"components/schemas/LeadStatus/properties/status", lead_status_names},
    {"components/schemas/Ballot/properties/choice", choice_names},
    {"components/schemas/Ballot/properties/rooting", ballot_rooting_names},
    {"components/schemas/BallotResponse/properties/data/properties/choice", choice_names},
    {"components/schemas/BallotResponse/properties/data/properties/rooting", ballot_rooting_names},
    {"components/parameters/League/schema", league_names},
    {"components/parameters/SeasonType/schema", season_type_names},
    {"components/parameters/GameStatus/schema", game_status_filter_names},
    {"components/parameters/Category/schema", category_names},
    {"components/parameters/IncidentStatus/schema", maturity_names},
    {"components/parameters/PageLeague/schema", league_names},
    {"components/parameters/PageIncidentStatus/schema", maturity_names},
    /* comments (domain/comment.h holds their one table) */
    {"components/schemas/CommentReportForm/properties/reason", comment_report_reasons},
    /* the editorial desk's forms (docs/desk.md) */
    {"components/schemas/DeskStatusForm/properties/status", maturity_names},
    {"components/schemas/DeskSourceForm/properties/kind", source_kind_names},
};

/* Enums that are no vocabulary of the spec: sort orders and the scout module's own names
 * (domain/scout.c holds their one table). The human pages' notices (paths other than
 * /api/…) are page text and are not checked either. */
static const char *const not_vocabulary[] = {
    "components/parameters/GameSort/schema",
    "components/parameters/IncidentSort/schema",
    "components/schemas/ScoutReserveRequest/properties/kind",
    "components/schemas/ScoutReservation/properties/kind",
    "components/schemas/ScoutSkip/properties/reason",
    /* comments: a sort order, the moderation queues, and the badge (a role or null) */
    "paths//api/v1/incidents/{id}/comments/get/parameters/2/schema",
    "components/schemas/ModerationForm/properties/queue",
    "components/schemas/CommentAuthor/properties/badge",
    /* the desk's form controls: yes/no/unknown selects, confirmation boxes, a role change */
    "components/schemas/DeskEditForm/properties/replay_involved",
    "components/schemas/DeskEditForm/properties/penalty_called",
    "components/schemas/DeskQuestionForm/properties/clarify",
    "components/schemas/DeskQuestionForm/properties/confirm",
    "components/schemas/DeskRoleForm/properties/role",
    "components/schemas/DeskRoleForm/properties/change",
    NULL,
};

static int openapi_seen[sizeof openapi_enums / sizeof openapi_enums[0]];
static int drift_failures;
static bool drift_quiet; /* the self-test of compare() expects drift: do not print it */

static void drift(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void drift(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!drift_quiet) {
        fprintf(stderr, "vocabulary drift: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
    }
    va_end(ap);
    drift_failures++;
}

/* Compares a list of values (null and "" dropped: they mean "none", not a value) with a
 * vocabulary, as sets, and reports what is missing on either side. */
static void compare(const char *where, const char *const *values, size_t n,
                    const char *const *names)
{
    for (size_t i = 0; i < n; i++)
        if (values[i] && values[i][0] && vocab_find(names, values[i]) < 0)
            drift("%s lists \"%s\", which the vocabulary (src/domain/vocab.h) does not", where,
                  values[i]);
    for (size_t k = 0; names[k]; k++) {
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            found = values[i] && strcmp(values[i], names[k]) == 0;
        if (!found)
            drift("%s lacks \"%s\" of the vocabulary (src/domain/vocab.h)", where, names[k]);
    }
}

static void check_openapi_enum(const char *path, json_t *en)
{
    const char *values[64];
    size_t n = 0;
    size_t i;
    json_t *v;
    json_array_foreach(en, i, v)
    {
        if (n < 64)
            values[n++] = json_is_string(v) ? json_string_value(v) : NULL;
    }
    for (size_t k = 0; k < sizeof openapi_enums / sizeof openapi_enums[0]; k++) {
        if (strcmp(openapi_enums[k].path, path) == 0) {
            openapi_seen[k]++;
            char where[400];
            snprintf(where, sizeof where, "openapi.json %s", path);
            compare(where, values, n, openapi_enums[k].names);
            return;
        }
    }
    if (vocab_find(not_vocabulary, path) >= 0)
        return;
    if (strncmp(path, "paths/", 6) == 0 && strncmp(path, "paths//api/", 11) != 0)
        return; /* a human page's own parameter: tests/http/test_desk.py
                 * test_page_query_enums_are_what_the_pages_accept checks each against
                 * the values the page accepts (its 400 lists them) */
    drift("openapi.json %s is an enum this test does not know: map it to a vocabulary in "
          "tests/unit/test_domain_vocab.c, or list it in not_vocabulary[]",
          path);
}

static void walk(json_t *node, char *path, size_t len, size_t cap)
{
    if (json_is_object(node)) {
        json_t *en = json_object_get(node, "enum");
        if (json_is_array(en))
            check_openapi_enum(path, en);
        const char *key;
        json_t *child;
        json_object_foreach(node, key, child)
        {
            int w = snprintf(path + len, cap - len, "%s%s", len ? "/" : "", key);
            if (w > 0 && (size_t)w < cap - len)
                walk(child, path, len + (size_t)w, cap);
            path[len] = '\0';
        }
    } else if (json_is_array(node)) {
        size_t i;
        json_t *child;
        json_array_foreach(node, i, child)
        {
            int w = snprintf(path + len, cap - len, "/%zu", i);
            if (w > 0 && (size_t)w < cap - len)
                walk(child, path, len + (size_t)w, cap);
            path[len] = '\0';
        }
    }
}

static void test_openapi_enums(void **state)
{
    (void)state;
    json_error_t err;
    json_t *doc = json_loadb((const char *)openapi_json, openapi_json_len, 0, &err);
    assert_non_null(doc);
    char path[1024] = "";
    drift_failures = 0;
    memset(openapi_seen, 0, sizeof openapi_seen);
    walk(doc, path, 0, sizeof path);
    for (size_t k = 0; k < sizeof openapi_enums / sizeof openapi_enums[0]; k++)
        if (!openapi_seen[k])
            drift("openapi.json has no enum at %s any more (update this test's table)",
                  openapi_enums[k].path);
    json_decref(doc);
    assert_int_equal(drift_failures, 0);
}

/* ---- drift: the migrations' CHECK constraints ---- */

static const struct {
    const char *column; /* table.column */
    const char *const *names;
} check_columns[] = {
    {"teams.league", league_names},
    {"games.status", game_status_names},
    {"games.league", league_names},
    {"games.season_type", season_type_names},
    {"incidents.category", category_names},
    {"incidents.status", maturity_names},
    {"incidents.origin_kind", origin_names},
    {"incidents.visibility", visibility_names},
    {"sources.source_kind", source_kind_names},
    {"ballots.choice", choice_names},
    {"ballots.rooting", ballot_rooting_names},
    {"vote_tallies.rooting", rooting_names},
    {"leads.status", lead_status_names},
    {"vote_tally_slots.rooting", rooting_names},
    {"comment_reports.reason", comment_report_reasons},
    {"account_roles.role", account_roles},
};

/* CHECK lists that are a module's own names, not the spec's vocabulary. */
static const char *const not_vocabulary_columns[] = {
    "scout_reservations.kind",
    "scout_runs.status",
    "scout_spend.kind",
    "account_tokens.purpose",
    /* comments' own states (domain/comment.h) */
    "comments.status",
    "comments.held_reason",
    "moderation_log.action",
    NULL,
};

#define MAX_CHECKS 128
struct check {
    char column[128];
    char values[32][40];
    size_t n;
    int version;
};

/* The table a position in a migration belongs to: the last CREATE TABLE before it. */
static void table_before(const char *sql, const char *at, char *out, size_t n)
{
    const char *t = NULL;
    for (const char *p = sql; (p = strstr(p, "CREATE TABLE ")) && p < at; p++)
        t = p + strlen("CREATE TABLE ");
    out[0] = '\0';
    if (t) {
        if (strncmp(t, "IF NOT EXISTS ", 14) == 0)
            t += 14;
        size_t len = strcspn(t, " (\n");
        snprintf(out, n, "%.*s", (int)len, t);
    }
}

/* Every "CHECK (column IN ('a', 'b', …))" of sql into checks (a later migration's list for
 * the same table.column replaces an earlier one). */
static void read_checks(const char *sql, int version, struct check *checks, size_t *nchecks)
{
    for (const char *p = sql; (p = strstr(p, "CHECK (")); p++) {
        const char *col = p + strlen("CHECK (");
        size_t clen = strcspn(col, " ");
        if (strncmp(col + clen, " IN (", 5) != 0)
            continue; /* not a list of values */
        char table[64], column[128];
        table_before(sql, p, table, sizeof table);
        snprintf(column, sizeof column, "%s.%.*s", table, (int)clen, col);
        struct check *c = NULL;
        for (size_t k = 0; k < *nchecks && !c; k++)
            if (strcmp(checks[k].column, column) == 0)
                c = &checks[k];
        if (!c) {
            assert_true(*nchecks < MAX_CHECKS);
            c = &checks[(*nchecks)++];
            snprintf(c->column, sizeof c->column, "%s", column);
        }
        c->n = 0;
        c->version = version;
        const char *q = col + clen + 5;
        while (*q && *q != ')') {
            if (*q == '\'') {
                size_t vlen = strcspn(q + 1, "'");
                assert_true(c->n < 32);
                snprintf(c->values[c->n++], sizeof c->values[0], "%.*s", (int)vlen, q + 1);
                q += vlen + 2;
            } else {
                q++;
            }
        }
    }
}

/* The games index's ORDER BY (built from the season types' ranks) and the index that serves
 * it (migration 015) must stay the same text, or both databases sort every game again. */
static void test_games_week_index_matches_its_order(void **state)
{
    (void)state;
    struct buf keys = BUF_INIT;
    buf_puts(&keys, "CREATE INDEX games_by_week ON games (");
    games_week_keys(&keys, "");
    buf_puts(&keys, ");");
    bool found = false;
    int version;
    const char *sql;
    for (size_t i = 0; (sql = store_migration(i, &version)); i++)
        found = found || strstr(sql, keys.p) != NULL;
    if (!found)
        fail_msg("no migration creates the games index as games_list orders it: %s", keys.p);
    buf_release(&keys);
}

static void test_migration_checks(void **state)
{
    (void)state;
    static struct check checks[MAX_CHECKS];
    size_t nchecks = 0;
    int version;
    const char *sql;
    for (size_t i = 0; (sql = store_migration(i, &version)); i++)
        read_checks(sql, version, checks, &nchecks);
    assert_true(nchecks > 0);
    drift_failures = 0;
    for (size_t k = 0; k < sizeof check_columns / sizeof check_columns[0]; k++) {
        const struct check *c = NULL;
        for (size_t i = 0; i < nchecks && !c; i++)
            if (strcmp(checks[i].column, check_columns[k].column) == 0)
                c = &checks[i];
        if (!c) {
            drift("no migration has CHECK (… IN (…)) on %s any more (update this test's table)",
                  check_columns[k].column);
            continue;
        }
        const char *values[32];
        for (size_t i = 0; i < c->n; i++)
            values[i] = c->values[i];
        char where[200];
        snprintf(where, sizeof where, "migration %03d CHECK on %s", c->version, c->column);
        compare(where, values, c->n, check_columns[k].names);
    }
    for (size_t i = 0; i < nchecks; i++) {
        bool known = vocab_find(not_vocabulary_columns, checks[i].column) >= 0;
        for (size_t k = 0; !known && k < sizeof check_columns / sizeof check_columns[0]; k++)
            known = strcmp(checks[i].column, check_columns[k].column) == 0;
        if (!known)
            drift("migration %03d has CHECK (… IN (…)) on %s, which this test does not know: "
                  "map it to a vocabulary in tests/unit/test_domain_vocab.c, or list it in "
                  "not_vocabulary_columns[]",
                  checks[i].version, checks[i].column);
    }
    assert_int_equal(drift_failures, 0);
}

/* The drift checks themselves catch drift: a value missing or extra on either side. */
static void test_compare_reports_drift(void **state)
{
    (void)state;
    const char *const same[] = {"developing", "corroborated", "explained", "resolved"};
    const char *const extra[] = {"developing", "corroborated", "explained", "resolved", "final"};
    const char *const missing[] = {"developing", "corroborated", "explained"};
    const char *const with_null[] = {"developing", NULL,        "corroborated",
                                     "",           "explained", "resolved"};
    drift_failures = 0;
    compare("test", same, 4, maturity_names);
    compare("test", with_null, 6, maturity_names);
    assert_int_equal(drift_failures, 0);
    drift_quiet = true;
    compare("test", extra, 5, maturity_names);
    assert_int_equal(drift_failures, 1);
    compare("test", missing, 3, maturity_names);
    drift_quiet = false;
    assert_int_equal(drift_failures, 2);

    struct check checks[4];
    size_t n = 0;
    read_checks("CREATE TABLE t (\n a TEXT CHECK (a IN ('x', 'y')),\n b INTEGER CHECK (b > 0)\n);"
                "\nCREATE TABLE u (c TEXT NOT NULL CHECK (c IN ('p')));",
                7, checks, &n);
    assert_int_equal(n, 2);
    assert_string_equal(checks[0].column, "t.a");
    assert_int_equal(checks[0].n, 2);
    assert_string_equal(checks[0].values[1], "y");
    assert_string_equal(checks[1].column, "u.c");
    read_checks("CREATE TABLE t (a TEXT CHECK (a IN ('z')));", 8, checks, &n);
    assert_int_equal(n, 2);
    assert_int_equal(checks[0].n, 1); /* the later migration's list wins */
    assert_int_equal(checks[0].version, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_match_enums),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_subsets),
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_play_time),
        cmocka_unit_test(test_compare_reports_drift),
        cmocka_unit_test(test_openapi_enums),
        cmocka_unit_test(test_migration_checks),
        cmocka_unit_test(test_games_week_index_matches_its_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
