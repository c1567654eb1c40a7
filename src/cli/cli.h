#ifndef WHISTLE_CLI_CLI_H
#define WHISTLE_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>

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
int cli_account_role(int argc, char **argv); /* grant, revoke (comment.c) */
int cli_comment(int argc, char **argv);
int cli_scout_key(int argc, char **argv);
int cli_fetch(int argc, char **argv);
int cli_candidate(int argc, char **argv);
int cli_audit(int argc, char **argv);
int cli_lead(int argc, char **argv);
int cli_worker(int argc, char **argv);
int cli_games(int argc, char **argv);
int cli_demo_sources(int argc, char **argv);

/* The CollegeFootballData key: the first line of key_file, else $WHISTLE_CFBD_KEY, else ""
 * (out, outlen). 0, or -1 with the reason in err (unreadable file, a space or control
 * character in the key). The key itself is never in a message. */
int cli_cfbd_key(const char *key_file, char *out, size_t outlen, char *err, size_t errlen);

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
