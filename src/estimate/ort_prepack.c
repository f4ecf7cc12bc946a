/* The transient of onnxruntime's pre-packing at session creation and the initializers it
 * erases (docs/runtime.md, Sessions 11 and 12). Modelled from onnxruntime 1.30's source, not
 * copied: SessionState's pre-packing pass (session_state.cc, PrepackConstantInitializedTensors)
 * visits the optimized graph's nodes in index order (the model's nodes first, the nodes the
 * optimizer creates after them: tp_ort_exec_keys) and lets each kernel pack its constant inputs:
 * MLAS packs a MatMul/Gemm constant B (input 1), and the LSTM and GRU kernels (deep_cpu_lstm.cc,
 * deep_cpu_gru.cc) pack their W and R (inputs 1 and 2, MlasGemmPackB per direction), each into a
 * new buffer; as soon as the last reader of that initializer has packed it, the initializer is
 * erased from the session state, which unmaps a weight kept in an external data file (its pages
 * were read by the packing) and frees the session's copy of an embedded one. So while weight i
 * is packed, the packed copies of the weights before it, its own packed copy and its original
 * are resident, and the weights after it are not packed yet: the creation peak exceeds the
 * steady state (all packed copies) by max over i of (original_i - packed copies after i). */
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "estimate/ort_arena.h"
#include "ortgraph/ort_qdq.h"

/* MLAS's packed copy of a float32 matrix of w's shape and `bytes` (float32 bytes): its columns
   (the last dim) rounded up to 16; 0 when not a matrix. */
static uint64_t packed_f32_bytes(const tp_graph *g, const tp_node *w, uint64_t bytes) {
    int64_t nn;
    tp_error e;
    if (w->shape.rank < 2 || w->shape.rank > TP_MAX_RANK ||
        tp_graph_dim_value(g, w->shape.dims[w->shape.rank - 1], &nn, &e) != TP_OK || nn <= 0)
        return 0;
    uint64_t cols = ((uint64_t)nn + 15) / 16 * 16, out;
    return tp_mul_u64(bytes / (uint64_t)nn, cols, &out) ? out : 0;
}

/* MLAS's packed copy of an 8-bit B (k × n, the last two dims) for its integer GEMM
   (MlasGemmPackBSize, read): the columns rounded up to 16, k up to the kernel's PackedK (4 for
   u8 × s8 on AVX2; u8 × u8 packs pairs, 2, taken as 4 here: at most 2 rows of bytes over), and an
   int32 sum per column, the whole rounded up to 64 bytes; per matrix of a batch. 0 when not a
   matrix. */
static uint64_t packed_i8_bytes(const tp_graph *g, const tp_node *w, uint64_t bytes) {
    int64_t nn, kk;
    tp_error e;
    int32_t r = w->shape.rank;
    if (r < 2 || r > TP_MAX_RANK || tp_graph_dim_value(g, w->shape.dims[r - 1], &nn, &e) != TP_OK ||
        tp_graph_dim_value(g, w->shape.dims[r - 2], &kk, &e) != TP_OK || nn <= 0 || kk <= 0)
        return 0;
    uint64_t mats = bytes / ((uint64_t)nn * (uint64_t)kk), cols = ((uint64_t)nn + 15) / 16 * 16;
    uint64_t rows = ((uint64_t)kk + 3) / 4 * 4, one, out;
    if (!tp_mul_u64(cols, rows + 4, &one) || !tp_align_up_u64(one, 64, &one) ||
        !tp_mul_u64(one, mats ? mats : 1, &out))
        return 0;
    return out;
}

uint64_t tp_ort_packed_b_bytes(const tp_graph *g, const tp_node *w, uint64_t bytes) {
    if (w->dtype == TP_DTYPE_F32) return packed_f32_bytes(g, w, bytes);
    /* the int8 weights of MatMulInteger, DynamicQuantizeMatMul, MatMulIntegerToFloat and
       QLinearMatMul, which pre-pack them as MatMul does (matmul_integer_base.h) */
    if (tp_dtype_is_int8(w->dtype)) return packed_i8_bytes(g, w, bytes);
    return 0;
}

