/* Tests of the runtime profiles (include/tensorplan/runtime.h): names, the plan profile, and
 * the onnxruntime profile's terms on a graph with a Conv, a MatMul and a Gather table. */
#include <stdlib.h>
#include <string.h>

#include "estimate/ort_arena.h"
#include "estimate/ort_load.h"
#include "ortgraph/ort_xform.h"
#include "harness.h"
#include "tensorplan/demo.h"
#include "tensorplan/runtime.h"

/* x[1,4,8,8] -conv(w[8,4,3,3])-> [1,8,6,6] -reshape-> [1,288] -matmul(m[288,16])-> [1,16];
 * plus a Gather from table t[100,16] by ids[1,2]. */
static tp_graph *conv_mm_graph(tp_error *err) {
    tp_graph *g = NULL;
    if (tp_graph_create(NULL, &g, err) != TP_OK) return NULL;
    tp_node_id x, w, c, r, m, y, t, ids, gth;
    tp_shape xs = tp_shape_of(4, (int64_t[]){1, 4, 8, 8});
    tp_shape wsh = tp_shape_of(4, (int64_t[]){8, 4, 3, 3});
    tp_shape ms = tp_shape_of(2, (int64_t[]){288, 16});
    tp_shape rs = tp_shape_of(2, (int64_t[]){1, 288});
    tp_shape ts = tp_shape_of(2, (int64_t[]){100, 16});
    tp_shape is = tp_shape_of(2, (int64_t[]){1, 2});
    tp_op conv = {.kind = TP_OP_CONV};
    conv.attrs.conv.spatial = 2;
    conv.attrs.conv.groups = 1;
    for (int i = 0; i < 2; i++) {
        conv.attrs.conv.kernel[i] = 3;
        conv.attrs.conv.stride[i] = 1;
        conv.attrs.conv.dilation[i] = 1;
    }
    tp_op gather = {.kind = TP_OP_GATHER};
    gather.attrs.axis.axis = 0;
    if (tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, err) != TP_OK ||
        tp_graph_add_param(g, "w", TP_DTYPE_F32, &wsh, &w, err) != TP_OK ||
        tp_graph_add_param(g, "m", TP_DTYPE_F32, &ms, &m, err) != TP_OK ||
        tp_graph_add_param(g, "t", TP_DTYPE_F32, &ts, &t, err) != TP_OK ||
        tp_graph_add_input(g, "ids", TP_DTYPE_I64, &is, &ids, err) != TP_OK ||
        tp_graph_add_op(g, &conv, (tp_node_id[]){x, w}, 2, "conv", &c, err) != TP_OK ||
        tp_graph_add_op_shaped(g, &(tp_op){.kind = TP_OP_RESHAPE}, (tp_node_id[]){c}, 1, &rs,
                               TP_DTYPE_F32, "flat", &r, err) != TP_OK ||
        tp_graph_add_op(g, &(tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){r, m}, 2, "mm", &y,
                        err) != TP_OK ||
        tp_graph_add_op(g, &gather, (tp_node_id[]){t, ids}, 2, "gather", &gth, err) != TP_OK ||
        tp_graph_mark_output(g, y, err) != TP_OK || tp_graph_mark_output(g, gth, err) != TP_OK) {
        tp_graph_destroy(g);
        return NULL;
    }
    return g;
}

/* The graph above and its plan estimate; NULL on failure. */
static tp_graph *estimated_graph(tp_estimate *e, tp_error *err) {
    tp_graph *g = conv_mm_graph(err);
    if (g && tp_estimate_graph(g, NULL, e, err) != TP_OK) {
        tp_graph_destroy(g);
        g = NULL;
    }
    return g;
}

/* A 2-D 1×1 convolution, stride and dilation 1, one group. */
static tp_op conv1x1_op(void) {
    tp_op conv = {.kind = TP_OP_CONV};
    conv.attrs.conv.spatial = 2;
    conv.attrs.conv.groups = 1;
    for (int i = 0; i < 2; i++)
        conv.attrs.conv.kernel[i] = conv.attrs.conv.stride[i] = conv.attrs.conv.dilation[i] = 1;
    return conv;
}

/* The emulated onnxruntime trace of g (ort_trace.c): *nb buffers, owned (free()), NULL on error. */
static tp_ort_buf *ort_trace(tp_graph *g, uint32_t block, size_t *nb) {
    tp_error err;
    tp_plan_options po;
    tp_plan_options_default(&po);
    po.allocate_params = po.allocate_inputs = po.allocate_constants = false;
    po.inplace = false;
    tp_liveness *l = NULL;
    *nb = 0;
    TP_CHECK_OK(tp_liveness_compute(g, &po, NULL, &l, &err), &err);
    tp_ort_buf *bufs = NULL;
    size_t cap = 0;
    if (l) TP_CHECK_OK(tp_ort_trace_buffers(g, l, block, &bufs, nb, &cap, &err), &err);
    tp_liveness_destroy(l);
    return bufs;
}

/* Count the buffers the trace gives node id, and the buffers with their own allocation. */
static void trace_counts(tp_graph *g, uint32_t block, tp_node_id id, int *of_id, int *own) {
    size_t nb = 0;
    tp_ort_buf *bufs = ort_trace(g, block, &nb);
    *of_id = *own = 0;
    for (size_t i = 0; i < nb; i++) {
        if (bufs[i].id == id) (*of_id)++;
        if (bufs[i].reuses < 0) (*own)++;
    }
    free(bufs);
}

TP_TEST(names_parse_and_print) {
    tp_runtime_kind k;
    tp_error err;
    TP_CHECK_OK(tp_runtime_parse("onnxruntime", &k, &err), &err);
    TP_CHECK(k == TP_RUNTIME_ONNXRUNTIME);
    TP_CHECK_OK(tp_runtime_parse("llama.cpp", &k, &err), &err);
    TP_CHECK(k == TP_RUNTIME_LLAMA_CPP);
    TP_CHECK_OK(tp_runtime_parse("plan", &k, &err), &err);
    TP_CHECK(k == TP_RUNTIME_PLAN);
    TP_CHECK_STATUS(tp_runtime_parse("tflite", &k, &err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err.msg, "tflite");
    TP_CHECK_STR(tp_runtime_name(TP_RUNTIME_ONNXRUNTIME), "onnxruntime");
    TP_CHECK_STR(tp_runtime_name((tp_runtime_kind)99), "unknown");
}

TP_TEST(plan_profile_is_the_estimate) {
    tp_error err;
    tp_estimate e;
    tp_graph *g = estimated_graph(&e, &err);
    TP_CHECK(g != NULL);
    if (!g) return;
    tp_runtime_estimate r;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, NULL, &r, &err), &err);
    TP_CHECK(r.runtime == TP_RUNTIME_PLAN);
    TP_CHECK_EQ_U64(r.peak_bytes, e.peak_bytes);
    TP_CHECK_EQ_U64(r.plan_peak_bytes, e.peak_bytes);
    TP_CHECK_EQ_U64(r.session_fixed_bytes, 0);
    tp_graph_destroy(g);
}

TP_TEST(onnxruntime_terms) {
    tp_error err;
    tp_estimate e;
    tp_graph *g = estimated_graph(&e, &err);
    TP_CHECK(g != NULL);
    if (!g) return;
    tp_runtime_options o;
    tp_runtime_options_default(&o);
    o.runtime = TP_RUNTIME_ONNXRUNTIME;
    tp_runtime_estimate r;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &r, &err), &err);
    TP_CHECK_EQ_U64(r.conv_weight_bytes, 8 * 4 * 3 * 3 * 4);
    TP_CHECK_EQ_U64(r.gemm_weight_bytes, 288 * 16 * 4);
    TP_CHECK_EQ_U64(r.other_weight_bytes, 100 * 16 * 4);
    TP_CHECK(r.session_fixed_bytes > 20u << 20); /* measured: about 26 MiB */
    TP_CHECK_EQ_U64(r.peak_bytes, r.session_fixed_bytes + r.graph_bytes + r.model_copy_bytes +
                                      r.calibration_margin_bytes + r.weight_bytes +
                                      r.prepacked_bytes + r.arena_bytes + r.input_bytes +
                                      r.output_copy_bytes);
    /* the binding's copies of the outputs (node, Python), each output once; none for a C
       caller */
    uint64_t outs = 0;
    for (uint32_t i = 0; i < tp_graph_output_count(g); i++) {
        uint64_t b = 0;
        TP_CHECK_OK(tp_graph_node_bytes(g, tp_graph_output(g, i), &b, &err), &err);
        outs += b;
    }
    TP_CHECK(outs > 0);
    TP_CHECK_EQ_U64(r.output_copy_bytes, outs);
    tp_runtime_options c_caller = o;
    c_caller.ort.copy_outputs = false;
    tp_runtime_estimate rc;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &c_caller, &rc, &err), &err);
    TP_CHECK_EQ_U64(rc.output_copy_bytes, 0);
    TP_CHECK(rc.peak_bytes < r.peak_bytes);
    TP_CHECK_EQ_U64(r.node_count, 4);       /* conv, reshape, matmul, gather */
    TP_CHECK_EQ_U64(r.model_copy_bytes, 0); /* no model file given */
    TP_CHECK(r.peak_bytes > e.peak_bytes);
    TP_CHECK(r.activation_plan_bytes >= e.activation_bytes); /* no in-place reuse: not less */
    TP_CHECK(r.arena_bytes > 0);
    TP_CHECK(r.arena_reserved_bytes >= r.arena_emulated_bytes);
    TP_CHECK(r.arena_bytes >= r.arena_emulated_bytes);
    /* the parsed model file is held, less the MatMul weight (pre-packed, then erased): a larger
     * file, a larger figure (weights under 64 KiB are not the heap emulation's, Session 15) */
    uint64_t base = r.peak_bytes;
    o.ort.model_file_bytes = 10u << 20;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &r, &err), &err);
    TP_CHECK_EQ_U64(r.heap_emulated_weight_bytes, 0);
    TP_CHECK_EQ_U64(r.model_copy_bytes, (10u << 20) - r.gemm_weight_bytes);
    TP_CHECK(r.peak_bytes > base + (10u << 20) - r.gemm_weight_bytes);
    o.ort.model_file_bytes = 0;
    TP_CHECK_CONTAINS(r.fixed_source, "measured");
    /* pre-packing off: no packed MatMul copy, so not more memory */
    uint64_t with = r.peak_bytes;
    o.ort.prepacking = false;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &r, &err), &err);
    TP_CHECK_LE_U64(r.peak_bytes, with);
    /* llama.cpp is for GGUF models */
    o.runtime = TP_RUNTIME_LLAMA_CPP;
    TP_CHECK_STATUS(tp_runtime_estimate_graph(g, &e, &o, &r, &err), TP_ERR_UNSUPPORTED);
    TP_CHECK_STATUS(tp_runtime_estimate_graph(NULL, &e, &o, &r, &err), TP_ERR_INVALID);
    tp_graph_destroy(g);
}

