/* A transpose written as onnxruntime 1.30's CPU Transpose walks one that moves its innermost
 * axis among others (transpose.cc, DoTransposeEltWise; read, not copied): the CPU calibration's
 * micro-benchmark of that walk (docs/cost.md, "Transposes"). Internal to src/cost.
 *
 * Thread safety: tp_transpose_walk_part writes the whole output: run it on one thread only (the
 * runtime's Transpose runs on the calling thread). */
#ifndef TP_COST_CALIB_TRANSPOSE_H
#define TP_COST_CALIB_TRANSPOSE_H

#include <stddef.h>
#include <stdint.h>

/* The calibration's transpose: [2, 48, 32, 64] floats with permutation (0, 3, 2, 1), 196,608
 * elements (768 KiB, within a core's L2 on the hosts measured, as a window partition's or a
 * layout change's tensor is). */
#define TP_TRANSPOSE_WALK_RANK 4
#define TP_TRANSPOSE_WALK_ELEMS ((size_t)2 * 48 * 32 * 64)

typedef struct tp_transpose_walk_job {
    const float *x; /* TP_TRANSPOSE_WALK_ELEMS, the [2, 48, 32, 64] input */
    float *y;       /* TP_TRANSPOSE_WALK_ELEMS, the [2, 64, 32, 48] output */
} tp_transpose_walk_job;

/* A pool function (cpu_pool.h), for tp_pool_run_caller: y = transpose(x). One element at a time:
 * a bounds check of the source, a four-byte copy, then a step of a multi-index over the output's
 * axes whose counters, bounds and byte strides live in arrays the loop reaches through a struct
 * (as onnxruntime's MultiIndex keeps them in vectors), the innermost axis first and the outer
 * ones when it wraps. */
void tp_transpose_walk_part(void *ctx, uint32_t part, uint32_t parts);

#endif
