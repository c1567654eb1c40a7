/*
 * whistle import FILE [--dry-run]: reads the document and hands it to import_document
 * (src/app/import.c); this file only maps its outcome to a message and an exit status.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "app/import.h"
#include "cli/cli.h"
#include "util/timefmt.h"

static void progress(void *arg, const char *section, size_t done, size_t total)
{
    (void)arg;
    fprintf(stderr, "import: %zu/%zu %s\n", done, total, section);
}

static const char import_usage[] =
    "whistle import FILE [--db PATH] [--json] [--if-empty] [--dry-run]";

int cli_import(int argc, char **argv)
{
    struct args {
        const char *db;
        bool json, if_empty, dry_run;
    } a = {0};
    static const struct cli_opt opts[] = {
        CLI_OPTS_COMMON(struct args),
        {"if-empty", CLI_OPT_FLAG, CLI_OPT_AT(struct args, if_empty)},
        {"dry-run", CLI_OPT_FLAG, CLI_OPT_AT(struct args, dry_run)},
    };
    int rc = cli_options(argc, argv, 1, opts, CLI_LEN(opts), &a, import_usage);
    if (rc != CLI_OK)
        return rc;
    struct import_options opt = {
        .progress = progress, .if_empty = a.if_empty, .dry_run = a.dry_run};
    if (optind != argc - 1)
        return cli_usage(import_usage);
    const char *file = argv[optind];

    json_error_t jerr;
    const size_t flags = JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL; /* NUL: see jin_no_nul */
    json_t *doc = strcmp(file, "-") == 0 ? json_loadf(stdin, flags, &jerr)
                                         : json_load_file(file, flags, &jerr);
    if (!doc && jerr.line < 1) /* the file could not be read: jansson has no position */
        return cli_refuse("import refused: %s", jerr.text);
    if (!doc)
        return cli_refuse("import refused: %s: line %d column %d: %s", file, jerr.line, jerr.column,
                          jerr.text);
    int status = CLI_REFUSED;
    struct app_ctx ctx = {.now = time_now_us(), .actor = "operator"};
    struct import_report r;
    ctx.s = cli_open_store(cli_db_path(a.db));
    if (!ctx.s)
        goto out;
    switch (import_document(&ctx, doc, &opt, &r)) {
    case IMPORT_OK:
        status = CLI_OK;
        break;
    case IMPORT_NOT_EMPTY:
        fprintf(stderr, "whistle: the database already has data; nothing imported\n");
        status = CLI_OK;
        goto out;
    case IMPORT_INVALID:
        cli_refuse("import refused: %s", r.err);
        goto out;
    default:
        cli_refuse("%s", r.err);
        goto out;
    }
    if (a.json) {
        cli_printf_json("{\"teams\":%zu,\"games\":%zu,\"incidents\":%zu,\"comments\":%zu%s}",
                        r.teams, r.games, r.incidents, r.comments,
                        opt.dry_run ? ",\"dry_run\":true" : "");
    } else {
        fprintf(stderr, "%s %zu teams, %zu games, %zu incidents, %zu comments%s\n",
                opt.dry_run ? "checked" : "imported", r.teams, r.games, r.incidents, r.comments,
                opt.dry_run ? " (dry run: nothing written)" : "");
    }
out:
    store_close(ctx.s);
    json_decref(doc);
    return status;
}
