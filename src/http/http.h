#ifndef WHISTLE_HTTP_HTTP_H
#define WHISTLE_HTTP_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http/cache.h"
#include "http/query.h"
#include "util/arena.h"
#include "util/buf.h"

/*
 * The HTTP layer: libmicrohttpd glue, one route table, strict query parsing and replies.
 * It knows nothing about incidents: handlers (src/api, src/web) get a struct request, read
 * what they need through the accessors here and answer through the reply_* family.
 */
enum http_method {
    HTTP_GET = 1 << 0,
    HTTP_HEAD = 1 << 1,
    HTTP_POST = 1 << 2,
    HTTP_PUT = 1 << 3,
    HTTP_DELETE = 1 << 4,
    HTTP_PATCH = 1 << 5,
    HTTP_OPTIONS = 1 << 6,
    HTTP_OTHER = 1 << 7,
};

struct request;
typedef void (*http_handler)(struct request *req);

/* One row of the route table: a path that is either exact ("/api/v1/games") or a prefix
 * followed by exactly one non-empty segment ("/api/v1/games/" with param = true). GET
 * routes answer HEAD too. */
struct route {
    unsigned methods;
    const char *path;
    bool param;
    http_handler handler;
    size_t body_limit;  /* bytes; 0: no body accepted */
    unsigned flags;     /* ROUTE_* (true, in a row, is ROUTE_CACHEABLE) */
    const char *suffix; /* with param: what must follow the segment ("/vote"), or NULL */
};

enum {
    ROUTE_CACHEABLE = 1 << 0, /* a public read whose 200 bodies may be cached (see cache.h) */
    ROUTE_CORS = 1 << 1,      /* a public read any web origin may fetch (CORS, no credentials) */
    ROUTE_PASSWORD = 1 << 2,  /* may hash or verify a password (argon2id): the handler runs on
                               * the password pool, never on libmicrohttpd's threads (pool.h) */
    ROUTE_VERSIONED = 1 << 3, /* not cached, but reads the cache token first like a cacheable
                               * route (request.content_version): a page whose reads can reuse
                               * it (the sample-data marker, app/import.h) */
};

/* CORS for public reads (docs/api-decisions.md): every answer of a cors route carries
 * Access-Control-Allow-Origin: * and exposes these headers; OPTIONS is the preflight. */
#define HTTP_CORS_EXPOSE        "X-Request-Id, RateLimit, RateLimit-Policy, Retry-After, Location"
#define HTTP_CORS_ALLOW_HEADERS "Accept, Accept-Encoding, If-None-Match, X-Request-Id"
#define HTTP_CORS_MAX_AGE       "86400"

/* A request head (request line and headers) over HTTP_HEAD_MAX bytes is answered 431.
 * libmicrohttpd's buffer per connection is larger so that every head up to it is read
 * whole and answered by the server's own 431 (libmicrohttpd 0.9.75 closes without an answer
 * when a head fills its buffer almost exactly; docs/security.md); bodies are collected
 * apart, under the route's body_limit. */
#define HTTP_HEAD_MAX          (16 * 1024)
#define HTTP_CONNECTION_MEMORY (24 * 1024)
/* A chunked upload answered 413 when it passed its cap is read on (and dropped) for at most
 * this many more bytes, so that the client can finish sending and read the answer. */
#define HTTP_UPLOAD_DRAIN_MAX (1024 * 1024)

struct whistle_limits;
struct address_range;

/* The most HTTP threads (--threads) and password threads (--password-threads, pool.h). */
#define HTTP_THREADS_MAX          256
#define HTTP_PASSWORD_THREADS_MAX 64

