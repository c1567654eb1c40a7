/* Comments and their moderation: SQL only (store/comments.h). */
#include "store/comments.h"

#include <stdio.h>
#include <string.h>

#include "util/buf.h"

/* The columns of struct comment, read by row(); FROM joins the author and the incident. */
#define COMMENT_SELECT                                                                             \
    "SELECT c.id, c.incident_id, c.parent_id, c.account_id, c.body, a.display_name,"               \
    " (SELECT r.role FROM account_roles r WHERE r.account_id = c.account_id ORDER BY CASE r.role"  \
    " WHEN 'admin' THEN 0 WHEN 'editor' THEN 1 ELSE 2 END LIMIT 1),"                               \
    " c.status, c.held_reason, c.report_hidden, c.author_hidden, c.visible, c.featured,"           \
    " c.open_reports, c.reply_count, c.created_at, c.edited_at, c.deleted_at, c.reviewed_at,"      \
    " i.title, coalesce(i.slug, i.id)"                                                             \
    " FROM comments c JOIN accounts a ON a.id = c.account_id"                                      \
    " JOIN incidents i ON i.id = c.incident_id "

/* A comment (a struct comment) read from COMMENT_SELECT (store_cols). */
#define COMMENT(kind, f) STORE_COL_##kind(struct comment, f)
static const struct store_col comment_cols[] = {
    COMMENT(CHARS, id),           COMMENT(CHARS, incident_id),
    COMMENT(CHARS, parent_id),    COMMENT(CHARS, account_id),
    COMMENT(DUP, body),           COMMENT(DUP, display_name),
    COMMENT(DUP, badge),          COMMENT(CHARS, status),
    COMMENT(CHARS, held_reason),  COMMENT(BOOL, report_hidden),
    COMMENT(BOOL, author_hidden), COMMENT(BOOL, visible),
    COMMENT(BOOL, featured),      COMMENT(INT, open_reports),
    COMMENT(INT, reply_count),    COMMENT(INT, created_at),
    COMMENT(INT, edited_at),      COMMENT(INT, deleted_at),
    COMMENT(INT, reviewed_at),    COMMENT(DUP, incident_title),
    COMMENT(DUP, incident_key),   STORE_COL_END};
#undef COMMENT

static void row(struct store_stmt *st, struct arena *a, struct comment *c)
{
    memset(c, 0, sizeof *c);
    store_cols(st, a, 0, comment_cols, c);
    if (!c->body)
        c->body = "";
}

/* Steps st (bound by the caller, its last two parameters being limit + 1 and offset when
 * paged; NULL: STORE_ERR) into an arena array of at most `limit` comments; *more when one more
 * came. */
static int rows(struct store_stmt *st, struct arena *a, int64_t limit, struct comment **out,
                size_t *n, bool *more)
{
    if (!st)
        return STORE_ERR;
    *out = NULL;
    *n = 0;
    if (more)
        *more = false;
    struct comment *list = arena_alloc(a, sizeof *list * (size_t)(limit > 0 ? limit : 1));
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        if ((int64_t)*n == limit) {
            if (more)
                *more = true;
            break;
        }
        row(st, a, &list[(*n)++]);
    }
    store_reset(st);
    if (rc < 0)
        return rc;
    *out = list;
    return 0;
}

static int one(struct store_stmt *st, struct arena *a, struct comment *out)
{
    int rc = store_step(st);
    if (rc == STORE_ROW)
        row(st, a, out);
    store_reset(st);
    return rc < 0 ? rc : rc == STORE_ROW;
}

int comments_get(struct store *s, struct arena *a, const char *id, struct comment *out)
{
    struct store_stmt *st = STORE_SELECT(s, COMMENT_SELECT "WHERE c.id = ?", STORE_TEXT(id));
    if (!st)
        return STORE_ERR;
    return one(st, a, out);
}

int comments_insert(struct store *s, const struct comment *c)
{
    return STORE_RUN(s,
                     "INSERT INTO comments (id, incident_id, parent_id, account_id, body, status,"
                     " held_reason, visible, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     STORE_TEXT(c->id), STORE_TEXT(c->incident_id),
                     STORE_TEXT(c->parent_id[0] ? c->parent_id : NULL), STORE_TEXT(c->account_id),
                     STORE_TEXT(c->body), STORE_TEXT(c->status),
                     STORE_TEXT(c->held_reason[0] ? c->held_reason : NULL), STORE_INT(c->visible),
                     STORE_INT(c->created_at));
}

