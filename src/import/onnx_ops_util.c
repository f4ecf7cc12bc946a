/* Helpers shared by the ONNX shape rules (onnx_ops.h): error messages with the
 * node context, fresh symbols, axes, broadcasting, attribute access and dim
 * arithmetic. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "import/onnx_ops.h"

static const char *ox_elem_name(int32_t e) {
    tp_dtype t;
    if (tp_onnx_elem_type_to_dtype(e, &t, NULL) == TP_OK) return tp_dtype_name(t);
    return tp_onnx_elem_type_name(e);
}

tp_status tp_ox_fail(tp_ox_ctx *c, tp_status s, const char *fmt, ...) {
    char msg[256], ins[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t p = 0;
    ins[0] = 0;
    for (uint32_t i = 0; i < c->n_in && p + 2 < sizeof ins; i++) {
        char sb[96];
        if (!c->in[i].present)
            snprintf(sb, sizeof sb, "-");
        else
            snprintf(sb, sizeof sb, "%s %s",
                     tp_graph_shape_str(c->g, &c->in[i].shape, (char[80]){0}, 80),
                     ox_elem_name(c->in[i].elem_type));
        int w = snprintf(ins + p, sizeof ins - p, "%s%s", i ? ", " : "", sb);
        if (w < 0) break;
        p += (size_t)w;
        if (p >= sizeof ins) p = sizeof ins - 1;
    }
    const tp_onnx_node *n = c->node;
    return tp_error_setx(c->err, s, n->offset, TP_NO_NODE,
                         "onnx: node '%s' (%s%s%s, opset %lld) with inputs (%s): %s",
                         n->name[0] ? n->name : (n->n_outputs ? n->outputs[0] : ""),
                         n->domain[0] ? n->domain : "", n->domain[0] ? ":" : "", n->op_type,
                         (long long)c->opset, ins, msg);
}

static tp_status sym_named(tp_ox_ctx *c, const char *name, tp_dim *d) {
    tp_status st = tp_graph_symbol(c->g, name, d, c->err);
    return st;
}

tp_status tp_ox_unknown_dim(tp_ox_ctx *c, uint32_t out, int32_t axis, tp_dim *d) {
    char name[200];
    const char *on = out < c->node->n_outputs ? c->node->outputs[out] : c->node->name;
    snprintf(name, sizeof name, "unk_%s_%d", on, (int)axis);
    return sym_named(c, name, d);
}

tp_status tp_ox_data_dim(tp_ox_ctx *c, const char *what, tp_dim *d) {
    char name[200];
    const char *on = c->node->n_outputs ? c->node->outputs[0] : c->node->name;
    snprintf(name, sizeof name, "%s_%s", what, on);
    return sym_named(c, name, d);
}

tp_status tp_ox_data_dim_upper(tp_ox_ctx *c, const char *what, tp_dim upper, const char *how,
                               tp_dim *d) {
    tp_status st = tp_ox_data_dim(c, what, d);
    if (st != TP_OK || tp_dim_is_static(*d)) return st;
    char why[320], ub[120];
    snprintf(why, sizeof why, "%s '%s': at most %s = %s", c->node->op_type,
             c->node->n_outputs ? c->node->outputs[0] : c->node->name, how,
             tp_graph_dim_str(c->g, upper, ub, sizeof ub));
    return tp_graph_symbol_set_upper(c->g, *d, upper, why, c->err);
}

tp_status tp_ox_arity(tp_ox_ctx *c, uint32_t lo, uint32_t hi) {
    uint32_t n = c->n_in;
    while (n > 0 && !c->in[n - 1].present)
        n--;
    if (n < lo || n > hi)
        return tp_ox_fail(c, TP_ERR_PARSE, "expects %u to %u inputs, has %u", lo, hi, n);
    for (uint32_t i = 0; i < lo; i++)
        if (!c->in[i].present)
            return tp_ox_fail(c, TP_ERR_PARSE, "required input %u is missing", i);
    return TP_OK;
}

tp_status tp_ox_axis(tp_ox_ctx *c, int64_t axis, int32_t rank, int64_t *out) {
    int64_t a = axis < 0 ? axis + rank : axis;
    *out = 0; /* defined on failure too: inlined callers need not initialise it */
    if (a < 0 || a >= (rank ? rank : 1))
        return tp_ox_fail(c, TP_ERR_SHAPE, "axis %lld is out of range for rank %d", (long long)axis,
                          (int)rank);
    *out = a;
    return TP_OK;
}

