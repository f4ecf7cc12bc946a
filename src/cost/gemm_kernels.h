/* Built-in f32 GEMM kernels used by the CPU calibration, one per instruction set,
 * so that "measured" means what this CPU can do, whatever a run-time BLAS is
 * configured to run (OPENBLAS_CORETYPE, say). Internal to the library. */
#ifndef TP_COST_GEMM_KERNELS_H
#define TP_COST_GEMM_KERNELS_H

#include <stdint.h>

#include "tensorplan/cost.h"

typedef struct tp_gemm_job {
    const float *a, *b; /* row-major m×k and k×n */
    float *c;           /* row-major m×n, overwritten */
    uint32_t m, k, n;
    /* B as tp_gemm_pack_b wrote it for this job's kernel (64-byte aligned), borrowed; NULL: a
     * call of many rows packs each K block of B itself, every call (a runtime pre-packs
     * constant weights once: the calibration passes them packed). */
    const float *packed_b;
} tp_gemm_job;

/* C[r0..r1) = A[r0..r1) · B. Thread-safe for disjoint row ranges of one job. */
typedef void (*tp_gemm_rows_fn)(const tp_gemm_job *j, uint32_t r0, uint32_t r1);

/* The fastest kernel this build has for the given ISA (a vector-extension kernel
 * that any C11 compiler with GCC extensions builds is the fallback), and its name
 * ("builtin-avx512", "builtin-avx2", "builtin-generic"). */
tp_gemm_rows_fn tp_gemm_kernel_for(tp_cpu_isa isa, const char **name);

/* Floats tp_gemm_pack_b writes for a k × n B for the kernel of `isa`; 0 when that kernel
 * reads B in place (the generic one): then no packed B is needed. */
size_t tp_gemm_packed_floats(tp_cpu_isa isa, uint32_t k, uint32_t n);
/* Pack the whole B of `j` for the kernel of `isa` into `out` (64-byte aligned,
 * tp_gemm_packed_floats floats), the layout the kernel reads through j->packed_b. */
void tp_gemm_pack_b(tp_cpu_isa isa, const tp_gemm_job *j, float *out);

/* Rows a worker should take at a time (a multiple of every kernel's row block). */
#define TP_GEMM_ROW_GRAIN 24u

#endif
