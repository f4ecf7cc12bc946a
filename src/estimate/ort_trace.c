/* The buffers onnxruntime's CPU provider allocates for a graph's activations (see ort_arena.h):
 * the tensors of its optimized graph (ortgraph/ort_xform.c: fusions, NCHWc layout and its reorder
 * copies), their lifetimes in its execution order (ort_order.c), and its planner's reuse
 * (ort_plan.c). Modelled from onnxruntime 1.30's source, not copied.
 *
 * A tensor lives from its producer's step to its last reader's step (graph outputs to the
 * end). A blocked tensor's plain copy (ReorderOutput) is written just before its first plain
 * reader; a converted Conv's blocked copy of a plain input (ReorderInput) just before the first
 * such Conv, shared by every such Conv. Kernels' scratch from the arena: the column buffer of
 * ConvTranspose and Where's two selections (not traced into the memory pattern). Shapes known to
 * onnxruntime's static inference (for the planner's same-shape reuse): every dim a number or a
 * named symbol; a dim tensorplan derives by arithmetic (a Conv's spatial size over a symbolic
 * input) is unknown to it.
 */
#include <string.h>

#include "core/mem.h"
#include "estimate/ort_arena.h"
#include "ortgraph/ort_where.h"

/* unary kernels of the CPU provider declared MayInplace(0, 0) */
static bool unary_inplace(int32_t fn) {
    return fn == TP_UNARY_RELU || fn == TP_UNARY_SIGMOID || fn == TP_UNARY_TANH ||
           fn == TP_UNARY_LEAKY_RELU || fn == TP_UNARY_ELU || fn == TP_UNARY_HARD_SIGMOID ||
           fn == TP_UNARY_SOFTPLUS || fn == TP_UNARY_CLIP;
}

static uint64_t key_mix(uint64_t h, uint64_t v) {
    return (h ^ v) * 1099511628211ull;
}

/* Shapes onnxruntime's static inference (ONNX's) does not know: a Conv, ConvTranspose, windowed
 * pooling, Pad or Resize over an input whose spatial dims are not numbers, or a Pad whose pads
 * are computed at run time, gets unknown dims there (however tensorplan simplifies them: a 3x3 Conv
 * with padding 1 keeps "height"), and a node reading such a tensor inherits it (a global pooling's
 * [N, C, 1, 1] excepted). unk: node count entries. */
static void ort_unknown(const tp_graph *g, uint8_t *unk) {
    uint32_t n = tp_graph_node_count(g);
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        unk[id] = 0;
        if (!nd || tp_op_is_boundary(nd->op.kind) || (nd->flags & TP_NODE_SHAPE_ONLY)) continue;
        tp_op_kind k = nd->op.kind;
        const tp_node *x =
            nd->n_inputs > 0 && nd->inputs[0] >= 0 ? tp_graph_node(g, nd->inputs[0]) : NULL;
        if (k == TP_OP_POOL &&
            (nd->op.sub == TP_POOL_GLOBAL_MAX || nd->op.sub == TP_POOL_GLOBAL_AVG))
            continue;
        if (x && (k == TP_OP_CONV || k == TP_OP_CONV_TRANSPOSE || k == TP_OP_POOL ||
                  k == TP_OP_PAD || k == TP_OP_RESIZE))
            for (int32_t i = 2; i < x->shape.rank && i < TP_MAX_RANK; i++)
                if (!tp_dim_is_static(x->shape.dims[i])) unk[id] = 1;
        /* pads computed at run time (swin_t's window padding from Shape, Mod and Sub): ONNX's
         * inference gives no output dims */
        if (k == TP_OP_PAD && !nd->op.attrs.pad.pads_const) unk[id] = 1;
        /* dims from values computed at run time (the importer's TP_NODE_DIMS_AT_RUNTIME: a
         * Reshape or Slice whose shape or bounds come from Shape over a symbolic dim) */
        if (nd->flags & TP_NODE_DIMS_AT_RUNTIME) unk[id] = 1;
        for (uint32_t i = 0; i < nd->n_inputs && !unk[id]; i++)
            if (nd->inputs[i] >= 0 && (uint32_t)nd->inputs[i] < id && unk[nd->inputs[i]])
                unk[id] = 1;
    }
}

/* The shape onnxruntime knows statically, of element type dt (channel dim replaced by chan when
 * >= 0); 0 = unknown. */
