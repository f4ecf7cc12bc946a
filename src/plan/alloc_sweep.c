/* Sweep placer: buffers in birth order (ties: largest first, then input order), each put
 * in a free gap of the arena as it stands at its birth step.
 *
 * In birth order every placed buffer was born at or before the new buffer's birth b, so a
 * placed buffer overlaps the new one in time iff it is still alive at b (death >= b). The
 * placer therefore only needs the live set at b, kept as the free gaps between live buffers:
 * at each step the buffers that died before it give their bytes back (joined with the gaps
 * on either side), then the buffers born at it are placed. With no pre-placed buffers this
 * is exactly the "start order" run of the best-fit heuristics, at O(log L) per buffer for L
 * live buffers instead of a scan of every time-overlapping one.
 *
 * tp__alloc_sweep_ex can also run with time mirrored (death order, latest first): on traces
 * whose live set grows towards the end (lifetimes cut at the last step) the mirrored sweep
 * meets the crowded end first and packs it better (longmix62k 1.029 x LB against 1.033,
 * longmix1M 1.0076 against 1.0127).
 *
 * Free gaps are nodes of two treaps over one node pool: by address (for joining neighbours
 * and for first fit: each node keeps the longest gap in its subtree) and by (length,
 * address) (for best fit: the shortest gap that holds the aligned buffer, lowest on ties).
 * The space above every live buffer is the gap [top, 2^64 - 1), the longest of all.
 */
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"

#define NIL UINT32_MAX

typedef struct gap_node {
    uint64_t a, b;   /* free [a, b) */
    uint64_t maxlen; /* longest gap in the address subtree */
    uint32_t pri;
    uint32_t l1, r1; /* address treap */
    uint32_t l2, r2; /* (length, address) treap */
} gap_node;

typedef struct sweep {
    gap_node *g;
    size_t cap;
    uint32_t free_head, root1, root2;
    uint64_t rng;
} sweep;

static uint64_t len_of(const gap_node *x) {
    return x->b - x->a;
}

static void pull(gap_node *g, uint32_t x) {
    uint64_t m = len_of(&g[x]);
    if (g[x].l1 != NIL && g[g[x].l1].maxlen > m) m = g[g[x].l1].maxlen;
    if (g[x].r1 != NIL && g[g[x].r1].maxlen > m) m = g[g[x].r1].maxlen;
    g[x].maxlen = m;
}

/* ---- address treap (key a) ---- */
static void split1(gap_node *g, uint32_t t, uint64_t key, uint32_t *l,
                   uint32_t *r) { /* l: a < key */
    if (t == NIL) {
        *l = *r = NIL;
    } else if (g[t].a < key) {
        split1(g, g[t].r1, key, &g[t].r1, r);
        pull(g, t);
        *l = t;
    } else {
        split1(g, g[t].l1, key, l, &g[t].l1);
        pull(g, t);
        *r = t;
    }
}

static uint32_t merge1(gap_node *g, uint32_t l, uint32_t r) {
    if (l == NIL) return r;
    if (r == NIL) return l;
    if (g[l].pri > g[r].pri) {
        g[l].r1 = merge1(g, g[l].r1, r);
        pull(g, l);
        return l;
    }
    g[r].l1 = merge1(g, l, g[r].l1);
    pull(g, r);
    return r;
}

/* ---- (length, address) treap ---- */
static bool less2(const gap_node *x, uint64_t len, uint64_t a) {
    uint64_t xl = len_of(x);
    return xl < len || (xl == len && x->a < a);
}

static void split2(gap_node *g, uint32_t t, uint64_t len, uint64_t a, uint32_t *l, uint32_t *r) {
    if (t == NIL) {
        *l = *r = NIL;
    } else if (less2(&g[t], len, a)) {
        split2(g, g[t].r2, len, a, &g[t].r2, r);
        *l = t;
    } else {
        split2(g, g[t].l2, len, a, l, &g[t].l2);
        *r = t;
    }
}

static uint32_t merge2(gap_node *g, uint32_t l, uint32_t r) {
    if (l == NIL) return r;
    if (r == NIL) return l;
    if (g[l].pri > g[r].pri) {
        g[l].r2 = merge2(g, g[l].r2, r);
        return l;
    }
    g[r].l2 = merge2(g, l, g[r].l2);
    return r;
}

