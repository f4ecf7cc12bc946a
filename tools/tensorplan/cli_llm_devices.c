/* estimate MODEL.gguf --devices SPEC: llama.cpp's placement per device
 * (tensorplan/llm_devices.h), as a table, JSON, and the llama.cpp flags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_llm_devices.h"
#include "cli_llm_devices_html.h"
#include "cli_llm_vllm.h"

#define DEV_OFF(f) offsetof(tp_cli_devices_args, f)

static int apply_ngl(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o;
    char *end = NULL;
    long long v = strtoll(val, &end, 10);
    if (!end || *end || v < -1 || v > 100000)
        return tp_cli_usage_error(ctx->cmd, "%s needs a layer count (-1: all), got '%s'",
                                  ctx->spelled, val);
    ((tp_llm_placement_options *)dest)->n_gpu_layers = v;
    return 0;
}

static int apply_ts(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o;
    tp_llm_placement_options *po = dest;
    const char *p = val;
    for (size_t i = 0; *p; i++) {
        char *end = NULL;
        double v = strtod(p, &end);
        if (i == TP_LLM_MAX_DEVICES || end == p || v < 0 || (*end && *end != ','))
            return tp_cli_usage_error(ctx->cmd,
                                      "%s needs non-negative proportions a,b,... (at most %d), "
                                      "got '%s'",
                                      ctx->spelled, TP_LLM_MAX_DEVICES, val);
        po->tensor_split[i] = v;
        p = *end ? end + 1 : end;
    }
    return 0;
}

static int apply_ot(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o;
    if (strcmp(val, "exps=CPU") != 0)
        return tp_cli_usage_error(ctx->cmd,
                                  "%s: only 'exps=CPU' (every expert tensor on the host) is "
                                  "modelled, got '%s'",
                                  ctx->spelled, val);
    ((tp_llm_placement_options *)dest)->experts_on_cpu = true;
    return 0;
}

const tp_cli_opt tp_cli_llm_devices_opts[] = {
    TP_OPT_STRING_ROW("devices", tp_cli_devices_args, devices, "SPEC",
                      ".gguf: place on devices (llama.cpp): cuda0:24GiB,rpc:HOST:PORT:8GiB,\n"
                      "h100-sxm (catalog), cpu[:SIZE]; prints model/KV/compute per device"),
    {.name = "ngl",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .dest = DEV_OFF(po),
     .value = "N",
     .what = "a layer count",
     .apply = apply_ngl,
     .help = "--devices: layers offloaded, output layer included (-ngl; default all)"},
    {.name = "tensor-split",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .dest = DEV_OFF(po),
     .value = "A,B,...",
     .what = "proportions",
     .apply = apply_ts,
     .help = "--devices: layer split over the non-CPU devices (-ts; default by free memory)"},
    TP_OPT_FLAG_ROW("no-kv-offload", tp_cli_devices_args, po.no_kv_offload,
                    "--devices: every layer's KV cache on the host (-nkvo)"),
    {.name = "override-tensor",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .dest = DEV_OFF(po),
     .value = "exps=CPU",
     .what = "exps=CPU",
     .choices = "exps=CPU",
     .apply = apply_ot,
     .help = "--devices: keep every expert tensor on the host (-ot exps=CPU)"},
    TP_OPT_INT_ROW("n-cpu-moe", tp_cli_devices_args, po.n_cpu_moe, "N", 0, 1000000,
                   "--devices: experts of the first N layers on the host (--n-cpu-moe)"),
    TP_OPT_FLAG_ROW("fit", tp_cli_devices_args, fit,
                    "--devices: the largest context that fits every device (up to --ctx),\n"
                    "else experts on the host (--n-cpu-moe), else fewer layers (-ngl)"),
    {.name = "emit",
     .kind = TP_OPT_STRING,
     .takes = true,
     .dest = DEV_OFF(emit),
     .value = "ENGINE",
     .choices = "llama.cpp vllm",
     .help = "--devices: the engine whose command line realises the plan: llama.cpp\n"
             "(default), or vllm (its KV block pool on the GPUs; tensorplan/vllm.h)"},
    {.kind = TP_OPT_GROUP, .dest = DEV_OFF(vllm), .group = tp_cli_vllm_opts},
    TP_OPT_FILE_ROW("html", tp_cli_devices_args, html, "FILE",
                    "--devices: write an HTML page with one bar per device\n"
                    "(model / KV / compute / output / free) and the table"),
    TP_CLI_END,
};

void tp_cli_llm_devices_init(tp_cli_devices_args *d) {
    memset(d, 0, sizeof *d);
    tp_llm_placement_options_default(&d->po);
    tp_vllm_options_default(&d->vllm);
}

/* The llama.cpp flags realising the placement, into buf. */
static void llama_flags(const tp_llm_options *o, const tp_llm_device_set *ds,
                        const tp_llm_placement_options *po, const tp_llm_placement *p, char *buf,
                        size_t cap) {
    size_t n = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int w_ = snprintf(buf + n, n < cap ? cap - n : 0, __VA_ARGS__);                            \
        if (w_ > 0) n += (size_t)w_;                                                               \
    } while (0)
    PUT("-c %llu -ngl %llu", (unsigned long long)p->single.n_ctx,
        (unsigned long long)p->n_gpu_layers);
    bool any_ts = false;
    for (size_t i = 0; i < TP_LLM_MAX_DEVICES; i++)
        any_ts = any_ts || po->tensor_split[i] > 0;
    size_t ngpu = p->n ? p->n - 1 : 0;
    if (ngpu > 1) {
        PUT(" -ts ");
        for (size_t i = 0; i < ngpu; i++) {
            double v =
                any_ts ? po->tensor_split[i] : (double)(p->use[i].capacity_bytes >> 20); /* MiB */
            PUT("%s%g", i ? "," : "", v);
        }
    }
    if (po->no_kv_offload) PUT(" -nkvo");
    if (po->experts_on_cpu) PUT(" -ot \"exps=CPU\"");
    if (po->n_cpu_moe) PUT(" --n-cpu-moe %llu", (unsigned long long)po->n_cpu_moe);
    PUT(" -ctk %s -ctv %s -b %llu -ub %llu", tp_dtype_name(o->type_k), tp_dtype_name(o->type_v),
        (unsigned long long)(o->n_batch ? o->n_batch : 2048),
        (unsigned long long)p->single.n_ubatch);
    if (o->n_seq > 1) PUT(" -np %llu", (unsigned long long)o->n_seq);
    PUT(" -fa %s", o->flash_attn ? "on" : "off");
    bool first = true;
    for (size_t i = 0; i < ds->n; i++) {
        if (ds->dev[i].kind != TP_LLM_DEV_RPC) continue;
        PUT("%s%s", first ? " --rpc " : ",", ds->dev[i].endpoint);
        first = false;
    }
