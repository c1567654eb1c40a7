#ifndef WHISTLE_TESTS_TMPDB_H
#define WHISTLE_TESTS_TMPDB_H

/* A migrated SQLite database in a temporary file, for unit tests of store code. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "store/store.h"

struct tmpdb {
    char path[64];
    struct store *s;
};

/* Raw SQL seeds bypass the store's writes: copy the game attributes onto the incidents as
 * games_upsert and admin_upsert_incident do (migration 011). */
#define TMPDB_COPY_GAMES                                                                           \
    "UPDATE incidents SET (g_season, g_week, g_league, g_season_type, g_home, g_away) ="           \
    " (SELECT g.season, g.week, g.league, g.season_type, g.home_team_id, g.away_team_id"           \
    " FROM games g WHERE g.id = incidents.game_id)"

/* The integer a one-row query answers; INT64_MIN when it answers no row or fails. */
static inline int64_t tmpdb_int(struct store *s, const char *sql)
{
    struct store_stmt *st = store_prepare(s, sql);
    if (!st)
        return INT64_MIN;
    int64_t v = store_step(st) == STORE_ROW ? store_col_int(st, 0) : INT64_MIN;
    store_reset(st);
    return v;
}

/* Creates and migrates the database, then runs seed_sql (may be NULL). NULL on failure. */
static inline struct tmpdb *tmpdb_open(const char *seed_sql)
{
    struct tmpdb *d = calloc(1, sizeof *d);
    char err[256];
    if (!d)
        return NULL;
    snprintf(d->path, sizeof d->path, "/tmp/whistle-unit-XXXXXX");
    int fd = mkstemp(d->path);
    if (fd < 0) {
        free(d);
        return NULL;
    }
    close(fd);
    if (store_open(d->path, true, &d->s, err, sizeof err) < 0 ||
        store_migrate(d->s, err, sizeof err) < 0 ||
        (seed_sql && store_exec(d->s, seed_sql) != STORE_DONE) ||
        store_exec(d->s, TMPDB_COPY_GAMES) != STORE_DONE) {
        fprintf(stderr, "tmpdb: %s\n", err);
        return NULL;
    }
    return d;
}

/* Closes the database and removes its files (-wal and -shm included). */
static inline void tmpdb_close(struct tmpdb *d)
{
    char p[80];
    store_close(d->s);
    unlink(d->path);
    snprintf(p, sizeof p, "%s-wal", d->path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", d->path);
    unlink(p);
    free(d);
}

#endif
