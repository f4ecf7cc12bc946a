/* Tests of the runtime profiles (include/tensorplan/runtime.h): names, the plan profile, and
 * the onnxruntime profile's terms on a graph with a Conv, a MatMul and a Gather table. */
#include "harness.h"
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
    TP_CHECK_EQ_U64(r.peak_bytes, r.session_fixed_bytes + r.calibration_margin_bytes +
                                      r.weight_bytes + r.prepacked_bytes + r.arena_bytes +
                                      r.input_bytes);
    TP_CHECK(r.peak_bytes > e.peak_bytes);
    TP_CHECK(r.activation_plan_bytes >= e.activation_bytes); /* no in-place reuse: not less */
    TP_CHECK(r.arena_bytes > 0);
    TP_CHECK(r.arena_reserved_bytes >= r.arena_bytes);
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

int main(void) {
    TP_RUN(names_parse_and_print);
    TP_RUN(plan_profile_is_the_estimate);
    TP_RUN(onnxruntime_terms);
    return tp_test_finish();
}
