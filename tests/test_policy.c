/* Device catalog, efficiency factors, catalog models and device choice. */
#include "harness.h"

#include <math.h>

#include "tensorplan/cost.h"

static tp_error err_storage;
static tp_error *err = &err_storage;

static tp_catalog *builtin(void) {
    tp_catalog *c = NULL;
    TP_CHECK_OK(tp_catalog_load_default(NULL, &c, err), err);
    return c;
}

TP_TEST(builtin_matches_data_file) {
    tp_catalog *a = builtin(), *b = NULL;
    TP_CHECK_OK(tp_catalog_load(TP_SOURCE_DIR "/data/devices/catalog.csv", NULL, &b, err), err);
    if (!a || !b) return;
    TP_CHECK_EQ_U64(tp_catalog_count(a), tp_catalog_count(b));
    TP_CHECK(tp_catalog_count(a) >= 12);
    for (uint32_t i = 0; i < tp_catalog_count(a) && i < tp_catalog_count(b); i++) {
        const tp_catalog_entry *x = tp_catalog_get(a, i), *y = tp_catalog_get(b, i);
        TP_CHECK(memcmp(x, y, sizeof *x) == 0);
        TP_CHECK(strlen(x->source) > 20); /* every row cites its source */
    }
    tp_catalog_destroy(a);
    tp_catalog_destroy(b);
}

TP_TEST(spec_sheet_figures) {
    tp_catalog *c = builtin();
    const tp_catalog_entry *e;
    TP_CHECK_OK(tp_catalog_find(c, "H100-SXM", &e, err), err);
    TP_CHECK_NEAR(e->f32_gflops, 67000, 0);
    TP_CHECK_NEAR(e->f16_gflops, 989500, 0); /* dense: half of 1979 with sparsity */
    TP_CHECK_NEAR(e->mem_gbps, 3350, 0);
    TP_CHECK_EQ_U64(e->memory_bytes, 80ull << 30);
    TP_CHECK(e->kind == TP_DEVICE_CUDA);
    TP_CHECK_OK(tp_catalog_find(c, "apple-m2", &e, err), err);
    TP_CHECK(e->unified && e->kind == TP_DEVICE_METAL);
    TP_CHECK_OK(tp_catalog_find(c, "mi300x", &e, err), err);
    TP_CHECK(e->kind == TP_DEVICE_ROCM);
    TP_CHECK_OK(tp_catalog_find(c, "rpi5", &e, err), err);
    TP_CHECK(e->kind == TP_DEVICE_CPU);
    TP_CHECK_CONTAINS(e->source, "derived");
    TP_CHECK_STATUS(tp_catalog_find(c, "tpu-v9", &e, err), TP_ERR_NOT_FOUND);
    TP_CHECK_CONTAINS(err->msg, "tpu-v9");
    tp_catalog_destroy(c);
}

TP_TEST(catalog_models) {
    tp_catalog *c = builtin();
    tp_device_model d;
    TP_CHECK_OK(tp_catalog_model(c, "h100-sxm", TP_DTYPE_F32, &d, err), err);
    TP_CHECK(d.source == TP_SOURCE_CATALOG);
    TP_CHECK_NEAR(d.efficiency, 0.5, 0);
    /* large shapes: 67000 × 0.5; dim 512: 45 % of that */
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 8192, 8192, 8192), 33500, 1e-6);
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 512, 512, 512), 15075, 1e-6);
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F16, 8192, 8192, 8192), 494750, 1e-6);
    TP_CHECK_NEAR(d.mem_gbps, 2680, 1e-9);      /* 0.8 × 3350 */
    TP_CHECK_NEAR(d.readback_gbps, 51.2, 1e-9); /* 0.8 × PCIe Gen5 x16 */
    TP_CHECK(!d.unified);
    /* autocast: f32 GEMMs run in bf16 */
    TP_CHECK_OK(tp_catalog_model(c, "h100-sxm", TP_DTYPE_BF16, &d, err), err);
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 8192, 8192, 8192), 494750, 1e-6);
    TP_CHECK_OK(tp_catalog_set_efficiency(c, "h100-sxm", 0.7, err), err);
    TP_CHECK_OK(tp_catalog_model(c, "h100-sxm", TP_DTYPE_F32, &d, err), err);
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 8192, 8192, 8192), 46900, 1e-6);
    TP_CHECK_STATUS(tp_catalog_set_efficiency(c, "h100-sxm", 1.5, err), TP_ERR_INVALID);
    /* unified memory: readback at memory bandwidth */
    TP_CHECK_OK(tp_catalog_model(c, "apple-m2", TP_DTYPE_F32, &d, err), err);
    TP_CHECK(d.unified);
    TP_CHECK_NEAR(d.readback_gbps, 80, 1e-9);
    /* no published GEMM peak */
    TP_CHECK_STATUS(tp_catalog_model(c, "apple-m3", TP_DTYPE_F32, &d, err), TP_ERR_UNSUPPORTED);
    TP_CHECK_CONTAINS(err->msg, "apple-m3");
    tp_catalog_destroy(c);
}

