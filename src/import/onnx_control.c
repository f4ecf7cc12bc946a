/* Control flow: If, Loop and Scan with their bodies converted into the IR.
 *
 * A body's nodes become ordinary IR nodes (named after their values; a name
 * already taken gets a "#k" suffix), its initializers and Constants become
 * Params and Constants (so they count as weights), and the outer values it
 * reads are read by its nodes directly (liveness keeps them alive until the
 * body's last reader).
 *
 * - If with a condition whose value is known (a constant, or computed from
 *   shapes or given input values) converts the taken branch only; its outputs
 *   are views of the branch's outputs. With an unknown condition both branches
 *   are converted one after the other (the arena covers the larger of the two,
 *   weights of both count) and each output is an If node reading both results,
 *   sized by the larger dims.
 * - Loop and Scan plan one iteration: their body runs dry first (typing only)
 *   to learn the per-iteration shapes, then the Loop/Scan node is added with
 *   the final carried values and the scan outputs (trip count x per-iteration,
 *   live during the whole loop), then the body's nodes.
 * Each decision is recorded as a graph note (tp_graph_add_note). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "import/onnx_convert_internal.h"

typedef tp_ox_conv control_conv;

/* A value flowing into or out of a body. */
typedef struct body_io {
    tp_node_id node;
    tp_shape shape;
    int32_t elem;
    tp_ox_value *value; /* owned */
    bool grown;         /* a Loop-carried value that grows each iteration */
} body_io;

/* Trip counts above this are treated as unknown (while-loops export M = INT64_MAX). */
#define MAX_STATIC_TRIPS ((int64_t)1 << 31)

static void io_free(control_conv *cv, body_io *io, uint32_t n) {
    if (!io) return;
    for (uint32_t k = 0; k < n; k++)
        tp_ox_value_free(cv->a, io[k].value);
    tp_mem_free(cv->a, io, (n ? n : 1) * sizeof *io);
}

static body_io *io_new(control_conv *cv, uint32_t n) {
    body_io *io = tp_mem_calloc(cv->a, n ? n : 1, sizeof *io);
    if (io)
        for (uint32_t k = 0; k < n; k++)
            io[k].node = TP_NO_NODE;
    return io;
}

static const tp_onnx_graph *attr_graph(const tp_ox_ctx *c, const char *name) {
    const tp_onnx_attr *a = tp__onnx_find_attr(c->node, name);
    return a ? a->g : NULL;
}

/* Convert a body with its inputs bound to binds (with their values: the caller
 * gives none for tensors carried across iterations, a symbol for a Loop's
 * iteration number, the element shapes of sequences); outs[k] receives
 * output k (the value copied). The body's scope is closed on every path. */
static tp_status body_run(control_conv *cv, tp_ox_ctx *c, const char *what,
                          const tp_onnx_graph *body, const body_io *binds, uint32_t n_binds,
                          body_io *outs) {
    if (body->n_inputs != n_binds)
        return tp_ox_fail(c, TP_ERR_SHAPE, "%s has %u inputs, %u expected", what, body->n_inputs,
                          n_binds);
    if (body->n_sparse_initializers)
        return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "%s has sparse initializers", what);
    tp_status st = tp__ox_scope_open(cv, body);
    if (st != TP_OK) return st;
    for (uint32_t i = 0; st == TP_OK && i < body->n_initializers; i++)
        st = tp__ox_add_initializer(cv, &body->initializers[i]);
    for (uint32_t i = 0; st == TP_OK && i < n_binds; i++) {
        /* sequences keep their element shapes; tensor values are not carried */
        tp_ox_value *sv = binds[i].value ? tp_ox_value_copy(cv->a, binds[i].value) : NULL;
        if (binds[i].value && !sv)
            st = tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
        else
            st = tp__ox_val_add(cv, body->inputs[i].name, binds[i].node, &binds[i].shape,
                                binds[i].elem, sv);
    }
    for (uint32_t i = 0; st == TP_OK && i < body->n_nodes; i++)
        st = tp__ox_add_node(cv, &body->nodes[i], i);
    for (uint32_t k = 0; st == TP_OK && k < body->n_outputs; k++) {
        const ox_val *v = tp__ox_val_find(cv, body->outputs[k].name);
        if (!v) {
            st = tp_ox_fail(c, TP_ERR_PARSE, "%s output '%s' is not produced by the body", what,
                            body->outputs[k].name);
            break;
        }
        outs[k].node = v->node;
        outs[k].shape = v->shape;
        outs[k].elem = v->elem;
        /* a dim the body's declaration fixes where inference could not */
        const tp_onnx_value_info *vi = &body->outputs[k];
        if (vi->rank == v->shape.rank)
            for (int32_t d = 0; d < vi->rank; d++)
                if (vi->dims[d].value >= 0 && !(vi->dims[d].param && vi->dims[d].param[0]) &&
                    !tp_dim_is_static(outs[k].shape.dims[d]))
                    outs[k].shape.dims[d] = tp_dim_static(vi->dims[d].value);
        if (v->value && !(outs[k].value = tp_ox_value_copy(cv->a, v->value)))
            st = tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
    }
    tp__ox_scope_close(cv);
    if (st != TP_OK && cv->err && !strstr(cv->err->msg, what)) {
        const tp_onnx_node *n = c->node;
        tp_error_prefix(cv->err, "onnx: in the %s of '%s' (%s): ", what,
                        n->name[0] ? n->name : n->outputs[0], n->op_type);
    }
    return st;
}

