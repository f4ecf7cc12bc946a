/* LLM memory as llama.cpp allocates it on the CPU backend: model buffers, KV
 * cache (per layer, sliding-window layers sized to their window), output
 * buffer and an upper-bound formula of the compute buffer (tensorplan/llm.h).
 * The rules follow llama.cpp's llama_context (n_ctx rounding), llama_kv_cache
 * and llama_kv_cache_iswa (cells, streams, tensor shapes) and output_reserve. */
#include <string.h>

#include "tensorplan/cost.h"
#include "tensorplan/llm.h"
#include "estimate/llm_amx.h"
#include "estimate/llm_graph.h"
#include "estimate/llm_kv.h"

#define KV_PAD 256       /* llama.cpp pads n_ctx and every cache's cells to 256 */
#define BUF_ALIGN 32     /* ggml CPU buffers align every tensor to TENSOR_ALIGNMENT */
#define DEFAULT_CTX 4096 /* when neither the options nor the model give one */

void tp_llm_options_default(tp_llm_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->n_seq = 1;
    o->n_ubatch = 512;
    o->n_batch = 2048;
    o->type_k = TP_DTYPE_F16;
    o->type_v = TP_DTYPE_F16;
    o->flash_attn = true;
    o->repack = TP_LLM_REPACK_AUTO;
}

tp_llm_repack tp_llm_host_repack(void) {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    /* a llama.cpp built for this CPU (a native build, or the prebuilt variant ggml picks for it)
       uses AMX where the CPU and the OS offer AMX-INT8 and AVX512-VNNI */
    tp_cpu_features f;
    tp_cpu_features_detect(&f);
    if (f.amx_int8 && f.avx512vnni) return TP_LLM_REPACK_AMX;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return TP_LLM_REPACK_AVX512;
    if (__builtin_cpu_supports("avx2")) return TP_LLM_REPACK_AVX2;
#endif
    return TP_LLM_REPACK_NONE;
}

bool tp__llm_amx_type(tp_dtype dt, uint64_t *align, uint64_t *extra) {
    uint64_t al = 0, ex = 0;
    switch (dt) {
    case TP_DTYPE_F16:
        al = 16;
        break;
    case TP_DTYPE_Q4_0:
    case TP_DTYPE_Q4_1:
        al = 32;
        break;
    case TP_DTYPE_Q8_0:
        al = 32;
        ex = 4;
        break;
    case TP_DTYPE_Q4_K:
    case TP_DTYPE_Q5_K:
        al = 256;
        ex = 4;
        break;
    case TP_DTYPE_Q6_K:
        al = 256;
        break;
    case TP_DTYPE_IQ4_XS:
        al = 256;
        ex = 2;
        break;
    default:
        return false;
    }
    if (align) *align = al;
    if (extra) *extra = ex;
    return true;
}

const char *tp_llm_repack_name(tp_llm_repack r) {
    switch (r) {
    case TP_LLM_REPACK_AUTO:
        return "auto";
    case TP_LLM_REPACK_NONE:
        return "none";
    case TP_LLM_REPACK_AVX2:
        return "avx2";
    case TP_LLM_REPACK_AVX512:
        return "avx512";
    case TP_LLM_REPACK_AMX:
        return "amx";
    default:
        return "?";
    }
}

static uint64_t pad_to(uint64_t v, uint64_t a) {
    return (v + a - 1) / a * a; /* callers keep v far below 2^63 */
}

/* Bytes of one cache tensor type[row, cells, streams], padded as the buffer
 * places it. A block type needs whole blocks per row (ggml's rule). */
