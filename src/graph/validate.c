/* tp_graph_validate: structural checks, outputs, bindings and sizes. */
#include "core/mem.h"
#include "graph/graph_internal.h"

#include <stdio.h>
#include <string.h>

static tp_status check_node(const tp_graph *g, tp_node_id id, tp_error *err) {
    const tp_node *n = &g->nodes[id];
    const char *nm = n->name;
    if ((unsigned)n->op.kind >= (unsigned)TP_OP_KIND_COUNT)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "node %d '%.200s': invalid op kind %d", (int)id, nm, (int)n->op.kind);
    if (!tp_dtype_is_valid(n->dtype))
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "node %d '%.200s' (%s): invalid dtype %d", (int)id, nm,
                             tp_op_name(&n->op), (int)n->dtype);
    if (n->shape.rank < 0 || n->shape.rank > TP_MAX_RANK)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "node %d '%.200s' (%s): rank %d outside 0..%d", (int)id, nm,
                             tp_op_name(&n->op), (int)n->shape.rank, TP_MAX_RANK);
    uint32_t lo = 0, hi = 0;
    tp_op_arity(&n->op, &lo, &hi);
    if (n->n_inputs < lo || n->n_inputs > hi)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                             "node %d '%.200s' (%s): %u inputs, expected %u..%u", (int)id, nm,
                             tp_op_name(&n->op), n->n_inputs, lo, hi);
    for (uint32_t i = 0; i < n->n_inputs; i++)
        if (n->inputs[i] < 0 || n->inputs[i] >= id)
            return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                                 "node %d '%.200s' (%s): input %u is node %d, not an earlier node",
                                 (int)id, nm, tp_op_name(&n->op), i, (int)n->inputs[i]);
    if (n->op.kind == TP_OP_PARAM) {
        tp_node_id t = n->op.attrs.param.tied_to;
        if (t >= id || (t >= 0 && g->nodes[t].op.kind != TP_OP_PARAM))
            return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                                 "node %d '%.200s': tied to node %d, not an earlier param", (int)id,
                                 nm, (int)t);
    }
    return TP_OK;
}

/* Every named symbol that node shapes depend on and that is unbound. */
static tp_status check_bound(const tp_graph *g, tp_error *err) {
    if (g->n_syms == 0) return TP_OK;
    unsigned char *mark = tp_mem_calloc(g->alloc, g->n_syms, 1);
    if (!mark) return tp_error_set(err, TP_ERR_NOMEM, "out of memory validating the graph");
    tp_node_id first = TP_NO_NODE;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const tp_shape *s = &g->nodes[i].shape;
        for (int32_t k = 0; k < s->rank; k++) {
            tp_dim d = s->dims[k];
            if (tp_dim_is_static(d)) continue;
            if (first == TP_NO_NODE && g->syms[d.sym].state == SYM_UNBOUND) first = (tp_node_id)i;
            mark[d.sym] = 1;
        }
    }
    for (size_t i = g->n_syms; i-- > 0;) {
        const tp_gsym *s = &g->syms[i];
        if (mark[i] && s->name && s->has_upper && !s->bound && !tp_dim_is_static(s->upper))
            mark[s->upper.sym] = 1; /* a data-dependent size at its bound needs the bound's */
        if (!mark[i] || s->name) continue;
        if (!tp_dim_is_static(s->a)) mark[s->a.sym] = 1;
        if (!tp_dim_is_static(s->b)) mark[s->b.sym] = 1;
    }
    char list[TP_ERROR_MSG_CAP];
    size_t len = 0;
    int count = 0;
    list[0] = '\0';
    for (size_t i = 0; i < g->n_syms; i++) {
        const tp_gsym *s = &g->syms[i];
        if (!mark[i] || !s->name || s->bound || s->has_upper) continue;
        int w = snprintf(list + len, sizeof list - len, "%s'%s'", count ? ", " : "", s->name);
        if (w > 0) len = len + (size_t)w >= sizeof list ? sizeof list - 1 : len + (size_t)w;
        count++;
    }
    tp_mem_free(g->alloc, mark, g->n_syms);
    if (count == 0) return TP_OK;
    return tp_error_setx(err, TP_ERR_UNBOUND, TP_NO_OFFSET, first,
                         "unbound symbol%s %s (first used by node %d '%.100s'); bind a value "
                         "to each (tp_graph_bind; on the command line --dim name=value)",
                         count > 1 ? "s" : "", list, (int)first,
                         first >= 0 ? g->nodes[first].name : "");
}

