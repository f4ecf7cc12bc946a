/* ONNX shape rules: indexing and data-dependent ops — Gather*, Scatter*,
 * OneHot, Compress, NonZero, Unique, TopK, CumSum, ReverseSequence, Trilu,
 * EyeLike, Resize / Upsample (onnx_ops.h). */
#include <math.h>
#include <string.h>

#include "import/onnx_ops.h"

static tp_status r_gather(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape, *ix = &c->in[1].shape;
    int64_t axis;
    if ((st = tp_ox_axis(c, tp_ox_attr_int(c, "axis", 0), x->rank, &axis)) != TP_OK) return st;
    c->out[0].elem_type = c->in[0].elem_type;
    c->op.kind = TP_OP_GATHER;
    c->op.attrs.axis.axis = axis;
    if ((st = tp_ox_ir_shape(c, 0)) != TP_OK) return st;
    if (c->in[0].value && c->in[1].value) {
        tp_ox_value *v = NULL;
        st = tp_ox_value_gather(c->alloc, c->in[0].value, x, c->in[1].value, ix, axis, &v, c->err);
        if (st != TP_OK) return st;
        tp_ox_set_value(c, 0, v);
    }
    return TP_OK;
}

/* GatherElements: shape of indices. */
static tp_status r_gather_elements(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st != TP_OK) return st;
    if (c->in[0].shape.rank != c->in[1].shape.rank)
        return tp_ox_fail(c, TP_ERR_SHAPE, "data and indices ranks differ");
    c->out[0].shape = c->in[1].shape;
    c->out[0].elem_type = c->in[0].elem_type;
    return TP_OK;
}

static tp_status r_gather_nd(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape, *ix = &c->in[1].shape;
    int64_t b = tp_ox_attr_int(c, "batch_dims", 0);
    if (ix->rank < 1 || !tp_dim_is_static(ix->dims[ix->rank - 1]))
        return tp_ox_fail(c, TP_ERR_SHAPE, "indices need a static last dim");
    int64_t last = ix->dims[ix->rank - 1].size;
    if (b < 0 || b > x->rank || last > x->rank || b + last > x->rank)
        return tp_ox_fail(c, TP_ERR_SHAPE, "indices too long");
    tp_shape *o = &c->out[0].shape;
    o->rank = 0;
    for (int32_t k = 0; k < ix->rank - 1; k++)
        o->dims[o->rank++] = ix->dims[k];
    for (int64_t k = b + last; k < x->rank; k++) {
        if (o->rank >= TP_MAX_RANK) return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "rank too large");
        o->dims[o->rank++] = x->dims[k];
    }
    c->out[0].elem_type = c->in[0].elem_type;
    return TP_OK;
}

static tp_status r_scatter(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 3, 3);
    if (st != TP_OK) return st;
    tp_ox_same(c, 0, 0);
    c->op.kind = TP_OP_SCATTER;
    c->op.attrs.axis.axis = tp_ox_attr_int(c, "axis", 0);
    if (strcmp(c->node->op_type, "ScatterND") == 0) c->op.kind = TP_OP_CUSTOM;
    return c->op.kind == TP_OP_SCATTER ? tp_ox_ir_shape(c, 0) : TP_OK;
}

static tp_status r_one_hot(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 3, 3);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    int32_t r = x->rank + 1;
    if (r > TP_MAX_RANK) return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "rank too large");
    int64_t axis;
    if ((st = tp_ox_axis(c, tp_ox_attr_int(c, "axis", -1), r, &axis)) != TP_OK) return st;
    tp_dim depth;
    int64_t dv;
    if (c->in[1].value && c->in[1].value->n == 1 && tp_ox_value_int(c->in[1].value, 0, &dv))
        depth = tp_dim_static(dv);
    else if (c->in[1].value && c->in[1].value->n == 1 && !c->in[1].value->is_float)
        depth = c->in[1].value->d[0];
    else if ((st = tp_ox_unknown_dim(c, 0, (int32_t)axis, &depth)) != TP_OK)
        return st;
    tp_shape *o = &c->out[0].shape;
    o->rank = r;
    for (int32_t k = 0, j = 0; k < r; k++)
        o->dims[k] = k == axis ? depth : x->dims[j++];
    c->out[0].elem_type = c->in[2].elem_type;
    return TP_OK;
}

