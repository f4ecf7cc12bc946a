/* Property test: >= 10,000 random graphs (elementwise ops, matmuls, softmax,
 * views incl. chains and axis-0 narrows, copies, tied weights, late readers,
 * symbolic dims bound to random values, random options). Every plan must pass
 * the verifier and an independent O(n^2) pairwise check, respect the
 * liveness rules, and have arena >= lower bound >= the live bytes at any step. */
#include "harness.h"

static tp_error err;
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return n ? (uint32_t)(rng_state % n) : 0;
}

typedef struct gen {
    tp_graph *g;
    tp_dim sym[2];
    tp_node_id nodes[64];
    int n;
    bool ok;
} gen;

static tp_dim rand_dim0(gen *G) {
    uint32_t k = rnd(4);
    if (k < 2) return G->sym[k];
    return tp_dim_static((int64_t)rnd(6) + 1);
}

static int64_t rand_cols(void) {
    static const int64_t c[5] = {1, 2, 4, 8, 16};
    return c[rnd(5)];
}

static void push(gen *G, tp_status st, tp_node_id id) {
    if (st != TP_OK) {
        TP_FAIL_("building: %s: %s", tp_status_name(st), err.msg);
        G->ok = false;
        return;
    }
    G->nodes[G->n++] = id;
}

static tp_node_id pick(gen *G) {
    return G->nodes[rnd((uint32_t)G->n)];
}

static void add_boundary(gen *G) {
    char name[32];
    snprintf(name, sizeof name, "b%d", G->n);
    tp_shape s = tp_shape_make(2, (tp_dim[]){rand_dim0(G), tp_dim_static(rand_cols())});
    tp_node_id id = -1;
    tp_status st;
    uint32_t k = rnd(3);
    if (k == 0)
        st = tp_graph_add_input(G->g, name, TP_DTYPE_F32, &s, &id, &err);
    else if (k == 1)
        st = tp_graph_add_constant(G->g, name, TP_DTYPE_F32, &s, &id, &err);
    else {
        s.dims[0] = tp_dim_static((int64_t)rnd(6) + 1);
        st = tp_graph_add_param(G->g, name, TP_DTYPE_F32, &s, &id, &err);
    }
    push(G, st, id);
}

/* A same-shaped partner for a binary op, or x itself. */
static tp_node_id partner(gen *G, tp_node_id x) {
    const tp_node *nx = tp_graph_node(G->g, x);
    for (int tries = 0; tries < 8; tries++) {
        tp_node_id y = pick(G);
        const tp_node *ny = tp_graph_node(G->g, y);
        if (ny->shape.rank == nx->shape.rank && ny->dtype == nx->dtype &&
            tp_graph_dim_equal(G->g, ny->shape.dims[0], nx->shape.dims[0]) &&
            tp_graph_dim_equal(G->g, ny->shape.dims[1], nx->shape.dims[1]))
            return y;
    }
    return x;
}

