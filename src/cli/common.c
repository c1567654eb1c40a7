#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

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

int cli_in_tx(const char *db, int (*fn)(struct store *s, void *ctx), void *ctx)
{
    struct store *s = cli_open_store(cli_db_path(db));
    if (!s)
        return CLI_REFUSED;
    int rc = CLI_REFUSED;
    if (store_begin_write(s) < 0) {
        cli_refuse("cannot lock the database: %s", store_errmsg(s));
        goto out;
    }
    rc = fn(s, ctx);
    if (rc == CLI_OK && store_commit(s) < 0)
        rc = cli_refuse("cannot commit: %s", store_errmsg(s));
    if (rc != CLI_OK)
        store_rollback(s);
out:
    store_close(s);
    return rc;
}