static uint64_t shape_key_as(const tp_graph *g, const tp_node *n, tp_dtype dt, int64_t chan,
                             bool unknown) {
    if (unknown) return 0;
    uint64_t h = key_mix(key_mix(14695981039346656037ull, (uint64_t)dt), (uint64_t)n->shape.rank);
    for (int32_t i = 0; i < n->shape.rank && i < TP_MAX_RANK; i++) {
        tp_dim d = n->shape.dims[i];
        uint64_t v;
        tp_sym_op op;
        tp_dim x, y;
        if (i == 1 && chan >= 0)
            v = (uint64_t)chan;
        else if (tp_dim_is_static(d))
            v = (uint64_t)d.size;
        else if (tp_graph_dim_def(g, d, &op, &x, &y))
            return 0;
        else
            v = ((uint64_t)1 << 62) | (uint64_t)(uint32_t)d.sym;
        h = key_mix(h, v);
    }
    return h ? h : 1;
}

/* The same as onnxruntime holds n: a half tensor computed in float32 is a float32 one. */
static uint64_t shape_key(const tp_graph *g, const tp_node *n, int64_t chan, bool unknown) {
    return shape_key_as(g, n, tp_ort_widened(n) ? TP_DTYPE_F32 : n->dtype, chan, unknown);
}

/* bytes with dim 1 rounded up to block (bytes divide by the channel count exactly). */
/* ConvTranspose's column buffer (conv_transpose.cc): (output channels / group) x kernel area x
 * input area elements, asked of the arena while the kernel runs; *out 0 when not 2-D. */
static bool convt_scratch(const tp_graph *g, const tp_node *n, uint64_t *out) {
    *out = 0;
    if (n->op.kind != TP_OP_CONV_TRANSPOSE || n->n_inputs < 2 || n->shape.rank != 4) return true;
    const tp_node *x = tp_graph_node(g, n->inputs[0]), *w = tp_graph_node(g, n->inputs[1]);
    int64_t h, wd, mg, kh, kw;
    if (!x || !w || w->shape.rank != 4 || !tp_ort_dim(g, x, 2, &h) || !tp_ort_dim(g, x, 3, &wd) ||
        !tp_ort_dim(g, w, 1, &mg) || !tp_ort_dim(g, w, 2, &kh) || !tp_ort_dim(g, w, 3, &kw))
        return true;
    uint64_t v;
    if (!tp_mul_u64((uint64_t)mg, (uint64_t)kh, &v) || !tp_mul_u64(v, (uint64_t)kw, &v) ||
        !tp_mul_u64(v, (uint64_t)h, &v) || !tp_mul_u64(v, (uint64_t)wd, &v))
        return false;
    tp_error e;
    return tp_dtype_bytes(n->dtype, v, out, &e) == TP_OK;
}

/* ConvInteger's column buffer (conv_integer.cc, onnxruntime 1.30): (input channels / group) x
 * kernel area x output area bytes of uint8, asked of the arena's temporary space while the kernel
 * runs, unless the kernel is 1x1 with strides 1 and no padding (it then reads its input in
 * place). A ConvInteger is the importer's int32 Conv of 8-bit inputs. *out 0 for any other node
 * or an unbound dim; false on overflow. */
static bool conv_integer_scratch(const tp_graph *g, const tp_node *n, uint64_t *out) {
    *out = 0;
    if (n->op.kind != TP_OP_CONV || n->dtype != TP_DTYPE_I32 || n->n_inputs < 2) return true;
    const tp_node *x = tp_graph_node(g, n->inputs[0]);
    const int32_t sp = n->op.attrs.conv.spatial, rank = n->shape.rank;
    if (!x || (x->dtype != TP_DTYPE_U8 && x->dtype != TP_DTYPE_I8) || x->shape.rank != rank ||
        sp < 1 || sp > 3 || sp != rank - 2 || n->op.attrs.conv.groups < 1)
        return true;
    int64_t c;
    tp_error e;
    if (tp_graph_dim_value(g, x->shape.dims[1], &c, &e) != TP_OK || c < 1) return true;
    uint64_t v = (uint64_t)(c / n->op.attrs.conv.groups);
    bool pointwise = true;
    for (int32_t i = 0; i < sp; i++) {
        int64_t o;
        const int64_t k = n->op.attrs.conv.kernel[i];
        if (tp_graph_dim_value(g, n->shape.dims[2 + i], &o, &e) != TP_OK || o < 1 || k < 1)
            return true;
        if (!tp_mul_u64(v, (uint64_t)k, &v) || !tp_mul_u64(v, (uint64_t)o, &v)) return false;
        pointwise = pointwise && k == 1 && n->op.attrs.conv.stride[i] == 1 &&
                    n->op.attrs.conv.pad_begin[i] == 0 && n->op.attrs.conv.pad_end[i] == 0;
    }
    *out = pointwise ? 0 : v;
    return true;
}

