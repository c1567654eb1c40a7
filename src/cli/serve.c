/* whistle serve, whistle migrate */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "api/api.h"
#include "domain/account.h"
#include "domain/voter.h"
#include "store/votes.h"
#include "web/web.h"
#include "cli/cli.h"
#include "http/query.h"
#include "util/jsonw.h"
#include "util/timefmt.h"
#include "research/fetch.h"
#include "worker/worker.h"

static const char serve_usage[] =
    "whistle serve [--db PATH] [--listen HOST:PORT] [--base-url URL] [--threads N]\n"
    "              [--poll] [--no-cache] [--max-connections N] [--max-per-ip N]\n"
    "              [--vote-limit-voter N] [--vote-limit-ip N]\n"
    "              [--timeout SECONDS] [--no-worker] [--auto-publish] [--scout-candidates]\n"
    "              [--poll-ms N] [--lease-seconds N] [--min-source-domains N]\n"
    "              [--allow-fetch HOST:PORT]...\n"
    "              [--fetch-timeout-ms N] [--fetch-max-bytes N]\n"
    "              [--smtp-url smtp[s]://HOST:PORT] [--smtp-user USER] [--smtp-password PW]\n"
    "              [--mail-from ADDRESS] [--max-agent-keys N] [--signin-limit-account N]\n"
    "              [--signin-limit-ip N] [--signup-limit-ip N] [--password-memory-kib N]";

/* The response cache's validation token: the thread's connection's data version. */
static int cache_token(uint64_t out[2])
{
    struct store *s = store_thread();
    if (!s)
        return -1;
    int rc = store_data_version(s, out);
    if (rc < 0)
        store_thread_drop();
    return rc < 0 ? -1 : 0;
}

static int positive(const char *s, int64_t max, int64_t *out)
{
    return qp_parse_int(s, out) == 0 && *out >= 1 && *out <= max ? 0 : -1;
}

