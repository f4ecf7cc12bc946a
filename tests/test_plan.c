/* Graph plans: report golden text, boundary toggles and guards,
 * errors, backward plans sharing the forward weight layout, the demo model. */
#include "harness.h"
#include "tensorplan/demo.h"

static tp_error err;

static tp_node_id add_input(tp_graph *g, const char *name, int32_t rank, const int64_t *dims) {
    tp_node_id id = -1;
    tp_shape s = tp_shape_of(rank, dims);
    TP_CHECK_OK(tp_graph_add_input(g, name, TP_DTYPE_F32, &s, &id, &err), &err);
    return id;
}

static tp_node_id add_param(tp_graph *g, const char *name, int32_t rank, const int64_t *dims) {
    tp_node_id id = -1;
    tp_shape s = tp_shape_of(rank, dims);
    TP_CHECK_OK(tp_graph_add_param(g, name, TP_DTYPE_F32, &s, &id, &err), &err);
    return id;
}

static tp_node_id add_op(tp_graph *g, tp_op_kind kind, int32_t sub, const tp_node_id *in,
                         uint32_t n, const char *name) {
    tp_node_id id = -1;
    tp_op op = {.kind = kind, .sub = sub};
    TP_CHECK_OK(tp_graph_add_op(g, &op, in, n, name, &id, &err), &err);
    return id;
}

static tp_node_id mm(tp_graph *g, tp_node_id a, tp_node_id b, const char *name) {
    return add_op(g, TP_OP_MATMUL, 0, (tp_node_id[]){a, b}, 2, name);
}

/* x, w, a = x@w, r = relu(a) (in place), b = r@w, v = reshape(b) (view),
 * c = neg(v), output y = c@w (unnamed). */
static tp_graph *small_graph(void) {
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    const int64_t d[2] = {16, 16};
    tp_node_id x = add_input(g, "x", 2, d);
    tp_node_id w = add_param(g, "w", 2, d);
    tp_node_id a = mm(g, x, w, "a");
    tp_node_id r = add_op(g, TP_OP_UNARY, TP_UNARY_RELU, &a, 1, "r");
    tp_node_id b = mm(g, r, w, "b");
    tp_node_id v = -1;
    tp_shape vs = tp_shape_of(1, (int64_t[]){256});
    tp_op ro = {.kind = TP_OP_RESHAPE};
    TP_CHECK_OK(tp_graph_add_op_shaped(g, &ro, &b, 1, &vs, TP_DTYPE_F32, "v", &v, &err), &err);
    tp_node_id c = add_op(g, TP_OP_UNARY, TP_UNARY_NEG, &v, 1, "c");
    tp_shape cs = tp_shape_of(2, d);
    tp_node_id c2 = -1;
    TP_CHECK_OK(tp_graph_add_op_shaped(g, &ro, &c, 1, &cs, TP_DTYPE_F32, "c2", &c2, &err), &err);
    tp_node_id y = mm(g, c2, w, NULL);
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    return g;
}

static const char golden[] = "# arena_size=4352 total_unshared=7168 saved=2816\n"
                             "# offset\tsize\tnode\n"
                             "0\t1024\tx\n"
                             "1152\t1024\tw\n"
                             "2304\t1024\ta\n"
                             "2304\t1024\tr\n"
                             "2304\t1024\tc\n"
                             "2304\t1024\tc2\n"
                             "3328\t1024\tb\n"
                             "3328\t1024\tv\n"
                             "3328\t1024\t%8\n";

