/* The graph onnxruntime's CPU provider runs after its optimizer at the default level "all":
 * which tensors its fusions remove, which stay in the NCHWc blocked layout, and the node
 * indices of its optimized graph (for the execution order). Modelled from onnxruntime 1.30's
 * source (core/optimizer: conv_bn_fusion.cc, conv_activation_fusion.cc, nchwc_transformer.cc,
 * skip_layer_norm_fusion.cc),
 * not copied.
 *
 * Fusions: Gelu written as Erf (and a bias Add before it) becomes one node (gelu_fuse); a
 * residual Add read only by the LayerNormalization after it becomes one SkipLayerNormalization
 * with it (skip_norm_fuse); x *
 * Sigmoid(x) becomes QuickGelu (silu_fuse); a MatMul absorbs a Transpose of the last two axes or
 * a scaling by a constant on its inputs or output (matmul_fuse); a Conv
 * whose only reader is a BatchNormalization with constant parameters absorbs
 * it; a Conv (with or without that BatchNormalization) whose only reader is a
 * Relu/Clip/Sigmoid/Tanh/LeakyRelu/HardSigmoid absorbs the activation. The absorbed tensor is
 * never allocated.
 *
 * Layout: a 2-D float Conv runs in the blocked NCHWc layout when it has groups 1 and input
 * channels under the block (it then reads NCHW) or aligned to 4 (ReorderInput's alignment),
 * whatever its output channels; when it is depthwise with channels aligned to 4; or when it is
 * grouped with input and output channels per group multiples of the block. Its output has its
 * channels rounded up to the block (16 with AVX-512, 8 with AVX2). Checked on onnxruntime 1.30's
 * optimized graphs (docs/cost.md, "Session 14": dense 24 -> 32, 20 -> 20, 7 -> 9 and depthwise
 * 116 converted; 1×1 58 -> 58, depthwise 58 and 8 or 24 channels per group not). Operators that
 * stay in that layout after it ("chain" nodes here): Relu/Clip/Sigmoid/Tanh/HardSigmoid
 * activations, QuickGelu, BatchNormalization (fused or converted), pooling, an Add or Mul of two
 * chain tensors of one shape, a Concat of chain tensors along whole channel blocks. An Add whose
 * one input is a blocked Conv without activation read by nothing else is fused into that Conv as
 * its Sum input, which the Conv overwrites in place; an activation after it is fused too. Where a
 * chain tensor is read by anything else (or is a graph output), a ReorderOutput node writes a plain
 * NCHW copy; where a converted Conv reading blocked input reads a plain tensor, a ReorderInput node
 * writes a blocked copy. A Resize stays blocked in the forms onnxruntime runs as its NCHWc
 * Upsample (attrs.resize.nchwc: constant integer scales, nearest or linear), else plain. A zero Pad
 * read only by a Conv or pooling is fused into it (pad_fusion.cc).
 *
 * Indices: the optimizer's new nodes come after the model's; each pass creates them in the
 * execution order of the graph it starts from (tp_ort_exec_keys in ort_order.c); origin and
 * stage record which node a group is created at and by which passes. */
#include <string.h>

#include "core/mem.h"
#include "ortgraph/ort_qdq.h"
#include "ortgraph/ort_xform.h"

/* onnxruntime's ReorderInput needs a channel count aligned to this (nchwc_transformer.cc) */
#define ORT_NCHWC_CHANNEL_ALIGN 4

static bool unary_chain(int32_t fn) {
    return fn == TP_UNARY_RELU || fn == TP_UNARY_CLIP || fn == TP_UNARY_SIGMOID ||
           fn == TP_UNARY_TANH || fn == TP_UNARY_HARD_SIGMOID;
}

/* activations onnxruntime fuses into a Conv on CPU */
static bool unary_fusable(int32_t fn) {
    return unary_chain(fn) || fn == TP_UNARY_LEAKY_RELU;
}

bool tp_ort_dim(const tp_graph *g, const tp_node *n, int axis, int64_t *v) {
    tp_error e;
    if (n->shape.rank != 4 || axis >= n->shape.rank) return false;
    return tp_graph_dim_value(g, n->shape.dims[axis], v, &e) == TP_OK && *v > 0;
}

bool tp_ort_conv_converts(uint64_t spatial, uint64_t groups, uint64_t cin, uint64_t cout,
                          uint32_t block) {
    const uint64_t b = block, align = ORT_NCHWC_CHANNEL_ALIGN;
    if (spatial != 2 || b == 0 || groups == 0 || cin == 0 || cout == 0) return false;
    if (groups > 1) {
        if (cout % align != 0) return false;
        if (groups == cin && groups == cout) return true; /* depthwise */
        return cin % groups == 0 && cout % groups == 0 && (cin / groups) % b == 0 &&
               (cout / groups) % b == 0;
    }
    return cin < b || cin % align == 0;
}

