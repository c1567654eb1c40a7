/* Helpers app.h declares for every use case that belong to none of them. */
#include <string.h>

#include "app/app.h"

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
