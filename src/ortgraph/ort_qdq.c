/* onnxruntime's QDQ fusion (ort_qdq.h). */
#include "ortgraph/ort_qdq.h"

#include <string.h>

static bool custom_is(const tp_node *n, const char *name) {
    return n && n->op.kind == TP_OP_CUSTOM && strcmp(n->op.attrs.custom.name, name) == 0;
}

bool tp_ort_qdq_product(const tp_node *n) {
    return n->op.kind == TP_OP_CONV || n->op.kind == TP_OP_MATMUL || n->op.kind == TP_OP_GEMM;
}

/* The ops onnxruntime's CPU selectors take between DQ and Q nodes (qdq_selectors.cc, read). */
static bool target_kind(const tp_node *n) {
    if (tp_ort_qdq_product(n)) return true;
    switch (n->op.kind) {
    case TP_OP_CONCAT:
        return true;
    case TP_OP_BINARY:
        return n->op.sub == TP_BINARY_ADD || n->op.sub == TP_BINARY_MUL;
    case TP_OP_POOL:
        return n->op.sub != TP_POOL_LP;
    case TP_OP_UNARY:
        return n->op.sub == TP_UNARY_SIGMOID || n->op.sub == TP_UNARY_LEAKY_RELU;
    default:
        return false;
    }
}

tp_node_id tp_ort_qdq_source(const tp_graph *g, const tp_node *target, uint32_t i) {
    if (i >= target->n_inputs || target->inputs[i] < 0) return -1;
    const tp_node *d = tp_graph_node(g, target->inputs[i]);
    if (!custom_is(d, "DequantizeLinear") || d->n_inputs < 1) return -1;
    return d->inputs[0];
}

/* Whether input i of t is a DequantizeLinear of the kind its place asks for. */
static bool dq_input(const tp_graph *g, const tp_node *t, uint32_t i) {
    tp_node_id s = tp_ort_qdq_source(g, t, i);
    const tp_node *src = s >= 0 ? tp_graph_node(g, s) : NULL;
    if (!src) return false;
    if (!tp_op_is_weight(src->op.kind)) return src->dtype == TP_DTYPE_U8;   /* an activation */
    if (tp_ort_qdq_product(t) && i == 2) return src->dtype == TP_DTYPE_I32; /* the bias */
    return tp_dtype_is_int8(src->dtype);
}

void tp_ort_qdq_mark(const tp_graph *g, const uint32_t *readers, uint32_t *target_reads,
                     uint8_t *qdq) {
    uint32_t n = tp_graph_node_count(g);
    /* each QuantizeLinear to uint8 and the node it quantizes, when that node is its only reader */
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *q = tp_graph_node(g, (tp_node_id)id);
        if (!custom_is(q, "QuantizeLinear") || q->n_inputs < 1 || q->dtype != TP_DTYPE_U8) continue;
        tp_node_id t = q->inputs[0];
        const tp_node *tn = t >= 0 ? tp_graph_node(g, t) : NULL;
        if (!tn || readers[t] != 1 || (tn->flags & TP_NODE_OUTPUT) || !target_kind(tn) ||
            tn->n_inputs == 0 || qdq[t] != TP_ORT_QDQ_NONE)
            continue;
        bool ok = true;
        for (uint32_t i = 0; ok && i < tn->n_inputs; i++)
            ok = dq_input(g, tn, i);
        if (!ok) continue;
        qdq[t] = TP_ORT_QDQ_TARGET;
        qdq[id] = TP_ORT_QDQ_OUT;
    }
    /* a DequantizeLinear whose every reader is a target runs no kernel of its own (onnxruntime
       gives each target its own copy, EnsureUniqueDQForNodeUnit, and the fusion removes them) */
    for (uint32_t t = 0; t < n; t++) {
        const tp_node *tn = tp_graph_node(g, (tp_node_id)t);
        if (!tn || qdq[t] != TP_ORT_QDQ_TARGET) continue;
        for (uint32_t i = 0; i < tn->n_inputs; i++)
            if (tn->inputs[i] >= 0 && (uint32_t)tn->inputs[i] < n) target_reads[tn->inputs[i]]++;
    }
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *d = tp_graph_node(g, (tp_node_id)id);
        if (custom_is(d, "DequantizeLinear") && !(d->flags & TP_NODE_OUTPUT) && readers[id] > 0 &&
            target_reads[id] == readers[id])
            qdq[id] = TP_ORT_QDQ_DQ;
    }
}
