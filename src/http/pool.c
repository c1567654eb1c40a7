/*
 * The password pool (pool.h). One mutex guards the queue (a singly linked FIFO through
 * req->pool_next) and the counts; a condition variable wakes the threads. Ordering: a
 * request is queued only after its connection is suspended, both under the lock, so a pool
 * thread can never resume a connection that is not suspended yet; a pool thread writes the
 * answer into the request, sets pool_done, then resumes the connection, and
 * libmicrohttpd's thread reads the answer only after the resume (its own lock orders the
 * two).
 */
#include "http/pool.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdlib.h>

#include "http/http.h"
#include "util/log.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static struct request *head, *tail;
static int waiting, running;
static bool started, stopping;
static pthread_t threads[HTTP_PASSWORD_THREADS_MAX];
static int nthreads;
static void (*run_fn)(struct request *req);

static void finish(struct request *req)
{
    req->pool_done = true;
    MHD_resume_connection(req->conn);
}

static void *pool_main(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (!head && !stopping)
            pthread_cond_wait(&wake, &lock);
        if (!head) { /* stopping, and nothing left */
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        struct request *req = head;
        head = req->pool_next;
        if (!head)
            tail = NULL;
        waiting--;
        running++;
        pthread_mutex_unlock(&lock);
        run_fn(req);
        pthread_mutex_lock(&lock);
        running--;
        pthread_mutex_unlock(&lock);
        finish(req);
    }
}

int http_pool_start(int n, int queue_max, void (*run)(struct request *req))
{
    if (n < 1)
        return -1;
    if (n > HTTP_PASSWORD_THREADS_MAX)
        n = HTTP_PASSWORD_THREADS_MAX;
    run_fn = run;
    stopping = false;
    for (nthreads = 0; nthreads < n; nthreads++)
        if (pthread_create(&threads[nthreads], NULL, pool_main, NULL) != 0)
            break;
    if (nthreads == 0)
        return -1;
    pthread_mutex_lock(&lock);
    started = true; /* read by libmicrohttpd's threads, under the lock */
    pthread_mutex_unlock(&lock);
    log_info("http", "password pool: %d thread(s), queue of %d", nthreads, queue_max);
    return 0;
}

int http_pool_take(struct request *req)
{
    if (!req->conn)
        return 0;
    int rc = -1;
    pthread_mutex_lock(&lock);
    if (!started) {
        rc = 0;
    } else if (!stopping && waiting < req->cfg->password_queue) {
        MHD_suspend_connection(req->conn);
        req->pool_next = NULL;
        if (tail)
            tail->pool_next = req;
        else
            head = req;
        tail = req;
        waiting++;
        rc = 1;
        pthread_cond_signal(&wake);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void http_pool_stop(void (*busy)(struct request *req))
{
    pthread_mutex_lock(&lock);
    if (!started) {
        pthread_mutex_unlock(&lock);
        return;
    }
    stopping = true;
    struct request *left = head;
    head = tail = NULL;
    int nleft = waiting;
    waiting = 0;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    if (nleft)
        log_info("http", "password pool: %d waiting request(s) answered 503 at shutdown", nleft);
    while (left) {
        struct request *next = left->pool_next;
        busy(left);
        finish(left);
        left = next;
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_lock(&lock);
    started = false;
    pthread_mutex_unlock(&lock);
}

int http_pool_pending(void)
{
    pthread_mutex_lock(&lock);
    int n = waiting + running;
    pthread_mutex_unlock(&lock);
    return n;
}
