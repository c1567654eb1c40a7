/*
 * Unit tests for src/providers: the nflverse CSV reader (quoting, embedded newlines, a byte
 * order mark, CRLF, empty scores, columns in any order, relocated franchises, rejected rows
 * by record and column, whole-document errors), the CollegeFootballData reader (nulls, TBD
 * kickoffs on either side of the autumn switch, both spellings of startTimeTBD, teams from
 * /teams), team IDs, and Retry-After values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "providers/http.h"
#include "providers/provider.h"
#include "util/timefmt.h"

#define NOW INT64_C(1764000000000000) /* 2025-11-24T16:00:00Z */

static const char *utc(int64_t us)
{
    static char out[TIME_ISO_MAX];
    time_format_iso(us, out);
    return out;
}

static const struct game *find(const struct provider_batch *b, const char *id)
{
    for (size_t i = 0; i < b->ngames; i++)
        if (strcmp(b->games[i].id, id) == 0)
            return &b->games[i];
    return NULL;
}

static int read_csv(const char *csv, struct arena *a, struct provider_batch *b, char *err)
{
    provider_batch_init(b, "nflverse", "nfl:", "unknown");
    return nflverse_read(csv, strlen(csv), NOW, a, b, err, 256);
}

static void test_nflverse_quoting_and_layout(void **state)
{
    (void)state;
    /* a BOM, CRLF, columns in another order than games.csv, quoted fields holding a comma, a
     * doubled quote and a newline (so records and lines differ), a blank line */
    static const char csv[] =
        "\xef\xbb\xbfstadium,game_id,season,game_type,week,gameday,gametime,away_team,"
        "away_score,home_team,home_score\r\n"
        "\"Caesars Superdome, New Orleans\",2024_22_KC_PHI,2024,SB,22,2025-02-09,18:30,KC,22,"
        "PHI,40\r\n"
        "\"The \"\"Big\"\"\nHouse\",2019_01_DEN_OAK,2019,REG,1,2019-09-09,22:20,DEN,16,OAK,24\r\n"
        "\r\n"
        "Lambeau,2030_01_GB_CHI,2030,REG,1,2030-09-12,,GB,,CHI,\r\n"
        "Lambeau,2030_02_GB_CHI,2030,REG,2,2030-09-19,20:15,GB,,CHI,x\r\n";
    struct arena a;
    arena_init(&a);
    struct provider_batch b;
    char err[256] = "";
    assert_int_equal(read_csv(csv, &a, &b, err), 0);
    assert_int_equal(b.ngames, 3);
    const struct game *sb = find(&b, "nfl:2024_22_KC_PHI");
    assert_non_null(sb);
    assert_string_equal(sb->home.id, "nfl-phi");
    assert_string_equal(sb->away.id, "nfl-kc");
    assert_int_equal(sb->home_score, 40);
    assert_string_equal(utc(sb->starts_at), "2025-02-09T23:30:00Z");
    assert_string_equal(sb->season_type, "postseason");
    assert_string_equal(sb->stage_label, "Super Bowl");
    assert_string_equal(sb->status, "final");
    const struct game *oak = find(&b, "nfl:2019_01_DEN_OAK");
    assert_string_equal(oak->home.id, "nfl-lv");
    const struct game *tbd = find(&b, "nfl:2030_01_GB_CHI");
    assert_true(tbd->kickoff_tbd);
    assert_int_equal(tbd->home_score, MODEL_NULL);
    assert_string_equal(utc(tbd->starts_at), "2030-09-12T04:00:00Z");
    assert_string_equal(tbd->status, "upcoming");
    /* rows are CSV records (the header is 1; a blank line is none): the last one is record 5,
     * on line 7 */
    assert_int_equal(b.nrejects, 1);
    assert_int_equal(b.rejects[0].row, 5);
    assert_string_equal(b.rejects[0].field, "home_score");
    assert_string_equal(b.rejects[0].game_id, "2030_02_GB_CHI");
    /* the scope is the seasons read */
    assert_int_equal(b.scope.nseasons, 3);
    /* teams: one entry each, sorted */
    assert_int_equal(b.nteams, 6);
    for (size_t i = 1; i < b.nteams; i++)
        assert_true(strcmp(b.teams[i - 1].t.id, b.teams[i].t.id) < 0);
    provider_batch_release(&b);
    arena_release(&a);
}

