/* The CLI's device models: names -> calibrated, default or catalog models. */
#include "cli_device.h"
#include "cli_env.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

void tp_cli_devices_init(tp_cli_devices *d) {
    memset(d, 0, sizeof *d);
    d->dtype = TP_DTYPE_F32;
}

void tp_cli_devices_free(tp_cli_devices *d) {
    if (!d) return;
    tp_catalog_destroy(d->catalog);
    d->catalog = NULL;
}

tp_status tp_cli_devices_catalog(tp_cli_devices *d, tp_catalog **out, tp_error *err) {
    if (!d->catalog) {
        tp_status s = d->catalog_path ? tp_catalog_load(d->catalog_path, NULL, &d->catalog, err)
                                      : tp_catalog_load_default(NULL, &d->catalog, err);
        if (s != TP_OK) return s;
        if (d->efficiency > 0) tp_catalog_set_default_efficiency(d->catalog, d->efficiency);
    }
    *out = d->catalog;
    return TP_OK;
}

static tp_status calibrate_cpu(tp_cli_devices *d, tp_error *err) {
    if (d->have_cpu) return TP_OK;
    if (d->cpu_tried) return tp_error_set(err, TP_ERR_NOT_FOUND, "CPU calibration failed before");
    d->cpu_tried = true;
    tp_calib_options o;
    tp_calib_options_default(&o);
    tp_env_apply_calib(tp_cli_env(), &o);
    if (d->threads) o.threads = d->threads;
    o.quick = d->quick;
    o.force = d->force;
    if (!d->quiet && tp_cli_progress_enabled(false))
        fprintf(stderr, "tensorplan: calibrating this CPU (cached after the first run)...\n");
    tp_status s = tp_calibrate_cpu_cached(&o, &d->cpu, &d->cpu_info, err);
    if (s != TP_OK) return s;
    d->have_cpu = true;
    return TP_OK;
}

/* Learn the catalog's CPU efficiency from this machine once (needs calibration). */
static void learn(tp_cli_devices *d) {
    if (d->learned) return;
    d->learned = true;
    tp_catalog *c;
    if (tp_cli_devices_catalog(d, &c, NULL) != TP_OK) return;
    if (calibrate_cpu(d, NULL) != TP_OK) return;
    if (d->cpu_info.peak_gflops > 0)
        (void)tp_catalog_learn_efficiency(c, &d->cpu, d->cpu_info.peak_gflops, NULL);
}

tp_status tp_cli_device_resolve(tp_cli_devices *d, const char *name, tp_device_model *out,
                                tp_error *err) {
    if (strcasecmp(name, "cpu") == 0) {
        tp_status s = calibrate_cpu(d, err);
        if (s == TP_OK) *out = d->cpu;
        return s;
    }
    if (strcasecmp(name, "cuda") == 0) {
        tp_calib_options o;
        tp_calib_options_default(&o);
        tp_env_apply_calib(tp_cli_env(), &o);
        o.quick = d->quick;
        return tp_calibrate_cuda(&o, out, err);
    }
    const char *dash = strrchr(name, '-');
    if (dash && strcasecmp(dash, "-default") == 0) {
        char kind[16];
        size_t n = (size_t)(dash - name);
        if (n < sizeof kind) {
            memcpy(kind, name, n);
            kind[n] = '\0';
            tp_device_kind k;
            if (tp_device_kind_parse(kind, &k, NULL) == TP_OK) {
                tp_device_model_default(k, out);
                return TP_OK;
            }
        }
    }
    tp_catalog *c;
    tp_status s = tp_cli_devices_catalog(d, &c, err);
    if (s != TP_OK) return s;
    const tp_catalog_entry *e;
    if (tp_catalog_find(c, name, &e, NULL) != TP_OK) {
        char known[1024];
        size_t len = 0;
        known[0] = '\0';
        for (uint32_t i = 0; i < tp_catalog_count(c) && len + 70 < sizeof known; i++)
            len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "",
                                    tp_catalog_get(c, i)->name);
        return tp_error_set(err, TP_ERR_NOT_FOUND,
                            "unknown device '%s' (cpu, cuda, <kind>-default or a catalog "
                            "device: %s)",
                            name, known);
    }
    if (e->kind == TP_DEVICE_CPU) learn(d);
    return tp_catalog_entry_model(c, e, d->dtype, out, err);
}