/* Count of nonzero values when known, else a named data-dependent dim. */
static tp_status count_dim(tp_ox_ctx *c, const tp_ox_value *v, const char *what, tp_dim upper,
                           const char *how, tp_dim *d) {
    if (v) {
        int64_t n = 0, x;
        bool ok = true;
        for (int64_t i = 0; i < v->n && ok; i++) {
            if (v->is_float)
                ok = !isnan(v->f[i]), n += ok && v->f[i] != 0.0;
            else if ((ok = tp_ox_value_int(v, i, &x)))
                n += x != 0;
        }
        if (ok) {
            *d = tp_dim_static(n);
            return TP_OK;
        }
    }
    return tp_ox_data_dim_upper(c, what, upper, how, d);
}

static tp_status r_compress(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    tp_dim n, upper;
    tp_shape *o = &c->out[0].shape;
    c->out[0].elem_type = c->in[0].elem_type;
    bool has_axis = tp_ox_has_attr(c, "axis");
    int64_t axis = 0;
    if (has_axis && (st = tp_ox_axis(c, tp_ox_attr_int(c, "axis", 0), x->rank, &axis)) != TP_OK)
        return st;
    if (has_axis)
        upper = x->dims[axis];
    else if ((st = tp_ox_prod(c, x, 0, x->rank, &upper)) != TP_OK)
        return st;
    /* the condition selects at most its own length of the slices */
    const tp_shape *cs = &c->in[1].shape;
    if (cs->rank == 1 && (st = tp_ox_dim(c, TP_SYM_MIN, upper, cs->dims[0], &upper)) != TP_OK)
        return st;
    if ((st = count_dim(c, c->in[1].value, "compress", upper,
                        has_axis ? "the length of the axis and of the condition"
                                 : "the elements of its input and of the condition",
                        &n)) != TP_OK)
        return st;
    if (!has_axis) {
        o->rank = 1;
        o->dims[0] = n;
        return TP_OK;
    }
    *o = *x;
    o->dims[axis] = n;
    return TP_OK;
}

static tp_status r_nonzero(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    tp_shape *o = &c->out[0].shape;
    o->rank = 2;
    o->dims[0] = tp_dim_static(c->in[0].shape.rank);
    c->out[0].elem_type = TP_ONNX_INT64;
    tp_dim upper;
    const tp_shape *x = &c->in[0].shape;
    if ((st = tp_ox_prod(c, x, 0, x->rank, &upper)) != TP_OK) return st;
    return count_dim(c, c->in[0].value, "nonzero", upper, "the elements of its input", &o->dims[1]);
}

static tp_status r_unique(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    tp_dim u;
    tp_dim total = tp_dim_static(0);
    c->out[0].elem_type = c->in[0].elem_type;
    bool has_axis = tp_ox_has_attr(c, "axis");
    int64_t axis = 0;
    if (has_axis) {
        if ((st = tp_ox_axis(c, tp_ox_attr_int(c, "axis", 0), x->rank, &axis)) != TP_OK) return st;
        total = x->dims[axis];
    } else if ((st = tp_ox_prod(c, x, 0, x->rank, &total)) != TP_OK) {
        return st;
    }
    if ((st = tp_ox_data_dim_upper(
             c, "unique", total, has_axis ? "the length of the axis" : "the elements of its input",
             &u)) != TP_OK)
        return st;
    if (has_axis) {
        c->out[0].shape = *x;
        c->out[0].shape.dims[axis] = u;
    } else {
        c->out[0].shape.rank = 1;
        c->out[0].shape.dims[0] = u;
    }
    for (uint32_t k = 1; k < c->n_out && k < 4; k++) {
        c->out[k].shape.rank = 1;
        c->out[k].shape.dims[0] = k == 2 ? total : u;
        c->out[k].elem_type = TP_ONNX_INT64;
    }
    return TP_OK;
}

