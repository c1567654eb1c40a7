#ifndef WHISTLE_CLI_CLI_H
#define WHISTLE_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "store/store.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/jsonw.h"

/*
 * Operator subcommands. Each takes --db PATH (or WHISTLE_DB) and --json; refuses with a
 * one-line reason on stderr ("whistle: …") and exit status 1; usage errors exit 2.
 */
enum { CLI_OK = 0, CLI_REFUSED = 1, CLI_USAGE = 2 };

/* A subcommand: argv[0] is its name (main.c's command table); returns the exit status. */
typedef int cli_main_fn(int argc, char **argv);
cli_main_fn cli_serve, cli_cache, cli_migrate, cli_import, cli_export, cli_incident, cli_key,
    cli_account, cli_comment, cli_scout_key, cli_fetch, cli_candidate, cli_audit, cli_lead,
    cli_worker, cli_games, cli_demo_sources;
cli_main_fn cli_account_role; /* grant, revoke (comment.c) */

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
 * A subcommand's actions are a table too (cgit's cmd.c, git's builtin table): the name in
 * argv[1], how many positional arguments it takes, what it checks before the database is
 * opened and what it runs on it. cli_dispatch matches, checks, opens, runs and closes, so
 * no action repeats that preamble.
 */
struct cli_action {
    const char *name;
    int npos; /* positional arguments after the options (argv[optind..]); -1: any number */
    /* NULL, or the checks that need no database (an id's form, a required option) on args,
     * which it may complete: CLI_OK, or the refusal or usage printed */
    int (*check)(const struct cli_action *act, void *args, char **pos);
    /* the action on the opened database: CLI_OK, or the refusal printed */
    int (*run)(const struct cli_action *act, struct cli_op *op, void *args, char **pos);
    int k; /* which variant of a shared check or run the row is (a scoutkey_change) */
};

/* Runs the row of the n acts named argv[1] that takes the argc - optind positional
 * arguments left: its check, then its run on the database at db (cli_op_open, closed after).
 * Returns run's result, check's refusal, CLI_REFUSED when the database cannot be opened, or
 * cli_usage(usage) when no row matches. */
int cli_dispatch(const struct cli_action *acts, size_t n, int argc, char **argv, const char *db,
                 void *args, const char *usage);

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
/* --db and --json, first in the table of a subcommand that takes them: T has db and json. */
/* clang-format off */
#define CLI_OPTS_COMMON(T) \
    {"db", CLI_OPT_STRING, CLI_OPT_AT(T, db)}, {"json", CLI_OPT_FLAG, CLI_OPT_AT(T, json)}
/* clang-format on */

/* Parses argv[first..] by the n rows into dest (which holds the defaults already); strings
 * stored point into argv. The positional arguments are then argv[optind..argc-1]
 * (getopt_long moves them last). Returns CLI_OK; CLI_REFUSED with "whistle: --limit must
 * be …" printed for a value out of its row's range or check; cli_usage(usage) when argc <
 * first, for an unknown option or a missing value. */
int cli_options(int argc, char **argv, int first, const struct cli_opt *rows, size_t n, void *dest,
                const char *usage);
/* The number of rows of a table (an array) */
#define CLI_LEN(rows) (sizeof(rows) / sizeof((rows)[0]))
/* A subcommand whose action is argv[1]: cli_options(argc, argv, 2, opts, …) into args, then
 * cli_dispatch on the database of --db (opts begins with CLI_OPTS_COMMON). */
int cli_command(int argc, char **argv, const struct cli_opt *opts, size_t nopts,
                const struct cli_action *acts, size_t nacts, void *args, const char *usage);

/* A .check of a URL option: NULL when v starts with http:// or https://, else what it must. */
const char *cli_check_http_url(const char *v);

/* Prints "whistle: <message>" on stderr; returns CLI_REFUSED. */
int cli_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_usage(const char *usage);

/* Prints buf (a JSON object) and a newline on stdout. */
void cli_print_json(struct buf *b);
/* A --json answer being written: j.w writes into j.b. It must not move once begun. */
struct cli_json {
    struct buf b;
    struct jw w;
};
/* Starts j's object ("{"); cli_json_init starts j without one (the caller writes it). */
void cli_json_begin(struct cli_json *j);
void cli_json_init(struct cli_json *j);
/* Ends j's object, prints it and a newline on stdout and releases j. The _secret form
 * wipes the buffer before it is freed (a key's secret is in it). */
void cli_json_print(struct cli_json *j);
void cli_json_print_secret(struct cli_json *j);
/* Prints the JSON object of n string fields (a NULL value is null) and a newline on stdout. */
struct cli_field {
    const char *key, *value;
};
void cli_print_json_strings(const struct cli_field *f, size_t n);
/* Prints the JSON object that fmt formats (as printf) and a newline on stdout: the --json
 * answer of a command whose values need no escaping (UUIDs, numbers, fixed words). */
void cli_printf_json(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The --json form of a CLI list: prints {"<key>": [ … ]} and a newline on stdout, item(w,
 * items, i) writing each of the n items. */
void cli_print_json_list(const char *key, const void *items, size_t n,
                         void (*item)(struct jw *w, const void *items, size_t i));

#endif
