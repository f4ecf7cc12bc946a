/* tensorplan report — the main job: one screen a person reads top to bottom.
 *
 * Model summary; unique weights / planned activations (arena, versus no reuse
 * and versus the lower bound) / inputs / peak; fits or the deficit against the
 * budget; the largest activations and where the peak occurs; the IO profile;
 * predicted latency per device and the choice. --json, --svg FILE, --html FILE.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_budget.h"
#include "cli_families.h"
#include "cli_env.h"
#include "cli_model.h"
#include "cli_predict.h"
#include "report_html.h"
#include "tensorplan/runtime.h"

#define TOP_MAX 64

typedef struct report_args {
    tp_cli_model_args model;
    const char *devices, *svg, *html;
    uint64_t budget;
    bool has_budget, json, full_calib;
    bool bundled; /* no MODEL given: the bundled example */
    uint32_t top;
} report_args;

static const tp_cli_opt report_opts[] = {
    TP_CLI_MODEL(report_args, model),
    TP_OPT_BUDGET_ROW(report_args, budget, has_budget),
    TP_OPT_STRING_ROW("devices", report_args, devices, "LIST",
                      "devices to predict on (default cpu,cuda; see 'tensorplan cost\n"
                      "--help' for names, e.g. cpu,h100-sxm,l4,rpi5 or all)"),
    TP_OPT_U32_ROW("top", report_args, top, "N", 1, TOP_MAX,
                   "largest activations to list (default 8)"),
    TP_OPT_FILE_ROW("svg", report_args, svg, "FILE",
                    "write the memory map (x = step, y = offset) as SVG"),
    TP_OPT_FILE_ROW("html", report_args, html, "FILE",
                    "write a self-contained HTML page (map, tables, hover details)"),
    TP_OPT_FLAG_ROW("full-calibration", report_args, full_calib,
                    "calibrate this CPU fully when no calibration is cached\n"
                    "(default: a quick calibration, cached)"),
    TP_CLI_COMMON(report_args, json),
    TP_CLI_END,
};

const tp_cli_command tp_cli_report_command = {
    .name = "report",
    .summary = "the main job: memory, fit, peak, IO and latency of a model on one screen",
    .synopsis = "[MODEL | --demo] [--dim NAME=VALUE]... [options]",
    .description =
        "Everything tensorplan knows about a model before loading a weight: a summary,\n"
        "unique weights, the planned activation arena (versus no reuse and versus the\n"
        "lower bound), inputs and the peak; whether it fits the budget or by how much it\n"
        "does not; the largest activations and where the peak occurs; the IO profile;\n"
        "predicted latency per device and the device choice. Without MODEL it reports on\n"
        "the bundled example (examples/models/, else the built-in demo transformer).\n"
        "A .gguf model is reported as 'tensorplan estimate MODEL.gguf' (its options).",
    .opts = report_opts,
    .examples = "tensorplan report\n"
                "tensorplan report model.onnx --dim batch=8 --budget 4GiB --html report.html\n"
                "tensorplan report --demo --devices cpu,h100-sxm,rpi5 --json",
    .notes = "Exit codes: 0 fits, 1 error, 2 usage error, 3 the peak exceeds the budget.",
    .json_help = "machine-readable output (schema tensorplan.report/1)",
};

/* The bundled example (examples/models/mobilenet_v2.onnx, made by
 * scripts/make_example_model.sh): from the source tree, else the installed copy. */
static const char *bundled_example(void) {
    static const char *const paths[] = {TP_EXAMPLE_MODEL_SRC, TP_EXAMPLE_MODEL_INSTALLED};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        FILE *f = fopen(paths[i], "rb");
        if (f) {
            fclose(f);
            return paths[i];
        }
    }
    return NULL;
}

/* No MODEL and no --demo: the bundled example at batch 1 (user --dim values,
 * applied later, override), or the built-in demo when it is not installed. */
static int default_model(report_args *a) {
    tp_cli_model_args *m = &a->model;
    if (m->path || m->demo) return 0;
    const char *ex = bundled_example();
    if (!ex) {
        m->demo = true;
        return 0;
    }
    m->path = ex;
    a->bundled = true;
    if (tp_cli_dims_insert(&m->dims, 0, "batch=1", NULL)) return 0;
    tp_error err;
    tp_error_set(&err, TP_ERR_NOMEM, "out of memory");
    tp_cli_error("report", &err);
    return TP_EXIT_ERROR;
}

static int parse_args(report_args *a, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    tp_cli_model_args_init(&a->model);
    a->devices = "cpu,cuda";
    a->top = 8;
    int rc = tp_cli_parse(&tp_cli_report_command, argc, argv, a);
    return rc ? rc : default_model(a);
}

static const char *model_label(const report_args *a) {
    return a->bundled ? "bundled example (examples/models/mobilenet_v2.onnx, batch=1)"
                      : tp_cli_model_label(&a->model);
}

