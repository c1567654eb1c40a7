/*
 * whistle games sync: games from a provider (issue 17, docs/games.md) through the use case
 * app_games_sync_source(). Parses arguments, loads the CollegeFootballData key, maps the
 * outcome to an exit status and prints the counts (--json for machines).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/games.h"
#include "cli/cli.h"
#include "http/query.h"
#include "research/fetch.h"
#include "util/jsonw.h"
#include "util/timefmt.h"

static const char games_usage[] =
    "whistle games sync --provider nflverse FILE|URL [--db PATH] [--json]\n"
    "                   [--timeout-ms N] [--max-bytes N] [--attempts N]\n"
    "       whistle games sync --provider cfbd --season YEAR [--week N]\n"
    "                   [--season-type regular|postseason|both]\n"
    "                   [--file GAMES.json [--teams-file TEAMS.json] | [--cfbd-url URL]\n"
    "                    [--cfbd-key-file PATH] [--no-teams]] [--db PATH] [--json]\n"
    "                   [--timeout-ms N] [--max-bytes N] [--attempts N]\n"
    "       whistle games sync --provider cfbd --scoreboard [--file SCOREBOARD.json |\n"
    "                   [--cfbd-url URL] [--cfbd-key-file PATH]] [--db PATH] [--json]\n"
    "                   [--timeout-ms N] [--max-bytes N] [--attempts N]";

int cli_cfbd_key(const char *key_file, char *out, size_t outlen, char *err, size_t errlen)
{
    out[0] = '\0';
    if (key_file) {
        FILE *f = fopen(key_file, "r");
        if (!f) {
            snprintf(err, errlen, "cannot open the key file %s", key_file);
            return -1;
        }
        char line[512];
        bool ok = fgets(line, sizeof line, f) != NULL;
        fclose(f);
        size_t n = ok ? strcspn(line, "\r\n") : 0;
        line[n] = '\0';
        if (!n) {
            snprintf(err, errlen, "the key file %s is empty", key_file);
            return -1;
        }
        snprintf(out, outlen, "%s", line);
        memset(line, 0, sizeof line);
    } else {
        const char *env = getenv("WHISTLE_CFBD_KEY");
        if (env && *env)
            snprintf(out, outlen, "%s", env);
    }
    for (const char *p = out; *p; p++)
        if ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e) {
            memset(out, 0, outlen);
            snprintf(err, errlen,
                     "the CollegeFootballData key holds a space or a control"
                     " character");
            return -1;
        }
    return 0;
}

struct rejects {
    bool json;
    struct jw *w; /* --json: the rejects array being written */
};

static void on_reject(void *ctx, const struct provider_reject *rj)
{
    struct rejects *r = ctx;
    if (r->json) {
        jw_obj_begin(r->w);
        jw_key(r->w, "row");
        jw_int(r->w, rj->row ? (int64_t)rj->row : JW_NULL_INT);
        jw_key(r->w, "gameId");
        jw_str(r->w, rj->game_id);
        jw_key(r->w, "field");
        jw_str(r->w, rj->field);
        jw_key(r->w, "message");
        jw_str(r->w, rj->message);
        jw_obj_end(r->w);
        return;
    }
    if (rj->row)
        fprintf(stderr, "whistle: rejected row %zu%s%s%s, field %s: %s\n", rj->row,
                rj->game_id ? " (" : "", rj->game_id ? rj->game_id : "", rj->game_id ? ")" : "",
                rj->field, rj->message);
    else
        fprintf(stderr, "whistle: rejected %s, field %s: %s\n", rj->game_id ? rj->game_id : "?",
                rj->field, rj->message);
}

