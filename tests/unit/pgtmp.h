#ifndef WHISTLE_TESTS_PGTMP_H
#define WHISTLE_TESTS_PGTMP_H

/* A fresh, migrated database on the PostgreSQL cluster WHISTLE_TEST_PG names (tests/run.sh
 * starts one when PostgreSQL is installed), for unit tests of the PostgreSQL driver's paths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"

/* The URI of database name on the cluster WHISTLE_TEST_PG names into uri: 0, or -1. */
static inline int pgtmp_uri(const char *name, char *uri, size_t len)
{
    const char *base = getenv("WHISTLE_TEST_PG");
    const char *scheme = base ? strstr(base, "://") : NULL;
    const char *path = scheme ? strchr(scheme + 3, '/') : NULL;
    if (!path)
        return -1;
    snprintf(uri, len, "%.*s/%s%s", (int)(path - base), base, name, path + strcspn(path, "?"));
    return 0;
}

/* Creates the database prefix_<pid>_<n> (its name in name) over the maintenance connection
 * *admin and opens it migrated in *s: 1, or 0 when no cluster is named (the test skips), or
 * -1 on failure (said on stderr). */
static inline int pgtmp_open(const char *prefix, char name[64], struct store **admin,
                             struct store **s)
{
    static int counter;
    const char *base = getenv("WHISTLE_TEST_PG");
    char err[256] = "", uri[512], sql[128];
    if (!base || !*base || strcmp(base, "skip") == 0)
        return 0;
    if (store_open(base, false, admin, err, sizeof err) != 0)
        return -1;
    snprintf(name, 64, "%s_%d_%d", prefix, (int)getpid(), ++counter);
    if (pgtmp_uri(name, uri, sizeof uri) < 0)
        return -1;
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", name);
    store_exec(*admin, sql);
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    if (store_exec(*admin, sql) < 0 || store_open(uri, true, s, err, sizeof err) != 0 ||
        store_migrate(*s, err, sizeof err) != 0) {
        fprintf(stderr, "pgtmp_open: %s\n", err);
        return -1;
    }
    return 1;
}

/* Closes s and drops its database, then closes admin. */
static inline void pgtmp_close(const char *name, struct store *admin, struct store *s)
{
    char sql[128];
    store_close(s);
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", name);
    store_exec(admin, sql);
    store_close(admin);
}

#endif
