/* tensorplan estimate — will the model fit? Activations, weights, inputs, peak,
 * the budget (default: this machine's soft budget) and the deficit. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cli_budget.h"
#include "cli_env.h"
#include "cli_llm_devices.h"
#include "cli_llm_speed.h"
#include "cli_llm_sweep.h"
#include "cli_llm_wtypes.h"
#include "cli_model.h"
#include "cli_options.h"
#include "tensorplan/estimate.h"
#include "tensorplan/runtime.h"
#include "tensorplan/sysmem.h"

typedef struct est_args {
    tp_cli_model_args model; /* model.gguf: LLM mode */
    tp_estimate_options eo;
    bool json, gpu, has_budget, has_moe;
    bool moe_auto; /* --moe auto[,MAX]: the layout from the .gguf's expert tensors */
    uint64_t budget;
    tp_moe_config moe;
    tp_llm_options llm;
    bool llm_opts;         /* an LLM-only option was given */
    tp_runtime_options ro; /* --runtime and its onnxruntime options */
    bool has_sweep;
    tp_cli_llm_sweep sweep;   /* --sweep ctx=...: peaks per context and KV type */
    tp_cli_llm_wtypes wtypes; /* --weights-type LIST */
    bool has_wtypes;
    tp_cli_devices_args dev; /* --devices SPEC ...: per-device placement (llama.cpp) */
    tp_cli_llm_speed speed;  /* --speed DEVICES: llama-bench pp/tg tokens per second */
} est_args;

/* "E,L,SIZE[,MAX]" */
static bool parse_moe(const char *s, tp_moe_config *m) {
    char buf[128];
    if (strlen(s) >= sizeof buf) return false;
    strcpy(buf, s);
    char *parts[5] = {0};
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && n < 5;
         t = strtok_r(NULL, ",", &save))
        parts[n++] = t;
    if (n < 3 || n > 4) return false;
    uint64_t v[4] = {0, 0, 0, 0};
    for (int k = 0; k < n; k++) {
        if (k == 2) {
            if (!tp_cli_parse_size(parts[k], &v[k])) return false;
        } else {
            char *end = NULL;
            errno = 0;
            unsigned long long u = strtoull(parts[k], &end, 10);
            if (end == parts[k] || *end || errno || parts[k][0] == '-') return false;
            v[k] = (uint64_t)u;
        }
    }
    m->experts_per_layer = v[0];
    m->moe_layers = v[1];
    m->expert_bytes = v[2];
    m->max_device_experts = n == 4 ? v[3] : v[0];
    return true;
}

/* --moe E,L,SIZE[,MAX] or auto[,MAX] (dest: the est_args) */
static int apply_moe(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o;
    est_args *a = dest;
    if (strncmp(val, "auto", 4) == 0 && (val[4] == '\0' || val[4] == ',')) {
        char *end = NULL;
        errno = 0;
        a->moe_auto = true;
        a->moe.max_device_experts = UINT64_MAX;
        if (val[4] == ',') {
            unsigned long long mx = strtoull(val + 5, &end, 10);
            if (end == val + 5 || *end || errno || val[5] == '-')
                return tp_cli_usage_error(ctx->cmd, "--moe auto,MAX needs an integer MAX, got '%s'",
                                          val);
            a->moe.max_device_experts = (uint64_t)mx;
        }
        return 0;
    }
    if (!parse_moe(val, &a->moe))
        return tp_cli_usage_error(ctx->cmd,
                                  "--moe needs EXPERTS,LAYERS,EXPERT_SIZE[,MAX], got '%s'", val);
    return 0;
}

static int apply_runtime(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    tp_error re;
    if (tp_runtime_parse(val, (tp_runtime_kind *)dest, &re) != TP_OK)
        return tp_cli_usage_error(ctx->cmd, "--runtime needs %s, got '%s'", o->what, val);
    return 0;
}

static int apply_arena_extend(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val,
                              void *dest) {
    tp_ort_options *ort = dest;
    if (strcmp(val, "next-power-of-two") == 0)
        ort->arena_extend = TP_ORT_ARENA_NEXT_POWER_OF_TWO;
    else if (strcmp(val, "same-as-requested") == 0)
        ort->arena_extend = TP_ORT_ARENA_SAME_AS_REQUESTED;
    else
        return tp_cli_usage_error(ctx->cmd, "%s needs %s, got '%s'", ctx->spelled, o->what, val);
    return 0;
}

static int apply_wtypes(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o;
    int r = tp_cli_llm_wtypes_parse(ctx->cmd, val, dest);
    return r == 1 ? 0 : r;
}

/* --sweep ctx=LIST and --sweep-kv LIST (dest: the tp_cli_llm_sweep) */
static int apply_sweep(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    int r = strcmp(o->name, "sweep") == 0 ? tp_cli_llm_sweep_parse(ctx->cmd, val, dest)
                                          : tp_cli_llm_sweep_parse_kv(ctx->cmd, val, dest);
    return r == 1 ? 0 : r;
}

#define ORT_OFF(field)                                                                             \
    (offsetof(est_args, ro) + offsetof(tp_runtime_options, ort) + offsetof(tp_ort_options, field))