/* Where's two selections (ortgraph/ort_where.h): X's in the output's shape and Y's, asked of the
 * arena while the kernel runs, both alive until it merges them into the output; *xsel = *ysel =
 * 0 for any other node or an unbound dim. */
static void where_scratch(const tp_graph *g, const tp_node *n, uint64_t out_bytes, uint64_t *xsel,
                          uint64_t *ysel) {
    uint64_t elems;
    tp_error e;
    *xsel = *ysel = 0;
    if (!tp_ort_where_y_selection(g, n, &elems) ||
        tp_dtype_bytes(n->dtype, elems, ysel, &e) != TP_OK) { /* <= out_bytes: no overflow */
        *ysel = 0;
        return;
    }
    *xsel = out_bytes;
}

static bool trace_push(const tp_allocator *a, tp_ort_buf **b, size_t *n, size_t *cap,
                       tp_ort_buf v) {
    if (!tp_mem_grow(a, (void **)b, sizeof **b, cap, *n + 1)) return false;
    (*b)[(*n)++] = v;
    return true;
}

static int64_t trace_max(int64_t x, int64_t y) {
    return x > y ? x : y;
}

static int64_t trace_min(int64_t x, int64_t y) {
    return x < y ? x : y;
}

/* Per-node lifetimes in execution steps (pos units); arrays of node count + 1. */
typedef struct trace_life {
    int64_t *pos, *death, *chain_last, *plain_first, *plain_last, *ri_first, *ri_last;
    int64_t *run; /* the step its kernel runs at: a fused node's is the node it is fused into */
    int64_t *ro;  /* the step after which its blocked tensor's ReorderOutput runs, -1 none */
    /* the Casts between float32 nodes and a half kernel (tp_ort_half_kernel): h16_last, the last
     * half kernel reading the half copy of a float32-computed tensor; c32_last, the last plain
     * float32 reader of a half kernel's float32 copy (-1 none) */
    int64_t *h16_last, *c32_last;
    int32_t *main_buf, *copy_buf;
    uint8_t *output;
    uint8_t *unk; /* shape unknown to onnxruntime's static inference (ort_unknown) */
} trace_life;

#define TRACE_I64 11

static tp_node_id root_of(const tp_liveness *l, tp_node_id id) {
    const tp_live *lv = tp_liveness_get(l, id);
    return lv ? lv->root : id;
}

/* A node fused into its only reader runs as part of that reader's kernel: its reads happen at
 * that kernel's step (a fused Conv+Relu reads its input while it writes its output). Node ids
 * are topological, so a reader comes after the nodes it reads. */
static void fused_steps(const tp_graph *g, const tp_ort_xform *x, trace_life *t) {
    for (uint32_t id = 0; id < x->n; id++)
        t->run[id] = t->pos[id];
    for (uint32_t k = x->n; k-- > 0;) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)k);
        if (!nd || t->run[k] < 0) continue;
        for (uint32_t i = 0; i < nd->n_inputs; i++) {
            tp_node_id in = nd->inputs[i];
            if (in >= 0 && (uint32_t)in < k && x->absorbed[in] && t->pos[in] >= 0)
                t->run[in] = trace_max(t->run[in], t->run[k]);
        }
    }
}

