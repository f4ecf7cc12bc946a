/* Liveness: views and chains, lifetimes, outputs, flags, options,
 * packed QKV, OUTPUT_OF, tied weights and in-place reuse. */
#include "harness.h"

static tp_error err;

static tp_graph *new_graph(void) {
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, &err), &err);
    return g;
}

static tp_node_id input(tp_graph *g, const char *name, tp_dtype dt, int32_t rank,
                        const int64_t *dims) {
    tp_node_id id = -1;
    tp_shape s = tp_shape_of(rank, dims);
    TP_CHECK_OK(tp_graph_add_input(g, name, dt, &s, &id, &err), &err);
    return id;
}

static tp_node_id param(tp_graph *g, const char *name, int32_t rank, const int64_t *dims) {
    tp_node_id id = -1;
    tp_shape s = tp_shape_of(rank, dims);
    TP_CHECK_OK(tp_graph_add_param(g, name, TP_DTYPE_F32, &s, &id, &err), &err);
    return id;
}

static tp_node_id unary(tp_graph *g, tp_unary_fn fn, tp_node_id x, const char *name) {
    tp_node_id id = -1;
    tp_op op = {.kind = TP_OP_UNARY, .sub = (int32_t)fn};
    TP_CHECK_OK(tp_graph_add_op(g, &op, &x, 1, name, &id, &err), &err);
    return id;
}

static tp_node_id binary(tp_graph *g, tp_binary_fn fn, tp_node_id a, tp_node_id b,
                         const char *name) {
    tp_node_id id = -1;
    tp_op op = {.kind = TP_OP_BINARY, .sub = (int32_t)fn};
    TP_CHECK_OK(tp_graph_add_op(g, &op, (tp_node_id[]){a, b}, 2, name, &id, &err), &err);
    return id;
}

static tp_node_id matmul(tp_graph *g, tp_node_id a, tp_node_id b, const char *name) {
    tp_node_id id = -1;
    tp_op op = {.kind = TP_OP_MATMUL};
    TP_CHECK_OK(tp_graph_add_op(g, &op, (tp_node_id[]){a, b}, 2, name, &id, &err), &err);
    return id;
}

static tp_node_id reshape(tp_graph *g, tp_node_id x, int32_t rank, const int64_t *dims,
                          const char *name) {
    tp_node_id id = -1;
    tp_op op = {.kind = TP_OP_RESHAPE};
    tp_shape s = tp_shape_of(rank, dims);
    TP_CHECK_OK(
        tp_graph_add_op_shaped(g, &op, &x, 1, &s, tp_graph_node(g, x)->dtype, name, &id, &err),
        &err);
    return id;
}

static tp_node_id narrow(tp_graph *g, tp_node_id x, int64_t axis, int64_t start, int64_t len,
                         const char *name) {
    tp_node_id id = -1;
    tp_op op = {.kind = TP_OP_NARROW};
    op.attrs.narrow.axis = axis;
    op.attrs.narrow.start = start;
    op.attrs.narrow.length = len;
    TP_CHECK_OK(tp_graph_add_op(g, &op, &x, 1, name, &id, &err), &err);
    return id;
}

static tp_node_id cast(tp_graph *g, tp_node_id x, tp_dtype to, const char *name) {
    tp_node_id id = -1;
    tp_op op = {.kind = TP_OP_CAST};
    op.attrs.cast.to = to;
    TP_CHECK_OK(tp_graph_add_op(g, &op, &x, 1, name, &id, &err), &err);
    return id;
}

static tp_liveness *live_of(tp_graph *g, const tp_plan_options *po) {
    tp_liveness *l = NULL;
    TP_CHECK_OK(tp_liveness_compute(g, po, NULL, &l, &err), &err);
    return l;
}

static const int64_t d48[2] = {4, 8}, d88[2] = {8, 8};

/* reshape / same-dtype cast / axis-0 narrow alias their input at the documented offsets
 * (tp_graph_node_view),
 * chains resolve to the root with offsets summed; an axis-1 narrow is a copy. */
