/* llama.cpp's per-tensor type choice for a file type (llm_quant.h), reproduced from
 * src/llama-quant.cpp as tables: which tensors are quantized at all, the file type's
 * default type, the rules that move some tensors to other types (token embedding and
 * output, the _M mixes that give attn_v / ffn_down more bits on some layers, the MoE and
 * GQA bumps) and the fallback when a row is not a whole number of blocks. The rules run in
 * llama.cpp's tensor order (by layer, then name), since some count tensors as they go. */
#include "llm_quant.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define T(x) TP_DTYPE_##x

/* File types (llama_ftype) by llama-quantize's names. */
enum {
    FT_F32,
    FT_F16,
    FT_BF16,
    FT_Q4_0,
    FT_Q4_1,
    FT_Q5_0,
    FT_Q5_1,
    FT_Q8_0,
    FT_Q2_K,
    FT_Q2_K_S,
    FT_Q3_K_S,
    FT_Q3_K_M,
    FT_Q3_K_L,
    FT_Q4_K_S,
    FT_Q4_K_M,
    FT_Q5_K_S,
    FT_Q5_K_M,
    FT_Q6_K,
    FT_IQ2_XXS,
    FT_IQ2_XS,
    FT_IQ2_S,
    FT_IQ2_M,
    FT_IQ3_XXS,
    FT_IQ3_XS,
    FT_IQ3_S,
    FT_IQ3_M,
    FT_IQ1_S,
    FT_IQ1_M,
    FT_IQ4_NL,
    FT_IQ4_XS,
    FT_TQ1_0,
    FT_TQ2_0,
    FT_MXFP4_MOE,
    FT_COUNT
};
#define F(x) (1ull << FT_##x)

static const struct {
    const char *name;
    tp_dtype type; /* llama_ftype_get_default_type */
    bool imatrix;  /* llama-quantize needs an importance matrix (assumed given) */
} ftypes[FT_COUNT] = {
    [FT_F32] = {"f32", T(F32), false},
    [FT_F16] = {"f16", T(F16), false},
    [FT_BF16] = {"bf16", T(BF16), false},
    [FT_Q4_0] = {"q4_0", T(Q4_0), false},
    [FT_Q4_1] = {"q4_1", T(Q4_1), false},
    [FT_Q5_0] = {"q5_0", T(Q5_0), false},
    [FT_Q5_1] = {"q5_1", T(Q5_1), false},
    [FT_Q8_0] = {"q8_0", T(Q8_0), false},
    [FT_Q2_K] = {"q2_k", T(Q2_K), false},
    [FT_Q2_K_S] = {"q2_k_s", T(Q2_K), true},
    [FT_Q3_K_S] = {"q3_k_s", T(Q3_K), false},
    [FT_Q3_K_M] = {"q3_k_m", T(Q3_K), false},
    [FT_Q3_K_L] = {"q3_k_l", T(Q3_K), false},
    [FT_Q4_K_S] = {"q4_k_s", T(Q4_K), false},
    [FT_Q4_K_M] = {"q4_k_m", T(Q4_K), false},
    [FT_Q5_K_S] = {"q5_k_s", T(Q5_K), false},
    [FT_Q5_K_M] = {"q5_k_m", T(Q5_K), false},
    [FT_Q6_K] = {"q6_k", T(Q6_K), false},
    [FT_IQ2_XXS] = {"iq2_xxs", T(IQ2_XXS), true},
    [FT_IQ2_XS] = {"iq2_xs", T(IQ2_XS), true},
    [FT_IQ2_S] = {"iq2_s", T(IQ2_XS), true},
    [FT_IQ2_M] = {"iq2_m", T(IQ2_S), true},
    [FT_IQ3_XXS] = {"iq3_xxs", T(IQ3_XXS), true},
    [FT_IQ3_XS] = {"iq3_xs", T(IQ3_S), true},
    [FT_IQ3_S] = {"iq3_s", T(IQ3_S), false},
    [FT_IQ3_M] = {"iq3_m", T(IQ3_S), false},
    [FT_IQ1_S] = {"iq1_s", T(IQ1_S), true},
    [FT_IQ1_M] = {"iq1_m", T(IQ1_M), true},
    [FT_IQ4_NL] = {"iq4_nl", T(IQ4_NL), false},
    [FT_IQ4_XS] = {"iq4_xs", T(IQ4_XS), false},
    [FT_TQ1_0] = {"tq1_0", T(TQ1_0), false},
    [FT_TQ2_0] = {"tq2_0", T(TQ2_0), false},
    [FT_MXFP4_MOE] = {"mxfp4_moe", T(MXFP4), false},
};

