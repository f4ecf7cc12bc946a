/* Operator fusion of the reference CPU runtime (onnxruntime's graph optimizer), for the cost
 * model: which nodes run inside the kernel of a producing GEMM-class node (convolution, matmul,
 * gemm) and therefore cost no pass of their own. Internal to src/cost. */
#ifndef TP_COST_FUSION_H
#define TP_COST_FUSION_H

#include "tensorplan/cost.h"

/* fused[i] = 1 when node i is absorbed by the GEMM-class node it follows (docs/cost.md,
 * "Fusion"): a batch normalization, a bias or residual add, and an activation (relu, clip,
 * sigmoid, tanh, leaky relu, hard sigmoid) — at most one of each, in that order — whose
 * producer has no other consumer and is not a graph output; and an activation that follows
 * a batch normalization of its own (one pass: onnxruntime's NCHWc BatchNormalization). `fused` has
 * one entry per node and is owned by the caller. TP_ERR_NOMEM. */
tp_status tp_cost_fusion_mark(const tp_graph *g, uint8_t *fused, const tp_allocator *alloc,
                              tp_error *err);

#endif
