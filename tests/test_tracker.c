/* Tests of the run-time memory tracker. */
/* ctest-labels: threads */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "harness.h"
#include "tensorplan/tracker.h"

TP_TEST(test_basic_counters) {
    tp_error err_s, *err = &err_s;
    tp_tracker *t = NULL;
    TP_CHECK_OK(tp_tracker_create(NULL, 1000, &t, err), err);
    TP_CHECK_EQ_U64(tp_tracker_limit_bytes(t), 1000);
    TP_CHECK_OK(tp_tracker_allocate(t, 400, err), err);
    TP_CHECK_OK(tp_tracker_allocate(t, 500, err), err);
    TP_CHECK_EQ_U64(tp_tracker_allocated_bytes(t), 900);
    TP_CHECK_EQ_U64(tp_tracker_peak_bytes(t), 900);
    TP_CHECK(tp_tracker_would_fit(t, 100));
    TP_CHECK(!tp_tracker_would_fit(t, 101));
    /* exceeding the limit: OOM, message names requested, limit, current */
    TP_CHECK_STATUS(tp_tracker_allocate(t, 101, err), TP_ERR_OOM);
    TP_CHECK_CONTAINS(err->msg, "requested 101 bytes");
    TP_CHECK_CONTAINS(err->msg, "limit 1000 bytes");
    TP_CHECK_CONTAINS(err->msg, "current 900 bytes");
    TP_CHECK_EQ_U64(tp_tracker_allocated_bytes(t), 900); /* nothing added */
    TP_CHECK_OK(tp_tracker_allocate(t, 100, err), err);  /* exactly at the limit */
    TP_CHECK_EQ_U64(tp_tracker_peak_bytes(t), 1000);
    TP_CHECK_OK(tp_tracker_deallocate(t, 600, err), err);
    TP_CHECK_EQ_U64(tp_tracker_allocated_bytes(t), 400);
    TP_CHECK_EQ_U64(tp_tracker_peak_bytes(t), 1000); /* peak stays */
    /* below zero is an error, no wrap */
    TP_CHECK_STATUS(tp_tracker_deallocate(t, 401, err), TP_ERR_UNDERFLOW);
    TP_CHECK_CONTAINS(err->msg, "only 400 are allocated");
    TP_CHECK_EQ_U64(tp_tracker_allocated_bytes(t), 400);
    /* reset keeps the limit */
    tp_tracker_reset(t);
    TP_CHECK_EQ_U64(tp_tracker_allocated_bytes(t), 0);
    TP_CHECK_EQ_U64(tp_tracker_peak_bytes(t), 0);
    TP_CHECK_EQ_U64(tp_tracker_limit_bytes(t), 1000);
    TP_CHECK_STATUS(tp_tracker_allocate(t, 1001, err), TP_ERR_OOM);
    TP_CHECK_STATUS(tp_tracker_deallocate(t, 1, err), TP_ERR_UNDERFLOW);
    tp_tracker_destroy(t);
    tp_tracker_destroy(NULL);
}

TP_TEST(test_unlimited_and_overflow) {
    tp_error err_s, *err = &err_s;
    tp_tracker *t = NULL;
    TP_CHECK_OK(tp_tracker_create(NULL, 0, &t, err), err);
    TP_CHECK_OK(tp_tracker_allocate(t, UINT64_MAX - 5, err), err);
    TP_CHECK(tp_tracker_would_fit(t, 5));
    TP_CHECK(!tp_tracker_would_fit(t, 6));
    TP_CHECK_STATUS(tp_tracker_allocate(t, 6, err), TP_ERR_OVERFLOW);
    TP_CHECK_EQ_U64(tp_tracker_allocated_bytes(t), UINT64_MAX - 5);
    TP_CHECK_OK(tp_tracker_allocate(t, 5, err), err);
    TP_CHECK_EQ_U64(tp_tracker_peak_bytes(t), UINT64_MAX);
    TP_CHECK_OK(tp_tracker_deallocate(t, UINT64_MAX, err), err);
    TP_CHECK_EQ_U64(tp_tracker_allocated_bytes(t), 0);
    /* lowering the limit below the current total keeps what is allocated */
    TP_CHECK_OK(tp_tracker_allocate(t, 50, err), err);
    tp_tracker_set_limit(t, 40);
    TP_CHECK_EQ_U64(tp_tracker_allocated_bytes(t), 50);
    TP_CHECK_STATUS(tp_tracker_allocate(t, 1, err), TP_ERR_OOM);
    TP_CHECK(!tp_tracker_would_fit(t, 0));
    TP_CHECK_STATUS(tp_tracker_allocate(NULL, 1, err), TP_ERR_INVALID);
    TP_CHECK_STATUS(tp_tracker_create(NULL, 0, NULL, err), TP_ERR_INVALID);
    tp_tracker_destroy(t);
}

