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
    double norm_gbps; /* row normalization (LayerNorm, 768 wide), bytes read + written per ns */
    /* residual add + LayerNorm (768 wide) whose row statistics are a running mean and variance
       (onnxruntime's SkipLayerNormalization): both addends read + the output written, per ns */
    double skip_norm_gbps;
    /* erf GELU as onnxruntime's Gelu kernel runs it (calib_gelu.h), input read + output written,
       per ns */
    double gelu_gbps;
    /* BiasGelu as onnxruntime's kernel runs it (calib_gelu.h: a bias added per row of 1536, a
       scratch tensor, three passes, MLAS's FMA3 or 4-lane erf), input read + output written per
       ns */
    double bias_gelu_gbps;
    /* PRelu as onnxruntime's kernel runs it (calib_prelu.h: one element at a time, a branch on
       its sign), input read + output written per ns */
    double prelu_gbps;
    /* im2col of a 3×3 convolution (32 channels of 28×28) and its packing for the GEMM,
       column-buffer bytes per ns */
    double im2col_gbps;
    /* col2im of a 2×2, stride-2 transposed convolution (16 channels of 48×48): column-buffer
       bytes read and added into the output per ns, one element at a time, on the calling thread
       alone (onnxruntime's ConvTranspose adds its columns back on one thread) */
    double col2im_gbps;
    /* the element-at-a-time walk of a transpose that moves its innermost axis among others
       (calib_transpose.h: [2, 48, 32, 64] by (0, 3, 2, 1)), element bytes copied per ns, on the
       calling thread alone (onnxruntime's Transpose runs there) */
    double transpose_gbps;
    /* int8 block-dot GEMM (int8_dot.h: 64 rows × 256 weight rows × 2048, in cache), 2 ops per
       multiply-add per ns, on every thread of the pool; and the kernel that ran it */
    double int8_dot_gops;
    const char *int8_kernel;
    /* the same problem on AMX tiles (amx_dot.h); 0 where this CPU or OS has no AMX-INT8 */
    double amx_int8_gops;
    /* 8-bit integer GEMM (qgemm_kernels.h: 256 × 256 × 256, B packed, on the calling thread)
       against the built-in float32 kernel on the same shape and thread, timed one after the
       other trial by trial: u8 × s8 and u8 × u8 multiply-adds per float32 multiply-add time (0: not
       measured), and the kernels that ran them */
    double u8s8_speedup, u8u8_speedup;
    const char *u8s8_kernel, *u8u8_kernel;
    /* extra ns per vector multiply-add whose broadcast operand is denormal (one thread); 0: no
       measurable extra */
    double denormal_ns;
    double elapsed_ms; /* wall time the benchmarks took */
} tp_calib_op_rates;

/* Measure the rates on `pool` (its thread count), timed by CPU time like the GEMM
 * benchmarks (one thread: the thread's; several: the pool's busy time). `feat` picks the
 * vectorised depthwise kernel (AVX-512, AVX2+FMA, else GCC vector extensions) and the int8
 * kernel (AVX-512 VNNI, AVX2, else plain C). quick: shorter trials. Fields that could not be
 * measured (out of memory) are 0. */
void tp_calib_measure_op_rates(tp_pool *pool, const tp_cpu_features *feat, bool quick,
                               tp_calib_op_rates *out);

#endif