/* LSTM and GRU: the deep_cpu kernels that pre-pack W and R (RNN's kernel packs nothing) */
static bool is_rnn(const tp_node *n) {
    return tp_ort_recurrent_gates(n) >= 3;
}

bool tp_ort_packs_input(const tp_node *n, uint32_t i) {
    if (!n) return false;
    if (n->op.kind == TP_OP_MATMUL || n->op.kind == TP_OP_GEMM || n->op.kind == TP_OP_FUSED_MATMUL)
        return i == 1;
    return is_rnn(n) && (i == 1 || i == 2);
}

uint64_t tp_ort_packed_bytes(const tp_graph *g, const tp_node *reader, const tp_node *w,
                             uint64_t bytes) {
    if (reader->op.kind == TP_OP_CONV && tp_dtype_is_int8(w->dtype)) {
        /* QLinearConv's pre-packed filter (qlinearconv.cc PrePack, read): MLAS's symmetric
           packing of int8 weights with an int32 column sum per output channel, else a packed B
           per group (MlasGemmPackBSize) or, depthwise, a reordered copy of the same bytes; taken
           as the filter's bytes and an int32 per output channel, 64-byte aligned */
        int64_t m;
        tp_error e;
        uint64_t out;
        if (w->shape.rank < 1 || tp_graph_dim_value(g, w->shape.dims[0], &m, &e) != TP_OK ||
            m <= 0 || !tp_add_u64(bytes, 4 * (uint64_t)m, &out) || !tp_align_up_u64(out, 64, &out))
            return 0;
        return out;
    }
    if (!is_rnn(reader) && tp_ort_weight_widened(reader, w)) {
        /* a half B of a MatMul/Gemm computed in float32: its Cast is folded at load and MLAS
           packs the float32 copy (heldout18's float16 MobileNetV3-Small: onnxruntime's arena
           holds its two classifier weights at float32 size from run 1's first kernel) */
        uint64_t wide;
        return tp_mul_u64(bytes, 2, &wide) ? packed_f32_bytes(g, w, wide) : 0;
    }
    if (!is_rnn(reader)) return tp_ort_packed_b_bytes(g, w, bytes);
    /* W [directions, gates x hidden, input], R [directions, gates x hidden, hidden]: packed
     * transposed per direction, its gates x hidden (MLAS's N) rounded up to 16 */
    int64_t nn;
    tp_error e;
    if (w->dtype != TP_DTYPE_F32 || w->shape.rank != 3 ||
        tp_graph_dim_value(g, w->shape.dims[1], &nn, &e) != TP_OK || nn <= 0)
        return 0;
    uint64_t rows = ((uint64_t)nn + 15) / 16 * 16, out;
    return tp_mul_u64(bytes / (uint64_t)nn, rows, &out) ? out : 0;
}

static bool is_identity(const tp_node *n) {
    return n && n->op.kind == TP_OP_UNARY && n->op.sub == TP_UNARY_IDENTITY && n->n_inputs >= 1;
}

tp_node_id tp_ort_initializer_of(const tp_graph *g, tp_node_id in) {
    /* an Identity chain is at most as long as the graph: bounded by its node count */
    for (uint32_t hops = 0; in >= 0 && hops <= tp_graph_node_count(g); hops++) {
        const tp_node *wn = tp_graph_node(g, in);
        if (!wn) return -1;
        if (is_identity(wn)) {
            in = wn->inputs[0];
            continue;
        }
        if (wn->op.kind != TP_OP_PARAM && wn->op.kind != TP_OP_CONSTANT) return -1;
        if (wn->op.kind == TP_OP_PARAM && wn->op.attrs.param.tied_to >= 0)
            return wn->op.attrs.param.tied_to;
        return in;
    }
    return -1;
}

bool tp_ort_identity_of_initializer(const tp_graph *g, const tp_node *n) {
    return is_identity(n) && tp_ort_initializer_of(g, n->inputs[0]) >= 0;
}

