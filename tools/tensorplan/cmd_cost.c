/* tensorplan cost — predicted latency per device and the device choice. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_device.h"
#include "cli_model.h"
#include "cli_predict.h"

typedef struct cost_args {
    tp_cli_model_args model;
    const char *devices, *dtype, *catalog, *host_ops;
    tp_device_policy policy;
    double efficiency;
    bool json, quick;
} cost_args;

static const tp_cli_opt cost_opts[] = {
    TP_CLI_MODEL(cost_args, model),
    TP_OPT_STRING_ROW("devices", cost_args, devices, "LIST",
                      "candidates, comma-separated (default cpu,cuda):\n"
                      "  cpu          this CPU, calibrated (cached)\n"
                      "  cuda         the first CUDA GPU, measured (if present)\n"
                      "  KIND-default built-in figures (cpu, cuda, rocm, metal, gpu)\n"
                      "  NAME         a catalog device (h100-sxm, h100-pcie, h200,\n"
                      "               a100-80gb, a100-40gb, l4, t4, a10, rtx4090,\n"
                      "               mi300x, apple-m2, rpi5, ...)\n"
                      "  all          cpu, cuda and every catalog device"),
    TP_OPT_STRING_ROW("allow", cost_args, policy.allow, "LIST",
                      "only these names or kinds (default $TENSORPLAN_DEVICES)"),
    TP_OPT_STRING_ROW("deny", cost_args, policy.deny, "LIST",
                      "never these (default $TENSORPLAN_DENY_DEVICES)"),
    TP_OPT_STRING_ROW("prefer", cost_args, policy.prefer, "LIST",
                      "choose among these when any is a candidate\n"
                      "(default $TENSORPLAN_PREFER_DEVICES)"),
    TP_CLI_DEVICE_DTYPE(cost_args, dtype),
    TP_OPT_REAL_ROW("efficiency", cost_args, efficiency, "X", DBL_TRUE_MIN, 1.0,
                    "a number in (0, 1]",
                    "achieved/peak for catalog GPUs (default 0.5; CPUs learn it\n"
                    "from this machine's calibration)"),
    TP_OPT_FILE_ROW("catalog", cost_args, catalog, "FILE",
                    "a device catalog CSV instead of the built-in one"),
    TP_CLI_DEVICE_QUICK(cost_args, quick),
    TP_CLI_DEVICE_HOST_OPS(cost_args, host_ops),
    TP_CLI_COMMON(cost_args, json),
    TP_CLI_END,
};

const tp_cli_command tp_cli_cost_command = {
    .name = "cost",
    .summary = "predict latency on several devices and pick the best one",
    .synopsis = "[MODEL | --demo] [--dim NAME=VALUE]... [options]",
    .description = "Predict one forward pass of the model on each candidate device (round trip +\n"
                   "per-op roofline + readback + sync points) and choose the best device:\n"
                   "default-source models are dropped when a measured or catalog one exists; the\n"
                   "allow/deny/prefer lists apply; ties go to cuda, rocm, metal, gpu, cpu.",
    .opts = cost_opts,
    .examples = "tensorplan cost --demo --devices cpu,h100-sxm,l4,rpi5\n"
                "TENSORPLAN_DENY_DEVICES=cuda tensorplan cost model.onnx --devices all --json",
    .notes = "Exit codes: 0 ok, 1 error (bad model, no device left), 2 usage error.",
    .json_help = "machine-readable output (nanoseconds)",
};

static int parse_args(cost_args *a, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    tp_cli_model_args_init(&a->model);
    a->devices = "cpu,cuda";
    return tp_cli_parse(&tp_cli_cost_command, argc, argv, a);
}

static void print_json(const cost_args *a, const tp_cli_candidate *c, uint32_t n, int chosen,
                       const char *why) {
    tp_json j;
    tp_json_init(&j, stdout, true);
    tp_json_begin_object(&j);
    tp_json_kv_str(&j, "schema", "tensorplan.cost/1");
    tp_json_kv_str(&j, "tensorplan_version", tp_version());
    tp_json_kv_str(&j, "model", tp_cli_model_label(&a->model));
    tp_json_key(&j, "devices");
    tp_json_begin_array(&j);
    for (uint32_t i = 0; i < n; i++) {
        tp_json_begin_object(&j);
        tp_json_kv_str(&j, "request", c[i].name);
        tp_json_kv_bool(&j, "available", c[i].ok);
        if (c[i].ok) {
            tp_json_key(&j, "model");
            tp_cli_json_device(&j, &c[i].m);
            tp_json_kv_f64(&j, "total_ns", c[i].gc.total_ns);
            tp_json_kv_f64(&j, "round_trip_ns", c[i].gc.round_trip_ns);
            tp_json_kv_f64(&j, "nodes_ns", c[i].gc.nodes_ns);
            tp_json_kv_f64(&j, "readback_ns", c[i].gc.readback_ns);
            tp_json_kv_f64(&j, "sync_ns", c[i].gc.sync_ns);
        } else {
            tp_json_kv_str(&j, "reason", c[i].why);
        }
        tp_json_end_object(&j);
    }
    tp_json_end_array(&j);
    if (chosen >= 0)
        tp_json_kv_str(&j, "choice", c[chosen].m.name);
    else
        tp_json_kv_str(&j, "choice_error", why);
    tp_json_end_object(&j);
    tp_json_finish(&j);
}

static void print_text(const cost_args *a, const tp_graph *g, const tp_cli_candidate *c, uint32_t n,
                       int chosen, const char *why) {
    printf("# model: %s, %u nodes\n", tp_cli_model_label(&a->model), tp_graph_node_count(g));
    printf("# device\tkind\tsource\tpredicted_ms\tnodes_ms\treadback_ms\tsync_ms\tgemm\n");
    for (uint32_t i = 0; i < n; i++) {
        if (!c[i].ok) {
            printf("%s\t-\t-\tunavailable: %s\n", c[i].name, c[i].why);
            continue;
        }
        const tp_device_model *m = &c[i].m;
        printf("%s\t%s\t%s\t%.4f\t%.4f\t%.4f\t%.4f\t%s%s\n", m->name, tp_device_kind_name(m->kind),
               tp_model_source_name(m->source), c[i].gc.total_ns / 1e6, c[i].gc.nodes_ns / 1e6,
               c[i].gc.readback_ns / 1e6, c[i].gc.sync_ns / 1e6, m->gemm_impl,
               (int)i == chosen ? "\t<- chosen" : "");
    }
    for (uint32_t i = 0; i < n; i++) {
        char acc[512];
        if (c[i].ok)
            printf("# accuracy %s: %s\n", c[i].m.name,
                   tp_cli_accuracy_str(&c[i].m, acc, sizeof acc));
    }
    if (chosen >= 0)
        printf("# choice: %s (%.4f ms predicted)\n", c[chosen].m.name, c[chosen].gc.total_ns / 1e6);
    else
        printf("# choice: none (%s)\n", why);
}

static int run(cost_args *a) {
    const char *cmd = "cost";
    tp_error err;
    tp_error_clear(&err);
    tp_cli_devices devs;
    tp_cli_devices_init(&devs);
    devs.quick = a->quick;
    devs.quiet = a->json;
    devs.efficiency = a->efficiency;
    devs.catalog_path = a->catalog;
    tp_io_options io;
    int rc = tp_cli_devices_options(&devs, cmd, a->dtype, a->host_ops, &io);
    if (rc != 0) return rc;
    tp_graph *g = NULL;
    tp_status s = tp_cli_model_load(&a->model, &g, &err);
    tp_catalog *cat;
    if (s == TP_OK && a->catalog) s = tp_cli_devices_catalog(&devs, &cat, &err);
    if (s != TP_OK) {
        tp_cli_error(cmd, &err);
        tp_graph_destroy(g);
        tp_cli_devices_free(&devs);
        return tp_cli_exit_for(s);
    }
    char names[TP_CLI_MAX_DEVICES][TP_DEVICE_NAME_CAP];
    if (tp_cli_device_names(a->devices, &devs, names, TP_CLI_MAX_DEVICES) == 0) {
        tp_graph_destroy(g);
        tp_cli_devices_free(&devs);
        return tp_cli_usage_error(cmd, "--devices lists no device");
    }
    tp_cli_prediction pr;
    s = tp_cli_predict(g, &devs, a->devices, &io, &a->policy, &pr, &err);
    if (s != TP_OK) {
        tp_cli_model_error(cmd, g, &err); /* a model error: the same for every device */
        tp_graph_destroy(g);
        tp_cli_devices_free(&devs);
        return tp_cli_exit_for(s);
    }
    int exit_code = TP_EXIT_OK;
    const tp_cli_candidate *c = pr.c;
    uint32_t n = pr.n;
    int chosen = pr.chosen;
    const char *why = pr.why;
    if (a->json)
        print_json(a, c, n, chosen, why);
    else
        print_text(a, g, c, n, chosen, why);
    if (chosen < 0) {
        exit_code = TP_EXIT_ERROR;
        /* the table says why per device; stderr says that the command failed */
        fprintf(stderr, "tensorplan %s: error: %s", cmd, why);
        for (uint32_t i = 0; i < n && i < 4; i++)
            if (!c[i].ok) fprintf(stderr, "%s %s: %s", i ? ";" : ":", c[i].name, c[i].why);
        fputc('\n', stderr);
    }
    tp_cli_prediction_free(&pr);
    tp_graph_destroy(g);
    tp_cli_devices_free(&devs);
    return exit_code;
}

int tp_cli_cost(int argc, char **argv) {
    cost_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc == 0) rc = run(&a);
    tp_cli_model_args_free(&a.model);
    return rc < 0 ? TP_EXIT_OK : rc; /* -1: --help */
}
