#ifndef WHISTLE_UTIL_THREAD_H
#define WHISTLE_UTIL_THREAD_H

/* Starts fn(arg) on a detached thread that takes no signal (every signal blocked in it, so
 * that SIGINT/SIGTERM reach the thread that sigwaits for them: http_serve): the process's
 * background loaders and builders. 0, or -1 when the thread could not start (fn never
 * runs; arg is the caller's). */
int thread_detached(void *(*fn)(void *), void *arg);

#endif