/* A node of a body not planned that onnxruntime's constant folding computes at load (every
 * input a constant in scope, or the output of such a node of the same body): its outputs are
 * recorded as folded values, and the fold counted (tp_graph_add_folded). Their size is not
 * known here (no shapes are inferred in a body not planned): one that comes from a weight of an
 * enclosing scope is taken at that weight's bytes (silero's folds slice a weight into gates and
 * concatenate them back). */
static tp_status unplanned_fold(control_conv *cv, const tp_onnx_node *n) {
    uint64_t bytes = 0;
    bool outer = false, any = false;
    for (uint32_t j = 0; j < n->n_attrs; j++)
        if (n->attrs[j].g || n->attrs[j].n_graphs) return TP_OK; /* control flow: not folded */
    for (uint32_t i = 0; i < n->n_inputs; i++) {
        if (!n->inputs[i][0]) continue;
        const ox_val *v = tp__ox_val_find(cv, n->inputs[i]);
        if (!v || v->runtime) return TP_OK;
        any = true;
        if (!tp__ox_outer_value(cv, v)) continue;
        outer = true;
        uint64_t b = v->outer_bytes;
        if (!v->outer_fold && tp_graph_node_bytes(cv->g, v->node, &b, NULL) != TP_OK) b = 0;
        if (b > bytes) bytes = b;
    }
    if (!any) return TP_OK;
    tp_shape none = tp_shape_of(0, NULL);
    for (uint32_t k = 0; k < n->n_outputs; k++) {
        if (!n->outputs[k][0]) continue;
        tp_status st = tp__ox_val_add(cv, n->outputs[k], TP_NO_NODE, &none, 0, NULL);
        if (st != TP_OK) return st;
        ox_val *v = tp__ox_val_find(cv, n->outputs[k]);
        if (!v) continue;
        v->runtime = false;
        v->outer_fold = outer;
        v->outer_bytes = bytes;
    }
    return tp_graph_add_folded(cv->g, 0, 1, 0, cv->err);
}

/* The copies a body not planned keeps: each folded value from an enclosing scope's weight that
 * a node running in the body (or the body's output) reads, once. */
static tp_status unplanned_copy(control_conv *cv, const char *name) {
    ox_val *v = name[0] ? tp__ox_val_find(cv, name) : NULL;
    if (!v || !v->outer_fold || v->node != TP_NO_NODE || !v->outer_bytes) return TP_OK;
    uint64_t b = v->outer_bytes;
    v->outer_bytes = 0; /* counted */
    return tp_graph_add_folded(cv->g, 0, 0, b, cv->err);
}

/* The weights of a body that is not planned (an If branch not taken): the
 * runtime still loads them, so its initializers and Constants (at any depth)
 * become Params and Constants that no node reads. */
