/* A spinning barrier, timed (cost/calib_barrier.h): a sense-counting barrier on two atomics,
 * the pattern of runtimes whose worker threads poll between graph nodes. */
#include "cost/calib_barrier.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/mem.h"
#include "cost/cpu_pool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SPIN_PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define SPIN_PAUSE() __asm__ __volatile__("yield")
#else
#define SPIN_PAUSE() ((void)0)
#endif

#define MAX_THREADS 64
#define TRIALS_FULL 15
#define TRIALS_QUICK 5
#define ROUNDS 2000

typedef struct barrier_run {
    _Alignas(64) atomic_uint arrived;
    _Alignas(64) atomic_uint passed;
    _Alignas(64) atomic_uint n; /* threads that meet */
    uint32_t rounds;
    _Alignas(64) volatile float sink[MAX_THREADS * 16]; /* a cache line per thread */
} barrier_run;

/* Every thread: arrive; the last one resets the count and releases the others, who spin on
   the release counter. */
static void barrier_wait(barrier_run *b) {
    unsigned gen = atomic_load_explicit(&b->passed, memory_order_relaxed);
    unsigned n = atomic_load_explicit(&b->n, memory_order_relaxed);
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == n) {
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->passed, 1, memory_order_release);
        return;
    }
    while (atomic_load_explicit(&b->passed, memory_order_acquire) == gen)
        SPIN_PAUSE();
}

/* A node's share of work: a few dependent operations on the thread's own cache line. */
static void node_work(barrier_run *b, uint32_t id) {
    volatile float *x = &b->sink[id * 16];
    for (int i = 0; i < 8; i++)
        x[i] = x[i] * 0.5f + 1.0f;
}

static void rounds(barrier_run *b, uint32_t id) {
    for (uint32_t r = 0; r < b->rounds; r++) {
        node_work(b, id);
        barrier_wait(b);
    }
}

typedef struct worker_arg {
    barrier_run *b;
    uint32_t id;
    uint32_t trials;
} worker_arg;

static void *barrier_worker(void *p) {
    worker_arg *a = p;
    for (uint32_t t = 0; t < a->trials; t++) {
        barrier_wait(a->b); /* start line */
        rounds(a->b, a->id);
    }
    return NULL;
}

static int barrier_cmp(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

double tp_calib_spin_barrier_ns(uint32_t threads, bool quick) {
    if (threads <= 1) return 0;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    barrier_run *b = tp_mem_calloc(NULL, 1, sizeof *b);
    if (!b) return 0;
    atomic_init(&b->n, threads);
    b->rounds = ROUNDS;
    uint32_t trials = quick ? TRIALS_QUICK : TRIALS_FULL;
    pthread_t th[MAX_THREADS];
    worker_arg args[MAX_THREADS];
    uint32_t started = 0;
    for (uint32_t i = 1; i < threads; i++) {
        args[i] = (worker_arg){b, i, trials};
        if (pthread_create(&th[i], NULL, barrier_worker, &args[i]) != 0) break;
        started++;
    }
    double per[TRIALS_FULL];
    bool ok = started == threads - 1;
    if (!ok) /* the started ones meet the caller alone, then stop; nothing is measured */
        atomic_store_explicit(&b->n, started + 1, memory_order_relaxed);
    for (uint32_t t = 0; t < trials; t++) {
        barrier_wait(b);
        double t0 = tp_now_ns();
        rounds(b, 0);
        per[t] = (tp_now_ns() - t0) / (double)b->rounds;
    }
    for (uint32_t i = 0; i < started; i++)
        pthread_join(th[i + 1], NULL);
    tp_mem_free(NULL, b, sizeof *b);
    if (!ok) return 0;
    qsort(per, trials, sizeof per[0], barrier_cmp);
    return per[trials / 2];
}
