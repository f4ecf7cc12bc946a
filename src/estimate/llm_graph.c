/* llama.cpp's prefill graph of one ubatch (llm_graph.h), as its model
 * builders make it (src/llama-graph.cpp build_inp_embd, build_attn,
 * build_ffn, build_moe_ffn; src/models/llama.cpp, qwen2.cpp, qwen3moe.cpp,
 * gemma3.cpp), with only what the allocator sees: the tensors that take
 * compute memory, their shapes, views, in-place ops, sources in order and the
 * points where llama.cpp expands the graph. Weights and caches are external
 * and left out; a set_rows into a cache is kept as a view of it. */
#include <string.h>

#include "estimate/ggml_alloc_emul.h"
#include "estimate/llm_graph.h"

#define CPU_ALIGN 32 /* the CPU buffer type's alignment */

typedef enum lg_family {
    FAM_LLAMA,
    FAM_QWEN2,
    FAM_QWEN3MOE,
    FAM_GEMMA3,
    FAM_DEEPSEEK2,
    FAM_LFM2,
    FAM_NONE
} lg_family;

static lg_family lg_family_of(const tp_llm_config *c) {
    if (strcmp(c->arch, "llama") == 0) return FAM_LLAMA;
    if (strcmp(c->arch, "qwen2") == 0) return FAM_QWEN2;
    if (strcmp(c->arch, "qwen3moe") == 0) return FAM_QWEN3MOE;
    if (strcmp(c->arch, "gemma3") == 0) return FAM_GEMMA3;
    if (strcmp(c->arch, "deepseek2") == 0) return FAM_DEEPSEEK2;
    if (strcmp(c->arch, "lfm2") == 0) return FAM_LFM2;
    return FAM_NONE;
}

/* deepseek2 with MLA: the K cache row is the latent and the rope part, one
 * KV head, MoE after the leading dense layers with the routing lg_ffn_moe
 * builds. */
static bool lg_mla_covers(const tp_llm_config *c) {
    if (c->moe_routing_extra || c->n_lora_kv == 0 || c->n_rot == 0 || c->head_dim_v_mla == 0 ||
        c->head_dim_k_mla <= c->n_rot || c->head_dim_v != 0 ||
        c->head_dim_k != c->n_lora_kv + c->n_rot || c->n_expert == 0 ||
        c->n_layer_dense_lead >= c->n_layer || c->n_lora_kv > (1u << 20) ||
        c->head_dim_k_mla > (1u << 20) || c->head_dim_v_mla > (1u << 20) ||
        c->n_lora_q > (1u << 24))
        return false;
    for (uint64_t il = 0; il < c->n_layer; il++)
        if (c->layer_head_kv[il] != 1) return false;
    if (c->n_expert_groups > 1) /* llama.cpp's asserts, and 2 experts per group at least */
        return c->n_expert % c->n_expert_groups == 0 && c->n_group_used > 0 &&
               c->n_group_used < c->n_expert_groups && c->n_expert / c->n_expert_groups >= 2;
    return true;
}

bool tp__llm_graph_covers(const tp_llm_config *c, const tp_llm_options *o) {
    lg_family f = lg_family_of(c);
    if (f == FAM_NONE || !c->has_kv || c->n_layer == 0 || c->n_layer > TP_LLM_MAX_LAYERS)
        return false;
    if (o->embeddings || o->n_seq > 1) return false; /* several sequences: not compared */
    if (f == FAM_DEEPSEEK2) {
        /* llama.cpp refuses different K and V types under MLA */
        if (!lg_mla_covers(c) || o->type_k != o->type_v || c->swa) return false;
        return c->n_expert_used > 0 && c->n_expert_used <= c->n_expert;
    }
    if (f == FAM_LFM2) { /* dense LFM2: short-convolution layers (0 KV heads) and attention */
        if (c->n_expert || c->swa || c->n_embd == 0 || c->n_embd_s != 0 ||
            c->n_embd_r % c->n_embd != 0 || c->n_embd_r / c->n_embd < 1 ||
            c->n_embd_r > (1ull << 32))
            return false;
        for (uint64_t il = 0; il < c->n_layer; il++)
            if ((c->layer_head_kv[il] == 0) != (c->layer_recr[il] != 0)) return false;
        return true;
    }
    if ((c->n_expert > 0) != (f == FAM_QWEN3MOE || (f == FAM_LLAMA && c->n_expert > 0)))
        return false;
    if (c->n_expert_groups > 1) return false; /* expert groups: built for deepseek2 only */
    if (c->n_expert && (c->n_expert_used == 0 || c->n_expert_used > c->n_expert)) return false;
    if (f == FAM_GEMMA3 && !c->swa) return false;
    if (f != FAM_GEMMA3 && c->swa) return false;
    for (uint64_t il = 0; il < c->n_layer; il++)
        if (c->layer_head_kv[il] == 0) return false;
    return true;
}

