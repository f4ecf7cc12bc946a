/* onnxruntime's default execution order, emulated (see ort_arena.h). Modelled from
 * onnxruntime 1.30's source, not copied: GraphViewer (core/graph/graph_viewer.cc) orders the
 * nodes of the optimized graph by Graph::ReverseDFSFrom (core/graph/graph.cc) started from the
 * leaf nodes (nodes no other node reads) in index order, with NodeCompare (ascending index):
 * a node's inputs are pushed on the work stack in ascending index, so the input with the
 * highest index is explored first, and a node is placed when all its inputs are (post-order).
 * Node indices are creation order: the model's nodes first, then the nodes the optimizer
 * creates (fused and NCHWc nodes), which the caller gives as keys. */
#include <string.h>

#include "core/mem.h"
#include "estimate/ort_arena.h"

typedef struct dfs_entry {
    tp_node_id id;
    bool leave;
    bool reorder; /* the ReorderOutput node of id's blocked tensor */
} dfs_entry;

/* Whether node nd reads its input i (a blocked tensor) through a ReorderOutput copy: any reader
 * but a blocked one (a Conv reads its blocked input 0 unless it reads NCHW). */
static bool order_reads_plain(const tp_graph *g, const tp_ort_xform *x, tp_node_id m,
                              const tp_node *nd, uint32_t i, tp_node_id in) {
    if (!x || (uint32_t)in >= x->n || !x->chain[in] || x->absorbed[in] || x->same_as[m] >= 0)
        return false; /* a removed Cast (same_as) runs nothing: it needs no copy */
    bool nchw = nd->op.kind == TP_OP_CONV && tp_ort_conv_reads_nchw(g, nd, x->block);
    return !(x->chain[m] && (nd->op.kind != TP_OP_CONV || i == 0) && !nchw);
}

static bool order_is_op(const tp_node *n) {
    return n && !tp_op_is_boundary(n->op.kind);
}

/* The node that runs for id: a secondary output's producer. */
static tp_node_id order_runner(const tp_graph *g, tp_node_id id) {
    for (int hop = 0; hop < 8; hop++) {
        const tp_node *n = tp_graph_node(g, id);
        if (!n || n->op.kind != TP_OP_OUTPUT_OF || n->n_inputs < 1 || n->inputs[0] < 0) return id;
        id = n->inputs[0];
    }
    return id;
}

static bool dfs_push(const tp_allocator *a, dfs_entry **st, size_t *n, size_t *cap, dfs_entry e) {
    if (!tp_mem_grow(a, (void **)st, sizeof **st, cap, *n + 1)) return false;
    (*st)[(*n)++] = e;
    return true;
}

