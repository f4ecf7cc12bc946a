/* Internal: a node onnxruntime runs as a quantized kernel after its QDQ fusion (ortgraph/
 * ort_qdq.h), priced on its 8-bit operands (docs/cost.md, "Integer matrix products"). */
#ifndef TP_COST_QDQ_COST_H
#define TP_COST_QDQ_COST_H
#include "tensorplan/cost.h"

/* Rewrite oc (tp_op_account's figures for the float node `id`, a QDQ target) for the quantized
 * kernel: the bytes of the 8-bit tensors its DequantizeLinear inputs stand for, the 8-bit output,
 * the integer product's dtype, weights packed at load (no B pack), a convolution's direct kernel.
 * TP_ERR_OVERFLOW from the byte sums (never for a graph that was accounted). */
tp_status tp__qdq_operands(const tp_graph *g, tp_node_id id, tp_op_cost *oc, tp_error *err);

#endif
