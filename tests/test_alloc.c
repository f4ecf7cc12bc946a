/* ctest-labels: threads */
/* Allocator layer (tensorplan/alloc.h): hand-built cases for greedy, no-reuse, the lower
 * bound, the verifier, options and errors. Random/property tests: test_alloc_property.c. */
#include "harness.h"
#include "plan/alloc_internal.h"

#include <pthread.h>
#include <stdlib.h>

/* TP_CHECK_OK prints errp->msg; a call keeps gcc's -Waddress quiet about `&e ? ...`. */
static tp_error *ep(tp_error *e) {
    return e;
}

static tp_buffer B(uint64_t size, int64_t birth, int64_t death) {
    tp_buffer b = {.size = size, .birth = birth, .death = death, .fixed_offset = -1};
    return b;
}

static tp_alloc_options opts(tp_alloc_algo algo, uint64_t alignment) {
    tp_alloc_options o;
    tp_alloc_options_default(&o);
    o.algo = algo;
    o.alignment = alignment;
    return o;
}

/* Plan and verify; returns the status of the plan. */
static tp_status plan(tp_buffer *b, size_t n, tp_alloc_algo algo, uint64_t alignment, uint64_t *off,
                      tp_alloc_result *r, tp_error *e) {
    tp_alloc_options o = opts(algo, alignment);
    tp_status st = tp_alloc_plan(b, n, &o, NULL, off, r, e);
    if (st == TP_OK) {
        tp_error ve;
        tp_status vs = tp_alloc_verify(b, n, off, alignment, r->arena_bytes, NULL, &ve);
        if (vs != TP_OK) {
            printf("  verifier: %s\n", ve.msg);
            return vs;
        }
    }
    return st;
}

