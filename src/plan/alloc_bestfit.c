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
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"
#include "plan/gap_index.h"
#include "plan/live_lists.h"

typedef struct bf_ctx {
    const tp_buffer *bufs;
    size_t n;
    uint64_t opt_align;
    bool use_lists; /* short lifetimes: the live lists, else the gap index */
    tp__live_lists ll;
    tp__gapidx gx;
    double deadline; /* monotonic seconds; 0: none */
    /* progress reports (opt->progress), about once a second */
    const tp_alloc_options *opt;
    const tp_allocator *alloc;
    double start, next_progress;
    uint64_t best, lb; /* best arena so far (UINT64_MAX: none yet); lower bound (0: unknown) */
    uint64_t *off;     /* working offsets */
} bf_ctx;

/* Report the best arena so far when a second has passed since the last report. */
static void maybe_progress(bf_ctx *c) {
    if (!c->opt->progress || c->best == UINT64_MAX) return;
    double now = tp__xs_now();
    if (now < c->next_progress) return;
    if (c->lb == 0) { /* once; on failure the report just has no bound */
        tp_error e;
        if (tp_alloc_lower_bound(c->bufs, c->n, c->alloc, &c->lb, &e) != TP_OK) c->lb = 0;
    }
    c->opt->progress(c->opt->progress_ctx, now - c->start, c->best, c->lb);
    c->next_progress = now + 1.0;
}

/* Place every buffer of `order` (fixed ones first). best_fit selects the rule.
 * Returns TP_OK with *arena, TP_ERR_OVERFLOW, TP_ERR_NOMEM, TP_ERR_INFEASIBLE when the
 * arena would reach `stop_at`, or TP_ERR_TIMEOUT past the deadline (both early exits, not
 * errors for the caller). */
/* Keep the plan of the last run (c->off, arena a) when it is the first or beats the
 * best so far, recording which order and rule produced it. */
static void keep_if_better(bf_ctx *c, uint64_t a, uint64_t *offsets, size_t n, bool *have,
                           uint64_t *best, tp_bestfit_info *info, int ord, bool best_fit) {
    if (*have && a >= *best) return;
    if (!*have && info) info->first_plan_at = tp__xs_now();
    *best = c->best = a;
    *have = true;
    memcpy(offsets, c->off, n * sizeof *offsets);
    if (info) {
        info->order = ord;
        info->best_fit = best_fit;
    }
}

static tp_status run_order(bf_ctx *c, const size_t *order, size_t n_order, bool best_fit,
                           uint64_t stop_at, uint64_t *arena, tp_error *err) {
    const tp_buffer *bufs = c->bufs;
    uint64_t top = 0;
    tp_status st = TP_OK;
    if (c->use_lists)
        tp__ll_reset(&c->ll);
    else
        tp__gx_clear(&c->gx);
    for (size_t i = 0; i < c->n && st == TP_OK; i++) {
        if (bufs[i].fixed_offset >= 0) {
            c->off[i] = (uint64_t)bufs[i].fixed_offset;
            uint64_t end = c->off[i] + tp__alloc_psize(&bufs[i]);
            if (end > top) top = end;
            if (c->use_lists) {
                if (end > c->off[i]) tp__ll_insert(&c->ll, i);
            } else {
                st = tp__gx_insert(&c->gx, bufs[i].birth, bufs[i].death, c->off[i], end, err);
            }
        } else if (tp__alloc_psize(&bufs[i]) == 0) {
            c->off[i] = 0; /* a zero-size buffer conflicts with nothing at 0 */
        }
    }
    if (st != TP_OK) return st;
    if (stop_at != UINT64_MAX && top >= stop_at) return TP_ERR_INFEASIBLE;
    for (size_t oi = 0; oi < n_order; oi++) {
        size_t i = order[oi];
        const tp_buffer *b = &bufs[i];
        uint64_t size = tp__alloc_psize(b), al = tp__alloc_align(b, c->opt_align), q = 0, blk = 0;
        if (c->use_lists) {
            if (!tp__ll_place(&c->ll, i, c->off, c->opt_align, best_fit, &q))
                return tp_error_set(err, TP_ERR_OVERFLOW,
                                    "bestfit: offset of buffer %zu (id %lld) overflows 64 bits", i,
                                    (long long)b->id);
        } else if (best_fit) {
            st = tp__gx_best(&c->gx, b->birth, b->death, size, al, INT_MAX, &q, err);
            if (st != TP_OK) return st;
        } else if (!tp__gx_lowest(&c->gx, b->birth, b->death, size, al, &q, &blk)) {
            return tp_error_set(err, TP_ERR_OVERFLOW,
                                "bestfit: offset of buffer %zu (id %lld) overflows 64 bits", i,
                                (long long)b->id);
        }
        uint64_t end;
        if (!tp_add_u64(q, size, &end))
            return tp_error_set(err, TP_ERR_OVERFLOW,
                                "bestfit: end of buffer %zu (id %lld, size %llu) overflows 64 bits",
                                i, (long long)b->id, (unsigned long long)size);
        c->off[i] = q;
        if (end > top) top = end;
        if (stop_at != UINT64_MAX && top >= stop_at) return TP_ERR_INFEASIBLE;
        if (tp__xs_clock_due(oi) && c->deadline > 0 && tp__xs_now() >= c->deadline)
            return TP_ERR_TIMEOUT;
        if ((oi & 1023) == 1023) maybe_progress(c);
        if (c->use_lists) {
            tp__ll_insert(&c->ll, i);
        } else {
            st = tp__gx_insert(&c->gx, b->birth, b->death, q, q + size, err);
            if (st != TP_OK) return st;
        }
    }
    *arena = top;
    return TP_OK;
}

