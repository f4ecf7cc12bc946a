/* Deadlines in the best-fit driver (alloc_bestfit.c) and the anytime property.
 *   - with a deadline already past, bestfit returns its first plan and nothing more: on
 *     short lifetimes (the live lists) the first run, class/best (so at least one set ends
 *     above what the runs after it reach without a deadline); on long lifetimes above
 *     2,048 buffers the peak-out sweep (the class split is cut off at once);
 *   - with pre-placed buffers and a past deadline there is still a complete plan, and it
 *     keeps the fixed offsets;
 *   - anytime: under any deadline the plan is verified, at or above the lower bound and
 *     never above the first plan (the past-deadline one);
 *   - tp_alloc_plan with `auto` and a limit of a nanosecond still returns a verified plan,
 *     and reports that its first plan took longer than the limit (first_plan_seconds); with
 *     time left the first plan comes well before the end;
 *   - the local search alone, from the no-reuse plan and the peak-out sweep: verified, never
 *     above its start nor below the lower bound, and it lowers the no-reuse plan;
 *   - the class split asked to finish (bestfit has no plan yet) completes past the deadline
 *     once three quarters of its large buffers are placed, with the plan it gives without a
 *     deadline, and times out below that or when not asked;
 *   - the sweeps (forwards, mirrored, peak-out) that run after the split honour the
 *     deadline: past it they give TP_ERR_TIMEOUT (before session 11 they always completed,
 *     and `auto` overshot a 1 s limit by up to 0.15 s), with none the same plan as ever;
 *     the split's strip does too unless the split is finishing. Deterministic: a deadline
 *     already past, no wall-clock assertion. */
#include "harness.h"
#include "test_rng.h"

#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"
#include "../bench/dense_traces.h"

#define ORD_CLASS 5
#define ORD_SWEEP_PEAK 8

static tp_error *ep(tp_error *e) {
    return e;
}

/* Graph-like with pre-placed buffers: one buffer per step, mostly 1-4 steps, a few skips;
 * three buffers pre-placed 32 MiB apart (sizes < 17 MiB). */
static void fixed_set(tp_buffer *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        tp_buffer *x = &b[i];
        memset(x, 0, sizeof *x);
        x->id = (int64_t)i;
        x->fixed_offset = -1;
        x->size = ((uint64_t)64 << rnd_below(19)) + rnd_below(4096);
        x->birth = (int64_t)i;
        x->death = x->birth + (int64_t)rnd_below(4);
        if (rnd_below(25) == 0) x->death = x->birth + 1 + (int64_t)rnd_below(n / 4 + 1);
    }
    for (size_t k = 0; k < 3; k++) {
        tp_buffer *x = &b[rnd_below(n)];
        x->alignment = 0;
        x->fixed_offset = (int64_t)(((uint64_t)32 << 20) * k);
    }
}

static void check_plan(const tp_buffer *b, size_t n, const uint64_t *off, uint64_t arena,
                       uint64_t alignment) {
    tp_error e;
    uint64_t lb;
    TP_CHECK_OK(tp_alloc_verify(b, n, off, alignment, arena, NULL, &e), ep(&e));
    TP_CHECK_OK(tp_alloc_lower_bound(b, n, NULL, &lb, &e), ep(&e));
    TP_CHECK(arena >= lb);
}

/* bestfit with a deadline a second in the past; the plan checked. */
static void past_deadline(const tp_buffer *b, size_t n, uint64_t *off, uint64_t *arena,
                          tp_bestfit_info *info) {
    tp_alloc_options o;
    tp_alloc_options_default(&o);
    tp_error e;
    TP_CHECK_OK(tp__alloc_bestfit_ex(b, n, &o, tp__xs_now() - 1.0, NULL, off, arena, info, &e),
                ep(&e));
    check_plan(b, n, off, *arena, o.alignment);
}

