/* llama.cpp's placement of an LLM over a device set: which device holds each
 * layer, weight and KV tensor, and the per-device totals
 * (tensorplan/llm_devices.h states the rules and where they come from). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/ggml_sched_emul.h"
#include "estimate/llm_graph.h"
#include "estimate/llm_kv.h"
#include "tensorplan/llm_devices.h"

#define HOST_ALIGN 32 /* ggml CPU buffers: TENSOR_ALIGNMENT */

void tp_llm_placement_options_default(tp_llm_placement_options *po) {
    memset(po, 0, sizeof *po);
    po->n_gpu_layers = -1;
}

/* blk.N.… → N; -1 otherwise. */
static long block_of(const char *name) {
    if (strncmp(name, "blk.", 4) != 0) return -1;
    long v = 0;
    const char *p = name + 4;
    if (*p < '0' || *p > '9') return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (*p - '0');
        if (v > 1000000) return -1;
    }
    return *p == '.' ? v : -1;
}

typedef struct layer_map {
    long gpu_start;                       /* first offloaded layer (llama.cpp's i_gpu_start) */
    long act;                             /* offloaded layers incl. the output (act_gpu_layers) */
    size_t n_dev;                         /* non-CPU devices */
    size_t dev_index[TP_LLM_MAX_DEVICES]; /* row → index in the device set */
    float cum[TP_LLM_MAX_DEVICES];        /* cumulative split fractions (float, as llama.cpp) */
} layer_map;

/* Row of layer il (n_layer = the output layer): 0..n_dev-1, or n_dev (host). */
static size_t row_of(const layer_map *m, long il) {
    if (il < m->gpu_start || il - m->gpu_start >= m->act) return m->n_dev;
    float x = (float)(il - m->gpu_start) / (float)m->act;
    for (size_t d = 0; d < m->n_dev; d++)
        if (m->cum[d] > x) return d; /* std::upper_bound: first split point above x */
    return m->n_dev - 1;
}

static tp_status build_map(const tp_llm_config *c, const tp_llm_device_set *ds,
                           const tp_llm_placement_options *po, layer_map *m, tp_error *err) {
    memset(m, 0, sizeof *m);
    float split[TP_LLM_MAX_DEVICES];
    bool any_ts = false;
    for (size_t i = 0; i < ds->n; i++) {
        if (ds->dev[i].kind == TP_LLM_DEV_CPU) continue;
        m->dev_index[m->n_dev++] = i;
    }
    for (size_t i = 0; i < TP_LLM_MAX_DEVICES; i++) {
        if (po->tensor_split[i] < 0)
            return tp_error_set(err, TP_ERR_INVALID, "placement: tensor split %zu is negative", i);
        if (po->tensor_split[i] > 0 && i >= m->n_dev)
            return tp_error_set(err, TP_ERR_INVALID,
                                "placement: tensor split names device %zu, the set has %zu "
                                "non-CPU devices",
                                i, m->n_dev);
        if (po->tensor_split[i] > 0) any_ts = true;
    }
    float sum = 0;
    for (size_t d = 0; d < m->n_dev; d++) {
        const tp_llm_device *dv = &ds->dev[m->dev_index[d]];
        uint64_t cap =
            dv->size_bytes > dv->reserved_bytes ? dv->size_bytes - dv->reserved_bytes : 0;
        split[d] = any_ts ? (float)po->tensor_split[d] : (float)cap;
        sum += split[d];
        m->cum[d] = sum;
    }
    for (size_t d = 0; d < m->n_dev; d++)
        m->cum[d] = sum > 0 ? m->cum[d] / sum : (float)(d + 1) / (float)m->n_dev;
    long n_layer = (long)c->n_layer;
    long ngl = po->n_gpu_layers < 0 || po->n_gpu_layers > n_layer + 1 ? n_layer + 1
                                                                      : (long)po->n_gpu_layers;
    m->gpu_start = n_layer + 1 - ngl;
    m->act = m->n_dev ? ngl : 0;
    return TP_OK;
}

static bool add_to(uint64_t *acc, uint64_t bytes, uint64_t align) {
    uint64_t p;
    return tp_align_up_u64(bytes, align ? align : HOST_ALIGN, &p) && tp_add_u64(*acc, p, acc);
}