/* g's plan estimate (*e) and its onnxruntime profile with default options (*o, *r). */
static tp_status ort_estimate_of(const tp_graph *g, tp_estimate *e, tp_runtime_options *o,
                                 tp_runtime_estimate *r, tp_error *err) {
    tp_runtime_options_default(o);
    o->runtime = TP_RUNTIME_ONNXRUNTIME;
    tp_status s = tp_estimate_graph(g, NULL, e, err);
    return s == TP_OK ? tp_runtime_estimate_graph(g, e, o, r, err) : s;
}

/* x[1,k0] -op(w0[k0,k1])-> [relu ->] -op(w1[k1,k2])-> y, op a MatMul or a Gemm: two pre-packed
 * weights in node order. */
static tp_graph *two_packed(tp_op_kind kind, bool relu, int64_t k0, int64_t k1, int64_t k2,
                            tp_error *err) {
    tp_graph *g = NULL;
    if (tp_graph_create(NULL, &g, err) != TP_OK) return NULL;
    tp_node_id x, w0, w1, a, r, y;
    tp_shape xs = tp_shape_of(2, (int64_t[]){1, k0});
    tp_shape s0 = tp_shape_of(2, (int64_t[]){k0, k1}), s1 = tp_shape_of(2, (int64_t[]){k1, k2});
    tp_op mm = {.kind = kind};
    if (kind == TP_OP_GEMM) mm.attrs.gemm.alpha = mm.attrs.gemm.beta = 1.0;
    tp_op re = {.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU};
    if (tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, err) != TP_OK ||
        tp_graph_add_param(g, "w0", TP_DTYPE_F32, &s0, &w0, err) != TP_OK ||
        tp_graph_add_param(g, "w1", TP_DTYPE_F32, &s1, &w1, err) != TP_OK ||
        tp_graph_add_op(g, &mm, (tp_node_id[]){x, w0}, 2, "mm0", &a, err) != TP_OK ||
        (relu && tp_graph_add_op(g, &re, &a, 1, "relu", &r, err) != TP_OK) ||
        tp_graph_add_op(g, &mm, (tp_node_id[]){relu ? r : a, w1}, 2, "mm1", &y, err) != TP_OK ||
        tp_graph_mark_output(g, y, err) != TP_OK) {
        tp_graph_destroy(g);
        return NULL;
    }
    return g;
}

static tp_graph *two_matmuls(int64_t k0, int64_t k1, int64_t k2, tp_error *err) {
    return two_packed(TP_OP_MATMUL, false, k0, k1, k2, err);
}

/* Session 28: the arena's regions in the heap the creation left (ort_load.c): w0's erased copy
 * (4,096,000 bytes) leaves a hole; a 1 MiB region fits it and adds nothing, a 2 MiB one then
 * fits the rest, an 8 MiB one does not (mmapped: glibc's threshold is 4 MiB after the 4 MiB parse
 * buffer was freed) and adds only the pages the runs touch in it. */
TP_TEST(arena_regions_fill_the_creation_holes) {
    tp_error err;
    tp_graph *g = two_matmuls(1024, 1000, 24, &err);
    TP_CHECK(g != NULL);
    if (!g) return;
    uint32_t n = tp_graph_node_count(g);
    uint8_t *emulated = calloc(n + 1, 1);
    TP_CHECK(emulated != NULL);
    if (!emulated) {
        tp_graph_destroy(g);
        return;
    }
    tp_ort_load_select(g, 8u << 20, emulated);
    tp_ort_pack_steps steps;
    TP_CHECK_OK(tp_ort_pack_steps_compute(g, 16, &steps, &err), &err);
    tp_ort_arena_sim sim;
    memset(&sim, 0, sizeof sim);
    sim.regions = 3;
    sim.regions_listed = true;
    sim.region_bytes[0] = 1u << 20, sim.region_touched[0] = 1u << 20;
    sim.region_bytes[1] = 2u << 20, sim.region_touched[1] = 2u << 20;
    sim.region_bytes[2] = 8u << 20, sim.region_touched[2] = 3u << 20;
    tp_ort_load ld, alone;
    TP_CHECK_OK(tp_ort_load_emulate(g, 8u << 20, emulated, &steps, NULL, &alone, &err), &err);
    TP_CHECK(!alone.arena_placed);
    TP_CHECK_OK(tp_ort_load_emulate(g, 8u << 20, emulated, &steps, &sim, &ld, &err), &err);
    TP_CHECK(ld.arena_placed);
    TP_CHECK_EQ_U64(ld.arena_growth_bytes, 3u << 20);
    TP_CHECK_EQ_U64(ld.resident_bytes, alone.resident_bytes); /* the creation's figure stays */
    /* regions not listed (same-as-requested beyond TP_ORT_ARENA_REGIONS_MAX): not placed */
    sim.regions_listed = false;
    TP_CHECK_OK(tp_ort_load_emulate(g, 8u << 20, emulated, &steps, &sim, &ld, &err), &err);
    TP_CHECK(!ld.arena_placed);
    TP_CHECK_EQ_U64(ld.arena_growth_bytes, 0);
    tp_ort_pack_steps_free(g, &steps);
    free(emulated);
    tp_graph_destroy(g);
}

/* Pre-packing's creation transient (ort_prepack.c): while a weight is packed its original and
 * the packed copies made before it are resident, the ones after it not yet: the excess over all
 * packed copies is the largest original less the packed copies made after it. */
TP_TEST(onnxruntime_prepack_transient) {
    tp_error err;
    /* the large weight first: 1024x1000 (1000 columns pack as 1008), then 1000x24 (24 -> 32) */
    tp_graph *g = two_matmuls(1024, 1000, 24, &err);
    TP_CHECK(g != NULL);
    if (!g) return;
    tp_ort_prepack pp;
    TP_CHECK_OK(tp_ort_prepack_compute(g, 16, &pp, &err), &err);
    TP_CHECK_EQ_U64(pp.transient_bytes, 1024u * 1000 * 4 - 1000u * 32 * 4);
    /* both are read by MatMuls only: both erased after packing */
    TP_CHECK_EQ_U64(pp.erased_bytes, 1024u * 1000 * 4 + 1000u * 24 * 4);
    TP_CHECK_EQ_U64(pp.largest_erased_bytes, 1024u * 1000 * 4);
    tp_estimate e;
    tp_runtime_options o;
    tp_runtime_estimate r;
    TP_CHECK_OK(ort_estimate_of(g, &e, &o, &r, &err), &err);
    /* weights in an external file (no model file): no heap emulated, no hole known */
    TP_CHECK_EQ_U64(r.load_transient_bytes, pp.transient_bytes);
    TP_CHECK_EQ_U64(r.arena_in_holes_bytes, 0);
    TP_CHECK(r.arena_bytes >= pp.transient_bytes);
    /* Session 15: embedded weights (the file holds them all) go through the heap emulation
     * (ort_load.c): the 4 MiB parse buffer (at most), the parsed bytes, the copies, the packed
     * copies. The worst case keeps the freed copy of w0 as a hole beside both packed copies
     * (1024 x 1008 and 1000 x 32 floats). */
    o.ort.model_file_bytes = 8u << 20;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &r, &err), &err);
    TP_CHECK_EQ_U64(r.heap_emulated_weight_bytes, pp.erased_bytes);
    TP_CHECK_EQ_U64(r.model_copy_bytes, (8u << 20) - pp.erased_bytes);
    TP_CHECK(r.heap_emulated_bytes >= 1024u * 1008 * 4 + 1000u * 32 * 4 + 1024u * 1000 * 4);
    /* Session 28: the arena's one 1 MiB region is malloc'd in run 1 into the heap the creation
     * left, where w0's erased copy (4 MB) is a hole: its pages are resident already */
    TP_CHECK(r.arena_emulated_bytes > 0);
    TP_CHECK_EQ_U64(r.arena_in_holes_bytes, r.arena_emulated_bytes);
    /* the parse held the 4 MiB buffer and w0's parsed bytes (8.39 MB), less than the worst case
     * keeps after packing (8.54 MB): no transient above it */
    TP_CHECK_EQ_U64(r.load_transient_bytes, 0);
    o.ort.model_file_bytes = 0;
    /* no pre-packing: no transient, nothing erased */
    o.ort.prepacking = false;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &r, &err), &err);
    TP_CHECK_EQ_U64(r.load_transient_bytes, 0);
    o.ort.model_file_bytes = 8u << 20;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &r, &err), &err);
    TP_CHECK_EQ_U64(r.model_copy_bytes, (8u << 20) - r.heap_emulated_weight_bytes);
    /* the copies stay (nothing packed, nothing erased) */
    TP_CHECK(r.heap_emulated_bytes >= r.heap_emulated_weight_bytes);
    tp_graph_destroy(g);
    /* the large weight last: nothing is packed after it, its whole original is the transient */
    g = two_matmuls(16, 24, 1000, &err);
    TP_CHECK(g != NULL);
    if (!g) return;
    TP_CHECK_OK(tp_ort_prepack_compute(g, 16, &pp, &err), &err);
    TP_CHECK_EQ_U64(pp.transient_bytes, 24u * 1000 * 4);
    tp_graph_destroy(g);
}