/* Readers of each buffer in execution order: blocked readers, plain readers, ReorderInput. */
static void trace_readers(const tp_graph *g, const tp_liveness *l, const tp_ort_xform *x,
                          trace_life *t, int64_t end) {
    uint32_t n = x->n;
    for (uint32_t m = 0; m < n; m++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)m);
        if (!nd || tp_op_is_boundary(nd->op.kind) || nd->op.kind == TP_OP_OUTPUT_OF ||
            t->pos[m] < 0 || (nd->flags & TP_NODE_SHAPE_ONLY) || x->same_as[m] >= 0)
            continue;
        for (uint32_t i = 0; i < nd->n_inputs; i++) {
            int64_t p = t->run[m];
            tp_node_id in = nd->inputs[i];
            in = tp_ort_source_of(x, in); /* a removed Cast: its readers read its source */
            if (in < 0 || (uint32_t)in >= n) continue;
            const tp_node *inn = tp_graph_node(g, in);
            if (!inn || tp_op_is_boundary(inn->op.kind)) continue;
            tp_node_id r = root_of(l, in);
            if (r < 0 || (uint32_t)r >= n || x->absorbed[r]) continue;
            const tp_node *rn = tp_graph_node(g, r);
            if (tp_ort_casts_to_half(nd, rn)) {
                /* the kernel reads a half copy, which a Cast makes right after r is written */
                t->h16_last[r] = trace_max(t->h16_last[r], p);
                p = t->run[r];
            }
            tp_ort_read kind = tp_ort_read_of(g, x, (tp_node_id)m, i, in, r);
            if (kind == TP_ORT_READ_PLAIN && tp_ort_casts_to_f32(nd, rn)) {
                /* reads the float32 copy a Cast makes right after the half kernel */
                t->c32_last[r] = trace_max(t->c32_last[r], p);
                continue;
            }
            switch (kind) {
            case TP_ORT_READ_BLOCKED:
                t->chain_last[r] = trace_max(t->chain_last[r], p);
                break;
            case TP_ORT_READ_REORDERED:
                t->plain_first[r] = trace_min(t->plain_first[r], p);
                t->plain_last[r] = trace_max(t->plain_last[r], p);
                break;
            case TP_ORT_READ_PLAIN:
                t->death[r] = trace_max(t->death[r], p);
                break;
            case TP_ORT_READ_TO_BLOCKED: /* a blocked Conv reads its ReorderInput copy */
                t->ri_first[r] = trace_min(t->ri_first[r], p);
                t->ri_last[r] = trace_max(t->ri_last[r], p);
                break;
            }
        }
    }
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        if (!nd || !(nd->flags & TP_NODE_OUTPUT) || tp_op_is_boundary(nd->op.kind)) continue;
        tp_node_id r = root_of(l, (tp_node_id)id);
        if (r < 0 || (uint32_t)r >= n) continue;
        t->output[r] = 1;
        if (x->chain[r]) {
            t->plain_last[r] = end;
            t->plain_first[r] = trace_min(t->plain_first[r], t->pos[r] + 1);
        } else {
            t->death[r] = end;
        }
    }
}

/* A buffer in the plain (non-blocked) layout: no arena chunk yet, no pattern offset, no in-place
 * source, its own allocation. */
static tp_ort_buf plain_buf(tp_node_id id, uint64_t bytes, int64_t birth, int64_t death,
                            uint64_t shape_key, bool output) {
    tp_ort_buf b = {id, bytes, birth, death, -1, 0, shape_key, -1, -1, false, output};
    return b;
}