static const tp_cli_opt estimate_opts[] = {
    TP_CLI_MODEL(est_args, model),
    TP_OPT_BUDGET_ROW(est_args, budget, has_budget),
    TP_OPT_FLAG_ROW("gpu", est_args, gpu,
                    "default budget from GPU 0's free memory instead of the host's"),
    {.name = "moe",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .seen = TP_CLI_SEEN(est_args, has_moe),
     .value = "E,L,SIZE[,MAX]",
     .what = "EXPERTS,LAYERS,EXPERT_SIZE[,MAX]",
     .apply = apply_moe,
     .help = "MoE offload: E experts per layer in L MoE layers, SIZE\n"
             "bytes per expert, at most MAX per layer on the device\n"
             "(default E); the device budget is the budget\n"
             ".gguf: --moe auto[,MAX] takes E, L and SIZE from the\n"
             "model's stacked expert tensors (*_exps)"},
    TP_OPT_REAL_ROW("moe-reserve", est_args, moe.reserve_fraction, "R", 0.0, 1.0,
                    "a fraction in [0, 1]",
                    "fraction of the device budget kept free (default 0.1)"),
    TP_CLI_LLM(est_args, llm, llm_opts),
    TP_CLI_DEVICES(est_args, dev),
    {.name = "sweep",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .dest = offsetof(est_args, sweep),
     .seen = TP_CLI_SEEN(est_args, has_sweep),
     .value = "ctx=LIST",
     .what = "ctx=N,N,... (e.g. ctx=4k,8k,32k)",
     .apply = apply_sweep,
     .help = ".gguf: peak per context (4k,8k,32k,128k; k = 1024) and KV\n"
             "type (--sweep-kv LIST) in one table"},
    {.name = "sweep-kv",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .dest = offsetof(est_args, sweep),
     .seen = TP_CLI_SEEN(est_args, has_sweep),
     .value = "LIST",
     .what = "types (f16,q8_0,q4_0)",
     .apply = apply_sweep,
     .help = ".gguf: KV cache types of the sweep (default f16,q8_0,q4_0)"},
    {.name = "weights-type",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .dest = offsetof(est_args, wtypes),
     .seen = TP_CLI_SEEN(est_args, has_wtypes),
     .value = "T[,T...]",
     .what = "llama.cpp file types (q8_0,q4_k_m,...)",
     .apply = apply_wtypes,
     .help = "LLM: weights as llama-quantize would write them in file\n"
             "type T (f16, bf16, q8_0, q4_0, q4_k_m, q5_k_s, q6_k, iq4_xs,\n"
             "...); one type: the estimate uses it; a list: a table of\n"
             "model bytes and peak per type"},
    TP_OPT_STRING_ROW("speed", est_args, speed.devices, "DEVICES",
                      ".gguf: prefill and decode tokens per second as\n"
                      "llama-bench measures them (pp512, tg128) on each device:\n"
                      "cpu (this machine, calibrated), catalog names\n"
                      "(h100-sxm, rpi5, ...); comma-separated"),
    TP_OPT_U32_ROW("threads", est_args, speed.threads, "N", 1, 4096,
                   "--speed: CPU threads (llama-bench -t; default: all)"),
    TP_OPT_INT_ROW("prompt", est_args, speed.n_prompt, "N", 1, 1 << 24,
                   "--speed: prompt tokens of the prefill test (default 512)"),
    TP_OPT_INT_ROW("gen", est_args, speed.n_gen, "N", 1, 1 << 24,
                   "--speed: generated tokens of the decode test (default 128)"),
    TP_OPT_INT_ROW("depth", est_args, speed.n_depth, "N", 0, 1 << 24,
                   "--speed: tokens already in the KV cache before both tests\n"
                   "(llama-bench -d; default 0)"),
    TP_CLI_PLAN(est_args, eo.plan),
    {.name = "runtime",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .dest = offsetof(est_args, ro.runtime),
     .value = "NAME",
     .what = "plan, onnxruntime or llama.cpp",
     .choices = "plan onnxruntime llama.cpp",
     .apply = apply_runtime,
     .help = "whose memory to predict: plan (default: the best plan),\n"
             "onnxruntime (CPU EP; docs/runtime.md), llama.cpp (.gguf)"},
    {.name = "ort-no-mem-pattern",
     .kind = TP_OPT_UNSET,
     .dest = ORT_OFF(mem_pattern),
     .help = "onnxruntime session without the memory pattern"},
    {.name = "ort-no-arena",
     .kind = TP_OPT_UNSET,
     .dest = ORT_OFF(cpu_arena),
     .help = "onnxruntime session without the CPU arena"},
    {.name = "ort-no-prepack",
     .kind = TP_OPT_UNSET,
     .dest = ORT_OFF(prepacking),
     .help = "onnxruntime session without weight pre-packing"},
    {.name = "ort-no-output-copy",
     .kind = TP_OPT_UNSET,
     .dest = ORT_OFF(copy_outputs),
     .help = "onnxruntime called from C/C++: no binding copies the outputs\n"
             "(onnxruntime-node and Python copy them: counted by default)"},
    {.name = "ort-arena-extend",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .dest = offsetof(est_args, ro.ort),
     .value = "RULE",
     .what = "next-power-of-two or same-as-requested",
     .choices = "next-power-of-two same-as-requested",
     .apply = apply_arena_extend,
     .help = "onnxruntime arena growth: next-power-of-two (default)\n"
             "or same-as-requested"},
    {.name = "ort-threads",
     .kind = TP_OPT_INT,
     .takes = true,
     .dest = ORT_OFF(intra_op_threads),
     .u32 = true,
     .imax = 4096,
     .value = "N",
     .help = "onnxruntime intra-op threads (0: its default)"},
    TP_CLI_COMMON(est_args, json),
    TP_CLI_END,
};