static bool half(tp_dtype t) {
    return t == TP_DTYPE_F16 || t == TP_DTYPE_BF16;
}

bool tp_ort_half_kernel(const tp_node *n) {
    return n && half(n->dtype) && n->op.kind == TP_OP_CONCAT;
}

bool tp_ort_widened(const tp_node *n) {
    return n && half(n->dtype) && !tp_op_is_boundary(n->op.kind) && n->op.kind != TP_OP_CAST &&
           !tp_ort_half_kernel(n);
}

bool tp_ort_casts_to_half(const tp_node *reader, const tp_node *producer) {
    return tp_ort_half_kernel(reader) && tp_ort_widened(producer);
}

bool tp_ort_casts_to_f32(const tp_node *reader, const tp_node *producer) {
    return reader && tp_ort_half_kernel(producer) && tp_ort_computes_f32(reader) &&
           reader->op.kind != TP_OP_CAST;
}

/* onnxruntime's type groups for Cast removal (insert_cast_transformer.cc, GetTypeGroup):
   bool 0 < integers 1 < floats 2 (float16, bfloat16, float32, float64: not the 8-bit floats);
   -1 for any other type */
static int cast_group(tp_dtype t) {
    const tp_dtype_info *di = tp_dtype_get(t);
    if (!di || di->block_elems != 1) return -1;
    return di->kind == 'B'                           ? 0
           : di->kind == 'I'                         ? 1
           : di->kind == 'F' && di->block_bytes >= 2 ? 2
                                                     : -1;
}

bool tp_ort_cast_removed(const tp_graph *g, const tp_node *n, const tp_node *p,
                         tp_node_id *target) {
    if (!n || !p || n->op.kind != TP_OP_CAST || (n->flags & TP_NODE_OUTPUT) || n->n_inputs < 1 ||
        n->inputs[0] < 0)
        return false;
    if (n->dtype == TP_DTYPE_F32 && tp_ort_widened(p)) { /* after its inserted Cast to half */
        *target = n->inputs[0];
        return true;
    }
    if (p->op.kind != TP_OP_CAST || p->n_inputs < 1 || p->inputs[0] < 0) return false;
    const tp_node *src = tp_graph_node(g, p->inputs[0]);
    int gs = src ? cast_group(src->dtype) : -1, gp = cast_group(p->dtype),
        gn = cast_group(n->dtype);
    if (!src || src->dtype != n->dtype || gs < 0 || gp < 0 || gn < 0 || (gs > gp && gn > gp))
        return false;
    *target = p->inputs[0];
    return true;
}

bool tp_ort_weight_widened(const tp_node *reader, const tp_node *w) {
    return w && half(w->dtype) && tp_ort_widened(reader);
}

bool tp_ort_computes_f32(const tp_node *n) {
    return n && (n->dtype == TP_DTYPE_F32 || tp_ort_widened(n));
}

bool tp_ort_conv_converted(const tp_graph *g, const tp_node *n, uint32_t block) {
    if (n->op.kind != TP_OP_CONV || !tp_ort_computes_f32(n) || n->n_inputs < 2) return false;
    const tp_node *x = tp_graph_node(g, n->inputs[0]);
    int64_t c, m, grp = n->op.attrs.conv.groups;
    if (!x || !tp_ort_dim(g, x, 1, &c) || !tp_ort_dim(g, n, 1, &m)) return false;
    return tp_ort_conv_converts((uint64_t)n->op.attrs.conv.spatial, grp > 1 ? (uint64_t)grp : 1,
                                (uint64_t)c, (uint64_t)m, block);
}

uint32_t tp_ort_recurrent_gates(const tp_node *n) {
    const char *k = n && n->op.kind == TP_OP_CUSTOM ? n->op.attrs.custom.name : NULL;
    if (!k) return 0;
    return strcmp(k, "LSTM") == 0 ? 4 : strcmp(k, "GRU") == 0 ? 3 : strcmp(k, "RNN") == 0 ? 1 : 0;
}

bool tp_ort_conv_reads_nchw(const tp_graph *g, const tp_node *n, uint32_t block) {
    const tp_node *x = n->n_inputs > 0 ? tp_graph_node(g, n->inputs[0]) : NULL;
    int64_t c;
    return x && n->op.attrs.conv.groups == 1 && tp_ort_dim(g, x, 1, &c) && c < (int64_t)block;
}

static bool same_dims(const tp_graph *g, const tp_node *x, const tp_node *y) {
    if (!x || !y || x->shape.rank != y->shape.rank) return false;
    for (int32_t i = 0; i < x->shape.rank && i < TP_MAX_RANK; i++) {
        int64_t a, b;
        tp_error e;
        if (tp_graph_dim_value(g, x->shape.dims[i], &a, &e) != TP_OK ||
            tp_graph_dim_value(g, y->shape.dims[i], &b, &e) != TP_OK || a != b)
            return false;
    }
    return true;
}

