/* tensorplan fit — the largest value of a symbolic dim (batch, seq) whose
 * estimated peak fits a budget. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cli_budget.h"
#include "cli_env.h"
#include "cli_model.h"
#include "cli_options.h"
#include "tensorplan/estimate.h"
#include "tensorplan/sysmem.h"

const char tp_cli_fit_summary[] = "find the largest batch/sequence whose peak fits a budget";

static void usage(FILE *f) {
    fprintf(f,
            "usage: tensorplan fit [MODEL | --demo] --dim NAME [--budget SIZE] [options]\n"
            "       tensorplan fit MODEL.gguf --dim ctx|seqs|ubatch [--budget SIZE] [--ctx N]\n"
            "                      [--seqs N] [--ubatch N] [--kv-type T] [options]\n\n"
            "Find the largest value of the symbolic dimension NAME whose estimated peak\n"
            "(activations + weights + inputs, as in 'tensorplan estimate') fits the budget:\n"
            "an exponential then binary search over re-bound plans, O(log value) plans.\n"
            "The peak is assumed to grow with NAME (true for batch and sequence dims).\n\n"
            "model:\n%s"
            "  (--dim NAME without '=' names the dimension to search)\n\n"
            "options:\n"
            "  --budget SIZE      memory budget: 512MiB, 8GiB, 1.5G, or plain bytes\n"
            "                     (default: this machine's soft budget, 0.80 x available)\n"
            "  --ctx, --seqs, --ubatch N, --kv-type T\n"
            "                     .gguf: the LLM options that are not searched (see\n"
            "                     'tensorplan estimate --help')\n"
            "  --min N            smallest value tried (default 1)\n"
            "  --max N            largest value tried (default 2^40)\n"
            "  --align N          arena alignment, a power of two (default 64)\n"
            "  --algo NAME        allocator for the activation plans (default greedy)\n"
            "  --no-inplace       disable in-place reuse for elementwise ops\n"
            "  --json             machine-readable output (raw byte counts)\n"
            "  --help             this text\n\n"
            "examples:\n"
            "  tensorplan fit --demo --dim seq --budget 512MiB\n"
            "  tensorplan fit --demo --dim batch --dim seq=256 --budget 2GiB --json\n"
            "  tensorplan fit model.gguf --dim ctx --budget 24GiB --kv-type q8_0\n\n"
            "Human output uses binary units (1 MiB = 1048576 bytes); JSON has raw bytes.\n"
            "Exit codes: 0 found, 1 error, 2 usage error, 3 even the smallest value does not "
            "fit.\n",
            tp_cli_model_usage);
}

typedef struct fit_args {
    tp_cli_model_args model;
    tp_estimate_options eo;
    tp_fit_options fo;
    bool json, has_budget;
    const char *gguf; /* LLM mode: search ctx, seqs or ubatch of a .gguf model */
    tp_llm_options llm;
    bool llm_opts;
} fit_args;

static bool ends_with_gguf(const char *s) {
    size_t n = strlen(s);
    return n > 5 && strcasecmp(s + n - 5, ".gguf") == 0;
}

static bool parse_i64(const char *s, int64_t *out) {
    char *end = NULL;
    errno = 0;
    long long v = s ? strtoll(s, &end, 10) : 0;
    if (!s || end == s || *end || errno || v < 0) return false;
    *out = (int64_t)v;
    return true;
}