/* A Gemm read only by a Relu: onnxruntime fuses the two into a FusedGemm, a node its optimizer
 * creates after the model's nodes, so the second Gemm (a model node) packs first and nothing is
 * packed after the first (ort_prepack.c). */
TP_TEST(onnxruntime_fused_gemm_packs_last) {
    tp_error err;
    tp_ort_prepack pp;
    tp_graph *g = two_packed(TP_OP_GEMM, false, 64, 512, 32, &err);
    TP_CHECK(g != NULL);
    if (!g) return;
    TP_CHECK_OK(tp_ort_prepack_compute(g, 16, &pp, &err), &err);
    TP_CHECK_EQ_U64(pp.transient_bytes, 64u * 512 * 4 - 512u * 32 * 4); /* w1 packed after w0 */
    tp_graph_destroy(g);
    g = two_packed(TP_OP_GEMM, true, 64, 512, 32, &err);
    TP_CHECK(g != NULL);
    if (!g) return;
    TP_CHECK_OK(tp_ort_prepack_compute(g, 16, &pp, &err), &err);
    TP_CHECK_EQ_U64(pp.transient_bytes, 64u * 512 * 4); /* the FusedGemm packs last */
    tp_graph_destroy(g);
}

/* x[2,k] -matmul(w[k,n])-> y, and w also read by a Gather (a tied embedding): w is packed but
 * never erased, so it is neither released from the parsed model nor a transient. */
TP_TEST(onnxruntime_prepack_keeps_a_weight_read_unpacked) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_node_id x, ids, w, y, t;
    tp_shape xs = tp_shape_of(2, (int64_t[]){2, 64}), is = tp_shape_of(1, (int64_t[]){3});
    tp_shape ws = tp_shape_of(2, (int64_t[]){64, 400});
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_input(g, "ids", TP_DTYPE_I64, &is, &ids, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w", TP_DTYPE_F32, &ws, &w, &err), &err);
    enum { WB = 64 * 400 * 4 };
    TP_CHECK_OK(
        tp_graph_add_op(g, &(tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x, w}, 2, "mm", &y, &err),
        &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_GATHER}, (tp_node_id[]){w, ids}, 2,
                                "gather", &t, &err),
                &err);
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, t, &err), &err);
    tp_ort_prepack pp;
    TP_CHECK_OK(tp_ort_prepack_compute(g, 16, &pp, &err), &err);
    TP_CHECK_EQ_U64(pp.erased_bytes, 0);
    TP_CHECK_EQ_U64(pp.transient_bytes, 0);
    tp_estimate e;
    tp_runtime_options o;
    tp_runtime_estimate r;
    TP_CHECK_OK(ort_estimate_of(g, &e, &o, &r, &err), &err);
    o.ort.model_file_bytes = 1u << 20;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &r, &err), &err);
    /* Session 15: embedded, the weight goes through the heap emulation; never erased, its copy
     * and its packed copy (64 x 400 floats) both stay */
    TP_CHECK_EQ_U64(r.heap_emulated_weight_bytes, WB);
    TP_CHECK_EQ_U64(r.model_copy_bytes, (1u << 20) - WB);
    TP_CHECK(r.heap_emulated_bytes >= 2u * WB); /* 400 columns pack as 400 */
    tp_graph_destroy(g);
}

/* A float16 Gemm computed in float32: onnxruntime folds the Cast of its half B at load and MLAS
 * packs the float32 copy (heldout18's float16 MobileNetV3-Small, docs/runtime.md "Session 32"):
 * B [24, 10] half (480 B) packs as float32 with its 10 columns rounded up to 16, 24 x 16 x 4 B; a
 * float32 B of the same shape packs the same. */
TP_TEST(onnxruntime_half_gemm_weight_packs_as_float32) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(2, (int64_t[]){3, 24}), ws = tp_shape_of(2, (int64_t[]){24, 10});
    tp_node_id x, w, y, x32, w32, y32;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F16, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w", TP_DTYPE_F16, &ws, &w, &err), &err);
    TP_CHECK_OK(
        tp_graph_add_op(g, &(tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x, w}, 2, "y", &y, &err),
        &err);
    TP_CHECK_OK(tp_graph_add_input(g, "x32", TP_DTYPE_F32, &xs, &x32, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w32", TP_DTYPE_F32, &ws, &w32, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x32, w32}, 2,
                                "y32", &y32, &err),
                &err);
    TP_CHECK_EQ_U64(tp_ort_packed_bytes(g, tp_graph_node(g, y), tp_graph_node(g, w), 24u * 10 * 2),
                    24u * 16 * 4);
    TP_CHECK_EQ_U64(
        tp_ort_packed_bytes(g, tp_graph_node(g, y32), tp_graph_node(g, w32), 24u * 10 * 4),
        24u * 16 * 4);
    tp_graph_destroy(g);
}

/* onnxruntime's LSTM and GRU kernels pre-pack W and R (deep_cpu_lstm.cc, deep_cpu_gru.cc):
 * they are in the "gemm" class, packed per direction with gates x hidden rounded up to 16, and
 * erased after packing; the bias B is not packed. */
TP_TEST(onnxruntime_lstm_weights_are_prepacked) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    /* hidden 5: 4 gates x 5 = 20 rows, packed as 32; input 8; one direction */
    tp_node_id x, w, rr, b, y;
    tp_shape xs = tp_shape_of(3, (int64_t[]){7, 2, 8}), wsh = tp_shape_of(3, (int64_t[]){1, 20, 8});
    tp_shape rs = tp_shape_of(3, (int64_t[]){1, 20, 5}), bs = tp_shape_of(2, (int64_t[]){1, 40});
    tp_shape ys = tp_shape_of(4, (int64_t[]){7, 1, 2, 5});
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "W", TP_DTYPE_F32, &wsh, &w, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "R", TP_DTYPE_F32, &rs, &rr, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "B", TP_DTYPE_F32, &bs, &b, &err), &err);
    tp_op lstm = {.kind = TP_OP_CUSTOM};
    lstm.attrs.custom.name = "LSTM";
    lstm.attrs.custom.n_inputs = 4;
    TP_CHECK_OK(tp_graph_add_op_shaped(g, &lstm, (tp_node_id[]){x, w, rr, b}, 4, &ys, TP_DTYPE_F32,
                                       "lstm", &y, &err),
                &err);
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    TP_CHECK(tp_ort_packs_input(tp_graph_node(g, y), 1) &&
             tp_ort_packs_input(tp_graph_node(g, y), 2));
    TP_CHECK(!tp_ort_packs_input(tp_graph_node(g, y), 3));
    TP_CHECK_EQ_U64(tp_ort_packed_bytes(g, tp_graph_node(g, y), tp_graph_node(g, w), 20u * 8 * 4),
                    32u * 8 * 4);
    tp_ort_prepack pp;
    TP_CHECK_OK(tp_ort_prepack_compute(g, 16, &pp, &err), &err);
    TP_CHECK_EQ_U64(pp.erased_bytes, 20u * 8 * 4 + 20u * 5 * 4);
    TP_CHECK_EQ_U64(pp.largest_erased_bytes, 20u * 8 * 4);
    tp_estimate e;
    tp_runtime_options o;
    tp_runtime_estimate r;
    TP_CHECK_OK(ort_estimate_of(g, &e, &o, &r, &err), &err);
    TP_CHECK_EQ_U64(r.gemm_weight_bytes, 20u * 8 * 4 + 20u * 5 * 4);
    TP_CHECK_EQ_U64(r.other_weight_bytes, 40u * 4);
    tp_graph_destroy(g);
}

/* Control-flow bodies: an initializer n bodies deep costs BODY_COPY_PM + (n - 1) x
 * BODY_NEST_PM of its bytes more (in model_copy_bytes), each body 10,000 B of session state and
 * each node of a branch not planned a node's 3,461 B (in graph_bytes); measured on the
 * synthetic models of bench/ort_memory/synth_body.py (runtime_ort.c). */
TP_TEST(onnxruntime_body_terms) {
    tp_error err;
    tp_estimate e;
    tp_runtime_options o;
    tp_runtime_options_default(&o);
    o.runtime = TP_RUNTIME_ONNXRUNTIME;
    tp_graph *g = estimated_graph(&e, &err);
    TP_CHECK(g != NULL);
    if (!g) return;
    tp_runtime_estimate r0, r;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &r0, &err), &err);
    TP_CHECK_EQ_U64(r0.body_weight_bytes, 0);
    tp_node_id t;
    TP_CHECK_OK(tp_graph_find(g, "t", &t, &err), &err);
    TP_CHECK_OK(tp_graph_set_param_body_depth(g, t, 2, &err), &err); /* 100x16 f32: 6,400 B */
    TP_CHECK_OK(tp_graph_add_bodies(g, 3, 5, &err), &err);
    uint64_t bodies, unplanned;
    tp_graph_bodies(g, &bodies, &unplanned);
    TP_CHECK_EQ_U64(bodies, 3);
    TP_CHECK_EQ_U64(unplanned, 5);
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &r, &err), &err);
    TP_CHECK_EQ_U64(r.body_weight_bytes, 6400);
    TP_CHECK_EQ_U64(r.model_copy_bytes, r0.model_copy_bytes + 6400 * (1030 + 1370) / 1000);
    TP_CHECK_EQ_U64(r.node_count, r0.node_count + 5);
    TP_CHECK_EQ_U64(r.graph_bytes, r0.graph_bytes + 5 * 3461 + 3 * 10000);
    TP_CHECK(r.peak_bytes > r0.peak_bytes);
    TP_CHECK_STR(r.not_modelled, "");
    /* a Constant node one body deep: BODY_CONST_PM more (3.26x against 3.03x, session 30) and
     * ORT_BODY_CONST_BYTES of its own state */
    tp_node_id k;
    tp_shape ks = tp_shape_of(1, (int64_t[]){1000});
    TP_CHECK_OK(tp_graph_add_constant(g, "k", TP_DTYPE_F32, &ks, &k, &err), &err);
    TP_CHECK_OK(tp_graph_set_param_body_depth(g, k, 1, &err), &err);
    tp_runtime_estimate rk;
    TP_CHECK_OK(tp_runtime_estimate_graph(g, &e, &o, &rk, &err), &err);
    TP_CHECK_EQ_U64(rk.body_weight_bytes, 6400 + 4000);
    TP_CHECK_EQ_U64(rk.model_copy_bytes, r.model_copy_bytes + 4000 * (1030 + 230) / 1000);
    /* and its own state: 2,884 B inside a body (1,937 B in the main graph) */
    TP_CHECK_EQ_U64(rk.graph_bytes, r.graph_bytes + 2884);
    /* only Params and Constants have a body depth; a NULL graph has no bodies */
    tp_node_id conv;
    TP_CHECK_OK(tp_graph_find(g, "conv", &conv, &err), &err);
    TP_CHECK_STATUS(tp_graph_set_param_body_depth(g, conv, 1, &err), TP_ERR_INVALID);
    TP_CHECK_STATUS(tp_graph_add_bodies(NULL, 1, 0, &err), TP_ERR_INVALID);
    TP_CHECK_STATUS(tp_graph_add_bodies(g, UINT64_MAX, 0, &err), TP_ERR_OVERFLOW);
    tp_graph_bodies(NULL, &bodies, &unplanned);
    TP_CHECK_EQ_U64(bodies + unplanned, 0);
    tp_graph_destroy(g);
}