bool tp_ort_pool_converts_plain(const tp_graph *g, const tp_node *n, uint32_t block) {
    const tp_node *in;
    int64_t c;
    return block > 0 && n->op.kind == TP_OP_POOL && n->op.sub != TP_POOL_LP &&
           tp_ort_computes_f32(n) && n->shape.rank == 4 && n->n_inputs >= 1 && n->inputs[0] >= 0 &&
           (in = tp_graph_node(g, n->inputs[0])) != NULL && tp_ort_dim(g, in, 1, &c) &&
           c % (int64_t)block == 0;
}

static bool is_chain(const tp_graph *g, const uint8_t *chain, const tp_node *n, uint32_t block) {
    if (!tp_ort_computes_f32(n) || n->shape.rank != 4) return false;
    if (n->op.kind == TP_OP_CONV) return tp_ort_conv_converted(g, n, block);
    if (tp_ort_pool_converts_plain(g, n, block)) return true;
    if (n->n_inputs < 1 || n->inputs[0] < 0 || !chain[n->inputs[0]]) return false;
    switch (n->op.kind) {
    case TP_OP_UNARY:
        return unary_chain(n->op.sub);
    case TP_OP_POOL:
        return n->op.sub != TP_POOL_LP;
    case TP_OP_NORM:
        return n->op.sub == TP_NORM_BATCH;
    case TP_OP_RESIZE: /* TransformResize: its Upsample on blocked input */
        return n->op.attrs.resize.nchwc;
    case TP_OP_PAD: /* fused into its Conv or pooling reader (pad_fuse): the reader's layout */
        return true;
    case TP_OP_CONCAT: /* TransformConcat: channels, every input blocked with whole blocks */
        if (n->op.attrs.axis.axis != 1 && n->op.attrs.axis.axis != -3) return false;
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            const tp_node *in = n->inputs[i] >= 0 ? tp_graph_node(g, n->inputs[i]) : NULL;
            int64_t c;
            if (!in || !chain[n->inputs[i]] || !tp_ort_dim(g, in, 1, &c) || c % (int64_t)block != 0)
                return false;
        }
        return true;
    case TP_OP_BINARY: /* TransformBinary: Add and Mul of two blocked tensors of one shape */
        return (n->op.sub == TP_BINARY_ADD || n->op.sub == TP_BINARY_MUL) && n->n_inputs == 2 &&
               n->inputs[1] >= 0 && chain[n->inputs[1]] &&
               same_dims(g, tp_graph_node(g, n->inputs[0]), tp_graph_node(g, n->inputs[1]));
    default:
        return false;
    }
}

static bool xform_is_weight(const tp_graph *g, tp_node_id id) {
    const tp_node *n = tp_graph_node(g, id);
    return n && (tp_op_is_weight(n->op.kind));
}

static const tp_node *binary_of(const tp_graph *g, tp_node_id id, int32_t fn) {
    const tp_node *n = id >= 0 ? tp_graph_node(g, id) : NULL;
    return n && n->op.kind == TP_OP_BINARY && n->op.sub == fn && n->n_inputs == 2 ? n : NULL;
}

/* Erf(Div(in, constant)) + constant, read once each: *erf and *dv receive the nodes. */
static bool erf_term(const tp_graph *g, const uint32_t *readers, tp_node_id ad_id, tp_node_id in,
                     tp_node_id *erf, tp_node_id *dv) {
    const tp_node *ad = binary_of(g, ad_id, TP_BINARY_ADD);
    if (!ad || readers[ad_id] != 1) return false;
    for (int k = 0; k < 2; k++) {
        const tp_node *e = ad->inputs[k] >= 0 ? tp_graph_node(g, ad->inputs[k]) : NULL;
        if (!e || e->op.kind != TP_OP_UNARY || e->op.sub != TP_UNARY_ERF || e->n_inputs < 1 ||
            !xform_is_weight(g, ad->inputs[1 - k]) || readers[ad->inputs[k]] != 1)
            continue;
        const tp_node *d = binary_of(g, e->inputs[0], TP_BINARY_DIV);
        if (!d || d->inputs[0] != in || !xform_is_weight(g, d->inputs[1]) ||
            readers[e->inputs[0]] != 1)
            continue;
        *erf = ad->inputs[k];
        *dv = e->inputs[0];
        return true;
    }
    return false;
}

/* matmul_add_fusion.cc (read), which runs before BiasGeluFusion: a MatMul read only by an Add of a
 * constant bias becomes a Gemm when its weight is a 2-D constant and its input is 2-D, or of a
 * shape onnxruntime knows whole (reshaped to 2-D around the Gemm; then the bias must be 1-D). The
 * GELU after such an Add is a plain Gelu: the bias went into the Gemm (onnxruntime 1.30's profiles:
 * BiasGelu in vit_b_16, convnext_tiny, bert_base, exported with a symbolic batch; Gemm and Gelu in
 * vit_b_32, wav2vec2_base, maxvit_t, exported with fixed sizes). */
