/* The text plan report, one line per slot, for people and for diffing plans:
 *   # arena_size=A total_unshared=T saved=S
 *   # offset<TAB>size<TAB>node
 *   one row per slot sorted by offset (ties by node id): offset<TAB>size<TAB>node
 * where node is the node's name (control characters escaped, so every slot stays one
 * row), or "%<id>" when it has none. */
#include <stdlib.h>

#include <stdio.h>

#include "core/strbuf.h"
#include "tensorplan/plan.h"

/* Display name of a node: its name, or "%<id>" when unnamed. */
static const char *report_node_label(const tp_graph *g, tp_node_id id, char *buf, size_t cap) {
    const tp_node *nd = g ? tp_graph_node(g, id) : NULL;
    if (nd && nd->name && nd->name[0]) return nd->name;
    snprintf(buf, cap, "%%%d", (int)id);
    return buf;
}

tp_status tp_plan_report_text(const tp_plan *p, const tp_graph *g, char **out, size_t *len,
                              tp_error *err) {
    if (!p || !out) return tp_error_set(err, TP_ERR_INVALID, "tp_plan_report_text: NULL argument");
    *out = NULL;
    if (len) *len = 0;
    if (g && tp_graph_node_count(g) != tp_plan_node_count(p))
        return tp_error_set(err, TP_ERR_INVALID,
                            "plan report: the graph has %u nodes but the plan was made for %u",
                            tp_graph_node_count(g), tp_plan_node_count(p));
    tp_strbuf sb;
    tp_strbuf_init(&sb, NULL); /* libc: the caller frees with tp_free_string */
    tp_strbuf_printf(&sb, "# arena_size=%llu total_unshared=%llu saved=%llu\n",
                     (unsigned long long)tp_plan_arena_bytes(p),
                     (unsigned long long)tp_plan_unshared_bytes(p),
                     (unsigned long long)tp_plan_saved_bytes(p));
    tp_strbuf_append(&sb, "# offset\tsize\tnode\n");
    char label[32];
    for (uint32_t k = 0; k < tp_plan_slot_count(p); k++) {
        const tp_slot *s = tp_plan_slot(p, k);
        tp_strbuf_printf(&sb, "%llu\t%llu\t", (unsigned long long)s->offset,
                         (unsigned long long)s->size);
        tp_strbuf_append_escaped(&sb, report_node_label(g, s->node, label, sizeof label));
        tp_strbuf_append(&sb, "\n");
    }
    size_t n = 0;
    tp_status st = tp_strbuf_finish(&sb, out, &n, err);
    if (st == TP_OK && len) *len = n;
    return st;
}

void tp_free_string(char *s) {
    free(s);
}
