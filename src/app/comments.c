/*
 * Comments and moderation use cases (app/comments.h; docs/comments.md). Each write runs in
 * one write transaction: the rule checks, the comment row, the moderation log and the
 * counters a read needs (incidents.comment_count, a parent's reply_count) commit together
 * or not at all, so the count always equals the visible comments.
 */
#include "app/comments.h"
#include "app/editorial.h"

#include <stdio.h>
#include <string.h>

#include "domain/account.h"
#include "domain/incident.h"
#include "domain/voter.h"
#include "store/accounts.h"
#include "store/incidents.h"
#include "util/uuid.h"

#define MINUTE_US (INT64_C(60) * 1000000)
#define DAY_US    (INT64_C(86400) * 1000000)
/* the comments of one author a suspension walks through (50 a day is the default limit) */
#define AUTHOR_MAX    20000
#define REPLIES_SHOWN 100

/* The account row of id inside the caller's transaction: 1, 0 missing, or a store_rc. */
static int account_of(struct store *s, const char *id, struct account_row *a)
{
    return accounts_by_id(s, id, a);
}

/* A UUID argument normalized into out: 0, or -1 with r->message set to missing. */
static int uuid_arg(const char *v, char out[UUID_STR_LEN + 1], const char *missing,
                    struct comment_result *r)
{
    if (uuid_normalize(v ? v : "", out) == 0)
        return 0;
    r->message = missing;
    return -1;
}

/* PostgreSQL write rule (app.h): writes run in store_begin_row_write and lock only the key of
 * the author whose comments they change ("comments-of:<account>": a post, an edit, a
 * delete, a report, a decision and a suspension of the same author queue up; others run
 * side by side) and, for a post, the key of the client address's rate limit. Counters that
 * many writers move (comment_count, reply_count) are atomic increments, never read back. */
static int lock_author(struct store *s, const char *account_id)
{
    char key[64];
    snprintf(key, sizeof key, "comments-of:%s", account_id ? account_id : "");
    return store_lock_key(s, key);
}

/* Every store call a comment write makes while it holds its author's lock, with
 * placeholder arguments: store_prepare_ahead runs it before the write begins, so that on
 * PostgreSQL each statement is prepared (once per connection) outside every lock, never
 * under one (app.h). Nothing executes; lookups find nothing. */
static int write_statements(struct store *s, void *arg)
{
    static const char none[] = APP_PLACEHOLDER_ID;
    struct arena *a = arg;
    struct account_row acc;
    struct incident_ref ref;
    struct comment cm, *list;
    size_t n;
    char name[64];
    const char **words;
    int64_t v;
    memset(&cm, 0, sizeof cm);
    cm.body = "";
    int rc;
    if ((rc = account_of(s, none, &acc)) < 0 ||
        (rc = accounts_display_name(s, none, name, sizeof name)) < 0 ||
        (rc = incidents_locate(s, none, &ref)) < 0 ||
        (rc = incidents_locate(s, "none", &ref)) < 0 || (rc = comments_get(s, a, none, &cm)) < 0 ||
        (rc = lock_author(s, none)) < 0 ||
        (rc = app_rate_limited(s, none, 1, MINUTE_US, 0, &v)) < 0 ||
        (rc = app_rate_record(s, none, MINUTE_US, 0)) < 0 ||
        (rc = comments_published_upto(s, none, 1, &v)) < 0 ||
        (rc = comment_words_all(s, a, &words, &n)) < 0 || (rc = comments_insert(s, &cm)) < 0 ||
        (rc = comments_save(s, &cm)) < 0 || (rc = comments_count_add(s, none, 0)) < 0 ||
        (rc = comments_replies_add(s, none, 0)) < 0 ||
        (rc = moderation_log_add(s, none, none, none, none, none, 0)) < 0 ||
        (rc = comment_reports_add(s, none, none, none, 0)) < 0 ||
        (rc = comments_of_author(s, a, none, 1, &list, &n)) < 0 || (rc = app_audit_ahead(s)) < 0)
        return rc;
    return 0;
}

void comments_prepare_writes(const struct app_ctx *c)
{
    store_prepare_ahead(c->s, write_statements, c->a);
}

/* Begins a comment write: its statements prepared first (write_statements), then the
 * row-write transaction. 0 or a negative store_rc. */
static int begin_write(const struct app_ctx *c)
{
    store_prepare_ahead(c->s, write_statements, c->a);
    return store_begin_row_write(c->s);
}

/* Reads comment cid under its author's lock: 1 with *cm (read after the lock), 0 missing,
 * or a store_rc. */
