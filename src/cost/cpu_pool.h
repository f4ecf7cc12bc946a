/* Internal: a tiny fork/join thread pool used by CPU calibration (GEMM,
 * STREAM triad, dispatch overhead) and a two-thread ping-pong for the
 * round-trip overhead. Not part of the public API. */
#ifndef TP_COST_CPU_POOL_H
#define TP_COST_CPU_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "tensorplan/core.h"

#define TP_POOL_MAX_THREADS 256

typedef void (*tp_pool_fn)(void *ctx, uint32_t part, uint32_t parts);

typedef struct tp_pool tp_pool;
typedef struct tp_pool_arg {
    tp_pool *p;
    uint32_t part;
} tp_pool_arg;

struct tp_pool {
    pthread_t th[TP_POOL_MAX_THREADS];
    uint32_t n;       /* parts per run (the caller runs part 0) */
    uint32_t started; /* helper threads started */
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    uint64_t gen;
    uint32_t pending;
    bool quit;
    tp_pool_fn fn;
    void *ctx;
    tp_pool_arg args[TP_POOL_MAX_THREADS];
    double part_ns[TP_POOL_MAX_THREADS]; /* CPU time of each part in the last run */
    double busy_ns; /* Σ over runs of the slowest part's CPU time: the time the runs would take
                       on an idle machine, robust to other processes taking the cores */
};

/* Start n-1 helper threads (n clamped to 1..TP_POOL_MAX_THREADS). TP_ERR_IO. */
tp_status tp_pool_start(tp_pool *p, uint32_t n, tp_error *err);
/* The first of n items that part `part` of `parts` runs (parts split them in contiguous, balanced
 * shares: part p runs [tp_pool_first(n, p, parts), tp_pool_first(n, p + 1, parts))). */
static inline uint32_t tp_pool_first(uint32_t n, uint32_t part, uint32_t parts) {
    return parts ? (uint32_t)((uint64_t)n * part / parts) : 0;
}
/* Run fn(ctx, part, n) for every part, the caller doing part 0; returns when
 * all parts are done. */
void tp_pool_run(tp_pool *p, tp_pool_fn fn, void *ctx);
void tp_pool_stop(tp_pool *p);
/* Run fn(ctx, 0, 1) on the caller alone (too small to split), counted in busy_ns. */
void tp_pool_run_caller(tp_pool *p, tp_pool_fn fn, void *ctx);

/* Monotonic clock in nanoseconds. */
double tp_now_ns(void);
/* CPU time of the calling thread in nanoseconds (wall clock where unavailable). */
double tp_thread_cpu_ns(void);

#endif