tp_status tp_ort_exec_order_reorders(const tp_graph *g, const uint64_t *key, const tp_ort_xform *x,
                                     int64_t *pos, int64_t *ro_pos, int64_t *n_steps,
                                     tp_error *err) {
    const tp_allocator *a = tp_graph_allocator(g);
    uint32_t n = tp_graph_node_count(g);
    size_t cap = (size_t)n + 1;
    uint8_t *read = tp_mem_calloc(a, cap, 1), *visited = tp_mem_calloc(a, cap, 1);
    uint8_t *ro_visited = tp_mem_calloc(a, cap, 1);
    tp_node_id *leaves = tp_mem_calloc(a, cap, sizeof *leaves), *ins = NULL;
    size_t n_ins_cap = 0;
    dfs_entry *st = NULL;
    size_t n_st = 0, st_cap = 0, n_leaves = 0;
    int64_t step = 0;
    tp_status s = TP_OK;
    if (!read || !visited || !leaves || !ro_visited) goto nomem;
    for (uint32_t id = 0; id < n; id++) {
        pos[id] = -1;
        if (ro_pos) ro_pos[id] = -1;
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        if (!order_is_op(nd) || nd->op.kind == TP_OP_OUTPUT_OF) continue;
        for (uint32_t i = 0; i < nd->n_inputs; i++) {
            tp_node_id in = nd->inputs[i];
            if (in < 0 || (uint32_t)in >= n) continue;
            read[order_runner(g, in)] = 1;
        }
    }
    /* leaves in index (key) order: the last one pushed is explored first */
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        if (order_is_op(nd) && nd->op.kind != TP_OP_OUTPUT_OF && !read[id])
            leaves[n_leaves++] = (tp_node_id)id;
    }
    for (size_t i = 1; i < n_leaves; i++)
        for (size_t j = i; j > 0 && key[leaves[j - 1]] > key[leaves[j]]; j--) {
            tp_node_id t = leaves[j];
            leaves[j] = leaves[j - 1];
            leaves[j - 1] = t;
        }
    for (size_t i = 0; i < n_leaves; i++)
        if (!dfs_push(a, &st, &n_st, &st_cap, (dfs_entry){leaves[i], false, false})) goto nomem;
    while (n_st > 0) {
        dfs_entry e = st[--n_st];
        if (e.leave && e.reorder) { /* placed after its input: right after the last node */
            if (ro_pos) ro_pos[e.id] = step - 1;
            continue;
        }
        if (e.leave) {
            pos[e.id] = step++;
            continue;
        }
        if (e.reorder) {
            if (ro_visited[e.id]) continue;
            ro_visited[e.id] = 1;
            if (!dfs_push(a, &st, &n_st, &st_cap, (dfs_entry){e.id, true, true})) goto nomem;
            if (!visited[e.id] &&
                !dfs_push(a, &st, &n_st, &st_cap, (dfs_entry){e.id, false, false}))
                goto nomem;
            continue;
        }
        if (visited[e.id]) continue;
        visited[e.id] = 1;
        if (!dfs_push(a, &st, &n_st, &st_cap, (dfs_entry){e.id, true, false})) goto nomem;
        const tp_node *nd = tp_graph_node(g, e.id);
        if (!tp_mem_grow(a, (void **)&ins, sizeof *ins, &n_ins_cap, (size_t)nd->n_inputs + 1))
            goto nomem;
        size_t k = 0, k_ro = 0;
        for (uint32_t i = 0; i < nd->n_inputs; i++) {
            tp_node_id in = nd->inputs[i];
            if (in < 0 || (uint32_t)in >= n) continue;
            in = order_runner(g, in);
            if (!order_is_op(tp_graph_node(g, in))) continue;
            if (order_reads_plain(g, x, e.id, nd, i, in)) {
                ins[nd->n_inputs - k_ro++] = in; /* from the end: reorder nodes */
                continue;
            }
            ins[k++] = in;
        }
        for (size_t i = 1; i < k; i++) /* ascending key: the highest is explored first */
            for (size_t j = i; j > 0 && key[ins[j - 1]] > key[ins[j]]; j--) {
                tp_node_id t = ins[j];
                ins[j] = ins[j - 1];
                ins[j - 1] = t;
            }
        for (size_t i = 0; i < k; i++)
            if (!visited[ins[i]] &&
                !dfs_push(a, &st, &n_st, &st_cap, (dfs_entry){ins[i], false, false}))
                goto nomem;
        /* the reorder nodes have the highest indices (created last): explored first */
        for (size_t i = 0; i < k_ro; i++) {
            tp_node_id in = ins[nd->n_inputs - i];
            if (!ro_visited[in] && !dfs_push(a, &st, &n_st, &st_cap, (dfs_entry){in, false, true}))
                goto nomem;
        }
    }
    /* secondary outputs run with their producer */
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        if (nd && nd->op.kind == TP_OP_OUTPUT_OF) pos[id] = pos[order_runner(g, (tp_node_id)id)];
    }
    *n_steps = step;
    goto done;
nomem:
    s = tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (execution order, %u nodes)", n);
done:
    tp_mem_free(a, read, cap);
    tp_mem_free(a, visited, cap);
    tp_mem_free(a, ro_visited, cap);
    tp_mem_free(a, leaves, cap * sizeof *leaves);
    tp_mem_free(a, ins, n_ins_cap * sizeof *ins);
    tp_mem_free(a, st, st_cap * sizeof *st);
    return s;
}

tp_status tp_ort_exec_order(const tp_graph *g, const uint64_t *key, int64_t *pos, int64_t *n_steps,
                            tp_error *err) {
    return tp_ort_exec_order_reorders(g, key, NULL, pos, NULL, n_steps, err);
}

/* The index a created node gets: pass base + its group's position in the pass's input order. */
static uint64_t order_made_key(const tp_ort_xform *x, uint32_t id, uint8_t bit, uint64_t base,
                               const int64_t *pos, uint64_t keep) {
    int32_t o = x->origin[id];
    if (o < 0 || (uint32_t)o >= x->n || !(x->stage[o] & bit) || pos[o] < 0) return keep;
    return base + (uint64_t)pos[o];
}

tp_status tp_ort_exec_keys(const tp_graph *g, const tp_ort_xform *x, uint64_t *key, tp_error *err) {
    const tp_allocator *a = tp_graph_allocator(g);
    size_t cap = (size_t)x->n + 1;
    int64_t *pos = tp_mem_alloc(a, cap * sizeof *pos), steps = 0;
    if (!pos) return tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (%u nodes)", x->n);
    uint64_t n = x->n;
    for (uint32_t id = 0; id < x->n; id++)
        key[id] = id; /* the model's graph: creation order */
    tp_status s = tp_ort_exec_order(g, key, pos, &steps, err);
    /* the extended level's fusions walk the model's graph in its execution order */
    for (uint32_t id = 0; id < x->n && s == TP_OK; id++)
        key[id] = order_made_key(x, id, TP_ORT_MADE_FUSED, n, pos, id);
    if (s == TP_OK) s = tp_ort_exec_order(g, key, pos, &steps, err);
    /* the NCHWc transformer walks the fused graph in its execution order */
    for (uint32_t id = 0; id < x->n && s == TP_OK; id++)
        key[id] = order_made_key(x, id, TP_ORT_MADE_NCHWC, 2 * n, pos, key[id]);
    tp_mem_free(a, pos, cap * sizeof *pos);
    return s;
}
