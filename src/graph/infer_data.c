/* Shape inference for data-movement ops: gather, scatter, concat, split,
 * narrow, slice, pad, tile, transpose, squeeze, unsqueeze, flatten, resize,
 * topk. */
#include "graph/graph_internal.h"

#include <inttypes.h>
#include <math.h>

static bool is_index_type(tp_dtype t) {
    const tp_dtype_info *d = tp_dtype_get(t);
    return d && d->kind == 'I';
}

static tp_status infer_gather(const tp_infer_ctx *c, tp_shape *out, tp_error *err) {
    const tp_shape *d = &c->in[0]->shape, *ix = &c->in[1]->shape;
    int32_t ax = 0;
    tp_status st = tp_infer_axis(c, c->op->attrs.axis.axis, d->rank, "axis", &ax, err);
    if (st != TP_OK) return st;
    if (!is_index_type(c->in[1]->dtype))
        return tp_infer_fail(c, TP_ERR_INVALID, err, "indices are %s, not an integer type",
                             tp_dtype_name(c->in[1]->dtype));
    int32_t r = d->rank + ix->rank - 1;
    if (r > TP_MAX_RANK)
        return tp_infer_fail(c, TP_ERR_SHAPE, err, "result rank %d exceeds TP_MAX_RANK (%d)",
                             (int)r, TP_MAX_RANK);
    tp_shape o = tp_shape_make(0, NULL);
    for (int32_t i = 0; i < ax; i++)
        o.dims[o.rank++] = d->dims[i];
    for (int32_t i = 0; i < ix->rank; i++)
        o.dims[o.rank++] = ix->dims[i];
    for (int32_t i = ax + 1; i < d->rank; i++)
        o.dims[o.rank++] = d->dims[i];
    *out = o;
    return TP_OK;
}

static tp_status infer_scatter(const tp_infer_ctx *c, tp_shape *out, tp_error *err) {
    if (!is_index_type(c->in[1]->dtype))
        return tp_infer_fail(c, TP_ERR_INVALID, err, "indices are %s, not an integer type",
                             tp_dtype_name(c->in[1]->dtype));
    if (c->in[2]->dtype != c->in[0]->dtype)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "updates are %s but data is %s",
                             tp_dtype_name(c->in[2]->dtype), tp_dtype_name(c->in[0]->dtype));
    if (c->in[0]->shape.rank > 0) {
        int32_t ax = 0;
        tp_status st =
            tp_infer_axis(c, c->op->attrs.axis.axis, c->in[0]->shape.rank, "axis", &ax, err);
        if (st != TP_OK) return st;
    }
    *out = c->in[0]->shape;
    return TP_OK;
}

static tp_status infer_concat(const tp_infer_ctx *c, tp_shape *out, tp_error *err) {
    const tp_shape *s0 = &c->in[0]->shape;
    int32_t ax = 0;
    tp_status st = tp_infer_axis(c, c->op->attrs.axis.axis, s0->rank, "axis", &ax, err);
    if (st != TP_OK) return st;
    tp_shape o = *s0;
    char b1[128], b2[128];
    for (uint32_t k = 1; k < c->n_in; k++) {
        const tp_shape *s = &c->in[k]->shape;
        if (c->in[k]->dtype != c->in[0]->dtype)
            return tp_infer_fail(c, TP_ERR_INVALID, err, "input %u is %s but input 0 is %s", k,
                                 tp_dtype_name(c->in[k]->dtype), tp_dtype_name(c->in[0]->dtype));
        if (s->rank != s0->rank)
            return tp_infer_fail(c, TP_ERR_SHAPE, err, "input %u %s has a different rank than %s",
                                 k, tp_graph_shape_str(c->g, s, b1, sizeof b1),
                                 tp_graph_shape_str(c->g, s0, b2, sizeof b2));
        for (int32_t i = 0; i < s->rank; i++) {
            tp_dim a = o.dims[i], b = s->dims[i];
            if (i == ax) {
                if ((st = tp_infer_expr(c, TP_SYM_ADD, a, b, &o.dims[i], err)) != TP_OK) return st;
            } else if (tp_dim_is_static(a) && tp_dim_is_static(b) && a.size != b.size) {
                return tp_infer_fail(
                    c, TP_ERR_SHAPE, err,
                    "input %u %s differs from %s in dim %d (%" PRId64 " vs %" PRId64 ")", k,
                    tp_graph_shape_str(c->g, s, b1, sizeof b1),
                    tp_graph_shape_str(c->g, s0, b2, sizeof b2), (int)i, b.size, a.size);
            } else if (!tp_dim_is_static(a) && tp_dim_is_static(b)) {
                o.dims[i] = b; /* the static size is the more precise one */
            }
        }
    }
    *out = o;
    return TP_OK;
}

