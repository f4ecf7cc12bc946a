/* A small interpreter's steps, timed (cost/calib_step.h). */
#include "cost/calib_step.h"

#include <stdint.h>
#include <stdlib.h>

#include "core/mem.h"
#include "cost/cpu_pool.h"

#define STEPS 2048
#define NODES 64
#define LANES 64
#define TRIALS_FULL 48
#define TRIALS_QUICK 16

typedef struct step_node {
    uint32_t op, next;
    int64_t dims[4];
} step_node;

typedef void (*step_kernel)(const float *x, float *y, size_t n);

static void k_abs(const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] < 0 ? -x[i] : x[i];
}
static void k_neg(const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++)
        y[i] = -x[i];
}
static void k_half(const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] * 0.5f + 0.25f;
}

static int step_cmp(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* one trial: STEPS steps through the node table; false when a block cannot be allocated */
static bool trial(const step_node *nodes, step_kernel const volatile *table, float *in,
                  double *ns) {
    float *prev = NULL;
    size_t prev_bytes = 0;
    const float *x = in;
    uint32_t at = 0;
    double t0 = tp_thread_cpu_ns();
    for (int s = 0; s < STEPS; s++) {
        const step_node *nd = &nodes[at];
        size_t count = 1;
        for (int d = 0; d < 4; d++)
            count *= (size_t)nd->dims[d];
        float *y = tp_mem_alloc(NULL, count * sizeof(float));
        if (!y) {
            if (prev) tp_mem_free(NULL, prev, prev_bytes);
            return false;
        }
        step_kernel k = table[nd->op];
        k(x, y, LANES);
        if (prev) tp_mem_free(NULL, prev, prev_bytes);
        prev = y;
        prev_bytes = count * sizeof(float);
        x = y;
        at = nd->next;
    }
    *ns = (tp_thread_cpu_ns() - t0) / STEPS;
    in[0] += prev[LANES - 1]; /* the chain's result is read */
    tp_mem_free(NULL, prev, prev_bytes);
    return true;
}

double tp_calib_step_ns(bool quick) {
    static step_kernel const volatile table[3] = {k_abs, k_neg, k_half};
    step_node nodes[NODES];
    for (uint32_t i = 0; i < NODES; i++) {
        nodes[i].op = (i * 7u) % 3u;
        nodes[i].next = (i * 29u + 11u) % NODES; /* 29 is prime to 64: every node is visited */
        nodes[i].dims[0] = 1;
        nodes[i].dims[1] = 4;
        nodes[i].dims[2] = 4;
        nodes[i].dims[3] = LANES / 16;
    }
    float in[LANES];
    for (int i = 0; i < LANES; i++)
        in[i] = (float)(i % 9) * 0.25f - 1.0f;
    int n = quick ? TRIALS_QUICK : TRIALS_FULL;
    double s[TRIALS_FULL];
    for (int i = 0; i < n; i++)
        if (!trial(nodes, table, in, &s[i])) return 0;
    qsort(s, (size_t)n, sizeof s[0], step_cmp);
    return s[n / 10]; /* lower decile: a trial during which the core was taken does not count */
}
