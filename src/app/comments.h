#ifndef WHISTLE_APP_COMMENTS_H
#define WHISTLE_APP_COMMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "domain/comment.h"
#include "store/comments.h"

/*
 * Comments on incidents and their moderation (issue 15; docs/comments.md): every rule and
 * transaction of posting, editing, deleting, reporting, reading and moderating. The rules
 * are domain/comment.h's; SQL is store/comments.h's. incidents.comment_count moves in the
 * same transaction as every change of a comment's visibility (one helper does it).
 *
 * Every use case returns a comment_outcome (or APP_UNAVAILABLE: the store failed, nothing
 * was written); out->message says why for the refusals that carry one.
 */
enum comment_outcome {
    COMMENT_OK = 0,
    COMMENT_INVALID,      /* 400: message */
    COMMENT_MISSING,      /* 404: no such incident (withdrawn included) or comment */
    COMMENT_MERGED,       /* the incident is a merged duplicate: survivor_id / survivor_key */
    COMMENT_FORBIDDEN,    /* 403: message (unverified, suspended, not the author, no role) */
    COMMENT_NEEDS_NAME,   /* 403: the author has no display name yet */
    COMMENT_CLOSED,       /* 409: message (edit window over, deleted, wrong state) */
    COMMENT_RATE_LIMITED, /* 429: retry_s */
    COMMENT_TAKEN,        /* 409: the display name belongs to someone else */
};

struct comment_result {
    const char *message;                    /* static or arena */
    int64_t retry_s;                        /* RATE_LIMITED */
    const char *id;                         /* the comment written */
    const char *incident_key;               /* its incident's page key */
    bool held;                              /* it waits in the pending queue */
    const char *survivor_id, *survivor_key; /* MERGED */
};

/* Who acts: a signed-in account (its stored facts are read by the use case) or the
 * operator on the CLI (account_id NULL). */
struct comment_post {
    const char *account_id;
    const char *key;       /* the incident's page key (slug, former slug or UUID) */
    const char *parent_id; /* a top-level comment to reply to, or NULL */
    const char *body;
    const char *address; /* the client's address, for the per-address limit */
    /* new comments a minute per account and per address (serve's --comment-limit-account,
     * --comment-limit-ip); a day's limits are COMMENT_DAY_FACTOR times them */
    int limit_account, limit_address;
};
int comment_post(const struct app_ctx *c, const struct comment_post *in,
                 struct comment_result *out);
/* The author edits within COMMENT_EDIT_WINDOW_US (an "edited" mark). */
int comment_edit(const struct app_ctx *c, const char *account_id, const char *id, const char *body,
                 struct comment_result *out);
/* The author's own comment, still editable (the edit form): COMMENT_OK with *out, or the
 * refusal comment_edit would give. */
int comment_read_own(const struct app_ctx *c, const char *account_id, const char *id,
                     struct comment *out, struct comment_result *r);
/* The author deletes: a placeholder stays when it has replies. */
int comment_delete(const struct app_ctx *c, const char *account_id, const char *id,
                   struct comment_result *out);
/* A report (spam, abuse, off_topic, other); a second report by the same account counts
 * once (COMMENT_OK, nothing changes). */
int comment_report(const struct app_ctx *c, const char *account_id, const char *id,
                   const char *reason, struct comment_result *out);

/* Moderation: action is approve, reject (reason required), feature or unfeature.
 * moderator is an account with the moderator or admin role, or NULL for the operator. */
int comment_moderate(const struct app_ctx *c, const char *moderator, const char *id,
                     const char *action, const char *reason, struct comment_result *out);
/* Suspends (or lifts the suspension of) an account: it can no longer comment, vote as
 * itself or use its agent keys, and its published comments are hidden (shown again when
 * lifted). */
int comment_suspend(const struct app_ctx *c, const char *moderator, const char *account_id,
                    bool suspend, const char *reason, struct comment_result *out);
/* In the caller's write transaction, after an account's suspension changed (here or by
 * `whistle account ban|unban`): hides (or shows again) the account's comments, moving the
 * counters, and records the decision by `by` (an account ID, NULL: the operator). 0 or a
 * negative store_rc. */
int comments_author_suspended(const struct app_ctx *c, const char *by, const char *account_id,
                              bool suspended, const char *reason);
/* Prepares every statement a comment write runs under its author's lock (store_prepare_ahead),
 * for another use case's write that calls comments_author_suspended: call it before that
 * write begins (no statement is prepared while a lock is held, app.h). */
void comments_prepare_writes(const struct app_ctx *c);
/* Whether account_id may moderate (moderator or admin): 1, 0, or APP_UNAVAILABLE. */
int comment_is_moderator(const struct app_ctx *c, const char *account_id);

/* The word list: add or remove one entry (out->message on INVALID); list all. */
int comment_words_change(const struct app_ctx *c, bool add, const char *word,
                         struct comment_result *out);
int comment_words_list(const struct app_ctx *c, const char ***words, size_t *n);

/* ---- reads ---- */

/* The public API's list: the visible comments of the incident whose ID is id, replies
 * included. Returns COMMENT_OK, COMMENT_MISSING, COMMENT_MERGED (out->survivor_*) like
 * the incident itself (app/incident.h), or APP_UNAVAILABLE. */
struct comment_list {
    struct comment *items;
    size_t n;
    bool more;
    const char *survivor_id, *survivor_key;
};
int comments_read_public(const struct app_ctx *c, const char *id, bool newest, int64_t limit,
                         int64_t offset, struct comment_list *out);

/* An incident page's discussion (the incident already read with incident_read): top-level
 * comments with their replies, and what the viewer (an account ID or NULL) may do. */
struct comment_thread {
    struct comment c;
    struct comment *replies;
    size_t nreplies;
};
struct comment_discussion {
    struct comment_thread *threads;
    size_t n;
    bool more;
    int64_t count;            /* the incident's comment_count */
    char display_name[64];    /* the viewer's, "" when none */
    bool verified, suspended; /* the viewer's account */
};
int comments_read_discussion(const struct app_ctx *c, const char *incident_id, int64_t count,
                             const char *viewer, bool newest, int64_t limit, int64_t offset,
                             struct comment_discussion *out);

/* A moderation queue ("pending", "reported", "recent") with each comment's author history,
 * report reasons and moderation log. */
struct comment_review {
    struct comment c;
    struct comment_history author;
    char reports[200];
    struct moderation_entry *log;
    size_t nlog;
};
int comments_read_queue(const struct app_ctx *c, const char *queue, int64_t limit, int64_t offset,
                        struct comment_review **out, size_t *n, bool *more);

/* ---- display names and roles ---- */

/* The account's display name into out, n bytes ("" when none): APP_OK or APP_UNAVAILABLE.
 * One statement, its own read. */
int account_display_name_get(const struct app_ctx *c, const char *account_id, char *out, size_t n);

/* Sets the account's display name once (domain rules; unique case-insensitively):
 * COMMENT_OK, INVALID (message), TAKEN, CLOSED (it already has one). */
int account_display_name_set(const struct app_ctx *c, const char *account_id, const char *name,
                             struct comment_result *out);
/* Grants or revokes a role (moderator, editor, admin) of the account with that email:
 * COMMENT_OK (out->message "granted", "already granted", "revoked", "not granted"),
 * COMMENT_INVALID (role), COMMENT_MISSING (no such account). */
int account_role_change(const struct app_ctx *c, const char *email, const char *role, bool grant,
                        struct comment_result *out);

#endif