typedef struct lg_ctx {
    int32_t s_copy;                    /* the recurrent state's row ids (hybrids), -1: none */
    int32_t s_copy_main, s_copy_extra; /* its views (one of each, shared by the layers) */
    tp_gg_graph *g;
    const tp_llm_config *c;
    const tp_llm_options *o;
    lg_family fam;
    bool fa;
    int64_t T; /* tokens of the ubatch */
    int64_t E; /* n_embd */
    int64_t dk, dv;
    int64_t v_max; /* widest layer's V row (V row ids without flash attention) */
    int32_t pos;
    struct cache_in {
        int32_t k_idx, v_idx, mask; /* v_idx -1: no V cache (MLA) */
        int32_t k_rot, v_rot;       /* Hadamard rotations of a quantized cache, -1: none */
        int64_t n_kv;
    } cache[2]; /* 0: full attention, 1: sliding window */
} lg_ctx;

static int32_t lg_op(lg_ctx *x, tp_gg_op o, tp_dtype t, int64_t a, int64_t b, int64_t c, int32_t s0,
                     int32_t s1, int32_t s2) {
    int32_t s[3] = {s0, s1, s2};
    return tp__gg_new(x->g, o, t, a, b, c, 1, s, 3);
}

static int32_t lg_same(lg_ctx *x, tp_gg_op o, int32_t a, int32_t s1) {
    int32_t s[2] = {a, s1};
    return tp__gg_like(x->g, o, a, s, 2);
}

/* Mark what of its layer tensor i reads (TP_GG_W_*); returns i. */
static int32_t lg_w(lg_ctx *x, int32_t i, uint8_t kind) {
    if (i >= 0) x->g->t[i].wkind = kind;
    return i;
}

/* rms_norm, then the weight's mul (both in place when they can be). named:
 * llama.cpp names the norm "norm-<layer>" (every norm but gemma3's post-FFN
 * one and the output norm). */
static int32_t lg_norm_n(lg_ctx *x, int32_t a, bool named) {
    int32_t n = lg_same(x, TP_GG_INPLACE, a, -1);
    if (n >= 0) x->g->t[n].norm_named = named;
    return lg_w(x, lg_same(x, TP_GG_INPLACE, n, -1), TP_GG_W_WEIGHT);
}

static int32_t lg_norm(lg_ctx *x, int32_t a) {
    return lg_norm_n(x, a, true);
}

static int32_t lg_mm(lg_ctx *x, int64_t rows, int32_t in) {
    const tp_gg_tensor *t = &x->g->t[in < 0 ? 0 : in];
    return lg_w(x, lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, rows, t->ne[1], t->ne[2], -1, in, -1),
                TP_GG_W_WEIGHT);
}

/* A layer's K or V cache as the attention reads it: an external tensor of the
 * cache's bytes (type[row, heads, cells]), permuted as llama.cpp views it. */
static int32_t lg_cache_view(lg_ctx *x, tp_dtype type, int64_t row, int64_t heads, int64_t cells,
                             bool permute) {
    int32_t c = tp__gg_leaf(x->g, type, row, heads, cells, 1, true, 0);
    lg_w(x, c, TP_GG_W_CACHE);
    return permute ? tp__gg_permute(x->g, c, 0, 2, 1, 3) : c;
}

static void lg_cache_inputs(lg_ctx *x, int which, int64_t n_kv) {
    struct cache_in *ci = &x->cache[which];
    ci->n_kv = n_kv;
    ci->k_idx = tp__gg_leaf(x->g, TP_DTYPE_I64, x->T, 1, 1, 1, false, TP_GG_INPUT);
    ci->v_idx = x->fam == FAM_DEEPSEEK2
                    ? -1
                    : tp__gg_leaf(x->g, TP_DTYPE_I64, x->fa ? x->T : x->T * x->v_max, 1, 1, 1,
                                  false, TP_GG_INPUT);
    ci->mask = tp__gg_leaf(x->g, x->fa ? TP_DTYPE_F16 : TP_DTYPE_F32, n_kv, x->T, 1, 1, false,
                           TP_GG_INPUT);
    ci->k_rot = ci->v_rot = -1;
    if (x->fam == FAM_DEEPSEEK2) return; /* build_attn_inp_k: no rotations */
    /* llama_kv_cache: a quantized cache whose head size is a multiple of 64
     * rotates Q and K (the largest power of two from 64 dividing dk) and V
     * and the attention output (64) */
    if (tp_dtype_is_quantized(x->o->type_k) && x->dk % 64 == 0) {
        int64_t n = 64;
        while (x->dk % (n * 2) == 0)
            n *= 2;
        ci->k_rot = tp__gg_leaf(x->g, TP_DTYPE_F32, n, n, 1, 1, false, TP_GG_INPUT);
    }
    if (tp_dtype_is_quantized(x->o->type_v) && x->dv % 64 == 0)
        ci->v_rot = tp__gg_leaf(x->g, TP_DTYPE_F32, 64, 64, 1, 1, false, TP_GG_INPUT);
}

/* llama_mul_mat_hadamard: rows of rot's width, multiplied, reshaped back. */
static int32_t lg_hadamard(lg_ctx *x, int32_t a, int32_t rot) {
    if (rot < 0 || a < 0 || x->g->status != TP_OK) return a;
    const tp_gg_tensor *t = &x->g->t[a];
    int64_t ne[4] = {t->ne[0], t->ne[1], t->ne[2], t->ne[3]};
    int64_t n = x->g->t[rot].ne[0], all = ne[0] * ne[1] * ne[2] * ne[3];
    int32_t r = tp__gg_reshape(x->g, a, n, all / n, 1, 1);
    int32_t m = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, n, all / n, 1, rot, r, -1);
    return tp__gg_reshape(x->g, m, ne[0], ne[1], ne[2], ne[3]);
}