static bool value_of(const tp_graph *g, tp_dim d, int64_t *v) {
    return tp_graph_dim_value(g, d, v, NULL) == TP_OK;
}

static tp_status bound_mismatch(const tp_graph *g, tp_node_id id, uint32_t k, int32_t i, int64_t vi,
                                int64_t vo, const char *what, tp_error *err) {
    const tp_node *n = &g->nodes[id];
    return tp_error_setx(err, TP_ERR_SHAPE, TP_NO_OFFSET, id,
                         "node %d '%.200s' (%s): under the bindings input %u dim %d is %lld but %s "
                         "%lld",
                         (int)id, n->name, tp_op_name(&n->op), k, (int)i, (long long)vi, what,
                         (long long)vo);
}

/* Symbolic dims were accepted when they could agree; with values bound, check
 * that they do (broadcasting, contraction and concat dims). */
static tp_status check_bound_agreement(const tp_graph *g, tp_node_id id, tp_error *err) {
    const tp_node *n = &g->nodes[id];
    const tp_shape *o = &n->shape;
    int64_t vi, vo;
    switch (n->op.kind) {
    case TP_OP_BINARY:
    case TP_OP_COMPARE:
    case TP_OP_WHERE:
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            const tp_shape *s = &g->nodes[n->inputs[k]].shape;
            for (int32_t i = 0; i < s->rank && s->rank <= o->rank; i++)
                if (value_of(g, s->dims[i], &vi) &&
                    value_of(g, o->dims[o->rank - s->rank + i], &vo) && vi != 1 && vi != vo)
                    return bound_mismatch(g, id, k, i, vi, vo, "broadcasts to", err);
        }
        return TP_OK;
    case TP_OP_MATMUL:
    case TP_OP_BATCHED_DOT:
    case TP_OP_FUSED_MATMUL: {
        const tp_shape *a = &g->nodes[n->inputs[0]].shape, *b = &g->nodes[n->inputs[1]].shape;
        if (a->rank < 1 || b->rank < 1) return TP_OK;
        bool tb = n->op.kind == TP_OP_FUSED_MATMUL && n->op.attrs.fused.trans_b;
        int32_t kb = b->rank == 1 ? 0 : tb ? b->rank - 1 : b->rank - 2;
        if (value_of(g, a->dims[a->rank - 1], &vi) && value_of(g, b->dims[kb], &vo) && vi != vo)
            return bound_mismatch(g, id, 0, a->rank - 1, vi, vo,
                                  "the contraction dim of input 1 is", err);
        return TP_OK;
    }
    case TP_OP_CONCAT: {
        int64_t axis =
            n->op.attrs.axis.axis < 0 ? n->op.attrs.axis.axis + o->rank : n->op.attrs.axis.axis;
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            const tp_shape *s = &g->nodes[n->inputs[k]].shape;
            for (int32_t i = 0; i < s->rank && s->rank == o->rank; i++)
                if (i != axis && value_of(g, s->dims[i], &vi) && value_of(g, o->dims[i], &vo) &&
                    vi != vo)
                    return bound_mismatch(g, id, k, i, vi, vo, "the output dim is", err);
        }
        return TP_OK;
    }
    default:
        return TP_OK;
    }
}

/* "[5,4]": a shape with its dims' values under the current bindings ("?" unbound). */
static void bound_shape_str(const tp_graph *g, const tp_shape *s, char *buf, size_t cap) {
    size_t at = 0;
    buf[0] = '\0';
    for (int32_t i = 0; i < s->rank && at < cap; i++) {
        int64_t v;
        int w = tp_graph_dim_value(g, s->dims[i], &v, NULL) == TP_OK
                    ? snprintf(buf + at, cap - at, "%s%lld", i ? "," : "[", (long long)v)
                    : snprintf(buf + at, cap - at, "%s?", i ? "," : "[");
        if (w < 0) return;
        at += (size_t)w;
    }
    if (at < cap) snprintf(buf + at, cap - at, s->rank ? "]" : "[]");
}

