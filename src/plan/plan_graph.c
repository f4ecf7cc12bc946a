/* Graph memory plans: liveness -> (size, birth, death) buffers ->
 * the arena allocator -> one slot per node (views and in-place users at their
 * owner's offset), then the independent verifier. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "plan/plan_internal.h"

void tp_plan_destroy(tp_plan *p) {
    if (!p) return;
    const tp_allocator *a = p->alloc;
    const size_t nn = p->n_nodes ? p->n_nodes : 1;
    const size_t nb = p->buf_cap;
    tp_mem_free(a, p->slots, nn * sizeof *p->slots);
    tp_mem_free(a, p->slot_of, nn * sizeof *p->slot_of);
    tp_mem_free(a, p->buffer_of, nn * sizeof *p->buffer_of);
    tp_mem_free(a, p->buffers, nb * sizeof *p->buffers);
    tp_mem_free(a, p->offsets, nb * sizeof *p->offsets);
    tp_mem_free(a, p, sizeof *p);
}

uint32_t tp_plan_node_count(const tp_plan *p) {
    return p ? p->n_nodes : 0;
}
uint64_t tp_plan_arena_bytes(const tp_plan *p) {
    return p ? p->arena : 0;
}
uint64_t tp_plan_lower_bound_bytes(const tp_plan *p) {
    return p ? p->lower_bound : 0;
}
uint64_t tp_plan_unshared_bytes(const tp_plan *p) {
    return p ? p->unshared : 0;
}
uint64_t tp_plan_saved_bytes(const tp_plan *p) {
    return p ? tp_sat_sub_u64(p->unshared, p->arena) : 0;
}
uint64_t tp_plan_inplace_saved_bytes(const tp_plan *p) {
    return p ? p->inplace_saved : 0;
}
const tp_alloc_result *tp_plan_alloc_result(const tp_plan *p) {
    return p ? &p->result : NULL;
}
uint32_t tp_plan_slot_count(const tp_plan *p) {
    return p ? p->n_slots : 0;
}
const tp_slot *tp_plan_slot(const tp_plan *p, uint32_t index) {
    if (!p || index >= p->n_slots) return NULL;
    return &p->slots[index];
}
const tp_slot *tp_plan_slot_of(const tp_plan *p, tp_node_id node) {
    if (!p || node < 0 || (uint32_t)node >= p->n_nodes || p->slot_of[node] < 0) return NULL;
    return &p->slots[p->slot_of[node]];
}

/* Is this buffer owner allocated under the boundary toggles? */
static bool owner_allocated(const tp_node *nd, const tp_plan_options *opt) {
    switch (nd->op.kind) {
    case TP_OP_INPUT:
        return opt->allocate_inputs;
    case TP_OP_PARAM:
        return opt->allocate_params;
    case TP_OP_CONSTANT:
        return opt->allocate_constants;
    default:
        return true;
    }
}

static int slot_cmp(const void *a, const void *b) {
    const tp_slot *x = a, *y = b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

/* Fill p->buffers from liveness and fixed entries; p->buffer_of maps owners. */
static tp_status make_buffers(const tp_graph *g, const tp_liveness *l, const tp_plan_options *opt,
                              const tp_plan_fixed *fixed, size_t n_fixed, tp_plan *p,
                              tp_error *err) {
    const uint64_t guard = opt->alignment > 128 ? opt->alignment : 128;
    size_t nb = 0;
    for (uint32_t i = 0; i < l->n; i++)
        p->buffer_of[i] = -1;
    for (size_t k = 0; k < n_fixed; k++) {
        const tp_plan_fixed *f = &fixed[k];
        tp_buffer *b = &p->buffers[nb];
        memset(b, 0, sizeof *b);
        if (f->offset > (uint64_t)INT64_MAX)
            return tp_error_set(err, TP_ERR_OVERFLOW, "plan: fixed offset %llu beyond 2^63",
                                (unsigned long long)f->offset);
        b->size = f->size;
        b->tail_guard = f->tail_guard;
        b->birth = 0;
        b->death = l->last;
        b->alignment = f->alignment;
        b->fixed_offset = (int64_t)f->offset;
        if (f->node != TP_NO_NODE) {
            if (f->node < 0 || (uint32_t)f->node >= l->n || l->live[f->node].root != f->node)
                return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, f->node,
                                     "plan: fixed node %d is not a buffer owner", (int)f->node);
            b->id = f->node;
            p->buffer_of[f->node] = (int32_t)nb;
        } else {
            b->id = (int64_t)l->n + (int64_t)k;
        }
        nb++;
    }
    for (uint32_t i = 0; i < l->n; i++) {
        const tp_live *lv = &l->live[i];
        if (lv->root != (tp_node_id)i || p->buffer_of[i] >= 0) continue;
        const tp_node *nd = tp_graph_node(g, (tp_node_id)i);
        if (!owner_allocated(nd, opt)) continue;
        tp_buffer *b = &p->buffers[nb];
        memset(b, 0, sizeof *b);
        b->size = lv->bytes;
        if (tp_op_is_boundary(nd->op.kind)) b->tail_guard = lv->bytes ? guard : opt->alignment;
        b->birth = lv->birth;
        b->death = l->buf_death[i];
        b->fixed_offset = -1;
        b->id = (int64_t)i;
        p->buffer_of[i] = (int32_t)nb;
        nb++;
    }
    p->n_buffers = nb;
    (void)err;
    return TP_OK;
}

