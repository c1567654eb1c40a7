/* Helpers app.h declares for every use case that belong to none of them. */
#include <string.h>

#include "app/app.h"
#include "util/log.h"

void *app_rows_push(struct app_rows *rows)
{
    if (rows->n == rows->cap) {
        size_t cap = rows->cap ? rows->cap * 2 : 16;
        void *grown = arena_alloc(rows->a, cap * rows->size);
        if (rows->n)
            memcpy(grown, rows->v, rows->n * rows->size);
        rows->v = grown;
        rows->cap = cap;
    }
    return (char *)rows->v + rows->n++ * rows->size;
}

void *app_rows_copy(struct app_rows *rows, const void *row, const size_t *strings, size_t n)
{
    char *copy = app_rows_push(rows);
    memcpy(copy, row, rows->size);
    for (size_t i = 0; i < n; i++) {
        const char *s;
        memcpy(&s, copy + strings[i], sizeof s);
        s = arena_strdup(rows->a, s);
        memcpy(copy + strings[i], &s, sizeof s);
    }
    return copy;
}

int app_unavailable(const struct app_ctx *c, const char *module, int rc, const char *what)
{
    store_rollback(c->s);
    log_warn(module, "%s: store failure %d rid=%s", what, rc, c->request_id ? c->request_id : "-");
    return APP_UNAVAILABLE;
}

int app_commit(const struct app_ctx *c, const char *module, int rc, const char *what)
{
    if (rc >= 0)
        rc = store_commit(c->s);
    return rc < 0 ? app_unavailable(c, module, rc, what) : APP_OK;
}

int app_rollback(const struct app_ctx *c, int rc, int result)
{
    store_rollback(c->s);
    return rc < 0 ? APP_UNAVAILABLE : result;
}
