/* ONNX shape rules: reductions, arg-reductions, softmax family, norms and
 * losses (onnx_ops.h). */
#include <string.h>

#include "import/onnx_ops.h"

typedef struct reduce_map {
    const char *op;
    tp_reduce_fn fn;
} reduce_map;

static const reduce_map REDUCE[] = {
    {"ReduceSum", TP_REDUCE_SUM},
    {"ReduceMean", TP_REDUCE_MEAN},
    {"ReduceMax", TP_REDUCE_MAX},
    {"ReduceMin", TP_REDUCE_MIN},
    {"ReduceProd", TP_REDUCE_PROD},
    {"ReduceL1", TP_REDUCE_L1},
    {"ReduceL2", TP_REDUCE_L2},
    {"ReduceSumSquare", TP_REDUCE_SUM_SQUARE},
    {"ReduceLogSumExp", TP_REDUCE_LOG_SUM_EXP},
    {"ReduceLogSum", TP_REDUCE_LOG_SUM_EXP},
    {"ArgMax", TP_REDUCE_ARGMAX},
    {"ArgMin", TP_REDUCE_ARGMIN},
};

/* The IR reduce of the ONNX axes (none = all, unless noop) with its shape from
 * the IR rule; fn is the reduction. */
static tp_status reduce_shape(tp_ox_ctx *c, const int64_t *axes, int64_t n, bool keep, bool noop,
                              tp_reduce_fn fn) {
    const tp_shape *x = &c->in[0].shape;
    bool red[TP_MAX_RANK] = {0};
    tp_status st;
    if (n == 0 && !noop)
        for (int32_t k = 0; k < x->rank; k++)
            red[k] = true;
    c->op.kind = TP_OP_REDUCE;
    c->op.sub = (int32_t)fn;
    c->op.attrs.reduce.n_axes = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t a;
        if ((st = tp_ox_axis(c, axes[i], x->rank, &a)) != TP_OK) return st;
        red[a] = true;
    }
    for (int32_t k = 0; k < x->rank; k++)
        if (red[k]) c->op.attrs.reduce.axes[c->op.attrs.reduce.n_axes++] = k;
    c->op.attrs.reduce.keepdims = keep;
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    if (c->op.attrs.reduce.n_axes == 0) { /* nothing reduced: the shape of x */
        c->out[0].shape = *x;
        return TP_OK;
    }
    return tp_ox_ir_shape(c, 0);
}

static tp_reduce_fn reduce_fn(const char *op) {
    for (size_t i = 0; i < sizeof REDUCE / sizeof REDUCE[0]; i++)
        if (strcmp(REDUCE[i].op, op) == 0) return REDUCE[i].fn;
    return TP_REDUCE_SUM;
}

static tp_status r_reduce(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 2);
    if (st != TP_OK) return st;
    bool keep = tp_ox_attr_int(c, "keepdims", 1) != 0;
    bool noop = tp_ox_attr_int(c, "noop_with_empty_axes", 0) != 0;
    int64_t axes[TP_MAX_RANK], n = 0;
    if (c->n_in > 1 && c->in[1].present) {
        if (!tp_ox_input_ints(c, 1, axes, TP_MAX_RANK, &n)) {
            /* axes unknown: keepdims gives rank but not which dims */
            const tp_shape *ax = &c->in[1].shape;
            if (!keep || ax->rank != 1)
                return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "reduction axes are not known");
            c->out[0].shape.rank = c->in[0].shape.rank;
            for (int32_t k = 0; k < c->in[0].shape.rank; k++)
                if ((st = tp_ox_unknown_dim(c, 0, k, &c->out[0].shape.dims[k])) != TP_OK) return st;
            c->out[0].elem_type = c->in[0].elem_type;
            return TP_OK;
        }
    } else {
        uint32_t na;
        const int64_t *a = tp_ox_attr_ints(c, "axes", &na);
        if (na > TP_MAX_RANK) return tp_ox_fail(c, TP_ERR_SHAPE, "%u axes", na);
        for (uint32_t k = 0; k < na; k++)
            axes[k] = a[k];
        n = na;
    }
    c->out[0].elem_type = c->in[0].elem_type;
    if ((st = reduce_shape(c, axes, n, keep, noop, reduce_fn(c->node->op_type))) != TP_OK)
        return st;
    if (n == 0 && noop) { /* noop_with_empty_axes: the input passes through */
        c->op.kind = TP_OP_UNARY;
        c->op.sub = TP_UNARY_IDENTITY;
        return TP_OK;
    }
    if (strcmp(c->node->op_type, "ReduceLogSum") == 0) c->op.kind = TP_OP_CUSTOM;
    /* a tracked value reduced whole (torchvision's detection transform takes the largest of
     * its image sizes, ReduceMax of a constant, to size its padding) */
    const char *op = c->node->op_type;
    char vop = strcmp(op, "ReduceMax") == 0    ? 'x'
               : strcmp(op, "ReduceMin") == 0  ? 'n'
               : strcmp(op, "ReduceSum") == 0  ? 'A'
               : strcmp(op, "ReduceProd") == 0 ? 'M'
                                               : 0;
    if (vop && c->in[0].value && c->op.kind == TP_OP_REDUCE &&
        c->op.attrs.reduce.n_axes == c->in[0].shape.rank) {
        tp_ox_value *v = NULL;
        if ((st = tp_ox_value_reduce(c->syms, c->alloc, c->in[0].value, vop, &v, c->err)) != TP_OK)
            return st;
        if (v) tp_ox_set_value(c, 0, v);
    }
    return TP_OK;
}

