/* A QDQ target priced on its 8-bit operands (qdq_cost.h). */
#include "cost/qdq_cost.h"

#include "ortgraph/ort_qdq.h"

tp_dtype tp__product_dtype(const tp_node *x, const tp_node *w) {
    if (!tp_dtype_is_int8(x->dtype) || !w || !tp_dtype_is_int8(w->dtype)) return x->dtype;
    return w->dtype == TP_DTYPE_I8 ? TP_DTYPE_I8 : TP_DTYPE_U8;
}

bool tp__quant_conv_direct(const tp_op_cost *oc, const tp_node *w) {
    /* qlinearconv.cc (read): int8 weights with zero points of 0 take MLAS's symmetric
       convolutions (MlasConvSym / MlasConvSymDepthwise) on an indirection buffer, or on the input
       itself for a pointwise one; any depthwise filter takes the indirection buffer; otherwise
       an im2col feeds MLAS's integer GEMM */
    return oc->kernel == TP_KERNEL_DEPTHWISE || (w && w->dtype == TP_DTYPE_I8);
}

tp_status tp__qdq_operands(const tp_graph *g, tp_node_id id, tp_op_cost *oc, tp_error *err) {
    const tp_node *t = tp_graph_node(g, id);
    uint64_t read = 0, weights = 0, b;
    const tp_node *src[2] = {NULL, NULL};
    for (uint32_t i = 0; i < t->n_inputs; i++) {
        tp_node_id s = tp_ort_qdq_source(g, t, i);
        if (s < 0) continue;
        tp_status st = tp_graph_node_bytes(g, s, &b, err);
        if (st != TP_OK) return st;
        const tp_node *sn = tp_graph_node(g, s);
        if (i < 2) src[i] = sn;
        bool weight = tp_op_is_weight(sn->op.kind);
        if (!tp_add_u64(read, b, &read) || (weight && !tp_add_u64(weights, b, &weights)))
            return tp_error_set(err, TP_ERR_OVERFLOW, "graph cost: node %d: bytes overflow", id);
    }
    /* The elementwise kernels (QLinearAdd, QLinearMul, QLinearSigmoid, ...) dequantize each
       element, compute in float32 and quantize the result (or look it up in a table): their
       work is per element, as a float32 pass over the same elements, not per byte moved.
       yolo_like_qdq's 57 QLinearSigmoid and 57 QLinearMul took 4.7 ms at one thread against 0.73
       priced on 8-bit bytes (docs/cost.md, "Integer matrix products"). So only a product's
       operands are priced 8-bit; the others keep the float node's bytes. */
    if (!tp_ort_qdq_product(t) || !src[0]) return TP_OK;
    uint32_t esz = tp_dtype_elem_bytes_hint(t->dtype);
    oc->bytes_read = read;
    oc->weight_bytes = weights;
    oc->bytes_written = esz > 1 ? oc->bytes_written / esz : oc->bytes_written; /* 8-bit out */
    oc->compute_dtype = tp__product_dtype(src[0], src[1]);
    if (src[1] && tp_op_is_weight(src[1]->op.kind))
        oc->pack_b_elems = 0; /* packed once, when the session loads */
    oc->direct_quant = t->op.kind == TP_OP_CONV && tp__quant_conv_direct(oc, src[1]);
    return TP_OK;
}