static uint64_t row_align(const tp_llm_device_set *ds, const layer_map *m, size_t row) {
    return row < m->n_dev ? ds->dev[m->dev_index[row]].alignment : HOST_ALIGN;
}

/* Weights: each registry entry to its row. */
static tp_status place_weights(const tp_llm_config *c, const tp_registry *w,
                               const tp_llm_device_set *ds, const tp_llm_placement_options *po,
                               const layer_map *m, tp_llm_placement *out, tp_error *err) {
    size_t host = m->n_dev, out_row = row_of(m, (long)c->n_layer);
    bool has_output = tp_registry_find(w, "output.weight") != NULL;
    for (uint32_t i = 0;; i++) {
        const tp_weight_entry *e = tp_registry_entry(w, i);
        if (!e) break;
        long il = block_of(e->name);
        size_t row;
        if (il >= 0) {
            row = row_of(m, il);
            if (strstr(e->name, "_exps") && (po->experts_on_cpu || (uint64_t)il < po->n_cpu_moe))
                row = host;
            if (strstr(e->name, "ffn_gate_exps")) out->use[row].expert_layers++;
        } else if (strncmp(e->name, "output", 6) == 0 || strcmp(e->name, c->output_norm) == 0) {
            row = out_row;
        } else {
            row = host; /* the input layer (token embedding) and the rest */
        }
        if (!add_to(&out->use[row].model_bytes, e->bytes, row_align(ds, m, row)))
            return tp_error_set(err, TP_ERR_OVERFLOW, "placement: model bytes overflow");
        /* tied output: llama.cpp duplicates token_embd into the output layer; on the host
         * the duplicate is the mapped tensor itself unless the CPU backend repacks it */
        bool dup_counts = out_row != host || ((c->tied_repacked >> out->single.repack) & 1u);
        if (!has_output && dup_counts && strcmp(e->name, "token_embd.weight") == 0 &&
            !add_to(&out->use[out_row].model_bytes, e->bytes, row_align(ds, m, out_row)))
            return tp_error_set(err, TP_ERR_OVERFLOW, "placement: model bytes overflow");
    }
    return TP_OK;
}

static tp_status place_kv(const tp_llm_config *c, const tp_llm_options *o,
                          const tp_llm_device_set *ds, const tp_llm_placement_options *po,
                          const layer_map *m, tp_llm_placement *out, tp_error *err) {
    uint64_t n_layer = c->n_layer < TP_LLM_MAX_LAYERS ? c->n_layer : TP_LLM_MAX_LAYERS;
    uint64_t v_max = tp__llm_v_max(c);
    for (uint64_t il = 0; il < n_layer; il++) {
        size_t row = row_of(m, (long)il);
        out->use[row].layers++;
        size_t kv_row = po->no_kv_offload ? m->n_dev : row;
        uint64_t k, v;
        tp_status s =
            tp__llm_layer_kv(c, o, &out->single, il, v_max, row_align(ds, m, kv_row), &k, &v, err);
        if (s != TP_OK) return s;
        uint64_t rs = tp__llm_layer_rs(c, o, il, row_align(ds, m, kv_row));
        if (!tp_add_u64(out->use[kv_row].kv_bytes, k, &out->use[kv_row].kv_bytes) ||
            !tp_add_u64(out->use[kv_row].kv_bytes, v, &out->use[kv_row].kv_bytes) ||
            !tp_add_u64(out->use[kv_row].kv_bytes, rs, &out->use[kv_row].kv_bytes))
            return tp_error_set(err, TP_ERR_OVERFLOW, "placement: KV bytes overflow");
    }
    return TP_OK;
}

/* Per-device compute buffers from the planned graph split as ggml's scheduler
 * splits it (ggml_sched_emul.h), where every device is an RPC server (whose
 * backends support every op and never offload host ops) and llm_graph.c
 * builds the architecture; *done false otherwise (the bounds stay). */
