/*
 * Migrations: numbered SQL files compiled into the binary (src/store/migrations/), applied
 * in order inside one write transaction; schema_version records each one.
 */
#include <stdio.h>

#include "store/store.h"
#include "util/timefmt.h"

extern const unsigned char migration_001[];
extern const unsigned char migration_002[];
extern const unsigned char migration_003[];
extern const unsigned char migration_004[];

static const struct {
    int version;
    const unsigned char *sql;
} migrations[] = {
    {1, migration_001},
    {2, migration_002},
    {3, migration_003},
    {4, migration_004},
};

#define KNOWN_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

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
    for (int i = have; i < KNOWN_VERSION; i++) {
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