static void add_op(gen *G) {
    tp_node_id x = pick(G), id = -1;
    const tp_node *nx = tp_graph_node(G->g, x);
    tp_status st = TP_OK;
    tp_op op;
    memset(&op, 0, sizeof op);
    switch (rnd(9)) {
    case 0: /* unary */
        op.kind = TP_OP_UNARY;
        op.sub = (int32_t)(rnd(2) ? TP_UNARY_RELU : TP_UNARY_EXP);
        st = tp_graph_add_op(G->g, &op, &x, 1, NULL, &id, &err);
        break;
    case 1: { /* binary */
        op.kind = TP_OP_BINARY;
        op.sub = TP_BINARY_ADD;
        tp_node_id y = partner(G, x);
        st = tp_graph_add_op(G->g, &op, (tp_node_id[]){x, y}, 2, NULL, &id, &err);
        break;
    }
    case 2: { /* matmul with a fresh weight */
        tp_shape ws = tp_shape_of(2, (int64_t[]){0, rand_cols()});
        ws.dims[0] = nx->shape.dims[1];
        tp_node_id w = -1;
        char name[32];
        snprintf(name, sizeof name, "w%d", G->n);
        st = tp_graph_add_param(G->g, name, TP_DTYPE_F32, &ws, &w, &err);
        if (st == TP_OK) push(G, st, w);
        op.kind = TP_OP_MATMUL;
        if (st == TP_OK) st = tp_graph_add_op(G->g, &op, (tp_node_id[]){x, w}, 2, NULL, &id, &err);
        break;
    }
    case 3: /* softmax */
        op.kind = TP_OP_SOFTMAX;
        op.attrs.axis.axis = -1;
        st = tp_graph_add_op(G->g, &op, &x, 1, NULL, &id, &err);
        break;
    case 4: /* reshape view */
        op.kind = TP_OP_RESHAPE;
        st = tp_graph_add_op_shaped(G->g, &op, &x, 1, &nx->shape, nx->dtype, NULL, &id, &err);
        break;
    case 5: /* same-dtype cast view */
        op.kind = TP_OP_CAST;
        op.attrs.cast.to = nx->dtype;
        st = tp_graph_add_op(G->g, &op, &x, 1, NULL, &id, &err);
        break;
    case 6: /* narrow: a view on axis 0 (static rows), else a copy on axis 1 */
        op.kind = TP_OP_NARROW;
        if (tp_dim_is_static(nx->shape.dims[0]) && nx->shape.dims[0].size >= 1 && rnd(3)) {
            int64_t rows = nx->shape.dims[0].size;
            op.attrs.narrow.axis = 0;
            op.attrs.narrow.start = (int64_t)rnd((uint32_t)rows);
            op.attrs.narrow.length = (int64_t)rnd((uint32_t)(rows - op.attrs.narrow.start)) + 1;
        } else {
            int64_t cols = nx->shape.dims[1].size;
            op.attrs.narrow.axis = 1;
            op.attrs.narrow.start = (int64_t)rnd((uint32_t)cols);
            op.attrs.narrow.length = (int64_t)rnd((uint32_t)(cols - op.attrs.narrow.start)) + 1;
        }
        st = tp_graph_add_op(G->g, &op, &x, 1, NULL, &id, &err);
        break;
    case 7: /* tied weight alias of a param, else a unary */
        if (nx->op.kind == TP_OP_PARAM) {
            char name[32];
            snprintf(name, sizeof name, "t%d", G->n);
            st = tp_graph_add_tied_param(G->g, name, x, &id, &err);
            break;
        }
        op.kind = TP_OP_UNARY;
        op.sub = TP_UNARY_NEG;
        st = tp_graph_add_op(G->g, &op, &x, 1, NULL, &id, &err);
        break;
    default:
        add_boundary(G);
        return;
    }
    push(G, st, id);
    if (st == TP_OK && rnd(20) == 0)
        TP_CHECK_OK(tp_graph_set_flags(G->g, id, TP_NODE_READS_INPUTS_LATE, &err), &err);
}

static bool ranges_overlap(int64_t b1, int64_t d1, int64_t b2, int64_t d2) {
    return b1 <= d2 && b2 <= d1;
}

static tp_alloc_algo algos[TP_ALGO_COUNT];
static uint32_t n_algos;

/* The placement algorithms this build implements (probed on two buffers);
 * exact search is left out: it is the allocator's own test's business. */
static void probe_algos(void) {
    tp_buffer b[2] = {{.size = 8, .birth = 0, .death = 1, .fixed_offset = -1, .id = 0},
                      {.size = 8, .birth = 1, .death = 2, .fixed_offset = -1, .id = 1}};
    for (int a = 0; a < TP_ALGO_COUNT; a++) {
        if (a == TP_ALGO_EXACT) continue;
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        o.algo = (tp_alloc_algo)a;
        uint64_t off[2];
        tp_alloc_result r;
        if (tp_alloc_plan(b, 2, &o, NULL, off, &r, NULL) == TP_OK) {
            algos[n_algos++] = (tp_alloc_algo)a;
            printf("  algorithm %s\n", tp_alloc_algo_name((tp_alloc_algo)a));
        }
    }
}

static void random_options(tp_plan_options *po) {
    tp_plan_options_default(po);
    po->alignment = 1ull << rnd(9);
    po->algo = algos[rnd(n_algos)];
    po->time_limit_s = 0.0;
    po->inplace = rnd(4) != 0;
    po->pin_output_ancestors = rnd(6) == 0;
    po->width = rnd(4) == 0 ? TP_WIDTH_F32_UNIFORM : TP_WIDTH_NATIVE;
    po->allocate_params = rnd(4) != 0;
    po->allocate_inputs = rnd(4) != 0;
    po->allocate_constants = rnd(4) != 0;
}

