/* Model buffers as llama.cpp allocates them on the CPU backend with mmap:
 * the tensors stay in the mapping, and the buffer spans the byte range from
 * the first tensor to the end of the last (llama_model_loader::
 * get_mapping_range); tensors the CPU backend repacks for its matrix kernels
 * move to a CPU_REPACK buffer instead (each padded to TENSOR_ALIGNMENT, 32).
 * Repack rules of ggml-cpu/repack.cpp (ggml_repack_get_optimal_repack_type;
 * src/estimate/llm_repack.c) on x86: q4_0, q4_K, iq4_nl and mxfp4 with AVX2, q2_K with AVX-512, for
 * a matrix multiplied weight (2-D, or 3-D stacked experts) whose ne[1] is a multiple of 8.
 * Embedding tables are read by row (GET_ROWS), never repacked; but a model without output.weight
 * multiplies by token_embd (a duplicate in the output layer), and that duplicate is repacked:
 * token_embd then counts in both the mapping and the CPU_REPACK buffer. A llama.cpp built with AMX
 * (GGML_AMX_INT8: node-llama-cpp's sapphirerapids CPU variant, a native build on such a CPU) first
 * offers each weight to its AMX buffer (ggml-cpu/amx, read, not copied): a MUL_MAT weight (not
 * MUL_MAT_ID experts, not GET_ROWS tables) of F16, Q4_0, Q4_1, Q8_0, Q4_K, Q5_K, Q6_K or IQ4_XS
 * whose ne[1] is a multiple of 32 and whose ne[0] is a multiple of 16 (F16), 32 (Q4_0, Q4_1, Q8_0)
 * or 256 (the K-quants, IQ4_XS); F16 is copied as it is, the quantized ones in a packed layout
 * whose rows carry per block 4 more bytes (Q8_0's compensation, Q4_K's and Q5_K's unpacked scales)
 * or 2 (IQ4_XS). What AMX does not take goes to the AVX-512 rule. */
#include <string.h>

#include "estimate/llm_amx.h"
#include "estimate/llm_repack.h"
#include "gguf_layout.h"

#define REPACK_ALIGN 32 /* ggml TENSOR_ALIGNMENT */

void tp_gguf_layout_init(tp_gguf_layout *l) {
    memset(l, 0, sizeof *l);
}

/* The bytes of the tensor in the AMX buffer (its packed size), 0 when AMX does not take it. */
static uint64_t amx_bytes(const char *name, tp_dtype dt, uint32_t n_dims, const uint64_t *dims) {
    if (n_dims < 2 || n_dims > 3 || strstr(name, "_exps") || !tp__llm_multiplied(name)) return 0;
    uint64_t k = dims[0], n = dims[1], slices = n_dims == 3 ? dims[2] : 1;
    if (n % 32 != 0) return 0;     /* the product's ne[0]: two tiles of 16 columns */
    uint64_t align = 0, extra = 0; /* elements; bytes per block beyond the block itself */
    if (!tp__llm_amx_type(dt, &align, &extra) || k % align != 0) return 0;
    const tp_dtype_info *di = tp_dtype_get(dt);
    if (!di || di->block_elems == 0) return 0;
    uint64_t blocks = k / di->block_elems, row, all;
    if (!tp_mul_u64(blocks, (uint64_t)di->block_bytes + extra, &row) || !tp_mul_u64(row, n, &all) ||
        !tp_mul_u64(all, slices, &all))
        return 0;
    return all;
}

bool tp_gguf_layout_add(tp_gguf_layout *l, const char *name, tp_dtype dt, uint32_t n_dims,
                        const uint64_t *dims, uint64_t offset, uint64_t bytes) {
    uint64_t end;
    if (!tp_add_u64(offset, bytes, &end)) return false;
    if (strcmp(name, "output.weight") == 0) l->has_output = true;
    if (strcmp(name, "token_embd.weight") == 0 && n_dims == 2) {
        l->has_embd = true;
        l->embd_dt = dt;
        l->embd_n_dims = n_dims;
        l->embd_dims[0] = dims[0];
        l->embd_dims[1] = dims[1];
        l->embd_bytes = bytes;
    }
    if (end >= l->end_max) {
        l->end_max = end;
        strncpy(l->end_name, name, sizeof l->end_name - 1);
        l->end_name[sizeof l->end_name - 1] = '\0';
    }
    for (int k = TP_LLM_REPACK_NONE; k < TP_LLM_REPACK_COUNT; k++) {
        uint64_t moved = k == TP_LLM_REPACK_AMX ? amx_bytes(name, dt, n_dims, dims) : 0;
        if (moved == 0 &&
            tp__llm_repacked((tp_llm_repack)k, name, dt, n_dims, n_dims >= 2 ? dims[1] : 0))
            moved = bytes;
        if (moved > 0) {
            uint64_t padded;
            if (!tp_align_up_u64(moved, REPACK_ALIGN, &padded) ||
                !tp_add_u64(l->out[k].repack_bytes, padded, &l->out[k].repack_bytes))
                return false;
            l->out[k].repacked_tensors++;
            continue;
        }
        if (!l->any[k] || offset < l->first[k]) l->first[k] = offset;
        if (!l->any[k] || end > l->last[k]) l->last[k] = end;
        l->any[k] = true;
    }
    return true;
}

void tp_gguf_layout_next_file(tp_gguf_layout *l) {
    for (int k = 0; k < TP_LLM_REPACK_COUNT; k++) {
        if (l->any[k])
            l->mapped_sum[k] = tp_sat_add_u64(l->mapped_sum[k], l->last[k] - l->first[k]);
        l->any[k] = false;
        l->first[k] = l->last[k] = 0;
    }
    l->end_max = 0;
    l->end_name[0] = '\0';
}

void tp_gguf_layout_finish(tp_gguf_layout *l, tp_llm_config *c) {
    tp_gguf_layout_next_file(l);
    for (int k = 0; k < TP_LLM_REPACK_COUNT; k++) {
        c->layout[k] = l->out[k];
        c->layout[k].mapped_bytes = l->mapped_sum[k];
        /* the tied output: token_embd's duplicate, multiplied, so repacked */
        if (!l->has_output && l->has_embd) {
            uint64_t moved = k == TP_LLM_REPACK_AMX ? amx_bytes("output.weight", l->embd_dt,
                                                                l->embd_n_dims, l->embd_dims)
                                                    : 0;
            if (moved == 0 && tp__llm_repacked((tp_llm_repack)k, "output.weight", l->embd_dt,
                                               l->embd_n_dims, l->embd_dims[1]))
                moved = l->embd_bytes;
            if (moved == 0) continue;
            uint64_t padded = tp_sat_add_u64(moved, REPACK_ALIGN - 1) / REPACK_ALIGN * REPACK_ALIGN;
            c->layout[k].repack_bytes = tp_sat_add_u64(c->layout[k].repack_bytes, padded);
            c->layout[k].repacked_tensors++;
            c->tied_repacked = (uint8_t)(c->tied_repacked | (1u << k));
        }
    }
}