static tp_status r_topk(tp_ox_ctx *c) {
    const tp_shape *x = &c->in[0].shape;
    tp_status st;
    int64_t axis;
    if ((st = tp_ox_axis(c, tp_ox_attr_int(c, "axis", -1), x->rank, &axis)) != TP_OK) return st;
    tp_dim k;
    if (c->opset < 10) {
        if ((st = tp_ox_arity(c, 1, 1)) != TP_OK) return st;
        k = tp_dim_static(tp_ox_attr_int(c, "k", 0));
    } else {
        if ((st = tp_ox_arity(c, 2, 2)) != TP_OK) return st;
        const tp_ox_value *kv = c->in[1].value;
        if (kv && kv->n == 1 && !kv->is_float)
            k = kv->d[0];
        else if ((st = tp_ox_data_dim_upper(c, "topk", x->dims[axis], "the length of the axis",
                                            &k)) != TP_OK)
            return st;
    }
    for (uint32_t o = 0; o < c->n_out && o < 2; o++) {
        c->out[o].shape = *x;
        c->out[o].shape.dims[axis] = k;
        c->out[o].elem_type = o ? TP_ONNX_INT64 : c->in[0].elem_type;
    }
    if (tp_dim_is_static(k)) {
        c->op.kind = TP_OP_TOPK;
        c->op.attrs.topk.k = k.size;
        c->op.attrs.topk.axis = axis;
        c->op.attrs.topk.largest = tp_ox_attr_int(c, "largest", 1) != 0;
        tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
        if ((st = tp_ox_ir_shape(c, 0)) != TP_OK) return st;
        if (c->n_out > 1) c->out[1].shape = c->out[0].shape; /* indices */
    }
    return TP_OK;
}

static tp_status r_cumsum(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st != TP_OK) return st;
    tp_ox_same(c, 0, 0);
    int64_t a, n;
    if (tp_ox_input_ints(c, 1, &a, 1, &n) && n == 1) {
        int64_t axis;
        if ((st = tp_ox_axis(c, a, c->in[0].shape.rank, &axis)) != TP_OK) return st;
        c->op.kind = TP_OP_CUMSUM;
        c->op.attrs.axis.axis = axis;
        tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
        return tp_ox_ir_shape(c, 0);
    }
    return TP_OK;
}

/* Same shape as input 0 (ReverseSequence, Trilu, EyeLike-with-dtype, ...). */
static tp_status r_same0(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, c->n_in ? c->n_in : 1);
    if (st != TP_OK) return st;
    tp_ox_same(c, 0, 0);
    return TP_OK;
}

static tp_status r_eye_like(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    tp_ox_same(c, 0, 0);
    int64_t dt = tp_ox_attr_int(c, "dtype", 0);
    if (dt > 0) c->out[0].elem_type = (int32_t)dt;
    return TP_OK;
}

/* onnxruntime 1.30's NCHWc Upsample (nchwc_transformer.cc, TransformResize; which forms it
 * converts checked on its optimized graphs, docs/cost.md, session 24): 4 positive integer
 * scales, batch and channels 1; mode nearest or linear; from opset 11 nearest only with
 * asymmetric coordinates and nearest_mode floor, linear with asymmetric, half_pixel or
 * align_corners coordinates (not pytorch_half_pixel); never cubic. The scales are the scales
 * input's (inputs_ok: no sizes input) or a constant sizes input's ratios to static input dims
 * (session 32: onnxruntime 1.30 converts those too, isnet_medium's 34 Upsamples and one-Resize
 * probes, 2x and 1x yes, 1.5x no). Sets attrs.resize.nchwc and int_nearest. */
static void resize_forms(tp_ox_ctx *c, const double *scales, int64_t ns, int32_t rank,
                         bool upsample, bool inputs_ok) {
    const char *mode = tp_ox_attr_str(c, "mode", "nearest");
    bool nearest = strcmp(mode, "nearest") == 0, linear = strcmp(mode, "linear") == 0;
    bool whole = inputs_ok && ns == 4 && rank == 4 && scales[0] == 1.0 && scales[1] == 1.0;
    for (int64_t k = 0; k < ns && whole; k++)
        whole = scales[k] >= 1.0 && scales[k] == floor(scales[k]);
    bool blocked = whole && (nearest || linear), copies = whole && nearest;
    if (!upsample && c->opset >= 11) {
        const char *ctm = tp_ox_attr_str(c, "coordinate_transformation_mode", "half_pixel");
        bool asym = strcmp(ctm, "asymmetric") == 0;
        copies = copies && asym &&
                 strcmp(tp_ox_attr_str(c, "nearest_mode", "round_prefer_floor"), "floor") == 0;
        blocked = copies ||
                  (blocked && linear &&
                   (asym || strcmp(ctm, "half_pixel") == 0 || strcmp(ctm, "align_corners") == 0));
    }
    c->op.attrs.resize.int_nearest = copies;
    c->op.attrs.resize.nchwc = blocked;
}

