/* The graph IR: node storage, names, building, reading, sizes and views. */
#include "core/mem.h"
#include "graph/graph_internal.h"

#include <inttypes.h>
#include <stdalign.h>
#include <stddef.h>
#include <string.h>

/* ---- arena for names and input lists ---- */

struct tp_arena_chunk {
    tp_arena_chunk *next;
    size_t cap, used;
    alignas(max_align_t) unsigned char data[];
};

void *tp_graph_arena_alloc(tp_graph *g, size_t size) {
    size = (size + 7u) & ~(size_t)7u;
    if (size == 0) size = 8;
    tp_arena_chunk *c = g->arena;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > 4096 - sizeof *c ? size : 4096 - sizeof *c;
        if (cap > SIZE_MAX - sizeof *c) return NULL;
        c = tp_mem_alloc(g->alloc, sizeof *c + cap);
        if (!c) return NULL;
        c->cap = cap;
        c->used = 0;
        c->next = g->arena;
        g->arena = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    return p;
}

char *tp_graph_arena_strdup(tp_graph *g, const char *s) {
    size_t n = strlen(s) + 1;
    char *p = tp_graph_arena_alloc(g, n);
    if (p) memcpy(p, s, n);
    return p;
}

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
    tp_idmap_free(&g->names, a);
    tp_idmap_free(&g->sym_names, a);
    tp_idmap_free(&g->sym_exprs, a);
    for (tp_arena_chunk *c = g->arena; c;) {
        tp_arena_chunk *next = c->next;
        tp_mem_free(a, c, sizeof *c + c->cap);
        c = next;
    }
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

static tp_node_id find_name(const tp_graph *g, const char *name) {
    return tp_idmap_find(&g->names, tp_hash_str(name), node_name_eq, g, name);
}

tp_status tp_graph_find(const tp_graph *g, const char *name, tp_node_id *out, tp_error *err) {
    if (!g || !name || !out)
        return tp_error_set(err, TP_ERR_INVALID, "tp_graph_find: NULL argument");
    tp_node_id id = name[0] ? find_name(g, name) : -1;
    if (id < 0) return tp_error_set(err, TP_ERR_NOT_FOUND, "no node named '%.200s'", name);
    *out = id;
    return TP_OK;
}

/* ---- adding nodes ---- */

static tp_status check_shape(const tp_graph *g, const tp_shape *s, const char *what,
                             const char *name, tp_error *err) {
    if (!s) return tp_error_set(err, TP_ERR_INVALID, "%s '%.200s': NULL shape", what, name);
    if (s->rank < 0 || s->rank > TP_MAX_RANK)
        return tp_error_set(err, TP_ERR_INVALID,
                            "%s '%.200s': rank %d is outside 0..%d (TP_MAX_RANK)", what, name,
                            (int)s->rank, TP_MAX_RANK);
    for (int32_t i = 0; i < s->rank; i++)
        if (!tp_graph_dim_ok(g, s->dims[i]))
            return tp_error_set(err, TP_ERR_INVALID,
                                "%s '%.200s': dim %d is invalid (size %" PRId64 ", sym %d)", what,
                                name, (int)i, s->dims[i].size, (int)s->dims[i].sym);
    return TP_OK;
}