TP_TEST(report_golden) {
    tp_graph *g = small_graph();
    tp_plan_options po;
    tp_plan_options_default(&po);
    po.algo = TP_ALGO_GREEDY_SIZE;
    tp_plan *p = NULL;
    TP_CHECK_OK(tp_plan_graph(g, &po, &p, &err), &err);
    if (p) {
        char *txt = NULL;
        size_t len = 0;
        TP_CHECK_OK(tp_plan_report_text(p, g, &txt, &len, &err), &err);
        TP_CHECK_STR(txt, golden);
        TP_CHECK_EQ_U64(len, strlen(golden));
        tp_free_string(txt);
        TP_CHECK_EQ_U64(tp_plan_arena_bytes(p), 4352);
        TP_CHECK_EQ_U64(tp_plan_lower_bound_bytes(p), 4352);
        TP_CHECK_EQ_U64(tp_plan_unshared_bytes(p), 7168);
        TP_CHECK_EQ_U64(tp_plan_saved_bytes(p), 2816);
        TP_CHECK_EQ_U64(tp_plan_inplace_saved_bytes(p), 1024);
        TP_CHECK_EQ_U64(tp_plan_slot_count(p), 9);
        TP_CHECK_EQ_U64(tp_plan_node_count(p), tp_graph_node_count(g));
        TP_CHECK_EQ_U64(tp_plan_node_count(NULL), 0);
        for (uint32_t k = 1; k < tp_plan_slot_count(p); k++)
            TP_CHECK_LE_U64(tp_plan_slot(p, k - 1)->offset, tp_plan_slot(p, k)->offset);
        TP_CHECK(tp_plan_slot(p, 9) == NULL);
        TP_CHECK(tp_plan_slot_of(p, 99) == NULL);
        /* a graph that is not the plan's */
        tp_graph *other = NULL;
        TP_CHECK_OK(tp_graph_create(NULL, &other, &err), &err);
        TP_CHECK_STATUS(tp_plan_report_text(p, other, &txt, &len, &err), TP_ERR_INVALID);
        tp_graph_destroy(other);
        /* without a graph rows name nodes by id */
        TP_CHECK_OK(tp_plan_report_text(p, NULL, &txt, &len, &err), &err);
        TP_CHECK_CONTAINS(txt, "0\t1024\t%0\n");
        tp_free_string(txt);
    }
    tp_plan_destroy(p);

    /* no reuse: every buffer at the aligned end; saved saturates at 0 */
    po.algo = TP_ALGO_NO_REUSE;
    TP_CHECK_OK(tp_plan_graph(g, &po, &p, &err), &err);
    if (p) {
        /* x, w guarded; a (with r in place), b, c, y: 2 x 1152 + 4 x 1024 */
        TP_CHECK_EQ_U64(tp_plan_arena_bytes(p), 6400);
        TP_CHECK_EQ_U64(tp_plan_unshared_bytes(p), 7168);
        TP_CHECK_EQ_U64(tp_plan_saved_bytes(p), 768); /* the in-place saving only */
        TP_CHECK_OK(tp_plan_verify(p, &err), &err);
    }
    tp_plan_destroy(p);
    tp_graph_destroy(g);
}

/* Boundary toggles; tail guards max(alignment, 128); a zero-size boundary
 * buffer takes `alignment` bytes. */
