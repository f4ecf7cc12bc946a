/* The one place the library reads environment variables (tensorplan/env.h),
 * and their application to the option structs of the API. */
#include "tensorplan/env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *env_str(const char *name) {
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static uint32_t env_threads(void) {
    const char *v = env_str(TP_ENV_THREADS);
    if (!v) return 0;
    char *end = NULL;
    long n = strtol(v, &end, 10);
    return end && *end == '\0' && n >= 1 && n <= TP_ENV_THREADS_MAX ? (uint32_t)n : 0;
}

/* XDG Base Directory Specification: XDG_CACHE_HOME when absolute, else
 * $HOME/.cache (https://specifications.freedesktop.org/basedir-spec/latest/). */
static void cache_dir(char *buf, size_t cap) {
    const char *xdg = env_str("XDG_CACHE_HOME"), *home = env_str("HOME");
    int n = 0;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, cap, "%s/tensorplan", xdg);
    else if (home)
        n = snprintf(buf, cap, "%s/.cache/tensorplan", home);
    else
        buf[0] = '\0';
    if (n < 0 || (size_t)n >= cap) buf[0] = '\0'; /* too long: no cache rather than a wrong one */
}

void tp_env_options_read(tp_env_options *out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    const char *no_reuse = getenv(TP_ENV_ARENA_NO_REUSE);
    out->arena_no_reuse = no_reuse && strcmp(no_reuse, "1") == 0;
    out->memory_budget_bytes = env_str(TP_ENV_MEMORY_BUDGET_BYTES);
    out->soft_memory_fraction = env_str(TP_ENV_SOFT_MEMORY_FRACTION);
    out->cuda_library = env_str(TP_ENV_CUDA_LIBRARY);
    out->threads = env_threads();
    out->devices = env_str(TP_ENV_DEVICES);
    out->deny_devices = env_str(TP_ENV_DENY_DEVICES);
    out->prefer_devices = env_str(TP_ENV_PREFER_DEVICES);
    cache_dir(out->cache_dir, sizeof out->cache_dir);
}

void tp_env_apply_alloc(const tp_env_options *env, tp_alloc_options *o) {
    if (env && o && env->arena_no_reuse) o->algo = TP_ALGO_NO_REUSE;
}

void tp_env_apply_plan(const tp_env_options *env, tp_plan_options *o) {
    if (env && o && env->arena_no_reuse) o->algo = TP_ALGO_NO_REUSE;
}

void tp_env_apply_calib(const tp_env_options *env, tp_calib_options *o) {
    if (!env || !o) return;
    if (!o->threads) o->threads = env->threads;
    if (!o->cache_dir && env->cache_dir[0]) o->cache_dir = env->cache_dir;
    if (!o->cuda_library) o->cuda_library = env->cuda_library;
}

void tp_env_apply_device_policy(const tp_env_options *env, tp_device_policy *p) {
    if (!env || !p) return;
    if (!p->allow) p->allow = env->devices;
    if (!p->deny) p->deny = env->deny_devices;
    if (!p->prefer) p->prefer = env->prefer_devices;
}
