/*
 * bench/openloop.c: an open-loop load generator for bench/writes.sh (issue 20). wrk is a
 * closed loop: each of its connections sends its next request when the last one is answered,
 * so at C connections the latency it reports is the queue that C requests in flight make
 * (C / throughput), whatever the server. This sends requests at a fixed RATE, each due at
 * t0 + i / RATE whether or not earlier ones were answered, over at most CONNS keep-alive
 * connections, and measures every latency from the moment the request was due, not from
 * when a free connection took it: a server that falls behind shows the whole backlog in
 * the percentiles (no coordinated omission).
 *
 *   openloop PORT REQUESTS RATE SECONDS CONNS [WARMUP_SECONDS]
 *
 * REQUESTS is a file of complete HTTP/1.1 requests, each followed by one NUL byte, sent in
 * turn and again from the first when the file ends. The server is 127.0.0.1:PORT (loopback
 * only). Responses must carry Content-Length (Whistle's do). The figures after the warm-up
 * go to stdout, one "name value" per line: sent, answered, non2xx, errors, rate (answered
 * per second), p50_ms, p90_ms, p99_ms, p999_ms, max_ms, backlog_max (most requests due and
 * not yet sent at once). Bounded: RATE <= 100000, SECONDS + WARMUP <= 600, CONNS <= 1024,
 * and every request still unanswered 5 s after the last one was due counts as an error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RESP_MAX (1 << 20)

struct conn {
    int fd;
    bool busy;
    int64_t due; /* the in-flight request's due time, µs */
    char *buf;   /* the response read so far */
    size_t len;
};

static int port;
static int64_t now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static int dial(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, O_NONBLOCK);
    return fd;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The response in c->buf once it is whole: its status, else 0 (more to read) or -1. */
