/* LLM memory estimate: weights + KV cache + an approximate compute buffer. */
#include <string.h>

#include "tensorplan/estimate.h"

void tp_llm_options_default(tp_llm_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->n_ctx = 0;
    o->n_seq = 1;
    o->n_ubatch = 512;
    o->kv_dtype = TP_DTYPE_F16;
}

/* acc += a × b (× c), overflow-checked. */
static bool mac3(uint64_t *acc, uint64_t a, uint64_t b, uint64_t c) {
    uint64_t p;
    return tp_mul_u64(a, b, &p) && tp_mul_u64(p, c, &p) && tp_add_u64(*acc, p, acc);
}

tp_status tp_llm_estimate_memory(const tp_llm_config *c, const tp_llm_options *o,
                                 tp_llm_estimate *out, tp_error *err) {
    if (!c || !out) return tp_error_set(err, TP_ERR_INVALID, "llm: NULL argument");
    memset(out, 0, sizeof *out);
    tp_llm_options defaults;
    if (!o) {
        tp_llm_options_default(&defaults);
        o = &defaults;
    }
    if (c->n_layer == 0 || c->n_head == 0 || c->n_head_kv == 0 || c->n_embd == 0 ||
        c->head_dim_k == 0)
        return tp_error_set(err, TP_ERR_INVALID,
                            "llm: incomplete config (layers %llu, heads %llu, kv heads %llu, "
                            "embedding %llu, head dim %llu)",
                            (unsigned long long)c->n_layer, (unsigned long long)c->n_head,
                            (unsigned long long)c->n_head_kv, (unsigned long long)c->n_embd,
                            (unsigned long long)c->head_dim_k);
    if (!tp_dtype_is_valid(o->kv_dtype))
        return tp_error_set(err, TP_ERR_INVALID, "llm: bad KV cache dtype %d", (int)o->kv_dtype);
    uint64_t n_ctx = o->n_ctx ? o->n_ctx : (c->n_ctx_train ? c->n_ctx_train : 4096);
    uint64_t n_seq = o->n_seq ? o->n_seq : 1;
    uint64_t hv = c->head_dim_v ? c->head_dim_v : c->head_dim_k;

    /* KV cache: per layer K = n_ctx·n_seq·n_head_kv·head_dim_k, V likewise */
    uint64_t tokens, k_el, v_el, k_b, v_b, per_layer, kv;
    if (!tp_mul_u64(n_ctx, n_seq, &tokens) || !tp_mul_u64(tokens, c->n_head_kv, &k_el) ||
        !tp_mul_u64(k_el, hv, &v_el) || !tp_mul_u64(k_el, c->head_dim_k, &k_el))
        return tp_error_set(err, TP_ERR_OVERFLOW, "llm: KV cache size overflows 64 bits");
    tp_status s = tp_dtype_bytes(o->kv_dtype, k_el, &k_b, err);
    if (s == TP_OK) s = tp_dtype_bytes(o->kv_dtype, v_el, &v_b, err);
    if (s != TP_OK) {
        tp_error_prefix(err, "llm: KV cache: ");
        return s;
    }
    if (!tp_add_u64(k_b, v_b, &per_layer) || !tp_mul_u64(per_layer, c->n_layer, &kv))
        return tp_error_set(err, TP_ERR_OVERFLOW, "llm: KV cache size overflows 64 bits");

    /* compute buffer, f32 elements for t tokens (see the header) */
    uint64_t t = o->n_ubatch ? o->n_ubatch : 512;
    if (t > n_ctx) t = n_ctx;
    uint64_t n_ff = c->n_ff ? c->n_ff : 4 * c->n_embd;
    uint64_t experts = c->n_expert_used ? c->n_expert_used : 1;
    uint64_t attn = 0, ffn = 0, outp = 0, resid = 0, elems, compute;
    bool ok = mac3(&attn, c->n_head, t, n_ctx) &&            /* scores */
              mac3(&attn, t, c->n_head, c->head_dim_k) &&    /* Q */
              mac3(&attn, t, c->n_head_kv, c->head_dim_k) && /* new K */
              mac3(&attn, t, c->n_head_kv, hv) &&            /* new V */
              mac3(&attn, t, c->n_head, hv) &&               /* attention output */
              mac3(&ffn, t, c->n_embd, 1) &&                 /* normed input */
              mac3(&ffn, t, n_ff, experts) && mac3(&ffn, t, n_ff, experts) &&
              mac3(&ffn, t, n_ff, experts) && /* gate, up, activation */
              mac3(&outp, t, c->n_embd, 1) && mac3(&outp, t, c->n_vocab, 1) && /* logits */
              mac3(&resid, t, c->n_embd, 1);
    elems = attn > ffn ? attn : ffn;
    if (outp > elems) elems = outp;
    if (!ok || !tp_add_u64(elems, resid, &elems) || !tp_mul_u64(elems, 4, &compute))
        return tp_error_set(err, TP_ERR_OVERFLOW, "llm: compute buffer size overflows 64 bits");

    uint64_t peak;
    if (!tp_add_u64(c->weight_bytes, kv, &peak) || !tp_add_u64(peak, compute, &peak))
        return tp_error_set(err, TP_ERR_OVERFLOW, "llm: peak overflows 64 bits");
    out->n_ctx = n_ctx;
    out->weight_bytes = c->weight_bytes;
    out->kv_cache_bytes = kv;
    out->compute_bytes = compute;
    out->peak_bytes = peak;
    return TP_OK;
}