static bool matmul_add_fuses(const tp_graph *g, const uint32_t *readers, const tp_node *add) {
    for (int k = 0; k < 2; k++) {
        tp_node_id mm_id = add->inputs[k], bias_id = add->inputs[1 - k];
        const tp_node *mm = mm_id >= 0 ? tp_graph_node(g, mm_id) : NULL;
        if (!mm || mm->op.kind != TP_OP_MATMUL || mm->n_inputs != 2 || readers[mm_id] != 1 ||
            (mm->flags & TP_NODE_OUTPUT) || !xform_is_weight(g, bias_id) ||
            !xform_is_weight(g, mm->inputs[1]))
            continue;
        const tp_node *a = tp_graph_node(g, mm->inputs[0]), *w = tp_graph_node(g, mm->inputs[1]);
        const tp_node *b = tp_graph_node(g, bias_id);
        if (!a || w->shape.rank != 2 || !tp_shape_is_static(&w->shape)) continue;
        if (a->shape.rank == 2) return b->shape.rank <= 2;
        return b->shape.rank == 1 && tp_shape_is_static(&a->shape) &&
               !(a->flags & TP_NODE_DIMS_AT_RUNTIME);
    }
    return false;
}

/* gelu_fusion.cc and bias_gelu_fusion.cc: Mul(Mul(x, Add(Erf(Div(x, c)), 1)), 0.5), in any operand
 * order, becomes one Gelu node (and an Add of a constant bias before it, read by nothing else,
 * becomes BiasGelu unless MatMulAddFusion took it into a Gemm first): the intermediate tensors
 * are never allocated. out: the last Mul. */
static void gelu_fuse(const tp_graph *g, const uint32_t *readers, tp_ort_xform *x, tp_node_id out) {
    const tp_node *m2 = binary_of(g, out, TP_BINARY_MUL);
    if (!m2) return;
    for (int k = 0; k < 2; k++) {
        tp_node_id m1_id = m2->inputs[k], erf = -1, dv = -1;
        const tp_node *m1 = binary_of(g, m1_id, TP_BINARY_MUL);
        if (!m1 || !xform_is_weight(g, m2->inputs[1 - k]) || readers[m1_id] != 1) continue;
        for (int j = 0; j < 2; j++) {
            tp_node_id ad = m1->inputs[j], in = m1->inputs[1 - j];
            if (!erf_term(g, readers, ad, in, &erf, &dv)) continue;
            x->absorbed[m1_id] = x->absorbed[ad] = x->absorbed[erf] = x->absorbed[dv] = 1;
            x->gelu_of[m1_id] = x->gelu_of[ad] = x->gelu_of[erf] = x->gelu_of[dv] = out;
            x->gelu_of[out] = out;
            const tp_node *bias = binary_of(g, in, TP_BINARY_ADD);
            if (bias && readers[in] == 2 &&
                (xform_is_weight(g, bias->inputs[0]) || xform_is_weight(g, bias->inputs[1]))) {
                x->absorbed[in] = 1; /* into the BiasGelu, or into a Gemm before it */
                x->gelu_of[in] = out;
                if (!matmul_add_fuses(g, readers, bias)) x->stage[out] |= TP_ORT_MADE_BIAS_GELU;
            }
            x->key[out] = (uint64_t)x->n + (uint64_t)out;
            x->stage[out] |= TP_ORT_MADE_FUSED;
            return;
        }
    }
}

static bool skip_norm_dtype(tp_dtype t) {
    return t == TP_DTYPE_F32 || t == TP_DTYPE_F16 || t == TP_DTYPE_BF16;
}

/* An Add that onnxruntime's SkipLayerNormFusion (skip_layer_norm_fusion.cc, read) takes into the
   layer normalization it feeds: two float addends of rank 3 whose dims its shape inference knows
   equal: the last two numbers, the first a number or one named symbol (a batch). Derived symbolic
   dims are unknown there (no data propagation), and so is every dim downstream of a node whose
   output dims come from values computed at run time (`late`: TP_NODE_DIMS_AT_RUNTIME there or
   upstream; vit_b_16's class token, expanded to a batch read by Shape, leaves its final Add and
   LayerNormalization apart in onnxruntime's profile). The caller checks that the normalization is
   the Add's only reader. */
