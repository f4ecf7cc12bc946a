/* Device sets and llama.cpp's layer placement (tensorplan/llm_devices.h). The
 * per-device byte truth against llama.cpp itself is
 * tests/cli/test_multi_device_truth.sh. */
#include "harness.h"
#include "../fuzz/llm_tiny_model.h"
#include "tensorplan/llm_devices.h"

TP_TEST(parse_sizes_kinds_and_sources) {
    tp_llm_device_set ds;
    tp_error err;
    TP_CHECK(tp_llm_device_set_parse("cuda0:24GiB,cuda1:1.5GiB,rpc:127.0.0.1:50052:8GB,cpu:64GiB",
                                     &ds, &err) == TP_OK);
    TP_CHECK_EQ_U64(ds.n, 4);
    TP_CHECK(ds.dev[0].kind == TP_LLM_DEV_CUDA);
    TP_CHECK_EQ_U64(ds.dev[0].size_bytes, 24ull << 30);
    TP_CHECK_EQ_U64(ds.dev[0].reserved_bytes, 512ull << 20);
    TP_CHECK_EQ_U64(ds.dev[0].alignment, 128);
    TP_CHECK_EQ_U64(ds.dev[1].size_bytes, 3ull << 29);
    TP_CHECK(ds.dev[2].kind == TP_LLM_DEV_RPC);
    TP_CHECK_STR(ds.dev[2].endpoint, "127.0.0.1:50052");
    TP_CHECK_EQ_U64(ds.dev[2].size_bytes, 8000000000ull);
    TP_CHECK_EQ_U64(ds.dev[2].reserved_bytes, 0);
    TP_CHECK_STR(ds.dev[3].size_source, "given");
    TP_CHECK(ds.dev[3].kind == TP_LLM_DEV_CPU);
}

TP_TEST(parse_catalog_names) {
    tp_llm_device_set ds;
    tp_error err;
    TP_CHECK(tp_llm_device_set_parse("h100-sxm,rtx4090:20GiB,apple-m2", &ds, &err) == TP_OK);
    TP_CHECK_EQ_U64(ds.n, 3);
    TP_CHECK(ds.dev[0].kind == TP_LLM_DEV_CUDA);
    TP_CHECK_EQ_U64(ds.dev[0].size_bytes, 80ull << 30);
    TP_CHECK(strstr(ds.dev[0].size_source, "catalog h100-sxm") != NULL);
    TP_CHECK_EQ_U64(ds.dev[1].size_bytes, 20ull << 30);
    TP_CHECK(ds.dev[2].kind == TP_LLM_DEV_METAL);
    TP_CHECK_EQ_U64(ds.dev[2].reserved_bytes, ds.dev[2].size_bytes / 4);
}

TP_TEST(parse_errors_name_the_entry) {
    tp_llm_device_set ds;
    tp_error err;
    TP_CHECK(tp_llm_device_set_parse("cuda0:24XB", &ds, &err) == TP_ERR_PARSE);
    TP_CHECK(strstr(err.msg, "24XB") != NULL);
    TP_CHECK(tp_llm_device_set_parse("warp-drive", &ds, &err) == TP_ERR_NOT_FOUND);
    TP_CHECK(strstr(err.msg, "warp-drive") != NULL);
    TP_CHECK(tp_llm_device_set_parse("rpc:host", &ds, &err) == TP_ERR_PARSE);
    TP_CHECK(tp_llm_device_set_parse("cpu:1GiB,cpu:2GiB", &ds, &err) == TP_ERR_INVALID);
    TP_CHECK(tp_llm_device_set_parse("", &ds, &err) == TP_ERR_INVALID);
}

static void tiny_model(tp_llm_config *c, tp_registry **r) {
    *r = tp_llm_tiny_model(c);
    TP_CHECK(*r != NULL);
}

/* The tiny model at context n_ctx on a parsed device set, default placement options. */
typedef struct place_case {
    tp_llm_config c;
    tp_registry *r;
    tp_llm_options o;
    tp_llm_device_set ds;
    tp_llm_placement_options po;
    tp_error err;
} place_case;

static void place_case_init(place_case *t, uint64_t n_ctx, const char *devices) {
    tiny_model(&t->c, &t->r);
    tp_llm_options_default(&t->o);
    t->o.n_ctx = n_ctx;
    TP_CHECK(tp_llm_device_set_parse(devices, &t->ds, &t->err) == TP_OK);
    tp_llm_placement_options_default(&t->po);
}

