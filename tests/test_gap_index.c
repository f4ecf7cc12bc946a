/* The placement cores for dense traces, against brute force:
 *   - gap index (gap_index.c): on random dense sets (long nested and random lifetimes,
 *     sizes over 6 orders of magnitude, alignments, zero sizes), placed in random orders,
 *     tp__gx_lowest equals the lowest aligned conflict-free offset and tp__gx_best equals a
 *     sorted sweep over every time-overlapping placed buffer (all gaps, or the first k);
 *   - sweep placer (alloc_sweep.c): its first-fit plan equals the gap-index placer in the
 *     same birth order (time mirrored: death order, latest first), offset for offset; its
 *     best-fit plans (both directions) and the peak-out sweep's plans pass the verifier and
 *     a pairwise check; pre-placed buffers give TP_ERR_UNSUPPORTED;
 *   - class split (alloc_split.c): verified on random dense sets, strip used, errors;
 *   - bestfit and auto on dense sets: verified, arena >= LB, and never above the sweep's;
 *     above 20,000 buffers (two longmix sets) the split and the quarter-class run win;
 *   - allocation-failure sweeps over the sweep placer, the split and the dense best-fit. */
#include "harness.h"
#include "test_rng.h"

#include <limits.h>

#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"
#include "plan/gap_index.h"
#include "../bench/dense_traces.h"
#include "plan_brute.h"

static tp_error *ep(tp_error *e) {
    return e;
}

/* Dense random set: nested (training-like), random long, or short lifetimes; sizes
 * log-uniform over 1 B - 1 MiB with repeats; a few zero sizes and tail guards. */
static void dense_set(tp_buffer *b, size_t n, bool with_align) {
    int64_t T = (int64_t)(2 + rnd_below(n));
    unsigned mode = (unsigned)rnd_below(3);
    uint64_t palette[4] = {(uint64_t)64 << rnd_below(8), 1 + rnd_below(5000), 48,
                           (uint64_t)1 << rnd_below(20)};
    for (size_t i = 0; i < n; i++) {
        tp_buffer *x = &b[i];
        memset(x, 0, sizeof *x);
        x->id = (int64_t)i;
        x->fixed_offset = -1;
        x->size = rnd_below(3) == 0 ? palette[rnd_below(4)] : (uint64_t)1 << rnd_below(21);
        x->size += rnd_below(2) ? 0 : rnd_below(x->size);
        if (rnd_below(25) == 0) x->size = 0;
        if (rnd_below(10) == 0) x->tail_guard = rnd_below(200);
        if (with_align && rnd_below(4) == 0) x->alignment = (uint64_t)1 << rnd_below(9);
        x->birth = (int64_t)rnd_below((uint64_t)T);
        if (mode == 0) { /* nested: dies at the mirrored step */
            x->birth = (int64_t)rnd_below((uint64_t)T / 2 + 1);
            x->death = T - x->birth + (int64_t)rnd_below(3);
        } else if (mode == 1) {
            x->death = x->birth + (int64_t)rnd_below((uint64_t)T);
        } else {
            x->death = x->birth + (int64_t)(rnd_below(4) ? rnd_below(3) : rnd_below((uint64_t)T));
        }
    }
}

/* Brute force over the placed buffers overlapping buffer q in time: the lowest aligned
 * offset that fits (lowest), and best fit over the first max_gaps fitting gaps. */
