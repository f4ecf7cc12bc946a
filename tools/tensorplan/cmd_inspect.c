/* tensorplan inspect — what is in an ONNX model: opsets, inputs/outputs with
 * symbolic dims, op histogram, parameter count and bytes, and (after
 * conversion to the IR) every node's output shapes and dtypes. */
#include <inttypes.h>
#include <string.h>

#include "cli_dims.h"
#include "inspect_safetensors.h"
#include "import/onnx_model.h"

typedef struct inspect_args {
    const char *path;
    bool json, nodes, shapes;
    tp_cli_dims dims;
    tp_onnx_options opt;
} inspect_args;

static int apply_path(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o;
    const char **path = dest;
    if (*path)
        return tp_cli_usage_error(ctx->cmd, "more than one model given ('%s', '%s')", *path, val);
    *path = val;
    return 0;
}

static const tp_cli_opt inspect_opts[] = {
    {.kind = TP_OPT_CUSTOM,
     .dest = offsetof(inspect_args, path),
     .value = "MODEL.onnx",
     .apply = apply_path,
     .help = "the ONNX model"},
    TP_OPT_FLAG_ROW("nodes", inspect_args, nodes,
                    "list every node with its output shapes (text form)"),
    TP_OPT_UNSET_ROW("no-shapes", inspect_args, shapes, "skip the conversion (summary only)"),
    TP_OPT_GROUP_ROW(tp_cli_dims_opts, inspect_args, dims, NULL), /* checked against the model */
    TP_OPT_FLAG_ROW("allow-unknown-ops", inspect_args, opt.allow_unknown_ops,
                    "type ops without a shape rule from value_info"),
    TP_OPT_FLAG_ROW("verify-external-data", inspect_args, opt.verify_external_data,
                    "check that external data files exist and are large enough"),
    TP_CLI_COMMON(inspect_args, json),
    TP_CLI_END,
};

const tp_cli_command tp_cli_inspect_command = {
    .name = "inspect",
    .summary = "show an ONNX model: opset, inputs/outputs, op histogram, params, node shapes",
    .synopsis = "MODEL.onnx [--json] [options]",
    .description =
        "Decode the model (zero-copy; weights are not read) and print its opset imports,\n"
        "inputs and outputs with symbolic dims, the op histogram (nested If/Loop/Scan\n"
        "bodies included) and the parameter count and bytes. The model is also converted\n"
        "to the planning IR to list every node's output shapes and dtypes (--json, or\n"
        "--nodes in text); when conversion fails the decoded summary is still printed and\n"
        "the reason goes to stderr. A --dim binding that contradicts the model is an error.",
    .opts = inspect_opts,
    .examples = "tensorplan inspect resnet50.onnx\n"
                "tensorplan inspect gpt2.onnx --json --dim batch=1 --dim seq=128",
    .notes = "Exit codes: 0 ok, 1 error (unreadable or malformed model), 2 usage error.",
    .json_help = "machine-readable output (raw byte counts, nodes[])",
};

static int parse_args(inspect_args *a, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    a->shapes = true;
    tp_onnx_options_init(&a->opt);
    int rc = tp_cli_parse(&tp_cli_inspect_command, argc, argv, a);
    if (rc) return rc;
    if (!a->path) return tp_cli_usage_error("inspect", "no model given (see --help)");
    return 0;
}

/* ---- value_info dims ---- */

/* A value's shape as text; an unnamed dim of a graph input (input) shows the name the importer
 * binds it by (unk_<input>_<axis>, for --dim), any other unknown dim "?". */
static void vi_shape_text(const tp_onnx_value_info *v, bool input, char *buf, size_t cap) {
    size_t n = 0;
    if (v->rank < 0) {
        snprintf(buf, cap, "(unknown shape)");
        return;
    }
    n += (size_t)snprintf(buf + n, cap - n, "[");
    for (int32_t i = 0; i < v->rank && n < cap; i++) {
        const tp_onnx_dim *d = &v->dims[i];
        if (d->param && d->param[0])
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? "," : "", d->param);
        else if (d->value >= 0)
            n += (size_t)snprintf(buf + n, cap - n, "%s%" PRId64, i ? "," : "", d->value);
        else if (input)
            n += (size_t)snprintf(buf + n, cap - n, "%sunk_%s_%d", i ? "," : "", v->name, (int)i);
        else
            n += (size_t)snprintf(buf + n, cap - n, "%s?", i ? "," : "");
    }
    if (n < cap) snprintf(buf + n, cap - n, "]");
}