static tp_shape normalized(const tp_shape *s) {
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
static tp_status add_node(tp_graph *g, const tp_op *op, const tp_node_id *inputs, uint32_t n_inputs,
                          const tp_shape *shape, tp_dtype dtype, const char *name, tp_node_id *out,
                          tp_error *err) {
    if (!name) name = "";
    tp_node_id id = (tp_node_id)g->n_nodes;
    if (g->n_nodes >= (size_t)INT32_MAX - 1)
        return tp_error_set(err, TP_ERR_INVALID, "too many nodes in the graph");
    if (name[0]) {
        tp_node_id prev = find_name(g, name);
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
    tp_shape s = normalized(shape);
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

static tp_status add_boundary(tp_graph *g, tp_op_kind kind, const char *name, tp_dtype dtype,
                              const tp_shape *shape, tp_node_id *out, tp_error *err) {
    const char *what = tp_op_kind_name(kind);
    if (!g) return tp_error_set(err, TP_ERR_INVALID, "add %s: NULL graph", what);
    if (!name || !name[0])
        return tp_error_set(err, TP_ERR_INVALID, "add %s: a name is required", what);
    tp_status st = check_shape(g, shape, what, name, err);
    if (st != TP_OK) return st;
    tp_op op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    op.attrs.param.tied_to = -1;
    return add_node(g, &op, NULL, 0, shape, dtype, name, out, err);
}

tp_status tp_graph_add_input(tp_graph *g, const char *name, tp_dtype dtype, const tp_shape *shape,
                             tp_node_id *out, tp_error *err) {
    return add_boundary(g, TP_OP_INPUT, name, dtype, shape, out, err);
}

tp_status tp_graph_add_param(tp_graph *g, const char *name, tp_dtype dtype, const tp_shape *shape,
                             tp_node_id *out, tp_error *err) {
    return add_boundary(g, TP_OP_PARAM, name, dtype, shape, out, err);
}

tp_status tp_graph_add_constant(tp_graph *g, const char *name, tp_dtype dtype,
                                const tp_shape *shape, tp_node_id *out, tp_error *err) {
    return add_boundary(g, TP_OP_CONSTANT, name, dtype, shape, out, err);
}

tp_status tp_graph_add_tied_param(tp_graph *g, const char *name, tp_node_id target, tp_node_id *out,
                                  tp_error *err) {
    if (!g) return tp_error_set(err, TP_ERR_INVALID, "add tied param: NULL graph");
    if (!name || !name[0])
        return tp_error_set(err, TP_ERR_INVALID, "add tied param: a name is required");
    const tp_node *t = tp_graph_node(g, target);
    if (!t || t->op.kind != TP_OP_PARAM)
        return tp_error_set(err, TP_ERR_INVALID,
                            "tied param '%.200s': target %d is not an existing param", name,
                            (int)target);
    tp_node_id root = t->op.attrs.param.tied_to >= 0 ? t->op.attrs.param.tied_to : target;
    tp_op op = t->op;
    op.attrs.param.tied_to = root;
    tp_shape s = t->shape;
    return add_node(g, &op, NULL, 0, &s, t->dtype, name, out, err);
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

/* Common checks of an op node: kind, arity, input ids. */
static tp_status check_op(tp_graph *g, const tp_op *op, const tp_node_id *inputs, uint32_t n_inputs,
                          const char *name, const char *fn, tp_error *err) {
    if (!g || !op) return tp_error_set(err, TP_ERR_INVALID, "%s: NULL argument", fn);
    tp_node_id id = (tp_node_id)g->n_nodes;
    if (!name) name = "";
    if ((unsigned)op->kind >= (unsigned)TP_OP_KIND_COUNT)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "node %d '%.200s': invalid op kind %d", (int)id, name, (int)op->kind);
    if (tp_op_is_boundary(op->kind))
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "node %d '%.200s': %s nodes are added with tp_graph_add_%s", (int)id,
                             name, tp_op_kind_name(op->kind), tp_op_kind_name(op->kind));
    if (n_inputs && !inputs)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "node %d '%.200s' (%s): NULL input list", (int)id, name,
                             tp_op_name(op));
    uint32_t lo, hi;
    tp_op_arity(op, &lo, &hi);
    if (n_inputs < lo || n_inputs > hi) {
        if (hi == UINT32_MAX)
            return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                                 "node %d '%.200s' (%s): %u inputs, expected at least %u", (int)id,
                                 name, tp_op_name(op), n_inputs, lo);
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "node %d '%.200s' (%s): %u inputs, expected %u..%u", (int)id, name,
                             tp_op_name(op), n_inputs, lo, hi);
    }
    for (uint32_t i = 0; i < n_inputs; i++)
        if (inputs[i] < 0 || inputs[i] >= id)
            return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                                 "node %d '%.200s' (%s): input %u is node %d, which is not an "
                                 "earlier node (valid: 0..%d)",
                                 (int)id, name, tp_op_name(op), i, (int)inputs[i], (int)id - 1);
    return TP_OK;
}

#define MAX_OP_INPUTS 4096

static tp_status infer_for(tp_graph *g, const tp_op *op, const tp_node_id *inputs,
                           uint32_t n_inputs, const char *name, tp_shape *shape, tp_dtype *dtype,
                           bool *no_rule, tp_error *err) {
    const tp_node *in_small[16];
    const tp_node **in = in_small;
    if (n_inputs > 16) {
        in = tp_mem_alloc(g->alloc, n_inputs * sizeof *in);
        if (!in)
            return tp_error_setx(err, TP_ERR_NOMEM, TP_NO_OFFSET, (int64_t)g->n_nodes,
                                 "out of memory adding node %d", (int)g->n_nodes);
    }
    for (uint32_t i = 0; i < n_inputs; i++)
        in[i] = &g->nodes[inputs[i]];
    tp_infer_ctx c = {g, op, in, n_inputs, (tp_node_id)g->n_nodes, name ? name : ""};
    tp_status st = tp_graph_infer(&c, shape, dtype, no_rule, err);
    if (in != in_small) tp_mem_free(g->alloc, in, n_inputs * sizeof *in);
    return st;
}

tp_status tp_graph_add_op(tp_graph *g, const tp_op *op, const tp_node_id *inputs, uint32_t n_inputs,
                          const char *name, tp_node_id *out, tp_error *err) {
    tp_status st = check_op(g, op, inputs, n_inputs, name, "tp_graph_add_op", err);
    if (st != TP_OK) return st;
    tp_shape shape;
    tp_dtype dtype;
    bool no_rule = false;
    st = infer_for(g, op, inputs, n_inputs, name, &shape, &dtype, &no_rule, err);
    if (st != TP_OK) return st;
    if (no_rule)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, (int64_t)g->n_nodes,
                             "node %d '%.200s' (%s): the output shape cannot be inferred here; "
                             "give it with tp_graph_add_op_shaped",
                             (int)g->n_nodes, name ? name : "", tp_op_name(op));
    return add_node(g, op, inputs, n_inputs, &shape, dtype, name, out, err);
}

