/* ONNX shape rules: shape-manipulating ops and the ones that carry values for
 * value propagation — Shape, Size, Reshape, Flatten, Transpose, Squeeze,
 * Unsqueeze, Concat, Split, Slice, Expand, Tile, Pad (onnx_ops.h). */
#include <string.h>

#include "import/onnx_ops.h"

static tp_status shape_nomem(tp_ox_ctx *c) {
    return tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
}

/* Pass the input's value through unchanged (data order is preserved). */
static tp_status pass_value(tp_ox_ctx *c) {
    if (!c->in[0].value) return TP_OK;
    tp_ox_value *v = tp_ox_value_copy(c->alloc, c->in[0].value);
    if (!v) return shape_nomem(c);
    tp_ox_set_value(c, 0, v);
    return TP_OK;
}

/* Integer list from input i (opset >= 13 style) or attribute name. *from_input
 * tells which; returns false when neither gives known static values. */
static bool ints_from(tp_ox_ctx *c, uint32_t i, const char *attr, int64_t *out, int64_t cap,
                      int64_t *n, bool *absent) {
    *absent = false;
    if (i < c->n_in && c->in[i].present) return tp_ox_input_ints(c, i, out, cap, n);
    uint32_t na;
    const int64_t *a = attr ? tp_ox_attr_ints(c, attr, &na) : NULL;
    if (!a) {
        *absent = true;
        *n = 0;
        return true;
    }
    if (na > cap) return false;
    for (uint32_t k = 0; k < na; k++)
        out[k] = a[k];
    *n = na;
    return true;
}

static tp_status r_shape(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    int64_t r = x->rank, s = tp_ox_attr_int(c, "start", 0), e = tp_ox_attr_int(c, "end", r);
    if (s < 0) s += r;
    if (e < 0) e += r;
    s = s < 0 ? 0 : s > r ? r : s;
    e = e < 0 ? 0 : e > r ? r : e;
    int64_t n = e > s ? e - s : 0;
    c->out[0].shape = tp_shape_of(1, &n);
    c->out[0].elem_type = TP_ONNX_INT64;
    c->node_flags |= TP_NODE_SHAPE_ONLY;
    tp_ox_value *v = tp_ox_value_new(c->alloc, n, false);
    if (!v) return shape_nomem(c);
    for (int64_t k = 0; k < n; k++)
        v->d[k] = x->dims[s + k];
    tp_ox_set_value(c, 0, v);
    return TP_OK;
}

static tp_status r_size(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    c->out[0].shape.rank = 0;
    c->out[0].elem_type = TP_ONNX_INT64;
    c->node_flags |= TP_NODE_SHAPE_ONLY;
    tp_dim p;
    if ((st = tp_ox_prod(c, &c->in[0].shape, 0, c->in[0].shape.rank, &p)) != TP_OK) return st;
    tp_ox_value *v = tp_ox_value_new(c->alloc, 1, false);
    if (!v) return shape_nomem(c);
    v->d[0] = p;
    tp_ox_set_value(c, 0, v);
    return TP_OK;
}

