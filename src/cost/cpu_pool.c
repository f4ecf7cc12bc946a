/* A tiny fork/join pool for calibration (see cpu_pool.h). */
#include "cost/cpu_pool.h"

#include <string.h>
#include <time.h>

double tp_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double tp_thread_cpu_ns(void) {
#ifdef CLOCK_THREAD_CPUTIME_ID
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
#endif
    return tp_now_ns();
}

static void *worker(void *arg) {
    tp_pool_arg *wa = arg;
    tp_pool *p = wa->p;
    uint32_t part = wa->part;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->gen == seen && !p->quit)
            pthread_cond_wait(&p->go, &p->mu);
        if (p->quit) break;
        seen = p->gen;
        tp_pool_fn fn = p->fn;
        void *ctx = p->ctx;
        uint32_t n = p->n;
        pthread_mutex_unlock(&p->mu);
        double c0 = tp_thread_cpu_ns();
        fn(ctx, part, n);
        double c1 = tp_thread_cpu_ns();
        pthread_mutex_lock(&p->mu);
        p->part_ns[part] = c1 - c0;
        if (--p->pending == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

tp_status tp_pool_start(tp_pool *p, uint32_t n, tp_error *err) {
    memset(p, 0, sizeof *p);
    if (n < 1) n = 1;
    if (n > TP_POOL_MAX_THREADS) n = TP_POOL_MAX_THREADS;
    p->n = n;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    for (uint32_t i = 1; i < n; i++) {
        p->args[i].p = p;
        p->args[i].part = i;
        if (pthread_create(&p->th[i], NULL, worker, &p->args[i]) != 0) {
            tp_pool_stop(p);
            return tp_error_set(err, TP_ERR_IO, "calibration: cannot start thread %u of %u", i, n);
        }
        p->started = i;
    }
    return TP_OK;
}

void tp_pool_run(tp_pool *p, tp_pool_fn fn, void *ctx) {
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->pending = p->started;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    double c0 = tp_thread_cpu_ns();
    fn(ctx, 0, p->n);
    double busy = tp_thread_cpu_ns() - c0;
    pthread_mutex_lock(&p->mu);
    while (p->pending > 0)
        pthread_cond_wait(&p->done, &p->mu);
    for (uint32_t i = 1; i <= p->started; i++)
        if (p->part_ns[i] > busy) busy = p->part_ns[i];
    p->busy_ns += busy;
    pthread_mutex_unlock(&p->mu);
}

void tp_pool_run_caller(tp_pool *p, tp_pool_fn fn, void *ctx) {
    double c0 = tp_thread_cpu_ns();
    fn(ctx, 0, 1);
    p->busy_ns += tp_thread_cpu_ns() - c0;
}

void tp_pool_stop(tp_pool *p) {
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t i = 1; i <= p->started; i++)
        pthread_join(p->th[i], NULL);
    p->started = 0;
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
}
