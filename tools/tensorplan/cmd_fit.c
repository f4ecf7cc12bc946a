/* tensorplan fit — the largest value of a symbolic dim (batch, seq) whose
 * estimated peak fits a budget. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cli_budget.h"
#include "cli_env.h"
#include "cli_llm_wtypes.h"
#include "cli_model.h"
#include "cli_options.h"
#include "tensorplan/estimate.h"
#include "tensorplan/sysmem.h"

typedef struct fit_args {
    tp_cli_model_args model; /* model.gguf: LLM mode, search ctx, seqs or ubatch */
    tp_estimate_options eo;
    tp_fit_options fo;
    bool json, has_budget;
    tp_llm_options llm;
    bool llm_opts;
    tp_cli_llm_wtypes wtypes; /* --weights-type LIST */
    bool has_wtypes;
    /* a list: the search per type (value 0 with err set: none) */
    tp_fit_result wt_fit[TP_WTYPES_MAX];
    bool wt_found[TP_WTYPES_MAX];
} fit_args;

static int apply_wtypes(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o;
    int r = tp_cli_llm_wtypes_parse(ctx->cmd, val, dest);
    return r == 1 ? 0 : r;
}

/* --dim NAME names the dimension to search; --dim NAME=VALUE binds one (dest: the fit_args) */
static int apply_dim(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    fit_args *a = dest;
    (void)o;
    if (strchr(val, '=')) return tp_cli_dims_opts[0].apply(ctx, o, val, &a->model.dims);
    if (a->fo.symbol)
        return tp_cli_usage_error(ctx->cmd, "only one dimension to search (got '%s' and '%s')",
                                  a->fo.symbol, val);
    a->fo.symbol = val;
    return 0;
}

#define FIT_BOUND(nm, field, hlp)                                                                  \
    {                                                                                              \
        .name = nm, .kind = TP_OPT_INT, .takes = true, .dest = offsetof(fit_args, fo.field),       \
        .value = "N", .imax = INT64_MAX, .what = "an integer >= 0", .help = hlp                    \
    }

static const tp_cli_opt fit_opts[] = {
    {.name = "dim",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .value = "NAME[=VALUE]",
     .what = "NAME or NAME=VALUE",
     .repeat = true,
     .apply = apply_dim,
     .help = "--dim NAME: the dimension to search (once);\n"
             "--dim NAME=VALUE binds another one (repeatable)"},
    TP_CLI_MODEL(fit_args, model),
    TP_OPT_BUDGET_ROW(fit_args, fo.budget_bytes, has_budget),
    FIT_BOUND("min", min_value, "smallest value tried (default 1)"),
    FIT_BOUND("max", max_value, "largest value tried (default 2^40)"),
    TP_CLI_LLM(fit_args, llm, llm_opts),
    {.name = "weights-type",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .dest = offsetof(fit_args, wtypes),
     .seen = TP_CLI_SEEN(fit_args, has_wtypes),
     .value = "T[,T...]",
     .what = "llama.cpp file types (q8_0,q4_k_m,...)",
     .apply = apply_wtypes,
     .help = "LLM: weights as llama-quantize would write them in file\n"
             "type T; one type: the search uses it; a list: the largest\n"
             "value per type in a table"},
    TP_CLI_PLAN(fit_args, eo.plan),
    TP_CLI_COMMON(fit_args, json),
    TP_CLI_END,
};

