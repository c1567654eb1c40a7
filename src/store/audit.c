#include "store/audit.h"

int audit_insert(struct store *s, const struct audit_record *r)
{
    return STORE_RUN(
        s,
        "INSERT INTO audit_log (id, at, actor, role, action, target_kind, target_id,"
        " before_json, after_json, reason, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        STORE_TEXT(r->id), STORE_INT(r->at), STORE_TEXT(r->actor), STORE_TEXT(r->role),
        STORE_TEXT(r->action), STORE_TEXT(r->target_kind), STORE_TEXT(r->target_id),
        STORE_TEXT(r->before_json), STORE_TEXT(r->after_json), STORE_TEXT(r->reason),
        STORE_TEXT(r->request_id));
}

int audit_list(struct store *s, struct arena *a, const char *target_kind, const char *target_id,
               const char *action, int64_t limit, int64_t offset, struct audit_record **out,
               size_t *n)
{
    /* each filter is optional: a NULL binds "any" */
    struct store_stmt *st =
        store_prepare(s, "SELECT id, at, actor, role, action, target_kind, target_id,"
                         " before_json, after_json, reason, request_id FROM audit_log"
                         " WHERE (CAST(? AS TEXT) IS NULL OR target_kind = ?)"
                         " AND (CAST(? AS TEXT) IS NULL OR target_id = ?)"
                         " AND (CAST(? AS TEXT) IS NULL OR action = ?)"
                         " ORDER BY at DESC, id DESC LIMIT ? OFFSET ?");
    if (!st)
        return STORE_ERR;
    int k = 1;
    const char *f[] = {target_kind, target_id, action};
    for (size_t i = 0; i < 3; i++) {
        store_bind_text(st, k++, f[i]);
        store_bind_text(st, k++, f[i]);
    }
    store_bind_int(st, k++, limit);
    store_bind_int(st, k++, offset);
    struct audit_record *list = arena_alloc(a, sizeof *list * (size_t)(limit > 0 ? limit : 1));
    size_t count = 0;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW && count < (size_t)limit) {
        struct audit_record *r = &list[count++];
        r->id = arena_strdup(a, store_col_text(st, 0));
        r->at = store_col_int(st, 1);
        r->actor = arena_strdup(a, store_col_text(st, 2));
        r->role = arena_strdup(a, store_col_text(st, 3));
        r->action = arena_strdup(a, store_col_text(st, 4));
        r->target_kind = arena_strdup(a, store_col_text(st, 5));
        r->target_id = arena_strdup(a, store_col_text(st, 6));
        r->before_json = arena_strdup(a, store_col_text(st, 7));
        r->after_json = arena_strdup(a, store_col_text(st, 8));
        r->reason = arena_strdup(a, store_col_text(st, 9));
        r->request_id = arena_strdup(a, store_col_text(st, 10));
    }
    store_reset(st);
    if (rc < 0)
        return rc;
    *out = list;
    *n = count;
    return 0;
}
