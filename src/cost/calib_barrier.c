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
#define TRIALS_FULL 41
#define TRIALS_QUICK 15
#define ROUNDS 250
/* A trial stops after this long even when its rounds are not done: more threads than cores
   make a spinning barrier take milliseconds (each waiter holds a core the others need). */
#define TRIAL_BUDGET_NS 20e6

typedef struct barrier_run {
    _Alignas(64) atomic_uint arrived;
    _Alignas(64) atomic_uint passed;
    _Alignas(64) atomic_uint n; /* threads that meet */
    /* rounds of each trial; the caller lowers its trial's when out of time (one slot per
       trial: a thread that leaves a trial late must not read the next trial's limit) */
    atomic_uint limit[TRIALS_FULL];
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

/* The rounds of one trial. Every thread reads the limit after a barrier, where the caller's
   last store to it is visible to all (it precedes the caller's arrival), so all stop together.
   The caller (id 0) lowers the limit to the current round when the trial is out of time and
   returns the rounds done. */
static uint32_t rounds(barrier_run *b, uint32_t id, uint32_t trial, double t0) {
    atomic_uint *limit = &b->limit[trial];
    uint32_t r = 0;
    while (r < atomic_load_explicit(limit, memory_order_relaxed)) {
        node_work(b, id);
        r++;
        if (id == 0 && tp_now_ns() - t0 > TRIAL_BUDGET_NS)
            atomic_store_explicit(limit, r, memory_order_relaxed);
        barrier_wait(b);
    }
    return r;
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
        (void)rounds(a->b, a->id, t, 0);
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
    for (uint32_t t = 0; t < TRIALS_FULL; t++)
        atomic_init(&b->limit[t], ROUNDS);
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
        uint32_t done = rounds(b, 0, t, t0);
        per[t] = (tp_now_ns() - t0) / (double)done;
    }
    for (uint32_t i = 0; i < started; i++)
        pthread_join(th[i + 1], NULL);
    tp_mem_free(NULL, b, sizeof *b);
    if (!ok) return 0;
    qsort(per, trials, sizeof per[0], barrier_cmp);
    return per[trials / 10]; /* lower decile: a trial during which another process held a core
                               measures the scheduler, not the barrier */
}
