/* The ggml graph allocator and scheduler emulations (src/estimate/ggml_alloc_emul.c,
 * ggml_sched_emul.c) on graphs small enough to plan by hand. */
#include "estimate/ggml_sched_emul.h"
#include "harness.h"

static int32_t vec(tp_gg_graph *g, tp_gg_op op, int64_t n, int32_t src) {
    int32_t s[1] = {src};
    return tp__gg_new(g, op, TP_DTYPE_F32, n, 1, 1, 1, s, 1);
}

static uint64_t plan(tp_gg_graph *g) {
    uint64_t align = 32, size = 0;
    tp_error err;
    tp_status s = tp__ga_reserve(g, NULL, NULL, 1, &align, &size, &err);
    TP_CHECK_EQ_I64(s, TP_OK);
    return size;
}

/* x(416 B) -> a -> b (in place on a) -> c (832 B) -> d (224 B): x's block
 * is freed after a, a's (b's) after c; c takes the open end at 832, d the
 * merged hole at 0: the buffer is 832 + 800 = 1632 bytes. */
TP_TEST(inplace_free_and_best_fit) {
    tp_gg_graph g;
    tp__gg_init(&g);
    int32_t x = tp__gg_leaf(&g, TP_DTYPE_F32, 100, 1, 1, 1, false, TP_GG_INPUT);
    int32_t a = vec(&g, TP_GG_OTHER, 100, x);
    int32_t b = vec(&g, TP_GG_INPLACE, 100, a);
    int32_t c = vec(&g, TP_GG_OTHER, 200, b);
    int32_t d = vec(&g, TP_GG_OTHER, 50, c);
    tp__gg_expand(&g, d);
    TP_CHECK_EQ_U64(g.n_nodes, 4);
    TP_CHECK_EQ_U64(g.n_leafs, 1);
    TP_CHECK_EQ_U64(plan(&g), 1632);
    tp__gg_free(&g);
}

/* An output is never reused in place nor freed: b then needs its own block
 * (the hole x left) and e the open end. Without the flag b reuses a. */
TP_TEST(outputs_are_kept) {
    for (int flag = 0; flag < 2; flag++) {
        tp_gg_graph g;
        tp__gg_init(&g);
        int32_t x = tp__gg_leaf(&g, TP_DTYPE_F32, 100, 1, 1, 1, false, TP_GG_INPUT);
        int32_t a = vec(&g, TP_GG_OTHER, 100, x);
        if (flag) g.t[a].flags |= TP_GG_OUTPUT;
        int32_t b = vec(&g, TP_GG_INPLACE, 100, a);
        int32_t e = vec(&g, TP_GG_OTHER, 100, b);
        tp__gg_expand(&g, e);
        TP_CHECK_EQ_U64(plan(&g), flag ? 1248 : 832);
        tp__gg_free(&g);
    }
}

/* A graph input on the CPU read by an op whose weight is on device 0: the
 * input is copied to the device (the copy freed after its consumer); with
 * pipeline parallelism the input has 4 copies on the CPU and 4 on the
 * device, kept for the whole graph. */
TP_TEST(scheduler_copies_inputs) {
    for (uint32_t nc = 1; nc <= 4; nc += 3) {
        tp_gg_graph g;
        tp__gg_init(&g);
        int32_t x = tp__gg_leaf(&g, TP_DTYPE_F32, 100, 1, 1, 1, false, TP_GG_INPUT);
        g.cur_layer = 0;
        int32_t a = vec(&g, TP_GG_OTHER, 100, x);
        g.t[a].wkind = TP_GG_W_WEIGHT;
        tp__gg_expand(&g, a);
        uint8_t layer_be[3] = {1, 0, 0}, expert_be[1] = {0}, cache_be[1] = {0};
        tp_gs_backends b = {.n = 2,
                            .align = {32, 32},
                            .n_copies = nc,
                            .n_layer = 1,
                            .layer_be = layer_be,
                            .expert_be = expert_be,
                            .cache_be = cache_be};
        uint64_t sizes[2] = {0, 0};
        tp_error err;
        TP_CHECK_EQ_I64(tp__gs_reserve(&g, &b, sizes, &err), TP_OK);
        TP_CHECK_EQ_U64(sizes[0], nc == 1 ? 832 : 4 * 416 + 416);
        TP_CHECK_EQ_U64(sizes[1], nc == 1 ? 416 : 4 * 416);
        tp__gg_free(&g);
    }
}

/* Sizes overflowing 64 bits are an error, not a wrapped figure. */
TP_TEST(overflow_is_reported) {
    tp_gg_graph g;
    tp__gg_init(&g);
    int32_t s[1] = {-1};
    int32_t big = tp__gg_new(&g, TP_GG_OTHER, TP_DTYPE_F32, 1ll << 40, 1ll << 40, 1, 1, s, 1);
    TP_CHECK(big < 0);
    TP_CHECK_EQ_I64(g.status, TP_ERR_OVERFLOW);
    uint64_t align = 32, size = 0;
    tp_error err;
    TP_CHECK_EQ_I64(tp__ga_reserve(&g, NULL, NULL, 1, &align, &size, &err), TP_ERR_OVERFLOW);
    tp__gg_free(&g);
}

int main(void) {
    TP_RUN(inplace_free_and_best_fit);
    TP_RUN(outputs_are_kept);
    TP_RUN(scheduler_copies_inputs);
    TP_RUN(overflow_is_reported);
    return tp_test_finish();
}