/* A graph computing in float16: onnxruntime's CPU provider runs it in float32, which the profile
 * does not emulate; it says so (not_modelled), and not for a float32 graph nor a Cast to float16
 * alone. */
TP_TEST(onnxruntime_names_float16_compute) {
    for (int half = 0; half < 3; half++) {
        tp_error err;
        tp_graph *g = NULL;
        TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
        if (!g) return;
        tp_shape xs = tp_shape_of(2, (int64_t[]){64, 64});
        tp_node_id x, a, b;
        tp_op cast = {.kind = TP_OP_CAST};
        cast.attrs.cast.to = half ? TP_DTYPE_F16 : TP_DTYPE_F32;
        TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &cast, (tp_node_id[]){x}, 1, "a", &a, &err), &err);
        b = a;
        if (half == 2)
            TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG},
                                        (tp_node_id[]){a}, 1, "b", &b, &err),
                        &err);
        TP_CHECK_OK(tp_graph_mark_output(g, b, &err), &err);
        tp_estimate e;
        tp_runtime_options o;
        tp_runtime_estimate r;
        TP_CHECK_OK(ort_estimate_of(g, &e, &o, &r, &err), &err);
        if (half == 2)
            TP_CHECK_CONTAINS(r.not_modelled, "float16 compute");
        else
            TP_CHECK_STR(r.not_modelled, "");
        tp_graph_destroy(g);
    }
}

/* Nodes onnxruntime folds at load (TP_NODE_FOLDED): priced as constants, not kernels; a body's
 * fold from an enclosing weight (TP_NODE_FOLDED_COPY) that a running node reads is a copy the
 * body keeps, at 1x, and so are the copies counted for bodies not planned (tp_graph_add_folded).
 * w[256,256] f32 -neg-> u (flagged) -add x-> y: with the flags, the weights hold u's 262,144 B
 * and the 1,000 B counted, and one operator node fewer. */
TP_TEST(onnxruntime_folded_nodes) {
    tp_runtime_estimate r[2];
    for (int folded = 0; folded < 2; folded++) {
        tp_error err;
        tp_graph *g = NULL;
        TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
        if (!g) return;
        tp_shape ws = tp_shape_of(2, (int64_t[]){256, 256});
        tp_node_id x, w, u, y;
        TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &ws, &x, &err), &err);
        TP_CHECK_OK(tp_graph_add_param(g, "w", TP_DTYPE_F32, &ws, &w, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG},
                                    (tp_node_id[]){w}, 1, "u", &u, &err),
                    &err);
        TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD},
                                    (tp_node_id[]){x, u}, 2, "y", &y, &err),
                    &err);
        TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
        if (folded) {
            TP_CHECK_OK(tp_graph_set_flags(g, u, TP_NODE_FOLDED | TP_NODE_FOLDED_COPY, &err), &err);
            TP_CHECK_OK(tp_graph_add_folded(g, 0, 1, 1000, &err), &err);
        }
        tp_estimate e;
        tp_runtime_options o;
        TP_CHECK_OK(ort_estimate_of(g, &e, &o, &r[folded], &err), &err);
        tp_graph_destroy(g);
    }
    TP_CHECK_EQ_U64(r[1].weight_bytes - r[0].weight_bytes, 262144 + 1000);
    TP_CHECK_EQ_U64(r[0].node_count - r[1].node_count, 1);
    TP_CHECK(r[1].graph_bytes < r[0].graph_bytes); /* a constant costs less than a kernel */
}

/* x[512,512] f32 (1 MiB) -neg-> a -neg-> b -neg-> c (output; Neg never runs in place). By the
 * BFC rules: a takes the first 1 MiB region whole; b extends by a 2 MiB region (split: 1 MiB
 * used); a is freed, c takes a's chunk (best fit). Run 1 touched 1 + 1 MiB. The pattern: a@0,
 * b@1M (c, the graph output, is not in it): 2 MiB. Run 2's block: region 2 (2 MiB free after
 * coalescing) fits exactly, touching it all; c comes from the arena beside it, region 1 again:
 * 3 MiB resident in 3 MiB of regions. */
TP_TEST(arena_emulation_by_hand) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(2, (int64_t[]){512, 512});
    tp_op neg = {.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG};
    tp_node_id x, a, b, c;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){x}, 1, "a", &a, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){a}, 1, "b", &b, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){b}, 1, "c", &c, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, c, &err), &err);
    tp_ort_arena_sim s;
    TP_CHECK_OK(tp_ort_arena_simulate(g, true, true, 16, &s, &err), &err);
    TP_CHECK_EQ_U64(s.first_run_bytes, 2u << 20);
    TP_CHECK_EQ_U64(s.mem_pattern_bytes, 2u << 20);
    TP_CHECK_EQ_U64(s.resident_bytes, 3u << 20);
    TP_CHECK_EQ_U64(s.reserved_bytes, 3u << 20);
    TP_CHECK_EQ_U64(s.regions, 2);
    /* the regions as the arena asked for them, and the pages the runs touched in each: a and c
     * in the first, b and then the pattern block in the second */
    TP_CHECK(s.regions_listed);
    TP_CHECK_EQ_U64(s.region_bytes[0], 1u << 20);
    TP_CHECK_EQ_U64(s.region_bytes[1], 2u << 20);
    TP_CHECK_EQ_U64(s.region_touched[0], 1u << 20);
    TP_CHECK_EQ_U64(s.region_touched[1], 2u << 20);
    /* no memory pattern: run 2 repeats run 1 in the same chunks */
    TP_CHECK_OK(tp_ort_arena_simulate(g, false, true, 16, &s, &err), &err);
    TP_CHECK_EQ_U64(s.resident_bytes, 2u << 20);
    TP_CHECK_EQ_U64(s.mem_pattern_bytes, 0);
    /* same-as-requested: regions of exactly 1 MiB each */
    TP_CHECK_OK(tp_ort_arena_simulate(g, false, false, 16, &s, &err), &err);
    TP_CHECK_EQ_U64(s.reserved_bytes, 2u << 20);
    tp_graph_destroy(g);
}

/* Run 2 holds the pattern block while the graph output comes from the arena beside it.
 * x[512,512] f32 -neg-> a (1 MiB) -neg-> b (1 MiB) -concat(b, b)-> c (2 MiB, output). Run 1:
 * a takes region 1 (1 MiB); b splits region 2 (2 MiB); a is freed; c fits neither free chunk
 * and extends by region 3 (4 MiB): 1 + 1 + 2 MiB touched. The pattern: a@0, b@1M: 2 MiB. Run 2:
 * the block takes region 2 whole (best fit), touching its second MiB; c takes region 3's
 * first 2 MiB again: 5 MiB resident, no new region. With c in the pattern (as before session
 * 31) the block would be 4 MiB in region 3: 6 MiB. */
TP_TEST(arena_run2_output_beside_pattern) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(2, (int64_t[]){512, 512});
    tp_op neg = {.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG};
    tp_op cat = {.kind = TP_OP_CONCAT};
    cat.attrs.axis.axis = 0;
    tp_node_id x, a, b, c;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){x}, 1, "a", &a, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){a}, 1, "b", &b, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &cat, (tp_node_id[]){b, b}, 2, "c", &c, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, c, &err), &err);
    tp_ort_arena_sim s;
    TP_CHECK_OK(tp_ort_arena_simulate(g, true, true, 16, &s, &err), &err);
    TP_CHECK_EQ_U64(s.first_run_bytes, 4u << 20);
    TP_CHECK_EQ_U64(s.mem_pattern_bytes, 2u << 20);
    TP_CHECK_EQ_U64(s.resident_bytes, 5u << 20);
    TP_CHECK_EQ_U64(s.regions, 3);
    TP_CHECK_EQ_U64(s.region_touched[1], 2u << 20);
    TP_CHECK_EQ_U64(s.region_touched[2], 2u << 20);
    tp_graph_destroy(g);
}

/* A ConvTranspose's transposed filter is packed into the arena when the session is created
 * (onnxruntime 1.30's log: the arena extends by the filter's bytes before run 1). w[64,4096,1,1]
 * f32 = 1 MiB fills the first 1 MiB region, untouched here (the weight terms count it), and run 1
 * starts in a 2 MiB region. */
