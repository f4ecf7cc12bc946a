/* Fusion of epilogue ops into GEMM-class kernels (onnxruntime CPU: ConvBNFusion,
 * ConvActivationFusion, MatMulAddFusion, GemmActivationFusion, NCHWc Conv+Sum+activation,
 * NCHWc BatchNormalization + activation), and of a residual Add into the layer normalization
 * after it (SkipLayerNormFusion). */
#include "cost/fusion.h"

#include <string.h>

#include "core/mem.h"
#include "ortgraph/ort_qdq.h"

enum { STEP_NORM = 1, STEP_ADD = 2, STEP_ACT = 4, HEAD_CONV = 8 };

static bool fusion_same_shape(const tp_graph *g, const tp_shape *a, const tp_shape *b) {
    if (a->rank != b->rank) return false;
    for (int32_t i = 0; i < a->rank; i++)
        if (!tp_graph_dim_equal(g, a->dims[i], b->dims[i])) return false;
    return true;
}

static bool fusion_is_gemm(tp_op_kind k) {
    return k == TP_OP_CONV || k == TP_OP_MATMUL || k == TP_OP_GEMM || k == TP_OP_FUSED_MATMUL;
}

/* The epilogue step this node would be (0 = none). */
static int fusion_step(const tp_node *n) {
    if (n->op.kind == TP_OP_NORM && n->op.sub == TP_NORM_BATCH) return STEP_NORM;
    if (n->op.kind == TP_OP_BINARY && n->op.sub == TP_BINARY_ADD && n->n_inputs == 2)
        return STEP_ADD;
    if (n->op.kind == TP_OP_UNARY) {
        switch ((tp_unary_fn)n->op.sub) {
        case TP_UNARY_RELU:
        case TP_UNARY_CLIP:
        case TP_UNARY_SIGMOID:
        case TP_UNARY_TANH:
        case TP_UNARY_LEAKY_RELU:
        case TP_UNARY_HARD_SIGMOID:
            return STEP_ACT;
        default:
            return 0;
        }
    }
    return 0;
}

tp_status tp_cost_fusion_mark(const tp_graph *g, const tp_ort_xform *x, uint8_t *fused,
                              const tp_allocator *alloc, tp_error *err) {
    uint32_t count = tp_graph_node_count(g);
    if (count == 0) return TP_OK;
    memset(fused, 0, count);
    uint32_t *uses = tp_mem_calloc(alloc, count, sizeof *uses);
    uint8_t *chain = tp_mem_calloc(alloc, count, 1); /* steps taken by the chain ending here */
    if (!uses || !chain) {
        tp_mem_free(alloc, uses, (size_t)count * sizeof *uses);
        tp_mem_free(alloc, chain, count);
        return tp_error_set(err, TP_ERR_NOMEM, "graph cost: out of memory for the fusion pass");
    }
    for (uint32_t i = 0; i < count; i++) {
        const tp_node *n = tp_graph_node(g, (tp_node_id)i);
        for (uint32_t k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] >= 0 && (uint32_t)n->inputs[k] < count) uses[n->inputs[k]]++;
    }
    /* nodes are topologically ordered: a producer is decided before its consumers */
    for (uint32_t i = 0; i < count; i++) {
        const tp_node *n = tp_graph_node(g, (tp_node_id)i);
        int step = fusion_step(n);
        if (!step) continue;
        for (uint32_t k = 0; k < n->n_inputs && k < 2; k++) {
            tp_node_id p = n->inputs[k];
            if (p < 0 || (uint32_t)p >= count || uses[p] != 1) continue;
            if (step != STEP_ADD && k > 0) break; /* norm / activation: data is input 0 */
            const tp_node *pn = tp_graph_node(g, p);
            if (pn->flags & TP_NODE_OUTPUT) continue;
            if (step == STEP_ACT && !fused[p] && fusion_step(pn) == STEP_NORM) {
                /* a batch normalization of its own (after a concat, say): onnxruntime's NCHWc
                   transformer runs it as a depthwise 1×1 convolution with the activation
                   fused, one pass over the tensor */
                fused[i] = 1;
                chain[i] = STEP_NORM | STEP_ACT;
                break;
            }
            bool head = fusion_is_gemm(pn->op.kind) && !fused[p];
            bool tail = fused[p] == TP_FUSION_ABSORBED;
            if (!head && !tail) continue;
            /* steps come in order norm, add, activation; each at most once */
            if ((chain[p] & ~HEAD_CONV) >= step) continue;
            uint8_t conv =
                head ? (pn->op.kind == TP_OP_CONV ? HEAD_CONV : 0) : (chain[p] & HEAD_CONV);
            if (step == STEP_ADD) {
                /* the other operand: a bias (param/constant) or, for a 2-D conv, a residual of
                   the same shape (onnxruntime's NCHWc Conv+Sum and ConvAddActivationFusion,
                   both for 4-D tensors only: a 1-D or 3-D conv's residual Add runs alone) */
                const tp_node *o = tp_graph_node(g, n->inputs[1 - k]);
                bool bias = tp_op_is_weight(o->op.kind);
                bool sum =
                    conv && pn->shape.rank == 4 && fusion_same_shape(g, &o->shape, &pn->shape);
                if (!bias && !sum) continue;
            }
            fused[i] = TP_FUSION_ABSORBED;
            chain[i] = (uint8_t)(chain[p] | step | conv);
            break;
        }
    }
    /* erf GELUs: onnxruntime's GeluFusion / BiasGeluFusion, the memory profile's rule */
    for (uint32_t i = 0; i < count && i < x->n; i++) {
        int32_t root = x->gelu_of[i];
        if (root < 0 || fused[i] != TP_FUSION_NONE) continue;
        fused[i] = (uint32_t)root == i ? TP_FUSION_GELU : TP_FUSION_ABSORBED;
    }
    /* residual Add + LayerNormalization: onnxruntime's SkipLayerNormFusion, the memory
       profile's rule (ort_xform.c); an Add this pass already took into a kernel stays there */
    for (uint32_t i = 0; i < count && i < x->n; i++) {
        if (x->skip_norm_of[i] != (int32_t)i || fused[i] != TP_FUSION_NONE) continue;
        tp_node_id p = tp_graph_node(g, (tp_node_id)i)->inputs[0];
        if (p < 0 || (uint32_t)p >= count || fused[p] != TP_FUSION_NONE) continue;
        fused[p] = TP_FUSION_ABSORBED;
        fused[i] = TP_FUSION_SKIP_NORM;
    }
    /* a Cast onnxruntime's optimizer removes (ort_xform.h, same_as): no kernel at all; nor the
       DequantizeLinear and QuantizeLinear nodes of a QDQ group (ort_qdq.h), which its quantized
       kernel replaces (the target keeps the kernel, priced on 8-bit operands) */
    for (uint32_t i = 0; i < count && i < x->n; i++)
        if ((x->same_as[i] >= 0 || x->qdq[i] == TP_ORT_QDQ_DQ || x->qdq[i] == TP_ORT_QDQ_OUT) &&
            fused[i] == TP_FUSION_NONE)
            fused[i] = TP_FUSION_ABSORBED;
    tp_mem_free(alloc, uses, (size_t)count * sizeof *uses);
    tp_mem_free(alloc, chain, count);
    return TP_OK;
}
