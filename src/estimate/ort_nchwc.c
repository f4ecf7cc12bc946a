/* The buffers onnxruntime's CPU provider allocates for a graph's activations, with the
 * layout its NCHWc transformer (core/optimizer/nchwc_transformer.cc, level "all", the
 * default) gives convolutions; modelled from onnxruntime 1.30's source, not copied.
 *
 * A 2-D float Conv whose output channels are a multiple of 4, plain (groups 1) or
 * depthwise, runs in the blocked NCHWc layout: its output has its channels rounded up to
 * the block (16 with AVX-512, 8 with AVX2). Operators that stay in that layout after it
 * ("chain" nodes here): Relu/Clip/Sigmoid/Tanh/HardSigmoid activations and BatchNormalization
 * (fused or converted), pooling, and an Add of two chain tensors. Where a chain tensor is
 * read by anything else (or is a graph output), a ReorderOutput node writes a plain NCHW
 * copy; where a converted Conv reads a plain tensor with channels a multiple of 4, a
 * ReorderInput node writes a blocked copy that lives until the last such Conv. Ops that
 * onnxruntime also keeps in NCHWc in some cases (Concat, Resize) are left plain: that adds
 * reorders, which errs on the side of more memory. Kernels' scratch from the arena: the column
 * buffer of ConvTranspose (not traced into the memory pattern). */
#include <string.h>

#include "core/mem.h"
#include "estimate/ort_arena.h"

static bool unary_chain(int32_t fn) {
    return fn == TP_UNARY_RELU || fn == TP_UNARY_CLIP || fn == TP_UNARY_SIGMOID ||
           fn == TP_UNARY_TANH || fn == TP_UNARY_HARD_SIGMOID;
}

static bool nchwc_dim_of(const tp_graph *g, const tp_node *n, int axis, int64_t *v) {
    tp_error e;
    if (n->shape.rank != 4 || axis >= n->shape.rank) return false;
    return tp_graph_dim_value(g, n->shape.dims[axis], v, &e) == TP_OK && *v > 0;
}

/* A Conv that onnxruntime converts to NCHWc. */
static bool conv_converted(const tp_graph *g, const tp_node *n) {
    if (n->op.kind != TP_OP_CONV || n->op.attrs.conv.spatial != 2 || n->dtype != TP_DTYPE_F32 ||
        n->n_inputs < 2)
        return false;
    const tp_node *x = tp_graph_node(g, n->inputs[0]);
    int64_t c, m, grp = n->op.attrs.conv.groups;
    if (!x || !nchwc_dim_of(g, x, 1, &c) || !nchwc_dim_of(g, n, 1, &m) || m % 4 != 0) return false;
    return grp == 1 || (grp == c && grp == m);
}

static bool is_chain(const tp_graph *g, const uint8_t *chain, const tp_node *n) {
    if (n->dtype != TP_DTYPE_F32 || n->shape.rank != 4) return false;
    if (n->op.kind == TP_OP_CONV) return conv_converted(g, n);
    if (n->n_inputs < 1 || n->inputs[0] < 0 || !chain[n->inputs[0]]) return false;
    switch (n->op.kind) {
    case TP_OP_UNARY:
        return unary_chain(n->op.sub);
    case TP_OP_POOL:
        return n->op.sub != TP_POOL_LP;
    case TP_OP_NORM:
        return n->op.sub == TP_NORM_BATCH;
    case TP_OP_BINARY:
        return n->op.sub == TP_BINARY_ADD && n->n_inputs == 2 && n->inputs[1] >= 0 &&
               chain[n->inputs[1]];
    default:
        return false;
    }
}

/* bytes with dim 1 rounded up to block (bytes divide by the channel count exactly). */
static bool padded(const tp_graph *g, const tp_node *n, uint64_t bytes, uint32_t block,
                   uint64_t *out) {
    int64_t c;
    if (!nchwc_dim_of(g, n, 1, &c)) return false;
    uint64_t cb = ((uint64_t)c + block - 1) / block * block;
    return tp_mul_u64(bytes / (uint64_t)c, cb, out);
}

/* ConvTranspose's column buffer (conv_transpose.cc): (output channels / group) x kernel area x
 * input area elements, asked of the arena while the kernel runs; *out 0 when not 2-D. */
static bool convt_scratch(const tp_graph *g, const tp_node *n, uint64_t *out) {
    *out = 0;
    if (n->op.kind != TP_OP_CONV_TRANSPOSE || n->n_inputs < 2 || n->shape.rank != 4) return true;
    const tp_node *x = tp_graph_node(g, n->inputs[0]), *w = tp_graph_node(g, n->inputs[1]);
    int64_t h, wd, mg, kh, kw;
    if (!x || !w || w->shape.rank != 4 || !nchwc_dim_of(g, x, 2, &h) ||
        !nchwc_dim_of(g, x, 3, &wd) || !nchwc_dim_of(g, w, 1, &mg) || !nchwc_dim_of(g, w, 2, &kh) ||
        !nchwc_dim_of(g, w, 3, &kw))
        return true;
    uint64_t v;
    if (!tp_mul_u64((uint64_t)mg, (uint64_t)kh, &v) || !tp_mul_u64(v, (uint64_t)kw, &v) ||
        !tp_mul_u64(v, (uint64_t)h, &v) || !tp_mul_u64(v, (uint64_t)wd, &v))
        return false;
    tp_error e;
    return tp_dtype_bytes(n->dtype, v, out, &e) == TP_OK;
}