/* Insert node x (keys set) below t; returns the new subtree root. */
static uint32_t insert1(gap_node *g, uint32_t t, uint32_t x) {
    if (t == NIL) return x;
    if (g[x].pri > g[t].pri) {
        split1(g, t, g[x].a, &g[x].l1, &g[x].r1);
        pull(g, x);
        return x;
    }
    if (g[x].a < g[t].a)
        g[t].l1 = insert1(g, g[t].l1, x);
    else
        g[t].r1 = insert1(g, g[t].r1, x);
    pull(g, t);
    return t;
}

static uint32_t erase1(gap_node *g, uint32_t t, uint64_t a) {
    if (g[t].a == a) return merge1(g, g[t].l1, g[t].r1);
    if (a < g[t].a)
        g[t].l1 = erase1(g, g[t].l1, a);
    else
        g[t].r1 = erase1(g, g[t].r1, a);
    pull(g, t);
    return t;
}

/* Node x's bounds change without passing a neighbour (its address order holds): store them
 * and refresh the longest-gap figures on its root path. */
static void reshape1(gap_node *g, uint32_t t, uint64_t old_a, uint32_t x, uint64_t a, uint64_t b) {
    if (t == x) {
        g[x].a = a;
        g[x].b = b;
    } else if (old_a < g[t].a) {
        reshape1(g, g[t].l1, old_a, x, a, b);
    } else {
        reshape1(g, g[t].r1, old_a, x, a, b);
    }
    pull(g, t);
}

static uint32_t insert2(gap_node *g, uint32_t t, uint32_t x) {
    if (t == NIL) return x;
    if (g[x].pri > g[t].pri) {
        split2(g, t, len_of(&g[x]), g[x].a, &g[x].l2, &g[x].r2);
        return x;
    }
    if (less2(&g[x], len_of(&g[t]), g[t].a))
        g[t].l2 = insert2(g, g[t].l2, x);
    else
        g[t].r2 = insert2(g, g[t].r2, x);
    return t;
}

static uint32_t erase2(gap_node *g, uint32_t t, uint32_t x) {
    if (t == x) return merge2(g, g[t].l2, g[t].r2);
    if (less2(&g[x], len_of(&g[t]), g[t].a))
        g[t].l2 = erase2(g, g[t].l2, x);
    else
        g[t].r2 = erase2(g, g[t].r2, x);
    return t;
}

static void gap_add(sweep *w, uint64_t a, uint64_t b) {
    gap_node *g = w->g;
    uint32_t x = w->free_head; /* the pool holds one node per buffer + 2: never empty */
    w->free_head = g[x].l1;
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    g[x] = (gap_node){a, b, b - a, (uint32_t)(w->rng >> 32), NIL, NIL, NIL, NIL};
    w->root1 = insert1(g, w->root1, x);
    w->root2 = insert2(g, w->root2, x);
}

static void gap_remove(sweep *w, uint32_t x) {
    gap_node *g = w->g;
    w->root1 = erase1(g, w->root1, g[x].a);
    w->root2 = erase2(g, w->root2, x);
    g[x].l1 = w->free_head;
    w->free_head = x;
}

/* Give gap x the bounds [a, b), which pass none of its neighbours. */
static void gap_reshape(sweep *w, uint32_t x, uint64_t a, uint64_t b) {
    gap_node *g = w->g;
    w->root2 = erase2(g, w->root2, x);
    reshape1(g, w->root1, g[x].a, x, a, b);
    g[x].l2 = g[x].r2 = NIL;
    w->root2 = insert2(g, w->root2, x);
}

/* The gap with the largest start <= key, or NIL. */
static uint32_t floor1(const gap_node *g, uint32_t t, uint64_t key) {
    uint32_t best = NIL;
    while (t != NIL) {
        if (g[t].a <= key) {
            best = t;
            t = g[t].r1;
        } else {
            t = g[t].l1;
        }
    }
    return best;
}

static bool fits(const gap_node *x, uint64_t s, uint64_t align, uint64_t *q) {
    uint64_t e;
    return tp_align_up_u64(x->a, align, q) && tp_add_u64(*q, s, &e) && e <= x->b;
}

