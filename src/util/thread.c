#include "util/thread.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

int thread_detached(void *(*fn)(void *), void *arg)
{
    sigset_t sigs, old;
    sigfillset(&sigs);
    pthread_sigmask(SIG_BLOCK, &sigs, &old);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, fn, arg) == 0 ? 0 : -1;
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* The condition variable is PTHREAD_COND_INITIALIZER's (CLOCK_REALTIME): the deadline is taken
 * on that clock; a clock step makes one sleep longer or shorter, never a stop missed. */
bool stopper_sleep(struct stopper *st, int64_t us)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t ns = ts.tv_nsec + (us % 1000000) * 1000;
    ts.tv_sec += (time_t)(us / 1000000 + ns / 1000000000);
    ts.tv_nsec = (long)(ns % 1000000000);
    pthread_mutex_lock(&st->mu);
    while (!st->stop && pthread_cond_timedwait(&st->wake, &st->mu, &ts) == 0)
        ;
    bool stopped = st->stop;
    pthread_mutex_unlock(&st->mu);
    return stopped;
}

void stopper_stop(struct stopper *st)
{
    pthread_mutex_lock(&st->mu);
    st->stop = true;
    pthread_cond_broadcast(&st->wake);
    pthread_mutex_unlock(&st->mu);
}

void stopper_reset(struct stopper *st)
{
    pthread_mutex_lock(&st->mu);
    st->stop = false;
    pthread_mutex_unlock(&st->mu);
}
