#ifndef WHISTLE_STORE_WHERE_H
#define WHISTLE_STORE_WHERE_H

#include <stdbool.h>
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
#define WHERE_MAX 32

struct where {
    struct buf sql;
    int n;
    size_t mark, mark_n; /* where_mark: the conditions where_repeat copies start here */
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
/* Marks the start of the conditions that where_repeat copies. */
void where_mark(struct where *w);
/* Appends text, then the conditions added since where_mark again, with their values (the
 * second arm of a UNION ALL over the same filters). */
void where_repeat(struct where *w, const char *text);
/* Whether the store takes the list's choice of index (SQLite). */
bool where_hinted(struct store *s);
/* " INDEXED BY name" on SQLite, which has no statistics to choose a list's index (the list
 * picks the index of its most selective filter); "" on PostgreSQL, whose planner has them
 * (docs/scale.md). */
const char *where_index(struct store *s, const char *name);
/* A list's candidate index: the filter it is keyed on and how many rows that filter's
 * values select (where_count). The list walks the candidate with the fewest rows, so a
 * request reads at most that many index entries whatever the other filters (SQLite has no
 * per-value statistics; PostgreSQL's planner has its own and ignores the choice). */
struct where_driver {
    const char *index;
    int64_t rows;
};
/* How many rows of table (through index) match cond, with cond's "?" bound to text and text2
 * (when non-NULL) then i and j (when not STORE_NULL_INT), up to WHERE_COUNT_MAX (past it a
 * partition is just large, and counting it stays cheap); remembered per process for a few minutes
 * (a count only steers the choice of an index, never a result). INT64_MAX when it cannot be
 * counted. */
#define WHERE_COUNT_MAX 100000
int64_t where_count(struct store *s, const char *table, const char *index, const char *cond,
                    const char *text, const char *text2, int64_t i, int64_t j);
/* Of n candidates, the one with the fewest rows (the first on a tie). */
const char *where_cheapest(const struct where_driver *d, int n);
/* Prepares the SQL text (then released) and binds every value from 1; *next is the next
 * free parameter index. NULL when the statement cannot be prepared. */
struct store_stmt *where_prepare(struct where *w, struct store *s, int *next);

/* A public list's page query (incidents, games): its table, the rows it lists, and the
 * clauses of its team filter, which matches a team's home rows and its away rows. */
struct where_list {
    const char *ids;      /* the page's columns: "x.id AS pid", then its order's, named */
    const char *arm_ids;  /* the same columns unnamed, for the second arm */
    const char *from;     /* the table and its alias */
    const char *filter;   /* " WHERE …": the rows the list holds */
    const char *home;     /* the team's home rows: "… = ?" */
    const char *away;     /* its away rows: "… = ?" */
    const char *either;   /* its rows: "(… = ? OR … = ?)" */
    const char *not_home; /* an away row that is not also a home row: "… IS DISTINCT FROM ?" */
};
/* A where_list whose team filter compares the columns home and away (string literals). */
#define WHERE_LIST(ids_, arm_ids_, from_, filter_, home_, away_)                                   \
    {                                                                                              \
        .ids = ids_, .arm_ids = arm_ids_, .from = from_, .filter = filter_, .home = home_ " = ?",  \
        .away = away_ " = ?", .either = "(" home_ " = ? OR " away_ " = ?)",                        \
        .not_home = home_ " IS DISTINCT FROM ?"                                                    \
    }
/* One request's page of a where_list. */
struct where_page {
    const char *head;       /* what comes before the page's "(SELECT" */
    const char *index;      /* the index the page walks (NULL: the database's choice) */
    const char *team;       /* the team filter's value, NULL when none */
    const char *away_index; /* non-NULL: the team's rows are two arms (below) */
    const char *order;      /* the page's ORDER BY: over pid and the named columns with arms */
    const char *tail;       /* what follows the page's "(…) p" */
    void (*conditions)(struct where *w, const void *filter); /* the list's own filters */
    const void *filter;
    int64_t limit, offset;
};
/* The statement of a page: head, then "(SELECT ids FROM from" through index, filter, the
 * list's conditions and the team's, ordered, "LIMIT ? OFFSET ?) p" (limit + 1 and offset
 * bound), then tail. With a team and away_index the page is two arms merged by the ORDER BY:
 * the team's home rows through index UNION ALL its away rows that are not home rows through
 * away_index, each with the list's conditions (two ordered index scans, where one index on
 * either column could not serve the OR). NULL when it cannot be prepared. */
struct store_stmt *where_page(struct store *s, const struct where_list *l,
                              const struct where_page *p);

#endif
