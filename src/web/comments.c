/*
 * The discussion under an incident (issue 15; docs/comments.md): the section of the
 * incident page, and the forms that post, reply, edit, delete and report. Everything works
 * without JavaScript: forms POST (CSRF token + same-origin), the server answers 303 back
 * to the comment, or, when it refuses, a page that keeps the typed text with the reason.
 */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "app/comments.h"
#include "domain/account.h"
#include "domain/limits.h"
#include "util/html.h"
#include "util/timefmt.h"
#include "web/commentkit.h"
#include "web/web.h"

#define PAGE_SIZE 20

static const char *const sorts[] = {"newest", "oldest", NULL};

int web_comment_no_credential(struct request *req)
{
    if (!http_header(req, "Authorization"))
        return 0;
    web_error_page(req, 403,
                   "comments take a signed-in browser session only: agent keys and scout "
                   "credentials cannot comment");
    return -1;
}

void web_comment_unavailable(struct request *req)
{
    web_unavailable(req);
}

/* Escaped text of [p, p + n), line breaks as <br>. */
static void text_run(struct buf *b, struct arena *a, const char *p, size_t n)
{
    const char *end = p + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = (size_t)((nl ? nl : end) - p);
        html_text(b, arena_strndup(a, p, len));
        if (!nl)
            break;
        html_raw(b, "<br>");
        p = nl + 1;
    }
}

static bool url_char(unsigned char c)
{
    return c > 0x20 && c != 0x7F && c != '<' && c != '>' && c != '"';
}

void web_comment_body(struct buf *b, struct arena *a, const char *body)
{
    const char *p = body, *run = body;
    while (*p) {
        bool http = strncmp(p, "http://", 7) == 0, https = strncmp(p, "https://", 8) == 0;
        if ((!http && !https) || (p > body && url_char((unsigned char)p[-1]))) {
            p++;
            continue;
        }
        const char *e = p + (https ? 8 : 7);
        while (*e && url_char((unsigned char)*e))
            e++;
        /* punctuation that ends a sentence is not part of the link */
        while (e > p && strchr(".,;:!?)]'", e[-1]))
            e--;
        if (e - p <= (https ? 8 : 7)) {
            p++;
            continue;
        }
        text_run(b, a, run, (size_t)(p - run));
        const char *url = arena_strndup(a, p, (size_t)(e - p));
        html_fmt(b, "<a href=\"%a\" rel=\"nofollow ugc noopener\">%t</a>", url, url);
        p = run = e;
    }
    text_run(b, a, run, (size_t)(p - run));
}

static const char *badge_words(const char *badge)
{
    if (!badge)
        return NULL;
    if (strcmp(badge, "admin") == 0)
        return "Whistle staff";
    if (strcmp(badge, "editor") == 0)
        return "Editor";
    return "Moderator";
}

void web_comment_byline(struct buf *b, const struct comment *c)
{
    html_fmt(b, "<p class=\"byline\"><strong class=\"author\">%t</strong>",
             c->display_name ? c->display_name : "(no name)");
    const char *badge = badge_words(c->badge);
    web_text_if(b, " <span class=\"badge\">", badge, "</span>");
    html_raw(b, " · ");
    web_time(b, c->created_at);
    if (c->edited_at != INT64_MIN)
        html_raw(b, " · <span class=\"edited\">edited</span>");
    if (c->featured)
        html_raw(b, " · <span class=\"featured\">Featured</span>");
    html_raw(b, "</p>");
}

int web_comment_status(struct request *req, int outcome, const struct comment_result *r)
{
    switch (outcome) {
    case COMMENT_INVALID:
        return 400;
    case COMMENT_MISSING:
        return 404;
    case COMMENT_FORBIDDEN:
    case COMMENT_NEEDS_NAME:
        return 403;
    case COMMENT_MERGED:
    case COMMENT_CLOSED:
    case COMMENT_TAKEN:
        return 409;
    case COMMENT_RATE_LIMITED: {
        char ra[24];
        snprintf(ra, sizeof ra, "%lld", (long long)(r->retry_s > 0 ? r->retry_s : 1));
        reply_header(req, "Retry-After", arena_strdup(&req->arena, ra));
        return 429;
    }
    default:
        return 503;
    }
}

