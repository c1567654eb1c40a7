/*
 * bench/delayproxy.c: a small delay proxy for bench/writes.sh (issue 20). It listens on a
 * Unix socket and forwards every connection to another Unix socket (PostgreSQL's), holding
 * each chunk of bytes for DELAY_US microseconds in each direction before passing it on: a
 * same-zone network between the nodes and the database on one machine, which has no netem.
 *
 *   delayproxy LISTEN_SOCKET TARGET_SOCKET DELAY_US
 *
 * One thread per direction per connection. Each chunk is stamped when it arrives and passed
 * on DELAY_US after that, while the thread goes on reading what follows: a chunk never waits
 * behind the delay of the one before it, as on a network, where latency is not serialized
 * (libpq's pipeline of a call and its version bump, answered in two chunks, arrives in
 * 2 x DELAY_US plus the gap between them, not 3 x DELAY_US). A request/response protocol
 * thus sees DELAY_US each way and one round trip costs 2 x DELAY_US more. Bounded: at most
 * MAX_CONNS connections at a time (further ones are closed at once), QUEUE_MAX chunks held
 * per direction (beyond that it stops reading until the oldest is passed on), Unix sockets
 * only (nothing reaches the network), and it exits on SIGTERM/SIGINT.
 */
#define _GNU_SOURCE /* ppoll */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 512
#define CHUNK     65536
#define QUEUE_MAX 64

static const char *target;
static long delay_us;
static atomic_int conns;

struct pipe_dir {
    int from, to;
    atomic_int *open; /* the two directions of one connection: the last one frees it */
};

static int64_t now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* A chunk read and not yet passed on: its bytes and when they are due at the other end. */
struct held {
    char *buf;
    ssize_t n;
    int64_t due;
};

static int write_all(int fd, const char *buf, ssize_t n)
{
    for (ssize_t off = 0; off < n;) {
        ssize_t w = write(fd, buf + off, (size_t)(n - off));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        off += w;
    }
    return 0;
}

static void *pump(void *arg)
{
    struct pipe_dir *p = arg;
    struct held q[QUEUE_MAX];
    static _Thread_local char chunk[CHUNK];
    int head = 0, count = 0;
    bool eof = false, failed = false;
    while (!failed && !(eof && count == 0)) {
        /* wait for the next chunk to read, or until the oldest held one is due */
        struct timespec ts, *until = NULL;
        if (count > 0) {
            int64_t wait = q[head].due - now_us();
            wait = wait < 0 ? 0 : wait;
            ts = (struct timespec){wait / 1000000, (wait % 1000000) * 1000};
            until = &ts;
        }
        struct pollfd pfd = {.fd = p->from, .events = POLLIN};
        bool reading = !eof && count < QUEUE_MAX;
        int ready = ppoll(reading ? &pfd : NULL, reading ? 1 : 0, until, NULL);
        if (ready > 0) {
            ssize_t n = read(p->from, chunk, CHUNK);
            char *buf = n > 0 ? malloc((size_t)n) : NULL;
            if (buf) {
                memcpy(buf, chunk, (size_t)n);
                q[(head + count) % QUEUE_MAX] = (struct held){buf, n, now_us() + delay_us};
                count++;
            } else {
                eof = !(n < 0 && errno == EINTR);
            }
        }
        while (count > 0 && q[head].due <= now_us()) {
            failed = write_all(p->to, q[head].buf, q[head].n) < 0;
            free(q[head].buf);
            head = (head + 1) % QUEUE_MAX;
            count--;
            if (failed)
                break;
        }
    }
    for (; count > 0; count--, head = (head + 1) % QUEUE_MAX)
        free(q[head].buf);
    shutdown(p->to, SHUT_WR);
    shutdown(p->from, SHUT_RD);
    if (atomic_fetch_sub(p->open, 1) == 1) {
        close(p->from);
        close(p->to);
        free(p->open);
        atomic_fetch_sub(&conns, 1);
    }
    free(p);
    return NULL;
}

static int unix_socket(const char *path, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa->sun_path)
        return -1;
    memcpy(sa->sun_path, path, strlen(path) + 1);
    return socket(AF_UNIX, SOCK_STREAM, 0);
}

static void start(int a, int b, atomic_int *open)
{
    struct pipe_dir *up = malloc(sizeof *up), *down = malloc(sizeof *down);
    *up = (struct pipe_dir){a, b, open};
    *down = (struct pipe_dir){b, a, open};
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_create(&t, &attr, pump, up);
    pthread_create(&t, &attr, pump, down);
    pthread_attr_destroy(&attr);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: delayproxy LISTEN_SOCKET TARGET_SOCKET DELAY_US\n");
        return 2;
    }
    target = argv[2];
    delay_us = strtol(argv[3], NULL, 10);
    if (delay_us < 0 || delay_us > 1000000) {
        fprintf(stderr, "delayproxy: DELAY_US must be 0 to 1000000\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    struct sockaddr_un sa;
    int ls = unix_socket(argv[1], &sa);
    unlink(argv[1]);
    if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(ls, 128) < 0) {
        perror("delayproxy: listen");
        return 1;
    }
    for (;;) {
        int c = accept(ls, NULL, NULL);
        if (c < 0) {
            if (errno == EINTR)
                continue;
            perror("delayproxy: accept");
            return 1;
        }
        if (atomic_load(&conns) >= MAX_CONNS) {
            close(c);
            continue;
        }
        struct sockaddr_un ta;
        int t = unix_socket(target, &ta);
        if (t < 0 || connect(t, (struct sockaddr *)&ta, sizeof ta) < 0) {
            if (t >= 0)
                close(t);
            close(c);
            continue;
        }
        atomic_int *open = malloc(sizeof *open);
        atomic_init(open, 2);
        atomic_fetch_add(&conns, 1);
        start(c, t, open);
    }
}