static void vi_json(tp_json *j, const tp_onnx_value_info *v) {
    tp_json_begin_object(j);
    tp_json_kv_str(j, "name", v->name);
    tp_json_kv_str(j, "elem_type", tp_onnx_elem_type_name(v->elem_type));
    tp_dtype dt;
    if (tp_onnx_elem_type_to_dtype(v->elem_type, &dt, NULL) == TP_OK)
        tp_json_kv_str(j, "dtype", tp_dtype_name(dt));
    else {
        tp_json_key(j, "dtype");
        tp_json_null(j);
    }
    tp_json_key(j, "shape");
    if (v->rank < 0) {
        tp_json_null(j);
    } else {
        tp_json_begin_array(j);
        for (int32_t i = 0; i < v->rank; i++) {
            if (v->dims[i].param)
                tp_json_str(j, v->dims[i].param);
            else if (v->dims[i].value >= 0)
                tp_json_i64(j, v->dims[i].value);
            else
                tp_json_null(j);
        }
        tp_json_end_array(j);
    }
    tp_json_end_object(j);
}

/* ---- IR shapes of node outputs ---- */

static void dim_json(tp_json *j, const tp_graph *g, tp_dim d) {
    int64_t v;
    char buf[128];
    if (tp_dim_is_static(d))
        tp_json_i64(j, d.size);
    else if (tp_graph_dim_value(g, d, &v, NULL) == TP_OK)
        tp_json_i64(j, v);
    else
        tp_json_str(j, tp_graph_dim_str(g, d, buf, sizeof buf));
}

static const tp_node *ir_node(const tp_graph *g, const char *name) {
    tp_node_id id;
    if (!g || !name[0] || tp_graph_find(g, name, &id, NULL) != TP_OK) return NULL;
    return tp_graph_node(g, id);
}

static void nodes_json(tp_json *j, const tp_onnx_graph *og, const tp_graph *g) {
    tp_json_key(j, "nodes");
    tp_json_begin_array(j);
    for (uint32_t i = 0; i < og->n_nodes; i++) {
        const tp_onnx_node *n = &og->nodes[i];
        tp_json_begin_object(j);
        tp_json_kv_str(j, "name", n->name);
        tp_json_kv_str(j, "op", n->op_type);
        if (n->domain[0]) tp_json_kv_str(j, "domain", n->domain);
        tp_json_key(j, "outputs");
        tp_json_begin_array(j);
        for (uint32_t k = 0; k < n->n_outputs; k++) {
            const tp_node *irn = ir_node(g, n->outputs[k]);
            tp_json_begin_object(j);
            tp_json_kv_str(j, "name", n->outputs[k]);
            tp_json_key(j, "shape");
            if (irn) {
                tp_json_begin_array(j);
                for (int32_t d = 0; d < irn->shape.rank; d++)
                    dim_json(j, g, irn->shape.dims[d]);
                tp_json_end_array(j);
                tp_json_kv_str(j, "dtype", tp_dtype_name(irn->dtype));
            } else {
                tp_json_null(j);
                tp_json_key(j, "dtype");
                tp_json_null(j);
            }
            tp_json_end_object(j);
        }
        tp_json_end_array(j);
        tp_json_end_object(j);
    }
    tp_json_end_array(j);
}