/* Reshape target from values (0 copies, -1 inferred by cancelling equal dims). */
static tp_status reshape_target(tp_ox_ctx *c, const tp_shape *in, const tp_ox_value *v,
                                bool allowzero, tp_shape *o) {
    if (v->n > TP_MAX_RANK)
        return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "reshape to rank %lld", (long long)v->n);
    o->rank = (int32_t)v->n;
    int32_t infer = -1;
    for (int32_t k = 0; k < o->rank; k++) {
        tp_dim d = v->d[k];
        if (v->is_float) return tp_ox_fail(c, TP_ERR_PARSE, "float shape tensor");
        if (tp_dim_is_static(d) && d.size == 0 && !allowzero) {
            if (k >= in->rank)
                return tp_ox_fail(c, TP_ERR_SHAPE,
                                  "0 in shape copies dim %d of "
                                  "a rank-%d input",
                                  (int)k, (int)in->rank);
            d = in->dims[k];
        } else if (tp_dim_is_static(d) && d.size == -1) {
            if (infer >= 0) return tp_ox_fail(c, TP_ERR_SHAPE, "more than one -1 in shape");
            infer = k;
        } else if (tp_dim_is_static(d) && d.size < 0) {
            return tp_ox_fail(c, TP_ERR_SHAPE, "negative dim %lld in shape", (long long)d.size);
        }
        o->dims[k] = d;
    }
    if (infer < 0) return TP_OK;
    /* -1: product(in) / product(others), after cancelling provably equal dims */
    bool used_in[TP_MAX_RANK] = {0}, used_out[TP_MAX_RANK] = {0};
    for (int32_t k = 0; k < o->rank; k++) {
        if (k == infer || tp_dim_is_static(o->dims[k])) continue;
        for (int32_t j = 0; j < in->rank; j++)
            if (!used_in[j] && tp_graph_dim_equal(c->g, in->dims[j], o->dims[k])) {
                used_in[j] = used_out[k] = true;
                break;
            }
    }
    tp_dim num = tp_dim_static(1), den = tp_dim_static(1);
    int64_t snum = 1, sden = 1;
    tp_status st;
    for (int32_t j = 0; j < in->rank; j++) {
        if (used_in[j]) continue;
        if (tp_dim_is_static(in->dims[j])) {
            if (__builtin_mul_overflow(snum, in->dims[j].size, &snum))
                return tp_ox_fail(c, TP_ERR_OVERFLOW, "element count overflows");
        } else if ((st = tp_ox_dim(c, TP_SYM_MUL, num, in->dims[j], &num)) != TP_OK) {
            return st;
        }
    }
    for (int32_t k = 0; k < o->rank; k++) {
        if (used_out[k] || k == infer) continue;
        if (tp_dim_is_static(o->dims[k])) {
            if (__builtin_mul_overflow(sden, o->dims[k].size, &sden))
                return tp_ox_fail(c, TP_ERR_OVERFLOW, "element count overflows");
        } else if ((st = tp_ox_dim(c, TP_SYM_MUL, den, o->dims[k], &den)) != TP_OK) {
            return st;
        }
    }
    if (!tp_dim_is_static(den)) {
        /* symbolic divisor left over: cannot simplify, divide the full expression */
        if ((st = tp_ox_dim(c, TP_SYM_MUL, num, tp_dim_static(snum), &num)) != TP_OK) return st;
        if ((st = tp_ox_dim(c, TP_SYM_MUL, den, tp_dim_static(sden), &den)) != TP_OK) return st;
        return tp_ox_dim(c, TP_SYM_DIV_FLOOR, num, den, &o->dims[infer]);
    }
    if (sden == 0) return tp_ox_fail(c, TP_ERR_SHAPE, "-1 with a zero-sized dim");
    if (snum % sden == 0) {
        snum /= sden;
        sden = 1;
    }
    if ((st = tp_ox_dim(c, TP_SYM_MUL, num, tp_dim_static(snum), &num)) != TP_OK) return st;
    if (sden != 1 && tp_dim_is_static(num) && num.size % sden != 0)
        return tp_ox_fail(c, TP_ERR_SHAPE, "cannot reshape %lld elements with -1 and %lld others",
                          (long long)num.size, (long long)sden);
    if (sden == 1) {
        o->dims[infer] = num;
        return TP_OK;
    }
    return tp_ox_dim(c, TP_SYM_DIV_FLOOR, num, tp_dim_static(sden), &o->dims[infer]);
}

