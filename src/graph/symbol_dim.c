/* tp_graph_symbol_dim: a dim for the index-th named symbol. */
#include "graph/graph_internal.h"

tp_dim tp_graph_symbol_dim(const tp_graph *g, uint32_t index) {
    tp_dim d = {0, TP_NO_SYM};
    if (g && index < g->n_named) d.sym = g->named[index];
    return d;
}
