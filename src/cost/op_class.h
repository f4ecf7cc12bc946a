/* Op classes of the cost model: the groups of nodes whose CPU efficiency the calibration
 * measures apart (docs/cost.md, "Op classes"). Internal to src/cost and the accuracy bench. */
#ifndef TP_COST_OP_CLASS_H
#define TP_COST_OP_CLASS_H

#include "tensorplan/cost.h"

typedef enum tp_cost_op_class {
    TP_OPC_META,           /* metadata: no kernel */
    TP_OPC_CONV,           /* dense convolution with a spatial kernel (and conv transpose) */
    TP_OPC_CONV_1X1,       /* pointwise convolution, groups = 1 */
    TP_OPC_CONV_DW,        /* depthwise convolution: one input channel per group */
    TP_OPC_CONV_GROUP,     /* grouped convolution, several channels per group */
    TP_OPC_MATMUL,         /* matmul, gemm, batched dot, fused matmul, attention */
    TP_OPC_NORM,           /* layer / rms / group / instance / batch normalization, LRN */
    TP_OPC_ELEMENTWISE,    /* unary, binary, compare, where, cast, rope */
    TP_OPC_SOFTMAX_REDUCE, /* softmax, reductions, top-k, cumsum */
    TP_OPC_POOL,           /* pooling */
    TP_OPC_MOVE,           /* data movement: transpose, concat, gather, slice, pad, resize... */
    TP_OPC_OTHER,          /* signal ops, custom, control flow */
    TP_OPC_COUNT
} tp_cost_op_class;

/* The class of node `n` given its accounting `oc` (from tp_op_account). */
tp_cost_op_class tp_cost_op_class_of(const tp_node *n, const tp_op_cost *oc);
/* Short lowercase name ("conv_dw"), as the accuracy bench and ort_op_times.js print it. */
const char *tp_cost_op_class_name(tp_cost_op_class c);

#endif