static tp_status shape_unknown_dims(tp_ox_ctx *c, uint32_t out, int64_t rank) {
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

static tp_status r_reshape(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 2);
    if (st != TP_OK) return st;
    c->out[0].elem_type = c->in[0].elem_type;
    c->op.kind = TP_OP_RESHAPE;
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    bool allowzero = tp_ox_attr_int(c, "allowzero", 0) != 0;
    if (c->n_in < 2 || !c->in[1].present) { /* opset < 5: attribute */
        uint32_t n;
        const int64_t *a = tp_ox_attr_ints(c, "shape", &n);
        if (!a) return tp_ox_fail(c, TP_ERR_PARSE, "Reshape without a shape");
        tp_ox_value *v = tp_ox_value_new(c->alloc, n, false);
        if (!v) return shape_nomem(c);
        for (uint32_t k = 0; k < n; k++)
            v->d[k] = tp_dim_static(a[k]);
        st = reshape_target(c, &c->in[0].shape, v, allowzero, &c->out[0].shape);
        tp_ox_value_free(c->alloc, v);
    } else if (c->in[1].value) {
        st = reshape_target(c, &c->in[0].shape, c->in[1].value, allowzero, &c->out[0].shape);
    } else {
        const tp_shape *ss = &c->in[1].shape;
        if (ss->rank != 1 || !tp_dim_is_static(ss->dims[0]))
            return tp_ox_fail(c, TP_ERR_SHAPE, "shape input of unknown length");
        st = shape_unknown_dims(c, 0, ss->dims[0].size);
    }
    if (st != TP_OK) return st;
    return pass_value(c);
}

static tp_status r_flatten(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    int64_t axis = tp_ox_attr_int(c, "axis", 1);
    if (axis < 0) axis += x->rank;
    c->out[0].elem_type = c->in[0].elem_type;
    c->op.kind = TP_OP_FLATTEN;
    c->op.attrs.axis.axis = axis;
    if ((st = tp_ox_ir_shape(c, 0)) != TP_OK) return st; /* axis checked there */
    return pass_value(c);
}

/* Values through a strided index map (both shapes static): the input coord on
 * axis src[k] is start[k] + out_coord[k] * step[k]. Slice and Transpose. */
static tp_status map_values(tp_ox_ctx *c, const tp_shape *in, const tp_shape *out,
                            const int32_t *src, const int64_t *start, const int64_t *step) {
    int64_t n_in, n_out;
    if (!c->in[0].value || !tp_ox_shape_static_count(in, TP_OX_MAX_VALUES, &n_in) ||
        !tp_ox_shape_static_count(out, TP_OX_MAX_VALUES, &n_out) || c->in[0].value->n != n_in)
        return TP_OK;
    int64_t map[TP_OX_MAX_VALUES], stride[TP_MAX_RANK];
    int64_t acc = 1;
    for (int32_t k = in->rank - 1; k >= 0; k--) {
        stride[k] = acc;
        acc *= in->dims[k].size;
    }
    for (int64_t i = 0; i < n_out; i++) {
        int64_t rem = i, idx = 0;
        for (int32_t k = out->rank - 1; k >= 0; k--) {
            int64_t d = out->dims[k].size, coord = d ? rem % d : 0;
            rem = d ? rem / d : 0;
            int64_t ic = start[k] + coord * step[k];
            if (ic < 0 || ic >= in->dims[src[k]].size) return TP_OK;
            idx += ic * stride[src[k]];
        }
        map[i] = idx;
    }
    tp_ox_value *v = NULL;
    tp_status st = tp_ox_value_pick(c->alloc, c->in[0].value, map, n_out, &v, c->err);
    if (st == TP_OK) tp_ox_set_value(c, 0, v);
    return st;
}

static tp_status r_transpose(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    uint32_t n;
    const int64_t *perm = tp_ox_attr_ints(c, "perm", &n);
    if (perm && n != (uint32_t)x->rank)
        return tp_ox_fail(c, TP_ERR_SHAPE, "perm has %u entries for rank %d", n, (int)x->rank);
    tp_shape *o = &c->out[0].shape;
    c->op.kind = TP_OP_TRANSPOSE;
    for (int32_t k = 0; k < x->rank; k++) {
        int64_t p = perm ? perm[k] : x->rank - 1 - k;
        if (p < -x->rank || p >= x->rank)
            return tp_ox_fail(c, TP_ERR_SHAPE, "perm is not a permutation");
        c->op.attrs.transpose.perm[k] = (int32_t)(p < 0 ? p + x->rank : p);
    }
    c->out[0].elem_type = c->in[0].elem_type;
    if ((st = tp_ox_ir_shape(c, 0)) != TP_OK) return st; /* checks the permutation */
    int32_t src[TP_MAX_RANK];
    int64_t zero[TP_MAX_RANK] = {0}, one[TP_MAX_RANK];
    for (int32_t k = 0; k < x->rank; k++) {
        src[k] = c->op.attrs.transpose.perm[k];
        one[k] = 1;
    }
    return map_values(c, x, o, src, zero, one);
}

