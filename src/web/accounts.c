/*
 * Browser accounts (issue 6; docs/accounts.md): sign-up with email verification, sign-in
 * and sign-out, password reset and change. Sessions are random tokens in a __Host- cookie,
 * stored hashed. Every answer that could tell whether an email address is registered reads
 * the same either way; email goes out through the outbox (worker/outbox.c).
 *
 * Forms: every state change is a POST carrying a CSRF token and a same-origin Origin (or
 * Referer). Forms shown to anyone carry the token of the anonymous voter cookie (issued by
 * the form's page); forms of a signed-in user carry their session's token.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

#include "api/api.h"
#include "app/app.h"
#include "domain/account.h"
#include "domain/voter.h"
#include "store/accounts.h"
#include "util/form.h"
#include "util/html.h"
#include "util/log.h"
#include "util/timefmt.h"
#include "util/uuid.h"
#include "web/web.h"

/* Messages sent to one address within an hour, beyond which the outbox stays quiet (the
 * page still says the same thing, so the limit reveals nothing). */
#define MAIL_PER_RECIPIENT_HOUR 5

/* ---- shared pieces ---------------------------------------------------------------- */

static bool starts_with(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

bool web_same_origin(struct request *req)
{
    const char *base = req->cfg->base_url;
    const char *origin = http_header(req, "Origin");
    if (origin)
        return strcmp(origin, base) == 0;
    const char *referer = http_header(req, "Referer");
    if (!referer || !starts_with(referer, base))
        return false;
    char next = referer[strlen(base)];
    return next == '/' || next == '\0' || next == '?' || next == '#';
}

int web_session(struct request *req, struct store *s, int64_t now, struct session_row *out)
{
    char hash[ACCOUNT_TOKEN_HASH_HEX + 1];
    if (!account_session_check(http_cookie(req, ACCOUNT_COOKIE_NAME), hash))
        return 0;
    return sessions_find(s, hash, now, out);
}

static void read_form(struct request *req, struct web_form *f)
{
    const char *ct = http_header(req, "Content-Type");
    memset(f->v, 0, sizeof f->v);
    f->bad = -1;
    if (!ct || strncasecmp(ct, "application/x-www-form-urlencoded", 33) != 0) {
        snprintf(f->err, sizeof f->err, "send the form as application/x-www-form-urlencoded");
        return;
    }
    struct form_pair pairs[16];
    int n = form_parse(&req->arena, req->body.p ? req->body.p : "", req->body.len, pairs, 16);
    if (n < 0) {
        snprintf(f->err, sizeof f->err, "the form body is malformed");
        return;
    }
    /* every known field is read even when another is wrong: the CSRF check comes first */
    f->bad = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (f->names[k] && strcmp(f->names[k], pairs[i].name) != 0)
            k++;
        if (!f->names[k] || f->v[k]) {
            if (f->bad == 0)
                snprintf(f->err, sizeof f->err,
                         f->names[k] ? "field %.40s is repeated" : "unsupported field %.40s",
                         pairs[i].name);
            f->bad = -1;
            continue;
        }
        f->v[k] = pairs[i].value;
    }
}

static const char *field(const struct web_form *f, const char *name)
{
    for (int k = 0; f->names[k]; k++)
        if (strcmp(f->names[k], name) == 0)
            return f->v[k];
    return NULL;
}

/* The form check of every POST: same origin, then the CSRF token of the session (sess) or,
 * without one, of the anonymous voter cookie. Answers 403 itself and returns -1. */
static int guard(struct request *req, const struct session_row *sess, const char *csrf)
{
    if (!web_same_origin(req)) {
        web_error_page(req, 403, "cross-origin form refused (Origin/Referer)");
        return -1;
    }
    char vid[VOTER_ID_LEN + 1];
    bool ok = sess ? account_session_csrf_ok(sess->hash, csrf)
                   : voter_check_cookie(http_cookie(req, VOTER_COOKIE_NAME), vid) &&
                         voter_csrf_ok(vid, csrf);
    if (!ok) {
        web_error_page(req, 403,
                       "missing or expired form token (CSRF): reload the page and try again "
                       "(cookies must be enabled)");
        return -1;
    }
    return 0;
}

/* The preamble of a form anyone may post (sign-up, sign-in, …): no query string, the form
 * read into f (f->bad is left to the caller, which shows the form again), the anonymous
 * CSRF check. -1 when it answered. */
static int anon_post(struct request *req, struct web_form *f)
{
    if (web_no_query(req) < 0)
        return -1;
    read_form(req, f);
    return guard(req, NULL, field(f, "csrf"));
}

/* The CSRF token for a page's forms: the session's, or the anonymous voter cookie's (the
 * cookie is issued with this page when missing). */
static void form_token(struct request *req, const struct session_row *sess,
                       char token[ACCOUNT_CSRF_LEN + 1])
{
    if (sess) {
        account_session_csrf(sess->hash, token);
        return;
    }
    char vid[VOTER_ID_LEN + 1];
    web_voter_of(req, vid);
    voter_csrf_token(vid, token);
}

static void hidden(struct buf *b, const char *name, const char *value)
{
    html_raw(b, "<input type=\"hidden\" name=\"");
    html_attr(b, name);
    html_raw(b, "\" value=\"");
    html_attr(b, value);
    html_raw(b, "\">");
}

static void error_para(struct buf *b, const char *msg)
{
    if (!msg)
        return;
    html_raw(b, "<p class=\"error\" role=\"alert\" id=\"form-error\">");
    html_text(b, msg);
    html_raw(b, "</p>");
}