TP_TEST(efficiency_learned_from_this_machine) {
    tp_catalog *c = builtin();
    tp_device_model m;
    tp_device_model_default(TP_DEVICE_CPU, &m);
    m.source = TP_SOURCE_MEASURED;
    m.n_gemm = 3;
    m.gemm[0] = (tp_gemm_point){16, 5};
    m.gemm[1] = (tp_gemm_point){64, 20};
    m.gemm[2] = (tp_gemm_point){256, 40};
    m.dispatch_ns = 1234;
    m.round_trip_ns = 5678;
    TP_CHECK_STATUS(tp_catalog_learn_efficiency(c, &m, 0, err), TP_ERR_INVALID);
    TP_CHECK_OK(tp_catalog_learn_efficiency(c, &m, 100, err), err); /* 40 / 100 */
    tp_device_model d;
    TP_CHECK_OK(tp_catalog_model(c, "rpi5", TP_DTYPE_F32, &d, err), err);
    TP_CHECK_NEAR(d.efficiency, 0.4, 1e-12);
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 256, 256, 256), 153.6 * 0.4, 1e-9);
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 16, 16, 16), 153.6 * 0.4 / 8, 1e-9);
    TP_CHECK_NEAR(d.dispatch_ns, 1234, 0);
    TP_CHECK_NEAR(d.round_trip_ns, 5678, 0);
    TP_CHECK_EQ_U64(d.threads, 4);
    /* GPUs keep the catalog default */
    TP_CHECK_OK(tp_catalog_model(c, "l4", TP_DTYPE_F32, &d, err), err);
    TP_CHECK_NEAR(d.efficiency, 0.5, 0);
    tp_catalog_destroy(c);
}

TP_TEST(catalog_parse_errors) {
    tp_catalog *c = NULL;
    const char *ok = "# comment\nname,kind,f32_gflops,mem_gbps,source\n"
                     "x1,gpu,100,10,\"Vendor sheet, page 2 (\"\"quoted\"\")\"\n";
    TP_CHECK_OK(tp_catalog_parse(ok, strlen(ok), NULL, &c, err), err);
    if (c) {
        TP_CHECK_STR(tp_catalog_get(c, 0)->source, "Vendor sheet, page 2 (\"quoted\")");
        TP_CHECK(tp_catalog_get(c, 0)->kind == TP_DEVICE_GPU);
        tp_catalog_destroy(c);
    }
    struct {
        const char *text, *want;
    } bad[] = {
        {"name,kind\nx,cpu\n", "header"},
        {"name,kind,f32_gflops,mem_gbps\nx,cpu,abc,1\n", "line 2, column f32_gflops"},
        {"name,kind,f32_gflops,mem_gbps\nx,tpu,1,1\n", "line 2, column kind"},
        {"name,kind,f32_gflops,mem_gbps\nx,cpu,1,1\nX,cpu,1,1\n", "duplicate"},
        {"name,kind,f32_gflops,mem_gbps\nx,cpu,1\n", "line 2"},
        {"name,kind,f32_gflops,mem_gbps\nx,cpu,1,0\n", "mem_gbps"},
        {"name,kind,f32_gflops,mem_gbps,source\nx,cpu,1,1,\"open\n", "quoting"},
        {"", "no header"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        c = NULL;
        TP_CHECK_STATUS(tp_catalog_parse(bad[i].text, strlen(bad[i].text), NULL, &c, err),
                        TP_ERR_PARSE);
        TP_CHECK_CONTAINS(err->msg, bad[i].want);
        TP_CHECK(c == NULL);
    }
    TP_CHECK_STATUS(tp_catalog_load("/nonexistent/catalog.csv", NULL, &c, err), TP_ERR_NOT_FOUND);
}

TP_TEST(catalog_alloc_failure_sweep) {
    for (long k = 1; k < 12; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, k);
        tp_catalog *c = NULL;
        tp_status s = tp_catalog_load_default(&fa.hook, &c, err);
        if (s == TP_OK) {
            TP_CHECK(tp_catalog_count(c) >= 12);
            tp_catalog_destroy(c);
        } else {
            TP_CHECK_STATUS(s, TP_ERR_NOMEM);
        }
        TP_CHECK_EQ_U64(fa.live, 0);
    }
}