/* Orders: size, breadth (the most crowded step of the lifetime; "greedy by breadth"),
 * start time, lifetime length, area, size class (power of two) then start time, (the
 * sweep), quarter size class (four classes per power of two) then longest lifetime, (the
 * peak-out sweep). */
enum {
    ORD_SIZE,
    ORD_BREADTH,
    ORD_START,
    ORD_LENGTH,
    ORD_AREA,
    ORD_CLASS,
    ORD_SWEEP,
    ORD_CLASS4,
    ORD_SWEEP_PEAK,
    ORD_SPLIT,
    ORD_WINDOW,
    ORD_COUNT
};
#define LARGE_N 20000u
#define IMPROVE_MIN 2048u /* local search only where the exact search does not go */
#define HUGE_N 250000u    /* above: without a deadline, only the sweep runs */

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
                      int ord, tp__alloc_key *k) {
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
        case ORD_CLASS4: { /* quarter size class (floor(log2) and the next two bits), then
                            * the longest lifetime: within a class, long buffers first */
            int cls = 0;
            for (uint64_t v = sz; v > 1; v >>= 1)
                cls++;
            k[t].k1 = 4 * (uint64_t)cls + (cls >= 2 ? (sz >> (cls - 2)) & 3 : 0);
            k[t].k2 = len;
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
    qsort(k, m, sizeof *k, tp__alloc_key_cmp);
}

/* The window search (alloc_window.c) on the best plan until limit_at. A lower bound past
 * 2^64 (TP_ERR_OVERFLOW) leaves the plan as it is. */
static tp_status window_search(bf_ctx *c, double limit_at, uint64_t *offsets, uint64_t *best,
                               tp_bestfit_info *info, tp_error *err) {
    if (c->lb == 0) {
        tp_error e;
        tp_status st = tp_alloc_lower_bound(c->bufs, c->n, c->alloc, &c->lb, &e);
        if (st == TP_ERR_OVERFLOW) return TP_OK;
        if (st != TP_OK) {
            if (err) *err = e;
            return st;
        }
    }
    tp_window_run run = {c->start, limit_at, 0, c->lb, 0};
    uint64_t a = *best;
    tp_status st = tp__alloc_window(c->bufs, c->n, c->opt, &run, c->alloc, offsets, &a, err);
    if (st == TP_OK && a < *best) {
        *best = c->best = a;
        if (info) {
            info->order = ORD_WINDOW;
            info->best_fit = false;
        }
    }
    return st;
}

tp_status tp__alloc_bestfit_ex(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                               double deadline, const tp_allocator *alloc, uint64_t *offsets,
                               uint64_t *arena, tp_bestfit_info *info, tp_error *err) {
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
    c.deadline = deadline;
    c.opt = opt;
    c.alloc = alloc;
    c.start = tp__xs_now();
    c.next_progress = c.start + 1.0;
    c.best = UINT64_MAX;
    size_t m = 0;
    size_t *items = NULL, *order = NULL;
    tp__alloc_key *keys = NULL;
    uint64_t *breadth = NULL;
    c.off = tp_mem_alloc(alloc, n * sizeof *c.off);
    items = tp_mem_alloc(alloc, n * sizeof *items);
    order = tp_mem_alloc(alloc, n * sizeof *order);
    keys = tp_mem_alloc(alloc, n * sizeof *keys);
    breadth = tp_mem_alloc(alloc, n * sizeof *breadth);
    if (!breadth || !c.off || !items || !order || !keys) {
        st = tp_error_set(err, TP_ERR_NOMEM, "bestfit: out of memory for %zu buffers", n);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (bufs[i].fixed_offset < 0 && tp__alloc_psize(&bufs[i]) > 0) items[m++] = i;
    /* (order, best-fit?) runs; above LARGE_N buffers only the four that win on
     * graph-like sets (the others rarely do and each run costs a full pass) */
    static const struct {
        int ord;
        bool best_fit;
    } all_runs[] = {{ORD_CLASS, true},  {ORD_SIZE, true},    {ORD_START, true},
                    {ORD_SIZE, false},  {ORD_BREADTH, true}, {ORD_BREADTH, false},
                    {ORD_START, false}, {ORD_LENGTH, true},  {ORD_LENGTH, false},
                    {ORD_AREA, true},   {ORD_AREA, false}};
    /* long lifetimes above LARGE_N (the gap index; the sweep stands for the start order):
     * quarter size class then longest lifetime by lowest fit first, the best order on
     * dense traces (longmix62k: 1.0062 x LB, size/best 1.0469; train62k: 1.0002) */
    static const struct {
        int ord;
        bool best_fit;
    } dense_runs[] = {{ORD_CLASS4, false},
                      {ORD_SIZE, true},
                      {ORD_SIZE, false},
                      {ORD_CLASS, true},
                      {ORD_BREADTH, true}};
    uint64_t best = UINT64_MAX;
    bool have = false;
    int keyed = -1;
    /* the sweep runs first: O(n log n) whatever the number of live buffers, and their
     * arena lets the slower runs below stop as soon as they cannot beat it */
    st = tp__ll_init(&c.ll, bufs, n, alloc, &c.use_lists, err);
    if (st != TP_OK) goto done;
    bool limited = deadline > 0; /* a time limit was given (auto, exact) */
    double limit_at = deadline;  /* (the window search's deadline) */
    /* the peak-out sweep (best fit), best fit forwards, first fit forwards (above LARGE_N
     * not: it lost on every dense trace measured, and costs a pass) */
    int n_sweeps = m > LARGE_N ? 2 : 3;
    for (int sw = 0; sw < n_sweeps && !c.use_lists; sw++) { /* (graph-like sets: no use) */
        uint64_t a = 0;
        bool bf = sw < 2;
        if (m > IMPROVE_MIN && (m <= HUGE_N ? sw == 0 : sw == 1 && deadline > 0)) {
            /* the class split, first: on dense traces the best first plan (longmix62k
             * 1.0045 x LB in about 0.5 s CPU), so under a deadline it gets the time before
             * the sweeps (at 1 s and load 5-6 it did not finish after the peak-out sweep).
             * Above HUGE_N after the peak-out sweep, as before: there the split needs far
             * more than a short deadline, and the sweep's plan comes first */
            st = tp__alloc_split(bufs, n, opt, deadline, alloc, c.off, &a, true, !have, NULL, err);
            if (st == TP_OK)
                keep_if_better(&c, a, offsets, n, &have, &best, info, ORD_SPLIT, false);
            else if (st != TP_ERR_TIMEOUT && st != TP_ERR_UNSUPPORTED && st != TP_ERR_OVERFLOW)
                goto done;
            st = TP_OK;
            maybe_progress(&c);
            /* past the deadline: stop only with a plan in hand (the split may have been
             * cut off) */
            if (have && deadline > 0 && tp__xs_now() >= deadline) break;
        }
        /* the sweeps honour the deadline once a plan is in hand (before, the one after the
         * split ran to its end: `auto` at 1 s returned after 1.12-1.15 s) */
        double sweep_deadline = have ? deadline : 0;
        st = sw == 0
                 ? tp__alloc_sweep_peak(bufs, n, opt, true, sweep_deadline, alloc, c.off, &a, err)
                 : tp__alloc_sweep_ex(bufs, n, opt, bf, false, sweep_deadline, alloc, c.off, &a,
                                      err);
        if (st == TP_ERR_TIMEOUT) { /* the best plan so far stands */
            st = TP_OK;
            break;
        }
        if (sw == 0 && (st == TP_ERR_UNSUPPORTED || st == TP_ERR_OVERFLOW)) {
            st = TP_OK; /* no peak-out plan (pre-placed buffers, or its stack passes 2^64):
                         * the other runs decide */
            continue;
        }
        if (st == TP_ERR_UNSUPPORTED) { /* pre-placed buffers */
            st = TP_OK;
            break;
        }
        if (st != TP_OK) goto done;
        keep_if_better(&c, a, offsets, n, &have, &best, info, sw == 0 ? ORD_SWEEP_PEAK : ORD_SWEEP,
                       bf);
        maybe_progress(&c);
        if (deadline > 0 && tp__xs_now() >= deadline) break;
    }
    bool improve = have && !c.use_lists && m > IMPROVE_MIN && deadline > 0;
    bool dense = m > LARGE_N && !c.use_lists;
    /* short lifetimes above LARGE_N under a time limit: only the quarter-class run below,
     * then the window search gets the time the other four would take (about 0.1 s each at
     * 100,000 buffers; graph100k/3 at --time-limit 0.5: 1.0000 x LB in 0.47 s CPU, with
     * class/best first 1.0045 in 0.60 s, with all four runs first 1.0270) */
    size_t n_runs = dense         ? sizeof dense_runs / sizeof dense_runs[0]
                    : m > LARGE_N ? (limited ? 0 : 4)
                                  : sizeof all_runs / sizeof all_runs[0];
    /* short lifetimes (the live lists): one more run, quarter size class then longest by
     * first fit (graph100k/3: 1.0270 x LB against 1.0466; graph10k/1: 1.0134 against
     * 1.0397). Above LARGE_N only under a time limit: a list run costs about 0.1 s at
     * 100,000 buffers, and bestfit without one keeps its time */
    size_t n_base = n_runs;
    if (c.use_lists && (m <= LARGE_N || limited)) n_runs++;
    if (have && ((deadline > 0 && tp__xs_now() >= deadline) || (m > HUGE_N && deadline <= 0)))
        n_runs = 0;
    if (n_runs > 0 && !c.use_lists) st = tp__gx_init(&c.gx, bufs, n, alloc, err);
    if (st != TP_OK) goto done;
    bool have_breadth = false;
    for (size_t run = 0; run < n_runs; run++) {
        int ord = run == n_base ? ORD_CLASS4 : dense ? dense_runs[run].ord : all_runs[run].ord;
        bool rule = run == n_base ? false
                    : dense       ? dense_runs[run].best_fit
                                  : all_runs[run].best_fit;
        if (ord == ORD_BREADTH && !have_breadth) { /* only for the run that needs it */
            st = compute_breadth(bufs, n, alloc, breadth, err);
            if (st != TP_OK) goto done;
            have_breadth = true;
        }
        if (ord != keyed) {
            make_keys(bufs, breadth, items, m, ord, keys);
            for (size_t t = 0; t < m; t++)
                order[t] = keys[t].idx;
            keyed = ord;
        }
        /* the breadth and the keys take 0.01-0.07 s at 62,000 buffers: past the deadline
         * now, the pass would only be cut (auto 1 s on longmix62k ended at 1.06 s when the
         * split's fill finished and a dense run was prepared at 0.99 s) */
        if (have && deadline > 0 && tp__xs_now() >= deadline) break;
        uint64_t a = 0;
        c.deadline = have ? deadline : 0; /* the first plan always completes */
        st = run_order(&c, order, m, rule, best, &a, err);
        if (st == TP_ERR_INFEASIBLE) { /* not better than the best so far */
            st = TP_OK;
            continue;
        }
        if (st == TP_ERR_TIMEOUT) { /* keep the best plan so far */
            st = TP_OK;
            break;
        }
        if (st != TP_OK) goto done;
        keep_if_better(&c, a, offsets, n, &have, &best, info, ord, rule);
        maybe_progress(&c);
        if (m == 0) break;
    }
    if (have && c.use_lists && limited && m > IMPROVE_MIN && tp__xs_now() < limit_at) {
        /* short lifetimes, time left: the window search around the buffer that sets the
         * arena (graph100k/3 1.0270 -> 1.0000 x LB, graph10k/3 1.1594 -> 1.0000) */
        st = window_search(&c, limit_at, offsets, &best, info, err);
        if (st != TP_OK) goto done;
    }
    if (improve && tp__xs_now() < deadline) {
        unsigned rounds = 0; /* time remains: local search again, from the best plan */
        st = tp__alloc_improve(bufs, n, opt, deadline, alloc, offsets, &best, &rounds, err);
        if (st != TP_OK) goto done;
    }
    maybe_progress(&c); /* a run past a second reports at least once, whatever pass took it */
    *arena = best;
done:
    tp__gx_free(&c.gx);
    tp__ll_free(&c.ll, alloc);
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
    return tp__alloc_bestfit_ex(bufs, n, opt, 0, alloc, offsets, arena, NULL, err);
}