static tp_status body_weights(control_conv *cv, const tp_onnx_graph *body) {
    if (cv->dry) return TP_OK;
    tp_status st = tp__ox_scope_open(cv, body);
    if (st != TP_OK) return st;
    for (uint32_t i = 0; st == TP_OK && i < body->n_initializers; i++)
        st = tp__ox_add_initializer(cv, &body->initializers[i]);
    for (uint32_t i = 0; st == TP_OK && i < body->n_nodes; i++) {
        const tp_onnx_node *n = &body->nodes[i];
        bool constant = !n->domain[0] && strcmp(n->op_type, "Constant") == 0;
        if (constant)
            st = tp__ox_add_node(cv, n, i);
        else /* a node the runtime loads though it never runs here */
            st = tp_graph_add_bodies(cv->g, 0, 1, cv->err);
        if (st == TP_OK && !constant) st = unplanned_fold(cv, n);
        for (uint32_t j = 0; st == TP_OK && j < n->n_attrs; j++) {
            const tp_onnx_attr *a = &n->attrs[j];
            if (a->g) st = body_weights(cv, a->g);
            for (uint32_t k = 0; st == TP_OK && k < a->n_graphs; k++)
                st = body_weights(cv, a->graphs[k]);
        }
    }
    /* the folded values that a node running in the body, or the body's output, reads */
    for (uint32_t i = 0; st == TP_OK && i < body->n_nodes; i++) {
        const tp_onnx_node *n = &body->nodes[i];
        const ox_val *o =
            n->n_outputs && n->outputs[0][0] ? tp__ox_val_find(cv, n->outputs[0]) : NULL;
        if (o && !o->runtime) continue; /* a Constant or a fold */
        for (uint32_t j = 0; st == TP_OK && j < n->n_inputs; j++)
            st = unplanned_copy(cv, n->inputs[j]);
    }
    for (uint32_t k = 0; st == TP_OK && k < body->n_outputs; k++)
        st = unplanned_copy(cv, body->outputs[k].name);
    tp__ox_scope_close(cv);
    return st;
}