const tp_cli_command tp_cli_estimate_command = {
    .name = "estimate",
    .summary = "estimate peak memory (activations + weights + inputs) and check a budget",
    .synopsis = "[MODEL | --demo] [--dim NAME=VALUE]... [options]\n"
                "MODEL.gguf [--ctx N] [--seqs N] [--ubatch N]\n"
                " [--kv-type T] [options]",
    .description = "Estimate the memory a model needs before loading any weight:\n"
                   "  activations  arena of a plan of the non-boundary buffers\n"
                   "  weights      params + constants (tied params counted once)\n"
                   "  inputs       sum of the graph inputs\n"
                   "  peak         activations + weights + inputs\n"
                   "and compare the peak with a budget.\n"
                   "A .gguf LLM is estimated from its metadata as llama.cpp allocates it (CPU\n"
                   "backend): model buffers, context (KV cache per layer, sliding-window layers\n"
                   "sized to their window), output buffer, and an upper-bound formula of the\n"
                   "compute buffer for one --ubatch; 'activations' is then KV + output + compute.",
    .opts = estimate_opts,
    .examples = "tensorplan estimate --demo --budget 512MiB\n"
                "tensorplan estimate --demo --dim seq=1024 --dim batch=4 --json\n"
                "tensorplan estimate --demo --moe 8,2,10MiB,2 --budget 200MiB\n"
                "tensorplan estimate model.gguf --sweep ctx=4k,8k,32k,128k --budget 24GiB",
    .notes = "Human output uses binary units (1 MiB = 1048576 bytes); JSON has raw bytes.\n"
             "Exit codes: 0 fits, 1 error, 2 usage error, 3 the peak exceeds the budget.",
    .json_help = "machine-readable output (raw byte counts)",
};

static int parse_args(est_args *a, int argc, char **argv) {
    const char *cmd = "estimate";
    memset(a, 0, sizeof *a);
    tp_cli_model_args_init(&a->model);
    a->model.accept_gguf = true;
    tp_estimate_options_default(&a->eo);
    tp_env_apply_plan(tp_cli_env(), &a->eo.plan);
    a->moe.reserve_fraction = 0.1;
    tp_llm_options_default(&a->llm);
    tp_runtime_options_default(&a->ro);
    tp_cli_llm_devices_init(&a->dev);
    int rc = tp_cli_parse(&tp_cli_estimate_command, argc, argv, a);
    if (rc) return rc;
    a->llm_opts = a->llm_opts || a->has_sweep || a->has_wtypes;
    if (a->has_wtypes && (rc = tp_cli_llm_wtypes_check(cmd, &a->wtypes)) != 0) return rc;
    if (a->has_wtypes && (a->dev.devices || a->speed.devices))
        return tp_cli_usage_error(cmd, "--weights-type does not combine with --devices or "
                                       "--speed yet");
    if (a->model.gguf && (a->model.demo || a->model.dims.n))
        return tp_cli_usage_error(cmd, "a .gguf model takes --ctx/--seqs/--ubatch/--kv-type, not "
                                       "--demo, another model or --dim");
    if (!a->model.gguf && a->moe_auto)
        return tp_cli_usage_error(cmd, "--moe auto reads the expert layout of a .gguf model; "
                                       "give E,L,SIZE[,MAX] for other models");
    if (!a->model.gguf && a->llm_opts)
        return tp_cli_usage_error(cmd, "--ctx, --seqs, --ubatch and --kv-type apply to .gguf "
                                       "models");
    if (a->dev.devices && !a->model.gguf)
        return tp_cli_usage_error(cmd, "--devices places a .gguf model");
    if (!a->speed.devices &&
        (a->speed.threads || a->speed.n_prompt || a->speed.n_gen || a->speed.n_depth))
        return tp_cli_usage_error(cmd, "--threads, --prompt, --gen and --depth go with --speed");
    if (a->speed.devices && (!a->model.gguf || a->dev.devices))
        return tp_cli_usage_error(cmd, "--speed predicts a .gguf model (without --devices)");
    if (a->has_budget && a->gpu)
        return tp_cli_usage_error(cmd, "--gpu chooses the default budget; drop it or --budget");
    return 0;
}

/* This machine's memory, as far as it could be read. */
typedef struct mem_view {
    bool host_ok, gpu_queried;
    tp_error host_err;
    tp_host_memory hm;
    uint64_t rss;
    tp_gpu_memory gm;
} mem_view;

static void read_memory(bool gpu, mem_view *mv) {
    memset(mv, 0, sizeof *mv);
    tp_error e;
    tp_error_clear(&mv->host_err);
    mv->host_ok = tp_sysmem_host(&mv->hm, &mv->host_err) == TP_OK;
    if (tp_sysmem_process_rss(&mv->rss, &e) != TP_OK) mv->rss = 0;
    if (gpu) mv->gpu_queried = tp_sysmem_gpu(tp_cli_env()->cuda_library, 0, &mv->gm, &e) == TP_OK;
}

/* The default budget: the soft budget of the host (or GPU 0) memory. */
static tp_status default_budget(bool gpu, const mem_view *mv, uint64_t *out, char *how, size_t cap,
                                tp_error *err) {
    uint64_t avail;
    const char *what;
    if (gpu) {
        if (!mv->gpu_queried || !mv->gm.present)
            return tp_error_set(err, TP_ERR_UNSUPPORTED, "no GPU: %s",
                                mv->gpu_queried ? mv->gm.reason : "query failed");
        avail = mv->gm.free_bytes;
        what = "free GPU memory";
    } else {
        if (!mv->host_ok) {
            if (err) *err = mv->host_err;
            return mv->host_err.status;
        }
        avail = mv->hm.available_bytes;
        what = "available host memory";
    }
    return tp_cli_soft_budget(avail, what, out, how, cap, err);
}

