/* vLLM's KV block pool and the layout that fits (tensorplan/vllm.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/mem.h"
#include "tensorplan/vllm.h"

#define GIB (1ull << 30)

void tp_vllm_options_default(tp_vllm_options *o) {
    memset(o, 0, sizeof *o);
    o->gpu_memory_utilization = 0.9;
    o->max_num_batched_tokens = 8192;
    o->max_num_seqs = 256;
    o->block_size = 16;
    o->non_torch_bytes = UINT64_MAX;
}

static uint64_t vl_cdiv(uint64_t a, uint64_t b) {
    return b ? a / b + (a % b != 0) : 0;
}

/* Shapes every rank of one (tp, pp) layout shares. Counts of parameters or elements;
 * the sizes are far below 2^53, so double arithmetic is exact enough here and the
 * byte figures are checked when they are turned into integers. */
typedef struct vllm_shapes {
    double E, dk, dv, heads_rank, kv_rank, ff_rank, ffe_rank, experts, used, vocab_rank, vocab;
    double wbytes, abytes, kvbytes; /* bytes per weight, per vl_activation, per KV element */
} vllm_shapes;

static bool vl_is_swa(const tp_llm_config *c, uint64_t il) {
    return c->swa && c->n_swa && il < TP_LLM_MAX_LAYERS && c->layer_swa[il];
}

static bool vl_has_kv(const tp_llm_config *c, uint64_t il) {
    return c->has_kv && (il >= TP_LLM_MAX_LAYERS || c->layer_head_kv[il] != 0);
}

/* Parameters of one decoder layer on one rank (norms replicated, the router too). */
static double vl_layer_params(const vllm_shapes *s) {
    double attn = s->E * s->heads_rank * s->dk * 2 + s->E * s->kv_rank * (s->dk + s->dv);
    double mlp = s->experts > 0 ? s->experts * 3 * s->E * s->ffe_rank + s->E * s->experts
                                : 3 * s->E * s->ff_rank;
    return attn + mlp + 2 * s->E;
}

/* Total parameters of the unsharded model (tp = pp = 1), to derive bytes per weight. */
static double vl_model_params(const tp_llm_config *c, const vllm_shapes *one) {
    double embed = one->vocab * one->E;
    return vl_layer_params(one) * (double)c->n_layer + embed * (c->tied_output ? 1 : 2) + one->E;
}

static void vl_make_shapes(const tp_llm_config *c, uint64_t tp, vllm_shapes *s) {
    memset(s, 0, sizeof *s);
    s->E = (double)c->n_embd;
    s->dk = (double)(c->head_dim_k ? c->head_dim_k : (c->n_head ? c->n_embd / c->n_head : 0));
    s->dv = c->head_dim_v ? (double)c->head_dim_v : s->dk;
    s->heads_rank = (double)c->n_head / (double)tp;
    uint64_t kvh = c->n_head_kv ? c->n_head_kv : c->n_head;
    s->kv_rank = (double)(kvh >= tp ? kvh / tp : 1);
    uint64_t ff = c->n_ff ? c->n_ff : 4 * c->n_embd;
    s->ff_rank = (double)vl_cdiv(ff, tp);
    s->ffe_rank = (double)vl_cdiv(c->n_ff_exp ? c->n_ff_exp : ff, tp);
    s->experts = (double)c->n_expert;
    s->used = (double)(c->n_expert_used ? c->n_expert_used : 1);
    uint64_t vpad = vl_cdiv(c->n_vocab, 64) * 64;
    s->vocab = (double)c->n_vocab;
    s->vocab_rank = (double)vl_cdiv(vpad, tp);
}

/* The profiling pass's peak on one rank (ASSUMED vllm_shapes, tensorplan/vllm.h): the
 * residual stream and hidden states of T tokens, plus the wider of the attention
 * phase (QKV and the attention output) and the MLP phase (gate/up and the activated
 * half; an MoE: the routed copies of every token and the router logits in f32), plus,
 * on the last stage, the sampler's logits, probabilities and log-probabilities of
 * max_num_seqs rows over the whole vocabulary in f32. */
