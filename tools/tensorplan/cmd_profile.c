/* tensorplan profile — per-op flops, bytes and predicted time; hotspots; IO profile. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_device.h"
#include "cli_model.h"

typedef struct prof_args {
    tp_cli_model_args model;
    const char *device;
    const char *dtype;
    const char *host_ops;
    uint32_t top;
    bool summary, json, quick;
} prof_args;

static const tp_cli_opt profile_opts[] = {
    TP_CLI_MODEL(prof_args, model),
    TP_OPT_STRING_ROW("device", prof_args, device, "NAME",
                      "cpu (calibrated, default), cuda, <kind>-default or a\n"
                      "catalog device (h100-sxm, l4, rpi5, ...; see `tensorplan cost`)"),
    TP_CLI_DEVICE_DTYPE(prof_args, dtype),
    TP_OPT_U32_ROW("top", prof_args, top, "N", 0, 100000, "hotspots to list (default 10)"),
    TP_OPT_FLAG_ROW("summary", prof_args, summary, "omit the per-op table"),
    TP_CLI_DEVICE_QUICK(prof_args, quick),
    TP_CLI_DEVICE_HOST_OPS(prof_args, host_ops),
    TP_CLI_COMMON(prof_args, json),
    TP_CLI_END,
};

const tp_cli_command tp_cli_profile_command = {
    .name = "profile",
    .summary = "per-op flops, bytes and predicted time on a device, with the hotspots",
    .synopsis = "[MODEL | --demo] [--dim NAME=VALUE]... [options]",
    .description = "Account every op of the model (flops, bytes read and written with true dtype\n"
                   "sizes) and predict its time on a device with the roofline model\n"
                   "max(flops / GEMM throughput, bytes / bandwidth) + dispatch; print the per-op\n"
                   "table, totals by op kind, the top hotspots and the static IO profile\n"
                   "(kernel launches, device traffic, sync points, host readback).",
    .opts = profile_opts,
    .examples = "tensorplan profile --demo --dim seq=512\n"
                "tensorplan profile model.onnx --device h100-sxm --top 5 --summary",
    .notes = "Units: flops as counted (2 per multiply-add), bytes in binary units, time in\n"
             "microseconds (text) or nanoseconds (JSON).\n"
             "Exit codes: 0 ok, 1 error (bad model, unknown device), 2 usage error.",
    .json_help = "machine-readable output (raw integers, nanoseconds)",
};

static int parse_args(prof_args *a, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    tp_cli_model_args_init(&a->model);
    a->device = "cpu";
    a->top = 10;
    return tp_cli_parse(&tp_cli_profile_command, argc, argv, a);
}

static const char *fmt_flops(uint64_t v, char *buf, size_t cap) {
    static const char *u[] = {"", "K", "M", "G", "T", "P", "E"};
    double x = (double)v;
    int k = 0;
    while (x >= 1000.0 && k < 6) {
        x /= 1000.0;
        k++;
    }
    if (k == 0)
        snprintf(buf, cap, "%llu", (unsigned long long)v);
    else
        snprintf(buf, cap, "%.2f %s", x, u[k]);
    return buf;
}

/* Totals per op name (tp_op_name), in first-seen order. */
typedef struct kind_total {
    const char *name;
    uint32_t count;
    uint64_t flops, bytes;
    double ns;
} kind_total;

static uint32_t by_kind(const tp_graph *g, const tp_graph_cost *gc, kind_total *t, uint32_t cap) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < gc->n_nodes; i++) {
        const tp_node_cost *nc = &gc->nodes[i];
        if (nc->cls == TP_COST_METADATA) continue;
        const char *name = tp_op_name(&tp_graph_node(g, (tp_node_id)i)->op);
        uint32_t k = 0;
        while (k < n && strcmp(t[k].name, name) != 0)
            k++;
        if (k == n) {
            if (n == cap) continue;
            memset(&t[n], 0, sizeof t[n]);
            t[n].name = name;
            n++;
        }
        t[k].count++;
        t[k].flops = tp_sat_add_u64(t[k].flops, nc->flops);
        t[k].bytes = tp_sat_add_u64(t[k].bytes, nc->bytes);
        t[k].ns += nc->total_ns;
    }
    for (uint32_t i = 1; i < n; i++) /* by time, descending */
        for (uint32_t k = i; k > 0 && t[k].ns > t[k - 1].ns; k--) {
            kind_total x = t[k];
            t[k] = t[k - 1];
            t[k - 1] = x;
        }
    return n;
}

static const char *bound_of(const tp_node_cost *nc) {
    if (nc->cls == TP_COST_METADATA) return "meta";
    if (nc->dispatch_ns > nc->compute_ns && nc->dispatch_ns > nc->memory_ns) return "dispatch";
    return nc->compute_ns > nc->memory_ns ? "compute" : "memory";
}