/* Q, K or V: projection (+ bias), per-head reshape, Q/K norm, rope. */
static int32_t lg_project(lg_ctx *x, int64_t heads, int64_t hd, int32_t in, bool rope,
                          bool qk_norm) {
    int32_t p = lg_mm(x, heads * hd, in);
    if (x->fam == FAM_QWEN2) p = lg_w(x, lg_same(x, TP_GG_INPLACE, p, -1), TP_GG_W_WEIGHT);
    p = tp__gg_reshape(x->g, p, hd, heads, x->T, 1);
    if (qk_norm) p = lg_norm(x, p);
    if (rope) p = lg_same(x, TP_GG_INPLACE, p, x->pos);
    return p;
}

/* Self-attention of layer il on the normed input; returns the output
 * projection's result [E, T]. */
static int32_t lg_attention(lg_ctx *x, uint64_t il, int32_t in) {
    const tp_llm_config *c = x->c;
    tp_gg_graph *g = x->g;
    int64_t H = (int64_t)c->n_head, Hkv = (int64_t)c->layer_head_kv[il];
    bool qkn = c->qk_norm;
    struct cache_in *ci = &x->cache[c->layer_swa[il] ? 1 : 0];
    int32_t q = lg_project(x, H, x->dk, in, true, qkn);
    if (x->fam == FAM_GEMMA3) q = lg_same(x, TP_GG_INPLACE, q, -1); /* query scale */
    int32_t k = lg_project(x, Hkv, x->dk, in, true, qkn);
    int32_t v = lg_project(x, Hkv, x->dv, in, false, false);
    q = lg_hadamard(x, q, ci->k_rot);
    k = lg_hadamard(x, k, ci->k_rot);
    v = lg_hadamard(x, v, ci->v_rot);
    tp__gg_expand(g, q);
    if (x->fam == FAM_GEMMA3) { /* gemma3's graph has K before V */
        tp__gg_expand(g, k);
        tp__gg_expand(g, v);
    } else {
        tp__gg_expand(g, v);
        tp__gg_expand(g, k);
    }
    /* the ubatch's K and V rows into the caches */
    int64_t kne[4] = {Hkv * x->dk, x->T, 1, 1};
    int32_t kv = tp__gg_view(g, k, kne, NULL, 0);
    int32_t sk = lg_op(x, TP_GG_SET_ROWS, TP_DTYPE_F16, 1, 1, 1, kv, ci->k_idx, -1);
    int32_t vv;
    if (x->fa) {
        int64_t vne[4] = {Hkv * x->dv, x->T, 1, 1};
        vv = tp__gg_view(g, v, vne, NULL, 0);
    } else { /* transposed V: one value per row */
        vv = tp__gg_reshape(g, v, Hkv * x->dv, x->T, 1, 1);
        vv = tp__gg_reshape(g, vv, 1, Hkv * x->dv * x->T, 1, 1);
    }
    int32_t sv = lg_op(x, TP_GG_SET_ROWS, TP_DTYPE_F16, 1, 1, 1, vv, ci->v_idx, -1);
    if (sk >= 0) g->t[sk].external = true; /* a view of the cache */
    if (sv >= 0) g->t[sv].external = true;
    lg_w(x, sk, TP_GG_W_CACHE);
    lg_w(x, sv, TP_GG_W_CACHE);
    tp__gg_expand(g, sk);
    tp__gg_expand(g, sv);
    const tp_gg_tensor *qt = &g->t[q < 0 ? 0 : q];
    int64_t qne[4] = {qt->ne[0], qt->ne[1], qt->ne[2], qt->ne[3]};
    int32_t qp = tp__gg_permute(g, tp__gg_view(g, q, qne, qt->nb, 0), 0, 2, 1, 3);
    int32_t out;
    if (x->fa) {
        int32_t kc = lg_cache_view(x, x->o->type_k, x->dk, Hkv, ci->n_kv, true);
        int32_t vc = lg_cache_view(x, x->o->type_v, x->dv, Hkv, ci->n_kv, true);
        int32_t s[4] = {qp, kc, vc, ci->mask};
        int32_t fa = tp__gg_new(g, TP_GG_OTHER, TP_DTYPE_F32, x->dv, H, x->T, 1, s, 4);
        out = tp__gg_reshape(g, fa, x->dv * H, x->T, 1, 1);
    } else {
        int32_t kc = lg_cache_view(x, x->o->type_k, x->dk, Hkv, ci->n_kv, true);
        int32_t kq = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, ci->n_kv, x->T, H, kc, qp, -1);
        int32_t sm = lg_same(x, TP_GG_INPLACE, kq, ci->mask);
        int32_t vc = lg_cache_view(x, TP_DTYPE_F16, ci->n_kv, x->dv, Hkv, false);
        int32_t kqv = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, x->dv, x->T, H, vc, sm, -1);
        int32_t pm = tp__gg_permute(g, kqv, 0, 2, 1, 3);
        out = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, x->dv * H, x->T, 1, pm, -1, -1);
    }
    tp__gg_expand(g, out); /* build_attn_mha expands the attention's output */
    return lg_mm(x, x->E, lg_hadamard(x, out, ci->v_rot));
}