bool web_comment_refused(struct request *req, int rc, const struct comment_result *r)
{
    if (rc == COMMENT_OK)
        return false;
    if (rc == APP_UNAVAILABLE)
        web_comment_unavailable(req);
    else
        web_error_page(req, web_comment_status(req, rc, r), "%s", r->message);
    return true;
}

/* ---- the discussion section ---------------------------------------------------------- */

struct viewer {
    const char *account_id; /* NULL: not signed in */
    const char *csrf;
    bool can_comment;
    const char *key; /* the incident's page key */
};

static void body_field(struct buf *b, const char *id, const char *text)
{
    html_fmt(b,
             "<textarea name=\"body\" id=\"%a\" rows=\"4\" required minlength=\"2\" "
             "maxlength=\"2000\">%t</textarea>",
             id, text);
}

static void compose_form(struct buf *b, const struct viewer *v, const char *parent,
                         const char *text)
{
    html_fmt(b, "<form class=\"comment-form\" method=\"post\" action=\"/incidents/%a/comments\"",
             v->key);
    if (!parent)
        html_raw(b, " id=\"comment-form\"");
    html_raw(b, ">");
    web_hidden(b, "csrf", v->csrf);
    if (parent)
        web_hidden(b, "parent_id", parent);
    html_fmt(b, "<label>%r (2–2,000 characters; plain text, links allowed)",
             parent ? "Your reply" : "Your comment");
    body_field(b, parent ? "reply-body" : "comment-body", text);
    html_fmt(b, "</label><button type=\"submit\">%r</button></form>",
             parent ? "Post reply" : "Post comment");
}

static void actions(struct buf *b, const struct viewer *v, const struct comment *c, bool top,
                    int64_t now)
{
    if (!v->can_comment || !c->visible) {
        if (v->account_id && strcmp(c->account_id, v->account_id) == 0 &&
            strcmp(c->status, COMMENT_PENDING) == 0 && v->can_comment)
            goto own;
        return;
    }
    html_raw(b, "<div class=\"comment-actions\">");
    if (top) {
        html_raw(b, "<details class=\"reply\"><summary>Reply</summary>");
        compose_form(b, v, c->id, NULL);
        html_raw(b, "</details>");
    }
    if (strcmp(c->account_id, v->account_id) != 0) {
        html_fmt(b,
                 "<details class=\"report\"><summary>Report</summary><form "
                 "class=\"report-form\" method=\"post\" action=\"/comments/%a/report\">",
                 c->id);
        web_hidden(b, "csrf", v->csrf);
        html_raw(b, "<label>Why? <select name=\"reason\">");
        for (size_t i = 0; comment_report_reasons[i]; i++) {
            html_fmt(b, "<option value=\"%a\">%t</option>", comment_report_reasons[i],
                     comment_report_reason_labels[i]);
        }
        html_raw(b, "</select></label> <button type=\"submit\">Report</button></form></details>");
        html_raw(b, "</div>");
        return;
    }
    html_raw(b, "</div>");
own:
    html_raw(b, "<div class=\"comment-actions own\">");
    if (comment_edit_open(c->created_at, now)) {
        html_fmt(b, "<a class=\"edit\" href=\"/comments/%a/edit\">Edit</a> ", c->id);
    }
    html_fmt(b,
             "<form class=\"inline-form delete-form\" method=\"post\" "
             "action=\"/comments/%a/delete\">",
             c->id);
    web_hidden(b, "csrf", v->csrf);
    html_raw(b, "<button type=\"submit\">Delete</button></form></div>");
}

