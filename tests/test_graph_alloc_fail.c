/* Allocation-failure sweep over graph building: fail the k-th allocation for
 * every k until building succeeds. Each failing run must return TP_ERR_NOMEM
 * and free everything at tp_graph_destroy; a second sweep retries the failed
 * step and must end with the same graph as an undisturbed build. */
#include "harness.h"

typedef struct ctx {
    tp_failing_allocator *fa;
    bool retry; /* on NOMEM: stop failing and redo the step */
    tp_status first_fail;
} ctx;

#define STEP(expr)                                                                                 \
    do {                                                                                           \
        tp_status st_ = (expr);                                                                    \
        if (st_ != TP_OK && c->retry && st_ == TP_ERR_NOMEM) {                                     \
            c->fa->fail_at = 0;                                                                    \
            st_ = (expr);                                                                          \
        }                                                                                          \
        if (st_ != TP_OK) {                                                                        \
            c->first_fail = st_;                                                                   \
            return st_;                                                                            \
        }                                                                                          \
    } while (0)

/* A ~40-node decoder-ish graph touching symbols, derived dims, names, custom
 * ops, a wide concat (temporary input table), default bindings and validation. */
static tp_status build(tp_graph *g, ctx *c, tp_error *err) {
    tp_dim b, s, past, kv;
    STEP(tp_graph_symbol(g, "batch", &b, err));
    STEP(tp_graph_symbol(g, "seq", &s, err));
    STEP(tp_graph_symbol(g, "past", &past, err));
    STEP(tp_graph_dim_expr(g, TP_SYM_ADD, past, s, &kv, err));
    tp_node_id x, emb, ids, w[4], h, t, k, v, q, a, y, cat_in[20], cat, cu;
    tp_shape ids_s = tp_shape_make(2, (tp_dim[]){b, s});
    STEP(tp_graph_add_input(g, "ids", TP_DTYPE_I64, &ids_s, &ids, err));
    tp_shape es = tp_shape_of(2, (int64_t[]){1000, 64});
    STEP(tp_graph_add_param(g, "emb", TP_DTYPE_F32, &es, &emb, err));
    tp_op gather = {.kind = TP_OP_GATHER};
    STEP(tp_graph_add_op(g, &gather, (tp_node_id[]){emb, ids}, 2, "embed", &x, err));
    char name[32];
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "w%d", i);
        tp_shape ws = tp_shape_of(2, (int64_t[]){64, 64});
        STEP(tp_graph_add_param(g, name, i == 3 ? TP_DTYPE_Q8_0 : TP_DTYPE_F32, &ws, &w[i], err));
    }
    tp_op mm = {.kind = TP_OP_MATMUL};
    STEP(tp_graph_add_op(g, &mm, (tp_node_id[]){x, w[0]}, 2, "q", &q, err));
    tp_shape kvs = tp_shape_make(3, (tp_dim[]){b, kv, tp_dim_static(64)});
    STEP(tp_graph_add_input(g, "k_cache", TP_DTYPE_F32, &kvs, &k, err));
    STEP(tp_graph_add_input(g, "v_cache", TP_DTYPE_F32, &kvs, &v, err));
    tp_op at = {.kind = TP_OP_ATTENTION};
    at.attrs.attention.heads = 4;
    at.attrs.attention.head_dim = 16;
    at.attrs.attention.mask = TP_MASK_CAUSAL;
    STEP(tp_graph_add_op(g, &at, (tp_node_id[]){q, k, v}, 3, "attn", &a, err));
    STEP(tp_graph_add_op(g, &mm, (tp_node_id[]){a, w[3]}, 2, "o", &h, err));
    tp_op add = {.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD};
    STEP(tp_graph_add_op(g, &add, (tp_node_id[]){x, h}, 2, "res", &t, err));
    tp_op rms = {.kind = TP_OP_NORM, .sub = TP_NORM_RMS};
    rms.attrs.norm.axis = -1;
    STEP(tp_graph_add_op(g, &rms, &t, 1, NULL, &t, err));
    for (int i = 0; i < 20; i++) {
        tp_op u = {.kind = TP_OP_UNARY, .sub = TP_UNARY_SILU};
        snprintf(name, sizeof name, "act_with_a_long_name_%d", i);
        STEP(tp_graph_add_op(g, &u, &t, 1, name, &cat_in[i], err));
    }
    tp_op cc = {.kind = TP_OP_CONCAT};
    cc.attrs.axis.axis = 1;
    STEP(tp_graph_add_op(g, &cc, cat_in, 20, "cat", &cat, err));
    tp_op cu_op = {.kind = TP_OP_CUSTOM};
    cu_op.attrs.custom.name = "vendor.fused_thing";
    cu_op.attrs.custom.n_inputs = 1;
    tp_shape cs = tp_shape_make(2, (tp_dim[]){b, tp_dim_static(8)});
    STEP(tp_graph_add_op_shaped(g, &cu_op, &cat, 1, &cs, TP_DTYPE_F32, "custom", &cu, err));
    tp_op fl = {.kind = TP_OP_FLATTEN};
    fl.attrs.axis.axis = 1;
    STEP(tp_graph_add_op(g, &fl, &cat, 1, "flat", &y, err));
    tp_node_id tied;
    STEP(tp_graph_add_tied_param(g, "emb_out", emb, &tied, err));
    STEP(tp_graph_mark_output(g, y, err));
    STEP(tp_graph_mark_output(g, cu, err));
    STEP(tp_graph_set_flags(g, cu, TP_NODE_READS_INPUTS_LATE, err));
    STEP(tp_graph_bind_defaults(g, NULL, 0, NULL, err)); /* batch = 1 (allocates a mark table) */
    STEP(tp_graph_bind(g, "batch", 2, err));
    STEP(tp_graph_bind_str(g, "seq=3", err));
    STEP(tp_graph_bind(g, "past", 5, err));
    STEP(tp_graph_validate(g, true, err));
    return TP_OK;
}

