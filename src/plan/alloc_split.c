/* Class split: the large buffers by size class at the lowest free offset, the small ones in
 * a strip above them.
 *
 * On dense traces whose sizes span many orders of magnitude, almost every byte of the
 * most crowded step p belongs to a few thousand large buffers; the tens of thousands of
 * small ones hold a fraction of a percent. The split places them apart:
 *
 *   large: quarter size class first (four classes per power of two, largest first); within
 *          a class the buffers nearest p first (those alive at p, then by the steps between
 *          their lifetime and p), then the longest lifetime, then the input order. Each at
 *          the lowest aligned offset free over its lifetime (the gap index, as the reference
 *          greedy). Putting the clique of p first within each class packs the step that sets
 *          the lower bound before the buffers that only compete for space around it
 *          (longmix62k: 1.0037 x LB for the large part against 1.0055); going on outwards
 *          from p, as the peak-out sweep does, packs the steps next to it the same way
 *          (session 12: the split on longmix62k seeds 1, 4-8 1.0054 -> 1.0034 on average,
 *          lower on each; before, the rest of a class went longest first whatever its
 *          distance from p).
 *   small: the peak-out sweep (alloc_sweep_peak.c) on the small buffers alone, shifted up to
 *          the aligned top of the large ones.
 *
 * "Small" is the largest power-of-two class boundary below which the buffers alive at p
 * hold at most 1/1024 of p's live bytes, so the strip costs about that much above the
 * large part's arena, while the gap index sees only the large buffers: the lowest-fit
 * walk past every occupied run below the answer is what makes a full greedy pass slow on
 * dense traces, and small buffers late in a size order walk the furthest.
 *
 * Validity: the large plan comes from the gap index (conflict-free as the greedy's); the
 * strip plan is a valid plan of the small buffers among themselves, and every strip offset
 * is at or above the top of every large buffer, so no small buffer meets a large one.
 */
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"
#include "plan/gap_index.h"

static int floor_log2(uint64_t v) {
    int c = 0;
    while (v > 1) {
        v >>= 1;
        c++;
    }
    return c;
}

/* The class below which the clique of step p holds at most 1/1024 of its bytes. */
static int small_classes(const tp_buffer *bufs, size_t n, int64_t p) {
    uint64_t by_class[64] = {0}, total = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t s = tp__alloc_psize(&bufs[i]);
        if (s == 0 || bufs[i].birth > p || bufs[i].death < p) continue;
        int c = floor_log2(s);
        if (!tp_add_u64(by_class[c], s, &by_class[c])) by_class[c] = UINT64_MAX;
        if (!tp_add_u64(total, s, &total)) total = UINT64_MAX;
    }
    uint64_t below = 0, allow = total / 1024;
    int c = 0;
    for (; c < 64; c++) {
        if (by_class[c] > allow - below) break;
        below += by_class[c];
    }
    return c;
}

typedef struct split_mem {
    tp__alloc_key *keys;
    tp_buffer *sub;
    size_t *map;
    uint64_t *so;
} split_mem;

/* Place keys[0..m) at the lowest free offsets of g, in order. *top: in, the arena so far;
 * out, raised by the placed ends. stop_at (UINT64_MAX: none): TP_ERR_INFEASIBLE once *top
 * reaches it (not better). TP_ERR_TIMEOUT past *deadline, unless `finish` and three quarters
 * of the buffers are placed: then *deadline becomes 0 and the rest are placed. */
