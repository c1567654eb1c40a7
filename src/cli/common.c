#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "util/jsonw.h"
#include "util/timefmt.h"

const char *cli_db_path(const char *opt)
{
    if (opt)
        return opt;
    const char *env = getenv("WHISTLE_DB");
    return env && *env ? env : "whistle.db";
}

struct store *cli_open_store(const char *path)
{
    char err[512];
    struct store *s = NULL;
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

int cli_getopt(int argc, char **argv, const struct option *opts, const char **db, bool *json)
{
    for (;;) {
        int c = getopt_long(argc, argv, "", opts, NULL);
        if (c == 'd')
            *db = optarg;
        else if (c == 'j')
            *json = true;
        else
            return c;
    }
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

void cli_print_json_list(const char *key, const void *items, size_t n,
                         void (*item)(struct jw *w, const void *items, size_t i))
{
    struct buf b = BUF_INIT;
    struct jw w;
    jw_init(&w, &b);
    jw_obj_begin(&w);
    jw_key(&w, key);
    jw_arr_begin(&w);
    for (size_t i = 0; i < n; i++)
        item(&w, items, i);
    jw_arr_end(&w);
    jw_obj_end(&w);
    cli_print_json(&b);
    buf_release(&b);
}
