/* Ground truth (b) of the ONNX importer: for the models exported by
 * scripts/export_models.py (torch, opset 17) every node output's inferred shape
 * and dtype must equal what onnxruntime computed for the same input sizes
 * (scripts/ort_shapes.js -> .fixtures/models/NAME.shapes.json). The fixtures are
 * made by scripts/fixtures.sh (run by scripts/test.sh); without them this test
 * fails and says how to make them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ort_truth.h"
#include "import/onnx_model.h"

#ifndef TP_SOURCE_DIR
#define TP_SOURCE_DIR "."
#endif

static const char *const MODELS[] = {
    "resnet50",     "mobilenet_v2",  "efficientnet_b0", "densenet121",
    "inception_v3", "convnext_tiny", "swin_t",          "vit_b_16",
    "gpt2",         "gpt2_past",     "bert_base",       "unet_tiny",
};

static void check_model(const char *name, stats *total) {
    char path[1024], jpath[1024];
    snprintf(path, sizeof path, "%s/.fixtures/models/%s.onnx", TP_SOURCE_DIR, name);
    tp_error err;
    tp_graph *g = NULL;
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    tp_status st = tp_onnx_load(path, &opt, NULL, &g, &err);
    if (st != TP_OK) {
        TP_FAIL_("%s: load: %s: %s", name, tp_status_name(st), err.msg);
        return;
    }
    /* two input sizes (symbols bound differently): a wrong expression that agrees
     * at one size, or a dim that is wrongly static, fails the other */
    stats s = {0};
    static const char *const FILES[] = {"shapes", "shapes_alt"};
    for (int f = 0; f < 2; f++) {
        snprintf(jpath, sizeof jpath, "%s/.fixtures/models/%s.%s.json", TP_SOURCE_DIR, name,
                 FILES[f]);
        compare_json(g, name, jpath, &s);
    }
    printf("  %-16s %5u IR nodes, %5d values: %5d match, %d shape, %d dtype, %d missing\n", name,
           tp_graph_node_count(g), s.values, s.matched, s.shape_bad, s.dtype_bad, s.missing);
    TP_CHECK(s.values > 0);
    TP_CHECK_EQ_I64(s.matched, s.values);
    total->values += s.values;
    total->matched += s.matched;
    tp_graph_destroy(g);
    /* The copy with onnx's own shape inference in value_info converts with the
     * value_info check on: no inferred shape or type contradicts it. */
    snprintf(path, sizeof path, "%s/.fixtures/models/%s.vi.onnx", TP_SOURCE_DIR, name);
    tp_onnx_model *m = NULL;
    tp_graph *g2 = NULL;
    st = tp_onnx_model_open(path, &opt, NULL, &m, &err);
    if (st == TP_OK) st = tp_onnx_model_to_graph(m, &opt, NULL, &g2, &err);
    if (st != TP_OK) {
        TP_FAIL_("%s: value_info copy: %s: %s", name, tp_status_name(st), err.msg);
    } else {
        TP_CHECK(m->graph->n_value_infos > 0);
        total->vi_checked += (int)m->graph->n_value_infos;
    }
    tp_graph_destroy(g2);
    tp_onnx_model_destroy(m);
}

static stats TOTAL;

#define MODEL_TEST(fn, idx)                                                                        \
    TP_TEST(fn) {                                                                                  \
        check_model(MODELS[idx], &TOTAL);                                                          \
    }
MODEL_TEST(model_resnet50, 0)
MODEL_TEST(model_mobilenet_v2, 1)
MODEL_TEST(model_efficientnet_b0, 2)
MODEL_TEST(model_densenet121, 3)
MODEL_TEST(model_inception_v3, 4)
MODEL_TEST(model_convnext_tiny, 5)
MODEL_TEST(model_swin_t, 6)
MODEL_TEST(model_vit_b_16, 7)
MODEL_TEST(model_gpt2, 8)
MODEL_TEST(model_gpt2_past, 9)
MODEL_TEST(model_bert_base, 10)
MODEL_TEST(model_unet_tiny, 11)

