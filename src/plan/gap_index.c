/* Gap index (gap_index.h): a segment tree over the distinct birth steps whose nodes hold
 * merged sets of occupied byte runs.
 *
 * Why the query sees exactly the time-overlapping buffers. Let Q be the query's point range
 * and B a placed buffer with canonical nodes C(B). B overlaps Q iff some c in C(B)
 * intersects Q. Such a c is either inside Q, hence inside (or equal to) a canonical node q
 * of Q, so B is in sub(q); or not inside Q, hence it contains a point of Q and one outside,
 * so it is a strict ancestor of the canonical node of Q holding that point, and B is in
 * cover(c). Conversely every buffer in sub(q) has a canonical node inside q, inside Q, and
 * every buffer in cover(a) covers a, which contains a point of Q.
 *
 * Insert: cover(c) and sub(c) for each canonical node c of B, and sub(x) for every strict
 * ancestor x of a canonical node. Those ancestors are exactly the nodes on the root paths
 * of B's first and last point that are not inside B's range: such a node contains the
 * canonical node holding that endpoint; conversely a strict ancestor of a canonical node is
 * not inside B's range (else the canonical node would not be maximal), so it contains a
 * point outside the range next to one inside it, i.e. an endpoint's neighbour and that
 * endpoint. The query uses the same two paths for its ancestors. */
#include "plan/gap_index.h"

#include <string.h>

#include "core/mem.h"

#define NO_BLOCK 31u
#define SUM_CLS 4u /* blocks of 2^SUM_CLS runs and more carry gap summaries, one per 16 runs */

#define NONE UINT32_MAX