static bool skip_norm_add(const tp_graph *g, const tp_node *add, const uint8_t *late) {
    if (add->op.kind != TP_OP_BINARY || add->op.sub != TP_BINARY_ADD || add->n_inputs != 2 ||
        (add->flags & TP_NODE_OUTPUT) || !skip_norm_dtype(add->dtype))
        return false;
    const tp_node *a = tp_graph_node(g, add->inputs[0]), *b = tp_graph_node(g, add->inputs[1]);
    if (!a || !b || late[add->inputs[0]] || late[add->inputs[1]] || a->shape.rank != 3 ||
        b->shape.rank != 3 || !skip_norm_dtype(a->dtype) || !skip_norm_dtype(b->dtype))
        return false;
    for (int32_t k = 0; k < 3; k++) {
        tp_dim x = a->shape.dims[k], y = b->shape.dims[k];
        if (tp_dim_is_static(x) && tp_dim_is_static(y) && x.size == y.size) continue;
        tp_sym_op op;
        tp_dim l, r;
        bool named = !tp_dim_is_static(x) && x.sym == y.sym && !tp_graph_dim_def(g, x, &op, &l, &r);
        if (k > 0 || !named) return false;
    }
    return true;
}

/* skip_layer_norm_fusion.cc: a LayerNormalization whose data input is such an Add, read by it
 * alone, becomes one SkipLayerNormalization node created by the fusion; the Add's tensor is
 * never allocated. `late` as in skip_norm_add. */
static void skip_norm_fuse(const tp_graph *g, const uint32_t *readers, const uint8_t *late,
                           tp_ort_xform *x, tp_node_id id) {
    const tp_node *nd = tp_graph_node(g, id);
    if (!nd || nd->op.kind != TP_OP_NORM || nd->op.sub != TP_NORM_LAYER || nd->n_inputs == 0)
        return;
    tp_node_id add = nd->inputs[0];
    if (add < 0 || (uint32_t)add >= x->n || readers[add] != 1 || x->absorbed[add] ||
        x->gelu_of[add] >= 0 || !skip_norm_add(g, tp_graph_node(g, add), late))
        return;
    x->absorbed[add] = 1;
    x->skip_norm_of[add] = x->skip_norm_of[id] = id;
    x->key[id] = (uint64_t)x->n + (uint64_t)id;
    x->stage[id] |= TP_ORT_MADE_FUSED;
}

/* A weight holding one value. */
static bool scalar_weight(const tp_graph *g, tp_node_id id) {
    const tp_node *n = id >= 0 ? tp_graph_node(g, id) : NULL;
    if (!n || (n->op.kind != TP_OP_PARAM && n->op.kind != TP_OP_CONSTANT)) return false;
    for (int32_t i = 0; i < n->shape.rank && i < TP_MAX_RANK; i++)
        if (!tp_dim_is_static(n->shape.dims[i]) || n->shape.dims[i].size != 1) return false;
    return true;
}

/* A Mul or Div by a scalar weight: *x receives the other operand. */
static bool scale_of(const tp_graph *g, const tp_node *n, tp_node_id *x) {
    if (n->op.kind != TP_OP_BINARY || n->n_inputs != 2) return false;
    if (n->op.sub == TP_BINARY_DIV && scalar_weight(g, n->inputs[1])) {
        *x = n->inputs[0];
        return true;
    }
    if (n->op.sub != TP_BINARY_MUL) return false;
    for (int k = 0; k < 2; k++)
        if (scalar_weight(g, n->inputs[1 - k])) {
            *x = n->inputs[k];
            return true;
        }
    return false;
}

/* A Transpose that swaps the last two axes only (TransposeMatMul folds it into the MatMul). */
static bool swaps_last_two(const tp_node *n) {
    int32_t r = n->shape.rank;
    if (n->op.kind != TP_OP_TRANSPOSE || r < 2 || r > TP_MAX_RANK) return false;
    const int32_t *p = n->op.attrs.transpose.perm;
    for (int32_t i = 0; i < r - 2; i++)
        if (p[i] != i) return false;
    return p[r - 2] == r - 1 && p[r - 1] == r - 2;
}

static bool is_matmul(const tp_graph *g, tp_node_id id) {
    const tp_node *n = id >= 0 ? tp_graph_node(g, id) : NULL;
    return n && (n->op.kind == TP_OP_MATMUL || n->op.kind == TP_OP_FUSED_MATMUL);
}

/* matmul_scale_fusion.cc, matmul_transpose_fusion.cc, quick_gelu_fusion.cc: a Transpose of the
 * last two axes or a scaling by a constant read only by a MatMul, and a MatMul read only by a
 * scaling, fold into one FusedMatMul; Mul(x, Sigmoid(x)) becomes QuickGelu (plain layout). */
static void matmul_fuse(const tp_graph *g, const uint32_t *readers, tp_ort_xform *x,
                        tp_node_id id) {
    const tp_node *nd = tp_graph_node(g, id);
    tp_node_id in;
    if (!nd) return;
    if (is_matmul(g, id)) {
        for (uint32_t i = 0; i < 2 && i < nd->n_inputs; i++) {
            tp_node_id t = nd->inputs[i];
            const tp_node *tn = t >= 0 ? tp_graph_node(g, t) : NULL;
            if (!tn || readers[t] != 1 || x->absorbed[t] || (x->stage[t] & TP_ORT_MADE_FUSED))
                continue;
            if (swaps_last_two(tn) || scale_of(g, tn, &in)) {
                x->absorbed[t] = 1;
                x->key[id] = (uint64_t)x->n + (uint64_t)id;
                x->stage[id] |= TP_ORT_MADE_FUSED;
            }
        }
    } else if (!(x->stage[id] & TP_ORT_MADE_FUSED) && scale_of(g, nd, &in) && is_matmul(g, in) &&
               readers[in] == 1) {
        x->absorbed[in] = 1;
        x->key[id] = (uint64_t)x->n + (uint64_t)id;
        x->stage[id] |= TP_ORT_MADE_FUSED;
    }
}