/* A [ne0, ne1, ne2] view of a's rows of row_bytes at byte offset offs
 * (ggml_view_3d with nb1 = row_bytes, nb2 = nb2). */
static int32_t lg_view3(lg_ctx *x, int32_t a, int64_t ne0, int64_t ne1, int64_t ne2, uint64_t nb1,
                        uint64_t nb2, uint64_t offs) {
    int64_t ne[4] = {ne0, ne1, ne2, 1};
    uint64_t nb[4] = {4, nb1, nb2, nb2 * (uint64_t)ne2};
    return tp__gg_view(x->g, a, ne, nb, offs);
}

/* deepseek2's multi-head latent attention with the absorption (is_mla):
 * Q = [k_b · q_nope, rope(q_pe)] per head, K = [norm(latent), rope(k_pe)]
 * in one KV head, V = the latent (a view of the K cache); the attention's
 * result goes through v_b per head (build_attn with v_mla). */
static int32_t lg_attention_mla(lg_ctx *x, uint64_t il, int32_t in) {
    const tp_llm_config *c = x->c;
    tp_gg_graph *g = x->g;
    struct cache_in *ci = &x->cache[0];
    int64_t H = (int64_t)c->n_head, T = x->T, kvl = (int64_t)c->n_lora_kv;
    int64_t rope = (int64_t)c->n_rot, dq = (int64_t)c->head_dim_k_mla, nope = dq - rope;
    int64_t dvm = (int64_t)c->head_dim_v_mla, dk = kvl + rope;
    (void)il;
    int32_t q;
    if (c->n_lora_q) { /* q_a, its norm, q_b */
        q = lg_norm(x, lg_mm(x, (int64_t)c->n_lora_q, in));
        q = lg_mm(x, H * dq, q);
    } else {
        q = lg_mm(x, H * dq, in);
    }
    q = tp__gg_reshape(g, q, dq, H, T, 1);
    int32_t kvpe = lg_mm(x, dk, in); /* kv_a_mqa: the latent and the rope part */
    uint64_t row = 4 * (uint64_t)dk;
    int32_t kv_cmpr = lg_view3(x, kvpe, kvl, T, 1, row, row * (uint64_t)T, 0);
    int32_t k_pe = lg_view3(x, kvpe, rope, 1, T, row, row, 4 * (uint64_t)kvl);
    k_pe = lg_same(x, TP_GG_INPLACE, k_pe, x->pos);
    kv_cmpr = lg_norm(x, kv_cmpr);
    uint64_t qrow = 4 * (uint64_t)dq;
    int32_t q_nope = lg_view3(x, q, nope, H, T, qrow, qrow * (uint64_t)H, 0);
    int32_t q_pe = lg_view3(x, q, rope, H, T, qrow, qrow * (uint64_t)H, 4 * (uint64_t)nope);
    q_pe = lg_same(x, TP_GG_INPLACE, q_pe, x->pos);
    q_nope = tp__gg_permute(g, q_nope, 0, 2, 1, 3);
    int32_t q_abs = lg_w(x, lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, kvl, T, H, -1, q_nope, -1),
                         TP_GG_W_WEIGHT); /* k_b per head */
    q_abs = tp__gg_permute(g, q_abs, 0, 2, 1, 3);
    int32_t qc = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, dk, H, T, q_abs, q_pe, -1); /* concat */
    int32_t kv_r = tp__gg_reshape(g, kv_cmpr, kvl, 1, T, 1);
    int32_t kc_cur = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, dk, 1, T, kv_r, k_pe, -1); /* concat */
    tp__gg_expand(g, qc);
    tp__gg_expand(g, kv_r);
    tp__gg_expand(g, kc_cur);
    int64_t kne[4] = {dk, T, 1, 1};
    int32_t kv = tp__gg_view(g, kc_cur, kne, NULL, 0);
    int32_t sk = lg_op(x, TP_GG_SET_ROWS, TP_DTYPE_F16, 1, 1, 1, kv, ci->k_idx, -1);
    if (sk >= 0) g->t[sk].external = true; /* a view of the cache */
    lg_w(x, sk, TP_GG_W_CACHE);
    tp__gg_expand(g, sk);
    const tp_gg_tensor *qt = &g->t[qc < 0 ? 0 : qc];
    int64_t qne[4] = {qt->ne[0], qt->ne[1], qt->ne[2], qt->ne[3]};
    int32_t qp = tp__gg_permute(g, tp__gg_view(g, qc, qne, qt->nb, 0), 0, 2, 1, 3);
    int32_t kl = lg_cache_view(x, x->o->type_k, dk, 1, ci->n_kv, false);
    int32_t kc = tp__gg_permute(g, kl, 0, 2, 1, 3);
    int32_t vc = -1; /* V: the latent of K's rows, with K's strides */
    if (kl >= 0) {
        int64_t vne[4] = {kvl, 1, ci->n_kv, 1};
        uint64_t vnb[4] = {g->t[kl].nb[0], g->t[kl].nb[1], g->t[kl].nb[2], g->t[kl].nb[3]};
        vc = tp__gg_permute(g, tp__gg_view(g, kl, vne, vnb, 0), 0, 2, 1, 3);
    }
    int32_t out;
    if (x->fa) {
        int32_t s[4] = {qp, kc, vc, ci->mask};
        int32_t fa = tp__gg_new(g, TP_GG_OTHER, TP_DTYPE_F32, kvl, H, T, 1, s, 4);
        int32_t fp = tp__gg_permute(g, fa, 0, 2, 1, 3);
        int32_t m = lg_w(x, lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, dvm, T, H, -1, fp, -1),
                         TP_GG_W_WEIGHT); /* v_b */
        int32_t mp = tp__gg_permute(g, m, 0, 2, 1, 3);
        int32_t cont = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, dvm, H, T, mp, -1, -1);
        out = tp__gg_reshape(g, cont, dvm * H, T, 1, 1);
    } else {
        int32_t kq = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, ci->n_kv, T, H, kc, qp, -1);
        int32_t sm = lg_same(x, TP_GG_INPLACE, kq, ci->mask);
        /* V is not transposed in the cache: ggml_cont(ggml_transpose(v)) in its type */
        int32_t vt = tp__gg_permute(g, vc, 1, 0, 2, 3);
        int32_t vcont = lg_op(x, TP_GG_OTHER, x->o->type_k, ci->n_kv, kvl, 1, vt, -1, -1);
        int32_t kqv = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, kvl, T, H, vcont, sm, -1);
        int32_t m = lg_w(x, lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, dvm, T, H, -1, kqv, -1),
                         TP_GG_W_WEIGHT); /* v_b */
        int32_t pm = tp__gg_permute(g, m, 0, 2, 1, 3);
        out = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, dvm * H, T, 1, pm, -1, -1);
    }
    tp__gg_expand(g, out);
    return lg_mm(x, x->E, out);
}