static tp_status cache_tensor(tp_dtype t, uint64_t row, uint64_t cells, uint64_t streams,
                              uint64_t align, const char *what, uint64_t il, uint64_t *bytes,
                              tp_error *err) {
    const tp_dtype_info *di = tp_dtype_get(t);
    if (di->block_elems > 1 && row % di->block_elems != 0)
        return tp_error_set(err, TP_ERR_SHAPE,
                            "llm: %s cache of layer %llu: a row of %llu elements is not a whole "
                            "number of %s blocks (%u elements)",
                            what, (unsigned long long)il, (unsigned long long)row, di->name,
                            (unsigned)di->block_elems);
    uint64_t el, b;
    if (!tp_mul_u64(row, cells, &el) || !tp_mul_u64(el, streams, &el))
        return tp_error_set(err, TP_ERR_OVERFLOW, "llm: KV cache size overflows 64 bits");
    tp_status s = tp_dtype_bytes(t, el, &b, err);
    if (s != TP_OK) return s;
    if (!tp_align_up_u64(b, align, bytes))
        return tp_error_set(err, TP_ERR_OVERFLOW, "llm: KV cache size overflows 64 bits");
    return TP_OK;
}

/* Context cells (llama_context: n_ctx padded to 256, then split per stream). */
static tp_status context_cells(const tp_llm_config *c, const tp_llm_options *o, tp_llm_estimate *e,
                               tp_error *err) {
    uint64_t n_seq = o->n_seq ? o->n_seq : 1;
    uint64_t n_ctx = o->n_ctx ? o->n_ctx : (c->n_ctx_train ? c->n_ctx_train : DEFAULT_CTX);
    if (n_ctx > (1ull << 40) || n_seq > (1ull << 20))
        return tp_error_set(err, TP_ERR_OVERFLOW, "llm: context %llu x %llu sequences is too large",
                            (unsigned long long)n_ctx, (unsigned long long)n_seq);
    uint64_t padded = pad_to(n_ctx, KV_PAD);
    e->n_ctx_seq = o->kv_unified ? padded : pad_to(padded / n_seq, KV_PAD);
    if (e->n_ctx_seq == 0)
        return tp_error_set(err, TP_ERR_INVALID,
                            "llm: context %llu is too small for %llu sequences (llama.cpp: "
                            "n_ctx_seq == 0)",
                            (unsigned long long)n_ctx, (unsigned long long)n_seq);
    e->n_ctx = o->kv_unified ? padded : e->n_ctx_seq * n_seq;
    e->n_stream = o->kv_unified ? 1 : n_seq;
    /* causal models: n_batch <= requested n_ctx, n_ubatch <= n_batch */
    uint64_t n_batch = o->n_batch ? o->n_batch : 2048;
    if (n_batch > n_ctx) n_batch = n_ctx;
    uint64_t n_ubatch = o->n_ubatch ? o->n_ubatch : 512;
    e->n_ubatch = n_ubatch < n_batch ? n_ubatch : n_batch;
    e->kv_cells = e->n_ctx_seq;
    e->kv_cells_swa = 0;
    if (c->swa) {
        uint64_t w = c->n_swa * (o->kv_unified ? n_seq : 1) + e->n_ubatch;
        e->kv_cells_swa =
            o->swa_full ? e->kv_cells : pad_to(w < e->kv_cells ? w : e->kv_cells, KV_PAD);
    }
    return TP_OK;
}

uint64_t tp__llm_v_max(const tp_llm_config *c) {
    uint64_t n_layer = c->n_layer < TP_LLM_MAX_LAYERS ? c->n_layer : TP_LLM_MAX_LAYERS;
    uint64_t v_max = 0; /* without flash attention V is transposed and padded to the widest */
    for (uint64_t il = 0; il < n_layer; il++)
        if (c->layer_head_kv[il] * c->head_dim_v > v_max)
            v_max = c->layer_head_kv[il] * c->head_dim_v;
    return v_max;
}