TP_TEST(layer_split_ngl_output_and_nkvo) {
    static place_case t;
    place_case_init(&t, 256, "rpc:a:1:1GiB,rpc:b:2:1GiB,cpu:4GiB");
    t.po.tensor_split[0] = t.po.tensor_split[1] = 1;
    static tp_llm_placement p;
    TP_CHECK(tp_llm_place(&t.c, t.r, &t.o, &t.ds, &t.po, &p, &t.err) == TP_OK);
    /* 5 offloaded "layers" (4 + output) split 1:1: x = 0, .2, .4 on the first, .6, .8 second */
    TP_CHECK_EQ_U64(p.n, 3);
    TP_CHECK_EQ_U64(p.use[0].layers, 3);
    TP_CHECK_EQ_U64(p.use[1].layers, 1);
    TP_CHECK(p.use[1].output && !p.use[0].output);
    TP_CHECK_EQ_U64(p.use[0].model_bytes, 3 * 1024); /* padded to 32 */
    TP_CHECK_EQ_U64(p.use[1].model_bytes, 2 * 1024);
    TP_CHECK_EQ_U64(p.use[2].model_bytes, 1024); /* token_embd stays on the CPU */
    TP_CHECK_EQ_U64(p.use[0].kv_bytes, 3 * p.use[1].kv_bytes);
    TP_CHECK_EQ_U64(p.use[0].kv_bytes + p.use[1].kv_bytes, p.single.kv_cache_bytes);
    /* -ngl 2: layer 3 and the output offloaded; -nkvo: every KV on the host */
    t.po.n_gpu_layers = 2;
    t.po.no_kv_offload = true;
    TP_CHECK(tp_llm_place(&t.c, t.r, &t.o, &t.ds, &t.po, &p, &t.err) == TP_OK);
    TP_CHECK_EQ_U64(p.use[2].layers, 3);
    TP_CHECK_EQ_U64(p.use[0].layers, 1);
    TP_CHECK(p.use[1].output);
    TP_CHECK_EQ_U64(p.use[2].kv_bytes, p.single.kv_cache_bytes);
    TP_CHECK_EQ_U64(p.use[0].kv_bytes, 0);
    /* a split naming a device the set lacks */
    t.po.tensor_split[2] = 1;
    TP_CHECK(tp_llm_place(&t.c, t.r, &t.o, &t.ds, &t.po, &p, &t.err) == TP_ERR_INVALID);
    tp_registry_destroy(t.r);
}

TP_TEST(fit_largest_context_then_fewer_layers) {
    tp_llm_config c;
    tp_registry *r = NULL;
    tiny_model(&c, &r);
    tp_llm_options o;
    tp_llm_options_default(&o);
    o.n_ctx = 1 << 20;
    tp_llm_device_set ds;
    tp_error err;
    tp_llm_placement_options po;
    tp_llm_placement_options_default(&po);
    static tp_llm_fit fit;
    static tp_llm_placement p;
    /* roomy devices: a context that fits, and one 256 cells more does not */
    TP_CHECK(tp_llm_device_set_parse("rpc:a:1:8MiB,rpc:b:2:8MiB,cpu:1GiB", &ds, &err) == TP_OK);
    TP_CHECK(tp_llm_place_fit(&c, r, &o, &ds, &po, 0, &fit, &err) == TP_OK);
    TP_CHECK(fit.fits);
    TP_CHECK(fit.n_ctx >= 256 && fit.n_ctx % 256 == 0);
    TP_CHECK(fit.placement.fits);
    o.n_ctx = fit.n_ctx + 256;
    TP_CHECK(tp_llm_place(&c, r, &o, &ds, &fit.options, &p, &err) == TP_OK);
    TP_CHECK(!p.fits);
    /* devices too small for any context: layers go back to the host */
    o.n_ctx = 4096;
    TP_CHECK(tp_llm_device_set_parse("rpc:a:1:64KiB,rpc:b:2:64KiB,cpu:1GiB", &ds, &err) == TP_OK);
    TP_CHECK(tp_llm_place_fit(&c, r, &o, &ds, &po, 0, &fit, &err) == TP_OK);
    TP_CHECK(fit.fits);
    TP_CHECK(fit.options.n_gpu_layers >= 0 && fit.options.n_gpu_layers < 5);
    TP_CHECK(fit.placement.fits);
    tp_registry_destroy(r);
}

/* A CUDA device of 256 MiB: the assumed 512 MiB reserve takes all of it, so nothing fits
 * there (it is not a device of unknown size, which fits by assumption). */
TP_TEST(reserve_larger_than_the_device) {
    static place_case t;
    place_case_init(&t, 256, "cuda0:256MiB,cpu:1GiB");
    static tp_llm_placement p;
    TP_CHECK(tp_llm_place(&t.c, t.r, &t.o, &t.ds, &t.po, &p, &t.err) == TP_OK);
    TP_CHECK(p.use[0].capacity_known);
    TP_CHECK_EQ_U64(p.use[0].capacity_bytes, 0);
    TP_CHECK(!p.use[0].fits && !p.fits);
    TP_CHECK_EQ_U64(p.use[0].free_bytes, 0);
    /* fitting moves every layer back to the host */
    static tp_llm_fit fit;
    TP_CHECK(tp_llm_place_fit(&t.c, t.r, &t.o, &t.ds, &t.po, 0, &fit, &t.err) == TP_OK);
    TP_CHECK(fit.fits);
    TP_CHECK_EQ_U64((uint64_t)fit.options.n_gpu_layers, 0);
    /* a device without a size: unknown, fits by assumption */
    TP_CHECK(tp_llm_device_set_parse("cuda0,cpu:1GiB", &t.ds, &t.err) == TP_OK);
    TP_CHECK(tp_llm_place(&t.c, t.r, &t.o, &t.ds, &t.po, &p, &t.err) == TP_OK);
    TP_CHECK(!p.use[0].capacity_known && p.use[0].fits);
    tp_registry_destroy(t.r);
}

int main(void) {
    TP_RUN(parse_sizes_kinds_and_sources);
    TP_RUN(parse_catalog_names);
    TP_RUN(parse_errors_name_the_entry);
    TP_RUN(layer_split_ngl_output_and_nkvo);
    TP_RUN(fit_largest_context_then_fewer_layers);
    TP_RUN(reserve_larger_than_the_device);
    return tp_test_finish();
}