/* A node that is a view of a (ggml_scale_inplace, ggml_cpy into a cache, set_rows):
 * no memory of its own, sources srcs. */
static int32_t lg_view_op(lg_ctx *x, int32_t a, const int32_t *srcs, int n) {
    tp_gg_graph *g = x->g;
    if (a < 0 || g->status != TP_OK) return -1;
    int64_t ne[4] = {g->t[a].ne[0], g->t[a].ne[1], g->t[a].ne[2], g->t[a].ne[3]};
    uint64_t nb[4] = {g->t[a].nb[0], g->t[a].nb[1], g->t[a].nb[2], g->t[a].nb[3]};
    int32_t v = tp__gg_view(g, a, ne, nb, 0);
    if (v < 0) return -1;
    g->t[v].op = TP_GG_OTHER;
    for (int i = 0; i < n && i < TP_GG_MAX_SRC; i++)
        g->t[v].src[i] = srcs[i];
    return v;
}

/* LFM2's short-convolution block (src/models/lfm2.cpp, build_rs with one
 * sequence): in_proj to b, c, x; b·x transposed after the conv state read
 * from the recurrent cache; the last d_conv columns written back; the
 * depthwise conv (ssm_conv), times c, out_proj. */
static int32_t lg_shortconv(lg_ctx *x, int32_t in) {
    tp_gg_graph *g = x->g;
    const tp_llm_config *c = x->c;
    int64_t E = x->E, T = x->T, R = (int64_t)c->n_embd_r, dc = R / E;
    int32_t cur = tp__gg_reshape(g, in, E, T, 1, 1);
    int32_t bcx = lg_mm(x, 3 * E, cur);
    uint64_t row = 12 * (uint64_t)E;
    int32_t b = lg_view3(x, bcx, E, T, 1, row, row * (uint64_t)T, 0);
    int32_t cc = lg_view3(x, bcx, E, T, 1, row, row * (uint64_t)T, 4 * (uint64_t)E);
    int32_t xx = lg_view3(x, bcx, E, T, 1, row, row * (uint64_t)T, 8 * (uint64_t)E);
    int32_t bxm = lg_op(x, TP_GG_INPLACE, TP_DTYPE_F32, E, T, 1, b, xx, -1);
    int32_t bx = tp__gg_permute(g, bxm, 1, 0, 2, 3);
    /* build_rs: the layer's state [R, 1] (external, with the layer's cache) */
    int32_t st = lg_w(x, tp__gg_leaf(g, TP_DTYPE_F32, R, 1, 1, 1, true, 0), TP_GG_W_CACHE);
    int32_t states = tp__gg_reshape(g, st, R, 1, 1, 1);
    int32_t zero = tp__gg_view(g, states, (int64_t[4]){R, 1, 1, 1}, NULL, 0);
    int32_t sz = lg_view_op(x, zero, &zero, 1); /* scale_inplace(state_zero, 0) */
    tp__gg_expand(g, sz);
    int32_t main_ids = x->s_copy_main, extra_ids = x->s_copy_extra;
    int32_t os = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, R, 1, 1, states, main_ids, -1);
    tp__gg_expand(g, os);
    int32_t ex = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, R, 0, 1, states, extra_ids, -1);
    int32_t exd = tp__gg_view(g, st, (int64_t[4]){R, 0, 1, 1}, NULL, 4 * (uint64_t)R);
    int32_t s2[2] = {ex, exd};
    tp__gg_expand(g, lg_view_op(x, exd, s2, 2)); /* cpy of the extra states */
    int32_t conv = tp__gg_reshape(g, os, dc, E, 1, 1);
    int32_t bxc = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, dc + T, E, 1, conv, bx, -1); /* concat */
    uint64_t crow = 4 * (uint64_t)(dc + T);
    int32_t snap = lg_view3(x, bxc, dc, E, 1, crow, crow * (uint64_t)E, 4 * (uint64_t)T);
    int32_t dst = tp__gg_view(g, st, (int64_t[4]){R, 1, 1, 1}, NULL, 0);
    int32_t s3[2] = {snap, dst};
    int32_t cp = lg_w(x, lg_view_op(x, dst, s3, 2), TP_GG_W_CACHE);
    tp__gg_expand(g, cp);
    int32_t co = lg_w(x, lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, E, T, 1, bxc, -1, -1),
                      TP_GG_W_WEIGHT); /* ssm_conv with the layer's kernel */
    int32_t y = lg_op(x, TP_GG_INPLACE, TP_DTYPE_F32, E, T, 1, cc, co, -1);
    y = lg_mm(x, E, y);
    return tp__gg_reshape(g, y, E, T, 1, 1);
}

