/* The PRelu micro-benchmark's kernel (calib_prelu.h). onnxruntime's npm build runs PRelu's
 * select one element per iteration: movss, comiss against zero, a branch to mulss for negative
 * inputs, movss to the output. A compiler that vectorizes this loop (a blend of the product and
 * the input) runs it several times faster than that build does, so the loop is kept scalar. */
#include "cost/calib_prelu.h"

#if defined(__clang__)
#define PRELU_SCALAR_FN
#define PRELU_SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#elif defined(__GNUC__)
#define PRELU_SCALAR_FN __attribute__((optimize("no-tree-vectorize")))
#define PRELU_SCALAR_LOOP
#else
#define PRELU_SCALAR_FN
#define PRELU_SCALAR_LOOP
#endif

PRELU_SCALAR_FN void tp_prelu_part(void *ctx, uint32_t part, uint32_t parts) {
    const tp_prelu_job *j = ctx;
    if (parts == 0 || part >= parts) return;
    size_t share = j->n / parts, begin = share * part;
    size_t end = part + 1 == parts ? j->n : begin + share;
    const float *x = j->x;
    float *y = j->y;
    float s = j->slope;
    PRELU_SCALAR_LOOP
    for (size_t i = begin; i < end; i++) {
        float v = x[i];
        if (v > 0)
            y[i] = v;
        else
            y[i] = v * s;
    }
}