static tp_status infer_narrow(const tp_infer_ctx *c, tp_shape *out, tp_error *err) {
    const tp_shape *s = &c->in[0]->shape;
    int64_t start = c->op->attrs.narrow.start, len = c->op->attrs.narrow.length;
    int32_t ax = 0;
    tp_status st = tp_infer_axis(c, c->op->attrs.narrow.axis, s->rank, "axis", &ax, err);
    if (st != TP_OK) return st;
    tp_dim d = s->dims[ax];
    if (start < 0 || len < 0 || start > INT64_MAX - len ||
        (tp_dim_is_static(d) && start + len > d.size))
        return tp_infer_fail(c, TP_ERR_SHAPE, err,
                             "range [%" PRId64 ", %" PRId64 "+%" PRId64 ") is outside dim %d of "
                             "size %" PRId64,
                             start, start, len, (int)ax, tp_dim_is_static(d) ? d.size : -1);
    *out = *s;
    out->dims[ax] = tp_dim_static(len);
    return TP_OK;
}

/* One end of a slice on a symbolic dim: `rel ? dim + c : c`. */
typedef struct bound {
    bool rel;
    int64_t c;
} bound;

#define SLICE_TO_END (INT64_MAX / 4) /* ends at or beyond this mean "to the end" */

static tp_status slice_dim(const tp_infer_ctx *c, tp_dim d, int64_t start, int64_t end,
                           int64_t step, tp_dim *out, bool *no_rule, tp_error *err) {
    if (step == 0) step = 1; /* zero-initialised attrs: unit step */
    if (step == INT64_MIN)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "slice step %" PRId64, step);
    if (tp_dim_is_static(d)) {
        int64_t n = d.size;
        if (start < 0) start += n;
        if (end < 0) end += n;
        int64_t len;
        if (step > 0) {
            start = start < 0 ? 0 : start > n ? n : start;
            end = end < 0 ? 0 : end > n ? n : end;
            len = end > start ? (end - start) / step + ((end - start) % step != 0) : 0;
        } else {
            start = start < 0 ? 0 : start > n - 1 ? n - 1 : start;
            end = end < -1 ? -1 : end > n - 1 ? n - 1 : end;
            len = start > end ? (start - end) / -step + ((start - end) % -step != 0) : 0;
        }
        *out = tp_dim_static(len);
        return TP_OK;
    }
    /* symbolic: assume the dim is at least as large as the constant bounds */
    if (step < 0) {
        if ((start == -1 || start >= SLICE_TO_END) && end <= -SLICE_TO_END) {
            if (step == -1) {
                *out = d;
                return TP_OK;
            }
            return tp_infer_expr(c, TP_SYM_DIV_CEIL, d, tp_dim_static(-step), out, err);
        }
        *no_rule = true;
        return TP_OK;
    }
    bound s = {start < 0, start}, e = {end < 0 || end >= SLICE_TO_END, end};
    if (end >= SLICE_TO_END) e.c = 0;
    if (end <= -SLICE_TO_END) {
        *out = tp_dim_static(0);
        return TP_OK;
    }
    if (start <= -SLICE_TO_END) s = (bound){false, 0};
    if (start >= SLICE_TO_END) { /* starts past any end */
        *out = tp_dim_static(0);
        return TP_OK;
    }
    tp_dim len;
    tp_status st;
    if (!s.rel && !e.rel) {
        len = tp_dim_static(e.c > s.c ? e.c - s.c : 0);
    } else if (s.rel && e.rel) {
        len = tp_dim_static(e.c > s.c ? e.c - s.c : 0);
    } else if (e.rel) {        /* [start, dim + e) */
        int64_t k = s.c - e.c; /* dim - k, k >= 0 */
        if ((st = tp_infer_expr(c, TP_SYM_SUB, d, tp_dim_static(k), &len, err)) != TP_OK) return st;
    } else { /* [dim + s, end): only when s is negative and end is "to the end" handled above */
        *no_rule = true;
        return TP_OK;
    }
    if (step == 1) {
        *out = len;
        return TP_OK;
    }
    return tp_infer_expr(c, TP_SYM_DIV_CEIL, len, tp_dim_static(step), out, err);
}