static tp_status r_squeeze(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 2);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    int64_t axes[TP_MAX_RANK], n;
    bool absent;
    if (!ints_from(c, 1, "axes", axes, TP_MAX_RANK, &n, &absent))
        return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "Squeeze axes are not known statically");
    bool drop[TP_MAX_RANK] = {0};
    if (absent) {
        for (int32_t k = 0; k < x->rank; k++)
            drop[k] = tp_dim_is_static(x->dims[k]) && x->dims[k].size == 1;
    }
    c->op.kind = TP_OP_SQUEEZE;
    c->op.attrs.axes.n_axes = (int32_t)n;
    for (int64_t i = 0; i < n; i++) {
        int64_t a;
        if ((st = tp_ox_axis(c, axes[i], x->rank, &a)) != TP_OK) return st;
        c->op.attrs.axes.axes[i] = a;
    }
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    if ((st = tp_ox_ir_shape(c, 0)) != TP_OK) return st; /* n = 0: every static 1 */
    if (absent) {
        c->op.attrs.axes.n_axes = 0;
        for (int32_t k = 0; k < x->rank; k++)
            if (drop[k]) c->op.attrs.axes.axes[c->op.attrs.axes.n_axes++] = k;
    }
    c->out[0].elem_type = c->in[0].elem_type;
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    return pass_value(c);
}

static tp_status r_unsqueeze(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 2);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    int64_t axes[TP_MAX_RANK], n;
    bool absent;
    if (!ints_from(c, 1, "axes", axes, TP_MAX_RANK, &n, &absent) || absent)
        return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "Unsqueeze axes are not known statically");
    int32_t r = x->rank + (int32_t)n;
    if (r > TP_MAX_RANK) return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "rank %d too large", (int)r);
    c->op.kind = TP_OP_UNSQUEEZE;
    c->op.attrs.axes.n_axes = (int32_t)n;
    for (int64_t i = 0; i < n; i++)
        c->op.attrs.axes.axes[i] = axes[i];
    c->out[0].elem_type = c->in[0].elem_type;
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    if ((st = tp_ox_ir_shape(c, 0)) != TP_OK) return st; /* axes checked there */
    return pass_value(c);
}

static tp_status r_concat(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, c->n_in ? c->n_in : 1);
    if (st != TP_OK) return st;
    const tp_shape *x0 = &c->in[0].shape;
    int64_t axis;
    if ((st = tp_ox_axis(c, tp_ox_attr_int(c, "axis", 0), x0->rank, &axis)) != TP_OK) return st;
    tp_shape *o = &c->out[0].shape;
    bool all_values = true;
    c->out[0].elem_type = c->in[0].elem_type;
    c->op.kind = TP_OP_CONCAT;
    c->op.attrs.axis.axis = axis;
    if ((st = tp_ox_ir_shape(c, 0)) != TP_OK) return st;
    for (uint32_t i = 0; i < c->n_in; i++)
        if (!c->in[i].value) all_values = false;
    if (all_values && c->n_in <= 64) {
        const tp_ox_value *vs[64];
        const tp_shape *ss[64];
        for (uint32_t i = 0; i < c->n_in; i++) {
            vs[i] = c->in[i].value;
            ss[i] = &c->in[i].shape;
        }
        tp_ox_value *v = NULL;
        st = tp_ox_value_concat(c->alloc, vs, ss, c->n_in, axis, o, &v, c->err);
        if (st != TP_OK) return st;
        tp_ox_set_value(c, 0, v);
    }
    return TP_OK;
}