/* Text summary of a graph to compare builds. */
static void summary(const tp_graph *g, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < tp_graph_node_count(g) && len + 1 < cap; i++) {
        const tp_node *n = tp_graph_node(g, (tp_node_id)i);
        char sh[128];
        uint64_t bytes = 0;
        tp_graph_node_bytes(g, (tp_node_id)i, &bytes, NULL);
        int w =
            snprintf(buf + len, cap - len, "%s %s %s %" PRIu64 " %u;", n->name, tp_op_name(&n->op),
                     tp_graph_shape_str(g, &n->shape, sh, sizeof sh), bytes, n->flags);
        if (w < 0) break;
        len += (size_t)w;
    }
}

static char reference[16384];

TP_TEST(reference_build) {
    tp_graph *g = NULL;
    tp_error e;
    ctx c = {NULL, false, TP_OK};
    TP_CHECK_OK(tp_graph_create(NULL, &g, &e), &e);
    TP_CHECK_OK(build(g, &c, &e), &e);
    TP_CHECK(tp_graph_node_count(g) >= 30);
    summary(g, reference, sizeof reference);
    TP_CHECK_CONTAINS(reference, "res binary.add [batch,seq,64] 1536 0;");
    TP_CHECK_CONTAINS(reference, "cat concat [batch,(20*seq),64] 30720 0;");
    tp_graph_destroy(g);
}

/* fail the k-th allocation (and every later one) */
TP_TEST(sweep_sticky) {
    long k, failures = 0;
    for (k = 1; k < 100000; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, k);
        tp_graph *g = NULL;
        tp_error e;
        tp_error_clear(&e);
        ctx c = {&fa, false, TP_OK};
        tp_status st = tp_graph_create(&fa.hook, &g, &e);
        if (st == TP_OK) st = build(g, &c, &e);
        tp_graph_destroy(g);
        if (st != TP_OK) {
            failures++;
            if (st != TP_ERR_NOMEM || !fa.failed) {
                TP_FAIL_("k=%ld: status %s (%s), want TP_ERR_NOMEM", k, tp_status_name(st), e.msg);
                break;
            }
            if (!strstr(e.msg, "out of memory")) {
                TP_FAIL_("k=%ld: message '%s'", k, e.msg);
                break;
            }
        }
        if (fa.live != 0 || fa.live_bytes != 0) {
            TP_FAIL_("k=%ld: %ld allocations / %zu bytes live after destroy", k, fa.live,
                     fa.live_bytes);
            break;
        }
        if (st == TP_OK) {
            TP_CHECK(!fa.failed);
            break;
        }
    }
    printf("  %ld failing runs before the first clean build\n", failures);
    TP_CHECK(failures >= 20);
}

/* fail the k-th allocation once, retry the step: the graph must be unharmed */
TP_TEST(sweep_retry) {
    static char got[16384];
    for (long k = 1; k < 100000; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, k);
        tp_graph *g = NULL;
        tp_error e;
        ctx c = {&fa, true, TP_OK};
        tp_status st = tp_graph_create(&fa.hook, &g, &e);
        if (st == TP_ERR_NOMEM) {
            fa.fail_at = 0;
            st = tp_graph_create(&fa.hook, &g, &e);
        }
        if (st == TP_OK) st = build(g, &c, &e);
        if (st != TP_OK) {
            TP_FAIL_("k=%ld: retry build failed: %s", k, e.msg);
            tp_graph_destroy(g);
            break;
        }
        summary(g, got, sizeof got);
        if (strcmp(got, reference) != 0) {
            TP_FAIL_("k=%ld: graph differs after a failed step\n got %s\nwant %s", k, got,
                     reference);
            tp_graph_destroy(g);
            break;
        }
        bool failed = fa.failed;
        tp_graph_destroy(g);
        if (fa.live != 0 || fa.live_bytes != 0) {
            TP_FAIL_("k=%ld: leak after retry", k);
            break;
        }
        if (!failed) break;
    }
}

int main(void) {
    TP_RUN(reference_build);
    TP_RUN(sweep_sticky);
    TP_RUN(sweep_retry);
    return tp_test_finish();
}
