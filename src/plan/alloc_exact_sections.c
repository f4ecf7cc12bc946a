/* Exact search, preprocessing: components between time cuts, sections (maximal step
 * ranges with a constant live set), per-section totals, rank order, identical-buffer
 * chains and time-overlap lists. See docs/exact.md. */
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"

typedef struct key3 {
    uint64_t a, b, c, d;
    uint32_t idx;
} key3;

static int cmp_key3(const void *x, const void *y) {
    const key3 *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    if (p->c != q->c) return p->c < q->c ? -1 : 1;
    if (p->d != q->d) return p->d < q->d ? -1 : 1;
    return p->idx < q->idx ? -1 : (p->idx > q->idx);
}

static int sections_cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

tp_status tp__xs_components(const tp_buffer *bufs, uint32_t *idx, size_t k, size_t *starts,
                            size_t *n_comp, const tp_allocator *alloc, tp_error *err) {
    *n_comp = 0;
    starts[0] = 0;
    if (k == 0) return TP_OK;
    key3 *keys = tp_mem_alloc(alloc, k * sizeof *keys);
    if (!keys) return tp_error_set(err, TP_ERR_NOMEM, "exact: out of memory (%zu buffers)", k);
    for (size_t i = 0; i < k; i++) {
        keys[i].a = (uint64_t)bufs[idx[i]].birth;
        keys[i].b = keys[i].c = keys[i].d = 0;
        keys[i].idx = idx[i];
    }
    qsort(keys, k, sizeof *keys, cmp_key3);
    int64_t reach = INT64_MIN;
    size_t nc = 0;
    for (size_t i = 0; i < k; i++) {
        const tp_buffer *b = &bufs[keys[i].idx];
        if (i > 0 && b->birth > reach) starts[++nc] = i;
        if (b->death > reach) reach = b->death;
        idx[i] = keys[i].idx;
    }
    starts[++nc] = k;
    *n_comp = nc;
    tp_mem_free(alloc, keys, k * sizeof *keys);
    return TP_OK;
}

void tp__xs_free(tp_xs_problem *p) {
    if (!p) return;
    const tp_allocator *a = p->alloc;
    size_t m = p->m;
    tp_mem_free(a, p->gidx, m * sizeof *p->gidx);
    tp_mem_free(a, p->size, m * sizeof *p->size);
    tp_mem_free(a, p->align, m * sizeof *p->align);
    tp_mem_free(a, p->lo, m * sizeof *p->lo);
    tp_mem_free(a, p->hi, m * sizeof *p->hi);
    tp_mem_free(a, p->twin, m * sizeof *p->twin);
    tp_mem_free(a, p->adj_start, (m + 1) * sizeof *p->adj_start);
    tp_mem_free(a, p->adj, p->n_adj * sizeof *p->adj);
    tp_mem_free(a, p->sec_total, p->n_sec * sizeof *p->sec_total);
    tp_mem_free(a, p->width, m * sizeof *p->width);
    memset(p, 0, sizeof *p);
}