static void unavailable(struct request *req, struct store *s, int rc)
{
    if (s)
        store_rollback(s);
    if (rc == STORE_GONE || rc == STORE_ERR)
        store_thread_drop();
    log_warn("accounts", "store failure %d on %s rid=%s", rc, req->path, req->id);
    reply_header(req, "Retry-After", "5");
    web_error_page(req, 503, "the service is temporarily unavailable; retry later");
}

/* The thread's connection, or NULL after answering 503. */
static struct store *thread_store(struct request *req)
{
    struct store *s = store_thread();
    if (!s)
        unavailable(req, NULL, STORE_GONE);
    return s;
}

/* The thread's connection and the session (if any) of a page request. */
static struct store *page_store(struct request *req, int64_t now, struct session_row *sess,
                                int *signed_in)
{
    struct store *s = thread_store(req);
    if (!s)
        return NULL;
    *signed_in = web_session(req, s, now, sess);
    if (*signed_in < 0) {
        unavailable(req, s, *signed_in);
        return NULL;
    }
    return s;
}

struct store *web_session_post(struct request *req, struct web_form *f, int64_t now,
                               struct session_row *sess, bool signed_out_ok, int *signed_in)
{
    if (web_no_query(req) < 0)
        return NULL;
    read_form(req, f);
    struct store *s = page_store(req, now, sess, signed_in);
    if (!s)
        return NULL;
    if (!*signed_in) {
        if (signed_out_ok)
            return s;
        web_error_page(req, 403, "sign in first");
        return NULL;
    }
    if (guard(req, sess, field(f, "csrf")) < 0)
        return NULL;
    if (f->bad < 0) {
        web_error_page(req, 400, "%s", f->err);
        return NULL;
    }
    return s;
}

static void set_session_cookie(struct request *req, const char *cookie)
{
    struct buf b = BUF_INIT;
    if (cookie)
        buf_printf(&b, "%s=%s; Path=/; Max-Age=%lld; Secure; HttpOnly; SameSite=Lax",
                   ACCOUNT_COOKIE_NAME, cookie, (long long)(ACCOUNT_SESSION_TTL_US / ACCOUNT_SEC));
    else
        buf_printf(&b, "%s=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Lax",
                   ACCOUNT_COOKIE_NAME);
    reply_header(req, "Set-Cookie", arena_strdup(&req->arena, b.p));
    buf_release(&b);
}

/* ---- email ------------------------------------------------------------------------ */

/* Queues a message in the caller's transaction, unless the address already got
 * MAIL_PER_RECIPIENT_HOUR messages in the last hour (then nothing is sent). */
static int mail(struct store *s, const char *to, const char *subject, const char *body, int64_t now)
{
    int64_t recent = 0;
    int rc = outbox_recent(s, to, now - 3600 * ACCOUNT_SEC, &recent);
    if (rc < 0)
        return rc;
    if (recent >= MAIL_PER_RECIPIENT_HOUR) {
        log_info("accounts", "mail to an address skipped: %d messages in the last hour",
                 MAIL_PER_RECIPIENT_HOUR);
        return 0;
    }
    return outbox_enqueue(s, to, subject, body, now);
}

/* Creates a single-use link of purpose for the account and mails it. */
static int mail_link(struct request *req, struct store *s, const struct account_row *a,
                     const char *purpose, int64_t now)
{
    bool verify = strcmp(purpose, "verify") == 0;
    char token[ACCOUNT_TOKEN_LEN + 1], hash[ACCOUNT_TOKEN_HASH_HEX + 1];
    account_token_new(token, hash);
    int64_t ttl = verify ? ACCOUNT_VERIFY_TTL_US : ACCOUNT_RESET_TTL_US;
    int rc = account_tokens_insert(s, hash, a->id, purpose, now, now + ttl);
    if (rc < 0)
        return rc;
    struct buf body = BUF_INIT;
    const char *base = req->cfg->base_url;
    if (verify)
        buf_printf(&body,
                   "Hello,\n\nconfirm that %s is your email address for your Whistle account by "
                   "opening this link:\n\n%s/account/verify?token=%s\n\nThe link works once and "
                   "expires in 24 hours. Once your address is verified you can create agent keys "
                   "at %s/developers.\n\nIf you did not create a Whistle account, ignore this "
                   "message: nothing happens without the link.\n",
                   a->email, base, token, base);
    else
        buf_printf(&body,
                   "Hello,\n\nsomeone (hopefully you) asked to set a new password for the Whistle "
                   "account of %s. To choose one, open this link:\n\n%s/account/reset?token=%s\n\n"
                   "The link works once and expires in 1 hour. Setting a password signs out "
                   "every session of the account.\n\nIf it was not you, ignore this message: "
                   "your password stays as it is.\n",
                   a->email, base, token);
    sodium_memzero(token, sizeof token);
    rc = mail(s, a->email,
              verify ? "Verify your email address for Whistle" : "Reset your Whistle password",
              body.p, now);
    sodium_memzero(body.p, body.len);
    buf_release(&body);
    return rc;
}

/* Sign-up with an address that already has an account: tell its owner (who may have
 * forgotten), with a reset link; the page shown is the same as for a new account. */
