/*
 * Unit tests for src/util/thread.c's stopper: a sleep a stop ends at once (the server's
 * connection watchdog and the worker's lanes sleep on one, so that a stop does not wait for
 * the rest of their sleep). The sleeps here are two minutes long and each sleeper is joined
 * with a deadline of half that: a stop that did not wake one fails the test (a bound on a
 * liveness that takes microseconds, not a measure of speed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <time.h>

#include "util/thread.h"

#define LONG_US (INT64_C(120) * 1000000)

struct sleeper {
    struct stopper *st;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool asleep;
    bool stopped;
};

static void *sleep_long(void *arg)
{
    struct sleeper *z = arg;
    pthread_mutex_lock(&z->mu);
    z->asleep = true;
    pthread_cond_signal(&z->cv);
    pthread_mutex_unlock(&z->mu);
    z->stopped = stopper_sleep(z->st, LONG_US);
    return NULL;
}

/* Joins t, failing when it has not ended within half a long sleep. */
static void join_woken(pthread_t t)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += LONG_US / 2000000;
    assert_int_equal(pthread_timedjoin_np(t, NULL, &ts), 0);
}

/* Starts n sleepers on st and returns once each is about to sleep. */
static void start_sleepers(struct stopper *st, struct sleeper *z, pthread_t *t, int n)
{
    for (int i = 0; i < n; i++) {
        z[i] = (struct sleeper){.st = st};
        pthread_mutex_init(&z[i].mu, NULL);
        pthread_cond_init(&z[i].cv, NULL);
        assert_int_equal(pthread_create(&t[i], NULL, sleep_long, &z[i]), 0);
        pthread_mutex_lock(&z[i].mu);
        while (!z[i].asleep)
            pthread_cond_wait(&z[i].cv, &z[i].mu);
        pthread_mutex_unlock(&z[i].mu);
    }
}

static void test_a_stop_wakes_every_sleeper(void **state)
{
    (void)state;
    struct stopper st = STOPPER_INIT;
    struct sleeper z[3];
    pthread_t t[3];
    start_sleepers(&st, z, t, 3);
    assert_false(stopper_sleep(&st, 0));
    stopper_stop(&st);
    for (int i = 0; i < 3; i++) {
        join_woken(t[i]);
        assert_true(z[i].stopped);
    }
    assert_true(stopper_sleep(&st, 0));
}

static void test_a_sleep_after_the_stop_returns_at_once(void **state)
{
    (void)state;
    struct stopper st = STOPPER_INIT;
    stopper_stop(&st);
    assert_true(stopper_sleep(&st, LONG_US));
}

static void test_a_sleep_without_a_stop_runs_its_time(void **state)
{
    (void)state;
    struct stopper st = STOPPER_INIT;
    assert_false(stopper_sleep(&st, 1000));
    assert_false(stopper_sleep(&st, 0));
    assert_false(stopper_sleep(&st, 1500000)); /* microseconds past a whole second */
}

static void test_a_reset_lets_the_loop_sleep_again(void **state)
{
    (void)state;
    struct stopper st = STOPPER_INIT;
    stopper_stop(&st);
    stopper_reset(&st);
    assert_false(stopper_sleep(&st, 0));
    assert_false(stopper_sleep(&st, 1000));
    struct sleeper z[1];
    pthread_t t[1];
    start_sleepers(&st, z, t, 1);
    stopper_stop(&st);
    join_woken(t[0]);
    assert_true(z[0].stopped);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_stop_wakes_every_sleeper),
        cmocka_unit_test(test_a_sleep_after_the_stop_returns_at_once),
        cmocka_unit_test(test_a_sleep_without_a_stop_runs_its_time),
        cmocka_unit_test(test_a_reset_lets_the_loop_sleep_again),
    };
    return cmocka_run_group_tests_name("util/thread", tests, NULL, NULL);
}
