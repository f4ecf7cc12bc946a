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

tp_status tp_graph_add_folded(tp_graph *g, uint64_t main_nodes, uint64_t body_nodes,
                              uint64_t copy_bytes, tp_error *err) {
    if (!g) return tp_error_set(err, TP_ERR_INVALID, "add folded: NULL graph");
    uint64_t m, b, c;
    if (!tp_add_u64(g->n_folded_main, main_nodes, &m) ||
        !tp_add_u64(g->n_folded_body, body_nodes, &b) ||
        !tp_add_u64(g->folded_copy_bytes, copy_bytes, &c))
        return tp_error_set(err, TP_ERR_OVERFLOW, "add folded: count overflows 64 bits");
    g->n_folded_main = m;
    g->n_folded_body = b;
    g->folded_copy_bytes = c;
    return TP_OK;
}

void tp_graph_folded(const tp_graph *g, uint64_t *main_nodes, uint64_t *body_nodes,
                     uint64_t *copy_bytes) {
    if (main_nodes) *main_nodes = g ? g->n_folded_main : 0;
    if (body_nodes) *body_nodes = g ? g->n_folded_body : 0;
    if (copy_bytes) *copy_bytes = g ? g->folded_copy_bytes : 0;
}

void tp_graph_bodies(const tp_graph *g, uint64_t *bodies, uint64_t *unplanned_nodes) {
    if (bodies) *bodies = g ? g->n_bodies : 0;
    if (unplanned_nodes) *unplanned_nodes = g ? g->n_unplanned_nodes : 0;
}
