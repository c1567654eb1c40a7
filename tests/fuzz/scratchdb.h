#ifndef WHISTLE_FUZZ_SCRATCHDB_H
#define WHISTLE_FUZZ_SCRATCHDB_H

/* A migrated SQLite database in a temporary file, made once per fuzzing process (from
 * LLVMFuzzerInitialize) and removed at its exit with its -wal and -shm: the harnesses that
 * run the store's code (fuzz_import, fuzz_fragcodec). Logging is cut to errors, and
 * synchronous=OFF keeps a run out of fsync. Aborts when the database cannot be made. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "store/store.h"
#include "util/log.h"

static struct store *scratch_db;
static char scratch_path[64];

static void scratch_db_remove(void)
{
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    store_close(scratch_db);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char p[80];
        snprintf(p, sizeof p, "%s%s", scratch_path, suffixes[i]);
        unlink(p);
    }
}

/* The database, its file named after the harness (/tmp/whistle-fuzz-NAME-XXXXXX). */
static inline struct store *scratch_db_open(const char *name)
{
    char err[256];
    log_set_level(LOG_ERROR);
    snprintf(scratch_path, sizeof scratch_path, "/tmp/whistle-fuzz-%s-XXXXXX", name);
    int fd = mkstemp(scratch_path);
    if (fd < 0)
        abort();
    close(fd);
    if (store_open(scratch_path, true, &scratch_db, err, sizeof err) < 0 ||
        store_migrate(scratch_db, err, sizeof err) < 0) {
        fprintf(stderr, "fuzz_%s: %s\n", name, err);
        abort();
    }
    store_exec(scratch_db, "PRAGMA synchronous=OFF");
    atexit(scratch_db_remove);
    return scratch_db;
}

#endif