static double vl_activation(const vllm_shapes *s, const tp_vllm_options *o, bool last) {
    double T = (double)o->max_num_batched_tokens, b = s->abytes;
    double resid = 2 * T * s->E * b;
    double attn = T * (s->heads_rank * s->dk * 2 + s->kv_rank * (s->dk + s->dv)) * b;
    double mlp = s->experts > 0 ? T * s->used * (3 * s->ffe_rank + s->E) * b + T * s->experts * 4
                                : T * 3 * s->ff_rank * b;
    double sampler = last ? (double)o->max_num_seqs * s->vocab * 4 * 3 : 0;
    return resid + (attn > mlp ? attn : mlp) + sampler;
}

/* KV bytes one request of len tokens needs in the layers [l0, l1). */
static double vl_kv_need(const tp_llm_config *c, const vllm_shapes *s, const tp_vllm_options *o,
                         uint64_t l0, uint64_t l1, uint64_t len) {
    double page = (double)o->block_size * s->kv_rank * (s->dk + s->dv) * s->kvbytes;
    double need = 0;
    for (uint64_t il = l0; il < l1; il++) {
        if (!vl_has_kv(c, il)) continue;
        uint64_t blocks = vl_cdiv(len, o->block_size);
        if (vl_is_swa(c, il)) {
            uint64_t t = c->n_swa - 1 + o->max_num_batched_tokens;
            if (t > len) t = len;
            uint64_t swa_blocks = vl_cdiv(t, o->block_size) + 1;
            if (swa_blocks < blocks) blocks = swa_blocks;
        }
        need += (double)blocks * page;
    }
    return need;
}

typedef struct vl_stage_eval {
    tp_vllm_rank rank;
    uint64_t l0, l1;
    double pool;
} vl_stage_eval;

static uint64_t vl_to_u64(double v) {
    return v <= 0 ? 0 : v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
}

/* One pipeline stage's rank: weights, vl_activation, non-torch, pool. */
static void vl_eval_stage(const tp_llm_config *c, const vllm_shapes *s, const tp_vllm_options *o,
                          uint64_t tp, uint64_t pp, uint64_t st, uint64_t gpu_bytes,
                          vl_stage_eval *ev) {
    uint64_t base = c->n_layer / pp, rem = c->n_layer % pp;
    ev->l0 = st * base + (st < rem ? st : rem);
    ev->l1 = ev->l0 + base + (st < rem ? 1 : 0);
    double n = (double)(ev->l1 - ev->l0);
    bool first = st == 0, last = st == pp - 1;
    double params = vl_layer_params(s) * n;
    double embed = s->vocab_rank * s->E;
    if (first) params += embed;
    if (last) params += embed + s->E; /* LM head (its own copy when tied across stages) */
    if (last && first && c->tied_output) params -= embed;
    double rope = (double)(c->n_ctx_train ? c->n_ctx_train : 4096) * s->dk * s->abytes;
    tp_vllm_rank *r = &ev->rank;
    r->weight_bytes = vl_to_u64(params * s->wbytes + rope);
    r->activation_bytes =
        o->activation_bytes ? o->activation_bytes : vl_to_u64(vl_activation(s, o, last));
    r->non_torch_bytes = o->non_torch_bytes != UINT64_MAX ? o->non_torch_bytes
                         : tp > 1                         ? (uint64_t)(0.55 * (double)GIB)
                                                          : (uint64_t)(0.15 * (double)GIB);
    r->budget_bytes = vl_to_u64(floor((double)gpu_bytes * o->gpu_memory_utilization));
    double used =
        (double)r->weight_bytes + (double)r->activation_bytes + (double)r->non_torch_bytes;
    ev->pool = (double)r->budget_bytes - used;
    r->kv_pool_bytes = vl_to_u64(ev->pool);
    r->layers = 0;
    for (uint64_t il = ev->l0; il < ev->l1; il++)
        r->layers += vl_has_kv(c, il);
    double page = (double)o->block_size * s->kv_rank * (s->dk + s->dv) * s->kvbytes;
    r->kv_bytes_per_block_all_layers = vl_to_u64(page * (double)r->layers);
    r->num_blocks =
        r->kv_bytes_per_block_all_layers ? r->kv_pool_bytes / r->kv_bytes_per_block_all_layers : 0;
}