TP_TEST(arena_convtranspose_pack_at_creation) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(4, (int64_t[]){1, 64, 8, 8});
    tp_shape ws = tp_shape_of(4, (int64_t[]){64, 4096, 1, 1});
    tp_op ct = conv1x1_op();
    ct.kind = TP_OP_CONV_TRANSPOSE;
    tp_node_id x, w, y;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w", TP_DTYPE_F32, &ws, &w, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &ct, (tp_node_id[]){x, w}, 2, "y", &y, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    tp_ort_arena_sim s;
    TP_CHECK_OK(tp_ort_arena_simulate(g, true, true, 16, &s, &err), &err);
    TP_CHECK(s.regions_listed && s.regions >= 2);
    TP_CHECK_EQ_U64(s.region_bytes[0], 1u << 20);
    TP_CHECK_EQ_U64(s.region_touched[0], 0);
    TP_CHECK_EQ_U64(s.region_bytes[1], 2u << 20);
    TP_CHECK(s.first_run_bytes >= 1u << 20); /* y, 4096*8*8*4 = 1 MiB, and the column buffer */
    tp_graph_destroy(g);
}

/* A 4-D Conv with 20 output channels runs in NCHWc blocks of 16: its output is padded to 32
 * channels, and the Sigmoid-free reader (Neg) needs a plain copy (ReorderOutput). */
TP_TEST(nchwc_padding_and_reorder) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(4, (int64_t[]){1, 3, 64, 64});
    tp_shape ws = tp_shape_of(4, (int64_t[]){20, 3, 1, 1});
    tp_op conv = conv1x1_op();
    tp_node_id x, w, y, n;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w", TP_DTYPE_F32, &ws, &w, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &conv, (tp_node_id[]){x, w}, 2, "y", &y, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG},
                                (tp_node_id[]){y}, 1, "n", &n, &err),
                &err);
    TP_CHECK_OK(tp_graph_mark_output(g, n, &err), &err);
    tp_ort_arena_sim blocked, plain;
    TP_CHECK_OK(tp_ort_arena_simulate(g, true, true, 16, &blocked, &err), &err);
    TP_CHECK_OK(tp_ort_arena_simulate(g, true, true, 0, &plain, &err), &err);
    /* n is the graph output: allocated for the caller, not traced into the pattern
     * (execution_frame.cc). plain: y, 20*64*64*4 = 320 KiB.
     * blocked: y padded (512 KiB) + its plain copy (320 KiB) live together: 832 KiB */
    TP_CHECK_EQ_U64(plain.mem_pattern_bytes, 320u << 10);
    TP_CHECK_EQ_U64(blocked.mem_pattern_bytes, 832u << 10);
    tp_graph_destroy(g);
}

/* onnxruntime's execution order (ReverseDFSFrom, highest input index explored first): in the
 * diamond c = a + b over x, b (the higher index) runs before a. */
TP_TEST(ort_order_explores_highest_index_first) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(2, (int64_t[]){4, 4});
    tp_node_id x, a, b, c;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU},
                                (tp_node_id[]){x}, 1, "a", &a, &err),
                &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG},
                                (tp_node_id[]){x}, 1, "b", &b, &err),
                &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD},
                                (tp_node_id[]){a, b}, 2, "c", &c, &err),
                &err);
    TP_CHECK_OK(tp_graph_mark_output(g, c, &err), &err);
    uint64_t key[8];
    int64_t pos[8], steps = 0;
    for (uint32_t i = 0; i < 8; i++)
        key[i] = i;
    TP_CHECK(tp_graph_node_count(g) <= 8);
    TP_CHECK_OK(tp_ort_exec_order(g, key, pos, &steps, &err), &err);
    TP_CHECK_EQ_I64(steps, 3);
    TP_CHECK_EQ_I64(pos[x], -1);
    TP_CHECK_EQ_I64(pos[b], 0);
    TP_CHECK_EQ_I64(pos[a], 1);
    TP_CHECK_EQ_I64(pos[c], 2);
    tp_graph_destroy(g);
}

/* Conv + Relu, the Conv read by nothing else: onnxruntime fuses the activation into the Conv, so
 * only the Relu's tensor exists: the Conv's has no buffer; in NCHWc the fused Conv's blocked
 * tensor and the graph output's plain copy (ReorderOutput) are the two buffers. */
TP_TEST(conv_activation_fusion_removes_a_tensor) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(4, (int64_t[]){1, 16, 32, 32});
    tp_shape ws = tp_shape_of(4, (int64_t[]){16, 16, 1, 1});
    tp_op conv = conv1x1_op();
    tp_node_id x, w, y, r;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w", TP_DTYPE_F32, &ws, &w, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &conv, (tp_node_id[]){x, w}, 2, "y", &y, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU},
                                (tp_node_id[]){y}, 1, "r", &r, &err),
                &err);
    TP_CHECK_OK(tp_graph_mark_output(g, r, &err), &err);
    int of_y = -1, of_r = -1, own = -1;
    trace_counts(g, 0, y, &of_y, &own);
    TP_CHECK_EQ_I64(of_y, 0);
    TP_CHECK_EQ_I64(own, 1);
    trace_counts(g, 16, r, &of_r, &own);
    TP_CHECK_EQ_I64(of_r, 2);
    TP_CHECK_EQ_I64(own, 2);
    tp_graph_destroy(g);
}

/* A fused kernel reads its inputs at its own step: in a = Neg(x); r = Relu(Conv(a)); o = Neg(r),
 * the Conv is absorbed into the FusedConv that writes r, so a (64 KiB) is still live when r
 * (64 KiB) is allocated: a 128 KiB pattern (it was 64 KiB when a died at the absorbed Conv's
 * step). */
TP_TEST(fused_kernel_reads_at_its_step) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(4, (int64_t[]){1, 16, 32, 32});
    tp_shape ws = tp_shape_of(4, (int64_t[]){16, 16, 1, 1});
    tp_op conv = conv1x1_op();
    tp_node_id x, w, a, y, r, o;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w", TP_DTYPE_F32, &ws, &w, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG},
                                (tp_node_id[]){x}, 1, "a", &a, &err),
                &err);
    TP_CHECK_OK(tp_graph_add_op(g, &conv, (tp_node_id[]){a, w}, 2, "y", &y, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU},
                                (tp_node_id[]){y}, 1, "r", &r, &err),
                &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG},
                                (tp_node_id[]){r}, 1, "o", &o, &err),
                &err);
    TP_CHECK_OK(tp_graph_mark_output(g, o, &err), &err);
    tp_ort_arena_sim s;
    TP_CHECK_OK(tp_ort_arena_simulate(g, true, true, 0, &s, &err), &err);
    TP_CHECK_EQ_U64(s.mem_pattern_bytes, 128u << 10);
    tp_graph_destroy(g);
}

/* A 2 MiB tensor takes a 2 MiB region (1 MiB doubled until it fits). And the pre-packed weights
 * are not in the arena (Session 15: onnxruntime 1.30's log shows no arena extension at session
 * creation): a 7.5 MiB MatMul weight leaves the profile's arena as the activations alone make it
 * (sessions 10-14 served it first, which took an 8 MiB region and pushed the tensor into
 * another 8 MiB one). */
TP_TEST(prepacked_weights_are_not_in_the_arena) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(2, (int64_t[]){512, 1024});  /* 2 MiB of floats */
    tp_shape ws = tp_shape_of(2, (int64_t[]){1024, 1920}); /* 7.5 MiB */
    tp_node_id x, w, a;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w", TP_DTYPE_F32, &ws, &w, &err), &err);
    TP_CHECK_OK(
        tp_graph_add_op(g, &(tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x, w}, 2, "a", &a, &err),
        &err);
    TP_CHECK_OK(tp_graph_mark_output(g, a, &err), &err);
    tp_ort_arena_sim s;
    TP_CHECK_OK(tp_ort_arena_simulate(g, false, true, 16, &s, &err), &err);
    TP_CHECK_EQ_U64(s.regions, 1);
    tp_estimate e;
    tp_runtime_options o;
    tp_runtime_estimate r;
    TP_CHECK_OK(ort_estimate_of(g, &e, &o, &r, &err), &err);
    TP_CHECK_OK(tp_ort_arena_simulate(g, true, true, 16, &s, &err), &err);
    TP_CHECK_EQ_U64(r.arena_reserved_bytes, s.reserved_bytes);
    TP_CHECK_EQ_U64(r.arena_emulated_bytes, s.resident_bytes);
    TP_CHECK(r.arena_reserved_bytes < 8u << 20);
    tp_graph_destroy(g);
}

/* Where asks the arena for its two selections while it runs (where_op.cc): cond ? X : 0 in the
 * output's shape and cond ? 0 : Y in the broadcast shape of cond and Y; both are scratch (not
 * in the memory pattern), alive at the Where's step only. */
/* A float16 Concat stays half in onnxruntime's CPU provider while its float16 neighbours compute
 * in float32 (InsertCastTransformer; isnet_medium's optimized graph): x (f16) -neg-> a -concat(a,
 * a)-> c -neg-> d. a is held as float32 (1 MiB) until a Cast makes its half copy (512 KiB) right
 * after it; the copy lives to the Concat; c is half (1 MiB) until a Cast makes its float32 copy
 * (2 MiB) right after it, which d reads. Steps: a 0, c 2, d 4 (odd: the Casts). */
TP_TEST(ort_half_concat_between_casts) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(4, (int64_t[]){1, 64, 64, 64});
    tp_op neg = {.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG};
    tp_op cat = {.kind = TP_OP_CONCAT};
    cat.attrs.axis.axis = 1;
    tp_node_id x, a, c, d;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F16, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){x}, 1, "a", &a, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &cat, (tp_node_id[]){a, a}, 2, "c", &c, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){c}, 1, "d", &d, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, d, &err), &err);
    size_t nb = 0;
    tp_ort_buf *bufs = ort_trace(g, 0, &nb);
    struct {
        tp_node_id id;
        uint64_t bytes;
        int64_t birth, death;
    } want[] = {{a, 1u << 20, 0, 1},
                {a, 512u << 10, 1, 2},
                {c, 1u << 20, 2, 3},
                {c, 2u << 20, 3, 4},
                {d, 2u << 20, 4, -1}};
    TP_CHECK_EQ_U64(nb, 5);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        bool found = false;
        for (size_t i = 0; i < nb; i++)
            if (bufs[i].id == want[k].id && bufs[i].bytes == want[k].bytes &&
                bufs[i].birth == want[k].birth &&
                (want[k].death < 0 || bufs[i].death == want[k].death))
                found = true;
        TP_CHECK(found);
    }
    free(bufs);
    tp_graph_destroy(g);
}

