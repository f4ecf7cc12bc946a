/* Allocator property tests over random buffer sets:
 *   - the fast greedy equals the plain O(n^3) reference (kept here, written from its
 *     definition in docs/allocator.md literally), offset for offset, on >= 10,000 random sets with
 * random alignments, tail guards, zero sizes and fixed buffers;
 *   - every plan (greedy, no-reuse) passes the verifier, respects alignment, arena >= LB;
 *   - the lower bound equals a brute-force per-step sum;
 *   - the verifier agrees with a brute-force pairwise check on random (often bad) plans;
 *   - allocation-failure sweeps: every failing k returns TP_ERR_NOMEM with 0 live bytes. */
#include "harness.h"
#include "plan_brute.h"
#include "test_rng.h"

#include <stdlib.h>

static tp_error *ep(tp_error *e) {
    return e;
}

static uint64_t align_up(uint64_t v, uint64_t a) {
    return (v + a - 1) & ~(a - 1);
}

/* ---- the reference, literally: O(n) candidates x O(n) checks per buffer ---- */
static uint64_t ref_greedy(const tp_buffer *b, size_t n, uint64_t alignment, uint64_t *off) {
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    size_t *placed = malloc((n ? n : 1) * sizeof *placed);
    size_t m = 0, np = 0;
    for (size_t i = 0; i < n; i++) {
        if (b[i].fixed_offset >= 0) {
            off[i] = (uint64_t)b[i].fixed_offset;
            placed[np++] = i;
        } else {
            order[m++] = i;
        }
    }
    /* stable insertion sort by placement size, largest first */
    for (size_t k = 1; k < m; k++) {
        size_t v = order[k], j = k;
        while (j > 0 && psize(&b[order[j - 1]]) < psize(&b[v])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    for (size_t k = 0; k < m; k++) {
        size_t i = order[k];
        uint64_t a = b[i].alignment ? b[i].alignment : alignment;
        uint64_t best = UINT64_MAX;
        for (size_t c = 0; c <= np; c++) {
            uint64_t cand = c == np ? 0 : off[placed[c]] + psize(&b[placed[c]]);
            cand = align_up(cand, a);
            if (cand >= best) continue;
            bool ok = true;
            for (size_t p = 0; p < np && ok; p++)
                if (conflict(&b[i], cand, &b[placed[p]], off[placed[p]])) ok = false;
            if (ok) best = cand;
        }
        off[i] = best;
        placed[np++] = i;
    }
    uint64_t arena = 0;
    for (size_t i = 0; i < n; i++)
        if (off[i] + psize(&b[i]) > arena) arena = off[i] + psize(&b[i]);
    free(order);
    free(placed);
    return arena;
}

static uint64_t brute_lb(const tp_buffer *b, size_t n) {
    int64_t last = 0;
    for (size_t i = 0; i < n; i++)
        if (b[i].death > last) last = b[i].death;
    uint64_t best = 0;
    for (int64_t t = 0; t <= last; t++) {
        uint64_t s = 0;
        for (size_t i = 0; i < n; i++)
            if (b[i].birth <= t && t <= b[i].death) s += psize(&b[i]);
        if (s > best) best = s;
    }
    return best;
}

static uint64_t rand_pow2(unsigned max_log2) {
    return UINT64_C(1) << rnd_below(max_log2 + 1);
}

/* A random set: graph-like or adversarial mixes; fixed buffers are laid out disjoint. */
static void random_set(tp_buffer *b, size_t n, uint64_t *alignment) {
    unsigned mode = (unsigned)rnd_below(4);
    bool whole_run = rnd_below(3) == 0;
    int64_t steps = (int64_t)(1 + rnd_below(mode == 0 ? 6 : 3 * n + 1));
    *alignment = rand_pow2(7);
    uint64_t fixed_cursor = rnd_below(3) * 64;
    for (size_t i = 0; i < n; i++) {
        tp_buffer *x = &b[i];
        memset(x, 0, sizeof *x);
        x->id = (int64_t)i + 1000;
        x->fixed_offset = -1;
        switch (mode) {
        case 0:
            x->size = rnd_below(8) * 16;
            break; /* many ties, zeros */
        case 1:
            x->size = 1 + rnd_below(1000);
            break; /* arbitrary sizes */
        case 2:
            x->size = rand_pow2(12);
            break; /* powers of two */
        default:
            x->size = rnd_below(3) ? rnd_below(64) : 1000 + rnd_below(50000);
            break;
        }
        if (rnd_below(6) == 0) x->tail_guard = rnd_below(2) ? 128 : rnd_below(100);
        if (rnd_below(4) == 0) x->alignment = rand_pow2(9);
        x->birth = (int64_t)rnd_below((uint64_t)steps);
        int64_t len =
            rnd_below(5) == 0 ? (int64_t)rnd_below((uint64_t)steps) : (int64_t)rnd_below(3);
        x->death = x->birth + len;
        if (whole_run && rnd_below(8) == 0) { /* like weights and inputs: [0, last] */
            x->birth = 0;
            x->death = steps;
        }
        if (rnd_below(12) == 0) {
            uint64_t a = x->alignment ? x->alignment : *alignment;
            uint64_t o = align_up(fixed_cursor + rnd_below(2) * 32, a);
            x->fixed_offset = (int64_t)o;
            fixed_cursor = o + psize(x);
        }
    }
}

static int n_sets;

static void check_set(tp_buffer *b, size_t n, uint64_t alignment) {
    uint64_t *off = malloc(n * sizeof *off), *ref = malloc(n * sizeof *ref);
    tp_alloc_options o;
    tp_alloc_options_default(&o);
    o.alignment = alignment;
    o.algo = TP_ALGO_GREEDY_SIZE;
    tp_alloc_result r;
    tp_error e;
    n_sets++;
    TP_CHECK_OK(tp_alloc_plan(b, n, &o, NULL, off, &r, &e), ep(&e));
    uint64_t ref_arena = ref_greedy(b, n, alignment, ref);
    TP_CHECK_EQ_U64(r.arena_bytes, ref_arena);
    size_t first_diff = n;
    for (size_t i = 0; i < n && first_diff == n; i++)
        if (off[i] != ref[i]) first_diff = i;
    if (first_diff != n) {
        TP_CHECK_EQ_U64(off[first_diff], ref[first_diff]);
        printf("  set %d: n=%zu alignment=%llu buffer %zu differs\n", n_sets, n,
               (unsigned long long)alignment, first_diff);
    }
    TP_CHECK_OK(tp_alloc_verify(b, n, off, alignment, r.arena_bytes, NULL, &e), ep(&e));
    for (size_t i = 0; i < n; i++) {
        uint64_t a = b[i].alignment ? b[i].alignment : alignment;
        if (off[i] % a) TP_CHECK_EQ_U64(off[i] % a, 0);
    }
    uint64_t lb = brute_lb(b, n);
    TP_CHECK_EQ_U64(r.lower_bound_bytes, lb);
    TP_CHECK_LE_U64(lb, r.arena_bytes);
    TP_CHECK(r.optimal == (r.arena_bytes == lb));
    TP_CHECK(pairwise_ok(b, n, off));

    o.algo = TP_ALGO_NO_REUSE;
    TP_CHECK_OK(tp_alloc_plan(b, n, &o, NULL, off, &r, &e), ep(&e));
    TP_CHECK_OK(tp_alloc_verify(b, n, off, alignment, r.arena_bytes, NULL, &e), ep(&e));
    TP_CHECK_LE_U64(lb, r.arena_bytes);
    free(off);
    free(ref);
}

TP_TEST(fast_greedy_equals_reference_on_10000_sets) {
    enum { MAXN = 48 };
    tp_buffer b[MAXN];
    rng_state = 12345;
    int before = tp_test_cur_failed_;
    for (int s = 0; s < 10000 && tp_test_cur_failed_ == before; s++) {
        size_t n = 1 + (size_t)rnd_below(MAXN);
        uint64_t alignment;
        random_set(b, n, &alignment);
        check_set(b, n, alignment);
    }
}

TP_TEST(fast_greedy_equals_reference_on_larger_sets) {
    rng_state = 777;
    int before = tp_test_cur_failed_;
    for (int s = 0; s < 24 && tp_test_cur_failed_ == before; s++) {
        size_t n = 100 + (size_t)rnd_below(300);
        tp_buffer *b = malloc(n * sizeof *b);
        uint64_t alignment;
        random_set(b, n, &alignment);
        check_set(b, n, alignment);
        free(b);
    }
}

TP_TEST(verifier_agrees_with_brute_force) {
    enum { MAXN = 24 };
    tp_buffer b[MAXN];
    uint64_t off[MAXN];
    rng_state = 99;
    int bad = 0, good = 0;
    for (int s = 0; s < 10000; s++) {
        size_t n = 1 + (size_t)rnd_below(MAXN);
        uint64_t alignment;
        random_set(b, n, &alignment);
        for (size_t i = 0; i < n; i++) {
            b[i].fixed_offset = -1;
            b[i].alignment = 0;
            off[i] = rnd_below(40) * 16; /* dense: many conflicts, many near misses */
        }
        bool want = !pairwise_ok(b, n, off);
        tp_error e;
        tp_status st = tp_alloc_verify(b, n, off, 16, UINT64_MAX, NULL, &e);
        if (want) {
            bad++;
            TP_CHECK_STATUS(st, TP_ERR_VERIFY);
        } else {
            good++;
            TP_CHECK_OK(st, ep(&e));
        }
        if (tp_test_cur_failed_) {
            printf("  set %d (n=%zu) brute force says %s\n", s, n, want ? "conflict" : "none");
            break;
        }
    }
    /* the generator must exercise both outcomes */
    TP_CHECK(bad > 1000);
    TP_CHECK(good > 1000);
}

static void sweep_one(const tp_buffer *b, size_t n, uint64_t alignment, tp_alloc_algo algo) {
    tp_alloc_options o;
    tp_alloc_options_default(&o);
    o.alignment = alignment;
    o.algo = algo;
    uint64_t *off = malloc(n * sizeof *off), *ref = malloc(n * sizeof *ref);
    tp_alloc_result r, rr;
    tp_error e;
    TP_CHECK_OK(tp_alloc_plan(b, n, &o, NULL, ref, &rr, &e), ep(&e));
    bool completed = false;
    for (long k = 1; k < 100000 && !completed; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, k);
        tp_status st = tp_alloc_plan(b, n, &o, &fa.hook, off, &r, &e);
        TP_CHECK_EQ_U64(fa.live_bytes, 0);
        TP_CHECK_EQ_I64(fa.live, 0);
        if (st == TP_OK) {
            completed = true;
            TP_CHECK(!fa.failed);
            TP_CHECK_EQ_U64(r.arena_bytes, rr.arena_bytes);
            TP_CHECK(memcmp(off, ref, n * sizeof *off) == 0);
        } else {
            TP_CHECK_STATUS(st, TP_ERR_NOMEM);
        }
        /* the verifier and the lower bound under the same failure */
        tp_failing_allocator fv;
        tp_failing_allocator_init(&fv, k);
        st = tp_alloc_verify(b, n, ref, alignment, rr.arena_bytes, &fv.hook, &e);
        TP_CHECK(st == TP_OK || st == TP_ERR_NOMEM);
        TP_CHECK_EQ_U64(fv.live_bytes, 0);
        uint64_t lb;
        tp_failing_allocator_init(&fv, k);
        st = tp_alloc_lower_bound(b, n, &fv.hook, &lb, &e);
        TP_CHECK(st == TP_OK || st == TP_ERR_NOMEM);
        TP_CHECK_EQ_U64(fv.live_bytes, 0);
    }
    TP_CHECK(completed);
    free(off);
    free(ref);
}

TP_TEST(allocation_failure_sweeps) {
    rng_state = 4242;
    for (int s = 0; s < 20; s++) {
        size_t n = 2 + (size_t)rnd_below(s < 18 ? 40 : 3000);
        tp_buffer *b = malloc(n * sizeof *b);
        uint64_t alignment;
        random_set(b, n, &alignment);
        sweep_one(b, n, alignment, TP_ALGO_GREEDY_SIZE);
        sweep_one(b, n, alignment, TP_ALGO_NO_REUSE);
        free(b);
    }
}

int main(void) {
    TP_RUN(fast_greedy_equals_reference_on_10000_sets);
    TP_RUN(fast_greedy_equals_reference_on_larger_sets);
    TP_RUN(verifier_agrees_with_brute_force);
    TP_RUN(allocation_failure_sweeps);
    printf("%d random sets planned and checked against the reference\n", n_sets);
    return tp_test_finish();
}
