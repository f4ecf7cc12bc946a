/* Default bindings: batch-like and unnamed input dims bind to 1 (the rule is
 * documented at tp_graph_bind_defaults in tensorplan/graph.h). */
#include "core/mem.h"
#include "graph/graph_internal.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

bool tp_dim_name_is_batch_like(const char *name) {
    if (!name) return false;
    static const char *const exact[] = {"b", "bs", "n", "nb"};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcasecmp(name, exact[i]) == 0) return true;
    return strncasecmp(name, "batch", 5) == 0;
}

static bool all_digits(const char *s) {
    if (!*s) return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return false;
    return true;
}

bool tp_dim_name_is_unnamed(const char *name) {
    if (!name) return false;
    if (strncmp(name, "unk__", 5) == 0) return all_digits(name + 5);
    /* tensorplan's ONNX importer: "unk_<tensor>_<axis>" */
    if (strncmp(name, "unk_", 4) != 0) return false;
    const char *us = strrchr(name + 4, '_');
    return us && us > name + 4 && all_digits(us + 1);
}

tp_status tp_graph_bind_defaults(tp_graph *g, uint32_t *bound, uint32_t cap, uint32_t *n_bound,
                                 tp_error *err) {
    if (!g || (cap && !bound))
        return tp_error_set(err, TP_ERR_INVALID, "tp_graph_bind_defaults: NULL argument");
    if (n_bound) *n_bound = 0;
    uint32_t n_named = tp_graph_symbol_count(g);
    if (n_named == 0) return TP_OK;
    /* on_input[sym id]: the symbol is a dim of some graph input */
    bool *on_input = tp_mem_calloc(g->alloc, g->n_syms, sizeof *on_input);
    if (!on_input)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory choosing default bindings");
    for (size_t id = 0; id < g->n_nodes; id++) {
        const tp_node *nd = &g->nodes[id];
        if (nd->op.kind != TP_OP_INPUT) continue;
        for (int32_t k = 0; k < nd->shape.rank; k++)
            if (nd->shape.dims[k].sym != TP_NO_SYM) on_input[nd->shape.dims[k].sym] = true;
    }
    uint32_t count = 0;
    tp_status st = TP_OK;
    for (uint32_t i = 0; i < n_named && st == TP_OK; i++) {
        const tp_gsym *s = &g->syms[g->named[i]];
        if (!on_input[g->named[i]] || s->bound) continue;
        if (!tp_dim_name_is_batch_like(s->name) && !tp_dim_name_is_unnamed(s->name)) continue;
        st = tp_graph_bind(g, s->name, 1, err);
        if (st == TP_OK) {
            if (count < cap) bound[count] = i;
            count++;
        }
    }
    tp_mem_free(g->alloc, on_input, g->n_syms * sizeof *on_input);
    if (n_bound) *n_bound = count;
    return st;
}