TP_TEST(past_deadline_short_lifetimes_gives_the_first_run) {
    size_t n = 3000;
    int cut = 0;
    for (uint64_t seed = 1; seed <= 8 && !tp_test_cur_failed_; seed++) {
        tp_buffer *b = trace_make(2, n, seed, 0.12);
        TP_CHECK(b != NULL);
        tp_bestfit_info info;
        uint64_t *off = malloc(n * sizeof *off), first, all;
        past_deadline(b, n, off, &first, &info);
        TP_CHECK_EQ_I64(info.order, ORD_CLASS);
        TP_CHECK(info.best_fit);
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        tp_error e;
        TP_CHECK_OK(tp__alloc_bestfit(b, n, &o, NULL, off, &all, &e), ep(&e));
        TP_CHECK_LE_U64(all, first);
        if (all < first) cut++;
        free(b);
        free(off);
    }
    TP_CHECK(cut >= 1); /* the runs after the first would have lowered some arena */
}

TP_TEST(past_deadline_long_lifetimes_gives_the_peak_out_sweep) {
    size_t n = 3000;
    for (uint64_t seed = 1; seed <= 3 && !tp_test_cur_failed_; seed++) {
        tp_buffer *b = trace_make(seed == 3 ? 0 : 1, n, seed, 0.12);
        TP_CHECK(b != NULL);
        tp_bestfit_info info;
        uint64_t *off = malloc(n * sizeof *off), first, peak;
        past_deadline(b, n, off, &first, &info);
        TP_CHECK_EQ_I64(info.order, ORD_SWEEP_PEAK);
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        tp_error e;
        TP_CHECK_OK(tp__alloc_sweep_peak(b, n, &o, true, 0, NULL, off, &peak, &e), ep(&e));
        TP_CHECK_EQ_U64(first, peak);
        free(b);
        free(off);
    }
}

TP_TEST(past_deadline_with_fixed_buffers_still_plans) {
    rng_state = 77;
    for (int s = 0; s < 6 && !tp_test_cur_failed_; s++) {
        size_t n = s < 3 ? 400 : 2600; /* the lists; above 2,048 buffers */
        tp_buffer *b = malloc(n * sizeof *b);
        fixed_set(b, n);
        uint64_t *off = malloc(n * sizeof *off), arena;
        past_deadline(b, n, off, &arena, NULL);
        for (size_t i = 0; i < n; i++)
            if (b[i].fixed_offset >= 0) TP_CHECK_EQ_U64(off[i], (uint64_t)b[i].fixed_offset);
        free(b);
        free(off);
    }
}

TP_TEST(anytime_never_above_the_first_plan) {
    static const double after[] = {0.0, 0.0005, 0.002, 0.01, 0.05};
    for (int set = 0; set < 4 && !tp_test_cur_failed_; set++) {
        size_t n = set < 2 ? 3000 : 12000;
        tp_buffer *b = trace_make(set % 2 == 0 ? 2 : 1, n, 11 + (uint64_t)set, 0.12);
        TP_CHECK(b != NULL);
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        tp_error e;
        uint64_t *off = malloc(n * sizeof *off), first, arena;
        past_deadline(b, n, off, &first, NULL);
        for (size_t k = 0; k < sizeof after / sizeof after[0]; k++) {
            TP_CHECK_OK(tp__alloc_bestfit_ex(b, n, &o, tp__xs_now() + after[k], NULL, off, &arena,
                                             NULL, &e),
                        ep(&e));
            check_plan(b, n, off, arena, o.alignment);
            TP_CHECK_LE_U64(arena, first);
        }
        free(b);
        free(off);
    }
}

TP_TEST(auto_with_a_nanosecond_limit_plans) {
    size_t n = 5000;
    for (int kind = 0; kind < 3 && !tp_test_cur_failed_; kind++) {
        tp_buffer *b = trace_make(kind, n, 5, 0.12);
        TP_CHECK(b != NULL);
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        o.algo = TP_ALGO_AUTO;
        o.time_limit_s = 1e-9;
        tp_error e;
        tp_alloc_result r;
        uint64_t *off = malloc(n * sizeof *off);
        TP_CHECK_OK(tp_alloc_plan(b, n, &o, NULL, off, &r, &e), ep(&e));
        check_plan(b, n, off, r.arena_bytes, o.alignment);
        TP_CHECK(r.arena_bytes >= r.lower_bound_bytes);
        /* the first plan is what ran past the limit, and the result says so */
        TP_CHECK(r.first_plan_seconds > o.time_limit_s);
        TP_CHECK(r.first_plan_seconds <= r.seconds);
        free(b);
        free(off);
    }
}