static tp_status trace_emit(const tp_graph *g, const tp_liveness *l, uint32_t block,
                            const tp_ort_xform *x, trace_life *t, tp_ort_buf **b, size_t *nb,
                            size_t *bcap, tp_error *err) {
    const tp_allocator *a = tp_graph_allocator(g);
    for (uint32_t id = 0; id < x->n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        const tp_live *lv = tp_liveness_get(l, (tp_node_id)id);
        int64_t p = t->pos[id];
        if (!nd || !lv || tp_op_is_boundary(nd->op.kind) || lv->is_view ||
            lv->root != (tp_node_id)id || lv->bytes == 0 || x->absorbed[id] || p < 0 ||
            x->same_as[id] >= 0)
            continue;
        /* a half-precision tensor computed in float32 (tp_ort_widened): twice its bytes */
        uint64_t bytes = lv->bytes;
        if (tp_ort_widened(nd) && !tp_mul_u64(bytes, 2, &bytes))
            return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: '%s': bytes overflow 64 bits",
                                nd->name);
        uint64_t key_plain = shape_key(g, nd, -1, t->unk[id]), pb;
        int64_t chan;
        bool out = t->output[id] != 0;
        tp_ort_buf v =
            plain_buf((tp_node_id)id, bytes, 2 * p, 2 * trace_max(t->death[id], p), key_plain, out);
        /* read by its one ReorderInput copy, which every blocked Conv reading it shares
         * (nchwc_transformer.cc keeps the reordered input per tensor): written just before the
         * first of them, the plain tensor is not needed after it */
        /* a half kernel read by float32 nodes: they (and its ReorderInput) read the float32 copy
         * a Cast makes right after it */
        bool c32 = tp_ort_half_kernel(nd) && (t->c32_last[id] >= 0 || t->ri_last[id] >= 0);
        if (c32)
            v.death = trace_max(v.death, 2 * p + 1);
        else if (t->ri_last[id] >= 0)
            v.death = trace_max(v.death, 2 * t->ri_first[id] - 1);
        if (x->chain[id] && tp_ort_padded_bytes(g, nd, bytes, block, &pb, &chan)) {
            v.bytes = pb;
            v.shape_key = shape_key(g, nd, chan, t->unk[id]);
            v.output = false;
            v.death = 2 * trace_max(t->chain_last[id], p);
            if (t->plain_last[id] >= 0) {
                /* the ReorderOutput runs where onnxruntime's order places it (its node is
                 * explored first by the first plain reader reached), else just before that
                 * reader */
                int64_t cb = t->ro[id] >= p ? 2 * t->ro[id] + 1
                                            : trace_max(2 * t->plain_first[id] - 1, 2 * p + 1);
                tp_ort_buf copy = plain_buf((tp_node_id)id, bytes, cb,
                                            trace_max(2 * t->plain_last[id], cb), key_plain, out);
                v.death = trace_max(v.death, cb);
                t->copy_buf[id] = (int32_t)*nb;
                if (!trace_push(a, b, nb, bcap, copy)) goto nomem;
            }
        }
        /* the half copy a Cast makes for the half kernels reading the tensor: from its (plain)
         * float32 form, right after that is written, alive to the last of them */
        int64_t cs = -1;
        if (t->h16_last[id] >= 0) {
            cs = t->copy_buf[id] >= 0 ? (*b)[t->copy_buf[id]].birth : 2 * p + 1;
            if (t->copy_buf[id] < 0) v.death = trace_max(v.death, cs);
        }
        /* in place: a MayInplace activation the optimizer left alone, or a Conv's Sum input */
        tp_node_id src = -1;
        if (nd->op.kind == TP_OP_UNARY && unary_inplace(nd->op.sub) && x->key[id] < x->n &&
            nd->n_inputs >= 1)
            src = nd->inputs[0];
        if (x->sum_of[id] >= 0) src = x->sum_of[id];
        if (src >= 0 && (uint32_t)src < x->n) {
            tp_node_id r = root_of(l, src);
            if (r >= 0 && (uint32_t)r < x->n)
                v.inplace_of = x->chain[id] && x->chain[r] ? t->main_buf[r]
                               : x->chain[r]               ? t->copy_buf[r]
                               : t->copy_buf[r] >= 0       ? t->copy_buf[r] /* float32 copy */
                                                           : t->main_buf[r];
        }
        t->main_buf[id] = (int32_t)*nb;
        if (!trace_push(a, b, nb, bcap, v)) goto nomem;
        if (cs >= 0) {
            tp_ort_buf h =
                plain_buf((tp_node_id)id, lv->bytes, cs, trace_max(2 * t->h16_last[id], cs),
                          shape_key_as(g, nd, nd->dtype, -1, t->unk[id]), false);
            if (!trace_push(a, b, nb, bcap, h)) goto nomem;
        }
        if (c32) {
            uint64_t wide;
            if (!tp_mul_u64(lv->bytes, 2, &wide))
                return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: '%s': bytes overflow 64 bits",
                                    nd->name);
            int64_t d = trace_max(2 * t->c32_last[id], 2 * p + 1);
            if (t->ri_last[id] >= 0) d = trace_max(d, 2 * t->ri_first[id] - 1);
            tp_ort_buf w = plain_buf((tp_node_id)id, wide, 2 * p + 1, d,
                                     shape_key_as(g, nd, TP_DTYPE_F32, -1, t->unk[id]), false);
            t->copy_buf[id] = (int32_t)*nb;
            if (!trace_push(a, b, nb, bcap, w)) goto nomem;
        }
        uint64_t scratch, cols;
        if (!convt_scratch(g, nd, &scratch) || !conv_integer_scratch(g, nd, &cols))
            return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: '%s': scratch overflows 64 bits",
                                nd->name);
        uint64_t sel[2];
        where_scratch(g, nd, bytes, &sel[0], &sel[1]);
        uint64_t scratches[] = {scratch, cols, sel[0], sel[1]};
        for (size_t k = 0; k < sizeof scratches / sizeof scratches[0]; k++) {
            if (!scratches[k]) continue;
            tp_ort_buf sb = {(tp_node_id)id, scratches[k], 2 * p, 2 * p, -1, 0, 0, -1, -1,
                             true,           false};
            if (!trace_push(a, b, nb, bcap, sb)) goto nomem;
        }
        /* a half kernel's ReorderInput reads its float32 copy: a blocked float32 tensor */
        uint64_t ri_bytes = bytes;
        if (c32 && !tp_mul_u64(lv->bytes, 2, &ri_bytes))
            return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: '%s': bytes overflow 64 bits",
                                nd->name);
        if (t->ri_last[id] >= 0 && tp_ort_padded_bytes(g, nd, ri_bytes, block, &pb, &chan)) {
            tp_ort_buf ri = {(tp_node_id)id,
                             pb,
                             2 * t->ri_first[id] - 1,
                             2 * t->ri_last[id],
                             -1,
                             0,
                             c32 ? shape_key_as(g, nd, TP_DTYPE_F32, chan, t->unk[id])
                                 : shape_key(g, nd, chan, t->unk[id]),
                             -1,
                             -1,
                             false,
                             false};
            if (!trace_push(a, b, nb, bcap, ri)) goto nomem;
        }
    }
    return TP_OK;
