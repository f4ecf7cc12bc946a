/* ONNX model summary for `tensorplan inspect`: opsets, inputs/outputs, op
 * histogram over all (sub)graphs, initializer counts and bytes. Computed from
 * the decoded model only (no shape inference, no weight bytes touched). */
#include <stdlib.h>
#include <string.h>

#include "import/onnx_decode.h"

struct tp_onnx_info_cache {
    tp_onnx_info info;
};

void tp__onnx_info_free(tp_onnx_model *m) {
    m->info = NULL; /* lives in the arena */
}

typedef struct walk {
    tp_onnx_arena *arena;
    const char **ops; /* one entry per node, all graphs */
    uint64_t n_ops, cap_ops;
    uint32_t n_nodes, n_subgraphs;
} walk;

static uint64_t count_nodes(const tp_onnx_graph *g, uint32_t *n_graphs) {
    uint64_t n = g->n_nodes;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        for (uint32_t j = 0; j < g->nodes[i].n_attrs; j++) {
            const tp_onnx_attr *a = &g->nodes[i].attrs[j];
            if (a->g) {
                (*n_graphs)++;
                n += count_nodes(a->g, n_graphs);
            }
            for (uint32_t k = 0; k < a->n_graphs; k++) {
                (*n_graphs)++;
                n += count_nodes(a->graphs[k], n_graphs);
            }
        }
    return n;
}

static bool collect_ops(walk *w, const tp_onnx_graph *g) {
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const tp_onnx_node *n = &g->nodes[i];
        const char *name = n->op_type;
        if (n->domain[0]) {
            size_t ld = strlen(n->domain), lo = strlen(n->op_type);
            char *p = tp__onnx_arena_alloc(w->arena, (uint64_t)ld + lo + 2);
            if (!p) return false;
            memcpy(p, n->domain, ld);
            p[ld] = ':';
            memcpy(p + ld + 1, n->op_type, lo + 1);
            name = p;
        }
        w->ops[w->n_ops++] = name;
        for (uint32_t j = 0; j < n->n_attrs; j++) {
            const tp_onnx_attr *a = &n->attrs[j];
            if (a->g && !collect_ops(w, a->g)) return false;
            for (uint32_t k = 0; k < a->n_graphs; k++)
                if (!collect_ops(w, a->graphs[k])) return false;
        }
    }
    return true;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_count(const void *a, const void *b) {
    const tp_onnx_op_count *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return strcmp(x->op_type, y->op_type);
}

typedef struct ext_key {
    const char *loc;
    uint64_t offset, bytes;
} ext_key;

static int cmp_ext(const void *a, const void *b) {
    const ext_key *x = a, *y = b;
    int c = strcmp(x->loc, y->loc);
    if (c) return c;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? -1 : 1;
    return 0;
}

static tp_status add_param(tp_onnx_info *in, const tp_onnx_tensor *t, uint64_t elements,
                           tp_error *err) {
    in->n_params++;
    if (!tp_add_u64(in->param_elements, elements, &in->param_elements) ||
        !tp_add_u64(in->param_bytes, t->n_bytes, &in->param_bytes))
        return tp_error_set(err, TP_ERR_OVERFLOW, "onnx: parameter bytes overflow 64 bits");
    if (t->location == TP_ONNX_DATA_EXTERNAL) {
        in->n_external++;
        in->external_bytes += t->n_bytes; /* <= param_bytes, cannot overflow */
    }
    return TP_OK;
}