const tp_cli_command tp_cli_fit_command = {
    .name = "fit",
    .summary = "find the largest batch/sequence whose peak fits a budget",
    .synopsis = "[MODEL | --demo] --dim NAME [--budget SIZE] [options]\n"
                "MODEL.gguf --dim ctx|seqs|ubatch [--budget SIZE] [--ctx N]\n"
                " [--seqs N] [--ubatch N] [--kv-type T] [options]",
    .description =
        "Find the largest value of the symbolic dimension NAME whose estimated peak\n"
        "(activations + weights + inputs, as in 'tensorplan estimate') fits the budget:\n"
        "an exponential then binary search over re-bound plans, O(log value) plans.\n"
        "The peak is assumed to grow with NAME (true for batch and sequence dims).\n"
        "A .gguf model searches ctx, seqs or ubatch; its other LLM options are as in\n"
        "'tensorplan estimate --help'.",
    .opts = fit_opts,
    .examples = "tensorplan fit --demo --dim seq --budget 512MiB\n"
                "tensorplan fit --demo --dim batch --dim seq=256 --budget 2GiB --json\n"
                "tensorplan fit model.gguf --dim ctx --budget 24GiB --kv-type q8_0",
    .notes = "Human output uses binary units (1 MiB = 1048576 bytes); JSON has raw bytes.\n"
             "Exit codes: 0 found, 1 error, 2 usage error, 3 even the smallest value does not "
             "fit.",
    .json_help = "machine-readable output (raw byte counts)",
};

static int parse_args(fit_args *a, int argc, char **argv) {
    const char *cmd = "fit";
    memset(a, 0, sizeof *a);
    tp_cli_model_args_init(&a->model);
    a->model.accept_gguf = true;
    tp_estimate_options_default(&a->eo);
    tp_env_apply_plan(tp_cli_env(), &a->eo.plan);
    tp_fit_options_default(&a->fo);
    tp_llm_options_default(&a->llm);
    int rc = tp_cli_parse(&tp_cli_fit_command, argc, argv, a);
    if (rc) return rc;
    if (!a->fo.symbol)
        return tp_cli_usage_error(cmd, "name the dimension to search with --dim NAME (e.g. "
                                       "--dim seq)");
    if (a->model.gguf && (a->model.demo || a->model.dims.n))
        return tp_cli_usage_error(cmd,
                                  "a .gguf model takes --dim ctx|seqs|ubatch and --ctx/--seqs/"
                                  "--ubatch/--kv-type, not --demo, another model or --dim k=v");
    if (!a->model.gguf && (a->llm_opts || a->has_wtypes))
        return tp_cli_usage_error(cmd, "--ctx, --seqs, --ubatch, --kv-type and --weights-type "
                                       "apply to .gguf models");
    if (a->has_wtypes && (rc = tp_cli_llm_wtypes_check(cmd, &a->wtypes)) != 0) return rc;
    if (a->fo.max_value < a->fo.min_value)
        return tp_cli_usage_error(cmd, "--max %lld is below --min %lld", (long long)a->fo.max_value,
                                  (long long)a->fo.min_value);
    return 0;
}

static tp_status default_budget(uint64_t *out, tp_error *err) {
    char how[256];
    return tp_cli_default_budget(false, out, how, sizeof how, err);
}

static const char *model_label(const fit_args *a) {
    return a->model.gguf ? a->model.gguf : tp_cli_model_label(&a->model);
}

