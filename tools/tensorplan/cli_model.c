/* The CLI's model loader: --demo / a model file by extension, then --dim, then
 * the default bindings (tp_graph_bind_defaults: batch-like and unnamed input
 * dims = 1, said on one stderr line). */
#include "cli_model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "tensorplan/demo.h"

typedef tp_status (*model_loader)(const tp_cli_model_args *a, tp_graph **out, tp_error *err);

/* --dim values and --input-value values are known while converting: an If on a bound dim or
 * a given input takes its branch. */
static tp_status load_onnx(const tp_cli_model_args *a, tp_graph **out, tp_error *err) {
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    if (a->dims.n > UINT32_MAX)
        return tp_error_set(err, TP_ERR_OVERFLOW, "%zu dimension bindings", a->dims.n);
    const char **dims = NULL;
    if (a->dims.n) {
        dims = calloc(a->dims.n, sizeof *dims);
        if (!dims) return tp_error_set(err, TP_ERR_NOMEM, "out of memory (--dim bindings)");
        for (size_t k = 0; k < a->dims.n; k++)
            dims[k] = a->dims.items[k].assignment;
    }
    opt.dims = dims;
    opt.n_dims = (uint32_t)a->dims.n;
    opt.input_values = a->values.items;
    opt.n_input_values = (uint32_t)a->values.n; /* each a command-line argument: < 2^32 */
    tp_status st = tp_onnx_load(a->path, &opt, NULL, out, err);
    free(dims);
    return st;
}

/* One row per supported file format: extension (with dot, case-insensitive),
 * description and loader. The table ends with a NULL row. */
static const struct {
    const char *ext;
    const char *format;
    model_loader load;
} formats[] = {
    {".onnx", "ONNX", load_onnx},
    {NULL, NULL, NULL},
};

void tp_cli_model_args_init(tp_cli_model_args *a) {
    memset(a, 0, sizeof *a);
}

void tp_cli_model_args_free(tp_cli_model_args *a) {
    tp_cli_dims_free(&a->dims);
    tp_cli_input_values_free(&a->values);
}

/* An LLM for the llama.cpp estimate: a .gguf, a Hugging Face config.json, a folder
 * holding a config.json, or a checkpoint's .safetensors (or its index) with a
 * config.json beside it. */
static bool is_llm_path(const char *s) {
    size_t n = strlen(s);
    if (n > 5 && strcasecmp(s + n - 5, ".gguf") == 0) return true;
    if (n >= 11 && strcmp(s + n - 11, "config.json") == 0) return true;
    struct stat sb;
    char p[4096];
    int w;
    bool st = (n > 12 && strcmp(s + n - 12, ".safetensors") == 0) ||
              (n > 23 && strcmp(s + n - 23, ".safetensors.index.json") == 0);
    if (st) {
        const char *slash = strrchr(s, '/');
        w = slash ? snprintf(p, sizeof p, "%.*s/config.json", (int)(slash - s), s)
                  : snprintf(p, sizeof p, "config.json");
        return w > 0 && (size_t)w < sizeof p && stat(p, &sb) == 0;
    }
    w = snprintf(p, sizeof p, "%s/config.json", s);
    return w > 0 && (size_t)w < sizeof p && stat(s, &sb) == 0 && S_ISDIR(sb.st_mode) &&
           stat(p, &sb) == 0;
}

static int apply_path(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o;
    tp_cli_model_args *a = dest;
    const char *prev = a->path ? a->path : a->gguf;
    if (prev)
        return tp_cli_usage_error(ctx->cmd, "more than one model given ('%s', '%s')", prev, val);
    if (a->demo) return tp_cli_usage_error(ctx->cmd, "--demo and a model path are exclusive");
    if (a->accept_gguf && is_llm_path(val))
        a->gguf = val;
    else
        a->path = val;
    return 0;
}

static int apply_demo(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o, (void)val;
    tp_cli_model_args *a = dest;
    if (a->path || a->gguf)
        return tp_cli_usage_error(ctx->cmd, "--demo and a model path are exclusive");
    a->demo = true;
    return 0;
}

const tp_cli_opt tp_cli_model_opts[] = {
    {.kind = TP_OPT_CUSTOM,
     .value = "MODEL",
     .apply = apply_path,
     .what = "a model file",
     .help = "model file (dispatched by extension)"},
    {.name = "demo",
     .kind = TP_OPT_CUSTOM,
     .apply = apply_demo,
     .help = "the built-in GPT-2-small-like demo decoder (default without MODEL)"},
    TP_OPT_GROUP_ROW(tp_cli_dims_opts, tp_cli_model_args, dims, NULL),
    TP_OPT_GROUP_ROW(tp_cli_input_values_opts, tp_cli_model_args, values, NULL),
    TP_CLI_END,
};

const char *tp_cli_model_label(const tp_cli_model_args *a) {
    return a->path ? a->path : "demo transformer";
}

static tp_status load_file(const tp_cli_model_args *a, tp_graph **out, tp_error *err) {
    const char *path = a->path;
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot && slash && dot < slash) dot = NULL;
    for (size_t k = 0; formats[k].ext; k++)
        if (dot && strcasecmp(dot, formats[k].ext) == 0) return formats[k].load(a, out, err);
    char supported[256] = "--demo";
    for (size_t k = 0; formats[k].ext; k++) {
        size_t len = strlen(supported);
        snprintf(supported + len, sizeof supported - len, ", %s (%s)", formats[k].ext,
                 formats[k].format);
    }
    return tp_error_set(err, TP_ERR_UNSUPPORTED,
                        "unsupported model format '%s' for '%s' (supported: %s)",
                        dot ? dot : "(no extension)", path, supported);
}

