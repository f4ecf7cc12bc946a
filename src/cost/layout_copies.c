/* onnxruntime's NCHWc layout copies and the Casts around its half kernels, priced as memory
 * passes (layout_copies.h). Which tensors
 * are blocked comes from the emulation of onnxruntime's optimizer (ortgraph/ort_xform.h), the
 * one the onnxruntime memory profile plans with. */
#include "cost/layout_copies.h"

#include <string.h>

#include "core/mem.h"
#include "ortgraph/ort_xform.h"

enum { COPY_OUTPUT = 1, COPY_INPUT = 2, CAST_TO_HALF = 4, CAST_TO_F32 = 8 };

/* One copy of node id's tensor: plain bytes on one side, blocked (channels padded) on the
 * other; ReorderOutput reads the blocked one, ReorderInput writes it. */
static tp_status copy_of(const tp_graph *g, uint32_t block, tp_node_id id, bool to_blocked,
                         tp_op_cost *oc, tp_error *err) {
    const tp_node *nd = tp_graph_node(g, id);
    uint64_t plain, blocked;
    int64_t chan;
    memset(oc, 0, sizeof *oc);
    tp_status s = tp_graph_node_bytes(g, id, &plain, err);
    if (s != TP_OK) return s;
    if (!tp_ort_padded_bytes(g, nd, plain, block, &blocked, &chan)) blocked = plain;
    oc->cls = TP_COST_MEMORY;
    oc->launches = plain > 0;
    oc->bytes_read = to_blocked ? plain : blocked;
    oc->bytes_written = to_blocked ? blocked : plain;
    oc->compute_dtype = nd->dtype;
    oc->kernel = TP_KERNEL_GENERIC;
    return TP_OK;
}

/* One Cast onnxruntime inserts between a half kernel and its float32 neighbours: node id's
 * tensor (half bytes) written as half from float32, or as float32 from half. */
static tp_status cast_of(const tp_graph *g, tp_node_id id, bool to_half, tp_op_cost *oc,
                         tp_error *err) {
    uint64_t half;
    memset(oc, 0, sizeof *oc);
    tp_status s = tp_graph_node_bytes(g, id, &half, err);
    if (s != TP_OK) return s;
    uint64_t wide = tp_sat_mul_u64(half, 2);
    oc->cls = TP_COST_MEMORY;
    oc->launches = half > 0;
    oc->bytes_read = to_half ? wide : half;
    oc->bytes_written = to_half ? half : wide;
    oc->compute_dtype = TP_DTYPE_F32;
    oc->kernel = TP_KERNEL_GENERIC;
    return TP_OK;
}

static uint32_t bits(uint8_t v) {
    uint32_t c = 0;
    for (; v; v &= (uint8_t)(v - 1))
        c++;
    return c;
}

void tp__layout_copies_free(const tp_graph *g, tp_op_cost *copies, uint32_t n) {
    tp_mem_free(tp_graph_allocator(g), copies, (size_t)n * sizeof *copies);
}

tp_status tp__layout_copies(const tp_graph *g, const tp_ort_xform *x, tp_op_cost **out,
                            uint32_t *n_out, uint8_t *blocked, tp_error *err) {
    *out = NULL;
    *n_out = 0;
    if (blocked) memset(blocked, 0, tp_graph_node_count(g));
    uint32_t block = x->block;
    if (block == 0) return TP_OK;
    tp_status s = TP_OK;
    if (blocked) memcpy(blocked, x->chain, x->n);
    const tp_allocator *a = tp_graph_allocator(g);
    uint8_t *need = tp_mem_calloc(a, (size_t)x->n + 1, 1);
    if (!need) return tp_error_set(err, TP_ERR_NOMEM, "graph cost: out of memory (%u nodes)", x->n);
    uint32_t count = 0;
    for (uint32_t m = 0; m < x->n; m++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)m);
        if (!nd || tp_op_is_boundary(nd->op.kind) || nd->op.kind == TP_OP_OUTPUT_OF ||
            (nd->flags & TP_NODE_SHAPE_ONLY) || x->same_as[m] >= 0)
            continue;
        if ((nd->flags & TP_NODE_OUTPUT) && x->chain[m]) need[m] |= COPY_OUTPUT;
        for (uint32_t i = 0; i < nd->n_inputs; i++) {
            tp_node_id in = tp_ort_source_of(x, nd->inputs[i]); /* a removed Cast: its source */
            if (in < 0 || (uint32_t)in >= x->n || x->absorbed[in]) continue;
            const tp_node *inn = tp_graph_node(g, in);
            if (!inn || tp_op_is_weight(inn->op.kind)) continue;
            tp_ort_read r = tp_ort_read_of(g, x, (tp_node_id)m, i, in, in);
            if (r == TP_ORT_READ_REORDERED) need[in] |= COPY_OUTPUT;
            if (r == TP_ORT_READ_TO_BLOCKED) need[in] |= COPY_INPUT;
            /* the Casts around a half kernel (tp_ort_half_kernel) */
            if (tp_ort_casts_to_half(nd, inn)) need[in] |= CAST_TO_HALF;
            if (tp_ort_casts_to_f32(nd, inn)) need[in] |= CAST_TO_F32;
        }
    }
    for (uint32_t id = 0; id < x->n; id++)
        count += bits(need[id]);
    tp_op_cost *c = count ? tp_mem_calloc(a, count, sizeof *c) : NULL;
    if (count && !c)
        s = tp_error_set(err, TP_ERR_NOMEM, "graph cost: out of memory (%u copies)", count);
    uint32_t k = 0;
    for (uint32_t id = 0; id < x->n && s == TP_OK && c; id++) {
        if (need[id] & COPY_OUTPUT) s = copy_of(g, block, (tp_node_id)id, false, &c[k++], err);
        if (s == TP_OK && (need[id] & COPY_INPUT))
            s = copy_of(g, block, (tp_node_id)id, true, &c[k++], err);
        if (s == TP_OK && (need[id] & CAST_TO_HALF))
            s = cast_of(g, (tp_node_id)id, true, &c[k++], err);
        if (s == TP_OK && (need[id] & CAST_TO_F32))
            s = cast_of(g, (tp_node_id)id, false, &c[k++], err);
    }
    tp_mem_free(a, need, (size_t)x->n + 1);
    if (s != TP_OK) {
        tp__layout_copies_free(g, c, count);
        return s;
    }
    *out = c;
    *n_out = count;
    return TP_OK;
}