static tp_status note(control_conv *cv, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static tp_status note(control_conv *cv, const char *fmt, ...) {
    if (cv->dry) return TP_OK;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return tp_graph_add_note(cv->g, buf, cv->err);
}

static const char *node_label(const tp_ox_ctx *c) {
    const tp_onnx_node *n = c->node;
    return n->name[0] ? n->name : n->outputs[0];
}

/* Outputs of an If / Loop / Scan in a dry run: typed values only. */
static tp_status record_dry(control_conv *cv, tp_ox_ctx *c) {
    for (uint32_t k = 0; k < c->n_out; k++) {
        if (!c->node->outputs[k][0]) continue;
        tp_status st = tp__ox_val_add(cv, c->node->outputs[k], TP_NO_NODE, &c->out[k].shape,
                                      c->out[k].elem_type, c->out[k].value);
        c->out[k].value = NULL;
        if (st != TP_OK) return st;
    }
    return TP_OK;
}

/* One IR node per If output: a view of the taken branch's output, or an If
 * node reading both branches' outputs. */
static tp_status if_outputs(control_conv *cv, tp_ox_ctx *c, const body_io *ot, const body_io *oe) {
    if (cv->dry) return record_dry(cv, c);
    for (uint32_t k = 0; k < c->n_out; k++) {
        const char *oname = c->node->outputs[k];
        if (!oname[0]) continue;
        tp_dtype dt;
        tp_status st = tp_onnx_elem_type_to_dtype(c->out[k].elem_type, &dt, cv->err);
        if (st != TP_OK)
            return tp_ox_fail(c, st, "output '%s' has element type %s, which has no IR dtype",
                              oname, tp_onnx_elem_type_name(c->out[k].elem_type));
        tp_op op;
        memset(&op, 0, sizeof op);
        tp_node_id ids[2] = {ot[k].node, oe ? oe[k].node : TP_NO_NODE};
        uint32_t n_ids = oe && oe[k].node != ot[k].node ? 2 : 1;
        if (oe) {
            op.kind = TP_OP_IF;
        } else {
            op.kind = TP_OP_UNARY;
            op.sub = TP_UNARY_IDENTITY;
        }
        char buf[256];
        tp_node_id id;
        st = tp_graph_add_op_shaped(cv->g, &op, ids, n_ids, &c->out[k].shape, dt,
                                    tp__ox_ir_name(cv, oname, buf, sizeof buf), &id, cv->err);
        if (st != TP_OK) {
            tp_error_prefix(cv->err, "onnx: node '%s' (If): ", node_label(c));
            return st;
        }
        st = tp__ox_val_add(cv, oname, id, &c->out[k].shape, c->out[k].elem_type, c->out[k].value);
        c->out[k].value = NULL;
        if (st != TP_OK) return st;
    }
    return TP_OK;
}

static tp_status cf_if(control_conv *cv, tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    const tp_onnx_graph *t = attr_graph(c, "then_branch"), *e = attr_graph(c, "else_branch");
    if (!t || !e) return tp_ox_fail(c, TP_ERR_PARSE, "If without then/else branches");
    if (t->n_outputs != c->n_out || e->n_outputs != c->n_out)
        return tp_ox_fail(c, TP_ERR_SHAPE, "branches have %u/%u outputs, node %u", t->n_outputs,
                          e->n_outputs, c->n_out);
    int64_t cond;
    bool known =
        c->in[0].value && c->in[0].value->n >= 1 && tp_ox_value_int(c->in[0].value, 0, &cond);
    body_io *ot = io_new(cv, c->n_out), *oe = known ? NULL : io_new(cv, c->n_out);
    if (!ot || (!known && !oe)) {
        st = tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (known) {
        st = body_run(cv, c, cond ? "then_branch" : "else_branch", cond ? t : e, NULL, 0, ot);
        if (st == TP_OK) st = body_weights(cv, cond ? e : t);
    } else {
        st = body_run(cv, c, "then_branch", t, NULL, 0, ot);
        if (st == TP_OK) st = body_run(cv, c, "else_branch", e, NULL, 0, oe);
    }
    if (st != TP_OK) goto done;
    for (uint32_t k = 0; k < c->n_out; k++) {
        tp_ox_out *o = &c->out[k];
        o->shape = ot[k].shape;
        o->elem_type = ot[k].elem;
        if (known) {
            o->value = ot[k].value;
            ot[k].value = NULL;
            continue;
        }
        const tp_ox_seq *st_seq = ot[k].value ? ot[k].value->seq : NULL,
                        *se_seq = oe[k].value ? oe[k].value->seq : NULL;
        if (st_seq && se_seq) {
            if ((st = tp_ox_seq_if_output(c, k, st_seq, se_seq)) != TP_OK) goto done;
            continue;
        }
        if (ot[k].elem != oe[k].elem || ot[k].shape.rank != oe[k].shape.rank) {
            st = tp_ox_fail(c, TP_ERR_UNSUPPORTED,
                            "output %u: the branches differ in element type or rank and the "
                            "condition is unknown at plan time: bind what it depends on "
                            "(--dim; unnamed dims: unk_<input>_<axis>; --input-value)",
                            k);
            goto done;
        }
        for (int32_t d = 0; d < o->shape.rank; d++) {
            tp_dim a = ot[k].shape.dims[d], b = oe[k].shape.dims[d];
            if (!tp_graph_dim_equal(c->g, a, b) &&
                (st = tp_ox_dim(c, TP_SYM_MAX, a, b, &o->shape.dims[d])) != TP_OK)
                goto done;
        }
    }
    if ((st = tp__ox_check_outputs(cv, c)) != TP_OK) goto done;
    if ((st = if_outputs(cv, c, ot, oe)) != TP_OK) goto done;
    if (known)
        st = note(cv,
                  "If '%s': condition '%s' is %s at plan time (from constants, shapes, given "
                  "input values or dims given before loading); planned the %s only (weights "
                  "of both counted)",
                  node_label(c), c->in[0].name, cond ? "true" : "false",
                  cond ? "then_branch" : "else_branch");
    else
        st = note(cv,
                  "If '%s': condition '%s' is not known at plan time; both branches planned one "
                  "after the other (the plan covers the larger; weights of both counted)",
                  node_label(c), c->in[0].name);
done:
    io_free(cv, ot, c->n_out);
    io_free(cv, oe, c->n_out);
    return st;
}

/* A scalar IR node standing for a value the runtime provides each iteration
 * (Loop's iteration number and condition, a Scan slice). */
static tp_status iter_node(control_conv *cv, tp_ox_ctx *c, const char *kind, const char *name,
                           const tp_node_id *ids, uint32_t n_ids, body_io *b) {
    if (cv->dry) return TP_OK;
    tp_dtype dt;
    tp_status st = tp_onnx_elem_type_to_dtype(b->elem, &dt, cv->err);
    if (st != TP_OK) return tp_ox_fail(c, st, "body input '%s' has no IR dtype", name);
    tp_op op;
    memset(&op, 0, sizeof op);
    op.kind = TP_OP_CUSTOM;
    op.attrs.custom.name = kind;
    op.attrs.custom.n_inputs = (int32_t)n_ids;
    char buf[256];
    st = tp_graph_add_op_shaped(cv->g, &op, ids, n_ids, &b->shape, dt,
                                tp__ox_ir_name(cv, name, buf, sizeof buf), &b->node, cv->err);
    if (st == TP_OK)
        st = tp_graph_set_flags(cv->g, b->node, n_ids ? TP_NODE_DEVICE_KERNEL : TP_NODE_SHAPE_ONLY,
                                cv->err);
    return st;
}

/* A Loop's carried value k: before the loop init (its bind, updated to what
 * the last iteration starts from), after one iteration iter. A value that grows
 * (a Concat onto it, a list append) is sized for trip iterations: dims where
 * iter = init + g become init + trip x g (trip is M when known, else its
 * symbol, an upper bound when the condition can end the loop early). */
static tp_status carried_final(control_conv *cv, tp_ox_ctx *c, uint32_t k, tp_dim trip,
                               body_io *init, const body_io *iter, uint32_t *n_grow) {
    tp_ox_out *r = &c->out[k];
    bool grows = false;
    if (iter->value && iter->value->seq && init->value && init->value->seq) {
        tp_ox_seq *last = NULL;
        tp_status st =
            tp_ox_seq_loop(c, k, init->value->seq, iter->value->seq, trip, &last, &grows);
        if (st != TP_OK) return st;
        if (last) {
            tp_ox_value *lv = tp_ox_value_of_seq(cv->a, last);
            if (!lv) return tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
            tp_ox_value_free(cv->a, init->value);
            init->value = lv;
            if ((st = tp_ox_seq_total(c, lv->seq, &init->shape.dims[0])) != TP_OK) return st;
            init->shape.rank = 1;
        }
        *n_grow += grows;
        init->grown = grows;
        return TP_OK;
    }
    r->shape = iter->shape;
    if (iter->shape.rank != init->shape.rank || iter->elem != init->elem) return TP_OK;
    tp_shape last = init->shape;
    tp_dim before;
    tp_status st = tp_ox_dim(c, TP_SYM_MAX, trip, tp_dim_static(1), &before);
    if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_SUB, before, tp_dim_static(1), &before);
    for (int32_t d = 0; st == TP_OK && d < iter->shape.rank; d++) {
        tp_dim a = init->shape.dims[d], b = iter->shape.dims[d], g;
        if (tp_graph_dim_equal(c->g, a, b)) continue;
        if (tp_dim_is_static(a) && tp_dim_is_static(b)) {
            if (b.size < a.size) continue; /* shrinks: the first iteration is the largest */
            g = tp_dim_static(b.size - a.size);
        } else {
            /* b = a + g when the body added to a (the memo simplifies (a+g)-a) */
            if ((st = tp_ox_dim(c, TP_SYM_SUB, b, a, &g)) != TP_OK) return st;
            tp_dim back;
            if ((st = tp_ox_dim(c, TP_SYM_ADD, a, g, &back)) != TP_OK) return st;
            if (!tp_graph_dim_equal(c->g, back, b)) continue; /* not a growth by g */
        }
        tp_dim add;
        grows = true;
        if ((st = tp_ox_dim(c, TP_SYM_MUL, trip, g, &add)) == TP_OK)
            st = tp_ox_dim(c, TP_SYM_ADD, a, add, &r->shape.dims[d]);
        if (st == TP_OK && (st = tp_ox_dim(c, TP_SYM_MUL, before, g, &add)) == TP_OK)
            st = tp_ox_dim(c, TP_SYM_ADD, a, add, &last.dims[d]);
    }
    if (st == TP_OK && grows) {
        init->shape = last; /* the body is planned for its last iteration */
        init->grown = true;
        (*n_grow)++;
    }
    (void)cv;
    return st;
}

/* The Loop/Scan node itself (reading every present input), added before the
 * body so that its outputs are live during the iterations. */
static tp_status loop_node(control_conv *cv, tp_ox_ctx *c, tp_op_kind kind) {
    if (cv->dry) return record_dry(cv, c);
    tp_node_id *ids = tp_mem_alloc(cv->a, (c->n_in ? c->n_in : 1) * sizeof *ids);
    if (!ids) return tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->n_in; i++)
        if (c->in[i].present) ids[n++] = c->in[i].node;
    c->op.kind = kind;
    tp_status st = tp__ox_emit(cv, c, ids, n);
    tp_mem_free(cv->a, ids, (c->n_in ? c->n_in : 1) * sizeof *ids);
    return st;
}