tp_status tp_cli_model_load(const tp_cli_model_args *a, tp_graph **out, tp_error *err) {
    *out = NULL;
    tp_graph *g = NULL;
    if (a->values.n && !a->path) /* the demo is built through the API: it has no such input */
        return tp_error_set(err, TP_ERR_INVALID,
                            "--input-value applies to an ONNX model, not to the demo");
    tp_status st = a->path ? load_file(a, &g, err) : tp_demo_transformer(NULL, NULL, &g, err);
    if (st != TP_OK) return st;
    if ((st = tp_cli_dims_bind(&a->dims, g, err)) != TP_OK) {
        tp_graph_destroy(g);
        return st;
    }
    uint32_t bound[8], n = 0;
    st = tp_graph_bind_defaults(g, bound, 8, &n, err);
    if (st != TP_OK) {
        tp_graph_destroy(g);
        return st;
    }
    if (n && !tp_cli_quiet) { /* one line: what was bound, and how to choose otherwise */
        fprintf(stderr, "tensorplan: ");
        for (uint32_t k = 0; k < n && k < 8; k++)
            fprintf(stderr, "%s%s=1", k ? ", " : "", tp_graph_symbol_name(g, bound[k]));
        fprintf(stderr,
                "%s by default (batch-like or unnamed input dim%s; set with --dim NAME=VALUE)\n",
                n > 8 ? ", ..." : "", n > 1 ? "s" : "");
    }
    *out = g;
    return TP_OK;
}

void tp_cli_model_error(const char *cmd, const tp_graph *g, const tp_error *err) {
    tp_cli_error(cmd, err);
    if (err->status != TP_ERR_UNBOUND || !g || tp_graph_symbol_count(g) == 0) return;
    fprintf(stderr, "tensorplan %s: hint: bind symbolic dims with --dim NAME=VALUE (unbound:", cmd);
    bool first = true;
    for (uint32_t k = 0; k < tp_graph_symbol_count(g); k++) {
        int64_t v;
        if (tp_graph_dim_value(g, tp_graph_symbol_dim(g, k), &v, NULL) == TP_OK) continue;
        fprintf(stderr, "%s %s", first ? "" : ",", tp_graph_symbol_name(g, k));
        first = false;
    }
    fprintf(stderr, ")\n");
}

/* Data-dependent sizes named one a line, at most this many (a detector has hundreds: one
   NonZero and one TopK per class); the rest counted, every one in the JSON's bounded_dims. */
#define BOUNDED_LINES 8

void tp_cli_model_print_assumptions(FILE *f, const tp_graph *g) {
    for (uint32_t k = 0; k < tp_graph_note_count(g); k++)
        fprintf(f, "note: %s\n", tp_graph_note(g, k));
    uint32_t shown = 0, more = 0;
    for (uint32_t k = 0; k < tp_graph_symbol_count(g); k++) {
        int64_t v;
        const char *why;
        if (!tp_graph_symbol_upper(g, k, &v, &why)) continue;
        if (shown == BOUNDED_LINES) {
            more++;
            continue;
        }
        fprintf(f, "bounded: %s = %lld (%s; --dim %s=N overrides)\n", tp_graph_symbol_name(g, k),
                (long long)v, why, tp_graph_symbol_name(g, k));
        shown++;
    }
    if (more)
        fprintf(f,
                "bounded: %u more data-dependent size%s at %s upper bound%s (--json lists every "
                "one in bounded_dims)\n",
                more, more == 1 ? "" : "s", more == 1 ? "its" : "their", more == 1 ? "" : "s");
}

void tp_cli_model_json_assumptions(tp_json *j, const tp_graph *g) {
    tp_json_key(j, "notes");
    tp_json_begin_array(j);
    for (uint32_t k = 0; k < tp_graph_note_count(g); k++)
        tp_json_str(j, tp_graph_note(g, k));
    tp_json_end_array(j);
    tp_json_key(j, "bounded_dims");
    tp_json_begin_array(j);
    for (uint32_t k = 0; k < tp_graph_symbol_count(g); k++) {
        int64_t v;
        const char *why;
        if (!tp_graph_symbol_upper(g, k, &v, &why)) continue;
        tp_json_begin_object(j);
        tp_json_kv_str(j, "symbol", tp_graph_symbol_name(g, k));
        tp_json_kv_i64(j, "value", v);
        tp_json_kv_str(j, "why", why);
        tp_json_end_object(j);
    }
    tp_json_end_array(j);
}

tp_status tp_cli_model_file_bytes(const tp_cli_model_args *a, uint64_t *out, tp_error *err) {
    *out = 0;
    size_t n = a->path ? strlen(a->path) : 0;
    if (a->demo || n < 5 || strcasecmp(a->path + n - 5, ".onnx") != 0) return TP_OK;
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    tp_onnx_model *m = NULL;
    tp_onnx_info info;
    tp_status st = tp_onnx_model_open(a->path, &opt, NULL, &m, err);
    if (st == TP_OK) st = tp_onnx_model_info(m, &info, err);
    if (st == TP_OK) *out = info.file_bytes;
    tp_onnx_model_destroy(m);
    return st;
}