static tp_status r_argreduce(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    bool keep = tp_ox_attr_int(c, "keepdims", 1) != 0;
    int64_t axis = tp_ox_attr_int(c, "axis", 0);
    c->out[0].elem_type = TP_ONNX_INT64;
    return reduce_shape(c, &axis, 1, keep, false,
                        strcmp(c->node->op_type, "ArgMax") == 0 ? TP_REDUCE_ARGMAX
                                                                : TP_REDUCE_ARGMIN);
}

static tp_status r_softmax(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    tp_ox_same(c, 0, 0);
    int64_t axis;
    if ((st = tp_ox_axis(c, tp_ox_attr_int(c, "axis", c->opset < 13 ? 1 : -1), c->in[0].shape.rank,
                         &axis)) != TP_OK)
        return st;
    const char *op = c->node->op_type;
    if (strcmp(op, "Hardmax") == 0) return TP_OK;
    c->op.kind = TP_OP_SOFTMAX;
    c->op.sub = strcmp(op, "LogSoftmax") == 0;
    c->op.attrs.axis.axis = axis;
    /* before opset 13 softmax flattens at axis: same shape either way */
    if (c->opset < 13 && axis != c->in[0].shape.rank - 1) c->op.kind = TP_OP_CUSTOM;
    return c->op.kind == TP_OP_SOFTMAX ? tp_ox_ir_shape(c, 0) : TP_OK;
}

/* Stats shape: x dims [0, axis) then 1s. */
static void stats_shape(const tp_shape *x, int64_t axis, tp_shape *o) {
    o->rank = x->rank;
    for (int32_t k = 0; k < x->rank; k++)
        o->dims[k] = k < axis ? x->dims[k] : tp_dim_static(1);
}

static tp_status r_reduce_layer_norm(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 3);
    if (st != TP_OK) return st;
    tp_ox_same(c, 0, 0);
    int64_t axis;
    if ((st = tp_ox_axis(c, tp_ox_attr_int(c, "axis", -1), c->in[0].shape.rank, &axis)) != TP_OK)
        return st;
    int32_t stash = (int32_t)tp_ox_attr_int(c, "stash_type", TP_ONNX_FLOAT);
    for (uint32_t k = 1; k < c->n_out && k < 3; k++) {
        stats_shape(&c->in[0].shape, axis, &c->out[k].shape);
        c->out[k].elem_type = stash;
    }
    c->op.kind = TP_OP_NORM;
    c->op.sub = TP_NORM_LAYER;
    c->op.attrs.norm.axis = axis;
    c->op.attrs.norm.eps = tp_ox_attr_float(c, "epsilon", 1e-5f);
    return tp_ox_ir_shape(c, 0);
}

