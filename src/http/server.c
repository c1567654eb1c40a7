/*
 * libmicrohttpd glue. The access handler is a state machine (ARCHITECTURE.md, HTTP rules):
 * the first call for a request only allocates its state; body chunks are collected under
 * the route's hard cap; the handler runs and the response is queued only once the upload
 * is complete. Queuing on the first call would make libmicrohttpd 0.9.75 close the
 * connection after every response, which is what a refused head wants: the framing checks
 * and the early 413 answer on the first call, and libmicrohttpd reads no body and closes.
 */
#include <assert.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "domain/address.h"
#include "http/gzip.h"
#include "http/http.h"
#include "http/pool.h"
#include "util/log.h"
#include "util/thread.h"
#include "util/timefmt.h"

#define URI_MAX 8192

static const struct route *routes;
static size_t nroutes;
/* Set by http_serve before it starts the daemons' threads (with the base URL of the port it
 * bound), and never changed while they run. */
static const struct server_config *config;
static atomic_long in_flight;
/* set on SIGINT/SIGTERM: new connections are refused while in-flight requests finish */
static atomic_bool draining;

/* ---- connection watch: the request head's deadline, the share kept for the few ------ */

/*
 * libmicrohttpd resets a connection's inactivity timeout on every byte, so a client that
 * trickles one header line every few seconds holds its connection for ever (slowloris).
 * Every connection is watched from its accept (MHD_OPTION_NOTIFY_CONNECTION): while it
 * awaits a request head (from accept, and again from each answer on a kept-alive
 * connection) a watchdog thread shuts down its socket once head_timeout_us has passed;
 * libmicrohttpd then sees the end of the stream and closes the connection as usual. The
 * access handler's first call (the head is complete) stops the clock. libmicrohttpd 0.9.75
 * notifies CLOSED before it closes the descriptor, and both sides hold watch_lock, so the
 * watchdog never touches a closed or reused descriptor.
 *
 * The accept policy counts connections per address: past three quarters of the global
 * limit, an address that already holds crowded_per_ip connections is refused, so the last
 * quarter stays free for addresses that hold few.
 */
struct addr_key {
    int family;
    unsigned char bytes[16];
};

struct addr_count {
    struct addr_count *next;
    struct addr_key key;
    unsigned n;
};

struct conn_watch {
    struct conn_watch *prev, *next;
    int fd;
    struct addr_count *addr;
    int64_t head_since_us; /* awaiting a request head since; 0: a request is under way */
    bool cut;              /* the watchdog has shut its socket down */
};

#define ADDR_BUCKETS 4096

static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct conn_watch *watched;
static unsigned nwatched;
static struct addr_count *addr_table[ADDR_BUCKETS];
static atomic_long head_timeouts; /* connections cut for a late head (logged) */

/* The key an address's connections are counted under: IPv4 as it is (mapped IPv6 folded to
 * it), IPv6 per /64 (domain/address.h address_limit_key). False for another family, and for
 * a trusted proxy, whose connections carry many clients and are not counted per address. */
static bool addr_key_of(const struct sockaddr *sa, struct addr_key *k)
{
    struct address a;
    memset(k, 0, sizeof *k);
    if (address_of_sockaddr(sa, &a) < 0)
        return false;
    if (config && address_in_ranges(&a, config->trusted_proxies, config->ntrusted_proxies))
        return false;
    k->family = a.family;
    memcpy(k->bytes, a.b, a.family == AF_INET ? 4 : 8);
    return true;
}

static unsigned addr_hash(const struct addr_key *k)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < sizeof k->bytes; i++)
        h = (h ^ k->bytes[i]) * 16777619u;
    return h % ADDR_BUCKETS;
}

/* The count of an address (watch_lock held); created when create is true. */
static struct addr_count *addr_find(const struct addr_key *k, bool create)
{
    struct addr_count **slot = &addr_table[addr_hash(k)];
    for (struct addr_count *a = *slot; a; a = a->next)
        if (a->key.family == k->family && memcmp(a->key.bytes, k->bytes, sizeof k->bytes) == 0)
            return a;
    if (!create)
        return NULL;
    struct addr_count *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->key = *k;
    a->next = *slot;
    *slot = a;
    return a;
}

static void addr_release(struct addr_count *a)
{
    if (!a || --a->n > 0)
        return;
    struct addr_count **slot = &addr_table[addr_hash(&a->key)];
    while (*slot != a)
        slot = &(*slot)->next;
    *slot = a->next;
    free(a);
}

/* The accept policy: none once draining (this replaces MHD_quiesce_daemon(), which in
 * libmicrohttpd 0.9.75 with the epoll thread pool can race a worker thread over removing
 * the listen socket from its epoll set and abort the process during shutdown); none for an
 * address (an IPv6 /64) that holds per_ip_limit connections; past three quarters of the
 * global limit, none for one that already holds crowded_per_ip. The per-address counts are
 * ours rather than libmicrohttpd's per-IP limit, which counts each IPv6 address apart and
 * would count a trusted proxy's connections as one client's; connections accepted at the
 * same instant on several threads may pass the limit by at most threads - 1. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)cls;
    (void)addrlen;
    if (atomic_load(&draining))
        return MHD_NO;
    struct addr_key k;
    if (!config || !addr_key_of(addr, &k))
        return MHD_YES;
    pthread_mutex_lock(&watch_lock);
    struct addr_count *a = addr_find(&k, false);
    unsigned held = a ? a->n : 0;
    bool crowded = (uint64_t)nwatched * 4 >= (uint64_t)config->connection_limit * 3;
    bool ok = held < config->per_ip_limit && (!crowded || held < config->crowded_per_ip);
    pthread_mutex_unlock(&watch_lock);
    return ok ? MHD_YES : MHD_NO;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    (void)cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        struct conn_watch *w = calloc(1, sizeof *w);
        if (!w)
            return;
        const union MHD_ConnectionInfo *fd =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ca =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        struct addr_key k;
        bool has_addr = ca && addr_key_of(ca->client_addr, &k);
        w->fd = fd ? fd->connect_fd : -1;
        w->head_since_us = time_mono_us();
        pthread_mutex_lock(&watch_lock);
        w->addr = has_addr ? addr_find(&k, true) : NULL;
        if (w->addr)
            w->addr->n++;
        w->next = watched;
        if (watched)
            watched->prev = w;
        watched = w;
        nwatched++;
        pthread_mutex_unlock(&watch_lock);
        *socket_context = w;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        struct conn_watch *w = *socket_context;
        if (!w)
            return;
        pthread_mutex_lock(&watch_lock);
        if (w->prev)
            w->prev->next = w->next;
        else
            watched = w->next;
        if (w->next)
            w->next->prev = w->prev;
        nwatched--;
        addr_release(w->addr);
        pthread_mutex_unlock(&watch_lock);
        free(w);
        *socket_context = NULL;
    }
}

/* A request head is complete (since_us 0) or a new one is awaited from since_us on. */
static void watch_head(struct MHD_Connection *conn, int64_t since_us)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct conn_watch *w = ci ? ci->socket_context : NULL;
    if (!w)
        return;
    pthread_mutex_lock(&watch_lock);
    w->head_since_us = since_us;
    pthread_mutex_unlock(&watch_lock);
}

