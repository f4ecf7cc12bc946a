/* The default memory budget: the soft budget of host (or GPU 0) memory. */
#include "cli_budget.h"

#include <stdlib.h>

#include "cli_env.h"

tp_status tp_cli_default_budget(bool gpu, uint64_t *out, char *how, size_t cap, tp_error *err) {
    uint64_t avail;
    const char *what;
    if (gpu) {
        tp_gpu_memory gm;
        tp_status st = tp_sysmem_gpu(tp_cli_env()->cuda_library, 0, &gm, err);
        if (st != TP_OK) return st;
        if (!gm.present) return tp_error_set(err, TP_ERR_UNSUPPORTED, "no GPU: %s", gm.reason);
        avail = gm.free_bytes;
        what = "free GPU memory";
    } else {
        tp_host_memory hm;
        tp_status st = tp_sysmem_host(&hm, err);
        if (st != TP_OK) return st;
        avail = hm.available_bytes;
        what = "available host memory";
    }
    return tp_cli_soft_budget(avail, what, out, how, cap, err);
}

tp_status tp_cli_soft_budget(uint64_t avail_bytes, const char *what, uint64_t *out, char *how,
                             size_t cap, tp_error *err) {
    tp_budget_source src;
    const tp_env_options *env = tp_cli_env();
    tp_status st = tp_sysmem_soft_budget_from(avail_bytes, env->soft_memory_fraction,
                                              env->memory_budget_bytes, out, &src, err);
    if (st != TP_OK) return st;
    char b[32];
    if (src == TP_BUDGET_BYTES_ENV)
        snprintf(how, cap, "from %s", TP_ENV_MEMORY_BUDGET_BYTES);
    else
        snprintf(how, cap, "soft budget: %s x %s %s",
                 src == TP_BUDGET_FRACTION_ENV ? env->soft_memory_fraction : "0.80", what,
                 tp_cli_fmt_bytes(avail_bytes, b, sizeof b));
    return TP_OK;
}