TP_TEST(view_offsets_and_chains) {
    tp_graph *g = new_graph();
    tp_node_id x = input(g, "x", TP_DTYPE_F32, 2, d48);
    tp_node_id e = unary(g, TP_UNARY_EXP, x, "e");            /* 1: 128 bytes */
    tp_node_id r = reshape(g, e, 1, (int64_t[]){32}, "r");    /* 2 */
    tp_node_id c = cast(g, r, TP_DTYPE_F32, "c");             /* 3 */
    tp_node_id n1 = narrow(g, e, 0, 1, 3, "n1");              /* 4: +32 */
    tp_node_id n2 = narrow(g, n1, 0, 1, 2, "n2");             /* 5: +32 */
    tp_node_id n3 = narrow(g, n2, 0, 1, 1, "n3");             /* 6: +32 */
    tp_node_id cols = narrow(g, e, 1, 2, 4, "cols");          /* 7: copy */
    tp_node_id y = binary(g, TP_BINARY_ADD, n3, n3, "y");     /* 8 */
    tp_node_id z = binary(g, TP_BINARY_ADD, c, c, "z");       /* 9 */
    tp_node_id w = binary(g, TP_BINARY_ADD, cols, cols, "w"); /* 10 */
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, z, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, w, &err), &err);
    tp_liveness *l = live_of(g, NULL);
    if (!l) {
        tp_graph_destroy(g);
        return;
    }
    TP_CHECK_EQ_U64(tp_liveness_count(l), 11);
    const tp_live *le = tp_liveness_get(l, e);
    TP_CHECK(!le->is_view);
    TP_CHECK_EQ_I64(le->root, e);
    TP_CHECK_EQ_U64(le->bytes, 128);
    const tp_live *lr = tp_liveness_get(l, r), *lc = tp_liveness_get(l, c);
    TP_CHECK(lr->is_view && lc->is_view);
    TP_CHECK_EQ_I64(lr->root, e);
    TP_CHECK_EQ_I64(lc->root, e); /* chain: cast -> reshape -> e */
    TP_CHECK_EQ_U64(lr->view_offset, 0);
    TP_CHECK_EQ_U64(lc->view_offset, 0);
    TP_CHECK_EQ_U64(tp_liveness_get(l, n1)->view_offset, 32); /* 1 row of 8 f32 */
    TP_CHECK_EQ_U64(tp_liveness_get(l, n2)->view_offset, 64); /* + 1 row */
    TP_CHECK_EQ_U64(tp_liveness_get(l, n3)->view_offset, 96); /* + 1 row */
    TP_CHECK_EQ_I64(tp_liveness_get(l, n3)->root, e);
    TP_CHECK_EQ_U64(tp_liveness_get(l, n3)->bytes, 32);
    TP_CHECK(!tp_liveness_get(l, cols)->is_view);
    TP_CHECK_EQ_I64(tp_liveness_get(l, cols)->root, cols);
    /* reading a view extends the view, the views between, and the root */
    TP_CHECK_EQ_I64(tp_liveness_get(l, n3)->death, y);
    TP_CHECK_EQ_I64(tp_liveness_get(l, n2)->death, y);
    TP_CHECK_EQ_I64(tp_liveness_get(l, n1)->death, y);
    TP_CHECK_EQ_I64(tp_liveness_get(l, c)->death, z);
    TP_CHECK_EQ_I64(tp_liveness_get(l, r)->death, z);
    TP_CHECK_EQ_I64(le->death, z); /* last reader through any view */
    TP_CHECK_EQ_I64(le->birth, e);
    /* boundary inputs live over [0, last]; outputs to last */
    TP_CHECK_EQ_I64(tp_liveness_get(l, x)->birth, 0);
    TP_CHECK_EQ_I64(tp_liveness_get(l, x)->death, 11);
    TP_CHECK_EQ_I64(tp_liveness_get(l, y)->death, 11);
    TP_CHECK_EQ_I64(tp_liveness_get(l, z)->death, 11);
    TP_CHECK_EQ_I64(tp_liveness_get(l, cols)->death, w);
    TP_CHECK(tp_liveness_get(l, 11) == NULL);
    TP_CHECK(tp_liveness_get(l, -1) == NULL);
    tp_liveness_destroy(l);
    tp_graph_destroy(g);
}

