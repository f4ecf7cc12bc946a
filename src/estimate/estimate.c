/* Memory estimate: activations from a plan of non-boundary buffers,
 * weights from the registry or the graph, inputs; and the budget check. */
#include "tensorplan/estimate.h"

#include <stdio.h>
#include <string.h>

void tp_estimate_options_default(tp_estimate_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    tp_plan_options_default(&o->plan);
    o->registry = NULL;
}

static tp_status add_checked(uint64_t *acc, uint64_t v, const char *what, tp_error *err) {
    if (!tp_add_u64(*acc, v, acc))
        return tp_error_set(err, TP_ERR_OVERFLOW, "estimate: %s bytes overflow 64 bits", what);
    return TP_OK;
}

/* The Param a tied Param aliases, or -1 (also for a malformed tie: not an
 * earlier Param). */
static tp_node_id tied_target(const tp_graph *g, tp_node_id id) {
    const tp_node *n = tp_graph_node(g, id);
    tp_node_id t = n ? n->op.attrs.param.tied_to : -1;
    if (t < 0 || t >= id) return -1;
    const tp_node *tn = tp_graph_node(g, t);
    return tn && tn->op.kind == TP_OP_PARAM ? t : -1;
}

tp_status tp_estimate_graph(const tp_graph *g, const tp_estimate_options *o, tp_estimate *out,
                            tp_error *err) {
    return tp_estimate_graph_plan(g, o, out, NULL, err);
}

tp_status tp_estimate_graph_plan(const tp_graph *g, const tp_estimate_options *o, tp_estimate *out,
                                 tp_plan **activation_plan, tp_error *err) {
    if (activation_plan) *activation_plan = NULL;
    if (!g || !out) return tp_error_set(err, TP_ERR_INVALID, "estimate: NULL argument");
    memset(out, 0, sizeof *out);
    tp_estimate_options defaults;
    if (!o) {
        tp_estimate_options_default(&defaults);
        o = &defaults;
    }
    tp_estimate e;
    memset(&e, 0, sizeof e);

    /* weights and inputs first: they name unbound symbols per node */
    uint32_t n = tp_graph_node_count(g);
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *node = tp_graph_node(g, (tp_node_id)id);
        if (!node || !tp_op_is_boundary(node->op.kind)) continue;
        if (node->op.kind == TP_OP_PARAM && o->registry) continue;
        if (node->op.kind == TP_OP_CONSTANT && o->registry) continue;
        if (node->op.kind == TP_OP_PARAM && tied_target(g, (tp_node_id)id) >= 0) {
            e.tied_params_skipped++;
            continue;
        }
        uint64_t bytes;
        tp_status s = tp_graph_node_bytes(g, (tp_node_id)id, &bytes, err);
        if (s != TP_OK) return s;
        if (node->op.kind == TP_OP_INPUT)
            s = add_checked(&e.input_bytes, bytes, "input", err);
        else if (node->op.kind == TP_OP_PARAM)
            s = add_checked(&e.param_bytes, bytes, "parameter", err);
        else
            s = add_checked(&e.constant_bytes, bytes, "constant", err);
        if (s != TP_OK) return s;
    }
    if (o->registry) {
        e.weight_bytes = tp_registry_total_bytes(o->registry);
        e.from_registry = true;
    } else if (!tp_add_u64(e.param_bytes, e.constant_bytes, &e.weight_bytes)) {
        return tp_error_set(err, TP_ERR_OVERFLOW, "estimate: weight bytes overflow 64 bits");
    }

    /* activations: a plan with no boundary buffer in it */
    tp_plan_options po = o->plan;
    po.allocate_params = false;
    po.allocate_inputs = false;
    po.allocate_constants = false;
    tp_plan *plan = NULL;
    tp_status s = tp_plan_graph(g, &po, &plan, err);
    if (s != TP_OK) {
        tp_error_prefix(err, "estimate: planning activations: ");
        return s;
    }
    e.activation_bytes = tp_plan_arena_bytes(plan);

    e.peak_bytes = e.activation_bytes;
    if ((s = add_checked(&e.peak_bytes, e.weight_bytes, "peak", err)) != TP_OK ||
        (s = add_checked(&e.peak_bytes, e.input_bytes, "peak", err)) != TP_OK) {
        tp_plan_destroy(plan);
        return s;
    }
    *out = e;
    if (activation_plan)
        *activation_plan = plan;
    else
        tp_plan_destroy(plan);
    return TP_OK;
}

const char *tp_deficit_format(const tp_deficit *d, char *buf, size_t cap) {
    if (!buf || cap == 0) return buf;
    if (!d) {
        buf[0] = '\0';
        return buf;
    }
    char peak[32], budget[32], deficit[32], act[32], w[32], in[32];
    tp_format_bytes_pair(d->peak_bytes, d->budget_bytes, peak, budget, sizeof peak);
    snprintf(buf, cap,
             "estimated peak %s exceeds budget %s by %s (activations %s, weights %s, inputs %s)",
             peak, budget, tp_format_bytes(d->deficit_bytes, deficit, sizeof deficit),
             tp_format_bytes(d->activation_bytes, act, sizeof act),
             tp_format_bytes(d->weight_bytes, w, sizeof w),
             tp_format_bytes(d->input_bytes, in, sizeof in));
    return buf;
}

tp_status tp_estimate_fits_in(const tp_estimate *e, uint64_t budget_bytes, tp_deficit *d,
                              tp_error *err) {
    if (!e) return tp_error_set(err, TP_ERR_INVALID, "estimate: NULL estimate");
    tp_deficit def = {
        .budget_bytes = budget_bytes,
        .peak_bytes = e->peak_bytes,
        .deficit_bytes = tp_sat_sub_u64(e->peak_bytes, budget_bytes),
        .activation_bytes = e->activation_bytes,
        .weight_bytes = e->weight_bytes,
        .input_bytes = e->input_bytes,
    };
    if (d) *d = def;
    if (e->peak_bytes <= budget_bytes) return TP_OK;
    char msg[TP_ERROR_MSG_CAP];
    tp_deficit_format(&def, msg, sizeof msg);
    return tp_error_set(err, TP_ERR_OVER_BUDGET, "%s", msg);
}