TP_TEST(options_and_names) {
    tp_alloc_options o;
    tp_alloc_options_default(&o);
    TP_CHECK_EQ_U64(o.alignment, 64);
    TP_CHECK(o.algo == TP_ALGO_GREEDY_SIZE);
    TP_CHECK(o.time_limit_s == 0.0);
    TP_CHECK_EQ_U64(o.capacity, 0);
    TP_CHECK(o.progress == NULL);

    const char *names[] = {"greedy", "noreuse", "bestfit", "exact", "auto"};
    for (int a = 0; a < TP_ALGO_COUNT; a++) {
        tp_alloc_algo got = TP_ALGO_COUNT;
        tp_error e;
        TP_CHECK_STR(tp_alloc_algo_name((tp_alloc_algo)a), names[a]);
        TP_CHECK_OK(tp_alloc_algo_parse(names[a], &got, &e), ep(&e));
        TP_CHECK_EQ_I64(got, a);
    }
    TP_CHECK_STR(tp_alloc_algo_name(TP_ALGO_COUNT), "unknown");
    tp_alloc_algo got = TP_ALGO_COUNT;
    tp_error e;
    TP_CHECK_OK(tp_alloc_algo_parse("no-reuse", &got, &e), ep(&e));
    TP_CHECK(got == TP_ALGO_NO_REUSE);
    TP_CHECK_STATUS(tp_alloc_algo_parse("fastest", &got, &e), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(e.msg, "'fastest'");
    TP_CHECK_STATUS(tp_alloc_algo_parse(NULL, &got, &e), TP_ERR_INVALID);
}

TP_TEST(empty_plan) {
    tp_alloc_result r;
    tp_error e;
    TP_CHECK_OK(tp_alloc_plan(NULL, 0, NULL, NULL, NULL, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(r.arena_bytes, 0);
    TP_CHECK_EQ_U64(r.lower_bound_bytes, 0);
    TP_CHECK(r.optimal);
    TP_CHECK_OK(tp_alloc_verify(NULL, 0, NULL, 64, 0, NULL, &e), ep(&e));
}

TP_TEST(overlapping_lifetimes_get_separate_bytes) {
    tp_buffer b[3] = {B(100, 0, 2), B(50, 1, 3), B(200, 2, 2)};
    uint64_t off[3];
    tp_alloc_result r;
    tp_error e;
    TP_CHECK_OK(plan(b, 3, TP_ALGO_GREEDY_SIZE, 64, off, &r, &e), ep(&e));
    /* size order: 200 @0, 100 -> after 200 (end 200 -> 256), 50 -> conflicts with 100 only
     * at [1,3]x... and with 200? 200 lives [2,2], 50 lives [1,3]: yes. */
    TP_CHECK_EQ_U64(off[2], 0);
    TP_CHECK_EQ_U64(off[0], 256);
    TP_CHECK_EQ_U64(off[1], 384);
    TP_CHECK_EQ_U64(r.arena_bytes, 434);
    TP_CHECK_EQ_U64(r.lower_bound_bytes, 350);
    TP_CHECK(!r.optimal);
    TP_CHECK(r.algo_used == TP_ALGO_GREEDY_SIZE);
    TP_CHECK(r.seconds >= 0.0);
}

TP_TEST(disjoint_lifetimes_share_offset_zero) {
    tp_buffer b[4] = {B(100, 0, 0), B(300, 1, 1), B(200, 2, 2), B(10, 3, 5)};
    uint64_t off[4];
    tp_alloc_result r;
    tp_error e;
    TP_CHECK_OK(plan(b, 4, TP_ALGO_GREEDY_SIZE, 64, off, &r, &e), ep(&e));
    for (int i = 0; i < 4; i++)
        TP_CHECK_EQ_U64(off[i], 0);
    TP_CHECK_EQ_U64(r.arena_bytes, 300);
    TP_CHECK_EQ_U64(r.lower_bound_bytes, 300);
    TP_CHECK(r.optimal);
}

TP_TEST(inclusive_lifetimes_touching_at_a_step_conflict) {
    tp_buffer b[2] = {B(64, 0, 3), B(64, 3, 5)}; /* share step 3 */
    uint64_t off[2];
    tp_alloc_result r;
    tp_error e;
    TP_CHECK_OK(plan(b, 2, TP_ALGO_GREEDY_SIZE, 64, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(off[0], 0);
    TP_CHECK_EQ_U64(off[1], 64);
    TP_CHECK_EQ_U64(r.arena_bytes, 128);
}

TP_TEST(ties_keep_input_order_and_gaps_are_reused) {
    /* Three equal sizes: input order decides. Then a small buffer fits in a gap at 0 left by
     * a buffer that lives at other steps. */
    tp_buffer b[4] = {B(128, 0, 1), B(128, 1, 2), B(128, 2, 3), B(64, 3, 3)};
    uint64_t off[4];
    tp_alloc_result r;
    tp_error e;
    TP_CHECK_OK(plan(b, 4, TP_ALGO_GREEDY_SIZE, 64, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(off[0], 0);
    TP_CHECK_EQ_U64(off[1], 128);
    TP_CHECK_EQ_U64(off[2], 0);
    TP_CHECK_EQ_U64(off[3], 128); /* conflicts with b[2] at 0, b[1] ended at step 2 */
    TP_CHECK_EQ_U64(r.arena_bytes, 256);
}

TP_TEST(alignment_global_and_per_buffer) {
    tp_buffer b[3] = {B(10, 0, 5), B(10, 0, 5), B(10, 0, 5)};
    b[2].alignment = 256;
    uint64_t off[3];
    tp_alloc_result r;
    tp_error e;
    TP_CHECK_OK(plan(b, 3, TP_ALGO_GREEDY_SIZE, 16, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(off[0], 0);
    TP_CHECK_EQ_U64(off[1], 16);
    TP_CHECK_EQ_U64(off[2], 256);
    TP_CHECK_EQ_U64(r.arena_bytes, 266);
    TP_CHECK_OK(plan(b, 3, TP_ALGO_GREEDY_SIZE, 1, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(off[1], 10);
    TP_CHECK_EQ_U64(off[2], 256);
}

TP_TEST(tail_guards_reserve_bytes_and_count_in_size_order) {
    tp_buffer b[2] = {B(100, 0, 1), B(90, 0, 1)};
    b[1].tail_guard = 128; /* placement 218 > 100: placed first */
    uint64_t off[2];
    tp_alloc_result r;
    tp_error e;
    TP_CHECK_OK(plan(b, 2, TP_ALGO_GREEDY_SIZE, 64, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(off[1], 0);
    TP_CHECK_EQ_U64(off[0], 256); /* 218 aligned up to 64 */
    TP_CHECK_EQ_U64(r.arena_bytes, 356);
    TP_CHECK_EQ_U64(r.lower_bound_bytes, 318);
}

TP_TEST(zero_size_buffers_get_a_slot) {
    tp_buffer b[3] = {B(0, 0, 2), B(100, 0, 2), B(0, 1, 1)};
    b[2].tail_guard = 64; /* zero-size boundary buffer with its guard */
    uint64_t off[3];
    tp_alloc_result r;
    tp_error e;
    TP_CHECK_OK(plan(b, 3, TP_ALGO_GREEDY_SIZE, 64, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(off[1], 0);
    TP_CHECK_EQ_U64(off[2], 128);
    TP_CHECK_EQ_U64(off[0], 0); /* placement size 0 never conflicts at 0 */
    TP_CHECK_EQ_U64(r.arena_bytes, 192);
    TP_CHECK_OK(plan(b, 3, TP_ALGO_NO_REUSE, 64, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(off[0], 0);
    TP_CHECK_EQ_U64(off[1], 0);
    TP_CHECK_EQ_U64(off[2], 128);
}

TP_TEST(fixed_buffers_are_honoured) {
    /* A fixed weight at [0, 1000) for the whole run, another fixed at 4096. */
    tp_buffer b[4] = {B(1000, 0, 9), B(500, 0, 1), B(500, 2, 3), B(100, 0, 9)};
    b[0].fixed_offset = 0;
    b[3].fixed_offset = 4096;
    uint64_t off[4];
    tp_alloc_result r;
    tp_error e;
    TP_CHECK_OK(plan(b, 4, TP_ALGO_GREEDY_SIZE, 64, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(off[0], 0);
    TP_CHECK_EQ_U64(off[3], 4096);
    TP_CHECK_EQ_U64(off[1], 1024);
    TP_CHECK_EQ_U64(off[2], 1024);
    TP_CHECK_EQ_U64(r.arena_bytes, 4196);
    TP_CHECK_OK(plan(b, 4, TP_ALGO_NO_REUSE, 64, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(off[0], 0);
    TP_CHECK_EQ_U64(off[3], 4096);
    TP_CHECK_EQ_U64(off[1], 4224);
    TP_CHECK_EQ_U64(off[2], 4736);
    TP_CHECK_EQ_U64(r.arena_bytes, 5236);
}

TP_TEST(fixed_region_with_a_gap_is_used) {
    /* Fixed buffers leave a hole [1024, 2048) that a 1000-byte buffer fits in. */
    tp_buffer b[3] = {B(1024, 0, 5), B(1024, 0, 5), B(1000, 1, 2)};
    b[0].fixed_offset = 0;
    b[1].fixed_offset = 2048;
    uint64_t off[3];
    tp_alloc_result r;
    tp_error e;
    TP_CHECK_OK(plan(b, 3, TP_ALGO_GREEDY_SIZE, 64, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(off[2], 1024);
    TP_CHECK_EQ_U64(r.arena_bytes, 3072);
}

TP_TEST(no_reuse_places_in_input_order) {
    tp_buffer b[3] = {B(10, 0, 0), B(100, 1, 1), B(1, 2, 2)};
    uint64_t off[3];
    tp_alloc_result r;
    tp_error e;
    TP_CHECK_OK(plan(b, 3, TP_ALGO_NO_REUSE, 64, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(off[0], 0);
    TP_CHECK_EQ_U64(off[1], 64);
    TP_CHECK_EQ_U64(off[2], 192);
    TP_CHECK_EQ_U64(r.arena_bytes, 193);
    TP_CHECK_EQ_U64(r.lower_bound_bytes, 100);
    TP_CHECK(r.algo_used == TP_ALGO_NO_REUSE);
}

TP_TEST(lower_bound_sweep) {
    tp_buffer b[4] = {B(10, 0, 1), B(20, 1, 2), B(40, 3, 3), B(5, 2, 4)};
    b[1].tail_guard = 3;
    uint64_t lb = 0;
    tp_error e;
    TP_CHECK_OK(tp_alloc_lower_bound(b, 4, NULL, &lb, &e), ep(&e));
    TP_CHECK_EQ_U64(lb, 45); /* step 3: 40 + 5; step 1: 10 + 23 = 33 */
    b[0].size = 100;
    TP_CHECK_OK(tp_alloc_lower_bound(b, 4, NULL, &lb, &e), ep(&e));
    TP_CHECK_EQ_U64(lb, 123);
    tp_buffer big[2] = {B(UINT64_MAX / 2 + 1, 0, 1), B(UINT64_MAX / 2 + 1, 1, 2)};
    TP_CHECK_STATUS(tp_alloc_lower_bound(big, 2, NULL, &lb, &e), TP_ERR_OVERFLOW);
    TP_CHECK_CONTAINS(e.msg, "step 1");
    big[1].birth = 2; /* disjoint: no overflow, no spurious sum */
    TP_CHECK_OK(tp_alloc_lower_bound(big, 2, NULL, &lb, &e), ep(&e));
    TP_CHECK_EQ_U64(lb, UINT64_MAX / 2 + 1);
    TP_CHECK_STATUS(tp_alloc_lower_bound(b, 4, NULL, NULL, &e), TP_ERR_INVALID);
}

TP_TEST(errors_are_reported_with_context) {
    tp_buffer b[2] = {B(10, 0, 1), B(10, 0, 1)};
    uint64_t off[2];
    tp_alloc_result r;
    tp_error e;
    tp_alloc_options o = opts(TP_ALGO_GREEDY_SIZE, 48);
    TP_CHECK_STATUS(tp_alloc_plan(b, 2, &o, NULL, off, &r, &e), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(e.msg, "alignment 48");
    o = opts(TP_ALGO_GREEDY_SIZE, 64);
    b[1].alignment = 12;
    b[1].id = 77;
    TP_CHECK_STATUS(tp_alloc_plan(b, 2, &o, NULL, off, &r, &e), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(e.msg, "id 77");
    TP_CHECK_CONTAINS(e.msg, "alignment 12");
    TP_CHECK_EQ_I64(e.node, 77);
    b[1].alignment = 0;
    b[1].birth = 5;
    TP_CHECK_STATUS(tp_alloc_plan(b, 2, &o, NULL, off, &r, &e), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(e.msg, "birth after death");
    b[1].birth = -1;
    TP_CHECK_STATUS(tp_alloc_plan(b, 2, &o, NULL, off, &r, &e), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(e.msg, "negative birth");
    b[1].birth = 0;
    b[1].size = UINT64_MAX;
    b[1].tail_guard = 1;
    TP_CHECK_STATUS(tp_alloc_plan(b, 2, &o, NULL, off, &r, &e), TP_ERR_OVERFLOW);
    b[1].tail_guard = 0;
    b[1].size = 10;
    b[1].fixed_offset = 30;
    TP_CHECK_STATUS(tp_alloc_plan(b, 2, &o, NULL, off, &r, &e), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(e.msg, "not aligned");
    b[1].fixed_offset = INT64_MAX - 63;
    b[1].size = UINT64_MAX / 2 + 100;
    TP_CHECK_STATUS(tp_alloc_plan(b, 2, &o, NULL, off, &r, &e), TP_ERR_OVERFLOW);
    b[1].size = 10;
    TP_CHECK_STATUS(tp_alloc_plan(b, 2, &o, NULL, NULL, &r, &e), TP_ERR_INVALID);
    b[1].fixed_offset = -1;
    o.algo = TP_ALGO_COUNT;
    TP_CHECK_STATUS(tp_alloc_plan(b, 2, &o, NULL, off, &r, &e), TP_ERR_INVALID);
}

TP_TEST(fixed_buffers_overlapping_each_other) {
    tp_buffer b[3] = {B(100, 0, 5), B(10, 3, 3), B(100, 6, 9)};
    b[0].fixed_offset = 0;
    b[0].id = 1;
    b[1].fixed_offset = 64;
    b[1].id = 2;
    b[2].fixed_offset = 0; /* same bytes as b[0], but later: fine */
    uint64_t off[3];
    tp_alloc_result r;
    tp_error e;
    tp_alloc_options o = opts(TP_ALGO_GREEDY_SIZE, 64);
    TP_CHECK_STATUS(tp_alloc_plan(b, 3, &o, NULL, off, &r, &e), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(e.msg, "fixed buffers 0 (id 1");
    TP_CHECK_CONTAINS(e.msg, "1 (id 2");
    b[1].fixed_offset = 128;
    TP_CHECK_OK(tp_alloc_plan(b, 3, &o, NULL, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(off[2], 0);
}

TP_TEST(overflow_while_placing_is_an_error_not_a_wrap) {
    uint64_t half = UINT64_C(1) << 63;
    tp_buffer b[2] = {B(half, 0, 1), B(half, 1, 2)};
    uint64_t off[2];
    tp_alloc_result r;
    tp_error e;
    tp_alloc_options o = opts(TP_ALGO_GREEDY_SIZE, 64);
    /* 2^63 + 2^63 = 2^64: the second end does not fit in 64 bits */
    TP_CHECK_STATUS(tp_alloc_plan(b, 2, &o, NULL, off, &r, &e), TP_ERR_OVERFLOW);
    TP_CHECK_CONTAINS(e.msg, "2^64");
    o.algo = TP_ALGO_NO_REUSE;
    TP_CHECK_STATUS(tp_alloc_plan(b, 2, &o, NULL, off, &r, &e), TP_ERR_OVERFLOW);
    /* candidate alignment past 2^64 */
    tp_buffer c[2] = {B(UINT64_MAX - 10, 0, 1), B(1, 0, 1)};
    o.algo = TP_ALGO_GREEDY_SIZE;
    TP_CHECK_STATUS(tp_alloc_plan(c, 2, &o, NULL, off, &r, &e), TP_ERR_OVERFLOW);
    /* disjoint lifetimes: both at 0, no overflow */
    b[1].birth = 2;
    TP_CHECK_OK(tp_alloc_plan(b, 2, &o, NULL, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(r.arena_bytes, half);
    TP_CHECK_EQ_U64(off[1], 0);
}

TP_TEST(unimplemented_algorithms_say_so_or_work) {
    tp_buffer b[2] = {B(10, 0, 1), B(10, 0, 1)};
    uint64_t off[2];
    tp_alloc_result r;
    tp_error e;
    for (int a = TP_ALGO_BEST_FIT; a < TP_ALGO_COUNT; a++) {
        tp_alloc_options o = opts((tp_alloc_algo)a, 64);
        tp_status st = tp_alloc_plan(b, 2, &o, NULL, off, &r, &e);
        if (st == TP_ERR_UNSUPPORTED) {
            TP_CHECK_CONTAINS(e.msg, tp_alloc_algo_name((tp_alloc_algo)a));
        } else {
            TP_CHECK_OK(st, ep(&e));
            TP_CHECK_OK(tp_alloc_verify(b, 2, off, 64, r.arena_bytes, NULL, &e), ep(&e));
            TP_CHECK_EQ_U64(r.arena_bytes, 74);
        }
    }
}

TP_TEST(verifier_catches_bad_plans) {
    tp_buffer b[3] = {B(100, 0, 2), B(50, 2, 4), B(10, 5, 6)};
    b[0].id = 10;
    b[1].id = 11;
    b[2].id = 12;
    uint64_t off[3] = {0, 64, 0}; /* b0 [0,100) and b1 [64,114) both live at step 2 */
    tp_error e;
    TP_CHECK_STATUS(tp_alloc_verify(b, 3, off, 64, 200, NULL, &e), TP_ERR_VERIFY);
    TP_CHECK_CONTAINS(e.msg, "id 10");
    TP_CHECK_CONTAINS(e.msg, "id 11");
    TP_CHECK_CONTAINS(e.msg, "[64, 100)");
    TP_CHECK_CONTAINS(e.msg, "steps [2, 2]");
    off[1] = 128;
    TP_CHECK_OK(tp_alloc_verify(b, 3, off, 64, 178, NULL, &e), ep(&e));
    TP_CHECK_STATUS(tp_alloc_verify(b, 3, off, 64, 177, NULL, &e), TP_ERR_VERIFY);
    TP_CHECK_CONTAINS(e.msg, "arena");
    off[1] = 160;
    TP_CHECK_STATUS(tp_alloc_verify(b, 3, off, 64, 1000, NULL, &e), TP_ERR_VERIFY);
    TP_CHECK_CONTAINS(e.msg, "not aligned");
    TP_CHECK_OK(tp_alloc_verify(b, 3, off, 32, 1000, NULL, &e), ep(&e));
    off[1] = 128;
    b[2].fixed_offset = 64;
    TP_CHECK_STATUS(tp_alloc_verify(b, 3, off, 64, 1000, NULL, &e), TP_ERR_VERIFY);
    TP_CHECK_CONTAINS(e.msg, "fixed offset");
    b[2].fixed_offset = -1;
    TP_CHECK_STATUS(tp_alloc_verify(b, 3, off, 3, 1000, NULL, &e), TP_ERR_INVALID);
    /* zero-size buffer strictly inside a live one conflicts; at its start it does not */
    tp_buffer z[2] = {B(100, 0, 1), B(0, 1, 1)};
    uint64_t zo[2] = {0, 32};
    TP_CHECK_STATUS(tp_alloc_verify(z, 2, zo, 32, 100, NULL, &e), TP_ERR_VERIFY);
    zo[1] = 0;
    TP_CHECK_OK(tp_alloc_verify(z, 2, zo, 32, 100, NULL, &e), ep(&e));
    zo[1] = 96; /* [96,96) inside [0,100) */
    TP_CHECK_STATUS(tp_alloc_verify(z, 2, zo, 32, 100, NULL, &e), TP_ERR_VERIFY);
    zo[1] = 128;
    TP_CHECK_OK(tp_alloc_verify(z, 2, zo, 32, 128, NULL, &e), ep(&e));
}

TP_TEST(verifier_finds_a_conflict_hidden_behind_many_buffers) {
    /* Many disjoint live buffers, one late buffer overlapping an early, long one. */
    enum { N = 200 };
    tp_buffer b[N + 1];
    uint64_t off[N + 1];
    for (int i = 0; i < N; i++) {
        b[i] = B(64, i, i + 1 == N ? 1000 : i + 1);
        off[i] = i + 1 == N ? 0 : (uint64_t)(i % 2) * 64 + 256;
    }
    b[N] = B(1, 999, 999);
    off[N] = 0;
    tp_error e;
    /* b[N-1] lives [N-1, 1000] at [0,64) and b[N] lives [999] at [0,1): conflict */
    TP_CHECK_STATUS(tp_alloc_verify(b, N + 1, off, 1, 100000, NULL, &e), TP_ERR_VERIFY);
    TP_CHECK_CONTAINS(e.msg, "steps [999, 999]");
    off[N] = 64;
    TP_CHECK_OK(tp_alloc_verify(b, N + 1, off, 1, 100000, NULL, &e), ep(&e));
}

TP_TEST(staircase_of_fixed_buffers_across_time_nodes) {
    /* Fixed buffers alternate in bytes between two lifetimes, so the lowest fit for a buffer
     * spanning both climbs a staircase: exercises the placer's slow path (many passes). */
    enum { PAIRS = 40 };
    tp_buffer b[2 * PAIRS + 2];
    for (int k = 0; k < PAIRS; k++) {
        b[2 * k] = B(10, 0, 1);
        b[2 * k].fixed_offset = 20 * k;
        b[2 * k + 1] = B(10, 1, 2);
        b[2 * k + 1].fixed_offset = 20 * k + 10;
    }
    b[2 * PAIRS] = B(5, 0, 2);
    b[2 * PAIRS + 1] = B(5, 2, 3);
    uint64_t off[2 * PAIRS + 2];
    tp_alloc_result r;
    tp_error e;
    TP_CHECK_OK(plan(b, 2 * PAIRS + 2, TP_ALGO_GREEDY_SIZE, 1, off, &r, &e), ep(&e));
    TP_CHECK_EQ_U64(off[2 * PAIRS], 20 * PAIRS);
    /* [2,3] meets the B side (steps 1-2) and the buffer above: B0 is at [10,20), 0 is free */
    TP_CHECK_EQ_U64(off[2 * PAIRS + 1], 0);
    TP_CHECK_EQ_U64(r.arena_bytes, 20 * PAIRS + 5);
}

TP_TEST(greedy_with_a_caller_order) {
    tp_buffer b[4] = {B(100, 0, 1), B(200, 1, 2), B(50, 0, 2), B(64, 3, 3)};
    b[3].fixed_offset = 0;
    tp_alloc_options o = opts(TP_ALGO_GREEDY_SIZE, 64);
    uint64_t off[4], arena = 0;
    tp_error e;
    size_t order[3] = {2, 0, 1}; /* smallest first */
    TP_CHECK_OK(tp__alloc_greedy_ordered(b, 4, order, 3, &o, NULL, off, &arena, &e), ep(&e));
    TP_CHECK_EQ_U64(off[2], 0);
    TP_CHECK_EQ_U64(off[0], 64);
    TP_CHECK_EQ_U64(off[1], 192); /* above 50@0 and 100@64 (both live at step 1) */
    TP_CHECK_EQ_U64(off[3], 0);
    TP_CHECK_EQ_U64(arena, 392);
    TP_CHECK_OK(tp_alloc_verify(b, 4, off, 64, arena, NULL, &e), ep(&e));
    size_t by_size[3] = {1, 0, 2};
    uint64_t off2[4], arena2 = 0;
    TP_CHECK_OK(tp__alloc_greedy_ordered(b, 4, by_size, 3, &o, NULL, off2, &arena2, &e), ep(&e));
    tp_alloc_result r;
    TP_CHECK_OK(tp_alloc_plan(b, 4, &o, NULL, off, &r, &e), ep(&e));
    TP_CHECK(memcmp(off, off2, sizeof off) == 0);
    TP_CHECK_EQ_U64(arena2, r.arena_bytes);
    size_t dup[3] = {2, 0, 2}, fixed[1] = {3}, out_of_range[1] = {9};
    TP_CHECK_STATUS(tp__alloc_greedy_ordered(b, 4, dup, 3, &o, NULL, off, &arena, &e),
                    TP_ERR_INVALID);
    TP_CHECK_CONTAINS(e.msg, "entry 2");
    TP_CHECK_STATUS(tp__alloc_greedy_ordered(b, 4, fixed, 1, &o, NULL, off, &arena, &e),
                    TP_ERR_INVALID);
    TP_CHECK_STATUS(tp__alloc_greedy_ordered(b, 4, out_of_range, 1, &o, NULL, off, &arena, &e),
                    TP_ERR_INVALID);
}

TP_TEST(failing_allocator_sweep) {
    tp_buffer b[6] = {B(100, 0, 2), B(50, 1, 3), B(200, 2, 2),
                      B(70, 3, 5),  B(10, 0, 5), B(300, 4, 5)};
    b[4].fixed_offset = 1024;
    b[5].fixed_offset = 0;
    tp_alloc_options o = opts(TP_ALGO_GREEDY_SIZE, 64);
    uint64_t off[6], ref[6];
    tp_alloc_result r, rr;
    tp_error e;
    TP_CHECK_OK(tp_alloc_plan(b, 6, &o, NULL, ref, &rr, &e), ep(&e));
    int completed = 0;
    for (long k = 1; k < 200 && !completed; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, k);
        tp_status st = tp_alloc_plan(b, 6, &o, &fa.hook, off, &r, &e);
        TP_CHECK_EQ_U64(fa.live_bytes, 0);
        TP_CHECK_EQ_I64(fa.live, 0);
        if (st == TP_OK) {
            TP_CHECK(!fa.failed);
            TP_CHECK_EQ_U64(r.arena_bytes, rr.arena_bytes);
            TP_CHECK(memcmp(off, ref, sizeof off) == 0);
            completed = 1;
        } else {
            TP_CHECK_STATUS(st, TP_ERR_NOMEM);
            TP_CHECK(fa.failed);
        }
    }
    TP_CHECK(completed);
}

/* Reentrancy: several threads plan (greedy and no-reuse), verify and bound the same shared,
 * read-only buffers at once; every result equals the single-threaded one. */
enum { MT_N = 3000, MT_THREADS = 4 };
static tp_buffer mt_bufs[MT_N];
static uint64_t mt_ref[2][MT_N], mt_ref_arena[2];

typedef struct mt_job {
    int ok;
} mt_job;

static void *mt_worker(void *arg) {
    mt_job *job = arg;
    uint64_t *off = malloc(MT_N * sizeof *off);
    job->ok = off != NULL;
    for (int rep = 0; rep < 3 && job->ok; rep++) {
        for (int a = 0; a < 2; a++) {
            tp_alloc_options o = opts(a ? TP_ALGO_NO_REUSE : TP_ALGO_GREEDY_SIZE, 64);
            tp_alloc_result r;
            tp_error e;
            uint64_t lb = 0;
            if (tp_alloc_plan(mt_bufs, MT_N, &o, NULL, off, &r, &e) != TP_OK ||
                r.arena_bytes != mt_ref_arena[a] || memcmp(off, mt_ref[a], MT_N * sizeof *off) ||
                tp_alloc_verify(mt_bufs, MT_N, off, 64, r.arena_bytes, NULL, &e) != TP_OK ||
                tp_alloc_lower_bound(mt_bufs, MT_N, NULL, &lb, &e) != TP_OK ||
                lb != r.lower_bound_bytes)
                job->ok = 0;
        }
    }
    free(off);
    return NULL;
}

TP_TEST(concurrent_plans_are_independent) {
    uint64_t x = 88172645463325252u;
    for (int i = 0; i < MT_N; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        mt_bufs[i] = B(256 + x % 100000, i, i + 1 + (int64_t)(x >> 40) % 6);
        if (i % 500 == 0) mt_bufs[i].death = MT_N + 10;
    }
    for (int a = 0; a < 2; a++) {
        tp_alloc_options o = opts(a ? TP_ALGO_NO_REUSE : TP_ALGO_GREEDY_SIZE, 64);
        tp_alloc_result r;
        tp_error e;
        TP_CHECK_OK(tp_alloc_plan(mt_bufs, MT_N, &o, NULL, mt_ref[a], &r, &e), ep(&e));
        mt_ref_arena[a] = r.arena_bytes;
    }
    pthread_t th[MT_THREADS];
    mt_job jobs[MT_THREADS];
    int started = 0;
    for (int k = 0; k < MT_THREADS; k++)
        if (pthread_create(&th[k], NULL, mt_worker, &jobs[k]) == 0)
            started++;
        else
            break;
    TP_CHECK_EQ_I64(started, MT_THREADS);
    for (int k = 0; k < started; k++) {
        pthread_join(th[k], NULL);
        TP_CHECK(jobs[k].ok);
    }
}

int main(void) {
    TP_RUN(options_and_names);
    TP_RUN(empty_plan);
    TP_RUN(overlapping_lifetimes_get_separate_bytes);
    TP_RUN(disjoint_lifetimes_share_offset_zero);
    TP_RUN(inclusive_lifetimes_touching_at_a_step_conflict);
    TP_RUN(ties_keep_input_order_and_gaps_are_reused);
    TP_RUN(alignment_global_and_per_buffer);
    TP_RUN(tail_guards_reserve_bytes_and_count_in_size_order);
    TP_RUN(zero_size_buffers_get_a_slot);
    TP_RUN(fixed_buffers_are_honoured);
    TP_RUN(fixed_region_with_a_gap_is_used);
    TP_RUN(no_reuse_places_in_input_order);
    TP_RUN(lower_bound_sweep);
    TP_RUN(errors_are_reported_with_context);
    TP_RUN(fixed_buffers_overlapping_each_other);
    TP_RUN(overflow_while_placing_is_an_error_not_a_wrap);
    TP_RUN(unimplemented_algorithms_say_so_or_work);
    TP_RUN(verifier_catches_bad_plans);
    TP_RUN(verifier_finds_a_conflict_hidden_behind_many_buffers);
    TP_RUN(staircase_of_fixed_buffers_across_time_nodes);
    TP_RUN(greedy_with_a_caller_order);
    TP_RUN(failing_allocator_sweep);
    TP_RUN(concurrent_plans_are_independent);
    return tp_test_finish();
}