static tp_device_model mk(const char *name, tp_device_kind kind, tp_model_source src) {
    tp_device_model d;
    tp_device_model_default(kind, &d);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.source = src;
    return d;
}

TP_TEST(pick_best_device_rules) {
    tp_device_model m[4] = {
        mk("cpu", TP_DEVICE_CPU, TP_SOURCE_MEASURED),
        mk("cuda-default", TP_DEVICE_CUDA, TP_SOURCE_DEFAULT),
        mk("h100-sxm", TP_DEVICE_CUDA, TP_SOURCE_CATALOG),
        mk("mi300x", TP_DEVICE_ROCM, TP_SOURCE_CATALOG),
    };
    double cost[4] = {50, 1, 50, 60};
    uint32_t ch = 99;
    /* the default model is dropped; cpu and h100 tie at 50: cuda wins the tie */
    TP_CHECK_OK(tp_pick_best_device(m, cost, 4, NULL, &ch, err), err);
    TP_CHECK_EQ_U64(ch, 2);
    tp_device_policy p = {"cpu", NULL, NULL};
    TP_CHECK_OK(tp_pick_best_device(m, cost, 4, &p, &ch, err), err);
    TP_CHECK_EQ_U64(ch, 0);
    p = (tp_device_policy){NULL, "cuda", NULL};
    TP_CHECK_OK(tp_pick_best_device(m, cost, 4, &p, &ch, err), err);
    TP_CHECK_EQ_U64(ch, 0); /* cpu 50 beats mi300x 60 */
    p = (tp_device_policy){NULL, NULL, " MI300X "};
    TP_CHECK_OK(tp_pick_best_device(m, cost, 4, &p, &ch, err), err);
    TP_CHECK_EQ_U64(ch, 3); /* preferred although slower */
    p = (tp_device_policy){NULL, NULL, "tpu"};
    TP_CHECK_OK(tp_pick_best_device(m, cost, 4, &p, &ch, err), err);
    TP_CHECK_EQ_U64(ch, 2); /* an unmatched preference changes nothing */
    /* only default models left: they are used */
    p = (tp_device_policy){"cuda-default", NULL, NULL};
    TP_CHECK_OK(tp_pick_best_device(m, cost, 4, &p, &ch, err), err);
    TP_CHECK_EQ_U64(ch, 1);
    p = (tp_device_policy){"tpu", NULL, NULL};
    TP_CHECK_STATUS(tp_pick_best_device(m, cost, 4, &p, &ch, err), TP_ERR_NOT_FOUND);
    TP_CHECK_CONTAINS(err->msg, "allow list 'tpu'");
    p = (tp_device_policy){NULL, "cpu,cuda,rocm", NULL};
    TP_CHECK_STATUS(tp_pick_best_device(m, cost, 4, &p, &ch, err), TP_ERR_NOT_FOUND);
    TP_CHECK_CONTAINS(err->msg, "deny");
    /* priority order cuda, rocm, metal, gpu, cpu on equal cost */
    tp_device_model t[4] = {
        mk("c", TP_DEVICE_CPU, TP_SOURCE_CATALOG), mk("g", TP_DEVICE_GPU, TP_SOURCE_CATALOG),
        mk("m", TP_DEVICE_METAL, TP_SOURCE_CATALOG), mk("r", TP_DEVICE_ROCM, TP_SOURCE_CATALOG)};
    double eq[4] = {7, 7, 7, 7};
    TP_CHECK_OK(tp_pick_best_device(t, eq, 4, NULL, &ch, err), err);
    TP_CHECK_EQ_U64(ch, 3);
    TP_CHECK_OK(tp_pick_best_device(t, eq, 3, NULL, &ch, err), err);
    TP_CHECK_EQ_U64(ch, 2);
    TP_CHECK_OK(tp_pick_best_device(t, eq, 2, NULL, &ch, err), err);
    TP_CHECK_EQ_U64(ch, 1);
    cost[1] = NAN;
    TP_CHECK_STATUS(tp_pick_best_device(m, cost, 4, NULL, &ch, err), TP_ERR_INVALID);
    TP_CHECK_STATUS(tp_pick_best_device(m, cost, 0, NULL, &ch, err), TP_ERR_INVALID);
}