static void one_comment(struct request *req, const struct viewer *v, const struct comment *c,
                        bool top, int64_t now)
{
    struct buf *b = &req->out;
    html_fmt(b, "<li class=\"comment\" id=\"c-%a\" data-status=\"%a\">", c->id,
             c->visible ? "published" : c->status);
    if (c->visible || strcmp(c->status, COMMENT_PENDING) == 0) {
        web_comment_byline(b, c);
        if (!c->visible)
            html_raw(b, "<p class=\"pending-note\">Awaiting review: only you can see this "
                        "comment until a moderator approves it.</p>");
        html_raw(b, "<div class=\"comment-body\">");
        web_comment_body(b, &req->arena, c->body);
        html_raw(b, "</div>");
    } else if (strcmp(c->status, COMMENT_DELETED) == 0) {
        html_raw(b, "<p class=\"placeholder\">This comment was deleted by its author.</p>");
    } else {
        html_raw(b, "<p class=\"placeholder\">This comment is hidden.</p>");
    }
    actions(b, v, c, top, now);
}

void web_discussion(struct request *req, const struct app_ctx *c, const struct incident *inc,
                    const struct session_row *sess, const char *key, const char *csrf)
{
    static const struct qp_spec specs[] = {{"comments", QP_ENUM, 0, 0, 0, sorts},
                                           {"cpage", QP_INT, 1, 5000, 1, NULL}};
    struct qp_value q[2];
    char err[200];
    bool newest = true;
    int64_t page = 1;
    /* the incident page takes no other parameter; a malformed one falls back to defaults */
    if (http_query_check(req, specs, 2, q, err, sizeof err) == 0) {
        newest = !q[0].set || strcmp(q[0].s, "newest") == 0;
        page = q[1].i;
    }
    struct comment_discussion d;
    struct buf *b = &req->out;
    html_fmt(b,
             "<section id=\"discussion\"><h2>Discussion (<span id=\"comment-count\">%lld</span>"
             ")</h2>",
             (long long)inc->comment_count);
    if (comments_read_discussion(c, inc->id, inc->comment_count, sess ? sess->account.id : NULL,
                                 newest, PAGE_SIZE, (page - 1) * PAGE_SIZE, &d) != COMMENT_OK) {
        html_raw(b, "<p class=\"error\">The discussion cannot be shown right now; reload "
                    "the page in a moment.</p></section>");
        return;
    }
    struct viewer v = {.account_id = sess ? sess->account.id : NULL, .csrf = csrf, .key = key};
    v.can_comment = sess && d.verified && !d.suspended && d.display_name[0];
    html_fmt(b, "<p class=\"sort\">Sort: %r · %r</p>",
             newest ? "<strong>Newest first</strong>"
                    : "<a href=\"?comments=newest#discussion\""
                      ">Newest first</a>",
             newest ? "<a href=\"?comments=oldest#discussion\">Oldest first</a>"
                    : "<strong>Oldest first</strong>");
    if (!sess) {
        html_fmt(b,
                 "<p class=\"join\" id=\"comment-signin\"><a "
                 "href=\"/account/signin?next=/incidents/%a\">Sign in</a> to join the "
                 "discussion.</p>",
                 key);
    } else if (d.suspended) {
        html_raw(b, "<p class=\"join\" id=\"comment-suspended\">This account is suspended and "
                    "cannot comment.</p>");
    } else if (!d.verified) {
        html_raw(b, "<p class=\"join\" id=\"comment-verify\">Verify your email address to "
                    "comment (see <a href=\"/account\">your account</a>).</p>");
    } else if (!d.display_name[0]) {
        html_raw(b, "<p class=\"join\" id=\"comment-name\"><a href=\"/account/profile\">Choose "
                    "a public display name</a> to comment.</p>");
    } else {
        html_fmt(b,
                 "<p class=\"join\">Commenting as <strong id=\"commenting-as\">%t</strong>. A "
                 "new account's first comments wait for a moderator before they are shown.</p>",
                 d.display_name);
        compose_form(b, &v, NULL, NULL);
    }
    if (d.n == 0 && page == 1)
        html_raw(b, "<p id=\"no-comments\">No comments yet.</p>");
    html_raw(b, "<ol class=\"comments\">");
    for (size_t i = 0; i < d.n; i++) {
        one_comment(req, &v, &d.threads[i].c, true, c->now);
        if (d.threads[i].nreplies) {
            html_raw(b, "<ol class=\"replies\">");
            for (size_t k = 0; k < d.threads[i].nreplies; k++) {
                one_comment(req, &v, &d.threads[i].replies[k], false, c->now);
                html_raw(b, "</li>");
            }
            html_raw(b, "</ol>");
        }
        html_raw(b, "</li>");
    }
    html_raw(b, "</ol>");
    if (page > 1 || d.more) {
        html_raw(b, "<nav class=\"pages\" aria-label=\"Comment pages\">");
        if (page > 1)
            html_printf(b,
                        "<a rel=\"prev\" href=\"?comments=%s&amp;cpage=%lld#discussion\">"
                        "Previous comments</a> ",
                        newest ? "newest" : "oldest", (long long)(page - 1));
        if (d.more)
            html_printf(b,
                        "<a rel=\"next\" href=\"?comments=%s&amp;cpage=%lld#discussion\">"
                        "More comments</a>",
                        newest ? "newest" : "oldest", (long long)(page + 1));
        html_raw(b, "</nav>");
    }
    html_raw(b, "</section>");
}

