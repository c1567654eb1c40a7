#ifndef WHISTLE_CLI_SETTINGS_H
#define WHISTLE_CLI_SETTINGS_H

#include <stdbool.h>

#include "cli/options.h"
#include "domain/address.h"
#include "domain/limits.h"
#include "http/http.h"
#include "worker/worker.h"

/*
 * The options of `whistle serve` and `whistle worker`: one table (settings.c) parsed into
 * one struct. An option both commands take (--db, --base-url, the worker options) is one
 * row. docs/operators.md's option reference is the table's Markdown (`whistle serve
 * --help=markdown`, `make docs`); tests/http/test_options.py fails when they differ.
 */
enum { CLI_SERVE = 1 << 0, CLI_WORKER = 1 << 1 };

#define CLI_MAX_TRUSTED_PROXIES 32

struct cli_settings {
    const char *db;       /* --db, else $WHISTLE_DB, else whistle.db */
    const char *base_url; /* --base-url as given, or NULL */
    bool no_cache, no_worker, once, json;
    int list_index_max;        /* --list-index-max: 0 no list index (store/listindex.h) */
    int fragment_cache_mb;     /* --fragment-cache-mb: 0 none (store/fragments.h) */
    int fragment_bodies_mb;    /* --fragment-bodies-mb: 0 none (store/bodies.h) */
    int tally_copy_mb;         /* --tally-copy-mb: 0 none (store/tallies.h) */
    int64_t version_lease_us;  /* --version-lease: 0 off (store.h store_lease_setup) */
    struct server_config http; /* serve: listen, threads, connection limits, timeout */
    struct worker_config worker;
    struct whistle_limits limits;
    /* --trusted-proxy, as given and parsed (http.trusted_proxies points at the ranges) */
    const char *trusted_proxy[CLI_MAX_TRUSTED_PROXIES];
    int ntrusted_proxy;
    struct address_range trusted_ranges[CLI_MAX_TRUSTED_PROXIES];
};

/* Returned by cli_settings_parse when the command should run. */
#define CLI_RUN (-1)

/* Parses argv (argv[0] is the command's name) for cmd (CLI_SERVE or CLI_WORKER) into st
 * and completes it (the smtp options' consistency). Returns CLI_RUN, or the exit status
 * when the command must end now: CLI_OK after printing --help, CLI_REFUSED after a bad
 * value, CLI_USAGE after a usage error; messages read "whistle serve: option --threads
 * must be an integer from 1 to 256". Strings in st point into argv or the environment. */
int cli_settings_parse(unsigned cmd, int argc, char **argv, struct cli_settings *st);

#endif
