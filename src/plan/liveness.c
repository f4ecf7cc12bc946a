/* Liveness: one topological walk in the style of ggml-alloc (ggml/src/ggml-alloc.c).
 *
 * For every node: its buffer owner (root) and byte offset into it (views and
 * tied weights alias their source; in-place elementwise ops reuse their input
 * 0's buffer), its own size under the width policy, and its inclusive
 * lifetime [birth, death]. Rules:
 *   - birth = the node's step (TP_OP_OUTPUT_OF: its producer's step);
 *   - death = the last step of any node reading it, directly or through a view
 *     (a view's death extends its source's, so chains reach the root);
 *   - graph outputs, and boundary nodes (Input/Param/Constant) live to last = n;
 *   - TP_NODE_READS_INPUTS_LATE: the node's inputs (and their chains) live to last;
 *   - attention with packed QKV keeps input 0 (and its chain) alive to its step;
 *   - pin_output_ancestors: every transitive ancestor of an output lives to last;
 *   - in-place: an elementwise op reuses the buffer of an input (input 0 first)
 *     that is plain and non-boundary, has the same byte size and dies at this
 *     step -- its other readers and views have all run: the lifetime decides,
 *     not the number of edges -- unless another input of the op reads the same
 *     bytes.
 */
#include <string.h>

#include "core/mem.h"
#include "plan/plan_internal.h"

static int64_t max_i64(int64_t a, int64_t b) {
    return a > b ? a : b;
}

/* A Param that aliases an earlier Param's bytes (tp_graph_add_tied_param). */
static bool live_tied_target(const tp_graph *g, tp_node_id id, const tp_node *nd,
                             tp_node_id *target) {
    if (nd->op.kind != TP_OP_PARAM) return false;
    int32_t t = nd->op.attrs.param.tied_to;
    if (t < 0 || t >= id) return false;
    const tp_node *tn = tp_graph_node(g, t);
    if (!tn || tn->op.kind != TP_OP_PARAM) return false;
    *target = t;
    return true;
}

static tp_status node_bytes(const tp_graph *g, tp_node_id id, tp_width_policy width, uint64_t *out,
                            tp_error *err) {
    if (width == TP_WIDTH_F32_UNIFORM) {
        uint64_t elems = 0;
        tp_status st = tp_graph_node_elements(g, id, &elems, err);
        if (st != TP_OK) return st;
        if (!tp_mul_u64(elems, 4, out))
            return tp_error_setx(err, TP_ERR_OVERFLOW, TP_NO_OFFSET, id,
                                 "node %d: %llu elements x 4 bytes overflows 64 bits", (int)id,
                                 (unsigned long long)elems);
        return TP_OK;
    }
    return tp_graph_node_bytes(g, id, out, err);
}

/* Convert a native byte offset into the source tensor to the width policy. */
static tp_status scale_offset(const tp_graph *g, tp_node_id src, uint64_t native,
                              tp_width_policy width, uint64_t *out, tp_error *err) {
    if (width != TP_WIDTH_F32_UNIFORM || native == 0) {
        *out = native;
        return TP_OK;
    }
    const tp_dtype_info *di = tp_dtype_get(tp_graph_node(g, src)->dtype);
    if (!di || di->block_bytes == 0)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, src, "node %d: unknown dtype",
                             (int)src);
    uint64_t elems = 0;
    if (!tp_mul_u64(native / di->block_bytes, di->block_elems, &elems) ||
        !tp_mul_u64(elems, 4, out))
        return tp_error_setx(err, TP_ERR_OVERFLOW, TP_NO_OFFSET, src,
                             "node %d: view offset overflows 64 bits", (int)src);
    return TP_OK;
}

void tp_liveness_destroy(tp_liveness *l) {
    if (!l) return;
    const tp_allocator *a = l->alloc;
    const size_t cap = l->n ? l->n : 1;
    tp_mem_free(a, l->live, cap * sizeof *l->live);
    tp_mem_free(a, l->buf_death, cap * sizeof *l->buf_death);
    tp_mem_free(a, l, sizeof *l);
}

uint32_t tp_liveness_count(const tp_liveness *l) {
    return l ? l->n : 0;
}

const tp_live *tp_liveness_get(const tp_liveness *l, tp_node_id id) {
    if (!l || id < 0 || (uint32_t)id >= l->n) return NULL;
    return &l->live[id];
}

uint64_t tp_liveness_inplace_saved_bytes(const tp_liveness *l) {
    return l ? l->inplace_saved : 0;
}

/* Scratch arrays of one computation. */
typedef struct scratch {
    uint32_t *consumers; /* read edges per node (OUTPUT_OF's producer link excluded) */
    uint32_t *views;     /* views (and tied aliases) of each node */
    uint8_t *pinned;     /* pin_output_ancestors marks */
    tp_node_id *src;     /* aliased source of each view, or TP_NO_NODE */
} scratch;

