#ifndef WHISTLE_HTTP_REPLY_H
#define WHISTLE_HTTP_REPLY_H

#include "http/http.h"

/* Why a 503 asks the client to come back: the database is unavailable, or the password
 * pool is full (http/pool.h). */
enum reply_busy { REPLY_UNAVAILABLE, REPLY_PASSWORD_BUSY };

/* The one home of both 503s that ask to retry (reply_unavailable, reply_password_busy and
 * the pages' web_unavailable, web_password_busy): sets Retry-After on req for why and
 * returns the message to answer with (a static string, not to be freed). */
const char *reply_retry_later(struct request *req, enum reply_busy why);

#endif