tp_status tp_graph_add_op_shaped(tp_graph *g, const tp_op *op, const tp_node_id *inputs,
                                 uint32_t n_inputs, const tp_shape *shape, tp_dtype dtype,
                                 const char *name, tp_node_id *out, tp_error *err) {
    tp_status st = check_op(g, op, inputs, n_inputs, name, "tp_graph_add_op_shaped", err);
    if (st != TP_OK) return st;
    if (!name) name = "";
    tp_node_id id = (tp_node_id)g->n_nodes;
    st = check_shape(g, shape, "node", name, err);
    if (st != TP_OK) return st;
    tp_shape given = normalized(shape);
    tp_shape inf;
    tp_dtype idt;
    bool no_rule = false;
    st = infer_for(g, op, inputs, n_inputs, name, &inf, &idt, &no_rule, err);
    if (st != TP_OK) return st;
    char b1[160], b2[160];
    if (!no_rule) {
        bool ok = inf.rank == given.rank;
        for (int32_t i = 0; ok && i < inf.rank; i++)
            if (tp_dim_is_static(inf.dims[i]) && tp_dim_is_static(given.dims[i]) &&
                inf.dims[i].size != given.dims[i].size)
                ok = false;
        if (!ok)
            return tp_error_setx(err, TP_ERR_SHAPE, TP_NO_OFFSET, id,
                                 "node %d '%.200s' (%s): given shape %s disagrees with the "
                                 "inferred %s",
                                 (int)id, name, tp_op_name(op),
                                 tp_graph_shape_str(g, &given, b1, sizeof b1),
                                 tp_graph_shape_str(g, &inf, b2, sizeof b2));
        if (idt != dtype)
            return tp_error_setx(err, TP_ERR_SHAPE, TP_NO_OFFSET, id,
                                 "node %d '%.200s' (%s): given dtype %s disagrees with the "
                                 "inferred %s",
                                 (int)id, name, tp_op_name(op), tp_dtype_name(dtype),
                                 tp_dtype_name(idt));
        /* keep what is known statically from either side */
        for (int32_t i = 0; i < inf.rank; i++)
            if (tp_dim_is_static(inf.dims[i]) && !tp_dim_is_static(given.dims[i]))
                given.dims[i] = inf.dims[i];
    }
    const tp_node *x = n_inputs ? &g->nodes[inputs[0]] : NULL;
    switch (op->kind) {
    case TP_OP_RESHAPE:
    case TP_OP_SQUEEZE:
    case TP_OP_UNSQUEEZE:
    case TP_OP_FLATTEN:
        /* views: the same bytes, so the same dtype and element count */
        if (dtype != x->dtype)
            return tp_error_setx(err, TP_ERR_SHAPE, TP_NO_OFFSET, id,
                                 "node %d '%.200s' (%s): a view keeps the dtype (%s), got %s",
                                 (int)id, name, tp_op_name(op), tp_dtype_name(x->dtype),
                                 tp_dtype_name(dtype));
        if (tp_graph_count_cmp(g, &x->shape, &given) == 0)
            return tp_error_setx(err, TP_ERR_SHAPE, TP_NO_OFFSET, id,
                                 "node %d '%.200s' (%s): %s has a different element count than "
                                 "its input %s",
                                 (int)id, name, tp_op_name(op),
                                 tp_graph_shape_str(g, &given, b1, sizeof b1),
                                 tp_graph_shape_str(g, &x->shape, b2, sizeof b2));
        break;
    case TP_OP_EXPAND: {
        tp_infer_ctx c = {g, op, NULL, 0, id, name};
        tp_shape bc;
        st = tp_infer_broadcast(&c, &x->shape, &given, &bc, err);
        if (st != TP_OK) return st;
        bool ok = bc.rank == given.rank;
        for (int32_t i = 0; ok && i < bc.rank; i++)
            if (tp_dim_is_static(bc.dims[i]) && tp_dim_is_static(given.dims[i]) &&
                bc.dims[i].size != given.dims[i].size)
                ok = false;
        if (!ok || dtype != x->dtype)
            return tp_error_setx(
                err, TP_ERR_SHAPE, TP_NO_OFFSET, id,
                "node %d '%.200s' (%s): %s %s cannot be expanded to %s %s", (int)id, name,
                tp_op_name(op), tp_graph_shape_str(g, &x->shape, b1, sizeof b1),
                tp_dtype_name(x->dtype), tp_graph_shape_str(g, &given, b2, sizeof b2),
                tp_dtype_name(dtype));
        break;
    }
    default:
        break;
    }
    return add_node(g, op, inputs, n_inputs, &given, dtype, name, out, err);
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
