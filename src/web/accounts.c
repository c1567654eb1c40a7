/*
 * Browser accounts (issue 6; docs/accounts.md): the pages and forms of sign-up with email
 * verification, sign-in and sign-out, password reset and change. The rules and the
 * transactions are the use cases of app/accounts.h; a handler reads the form and passes
 * the origin and CSRF checks (forms.c), calls the use case and maps its outcome to a page,
 * a redirect or a status.
 */
#include <sodium.h>
#include <stdio.h>

#include "api/api.h"
#include "app/accounts.h"
#include "domain/account.h"
#include "util/html.h"
#include "util/log.h"
#include "util/timefmt.h"
#include "web/web.h"

/* ---- shared pieces ---------------------------------------------------------------- */

/* The session cookie (a new session's value, or NULL: cleared). */
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

/* Starts a page of forms: req->out emptied, the layout begun with title, <h1>title</h1>, the
 * notice (NULL: none), and in csrf the token its forms carry (the session's, or the anonymous
 * voter cookie's). */
static struct buf *form_page(struct request *req, const struct session_row *sess, const char *title,
                             const char *notice, char csrf[ACCOUNT_CSRF_LEN + 1])
{
    web_form_token(req, sess, csrf);
    struct buf *b = web_page_titled(req, title);
    web_text_if(b, "<p class=\"notice\" id=\"notice\">", notice, "</p>");
    return b;
}

/* The error (NULL: none), then the account form id opened, posting to action, with its CSRF
 * field. */
static void account_form(struct buf *b, const char *error, const char *csrf, const char *id,
                         const char *action)
{
    web_form_error(b, error);
    html_printf(b, "<form id=\"%s\" class=\"account-form\" method=\"post\" action=\"%s\">", id,
                action);
    web_hidden(b, "csrf", csrf);
}

/* A page of one form anyone may post: form_page (title, notice; the anonymous token), the
 * intro (markup; NULL: none), then account_form (error, id, action). Returns &req->out. */
static struct buf *anon_form_page(struct request *req, const char *title, const char *notice,
                                  const char *intro, const char *error, const char *id,
                                  const char *action)
{
    char csrf[ACCOUNT_CSRF_LEN + 1];
    struct buf *b = form_page(req, NULL, title, notice, csrf);
    if (intro)
        html_raw(b, intro);
    account_form(b, error, csrf, id, action);
    return b;
}

/* The email address field (autocomplete: "email" or "username"), filled with email (NULL:
 * empty). */
static void email_field(struct buf *b, const char *autocomplete, const char *email)
{
    html_fmt(b,
             "<label>Email address <input type=\"email\" name=\"email\" autocomplete=\"%r\" "
             "required maxlength=\"254\" value=\"%a\"></label>",
             autocomplete, email);
}

/* The new-password input of the forms that set a password (the rule: 10 to 256 bytes), and
 * the note that states the rule. */
#define NEW_PASSWORD_INPUT                                                                         \
    "<input type=\"password\" name=\"password\" autocomplete=\"new-password\" required "           \
    "minlength=\"10\" maxlength=\"256\"></label>"
#define NEW_PASSWORD_NOTE                                                                          \
    "<p class=\"note\">At least 10 characters; the most common passwords are refused.</p>"

/* The client address that rate limits count by (only its keyed hash is stored). */
static const char *client_addr(struct request *req, char addr[64])
{
    http_client_addr(req, addr, 64);
    return addr;
}

/* The thread's connection and the use-case context at now in *c: 0, or -1 after answering
 * 503. */
static int ctx_now(struct request *req, struct app_ctx *c)
{
    struct store *s = web_store(req);
    if (!s)
        return -1;
    *c = web_app_ctx(req, s, time_now_us());
    return 0;
}

/* The preamble of an anonymous account form post (web_anon_post) of the fields names, then
 * the store and the use-case context: 0 with p->f and p->c set (p->sess unused); 1 when the
 * form is malformed (the caller shows its form again with p->f.err); -1 when it answered
 * (400/403/503). */