int comments_save(struct store *s, const struct comment *c)
{
    return STORE_RUN(
        s,
        "UPDATE comments SET body = ?, status = ?, held_reason = ?, report_hidden = ?,"
        " author_hidden = ?, visible = ?, featured = ?, open_reports = ?, edited_at = ?,"
        " deleted_at = ?, reviewed_at = ? WHERE id = ?",
        STORE_TEXT(c->body), STORE_TEXT(c->status),
        STORE_TEXT(c->held_reason[0] ? c->held_reason : NULL), STORE_INT(c->report_hidden),
        STORE_INT(c->author_hidden), STORE_INT(c->visible), STORE_INT(c->featured),
        STORE_INT(c->open_reports), STORE_INT(c->edited_at), STORE_INT(c->deleted_at),
        STORE_INT(c->reviewed_at), STORE_TEXT(c->id));
}

int comments_count_add(struct store *s, const char *incident_id, int64_t delta)
{
    return STORE_RUN(s, "UPDATE incidents SET comment_count = comment_count + ? WHERE id = ?",
                     STORE_INT(delta), STORE_TEXT(incident_id));
}

int comments_replies_add(struct store *s, const char *parent_id, int64_t delta)
{
    return STORE_RUN(s, "UPDATE comments SET reply_count = reply_count + ? WHERE id = ?",
                     STORE_INT(delta), STORE_TEXT(parent_id));
}

int comments_public(struct store *s, struct arena *a, const char *incident_id, bool newest,
                    int64_t limit, int64_t offset, struct comment **out, size_t *n, bool *more)
{
#define PUBLIC_SQL(dir)                                                                            \
    COMMENT_SELECT "WHERE c.incident_id = ? AND c.visible = 1"                                     \
                   " ORDER BY c.created_at " dir ", c.id " dir " LIMIT ? OFFSET ?"
    struct store_stmt *st =
        STORE_SELECT(s, newest ? PUBLIC_SQL("DESC") : PUBLIC_SQL("ASC"), STORE_TEXT(incident_id),
                     STORE_INT(limit + 1), STORE_INT(offset));
#undef PUBLIC_SQL
    return rows(st, a, limit, out, n, more);
}

int comments_thread(struct store *s, struct arena *a, const char *incident_id, const char *viewer,
                    bool newest, int64_t limit, int64_t offset, struct comment **out, size_t *n,
                    bool *more)
{
#define THREAD_SQL(dir)                                                                            \
    COMMENT_SELECT "WHERE c.incident_id = ? AND c.parent_id IS NULL AND (c.visible = 1"            \
                   " OR c.reply_count > 0 OR (c.account_id = ? AND c.status = 'pending'))"         \
                   " ORDER BY c.created_at " dir ", c.id " dir " LIMIT ? OFFSET ?"
    struct store_stmt *st =
        STORE_SELECT(s, newest ? THREAD_SQL("DESC") : THREAD_SQL("ASC"), STORE_TEXT(incident_id),
                     STORE_TEXT(viewer ? viewer : ""), STORE_INT(limit + 1), STORE_INT(offset));
#undef THREAD_SQL
    return rows(st, a, limit, out, n, more);
}

int comments_replies(struct store *s, struct arena *a, const char *parent_id, const char *viewer,
                     int64_t limit, struct comment **out, size_t *n)
{
    struct store_stmt *st = STORE_SELECT(
        s,
        COMMENT_SELECT "WHERE c.parent_id = ? AND (c.visible = 1 OR (c.account_id = ?"
                       " AND c.status = 'pending')) ORDER BY c.created_at, c.id LIMIT ?",
        STORE_TEXT(parent_id), STORE_TEXT(viewer ? viewer : ""), STORE_INT(limit));
    return rows(st, a, limit, out, n, NULL);
}

int comments_queue(struct store *s, struct arena *a, const char *queue, int64_t limit,
                   int64_t offset, struct comment **out, size_t *n, bool *more)
{
    const char *sql;
    if (strcmp(queue, "pending") == 0)
        sql = COMMENT_SELECT "WHERE c.status = 'pending' ORDER BY c.created_at, c.id"
                             " LIMIT ? OFFSET ?";
    else if (strcmp(queue, "reported") == 0)
        sql = COMMENT_SELECT "WHERE c.open_reports > 0 AND c.status = 'published'"
                             " ORDER BY c.open_reports DESC, c.created_at, c.id LIMIT ? OFFSET ?";
    else
        sql = COMMENT_SELECT "ORDER BY c.created_at DESC, c.id DESC LIMIT ? OFFSET ?";
    return rows(STORE_SELECT(s, sql, STORE_INT(limit + 1), STORE_INT(offset)), a, limit, out, n,
                more);
}

