/* Tests of the onnxruntime profile's rules on how weights are loaded (src/estimate/runtime_ort.c,
 * ort_prepack.c): session 13's, a Conv whose weight is not of rank 4 gets no NCHWc re-laid-out
 * copy, and such a weight embedded in the .onnx is held once when it is at least 128 KiB (glibc's
 * initial mmap threshold); session 14's, an initializer read by several MatMul kernels, directly
 * or through an Identity that onnxruntime removes, is packed once per kernel (no
 * PrepackedWeightsContainer) and erased after the last. */
#include "estimate/ort_arena.h"
#include "ortgraph/ort_xform.h"
#include "harness.h"
#include "tensorplan/estimate.h"
#include "tensorplan/runtime.h"

enum {
    C1_W = 256 * 128 * 5 * 4,   /* Conv1d weight [256,128,5]: 640 KiB */
    C2_W = 64 * 64 * 3 * 3 * 4, /* Conv2d weight [64,64,3,3]: 144 KiB */
    C3_W = 64 * 32 * 3 * 3 * 4, /* Conv2d weight of 2 groups [64,32,3,3]: 72 KiB */
    T_BIG = 1024 * 64 * 4,      /* Gather table [1024,64]: 256 KiB */
    T_SMALL = 100 * 16 * 4      /* Gather table [100,16]: 6.25 KiB */
};

static tp_op conv_op(int spatial, int64_t k) {
    tp_op c = {.kind = TP_OP_CONV};
    c.attrs.conv.spatial = spatial;
    c.attrs.conv.groups = 1;
    for (int i = 0; i < spatial; i++) {
        c.attrs.conv.kernel[i] = k;
        c.attrs.conv.stride[i] = c.attrs.conv.dilation[i] = 1;
    }
    return c;
}

/* a[1,128,32] -conv1d(w1)-> y1; b[1,64,8,8] -conv2d(w2)-> y2, -conv2d(w3, 2 groups)-> y3 (a
 * grouped Conv that is not depthwise: NCHWc leaves it plain); Gathers from a large and a small
 * table by ids[1,2]. */
static tp_graph *loaded_graph(tp_error *err) {
    tp_graph *g = NULL;
    if (tp_graph_create(NULL, &g, err) != TP_OK) return NULL;
    tp_shape as = tp_shape_of(3, (int64_t[]){1, 128, 32}),
             w1s = tp_shape_of(3, (int64_t[]){256, 128, 5});
    tp_shape bs = tp_shape_of(4, (int64_t[]){1, 64, 8, 8}),
             w2s = tp_shape_of(4, (int64_t[]){64, 64, 3, 3}),
             w3s = tp_shape_of(4, (int64_t[]){64, 32, 3, 3});
    tp_shape tbs = tp_shape_of(2, (int64_t[]){1024, 64}),
             tss = tp_shape_of(2, (int64_t[]){100, 16});
    tp_shape is = tp_shape_of(2, (int64_t[]){1, 2});
    tp_op c1 = conv_op(1, 5), c2 = conv_op(2, 3), c3 = conv_op(2, 3),
          gather = {.kind = TP_OP_GATHER};
    c3.attrs.conv.groups = 2;
    tp_node_id a, w1, b, w2, w3, tb, ts, ids, y1, y2, y3, g1, g2;
    if (tp_graph_add_input(g, "a", TP_DTYPE_F32, &as, &a, err) != TP_OK ||
        tp_graph_add_param(g, "w1", TP_DTYPE_F32, &w1s, &w1, err) != TP_OK ||
        tp_graph_add_input(g, "b", TP_DTYPE_F32, &bs, &b, err) != TP_OK ||
        tp_graph_add_param(g, "w2", TP_DTYPE_F32, &w2s, &w2, err) != TP_OK ||
        tp_graph_add_param(g, "w3", TP_DTYPE_F32, &w3s, &w3, err) != TP_OK ||
        tp_graph_add_param(g, "tb", TP_DTYPE_F32, &tbs, &tb, err) != TP_OK ||
        tp_graph_add_param(g, "ts", TP_DTYPE_F32, &tss, &ts, err) != TP_OK ||
        tp_graph_add_input(g, "ids", TP_DTYPE_I64, &is, &ids, err) != TP_OK ||
        tp_graph_add_op(g, &c1, (tp_node_id[]){a, w1}, 2, "y1", &y1, err) != TP_OK ||
        tp_graph_add_op(g, &c2, (tp_node_id[]){b, w2}, 2, "y2", &y2, err) != TP_OK ||
        tp_graph_add_op(g, &c3, (tp_node_id[]){b, w3}, 2, "y3", &y3, err) != TP_OK ||
        tp_graph_mark_output(g, y3, err) != TP_OK ||
        tp_graph_add_op(g, &gather, (tp_node_id[]){tb, ids}, 2, "g1", &g1, err) != TP_OK ||
        tp_graph_add_op(g, &gather, (tp_node_id[]){ts, ids}, 2, "g2", &g2, err) != TP_OK ||
        tp_graph_mark_output(g, y1, err) != TP_OK || tp_graph_mark_output(g, y2, err) != TP_OK ||
        tp_graph_mark_output(g, g1, err) != TP_OK || tp_graph_mark_output(g, g2, err) != TP_OK) {
        tp_graph_destroy(g);
        return NULL;
    }
    return g;
}

