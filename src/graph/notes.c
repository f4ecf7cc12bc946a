/* Notes attached to a graph: what an importer assumed to size it (see
 * tp_graph_add_note in include/tensorplan/graph.h). */
#include <string.h>

#include "core/mem.h"
#include "graph/graph_internal.h"

tp_status tp_graph_add_note(tp_graph *g, const char *text, tp_error *err) {
    if (!g || !text) return tp_error_set(err, TP_ERR_INVALID, "add note: NULL argument");
    for (size_t i = 0; i < g->n_notes; i++)
        if (strcmp(g->notes[i], text) == 0) return TP_OK;
    if (!tp_mem_grow(g->alloc, (void **)&g->notes, sizeof *g->notes, &g->cap_notes, g->n_notes + 1))
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory adding a graph note");
    const char *copy = tp_graph_arena_strdup(g, text);
    if (!copy) return tp_error_set(err, TP_ERR_NOMEM, "out of memory adding a graph note");
    g->notes[g->n_notes++] = copy;
    return TP_OK;
}

uint32_t tp_graph_note_count(const tp_graph *g) {
    return g ? (uint32_t)g->n_notes : 0;
}

const char *tp_graph_note(const tp_graph *g, uint32_t index) {
    return g && index < g->n_notes ? g->notes[index] : NULL;
}
