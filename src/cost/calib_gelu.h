/* A GELU kernel written as onnxruntime 1.30 runs an erf Gelu on a CPU, the CPU calibration's
 * micro-benchmark of that op class (docs/cost.md, "GELU"). Internal to src/cost.
 *
 * Thread safety: tp_gelu_part writes only its own parts' chunks of the job's output. */
#ifndef TP_COST_CALIB_GELU_H
#define TP_COST_CALIB_GELU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorplan/cost.h"

/* Elements per task: onnxruntime's Gelu splits its tensor into tasks of this many. */
#define TP_GELU_CHUNK 4096

/* The kernel onnxruntime 1.30 picks for its float Gelu (MLAS's platform table, read; its
 * AVX-512 kernel seen in the npm package's machine code). */
typedef enum tp_gelu_kernel {
    TP_GELU_AVX512, /* 16 lanes, the whole GELU in one pass (AVX-512 F) */
    TP_GELU_FMA8,   /* three passes per task, the erf on 8 lanes with FMA (AVX2 + FMA) */
    TP_GELU_V4      /* three passes per task, the erf on 4 lanes (any other CPU) */
} tp_gelu_kernel;

typedef struct tp_gelu_job {
    const float *x;
    float *y;
    size_t n; /* elements, a multiple of TP_GELU_CHUNK (and of bias_len) */
    tp_gelu_kernel kernel;
    /* BiasGelu (onnxruntime's contrib kernel, bias_gelu.cc, read): a bias of bias_len elements
     * (a multiple of 8) added to every row of that many, and a scratch tensor as large as x;
     * NULL: Gelu. */
    const float *bias;
    float *temp;
    size_t bias_len;
} tp_gelu_job;

tp_gelu_kernel tp_gelu_kernel_for(const tp_cpu_features *feat);
/* The erf kernel of onnxruntime 1.30's BiasGelu: MLAS's ComputeErf, whose x86-64 kernel is the
 * FMA3 one wherever AVX2 and FMA are (AVX-512 included: MLAS's platform table has no AVX-512
 * erf), else the 4-lane one. Never TP_GELU_AVX512. */
tp_gelu_kernel tp_bias_gelu_kernel_for(const tp_cpu_features *feat);

/* A pool function (cpu_pool.h): y = x/2 · (1 + erf(x / sqrt 2)) over the job's chunks of part
 * `part` of `parts`. The error function is a polynomial for small |x| and 1 - exp of another for
 * large |x|, both computed for every lane and one kept. Except on AVX-512, each chunk takes three
 * passes as onnxruntime's kernel makes them: the scaled input into y, the error function of y in
 * place, then the product. With a bias (BiasGelu), the job's rows of bias_len elements instead, in
 * three passes per row as onnxruntime's kernel makes them: value = x + bias into y scaled by
 * 1/sqrt 2 and into temp halved, the error function of y in place, then y = temp · (y + 1). */
void tp_gelu_part(void *ctx, uint32_t part, uint32_t parts);

#endif