/* Everything the three writers (text, JSON, HTML) need. */
typedef struct report {
    const report_args *a;
    const tp_graph *g;
    tp_estimate est;
    tp_runtime_estimate ort; /* the onnxruntime profile (CPU EP, default options) */
    tp_plan *act;            /* activation plan (boundary buffers not allocated) */
    uint64_t noreuse_bytes;  /* activation arena with no reuse */
    uint64_t budget;
    char budget_how[256];
    bool fits;
    tp_deficit deficit;
    char deficit_msg[TP_ERROR_MSG_CAP];
    uint32_t top[TOP_MAX], n_top; /* slot indices of the largest activations */
    uint64_t *live;
    int64_t *ends; /* last step of each node's buffer (tp_plan_buffer_ends) */
    size_t steps, peak_step;
    uint32_t at_peak[TOP_MAX], n_at_peak; /* slot indices alive at the peak, largest first */
    tp_io_profile io;
    tp_cli_prediction pred;
    bool have_pred;
    char pred_error[TP_ERROR_MSG_CAP];
    uint32_t kind_count[TP_OP_KIND_COUNT];
    uint32_t n_params, n_inputs;
} report;

static bool is_buffer(const tp_slot *s) {
    return !s->is_view && !s->inplace;
}

/* Insert slot index i into a list kept sorted by size, descending (ties by node). */
static void top_insert(const tp_plan *p, uint32_t *list, uint32_t *n, uint32_t cap, uint32_t i) {
    const tp_slot *s = tp_plan_slot(p, i);
    uint32_t pos = *n;
    while (pos > 0) {
        const tp_slot *o = tp_plan_slot(p, list[pos - 1]);
        if (o->size > s->size || (o->size == s->size && o->node < s->node)) break;
        pos--;
    }
    if (pos >= cap) return;
    uint32_t last = *n < cap ? *n : cap - 1;
    for (uint32_t k = last; k > pos; k--)
        list[k] = list[k - 1];
    list[pos] = i;
    if (*n < cap) (*n)++;
}

static tp_status gather(report *r, tp_error *err) {
    const tp_graph *g = r->g;
    for (uint32_t i = 0; i < tp_graph_node_count(g); i++) {
        const tp_node *n = tp_graph_node(g, (tp_node_id)i);
        r->kind_count[n->op.kind]++;
        if (n->op.kind == TP_OP_PARAM && n->op.attrs.param.tied_to < 0) r->n_params++;
        if (n->op.kind == TP_OP_INPUT) r->n_inputs++;
    }
    tp_plan_options po;
    tp_plan_options_default(&po);
    tp_env_apply_plan(tp_cli_env(), &po);
    /* the onnxruntime profile holds the parsed model file: its size is known here only */
    uint64_t file_bytes = 0;
    tp_status st = tp_cli_model_file_bytes(&r->a->model, &file_bytes, err);
    if (st != TP_OK) return st;
    tp_memory_summary ms;
    if ((st = tp_memory_summary_compute(g, &po, file_bytes, &ms, err)) != TP_OK) return st;
    r->est = ms.estimate;
    r->act = ms.activation_plan; /* r owns it now */
    r->ort = ms.onnxruntime;
    r->noreuse_bytes = ms.noreuse_bytes;

    if (r->a->has_budget) {
        r->budget = r->a->budget;
        snprintf(r->budget_how, sizeof r->budget_how, "--budget");
    } else if ((st = tp_cli_default_budget(false, &r->budget, r->budget_how, sizeof r->budget_how,
                                           err)) != TP_OK) {
        return st;
    }
    tp_error fe;
    tp_error_clear(&fe);
    st = tp_estimate_fits_in(&r->est, r->budget, &r->deficit, &fe);
    if (st != TP_OK && st != TP_ERR_OVER_BUDGET) {
        if (err) *err = fe;
        return st;
    }
    r->fits = st == TP_OK;
    snprintf(r->deficit_msg, sizeof r->deficit_msg, "%s", fe.msg);

    size_t cap = (size_t)tp_graph_node_count(g) + 1;
    r->live = calloc(cap, sizeof *r->live);
    if (!r->live) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    if ((st = tp_plan_live_bytes(r->act, g, r->live, cap, &r->steps, &r->peak_step, err)) != TP_OK)
        return st;
    r->ends = calloc(cap, sizeof *r->ends);
    if (!r->ends) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    if ((st = tp_plan_buffer_ends(r->act, g, r->ends, cap, err)) != TP_OK) return st;
    for (uint32_t i = 0; i < tp_plan_slot_count(r->act); i++) {
        const tp_slot *s = tp_plan_slot(r->act, i);
        if (!is_buffer(s)) continue;
        top_insert(r->act, r->top, &r->n_top, r->a->top, i);
        int64_t t = (int64_t)r->peak_step;
        if (s->birth <= t && t <= r->ends[s->node])
            top_insert(r->act, r->at_peak, &r->n_at_peak, 5, i);
    }
    if ((st = tp_io_profile_compute(g, NULL, &r->io, err)) != TP_OK) return st;
    return TP_OK;
}

