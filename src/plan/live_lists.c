/* Live lists for short lifetimes (live_lists.h). */
#include "plan/live_lists.h"

#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "plan/alloc_internal.h"
#include "plan/step_sort.h"

typedef tp__ll_span span;
typedef tp__live_lists live_ctx;

/* Sort spans by lo: quicksort (median of three, smaller side first) with insertion sort
 * below 24 elements; inline comparisons, no allocation. */
static void sort_spans(span *v, size_t n) {
    while (n > 24) {
        size_t mid = n / 2;
        span t;
        if (v[mid].lo < v[0].lo) t = v[mid], v[mid] = v[0], v[0] = t;
        if (v[n - 1].lo < v[0].lo) t = v[n - 1], v[n - 1] = v[0], v[0] = t;
        if (v[n - 1].lo < v[mid].lo) t = v[n - 1], v[n - 1] = v[mid], v[mid] = t;
        uint64_t pivot = v[mid].lo;
        size_t i = 0, j = n - 1;
        for (;;) {
            while (v[i].lo < pivot)
                i++;
            while (v[j].lo > pivot)
                j--;
            if (i >= j) break;
            t = v[i], v[i] = v[j], v[j] = t;
            i++;
            j--;
        }
        size_t left = j + 1; /* v[0..left) <= pivot <= v[left..n) */
        if (left < n - left) {
            sort_spans(v, left);
            v += left;
            n -= left;
        } else {
            sort_spans(v + left, n - left);
            n = left;
        }
    }
    for (size_t h = 1; h < n; h++) {
        span x = v[h];
        size_t j = h;
        while (j > 0 && v[j - 1].lo > x.lo) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* Number of buffers with birth <= t (upper bound in by_birth). */
static size_t prefix_upto(const live_ctx *c, int64_t t) {
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->bufs[c->by_birth[mid]].birth <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void tp__ll_reset(live_ctx *c) {
    memset(c->lst_fill, 0, c->n_pt * sizeof *c->lst_fill);
    memset(c->placed, 0, c->n);
}

void tp__ll_insert(live_ctx *c, size_t item) {
    c->placed[item] = 1;
    for (uint32_t p = c->pt_of[item]; p <= c->pt_last[item]; p++)
        c->lst[c->lst_start[p] + c->lst_fill[p]++] = (uint32_t)item;
}

bool tp__ll_place(live_ctx *c, size_t q, const uint64_t *off, uint64_t opt_align, bool best_fit,
                  uint64_t *out) {
    const tp_buffer *bufs = c->bufs, *b = &bufs[q];
    uint64_t size = tp__alloc_psize(b), al = tp__alloc_align(b, opt_align);
    size_t nh = 0;
    uint32_t p = c->pt_of[q];
    for (size_t e = c->lst_start[p], end = e + c->lst_fill[p]; e < end; e++) {
        uint32_t j = c->lst[e]; /* alive at q's birth (born at or before it) */
        c->spans[nh++] = (span){off[j], off[j] + tp__alloc_psize(&bufs[j])};
    }
    size_t k2 = prefix_upto(c, b->death);
    for (size_t k = c->pt_first[p + 1]; k < k2; k++) { /* born later, inside q's lifetime */
        size_t j = c->by_birth[k];
        if (c->placed[j]) c->spans[nh++] = (span){off[j], off[j] + tp__alloc_psize(&bufs[j])};
    }
    sort_spans(c->spans, nh);
    uint64_t cur = 0, best_off = 0, best_gap = UINT64_MAX;
    bool found = false;
    for (size_t h = 0; h < nh; h++) {
        if (c->spans[h].lo > cur) {
            uint64_t a;
            if (tp_align_up_u64(cur, al, &a) && a <= c->spans[h].lo && c->spans[h].lo - a >= size) {
                uint64_t gap = c->spans[h].lo - cur;
                if (!best_fit) {
                    best_off = a;
                    found = true;
                    break;
                }
                if (gap < best_gap) {
                    best_gap = gap;
                    best_off = a;
                    found = true;
                }
            }
        }
        if (c->spans[h].hi > cur) cur = c->spans[h].hi;
    }
    if (!found && !tp_align_up_u64(cur, al, &best_off)) return false;
    *out = best_off;
    return true;
}

/* Build the per-point lists when their total size stays within 32 entries per buffer. */
static tp_status lists_init(live_ctx *c, const tp_allocator *alloc, tp_error *err) {
    size_t n = c->n;
    c->pt_first = tp_mem_alloc(alloc, (n + 1) * sizeof *c->pt_first);
    c->pt_of = tp_mem_alloc(alloc, n * sizeof *c->pt_of);
    c->pt_last = tp_mem_alloc(alloc, n * sizeof *c->pt_last);
    if (!c->pt_first || !c->pt_of || !c->pt_last) goto nomem;
    size_t np = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = c->by_birth[k];
        if (k == 0 || c->bufs[i].birth != c->bufs[c->by_birth[k - 1]].birth) c->pt_first[np++] = k;
        c->pt_of[i] = (uint32_t)(np - 1);
    }
    c->pt_first[np] = n;
    c->n_pt = np;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k2 = prefix_upto(c, c->bufs[i].death); /* > position of i */
        c->pt_last[i] = c->pt_of[c->by_birth[k2 - 1]];
        if (tp__alloc_psize(&c->bufs[i]) > 0) total += (size_t)(c->pt_last[i] - c->pt_of[i]) + 1;
        if (total > 32 * (size_t)n + 1024) return TP_OK; /* long lifetimes: not usable */
    }
    c->lst_start = tp_mem_calloc(alloc, np + 1, sizeof *c->lst_start);
    c->lst_fill = tp_mem_calloc(alloc, np, sizeof *c->lst_fill);
    c->n_lst = total ? total : 1;
    c->lst = tp_mem_alloc(alloc, c->n_lst * sizeof *c->lst);
    c->placed = tp_mem_calloc(alloc, n, 1);
    if (!c->lst_start || !c->lst_fill || !c->lst || !c->placed) goto nomem;
    for (size_t i = 0; i < n; i++) /* capacities: difference array over points */
        if (tp__alloc_psize(&c->bufs[i]) > 0) {
            c->lst_start[c->pt_of[i]]++;
            if (c->pt_last[i] + 1 < np) c->lst_start[c->pt_last[i] + 1]--;
        }
    size_t run = 0, acc = 0;
    for (size_t p = 0; p < np; p++) { /* live count per point -> start offsets */
        run += c->lst_start[p];
        c->lst_start[p] = acc;
        acc += run;
    }
    c->lst_start[np] = acc;
    c->usable = true;
    return TP_OK;
nomem:
    return tp_error_set(err, TP_ERR_NOMEM, "bestfit: out of memory for %zu buffers", n);
}

void tp__ll_free(live_ctx *c, const tp_allocator *alloc) {
    size_t n = c->n;
    tp_mem_free(alloc, c->by_birth, n * sizeof *c->by_birth);
    tp_mem_free(alloc, c->spans, n * sizeof *c->spans);
    tp_mem_free(alloc, c->pt_first, (n + 1) * sizeof *c->pt_first);
    tp_mem_free(alloc, c->pt_of, n * sizeof *c->pt_of);
    tp_mem_free(alloc, c->pt_last, n * sizeof *c->pt_last);
    tp_mem_free(alloc, c->lst_start, (c->n_pt + 1) * sizeof *c->lst_start);
    tp_mem_free(alloc, c->lst_fill, c->n_pt * sizeof *c->lst_fill);
    tp_mem_free(alloc, c->lst, c->n_lst * sizeof *c->lst);
    tp_mem_free(alloc, c->placed, n);
}

tp_status tp__ll_init(live_ctx *c, const tp_buffer *bufs, size_t n, const tp_allocator *alloc,
                      bool *usable, tp_error *err) {
    memset(c, 0, sizeof *c);
    c->bufs = bufs;
    c->n = n;
    *usable = false;
    /* by birth, ties in index order (a stable radix sort; qsort took 0.2-0.3 s of a
     * million-buffer plan here) */
    tp__step_item *k = tp_mem_alloc(alloc, n * sizeof *k);
    tp__step_item *tmp = tp_mem_alloc(alloc, n * sizeof *tmp);
    c->by_birth = tp_mem_alloc(alloc, n * sizeof *c->by_birth);
    if (!k || !tmp || !c->by_birth) {
        tp_mem_free(alloc, k, n * sizeof *k);
        tp_mem_free(alloc, tmp, n * sizeof *tmp);
        return tp_error_set(err, TP_ERR_NOMEM, "bestfit: out of memory for %zu buffers", n);
    }
    for (size_t i = 0; i < n; i++)
        k[i] = (tp__step_item){bufs[i].birth, i};
    tp__step_sort(k, tmp, n);
    for (size_t i = 0; i < n; i++)
        c->by_birth[i] = (size_t)k[i].v;
    tp_mem_free(alloc, k, n * sizeof *k);
    tp_mem_free(alloc, tmp, n * sizeof *tmp);
    tp_status st = lists_init(c, alloc, err);
    if (st != TP_OK || !c->usable) return st;
    c->spans = tp_mem_alloc(alloc, n * sizeof *c->spans);
    if (!c->spans)
        return tp_error_set(err, TP_ERR_NOMEM, "bestfit: out of memory for %zu buffers", n);
    *usable = true;
    return TP_OK;
}
