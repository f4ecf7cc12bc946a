/* Op accounting on real exported models: the multiply-accumulate count of the
 * GEMM-class ops (conv, matmul, gemm, attention) per 224×224 image (299×299 for
 * inception_v3) must match the figures torchvision publishes for these models
 * (its model table's "GFLOPS" column, which counts multiply-accumulates).
 *
 * Needs the fixtures of scripts/fixtures.sh (.fixtures/models/NAME.onnx, exported
 * from torchvision by scripts/export_models.py); a missing file is a failure
 * naming it, like the other ONNX ground-truth tests. */
#include "harness.h"

#include <math.h>
#include <sys/stat.h>

#include "tensorplan/cost.h"

static const struct {
    const char *name;
    double gmacs; /* torchvision model table, per image */
} published[] = {
    {"resnet50", 4.09},    {"mobilenet_v2", 0.30}, {"efficientnet_b0", 0.39},
    {"densenet121", 2.83}, {"inception_v3", 5.71}, {"convnext_tiny", 4.46},
    {"swin_t", 4.49},      {"vit_b_16", 17.56},
};

static double gemm_gmacs(tp_graph *g) {
    tp_error err;
    uint64_t flops = 0;
    for (uint32_t i = 0; i < tp_graph_node_count(g); i++) {
        tp_op_cost c;
        tp_status s = tp_op_account(g, (tp_node_id)i, &c, &err);
        if (s != TP_OK) {
            TP_FAIL_("node %u: %s", i, err.msg);
            return -1;
        }
        if (c.cls == TP_COST_GEMM) flops += c.flops;
    }
    return (double)flops / 2e9;
}

TP_TEST(published_mac_counts) {
    for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, TP_SOURCE_DIR "/.fixtures/models/%s.onnx", published[i].name);
        struct stat st;
        if (stat(path, &st) != 0) {
            TP_FAIL_("%s missing: run scripts/fixtures.sh", path);
            continue;
        }
        tp_error err;
        tp_graph *g = NULL;
        tp_status s = tp_onnx_load(path, NULL, NULL, &g, &err);
        if (s != TP_OK) {
            TP_FAIL_("%s: %s", path, err.msg);
            continue;
        }
        TP_CHECK_OK(tp_graph_bind(g, "batch", 1, &err), &err);
        double got = gemm_gmacs(g);
        double want = published[i].gmacs;
        /* torchvision prints 2-3 significant digits: allow rounding and 1 % */
        double tol = fmax(0.006, 0.01 * want);
        printf("  %-16s %.3f GMAC (published %.2f)\n", published[i].name, got, want);
        TP_CHECK_NEAR(got, want, tol);
        tp_graph_destroy(g);
    }
}

TP_TEST(batch_scales_linearly) {
    char path[512];
    snprintf(path, sizeof path, TP_SOURCE_DIR "/.fixtures/models/resnet50.onnx");
    tp_error err;
    tp_graph *g = NULL;
    if (tp_onnx_load(path, NULL, NULL, &g, &err) != TP_OK) {
        TP_FAIL_("%s: %s", path, err.msg);
        return;
    }
    TP_CHECK_OK(tp_graph_bind(g, "batch", 1, &err), &err);
    double one = gemm_gmacs(g);
    TP_CHECK_OK(tp_graph_bind(g, "batch", 8, &err), &err);
    double eight = gemm_gmacs(g);
    TP_CHECK_NEAR(eight, 8 * one, 1e-9 * eight);
    /* the IO profile and the cost of the bound graph are consistent */
    tp_io_profile p;
    TP_CHECK_OK(tp_io_profile_compute(g, NULL, &p, &err), &err);
    TP_CHECK(p.kernel_launches > 100);
    TP_CHECK_EQ_U64(p.kernel_launches + p.metadata_nodes, tp_graph_node_count(g));
    TP_CHECK_EQ_U64(p.host_output_bytes, 8 * 1000 * 4); /* logits [8, 1000] f32 */
    TP_CHECK_EQ_U64(p.sync_points, 0);
    tp_graph_destroy(g);
}

int main(void) {
    TP_RUN(published_mac_counts);
    TP_RUN(batch_scales_linearly);
    return tp_test_finish();
}