/* Mul(x, Sigmoid(x)) with the Sigmoid read once: QuickGelu, an elementwise kernel that onnxruntime
 * 1.30 runs on x's layout (blocked after a blocked Conv: its optimized graphs of efficientnet_b0).
 */
static bool silu_fuse(const tp_graph *g, const uint32_t *readers, tp_ort_xform *x, tp_node_id id) {
    const tp_node *m = binary_of(g, id, TP_BINARY_MUL);
    for (int k = 0; m && k < 2; k++) {
        tp_node_id s = m->inputs[k];
        const tp_node *sn = s >= 0 ? tp_graph_node(g, s) : NULL;
        if (!sn || sn->op.kind != TP_OP_UNARY || sn->op.sub != TP_UNARY_SIGMOID ||
            sn->n_inputs < 1 || sn->inputs[0] != m->inputs[1 - k] || readers[s] != 1)
            continue;
        x->absorbed[s] = 1;
        x->chain[id] = m->inputs[1 - k] >= 0 && x->chain[m->inputs[1 - k]];
        x->key[id] = (uint64_t)x->n + (uint64_t)id;
        x->stage[id] |= TP_ORT_MADE_FUSED;
        return true;
    }
    return false;
}

/* pad_fusion.cc: a zero Pad (its pads a constant) of the spatial axes only (no negative pads), not
 * a graph output, whose only reader is a Conv or a max/average pooling, becomes that reader's
 * padding: its tensor is never allocated and the reader reads the Pad's input. */
static bool pad_fuse(const tp_graph *g, const uint32_t *readers, const uint8_t *chain,
                     tp_node_id id) {
    const tp_node *p = tp_graph_node(g, id);
    if (!p || !p->op.attrs.pad.zero_fill || !p->op.attrs.pad.pads_const || readers[id] != 1 ||
        p->shape.rank < 3 || p->shape.rank > TP_MAX_RANK)
        return false;
    for (int32_t i = 0; i < p->shape.rank; i++) {
        int64_t b = p->op.attrs.pad.begin[i], e = p->op.attrs.pad.end[i];
        if (b < 0 || e < 0 || (i < 2 && (b || e))) return false;
    }
    uint32_t n = tp_graph_node_count(g);
    for (uint32_t k = (uint32_t)id + 1; k < n; k++) { /* its reader: ids are topological */
        const tp_node *r = tp_graph_node(g, (tp_node_id)k);
        if (!r || r->n_inputs < 1) continue;
        bool reads = false;
        for (uint32_t i = 0; i < r->n_inputs; i++)
            reads = reads || r->inputs[i] == id;
        if (!reads) continue;
        /* a plain input of a Conv: kept (its ReorderInput copy is not emulated through it) */
        return r->inputs[0] == id && ((r->op.kind == TP_OP_CONV && chain[p->inputs[0]]) ||
                                      (r->op.kind == TP_OP_POOL &&
                                       (r->op.sub == TP_POOL_MAX || r->op.sub == TP_POOL_AVG)));
    }
    return false;
}

/* Conv-unit states: a Conv (BatchNormalization folded in) without activation, the same with a
 * fused Sum, and a unit closed by its activation. */
enum { UNIT_NONE = 0, UNIT_CONV, UNIT_SUM, UNIT_ACT };

void tp_ort_xform_free(const tp_graph *g, tp_ort_xform *x) {
    const tp_allocator *a = tp_graph_allocator(g);
    size_t cap = (size_t)x->n + 1;
    tp_mem_free(a, x->chain, cap);
    tp_mem_free(a, x->absorbed, cap);
    tp_mem_free(a, x->sum_of, cap * sizeof *x->sum_of);
    tp_mem_free(a, x->key, cap * sizeof *x->key);
    tp_mem_free(a, x->origin, cap * sizeof *x->origin);
    tp_mem_free(a, x->stage, cap);
    tp_mem_free(a, x->gelu_of, cap * sizeof *x->gelu_of);
    tp_mem_free(a, x->skip_norm_of, cap * sizeof *x->skip_norm_of);
    tp_mem_free(a, x->same_as, cap * sizeof *x->same_as);
    tp_mem_free(a, x->qdq, cap);
    memset(x, 0, sizeof *x);
}