/* onnxruntime removes a Cast that undoes the Cast before it (RemoveDuplicateCastTransformer):
 * x (f16) -neg-> a, computed in float32 with a Cast to half after it, then the model's Cast of a
 * to float32 (b), read by n: b is removed and n reads a's float32 tensor, alive at n's step. A
 * model's pair int32 -> float32 -> int32 loses its second Cast (e2: its reader m reads i); a pair
 * float32 -> int32 -> float32 narrows to another type group and back and stays (f2); a Cast that
 * is a graph output stays (o). */
TP_TEST(ort_cast_pairs_removed) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(4, (int64_t[]){1, 16, 32, 32});
    tp_op neg = {.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG};
    tp_op to32 = {.kind = TP_OP_CAST}, toi = {.kind = TP_OP_CAST}, to16 = {.kind = TP_OP_CAST};
    to32.attrs.cast.to = TP_DTYPE_F32;
    toi.attrs.cast.to = TP_DTYPE_I32;
    to16.attrs.cast.to = TP_DTYPE_F16;
    tp_node_id x, a, b, n, i, e1, e2, m, f1, f2, k, o;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F16, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){x}, 1, "a", &a, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &to32, (tp_node_id[]){a}, 1, "b", &b, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){b}, 1, "n", &n, &err), &err);
    TP_CHECK_OK(tp_graph_add_input(g, "i", TP_DTYPE_I32, &xs, &i, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &to32, (tp_node_id[]){i}, 1, "e1", &e1, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &toi, (tp_node_id[]){e1}, 1, "e2", &e2, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){e2}, 1, "m", &m, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &toi, (tp_node_id[]){n}, 1, "f1", &f1, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &to32, (tp_node_id[]){f1}, 1, "f2", &f2, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){f2}, 1, "k", &k, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &to16, (tp_node_id[]){k}, 1, "o", &o, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, m, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, o, &err), &err);
    tp_ort_xform x4;
    TP_CHECK_OK(tp_ort_xform_compute(g, 0, &x4, &err), &err);
    TP_CHECK_EQ_I64(x4.same_as[b], a);
    TP_CHECK_EQ_I64(x4.same_as[e2], i);
    TP_CHECK_EQ_I64(x4.same_as[e1], -1);
    TP_CHECK_EQ_I64(x4.same_as[f2], -1);
    TP_CHECK_EQ_I64(x4.same_as[o], -1);
    tp_ort_xform_free(g, &x4);
    size_t nb = 0;
    tp_ort_buf *bufs = ort_trace(g, 0, &nb);
    int64_t a_death = -1, n_birth = -2;
    for (size_t q = 0; q < nb; q++) {
        TP_CHECK(bufs[q].id != b && bufs[q].id != e2); /* removed: no tensor */
        if (bufs[q].id == a) {
            TP_CHECK_EQ_U64(bufs[q].bytes, 16u * 32 * 32 * 4); /* float32 */
            a_death = bufs[q].death;
        }
        if (bufs[q].id == n) n_birth = bufs[q].birth;
    }
    TP_CHECK(n_birth > 0 && a_death >= n_birth); /* its planner may reuse it later */
    free(bufs);
    tp_graph_destroy(g);
}

/* A half Concat read by a converted Conv: the Conv reads a ReorderInput copy of the Concat's
 * float32 copy, a blocked float32 tensor (isnet_medium's optimized graph: Concat, Cast,
 * ReorderInput). c = concat(h, h) of a float16 Conv's output is 64 KiB in half precision; its
 * float32 copy and the blocked copy are 128 KiB each (32 channels, whole blocks of 8). */
TP_TEST(ort_half_concat_reorder_input_is_float32) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(4, (int64_t[]){1, 16, 32, 32});
    tp_shape w1s = tp_shape_of(4, (int64_t[]){16, 16, 1, 1});
    tp_shape w2s = tp_shape_of(4, (int64_t[]){16, 32, 1, 1});
    tp_op conv = conv1x1_op();
    tp_op cat = {.kind = TP_OP_CONCAT};
    cat.attrs.axis.axis = 1;
    tp_node_id x, w1, w2, h, c, y;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F16, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w1", TP_DTYPE_F16, &w1s, &w1, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w2", TP_DTYPE_F16, &w2s, &w2, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &conv, (tp_node_id[]){x, w1}, 2, "h", &h, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &cat, (tp_node_id[]){h, h}, 2, "c", &c, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &conv, (tp_node_id[]){c, w2}, 2, "y", &y, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    size_t nb = 0;
    tp_ort_buf *bufs = ort_trace(g, 8, &nb);
    int half = 0, wide = 0;
    for (size_t q = 0; q < nb; q++) {
        if (bufs[q].id != c) continue;
        if (bufs[q].bytes == 64u << 10) half++;
        if (bufs[q].bytes == 128u << 10) wide++;
    }
    TP_CHECK_EQ_I64(half, 1);
    TP_CHECK_EQ_I64(wide, 2);
    free(bufs);
    tp_graph_destroy(g);
}

TP_TEST(ort_where_selections_are_scratch) {
    /* the mask as [1, 1, 64, 64] and as a plain [64, 64] broadcast onto the scores */
    const tp_shape conds[] = {tp_shape_of(4, (int64_t[]){1, 1, 64, 64}),
                              tp_shape_of(2, (int64_t[]){64, 64})};
    for (size_t k = 0; k < 2; k++) {
        tp_error err;
        tp_graph *g = NULL;
        TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
        if (!g) return;
        tp_shape xs = tp_shape_of(4, (int64_t[]){1, 12, 64, 64});
        tp_shape ys = tp_shape_of(0, NULL);
        tp_node_id c, x, y, w;
        TP_CHECK_OK(tp_graph_add_input(g, "c", TP_DTYPE_BOOL, &conds[k], &c, &err), &err);
        TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
        TP_CHECK_OK(tp_graph_add_input(g, "y", TP_DTYPE_F32, &ys, &y, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_WHERE}, (tp_node_id[]){c, x, y}, 3,
                                    "w", &w, &err),
                    &err);
        TP_CHECK_OK(tp_graph_mark_output(g, w, &err), &err);
        size_t nb = 0;
        tp_ort_buf *bufs = ort_trace(g, 16, &nb);
        uint64_t scratch[2] = {0, 0};
        int n_scratch = 0;
        for (size_t i = 0; i < nb; i++)
            if (bufs[i].id == w && bufs[i].scratch && n_scratch < 2) {
                TP_CHECK_EQ_U64((uint64_t)bufs[i].birth, (uint64_t)bufs[i].death);
                scratch[n_scratch++] = bufs[i].bytes;
            }
        TP_CHECK_EQ_U64(n_scratch, 2);
        TP_CHECK_EQ_U64(scratch[0], 12 * 64 * 64 * 4); /* X's selection: the output's bytes */
        TP_CHECK_EQ_U64(scratch[1], 64 * 64 * 4);      /* Y's: cond's shape, Y's type */
        free(bufs);
        tp_ort_arena_sim s;
        TP_CHECK_OK(tp_ort_arena_simulate(g, false, true, 16, &s, &err), &err);
        TP_CHECK(s.first_run_bytes >= (uint64_t)(12 + 12 + 1) * 64 * 64 * 4);
        tp_graph_destroy(g);
    }
}

/* ConvInteger's column buffer (conv_integer.cc): (C / group) x kernel area x output area bytes,
 * asked of the arena while the kernel runs; none for a 1x1 kernel with stride 1 and no padding
 * (it reads its input in place). x u8 [1, 8, 16, 16], W u8 [4, 8, k, k], y i32 [1, 4, 16, 16]
 * (the importer's ConvInteger: an int32 Conv of 8-bit inputs; 3x3 with padding 1, and 1x1). */
TP_TEST(ort_conv_integer_columns_are_scratch) {
    for (int k = 1; k <= 3; k += 2) {
        tp_error err;
        tp_graph *g = NULL;
        TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
        if (!g) return;
        tp_shape xs = tp_shape_of(4, (int64_t[]){1, 8, 16, 16});
        tp_shape ws = tp_shape_of(4, (int64_t[]){4, 8, k, k});
        tp_shape ys = tp_shape_of(4, (int64_t[]){1, 4, 16, 16});
        tp_node_id x, w, y;
        TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_U8, &xs, &x, &err), &err);
        TP_CHECK_OK(tp_graph_add_param(g, "w", TP_DTYPE_U8, &ws, &w, &err), &err);
        tp_op ci = {.kind = TP_OP_CONV};
        ci.attrs.conv.spatial = 2;
        ci.attrs.conv.groups = 1;
        for (int i = 0; i < 2; i++) {
            ci.attrs.conv.kernel[i] = k;
            ci.attrs.conv.stride[i] = ci.attrs.conv.dilation[i] = 1;
            ci.attrs.conv.pad_begin[i] = ci.attrs.conv.pad_end[i] = k / 2;
        }
        TP_CHECK_OK(tp_graph_add_op_shaped(g, &ci, (tp_node_id[]){x, w}, 2, &ys, TP_DTYPE_I32, "y",
                                           &y, &err),
                    &err);
        TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
        size_t nb = 0;
        tp_ort_buf *bufs = ort_trace(g, 16, &nb);
        uint64_t cols = 0;
        for (size_t i = 0; i < nb; i++)
            if (bufs[i].id == y && bufs[i].scratch) cols += bufs[i].bytes;
        TP_CHECK_EQ_U64(cols, k == 1 ? 0u : 8u * 9 * 16 * 16);
        free(bufs);
        /* an int32 Conv of float inputs is refused: only 8-bit operands accumulate in int32 */
        tp_node_id bad, xf, wf;
        TP_CHECK_OK(tp_graph_add_input(g, "xf", TP_DTYPE_F32, &xs, &xf, &err), &err);
        TP_CHECK_OK(tp_graph_add_param(g, "wf", TP_DTYPE_F32, &ws, &wf, &err), &err);
        TP_CHECK_STATUS(tp_graph_add_op_shaped(g, &ci, (tp_node_id[]){xf, wf}, 2, &ys, TP_DTYPE_I32,
                                               "bad", &bad, &err),
                        TP_ERR_SHAPE);
        tp_graph_destroy(g);
    }
}