typedef struct span {
    uint64_t lo, hi;
} span;
static int cmp_span(const void *x, const void *y) {
    const span *a = x, *b = y;
    return (a->lo > b->lo) - (a->lo < b->lo);
}
static void brute_fits(const tp_buffer *b, const uint64_t *off, const bool *placed, size_t n,
                       size_t q, uint64_t align, int max_gaps, uint64_t *lowest, uint64_t *best) {
    span *s = malloc((n + 1) * sizeof *s);
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
        if (placed[j] && time_overlap(&b[j], &b[q]) && psize(&b[j]) > 0)
            s[m++] = (span){off[j], off[j] + psize(&b[j])};
    qsort(s, m, sizeof *s, cmp_span);
    uint64_t sz = psize(&b[q]);
    /* lowest: every candidate is 0 or an aligned end */
    uint64_t low = UINT64_MAX;
    for (size_t c = 0; c <= m; c++) {
        uint64_t cand = c == m ? 0 : s[c].hi;
        cand = (cand + align - 1) & ~(align - 1);
        if (cand >= low) continue;
        bool ok = true;
        for (size_t k = 0; k < m && ok; k++)
            if (cand < s[k].hi && s[k].lo < cand + sz) ok = false;
        if (ok) low = cand;
    }
    *lowest = low;
    uint64_t cur = 0, best_off = 0, best_gap = UINT64_MAX;
    int found = 0;
    for (size_t h = 0; h < m && found < max_gaps; h++) {
        uint64_t a = (cur + align - 1) & ~(align - 1);
        if (s[h].lo > cur && a <= s[h].lo && s[h].lo - a >= sz) {
            found++;
            if (s[h].lo - cur < best_gap) {
                best_gap = s[h].lo - cur;
                best_off = a;
            }
        }
        if (s[h].hi > cur) cur = s[h].hi;
    }
    *best = found ? best_off : (cur + align - 1) & ~(align - 1);
    free(s);
}