/* ---- refusals that keep the typed text --------------------------------------------- */

/* The page of a refused post or edit: the reason and the form again with the text, posting
 * to action with the CSRF token of the session sess. */
static void compose_page(struct request *req, int status, const char *title, const char *action,
                         const struct session_row *sess, const char *parent, const char *text,
                         const char *reason, const char *back)
{
    char csrf[ACCOUNT_CSRF_LEN + 1];
    account_session_csrf(sess->hash, csrf);
    struct buf *b = web_page_titled(req, title);
    web_form_error(b, reason);
    html_fmt(b, "<form id=\"comment-form\" class=\"comment-form\" method=\"post\" action=\"%a\">",
             action);
    web_hidden(b, "csrf", csrf);
    if (parent && parent[0])
        web_hidden(b, "parent_id", parent);
    html_raw(b, "<label>Your comment (2–2,000 characters)");
    body_field(b, "comment-body", text);
    html_raw(b, "</label><button type=\"submit\">Save</button></form>");
    if (back) {
        html_fmt(b, "<p><a id=\"back\" href=\"%a\">Back to the discussion</a></p>", back);
    }
    web_page_reply(req, status);
}

static const char *incident_path(struct request *req, const char *key, const char *id)
{
    struct buf p = BUF_INIT;
    buf_printf(&p, "/incidents/%s", key);
    if (id)
        buf_printf(&p, "#c-%s", id);
    else
        buf_printf(&p, "#discussion");
    const char *v = arena_strdup(&req->arena, p.p);
    buf_release(&p);
    return v;
}

/* The end of a comment post or edit that is settled: 303 to the comment (COMMENT_OK) or the
 * 503 page (APP_UNAVAILABLE). True when it answered; false leaves the refusal to the caller,
 * which shows the form again. */
static bool settled(struct request *req, int rc, const struct comment_result *r)
{
    if (rc == COMMENT_OK)
        web_redirect(req, 303, incident_path(req, r->incident_key, r->id));
    else if (rc == APP_UNAVAILABLE)
        web_comment_unavailable(req);
    else
        return false;
    return true;
}

int web_comment_form(struct request *req, struct web_post *p, const char *const *names)
{
    if (web_comment_no_credential(req) < 0)
        return -1;
    return web_session_form(req, p, names);
}

