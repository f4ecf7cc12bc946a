/* Independent plan verifier (shares no code with the placers).
 *
 * Pairwise conflict check in O(m log m): sweep the buffers in birth order, keeping the
 * buffers alive at the current step in a Fenwick tree over their (offset, end) rank. While no
 * conflict has been seen the live set is pairwise conflict-free, and then a new buffer
 * [o, e) conflicts with some live buffer iff it conflicts with the live buffer of greatest
 * (offset, end) among those with offset < e (docs/allocator.md gives the argument), so one
 * order-statistics query per buffer suffices. */
#include "core/mem.h"
#include "plan/alloc_internal.h"

#include <stdlib.h>

typedef struct vkey {
    uint64_t off, end;
    size_t pos; /* position in the checked list */
} vkey;

typedef struct vtime {
    int64_t t;
    size_t pos;
} vtime;

static int cmp_vkey(const void *a, const void *b) {
    const vkey *x = a, *y = b;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static int cmp_vtime(const void *a, const void *b) {
    const vtime *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Fenwick tree over ranks 1..m. */
static void fw_add(size_t *fw, size_t m, size_t i, int delta) {
    for (i++; i <= m; i += i & (~i + 1))
        fw[i] = delta > 0 ? fw[i] + 1 : fw[i] - 1;
}
static size_t fw_prefix(const size_t *fw, size_t i) { /* count of present ranks < i */
    size_t s = 0;
    for (; i > 0; i -= i & (~i + 1))
        s += fw[i];
    return s;
}
/* Rank of the c-th present element (1-based c), m = size. */
static size_t fw_kth(const size_t *fw, size_t m, size_t c) {
    size_t pos = 0, step = 1;
    while (step * 2 <= m)
        step *= 2;
    for (; step; step /= 2)
        if (pos + step <= m && fw[pos + step] < c) {
            pos += step;
            c -= fw[pos];
        }
    return pos; /* 0-based rank */
}

tp_status tp__alloc_find_conflict(const tp_buffer *bufs, size_t n, const size_t *idx, size_t m,
                                  const uint64_t *offsets, const tp_allocator *alloc, bool *found,
                                  size_t *a, size_t *b, tp_error *err) {
    *found = false;
    if (!idx) m = n;
    if (m < 2) return TP_OK;
    tp_status st = TP_OK;
    vkey *keys = tp_mem_calloc(alloc, m, sizeof *keys);
    size_t *rank = tp_mem_calloc(alloc, m, sizeof *rank);
    vtime *births = tp_mem_calloc(alloc, m, sizeof *births);
    vtime *deaths = tp_mem_calloc(alloc, m, sizeof *deaths);
    size_t *fw = tp_mem_calloc(alloc, m + 1, sizeof *fw);
    if (!keys || !rank || !births || !deaths || !fw) {
        st = tp_error_set(err, TP_ERR_NOMEM, "out of memory verifying %zu buffers", m);
        goto done;
    }
    for (size_t p = 0; p < m; p++) {
        size_t i = idx ? idx[p] : p;
        keys[p] = (vkey){offsets[i], offsets[i] + tp__alloc_psize(&bufs[i]), p};
        births[p] = (vtime){bufs[i].birth, p};
        deaths[p] = (vtime){bufs[i].death, p};
    }
    qsort(keys, m, sizeof *keys, cmp_vkey);
    qsort(births, m, sizeof *births, cmp_vtime);
    qsort(deaths, m, sizeof *deaths, cmp_vtime);
    for (size_t r = 0; r < m; r++)
        rank[keys[r].pos] = r;
    size_t dp = 0;
    for (size_t k = 0; k < m && !*found; k++) {
        size_t p = births[k].pos;
        while (dp < m && deaths[dp].t < births[k].t) {
            size_t q = deaths[dp++].pos;
            if (rank[q] != SIZE_MAX) { /* inserted (born before): remove */
                fw_add(fw, m, rank[q], -1);
                rank[q] = SIZE_MAX;
            }
        }
        size_t i = idx ? idx[p] : p;
        uint64_t o = offsets[i], e = o + tp__alloc_psize(&bufs[i]);
        /* number of keys with off < e */
        size_t lo = 0, hi = m;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (keys[mid].off < e)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t c = fw_prefix(fw, lo);
        if (c > 0) {
            size_t r = fw_kth(fw, m, c);
            if (keys[r].end > o) {
                size_t q = keys[r].pos;
                *found = true;
                *a = idx ? idx[q] : q;
                *b = i;
                break;
            }
        }
        fw_add(fw, m, rank[p], +1);
    }
done:
    tp_mem_free(alloc, keys, m * sizeof *keys);
    tp_mem_free(alloc, rank, m * sizeof *rank);
    tp_mem_free(alloc, births, m * sizeof *births);
    tp_mem_free(alloc, deaths, m * sizeof *deaths);
    tp_mem_free(alloc, fw, (m + 1) * sizeof *fw);
    return st;
}

static tp_status bad(tp_error *err, const tp_buffer *bufs, size_t i, const uint64_t *offsets,
                     const char *what, unsigned long long v) {
    const tp_buffer *b = &bufs[i];
    return tp_error_setx(err, TP_ERR_VERIFY, TP_NO_OFFSET, b->id,
                         "buffer %zu (id %lld, offset %llu, size %llu, tail guard %llu, lifetime "
                         "[%lld, %lld]): %s %llu",
                         i, (long long)b->id, (unsigned long long)offsets[i],
                         (unsigned long long)b->size, (unsigned long long)b->tail_guard,
                         (long long)b->birth, (long long)b->death, what, v);
}

tp_status tp_alloc_verify(const tp_buffer *bufs, size_t n, const uint64_t *offsets,
                          uint64_t alignment, uint64_t arena_bytes, const tp_allocator *alloc,
                          tp_error *err) {
    if (n == 0) return TP_OK;
    if (!bufs || !offsets)
        return tp_error_set(err, TP_ERR_INVALID, "verify: NULL buffers or offsets (n = %zu)", n);
    if (!tp_is_pow2_u64(alignment))
        return tp_error_set(err, TP_ERR_INVALID, "verify: alignment %llu is not a power of two",
                            (unsigned long long)alignment);
    for (size_t i = 0; i < n; i++) {
        const tp_buffer *b = &bufs[i];
        uint64_t ps, end;
        if (b->birth > b->death)
            return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, b->id,
                                 "verify: buffer %zu (id %lld) has birth %lld > death %lld", i,
                                 (long long)b->id, (long long)b->birth, (long long)b->death);
        if (b->alignment != 0 && !tp_is_pow2_u64(b->alignment))
            return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, b->id,
                                 "verify: buffer %zu (id %lld) alignment %llu is not a power of "
                                 "two",
                                 i, (long long)b->id, (unsigned long long)b->alignment);
        if (!tp_add_u64(b->size, b->tail_guard, &ps))
            return tp_error_setx(err, TP_ERR_OVERFLOW, TP_NO_OFFSET, b->id,
                                 "verify: buffer %zu (id %lld) size %llu + tail guard %llu passes "
                                 "2^64",
                                 i, (long long)b->id, (unsigned long long)b->size,
                                 (unsigned long long)b->tail_guard);
        uint64_t al = b->alignment ? b->alignment : alignment;
        if (offsets[i] & (al - 1)) return bad(err, bufs, i, offsets, "offset not aligned to", al);
        if (b->fixed_offset >= 0 && offsets[i] != (uint64_t)b->fixed_offset)
            return bad(err, bufs, i, offsets, "moved from its fixed offset",
                       (unsigned long long)b->fixed_offset);
        if (!tp_add_u64(offsets[i], ps, &end))
            return bad(err, bufs, i, offsets, "end passes 2^64; placement size", ps);
        if (end > arena_bytes)
            return bad(err, bufs, i, offsets, "ends past the arena size", arena_bytes);
    }
    bool found = false;
    size_t x = 0, y = 0;
    tp_status st = tp__alloc_find_conflict(bufs, n, NULL, n, offsets, alloc, &found, &x, &y, err);
    if (st != TP_OK || !found) return st;
    const tp_buffer *p = &bufs[x], *q = &bufs[y];
    uint64_t pe = offsets[x] + tp__alloc_psize(p), qe = offsets[y] + tp__alloc_psize(q);
    return tp_error_setx(
        err, TP_ERR_VERIFY, TP_NO_OFFSET, q->id,
        "buffers %zu (id %lld, offset %llu, size %llu, end %llu, lifetime [%lld, %lld]) and %zu "
        "(id %lld, offset %llu, size %llu, end %llu, lifetime [%lld, %lld]) overlap in bytes "
        "[%llu, %llu) during steps [%lld, %lld]",
        x, (long long)p->id, (unsigned long long)offsets[x], (unsigned long long)p->size,
        (unsigned long long)pe, (long long)p->birth, (long long)p->death, y, (long long)q->id,
        (unsigned long long)offsets[y], (unsigned long long)q->size, (unsigned long long)qe,
        (long long)q->birth, (long long)q->death,
        (unsigned long long)(offsets[x] > offsets[y] ? offsets[x] : offsets[y]),
        (unsigned long long)(pe < qe ? pe : qe),
        (long long)(p->birth > q->birth ? p->birth : q->birth),
        (long long)(p->death < q->death ? p->death : q->death));
}