/* Filled once at start-up from the options table (cli/settings.c), then only read. */
struct server_config {
    const char *listen;    /* HOST:PORT */
    const char *base_url;  /* origin of every emitted URL, no trailing slash */
    bool base_from_listen; /* base_url derived from listen: use the bound port (port 0) */
    int threads;
    bool use_poll; /* poll(2) instead of epoll for the thread pool */
    unsigned connection_limit, per_ip_limit;
    int64_t timeout_us; /* an idle connection is closed after this (whole seconds) */
    /* a request head must be complete this long after accept or the previous answer */
    int64_t head_timeout_us;
    /* past 3/4 of connection_limit, an address holding this many gets no more */
    unsigned crowded_per_ip;
    /* --trusted-proxy: peers whose X-Forwarded-For names the client (domain/address.h
     * address_client); they are also exempt from the per-address connection limits, since
     * their connections carry many clients */
    const struct address_range *trusted_proxies;
    size_t ntrusted_proxies;
    size_t memory_limit;
    /* the password pool (http/pool.h): threads, and requests that may wait for one; past
     * that, a ROUTE_PASSWORD request is answered by busy (503 with Retry-After) at once */
    int password_threads, password_queue;
    void (*busy)(struct request *req);
    /* the operators' limits (domain/limits.h), read by handlers as req->cfg->limits */
    const struct whistle_limits *limits;
    /* fills the cache validation token (content and tally versions, cache.h); NULL or a
     * negative return disables the cache for that request */
    int (*cache_token)(uint64_t out[2]);
    /* --metrics-listen: a second listener that answers only GET /metrics, in the Prometheus
     * text format written by metrics (NULL: no such listener; the public one never has it) */
    const char *metrics_listen;
    void (*metrics)(struct buf *out);
    /* the cache's tally dependencies (cache.h): sets (fn) or clears (NULL) the calling
     * thread's watcher of tally reads, and checks recorded fingerprints against the store */
    void (*cache_watch)(void (*fn)(void *ctx, const char *id, uint64_t fp), void *ctx);
    int (*cache_fresh)(const char *const *ids, size_t n, const uint64_t *fps);
};

#define REQUEST_MAX_QUERY 64

/* A request without a socket, for handler unit tests (h2o's t/00unit style): what the
 * accessors read instead of libmicrohttpd's connection. Each list is {name, value} pairs
 * ended by a {NULL, NULL} row; a NULL list is empty. */
struct http_fake {
    const char *(*headers)[2];
    const char *(*cookies)[2];
    const char *client_addr; /* "127.0.0.1" when NULL */
};

/* A client-supplied X-Request-Id is echoed and logged when it is 1 to 64 characters of
 * A-Z a-z 0-9 . _ : -; otherwise the server makes one (16 hex digits). */
#define HTTP_REQUEST_ID_MAX 64

struct request {
    bool started;                 /* the access handler has seen the request */
    const struct http_fake *fake; /* set instead of conn for a request built by the tests */
    const char *(*fake_query)[2]; /* the fake request's query pairs (arena-owned) */
    size_t target_len;            /* raw request target (path and query) */
    bool target_nul;              /* the raw target carries %00 */
    bool path_slash;              /* the raw path (before '?') carries %2F */
    struct MHD_Connection *conn;
    enum http_method method;
    const char *method_name;
    const char *path;
    const char *param; /* the route's path segment, if any */
    const struct route *route;
    const struct server_config *cfg;
    char id[HTTP_REQUEST_ID_MAX + 1]; /* X-Request-Id: the client's when well-formed */
    char client[64];                  /* the client address (http_client_addr) */
    int64_t start_us;

    struct buf body; /* request body, capped at route->body_limit */
    bool body_too_large;
    bool answered_raw;         /* a 413 written on the socket in the middle of a chunked upload */
    size_t drained;            /* upload bytes dropped since */
    struct request *pool_next; /* the password pool's queue (pool.c) */
    bool pool_done;            /* the pool ran the handler: queue the answer */
    bool answered;

    int status;
    struct buf out; /* response body */
    const char *content_type;
    const char *(*headers)[2]; /* name, value: nheaders of them, in the arena */
    int nheaders, headers_cap;
    size_t bytes_sent;
    struct cache_body *cached; /* set when the body comes from the response cache */
    const char *cache_state;   /* X-Whistle-Cache: "hit", "miss", or NULL (not cacheable) */
    bool versioned;            /* content_version holds the cache token's content version */
    uint64_t content_version;
    uint64_t tally_version; /* and tally_version its tally version */
    bool gzipped;           /* the body (out or cached) is gzip-compressed */
    struct arena arena;     /* last: everything before it is zeroed at allocation */
};

/* Runs the server until SIGINT/SIGTERM, then stops accepting, lets in-flight requests
 * finish (up to 10 s) and returns 0; -1 when it cannot start. */