static const struct {
    const char *alias;
    int ft;
} ftype_aliases[] = {{"q3_k", FT_Q3_K_M}, {"q4_k", FT_Q4_K_M}, {"q5_k", FT_Q5_K_M}};

int tp__llm_ftype_find(const char *name) {
    char low[16];
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n >= sizeof low) return -1;
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    for (int i = 0; i < FT_COUNT; i++)
        if (strcmp(low, ftypes[i].name) == 0) return i;
    for (size_t i = 0; i < sizeof ftype_aliases / sizeof ftype_aliases[0]; i++)
        if (strcmp(low, ftype_aliases[i].alias) == 0) return ftype_aliases[i].ft;
    return -1;
}

const char *tp__llm_ftype_name(int i) {
    return i >= 0 && i < FT_COUNT ? ftypes[i].name : NULL;
}

/* tensor_get_category: the first name rule that matches (exact names, then substrings). */
enum { C_TOKEN_EMBD, C_Q, C_V, C_K, C_QKV, C_KV_B, C_O, C_UP, C_GATE, C_DOWN, C_OUTPUT, C_OTHER };
static const struct {
    const char *s;
    bool exact;
    int cat;
} categories[] = {
    {"output.weight", true, C_OUTPUT},
    {"token_embd.weight", true, C_TOKEN_EMBD},
    {"per_layer_token_embd.weight", true, C_TOKEN_EMBD},
    {"attn_qkv.weight", false, C_QKV},
    {"attn_kv_b.weight", false, C_KV_B},
    {"attn_v.weight", false, C_V},
    {"attn_k.weight", false, C_K},
    {"attn_q.weight", false, C_Q},
    {"attn_output.weight", false, C_O},
    {"ffn_up", false, C_UP},
    {"ffn_gate", false, C_GATE},
    {"ffn_down", false, C_DOWN},
};

static int category(const char *name) {
    for (size_t i = 0; i < sizeof categories / sizeof categories[0]; i++)
        if (categories[i].exact ? strcmp(name, categories[i].s) == 0
                                : strstr(name, categories[i].s) != NULL)
            return categories[i].cat;
    return C_OTHER;
}

static bool is_v_like(int cat) {
    return cat == C_V || cat == C_QKV || cat == C_KV_B;
}

/* tensor_allows_quantization: names (substrings, or exact with '=') never quantized. */
static const char *const keep_names[] = {
    "_norm.weight",
    "ffn_gate_inp.weight",
    "ffn_gate_tid2eid.weight",
    "altup",
    "laurel",
    "per_layer_model_proj",
    "=position_embd.weight",
    "=token_types.weight",
    "ssm_conv1d",
    "shortconv.conv.weight",
    "indexer.k_proj.weight",
    "indexer.q_proj.weight",
    "time_mix_first.weight",
    "time_mix_w0.weight",
    "time_mix_w1.weight",
    "time_mix_w2.weight",
    "time_mix_v0.weight",
    "time_mix_v1.weight",
    "time_mix_v2.weight",
    "time_mix_a0.weight",
    "time_mix_a1.weight",
    "time_mix_a2.weight",
    "time_mix_g1.weight",
    "time_mix_g2.weight",
    "time_mix_decay_w1.weight",
    "time_mix_decay_w2.weight",
    "time_mix_lerp_fused.weight",
    "attn_rel_b.weight",
    ".position_embd",
    "sam.pos_embd",
    "sam.neck.",
    "sam.net_",
    ".rel_pos",
    ".patch_embd",
    ".patch_merger",
    "a.rvq.codebook",
    "mm.a.code_embd",
};

