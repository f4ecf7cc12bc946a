/* estimate MODEL --devices GPUS --emit vllm: vLLM's KV block pool per GPU and the
 * launch flags that fit (tensorplan/vllm.h), as a table or JSON. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_llm_vllm.h"

#define VL_OFF(f) offsetof(tp_vllm_options, f)

static int apply_kv_dtype(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o;
    uint64_t *b = dest;
    if (strcmp(val, "auto") == 0)
        *b = 0;
    else if (strcmp(val, "fp8") == 0 || strcmp(val, "fp8_e4m3") == 0 ||
             strcmp(val, "fp8_e5m2") == 0)
        *b = 1;
    else
        return tp_cli_usage_error(ctx->cmd, "%s needs auto or fp8, got '%s'", ctx->spelled, val);
    return 0;
}

const tp_cli_opt tp_cli_vllm_opts[] = {
    {.name = "gpu-memory-utilization",
     .kind = TP_OPT_REAL,
     .takes = true,
     .dest = VL_OFF(gpu_memory_utilization),
     .value = "F",
     .dmin = 0.01,
     .dmax = 1.0,
     .what = "a fraction in (0, 1]",
     .help = "--emit vllm: share of each GPU vLLM may take (default 0.9)"},
    TP_OPT_INT_ROW("tensor-parallel-size", tp_vllm_options, tensor_parallel, "N", 1, 1024,
                   "--emit vllm: tensor parallel size (default: over every GPU, the\nlargest power "
                   "of two that suits the heads)"),
    TP_OPT_INT_ROW(
        "pipeline-parallel-size", tp_vllm_options, pipeline_parallel, "N", 1, 1024,
        "--emit vllm: pipeline parallel size (default: the GPUs / tensor parallel size)"),
    TP_OPT_INT_ROW("max-num-batched-tokens", tp_vllm_options, max_num_batched_tokens, "N", 1,
                   1u << 24, "--emit vllm: tokens of vLLM's profiling pass (default 8192)"),
    TP_OPT_INT_ROW("max-num-seqs", tp_vllm_options, max_num_seqs, "N", 1, 1u << 20,
                   "--emit vllm: sequences of the sampler pass (default 256)"),
    {.name = "kv-cache-dtype",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .dest = VL_OFF(kv_dtype_bytes),
     .value = "auto|fp8",
     .what = "auto or fp8",
     .choices = "auto fp8",
     .apply = apply_kv_dtype,
     .help = "--emit vllm: KV cache dtype (auto: the model's, 2 bytes; fp8: 1)"},
    {.name = "vllm-activation",
     .kind = TP_OPT_SIZE,
     .takes = true,
     .dest = VL_OFF(activation_bytes),
     .value = "SIZE",
     .help = "--emit vllm: the activation peak per GPU (from vLLM's log) instead\n"
             "of the assumed formula"},
    TP_CLI_END,
};

/* The vllm serve command line of the plan (a checkpoint is served from its folder). */
static void vllm_flags(const char *path, const tp_vllm_options *o, const tp_vllm_plan *p, char *buf,
                       size_t cap) {
    char model[1024];
    snprintf(model, sizeof model, "%s", path);
    size_t n = strlen(model);
    if (n >= 11 && strcmp(model + n - 11, "config.json") == 0) {
        model[n - 11] = '\0';
        if (n > 11 && model[n - 12] == '/') model[n - 12] = '\0';
        if (!model[0]) snprintf(model, sizeof model, ".");
    }
    int w = snprintf(buf, cap,
                     "vllm serve %s --tensor-parallel-size %llu --pipeline-parallel-size %llu "
                     "--max-model-len %llu --gpu-memory-utilization %.2f",
                     model, (unsigned long long)p->tensor_parallel,
                     (unsigned long long)p->pipeline_parallel, (unsigned long long)p->max_model_len,
                     o->gpu_memory_utilization);
    if (w > 0 && (size_t)w < cap && o->kv_dtype_bytes == 1)
        snprintf(buf + w, cap - (size_t)w, " --kv-cache-dtype fp8");
}