int comments_of_author(struct store *s, struct arena *a, const char *account_id, int64_t limit,
                       struct comment **out, size_t *n)
{
    struct store_stmt *st =
        STORE_SELECT(s, COMMENT_SELECT "WHERE c.account_id = ? ORDER BY c.created_at, c.id LIMIT ?",
                     STORE_TEXT(account_id), STORE_INT(limit));
    return rows(st, a, limit, out, n, NULL);
}

static int history_row(void *arg, struct store_stmt *st)
{
    struct comment_history *out = arg;
    out->total = store_col_int(st, 0);
    out->published = store_col_int(st, 1);
    out->rejected = store_col_int(st, 2);
    out->suspended = store_col_int(st, 3) == 1;
    return 0;
}

int comments_history(struct store *s, const char *account_id, struct comment_history *out)
{
    memset(out, 0, sizeof *out);
    int rc = store_one(
        STORE_SELECT(
            s,
            "SELECT count(*), coalesce(sum(CASE WHEN status = 'published' THEN 1 ELSE 0 END), 0),"
            " coalesce(sum(CASE WHEN status = 'rejected' THEN 1 ELSE 0 END), 0),"
            " (SELECT banned FROM accounts WHERE id = ?) FROM comments WHERE account_id = ?",
            STORE_TEXT(account_id), STORE_TEXT(account_id)),
        history_row, out);
    return rc < 0 ? rc : 0;
}

int comments_published_upto(struct store *s, const char *account_id, int64_t cap, int64_t *n)
{
    *n = 0;
    return STORE_COUNT(s, n,
                       "SELECT count(*) FROM (SELECT 1 FROM comments WHERE"
                       " account_id = ? AND status = 'published' LIMIT ?) AS p",
                       STORE_TEXT(account_id), STORE_INT(cap));
}

/* ---- reports ---- */

int comment_reports_add(struct store *s, const char *comment_id, const char *account_id,
                        const char *reason, int64_t now)
{
    return STORE_CHANGED(s,
                         "INSERT INTO comment_reports (comment_id, account_id, reason, created_at)"
                         " VALUES (?, ?, ?, ?) ON CONFLICT (comment_id, account_id) DO NOTHING",
                         STORE_TEXT(comment_id), STORE_TEXT(account_id), STORE_TEXT(reason),
                         STORE_INT(now));
}

int comment_reports_summary(struct store *s, const char *comment_id, char *out, size_t n)
{
    out[0] = '\0';
    struct store_stmt *st =
        STORE_SELECT(s,
                     "SELECT reason, count(*) FROM comment_reports WHERE comment_id = ?"
                     " GROUP BY reason ORDER BY count(*) DESC, reason",
                     STORE_TEXT(comment_id));
    if (!st)
        return STORE_ERR;
    struct buf b = BUF_INIT;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW)
        buf_printf(&b, "%s%s %lld", b.len ? ", " : "", store_col_text(st, 0),
                   (long long)store_col_int(st, 1));
    store_reset(st);
    snprintf(out, n, "%s", b.p ? b.p : "");
    buf_release(&b);
    return rc < 0 ? rc : 0;
}

/* ---- the moderation log ---- */

int moderation_log_add(struct store *s, const char *comment_id, const char *account_id,
                       const char *actor, const char *action, const char *reason, int64_t now)
{
    return STORE_INSERT(
        s,
        "INSERT INTO moderation_log (id, comment_id, account_id, actor, action, reason,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        STORE_TEXT(comment_id), STORE_TEXT(account_id), STORE_TEXT(actor), STORE_TEXT(action),
        STORE_TEXT(reason), STORE_INT(now));
}