static int mail_already_registered(struct request *req, struct store *s,
                                   const struct account_row *a, int64_t now)
{
    char token[ACCOUNT_TOKEN_LEN + 1], hash[ACCOUNT_TOKEN_HASH_HEX + 1];
    account_token_new(token, hash);
    int rc = account_tokens_insert(s, hash, a->id, "reset", now, now + ACCOUNT_RESET_TTL_US);
    if (rc < 0)
        return rc;
    struct buf body = BUF_INIT;
    const char *base = req->cfg->base_url;
    buf_printf(&body,
               "Hello,\n\nsomeone tried to create a Whistle account with %s, but this address "
               "already has one.\n\nIf it was you, sign in at %s/account/signin, or, if you "
               "forgot your password, set a new one with this link (it works once and expires "
               "in 1 hour):\n\n%s/account/reset?token=%s\n\nIf it was not you, ignore this "
               "message: nothing changes.\n",
               a->email, base, base, token);
    sodium_memzero(token, sizeof token);
    rc = mail(s, a->email, "Your Whistle account", body.p, now);
    sodium_memzero(body.p, body.len);
    buf_release(&body);
    return rc;
}

/* 429 with Retry-After and the wait in minutes. */
static void too_many(struct request *req, int64_t retry, const char *what, const char *or_else)
{
    char ra[24];
    snprintf(ra, sizeof ra, "%lld", (long long)retry);
    reply_header(req, "Retry-After", arena_strdup(&req->arena, ra));
    long long min = (long long)((retry + 59) / 60);
    web_error_page(req, 429, "%s: wait %lld minute%s and try again%s%s.", what, min,
                   min == 1 ? "" : "s", or_else ? ", " : "", or_else ? or_else : "");
}

/* Sign-ups and password-reset requests cost an argon2id hash or an email each: at most
 * limits->mail_forms_per_ip per client address per hour, counted whether or not the
 * address typed has an account (so the limit tells nothing). 0 when allowed (*subject is
 * then the event to record with the request's writes), else the request was answered
 * (429 or 503). */
static int mail_form_limited(struct request *req, struct store *s, int64_t now, char subject[80])
{
    char h[VOTER_HASH_LEN + 1], addr[64];
    int64_t retry = 0;
    http_client_addr(req, addr, sizeof addr);
    voter_hash("ip", addr, h);
    snprintf(subject, 80, "mailform-ip:%s", h);
    int rc = app_rate_limited(s, subject, req->cfg->limits->mail_forms_per_ip,
                              ACCOUNT_MAIL_FORM_WINDOW_US, now, &retry);
    if (rc < 0) {
        unavailable(req, NULL, rc);
        return -1;
    }
    if (rc) {
        too_many(req, retry, "Too many sign-ups and password-reset requests from your network",
                 NULL);
        return 1;
    }
    return 0;
}

/* ---- sign-up ---------------------------------------------------------------------- */

static void signup_page(struct request *req, int status, const char *email, const char *error)
{
    char csrf[ACCOUNT_CSRF_LEN + 1];
    form_token(req, NULL, csrf);
    struct buf *b = &req->out;
    buf_reset(b);
    web_page_begin(b, "Create an account");
    html_raw(b, "<h1>Create an account</h1><p>An account lets you vote as yourself, with an "
                "optional rooting interest, and, once your email address is verified, create "
                "agent keys on the <a href=\"/developers\">developer page</a>.</p>");
    error_para(b, error);
    html_raw(b, "<form id=\"signup-form\" class=\"account-form\" method=\"post\" "
                "action=\"/account/signup\">");
    hidden(b, "csrf", csrf);
    html_raw(b, "<label>Email address <input type=\"email\" name=\"email\" "
                "autocomplete=\"email\" required maxlength=\"254\" value=\"");
    html_attr(b, email ? email : "");
    html_raw(b, "\"></label><label>Password <input type=\"password\" name=\"password\" "
                "autocomplete=\"new-password\" required minlength=\"10\" maxlength=\"256\">"
                "</label><p class=\"note\">At least 10 characters; the most common passwords "
                "are refused.</p><button type=\"submit\">Create account</button></form>"
                "<p>Already have an account? <a href=\"/account/signin\">Sign in</a>.</p>");
    web_page_end(b);
    web_reply_html(req, status);
}

void web_signup_form(struct request *req)
{
    if (web_no_query(req) < 0)
        return;
    signup_page(req, 200, NULL, NULL);
}

/* The answer to every accepted sign-up, whether or not the address had an account. */
static void check_inbox_page(struct request *req, const char *email, const char *what)
{
    struct buf *b = &req->out;
    buf_reset(b);
    web_page_begin(b, "Check your email");
    html_raw(b, "<h1>Check your email</h1><p class=\"notice\" id=\"check-inbox\">");
    html_text(b, what);
    html_raw(b, " <strong>");
    html_text(b, email);
    html_raw(b, "</strong>. It can take a few minutes to arrive; look in your spam folder "
                "too.</p><p><a href=\"/account/signin\">Sign in</a> · "
                "<a href=\"/developers\">Developers</a></p>");
    web_page_end(b);
    web_reply_html(req, 200);
}