static void scratch_free(const tp_allocator *a, scratch *s, uint32_t n) {
    tp_mem_free(a, s->consumers, (size_t)n * sizeof *s->consumers);
    tp_mem_free(a, s->views, (size_t)n * sizeof *s->views);
    tp_mem_free(a, s->pinned, (size_t)n);
    tp_mem_free(a, s->src, (size_t)n * sizeof *s->src);
}

/* Step 1: sizes, births, direct reads, outputs, boundary, flags. */
static tp_status first_pass(const tp_graph *g, const tp_plan_options *opt, tp_liveness *l,
                            scratch *s, tp_error *err) {
    const int64_t last = l->last;
    for (uint32_t i = 0; i < l->n; i++) {
        const tp_node_id id = (tp_node_id)i;
        const tp_node *nd = tp_graph_node(g, id);
        tp_live *lv = &l->live[i];
        lv->root = id;
        lv->birth = id;
        lv->death = id;
        tp_status st = node_bytes(g, id, opt->width, &lv->bytes, err);
        if (st != TP_OK) return st;
        if (tp_op_is_boundary(nd->op.kind)) {
            lv->birth = 0;
            lv->death = last;
        }
        if (nd->flags & TP_NODE_OUTPUT) lv->death = last;
        for (uint32_t k = 0; k < nd->n_inputs; k++) {
            tp_node_id in = nd->inputs[k];
            if (in < 0 || in >= id)
                return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id,
                                     "node %d ('%s'): input %u refers to node %d, not an earlier "
                                     "node",
                                     (int)id, nd->name, k, (int)in);
            if (nd->op.kind == TP_OP_OUTPUT_OF && k == 0) {
                /* a secondary output is written by its producer: born with it */
                lv->birth = l->live[in].birth;
                continue;
            }
            s->consumers[in]++;
            tp_live *src = &l->live[in];
            src->death = max_i64(src->death, id);
            if (nd->flags & TP_NODE_READS_INPUTS_LATE) src->death = last;
        }
        if (nd->op.kind == TP_OP_ATTENTION && nd->op.attrs.attention.packed_qkv &&
            nd->n_inputs > 0) {
            /* the packed parent is read by the attention kernel itself */
            tp_live *qkv = &l->live[nd->inputs[0]];
            qkv->death = max_i64(qkv->death, id);
        }
    }
    return TP_OK;
}

/* Step 2: pin_output_ancestors (reverse walk marking ancestors of outputs). */
static void pin_ancestors(const tp_graph *g, tp_liveness *l, scratch *s) {
    for (uint32_t i = l->n; i-- > 0;) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)i);
        if (nd->flags & TP_NODE_OUTPUT) s->pinned[i] = 1;
        if (!s->pinned[i]) continue;
        l->live[i].death = l->last;
        for (uint32_t k = 0; k < nd->n_inputs; k++)
            s->pinned[nd->inputs[k]] = 1;
    }
}

/* Source a node aliases (views and tied weights), or TP_NO_NODE. */
static tp_status alias_source(const tp_graph *g, tp_node_id id, tp_node_id *src,
                              uint64_t *native_offset, tp_error *err) {
    const tp_node *nd = tp_graph_node(g, id);
    tp_node_id t;
    *src = TP_NO_NODE;
    *native_offset = 0;
    if (live_tied_target(g, id, nd, &t)) {
        *src = t;
        return TP_OK;
    }
    bool is_view = false;
    tp_status st = tp_graph_node_view(g, id, &is_view, native_offset, err);
    if (st != TP_OK) return st;
    if (is_view && nd->n_inputs > 0) *src = nd->inputs[0];
    return TP_OK;
}

/* The buffer a node reads through input q (views followed to their source). */
static tp_node_id buffer_of(const tp_liveness *l, const scratch *s, tp_node_id q) {
    while (s->src[q] != TP_NO_NODE)
        q = s->src[q];
    return l->live[q].root;
}

/* The input whose buffer elementwise node i may overwrite, or TP_NO_NODE. The
 * lifetime decides, not the number of edges: an input qualifies when it is a
 * plain (no view, not boundary, not a secondary output) buffer of the same
 * byte size that dies at this step -- every other reader, and every view of it,
 * has run by now -- and no other input of i reads the same bytes. Input 0 is
 * preferred, then the others in order (x * clip(x + 3): the multiply reuses x). */
static tp_node_id inplace_input(const tp_graph *g, const tp_liveness *l, const scratch *s,
                                tp_node_id i) {
    const tp_node *nd = tp_graph_node(g, i);
    const tp_live *lv = &l->live[i];
    if (lv->bytes == 0) return TP_NO_NODE;
    for (uint32_t k = 0; k < nd->n_inputs; k++) {
        tp_node_id p = nd->inputs[k];
        const tp_live *pl = &l->live[p];
        const tp_node *pn = tp_graph_node(g, p);
        if (pl->is_view || tp_op_is_boundary(pn->op.kind) || pn->op.kind == TP_OP_OUTPUT_OF ||
            pl->death != (int64_t)i || pl->bytes != lv->bytes)
            continue;
        tp_node_id buf = pl->root;
        bool shared = false;
        for (uint32_t j = 0; j < nd->n_inputs && !shared; j++)
            shared = nd->inputs[j] != p && buffer_of(l, s, nd->inputs[j]) == buf;
        if (!shared) return p;
    }
    return TP_NO_NODE;
}