static tp_status r_batch_norm(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 5, 5);
    if (st != TP_OK) return st;
    tp_ox_same(c, 0, 0);
    for (uint32_t k = 1; k < c->n_out && k < 5; k++) {
        c->out[k].shape = c->in[k < 3 ? 3 + (k - 1) : 1].shape; /* running mean / var */
        c->out[k].elem_type = c->in[k < 3 ? 3 + (k - 1) : 1].elem_type;
    }
    c->op.kind = TP_OP_NORM;
    c->op.sub = TP_NORM_BATCH;
    c->op.attrs.norm.axis = 1;
    c->op.attrs.norm.eps = tp_ox_attr_float(c, "epsilon", 1e-5f);
    return tp_ox_ir_shape(c, 0);
}

static tp_status r_norm_same(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 3);
    if (st != TP_OK) return st;
    tp_ox_same(c, 0, 0);
    const char *op = c->node->op_type;
    c->op.kind = TP_OP_NORM;
    c->op.attrs.norm.axis = 1;
    c->op.attrs.norm.eps = tp_ox_attr_float(c, "epsilon", 1e-5f);
    if (strcmp(op, "InstanceNormalization") == 0) {
        c->op.sub = TP_NORM_INSTANCE;
    } else if (strcmp(op, "GroupNormalization") == 0) {
        c->op.sub = TP_NORM_GROUP;
        c->op.attrs.norm.groups = tp_ox_attr_int(c, "num_groups", 1);
    } else if (strcmp(op, "LRN") == 0) {
        c->op.sub = TP_NORM_LRN;
    } else {
        c->op.kind = TP_OP_CUSTOM; /* MeanVarianceNormalization */
    }
    return c->op.kind == TP_OP_NORM ? tp_ox_ir_shape(c, 0) : TP_OK;
}

/* NegativeLogLikelihoodLoss(input [N,C,d..], target [N,d..][, weight]) */
static tp_status r_nll(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 3);
    if (st != TP_OK) return st;
    const char *red = tp_ox_attr_str(c, "reduction", "mean");
    c->out[0].elem_type = c->in[0].elem_type;
    if (strcmp(red, "none") == 0)
        c->out[0].shape = c->in[1].shape;
    else
        c->out[0].shape.rank = 0;
    return TP_OK;
}

/* SoftmaxCrossEntropyLoss(scores [N,C,d..], labels [N,d..][, weights]) -> loss[, log_prob] */
static tp_status r_sce(tp_ox_ctx *c) {
    tp_status st = r_nll(c);
    if (st != TP_OK) return st;
    if (c->n_out > 1) tp_ox_same(c, 1, 0);
    return TP_OK;
}

static tp_status r_det(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    if ((st = tp_ox_rank_check(c, 0, 2, TP_MAX_RANK)) != TP_OK) return st;
    c->out[0].shape = c->in[0].shape;
    c->out[0].shape.rank -= 2;
    c->out[0].elem_type = c->in[0].elem_type;
    return TP_OK;
}

static const tp_ox_rule REDUCE_RULES[] = {
    {"ReduceSum", r_reduce},
    {"ReduceMean", r_reduce},
    {"ReduceMax", r_reduce},
    {"ReduceMin", r_reduce},
    {"ReduceProd", r_reduce},
    {"ReduceL1", r_reduce},
    {"ReduceL2", r_reduce},
    {"ReduceSumSquare", r_reduce},
    {"ReduceLogSumExp", r_reduce},
    {"ReduceLogSum", r_reduce},
    {"ArgMax", r_argreduce},
    {"ArgMin", r_argreduce},
    {"Softmax", r_softmax},
    {"LogSoftmax", r_softmax},
    {"Hardmax", r_softmax},
    {"LayerNormalization", r_reduce_layer_norm},
    {"BatchNormalization", r_batch_norm},
    {"InstanceNormalization", r_norm_same},
    {"GroupNormalization", r_norm_same},
    {"LRN", r_norm_same},
    {"MeanVarianceNormalization", r_norm_same},
    {"NegativeLogLikelihoodLoss", r_nll},
    {"SoftmaxCrossEntropyLoss", r_sce},
    {"Det", r_det},
};

const tp_ox_rule *tp__ox_rules_reduce(size_t *n) {
    *n = sizeof REDUCE_RULES / sizeof REDUCE_RULES[0];
    return REDUCE_RULES;
}