static void test_nflverse_rejects_name_the_column(void **state)
{
    (void)state;
    static const char csv[] =
        "game_id,season,game_type,week,gameday,gametime,away_team,away_score,home_team,"
        "home_score\n"
        "2024_01_A,2024,POST,1,2024-09-08,13:00,KC,1,BAL,2\n"
        "2024_01_B,2024,REG,1,2024-02-30,13:00,KC,1,BAL,2\n"
        "2024_01_C,2024,REG,1,2024-09-08,25:00,KC,1,BAL,2\n"
        "2024_01_D,2024,REG,1,2024-09-08,13:00,KC,1,KC,2\n"
        "2024_01_E,1800,REG,1,2024-09-08,13:00,KC,1,BAL,2\n"
        "2024 01 F,2024,REG,1,2024-09-08,13:00,KC,1,BAL,2\n"
        "2024_01_G,2024,REG,1,2024-09-08,13:00,KC,1,BAL,2\n"
        "2024_01_G,2024,REG,1,2024-09-08,13:00,KC,1,BAL,3\n";
    static const char *const fields[] = {"game_type", "gameday", "gametime", "away_team",
                                         "season",    "game_id", "id"};
    struct arena a;
    arena_init(&a);
    struct provider_batch b;
    char err[256];
    assert_int_equal(read_csv(csv, &a, &b, err), 0);
    assert_int_equal(b.ngames, 0);
    assert_int_equal(b.nrejects, 7);
    for (size_t i = 0; i < 7; i++) {
        assert_string_equal(b.rejects[i].field, fields[i]);
        assert_int_equal(b.rejects[i].row, i < 6 ? i + 2 : 0);
    }
    assert_non_null(strstr(b.rejects[6].message, "listed 2 times"));
    provider_batch_release(&b);
    arena_release(&a);
}

static void test_nflverse_document_errors(void **state)
{
    (void)state;
    struct arena a;
    arena_init(&a);
    struct provider_batch b;
    char err[256];
    assert_int_equal(read_csv("", &a, &b, err), -1);
    assert_non_null(strstr(err, "no header"));
    provider_batch_release(&b);
    assert_int_equal(read_csv("game_id,season\n1,2\n", &a, &b, err), -1);
    assert_non_null(strstr(err, "no column game_type"));
    provider_batch_release(&b);
    assert_int_equal(read_csv("game_id,\"season\n1,2\n", &a, &b, err), -1);
    assert_non_null(strstr(err, "not a CSV document"));
    provider_batch_release(&b);
    arena_release(&a);
}

static void test_nflverse_teams(void **state)
{
    (void)state;
    assert_string_equal(nflverse_team("OAK")->id, "nfl-lv");
    assert_string_equal(nflverse_team("LV")->id, "nfl-lv");
    assert_string_equal(nflverse_team("SD")->id, "nfl-lac");
    assert_string_equal(nflverse_team("LAC")->id, "nfl-lac");
    assert_string_equal(nflverse_team("STL")->id, "nfl-lar");
    assert_string_equal(nflverse_team("LA")->id, "nfl-lar");
    assert_string_equal(nflverse_team("LA")->name, "Los Angeles Rams");
    assert_string_equal(nflverse_team("WAS")->name, "Washington Commanders");
    assert_null(nflverse_team("XYZ"));
    assert_null(nflverse_team(""));
}