static int complete(const struct conn *c, size_t *used)
{
    char *end = memmem(c->buf, c->len, "\r\n\r\n", 4);
    if (!end)
        return c->len >= RESP_MAX ? -1 : 0;
    size_t head = (size_t)(end - c->buf) + 4;
    if (c->len < 12 || memcmp(c->buf, "HTTP/1.1 ", 9) != 0)
        return -1;
    int status = (int)strtol(c->buf + 9, NULL, 10);
    long length = -1;
    for (char *p = c->buf; p < end; p++) {
        if ((p == c->buf || p[-1] == '\n') && strncasecmp(p, "content-length:", 15) == 0)
            length = strtol(p + 15, NULL, 10);
    }
    if (length < 0 || head + (size_t)length > RESP_MAX)
        return -1;
    if (c->len < head + (size_t)length)
        return 0;
    *used = head + (size_t)length;
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 6 || argc > 7) {
        fprintf(stderr, "usage: openloop PORT REQUESTS RATE SECONDS CONNS [WARMUP_SECONDS]\n");
        return 2;
    }
    port = (int)strtol(argv[1], NULL, 10);
    double rate = strtod(argv[3], NULL);
    double seconds = strtod(argv[4], NULL), warmup = argc == 7 ? strtod(argv[6], NULL) : 0;
    int nconn = (int)strtol(argv[5], NULL, 10);
    if (port < 1 || port > 65535 || !(rate > 0 && rate <= 100000) || !(seconds > 0) || warmup < 0 ||
        seconds + warmup > 600 || nconn < 1 || nconn > 1024) {
        fprintf(stderr, "openloop: PORT 1-65535, 0 < RATE <= 100000, SECONDS > 0, "
                        "SECONDS + WARMUP <= 600, CONNS 1-1024\n");
        return 2;
    }
    /* the requests: NUL-terminated, one after another */
    FILE *f = fopen(argv[2], "rb");
    struct stat sb;
    if (!f || fstat(fileno(f), &sb) < 0 || sb.st_size == 0) {
        fprintf(stderr, "openloop: cannot read %s\n", argv[2]);
        return 2;
    }
    char *file = malloc((size_t)sb.st_size);
    if (!file || fread(file, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size)
        return 2;
    fclose(f);
    size_t nreq = 0, cap = 1024;
    struct {
        const char *p;
        size_t n;
    } *req = malloc(cap * sizeof *req);
    for (size_t off = 0; off < (size_t)sb.st_size;) {
        char *z = memchr(file + off, '\0', (size_t)sb.st_size - off);
        size_t n = z ? (size_t)(z - (file + off)) : (size_t)sb.st_size - off;
        if (n > 0) {
            if (nreq == cap)
                req = realloc(req, (cap *= 2) * sizeof *req);
            req[nreq].p = file + off;
            req[nreq++].n = n;
        }
        off += n + 1;
    }
    if (nreq == 0) {
        fprintf(stderr, "openloop: no request in %s\n", argv[2]);
        return 2;
    }

    int ep = epoll_create1(0);
    struct conn *conns = calloc((size_t)nconn, sizeof *conns);
    int *idle = malloc((size_t)nconn * sizeof *idle), nidle = 0;
    for (int k = 0; k < nconn; k++) {
        conns[k].buf = malloc(RESP_MAX);
        if ((conns[k].fd = dial()) < 0) {
            perror("openloop: connect");
            return 1;
        }
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)k};
        epoll_ctl(ep, EPOLL_CTL_ADD, conns[k].fd, &ev);
        idle[nidle++] = k;
    }

    const int64_t interval = (int64_t)(1e6 / rate);
    const int64_t t0 = now_us() + 10000;
    const int64_t measure_from = t0 + (int64_t)(warmup * 1e6);
    const int64_t stop = measure_from + (int64_t)(seconds * 1e6);
    const uint64_t total = (uint64_t)((warmup + seconds) * rate);
    size_t lat_cap = (size_t)(seconds * rate) + 16, nlat = 0;
    int64_t *lat = malloc(lat_cap * sizeof *lat);
    uint64_t next = 0, sent = 0, answered = 0, non2xx = 0, errors = 0, backlog_max = 0;
    int inflight = 0;

    for (;;) {
        int64_t now = now_us();
        /* send every request that is due, as long as a connection is free */
        while (next < total && t0 + (int64_t)next * interval <= now && nidle > 0) {
            int k = idle[--nidle];
            struct conn *c = &conns[k];
            size_t r = next % nreq;
            ssize_t w = write(c->fd, req[r].p, req[r].n);
            if (w != (ssize_t)req[r].n) {
                fprintf(stderr, "openloop: a request was not written whole\n");
                return 1;
            }
            c->busy = true;
            c->due = t0 + (int64_t)next * interval;
            c->len = 0;
            next++;
            inflight++;
            if (c->due >= measure_from)
                sent++;
        }
        if (next < total && now >= measure_from) {
            int64_t due = t0 + (int64_t)next * interval;
            uint64_t waiting = due <= now ? (uint64_t)((now - due) / interval) + 1 : 0;
            if (waiting > backlog_max)
                backlog_max = waiting;
        }
        if (next >= total && inflight == 0)
            break;
        if (next >= total && now > stop + 5000000) {
            errors += (uint64_t)inflight; /* unanswered 5 s after the last was due */
            break;
        }
        int timeout = 100;
        if (next < total && nidle > 0) {
            int64_t wait = t0 + (int64_t)next * interval - now;
            timeout = wait <= 0 ? 0 : (int)((wait + 999) / 1000);
        }
        struct epoll_event evs[64];
        int n = epoll_wait(ep, evs, 64, timeout);
        for (int e = 0; e < n; e++) {
            int k = (int)evs[e].data.u32;
            struct conn *c = &conns[k];
            ssize_t got = read(c->fd, c->buf + c->len, RESP_MAX - c->len);
            if (got < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            size_t used = 0;
            int status = got > 0 ? (c->len += (size_t)got, complete(c, &used)) : -1;
            if (status == 0)
                continue;
            int64_t t = now_us();
            bool was_busy = c->busy;
            if (c->busy) {
                c->busy = false;
                inflight--;
                if (c->due >= measure_from) {
                    if (status < 0) {
                        errors++;
                    } else {
                        answered++;
                        if (status < 200 || status >= 400)
                            non2xx++;
                        if (nlat < lat_cap)
                            lat[nlat++] = t - c->due;
                    }
                }
            }
            if (status < 0 || used != c->len) { /* closed, broken or extra bytes: dial again */
                epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
                close(c->fd);
                if ((c->fd = dial()) < 0) {
                    perror("openloop: connect");
                    return 1;
                }
                struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)k};
                epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
            }
            if (was_busy)
                idle[nidle++] = k;
        }
    }
    qsort(lat, nlat, sizeof *lat, cmp64);
#define PCT(q) (nlat ? (double)lat[(size_t)((double)(nlat - 1) * (q))] / 1000.0 : 0.0)
    printf("sent %llu\nanswered %llu\nnon2xx %llu\nerrors %llu\nrate %.1f\n",
           (unsigned long long)sent, (unsigned long long)answered, (unsigned long long)non2xx,
           (unsigned long long)errors, (double)answered / seconds);
    printf("p50_ms %.3f\np90_ms %.3f\np99_ms %.3f\np999_ms %.3f\nmax_ms %.3f\nbacklog_max %llu\n",
           PCT(0.5), PCT(0.9), PCT(0.99), PCT(0.999), PCT(1.0), (unsigned long long)backlog_max);
    return errors > 0 ? 1 : 0;
}
