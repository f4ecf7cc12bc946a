/* The graph builder: checks what callers add (names, arity, input ids, shapes),
 * infers output shapes and dtypes (infer*.c), and appends the node to the
 * store (graph_store.c). */
#include "core/mem.h"
#include "graph/graph_internal.h"

#include <inttypes.h>
#include <string.h>

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
    return tp_graph_append_node(g, &op, NULL, 0, shape, dtype, name, out, err);
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
    return tp_graph_append_node(g, &op, NULL, 0, &s, t->dtype, name, out, err);
}

/* Checks of an op: kind and arity. */
static tp_status check_kind(tp_graph *g, const tp_op *op, uint32_t n_inputs, const char *name,
                            tp_error *err) {
    tp_node_id id = (tp_node_id)g->n_nodes;
    if ((unsigned)op->kind >= (unsigned)TP_OP_KIND_COUNT)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "node %d '%.200s': invalid op kind %d", (int)id, name, (int)op->kind);
    if (tp_op_is_boundary(op->kind))
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "node %d '%.200s': %s nodes are added with tp_graph_add_%s", (int)id,
                             name, tp_op_kind_name(op->kind), tp_op_kind_name(op->kind));
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
    return TP_OK;
}

/* Common checks of an op node: kind, arity, input ids. */
static tp_status check_op(tp_graph *g, const tp_op *op, const tp_node_id *inputs, uint32_t n_inputs,
                          const char *name, const char *fn, tp_error *err) {
    if (!g || !op) return tp_error_set(err, TP_ERR_INVALID, "%s: NULL argument", fn);
    tp_node_id id = (tp_node_id)g->n_nodes;
    if (!name) name = "";
    if (n_inputs && !inputs)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "node %d '%.200s' (%s): NULL input list", (int)id, name,
                             tp_op_name(op));
    tp_status st = check_kind(g, op, n_inputs, name, err);
    if (st != TP_OK) return st;
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

tp_status tp_graph_infer_shape(tp_graph *g, const tp_op *op, const tp_shape *const *in_shapes,
                               const tp_dtype *in_dtypes, uint32_t n_inputs, tp_shape *shape,
                               tp_dtype *dtype, bool *has_rule, tp_error *err) {
    if (!g || !op || !shape || !dtype || !has_rule || (n_inputs && (!in_shapes || !in_dtypes)))
        return tp_error_set(err, TP_ERR_INVALID, "tp_graph_infer_shape: NULL argument");
    *has_rule = false;
    tp_status st = check_kind(g, op, n_inputs, "", err);
    if (st != TP_OK) return st;
    if (n_inputs > MAX_OP_INPUTS)
        return tp_error_set(err, TP_ERR_INVALID, "tp_graph_infer_shape: %u inputs", n_inputs);
    tp_node *nodes = tp_mem_calloc(g->alloc, n_inputs ? n_inputs : 1, sizeof *nodes);
    const tp_node **in = tp_mem_alloc(g->alloc, (n_inputs ? n_inputs : 1) * sizeof *in);
    if (!nodes || !in) {
        st = tp_error_set(err, TP_ERR_NOMEM, "out of memory inferring a shape");
    } else {
        for (uint32_t i = 0; i < n_inputs; i++) {
            nodes[i].shape = *in_shapes[i];
            nodes[i].dtype = in_dtypes[i];
            in[i] = &nodes[i];
        }
        tp_infer_ctx c = {g, op, in, n_inputs, (tp_node_id)g->n_nodes, ""};
        bool no_rule = false;
        st = tp_graph_infer(&c, shape, dtype, &no_rule, err);
        *has_rule = st == TP_OK && !no_rule;
    }
    tp_mem_free(g->alloc, nodes, (n_inputs ? n_inputs : 1) * sizeof *nodes);
    tp_mem_free(g->alloc, (void *)in, (n_inputs ? n_inputs : 1) * sizeof *in);
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
    return tp_graph_append_node(g, op, inputs, n_inputs, &shape, dtype, name, out, err);
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
    tp_shape given = tp_graph_normalized_shape(shape);
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
        /* an integer convolution or matrix product of 8-bit operands accumulates in int32 (ONNX
           ConvInteger, MatMulInteger) or requantizes to either 8-bit type (QLinearConv,
           QLinearMatMul) */
        bool int_accum = (op->kind == TP_OP_CONV || op->kind == TP_OP_MATMUL) &&
                         tp_dtype_is_int8(idt) &&
                         (dtype == TP_DTYPE_I32 || tp_dtype_is_int8(dtype));
        if (idt != dtype && !int_accum)
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
    return tp_graph_append_node(g, op, inputs, n_inputs, &given, dtype, name, out, err);
}
