/* Per-op-class micro-benchmarks of the CPU calibration (docs/cost.md, "Op classes"): the
 * rates of the op classes that a GEMM curve and a STREAM triad do not describe. Internal to
 * src/cost. */
#ifndef TP_COST_CALIB_OPS_H
#define TP_COST_CALIB_OPS_H

#include <stdbool.h>

#include "cost/cpu_pool.h"
#include "tensorplan/cost.h"

typedef struct tp_calib_op_rates {
    double dwconv_gflops; /* 3×3 depthwise convolution, channels blocked by 16 (NCHWc), on the
                             calling thread alone: onnxruntime's depthwise kernel gains nothing
                             from a second thread (mobilenet_v2: 2.10 ms at 1 thread, 2.12 at 2) */
    double resize_gbps;   /* bilinear 2× upsampling, bytes read + written per ns */
    /* weight bytes per ns that a 16-row GEMM streams from memory on top of its arithmetic
       (packed weight panels beyond the caches against the same in cache) */
    double gemm_stream_gbps;
    double norm_gbps;  /* row normalization (LayerNorm, 768 wide), bytes read + written per ns */
    double elapsed_ms; /* wall time the benchmarks took */
} tp_calib_op_rates;

/* Measure the rates on `pool` (its thread count), timed by CPU time like the GEMM
 * benchmarks (one thread: the thread's; several: the pool's busy time). `isa` picks the
 * vectorised depthwise kernel (AVX-512, AVX2+FMA, else GCC vector extensions). quick:
 * shorter trials. Fields that could not be measured (out of memory) are 0. */
void tp_calib_measure_op_rates(tp_pool *pool, tp_cpu_isa isa, bool quick, tp_calib_op_rates *out);

#endif
