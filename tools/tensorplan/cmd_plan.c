/* tensorplan plan — plan a model's arena and print the text plan report
 * (tp_plan_report_text). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_env.h"
#include "cli_model.h"
#include "cli_options.h"

typedef struct plan_args {
    tp_cli_model_args model;
    tp_plan_options po;
    bool json;
} plan_args;

static int apply_no_reuse(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)ctx, (void)o, (void)val;
    *(tp_alloc_algo *)dest = TP_ALGO_NO_REUSE;
    return 0;
}

#define PLAN_TIME(nm, hlp)                                                                         \
    TP_OPT_REAL_ROW(nm, plan_args, po.time_limit_s, "S", 0.0, 1e6, "seconds from 0 to 1000000", hlp)

static const tp_cli_opt plan_opts[] = {
    TP_CLI_MODEL(plan_args, model),
    TP_OPT_ALGO_ROW(plan_args, po.algo,
                    "auto (default: the best heuristic, then exact search\n"
                    "within --plan-time), greedy (the reference), noreuse,\n"
                    "bestfit, exact"),
    PLAN_TIME("plan-time", "search budget in seconds for auto/exact, 0 to 1000000\n"
                           "(default 0.25; the search stops early at the lower bound\n"
                           "or a proof)"),
    PLAN_TIME("time-limit", "same as --plan-time"),
    {.name = "no-reuse",
     .kind = TP_OPT_CUSTOM,
     .dest = offsetof(plan_args, po.algo),
     .apply = apply_no_reuse,
     .help = "every buffer at its own offset (same as --algo noreuse)"},
    TP_OPT_FLAG_ROW("pin-outputs", plan_args, po.pin_output_ancestors,
                    "keep every ancestor of an output alive to the end"),
    TP_OPT_UNSET_ROW("no-params", plan_args, po.allocate_params,
                     "do not place weights (activations and inputs only)"),
    TP_CLI_PLAN(plan_args, po),
    TP_CLI_COMMON(plan_args, json),
    TP_CLI_END,
};

const tp_cli_command tp_cli_plan_command = {
    .name = "plan",
    .summary = "plan the memory arena of a model (offsets, lifetimes, report)",
    .synopsis = "[MODEL | --demo] [--dim NAME=VALUE]... [options]",
    .description = "Plan where every tensor of the model lives in one arena and print the report:\n"
                   "  # arena_size=A total_unshared=T saved=S\n"
                   "  # offset<TAB>size<TAB>node\n"
                   "  one row per slot, sorted by offset\n"
                   "followed by a summary (arena, lower bound, arena/LB; binary units).",
    .opts = plan_opts,
    .examples = "tensorplan plan --demo --dim seq=512\n"
                "tensorplan plan --demo --algo bestfit --json",
    .notes = "Exit codes: 0 ok, 1 error (bad model, unbound dims), 2 usage error.",
    .json_help = "machine-readable output (raw byte counts)",
};

static int parse_args(plan_args *a, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    tp_cli_model_args_init(&a->model);
    tp_plan_options_default(&a->po);
    tp_env_apply_plan(tp_cli_env(), &a->po);
    /* Graphs: the best heuristic, then a short exact search, so plans are proven
     * optimal where the search can show it (TENSORPLAN_ARENA_NO_REUSE still wins). */
    if (a->po.algo == TP_ALGO_GREEDY_SIZE) {
        a->po.algo = TP_ALGO_AUTO;
        a->po.time_limit_s = 0.25;
    }
    return tp_cli_parse(&tp_cli_plan_command, argc, argv, a);
}