tp_status tp_ox_broadcast(tp_ox_ctx *c, const tp_shape *const *shapes, uint32_t n, tp_shape *out) {
    int32_t rank = 0;
    for (uint32_t i = 0; i < n; i++)
        if (shapes[i]->rank > rank) rank = shapes[i]->rank;
    out->rank = rank;
    for (int32_t k = 0; k < rank; k++) {
        tp_dim r = tp_dim_static(1);
        for (uint32_t i = 0; i < n; i++) {
            int32_t ik = k - (rank - shapes[i]->rank);
            if (ik < 0) continue;
            tp_dim d = shapes[i]->dims[ik];
            if (tp_dim_is_static(d) && d.size == 1) continue;
            if (tp_dim_is_static(r) && r.size == 1) {
                r = d;
            } else if (tp_graph_dim_equal(c->g, r, d)) {
                continue;
            } else if (tp_dim_is_static(r) && tp_dim_is_static(d)) {
                return tp_ox_fail(c, TP_ERR_SHAPE, "cannot broadcast dim %d: %lld vs %lld", (int)k,
                                  (long long)r.size, (long long)d.size);
            } else if (tp_dim_is_static(d)) {
                r = d; /* symbolic vs n > 1: must be n (or 1) */
            } else if (!tp_dim_is_static(r)) {
                tp_status st = tp_ox_sym_expr(c->syms, TP_SYM_MAX, r, d, &r, c->err);
                if (st != TP_OK) return st;
            }
        }
        out->dims[k] = r;
    }
    return TP_OK;
}

void tp_ox_ir_inputs(tp_ox_ctx *c, uint32_t n, const int32_t *idx) {
    c->n_ir_in = 0;
    for (uint32_t i = 0; i < n && c->n_ir_in < 64; i++)
        if (idx[i] >= 0 && (uint32_t)idx[i] < c->n_in && c->in[idx[i]].present)
            c->ir_in[c->n_ir_in++] = idx[i];
    c->ir_in_set = true;
}

bool tp_ox_input_ints(const tp_ox_ctx *c, uint32_t i, int64_t *out, int64_t cap, int64_t *n) {
    if (i >= c->n_in || !c->in[i].present || !c->in[i].value) return false;
    const tp_ox_value *v = c->in[i].value;
    if (v->n > cap) return false;
    for (int64_t k = 0; k < v->n; k++)
        if (!tp_ox_value_int(v, k, &out[k])) return false;
    *n = v->n;
    return true;
}

const int64_t *tp_ox_attr_ints(const tp_ox_ctx *c, const char *name, uint32_t *n) {
    const tp_onnx_attr *a = tp__onnx_find_attr(c->node, name);
    if (!a || (a->type != TP_ONNX_ATTR_INTS && a->type != TP_ONNX_ATTR_UNDEFINED)) {
        *n = 0;
        return NULL;
    }
    *n = a->n_ints;
    return a->ints;
}

const float *tp_ox_attr_floats(const tp_ox_ctx *c, const char *name, uint32_t *n) {
    const tp_onnx_attr *a = tp__onnx_find_attr(c->node, name);
    if (!a || a->type != TP_ONNX_ATTR_FLOATS) {
        *n = 0;
        return NULL;
    }
    *n = a->n_floats;
    return a->floats;
}

int64_t tp_ox_attr_int(const tp_ox_ctx *c, const char *name, int64_t dflt) {
    return tp__onnx_attr_int(c->node, name, dflt);
}
float tp_ox_attr_float(const tp_ox_ctx *c, const char *name, float dflt) {
    return tp__onnx_attr_float(c->node, name, dflt);
}
const char *tp_ox_attr_str(const tp_ox_ctx *c, const char *name, const char *dflt) {
    return tp__onnx_attr_str(c->node, name, dflt);
}
bool tp_ox_has_attr(const tp_ox_ctx *c, const char *name) {
    return tp__onnx_find_attr(c->node, name) != NULL;
}

tp_status tp_ox_dim(tp_ox_ctx *c, tp_sym_op op, tp_dim a, tp_dim b, tp_dim *out) {
    tp_status st = tp_ox_sym_expr(c->syms, op, a, b, out, c->err);
    if (st != TP_OK) return tp_ox_fail(c, st, "dim arithmetic: %s", c->err ? c->err->msg : "");
    return TP_OK;
}

tp_status tp_ox_prod(tp_ox_ctx *c, const tp_shape *s, int32_t from, int32_t to, tp_dim *out) {
    tp_dim r = tp_dim_static(1);
    for (int32_t k = from; k < to; k++) {
        tp_status st = tp_ox_dim(c, TP_SYM_MUL, r, s->dims[k], &r);
        if (st != TP_OK) return st;
    }
    *out = r;
    return TP_OK;
}