static int32_t lg_ffn_gated(lg_ctx *x, int64_t ff, int32_t in) {
    int32_t gate = lg_mm(x, ff, in);
    int32_t up = lg_mm(x, ff, in);
    int32_t glu = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, ff, x->T, 1, gate, up, -1);
    return lg_mm(x, x->E, glu);
}

static int32_t lg_ffn_dense(lg_ctx *x, int32_t in) {
    return lg_ffn_gated(x, (int64_t)(x->c->n_ff ? x->c->n_ff : 4 * x->c->n_embd), in);
}

/* The n_group_used expert groups of the best two scores each; the other
 * groups' selection scores are set to -inf (build_moe_ffn with
 * n_expert_groups > 1). Returns the masked scores [X, T]. */
static int32_t lg_moe_groups(lg_ctx *x, int32_t sel) {
    tp_gg_graph *g = x->g;
    const tp_llm_config *c = x->c;
    int64_t X = (int64_t)c->n_expert, G = (int64_t)c->n_expert_groups, T = x->T;
    int64_t P = X / G, U = (int64_t)c->n_group_used;
    int32_t sg = tp__gg_reshape(g, sel, P, G, T, 1);
    int32_t gs = lg_op(x, TP_GG_OTHER, TP_DTYPE_I32, P, G, T, sg, -1, -1); /* argsort */
    const tp_gg_tensor *gt = &g->t[gs < 0 ? 0 : gs];
    int64_t ne2[4] = {2, G, T, 1};
    uint64_t nb2[4] = {gt->nb[0], gt->nb[1], gt->nb[2], gt->nb[3]};
    int32_t top2 = tp__gg_view(g, gs, ne2, nb2, 0);
    int32_t sg4 = tp__gg_reshape(g, sg, 1, P, G, T);
    int32_t s2[2] = {sg4, top2}; /* get_rows: [1, 2, G, T] */
    int32_t sc = tp__gg_new(g, TP_GG_OTHER, TP_DTYPE_F32, 1, 2, G, T, s2, 2);
    int32_t sc3 = tp__gg_reshape(g, sc, 2, G, T, 1);
    int32_t sum = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, 1, G, T, sc3, -1, -1); /* sum_rows */
    int32_t sum2 = tp__gg_reshape(g, sum, G, T, 1, 1);
    int32_t eg = lg_op(x, TP_GG_OTHER, TP_DTYPE_I32, G, T, 1, sum2, -1, -1); /* argsort */
    const tp_gg_tensor *et = &g->t[eg < 0 ? 0 : eg];
    int64_t neu[4] = {U, T, 1, 1};
    uint64_t nbu[4] = {et->nb[0], et->nb[1], et->nb[2], et->nb[3]};
    int32_t egu = tp__gg_view(g, eg, neu, nbu, 0);
    int32_t kept = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, P, U, T, sg, egu, -1); /* get_rows */
    int32_t fill = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, P, G, T, sg, -1, -1);
    int32_t sr = tp__gg_reshape(g, fill, P, G, T, 1); /* set_rows: a view of fill */
    if (sr >= 0 && g->status == TP_OK) {
        g->t[sr].op = TP_GG_OTHER;
        g->t[sr].src[1] = kept;
        g->t[sr].src[2] = egu;
    }
    return tp__gg_reshape(g, sr, X, T, 1, 1);
}

/* build_moe_ffn with softmax (or sigmoid) gating and top-k weights,
 * normalised when norm_w; deepseek2 adds its selection bias and the weights'
 * scale when its GGUF sets them. */
