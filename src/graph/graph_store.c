/* The graph's node store: lifetime, the name index, appending a node whose
 * shape and dtype are already decided, flags and outputs, and reading nodes,
 * sizes and views. Checking and inferring what is appended is the builder's
 * job (graph_build.c). */
#include "core/mem.h"
#include "graph/graph_internal.h"

#include <inttypes.h>
#include <string.h>

/* ---- lifetime ---- */

tp_status tp_graph_create(const tp_allocator *alloc, tp_graph **out, tp_error *err) {
    if (!out) return tp_error_set(err, TP_ERR_INVALID, "tp_graph_create: NULL output");
    *out = NULL;
    const tp_allocator *a = tp_mem_resolve(alloc);
    tp_graph *g = tp_mem_calloc(a, 1, sizeof *g);
    if (!g) return tp_error_set(err, TP_ERR_NOMEM, "out of memory creating a graph");
    g->alloc = a;
    *out = g;
    return TP_OK;
}

void tp_graph_destroy(tp_graph *g) {
    if (!g) return;
    const tp_allocator *a = g->alloc;
    tp_mem_free(a, g->nodes, g->cap_nodes * sizeof *g->nodes);
    tp_mem_free(a, g->outputs, g->cap_outputs * sizeof *g->outputs);
    tp_mem_free(a, g->syms, g->cap_syms * sizeof *g->syms);
    tp_mem_free(a, g->named, g->cap_named * sizeof *g->named);
    tp_mem_free(a, (void *)g->notes, g->cap_notes * sizeof *g->notes);
    tp_idmap_free(&g->names, a);
    tp_idmap_free(&g->sym_names, a);
    tp_idmap_free(&g->sym_exprs, a);
    tp_graph_arena_free(g);
    tp_mem_free(a, g, sizeof *g);
}

const tp_allocator *tp_graph_allocator(const tp_graph *g) {
    return g ? g->alloc : tp_allocator_default();
}

/* ---- names ---- */

static bool node_name_eq(const void *ctx, int32_t id, const void *key) {
    const tp_graph *g = ctx;
    return strcmp(g->nodes[id].name, (const char *)key) == 0;
}

tp_node_id tp_graph_find_name(const tp_graph *g, const char *name) {
    return tp_idmap_find(&g->names, tp_hash_str(name), node_name_eq, g, name);
}

tp_status tp_graph_find(const tp_graph *g, const char *name, tp_node_id *out, tp_error *err) {
    if (!g || !name || !out)
        return tp_error_set(err, TP_ERR_INVALID, "tp_graph_find: NULL argument");
    tp_node_id id = name[0] ? tp_graph_find_name(g, name) : -1;
    if (id < 0) return tp_error_set(err, TP_ERR_NOT_FOUND, "no node named '%.200s'", name);
    *out = id;
    return TP_OK;
}

/* ---- appending ---- */

tp_shape tp_graph_normalized_shape(const tp_shape *s) {
    tp_shape r = tp_shape_make(s->rank, s->dims);
    for (int32_t i = 0; i < r.rank; i++) {
        if (tp_dim_is_static(r.dims[i]))
            r.dims[i].sym = TP_NO_SYM;
        else
            r.dims[i].size = 0;
    }
    return r;
}