#undef PUT
}

static void print_json(const char *gguf, const tp_llm_device_set *ds, const tp_llm_placement *p,
                       const char *flags) {
    tp_json j;
    tp_json_init(&j, stdout, true);
    tp_json_begin_object(&j);
    tp_json_kv_str(&j, "schema", "tensorplan.placement/1");
    tp_json_kv_str(&j, "tensorplan_version", tp_version());
    tp_json_kv_str(&j, "model", gguf);
    tp_json_kv_str(&j, "engine", "llama.cpp");
    tp_json_kv_u64(&j, "n_ctx", p->single.n_ctx);
    tp_json_kv_u64(&j, "n_gpu_layers", p->n_gpu_layers);
    tp_json_kv_bool(&j, "fits", p->fits);
    tp_json_kv_str(&j, "llama_cpp_flags", flags);
    tp_json_kv_str(&j, "compute_source", p->compute_planned ? "planned graph" : "formula");
    tp_json_key(&j, "devices");
    tp_json_begin_array(&j);
    for (size_t r = 0; r < p->n; r++) {
        const tp_llm_device_use *u = &p->use[r];
        const tp_llm_device *dv = NULL;
        for (size_t i = 0; i < ds->n; i++)
            if (strcmp(ds->dev[i].name, u->name) == 0) dv = &ds->dev[i];
        tp_json_begin_object(&j);
        tp_json_kv_str(&j, "name", u->name);
        tp_json_kv_str(&j, "kind", tp_llm_device_kind_name(u->kind));
        tp_json_kv_bool(&j, "host", u->host);
        tp_json_kv_u64(&j, "layers", u->layers);
        tp_json_kv_bool(&j, "output_layer", u->output);
        tp_json_kv_u64(&j, "expert_layers", u->expert_layers);
        tp_json_kv_u64(&j, "model_bytes", u->model_bytes);
        tp_json_kv_u64(&j, "kv_bytes", u->kv_bytes);
        tp_json_kv_u64(&j, "compute_bytes", u->compute_bytes);
        tp_json_kv_u64(&j, "output_bytes", u->output_bytes);
        tp_json_kv_u64(&j, "total_bytes", u->total_bytes);
        tp_json_kv_u64(&j, "size_bytes", dv ? dv->size_bytes : 0);
        tp_json_kv_str(&j, "size_source", dv ? dv->size_source : "not in the device set");
        tp_json_kv_u64(&j, "reserved_bytes", dv ? dv->reserved_bytes : 0);
        tp_json_kv_str(&j, "reserved_source", dv ? dv->reserved_source : "none");
        tp_json_kv_bool(&j, "capacity_known", u->capacity_known);
        tp_json_kv_u64(&j, "capacity_bytes", u->capacity_bytes);
        tp_json_kv_u64(&j, "free_bytes", u->free_bytes);
        tp_json_kv_bool(&j, "fits", u->fits);
        tp_json_end_object(&j);
    }
    tp_json_end_array(&j);
    tp_json_end_object(&j);
    tp_json_finish(&j);
}