tp_status tp_cli_parse_host_ops(const char *list, tp_io_options *out, tp_error *err) {
    tp_io_options_default(out);
    if (strcasecmp(list, "default") == 0) return TP_OK;
    out->host_op_mask = 0;
    if (strcasecmp(list, "none") == 0 || *list == '\0') return TP_OK;
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        bool found = false;
        for (int k = 0; k < TP_OP_KIND_COUNT && k < 64; k++) {
            const char *name = tp_op_kind_name((tp_op_kind)k);
            if (strlen(name) == len && strncasecmp(name, p, len) == 0) {
                out->host_op_mask |= 1ull << k;
                found = true;
            }
        }
        if (!found)
            return tp_error_set(err, TP_ERR_NOT_FOUND, "unknown op kind '%.*s' in --host-ops",
                                (int)len, p);
        if (!e) break;
        p = e + 1;
    }
    return TP_OK;
}

const char *tp_cli_device_isa(const tp_device_model *m) {
    if (m->kind != TP_DEVICE_CPU || m->source != TP_SOURCE_MEASURED) return "";
    tp_cpu_features f;
    tp_cpu_features_detect(&f);
    return tp_cpu_isa_name(f.isa);
}

const char *tp_cli_accuracy_str(const tp_device_model *m, char *buf, size_t cap) {
    tp_cost_accuracy a;
    tp_cost_accuracy_of(m, &a);
    const char *isa = tp_cli_device_isa(m);
    char kern[160];
    snprintf(kern, sizeof kern, "%s%s%s%s", m->gemm_impl, isa[0] ? " (" : "", isa,
             isa[0] ? ")" : "");
    if (a.validated)
        snprintf(
            buf, cap,
            "basis %s, kernel %s, expected error ±%.1f %% (held-out MAPE; seen %+.0f..%+.0f %% "
            "over %u models; %s)",
            a.basis, kern, a.mape_pct, a.under_pct, a.over_pct, a.models, a.reference);
    else
        snprintf(buf, cap, "basis %s, kernel %s, expected error unknown (%s)", a.basis, kern,
                 a.reference);
    return buf;
}

static void json_accuracy(tp_json *j, const tp_device_model *m) {
    tp_cost_accuracy a;
    tp_cost_accuracy_of(m, &a);
    tp_json_key(j, "accuracy");
    tp_json_begin_object(j);
    tp_json_kv_str(j, "basis", a.basis);
    tp_json_kv_str(j, "kernel", m->gemm_impl);
    tp_json_kv_str(j, "isa", tp_cli_device_isa(m));
    tp_json_kv_bool(j, "validated", a.validated);
    tp_json_kv_u64(j, "models", a.models);
    tp_json_kv_f64(j, "mape_pct", a.mape_pct);
    tp_json_kv_f64(j, "under_pct", a.under_pct);
    tp_json_kv_f64(j, "over_pct", a.over_pct);
    tp_json_kv_str(j, "reference", a.reference);
    tp_json_end_object(j);
}

static void json_bw_curve(tp_json *j, const char *key, const tp_bw_point *p, uint32_t n) {
    tp_json_key(j, key);
    tp_json_begin_array(j);
    for (uint32_t i = 0; i < n; i++) {
        tp_json_begin_object(j);
        tp_json_kv_f64(j, "bytes", p[i].bytes);
        tp_json_kv_f64(j, "gbps", p[i].gbps);
        tp_json_end_object(j);
    }
    tp_json_end_array(j);
}

static void print_bw_curve(FILE *f, const char *label, const tp_bw_point *p, uint32_t n,
                           const char *how) {
    if (n == 0) return;
    fprintf(f, "  %s", label);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, " %.0fMiB->%.1f", p[i].bytes / 1048576.0, p[i].gbps);
    fprintf(f, " GB/s (by working set; %s)\n", how);
}

