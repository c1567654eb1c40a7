#ifndef WHISTLE_WEB_WEB_H
#define WHISTLE_WEB_WEB_H

#include "app/app.h"
#include "domain/account.h"
#include "domain/limits.h"
#include "domain/voter.h"
#include "http/http.h"
#include "store/accounts.h"
#include "store/incidents.h"

/*
 * The human pages, the ballot endpoint and the RSS feed (docs/pages.md). Pages are
 * server-rendered HTML that reads without JavaScript; every printed value is escaped.
 */
void web_home(struct request *req);
void web_incident(struct request *req);
void web_game(struct request *req);
void web_games(struct request *req);
void web_feed_ns(struct request *req);
void web_vote(struct request *req);
void web_feed(struct request *req);
void web_css(struct request *req);
void web_js(struct request *req);
void web_favicon(struct request *req);

/* Accounts (accounts.c) and the developer portal (developers.c); docs/accounts.md. */
void web_signup_form(struct request *req);
void web_signup(struct request *req);
void web_verify_form(struct request *req);
void web_verify(struct request *req);
void web_resend_verification(struct request *req);
void web_signin_form(struct request *req);
void web_signin(struct request *req);
void web_signout(struct request *req);
void web_forgot_form(struct request *req);
void web_forgot(struct request *req);
void web_reset_form(struct request *req);
void web_reset(struct request *req);
void web_account(struct request *req);
void web_password(struct request *req);
void web_signin_code(struct request *req); /* the code of two-factor sign-in */
void web_totp_begin(struct request *req);  /* two-factor enrolment (staff) */
void web_totp_confirm(struct request *req);
void web_totp_disable(struct request *req);
void web_developers(struct request *req);
void web_key_create(struct request *req);
void web_key_revoke_confirm(struct request *req);
void web_key_revoke(struct request *req);
void web_developers_js(struct request *req);

/* The body cap of every form POST (ballots, account and developer forms): 413 beyond. */
#define WEB_FORM_BODY_MAX (16 * 1024)
/* a comment form: 2,000 characters of up to 4 bytes, percent-encoded (docs/comments.md) */
#define WEB_COMMENT_BODY_MAX (32 * 1024)

/* Comments and moderation (comments.c, moderate.c, profile.c); docs/comments.md. */
void web_comment_post(struct request *req);
void web_comment_edit_form(struct request *req);
void web_comment_edit(struct request *req);
void web_comment_delete(struct request *req);
void web_comment_report(struct request *req);
void web_moderate(struct request *req);
void web_moderate_decide(struct request *req);
void web_profile(struct request *req);
void web_profile_save(struct request *req);
/* Appends the incident page's discussion section (key: the page key; csrf: the token of
 * the page's forms; sess NULL when signed out). */
struct app_ctx;
void web_discussion(struct request *req, const struct app_ctx *c, const struct incident *inc,
                    const struct session_row *sess, const char *key, const char *csrf);

/* The editorial desk (desk.c; docs/desk.md): every handler runs behind one role gate. */
void web_desk_candidates(struct request *req);
void web_desk_lead(struct request *req);
void web_desk_lead_publish(struct request *req);
void web_desk_lead_reject(struct request *req);
void web_desk_incidents(struct request *req);
void web_desk_incident(struct request *req);
void web_desk_incident_edit(struct request *req);
void web_desk_incident_status(struct request *req);
void web_desk_incident_source(struct request *req);
void web_desk_incident_question(struct request *req);
void web_desk_incident_withdraw(struct request *req);
void web_desk_incident_merge(struct request *req);
void web_desk_audit(struct request *req);
void web_desk_accounts(struct request *req);
void web_desk_account(struct request *req);
void web_desk_account_ban(struct request *req);
void web_desk_account_unban(struct request *req);
void web_desk_account_role(struct request *req);
void web_desk_key_revoke(struct request *req);
void web_desk_incident_source_remove(struct request *req);
void web_desk_quotas(struct request *req);
void web_desk_scout_keys(struct request *req);
void web_desk_scout_key_create(struct request *req);
void web_desk_scout_key_change(struct request *req);

/* a desk form with long texts (play description 5,000 bytes, percent-encoded) */
#define WEB_DESK_BODY_MAX (64 * 1024)

/* Shared page pieces (pages.c). */
struct incident_filter web_filter(int64_t limit); /* no filter, newest first */
/* Reads one page of published incidents in a read transaction; 0 or a negative store_rc. */
int web_list(struct request *req, const struct incident_filter *f, struct incident **list,
             size_t *n, bool *more);
void web_page_begin(struct buf *b, const char *title);
/* Starts a page in req->out (emptied first): the layout begun with title, then
 * <h1>title</h1>. Returns &req->out. */