static void predict(report *r, tp_cli_devices *devs) {
    tp_error e;
    tp_error_clear(&e);
    tp_device_policy policy = {NULL, NULL, NULL};
    if (tp_cli_predict(r->g, devs, r->a->devices, NULL, &policy, &r->pred, &e) == TP_OK)
        r->have_pred = true;
    else
        snprintf(r->pred_error, sizeof r->pred_error, "%s", e.msg);
}

static const char *node_name(const tp_graph *g, tp_node_id id, char *buf, size_t cap) {
    const tp_node *n = tp_graph_node(g, id);
    if (n && n->name[0]) return n->name;
    snprintf(buf, cap, "%%%d", (int)id);
    return buf;
}

/* ---------------------------------------------------------------- text */

/* One line per tensor: name, dtype, shape, size; a numbered family
 * (cli_families.h) is one line with its total size and member count. */
static void print_shape_lines(const tp_graph *g, const tp_node_id *ids, uint32_t n,
                              const char *what) {
    enum { KEY_CAP = 288 };
    const char **names = malloc((n ? n : 1) * sizeof *names);
    const char **keys = malloc((n ? n : 1) * sizeof *keys);
    char *key_text = malloc((n ? n : 1) * (size_t)KEY_CAP);
    tp_cli_family *fam = malloc((n ? n : 1) * sizeof *fam);
    uint32_t *family_of = malloc((n ? n : 1) * sizeof *family_of);
    uint32_t nf = 0;
    if (names && keys && key_text && fam && family_of) {
        for (uint32_t i = 0; i < n; i++) {
            const tp_node *nd = tp_graph_node(g, ids[i]);
            char sh[256];
            names[i] = nd->name;
            keys[i] = key_text + (size_t)i * KEY_CAP;
            snprintf(key_text + (size_t)i * KEY_CAP, KEY_CAP, "%s %s", tp_dtype_name(nd->dtype),
                     tp_graph_shape_str(g, &nd->shape, sh, sizeof sh));
        }
        nf = tp_cli_name_families(names, keys, n, fam, family_of);
    } else { /* out of memory: every tensor on its own line */
        free(fam);
        fam = NULL;
    }
    for (uint32_t f = 0; f < (fam ? nf : n); f++) {
        uint32_t first = fam ? fam[f].first : f, count = fam ? fam[f].count : 1;
        const tp_node *nd = tp_graph_node(g, ids[first]);
        char sh[256], nb[32], el[64];
        uint64_t total = 0, bytes = 0;
        bool ok = true;
        for (uint32_t i = first; i < n; i++)
            if ((fam ? family_of[i] == f : i == first)) {
                ok = ok && tp_graph_node_bytes(g, ids[i], &bytes, NULL) == TP_OK &&
                     tp_add_u64(total, bytes, &total);
            }
        tp_graph_shape_str(g, &nd->shape, sh, sizeof sh);
        printf("    %-28s %-6s %-28s %s",
               tp_cli_elide(fam ? fam[f].label : nd->name, 28, el, sizeof el),
               tp_dtype_name(nd->dtype), sh, ok ? tp_cli_fmt_bytes(total, nb, sizeof nb) : "?");
        if (count > 1) printf("  (%u %s)", count, what);
        printf("\n");
    }
    free(names);
    free(keys);
    free(key_text);
    free(fam);
    free(family_of);
}