tp_status tp__llm_layer_kv(const tp_llm_config *c, const tp_llm_options *o,
                           const tp_llm_estimate *e, uint64_t il, uint64_t v_max, uint64_t align,
                           uint64_t *k, uint64_t *v, tp_error *err) {
    *k = *v = 0;
    uint64_t kv_heads = il < TP_LLM_MAX_LAYERS ? c->layer_head_kv[il] : 0;
    if (!c->has_kv || kv_heads == 0) return TP_OK; /* no attention in this layer */
    uint64_t cells = c->layer_swa[il] ? e->kv_cells_swa : e->kv_cells;
    tp_status s = cache_tensor(o->type_k, kv_heads * c->head_dim_k, cells, e->n_stream, align, "K",
                               il, k, err);
    if (s == TP_OK && c->head_dim_v) {
        uint64_t row = o->flash_attn ? kv_heads * c->head_dim_v : v_max;
        s = cache_tensor(o->type_v, row, cells, e->n_stream, align, "V", il, v, err);
    }
    return s;
}

uint64_t tp__llm_layer_rs(const tp_llm_config *c, const tp_llm_options *o, uint64_t il,
                          uint64_t align) {
    if (il >= TP_LLM_MAX_LAYERS || !c->layer_recr[il]) return 0;
    uint64_t rows = o->n_seq ? o->n_seq : 1; /* <= 2^20 (context_cells); widths < 2^32 */
    return pad_to(4 * c->n_embd_r * rows, align) + pad_to(4 * c->n_embd_s * rows, align);
}

static tp_status kv_cache(const tp_llm_config *c, const tp_llm_options *o, tp_llm_estimate *e,
                          tp_error *err) {
    if (!c->has_kv) return TP_OK;
    uint64_t n_layer = c->n_layer < TP_LLM_MAX_LAYERS ? c->n_layer : TP_LLM_MAX_LAYERS;
    uint64_t v_max = tp__llm_v_max(c);
    for (uint64_t il = 0; il < n_layer; il++) {
        uint64_t k = 0, v = 0;
        tp_status s = tp__llm_layer_kv(c, o, e, il, v_max, BUF_ALIGN, &k, &v, err);
        if (s != TP_OK) return s;
        if (!tp_add_u64(e->kv_k_bytes, k, &e->kv_k_bytes) ||
            !tp_add_u64(e->kv_v_bytes, v, &e->kv_v_bytes) ||
            (c->layer_swa[il] && !tp_add_u64(e->kv_swa_bytes, k + v, &e->kv_swa_bytes)))
            return tp_error_set(err, TP_ERR_OVERFLOW, "llm: KV cache size overflows 64 bits");
    }
    for (uint64_t il = 0; il < n_layer; il++)
        if (!tp_add_u64(e->recurrent_bytes, tp__llm_layer_rs(c, o, il, BUF_ALIGN),
                        &e->recurrent_bytes))
            return tp_error_set(err, TP_ERR_OVERFLOW, "llm: recurrent state overflows 64 bits");
    if (!tp_add_u64(e->kv_k_bytes, e->kv_v_bytes, &e->kv_cache_bytes) ||
        !tp_add_u64(e->kv_cache_bytes, e->recurrent_bytes, &e->kv_cache_bytes))
        return tp_error_set(err, TP_ERR_OVERFLOW, "llm: KV cache size overflows 64 bits");
    return TP_OK;
}

/* acc += a × b (× c), overflow-checked. */
static bool mac3(uint64_t *acc, uint64_t a, uint64_t b, uint64_t c) {
    uint64_t p;
    return tp_mul_u64(a, b, &p) && tp_mul_u64(p, c, &p) && tp_add_u64(*acc, p, acc);
}

/* The compute buffer's formula (tensorplan/llm.h): graph inputs and KQ masks
 * live through the whole graph; on top, the largest of three phases. The
 * phase widths are those ggml's graph allocator reached on llama.cpp's
 * graphs in the measurements (docs/estimate.md), per token in f32 elements:
 *   output     n_vocab + n_embd           (logits and the normed input)
 *   ffn        4·n_ff_active + n_embd     (gate, up, product and the
 *                                          allocator's fragmentation)
 *   attention  3·n_embd + 2·n_head·dk + n_head_kv·(dk + dv)
 *              + flash: n_head·dv; else n_head·cells (KQ) and, with Q/K
 *              norms, n_head·dk (the normed Q beside the raw one)
 * plus, with a quantized K or V cache, f16 copies of the ubatch's new K and V
 * rows (n_head_kv·(dk + dv) halves per token). */
