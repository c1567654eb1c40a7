/*
 * Migrations: numbered SQL files compiled into the binary (src/store/migrations/), applied
 * in order inside one write transaction; schema_version records each one. Numbers are
 * reserved per issue and may land out of order (005 before 004), so every migration that
 * schema_version does not record is applied, not only those above its maximum.
 */
#include <stdio.h>

#include "store/store.h"
#include "util/timefmt.h"

extern const unsigned char migration_001[];
extern const unsigned char migration_002[];
extern const unsigned char migration_003[];
extern const unsigned char migration_004[];
extern const unsigned char migration_005[];
extern const unsigned char migration_006[];

static const struct {
    int version;
    const unsigned char *sql;
} migrations[] = {
    {1, migration_001}, {2, migration_002}, {3, migration_003},
    {4, migration_004}, {5, migration_005}, {6, migration_006},
};

#define NMIGRATIONS   (sizeof migrations / sizeof migrations[0])
#define KNOWN_VERSION (migrations[NMIGRATIONS - 1].version)

/* Whether schema_version records version v: 1, 0, or a negative store_rc. */
static int applied(struct store *s, int v)
{
    struct store_stmt *st = store_prepare(s, "SELECT 1 FROM schema_version WHERE version = ?");
    if (!st)
        return STORE_ERR;
    store_bind_int(st, 1, v);
    int rc = store_step(st);
    store_reset(st);
    return rc < 0 ? rc : rc == STORE_ROW;
}

int store_known_version(void)
{
    return KNOWN_VERSION;
}

int store_schema_version(struct store *s)
{
    struct store_stmt *st =
        store_prepare(s, "SELECT coalesce(max(version), 0) FROM schema_version");
    if (!st)
        return -1;
    int v = store_step(st) == STORE_ROW ? (int)store_col_int(st, 0) : -1;
    store_reset(st);
    return v;
}

int store_migrate(struct store *s, char *err, size_t errlen)
{
    int rc = store_begin_write(s);
    if (rc < 0) {
        snprintf(err, errlen, "cannot lock database for migration: %s", store_errmsg(s));
        return rc;
    }
    rc = store_exec(s, "CREATE TABLE IF NOT EXISTS schema_version ("
                       " version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)");
    if (rc < 0)
        goto fail;
    int have = store_schema_version(s);
    if (have < 0) {
        rc = STORE_ERR;
        goto fail;
    }
    if (have > KNOWN_VERSION) {
        snprintf(err, errlen,
                 "database schema version %d is newer than this binary knows (%d): upgrade whistle",
                 have, KNOWN_VERSION);
        store_rollback(s);
        return -1;
    }
    for (size_t i = 0; i < NMIGRATIONS; i++) {
        rc = applied(s, migrations[i].version);
        if (rc < 0)
            goto fail;
        if (rc == 1)
            continue;
        rc = store_exec(s, (const char *)migrations[i].sql);
        if (rc < 0)
            goto fail;
        struct store_stmt *st =
            store_prepare(s, "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)");
        if (!st) {
            rc = STORE_ERR;
            goto fail;
        }
        store_bind_int(st, 1, migrations[i].version);
        store_bind_int(st, 2, time_now_us());
        rc = store_step(st);
        if (rc < 0)
            goto fail;
    }
    rc = store_commit(s);
    if (rc < 0)
        goto fail;
    return 0;
fail:
    snprintf(err, errlen, "migration failed: %s", store_errmsg(s));
    store_rollback(s);
    return rc < 0 ? rc : -1;
}