static void test_cfbd_team_ids(void **state)
{
    (void)state;
    char id[128];
    static const char *const cases[][2] = {
        {"Texas A&M", "cfb-texas-am"},           {"Hawai'i", "cfb-hawaii"},
        {"Miami (OH)", "cfb-miami-oh"},          {"Ohio State", "cfb-ohio-state"},
        {"San José State", "cfb-san-jos-state"}, {"UT San Antonio", "cfb-ut-san-antonio"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cfbd_team_id(cases[i][0], id, sizeof id);
        assert_string_equal(id, cases[i][1]);
    }
}

static void test_cfbd_games_with_nulls_and_tbd(void **state)
{
    (void)state;
    static const char teams[] =
        "[{\"id\":194,\"school\":\"Ohio State\",\"mascot\":\"Buckeyes\",\"abbreviation\":\"OSU\","
        "\"alternateNames\":[\"OSU\",\"Ohio State\"],\"conference\":\"Big Ten\",\"logos\":null},"
        "{\"id\":1,\"school\":null}]";
    static const char games[] =
        "[{\"id\":1,\"season\":2024,\"week\":3,\"seasonType\":\"regular\","
        "\"startDate\":\"2024-09-14T04:00:00.000Z\",\"startTimeTBD\":true,\"completed\":false,"
        "\"homeTeam\":\"Ohio State\",\"homeConference\":null,\"homePoints\":null,"
        "\"awayTeam\":\"Western Michigan\",\"awayConference\":\"Mid-American\","
        "\"awayPoints\":null,\"notes\":null,\"venue\":null},"
        "{\"id\":2,\"season\":2024,\"week\":11,\"seasonType\":\"regular\","
        "\"startDate\":\"2024-11-09T05:00:00.000Z\",\"startTimeTbd\":true,"
        "\"homeTeam\":\"Ohio State\",\"awayTeam\":\"Purdue\"},"
        "{\"id\":3,\"season\":2024,\"week\":1,\"seasonType\":\"postseason\","
        "\"startDate\":\"2025-01-01T00:30:00Z\",\"completed\":true,\"neutralSite\":true,"
        "\"homeTeam\":\"Ohio State\",\"homePoints\":41,\"awayTeam\":\"Oregon\",\"awayPoints\":21,"
        "\"notes\":\"  Rose Bowl\"},"
        "{\"id\":4,\"season\":2024,\"week\":1,\"seasonType\":\"allstar\","
        "\"startDate\":\"2025-01-25T20:00:00Z\",\"completed\":true,\"homeTeam\":\"A\","
        "\"awayTeam\":\"B\",\"homePoints\":1,\"awayPoints\":0},"
        "{\"id\":5,\"season\":2024,\"week\":1,\"seasonType\":\"regular\","
        "\"startDate\":\"2025-01-25T20:00:00Z\",\"completed\":\"yes\",\"homeTeam\":\"A\","
        "\"awayTeam\":\"B\"},"
        "7]";
    struct arena a;
    arena_init(&a);
    struct cfbd_teams *ts;
    char err[256];
    assert_int_equal(cfbd_read_teams(teams, strlen(teams), &a, &ts, err, sizeof err), 0);
    struct provider_batch b;
    provider_batch_init(&b, "cfbd", "cfb:", "canceled");
    assert_int_equal(cfbd_read_games(games, strlen(games), ts, NOW, &a, &b, err, sizeof err), 0);
    assert_int_equal(b.ngames, 4);
    const struct game *g1 = find(&b, "cfb:1");
    assert_true(g1->kickoff_tbd);
    assert_string_equal(utc(g1->starts_at), "2024-09-14T04:00:00Z"); /* midnight EDT */
    assert_string_equal(g1->status, "unknown");
    assert_int_equal(g1->home_score, MODEL_NULL);
    assert_null(g1->stage_label);
    const struct game *g2 = find(&b, "cfb:2");
    assert_true(g2->kickoff_tbd); /* the generated clients' spelling */
    assert_string_equal(utc(g2->starts_at), "2024-11-09T05:00:00Z"); /* midnight EST */
    const struct game *g3 = find(&b, "cfb:3");
    assert_string_equal(g3->season_type, "postseason");
    assert_string_equal(g3->stage_label, "Rose Bowl");
    assert_string_equal(g3->status, "final");
    assert_true(g3->neutral_site);
    assert_false(g1->neutral_site);
    assert_string_equal(find(&b, "cfb:4")->season_type, "unknown");
    assert_int_equal(b.nrejects, 2);
    assert_string_equal(b.rejects[0].field, "completed");
    assert_int_equal(b.rejects[0].row, 5);
    assert_int_equal(b.rejects[1].row, 6);
    /* Ohio State from /teams (authoritative), the others from the games */
    bool saw_osu = false;
    for (size_t i = 0; i < b.nteams; i++) {
        if (strcmp(b.teams[i].t.id, "cfb-ohio-state") == 0) {
            saw_osu = true;
            assert_true(b.teams[i].authoritative);
            assert_string_equal(b.teams[i].t.name, "Ohio State Buckeyes");
            assert_string_equal(b.teams[i].t.aliases_json, "[\"Buckeyes\",\"OSU\"]");
        } else {
            assert_false(b.teams[i].authoritative);
        }
        if (strcmp(b.teams[i].t.id, "cfb-western-michigan") == 0)
            assert_string_equal(b.teams[i].t.conference, "Mid-American");
    }
    assert_true(saw_osu);
    provider_batch_release(&b);

    provider_batch_init(&b, "cfbd", "cfb:", "canceled");
    assert_int_equal(cfbd_read_games("{\"id\":1}", 8, NULL, NOW, &a, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "JSON array"));
    assert_int_equal(cfbd_read_games("[{\"id\":", 7, NULL, NOW, &a, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "not JSON"));
    provider_batch_release(&b);
    arena_release(&a);
}

/* nflverse has no live feed: a game without a score is upcoming before kickoff, live for
 * five hours after it (period and clock null: nothing says which), unknown after that, final
 * once scored; `location` says a neutral site. now is explicit. */
static void test_nflverse_kickoff_inference_and_location(void **state)
{
    (void)state;
    static const char csv[] =
        "game_id,season,game_type,week,gameday,gametime,away_team,away_score,home_team,"
        "home_score,location\n"
        "2025_12_NYG_DET,2025,REG,12,2025-11-23,13:00,NYG,,DET,,Home\n"
        "2025_22_SEA_NE,2025,SB,22,2026-02-08,18:30,SEA,,NE,,Neutral\n"
        "2025_11_WAS_MIA,2025,REG,11,2025-11-16,09:30,WAS,16,MIA,13,Neutral\n"
        "2025_12_KC_IND,2025,REG,12,2025-11-23,13:00,KC,,IND,,\n"
        "2025_13_KC_DAL,2025,REG,13,2025-11-27,16:30,KC,,DAL,,Away\n";
    /* 2025-11-23 13:00 EST = 18:00Z */
    static const struct {
        int64_t now;
        const char *status;
    } at[] = {
        {INT64_C(1763920799) * 1000000, "upcoming"}, /* 17:59:59Z */
        {INT64_C(1763920800) * 1000000, "live"},     /* kickoff */
        {INT64_C(1763938799) * 1000000, "live"},     /* 4:59:59 later */
        {INT64_C(1763938800) * 1000000, "unknown"},  /* 5 hours later, still no score */
    };
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        struct arena a;
        arena_init(&a);
        struct provider_batch b;
        char err[256] = "";
        provider_batch_init(&b, "nflverse", "nfl:", "unknown");
        assert_int_equal(nflverse_read(csv, strlen(csv), at[i].now, &a, &b, err, sizeof err), 0);
        const struct game *g = find(&b, "nfl:2025_12_NYG_DET");
        assert_string_equal(g->status, at[i].status);
        assert_int_equal(g->period, MODEL_NULL);
        assert_null(g->clock);
        assert_false(g->neutral_site);
        assert_true(find(&b, "nfl:2025_22_SEA_NE")->neutral_site);
        assert_string_equal(find(&b, "nfl:2025_22_SEA_NE")->status, "upcoming");
        const struct game *london = find(&b, "nfl:2025_11_WAS_MIA");
        assert_true(london->neutral_site);
        assert_string_equal(london->status, "final");
        assert_int_equal(london->period, MODEL_NULL);
        assert_false(find(&b, "nfl:2025_12_KC_IND")->neutral_site); /* empty: not said */
        assert_int_equal(b.nrejects, 1);
        assert_string_equal(b.rejects[0].field, "location");
        assert_int_equal(b.rejects[0].row, 6);
        provider_batch_release(&b);
        arena_release(&a);
    }
}

