/* Ground truth from onnxruntime's profiler for models as they are shipped: control
 * flow (a voice activity detector from npm whose network is inside an If,
 * torch.jit.script Loop/If exports, constructed Scan and Loop), a hard-swish net,
 * and onnxruntime's own optimized graphs with com.microsoft contrib ops, made by
 * scripts/fixtures-onnx.sh into .fixtures/onnx/models.
 * For each: every node output onnxruntime ran, body nodes included (from its
 * profiler), has the same shape and dtype in the IR; the weights equal the bytes
 * of every initializer and Constant of the model and its subgraphs (counted by
 * the onnx package); activations are never below the lower bound computed from
 * onnxruntime's own sizes (scripts/ort_profile_shapes.py). */
#include "harness.h"
#include "onnx_alloc_sweep.h"
#include "ort_truth.h"

#ifndef TP_SOURCE_DIR
#define TP_SOURCE_DIR "."
#endif

static void check_model_opt(const char *dir, const char *name, const tp_onnx_options *opt,
                            uint64_t *act, uint64_t *lb_out) {
    char path[1024], jpath[1024];
    snprintf(path, sizeof path, "%s/.fixtures/%s/models/%s.onnx", TP_SOURCE_DIR, dir, name);
    snprintf(jpath, sizeof jpath, "%s/.fixtures/%s/models/%s.shapes.json", TP_SOURCE_DIR, dir,
             name);
    tp_error err;
    tp_graph *g = NULL;
    tp_status st = tp_onnx_load(path, opt, NULL, &g, &err);
    if (st != TP_OK) {
        TP_FAIL_("%s: load: %s: %s (fixtures: scripts/fixtures-onnx.sh)", name, tp_status_name(st),
                 err.msg);
        return;
    }
    stats s = {0};
    compare_json(g, name, jpath, &s);
    TP_CHECK(s.values > 0);
    TP_CHECK_EQ_I64(s.matched, s.values);
    char *json = (char *)tp_test_read_file(jpath, NULL);
    uint64_t want_w = json ? json_u64(json, "weights_bytes") : 0;
    uint64_t lb = json ? json_u64(json, "activation_lb_bytes") : 0;
    free(json);
    tp_estimate_options eo;
    tp_estimate_options_default(&eo);
    tp_estimate e;
    st = tp_estimate_graph(g, &eo, &e, &err);
    TP_CHECK_OK(st, &err);
    if (st == TP_OK) {
        TP_CHECK_EQ_U64(e.weight_bytes, want_w);
        TP_CHECK(e.activation_bytes >= lb);
        if (act) *act = e.activation_bytes;
        if (lb_out) *lb_out = lb;
        printf("  %-14s %5d values: %5d match; weights %llu (onnx %llu); activations %llu >= "
               "onnxruntime lower bound %llu; %u notes\n",
               name, s.values, s.matched, (unsigned long long)e.weight_bytes,
               (unsigned long long)want_w, (unsigned long long)e.activation_bytes,
               (unsigned long long)lb, tp_graph_note_count(g));
    }
    tp_graph_destroy(g);
}

static void check_model_in(const char *dir, const char *name, uint64_t *act, uint64_t *lb_out) {
    check_model_opt(dir, name, NULL, act, lb_out);
}

static void check_model(const char *name, uint64_t *act, uint64_t *lb_out) {
    check_model_in("onnx", name, act, lb_out);
}

/* `if x.size(1) > 512` (torch.jit.script): with the dims bound before loading
 * the branch onnxruntime takes is the one planned, for n = 600 (then: Linear to
 * 64 + Relu) and n = 100 (else: Linear to 8), and one note says so; without
 * them both branches are planned. */
static void check_if_dim(const char *name, const char *n_dim, const char *branch) {
    const char *dims[] = {"b=1", n_dim};
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    opt.dims = dims;
    opt.n_dims = 2;
    check_model_opt("onnx2", name, &opt, NULL, NULL);
    char path[1024];
    snprintf(path, sizeof path, "%s/.fixtures/onnx2/models/%s.onnx", TP_SOURCE_DIR, name);
    tp_error err;
    tp_graph *g = NULL;
    for (int pre = 0; pre < 2; pre++) {
        TP_CHECK_OK(tp_onnx_load(path, pre ? &opt : NULL, NULL, &g, &err), &err);
        if (!g) return;
        bool taken = false, both = false;
        for (uint32_t k = 0; k < tp_graph_note_count(g); k++) {
            const char *t = tp_graph_note(g, k);
            taken = taken || (strstr(t, "is ") && strstr(t, branch) && strstr(t, "only"));
            both = both || strstr(t, "both branches planned") != NULL;
        }
        TP_CHECK(pre ? taken && !both : both && !taken);
        tp_graph_destroy(g);
        g = NULL;
    }
}