static void print_json(const prof_args *a, const tp_graph *g, const tp_device_model *dev,
                       const tp_graph_cost *gc, const uint32_t *top, uint32_t n_top) {
    tp_json j;
    tp_json_init(&j, stdout, true);
    tp_json_begin_object(&j);
    tp_json_kv_str(&j, "schema", "tensorplan.profile/1");
    tp_json_kv_str(&j, "tensorplan_version", tp_version());
    tp_json_kv_str(&j, "model", tp_cli_model_label(&a->model));
    tp_json_key(&j, "device");
    tp_cli_json_device(&j, dev);
    tp_json_kv_f64(&j, "total_ns", gc->total_ns);
    tp_json_kv_f64(&j, "round_trip_ns", gc->round_trip_ns);
    tp_json_kv_f64(&j, "nodes_ns", gc->nodes_ns);
    tp_json_kv_f64(&j, "layout_ns", gc->layout_ns);
    tp_json_kv_u64(&j, "layout_copies", gc->layout_copies);
    tp_json_kv_f64(&j, "readback_ns", gc->readback_ns);
    tp_json_kv_f64(&j, "sync_ns", gc->sync_ns);
    tp_json_kv_u64(&j, "flops", gc->flops);
    tp_json_kv_u64(&j, "bytes", gc->bytes);
    tp_json_key(&j, "io");
    tp_json_begin_object(&j);
    tp_json_kv_u64(&j, "kernel_launches", gc->io.kernel_launches);
    tp_json_kv_u64(&j, "device_traffic_bytes", gc->io.device_traffic_bytes);
    tp_json_kv_u64(&j, "sync_points", gc->io.sync_points);
    tp_json_kv_u64(&j, "host_output_bytes", gc->io.host_output_bytes);
    tp_json_kv_u64(&j, "host_readback_bytes", tp_io_host_readback_bytes(&gc->io, dev->unified));
    tp_json_kv_u64(&j, "metadata_nodes", gc->io.metadata_nodes);
    tp_json_end_object(&j);
    tp_cli_model_json_assumptions(&j, g);
    tp_json_key(&j, "hotspots");
    tp_json_begin_array(&j);
    for (uint32_t i = 0; i < n_top; i++)
        tp_json_u64(&j, top[i]);
    tp_json_end_array(&j);
    if (!a->summary) {
        tp_json_key(&j, "nodes");
        tp_json_begin_array(&j);
        for (uint32_t i = 0; i < gc->n_nodes; i++) {
            const tp_node_cost *nc = &gc->nodes[i];
            const tp_node *nd = tp_graph_node(g, (tp_node_id)i);
            tp_json_begin_object(&j);
            tp_json_kv_u64(&j, "node", i);
            tp_json_kv_str(&j, "name", nd->name);
            tp_json_kv_str(&j, "op", tp_op_name(&nd->op));
            tp_json_kv_str(&j, "bound", bound_of(nc));
            tp_json_kv_u64(&j, "flops", nc->flops);
            tp_json_kv_u64(&j, "bytes", nc->bytes);
            tp_json_kv_f64(&j, "compute_ns", nc->compute_ns);
            tp_json_kv_f64(&j, "memory_ns", nc->memory_ns);
            tp_json_kv_f64(&j, "dispatch_ns", nc->dispatch_ns);
            tp_json_kv_f64(&j, "total_ns", nc->total_ns);
            tp_json_end_object(&j);
        }
        tp_json_end_array(&j);
    }
    tp_json_end_object(&j);
    tp_json_finish(&j);
}

