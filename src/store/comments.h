#ifndef WHISTLE_STORE_COMMENTS_H
#define WHISTLE_STORE_COMMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/agents.h"
#include "store/store.h"
#include "util/arena.h"

/*
 * Comments, reports, the moderation log, the word list, display names and account roles
 * (migration 010; docs/comments.md). SQL only: no rule lives here (domain/comment.h decides,
 * app/comments.c applies). Functions return 0 (or a count / found flag as stated) or a
 * negative store_rc; callers own transactions. Strings handed out live in the arena.
 */
struct comment {
    char id[ID_LEN], incident_id[ID_LEN], parent_id[ID_LEN], account_id[ID_LEN]; /* "" none */
    const char *body;
    const char *display_name; /* the author's, NULL when none */
    const char *badge;        /* the author's highest role, NULL when none */
    char status[12];          /* pending, published, rejected, deleted */
    char held_reason[16];     /* new_account, word_list or "" */
    bool report_hidden, author_hidden, visible, featured;
    int64_t open_reports, reply_count;
    int64_t created_at, edited_at, deleted_at, reviewed_at; /* INT64_MIN when null */
    const char *incident_title, *incident_key;              /* the key: slug, else ID */
};

/* One comment by ID: 1 found, 0 missing. */
int comments_get(struct store *s, struct arena *a, const char *id, struct comment *out);
/* A new comment as given (id, incident, parent, author, body, state, created_at). */
int comments_insert(struct store *s, const struct comment *c);
/* Writes the mutable columns of c (body, status, held_reason, the hidden and visible
 * flags, featured, open_reports, edited/deleted/reviewed times). */
int comments_save(struct store *s, const struct comment *c);
/* Atomic moves of the counters a read needs: the incident's comment_count and a top-level
 * comment's reply_count. */
int comments_count_add(struct store *s, const char *incident_id, int64_t delta);
int comments_replies_add(struct store *s, const char *parent_id, int64_t delta);

/* The visible comments of an incident, replies included (the public API), created_at
 * ascending (newest false) or descending, then ID. *more: a further one exists. */
int comments_public(struct store *s, struct arena *a, const char *incident_id, bool newest,
                    int64_t limit, int64_t offset, struct comment **out, size_t *n, bool *more);
/* The top-level comments a page shows: visible ones, placeholders (not visible but with
 * visible replies) and viewer's own pending ones (viewer may be NULL). */
int comments_thread(struct store *s, struct arena *a, const char *incident_id, const char *viewer,
                    bool newest, int64_t limit, int64_t offset, struct comment **out, size_t *n,
                    bool *more);
/* A top-level comment's visible replies and viewer's pending ones, oldest first, at most
 * limit. */
int comments_replies(struct store *s, struct arena *a, const char *parent_id, const char *viewer,
                     int64_t limit, struct comment **out, size_t *n);

/* Moderation queues: "pending" (oldest first), "reported" (published with open reports,
 * most reported first), "recent" (every comment, newest first). */
int comments_queue(struct store *s, struct arena *a, const char *queue, int64_t limit,
                   int64_t offset, struct comment **out, size_t *n, bool *more);
/* Every comment of an author (for suspension), oldest first, at most limit. */
int comments_of_author(struct store *s, struct arena *a, const char *account_id, int64_t limit,
                       struct comment **out, size_t *n);
/* An author's history: comments written, published now, rejected; suspended now. */
struct comment_history {
    int64_t total, published, rejected;
    bool suspended;
};
int comments_history(struct store *s, const char *account_id, struct comment_history *out);
/* The author's published comments, counted up to `cap` (a bounded count). */
int comments_published_upto(struct store *s, const char *account_id, int64_t cap, int64_t *n);

/* ---- reports ---- */

/* 1 recorded, 0 this account had already reported the comment. */
int comment_reports_add(struct store *s, const char *comment_id, const char *account_id,
                        const char *reason, int64_t now);
/* The reasons of a comment's reports with their counts: "spam 2, abuse 1" into out. */
int comment_reports_summary(struct store *s, const char *comment_id, char *out, size_t n);

/* ---- the moderation log ---- */

struct moderation_entry {
    const char *actor, *actor_name, *action, *reason; /* actor_name: a display name or NULL */
    int64_t created_at;
};
int moderation_log_add(struct store *s, const char *comment_id, const char *account_id,
                       const char *actor, const char *action, const char *reason, int64_t now);
/* A comment's log, oldest first (at most 100 entries). */
int moderation_log_of(struct store *s, struct arena *a, const char *comment_id,
                      struct moderation_entry **out, size_t *n);

/* ---- the word list ---- */

/* 1 added, 0 already there. */
int comment_words_add(struct store *s, const char *word, int64_t now);
/* 1 removed, 0 not there. */
int comment_words_remove(struct store *s, const char *word);
int comment_words_all(struct store *s, struct arena *a, const char ***out, size_t *n);

/* ---- display names and roles ---- */

/* The account's display name into out ("" when none). */
int accounts_display_name(struct store *s, const char *account_id, char *out, size_t n);
/* Sets a display name once: 1 set, 0 the account already has one, STORE_CONSTRAINT when
 * another account has the same key. */
int accounts_set_display_name(struct store *s, const char *account_id, const char *name,
                              const char *key);
/* Every team's name, short name and abbreviation (for the impersonation rule). */
int teams_all_names(struct store *s, struct arena *a, const char ***out, size_t *n);
/* 1 granted now, 0 it already was. */
int account_roles_grant(struct store *s, const char *account_id, const char *role, const char *by,
                        int64_t now);
/* 1 revoked, 0 it was not granted. */
int account_roles_revoke(struct store *s, const char *account_id, const char *role);
/* 1 the account has role, 0 not. */
int account_roles_has(struct store *s, const char *account_id, const char *role);

/* ---- import and export (app/import.c, cli/export.c) ---- */

/* Writes c as given (upsert by id; reply_count is left to comments_recount). */
int comments_import_put(struct store *s, const struct comment *c);
/* 1 when some comment replies to id, 0 not. */
int comments_has_replies(struct store *s, const char *id);
/* Sets the incident's comment_count and its top-level comments' reply_count from the visible
 * comments (what the use cases keep incrementally), after an import wrote them. */
int comments_recount(struct store *s, const char *incident_id);
/* Calls cb for every comment of the incident, whatever its state, oldest first (strings in
 * a); stops at cb's first non-zero return and returns a negative one. */
int comments_each(struct store *s, struct arena *a, const char *incident_id,
                  int (*cb)(void *ctx, const struct comment *c), void *ctx);
/* The account whose display name has this key: 1 with id and *banned, 0 none. */
int accounts_by_display_key(struct store *s, const char *key, char id[ID_LEN], bool *banned);
/* A new account known only by its display name (an imported comment's author): unverified,
 * no password. */
int accounts_insert_named(struct store *s, const char *id, const char *email, const char *name,
                          const char *key, bool banned, int64_t now);

#endif