static tp_status infer_slice(const tp_infer_ctx *c, tp_shape *out, bool *no_rule, tp_error *err) {
    const tp_shape *s = &c->in[0]->shape;
    int32_t n = c->op->attrs.slice.n;
    if (n < 0 || n > s->rank)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "%d slice axes for rank %d", (int)n,
                             (int)s->rank);
    tp_shape o = *s;
    bool seen[TP_MAX_RANK] = {false};
    for (int32_t i = 0; i < n; i++) {
        int32_t ax = 0;
        tp_status st =
            tp_infer_axis(c, c->op->attrs.slice.axes[i], s->rank, "slice axis", &ax, err);
        if (st != TP_OK) return st;
        if (seen[ax])
            return tp_infer_fail(c, TP_ERR_INVALID, err, "slice axis %d repeated", (int)ax);
        seen[ax] = true;
        st = slice_dim(c, s->dims[ax], c->op->attrs.slice.starts[i], c->op->attrs.slice.ends[i],
                       c->op->attrs.slice.steps[i], &o.dims[ax], no_rule, err);
        if (st != TP_OK || *no_rule) return st;
    }
    *out = o;
    return TP_OK;
}

static tp_status infer_pad(const tp_infer_ctx *c, tp_shape *out, tp_error *err) {
    const tp_shape *s = &c->in[0]->shape;
    tp_shape o = *s;
    for (int32_t i = 0; i < s->rank; i++) {
        int64_t b = c->op->attrs.pad.begin[i], e = c->op->attrs.pad.end[i];
        if (b < -(INT64_MAX / 2) || b > INT64_MAX / 2 || e < -(INT64_MAX / 2) || e > INT64_MAX / 2)
            return tp_infer_fail(c, TP_ERR_OVERFLOW, err, "pads of dim %d are too large", (int)i);
        int64_t t = b + e;
        tp_dim d = s->dims[i];
        if (tp_dim_is_static(d)) {
            if (t > 0 && d.size > INT64_MAX - t)
                return tp_infer_fail(c, TP_ERR_OVERFLOW, err, "padded dim %d overflows", (int)i);
            if (d.size + t < 0)
                return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                     "pads %" PRId64 "+%" PRId64 " make dim %d of size %" PRId64
                                     " negative",
                                     b, e, (int)i, d.size);
            o.dims[i] = tp_dim_static(d.size + t);
        } else {
            tp_status st = tp_infer_expr(c, t >= 0 ? TP_SYM_ADD : TP_SYM_SUB, d,
                                         tp_dim_static(t >= 0 ? t : -t), &o.dims[i], err);
            if (st != TP_OK) return st;
        }
    }
    *out = o;
    return TP_OK;
}

static tp_status infer_tile(const tp_infer_ctx *c, tp_shape *out, tp_error *err) {
    const tp_shape *s = &c->in[0]->shape;
    tp_shape o = *s;
    for (int32_t i = 0; i < s->rank; i++) {
        int64_t r = c->op->attrs.tile.repeats[i];
        if (r < 0)
            return tp_infer_fail(c, TP_ERR_INVALID, err, "repeat %" PRId64 " for dim %d", r,
                                 (int)i);
        tp_status st = tp_infer_expr(c, TP_SYM_MUL, s->dims[i], tp_dim_static(r), &o.dims[i], err);
        if (st != TP_OK) return st;
    }
    *out = o;
    return TP_OK;
}

static tp_status infer_transpose(const tp_infer_ctx *c, tp_shape *out, tp_error *err) {
    const tp_shape *s = &c->in[0]->shape;
    const int32_t *p = c->op->attrs.transpose.perm;
    bool all_neg = true, all_zero = true;
    for (int32_t i = 0; i < s->rank; i++) {
        all_neg = all_neg && p[i] == -1;
        all_zero = all_zero && p[i] == 0;
    }
    tp_shape o = *s;
    if (s->rank > 0 && (all_neg || (all_zero && s->rank > 1))) {
        for (int32_t i = 0; i < s->rank; i++)
            o.dims[i] = s->dims[s->rank - 1 - i];
        *out = o;
        return TP_OK;
    }
    bool seen[TP_MAX_RANK] = {false};
    for (int32_t i = 0; i < s->rank; i++) {
        if (p[i] < 0 || p[i] >= s->rank || seen[p[i]])
            return tp_infer_fail(c, TP_ERR_INVALID, err,
                                 "perm is not a permutation of 0..%d (entry %d is %d)",
                                 (int)s->rank - 1, (int)i, (int)p[i]);
        seen[p[i]] = true;
        o.dims[i] = s->dims[p[i]];
    }
    *out = o;
    return TP_OK;
}

