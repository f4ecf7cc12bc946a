/* Built-in 8-bit integer GEMM kernels for the CPU calibration: the arithmetic of onnxruntime's
 * quantized operators (MatMulInteger, DynamicQuantizeMatMul, QLinearConv, QLinearMatMul,
 * ConvInteger), whose MLAS kernels multiply unsigned 8-bit activations by signed 8-bit weights
 * ("u8s8": AVX2 vpmaddubsw, AVX-512 VNNI / AVX-VNNI vpdpbusd) or, when both operands are
 * unsigned, widen them to 16 bits first ("u8u8": vpmaddwd). The calibration times each against
 * the built-in float32 kernel on the same shape and threads, and the ratios price those
 * operators against the float32 GEMM curve (docs/cost.md, "Integer matrix products").
 * Internal to src/cost; thread-safe for disjoint row ranges of one job. */
#ifndef TP_COST_QGEMM_KERNELS_H
#define TP_COST_QGEMM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "tensorplan/cost.h"

/* Rows and columns of a kernel's register block: a job's m and n are multiples of them. */
#define TP_QGEMM_MR 4u
#define TP_QGEMM_NR 16u

typedef enum tp_qgemm_kind {
    TP_QGEMM_U8S8, /* unsigned activations × signed weights */
    TP_QGEMM_U8U8  /* both unsigned: widened to 16 bits */
} tp_qgemm_kind;

typedef struct tp_qgemm_job {
    const uint8_t *a; /* U8S8: m × k bytes; U8U8: m × k int16 (the widened bytes), row-major */
    const void *b;    /* B (k × n) as tp_qgemm_pack_b wrote it for this kind */
    int32_t *c;       /* m × n, row-major, overwritten */
    uint32_t m, k, n; /* m a multiple of TP_QGEMM_MR, n of TP_QGEMM_NR, k of 4 */
} tp_qgemm_job;

/* C[r0..r1) = A[r0..r1) · B, r0 and r1 multiples of TP_QGEMM_MR. */
typedef void (*tp_qgemm_rows_fn)(const tp_qgemm_job *j, uint32_t r0, uint32_t r1);

/* Bytes of B packed for `kind` (k × n values). */
size_t tp_qgemm_packed_bytes(tp_qgemm_kind kind, uint32_t k, uint32_t n);
/* Pack a row-major k × n B (`b`: int8 for U8S8, uint8 for U8U8) into `out`, as the kernels read
 * it: U8S8 groups of 4 consecutive k of one column (the operand of one 32-bit lane), U8U8 pairs
 * of k widened to int16. */
void tp_qgemm_pack_b(tp_qgemm_kind kind, const void *b, uint32_t k, uint32_t n, void *out);

/* The fastest kernel of `kind` this build has for the CPU (AVX-512 VNNI, AVX2, else plain C)
 * and its name ("u8s8-avx512vnni", "u8s8-avx2", "u8s8-generic", "u8u8-avx2", ...). Never NULL.
 * `feat` NULL: the plain C kernel. */
tp_qgemm_rows_fn tp_qgemm_kernel_for(tp_qgemm_kind kind, const tp_cpu_features *feat,
                                     const char **name);
/* Every kernel of `kind` this build could run on `feat` (at most 3), fastest first. */
uint32_t tp_qgemm_kernels(tp_qgemm_kind kind, const tp_cpu_features *feat, tp_qgemm_rows_fn *out,
                          const char **names);

#endif
