/* onnxruntime's QDQ fusion on its CPU provider (internal; ort_qdq.c): a node between
 * DequantizeLinear and QuantizeLinear nodes runs as one quantized kernel (QLinearConv,
 * QLinearMatMul, QGemm, QLinearAdd, QLinearMul, QLinearConcat, QLinearAveragePool,
 * QLinearGlobalAveragePool, QLinearSigmoid, QLinearLeakyRelu; a MaxPool on the 8-bit tensor),
 * reading the 8-bit tensors the DequantizeLinear nodes read and writing the 8-bit tensor its
 * QuantizeLinear writes. Read by the xform (the tensors that vanish), the memory profile and the
 * cost model (the kernel's operands).
 *
 * Thread safety: pure functions of the graph. */
#ifndef TP_ORTGRAPH_ORT_QDQ_H
#define TP_ORTGRAPH_ORT_QDQ_H
#include "tensorplan/graph.h"

enum {
    TP_ORT_QDQ_NONE = 0,
    TP_ORT_QDQ_TARGET = 1, /* runs as the quantized kernel; its float tensor is not written */
    TP_ORT_QDQ_DQ = 2,     /* a DequantizeLinear every reader of which is a target: no kernel */
    TP_ORT_QDQ_OUT = 3     /* the QuantizeLinear of a target: the kernel's 8-bit output */
};

/* qdq[id] (node count entries, zeroed by the caller) for every node of g; readers[id]: how many
 * non-boundary nodes read node id, 2 more for a graph output (the xform's count); target_reads:
 * node count entries zeroed by the caller, scratch. The rule (x86,
 * onnxruntime 1.30's QDQSelectorActionTransformer and its selectors, qdq_selectors.cc, read; the
 * optimized graphs of docs/runtime.md, "Session 36"): every input of the node is a
 * DequantizeLinear, those of activations from uint8, those of constants from 8-bit weights or an
 * int32 bias; its one output is read by
 * exactly one QuantizeLinear to uint8 and is not a graph output. With int8 activations
 * onnxruntime fuses part of the groups (mobilenet_v2 so quantized: 37 of 52 Convs, none of its 10
 * Adds), which this rule does not model: none is taken. */
void tp_ort_qdq_mark(const tp_graph *g, const uint32_t *readers, uint32_t *target_reads,
                     uint8_t *qdq);

/* A Conv, MatMul or Gemm: the products among the targets (8-bit operands, packed weights). */
bool tp_ort_qdq_product(const tp_node *n);

/* The 8-bit tensor a target's input i stands for (its DequantizeLinear's input), or -1. */
tp_node_id tp_ort_qdq_source(const tp_graph *g, const tp_node *target, uint32_t i);

#endif