int http_serve(const struct server_config *cfg, const struct route *routes, size_t nroutes);
/* Whether the listen address can be bound now (a busy port, a foreign address): 0, or -1
 * with a sentence naming the port in err. serve checks before it starts the worker. */
int http_listen_check(const char *listen, char *err, size_t errlen);

/* Request metrics (metrics.c): lock-free counters per route pattern, method and status and
 * a latency histogram. http_serve() calls init with its route table; every completed
 * request is counted; write appends them in the Prometheus text exposition format. */
void http_metrics_init(const struct route *routes, size_t n);
void http_metrics_count(const struct request *req, int64_t us);
void http_metrics_write(struct buf *out);

/* Handler unit tests: http_fake_setup() installs the route table and configuration that
 * http_fake_request() dispatches through (no socket, no response cache). The request is
 * built from method, target ("/path?k=v&k2", not percent-decoded), fake and body (NULL:
 * none; bodies over the route's limit are answered 413 as the server does), dispatched
 * (routing, 404/405, 413, the handler) and returned answered: read status, content_type,
 * out, headers. Free it with http_fake_free(). */
void http_fake_setup(const struct server_config *cfg, const struct route *routes, size_t nroutes);
struct request *http_fake_request(const char *method, const char *target,
                                  const struct http_fake *fake, const char *body);
void http_fake_free(struct request *req);
/* A response header's value (the first of that name, case-insensitive), or NULL. */
const char *http_reply_header(const struct request *req, const char *name);

/* Checks the request's query string against specs (see query.h); on failure answers 400
 * invalid_request and returns -1. */
int http_query(struct request *req, const struct qp_spec *specs, size_t nspecs,
               struct qp_value *out);

/* The same check without replying: -1 with the message in err. */
int http_query_check(struct request *req, const struct qp_spec *specs, size_t nspecs,
                     struct qp_value *out, char *err, size_t errlen);

/* A request header's value, or NULL. */
const char *http_header(struct request *req, const char *name);
/* A request cookie's value, or NULL. */
const char *http_cookie(struct request *req, const char *name);
/* The client's address as text ("127.0.0.1", "2001:db8::1") into out: the socket peer, or
 * behind a trusted proxy (--trusted-proxy) the right-most untrusted X-Forwarded-For hop
 * (domain/address.h address_client). The one source of the client address: every
 * per-address limit, ballot, sign-in, comment and the access log line use it. */
void http_client_addr(struct request *req, char *out, size_t n);

/* Adds a response header (any number: the list grows in the arena); name and value must
 * outlive the request (use the arena). */
void reply_header(struct request *req, const char *name, const char *value);

/* Answers with req->out as the body. */
void reply_body(struct request *req, int status, const char *content_type);
void reply_json(struct request *req, int status);

/* The one door for errors: {"error":{"code","message"}} with the code from the catalogue
 * for status (reply.c); the message says what was wrong and names the parameter. */
void reply_error(struct request *req, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Same, with an explicit code (for statuses that carry several codes). */
void reply_error_code(struct request *req, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* 503 unavailable (the store failed), with Retry-After; pages answer the same words as an
 * HTML page (web_unavailable). */
#define HTTP_UNAVAILABLE_MSG "the service is temporarily unavailable; retry later"
#define HTTP_RETRY_AFTER_S   "5"
void reply_unavailable(struct request *req);
/* 503 for a request that hashes a password while the password pool's queue is full
 * (server_config.busy when it sets none): Retry-After and HTTP_PASSWORD_BUSY_MSG. */
#define HTTP_PASSWORD_BUSY_MSG                                                                     \
    "too many password checks are waiting right now; nothing was done, retry in a few seconds"
#define HTTP_PASSWORD_RETRY_AFTER_S "2"
void reply_password_busy(struct request *req);

/* Error codes beyond the one-per-status defaults of the catalogue (reply.c). */
#define ERR_INVALID_CREDENTIAL   "invalid_credential"
#define ERR_IDEMPOTENCY_CONFLICT "idempotency_conflict"
#define ERR_QUOTA_EXCEEDED       "quota_exceeded"
#define ERR_RUN_EXPIRED          "run_expired"   /* scout: the run's lease has ended */
#define ERR_RUN_COMPLETED        "run_completed" /* scout: the run was finished */

/* The catalogue code for an HTTP error status. */
const char *http_error_code(int status);

#endif
