/*
 * libFuzzer: the import document reader (src/app/import.c import_document), on a scratch
 * SQLite database made once per process. Each input is read as `whistle import` reads a file
 * (src/cli/import.c: jansson, duplicate keys refused, NUL allowed for jin_no_nul to refuse)
 * and imported as a dry run: every rule and every write of a real import, then a rollback,
 * so the database stays empty and each input starts from the same state.
 *
 * Beyond memory errors it checks two promises: a document never makes the store fail (a
 * write the reader let through that a constraint then refuses is a missing rule: it must be
 * refused as IMPORT_INVALID, naming its path), and a dry run leaves nothing behind.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/import.h"
#include "scratchdb.h"

#define NOW (INT64_C(1764000000) * 1000000)

static struct store *db;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    db = scratch_db_open("import");
    return 0;
}

static long long rows(const char *sql)
{
    struct store_stmt *st = store_prepare(db, sql);
    if (!st || store_step(st) != STORE_ROW)
        abort();
    long long n = store_col_int(st, 0);
    store_reset(st);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t jerr;
    json_t *doc =
        json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    if (!doc)
        return 0;
    struct app_ctx ctx = {.s = db, .now = NOW, .actor = "operator"};
    struct import_options opt = {.dry_run = true};
    struct import_report r;
    memset(&r, 0, sizeof r);
    int outcome = import_document(&ctx, doc, &opt, &r);
    json_decref(doc);
    if (outcome == IMPORT_UNAVAILABLE) {
        fprintf(stderr, "fuzz_import: the store refused what the reader accepted: %s\n", r.err);
        abort();
    }
    if (outcome != IMPORT_OK && outcome != IMPORT_INVALID)
        abort();
    if (outcome == IMPORT_INVALID && !r.err[0])
        abort(); /* a refusal always says why */
    if (rows("SELECT (SELECT count(*) FROM teams) + (SELECT count(*) FROM games)"
             " + (SELECT count(*) FROM incidents) + (SELECT count(*) FROM audit_log)") != 0)
        abort(); /* a dry run wrote something */
    return 0;
}