tp_status tp_liveness_compute(const tp_graph *g, const tp_plan_options *opt,
                              const tp_allocator *alloc, tp_liveness **out, tp_error *err) {
    if (!g || !out) return tp_error_set(err, TP_ERR_INVALID, "tp_liveness_compute: NULL argument");
    *out = NULL;
    tp_plan_options defaults;
    if (!opt) {
        tp_plan_options_default(&defaults);
        opt = &defaults;
    }
    /* every symbol bound (TP_ERR_UNBOUND names the unbound ones) */
    tp_status st = tp_graph_validate(g, true, err);
    if (st != TP_OK) return st;

    const uint32_t n = tp_graph_node_count(g);
    const uint32_t cap = n ? n : 1; /* arrays never of size 0 */
    tp_liveness *l = tp_mem_calloc(alloc, 1, sizeof *l);
    scratch s = {0};
    if (!l) return tp_error_set(err, TP_ERR_NOMEM, "liveness: out of memory");
    l->alloc = alloc;
    l->n = n;
    l->last = (int64_t)n;
    l->live = tp_mem_calloc(alloc, cap, sizeof *l->live);
    l->buf_death = tp_mem_calloc(alloc, cap, sizeof *l->buf_death);
    s.consumers = tp_mem_calloc(alloc, cap, sizeof *s.consumers);
    s.views = tp_mem_calloc(alloc, cap, sizeof *s.views);
    s.pinned = tp_mem_calloc(alloc, cap, 1);
    s.src = tp_mem_calloc(alloc, cap, sizeof *s.src);
    if (!l->live || !l->buf_death || !s.consumers || !s.views || !s.pinned || !s.src) {
        st = tp_error_set(err, TP_ERR_NOMEM, "liveness: out of memory for %u nodes", n);
        goto fail;
    }

    st = first_pass(g, opt, l, &s, err);
    if (st != TP_OK) goto fail;
    if (opt->pin_output_ancestors) pin_ancestors(g, l, &s);

    /* Step 3: find aliases (views and tied weights) and their own offsets. */
    for (uint32_t i = 0; i < n; i++) {
        tp_node_id src;
        uint64_t native = 0;
        s.src[i] = TP_NO_NODE;
        st = alias_source(g, (tp_node_id)i, &src, &native, err);
        if (st != TP_OK) goto fail;
        if (src == TP_NO_NODE) continue;
        tp_live *lv = &l->live[i];
        st = scale_offset(g, src, native, opt->width, &lv->view_offset, err);
        if (st != TP_OK) goto fail;
        lv->is_view = true;
        s.src[i] = src;
        s.views[src]++;
    }
    /* Step 4: a view read later keeps its source (and so the whole chain) alive. */
    for (uint32_t i = n; i-- > 0;)
        if (s.src[i] != TP_NO_NODE)
            l->live[s.src[i]].death = max_i64(l->live[s.src[i]].death, l->live[i].death);
    /* Step 5: in-place reuse (forward, so chains of in-place ops share one buffer). */
    for (uint32_t i = 0; opt->inplace && i < n; i++) {
        tp_live *lv = &l->live[i];
        const tp_node *nd = tp_graph_node(g, (tp_node_id)i);
        if (lv->is_view || nd->n_inputs == 0 || !tp_op_is_elementwise(nd->op.kind)) continue;
        tp_node_id p = inplace_input(g, l, &s, (tp_node_id)i);
        if (p == TP_NO_NODE) continue;
        lv->root = l->live[p].root; /* p is no view: its root is final already */
        lv->inplace = true;
        l->inplace_saved = tp_sat_add_u64(l->inplace_saved, lv->bytes);
    }
    /* Step 3b: resolve view chains to their owner, offsets summed (sources first). */
    for (uint32_t i = 0; i < n; i++) {
        if (s.src[i] == TP_NO_NODE) continue;
        tp_live *lv = &l->live[i];
        const tp_live *sl = &l->live[s.src[i]];
        lv->root = sl->root;
        if (!tp_add_u64(sl->view_offset, lv->view_offset, &lv->view_offset)) {
            st = tp_error_setx(err, TP_ERR_OVERFLOW, TP_NO_OFFSET, (int64_t)i,
                               "node %u: view offset overflows 64 bits", i);
            goto fail;
        }
    }
    /* Step 6: buffer lifetimes: an owner's buffer lives until its last member dies. */
    for (uint32_t i = 0; i < n; i++)
        l->buf_death[i] = l->live[i].death;
    for (uint32_t i = 0; i < n; i++) {
        const tp_live *lv = &l->live[i];
        if (lv->root != (tp_node_id)i)
            l->buf_death[lv->root] = max_i64(l->buf_death[lv->root], lv->death);
    }
    scratch_free(alloc, &s, cap);
    *out = l;
    return TP_OK;

fail:
    scratch_free(alloc, &s, cap);
    tp_liveness_destroy(l);
    return st;
}