TP_TEST(boundary_toggles_and_guards) {
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    tp_node_id x = add_input(g, "x", 1, (int64_t[]){25}); /* 100 bytes */
    tp_node_id y = add_op(g, TP_OP_UNARY, TP_UNARY_NEG, &x, 1, "y");
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    tp_plan_options po;
    tp_plan_options_default(&po);
    po.algo = TP_ALGO_GREEDY_SIZE;
    tp_plan *p = NULL;
    TP_CHECK_OK(tp_plan_graph(g, &po, &p, &err), &err);
    if (p) TP_CHECK_EQ_U64(tp_plan_arena_bytes(p), 256 + 100); /* x 100+128, y at 256 */
    tp_plan_destroy(p);
    po.alignment = 256;
    TP_CHECK_OK(tp_plan_graph(g, &po, &p, &err), &err);
    if (p) TP_CHECK_EQ_U64(tp_plan_arena_bytes(p), 512 + 100); /* guard 256 */
    tp_plan_destroy(p);
    po.alignment = 64;
    po.allocate_inputs = false;
    TP_CHECK_OK(tp_plan_graph(g, &po, &p, &err), &err);
    if (p) {
        TP_CHECK(tp_plan_slot_of(p, x) == NULL);
        TP_CHECK(tp_plan_slot_of(p, y) != NULL);
        TP_CHECK_EQ_U64(tp_plan_arena_bytes(p), 100);
        TP_CHECK_EQ_U64(tp_plan_slot_count(p), 1);
    }
    tp_plan_destroy(p);
    po.alignment = 48;
    tp_error_clear(&err);
    TP_CHECK_STATUS(tp_plan_graph(g, &po, &p, &err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err.msg, "48");
    TP_CHECK(p == NULL);
    tp_graph_destroy(g);

    /* zero-size input and output */
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    x = add_input(g, "empty", 2, (int64_t[]){0, 8});
    tp_node_id w = add_param(g, "w", 2, (int64_t[]){8, 8});
    y = mm(g, x, w, "y");
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    tp_plan_options_default(&po);
    po.allocate_params = false;
    TP_CHECK_OK(tp_plan_graph(g, &po, &p, &err), &err);
    if (p) {
        TP_CHECK_EQ_U64(tp_plan_arena_bytes(p), 64);
        TP_CHECK_EQ_U64(tp_plan_slot_of(p, x)->size, 0);
        TP_CHECK(tp_plan_slot_of(p, w) == NULL);
        TP_CHECK_EQ_U64(tp_plan_slot_count(p), 2);
    }
    tp_plan_destroy(p);
    tp_graph_destroy(g);
}

TP_TEST(missing_output_is_error) {
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    tp_node_id x = add_input(g, "x", 1, (int64_t[]){4});
    add_op(g, TP_OP_UNARY, TP_UNARY_EXP, &x, 1, "y");
    tp_plan *p = NULL;
    tp_error_clear(&err);
    TP_CHECK_STATUS(tp_plan_graph(g, NULL, &p, &err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err.msg, "output");
    TP_CHECK(p == NULL);
    TP_CHECK_STATUS(tp_plan_graph(NULL, NULL, &p, &err), TP_ERR_INVALID);
    tp_graph_destroy(g);
}

/* forward: x@w1 + b1 -> @w2 ; backward reads w2, w1 (same names) and its own
 * extra weight; activations must be placed around the fixed weights. */
static tp_graph *forward_graph(void) {
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    const int64_t d[2] = {32, 32};
    tp_node_id x = add_input(g, "x", 2, d);
    tp_node_id w1 = add_param(g, "w1", 2, d);
    tp_node_id b1 = add_param(g, "b1", 1, (int64_t[]){32});
    tp_node_id w2 = add_param(g, "w2", 2, d);
    tp_node_id h = mm(g, x, w1, "h");
    tp_node_id hb = add_op(g, TP_OP_BINARY, TP_BINARY_ADD, (tp_node_id[]){h, b1}, 2, "hb");
    tp_node_id y = mm(g, hb, w2, "y");
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    return g;
}

static tp_graph *backward_graph(int64_t w1_cols) {
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    const int64_t d[2] = {32, 32};
    tp_node_id dy = add_input(g, "dy", 2, d);
    tp_node_id x = add_input(g, "x", 2, d);
    tp_node_id w2 = add_param(g, "w2", 2, d);
    tp_node_id w1 = add_param(g, "w1", 2, (int64_t[]){32, w1_cols});
    tp_node_id extra = add_param(g, "extra", 2, d);
    tp_node_id g1 = mm(g, dy, w2, "g1");
    tp_node_id g2 = mm(g, g1, w2, "g2");
    tp_node_id g3 = mm(g, g2, extra, "g3");
    tp_node_id dw = mm(g, x, g3, "dw1");
    tp_node_id dx = mm(g, g1, w1, "dx");
    TP_CHECK_OK(tp_graph_mark_output(g, dw, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, dx, &err), &err);
    return g;
}

static bool bytes_overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) {
    return a < b + bn && b < a + an;
}

TP_TEST(backward_shares_weight_layout) {
    tp_graph *fg = forward_graph(), *bg = backward_graph(32);
    tp_plan *fp = NULL, *bp = NULL;
    TP_CHECK_OK(tp_plan_graph(fg, NULL, &fp, &err), &err);
    if (!fp) goto out;
    tp_plan_options po;
    tp_plan_options_default(&po);
    TP_CHECK_OK(tp_plan_backward(fp, fg, bg, &po, &bp, &err), &err);
    if (!bp) goto out;
    TP_CHECK_OK(tp_plan_verify(bp, &err), &err);
    const char *names[2] = {"w1", "w2"};
    uint64_t weights_end = 0;
    for (int k = 0; k < 2; k++) {
        tp_node_id fid = -1, bid = -1;
        TP_CHECK_OK(tp_graph_find(fg, names[k], &fid, &err), &err);
        TP_CHECK_OK(tp_graph_find(bg, names[k], &bid, &err), &err);
        const tp_slot *fs = tp_plan_slot_of(fp, fid), *bs = tp_plan_slot_of(bp, bid);
        TP_CHECK(fs && bs);
        if (!fs || !bs) continue;
        TP_CHECK_EQ_U64(bs->offset, fs->offset); /* at the forward offset */
        TP_CHECK(bs->fixed);
        TP_CHECK_EQ_I64(bs->birth, 0);
        TP_CHECK_EQ_I64(bs->death, (int64_t)tp_graph_node_count(bg));
        if (fs->offset + fs->size > weights_end) weights_end = fs->offset + fs->size;
    }
    /* the backward-only weight is not allocated */
    tp_node_id extra = -1;
    TP_CHECK_OK(tp_graph_find(bg, "extra", &extra, &err), &err);
    TP_CHECK(tp_plan_slot_of(bp, extra) == NULL);
    /* no activation overlaps any forward weight region (b1 included: reserved) */
    for (uint32_t i = 0; i < tp_graph_node_count(fg); i++) {
        const tp_node *fn = tp_graph_node(fg, (tp_node_id)i);
        if (fn->op.kind != TP_OP_PARAM) continue;
        const tp_slot *fs = tp_plan_slot_of(fp, (tp_node_id)i);
        if (fs->offset + fs->size > weights_end) weights_end = fs->offset + fs->size;
        for (uint32_t k = 0; k < tp_plan_slot_count(bp); k++) {
            const tp_slot *s = tp_plan_slot(bp, k);
            const tp_node *bn = tp_graph_node(bg, s->node);
            if (bn->op.kind == TP_OP_PARAM) continue;
            if (bytes_overlap(s->offset, s->size, fs->offset, fs->size))
                TP_FAIL_("backward slot %s [%llu,+%llu) overlaps forward weight %s", bn->name,
                         (unsigned long long)s->offset, (unsigned long long)s->size, fn->name);
        }
    }
    TP_CHECK(tp_plan_arena_bytes(bp) >= weights_end);
    TP_CHECK(tp_plan_arena_bytes(bp) >= tp_plan_lower_bound_bytes(bp));
out:
    tp_plan_destroy(bp);
    tp_plan_destroy(fp);
    tp_graph_destroy(bg);
    tp_graph_destroy(fg);
}

TP_TEST(backward_errors) {
    tp_graph *fg = forward_graph(), *bg = backward_graph(16);
    tp_plan *fp = NULL, *bp = NULL;
    TP_CHECK_OK(tp_plan_graph(fg, NULL, &fp, &err), &err);
    tp_error_clear(&err);
    TP_CHECK_STATUS(tp_plan_backward(fp, fg, bg, NULL, &bp, &err), TP_ERR_SHAPE);
    TP_CHECK_CONTAINS(err.msg, "w1");
    TP_CHECK(bp == NULL);
    tp_plan_destroy(fp);
    /* forward planned without weights */
    tp_plan_options po;
    tp_plan_options_default(&po);
    po.allocate_params = false;
    TP_CHECK_OK(tp_plan_graph(fg, &po, &fp, &err), &err);
    tp_graph_destroy(bg);
    bg = backward_graph(32);
    TP_CHECK_STATUS(tp_plan_backward(fp, fg, bg, NULL, &bp, &err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err.msg, "allocate_params");
    /* plan/graph mismatch */
    TP_CHECK_STATUS(tp_plan_backward(fp, bg, bg, NULL, &bp, &err), TP_ERR_INVALID);
    tp_plan_destroy(fp);
    tp_graph_destroy(bg);
    tp_graph_destroy(fg);
}

TP_TEST(demo_model_plans) {
    tp_demo_options o;
    tp_demo_options_default(&o);
    TP_CHECK_EQ_I64(o.seq, 128);
    TP_CHECK_EQ_I64(o.batch, 1);
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_demo_transformer(&o, NULL, &g, &err), &err);
    if (!g) return;
    tp_node_id id = -1;
    TP_CHECK_OK(tp_graph_find(g, "h.1.attn.scores", &id, &err), &err);
    TP_CHECK_OK(tp_graph_find(g, "h.0.attn.attention", &id, &err), &err);
    if (id >= 0) TP_CHECK(tp_graph_node(g, id)->op.kind == TP_OP_ATTENTION);
    TP_CHECK_EQ_U64(tp_graph_output_count(g), 1);
    tp_node_id logits = tp_graph_output(g, 0);
    uint64_t bytes = 0;
    TP_CHECK_OK(tp_graph_node_bytes(g, logits, &bytes, &err), &err);
    TP_CHECK_EQ_U64(bytes, 128ull * 50257 * 4);
    tp_plan *p = NULL;
    TP_CHECK_OK(tp_plan_graph(g, NULL, &p, &err), &err);
    uint64_t arena128 = 0;
    if (p) {
        TP_CHECK_OK(tp_plan_verify(p, &err), &err);
        arena128 = tp_plan_arena_bytes(p);
        TP_CHECK(arena128 >= tp_plan_lower_bound_bytes(p));
        TP_CHECK(tp_plan_inplace_saved_bytes(p) > 0);
        TP_CHECK_EQ_U64(tp_plan_slot_count(p), tp_graph_node_count(g));
        /* weights: wte 50257x768 + wpe 1024x768 + 2 x ~7.08M params, in f32 */
        TP_CHECK(tp_plan_unshared_bytes(p) > 4ull * (50257 * 768 + 1024 * 768 + 2 * 7077888));
    }
    tp_plan_destroy(p);
    TP_CHECK_OK(tp_graph_bind(g, "seq", 512, &err), &err);
    TP_CHECK_OK(tp_plan_graph(g, NULL, &p, &err), &err);
    if (p) TP_CHECK(tp_plan_arena_bytes(p) > arena128);
    tp_plan_destroy(p);
    tp_graph_destroy(g);

    o.d_model = 100;
    o.heads = 12;
    TP_CHECK_STATUS(tp_demo_transformer(&o, NULL, &g, &err), TP_ERR_INVALID);
    TP_CHECK(g == NULL);
    tp_demo_options_default(&o);
    o.seq = -1;
    TP_CHECK_OK(tp_demo_transformer(&o, NULL, &g, &err), &err);
    TP_CHECK_STATUS(tp_plan_graph(g, NULL, &p, &err), TP_ERR_UNBOUND);
    TP_CHECK_CONTAINS(err.msg, "seq");
    tp_graph_destroy(g);
}

int main(void) {
    TP_RUN(report_golden);
    TP_RUN(boundary_toggles_and_guards);
    TP_RUN(missing_output_is_error);
    TP_RUN(backward_shares_weight_layout);
    TP_RUN(backward_errors);
    TP_RUN(demo_model_plans);
    return tp_test_finish();
}
