#ifndef WHISTLE_UTIL_THREAD_H
#define WHISTLE_UTIL_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* Starts fn(arg) on a detached thread that takes no signal (every signal blocked in it, so
 * that SIGINT/SIGTERM reach the thread that sigwaits for them: http_serve): the process's
 * background loaders and builders. 0, or -1 when the thread could not start (fn never
 * runs; arg is the caller's). */
int thread_detached(void *(*fn)(void *), void *arg);

/* A stop a sleeping thread wakes up for at once (a loop that sleeps between rounds and must
 * not hold its process's exit for the rest of a sleep). Static initializer: STOPPER_INIT. */
struct stopper {
    pthread_mutex_t mu;
    pthread_cond_t wake;
    bool stop;
};
#define STOPPER_INIT                                                                               \
    {                                                                                              \
        PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false                                 \
    }

/* Sleeps us microseconds or until stopper_stop: true when stopped (us 0: whether it is). */
bool stopper_sleep(struct stopper *st, int64_t us);
/* Stops every sleeper, now and later. */
void stopper_stop(struct stopper *st);
/* Lets sleepers sleep again (a loop started anew after a stop). */
void stopper_reset(struct stopper *st);

#endif