int moderation_log_of(struct store *s, struct arena *a, const char *comment_id,
                      struct moderation_entry **out, size_t *n)
{
    enum { MAX = 100 };
    *n = 0;
    *out = arena_alloc(a, sizeof **out * MAX);
    /* a suspension of the author shows in the history of each of their comments */
    struct store_stmt *st =
        STORE_SELECT(s,
                     "SELECT l.actor, m.display_name, l.action, l.reason, l.created_at"
                     " FROM moderation_log l LEFT JOIN accounts m ON l.actor = 'account:' || m.id"
                     " WHERE l.comment_id = ? OR (l.comment_id IS NULL AND l.account_id ="
                     " (SELECT account_id FROM comments WHERE id = ?))"
                     " ORDER BY l.created_at, l.id LIMIT 100",
                     STORE_TEXT(comment_id), STORE_TEXT(comment_id));
    if (!st)
        return STORE_ERR;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW && *n < MAX) {
        struct moderation_entry *e = &(*out)[(*n)++];
        e->actor = arena_strdup(a, store_col_text(st, 0));
        e->actor_name = arena_strdup(a, store_col_text(st, 1));
        e->action = arena_strdup(a, store_col_text(st, 2));
        e->reason = arena_strdup(a, store_col_text(st, 3));
        e->created_at = store_col_int(st, 4);
    }
    store_reset(st);
    return rc < 0 ? rc : 0;
}

/* ---- the word list ---- */

int comment_words_add(struct store *s, const char *word, int64_t now)
{
    return STORE_CHANGED(s,
                         "INSERT INTO comment_words (word, created_at) VALUES (?, ?)"
                         " ON CONFLICT (word) DO NOTHING",
                         STORE_TEXT(word), STORE_INT(now));
}

int comment_words_remove(struct store *s, const char *word)
{
    return STORE_CHANGED(s, "DELETE FROM comment_words WHERE word = ?", STORE_TEXT(word));
}

/* Steps a statement of three text columns (NULL: STORE_ERR) into an arena array of its
 * non-null values (at most max). */
static int strings(struct store_stmt *st, struct arena *a, size_t max, const char ***out, size_t *n)
{
    if (!st)
        return STORE_ERR;
    *n = 0;
    *out = arena_alloc(a, sizeof **out * (max + 1));
    int rc;
    while ((rc = store_step(st)) == STORE_ROW && *n < max)
        for (int col = 0; col < 3; col++) {
            const char *v = store_col_text(st, col);
            if (v && *n < max)
                (*out)[(*n)++] = arena_strdup(a, v);
        }
    store_reset(st);
    (*out)[*n] = NULL;
    return rc < 0 ? rc : 0;
}

int comment_words_all(struct store *s, struct arena *a, const char ***out, size_t *n)
{
    return strings(
        store_prepare(s, "SELECT word, NULL, NULL FROM comment_words ORDER BY word LIMIT 1000"), a,
        1000, out, n);
}

/* ---- display names and roles ---- */

int accounts_display_name(struct store *s, const char *account_id, char *out, size_t n)
{
    int rc = STORE_ONE_TEXT(s, out, n, "SELECT display_name FROM accounts WHERE id = ?",
                            STORE_TEXT(account_id));
    return rc < 0 ? rc : 0;
}

int accounts_set_display_name(struct store *s, const char *account_id, const char *name,
                              const char *key)
{
    return STORE_CHANGED(s,
                         "UPDATE accounts SET display_name = ?, display_key = ?"
                         " WHERE id = ? AND display_name IS NULL",
                         STORE_TEXT(name), STORE_TEXT(key), STORE_TEXT(account_id));
}

int teams_all_names(struct store *s, struct arena *a, const char ***out, size_t *n)
{
    return strings(store_prepare(s, "SELECT name, short_name, abbreviation FROM teams LIMIT 20000"),
                   a, 60000, out, n);
}

int account_roles_grant(struct store *s, const char *account_id, const char *role, const char *by,
                        int64_t now)
{
    return STORE_CHANGED(s,
                         "INSERT INTO account_roles (account_id, role, granted_at, granted_by)"
                         " VALUES (?, ?, ?, ?) ON CONFLICT (account_id, role) DO NOTHING",
                         STORE_TEXT(account_id), STORE_TEXT(role), STORE_INT(now), STORE_TEXT(by));
}

int account_roles_revoke(struct store *s, const char *account_id, const char *role)
{
    return STORE_CHANGED(s, "DELETE FROM account_roles WHERE account_id = ? AND role = ?",
                         STORE_TEXT(account_id), STORE_TEXT(role));
}

int account_roles_has(struct store *s, const char *account_id, const char *role)
{
    return STORE_EXISTS(s, "SELECT 1 FROM account_roles WHERE account_id = ? AND role = ?",
                        STORE_TEXT(account_id), STORE_TEXT(role));
}

/* ---- import and export ---- */