static tp_status r_split(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 2);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    int64_t axis;
    if ((st = tp_ox_axis(c, tp_ox_attr_int(c, "axis", 0), x->rank, &axis)) != TP_OK) return st;
    int64_t sizes[64], n;
    bool absent;
    if (c->n_out > 64) return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "more than 64 outputs");
    if (!ints_from(c, 1, "split", sizes, 64, &n, &absent))
        return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "split sizes are not known statically");
    tp_dim d = x->dims[axis];
    tp_dim piece[64];
    if (!absent) {
        if (n != c->n_out)
            return tp_ox_fail(c, TP_ERR_SHAPE, "%lld split sizes for %u outputs", (long long)n,
                              c->n_out);
        for (int64_t i = 0; i < n; i++)
            piece[i] = tp_dim_static(sizes[i]);
    } else {
        int64_t parts = tp_ox_attr_int(c, "num_outputs", c->n_out);
        if (parts <= 0 || parts != c->n_out)
            return tp_ox_fail(c, TP_ERR_SHAPE, "num_outputs %lld for %u outputs", (long long)parts,
                              c->n_out);
        if (tp_dim_is_static(d)) {
            int64_t each = d.size / parts + (d.size % parts != 0);
            for (int64_t i = 0; i < parts; i++) {
                int64_t rem = d.size - each * i;
                piece[i] = tp_dim_static(rem < each ? (rem > 0 ? rem : 0) : each);
            }
        } else {
            tp_dim each;
            if ((st = tp_ox_dim(c, TP_SYM_DIV_CEIL, d, tp_dim_static(parts), &each)) != TP_OK)
                return st;
            for (int64_t i = 0; i < parts; i++)
                piece[i] = each;
            if (parts > 1) {
                tp_dim used;
                st = tp_ox_dim(c, TP_SYM_MUL, each, tp_dim_static(parts - 1), &used);
                if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_SUB, d, used, &piece[parts - 1]);
                if (st != TP_OK) return st;
            }
        }
    }
    int64_t start = 0;
    for (uint32_t k = 0; k < c->n_out; k++) {
        c->out[k].shape = *x;
        c->out[k].shape.dims[axis] = piece[k];
        c->out[k].elem_type = c->in[0].elem_type;
        if (k == 0) {
            c->op.kind = TP_OP_SPLIT;
            c->op.attrs.narrow.axis = axis;
            c->op.attrs.narrow.start = 0;
            c->op.attrs.narrow.length = tp_dim_is_static(piece[0]) ? piece[0].size : -1;
            if (!tp_dim_is_static(piece[0])) c->op.kind = TP_OP_CUSTOM;
        }
        if (tp_dim_is_static(piece[k])) start += piece[k].size;
    }
    (void)start;
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    return TP_OK;
}

