/* The class split's order (alloc_split.c) pinned by its quality, not its time.
 *
 * Since session 12 the split places each quarter size class outwards from the peak step p
 * (alive at p, then by the steps between the lifetime and p, then longest); before, the
 * buffers alive at p went first and the rest of the class longest first. On four "longmix"
 * traces of bench/dense_traces.h (20,000 buffers, seeds 11-14: used by no tuning and no
 * other test; births uniform, log-uniform lengths, sizes over six orders of magnitude),
 * the split alone (with its fill, as bestfit runs it; no deadline, so the plans are
 * deterministic) gives on average
 *
 *   session 12 order (outwards from p):        1.003874 x LB (1.001960-1.007349)
 *   pre-session-12 order (clique, longest):    1.006833 x LB (1.002080-1.011782)
 *
 * (measured 2026-11-27, session 13), lower on every seed (and on seeds 15-16 too, left
 * out for the test's time: 2.6 s with six seeds, 9.8 s under ASan at load 6). The test
 * asks for at most 1.0053 on average, about midway: the old order fails it (checked by
 * reverting set_key), and so would an order that loses half the gain. Every plan is
 * verified and at or above the lower bound. */
#include "harness.h"

#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"
#include "../bench/dense_traces.h"

static tp_error *ep(tp_error *e) {
    return e;
}

TP_TEST(split_order_packs_dense_traces_tightly) {
    const size_t n = 20000;
    double sum = 0;
    int sets = 0;
    for (uint64_t seed = 11; seed <= 14 && !tp_test_cur_failed_; seed++) {
        tp_buffer *b = trace_make(1, n, seed, 0);
        uint64_t *off = malloc(n * sizeof *off), arena = 0, lb = 0;
        TP_CHECK(b != NULL && off != NULL);
        if (!b || !off) {
            free(b);
            free(off);
            return;
        }
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        tp_error e;
        TP_CHECK_OK(tp__alloc_split(b, n, &o, 0, NULL, off, &arena, true, false, NULL, &e), ep(&e));
        TP_CHECK_OK(tp_alloc_verify(b, n, off, o.alignment, arena, NULL, &e), ep(&e));
        TP_CHECK_OK(tp_alloc_lower_bound(b, n, NULL, &lb, &e), ep(&e));
        TP_CHECK(lb > 0);
        TP_CHECK_LE_U64(lb, arena);
        if (lb > 0) {
            double r = (double)arena / (double)lb;
            printf("  longmix %zu seed %llu: %.6f x LB\n", n, (unsigned long long)seed, r);
            sum += r;
            sets++;
        }
        free(b);
        free(off);
    }
    TP_CHECK(sets == 4);
    double mean = sets ? sum / sets : 0;
    printf("  mean %.6f x LB (at most 1.0053)\n", mean);
    TP_CHECK(mean <= 1.0053);
}

int main(void) {
    TP_RUN(split_order_packs_dense_traces_tightly);
    return tp_test_finish();
}