/* stopped when the server drains: the watchdog's sleep ends at once, not up to a tick later
 * (which every stop of the server waited for) */
static struct stopper watchdog_stop = STOPPER_INIT;

static void *watchdog(void *arg)
{
    (void)arg;
    while (!stopper_sleep(&watchdog_stop, 200 * 1000)) {
        int64_t now = time_mono_us(), limit = config->head_timeout_us;
        long cut = 0;
        pthread_mutex_lock(&watch_lock);
        for (struct conn_watch *w = watched; w; w = w->next) {
            if (w->cut || w->head_since_us == 0 || now - w->head_since_us < limit || w->fd < 0)
                continue;
            shutdown(w->fd, SHUT_RDWR);
            w->cut = true;
            cut++;
        }
        pthread_mutex_unlock(&watch_lock);
        if (cut) {
            long total = atomic_fetch_add(&head_timeouts, cut) + cut;
            log_info("http",
                     "closed %ld connection(s) without a request head after %llds "
                     "(%ld so far)",
                     cut, (long long)(limit / 1000000), total);
        }
    }
    return NULL;
}

/* ---- request ids --------------------------------------------------------------------- */

static _Thread_local uint64_t rid_state;

/* Whether a client's X-Request-Id may be echoed and logged as it is (HTTP_REQUEST_ID_MAX). */
static bool request_id_ok(const char *v)
{
    size_t n = v ? strlen(v) : 0;
    if (n == 0 || n > HTTP_REQUEST_ID_MAX)
        return false;
    for (const char *p = v; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == ':' || *p == '-'))
            return false;
    return true;
}

/* The request's id: the client's X-Request-Id when well-formed, else a new one. */
static void request_id(struct request *req)
{
    const char *given = http_header(req, "X-Request-Id");
    if (request_id_ok(given)) {
        snprintf(req->id, sizeof req->id, "%s", given);
        return;
    }
    char *out = req->id;
    if (!rid_state)
        randombytes_buf(&rid_state, sizeof rid_state);
    /* splitmix64: distinct ids per thread from a random seed */
    uint64_t z = (rid_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++)
        out[i] = hex[(z >> (60 - 4 * i)) & 15];
    out[16] = '\0';
}

/* ---- the client address (domain/address.h address_client) --------------------------- */

/* Every X-Forwarded-For header of a request, joined by "," in the order received. */
static void xff_add(struct buf *b, const char *k, const char *v)
{
    if (!k || strcasecmp(k, "X-Forwarded-For") != 0)
        return;
    if (b->len)
        buf_putc(b, ',');
    buf_puts(b, v ? v : "");
}

static enum MHD_Result xff_mhd(void *cls, enum MHD_ValueKind kind, const char *k, const char *v)
{
    (void)kind;
    xff_add(cls, k, v);
    return MHD_YES;
}

/* Computes req->client once, when the head is complete: the socket peer, or behind a
 * trusted proxy the client its X-Forwarded-For names. */
static void client_addr(struct request *req)
{
    struct address peer, client;
    req->client[0] = '\0';
    if (req->fake) {
        if (address_parse(req->fake->client_addr ? req->fake->client_addr : "127.0.0.1", &peer) <
            0) {
            snprintf(req->client, sizeof req->client, "%s", req->fake->client_addr);
            return;
        }
    } else {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        if (!ci || address_of_sockaddr(ci->client_addr, &peer) < 0)
            return;
    }
    const struct address_range *trusted = config ? config->trusted_proxies : NULL;
    size_t ntrusted = config ? config->ntrusted_proxies : 0;
    struct buf xff = BUF_INIT;
    if (ntrusted && address_in_ranges(&peer, trusted, ntrusted)) {
        if (req->fake) {
            for (size_t i = 0; req->fake->headers && req->fake->headers[i][0]; i++)
                xff_add(&xff, req->fake->headers[i][0], req->fake->headers[i][1]);
        } else {
            MHD_get_connection_values(req->conn, MHD_HEADER_KIND, xff_mhd, &xff);
        }
    }
    address_client(&peer, xff.len ? xff.p : NULL, trusted, ntrusted, &client);
    buf_release(&xff);
    address_format(&client, req->client, sizeof req->client);
}

/* ---- routing ------------------------------------------------------------------------- */