/* Length of a slice of a dim of size d, start/end as dims (static may be negative). */
static tp_status slice_len(tp_ox_ctx *c, tp_dim d, tp_dim s, tp_dim e, int64_t step, tp_dim *len,
                           int64_t *s_static) {
    *s_static = -1;
    tp_status st;
    if (tp_dim_is_static(d) && tp_dim_is_static(s) && tp_dim_is_static(e)) {
        int64_t n = d.size, a = s.size, b = e.size;
        if (step > 0) {
            if (a < 0) a += n;
            if (b < 0) b += n;
            a = a < 0 ? 0 : a > n ? n : a;
            b = b < 0 ? 0 : b > n ? n : b;
            *len = tp_dim_static(b > a ? (b - a - 1) / step + 1 : 0);
        } else {
            if (a < 0) a += n;
            if (b < 0) b += n;
            a = a < 0 ? 0 : a > n - 1 ? n - 1 : a;
            b = b < -1 ? -1 : b > n - 1 ? n - 1 : b;
            if (step == INT64_MIN) step = -INT64_MAX;
            *len = tp_dim_static(n > 0 && a > b ? (a - b - 1) / (-step) + 1 : 0);
        }
        *s_static = a;
        return TP_OK;
    }
    if (step != 1) return tp_ox_unknown_dim(c, 0, 0, len);
    /* symbolic: clamp with MIN; negative statics count from the end */
    tp_dim a, b;
    if (tp_dim_is_static(s)) {
        if (s.size >= 0) {
            if (s.size == 0)
                a = s;
            else if ((st = tp_ox_dim(c, TP_SYM_MIN, s, d, &a)) != TP_OK)
                return st;
        } else if ((st = tp_ox_dim(c, TP_SYM_SUB, d, tp_dim_static(-s.size), &a)) != TP_OK) {
            return st;
        }
    } else if ((st = tp_ox_dim(c, TP_SYM_MIN, s, d, &a)) != TP_OK) {
        return st;
    }
    if (tp_dim_is_static(e)) {
        if (e.size >= ((int64_t)1 << 40)) {
            b = d;
        } else if (e.size >= 0) {
            if ((st = tp_ox_dim(c, TP_SYM_MIN, e, d, &b)) != TP_OK) return st;
        } else if ((st = tp_ox_dim(c, TP_SYM_SUB, d, tp_dim_static(-e.size), &b)) != TP_OK) {
            return st;
        }
    } else if ((st = tp_ox_dim(c, TP_SYM_MIN, e, d, &b)) != TP_OK) {
        return st;
    }
    if (tp_dim_is_static(a) && tp_dim_is_static(b)) {
        *len = tp_dim_static(b.size > a.size ? b.size - a.size : 0);
        return TP_OK;
    }
    return tp_ox_dim(c, TP_SYM_SUB, b, a, len);
}

static bool shape_value_dims(const tp_ox_value *v, tp_dim *out, int64_t cap, int64_t *n) {
    if (!v || v->is_float || v->n > cap) return false;
    for (int64_t i = 0; i < v->n; i++)
        out[i] = v->d[i];
    *n = v->n;
    return true;
}