/* ggml_n_dims: trailing dims of 1 do not count. */
static uint32_t n_dims(const tp_llm_tensor *t) {
    for (uint32_t d = 4; d > 1; d--)
        if (t->ne[d - 1] > 1) return d;
    return 1;
}

static bool allows_quantization(const tp_llm_tensor *t) {
    size_t n = strlen(t->name);
    if (n_dims(t) < 2 || n < 6 || strcmp(t->name + n - 6, "weight") != 0) return false;
    for (size_t i = 0; i < sizeof keep_names / sizeof keep_names[0]; i++) {
        const char *k = keep_names[i];
        if (k[0] == '=' ? strcmp(t->name, k + 1) == 0 : strstr(t->name, k) != NULL) return false;
    }
    return true;
}

/* Rule blocks: which chain of llama_tensor_get_type_impl a tensor enters. */
enum {
    B_NONE,
    B_OUT,
    B_MXFP4,
    B_EMBD,
    B_LB_V,
    B_LB_K,
    B_LB_DOWN,
    B_LB_O,
    B_V,
    B_K,
    B_Q,
    B_DOWN,
    B_O,
    B_QKV,
    B_GATE,
    B_UP
};

/* Conditions of a rule (state below). */
enum {
    K_ALWAYS,
    K_GQA4,
    K_GQA4_OR_EXP4,
    K_EXP8,
    K_FALCON,
    K_FALCON_OR_ROW,
    K_DEFAULT_NOT_Q8_0,
    K_STACKED,
    K_WV_LT2,
    K_WV_LT4,
    K_WV_MORE_BITS,
    K_LT8,
    K_LT16,
    K_MORE_BITS,
    K_MID,
    K_NOT_FALCON_OR_MORE_BITS,
    K_LT8_OR_EXP8_MORE_BITS,
    K_FALCON_LT16,
    K_FALCON_MORE_BITS,
    K_NOT_FALCON_LT8,
    K_NO_IMATRIX,
    K_NO_IMATRIX_LT8,
    K_IMATRIX_LT8,
    K_DOWN_COUNT_LT8,
    K_NOT_FALCON_EXP8,
    K_NOT_FALCON_NOT_EXP8
};

/* llama.cpp's if/else chains: in a block, the first rule whose file type and condition
 * match sets the type (each file type appears in one arm of a chain, so first-match is
 * the chain's order). */
