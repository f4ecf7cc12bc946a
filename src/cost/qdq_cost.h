/* Internal: a node onnxruntime runs as a quantized kernel after its QDQ fusion (ortgraph/
 * ort_qdq.h), priced on its 8-bit operands (docs/cost.md, "Integer matrix products"). */
#ifndef TP_COST_QDQ_COST_H
#define TP_COST_QDQ_COST_H
#include "tensorplan/cost.h"

/* The dtype a matrix product or convolution of operands x and w (NULL: none) computes in: x's,
 * except for 8-bit integer operands, whose speed depends on the weights' sign: I8 when w is
 * signed (u8 × s8, MLAS's fast path: int8_speedup), U8 when both are unsigned (widened to 16
 * bits: u8u8_speedup). Used by tp_op_account and the QDQ pricing alike. */
tp_dtype tp__product_dtype(const tp_node *x, const tp_node *w);

/* tp_op_cost.direct_quant for a QLinearConv whose filter is w, accounted as oc. */
bool tp__quant_conv_direct(const tp_op_cost *oc, const tp_node *w);

/* Rewrite oc (tp_op_account's figures for the float node `id`, a QDQ target) for the quantized
 * kernel: the bytes of the 8-bit tensors its DequantizeLinear inputs stand for, the 8-bit output,
 * the integer product's dtype, weights packed at load (no B pack), a convolution's direct kernel.
 * TP_ERR_OVERFLOW from the byte sums (never for a graph that was accounted). */
tp_status tp__qdq_operands(const tp_graph *g, tp_node_id id, tp_op_cost *oc, tp_error *err);

#endif
