/* What an importer records about a model's control-flow bodies beyond the nodes it
 * planned (see tp_graph_add_bodies in include/tensorplan/graph.h). */
#include "graph/graph_internal.h"

tp_status tp_graph_add_bodies(tp_graph *g, uint64_t bodies, uint64_t unplanned_nodes,
                              tp_error *err) {
    if (!g) return tp_error_set(err, TP_ERR_INVALID, "add bodies: NULL graph");
    uint64_t b, n;
    if (!tp_add_u64(g->n_bodies, bodies, &b) ||
        !tp_add_u64(g->n_unplanned_nodes, unplanned_nodes, &n))
        return tp_error_set(err, TP_ERR_OVERFLOW, "add bodies: count overflows 64 bits");
    g->n_bodies = b;
    g->n_unplanned_nodes = n;
    return TP_OK;
}

void tp_graph_bodies(const tp_graph *g, uint64_t *bodies, uint64_t *unplanned_nodes) {
    if (bodies) *bodies = g ? g->n_bodies : 0;
    if (unplanned_nodes) *unplanned_nodes = g ? g->n_unplanned_nodes : 0;
}