/* Liveness rules checked from the graph directly. */
static void check_liveness(const tp_graph *g, const tp_liveness *l) {
    const uint32_t n = tp_graph_node_count(g);
    for (uint32_t i = 0; i < n; i++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)i);
        const tp_live *lv = tp_liveness_get(l, (tp_node_id)i);
        if (lv->birth > lv->death)
            TP_FAIL_("node %u: birth %lld > death %lld", i, (long long)lv->birth,
                     (long long)lv->death);
        if ((nd->flags & TP_NODE_OUTPUT) && lv->death != (int64_t)n)
            TP_FAIL_("output %u dies at %lld", i, (long long)lv->death);
        if (tp_op_is_boundary(nd->op.kind) && (lv->birth != 0 || lv->death != (int64_t)n))
            TP_FAIL_("boundary %u lives [%lld, %lld]", i, (long long)lv->birth,
                     (long long)lv->death);
        for (uint32_t k = 0; k < nd->n_inputs; k++) {
            const tp_live *in = tp_liveness_get(l, nd->inputs[k]);
            int64_t need = (nd->flags & TP_NODE_READS_INPUTS_LATE) ? (int64_t)n : (int64_t)i;
            if (in->death < need)
                TP_FAIL_("node %u reads %d which dies at %lld", i, (int)nd->inputs[k],
                         (long long)in->death);
            /* through a view: every source up the chain lives as long */
            tp_node_id v = nd->inputs[k];
            while (tp_liveness_get(l, v)->is_view) {
                const tp_node *vn = tp_graph_node(g, v);
                v = vn->op.kind == TP_OP_PARAM ? vn->op.attrs.param.tied_to : vn->inputs[0];
                if (tp_liveness_get(l, v)->death < need)
                    TP_FAIL_("node %u reads %d through views; source %d dies at %lld", i,
                             (int)nd->inputs[k], (int)v, (long long)tp_liveness_get(l, v)->death);
            }
        }
    }
}

static bool toggled_off(const tp_node *nd, const tp_plan_options *po) {
    return (nd->op.kind == TP_OP_INPUT && !po->allocate_inputs) ||
           (nd->op.kind == TP_OP_PARAM && !po->allocate_params) ||
           (nd->op.kind == TP_OP_CONSTANT && !po->allocate_constants);
}

static void check_plan(const tp_graph *g, const tp_plan *p, const tp_plan_options *po,
                       const tp_liveness *l) {
    TP_CHECK_OK(tp_plan_verify(p, &err), &err);
    TP_CHECK_LE_U64(tp_plan_lower_bound_bytes(p), tp_plan_arena_bytes(p));
    const uint32_t ns = tp_plan_slot_count(p);
    const uint32_t n = tp_graph_node_count(g);
    uint64_t unshared = 0;
    for (uint32_t a = 0; a < ns; a++) {
        const tp_slot *s = tp_plan_slot(p, a);
        if (!s->is_view) unshared += s->size;
        if (!s->is_view && !s->inplace && s->offset % po->alignment != 0)
            TP_FAIL_("slot of node %d at %llu not aligned to %llu", (int)s->node,
                     (unsigned long long)s->offset, (unsigned long long)po->alignment);
        if (s->offset + s->size > tp_plan_arena_bytes(p))
            TP_FAIL_("slot of node %d ends past the arena", (int)s->node);
        for (uint32_t b = a + 1; b < ns; b++) {
            const tp_slot *t = tp_plan_slot(p, b);
            if (t->offset >= s->offset + s->size) break; /* sorted by offset */
            if (s->root == t->root || s->size == 0 || t->size == 0) continue;
            if (ranges_overlap(s->birth, s->death, t->birth, t->death))
                TP_FAIL_("nodes %d [%lld,%lld] @%llu+%llu and %d [%lld,%lld] @%llu+%llu collide",
                         (int)s->node, (long long)s->birth, (long long)s->death,
                         (unsigned long long)s->offset, (unsigned long long)s->size, (int)t->node,
                         (long long)t->birth, (long long)t->death, (unsigned long long)t->offset,
                         (unsigned long long)t->size);
        }
    }
    TP_CHECK_EQ_U64(unshared, tp_plan_unshared_bytes(p));
    /* the lower bound covers the live (unguarded) bytes at every step */
    for (uint32_t step = 0; step <= n; step++) {
        uint64_t live = 0;
        for (uint32_t a = 0; a < ns; a++) {
            const tp_slot *s = tp_plan_slot(p, a);
            if (!s->is_view && !s->inplace && s->birth <= (int64_t)step &&
                (int64_t)step <= s->death)
                live += s->size;
        }
        if (live > tp_plan_lower_bound_bytes(p))
            TP_FAIL_("step %u: %llu live bytes above the lower bound %llu", step,
                     (unsigned long long)live, (unsigned long long)tp_plan_lower_bound_bytes(p));
    }
    /* every node has a slot unless its bytes belong to a boundary toggled off */
    for (uint32_t i = 0; i < n; i++) {
        const tp_slot *s = tp_plan_slot_of(p, (tp_node_id)i);
        if (s) {
            TP_CHECK_EQ_I64(s->node, (int64_t)i);
            continue;
        }
        const tp_node *nd = tp_graph_node(g, (tp_node_id)i);
        const tp_node *owner = tp_graph_node(g, tp_liveness_get(l, (tp_node_id)i)->root);
        if (!toggled_off(owner, po)) TP_FAIL_("node %u (%s) has no slot", i, tp_op_name(&nd->op));
    }
}