/* The planner's in-place reuse: in x -neg-> a -relu-> b -neg-> c, the Relu (MayInplace) is a's
 * only reader and has a's static shape, so b is written into a's buffer: a, b, c are traced,
 * b reuses a, and only a and c reach the arena. */
TP_TEST(ort_planner_reuses_in_place) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(2, (int64_t[]){256, 256});
    tp_node_id x, a, b, c;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG},
                                (tp_node_id[]){x}, 1, "a", &a, &err),
                &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU},
                                (tp_node_id[]){a}, 1, "b", &b, &err),
                &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG},
                                (tp_node_id[]){b}, 1, "c", &c, &err),
                &err);
    TP_CHECK_OK(tp_graph_mark_output(g, c, &err), &err);
    size_t nb = 0;
    tp_ort_buf *bufs = ort_trace(g, 16, &nb);
    TP_CHECK_EQ_U64(nb, 3);
    int own = 0;
    for (size_t i = 0; i < nb; i++) {
        if (bufs[i].reuses < 0) own++;
        if (bufs[i].id == b) TP_CHECK(bufs[i].reuses >= 0 && bufs[bufs[i].reuses].id == a);
    }
    TP_CHECK_EQ_I64(own, 2);
    free(bufs);
    tp_graph_destroy(g);
}

/* The demo decoder ties its output projection to the token embedding: the MatMul reads the
 * whole table, so it is a MatMul weight (read whole), not a Gather table of which onnxruntime
 * touches a few rows; the profile then stays above the best plan (it was 144 MiB under a
 * 229 MiB plan when the class stayed on the Gather's side). */
TP_TEST(tied_embedding_is_read_whole) {
    tp_error err;
    tp_demo_options d;
    tp_demo_options_default(&d);
    d.layers = 1;
    d.vocab = 4096;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_demo_transformer(&d, NULL, &g, &err), &err);
    if (!g) return;
    tp_estimate e;
    tp_runtime_options o;
    tp_runtime_estimate r;
    TP_CHECK_OK(ort_estimate_of(g, &e, &o, &r, &err), &err);
    uint64_t table = (uint64_t)d.vocab * (uint64_t)d.d_model * 4;
    TP_CHECK(r.gemm_weight_bytes >= table);
    TP_CHECK(r.other_weight_bytes < table);
    TP_CHECK(r.peak_bytes >= e.peak_bytes);
    tp_graph_destroy(g);
}

/* pad_fusion.cc: a zero Pad of the spatial axes, with constant pads, read only by an average
 * pooling, becomes the pooling's padding: no tensor of its own, and the pooling stays blocked
 * after the blocked Conv (no ReorderOutput between them). A Pad filling with a non-zero value
 * (or with pads computed at run time) is not fused. */
TP_TEST(ort_pad_fused_into_pooling) {
    for (int fill = 0; fill < 2; fill++) {
        tp_error err;
        tp_graph *g = NULL;
        TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
        if (!g) return;
        tp_shape xs = tp_shape_of(4, (int64_t[]){1, 16, 32, 32});
        tp_shape ws = tp_shape_of(4, (int64_t[]){16, 16, 1, 1});
        tp_op conv = conv1x1_op();
        tp_op pad = {.kind = TP_OP_PAD};
        pad.attrs.pad.begin[2] = pad.attrs.pad.begin[3] = 1;
        pad.attrs.pad.end[2] = pad.attrs.pad.end[3] = 1;
        pad.attrs.pad.zero_fill = fill == 0;
        pad.attrs.pad.pads_const = true;
        tp_op pool = {.kind = TP_OP_POOL, .sub = TP_POOL_AVG};
        pool.attrs.conv.spatial = 2;
        for (int i = 0; i < 2; i++) {
            pool.attrs.conv.kernel[i] = 3;
            pool.attrs.conv.stride[i] = pool.attrs.conv.dilation[i] = 1;
        }
        tp_node_id x, w, y, p, q;
        TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
        TP_CHECK_OK(tp_graph_add_param(g, "w", TP_DTYPE_F32, &ws, &w, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &conv, (tp_node_id[]){x, w}, 2, "y", &y, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &pad, (tp_node_id[]){y}, 1, "p", &p, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &pool, (tp_node_id[]){p}, 1, "q", &q, &err), &err);
        TP_CHECK_OK(tp_graph_mark_output(g, q, &err), &err);
        int of_pad, own, of_y, own_y;
        trace_counts(g, 16, p, &of_pad, &own);
        trace_counts(g, 16, y, &of_y, &own_y);
        /* fused: y (blocked), q (blocked) and q's plain copy for the caller; not fused: y
         * needs a plain copy for the Pad, which has its own tensor and a ReorderInput copy of
         * it (TransformPool converts a pooling of 16 channels whatever its input's layout) */
        TP_CHECK_EQ_I64(of_pad, fill == 0 ? 0 : 2);
        TP_CHECK_EQ_I64(of_y, fill == 0 ? 1 : 2);
        tp_graph_destroy(g);
    }
}

/* Shapes onnxruntime does not know: a Pad whose pads are computed at run time (swin_t's window
 * padding) has unknown output dims in ONNX's shape inference, and so has every reader after it, so
 * its planner cannot reuse a freed buffer of "the same shape" there (the same holds for a Conv or
 * pooling over symbolic spatial dims). y1 = Pad(x); y2 = Neg(y1); y3 = Neg(y2); y4 = Neg(y3)
 * (output): with constant pads y3 reuses y1 (3 own buffers), with computed pads nothing is
 * reused (4), nor with constant pads on a node whose dims the importer found computed at run time
 * (TP_NODE_DIMS_AT_RUNTIME: a Reshape or Slice whose shape or bounds come from a Shape over a
 * symbolic dim, which onnxruntime does not fold). */
TP_TEST(ort_unknown_shapes_are_not_reused) {
    for (int mode = 0; mode < 3; mode++) {
        int computed = mode > 0;
        tp_error err;
        tp_graph *g = NULL;
        TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
        if (!g) return;
        tp_shape xs = tp_shape_of(4, (int64_t[]){1, 4, 32, 32});
        tp_op pad = {.kind = TP_OP_PAD};
        pad.attrs.pad.begin[2] = pad.attrs.pad.end[2] = 1;
        pad.attrs.pad.zero_fill = true;
        pad.attrs.pad.pads_const = mode != 1;
        tp_op neg = {.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG};
        tp_node_id x, y1, y2, y3, y4;
        TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &pad, (tp_node_id[]){x}, 1, "y1", &y1, &err), &err);
        if (mode == 2) TP_CHECK_OK(tp_graph_set_flags(g, y1, TP_NODE_DIMS_AT_RUNTIME, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){y1}, 1, "y2", &y2, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){y2}, 1, "y3", &y3, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){y3}, 1, "y4", &y4, &err), &err);
        TP_CHECK_OK(tp_graph_mark_output(g, y4, &err), &err);
        int of_y1, own;
        trace_counts(g, 0, y1, &of_y1, &own);
        TP_CHECK_EQ_I64(of_y1, 1);
        TP_CHECK_EQ_I64(own, computed ? 4 : 3);
        tp_graph_destroy(g);
    }
}

/* A blocked Conv reading a plain tensor reads its ReorderInput copy: p = Neg(x) [1,16,32,32] (64
 * KiB) is freed after the copy (64 KiB), not after the Conv, so the Conv's blocked output (64
 * KiB) and then its plain copy for the caller (64 KiB) never meet p: a 128 KiB pattern (192 KiB
 * while p lived until the Conv). */
TP_TEST(ort_reorder_input_frees_its_source) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(4, (int64_t[]){1, 16, 32, 32});
    tp_shape ws = tp_shape_of(4, (int64_t[]){16, 16, 1, 1});
    tp_op conv = conv1x1_op();
    tp_node_id x, w, p, c;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w", TP_DTYPE_F32, &ws, &w, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG},
                                (tp_node_id[]){x}, 1, "p", &p, &err),
                &err);
    TP_CHECK_OK(tp_graph_add_op(g, &conv, (tp_node_id[]){p, w}, 2, "c", &c, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, c, &err), &err);
    tp_ort_arena_sim s;
    TP_CHECK_OK(tp_ort_arena_simulate(g, true, true, 16, &s, &err), &err);
    TP_CHECK_EQ_U64(s.mem_pattern_bytes, 128u << 10);
    tp_graph_destroy(g);
}

/* mem_pattern_planner.h: the free tail between the highest live block and the extent reached so
 * far competes with the inner gaps. Units of 64 KiB: P1 (4) at 0, P2 (1) at 4, P3 (2) at 5
 * (extent 7); P1 and P3 freed; Q (2) fits the tail exactly (waste 0, the gap at 0 wastes 2): at
 * 5; R (4) then fits the gap at 0: the block stays 7 units (9 if Q took the gap at 0). */
TP_TEST(ort_pattern_tail_gap) {
    const uint64_t u = 64u << 10;
    tp_ort_buf b[5];
    const uint64_t size[5] = {4, 1, 2, 2, 4};
    const int64_t birth[5] = {0, 1, 2, 4, 5}, death[5] = {3, 10, 3, 10, 10};
    for (int i = 0; i < 5; i++)
        b[i] = (tp_ort_buf){i, size[i] * u, birth[i], death[i], -1, 0, 0, -1, -1, false, false};
    uint64_t block = 0;
    tp_error err;
    TP_CHECK_OK(tp_ort_pattern_block(NULL, b, 5, &block, &err), &err);
    TP_CHECK_EQ_U64(block, 7 * u);
    TP_CHECK_EQ_U64(b[3].pat_off, 5 * u);
    TP_CHECK_EQ_U64(b[4].pat_off, 0);
}