/* A chain of matmuls: neighbours overlap in time and get separate bytes,
 * buffers two steps apart share. */
TP_TEST(overlap_separate_disjoint_share) {
    tp_graph *g = new_graph();
    tp_node_id x = input(g, "x", TP_DTYPE_F32, 2, d88);
    tp_node_id w = param(g, "w", 2, d88);
    tp_node_id a = matmul(g, x, w, "a");
    tp_node_id b = matmul(g, a, w, "b");
    tp_node_id c = matmul(g, b, w, "c");
    tp_node_id d = matmul(g, c, w, "d");
    TP_CHECK_OK(tp_graph_mark_output(g, d, &err), &err);
    tp_plan_options po;
    tp_plan_options_default(&po);
    po.algo = TP_ALGO_GREEDY_SIZE;
    tp_plan *p = NULL;
    TP_CHECK_OK(tp_plan_graph(g, &po, &p, &err), &err);
    if (!p) {
        tp_graph_destroy(g);
        return;
    }
    const tp_slot *sa = tp_plan_slot_of(p, a), *sb = tp_plan_slot_of(p, b);
    const tp_slot *sc = tp_plan_slot_of(p, c), *sd = tp_plan_slot_of(p, d);
    TP_CHECK(sa && sb && sc && sd);
    TP_CHECK_EQ_I64(sa->birth, a);
    TP_CHECK_EQ_I64(sa->death, b);
    TP_CHECK_EQ_I64(sd->death, 6);
    /* a-b, b-c, c-d overlap: disjoint bytes */
    TP_CHECK(sa->offset + 256 <= sb->offset || sb->offset + 256 <= sa->offset);
    TP_CHECK(sb->offset + 256 <= sc->offset || sc->offset + 256 <= sb->offset);
    TP_CHECK(sc->offset + 256 <= sd->offset || sd->offset + 256 <= sc->offset);
    /* a [2,3] and c [4,5] do not: the reference greedy reuses a's bytes for c */
    TP_CHECK_EQ_U64(sa->offset, sc->offset);
    TP_CHECK_EQ_U64(sb->offset, sd->offset);
    /* x and w (guarded 256+128) + two activation slots */
    TP_CHECK_EQ_U64(tp_plan_arena_bytes(p), 2 * 384 + 2 * 256);
    TP_CHECK_EQ_U64(tp_plan_lower_bound_bytes(p), 2 * 384 + 2 * 256);
    TP_CHECK_EQ_U64(tp_plan_unshared_bytes(p), 6 * 256);
    TP_CHECK_OK(tp_plan_verify(p, &err), &err);
    tp_plan_destroy(p);
    tp_graph_destroy(g);
}

/* TP_NODE_READS_INPUTS_LATE: inputs and their view chains live to the end. */
TP_TEST(reads_inputs_late) {
    tp_graph *g = new_graph();
    tp_node_id x = input(g, "x", TP_DTYPE_F32, 2, d88);
    tp_node_id w = param(g, "w", 2, d88);
    tp_node_id a = matmul(g, x, w, "a");
    tp_node_id v = reshape(g, a, 1, (int64_t[]){64}, "v");
    tp_node_id h = unary(g, TP_UNARY_EXP, v, "host");
    tp_node_id b = matmul(g, x, w, "b");
    tp_node_id c = matmul(g, b, w, "c");
    TP_CHECK_OK(tp_graph_mark_output(g, c, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, h, &err), &err);
    tp_liveness *l = live_of(g, NULL);
    TP_CHECK(l != NULL);
    if (l) {
        TP_CHECK_EQ_I64(tp_liveness_get(l, a)->death, h);
        TP_CHECK_EQ_I64(tp_liveness_get(l, b)->death, c);
    }
    tp_liveness_destroy(l);
    TP_CHECK_OK(tp_graph_set_flags(g, h, TP_NODE_READS_INPUTS_LATE, &err), &err);
    l = live_of(g, NULL);
    TP_CHECK(l != NULL);
    if (l) {
        TP_CHECK_EQ_I64(tp_liveness_get(l, v)->death, 7);
        TP_CHECK_EQ_I64(tp_liveness_get(l, a)->death, 7); /* the root of the view */
        TP_CHECK_EQ_I64(tp_liveness_get(l, b)->death, c); /* unaffected */
        TP_CHECK(!tp_liveness_get(l, h)->inplace);        /* v is a view: never in place */
    }
    tp_liveness_destroy(l);
    tp_graph_destroy(g);
}

