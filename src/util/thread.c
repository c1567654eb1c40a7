#include "util/thread.h"

#include <pthread.h>
#include <signal.h>

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