tp_status tp_onnx_model_info(tp_onnx_model *m, tp_onnx_info *out, tp_error *err) {
    if (!m || !out) return tp_error_set(err, TP_ERR_INVALID, "tp_onnx_model_info: NULL argument");
    if (m->info) {
        *out = m->info->info;
        return TP_OK;
    }
    const tp_onnx_graph *g = m->graph;
    struct tp_onnx_info_cache *cache = tp__onnx_arena_alloc(m->arena, sizeof *cache);
    if (!cache) return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory computing model info");
    tp_onnx_info *in = &cache->info;
    in->ir_version = m->ir_version;
    in->producer_name = m->producer_name;
    in->producer_version = m->producer_version;
    in->graph_name = g->name;
    in->opset = tp__onnx_opset(m, "");
    in->n_opsets = m->n_opsets;
    in->opsets = m->opsets;
    in->file_bytes = m->size;
    in->n_nodes = g->n_nodes;
    in->n_outputs = g->n_outputs;
    in->outputs = g->outputs;

    /* inputs that are not initializers */
    bool ok;
    const tp_onnx_value_info **ins = tp__onnx_arena_array(m->arena, g->n_inputs, sizeof *ins, &ok);
    if (!ok) return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory computing model info");
    /* initializer names sorted, so that telling inputs apart is O(n log n) even
     * for old exports that list every initializer as an input */
    const char **names = tp__onnx_arena_array(m->arena, g->n_initializers, sizeof *names, &ok);
    if (!ok) return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory computing model info");
    for (uint32_t i = 0; i < g->n_initializers; i++)
        names[i] = g->initializers[i].name;
    if (g->n_initializers) qsort(names, g->n_initializers, sizeof *names, cmp_str);
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        const char *key = g->inputs[i].name;
        if (!g->n_initializers || !bsearch(&key, names, g->n_initializers, sizeof *names, cmp_str))
            ins[in->n_inputs++] = &g->inputs[i];
    }
    in->inputs = ins;

    /* op histogram */
    uint32_t n_graphs = 0;
    uint64_t total = count_nodes(g, &n_graphs);
    in->n_nodes_total = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
    in->n_subgraphs = n_graphs;
    walk w = {m->arena, NULL, 0, total, 0, 0};
    w.ops = tp__onnx_arena_array(m->arena, total, sizeof *w.ops, &ok);
    if (!ok || !collect_ops(&w, g))
        return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory computing model info");
    if (w.n_ops) qsort(w.ops, (size_t)w.n_ops, sizeof *w.ops, cmp_str);
    uint64_t n_distinct = 0;
    for (uint64_t i = 0; i < w.n_ops; i++)
        if (i == 0 || strcmp(w.ops[i], w.ops[i - 1]) != 0) n_distinct++;
    tp_onnx_op_count *hist = tp__onnx_arena_array(m->arena, n_distinct, sizeof *hist, &ok);
    if (!ok) return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory computing model info");
    uint32_t k = 0;
    for (uint64_t i = 0; i < w.n_ops; i++) {
        if (i == 0 || strcmp(w.ops[i], w.ops[i - 1]) != 0) hist[k++].op_type = w.ops[i];
        hist[k - 1].count++;
    }
    if (k) qsort(hist, k, sizeof *hist, cmp_count);
    in->n_ops = k;
    in->ops = hist;

    /* parameters */
    ext_key *keys = tp__onnx_arena_array(
        m->arena, (uint64_t)g->n_initializers + g->n_sparse_initializers, sizeof *keys, &ok);
    if (!ok) return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory computing model info");
    uint64_t n_keys = 0, dup_bytes = 0;
    tp_status s;
    for (uint32_t i = 0; i < g->n_initializers; i++) {
        const tp_onnx_tensor *t = &g->initializers[i];
        if ((s = add_param(in, t, t->n_elements, err)) != TP_OK) return s;
        if (t->location == TP_ONNX_DATA_EXTERNAL)
            keys[n_keys++] = (ext_key){t->ext_location, t->ext_offset, t->n_bytes};
    }
    for (uint32_t i = 0; i < g->n_sparse_initializers; i++) {
        const tp_onnx_sparse_tensor *t = &g->sparse_initializers[i];
        if ((s = add_param(in, &t->values, t->values.n_elements, err)) != TP_OK) return s;
        if (t->values.location == TP_ONNX_DATA_EXTERNAL)
            keys[n_keys++] =
                (ext_key){t->values.ext_location, t->values.ext_offset, t->values.n_bytes};
    }
    if (n_keys) qsort(keys, (size_t)n_keys, sizeof *keys, cmp_ext);
    for (uint64_t i = 1; i < n_keys; i++)
        if (cmp_ext(&keys[i], &keys[i - 1]) == 0) dup_bytes += keys[i].bytes;
    in->unique_param_bytes = in->param_bytes - dup_bytes;
    m->info = cache;
    *out = *in;
    return TP_OK;
}
