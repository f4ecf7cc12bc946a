/* Allocation-failure sweep over graph building (the demo model) + liveness +
 * planning + backward planning: failing the k-th allocation, for every k,
 * must end in TP_ERR_NOMEM with a message, and destroying what was built must
 * leave 0 live bytes. */
#include "harness.h"
#include "tensorplan/demo.h"

static void small_demo(tp_demo_options *o) {
    tp_demo_options_default(o);
    o->layers = 2;
    o->d_model = 16;
    o->heads = 2;
    o->ffn = 32;
    o->vocab = 40;
    o->n_ctx = 8;
    o->seq = 4;
    o->batch = 2;
}

/* One full run with allocation k failing; returns true when nothing failed. */
static bool run_once(long k, long *allocations) {
    tp_failing_allocator fa;
    tp_failing_allocator_init(&fa, k);
    tp_error err;
    tp_error_clear(&err);
    tp_demo_options o;
    small_demo(&o);
    tp_graph *g = NULL;
    tp_liveness *l = NULL;
    tp_plan *p = NULL, *bp = NULL;
    tp_plan_options po;
    tp_plan_options_default(&po);
    tp_status st = tp_demo_transformer(&o, &fa.hook, &g, &err);
    if (st == TP_OK) st = tp_liveness_compute(g, &po, &fa.hook, &l, &err);
    if (st == TP_OK) st = tp_plan_graph(g, &po, &p, &err);
    /* the same graph as its own backward graph: every weight matches */
    if (st == TP_OK) st = tp_plan_backward(p, g, g, &po, &bp, &err);
    if (st == TP_OK) st = tp_plan_verify(bp, &err);
    if (st == TP_OK) {
        TP_CHECK(!fa.failed);
        TP_CHECK(tp_plan_arena_bytes(bp) >= tp_plan_lower_bound_bytes(bp));
    } else {
        if (st != TP_ERR_NOMEM) TP_FAIL_("k=%ld: %s: %s", k, tp_status_name(st), err.msg);
        TP_CHECK(fa.failed);
        TP_CHECK(err.msg[0] != 0);
    }
    tp_plan_destroy(bp);
    tp_plan_destroy(p);
    tp_liveness_destroy(l);
    tp_graph_destroy(g);
    if (fa.live != 0 || fa.live_bytes != 0)
        TP_FAIL_("k=%ld: %ld allocations / %zu bytes still live after destroy", k, fa.live,
                 fa.live_bytes);
    *allocations = fa.count;
    return !fa.failed;
}

TP_TEST(sweep_every_allocation) {
    long total = 0;
    TP_CHECK(run_once(0, &total)); /* never fails: counts the allocations */
    TP_CHECK(total > 20);
    long k = 1;
    for (; k <= total + 1 && !tp_test_cur_failed_; k++) {
        long n = 0;
        bool clean = run_once(k, &n);
        if (clean) break; /* k beyond the last allocation */
    }
    printf("  %ld allocations, swept %ld failure points\n", total, k - 1);
    TP_CHECK(k >= total);
}

/* Sticky failure after a few successes in the middle of planning only. */
TP_TEST(plan_failures_with_prebuilt_graph) {
    tp_error err;
    tp_demo_options o;
    small_demo(&o);
    for (long k = 1; k < 200; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, 0);
        tp_graph *g = NULL;
        TP_CHECK_OK(tp_demo_transformer(&o, &fa.hook, &g, &err), &err);
        if (!g) return;
        long base = fa.count;
        fa.fail_at = base + k;
        tp_plan *p = NULL;
        tp_status st = tp_plan_graph(g, NULL, &p, &err);
        bool failed = fa.failed;
        if (st == TP_OK) {
            TP_CHECK(!failed);
            TP_CHECK(p != NULL);
        } else {
            TP_CHECK_STATUS(st, TP_ERR_NOMEM);
            TP_CHECK(p == NULL);
        }
        tp_plan_destroy(p);
        tp_graph_destroy(g);
        TP_CHECK_EQ_U64(fa.live_bytes, 0);
        if (!failed) break;
    }
}

int main(void) {
    TP_RUN(sweep_every_allocation);
    TP_RUN(plan_failures_with_prebuilt_graph);
    return tp_test_finish();
}