/* One slot per node whose owner was placed; sums the unshared bytes (saturating). */
static tp_status make_slots(const tp_liveness *l, tp_plan *p, tp_error *err) {
    uint32_t ns = 0;
    uint64_t unshared = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        const tp_live *lv = &l->live[i];
        int32_t bi = p->buffer_of[lv->root];
        if (bi < 0) continue;
        tp_slot *s = &p->slots[ns++];
        s->node = (tp_node_id)i;
        s->size = lv->bytes;
        s->birth = lv->birth;
        s->death = lv->death;
        s->root = lv->root;
        s->is_view = lv->is_view;
        s->inplace = lv->inplace;
        s->fixed = p->buffers[bi].fixed_offset >= 0 && lv->root == (tp_node_id)i;
        if (s->fixed) {
            s->birth = p->buffers[bi].birth;
            s->death = p->buffers[bi].death;
        }
        if (!tp_add_u64(p->offsets[bi], lv->view_offset, &s->offset))
            return tp_error_setx(err, TP_ERR_OVERFLOW, TP_NO_OFFSET, (int64_t)i,
                                 "plan: slot offset of node %u overflows 64 bits", i);
        /* a report-only statistic: saturates instead of failing the plan */
        if (!lv->is_view) unshared = tp_sat_add_u64(unshared, lv->bytes);
    }
    p->n_slots = ns;
    p->unshared = unshared;
    qsort(p->slots, ns, sizeof *p->slots, slot_cmp);
    for (uint32_t i = 0; i < l->n; i++)
        p->slot_of[i] = -1;
    for (uint32_t k = 0; k < ns; k++)
        p->slot_of[p->slots[k].node] = (int32_t)k;
    return TP_OK;
}

tp_status tp_plan_build(const tp_graph *g, const tp_liveness *l, const tp_plan_options *opt,
                        const tp_plan_fixed *fixed, size_t n_fixed, tp_plan **out, tp_error *err) {
    const tp_allocator *a = tp_graph_allocator(g);
    tp_status st = TP_OK;
    tp_plan *p = tp_mem_calloc(a, 1, sizeof *p);
    if (!p) return tp_error_set(err, TP_ERR_NOMEM, "plan: out of memory");
    p->alloc = a;
    p->n_nodes = l->n;
    p->alignment = opt->alignment;
    const size_t nn = l->n ? l->n : 1;
    if (n_fixed > SIZE_MAX / 2 - nn) {
        tp_mem_free(a, p, sizeof *p);
        return tp_error_set(err, TP_ERR_OVERFLOW, "plan: too many fixed buffers");
    }
    const size_t cap_b = nn + n_fixed;
    p->buf_cap = cap_b;
    p->slots = tp_mem_calloc(a, nn, sizeof *p->slots);
    p->slot_of = tp_mem_calloc(a, nn, sizeof *p->slot_of);
    p->buffer_of = tp_mem_calloc(a, nn, sizeof *p->buffer_of);
    p->buffers = tp_mem_calloc(a, cap_b, sizeof *p->buffers);
    p->offsets = tp_mem_calloc(a, cap_b, sizeof *p->offsets);
    if (!p->slots || !p->slot_of || !p->buffer_of || !p->buffers || !p->offsets) {
        st = tp_error_set(err, TP_ERR_NOMEM, "plan: out of memory for %u nodes", l->n);
        goto fail;
    }
    st = make_buffers(g, l, opt, fixed, n_fixed, p, err);
    if (st != TP_OK) goto fail;
    const size_t nb = p->n_buffers;

    tp_alloc_options ao;
    tp_alloc_options_default(&ao);
    ao.alignment = opt->alignment;
    ao.algo = opt->algo;
    ao.time_limit_s = opt->time_limit_s;
    st = tp_alloc_plan(p->buffers, nb, &ao, a, p->offsets, &p->result, err);
    if (st != TP_OK) {
        tp_error_prefix(err, "planning %zu buffers: ", nb);
        goto fail;
    }
    p->arena = p->result.arena_bytes;
    st = tp_alloc_lower_bound(p->buffers, nb, a, &p->lower_bound, err);
    if (st != TP_OK) goto fail;
    p->inplace_saved = l->inplace_saved;
    st = make_slots(l, p, err);
    if (st != TP_OK) goto fail;
    st = tp_plan_verify(p, err);
    if (st != TP_OK) goto fail;
    *out = p;
    return TP_OK;
fail:
    tp_plan_destroy(p);
    return st;
}

