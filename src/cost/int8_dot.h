/* Built-in int8 block-dot GEMM kernels for the CPU calibration: the arithmetic of a quantized
 * LLM's prefill on a CPU (llama.cpp's q8_0 × q8_0 and repacked q4_0 products): blocks of 32
 * signed 8-bit values with one float scale each, multiplied in integer lanes, the block sums
 * scaled and accumulated in float. One kernel per instruction set, chosen at run time, so that
 * the calibration measures what this CPU's integer dot products do (AVX-512 VNNI, AVX2, else
 * plain C); docs/cost.md, "Session 12". Internal to src/cost. */
#ifndef TP_COST_INT8_DOT_H
#define TP_COST_INT8_DOT_H

#include <stdint.h>

#include "tensorplan/cost.h"

/* Values per block and the size of one block of either operand. */
#define TP_Q8_BLOCK 32u

typedef struct tp_int8_dot_job {
    const int8_t *a;  /* m rows of k values (row-major, k a multiple of TP_Q8_BLOCK) */
    const float *sa;  /* m × k/32 block scales of a */
    const int8_t *w;  /* n rows of k values: weight rows, contiguous over k as GGUF stores them */
    const float *sw;  /* n × k/32 block scales of w */
    float *c;         /* m × n, row-major, overwritten */
    uint32_t m, k, n; /* k a multiple of TP_Q8_BLOCK */
} tp_int8_dot_job;

/* C[:, n0..n1) = Σ over blocks of sa · sw · (a · w) for weight rows n0..n1: thread-safe for
 * disjoint ranges of one job. */
typedef void (*tp_int8_dot_fn)(const tp_int8_dot_job *j, uint32_t n0, uint32_t n1);

/* The fastest kernel this build has for this CPU, and its name ("int8-avx512vnni",
 * "int8-avx2", "int8-generic"). Never NULL. */
tp_int8_dot_fn tp_int8_dot_kernel_for(const tp_cpu_features *f, const char **name);

/* Every kernel this build could run on `f` (at most 3), fastest first: for the tests. */
uint32_t tp_int8_dot_kernels(const tp_cpu_features *f, tp_int8_dot_fn *out, const char **names);

#endif
