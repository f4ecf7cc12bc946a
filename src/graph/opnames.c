/* Op names, arities and classification. */
#include "graph/graph_internal.h"

static const char *const op_kind_names[TP_OP_KIND_COUNT] = {
    "input",   "param",   "constant",  "unary",       "binary",       "compare", "where",
    "cast",    "matmul",  "gemm",      "batched_dot", "fused_matmul", "conv",    "conv_transpose",
    "pool",    "norm",    "softmax",   "reduce",      "attention",    "rope",    "gather",
    "scatter", "concat",  "split",     "slice",       "narrow",       "pad",     "expand",
    "tile",    "reshape", "transpose", "squeeze",     "unsqueeze",    "flatten", "resize",
    "topk",    "cumsum",  "fft",       "log_mel",     "welch_peaks",  "custom",  "if",
    "loop",    "scan",    "output_of",
};

const char *tp_op_kind_name(tp_op_kind k) {
    if ((unsigned)k >= (unsigned)TP_OP_KIND_COUNT) return "?";
    return op_kind_names[k];
}

static const char *const unary_names[TP_UNARY_COUNT] = {
    "unary.identity", "unary.neg",        "unary.abs",   "unary.exp",          "unary.log",
    "unary.sqrt",     "unary.rsqrt",      "unary.recip", "unary.relu",         "unary.gelu",
    "unary.silu",     "unary.sigmoid",    "unary.tanh",  "unary.erf",          "unary.sin",
    "unary.cos",      "unary.floor",      "unary.ceil",  "unary.round",        "unary.sign",
    "unary.not",      "unary.leaky_relu", "unary.elu",   "unary.hard_sigmoid", "unary.hard_swish",
    "unary.softplus", "unary.clip",       "unary.other",
};
static const char *const binary_names[TP_BINARY_COUNT] = {
    "binary.add", "binary.sub",   "binary.mul",   "binary.div", "binary.pow",
    "binary.max", "binary.min",   "binary.mod",   "binary.and", "binary.or",
    "binary.xor", "binary.other", "binary.prelu",
};
static const char *const compare_names[TP_COMPARE_COUNT] = {
    "compare.eq", "compare.ne", "compare.lt", "compare.le", "compare.gt", "compare.ge",
};
static const char *const pool_names[TP_POOL_COUNT] = {
    "pool.max", "pool.avg", "pool.lp", "pool.global_max", "pool.global_avg",
};
static const char *const norm_names[TP_NORM_COUNT] = {
    "norm.layer", "norm.rms", "norm.group", "norm.batch", "norm.instance", "norm.lrn",
};
static const char *const reduce_names[TP_REDUCE_COUNT] = {
    "reduce.sum",         "reduce.mean",   "reduce.max",    "reduce.min",
    "reduce.prod",        "reduce.l1",     "reduce.l2",     "reduce.sum_square",
    "reduce.log_sum_exp", "reduce.argmax", "reduce.argmin",
};

#define SUB_NAME(table, count)                                                                     \
    ((unsigned)op->sub < (unsigned)(count) ? (table)[op->sub] : tp_op_kind_name(op->kind))

const char *tp_op_name(const tp_op *op) {
    if (!op) return "?";
    switch (op->kind) {
    case TP_OP_UNARY:
        return SUB_NAME(unary_names, TP_UNARY_COUNT);
    case TP_OP_BINARY:
        return SUB_NAME(binary_names, TP_BINARY_COUNT);
    case TP_OP_COMPARE:
        return SUB_NAME(compare_names, TP_COMPARE_COUNT);
    case TP_OP_POOL:
        return SUB_NAME(pool_names, TP_POOL_COUNT);
    case TP_OP_NORM:
        return SUB_NAME(norm_names, TP_NORM_COUNT);
    case TP_OP_REDUCE:
        return SUB_NAME(reduce_names, TP_REDUCE_COUNT);
    case TP_OP_SOFTMAX:
        return op->sub == 1 ? "log_softmax" : "softmax";
    case TP_OP_CUSTOM:
        return op->attrs.custom.name && op->attrs.custom.name[0] ? op->attrs.custom.name : "custom";
    default:
        return tp_op_kind_name(op->kind);
    }
}

bool tp_op_is_elementwise(tp_op_kind k) {
    return k == TP_OP_UNARY || k == TP_OP_BINARY || k == TP_OP_COMPARE || k == TP_OP_WHERE ||
           k == TP_OP_CAST || k == TP_OP_ROPE;
}

void tp_op_arity(const tp_op *op, uint32_t *lo, uint32_t *hi) {
    uint32_t a = 1, b = 1;
    switch (op->kind) {
    case TP_OP_INPUT:
    case TP_OP_PARAM:
    case TP_OP_CONSTANT:
        a = b = 0;
        break;
    case TP_OP_UNARY:
        b = 3;
        break; /* clip may take (x, min, max) */
    case TP_OP_BINARY:
    case TP_OP_COMPARE:
    case TP_OP_MATMUL:
    case TP_OP_BATCHED_DOT:
    case TP_OP_GATHER:
        a = b = 2;
        break;
    case TP_OP_WHERE:
    case TP_OP_SCATTER:
        a = b = 3;
        break;
    case TP_OP_GEMM:
    case TP_OP_FUSED_MATMUL:
    case TP_OP_CONV:
    case TP_OP_CONV_TRANSPOSE:
        a = 2, b = 3;
        break;
    case TP_OP_NORM:
        b = 5;
        break; /* batch norm: x, scale, bias, mean, var */
    case TP_OP_ATTENTION:
        if (op->attrs.attention.packed_qkv)
            a = 1, b = 2;
        else
            a = 3, b = 4;
        break;
    case TP_OP_ROPE:
        b = 4;
        break; /* x[, cos, sin[, positions]] */
    case TP_OP_CONCAT:
        b = UINT32_MAX;
        break;
    case TP_OP_SLICE:
        b = 5;
        break; /* ONNX passes starts/ends/axes/steps as inputs */
    case TP_OP_PAD:
    case TP_OP_RESIZE:
        b = 4;
        break;
    case TP_OP_SPLIT:
    case TP_OP_EXPAND:
    case TP_OP_TILE:
    case TP_OP_RESHAPE:
    case TP_OP_SQUEEZE:
    case TP_OP_UNSQUEEZE:
    case TP_OP_TOPK:
    case TP_OP_CUMSUM:
    case TP_OP_REDUCE:
    case TP_OP_LOG_MEL:
        b = 2;
        break; /* second input: a shape/axes/k tensor or mel filters */
    case TP_OP_CUSTOM:
        a = 0;
        b = UINT32_MAX;
        if (op->attrs.custom.n_inputs > 0) a = b = (uint32_t)op->attrs.custom.n_inputs;
        break;
    case TP_OP_IF:
    case TP_OP_LOOP:
    case TP_OP_SCAN:
        a = 0, b = UINT32_MAX;
        break;
    default:
        break; /* exactly one input */
    }
    *lo = a;
    *hi = b;
}