static void json_memory(tp_json *j, const mem_view *mv) {
    tp_json_key(j, "memory");
    tp_json_begin_object(j);
    if (mv->host_ok) {
        tp_json_kv_u64(j, "host_total_bytes", mv->hm.total_bytes);
        tp_json_kv_u64(j, "host_available_bytes", mv->hm.available_bytes);
        tp_json_kv_i64(j, "cgroup_version", mv->hm.cgroup.version);
        tp_json_kv_bool(j, "cgroup_limited", mv->hm.cgroup.limited);
        if (mv->hm.cgroup.limited)
            tp_json_kv_u64(j, "cgroup_limit_bytes", mv->hm.cgroup.limit_bytes);
    }
    tp_json_kv_u64(j, "process_rss_bytes", mv->rss);
    if (mv->gpu_queried) {
        tp_json_key(j, "gpu");
        tp_json_begin_object(j);
        tp_json_kv_bool(j, "present", mv->gm.present);
        if (mv->gm.present) {
            tp_json_kv_str(j, "name", mv->gm.name);
            tp_json_kv_u64(j, "total_bytes", mv->gm.total_bytes);
            tp_json_kv_u64(j, "free_bytes", mv->gm.free_bytes);
        } else {
            tp_json_kv_str(j, "reason", mv->gm.reason);
        }
        tp_json_end_object(j);
    }
    tp_json_end_object(j);
}

/* LLM mode figures (NULL otherwise). */
typedef struct llm_view {
    const tp_llm_config *c;
    const tp_llm_estimate *le;
    const tp_llm_options *o;
} llm_view;

static void json_runtime(tp_json *j, const est_args *a, const tp_runtime_estimate *rt) {
    tp_json_key(j, "runtime");
    tp_json_begin_object(j);
    tp_json_kv_str(j, "name", tp_runtime_name(rt->runtime));
    tp_json_kv_u64(j, "peak_bytes", rt->peak_bytes);
    tp_json_kv_u64(j, "plan_peak_bytes", rt->plan_peak_bytes);
    tp_json_kv_u64(j, "over_plan_bytes", tp_sat_sub_u64(rt->peak_bytes, rt->plan_peak_bytes));
    tp_json_key(j, "terms");
    tp_json_begin_object(j);
    tp_json_kv_u64(j, "session_fixed_bytes", rt->session_fixed_bytes);
    tp_json_kv_u64(j, "graph_bytes", rt->graph_bytes);
    tp_json_kv_u64(j, "model_copy_bytes", rt->model_copy_bytes);
    tp_json_kv_u64(j, "weight_bytes", rt->weight_bytes);
    tp_json_kv_u64(j, "prepacked_bytes", rt->prepacked_bytes);
    tp_json_kv_u64(j, "arena_bytes", rt->arena_bytes);
    tp_json_kv_u64(j, "input_bytes", rt->input_bytes);
    tp_json_kv_u64(j, "output_copy_bytes", rt->output_copy_bytes);
    tp_json_kv_u64(j, "calibration_margin_bytes", rt->calibration_margin_bytes);
    tp_json_end_object(j);
    if (rt->runtime == TP_RUNTIME_ONNXRUNTIME) {
        tp_json_kv_u64(j, "activation_plan_bytes", rt->activation_plan_bytes);
        tp_json_kv_u64(j, "arena_first_run_bytes", rt->arena_first_run_bytes);
        tp_json_kv_u64(j, "mem_pattern_bytes", rt->mem_pattern_bytes);
        tp_json_kv_u64(j, "arena_emulated_bytes", rt->arena_emulated_bytes);
        tp_json_kv_u64(j, "load_transient_bytes", rt->load_transient_bytes);
        tp_json_kv_u64(j, "node_count", rt->node_count);
        tp_json_kv_u64(j, "model_file_bytes", a->ro.ort.model_file_bytes);
        tp_json_kv_u64(j, "conv_weight_bytes", rt->conv_weight_bytes);
        tp_json_kv_u64(j, "conv_nchwc_weight_bytes", rt->conv_nchwc_weight_bytes);
        tp_json_kv_u64(j, "conv_flat_weight_bytes", rt->conv_flat_weight_bytes);
        tp_json_kv_u64(j, "gemm_weight_bytes", rt->gemm_weight_bytes);
        tp_json_kv_u64(j, "other_weight_bytes", rt->other_weight_bytes);
        tp_json_kv_u64(j, "body_weight_bytes", rt->body_weight_bytes);
        tp_json_kv_u64(j, "heap_emulated_weight_bytes", rt->heap_emulated_weight_bytes);
        tp_json_kv_u64(j, "heap_emulated_bytes", rt->heap_emulated_bytes);
        tp_json_kv_u64(j, "arena_in_holes_bytes", rt->arena_in_holes_bytes);
        tp_json_kv_u64(j, "arena_reserved_bytes", rt->arena_reserved_bytes);
        tp_json_kv_str(j, "session_fixed_source", rt->fixed_source);
        tp_json_kv_str(j, "not_modelled", rt->not_modelled ? rt->not_modelled : "");
        tp_json_key(j, "options");
        tp_json_begin_object(j);
        tp_json_kv_bool(j, "mem_pattern", a->ro.ort.mem_pattern);
        tp_json_kv_bool(j, "cpu_arena", a->ro.ort.cpu_arena);
        tp_json_kv_str(j, "arena_extend_strategy",
                       a->ro.ort.arena_extend == TP_ORT_ARENA_NEXT_POWER_OF_TWO
                           ? "next-power-of-two"
                           : "same-as-requested");
        tp_json_kv_bool(j, "prepacking", a->ro.ort.prepacking);
        tp_json_kv_u64(j, "intra_op_threads", a->ro.ort.intra_op_threads);
        tp_json_kv_bool(j, "copy_outputs", a->ro.ort.copy_outputs);
        tp_json_end_object(j);
    }
    tp_json_end_object(j);
}