#define LOWBIT (F(IQ2_XXS) | F(IQ2_XS) | F(IQ1_S) | F(IQ2_S) | F(IQ2_M) | F(IQ1_M))
#define ALL (~0ull)
static const struct {
    uint8_t block;
    uint64_t ftypes;
    uint8_t cond;
    tp_dtype type;
} rules[] = {
    /* output.weight, or token_embd when tied to it */
    {B_OUT, F(MXFP4_MOE), K_ALWAYS, T(Q8_0)},
    {B_OUT, ALL, K_FALCON_OR_ROW, T(Q8_0)},
    {B_OUT, F(IQ2_XXS) | F(IQ2_XS) | F(IQ3_XXS) | F(IQ1_S) | F(IQ2_S) | F(IQ2_M) | F(IQ1_M),
     K_ALWAYS, T(Q5_K)},
    {B_OUT, ALL, K_DEFAULT_NOT_Q8_0, T(Q6_K)},
    /* mxfp4_moe: stacked experts mxfp4, the rest q8_0 */
    {B_MXFP4, ALL, K_STACKED, T(MXFP4)},
    {B_MXFP4, ALL, K_ALWAYS, T(Q8_0)},
    /* untied token_embd */
    {B_EMBD, F(IQ2_XXS) | F(IQ2_XS) | F(IQ1_S) | F(IQ1_M), K_ALWAYS, T(Q2_K)},
    {B_EMBD, F(IQ2_S) | F(IQ2_M) | F(IQ3_XXS), K_ALWAYS, T(IQ3_S)},
    {B_EMBD, F(TQ1_0) | F(TQ2_0), K_ALWAYS, T(Q4_K)},
    /* the 1-2 bit iq file types */
    {B_LB_V, LOWBIT, K_GQA4_OR_EXP4, T(Q4_K)},
    {B_LB_V, F(IQ2_S) | F(IQ2_M), K_ALWAYS, T(IQ3_S)},
    {B_LB_V, LOWBIT, K_ALWAYS, T(Q2_K)},
    {B_LB_K, LOWBIT, K_EXP8, T(Q4_K)},
    {B_LB_DOWN, F(IQ2_S) | F(IQ2_M), K_DOWN_COUNT_LT8, T(IQ3_S)},
    {B_LB_DOWN, LOWBIT, K_DOWN_COUNT_LT8, T(Q2_K)},
    {B_LB_O, LOWBIT, K_EXP8, T(Q5_K)},
    {B_LB_O, F(IQ1_S) | F(IQ1_M), K_ALWAYS, T(IQ2_XXS)},
    {B_LB_O, F(IQ2_S) | F(IQ2_M), K_ALWAYS, T(IQ3_S)},
    /* attn_v (and fused qkv, kv_b) */
    {B_V, F(Q2_K), K_GQA4, T(Q4_K)},
    {B_V, F(Q2_K), K_ALWAYS, T(Q3_K)},
    {B_V, F(Q2_K_S), K_GQA4, T(Q4_K)},
    {B_V, F(IQ3_XXS), K_GQA4, T(Q4_K)},
    {B_V, F(IQ3_XXS), K_NO_IMATRIX, T(IQ3_S)},
    {B_V, F(IQ3_XXS), K_ALWAYS, T(IQ3_XXS)},
    {B_V, F(IQ3_XS) | F(IQ3_S), K_GQA4, T(Q4_K)},
    {B_V, F(IQ3_M), K_ALWAYS, T(Q4_K)},
    {B_V, F(Q3_K_M), K_WV_LT2, T(Q5_K)},
    {B_V, F(Q3_K_M), K_ALWAYS, T(Q4_K)},
    {B_V, F(Q3_K_L), K_ALWAYS, T(Q5_K)},
    {B_V, F(IQ4_NL) | F(IQ4_XS), K_GQA4, T(Q5_K)},
    {B_V, F(Q4_K_M) | F(Q5_K_M), K_WV_MORE_BITS, T(Q6_K)},
    {B_V, F(Q4_K_S), K_WV_LT4, T(Q5_K)},
    /* attn_k, attn_q */
    {B_K, ALL, K_EXP8, T(Q8_0)},
    {B_K, F(IQ3_XS), K_ALWAYS, T(IQ3_XXS)},
    {B_K, F(IQ3_XXS), K_ALWAYS, T(IQ2_S)},
    {B_Q, F(IQ3_XS), K_ALWAYS, T(IQ3_XXS)},
    {B_Q, F(IQ3_XXS), K_ALWAYS, T(IQ2_S)},
    /* ffn_down (per layer) */
    {B_DOWN, F(Q2_K), K_ALWAYS, T(Q3_K)},
    {B_DOWN, F(Q2_K_S), K_LT8, T(Q4_K)},
    {B_DOWN, F(IQ3_XXS), K_NO_IMATRIX_LT8, T(Q4_K)},
    {B_DOWN, F(IQ3_XXS), K_NO_IMATRIX, T(Q3_K)},
    {B_DOWN, F(Q3_K_M), K_LT16, T(Q5_K)},
    {B_DOWN, F(Q3_K_M), K_NOT_FALCON_OR_MORE_BITS, T(Q4_K)},
    {B_DOWN, F(Q3_K_M), K_ALWAYS, T(Q3_K)},
    {B_DOWN, F(IQ3_M), K_LT8_OR_EXP8_MORE_BITS, T(Q4_K)},
    {B_DOWN, F(Q3_K_L), K_FALCON, T(Q4_K)},
    {B_DOWN, F(Q3_K_L), K_ALWAYS, T(Q5_K)},
    {B_DOWN, F(Q4_K_M), K_FALCON_LT16, T(Q6_K)},
    {B_DOWN, F(Q4_K_M), K_FALCON_MORE_BITS, T(Q5_K)},
    {B_DOWN, F(Q4_K_M), K_FALCON, T(Q4_K)},
    {B_DOWN, F(Q4_K_M), K_MORE_BITS, T(Q6_K)},
    {B_DOWN, F(IQ4_NL) | F(IQ4_XS), K_NO_IMATRIX_LT8, T(Q5_K)},
    {B_DOWN, F(Q5_K_M), K_MORE_BITS, T(Q6_K)},
    {B_DOWN, F(Q4_K_S), K_NOT_FALCON_LT8, T(Q5_K)},
    {B_DOWN, F(Q4_0), K_IMATRIX_LT8, T(Q4_1)},
    {B_DOWN, F(Q5_0), K_IMATRIX_LT8, T(Q5_1)},
    /* attn_output */
    {B_O,
     F(Q2_K) | F(IQ3_XS) | F(IQ3_XXS) | F(Q3_K_S) | F(Q3_K_M) | F(IQ4_NL) | F(Q4_K_S) | F(Q4_K_M) |
         F(IQ3_S) | F(IQ3_M) | F(IQ4_XS),
     K_NOT_FALCON_EXP8, T(Q5_K)},
    {B_O, F(Q2_K), K_NOT_FALCON_NOT_EXP8, T(Q3_K)},
    {B_O, F(IQ3_XXS), K_NOT_FALCON_NOT_EXP8, T(IQ3_S)},
    {B_O, F(Q3_K_M) | F(IQ3_M), K_NOT_FALCON_NOT_EXP8, T(Q4_K)},
    {B_O, F(Q3_K_L), K_NOT_FALCON_NOT_EXP8, T(Q5_K)},
    {B_O, F(Q3_K_L), K_FALCON, T(Q4_K)},
    /* fused attn_qkv */
    {B_QKV, F(Q3_K_M) | F(Q3_K_L) | F(IQ3_M), K_ALWAYS, T(Q4_K)},
    {B_QKV, F(Q4_K_M), K_ALWAYS, T(Q5_K)},
    {B_QKV, F(Q5_K_M), K_ALWAYS, T(Q6_K)},
    /* ffn_gate, ffn_up */
    {B_GATE, F(IQ3_XS), K_MID, T(IQ3_XXS)},
    {B_UP, F(IQ3_XS), K_MID, T(IQ3_XXS)},
};