/* nchwc_transformer.cc: the blocked copy of a plain input (ReorderInput) is made once and shared
 * by every converted Conv reading that input, so the plain tensor dies after the copy; a Conv
 * with groups 1 is converted whatever its output channels (18 here: padded to 32). */
/* GeluFusion runs over the whole graph before MatMulScaleFusion: in h = MatMul(x, w1) + b;
 * y = Mul(Mul(h, Erf(h / c) + 1), 0.5); o = MatMul(y, w2), the final Mul by 0.5 is the BiasGelu's
 * (it writes y, 256 KiB, while h, 256 KiB, is live), not a scaling o's MatMul folds in (which left
 * y unallocated: minilm_l6's run-1 peak 2.25 MiB emulated against 3.37 in onnxruntime's profile,
 * where BiasGelu writes its own output). */
TP_TEST(ort_gelu_is_fused_before_a_matmul_scale) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(2, (int64_t[]){64, 64}), ws = tp_shape_of(2, (int64_t[]){64, 1024});
    tp_shape bs = tp_shape_of(1, (int64_t[]){1024}), one = tp_shape_of(1, (int64_t[]){1});
    tp_shape w2s = tp_shape_of(2, (int64_t[]){1024, 64});
    tp_node_id x, w1, b, c, k1, half, w2, h0, h, dv, ef, ad, m1, y, o;
    tp_op mm = {.kind = TP_OP_MATMUL};
    tp_op add = {.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD};
    tp_op div = {.kind = TP_OP_BINARY, .sub = TP_BINARY_DIV};
    tp_op mul = {.kind = TP_OP_BINARY, .sub = TP_BINARY_MUL};
    tp_op erf = {.kind = TP_OP_UNARY, .sub = TP_UNARY_ERF};
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w1", TP_DTYPE_F32, &ws, &w1, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "b", TP_DTYPE_F32, &bs, &b, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "c", TP_DTYPE_F32, &one, &c, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "one", TP_DTYPE_F32, &one, &k1, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "half", TP_DTYPE_F32, &one, &half, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w2", TP_DTYPE_F32, &w2s, &w2, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &mm, (tp_node_id[]){x, w1}, 2, "h0", &h0, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &add, (tp_node_id[]){h0, b}, 2, "h", &h, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &div, (tp_node_id[]){h, c}, 2, "dv", &dv, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &erf, (tp_node_id[]){dv}, 1, "ef", &ef, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &add, (tp_node_id[]){ef, k1}, 2, "ad", &ad, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &mul, (tp_node_id[]){h, ad}, 2, "m1", &m1, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &mul, (tp_node_id[]){m1, half}, 2, "y", &y, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &mm, (tp_node_id[]){y, w2}, 2, "o", &o, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, o, &err), &err);
    int of_y, own;
    trace_counts(g, 0, y, &of_y, &own);
    TP_CHECK_EQ_I64(of_y, 1); /* the Gelu's output: its own buffer */
    tp_ort_arena_sim s;
    TP_CHECK_OK(tp_ort_arena_simulate(g, true, true, 0, &s, &err), &err);
    TP_CHECK_EQ_U64(s.mem_pattern_bytes, 512u << 10); /* h and y together */
    tp_graph_destroy(g);
}

/* SkipLayerNormFusion: a residual Add read only by the LayerNormalization after it becomes one
 * SkipLayerNormalization; the sum is never allocated. a = Neg(x), b = Neg(a), s = a + b, y =
 * LayerNorm(s), [1, 64, 256] floats (64 KiB each): s has no buffer, and the pattern holds a, b
 * and y (192 KiB; 256 KiB while s had one). Read twice, the Add stays and keeps its buffer. */
TP_TEST(ort_skip_norm_drops_the_residual_sum) {
    for (int twice = 0; twice < 2; twice++) {
        tp_error err;
        tp_graph *g = NULL;
        TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
        if (!g) return;
        tp_shape xs = tp_shape_of(3, (int64_t[]){1, 64, 256}),
                 ps = tp_shape_of(1, (int64_t[]){256});
        tp_op neg = {.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG};
        tp_op add = {.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD};
        tp_op ln = {.kind = TP_OP_NORM, .sub = TP_NORM_LAYER};
        ln.attrs.norm.axis = -1;
        ln.attrs.norm.eps = 1e-5;
        tp_node_id x, gm, bt, a, b, sum, y, o;
        TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
        TP_CHECK_OK(tp_graph_add_param(g, "gamma", TP_DTYPE_F32, &ps, &gm, &err), &err);
        TP_CHECK_OK(tp_graph_add_param(g, "beta", TP_DTYPE_F32, &ps, &bt, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){x}, 1, "a", &a, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){a}, 1, "b", &b, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &add, (tp_node_id[]){a, b}, 2, "s", &sum, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &ln, (tp_node_id[]){sum, gm, bt}, 3, "y", &y, &err), &err);
        TP_CHECK_OK(tp_graph_add_op(g, &neg, (tp_node_id[]){twice ? sum : y}, 1, "o", &o, &err),
                    &err);
        TP_CHECK_OK(tp_graph_mark_output(g, o, &err), &err);
        if (twice) TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
        int of_sum, own;
        trace_counts(g, 0, sum, &of_sum, &own);
        TP_CHECK_EQ_I64(of_sum, twice ? 1 : 0);
        tp_graph_destroy(g);
    }
}

TP_TEST(ort_reorder_input_shared) {
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    if (!g) return;
    tp_shape xs = tp_shape_of(4, (int64_t[]){1, 16, 32, 32});
    tp_shape w1s = tp_shape_of(4, (int64_t[]){32, 16, 1, 1}); /* no shape p's buffer could take */
    tp_shape w2s = tp_shape_of(4, (int64_t[]){18, 16, 1, 1});
    tp_op conv = conv1x1_op();
    tp_node_id x, w1, w2, p, c1, n1, c2;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w1", TP_DTYPE_F32, &w1s, &w1, &err), &err);
    TP_CHECK_OK(tp_graph_add_param(g, "w2", TP_DTYPE_F32, &w2s, &w2, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG},
                                (tp_node_id[]){x}, 1, "p", &p, &err),
                &err);
    TP_CHECK_OK(tp_graph_add_op(g, &conv, (tp_node_id[]){p, w1}, 2, "c1", &c1, &err), &err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG},
                                (tp_node_id[]){c1}, 1, "n1", &n1, &err),
                &err);
    TP_CHECK_OK(tp_graph_add_op(g, &conv, (tp_node_id[]){p, w2}, 2, "c2", &c2, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, n1, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, c2, &err), &err);
    size_t nb = 0;
    tp_ort_buf *b = ort_trace(g, 16, &nb);
    int n_p = 0;
    int64_t plain_death = -1, copy_birth = -1, copy_death = -1, c1_birth = -1, c2_birth = -1;
    uint64_t c2_bytes = 0;
    for (size_t i = 0; i < nb; i++) {
        if (b[i].id == p) {
            n_p++;
            if (b[i].birth % 2) { /* the copy is written at an odd (reorder) step */
                copy_birth = b[i].birth;
                copy_death = b[i].death;
            } else {
                plain_death = b[i].death;
            }
        }
        if (b[i].id == c1 && b[i].birth % 2 == 0) c1_birth = b[i].birth;
        if (b[i].id == c2 && b[i].birth % 2 == 0) {
            c2_birth = b[i].birth;
            c2_bytes = b[i].bytes;
        }
    }
    TP_CHECK_EQ_I64(n_p, 2); /* the plain tensor and one shared copy */
    TP_CHECK_EQ_I64(plain_death, copy_birth);
    TP_CHECK_EQ_I64(copy_death, c1_birth > c2_birth ? c1_birth : c2_birth);
    TP_CHECK_EQ_U64(c2_bytes, 32u * 32u * 32u * 4u); /* 18 channels padded to 32 */
    free(b);
    tp_graph_destroy(g);
}

int main(void) {
    TP_RUN(names_parse_and_print);
    TP_RUN(plan_profile_is_the_estimate);
    TP_RUN(onnxruntime_terms);
    TP_RUN(onnxruntime_prepack_transient);
    TP_RUN(onnxruntime_fused_gemm_packs_last);
    TP_RUN(onnxruntime_prepack_keeps_a_weight_read_unpacked);
    TP_RUN(onnxruntime_lstm_weights_are_prepacked);
    TP_RUN(onnxruntime_body_terms);
    TP_RUN(onnxruntime_names_float16_compute);
    TP_RUN(onnxruntime_folded_nodes);
    TP_RUN(arena_emulation_by_hand);
    TP_RUN(arena_run2_output_beside_pattern);
    TP_RUN(arena_convtranspose_pack_at_creation);
    TP_RUN(ort_order_explores_highest_index_first);
    TP_RUN(conv_activation_fusion_removes_a_tensor);
    TP_RUN(ort_planner_reuses_in_place);
    TP_RUN(nchwc_padding_and_reorder);
    TP_RUN(tied_embedding_is_read_whole);
    TP_RUN(fused_kernel_reads_at_its_step);
    TP_RUN(prepacked_weights_are_not_in_the_arena);
    TP_RUN(ort_pad_fused_into_pooling);
    TP_RUN(ort_unknown_shapes_are_not_reused);
    TP_RUN(ort_reorder_input_frees_its_source);
    TP_RUN(ort_pattern_tail_gap);
    TP_RUN(ort_reorder_input_shared);
    TP_RUN(ort_where_selections_are_scratch);
    TP_RUN(ort_half_concat_between_casts);
    TP_RUN(ort_cast_pairs_removed);
    TP_RUN(onnxruntime_half_gemm_weight_packs_as_float32);
    TP_RUN(ort_half_concat_reorder_input_is_float32);
    TP_RUN(ort_conv_integer_columns_are_scratch);
    TP_RUN(ort_gelu_is_fused_before_a_matmul_scale);
    TP_RUN(ort_skip_norm_drops_the_residual_sum);
    TP_RUN(arena_regions_fill_the_creation_holes);
    return tp_test_finish();
}