static const char *model_label(const est_args *a) {
    return a->model.gguf ? a->model.gguf : tp_cli_model_label(&a->model);
}

static void print_json(const est_args *a, const tp_graph *g, const tp_estimate *e, uint64_t budget,
                       const char *how, bool fits, const tp_deficit *d, const tp_moe_plan *m,
                       const char *msg, const llm_view *lv, const mem_view *mv,
                       const tp_runtime_estimate *rt) {
    tp_json j;
    tp_json_init(&j, stdout, true);
    tp_json_begin_object(&j);
    tp_json_kv_str(&j, "schema", "tensorplan.estimate/1");
    tp_json_kv_str(&j, "tensorplan_version", tp_version());
    tp_json_kv_str(&j, "model", model_label(a));
    tp_json_kv_u64(&j, "weights_bytes", e->weight_bytes);
    tp_json_kv_u64(&j, "activations_bytes", e->activation_bytes);
    tp_json_kv_u64(&j, "inputs_bytes", e->input_bytes);
    tp_json_kv_u64(&j, "peak_bytes", e->peak_bytes);
    tp_json_kv_u64(&j, "param_bytes", e->param_bytes);
    tp_json_kv_u64(&j, "constant_bytes", e->constant_bytes);
    tp_json_kv_u64(&j, "tied_params_skipped", e->tied_params_skipped);
    tp_cli_model_json_assumptions(&j, g);
    tp_json_kv_u64(&j, "budget_bytes", budget);
    tp_json_kv_str(&j, "budget_source", how);
    tp_json_kv_bool(&j, "fits", fits);
    tp_json_kv_u64(&j, "deficit_bytes", d->deficit_bytes);
    tp_json_kv_u64(&j, "headroom_bytes", tp_sat_sub_u64(budget, d->peak_bytes));
    if (m) {
        tp_json_key(&j, "moe");
        tp_json_begin_object(&j);
        tp_json_kv_u64(&j, "experts_per_layer", a->moe.experts_per_layer);
        tp_json_kv_u64(&j, "moe_layers", a->moe.moe_layers);
        tp_json_kv_u64(&j, "expert_bytes", a->moe.expert_bytes);
        tp_json_kv_u64(&j, "max_device_experts", a->moe.max_device_experts);
        tp_json_kv_f64(&j, "reserve_fraction", a->moe.reserve_fraction);
        tp_json_kv_u64(&j, "reserve_bytes", m->reserve_bytes);
        tp_json_kv_u64(&j, "resident_per_layer", m->resident_per_layer);
        tp_json_kv_u64(&j, "all_expert_bytes", m->all_expert_bytes);
        tp_json_kv_u64(&j, "resident_expert_bytes", m->resident_expert_bytes);
        tp_json_kv_u64(&j, "offloaded_expert_bytes", m->offloaded_expert_bytes);
        tp_json_kv_u64(&j, "peak_with_offload_bytes", m->peak_with_offload_bytes);
        tp_json_end_object(&j);
    }
    if (lv) {
        tp_json_key(&j, "llm");
        tp_json_begin_object(&j);
        const tp_llm_estimate *le = lv->le;
        tp_json_kv_str(&j, "runtime", "llama.cpp");
        tp_json_kv_str(&j, "arch", lv->c->arch);
        if (a->wtypes.n == 1) tp_json_kv_str(&j, "weights_type", a->wtypes.name[0]);
        tp_json_kv_bool(&j, "family_known", lv->c->family_known);
        tp_json_kv_u64(&j, "layers", lv->c->n_layer);
        tp_json_kv_u64(&j, "embedding", lv->c->n_embd);
        tp_json_kv_u64(&j, "heads", lv->c->n_head);
        tp_json_kv_u64(&j, "kv_heads", lv->c->n_head_kv);
        tp_json_kv_u64(&j, "head_dim", lv->c->head_dim_k);
        tp_json_kv_u64(&j, "vocab", lv->c->n_vocab);
        tp_json_kv_u64(&j, "experts", lv->c->n_expert);
        tp_json_kv_u64(&j, "sliding_window", lv->c->n_swa);
        tp_json_kv_u64(&j, "tensors", lv->c->n_tensors);
        tp_json_kv_u64(&j, "n_ctx", le->n_ctx);
        tp_json_kv_u64(&j, "n_seq", lv->o->n_seq);
        tp_json_kv_u64(&j, "n_ubatch", le->n_ubatch);
        tp_json_kv_u64(&j, "kv_cells", le->kv_cells);
        tp_json_kv_u64(&j, "kv_cells_swa", le->kv_cells_swa);
        tp_json_kv_str(&j, "kv_type", tp_dtype_name(lv->o->type_k));
        tp_json_kv_str(&j, "type_k", tp_dtype_name(lv->o->type_k));
        tp_json_kv_str(&j, "type_v", tp_dtype_name(lv->o->type_v));
        tp_json_kv_bool(&j, "flash_attn", lv->o->flash_attn);
        tp_json_kv_bool(&j, "swa_full", lv->o->swa_full);
        tp_json_kv_str(&j, "repack", tp_llm_repack_name(le->repack));
        tp_json_kv_u64(&j, "weight_bytes", le->weight_bytes);
        tp_json_kv_u64(&j, "model_bytes", le->model_bytes);
        tp_json_kv_u64(&j, "model_mapped_bytes", le->model_mapped_bytes);
        tp_json_kv_u64(&j, "model_repack_bytes", le->model_repack_bytes);
        tp_json_kv_u64(&j, "kv_cache_bytes", le->kv_cache_bytes);
        tp_json_kv_u64(&j, "kv_k_bytes", le->kv_k_bytes);
        tp_json_kv_u64(&j, "kv_v_bytes", le->kv_v_bytes);
        tp_json_kv_u64(&j, "kv_swa_bytes", le->kv_swa_bytes);
        tp_json_kv_u64(&j, "recurrent_bytes", le->recurrent_bytes);
        tp_json_kv_u64(&j, "output_bytes", le->output_bytes);
        tp_json_kv_u64(&j, "compute_bytes", le->compute_bytes);
        tp_json_kv_bool(&j, "compute_exact", le->compute_planned);
        tp_json_kv_str(&j, "compute_source", le->compute_planned ? "planned graph" : "formula");
        tp_json_end_object(&j);
    }
    json_runtime(&j, a, rt);
    if (lv && a->has_sweep) tp_cli_llm_sweep_json(&j, &a->sweep, budget);
    if (lv && a->wtypes.n > 1) tp_cli_llm_wtypes_json(&j, &a->wtypes, budget);
    if (lv && a->speed.devices) tp_cli_llm_speed_json(&j, &a->speed);
    json_memory(&j, mv);
    if (!fits) tp_json_kv_str(&j, "message", msg);
    tp_json_end_object(&j);
    tp_json_finish(&j);
}

