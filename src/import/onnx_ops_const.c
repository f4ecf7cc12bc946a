/* ONNX shape rules: ops that make tensors from attributes or small value
 * inputs — Constant, ConstantOfShape, Range — and DepthToSpace / SpaceToDepth
 * (onnx_ops.h). */
#include <math.h>
#include <string.h>

#include "import/onnx_ops.h"

static tp_status const_nomem(tp_ox_ctx *c) {
    return tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
}

static bool value_dims(const tp_ox_value *v, tp_dim *out, int64_t cap, int64_t *n) {
    if (!v || v->is_float || v->n > cap) return false;
    for (int64_t i = 0; i < v->n; i++)
        out[i] = v->d[i];
    *n = v->n;
    return true;
}

static tp_status unknown_dims(tp_ox_ctx *c, uint32_t out, int64_t rank) {
    if (rank < 0 || rank > TP_MAX_RANK)
        return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "output rank %lld (at most %d supported)",
                          (long long)rank, TP_MAX_RANK);
    c->out[out].shape.rank = (int32_t)rank;
    for (int32_t k = 0; k < rank; k++) {
        tp_status st = tp_ox_unknown_dim(c, out, k, &c->out[out].shape.dims[k]);
        if (st != TP_OK) return st;
    }
    return TP_OK;
}

/* Shape (and dtype, fill value) of ConstantOfShape. */
static tp_status r_constant_of_shape(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    const tp_onnx_attr *va = tp__onnx_find_attr(c->node, "value");
    c->out[0].elem_type = va && va->t ? va->t->data_type : TP_ONNX_FLOAT;
    tp_shape *o = &c->out[0].shape;
    int64_t n;
    if (!value_dims(c->in[0].value, o->dims, TP_MAX_RANK, &n)) {
        const tp_shape *ss = &c->in[0].shape;
        if (ss->rank != 1 || !tp_dim_is_static(ss->dims[0]))
            return tp_ox_fail(c, TP_ERR_SHAPE, "shape input of unknown length");
        return unknown_dims(c, 0, ss->dims[0].size);
    }
    o->rank = (int32_t)n;
    for (int32_t k = 0; k < o->rank; k++)
        if (tp_dim_is_static(o->dims[k]) && o->dims[k].size < 0)
            return tp_ox_fail(c, TP_ERR_SHAPE, "negative dim %lld", (long long)o->dims[k].size);
    /* fill value, for ConstantOfShape -> Mul/Equal/Where chains feeding Expand */
    int64_t cnt;
    if (!tp_ox_shape_static_count(o, TP_OX_MAX_VALUES, &cnt)) return TP_OK;
    tp_ox_value *fill = NULL, *v;
    if (va && va->t) {
        if ((st = tp_ox_value_from_tensor(c->alloc, c->m, va->t, &fill, c->err)) != TP_OK)
            return st;
        if (!fill || fill->n < 1) {
            tp_ox_value_free(c->alloc, fill);
            return TP_OK;
        }
    } else if (!(fill = tp_ox_value_new(c->alloc, 1, true))) {
        return const_nomem(c);
    }
    v = tp_ox_value_new(c->alloc, cnt, fill->is_float);
    if (!v) {
        tp_ox_value_free(c->alloc, fill);
        return const_nomem(c);
    }
    for (int64_t i = 0; i < cnt; i++) {
        if (v->is_float)
            v->f[i] = fill->f[0];
        else
            v->d[i] = fill->d[0];
    }
    tp_ox_value_free(c->alloc, fill);
    tp_ox_set_value(c, 0, v);
    return TP_OK;
}

/* A zero step never reaches the limit: onnxruntime fails the node at run time. */
#define RANGE_DELTA_0 "delta (input 3) is 0: the range never reaches its limit"

static tp_status r_range(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 3, 3);
    if (st != TP_OK) return st;
    c->out[0].elem_type = c->in[0].elem_type;
    c->out[0].shape.rank = 1;
    tp_dim *len = &c->out[0].shape.dims[0];
    const tp_ox_value *s = c->in[0].value, *l = c->in[1].value, *d = c->in[2].value;
    if (!s || !l || !d || s->n != 1 || l->n != 1 || d->n != 1)
        return tp_ox_unknown_dim(c, 0, 0, len);
    if (s->is_float) {
        double a = s->f[0], b = l->f[0], step = d->f[0];
        if (isnan(a) || isnan(b) || isnan(step)) return tp_ox_unknown_dim(c, 0, 0, len);
        if (step == 0) return tp_ox_fail(c, TP_ERR_SHAPE, RANGE_DELTA_0);
        double q = (b - a) / step;
        if (!(q < 9.0e18)) return tp_ox_fail(c, TP_ERR_OVERFLOW, "Range of %g elements", q);
        int64_t n = q > 0 ? (int64_t)q + ((double)(int64_t)q < q) : 0;
        *len = tp_dim_static(n);
        return TP_OK;
    }
    int64_t step;
    if (!tp_ox_value_int(d, 0, &step)) return tp_ox_unknown_dim(c, 0, 0, len);
    if (step == 0) return tp_ox_fail(c, TP_ERR_SHAPE, RANGE_DELTA_0);
    tp_dim a = s->d[0], b = l->d[0];
    if (tp_dim_is_static(a) && tp_dim_is_static(b)) {
        int64_t diff;
        if (__builtin_sub_overflow(b.size, a.size, &diff) || step == INT64_MIN)
            return tp_ox_fail(c, TP_ERR_OVERFLOW, "Range length overflows");
        int64_t n = step > 0 ? (diff > 0 ? (diff + step - 1) / step : 0)
                             : (diff < 0 ? (-diff + (-step) - 1) / (-step) : 0);
        *len = tp_dim_static(n);
        if (n <= TP_OX_MAX_VALUES) {
            tp_ox_value *v = tp_ox_value_new(c->alloc, n, false);
            if (!v) return const_nomem(c);
            for (int64_t i = 0; i < n; i++)
                v->d[i] = tp_dim_static(a.size + i * step);
            tp_ox_set_value(c, 0, v);
        }
        return TP_OK;
    }
    if (step < 0) return tp_ox_unknown_dim(c, 0, 0, len);
    tp_dim diff;
    if (tp_dim_is_static(a) && a.size == 0)
        diff = b;
    else if ((st = tp_ox_dim(c, TP_SYM_SUB, b, a, &diff)) != TP_OK)
        return st;
    if (step == 1) {
        *len = diff;
        return TP_OK;
    }
    return tp_ox_dim(c, TP_SYM_DIV_CEIL, diff, tp_dim_static(step), len);
}