static enum http_method method_from_name(const char *m)
{
    static const struct {
        const char *name;
        enum http_method m;
    } names[] = {{"GET", HTTP_GET},        {"HEAD", HTTP_HEAD},     {"POST", HTTP_POST},
                 {"PUT", HTTP_PUT},        {"DELETE", HTTP_DELETE}, {"PATCH", HTTP_PATCH},
                 {"OPTIONS", HTTP_OPTIONS}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(m, names[i].name) == 0)
            return names[i].m;
    return HTTP_OTHER;
}

/* Whether route r matches path; sets *param (an arena copy) to the segment of param
 * routes: prefix, one non-empty segment without "/", then the route's suffix if any. */
static bool route_matches(const struct route *r, const char *path, struct arena *a,
                          const char **param)
{
    size_t n = strlen(r->path);
    if (strncmp(path, r->path, n) != 0)
        return false;
    if (!r->param)
        return path[n] == '\0';
    const char *seg = path + n;
    const char *slash = strchr(seg, '/');
    size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
    if (len == 0)
        return false;
    if (r->suffix ? !slash || strcmp(slash, r->suffix) != 0 : slash != NULL)
        return false;
    if (a)
        *param = arena_strndup(a, seg, len);
    return true;
}

/* The largest body any route at path accepts (the method is checked after the upload). */
static size_t body_limit(const char *path)
{
    size_t limit = 0;
    const char *param = NULL;
    for (size_t i = 0; i < nroutes; i++)
        if (route_matches(&routes[i], path, NULL, &param) && routes[i].body_limit > limit)
            limit = routes[i].body_limit;
    return limit;
}

static void allow_header(struct request *req, unsigned methods)
{
    struct buf b = BUF_INIT;
    static const struct {
        unsigned m;
        const char *name;
    } names[] = {{HTTP_GET, "GET"},        {HTTP_HEAD, "HEAD"},     {HTTP_POST, "POST"},
                 {HTTP_PUT, "PUT"},        {HTTP_DELETE, "DELETE"}, {HTTP_PATCH, "PATCH"},
                 {HTTP_OPTIONS, "OPTIONS"}};
    if (methods & HTTP_GET)
        methods |= HTTP_HEAD;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (methods & names[i].m) {
            if (b.len)
                buf_puts(&b, ", ");
            buf_puts(&b, names[i].name);
        }
    }
    reply_header(req, "Allow", arena_strdup(&req->arena, b.p));
    buf_release(&b);
}

/* Finds the route for req; answers 404/405 itself and returns NULL when there is none. */
static const struct route *route_find(struct request *req)
{
    unsigned allowed = 0;
    const struct route *cors = NULL;
    for (size_t i = 0; i < nroutes; i++) {
        const char *param = NULL;
        if (!route_matches(&routes[i], req->path, &req->arena, &param))
            continue;
        unsigned m = routes[i].methods;
        if (m & HTTP_GET)
            m |= HTTP_HEAD;
        if (m & req->method) {
            req->param = param;
            return &routes[i];
        }
        allowed |= routes[i].methods;
        if ((routes[i].flags & ROUTE_CORS))
            cors = &routes[i];
    }
    if (allowed && req->method == HTTP_OPTIONS && cors) {
        /* the CORS preflight of a public read (HTTP_CORS_*): 204, nothing else runs */
        req->route = cors;
        reply_header(req, "Access-Control-Allow-Methods", "GET, HEAD, OPTIONS");
        reply_header(req, "Access-Control-Allow-Headers", HTTP_CORS_ALLOW_HEADERS);
        reply_header(req, "Access-Control-Max-Age", HTTP_CORS_MAX_AGE);
        allow_header(req, allowed | HTTP_OPTIONS);
        reply_body(req, 204, "text/plain");
    } else if (allowed) {
        allow_header(req, allowed);
        reply_error(req, 405, "method %s is not allowed on %s", req->method_name, req->path);
    } else {
        reply_error(req, 404, "no resource at %s", req->path);
    }
    return NULL;
}

/* ---- request life cycle -------------------------------------------------------------- */

static enum MHD_Result key_arg(void *cls, enum MHD_ValueKind kind, const char *k, const char *v)
{
    (void)kind;
    struct buf *b = cls;
    buf_putc(b, '&');
    buf_puts(b, k);
    if (v) {
        buf_putc(b, '=');
        buf_puts(b, v);
    }
    return MHD_YES;
}

/* The cache key of a request: its path and its query arguments in the order given. */
static void cache_key(struct request *req, struct buf *key)
{
    buf_puts(key, req->path);
    buf_putc(key, '?');
    MHD_get_connection_values(req->conn, MHD_GET_ARGUMENT_KIND, key_arg, key);
}

static void release_cached(void *cls)
{
    cache_body_unref(cls);
}

/* The answer's body in its gzip form (http/gzip.h) when it is a 200 of GZIP_MIN_BODY bytes
 * or more; kept beside the cache entry for key (when given) for the next such request, at
 * gzip's default level, else at the fastest (it is made again for every request). */
static void gzip_answer(struct request *req, const struct buf *key, const struct cache_token *token)
{
    const char *data = req->cached ? req->cached->data : req->out.p;
    size_t len = req->cached ? req->cached->len : req->out.len;
    if (req->status != 200 || len < GZIP_MIN_BODY)
        return;
    struct buf z = BUF_INIT;
    if (gzip_compress(data, len, key ? 6 : 1, &z) < 0) {
        buf_release(&z);
        return;
    }
    req->gzipped = true;
    struct cache_body *gz = NULL;
    if (key) {
        cache_put_gzip(key->p, token, z.p, z.len);
        gz = cache_get_gzip(key->p, token, config->cache_fresh);
    }
    if (gz) {
        buf_release(&z);
        cache_body_unref(req->cached);
        req->cached = gz;
        return;
    }
    cache_body_unref(req->cached);
    req->cached = NULL;
    buf_release(&req->out);
    req->out = z;
}

/* The handler of the request's route, then the check that it answered; on a pool thread
 * for ROUTE_PASSWORD routes (pool.h), else on libmicrohttpd's. */