static tp_status place_lowest(tp__gapidx *g, const tp_buffer *bufs, const tp__alloc_key *keys,
                              size_t m, const tp_alloc_options *opt, double *deadline, bool finish,
                              uint64_t stop_at, uint64_t *offsets, uint64_t *top, tp_error *err) {
    tp_status st = TP_OK;
    for (size_t k = 0; k < m && st == TP_OK; k++) {
        size_t i = keys[k].idx;
        const tp_buffer *b = &bufs[i];
        uint64_t s = tp__alloc_psize(b), q = 0, blk = 0, end;
        if (!tp__gx_lowest(g, b->birth, b->death, s, tp__alloc_align(b, opt->alignment), &q,
                           &blk) ||
            !tp_add_u64(q, s, &end))
            return tp_error_set(err, TP_ERR_OVERFLOW,
                                "split: offset of buffer %zu (id %lld) overflows 64 bits", i,
                                (long long)b->id);
        offsets[k] = q;
        if (end > *top) *top = end;
        if (*top >= stop_at) return TP_ERR_INFEASIBLE;
        st = tp__gx_insert(g, b->birth, b->death, q, end, err);
        if (st == TP_OK && tp__xs_clock_due(k) && *deadline > 0 && tp__xs_now() >= *deadline) {
            if (finish && 4 * (k + 1) >= 3 * m)
                *deadline = 0; /* the rest costs about what the sweep replacing it would */
            else
                st = tp_error_set(err, TP_ERR_TIMEOUT, "split: past the deadline");
        }
    }
    return st;
}

/* The small buffers sub[0..ns) in a strip from the aligned top of the large ones
 * (TP_ERR_TIMEOUT past the deadline; 0: none). */
static tp_status place_strip(const tp_alloc_options *opt, double deadline,
                             const tp_allocator *alloc, split_mem *w, size_t ns, uint64_t top,
                             uint64_t *offsets, uint64_t *arena, tp_error *err) {
    uint64_t sa = 0, max_al = 1, base, end;
    tp_status st = tp__alloc_sweep_peak(w->sub, ns, opt, true, deadline, alloc, w->so, &sa, err);
    if (st == TP_ERR_UNSUPPORTED) /* the two halves disagreed on the clique: one sweep */
        st = tp__alloc_sweep_ex(w->sub, ns, opt, true, false, deadline, alloc, w->so, &sa, err);
    if (st != TP_OK) return st;
    for (size_t k = 0; k < ns; k++) {
        uint64_t al = tp__alloc_align(&w->sub[k], opt->alignment);
        if (al > max_al) max_al = al;
    }
    if (!tp_align_up_u64(top, max_al, &base) || !tp_add_u64(base, sa, &end))
        return tp_error_set(err, TP_ERR_OVERFLOW, "split: strip above %llu overflows 64 bits",
                            (unsigned long long)top);
    for (size_t k = 0; k < ns; k++)
        offsets[w->map[k]] = base + w->so[k]; /* so[k] + size <= sa: no overflow */
    *arena = end > top ? end : top;
    return TP_OK;
}

static void set_key(tp__alloc_key *k, const tp_buffer *bufs, size_t i, int64_t p) {
    const tp_buffer *b = &bufs[i];
    uint64_t s = tp__alloc_psize(b);
    int cls = floor_log2(s);
    /* steps between the lifetime and p (0: alive at p), and the length, 32 bits each */
    /* differences in unsigned arithmetic: exact for any two int64 steps (no signed overflow) */
    uint64_t d = b->death < p   ? (uint64_t)p - (uint64_t)b->death
                 : b->birth > p ? (uint64_t)b->birth - (uint64_t)p
                                : 0;
    uint64_t len = (uint64_t)b->death - (uint64_t)b->birth;
    if (d > UINT32_MAX) d = UINT32_MAX;
    if (len > UINT32_MAX) len = UINT32_MAX;
    k->k1 = 4 * (uint64_t)cls + (cls >= 2 ? (s >> (cls - 2)) & 3 : 0);
    k->k2 = (UINT32_MAX - d) << 32 | len; /* nearest p first, then longest */
    k->idx = i;
}

