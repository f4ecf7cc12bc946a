/*
 * Internal interface of the allocator layer (src/plan/alloc_*.c).
 *
 * Plug-in contract for placers (greedy, no-reuse, best-fit, exact, ...):
 *
 *   tp_status tp__alloc_<name>(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
 *                              const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
 *                              tp_error *err);
 *
 *   - Called by tp_alloc_plan (alloc_plan.c) only after tp__alloc_validate succeeded, so a
 *     placer may assume: bufs and offsets are non-NULL when n > 0 (n == 0 gives
 *     *arena = 0), opt->alignment and every buffer alignment are powers of
 *     two, 0 <= birth <= death, size + tail_guard does not overflow, fixed offsets are aligned,
 *     fixed_offset + placement size does not overflow, and fixed buffers do not conflict
 *     with each other.
 *   - It writes offsets[i] for every i (fixed buffers: their fixed_offset) and
 *     *arena = max(offsets[i] + placement size) (0 when n == 0).
 *   - Returns TP_OK, TP_ERR_NOMEM (every allocation through core/mem.h with `alloc`, all freed
 *     on every path), TP_ERR_OVERFLOW (an offset or end beyond 64 bits), or for searches
 *     TP_ERR_INFEASIBLE / TP_ERR_TIMEOUT. It never prints, exits or aborts.
 *   - The dispatcher computes the lower bound, timing and optimal flag; placers do not.
 *
 * Conflict rule used everywhere (placers, verifier): buffers j and k conflict when their
 * lifetimes overlap inclusively (b_j <= d_k && b_k <= d_j) and their placed byte ranges
 * overlap: o_j < o_k + p_k && o_k < o_j + p_j (p = placement size = size + tail_guard).
 * A zero placement size buffer therefore conflicts only when strictly inside another.
 */
#ifndef TP_PLAN_ALLOC_INTERNAL_H
#define TP_PLAN_ALLOC_INTERNAL_H

#include "tensorplan/alloc.h"

/* Placement size (size + tail_guard); validated not to overflow before placers run. */
static inline uint64_t tp__alloc_psize(const tp_buffer *b) {
    return b->size + b->tail_guard;
}
/* Effective alignment of a buffer: its own, or the options' when 0. */
static inline uint64_t tp__alloc_align(const tp_buffer *b, uint64_t opt_alignment) {
    return b->alignment ? b->alignment : opt_alignment;
}

/* A buffer's place in a placement order: qsort with tp__alloc_key_cmp puts larger k1 first,
 * then larger k2, then the lower buffer index idx. */
typedef struct tp__alloc_key {
    uint64_t k1, k2;
    size_t idx;
} tp__alloc_key;
int tp__alloc_key_cmp(const void *a, const void *b);

/* Check everything a placer may assume (see above). Messages name the buffer index and id. */
tp_status tp__alloc_validate(const tp_buffer *bufs, size_t n, const uint64_t *offsets,
                             const tp_alloc_options *opt, const tp_allocator *alloc, tp_error *err);

/* The reference greedy by size, lowest offset (docs/allocator.md), exact reference result;
 * placed buffers live in the gap index (gap_index.h). */
tp_status tp__alloc_greedy(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                           const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                           tp_error *err);

/* The same placement rule ("lowest aligned offset that conflicts with no placed buffer") with
 * a caller-chosen order: order[0..n_order) lists the indices of the non-fixed buffers to place,
 * in placement order (each exactly once; fixed buffers are placed first and must not be
 * listed). Useful for best-fit over several orders. tp__alloc_greedy is this with the stable
 * size-descending order. */
tp_status tp__alloc_greedy_ordered(const tp_buffer *bufs, size_t n, const size_t *order,
                                   size_t n_order, const tp_alloc_options *opt,
                                   const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                                   tp_error *err);

/* NO_REUSE: fixed buffers first; then each other buffer, in input order, at the aligned end of
 * the previous one (the first at the aligned end of the fixed region, or 0). */
tp_status tp__alloc_noreuse(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                            const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                            tp_error *err);

/* Find the first conflicting pair among the buffers listed in idx[0..m) (idx NULL = all n)
 * placed at offsets[]. O(m log m). On TP_OK, *found tells whether a conflict exists and
 * (*a, *b) are buffer indices of the pair. Ends must not overflow (checked by callers). */
tp_status tp__alloc_find_conflict(const tp_buffer *bufs, size_t n, const size_t *idx, size_t m,
                                  const uint64_t *offsets, const tp_allocator *alloc, bool *found,
                                  size_t *a, size_t *b, tp_error *err);

#endif
