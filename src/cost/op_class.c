/* Op classes of the cost model (docs/cost.md, "Op classes"). */
#include "cost/op_class.h"

static const char *const opc_names[TP_OPC_COUNT] = {
    "meta", "conv",        "conv_1x1",       "conv_dw", "conv_group", "matmul",
    "norm", "elementwise", "softmax_reduce", "pool",    "move",       "other"};

const char *tp_cost_op_class_name(tp_cost_op_class c) {
    return (unsigned)c < TP_OPC_COUNT ? opc_names[c] : "?";
}

tp_cost_op_class tp_cost_op_class_of(const tp_node *n, const tp_op_cost *oc) {
    if (oc->cls == TP_COST_METADATA || oc->launches == 0) return TP_OPC_META;
    switch (n->op.kind) {
    case TP_OP_CONV: {
        int64_t area = 1;
        for (int32_t i = 0; i < n->op.attrs.conv.spatial && i < 3; i++)
            area *= n->op.attrs.conv.kernel[i];
        if (n->op.attrs.conv.groups > 1)
            /* k of the GEMM instance = (c_in / groups) · kernel area */
            return oc->gemm_k <= (uint64_t)area ? TP_OPC_CONV_DW : TP_OPC_CONV_GROUP;
        return area == 1 ? TP_OPC_CONV_1X1 : TP_OPC_CONV;
    }
    case TP_OP_CONV_TRANSPOSE:
        return TP_OPC_CONV;
    case TP_OP_MATMUL:
    case TP_OP_GEMM:
    case TP_OP_BATCHED_DOT:
    case TP_OP_FUSED_MATMUL:
    case TP_OP_ATTENTION:
        return TP_OPC_MATMUL;
    case TP_OP_CUSTOM: /* an Einsum that contracts two operands is a batched GEMM */
        return n->op.attrs.custom.einsum_role[0][0] != TP_EINSUM_NONE ? TP_OPC_MATMUL
                                                                      : TP_OPC_OTHER;
    case TP_OP_NORM:
        return TP_OPC_NORM;
    case TP_OP_UNARY:
    case TP_OP_BINARY:
    case TP_OP_COMPARE:
    case TP_OP_WHERE:
    case TP_OP_CAST:
    case TP_OP_ROPE:
        return TP_OPC_ELEMENTWISE;
    case TP_OP_SOFTMAX:
    case TP_OP_REDUCE:
    case TP_OP_TOPK:
    case TP_OP_CUMSUM:
        return TP_OPC_SOFTMAX_REDUCE;
    case TP_OP_POOL:
        return TP_OPC_POOL;
    case TP_OP_GATHER:
    case TP_OP_SCATTER:
    case TP_OP_CONCAT:
    case TP_OP_SPLIT:
    case TP_OP_SLICE:
    case TP_OP_NARROW:
    case TP_OP_PAD:
    case TP_OP_EXPAND:
    case TP_OP_TILE:
    case TP_OP_RESHAPE:
    case TP_OP_TRANSPOSE:
    case TP_OP_SQUEEZE:
    case TP_OP_UNSQUEEZE:
    case TP_OP_FLATTEN:
    case TP_OP_RESIZE:
        return TP_OPC_MOVE;
    default:
        return TP_OPC_OTHER;
    }
}