/* First fit: the lowest-address gap that holds the aligned buffer. */
static uint32_t first_fit(const gap_node *g, uint32_t t, uint64_t s, uint64_t align, uint64_t *q) {
    if (t == NIL || g[t].maxlen < s) return NIL;
    uint32_t x = first_fit(g, g[t].l1, s, align, q);
    if (x != NIL) return x;
    if (fits(&g[t], s, align, q)) return t;
    return first_fit(g, g[t].r1, s, align, q);
}

/* Best fit: the shortest gap (ties: lowest) that holds the aligned buffer. A gap of length
 * >= s may still miss it by its alignment padding; after 16 such misses the search goes on
 * from length s + align - 1, where every gap fits (so a run of equal gaps with unaligned
 * starts costs O(log) each, not their count). */
static uint32_t best_fit(const gap_node *g, uint32_t root, uint64_t s, uint64_t align,
                         uint64_t *q) {
    uint64_t len = s, a = 0;
    for (int miss = 0;; miss++) { /* successor of (len, a) in (length, address) order */
        uint32_t t = root, best = NIL;
        while (t != NIL) {
            if (!less2(&g[t], len, a)) {
                best = t;
                t = g[t].l2;
            } else {
                t = g[t].r2;
            }
        }
        if (best == NIL || fits(&g[best], s, align, q)) return best;
        len = len_of(&g[best]); /* alignment did not fit: the next one */
        a = g[best].a + 1;
        if (miss == 16 && len < s + (align - 1) && s + (align - 1) > s) {
            len = s + (align - 1);
            a = 0;
        }
    }
}

static void give_back(sweep *w, uint64_t lo, uint64_t hi) {
    gap_node *g = w->g;
    uint32_t left = floor1(g, w->root1, lo), right = floor1(g, w->root1, hi);
    if (left != NIL && g[left].b != lo) left = NIL;
    if (right != NIL && g[right].a != hi) right = NIL;
    if (left != NIL && right != NIL) { /* the freed bytes join two gaps */
        uint64_t b = g[right].b;
        gap_remove(w, right);
        gap_reshape(w, left, g[left].a, b);
    } else if (left != NIL) {
        gap_reshape(w, left, g[left].a, hi);
    } else if (right != NIL) {
        gap_reshape(w, right, lo, g[right].b);
    } else {
        gap_add(w, lo, hi);
    }
}

typedef struct ev_key {
    int64_t t;
    uint64_t size;
    size_t idx;
} ev_key;

/* The radix key of an event: size descending (by_size; hi = the largest size) or t
 * ascending (lo = the smallest t, both as t ^ 2^63 so the order is unsigned). */
static inline uint64_t ev_key_of(const ev_key *e, bool by_size, uint64_t lo, uint64_t hi) {
    return by_size ? hi - e->size : ((uint64_t)e->t ^ ((uint64_t)1 << 63)) - lo;
}

/* One stable LSD radix sort of a[0..n) (tmp: n entries) by t ascending (by_size false) or
 * size descending (true), 8 bits a pass, only as many passes as the keys' range needs. */
static void radix_by(ev_key *a, ev_key *tmp, size_t n, bool by_size) {
    if (n < 2) return;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = by_size ? a[i].size : (uint64_t)a[i].t ^ ((uint64_t)1 << 63);
        if (k < lo) lo = k;
        if (k > hi) hi = k;
    }
    uint64_t span = hi - lo;
    ev_key *src = a, *dst = tmp;
    for (unsigned shift = 0; shift < 64 && (span >> shift) != 0; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((ev_key_of(&src[i], by_size, lo, hi) >> shift) & 255) + 1]++;
        for (size_t d = 1; d < 257; d++)
            count[d] += count[d - 1];
        for (size_t i = 0; i < n; i++)
            dst[count[(ev_key_of(&src[i], by_size, lo, hi) >> shift) & 255]++] = src[i];
        ev_key *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
}

/* Events in (t ascending, size descending, index ascending) order: the arrays are built in
 * index order and both sorts are stable. (qsort here was the sweeps' largest item at a
 * million buffers.) */
static void sort_events(ev_key *a, ev_key *tmp, size_t n) {
    radix_by(a, tmp, n, true);
    radix_by(a, tmp, n, false);
}

/* Past the deadline (monotonic seconds; 0: none): *st = TP_ERR_TIMEOUT, true. */
static bool past_deadline(double deadline, tp_status *st, tp_error *err) {
    if (deadline <= 0 || tp__xs_now() < deadline) return false;
    *st = tp_error_set(err, TP_ERR_TIMEOUT, "sweep: past the deadline");
    return true;
}

