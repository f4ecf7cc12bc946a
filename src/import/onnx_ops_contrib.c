/* ONNX Runtime contrib ops (domain com.microsoft) as onnxruntime writes them in
 * its optimized graphs (session option optimizedModelFilePath) and as quantized
 * and transformer exports ship them (onnx_ops.h).
 *
 * Where a contrib op is a standard op with extras (FusedConv = Conv + activation,
 * FusedGemm, FusedMatMul = MatMul with transposes and a scale, QLinearAdd, the
 * com.microsoft Quantize/DequantizeLinear) its shape comes from the standard
 * rule, on adjusted inputs; the others have their own rule here. Every contrib
 * node becomes a custom node named after the op, run as an ordinary kernel. */
#include <string.h>

#include "import/onnx_ops.h"

/* The standard rule of op (default domain), or NULL. */
static tp_ox_rule_fn std_rule(const char *op) {
    const tp_ox_rule *(*fams[])(size_t *) = {
        tp__ox_rules_elementwise, tp__ox_rules_linalg, tp__ox_rules_shape, tp__ox_rules_index,
        tp__ox_rules_reduce,      tp__ox_rules_misc,   tp__ox_rules_const};
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        size_t n;
        const tp_ox_rule *r = fams[f](&n);
        for (size_t i = 0; i < n; i++)
            if (strcmp(r[i].op_type, op) == 0) return r[i].fn;
    }
    return NULL;
}

/* Run the standard rule `op` on the first n_in inputs (given shapes). */
static tp_status via_std(tp_ox_ctx *c, const char *op, uint32_t n_in, const tp_ox_in *ins) {
    tp_ox_rule_fn fn = std_rule(op);
    if (!fn) return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "no standard rule %s", op);
    const tp_ox_in *saved = c->in;
    uint32_t saved_n = c->n_in;
    c->in = ins ? ins : c->in;
    c->n_in = n_in < saved_n ? n_in : saved_n;
    tp_status st = fn(c);
    c->in = saved;
    c->n_in = saved_n;
    c->op.kind = TP_OP_CUSTOM; /* named after the contrib op by the converter */
    c->ir_in_set = false;
    return st;
}

static tp_status r_fused_conv(tp_ox_ctx *c) {
    return via_std(c, "Conv", 3, NULL); /* Z (sum input) has the output's shape */
}

static tp_status r_fused_gemm(tp_ox_ctx *c) {
    return via_std(c, "Gemm", 3, NULL);
}

/* FusedMatMul(A, B): alpha * op(A) op(B) with transA/transB (last two dims) and
 * transBatchA/B (batch dims moved after the matrix dims, not supported here). */
static tp_status r_fused_matmul(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st != TP_OK) return st;
    if (tp_ox_attr_int(c, "transBatchA", 0) || tp_ox_attr_int(c, "transBatchB", 0))
        return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "transBatchA/transBatchB are not supported");
    tp_ox_in ins[2] = {c->in[0], c->in[1]};
    const char *names[2] = {"transA", "transB"};
    for (int k = 0; k < 2; k++) {
        tp_shape *s = &ins[k].shape;
        if (!tp_ox_attr_int(c, names[k], 0) || s->rank < 2) continue;
        tp_dim t = s->dims[s->rank - 1];
        s->dims[s->rank - 1] = s->dims[s->rank - 2];
        s->dims[s->rank - 2] = t;
    }
    return via_std(c, "MatMul", 2, ins);
}

/* Elementwise with a broadcast operand: BiasGelu(A, bias), FastGelu(X, bias?),
 * BiasAdd(X, bias, skip), QuickGelu(X), com.microsoft Gelu(X). */
static tp_status r_broadcast(tp_ox_ctx *c) {
    if (c->n_in < 1 || !c->in[0].present) return tp_ox_fail(c, TP_ERR_PARSE, "needs an input");
    const tp_shape *shapes[8];
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->n_in && n < 8; i++)
        if (c->in[i].present) shapes[n++] = &c->in[i].shape;
    tp_status st = tp_ox_broadcast(c, shapes, n, &c->out[0].shape);
    c->out[0].elem_type = c->in[0].elem_type;
    return st;
}

