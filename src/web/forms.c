/*
 * Form posts and sessions of the human pages (accounts.c, developers.c): reading an
 * application/x-www-form-urlencoded body, the same-origin and CSRF checks every state
 * change passes (an HTTP concern, before any use case is called), the signed-in session of
 * a request, and the use-case context of a request.
 *
 * Forms shown to anyone carry the token of the anonymous voter cookie (issued by the
 * form's page); forms of a signed-in user carry their session's token.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "app/accounts.h"
#include "domain/account.h"
#include "domain/voter.h"
#include "util/form.h"
#include "util/html.h"
#include "util/timefmt.h"
#include "util/urlhost.h"
#include "web/web.h"

bool web_same_origin(struct request *req)
{
    /* the Origin header, else the Referer; on a loopback base URL every loopback spelling
     * (localhost, 127.0.0.1, [::1]) with its scheme and port is the same origin */
    const char *origin = http_header(req, "Origin");
    return url_same_origin(req->cfg->base_url, origin ? origin : http_header(req, "Referer"));
}

const char *web_browser_origin(struct request *req)
{
    const char *base = req->cfg->base_url, *host = http_header(req, "Host");
    const char *sep = strstr(base, "://");
    if (!host || !sep || strcspn(host, "/?#@ ") != strlen(host))
        return base;
    char *mine = arena_printf(&req->arena, "%.*s://%s", (int)(sep - base), base, host);
    return mine && strcmp(mine, base) != 0 && url_same_origin(base, mine) ? mine : base;
}

struct app_ctx web_app_ctx(struct request *req, struct store *s, int64_t now)
{
    return (struct app_ctx){.s = s, .a = &req->arena, .now = now, .request_id = req->id};
}

int web_session(struct request *req, struct store *s, int64_t now, struct session_row *out)
{
    struct app_ctx c = web_app_ctx(req, s, now);
    return account_session(&c, http_cookie(req, ACCOUNT_COOKIE_NAME),
                           req->cfg->limits ? req->cfg->limits->staff_idle_us : 0, out);
}

const char *const web_csrf_only[] = {"csrf", NULL};

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
    int n = form_parse(&req->arena, req->body.p, req->body.len, pairs, 16);
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

/* The page a form was on, for the link back from a refusal: the path itself where a GET
 * answers it, else the page that shows the form. */
static const char *form_page(const char *path)
{
    if (strncmp(path, "/developers", 11) == 0)
        return "/developers";
    if (strcmp(path, "/account/resend-verification") == 0 ||
        strcmp(path, "/account/signout") == 0 || strcmp(path, "/account/password") == 0)
        return "/account";
    return path;
}

/* The form check of every POST: same origin, then the CSRF token of the session (sess) or,
 * without one, of the anonymous voter cookie. Answers 403 itself and returns -1. */
int web_post_guard(struct request *req, const struct session_row *sess, const char *csrf)
{
    if (!web_same_origin(req)) {
        web_form_refused(req, WEB_REFUSED_ORIGIN, form_page(req->path));
        return -1;
    }
    char vid[VOTER_ID_LEN + 1];
    bool ok = sess ? account_session_csrf_ok(sess->hash, csrf)
                   : voter_check_cookie(http_cookie(req, VOTER_COOKIE_NAME), vid) &&
                         voter_csrf_ok(vid, csrf);
    if (!ok) {
        web_form_refused(req, WEB_REFUSED_TOKEN, form_page(req->path));
        return -1;
    }
    return 0;
}

int web_anon_post(struct request *req, struct web_form *f)
{
    if (web_no_query(req) < 0)
        return -1;
    read_form(req, f);
    return web_post_guard(req, NULL, field(f, "csrf"));
}

void web_form_token(struct request *req, const struct session_row *sess,
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

void web_hidden(struct buf *b, const char *name, const char *value)
{
    html_fmt(b, "<input type=\"hidden\" name=\"%a\" value=\"%a\">", name, value);
}

void web_form_error(struct buf *b, const char *msg)
{
    web_text_if(b, "<p class=\"error\" role=\"alert\" id=\"form-error\">", msg, "</p>");
}

struct store *web_store(struct request *req)
{
    struct store *s = store_thread();
    if (!s)
        web_unavailable(req);
    return s;
}

struct store *web_page_store(struct request *req, int64_t now, struct session_row *sess,
                             int *signed_in)
{
    struct store *s = web_store(req);
    if (!s)
        return NULL;
    *signed_in = web_session(req, s, now, sess);
    if (*signed_in < 0) {
        web_unavailable(req);
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
    struct store *s = web_page_store(req, now, sess, signed_in);
    if (!s)
        return NULL;
    if (!*signed_in) {
        if (signed_out_ok)
            return s;
        web_form_refused(req, WEB_REFUSED_SIGNED_OUT, "/account/signin");
        return NULL;
    }
    if (web_post_guard(req, sess, field(f, "csrf")) < 0)
        return NULL;
    if (f->bad < 0) {
        web_error_page(req, 400, "%s", f->err);
        return NULL;
    }
    return s;
}

int web_session_form(struct request *req, struct web_post *p, const char *const *names)
{
    int signed_in;
    int64_t now = time_now_us();
    p->f = (struct web_form){.names = names};
    struct store *s = web_session_post(req, &p->f, now, &p->sess, false, &signed_in);
    if (!s)
        return -1;
    p->c = web_app_ctx(req, s, now);
    return 0;
}