static tp_status planned_compute(const tp_llm_config *c, const tp_llm_options *o,
                                 const tp_llm_device_set *ds, const tp_llm_placement_options *po,
                                 const layer_map *m, tp_llm_placement *out, bool *done,
                                 tp_error *err) {
    *done = false;
    if (!out->single.compute_planned || m->n_dev + 1 > TP_GA_MAX_BUFFERS) return TP_OK;
    for (size_t d = 0; d < m->n_dev; d++)
        if (ds->dev[m->dev_index[d]].kind != TP_LLM_DEV_RPC) return TP_OK;
    uint8_t *lb = malloc(3 * (TP_LLM_MAX_LAYERS + 2));
    if (!lb) return tp_error_set(err, TP_ERR_NOMEM, "placement: out of memory");
    uint8_t *eb = lb + TP_LLM_MAX_LAYERS + 2, *cb = eb + TP_LLM_MAX_LAYERS + 2;
    long n_layer = (long)c->n_layer;
    uint8_t host = (uint8_t)m->n_dev;
    lb[0] = host; /* the token embedding */
    for (long il = 0; il <= n_layer; il++)
        lb[il + 1] = (uint8_t)row_of(m, il);
    for (long il = 0; il < n_layer; il++) {
        bool exp_host = po->experts_on_cpu || (uint64_t)il < po->n_cpu_moe;
        eb[il] = exp_host ? host : (uint8_t)row_of(m, il);
        cb[il] = po->no_kv_offload ? host : (uint8_t)row_of(m, il);
    }
    tp_gs_backends b;
    memset(&b, 0, sizeof b);
    b.n = (uint32_t)m->n_dev + 1;
    for (uint32_t k = 0; k < b.n; k++)
        b.align[k] = row_align(ds, m, k);
    b.n_copies = out->pipeline_parallel ? 4 : 1;
    b.force_norm = false; /* measured: llama.cpp's norm pins do not show in its reserve */
    b.n_layer = (int32_t)n_layer;
    b.layer_be = lb;
    b.expert_be = eb;
    b.cache_be = cb;
    tp_gg_graph g;
    tp__gg_init(&g);
    uint64_t sizes[TP_GA_MAX_BUFFERS] = {0};
    tp_status s = tp__llm_graph_build(c, o, &out->single, &g, err);
    if (s == TP_OK) s = tp__gs_reserve(&g, &b, sizes, err);
    tp__gg_free(&g);
    free(lb);
    if (s != TP_OK) return s;
    for (size_t r = 0; r < out->n; r++)
        out->use[r].compute_bytes = sizes[r];
    *done = true;
    return TP_OK;
}

