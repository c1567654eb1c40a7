#ifndef WHISTLE_DOMAIN_COMMENT_H
#define WHISTLE_DOMAIN_COMMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Comments on incidents (issue 15; docs/comments.md): the rules, pure. Every window takes
 * `now` (microseconds since the epoch) from the caller.
 */
#define COMMENT_BODY_MIN       2    /* characters (Unicode code points), after trimming */
#define COMMENT_BODY_MAX       2000 /* characters */
#define COMMENT_BODY_MAX_BYTES (COMMENT_BODY_MAX * 4)
#define COMMENT_EDIT_WINDOW_US (INT64_C(10) * 60 * 1000000) /* the author may edit for 10 min */
#define COMMENT_TRUSTED_AFTER  3    /* published comments before an account skips pre-moderation */
#define COMMENT_REPORTS_HIDE   3    /* distinct reporters that hide a comment until reviewed */
#define COMMENT_DAY_FACTOR     10   /* a day's limit of new comments: ten times the minute's */
#define COMMENT_WORD_MAX       60   /* characters of one word-list entry */
#define COMMENT_WORDS_MAX      1000 /* entries in the word list */
#define COMMENT_REASON_MAX     500  /* characters of a moderator's reason */
#define DISPLAY_NAME_MIN       3
#define DISPLAY_NAME_MAX       30

/* Comment states (the CHECK constraint of migration 010). A comment counts in the
 * incident's comment_count while it is visible: published, not hidden by reports, its
 * author not suspended (comment_visible). */
#define COMMENT_PENDING   "pending"
#define COMMENT_PUBLISHED "published"
#define COMMENT_REJECTED  "rejected"
#define COMMENT_DELETED   "deleted"

/* Why a new comment waits in the pending queue. */
enum comment_hold {
    COMMENT_HOLD_NONE = 0, /* published at once */
    COMMENT_HOLD_NEW,      /* the account has fewer than COMMENT_TRUSTED_AFTER published */
    COMMENT_HOLD_WORDS,    /* the body matches the operator's word list */
};
/* "new_account", "word_list" or NULL: the stored name of a hold. */
const char *comment_hold_name(enum comment_hold h);
/* The held reasons (comments.held_reason), NULL-terminated, indexed by comment_hold - 1. */
extern const char *const comment_held_reasons[];

/* The body as stored: CR LF and lone CR become LF, leading and trailing white space is
 * trimmed, at most two consecutive blank lines are kept. out must hold strlen(in) + 1
 * bytes. Returns NULL and the cleaned text in out, or the reason it is refused (a static
 * string): not UTF-8, a control character other than line feed and tab, shorter than 2 or
 * longer than 2,000 characters. */
const char *comment_body_clean(const char *in, char *out, size_t outlen);

/* Whether the author may still edit a comment created at created_at. */
bool comment_edit_open(int64_t created_at, int64_t now);

/* The index of the first word-list entry (lower-case) found in body as a whole word or
 * phrase, case-insensitively (ASCII letters), or -1. */
int comment_word_match(const char *body, const char *const *words, size_t nwords);

/* A word-list entry lower-cased and trimmed into out (COMMENT_WORD_MAX * 4 + 1 bytes):
 * NULL, or the reason it is refused. */
const char *comment_word_clean(const char *in, char *out, size_t outlen);

/* Where a new comment goes: published at once, or held and why. */
enum comment_hold comment_hold_for(int64_t author_published, bool word_match);

/* Whether a comment counts and shows (see above). */
bool comment_visible(const char *status, bool report_hidden, bool author_hidden);

/* Whether open reports from `reporters` distinct accounts hide a published comment. */
bool comment_reports_hide(int64_t reporters);

/* Report reasons and the words people read for them, one line each (the tables below). */
#define COMMENT_REPORT_REASONS(X)                                                                  \
    X("spam", "Spam")                                                                              \
    X("abuse", "Abuse")                                                                            \
    X("off_topic", "Off-topic")                                                                    \
    X("other", "Other")
/* The reasons and their words, NULL-terminated, in one order. */
extern const char *const comment_report_reasons[];
extern const char *const comment_report_reason_labels[];
bool comment_report_reason_ok(const char *reason);

/* Display names: 3 to 30 characters of ASCII letters, digits, spaces and . _ - ' ,
 * beginning with a letter or digit, no two spaces in a row; never an email address; not
 * "Whistle" or a staff word (admin, moderator, staff, official, …) and not a team's name
 * (impersonation). name is trimmed into out (DISPLAY_NAME_MAX + 1 bytes) and its key (lower
 * case, letters and digits only: the uniqueness key) into key. teams lists the names,
 * short names and abbreviations of every team (any case). Returns NULL or the reason. */
const char *display_name_check(const char *name, const char *const *teams, size_t nteams,
                               char out[DISPLAY_NAME_MAX + 1], char key[DISPLAY_NAME_MAX + 1]);

/* Badges: the highest role of an author ("admin", "editor", "moderator") or NULL. */
extern const char *const account_roles[]; /* moderator, editor, admin */
bool account_role_ok(const char *role);

#endif