/* tensor_type_fallback: a row that is not a whole number of blocks. */
static const struct {
    tp_dtype from, to;
} fallbacks[] = {
    {T(IQ1_S), T(IQ4_NL)}, {T(IQ1_M), T(IQ4_NL)},   {T(IQ2_XXS), T(IQ4_NL)}, {T(IQ2_XS), T(IQ4_NL)},
    {T(IQ2_S), T(IQ4_NL)}, {T(IQ3_XXS), T(IQ4_NL)}, {T(IQ3_S), T(IQ4_NL)},   {T(IQ4_XS), T(IQ4_NL)},
    {T(Q2_0), T(Q4_0)},    {T(Q2_K), T(Q4_0)},      {T(Q3_K), T(Q4_0)},      {T(TQ1_0), T(Q4_0)},
    {T(TQ2_0), T(Q4_0)},   {T(Q4_K), T(Q5_0)},      {T(Q5_K), T(Q5_1)},      {T(Q6_K), T(Q8_0)},
};

/* Models llama.cpp types as 70B (its attn_v rule): arch, layers, GQA required. */
static const struct {
    const char *arch;
    uint64_t n_layer;
    bool gqa;
} type_70b[] = {{"llama", 80, true},
                {"qwen2", 80, false},
                {"olmo", 80, false},
                {"deci", 80, false},
                {"jais2", 68, false}};

