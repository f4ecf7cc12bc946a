/* A graph's nodes in dependency order: onnx_node_order.h. */
#include "import/onnx_node_order.h"

#include <string.h>

#include "core/idmap.h"
#include "core/mem.h"

typedef struct order_ctx {
    const tp_allocator *a;
    const tp_onnx_node *nodes;
    uint32_t n;
    tp_idmap producers; /* output name -> index of the first node writing it */
    /* edges: succ[first[p] .. first[p + 1]) are the nodes reading an output of p */
    uint32_t *first, *succ, *fill, *indeg;
    uint64_t n_edges;
    bool sorted; /* no node reads an output of a later node */
} order_ctx;

static bool output_eq(const void *ctx, int32_t id, const void *key) {
    const order_ctx *o = ctx;
    const tp_onnx_node *nd = &o->nodes[id];
    for (uint32_t k = 0; k < nd->n_outputs; k++)
        if (strcmp(nd->outputs[k], (const char *)key) == 0) return true;
    return false;
}

/* A name's hash, 8 bytes a step (every node's inputs and outputs are hashed on every load: this
 * index is private to the ordering, so it need not be tp_hash_str's). */
static uint64_t name_hash(const char *s) {
    size_t n = strlen(s);
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
    for (; n >= 8; n -= 8, s += 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
}

static int32_t producer(const order_ctx *o, const char *name) {
    if (!name[0]) return -1;
    return tp_idmap_find(&o->producers, name_hash(name), output_eq, o, name);
}

/* One name node i reads. Pass CHECK only looks for a producer after i (o->sorted false), COUNT
 * counts the edge, STORE stores it. */
enum { CHECK, COUNT, STORE };
static void edge(order_ctx *o, int pass, uint32_t i, const char *name) {
    if (pass == CHECK && !o->sorted) return; /* decided: the rest is not looked at */
    int32_t p = producer(o, name);
    if (p < 0 || (uint32_t)p == i) return;
    if (pass == CHECK) {
        if ((uint32_t)p > i) o->sorted = false;
    } else if (pass == COUNT) {
        o->n_edges++;
        o->first[p + 1]++;
        o->indeg[i]++;
    } else {
        o->succ[o->fill[p]++] = i;
    }
}

/* Every name a subgraph reads (its nodes' inputs, the bodies inside them, its outputs): an
 * outer value read there must be computed before the node holding the subgraph. */
static void body_edges(order_ctx *o, int pass, uint32_t i, const tp_onnx_graph *g);

static void attr_edges(order_ctx *o, int pass, uint32_t i, const tp_onnx_node *nd) {
    for (uint32_t k = 0; k < nd->n_attrs; k++) {
        const tp_onnx_attr *at = &nd->attrs[k];
        if (at->g) body_edges(o, pass, i, at->g);
        for (uint32_t j = 0; j < at->n_graphs; j++)
            if (at->graphs[j]) body_edges(o, pass, i, at->graphs[j]);
    }
}

static void body_edges(order_ctx *o, int pass, uint32_t i, const tp_onnx_graph *g) {
    for (uint32_t b = 0; b < g->n_nodes; b++) {
        const tp_onnx_node *nd = &g->nodes[b];
        for (uint32_t k = 0; k < nd->n_inputs; k++)
            edge(o, pass, i, nd->inputs[k]);
        attr_edges(o, pass, i, nd);
    }
    for (uint32_t k = 0; k < g->n_outputs; k++)
        edge(o, pass, i, g->outputs[k].name);
}

static void all_edges(order_ctx *o, int pass) {
    for (uint32_t i = 0; i < o->n; i++) {
        const tp_onnx_node *nd = &o->nodes[i];
        for (uint32_t k = 0; k < nd->n_inputs; k++)
            edge(o, pass, i, nd->inputs[k]);
        attr_edges(o, pass, i, nd);
    }
}

/* a binary min-heap of node indices: the ready node first in the file goes first */
static void heap_push(uint32_t *h, uint32_t *len, uint32_t v) {
    uint32_t i = (*len)++;
    while (i > 0 && h[(i - 1) / 2] > v) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
}

static uint32_t heap_pop(uint32_t *h, uint32_t *len) {
    uint32_t top = h[0], v = h[--(*len)], i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= *len) break;
        if (c + 1 < *len && h[c + 1] < h[c]) c++;
        if (h[c] >= v) break;
        h[i] = h[c];
        i = c;
    }
    if (*len) h[i] = v;
    return top;
}

