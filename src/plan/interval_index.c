/* Time-interval index for the greedy placer: a segment tree over compressed steps.
 *
 * An inserted item is stored in the O(log T) canonical nodes that exactly cover its step
 * range (entries in one pooled linked list, so the whole index is a handful of allocations).
 * A query visits the nodes that intersect its range and whose subtree holds entries, and
 * reports each item once (a per-item stamp). Every item stored in a visited node covers the
 * whole node range, which intersects the query, so nothing reported is spurious; an item
 * intersecting the query has a canonical node inside or around the query range, which the
 * descent reaches, so nothing is missed. */
#include "core/mem.h"
#include "plan/alloc_internal.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Index of the first step >= v (steps sorted, distinct). */
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

tp_status tp__itree_init(tp__itree *t, const tp_buffer *bufs, size_t n, const tp_allocator *alloc,
                         tp_error *err) {
    memset(t, 0, sizeof *t);
    t->alloc = alloc;
    t->n_items = n;
    if (n >= (size_t)NONE / 2)
        return tp_error_set(err, TP_ERR_INVALID, "too many buffers for the placer: %zu", n);
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
    t->head = tp_mem_calloc(alloc, nodes, sizeof *t->head);
    t->count = tp_mem_calloc(alloc, nodes, sizeof *t->count);
    t->stamp = tp_mem_calloc(alloc, n ? n : 1, sizeof *t->stamp);
    if (!t->head || !t->count || !t->stamp) goto nomem;
    for (size_t i = 0; i < nodes; i++)
        t->head[i] = NONE;
    return TP_OK;
nomem:
    tp__itree_free(t);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory building the time index (%zu buffers)",
                        n);
}

void tp__itree_free(tp__itree *t) {
    const tp_allocator *a = t->alloc;
    tp_mem_free(a, t->steps, (t->n_items ? 2 * t->n_items : 1) * sizeof *t->steps);
    tp_mem_free(a, t->head, 2 * t->leaves * sizeof *t->head);
    tp_mem_free(a, t->count, 2 * t->leaves * sizeof *t->count);
    tp_mem_free(a, t->stamp, (t->n_items ? t->n_items : 1) * sizeof *t->stamp);
    tp_mem_free(a, t->entries, t->cap_entries * sizeof *t->entries);
    memset(t, 0, sizeof *t);
}

static bool push_entry(tp__itree *t, size_t node, uint32_t item) {
    if (t->n_entries >= NONE - 1) return false;
    if (!tp_mem_grow(t->alloc, (void **)&t->entries, sizeof *t->entries, &t->cap_entries,
                     t->n_entries + 1))
        return false;
    uint32_t e = (uint32_t)t->n_entries++;
    t->entries[e].item = item;
    t->entries[e].next = t->head[node];
    t->head[node] = e;
    return true;
}

static bool insert_rec(tp__itree *t, size_t node, size_t l, size_t r, size_t ql, size_t qr,
                       uint32_t item) {
    if (qr < l || r < ql) return true;
    t->count[node]++;
    if (ql <= l && r <= qr) return push_entry(t, node, item);
    size_t mid = l + (r - l) / 2;
    return insert_rec(t, 2 * node, l, mid, ql, qr, item) &&
           insert_rec(t, 2 * node + 1, mid + 1, r, ql, qr, item);
}

tp_status tp__itree_insert(tp__itree *t, uint32_t item, int64_t birth, int64_t death,
                           tp_error *err) {
    size_t ql = rank_of(t, birth), qr = rank_of(t, death);
    if (!insert_rec(t, 1, 0, t->leaves - 1, ql, qr, item))
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory in the time index (%zu entries)",
                            t->n_entries);
    return TP_OK;
}

static void query_rec(tp__itree *t, size_t node, size_t l, size_t r, size_t ql, size_t qr,
                      uint32_t *out, size_t *n_out) {
    if (qr < l || r < ql || t->count[node] == 0) return;
    for (uint32_t e = t->head[node]; e != NONE; e = t->entries[e].next) {
        uint32_t it = t->entries[e].item;
        if (t->stamp[it] != t->query_id) {
            t->stamp[it] = t->query_id;
            out[(*n_out)++] = it;
        }
    }
    if (l == r) return;
    size_t mid = l + (r - l) / 2;
    query_rec(t, 2 * node, l, mid, ql, qr, out, n_out);
    query_rec(t, 2 * node + 1, mid + 1, r, ql, qr, out, n_out);
}

void tp__itree_query(tp__itree *t, int64_t birth, int64_t death, uint32_t *out, size_t *n_out) {
    if (++t->query_id == 0) { /* wrapped: reset stamps so no stale match */
        memset(t->stamp, 0, (t->n_items ? t->n_items : 1) * sizeof *t->stamp);
        t->query_id = 1;
    }
    size_t ql = rank_of(t, birth), qr = rank_of(t, death);
    query_rec(t, 1, 0, t->leaves - 1, ql, qr, out, n_out);
}