/* QLinearAdd/QLinearMul(A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp). */
static tp_status r_qlinear_binary(tp_ox_ctx *c) {
    if (c->n_in < 7 || !c->in[0].present || !c->in[3].present)
        return tp_ox_fail(c, TP_ERR_PARSE, "needs A, scales and B");
    const tp_shape *shapes[2] = {&c->in[0].shape, &c->in[3].shape};
    tp_status st = tp_ox_broadcast(c, shapes, 2, &c->out[0].shape);
    c->out[0].elem_type = c->in[0].elem_type;
    return st;
}

/* QLinearSigmoid / QLinearLeakyRelu / QLinearSoftmax ...: shape and type of X. */
static tp_status r_contrib_same0(tp_ox_ctx *c) {
    if (c->n_in < 1 || !c->in[0].present) return tp_ox_fail(c, TP_ERR_PARSE, "needs an input");
    tp_ox_same(c, 0, 0);
    return TP_OK;
}

static tp_status r_quantize(tp_ox_ctx *c) {
    return via_std(c, "QuantizeLinear", 3, NULL);
}

static tp_status r_dequantize(tp_ox_ctx *c) {
    return via_std(c, "DequantizeLinear", 3, NULL);
}

/* SkipLayerNormalization(input, skip, gamma, beta?, bias?) -> output, mean?,
 * inv_std_var? ([..., 1]), input_skip_bias_sum? (input's shape); the
 * Simplified variants the same. */
static tp_status r_skip_layer_norm(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 3, 5);
    if (st != TP_OK) return st;
    tp_ox_same(c, 0, 0);
    const tp_shape *x = &c->in[0].shape;
    for (uint32_t k = 1; k < c->n_out && k < 4; k++) {
        c->out[k].shape = *x;
        c->out[k].elem_type = k == 3 ? c->in[0].elem_type : TP_ONNX_FLOAT;
        if (k < 3 && x->rank > 0) c->out[k].shape.dims[x->rank - 1] = tp_dim_static(1);
    }
    return TP_OK;
}

/* com.microsoft LayerNormalization / SimplifiedLayerNormalization: the standard
 * rule (mean and inv_std_var keep the normalized axes as 1). */
static tp_status r_layer_norm(tp_ox_ctx *c) {
    return via_std(c, "LayerNormalization", 3, NULL);
}

static tp_status head_dim(tp_ox_ctx *c, tp_dim hidden, int64_t heads, tp_dim *out) {
    if (heads <= 0) return tp_ox_fail(c, TP_ERR_PARSE, "num_heads must be positive");
    return tp_ox_dim(c, TP_SYM_DIV_FLOOR, hidden, tp_dim_static(heads), out);
}

/* present_* [B, kv_heads, total, head] with total = past + sequence. */
static tp_status present(tp_ox_ctx *c, uint32_t k, tp_dim b, int64_t heads, tp_dim total, tp_dim hd,
                         int32_t lead_two) {
    tp_shape *o = &c->out[k].shape;
    int32_t r = 0;
    if (lead_two) o->dims[r++] = tp_dim_static(2);
    o->dims[r++] = b;
    o->dims[r++] = tp_dim_static(heads);
    o->dims[r++] = total;
    o->dims[r++] = hd;
    o->rank = r;
    c->out[k].elem_type = c->in[0].elem_type;
    return TP_OK;
}

/* Attention(input [B,S,in], weights [in, q+k+v], bias, mask_index?, past?
 * [2,B,H,P,hd], ...; num_heads, qkv_hidden_sizes?) -> output [B,S,v], present
 * [2,B,H,P+S,hd]. */
