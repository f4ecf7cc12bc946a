/* A PRelu written as onnxruntime 1.30's CPU PRelu runs it (element_wise_ops.cc: an Eigen select
 * in its broadcast helper; the npm build's machine code read with objdump, not copied): one
 * element at a time, a load, a compare with zero, a branch to the product with the slope or not,
 * a store; no vector instructions. The CPU calibration's micro-benchmark of that loop
 * (docs/cost.md, "PRelu"). Internal to src/cost.
 *
 * Thread safety: tp_prelu_part writes its part of the output only: run it on a pool. */
#ifndef TP_COST_CALIB_PRELU_H
#define TP_COST_CALIB_PRELU_H

#include <stddef.h>
#include <stdint.h>

typedef struct tp_prelu_job {
    const float *x; /* n inputs */
    float *y;       /* n outputs */
    size_t n;
    float slope; /* one slope for every element (a per-channel one costs the same per element) */
} tp_prelu_job;

/* A pool function (cpu_pool.h): y = x > 0 ? x : x * slope over the part's share of the
 * elements, as a scalar loop with a branch per element. */
void tp_prelu_part(void *ctx, uint32_t part, uint32_t parts);

#endif