tp_status tp_ort_xform_compute(const tp_graph *g, uint32_t block, tp_ort_xform *x, tp_error *err) {
    const tp_allocator *a = tp_graph_allocator(g);
    uint32_t n = tp_graph_node_count(g);
    size_t cap = (size_t)n + 1;
    memset(x, 0, sizeof *x);
    x->n = n;
    x->block = block;
    x->chain = tp_mem_calloc(a, cap, 1);
    x->absorbed = tp_mem_calloc(a, cap, 1);
    x->sum_of = tp_mem_calloc(a, cap, sizeof *x->sum_of);
    x->key = tp_mem_calloc(a, cap, sizeof *x->key);
    x->origin = tp_mem_calloc(a, cap, sizeof *x->origin);
    x->stage = tp_mem_calloc(a, cap, 1);
    x->gelu_of = tp_mem_calloc(a, cap, sizeof *x->gelu_of);
    x->skip_norm_of = tp_mem_calloc(a, cap, sizeof *x->skip_norm_of);
    x->same_as = tp_mem_calloc(a, cap, sizeof *x->same_as);
    x->qdq = tp_mem_calloc(a, cap, 1);
    uint8_t *unit = tp_mem_calloc(a, cap, 1);
    uint8_t *late = tp_mem_calloc(a, cap, 1); /* dims from run-time values, here or upstream */
    uint32_t *readers = tp_mem_calloc(a, cap, sizeof *readers);
    uint32_t *target_reads = tp_mem_calloc(a, cap, sizeof *target_reads); /* ort_qdq.c's */
    if (!x->chain || !x->absorbed || !x->sum_of || !x->key || !x->origin || !x->stage ||
        !x->gelu_of || !x->skip_norm_of || !x->same_as || !x->qdq || !unit || !late || !readers ||
        !target_reads) {
        tp_mem_free(a, unit, cap);
        tp_mem_free(a, late, cap);
        tp_mem_free(a, readers, cap * sizeof *readers);
        tp_mem_free(a, target_reads, cap * sizeof *target_reads);
        tp_ort_xform_free(g, x);
        return tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (%u nodes)", n);
    }
    x->gelu_of[n] = x->skip_norm_of[n] = x->same_as[n] = -1; /* the spare last entry: no node */
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        if (!nd) continue;
        bool boundary = tp_op_is_boundary(nd->op.kind);
        late[id] = (nd->flags & TP_NODE_DIMS_AT_RUNTIME) != 0;
        for (uint32_t i = 0; i < nd->n_inputs; i++) {
            tp_node_id in = nd->inputs[i];
            if (in < 0 || (uint32_t)in >= n) continue;
            late[id] |= late[in];
            if (!boundary) readers[in]++;
        }
        if (!boundary && (nd->flags & TP_NODE_OUTPUT)) readers[id] += 2; /* never fused away */
    }
    tp_ort_qdq_mark(g, readers, target_reads, x->qdq);
    tp_mem_free(a, target_reads, cap * sizeof *target_reads);
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        x->key[id] = id;
        x->origin[id] = (int32_t)id;
        x->sum_of[id] = -1;
        x->gelu_of[id] = x->skip_norm_of[id] = x->same_as[id] = -1;
        if (!nd) continue;
        if (x->qdq[id] != TP_ORT_QDQ_NONE) {
            /* a quantized kernel's group (ort_qdq.h): plain layout, no other fusion; the target
             * and its DequantizeLinear nodes write no tensor */
            x->absorbed[id] = x->qdq[id] == TP_ORT_QDQ_TARGET || x->qdq[id] == TP_ORT_QDQ_DQ;
            continue;
        }
        tp_node_id src = nd->n_inputs > 0 ? nd->inputs[0] : -1, target;
        if (src >= 0 && (uint32_t)src < n &&
            tp_ort_cast_removed(g, nd, tp_graph_node(g, src), &target) && target >= 0 &&
            (uint32_t)target < n) {
            /* node ids are topological: the target's own entry is final */
            x->same_as[id] = x->same_as[target] >= 0 ? x->same_as[target] : (int32_t)target;
            x->chain[id] = x->chain[x->same_as[id]];
            continue;
        }
        x->chain[id] = block > 0 && is_chain(g, x->chain, nd, block);
        if (silu_fuse(g, readers, x, (tp_node_id)id)) continue;
        tp_node_id in = nd->n_inputs > 0 ? nd->inputs[0] : -1;
        bool f32 = tp_ort_computes_f32(nd);
        bool sole = in >= 0 && (uint32_t)in < n && readers[in] == 1;
        if (nd->op.kind == TP_OP_CONV && f32) {
            unit[id] = UNIT_CONV;
            x->key[id] = (uint64_t)n + id;
            if (x->chain[id]) x->stage[id] |= TP_ORT_MADE_NCHWC;
        } else if (nd->op.kind == TP_OP_NORM && nd->op.sub == TP_NORM_BATCH && sole &&
                   unit[in] == UNIT_CONV) {
            bool constant = true;
            for (uint32_t i = 1; i < nd->n_inputs; i++)
                constant = constant && nd->inputs[i] >= 0 && xform_is_weight(g, nd->inputs[i]);
            if (constant) {
                x->absorbed[in] = 1;
                unit[id] = UNIT_CONV;
                x->key[id] = x->key[in];
                x->origin[id] = x->origin[in];
                x->chain[id] = x->chain[in];
            }
        } else if (nd->op.kind == TP_OP_UNARY && unary_fusable(nd->op.sub) && sole &&
                   (unit[in] == UNIT_CONV || unit[in] == UNIT_SUM)) {
            x->absorbed[in] = 1;
            x->origin[id] = x->origin[in];
            /* after a plain Conv: ConvActivationFusion (level extended) makes a FusedConv; after
             * a Sum, the NCHWc transformer fuses it into its own node */
            if (unit[in] == UNIT_CONV) x->stage[x->origin[in]] |= TP_ORT_MADE_FUSED;
            x->sum_of[id] = x->sum_of[in]; /* the fused kernel writes into its Sum input */
            unit[id] = UNIT_ACT;
            x->key[id] = x->key[in];
            x->chain[id] = x->chain[in];
        } else if (nd->op.kind == TP_OP_BINARY && nd->op.sub == TP_BINARY_ADD && x->chain[id]) {
            for (int k = 0; k < 2; k++) {
                tp_node_id c = nd->inputs[k], other = nd->inputs[1 - k];
                if (c < 0 || other < 0 || c == other || readers[c] != 1 || unit[c] != UNIT_CONV ||
                    !x->chain[c] || !x->chain[other])
                    continue;
                x->absorbed[c] = 1;
                unit[id] = UNIT_SUM;
                x->key[id] = x->key[c];
                x->origin[id] = x->origin[c];
                x->sum_of[id] = other;
                break;
            }
        } else if (nd->op.kind == TP_OP_PAD) {
            x->absorbed[id] = nd->n_inputs > 0 && nd->inputs[0] >= 0 &&
                              pad_fuse(g, readers, x->chain, (tp_node_id)id);
            x->chain[id] = x->chain[id] && x->absorbed[id];
        } else if ((nd->op.kind == TP_OP_POOL || nd->op.kind == TP_OP_RESIZE) && x->chain[id]) {
            x->key[id] = (uint64_t)n + id;
            x->stage[id] |= TP_ORT_MADE_NCHWC;
        }
    }
    /* GeluFusion (and BiasGeluFusion) run over the whole graph before MatMulScaleFusion in
     * onnxruntime's list of level-2 transformers: a Gelu's final Mul by 0.5 is the Gelu's by then,
     * never a scaling a MatMul folds in (minilm_l6's profile: BiasGelu writes its own output) */
    for (uint32_t id = 0; id < n; id++)
        gelu_fuse(g, readers, x, (tp_node_id)id);
    /* SkipLayerNormFusion runs after them (and before MatMulScaleFusion) in that list */
    for (uint32_t id = 0; id < n; id++)
        skip_norm_fuse(g, readers, late, x, (tp_node_id)id);
    for (uint32_t id = 0; id < n; id++)
        matmul_fuse(g, readers, x, (tp_node_id)id);
    tp_mem_free(a, unit, cap);
    tp_mem_free(a, late, cap);
    tp_mem_free(a, readers, cap * sizeof *readers);
    return TP_OK;
}

