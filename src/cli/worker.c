/*
 * whistle worker: the background worker alone (lead research, email outbox, housekeeping),
 * and the worker options that `whistle serve` shares for its in-process worker thread.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "http/query.h"
#include "research/fetch.h"
#include "util/jsonw.h"
#include "util/log.h"
#include "worker/worker.h"

static const char worker_usage[] =
    "whistle worker [--db PATH] [--once] [--json] [--auto-publish] [--scout-candidates]\n"
    "               [--base-url URL] [--poll-ms N] [--lease-seconds N]\n"
    "               [--min-source-domains N] [--allow-fetch HOST:PORT]...\n"
    "               [--fetch-timeout-ms N] [--fetch-max-bytes N]\n"
    "               [--smtp-url smtp[s]://HOST:PORT] [--smtp-user USER] [--smtp-password PW]\n"
    "               [--mail-from ADDRESS]";

/* cli_worker_option's refusal: the reason printed, -1 returned. */
static int option_refused(const char *msg)
{
    cli_refuse("%s", msg);
    return -1;
}

int cli_worker_option(int c, const char *arg, struct worker_config *cfg)
{
    int64_t v;
    switch (c) {
    case CLI_OPT_AUTO_PUBLISH:
        cfg->auto_publish = true;
        return 0;
    case CLI_OPT_SCOUT_CANDIDATES:
        cfg->scout_candidates = true;
        return 0;
    case CLI_OPT_POLL_MS:
        if (qp_parse_int(arg, &v) < 0 || v < 10 || v > 60000)
            return option_refused("--poll-ms must be an integer from 10 to 60000");
        cfg->poll_ms = (int)v;
        return 0;
    case CLI_OPT_LEASE:
        if (qp_parse_int(arg, &v) < 0 || v < 1 || v > 86400)
            return option_refused("--lease-seconds must be an integer from 1 to 86400");
        cfg->lease_us = v * 1000000;
        return 0;
    case CLI_OPT_ALLOW_FETCH:
        if (cfg->nallow == WORKER_MAX_ALLOW)
            return option_refused("at most 16 --allow-fetch entries");
        cfg->allow[cfg->nallow++] = arg;
        return 0;
    case CLI_OPT_FETCH_TIMEOUT:
        if (qp_parse_int(arg, &v) < 0 || v < 1 || v > 60000)
            return option_refused("--fetch-timeout-ms must be from 1 to 60000");
        cfg->fetch_timeout_ms = (long)v;
        return 0;
    case CLI_OPT_FETCH_MAX_BYTES:
        if (qp_parse_int(arg, &v) < 0 || v < 1 || v > (64 << 20))
            return option_refused("--fetch-max-bytes must be from 1 to 67108864");
        cfg->fetch_max_bytes = (long)v;
        return 0;
    case CLI_OPT_MIN_DOMAINS:
        if (qp_parse_int(arg, &v) < 0 || v < 1 || v > 5)
            return option_refused("--min-source-domains must be an integer from 1 to 5");
        cfg->min_domains = (int)v;
        return 0;
    case CLI_OPT_SMTP_URL:
        if (strncmp(arg, "smtp://", 7) != 0 && strncmp(arg, "smtps://", 8) != 0)
            return option_refused("--smtp-url must start with smtp:// or smtps://");
        cfg->smtp_url = arg;
        return 0;
    case CLI_OPT_SMTP_USER:
        cfg->smtp_user = arg;
        return 0;
    case CLI_OPT_SMTP_PASSWORD:
        cfg->smtp_password = arg;
        return 0;
    case CLI_OPT_MAIL_FROM:
        if (strpbrk(arg, "\r\n") || !strchr(arg, '@'))
            return option_refused("--mail-from must be an address (\"Name <a@b.example>\")");
        cfg->mail_from = arg;
        return 0;
    default:
        return 1;
    }
}

int cli_worker_options_done(struct worker_config *cfg)
{
    if (!cfg->smtp_password) {
        const char *env = getenv("WHISTLE_SMTP_PASSWORD");
        if (env && env[0])
            cfg->smtp_password = env;
    }
    if ((cfg->smtp_user || cfg->smtp_password) && !cfg->smtp_url)
        return option_refused("--smtp-user and --smtp-password need --smtp-url");
    if (cfg->smtp_url && cfg->smtp_password && !cfg->smtp_user)
        return option_refused("--smtp-password needs --smtp-user");
    return 0;
}

int cli_worker(int argc, char **argv)
{
    static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
                                         {"once", no_argument, NULL, 'o'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"base-url", required_argument, NULL, 'b'},
                                         CLI_WORKER_OPTIONS,
                                         {NULL, 0, NULL, 0}};
    const char *db = NULL;
    bool once = false, json = false;
    struct worker_config cfg;
    worker_config_init(&cfg, NULL);
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd':
            db = optarg;
            break;
        case 'o':
            once = true;
            break;
        case 'j':
            json = true;
            break;
        case 'b':
            cfg.base_url = optarg;
            break;
        default: {
            int rc = cli_worker_option(c, optarg, &cfg);
            if (rc > 0)
                return cli_usage(worker_usage);
            if (rc < 0)
                return CLI_REFUSED;
        }
        }
    }
    if (optind != argc)
        return cli_usage(worker_usage);
    if (cli_worker_options_done(&cfg) < 0)
        return CLI_REFUSED;
    cfg.db = cli_db_path(db);
    /* migrations first, as serve does: a worker never runs on a schema it does not know */
    struct store *s = cli_open_store(cfg.db);
    if (!s)
        return CLI_REFUSED;
    store_close(s);
    fetch_global_init();
    if (once) {
        int n = worker_drain(&cfg);
        if (n < 0)
            return cli_refuse("the worker stopped on a database error (%d)", n);
        if (json) {
            struct buf out = BUF_INIT;
            buf_printf(&out, "{\"units\":%d}", n);
            cli_print_json(&out);
            buf_release(&out);
        } else {
            printf("%d units of work done\n", n);
        }
        return CLI_OK;
    }
    /* SIGINT/SIGTERM are taken by sigwait(); the worker thread inherits the blocked mask */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    if (worker_thread_start(&cfg) < 0)
        return cli_refuse("cannot start the worker thread");
    int sig = 0;
    sigwait(&sigs, &sig);
    log_info("worker", "signal %d: finishing the current unit of work", sig);
    worker_thread_stop();
    return CLI_OK;
}
