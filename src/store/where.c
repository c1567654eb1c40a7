#include "store/where.h"

#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "store/driver.h"
#include "util/timefmt.h"

void where_init(struct where *w, const char *select)
{
    w->sql = (struct buf)BUF_INIT;
    w->n = 0;
    buf_puts(&w->sql, select);
    w->mark = w->sql.len;
    w->mark_n = 0;
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

void where_mark(struct where *w)
{
    w->mark = w->sql.len;
    w->mark_n = (size_t)w->n;
}

void where_repeat(struct where *w, const char *text)
{
    size_t n = (size_t)w->n;
    struct buf conds = BUF_INIT;
    buf_append(&conds, w->sql.p + w->mark, w->sql.len - w->mark);
    buf_puts(&w->sql, text);
    buf_append(&w->sql, conds.p, conds.len);
    buf_release(&conds);
    for (size_t i = w->mark_n; i < n; i++) {
        assert(w->n < WHERE_MAX);
        w->v[w->n++] = w->v[i];
    }
}

bool where_hinted(struct store *s)
{
    return !store_is_pg(s);
}

const char *where_index(struct store *s, const char *name)
{
    static _Thread_local char hint[96];
    if (!where_hinted(s))
        return "";
    snprintf(hint, sizeof hint, " INDEXED BY %s", name);
    return hint;
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

struct store_stmt *where_page(struct store *s, const struct where_list *l,
                              const struct where_page *p)
{
    bool arms = p->team && p->away_index;
    struct where w;
    struct buf sel = BUF_INIT;
    buf_printf(&sel, "%s(SELECT %s FROM %s%s%s", p->head, l->ids, l->from,
               p->index ? where_index(s, p->index) : "", l->filter);
    where_init(&w, sel.p);
    buf_release(&sel);
    if (arms)
        where_text(&w, l->home, p->team);
    where_mark(&w);
    p->conditions(&w, p->filter);
    if (!arms)
        where_text(&w, l->either, p->team);
    if (arms) {
        struct buf arm = BUF_INIT;
        buf_printf(&arm, " UNION ALL SELECT %s FROM %s%s%s", l->arm_ids, l->from,
                   where_index(s, p->away_index), l->filter);
        where_repeat(&w, arm.p);
        buf_release(&arm);
        where_text(&w, l->away, p->team);
        where_text(&w, l->not_home, p->team);
    }
    buf_printf(&w.sql, "%s LIMIT ? OFFSET ?) p%s", p->order, p->tail);
    int k;
    struct store_stmt *st = where_prepare(&w, s, &k);
    if (!st)
        return NULL;
    store_bind_int(st, k++, p->limit + 1);
    store_bind_int(st, k, p->offset);
    return st;
}

/* The remembered counts: a small open table keyed by the count's SQL and values, shared by
 * the server's threads. */
#define COUNT_SLOTS  512
#define COUNT_TTL_US (300 * 1000000LL)
static struct {
    uint64_t hash;
    int64_t rows, at;
} counts[COUNT_SLOTS];
static pthread_mutex_t counts_lock = PTHREAD_MUTEX_INITIALIZER;

int64_t where_count(struct store *s, const char *table, const char *index, const char *cond,
                    const char *text, const char *text2, int64_t i, int64_t j)
{
    struct buf sql = BUF_INIT;
    buf_printf(&sql, "SELECT count(*) FROM (SELECT 1 FROM %s%s WHERE %s LIMIT %d) c", table,
               where_index(s, index), cond, WHERE_COUNT_MAX);
    struct buf key = BUF_INIT;
    buf_printf(&key, "%s|%s|%lld|%lld|%s|%s", store_driver_name(s), sql.p, (long long)i,
               (long long)j, text ? text : "", text2 ? text2 : "");
    uint64_t h = store_sql_hash(key.p);
    buf_release(&key);
    size_t slot = (size_t)(h % COUNT_SLOTS);
    int64_t now = time_mono_us(), rows = -1;
    pthread_mutex_lock(&counts_lock);
    if (counts[slot].hash == h && now - counts[slot].at < COUNT_TTL_US)
        rows = counts[slot].rows;
    pthread_mutex_unlock(&counts_lock);
    if (rows >= 0) {
        buf_release(&sql);
        return rows;
    }
    struct store_stmt *st = store_prepare(s, sql.p);
    buf_release(&sql);
    if (!st)
        return INT64_MAX;
    int k = 1;
    if (text)
        store_bind_text(st, k++, text);
    if (text2)
        store_bind_text(st, k++, text2);
    if (i != STORE_NULL_INT)
        store_bind_int(st, k++, i);
    if (j != STORE_NULL_INT)
        store_bind_int(st, k++, j);
    rows = store_step(st) == STORE_ROW ? store_col_int(st, 0) : INT64_MAX;
    store_reset(st);
    if (rows == INT64_MAX)
        return rows;
    pthread_mutex_lock(&counts_lock);
    counts[slot].hash = h;
    counts[slot].rows = rows;
    counts[slot].at = now;
    pthread_mutex_unlock(&counts_lock);
    return rows;
}

const char *where_cheapest(const struct where_driver *d, int n)
{
    int best = 0;
    for (int k = 1; k < n; k++)
        if (d[k].rows < d[best].rows)
            best = k;
    return d[best].index;
}