tp_ort_read tp_ort_read_of(const tp_graph *g, const tp_ort_xform *x, tp_node_id m, uint32_t i,
                           tp_node_id in, tp_node_id root) {
    const tp_node *nd = tp_graph_node(g, m);
    bool is_conv = nd && nd->op.kind == TP_OP_CONV;
    bool nchw = is_conv && tp_ort_conv_reads_nchw(g, nd, x->block);
    /* a blocked Conv, or a pooling converted on a plain input, reads a ReorderInput copy */
    bool blocked_conv_input =
        (is_conv || (nd && nd->op.kind == TP_OP_POOL)) && i == 0 && x->chain[m] && !nchw;
    if (x->chain[root])
        return root == in && x->chain[m] && (!is_conv || i == 0) && !nchw ? TP_ORT_READ_BLOCKED
                                                                          : TP_ORT_READ_REORDERED;
    return blocked_conv_input ? TP_ORT_READ_TO_BLOCKED : TP_ORT_READ_PLAIN;
}

bool tp_ort_padded_bytes(const tp_graph *g, const tp_node *n, uint64_t bytes, uint32_t block,
                         uint64_t *out, int64_t *chan) {
    int64_t c;
    if (block == 0 || !tp_ort_dim(g, n, 1, &c)) return false;
    uint64_t cb = ((uint64_t)c + block - 1) / block * block;
    *chan = (int64_t)cb;
    return tp_mul_u64(bytes / (uint64_t)c, cb, out);
}