/* Resize (opset 10: X, scales; 11+: X, roi, scales, sizes) and Upsample. */
static tp_status r_resize(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 4);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    bool upsample = strcmp(c->node->op_type, "Upsample") == 0;
    uint32_t si = (c->opset < 11 || upsample) ? 1 : 2, zi = 3;
    double scales[TP_MAX_RANK];
    int64_t sizes[TP_MAX_RANK], ns = 0, nz = 0, axes[TP_MAX_RANK], na;
    const tp_ox_value *sv = si < c->n_in && c->in[si].present ? c->in[si].value : NULL;
    uint32_t nfa;
    const float *fa = tp_ox_attr_floats(c, "scales", &nfa);
    bool sv_nan = false;
    for (int64_t k = 0; sv && sv->is_float && k < sv->n; k++)
        sv_nan = sv_nan || isnan(sv->f[k]);
    if (sv && sv->is_float && sv->n > 0 && sv->n <= TP_MAX_RANK && !sv_nan) {
        ns = sv->n;
        for (int64_t k = 0; k < ns; k++)
            scales[k] = sv->f[k];
    } else if (fa && nfa <= TP_MAX_RANK) {
        ns = nfa;
        for (uint32_t k = 0; k < nfa; k++)
            scales[k] = fa[k];
    }
    bool have_sizes = zi < c->n_in && c->in[zi].present;
    tp_dim sized[TP_MAX_RANK];
    bool sizes_static = false;
    if (have_sizes) {
        const tp_ox_value *zv = c->in[zi].value;
        nz = -1;
        if (zv && !zv->is_float && zv->n <= TP_MAX_RANK) {
            nz = zv->n;
            sizes_static = true;
            for (int64_t k = 0; k < nz; k++) {
                sized[k] = zv->d[k];
                if (tp_dim_is_static(zv->d[k]))
                    sizes[k] = zv->d[k].size;
                else
                    sizes_static = false;
            }
        }
    }
    uint32_t nax;
    const int64_t *ax = tp_ox_attr_ints(c, "axes", &nax);
    na = ax ? (int64_t)nax : (int64_t)x->rank;
    for (int64_t k = 0; k < na; k++) {
        if (!ax) {
            axes[k] = k;
        } else if ((st = tp_ox_axis(c, ax[k], x->rank, &axes[k])) != TP_OK) {
            return st;
        }
    }
    tp_shape *o = &c->out[0].shape;
    *o = *x;
    c->out[0].elem_type = c->in[0].elem_type;
    c->op.kind = TP_OP_RESIZE;
    for (int32_t k = 0; k < TP_MAX_RANK; k++)
        c->op.attrs.resize.scales[k] = 1.0;
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    if (have_sizes && nz != 0) {
        if (nz != na) {
            c->op.kind = TP_OP_CUSTOM; /* no IR resize: its rule would read scales of 1 */
            for (int64_t k = 0; k < na; k++)
                if ((st = tp_ox_unknown_dim(c, 0, (int32_t)axes[k], &o->dims[axes[k]])) != TP_OK)
                    return st;
            return TP_OK;
        }
        const char *policy = tp_ox_attr_str(c, "keep_aspect_ratio_policy", "stretch");
        if (strcmp(policy, "stretch") != 0 && !sizes_static)
            return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "aspect policy with symbolic sizes");
        if (strcmp(policy, "stretch") != 0) {
            /* one scale for all axes: min / max of sizes[i] / in[i] */
            double s = strcmp(policy, "not_larger") == 0 ? 1e300 : 0;
            for (int64_t k = 0; k < na; k++) {
                tp_dim d = x->dims[axes[k]];
                if (!tp_dim_is_static(d) || d.size == 0)
                    return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "aspect policy on a symbolic dim");
                double r = (double)sizes[k] / (double)d.size;
                s = strcmp(policy, "not_larger") == 0 ? (r < s ? r : s) : (r > s ? r : s);
            }
            for (int64_t k = 0; k < na; k++) {
                double v = floor((double)x->dims[axes[k]].size * s + 0.5);
                if (!(v >= 0 && v < 9.0e18))
                    return tp_ox_fail(c, TP_ERR_OVERFLOW, "resized size %g", v);
                o->dims[axes[k]] = tp_dim_static((int64_t)v);
            }
            return TP_OK;
        }
        bool ratios = sizes_static && x->rank <= TP_MAX_RANK;
        for (int64_t k = 0; k < na; k++) {
            o->dims[axes[k]] = sized[k];
            tp_dim d = x->dims[axes[k]];
            if (tp_dim_is_static(d) && d.size && tp_dim_is_static(sized[k]))
                c->op.attrs.resize.scales[axes[k]] = (double)sizes[k] / (double)d.size;
            else
                ratios = false;
        }
        if (ratios) /* every axis's scale known: the forms onnxruntime converts */
            resize_forms(c, c->op.attrs.resize.scales, x->rank, x->rank, upsample, true);
        return TP_OK;
    }
    if (ns != na) {
        if (ns == 0 && !sv) {
            /* scales known only at run time: no IR resize, whose rule would read the scales of 1
               above and give the input's sizes (a quantized model's Resize of dequantized
               scales took the input's 10 × 10 for its 20 × 20) */
            c->op.kind = TP_OP_CUSTOM;
            for (int32_t k = 0; k < x->rank; k++)
                if ((st = tp_ox_unknown_dim(c, 0, k, &o->dims[k])) != TP_OK) return st;
            return TP_OK;
        }
        return tp_ox_fail(c, TP_ERR_SHAPE, "%lld scales for %lld axes", (long long)ns,
                          (long long)na);
    }
    resize_forms(c, scales, ns, x->rank, upsample,
                 !have_sizes && (upsample || c->opset < 11 || c->n_in == 3));
    for (int64_t k = 0; k < na; k++) {
        double s = scales[k];
        tp_dim d = x->dims[axes[k]];
        c->op.attrs.resize.scales[axes[k]] = s;
        if (s <= 0) return tp_ox_fail(c, TP_ERR_SHAPE, "scale %g", s);
        if (tp_dim_is_static(d)) {
            double v = floor((double)d.size * s);
            if (!(v >= 0 && v < 9.0e18))
                return tp_ox_fail(c, TP_ERR_OVERFLOW, "resized size %g", v);
            o->dims[axes[k]] = tp_dim_static((int64_t)v);
        } else if (s == floor(s)) {
            st = tp_ox_dim(c, TP_SYM_MUL, d, tp_dim_static((int64_t)s), &o->dims[axes[k]]);
        } else if (1.0 / s == floor(1.0 / s)) {
            st = tp_ox_dim(c, TP_SYM_DIV_FLOOR, d, tp_dim_static((int64_t)(1.0 / s)),
                           &o->dims[axes[k]]);
        } else {
            st = tp_ox_unknown_dim(c, 0, (int32_t)axes[k], &o->dims[axes[k]]);
        }
        if (st != TP_OK) return st;
    }
    return TP_OK;
}

static const tp_ox_rule INDEX_RULES[] = {
    {"Gather", r_gather},
    {"GatherElements", r_gather_elements},
    {"GatherND", r_gather_nd},
    {"Scatter", r_scatter},
    {"ScatterElements", r_scatter},
    {"ScatterND", r_scatter},
    {"OneHot", r_one_hot},
    {"Compress", r_compress},
    {"NonZero", r_nonzero},
    {"Unique", r_unique},
    {"TopK", r_topk},
    {"CumSum", r_cumsum},
    {"ReverseSequence", r_same0},
    {"Trilu", r_same0},
    {"EyeLike", r_eye_like},
    {"Resize", r_resize},
    {"Upsample", r_resize},
};

const tp_ox_rule *tp__ox_rules_index(size_t *n) {
    *n = sizeof INDEX_RULES / sizeof INDEX_RULES[0];
    return INDEX_RULES;
}