static uint64_t blck(tp_dtype t) {
    return tp_dtype_get(t)->block_elems;
}

typedef struct qstate {
    int ft;
    tp_dtype dflt;
    bool falcon, is_70b, imatrix, tied;
    uint64_t n_gqa, n_expert, n_layer;
    int n_wv, i_wv, i_down, i_gate, i_up;
} qstate;

static bool use_more_bits(long i, long n) {
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

/* Layer of a per-layer rule: the name's blk.N with experts, else the running count. */
static long layer_of(const qstate *s, const char *name, int counter) {
    if (s->n_expert > 1) {
        long v = -1;
        if (sscanf(name, "blk.%ld.", &v) != 1) return -1;
        return v >= 0 && (uint64_t)v < s->n_layer ? v : -1;
    }
    return counter;
}

static bool cond(const qstate *s, int k, const tp_llm_tensor *t, long il) {
    long n = (long)s->n_layer;
    bool exp8 = s->n_expert == 8;
    switch (k) {
    case K_ALWAYS:
        return true;
    case K_GQA4:
        return s->n_gqa >= 4;
    case K_GQA4_OR_EXP4:
        return s->n_gqa >= 4 || s->n_expert >= 4;
    case K_EXP8:
        return exp8;
    case K_FALCON:
        return s->falcon;
    case K_FALCON_OR_ROW:
        return s->falcon || t->ne[0] % blck(s->dflt) != 0;
    case K_DEFAULT_NOT_Q8_0:
        return s->dflt != T(Q8_0);
    case K_STACKED:
        return t->ne[2] > 1;
    case K_WV_LT2:
        return s->i_wv < 2;
    case K_WV_LT4:
        return s->i_wv < 4;
    case K_WV_MORE_BITS:
        return use_more_bits(s->i_wv, s->n_wv);
    case K_LT8:
        return il < n / 8;
    case K_LT16:
        return il < n / 16;
    case K_MORE_BITS:
        return use_more_bits(il, n);
    case K_MID:
        return il >= n / 8 && il < 7 * n / 8;
    case K_NOT_FALCON_OR_MORE_BITS:
        return !s->falcon || use_more_bits(il, n);
    case K_LT8_OR_EXP8_MORE_BITS:
        return il < n / 8 || (exp8 && use_more_bits(il, n));
    case K_FALCON_LT16:
        return s->falcon && il < n / 16;
    case K_FALCON_MORE_BITS:
        return s->falcon && use_more_bits(il, n);
    case K_NOT_FALCON_LT8:
        return !s->falcon && il < n / 8;
    case K_NO_IMATRIX:
        return !s->imatrix;
    case K_NO_IMATRIX_LT8:
        return !s->imatrix && il < n / 8;
    case K_IMATRIX_LT8:
        return s->imatrix && il < n / 8;
    case K_DOWN_COUNT_LT8:
        return s->i_down < n / 8;
    case K_NOT_FALCON_EXP8:
        return !s->falcon && exp8;
    case K_NOT_FALCON_NOT_EXP8:
        return !s->falcon && !exp8;
    default:
        return false;
    }
}

/* Which chain the tensor enters (llama_tensor_get_type_impl's top-level branches). */
static int chain_of(const qstate *s, int cat) {
    if (cat == C_OUTPUT || (s->tied && cat == C_TOKEN_EMBD)) return B_OUT;
    if (s->ft == FT_MXFP4_MOE) return B_MXFP4;
    if (cat == C_TOKEN_EMBD) return B_EMBD;
    if ((LOWBIT >> s->ft) & 1) {
        if (is_v_like(cat)) return B_LB_V;
        if (cat == C_K) return B_LB_K;
        if (cat == C_DOWN) return B_LB_DOWN;
        if (cat == C_O) return B_LB_O;
        return B_NONE;
    }
    if (is_v_like(cat)) return B_V;
    switch (cat) {
    case C_K:
        return B_K;
    case C_Q:
        return B_Q;
    case C_DOWN:
        return B_DOWN;
    case C_O:
        return B_O;
    case C_GATE:
        return B_GATE;
    case C_UP:
        return B_UP;
    default:
        return B_NONE;
    }
}

static tp_status choose(qstate *s, const tp_llm_tensor *t, tp_dtype *out, tp_error *err) {
    int cat = category(t->name);
    int b = chain_of(s, cat);
    int *counter = b == B_DOWN || b == B_LB_DOWN ? &s->i_down
                   : b == B_GATE                 ? &s->i_gate
                   : b == B_UP                   ? &s->i_up
                                                 : NULL;
    long il = counter && b != B_LB_DOWN ? layer_of(s, t->name, *counter) : 0;
    if (il < 0)
        return tp_error_set(err, TP_ERR_UNSUPPORTED,
                            "tensor '%s': no layer index in 0..%llu (llama.cpp refuses it)",
                            t->name, (unsigned long long)s->n_layer - 1);
    tp_dtype nt = s->dflt;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].block == b && ((rules[i].ftypes >> s->ft) & 1) &&
            cond(s, rules[i].cond, t, il)) {
            nt = rules[i].type;
            break;
        }
    if (b == B_V) {
        if (s->is_70b && (nt == T(Q3_K) || nt == T(Q4_K))) nt = T(Q5_K);
        if (s->n_expert == 8) nt = T(Q8_0);
    }
    if (b == B_V || b == B_LB_V) s->i_wv++;
    if (counter) (*counter)++;
    /* the fallback */
    if (t->ne[0] % blck(nt) != 0) {
        tp_dtype fb = nt;
        bool found = blck(nt) <= 32;
        for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0]; i++)
            if (fallbacks[i].from == nt) {
                fb = fallbacks[i].to;
                found = true;
            }
        if (!found)
            return tp_error_set(err, TP_ERR_UNSUPPORTED,
                                "tensor '%s': rows of %llu are not whole %s blocks and llama.cpp "
                                "has no fallback type for it",
                                t->name, (unsigned long long)t->ne[0], tp_dtype_name(nt));
        nt = t->ne[0] % blck(fb) != 0 ? T(F16) : fb;
    }
    *out = nt;
    return TP_OK;
}