/* Append a node; every check that can fail comes before the commit. */
tp_status tp_graph_append_node(tp_graph *g, const tp_op *op, const tp_node_id *inputs,
                               uint32_t n_inputs, const tp_shape *shape, tp_dtype dtype,
                               const char *name, tp_node_id *out, tp_error *err) {
    if (!name) name = "";
    tp_node_id id = (tp_node_id)g->n_nodes;
    if (g->n_nodes >= (size_t)INT32_MAX - 1)
        return tp_error_set(err, TP_ERR_INVALID, "too many nodes in the graph");
    if (name[0]) {
        tp_node_id prev = tp_graph_find_name(g, name);
        if (prev >= 0)
            return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                                 "node %d: name '%.200s' is already used by node %d (node names "
                                 "are unique)",
                                 (int)id, name, (int)prev);
    }
    if (!tp_dtype_is_valid(dtype))
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "node %d '%.200s' (%s): invalid dtype value %d", (int)id, name,
                             tp_op_name(op), (int)dtype);
    tp_shape s = tp_graph_normalized_shape(shape);
    if (tp_shape_is_static(&s)) {
        uint64_t elems = 1, bytes;
        tp_error e2;
        for (int32_t i = 0; i < s.rank; i++)
            if (!tp_mul_u64(elems, (uint64_t)s.dims[i].size, &elems))
                return tp_error_setx(err, TP_ERR_OVERFLOW, TP_NO_OFFSET, id,
                                     "node %d '%.200s' (%s): element count of the shape "
                                     "overflows 64 bits",
                                     (int)id, name, tp_op_name(op));
        tp_status st = tp_dtype_bytes(dtype, elems, &bytes, &e2);
        if (st != TP_OK)
            return tp_error_setx(err, st, TP_NO_OFFSET, id, "node %d '%.200s' (%s): %s", (int)id,
                                 name, tp_op_name(op), e2.msg);
    }
    /* reserve */
    if (!tp_mem_grow(g->alloc, (void **)&g->nodes, sizeof *g->nodes, &g->cap_nodes,
                     g->n_nodes + 1) ||
        (name[0] && !tp_idmap_reserve(&g->names, g->alloc)))
        goto nomem;
    tp_node n;
    memset(&n, 0, sizeof n);
    n.op = *op;
    n.shape = s;
    n.dtype = dtype;
    n.n_inputs = n_inputs;
    n.name = name[0] ? tp_graph_arena_strdup(g, name) : "";
    if (!n.name) goto nomem;
    if (n_inputs) {
        n.inputs = tp_graph_arena_alloc(g, n_inputs * sizeof *n.inputs);
        if (!n.inputs) goto nomem;
        memcpy(n.inputs, inputs, n_inputs * sizeof *n.inputs);
    }
    if (op->kind == TP_OP_CUSTOM) {
        const char *cn = op->attrs.custom.name ? op->attrs.custom.name : "";
        n.op.attrs.custom.name = tp_graph_arena_strdup(g, cn);
        if (!n.op.attrs.custom.name) goto nomem;
    }
    /* commit */
    g->nodes[g->n_nodes++] = n;
    if (name[0]) tp_idmap_insert(&g->names, tp_hash_str(n.name), id);
    if (out) *out = id;
    return TP_OK;
nomem:
    return tp_error_setx(err, TP_ERR_NOMEM, TP_NO_OFFSET, id,
                         "out of memory adding node %d '%.200s'", (int)id, name);
}

tp_status tp_graph_set_param_data(tp_graph *g, tp_node_id id, uint64_t data_offset,
                                  uint64_t data_bytes, tp_error *err) {
    if (!g || id < 0 || (size_t)id >= g->n_nodes || g->nodes[id].op.kind != TP_OP_PARAM)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "set param data: node %d is not a param", (int)id);
    g->nodes[id].op.attrs.param.data_offset = data_offset;
    g->nodes[id].op.attrs.param.data_bytes = data_bytes;
    return TP_OK;
}

tp_status tp_graph_set_param_external(tp_graph *g, tp_node_id id, bool external, tp_error *err) {
    if (!g || id < 0 || (size_t)id >= g->n_nodes || g->nodes[id].op.kind != TP_OP_PARAM)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "set param external: node %d is not a param", (int)id);
    g->nodes[id].op.attrs.param.external = external;
    return TP_OK;
}

tp_status tp_graph_set_param_body_depth(tp_graph *g, tp_node_id id, uint32_t depth, tp_error *err) {
    if (!g || id < 0 || (size_t)id >= g->n_nodes ||
        (g->nodes[id].op.kind != TP_OP_PARAM && g->nodes[id].op.kind != TP_OP_CONSTANT))
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "set param body depth: node %d is not a param or constant", (int)id);
    g->nodes[id].op.attrs.param.body_depth = depth;
    return TP_OK;
}

tp_status tp_graph_mark_output(tp_graph *g, tp_node_id id, tp_error *err) {
    if (!g || id < 0 || (size_t)id >= (g ? g->n_nodes : 0))
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "mark output: node %d does not exist", (int)id);
    if (g->nodes[id].flags & TP_NODE_OUTPUT) return TP_OK;
    if (!tp_mem_grow(g->alloc, (void **)&g->outputs, sizeof *g->outputs, &g->cap_outputs,
                     g->n_outputs + 1))
        return tp_error_setx(err, TP_ERR_NOMEM, TP_NO_OFFSET, id,
                             "out of memory marking node %d as output", (int)id);
    g->outputs[g->n_outputs++] = id;
    g->nodes[id].flags |= TP_NODE_OUTPUT;
    return TP_OK;
}

tp_status tp_graph_set_flags(tp_graph *g, tp_node_id id, uint32_t flags, tp_error *err) {
    if (!g || id < 0 || (size_t)id >= g->n_nodes)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "set flags: node %d does not exist", (int)id);
    if (flags & TP_NODE_OUTPUT) {
        tp_status st = tp_graph_mark_output(g, id, err);
        if (st != TP_OK) return st;
    }
    g->nodes[id].flags |= flags;
    return TP_OK;
}

/* ---- reading ---- */