static void nodes_text(const tp_onnx_graph *og, const tp_graph *g) {
    char sb[512];
    printf("nodes:\n");
    for (uint32_t i = 0; i < og->n_nodes; i++) {
        const tp_onnx_node *n = &og->nodes[i];
        char sn[256], so[128];
        printf("  %-24s %-16s", n->name[0] ? tp_cli_safe(n->name, sn, sizeof sn) : "(unnamed)",
               tp_cli_safe(n->op_type, so, sizeof so));
        for (uint32_t k = 0; k < n->n_outputs; k++) {
            const tp_node *irn = ir_node(g, n->outputs[k]);
            char sk[256];
            const char *on = tp_cli_safe(n->outputs[k], sk, sizeof sk);
            if (irn)
                printf(" %s:%s%s", on, tp_dtype_name(irn->dtype),
                       tp_graph_shape_str(g, &irn->shape, sb, sizeof sb));
            else
                printf(" %s:?", on);
        }
        printf("\n");
    }
}

/* ---- output ---- */

static void print_text(const inspect_args *a, const tp_onnx_model *m, const tp_onnx_info *in,
                       const tp_graph *g) {
    char b1[64], b2[64], b3[64], sb[1024];
    printf("model: %s (%s)\n", a->path, tp_cli_fmt_bytes(in->file_bytes, b1, sizeof b1));
    printf("ir_version: %" PRId64 "   producer: %s %s   graph: %s\n", in->ir_version,
           in->producer_name[0] ? in->producer_name : "?", in->producer_version, in->graph_name);
    printf("opset:");
    for (uint32_t i = 0; i < in->n_opsets; i++)
        printf("%s %s %" PRId64, i ? "," : "",
               in->opsets[i].domain[0] ? in->opsets[i].domain : "ai.onnx", in->opsets[i].version);
    printf("\n");
    printf("inputs (%u):\n", in->n_inputs);
    for (uint32_t i = 0; i < in->n_inputs; i++) {
        vi_shape_text(in->inputs[i], true, sb, sizeof sb);
        char sn[256];
        printf("  %-24s %-8s %s\n", tp_cli_safe(in->inputs[i]->name, sn, sizeof sn),
               tp_onnx_elem_type_name(in->inputs[i]->elem_type), sb);
    }
    printf("outputs (%u):\n", in->n_outputs);
    for (uint32_t i = 0; i < in->n_outputs; i++) {
        vi_shape_text(&in->outputs[i], false, sb, sizeof sb);
        char sn[256];
        printf("  %-24s %-8s %s\n", tp_cli_safe(in->outputs[i].name, sn, sizeof sn),
               tp_onnx_elem_type_name(in->outputs[i].elem_type), sb);
    }
    printf("nodes: %u (%u including %u subgraphs)\n", in->n_nodes, in->n_nodes_total,
           in->n_subgraphs);
    printf("params: %" PRIu64 " tensors, %" PRIu64 " elements, %s (unique %s, external %s)\n",
           in->n_params, in->param_elements, tp_cli_fmt_bytes(in->param_bytes, b1, sizeof b1),
           tp_cli_fmt_bytes(in->unique_param_bytes, b2, sizeof b2),
           tp_cli_fmt_bytes(in->external_bytes, b3, sizeof b3));
    printf("ops (%u kinds):\n", in->n_ops);
    for (uint32_t i = 0; i < in->n_ops; i++)
        printf("  %-28s %u\n", in->ops[i].op_type, in->ops[i].count);
    if (a->nodes) nodes_text(m->graph, g);
}