/* first_plan_seconds: with time left the search goes on after the first plan (the local
 * search on 3,000 long-lived buffers runs to 99 % of the limit), and the field tells the
 * two apart;
 * the one-pass placers report their whole placement. */
TP_TEST(result_reports_when_the_first_plan_was_in_hand) {
    size_t n = 3000;
    tp_buffer *b = trace_make(1, n, 21, 0.12);
    TP_CHECK(b != NULL);
    uint64_t *off = malloc(n * sizeof *off);
    tp_error e;
    tp_alloc_result r;
    tp_alloc_options o;
    tp_alloc_options_default(&o);
    o.algo = TP_ALGO_AUTO;
    o.time_limit_s = 0.5; /* 0.25 s was too short for the first plan under ASan on a loaded host */
    TP_CHECK_OK(tp_alloc_plan(b, n, &o, NULL, off, &r, &e), ep(&e));
    check_plan(b, n, off, r.arena_bytes, o.alignment);
    /* (the passes stop at 99 % of the limit, leaving the rest for returning) */
    TP_CHECK(r.seconds >= 0.98 * o.time_limit_s);
    TP_CHECK(r.first_plan_seconds > 0);
    TP_CHECK(r.first_plan_seconds < r.seconds - 0.05);
    static const tp_alloc_algo one_pass[] = {TP_ALGO_GREEDY_SIZE, TP_ALGO_NO_REUSE,
                                             TP_ALGO_BEST_FIT};
    for (size_t k = 0; k < sizeof one_pass / sizeof one_pass[0]; k++) {
        o.algo = one_pass[k];
        o.time_limit_s = 0;
        TP_CHECK_OK(tp_alloc_plan(b, n, &o, NULL, off, &r, &e), ep(&e));
        TP_CHECK(r.first_plan_seconds > 0);
        TP_CHECK(r.first_plan_seconds <= r.seconds);
    }
    free(b);
    free(off);
}

/* The local search (alloc_improve.c) on its own, from a poor start (no reuse) and from the
 * peak-out sweep: every plan verified, never above the start, never below the lower bound,
 * and the no-reuse start always comes down (a round that never accepts fails it). */
TP_TEST(improve_never_worsens_and_lowers_a_poor_plan) {
    for (uint64_t seed = 1; seed <= 6 && !tp_test_cur_failed_; seed++) {
        size_t n = 2500 + 500 * (size_t)(seed % 3);
        tp_buffer *b = trace_make((int)(seed % 3), n, 40 + seed, 0.12);
        TP_CHECK(b != NULL);
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        tp_error e;
        uint64_t *off = malloc(n * sizeof *off), start, arena, lb;
        TP_CHECK_OK(tp_alloc_lower_bound(b, n, NULL, &lb, &e), ep(&e));
        for (int from = 0; from < 2; from++) {
            if (from == 0)
                TP_CHECK_OK(tp__alloc_noreuse(b, n, &o, NULL, off, &start, &e), ep(&e));
            else
                TP_CHECK_OK(tp__alloc_sweep_peak(b, n, &o, true, 0, NULL, off, &start, &e), ep(&e));
            arena = start;
            unsigned rounds = 0;
            TP_CHECK_OK(
                tp__alloc_improve(b, n, &o, tp__xs_now() + 0.3, NULL, off, &arena, &rounds, &e),
                ep(&e));
            check_plan(b, n, off, arena, o.alignment);
            TP_CHECK(rounds > 0);
            TP_CHECK_LE_U64(arena, start);
            TP_CHECK(arena >= lb);
            if (from == 0) TP_CHECK(arena < start);
        }
        free(b);
        free(off);
    }
}

/* One size class (4-8 KiB: nothing is "small", so every buffer is placed by the gap
 * index), random lifetimes over 60 steps. */
static void one_class_set(tp_buffer *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        memset(&b[i], 0, sizeof b[i]);
        b[i].id = (int64_t)i;
        b[i].fixed_offset = -1;
        b[i].size = 4096 + rnd_below(4096);
        b[i].birth = (int64_t)rnd_below(60);
        b[i].death = b[i].birth + (int64_t)rnd_below(30);
    }
}

