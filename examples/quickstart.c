/* The README's library example: plan a small MLP for batch 8 and check a budget. */
#include <stdio.h>
#include <tensorplan.h>

int main(void) {
    tp_error err;
    tp_graph *g;
    tp_dim batch;
    tp_node_id x, w, h, y;
    if (tp_graph_create(NULL, &g, &err) != TP_OK) return 1;
    tp_graph_symbol(g, "batch", &batch, &err);
    tp_shape xs = tp_shape_make(2, (tp_dim[]){batch, tp_dim_static(1024)});
    tp_shape ws = tp_shape_of(2, (int64_t[]){1024, 4096});
    tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err);
    tp_graph_add_param(g, "w", TP_DTYPE_F32, &ws, &w, &err);
    tp_graph_add_op(g, &(tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x, w}, 2, "fc", &h, &err);
    tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_GELU}, &h, 1, "gelu", &y,
                    &err);
    tp_graph_mark_output(g, y, &err);
    tp_graph_bind(g, "batch", 8, &err);
    tp_estimate e;
    if (tp_estimate_graph(g, NULL, &e, &err) != TP_OK) return printf("%s\n", err.msg), 1;
    printf("weights %llu, activations %llu, peak %llu bytes\n", (unsigned long long)e.weight_bytes,
           (unsigned long long)e.activation_bytes, (unsigned long long)e.peak_bytes);
    if (tp_estimate_fits_in(&e, 16u << 20, NULL, &err) != TP_OK) printf("%s\n", err.msg);
    tp_graph_destroy(g);
    return 0;
}