static size_t lower_pt(const tp__gapidx *g, int64_t v) { /* first point >= v */
    size_t lo = 0, hi = g->n_pts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->pts[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void sort_i64(int64_t *v, size_t n) { /* heap sort: no recursion, no allocation */
    for (size_t k = n / 2; k-- > 0;) {
        for (size_t i = k;;) {
            size_t c = 2 * i + 1;
            if (c >= n) break;
            if (c + 1 < n && v[c + 1] > v[c]) c++;
            if (v[i] >= v[c]) break;
            int64_t t = v[i];
            v[i] = v[c];
            v[c] = t;
            i = c;
        }
    }
    for (size_t e = n; e-- > 1;) {
        int64_t t = v[0];
        v[0] = v[e];
        v[e] = t;
        for (size_t i = 0;;) {
            size_t c = 2 * i + 1;
            if (c >= e) break;
            if (c + 1 < e && v[c + 1] > v[c]) c++;
            if (v[i] >= v[c]) break;
            t = v[i];
            v[i] = v[c];
            v[c] = t;
            i = c;
        }
    }
}

static void clear_sets(tp__gapidx *g) {
    for (size_t i = 0; i < 2 * g->leaves; i++) {
        g->cover[i] = (tp__gx_set){0, 0, NO_BLOCK, 0};
        g->sub[i] = (tp__gx_set){0, 0, NO_BLOCK, 0};
    }
    g->pool_n = 0;
    for (int c = 0; c < 32; c++)
        g->free_head[c] = NONE;
}

tp_status tp__gx_init(tp__gapidx *g, const tp_buffer *bufs, size_t n, const tp_allocator *alloc,
                      tp_error *err) {
    memset(g, 0, sizeof *g);
    g->alloc = alloc;
    if (n >= ((size_t)1 << 31))
        return tp_error_set(err, TP_ERR_UNSUPPORTED, "gap index: %zu buffers (max 2^31 - 1)", n);
    g->pts_cap = n ? n : 1;
    g->pts = tp_mem_alloc(alloc, g->pts_cap * sizeof *g->pts);
    if (!g->pts) goto nomem;
    for (size_t i = 0; i < n; i++)
        g->pts[i] = bufs[i].birth;
    sort_i64(g->pts, n);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || g->pts[i] != g->pts[u - 1]) g->pts[u++] = g->pts[i];
    g->n_pts = u;
    g->leaves = 1;
    while (g->leaves < u)
        g->leaves <<= 1;
    g->cover = tp_mem_alloc(alloc, 2 * g->leaves * sizeof *g->cover);
    g->sub = tp_mem_alloc(alloc, 2 * g->leaves * sizeof *g->sub);
    if (!g->cover || !g->sub) goto nomem;
    clear_sets(g);
    return TP_OK;
nomem:
    tp__gx_free(g);
    return tp_error_set(err, TP_ERR_NOMEM, "gap index: out of memory for %zu buffers", n);
}

void tp__gx_free(tp__gapidx *g) {
    const tp_allocator *a = g->alloc;
    tp_mem_free(a, g->pts, g->pts_cap * sizeof *g->pts);
    if (g->cover) tp_mem_free(a, g->cover, 2 * g->leaves * sizeof *g->cover);
    if (g->sub) tp_mem_free(a, g->sub, 2 * g->leaves * sizeof *g->sub);
    tp_mem_free(a, g->pool, g->pool_cap * sizeof *g->pool);
    tp_mem_free(a, g->gmax, g->gmax_cap * sizeof *g->gmax);
    memset(g, 0, sizeof *g);
}

void tp__gx_clear(tp__gapidx *g) {
    if (g->cover) clear_sets(g);
}

/* A block of 2^cls runs: from the class's free list, else from the end of the pool. A block
 * with gap summaries starts at a multiple of 16 runs (its summaries at gmax[at / 16]). */
static bool block_alloc(tp__gapidx *g, uint32_t cls, uint32_t *at) {
    if (g->free_head[cls] != NONE) {
        *at = g->free_head[cls];
        g->free_head[cls] = (uint32_t)g->pool[*at].lo;
        return true;
    }
    size_t start = cls >= SUM_CLS ? (g->pool_n + 15) & ~(size_t)15 : g->pool_n;
    size_t need = start + ((size_t)1 << cls);
    if (need >= NONE) return false;
    if (need > g->pool_cap &&
        !tp_mem_grow(g->alloc, (void **)&g->pool, sizeof *g->pool, &g->pool_cap, need))
        return false;
    if (cls >= SUM_CLS &&
        !tp_mem_grow(g->alloc, (void **)&g->gmax, sizeof *g->gmax, &g->gmax_cap, need / 16))
        return false;
    *at = (uint32_t)start;
    g->pool_n = need;
    return true;
}

static void block_release(tp__gapidx *g, uint32_t at, uint32_t cls) {
    g->pool[at].lo = g->free_head[cls];
    g->free_head[cls] = at;
}

/* Add [lo, hi) to a set, joining every run it touches or overlaps. */
static bool set_add(tp__gapidx *g, tp__gx_set *s, uint64_t lo, uint64_t hi) {
    if (s->cls == NO_BLOCK) {
        if (!block_alloc(g, 1, &s->at)) return false;
        s->cls = 1;
    }
    tp__gx_run *r = g->pool + s->at;
    size_t n = s->n, a = 0, b = n;
    while (a < b) { /* first run with hi >= lo (runs are disjoint: his increase) */
        size_t mid = a + (b - a) / 2;
        if (r[mid].hi < lo)
            a = mid + 1;
        else
            b = mid;
    }
    size_t i = a, j = i;
    while (j < n && r[j].lo <= hi)
        j++;
    if (j == i + 1 && r[i].lo <= lo && hi <= r[i].hi) return true; /* already occupied */
    if (j > i) { /* join runs [i, j) and the new one into run i */
        if (r[i].lo < lo) lo = r[i].lo;
        if (r[j - 1].hi > hi) hi = r[j - 1].hi;
        r[i] = (tp__gx_run){lo, hi};
        memmove(r + i + 1, r + j, (n - j) * sizeof *r);
        s->n = (uint32_t)(n - (j - i - 1));
        if (i / 16 < s->dirty) s->dirty = (uint32_t)(i / 16);
        return true;
    }
    if (n + 1 > ((size_t)1 << s->cls)) {
        uint32_t at;
        if (s->cls >= 30 || !block_alloc(g, s->cls + 1, &at)) return false;
        r = g->pool + s->at; /* the pool may have moved */
        memcpy(g->pool + at, r, n * sizeof *r);
        block_release(g, s->at, s->cls);
        s->at = at;
        s->cls++;
        s->dirty = 0;
        r = g->pool + at;
    }
    memmove(r + i + 1, r + i, (n - i) * sizeof *r);
    r[i] = (tp__gx_run){lo, hi};
    s->n = (uint32_t)(n + 1);
    if (i / 16 < s->dirty) s->dirty = (uint32_t)(i / 16);
    return true;
}

/* Point range [*pl, *pr] of a lifetime; false when it holds no point. */
static bool point_range(const tp__gapidx *g, int64_t birth, int64_t death, size_t *pl, size_t *pr) {
    size_t l = lower_pt(g, birth);
    size_t r = death == INT64_MAX ? g->n_pts : lower_pt(g, death + 1);
    if (l >= r) return false;
    *pl = l;
    *pr = r - 1;
    return true;
}

/* Node x at level h (leaves: 0) is inside [pl, pr]. */
static bool inside(const tp__gapidx *g, size_t x, unsigned h, size_t pl, size_t pr) {
    size_t first = (x - (g->leaves >> h)) << h, last = first + ((size_t)1 << h) - 1;
    return first >= pl && last <= pr;
}

tp_status tp__gx_insert(tp__gapidx *g, int64_t birth, int64_t death, uint64_t lo, uint64_t hi,
                        tp_error *err) {
    size_t pl, pr;
    if (!point_range(g, birth, death, &pl, &pr)) return TP_OK;
    bool ok = true;
    for (size_t l = pl + g->leaves, r = pr + g->leaves + 1; l < r; l >>= 1, r >>= 1) {
        if (l & 1) {
            ok = ok && set_add(g, &g->cover[l], lo, hi) && set_add(g, &g->sub[l], lo, hi);
            l++;
        }
        if (r & 1) {
            r--;
            ok = ok && set_add(g, &g->cover[r], lo, hi) && set_add(g, &g->sub[r], lo, hi);
        }
    }
    unsigned h = 1;
    for (size_t a = (pl + g->leaves) >> 1, b = (pr + g->leaves) >> 1; a >= 1; a >>= 1, b >>= 1) {
        if (!inside(g, a, h, pl, pr)) ok = ok && set_add(g, &g->sub[a], lo, hi);
        if (b != a && !inside(g, b, h, pl, pr)) ok = ok && set_add(g, &g->sub[b], lo, hi);
        h++;
    }
    if (!ok) return tp_error_set(err, TP_ERR_NOMEM, "gap index: out of memory for occupied runs");
    return TP_OK;
}

/* The non-empty sets whose union is the occupancy over [birth, death], into g->qs. */
static void gather(tp__gapidx *g, int64_t birth, int64_t death) {
    g->n_qs = 0;
    size_t pl, pr;
    if (!point_range(g, birth, death, &pl, &pr)) return;
    for (size_t l = pl + g->leaves, r = pr + g->leaves + 1; l < r; l >>= 1, r >>= 1) {
        if (l & 1) {
            if (g->sub[l].n) g->qs[g->n_qs++] = &g->sub[l];
            l++;
        }
        if (r & 1) {
            r--;
            if (g->sub[r].n) g->qs[g->n_qs++] = &g->sub[r];
        }
    }
    unsigned h = 1;
    for (size_t a = (pl + g->leaves) >> 1, b = (pr + g->leaves) >> 1; a >= 1; a >>= 1, b >>= 1) {
        if (g->cover[a].n && !inside(g, a, h, pl, pr)) g->qs[g->n_qs++] = &g->cover[a];
        if (b != a && g->cover[b].n && !inside(g, b, h, pl, pr)) g->qs[g->n_qs++] = &g->cover[b];
        h++;
    }
}

/* ---- walking the union of the gathered sets upwards ----
 * A min-heap of per-set cursors keyed by the start of the cursor's run: the k-way merge of
 * the sets in offset order, so each run passed costs O(log m) for m sets. */
typedef tp__gx_cursor cursor;
typedef tp__gx_walker walker;

/* Sift the cursor at heap slot i down (hole method: one store per level). */
static void heap_down(walker *w, size_t i) {
    uint8_t x = w->hp[i];
    uint64_t k = w->c[x].lo;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= w->n) break;
        if (c + 1 < w->n && w->c[w->hp[c + 1]].lo < w->c[w->hp[c]].lo) c++;
        if (k <= w->c[w->hp[c]].lo) break;
        w->hp[i] = w->hp[c];
        i = c;
    }
    w->hp[i] = x;
}