static tp_status infer_squeeze(const tp_infer_ctx *c, tp_shape *out, tp_error *err) {
    const tp_shape *s = &c->in[0]->shape;
    int32_t n = c->op->attrs.axes.n_axes;
    bool drop[TP_MAX_RANK] = {false};
    if (n < 0 || n > s->rank)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "%d squeeze axes for rank %d", (int)n,
                             (int)s->rank);
    if (n == 0) {
        for (int32_t i = 0; i < s->rank; i++)
            drop[i] = tp_dim_is_static(s->dims[i]) && s->dims[i].size == 1;
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t ax = 0;
        tp_status st = tp_infer_axis(c, c->op->attrs.axes.axes[i], s->rank, "axis", &ax, err);
        if (st != TP_OK) return st;
        tp_dim d = s->dims[ax];
        if (drop[ax] || (tp_dim_is_static(d) && d.size != 1))
            return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                 "cannot squeeze axis %d (size %" PRId64 "%s)", (int)ax,
                                 tp_dim_is_static(d) ? d.size : -1, drop[ax] ? ", repeated" : "");
        drop[ax] = true;
    }
    tp_shape o = tp_shape_make(0, NULL);
    for (int32_t i = 0; i < s->rank; i++)
        if (!drop[i]) o.dims[o.rank++] = s->dims[i];
    *out = o;
    return TP_OK;
}

static tp_status infer_unsqueeze(const tp_infer_ctx *c, tp_shape *out, tp_error *err) {
    const tp_shape *s = &c->in[0]->shape;
    int32_t n = c->op->attrs.axes.n_axes;
    if (n < 1 || n > TP_MAX_RANK || s->rank + n > TP_MAX_RANK)
        return tp_infer_fail(c, TP_ERR_INVALID, err,
                             "%d unsqueeze axes on rank %d (result rank must be <= %d)", (int)n,
                             (int)s->rank, TP_MAX_RANK);
    int32_t r = s->rank + n;
    bool ins[TP_MAX_RANK] = {false};
    for (int32_t i = 0; i < n; i++) {
        int32_t ax = 0;
        tp_status st = tp_infer_axis(c, c->op->attrs.axes.axes[i], r, "axis", &ax, err);
        if (st != TP_OK) return st;
        if (ins[ax]) return tp_infer_fail(c, TP_ERR_INVALID, err, "axis %d repeated", (int)ax);
        ins[ax] = true;
    }
    tp_shape o = tp_shape_make(r, NULL);
    for (int32_t i = 0, k = 0; i < r; i++)
        o.dims[i] = ins[i] ? tp_dim_static(1) : s->dims[k++];
    *out = o;
    return TP_OK;
}

static tp_status infer_flatten(const tp_infer_ctx *c, tp_shape *out, tp_error *err) {
    const tp_shape *s = &c->in[0]->shape;
    int64_t axis = c->op->attrs.axis.axis;
    if (axis < 0) axis += s->rank;
    if (axis < 0 || axis > s->rank)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "axis %" PRId64 " is out of range for rank %d",
                             c->op->attrs.axis.axis, (int)s->rank);
    /* symbolic factors first, the static product last: [b,3,4] -> (12*b) */
    tp_dim part[2] = {tp_dim_static(1), tp_dim_static(1)};
    int64_t stat[2] = {1, 1};
    for (int32_t i = 0; i < s->rank; i++) {
        int k = i < axis ? 0 : 1;
        tp_dim d = s->dims[i];
        tp_status st = TP_OK;
        if (tp_dim_is_static(d)) {
            if (d.size != 0 && stat[k] > INT64_MAX / d.size)
                return tp_infer_fail(c, TP_ERR_OVERFLOW, err, "flattened size overflows");
            stat[k] *= d.size;
        } else {
            st = tp_infer_expr(c, TP_SYM_MUL, part[k], d, &part[k], err);
        }
        if (st != TP_OK) return st;
    }
    for (int k = 0; k < 2; k++) {
        tp_status st = tp_infer_expr(c, TP_SYM_MUL, part[k], tp_dim_static(stat[k]), &part[k], err);
        if (st != TP_OK) return st;
    }
    tp_dim a = part[0], b = part[1];
    *out = tp_shape_make(2, (tp_dim[]){a, b});
    return TP_OK;
}

