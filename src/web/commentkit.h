#ifndef WHISTLE_WEB_COMMENTKIT_H
#define WHISTLE_WEB_COMMENTKIT_H

/*
 * Pieces shared by the comment pages (comments.c), the moderation page (moderate.c) and
 * the profile page (profile.c); docs/comments.md.
 */
#include "app/comments.h"
#include "http/http.h"
#include "store/accounts.h"

/* Refuses (403) a request that carries an Authorization header: agent keys and scout
 * credentials reach no comment route, a browser session is the only credential that
 * comments. Returns -1 when it answered. */
int web_comment_no_credential(struct request *req);
/* The preamble of every comment and moderation POST: no credential header (as above),
 * then web_session_form (a signed-in session, same origin, its CSRF token, a well-formed
 * form of the fields names) into p; -1 when it answered. */
struct web_post;
int web_comment_form(struct request *req, struct web_post *p, const char *const *names);
/* A comment body as HTML: escaped, line breaks kept, http(s) URLs turned into links with
 * rel="nofollow ugc noopener". */
void web_comment_body(struct buf *b, struct arena *a, const char *body);
/* The byline: display name, badge, time, edited and featured marks. */
void web_comment_byline(struct buf *b, const struct comment *c);
/* The status and Retry-After of a refused comment outcome; message as given. */
int web_comment_status(struct request *req, int outcome, const struct comment_result *r);
/* The answer to a comment use case that did not succeed: 503 for APP_UNAVAILABLE, else the
 * error page with web_comment_status and r's message. True when it answered (rc is not
 * COMMENT_OK). */
bool web_comment_refused(struct request *req, int rc, const struct comment_result *r);
/* The store failed: 503 page. */
void web_comment_unavailable(struct request *req);

#endif
