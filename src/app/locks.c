/* Row writes that lock what their rule needs (app.h app_begin_locked; docs/scale.md "Which
 * lock each write takes"). */
#include <string.h>

#include "app/app.h"

int app_begin_locked(struct store *s, int (*prepare)(struct store *s, void *arg), void *arg,
                     const char *const *keys, size_t n)
{
    /* one fixed order for every write: the keys sorted, each taken once */
    const char *order[APP_LOCK_KEYS_MAX];
    size_t m = 0;
    for (size_t i = 0; i < n && m < APP_LOCK_KEYS_MAX; i++) {
        if (!keys[i] || !keys[i][0])
            continue;
        size_t j = m;
        while (j > 0 && strcmp(order[j - 1], keys[i]) > 0)
            j--;
        if (j > 0 && strcmp(order[j - 1], keys[i]) == 0)
            continue;
        memmove(order + j + 1, order + j, (m - j) * sizeof *order);
        order[j] = keys[i];
        m++;
    }
    if (prepare)
        store_prepare_ahead(s, prepare, arg);
    int rc = store_begin_row_write(s);
    for (size_t i = 0; rc >= 0 && i < m; i++)
        rc = store_lock_key(s, order[i]);
    return rc < 0 ? rc : 0;
}
