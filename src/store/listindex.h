#ifndef WHISTLE_STORE_LISTINDEX_H
#define WHISTLE_STORE_LISTINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/arena.h"

/*
 * The list index (issue 13): an in-memory copy, per process, of the orders and the filter
 * attributes of the public lists, so that a page of GET /api/v1/incidents or
 * GET /api/v1/games costs about one page whatever its filters and offset
 * (docs/architecture.md "Reads: the list index").
 *
 * Each list (the published incidents, publication time desc then ID desc; the games by
 * kickoff, and by kickoff descending, unknown kickoffs last, ties by ID) is positions
 * 0..n-1 in the list's order, as the database itself orders them. Each filter value (a
 * team, home or away; a season; a week; a league; a season type; a status; a category;
 * with or without a verdict) has a compressed bitmap of the positions it selects
 * (CRoaring); the times the from/to filters compare are sorted within a few runs of
 * positions, so from/to are ranges of positions. A page is the intersection of its
 * filters' bitmaps, then select(offset) and the next limit + 1 positions: a few bitmap
 * operations, never a walk over the skipped entries.
 *
 * The index is built from one consistent read (all the lists) and tagged with the store's
 * content version (store.h store_data_version) read before that read. A request uses it
 * only when the content version the request read for its response-cache token equals the
 * tag: every committed write but a ballot moves that version on every node, so a
 * publication, withdrawal, merge or game change is never answered from an older index (a
 * ballot changes nothing the index holds). Otherwise the request is answered from SQL as
 * before and the process's builder thread is asked for a new index (one build at a time,
 * never on a request's thread; after a build it rests at least as long as the build took).
 * The page's rows are then read by their ids; should they not be exactly the index's (a
 * write committed between the token and the read), the request falls back to SQL.
 */
struct listindex;

enum listindex_list {
    LISTINDEX_INCIDENTS,     /* published incidents: publication time desc, ID desc */
    LISTINDEX_GAMES_KICKOFF, /* games: known kickoff first, kickoff asc, ID asc */
    LISTINDEX_GAMES_RECENT,  /* games: known kickoff first, kickoff desc, ID asc */
    LISTINDEX_LISTS
};

/* A page's filters: NULL / STORE_NULL_INT / -1 mean "not filtered". status is the
 * incident's maturity or the game's status; category and has_verdict are incidents' only;
 * from (inclusive) and to (exclusive) compare the publication time or the kickoff. */
struct listindex_query {
    const char *team_id, *league, *season_type, *status, *category;
    int64_t season, week, from, to;
    int has_verdict;
    int64_t limit, offset;
};
/* The initializers of the members that a list's filter f (store/incidents.h incident_filter,
 * store/games.h game_filter) has under the same names: {LISTINDEX_QUERY(f), …the others}. */
#define LISTINDEX_QUERY(f)                                                                         \
    .team_id = (f)->team_id, .league = (f)->league, .season_type = (f)->season_type,               \
    .status = (f)->status, .season = (f)->season, .week = (f)->week, .from = (f)->from,            \
    .to = (f)->to, .limit = (f)->limit, .offset = (f)->offset

/* Builds an index from s (one read transaction, no budget): 0 and *out, 1 when a list has
 * more than max entries (max < 0: no bound), or a negative store_rc. */
int listindex_build(struct store *s, int64_t max, struct listindex **out);
void listindex_free(struct listindex *ix);
uint64_t listindex_version(const struct listindex *ix);

/* The page of q (its limit and offset) in one list of the index: 1 with the ids of the
 * page in order (*n of them, at most q->limit; ids[k] points into the index, valid while
 * it is held) and *more, and with keys (NULL: not wanted) each one's key (a keyed list on
 * SQLite, the incidents': its rowid; else 0); 0 when the index does not serve q (a limit
 * over LISTINDEX_PAGE_MAX). */
#define LISTINDEX_PAGE_MAX 1000
int listindex_page(const struct listindex *ix, enum listindex_list list,
                   const struct listindex_query *q, const char **ids, int64_t *keys, size_t *n,
                   bool *more);

/* The page of q in `list` from the process's index when it holds one built at content
 * version `version`: 1 with the page's ids in order (arena-owned copies, *n of them), with
 * keys (NULL: not wanted) *keys their keys (arena-owned; NULL when the list holds none: the
 * games', every list on PostgreSQL) and *more; 0 when no index of that version serves q (a
 * build is asked for). Reads nothing
 * from the store and counts nothing: the caller reads the rows and checks them, then
 * counts the request (listindex_count_request). */
int listindex_ids(struct arena *a, uint64_t version, enum listindex_list list,
                  const struct listindex_query *q, const char ***ids, const int64_t **keys,
                  size_t *n, bool *more);

/* A page from the process's index when it holds one built at content version `version`:
 * the page of q in `list`, then its rows read by primary key in one statement (`select`, a
 * SELECT … WHERE … ending in the ID column, "… AND i.id", to which store_select_ids appends
 * the list of ids), read(a, st, rows, k) putting each row at its place k in the page.
 * 1 answered (*n rows, their ids in *ids, arena-owned, and *more), 0 not (no
 * index of that version, a write committed since the request's token removed a row: SQL answers),
 * or a negative store_rc. Counts the request (listindex_counts). */
int listindex_serve(struct store *s, struct arena *a, uint64_t version, enum listindex_list list,
                    const struct listindex_query *q, const char *select, store_read_fn read,
                    void *rows, const char ***ids, size_t *n, bool *more);

/*
 * The process's index. listindex_setup names the database (the builder opens its own
 * connection) and the most entries a list may have (0: no index; more: none is kept and
 * every list is answered from SQL), starts the builder thread and asks for a first build.
 * Without setup (tests, CLI commands) listindex_acquire answers NULL until listindex_refresh
 * made an index current.
 */
void listindex_setup(const char *uri, int64_t max);
/* Whether listindex_setup made a process index. */
bool listindex_enabled(void);
/* The current index when it was built at content version `version`, held until
 * listindex_release; else NULL, and a build is asked for. */
struct listindex *listindex_acquire(uint64_t version);
void listindex_release(struct listindex *ix);
/* Builds on the calling thread with s and makes the result current (tests). 0 or a
 * negative store_rc. */
int listindex_refresh(struct store *s);
/* The current index's published incidents and approximate bytes (0 and 0 when there is
 * none): GET /metrics. */
void listindex_current(size_t *incidents, size_t *bytes);
/* Counts one list request (a game's incidents aside) answered from the index (served) or
 * not (missed), and reads the counts (GET /metrics). */
void listindex_count_request(bool served);
void listindex_counts(int64_t *served, int64_t *missed);

#endif
