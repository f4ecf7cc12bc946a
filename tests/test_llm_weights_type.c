/* tp_llm_read_as (--weights-type) on a Hugging Face config.json, by hand: f16 and q8_0
 * bytes from the shapes, the q4_k_m mix (output q6_K, attn_v/ffn_down q6_K on llama.cpp's
 * use_more_bits layers), the row fallback, and the errors. llama.cpp's own quantizer is
 * the truth in tests/cli/test_llm_weights_type.sh. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "tensorplan/llm.h"

#define L 8
#define V 2048
#define FF 768

static bool write_config(const char *dir, uint64_t e) {
    char p[128];
    snprintf(p, sizeof p, "%s/config.json", dir);
    FILE *f = fopen(p, "w");
    if (!f) return false;
    fprintf(f,
            "{\"model_type\": \"llama\", \"num_hidden_layers\": %d, \"hidden_size\": %llu, "
            "\"intermediate_size\": %d, \"num_attention_heads\": 8, \"num_key_value_heads\": 2, "
            "\"vocab_size\": %d, \"max_position_embeddings\": 4096, "
            "\"tie_word_embeddings\": false, \"torch_dtype\": \"float16\"}",
            L, (unsigned long long)e, FF, V);
    return fclose(f) == 0;
}

/* Bytes of n elements in blocks of be elements, bb bytes each. */
static uint64_t q(uint64_t n, uint64_t be, uint64_t bb) {
    return n / be * bb;
}

TP_TEST(test_weights_types_by_hand) {
    tp_error err_s, *err = &err_s;
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/tp_wtype_%ld", (long)getpid());
    TP_CHECK(mkdir(dir, 0700) == 0 || access(dir, F_OK) == 0);
    const uint64_t E = 256, kv = 2 * (E / 8);
    TP_CHECK(write_config(dir, E));
    /* per layer: q, k, v, o, gate, up, down; norms: attn, ffn per layer + output_norm */
    const uint64_t q_el = E * E, kv_el = E * kv, ff_el = E * FF, embd = V * E;
    const uint64_t norms = (2 * L + 1) * E * 4;
    uint64_t layer = 2 * q_el + 2 * kv_el + 3 * ff_el;
    tp_llm_config c;
    TP_CHECK_OK(tp_llm_read_as(dir, "f16", NULL, &c, err), err);
    TP_CHECK_EQ_U64(c.weight_bytes, 2 * (2 * embd + L * layer) + norms);
    TP_CHECK_EQ_U64(c.n_tensors, 3 + 9 * L);
    TP_CHECK_OK(tp_llm_read_as(dir, "Q8_0", NULL, &c, err), err);
    TP_CHECK_EQ_U64(c.weight_bytes, q(2 * embd + L * layer, 32, 34) + norms);
    /* q4_k_m: output q6_K, token_embd q4_K; attn_v and ffn_down q6_K on layers 0, 2, 5, 7
     * (use_more_bits with 8 layers: i < 1, i >= 7, (i - 1) % 3 == 2), q4_K elsewhere */
    TP_CHECK_OK(tp_llm_read_as(dir, "q4_k_m", NULL, &c, err), err);
    uint64_t want = q(embd, 256, 210) + q(embd, 256, 144) + norms;
    for (int il = 0; il < L; il++) {
        bool more = il < 1 || il >= 7 || (il - 1) % 3 == 2;
        want += q(2 * q_el + kv_el + 2 * ff_el, 256, 144);
        want += more ? q(kv_el + ff_el, 256, 210) : q(kv_el + ff_el, 256, 144);
    }
    TP_CHECK_EQ_U64(c.weight_bytes, want);
    /* the mapped range: every tensor padded to 32 bytes but the last */
    TP_CHECK(c.layout[TP_LLM_REPACK_NONE].mapped_bytes >= c.weight_bytes);
    TP_CHECK(c.layout[TP_LLM_REPACK_NONE].mapped_bytes < c.weight_bytes + 32 * c.n_tensors);
    TP_CHECK_EQ_U64(c.layout[TP_LLM_REPACK_NONE].repack_bytes, 0);
    TP_CHECK(c.layout[TP_LLM_REPACK_AVX2].repack_bytes > 0); /* q4_K matrices */
    /* rows of 320 are not whole 256-blocks: q4_K falls back to q5_0, q6_K to q8_0 */
    const uint64_t E2 = 320, kv2 = 2 * (E2 / 8);
    TP_CHECK(write_config(dir, E2));
    TP_CHECK_OK(tp_llm_read_as(dir, "q4_k_s", NULL, &c, err), err);
    /* q4_k_s: output q8_0 (rows not whole blocks), attn_v q5_K on the first 4 -> q5_1 here,
     * ffn_down (rows of 768) q5_K on layer 0, q4_K after; the rest q4_K -> q5_0 */
    want = q(V * E2, 32, 34) + q(V * E2, 32, 22) + (2 * L + 1) * E2 * 4;
    for (int il = 0; il < L; il++) {
        want += q(2 * E2 * E2 + E2 * kv2 + 2 * E2 * FF, 32, 22);
        want += il < 4 ? q(E2 * kv2, 32, 24) : q(E2 * kv2, 32, 22);
        want += il < 1 ? q(FF * E2, 256, 176) : q(FF * E2, 256, 144);
    }
    TP_CHECK_EQ_U64(c.weight_bytes, want);
    /* errors */
    TP_CHECK_STATUS(tp_llm_read_as(dir, "q4_x", NULL, &c, err), TP_ERR_NOT_FOUND);
    TP_CHECK_CONTAINS(err->msg, "q4_k_m");
    TP_CHECK_OK(tp_llm_read_as(dir, NULL, NULL, &c, err), err); /* as tp_llm_read */
    TP_CHECK_STR(tp_llm_weights_type_name(0), "f32");
    int n = 0;
    while (tp_llm_weights_type_name(n))
        n++;
    TP_CHECK(n >= 30);
    char p[128];
    snprintf(p, sizeof p, "%s/config.json", dir);
    remove(p);
    rmdir(dir);
}

int main(void) {
    TP_RUN(test_weights_types_by_hand);
    return tp_test_finish();
}
