/* The tensors of a Hugging Face checkpoint as llama.cpp's converter names and shapes them
 * (llm_tensors.h: tp__hf_tensors), from the config alone; a tensor list's GGUF model buffers
 * (tp__llm_tensors_lay_out). */
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "gguf_layout.h"
#include "llm_tensors.h"

#define QUANT_ALIGN 32 /* GGUF_DEFAULT_ALIGNMENT: llama-quantize's output */

void tp__llm_tensors_init(tp_llm_tensors *l, const tp_allocator *a) {
    memset(l, 0, sizeof *l);
    l->a = a;
}

void tp__llm_tensors_free(tp_llm_tensors *l) {
    if (l->t) tp_mem_free(l->a, l->t, l->cap * sizeof *l->t);
    l->t = NULL;
    l->n = l->cap = 0;
}

tp_status tp__llm_tensors_add(tp_llm_tensors *l, const char *name, tp_dtype type, uint32_t n_dims,
                              const uint64_t *ne, tp_error *err) {
    if (n_dims == 0 || n_dims > 4 || strlen(name) >= TP_LLM_TENSOR_NAME_CAP)
        return tp_error_set(err, TP_ERR_INVALID, "tensor '%.64s': rank %u or name not supported",
                            name, (unsigned)n_dims);
    if (!tp_mem_grow(l->a, (void **)&l->t, sizeof *l->t, &l->cap, l->n + 1))
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    tp_llm_tensor *t = &l->t[l->n++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->n_dims = n_dims;
    for (uint32_t d = 0; d < 4; d++)
        t->ne[d] = d < n_dims ? ne[d] : 1;
    t->type = type;
    return TP_OK;
}

/* Bytes of tensor t at type dt: rows × row size. false on an overflow or a row that is not a
   whole number of blocks. */
static bool tensor_bytes(const tp_llm_tensor *t, tp_dtype dt, uint64_t *out) {
    tp_error e;
    uint64_t row, rows = 1;
    if (tp_dtype_bytes(dt, t->ne[0], &row, &e) != TP_OK) return false;
    for (int d = 1; d < 4; d++)
        if (!tp_mul_u64(rows, t->ne[d], &rows)) return false;
    return tp_mul_u64(rows, row, out);
}

tp_status tp__llm_tensors_lay_out(const tp_llm_tensors *l, const tp_dtype *types,
                                  const tp_allocator *a, tp_llm_config *c, tp_error *err) {
    tp_gguf_layout *lay = tp_mem_alloc(a, sizeof *lay);
    if (!lay) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    tp_gguf_layout_init(lay);
    uint64_t offset = 0, total = 0, experts = 0;
    tp_status st = TP_OK;
    for (size_t i = 0; i < l->n && st == TP_OK; i++) {
        const tp_llm_tensor *t = &l->t[i];
        tp_dtype ty = types ? types[i] : t->type;
        uint64_t bytes = 0, padded;
        if (!tensor_bytes(t, ty, &bytes) || !tp_add_u64(total, bytes, &total) ||
            !tp_align_up_u64(bytes, QUANT_ALIGN, &padded) ||
            !tp_gguf_layout_add(lay, t->name, ty, t->n_dims, t->ne, offset, bytes) ||
            !tp_add_u64(offset, padded, &offset))
            st = tp_error_set(err, TP_ERR_OVERFLOW, "tensor '%s': bytes overflow", t->name);
        if (st == TP_OK && strstr(t->name, "_exps")) experts += bytes; /* <= total */
    }
    if (st == TP_OK) {
        c->weight_bytes = total;
        c->n_tensors = l->n;
        c->alignment = QUANT_ALIGN;
        if (c->n_expert && c->moe_layers) {
            c->expert_tensor_bytes = experts;
            c->expert_bytes = experts / tp_sat_mul_u64(c->n_expert, c->moe_layers);
        }
        tp_gguf_layout_finish(lay, c);
    }
    tp_mem_free(a, lay, sizeof *lay);
    return st;
}

/* One tensor: prefix (blk.N. or ""), name, type and up to three dims. */
static tp_status add_tensor(tp_llm_tensors *l, const char *blk, const char *name, tp_dtype type,
                            uint64_t d0, uint64_t d1, uint64_t d2, tp_error *err) {
    char full[TP_LLM_TENSOR_NAME_CAP];
    uint64_t ne[3] = {d0, d1, d2};
    snprintf(full, sizeof full, "%s%s", blk, name);
    return tp__llm_tensors_add(l, full, type, d2 ? 3 : d1 ? 2 : 1, ne, err);
}

tp_status tp__hf_tensors(const tp_llm_config *c, const tp_hf_shape *s, tp_llm_tensors *out,
                         tp_error *err) {
    const tp_dtype M = s->matrix_type, F = TP_DTYPE_F32;
    uint64_t E = c->n_embd, hd = c->head_dim_k, q = c->n_head * hd, V = c->n_vocab;
    uint64_t X = c->n_expert, ff = c->n_ff, fe = s->n_ff_exp, sh = s->n_shared_ff;
    tp_status st = TP_OK;
#define ADD(blk, nm, ty, a0, a1, a2)                                                               \
    do {                                                                                           \
        if ((st = add_tensor(out, blk, nm, ty, a0, a1, a2, err)) != TP_OK) return st;              \
    } while (0)
    ADD("", "token_embd.weight", M, E, V, 0);
    ADD("", "output_norm.weight", F, E, 0, 0);
    if (!s->tied) ADD("", "output.weight", M, E, V, 0);
    for (uint64_t il = 0; il < c->n_layer; il++) {
        char b[32];
        uint64_t kv = (il < TP_LLM_MAX_LAYERS ? c->layer_head_kv[il] : c->n_head_kv) * hd;
        snprintf(b, sizeof b, "blk.%llu.", (unsigned long long)il);
        ADD(b, "attn_norm.weight", F, E, 0, 0);
        if (s->fused) {
            ADD(b, "attn_qkv.weight", M, E, q + 2 * kv, 0);
        } else {
            ADD(b, "attn_q.weight", M, E, q, 0);
            ADD(b, "attn_k.weight", M, E, kv, 0);
            ADD(b, "attn_v.weight", M, E, kv, 0);
        }
        if (s->qkv_bias) {
            ADD(b, "attn_q.bias", F, q, 0, 0);
            ADD(b, "attn_k.bias", F, kv, 0, 0);
            ADD(b, "attn_v.bias", F, kv, 0, 0);
        }
        if (c->qk_norm) {
            ADD(b, "attn_q_norm.weight", F, hd, 0, 0);
            ADD(b, "attn_k_norm.weight", F, hd, 0, 0);
        }
        ADD(b, "attn_output.weight", M, q, E, 0);
        if (s->post_norms) {
            ADD(b, "post_attention_norm.weight", F, E, 0, 0);
            ADD(b, "post_ffw_norm.weight", F, E, 0, 0);
        }
        ADD(b, "ffn_norm.weight", F, E, 0, 0);
        if (X) {
            ADD(b, "ffn_gate_inp.weight", F, E, X, 0);
            if (s->gated) ADD(b, "ffn_gate_exps.weight", M, E, fe, X);
            ADD(b, "ffn_up_exps.weight", M, E, fe, X);
            ADD(b, "ffn_down_exps.weight", M, fe, E, X);
            if (sh) {
                ADD(b, "ffn_gate_inp_shexp.weight", F, E, 0, 0);
                ADD(b, "ffn_gate_shexp.weight", M, E, sh, 0);
                ADD(b, "ffn_up_shexp.weight", M, E, sh, 0);
                ADD(b, "ffn_down_shexp.weight", M, sh, E, 0);
            }
        } else if (s->fused) {
            ADD(b, "ffn_up.weight", M, E, 2 * ff, 0);
            ADD(b, "ffn_down.weight", M, ff, E, 0);
        } else {
            if (s->gated) ADD(b, "ffn_gate.weight", M, E, ff, 0);
            ADD(b, "ffn_up.weight", M, E, ff, 0);
            ADD(b, "ffn_down.weight", M, ff, E, 0);
        }
    }
#undef ADD
    return st;
}