/* Symbolic dims stay symbolic: binding a different batch changes the shapes. */
TP_TEST(symbolic_batch_rebinds) {
    char path[1024];
    snprintf(path, sizeof path, "%s/.fixtures/models/resnet50.onnx", TP_SOURCE_DIR);
    tp_error err;
    tp_graph *g = NULL;
    tp_status st = tp_onnx_load(path, NULL, NULL, &g, &err);
    if (st != TP_OK) {
        TP_FAIL_("load: %s", err.msg);
        return;
    }
    tp_node_id id;
    TP_CHECK_OK(tp_graph_find(g, "logits", &id, &err), &err);
    const tp_node *n = tp_graph_node(g, id);
    TP_CHECK_EQ_I64(n->shape.rank, 2);
    TP_CHECK(!tp_dim_is_static(n->shape.dims[0]));
    TP_CHECK_STATUS(tp_graph_node_elements(g, id, &(uint64_t){0}, &err), TP_ERR_UNBOUND);
    TP_CHECK_OK(tp_graph_bind(g, "batch", 5, &err), &err);
    uint64_t el = 0;
    TP_CHECK_OK(tp_graph_node_elements(g, id, &el, &err), &err);
    TP_CHECK_EQ_U64(el, 5000);
    tp_graph_destroy(g);
}

/* Symbolic shapes stay readable: the converter's simplifications (clamped slices,
 * (a+b)-b, max/min folding, (k*x)/k) give these exact strings. */
TP_TEST(symbolic_shapes_are_simplified) {
    static const char *const CASES[][3] = {
        {"gpt2_past", "logits", "[batch,seq,50257]"},
        {"gpt2_past", "present_key_11", "[batch,12,(seq+past),64]"},
        {"gpt2", "logits", "[batch,seq,50257]"},
        {"bert_base", "last_hidden_state", "[batch,seq,768]"},
        {"unet_tiny", "logits", "[batch,4,height,width]"},
        {"swin_t", "logits", "[batch,1000]"},
        {"vit_b_16", "logits", "[batch,1000]"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char path[1024], buf[256];
        snprintf(path, sizeof path, "%s/.fixtures/models/%s.onnx", TP_SOURCE_DIR, CASES[i][0]);
        tp_error err;
        tp_graph *g = NULL;
        if (tp_onnx_load(path, NULL, NULL, &g, &err) != TP_OK) {
            TP_FAIL_("%s: %s", CASES[i][0], err.msg);
            continue;
        }
        tp_node_id id;
        if (tp_graph_find(g, CASES[i][1], &id, &err) == TP_OK)
            TP_CHECK_STR(tp_graph_shape_str(g, &tp_graph_node(g, id)->shape, buf, sizeof buf),
                         CASES[i][2]);
        else
            TP_FAIL_("%s: no value %s", CASES[i][0], CASES[i][1]);
        tp_graph_destroy(g);
    }
}

int main(void) {
    TP_RUN(model_resnet50);
    TP_RUN(model_mobilenet_v2);
    TP_RUN(model_efficientnet_b0);
    TP_RUN(model_densenet121);
    TP_RUN(model_inception_v3);
    TP_RUN(model_convnext_tiny);
    TP_RUN(model_swin_t);
    TP_RUN(model_vit_b_16);
    TP_RUN(model_gpt2);
    TP_RUN(model_gpt2_past);
    TP_RUN(model_bert_base);
    TP_RUN(model_unet_tiny);
    TP_RUN(symbolic_batch_rebinds);
    TP_RUN(symbolic_shapes_are_simplified);
    printf("onnxruntime ground truth: %d / %d node outputs match; %d value_info entries of onnx's "
           "shape inference agree\n",
           TOTAL.matched, TOTAL.values, TOTAL.vi_checked);
    return tp_test_finish();
}
