#ifndef WHISTLE_CLI_CLI_H
#define WHISTLE_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "store/store.h"
#include "util/arena.h"
#include "util/buf.h"

/*
 * Operator subcommands. Each takes --db PATH (or WHISTLE_DB) and --json; refuses with a
 * one-line reason on stderr ("whistle: …") and exit status 1; usage errors exit 2.
 */
enum { CLI_OK = 0, CLI_REFUSED = 1, CLI_USAGE = 2 };

int cli_serve(int argc, char **argv);
int cli_cache(int argc, char **argv);
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

/* The operator's use-case context (app/app.h): the database at db (--db value or NULL, see
 * cli_db_path) opened and migrated, an arena, now, actor "operator". cli_op_open returns
 * CLI_OK, or CLI_REFUSED with the reason printed; cli_op_close releases the arena (and
 * everything the use cases returned in it) and closes the database. */
struct cli_op {
    struct store *s;
    struct arena a;
    struct app_ctx c;
};
int cli_op_open(struct cli_op *o, const char *db);
void cli_op_close(struct cli_op *o);

/* The two options every subcommand takes (codes 'd' and 'j'), first in its getopt_long table. */
/* clang-format off */
#define CLI_COMMON_OPTIONS {"db", required_argument, NULL, 'd'}, {"json", no_argument, NULL, 'j'}
/* clang-format on */

/* getopt_long(argc, argv, "", opts, NULL) that takes --db (code 'd') into *db and --json
 * (code 'j') into *json itself: returns the next other option's code ('?' for an unknown
 * one), or -1 after the last. The caller sets optind first. */
struct option;
int cli_getopt(int argc, char **argv, const struct option *opts, const char **db, bool *json);

/* Prints "whistle: <message>" on stderr; returns CLI_REFUSED. */
int cli_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_usage(const char *usage);

/* Prints buf (a JSON object) and a newline on stdout. */
void cli_print_json(struct buf *b);
/* The --json form of a CLI list: prints {"<key>": [ … ]} and a newline on stdout, item(w,
 * items, i) writing each of the n items. */
struct jw;
void cli_print_json_list(const char *key, const void *items, size_t n,
                         void (*item)(struct jw *w, const void *items, size_t i));

#endif