tp_status tp_plan_graph(const tp_graph *g, const tp_plan_options *opt, tp_plan **out,
                        tp_error *err) {
    if (!g || !out) return tp_error_set(err, TP_ERR_INVALID, "tp_plan_graph: NULL argument");
    *out = NULL;
    tp_plan_options defaults;
    if (!opt) {
        tp_plan_options_default(&defaults);
        opt = &defaults;
    }
    tp_status st = tp_plan_check_options(opt, err);
    if (st != TP_OK) return st;
    if (tp_graph_output_count(g) == 0)
        return tp_error_set(err, TP_ERR_INVALID,
                            "plan: the graph has no outputs (mark one with tp_graph_mark_output)");
    tp_liveness *l = NULL;
    st = tp_liveness_compute(g, opt, tp_graph_allocator(g), &l, err);
    if (st != TP_OK) return st;
    st = tp_plan_build(g, l, opt, NULL, 0, out, err);
    tp_liveness_destroy(l);
    return st;
}

/* Independent checks: the allocator's verifier over the buffers, then every
 * slot inside its owner's placed bytes and lifetime. */
tp_status tp_plan_verify(const tp_plan *p, tp_error *err) {
    if (!p) return tp_error_set(err, TP_ERR_INVALID, "tp_plan_verify: NULL plan");
    tp_status st = tp_alloc_verify(p->buffers, p->n_buffers, p->offsets, p->alignment, p->arena,
                                   p->alloc, err);
    if (st != TP_OK) return st;
    for (uint32_t k = 0; k < p->n_slots; k++) {
        const tp_slot *s = &p->slots[k];
        int32_t bi = p->buffer_of[s->root];
        if (bi < 0)
            return tp_error_setx(err, TP_ERR_VERIFY, TP_NO_OFFSET, s->node,
                                 "verify: slot of node %d has no placed owner (root %d)",
                                 (int)s->node, (int)s->root);
        const tp_buffer *b = &p->buffers[bi];
        uint64_t boff = p->offsets[bi], bend = 0, send = 0;
        if (!tp_add_u64(boff, b->size, &bend) || !tp_add_u64(s->offset, s->size, &send))
            return tp_error_setx(err, TP_ERR_VERIFY, TP_NO_OFFSET, s->node,
                                 "verify: slot of node %d overflows", (int)s->node);
        if (s->offset < boff || send > bend)
            return tp_error_setx(err, TP_ERR_VERIFY, TP_NO_OFFSET, s->node,
                                 "verify: slot of node %d [%llu, %llu) outside its owner %d's "
                                 "bytes [%llu, %llu)",
                                 (int)s->node, (unsigned long long)s->offset,
                                 (unsigned long long)send, (int)s->root, (unsigned long long)boff,
                                 (unsigned long long)bend);
        if (s->birth < b->birth || s->death > b->death)
            return tp_error_setx(err, TP_ERR_VERIFY, TP_NO_OFFSET, s->node,
                                 "verify: slot of node %d lives [%lld, %lld] outside its owner "
                                 "%d's buffer [%lld, %lld]",
                                 (int)s->node, (long long)s->birth, (long long)s->death,
                                 (int)s->root, (long long)b->birth, (long long)b->death);
    }
    return TP_OK;
}
