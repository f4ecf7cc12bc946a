/* Option groups shared by several subcommands. */
#include "cli_options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int tp_cli_plan_option(const char *cmd, const char *opt, const char *val, tp_plan_options *po) {
    tp_error err;
    tp_error_clear(&err);
    if (strcmp(opt, "--align") == 0) {
        uint64_t v = 0;
        if (!val || !tp_cli_parse_size(val, &v) || !tp_is_pow2_u64(v))
            return tp_cli_usage_error(cmd, "--align needs a power of two, got '%s'",
                                      val ? val : "");
        po->alignment = v;
        return 1;
    }
    if (strcmp(opt, "--algo") == 0) {
        if (!val || tp_alloc_algo_parse(val, &po->algo, &err) != TP_OK)
            return tp_cli_usage_error(cmd, "--algo: %s",
                                      val ? err.msg : "needs a name (greedy, bestfit, ...)");
        return 1;
    }
    return 0;
}

int tp_cli_llm_option(const char *cmd, const char *opt, const char *val, tp_llm_options *llm,
                      bool *used) {
    if (strcmp(opt, "--ctx") == 0 || strcmp(opt, "--seqs") == 0 || strcmp(opt, "--ubatch") == 0 ||
        strcmp(opt, "--batch") == 0) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = val ? strtoull(val, &end, 10) : 0;
        if (!val || end == val || *end || errno || val[0] == '-' || v == 0)
            return tp_cli_usage_error(cmd, "%s needs a positive integer, got '%s'", opt,
                                      val ? val : "");
        if (opt[2] == 'c')
            llm->n_ctx = (uint64_t)v;
        else if (opt[2] == 's')
            llm->n_seq = (uint64_t)v;
        else if (opt[2] == 'b')
            llm->n_batch = (uint64_t)v;
        else
            llm->n_ubatch = (uint64_t)v;
        *used = true;
        return 1;
    }
    bool k = strcmp(opt, "--cache-type-k") == 0, v = strcmp(opt, "--cache-type-v") == 0;
    if (strcmp(opt, "--kv-type") == 0 || k || v) {
        tp_error err;
        tp_dtype t;
        tp_error_clear(&err);
        if (!val || tp_dtype_parse(val, &t, &err) != TP_OK)
            return tp_cli_usage_error(cmd, "%s needs a dtype (f16, q8_0, ...), got '%s'", opt,
                                      val ? val : "");
        if (!v) llm->type_k = t;
        if (!k) llm->type_v = t;
        *used = true;
        return 1;
    }
    if (strcmp(opt, "--repack") == 0) {
        static const char *const names[] = {"auto", "none", "avx2", "avx512"};
        for (int i = 0; val && i < TP_LLM_REPACK_COUNT; i++)
            if (strcmp(val, names[i]) == 0) {
                llm->repack = (tp_llm_repack)i;
                *used = true;
                return 1;
            }
        return tp_cli_usage_error(cmd, "--repack needs auto, none, avx2 or avx512, got '%s'",
                                  val ? val : "");
    }
    /* flags without a value */
    bool *flag = strcmp(opt, "--swa-full") == 0     ? &llm->swa_full
                 : strcmp(opt, "--kv-unified") == 0 ? &llm->kv_unified
                 : strcmp(opt, "--embeddings") == 0 ? &llm->embeddings
                                                    : NULL;
    if (flag || strcmp(opt, "--no-flash-attn") == 0) {
        if (flag)
            *flag = true;
        else
            llm->flash_attn = false;
        *used = true;
        return TP_CLI_OPT_FLAG;
    }
    return 0;
}