/* Move the top cursor to its first run at or after position a with hi > q, or drop it. */
static void advance_top(walker *w, size_t a, uint64_t q) {
    cursor *c = &w->c[w->hp[0]];
    size_t b = c->n;
    if (a < b && c->r[a].hi <= q)
        while (a < b) {
            size_t mid = a + (b - a) / 2;
            if (c->r[mid].hi <= q)
                a = mid + 1;
            else
                b = mid;
        }
    if (a < c->n) {
        c->pos = (uint32_t)a;
        c->lo = c->r[a].lo;
    } else {
        w->hp[0] = w->hp[--w->n];
    }
    if (w->n) heap_down(w, 0);
}

static void walker_init(walker *w, const tp__gapidx *g) {
    w->n = 0;
    for (size_t k = 0; k < g->n_qs; k++) {
        const tp__gx_set *set = g->qs[k];
        cursor *c = &w->c[k];
        c->r = g->pool + set->at;
        c->pos = 0;
        c->n = set->n;
        c->lo = c->r[0].lo;
        w->hp[w->n++] = (uint8_t)k;
    }
    for (size_t i = w->n / 2; i-- > 0;)
        heap_down(w, i);
}

/* From q (aligned), the lowest aligned q' >= q such that [q', q' + s) meets no run; *floor
 * = the highest end of the runs passed (or its value on entry when higher), *ceil = the
 * start of the first run above (UINT64_MAX: none). False on overflow (*floor = the
 * offending value). The top cursor's own following runs are jumped in place while they
 * block, so the heap is touched only when the blocking run comes from another set. */