static tp_status cf_loop(control_conv *cv, tp_ox_ctx *c) {
    if (c->n_in < 2) return tp_ox_fail(c, TP_ERR_PARSE, "Loop needs M and cond inputs");
    const tp_onnx_graph *body = attr_graph(c, "body");
    if (!body) return tp_ox_fail(c, TP_ERR_PARSE, "Loop without a body");
    uint32_t n_carried = c->n_in - 2;
    if (body->n_outputs != 1 + c->n_out || c->n_out < n_carried)
        return tp_ox_fail(c, TP_ERR_SHAPE, "body has %u outputs for %u loop outputs",
                          body->n_outputs, c->n_out);
    for (uint32_t k = 0; k < n_carried; k++)
        if (!c->in[2 + k].present)
            return tp_ox_fail(c, TP_ERR_PARSE, "loop-carried input %u is missing", k);
    tp_dim trip;
    tp_status st;
    int64_t m = -1;
    bool m_known = c->in[0].present && c->in[0].value && c->in[0].value->n >= 1 &&
                   tp_ox_value_int(c->in[0].value, 0, &m) && m >= 0 && m <= MAX_STATIC_TRIPS;
    const tp_ox_value *mv = c->in[0].present ? c->in[0].value : NULL;
    bool m_sym = !m_known && mv && !mv->is_float && mv->n >= 1 && !tp_dim_is_static(mv->d[0]);
    if (m_known)
        trip = tp_dim_static(m);
    else if (m_sym)
        trip = mv->d[0]; /* M = a dim, e.g. x.size(0) of a scripted for-loop */
    else if ((st = tp_ox_data_dim(c, "loop_trips", &trip)) != TP_OK)
        return st;
    uint32_t n_b = 2 + n_carried, n_grow = 0;
    body_io *binds = io_new(cv, n_b), *outs = io_new(cv, body->n_outputs);
    if (!binds || !outs) {
        st = tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    binds[0].shape.rank = 0;
    binds[0].elem = TP_ONNX_INT64;
    binds[1].shape.rank = 0;
    binds[1].elem = TP_ONNX_BOOL;
    /* the iteration number: a symbol of at most trip - 1 (x[i : i + 1] is one row); 0 itself
     * when the trip count is 1 (a scripted loop over a one-element list: torchvision's MViT
     * splits its class token so, slicing x[:, :, i : i + 1]) */
    tp_dim last_iter;
    if (!(binds[0].value = tp_ox_value_new(cv->a, 1, false))) {
        st = tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (m_known && m == 1)
        binds[0].value->d[0] = tp_dim_static(0);
    else if ((st = tp_ox_dim(c, TP_SYM_MAX, trip, tp_dim_static(1), &last_iter)) != TP_OK ||
             (st = tp_ox_dim(c, TP_SYM_SUB, last_iter, tp_dim_static(1), &last_iter)) != TP_OK ||
             (st = tp_ox_data_dim_upper(c, "loop_iter", last_iter, "the trip count - 1",
                                        &binds[0].value->d[0])) != TP_OK)
        goto done;
    for (uint32_t k = 0; k < n_carried; k++) {
        binds[2 + k].node = c->in[2 + k].node;
        binds[2 + k].shape = c->in[2 + k].shape;
        binds[2 + k].elem = c->in[2 + k].elem_type;
        const tp_ox_value *v = c->in[2 + k].value;
        if (v && v->seq && !(binds[2 + k].value = tp_ox_value_copy(cv->a, v))) {
            st = tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
            goto done;
        }
    }
    cv->dry++;
    st = body_run(cv, c, "body", body, binds, n_b, outs);
    cv->dry--;
    if (st != TP_OK) goto done;
    for (uint32_t k = 0; k < c->n_out; k++) {
        const body_io *o = &outs[1 + k];
        tp_ox_out *r = &c->out[k];
        r->elem_type = o->elem;
        if (k < n_carried) {
            if ((st = carried_final(cv, c, k, trip, &binds[2 + k], o, &n_grow)) != TP_OK) goto done;
            continue;
        }
        if (o->shape.rank + 1 > TP_MAX_RANK) {
            st = tp_ox_fail(c, TP_ERR_UNSUPPORTED, "scan output %u has too high a rank", k);
            goto done;
        }
        r->shape.rank = o->shape.rank + 1;
        r->shape.dims[0] = trip;
        for (int32_t d = 0; d < o->shape.rank; d++)
            r->shape.dims[d + 1] = o->shape.dims[d];
    }
    if ((st = tp__ox_check_outputs(cv, c)) != TP_OK) goto done;
    if ((st = loop_node(cv, c, TP_OP_LOOP)) != TP_OK || cv->dry) goto done;
    io_free(cv, outs, body->n_outputs);
    if (!(outs = io_new(cv, body->n_outputs))) {
        st = tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((st = iter_node(cv, c, "loop_iteration", body->inputs[0].name, NULL, 0, &binds[0])) !=
            TP_OK ||
        (st = iter_node(cv, c, "loop_condition", body->inputs[1].name, NULL, 0, &binds[1])) !=
            TP_OK)
        goto done;
    for (uint32_t k = 2; k < n_b; k++) {
        /* a growing value: the last iteration reads what trip - 1 iterations built */
        tp_node_id src = binds[k].node;
        if (binds[k].grown && (st = iter_node(cv, c, "loop_carried", body->inputs[k].name, &src, 1,
                                              &binds[k])) != TP_OK)
            goto done;
    }
    if ((st = body_run(cv, c, "body", body, binds, n_b, outs)) != TP_OK) goto done;
    char tb[160], sb[120];
    const char *ts = tp_graph_dim_str(cv->g, trip, sb, sizeof sb);
    if (m_sym)
        snprintf(tb, sizeof tb, "%s M = %s", c->in[1].present ? "at most" : "", ts);
    else if (!m_known)
        snprintf(tb, sizeof tb, "unknown: symbol '%s' (bind it)", ts);
    else
        snprintf(tb, sizeof tb, "%s %lld", c->in[1].present ? "at most M =" : "M =", (long long)m);
    st = note(cv,
              "Loop '%s': one iteration planned (%u carried values, %u scan outputs sized trip "
              "count x per iteration%s); trip count %s",
              node_label(c), n_carried, c->n_out - n_carried,
              n_grow ? "; carried values that grow each iteration sized for the last one" : "", tb);
done:
    io_free(cv, binds, n_b);
    io_free(cv, outs, body->n_outputs);
    return st;
}

/* Scan. Opset 8: (sequence_lens?, states..., scan inputs [batch, seq, ..]) with
 * outputs (states..., scan outputs [batch, seq, ..]); opset 9+: no batch axis,
 * scan_input_axes / scan_output_axes. */
static tp_status cf_scan(control_conv *cv, tp_ox_ctx *c) {
    const tp_onnx_graph *body = attr_graph(c, "body");
    if (!body) return tp_ox_fail(c, TP_ERR_PARSE, "Scan without a body");
    int64_t m = tp_ox_attr_int(c, "num_scan_inputs", 0);
    bool v8 = c->opset < 9;
    uint32_t first = v8 ? 1 : 0; /* opset 8: input 0 is sequence_lens */
    if (m <= 0 || (uint64_t)m + first > c->n_in)
        return tp_ox_fail(c, TP_ERR_PARSE, "num_scan_inputs %lld", (long long)m);
    uint32_t n_state = c->n_in - first - (uint32_t)m;
    if (body->n_outputs != c->n_out || c->n_out < n_state)
        return tp_ox_fail(c, TP_ERR_SHAPE, "body has %u outputs for %u Scan outputs",
                          body->n_outputs, c->n_out);
    for (uint32_t i = first; i < c->n_in; i++)
        if (!c->in[i].present) return tp_ox_fail(c, TP_ERR_PARSE, "input %u is missing", i);
    uint32_t na, no;
    const int64_t *in_axes = v8 ? NULL : tp_ox_attr_ints(c, "scan_input_axes", &na);
    const int64_t *out_axes = v8 ? NULL : tp_ox_attr_ints(c, "scan_output_axes", &no);
    uint32_t n_b = n_state + (uint32_t)m;
    body_io *binds = io_new(cv, n_b), *outs = io_new(cv, body->n_outputs);
    tp_status st = TP_OK;
    tp_dim len = tp_dim_static(0);
    if (!binds || !outs) {
        st = tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (uint32_t k = 0; k < n_b; k++) {
        const tp_ox_in *in = &c->in[first + k];
        body_io *b = &binds[k];
        b->node = in->node;
        b->elem = in->elem_type;
        int32_t lead = v8 ? 1 : 0; /* the batch axis */
        int64_t ax = -1;           /* the scanned axis (scan inputs) */
        if (k >= n_state) {
            uint32_t j = k - n_state;
            ax = v8 ? 1 : (in_axes && j < na ? in_axes[j] : 0);
            if (ax < 0) ax += in->shape.rank;
            if (ax < lead || ax >= in->shape.rank) {
                st = tp_ox_fail(c, TP_ERR_SHAPE, "bad scan input axis for input %u", k);
                goto done;
            }
            if (k == n_state) len = in->shape.dims[ax];
        }
        b->shape.rank = 0;
        for (int32_t d = lead; d < in->shape.rank; d++)
            if (d != ax) b->shape.dims[b->shape.rank++] = in->shape.dims[d];
        if (v8 && in->shape.rank < 1) {
            st = tp_ox_fail(c, TP_ERR_SHAPE, "input %u has no batch axis", k);
            goto done;
        }
    }
    cv->dry++;
    st = body_run(cv, c, "body", body, binds, n_b, outs);
    cv->dry--;
    if (st != TP_OK) goto done;
    for (uint32_t k = 0; k < c->n_out; k++) {
        if (k < n_state) {
            tp_ox_same(c, k, first + k);
            continue;
        }
        const tp_shape *per = &outs[k].shape;
        int32_t lead = v8 ? 1 : 0;
        int64_t ax = v8 ? 1 : (out_axes && k - n_state < no ? out_axes[k - n_state] : 0);
        int32_t r = per->rank + 1 + lead;
        if (r > TP_MAX_RANK) {
            st = tp_ox_fail(c, TP_ERR_UNSUPPORTED, "rank too large");
            goto done;
        }
        if (ax < 0) ax += r;
        if (ax < lead || ax >= r) {
            st = tp_ox_fail(c, TP_ERR_SHAPE, "bad scan output axis");
            goto done;
        }
        tp_shape *o = &c->out[k].shape;
        o->rank = r;
        if (v8) o->dims[0] = c->in[first].shape.dims[0];
        for (int32_t d = lead, j = 0; d < r; d++)
            o->dims[d] = d == ax ? len : per->dims[j++];
        c->out[k].elem_type = outs[k].elem;
    }
    if ((st = tp__ox_check_outputs(cv, c)) != TP_OK) goto done;
    if ((st = loop_node(cv, c, TP_OP_SCAN)) != TP_OK || cv->dry) goto done;
    io_free(cv, outs, body->n_outputs);
    if (!(outs = io_new(cv, body->n_outputs))) {
        st = tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (uint32_t k = v8 ? 0 : n_state; k < n_b && st == TP_OK; k++) {
        /* a slice per scan input (opset 8: per batch row of the states too) */
        tp_node_id src = binds[k].node;
        st = iter_node(cv, c, k < n_state ? "scan_state" : "scan_slice", body->inputs[k].name, &src,
                       1, &binds[k]);
    }
    if (st == TP_OK) st = body_run(cv, c, "body", body, binds, n_b, outs);
    if (st == TP_OK) {
        char lb[64];
        st = note(cv,
                  "Scan '%s': one iteration planned (%u state values, %u scan outputs sized "
                  "sequence length %s x per iteration)",
                  node_label(c), n_state, c->n_out - n_state,
                  tp_graph_dim_str(cv->g, len, lb, sizeof lb));
    }
done:
    io_free(cv, binds, n_b);
    io_free(cv, outs, body->n_outputs);
    return st;
}

tp_status tp__ox_control_flow(control_conv *cv, tp_ox_ctx *c, bool *handled) {
    const char *op = c->node->op_type;
    tp_status (*fn)(control_conv *, tp_ox_ctx *) = strcmp(op, "If") == 0     ? cf_if
                                                   : strcmp(op, "Loop") == 0 ? cf_loop
                                                   : strcmp(op, "Scan") == 0 ? cf_scan
                                                                             : NULL;
    *handled = fn != NULL;
    if (!fn) return TP_OK;
    /* the bodies reuse the converter's scratch: work on copies */
    uint32_t n_in = c->n_in, n_out = c->n_out;
    tp_ox_in *ins = tp_mem_alloc(cv->a, (n_in + 1) * sizeof *ins);
    tp_ox_out *outs = tp_mem_calloc(cv->a, n_out + 1, sizeof *outs);
    tp_status st;
    if (!ins || !outs) {
        st = tp_error_set(cv->err, TP_ERR_NOMEM, "onnx: out of memory (control flow)");
    } else {
        memcpy(ins, c->in, n_in * sizeof *ins);
        c->in = ins;
        c->out = outs;
        st = fn(cv, c);
        for (uint32_t k = 0; k < n_out; k++)
            tp_ox_value_free(cv->a, outs[k].value);
    }
    tp_mem_free(cv->a, ins, (n_in + 1) * sizeof *ins);
    tp_mem_free(cv->a, outs, (n_out + 1) * sizeof *outs);
    return st;
}