tp_node_id tp_ort_qdq_packed_weight(const tp_graph *g, const tp_node *n, uint32_t i) {
    if (i != 1 || !tp_ort_qdq_product(n)) return -1;
    tp_node_id x = tp_ort_qdq_source(g, n, 0), w = tp_ort_qdq_source(g, n, 1);
    const tp_node *xn = x >= 0 ? tp_graph_node(g, x) : NULL;
    if (!xn || xn->dtype != TP_DTYPE_U8 || w < 0) return -1;
    w = tp_ort_initializer_of(g, w);
    const tp_node *wn = w >= 0 ? tp_graph_node(g, w) : NULL;
    return wn && tp_dtype_is_int8(wn->dtype) ? w : -1;
}

/* The weight n packs as its input i, or -1. */
static tp_node_id packed_weight(const tp_graph *g, const tp_node *n, uint32_t i) {
    if (i >= n->n_inputs) return -1;
    if (!tp_ort_packs_input(n, i)) return tp_ort_qdq_packed_weight(g, n, i);
    return tp_ort_initializer_of(g, n->inputs[i]);
}

/* uses[w]: every node input reading weight w (or, for any other node, its output; an Identity of
 * an initializer is removed by onnxruntime, so its readers are the initializer's); packs[w]:
 * those a kernel packs. onnxruntime erases an initializer only when every use of it was packed:
 * one also read by another kernel (a tied embedding's Gather) stays, its original resident for
 * good (not a transient). */
static void count_uses(const tp_graph *g, uint32_t n, uint32_t *uses, uint32_t *packs) {
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        if (!nd || tp_op_is_boundary(nd->op.kind) || tp_ort_identity_of_initializer(g, nd))
            continue;
        for (uint32_t i = 0; i < nd->n_inputs; i++) {
            tp_node_id w = tp_ort_initializer_of(g, nd->inputs[i]);
            if (w < 0) w = nd->inputs[i];
            if (w >= 0 && (uint32_t)w < n) uses[w]++;
            tp_node_id b = packed_weight(g, nd, i);
            if (b >= 0 && (uint32_t)b < n) packs[b]++;
        }
    }
}

/* reader[m]: the first node (by index) that reads node m's output, or -1; one pass over the
 * graph, so that looking a reader up costs nothing per packing node. */
static void first_readers(const tp_graph *g, uint32_t n, tp_node_id *reader) {
    for (uint32_t m = 0; m < n; m++)
        reader[m] = -1;
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        for (uint32_t i = 0; nd && i < nd->n_inputs; i++) {
            tp_node_id m = nd->inputs[i];
            if (m >= 0 && (uint32_t)m < n && reader[m] < 0) reader[m] = (tp_node_id)id;
        }
    }
}

static bool is_graph_output(const tp_graph *g, tp_node_id m) {
    for (uint32_t i = 0; i < tp_graph_output_count(g); i++)
        if (tp_graph_output(g, i) == m) return true;
    return false;
}

/* gemm_activation_fusion.cc: a float Gemm read only by an activation it can absorb, its output
 * not a graph output, becomes a FusedGemm: a node the extended level creates (indexed after the
 * model's nodes, in the model graph's order), so it packs its B after every model node's. vgg's
 * and alexnet's classifiers: Gemm+Relu, Gemm+Relu, Gemm; the last Gemm packs first. */
static bool gemm_fused(const tp_graph *g, const uint32_t *uses, const tp_node_id *reader,
                       tp_node_id m, tp_node_id *act) {
    const tp_node *nd = tp_graph_node(g, m);
    if (!nd || nd->op.kind != TP_OP_GEMM || nd->dtype != TP_DTYPE_F32 || uses[m] != 1 ||
        is_graph_output(g, m))
        return false;
    *act = reader[m]; /* its only reader (uses[m] == 1) */
    const tp_node *a = *act >= 0 ? tp_graph_node(g, *act) : NULL;
    if (!a || a->op.kind != TP_OP_UNARY) return false;
    switch (a->op.sub) {
    case TP_UNARY_RELU:
    case TP_UNARY_LEAKY_RELU:
    case TP_UNARY_SIGMOID:
    case TP_UNARY_TANH:
    case TP_UNARY_ELU:
    case TP_UNARY_HARD_SIGMOID:
    case TP_UNARY_SOFTPLUS:
        return true;
    default:
        return false;
    }
}

