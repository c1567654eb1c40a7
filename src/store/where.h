#ifndef WHISTLE_STORE_WHERE_H
#define WHISTLE_STORE_WHERE_H

#include <stdint.h>

#include "store/store.h"
#include "util/buf.h"

/*
 * The filter clauses of a list query, built once per request: each present filter appends
 * " AND <clause>" to the SQL text and remembers its value, bound to every "?" of its clause
 * (so "(g.home_team_id = ? OR g.away_team_id = ?)" takes the team twice). The SQL text
 * depends only on which filters are present, so each shape is prepared once per connection
 * (store_prepare's cache). A list query then adds its ORDER BY and LIMIT ? OFFSET ?.
 */
#define WHERE_MAX 16

struct where {
    struct buf sql;
    int n;
    struct {
        const char *text; /* NULL: an integer */
        int64_t i;
        int uses; /* how many "?" the clause has */
    } v[WHERE_MAX];
};

/* Starts the query with `select` (its own WHERE included, e.g. "… WHERE 1 = 1"). */
void where_init(struct where *w, const char *select);
/* Appends clause when value is set (text non-NULL; integer not STORE_NULL_INT). */
void where_text(struct where *w, const char *clause, const char *value);
void where_int(struct where *w, const char *clause, int64_t value);
/* Appends clause without a value when on. */
void where_flag(struct where *w, const char *clause, int on);
/* Prepares the SQL text (then released) and binds every value from 1; *next is the next
 * free parameter index. NULL when the statement cannot be prepared. */
struct store_stmt *where_prepare(struct where *w, struct store *s, int *next);

#endif
