/*
 * Gap index: the placement core of the greedy and best-fit placers (gap_index.c).
 *
 * Answers "where can a buffer with lifetime [birth, death] go" without looking at each
 * time-overlapping placed buffer. Time is compressed to the distinct birth steps (two
 * lifetimes overlap iff one contains the other's birth), and a segment tree over those
 * points keeps, per node N, two sets of occupied byte runs, each stored merged (runs that
 * touch or overlap are joined, so a set holds one run per maximal occupied stretch):
 *
 *   cover(N): the placed buffers whose lifetime covers N's whole range and that have N as
 *             a canonical node;
 *   sub(N):   the placed buffers with a canonical node in N's subtree, and those covering a
 *             node on the path from N to a canonical node (harmless extras; see gap_index.c).
 *
 * The buffers time-overlapping a query are exactly the union of sub(q) over the query's
 * canonical nodes q and cover(a) over their strict ancestors a: O(log T) sets. A set's size
 * is the number of its maximal occupied stretches, not the number of buffers in it, so the
 * cost of a query does not grow with the number of live buffers that are packed together.
 *
 * Merging runs is exact for buffers of positive placement size: [q, q + s) meets [a, b) or
 * [b, c) iff it meets [a, c). (Zero-size buffers are placed at 0 by every placer; they block
 * nothing there. A zero-size buffer pre-placed elsewhere is stored as the empty run [o, o),
 * which blocks [q, q + s) exactly when q < o < q + s, as the conflict rule says.)
 *
 * Runs are kept in one pool (per-set blocks of power-of-two capacity with free lists), so
 * a million buffers cost a few hundred bytes each at most. Not thread-safe per index;
 * every function is reentrant on distinct indices.
 */
#ifndef TP_PLAN_GAP_INDEX_H
#define TP_PLAN_GAP_INDEX_H

#include "tensorplan/alloc.h"

typedef struct tp__gx_run {
    uint64_t lo, hi; /* occupied [lo, hi) */
} tp__gx_run;

typedef struct tp__gx_set {
    uint32_t at, n; /* first run in the pool, runs in use */
    uint32_t cls;   /* capacity 2^cls runs; cls 31 = no block yet */
    uint32_t dirty; /* gap summaries from this one on may be stale (blocks of >= 16 runs) */
} tp__gx_set;

/* Query scratch: a cursor per gathered set, in a min-heap by the start of its run. */
typedef struct tp__gx_cursor {
    uint64_t lo; /* start of the current run */
    const tp__gx_run *r;
    uint32_t pos, n;
} tp__gx_cursor;

typedef struct tp__gx_walker {
    tp__gx_cursor c[160];
    uint8_t hp[160]; /* heap of cursor indices */
    size_t n;
} tp__gx_walker;

typedef struct tp__gapidx {
    const tp_allocator *alloc;
    int64_t *pts; /* distinct birth steps, sorted */
    size_t n_pts, pts_cap, leaves;
    tp__gx_set *cover, *sub; /* 2 * leaves each (node 1 = root) */
    tp__gx_run *pool;
    size_t pool_n, pool_cap;
    uint64_t *gmax; /* gap summaries: gmax[at / 16 + j] = the widest gap before a run of
                     * runs 16j..16j+15 of the set whose block starts at `at` */
    size_t gmax_cap;
    uint32_t free_head[32]; /* per class: first free block (UINT32_MAX: none) */
    tp__gx_set *qs[160];    /* query scratch: the non-empty sets of the last query */
    uint32_t qcur[160];     /* lowest fit: per gathered set, the first run ending above q */
    uint8_t qord[160];      /* lowest fit: the order the sets are asked in */
    size_t n_qs;
    tp__gx_walker walk;
} tp__gapidx;

/* Build over the births of bufs[0..n). n < 2^31. */
tp_status tp__gx_init(tp__gapidx *g, const tp_buffer *bufs, size_t n, const tp_allocator *alloc,
                      tp_error *err);
void tp__gx_free(tp__gapidx *g);
/* Forget every placed buffer (keeps the memory). */
void tp__gx_clear(tp__gapidx *g);
/* Record a placed buffer occupying [lo, hi) over [birth, death] (birth must be the birth of
 * one of the buffers given to init). TP_ERR_NOMEM only. */
tp_status tp__gx_insert(tp__gapidx *g, int64_t birth, int64_t death, uint64_t lo, uint64_t hi,
                        tp_error *err);
/* Lowest aligned q such that [q, q + s) (s > 0) meets no run of a placed buffer that
 * overlaps [birth, death] in time: exactly the reference greedy's choice. The gathered sets
 * leapfrog: each jumps q to its own lowest fit at or above q, skipping its gaps narrower
 * than s 16 runs at a time (gap summaries, rebuilt lazily after inserts), until all accept
 * one q. Returns false when an aligned end passes 2^64 (*blocker = the offending end). */
bool tp__gx_lowest(tp__gapidx *g, int64_t birth, int64_t death, uint64_t s, uint64_t align,
                   uint64_t *q, uint64_t *blocker);
/* Best fit: among the lowest max_gaps free gaps (between the time-overlapping placed
 * buffers) that hold [q, q + s) with q aligned, the smallest (measured from the end of the
 * run below it; ties: the lowest), q at its aligned start; without one, the aligned top of
 * those buffers. max_gaps = INT_MAX: every gap. TP_ERR_OVERFLOW (an aligned offset or end
 * past 2^64). */
tp_status tp__gx_best(tp__gapidx *g, int64_t birth, int64_t death, uint64_t s, uint64_t align,
                      int max_gaps, uint64_t *q, tp_error *err);

#endif
