#include "store/fragments.h"

#include <string.h>

#include "domain/votes.h"
#include "util/buf.h"

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
    size_t slots = 1;
    while (slots < n)
        slots *= 2;
    struct buf sql = BUF_INIT;
    if (slots > 1) {
        struct buf in = BUF_INIT;
        buf_puts(&in, "IN (");
        for (size_t i = 0; i < slots; i++)
            buf_puts(&in, i ? ", ?" : "?");
        buf_puts(&in, ")");
        buf_printf(&sql, "%s%s", FACTS_SQL, in.p);
        buf_release(&in);
    }
    /* a single incident (the hot read) with a constant text */
    struct store_stmt *st = store_prepare(s, slots == 1 ? FACTS_SQL "= ?" : sql.p);
    buf_release(&sql);
    if (!st)
        return STORE_ERR;
    for (size_t i = 0; i < slots; i++)
        store_bind_text(st, (int)i + 1, i < n ? ids[i] : NULL);
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
    struct store_stmt *st = store_prepare(s, "SELECT incident_id FROM fragment_stale LIMIT ?");
    if (!st)
        return STORE_ERR;
    store_bind_int(st, 1, (int64_t)max);
    const char **list = arena_alloc(a, sizeof *list * (max ? max : 1));
    size_t count = 0;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW && count < max)
        list[count++] = arena_strdup(a, store_col_text(st, 0));
    store_reset(st);
    if (rc < 0)
        return rc;
    *ids = list;
    *n = count;
    return 0;
}

int fragments_claim(struct store *s, const char *id)
{
    struct store_stmt *st =
        store_prepare(s, "DELETE FROM fragment_stale WHERE incident_id = ? RETURNING incident_id");
    if (!st)
        return STORE_ERR;
    store_bind_text(st, 1, id);
    int rc = store_step(st);
    store_reset(st);
    return rc < 0 ? rc : rc == STORE_ROW;
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