static void print_json(const plan_args *a, const tp_plan *p, const tp_graph *g) {
    tp_json j;
    tp_json_init(&j, stdout, true);
    tp_json_begin_object(&j);
    tp_json_kv_str(&j, "schema", "tensorplan.plan/1");
    tp_json_kv_str(&j, "tensorplan_version", tp_version());
    tp_json_kv_str(&j, "model", tp_cli_model_label(&a->model));
    const tp_alloc_result *r = tp_plan_alloc_result(p);
    tp_json_kv_str(&j, "algo", tp_alloc_algo_name(r->algo_used));
    tp_json_kv_u64(&j, "alignment", a->po.alignment);
    tp_json_kv_u64(&j, "nodes", tp_graph_node_count(g));
    tp_json_kv_u64(&j, "arena_bytes", tp_plan_arena_bytes(p));
    tp_json_kv_u64(&j, "lower_bound_bytes", tp_plan_lower_bound_bytes(p));
    tp_json_kv_ratio(&j, "arena_over_lower_bound", tp_plan_arena_bytes(p),
                     tp_plan_lower_bound_bytes(p));
    tp_json_kv_u64(&j, "unshared_bytes", tp_plan_unshared_bytes(p));
    tp_json_kv_u64(&j, "saved_bytes", tp_plan_saved_bytes(p));
    tp_json_kv_u64(&j, "inplace_saved_bytes", tp_plan_inplace_saved_bytes(p));
    tp_json_kv_bool(&j, "optimal", r->optimal);
    tp_json_key(&j, "slots");
    tp_json_begin_array(&j);
    for (uint32_t k = 0; k < tp_plan_slot_count(p); k++) {
        const tp_slot *s = tp_plan_slot(p, k);
        const tp_node *nd = tp_graph_node(g, s->node);
        tp_json_begin_object(&j);
        tp_json_kv_i64(&j, "node", s->node);
        tp_json_kv_str(&j, "name", nd->name);
        tp_json_kv_str(&j, "op", tp_op_name(&nd->op));
        tp_json_kv_u64(&j, "offset", s->offset);
        tp_json_kv_u64(&j, "size", s->size);
        tp_json_kv_i64(&j, "birth", s->birth);
        tp_json_kv_i64(&j, "death", s->death);
        tp_json_kv_bool(&j, "view", s->is_view);
        tp_json_kv_bool(&j, "inplace", s->inplace);
        tp_json_kv_i64(&j, "root", s->root);
        tp_json_end_object(&j);
    }
    tp_json_end_array(&j);
    tp_json_end_object(&j);
    tp_json_finish(&j);
}

static void print_summary(const tp_plan *p, const tp_graph *g, const plan_args *a) {
    char b1[32], b2[32], b3[32], b4[32], b5[32], rb[32];
    const tp_alloc_result *r = tp_plan_alloc_result(p);
    printf("# model: %s, %u nodes, %u slots, algo %s, alignment %llu\n",
           tp_cli_model_label(&a->model), tp_graph_node_count(g), tp_plan_slot_count(p),
           tp_alloc_algo_name(r->algo_used), (unsigned long long)a->po.alignment);
    printf("# arena %s, lower bound %s, arena/LB %s%s\n",
           tp_cli_fmt_bytes(tp_plan_arena_bytes(p), b1, sizeof b1),
           tp_cli_fmt_bytes(tp_plan_lower_bound_bytes(p), b2, sizeof b2),
           tp_cli_fmt_ratio(tp_plan_arena_bytes(p), tp_plan_lower_bound_bytes(p), 3, rb, sizeof rb),
           r->optimal ? " (optimal)" : "");
    printf("# unshared %s, saved %s, in-place saved %s (binary units: KiB = 1024 B)\n",
           tp_cli_fmt_bytes(tp_plan_unshared_bytes(p), b3, sizeof b3),
           tp_cli_fmt_bytes(tp_plan_saved_bytes(p), b4, sizeof b4),
           tp_cli_fmt_bytes(tp_plan_inplace_saved_bytes(p), b5, sizeof b5));
}

static int run(plan_args *a) {
    tp_error err;
    tp_error_clear(&err);
    tp_graph *g = NULL;
    tp_plan *p = NULL;
    tp_status st = tp_cli_model_load(&a->model, &g, &err);
    if (st == TP_OK) st = tp_plan_graph(g, &a->po, &p, &err);
    if (st != TP_OK) {
        tp_cli_model_error("plan", g, &err);
        tp_graph_destroy(g);
        return tp_cli_exit_for(st);
    }
    if (a->json) {
        print_json(a, p, g);
    } else {
        char *txt = NULL;
        size_t len = 0;
        st = tp_plan_report_text(p, g, &txt, &len, &err);
        if (st != TP_OK) {
            tp_cli_error("plan", &err);
            tp_plan_destroy(p);
            tp_graph_destroy(g);
            return tp_cli_exit_for(st);
        }
        fwrite(txt, 1, len, stdout);
        tp_free_string(txt);
        print_summary(p, g, a);
    }
    tp_plan_destroy(p);
    tp_graph_destroy(g);
    return TP_EXIT_OK;
}

int tp_cli_plan(int argc, char **argv) {
    plan_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc == 0) rc = run(&a);
    tp_cli_model_args_free(&a.model);
    return rc < 0 ? TP_EXIT_OK : rc; /* -1: --help */
}
