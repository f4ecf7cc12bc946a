/* The environment entry point (tensorplan/env.h): the library's defaults ignore
 * the environment; tp_env_options_read + tp_env_apply_* bring the documented
 * variables in, and what the caller set explicitly wins. */
#include "harness.h"

static tp_error err_storage;
static tp_error *err = &err_storage;

static const char *const all_vars[] = {"TENSORPLAN_ARENA_NO_REUSE",
                                       "TENSORPLAN_MEMORY_BUDGET_BYTES",
                                       "TENSORPLAN_SOFT_MEMORY_FRACTION",
                                       "TENSORPLAN_CUDA_LIBRARY",
                                       "TENSORPLAN_THREADS",
                                       "TENSORPLAN_DEVICES",
                                       "TENSORPLAN_DENY_DEVICES",
                                       "TENSORPLAN_PREFER_DEVICES",
                                       "XDG_CACHE_HOME",
                                       "HOME"};

static void clear_env(void) {
    for (size_t i = 0; i < sizeof all_vars / sizeof all_vars[0]; i++)
        unsetenv(all_vars[i]);
}

TP_TEST(defaults_ignore_the_environment) {
    clear_env();
    setenv("TENSORPLAN_ARENA_NO_REUSE", "1", 1);
    setenv("TENSORPLAN_SOFT_MEMORY_FRACTION", "0.25", 1);
    setenv("TENSORPLAN_MEMORY_BUDGET_BYTES", "777", 1);
    setenv("TENSORPLAN_CUDA_LIBRARY", "libtp-env-named-driver.so", 1);
    setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
    tp_alloc_options ao;
    tp_alloc_options_default(&ao);
    TP_CHECK(ao.algo == TP_ALGO_GREEDY_SIZE);
    tp_plan_options po;
    tp_plan_options_default(&po);
    TP_CHECK(po.algo == TP_ALGO_GREEDY_SIZE);
    uint64_t b = 0;
    TP_CHECK_OK(tp_sysmem_soft_budget(4000, &b, NULL, err), err);
    TP_CHECK_EQ_U64(b, 3200);
    tp_gpu_memory gm;
    TP_CHECK_OK(tp_sysmem_gpu(NULL, 0, &gm, err), err);
    if (!gm.present) TP_CHECK(strstr(gm.reason, "libtp-env-named-driver.so") == NULL);
    tp_calib_options co;
    tp_calib_options_default(&co);
    char buf[512];
    TP_CHECK_STATUS(tp_calib_cache_dir(&co, buf, sizeof buf, err), TP_ERR_NOT_FOUND);
    clear_env();
}

TP_TEST(read_and_apply) {
    clear_env();
    tp_env_options env;
    tp_env_options_read(&env);
    TP_CHECK(!env.arena_no_reuse && !env.memory_budget_bytes && !env.cuda_library);
    TP_CHECK_EQ_U64(env.threads, 0);
    TP_CHECK_STR(env.cache_dir, "");

    setenv("TENSORPLAN_ARENA_NO_REUSE", "1", 1);
    setenv("TENSORPLAN_MEMORY_BUDGET_BYTES", "777", 1);
    setenv("TENSORPLAN_SOFT_MEMORY_FRACTION", "0.25", 1);
    setenv("TENSORPLAN_CUDA_LIBRARY", "libtp-env-named-driver.so", 1);
    setenv("TENSORPLAN_THREADS", "3", 1);
    setenv("TENSORPLAN_DEVICES", "cpu", 1);
    setenv("TENSORPLAN_DENY_DEVICES", "", 1); /* empty = unset */
    setenv("TENSORPLAN_PREFER_DEVICES", "cuda", 1);
    setenv("HOME", "/home/someone", 1);
    tp_env_options_read(&env);
    TP_CHECK(env.arena_no_reuse);
    TP_CHECK_STR(env.memory_budget_bytes, "777");
    TP_CHECK_STR(env.soft_memory_fraction, "0.25");
    TP_CHECK_EQ_U64(env.threads, 3);
    TP_CHECK(env.deny_devices == NULL);
    TP_CHECK_STR(env.cache_dir, "/home/someone/.cache/tensorplan");

    tp_alloc_options ao;
    tp_alloc_options_default(&ao);
    tp_env_apply_alloc(&env, &ao);
    TP_CHECK(ao.algo == TP_ALGO_NO_REUSE);
    tp_plan_options po;
    tp_plan_options_default(&po);
    tp_env_apply_plan(&env, &po);
    TP_CHECK(po.algo == TP_ALGO_NO_REUSE);

    uint64_t b = 0;
    tp_budget_source src;
    TP_CHECK_OK(tp_sysmem_soft_budget_from(4000, env.soft_memory_fraction, NULL, &b, &src, err),
                err);
    TP_CHECK_EQ_U64(b, 1000);
    TP_CHECK(src == TP_BUDGET_FRACTION_ENV);

    tp_gpu_memory gm;
    TP_CHECK_OK(tp_sysmem_gpu(env.cuda_library, 0, &gm, err), err);
    TP_CHECK(!gm.present);
    TP_CHECK_CONTAINS(gm.reason, "libtp-env-named-driver.so");

    tp_calib_options co;
    tp_calib_options_default(&co);
    tp_env_apply_calib(&env, &co);
    TP_CHECK_EQ_U64(co.threads, 3);
    TP_CHECK_STR(co.cache_dir, "/home/someone/.cache/tensorplan");
    TP_CHECK_STR(co.cuda_library, "libtp-env-named-driver.so");
    tp_calib_options_default(&co);
    co.threads = 5; /* what the caller set wins */
    co.cache_dir = "/explicit";
    tp_env_apply_calib(&env, &co);
    TP_CHECK_EQ_U64(co.threads, 5);
    TP_CHECK_STR(co.cache_dir, "/explicit");

    tp_device_policy p = {NULL, "h100-sxm", NULL};
    tp_env_apply_device_policy(&env, &p);
    TP_CHECK_STR(p.allow, "cpu");
    TP_CHECK_STR(p.deny, "h100-sxm");
    TP_CHECK_STR(p.prefer, "cuda");

    /* XDG_CACHE_HOME wins over HOME when absolute; garbage thread counts are unset */
    setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
    setenv("TENSORPLAN_THREADS", "3x", 1);
    setenv("TENSORPLAN_ARENA_NO_REUSE", "0", 1);
    tp_env_options_read(&env);
    TP_CHECK_STR(env.cache_dir, "/tmp/xdg-test/tensorplan");
    TP_CHECK_EQ_U64(env.threads, 0);
    TP_CHECK(!env.arena_no_reuse);
    setenv("XDG_CACHE_HOME", "relative/dir", 1);
    tp_env_options_read(&env);
    TP_CHECK_STR(env.cache_dir, "/home/someone/.cache/tensorplan");
    clear_env();
}

int main(void) {
    char home[512] = "";
    const char *h = getenv("HOME");
    if (h) snprintf(home, sizeof home, "%s", h);
    TP_RUN(defaults_ignore_the_environment);
    TP_RUN(read_and_apply);
    if (home[0]) setenv("HOME", home, 1);
    return tp_test_finish();
}
