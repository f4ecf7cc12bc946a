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

/* Check everything a placer may assume (see above). Messages name the buffer index and id. */
tp_status tp__alloc_validate(const tp_buffer *bufs, size_t n, const uint64_t *offsets,
                             const tp_alloc_options *opt, const tp_allocator *alloc, tp_error *err);

/* The reference greedy by size, lowest offset (docs/allocator.md), exact reference result in ~O(n
 * log n + sum K log K) where K is the number of placed buffers overlapping the new one in time. */
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

/* ---- time-interval index used by the greedy placer (interval_index.c) ----
 * A static segment tree over the compressed steps of all n buffers. Every buffer's inclusive
 * lifetime is decomposed once, at init, into its O(log T) canonical nodes, which sizes a
 * contiguous slab per node (CSR layout); inserting a placed buffer appends its byte range to
 * the slabs of its canonical nodes. A query returns the byte ranges of every inserted buffer
 * whose lifetime intersects the query's, possibly with duplicates (harmless to the sweep). */
typedef struct tp__itree_range {
    uint64_t off, end;
} tp__itree_range;

typedef struct tp__itree {
    const tp_allocator *alloc;
    int64_t *steps; /* sorted distinct steps (compression) */
    size_t n_steps, n_items;
    size_t leaves;             /* power of two >= n_steps; nodes 1 .. 2*leaves-1 */
    size_t *start;             /* per node: first slot of its slab (2*leaves + 1 entries) */
    size_t *fill;              /* per node: ranges inserted so far */
    size_t *sub;               /* per node: ranges inserted in its subtree (pruning) */
    uint64_t *maxend, *minoff; /* per node: over the ranges in its subtree (pruning) */
    tp__itree_range *ranges;   /* all slabs */
    size_t total;
    tp__itree_range *tmp; /* query scratch (merge) */
    size_t cap_tmp;
    size_t *runs; /* query scratch: run starts */
    size_t cap_runs, n_runs;
} tp__itree;

/* Build over the steps of all n buffers (births and deaths); n < 2^31. */
tp_status tp__itree_init(tp__itree *t, const tp_buffer *bufs, size_t n, const tp_allocator *alloc,
                         tp_error *err);
void tp__itree_free(tp__itree *t);
/* Insert the byte range [off, end) of a buffer with lifetime [birth, death]; each of the n
 * buffers given to init may be inserted at most once. Never fails. */
void tp__itree_insert(tp__itree *t, int64_t birth, int64_t death, uint64_t off, uint64_t end);
/* Set *n_out to the number of ranges written to *out (grown with tp_mem_grow through the
 * tree's allocator, possibly swapped with internal scratch; *cap is its capacity): the ranges
 * of every inserted buffer whose lifetime intersects [birth, death], sorted by offset. The
 * slabs must stay byte-disjoint (true for any conflict-free placement). */
tp_status tp__itree_query(tp__itree *t, int64_t birth, int64_t death, tp__itree_range **out,
                          size_t *cap, size_t *n_out, tp_error *err);
/* Lowest aligned q (alignment align) such that [q, q + size) conflicts with no inserted range
 * whose lifetime intersects [birth, death], by passes of jumps over the slabs (no copy): 1 =
 * *q is that offset; 0 = not settled within max_passes (every aligned value below *q is known
 * to conflict; finish with a sorted sweep from *q); -1 = an aligned end passed 2^64 (*blocker
 * is the end). */
int tp__itree_jump_fit(const tp__itree *t, int64_t birth, int64_t death, uint64_t size,
                       uint64_t align, int max_passes, uint64_t *q, uint64_t *blocker);
#endif
