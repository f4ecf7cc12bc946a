/* Operator fusion of the reference CPU runtime (onnxruntime's graph optimizer), for the cost
 * model: which nodes run inside the kernel of a producing GEMM-class node (convolution, matmul,
 * gemm) and therefore cost no pass of their own. Internal to src/cost. */
#ifndef TP_COST_FUSION_H
#define TP_COST_FUSION_H

#include "ortgraph/ort_xform.h"
#include "tensorplan/cost.h"

/* What tp_cost_fusion_mark says of a node. */
enum {
    TP_FUSION_NONE = 0,     /* runs as its own kernel */
    TP_FUSION_ABSORBED = 1, /* runs inside another node's kernel: no pass, no launch */
    /* a layer normalization that runs as onnxruntime's SkipLayerNormalization, the residual Add
       that feeds it absorbed (TP_FUSION_ABSORBED): its kernel reads both addends */
    TP_FUSION_SKIP_NORM = 2,
    /* the last Mul of an erf GELU that onnxruntime runs as one Gelu (or BiasGelu) kernel, its
       other nodes (and a bias Add before it) absorbed */
    TP_FUSION_GELU = 3
};

/* fused[i] = TP_FUSION_ABSORBED when node i is absorbed by the GEMM-class node it follows
 * (docs/cost.md, "Fusion"): a batch normalization, a bias or residual add, and an activation (relu,
 * clip, sigmoid, tanh, leaky relu, hard sigmoid) — at most one of each, in that order — whose
 * producer has no other consumer and is not a graph output; and an activation that follows
 * a batch normalization of its own (one pass: onnxruntime's NCHWc BatchNormalization).
 * fused[i] = TP_FUSION_SKIP_NORM for a layer normalization whose data input is an Add that
 * onnxruntime's SkipLayerNormFusion takes into it (the Add then TP_FUSION_ABSORBED): two float
 * addends of rank 3 and the same shape, their last two dims numbers (dim 0 may be one named
 * symbol), the Add read by the normalization alone and not a graph output (docs/cost.md,
 * "SkipLayerNormalization"). fused[i] = TP_FUSION_GELU for the last Mul of an erf GELU,
 * x * 0.5 * (1 + erf(x / sqrt 2)) in onnxruntime's operand orders (gelu_of of x, the graph's
 * tp_ort_xform, any block), its
 * other nodes absorbed (docs/cost.md, "GELU"). A Cast onnxruntime removes (tp_ort_cast_removed:
 * x->same_as) is TP_FUSION_ABSORBED too: it runs no kernel. `fused` has one entry per node and is
 * owned by the caller. TP_ERR_NOMEM. */
tp_status tp_cost_fusion_mark(const tp_graph *g, const tp_ort_xform *x, uint8_t *fused,
                              const tp_allocator *alloc, tp_error *err);

#endif