static int32_t lg_ffn_moe(lg_ctx *x, int32_t in, bool norm_w) {
    tp_gg_graph *g = x->g;
    const tp_llm_config *c = x->c;
    int64_t X = (int64_t)c->n_expert, K = (int64_t)c->n_expert_used, T = x->T;
    int64_t F = (int64_t)(c->n_ff_exp ? c->n_ff_exp : c->n_ff);
    int32_t logits = lg_mm(x, X, in);
    int32_t probs = lg_same(x, TP_GG_INPLACE, logits, -1);
    int32_t probs_r = tp__gg_reshape(g, probs, 1, X, T, 1);
    int32_t sel = probs;
    if (x->fam == FAM_DEEPSEEK2 && c->moe_probs_bias) /* exp_probs_b */
        sel =
            lg_w(x, lg_op(x, TP_GG_INPLACE, TP_DTYPE_F32, X, T, 1, probs, -1, -1), TP_GG_W_WEIGHT);
    if (x->fam == FAM_DEEPSEEK2 && c->n_expert_groups > 1) sel = lg_moe_groups(x, sel);
    int32_t sorted = lg_op(x, TP_GG_OTHER, TP_DTYPE_I32, X, T, 1, sel, -1, -1);
    const tp_gg_tensor *st = &g->t[sorted < 0 ? 0 : sorted];
    int64_t kne[4] = {K, T, 1, 1};
    uint64_t knb[4] = {st->nb[0], st->nb[1], st->nb[1] * (uint64_t)T, st->nb[1] * (uint64_t)T};
    int32_t topk = tp__gg_view(g, sorted, kne, knb, 0);
    int32_t w = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, 1, K, T, probs_r, topk, -1);
    int32_t wn_r = w;
    if (norm_w) {
        int32_t w_r = tp__gg_reshape(g, w, K, T, 1, 1);
        int32_t sum = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, 1, T, 1, w_r, -1, -1);
        int32_t clamp = lg_same(x, TP_GG_INPLACE, sum, -1);
        int32_t wn = lg_op(x, TP_GG_INPLACE, TP_DTYPE_F32, K, T, 1, w_r, clamp, -1);
        wn_r = tp__gg_reshape(g, wn, 1, K, T, 1);
    }
    if (x->fam == FAM_DEEPSEEK2 && c->moe_scale) wn_r = lg_same(x, TP_GG_INPLACE, wn_r, -1);
    tp__gg_expand(g, wn_r);
    int32_t in_r = tp__gg_reshape(g, in, x->E, 1, T, 1);
    int32_t gate =
        lg_w(x, lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, F, K, T, -1, in_r, topk), TP_GG_W_EXPERT);
    int32_t up =
        lg_w(x, lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, F, K, T, -1, in_r, topk), TP_GG_W_EXPERT);
    int32_t glu = lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, F, K, T, gate, up, -1);
    int32_t down =
        lg_w(x, lg_op(x, TP_GG_OTHER, TP_DTYPE_F32, x->E, K, T, -1, glu, topk), TP_GG_W_EXPERT);
    int32_t weighted = lg_same(x, TP_GG_INPLACE, down, wn_r);
    tp__gg_expand(g, weighted);
    /* the strides copied: the views below grow g->t, which moves it */
    const tp_gg_tensor *wt = &g->t[weighted < 0 ? 0 : weighted];
    const uint64_t nb0 = wt->nb[0], nb1 = wt->nb[1], nb2 = wt->nb[2];
    int32_t acc = -1;
    for (int64_t k = 0; k < K; k++) {
        int64_t vne[4] = {x->E, T, 1, 1};
        uint64_t vnb[4] = {nb0, nb2, nb2 * (uint64_t)T, nb2 * (uint64_t)T};
        int32_t vk = tp__gg_view(g, weighted, vne, vnb, (uint64_t)k * nb1);
        tp__gg_expand(g, vk);
        if (k == 0) {
            acc = vk;
        } else {
            int32_t s[2] = {acc, vk};
            acc = tp__gg_new(g, TP_GG_INPLACE, TP_DTYPE_F32, x->E, T, 1, 1, s, 2);
        }
    }
    return acc;
}