/* The longest request the stage serves (binary search over need(len) <= pool). */
static uint64_t vl_stage_fit_len(const tp_llm_config *c, const vllm_shapes *s,
                                 const tp_vllm_options *o, const vl_stage_eval *ev, uint64_t cap) {
    if (ev->pool <= 0) return 0;
    if (vl_kv_need(c, s, o, ev->l0, ev->l1, cap) <= ev->pool) return cap;
    uint64_t lo = 0, hi = cap; /* need(lo) fits, need(hi) does not */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (vl_kv_need(c, s, o, ev->l0, ev->l1, mid) <= ev->pool)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* One (tp, pp) layout: its worst stage, the longest servable length, the plan for len. */
static void vl_eval_layout(const tp_llm_config *c, const tp_vllm_options *o, double wbytes,
                           uint64_t tp, uint64_t pp, uint64_t gpu_bytes, uint64_t len, uint64_t cap,
                           tp_vllm_plan *p) {
    vllm_shapes s;
    vl_make_shapes(c, tp, &s);
    s.wbytes = wbytes;
    s.abytes = 2;
    s.kvbytes = o->kv_dtype_bytes ? (double)o->kv_dtype_bytes : 2;
    p->tensor_parallel = tp;
    p->pipeline_parallel = pp;
    p->max_model_len_fit = cap;
    double worst_ratio = -1;
    for (uint64_t st = 0; st < pp; st++) {
        vl_stage_eval ev;
        vl_eval_stage(c, &s, o, tp, pp, st, gpu_bytes, &ev);
        uint64_t fit = vl_stage_fit_len(c, &s, o, &ev, cap);
        if (fit < p->max_model_len_fit) p->max_model_len_fit = fit;
        double need = vl_kv_need(c, &s, o, ev.l0, ev.l1, len);
        double ratio = ev.pool > 0 ? need / ev.pool : 1e300;
        if (ratio > worst_ratio) {
            worst_ratio = ratio;
            p->rank = ev.rank;
            p->kv_bytes_for_len = vl_to_u64(need);
            p->max_concurrency = need > 0 && ev.pool > 0 ? ev.pool / need : 0;
        }
    }
    p->max_model_len = len;
    p->fits = len > 0 && p->max_model_len_fit >= len;
}

static bool vl_tp_valid(const tp_llm_config *c, uint64_t tp) {
    uint64_t kvh = c->n_head_kv ? c->n_head_kv : c->n_head;
    return tp && c->n_head % tp == 0 && (kvh % tp == 0 || tp % kvh == 0);
}

tp_status tp_vllm_plan_compute(const tp_llm_config *c, const tp_llm_device_set *ds,
                               const tp_vllm_options *o, tp_vllm_plan *out, tp_error *err) {
    if (!c || !ds || !o || !out) return tp_error_set(err, TP_ERR_INVALID, "vllm: NULL argument");
    memset(out, 0, sizeof *out);
    if (!(o->gpu_memory_utilization > 0 && o->gpu_memory_utilization <= 1))
        return tp_error_set(err, TP_ERR_INVALID,
                            "vllm: --gpu-memory-utilization must be in (0, 1], got %g",
                            o->gpu_memory_utilization);
    if (!o->block_size || !o->max_num_batched_tokens || !o->max_num_seqs)
        return tp_error_set(err, TP_ERR_INVALID,
                            "vllm: block size, batched tokens and sequences must be positive");
    if (!c->n_layer || !c->n_head || !c->n_embd || !c->n_vocab)
        return tp_error_set(err, TP_ERR_INVALID, "vllm: the model has no layers, heads or vocab");
    uint64_t n = 0, gpu = UINT64_MAX;
    for (size_t i = 0; i < ds->n; i++) {
        const tp_llm_device *d = &ds->dev[i];
        if (d->kind != TP_LLM_DEV_CUDA && d->kind != TP_LLM_DEV_METAL) continue;
        if (!d->size_bytes)
            return tp_error_set(err, TP_ERR_INVALID,
                                "vllm: the size of %s is unknown (give it: %s:24GiB)", d->name,
                                d->name);
        n++;
        if (d->size_bytes < gpu) gpu = d->size_bytes;
    }
    if (!n)
        return tp_error_set(err, TP_ERR_INVALID,
                            "vllm: the device set has no GPU (cudaN:SIZE or a catalog GPU)");
    uint64_t tp_ask = o->tensor_parallel, pp_ask = o->pipeline_parallel;
    if (tp_ask && (!vl_tp_valid(c, tp_ask) || tp_ask > n))
        return tp_error_set(err, TP_ERR_INVALID,
                            "vllm: tensor parallel size %llu must divide the %llu attention "
                            "heads and be at most the %llu GPUs",
                            (unsigned long long)tp_ask, (unsigned long long)c->n_head,
                            (unsigned long long)n);
    if (pp_ask && (pp_ask > c->n_layer || pp_ask * (tp_ask ? tp_ask : 1) > n))
        return tp_error_set(err, TP_ERR_INVALID,
                            "vllm: pipeline parallel size %llu exceeds the layers or GPUs",
                            (unsigned long long)pp_ask);
    vllm_shapes one;
    vl_make_shapes(c, 1, &one);
    double wbytes = o->weight_dtype_bytes ? (double)o->weight_dtype_bytes
                                          : (double)c->weight_bytes / vl_model_params(c, &one);
    if (!(wbytes > 0)) wbytes = 2;
    /* a checkpoint of one float width whose norms a converter stored in f32: that width */
    for (double w = 1; w <= 4; w *= 2)
        if (fabs(wbytes / w - 1) < 1e-3) wbytes = w;
    uint64_t cap = c->n_ctx_train ? c->n_ctx_train : 4096;
    if (o->max_model_len > cap) cap = o->max_model_len;
    uint64_t target = o->max_model_len ? o->max_model_len : cap;
    tp_vllm_plan best;
    memset(&best, 0, sizeof best);
    bool have_best = false;
    /* every GPU first (the larger tp first), then fewer GPUs when no layout of them suits */
    for (uint64_t total = n; total >= 1; total--) {
        for (uint64_t tp = total; tp >= 1; tp--) {
            if (total % tp || (tp & (tp - 1)) || !vl_tp_valid(c, tp)) continue;
            uint64_t pp = total / tp;
            if (pp > c->n_layer || (tp_ask && tp != tp_ask) || (pp_ask && pp != pp_ask)) continue;
            tp_vllm_plan p;
            memset(&p, 0, sizeof p);
            vl_eval_layout(c, o, wbytes, tp, pp, gpu, target, cap, &p);
            if (p.fits) {
                *out = p;
                goto done;
            }
            if (!have_best || p.max_model_len_fit > best.max_model_len_fit) {
                best = p;
                have_best = true;
            }
        }
    }
    if (!have_best)
        return tp_error_set(err, TP_ERR_INVALID,
                            "vllm: no tensor/pipeline layout of %llu GPUs suits %llu heads",
                            (unsigned long long)n, (unsigned long long)c->n_head);
    /* nothing serves the target: the longest servable length when none was asked */
    if (!o->max_model_len && best.max_model_len_fit > 0)
        vl_eval_layout(c, o, wbytes, best.tensor_parallel, best.pipeline_parallel, gpu,
                       best.max_model_len_fit, cap, &best);
    *out = best;
done:
    out->n_gpus = n;
    out->gpu_bytes = gpu;
    return TP_OK;
}
