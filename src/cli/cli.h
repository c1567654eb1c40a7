#ifndef WHISTLE_CLI_CLI_H
#define WHISTLE_CLI_CLI_H

#include <stdbool.h>

#include "store/store.h"
#include "util/buf.h"

/*
 * Operator subcommands. Each takes --db PATH (or WHISTLE_DB) and --json; refuses with a
 * one-line reason on stderr ("whistle: …") and exit status 1; usage errors exit 2.
 */
enum { CLI_OK = 0, CLI_REFUSED = 1, CLI_USAGE = 2 };

int cli_serve(int argc, char **argv);
int cli_migrate(int argc, char **argv);
int cli_import(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_incident(int argc, char **argv);
int cli_key(int argc, char **argv);
int cli_account(int argc, char **argv);
int cli_scout_key(int argc, char **argv);
int cli_fetch(int argc, char **argv);
int cli_candidate(int argc, char **argv);
int cli_lead(int argc, char **argv);
int cli_worker(int argc, char **argv);

/* The worker options shared by `whistle worker` and `whistle serve` (its worker thread):
 * put CLI_WORKER_OPTIONS in the getopt_long table and pass unknown codes to
 * cli_worker_option(), which returns 0 (taken), 1 (not a worker option) or CLI_REFUSED
 * negated (-1, the reason printed). */
struct worker_config;
enum {
    CLI_OPT_AUTO_PUBLISH = 1000,
    CLI_OPT_SCOUT_CANDIDATES,
    CLI_OPT_POLL_MS,
    CLI_OPT_LEASE,
    CLI_OPT_ALLOW_FETCH,
    CLI_OPT_FETCH_TIMEOUT,
    CLI_OPT_FETCH_MAX_BYTES,
    CLI_OPT_MIN_DOMAINS,
    CLI_OPT_SMTP_URL,
    CLI_OPT_SMTP_USER,
    CLI_OPT_SMTP_PASSWORD,
    CLI_OPT_MAIL_FROM,
};
/* clang-format off */
#define CLI_WORKER_OPTIONS                                                                         \
    {"auto-publish", no_argument, NULL, CLI_OPT_AUTO_PUBLISH},                                     \
    {"scout-candidates", no_argument, NULL, CLI_OPT_SCOUT_CANDIDATES},                             \
    {"poll-ms", required_argument, NULL, CLI_OPT_POLL_MS},                                         \
    {"lease-seconds", required_argument, NULL, CLI_OPT_LEASE},                                     \
    {"allow-fetch", required_argument, NULL, CLI_OPT_ALLOW_FETCH},                                 \
    {"fetch-timeout-ms", required_argument, NULL, CLI_OPT_FETCH_TIMEOUT},                          \
    {"fetch-max-bytes", required_argument, NULL, CLI_OPT_FETCH_MAX_BYTES},                         \
    {"min-source-domains", required_argument, NULL, CLI_OPT_MIN_DOMAINS},                          \
    {"smtp-url", required_argument, NULL, CLI_OPT_SMTP_URL},                                       \
    {"smtp-user", required_argument, NULL, CLI_OPT_SMTP_USER},                                     \
    {"smtp-password", required_argument, NULL, CLI_OPT_SMTP_PASSWORD},                             \
    {"mail-from", required_argument, NULL, CLI_OPT_MAIL_FROM}
/* clang-format on */
int cli_worker_option(int c, const char *arg, struct worker_config *cfg);
/* Completes the worker options after parsing: $WHISTLE_SMTP_PASSWORD when --smtp-password
 * was not given. 0, or -1 with the reason printed. */
int cli_worker_options_done(struct worker_config *cfg);

/* The database path: --db value, else $WHISTLE_DB, else ./whistle.db. */
const char *cli_db_path(const char *opt);

/* Opens (creating if needed) and migrates the database; prints the reason and returns NULL
 * on failure. */
struct store *cli_open_store(const char *path);

/* Opens the database at db (--db value or NULL, see cli_db_path) and runs fn inside one
 * write transaction, committed when fn returns CLI_OK and rolled back otherwise. fn
 * refuses through cli_refuse(). Returns fn's result, or CLI_REFUSED. */
int cli_in_tx(const char *db, int (*fn)(struct store *s, void *ctx), void *ctx);

/* Prints "whistle: <message>" on stderr; returns CLI_REFUSED. */
int cli_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_usage(const char *usage);

/* Prints buf (a JSON object) and a newline on stdout. */
void cli_print_json(struct buf *b);

#endif
