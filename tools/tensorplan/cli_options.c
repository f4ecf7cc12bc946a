/* Option groups shared by several subcommands. */
#include "cli_options.h"

#include <string.h>

int tp_cli_apply_f32_uniform(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val,
                             void *dest) {
    (void)ctx, (void)o, (void)val;
    ((tp_plan_options *)dest)->width = TP_WIDTH_F32_UNIFORM;
    return 0;
}

const tp_cli_opt tp_cli_plan_opts[] = {
    TP_OPT_ALIGN_ROW(tp_plan_options, alignment, "arena alignment, a power of two (default 64)"),
    TP_OPT_ALGO_ROW(tp_plan_options, algo,
                    "allocator for the activation plan (default greedy; noreuse,\n"
                    "bestfit, exact, auto)"),
    TP_OPT_UNSET_ROW("no-inplace", tp_plan_options, inplace,
                     "disable in-place reuse for elementwise ops"),
    {.name = "f32-uniform",
     .kind = TP_OPT_CUSTOM,
     .apply = tp_cli_apply_f32_uniform,
     .help = "size activations as elements x 4 bytes"},
    TP_CLI_END,
};

/* --kv-type sets K and V, --cache-type-k K only, --cache-type-v V only. */
static int apply_kv_type(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    tp_llm_options *llm = dest;
    tp_error err;
    tp_dtype t;
    tp_error_clear(&err);
    if (tp_dtype_parse(val, &t, &err) != TP_OK)
        return tp_cli_usage_error(ctx->cmd, "%s needs %s, got '%s'", ctx->spelled, o->what, val);
    bool k = strcmp(o->name, "cache-type-k") == 0, v = strcmp(o->name, "cache-type-v") == 0;
    if (!v) llm->type_k = t;
    if (!k) llm->type_v = t;
    return 0;
}

static int apply_repack(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    for (int i = 0; i < TP_LLM_REPACK_COUNT; i++)
        if (strcmp(val, tp_llm_repack_name((tp_llm_repack)i)) == 0) {
            ((tp_llm_options *)dest)->repack = (tp_llm_repack)i;
            return 0;
        }
    return tp_cli_usage_error(ctx->cmd, "%s needs %s, got '%s'", ctx->spelled, o->what, val);
}

#define LLM_COUNT(nm, field, hlp)                                                                  \
    TP_OPT_INT_ROW(nm, tp_llm_options, field, "N", 1, UINT64_MAX, ".gguf: " hlp)
#define LLM_KV(nm, hlp)                                                                            \
    {                                                                                              \
        .name = nm, .kind = TP_OPT_CUSTOM, .takes = true, .value = "T",                            \
        .what = "a dtype (f16, q8_0, ...)",                                                        \
        .choices = "f32 f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1 iq4_nl", .apply = apply_kv_type,         \
        .help = ".gguf: " hlp                                                                      \
    }

const tp_cli_opt tp_cli_llm_opts[] = {
    LLM_COUNT("ctx", n_ctx, "context length (default: the model's)"),
    LLM_COUNT("seqs", n_seq, "parallel sequences (default 1)"),
    LLM_COUNT("ubatch", n_ubatch, "tokens per forward pass (default 512)"),
    LLM_COUNT("batch", n_batch, "logical batch (default 2048; caps --ubatch)"),
    LLM_KV("kv-type", "KV cache element type, K and V (default f16; q8_0, ...)"),
    LLM_KV("cache-type-k", "K cache type"),
    LLM_KV("cache-type-v", "V cache type"),
    TP_OPT_FLAG_ROW("swa-full", tp_llm_options, swa_full,
                    ".gguf: full-size cache for sliding-window layers"),
    TP_OPT_FLAG_ROW("kv-unified", tp_llm_options, kv_unified,
                    ".gguf: one KV stream shared by all sequences"),
    TP_OPT_UNSET_ROW("no-flash-attn", tp_llm_options, flash_attn,
                     ".gguf: without flash attention (f32 masks, KQ matrix)"),
    TP_OPT_FLAG_ROW("embeddings", tp_llm_options, embeddings,
                    ".gguf: the context also outputs embeddings"),
    {.name = "repack",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .value = "R",
     .what = "auto, none, avx2, avx512 or amx",
     .choices = "auto none avx2 avx512 amx",
     .apply = apply_repack,
     .help = ".gguf: CPU weight repack auto|none|avx2|avx512|amx (default auto)"},
    TP_CLI_END,
};