/* pin_output_ancestors (off by default) keeps every ancestor of an output. */
TP_TEST(pin_output_ancestors) {
    tp_graph *g = new_graph();
    tp_node_id x = input(g, "x", TP_DTYPE_F32, 2, d88);
    tp_node_id w = param(g, "w", 2, d88);
    tp_node_id a = matmul(g, x, w, "a");
    tp_node_id b = matmul(g, a, w, "b");
    tp_node_id side = matmul(g, x, w, "side"); /* not an ancestor of the output */
    tp_node_id s2 = matmul(g, side, w, "side2");
    tp_node_id c = matmul(g, b, w, "c");
    TP_CHECK_OK(tp_graph_mark_output(g, c, &err), &err);
    (void)s2;
    tp_plan_options po;
    tp_plan_options_default(&po);
    TP_CHECK(!po.pin_output_ancestors);
    tp_liveness *l = live_of(g, &po);
    if (l) {
        TP_CHECK_EQ_I64(tp_liveness_get(l, a)->death, b);
        TP_CHECK_EQ_I64(tp_liveness_get(l, b)->death, c);
    }
    tp_liveness_destroy(l);
    po.pin_output_ancestors = true;
    l = live_of(g, &po);
    if (l) {
        TP_CHECK_EQ_I64(tp_liveness_get(l, a)->death, 7);
        TP_CHECK_EQ_I64(tp_liveness_get(l, b)->death, 7);
        TP_CHECK_EQ_I64(tp_liveness_get(l, side)->death, s2);
    }
    tp_liveness_destroy(l);
    tp_graph_destroy(g);
}

/* Attention on a packed QKV parent (read through a reshape view) keeps the
 * parent's buffer alive until the attention step, and no later. */
TP_TEST(packed_qkv_parent) {
    tp_graph *g = new_graph();
    tp_node_id x = input(g, "x", TP_DTYPE_F32, 3, (int64_t[]){1, 4, 8});
    tp_node_id w = param(g, "wqkv", 2, (int64_t[]){8, 24});
    tp_node_id qkv = matmul(g, x, w, "qkv");
    tp_node_id r = reshape(g, qkv, 3, (int64_t[]){1, 4, 24}, "qkv_r");
    tp_node_id other = matmul(g, x, param(g, "w2", 2, d88), "other");
    tp_op at = {.kind = TP_OP_ATTENTION};
    at.attrs.attention.heads = 2;
    at.attrs.attention.kv_heads = 2;
    at.attrs.attention.head_dim = 4;
    at.attrs.attention.mask = TP_MASK_CAUSAL;
    at.attrs.attention.packed_qkv = true;
    tp_node_id att = -1;
    TP_CHECK_OK(tp_graph_add_op(g, &at, &r, 1, "attn", &att, &err), &err);
    tp_node_id y = binary(g, TP_BINARY_ADD, att, other, "y");
    tp_node_id z = unary(g, TP_UNARY_RELU, y, "z");
    TP_CHECK_OK(tp_graph_mark_output(g, z, &err), &err);
    tp_liveness *l = live_of(g, NULL);
    if (l) {
        TP_CHECK_EQ_I64(tp_liveness_get(l, r)->death, att);
        TP_CHECK_EQ_I64(tp_liveness_get(l, qkv)->death, att);
        TP_CHECK_EQ_I64(tp_liveness_get(l, qkv)->birth, qkv);
        TP_CHECK_EQ_U64(tp_liveness_get(l, att)->bytes, 4 * 8 * 4);
        TP_CHECK(tp_liveness_get(l, z)->inplace);          /* relu reuses y */
        TP_CHECK_EQ_I64(tp_liveness_get(l, z)->root, att); /* y reused att in turn */
    }
    tp_liveness_destroy(l);
    tp_graph_destroy(g);
}