static void print_json(const inspect_args *a, const tp_onnx_model *m, const tp_onnx_info *in,
                       const tp_graph *g, const tp_error *conv_err) {
    tp_json j;
    tp_json_init(&j, stdout, true);
    tp_json_begin_object(&j);
    tp_json_kv_str(&j, "schema", "tensorplan.inspect/1");
    tp_json_kv_str(&j, "tensorplan_version", tp_version());
    tp_json_kv_str(&j, "model", a->path);
    tp_json_kv_u64(&j, "file_bytes", in->file_bytes);
    tp_json_kv_i64(&j, "ir_version", in->ir_version);
    tp_json_kv_str(&j, "producer_name", in->producer_name);
    tp_json_kv_str(&j, "producer_version", in->producer_version);
    tp_json_kv_str(&j, "graph_name", in->graph_name);
    tp_json_kv_i64(&j, "opset", in->opset);
    tp_json_key(&j, "opsets");
    tp_json_begin_array(&j);
    for (uint32_t i = 0; i < in->n_opsets; i++) {
        tp_json_begin_object(&j);
        tp_json_kv_str(&j, "domain", in->opsets[i].domain);
        tp_json_kv_i64(&j, "version", in->opsets[i].version);
        tp_json_end_object(&j);
    }
    tp_json_end_array(&j);
    tp_json_key(&j, "inputs");
    tp_json_begin_array(&j);
    for (uint32_t i = 0; i < in->n_inputs; i++)
        vi_json(&j, in->inputs[i]);
    tp_json_end_array(&j);
    tp_json_key(&j, "outputs");
    tp_json_begin_array(&j);
    for (uint32_t i = 0; i < in->n_outputs; i++)
        vi_json(&j, &in->outputs[i]);
    tp_json_end_array(&j);
    tp_json_kv_u64(&j, "n_nodes", in->n_nodes);
    tp_json_kv_u64(&j, "n_nodes_total", in->n_nodes_total);
    tp_json_kv_u64(&j, "n_subgraphs", in->n_subgraphs);
    tp_json_key(&j, "ops");
    tp_json_begin_object(&j);
    for (uint32_t i = 0; i < in->n_ops; i++)
        tp_json_kv_u64(&j, in->ops[i].op_type, in->ops[i].count);
    tp_json_end_object(&j);
    tp_json_key(&j, "params");
    tp_json_begin_object(&j);
    tp_json_kv_u64(&j, "count", in->n_params);
    tp_json_kv_u64(&j, "elements", in->param_elements);
    tp_json_kv_u64(&j, "bytes", in->param_bytes);
    tp_json_kv_u64(&j, "unique_bytes", in->unique_param_bytes);
    tp_json_kv_u64(&j, "external_bytes", in->external_bytes);
    tp_json_kv_u64(&j, "external_count", in->n_external);
    tp_json_end_object(&j);
    tp_json_kv_bool(&j, "shapes_inferred", g != NULL);
    if (conv_err && conv_err->status != TP_OK) tp_json_kv_str(&j, "shape_error", conv_err->msg);
    nodes_json(&j, m->graph, g);
    tp_json_end_object(&j);
    tp_json_finish(&j);
}

static int run(inspect_args *a) {
    if (tp_cli_is_safetensors(a->path)) return tp_cli_inspect_safetensors(a->path, a->json);
    tp_error err;
    tp_error_clear(&err);
    tp_onnx_model *m;
    tp_status s = tp_onnx_model_open(a->path, &a->opt, NULL, &m, &err);
    if (s != TP_OK) {
        tp_cli_error("inspect", &err);
        return tp_cli_exit_for(s);
    }
    tp_onnx_info in;
    if ((s = tp_onnx_model_info(m, &in, &err)) != TP_OK) {
        tp_cli_error("inspect", &err);
        tp_onnx_model_destroy(m);
        return tp_cli_exit_for(s);
    }
    tp_graph *g = NULL;
    tp_error conv;
    tp_error_clear(&conv);
    /* bindings are checked against the model whenever they are given, as plan does */
    if (a->shapes && (a->json || a->nodes || a->dims.n > 0)) {
        if (tp_onnx_model_to_graph(m, &a->opt, NULL, &g, &conv) != TP_OK) {
            fprintf(stderr, "tensorplan inspect: note: node shapes unavailable: %s\n", conv.msg);
        } else {
            s = tp_cli_dims_bind(&a->dims, g, &err);
            if (s == TP_OK && a->dims.n > 0) s = tp_graph_validate(g, false, &err);
            if (s != TP_OK) {
                tp_cli_error("inspect", &err);
                tp_graph_destroy(g);
                tp_onnx_model_destroy(m);
                return tp_cli_exit_for(s);
            }
        }
    }
    if (a->json)
        print_json(a, m, &in, g, &conv);
    else
        print_text(a, m, &in, g);
    tp_graph_destroy(g);
    tp_onnx_model_destroy(m);
    return TP_EXIT_OK;
}

int tp_cli_inspect(int argc, char **argv) {
    inspect_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc == 0) rc = run(&a);
    tp_cli_dims_free(&a.dims);
    return rc < 0 ? TP_EXIT_OK : rc; /* -1: --help */
}