static bool walk_fit(walker *w, uint64_t q, uint64_t s, uint64_t align, uint64_t *q_out,
                     uint64_t *floor, uint64_t *ceil) {
    uint64_t end;
    if (!tp_add_u64(q, s, &end)) {
        *floor = q;
        return false;
    }
    while (w->n && w->c[w->hp[0]].lo < end) {
        cursor *c = &w->c[w->hp[0]];
        size_t a = c->pos;
        while (a < c->n && c->r[a].lo < end) {
            uint64_t hi = c->r[a].hi;
            if (hi > *floor) *floor = hi;
            if (hi > q) { /* meets [q, end): jump over it */
                if (!tp_align_up_u64(hi, align, &q) || !tp_add_u64(q, s, &end)) {
                    *floor = hi;
                    return false;
                }
            }
            a++;
        }
        advance_top(w, a, q);
    }
    *ceil = w->n ? w->c[w->hp[0]].lo : UINT64_MAX;
    *q_out = q;
    return true;
}

tp_status tp__gx_best(tp__gapidx *g, int64_t birth, int64_t death, uint64_t s, uint64_t align,
                      int max_gaps, uint64_t *q_out, tp_error *err) {
    gather(g, birth, death);
    walker *w = &g->walk;
    walker_init(w, g);
    uint64_t q = 0, floor = 0, ceil = 0, best_off = 0, best_gap = UINT64_MAX, top = 0;
    bool found = false;
    uint64_t resume_floor = 0;
    for (int k = 0;; k++) {
        floor = resume_floor;
        if (!walk_fit(w, q, s, align, &q, &floor, &ceil)) goto overflow;
        if (ceil == UINT64_MAX) { /* the open space above everything */
            top = q;
            break;
        }
        if (ceil - floor < best_gap) { /* gap [floor, ceil) holds [q, q + s) */
            best_gap = ceil - floor;
            best_off = q;
            found = true;
            if (best_gap == s) break; /* nothing tighter exists */
        }
        if (k + 1 >= max_gaps) break;
        resume_floor = ceil;
        if (!tp_align_up_u64(ceil, align, &q)) goto overflow; /* resume above this gap */
    }
    if (!found) best_off = top;
    *q_out = best_off;
    return TP_OK;
overflow:
    return tp_error_set(err, TP_ERR_OVERFLOW,
                        "best fit: an offset above %llu passes 2^64 (size %llu)",
                        (unsigned long long)floor, (unsigned long long)s);
}

/* ---- lowest fit: leapfrogging over the gathered sets ----
 * Each set answers "the lowest aligned q' >= q where [q', q' + s) is free of my runs" on its
 * own, skipping every gap narrower than s (summaries of 16 runs at a time); q moves to
 * that answer, and the sets are asked in turn until all of them accept the same q. Every
 * aligned value skipped is blocked by one set, so the result is the lowest aligned q that
 * all accept: the same answer as the merged walk, which passes every run below it. */