/* Hard-swish y = t * relu(t + w): t is read twice, but the multiply is its last
 * reader, so y reuses t's buffer (the lifetime decides, not the edge count):
 * two activation buffers live at the multiply instead of three. An input that
 * another input of the same op views is never overwritten. */
TP_TEST(inplace_lifetime_not_edges) {
    tp_graph *g = new_graph();
    tp_node_id x = input(g, "x", TP_DTYPE_F32, 2, d88);
    tp_node_id w = param(g, "w", 2, d88);
    tp_node_id t = matmul(g, x, w, "t");
    tp_node_id a = binary(g, TP_BINARY_ADD, t, w, "a"); /* t still read later: not in place */
    tp_node_id r = unary(g, TP_UNARY_RELU, a, "r");     /* in place on a */
    tp_node_id y = binary(g, TP_BINARY_MUL, t, r, "y"); /* t dies here: in place on t */
    tp_node_id u = matmul(g, y, w, "u");
    tp_node_id uv = reshape(g, u, 1, (int64_t[]){64}, "uv");
    tp_node_id z = binary(g, TP_BINARY_ADD, u, u, "z"); /* x + x: u dies here, twice read */
    tp_node_id zv = reshape(g, z, 2, d88, "zv");
    tp_node_id q = binary(g, TP_BINARY_MUL, z, zv, "q"); /* zv views z: never in place */
    tp_node_id o = unary(g, TP_UNARY_NEG, uv, "o");
    (void)o;
    TP_CHECK_OK(tp_graph_mark_output(g, q, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, o, &err), &err);
    tp_liveness *l = live_of(g, NULL);
    if (!l) {
        tp_graph_destroy(g);
        return;
    }
    TP_CHECK(!tp_liveness_get(l, a)->inplace);
    TP_CHECK(tp_liveness_get(l, r)->inplace);
    TP_CHECK(tp_liveness_get(l, y)->inplace);
    TP_CHECK_EQ_I64(tp_liveness_get(l, y)->root, t);
    TP_CHECK(!tp_liveness_get(l, z)->inplace); /* u's view uv is read later (o) */
    TP_CHECK(!tp_liveness_get(l, q)->inplace);
    tp_liveness_destroy(l);
    tp_plan *p = NULL;
    TP_CHECK_OK(tp_plan_graph(g, NULL, &p, &err), &err);
    if (p) {
        TP_CHECK_EQ_U64(tp_plan_inplace_saved_bytes(p), 2 * 256);
        tp_plan_destroy(p);
    }
    tp_graph_destroy(g);
}

/* In-place reuse: only when input 0 dies here, has one reader, no views and
 * the same byte size; never for boundary inputs or outputs. */