nomem:
    return tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (onnxruntime trace)");
}

tp_status tp_ort_trace_buffers(const tp_graph *g, const tp_liveness *l, uint32_t block,
                               tp_ort_buf **out, size_t *n_out, size_t *cap_out, tp_error *err) {
    const tp_allocator *a = tp_graph_allocator(g);
    tp_ort_xform x;
    tp_status st = tp_ort_xform_compute(g, block, &x, err);
    if (st != TP_OK) return st;
    size_t cap = (size_t)x.n + 1;
    trace_life t;
    int64_t **i64[TRACE_I64] = {&t.pos,        &t.death,    &t.chain_last, &t.plain_first,
                                &t.plain_last, &t.ri_first, &t.ri_last,    &t.run,
                                &t.ro,         &t.h16_last, &t.c32_last};
    bool ok = true;
    for (int k = 0; k < TRACE_I64; k++)
        ok = (*i64[k] = tp_mem_alloc(a, cap * sizeof(int64_t))) && ok;
    t.main_buf = tp_mem_alloc(a, cap * sizeof *t.main_buf);
    t.copy_buf = tp_mem_alloc(a, cap * sizeof *t.copy_buf);
    t.output = tp_mem_calloc(a, cap, 1);
    t.unk = tp_mem_calloc(a, cap, 1);
    tp_ort_buf *b = NULL;
    size_t nb = 0, bcap = 0;
    int64_t n_steps = 0;
    if (!ok || !t.main_buf || !t.copy_buf || !t.output || !t.unk) {
        st = tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (%u nodes)", x.n);
        goto done;
    }
    for (size_t i = 0; i < cap; i++) {
        t.death[i] = t.chain_last[i] = t.plain_last[i] = t.ri_last[i] = -1;
        t.h16_last[i] = t.c32_last[i] = -1;
        t.plain_first[i] = t.ri_first[i] = INT64_MAX / 4;
        t.main_buf[i] = t.copy_buf[i] = -1;
    }
    uint64_t *keys = tp_mem_alloc(a, cap * sizeof *keys);
    if (!keys) {
        st = tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (%u nodes)", x.n);
        goto done;
    }
    st = tp_ort_exec_keys(g, &x, keys, err);
    if (st == TP_OK) st = tp_ort_exec_order_reorders(g, keys, &x, t.pos, t.ro, &n_steps, err);
    tp_mem_free(a, keys, cap * sizeof *keys);
    if (st != TP_OK) goto done;
    fused_steps(g, &x, &t);
    ort_unknown(g, t.unk);
    trace_readers(g, l, &x, &t, n_steps);
    if ((st = trace_emit(g, l, block, &x, &t, &b, &nb, &bcap, err)) != TP_OK) goto done;
    st = tp_ort_plan_reuse(a, b, nb, true, err); /* same-shape reuse: on, as onnxruntime */
done:
    for (int k = 0; k < TRACE_I64; k++)
        tp_mem_free(a, *i64[k], cap * sizeof(int64_t));
    tp_mem_free(a, t.main_buf, cap * sizeof *t.main_buf);
    tp_mem_free(a, t.copy_buf, cap * sizeof *t.copy_buf);
    tp_mem_free(a, t.output, cap);
    tp_mem_free(a, t.unk, cap);
    tp_ort_xform_free(g, &x);
    if (st != TP_OK) {
        tp_mem_free(a, b, bcap * sizeof *b);
        return st;
    }
    *out = b;
    *n_out = nb;
    *cap_out = bcap;
    return TP_OK;
}