static void print_text(const char *gguf, const tp_llm_placement *p, const char *flags) {
    char b[6][32];
    printf("%s on %zu device(s) + host, as llama.cpp places it (-ngl %llu, n_ctx %llu)\n", gguf,
           p->n - 1, (unsigned long long)p->n_gpu_layers, (unsigned long long)p->single.n_ctx);
    printf("  %-28s %6s %10s %10s %10s %10s %10s %10s  %s\n", "device", "layers", "model", "KV",
           "compute", "output", "total", "free", "verdict");
    for (size_t r = 0; r < p->n; r++) {
        const tp_llm_device_use *u = &p->use[r];
        char name[TP_LLM_DEVICE_NAME_CAP + 16];
        snprintf(name, sizeof name, "%s%s%s", u->name, u->host ? " (host)" : "",
                 u->output ? " +out" : "");
        printf(
            "  %-28s %6llu %10s %10s %10s %10s %10s %10s  %s\n", name,
            (unsigned long long)u->layers, tp_cli_fmt_bytes(u->model_bytes, b[0], 32),
            tp_cli_fmt_bytes(u->kv_bytes, b[1], 32), tp_cli_fmt_bytes(u->compute_bytes, b[2], 32),
            tp_cli_fmt_bytes(u->output_bytes, b[3], 32), tp_cli_fmt_bytes(u->total_bytes, b[4], 32),
            u->capacity_known ? tp_cli_fmt_bytes(u->free_bytes, b[5], 32) : "?",
            !u->capacity_known ? "size unknown"
            : u->fits          ? "fits"
                               : "DOES NOT FIT");
    }
    printf("compute: %s\n", p->compute_planned
                                ? "the planned graph split over the devices as ggml's scheduler "
                                  "splits it"
                                : "bounds from the formula (only RPC devices get the split graph)");
    printf("llama.cpp: %s\n", flags);
}

int tp_cli_llm_devices_run(const char *cmd, const char *gguf, const tp_llm_options *o,
                           const tp_cli_devices_args *d, bool json) {
    tp_error err;
    tp_llm_device_set ds;
    tp_status st = tp_llm_device_set_parse(d->devices, &ds, &err);
    if (st != TP_OK) {
        tp_cli_error(cmd, &err);
        return tp_cli_exit_for(st);
    }
    bool vllm = d->emit && strcmp(d->emit, "vllm") == 0;
    if (d->emit && !vllm && strcmp(d->emit, "llama.cpp") != 0)
        return tp_cli_usage_error(cmd, "--emit needs llama.cpp or vllm, got '%s'", d->emit);
    tp_registry *reg = NULL;
    tp_llm_config *c = malloc(sizeof *c);
    tp_llm_placement *p = malloc(sizeof *p);
    if (!c || !p) {
        free(c);
        free(p);
        tp_error_set(&err, TP_ERR_NOMEM, "out of memory");
        tp_cli_error(cmd, &err);
        return tp_cli_exit_for(TP_ERR_NOMEM);
    }
    st = tp_registry_create(NULL, &reg, &err);
    if (st == TP_OK) st = tp_llm_read(gguf, reg, c, &err);
    tp_llm_placement_options po = d->po;
    if (st == TP_OK && vllm) {
        int rv = tp_cli_vllm_run(cmd, gguf, c, &ds, o, &d->vllm, json);
        tp_registry_destroy(reg);
        free(c);
        free(p);
        return rv;
    }
    if (st == TP_OK && d->fit) {
        static tp_llm_fit fit;
        st = tp_llm_place_fit(c, reg, o, &ds, &d->po, 0, &fit, &err);
        if (st == TP_OK) {
            *p = fit.placement;
            po = fit.options;
        }
    } else if (st == TP_OK) {
        st = tp_llm_place(c, reg, o, &ds, &d->po, p, &err);
    }
    int rc = 0;
    if (st != TP_OK) {
        tp_cli_error(cmd, &err);
        rc = tp_cli_exit_for(st);
    } else {
        char flags[1024];
        llama_flags(o, &ds, &po, p, flags, sizeof flags);
        if (json)
            print_json(gguf, &ds, p, flags);
        else
            print_text(gguf, p, flags);
        rc = p->fits ? 0 : TP_EXIT_OVER_BUDGET;
        if (d->html) {
            int rh = tp_cli_llm_devices_html(cmd, d->html, gguf, p, flags);
            if (rh) rc = rh;
        }
    }
    tp_registry_destroy(reg);
    free(c);
    free(p);
    return rc;
}