static void run_handler(struct request *req)
{
    req->route->handler(req);
    if (!req->answered) {
        log_error("http", "handler for %s answered nothing rid=%s", req->path, req->id);
        reply_error(req, 500, "internal error (request %s)", req->id);
    }
}

static void answer_busy(struct request *req)
{
    if (config->busy)
        config->busy(req);
    else
        reply_password_busy(req);
}

/* Routes the request and runs its handler, or hands it to the password pool: true when
 * the pool took it (the caller must not touch req until the connection is resumed). */
static bool dispatch(struct request *req)
{
    if (req->target_len > URI_MAX) {
        reply_error(req, 414, "the request target is longer than %d bytes", URI_MAX);
        return false;
    }
    /* a request that carries both framings is ambiguous: refuse it (request smuggling) */
    if (http_header(req, MHD_HTTP_HEADER_CONTENT_LENGTH) &&
        http_header(req, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
        reply_error(req, 400, "a request must not carry both Content-Length and Transfer-Encoding");
        return false;
    }
    /* libmicrohttpd unescapes the target into C strings: an encoded NUL would silently cut a
     * path ID or a query value short ("id%00junk" read as "id"), and an encoded slash would
     * turn one path ID into two segments. Both are malformed requests, not other resources. */
    if (req->target_nul) {
        reply_error(req, 400, "the request target must not contain an encoded NUL byte (%%00)");
        return false;
    }
    if (req->path_slash) {
        reply_error(req, 400, "the request path must not contain an encoded slash (%%2F)");
        return false;
    }
    const struct route *r = route_find(req);
    if (!r)
        return false;
    req->route = r;
    if (req->body_too_large) {
        if (r->body_limit == 0)
            reply_error(req, 413, "%s %s takes no request body", req->method_name, r->path);
        else
            reply_error(req, 413, "the request body is larger than %zu bytes", r->body_limit);
        return false;
    }
    if (r->flags & ROUTE_PASSWORD) {
        int taken = http_pool_take(req);
        if (taken == 1)
            return true;
        if (taken < 0) {
            log_warn("http", "password pool full: %s answered 503 rid=%s", req->path, req->id);
            answer_busy(req);
            return false;
        }
    }
    struct cache_token token;
    struct buf key = BUF_INIT;
    bool cacheable = (r->flags & ROUTE_CACHEABLE) && (req->method & (HTTP_GET | HTTP_HEAD));
    bool cache = cacheable && config->cache_token;
    bool gzip = cacheable && gzip_accepted(http_header(req, "Accept-Encoding"));
    if (cache ||
        ((r->flags & ROUTE_VERSIONED) && config->cache_token && (req->method & HTTP_GET))) {
        uint64_t t[2];
        req->versioned = config->cache_token(t) == 0;
        req->content_version = t[0];
        cache = cache && req->versioned;
        token.content = t[0];
        token.tally = t[1];
        req->versioned = cache;
        req->content_version = t[0];
        req->tally_version = t[1];
    }
    if (cache) {
        cache_key(req, &key);
        req->cached = gzip ? cache_get_gzip(key.p, &token, config->cache_fresh) : NULL;
        req->gzipped = req->cached != NULL;
        if (!req->cached)
            req->cached = cache_get(key.p, &token, config->cache_fresh);
        req->cache_state = req->cached ? "hit" : "miss";
        if (req->cached) {
            reply_body(req, req->cached->status, req->cached->content_type);
            if (gzip && !req->gzipped)
                gzip_answer(req, &key, &token);
            buf_release(&key);
            return false;
        }
        /* the store tells which incidents' tallies the body shows (cache.h) */
        cache_deps_begin();
        if (config->cache_watch)
            config->cache_watch(cache_deps_add, NULL);
    }
    run_handler(req);
    if (cache && config->cache_watch)
        config->cache_watch(NULL, NULL);
    bool put = cache && req->status == 200 && req->nheaders == 0;
    if (put)
        cache_put(key.p, &token, req->status, req->content_type, req->out.p, req->out.len);
    if (cache)
        cache_deps_begin(); /* forgets them: nothing stays on a thread between requests */
    if (gzip && req->answered)
        gzip_answer(req, put ? &key : NULL, &token);
    buf_release(&key);
    return false;
}

static enum MHD_Result queue(struct request *req)
{
    /* counted before the client can read the answer: a scrape after it sees it */
    http_metrics_count(req, time_mono_us() - req->start_us);
    size_t len = 0;
    struct MHD_Response *resp;
    if (req->cached) {
        /* the response holds the cache reference until libmicrohttpd is done with it */
        len = req->cached->len;
        resp = MHD_create_response_from_buffer_with_free_callback_cls(len, req->cached->data,
                                                                      release_cached, req->cached);
        if (!resp)
            return MHD_NO;
        req->cached = NULL;
    } else {
        char *body = buf_detach(&req->out, &len);
        resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
        if (!resp) {
            free(body);
            return MHD_NO;
        }
    }
    req->bytes_sent = len;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                            req->content_type ? req->content_type : "application/json");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "X-Request-Id", req->id);
    if (req->cache_state)
        MHD_add_response_header(resp, "X-Whistle-Cache", req->cache_state);
    if (req->gzipped)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
    /* every cacheable answer depends on Accept-Encoding (the plain one too) */
    if (req->route && (req->route->flags & ROUTE_CACHEABLE))
        MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
    if (req->route && (req->route->flags & ROUTE_CORS)) {
        MHD_add_response_header(resp, "Access-Control-Allow-Origin", "*");
        MHD_add_response_header(resp, "Access-Control-Expose-Headers", HTTP_CORS_EXPOSE);
    }
    for (int i = 0; i < req->nheaders; i++)
        MHD_add_response_header(resp, req->headers[i][0], req->headers[i][1]);
    enum MHD_Result ret = MHD_queue_response(req->conn, (unsigned)req->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* A request's state with nothing known yet but the raw target length. */
static struct request *request_alloc(size_t target_len)
{
    struct request *req = malloc(sizeof *req);
    if (!req)
        return NULL;
    memset(req, 0, offsetof(struct request, arena));
    arena_init(&req->arena);
    req->body = (struct buf)BUF_INIT;
    req->out = (struct buf)BUF_INIT;
    req->status = 500;
    req->target_len = target_len;
    req->start_us = time_mono_us();
    return req;
}

/* Marks what the raw target carries that unescaping would hide (%00, %2F in the path). */
static void target_scan(struct request *req, const char *uri)
{
    bool in_query = false;
    for (const char *p = uri; *p; p++) {
        if (*p == '?')
            in_query = true;
        if (*p != '%' || !p[1] || !p[2])
            continue;
        if (p[1] == '0' && p[2] == '0')
            req->target_nul = true;
        if (!in_query && p[1] == '2' && (p[2] == 'f' || p[2] == 'F'))
            req->path_slash = true;
    }
}

/* libmicrohttpd's URI log callback runs first and sees the raw request target (path and
 * query, before unescaping), so the state is allocated here; its return value becomes the
 * access handler's *state. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    (void)conn;
    struct request *req = request_alloc(strlen(uri));
    if (req)
        target_scan(req, uri);
    return req;
}

/* The access handler's first call: method and path are known now. */
static void request_start(struct request *req, struct MHD_Connection *conn, const char *url,
                          const char *method)
{
    req->started = true;
    req->conn = conn;
    req->cfg = config;
    req->method = method_from_name(method);
    req->method_name = arena_strdup(&req->arena, method);
    /* absolute form (RFC 9112, 3.2.2: "http://host/path"): the path is what follows the
     * authority; the authority itself is not used (every emitted URL comes from base_url) */
    if (strncasecmp(url, "http://", 7) == 0 || strncasecmp(url, "https://", 8) == 0) {
        const char *slash = strchr(strstr(url, "://") + 3, '/');
        url = slash ? slash : "/";
    }
    req->path = arena_strdup(&req->arena, url);
    request_id(req);
    client_addr(req);
    watch_head(conn, 0);
}

static void request_free(struct request *req)
{
    cache_body_unref(req->cached);
    buf_release(&req->body);
    buf_release(&req->out);
    arena_release(&req->arena);
    free(req);
}

/* ---- the request head's framing (issue 14, item 5; docs/security.md) ------------------- */

struct head_scan {
    const char *content_length; /* the first value */
    bool lengths_differ;        /* another Content-Length with a different value */
    int transfer_encodings;
    const char *transfer_encoding;
    bool space_in_name; /* whitespace before a colon: libmicrohttpd keeps it in the name */
    bool host;
};

static void head_scan_one(struct head_scan *h, const char *k, const char *v)
{
    if (!k)
        return;
    if (strpbrk(k, " \t"))
        h->space_in_name = true;
    if (strcasecmp(k, "Content-Length") == 0) {
        if (!h->content_length)
            h->content_length = v ? v : "";
        else if (strcmp(h->content_length, v ? v : "") != 0)
            h->lengths_differ = true;
    } else if (strcasecmp(k, "Transfer-Encoding") == 0) {
        h->transfer_encodings++;
        h->transfer_encoding = v ? v : "";
    } else if (strcasecmp(k, "Host") == 0) {
        h->host = true;
    }
}

static enum MHD_Result head_scan_mhd(void *cls, enum MHD_ValueKind kind, const char *k,
                                     const char *v)
{
    (void)kind;
    head_scan_one(cls, k, v);
    return MHD_YES;
}

/* Refuses a request head whose framing is ambiguous or unsupported, and a declared body
 * over the route's cap (413 before a byte of it is read). Returns whether it answered; the
 * answer is queued at once and libmicrohttpd then closes the connection without reading
 * the body. version is NULL for the tests' fake requests (no Host check). */
static bool head_check(struct request *req, const char *version)
{
    struct head_scan h = {0};
    if (req->fake) {
        for (size_t i = 0; req->fake->headers && req->fake->headers[i][0]; i++)
            head_scan_one(&h, req->fake->headers[i][0], req->fake->headers[i][1]);
    } else {
        MHD_get_connection_values(req->conn, MHD_HEADER_KIND, head_scan_mhd, &h);
    }
    const union MHD_ConnectionInfo *hs =
        req->conn ? MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE)
                  : NULL;
    if (hs && hs->header_size > HTTP_HEAD_MAX) {
        reply_error(req, 431, "the request line and headers are longer than %d bytes",
                    HTTP_HEAD_MAX);
    } else if (h.space_in_name) {
        reply_error(req, 400,
                    "a header field name must not contain whitespace (none may "
                    "stand before the colon)");
    } else if (h.lengths_differ) {
        reply_error(req, 400, "the request carries different Content-Length values");
    } else if (h.transfer_encodings > 1 ||
               (h.transfer_encodings && strcasecmp(h.transfer_encoding, "chunked") != 0)) {
        reply_error(req, 501, "the only Transfer-Encoding accepted is \"chunked\" alone");
    } else if (h.transfer_encodings && h.content_length) {
        reply_error(req, 400, "a request must not carry both Content-Length and Transfer-Encoding");
    } else if (version && strcmp(version, "HTTP/1.1") == 0 && !h.host) {
        reply_error(req, 400, "an HTTP/1.1 request must carry a Host header");
    } else if (h.content_length) {
        char *end = NULL;
        errno = 0;
        unsigned long long n = strtoull(h.content_length, &end, 10);
        if (errno || end == h.content_length || *end || n <= body_limit(req->path))
            return false; /* libmicrohttpd answers a malformed length itself */
        req->body_too_large = true;
        dispatch(req); /* routing first (404, 405), then the route's 413 */
    } else {
        return false;
    }
    reply_header(req, "Connection", "close");
    return true;
}

