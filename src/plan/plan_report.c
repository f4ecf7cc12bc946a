/* The SPEC §5 plan report:
 *   # arena_size=A total_unshared=T saved=S
 *   # offset<TAB>size<TAB>node
 *   one row per slot sorted by offset (ties by node id): offset<TAB>size<TAB>node
 * where node is the node's name, or "%<id>" when it has none. */
#include <stdlib.h>

#include "core/strbuf.h"
#include "plan/plan_internal.h"

tp_status tp_plan_report_text(const tp_plan *p, const tp_graph *g, char **out, size_t *len,
                              tp_error *err) {
    if (!p || !out) return tp_error_set(err, TP_ERR_INVALID, "tp_plan_report_text: NULL argument");
    *out = NULL;
    if (len) *len = 0;
    if (g && tp_graph_node_count(g) != p->n_nodes)
        return tp_error_set(err, TP_ERR_INVALID,
                            "plan report: the graph has %u nodes but the plan was made for %u",
                            tp_graph_node_count(g), p->n_nodes);
    tp_strbuf sb;
    tp_strbuf_init(&sb, NULL); /* libc: the caller frees with tp_free_string */
    tp_strbuf_printf(&sb, "# arena_size=%llu total_unshared=%llu saved=%llu\n",
                     (unsigned long long)p->arena, (unsigned long long)p->unshared,
                     (unsigned long long)tp_plan_saved_bytes(p));
    tp_strbuf_append(&sb, "# offset\tsize\tnode\n");
    char label[32];
    for (uint32_t k = 0; k < p->n_slots; k++) {
        const tp_slot *s = &p->slots[k];
        tp_strbuf_printf(&sb, "%llu\t%llu\t%s\n", (unsigned long long)s->offset,
                         (unsigned long long)s->size,
                         tp_plan_node_label(g, s->node, label, sizeof label));
    }
    size_t n = 0;
    tp_status st = tp_strbuf_finish(&sb, out, &n, err);
    if (st == TP_OK && len) *len = n;
    return st;
}

void tp_free_string(char *s) {
    free(s);
}
