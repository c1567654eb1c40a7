#ifndef WHISTLE_CLI_CLI_H
#define WHISTLE_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/*
 * A subcommand's options are a table (cgit's cmd.c, Kore's config.c): one row per option
 * says its name, what its value is and where it goes (an offset into the caller's struct,
 * CLI_OPT_AT). cli_options parses argv by it with getopt_long, in the rows' order (which
 * getopt_long's messages on an ambiguous prefix follow).
 */
enum cli_opt_kind {
    CLI_OPT_STRING, /* a const char * field: the value (pointing into argv); .check may refuse */
    CLI_OPT_FLAG,   /* a bool field: true when the option is there; takes no value */
    CLI_OPT_INT,    /* an integer field (int, long, int64_t, size_t): a decimal from min to max */
    CLI_OPT_TAKE,   /* .take(dest, value, .k) does what the option means */
};

struct cli_opt {
    const char *name; /* without the leading "--" */
    enum cli_opt_kind kind;
    size_t off, width; /* CLI_OPT_AT */
    int64_t min, max;  /* INT: the range */
    /* INT: what the value must be ("must be from 1 to 60000"); NULL: "must be an integer
     * from MIN to MAX" */
    const char *invalid;
    /* STRING: NULL when v is acceptable, else what it must be ("must start with…") */
    const char *(*check)(const char *v);
    /* TAKE: CLI_OK, or the refusal printed and CLI_REFUSED */
    int (*take)(void *dest, const char *v, int k);
    int k; /* TAKE: passed to take (which budget, which list) */
};

#define CLI_OPT_AT(T, field) .off = offsetof(T, field), .width = sizeof(((T *)0)->field)
/* The two options every subcommand but fetch takes, first in its table: T has db and json. */
/* clang-format off */
#define CLI_OPTS_COMMON(T) \
    {"db", CLI_OPT_STRING, CLI_OPT_AT(T, db)}, {"json", CLI_OPT_FLAG, CLI_OPT_AT(T, json)}
/* clang-format on */

/* Parses argv[first..] by the n rows into dest (which holds the defaults already); the
 * positional arguments are then argv[optind..argc-1] (getopt_long moves them last). Returns CLI_OK;
 * CLI_REFUSED with "whistle: --limit must be …" printed for a value out of its row's range or
 * check; cli_usage(usage) when argc < first, for an unknown option or a missing value. */
int cli_options(int argc, char **argv, int first, const struct cli_opt *rows, size_t n, void *dest,
                const char *usage);
#define CLI_NOPTS(rows) (sizeof(rows) / sizeof((rows)[0]))

/* A .check of a URL option: NULL when v starts with http:// or https://, else what it must. */
const char *cli_check_http_url(const char *v);

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