static void print_text(const prof_args *a, const tp_graph *g, const tp_device_model *dev,
                       const tp_graph_cost *gc, const uint32_t *top, uint32_t n_top) {
    char b1[32], b2[32], b3[32];
    printf("# model: %s, %u nodes (%llu kernels, %llu metadata)\n", tp_cli_model_label(&a->model),
           tp_graph_node_count(g), (unsigned long long)gc->io.kernel_launches,
           (unsigned long long)gc->io.metadata_nodes);
    char acc[512];
    printf("# device: %s (%s, source %s, gemm %s)\n", dev->name, tp_device_kind_name(dev->kind),
           tp_model_source_name(dev->source), dev->gemm_impl);
    printf("# accuracy: %s\n", tp_cli_accuracy_str(dev, acc, sizeof acc));
    if (!a->summary) {
        printf("# node\top\tbound\tflops\tbytes\ttime_us\tname\n");
        for (uint32_t i = 0; i < gc->n_nodes; i++) {
            const tp_node_cost *nc = &gc->nodes[i];
            if (nc->cls == TP_COST_METADATA) continue;
            const tp_node *nd = tp_graph_node(g, (tp_node_id)i);
            printf("%u\t%s\t%s\t%s\t%s\t%.2f\t%s\n", i, tp_op_name(&nd->op), bound_of(nc),
                   fmt_flops(nc->flops, b1, sizeof b1), tp_cli_fmt_bytes(nc->bytes, b2, sizeof b2),
                   nc->total_ns / 1e3, nd->name);
        }
    }
    kind_total kt[128];
    uint32_t nk = by_kind(g, gc, kt, 128);
    printf("# by op: op\tcount\tflops\tbytes\ttime_us\tshare\n");
    for (uint32_t k = 0; k < nk; k++)
        printf("#   %s\t%u\t%s\t%s\t%.1f\t%.1f%%\n", kt[k].name, kt[k].count,
               fmt_flops(kt[k].flops, b1, sizeof b1), tp_cli_fmt_bytes(kt[k].bytes, b2, sizeof b2),
               kt[k].ns / 1e3, gc->nodes_ns > 0 ? 100.0 * kt[k].ns / gc->nodes_ns : 0.0);
    printf("# top %u hotspots:\n", n_top);
    for (uint32_t i = 0; i < n_top; i++) {
        const tp_node_cost *nc = &gc->nodes[top[i]];
        const tp_node *nd = tp_graph_node(g, (tp_node_id)top[i]);
        printf("#   %2u. node %u %s '%s': %.2f us (%.1f%%), %s, %s flops, %s\n", i + 1, top[i],
               tp_op_name(&nd->op), nd->name, nc->total_ns / 1e3,
               gc->nodes_ns > 0 ? 100.0 * nc->total_ns / gc->nodes_ns : 0.0, bound_of(nc),
               fmt_flops(nc->flops, b1, sizeof b1), tp_cli_fmt_bytes(nc->bytes, b2, sizeof b2));
    }
    printf("# io: %llu kernel launches, device traffic %s, %llu sync points, host output %s, "
           "readback %s\n",
           (unsigned long long)gc->io.kernel_launches,
           tp_cli_fmt_bytes(gc->io.device_traffic_bytes, b1, sizeof b1),
           (unsigned long long)gc->io.sync_points,
           tp_cli_fmt_bytes(gc->io.host_output_bytes, b2, sizeof b2),
           tp_cli_fmt_bytes(tp_io_host_readback_bytes(&gc->io, dev->unified), b3, sizeof b3));
    printf("# total flops %s, bytes %s\n", fmt_flops(gc->flops, b1, sizeof b1),
           tp_cli_fmt_bytes(gc->bytes, b2, sizeof b2));
    printf("# predicted %.3f ms = round trip %.1f us + nodes %.1f us + layout copies %.1f us + "
           "readback %.1f us + sync %.1f us\n",
           gc->total_ns / 1e6, gc->round_trip_ns / 1e3, gc->nodes_ns / 1e3, gc->layout_ns / 1e3,
           gc->readback_ns / 1e3, gc->sync_ns / 1e3);
    if (gc->layout_copies)
        printf("# layout copies: %u NCHWc reorders onnxruntime adds (ReorderInput/Output)\n",
               gc->layout_copies);
    /* what the importer assumed or found (e.g. a denormal attention mask, an If's branch) */
    for (uint32_t k = 0; k < tp_graph_note_count(g); k++)
        printf("# note: %s\n", tp_graph_note(g, k));
}

static int run(prof_args *a) {
    const char *cmd = "profile";
    tp_error err;
    tp_error_clear(&err);
    tp_cli_devices devs;
    tp_cli_devices_init(&devs);
    devs.quick = a->quick;
    devs.quiet = a->json;
    tp_io_options io;
    int rc = tp_cli_devices_options(&devs, cmd, a->dtype, a->host_ops, &io);
    if (rc != 0) return rc;
    tp_graph *g = NULL;
    tp_device_model dev;
    tp_graph_cost gc;
    memset(&gc, 0, sizeof gc);
    tp_status s = tp_cli_model_load(&a->model, &g, &err);
    if (s == TP_OK) s = tp_cli_device_resolve(&devs, a->device, &dev, &err);
    if (s == TP_OK) s = tp_graph_cost_compute(g, &dev, &io, NULL, &gc, &err);
    if (s != TP_OK) {
        tp_cli_model_error(cmd, g, &err);
        tp_graph_destroy(g);
        tp_cli_devices_free(&devs);
        return tp_cli_exit_for(s);
    }
    uint32_t *top = a->top ? malloc(sizeof *top * a->top) : NULL;
    uint32_t n_top = top ? tp_graph_cost_top(&gc, a->top, top) : 0;
    if (a->json)
        print_json(a, g, &dev, &gc, top, n_top);
    else
        print_text(a, g, &dev, &gc, top, n_top);
    free(top);
    tp_graph_cost_destroy(&gc);
    tp_graph_destroy(g);
    tp_cli_devices_free(&devs);
    return TP_EXIT_OK;
}

int tp_cli_profile(int argc, char **argv) {
    prof_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc == 0) rc = run(&a);
    tp_cli_model_args_free(&a.model);
    return rc < 0 ? TP_EXIT_OK : rc; /* -1: --help */
}