static void print_json(const char *model, const tp_vllm_options *o, const tp_vllm_plan *p,
                       const char *flags) {
    const tp_vllm_rank *r = &p->rank;
    tp_json j;
    tp_json_init(&j, stdout, true);
    tp_json_begin_object(&j);
    tp_json_kv_str(&j, "schema", "tensorplan.vllm_plan/1");
    tp_json_kv_str(&j, "tensorplan_version", tp_version());
    tp_json_kv_str(&j, "model", model);
    tp_json_kv_str(&j, "engine", "vllm");
    tp_json_kv_bool(&j, "fits", p->fits);
    tp_json_kv_str(&j, "vllm_flags", flags);
    tp_json_key(&j, "vllm");
    tp_json_begin_object(&j);
    tp_json_kv_u64(&j, "n_gpus", p->n_gpus);
    tp_json_kv_u64(&j, "gpu_bytes", p->gpu_bytes);
    tp_json_kv_u64(&j, "tensor_parallel_size", p->tensor_parallel);
    tp_json_kv_u64(&j, "pipeline_parallel_size", p->pipeline_parallel);
    tp_json_kv_u64(&j, "max_model_len", p->max_model_len);
    tp_json_kv_u64(&j, "max_model_len_fit", p->max_model_len_fit);
    tp_json_kv_f64(&j, "gpu_memory_utilization", o->gpu_memory_utilization);
    tp_json_kv_u64(&j, "budget_bytes", r->budget_bytes);
    tp_json_kv_u64(&j, "weight_bytes", r->weight_bytes);
    tp_json_kv_u64(&j, "activation_bytes", r->activation_bytes);
    tp_json_kv_str(&j, "activation_basis", o->activation_bytes ? "given" : "assumed");
    tp_json_kv_u64(&j, "non_torch_bytes", r->non_torch_bytes);
    tp_json_kv_str(&j, "non_torch_basis", o->non_torch_bytes != UINT64_MAX ? "given" : "assumed");
    tp_json_kv_u64(&j, "kv_pool_bytes", r->kv_pool_bytes);
    tp_json_kv_u64(&j, "kv_block_bytes", r->kv_bytes_per_block_all_layers);
    tp_json_kv_u64(&j, "num_gpu_blocks", r->num_blocks);
    tp_json_kv_u64(&j, "kv_bytes_for_max_model_len", p->kv_bytes_for_len);
    tp_json_kv_f64(&j, "max_concurrency", p->max_concurrency);
    tp_json_end_object(&j);
    tp_json_end_object(&j);
    tp_json_finish(&j);
}

static void print_text(const char *model, const tp_vllm_options *o, const tp_vllm_plan *p,
                       const char *flags) {
    const tp_vllm_rank *r = &p->rank;
    char b[8][32];
    printf("%s on %llu GPU(s) of %s, as vLLM sizes it (tensor parallel %llu, pipeline %llu)\n",
           model, (unsigned long long)p->n_gpus, tp_cli_fmt_bytes(p->gpu_bytes, b[0], 32),
           (unsigned long long)p->tensor_parallel, (unsigned long long)p->pipeline_parallel);
    printf("  per GPU (the fullest rank):\n");
    printf("    budget        %10s  (%.2f x the GPU)\n",
           tp_cli_fmt_bytes(r->budget_bytes, b[1], 32), o->gpu_memory_utilization);
    printf("    weights       %10s  (its shard, rotary cache included)\n",
           tp_cli_fmt_bytes(r->weight_bytes, b[2], 32));
    printf("    activation    %10s  (%s: profiling pass of %llu tokens, sampler of %llu rows)\n",
           tp_cli_fmt_bytes(r->activation_bytes, b[3], 32),
           o->activation_bytes ? "given" : "ASSUMED formula",
           (unsigned long long)o->max_num_batched_tokens, (unsigned long long)o->max_num_seqs);
    printf("    non-torch     %10s  (%s)\n", tp_cli_fmt_bytes(r->non_torch_bytes, b[4], 32),
           o->non_torch_bytes != UINT64_MAX ? "given" : "ASSUMED: NCCL, cuBLAS handles");
    printf("    KV pool       %10s  (%llu blocks of %llu tokens in %llu layers)\n",
           tp_cli_fmt_bytes(r->kv_pool_bytes, b[5], 32), (unsigned long long)r->num_blocks,
           (unsigned long long)o->block_size, (unsigned long long)r->layers);
    printf("  max-model-len %llu needs %s of KV per GPU: %s (longest that fits: %llu; "
           "%.1f such requests at once)\n",
           (unsigned long long)p->max_model_len, tp_cli_fmt_bytes(p->kv_bytes_for_len, b[6], 32),
           p->fits ? "fits" : "DOES NOT FIT", (unsigned long long)p->max_model_len_fit,
           p->max_concurrency);
    uint64_t used = r->weight_bytes + r->activation_bytes + r->non_torch_bytes;
    if (!r->kv_pool_bytes && used > r->budget_bytes)
        printf("  the weights, activation and non-torch memory exceed the budget by %s on the "
               "fullest GPU: more GPUs or a smaller checkpoint are needed\n",
               tp_cli_fmt_bytes(used - r->budget_bytes, b[7], 32));
    printf("vllm: %s\n", flags);
}

int tp_cli_vllm_run(const char *cmd, const char *model, const tp_llm_config *c,
                    const tp_llm_device_set *ds, const tp_llm_options *lo,
                    const tp_vllm_options *vo, bool json) {
    tp_vllm_options o = *vo;
    if (!o.max_model_len) o.max_model_len = lo->n_ctx;
    tp_vllm_plan p;
    tp_error err;
    tp_status st = tp_vllm_plan_compute(c, ds, &o, &p, &err);
    if (st != TP_OK) {
        tp_cli_error(cmd, &err);
        return tp_cli_exit_for(st);
    }
    char flags[1200];
    vllm_flags(model, &o, &p, flags, sizeof flags);
    if (json)
        print_json(model, &o, &p, flags);
    else
        print_text(model, &o, &p, flags);
    return p.fits ? 0 : TP_EXIT_OVER_BUDGET;
}
