/* BEST_FIT: several placement orders x {best-fit gap, first-fit gap}, keeping the
 * smallest arena.
 *
 * For each order the buffers are placed one at a time. The placed buffers whose
 * lifetimes overlap the new one are found with a static max-segment tree over the
 * buffers sorted by birth (a node holds the largest death among placed buffers of its
 * range), so a query costs O((k + 1) log n) for k overlapping buffers. Their byte ranges
 * are sorted and swept for gaps: best-fit takes the smallest gap that holds the buffer
 * (ties: the lowest), first-fit the lowest; without a fitting gap the buffer goes on top.
 * A run stops early once its arena reaches the best arena found so far.
 */
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"

typedef struct sort_key {
    uint64_t k1, k2;
    size_t idx;
} sort_key;

static int cmp_key_desc(const void *a, const void *b) {
    const sort_key *x = a, *y = b;
    if (x->k1 != y->k1) return x->k1 > y->k1 ? -1 : 1;
    if (x->k2 != y->k2) return x->k2 > y->k2 ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

typedef struct span {
    uint64_t lo, hi;
} span;

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

typedef struct bf_ctx {
    const tp_buffer *bufs;
    size_t n;
    uint64_t opt_align;
    size_t *by_birth; /* buffer indices sorted by birth */
    size_t *pos;      /* buffer index -> position in by_birth */
    size_t leaves;
    int64_t *tree; /* 2*leaves: max death of placed buffers, INT64_MIN = none */
    uint32_t *hits;
    span *spans;
    uint64_t *off; /* working offsets */
    /* per-birth-point lists (used when the lifetimes are short; else the tree):
     * point p = the p-th distinct birth; lst holds, for each point, the placed buffers
     * alive at it */
    bool use_lists;
    size_t n_pt, n_lst;
    size_t *pt_first;  /* n_pt + 1: first by_birth position of each point */
    uint32_t *pt_of;   /* buffer -> point of its birth */
    uint32_t *pt_last; /* buffer -> last point inside its lifetime */
    size_t *lst_start; /* n_pt + 1 */
    uint32_t *lst_fill, *lst;
    uint8_t *placed;
} bf_ctx;

static int cmp_birth_ctx_dummy(const void *a, const void *b) {
    const sort_key *x = a, *y = b;
    if (x->k1 != y->k1) return x->k1 < y->k1 ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

static void tree_reset(bf_ctx *c) {
    for (size_t i = 0; i < 2 * c->leaves; i++)
        c->tree[i] = INT64_MIN;
}

static void tree_insert(bf_ctx *c, size_t item) {
    size_t p = c->leaves + c->pos[item];
    int64_t d = c->bufs[item].death;
    while (p >= 1) {
        if (c->tree[p] >= d) break;
        c->tree[p] = d;
        p >>= 1;
    }
}

/* Collect placed buffers with birth <= death_q (prefix [0, k) of by_birth) and
 * death >= birth_q. Iterative descent. */
static size_t tree_query(bf_ctx *c, size_t k, int64_t birth_q) {
    size_t nh = 0;
    if (k == 0) return 0;
    size_t stack[128];
    size_t sp = 0;
    size_t lo_of[128], hi_of[128];
    stack[sp] = 1;
    lo_of[sp] = 0;
    hi_of[sp] = c->leaves;
    sp++;
    while (sp) {
        sp--;
        size_t node = stack[sp], lo = lo_of[sp], hi = hi_of[sp];
        if (lo >= k || c->tree[node] < birth_q) continue;
        if (node >= c->leaves) {
            c->hits[nh++] = (uint32_t)c->by_birth[lo];
            continue;
        }
        size_t mid = lo + (hi - lo) / 2;
        stack[sp] = 2 * node + 1;
        lo_of[sp] = mid;
        hi_of[sp] = hi;
        sp++;
        stack[sp] = 2 * node;
        lo_of[sp] = lo;
        hi_of[sp] = mid;
        sp++;
    }
    return nh;
}

/* Number of buffers with birth <= t (upper bound in by_birth). */
static size_t prefix_upto(const bf_ctx *c, int64_t t) {
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

static void idx_reset(bf_ctx *c) {
    if (!c->use_lists) {
        tree_reset(c);
        return;
    }
    memset(c->lst_fill, 0, c->n_pt * sizeof *c->lst_fill);
    memset(c->placed, 0, c->n);
}

static void idx_insert(bf_ctx *c, size_t item) {
    if (!c->use_lists) {
        tree_insert(c, item);
        return;
    }
    c->placed[item] = 1;
    for (uint32_t p = c->pt_of[item]; p <= c->pt_last[item]; p++)
        c->lst[c->lst_start[p] + c->lst_fill[p]++] = (uint32_t)item;
}

/* Every placed buffer whose lifetime overlaps buffer q's, into c->hits. */
static size_t idx_query(bf_ctx *c, size_t q) {
    const tp_buffer *b = &c->bufs[q];
    if (!c->use_lists) return tree_query(c, prefix_upto(c, b->death), b->birth);
    size_t nh = 0;
    uint32_t p = c->pt_of[q];
    for (size_t e = c->lst_start[p], end = e + c->lst_fill[p]; e < end; e++)
        c->hits[nh++] = c->lst[e]; /* alive at q's birth (born at or before it) */
    size_t k2 = prefix_upto(c, b->death);
    for (size_t k = c->pt_first[p + 1]; k < k2; k++) /* born later, inside q's lifetime */
        if (c->placed[c->by_birth[k]]) c->hits[nh++] = (uint32_t)c->by_birth[k];
    return nh;
}

/* Build the per-point lists when their total size stays within 32 entries per buffer. */
static tp_status lists_init(bf_ctx *c, const tp_allocator *alloc, tp_error *err) {
    size_t n = c->n;
    c->use_lists = false;
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
        if (total > 32 * (size_t)n + 1024) return TP_OK; /* long lifetimes: use the tree */
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
    c->use_lists = true;
    return TP_OK;
nomem:
    return tp_error_set(err, TP_ERR_NOMEM, "bestfit: out of memory for %zu buffers", n);
}

static void lists_free(bf_ctx *c, const tp_allocator *alloc) {
    size_t n = c->n;
    tp_mem_free(alloc, c->pt_first, (n + 1) * sizeof *c->pt_first);
    tp_mem_free(alloc, c->pt_of, n * sizeof *c->pt_of);
    tp_mem_free(alloc, c->pt_last, n * sizeof *c->pt_last);
    tp_mem_free(alloc, c->lst_start, (c->n_pt + 1) * sizeof *c->lst_start);
    tp_mem_free(alloc, c->lst_fill, c->n_pt * sizeof *c->lst_fill);
    tp_mem_free(alloc, c->lst, c->n_lst * sizeof *c->lst);
    tp_mem_free(alloc, c->placed, n);
}

/* Place every buffer of `order` (fixed ones first). best_fit selects the rule.
 * Returns TP_OK with *arena, TP_ERR_OVERFLOW, or TP_ERR_INFEASIBLE when the arena
 * would reach `stop_at` (early exit; not an error for the caller). */
static tp_status run_order(bf_ctx *c, const size_t *order, size_t n_order, bool best_fit,
                           uint64_t stop_at, uint64_t *arena, tp_error *err) {
    const tp_buffer *bufs = c->bufs;
    uint64_t top = 0;
    idx_reset(c);
    for (size_t i = 0; i < c->n; i++) {
        if (bufs[i].fixed_offset >= 0) {
            c->off[i] = (uint64_t)bufs[i].fixed_offset;
            uint64_t end = c->off[i] + tp__alloc_psize(&bufs[i]);
            if (end > top) top = end;
            if (tp__alloc_psize(&bufs[i]) > 0) idx_insert(c, i);
        } else if (tp__alloc_psize(&bufs[i]) == 0) {
            c->off[i] = 0; /* a zero-size buffer conflicts with nothing at 0 */
        }
    }
    if (stop_at != UINT64_MAX && top >= stop_at) return TP_ERR_INFEASIBLE;
    for (size_t oi = 0; oi < n_order; oi++) {
        size_t i = order[oi];
        const tp_buffer *b = &bufs[i];
        uint64_t size = tp__alloc_psize(b), al = tp__alloc_align(b, c->opt_align);
        size_t nh = idx_query(c, i);
        for (size_t h = 0; h < nh; h++) {
            uint32_t j = c->hits[h];
            c->spans[h].lo = c->off[j];
            c->spans[h].hi = c->off[j] + tp__alloc_psize(&bufs[j]);
        }
        sort_spans(c->spans, nh);
        uint64_t cur = 0, best_off = 0, best_gap = UINT64_MAX;
        bool found = false;
        for (size_t h = 0; h < nh; h++) {
            if (c->spans[h].lo > cur) {
                uint64_t a;
                if (tp_align_up_u64(cur, al, &a) && a <= c->spans[h].lo &&
                    c->spans[h].lo - a >= size) {
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
        if (!found && !tp_align_up_u64(cur, al, &best_off))
            return tp_error_set(err, TP_ERR_OVERFLOW,
                                "bestfit: offset of buffer %zu (id %lld) overflows 64 bits", i,
                                (long long)b->id);
        uint64_t end;
        if (!tp_add_u64(best_off, size, &end))
            return tp_error_set(err, TP_ERR_OVERFLOW,
                                "bestfit: end of buffer %zu (id %lld, size %llu) overflows 64 bits",
                                i, (long long)b->id, (unsigned long long)size);
        c->off[i] = best_off;
        if (end > top) top = end;
        if (stop_at != UINT64_MAX && top >= stop_at) return TP_ERR_INFEASIBLE;
        idx_insert(c, i);
    }
    *arena = top;
    return TP_OK;
}

/* Orders: size, breadth (the most crowded step of the lifetime; "greedy by breadth"),
 * start time, lifetime length, area, size class (power of two) then start time. */
enum { ORD_SIZE, ORD_BREADTH, ORD_START, ORD_LENGTH, ORD_AREA, ORD_CLASS, ORD_COUNT };
#define LARGE_N 20000u

static uint64_t length_of(const tp_buffer *b) {
    return (uint64_t)(b->death - b->birth) + 1;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static size_t time_index(const int64_t *t, size_t nt, int64_t v) { /* first t[i] >= v */
    size_t lo = 0, hi = nt;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* breadth[i] = the largest sum of live placement sizes at any step of buffer i's lifetime
 * (saturating). Falls back to the buffer's own size when the sums pass 2^64. */
static tp_status compute_breadth(const tp_buffer *bufs, size_t n, const tp_allocator *alloc,
                                 uint64_t *breadth, tp_error *err) {
    uint64_t all = 0;
    bool sat = false;
    for (size_t i = 0; i < n; i++)
        if (!tp_add_u64(all, tp__alloc_psize(&bufs[i]), &all)) sat = true;
    if (sat) {
        for (size_t i = 0; i < n; i++)
            breadth[i] = tp__alloc_psize(&bufs[i]);
        return TP_OK;
    }
    size_t nt = 0, leaves = 1;
    int64_t *t = tp_mem_alloc(alloc, 2 * n * sizeof *t);
    uint64_t *tree = NULL;
    if (!t) goto nomem;
    for (size_t i = 0; i < n; i++) {
        t[nt++] = bufs[i].birth;
        if (bufs[i].death < INT64_MAX) t[nt++] = bufs[i].death + 1;
    }
    qsort(t, nt, sizeof *t, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < nt; i++)
        if (u == 0 || t[i] != t[u - 1]) t[u++] = t[i];
    nt = u;
    while (leaves < nt + 1)
        leaves <<= 1;
    tree = tp_mem_calloc(alloc, 2 * leaves, sizeof *tree);
    if (!tree) goto nomem;
    /* difference array in the leaves (wrapping is exact: no prefix passes `all`) */
    for (size_t i = 0; i < n; i++) {
        uint64_t ps = tp__alloc_psize(&bufs[i]);
        tree[leaves + time_index(t, nt, bufs[i].birth)] += ps;
        if (bufs[i].death < INT64_MAX) tree[leaves + time_index(t, nt, bufs[i].death + 1)] -= ps;
    }
    for (size_t i = 1; i < leaves; i++)
        tree[leaves + i] += tree[leaves + i - 1];
    for (size_t i = leaves - 1; i >= 1; i--)
        tree[i] = tree[2 * i] > tree[2 * i + 1] ? tree[2 * i] : tree[2 * i + 1];
    for (size_t i = 0; i < n; i++) {
        size_t lo = leaves + time_index(t, nt, bufs[i].birth);
        size_t hi = bufs[i].death < INT64_MAX ? time_index(t, nt, bufs[i].death + 1) - 1 : nt - 1;
        hi += leaves + 1; /* half-open */
        uint64_t best = 0;
        while (lo < hi) {
            if (lo & 1) {
                if (tree[lo] > best) best = tree[lo];
                lo++;
            }
            if (hi & 1) {
                hi--;
                if (tree[hi] > best) best = tree[hi];
            }
            lo >>= 1;
            hi >>= 1;
        }
        breadth[i] = best;
    }
    tp_mem_free(alloc, t, 2 * n * sizeof *t);
    tp_mem_free(alloc, tree, 2 * leaves * sizeof *tree);
    return TP_OK;
nomem:
    tp_mem_free(alloc, t, 2 * n * sizeof *t);
    return tp_error_set(err, TP_ERR_NOMEM, "bestfit: out of memory for %zu buffers", n);
}

static void make_keys(const tp_buffer *bufs, const uint64_t *breadth, const size_t *items, size_t m,
                      int ord, sort_key *k) {
    for (size_t t = 0; t < m; t++) {
        const tp_buffer *b = &bufs[items[t]];
        uint64_t sz = tp__alloc_psize(b), len = length_of(b);
        k[t].idx = items[t];
        switch (ord) {
        case ORD_SIZE:
            k[t].k1 = sz;
            k[t].k2 = len;
            break;
        case ORD_AREA:
            k[t].k1 = tp_sat_mul_u64(sz, len);
            k[t].k2 = sz;
            break;
        case ORD_LENGTH:
            k[t].k1 = len;
            k[t].k2 = sz;
            break;
        case ORD_START: /* earliest birth first, then largest */
            k[t].k1 = UINT64_MAX - (uint64_t)b->birth;
            k[t].k2 = sz;
            break;
        case ORD_CLASS: { /* size class (power of two) first, then earliest birth */
            int cls = 0;
            for (uint64_t v = sz; v > 1; v >>= 1)
                cls++;
            k[t].k1 = (uint64_t)cls;
            k[t].k2 = UINT64_MAX - (uint64_t)b->birth;
            break;
        }
        case ORD_BREADTH: /* most crowded lifetime first, then largest */
            k[t].k1 = breadth[items[t]];
            k[t].k2 = sz;
            break;
        default:
            k[t].k1 = sz;
            k[t].k2 = len;
            break;
        }
    }
    qsort(k, m, sizeof *k, cmp_key_desc);
}

tp_status tp__alloc_bestfit_ex(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                               const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                               tp_bestfit_info *info, tp_error *err) {
    if (info) memset(info, 0, sizeof *info);
    *arena = 0;
    if (n == 0) return TP_OK;
    if (n > UINT32_MAX)
        return tp_error_set(err, TP_ERR_UNSUPPORTED, "bestfit: %zu buffers (max %u)", n,
                            UINT32_MAX);
    tp_status st = TP_OK;
    bf_ctx c;
    memset(&c, 0, sizeof c);
    c.bufs = bufs;
    c.n = n;
    c.opt_align = opt->alignment;
    c.leaves = 1;
    while (c.leaves < n)
        c.leaves <<= 1;
    size_t m = 0;
    size_t *items = NULL, *order = NULL;
    sort_key *keys = NULL;
    uint64_t *breadth = NULL;
    c.by_birth = tp_mem_alloc(alloc, n * sizeof *c.by_birth);
    c.pos = tp_mem_alloc(alloc, n * sizeof *c.pos);
    c.tree = tp_mem_alloc(alloc, 2 * c.leaves * sizeof *c.tree);
    c.hits = tp_mem_alloc(alloc, n * sizeof *c.hits);
    c.spans = tp_mem_alloc(alloc, n * sizeof *c.spans);
    c.off = tp_mem_alloc(alloc, n * sizeof *c.off);
    items = tp_mem_alloc(alloc, n * sizeof *items);
    order = tp_mem_alloc(alloc, n * sizeof *order);
    keys = tp_mem_alloc(alloc, n * sizeof *keys);
    breadth = tp_mem_alloc(alloc, n * sizeof *breadth);
    if (!breadth || !c.by_birth || !c.pos || !c.tree || !c.hits || !c.spans || !c.off || !items ||
        !order || !keys) {
        st = tp_error_set(err, TP_ERR_NOMEM, "bestfit: out of memory for %zu buffers", n);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        keys[i].k1 = (uint64_t)bufs[i].birth;
        keys[i].k2 = 0;
        keys[i].idx = i;
    }
    qsort(keys, n, sizeof *keys, cmp_birth_ctx_dummy);
    for (size_t i = 0; i < n; i++) {
        c.by_birth[i] = keys[i].idx;
        c.pos[keys[i].idx] = i;
    }
    for (size_t i = 0; i < n; i++)
        if (bufs[i].fixed_offset < 0 && tp__alloc_psize(&bufs[i]) > 0) items[m++] = i;
    st = lists_init(&c, alloc, err);
    if (st != TP_OK) goto done;

    /* (order, best-fit?) runs; above LARGE_N buffers only the four that win on
     * graph-like sets (the others rarely do and each run costs a full pass) */
    static const struct {
        int ord;
        bool best_fit;
    } all_runs[] = {{ORD_CLASS, true},  {ORD_SIZE, true},    {ORD_START, true},
                    {ORD_SIZE, false},  {ORD_BREADTH, true}, {ORD_BREADTH, false},
                    {ORD_START, false}, {ORD_LENGTH, true},  {ORD_LENGTH, false},
                    {ORD_AREA, true},   {ORD_AREA, false}};
    size_t n_runs = m > LARGE_N ? 4 : sizeof all_runs / sizeof all_runs[0];
    if (m <= LARGE_N) {
        st = compute_breadth(bufs, n, alloc, breadth, err);
        if (st != TP_OK) goto done;
    }
    uint64_t best = UINT64_MAX;
    bool have = false;
    int keyed = -1;
    for (size_t run = 0; run < n_runs; run++) {
        int ord = all_runs[run].ord;
        if (ord != keyed) {
            make_keys(bufs, breadth, items, m, ord, keys);
            for (size_t t = 0; t < m; t++)
                order[t] = keys[t].idx;
            keyed = ord;
        }
        uint64_t a = 0;
        st = run_order(&c, order, m, all_runs[run].best_fit, best, &a, err);
        if (st == TP_ERR_INFEASIBLE) { /* not better than the best so far */
            st = TP_OK;
            continue;
        }
        if (st != TP_OK) goto done;
        if (!have || a < best) {
            best = a;
            have = true;
            memcpy(offsets, c.off, n * sizeof *offsets);
            if (info) {
                info->order = ord;
                info->best_fit = all_runs[run].best_fit;
            }
        }
        if (m == 0) break;
    }
    *arena = best;
done:
    lists_free(&c, alloc);
    tp_mem_free(alloc, c.by_birth, n * sizeof *c.by_birth);
    tp_mem_free(alloc, c.pos, n * sizeof *c.pos);
    tp_mem_free(alloc, c.tree, 2 * c.leaves * sizeof *c.tree);
    tp_mem_free(alloc, c.hits, n * sizeof *c.hits);
    tp_mem_free(alloc, c.spans, n * sizeof *c.spans);
    tp_mem_free(alloc, c.off, n * sizeof *c.off);
    tp_mem_free(alloc, items, n * sizeof *items);
    tp_mem_free(alloc, order, n * sizeof *order);
    tp_mem_free(alloc, keys, n * sizeof *keys);
    tp_mem_free(alloc, breadth, n * sizeof *breadth);
    return st;
}

tp_status tp__alloc_bestfit(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                            const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                            tp_error *err) {
    return tp__alloc_bestfit_ex(bufs, n, opt, alloc, offsets, arena, NULL, err);
}