static int parse_args(fit_args *a, int argc, char **argv) {
    const char *cmd = "fit";
    memset(a, 0, sizeof *a);
    tp_cli_model_args_init(&a->model);
    tp_estimate_options_default(&a->eo);
    tp_env_apply_plan(tp_cli_env(), &a->eo.plan);
    tp_fit_options_default(&a->fo);
    tp_llm_options_default(&a->llm);
    for (int i = 1; i < argc;) {
        const char *s = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (s[0] != '-' && ends_with_gguf(s)) {
            if (a->gguf || a->model.path)
                return tp_cli_usage_error(cmd, "more than one model given");
            a->gguf = s;
            i++;
            continue;
        }
        /* --dim NAME (no '='): the dimension to search */
        if (strcmp(s, "--dim") == 0 && val && !strchr(val, '=')) {
            if (a->fo.symbol)
                return tp_cli_usage_error(cmd, "only one dimension to search (got '%s' and '%s')",
                                          a->fo.symbol, val);
            a->fo.symbol = val;
            i += 2;
            continue;
        }
        int r = tp_cli_model_arg(&a->model, cmd, argc, argv, &i);
        if (r == 1) continue;
        if (r != 0) return r;
        bool takes_value = false;
        if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
            usage(stdout);
            return -1;
        } else if (strcmp(s, "--json") == 0) {
            a->json = true;
        } else if (strcmp(s, "--no-inplace") == 0) {
            a->eo.plan.inplace = false;
        } else if (strcmp(s, "--budget") == 0) {
            if (!val || !tp_cli_parse_size(val, &a->fo.budget_bytes))
                return tp_cli_usage_error(cmd,
                                          "--budget needs a size (512MiB, 8GiB, 1.5G, bytes), "
                                          "got '%s'",
                                          val ? val : "");
            a->has_budget = true;
            takes_value = true;
        } else if (strcmp(s, "--min") == 0 || strcmp(s, "--max") == 0) {
            int64_t v;
            if (!parse_i64(val, &v))
                return tp_cli_usage_error(cmd, "%s needs an integer >= 0, got '%s'", s,
                                          val ? val : "");
            if (s[3] == 'i')
                a->fo.min_value = v;
            else
                a->fo.max_value = v;
            takes_value = true;
        } else {
            int r2 = tp_cli_plan_option(cmd, s, val, &a->eo.plan);
            if (r2 == 0) r2 = tp_cli_llm_option(cmd, s, val, &a->llm, &a->llm_opts);
            if (r2 == 0) return tp_cli_usage_error(cmd, "unknown option '%s'", s);
            if (r2 != 1 && r2 != TP_CLI_OPT_FLAG) return r2;
            takes_value = r2 == 1;
        }
        i += takes_value ? 2 : 1;
    }
    if (!a->fo.symbol)
        return tp_cli_usage_error(cmd, "name the dimension to search with --dim NAME (e.g. "
                                       "--dim seq)");
    if (a->gguf && (a->model.demo || a->model.path || a->model.n_dims))
        return tp_cli_usage_error(cmd,
                                  "a .gguf model takes --dim ctx|seqs|ubatch and --ctx/--seqs/"
                                  "--ubatch/--kv-type, not --demo, another model or --dim k=v");
    if (!a->gguf && a->llm_opts)
        return tp_cli_usage_error(cmd, "--ctx, --seqs, --ubatch and --kv-type apply to .gguf "
                                       "models");
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
    return a->gguf ? a->gguf : tp_cli_model_label(&a->model);
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
    tp_json_end_object(&j);
    tp_json_finish(&j);
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
}

int tp_cli_fit(int argc, char **argv) {
    fit_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc < 0) return TP_EXIT_OK; /* --help */
    if (rc != 0) return rc;
    tp_error err;
    tp_error_clear(&err);
    if (!a.has_budget && default_budget(&a.fo.budget_bytes, &err) != TP_OK) {
        tp_error_prefix(&err, "cannot determine the default budget (pass --budget): ");
        tp_cli_error("fit", &err);
        return TP_EXIT_ERROR;
    }
    tp_fit_result r;
    memset(&r, 0, sizeof r);
    tp_status st;
    if (a.gguf) {
        tp_llm_config lc;
        st = tp_gguf_read_llm(a.gguf, NULL, &lc, &err);
        if (st == TP_OK) st = tp_llm_max_fit(&lc, &a.llm, &a.fo, &r, &err);
    } else {
        tp_graph *g = NULL;
        st = tp_cli_model_load(&a.model, &g, &err);
        if (st == TP_OK) st = tp_estimate_max_fit(g, &a.fo, &a.eo, &r, &err);
        bool failed = st != TP_OK && st != TP_ERR_OVER_BUDGET;
        if (failed) tp_cli_model_error("fit", g, &err);
        tp_graph_destroy(g);
        if (failed) return tp_cli_exit_for(st);
    }
    if (st == TP_ERR_OVER_BUDGET) {
        if (a.json)
            print_json(&a, &r, false, err.msg);
        else
            printf("model: %s\nno %s fits: %s\n", model_label(&a), a.fo.symbol, err.msg);
        return TP_EXIT_OVER_BUDGET;
    }
    if (st != TP_OK) {
        tp_cli_error("fit", &err);
        return tp_cli_exit_for(st);
    }
    if (a.json)
        print_json(&a, &r, true, "");
    else
        print_text(&a, &r);
    return TP_EXIT_OK;
}
