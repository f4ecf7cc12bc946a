/* onnxruntime's CPU Where: the shape of its Y selection (ort_where.h). */
#include "ortgraph/ort_where.h"

bool tp_ort_where_y_selection(const tp_graph *g, const tp_node *n, uint64_t *elems) {
    *elems = 0;
    if (!n || n->op.kind != TP_OP_WHERE || n->n_inputs != 3) return false;
    const tp_node *c = tp_graph_node(g, n->inputs[0]), *y = tp_graph_node(g, n->inputs[2]);
    if (!c || !y) return false;
    int32_t r = c->shape.rank > y->shape.rank ? c->shape.rank : y->shape.rank;
    uint64_t e = 1;
    tp_error err;
    for (int32_t i = 1; i <= r; i++) { /* dims from the right, broadcast */
        int64_t dc = 1, dy = 1;
        if (i <= c->shape.rank &&
            tp_graph_dim_value(g, c->shape.dims[c->shape.rank - i], &dc, &err) != TP_OK)
            return false;
        if (i <= y->shape.rank &&
            tp_graph_dim_value(g, y->shape.dims[y->shape.rank - i], &dy, &err) != TP_OK)
            return false;
        if (dc < 0 || dy < 0 || !tp_mul_u64(e, (uint64_t)(dc > dy ? dc : dy), &e)) return false;
    }
    *elems = e;
    return true;
}