int comments_import_put(struct store *s, const struct comment *c)
{
    struct store_stmt *st = store_prepare(
        s, "INSERT INTO comments (id, incident_id, parent_id, account_id, body, status,"
           " held_reason, report_hidden, author_hidden, visible, featured, open_reports,"
           " created_at, edited_at, deleted_at, reviewed_at)"
           " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE"
           " SET parent_id = excluded.parent_id, account_id = excluded.account_id,"
           " body = excluded.body, status = excluded.status, held_reason = excluded.held_reason,"
           " report_hidden = excluded.report_hidden, author_hidden = excluded.author_hidden,"
           " visible = excluded.visible, featured = excluded.featured,"
           " open_reports = excluded.open_reports, created_at = excluded.created_at,"
           " edited_at = excluded.edited_at, deleted_at = excluded.deleted_at,"
           " reviewed_at = excluded.reviewed_at");
    if (!st)
        return STORE_ERR;
    int k = 1;
    store_bind_text(st, k++, c->id);
    store_bind_text(st, k++, c->incident_id);
    store_bind_text(st, k++, c->parent_id[0] ? c->parent_id : NULL);
    store_bind_text(st, k++, c->account_id);
    store_bind_text(st, k++, c->body);
    store_bind_text(st, k++, c->status);
    store_bind_text(st, k++, c->held_reason[0] ? c->held_reason : NULL);
    store_bind_int(st, k++, c->report_hidden);
    store_bind_int(st, k++, c->author_hidden);
    store_bind_int(st, k++, c->visible);
    store_bind_int(st, k++, c->featured);
    store_bind_int(st, k++, c->open_reports);
    store_bind_int(st, k++, c->created_at);
    store_bind_int(st, k++, c->edited_at);
    store_bind_int(st, k++, c->deleted_at);
    store_bind_int(st, k++, c->reviewed_at);
    return store_run(st);
}

int comments_has_replies(struct store *s, const char *id)
{
    return STORE_EXISTS(s, "SELECT 1 FROM comments WHERE parent_id = ? LIMIT 1", STORE_TEXT(id));
}

int comments_recount(struct store *s, const char *incident_id)
{
    int rc = STORE_RUN(s,
                       "UPDATE comments SET reply_count = (SELECT count(*) FROM comments r"
                       " WHERE r.parent_id = comments.id AND r.visible = 1)"
                       " WHERE incident_id = ? AND parent_id IS NULL",
                       STORE_TEXT(incident_id));
    if (rc < 0)
        return rc;
    return STORE_RUN(s,
                     "UPDATE incidents SET comment_count = (SELECT count(*) FROM comments c"
                     " WHERE c.incident_id = incidents.id AND c.visible = 1) WHERE id = ?",
                     STORE_TEXT(incident_id));
}

static int comment_each_row(void *each, struct store_stmt *st)
{
    struct comment c;
    row(st, store_each_of(each)->a, &c);
    return STORE_EACH_CALL(each, struct comment, &c);
}

int comments_each(struct store *s, struct arena *a, const char *incident_id,
                  int (*cb)(void *ctx, const struct comment *c), void *ctx)
{
    return store_rows(
        STORE_SELECT(s, COMMENT_SELECT "WHERE c.incident_id = ? ORDER BY c.created_at, c.id",
                     STORE_TEXT(incident_id)),
        comment_each_row, STORE_EACH(struct comment, cb, ctx, a));
}

/* The account that holds a display key: its id (char[ID_LEN]) and whether it is banned. */
struct key_owner {
    char *id;
    bool *banned;
};

static int key_owner_row(void *arg, struct store_stmt *st)
{
    const struct key_owner *o = arg;
    store_col_copy(st, 0, o->id, ID_LEN);
    *o->banned = store_col_int(st, 1) != 0;
    return 0;
}

int accounts_by_display_key(struct store *s, const char *key, char id[ID_LEN], bool *banned)
{
    id[0] = '\0';
    *banned = false;
    return store_one(
        STORE_SELECT(s, "SELECT id, banned FROM accounts WHERE display_key = ?", STORE_TEXT(key)),
        key_owner_row, &(struct key_owner){id, banned});
}

int accounts_insert_named(struct store *s, const char *id, const char *email, const char *name,
                          const char *key, bool banned, int64_t now)
{
    return STORE_RUN(
        s,
        "INSERT INTO accounts (id, email, display_name, display_key, email_verified, banned,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?, ?)",
        STORE_TEXT(id), STORE_TEXT(email), STORE_TEXT(name), STORE_TEXT(key), STORE_INT(banned),
        STORE_INT(now), STORE_INT(now));
}