tp_status tp__alloc_sweep(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                          bool use_best_fit, const tp_allocator *alloc, uint64_t *offsets,
                          uint64_t *arena, tp_error *err) {
    return tp__alloc_sweep_ex(bufs, n, opt, use_best_fit, false, 0, alloc, offsets, arena, err);
}

tp_status tp__alloc_sweep_ex(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                             bool use_best_fit, bool reverse, double deadline,
                             const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                             tp_error *err) {
    *arena = 0;
    if (n == 0) return TP_OK;
    for (size_t i = 0; i < n; i++)
        if (bufs[i].fixed_offset >= 0)
            return tp_error_set(err, TP_ERR_UNSUPPORTED, "sweep: pre-placed buffers");
    if (n >= NIL - 1) return tp_error_set(err, TP_ERR_UNSUPPORTED, "sweep: %zu buffers", n);
    tp_status st = TP_OK;
    sweep w = {NULL, n + 2, 0, NIL, NIL, 0x9E3779B97F4A7C15u};
    ev_key *born = tp_mem_alloc(alloc, n * sizeof *born);
    ev_key *dies = tp_mem_alloc(alloc, n * sizeof *dies);
    ev_key *tmp = tp_mem_alloc(alloc, n * sizeof *tmp);
    w.g = tp_mem_alloc(alloc, w.cap * sizeof *w.g);
    if (!born || !dies || !tmp || !w.g) {
        st = tp_error_set(err, TP_ERR_NOMEM, "sweep: out of memory for %zu buffers", n);
        goto done;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t s = tp__alloc_psize(&bufs[i]);
        offsets[i] = 0; /* zero-size buffers: 0 conflicts with nothing */
        if (s == 0) continue;
        /* mirrored time: t -> -t (steps are >= 0, so the negation cannot overflow) */
        born[m] = (ev_key){reverse ? -bufs[i].death : bufs[i].birth, s, i};
        dies[m] = (ev_key){reverse ? -bufs[i].birth : bufs[i].death, 0, i};
        m++;
    }
    sort_events(born, tmp, m);
    sort_events(dies, tmp, m);
    tp_mem_free(alloc, tmp, n * sizeof *tmp);
    tmp = NULL;
    if (past_deadline(deadline, &st, err)) goto done;
    for (size_t k = 0; k < w.cap; k++)
        w.g[k].l1 = k + 1 < w.cap ? (uint32_t)(k + 1) : NIL;
    gap_add(&w, 0, UINT64_MAX);
    uint64_t top = 0;
    for (size_t k = 0, d = 0; k < m; k++) {
        const tp_buffer *b = &bufs[born[k].idx];
        if ((k & 255) == 255 && past_deadline(deadline, &st, err)) goto done;
        for (; d < m && dies[d].t < born[k].t; d++) { /* died before this step: give back */
            uint64_t lo = offsets[dies[d].idx];
            give_back(&w, lo, lo + tp__alloc_psize(&bufs[dies[d].idx]));
        }
        uint64_t s = born[k].size, al = tp__alloc_align(b, opt->alignment), q = 0;
        uint32_t x =
            use_best_fit ? best_fit(w.g, w.root2, s, al, &q) : first_fit(w.g, w.root1, s, al, &q);
        if (x == NIL) {
            st = tp_error_set(err, TP_ERR_OVERFLOW,
                              "sweep: buffer %zu (id %lld, size %llu) does not fit below 2^64",
                              born[k].idx, (long long)b->id, (unsigned long long)s);
            goto done;
        }
        uint64_t ga = w.g[x].a, gb = w.g[x].b;
        if (q + s == gb && q == ga) {
            gap_remove(&w, x);
        } else if (q == ga) {
            gap_reshape(&w, x, q + s, gb);
        } else {
            gap_reshape(&w, x, ga, q);
            if (q + s < gb) gap_add(&w, q + s, gb);
        }
        offsets[born[k].idx] = q;
        if (q + s > top) top = q + s;
    }
    *arena = top;
done:
    tp_mem_free(alloc, born, n * sizeof *born);
    tp_mem_free(alloc, dies, n * sizeof *dies);
    tp_mem_free(alloc, tmp, n * sizeof *tmp);
    tp_mem_free(alloc, w.g, w.cap * sizeof *w.g);
    return st;
}