/* Index of the first boundary >= t (boundaries sorted, distinct). */
static size_t lower_index(const int64_t *bd, size_t nb, int64_t t) {
    size_t lo = 0, hi = nb;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (bd[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

tp_status tp__xs_build(const tp_buffer *bufs, const uint32_t *members, size_t m, uint64_t opt_align,
                       int preorder, size_t max_adj, const tp_allocator *alloc, tp_xs_problem *p,
                       tp_error *err) {
    memset(p, 0, sizeof *p);
    p->alloc = alloc;
    if (m == 0) return TP_OK;
    if (m >= UINT32_MAX / 2)
        return tp_error_set(err, TP_ERR_UNSUPPORTED, "exact: %zu buffers in one component", m);
    tp_status st = TP_OK;
    key3 *keys = tp_mem_alloc(alloc, m * sizeof *keys);
    int64_t *bd = tp_mem_alloc(alloc, 2 * m * sizeof *bd);
    p->m = m;
    p->preorder = preorder;
    p->width = tp_mem_alloc(alloc, m * sizeof *p->width);
    p->gidx = tp_mem_alloc(alloc, m * sizeof *p->gidx);
    p->size = tp_mem_alloc(alloc, m * sizeof *p->size);
    p->align = tp_mem_alloc(alloc, m * sizeof *p->align);
    p->lo = tp_mem_alloc(alloc, m * sizeof *p->lo);
    p->hi = tp_mem_alloc(alloc, m * sizeof *p->hi);
    p->twin = tp_mem_alloc(alloc, m * sizeof *p->twin);
    p->adj_start = tp_mem_calloc(alloc, m + 1, sizeof *p->adj_start);
    if (!keys || !bd || !p->width || !p->gidx || !p->size || !p->align || !p->lo || !p->hi ||
        !p->twin || !p->adj_start)
        goto nomem;

    /* section boundaries: births and death + 1 */
    size_t nb = 0;
    for (size_t i = 0; i < m; i++) {
        const tp_buffer *b = &bufs[members[i]];
        bd[nb++] = b->birth;
        if (b->death < INT64_MAX) bd[nb++] = b->death + 1;
    }
    qsort(bd, nb, sizeof *bd, sections_cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < nb; i++)
        if (u == 0 || bd[i] != bd[u - 1]) bd[u++] = bd[i];
    nb = u;
    p->n_sec = nb; /* the last boundary opens no section unless some death == INT64_MAX */
    p->sec_total = tp_mem_calloc(alloc, nb, sizeof *p->sec_total);
    if (!p->sec_total) goto nomem;
    /* spans and section totals, by member position (lo/hi reused as scratch) */
    for (size_t i = 0; i < m; i++) {
        const tp_buffer *b = &bufs[members[i]];
        p->lo[i] = (uint32_t)lower_index(bd, nb, b->birth);
        p->hi[i] =
            (uint32_t)(b->death < INT64_MAX ? lower_index(bd, nb, b->death + 1) - 1 : nb - 1);
        for (uint32_t s = p->lo[i]; s <= p->hi[i]; s++)
            p->sec_total[s] = tp_sat_add_u64(p->sec_total[s], tp__alloc_psize(b));
    }
    /* rank order (static preorder): buffers of the most crowded sections first, then
     * larger area (size x lifetime), then longer lifetime, then larger size */
    for (size_t i = 0; i < m; i++) {
        const tp_buffer *b = &bufs[members[i]];
        uint64_t total = 0, width = (uint64_t)(b->death - b->birth) + 1;
        for (uint32_t s = p->lo[i]; s <= p->hi[i]; s++)
            if (p->sec_total[s] > total) total = p->sec_total[s];
        uint64_t area = tp_sat_mul_u64(tp__alloc_psize(b), width);
        uint64_t k[3];
        switch (preorder) {
        case 1: /* width, area, total */
            k[0] = width, k[1] = area, k[2] = total;
            break;
        case 2: /* total, width, area */
            k[0] = total, k[1] = width, k[2] = area;
            break;
        default: /* total, area, width */
            k[0] = total, k[1] = area, k[2] = width;
            break;
        }
        keys[i].a = UINT64_MAX - k[0];
        keys[i].b = UINT64_MAX - k[1];
        keys[i].c = UINT64_MAX - k[2];
        keys[i].d = UINT64_MAX - tp__alloc_psize(b);
        keys[i].idx = (uint32_t)i; /* member position */
    }
    qsort(keys, m, sizeof *keys, cmp_key3);
    uint32_t *lo_tmp = p->lo, *hi_tmp = p->hi;
    p->lo = tp_mem_alloc(alloc, m * sizeof *p->lo);
    p->hi = tp_mem_alloc(alloc, m * sizeof *p->hi);
    if (!p->lo || !p->hi) {
        tp_mem_free(alloc, p->lo, m * sizeof *p->lo);
        tp_mem_free(alloc, p->hi, m * sizeof *p->hi);
        p->lo = lo_tmp;
        p->hi = hi_tmp;
        goto nomem;
    }
    for (size_t r = 0; r < m; r++) {
        uint32_t pos = keys[r].idx;
        const tp_buffer *b = &bufs[members[pos]];
        p->gidx[r] = members[pos];
        p->size[r] = tp__alloc_psize(b);
        p->align[r] = tp__alloc_align(b, opt_align);
        p->lo[r] = lo_tmp[pos];
        p->hi[r] = hi_tmp[pos];
        p->twin[r] = UINT32_MAX;
        p->width[r] = (uint64_t)(b->death - b->birth) + 1;
        if (r > 0) {
            const tp_buffer *q = &bufs[p->gidx[r - 1]];
            if (p->size[r] == p->size[r - 1] && p->align[r] == p->align[r - 1] &&
                b->birth == q->birth && b->death == q->death)
                p->twin[r] = (uint32_t)(r - 1);
        }
    }
    tp_mem_free(alloc, lo_tmp, m * sizeof *lo_tmp);
    tp_mem_free(alloc, hi_tmp, m * sizeof *hi_tmp);
    for (size_t s = 0; s < nb; s++)
        if (p->sec_total[s] > p->lb) p->lb = p->sec_total[s];

    /* time-overlap lists (CSR), two passes */
    for (int pass = 0; pass < 2; pass++) {
        size_t total = 0;
        for (size_t r = 0; r < m; r++) {
            if (pass == 1) p->adj_start[r] = (uint32_t)total;
            for (size_t q = 0; q < m; q++) {
                if (q == r || p->lo[q] > p->hi[r] || p->lo[r] > p->hi[q]) continue;
                if (pass == 1) p->adj[total] = (uint32_t)q;
                total++;
            }
            if (total > max_adj || total >= UINT32_MAX) {
                st = tp_error_set(err, TP_ERR_UNSUPPORTED,
                                  "exact: more than %zu overlapping pairs in a component of "
                                  "%zu buffers",
                                  max_adj, m);
                goto fail;
            }
        }
        if (pass == 0) {
            p->adj = tp_mem_alloc(alloc, (total ? total : 1) * sizeof *p->adj);
            if (!p->adj) goto nomem;
            p->n_adj = total ? total : 1;
        } else {
            p->adj_start[m] = (uint32_t)total;
        }
    }
    tp_mem_free(alloc, keys, m * sizeof *keys);
    tp_mem_free(alloc, bd, 2 * m * sizeof *bd);
    return TP_OK;
nomem:
    st = tp_error_set(err, TP_ERR_NOMEM, "exact: out of memory preparing %zu buffers", m);
fail:
    tp_mem_free(alloc, keys, m * sizeof *keys);
    tp_mem_free(alloc, bd, 2 * m * sizeof *bd);
    tp__xs_free(p);
    return st;
}
