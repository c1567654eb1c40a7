/*
 * /moderate (issue 15; docs/comments.md): the moderators' queues — pending (held by the
 * rules), reported (published with open reports), recent (everything, newest first) —
 * each comment with its incident, its author's history and its moderation log, and
 * one-click approve / reject (with a reason) / feature; suspend the author. Every decision
 * is a POST (CSRF token + same origin) to a use case that records who, when, what and why.
 */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "app/comments.h"
#include "domain/account.h"
#include "util/html.h"
#include "util/timefmt.h"
#include "web/commentkit.h"
#include "web/web.h"

#define QUEUE_PAGE 25

static const char *const queues[] = {"pending", "reported", "recent", NULL};
static const char *const queue_words[] = {"Pending", "Reported", "Recent", NULL};

static void queue_url(struct buf *b, const char *queue, int64_t page)
{
    html_fmt(b, "/moderate?queue=%a", queue);
    if (page > 1)
        html_printf(b, "&amp;page=%lld", (long long)page);
}

/* One decision button: a form posting to action with the CSRF token and the queue to
 * come back to; with_reason adds a reason field (required when required is true). */
static void decision(struct buf *b, const char *csrf, const char *queue, const char *path,
                     const char *label, bool with_reason, bool required)
{
    html_fmt(b, "<form class=\"inline-form decision\" method=\"post\" action=\"%a\">", path);
    web_hidden(b, "csrf", csrf);
    web_hidden(b, "queue", queue);
    if (with_reason) {
        html_fmt(b,
                 "<input name=\"reason\" maxlength=\"500\" placeholder=\"reason\" "
                 "aria-label=\"reason\"%r",
                 required ? " required>" : ">");
    }
    html_fmt(b, " <button type=\"submit\">%t</button></form> ", label);
}

static void review(struct request *req, const struct comment_review *r, const char *csrf,
                   const char *queue)
{
    struct buf *b = &req->out;
    const struct comment *c = &r->c;
    struct buf path = BUF_INIT;
    html_fmt(b,
             "<li class=\"review\" id=\"m-%a\" data-status=\"%a\"><p class=\"meta\">On <a "
             "href=\"/incidents/%a#c-%a\">%t</a>",
             c->id, c->status, c->incident_key, c->id, c->incident_title);
    if (c->parent_id[0])
        html_raw(b, " (a reply)");
    html_fmt(b, " · <span class=\"state\">%t", c->status);
    if (c->held_reason[0] && strcmp(c->status, COMMENT_PENDING) == 0) {
        html_fmt(b, ": held (%t)",
                 strcmp(c->held_reason, "word_list") == 0 ? "word list" : "new account");
    }
    if (c->report_hidden)
        html_raw(b, ", hidden by reports");
    if (c->author_hidden)
        html_raw(b, ", author suspended");
    html_raw(b, "</span></p>");
    web_comment_byline(b, c);
    html_raw(b, "<div class=\"comment-body\">");
    web_comment_body(b, &req->arena, c->body);
    html_raw(b, "</div>");
    if (r->reports[0]) {
        html_fmt(b, "<p class=\"reports\">Reports: %t (%lld open)</p>", r->reports,
                 (long long)c->open_reports);
    }
    html_printf(b,
                "<p class=\"history\">Author: %lld comments, %lld published, %lld rejected%s"
                "</p>",
                (long long)r->author.total, (long long)r->author.published,
                (long long)r->author.rejected, r->author.suspended ? "; suspended" : "");
    if (strcmp(c->status, COMMENT_DELETED) != 0) {
        html_raw(b, "<div class=\"decisions\">");
        bool published = strcmp(c->status, COMMENT_PUBLISHED) == 0;
        if (!published || c->open_reports > 0) {
            buf_reset(&path);
            buf_printf(&path, "/moderate/comments/%s/approve", c->id);
            decision(b, csrf, queue, path.p, "Approve", false, false);
        }
        if (strcmp(c->status, COMMENT_REJECTED) != 0) {
            buf_reset(&path);
            buf_printf(&path, "/moderate/comments/%s/reject", c->id);
            decision(b, csrf, queue, path.p, "Reject", true, true);
        }
        if (published) {
            buf_reset(&path);
            buf_printf(&path, "/moderate/comments/%s/%s", c->id,
                       c->featured ? "unfeature" : "feature");
            decision(b, csrf, queue, path.p, c->featured ? "Unfeature" : "Feature", false, false);
        }
        buf_reset(&path);
        buf_printf(&path, "/moderate/accounts/%s/%s", c->account_id,
                   r->author.suspended ? "unsuspend" : "suspend");
        decision(b, csrf, queue, path.p,
                 r->author.suspended ? "Lift the author's suspension" : "Suspend the author", true,
                 false);
        html_raw(b, "</div>");
    }
    if (r->nlog) {
        html_raw(b, "<details class=\"log\"><summary>History</summary><ol>");
        for (size_t i = 0; i < r->nlog; i++) {
            const struct moderation_entry *e = &r->log[i];
            html_raw(b, "<li>");
            web_time(b, e->created_at);
            html_fmt(b, " · <span class=\"action\">%t</span> by %t", e->action,
                     e->actor_name ? e->actor_name : e->actor);
            web_text_if(b, ": ", e->reason, "");
            html_raw(b, "</li>");
        }
        html_raw(b, "</ol></details>");
    }
    html_raw(b, "</li>");
    buf_release(&path);
}