TP_TEST(policy_from_environment) {
    tp_device_model m[2] = {mk("cpu", TP_DEVICE_CPU, TP_SOURCE_MEASURED),
                            mk("h100-sxm", TP_DEVICE_CUDA, TP_SOURCE_CATALOG)};
    double cost[2] = {100, 10};
    setenv("TENSORPLAN_DENY_DEVICES", "h100-sxm", 1);
    unsetenv("TENSORPLAN_DEVICES");
    unsetenv("TENSORPLAN_PREFER_DEVICES");
    tp_device_policy p = {NULL, NULL, NULL};
    tp_env_options env;
    tp_env_options_read(&env);
    tp_env_apply_device_policy(&env, &p);
    uint32_t ch = 9;
    TP_CHECK_OK(tp_pick_best_device(m, cost, 2, &p, &ch, err), err);
    TP_CHECK_EQ_U64(ch, 0);
    /* a list given through the API wins over the environment */
    p = (tp_device_policy){NULL, "", NULL};
    tp_env_apply_device_policy(&env, &p);
    TP_CHECK_OK(tp_pick_best_device(m, cost, 2, &p, &ch, err), err);
    TP_CHECK_EQ_U64(ch, 1);
    unsetenv("TENSORPLAN_DENY_DEVICES");
    setenv("TENSORPLAN_PREFER_DEVICES", "cpu", 1);
    p = (tp_device_policy){NULL, NULL, NULL};
    tp_env_options_read(&env);
    tp_env_apply_device_policy(&env, &p);
    TP_CHECK_OK(tp_pick_best_device(m, cost, 2, &p, &ch, err), err);
    TP_CHECK_EQ_U64(ch, 0);
    unsetenv("TENSORPLAN_PREFER_DEVICES");
    setenv("TENSORPLAN_DEVICES", "cuda", 1);
    p = (tp_device_policy){NULL, NULL, NULL};
    tp_env_options_read(&env);
    tp_env_apply_device_policy(&env, &p);
    TP_CHECK_OK(tp_pick_best_device(m, cost, 2, &p, &ch, err), err);
    TP_CHECK_EQ_U64(ch, 1);
    unsetenv("TENSORPLAN_DEVICES");
    TP_CHECK(tp_device_matches(&m[1], "CUDA"));
    TP_CHECK(tp_device_matches(&m[1], "H100-sxm"));
    TP_CHECK(!tp_device_matches(&m[1], "h100"));
}

int main(void) {
    TP_RUN(builtin_matches_data_file);
    TP_RUN(spec_sheet_figures);
    TP_RUN(catalog_models);
    TP_RUN(efficiency_learned_from_this_machine);
    TP_RUN(catalog_parse_errors);
    TP_RUN(catalog_alloc_failure_sweep);
    TP_RUN(pick_best_device_rules);
    TP_RUN(policy_from_environment);
    return tp_test_finish();
}