/* A reshape-like view whose size differs from its input's: usually a --dim binding
 * that contradicts a shape baked into the model, so both shapes are shown with the
 * values the bindings give them. */
static tp_status view_size_error(const tp_graph *g, tp_node_id id, uint64_t bytes, uint64_t xb,
                                 tp_error *err) {
    const tp_node *n = &g->nodes[id];
    const tp_node *x = &g->nodes[n->inputs[0]];
    char xs[160], ys[160], xv[160], yv[160];
    tp_graph_shape_str(g, &x->shape, xs, sizeof xs);
    tp_graph_shape_str(g, &n->shape, ys, sizeof ys);
    bound_shape_str(g, &x->shape, xv, sizeof xv);
    bound_shape_str(g, &n->shape, yv, sizeof yv);
    return tp_error_setx(err, TP_ERR_SHAPE, TP_NO_OFFSET, id,
                         "node %d '%.120s' (%s): its input '%.100s' %s = %s is %llu bytes but "
                         "its output %s = %s is %llu bytes: a view keeps its input's size (does a "
                         "bound dim, --dim, contradict a shape fixed in the model?)",
                         (int)id, n->name, tp_op_name(&n->op), x->name, xs, xv,
                         (unsigned long long)xb, ys, yv, (unsigned long long)bytes);
}

tp_status tp_graph_validate(const tp_graph *g, bool require_bound, tp_error *err) {
    if (!g) return tp_error_set(err, TP_ERR_INVALID, "tp_graph_validate: NULL graph");
    tp_status st;
    for (size_t i = 0; i < g->n_nodes; i++)
        if ((st = check_node(g, (tp_node_id)i, err)) != TP_OK) return st;
    if (g->n_outputs == 0)
        return tp_error_set(err, TP_ERR_INVALID,
                            "the graph has no outputs (mark one with tp_graph_mark_output)");
    if (require_bound && (st = check_bound(g, err)) != TP_OK) return st;
    for (size_t i = 0; i < g->n_nodes; i++) {
        tp_node_id id = (tp_node_id)i;
        const tp_node *n = &g->nodes[i];
        uint64_t bytes;
        tp_error e2;
        st = tp_graph_node_bytes(g, id, &bytes, &e2);
        if (st == TP_ERR_UNBOUND && !require_bound) continue;
        if (st != TP_OK) {
            if (err) *err = e2;
            return st;
        }
        if ((st = check_bound_agreement(g, id, err)) != TP_OK) return st;
        switch (n->op.kind) {
        case TP_OP_RESHAPE:
        case TP_OP_SQUEEZE:
        case TP_OP_UNSQUEEZE:
        case TP_OP_FLATTEN: {
            uint64_t xb;
            if (tp_graph_node_bytes(g, n->inputs[0], &xb, NULL) == TP_OK && xb != bytes)
                return view_size_error(g, id, bytes, xb, err);
            break;
        }
        case TP_OP_NARROW: {
            bool view;
            uint64_t off, xb, end;
            st = tp_graph_node_view(g, id, &view, &off, err);
            if (st != TP_OK) return st;
            if (view && tp_graph_node_bytes(g, n->inputs[0], &xb, NULL) == TP_OK &&
                (!tp_add_u64(off, bytes, &end) || end > xb))
                return tp_error_setx(err, TP_ERR_SHAPE, TP_NO_OFFSET, id,
                                     "node %d '%.200s' (narrow): bytes [%llu, +%llu) run past the "
                                     "%llu bytes of its input",
                                     (int)id, n->name, (unsigned long long)off,
                                     (unsigned long long)bytes, (unsigned long long)xb);
            break;
        }
        default:
            break;
        }
    }
    return TP_OK;
}