/* The signed-in moderator of a /moderate request: 1 with *sess and c->s, 0 when it
 * answered (sign in, 403, 503). */
static int moderator(struct request *req, struct app_ctx *c, struct session_row *sess)
{
    c->s = store_thread();
    c->a = &req->arena;
    c->now = time_now_us();
    c->request_id = req->id;
    if (!c->s) {
        web_comment_unavailable(req);
        return 0;
    }
    int rc = web_session(req, c->s, c->now, sess);
    if (rc < 0) {
        web_comment_unavailable(req);
        return 0;
    }
    if (rc == 0) {
        web_redirect(req, 303, "/account/signin?next=/moderate");
        return 0;
    }
    rc = sess->account.banned ? 0 : comment_is_moderator(c, sess->account.id);
    if (rc < 0) {
        web_comment_unavailable(req);
        return 0;
    }
    if (rc == 0) {
        web_error_page(req, 403,
                       "moderators only: an operator gives the role with "
                       "`whistle account grant EMAIL moderator`");
        return 0;
    }
    return 1;
}

void web_moderate(struct request *req)
{
    static const struct qp_spec specs[] = {{"queue", QP_ENUM, 0, 0, 0, queues},
                                           {"page", QP_INT, 1, 4000, 1, NULL},
                                           {"done", QP_ENUM, 0, 0, 0, NULL}};
    static const char *const dones[] = {"approve", "reject",    "feature", "unfeature",
                                        "suspend", "unsuspend", NULL};
    struct qp_spec sp[3];
    memcpy(sp, specs, sizeof sp);
    sp[2].values = dones;
    struct qp_value v[3];
    if (web_comment_no_credential(req) < 0)
        return;
    if (web_query(req, sp, 3, v) < 0)
        return;
    struct app_ctx c;
    struct session_row sess;
    if (!moderator(req, &c, &sess))
        return;
    const char *queue = v[0].set ? v[0].s : "pending";
    int64_t page = v[1].i;
    struct comment_review *list;
    size_t n;
    bool more;
    if (comments_read_queue(&c, queue, QUEUE_PAGE, (page - 1) * QUEUE_PAGE, &list, &n, &more) !=
        COMMENT_OK) {
        web_comment_unavailable(req);
        return;
    }
    char csrf[ACCOUNT_CSRF_LEN + 1];
    account_session_csrf(sess.hash, csrf);
    struct buf *b = web_page_titled(req, "Moderation");
    html_raw(b, "<nav class=\"queues\" aria-label=\"Queues\">");
    for (size_t i = 0; queues[i]; i++) {
        bool here = strcmp(queues[i], queue) == 0;
        html_raw(b, here ? "<strong>" : "<a href=\"");
        if (!here) {
            queue_url(b, queues[i], 1);
            html_raw(b, "\">");
        }
        html_fmt(b, "%t%r", queue_words[i], here ? "</strong> " : "</a> ");
    }
    html_raw(b, "</nav>");
    if (v[2].set) {
        html_fmt(b, "<p class=\"notice\" id=\"notice\">Done: %t.</p>", v[2].s);
    }
    html_fmt(b, "<ol class=\"queue\" id=\"queue\" data-queue=\"%a\">", queue);
    for (size_t i = 0; i < n; i++)
        review(req, &list[i], csrf, queue);
    html_raw(b, "</ol>");
    if (n == 0)
        html_raw(b, "<p id=\"queue-empty\">Nothing in this queue.</p>");
    if (page > 1 || more) {
        html_raw(b, "<nav class=\"pages\">");
        if (page > 1) {
            html_raw(b, "<a rel=\"prev\" href=\"");
            queue_url(b, queue, page - 1);
            html_raw(b, "\">Previous</a> ");
        }
        if (more) {
            html_raw(b, "<a rel=\"next\" href=\"");
            queue_url(b, queue, page + 1);
            html_raw(b, "\">Next</a>");
        }
        html_raw(b, "</nav>");
    }
    web_page_reply(req, 200);
}

/* POST /moderate/comments/{id}/{approve|reject|feature|unfeature} and
 * /moderate/accounts/{id}/{suspend|unsuspend}: the action is the route's suffix. */
void web_moderate_decide(struct request *req)
{
    static const char *const names[] = {"reason", "queue", "csrf", NULL};
    struct web_post post;
    if (web_comment_form(req, &post, names) < 0)
        return;
    const char *action = req->route->suffix + 1;
    bool account = strncmp(req->path, "/moderate/accounts/", 19) == 0;
    struct comment_result r;
    int rc = account ? comment_suspend(&post.c, post.sess.account.id, req->param,
                                       strcmp(action, "suspend") == 0, post.f.v[0], &r)
                     : comment_moderate(&post.c, post.sess.account.id, req->param, action,
                                        post.f.v[0], &r);
    if (web_comment_refused(req, rc, &r))
        return;
    const char *queue = "pending";
    for (size_t i = 0; post.f.v[1] && queues[i]; i++)
        if (strcmp(post.f.v[1], queues[i]) == 0)
            queue = queues[i];
    struct buf to = BUF_INIT;
    buf_printf(&to, "/moderate?queue=%s&done=%s", queue, action);
    web_redirect(req, 303, to.p);
    buf_release(&to);
}