/* CFBD /scoreboard: the three statuses, nulls, the clock forms, a rejected game per bad
 * field, and a document that is not an array. */
static void test_cfbd_scoreboard(void **state)
{
    (void)state;
    static const char doc[] =
        "[{\"id\":401,\"startDate\":\"2025-11-22T17:00:00.000Z\",\"startTimeTBD\":false,"
        "\"tv\":\"ESPN\",\"neutralSite\":false,\"conferenceGame\":true,"
        "\"status\":\"in_progress\",\"period\":2,\"clock\":\"07:12\",\"situation\":\"2nd & 7\","
        "\"possession\":\"home\",\"lastPlay\":null,\"venue\":{\"name\":\"X\"},"
        "\"homeTeam\":{\"id\":1,\"name\":\"Ohio State\",\"conference\":\"Big Ten\","
        "\"classification\":\"fbs\",\"points\":14,\"lineScores\":[7,7]},"
        "\"awayTeam\":{\"id\":2,\"name\":\"Purdue\",\"conference\":null,"
        "\"classification\":\"fbs\",\"points\":3,\"lineScores\":[3]},"
        "\"weather\":null,\"betting\":null},"
        "{\"id\":402,\"status\":\"completed\",\"period\":5,\"clock\":\"00:00:00\","
        "\"neutralSite\":true,\"homeTeam\":{\"points\":30},\"awayTeam\":{\"points\":27}},"
        "{\"id\":403,\"status\":\"scheduled\",\"period\":null,\"clock\":null,"
        "\"startTimeTBD\":true,\"homeTeam\":{\"points\":null},\"awayTeam\":null},"
        "{\"id\":404,\"status\":\"halftime\"},"
        "{\"id\":405,\"status\":\"in_progress\",\"clock\":\"17:00\"},"
        "{\"id\":406,\"status\":\"in_progress\",\"period\":\"2\"},"
        "{\"id\":407,\"status\":\"in_progress\",\"homeTeam\":{\"points\":-1}},"
        "{\"status\":\"in_progress\"},"
        "{\"id\":408,\"status\":\"in_progress\",\"period\":1,\"clock\":null}]";
    struct arena a;
    arena_init(&a);
    struct provider_batch b;
    char err[256] = "";
    provider_batch_init(&b, "cfbd", "cfb:", "canceled");
    assert_int_equal(cfbd_read_scoreboard(doc, strlen(doc), &a, &b, err, sizeof err), 0);
    assert_int_equal(b.nlive, 4);
    const struct gamesync_live *l = &b.live[0];
    assert_string_equal(l->id, "cfb:401");
    assert_int_equal(l->state, GAMESYNC_IN_PROGRESS);
    assert_int_equal(l->period, 2);
    assert_string_equal(l->clock, "7:12");
    assert_int_equal(l->home_score, 14);
    assert_int_equal(l->away_score, 3);
    assert_int_equal(l->neutral_site, 0);
    l = &b.live[1];
    assert_int_equal(l->state, GAMESYNC_COMPLETED);
    assert_int_equal(l->period, 5);
    assert_string_equal(l->clock, "0:00");
    assert_int_equal(l->neutral_site, 1);
    l = &b.live[2];
    assert_int_equal(l->state, GAMESYNC_SCHEDULED);
    assert_int_equal(l->period, MODEL_NULL);
    assert_null(l->clock);
    assert_int_equal(l->home_score, MODEL_NULL);
    assert_int_equal(l->away_score, MODEL_NULL);
    assert_int_equal(l->neutral_site, -1);
    l = &b.live[3];
    assert_string_equal(l->id, "cfb:408");
    assert_null(l->clock);
    static const struct {
        size_t row;
        const char *field;
    } rej[] = {{4, "status"}, {5, "clock"}, {6, "period"}, {7, "homeTeam.points"}, {8, "id"}};
    assert_int_equal(b.nrejects, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(b.rejects[i].row, rej[i].row);
        assert_string_equal(b.rejects[i].field, rej[i].field);
    }
    provider_batch_release(&b);
    provider_batch_init(&b, "cfbd", "cfb:", "canceled");
    assert_int_equal(cfbd_read_scoreboard("{}", 2, &a, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "JSON array"));
    assert_int_equal(cfbd_read_scoreboard("[{", 2, &a, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "not JSON"));
    provider_batch_release(&b);
    arena_release(&a);
}

static void test_retry_after(void **state)
{
    (void)state;
    assert_int_equal(provider_retry_after("120", 0), 120);
    assert_int_equal(provider_retry_after("0", 0), 0);
    /* Sun, 06 Nov 1994 08:49:37 GMT = 784111777 */
    assert_int_equal(provider_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111700), 77);
    assert_int_equal(provider_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111800), 0);
    assert_int_equal(provider_retry_after("soon", 0), -1);
    assert_int_equal(provider_retry_after("-5", 0), -1);
    assert_int_equal(provider_retry_after(NULL, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nflverse_quoting_and_layout),
        cmocka_unit_test(test_nflverse_rejects_name_the_column),
        cmocka_unit_test(test_nflverse_document_errors),
        cmocka_unit_test(test_nflverse_teams),
        cmocka_unit_test(test_cfbd_team_ids),
        cmocka_unit_test(test_cfbd_games_with_nulls_and_tbd),
        cmocka_unit_test(test_nflverse_kickoff_inference_and_location),
        cmocka_unit_test(test_cfbd_scoreboard),
        cmocka_unit_test(test_retry_after),
    };
    return cmocka_run_group_tests_name("providers", tests, NULL, NULL);
}
