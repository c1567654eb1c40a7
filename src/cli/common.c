#include <assert.h>
#include <getopt.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "http/query.h"
#include "util/jsonw.h"
#include "util/timefmt.h"

const char *cli_db_path(const char *opt)
{
    if (opt)
        return opt;
    const char *env = getenv("WHISTLE_DB");
    return env && *env ? env : "whistle.db";
}

/* WHISTLE_VERSION_LEASE for a command's writes (store.h store_lease_setup): 0, or -1 with
 * the refusal printed. */
static int cli_lease(const char *path)
{
    const char *e = getenv("WHISTLE_VERSION_LEASE");
    int64_t us = 0;
    if (e && (opt_duration(e, OPT_MS, &us) < 0 || us > 1000 * OPT_MS)) {
        cli_refuse("WHISTLE_VERSION_LEASE must be a duration from 0 to 1000 ms (or with ms/s)");
        return -1;
    }
    return store_lease_setup(path, us, false);
}

struct store *cli_open_store(const char *path)
{
    char err[512];
    struct store *s = NULL;
    if (cli_lease(path) < 0)
        return NULL;
    if (store_open(path, true, &s, err, sizeof err) < 0) {
        cli_refuse("%s", err);
        return NULL;
    }
    if (store_migrate(s, err, sizeof err) < 0) {
        cli_refuse("%s", err);
        store_close(s);
        return NULL;
    }
    return s;
}

const char *cli_check_http_url(const char *v)
{
    return strncmp(v, "http://", 7) == 0 || strncmp(v, "https://", 8) == 0
               ? NULL
               : "must start with http:// or https://";
}

/* The value of one option into dest, by its row: CLI_OK, or the refusal printed. */
static int take_option(const struct cli_opt *r, void *dest, const char *v)
{
    void *field = (char *)dest + r->off;
    switch (r->kind) {
    case CLI_OPT_STRING: {
        const char *why = r->check ? r->check(v) : NULL;
        if (why)
            return cli_refuse("--%s %s", r->name, why);
        memcpy(field, &v, sizeof v);
        return CLI_OK;
    }
    case CLI_OPT_FLAG:
        *(bool *)field = true;
        return CLI_OK;
    case CLI_OPT_INT: {
        int64_t x;
        if (qp_parse_int(v, &x) < 0 || x < r->min || x > r->max) {
            if (r->invalid)
                return cli_refuse("--%s %s", r->name, r->invalid);
            return cli_refuse("--%s must be an integer from %lld to %lld", r->name,
                              (long long)r->min, (long long)r->max);
        }
        opt_put_int(field, r->width, x);
        return CLI_OK;
    }
    case CLI_OPT_TAKE:
        return r->take(dest, v, r->k);
    }
    return CLI_USAGE;
}

/* getopt_long's code of row i: above every character code, so '?' stays the unknown one */
#define CLI_OPT_CODE 256
#define CLI_OPTS_MAX 24 /* rows in the largest table (games sync has 15) */

int cli_options(int argc, char **argv, int first, const struct cli_opt *rows, size_t n, void *dest,
                const char *usage)
{
    struct option lo[CLI_OPTS_MAX + 1];
    assert(n <= CLI_OPTS_MAX);
    if (argc < first)
        return cli_usage(usage);
    for (size_t i = 0; i < n; i++)
        lo[i] = (struct option){rows[i].name,
                                rows[i].kind == CLI_OPT_FLAG ? no_argument : required_argument,
                                NULL, CLI_OPT_CODE + (int)i};
    lo[n] = (struct option){NULL, 0, NULL, 0};
    optind = first;
    int c;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        if (c < CLI_OPT_CODE || c >= CLI_OPT_CODE + (int)n)
            return cli_usage(usage);
        int rc = take_option(&rows[c - CLI_OPT_CODE], dest, optarg);
        if (rc != CLI_OK)
            return rc;
    }
    return CLI_OK;
}

int cli_refuse(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("whistle: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_REFUSED;
}

int cli_usage(const char *usage)
{
    fprintf(stderr, "usage: %s\n", usage);
    return CLI_USAGE;
}

void cli_print_json(struct buf *b)
{
    fwrite(b->p, 1, b->len, stdout);
    fputc('\n', stdout);
}

void cli_json_init(struct cli_json *j)
{
    j->b = (struct buf)BUF_INIT;
    jw_init(&j->w, &j->b);
}

void cli_json_begin(struct cli_json *j)
{
    cli_json_init(j);
    jw_obj_begin(&j->w);
}

/* Ends, prints and releases j, wiping its buffer before it is freed when it held a secret. */
static void json_print(struct cli_json *j, bool secret)
{
    jw_obj_end(&j->w);
    cli_print_json(&j->b);
    if (secret)
        sodium_memzero(j->b.p, j->b.len);
    buf_release(&j->b);
}

void cli_json_print(struct cli_json *j)
{
    json_print(j, false);
}

void cli_json_print_secret(struct cli_json *j)
{
    json_print(j, true);
}

void cli_print_json_strings(const struct cli_field *f, size_t n)
{
    struct cli_json j;
    cli_json_begin(&j);
    for (size_t i = 0; i < n; i++) {
        jw_kstr(&j.w, f[i].key, f[i].value);
    }
    cli_json_print(&j);
}

void cli_printf_json(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
}

int cli_op_open(struct cli_op *o, const char *db)
{
    o->s = cli_open_store(cli_db_path(db));
    if (!o->s)
        return CLI_REFUSED;
    arena_init(&o->a);
    o->c = (struct app_ctx){.s = o->s, .a = &o->a, .now = time_now_us(), .actor = "operator"};
    return CLI_OK;
}

void cli_op_close(struct cli_op *o)
{
    arena_release(&o->a);
    store_close(o->s);
}

int cli_dispatch(const struct cli_action *acts, size_t n, int argc, char **argv, const char *db,
                 void *args, const char *usage)
{
    int npos = argc - optind;
    char **pos = argv + optind;
    for (size_t k = 0; k < n; k++) {
        const struct cli_action *act = &acts[k];
        if (strcmp(argv[1], act->name) != 0 || (act->npos >= 0 && npos != act->npos))
            continue;
        int rc = act->check ? act->check(act, args, pos) : CLI_OK;
        if (rc != CLI_OK)
            return rc;
        struct cli_op op;
        if (cli_op_open(&op, db) != CLI_OK)
            return CLI_REFUSED;
        rc = act->run(act, &op, args, pos);
        cli_op_close(&op);
        return rc;
    }
    return cli_usage(usage);
}

int cli_command(int argc, char **argv, const struct cli_opt *opts, size_t nopts,
                const struct cli_action *acts, size_t nacts, void *args, const char *usage)
{
    int rc = cli_options(argc, argv, 2, opts, nopts, args, usage);
    if (rc != CLI_OK)
        return rc;
    const char *db;
    assert(strcmp(opts[0].name, "db") == 0);
    memcpy(&db, (const char *)args + opts[0].off, sizeof db);
    return cli_dispatch(acts, nacts, argc, argv, db, args, usage);
}

void cli_print_json_list(const char *key, const void *items, size_t n,
                         void (*item)(struct jw *w, const void *items, size_t i))
{
    struct cli_json j;
    cli_json_begin(&j);
    jw_key(&j.w, key);
    jw_arr_begin(&j.w);
    for (size_t i = 0; i < n; i++)
        item(&j.w, items, i);
    jw_arr_end(&j.w);
    cli_json_print(&j);
}
