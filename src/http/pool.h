#ifndef WHISTLE_HTTP_POOL_H
#define WHISTLE_HTTP_POOL_H

#include <stdbool.h>

/*
 * The password pool (issue 14 item 7; docs/security.md): argon2id costs tens of
 * milliseconds of CPU and 64 MiB per hash, so the requests of the routes flagged
 * ROUTE_PASSWORD (sign-up, sign-in, reset, password change, the desk's re-asked password)
 * do not run on libmicrohttpd's threads, which would stall every other connection they
 * serve. Their handler runs on one of a few threads of their own instead: the connection
 * is suspended (MHD_suspend_connection), the request waits in a bounded queue, a pool
 * thread runs the handler (with its own store_thread() connection), then resumes the
 * connection, and the access handler queues the answer on libmicrohttpd's thread. Past
 * the queue's bound a request is not queued at all: the caller answers 503 at once.
 *
 * Internal to src/http (server.c); the interface of handlers does not change.
 */
struct request;

/* Starts `threads` pool threads (at most HTTP_PASSWORD_THREADS_MAX) with room for
 * `queue_max` waiting requests (the server's password_queue: a request meets the bound of
 * its own req->cfg, read-only; queue_max only names it in the log); run(req) is what a
 * pool thread does with a request (the handler and its checks). 0, or -1 when no
 * thread could be started (then nothing is pooled: handlers run inline). */
int http_pool_start(int threads, int queue_max, void (*run)(struct request *req));

/* Takes a request whose body is complete, from inside the access handler: 1 when queued
 * (its connection is suspended now; the pool resumes it once req->pool_done), 0 when the
 * pool is not running (run the handler inline), -1 when the queue is full (answer 503). */
int http_pool_take(struct request *req);

/* Stops the pool: requests still waiting are answered by `busy` (503) instead of run,
 * running ones finish; every suspended connection is resumed before it returns (which
 * MHD_stop_daemon requires). Waits for the threads. */
void http_pool_stop(void (*busy)(struct request *req));

/* Requests waiting plus running now (for the log line at shutdown and the tests). */
int http_pool_pending(void);

#endif
