/*
 * /account/profile (issue 15; docs/accounts.md "Display name"): the public name shown on a
 * signed-in user's comments, chosen once. The email address is never shown on a comment.
 */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "app/comments.h"
#include "domain/account.h"
#include "store/comments.h"
#include "util/html.h"
#include "util/timefmt.h"
#include "web/commentkit.h"
#include "web/web.h"

static void profile_page(struct request *req, int status, const struct session_row *sess,
                         const char *name, const char *typed, const char *error)
{
    char csrf[ACCOUNT_CSRF_LEN + 1];
    account_session_csrf(sess->hash, csrf);
    struct buf *b = &req->out;
    buf_reset(b);
    web_page_begin(b, "Your public profile");
    html_raw(b, "<h1>Your public profile</h1>");
    if (name && name[0]) {
        html_fmt(b,
                 "<p>Your comments are signed <strong id=\"display-name\">%t</strong>. A "
                 "display name is chosen once; write to the operators to change it.</p>",
                 name);
    } else {
        html_raw(b, "<p>Choose the public name shown on your comments (your email address is "
                    "never shown). It is set <strong>once</strong>: 3 to 30 characters — "
                    "letters A–Z, digits, spaces and . _ - ' — unique, not an email address, "
                    "and not the name of Whistle, its staff or a team.</p>");
        web_form_error(b, error);
        html_raw(b, "<form id=\"profile-form\" class=\"account-form\" method=\"post\" "
                    "action=\"/account/profile\">");
        web_hidden(b, "csrf", csrf);
        html_fmt(b,
                 "<label>Display name <input name=\"display_name\" required minlength=\"3\" "
                 "maxlength=\"30\" autocomplete=\"nickname\" value=\"%a\"></label><button "
                 "type=\"submit\">Save display name</button></form>",
                 typed);
    }
    html_raw(b, "<p><a href=\"/account\">Back to your account</a></p>");
    web_page_reply(req, status);
}

void web_profile(struct request *req)
{
    if (web_no_query(req) < 0)
        return;
    struct store *s = store_thread();
    if (!s) {
        web_comment_unavailable(req);
        return;
    }
    struct session_row sess;
    char name[64];
    int64_t now = time_now_us();
    int rc = web_session(req, s, now, &sess);
    struct app_ctx c = {.s = s, .now = now};
    if (rc == 1)
        rc = account_display_name_get(&c, sess.account.id, name, sizeof name) < 0 ? -1 : 1;
    if (rc < 0) {
        web_comment_unavailable(req);
        return;
    }
    if (rc == 0) {
        web_redirect(req, 303, "/account/signin?next=/account/profile");
        return;
    }
    profile_page(req, 200, &sess, name, NULL, NULL);
}

void web_profile_save(struct request *req)
{
    static const char *const names[] = {"display_name", "csrf", NULL};
    struct web_post post;
    if (web_comment_form(req, &post, names) < 0)
        return;
    struct comment_result r;
    int rc = account_display_name_set(&post.c, post.sess.account.id, post.f.v[0], &r);
    if (rc == COMMENT_OK) {
        web_redirect(req, 303, "/account/profile");
        return;
    }
    if (rc == APP_UNAVAILABLE) {
        web_comment_unavailable(req);
        return;
    }
    profile_page(req, web_comment_status(req, rc, &r), &post.sess, NULL, post.f.v[0], r.message);
}
