/* A downstream program: plan a two-layer MLP for batch 8 through the public C API and
 * print the arena it needs. tests/cli/test_downstream.sh builds it against an installed
 * copy (CMake package, pkg-config), the amalgamation and the Debian package, and checks
 * that each prints the same line. Exits 1 on any error or a library/header mismatch. */
#include <stdio.h>
#include <string.h>
#include <tensorplan.h>

int main(void) {
    if (strcmp(tp_version(), TP_VERSION_STRING) != 0) {
        printf("library %s, headers %s\n", tp_version(), TP_VERSION_STRING);
        return 1;
    }
    tp_error err;
    tp_graph *g;
    tp_dim batch;
    tp_node_id x, w1, w2, h, a, y;
    if (tp_graph_create(NULL, &g, &err) != TP_OK) return printf("%s\n", err.msg), 1;
    tp_shape xs, w1s = tp_shape_of(2, (int64_t[]){256, 1024});
    tp_shape w2s = tp_shape_of(2, (int64_t[]){1024, 256});
    if (tp_graph_symbol(g, "batch", &batch, &err) != TP_OK ||
        (xs = tp_shape_make(2, (tp_dim[]){batch, tp_dim_static(256)}),
         tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err)) != TP_OK ||
        tp_graph_add_param(g, "w1", TP_DTYPE_F32, &w1s, &w1, &err) != TP_OK ||
        tp_graph_add_param(g, "w2", TP_DTYPE_F32, &w2s, &w2, &err) != TP_OK ||
        tp_graph_add_op(g, &(tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x, w1}, 2, "fc1", &h,
                        &err) != TP_OK ||
        tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_GELU}, &h, 1, "gelu", &a,
                        &err) != TP_OK ||
        tp_graph_add_op(g, &(tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){a, w2}, 2, "fc2", &y,
                        &err) != TP_OK ||
        tp_graph_mark_output(g, y, &err) != TP_OK || tp_graph_bind(g, "batch", 8, &err) != TP_OK) {
        printf("%s\n", err.msg);
        tp_graph_destroy(g);
        return 1;
    }
    tp_plan_options po;
    tp_plan_options_default(&po);
    tp_plan *plan;
    if (tp_plan_graph(g, &po, &plan, &err) != TP_OK) {
        printf("%s\n", err.msg);
        tp_graph_destroy(g);
        return 1;
    }
    printf("tensorplan %s: arena %llu bytes, lower bound %llu bytes\n", tp_version(),
           (unsigned long long)tp_plan_arena_bytes(plan),
           (unsigned long long)tp_plan_lower_bound_bytes(plan));
    tp_plan_destroy(plan);
    tp_graph_destroy(g);
    return 0;
}