/* Sequences and optionals (torch.jit.script list appends, torch.split, constructed
 * Optional), values that grow across Loop iterations, made by
 * scripts/export_sequences.py into .fixtures/onnx2/models. */
TP_TEST(seq_list_append) {
    check_model_in("onnx2", "seq_list_append", NULL, NULL);
}
TP_TEST(seq_split) {
    check_model_in("onnx2", "seq_split", NULL, NULL);
}
TP_TEST(seq_optional) {
    check_model_in("onnx2", "seq_optional", NULL, NULL);
}
TP_TEST(loop_grow) {
    check_model_in("onnx2", "loop_grow", NULL, NULL);
}
TP_TEST(loop_grow_const) {
    check_model_in("onnx2", "loop_grow_const", NULL, NULL);
}

/* A Loop of one trip slicing its input by the iteration number: the slice is one row (0 : 1),
   as onnxruntime runs it, not a data-dependent width. */
TP_TEST(loop_iter_once) {
    check_model_in("onnx2", "loop_iter_once", NULL, NULL);
}

TP_TEST(if_dim_big) {
    check_if_dim("if_dim_big", "n=600", "then_branch");
}
TP_TEST(if_dim_small) {
    check_if_dim("if_dim_small", "n=100", "else_branch");
}

/* Held out: written after the sequence and loop-growth code and run once (a greedy
 * decoder loop collecting tokens in a list and growing its context; unbind into a
 * list, per-part matmul, cat, an If on a size). */
TP_TEST(heldout_decoder) {
    check_model_in("onnx2", "heldout_decoder", NULL, NULL);
}
TP_TEST(heldout_unbind) {
    check_model_in("onnx2", "heldout_unbind", NULL, NULL);
}

/* Every allocation failure while converting a Loop carrying a list, a growing
 * Loop value, an Optional and an If decided by a dim is NOMEM and leaks nothing. */
TP_TEST(sequence_allocation_failures) {
    const char *names[] = {"seq_list_append",
                           "seq_split",
                           "seq_optional",
                           "loop_grow_const",
                           "loop_iter_once",
                           "if_dim_big",
                           "/node/test_optional_get_element_sequence",
                           "/node/test_sequence_map_identity_1_sequence_expanded",
                           "/node/test_if_opt"};
    const char *dims[] = {"b=1", "n=600"};
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    opt.dims = dims;
    opt.n_dims = 2;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[1024];
        if (names[i][0] == '/') /* sequence graph inputs: libonnx-testdata */
            snprintf(path, sizeof path, "/usr/share/libonnx-testdata/data%s/model.onnx", names[i]);
        else
            snprintf(path, sizeof path, "%s/.fixtures/onnx2/models/%s.onnx", TP_SOURCE_DIR,
                     names[i]);
        size_t size = 0;
        uint8_t *data = tp_test_read_file(path, &size);
        TP_CHECK(data != NULL);
        if (!data) continue;
        TP_CHECK(tp_test_onnx_alloc_sweep(names[i], data, size, &opt) > 10);
        free(data);
    }
}

TP_TEST(silero_vad) {
    check_model("silero_vad", NULL, NULL);
}

/* What the onnxruntime profile reads about silero_vad's bodies (counted by the onnx package):
 * 18 bodies (an If whose two branches hold four Ifs each); 800 B of initializers one body deep
 * and 1,065,568 B (the LSTMs') two deep; the If branches not planned (the condition is known
 * inside, not at the top) hold 44 nodes. */