/* Gap before run i of r (from 0 for the first run). */
static uint64_t gap_before(const tp__gx_run *r, size_t i) {
    return r[i].lo - (i ? r[i - 1].hi : 0);
}

/* Bring the summaries of set s up to block j (inclusive) and return gmax of block j. */
static uint64_t summary(tp__gapidx *g, tp__gx_set *s, size_t j) {
    uint64_t *m = g->gmax + s->at / 16;
    const tp__gx_run *r = g->pool + s->at;
    for (size_t b = s->dirty; b <= j; b++) {
        size_t i = 16 * b, e = i + 16 < s->n ? i + 16 : s->n;
        uint64_t w = 0;
        for (; i < e; i++) {
            uint64_t v = gap_before(r, i);
            if (v > w) w = v;
        }
        m[b] = w;
    }
    if (j + 1 > s->dirty) s->dirty = (uint32_t)(j + 1);
    return m[j];
}

/* The first run k >= i of s with a gap of at least w before it; s->n when none. */
static size_t wide_gap(tp__gapidx *g, tp__gx_set *s, size_t i, uint64_t w) {
    const tp__gx_run *r = g->pool + s->at;
    size_t n = s->n, k = i;
    size_t e = s->cls >= SUM_CLS ? (k | 15) + 1 : n; /* to the end of k's summary block */
    for (; k < n && k < e; k++)
        if (gap_before(r, k) >= w) return k;
    if (k >= n || s->cls < SUM_CLS) return n;
    for (size_t b = k / 16, nb = (n + 15) / 16; b < nb; b++) {
        if (summary(g, s, b) < w) continue;
        for (k = 16 * b; k < n; k++)
            if (gap_before(r, k) >= w) return k;
    }
    return n;
}

/* Lowest aligned q' >= q (aligned) with [q', q' + s) free of the runs of set `set`; *cur: the
 * first run ending above the last q asked (monotone: q only grows during one query). False
 * when an aligned end passes 2^64 (*blocker = the offending end). */
static bool set_fit(tp__gapidx *g, tp__gx_set *set, uint32_t *cur, uint64_t q, uint64_t s,
                    uint64_t align, uint64_t *q_out, uint64_t *blocker) {
    const tp__gx_run *r = g->pool + set->at;
    size_t n = set->n, a = *cur;
    for (;;) {
        uint64_t end;
        if (!tp_add_u64(q, s, &end)) {
            *blocker = q;
            return false;
        }
        if (a < n && r[a].hi <= q) { /* gallop, then binary search */
            size_t lo = a, step = 1;
            while (a + step < n && r[a + step].hi <= q) {
                lo = a + step;
                step *= 2;
            }
            size_t hi = a + step < n ? a + step : n;
            a = lo + 1;
            while (a < hi) {
                size_t mid = a + (hi - a) / 2;
                if (r[mid].hi <= q)
                    a = mid + 1;
                else
                    hi = mid;
            }
        }
        if (a >= n || r[a].lo >= end) { /* nothing of this set meets [q, end) */
            *cur = (uint32_t)a;
            *q_out = q;
            return true;
        }
        /* run a blocks; every gap narrower than s after it cannot hold [q', q' + s) */
        size_t k = wide_gap(g, set, a + 1, s);
        if (!tp_align_up_u64(r[k - 1].hi, align, &q)) {
            *blocker = r[k - 1].hi;
            return false;
        }
        a = k;
    }
}

bool tp__gx_lowest(tp__gapidx *g, int64_t birth, int64_t death, uint64_t s, uint64_t align,
                   uint64_t *q_out, uint64_t *blocker) {
    gather(g, birth, death);
    size_t m = g->n_qs;
    for (size_t k = 0; k < m; k++) {
        g->qcur[k] = 0;
        g->qord[k] = (uint8_t)k;
    }
    uint64_t q = 0;
    /* ask the sets in qord order; the one that moved q goes to the front (the sets that
     * block tend to block again), and the scan restarts behind it */
    for (size_t i = 0; i < m;) {
        uint8_t k = g->qord[i];
        uint64_t nq;
        if (!set_fit(g, g->qs[k], &g->qcur[k], q, s, align, &nq, blocker)) return false;
        if (nq == q) {
            i++;
            continue;
        }
        q = nq;
        memmove(g->qord + 1, g->qord, i);
        g->qord[0] = k;
        i = 1;
    }
    *q_out = q;
    return true;
}