static void print_text(const report *r) {
    const tp_graph *g = r->g;
    char b[8][32];
    printf("tensorplan report: %s\n\n", model_label(r->a));
    printf("MODEL\n  %u nodes, %u params, %u inputs, %u outputs\n", tp_graph_node_count(g),
           r->n_params, r->n_inputs, tp_graph_output_count(g));
    printf("  ops:");
    uint32_t shown = 0;
    bool used[TP_OP_KIND_COUNT] = {false};
    while (shown < 8) {
        int best = -1;
        for (int k = 0; k < TP_OP_KIND_COUNT; k++)
            if (!used[k] && r->kind_count[k] &&
                (best < 0 || r->kind_count[k] > r->kind_count[best]))
                best = k;
        if (best < 0) break;
        used[best] = true;
        printf("%s %s x%u", shown ? "," : "", tp_op_kind_name((tp_op_kind)best),
               r->kind_count[best]);
        shown++;
    }
    printf("\n");
    if (tp_graph_symbol_count(g)) {
        printf("  dims:");
        for (uint32_t i = 0; i < tp_graph_symbol_count(g); i++) {
            int64_t v;
            const char *nm = tp_graph_symbol_name(g, i);
            if (tp_graph_dim_value(g, tp_graph_symbol_dim(g, i), &v, NULL) == TP_OK)
                printf(" %s=%" PRId64, nm, v);
            else
                printf(" %s=(unbound)", nm);
        }
        printf("\n");
    }
    tp_node_id *ids = malloc((tp_graph_node_count(g) + 1) * sizeof *ids);
    uint32_t n_ids = 0;
    for (uint32_t i = 0; ids && i < tp_graph_node_count(g); i++)
        if (tp_graph_node(g, (tp_node_id)i)->op.kind == TP_OP_INPUT) ids[n_ids++] = (tp_node_id)i;
    printf("  inputs:\n");
    print_shape_lines(g, ids, n_ids, "inputs");
    n_ids = 0;
    for (uint32_t i = 0; ids && i < tp_graph_output_count(g); i++)
        ids[n_ids++] = tp_graph_output(g, i);
    printf("  outputs:\n");
    print_shape_lines(g, ids, n_ids, "outputs");
    free(ids);

    uint64_t arena = tp_plan_arena_bytes(r->act), lb = tp_plan_lower_bound_bytes(r->act);
    printf("\nMEMORY (binary units)\n");
    printf("  weights (unique)   %12s\n", tp_cli_fmt_bytes(r->est.weight_bytes, b[0], 32));
    char r1[32], r2[32];
    printf("  activations        %12s  arena; no reuse %s (%sx), lower bound %s (arena/LB "
           "%s)\n",
           tp_cli_fmt_bytes(r->est.activation_bytes, b[1], 32),
           tp_cli_fmt_bytes(r->noreuse_bytes, b[2], 32),
           tp_cli_fmt_ratio(r->noreuse_bytes, arena, 2, r1, sizeof r1),
           tp_cli_fmt_bytes(lb, b[3], 32), tp_cli_fmt_ratio(arena, lb, 4, r2, sizeof r2));
    printf("  inputs             %12s\n", tp_cli_fmt_bytes(r->est.input_bytes, b[4], 32));
    printf("  peak               %12s  (runtime: plan, the best plan)\n",
           tp_cli_fmt_bytes(r->est.peak_bytes, b[5], 32));
    printf("  onnxruntime (CPU)  %12s  (+%s over the best plan: session %s, pre-packed %s, "
           "arena %s, output copies %s; docs/runtime.md)\n",
           tp_cli_fmt_bytes(r->ort.peak_bytes, b[0], 32),
           tp_cli_fmt_bytes(tp_sat_sub_u64(r->ort.peak_bytes, r->ort.plan_peak_bytes), b[1], 32),
           tp_cli_fmt_bytes(r->ort.session_fixed_bytes, b[2], 32),
           tp_cli_fmt_bytes(r->ort.prepacked_bytes, b[3], 32),
           tp_cli_fmt_bytes(r->ort.arena_bytes, b[4], 32),
           tp_cli_fmt_bytes(r->ort.output_copy_bytes, b[5], 32));
    if (r->ort.not_modelled && r->ort.not_modelled[0])
        printf("  not modelled       %s: the onnxruntime figure may be low\n", r->ort.not_modelled);
    printf("  budget             %12s  (%s)\n", tp_cli_fmt_bytes(r->budget, b[6], 32),
           r->budget_how);
    if (r->fits)
        printf("  FITS: %s headroom\n",
               tp_cli_fmt_bytes(tp_sat_sub_u64(r->budget, r->est.peak_bytes), b[7], 32));
    else
        printf("  DOES NOT FIT: %s\n", r->deficit_msg);

    char nb[32], el[64];
    printf("\nLARGEST ACTIVATIONS\n  %-44s %-14s %10s  %s\n", "node", "op", "size", "live steps");
    for (uint32_t i = 0; i < r->n_top; i++) {
        const tp_slot *s = tp_plan_slot(r->act, r->top[i]);
        const tp_node *n = tp_graph_node(g, s->node);
        printf("  %-44s %-14s %10s  %" PRId64 "..%" PRId64 "\n",
               tp_cli_elide(node_name(g, s->node, nb, sizeof nb), 44, el, sizeof el),
               tp_op_name(&n->op), tp_cli_fmt_bytes(s->size, b[0], 32), s->birth, r->ends[s->node]);
    }
    printf(
        "\nPEAK\n  %s live at step %zu (node %s); largest live there:\n",
        tp_cli_fmt_bytes(r->live[r->peak_step], b[0], 32), r->peak_step,
        r->peak_step < tp_graph_node_count(g)
            ? tp_cli_elide(node_name(g, (tp_node_id)r->peak_step, nb, sizeof nb), 60, el, sizeof el)
            : "(end of run)");
    for (uint32_t i = 0; i < r->n_at_peak; i++) {
        const tp_slot *s = tp_plan_slot(r->act, r->at_peak[i]);
        char nb2[32];
        printf("    %-44s %10s\n",
               tp_cli_elide(node_name(g, s->node, nb2, sizeof nb2), 44, el, sizeof el),
               tp_cli_fmt_bytes(s->size, b[1], 32));
    }
    printf("\nIO PROFILE\n  %" PRIu64 " kernel launches, %s device traffic, %" PRIu64
           " sync points, %s read back (%s without unified memory)\n",
           r->io.kernel_launches, tp_cli_fmt_bytes(r->io.device_traffic_bytes, b[0], 32),
           r->io.sync_points, tp_cli_fmt_bytes(r->io.host_output_bytes, b[1], 32),
           tp_cli_fmt_bytes(tp_io_host_readback_bytes(&r->io, false), b[2], 32));

    printf("\nLATENCY (predicted, one forward pass)\n");
    if (!r->have_pred) {
        printf("  not predicted: %s\n", r->pred_error);
        return;
    }
    for (uint32_t i = 0; i < r->pred.n; i++) {
        const tp_cli_candidate *c = &r->pred.c[i];
        if (!c->ok) {
            printf("  %-14s unavailable: %s\n", c->name, c->why);
            continue;
        }
        printf("  %-14s %10.3f ms  (%s, %s GEMM)%s\n", c->m.name, c->gc.total_ns / 1e6,
               tp_model_source_name(c->m.source), c->m.gemm_impl,
               (int)i == r->pred.chosen ? "  <- chosen" : "");
    }
    if (r->pred.chosen >= 0)
        printf("  choice: %s\n", r->pred.c[r->pred.chosen].m.name);
    else
        printf("  choice: none (%s)\n", r->pred.why);
}