TP_TEST(random_graphs) {
    int graphs = 0, planned = 0;
    probe_algos();
    TP_CHECK(n_algos >= 2);
    uint64_t views = 0, inplace = 0;
    for (int iter = 0; iter < 10000 && !tp_test_cur_failed_; iter++) {
        gen G;
        memset(&G, 0, sizeof G);
        G.ok = true;
        TP_CHECK_OK(tp_graph_create(NULL, &G.g, &err), &err);
        if (!G.g) return;
        TP_CHECK_OK(tp_graph_symbol(G.g, "b", &G.sym[0], &err), &err);
        TP_CHECK_OK(tp_graph_symbol(G.g, "s", &G.sym[1], &err), &err);
        add_boundary(&G);
        int target = 2 + (int)rnd(30);
        while (G.ok && G.n < target && G.n < 60)
            add_op(&G);
        if (!G.ok) {
            tp_graph_destroy(G.g);
            return;
        }
        uint32_t n = tp_graph_node_count(G.g);
        TP_CHECK_OK(tp_graph_mark_output(G.g, (tp_node_id)(n - 1), &err), &err);
        for (uint32_t i = 0; i + 1 < n; i++)
            if (rnd(10) == 0) TP_CHECK_OK(tp_graph_mark_output(G.g, (tp_node_id)i, &err), &err);
        TP_CHECK_OK(tp_graph_bind(G.g, "b", (int64_t)rnd(9), &err), &err);
        TP_CHECK_OK(tp_graph_bind(G.g, "s", (int64_t)rnd(9), &err), &err);
        tp_plan_options po;
        random_options(&po);
        tp_liveness *l = NULL;
        TP_CHECK_OK(tp_liveness_compute(G.g, &po, NULL, &l, &err), &err);
        if (l) {
            check_liveness(G.g, l);
            for (uint32_t i = 0; i < n; i++)
                views += tp_liveness_get(l, (tp_node_id)i)->is_view;
            inplace += tp_liveness_inplace_saved_bytes(l) > 0;
        }
        tp_plan *p = NULL;
        TP_CHECK_OK(tp_plan_graph(G.g, &po, &p, &err), &err);
        if (p && l) {
            check_plan(G.g, p, &po, l);
            planned++;
        }
        tp_plan_destroy(p);
        tp_liveness_destroy(l);
        tp_graph_destroy(G.g);
        graphs++;
    }
    printf("  %d graphs, %d plans verified, %llu views, %llu graphs with in-place reuse\n", graphs,
           planned, (unsigned long long)views, (unsigned long long)inplace);
    TP_CHECK(graphs == 10000);
    TP_CHECK(planned == 10000);
    TP_CHECK(views > 1000);
    TP_CHECK(inplace > 100);
}

int main(void) {
    TP_RUN(random_graphs);
    return tp_test_finish();
}
