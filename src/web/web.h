#ifndef WHISTLE_WEB_WEB_H
#define WHISTLE_WEB_WEB_H

#include "http/http.h"
#include "store/incidents.h"

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
struct incident_filter web_filter(int64_t limit); /* no filter, newest first */
/* Reads one page of published incidents in a read transaction; 0 or a negative store_rc. */
int web_list(struct request *req, const struct incident_filter *f, struct incident **list,
             size_t *n);
void web_page_begin(struct buf *b, const char *title);
void web_page_end(struct buf *b);
void web_error_page(struct request *req, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void web_redirect(struct request *req, int status, const char *path);

#endif
