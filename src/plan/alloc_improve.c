/* Local search on a finished plan until a deadline (anytime: the plan only ever improves).
 *
 * Each round takes the buffers that end above a level L = arena - arena / 2^k ("around the
 * peak"; k cycles over 3..7), keeps every other buffer where it is, and re-places the taken
 * ones into the gap index of the kept ones, in one of four orders (largest first, earliest
 * birth first, longest first, a seeded shuffle) by lowest or best fit. The kept buffers end
 * at or below L, so the new arena is the larger of L and the re-placed ends; a round is kept
 * only when that is strictly below the current arena. Every re-placed offset comes from the
 * gap index of the buffers already standing, so each accepted plan is conflict-free by the
 * same argument as the greedy placer's. Pre-placed buffers are never taken.
 */
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"
#include "plan/gap_index.h"

static uint64_t mix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* by_off[0..n): the buffer indices by offset, lowest first (keys: n entries of scratch).
 * The rounds rebuild the gap index of the kept buffers in this order: each run then joins
 * or follows the top run of its sets, where in index order most inserts landed mid-set and
 * moved the runs above them (the rebuild took ~1 s a round at 62,000 buffers: 3 rounds
 * in 3 s on longmix62k/1). */
static void sort_by_offset(const uint64_t *off, size_t n, tp__alloc_key *keys, size_t *by_off) {
    for (size_t i = 0; i < n; i++)
        keys[i] = (tp__alloc_key){UINT64_MAX - off[i], 0, i}; /* lowest offset first */
    qsort(keys, n, sizeof *keys, tp__alloc_key_cmp);
    for (size_t i = 0; i < n; i++)
        by_off[i] = keys[i].idx;
}

/* One round: TP_OK with *out the new arena (UINT64_MAX: not better), or an error. */
static tp_status round_once(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                            double deadline, tp__gapidx *g, uint64_t *off, const size_t *by_off,
                            uint64_t arena, unsigned round, tp__alloc_key *keys, uint64_t *work,
                            uint64_t *out, tp_error *err) {
    uint64_t level = arena - (arena >> (3 + round % 5)), top = 0, seed = round;
    *out = UINT64_MAX;
    size_t m = 0;
    int ord = (int)(round / 5 % 4);
    bool best = (round / 20) % 2 == 1;
    tp__gx_clear(g);
    tp_status st = TP_OK;
    for (size_t k = 0; k < n && st == TP_OK; k++) {
        size_t i = by_off[k]; /* offset order: each insert lands at the top of its sets */
        uint64_t s = tp__alloc_psize(&bufs[i]), end = off[i] + s;
        work[i] = off[i];
        if (end > level && s > 0 && bufs[i].fixed_offset < 0) {
            const tp_buffer *b = &bufs[i];
            uint64_t len = (uint64_t)(b->death - b->birth);
            keys[m].idx = i;
            keys[m].k1 = ord == 0   ? s
                         : ord == 1 ? UINT64_MAX - (uint64_t)b->birth
                         : ord == 2 ? len
                                    : mix(&seed);
            keys[m].k2 = s;
            m++;
        } else {
            if (end > top) top = end;
            st = tp__gx_insert(g, bufs[i].birth, bufs[i].death, off[i], end, err);
        }
        if ((k & 255) == 255 && tp__xs_now() >= deadline) return TP_OK; /* out of time */
    }
    if (st != TP_OK) return st;
    if (m == 0) return TP_OK;
    qsort(keys, m, sizeof *keys, tp__alloc_key_cmp);
    for (size_t k = 0; k < m; k++) {
        const tp_buffer *b = &bufs[keys[k].idx];
        uint64_t s = tp__alloc_psize(b), al = tp__alloc_align(b, opt->alignment), q, blk;
        if (best) {
            st = tp__gx_best(g, b->birth, b->death, s, al, 16, &q, err);
            if (st != TP_OK) return st;
        } else if (!tp__gx_lowest(g, b->birth, b->death, s, al, &q, &blk)) {
            return TP_OK; /* past 2^64: not better */
        }
        if (q + s >= arena) return TP_OK; /* cannot beat the current plan */
        if (tp__xs_clock_due(k) && tp__xs_now() >= deadline) return TP_OK;
        work[keys[k].idx] = q;
        if (q + s > top) top = q + s;
        st = tp__gx_insert(g, b->birth, b->death, q, q + s, err);
        if (st != TP_OK) return st;
    }
    *out = top;
    return TP_OK;
}

tp_status tp__alloc_improve(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                            double deadline, const tp_allocator *alloc, uint64_t *offsets,
                            uint64_t *arena, unsigned *rounds, tp_error *err) {
    *rounds = 0;
    if (n == 0 || deadline <= 0 || *arena == 0) return TP_OK;
    tp__gapidx g;
    tp_status st = tp__gx_init(&g, bufs, n, alloc, err);
    if (st != TP_OK) return st;
    tp__alloc_key *keys = tp_mem_alloc(alloc, n * sizeof *keys);
    uint64_t *work = tp_mem_alloc(alloc, n * sizeof *work);
    size_t *by_off = tp_mem_alloc(alloc, n * sizeof *by_off);
    if (!keys || !work || !by_off) {
        st = tp_error_set(err, TP_ERR_NOMEM, "improve: out of memory for %zu buffers", n);
        goto done;
    }
    if (tp__xs_now() >= deadline) goto done; /* (the index set-up took the time left) */
    sort_by_offset(offsets, n, keys, by_off);
    for (unsigned r = 0; r < 4000 && tp__xs_now() < deadline; r++) {
        uint64_t a;
        st =
            round_once(bufs, n, opt, deadline, &g, offsets, by_off, *arena, r, keys, work, &a, err);
        if (st != TP_OK) break;
        (*rounds)++;
        if (a < *arena) {
            *arena = a;
            memcpy(offsets, work, n * sizeof *offsets);
            sort_by_offset(offsets, n, keys, by_off);
        }
    }
done:
    tp__gx_free(&g);
    tp_mem_free(alloc, keys, n * sizeof *keys);
    tp_mem_free(alloc, work, n * sizeof *work);
    tp_mem_free(alloc, by_off, n * sizeof *by_off);
    return st;
}
