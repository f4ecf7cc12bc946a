/* Backward (training) plans sharing the forward weight layout (the weights stay
 * where the forward plan put them): the forward plan's Param slots, collected by name, become fixed
 * buffers living over the whole backward run; backward Params with a matching
 * name take those offsets; backward activations are placed around them.
 *
 * Forward weights that the backward graph does not use stay reserved (their
 * bytes are still in the shared arena), so the arena is at least the forward
 * weight layout's end: "arena = max of both". Backward Params without a
 * forward match are not allocated (as in any plan with allocate_params off). */
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "plan/plan_internal.h"

typedef struct weight {
    const char *name;
    tp_node_id fwd_node;
    uint64_t offset, size, tail_guard;
    tp_node_id bwd_node; /* matching backward Param, or TP_NO_NODE */
} weight;

static int weight_cmp(const void *a, const void *b) {
    const weight *x = a, *y = b;
    return strcmp(x->name, y->name);
}

/* Forward Param slots (tied aliases excluded: their bytes are the target's). */
static tp_status collect_weights(const tp_plan *fwd, const tp_graph *fg, weight *w, size_t *nw,
                                 tp_error *err) {
    size_t k = 0, params = 0;
    for (uint32_t i = 0; i < fwd->n_nodes; i++) {
        const tp_node *nd = tp_graph_node(fg, (tp_node_id)i);
        if (nd->op.kind != TP_OP_PARAM) continue;
        const tp_slot *s = tp_plan_slot_of(fwd, (tp_node_id)i);
        if (s && s->is_view) continue;
        params++;
        if (!s) continue;
        const tp_buffer *b = &fwd->buffers[fwd->buffer_of[i]];
        w[k].name = nd->name;
        w[k].fwd_node = (tp_node_id)i;
        w[k].offset = s->offset;
        w[k].size = b->size;
        w[k].tail_guard = b->tail_guard;
        w[k].bwd_node = TP_NO_NODE;
        k++;
    }
    if (params > 0 && k == 0)
        return tp_error_set(err, TP_ERR_INVALID,
                            "backward plan: the forward plan has no weight slots (plan the forward "
                            "graph with allocate_params = true)");
    qsort(w, k, sizeof *w, weight_cmp);
    for (size_t j = 1; j < k; j++)
        if (strcmp(w[j - 1].name, w[j].name) == 0)
            return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, w[j].fwd_node,
                                 "backward plan: forward weight name '%s' is not unique "
                                 "(nodes %d and %d)",
                                 w[j].name, (int)w[j - 1].fwd_node, (int)w[j].fwd_node);
    *nw = k;
    return TP_OK;
}

/* Match backward Params to forward weights by name. */
static tp_status match_weights(const tp_graph *bg, const tp_liveness *l, weight *w, size_t nw,
                               tp_error *err) {
    for (uint32_t i = 0; i < l->n; i++) {
        const tp_node *nd = tp_graph_node(bg, (tp_node_id)i);
        if (nd->op.kind != TP_OP_PARAM || l->live[i].is_view) continue;
        weight key = {.name = nd->name};
        weight *m = nw ? bsearch(&key, w, nw, sizeof *w, weight_cmp) : NULL;
        if (!m) continue;
        if (m->bwd_node != TP_NO_NODE)
            return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, (int64_t)i,
                                 "backward plan: weight '%s' appears twice in the backward "
                                 "graph (nodes %d and %u)",
                                 nd->name, (int)m->bwd_node, i);
        if (l->live[i].bytes != m->size)
            return tp_error_setx(err, TP_ERR_SHAPE, TP_NO_OFFSET, (int64_t)i,
                                 "backward plan: weight '%s' is %llu bytes in the backward graph "
                                 "but %llu bytes in the forward plan",
                                 nd->name, (unsigned long long)l->live[i].bytes,
                                 (unsigned long long)m->size);
        m->bwd_node = (tp_node_id)i;
    }
    return TP_OK;
}

tp_status tp_plan_backward(const tp_plan *forward, const tp_graph *forward_graph,
                           const tp_graph *backward, const tp_plan_options *opt, tp_plan **out,
                           tp_error *err) {
    if (!forward || !forward_graph || !backward || !out)
        return tp_error_set(err, TP_ERR_INVALID, "tp_plan_backward: NULL argument");
    *out = NULL;
    if (tp_graph_node_count(forward_graph) != forward->n_nodes)
        return tp_error_set(err, TP_ERR_INVALID,
                            "backward plan: the forward graph has %u nodes but the forward plan "
                            "was made for %u",
                            tp_graph_node_count(forward_graph), forward->n_nodes);
    tp_plan_options o;
    if (opt)
        o = *opt;
    else
        tp_plan_options_default(&o);
    o.allocate_params = false;
    tp_status st = tp_plan_check_options(&o, err);
    if (st != TP_OK) return st;
    if (tp_graph_output_count(backward) == 0)
        return tp_error_set(err, TP_ERR_INVALID,
                            "backward plan: the backward graph has no outputs");

    const tp_allocator *a = tp_graph_allocator(backward);
    const size_t cap = forward->n_nodes ? forward->n_nodes : 1;
    weight *w = tp_mem_calloc(a, cap, sizeof *w);
    tp_plan_fixed *fixed = tp_mem_calloc(a, cap, sizeof *fixed);
    tp_liveness *l = NULL;
    size_t nw = 0;
    if (!w || !fixed) {
        st = tp_error_set(err, TP_ERR_NOMEM, "backward plan: out of memory");
        goto done;
    }
    st = collect_weights(forward, forward_graph, w, &nw, err);
    if (st != TP_OK) goto done;
    st = tp_liveness_compute(backward, &o, a, &l, err);
    if (st != TP_OK) goto done;
    st = match_weights(backward, l, w, nw, err);
    if (st != TP_OK) goto done;
    for (size_t k = 0; k < nw; k++) {
        fixed[k].node = w[k].bwd_node;
        fixed[k].offset = w[k].offset;
        fixed[k].size = w[k].size;
        fixed[k].tail_guard = w[k].tail_guard;
        fixed[k].alignment = forward->alignment;
    }
    st = tp_plan_build(backward, l, &o, fixed, nw, out, err);
done:
    tp_liveness_destroy(l);
    tp_mem_free(a, fixed, cap * sizeof *fixed);
    tp_mem_free(a, w, cap * sizeof *w);
    return st;
}