static tp_status r_constant(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 0, 0);
    if (st != TP_OK) return st;
    c->op.kind = TP_OP_CONSTANT;
    const tp_onnx_attr *a = tp__onnx_find_attr(c->node, "value");
    tp_ox_value *v = NULL;
    if (a && a->t) {
        const tp_onnx_tensor *t = a->t;
        if (t->rank > TP_MAX_RANK) return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "rank %u", t->rank);
        c->out[0].shape.rank = (int32_t)t->rank;
        for (uint32_t k = 0; k < t->rank; k++)
            c->out[0].shape.dims[k] = tp_dim_static(t->dims[k]);
        c->out[0].elem_type = t->data_type;
        if ((st = tp_ox_value_from_tensor(c->alloc, c->m, t, &v, c->err)) != TP_OK) return st;
        tp_ox_set_value(c, 0, v);
        return TP_OK;
    }
    if ((a = tp__onnx_find_attr(c->node, "value_float")) != NULL ||
        (a = tp__onnx_find_attr(c->node, "value_int")) != NULL) {
        bool fl = strcmp(a->name, "value_float") == 0;
        c->out[0].shape.rank = 0;
        c->out[0].elem_type = fl ? TP_ONNX_FLOAT : TP_ONNX_INT64;
        if (!(v = tp_ox_value_new(c->alloc, 1, fl))) return const_nomem(c);
        if (fl)
            v->f[0] = a->f;
        else
            v->d[0] = tp_dim_static(a->i);
        tp_ox_set_value(c, 0, v);
        return TP_OK;
    }
    if ((a = tp__onnx_find_attr(c->node, "value_floats")) != NULL ||
        (a = tp__onnx_find_attr(c->node, "value_ints")) != NULL) {
        bool fl = strcmp(a->name, "value_floats") == 0;
        int64_t n = fl ? a->n_floats : a->n_ints;
        c->out[0].shape = tp_shape_of(1, &n);
        c->out[0].elem_type = fl ? TP_ONNX_FLOAT : TP_ONNX_INT64;
        if (n <= TP_OX_MAX_VALUES) {
            if (!(v = tp_ox_value_new(c->alloc, n, fl))) return const_nomem(c);
            for (int64_t i = 0; i < n; i++) {
                if (fl)
                    v->f[i] = a->floats[i];
                else
                    v->d[i] = tp_dim_static(a->ints[i]);
            }
            tp_ox_set_value(c, 0, v);
        }
        return TP_OK;
    }
    if ((a = tp__onnx_find_attr(c->node, "value_strings")) != NULL ||
        (a = tp__onnx_find_attr(c->node, "value_string")) != NULL) {
        int64_t n = a->n_strings;
        c->out[0].shape =
            strcmp(a->name, "value_string") == 0 ? tp_shape_of(0, NULL) : tp_shape_of(1, &n);
        c->out[0].elem_type = TP_ONNX_STRING;
        return TP_OK;
    }
    return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "Constant without a supported value attribute");
}

static tp_status r_depth_space(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    if ((st = tp_ox_rank_check(c, 0, 4, 4)) != TP_OK) return st;
    int64_t b = tp_ox_attr_int(c, "blocksize", 0);
    if (b <= 0 || b > ((int64_t)1 << 31))
        return tp_ox_fail(c, TP_ERR_PARSE, "blocksize %lld", (long long)b);
    const tp_shape *x = &c->in[0].shape;
    tp_shape *o = &c->out[0].shape;
    *o = *x;
    bool d2s = strcmp(c->node->op_type, "DepthToSpace") == 0;
    tp_sym_op grow = d2s ? TP_SYM_MUL : TP_SYM_DIV_FLOOR,
              shrink = d2s ? TP_SYM_DIV_FLOOR : TP_SYM_MUL;
    st = tp_ox_dim(c, shrink, x->dims[1], tp_dim_static(b * b), &o->dims[1]);
    if (st == TP_OK) st = tp_ox_dim(c, grow, x->dims[2], tp_dim_static(b), &o->dims[2]);
    if (st == TP_OK) st = tp_ox_dim(c, grow, x->dims[3], tp_dim_static(b), &o->dims[3]);
    c->out[0].elem_type = c->in[0].elem_type;
    return st;
}

static const tp_ox_rule CONST_RULES[] = {
    {"ConstantOfShape", r_constant_of_shape},
    {"Range", r_range},
    {"Constant", r_constant},
    {"DepthToSpace", r_depth_space},
    {"SpaceToDepth", r_depth_space},
};

const tp_ox_rule *tp__ox_rules_const(size_t *n) {
    *n = sizeof CONST_RULES / sizeof CONST_RULES[0];
    return CONST_RULES;
}