tp_status tp__alloc_split(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                          double deadline, const tp_allocator *alloc, uint64_t *offsets,
                          uint64_t *arena, bool fill, bool finish, size_t *n_strip, tp_error *err) {
    *arena = 0;
    if (n_strip) *n_strip = 0;
    if (n == 0) return TP_OK;
    for (size_t i = 0; i < n; i++)
        if (bufs[i].fixed_offset >= 0)
            return tp_error_set(err, TP_ERR_UNSUPPORTED, "split: pre-placed buffers");
    int64_t p = 0;
    tp_status st = tp__alloc_peak_step(bufs, n, alloc, &p, err);
    if (st != TP_OK) return st;
    int small = small_classes(bufs, n, p);
    tp__gapidx g;
    bool have_g = false;
    split_mem w;
    w.keys = tp_mem_alloc(alloc, n * sizeof *w.keys);
    w.sub = tp_mem_alloc(alloc, n * sizeof *w.sub);
    w.map = tp_mem_alloc(alloc, n * sizeof *w.map);
    w.so = tp_mem_alloc(alloc, n * sizeof *w.so);
    if (!w.keys || !w.sub || !w.map || !w.so) {
        st = tp_error_set(err, TP_ERR_NOMEM, "split: out of memory for %zu buffers", n);
        goto done;
    }
    size_t m = 0, ns = 0;
    for (size_t i = 0; i < n; i++) /* the large ones, keyed */
        if (tp__alloc_psize(&bufs[i]) > 0 && floor_log2(tp__alloc_psize(&bufs[i])) >= small)
            set_key(&w.keys[m++], bufs, i, p);
    for (size_t i = 0; i < n; i++) {
        uint64_t s = tp__alloc_psize(&bufs[i]);
        if (s == 0) {
            offsets[i] = 0; /* conflicts with nothing at 0 */
        } else if (floor_log2(s) < small) {
            w.sub[ns] = bufs[i];
            w.map[ns] = i;
            set_key(&w.keys[m + ns++], bufs, i, p);
        }
    }
    qsort(w.keys, m, sizeof *w.keys, tp__alloc_key_cmp);
    uint64_t top = 0;
    st = tp__gx_init(&g, bufs, n, alloc, err);
    if (st != TP_OK) goto done;
    have_g = true;
    double large_deadline = deadline;
    st = place_lowest(&g, bufs, w.keys, m, opt, &large_deadline, finish, UINT64_MAX, w.so, &top,
                      err);
    if (st != TP_OK) goto done;
    for (size_t k = 0; k < m; k++)
        offsets[w.keys[k].idx] = w.so[k];
    if (large_deadline > 0 && tp__xs_now() >= large_deadline) {
        st = tp_error_set(err, TP_ERR_TIMEOUT, "split: past the deadline");
        goto done;
    }
    *arena = top;
    /* (finishing past the deadline: large_deadline is 0 and the strip completes too) */
    if (ns > 0) st = place_strip(opt, large_deadline, alloc, &w, ns, top, offsets, arena, err);
    if (st != TP_OK) goto done;
    if (n_strip) *n_strip = ns;
    if (fill && ns > 0) { /* the small ones into the large part's gaps instead, if better */
        qsort(w.keys + m, ns, sizeof *w.keys, tp__alloc_key_cmp);
        tp_status fs =
            place_lowest(&g, bufs, w.keys + m, ns, opt, &deadline, false, *arena, w.so, &top, err);
        if (fs == TP_OK) {
            for (size_t k = 0; k < ns; k++)
                offsets[w.keys[m + k].idx] = w.so[k];
            *arena = top;
            if (n_strip) *n_strip = 0;
        } else if (fs != TP_ERR_INFEASIBLE && fs != TP_ERR_TIMEOUT) {
            st = fs;
        }
    }
done:
    if (have_g) tp__gx_free(&g);
    tp_mem_free(alloc, w.keys, n * sizeof *w.keys);
    tp_mem_free(alloc, w.sub, n * sizeof *w.sub);
    tp_mem_free(alloc, w.map, n * sizeof *w.map);
    tp_mem_free(alloc, w.so, n * sizeof *w.so);
    return st;
}