static void print_text(const est_args *a, const tp_graph *g, const tp_estimate *e, uint64_t budget,
                       const char *how, bool fits, const tp_deficit *d, const tp_moe_plan *m,
                       const char *msg, const llm_view *lv, const tp_runtime_estimate *rt) {
    char b[9][32];
    printf("model: %s\n", model_label(a));
    printf("runtime: %s\n", tp_runtime_name(rt->runtime));
    tp_cli_model_print_assumptions(stdout, g);
    if (lv) {
        const tp_llm_config *c = lv->c;
        printf("  %s: %llu layers, embedding %llu, %llu heads (%llu KV, dim %llu), vocab %llu%s\n",
               c->arch, (unsigned long long)c->n_layer, (unsigned long long)c->n_embd,
               (unsigned long long)c->n_head, (unsigned long long)c->n_head_kv,
               (unsigned long long)c->head_dim_k, (unsigned long long)c->n_vocab,
               c->n_expert ? ", mixture of experts" : "");
        const tp_llm_estimate *le = lv->le;
        if (!c->family_known)
            printf("  note: architecture '%s' is not in tensorplan's family table: sized as a "
                   "plain decoder (every layer global attention)\n",
                   c->arch);
        if (c->swa)
            printf("  sliding window %llu in %s\n", (unsigned long long)c->n_swa,
                   le->kv_cells_swa == le->kv_cells ? "a full-size cache (--swa-full)"
                                                    : "interleaved layers");
        printf("runtime: llama.cpp (CPU backend, mmap; repack %s)\n",
               tp_llm_repack_name(le->repack));
        if (a->wtypes.n == 1)
            printf("  weights as llama-quantize writes them in %s (--weights-type)\n",
                   a->wtypes.name[0]);
        printf("  model        %12s  (mapped %s + repack %s; tensors %s)\n",
               tp_cli_fmt_bytes(le->model_bytes, b[0], sizeof b[0]),
               tp_cli_fmt_bytes(le->model_mapped_bytes, b[1], sizeof b[1]),
               tp_cli_fmt_bytes(le->model_repack_bytes, b[2], sizeof b[2]),
               tp_cli_fmt_bytes(le->weight_bytes, b[3], sizeof b[3]));
        printf("  context/KV   %12s  (K %s %s + V %s %s; %llu cells x %llu streams",
               tp_cli_fmt_bytes(le->kv_cache_bytes, b[0], sizeof b[0]),
               tp_cli_fmt_bytes(le->kv_k_bytes, b[1], sizeof b[1]), tp_dtype_name(lv->o->type_k),
               tp_cli_fmt_bytes(le->kv_v_bytes, b[2], sizeof b[2]), tp_dtype_name(lv->o->type_v),
               (unsigned long long)le->kv_cells, (unsigned long long)le->n_stream);
        if (c->swa)
            printf(", SWA layers %llu cells (%s)", (unsigned long long)le->kv_cells_swa,
                   tp_cli_fmt_bytes(le->kv_swa_bytes, b[3], sizeof b[3]));
        if (c->recurrent_layers)
            printf(", recurrent state %s in %llu layers",
                   tp_cli_fmt_bytes(le->recurrent_bytes, b[3], sizeof b[3]),
                   (unsigned long long)c->recurrent_layers);
        printf(")\n");
        printf("  output       %12s  (logits for %llu sequence%s)\n",
               tp_cli_fmt_bytes(le->output_bytes, b[0], sizeof b[0]),
               (unsigned long long)lv->o->n_seq, lv->o->n_seq == 1 ? "" : "s");
        printf("  compute      %12s  (%s, %llu tokens per ubatch, flash attention %s)\n",
               tp_cli_fmt_bytes(le->compute_bytes, b[1], sizeof b[1]),
               le->compute_planned ? "planned graph, as ggml's allocator plans it"
                                   : "formula fitted to llama.cpp",
               (unsigned long long)le->n_ubatch, lv->o->flash_attn ? "on" : "off");
    } else {
        printf("  activations  %12s  (arena of the non-boundary buffers)\n",
               tp_cli_fmt_bytes(e->activation_bytes, b[0], sizeof b[0]));
        if (e->from_registry)
            printf("  weights      %12s  (weight registry)\n",
                   tp_cli_fmt_bytes(e->weight_bytes, b[1], sizeof b[1]));
        else
            printf("  weights      %12s  (params %s + constants %s; %u tied counted once)\n",
                   tp_cli_fmt_bytes(e->weight_bytes, b[1], sizeof b[1]),
                   tp_cli_fmt_bytes(e->param_bytes, b[2], sizeof b[2]),
                   tp_cli_fmt_bytes(e->constant_bytes, b[3], sizeof b[3]), e->tied_params_skipped);
        printf("  inputs       %12s\n", tp_cli_fmt_bytes(e->input_bytes, b[4], sizeof b[4]));
    }
    printf("  peak         %12s  (%llu bytes)\n",
           tp_cli_fmt_bytes(e->peak_bytes, b[5], sizeof b[5]), (unsigned long long)e->peak_bytes);
    if (rt->runtime == TP_RUNTIME_ONNXRUNTIME) {
        printf("  onnxruntime  %12s  (session %s, model %s, weights %s, pre-packed %s, "
               "arena %s, inputs %s, output copies %s, margin %s)\n",
               tp_cli_fmt_bytes(rt->peak_bytes, b[0], sizeof b[0]),
               tp_cli_fmt_bytes(rt->session_fixed_bytes + rt->graph_bytes, b[1], sizeof b[1]),
               tp_cli_fmt_bytes(rt->model_copy_bytes, b[6], sizeof b[6]),
               tp_cli_fmt_bytes(rt->weight_bytes, b[2], sizeof b[2]),
               tp_cli_fmt_bytes(rt->prepacked_bytes, b[3], sizeof b[3]),
               tp_cli_fmt_bytes(rt->arena_bytes, b[4], sizeof b[4]),
               tp_cli_fmt_bytes(rt->input_bytes, b[5], sizeof b[5]),
               tp_cli_fmt_bytes(rt->output_copy_bytes, b[8], sizeof b[8]),
               tp_cli_fmt_bytes(rt->calibration_margin_bytes, b[7], sizeof b[7]));
        printf("  over plan    %12s  (what onnxruntime takes beyond the best plan)\n",
               tp_cli_fmt_bytes(tp_sat_sub_u64(rt->peak_bytes, rt->plan_peak_bytes), b[0],
                                sizeof b[0]));
        if (rt->not_modelled && rt->not_modelled[0])
            printf("  not modelled %s: the onnxruntime figure may be low\n", rt->not_modelled);
    }
    printf("  budget       %12s  (%s)\n", tp_cli_fmt_bytes(budget, b[0], sizeof b[0]), how);
    if (m) {
        printf("  moe          %llu of %llu experts per layer resident (reserve %s), "
               "offloaded %s\n",
               (unsigned long long)m->resident_per_layer,
               (unsigned long long)a->moe.experts_per_layer,
               tp_cli_fmt_bytes(m->reserve_bytes, b[1], sizeof b[1]),
               tp_cli_fmt_bytes(m->offloaded_expert_bytes, b[2], sizeof b[2]));
        printf("  peak with offload %s\n",
               tp_cli_fmt_bytes(m->peak_with_offload_bytes, b[3], sizeof b[3]));
    }
    if (fits)
        printf("fits: yes, headroom %s (binary units: 1 MiB = 1048576 bytes)\n",
               tp_cli_fmt_bytes(budget - d->peak_bytes, b[4], sizeof b[4]));
    else
        printf("fits: no: %s\n", msg);
}