/* ---------------------------------------------------------------- JSON */

static void json_slot(tp_json *j, const report *r, uint32_t idx) {
    const tp_slot *s = tp_plan_slot(r->act, idx);
    const tp_node *n = tp_graph_node(r->g, s->node);
    tp_json_begin_object(j);
    tp_json_kv_i64(j, "node", s->node);
    tp_json_kv_str(j, "name", n->name);
    tp_json_kv_str(j, "op", tp_op_name(&n->op));
    tp_json_kv_u64(j, "size_bytes", s->size);
    tp_json_kv_u64(j, "offset_bytes", s->offset);
    tp_json_kv_i64(j, "birth", s->birth);
    tp_json_kv_i64(j, "death", r->ends[s->node]);
    tp_json_end_object(j);
}

static void print_json(const report *r) {
    const tp_graph *g = r->g;
    tp_json j;
    tp_json_init(&j, stdout, true);
    tp_json_begin_object(&j);
    tp_json_kv_str(&j, "schema", "tensorplan.report/1");
    tp_json_kv_str(&j, "tensorplan_version", tp_version());
    tp_json_kv_str(&j, "model", model_label(r->a));
    tp_json_kv_u64(&j, "nodes", tp_graph_node_count(g));
    tp_json_kv_u64(&j, "params", r->n_params);
    tp_json_key(&j, "op_counts");
    tp_json_begin_object(&j);
    for (int k = 0; k < TP_OP_KIND_COUNT; k++)
        if (r->kind_count[k]) tp_json_kv_u64(&j, tp_op_kind_name((tp_op_kind)k), r->kind_count[k]);
    tp_json_end_object(&j);
    tp_json_kv_u64(&j, "weights_bytes", r->est.weight_bytes);
    tp_json_kv_u64(&j, "activations_bytes", r->est.activation_bytes);
    tp_json_kv_u64(&j, "activations_no_reuse_bytes", r->noreuse_bytes);
    tp_json_kv_u64(&j, "lower_bound_bytes", tp_plan_lower_bound_bytes(r->act));
    tp_json_kv_u64(&j, "inputs_bytes", r->est.input_bytes);
    tp_json_kv_u64(&j, "peak_bytes", r->est.peak_bytes);
    tp_json_kv_u64(&j, "budget_bytes", r->budget);
    tp_json_kv_str(&j, "budget_source", r->budget_how);
    tp_json_kv_bool(&j, "fits", r->fits);
    tp_json_kv_u64(&j, "deficit_bytes", r->deficit.deficit_bytes);
    if (!r->fits) tp_json_kv_str(&j, "deficit_message", r->deficit_msg);
    tp_json_kv_str(&j, "runtime", "plan");
    tp_json_key(&j, "onnxruntime");
    tp_json_begin_object(&j);
    tp_json_kv_u64(&j, "peak_bytes", r->ort.peak_bytes);
    tp_json_kv_u64(&j, "over_plan_bytes",
                   tp_sat_sub_u64(r->ort.peak_bytes, r->ort.plan_peak_bytes));
    tp_json_kv_u64(&j, "session_fixed_bytes", r->ort.session_fixed_bytes);
    tp_json_kv_u64(&j, "graph_bytes", r->ort.graph_bytes);
    tp_json_kv_u64(&j, "model_copy_bytes", r->ort.model_copy_bytes);
    tp_json_kv_u64(&j, "weight_bytes", r->ort.weight_bytes);
    tp_json_kv_u64(&j, "prepacked_bytes", r->ort.prepacked_bytes);
    tp_json_kv_u64(&j, "arena_bytes", r->ort.arena_bytes);
    tp_json_kv_u64(&j, "input_bytes", r->ort.input_bytes);
    tp_json_kv_u64(&j, "output_copy_bytes", r->ort.output_copy_bytes);
    tp_json_kv_u64(&j, "calibration_margin_bytes", r->ort.calibration_margin_bytes);
    tp_json_kv_str(&j, "not_modelled", r->ort.not_modelled ? r->ort.not_modelled : "");
    tp_json_end_object(&j);
    tp_json_key(&j, "largest_activations");
    tp_json_begin_array(&j);
    for (uint32_t i = 0; i < r->n_top; i++)
        json_slot(&j, r, r->top[i]);
    tp_json_end_array(&j);
    tp_json_key(&j, "peak");
    tp_json_begin_object(&j);
    tp_json_kv_u64(&j, "step", r->peak_step);
    tp_json_kv_u64(&j, "live_bytes", r->live[r->peak_step]);
    tp_json_key(&j, "largest_live");
    tp_json_begin_array(&j);
    for (uint32_t i = 0; i < r->n_at_peak; i++)
        json_slot(&j, r, r->at_peak[i]);
    tp_json_end_array(&j);
    tp_json_end_object(&j);
    tp_json_key(&j, "io");
    tp_json_begin_object(&j);
    tp_json_kv_u64(&j, "kernel_launches", r->io.kernel_launches);
    tp_json_kv_u64(&j, "device_traffic_bytes", r->io.device_traffic_bytes);
    tp_json_kv_u64(&j, "sync_points", r->io.sync_points);
    tp_json_kv_u64(&j, "host_output_bytes", r->io.host_output_bytes);
    tp_json_kv_u64(&j, "host_readback_unified_bytes", tp_io_host_readback_bytes(&r->io, true));
    tp_json_kv_u64(&j, "host_readback_discrete_bytes", tp_io_host_readback_bytes(&r->io, false));
    tp_json_end_object(&j);
    tp_json_key(&j, "devices");
    tp_json_begin_array(&j);
    for (uint32_t i = 0; r->have_pred && i < r->pred.n; i++) {
        const tp_cli_candidate *c = &r->pred.c[i];
        tp_json_begin_object(&j);
        tp_json_kv_str(&j, "request", c->name);
        tp_json_kv_bool(&j, "available", c->ok);
        if (c->ok) {
            tp_json_kv_str(&j, "name", c->m.name);
            tp_json_kv_str(&j, "source", tp_model_source_name(c->m.source));
            tp_json_kv_f64(&j, "total_ns", c->gc.total_ns);
        } else {
            tp_json_kv_str(&j, "reason", c->why);
        }
        tp_json_end_object(&j);
    }
    tp_json_end_array(&j);
    if (r->have_pred && r->pred.chosen >= 0)
        tp_json_kv_str(&j, "choice", r->pred.c[r->pred.chosen].m.name);
    else {
        tp_json_key(&j, "choice");
        tp_json_null(&j);
    }
    tp_json_end_object(&j);
    tp_json_finish(&j);
}