static tp_status compute_buffer(const tp_llm_config *c, const tp_llm_options *o, tp_llm_estimate *e,
                                tp_error *err) {
    uint64_t t = e->n_ubatch;
    uint64_t caches = c->has_kv ? (c->swa ? 2 : 1) : 0;
    uint64_t mask_b = o->flash_attn ? 2 : 4;
    uint64_t dk = c->head_dim_k, dv = c->head_dim_v;
    uint64_t ff = c->n_ff ? c->n_ff : 4 * c->n_embd;
    if (c->n_expert && c->n_expert_used) {
        /* routed experts plus the shared ones; leading dense layers keep n_ff */
        uint64_t dense = ff, fe = c->n_ff_exp ? c->n_ff_exp : ff;
        ff = fe * (c->n_expert_used + c->n_expert_shared);
        if (c->n_layer_dense_lead && dense > ff) ff = dense;
    }
    /* token ids, positions, output ids (i32); K and V row ids per cache (i64) */
    uint64_t in_bytes = 12u + caches * (dv ? 16u : 8u);
    uint64_t out_w = c->n_vocab + c->n_embd;
    uint64_t ffn_w = 4 * ff + c->n_embd;
    uint64_t attn_w = 3 * c->n_embd + 2 * c->n_head * dk + c->n_head_kv * (dk + dv);
    attn_w +=
        o->flash_attn ? c->n_head * (dv ? dv : dk) : c->n_head * (c->has_kv ? e->kv_cells : t);
    if (!o->flash_attn && c->qk_norm) attn_w += c->n_head * dk;
    uint64_t w = out_w > ffn_w ? out_w : ffn_w;
    if (attn_w > w) w = attn_w;
    uint64_t total = 0;
    bool quant_kv = tp_dtype_is_quantized(o->type_k) || tp_dtype_is_quantized(o->type_v);
    bool ok = mac3(&total, t, in_bytes, 1) && mac3(&total, t, w, 4) &&
              (!quant_kv || !c->has_kv || mac3(&total, t, c->n_head_kv * (dk + dv), 2)) &&
              (!c->has_kv || mac3(&total, t, e->kv_cells, mask_b)) &&
              (!c->swa || mac3(&total, t, e->kv_cells_swa, mask_b));
    /* hybrids: the recurrent state's row ids (i32 per sequence), one aligned input, and
     * the states of the ubatch's sequences gathered for a layer (f32 n_embd_r each) */
    uint64_t rows = o->n_seq ? o->n_seq : 1;
    if (ok && c->recurrent_layers)
        ok = tp_add_u64(total, pad_to(4 * rows, BUF_ALIGN), &total) &&
             tp_add_u64(total, pad_to(4 * c->n_embd_r * rows, BUF_ALIGN), &total);
    if (!ok)
        return tp_error_set(err, TP_ERR_OVERFLOW, "llm: compute buffer size overflows 64 bits");
    e->compute_bytes = total;
    e->compute_formula_bytes = total;
    e->compute_planned = false;
    return TP_OK;
}

/* The planned graph where llm_graph.c builds the architecture; the formula
 * stays in compute_formula_bytes (tp_llm_place scales it per device). */