void web_signup(struct request *req)
{
    static const char *const names[] = {"email", "password", "csrf", NULL};
    struct web_form f = {.names = names};
    char email[ACCOUNT_EMAIL_MAX + 2], pw_hash[ACCOUNT_PASSWORD_HASH_MAX];
    if (anon_post(req, &f) < 0)
        return;
    if (f.bad < 0) {
        signup_page(req, 400, NULL, f.err);
        return;
    }
    if (account_email_normalize(f.v[0], email) < 0) {
        signup_page(req, 400, f.v[0], "enter a valid email address");
        return;
    }
    const char *problem = f.v[1] ? account_password_problem(f.v[1], email) : "enter a password";
    if (problem) {
        signup_page(req, 400, email, problem);
        return;
    }
    char subject[80];
    int64_t now = time_now_us();
    struct store *s = thread_store(req);
    if (!s || mail_form_limited(req, s, now, subject) != 0)
        return;
    /* the hash is computed whether or not the address is taken: both answers take as long */
    if (account_password_hash(f.v[1], pw_hash) < 0) {
        web_error_page(req, 503, "the service is temporarily unavailable; retry later");
        return;
    }
    struct account_row a;
    int rc = store_begin_write(s);
    if (rc >= 0)
        rc = app_rate_record(s, subject, ACCOUNT_MAIL_FORM_WINDOW_US, now);
    if (rc >= 0)
        rc = accounts_by_email(s, email, &a);
    if (rc == 1) {
        rc = mail_already_registered(req, s, &a, now);
    } else if (rc == 0) {
        memset(&a, 0, sizeof a);
        uuid_v4(a.id);
        snprintf(a.email, sizeof a.email, "%s", email);
        rc = accounts_create(s, a.id, email, pw_hash, now);
        if (rc >= 0)
            rc = mail_link(req, s, &a, "verify", now);
    }
    if (rc >= 0)
        rc = store_commit(s);
    sodium_memzero(pw_hash, sizeof pw_hash);
    /* STORE_CONSTRAINT: a concurrent sign-up created the account (and sent its email) a
     * moment ago: the answer is the same as ever */
    if (rc == STORE_CONSTRAINT)
        store_rollback(s);
    else if (rc < 0) {
        unavailable(req, s, rc);
        return;
    }
    check_inbox_page(req, email, "To finish creating your account, open the link we sent to");
}

/* ---- email verification ----------------------------------------------------------- */

/* Looks a link's token up (read only): 1 valid (account in *t), or answers the page for an
 * unknown (400), used or expired (410) link and returns 0; negative store_rc. */
static int link_check(struct request *req, struct store *s, const char *token, const char *purpose,
                      int64_t now, struct account_token_row *t, char hash[65])
{
    bool verify = strcmp(purpose, "verify") == 0;
    const char *again = verify ? "Sign in and ask for a new verification email on the "
                                 "developer page."
                               : "Ask for a new link on the forgot-password page.";
    int rc = account_token_hash(token, hash) < 0 ? 0 : account_tokens_find(s, hash, purpose, t);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        web_error_page(req, 400,
                       "This link is not valid (it may be incomplete: copy the whole "
                       "link from the email). %s",
                       again);
        return 0;
    }
    switch (account_token_state(now, t->expires_at, t->used_at)) {
    case ACCOUNT_TOKEN_USED:
        web_error_page(req, 410, "This link was already used: each link works once. %s%s",
                       verify ? "If you opened it, your address is verified: sign in. " : "",
                       again);
        return 0;
    case ACCOUNT_TOKEN_EXPIRED:
        web_error_page(req, 410, "This link has expired (%s). %s",
                       verify ? "verification links last 24 hours" : "reset links last 1 hour",
                       again);
        return 0;
    default:
        return 1;
    }
}

/* The GET of an emailed link: its token when the link is valid, or NULL when the page for
 * a missing, unknown, used or expired link (or a 503) was answered. */
static const char *link_page(struct request *req, const char *purpose)
{
    static const struct qp_spec spec[] = {{"token", QP_ID, 0, 0, 0, NULL}};
    struct qp_value v[1];
    char err[300], hash[65];
    if (http_query_check(req, spec, 1, v, err, sizeof err) < 0 || !v[0].set) {
        web_error_page(req, 400, "%s",
                       v[0].set ? err
                                : "the link has no token: copy the whole link from the email");
        return NULL;
    }
    struct store *s = store_thread();
    struct account_token_row t;
    int rc = s ? link_check(req, s, v[0].s, purpose, time_now_us(), &t, hash) : STORE_GONE;
    if (rc < 0)
        unavailable(req, NULL, rc);
    return rc == 1 ? v[0].s : NULL;
}

void web_verify_form(struct request *req)
{
    const char *token = link_page(req, "verify");
    if (!token)
        return;
    /* the link only shows a button: mail scanners that open links change nothing (GET never
     * changes state) */
    char csrf[ACCOUNT_CSRF_LEN + 1];
    form_token(req, NULL, csrf);
    struct buf *b = &req->out;
    web_page_begin(b, "Verify your email address");
    html_raw(b, "<h1>Verify your email address</h1><p>Confirm that this is your address to "
                "finish setting up your account.</p><form id=\"verify-form\" "
                "class=\"account-form\" method=\"post\" action=\"/account/verify\">");
    hidden(b, "csrf", csrf);
    hidden(b, "token", token);
    html_raw(b, "<button type=\"submit\">Confirm my email address</button></form>");
    web_page_end(b);
    web_reply_html(req, 200);
}

