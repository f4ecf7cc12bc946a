/* `estimate MODEL.gguf --speed DEVICES`: prefill / decode tokens per second. */
#include "cli_llm_speed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_device.h"

int tp_cli_llm_speed_run(const char *cmd, const char *path, const tp_llm_options *o,
                         tp_cli_llm_speed *s) {
    tp_error err;
    tp_error_clear(&err);
    tp_registry *w = NULL;
    tp_llm_config *c = malloc(sizeof *c); /* ~5 KiB of per-layer arrays: not on the stack */
    tp_status st =
        c ? tp_registry_create(NULL, &w, &err) : tp_error_set(&err, TP_ERR_NOMEM, "out of memory");
    if (st == TP_OK) st = tp_gguf_read_llm(path, w, c, &err);
    if (st != TP_OK) {
        tp_cli_error(cmd, &err);
        tp_registry_destroy(w);
        free(c);
        return tp_cli_exit_for(st);
    }
    tp_llm_speed_options so;
    tp_llm_speed_options_default(&so);
    if (s->n_prompt) so.n_prompt = s->n_prompt;
    if (s->n_gen) so.n_gen = s->n_gen;
    so.n_depth = s->n_depth;
    so.type_k = o->type_k;
    so.type_v = o->type_v;
    so.repack = o->repack;
    tp_cli_devices devs;
    tp_cli_devices_init(&devs);
    devs.threads = s->threads;
    devs.quick = s->quick;
    /* the same CPU with one thread: a measured CPU's decode with more threads is priced from its
       one-thread step (tp_llm_speed_options.one_thread); calibrated (or read from the cache)
       only when such a device is asked for */
    tp_cli_devices one_devs;
    tp_cli_devices_init(&one_devs);
    one_devs.threads = 1;
    one_devs.quick = s->quick;
    one_devs.quiet = devs.quiet;
    s->n = 0;
    const char *p = s->devices;
    while (p && *p && s->n < TP_SPEED_MAX_DEVICES) {
        size_t len = strcspn(p, ",");
        int i = s->n++;
        snprintf(s->name[i], sizeof s->name[i], "%.*s", (int)(len < 63 ? len : 63), p);
        tp_error_clear(&err);
        st = tp_cli_device_resolve(&devs, s->name[i], &s->dev[i], &err);
        so.one_thread = NULL;
        if (st == TP_OK && s->dev[i].kind == TP_DEVICE_CPU &&
            s->dev[i].source == TP_SOURCE_MEASURED && s->dev[i].threads > 1) {
            /* calibrated once for every device asked for (one_devs keeps it); a failure leaves
               one_thread NULL: the stretched figures */
            tp_error one_err;
            tp_device_model copy;
            if (!one_devs.cpu_tried) (void)tp_cli_device_resolve(&one_devs, "cpu", &copy, &one_err);
            if (one_devs.have_cpu) so.one_thread = &one_devs.cpu;
        }
        if (st == TP_OK) st = tp_llm_speed_predict(c, w, &s->dev[i], &so, &s->speed[i], &err);
        snprintf(s->err[i], sizeof s->err[i], "%.150s", st == TP_OK ? "" : err.msg);
        p += len;
        if (*p == ',') p++;
    }
    tp_cli_devices_free(&devs);
    tp_cli_devices_free(&one_devs);
    tp_registry_destroy(w);
    free(c);
    return 0;
}