/* ---------------------------------------------------------------- SVG / HTML */

static char *render_svg(const report *r, tp_error *err) {
    tp_svg_options so;
    tp_svg_options_default(&so);
    so.title = "activation arena: x = step, y = offset";
    char *svg = NULL;
    size_t len = 0;
    if (tp_plan_svg(r->act, r->g, &so, &svg, &len, err) != TP_OK) return NULL;
    return svg;
}

static int write_failed(const char *what, const char *path) {
    fprintf(stderr, "tensorplan report: error: cannot write %s to '%s': %s\n", what, path,
            errno ? strerror(errno) : "write error");
    return TP_EXIT_ERROR;
}

static int write_file(const char *path, const char *text, const char *what) {
    errno = 0;
    FILE *f = fopen(path, "w");
    if (!f) return write_failed(what, path);
    bool ok = fputs(text, f) >= 0 && fflush(f) == 0;
    int e = errno;
    if (fclose(f) != 0) ok = false;
    if (!ok && e) errno = e;
    return ok ? TP_EXIT_OK : write_failed(what, path);
}

static void html_row(FILE *f, const char *k, const char *v) {
    fputs("<tr><th>", f);
    tp_cli_html_escape(f, k);
    fputs("</th><td class=\"num\">", f);
    tp_cli_html_escape(f, v);
    fputs("</td></tr>\n", f);
}

