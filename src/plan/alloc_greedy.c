/* Greedy by size, lowest offset, in ~O(n log n): the reference placement (docs/allocator.md;
 * Pisarchyk & Lee, "Efficient Memory Management for Deep Neural Net Inference",
 * arXiv:2001.03288, greedy by size for offset calculation).
 *
 * The reference tries, for each buffer (largest placement size first, ties in input order),
 * the candidates {0} and the end of every placed buffer, each aligned up, and keeps the lowest
 * one that conflicts with no placed buffer: O(n) candidates x O(n) checks x n buffers.
 *
 * Here: placed buffers live in the gap index (gap_index.c), which keeps, per node of a segment
 * tree over time, the merged occupied byte runs. For a new buffer the O(log T) sets whose union
 * is the occupancy over its lifetime are swept upwards from q = 0: a run that starts below
 * q + size and ends above q pushes q to its aligned end, until no set has such a run.
 *
 * Why this is exactly the reference result (docs/allocator.md has the long form):
 *   (1) every value the sweep skips is an aligned offset that conflicts with some placed
 *       buffer, so the sweep returns the lowest conflict-free aligned offset q*;
 *   (2) q* is 0 or align(end) of a time-overlapping buffer, which is one of the reference's
 *       candidates; the reference's candidates are all aligned offsets, so its lowest feasible
 *       one cannot be below q*, and q* is among them: the two results are equal.
 * Ends of buffers that do not overlap in time are candidates in the reference too, but by (2)
 * they can never be strictly lower than q* while feasible. */
#include "core/mem.h"
#include "plan/alloc_internal.h"
#include "plan/gap_index.h"

#include <stdlib.h>

typedef struct size_key {
    uint64_t psize;
    size_t idx;
} size_key;

static int cmp_size_desc(const void *a, const void *b) {
    const size_key *x = a, *y = b;
    if (x->psize != y->psize) return x->psize > y->psize ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx); /* stable: input order */
}

static tp_status overflow_at(const tp_buffer *bufs, size_t i, uint64_t after, tp_error *err) {
    const tp_buffer *b = &bufs[i];
    return tp_error_set(err, TP_ERR_OVERFLOW,
                        "placing buffer %zu (id %lld, size %llu, tail guard %llu, lifetime "
                        "[%lld, %lld]): its offset or end would pass 2^64 (above offset %llu)",
                        i, (long long)b->id, (unsigned long long)b->size,
                        (unsigned long long)b->tail_guard, (long long)b->birth, (long long)b->death,
                        (unsigned long long)after);
}

/* The order must list non-fixed buffers, each at most once (the time index sizes its slabs
 * for one insertion per buffer, so a repeat would be a memory error, not just a bad plan). */
static tp_status check_order(const tp_buffer *bufs, size_t n, const size_t *order, size_t n_order,
                             const tp_allocator *alloc, tp_error *err) {
    unsigned char *seen = tp_mem_calloc(alloc, n, 1);
    if (!seen) return tp_error_set(err, TP_ERR_NOMEM, "out of memory checking a placement order");
    tp_status st = TP_OK;
    for (size_t k = 0; k < n_order && st == TP_OK; k++) {
        size_t i = order[k];
        if (i >= n || bufs[i].fixed_offset >= 0 || seen[i])
            st = tp_error_set(err, TP_ERR_INVALID,
                              "placement order entry %zu (%zu) is not a non-fixed buffer index "
                              "listed once",
                              k, i);
        else
            seen[i] = 1;
    }
    tp_mem_free(alloc, seen, n);
    return st;
}

tp_status tp__alloc_greedy_ordered(const tp_buffer *bufs, size_t n, const size_t *order,
                                   size_t n_order, const tp_alloc_options *opt,
                                   const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                                   tp_error *err) {
    *arena = 0;
    if (n == 0) return TP_OK;
    tp_status st = check_order(bufs, n, order, n_order, alloc, err);
    if (st != TP_OK) return st;
    tp__gapidx g;
    st = tp__gx_init(&g, bufs, n, alloc, err);
    if (st != TP_OK) return st;
    uint64_t top = 0;
    for (size_t i = 0; i < n && st == TP_OK; i++) {
        if (bufs[i].fixed_offset < 0) continue;
        offsets[i] = (uint64_t)bufs[i].fixed_offset;
        uint64_t end = offsets[i] + tp__alloc_psize(&bufs[i]); /* validated */
        if (end > top) top = end;
        st = tp__gx_insert(&g, bufs[i].birth, bufs[i].death, offsets[i], end, err);
    }
    for (size_t k = 0; k < n_order && st == TP_OK; k++) {
        size_t i = order[k];
        const tp_buffer *b = &bufs[i];
        uint64_t q = 0, blocker = 0, s = tp__alloc_psize(b),
                 al = tp__alloc_align(b, opt->alignment);
        if (s == 0) { /* conflicts with nothing at 0 (nothing is strictly below 0) */
            offsets[i] = 0;
            continue;
        }
        if (!tp__gx_lowest(&g, b->birth, b->death, s, al, &q, &blocker)) {
            st = overflow_at(bufs, i, blocker, err);
            break;
        }
        offsets[i] = q;
        if (q + s > top) top = q + s;
        st = tp__gx_insert(&g, b->birth, b->death, q, q + s, err);
    }
    if (st == TP_OK) *arena = top;
    tp__gx_free(&g);
    return st;
}

tp_status tp__alloc_greedy(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                           const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                           tp_error *err) {
    *arena = 0;
    if (n == 0) return TP_OK;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (bufs[i].fixed_offset < 0) m++;
    size_key *keys = tp_mem_calloc(alloc, m ? m : 1, sizeof *keys);
    size_t *order = tp_mem_calloc(alloc, m ? m : 1, sizeof *order);
    tp_status st;
    if (!keys || !order) {
        st = tp_error_set(err, TP_ERR_NOMEM, "out of memory sorting %zu buffers", n);
        goto done;
    }
    m = 0;
    for (size_t i = 0; i < n; i++)
        if (bufs[i].fixed_offset < 0) keys[m++] = (size_key){tp__alloc_psize(&bufs[i]), i};
    qsort(keys, m, sizeof *keys, cmp_size_desc);
    for (size_t k = 0; k < m; k++)
        order[k] = keys[k].idx;
    tp_mem_free(alloc, keys, (m ? m : 1) * sizeof *keys);
    keys = NULL;
    st = tp__alloc_greedy_ordered(bufs, n, order, m, opt, alloc, offsets, arena, err);
done:
    tp_mem_free(alloc, keys, (m ? m : 1) * sizeof *keys);
    tp_mem_free(alloc, order, (m ? m : 1) * sizeof *order);
    return st;
}