static bool push(const tp_allocator *a, tp_ort_buf **b, size_t *n, size_t *cap, tp_ort_buf v) {
    if (!tp_mem_grow(a, (void **)b, sizeof **b, cap, *n + 1)) return false;
    (*b)[(*n)++] = v;
    return true;
}

tp_status tp_ort_trace_buffers(const tp_graph *g, const tp_liveness *l, uint32_t block,
                               tp_ort_buf **out, size_t *n_out, size_t *cap_out, tp_error *err) {
    const tp_allocator *a = tp_graph_allocator(g);
    uint32_t n = tp_liveness_count(l);
    size_t cap = (size_t)n + 1;
    uint8_t *chain = tp_mem_calloc(a, cap, 1), *plain_read = tp_mem_calloc(a, cap, 1);
    int64_t *chain_death = tp_mem_calloc(a, cap, sizeof *chain_death);
    int64_t *ri_first = tp_mem_calloc(a, cap, sizeof *ri_first);
    int64_t *ri_last = tp_mem_calloc(a, cap, sizeof *ri_last);
    tp_ort_buf *b = NULL;
    size_t nb = 0, bcap = 0;
    tp_status st = TP_OK;
    if (!chain || !plain_read || !chain_death || !ri_first || !ri_last) {
        st = tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (%u nodes)", n);
        goto done;
    }
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        ri_first[id] = -1;
        chain_death[id] = -1;
        if (!nd) continue;
        chain[id] = block > 0 && is_chain(g, chain, nd);
        for (uint32_t i = 0; i < nd->n_inputs; i++) {
            tp_node_id in = nd->inputs[i];
            if (in < 0 || (uint32_t)in >= n) continue;
            if (chain[id] && chain[in] && nd->op.kind != TP_OP_CONV)
                chain_death[in] = id;
            else if (chain[id] && chain[in] && i == 0)
                chain_death[in] = id;
            else if (chain[in])
                plain_read[in] = 1;
            if (i == 0 && nd->op.kind == TP_OP_CONV && chain[id] && !chain[in]) {
                const tp_node *x = tp_graph_node(g, in);
                int64_t c;
                if (x && nchwc_dim_of(g, x, 1, &c) && c % 4 == 0) {
                    if (ri_first[in] < 0) ri_first[in] = id;
                    ri_last[in] = id;
                }
            }
        }
        if (nd->flags & TP_NODE_OUTPUT) plain_read[id] = 1;
    }
    for (uint32_t id = 0; id < n && st == TP_OK; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        const tp_live *lv = tp_liveness_get(l, (tp_node_id)id);
        if (!nd || !lv || tp_op_is_boundary(nd->op.kind) || lv->is_view ||
            lv->root != (tp_node_id)id || lv->bytes == 0)
            continue;
        tp_ort_buf v = {(tp_node_id)id, lv->bytes, 2 * lv->birth, 2 * lv->death, -1, 0, false};
        uint64_t pb;
        if (chain[id] && padded(g, nd, lv->bytes, block, &pb)) {
            v.bytes = pb;
            if (plain_read[id]) {
                /* the blocked tensor lives while chain nodes read it; the plain copy
                 * (ReorderOutput, right after) as long as the node's own lifetime */
                v.death = chain_death[id] >= 0 ? 2 * chain_death[id] : 2 * lv->birth + 1;
                tp_ort_buf copy = {
                    (tp_node_id)id, lv->bytes, 2 * lv->birth + 1, 2 * lv->death, -1, 0, false};
                if (!push(a, &b, &nb, &bcap, copy)) goto nomem;
            }
        }
        if (!push(a, &b, &nb, &bcap, v)) goto nomem;
        uint64_t scratch;
        if (!convt_scratch(g, nd, &scratch)) {
            st = tp_error_set(err, TP_ERR_OVERFLOW, "runtime: '%s': scratch overflows 64 bits",
                              nd->name);
            goto done;
        }
        if (scratch) {
            tp_ort_buf sb = {(tp_node_id)id, scratch, 2 * lv->birth, 2 * lv->birth, -1, 0, true};
            if (!push(a, &b, &nb, &bcap, sb)) goto nomem;
        }
        if (ri_first[id] >= 0 && padded(g, nd, lv->bytes, block, &pb)) {
            tp_ort_buf ri = {(tp_node_id)id, pb, 2 * ri_first[id] - 1, 2 * ri_last[id], -1, 0,
                             false};
            if (!push(a, &b, &nb, &bcap, ri)) goto nomem;
        }
    }
    goto done;
nomem:
    st = tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (onnxruntime trace)");
done:
    tp_mem_free(a, chain, cap);
    tp_mem_free(a, plain_read, cap);
    tp_mem_free(a, chain_death, cap * sizeof *chain_death);
    tp_mem_free(a, ri_first, cap * sizeof *ri_first);
    tp_mem_free(a, ri_last, cap * sizeof *ri_last);
    if (st != TP_OK) {
        tp_mem_free(a, b, bcap * sizeof *b);
        return st;
    }
    *out = b;
    *n_out = nb;
    *cap_out = bcap;
    return TP_OK;
}