TP_TEST(inplace_rules) {
    tp_graph *g = new_graph();
    tp_node_id x = input(g, "x", TP_DTYPE_F32, 2, d88);
    tp_node_id w = param(g, "w", 2, d88);
    tp_node_id a = matmul(g, x, w, "a");
    tp_node_id ra = unary(g, TP_UNARY_RELU, a, "ra");  /* in place on a */
    tp_node_id ga = unary(g, TP_UNARY_GELU, ra, "ga"); /* in place on ra (root a) */
    tp_node_id ex = unary(g, TP_UNARY_EXP, x, "ex");   /* x is an input: no */
    tp_node_id b = matmul(g, ga, w, "b");
    tp_node_id rb = unary(g, TP_UNARY_RELU, b, "rb"); /* b read twice: no */
    tp_node_id sb = binary(g, TP_BINARY_ADD, rb, b, "sb");
    tp_node_id h = cast(g, sb, TP_DTYPE_F16, "h");  /* different size: no */
    tp_node_id hh = cast(g, h, TP_DTYPE_F32, "hh"); /* different size: no */
    tp_node_id c = matmul(g, hh, w, "c");
    tp_node_id cv = reshape(g, c, 1, (int64_t[]){64}, "cv");
    tp_node_id rc = unary(g, TP_UNARY_RELU, c, "rc"); /* c has a view: no */
    tp_node_id y = binary(g, TP_BINARY_ADD, rc, ex, "y");
    tp_node_id out2 = unary(g, TP_UNARY_NEG, cv, "out2");
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, out2, &err), &err);
    tp_liveness *l = live_of(g, NULL);
    if (!l) {
        tp_graph_destroy(g);
        return;
    }
    TP_CHECK(tp_liveness_get(l, ra)->inplace);
    TP_CHECK_EQ_I64(tp_liveness_get(l, ra)->root, a);
    TP_CHECK(tp_liveness_get(l, ga)->inplace);
    TP_CHECK_EQ_I64(tp_liveness_get(l, ga)->root, a);
    TP_CHECK(!tp_liveness_get(l, ex)->inplace);
    TP_CHECK(!tp_liveness_get(l, rb)->inplace);
    TP_CHECK(tp_liveness_get(l, sb)->inplace); /* rb dies at sb, one reader, same size */
    TP_CHECK(!tp_liveness_get(l, h)->inplace);
    TP_CHECK(!tp_liveness_get(l, hh)->inplace);
    TP_CHECK(!tp_liveness_get(l, rc)->inplace);
    TP_CHECK(tp_liveness_get(l, y)->inplace); /* rc dies at y */
    TP_CHECK_EQ_U64(tp_liveness_inplace_saved_bytes(l), 4 * 256);
    tp_liveness_destroy(l);

    /* the plan puts in-place users at their owner's offset and counts the saving */
    tp_plan *p = NULL;
    TP_CHECK_OK(tp_plan_graph(g, NULL, &p, &err), &err);
    if (p) {
        TP_CHECK_EQ_U64(tp_plan_slot_of(p, ra)->offset, tp_plan_slot_of(p, a)->offset);
        TP_CHECK_EQ_U64(tp_plan_slot_of(p, ga)->offset, tp_plan_slot_of(p, a)->offset);
        TP_CHECK(tp_plan_slot_of(p, ga)->inplace);
        TP_CHECK_EQ_U64(tp_plan_inplace_saved_bytes(p), 4 * 256);
        TP_CHECK_OK(tp_plan_verify(p, &err), &err);
    }
    tp_plan_destroy(p);

    /* with inplace off nothing is shared in place */
    tp_plan_options po;
    tp_plan_options_default(&po);
    po.inplace = false;
    l = live_of(g, &po);
    if (l) {
        TP_CHECK(!tp_liveness_get(l, ra)->inplace);
        TP_CHECK_EQ_U64(tp_liveness_inplace_saved_bytes(l), 0);
    }
    tp_liveness_destroy(l);
    tp_graph_destroy(g);
}

/* A view of an in-place node resolves to the buffer the in-place chain shares,
 * and keeps that buffer alive. */