void tp_cli_json_device(tp_json *j, const tp_device_model *m) {
    tp_json_begin_object(j);
    tp_json_kv_str(j, "name", m->name);
    tp_json_kv_str(j, "kind", tp_device_kind_name(m->kind));
    tp_json_kv_str(j, "source", tp_model_source_name(m->source));
    tp_json_kv_str(j, "gemm_impl", m->gemm_impl);
    tp_json_key(j, "gemm_gflops");
    tp_json_begin_array(j);
    for (uint32_t i = 0; i < m->n_gemm; i++) {
        tp_json_begin_object(j);
        tp_json_kv_f64(j, "dim", m->gemm[i].dim);
        tp_json_kv_f64(j, "gflops", m->gemm[i].gflops);
        tp_json_end_object(j);
    }
    tp_json_end_array(j);
    tp_json_key(j, "skinny_gflops");
    tp_json_begin_array(j);
    for (uint32_t i = 0; i < m->n_skinny; i++) {
        tp_json_begin_object(j);
        tp_json_kv_f64(j, "min_dim", m->skinny[i].dim);
        tp_json_kv_f64(j, "gflops", m->skinny[i].gflops);
        tp_json_end_object(j);
    }
    tp_json_end_array(j);
    tp_json_kv_f64(j, "f16_speedup", m->f16_speedup);
    tp_json_kv_f64(j, "bf16_speedup", m->bf16_speedup);
    tp_json_kv_f64(j, "int8_speedup", m->int8_speedup);
    tp_json_kv_f64(j, "u8u8_speedup", m->u8u8_speedup);
    tp_json_kv_f64(j, "mem_gbps", m->mem_gbps);
    tp_json_kv_f64(j, "readback_gbps", m->readback_gbps);
    json_bw_curve(j, "read_gbps", m->read, m->n_read);
    json_bw_curve(j, "read_streams_gbps", m->read_streams, m->n_read_streams);
    tp_json_kv_f64(j, "dispatch_ns", m->dispatch_ns);
    tp_json_kv_f64(j, "round_trip_ns", m->round_trip_ns);
    tp_json_kv_f64(j, "barrier_ns", m->barrier_ns);
    tp_json_kv_f64(j, "wake_ns", m->wake_ns);
    tp_json_kv_f64(j, "gemm_stream_gbps", m->gemm_stream_gbps);
    tp_json_kv_f64(j, "norm_gbps", m->norm_gbps);
    tp_json_kv_f64(j, "skip_norm_gbps", m->skip_norm_gbps);
    tp_json_kv_f64(j, "gelu_gbps", m->gelu_gbps);
    tp_json_kv_f64(j, "bias_gelu_gbps", m->bias_gelu_gbps);
    tp_json_kv_f64(j, "prelu_gbps", m->prelu_gbps);
    tp_json_kv_f64(j, "int8_dot_gops", m->int8_dot_gops);
    tp_json_kv_f64(j, "amx_int8_gops", m->amx_int8_gops);
    tp_json_kv_f64(j, "denormal_ns", m->denormal_ns);
    tp_json_kv_u64(j, "vector_floats", m->vector_floats);
    tp_json_kv_f64(j, "im2col_gbps", m->im2col_gbps);
    tp_json_kv_f64(j, "col2im_gbps", m->col2im_gbps);
    tp_json_kv_f64(j, "transpose_gbps", m->transpose_gbps);
    tp_json_kv_bool(j, "unified", m->unified);
    tp_json_kv_u64(j, "threads", m->threads);
    tp_json_kv_u64(j, "memory_bytes", m->memory_bytes);
    tp_json_kv_f64(j, "efficiency", m->efficiency);
    tp_json_kv_f64(j, "runtime_node_ns", m->runtime_node_ns);
    tp_json_kv_f64(j, "runtime_run_ns", m->runtime_run_ns);
    tp_json_kv_f64(j, "runtime_group_ns", m->runtime_group_ns);
    tp_json_kv_f64(j, "dwconv_gflops", m->dwconv_gflops);
    tp_json_kv_f64(j, "resize_gbps", m->resize_gbps);
    tp_json_kv_f64(j, "cache_gbps", m->cache_gbps);
    tp_json_kv_u64(j, "cache_bytes", m->cache_bytes);
    tp_json_kv_u64(j, "mem_set_bytes", m->mem_set_bytes);
    json_accuracy(j, m);
    tp_json_end_object(j);
}