static int get_locked(const struct app_ctx *c, const char *cid, struct comment *cm)
{
    int rc = comments_get(c->s, c->a, cid, cm);
    if (rc == 1 && (rc = lock_author(c->s, cm->account_id)) == 0)
        rc = comments_get(c->s, c->a, cid, cm);
    return rc;
}

/* Who acted, for the moderation log: "account:<id>" or "operator". */
static const char *actor_of(const struct app_ctx *c, const char *account_id)
{
    return account_id ? arena_printf(c->a, "account:%s", account_id) : "operator";
}

/* Writes cm's new state. Its visibility is recomputed by the rule, and when it changed
 * the incident's comment_count and the parent's reply_count move by one in the same
 * transaction: the only place (with post's insert) where the counters move. */
static int save_state(struct store *s, struct comment *cm, bool was_visible)
{
    cm->visible = comment_visible(cm->status, cm->report_hidden, cm->author_hidden);
    int rc = comments_save(s, cm);
    if (rc < 0 || cm->visible == was_visible)
        return rc;
    int delta = cm->visible ? 1 : -1;
    rc = comments_count_add(s, cm->incident_id, delta);
    if (rc >= 0 && cm->parent_id[0])
        rc = comments_replies_add(s, cm->parent_id, delta);
    return rc;
}

/* Ends a write use case: commits on COMMENT_OK, else rolls back; a store failure at any
 * point is APP_UNAVAILABLE. */
static int finish(struct store *s, int rc, int result)
{
    if (rc >= 0 && result == COMMENT_OK)
        rc = store_commit(s);
    if (rc < 0 || result != COMMENT_OK)
        store_rollback(s);
    return rc < 0 ? APP_UNAVAILABLE : result;
}

/* The author checks shared by post, edit and report: 0 allowed, else an outcome. */
static int author_check(const struct account_row *a, bool found, struct comment_result *out)
{
    if (!found) {
        out->message = "sign in first";
        return COMMENT_FORBIDDEN;
    }
    if (a->banned) {
        out->message = "this account is suspended: it cannot comment";
        return COMMENT_FORBIDDEN;
    }
    if (!a->verified) {
        out->message = "verify your email address before you comment (see /account)";
        return COMMENT_FORBIDDEN;
    }
    return 0;
}

/* Checks the four rolling windows of a new comment: 0 allowed, 1 limited (*retry_s), or
 * a store_rc. subjects get the names app_rate_record is called with. */