tp_status tp_llm_place(const tp_llm_config *c, const tp_registry *weights, const tp_llm_options *o,
                       const tp_llm_device_set *ds, const tp_llm_placement_options *po,
                       tp_llm_placement *out, tp_error *err) {
    if (!c || !weights || !o || !ds || !po || !out)
        return tp_error_set(err, TP_ERR_INVALID, "placement: NULL argument");
    memset(out, 0, sizeof *out);
    tp_status s = tp_llm_estimate_memory(c, o, &out->single, err);
    if (s != TP_OK) return s;
    layer_map m;
    s = build_map(c, ds, po, &m, err);
    if (s != TP_OK) return s;
    out->n = m.n_dev + 1;
    const tp_llm_device *host_dev = NULL;
    for (size_t i = 0; i < ds->n; i++)
        if (ds->dev[i].kind == TP_LLM_DEV_CPU) host_dev = &ds->dev[i];
    for (size_t r = 0; r < out->n; r++) {
        tp_llm_device_use *u = &out->use[r];
        const tp_llm_device *d = r < m.n_dev ? &ds->dev[m.dev_index[r]] : host_dev;
        snprintf(u->name, sizeof u->name, "%s", d ? d->name : "cpu");
        u->kind = d ? d->kind : TP_LLM_DEV_CPU;
        u->host = r == m.n_dev;
        if (d && d->size_bytes > 0) {
            /* a reserve as large as the device leaves it nothing (not "unknown") */
            u->capacity_known = true;
            u->capacity_bytes =
                d->size_bytes > d->reserved_bytes ? d->size_bytes - d->reserved_bytes : 0;
        }
    }
    s = place_weights(c, weights, ds, po, &m, out, err);
    if (s == TP_OK) s = place_kv(c, o, ds, po, &m, out, err);
    if (s != TP_OK) return s;
    size_t out_row = row_of(&m, (long)c->n_layer);
    out->use[out_row].output = true;
    out->n_gpu_layers = (uint64_t)m.act;
    out->fits = true;
    /* llama.cpp's pipeline parallelism (llama_context: several devices, every layer and the
     * output offloaded, KV offloaded, no tensor override): the scheduler keeps up to 4 copies
     * of each split's inputs, which grows every compute buffer (bounds below, measured) */
    out->pipeline_parallel = m.n_dev > 1 && m.act > (long)c->n_layer && !po->no_kv_offload &&
                             !po->experts_on_cpu && po->n_cpu_moe == 0;
    /* the bounds scale the single-device figure: the formula, or the planned graph where it
     * is larger (the formula is below llama.cpp on some families, e.g. deepseek2's MLA) */
    uint64_t t = out->single.n_ubatch, f = out->single.compute_formula_bytes;
    if (out->single.compute_planned && out->single.compute_bytes > f) f = out->single.compute_bytes;
    uint64_t out_phase = tp_sat_mul_u64(tp_sat_mul_u64(t, 4), c->n_vocab + c->n_embd);
    /* graph inputs (token ids, positions, KV row ids, KQ masks), as in the formula */
    uint64_t caches = out->single.kv_cells_swa ? 2 : 1, mask_el = o->flash_attn ? 2 : 4;
    uint64_t inputs = tp_sat_add_u64(
        tp_sat_mul_u64(t, 12 + 16 * caches),
        tp_sat_mul_u64(tp_sat_mul_u64(t, mask_el),
                       tp_sat_add_u64(out->single.kv_cells, out->single.kv_cells_swa)));
    /* hybrids: the recurrent state's row ids, one i32 per sequence (32-byte aligned), are an
     * input of every split (copied 4 times with pipeline parallelism) */
    uint64_t rec_in = c->recurrent_layers ? ((o->n_seq ? o->n_seq : 1) * 4 + 31) / 32 * 32 : 0;
    if (out->pipeline_parallel) rec_in *= 4;
    inputs = tp_sat_add_u64(inputs, rec_in);
    for (size_t r = 0; r < out->n; r++) {
        tp_llm_device_use *u = &out->use[r];
        if (u->host) {
            u->output_bytes = out->single.output_bytes;
            /* the host always runs the token embedding lookup. Without a layer here it holds
             * the graph inputs (4 copies with pipeline parallelism) and t x 2048 bytes on the
             * test models (measured; bounded here by t x (2 n_embd + n_head dk) floats) */
            uint64_t rows = tp_sat_add_u64(tp_sat_mul_u64(c->n_embd, 2),
                                           tp_sat_mul_u64(c->n_head, c->head_dim_k));
            uint64_t pp = tp_sat_add_u64(tp_sat_mul_u64(inputs, out->pipeline_parallel ? 4 : 1),
                                         tp_sat_mul_u64(tp_sat_mul_u64(t, 4), rows));
            u->compute_bytes = u->layers || u->expert_layers ? f : pp;
        } else if (u->layers) {
            /* measured 2.3-2.5x the formula with pipeline parallelism, up to 1.18x with the KV
             * cache on the host (-nkvo): bounds 3f and 1.25f */
            u->compute_bytes = out->pipeline_parallel ? tp_sat_mul_u64(f, 3)
                               : po->no_kv_offload    ? tp_sat_mul_u64(f, 5) / 4
                                                      : f;
            u->compute_bytes = tp_sat_add_u64(u->compute_bytes, rec_in);
        } else if (u->output) {
            /* only the output layer: its logits matmul, t x (n_vocab + n_embd) floats (measured
             * exact on a dense model), 1.5x as a bound (measured up to 1.44x: pipeline
             * parallelism, an MoE model whose previous layer is on the host) */
            u->compute_bytes = tp_sat_mul_u64(out_phase, 3) / 2;
        }
    }
    bool planned = false;
    tp_status ps = planned_compute(c, o, ds, po, &m, out, &planned, err);
    if (ps != TP_OK) return ps;
    out->compute_planned = planned;
    for (size_t r = 0; r < out->n; r++) {
        tp_llm_device_use *u = &out->use[r];
        u->total_bytes = tp_sat_add_u64(tp_sat_add_u64(u->model_bytes, u->kv_bytes),
                                        tp_sat_add_u64(u->compute_bytes, u->output_bytes));
        u->fits = !u->capacity_known || u->total_bytes <= u->capacity_bytes;
        u->free_bytes = u->fits && u->capacity_known ? u->capacity_bytes - u->total_bytes : 0;
        if (!u->fits) out->fits = false;
    }
    return TP_OK;
}