void tp_cli_print_device(FILE *f, const tp_device_model *m) {
    fprintf(f, "  device       %s (%s, source %s)\n", m->name, tp_device_kind_name(m->kind),
            tp_model_source_name(m->source));
    fprintf(f, "  gemm         %s:", m->gemm_impl);
    for (uint32_t i = 0; i < m->n_gemm; i++)
        fprintf(f, " %g->%.1f", m->gemm[i].dim, m->gemm[i].gflops);
    fprintf(f, " GFLOP/s (by cube-root shape)\n");
    if (m->n_skinny > 0) {
        fprintf(f, "  skinny gemm ");
        for (uint32_t i = 0; i < m->n_skinny; i++)
            fprintf(f, " %g->%.1f", m->skinny[i].dim, m->skinny[i].gflops);
        fprintf(f, " GFLOP/s (by smallest dim)\n");
    }
    fprintf(f, "  memory       %.2f GB/s, readback %.2f GB/s%s\n", m->mem_gbps, m->readback_gbps,
            m->unified ? " (unified)" : "");
    print_bw_curve(f, "read        ", m->read, m->n_read, "one stream");
    print_bw_curve(f, "read streams", m->read_streams, m->n_read_streams,
                   "several streams, vector loads");
    if (m->cache_gbps > 0)
        fprintf(f, "  cached pass  %.2f GB/s over %llu KiB (log-linear to the triad's %llu MiB)\n",
                m->cache_gbps, (unsigned long long)(m->cache_bytes >> 10),
                (unsigned long long)(m->mem_set_bytes >> 20));
    if (m->dwconv_gflops > 0 || m->resize_gbps > 0) {
        fprintf(f, "  op classes   depthwise conv %.1f GFLOP/s, resize %.2f GB/s", m->dwconv_gflops,
                m->resize_gbps);
        if (m->norm_gbps > 0) fprintf(f, ", layer norm %.2f GB/s", m->norm_gbps);
        if (m->skip_norm_gbps > 0) fprintf(f, ", skip layer norm %.2f GB/s", m->skip_norm_gbps);
        if (m->gelu_gbps > 0) fprintf(f, ", gelu %.2f GB/s", m->gelu_gbps);
        if (m->bias_gelu_gbps > 0) fprintf(f, ", bias gelu %.2f GB/s", m->bias_gelu_gbps);
        if (m->prelu_gbps > 0) fprintf(f, ", prelu %.2f GB/s", m->prelu_gbps);
        if (m->im2col_gbps > 0) fprintf(f, ", im2col %.2f GB/s", m->im2col_gbps);
        if (m->col2im_gbps > 0) fprintf(f, ", col2im %.2f GB/s", m->col2im_gbps);
        if (m->transpose_gbps > 0) fprintf(f, ", transpose walk %.2f GB/s", m->transpose_gbps);
        if (m->gemm_stream_gbps > 0 && m->gemm_stream_gbps < TP_STREAM_FREE_GBPS)
            fprintf(f, ", GEMM weight stream %.1f GB/s", m->gemm_stream_gbps);
        if (m->int8_dot_gops > 0) fprintf(f, ", int8 block dot %.1f GOP/s", m->int8_dot_gops);
        if (m->u8u8_speedup > 0)
            fprintf(f, ", integer GEMMs %.2fx (u8 x s8) and %.2fx (u8 x u8) float32's",
                    m->int8_speedup, m->u8u8_speedup);
        if (m->amx_int8_gops > 0) fprintf(f, ", on AMX tiles %.1f GOP/s", m->amx_int8_gops);
        if (m->denormal_ns > 0) fprintf(f, ", denormal operand %.1f ns", m->denormal_ns);
        fprintf(f, "\n");
    }
    fprintf(f, "  overheads    dispatch %.0f ns, round trip %.0f ns", m->dispatch_ns,
            m->round_trip_ns);
    if (m->barrier_ns > 0) fprintf(f, ", spinning barrier %.0f ns", m->barrier_ns);
    if (m->wake_ns > 0) fprintf(f, ", wake-up %.0f ns", m->wake_ns);
    fprintf(f, "\n");
    if (m->runtime_node_ns > 0 || m->runtime_run_ns > 0)
        fprintf(f,
                "  runtime      %.0f ns per node, %.0f ns per run, %.0f ns per convolution group "
                "on its generic path (onnxruntime's own)\n",
                m->runtime_node_ns, m->runtime_run_ns, m->runtime_group_ns);
    if (m->threads) fprintf(f, "  threads      %u\n", m->threads);
    if (m->vector_floats)
        fprintf(f,
                "  vector width %u floats (the CPU's widest ISA; onnxruntime's NCHWc block %u)\n",
                m->vector_floats, m->vector_floats >= 16 ? 16u : 8u);
    char acc[512];
    fprintf(f, "  accuracy     %s\n", tp_cli_accuracy_str(m, acc, sizeof acc));
    if (m->source == TP_SOURCE_CATALOG) fprintf(f, "  efficiency   %.3f of peak\n", m->efficiency);
}

int tp_cli_devices_options(tp_cli_devices *d, const char *cmd, const char *dtype,
                           const char *host_ops, tp_io_options *io) {
    tp_error err;
    tp_error_clear(&err);
    if (dtype && tp_dtype_parse(dtype, &d->dtype, &err) != TP_OK)
        return tp_cli_usage_error(cmd, "--dtype: %s", err.msg);
    tp_io_options_default(io);
    if (host_ops && tp_cli_parse_host_ops(host_ops, io, &err) != TP_OK)
        return tp_cli_usage_error(cmd, "%s", err.msg);
    return 0;
}
