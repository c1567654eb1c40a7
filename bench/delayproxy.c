/*
 * bench/delayproxy.c: a small delay proxy for bench/writes.sh (issue 20). It listens on a
 * Unix socket and forwards every connection to another Unix socket (PostgreSQL's), holding
 * each chunk of bytes for DELAY_US microseconds in each direction before passing it on: a
 * same-zone network between the nodes and the database on one machine, which has no netem.
 *
 *   delayproxy LISTEN_SOCKET TARGET_SOCKET DELAY_US
 *
 * One thread per direction per connection; a chunk is held from the moment it is read, so
 * a request/response protocol (libpq without pipelining) sees DELAY_US each way and one
 * round trip costs 2 × DELAY_US more. Bounded: at most MAX_CONNS connections at a time
 * (further ones are closed at once), Unix sockets only (nothing reaches the network), and
 * it exits on SIGTERM/SIGINT.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 512
#define CHUNK     65536

static const char *target;
static long delay_us;
static atomic_int conns;

struct pipe_dir {
    int from, to;
    atomic_int *open; /* the two directions of one connection: the last one frees it */
};

static void sleep_until(const struct timespec *t)
{
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR) {
    }
}

static void *pump(void *arg)
{
    struct pipe_dir *p = arg;
    char *buf = malloc(CHUNK);
    for (;;) {
        ssize_t n = buf ? read(p->from, buf, CHUNK) : -1;
        if (n <= 0)
            break;
        struct timespec due;
        clock_gettime(CLOCK_MONOTONIC, &due);
        due.tv_nsec += delay_us * 1000;
        due.tv_sec += due.tv_nsec / 1000000000;
        due.tv_nsec %= 1000000000;
        sleep_until(&due);
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(p->to, buf + off, (size_t)(n - off));
            if (w <= 0)
                goto out;
            off += w;
        }
    }
out:
    free(buf);
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
