/* Built-in int8 block-dot GEMM on AMX tiles, for the CPU calibration: the arithmetic of a
 * quantized LLM's prefill where llama.cpp runs its AMX kernels (CPUs with AMX-INT8; the
 * weights it copies into its AMX buffer, src/import/gguf_layout.c). The problem is int8_dot.h's
 * (blocks of 32 signed bytes with one float scale each), the technique the one such a runtime
 * uses: per block of 32 values, tiles of 16 rows × 16 weight rows multiplied in the matrix unit
 * (TDPBSSD), the 32-bit sums stored and scaled into float accumulators with AVX-512 (read in
 * llama.cpp's ggml-cpu/amx for the technique only). Internal to src/cost. */
#ifndef TP_COST_AMX_DOT_H
#define TP_COST_AMX_DOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cost/int8_dot.h"
#include "tensorplan/cost.h"

/* Rows and weight rows per block of the kernel: a job's m and n are multiples of it. */
#define TP_AMX_BLOCK 32u

/* Whether this build, this CPU and its operating system run AMX-INT8: the CPU and the OS's
 * saved state have it (f), and on Linux the process was granted the tile data state (requested
 * here once; the grant is process-wide). Thread-safe; false on other systems. */
bool tp_amx_dot_available(const tp_cpu_features *f);

/* Bytes of the packed weights of an n × k job (n a multiple of TP_AMX_BLOCK, k of
 * TP_Q8_BLOCK): the tiles in the matrix unit's layout and the block scales beside them. */
size_t tp_amx_dot_packed_bytes(uint32_t n, uint32_t k);

/* Pack j->w and j->sw into `packed` (tp_amx_dot_packed_bytes, 64-byte aligned). */
void tp_amx_dot_pack(const tp_int8_dot_job *j, void *packed);

/* C[:, n0..n1) of j (j->w and j->sw read from `packed` instead) on AMX tiles: j->m, n0 and n1
 * multiples of TP_AMX_BLOCK, j->k of TP_Q8_BLOCK. Only where tp_amx_dot_available; sets up and
 * releases the calling thread's tile state. Thread-safe for disjoint ranges of one job. */
void tp_amx_dot_run(const tp_int8_dot_job *j, const void *packed, uint32_t n0, uint32_t n1);

#endif