int cli_serve(int argc, char **argv)
{
    static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
                                         {"listen", required_argument, NULL, 'l'},
                                         {"base-url", required_argument, NULL, 'b'},
                                         {"threads", required_argument, NULL, 't'},
                                         {"poll", no_argument, NULL, 'p'},
                                         {"max-connections", required_argument, NULL, 'c'},
                                         {"max-per-ip", required_argument, NULL, 'i'},
                                         {"timeout", required_argument, NULL, 'o'},
                                         {"no-cache", no_argument, NULL, 'n'},
                                         {"vote-limit-voter", required_argument, NULL, 'V'},
                                         {"vote-limit-ip", required_argument, NULL, 'I'},
                                         {"no-worker", no_argument, NULL, 'W'},
                                         {"max-agent-keys", required_argument, NULL, 'K'},
                                         {"signin-limit-account", required_argument, NULL, 'A'},
                                         {"signin-limit-ip", required_argument, NULL, 'P'},
                                         {"signup-limit-ip", required_argument, NULL, 'U'},
                                         {"password-memory-kib", required_argument, NULL, 'M'},
                                         CLI_WORKER_OPTIONS,
                                         {NULL, 0, NULL, 0}};
    const char *db = NULL, *base = NULL;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    struct server_config cfg = {
        .listen = "127.0.0.1:8080",
        .threads = ncpu > 0 ? (int)ncpu : 2,
        .use_poll = false,
        .connection_limit = 4096,
        .per_ip_limit = 1024,
        .timeout_s = 30,
        .memory_limit = 16 * 1024,
        .cache_token = cache_token,
    };
    struct worker_config wcfg;
    worker_config_init(&wcfg, NULL);
    bool with_worker = true;
    int c, wrc;
    int64_t v;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd':
            db = optarg;
            break;
        case 'l':
            cfg.listen = optarg;
            break;
        case 'b':
            base = optarg;
            break;
        case 'p':
            cfg.use_poll = true;
            break;
        case 'n':
            cfg.cache_token = NULL;
            break;
        case 'V':
            if (positive(optarg, 100000, &v) < 0)
                return cli_refuse("--vote-limit-voter must be a positive integer");
            web_vote_limit_voter = (int)v;
            break;
        case 'I':
            if (positive(optarg, 1000000, &v) < 0)
                return cli_refuse("--vote-limit-ip must be a positive integer");
            web_vote_limit_ip = (int)v;
            break;
        case 't':
            if (positive(optarg, 256, &v) < 0)
                return cli_refuse("--threads must be an integer from 1 to 256");
            cfg.threads = (int)v;
            break;
        case 'c':
            if (positive(optarg, 1000000, &v) < 0)
                return cli_refuse("--max-connections must be a positive integer");
            cfg.connection_limit = (unsigned)v;
            break;
        case 'i':
            if (positive(optarg, 1000000, &v) < 0)
                return cli_refuse("--max-per-ip must be a positive integer");
            cfg.per_ip_limit = (unsigned)v;
            break;
        case 'o':
            if (positive(optarg, 3600, &v) < 0)
                return cli_refuse("--timeout must be an integer from 1 to 3600");
            cfg.timeout_s = (unsigned)v;
            break;
        case 'W':
            with_worker = false;
            break;
        case 'K':
            if (positive(optarg, 1000, &v) < 0)
                return cli_refuse("--max-agent-keys must be an integer from 1 to 1000");
            account_limits.max_keys = (int)v;
            break;
        case 'A':
            if (positive(optarg, 100000, &v) < 0)
                return cli_refuse("--signin-limit-account must be a positive integer");
            account_limits.signin_per_account = (int)v;
            break;
        case 'P':
            if (positive(optarg, 1000000, &v) < 0)
                return cli_refuse("--signin-limit-ip must be a positive integer");
            account_limits.signin_per_ip = (int)v;
            break;
        case 'U':
            if (positive(optarg, 1000000, &v) < 0)
                return cli_refuse("--signup-limit-ip must be a positive integer");
            account_limits.mail_forms_per_ip = (int)v;
            break;
        case 'M':
            /* argon2id memory per password hash; libsodium's interactive default is 64 MiB */
            if (positive(optarg, 4 * 1024 * 1024, &v) < 0 || v < 8 * 1024 ||
                account_password_set_cost(crypto_pwhash_OPSLIMIT_INTERACTIVE, (size_t)v * 1024) < 0)
                return cli_refuse("--password-memory-kib must be from 8192 to 4194304");
            break;
        default:
            wrc = cli_worker_option(c, optarg, &wcfg);
            if (wrc > 0)
                return cli_usage(serve_usage);
            if (wrc < 0)
                return CLI_REFUSED;
        }
    }
    if (optind != argc)
        return cli_usage(serve_usage);
    if (cli_worker_options_done(&wcfg) < 0)
        return CLI_REFUSED;
    /* the API shows the setting in the scout status op; the worker acts on it */
    api_scout_candidates = wcfg.scout_candidates;

    char base_buf[512];
    if (!base) {
        snprintf(base_buf, sizeof base_buf, "http://%s", cfg.listen);
        base = base_buf;
        cfg.base_from_listen = true;
    } else if (strncmp(base, "http://", 7) != 0 && strncmp(base, "https://", 8) != 0) {
        return cli_refuse("--base-url must start with http:// or https://");
    }
    /* no trailing slash: URLs are built as base + "/api/…" */
    char *b = strdup(base);
    size_t bl = strlen(b);
    while (bl > 0 && b[bl - 1] == '/')
        b[--bl] = '\0';
    cfg.base_url = b;

    if (time_test_clock_enabled())
        fprintf(stderr, "whistle: WARNING: WHISTLE_TEST_NOW_OFFSET_FILE is set: the clock is "
                        "shifted for tests; never set it in production\n");
    const char *path = cli_db_path(db);
    struct store *s = cli_open_store(path);
    if (!s) {
        free(b);
        return CLI_REFUSED;
    }
    /* the cookie secret lives in the database, so every node of a deployment shares it */
    unsigned char secret[32];
    int src = store_begin_write(s);
    if (src >= 0)
        src = settings_secret(s, "cookie_secret", secret);
    if (src >= 0)
        src = store_commit(s);
    store_close(s);
    if (src < 0) {
        free(b);
        return cli_refuse("cannot load or create the cookie secret");
    }
    voter_set_secret(secret);
    sodium_memzero(secret, sizeof secret);
    store_thread_setup(path);
    /* the worker thread must inherit the signal mask that http_serve() sigwaits on */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    wcfg.db = path;
    wcfg.base_url = b;
    if (with_worker && !wcfg.smtp_url)
        fprintf(stderr, "whistle: no --smtp-url: account emails (with their single-use links) "
                        "are written to the log instead of sent; set --smtp-url in production\n");
    if (with_worker) {
        fetch_global_init();
        if (worker_thread_start(&wcfg) < 0) {
            free(b);
            return cli_refuse("cannot start the worker thread");
        }
    }
    int rc = http_serve(&cfg, api_routes, api_nroutes);
    worker_thread_stop();
    free(b);
    return rc == 0 ? CLI_OK : CLI_REFUSED;
}

int cli_migrate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'}, {"json", no_argument, NULL, 'j'}, {NULL, 0, NULL, 0}};
    const char *db = NULL;
    bool json = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'd')
            db = optarg;
        else if (c == 'j')
            json = true;
        else
            return cli_usage("whistle migrate [--db PATH] [--json]");
    }
    if (optind != argc)
        return cli_usage("whistle migrate [--db PATH] [--json]");
    struct store *s = cli_open_store(cli_db_path(db));
    if (!s)
        return CLI_REFUSED;
    int v = store_schema_version(s);
    store_close(s);
    if (json) {
        struct buf out = BUF_INIT;
        buf_printf(&out, "{\"schema_version\":%d}", v);
        cli_print_json(&out);
        buf_release(&out);
    } else {
        printf("schema version %d\n", v);
    }
    return CLI_OK;
}