TP_TEST(gap_index_equals_brute_force) {
    rng_state = 2024;
    int checked = 0;
    for (int set = 0; set < 300 && !tp_test_cur_failed_; set++) {
        size_t n = 2 + (size_t)rnd_below(set < 250 ? 40 : 250);
        tp_buffer *b = malloc(n * sizeof *b);
        uint64_t *off = calloc(n, sizeof *off);
        bool *placed = calloc(n, sizeof *placed);
        size_t *order = malloc(n * sizeof *order);
        dense_set(b, n, true);
        for (size_t i = 0; i < n; i++)
            order[i] = i;
        for (size_t i = n; i > 1; i--) { /* random order */
            size_t j = (size_t)rnd_below(i), t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
        int max_gaps = rnd_below(2) ? INT_MAX : 1 + (int)rnd_below(3);
        tp__gapidx g;
        tp_error e;
        TP_CHECK_OK(tp__gx_init(&g, b, n, NULL, &e), ep(&e));
        for (size_t k = 0; k < n && !tp_test_cur_failed_; k++) {
            size_t i = order[k];
            uint64_t s = psize(&b[i]);
            if (s == 0) continue; /* the placers put these at 0 without a query */
            uint64_t al = b[i].alignment ? b[i].alignment : 16, low, best, q = 0, blk;
            brute_fits(b, off, placed, n, i, al, max_gaps, &low, &best);
            TP_CHECK(tp__gx_lowest(&g, b[i].birth, b[i].death, s, al, &q, &blk));
            TP_CHECK_EQ_U64(q, low);
            TP_CHECK_OK(tp__gx_best(&g, b[i].birth, b[i].death, s, al, max_gaps, &q, &e), ep(&e));
            TP_CHECK_EQ_U64(q, best);
            off[i] = rnd_below(2) ? low : best;
            placed[i] = true;
            TP_CHECK_OK(tp__gx_insert(&g, b[i].birth, b[i].death, off[i], off[i] + s, &e), ep(&e));
            checked++;
        }
        tp__gx_free(&g);
        free(b);
        free(off);
        free(placed);
        free(order);
    }
    TP_CHECK(checked > 5000);
}

/* Lowest fit on fragmented sets (the leapfrog over per-set gap summaries): runs inserted at
 * random offsets, overlapping or not, many of them zero-size points, so the sets hold far
 * more than 16 runs and the summaries are rebuilt after merges, inserts and block moves.
 * Each query is checked against brute force over every time-overlapping run. */
TP_TEST(gap_index_lowest_on_fragmented_sets) {
    rng_state = 77;
    int checked = 0;
    size_t max_runs = 0;
    for (int set = 0; set < 60 && !tp_test_cur_failed_; set++) {
        size_t n = 50 + (size_t)rnd_below(set < 50 ? 400 : 2000);
        int64_t T = 1 + (int64_t)rnd_below(set % 3 ? 20 : 200);
        uint64_t span_max = (uint64_t)1 << (8 + rnd_below(16)), len_max = 1 + rnd_below(4096);
        tp_buffer *b = calloc(n, sizeof *b);
        uint64_t *lo = calloc(n, sizeof *lo), *hi = calloc(n, sizeof *hi);
        for (size_t i = 0; i < n; i++) {
            b[i].birth = (int64_t)rnd_below((uint64_t)T);
            b[i].death = b[i].birth + (int64_t)rnd_below((uint64_t)T);
            b[i].fixed_offset = -1;
        }
        tp__gapidx g;
        tp_error e;
        TP_CHECK_OK(tp__gx_init(&g, b, n, NULL, &e), ep(&e));
        for (size_t i = 0; i < n && !tp_test_cur_failed_; i++) {
            /* a query first: random size and alignment against the runs inserted so far */
            uint64_t sz = 1 + rnd_below(rnd_below(2) ? len_max : span_max / 4 + 1);
            uint64_t al = (uint64_t)1 << rnd_below(10), q = 0, blk, low = UINT64_MAX;
            for (size_t c = 0; c <= i; c++) { /* candidates: 0 and every aligned end */
                uint64_t cand = c == i ? 0 : hi[c];
                if (c < i && !time_overlap(&b[c], &b[i])) continue;
                cand = (cand + al - 1) & ~(al - 1);
                if (cand >= low) continue;
                bool ok = true;
                for (size_t k = 0; k < i && ok; k++)
                    if (time_overlap(&b[k], &b[i]) && cand < hi[k] && lo[k] < cand + sz &&
                        (lo[k] < hi[k] || cand < lo[k]))
                        ok = false;
                if (ok) low = cand;
            }
            TP_CHECK(tp__gx_lowest(&g, b[i].birth, b[i].death, sz, al, &q, &blk));
            TP_CHECK_EQ_U64(q, low);
            checked++;
            /* then a run at a random offset: a point (zero size) one time in four */
            lo[i] = rnd_below(span_max);
            hi[i] = lo[i] + (rnd_below(4) ? 1 + rnd_below(len_max) : 0);
            TP_CHECK_OK(tp__gx_insert(&g, b[i].birth, b[i].death, lo[i], hi[i], &e), ep(&e));
        }
        for (size_t x = 1; x < 2 * g.leaves; x++)
            if (g.sub[x].n > max_runs) max_runs = g.sub[x].n;
        tp__gx_free(&g);
        free(b);
        free(lo);
        free(hi);
    }
    TP_CHECK(checked > 10000);
    TP_CHECK(max_runs >= 256); /* the summaries (16 runs each) were in use */
}

static const tp_buffer *sort_bufs;
static int cmp_birth_size(const void *x, const void *y) {
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    const tp_buffer *a = &sort_bufs[i], *b = &sort_bufs[j];
    if (a->birth != b->birth) return a->birth < b->birth ? -1 : 1;
    if (psize(a) != psize(b)) return psize(a) > psize(b) ? -1 : 1;
    return (i > j) - (i < j);
}

/* Mirrored time: latest death first, then largest, then index. */
static int cmp_death_size(const void *x, const void *y) {
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    const tp_buffer *a = &sort_bufs[i], *b = &sort_bufs[j];
    if (a->death != b->death) return a->death > b->death ? -1 : 1;
    if (psize(a) != psize(b)) return psize(a) > psize(b) ? -1 : 1;
    return (i > j) - (i < j);
}

TP_TEST(sweep_first_fit_equals_gap_index_in_sweep_order) {
    rng_state = 77;
    for (int set = 0; set < 400 && !tp_test_cur_failed_; set++) {
        size_t n = 1 + (size_t)rnd_below(set < 380 ? 60 : 600);
        tp_buffer *b = malloc(n * sizeof *b);
        uint64_t *off = malloc(n * sizeof *off), *ref = malloc(n * sizeof *ref), arena, ref_arena;
        size_t *order = malloc(n * sizeof *order);
        dense_set(b, n, true);
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        o.alignment = (uint64_t)1 << rnd_below(7);
        tp_error e;
        TP_CHECK_OK(tp__alloc_sweep(b, n, &o, false, NULL, off, &arena, &e), ep(&e));
        for (size_t i = 0; i < n; i++)
            order[i] = i;
        sort_bufs = b;
        qsort(order, n, sizeof *order, cmp_birth_size);
        TP_CHECK_OK(tp__alloc_greedy_ordered(b, n, order, n, &o, NULL, ref, &ref_arena, &e),
                    ep(&e));
        TP_CHECK_EQ_U64(arena, ref_arena);
        TP_CHECK(memcmp(off, ref, n * sizeof *off) == 0);
        TP_CHECK_OK(tp__alloc_sweep(b, n, &o, true, NULL, off, &arena, &e), ep(&e));
        TP_CHECK_OK(tp_alloc_verify(b, n, off, o.alignment, arena, NULL, &e), ep(&e));
        TP_CHECK(pairwise_ok(b, n, off));
        /* time mirrored: first fit = the gap-index placer in death order, latest first */
        TP_CHECK_OK(tp__alloc_sweep_ex(b, n, &o, false, true, 0, NULL, off, &arena, &e), ep(&e));
        qsort(order, n, sizeof *order, cmp_death_size);
        TP_CHECK_OK(tp__alloc_greedy_ordered(b, n, order, n, &o, NULL, ref, &ref_arena, &e),
                    ep(&e));
        TP_CHECK_EQ_U64(arena, ref_arena);
        TP_CHECK(memcmp(off, ref, n * sizeof *off) == 0);
        TP_CHECK_OK(tp__alloc_sweep_ex(b, n, &o, true, true, 0, NULL, off, &arena, &e), ep(&e));
        TP_CHECK_OK(tp_alloc_verify(b, n, off, o.alignment, arena, NULL, &e), ep(&e));
        TP_CHECK(pairwise_ok(b, n, off));
        for (int bf = 0; bf < 2; bf++) { /* peak-out: both halves, the clique shared */
            TP_CHECK_OK(tp__alloc_sweep_peak(b, n, &o, bf == 1, 0, NULL, off, &arena, &e), ep(&e));
            TP_CHECK_OK(tp_alloc_verify(b, n, off, o.alignment, arena, NULL, &e), ep(&e));
            TP_CHECK(pairwise_ok(b, n, off));
            uint64_t lb;
            TP_CHECK_OK(tp_alloc_lower_bound(b, n, NULL, &lb, &e), ep(&e));
            TP_CHECK_LE_U64(lb, arena);
        }
        b[0].fixed_offset = 0;
        TP_CHECK_STATUS(tp__alloc_sweep(b, n, &o, true, NULL, off, &arena, &e), TP_ERR_UNSUPPORTED);
        TP_CHECK_STATUS(tp__alloc_sweep_peak(b, n, &o, true, 0, NULL, off, &arena, &e),
                        TP_ERR_UNSUPPORTED);
        free(b);
        free(off);
        free(ref);
        free(order);
    }
}

/* The class split (alloc_split.c) on random dense sets (alignments, zero sizes, tail
 * guards), with and without the fill: verified, pairwise conflict-free, at least the lower
 * bound, the fill never above the strip plan; the strip is used on most sets (sizes over 6
 * orders of magnitude) and the fill wins on some, so every path is checked; pre-placed
 * buffers give TP_ERR_UNSUPPORTED; an expired deadline TP_ERR_TIMEOUT. */
TP_TEST(split_plans_are_verified) {
    rng_state = 4242;
    int with_strip = 0, with_fill = 0;
    for (int set = 0; set < 300 && !tp_test_cur_failed_; set++) {
        size_t n = 1 + (size_t)rnd_below(set < 280 ? 80 : 700);
        tp_buffer *b = malloc(n * sizeof *b);
        uint64_t *off = malloc(n * sizeof *off), arena, lb;
        dense_set(b, n, true);
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        o.alignment = (uint64_t)1 << rnd_below(7);
        tp_error e;
        TP_CHECK_OK(tp_alloc_lower_bound(b, n, NULL, &lb, &e), ep(&e));
        uint64_t strip_arena = 0;
        for (int fill = 0; fill < 2; fill++) {
            size_t ns = 0;
            TP_CHECK_OK(tp__alloc_split(b, n, &o, 0, NULL, off, &arena, fill == 1, false, &ns, &e),
                        ep(&e));
            TP_CHECK_OK(tp_alloc_verify(b, n, off, o.alignment, arena, NULL, &e), ep(&e));
            TP_CHECK(pairwise_ok(b, n, off));
            TP_CHECK_LE_U64(lb, arena);
            if (fill == 0) {
                strip_arena = arena;
                if (ns > 0 && ns < n) with_strip++;
            } else {
                TP_CHECK_LE_U64(arena, strip_arena); /* the fill is kept only when lower */
                if (ns == 0 && arena < strip_arena) with_fill++;
            }
        }
        TP_CHECK_STATUS(tp__alloc_split(b, n, &o, 1e-9, NULL, off, &arena, true, false, NULL, &e),
                        TP_ERR_TIMEOUT);
        b[n - 1].fixed_offset = 0;
        TP_CHECK_STATUS(tp__alloc_split(b, n, &o, 0, NULL, off, &arena, true, false, NULL, &e),
                        TP_ERR_UNSUPPORTED);
        free(b);
        free(off);
    }
    TP_CHECK(with_strip > 100);
    TP_CHECK(with_fill > 10);
}

TP_TEST(dense_bestfit_and_auto_are_verified_and_beat_the_sweep) {
    rng_state = 5150;
    for (int set = 0; set < 60 && !tp_test_cur_failed_; set++) {
        size_t n = 20 + (size_t)rnd_below(set < 55 ? 300 : 3000);
        tp_buffer *b = malloc(n * sizeof *b);
        uint64_t *off = malloc(n * sizeof *off), sweep_arena = UINT64_MAX;
        dense_set(b, n, false);
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        tp_error e;
        for (int bf = 0; bf < 2; bf++) {
            uint64_t a;
            TP_CHECK_OK(tp__alloc_sweep(b, n, &o, bf == 1, NULL, off, &a, &e), ep(&e));
            if (a < sweep_arena) sweep_arena = a;
        }
        for (int k = 0; k < 3; k++) {
            tp_alloc_result r;
            o.algo = k == 0 ? TP_ALGO_BEST_FIT : k == 1 ? TP_ALGO_AUTO : TP_ALGO_GREEDY_SIZE;
            o.time_limit_s = k == 1 ? 0.05 : 0;
            TP_CHECK_OK(tp_alloc_plan(b, n, &o, NULL, off, &r, &e), ep(&e));
            TP_CHECK_OK(tp_alloc_verify(b, n, off, o.alignment, r.arena_bytes, NULL, &e), ep(&e));
            TP_CHECK_LE_U64(r.lower_bound_bytes, r.arena_bytes);
            if (k < 2) TP_CHECK_LE_U64(r.arena_bytes, sweep_arena);
            if (n <= 400) TP_CHECK(pairwise_ok(b, n, off));
        }
        free(b);
        free(off);
    }
}

/* Above 20,000 buffers with long lifetimes the best-fit heuristics run the peak-out sweep,
 * the class split (alloc_split.c), the forward sweep and then the dense gap-index runs, the
 * first of them by quarter size class then longest lifetime. Two "longmix" sets of
 * bench/dense_traces.h (births uniform, log-uniform lengths, sizes over six orders of
 * magnitude): bestfit's plan is verified, never above the sweep's, and won by one of the
 * two size-class placers (tp_bestfit_info), the split at least once, so their plans are the
 * ones checked. (Until session 12 the split won the first, 1.0164 x LB, and the
 * quarter-class order the second, 1.0153; since the split orders each class outwards from
 * the peak step it wins both, and no seed of 1-6 nor a train set was found where the
 * quarter-class run still wins.) */
TP_TEST(large_dense_sets_use_the_class_order) {
    bool class4_won = false, split_won = false;
    for (int set = 0; set < 2 && !tp_test_cur_failed_; set++) {
        size_t n = 20500;
        tp_buffer *b = trace_make(1, n, (uint64_t)set + 1, 0);
        uint64_t *off = malloc(n * sizeof *off), sweep_arena = UINT64_MAX, a, lb;
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        tp_error e;
        for (int bf = 0; bf < 2; bf++) {
            TP_CHECK_OK(tp__alloc_sweep(b, n, &o, bf == 1, NULL, off, &a, &e), ep(&e));
            if (a < sweep_arena) sweep_arena = a;
        }
        tp_bestfit_info info;
        TP_CHECK_OK(tp__alloc_bestfit_ex(b, n, &o, 0, NULL, off, &a, &info, &e), ep(&e));
        TP_CHECK_OK(tp_alloc_verify(b, n, off, o.alignment, a, NULL, &e), ep(&e));
        TP_CHECK_OK(tp_alloc_lower_bound(b, n, NULL, &lb, &e), ep(&e));
        TP_CHECK_LE_U64(lb, a);
        TP_CHECK_LE_U64(a, sweep_arena);
        if (info.order == 7 && !info.best_fit) class4_won = true;
        if (info.order == 9) split_won = true;
        TP_CHECK((info.order == 7 && !info.best_fit) || info.order == 9);
        free(b);
        free(off);
    }
    (void)class4_won; /* (it won the second set before session 12) */
    TP_CHECK(split_won);
}

/* direct: 0 tp_alloc_plan, 1 the sweep, 2 the class split. */
static tp_status direct_call(const tp_buffer *b, size_t n, const tp_alloc_options *o, int direct,
                             const tp_allocator *a, uint64_t *off, uint64_t *arena, tp_error *e) {
    tp_alloc_result r;
    tp_status st = direct == 1   ? tp__alloc_sweep(b, n, o, true, a, off, arena, e)
                   : direct == 2 ? tp__alloc_split(b, n, o, 0, a, off, arena, true, false, NULL, e)
                                 : tp_alloc_plan(b, n, o, a, off, &r, e);
    return st;
}

static void fail_sweep(const tp_buffer *b, size_t n, tp_alloc_algo algo, int direct) {
    tp_alloc_options o;
    tp_alloc_options_default(&o);
    o.algo = algo;
    uint64_t *off = malloc(n * sizeof *off), *ref = malloc(n * sizeof *ref), arena, ref_arena;
    tp_error e;
    TP_CHECK_OK(direct_call(b, n, &o, direct, NULL, ref, &ref_arena, &e), ep(&e));
    bool done = false;
    for (long k = 1; k < 100000 && !done; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, k);
        tp_status st = direct_call(b, n, &o, direct, &fa.hook, off, &arena, &e);
        TP_CHECK_EQ_U64(fa.live_bytes, 0);
        if (st == TP_OK) {
            done = true;
            TP_CHECK(memcmp(off, ref, n * sizeof *off) == 0);
        } else {
            TP_CHECK_STATUS(st, TP_ERR_NOMEM);
        }
    }
    TP_CHECK(done);
    free(off);
    free(ref);
}

TP_TEST(allocation_failure_sweeps) {
    rng_state = 99;
    for (int s = 0; s < 6; s++) {
        size_t n = 5 + (size_t)rnd_below(200);
        tp_buffer *b = malloc(n * sizeof *b);
        dense_set(b, n, true);
        fail_sweep(b, n, TP_ALGO_BEST_FIT, 1);
        fail_sweep(b, n, TP_ALGO_BEST_FIT, 2);
        fail_sweep(b, n, TP_ALGO_BEST_FIT, 0);
        fail_sweep(b, n, TP_ALGO_GREEDY_SIZE, 0);
        free(b);
    }
}

int main(void) {
    TP_RUN(gap_index_equals_brute_force);
    TP_RUN(gap_index_lowest_on_fragmented_sets);
    TP_RUN(sweep_first_fit_equals_gap_index_in_sweep_order);
    TP_RUN(dense_bestfit_and_auto_are_verified_and_beat_the_sweep);
    TP_RUN(split_plans_are_verified);
    TP_RUN(large_dense_sets_use_the_class_order);
    TP_RUN(allocation_failure_sweeps);
    return tp_test_finish();
}