/* The index of the node that runs for packing node m: a MatMul folded into its scaling is created
 * as the FusedMatMul at that scaling's position (ortgraph/ort_xform.c); a Gemm fused with its
 * activation as a FusedGemm (gemm_fused). */
static uint64_t runner_key(const tp_graph *g, const tp_ort_xform *x, const uint64_t *key,
                           const uint32_t *uses, const tp_node_id *reader, tp_node_id m) {
    tp_node_id act;
    if (!x->absorbed[m])
        return gemm_fused(g, uses, reader, m, &act) ? (uint64_t)x->n + key[act] : key[m];
    return reader[m] >= 0 ? key[reader[m]] : key[m];
}

/* What the pass below reads: onnxruntime's optimized graph (NCHWc and fusions), each node's
 * index in it, each weight's uses and packing uses, each node's first reader. */
typedef struct prepack_ctx {
    const tp_allocator *a;
    tp_ort_xform x;
    size_t cap;
    uint64_t *key;
    uint32_t *uses, *packs;
    tp_node_id *reader;
} prepack_ctx;

static void ctx_free(const tp_graph *g, prepack_ctx *c) {
    tp_mem_free(c->a, c->key, c->cap * sizeof *c->key);
    tp_mem_free(c->a, c->uses, c->cap * sizeof *c->uses);
    tp_mem_free(c->a, c->packs, c->cap * sizeof *c->packs);
    tp_mem_free(c->a, c->reader, c->cap * sizeof *c->reader);
    tp_ort_xform_free(g, &c->x);
}

static tp_status ctx_init(const tp_graph *g, uint32_t block, prepack_ctx *c, tp_error *err) {
    memset(c, 0, sizeof *c);
    c->a = tp_graph_allocator(g);
    tp_status s = tp_ort_xform_compute(g, block, &c->x, err);
    if (s != TP_OK) return s;
    c->cap = (size_t)c->x.n + 1;
    c->key = tp_mem_alloc(c->a, c->cap * sizeof *c->key);
    c->uses = tp_mem_calloc(c->a, c->cap, sizeof *c->uses);
    c->packs = tp_mem_calloc(c->a, c->cap, sizeof *c->packs);
    c->reader = tp_mem_alloc(c->a, c->cap * sizeof *c->reader);
    if (!c->key || !c->uses || !c->packs || !c->reader)
        s = tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (%u nodes)", c->x.n);
    if (s == TP_OK) {
        count_uses(g, c->x.n, c->uses, c->packs);
        first_readers(g, c->x.n, c->reader);
        s = tp_ort_exec_keys(g, &c->x, c->key, err);
    }
    if (s != TP_OK) ctx_free(g, c);
    return s;
}

tp_status tp_ort_prepack_of_steps(const tp_graph *g, const tp_ort_pack_steps *steps,
                                  const uint8_t *skip, tp_ort_prepack *out, tp_error *err) {
    memset(out, 0, sizeof *out);
    if (!steps || steps->n == 0) return TP_OK;
    const tp_allocator *a = tp_graph_allocator(g);
    size_t cap = (size_t)tp_graph_node_count(g) + 1;
    uint8_t *erased = tp_mem_calloc(a, cap, 1); /* every use of the weight packs it */
    if (!erased) return tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (prepacking)");
    for (size_t i = 0; i < steps->n; i++) {
        const tp_ort_pack_step *st = &steps->steps[i];
        if (!st->erases || (skip && skip[st->weight])) continue;
        erased[st->weight] = 1;
        if (!tp_add_u64(out->erased_bytes, st->bytes, &out->erased_bytes))
            out->erased_bytes = UINT64_MAX;
        if (st->bytes > out->largest_erased_bytes) out->largest_erased_bytes = st->bytes;
    }
    /* last packing first: while a weight is packed its original and the packed copies made
     * before it are resident, those after it not yet (a further kernel's copy of a weight is
     * freed at once: only the first counts; the original is counted at each of its packings, at
     * most once too many) */
    uint64_t after = 0;
    for (size_t i = steps->n; i-- > 0;) {
        const tp_ort_pack_step *st = &steps->steps[i];
        if (!erased[st->weight]) continue;
        uint64_t t = tp_sat_sub_u64(st->bytes, after);
        if (t > out->transient_bytes) out->transient_bytes = t;
        if (st->first && !tp_add_u64(after, st->packed, &after)) after = UINT64_MAX;
    }
    tp_mem_free(a, erased, cap);
    return TP_OK;
}