void web_verify(struct request *req)
{
    static const char *const names[] = {"token", "csrf", NULL};
    struct web_form f = {.names = names};
    char hash[65];
    if (anon_post(req, &f) < 0)
        return;
    if (f.bad < 0) {
        web_error_page(req, 400, "%s", f.err);
        return;
    }
    struct store *s = thread_store(req);
    if (!s)
        return;
    int64_t now = time_now_us();
    struct account_token_row t;
    int rc = store_begin_write(s);
    if (rc >= 0)
        rc = link_check(req, s, f.v[0], "verify", now, &t, hash);
    if (rc == 0) { /* link_check answered */
        store_rollback(s);
        return;
    }
    if (rc == 1)
        rc = account_tokens_use(s, hash, now);
    if (rc == 0) { /* another request used it a moment ago */
        store_rollback(s);
        web_error_page(req, 410, "This link was already used: each link works once.");
        return;
    }
    if (rc == 1)
        rc = accounts_set_verified(s, t.account_id, now);
    if (rc >= 0)
        rc = store_commit(s);
    if (rc < 0) {
        unavailable(req, s, rc);
        return;
    }
    struct buf *b = &req->out;
    web_page_begin(b, "Email address verified");
    html_raw(b, "<h1>Email address verified</h1><p class=\"notice\" id=\"verified\">Your email "
                "address is verified. You can now create agent keys.</p><p><a "
                "href=\"/developers\">Go to the developer page</a> · <a "
                "href=\"/account/signin\">Sign in</a></p>");
    web_page_end(b);
    web_reply_html(req, 200);
}

void web_resend_verification(struct request *req)
{
    static const char *const names[] = {"csrf", NULL};
    struct web_form f = {.names = names};
    struct session_row sess;
    int signed_in;
    int64_t now = time_now_us();
    struct store *s = web_session_post(req, &f, now, &sess, false, &signed_in);
    if (!s)
        return;
    if (!sess.account.verified) {
        int rc = store_begin_write(s);
        if (rc >= 0)
            rc = mail_link(req, s, &sess.account, "verify", now);
        if (rc >= 0)
            rc = store_commit(s);
        if (rc < 0) {
            unavailable(req, s, rc);
            return;
        }
    }
    web_redirect(req, 303, sess.account.verified ? "/developers" : "/developers?notice=sent");
}

/* ---- sign-in and sign-out --------------------------------------------------------- */

static void signin_page(struct request *req, int status, const char *email, const char *next,
                        const char *error, const char *notice)
{
    char csrf[ACCOUNT_CSRF_LEN + 1];
    form_token(req, NULL, csrf);
    struct buf *b = &req->out;
    buf_reset(b);
    web_page_begin(b, "Sign in");
    html_raw(b, "<h1>Sign in</h1>");
    if (notice) {
        html_raw(b, "<p class=\"notice\" id=\"notice\">");
        html_text(b, notice);
        html_raw(b, "</p>");
    }
    error_para(b, error);
    html_raw(b, "<form id=\"signin-form\" class=\"account-form\" method=\"post\" "
                "action=\"/account/signin\">");
    hidden(b, "csrf", csrf);
    hidden(b, "next", account_safe_next(next));
    html_raw(b, "<label>Email address <input type=\"email\" name=\"email\" "
                "autocomplete=\"username\" required maxlength=\"254\" value=\"");
    html_attr(b, email ? email : "");
    html_raw(b, "\"></label><label>Password <input type=\"password\" name=\"password\" "
                "autocomplete=\"current-password\" required maxlength=\"256\"></label>"
                "<button type=\"submit\">Sign in</button></form><p><a "
                "href=\"/account/forgot\">Forgot your password?</a> · No account yet? <a "
                "href=\"/account/signup\">Create one</a>.</p>");
    web_page_end(b);
    web_reply_html(req, status);
}

static const char *const signin_notices[] = {"reset", "signedout", NULL};

void web_signin_form(struct request *req)
{
    static const struct qp_spec specs[] = {{"next", QP_PATH, 0, 0, 0, NULL},
                                           {"notice", QP_ENUM, 0, 0, 0, signin_notices}};
    struct qp_value v[2];
    char err[300];
    if (http_query_check(req, specs, 2, v, err, sizeof err) < 0) {
        web_error_page(req, 400, "%s", err);
        return;
    }
    const char *notice = NULL;
    if (v[1].set)
        notice = v[1].i == 0 ? "Your password is set. Sign in with it." : "You are signed out.";
    signin_page(req, 200, NULL, v[0].s, NULL, notice);
}

/* Failed sign-ins are limited per email address (registered or not, so the limit tells
 * nothing) and per client address, over a rolling window; a limited request is refused
 * before the password is even checked. The events share the ballot limits' table
 * (vote_events) under subjects of their own. */
static void signin_subjects(struct request *req, const char *email, char subj_email[80],
                            char subj_ip[80])
{
    char h[VOTER_HASH_LEN + 1], addr[64];
    voter_hash("signin-email", email, h);
    snprintf(subj_email, 80, "signin-email:%s", h);
    http_client_addr(req, addr, sizeof addr);
    voter_hash("ip", addr, h);
    snprintf(subj_ip, 80, "signin-ip:%s", h);
}

static int signin_limited(const struct whistle_limits *lim, struct store *s, const char *subj_email,
                          const char *subj_ip, int64_t now, int64_t *retry)
{
    int rc = app_rate_limited(s, subj_email, lim->signin_per_account, ACCOUNT_SIGNIN_WINDOW_US, now,
                              retry);
    if (rc != 0)
        return rc;
    return app_rate_limited(s, subj_ip, lim->signin_per_ip, ACCOUNT_SIGNIN_WINDOW_US, now, retry);
}