static tp_status r_attention(tp_ox_ctx *c) {
    if (c->n_in < 2 || !c->in[0].present || !c->in[1].present)
        return tp_ox_fail(c, TP_ERR_PARSE, "needs input and weights");
    const tp_shape *x = &c->in[0].shape, *w = &c->in[1].shape;
    if (x->rank != 3 || w->rank != 2)
        return tp_ox_fail(c, TP_ERR_SHAPE, "input [B,S,in], weights 2-D");
    int64_t heads = tp_ox_attr_int(c, "num_heads", 0);
    uint32_t nq;
    const int64_t *qkv = tp_ox_attr_ints(c, "qkv_hidden_sizes", &nq);
    tp_dim v, hd, total = x->dims[1];
    tp_status st;
    if (qkv && nq == 3)
        v = tp_dim_static(qkv[2]);
    else if ((st = tp_ox_dim(c, TP_SYM_DIV_FLOOR, w->dims[1], tp_dim_static(3), &v)) != TP_OK)
        return st;
    if ((st = head_dim(c, v, heads, &hd)) != TP_OK) return st;
    c->out[0].shape = *x;
    c->out[0].shape.dims[2] = v;
    c->out[0].elem_type = c->in[0].elem_type;
    if (c->n_in > 4 && c->in[4].present && c->in[4].shape.rank == 5 &&
        (st = tp_ox_dim(c, TP_SYM_ADD, c->in[4].shape.dims[3], x->dims[1], &total)) != TP_OK)
        return st;
    if (c->n_out > 1) return present(c, 1, x->dims[0], heads, total, hd, 1);
    return TP_OK;
}

/* MultiHeadAttention(query [B,S,D], key?, value?, bias?, key_padding_mask?,
 * attention_bias?, past_key? [B,H,P,hd], past_value?) -> output [B,S,Dv],
 * present_key/value [B,H,P+L,hd]. */
static tp_status r_mha(tp_ox_ctx *c) {
    if (c->n_in < 1 || !c->in[0].present) return tp_ox_fail(c, TP_ERR_PARSE, "needs query");
    const tp_shape *q = &c->in[0].shape;
    if (q->rank != 3) return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "packed query layouts");
    int64_t heads = tp_ox_attr_int(c, "num_heads", 0);
    tp_dim dv = q->dims[2], kv_len = q->dims[1], hd;
    tp_status st;
    if (c->n_in > 2 && c->in[2].present && c->in[2].shape.rank == 3) {
        dv = c->in[2].shape.dims[2];
        kv_len = c->in[2].shape.dims[1];
    } else if (c->n_in > 2 && c->in[2].present && c->in[2].shape.rank == 4) {
        kv_len = c->in[2].shape.dims[2]; /* value already [B,H,L,hd] */
        if ((st = tp_ox_dim(c, TP_SYM_MUL, c->in[2].shape.dims[3], tp_dim_static(heads), &dv)) !=
            TP_OK)
            return st;
    }
    if ((st = head_dim(c, dv, heads, &hd)) != TP_OK) return st;
    c->out[0].shape = *q;
    c->out[0].shape.dims[2] = dv;
    c->out[0].elem_type = c->in[0].elem_type;
    tp_dim total = kv_len;
    if (c->n_in > 6 && c->in[6].present && c->in[6].shape.rank == 4 &&
        (st = tp_ox_dim(c, TP_SYM_ADD, c->in[6].shape.dims[2], kv_len, &total)) != TP_OK)
        return st;
    for (uint32_t k = 1; k < c->n_out && k < 3; k++)
        if ((st = present(c, k, q->dims[0], heads, total, hd, 0)) != TP_OK) return st;
    return TP_OK;
}

/* GroupQueryAttention(query [B,S,D], key [B,S,Dkv], value, past_key
 * [B,kvH,P,hd], past_value, seqlens_k, total_sequence_length, ...; num_heads,
 * kv_num_heads) -> output [B,S,D], present_key/value [B,kvH,max(P,total),hd]. */