void web_comment_post(struct request *req)
{
    static const char *const names[] = {"body", "parent_id", "csrf", NULL};
    struct web_post post;
    if (web_comment_form(req, &post, names) < 0)
        return;
    char addr[64];
    http_client_addr(req, addr, sizeof addr);
    struct comment_post in = {.account_id = post.sess.account.id,
                              .key = req->param,
                              .parent_id = post.f.v[1],
                              .body = post.f.v[0],
                              .address = addr,
                              .limit_account = req->cfg->limits->comment_per_account,
                              .limit_address = req->cfg->limits->comment_per_ip};
    struct comment_result r;
    int rc = comment_post(&post.c, &in, &r);
    if (settled(req, rc, &r))
        return;
    int status = web_comment_status(req, rc, &r);
    compose_page(req, status, "Your comment was not posted",
                 arena_printf(&req->arena, "/incidents/%s/comments", req->param), &post.sess,
                 post.f.v[1], post.f.v[0], r.message,
                 incident_path(req, rc == COMMENT_MERGED ? r.survivor_key : req->param, NULL));
}

void web_comment_edit_form(struct request *req)
{
    if (web_comment_no_credential(req) < 0 || web_no_query(req) < 0)
        return;
    struct app_ctx c = {.a = &req->arena, .now = time_now_us(), .request_id = req->id};
    c.s = store_thread();
    if (!c.s) {
        web_comment_unavailable(req);
        return;
    }
    struct session_row sess;
    int signed_in = web_session(req, c.s, c.now, &sess);
    if (signed_in < 0) {
        web_comment_unavailable(req);
        return;
    }
    if (!signed_in) {
        web_redirect(req, 303, "/account/signin");
        return;
    }
    struct comment cm;
    struct comment_result r;
    int rc = comment_read_own(&c, sess.account.id, req->param, &cm, &r);
    if (web_comment_refused(req, rc, &r))
        return;
    compose_page(req, 200, "Edit your comment",
                 arena_printf(&req->arena, "/comments/%s/edit", cm.id), &sess, NULL, cm.body, NULL,
                 incident_path(req, cm.incident_key, cm.id));
}

void web_comment_edit(struct request *req)
{
    static const char *const names[] = {"body", "csrf", NULL};
    struct web_post post;
    if (web_comment_form(req, &post, names) < 0)
        return;
    struct comment_result r;
    int rc = comment_edit(&post.c, post.sess.account.id, req->param, post.f.v[0], &r);
    if (settled(req, rc, &r))
        return;
    compose_page(req, web_comment_status(req, rc, &r), "Your edit was not saved",
                 arena_printf(&req->arena, "/comments/%s/edit", req->param), &post.sess, NULL,
                 post.f.v[0], r.message,
                 r.incident_key ? incident_path(req, r.incident_key, r.id) : NULL);
}

void web_comment_delete(struct request *req)
{
    struct web_post post;
    if (web_comment_form(req, &post, web_csrf_only) < 0)
        return;
    struct comment_result r;
    int rc = comment_delete(&post.c, post.sess.account.id, req->param, &r);
    if (!web_comment_refused(req, rc, &r))
        web_redirect(req, 303, incident_path(req, r.incident_key, r.id));
}

void web_comment_report(struct request *req)
{
    static const char *const names[] = {"reason", "csrf", NULL};
    struct web_post post;
    if (web_comment_form(req, &post, names) < 0)
        return;
    struct comment_result r;
    int rc = comment_report(&post.c, post.sess.account.id, req->param, post.f.v[0], &r);
    if (web_comment_refused(req, rc, &r))
        return;
    struct buf *b = web_page_titled(req, "Thank you");
    html_fmt(b,
             "<p class=\"notice\" id=\"notice\">Your report was recorded; a moderator will "
             "review the comment.</p><p><a id=\"back\" href=\"%a\">Back to the discussion</a>"
             "</p>",
             incident_path(req, r.incident_key, r.id));
    web_page_reply(req, 200);
}