static int signin_failed(struct store *s, const char *subj_email, const char *subj_ip, int64_t now)
{
    int rc = store_begin_write(s);
    if (rc >= 0)
        rc = app_rate_record(s, subj_email, ACCOUNT_SIGNIN_WINDOW_US, now);
    if (rc >= 0)
        rc = app_rate_record(s, subj_ip, ACCOUNT_SIGNIN_WINDOW_US, now);
    if (rc >= 0)
        rc = store_commit(s);
    if (rc < 0)
        store_rollback(s);
    return rc;
}

void web_signin(struct request *req)
{
    static const char *const names[] = {"email", "password", "next", "csrf", NULL};
    struct web_form f = {.names = names};
    char email[ACCOUNT_EMAIL_MAX + 2], subj_email[80], subj_ip[80];
    if (anon_post(req, &f) < 0)
        return;
    if (f.bad < 0) {
        signin_page(req, 400, NULL, f.v[2], f.err, NULL);
        return;
    }
    if (account_email_normalize(f.v[0], email) < 0 || !f.v[1] || !f.v[1][0]) {
        signin_page(req, 400, f.v[0], f.v[2], "enter your email address and your password", NULL);
        return;
    }
    struct store *s = thread_store(req);
    if (!s)
        return;
    int64_t now = time_now_us(), retry = 0;
    signin_subjects(req, email, subj_email, subj_ip);
    int rc = signin_limited(req->cfg->limits, s, subj_email, subj_ip, now, &retry);
    if (rc < 0) {
        unavailable(req, NULL, rc);
        return;
    }
    if (rc == 1) {
        too_many(req, retry, "Too many failed sign-ins",
                 "or reset your password from the forgot-password page");
        return;
    }
    struct account_row a;
    rc = accounts_by_email(s, email, &a);
    if (rc < 0) {
        unavailable(req, NULL, rc);
        return;
    }
    /* a missing account or password costs one argon2id verification too */
    bool ok;
    if (rc == 1 && a.password_hash[0]) {
        ok = account_password_verify(a.password_hash, f.v[1]);
    } else {
        account_password_dummy_verify(f.v[1]);
        ok = false;
    }
    if (!ok) {
        rc = signin_failed(s, subj_email, subj_ip, now);
        if (rc < 0) {
            unavailable(req, NULL, rc);
            return;
        }
        signin_page(req, 403, email, f.v[2], "The email address or the password is wrong.", NULL);
        return;
    }
    if (a.banned) {
        web_error_page(req, 403, "This account is suspended.");
        return;
    }
    /* a new session for every sign-in; one this browser already had ends (a session is
     * never carried over, whoever it belonged to) */
    char cookie[ACCOUNT_COOKIE_LEN + 1], hash[ACCOUNT_TOKEN_HASH_HEX + 1], old[65];
    bool had = account_session_check(http_cookie(req, ACCOUNT_COOKIE_NAME), old);
    account_session_new(cookie, hash);
    rc = store_begin_write(s);
    if (rc >= 0 && had)
        rc = sessions_revoke(s, old, now);
    if (rc >= 0)
        rc = sessions_insert(s, hash, a.id, now, now + ACCOUNT_SESSION_TTL_US);
    if (rc >= 0)
        rc = store_commit(s);
    if (rc < 0) {
        sodium_memzero(cookie, sizeof cookie);
        unavailable(req, s, rc);
        return;
    }
    set_session_cookie(req, cookie);
    sodium_memzero(cookie, sizeof cookie);
    log_info("accounts", "sign-in rid=%s", req->id);
    web_redirect(req, 303, account_safe_next(f.v[2]));
}

void web_signout(struct request *req)
{
    static const char *const names[] = {"csrf", NULL};
    struct web_form f = {.names = names};
    struct session_row sess;
    int signed_in;
    int64_t now = time_now_us();
    struct store *s = web_session_post(req, &f, now, &sess, true, &signed_in);
    if (!s)
        return;
    if (signed_in) {
        int rc = store_begin_write(s);
        if (rc >= 0)
            rc = sessions_revoke(s, sess.hash, now);
        if (rc >= 0)
            rc = store_commit(s);
        if (rc < 0) {
            unavailable(req, s, rc);
            return;
        }
    }
    set_session_cookie(req, NULL);
    web_redirect(req, 303, "/account/signin?notice=signedout");
}

/* ---- forgotten and changed passwords ---------------------------------------------- */

static void forgot_page(struct request *req, int status, const char *email, const char *error)
{
    char csrf[ACCOUNT_CSRF_LEN + 1];
    form_token(req, NULL, csrf);
    struct buf *b = &req->out;
    buf_reset(b);
    web_page_begin(b, "Forgot your password?");
    html_raw(b, "<h1>Forgot your password?</h1><p>Enter the email address of your account: "
                "we will send it a link to choose a new password.</p>");
    error_para(b, error);
    html_raw(b, "<form id=\"forgot-form\" class=\"account-form\" method=\"post\" "
                "action=\"/account/forgot\">");
    hidden(b, "csrf", csrf);
    html_raw(b, "<label>Email address <input type=\"email\" name=\"email\" "
                "autocomplete=\"email\" required maxlength=\"254\" value=\"");
    html_attr(b, email ? email : "");
    html_raw(b, "\"></label><button type=\"submit\">Send the link</button></form>");
    web_page_end(b);
    web_reply_html(req, status);
}

void web_forgot_form(struct request *req)
{
    if (web_no_query(req) < 0)
        return;
    forgot_page(req, 200, NULL, NULL);
}