static tp_status infer_resize(const tp_infer_ctx *c, tp_shape *out, bool *no_rule, tp_error *err) {
    const tp_shape *s = &c->in[0]->shape;
    const double *sc = c->op->attrs.resize.scales;
    bool any = false;
    for (int32_t i = 0; i < s->rank; i++)
        any = any || sc[i] != 0.0;
    if (!any) {
        *no_rule = true; /* sizes given as a tensor: needs an explicit shape */
        return TP_OK;
    }
    tp_shape o = *s;
    for (int32_t i = 0; i < s->rank; i++) {
        double f = sc[i];
        if (!(f > 0.0) || !isfinite(f))
            return tp_infer_fail(c, TP_ERR_INVALID, err, "scale %g for dim %d", f, (int)i);
        tp_dim d = s->dims[i];
        if (tp_dim_is_static(d)) {
            double v = floor((double)d.size * f);
            if (v >= 9.2e18)
                return tp_infer_fail(c, TP_ERR_OVERFLOW, err, "resized dim %d overflows", (int)i);
            o.dims[i] = tp_dim_static((int64_t)v);
            continue;
        }
        tp_status st = TP_OK;
        if (f == floor(f) && f < 1e9) {
            st = tp_infer_expr(c, TP_SYM_MUL, d, tp_dim_static((int64_t)f), &o.dims[i], err);
        } else if (1.0 / f == floor(1.0 / f) && 1.0 / f < 1e9) {
            st = tp_infer_expr(c, TP_SYM_DIV_FLOOR, d, tp_dim_static((int64_t)(1.0 / f)),
                               &o.dims[i], err);
        } else {
            *no_rule = true;
            return TP_OK;
        }
        if (st != TP_OK) return st;
    }
    *out = o;
    return TP_OK;
}

static tp_status infer_topk(const tp_infer_ctx *c, tp_shape *out, tp_error *err) {
    const tp_shape *s = &c->in[0]->shape;
    int32_t ax = 0;
    tp_status st = tp_infer_axis(c, c->op->attrs.topk.axis, s->rank, "axis", &ax, err);
    if (st != TP_OK) return st;
    int64_t k = c->op->attrs.topk.k;
    tp_dim d = s->dims[ax];
    if (k < 0 || (tp_dim_is_static(d) && k > d.size))
        return tp_infer_fail(c, TP_ERR_SHAPE, err, "k = %" PRId64 " for an axis of size %" PRId64,
                             k, tp_dim_is_static(d) ? d.size : -1);
    *out = *s;
    out->dims[ax] = tp_dim_static(k);
    return TP_OK;
}

tp_status tp_infer_data(const tp_infer_ctx *c, tp_shape *out, tp_dtype *dtype, bool *no_rule,
                        bool *handled, tp_error *err) {
    *handled = true;
    *dtype = c->in[0]->dtype;
    switch (c->op->kind) {
    case TP_OP_GATHER:
        /* rows gathered from a block-quantized table come out dequantized (ggml get_rows) */
        if (tp_dtype_is_quantized(*dtype)) *dtype = TP_DTYPE_F32;
        return infer_gather(c, out, err);
    case TP_OP_SCATTER:
        return infer_scatter(c, out, err);
    case TP_OP_CONCAT:
        return infer_concat(c, out, err);
    case TP_OP_SPLIT:
    case TP_OP_NARROW:
        return infer_narrow(c, out, err);
    case TP_OP_SLICE:
        return infer_slice(c, out, no_rule, err);
    case TP_OP_PAD:
        return infer_pad(c, out, err);
    case TP_OP_TILE:
        return infer_tile(c, out, err);
    case TP_OP_TRANSPOSE:
        return infer_transpose(c, out, err);
    case TP_OP_SQUEEZE:
        return infer_squeeze(c, out, err);
    case TP_OP_UNSQUEEZE:
        return infer_unsqueeze(c, out, err);
    case TP_OP_FLATTEN:
        return infer_flatten(c, out, err);
    case TP_OP_RESIZE:
        return infer_resize(c, out, no_rule, err);
    case TP_OP_TOPK:
        return infer_topk(c, out, err);
    default:
        *handled = false;
        return TP_OK;
    }
}
