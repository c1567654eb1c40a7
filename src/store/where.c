#include "store/where.h"

#include <assert.h>

void where_init(struct where *w, const char *select)
{
    w->sql = (struct buf)BUF_INIT;
    w->n = 0;
    buf_puts(&w->sql, select);
}

static void add(struct where *w, const char *clause, const char *text, int64_t i)
{
    assert(w->n < WHERE_MAX);
    int uses = 0;
    for (const char *p = clause; *p; p++)
        uses += *p == '?';
    buf_puts(&w->sql, " AND ");
    buf_puts(&w->sql, clause);
    if (uses == 0)
        return;
    w->v[w->n].text = text;
    w->v[w->n].i = i;
    w->v[w->n].uses = uses;
    w->n++;
}

void where_text(struct where *w, const char *clause, const char *value)
{
    if (value)
        add(w, clause, value, 0);
}

void where_int(struct where *w, const char *clause, int64_t value)
{
    if (value != STORE_NULL_INT)
        add(w, clause, NULL, value);
}

void where_flag(struct where *w, const char *clause, int on)
{
    if (on)
        add(w, clause, NULL, 0);
}

struct store_stmt *where_prepare(struct where *w, struct store *s, int *next)
{
    struct store_stmt *st = store_prepare(s, w->sql.p);
    buf_release(&w->sql);
    if (!st)
        return NULL;
    int k = 1;
    for (int i = 0; i < w->n; i++)
        for (int u = 0; u < w->v[i].uses; u++) {
            if (w->v[i].text)
                store_bind_text(st, k++, w->v[i].text);
            else
                store_bind_int(st, k++, w->v[i].i);
        }
    *next = k;
    return st;
}