void web_forgot(struct request *req)
{
    static const char *const names[] = {"email", "csrf", NULL};
    struct web_form f = {.names = names};
    char email[ACCOUNT_EMAIL_MAX + 2];
    if (anon_post(req, &f) < 0)
        return;
    if (f.bad < 0) {
        forgot_page(req, 400, NULL, f.err);
        return;
    }
    if (account_email_normalize(f.v[0], email) < 0) {
        forgot_page(req, 400, f.v[0], "enter a valid email address");
        return;
    }
    char subject[80];
    int64_t now = time_now_us();
    struct store *s = thread_store(req);
    if (!s || mail_form_limited(req, s, now, subject) != 0)
        return;
    struct account_row a;
    int rc = store_begin_write(s);
    if (rc >= 0)
        rc = app_rate_record(s, subject, ACCOUNT_MAIL_FORM_WINDOW_US, now);
    if (rc >= 0)
        rc = accounts_by_email(s, email, &a);
    if (rc == 1 && !a.banned)
        rc = mail_link(req, s, &a, "reset", now);
    if (rc >= 0)
        rc = store_commit(s);
    if (rc < 0) {
        unavailable(req, s, rc);
        return;
    }
    check_inbox_page(req, email,
                     "If an account uses this address, we sent a link to choose a new password "
                     "(it works once, within 1 hour) to");
}

static void reset_page(struct request *req, int status, const char *token, const char *error)
{
    char csrf[ACCOUNT_CSRF_LEN + 1];
    form_token(req, NULL, csrf);
    struct buf *b = &req->out;
    buf_reset(b);
    web_page_begin(b, "Choose a new password");
    html_raw(b, "<h1>Choose a new password</h1><p>Setting a password signs out every session "
                "of your account.</p>");
    error_para(b, error);
    html_raw(b, "<form id=\"reset-form\" class=\"account-form\" method=\"post\" "
                "action=\"/account/reset\">");
    hidden(b, "csrf", csrf);
    hidden(b, "token", token);
    html_raw(b, "<label>New password <input type=\"password\" name=\"password\" "
                "autocomplete=\"new-password\" required minlength=\"10\" maxlength=\"256\">"
                "</label><p class=\"note\">At least 10 characters; the most common passwords "
                "are refused.</p><button type=\"submit\">Set the password</button></form>");
    web_page_end(b);
    web_reply_html(req, status);
}

void web_reset_form(struct request *req)
{
    const char *token = link_page(req, "reset");
    if (token)
        reset_page(req, 200, token, NULL);
}

void web_reset(struct request *req)
{
    static const char *const names[] = {"token", "password", "csrf", NULL};
    struct web_form f = {.names = names};
    char hash[65], pw_hash[ACCOUNT_PASSWORD_HASH_MAX];
    if (anon_post(req, &f) < 0)
        return;
    if (f.bad < 0 || !f.v[0]) {
        web_error_page(req, 400, "%s", f.bad < 0 ? f.err : "the form has no token");
        return;
    }
    struct store *s = thread_store(req);
    if (!s)
        return;
    int64_t now = time_now_us();
    struct account_token_row t;
    struct account_row a;
    int rc = link_check(req, s, f.v[0], "reset", now, &t, hash);
    if (rc == 1)
        rc = accounts_by_id(s, t.account_id, &a);
    if (rc < 0) {
        unavailable(req, NULL, rc);
        return;
    }
    if (rc == 0) {
        if (!req->answered)
            web_error_page(req, 400, "This link is not valid.");
        return;
    }
    const char *problem =
        f.v[1] ? account_password_problem(f.v[1], a.email) : "enter a new password";
    if (problem) {
        reset_page(req, 400, f.v[0], problem);
        return;
    }
    if (account_password_hash(f.v[1], pw_hash) < 0) {
        web_error_page(req, 503, "the service is temporarily unavailable; retry later");
        return;
    }
    /* one transaction: the link is spent, the password set, the address counts as verified
     * (the link proved the mailbox) and every session of the account ends */
    rc = store_begin_write(s);
    if (rc >= 0)
        rc = account_tokens_use(s, hash, now);
    if (rc == 0) {
        store_rollback(s);
        sodium_memzero(pw_hash, sizeof pw_hash);
        web_error_page(req, 410,
                       "This link was already used or has expired. Ask for a new "
                       "link on the forgot-password page.");
        return;
    }
    if (rc >= 0)
        rc = accounts_set_password(s, a.id, pw_hash, now);
    if (rc >= 0)
        rc = accounts_set_verified(s, a.id, now);
    if (rc >= 0)
        rc = account_tokens_spend_all(s, a.id, "reset", now);
    if (rc >= 0)
        rc = sessions_revoke_all(s, a.id, NULL, now);
    if (rc >= 0)
        rc = store_commit(s);
    sodium_memzero(pw_hash, sizeof pw_hash);
    if (rc < 0) {
        unavailable(req, s, rc);
        return;
    }
    set_session_cookie(req, NULL);
    web_redirect(req, 303, "/account/signin?notice=reset");
}

/* ---- the account page and password change ----------------------------------------- */

static const char *const account_notices[] = {"password", NULL};