/* A chunked upload passed the route's cap: libmicrohttpd 0.9.75 cannot queue a response in
 * the middle of an upload, so the 413 is written on the socket at once (nothing else is
 * being written on it: no response is queued yet). The rest of the upload is then read and
 * dropped, up to HTTP_UPLOAD_DRAIN_MAX bytes, so that a client still sending can finish
 * and read the answer; the connection is closed at the upload's end or past that bound. */
static void answer_upload_now(struct request *req)
{
    dispatch(req);
    req->answered_raw = true;
    http_metrics_count(req, time_mono_us() - req->start_us);
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci)
        return;
    struct buf b = BUF_INIT;
    buf_printf(&b,
               "HTTP/1.1 %d Content Too Large\r\nConnection: close\r\nContent-Type: %s\r\n"
               "Content-Length: %zu\r\nCache-Control: no-store\r\n"
               "X-Content-Type-Options: nosniff\r\nX-Request-Id: %s\r\n",
               req->status, req->content_type ? req->content_type : "application/json",
               req->out.len, req->id);
    for (int i = 0; i < req->nheaders; i++)
        buf_printf(&b, "%s: %s\r\n", req->headers[i][0], req->headers[i][1]);
    buf_puts(&b, "\r\n");
    buf_append(&b, req->out.p, req->out.len);
    req->bytes_sent = req->out.len;
    size_t off = 0;
    for (int tries = 0; off < b.len && tries < 100; tries++) {
        ssize_t w = send(ci->connect_fd, b.p + off, b.len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0)
            off += (size_t)w;
        else if (w < 0 && errno != EAGAIN && errno != EINTR)
            break;
    }
    buf_release(&b);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **state)
{
    (void)cls;
    struct request *req = *state;
    if (!req) {
        req = request_alloc(strlen(url));
        *state = req;
        if (!req)
            return MHD_NO;
    }
    if (!req->started) {
        request_start(req, conn, url, method);
        atomic_fetch_add(&in_flight, 1);
        /* a refused head is answered now: libmicrohttpd reads no body and closes */
        return head_check(req, version) ? queue(req) : MHD_YES;
    }
    if (*upload_size) {
        size_t limit = body_limit(req->path);
        if (req->answered_raw) { /* answered already: drop the rest, up to a bound */
            req->drained += *upload_size;
            *upload_size = 0;
            return req->drained > HTTP_UPLOAD_DRAIN_MAX ? MHD_NO : MHD_YES;
        }
        if (req->body.len + *upload_size > limit) {
            /* only a chunked upload gets here (a declared length over the cap was refused
             * with the head): answer 413 as soon as the cap is passed */
            req->body_too_large = true;
            answer_upload_now(req);
            *upload_size = 0;
            return MHD_YES;
        }
        buf_append(&req->body, upload_data, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    if (req->pool_done)
        return queue(req); /* resumed: the pool ran the handler */
    if (req->answered_raw)
        return MHD_NO; /* the upload is over and answered: close */
    if (dispatch(req))
        return MHD_YES; /* suspended until the password pool resumes it */
    return queue(req);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **state,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    struct request *req = *state;
    if (!req)
        return;
    if (!req->started) { /* only the URI callback ran */
        request_free(req);
        *state = NULL;
        return;
    }
    if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
        watch_head(conn, time_mono_us()); /* kept alive: the next head's clock starts */
    int64_t us = time_mono_us() - req->start_us;
    if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
        log_info("access", "%s %s %d %zu %lldus rid=%s client=%s", req->method_name, req->path,
                 req->status, req->bytes_sent, (long long)us, req->id, req->client);
    else
        log_info("access", "%s %s %d %zu %lldus rid=%s client=%s aborted=%d", req->method_name,
                 req->path, req->status, req->bytes_sent, (long long)us, req->id, req->client,
                 (int)toe);
    request_free(req);
    *state = NULL;
    atomic_fetch_sub(&in_flight, 1);
}

/* ---- accessors ----------------------------------------------------------------------- */

static const char *fake_lookup(const char *(*list)[2], const char *name, bool nocase)
{
    for (size_t i = 0; list && list[i][0]; i++)
        if (nocase ? strcasecmp(list[i][0], name) == 0 : strcmp(list[i][0], name) == 0)
            return list[i][1];
    return NULL;
}

const char *http_header(struct request *req, const char *name)
{
    if (req->fake)
        return fake_lookup(req->fake->headers, name, true);
    return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

const char *http_cookie(struct request *req, const char *name)
{
    if (req->fake)
        return fake_lookup(req->fake->cookies, name, false);
    return MHD_lookup_connection_value(req->conn, MHD_COOKIE_KIND, name);
}

void http_client_addr(struct request *req, char *out, size_t n)
{
    snprintf(out, n, "%s", req->client);
}

struct query_collect {
    struct request *req;
    struct qp_pair pairs[REQUEST_MAX_QUERY];
    size_t n;
    bool overflow;
};

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    (void)kind;
    struct query_collect *c = cls;
    if (c->n == REQUEST_MAX_QUERY) {
        c->overflow = true;
        return MHD_NO;
    }
    c->pairs[c->n].key = key;
    c->pairs[c->n].value = value;
    c->n++;
    return MHD_YES;
}

int http_query_check(struct request *req, const struct qp_spec *specs, size_t nspecs,
                     struct qp_value *out, char *err, size_t errlen)
{
    struct query_collect c = {.req = req, .n = 0, .overflow = false};
    if (req->fake) {
        for (size_t i = 0; req->fake_query && req->fake_query[i][0]; i++)
            if (collect_arg(&c, MHD_GET_ARGUMENT_KIND, req->fake_query[i][0],
                            req->fake_query[i][1]) == MHD_NO)
                break;
    } else {
        MHD_get_connection_values(req->conn, MHD_GET_ARGUMENT_KIND, collect_arg, &c);
    }
    if (c.overflow) {
        snprintf(err, errlen, "too many query parameters (at most %d)", REQUEST_MAX_QUERY);
        return -1;
    }
    return qp_parse(specs, nspecs, c.pairs, c.n, out, err, errlen);
}

int http_query(struct request *req, const struct qp_spec *specs, size_t nspecs,
               struct qp_value *out)
{
    char err[400];
    if (http_query_check(req, specs, nspecs, out, err, sizeof err) < 0) {
        reply_error(req, 400, "%s", err);
        return -1;
    }
    return 0;
}

/* ---- requests without a socket (handler unit tests) --------------------------------- */

void http_fake_setup(const struct server_config *cfg, const struct route *table, size_t n)
{
    config = cfg;
    routes = table;
    nroutes = n;
}

struct request *http_fake_request(const char *method, const char *target,
                                  const struct http_fake *fake, const char *body)
{
    static const struct http_fake none;
    struct request *req = request_alloc(strlen(target));
    if (!req)
        abort();
    const char *q = strchr(target, '?');
    size_t plen = q ? (size_t)(q - target) : strlen(target);
    target_scan(req, target);
    req->started = true;
    req->fake = fake ? fake : &none;
    req->cfg = config;
    req->method = method_from_name(method);
    req->method_name = arena_strdup(&req->arena, method);
    req->path = arena_strndup(&req->arena, target, plen);
    request_id(req);
    client_addr(req);
    if (q) { /* k=v pairs split on '&' like libmicrohttpd; a key without '=' has no value */
        size_t cap = 1;
        for (const char *p = q + 1; *p; p++)
            cap += *p == '&';
        const char *(*pairs)[2] = arena_alloc(&req->arena, (cap + 1) * sizeof *pairs);
        size_t k = 0;
        for (const char *p = q + 1; *p || k == 0;) {
            const char *amp = strchr(p, '&');
            size_t len = amp ? (size_t)(amp - p) : strlen(p);
            const char *eq = memchr(p, '=', len);
            if (len) {
                pairs[k][0] = arena_strndup(&req->arena, p, eq ? (size_t)(eq - p) : len);
                pairs[k][1] =
                    eq ? arena_strndup(&req->arena, eq + 1, len - (size_t)(eq - p) - 1) : NULL;
                k++;
            }
            if (!amp)
                break;
            p = amp + 1;
        }
        pairs[k][0] = pairs[k][1] = NULL;
        req->fake_query = pairs;
    }
    if (head_check(req, NULL))
        return req;
    if (body) {
        size_t len = strlen(body);
        if (len > body_limit(req->path))
            req->body_too_large = true;
        else
            buf_append(&req->body, body, len);
    }
    dispatch(req);
    return req;
}

void http_fake_free(struct request *req)
{
    request_free(req);
}

const char *http_reply_header(const struct request *req, const char *name)
{
    for (int i = 0; i < req->nheaders; i++)
        if (strcasecmp(req->headers[i][0], name) == 0)
            return req->headers[i][1];
    return NULL;
}

/* ---- daemon -------------------------------------------------------------------------- */

static int resolve_listen(const char *listen, struct sockaddr_storage *ss, socklen_t *len)
{
    char host[256];
    const char *colon = strrchr(listen, ':');
    if (!colon || colon == listen || (size_t)(colon - listen) >= sizeof host)
        return -1;
    size_t hl = (size_t)(colon - listen);
    const char *h = listen;
    if (listen[0] == '[' && colon[-1] == ']') {
        h++;
        hl -= 2;
    }
    memcpy(host, h, hl);
    host[hl] = '\0';
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    if (getaddrinfo(host, colon + 1, &hints, &ai) != 0 || !ai)
        return -1;
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    *len = ai->ai_addrlen;
    freeaddrinfo(ai);
    return 0;
}

int http_listen_check(const char *listen, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sslen;
    if (resolve_listen(listen, &ss, &sslen) < 0) {
        snprintf(err, errlen, "cannot use listen address %s (want HOST:PORT)", listen);
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0; /* MHD will say what is wrong */
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc = bind(fd, (struct sockaddr *)&ss, sslen);
    int e = errno;
    close(fd);
    if (rc == 0 || (e != EADDRINUSE && e != EADDRNOTAVAIL && e != EACCES))
        return 0;
    const char *colon = strrchr(listen, ':');
    snprintf(err, errlen,
             e == EADDRINUSE ? "port %s on %.*s is already in use (another whistle serve? choose "
                               "another with --listen HOST:PORT, or make run PORT=N)"
             : e == EACCES   ? "port %s on %.*s needs privileges (choose a port above 1023)"
                             : "port %s: %.*s is not an address of this machine",
             colon + 1, (int)(colon - listen), listen);
    return -1;
}

/* ---- the metrics listener (--metrics-listen) -------------------------------------- */

/* GET /metrics and nothing else, on its own daemon: it shares no connection limit, thread or
 * route with the public listener, and the public listener has no /metrics route. */
static enum MHD_Result on_metrics(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **state)
{
    (void)cls;
    (void)version;
    (void)upload;
    static int started;
    if (!*state) { /* the first call only notes the request (keep-alive, see above) */
        *state = &started;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0; /* a body is read and dropped: the answer is 405 anyway */
        return MHD_YES;
    }
    int status = 200;
    struct buf out = BUF_INIT;
    const char *type = "text/plain; version=0.0.4; charset=utf-8";
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    if (strcmp(url, "/metrics") != 0) {
        status = 404;
        buf_puts(&out, "only /metrics is served here\n");
        type = "text/plain; charset=utf-8";
    } else if (!get) {
        status = 405;
        buf_puts(&out, "GET /metrics\n");
        type = "text/plain; charset=utf-8";
    } else {
        config->metrics(&out);
    }
    size_t len;
    char *body = buf_detach(&out, &len);
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    if (status == 405)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* Starts the metrics listener and says where it listens: the daemon, or NULL. */
static struct MHD_Daemon *metrics_start(const struct server_config *cfg)
{
    struct sockaddr_storage ss;
    socklen_t sslen;
    if (resolve_listen(cfg->metrics_listen, &ss, &sslen) < 0) {
        log_error("http", "cannot use metrics listen address %s (want HOST:PORT)",
                  cfg->metrics_listen);
        return NULL;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG |
                     (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    /* one thread, a few connections: a scraper or two, never the public */
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_metrics, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)16, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONNECTION_MEMORY, MHD_OPTION_END);
    if (!d) {
        log_error("http", "cannot listen on %s (metrics)", cfg->metrics_listen);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    const char *colon = strrchr(cfg->metrics_listen, ':');
    fprintf(stderr, "whistle: metrics on http://%.*s:%u/metrics\n",
            (int)(colon - cfg->metrics_listen), cfg->metrics_listen, info ? info->port : 0);
    return d;
}

/* The public listener's socket for ss, bound and listening (non-blocking, IPv6 only for an
 * IPv6 address, as libmicrohttpd makes its own), and the port bound in *port: made before the
 * daemon starts, so that the configuration its threads read names that port from the first
 * request on. The socket, or -1 (logged). */
static int listen_socket(const struct sockaddr_storage *ss, socklen_t sslen, const char *where,
                         unsigned *port)
{
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        log_error("http", "cannot make a socket for %s: %s", where, strerror(errno));
        return -1;
    }
    int one = 1;
    struct sockaddr_storage got;
    socklen_t gotlen = sizeof got;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        (ss->ss_family == AF_INET6 &&
         setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) < 0) ||
        bind(fd, (const struct sockaddr *)ss, sslen) < 0 || listen(fd, 1024) < 0 ||
        getsockname(fd, (struct sockaddr *)&got, &gotlen) < 0) {
        log_error("http", "cannot listen on %s: %s", where, strerror(errno));
        close(fd);
        return -1;
    }
    *port = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
                                            : ((struct sockaddr_in *)&got)->sin_port);
    return fd;
}

int http_serve(const struct server_config *cfg, const struct route *table, size_t n)
{
    routes = table;
    nroutes = n;
    http_metrics_init(table, n);

    struct sockaddr_storage ss;
    socklen_t sslen;
    if (resolve_listen(cfg->listen, &ss, &sslen) < 0) {
        log_error("http", "cannot use listen address %s (want HOST:PORT)", cfg->listen);
        return -1;
    }
    unsigned port;
    int fd = listen_socket(&ss, sslen, cfg->listen, &port);
    if (fd < 0)
        return -1;
    struct buf shown = BUF_INIT;
    const char *colon = strrchr(cfg->listen, ':');
    assert(colon); /* resolve_listen() refused anything but HOST:PORT */
    buf_printf(&shown, "%.*s:%u", (int)(colon - cfg->listen), cfg->listen, port);
    config = cfg;
    if (cfg->base_from_listen) {
        /* the default base URL names the port actually bound (listen port 0) */
        static struct buf base = BUF_INIT;
        static struct server_config bound;
        buf_reset(&base);
        buf_printf(&base, "http://%s", shown.p);
        bound = *cfg;
        bound.base_url = base.p;
        config = &bound;
    }

    /* SIGINT/SIGTERM are taken by sigwait() below; threads inherit the blocked mask */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG |
                     MHD_ALLOW_SUSPEND_RESUME | (cfg->use_poll ? MHD_USE_POLL : MHD_USE_EPOLL);
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    /* fd is libmicrohttpd's from here: it closes it when it stops (should it not start, the
     * process exits: fd is not closed here, which could close another thread's new file) */
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, 0, on_accept, NULL, on_request, NULL, MHD_OPTION_LISTEN_SOCKET, fd,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)(cfg->threads > 1 ? cfg->threads : 0),
        MHD_OPTION_CONNECTION_LIMIT, cfg->connection_limit, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)(cfg->timeout_us / 1000000), MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        cfg->memory_limit, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL, MHD_OPTION_NOTIFY_CONNECTION, on_connection,
        NULL, MHD_OPTION_END);
    if (!d) {
        log_error("http", "cannot listen on %s", cfg->listen);
        buf_release(&shown);
        return -1;
    }
    struct MHD_Daemon *md = NULL;
    if (cfg->metrics_listen && cfg->metrics && !(md = metrics_start(cfg))) {
        MHD_stop_daemon(d);
        buf_release(&shown);
        return -1;
    }
    pthread_t dog;
    if (pthread_create(&dog, NULL, watchdog, NULL) != 0) {
        log_error("http", "cannot start the connection watchdog");
        if (md)
            MHD_stop_daemon(md);
        MHD_stop_daemon(d);
        buf_release(&shown);
        return -1;
    }
    if (cfg->password_threads > 0 &&
        http_pool_start(cfg->password_threads, cfg->password_queue, run_handler) < 0)
        log_warn("http", "cannot start the password pool: passwords are hashed inline");
    fprintf(stderr, "whistle: listening on http://%s\n", shown.p);
    buf_release(&shown);
    fflush(stderr);

    int sig = 0;
    sigwait(&sigs, &sig);
    /* refuse first, then say so: whoever reads "draining" may rely on it */
    atomic_store(&draining, true);
    log_info("http", "signal %d: draining", sig);
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 1000 && atomic_load(&in_flight) > 0; i++)
        nanosleep(&tick, NULL);
    /* every suspended connection is resumed before the daemon stops (libmicrohttpd requires
     * it): requests still waiting for the password pool are answered 503 */
    http_pool_stop(answer_busy);
    stopper_stop(&watchdog_stop);
    pthread_join(dog, NULL);
    if (md)
        MHD_stop_daemon(md);
    MHD_stop_daemon(d);
    log_info("http", "stopped");
    return 0;
}