/* v x pm / 1000 rounded up, as the profile scales a term */
static uint64_t scaled(uint64_t v, uint64_t pm) {
    return v / 1000 * pm + (v % 1000 * pm + 999) / 1000;
}

/* g's estimate (*e) and its onnxruntime profile (*r) with the default options (*o) */
static tp_status ort_default(const tp_graph *g, tp_estimate *e, tp_runtime_options *o,
                             tp_runtime_estimate *r, tp_error *err) {
    tp_status s = tp_estimate_graph(g, NULL, e, err);
    if (s != TP_OK) return s;
    tp_runtime_options_default(o);
    o->runtime = TP_RUNTIME_ONNXRUNTIME;
    return tp_runtime_estimate_graph(g, e, o, r, err);
}

TP_TEST(conv1d_is_not_relaid_and_large_embedded_weights_held_once) {
    tp_error err;
    tp_graph *g = loaded_graph(&err);
    TP_CHECK(g != NULL);
    if (!g) return;
    tp_estimate e;
    tp_runtime_options o;
    tp_runtime_estimate r;
    /* weights in an external data file */
    TP_CHECK_OK(ort_default(g, &e, &o, &r, &err), &err);
    TP_CHECK_EQ_U64(r.conv_weight_bytes, C1_W + C2_W + C3_W);
    /* the grouped one (32 input and output channels per group, multiples of the block) is
       converted too, as onnxruntime 1.30 does (docs/cost.md, "Session 14", item 7) */
    TP_CHECK_EQ_U64(r.conv_nchwc_weight_bytes, C2_W + C3_W);
    TP_CHECK_EQ_U64(r.conv_flat_weight_bytes, C1_W);
    TP_CHECK_EQ_U64(r.other_weight_bytes, T_BIG + T_SMALL);
    /* the 2-D Convs' weights get the Conv factor (1.65x, session 16: converted to NCHWc or not,
     * one factor for both), the 1-D one is read once */
    uint64_t relaid = scaled(C2_W + C3_W, 1650) - (C2_W + C3_W); /* one factor on their sum */
    TP_CHECK_EQ_U64(r.prepacked_bytes, relaid);
    TP_CHECK_EQ_U64(r.weight_bytes, C1_W + C2_W + C3_W); /* other weights mapped: 0x */
    TP_CHECK_EQ_U64(r.model_copy_bytes, 0);
    /* every weight embedded: the parsed file is held less the 1-D Conv weight (at least 128
     * KiB, read as loaded) and less the tables (read by no Conv: the heap emulation's, Session
     * 15); the 2-D Conv weights (rewritten by the NCHWc transformer) stay counted in the file */
    uint64_t file = C1_W + C2_W + C3_W + T_BIG + T_SMALL;
    o.ort.model_file_bytes = file;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &r, &err), &err);
    TP_CHECK_EQ_U64(r.heap_emulated_weight_bytes, T_BIG); /* the small one: under 64 KiB */
    TP_CHECK_EQ_U64(r.model_copy_bytes, C2_W + C3_W + T_SMALL);
    TP_CHECK_EQ_U64(r.prepacked_bytes, relaid);
    /* the tables marked as stored in an external data file: mapped again, not emulated */
    tp_node_id tb, ts;
    TP_CHECK_OK(tp_graph_find(g, "tb", &tb, &err), &err);
    TP_CHECK_OK(tp_graph_find(g, "ts", &ts, &err), &err);
    TP_CHECK_OK(tp_graph_set_param_external(g, tb, true, &err), &err);
    TP_CHECK_OK(tp_graph_set_param_external(g, ts, true, &err), &err);
    o.ort.model_file_bytes = C1_W + C2_W + C3_W;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &r, &err), &err);
    TP_CHECK_EQ_U64(r.heap_emulated_weight_bytes, 0);
    TP_CHECK_EQ_U64(r.other_weight_bytes, T_BIG + T_SMALL);
    tp_graph_destroy(g);
}