static tp_status r_gqa(tp_ox_ctx *c) {
    if (c->n_in < 1 || !c->in[0].present) return tp_ox_fail(c, TP_ERR_PARSE, "needs query");
    const tp_shape *q = &c->in[0].shape;
    if (q->rank != 3) return tp_ox_fail(c, TP_ERR_SHAPE, "query must be [B,S,D]");
    int64_t heads = tp_ox_attr_int(c, "num_heads", 0);
    int64_t kv_heads = tp_ox_attr_int(c, "kv_num_heads", 0);
    bool packed = !(c->n_in > 1 && c->in[1].present);
    tp_dim hd, dq = q->dims[2], tmp;
    tp_status st;
    if (packed) { /* query packs q, k and v: D = (H + 2 kvH) hd */
        if ((st = head_dim(c, dq, heads + 2 * kv_heads, &hd)) != TP_OK ||
            (st = tp_ox_dim(c, TP_SYM_MUL, hd, tp_dim_static(heads), &dq)) != TP_OK)
            return st;
    } else if ((st = head_dim(c, dq, heads, &hd)) != TP_OK) {
        return st;
    }
    c->out[0].shape = *q;
    c->out[0].shape.dims[2] = dq;
    c->out[0].elem_type = c->in[0].elem_type;
    tp_dim total = q->dims[1];
    const tp_ox_value *tv = c->n_in > 6 && c->in[6].present ? c->in[6].value : NULL;
    if (tv && !tv->is_float && tv->n >= 1) total = tv->d[0];
    if (c->n_in > 3 && c->in[3].present && c->in[3].shape.rank == 4) {
        tmp = c->in[3].shape.dims[2];
        if ((st = tp_ox_dim(c, TP_SYM_MAX, tmp, total, &total)) != TP_OK) return st;
    }
    for (uint32_t k = 1; k < c->n_out && k < 3; k++)
        if ((st = present(c, k, q->dims[0], kv_heads, total, hd, 0)) != TP_OK) return st;
    return TP_OK;
}

/* MatMulNBits(A [..., K], B packed, scales, zero_points?, g_idx?, bias?; K, N,
 * bits, block_size) -> [..., N] of A's type. */
static tp_status r_matmul_nbits(tp_ox_ctx *c) {
    if (c->n_in < 3 || !c->in[0].present) return tp_ox_fail(c, TP_ERR_PARSE, "needs A, B, scales");
    int64_t n = tp_ox_attr_int(c, "N", -1);
    if (n < 0) return tp_ox_fail(c, TP_ERR_PARSE, "attribute N is required");
    const tp_shape *a = &c->in[0].shape;
    if (a->rank < 1) return tp_ox_fail(c, TP_ERR_SHAPE, "A needs rank >= 1");
    c->out[0].shape = *a;
    c->out[0].shape.dims[a->rank - 1] = tp_dim_static(n);
    c->out[0].elem_type = c->in[0].elem_type;
    return TP_OK;
}

/* RotaryEmbedding(input, position_ids, cos_cache, sin_cache): input's shape. */
static tp_status r_rotary(tp_ox_ctx *c) {
    return r_contrib_same0(c);
}

static const tp_ox_rule CONTRIB_RULES[] = {
    {"FusedConv", r_fused_conv},
    {"FusedGemm", r_fused_gemm},
    {"FusedMatMul", r_fused_matmul},
    {"Gelu", r_broadcast},
    {"FastGelu", r_broadcast},
    {"BiasGelu", r_broadcast},
    {"QuickGelu", r_broadcast},
    {"BiasAdd", r_broadcast},
    {"SkipLayerNormalization", r_skip_layer_norm},
    {"SkipSimplifiedLayerNormalization", r_skip_layer_norm},
    {"LayerNormalization", r_layer_norm},
    {"SimplifiedLayerNormalization", r_layer_norm},
    {"Attention", r_attention},
    {"MultiHeadAttention", r_mha},
    {"GroupQueryAttention", r_gqa},
    {"RotaryEmbedding", r_rotary},
    {"MatMulNBits", r_matmul_nbits},
    {"QuantizeLinear", r_quantize},
    {"DequantizeLinear", r_dequantize},
    {"QLinearAdd", r_qlinear_binary},
    {"QLinearMul", r_qlinear_binary},
    {"QLinearSigmoid", r_contrib_same0},
    {"QLinearLeakyRelu", r_contrib_same0},
    {"QLinearSoftmax", r_contrib_same0},
};

tp_ox_rule_fn tp__ox_contrib_rule(const char *op) {
    for (size_t i = 0; i < sizeof CONTRIB_RULES / sizeof CONTRIB_RULES[0]; i++)
        if (strcmp(CONTRIB_RULES[i].op_type, op) == 0) return CONTRIB_RULES[i].fn;
    return NULL;
}