void tp_ox_same(tp_ox_ctx *c, uint32_t out, uint32_t in) {
    c->out[out].shape = c->in[in].shape;
    c->out[out].elem_type = c->in[in].elem_type;
}

tp_status tp_ox_rank_check(tp_ox_ctx *c, uint32_t i, int32_t lo, int32_t hi) {
    int32_t r = c->in[i].shape.rank;
    if (r < lo || r > hi)
        return tp_ox_fail(c, TP_ERR_SHAPE, "input %u has rank %d, expected %d..%d", i, (int)r,
                          (int)lo, (int)hi);
    return TP_OK;
}

void tp_ox_set_value(tp_ox_ctx *c, uint32_t out, tp_ox_value *v) {
    tp_ox_value_free(c->alloc, c->out[out].value);
    c->out[out].value = v;
}

/* Rebuild a dim a shape rule derived through the importer's simplifier
 * (bottom-up): dims of the inputs are kept as they are. */
static tp_status rebuild(tp_ox_ctx *c, const tp_shape *const *in, uint32_t n, tp_dim *d,
                         int depth) {
    for (uint32_t i = 0; i < n; i++)
        for (int32_t k = 0; k < in[i]->rank; k++)
            if (tp_graph_dim_equal(c->g, in[i]->dims[k], *d)) return TP_OK;
    tp_sym_op op;
    tp_dim a, b;
    if (depth <= 0 || !tp_graph_dim_def(c->g, *d, &op, &a, &b)) return TP_OK;
    tp_status st = rebuild(c, in, n, &a, depth - 1);
    if (st == TP_OK) st = rebuild(c, in, n, &b, depth - 1);
    if (st == TP_OK) st = tp_ox_dim(c, op, a, b, d);
    return st;
}

/* The IR op's output shape from its inputs' (shapes and dts: room for cap of them). */
static tp_status ir_shape_of(tp_ox_ctx *c, uint32_t out, const tp_shape **shapes, tp_dtype *dts,
                             uint32_t cap) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < cap; k++) {
        uint32_t i = c->ir_in_set ? (uint32_t)c->ir_in[k] : k;
        if (i >= c->n_in || !c->in[i].present) continue;
        shapes[n] = &c->in[i].shape;
        if (tp_onnx_elem_type_to_dtype(c->in[i].elem_type, &dts[n], NULL) != TP_OK)
            return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "input %u has element type %s, no IR dtype", i,
                              ox_elem_name(c->in[i].elem_type));
        n++;
    }
    tp_shape s;
    tp_dtype dt;
    bool has_rule = false;
    tp_status st = tp_graph_infer_shape(c->g, &c->op, shapes, dts, n, &s, &dt, &has_rule, c->err);
    if (st != TP_OK) return tp_ox_fail(c, st, "%s", c->err ? c->err->msg : "shape rule");
    if (!has_rule)
        return tp_ox_fail(c, TP_ERR_INVALID, "the IR op %s has no shape rule", tp_op_name(&c->op));
    /* the importer's simplifications (max(a, b) = b when a <= b is provable, ...) on
     * what the rule built: a dim the rule derived is rebuilt through tp_ox_dim */
    for (int32_t d = 0; d < s.rank; d++)
        if ((st = rebuild(c, shapes, n, &s.dims[d], 8)) != TP_OK) return st;
    c->out[out].shape = s;
    return TP_OK;
}

tp_status tp_ox_ir_shape(tp_ox_ctx *c, uint32_t out) {
    /* inputs on the stack up to 64, beyond (a Concat of a detector's 90 per-class results) on
     * the heap */
    const tp_shape *shapes_small[64];
    tp_dtype dts_small[64];
    const tp_shape **shapes = shapes_small;
    tp_dtype *dts = dts_small;
    uint32_t cap = c->ir_in_set ? c->n_ir_in : c->n_in;
    if (cap > 64) {
        shapes = tp_mem_alloc(c->alloc, (size_t)cap * sizeof *shapes);
        dts = tp_mem_alloc(c->alloc, (size_t)cap * sizeof *dts);
        if (!shapes || !dts) {
            tp_mem_free(c->alloc, shapes, (size_t)cap * sizeof *shapes);
            tp_mem_free(c->alloc, dts, (size_t)cap * sizeof *dts);
            return tp_ox_fail(c, TP_ERR_NOMEM, "out of memory (%u inputs)", cap);
        }
    }
    tp_status st = ir_shape_of(c, out, shapes, dts, cap);
    if (cap > 64) {
        tp_mem_free(c->alloc, shapes, (size_t)cap * sizeof *shapes);
        tp_mem_free(c->alloc, dts, (size_t)cap * sizeof *dts);
    }
    return st;
}