/* session 14 */
enum {
    K = 256,
    N = 120,              /* packed to 128 columns */
    W = K * N * 4,        /* the shared weight: 120 KiB */
    PACKED = K * 128 * 4, /* one packed copy: 128 KiB */
    B = 2 * N * 4         /* a bias read by an Add (not packed) */
};

/* x[2,K] -matmul(w)-> y0, x -matmul(identity(w))-> y1, y1 + bias -> y2 (bias through an Identity
 * too); with reread, identity(w) also read by a Relu: w no longer erased. */
static tp_graph *shared_graph(bool reread, tp_error *err) {
    tp_graph *g = NULL;
    if (tp_graph_create(NULL, &g, err) != TP_OK) return NULL;
    tp_shape xs = tp_shape_of(2, (int64_t[]){2, K}), ws = tp_shape_of(2, (int64_t[]){K, N}),
             bs = tp_shape_of(2, (int64_t[]){2, N});
    tp_op mm = {.kind = TP_OP_MATMUL}, id = {.kind = TP_OP_UNARY, .sub = TP_UNARY_IDENTITY},
          add = {.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD},
          relu = {.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU};
    tp_node_id x, w, b, wi, bi, y0, y1, y2, y3;
    if (tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, err) != TP_OK ||
        tp_graph_add_param(g, "w", TP_DTYPE_F32, &ws, &w, err) != TP_OK ||
        tp_graph_add_param(g, "b", TP_DTYPE_F32, &bs, &b, err) != TP_OK ||
        tp_graph_add_op(g, &id, (tp_node_id[]){w}, 1, "wi", &wi, err) != TP_OK ||
        tp_graph_add_op(g, &id, (tp_node_id[]){b}, 1, "bi", &bi, err) != TP_OK ||
        tp_graph_add_op(g, &mm, (tp_node_id[]){x, w}, 2, "y0", &y0, err) != TP_OK ||
        tp_graph_add_op(g, &mm, (tp_node_id[]){x, wi}, 2, "y1", &y1, err) != TP_OK ||
        tp_graph_add_op(g, &add, (tp_node_id[]){y1, bi}, 2, "y2", &y2, err) != TP_OK ||
        tp_graph_mark_output(g, y0, err) != TP_OK || tp_graph_mark_output(g, y2, err) != TP_OK ||
        (reread && (tp_graph_add_op(g, &relu, (tp_node_id[]){wi}, 1, "y3", &y3, err) != TP_OK ||
                    tp_graph_mark_output(g, y3, err) != TP_OK))) {
        tp_graph_destroy(g);
        return NULL;
    }
    return g;
}

/* A weight two MatMuls pack (one through an Identity): one packed copy stays (Session 15's traces:
 * the second kernel's copy is freed at once), the weight is erased after the last packing. */
