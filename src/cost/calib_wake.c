/* One sleeping thread woken, timed on the waker's side (cost/calib_wake.h). */
#include "cost/calib_wake.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "cost/cpu_pool.h"

#define WAKES_FULL 64
#define WAKES_QUICK 24
#define PAUSE_NS 100000L /* the woken thread is asleep again well before this */

typedef struct wake_run {
    pthread_mutex_t mu;
    pthread_cond_t go;
    uint64_t gen;           /* under mu: the wake-up the sleeper waits for */
    bool quit;              /* under mu */
    atomic_ullong answered; /* the last wake-up the sleeper saw */
} wake_run;

static void *sleeper(void *p) {
    wake_run *w = p;
    uint64_t seen = 0;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->gen == seen && !w->quit)
            pthread_cond_wait(&w->go, &w->mu);
        if (w->quit) break;
        seen = w->gen;
        atomic_store_explicit(&w->answered, seen, memory_order_release);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static int wake_cmp(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static void pause_between(void) {
    struct timespec ts = {0, PAUSE_NS};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

double tp_calib_wake_ns(uint32_t threads, bool quick) {
    if (threads <= 1) return 0;
    wake_run w;
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.go, NULL);
    w.gen = 0;
    w.quit = false;
    atomic_init(&w.answered, 0);
    pthread_t th;
    double result = 0;
    if (pthread_create(&th, NULL, sleeper, &w) == 0) {
        int n = quick ? WAKES_QUICK : WAKES_FULL;
        double s[WAKES_FULL];
        for (int i = 0; i < n; i++) {
            pause_between();
            double t0 = tp_now_ns();
            pthread_mutex_lock(&w.mu);
            uint64_t g = ++w.gen;
            pthread_cond_signal(&w.go);
            pthread_mutex_unlock(&w.mu);
            s[i] = tp_now_ns() - t0;
            while (atomic_load_explicit(&w.answered, memory_order_acquire) != g) {
            }
        }
        pthread_mutex_lock(&w.mu);
        w.quit = true;
        pthread_cond_signal(&w.go);
        pthread_mutex_unlock(&w.mu);
        pthread_join(th, NULL);
        qsort(s, (size_t)n, sizeof s[0], wake_cmp);
        result = s[n / 10]; /* lower decile, as for the fork/join (dispatch_ns): a wake-up
                               during which another process held a core measures the scheduler */
    }
    pthread_cond_destroy(&w.go);
    pthread_mutex_destroy(&w.mu);
    return result;
}
