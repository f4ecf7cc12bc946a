/* The AMX rule of the GGUF model buffers (src/import/gguf_layout.c, docs/estimate.md "AMX"): a
 * llama.cpp built with AMX copies the matrix weights its AMX kernels take into an AMX buffer in
 * their packed size, and the rest follows the AVX-512 repack rule. Hand-computed on a made-up
 * tensor list; llama.cpp itself is the truth in tests/cli/test_llm_truth.sh (on a CPU with AMX). */
#include <string.h>

#include "harness.h"
#include "import/gguf_layout.h"

static void add(tp_gguf_layout *lay, const char *name, tp_dtype dt, uint32_t n_dims, uint64_t d0,
                uint64_t d1, uint64_t d2, uint64_t *offset, uint64_t bytes) {
    uint64_t dims[3] = {d0, d1, d2};
    TP_CHECK(tp_gguf_layout_add(lay, name, dt, n_dims, dims, *offset, bytes));
    *offset += bytes;
}

/* one layout and config for each test (large: static) */
static tp_gguf_layout l;
static tp_llm_config c;

static void start(void) {
    memset(&c, 0, sizeof c);
    tp_gguf_layout_init(&l);
}

TP_TEST(amx_takes_the_matrices_its_kernels_multiply) {
    start();
    uint64_t off = 0;
    /* a table read by rows: mapped (and, with no output.weight, its multiplied duplicate below) */
    add(&l, "token_embd.weight", TP_DTYPE_Q8_0, 2, 64, 64, 0, &off, 2 * 34 * 64);
    /* Q8_0 64 x 64: 2 blocks a row of 34 + 4 bytes (compensation) x 64 rows = 4864 */
    add(&l, "blk.0.attn_q.weight", TP_DTYPE_Q8_0, 2, 64, 64, 0, &off, 2 * 34 * 64);
    /* F16 48 x 32 (K a multiple of 16): copied as it is, 3072 */
    add(&l, "blk.0.attn_k.weight", TP_DTYPE_F16, 2, 48, 32, 0, &off, 48 * 32 * 2);
    /* BF16: no AMX kernel, mapped */
    add(&l, "blk.0.attn_v.weight", TP_DTYPE_BF16, 2, 64, 64, 0, &off, 64 * 64 * 2);
    /* Q4_K with 48 rows (not a multiple of 32): not AMX; the AVX-512 rule repacks it (6912) */
    add(&l, "blk.0.ffn_up.weight", TP_DTYPE_Q4_K, 2, 256, 48, 0, &off, 144 * 48);
    /* Q5_K: 1 block of 176 + 4 bytes x 32 rows = 5760; Q6_K: 210 x 32 = 6720; IQ4_XS: (136 + 2)
       x 32 = 4416 */
    add(&l, "blk.0.ffn_gate.weight", TP_DTYPE_Q5_K, 2, 256, 32, 0, &off, 176 * 32);
    add(&l, "blk.0.ffn_down.weight", TP_DTYPE_Q6_K, 2, 256, 32, 0, &off, 210 * 32);
    add(&l, "blk.0.attn_output.weight", TP_DTYPE_IQ4_XS, 2, 256, 32, 0, &off, 136 * 32);
    /* stacked experts (MUL_MAT_ID): never AMX; Q8_0 is not repacked either: mapped */
    add(&l, "blk.0.ffn_up_exps.weight", TP_DTYPE_Q8_0, 3, 64, 64, 4, &off, 4 * 2 * 34 * 64);
    /* a norm: mapped, the last tensor */
    add(&l, "output_norm.weight", TP_DTYPE_F32, 1, 64, 1, 0, &off, 256);
    tp_gguf_layout_finish(&l, &c);

    const tp_llm_model_layout *amx = &c.layout[TP_LLM_REPACK_AMX];
    const tp_llm_model_layout *avx512 = &c.layout[TP_LLM_REPACK_AVX512];
    /* the tied output multiplies token_embd: its AMX copy (4864) counts too */
    TP_CHECK_EQ_U64(amx->repack_bytes, 4864 + 3072 + 6912 + 5760 + 6720 + 4416 + 4864);
    TP_CHECK_EQ_U64(amx->repacked_tensors, 7);
    TP_CHECK(c.tied_repacked & (1u << TP_LLM_REPACK_AMX));
    /* the AVX-512 rule alone: the Q4_K only */
    TP_CHECK_EQ_U64(avx512->repack_bytes, 6912);
    TP_CHECK_EQ_U64(avx512->repacked_tensors, 1);
    TP_CHECK(!(c.tied_repacked & (1u << TP_LLM_REPACK_AVX512)));
    /* the mapping still spans token_embd to the norm under both rules */
    TP_CHECK_EQ_U64(amx->mapped_bytes, off);
    TP_CHECK_EQ_U64(avx512->mapped_bytes, off);
    TP_CHECK_STR(tp_llm_repack_name(TP_LLM_REPACK_AMX), "amx");
}

/* A copied tensor at an end of the file shortens the mapped range, as llama.cpp maps only the
   span of the tensors left in the mapping. */
TP_TEST(amx_copies_shorten_the_mapping) {
    start();
    uint64_t off = 0;
    add(&l, "output_norm.weight", TP_DTYPE_F32, 1, 64, 1, 0, &off, 256);
    add(&l, "output.weight", TP_DTYPE_F16, 2, 64, 64, 0, &off, 64 * 64 * 2);
    tp_gguf_layout_finish(&l, &c);
    TP_CHECK_EQ_U64(c.layout[TP_LLM_REPACK_AMX].mapped_bytes, 256);
    TP_CHECK_EQ_U64(c.layout[TP_LLM_REPACK_AMX].repack_bytes, 64 * 64 * 2);
    TP_CHECK_EQ_U64(c.layout[TP_LLM_REPACK_AVX512].mapped_bytes, 256 + 64 * 64 * 2);
}

int main(void) {
    TP_RUN(amx_takes_the_matrices_its_kernels_multiply);
    TP_RUN(amx_copies_shorten_the_mapping);
    return tp_test_finish();
}