TP_TEST(view_of_inplace_node) {
    tp_graph *g = new_graph();
    tp_node_id x = input(g, "x", TP_DTYPE_F32, 2, d88);
    tp_node_id w = param(g, "w", 2, d88);
    tp_node_id a = matmul(g, x, w, "a");
    tp_node_id r = unary(g, TP_UNARY_RELU, a, "r");
    tp_node_id v = reshape(g, r, 1, (int64_t[]){64}, "v");
    tp_node_id other = matmul(g, x, w, "other");
    tp_node_id y = unary(g, TP_UNARY_NEG, v, "y");
    tp_node_id z = matmul(g, other, w, "z");
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, z, &err), &err);
    tp_liveness *l = live_of(g, NULL);
    if (l) {
        TP_CHECK(tp_liveness_get(l, r)->inplace);
        TP_CHECK_EQ_I64(tp_liveness_get(l, r)->root, a);
        TP_CHECK_EQ_I64(tp_liveness_get(l, v)->root, a);
        TP_CHECK_EQ_I64(tp_liveness_get(l, r)->death, y);
        TP_CHECK_EQ_I64(tp_liveness_get(l, a)->death, r);
    }
    tp_liveness_destroy(l);
    tp_plan *p = NULL;
    TP_CHECK_OK(tp_plan_graph(g, NULL, &p, &err), &err);
    if (p) {
        const tp_slot *sa = tp_plan_slot_of(p, a), *sv = tp_plan_slot_of(p, v);
        const tp_slot *so = tp_plan_slot_of(p, other);
        TP_CHECK(sa && sv && so);
        TP_CHECK_EQ_U64(sv->offset, sa->offset);
        /* 'other' is born while v (bytes of a) is still to be read: no sharing */
        TP_CHECK(so->offset + so->size <= sa->offset || sa->offset + sa->size <= so->offset);
    }
    tp_plan_destroy(p);
    tp_graph_destroy(g);
}

/* A secondary output (TP_OP_OUTPUT_OF) is born with its producer. */
TP_TEST(output_of_born_with_producer) {
    tp_graph *g = new_graph();
    tp_node_id x = input(g, "x", TP_DTYPE_F32, 2, d88);
    tp_node_id w = param(g, "w", 2, d88);
    tp_node_id a = matmul(g, x, w, "a");
    tp_op tk = {.kind = TP_OP_TOPK};
    tk.attrs.topk.k = 2;
    tk.attrs.topk.axis = -1;
    tk.attrs.topk.largest = true;
    tp_node_id vals = -1, idx = -1;
    TP_CHECK_OK(tp_graph_add_op(g, &tk, &a, 1, "topk", &vals, &err), &err);
    tp_node_id mid = matmul(g, x, w, "mid");
    tp_op oo = {.kind = TP_OP_OUTPUT_OF};
    oo.attrs.output_of.index = 1;
    tp_shape is = tp_shape_of(2, (int64_t[]){8, 2});
    TP_CHECK_OK(
        tp_graph_add_op_shaped(g, &oo, &vals, 1, &is, TP_DTYPE_I64, "topk.indices", &idx, &err),
        &err);
    tp_node_id y = binary(g, TP_BINARY_ADD, vals, vals, "y");
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, idx, &err), &err);
    TP_CHECK_OK(tp_graph_mark_output(g, mid, &err), &err);
    tp_liveness *l = live_of(g, NULL);
    if (l) {
        TP_CHECK_EQ_I64(tp_liveness_get(l, idx)->birth, vals);
        TP_CHECK_EQ_I64(tp_liveness_get(l, idx)->death, 7);
        TP_CHECK_EQ_I64(tp_liveness_get(l, vals)->death, y);
        TP_CHECK_EQ_U64(tp_liveness_get(l, idx)->bytes, 8 * 2 * 8);
    }
    tp_liveness_destroy(l);
    tp_plan *p = NULL;
    TP_CHECK_OK(tp_plan_graph(g, NULL, &p, &err), &err);
    if (p) {
        /* idx is alive while mid is written: they cannot share */
        const tp_slot *si = tp_plan_slot_of(p, idx), *sm = tp_plan_slot_of(p, mid);
        TP_CHECK(si->offset + si->size <= sm->offset || sm->offset + sm->size <= si->offset);
    }
    tp_plan_destroy(p);
    tp_graph_destroy(g);
}

/* A tied weight aliases its target's bytes (counted once). */
TP_TEST(tied_param_is_alias) {
    tp_graph *g = new_graph();
    tp_node_id x = input(g, "x", TP_DTYPE_F32, 2, d88);
    tp_node_id w = param(g, "w", 2, d88);
    tp_node_id t = -1;
    TP_CHECK_OK(tp_graph_add_tied_param(g, "w_tied", w, &t, &err), &err);
    tp_node_id y = matmul(g, matmul(g, x, w, "a"), t, "y");
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    tp_plan *p = NULL;
    TP_CHECK_OK(tp_plan_graph(g, NULL, &p, &err), &err);
    if (p) {
        const tp_slot *sw = tp_plan_slot_of(p, w), *st = tp_plan_slot_of(p, t);
        TP_CHECK(sw && st);
        TP_CHECK(st->is_view);
        TP_CHECK_EQ_U64(st->offset, sw->offset);
        TP_CHECK_EQ_U64(tp_plan_unshared_bytes(p), 4 * 256); /* x, w, a, y */
    }
    tp_plan_destroy(p);
    tp_graph_destroy(g);
}