struct buf *web_page_titled(struct request *req, const char *title);
void web_page_end(struct buf *b);
void web_error_page(struct request *req, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The one "unavailable" page: 503, Retry-After, the same words as the JSON reply
 * (reply_unavailable). */
void web_unavailable(struct request *req);
/* The page of a form that hashes a password while the password pool is full (http/pool.h):
 * 503, Retry-After, HTTP_PASSWORD_BUSY_MSG. The server calls it (server_config.busy). */
void web_password_busy(struct request *req);
/* Checks the query string against specs (n of them) into v (http/query.h): 0, or -1 after
 * answering the HTML 400 page that says why. */
struct qp_spec;
struct qp_value;
int web_query(struct request *req, const struct qp_spec *specs, size_t n, struct qp_value *v);
/* For pages that take no query string: 0, or -1 after answering the HTML 400 page. */
int web_no_query(struct request *req);
void web_redirect(struct request *req, int status, const char *path);
/* An optional text in its markup: before, text escaped, then after; nothing when text is
 * NULL. */
void web_text_if(struct buf *b, const char *before, const char *text, const char *after);
/* A time for people: <time datetime="ISO">YYYY-MM-DD HH:MM UTC</time>. */
void web_time(struct buf *b, int64_t us);
/* Ends the page begun in req->out (web_page_end) and answers it as HTML with status
 * (web_reply_html). */
void web_page_reply(struct request *req, int status);
/* Sets the page headers (CSP, Referrer-Policy) and answers req->out as HTML. */
void web_reply_html(struct request *req, int status);

/* The anonymous voter of this request: a valid cookie's ID, or a new cookie (Set-Cookie). */
void web_voter_of(struct request *req, char id[VOTER_ID_LEN + 1]);

/* ---- form posts and sessions (forms.c) ---- */

/* Same-origin: Origin equals the base URL's origin, or without Origin, a Referer under it. */
bool web_same_origin(struct request *req);
/* A refused form, in words a fan understands (403 page): why nothing was saved, what to do,
 * and a link back to the form's page (a path on this site; "/" otherwise). */
enum web_refusal { WEB_REFUSED_ORIGIN, WEB_REFUSED_TOKEN, WEB_REFUSED_SIGNED_OUT };
void web_form_refused(struct request *req, enum web_refusal why, const char *back);
/* The origin the browser used for this request: the base URL, or on a loopback base URL the
 * loopback spelling in the Host header (so a redirect keeps the browser on its cookies). */
const char *web_browser_origin(struct request *req);
/* A form's fields by name (names NULL-terminated, at most 8; a value is NULL when absent).
 * bad is -1 when the body was not a form or had an unknown or repeated field (err says
 * which). */
struct web_form {
    const char *const *names;
    const char *v[8];
    int bad;
    char err[200];
};
/* The fields of a form that carries nothing but its CSRF token (sign-out, revocations,
 * deletions): {"csrf", NULL}. */
extern const char *const web_csrf_only[];
/* The preamble of a form anyone may post (sign-up, sign-in, …): no query string, the form
 * read into f (f->bad is left to the caller, which shows the form again), the same-origin
 * and anonymous CSRF checks (field "csrf"). -1 when it answered (400/403). */
int web_anon_post(struct request *req, struct web_form *f);
/* The preamble of a signed-in user's form POST: no query string, the form read into f, the
 * session found, a same-origin request with the session's CSRF token (field "csrf"), a
 * well-formed form. Answers 400/403/503 itself and returns NULL; with signed_out_ok a
 * request without a session returns the store with *signed_in 0. */
struct store *web_session_post(struct request *req, struct web_form *f, int64_t now,
                               struct session_row *sess, bool signed_out_ok, int *signed_in);
/* A form post as its handler reads it: the form's fields, the session (when the post
 * needs one) and the use-case context of the request. */
struct web_post {
    struct web_form f;
    struct session_row sess;
    struct app_ctx c;
};
/* web_session_post of the fields names (NULL-terminated) for a signed-in user only (no
 * session: refused), then the use-case context of the request (web_app_ctx) in p->c: 0, or
 * -1 when it answered. */
int web_session_form(struct request *req, struct web_post *p, const char *const *names);
/* The CSRF token for a page's forms: the session's (sess not NULL), or the anonymous voter
 * cookie's (the cookie is issued with this page when missing). */
void web_form_token(struct request *req, const struct session_row *sess,
                    char token[ACCOUNT_CSRF_LEN + 1]);
/* The check of every POST: same origin, then the CSRF token of the session (sess) or,
 * without one, of the anonymous voter cookie. Answers 403 itself and returns -1. */
int web_post_guard(struct request *req, const struct session_row *sess, const char *csrf);
/* <input type="hidden"> with the name and value escaped. */
void web_hidden(struct buf *b, const char *name, const char *value);
/* A form's error paragraph (#form-error), nothing when msg is NULL. */
void web_form_error(struct buf *b, const char *msg);

/* The signed-in session of this request (a valid __Host-whistle_session cookie naming a
 * live session): 1 with *out, 0 none, or APP_UNAVAILABLE. */
int web_session(struct request *req, struct store *s, int64_t now, struct session_row *out);
/* The thread's connection, or NULL after answering 503. */
struct store *web_store(struct request *req);
/* The thread's connection and the session (if any, *signed_in 1) of a page request, or NULL
 * after answering 503. */
struct store *web_page_store(struct request *req, int64_t now, struct session_row *sess,
                             int *signed_in);
/* The use-case context of a request (app/app.h): the connection, the request's arena and
 * id, and now. */
struct app_ctx web_app_ctx(struct request *req, struct store *s, int64_t now);

#endif
