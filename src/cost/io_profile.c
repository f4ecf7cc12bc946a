/* Static IO profile: launches, device traffic, sync points, readback. */
#include "tensorplan/cost.h"

#include <string.h>

void tp_io_options_default(tp_io_options *o) {
    if (!o) return;
    o->host_op_mask = (1ull << TP_OP_CUSTOM) | (1ull << TP_OP_FFT) | (1ull << TP_OP_LOG_MEL) |
                      (1ull << TP_OP_WELCH_PEAKS);
}

uint64_t tp_io_host_readback_bytes(const tp_io_profile *p, bool unified) {
    if (!p) return 0;
    if (unified) return p->host_output_bytes;
    return tp_sat_add_u64(p->host_output_bytes, p->device_traffic_bytes / 4);
}

/* Everything except host_output_bytes. */
static tp_status profile_nodes(const tp_graph *g, const tp_io_options *o, tp_io_profile *p,
                               tp_error *err) {
    tp_io_options def;
    if (!o) {
        tp_io_options_default(&def);
        o = &def;
    }
    uint32_t count = tp_graph_node_count(g);
    for (uint32_t i = 0; i < count; i++) {
        tp_node_id id = (tp_node_id)i;
        const tp_node *n = tp_graph_node(g, id);
        bool meta = false;
        tp_status s = tp_op_is_metadata(g, id, &meta, err);
        if (s != TP_OK) return s;
        if (meta) {
            p->metadata_nodes++;
            continue;
        }
        p->kernel_launches++;
        uint64_t b = 0;
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            if ((s = tp_graph_node_bytes(g, n->inputs[k], &b, err)) != TP_OK) return s;
            p->device_traffic_bytes = tp_sat_add_u64(p->device_traffic_bytes, b);
        }
        if ((s = tp_graph_node_bytes(g, id, &b, err)) != TP_OK) return s;
        p->device_traffic_bytes = tp_sat_add_u64(p->device_traffic_bytes, b);
        bool host = (unsigned)n->op.kind < 64 && (o->host_op_mask >> (unsigned)n->op.kind) & 1u;
        if (host && !(n->flags & TP_NODE_DEVICE_KERNEL)) p->sync_points++;
    }
    return TP_OK;
}

static tp_status add_output(const tp_graph *g, tp_node_id id, tp_io_profile *p, tp_error *err) {
    uint64_t b = 0;
    tp_status s = tp_graph_node_bytes(g, id, &b, err);
    if (s != TP_OK) return s;
    p->host_output_bytes = tp_sat_add_u64(p->host_output_bytes, b);
    return TP_OK;
}

tp_status tp_io_profile_compute(const tp_graph *g, const tp_io_options *o, tp_io_profile *out,
                                tp_error *err) {
    if (!g || !out) return tp_error_set(err, TP_ERR_INVALID, "io profile: NULL graph or result");
    tp_io_profile p;
    memset(&p, 0, sizeof p);
    tp_status s = profile_nodes(g, o, &p, err);
    if (s != TP_OK) return s;
    uint32_t n_out = tp_graph_output_count(g);
    for (uint32_t i = 0; i < n_out; i++)
        if ((s = add_output(g, tp_graph_output(g, i), &p, err)) != TP_OK) return s;
    *out = p;
    return TP_OK;
}

tp_status tp_io_profile_selected(const tp_graph *g, const tp_io_options *o,
                                 const tp_node_id *outputs, uint32_t n_outputs, tp_io_profile *out,
                                 tp_error *err) {
    if (!g || !out || (n_outputs > 0 && !outputs))
        return tp_error_set(err, TP_ERR_INVALID, "io profile: NULL graph, outputs or result");
    uint32_t count = tp_graph_node_count(g);
    for (uint32_t i = 0; i < n_outputs; i++)
        if (outputs[i] < 0 || (uint32_t)outputs[i] >= count)
            return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, outputs[i],
                                 "io profile: selected output %u is node %d, graph has %u nodes", i,
                                 (int)outputs[i], count);
    tp_io_profile p;
    memset(&p, 0, sizeof p);
    tp_status s = profile_nodes(g, o, &p, err);
    if (s != TP_OK) return s;
    for (uint32_t i = 0; i < n_outputs; i++) {
        bool dup = false;
        for (uint32_t j = 0; j < i; j++)
            if (outputs[j] == outputs[i]) dup = true;
        if (!dup && (s = add_output(g, outputs[i], &p, err)) != TP_OK) return s;
    }
    *out = p;
    return TP_OK;
}