/* f32_uniform sizes every slot elements x 4 and scales view offsets alike. */
TP_TEST(f32_uniform_width) {
    tp_graph *g = new_graph();
    tp_node_id x = input(g, "x", TP_DTYPE_F16, 2, d48);
    tp_node_id e = unary(g, TP_UNARY_EXP, x, "e");
    tp_node_id n = narrow(g, e, 0, 2, 2, "n");
    tp_node_id y = unary(g, TP_UNARY_NEG, n, "y");
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    tp_liveness *l = live_of(g, NULL);
    if (l) {
        TP_CHECK_EQ_U64(tp_liveness_get(l, e)->bytes, 64);
        TP_CHECK_EQ_U64(tp_liveness_get(l, n)->view_offset, 32);
    }
    tp_liveness_destroy(l);
    tp_plan_options po;
    tp_plan_options_default(&po);
    po.width = TP_WIDTH_F32_UNIFORM;
    l = live_of(g, &po);
    if (l) {
        TP_CHECK_EQ_U64(tp_liveness_get(l, e)->bytes, 128);
        TP_CHECK_EQ_U64(tp_liveness_get(l, n)->bytes, 64);
        TP_CHECK_EQ_U64(tp_liveness_get(l, n)->view_offset, 64);
    }
    tp_liveness_destroy(l);
    tp_graph_destroy(g);
}

/* Unbound symbols are an error naming them (never a silent 0 or 1). */
TP_TEST(unbound_symbol_named) {
    tp_graph *g = new_graph();
    tp_dim seq;
    TP_CHECK_OK(tp_graph_symbol(g, "seq_len", &seq, &err), &err);
    tp_shape s = tp_shape_make(2, (tp_dim[]){seq, tp_dim_static(8)});
    tp_node_id x = -1;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &s, &x, &err), &err);
    tp_node_id y = unary(g, TP_UNARY_EXP, x, "y");
    TP_CHECK_OK(tp_graph_mark_output(g, y, &err), &err);
    tp_liveness *l = NULL;
    tp_error_clear(&err);
    TP_CHECK_STATUS(tp_liveness_compute(g, NULL, NULL, &l, &err), TP_ERR_UNBOUND);
    TP_CHECK(l == NULL);
    TP_CHECK_CONTAINS(err.msg, "seq_len");
    tp_plan *p = NULL;
    TP_CHECK_STATUS(tp_plan_graph(g, NULL, &p, &err), TP_ERR_UNBOUND);
    TP_CHECK(p == NULL);
    TP_CHECK_CONTAINS(err.msg, "seq_len");
    TP_CHECK_OK(tp_graph_bind(g, "seq_len", 3, &err), &err);
    l = live_of(g, NULL);
    if (l) TP_CHECK_EQ_U64(tp_liveness_get(l, y)->bytes, 3 * 8 * 4);
    tp_liveness_destroy(l);
    tp_graph_destroy(g);
}

int main(void) {
    TP_RUN(view_offsets_and_chains);
    TP_RUN(overlap_separate_disjoint_share);
    TP_RUN(reads_inputs_late);
    TP_RUN(pin_output_ancestors);
    TP_RUN(packed_qkv_parent);
    TP_RUN(inplace_rules);
    TP_RUN(inplace_lifetime_not_edges);
    TP_RUN(view_of_inplace_node);
    TP_RUN(output_of_born_with_producer);
    TP_RUN(tied_param_is_alias);
    TP_RUN(f32_uniform_width);
    TP_RUN(unbound_symbol_named);
    return tp_test_finish();
}
