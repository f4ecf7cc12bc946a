/* Time-interval index for the greedy placer: a segment tree over compressed steps.
 *
 * All lifetimes are known up front (only which buffers are placed changes), so init
 * decomposes every buffer's step range into its canonical nodes once and lays out one
 * contiguous slab of byte ranges per node (CSR). Inserting a placed buffer appends its
 * [offset, end) to the slabs of its canonical nodes; a query walks the nodes that intersect
 * its step range and whose subtree holds ranges and copies their slabs out. Every range in a
 * visited node belongs to a buffer whose lifetime covers the whole node range, which
 * intersects the query, so nothing reported is spurious; a buffer whose lifetime intersects
 * the query has a canonical node intersecting it, which the walk reaches, so nothing is missed.
 * A buffer can be reported by several of its canonical nodes: duplicates are harmless to the
 * placer's sweep and cheaper than de-duplicating.
 *
 * All buffers stored in one node overlap in time (each covers the node's step range), so in a
 * valid placement they are byte-disjoint: each slab is kept sorted by offset, and a query merges
 * the sorted slabs it visits (O(K log runs)) instead of sorting K ranges from scratch. */
#include "core/mem.h"
#include "plan/alloc_internal.h"

#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Index of step v in the sorted distinct steps (v is always present). */
static size_t rank_of(const tp__itree *t, int64_t v) {
    size_t lo = 0, hi = t->n_steps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->steps[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Mode 0: count canonical slots into fill[]; mode 1: append a range. Returns the number of
 * canonical nodes below (and including) node, so that sub[] counts ranges exactly. */
static size_t walk(tp__itree *t, int mode, size_t node, size_t l, size_t r, size_t ql, size_t qr,
                   const tp__itree_range *rg) {
    if (qr < l || r < ql) return 0;
    size_t added;
    if (ql <= l && r <= qr) {
        if (mode == 0) {
            t->fill[node]++;
        } else { /* keep the slab sorted by offset (its ranges are byte-disjoint) */
            tp__itree_range *slab = t->ranges + t->start[node];
            size_t lo = 0, hi = t->fill[node];
            while (lo < hi) { /* upper bound by (off, end): ends stay non-decreasing */
                size_t mid = lo + (hi - lo) / 2;
                if (slab[mid].off < rg->off ||
                    (slab[mid].off == rg->off && slab[mid].end <= rg->end))
                    lo = mid + 1;
                else
                    hi = mid;
            }
            memmove(slab + lo + 1, slab + lo, (t->fill[node] - lo) * sizeof *slab);
            slab[lo] = *rg;
            t->fill[node]++;
        }
        added = 1;
    } else {
        size_t mid = l + (r - l) / 2;
        added = walk(t, mode, 2 * node, l, mid, ql, qr, rg) +
                walk(t, mode, 2 * node + 1, mid + 1, r, ql, qr, rg);
    }
    if (mode == 1) {
        t->sub[node] += added;
        if (rg->end > t->maxend[node]) t->maxend[node] = rg->end;
        if (rg->off < t->minoff[node]) t->minoff[node] = rg->off;
    }
    return added;
}

tp_status tp__itree_init(tp__itree *t, const tp_buffer *bufs, size_t n, const tp_allocator *alloc,
                         tp_error *err) {
    memset(t, 0, sizeof *t);
    t->alloc = alloc;
    if (n >= (SIZE_MAX >> 4) || n >= ((size_t)1 << 31))
        return tp_error_set(err, TP_ERR_INVALID, "too many buffers for the placer: %zu", n);
    t->n_items = n;
    size_t ns = n * 2;
    t->steps = tp_mem_calloc(alloc, n ? ns : 1, sizeof *t->steps);
    if (!t->steps) goto nomem;
    for (size_t i = 0; i < n; i++) {
        t->steps[2 * i] = bufs[i].birth;
        t->steps[2 * i + 1] = bufs[i].death;
    }
    qsort(t->steps, ns, sizeof *t->steps, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < ns; i++)
        if (u == 0 || t->steps[u - 1] != t->steps[i]) t->steps[u++] = t->steps[i];
    t->n_steps = u;
    t->leaves = 1;
    while (t->leaves < (u ? u : 1))
        t->leaves *= 2;
    size_t nodes = 2 * t->leaves;
    t->start = tp_mem_calloc(alloc, nodes + 1, sizeof *t->start);
    t->fill = tp_mem_calloc(alloc, nodes, sizeof *t->fill);
    t->sub = tp_mem_calloc(alloc, nodes, sizeof *t->sub);
    t->maxend = tp_mem_calloc(alloc, nodes, sizeof *t->maxend);
    t->minoff = tp_mem_calloc(alloc, nodes, sizeof *t->minoff);
    if (!t->start || !t->fill || !t->sub || !t->maxend || !t->minoff) goto nomem;
    for (size_t v = 0; v < nodes; v++)
        t->minoff[v] = UINT64_MAX;
    for (size_t i = 0; i < n; i++)
        (void)walk(t, 0, 1, 0, t->leaves - 1, rank_of(t, bufs[i].birth), rank_of(t, bufs[i].death),
                   NULL);
    size_t total = 0;
    for (size_t v = 0; v < nodes; v++) {
        t->start[v] = total;
        total += t->fill[v]; /* <= n * 2 * log2(nodes): no overflow for n < 2^31 */
        t->fill[v] = 0;
    }
    t->start[nodes] = total;
    t->total = total;
    t->ranges = tp_mem_calloc(alloc, total ? total : 1, sizeof *t->ranges);
    if (!t->ranges) goto nomem;
    return TP_OK;
nomem:
    tp__itree_free(t);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory building the time index (%zu buffers)",
                        n);
}

void tp__itree_free(tp__itree *t) {
    const tp_allocator *a = t->alloc;
    size_t nodes = 2 * t->leaves;
    tp_mem_free(a, t->steps, (t->n_items ? 2 * t->n_items : 1) * sizeof *t->steps);
    tp_mem_free(a, t->start, (nodes + 1) * sizeof *t->start);
    tp_mem_free(a, t->fill, nodes * sizeof *t->fill);
    tp_mem_free(a, t->sub, nodes * sizeof *t->sub);
    tp_mem_free(a, t->maxend, nodes * sizeof *t->maxend);
    tp_mem_free(a, t->minoff, nodes * sizeof *t->minoff);
    tp_mem_free(a, t->ranges, (t->total ? t->total : 1) * sizeof *t->ranges);
    tp_mem_free(a, t->tmp, t->cap_tmp * sizeof *t->tmp);
    tp_mem_free(a, t->runs, t->cap_runs * sizeof *t->runs);
    memset(t, 0, sizeof *t);
}

void tp__itree_insert(tp__itree *t, int64_t birth, int64_t death, uint64_t off, uint64_t end) {
    tp__itree_range rg = {off, end};
    (void)walk(t, 1, 1, 0, t->leaves - 1, rank_of(t, birth), rank_of(t, death), &rg);
}

/* Number of ranges (and of non-empty slabs, *runs) the walk over [ql, qr] reports. */
static size_t query_count(const tp__itree *t, size_t node, size_t l, size_t r, size_t ql, size_t qr,
                          size_t *runs) {
    if (qr < l || r < ql || t->sub[node] == 0) return 0;
    if (t->fill[node]) ++*runs;
    if (l == r) return t->fill[node];
    size_t mid = l + (r - l) / 2;
    return t->fill[node] + query_count(t, 2 * node, l, mid, ql, qr, runs) +
           query_count(t, 2 * node + 1, mid + 1, r, ql, qr, runs);
}

/* Copy every intersecting slab (each sorted) to out and record where each run starts. */
static void query_copy(tp__itree *t, size_t node, size_t l, size_t r, size_t ql, size_t qr,
                       tp__itree_range *out, size_t *n_out) {
    if (qr < l || r < ql || t->sub[node] == 0) return;
    if (t->fill[node]) {
        t->runs[t->n_runs++] = *n_out;
        memcpy(out + *n_out, t->ranges + t->start[node], t->fill[node] * sizeof *out);
        *n_out += t->fill[node];
    }
    if (l == r) return;
    size_t mid = l + (r - l) / 2;
    query_copy(t, 2 * node, l, mid, ql, qr, out, n_out);
    query_copy(t, 2 * node + 1, mid + 1, r, ql, qr, out, n_out);
}

static void merge(const tp__itree_range *a, size_t na, const tp__itree_range *b, size_t nb,
                  tp__itree_range *dst) {
    size_t i = 0, j = 0, o = 0;
    while (i < na && j < nb)
        dst[o++] = b[j].off < a[i].off ? b[j++] : a[i++];
    while (i < na)
        dst[o++] = a[i++];
    while (j < nb)
        dst[o++] = b[j++];
}

tp_status tp__itree_query(tp__itree *t, int64_t birth, int64_t death, tp__itree_range **out,
                          size_t *cap, size_t *n_out, tp_error *err) {
    size_t ql = rank_of(t, birth), qr = rank_of(t, death), runs = 0;
    *n_out = 0;
    size_t need = query_count(t, 1, 0, t->leaves - 1, ql, qr, &runs);
    if ((need > *cap && !tp_mem_grow(t->alloc, (void **)out, sizeof **out, cap, need)) ||
        (need > t->cap_tmp &&
         !tp_mem_grow(t->alloc, (void **)&t->tmp, sizeof *t->tmp, &t->cap_tmp, need)) ||
        (runs + 1 > t->cap_runs &&
         !tp_mem_grow(t->alloc, (void **)&t->runs, sizeof *t->runs, &t->cap_runs, runs + 1)))
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory collecting %zu byte ranges", need);
    t->n_runs = 0;
    query_copy(t, 1, 0, t->leaves - 1, ql, qr, *out, n_out);
    /* bottom-up merge of the sorted runs, ping-ponging between *out and t->tmp */
    tp__itree_range *src = *out, *dst = t->tmp;
    size_t nr = t->n_runs;
    t->runs[nr] = *n_out;
    while (nr > 1) {
        size_t w = 0;
        for (size_t k = 0; k < nr; k += 2) {
            size_t s0 = t->runs[k], s1 = k + 1 < nr ? t->runs[k + 1] : t->runs[nr];
            size_t e1 = k + 1 < nr ? t->runs[k + 2] : t->runs[nr];
            merge(src + s0, s1 - s0, src + s1, e1 - s1, dst + s0);
            t->runs[w++] = s0;
        }
        t->runs[w] = *n_out;
        nr = w;
        tp__itree_range *x = src;
        src = dst;
        dst = x;
    }
    if (src != *out) { /* result in tmp: swap the buffers (same allocator) */
        size_t c = *cap;
        t->tmp = *out;
        *cap = t->cap_tmp;
        t->cap_tmp = c;
        *out = src;
    }
    return TP_OK;
}

/* ---- the placer's fast search (see tp__itree_jump_fit in alloc_internal.h) ---- */
typedef struct jump_state {
    const tp__itree *t;
    size_t ql, qr;
    uint64_t q, s, align, blocker;
    bool moved, overflow;
} jump_state;

/* One pass over the subtree: in every slab intersecting the query, the only range that can
 * conflict with [q, q + s) is the first one ending above q; a conflict moves q to its aligned
 * end. A subtree whose ranges all end at or below q, or all start at or above q + s, holds no
 * conflict and is skipped. */
static void jump_rec(jump_state *js, size_t node, size_t l, size_t r) {
    const tp__itree *t = js->t;
    if (js->overflow || js->qr < l || r < js->ql || t->sub[node] == 0) return;
    if (t->maxend[node] <= js->q) return;
    if (t->minoff[node] >= js->q && t->minoff[node] - js->q >= js->s) return;
    size_t f = t->fill[node];
    if (f) {
        const tp__itree_range *slab = t->ranges + t->start[node];
        size_t i = 0;
        for (;;) {
            size_t hi = f;
            while (i < hi) { /* first range with end > q (ends are non-decreasing) */
                size_t mid = i + (hi - i) / 2;
                if (slab[mid].end <= js->q)
                    i = mid + 1;
                else
                    hi = mid;
            }
            if (i == f || (slab[i].off >= js->q && slab[i].off - js->q >= js->s)) break;
            js->blocker = slab[i].end;
            if (!tp_align_up_u64(slab[i].end, js->align, &js->q)) {
                js->overflow = true;
                return;
            }
            js->moved = true;
            i++;
        }
    }
    if (l == r) return;
    size_t mid = l + (r - l) / 2;
    jump_rec(js, 2 * node, l, mid);
    jump_rec(js, 2 * node + 1, mid + 1, r);
}

int tp__itree_jump_fit(const tp__itree *t, int64_t birth, int64_t death, uint64_t size,
                       uint64_t align, int max_passes, uint64_t *q, uint64_t *blocker) {
    jump_state js = {t, rank_of(t, birth), rank_of(t, death), 0, size, align, 0, false, false};
    for (int pass = 0; pass < max_passes; pass++) {
        js.moved = false;
        jump_rec(&js, 1, 0, t->leaves - 1);
        *q = js.q;
        *blocker = js.blocker;
        if (js.overflow) return -1;
        if (!js.moved) return 1;
    }
    return 0;
}