static tp_status r_slice(tp_ox_ctx *c) {
    tp_status st;
    const tp_shape *x = &c->in[0].shape;
    tp_dim starts[TP_MAX_RANK], ends[TP_MAX_RANK];
    int64_t axes[TP_MAX_RANK], steps[TP_MAX_RANK], n, ne, na = 0, ns = 0;
    if (c->opset < 10) {
        if ((st = tp_ox_arity(c, 1, 1)) != TP_OK) return st;
        uint32_t a, b, k;
        const int64_t *sv = tp_ox_attr_ints(c, "starts", &a), *ev = tp_ox_attr_ints(c, "ends", &b);
        const int64_t *av = tp_ox_attr_ints(c, "axes", &k);
        if (!sv || !ev || a != b || a > TP_MAX_RANK || (av && k != a))
            return tp_ox_fail(c, TP_ERR_PARSE, "bad starts/ends/axes attributes");
        n = ne = a;
        for (uint32_t i = 0; i < a; i++) {
            starts[i] = tp_dim_static(sv[i]);
            ends[i] = tp_dim_static(ev[i]);
            axes[i] = av ? av[i] : (int64_t)i;
            steps[i] = 1;
        }
        na = ns = n;
    } else {
        if ((st = tp_ox_arity(c, 3, 5)) != TP_OK) return st;
        if (!shape_value_dims(c->in[1].value, starts, TP_MAX_RANK, &n) ||
            !shape_value_dims(c->in[2].value, ends, TP_MAX_RANK, &ne)) {
            c->out[0].elem_type = c->in[0].elem_type;
            /* unknown bounds: sliced axes get unknown sizes when axes are known */
            int64_t nn;
            if (c->n_in > 3 && c->in[3].present && tp_ox_input_ints(c, 3, axes, TP_MAX_RANK, &nn)) {
                c->out[0].shape = *x;
                for (int64_t i = 0; i < nn; i++) {
                    int64_t a;
                    if ((st = tp_ox_axis(c, axes[i], x->rank, &a)) != TP_OK) return st;
                    if ((st = tp_ox_unknown_dim(c, 0, (int32_t)a, &c->out[0].shape.dims[a])) !=
                        TP_OK)
                        return st;
                }
                return TP_OK;
            }
            return shape_unknown_dims(c, 0, x->rank);
        }
        if (n != ne) return tp_ox_fail(c, TP_ERR_SHAPE, "starts and ends differ in length");
        if (c->n_in > 3 && c->in[3].present) {
            if (!tp_ox_input_ints(c, 3, axes, TP_MAX_RANK, &na) || na != n)
                return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "Slice axes are not known statically");
        }
        if (c->n_in > 4 && c->in[4].present) {
            if (!tp_ox_input_ints(c, 4, steps, TP_MAX_RANK, &ns) || ns != n)
                return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "Slice steps are not known statically");
        }
    }
    for (int64_t i = 0; i < n; i++) {
        if (na == 0) axes[i] = i;
        if (ns == 0) steps[i] = 1;
        if (steps[i] == 0) return tp_ox_fail(c, TP_ERR_SHAPE, "step 0");
    }
    tp_shape *o = &c->out[0].shape;
    *o = *x;
    bool all_static = true;
    int64_t s0[TP_MAX_RANK];
    for (int64_t i = 0; i < n; i++) {
        int64_t a;
        if ((st = tp_ox_axis(c, axes[i], x->rank, &a)) != TP_OK) return st;
        axes[i] = a;
        if ((st = slice_len(c, x->dims[a], starts[i], ends[i], steps[i], &o->dims[a], &s0[i])) !=
            TP_OK)
            return st;
        if (!tp_dim_is_static(starts[i]) || !tp_dim_is_static(ends[i])) all_static = false;
    }
    c->out[0].elem_type = c->in[0].elem_type;
    if (all_static) {
        c->op.kind = TP_OP_SLICE;
        c->op.attrs.slice.n = (int32_t)n;
        for (int64_t i = 0; i < n; i++) {
            c->op.attrs.slice.axes[i] = axes[i];
            c->op.attrs.slice.starts[i] = starts[i].size;
            c->op.attrs.slice.ends[i] = ends[i].size;
            c->op.attrs.slice.steps[i] = steps[i];
        }
    }
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    /* values (Shape -> Slice chains, torch's reversed pad pairs) */
    if (all_static && c->in[0].value) {
        int32_t src[TP_MAX_RANK];
        int64_t from[TP_MAX_RANK], by[TP_MAX_RANK];
        for (int32_t k = 0; k < x->rank; k++) {
            src[k] = k;
            from[k] = 0;
            by[k] = 1;
        }
        for (int64_t i = 0; i < n; i++) {
            if (s0[i] < 0) return TP_OK;
            from[axes[i]] = s0[i];
            by[axes[i]] = steps[i];
        }
        return map_values(c, x, o, src, from, by);
    }
    return TP_OK;
}

static tp_status r_expand(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st != TP_OK) return st;
    c->out[0].elem_type = c->in[0].elem_type;
    c->op.kind = TP_OP_EXPAND;
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    tp_shape target;
    int64_t n;
    if (!shape_value_dims(c->in[1].value, target.dims, TP_MAX_RANK, &n)) {
        const tp_shape *ss = &c->in[1].shape;
        if (ss->rank != 1 || !tp_dim_is_static(ss->dims[0]))
            return tp_ox_fail(c, TP_ERR_SHAPE, "shape input of unknown length");
        int64_t r = ss->dims[0].size;
        if (r < c->in[0].shape.rank) r = c->in[0].shape.rank;
        return shape_unknown_dims(c, 0, r);
    }
    target.rank = (int32_t)n;
    const tp_shape *sh[2] = {&c->in[0].shape, &target};
    return tp_ox_broadcast(c, sh, 2, &c->out[0].shape);
}

