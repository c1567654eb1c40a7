#include "store/fragments.h"

#include <string.h>

#include "domain/votes.h"

/* One statement, so one snapshot on either driver without a transaction around it: the
 * facts and fragment of each incident, joined with its current question version's tally
 * rows (one row per rooting group and slot, the incident's columns repeated; the slots are
 * summed here, store/votes.h). A join on the tallies' primary key, not a grouped subquery:
 * SQLite would build an automatic index for that on every run. */
#define FACTS_SQL                                                                                  \
    "SELECT i.id, i.visibility, i.slug, i.duplicate_of, d.slug, d.visibility,"                     \
    " i.comment_count, i.question_version,"                                                        \
    " CASE WHEN x.incident_id IS NULL THEN f.body END,"                                            \
    " t.rooting, t.correct, t.incorrect, t.unsure"                                                 \
    " FROM incidents i LEFT JOIN incidents d ON d.id = i.duplicate_of"                             \
    " LEFT JOIN incident_fragments f ON f.incident_id = i.id"                                      \
    " LEFT JOIN fragment_stale x ON x.incident_id = i.id"                                          \
    " LEFT JOIN vote_tallies t"                                                                    \
    " ON t.incident_id = i.id AND t.question_version = i.question_version"                         \
    " WHERE i.id "

int fragments_read(struct store *s, struct arena *a, const char *const *ids, size_t n,
                   struct incident_facts *out)
{
    memset(out, 0, n * sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i].id = ids[i];
    if (n == 0)
        return 0;
    /* one text per power of two of IDs (the rest bound null): a few statements in the
     * connection's cache, not one per page size */
    size_t slots = store_id_slots(n, 1);
    /* a single incident (the hot read) with a constant text */
    struct store_stmt *st = slots == 1 ? STORE_SELECT(s, FACTS_SQL "= ?", STORE_TEXT(ids[0]))
                                       : store_select_ids(s, FACTS_SQL "IN", "", ids, n, slots);
    if (!st)
        return STORE_ERR;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        const char *id = store_col_text(st, 0);
        struct incident_facts *f = NULL;
        for (size_t i = 0; id && i < n && !f; i++)
            if (strcmp(ids[i], id) == 0)
                f = &out[i];
        if (!f)
            continue;
        if (!f->found) {
            f->found = true;
            f->visibility = arena_strdup(a, store_col_text(st, 1));
            f->slug = arena_strdup(a, store_col_text(st, 2));
            f->duplicate_of = arena_strdup(a, store_col_text(st, 3));
            f->survivor_slug = arena_strdup(a, store_col_text(st, 4));
            f->survivor_visibility = arena_strdup(a, store_col_text(st, 5));
            f->comment_count = store_col_int(st, 6);
            f->question_version = store_col_int(st, 7);
            const char *body = store_col_text(st, 8);
            if (body) {
                f->fragment_len = strlen(body);
                f->fragment = arena_strndup(a, body, f->fragment_len);
            }
        }
        const char *rooting = store_col_text(st, 9);
        int r = rooting ? rooting_from_name(rooting) : -1; /* NULL: no tally row */
        if (r < 0)
            continue;
        f->votes.by_rooting[r].correct += store_col_int(st, 10);
        f->votes.by_rooting[r].incorrect += store_col_int(st, 11);
        f->votes.by_rooting[r].unsure += store_col_int(st, 12);
    }
    store_reset(st);
    return rc < 0 ? rc : 0;
}

int fragments_stale(struct store *s, struct arena *a, size_t max, const char ***ids, size_t *n)
{
    *ids = NULL;
    *n = 0;
    const char **list = arena_alloc(a, sizeof *list * (max ? max : 1));
    size_t count;
    bool more;
    int rc = store_page(
        STORE_SELECT(s, "SELECT incident_id FROM fragment_stale LIMIT ?", STORE_INT((int64_t)max)),
        a, store_read_id, list, (int64_t)max, &count, &more);
    if (rc < 0)
        return rc;
    *ids = list;
    *n = count;
    return 0;
}

int fragments_claim(struct store *s, const char *id)
{
    return STORE_EXISTS(s, "DELETE FROM fragment_stale WHERE incident_id = ? RETURNING incident_id",
                        STORE_TEXT(id));
}

int fragments_put(struct store *s, const char *id, const char *body)
{
    if (!body)
        return STORE_RUN(s, "DELETE FROM incident_fragments WHERE incident_id = ?", STORE_TEXT(id));
    return STORE_RUN(s,
                     "INSERT INTO incident_fragments (incident_id, body) VALUES (?, ?)"
                     " ON CONFLICT (incident_id) DO UPDATE SET body = excluded.body",
                     STORE_TEXT(id), STORE_TEXT(body));
}
