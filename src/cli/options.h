#ifndef WHISTLE_CLI_OPTIONS_H
#define WHISTLE_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/*
 * Table-driven command-line options (STYLE.md habit 9, Kore's config.c): one row per option
 * says its name, type, range, default, environment variable, help text and where its value
 * goes (an offset into the caller's settings struct). The same rows parse argv, validate
 * with one message shape, print --help and print the Markdown reference of
 * docs/operators.md, so the three cannot drift. The table of `whistle serve` and
 * `whistle worker` is cli/settings.c; this file knows nothing of Whistle.
 *
 * Syntax: --name VALUE or --name=VALUE; flags take no value; a unique prefix of a name
 * is accepted (as getopt_long did); "--" ends the options; no positional arguments. A
 * scalar option given twice keeps its last value; a list option collects every value.
 */
enum opt_type {
    OPT_BOOL,     /* a flag: present sets the bool field to true */
    OPT_INT,      /* a decimal integer from min to max */
    OPT_SIZE,     /* bytes: an integer, optionally with K, M or G (powers of 1024) */
    OPT_DURATION, /* an integer in the row's unit, or with ms, s, m or h; stored in µs */
    OPT_STRING,   /* any text, unless the row's check says otherwise */
    OPT_LIST,     /* a string that may be repeated up to max times (an array + a count) */
};

/* The duration units of a row (microseconds per unit of a bare number). */
#define OPT_MS  INT64_C(1000)
#define OPT_SEC INT64_C(1000000)

struct opt_spec {
    const char *name;    /* without the leading "--" */
    enum opt_type type;  /* what the value is */
    unsigned commands;   /* bit mask of the commands that take the option */
    const char *metavar; /* the value's placeholder in --help ("N", "PATH"); NULL for flags */
    int64_t min, max;    /* INT, SIZE, DURATION (in unit): the range; LIST: max = capacity */
    int64_t unit;        /* DURATION: OPT_MS or OPT_SEC */
    int64_t def;         /* INT, SIZE, DURATION (in unit): the default */
    const char *def_str; /* STRING: the default (NULL: none) */
    const char *shown;   /* the default as documented, when the value alone does not say it
                          * ("one per core"); NULL: printed from def / def_str */
    const char *env;     /* read when the option is absent and the variable is non-empty */
    /* STRING, LIST: NULL when v is acceptable, else what it must be ("must start with…") */
    const char *(*check)(const char *v);
    size_t off, width; /* where the value goes: OPT_AT() */
    size_t count_off;  /* LIST: the int that counts the array's entries (OPT_COUNT_AT) */
    const char *help;  /* one sentence, plain text (also the Markdown "meaning") */
};

/* The destination of a row: a field of the settings struct T. Integer fields may be int,
 * unsigned, long, int64_t or size_t; flags bool; strings and lists const char *. */
#define OPT_AT(T, field)       .off = offsetof(T, field), .width = sizeof(((T *)0)->field)
#define OPT_COUNT_AT(T, field) .count_off = offsetof(T, field)

/* A command that takes options from a table: its name ("serve"), its bit in
 * opt_spec.commands, its one-line synopsis for --help. */
struct opt_command {
    const char *name;
    unsigned mask;
    const char *about;
};

/* Stores v into the integer field at p of width bytes (4 or 8: int, unsigned, long, int64_t,
 * size_t); v is within the field's range, so signedness does not change the bits. */
void opt_put_int(void *p, size_t width, int64_t v);

/* opt_parse's results. OPT_INVALID: a value out of its type or range (the CLI refuses,
 * exit 1); OPT_USAGE: an unknown or ambiguous option, a missing value, a positional
 * argument (exit 2). */
enum opt_result {
    OPT_OK = 0,
    OPT_HELP = 1,          /* --help or -h: print opt_help(), exit 0 */
    OPT_HELP_MARKDOWN = 2, /* --help=markdown: print opt_markdown(), exit 0 */
    OPT_INVALID = -1,
    OPT_USAGE = -2,
};

/* A duration as an OPT_DURATION row reads it (a bare number in unit, or with ms/s/m/h) into
 * *out_us: 0, or -1 when it is not one. */
int opt_duration(const char *s, int64_t unit, int64_t *out_us);

/* Fills dest with the defaults of cmd's rows, then argv[1..argc-1] (argv[0] is the
 * command's name), then the environment for the rows absent from argv. On a negative
 * result err holds the reason, naming the option ("option --threads must be an integer
 * from 1 to 256"); the caller prefixes the command. Strings point into argv or the
 * environment. */
enum opt_result opt_parse(const struct opt_spec *rows, size_t n, const struct opt_command *cmd,
                          int argc, char **argv, void *dest, char *err, size_t errlen);

/* Appends cmd's --help text (usage line, about, one entry per option: help, range,
 * default, environment variable) to out. */
void opt_help(struct buf *out, const struct opt_spec *rows, size_t n,
              const struct opt_command *cmd);

/* Appends the Markdown reference of every row to out: one table, a row per option, with
 * the commands that take it (cmds, ncmds), its value, default and meaning. */
void opt_markdown(struct buf *out, const struct opt_spec *rows, size_t n,
                  const struct opt_command *cmds, size_t ncmds);

#endif
