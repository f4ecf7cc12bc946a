/* Internal: the weights llama.cpp's CPU backend repacks for its matrix kernels (the rules of
 * ggml-cpu/repack.cpp's ggml_repack_get_optimal_repack_type, read, not copied), shared by the
 * model buffers (src/import/gguf_layout.c: what moves to the CPU_REPACK buffer) and the
 * throughput (llm_speed.c: which kernel multiplies an MoE's experts). Pure: thread-safe. */
#ifndef TP_ESTIMATE_LLM_REPACK_H
#define TP_ESTIMATE_LLM_REPACK_H

#include <stdbool.h>
#include <stdint.h>

#include "tensorplan/dtype.h"
#include "tensorplan/llm.h"

/* A weight the model multiplies (MUL_MAT, or MUL_MAT_ID for stacked experts), not a table read
   by rows (GET_ROWS): named *.weight, not an embedding or token-type table. */
bool tp__llm_multiplied(const char *name);

/* Whether rule k repacks the weight `name` of type dt with n_dims dimensions and ne[1] = rows:
   x86 (AVX2, AVX-512; AMX for what its own buffer does not take): q4_0, q4_K, iq4_nl and mxfp4,
   q2_K with AVX-512, for a multiplied 2-D weight or 3-D stacked experts (*_exps) whose rows are
   a multiple of 8. NONE and AUTO repack nothing (resolve AUTO first). */
bool tp__llm_repacked(tp_llm_repack k, const char *name, tp_dtype dt, uint32_t n_dims,
                      uint64_t rows);

#endif
