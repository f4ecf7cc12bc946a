/* tp_graph_symbol_dim: a dim for the index-th named symbol; tp_graph_dim_def: the
 * definition of a derived one. */
#include "graph/graph_internal.h"

tp_dim tp_graph_symbol_dim(const tp_graph *g, uint32_t index) {
    tp_dim d = {0, TP_NO_SYM};
    if (g && index < g->n_named) d.sym = g->named[index];
    return d;
}

bool tp_graph_dim_def(const tp_graph *g, tp_dim d, tp_sym_op *op, tp_dim *a, tp_dim *b) {
    if (!g || tp_dim_is_static(d) || d.sym < 0 || (size_t)d.sym >= g->n_syms) return false;
    const tp_gsym *s = &g->syms[d.sym];
    if (s->name) return false;
    if (op) *op = s->op;
    if (a) *a = s->a;
    if (b) *b = s->b;
    return true;
}