TP_TEST(silero_vad_bodies) {
    char path[1024];
    snprintf(path, sizeof path, "%s/.fixtures/onnx/models/silero_vad.onnx", TP_SOURCE_DIR);
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_onnx_load(path, NULL, NULL, &g, &err), &err);
    if (!g) return;
    uint64_t bodies, unplanned, by_depth[3] = {0, 0, 0};
    tp_graph_bodies(g, &bodies, &unplanned);
    TP_CHECK_EQ_U64(bodies, 18);
    TP_CHECK_EQ_U64(unplanned, 44);
    for (uint32_t id = 0; id < tp_graph_node_count(g); id++) {
        const tp_node *n = tp_graph_node(g, (tp_node_id)id);
        uint64_t b;
        if (!n || n->op.kind != TP_OP_PARAM || n->op.attrs.param.body_depth > 2 ||
            tp_graph_node_bytes(g, (tp_node_id)id, &b, &err) != TP_OK)
            continue;
        by_depth[n->op.attrs.param.body_depth] += b;
    }
    TP_CHECK_EQ_U64(by_depth[0], 714792);
    TP_CHECK_EQ_U64(by_depth[1], 800);
    TP_CHECK_EQ_U64(by_depth[2], 1065568);
    tp_graph_destroy(g);
}
/* The dims vad-web feeds Silero VAD v5 (576 samples; the unnamed dims as the importer names
 * them) and its sample rate, given before loading. */
static const char *const SILERO_V5_DIMS[] = {"unk_input_0=1", "unk_input_1=576", "unk_state_1=1"};
static const int64_t SILERO_V5_SR = 16000;
static const tp_onnx_input_value SILERO_V5_SR_VALUE = {"sr", &SILERO_V5_SR, NULL, 1};

static void silero_v5_options(tp_onnx_options *opt) {
    tp_onnx_options_init(opt);
    opt->dims = SILERO_V5_DIMS;
    opt->n_dims = 3;
    opt->input_values = &SILERO_V5_SR_VALUE;
    opt->n_input_values = 1;
}

/* Silero VAD v5 as npm @ricky0123/vad-web ships it: an If on the sample rate holding the network,
 * and inside it Ifs on shapes: Equal(Gather(Shape(encoder output)), 1) (a squeeze made
 * conditional, branches of ranks 2 and 3) and Not(Size(Shape(x)) == 2). With the dims vad-web
 * feeds given before loading (576 samples, unnamed dims named by the importer) and sr known,
 * each If takes the branch onnxruntime runs; without the dims the rank-changing If is a clear
 * error asking for them. */
TP_TEST(silero_vad_v5) {
    tp_onnx_options opt;
    silero_v5_options(&opt);
    check_model_opt("onnx", "silero_vad_v5", &opt, NULL, NULL);
    char path[1024];
    snprintf(path, sizeof path, "%s/.fixtures/onnx/models/silero_vad_v5.onnx", TP_SOURCE_DIR);
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_STATUS(tp_onnx_load(path, NULL, NULL, &g, &err), TP_ERR_UNSUPPORTED);
    TP_CHECK_CONTAINS(err.msg, "condition is unknown at plan time: bind what it depends on");
    tp_graph_destroy(g);
}

/* onnxruntime's constant folding in Silero v5's bodies (its graph optimized at level basic,
 * scripts/ort_optimize.js, read with the onnx package): the decoder's LSTM weights, Constants of
 * the sample-rate branches, are sliced into gates, concatenated back and unsqueezed inside each of
 * the two branches of an inner If, and the folded results stay as initializers of those
 * branches: eight of 262,144 B and four of 4,096 B, 2,113,536 B. The importer flags the folds of
 * the planned branches (TP_NODE_FOLDED; TP_NODE_FOLDED_COPY when from an enclosing scope's
 * weight) and counts those of the branches not planned, whose sizes it takes at the weight's:
 * 528,384 B planned (two weights and the biases, read by the LSTM that runs) and 1,579,024 B not
 * planned (the biases' concatenation taken at one bias, 2,048 B instead of 4,096, three times). */
TP_TEST(silero_vad_v5_folds) {
    tp_onnx_options opt;
    silero_v5_options(&opt);
    char path[1024];
    snprintf(path, sizeof path, "%s/.fixtures/onnx/models/silero_vad_v5.onnx", TP_SOURCE_DIR);
    tp_error err;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_onnx_load(path, &opt, NULL, &g, &err), &err);
    if (!g) return;
    uint64_t main_nodes, body_nodes, unplanned_copy;
    tp_graph_folded(g, &main_nodes, &body_nodes, &unplanned_copy);
    TP_CHECK_EQ_U64(main_nodes, 0);
    TP_CHECK(body_nodes > 0);
    TP_CHECK_EQ_U64(unplanned_copy, 1579024);
    uint32_t n = tp_graph_node_count(g);
    uint8_t *read_by_kernel = calloc(n, 1);
    TP_CHECK(read_by_kernel != NULL);
    if (!read_by_kernel) {
        tp_graph_destroy(g);
        return;
    }
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        if (!nd || tp_op_is_boundary(nd->op.kind) || (nd->flags & TP_NODE_FOLDED)) continue;
        for (uint32_t i = 0; i < nd->n_inputs; i++)
            if (nd->inputs[i] >= 0) read_by_kernel[nd->inputs[i]] = 1;
    }
    uint64_t planned = 0;
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        uint64_t b;
        if (nd && (nd->flags & TP_NODE_FOLDED_COPY) && read_by_kernel[id] &&
            tp_graph_node_bytes(g, (tp_node_id)id, &b, &err) == TP_OK)
            planned += b;
    }
    TP_CHECK_EQ_U64(planned, 528384);
    free(read_by_kernel);
    tp_graph_destroy(g);
}