tp_status tp__llm_graph_build(const tp_llm_config *c, const tp_llm_options *o,
                              const tp_llm_estimate *e, tp_gg_graph *g, tp_error *err) {
    if (!tp__llm_graph_covers(c, o))
        return tp_error_set(err, TP_ERR_UNSUPPORTED,
                            "llm graph: architecture %s with these options is not built", c->arch);
    lg_ctx x;
    memset(&x, 0, sizeof x);
    x.s_copy = -1;
    x.g = g;
    x.c = c;
    x.o = o;
    x.fam = lg_family_of(c);
    x.fa = o->flash_attn;
    x.T = (int64_t)e->n_ubatch;
    x.E = (int64_t)c->n_embd;
    x.dk = (int64_t)c->head_dim_k;
    x.dv = (int64_t)(c->head_dim_v ? c->head_dim_v : c->head_dim_k);
    for (uint64_t il = 0; il < c->n_layer; il++) /* V row ids without flash attention */
        if ((int64_t)c->layer_head_kv[il] * x.dv > x.v_max)
            x.v_max = (int64_t)c->layer_head_kv[il] * x.dv;
    int64_t T = x.T, E = x.E;
    /* token embeddings: get_rows, with the unused embeddings input beside */
    g->cur_layer = -1;
    int32_t tok = tp__gg_leaf(g, TP_DTYPE_I32, T, 1, 1, 1, false, TP_GG_INPUT);
    int32_t cur = lg_w(&x, lg_op(&x, TP_GG_OTHER, TP_DTYPE_F32, E, T, 1, -1, tok, -1),
                       TP_GG_W_WEIGHT); /* the token embedding's lookup */
    tp__gg_expand(g, cur);
    tp__gg_expand(g, tp__gg_leaf(g, TP_DTYPE_F32, E, T, 1, 1, false, TP_GG_INPUT));
    if (x.fam == FAM_GEMMA3) cur = lg_same(&x, TP_GG_INPLACE, cur, -1); /* sqrt(n_embd) scale */
    tp__gg_expand(g, cur);
    x.pos = tp__gg_leaf(g, TP_DTYPE_I32, T, 1, 1, 1, false, TP_GG_INPUT);
    if (x.fam == FAM_GEMMA3) { /* iswa: the full cache's inputs, then the window's */
        lg_cache_inputs(&x, 0, (int64_t)e->kv_cells);
        lg_cache_inputs(&x, 1, (int64_t)e->kv_cells_swa);
    } else if (x.fam == FAM_LFM2) { /* build_inp_mem_hybrid: the state's row ids, then KV */
        x.s_copy = tp__gg_leaf(g, TP_DTYPE_I32, 1, 1, 1, 1, false, TP_GG_INPUT);
        x.s_copy_main = tp__gg_view(g, x.s_copy, (int64_t[4]){1, 1, 1, 1}, NULL, 0);
        x.s_copy_extra = tp__gg_view(g, x.s_copy, (int64_t[4]){0, 1, 1, 1}, NULL, 4);
        lg_cache_inputs(&x, 0, (int64_t)e->kv_cells);
    } else {
        lg_cache_inputs(&x, 0, (int64_t)e->kv_cells);
    }
    int32_t out_ids = tp__gg_leaf(g, TP_DTYPE_I32, T, 1, 1, 1, false, TP_GG_INPUT);
    for (uint64_t il = 0; il < c->n_layer && g->status == TP_OK; il++) {
        g->cur_layer = (int32_t)il;
        bool last = il + 1 == c->n_layer;
        int32_t inp = cur;
        int32_t a;
        if (x.fam == FAM_DEEPSEEK2)
            a = lg_attention_mla(&x, il, lg_norm(&x, cur));
        else if (x.fam == FAM_LFM2 && c->layer_recr[il])
            a = lg_shortconv(&x, lg_norm(&x, cur));
        else
            a = lg_attention(&x, il, lg_norm(&x, cur));
        if (last) { /* keep only the output rows */
            a = lg_op(&x, TP_GG_OTHER, TP_DTYPE_F32, E, T, 1, a, out_ids, -1);
            inp = lg_op(&x, TP_GG_OTHER, TP_DTYPE_F32, E, T, 1, inp, out_ids, -1);
        }
        if (x.fam == FAM_GEMMA3) a = lg_norm(&x, a); /* post-attention norm */
        /* lfm2 adds the block's output to its input (sources the other way round) */
        int32_t ffn_inp = x.fam == FAM_LFM2 ? lg_same(&x, TP_GG_INPLACE, inp, a)
                                            : lg_same(&x, TP_GG_INPLACE, a, inp);
        int32_t f;
        if (x.fam == FAM_DEEPSEEK2 && il >= c->n_layer_dense_lead) {
            /* routed experts (no weight norm), then the shared expert added */
            int32_t fn = lg_norm(&x, ffn_inp);
            int32_t moe = lg_ffn_moe(&x, fn, c->moe_norm_w);
            int64_t fe = (int64_t)(c->n_ff_exp ? c->n_ff_exp : c->n_ff);
            int32_t sh = lg_ffn_gated(&x, fe * (int64_t)c->n_expert_shared, fn);
            f = lg_same(&x, TP_GG_INPLACE, moe, sh);
        } else if (c->n_expert && x.fam != FAM_DEEPSEEK2) {
            f = lg_ffn_moe(&x, lg_norm(&x, ffn_inp), true);
        } else {
            f = lg_ffn_dense(&x, lg_norm(&x, ffn_inp));
        }
        if (x.fam == FAM_GEMMA3) f = lg_norm_n(&x, f, false); /* post-ffn norm */
        cur = x.fam == FAM_LFM2 ? lg_same(&x, TP_GG_INPLACE, ffn_inp, f)
                                : lg_same(&x, TP_GG_INPLACE, f, ffn_inp);
        if (x.fam != FAM_LFM2) tp__gg_expand(g, cur); /* lfm2 expands no layer output */
    }
    g->cur_layer = (int32_t)c->n_layer;
    int32_t rn = lg_norm_n(&x, cur, false);
    int32_t logits = lg_mm(&x, (int64_t)c->n_vocab, rn);
    if (rn >= 0) g->t[rn].flags |= TP_GG_OUTPUT;
    if (logits >= 0) g->t[logits].flags |= TP_GG_OUTPUT;
    tp__gg_expand(g, logits);
    if (g->status != TP_OK)
        return tp_error_set(err, g->status, "llm graph: building the graph failed (%s)",
                            tp_status_name(g->status));
    return TP_OK;
}

tp_status tp__llm_graph_compute(const tp_llm_config *c, const tp_llm_options *o,
                                const tp_llm_estimate *e, uint64_t *bytes, tp_error *err) {
    tp_gg_graph g;
    tp__gg_init(&g);
    tp_status s = tp__llm_graph_build(c, o, e, &g, err);
    uint64_t align = CPU_ALIGN, size = 0;
    if (s == TP_OK) s = tp__ga_reserve(&g, NULL, NULL, 1, &align, &size, err);
    tp__gg_free(&g);
    if (s == TP_OK) *bytes = size;
    return s;
}