static tp_status r_tile(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    c->out[0].elem_type = c->in[0].elem_type;
    tp_dim rep[TP_MAX_RANK];
    int64_t n;
    if (!shape_value_dims(c->in[1].value, rep, TP_MAX_RANK, &n))
        return shape_unknown_dims(c, 0, x->rank);
    if (n != x->rank)
        return tp_ox_fail(c, TP_ERR_SHAPE, "%lld repeats for rank %d", (long long)n, (int)x->rank);
    bool all_static = true;
    for (int32_t k = 0; k < x->rank; k++) {
        if (!tp_dim_is_static(rep[k]))
            all_static = false;
        else
            c->op.attrs.tile.repeats[k] = rep[k].size;
    }
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    if (all_static) {
        c->op.kind = TP_OP_TILE;
        return tp_ox_ir_shape(c, 0);
    }
    /* repeats computed at run time (dims): x x repeats, an ONNX value */
    tp_shape *o = &c->out[0].shape;
    o->rank = x->rank;
    for (int32_t k = 0; k < x->rank; k++)
        if ((st = tp_ox_dim(c, TP_SYM_MUL, x->dims[k], rep[k], &o->dims[k])) != TP_OK) return st;
    return TP_OK;
}

static tp_status r_pad(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 4);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    int64_t pads[2 * TP_MAX_RANK], n, axes[TP_MAX_RANK], na;
    bool absent;
    c->out[0].elem_type = c->in[0].elem_type;
    if (!ints_from(c, 1, c->opset < 11 ? "pads" : NULL, pads, 2 * TP_MAX_RANK, &n, &absent) ||
        absent)
        return shape_unknown_dims(c, 0, x->rank);
    if (c->n_in > 3 && c->in[3].present) {
        if (!tp_ox_input_ints(c, 3, axes, TP_MAX_RANK, &na))
            return shape_unknown_dims(c, 0, x->rank);
    } else {
        na = x->rank;
        for (int64_t k = 0; k < na; k++)
            axes[k] = k;
    }
    if (n != 2 * na)
        return tp_ox_fail(c, TP_ERR_SHAPE, "%lld pads for %lld axes", (long long)n, (long long)na);
    c->op.kind = TP_OP_PAD;
    /* zero padding: mode constant and the value absent or a known 0 (onnxruntime's PadFusion) */
    const tp_ox_value *pv = c->n_in > 2 && c->in[2].present ? c->in[2].value : NULL;
    bool zero = !(c->n_in > 2 && c->in[2].present) ||
                (pv && pv->n == 1 &&
                 (pv->is_float ? pv->f[0] == 0.0 : tp_dim_is_static(pv->d[0]) && !pv->d[0].size));
    if (c->opset < 11) zero = tp_ox_attr_float(c, "value", 0.0f) == 0.0f;
    c->op.attrs.pad.zero_fill =
        zero && strcmp(tp_ox_attr_str(c, "mode", "constant"), "constant") == 0;
    const tp_node *pn = c->opset < 11 ? NULL : tp_graph_node(c->g, c->in[1].node);
    c->op.attrs.pad.pads_const = c->opset < 11 || (pn && (tp_op_is_weight(pn->op.kind)));
    for (int64_t i = 0; i < na; i++) { /* the ONNX pads of the listed axes; the IR sizes */
        int64_t a;
        if ((st = tp_ox_axis(c, axes[i], x->rank, &a)) != TP_OK) return st;
        c->op.attrs.pad.begin[a] = pads[i];
        c->op.attrs.pad.end[a] = pads[i + na];
    }
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    return tp_ox_ir_shape(c, 0);
}

static const tp_ox_rule SHAPE_RULES[] = {
    {"Shape", r_shape},
    {"Size", r_size},
    {"Reshape", r_reshape},
    {"Flatten", r_flatten},
    {"Transpose", r_transpose},
    {"Squeeze", r_squeeze},
    {"Unsqueeze", r_unsqueeze},
    {"Concat", r_concat},
    {"Split", r_split},
    {"Slice", r_slice},
    {"Expand", r_expand},
    {"Tile", r_tile},
    {"Pad", r_pad},
};

const tp_ox_rule *tp__ox_rules_shape(size_t *n) {
    *n = sizeof SHAPE_RULES / sizeof SHAPE_RULES[0];
    return SHAPE_RULES;
}