/* One bar per runtime profile, stacked by term, on a common scale, with the budget line. */
static void html_runtime_bars(FILE *f, const report *r) {
    struct {
        const char *label, *color;
        uint64_t plan, ort;
    } terms[] = {
        {"weights", "#4e79a7", r->est.weight_bytes, r->ort.weight_bytes},
        {"activations / arena", "#f28e2b", r->est.activation_bytes, r->ort.arena_bytes},
        {"inputs", "#76b7b2", r->est.input_bytes, r->ort.input_bytes},
        {"output copies", "#59a14f", 0, r->ort.output_copy_bytes},
        {"pre-packed copies", "#e15759", 0, r->ort.prepacked_bytes},
        {"session + nodes + model copy + margin", "#bab0ac", 0,
         r->ort.session_fixed_bytes + r->ort.graph_bytes + r->ort.model_copy_bytes +
             r->ort.calibration_margin_bytes},
    };
    uint64_t top = r->ort.peak_bytes > r->budget ? r->ort.peak_bytes : r->budget;
    if (r->est.peak_bytes > top) top = r->est.peak_bytes;
    if (top == 0) return;
    const double w = 600.0;
    fputs("<h2>Runtimes</h2>\n<svg id=\"runtimes\" width=\"760\" height=\"110\" "
          "xmlns=\"http://www.w3.org/2000/svg\">\n",
          f);
    const char *names[2] = {"best plan", "onnxruntime"};
    for (int row = 0; row < 2; row++) {
        double x = 150.0, y = 10.0 + 40.0 * row;
        fprintf(f, "<text x=\"0\" y=\"%.0f\">%s</text>\n", y + 18, names[row]);
        for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++) {
            uint64_t v = row ? terms[i].ort : terms[i].plan;
            double bw = w * (double)v / (double)top;
            if (bw <= 0) continue;
            char b[32];
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"26\" "
                    "fill=\"%s\"><title>%s %s</title></rect>\n",
                    x, y, bw, terms[i].color, terms[i].label, tp_cli_fmt_bytes(v, b, sizeof b));
            x += bw;
        }
    }
    double bx = 150.0 + w * (double)r->budget / (double)top;
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"4\" x2=\"%.1f\" y2=\"96\" stroke=\"black\" "
            "stroke-dasharray=\"4 2\"><title>budget</title></line>\n</svg>\n",
            bx, bx);
}

static void html_tables(FILE *f, const report *r) {
    char b[4][64], nb[32];
    fputs("<h2>Memory</h2>\n<table id=\"memory\">\n", f);
    html_row(f, "weights (unique)", tp_cli_fmt_bytes(r->est.weight_bytes, b[0], 64));
    html_row(f, "activations (arena)", tp_cli_fmt_bytes(r->est.activation_bytes, b[0], 64));
    html_row(f, "activations, no reuse", tp_cli_fmt_bytes(r->noreuse_bytes, b[0], 64));
    html_row(f, "lower bound", tp_cli_fmt_bytes(tp_plan_lower_bound_bytes(r->act), b[0], 64));
    html_row(f, "inputs", tp_cli_fmt_bytes(r->est.input_bytes, b[0], 64));
    html_row(f, "peak", tp_cli_fmt_bytes(r->est.peak_bytes, b[0], 64));
    html_row(f, "onnxruntime (CPU, default options)",
             tp_cli_fmt_bytes(r->ort.peak_bytes, b[0], 64));
    html_row(f, "onnxruntime over the best plan",
             tp_cli_fmt_bytes(tp_sat_sub_u64(r->ort.peak_bytes, r->est.peak_bytes), b[0], 64));
    html_row(f, "budget", tp_cli_fmt_bytes(r->budget, b[0], 64));
    fputs("</table>\n", f);
    html_runtime_bars(f, r);
    if (r->fits)
        fprintf(f, "<p id=\"verdict\" class=\"fits\">fits, %s headroom</p>\n",
                tp_cli_fmt_bytes(tp_sat_sub_u64(r->budget, r->est.peak_bytes), b[0], 64));
    else {
        fputs("<p id=\"verdict\" class=\"over\">does not fit: ", f);
        tp_cli_html_escape(f, r->deficit_msg);
        fputs("</p>\n", f);
    }
    fputs("<h2>Largest activations</h2>\n<table id=\"largest\"><tr><th>node</th><th>op</th>"
          "<th class=\"num\">size</th><th class=\"num\">offset</th><th>live steps</th></tr>\n",
          f);
    for (uint32_t i = 0; i < r->n_top; i++) {
        const tp_slot *s = tp_plan_slot(r->act, r->top[i]);
        fputs("<tr><td>", f);
        tp_cli_html_escape(f, node_name(r->g, s->node, nb, sizeof nb));
        fprintf(f,
                "</td><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%" PRIu64
                "</td><td>%" PRId64 "..%" PRId64 "</td></tr>\n",
                tp_op_name(&tp_graph_node(r->g, s->node)->op), tp_cli_fmt_bytes(s->size, b[0], 64),
                s->offset, s->birth, r->ends[s->node]);
    }
    fputs("</table>\n<h2>IO profile</h2>\n<table id=\"io\">\n", f);
    snprintf(b[1], 64, "%" PRIu64, r->io.kernel_launches);
    html_row(f, "kernel launches", b[1]);
    html_row(f, "device traffic", tp_cli_fmt_bytes(r->io.device_traffic_bytes, b[0], 64));
    snprintf(b[1], 64, "%" PRIu64, r->io.sync_points);
    html_row(f, "sync points", b[1]);
    html_row(f, "host output", tp_cli_fmt_bytes(r->io.host_output_bytes, b[0], 64));
    fputs("</table>\n<h2>Predicted latency</h2>\n<table id=\"latency\"><tr><th>device</th>"
          "<th>source</th><th class=\"num\">ms</th><th></th></tr>\n",
          f);
    for (uint32_t i = 0; r->have_pred && i < r->pred.n; i++) {
        const tp_cli_candidate *c = &r->pred.c[i];
        fputs("<tr><td>", f);
        tp_cli_html_escape(f, c->name);
        if (c->ok)
            fprintf(f, "</td><td>%s</td><td class=\"num\">%.3f</td><td>%s</td></tr>\n",
                    tp_model_source_name(c->m.source), c->gc.total_ns / 1e6,
                    (int)i == r->pred.chosen ? "chosen" : "");
        else {
            fputs("</td><td colspan=\"3\">unavailable: ", f);
            tp_cli_html_escape(f, c->why);
            fputs("</td></tr>\n", f);
        }
    }
    fputs("</table>\n", f);
}