TP_TEST(loop_rnn) {
    check_model("cf_loop_rnn", NULL, NULL);
}
TP_TEST(if_conv) {
    check_model("cf_if_conv", NULL, NULL);
}
TP_TEST(scan) {
    check_model("cf_scan", NULL, NULL);
}
TP_TEST(loop_scan_outputs) {
    check_model("cf_loop_scan", NULL, NULL);
}

/* x * clip(x + 3) / 6 after each conv: with in-place reuse by lifetime the
 * activations equal the lower bound from onnxruntime's sizes (two buffers of
 * the largest layer, not three). */
TP_TEST(hardswish_inplace) {
    uint64_t act = 0, lb = 1;
    check_model("hardswish", &act, &lb);
    TP_CHECK_EQ_U64(act, lb);
}

/* onnxruntime's optimized graphs: contrib ops (FusedMatMul, BiasGelu, FusedGemm,
 * FusedConv) as onnxruntime itself writes them. */
TP_TEST(ort_optimized_bert) {
    check_model("bert_base_ortopt", NULL, NULL);
}
TP_TEST(ort_optimized_gpt2) {
    check_model("gpt2_ortopt", NULL, NULL);
}
TP_TEST(ort_optimized_mobilenet) {
    check_model("mobilenet_v2_ortopt", NULL, NULL);
}

/* Transformer contrib ops and quantized ops as exports ship them. */
TP_TEST(contrib_and_quantized_ops) {
    check_model("contrib_ops", NULL, NULL);
}

/* Resize sizes and a ConstantOfShape computed in float from the input's shape. */
TP_TEST(float_size_arithmetic) {
    check_model("float_sizes", NULL, NULL);
}

/* Not tuned on: PaddleOCR v4 (paddle2onnx) and an openWakeWord classifier from npm. */
TP_TEST(untuned_ppocr_det) {
    check_model("ppocr_det", NULL, NULL);
}
TP_TEST(untuned_ppocr_rec) {
    check_model("ppocr_rec", NULL, NULL);
}
TP_TEST(untuned_ppocr_cls) {
    check_model("ppocr_cls", NULL, NULL);
}
TP_TEST(untuned_wakeword) {
    check_model("wakeword", NULL, NULL);
}

int main(void) {
    TP_RUN(seq_list_append);
    TP_RUN(seq_split);
    TP_RUN(seq_optional);
    TP_RUN(loop_grow);
    TP_RUN(loop_grow_const);
    TP_RUN(loop_iter_once);
    TP_RUN(if_dim_big);
    TP_RUN(if_dim_small);
    TP_RUN(heldout_decoder);
    TP_RUN(heldout_unbind);
    TP_RUN(sequence_allocation_failures);
    TP_RUN(silero_vad);
    TP_RUN(silero_vad_bodies);
    TP_RUN(silero_vad_v5);
    TP_RUN(silero_vad_v5_folds);
    TP_RUN(loop_rnn);
    TP_RUN(if_conv);
    TP_RUN(scan);
    TP_RUN(loop_scan_outputs);
    TP_RUN(hardswish_inplace);
    TP_RUN(ort_optimized_bert);
    TP_RUN(ort_optimized_gpt2);
    TP_RUN(ort_optimized_mobilenet);
    TP_RUN(contrib_and_quantized_ops);
    TP_RUN(float_size_arithmetic);
    TP_RUN(untuned_ppocr_det);
    TP_RUN(untuned_ppocr_rec);
    TP_RUN(untuned_ppocr_cls);
    TP_RUN(untuned_wakeword);
    return tp_test_finish();
}