uint32_t tp_graph_node_count(const tp_graph *g) {
    return g ? (uint32_t)g->n_nodes : 0;
}

const tp_node *tp_graph_node(const tp_graph *g, tp_node_id id) {
    if (!g || id < 0 || (size_t)id >= g->n_nodes) return NULL;
    return &g->nodes[id];
}

uint32_t tp_graph_output_count(const tp_graph *g) {
    return g ? (uint32_t)g->n_outputs : 0;
}

tp_node_id tp_graph_output(const tp_graph *g, uint32_t index) {
    if (!g || index >= g->n_outputs) return TP_NO_NODE;
    return g->outputs[index];
}

tp_status tp_graph_shape_elements(const tp_graph *g, const tp_shape *s, uint64_t *out,
                                  tp_error *err) {
    if (!g || !s || !out)
        return tp_error_set(err, TP_ERR_INVALID, "tp_graph_shape_elements: NULL argument");
    if (s->rank < 0 || s->rank > TP_MAX_RANK)
        return tp_error_set(err, TP_ERR_INVALID, "rank %d is outside 0..%d", (int)s->rank,
                            TP_MAX_RANK);
    uint64_t n = 1;
    char buf[160];
    for (int32_t i = 0; i < s->rank; i++) {
        int64_t v;
        tp_status st = tp_graph_dim_value(g, s->dims[i], &v, err);
        if (st != TP_OK) return st;
        if (!tp_mul_u64(n, (uint64_t)v, &n))
            return tp_error_set(err, TP_ERR_OVERFLOW, "element count of %s overflows 64 bits",
                                tp_graph_shape_str(g, s, buf, sizeof buf));
    }
    *out = n;
    return TP_OK;
}

static tp_status node_context(const tp_graph *g, tp_node_id id, tp_status st, tp_error *err) {
    if (err && st != TP_OK) {
        tp_error_prefix(err, "node %d '%.200s' (%s): ", (int)id, g->nodes[id].name,
                        tp_op_name(&g->nodes[id].op));
        err->node = id;
    }
    return st;
}

tp_status tp_graph_node_elements(const tp_graph *g, tp_node_id id, uint64_t *out, tp_error *err) {
    if (!tp_graph_node(g, id) || !out)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id, "node %d does not exist",
                             (int)id);
    return node_context(g, id, tp_graph_shape_elements(g, &g->nodes[id].shape, out, err), err);
}

tp_status tp_graph_node_bytes(const tp_graph *g, tp_node_id id, uint64_t *out, tp_error *err) {
    uint64_t n;
    tp_status st = tp_graph_node_elements(g, id, &n, err);
    if (st != TP_OK) return st;
    return node_context(g, id, tp_dtype_bytes(g->nodes[id].dtype, n, out, err), err);
}

tp_status tp_graph_node_view(const tp_graph *g, tp_node_id id, bool *is_view,
                             uint64_t *offset_bytes, tp_error *err) {
    const tp_node *n = tp_graph_node(g, id);
    if (!n || !is_view)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id, "node %d does not exist",
                             (int)id);
    *is_view = false;
    if (offset_bytes) *offset_bytes = 0;
    if (n->n_inputs == 0) return TP_OK;
    const tp_node *x = &g->nodes[n->inputs[0]];
    switch (n->op.kind) {
    case TP_OP_RESHAPE:
    case TP_OP_SQUEEZE:
    case TP_OP_UNSQUEEZE:
    case TP_OP_FLATTEN:
        *is_view = true;
        return TP_OK;
    case TP_OP_CAST:
        *is_view = n->op.attrs.cast.to == x->dtype;
        return TP_OK;
    case TP_OP_UNARY: /* identity (ONNX Identity) moves no data */
        *is_view = n->op.sub == TP_UNARY_IDENTITY && n->dtype == x->dtype;
        return TP_OK;
    case TP_OP_NARROW: {
        int64_t axis = n->op.attrs.narrow.axis;
        if (axis < 0) axis += x->shape.rank;
        if (axis != 0) return TP_OK;
        *is_view = true;
        if (!offset_bytes) return TP_OK;
        tp_shape rows = tp_shape_make(x->shape.rank - 1, x->shape.dims + 1);
        uint64_t per_row = 0, elems = 0;
        tp_status st = tp_graph_shape_elements(g, &rows, &per_row, err);
        if (st == TP_OK && !tp_mul_u64(per_row, (uint64_t)n->op.attrs.narrow.start, &elems))
            st = tp_error_set(err, TP_ERR_OVERFLOW, "narrow offset overflows 64 bits");
        if (st == TP_OK) st = tp_dtype_bytes(x->dtype, elems, offset_bytes, err);
        return node_context(g, id, st, err);
    }
    default:
        return TP_OK;
    }
}