static int games_sync_cmd(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"provider", required_argument, NULL, 'p'},
                                         {"season", required_argument, NULL, 's'},
                                         {"week", required_argument, NULL, 'w'},
                                         {"season-type", required_argument, NULL, 't'},
                                         {"file", required_argument, NULL, 'f'},
                                         {"teams-file", required_argument, NULL, 'T'},
                                         {"cfbd-url", required_argument, NULL, 'u'},
                                         {"cfbd-key-file", required_argument, NULL, 'k'},
                                         {"no-teams", no_argument, NULL, 'n'},
                                         {"timeout-ms", required_argument, NULL, 'o'},
                                         {"max-bytes", required_argument, NULL, 'm'},
                                         {"attempts", required_argument, NULL, 'a'},
                                         {"scoreboard", no_argument, NULL, 'S'},
                                         {NULL, 0, NULL, 0}};
    const char *db = NULL, *key_file = NULL;
    bool json = false;
    struct games_source src = {.week = MODEL_NULL, .season = MODEL_NULL, .with_teams = true};
    int64_t v;
    int c;
    optind = 1;
    while ((c = cli_getopt(argc, argv, opts, &db, &json)) != -1) {
        switch (c) {
        case 'p':
            if (strcmp(optarg, "nflverse") != 0 && strcmp(optarg, "cfbd") != 0)
                return cli_refuse("--provider must be nflverse or cfbd");
            src.provider = optarg;
            break;
        case 's':
            if (qp_parse_int(optarg, &v) < 0 || v < 1920 || v > 2100)
                return cli_refuse("--season must be a year from 1920 to 2100");
            src.season = v;
            break;
        case 'w':
            if (qp_parse_int(optarg, &v) < 0 || v < 0 || v > 30)
                return cli_refuse("--week must be an integer from 0 to 30");
            src.week = v;
            break;
        case 't':
            if (strcmp(optarg, "regular") != 0 && strcmp(optarg, "postseason") != 0 &&
                strcmp(optarg, "both") != 0)
                return cli_refuse("--season-type must be regular, postseason or both");
            src.season_type = optarg;
            break;
        case 'f':
            src.location = optarg;
            break;
        case 'T':
            src.teams_file = optarg;
            break;
        case 'u':
            if (strncmp(optarg, "http://", 7) != 0 && strncmp(optarg, "https://", 8) != 0)
                return cli_refuse("--cfbd-url must start with http:// or https://");
            src.cfbd_url = optarg;
            break;
        case 'k':
            key_file = optarg;
            break;
        case 'n':
            src.with_teams = false;
            break;
        case 'S':
            src.scoreboard = true;
            break;
        case 'o':
            if (qp_parse_int(optarg, &v) < 0 || v < 1 || v > 600000)
                return cli_refuse("--timeout-ms must be from 1 to 600000");
            src.timeout_ms = (long)v;
            break;
        case 'm':
            if (qp_parse_int(optarg, &v) < 0 || v < 1 || v > (INT64_C(1) << 30))
                return cli_refuse("--max-bytes must be from 1 to 1073741824");
            src.max_bytes = (size_t)v;
            break;
        case 'a':
            if (qp_parse_int(optarg, &v) < 0 || v < 1 || v > 10)
                return cli_refuse("--attempts must be from 1 to 10");
            src.attempts = (int)v;
            break;
        default:
            return cli_usage(games_usage);
        }
    }
    if (!src.provider)
        return cli_usage(games_usage);
    bool nfl = strcmp(src.provider, "nflverse") == 0;
    if (nfl) {
        if (optind != argc - 1 || src.season != MODEL_NULL || src.week != MODEL_NULL ||
            src.season_type || src.teams_file || src.cfbd_url || key_file || src.location ||
            src.scoreboard)
            return cli_usage(games_usage);
        src.location = argv[optind];
    } else if (src.scoreboard) {
        /* a scoreboard is today's games: no season, week or team list to ask for */
        if (optind != argc)
            return cli_usage(games_usage);
        if (src.season != MODEL_NULL || src.week != MODEL_NULL || src.season_type ||
            src.teams_file || !src.with_teams)
            return cli_refuse("--scoreboard takes no --season, --week, --season-type,"
                              " --teams-file or --no-teams");
    } else {
        if (optind != argc || src.season == MODEL_NULL)
            return cli_usage(games_usage);
        if (src.teams_file && !src.location)
            return cli_refuse("--teams-file goes with --file (a saved /games response)");
    }
    char key[512] = "";
    if (!nfl && !src.location) {
        char why[256];
        if (cli_cfbd_key(key_file, key, sizeof key, why, sizeof why) < 0)
            return cli_refuse("%s", why);
        if (!key[0])
            return cli_refuse("no CollegeFootballData key: --cfbd-key-file PATH or"
                              " WHISTLE_CFBD_KEY");
        src.cfbd_key = key;
    }

    struct store *s = cli_open_store(cli_db_path(db));
    if (!s)
        return CLI_REFUSED;
    fetch_global_init();
    struct arena a;
    arena_init(&a);
    struct app_ctx ctx = {.s = s, .a = &a, .now = time_now_us(), .actor = "operator"};
    struct buf out = BUF_INIT;
    struct jw w;
    jw_init(&w, &out);
    struct rejects rj = {.json = json, .w = &w};
    if (json) {
        jw_obj_begin(&w);
        jw_key(&w, "rejects");
        jw_arr_begin(&w);
    }
    struct games_sync_report r;
    char err[1024] = "";
    int rc = app_games_sync_source(&ctx, &src, on_reject, &rj, &r, NULL, NULL, err, sizeof err);
    memset(key, 0, sizeof key);
    int status = CLI_OK;
    if (rc == GAMES_SYNC_FETCH_FAILED || rc == GAMES_SYNC_BAD_DOCUMENT) {
        status = cli_refuse("%s: %s", src.provider, err);
    } else if (rc == APP_UNAVAILABLE) {
        status = cli_refuse("%s: the database failed (%s); batches written before stay, run the"
                            " sync again",
                            src.provider, store_errmsg(s));
    } else if (json) {
        jw_arr_end(&w);
        jw_key(&w, "provider");
        jw_str(&w, src.provider);
        jw_key(&w, "scoreboard");
        jw_bool(&w, r.scoreboard);
        jw_key(&w, "inserted");
        jw_int(&w, (int64_t)r.inserted);
        jw_key(&w, "updated");
        jw_int(&w, (int64_t)r.updated);
        jw_key(&w, "unchanged");
        jw_int(&w, (int64_t)r.unchanged);
        jw_key(&w, "rejected");
        jw_int(&w, (int64_t)r.rejected);
        jw_key(&w, "vanished");
        jw_int(&w, (int64_t)r.vanished);
        jw_key(&w, "notStored");
        jw_int(&w, (int64_t)r.not_stored);
        jw_key(&w, "vanishedChecked");
        jw_bool(&w, !r.vanish_skipped);
        jw_key(&w, "teams");
        jw_int(&w, (int64_t)r.teams);
        jw_key(&w, "notModified");
        jw_bool(&w, r.not_modified);
        jw_key(&w, "httpRequests");
        jw_int(&w, r.attempts);
        jw_obj_end(&w);
        cli_print_json(&out);
    } else {
        char line[256];
        app_games_report_line(&r, line, sizeof line);
        printf("%s: %s\n", src.provider, line);
    }
    buf_release(&out);
    arena_release(&a);
    store_close(s);
    return status;
}

int cli_games(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "sync") == 0)
        return games_sync_cmd(argc - 1, argv + 1);
    return cli_usage(games_usage);
}