static void account_page(struct request *req, int status, const struct session_row *sess,
                         const char *notice, const char *error)
{
    char csrf[ACCOUNT_CSRF_LEN + 1];
    form_token(req, sess, csrf);
    struct buf *b = &req->out;
    buf_reset(b);
    web_page_begin(b, "Your account");
    html_raw(b, "<h1>Your account</h1>");
    if (notice) {
        html_raw(b, "<p class=\"notice\" id=\"notice\">");
        html_text(b, notice);
        html_raw(b, "</p>");
    }
    html_raw(b, "<p>Signed in as <strong id=\"account-email\">");
    html_text(b, sess->account.email);
    html_raw(b, "</strong>. ");
    if (sess->account.verified) {
        html_raw(b, "<span id=\"email-state\">Your email address is verified.</span></p>");
    } else {
        html_raw(b, "<span id=\"email-state\">Your email address is not verified yet: open the "
                    "link we emailed you.</span></p><form id=\"resend-form\" "
                    "class=\"inline-form\" method=\"post\" "
                    "action=\"/account/resend-verification\">");
        hidden(b, "csrf", csrf);
        html_raw(b, "<button type=\"submit\">Send a new verification link</button></form>");
    }
    html_raw(b, "<p><a href=\"/developers\">Agent keys (developer page)</a></p>"
                "<form id=\"signout-form\" class=\"inline-form\" method=\"post\" "
                "action=\"/account/signout\">");
    hidden(b, "csrf", csrf);
    html_raw(b, "<button type=\"submit\">Sign out</button></form>"
                "<h2>Change your password</h2><p>Changing it signs out your other sessions."
                "</p>");
    error_para(b, error);
    html_raw(b, "<form id=\"password-form\" class=\"account-form\" method=\"post\" "
                "action=\"/account/password\">");
    hidden(b, "csrf", csrf);
    html_raw(b, "<label>Current password <input type=\"password\" name=\"current\" "
                "autocomplete=\"current-password\" required maxlength=\"256\"></label>"
                "<label>New password <input type=\"password\" name=\"password\" "
                "autocomplete=\"new-password\" required minlength=\"10\" maxlength=\"256\">"
                "</label><button type=\"submit\">Change password</button></form>");
    web_page_end(b);
    web_reply_html(req, status);
}

void web_account(struct request *req)
{
    static const struct qp_spec specs[] = {{"notice", QP_ENUM, 0, 0, 0, account_notices}};
    struct qp_value v[1];
    char err[300];
    if (http_query_check(req, specs, 1, v, err, sizeof err) < 0) {
        web_error_page(req, 400, "%s", err);
        return;
    }
    struct session_row sess;
    int signed_in;
    struct store *s = page_store(req, time_now_us(), &sess, &signed_in);
    if (!s)
        return;
    if (!signed_in) {
        web_redirect(req, 303, "/account/signin?next=/account");
        return;
    }
    account_page(req, 200, &sess,
                 v[0].set ? "Your password is changed; your other sessions are signed out." : NULL,
                 NULL);
}

void web_password(struct request *req)
{
    static const char *const names[] = {"current", "password", "csrf", NULL};
    struct web_form f = {.names = names};
    char subj_email[80], subj_ip[80], pw_hash[ACCOUNT_PASSWORD_HASH_MAX];
    struct session_row sess;
    int signed_in;
    int64_t now = time_now_us(), retry = 0;
    struct store *s = web_session_post(req, &f, now, &sess, false, &signed_in);
    if (!s)
        return;
    /* the current password is checked like a sign-in, under the same limits */
    signin_subjects(req, sess.account.email, subj_email, subj_ip);
    int rc = signin_limited(req->cfg->limits, s, subj_email, subj_ip, now, &retry);
    if (rc < 0) {
        unavailable(req, NULL, rc);
        return;
    }
    if (rc == 1) {
        too_many(req, retry, "Too many failed sign-ins",
                 "or reset your password from the forgot-password page");
        return;
    }
    if (!f.v[0] || !account_password_verify(sess.account.password_hash, f.v[0])) {
        if ((rc = signin_failed(s, subj_email, subj_ip, now)) < 0) {
            unavailable(req, NULL, rc);
            return;
        }
        account_page(req, 403, &sess, NULL, "The current password is wrong.");
        return;
    }
    const char *problem =
        f.v[1] ? account_password_problem(f.v[1], sess.account.email) : "enter a new password";
    if (problem) {
        account_page(req, 400, &sess, NULL, problem);
        return;
    }
    if (account_password_hash(f.v[1], pw_hash) < 0) {
        web_error_page(req, 503, "the service is temporarily unavailable; retry later");
        return;
    }
    /* every session ends, this one too: the browser gets a fresh session */
    char cookie[ACCOUNT_COOKIE_LEN + 1], hash[ACCOUNT_TOKEN_HASH_HEX + 1];
    account_session_new(cookie, hash);
    rc = store_begin_write(s);
    if (rc >= 0)
        rc = accounts_set_password(s, sess.account.id, pw_hash, now);
    if (rc >= 0)
        rc = sessions_revoke_all(s, sess.account.id, NULL, now);
    if (rc >= 0)
        rc = account_tokens_spend_all(s, sess.account.id, "reset", now);
    if (rc >= 0)
        rc = sessions_insert(s, hash, sess.account.id, now, now + ACCOUNT_SESSION_TTL_US);
    if (rc >= 0)
        rc = store_commit(s);
    sodium_memzero(pw_hash, sizeof pw_hash);
    if (rc < 0) {
        sodium_memzero(cookie, sizeof cookie);
        unavailable(req, s, rc);
        return;
    }
    set_session_cookie(req, cookie);
    sodium_memzero(cookie, sizeof cookie);
    web_redirect(req, 303, "/account?notice=password");
}
