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
        jw_fmt(r->w, "{row:%ld gameId:%s field:%s message:%s}",
               rj->row ? (int64_t)rj->row : JW_NULL_INT, rj->game_id, rj->field, rj->message);
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

static const char *provider_check(const char *v)
{
    return strcmp(v, "nflverse") != 0 && strcmp(v, "cfbd") != 0 ? "must be nflverse or cfbd" : NULL;
}

static const char *season_type_check(const char *v)
{
    return strcmp(v, "regular") != 0 && strcmp(v, "postseason") != 0 && strcmp(v, "both") != 0
               ? "must be regular, postseason or both"
               : NULL;
}

struct sync_args {
    const char *db, *key_file;
    bool json, no_teams;
    struct games_source src;
};

static int games_sync_cmd(int argc, char **argv)
{
#define AT(field) CLI_OPT_AT(struct sync_args, field)
    static const struct cli_opt opts[] = {
        CLI_OPTS_COMMON(struct sync_args),
        {"provider", CLI_OPT_STRING, AT(src.provider), .check = provider_check},
        {"season", CLI_OPT_INT, AT(src.season), 1920, 2100, "must be a year from 1920 to 2100"},
        {"week", CLI_OPT_INT, AT(src.week), 0, 30},
        {"season-type", CLI_OPT_STRING, AT(src.season_type), .check = season_type_check},
        {"file", CLI_OPT_STRING, AT(src.location)},
        {"teams-file", CLI_OPT_STRING, AT(src.teams_file)},
        {"cfbd-url", CLI_OPT_STRING, AT(src.cfbd_url), .check = cli_check_http_url},
        {"cfbd-key-file", CLI_OPT_STRING, AT(key_file)},
        {"no-teams", CLI_OPT_FLAG, AT(no_teams)},
        {"timeout-ms", CLI_OPT_INT, AT(src.timeout_ms), 1, 600000, "must be from 1 to 600000"},
        {"max-bytes", CLI_OPT_INT, AT(src.max_bytes), 1, INT64_C(1) << 30,
         "must be from 1 to 1073741824"},
        {"attempts", CLI_OPT_INT, AT(src.attempts), 1, 10, "must be from 1 to 10"},
        {"scoreboard", CLI_OPT_FLAG, AT(src.scoreboard)},
    };
#undef AT
    struct sync_args o = {.src = {.week = MODEL_NULL, .season = MODEL_NULL}};
    int prc = cli_options(argc, argv, 1, opts, CLI_LEN(opts), &o, games_usage);
    if (prc != CLI_OK)
        return prc;
    const char *db = o.db, *key_file = o.key_file;
    bool json = o.json;
    struct games_source src = o.src;
    src.with_teams = !o.no_teams;
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

    struct cli_op op;
    if (cli_op_open(&op, db) != CLI_OK)
        return CLI_REFUSED;
    fetch_global_init();
    struct cli_json j;
    cli_json_init(&j);
    struct jw *w = &j.w;
    struct rejects rj = {.json = json, .w = w};
    if (json) {
        jw_obj_begin(w);
        jw_key(w, "rejects");
        jw_arr_begin(w);
    }
    struct games_sync_report r;
    char err[1024] = "";
    int rc = app_games_sync_source(&op.c, &src, on_reject, &rj, &r, NULL, NULL, err, sizeof err);
    memset(key, 0, sizeof key);
    int status = CLI_OK;
    if (rc == GAMES_SYNC_FETCH_FAILED || rc == GAMES_SYNC_BAD_DOCUMENT) {
        status = cli_refuse("%s: %s", src.provider, err);
    } else if (rc == APP_UNAVAILABLE) {
        status = cli_refuse("%s: the database failed (%s); batches written before stay, run the"
                            " sync again",
                            src.provider, store_errmsg(op.s));
    } else if (json) {
        jw_arr_end(w);
        jw_fmt(w,
               "provider:%s scoreboard:%dB inserted:%ld updated:%ld unchanged:%ld rejected:%ld "
               "vanished:%ld notStored:%ld vanishedChecked:%dB teams:%ld notModified:%dB "
               "httpRequests:%ld",
               src.provider, r.scoreboard, (int64_t)r.inserted, (int64_t)r.updated,
               (int64_t)r.unchanged, (int64_t)r.rejected, (int64_t)r.vanished,
               (int64_t)r.not_stored, !r.vanish_skipped, (int64_t)r.teams, r.not_modified,
               (int64_t)r.attempts);
        cli_json_print(&j);
    } else {
        char line[256];
        app_games_report_line(&r, line, sizeof line);
        printf("%s: %s\n", src.provider, line);
    }
    buf_release(&j.b); /* a refusal's unprinted answer (cli_json_print released a printed one) */
    cli_op_close(&op);
    return status;
}

int cli_games(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "sync") == 0)
        return games_sync_cmd(argc - 1, argv + 1);
    return cli_usage(games_usage);
}