static tp_status compute_planned(const tp_llm_config *c, const tp_llm_options *o,
                                 tp_llm_estimate *e, tp_error *err) {
    if (!tp__llm_graph_covers(c, o)) return TP_OK;
    uint64_t bytes = 0;
    tp_status s = tp__llm_graph_compute(c, o, e, &bytes, err);
    if (s != TP_OK) return s;
    e->compute_bytes = bytes;
    e->compute_planned = true;
    return TP_OK;
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
    if (c->n_layer == 0 || c->n_head == 0 || c->n_embd == 0 || c->head_dim_k == 0)
        return tp_error_set(err, TP_ERR_INVALID,
                            "llm: incomplete config (layers %llu, heads %llu, embedding %llu, "
                            "head dim %llu)",
                            (unsigned long long)c->n_layer, (unsigned long long)c->n_head,
                            (unsigned long long)c->n_embd, (unsigned long long)c->head_dim_k);
    if (!tp_dtype_is_valid(o->type_k) || !tp_dtype_is_valid(o->type_v))
        return tp_error_set(err, TP_ERR_INVALID, "llm: bad KV cache dtype (K %d, V %d)",
                            (int)o->type_k, (int)o->type_v);
    if (!o->flash_attn && tp_dtype_is_quantized(o->type_v))
        return tp_error_set(err, TP_ERR_INVALID,
                            "llm: a quantized V cache (%s) needs flash attention (llama.cpp "
                            "refuses it otherwise)",
                            tp_dtype_name(o->type_v));
    /* MLA (deepseek2: the cache holds K only) */
    if (c->has_kv && c->head_dim_v == 0 && o->type_k != o->type_v)
        return tp_error_set(err, TP_ERR_INVALID,
                            "llm: %s keeps the latent (MLA) in the K cache only: K (%s) and V (%s) "
                            "must be of one type (llama.cpp refuses different ones)",
                            c->arch, tp_dtype_name(o->type_k), tp_dtype_name(o->type_v));
    if (c->n_embd > (1ull << 24) || c->n_head > (1ull << 16) || c->head_dim_k > (1ull << 20) ||
        c->head_dim_v > (1ull << 20) || c->n_ff > (1ull << 32) || c->n_ff_exp > (1ull << 32) ||
        c->n_vocab > (1ull << 32) || c->n_expert_used > (1ull << 16) ||
        c->n_expert_shared > (1ull << 16) || c->n_swa > (1ull << 32))
        return tp_error_set(err, TP_ERR_OVERFLOW, "llm: model dimensions out of range");
    tp_status s = context_cells(c, o, out, err);
    if (s == TP_OK) s = kv_cache(c, o, out, err);
    if (s == TP_OK) s = compute_buffer(c, o, out, err);
    if (s == TP_OK) s = compute_planned(c, o, out, err);
    if (s != TP_OK) {
        memset(out, 0, sizeof *out);
        return s;
    }
    out->repack = o->repack == TP_LLM_REPACK_AUTO ? tp_llm_host_repack() : o->repack;
    if ((int)out->repack < 0 || out->repack >= TP_LLM_REPACK_COUNT)
        out->repack = TP_LLM_REPACK_NONE;
    const tp_llm_model_layout *lay = &c->layout[out->repack];
    out->weight_bytes = c->weight_bytes;
    out->model_mapped_bytes = lay->mapped_bytes;
    out->model_repack_bytes = lay->repack_bytes;
    uint64_t n_seq = o->n_seq ? o->n_seq : 1,
             per_out = c->n_vocab + (o->embeddings ? c->n_embd : 0);
    bool ok = tp_add_u64(lay->mapped_bytes, lay->repack_bytes, &out->model_bytes) &&
              tp_mul_u64(per_out, n_seq, &out->output_bytes) &&
              tp_mul_u64(out->output_bytes, 4, &out->output_bytes) &&
              tp_add_u64(out->model_bytes, out->kv_cache_bytes, &out->peak_bytes) &&
              tp_add_u64(out->peak_bytes, out->output_bytes, &out->peak_bytes) &&
              tp_add_u64(out->peak_bytes, out->compute_bytes, &out->peak_bytes);
    if (!ok) {
        memset(out, 0, sizeof *out);
        return tp_error_set(err, TP_ERR_OVERFLOW, "llm: peak overflows 64 bits");
    }
    return TP_OK;
}