static void print_json(const fit_args *a, const tp_fit_result *r, bool found, const char *msg) {
    tp_json j;
    tp_json_init(&j, stdout, true);
    tp_json_begin_object(&j);
    tp_json_kv_str(&j, "schema", "tensorplan.fit/1");
    tp_json_kv_str(&j, "tensorplan_version", tp_version());
    tp_json_kv_str(&j, "model", model_label(a));
    tp_json_kv_str(&j, "dim", a->fo.symbol);
    tp_json_kv_u64(&j, "budget_bytes", a->fo.budget_bytes);
    tp_json_kv_bool(&j, "fits", found);
    tp_json_kv_i64(&j, "value", r->value);
    tp_json_kv_u64(&j, "peak_bytes", r->peak_bytes);
    tp_json_kv_u64(&j, "weights_bytes", r->estimate.weight_bytes);
    tp_json_kv_u64(&j, "activations_bytes", r->estimate.activation_bytes);
    tp_json_kv_u64(&j, "inputs_bytes", r->estimate.input_bytes);
    tp_json_kv_i64(&j, "next_value", r->next_value);
    if (r->next_evaluated)
        tp_json_kv_u64(&j, "next_peak_bytes", r->next_peak_bytes);
    else
        tp_json_kv_str(&j, "next_peak_bytes", "not evaluated");
    tp_json_kv_bool(&j, "at_max", r->at_max);
    tp_json_kv_i64(&j, "min", a->fo.min_value);
    tp_json_kv_i64(&j, "max", a->fo.max_value);
    tp_json_kv_u64(&j, "plans_evaluated", r->evaluations);
    if (!found) tp_json_kv_str(&j, "message", msg);
    if (a->wtypes.n == 1) tp_json_kv_str(&j, "weights_type", a->wtypes.name[0]);
    if (a->wtypes.n > 1) {
        tp_json_key(&j, "weights_types");
        tp_json_begin_array(&j);
        for (int i = 0; i < a->wtypes.n; i++) {
            tp_json_begin_object(&j);
            tp_json_kv_str(&j, "type", a->wtypes.name[i]);
            if (a->wtypes.err[i][0]) {
                tp_json_kv_str(&j, "error", a->wtypes.err[i]);
            } else {
                tp_json_kv_bool(&j, "fits", a->wt_found[i]);
                tp_json_kv_i64(&j, "value", a->wt_fit[i].value);
                tp_json_kv_u64(&j, "peak_bytes", a->wt_fit[i].peak_bytes);
                tp_json_kv_u64(&j, "weights_bytes", a->wt_fit[i].estimate.weight_bytes);
            }
            tp_json_end_object(&j);
        }
        tp_json_end_array(&j);
    }
    tp_json_end_object(&j);
    tp_json_finish(&j);
}

/* --weights-type with a list: the largest value per type. */
static void print_wtypes_text(const fit_args *a) {
    char b[2][32];
    const char *sym = a->fo.symbol;
    if (a->wtypes.n > 1) {
        printf("\nweights types (as llama-quantize writes them): largest %s\n", sym);
        printf("  %-10s  %12s  %12s  %12s\n", "type", sym, "weights", "peak");
        for (int i = 0; i < a->wtypes.n; i++) {
            const tp_fit_result *w = &a->wt_fit[i];
            if (a->wtypes.err[i][0])
                printf("  %-10s  n/a: %s\n", a->wtypes.name[i], a->wtypes.err[i]);
            else if (!a->wt_found[i])
                printf("  %-10s  %12s\n", a->wtypes.name[i], "none fits");
            else
                printf("  %-10s  %12lld  %12s  %12s\n", a->wtypes.name[i], (long long)w->value,
                       tp_cli_fmt_bytes(w->estimate.weight_bytes, b[0], sizeof b[0]),
                       tp_cli_fmt_bytes(w->peak_bytes, b[1], sizeof b[1]));
        }
    }
}

static void print_text(const fit_args *a, const tp_fit_result *r) {
    char b[5][32];
    const char *sym = a->fo.symbol;
    printf("model: %s\n", model_label(a));
    printf("largest %s that fits %s: %lld%s\n", sym,
           tp_cli_fmt_bytes(a->fo.budget_bytes, b[0], sizeof b[0]), (long long)r->value,
           r->at_max ? " (the --max bound, not the budget, stopped the search)" : "");
    printf("  peak at %s=%lld: %s (activations %s, weights %s, inputs %s)\n", sym,
           (long long)r->value, tp_cli_fmt_bytes(r->peak_bytes, b[1], sizeof b[1]),
           tp_cli_fmt_bytes(r->estimate.activation_bytes, b[2], sizeof b[2]),
           tp_cli_fmt_bytes(r->estimate.weight_bytes, b[3], sizeof b[3]),
           tp_cli_fmt_bytes(r->estimate.input_bytes, b[4], sizeof b[4]));
    if (r->next_evaluated) {
        if (r->next_peak_bytes == UINT64_MAX)
            printf("  peak at %s=%lld: beyond 64 bits\n", sym, (long long)r->next_value);
        else if (r->next_peak_bytes > a->fo.budget_bytes) {
            tp_format_bytes_pair(r->next_peak_bytes, a->fo.budget_bytes, b[0], b[1], sizeof b[0]);
            printf("  peak at %s=%lld: %s (exceeds the budget %s)\n", sym, (long long)r->next_value,
                   b[0], b[1]);
        } else
            printf("  peak at %s=%lld: %s\n", sym, (long long)r->next_value,
                   tp_cli_fmt_bytes(r->next_peak_bytes, b[0], sizeof b[0]));
    }
    printf("  %u evaluations (binary units: 1 MiB = 1048576 bytes)\n", r->evaluations);
    print_wtypes_text(a);
}