tp_status tp__onnx_order_nodes(const tp_allocator *a, tp_onnx_node *nodes, uint32_t n,
                               const char *graph_name, tp_error *err) {
    if (n < 2) return TP_OK;
    order_ctx o;
    memset(&o, 0, sizeof o);
    o.a = a;
    o.nodes = nodes;
    o.n = n;
    o.sorted = true;
    tp_status st = TP_OK;
    uint32_t *heap = NULL, *order = NULL;
    tp_onnx_node *tmp = NULL;
    size_t words = (size_t)n + 1;
    for (uint32_t i = 0; i < n && st == TP_OK; i++)
        for (uint32_t k = 0; k < nodes[i].n_outputs && st == TP_OK; k++) {
            const char *name = nodes[i].outputs[k];
            if (!name[0]) continue;
            uint64_t h = name_hash(name);
            if (tp_idmap_find(&o.producers, h, output_eq, &o, name) >= 0) continue; /* the first */
            if (!tp_idmap_reserve(&o.producers, a))
                st = tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory ordering the nodes");
            else
                tp_idmap_insert(&o.producers, h, (int32_t)i);
        }
    /* the usual case, a graph in order, stops at the first pass (early at a later producer) */
    if (st == TP_OK) all_edges(&o, CHECK);
    if (st == TP_OK && !o.sorted) {
        o.first = tp_mem_calloc(a, words, sizeof *o.first);
        o.indeg = tp_mem_calloc(a, words, sizeof *o.indeg);
        if (!o.first || !o.indeg) {
            st = tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory ordering the nodes");
            goto done;
        }
        all_edges(&o, COUNT);
        if (o.n_edges > UINT32_MAX) {
            st = tp_error_set(err, TP_ERR_UNSUPPORTED,
                              "onnx: graph '%s': more than 2^32 edges to order", graph_name);
            goto done;
        }
        for (uint32_t p = 0; p < n; p++)
            o.first[p + 1] += o.first[p];
        o.succ = tp_mem_alloc(a, (size_t)o.n_edges * sizeof *o.succ + 1);
        o.fill = tp_mem_alloc(a, words * sizeof *o.fill);
        heap = tp_mem_alloc(a, words * sizeof *heap);
        order = tp_mem_alloc(a, words * sizeof *order);
        tmp = tp_mem_alloc(a, (size_t)n * sizeof *tmp);
        if (!o.succ || !o.fill || !heap || !order || !tmp) {
            st = tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory ordering the nodes");
            goto done;
        }
        memcpy(o.fill, o.first, words * sizeof *o.fill);
        all_edges(&o, STORE);
        uint32_t len = 0, done_n = 0;
        for (uint32_t i = 0; i < n; i++)
            if (!o.indeg[i]) heap_push(heap, &len, i);
        while (len) {
            uint32_t p = heap_pop(heap, &len);
            order[done_n++] = p;
            for (uint32_t e = o.first[p]; e < o.first[p + 1]; e++)
                if (--o.indeg[o.succ[e]] == 0) heap_push(heap, &len, o.succ[e]);
        }
        if (done_n < n) {
            uint32_t stuck = 0;
            while (stuck < n && !o.indeg[stuck])
                stuck++;
            const tp_onnx_node *nd = &nodes[stuck < n ? stuck : 0];
            st = tp_error_setx(err, TP_ERR_PARSE, nd->offset, TP_NO_NODE,
                               "onnx: graph '%s' has a cycle: node %u '%s' (%s) depends on its "
                               "own outputs",
                               graph_name, stuck, nd->name, nd->op_type);
            goto done;
        }
        for (uint32_t i = 0; i < n; i++)
            tmp[i] = nodes[order[i]];
        memcpy(nodes, tmp, (size_t)n * sizeof *nodes);
    }
done:
    tp_idmap_free(&o.producers, a);
    tp_mem_free(a, o.first, words * sizeof *o.first);
    tp_mem_free(a, o.indeg, words * sizeof *o.indeg);
    tp_mem_free(a, o.succ, (size_t)o.n_edges * sizeof *o.succ + 1);
    tp_mem_free(a, o.fill, words * sizeof *o.fill);
    tp_mem_free(a, heap, words * sizeof *heap);
    tp_mem_free(a, order, words * sizeof *order);
    tp_mem_free(a, tmp, (size_t)n * sizeof *tmp);
    return st;
}