tp_status tp__llm_quant_types(const tp_llm_config *c, const tp_llm_tensors *l, int ft,
                              tp_dtype *types, tp_error *err) {
    if (ft < 0 || ft >= FT_COUNT) return tp_error_set(err, TP_ERR_INVALID, "bad file type");
    qstate s;
    memset(&s, 0, sizeof s);
    s.ft = ft;
    s.dflt = ftypes[ft].type;
    s.imatrix = ftypes[ft].imatrix;
    s.falcon = strcmp(c->arch, "falcon") == 0;
    s.n_expert = c->n_expert;
    s.n_layer = c->n_layer;
    s.n_gqa = c->layer_head_kv[0] ? c->n_head / c->layer_head_kv[0] : 0;
    for (size_t i = 0; i < sizeof type_70b / sizeof type_70b[0]; i++)
        if (strcmp(c->arch, type_70b[i].arch) == 0 && c->n_layer == type_70b[i].n_layer &&
            (!type_70b[i].gqa || c->n_head != c->n_head_kv))
            s.is_70b = true;
    s.tied = true;
    for (size_t i = 0; i < l->n; i++) {
        int cat = category(l->t[i].name);
        if (is_v_like(cat)) s.n_wv++;
        if (cat == C_OUTPUT) s.tied = false;
    }
    bool quantized = tp_dtype_is_quantized(s.dflt);
    for (size_t i = 0; i < l->n; i++) {
        const tp_llm_tensor *t = &l->t[i];
        if (!allows_quantization(t)) {
            types[i] = t->type;
        } else if (!quantized) {
            types[i] = s.dflt;
        } else {
            tp_status st = choose(&s, t, &types[i], err);
            if (st != TP_OK) return st;
        }
    }
    return TP_OK;
}