/* Place at context ctx (and po's layers); *fits when every row fits. */
static tp_status place_at(const tp_llm_config *c, const tp_registry *w, const tp_llm_options *o,
                          const tp_llm_device_set *ds, const tp_llm_placement_options *po,
                          uint64_t ctx, tp_llm_placement *out, tp_error *err) {
    tp_llm_options oc = *o;
    oc.n_ctx = ctx;
    return tp_llm_place(c, w, &oc, ds, po, out, err);
}

/* The largest context, a multiple of 256 (llama.cpp pads to it), in [lo, hi]
 * that fits (0: none), by bisection (the totals grow with the context). */
static tp_status largest_ctx(const tp_llm_config *c, const tp_registry *w, const tp_llm_options *o,
                             const tp_llm_device_set *ds, const tp_llm_placement_options *po,
                             uint64_t lo, uint64_t hi, uint64_t *best, tp_llm_placement *tmp,
                             tp_error *err) {
    *best = 0;
    lo = (lo + 255) / 256;
    hi /= 256;
    while (lo <= hi && hi > 0) {
        uint64_t mid = lo + (hi - lo) / 2;
        tp_status s = place_at(c, w, o, ds, po, mid * 256, tmp, err);
        if (s != TP_OK) return s;
        if (tmp->fits) {
            *best = mid * 256;
            lo = mid + 1;
        } else {
            if (mid == 0) break;
            hi = mid - 1;
        }
    }
    return TP_OK;
}

tp_status tp_llm_place_fit(const tp_llm_config *c, const tp_registry *weights,
                           const tp_llm_options *o, const tp_llm_device_set *ds,
                           const tp_llm_placement_options *po, uint64_t min_ctx, tp_llm_fit *out,
                           tp_error *err) {
    if (!c || !weights || !o || !ds || !po || !out)
        return tp_error_set(err, TP_ERR_INVALID, "placement fit: NULL argument");
    memset(out, 0, sizeof *out);
    uint64_t hi = o->n_ctx ? o->n_ctx : (c->n_ctx_train ? c->n_ctx_train : 4096);
    uint64_t lo = min_ctx ? min_ctx : 256;
    if (hi < 256) hi = 256;
    if (lo > hi) lo = hi;
    static const tp_llm_placement zero;
    tp_llm_placement *tmp = &out->placement;
    tp_llm_placement_options p = *po;
    uint64_t best = 0;
    /* 1. every layer where po puts it: the largest context */
    tp_status s = largest_ctx(c, weights, o, ds, &p, lo, hi, &best, tmp, err);
    /* 2. MoE: experts of the first N layers on the host (--n-cpu-moe), fewest first */
    for (uint64_t n = p.n_cpu_moe + 1; s == TP_OK && !best && c->moe_layers && n <= c->n_layer;
         n++) {
        p.n_cpu_moe = n;
        s = largest_ctx(c, weights, o, ds, &p, lo, hi, &best, tmp, err);
    }
    /* 3. fewer offloaded layers, most first */
    if (s == TP_OK && !best) {
        long top = po->n_gpu_layers < 0 ? (long)c->n_layer + 1 : (long)po->n_gpu_layers;
        for (long ngl = top - 1; s == TP_OK && !best && ngl >= 0; ngl--) {
            p.n_gpu_layers = ngl;
            s = largest_ctx(c, weights, o, ds, &p, lo, hi, &best, tmp, err);
        }
    }
    if (s != TP_OK) return s;
    out->options = p;
    out->n_ctx = best;
    out->fits = best != 0;
    *tmp = zero;
    return place_at(c, weights, o, ds, &p, best ? best : lo, tmp, err);
}