/* --weights-type with a list: one search per type. */
static void fit_per_type(fit_args *a) {
    for (int i = 0; i < a->wtypes.n; i++) {
        tp_llm_config lc;
        tp_error e;
        tp_error_clear(&e);
        a->wtypes.err[i][0] = '\0';
        memset(&a->wt_fit[i], 0, sizeof a->wt_fit[i]);
        tp_status st = tp_llm_read_as(a->model.gguf, a->wtypes.name[i], NULL, &lc, &e);
        if (st == TP_OK) st = tp_llm_max_fit(&lc, &a->llm, &a->fo, &a->wt_fit[i], &e);
        a->wt_found[i] = st == TP_OK;
        if (st != TP_OK && st != TP_ERR_OVER_BUDGET)
            snprintf(a->wtypes.err[i], sizeof a->wtypes.err[i], "%s", e.msg);
    }
}

static int run(fit_args *a) {
    tp_error err;
    tp_error_clear(&err);
    if (!a->has_budget && default_budget(&a->fo.budget_bytes, &err) != TP_OK) {
        tp_error_prefix(&err, "cannot determine the default budget (pass --budget): ");
        tp_cli_error("fit", &err);
        return TP_EXIT_ERROR;
    }
    tp_fit_result r;
    memset(&r, 0, sizeof r);
    tp_status st;
    if (a->model.gguf) {
        tp_llm_config lc;
        const char *as = a->wtypes.n == 1 ? a->wtypes.name[0] : NULL;
        st = tp_llm_read_as(a->model.gguf, as, NULL, &lc, &err);
        if (st == TP_OK) st = tp_llm_max_fit(&lc, &a->llm, &a->fo, &r, &err);
        if ((st == TP_OK || st == TP_ERR_OVER_BUDGET) && a->wtypes.n > 1) {
            tp_error keep = err;
            fit_per_type(a);
            err = keep;
        }
    } else {
        tp_graph *g = NULL;
        st = tp_cli_model_load(&a->model, &g, &err);
        if (st == TP_OK) st = tp_estimate_max_fit(g, &a->fo, &a->eo, &r, &err);
        bool failed = st != TP_OK && st != TP_ERR_OVER_BUDGET;
        if (failed) tp_cli_model_error("fit", g, &err);
        tp_graph_destroy(g);
        if (failed) return tp_cli_exit_for(st);
    }
    if (st == TP_ERR_OVER_BUDGET) {
        if (a->json)
            print_json(a, &r, false, err.msg);
        else {
            printf("model: %s\nno %s fits: %s\n", model_label(a), a->fo.symbol, err.msg);
            print_wtypes_text(a);
        }
        return TP_EXIT_OVER_BUDGET;
    }
    if (st != TP_OK) {
        tp_cli_error("fit", &err);
        return tp_cli_exit_for(st);
    }
    if (a->json)
        print_json(a, &r, true, "");
    else
        print_text(a, &r);
    return TP_EXIT_OK;
}

int tp_cli_fit(int argc, char **argv) {
    fit_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc == 0) rc = run(&a);
    tp_cli_model_args_free(&a.model);
    return rc < 0 ? TP_EXIT_OK : rc; /* -1: --help */
}