static int write_outputs(const report *r) {
    if (!r->a->svg && !r->a->html) return TP_EXIT_OK;
    tp_error err;
    tp_error_clear(&err);
    char *svg = render_svg(r, &err);
    if (!svg) {
        tp_cli_error("report", &err);
        return tp_cli_exit_for(err.status);
    }
    int rc = TP_EXIT_OK;
    if (r->a->svg) rc = write_file(r->a->svg, svg, "the SVG");
    if (rc == TP_EXIT_OK && r->a->html) {
        char *tables = NULL;
        size_t tlen = 0;
        FILE *mf = open_memstream(&tables, &tlen);
        errno = 0;
        FILE *f = mf ? fopen(r->a->html, "w") : NULL;
        if (!f) {
            rc = write_failed("the page", r->a->html);
        } else {
            html_tables(mf, r);
            fclose(mf);
            mf = NULL;
            char title[512];
            snprintf(title, sizeof title, "tensorplan report: %s", model_label(r->a));
            errno = 0;
            bool ok = tp_cli_write_html(f, title, svg, tables) == 0 && fflush(f) == 0;
            int e = errno;
            if (fclose(f) != 0) ok = false;
            if (!ok) {
                if (e) errno = e;
                rc = write_failed("the page", r->a->html);
            }
        }
        if (mf) fclose(mf);
        free(tables);
    }
    tp_free_string(svg);
    return rc;
}

static int run(report_args *a);

/* A .gguf LLM has no graph here yet: its report is the estimate's llama.cpp terms. */
static bool gguf_model(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        size_t n = strlen(argv[i]);
        if (argv[i][0] != '-' && n > 5 && strcmp(argv[i] + n - 5, ".gguf") == 0) return true;
    }
    return false;
}

int tp_cli_report(int argc, char **argv) {
    if (gguf_model(argc, argv)) {
        bool json = false;
        for (int i = 1; i < argc; i++)
            json = json || strcmp(argv[i], "--json") == 0;
        if (!json)
            printf("tensorplan report: LLM memory as llama.cpp allocates it (the estimate's "
                   "terms; options as for `tensorplan estimate MODEL.gguf`)\n");
        return tp_cli_estimate(argc, argv);
    }
    report_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc == 0) rc = run(&a);
    tp_cli_model_args_free(&a.model);
    return rc < 0 ? TP_EXIT_OK : rc; /* -1: --help */
}

static int run(report_args *a) {
    const char *cmd = "report";
    int rc;
    tp_error err;
    tp_error_clear(&err);
    report r;
    memset(&r, 0, sizeof r);
    r.a = a;
    tp_graph *g = NULL;
    tp_status st = tp_cli_model_load(&a->model, &g, &err);
    if (st == TP_OK) {
        r.g = g;
        st = gather(&r, &err);
    }
    if (st != TP_OK) {
        tp_cli_model_error(cmd, g, &err);
        rc = tp_cli_exit_for(st);
        goto done;
    }
    tp_cli_devices devs;
    tp_cli_devices_init(&devs);
    devs.quick = !a->full_calib;
    devs.quiet = a->json; /* --quiet is handled for every command by main() */
    if (tp_cli_progress_enabled(a->json))
        fprintf(stderr, "tensorplan report: predicting latency (%s)...\n", a->devices);
    predict(&r, &devs);
    if (a->json)
        print_json(&r);
    else
        print_text(&r);
    rc = write_outputs(&r);
    if (rc == TP_EXIT_OK && !r.fits) rc = TP_EXIT_OVER_BUDGET;
    if (r.have_pred) tp_cli_prediction_free(&r.pred);
    tp_cli_devices_free(&devs);
done:
    free(r.live);
    free(r.ends);
    tp_plan_destroy(r.act);
    tp_graph_destroy(g);
    return rc;
}