static int anon_form_ctx(struct request *req, struct web_post *p, const char *const *names)
{
    p->f = (struct web_form){.names = names};
    if (web_anon_post(req, &p->f) < 0)
        return -1;
    if (p->f.bad < 0)
        return 1;
    return ctx_now(req, &p->c);
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

static void mail_forms_limited(struct request *req, int64_t retry)
{
    too_many(req, retry, "Too many sign-ups and password-reset requests from your network", NULL);
}

static void signins_limited(struct request *req, int64_t retry)
{
    too_many(req, retry, "Too many failed sign-ins",
             "or reset your password from the forgot-password page");
}

/* The answer for an emailed link that cannot be used (or 503). */
static void link_refused(struct request *req, enum account_link_kind kind, enum account_outcome o)
{
    bool verify = kind == ACCOUNT_LINK_VERIFY;
    const char *again = verify ? "Sign in and ask for a new verification email on the "
                                 "developer page."
                               : "Ask for a new link on the forgot-password page.";
    switch (o) {
    case ACCOUNT_LINK_UNKNOWN:
        web_error_page(req, 400,
                       "This link is not valid (it may be incomplete: copy the whole "
                       "link from the email). %s",
                       again);
        break;
    case ACCOUNT_LINK_USED:
        web_error_page(req, 410, "This link was already used: each link works once. %s%s",
                       verify ? "If you opened it, your address is verified: sign in. " : "",
                       again);
        break;
    case ACCOUNT_LINK_EXPIRED:
        web_error_page(req, 410, "This link has expired (%s). %s",
                       verify ? "verification links last 24 hours" : "reset links last 1 hour",
                       again);
        break;
    case ACCOUNT_LINK_TAKEN:
        if (verify)
            web_error_page(req, 410, "This link was already used: each link works once.");
        else
            web_error_page(req, 410,
                           "This link was already used or has expired. Ask for a new "
                           "link on the forgot-password page.");
        break;
    default:
        web_unavailable(req);
    }
}

/* ---- sign-up ---------------------------------------------------------------------- */

static void signup_page(struct request *req, int status, const char *email, const char *error)
{
    struct buf *b = anon_form_page(
        req, "Create an account", NULL,
        "<p>An account lets you vote as yourself, with an "
        "optional rooting interest, and, once your email address is verified, create "
        "agent keys on the <a href=\"/developers\">developer page</a>.</p>",
        error, "signup-form", "/account/signup");
    email_field(b, "email", email);
    html_raw(b, "<label>Password " NEW_PASSWORD_INPUT NEW_PASSWORD_NOTE
                "<button type=\"submit\">Create account</button></form>"
                "<p>Already have an account? <a href=\"/account/signin\">Sign in</a>.</p>");
    web_page_reply(req, status);
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
    struct buf *b = web_page_titled(req, "Check your email");
    html_fmt(b,
             "<p class=\"notice\" id=\"check-inbox\">%t <strong>%t</strong>. It can take a few "
             "minutes to arrive; look in your spam folder too.</p><p><a "
             "href=\"/account/signin\">Sign in</a> · <a href=\"/developers\">Developers</a></p>",
             what, email);
    web_page_reply(req, 200);
}

/*
 * A form that mails a link (sign-up, forgotten password; docs/accounts.md): its fields
 * (email first), its page (shown again on a malformed form or a refusal), its use case over
 * the form and the client's address, and the words of the "check your email" page.
 */
struct mail_form {
    const char *const *names;
    void (*page)(struct request *req, int status, const char *email, const char *error);
    enum account_outcome (*run)(struct request *req, const struct web_post *p, const char *addr,
                                struct account_result *r);
    const char *inbox;
};

/* The post of mail form m: the form read, the use case run, its outcome answered (the check
 * inbox page, the form again, 429 or 503). */
static void mail_form_post(struct request *req, const struct mail_form *m)
{
    struct web_post post;
    struct account_result r;
    char addr[64];
    int pre = anon_form_ctx(req, &post, m->names);
    if (pre > 0)
        m->page(req, 400, NULL, post.f.err);
    if (pre)
        return;
    switch (m->run(req, &post, client_addr(req, addr), &r)) {
    case ACCOUNT_OK:
        check_inbox_page(req, r.email, m->inbox);
        break;
    case ACCOUNT_BAD_EMAIL:
        m->page(req, 400, post.f.v[0], "enter a valid email address");
        break;
    case ACCOUNT_BAD_PASSWORD: /* sign-up only */
        m->page(req, 400, r.email, r.problem);
        break;
    case ACCOUNT_LIMITED:
        mail_forms_limited(req, r.retry_s);
        break;
    default:
        web_unavailable(req);
    }
}

/* The mail forms' use cases (struct mail_form.run) over the form's fields. */
static enum account_outcome signup_run(struct request *req, const struct web_post *p,
                                       const char *addr, struct account_result *r)
{
    return account_signup(&p->c, req->cfg->limits, req->cfg->base_url, p->f.v[0], p->f.v[1], addr,
                          r);
}

void web_signup(struct request *req)
{
    static const char *const names[] = {"email", "password", "csrf", NULL};
    static const struct mail_form signup = {
        names, signup_page, signup_run,
        "To finish creating your account, open the link we sent to"};
    mail_form_post(req, &signup);
}

/* ---- email verification ----------------------------------------------------------- */

/* The GET of an emailed link: its token when the link is valid, or NULL when the page for
 * a missing, unknown, used or expired link (or a 503) was answered. */
static const char *link_page(struct request *req, enum account_link_kind kind)
{
    static const struct qp_spec spec[] = {{"token", QP_ID, 0, 0, 0, NULL}};
    struct qp_value v[1];
    char err[300];
    if (http_query_check(req, spec, 1, v, err, sizeof err) < 0 || !v[0].set) {
        web_error_page(req, 400, "%s",
                       v[0].set ? err
                                : "the link has no token: copy the whole link from the email");
        return NULL;
    }
    struct app_ctx c;
    if (ctx_now(req, &c) < 0)
        return NULL;
    enum account_outcome o = account_link_check(&c, kind, v[0].s);
    if (o == ACCOUNT_OK)
        return v[0].s;
    link_refused(req, kind, o);
    return NULL;
}

void web_verify_form(struct request *req)
{
    const char *token = link_page(req, ACCOUNT_LINK_VERIFY);
    if (!token)
        return;
    /* the link only shows a button: mail scanners that open links change nothing (GET never
     * changes state) */
    struct buf *b = anon_form_page(
        req, "Verify your email address", NULL,
        "<p>Confirm that this is your address to finish setting up your account.</p>", NULL,
        "verify-form", "/account/verify");
    web_hidden(b, "token", token);
    html_raw(b, "<button type=\"submit\">Confirm my email address</button></form>");
    web_page_reply(req, 200);
}

void web_verify(struct request *req)
{
    static const char *const names[] = {"token", "csrf", NULL};
    struct web_post post;
    int pre = anon_form_ctx(req, &post, names);
    if (pre > 0)
        web_error_page(req, 400, "%s", post.f.err);
    if (pre)
        return;
    enum account_outcome o = account_verify(&post.c, post.f.v[0]);
    if (o != ACCOUNT_OK) {
        link_refused(req, ACCOUNT_LINK_VERIFY, o);
        return;
    }
    struct buf *b = web_page_titled(req, "Email address verified");
    html_raw(b, "<p class=\"notice\" id=\"verified\">Your email "
                "address is verified. You can now create agent keys.</p><p><a "
                "href=\"/developers\">Go to the developer page</a> · <a "
                "href=\"/account/signin\">Sign in</a></p>");
    web_page_reply(req, 200);
}

void web_resend_verification(struct request *req)
{
    struct web_post post;
    if (web_session_form(req, &post, web_csrf_only) < 0)
        return;
    switch (account_resend_verification(&post.c, req->cfg->base_url, &post.sess.account)) {
    case ACCOUNT_OK:
        web_redirect(req, 303, "/developers?notice=sent");
        break;
    case ACCOUNT_VERIFIED:
        web_redirect(req, 303, "/developers");
        break;
    default:
        web_unavailable(req);
    }
}

/* ---- sign-in and sign-out --------------------------------------------------------- */

static void signin_page(struct request *req, int status, const char *email, const char *next,
                        const char *error, const char *notice)
{
    struct buf *b =
        anon_form_page(req, "Sign in", notice, NULL, error, "signin-form", "/account/signin");
    web_hidden(b, "next", account_safe_next(next));
    email_field(b, "username", email);
    html_raw(b, "<label>Password <input type=\"password\" name=\"password\" "
                "autocomplete=\"current-password\" required maxlength=\"256\"></label>"
                "<button type=\"submit\">Sign in</button></form><p><a "
                "href=\"/account/forgot\">Forgot your password?</a> · No account yet? <a "
                "href=\"/account/signup\">Create one</a>.</p>");
    web_page_reply(req, status);
}

/* The second step of a sign-in with two-factor on: the code form, carrying the challenge. */
static void code_page(struct request *req, int status, const char *challenge, const char *next,
                      const char *error)
{
    struct buf *b = anon_form_page(req, "Two-factor code", NULL,
                                   "<p>Enter the 6-digit code your authenticator app shows "
                                   "for Whistle.</p>",
                                   error, "code-form", "/account/signin/code");
    web_hidden(b, "challenge", challenge);
    web_hidden(b, "next", account_safe_next(next));
    html_raw(b, "<label>Code <input name=\"code\" inputmode=\"numeric\" "
                "autocomplete=\"one-time-code\" pattern=\"[0-9]{6}\" maxlength=\"6\" required "
                "autofocus></label><button type=\"submit\">Sign in</button></form><p>The code "
                "form lasts five minutes: <a href=\"/account/signin\">sign in again</a> after "
                "that.</p>");
    web_page_reply(req, status);
}

static const char *const signin_notices[] = {"reset", "signedout", NULL};

void web_signin_form(struct request *req)
{
    static const struct qp_spec specs[] = {{"next", QP_PATH, 0, 0, 0, NULL},
                                           {"notice", QP_ENUM, 0, 0, 0, signin_notices}};
    struct qp_value v[2];
    if (web_query(req, specs, 2, v) < 0)
        return;
    const char *notice = NULL;
    if (v[1].set)
        notice = v[1].i == 0 ? "Your password is set. Sign in with it." : "You are signed out.";
    signin_page(req, 200, NULL, v[0].s, NULL, notice);
}

/* The outcomes both steps of a sign-in share: a session (303 to next with its cookie), a
 * limit, a suspended account, the store. */
static void signin_answer(struct request *req, int rc, struct account_result *r, const char *next)
{
    switch (rc) {
    case ACCOUNT_OK:
        set_session_cookie(req, r->cookie);
        account_result_wipe(r);
        log_info("accounts", "sign-in rid=%s", req->id);
        web_redirect(req, 303, account_safe_next(next));
        break;
    case ACCOUNT_LIMITED:
        signins_limited(req, r->retry_s);
        break;
    case ACCOUNT_SUSPENDED:
        web_error_page(req, 403, "This account is suspended.");
        break;
    default:
        web_unavailable(req);
    }
}

void web_signin(struct request *req)
{
    static const char *const names[] = {"email", "password", "next", "csrf", NULL};
    struct web_post post;
    struct account_result r;
    char addr[64];
    int pre = anon_form_ctx(req, &post, names);
    if (pre > 0)
        signin_page(req, 400, NULL, post.f.v[2], post.f.err, NULL);
    if (pre)
        return;
    int rc = account_signin(&post.c, req->cfg->limits, post.f.v[0], post.f.v[1],
                            client_addr(req, addr), http_cookie(req, ACCOUNT_COOKIE_NAME), &r);
    switch (rc) {
    case ACCOUNT_CODE_NEEDED:
        code_page(req, 200, r.challenge, post.f.v[2], NULL);
        account_result_wipe(&r);
        break;
    case ACCOUNT_MISSING:
        signin_page(req, 400, post.f.v[0], post.f.v[2],
                    "enter your email address and your password", NULL);
        break;
    case ACCOUNT_WRONG_PASSWORD:
        signin_page(req, 403, r.email, post.f.v[2], "The email address or the password is wrong.",
                    NULL);
        break;
    default:
        signin_answer(req, rc, &r, post.f.v[2]);
    }
}

void web_signin_code(struct request *req)
{
    static const char *const names[] = {"challenge", "code", "next", "csrf", NULL};
    struct web_post post;
    struct account_result r;
    char addr[64];
    int pre = anon_form_ctx(req, &post, names);
    if (pre > 0)
        code_page(req, 400, post.f.v[0] ? post.f.v[0] : "", post.f.v[2], post.f.err);
    if (pre)
        return;
    int rc = account_signin_code(&post.c, req->cfg->limits, post.f.v[0], post.f.v[1],
                                 client_addr(req, addr), http_cookie(req, ACCOUNT_COOKIE_NAME), &r);
    switch (rc) {
    case ACCOUNT_WRONG_CODE:
        code_page(req, 403, post.f.v[0] ? post.f.v[0] : "", post.f.v[2],
                  "The code is wrong or was used already (or this form is older than five "
                  "minutes): enter the next code, or sign in again.");
        break;
    default:
        signin_answer(req, rc, &r, post.f.v[2]);
    }
}

void web_signout(struct request *req)
{
    struct web_form f = {.names = web_csrf_only};
    struct session_row sess;
    int signed_in;
    int64_t now = time_now_us();
    struct store *s = web_session_post(req, &f, now, &sess, true, &signed_in);
    if (!s)
        return;
    struct app_ctx c = web_app_ctx(req, s, now);
    if (signed_in && account_signout(&c, sess.hash) != ACCOUNT_OK) {
        web_unavailable(req);
        return;
    }
    set_session_cookie(req, NULL);
    web_redirect(req, 303, "/account/signin?notice=signedout");
}

/* ---- forgotten and changed passwords ---------------------------------------------- */

static void forgot_page(struct request *req, int status, const char *email, const char *error)
{
    struct buf *b = anon_form_page(req, "Forgot your password?", NULL,
                                   "<p>Enter the email address of your account: "
                                   "we will send it a link to choose a new password.</p>",
                                   error, "forgot-form", "/account/forgot");
    email_field(b, "email", email);
    html_raw(b, "<button type=\"submit\">Send the link</button></form>");
    web_page_reply(req, status);
}

void web_forgot_form(struct request *req)
{
    if (web_no_query(req) < 0)
        return;
    forgot_page(req, 200, NULL, NULL);
}

static enum account_outcome forgot_run(struct request *req, const struct web_post *p,
                                       const char *addr, struct account_result *r)
{
    return account_forgot(&p->c, req->cfg->limits, p->f.v[0], addr, r);
}

void web_forgot(struct request *req)
{
    static const char *const names[] = {"email", "csrf", NULL};
    static const struct mail_form forgot = {
        names, forgot_page, forgot_run,
        "If an account uses this address, we sent a link to choose a new password (it works "
        "once, within 1 hour) to"};
    mail_form_post(req, &forgot);
}

static void reset_page(struct request *req, int status, const char *token, const char *error)
{
    struct buf *b = anon_form_page(req, "Choose a new password", NULL,
                                   "<p>Setting a password signs out every session "
                                   "of your account.</p>",
                                   error, "reset-form", "/account/reset");
    web_hidden(b, "token", token);
    html_raw(b, "<label>New password " NEW_PASSWORD_INPUT NEW_PASSWORD_NOTE
                "<button type=\"submit\">Set the password</button></form>");
    web_page_reply(req, status);
}

void web_reset_form(struct request *req)
{
    const char *token = link_page(req, ACCOUNT_LINK_RESET);
    if (token)
        reset_page(req, 200, token, NULL);
}

void web_reset(struct request *req)
{
    static const char *const names[] = {"token", "password", "csrf", NULL};
    struct web_form f = {.names = names};
    struct account_result r;
    if (web_anon_post(req, &f) < 0)
        return;
    if (f.bad < 0 || !f.v[0]) {
        web_error_page(req, 400, "%s", f.bad < 0 ? f.err : "the form has no token");
        return;
    }
    struct app_ctx c;
    if (ctx_now(req, &c) < 0)
        return;
    enum account_outcome o = account_reset(&c, req->cfg->limits, f.v[0], f.v[1], &r);
    if (o == ACCOUNT_BAD_PASSWORD) {
        reset_page(req, 400, f.v[0], r.problem);
    } else if (o != ACCOUNT_OK) {
        link_refused(req, ACCOUNT_LINK_RESET, o);
    } else {
        set_session_cookie(req, NULL);
        web_redirect(req, 303, "/account/signin?notice=reset");
    }
}

/* ---- the account page and password change ----------------------------------------- */

static const char *const account_notices[] = {"password", "totp-on", "totp-off", NULL};

/* The two-factor section of a staff member's account page. */
static void totp_section(struct request *req, struct buf *b, const struct session_row *sess,
                         const char *csrf)
{
    bool on = false, pending = false;
    struct app_ctx c = web_app_ctx(req, store_thread(), time_now_us());
    html_raw(b, "<h2>Two-factor sign-in</h2>");
    if (!c.s || account_totp_state(&c, sess->account.id, &on, &pending) != APP_OK) {
        html_raw(b, "<p>The two-factor state cannot be read right now.</p>");
        return;
    }
    html_raw(b, on ? "<p id=\"totp-state\">Two-factor sign-in is <strong>on</strong>: signing "
                     "in asks for a code of your authenticator app.</p>"
                   : "<p id=\"totp-state\">Two-factor sign-in is <strong>off</strong>. Turn it "
                     "on with an authenticator app (TOTP, RFC 6238).</p>");
    html_raw(b, on ? "<form id=\"totp-disable-form\" class=\"account-form\" method=\"post\" "
                     "action=\"/account/totp/disable\">"
                   : "<form id=\"totp-begin-form\" class=\"account-form\" method=\"post\" "
                     "action=\"/account/totp\">");
    web_hidden(b, "csrf", csrf);
    html_fmt(b,
             "<label>Your password <input type=\"password\" name=\"password\" "
             "autocomplete=\"current-password\" required maxlength=\"256\"></label>%r",
             on ? "<button type=\"submit\">Turn two-factor off</button></form>"
                : "<button type=\"submit\">Turn two-factor on</button></form>");
}

static void account_page(struct request *req, int status, const struct session_row *sess,
                         const char *notice, const char *error)
{
    char csrf[ACCOUNT_CSRF_LEN + 1];
    struct buf *b = form_page(req, sess, "Your account", notice, csrf);
    html_fmt(b, "<p>Signed in as <strong id=\"account-email\">%t</strong>. ", sess->account.email);
    if (sess->account.verified) {
        html_raw(b, "<span id=\"email-state\">Your email address is verified.</span></p>");
    } else {
        html_raw(b, "<span id=\"email-state\">Your email address is not verified yet: open the "
                    "link we emailed you.</span></p><form id=\"resend-form\" "
                    "class=\"inline-form\" method=\"post\" "
                    "action=\"/account/resend-verification\">");
        web_hidden(b, "csrf", csrf);
        html_raw(b, "<button type=\"submit\">Send a new verification link</button></form>");
    }
    html_raw(b, "<p><a id=\"profile-link\" href=\"/account/profile\">Public profile</a></p>");
    html_raw(b, "<p><a href=\"/developers\">Agent keys (developer page)</a></p>"
                "<form id=\"signout-form\" class=\"inline-form\" method=\"post\" "
                "action=\"/account/signout\">");
    web_hidden(b, "csrf", csrf);
    html_raw(b, "<button type=\"submit\">Sign out</button></form>"
                "<h2>Change your password</h2><p>Changing it signs out your other sessions."
                "</p>");
    account_form(b, error, csrf, "password-form", "/account/password");
    html_raw(b, "<label>Current password <input type=\"password\" name=\"current\" "
                "autocomplete=\"current-password\" required maxlength=\"256\"></label>"
                "<label>New password " NEW_PASSWORD_INPUT
                "<button type=\"submit\">Change password</button></form>");
    if (sess->staff)
        totp_section(req, b, sess, csrf);
    web_page_reply(req, status);
}

void web_account(struct request *req)
{
    static const struct qp_spec specs[] = {{"notice", QP_ENUM, 0, 0, 0, account_notices}};
    struct qp_value v[1];
    if (web_query(req, specs, 1, v) < 0)
        return;
    struct session_row sess;
    int signed_in;
    struct store *s = web_page_store(req, time_now_us(), &sess, &signed_in);
    if (!s)
        return;
    if (!signed_in) {
        web_redirect(req, 303, "/account/signin?next=/account");
        return;
    }
    static const char *const said[] = {
        "Your password is changed; your other sessions are signed out.",
        "Two-factor sign-in is on: signing in now asks for a code.", "Two-factor sign-in is off."};
    account_page(req, 200, &sess, v[0].set ? said[v[0].i] : NULL, NULL);
}

void web_password(struct request *req)
{
    static const char *const names[] = {"current", "password", "csrf", NULL};
    struct web_post post;
    struct account_result r;
    char addr[64];
    if (web_session_form(req, &post, names) < 0)
        return;
    switch (account_password_change(&post.c, req->cfg->limits, &post.sess.account, post.f.v[0],
                                    post.f.v[1], client_addr(req, addr), &r)) {
    case ACCOUNT_OK:
        set_session_cookie(req, r.cookie);
        account_result_wipe(&r);
        web_redirect(req, 303, "/account?notice=password");
        break;
    case ACCOUNT_LIMITED:
        signins_limited(req, r.retry_s);
        break;
    case ACCOUNT_WRONG_PASSWORD:
        account_page(req, 403, &post.sess, NULL, "The current password is wrong.");
        break;
    case ACCOUNT_BAD_PASSWORD:
        account_page(req, 400, &post.sess, NULL, r.problem);
        break;
    default:
        web_unavailable(req);
    }
}

/* ---- two-factor enrolment (staff) ---- */

/* The confirmation form (with the secret when it was just made). */
static void totp_setup_page(struct request *req, int status, const struct session_row *sess,
                            const struct totp_enrolment *e, const char *error)
{
    char csrf[ACCOUNT_CSRF_LEN + 1];
    struct buf *b = form_page(req, sess, "Turn on two-factor sign-in", NULL, csrf);
    if (e) {
        html_fmt(b,
                 "<p>Add this key to your authenticator app (it is shown this once), then "
                 "enter the code the app shows.</p><dl class=\"facts\"><dt>Key (base32)</dt>"
                 "<dd><code id=\"totp-secret\">%t</code></dd><dt>Or open this link in the "
                 "app</dt><dd><code id=\"totp-uri\" class=\"wrap\">%t</code></dd></dl>",
                 e->base32, e->uri);
    }
    account_form(b, error, csrf, "totp-confirm-form", "/account/totp/confirm");
    html_raw(b, "<label>Code <input name=\"code\" inputmode=\"numeric\" "
                "autocomplete=\"one-time-code\" pattern=\"[0-9]{6}\" maxlength=\"6\" required>"
                "</label><button type=\"submit\">Turn on</button></form><p><a "
                "href=\"/account\">Back to your account</a> (two-factor stays off until a code "
                "confirms it)</p>");
    web_page_reply(req, status);
}

/* The refusals of the two-factor forms, one answer each. */
static void totp_refused(struct request *req, int rc, const struct account_result *r,
                         const struct session_row *sess)
{
    switch (rc) {
    case ACCOUNT_NOT_STAFF:
        web_error_page(req, 403, "two-factor sign-in is for moderators, editors and admins");
        break;
    case ACCOUNT_TOTP_ON:
        web_error_page(req, 409, "two-factor sign-in is on already");
        break;
    case ACCOUNT_TOTP_NONE:
        web_error_page(req, 409,
                       "two-factor sign-in is off, or no set-up is waiting: start "
                       "again on /account");
        break;
    case ACCOUNT_WRONG_CODE:
        totp_setup_page(req, 403, sess, NULL,
                        "The code is wrong: enter the code your app shows now.");
        break;
    case ACCOUNT_LIMITED:
        signins_limited(req, r->retry_s);
        break;
    case ACCOUNT_WRONG_PASSWORD:
        account_page(req, 403, sess, NULL, "The password is wrong.");
        break;
    default:
        web_unavailable(req);
    }
}

void web_totp_begin(struct request *req)
{
    static const char *const names[] = {"password", "csrf", NULL};
    struct web_post post;
    struct account_result r;
    struct totp_enrolment e;
    char addr[64];
    if (web_session_form(req, &post, names) < 0)
        return;
    int rc = account_totp_begin(&post.c, req->cfg->limits, &post.sess.account, post.sess.staff,
                                post.f.v[0], client_addr(req, addr), &e, &r);
    if (rc != ACCOUNT_OK) {
        totp_refused(req, rc, &r, &post.sess);
        return;
    }
    totp_setup_page(req, 200, &post.sess, &e, NULL);
    sodium_memzero(e.base32, sizeof e.base32);
}

void web_totp_confirm(struct request *req)
{
    static const char *const names[] = {"code", "csrf", NULL};
    struct web_post post;
    if (web_session_form(req, &post, names) < 0)
        return;
    struct account_result r = {0};
    int rc = account_totp_confirm(&post.c, &post.sess.account, post.f.v[0]);
    if (rc != ACCOUNT_OK)
        totp_refused(req, rc, &r, &post.sess);
    else
        web_redirect(req, 303, "/account?notice=totp-on");
}

void web_totp_disable(struct request *req)
{
    static const char *const names[] = {"password", "csrf", NULL};
    struct web_post post;
    struct account_result r;
    char addr[64];
    if (web_session_form(req, &post, names) < 0)
        return;
    int rc = account_totp_disable(&post.c, req->cfg->limits, &post.sess.account, post.f.v[0],
                                  client_addr(req, addr), &r);
    if (rc != ACCOUNT_OK)
        totp_refused(req, rc, &r, &post.sess);
    else
        web_redirect(req, 303, "/account?notice=totp-off");
}