TP_TEST(test_create_nomem) {
    tp_failing_allocator fa;
    tp_failing_allocator_init(&fa, 1);
    tp_error err_s, *err = &err_s;
    tp_tracker *t = (tp_tracker *)&fa; /* must be reset to NULL */
    TP_CHECK_STATUS(tp_tracker_create(&fa.hook, 0, &t, err), TP_ERR_NOMEM);
    TP_CHECK(t == NULL);
    tp_failing_allocator_init(&fa, 0);
    TP_CHECK_OK(tp_tracker_create(&fa.hook, 0, &t, err), err);
    TP_CHECK_EQ_I64(fa.live, 1);
    tp_tracker_destroy(t);
    TP_CHECK_EQ_I64(fa.live, 0);
}

TP_TEST(test_tensor_and_attention_bytes) {
    tp_error err_s, *err = &err_s;
    uint64_t v = 0;
    TP_CHECK_OK(tp_tensor_bytes((int64_t[]){2, 3, 4}, 3, TP_DTYPE_F32, &v, err), err);
    TP_CHECK_EQ_U64(v, 96);
    TP_CHECK_OK(tp_tensor_bytes(NULL, 0, TP_DTYPE_F16, &v, err), err);
    TP_CHECK_EQ_U64(v, 2);
    TP_CHECK_OK(tp_tensor_bytes((int64_t[]){4096, 4096}, 2, TP_DTYPE_Q4_K, &v, err), err);
    TP_CHECK_EQ_U64(v, 4096ull * 4096 / 256 * 144);
    TP_CHECK_STATUS(tp_tensor_bytes((int64_t[]){100}, 1, TP_DTYPE_Q4_0, &v, err), TP_ERR_SHAPE);
    TP_CHECK_STATUS(tp_tensor_bytes((int64_t[]){2, -1}, 2, TP_DTYPE_F32, &v, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "dim 1 is negative");
    TP_CHECK_STATUS(tp_tensor_bytes((int64_t[]){1ll << 40, 1ll << 30}, 2, TP_DTYPE_F32, &v, err),
                    TP_ERR_OVERFLOW);
    TP_CHECK_STATUS(tp_tensor_bytes((int64_t[]){1}, 1, (tp_dtype)999, &v, err), TP_ERR_INVALID);

    /* (3bhsd + bhs^2 + bhsd) x size: b=2 h=8 s=128 d=64 f16 */
    uint64_t b = 2, h = 8, s = 128, d = 64;
    uint64_t want = (3 * b * h * s * d + b * h * s * s + b * h * s * d) * 2;
    TP_CHECK_OK(tp_attention_bytes(2, 8, 128, 64, TP_DTYPE_F16, &v, err), err);
    TP_CHECK_EQ_U64(v, want);
    TP_CHECK_EQ_U64(v, 1572864); /* (4*131072 + 262144) * 2, by hand */
    TP_CHECK_OK(tp_attention_bytes(1, 1, 1, 1, TP_DTYPE_F32, &v, err), err);
    TP_CHECK_EQ_U64(v, 20);
    TP_CHECK_STATUS(tp_attention_bytes(1, 1, 1ll << 40, 1, TP_DTYPE_F32, &v, err), TP_ERR_OVERFLOW);
    TP_CHECK_STATUS(
        tp_attention_bytes(1ll << 20, 1ll << 20, 1ll << 20, 1ll << 10, TP_DTYPE_F32, &v, err),
        TP_ERR_OVERFLOW);
    TP_CHECK_STATUS(tp_attention_bytes(1, -1, 1, 1, TP_DTYPE_F32, &v, err), TP_ERR_INVALID);
}

TP_TEST(test_overhead) {
    tp_error err_s, *err = &err_s;
    tp_tracker *t = NULL;
    TP_CHECK_OK(tp_tracker_create(NULL, 0, &t, err), err);
    TP_CHECK_NEAR(tp_tracker_overhead_factor(t), 1.1, 1e-12);
    uint64_t v = 0;
    TP_CHECK_OK(tp_tracker_estimate_with_overhead(t, (int64_t[]){1000}, 1, TP_DTYPE_F32, &v, err),
                err);
    TP_CHECK_EQ_U64(v, 4400);
    TP_CHECK_OK(tp_tracker_estimate_with_overhead(t, (int64_t[]){3}, 1, TP_DTYPE_U8, &v, err), err);
    TP_CHECK_EQ_U64(v, 4); /* 3.3 rounded up */
    TP_CHECK_OK(tp_tracker_set_overhead_factor(t, 1.5, err), err);
    TP_CHECK_OK(tp_tracker_estimate_with_overhead(t, (int64_t[]){10, 10}, 2, TP_DTYPE_F64, &v, err),
                err);
    TP_CHECK_EQ_U64(v, 1200);
    TP_CHECK_STATUS(tp_tracker_set_overhead_factor(t, 0.5, err), TP_ERR_INVALID);
    TP_CHECK_STATUS(tp_tracker_set_overhead_factor(t, NAN, err), TP_ERR_INVALID);
    TP_CHECK_NEAR(tp_tracker_overhead_factor(t), 1.5, 1e-12);
    TP_CHECK_OK(tp_tracker_set_overhead_factor(t, 2.0, err), err);
    TP_CHECK_STATUS(
        tp_tracker_estimate_with_overhead(t, (int64_t[]){1ll << 62}, 1, TP_DTYPE_F32, &v, err),
        TP_ERR_OVERFLOW);
    TP_CHECK_STATUS(
        tp_tracker_estimate_with_overhead(t, (int64_t[]){1ll << 61}, 1, TP_DTYPE_F32, &v, err),
        TP_ERR_OVERFLOW); /* 2^63 raw x 2 = 2^64 */
    TP_CHECK_OK(tp_tracker_set_overhead_factor(t, 1.0, err), err);
    TP_CHECK_OK(
        tp_tracker_estimate_with_overhead(t, (int64_t[]){1ll << 60}, 1, TP_DTYPE_F32, &v, err),
        err);
    TP_CHECK_EQ_U64(v, 1ull << 62); /* exact for huge sizes */
    TP_CHECK_OK(tp_tracker_set_overhead_factor(t, 1.000001, err), err);
    TP_CHECK_OK(tp_tracker_estimate_with_overhead(t, (int64_t[]){1000000}, 1, TP_DTYPE_U8, &v, err),
                err);
    TP_CHECK_EQ_U64(v, 1000001);
    tp_tracker_destroy(t);
}

/* ---- stress: 8 threads x 1,000,000 operations ---- */

enum { STRESS_THREADS = 8, STRESS_OPS = 1000000, STRESS_STACK = 64 };
#define STRESS_LIMIT 200000u

typedef struct stress_arg {
    tp_tracker *t;
    unsigned seed;
    uint64_t allocated_ok; /* bytes successfully allocated by this thread */
    uint64_t freed;        /* bytes deallocated by this thread */
    uint64_t ooms;
    uint64_t max_seen; /* largest allocated/peak value observed */
    int errors;        /* unexpected statuses */
} stress_arg;

static _Atomic int stress_go;

static unsigned next_rand(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffffu;
}

static void *stress_thread(void *p) {
    stress_arg *a = p;
    uint64_t stack[STRESS_STACK];
    int top = 0;
    while (!atomic_load(&stress_go)) {
    }
    for (int i = 0; i < STRESS_OPS; i++) {
        unsigned r = next_rand(&a->seed);
        /* allocate more often than free so the limit is hit regularly */
        if (top < STRESS_STACK && (top == 0 || r % 8 < 5)) {
            uint64_t n = 1 + (r >> 4) % 2048;
            tp_status st = tp_tracker_allocate(a->t, n, NULL);
            if (st == TP_OK) {
                stack[top++] = n;
                a->allocated_ok += n;
            } else if (st == TP_ERR_OOM) {
                a->ooms++;
            } else {
                a->errors++;
            }
        } else {
            uint64_t n = stack[--top];
            if (tp_tracker_deallocate(a->t, n, NULL) != TP_OK) a->errors++;
            a->freed += n;
        }
        if ((i & 4095) == 0) sched_yield(); /* interleave the threads more */
        if ((i & 255) == 0) {
            uint64_t cur = tp_tracker_allocated_bytes(a->t);
            uint64_t pk = tp_tracker_peak_bytes(a->t);
            if (cur > a->max_seen) a->max_seen = cur;
            if (pk > a->max_seen) a->max_seen = pk;
        }
    }
    while (top > 0) {
        uint64_t n = stack[--top];
        if (tp_tracker_deallocate(a->t, n, NULL) != TP_OK) a->errors++;
        a->freed += n;
    }
    return NULL;
}

TP_TEST(test_stress_limit_never_exceeded) {
    tp_error err_s, *err = &err_s;
    tp_tracker *t = NULL;
    TP_CHECK_OK(tp_tracker_create(NULL, STRESS_LIMIT, &t, err), err);
    pthread_t th[STRESS_THREADS];
    stress_arg args[STRESS_THREADS];
    atomic_store(&stress_go, 0);
    int started = 0;
    for (int i = 0; i < STRESS_THREADS; i++) {
        args[i] = (stress_arg){.t = t, .seed = 7919u * (unsigned)(i + 1)};
        if (pthread_create(&th[i], NULL, stress_thread, &args[i]) == 0) started++;
    }
    TP_CHECK_EQ_I64(started, STRESS_THREADS);
    atomic_store(&stress_go, 1);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    uint64_t alloc_sum = 0, free_sum = 0, ooms = 0, max_seen = 0;
    int errors = 0;
    for (int i = 0; i < started; i++) {
        alloc_sum += args[i].allocated_ok;
        free_sum += args[i].freed;
        ooms += args[i].ooms;
        errors += args[i].errors;
        if (args[i].max_seen > max_seen) max_seen = args[i].max_seen;
    }
    TP_CHECK_EQ_I64(errors, 0);
    TP_CHECK_EQ_U64(alloc_sum, free_sum);
    TP_CHECK_EQ_U64(tp_tracker_allocated_bytes(t), 0); /* exact final counter */
    TP_CHECK_LE_U64(max_seen, STRESS_LIMIT);
    TP_CHECK_LE_U64(tp_tracker_peak_bytes(t), STRESS_LIMIT);
    TP_CHECK(ooms > 0); /* the limit was really contended */
    /* the peak got close to the limit: 2048 is the largest request */
    TP_CHECK(tp_tracker_peak_bytes(t) > STRESS_LIMIT - 2048);
    printf("  stress: %d threads x %d ops, %llu OOM refusals, peak %llu of %u\n", started,
           STRESS_OPS, (unsigned long long)ooms, (unsigned long long)tp_tracker_peak_bytes(t),
           STRESS_LIMIT);
    tp_tracker_destroy(t);
}

/* Unlimited: every allocation succeeds, so the final total and the peak are
 * exactly the sum of everything allocated. */
static void *sum_thread(void *p) {
    stress_arg *a = p;
    for (int i = 0; i < STRESS_OPS / 8; i++) {
        uint64_t n = 1 + next_rand(&a->seed) % 100;
        if (tp_tracker_allocate(a->t, n, NULL) != TP_OK) a->errors++;
        a->allocated_ok += n;
    }
    return NULL;
}

TP_TEST(test_stress_exact_sum) {
    tp_error err_s, *err = &err_s;
    tp_tracker *t = NULL;
    TP_CHECK_OK(tp_tracker_create(NULL, 0, &t, err), err);
    pthread_t th[STRESS_THREADS];
    stress_arg args[STRESS_THREADS];
    int started = 0;
    for (int i = 0; i < STRESS_THREADS; i++) {
        args[i] = (stress_arg){.t = t, .seed = 31u * (unsigned)(i + 3)};
        if (pthread_create(&th[i], NULL, sum_thread, &args[i]) == 0) started++;
    }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    uint64_t sum = 0;
    int errors = 0;
    for (int i = 0; i < started; i++) {
        sum += args[i].allocated_ok;
        errors += args[i].errors;
    }
    TP_CHECK_EQ_I64(started, STRESS_THREADS);
    TP_CHECK_EQ_I64(errors, 0);
    TP_CHECK_EQ_U64(tp_tracker_allocated_bytes(t), sum);
    TP_CHECK_EQ_U64(tp_tracker_peak_bytes(t), sum);
    tp_tracker_destroy(t);
}

int main(void) {
    TP_RUN(test_basic_counters);
    TP_RUN(test_unlimited_and_overflow);
    TP_RUN(test_create_nomem);
    TP_RUN(test_tensor_and_attention_bytes);
    TP_RUN(test_overhead);
    TP_RUN(test_stress_limit_never_exceeded);
    TP_RUN(test_stress_exact_sum);
    return tp_test_finish();
}