TP_TEST(split_finishes_when_three_quarters_are_placed) {
    rng_state = 4711;
    for (int s = 0; s < 6 && !tp_test_cur_failed_; s++) {
        size_t n = s % 2 == 0 ? 20 : 40; /* the deadline is first checked at 16 placed */
        tp_buffer *b = malloc(n * sizeof *b);
        one_class_set(b, n);
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        tp_error e;
        uint64_t *ref = malloc(n * sizeof *ref), *off = malloc(n * sizeof *off), ref_arena, arena;
        size_t ns = 1;
        TP_CHECK_OK(tp__alloc_split(b, n, &o, 0, NULL, ref, &ref_arena, true, false, &ns, &e),
                    ep(&e));
        TP_CHECK_EQ_U64(ns, 0);
        double past = tp__xs_now() - 1.0;
        TP_CHECK_STATUS(tp__alloc_split(b, n, &o, past, NULL, off, &arena, true, false, NULL, &e),
                        TP_ERR_TIMEOUT);
        tp_status st = tp__alloc_split(b, n, &o, past, NULL, off, &arena, true, true, NULL, &e);
        if (n == 20) { /* 16 of 20 placed: finished, the plan of no deadline */
            TP_CHECK_OK(st, ep(&e));
            check_plan(b, n, off, arena, o.alignment);
            TP_CHECK_EQ_U64(arena, ref_arena);
            TP_CHECK(memcmp(off, ref, n * sizeof *off) == 0);
        } else { /* 16 of 40: not three quarters */
            TP_CHECK_STATUS(st, TP_ERR_TIMEOUT);
        }
        free(b);
        free(ref);
        free(off);
    }
}

TP_TEST(sweeps_stop_at_a_past_deadline) {
    size_t n = 9000; /* past the first check (the sort) and a 4,096th buffer */
    for (int kind = 0; kind < 2 && !tp_test_cur_failed_; kind++) {
        tp_buffer *b = trace_make(kind, n, 3, 0.12);
        TP_CHECK(b != NULL);
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        tp_error e;
        uint64_t *off = malloc(n * sizeof *off), *ref = malloc(n * sizeof *ref), a, ra;
        double past = tp__xs_now() - 1.0, later = tp__xs_now() + 3600.0;
        for (int rev = 0; rev < 2; rev++) {
            TP_CHECK_STATUS(tp__alloc_sweep_ex(b, n, &o, true, rev == 1, past, NULL, off, &a, &e),
                            TP_ERR_TIMEOUT);
            TP_CHECK_OK(tp__alloc_sweep_ex(b, n, &o, true, rev == 1, 0, NULL, ref, &ra, &e),
                        ep(&e));
            TP_CHECK_OK(tp__alloc_sweep_ex(b, n, &o, true, rev == 1, later, NULL, off, &a, &e),
                        ep(&e));
            TP_CHECK_EQ_U64(a, ra);
            TP_CHECK(memcmp(off, ref, n * sizeof *off) == 0);
        }
        TP_CHECK_STATUS(tp__alloc_sweep_peak(b, n, &o, true, past, NULL, off, &a, &e),
                        TP_ERR_TIMEOUT);
        TP_CHECK_OK(tp__alloc_sweep_peak(b, n, &o, true, 0, NULL, ref, &ra, &e), ep(&e));
        TP_CHECK_OK(tp__alloc_sweep_peak(b, n, &o, true, later, NULL, off, &a, &e), ep(&e));
        TP_CHECK_EQ_U64(a, ra);
        TP_CHECK(memcmp(off, ref, n * sizeof *off) == 0);
        check_plan(b, n, ref, ra, o.alignment);
        free(b);
        free(off);
        free(ref);
    }
}

int main(void) {
    TP_RUN(past_deadline_short_lifetimes_gives_the_first_run);
    TP_RUN(past_deadline_long_lifetimes_gives_the_peak_out_sweep);
    TP_RUN(past_deadline_with_fixed_buffers_still_plans);
    TP_RUN(anytime_never_above_the_first_plan);
    TP_RUN(auto_with_a_nanosecond_limit_plans);
    TP_RUN(result_reports_when_the_first_plan_was_in_hand);
    TP_RUN(improve_never_worsens_and_lowers_a_poor_plan);
    TP_RUN(split_finishes_when_three_quarters_are_placed);
    TP_RUN(sweeps_stop_at_a_past_deadline);
    return tp_test_finish();
}