void tp_cli_llm_speed_print(const tp_cli_llm_speed *s) {
    printf("throughput (llama-bench pp%llu/tg%llu",
           (unsigned long long)(s->n_prompt ? s->n_prompt : 512),
           (unsigned long long)(s->n_gen ? s->n_gen : 128));
    if (s->n_depth) printf(" @ d%llu", (unsigned long long)s->n_depth);
    printf("; docs/estimate.md \"Throughput\"):\n");
    printf("  %-14s %12s %12s  %-8s %-8s %s\n", "device", "prefill t/s", "decode t/s", "pp bound",
           "tg bound", "error band");
    for (int i = 0; i < s->n; i++) {
        const tp_llm_speed *r = &s->speed[i];
        if (s->err[i][0]) {
            printf("  %-14s %s\n", s->name[i], s->err[i]);
            continue;
        }
        char band[32];
        if (r->error_band > 0)
            snprintf(band, sizeof band, "+-%.0f%%", r->error_band * 100);
        else
            snprintf(band, sizeof band, "unknown");
        printf("  %-14s %12.1f %12.1f  %-8s %-8s %s\n", s->name[i], r->prefill_tps, r->decode_tps,
               r->prefill_bound ? r->prefill_bound : "-", r->decode_bound ? r->decode_bound : "-",
               band);
        printf("    basis   %s\n    kernel  %s\n", r->basis, r->kernel);
        if (r->error_source[0]) printf("    error   %s\n", r->error_source);
        printf("    decode  %.1f MB weights + %.2f MB KV per token, from a %.1f MB working set\n",
               (double)r->decode_weight_bytes / 1e6, (double)r->decode_kv_bytes / 1e6,
               (double)r->decode_working_set_bytes / 1e6);
    }
}

void tp_cli_llm_speed_json(tp_json *j, const tp_cli_llm_speed *s) {
    tp_json_key(j, "speed");
    tp_json_begin_array(j);
    for (int i = 0; i < s->n; i++) {
        const tp_llm_speed *r = &s->speed[i];
        tp_json_begin_object(j);
        tp_json_kv_str(j, "device", s->name[i]);
        if (s->err[i][0]) {
            tp_json_kv_str(j, "error", s->err[i]);
            tp_json_end_object(j);
            continue;
        }
        tp_json_kv_str(j, "source", tp_model_source_name(r->source));
        tp_json_kv_u64(j, "threads", s->dev[i].threads);
        tp_json_kv_u64(j, "n_prompt", s->n_prompt ? s->n_prompt : 512);
        tp_json_kv_u64(j, "n_gen", s->n_gen ? s->n_gen : 128);
        tp_json_kv_u64(j, "n_depth", s->n_depth);
        tp_json_kv_f64(j, "prefill_tps", r->prefill_tps);
        tp_json_kv_f64(j, "decode_tps", r->decode_tps);
        tp_json_kv_str(j, "prefill_bound", r->prefill_bound ? r->prefill_bound : "");
        tp_json_kv_str(j, "decode_bound", r->decode_bound ? r->decode_bound : "");
        tp_json_kv_str(j, "weight_type", tp_dtype_name(r->weight_type));
        tp_json_kv_u64(j, "decode_weight_bytes", r->decode_weight_bytes);
        tp_json_kv_u64(j, "decode_kv_bytes", r->decode_kv_bytes);
        tp_json_kv_u64(j, "decode_working_set_bytes", r->decode_working_set_bytes);
        tp_json_kv_f64(j, "decode_memory_ns", r->decode_memory_ns);
        tp_json_kv_f64(j, "decode_kernel_ns", r->decode_kernel_ns);
        tp_json_kv_f64(j, "decode_attn_ns", r->decode_attn_ns);
        tp_json_kv_f64(j, "decode_overhead_ns", r->decode_overhead_ns);
        tp_json_kv_f64(j, "prefill_flops", r->prefill_flops);
        tp_json_kv_f64(j, "prefill_gemm_ns", r->prefill_gemm_ns);
        tp_json_kv_f64(j, "prefill_attn_ns", r->prefill_attn_ns);
        tp_json_kv_f64(j, "prefill_overhead_ns", r->prefill_overhead_ns);
        tp_json_kv_str(j, "kernel", r->kernel);
        tp_json_kv_str(j, "basis", r->basis);
        tp_json_kv_f64(j, "error_band", r->error_band);
        tp_json_kv_str(j, "error_source", r->error_source);
        tp_json_end_object(j);
    }
    tp_json_end_array(j);
}