static int rate_check(const struct app_ctx *c, const struct comment_post *in, char subj[4][96],
                      int64_t *retry_s)
{
    char ip[VOTER_HASH_LEN + 1];
    app_address_hash(in->address, ip);
    snprintf(subj[0], 96, "comment-m:acct:%s", in->account_id);
    snprintf(subj[1], 96, "comment-d:acct:%s", in->account_id);
    snprintf(subj[2], 96, "comment-m:ip:%s", ip);
    snprintf(subj[3], 96, "comment-d:ip:%s", ip);
    const int limits[4] = {in->limit_account, in->limit_account * COMMENT_DAY_FACTOR,
                           in->limit_address, in->limit_address * COMMENT_DAY_FACTOR};
    int lrc = store_lock_key(c->s, subj[2]); /* the address's window: after the author's */
    if (lrc < 0)
        return lrc;
    for (int i = 0; i < 4; i++) {
        int rc =
            app_rate_limited(c->s, subj[i], limits[i], i % 2 ? DAY_US : MINUTE_US, c->now, retry_s);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Whether body matches the operator's word list: 1, 0, or a store_rc. */
static int word_listed(const struct app_ctx *c, const char *body)
{
    const char **words;
    size_t n;
    int rc = comment_words_all(c->s, c->a, &words, &n);
    if (rc < 0)
        return rc;
    return comment_word_match(body, words, n) >= 0;
}

int comment_post(const struct app_ctx *c, const struct comment_post *in, struct comment_result *out)
{
    memset(out, 0, sizeof *out);
    size_t len = strlen(in->body ? in->body : "");
    char *body = arena_alloc(c->a, len + 1);
    out->message = comment_body_clean(in->body ? in->body : "", body, len + 1);
    if (out->message)
        return COMMENT_INVALID;
    char parent[UUID_STR_LEN + 1] = "";
    if (in->parent_id && in->parent_id[0] && uuid_normalize(in->parent_id, parent) < 0) {
        out->message = "parent_id must be a comment's UUID";
        return COMMENT_INVALID;
    }
    int result = COMMENT_OK;
    struct account_row a;
    struct incident_ref ref;
    struct comment cm;
    char subj[4][96], name[64];
    memset(&ref, 0, sizeof ref);
    int rc = begin_write(c);
    if (rc < 0 || (rc = lock_author(c->s, in->account_id)) < 0)
        goto out;
    if ((rc = account_of(c->s, in->account_id, &a)) < 0)
        goto out;
    if ((result = author_check(&a, rc == 1, out)) != 0)
        goto out;
    if ((rc = accounts_display_name(c->s, a.id, name, sizeof name)) < 0)
        goto out;
    if (!name[0]) {
        out->message = "choose your public display name first (on /account/profile)";
        result = COMMENT_NEEDS_NAME;
        goto out;
    }
    if ((rc = incidents_locate(c->s, in->key, &ref)) < 0)
        goto out;
    enum incident_public state =
        rc == 0 ? INCIDENT_PUBLIC_GONE
                : incident_public_state(ref.visibility, ref.survivor_visibility);
    if (state == INCIDENT_PUBLIC_GONE) {
        out->message = "no debate here";
        result = COMMENT_MISSING;
        goto out;
    }
    if (state == INCIDENT_PUBLIC_REDIRECT) {
        out->message = "this incident was merged into another debate: comment there";
        out->survivor_id = arena_strdup(c->a, ref.survivor_id);
        out->survivor_key =
            arena_strdup(c->a, ref.survivor_slug[0] ? ref.survivor_slug : ref.survivor_id);
        result = COMMENT_MERGED;
        goto out;
    }
    memset(&cm, 0, sizeof cm);
    if (parent[0]) {
        struct comment p;
        if ((rc = comments_get(c->s, c->a, parent, &p)) < 0)
            goto out;
        if (rc == 0 || strcmp(p.incident_id, ref.id) != 0 || !p.visible) {
            out->message = "the comment you reply to is not in this discussion (or was removed)";
            result = COMMENT_INVALID;
            goto out;
        }
        /* one level of replies: a reply to a reply joins its thread */
        snprintf(cm.parent_id, sizeof cm.parent_id, "%s", p.parent_id[0] ? p.parent_id : p.id);
    }
    if ((rc = rate_check(c, in, subj, &out->retry_s)) < 0)
        goto out;
    if (rc > 0) {
        out->message = "too many comments: wait a little";
        result = COMMENT_RATE_LIMITED;
        goto out;
    }
    int64_t published = 0;
    int listed;
    if ((rc = comments_published_upto(c->s, a.id, COMMENT_TRUSTED_AFTER, &published)) < 0 ||
        (rc = listed = word_listed(c, body)) < 0)
        goto out;
    enum comment_hold hold = comment_hold_for(published, listed == 1);
    uuid_v4(cm.id);
    snprintf(cm.incident_id, sizeof cm.incident_id, "%s", ref.id);
    snprintf(cm.account_id, sizeof cm.account_id, "%s", a.id);
    cm.body = body;
    snprintf(cm.status, sizeof cm.status, "%s", hold ? COMMENT_PENDING : COMMENT_PUBLISHED);
    snprintf(cm.held_reason, sizeof cm.held_reason, "%s", hold ? comment_hold_name(hold) : "");
    cm.visible = comment_visible(cm.status, false, false);
    cm.created_at = c->now;
    if ((rc = comments_insert(c->s, &cm)) < 0)
        goto out;
    if (cm.visible && (rc = comments_count_add(c->s, cm.incident_id, 1)) < 0)
        goto out;
    if (cm.visible && cm.parent_id[0] && (rc = comments_replies_add(c->s, cm.parent_id, 1)) < 0)
        goto out;
    if (hold && (rc = moderation_log_add(c->s, cm.id, NULL, "rules", "held",
                                         comment_hold_name(hold), c->now)) < 0)
        goto out;
    for (int i = 0; i < 4; i++)
        if ((rc = app_rate_record(c->s, subj[i], i % 2 ? DAY_US : MINUTE_US, c->now)) < 0)
            goto out;
    out->id = arena_strdup(c->a, cm.id);
    out->held = hold != COMMENT_HOLD_NONE;
out:
    out->incident_key = arena_strdup(c->a, ref.slug[0] ? ref.slug : ref.id);
    return finish(c->s, rc, result);
}

/* Reads the comment id for a change by its author: COMMENT_OK with *cm, or an outcome. */
static int own_comment(const struct app_ctx *c, const char *account_id, const char *id,
                       struct comment *cm, struct comment_result *out, int *rc)
{
    char cid[UUID_STR_LEN + 1];
    struct account_row a;
    if (uuid_arg(id, cid, "no such comment", out) < 0)
        return COMMENT_MISSING;
    if ((*rc = account_of(c->s, account_id, &a)) < 0)
        return COMMENT_OK;
    int r = author_check(&a, *rc == 1, out);
    if (r)
        return r;
    if ((*rc = lock_author(c->s, a.id)) < 0 || (*rc = comments_get(c->s, c->a, cid, cm)) < 0)
        return COMMENT_OK;
    if (*rc == 0) {
        out->message = "no such comment";
        return COMMENT_MISSING;
    }
    out->incident_key = cm->incident_key;
    out->id = arena_strdup(c->a, cm->id);
    if (strcmp(cm->account_id, a.id) != 0) {
        out->message = "only its author can change a comment";
        return COMMENT_FORBIDDEN;
    }
    if (strcmp(cm->status, COMMENT_DELETED) == 0 || strcmp(cm->status, COMMENT_REJECTED) == 0) {
        out->message = "this comment was deleted or removed";
        return COMMENT_CLOSED;
    }
    return COMMENT_OK;
}

/* Opens a change by its author (edit, delete): the write transaction, then own_comment.
 * COMMENT_OK with *cm, or an outcome; *rc < 0 on a store failure (finish() ends the
 * transaction either way). */
static int own_change(const struct app_ctx *c, const char *account_id, const char *id,
                      struct comment *cm, struct comment_result *out, int *rc)
{
    if ((*rc = begin_write(c)) < 0)
        return COMMENT_OK;
    return own_comment(c, account_id, id, cm, out, rc);
}

int comment_edit(const struct app_ctx *c, const char *account_id, const char *id, const char *body,
                 struct comment_result *out)
{
    memset(out, 0, sizeof *out);
    size_t len = strlen(body ? body : "");
    char *clean = arena_alloc(c->a, len + 1);
    out->message = comment_body_clean(body ? body : "", clean, len + 1);
    if (out->message)
        return COMMENT_INVALID;
    struct comment cm;
    int rc, result = own_change(c, account_id, id, &cm, out, &rc);
    if (result != COMMENT_OK || rc < 0)
        goto out;
    if (!comment_edit_open(cm.created_at, c->now)) {
        out->message = "comments can be edited for 10 minutes only";
        result = COMMENT_CLOSED;
        goto out;
    }
    int listed = word_listed(c, clean);
    if ((rc = listed) < 0)
        goto out;
    bool was = cm.visible;
    cm.body = clean;
    cm.edited_at = c->now;
    /* an edit is held like a new comment when it brings in a listed word */
    if (listed && strcmp(cm.status, COMMENT_PUBLISHED) == 0) {
        snprintf(cm.status, sizeof cm.status, "%s", COMMENT_PENDING);
        snprintf(cm.held_reason, sizeof cm.held_reason, "%s",
                 comment_hold_name(COMMENT_HOLD_WORDS));
        cm.featured = false;
        out->held = true;
        if ((rc = moderation_log_add(c->s, cm.id, NULL, "rules", "edit_held", "word_list",
                                     c->now)) < 0)
            goto out;
    }
    out->held = out->held || strcmp(cm.status, COMMENT_PENDING) == 0;
    rc = save_state(c->s, &cm, was);
out:
    return finish(c->s, rc, result);
}

int comment_delete(const struct app_ctx *c, const char *account_id, const char *id,
                   struct comment_result *out)
{
    memset(out, 0, sizeof *out);
    struct comment cm;
    int rc, result = own_change(c, account_id, id, &cm, out, &rc);
    if (result != COMMENT_OK || rc < 0)
        goto out;
    bool was = cm.visible;
    snprintf(cm.status, sizeof cm.status, "%s", COMMENT_DELETED);
    cm.body = ""; /* the words go; a placeholder keeps the replies readable */
    cm.featured = false;
    cm.deleted_at = c->now;
    if ((rc = save_state(c->s, &cm, was)) < 0)
        goto out;
    rc = moderation_log_add(c->s, cm.id, NULL, actor_of(c, account_id), "delete", NULL, c->now);
out:
    return finish(c->s, rc, result);
}

int comment_report(const struct app_ctx *c, const char *account_id, const char *id,
                   const char *reason, struct comment_result *out)
{
    memset(out, 0, sizeof *out);
    if (!comment_report_reason_ok(reason)) {
        out->message = "reason must be spam, abuse, off_topic or other";
        return COMMENT_INVALID;
    }
    char cid[UUID_STR_LEN + 1];
    if (uuid_arg(id, cid, "no such comment", out) < 0)
        return COMMENT_MISSING;
    struct account_row a;
    struct comment cm;
    int rc = begin_write(c), result = COMMENT_OK;
    if (rc < 0)
        goto out;
    if ((rc = account_of(c->s, account_id, &a)) < 0)
        goto out;
    if ((result = author_check(&a, rc == 1, out)) != 0)
        goto out;
    if ((rc = get_locked(c, cid, &cm)) < 0)
        goto out;
    if (rc == 0 || !cm.visible) {
        out->message = "no such comment (or it is not shown)";
        result = COMMENT_MISSING;
        goto out;
    }
    out->incident_key = cm.incident_key;
    out->id = arena_strdup(c->a, cm.id);
    if (strcmp(cm.account_id, a.id) == 0) {
        out->message = "you cannot report your own comment: delete it instead";
        result = COMMENT_INVALID;
        goto out;
    }
    if ((rc = comment_reports_add(c->s, cm.id, a.id, reason, c->now)) <= 0)
        goto out; /* 0: this account had reported it already, which counts once */
    bool was = cm.visible;
    cm.open_reports++;
    if (comment_reports_hide(cm.open_reports) && !cm.report_hidden) {
        cm.report_hidden = true;
        if ((rc = moderation_log_add(c->s, cm.id, NULL, "rules", "hidden_by_reports", NULL,
                                     c->now)) < 0)
            goto out;
    }
    rc = save_state(c->s, &cm, was);
out:
    return finish(c->s, rc, result);
}

/* Whether account_id may moderate, in the caller's transaction: 1, 0, or a store_rc. */
static int may_moderate(struct store *s, const char *account_id)
{
    int rc = account_roles_has(s, account_id, "moderator");
    if (rc == 0)
        rc = account_roles_has(s, account_id, "admin");
    return rc;
}

int comment_is_moderator(const struct app_ctx *c, const char *account_id)
{
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = may_moderate(c->s, account_id);
    return app_rollback(c, rc, rc);
}

/* The moderator check of a moderation write: 0 allowed, else an outcome (rc set on a
 * store failure). */
static int moderator_check(const struct app_ctx *c, const char *moderator,
                           struct comment_result *out, int *rc)
{
    if (!moderator)
        return 0;
    struct account_row a;
    if ((*rc = account_of(c->s, moderator, &a)) < 0)
        return 0;
    if (*rc == 1 && !a.banned && (*rc = may_moderate(c->s, moderator)) == 1)
        return 0;
    if (*rc < 0)
        return 0;
    out->message = "moderators only";
    return COMMENT_FORBIDDEN;
}

/* The inputs every moderation decision shares, checked before any transaction: the reason
 * ("" is none; at most COMMENT_REASON_MAX) and the UUID of its subject (a comment or an
 * account) into uuid. COMMENT_OK, INVALID or MISSING (out->message says why). */
static int moderation_input(const char **reason, const char *id, char uuid[UUID_STR_LEN + 1],
                            const char *missing, struct comment_result *out)
{
    if (*reason && !(*reason)[0])
        *reason = NULL;
    if (*reason && strlen(*reason) > COMMENT_REASON_MAX) {
        out->message = "the reason is too long (at most 500 characters)";
        return COMMENT_INVALID;
    }
    return uuid_arg(id, uuid, missing, out) < 0 ? COMMENT_MISSING : COMMENT_OK;
}

/* The subject of a moderation decision (a comment or an account): its id as given, normalised
 * into uuid by moderation_begin; missing, the message when there is none; read, its lookup in
 * the decision's transaction into row (1, 0 or a store_rc). */
struct moderation_subject {
    const char *id, *missing;
    int (*read)(const struct app_ctx *c, const char *uuid, void *row);
    char uuid[UUID_STR_LEN + 1];
};

static int comment_subject(const struct app_ctx *c, const char *uuid, void *row)
{
    return get_locked(c, uuid, row);
}

static int account_subject(const struct app_ctx *c, const char *uuid, void *row)
{
    return account_of(c->s, uuid, row);
}

/* Opens a moderation decision: its inputs (moderation_input), its write transaction, the
 * moderator's right in it (moderator_check) and its subject, read into row. COMMENT_OK with
 * the transaction open; any other outcome has ended it (finish) or never opened one. */
static int moderation_begin(const struct app_ctx *c, const char *moderator, const char **reason,
                            struct moderation_subject *m, void *row, struct comment_result *out)
{
    int result = moderation_input(reason, m->id, m->uuid, m->missing, out);
    if (result != COMMENT_OK)
        return result;
    int rc = begin_write(c);
    if (rc >= 0)
        result = moderator_check(c, moderator, out, &rc);
    if (rc >= 0 && result == COMMENT_OK && (rc = m->read(c, m->uuid, row)) == 0) {
        out->message = m->missing;
        result = COMMENT_MISSING;
    }
    if (rc < 0 || result != COMMENT_OK)
        return finish(c->s, rc, result);
    return COMMENT_OK;
}

int comment_moderate(const struct app_ctx *c, const char *moderator, const char *id,
                     const char *action, const char *reason, struct comment_result *out)
{
    memset(out, 0, sizeof *out);
    bool approve = strcmp(action, "approve") == 0, reject = strcmp(action, "reject") == 0,
         feature = strcmp(action, "feature") == 0, unfeature = strcmp(action, "unfeature") == 0;
    if (!approve && !reject && !feature && !unfeature) {
        out->message = "action must be approve, reject, feature or unfeature";
        return COMMENT_INVALID;
    }
    if (reject && !(reason && reason[0])) {
        out->message = "a rejection needs a reason";
        return COMMENT_INVALID;
    }
    struct moderation_subject m = {.id = id, .missing = "no such comment", .read = comment_subject};
    struct comment cm;
    int rc = 0, result = moderation_begin(c, moderator, &reason, &m, &cm, out);
    if (result != COMMENT_OK)
        return result;
    out->incident_key = cm.incident_key;
    out->id = arena_strdup(c->a, cm.id);
    if (strcmp(cm.status, COMMENT_DELETED) == 0) {
        out->message = "its author deleted this comment";
        result = COMMENT_CLOSED;
        goto out;
    }
    bool was = cm.visible, published = strcmp(cm.status, COMMENT_PUBLISHED) == 0;
    if ((feature || unfeature) && !published) {
        out->message = "only a published comment can be featured";
        result = COMMENT_CLOSED;
        goto out;
    }
    if (approve || reject) {
        /* a review settles the comment's open reports either way */
        snprintf(cm.status, sizeof cm.status, "%s", approve ? COMMENT_PUBLISHED : COMMENT_REJECTED);
        cm.open_reports = 0;
        cm.report_hidden = false;
        cm.reviewed_at = c->now;
        if (reject)
            cm.featured = false;
    } else {
        cm.featured = feature;
    }
    if ((rc = save_state(c->s, &cm, was)) < 0)
        goto out;
    rc = moderation_log_add(c->s, cm.id, NULL, actor_of(c, moderator), action, reason, c->now);
out:
    return finish(c->s, rc, result);
}

int comment_suspend(const struct app_ctx *c, const char *moderator, const char *account_id,
                    bool suspend, const char *reason, struct comment_result *out)
{
    memset(out, 0, sizeof *out);
    struct moderation_subject m = {
        .id = account_id, .missing = "no such account", .read = account_subject};
    const char *aid = m.uuid;
    struct account_row a;
    int rc = 0, result = moderation_begin(c, moderator, &reason, &m, &a, out);
    if (result != COMMENT_OK)
        return result;
    if ((rc = agents_account_set_banned(c->s, a.email, suspend, c->now)) < 0)
        goto out;
    if ((rc = comments_author_suspended(c, moderator, aid, suspend, reason)) < 0)
        goto out;
    /* one audit record, naming the moderator (issue 16: every staff action is recorded) */
    struct app_ctx by = *c;
    if (moderator && !c->actor) {
        by.actor = actor_of(c, moderator);
        by.role = "moderator";
    }
    rc = app_audit(&by, suspend ? "account.suspend" : "account.unsuspend", "account", aid,
                   a.banned ? "{\"banned\":true}" : "{\"banned\":false}",
                   suspend ? "{\"banned\":true}" : "{\"banned\":false}", reason);
out:
    return finish(c->s, rc, result);
}

int comments_author_suspended(const struct app_ctx *c, const char *by, const char *account_id,
                              bool suspended, const char *reason)
{
    struct comment *list;
    size_t n;
    int rc = lock_author(c->s, account_id);
    if (rc < 0 || (rc = comments_of_author(c->s, c->a, account_id, AUTHOR_MAX, &list, &n)) < 0)
        return rc;
    for (size_t i = 0; i < n; i++) {
        if (list[i].author_hidden == suspended)
            continue;
        bool was = list[i].visible;
        list[i].author_hidden = suspended;
        if ((rc = save_state(c->s, &list[i], was)) < 0)
            return rc;
    }
    return moderation_log_add(c->s, NULL, account_id, actor_of(c, by),
                              suspended ? "suspend" : "unsuspend", reason, c->now);
}

int comment_words_change(const struct app_ctx *c, bool add, const char *word,
                         struct comment_result *out)
{
    memset(out, 0, sizeof *out);
    char w[COMMENT_WORD_MAX * 4 + 1];
    out->message = comment_word_clean(word ? word : "", w, sizeof w);
    if (out->message)
        return COMMENT_INVALID;
    int rc = store_begin_row_write(c->s);
    if (rc >= 0)
        rc = add ? comment_words_add(c->s, w, c->now) : comment_words_remove(c->s, w);
    if (rc >= 0)
        out->message = add ? (rc ? "added" : "already listed") : (rc ? "removed" : "not listed");
    out->id = arena_strdup(c->a, w);
    return finish(c->s, rc, COMMENT_OK);
}

int comment_words_list(const struct app_ctx *c, const char ***words, size_t *n)
{
    int rc = store_begin_read(c->s);
    if (rc >= 0)
        rc = comment_words_all(c->s, c->a, words, n);
    return app_rollback(c, rc, COMMENT_OK);
}

/* ---- reads ---- */

int comments_read_public(const struct app_ctx *c, const char *id, bool newest, int64_t limit,
                         int64_t offset, struct comment_list *out)
{
    memset(out, 0, sizeof *out);
    struct incident_ref ref;
    int rc = store_begin_read(c->s), result = COMMENT_OK;
    if (rc < 0)
        goto out;
    if ((rc = incidents_locate(c->s, id, &ref)) < 0)
        goto out;
    enum incident_public state =
        rc == 0 ? INCIDENT_PUBLIC_GONE
                : incident_public_state(ref.visibility, ref.survivor_visibility);
    if (state == INCIDENT_PUBLIC_GONE) {
        result = COMMENT_MISSING;
    } else if (state == INCIDENT_PUBLIC_REDIRECT) {
        out->survivor_id = arena_strdup(c->a, ref.survivor_id);
        out->survivor_key =
            arena_strdup(c->a, ref.survivor_slug[0] ? ref.survivor_slug : ref.survivor_id);
        result = COMMENT_MERGED;
    } else {
        rc = comments_public(c->s, c->a, ref.id, newest, limit, offset, &out->items, &out->n,
                             &out->more);
    }
out:
    return app_rollback(c, rc, result);
}

int comments_read_discussion(const struct app_ctx *c, const char *incident_id, int64_t count,
                             const char *viewer, bool newest, int64_t limit, int64_t offset,
                             struct comment_discussion *out)
{
    memset(out, 0, sizeof *out);
    out->count = count;
    struct comment *top;
    size_t n;
    int rc = store_begin_read(c->s);
    if (rc < 0)
        goto out;
    if (viewer) {
        struct account_row a;
        if ((rc = account_of(c->s, viewer, &a)) < 0 ||
            (rc = accounts_display_name(c->s, viewer, out->display_name,
                                        sizeof out->display_name)) < 0)
            goto out;
        out->verified = a.verified;
        out->suspended = a.banned;
    }
    if ((rc = comments_thread(c->s, c->a, incident_id, viewer, newest, limit, offset, &top, &n,
                              &out->more)) < 0)
        goto out;
    out->threads = arena_alloc(c->a, sizeof *out->threads * (n ? n : 1));
    for (size_t i = 0; i < n; i++) {
        struct comment_thread *t = &out->threads[i];
        t->c = top[i];
        t->replies = NULL;
        t->nreplies = 0;
        if ((t->c.reply_count > 0 || viewer) &&
            (rc = comments_replies(c->s, c->a, t->c.id, viewer, REPLIES_SHOWN, &t->replies,
                                   &t->nreplies)) < 0)
            goto out;
    }
    out->n = n;
out:
    return app_rollback(c, rc, COMMENT_OK);
}

int comments_read_queue(const struct app_ctx *c, const char *queue, int64_t limit, int64_t offset,
                        struct comment_review **out, size_t *n, bool *more)
{
    struct comment *list;
    *out = NULL;
    *n = 0;
    int rc = store_begin_read(c->s);
    if (rc < 0)
        goto out;
    if ((rc = comments_queue(c->s, c->a, queue, limit, offset, &list, n, more)) < 0)
        goto out;
    *out = arena_alloc(c->a, sizeof **out * (*n ? *n : 1));
    for (size_t i = 0; i < *n; i++) {
        struct comment_review *r = &(*out)[i];
        memset(r, 0, sizeof *r);
        r->c = list[i];
        if ((rc = comments_history(c->s, r->c.account_id, &r->author)) < 0 ||
            (rc = comment_reports_summary(c->s, r->c.id, r->reports, sizeof r->reports)) < 0 ||
            (rc = moderation_log_of(c->s, c->a, r->c.id, &r->log, &r->nlog)) < 0)
            goto out;
    }
out:
    return app_rollback(c, rc, COMMENT_OK);
}

/* ---- display names and roles ---- */

int account_display_name_set(const struct app_ctx *c, const char *account_id, const char *name,
                             struct comment_result *out)
{
    memset(out, 0, sizeof *out);
    char clean[DISPLAY_NAME_MAX + 1], key[DISPLAY_NAME_MAX + 1], have[64];
    const char **teams;
    size_t nteams;
    int rc = store_begin_row_write(c->s), result = COMMENT_OK;
    if (rc < 0)
        goto out;
    if ((rc = teams_all_names(c->s, c->a, &teams, &nteams)) < 0)
        goto out;
    out->message = display_name_check(name, teams, nteams, clean, key);
    if (out->message) {
        result = COMMENT_INVALID;
        goto out;
    }
    if ((rc = accounts_display_name(c->s, account_id, have, sizeof have)) < 0)
        goto out;
    if (have[0]) {
        out->message = "your display name is already chosen: it is set once";
        result = COMMENT_CLOSED;
        goto out;
    }
    rc = accounts_set_display_name(c->s, account_id, clean, key);
    if (rc == STORE_CONSTRAINT) {
        rc = 0;
        out->message = "this display name is taken: choose another";
        result = COMMENT_TAKEN;
        goto out;
    }
    out->id = arena_strdup(c->a, clean);
out:
    return finish(c->s, rc, result);
}

int account_display_name_get(const struct app_ctx *c, const char *account_id, char *out, size_t n)
{
    return accounts_display_name(c->s, account_id, out, n) < 0 ? APP_UNAVAILABLE : APP_OK;
}

int account_role_change(const struct app_ctx *c, const char *email, const char *role, bool grant,
                        struct comment_result *out)
{
    memset(out, 0, sizeof *out);
    if (!account_role_ok(role)) {
        out->message = "ROLE must be moderator, editor or admin";
        return COMMENT_INVALID;
    }
    char norm[ACCOUNT_EMAIL_MAX + 2];
    if (account_email_normalize(email ? email : "", norm) < 0) {
        out->message = "EMAIL must be an email address";
        return COMMENT_INVALID;
    }
    struct account_row a;
    int rc = store_begin_row_write(c->s), result = COMMENT_OK;
    if (rc < 0)
        goto out;
    if ((rc = accounts_by_email(c->s, norm, &a)) < 0)
        goto out;
    if (rc == 0) {
        out->message = "no account with that email address";
        result = COMMENT_MISSING;
        goto out;
    }
    rc = grant ? account_roles_grant(c->s, a.id, role, c->actor ? c->actor : "operator", c->now)
               : account_roles_revoke(c->s, a.id, role);
    if (rc >= 0)
        out->message =
            grant ? (rc ? "granted" : "already granted") : (rc ? "revoked" : "not granted");
    /* a change (not a no-op) is one audit record */
    if (rc == 1) {
        const char *r = arena_printf(c->a, "{\"role\":\"%s\"}", role);
        rc = app_audit(c, grant ? "account.grant_role" : "account.revoke_role", "account", a.id,
                       grant ? NULL : r, grant ? r : NULL, NULL);
    }
    out->id = arena_strdup(c->a, a.id);
out:
    return finish(c->s, rc, result);
}

int comment_read_own(const struct app_ctx *c, const char *account_id, const char *id,
                     struct comment *out, struct comment_result *r)
{
    memset(r, 0, sizeof *r);
    int rc = store_begin_read(c->s);
    int result = rc < 0 ? COMMENT_OK : own_comment(c, account_id, id, out, r, &rc);
    if (rc >= 0 && result == COMMENT_OK && !comment_edit_open(out->created_at, c->now)) {
        r->message = "comments can be edited for 10 minutes only";
        result = COMMENT_CLOSED;
    }
    return app_rollback(c, rc, result);
}