tp_status tp_ort_prepack_compute(const tp_graph *g, uint32_t block, tp_ort_prepack *out,
                                 tp_error *err) {
    memset(out, 0, sizeof *out);
    tp_ort_pack_steps steps;
    tp_status s = tp_ort_pack_steps_compute(g, block, &steps, err);
    if (s == TP_OK) s = tp_ort_prepack_of_steps(g, &steps, NULL, out, err);
    tp_ort_pack_steps_free(g, &steps);
    return s;
}

static int step_by_key(const void *pa, const void *pb) {
    const tp_ort_pack_step *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->weight < b->weight ? -1 : a->weight > b->weight ? 1 : 0;
}

void tp_ort_pack_steps_free(const tp_graph *g, tp_ort_pack_steps *s) {
    if (s && s->steps) tp_mem_free(tp_graph_allocator(g), s->steps, s->cap * sizeof *s->steps);
    if (s) memset(s, 0, sizeof *s);
}

tp_status tp_ort_pack_steps_compute(const tp_graph *g, uint32_t block, tp_ort_pack_steps *out,
                                    tp_error *err) {
    memset(out, 0, sizeof *out);
    prepack_ctx c;
    tp_status s = ctx_init(g, block, &c, err);
    if (s != TP_OK) return s;
    size_t n = 0, cap = 2 * c.cap;
    tp_ort_pack_step *st = tp_mem_alloc(c.a, cap * sizeof *st);
    if (!st) s = tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (%u nodes)", c.x.n);
    for (uint32_t id = 0; s == TP_OK && id < c.x.n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        for (uint32_t i = 1; nd && i < 3 && i < nd->n_inputs && s == TP_OK; i++) {
            tp_node_id w = packed_weight(g, nd, i);
            if (w < 0 || (uint32_t)w >= c.x.n) continue;
            uint64_t bytes;
            if ((s = tp_graph_node_bytes(g, w, &bytes, err)) != TP_OK) break;
            uint64_t packed = tp_ort_packed_bytes(g, nd, tp_graph_node(g, w), bytes);
            if (!packed) continue;
            st[n++] =
                (tp_ort_pack_step){runner_key(g, &c.x, c.key, c.uses, c.reader, (tp_node_id)id),
                                   w,
                                   bytes,
                                   packed,
                                   false,
                                   false};
        }
    }
    if (s == TP_OK) {
        qsort(st, n, sizeof *st, step_by_key);
        /* a weight every use of which is packed is erased after its last packing (c.packs is
         * spent from here: marks); the first packing of a weight keeps its copy (c.uses, no longer
         * read, marks the weights packed so far) */
        for (size_t i = n; i-- > 0;) {
            tp_node_id w = st[i].weight;
            if (c.packs[w] >= c.uses[w] && c.packs[w] != UINT32_MAX) {
                st[i].erases = true;
                c.packs[w] = UINT32_MAX;
            }
        }
        for (size_t i = 0; i < n; i++) {
            tp_node_id w = st[i].weight;
            st[i].first = c.uses[w] != UINT32_MAX;
            c.uses[w] = UINT32_MAX;
        }
        out->steps = st;
        out->n = n;
        out->cap = cap;
    } else {
        tp_mem_free(c.a, st, cap * sizeof *st);
    }
    ctx_free(g, &c);
    return s;
}