static int run(est_args *a) {
    if (a->dev.devices)
        return tp_cli_llm_devices_run("estimate", a->model.gguf, &a->llm, &a->dev, a->json);
    tp_error err;
    tp_error_clear(&err);
    tp_estimate e;
    tp_llm_config lc;
    tp_llm_estimate le;
    llm_view lview = {&lc, &le, &a->llm}, *lv = NULL;
    tp_runtime_estimate rt;
    memset(&rt, 0, sizeof rt);
    rt.fixed_source = "none";
    rt.not_modelled = "";
    tp_status st;
    tp_graph *g = NULL;
    if (a->model.gguf) {
        /* LLM mode: activations = KV cache + compute buffer, no graph inputs */
        /* one --weights-type: the model as that file type; a list: a table below */
        const char *as = a->wtypes.n == 1 ? tp_cli_llm_wtypes_single(&a->wtypes) : NULL;
        st = tp_llm_read_as(a->model.gguf, as, NULL, &lc, &err);
        if (st == TP_OK) st = tp_llm_estimate_memory(&lc, &a->llm, &le, &err);
        if (st == TP_OK) {
            memset(&e, 0, sizeof e);
            e.weight_bytes = le.model_bytes;
            /* <= peak: no overflow */
            e.activation_bytes = le.kv_cache_bytes + le.output_bytes + le.compute_bytes;
            e.peak_bytes = le.peak_bytes;
            lv = &lview;
            /* llama.cpp's terms are the LLM estimate's (the plan profile names them) */
            rt.runtime = a->ro.runtime == TP_RUNTIME_ONNXRUNTIME ? TP_RUNTIME_PLAN : a->ro.runtime;
            rt.peak_bytes = rt.plan_peak_bytes = e.peak_bytes;
            rt.weight_bytes = e.weight_bytes;
            rt.arena_bytes = e.activation_bytes;
            if (a->ro.runtime == TP_RUNTIME_ONNXRUNTIME) {
                return tp_cli_usage_error("estimate",
                                          "--runtime onnxruntime applies to ONNX models");
            }
        }
    } else {
        st = tp_cli_model_load(&a->model, &g, &err);
        if (st == TP_OK) st = tp_estimate_graph(g, &a->eo, &e, &err);
        if (st == TP_OK && a->ro.runtime == TP_RUNTIME_ONNXRUNTIME)
            st = tp_cli_model_file_bytes(&a->model, &a->ro.ort.model_file_bytes, &err);
        if (st == TP_OK) st = tp_runtime_estimate_graph(g, &e, &a->ro, &rt, &err);
        if (st != TP_OK) tp_cli_model_error("estimate", g, &err);
        if (st != TP_OK) {
            tp_graph_destroy(g);
            return tp_cli_exit_for(st);
        }
    }
    if (st != TP_OK) {
        tp_cli_error("estimate", &err);
        tp_graph_destroy(g);
        return tp_cli_exit_for(st);
    }
    char how[160] = "--budget";
    uint64_t budget = a->budget;
    mem_view mv;
    read_memory(a->gpu, &mv);
    if (!a->has_budget &&
        (st = default_budget(a->gpu, &mv, &budget, how, sizeof how, &err)) != TP_OK) {
        tp_error_prefix(&err, "cannot determine the default budget (pass --budget): ");
        tp_cli_error("estimate", &err);
        tp_graph_destroy(g);
        return TP_EXIT_ERROR;
    }
    tp_moe_plan mp;
    const tp_moe_plan *m = NULL;
    tp_estimate checked = e;
    checked.peak_bytes = rt.peak_bytes; /* the chosen runtime's figure is what must fit */
    if (a->has_moe && a->moe_auto) {
        if (!lc.n_expert || !lc.moe_layers) {
            tp_error_set(&err, TP_ERR_INVALID,
                         "--moe auto: %s has no expert tensors (expert_count %llu, *_exps "
                         "tensors in %llu layers)",
                         a->model.gguf, (unsigned long long)lc.n_expert,
                         (unsigned long long)lc.moe_layers);
            tp_cli_error("estimate", &err);
            tp_graph_destroy(g);
            return TP_EXIT_ERROR;
        }
        a->moe.experts_per_layer = lc.n_expert;
        a->moe.moe_layers = lc.moe_layers;
        a->moe.expert_bytes = lc.expert_bytes;
        if (a->moe.max_device_experts > lc.n_expert) a->moe.max_device_experts = lc.n_expert;
    }
    if (a->has_moe) {
        a->moe.device_budget_bytes = budget;
        if ((st = tp_estimate_moe_offload(&e, &a->moe, &mp, &err)) != TP_OK) {
            tp_cli_error("estimate", &err);
            tp_graph_destroy(g);
            return tp_cli_exit_for(st);
        }
        m = &mp;
        /* with offload, the device holds only the resident experts */
        checked.peak_bytes = mp.peak_with_offload_bytes;
        checked.weight_bytes = mp.peak_with_offload_bytes - e.activation_bytes - e.input_bytes;
    }
    tp_deficit d;
    tp_error fe;
    tp_error_clear(&fe);
    bool fits = tp_estimate_fits_in(&checked, budget, &d, &fe) == TP_OK;
    if (lv && a->has_sweep) tp_cli_llm_sweep_run(&lc, &a->llm, &a->sweep);
    if (lv && a->wtypes.n > 1) tp_cli_llm_wtypes_run(a->model.gguf, &a->llm, &a->wtypes);
    if (lv && a->speed.devices) {
        int rs = tp_cli_llm_speed_run("estimate", a->model.gguf, &a->llm, &a->speed);
        if (rs) return rs;
    }
    if (a->json)
        print_json(a, g, &e, budget, how, fits, &d, m, fe.msg, lv, &mv, &rt);
    else
        print_text(a, g, &e, budget, how, fits, &d, m, fe.msg, lv, &rt);
    if (lv && a->has_sweep && !a->json) tp_cli_llm_sweep_print(&a->sweep, budget);
    if (lv && a->wtypes.n > 1 && !a->json) tp_cli_llm_wtypes_print(&a->wtypes, budget);
    if (lv && a->speed.devices && !a->json) tp_cli_llm_speed_print(&a->speed);
    tp_graph_destroy(g);
    return fits ? TP_EXIT_OK : TP_EXIT_OVER_BUDGET;
}

int tp_cli_estimate(int argc, char **argv) {
    est_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc == 0) rc = run(&a);
    tp_cli_model_args_free(&a.model);
    return rc < 0 ? TP_EXIT_OK : rc; /* -1: --help */
}