TP_TEST(shared_weight_is_packed_once_and_erased_after_the_last) {
    tp_error err;
    tp_graph *g = shared_graph(false, &err);
    TP_CHECK(g != NULL);
    if (!g) return;
    tp_estimate e;
    tp_runtime_options o;
    tp_runtime_estimate r;
    TP_CHECK_OK(ort_default(g, &e, &o, &r, &err), &err);
    /* the weight once in its class, read through the Identity too */
    TP_CHECK_EQ_U64(r.gemm_weight_bytes, W);
    TP_CHECK_EQ_U64(r.other_weight_bytes, B);
    /* the packed copy replaces the original (1.01x); the second kernel's is not kept */
    TP_CHECK_EQ_U64(r.prepacked_bytes, scaled(W, 1010) - W);
    /* both readers pack it: erased, so the embedded file is held less the weight */
    tp_ort_prepack pp;
    TP_CHECK_OK(tp_ort_prepack_compute(g, 16, &pp, &err), &err);
    TP_CHECK_EQ_U64(pp.erased_bytes, W);
    /* embedded (Session 15): both through the heap emulation, the file no longer held; one
     * packed copy stays beside the freed copy's hole (the worst case), not two; session 18: and
     * the second kernel's copy, freed at once, counted once more as a hole that may stay */
    o.ort.model_file_bytes = W + B;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &r, &err), &err);
    TP_CHECK_EQ_U64(r.heap_emulated_weight_bytes, W); /* the bias: under 64 KiB */
    TP_CHECK_EQ_U64(r.model_copy_bytes, B);
    TP_CHECK(r.heap_emulated_bytes >= 2u * PACKED + W);
    TP_CHECK(r.heap_emulated_bytes < 3u * PACKED + W);
    /* without pre-packing: no packed copies at all */
    o.ort.prepacking = false;
    o.ort.model_file_bytes = 0;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &r, &err), &err);
    TP_CHECK_EQ_U64(r.prepacked_bytes, 0);
    tp_graph_destroy(g);
    /* the Identity's output also read by a Relu: a use that packs nothing, never erased */
    g = shared_graph(true, &err);
    TP_CHECK(g != NULL);
    if (!g) return;
    TP_CHECK_OK(tp_ort_prepack_compute(g, 16, &pp, &err), &err);
    TP_CHECK_EQ_U64(pp.erased_bytes, 0);
    tp_graph_destroy(g);
}

/* Which Convs onnxruntime 1.30 runs in NCHWc at block 16: the cases read off its optimized graphs
   (optimizedModelFilePath, one Conv per model; docs/cost.md, "Session 14", item 7). */
TP_TEST(nchwc_conversion_follows_onnxruntime_1_30) {
    /* dense: input channels under the block or aligned to 4, any output channels */
    TP_CHECK(tp_ort_conv_converts(2, 1, 32, 24, 16));
    TP_CHECK(tp_ort_conv_converts(2, 1, 24, 32, 16));
    TP_CHECK(tp_ort_conv_converts(2, 1, 20, 20, 16));
    TP_CHECK(tp_ort_conv_converts(2, 1, 7, 9, 16));
    TP_CHECK(!tp_ort_conv_converts(2, 1, 58, 58, 16));
    /* depthwise: channels aligned to 4 */
    TP_CHECK(tp_ort_conv_converts(2, 116, 116, 116, 16));
    TP_CHECK(tp_ort_conv_converts(2, 12, 12, 12, 16));
    TP_CHECK(!tp_ort_conv_converts(2, 58, 58, 58, 16));
    /* grouped: per-group channels multiples of the block */
    TP_CHECK(tp_ort_conv_converts(2, 4, 64, 64, 16));
    TP_CHECK(tp_ort_conv_converts(2, 2, 64, 64, 16));
    TP_CHECK(!tp_ort_conv_converts(2, 16, 128, 128, 16));
    TP_CHECK(!tp_ort_conv_converts(2, 4, 96, 96, 16));
    /* never a 1-D or 3-D one, nor without a block */
    TP_CHECK(!tp_ort_conv_converts(1, 1, 32, 32, 16));
    TP_CHECK(!tp_ort_conv_converts(3, 1, 32, 32, 16));
    TP_CHECK(!tp_ort_conv_converts(2, 1, 32, 32, 0));
}

int main(void) {
    TP_RUN(conv1d_is_not_relaid_and_large_embedded_weights_held_once);
    TP_RUN(shared_weight_is_packed_once_and_erased_after_the_last);
    TP_RUN(nchwc_conversion_follows_onnxruntime_1_30);
    return tp_test_finish();
}
