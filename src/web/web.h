#ifndef WHISTLE_WEB_WEB_H
#define WHISTLE_WEB_WEB_H

#include "http/http.h"

/*
 * The human pages, the ballot endpoint and the RSS feed (docs/pages.md). Pages are
 * server-rendered HTML that reads without JavaScript; every printed value is escaped.
 */
void web_home(struct request *req);
void web_incident(struct request *req);
void web_game(struct request *req);
void web_vote(struct request *req);
void web_feed(struct request *req);
void web_css(struct request *req);
void web_js(struct request *req);
void web_favicon(struct request *req);

/* Ballot rate limits (per minute), set from serve's options. */
extern int web_vote_limit_voter;
extern int web_vote_limit_ip;

/* Shared page pieces (pages.c). */
void web_page_begin(struct buf *b, const char *title);
void web_page_end(struct buf *b);
void web_error_page(struct request *req, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void web_redirect(struct request *req, int status, const char *path);

#endif
