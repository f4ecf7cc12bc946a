/* Tests of the memory estimate, budget check, MoE offload and max-fit search. */
#include <math.h>
#include <unistd.h>

#include "harness.h"
#include "tensorplan/demo.h"
#include "tensorplan/estimate.h"

/* x[batch,64] f32 -> matmul(w[64,64]) -> gelu -> output. */
static tp_graph *mlp_graph(const tp_allocator *a, int64_t batch, tp_error *err) {
    tp_graph *g = NULL;
    if (tp_graph_create(a, &g, err) != TP_OK) return NULL;
    tp_dim b;
    tp_node_id x, w, h, y;
    tp_shape ws = tp_shape_of(2, (int64_t[]){64, 64});
    if (tp_graph_symbol(g, "batch", &b, err) != TP_OK) goto fail;
    tp_shape xs = tp_shape_make(2, (tp_dim[]){b, tp_dim_static(64)});
    if (tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, err) != TP_OK ||
        tp_graph_add_param(g, "w", TP_DTYPE_F32, &ws, &w, err) != TP_OK ||
        tp_graph_add_op(g, &(tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x, w}, 2, "mm", &h,
                        err) != TP_OK ||
        tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_GELU}, (tp_node_id[]){h},
                        1, "gelu", &y, err) != TP_OK ||
        tp_graph_mark_output(g, y, err) != TP_OK)
        goto fail;
    if (batch >= 0 && tp_graph_bind(g, "batch", batch, err) != TP_OK) goto fail;
    return g;
fail:
    tp_graph_destroy(g);
    return NULL;
}

static uint64_t full_arena(const tp_graph *g, bool inplace) {
    tp_plan_options po;
    tp_plan_options_default(&po);
    po.inplace = inplace;
    tp_plan *p = NULL;
    if (tp_plan_graph(g, &po, &p, NULL) != TP_OK) return 0;
    uint64_t a = tp_plan_arena_bytes(p);
    tp_plan_destroy(p);
    return a;
}

TP_TEST(test_breakdown_by_hand) {
    tp_error err_s, *err = &err_s;
    tp_graph *g = mlp_graph(NULL, 8, err);
    TP_CHECK(g != NULL);
    if (!g) return;
    tp_estimate_options eo;
    tp_estimate_options_default(&eo);
    eo.plan.inplace = false; /* h [8,64] and gelu's y both live at the gelu step */
    tp_estimate e;
    TP_CHECK_OK(tp_estimate_graph(g, &eo, &e, err), err);
    TP_CHECK_EQ_U64(e.weight_bytes, 64 * 64 * 4);
    TP_CHECK_EQ_U64(e.param_bytes, 64 * 64 * 4);
    TP_CHECK_EQ_U64(e.input_bytes, 8 * 64 * 4);
    TP_CHECK_EQ_U64(e.activation_bytes, 2 * 8 * 64 * 4);
    TP_CHECK_EQ_U64(e.peak_bytes, 16384 + 2048 + 4096);
    TP_CHECK(!e.from_registry);
    /* Adding weights and inputs to an arena that already contains them
     * counts them twice; the estimate is strictly smaller than that. */
    uint64_t reference = full_arena(g, false) + e.weight_bytes + e.input_bytes;
    TP_CHECK(e.peak_bytes < reference);
    /* with in-place reuse gelu writes into h's slot: one buffer */
    tp_estimate_options_default(&eo);
    TP_CHECK_OK(tp_estimate_graph(g, &eo, &e, err), err);
    TP_CHECK_EQ_U64(e.activation_bytes, 8 * 64 * 4);
    TP_CHECK_EQ_U64(e.peak_bytes, 16384 + 2048 + 2048);
    /* the activation plan handed over is the one the figure came from */
    tp_plan *act = NULL;
    tp_estimate e2;
    TP_CHECK_OK(tp_estimate_graph_plan(g, &eo, &e2, &act, err), err);
    TP_CHECK(act != NULL);
    if (act) {
        TP_CHECK_EQ_U64(tp_plan_arena_bytes(act), e2.activation_bytes);
        TP_CHECK(tp_plan_slot_of(act, 0) == NULL); /* the input is not in it */
        TP_CHECK_OK(tp_plan_verify(act, err), err);
    }
    tp_plan_destroy(act);
    TP_CHECK_EQ_U64(e2.peak_bytes, e.peak_bytes);
    tp_graph_unbind_all(g);
    act = (tp_plan *)&e2; /* must be reset on error */
    TP_CHECK_STATUS(tp_estimate_graph_plan(g, &eo, &e2, &act, err), TP_ERR_UNBOUND);
    TP_CHECK(act == NULL);
    tp_graph_destroy(g);
}

TP_TEST(test_tied_constants_registry) {
    tp_error err_s, *err = &err_s;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, err), err);
    if (!g) return;
    tp_shape es = tp_shape_of(2, (int64_t[]){100, 16});
    tp_shape cs = tp_shape_of(1, (int64_t[]){16});
    tp_shape is = tp_shape_of(2, (int64_t[]){4, 16});
    tp_node_id x, emb, head, c, h, y;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &is, &x, err), err);
    TP_CHECK_OK(tp_graph_add_param(g, "embd", TP_DTYPE_F16, &es, &emb, err), err);
    TP_CHECK_OK(tp_graph_add_tied_param(g, "head", emb, &head, err), err);
    TP_CHECK_OK(tp_graph_add_constant(g, "bias", TP_DTYPE_F32, &cs, &c, err), err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD},
                                (tp_node_id[]){x, c}, 2, "add", &h, err),
                err);
    TP_CHECK_OK(tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU},
                                (tp_node_id[]){h}, 1, "relu", &y, err),
                err);
    TP_CHECK_OK(tp_graph_mark_output(g, y, err), err);
    tp_estimate e;
    TP_CHECK_OK(tp_estimate_graph(g, NULL, &e, err), err);
    TP_CHECK_EQ_U64(e.param_bytes, 100 * 16 * 2); /* head not counted again */
    TP_CHECK_EQ_U64(e.tied_params_skipped, 1);
    TP_CHECK_EQ_U64(e.constant_bytes, 64);
    TP_CHECK_EQ_U64(e.weight_bytes, 3200 + 64);
    TP_CHECK_EQ_U64(e.input_bytes, 256);
    TP_CHECK_EQ_U64(e.peak_bytes, e.activation_bytes + 3264 + 256);
    TP_CHECK(e.activation_bytes >= 256); /* at least the output */

    /* with a registry its total replaces Params + Constants */
    tp_registry *r = NULL;
    TP_CHECK_OK(tp_registry_create(NULL, &r, err), err);
    TP_CHECK_OK(tp_registry_add_graph_params(r, g, err), err);
    tp_weight_desc lora = {.name = "embd.lora_a",
                           .rank = 2,
                           .dims = {100, 4},
                           .dtype = TP_DTYPE_F32,
                           .kind = TP_WEIGHT_LORA_ADAPTER,
                           .related = "style"};
    TP_CHECK_OK(tp_registry_add(r, &lora, NULL, err), err);
    tp_estimate_options eo;
    tp_estimate_options_default(&eo);
    eo.registry = r;
    tp_estimate er;
    TP_CHECK_OK(tp_estimate_graph(g, &eo, &er, err), err);
    TP_CHECK(er.from_registry);
    TP_CHECK_EQ_U64(er.weight_bytes, 3200 + 1600);
    TP_CHECK_EQ_U64(er.activation_bytes, e.activation_bytes);
    TP_CHECK_EQ_U64(er.peak_bytes, e.activation_bytes + 4800 + 256);
    tp_registry_destroy(r);
    tp_graph_destroy(g);
}

TP_TEST(test_unbound_and_bad_args) {
    tp_error err_s, *err = &err_s;
    tp_graph *g = mlp_graph(NULL, -1, err);
    TP_CHECK(g != NULL);
    if (!g) return;
    tp_estimate e;
    TP_CHECK_STATUS(tp_estimate_graph(g, NULL, &e, err), TP_ERR_UNBOUND);
    TP_CHECK_CONTAINS(err->msg, "batch");
    TP_CHECK_STATUS(tp_estimate_graph(NULL, NULL, &e, err), TP_ERR_INVALID);
    tp_estimate_options eo;
    tp_estimate_options_default(&eo);
    eo.plan.alignment = 48;
    TP_CHECK_OK(tp_graph_bind(g, "batch", 2, err), err);
    TP_CHECK_STATUS(tp_estimate_graph(g, &eo, &e, err), TP_ERR_INVALID);
    /* sizes beyond 64 bits */
    TP_CHECK_OK(tp_graph_bind(g, "batch", (int64_t)1 << 60, err), err);
    TP_CHECK_STATUS(tp_estimate_graph(g, NULL, &e, err), TP_ERR_OVERFLOW);
    tp_graph_destroy(g);
}

TP_TEST(test_fits_in_message) {
    tp_error err_s, *err = &err_s;
    tp_estimate e;
    memset(&e, 0, sizeof e);
    e.activation_bytes = 106954752; /* 102.0 MiB */
    e.weight_bytes = 734108058;     /* 700.1 MiB */
    e.input_bytes = 10800333;       /* 10.3 MiB */
    e.peak_bytes = e.activation_bytes + e.weight_bytes + e.input_bytes;
    tp_deficit d;
    TP_CHECK_STATUS(tp_estimate_fits_in(&e, 512ull << 20, &d, err), TP_ERR_OVER_BUDGET);
    TP_CHECK_STR(err->msg, "estimated peak 812.4 MiB exceeds budget 512.0 MiB by 300.4 MiB "
                           "(activations 102.0 MiB, weights 700.1 MiB, inputs 10.3 MiB)");
    TP_CHECK_EQ_U64(d.budget_bytes, 536870912);
    TP_CHECK_EQ_U64(d.peak_bytes, 851863143);
    TP_CHECK_EQ_U64(d.deficit_bytes, 851863143 - 536870912);
    TP_CHECK_EQ_U64(d.weight_bytes, 734108058);
    char buf[256];
    TP_CHECK_STR(tp_deficit_format(&d, buf, sizeof buf), err->msg);
    /* exactly at the budget fits; one byte less does not */
    tp_error_clear(err);
    TP_CHECK_OK(tp_estimate_fits_in(&e, e.peak_bytes, &d, err), err);
    TP_CHECK_EQ_U64(d.deficit_bytes, 0);
    TP_CHECK_STATUS(tp_estimate_fits_in(&e, e.peak_bytes - 1, &d, err), TP_ERR_OVER_BUDGET);
    TP_CHECK_EQ_U64(d.deficit_bytes, 1);
    TP_CHECK_STATUS(tp_estimate_fits_in(NULL, 1, &d, err), TP_ERR_INVALID);
}

static tp_estimate est(uint64_t act, uint64_t w, uint64_t in) {
    tp_estimate e;
    memset(&e, 0, sizeof e);
    e.activation_bytes = act;
    e.weight_bytes = w;
    e.input_bytes = in;
    e.peak_bytes = act + w + in;
    return e;
}

TP_TEST(test_moe_offload) {
    tp_error err_s, *err = &err_s;
    const uint64_t MiB = 1ull << 20, GiB = 1ull << 30;
    tp_estimate e = est(1 * GiB, 4 * GiB, 1 * MiB);
    tp_moe_config c = {.experts_per_layer = 8,
                       .moe_layers = 4,
                       .expert_bytes = 100 * MiB,
                       .max_device_experts = 6,
                       .device_budget_bytes = 2 * GiB,
                       .reserve_fraction = 0.1};
    tp_moe_plan m;
    TP_CHECK_OK(tp_estimate_moe_offload(&e, &c, &m, err), err);
    TP_CHECK_EQ_U64(m.reserve_bytes, 214748364); /* floor(2 GiB x 0.1) */
    TP_CHECK_EQ_U64(m.resident_per_layer, 4);    /* (2 GiB - reserve) / (100 MiB x 4) = 4.6 */
    TP_CHECK_EQ_U64(m.all_expert_bytes, 3200 * MiB);
    TP_CHECK_EQ_U64(m.resident_expert_bytes, 1600 * MiB);
    TP_CHECK_EQ_U64(m.offloaded_expert_bytes, 1600 * MiB);
    TP_CHECK_EQ_U64(m.peak_with_offload_bytes, GiB + MiB + (4 * GiB - 3200 * MiB) + 1600 * MiB);
    /* max_dev caps */
    c.max_device_experts = 2;
    TP_CHECK_OK(tp_estimate_moe_offload(&e, &c, &m, err), err);
    TP_CHECK_EQ_U64(m.resident_per_layer, 2);
    /* E caps */
    c.max_device_experts = 100;
    c.device_budget_bytes = 1ull << 50;
    TP_CHECK_OK(tp_estimate_moe_offload(&e, &c, &m, err), err);
    TP_CHECK_EQ_U64(m.resident_per_layer, 8);
    TP_CHECK_EQ_U64(m.offloaded_expert_bytes, 0);
    TP_CHECK_EQ_U64(m.peak_with_offload_bytes, e.peak_bytes);
    /* decimal reserve fractions are exact: floor(10 x 0.3) = 3 */
    c.device_budget_bytes = 10;
    c.reserve_fraction = 0.3;
    TP_CHECK_OK(tp_estimate_moe_offload(&e, &c, &m, err), err);
    TP_CHECK_EQ_U64(m.reserve_bytes, 3);
    TP_CHECK_EQ_U64(m.resident_per_layer, 0); /* 7 bytes hold no expert */
    /* r = 1: everything reserved */
    c.device_budget_bytes = 2 * GiB;
    c.reserve_fraction = 1.0;
    TP_CHECK_OK(tp_estimate_moe_offload(&e, &c, &m, err), err);
    TP_CHECK_EQ_U64(m.reserve_bytes, 2 * GiB);
    TP_CHECK_EQ_U64(m.resident_per_layer, 0);
    TP_CHECK_EQ_U64(m.peak_with_offload_bytes, GiB + MiB + 4 * GiB - 3200 * MiB);
    /* epb = 0 or L = 0: min(max_dev, E) */
    c.reserve_fraction = 0.5;
    c.expert_bytes = 0;
    c.max_device_experts = 5;
    TP_CHECK_OK(tp_estimate_moe_offload(&e, &c, &m, err), err);
    TP_CHECK_EQ_U64(m.resident_per_layer, 5);
    TP_CHECK_EQ_U64(m.all_expert_bytes, 0);
    c.expert_bytes = 100 * MiB;
    c.moe_layers = 0;
    TP_CHECK_OK(tp_estimate_moe_offload(&e, &c, &m, err), err);
    TP_CHECK_EQ_U64(m.resident_per_layer, 5);
    TP_CHECK_EQ_U64(m.all_expert_bytes, 0);
    /* experts heavier than all weights is an error */
    c.moe_layers = 4;
    tp_estimate small = est(GiB, 3 * GiB, MiB);
    TP_CHECK_STATUS(tp_estimate_moe_offload(&small, &c, &m, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "3355443200");
    /* saturating products: still the all > weight error, not a wrap */
    c.expert_bytes = 1ull << 62;
    TP_CHECK_STATUS(tp_estimate_moe_offload(&e, &c, &m, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "18446744073709551615");
    /* bad reserve */
    c.expert_bytes = MiB;
    c.reserve_fraction = -0.1;
    TP_CHECK_STATUS(tp_estimate_moe_offload(&e, &c, &m, err), TP_ERR_INVALID);
    c.reserve_fraction = 0.0 * (double)INFINITY;
    TP_CHECK_STATUS(tp_estimate_moe_offload(&e, &c, &m, err), TP_ERR_INVALID);
    c.reserve_fraction = 1.5;
    TP_CHECK_STATUS(tp_estimate_moe_offload(&e, &c, &m, err), TP_ERR_INVALID);
    /* peak overflow */
    tp_estimate huge = est(UINT64_MAX - 10, 100, 0);
    huge.peak_bytes = UINT64_MAX;
    c.reserve_fraction = 0.0;
    c.expert_bytes = 1;
    c.experts_per_layer = 10;
    c.moe_layers = 1;
    c.max_device_experts = 10;
    c.device_budget_bytes = 1000;
    TP_CHECK_STATUS(tp_estimate_moe_offload(&huge, &c, &m, err), TP_ERR_OVERFLOW);
}

/* Linear scan reference for the max-fit search. */
static int64_t scan_max_fit(tp_graph *g, const char *sym, uint64_t budget, int64_t max) {
    int64_t best = 0;
    for (int64_t v = 1; v <= max; v++) {
        tp_estimate e;
        if (tp_graph_bind(g, sym, v, NULL) != TP_OK) return -1;
        if (tp_estimate_graph(g, NULL, &e, NULL) != TP_OK) return -1;
        if (e.peak_bytes > budget) break;
        best = v;
    }
    return best;
}

TP_TEST(test_max_fit_small) {
    tp_error err_s, *err = &err_s;
    tp_graph *g = mlp_graph(NULL, 1, err);
    TP_CHECK(g != NULL);
    if (!g) return;
    tp_fit_options fo;
    tp_fit_options_default(&fo);
    fo.symbol = "batch";
    /* peak(b) = 16384 + 256 b (input) + 256 b (activation, in place) */
    for (uint64_t budget = 16384 + 512; budget < 16384 + 512 * 70; budget += 777) {
        fo.budget_bytes = budget;
        tp_fit_result fr;
        TP_CHECK_OK(tp_estimate_max_fit(g, &fo, NULL, &fr, err), err);
        int64_t want = scan_max_fit(g, "batch", budget, 200);
        TP_CHECK_EQ_I64(fr.value, want);
        TP_CHECK_EQ_I64(fr.value, (int64_t)((budget - 16384) / 512));
        TP_CHECK_LE_U64(fr.peak_bytes, budget);
        TP_CHECK(fr.next_evaluated);
        TP_CHECK_EQ_I64(fr.next_value, fr.value + 1);
        TP_CHECK(fr.next_peak_bytes > budget);
        TP_CHECK_EQ_U64(fr.peak_bytes, 16384 + 512 * (uint64_t)fr.value);
        TP_CHECK_EQ_U64(fr.next_peak_bytes, 16384 + 512 * (uint64_t)(fr.value + 1));
        TP_CHECK(!fr.at_max);
        TP_CHECK_LE_U64(fr.evaluations, 20);
    }
    /* the symbol is left bound to the answer */
    fo.budget_bytes = 16384 + 512 * 10;
    tp_fit_result fr;
    TP_CHECK_OK(tp_estimate_max_fit(g, &fo, NULL, &fr, err), err);
    TP_CHECK_EQ_I64(fr.value, 10);
    int64_t bound = 0;
    tp_node_id x;
    TP_CHECK_OK(tp_graph_find(g, "x", &x, err), err);
    TP_CHECK_OK(tp_graph_dim_value(g, tp_graph_node(g, x)->shape.dims[0], &bound, err), err);
    TP_CHECK_EQ_I64(bound, 10);
    /* even 1 does not fit */
    fo.budget_bytes = 16384;
    TP_CHECK_STATUS(tp_estimate_max_fit(g, &fo, NULL, &fr, err), TP_ERR_OVER_BUDGET);
    TP_CHECK_CONTAINS(err->msg, "even batch=1 does not fit: estimated peak");
    TP_CHECK_EQ_I64(fr.value, 0);
    TP_CHECK_EQ_U64(fr.next_peak_bytes, 16384 + 512);
    /* the upper bound stops the search */
    fo.budget_bytes = UINT64_MAX;
    fo.max_value = 1000;
    TP_CHECK_OK(tp_estimate_max_fit(g, &fo, NULL, &fr, err), err);
    TP_CHECK_EQ_I64(fr.value, 1000);
    TP_CHECK(fr.at_max);
    TP_CHECK_EQ_U64(fr.next_peak_bytes, 16384 + 512 * 1001);
    /* a huge budget without a bound: sizes overflow long before 2^40, counted as no fit */
    fo.max_value = (int64_t)1 << 62;
    fo.budget_bytes = UINT64_MAX - 1;
    TP_CHECK_OK(tp_estimate_max_fit(g, &fo, NULL, &fr, err), err);
    TP_CHECK(fr.value > ((int64_t)1 << 40));
    TP_CHECK_LE_U64(fr.peak_bytes, UINT64_MAX - 1);
    TP_CHECK(fr.next_peak_bytes > UINT64_MAX - 1);
    /* bad arguments */
    fo.symbol = "seq";
    TP_CHECK_STATUS(tp_estimate_max_fit(g, &fo, NULL, &fr, err), TP_ERR_NOT_FOUND);
    TP_CHECK_CONTAINS(err->msg, "symbols: batch");
    fo.symbol = "batch";
    fo.min_value = 5;
    fo.max_value = 4;
    TP_CHECK_STATUS(tp_estimate_max_fit(g, &fo, NULL, &fr, err), TP_ERR_INVALID);
    tp_graph_destroy(g);
}

TP_TEST(test_max_fit_demo) {
    tp_error err_s, *err = &err_s;
    tp_demo_options o;
    tp_demo_options_default(&o);
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_demo_transformer(&o, NULL, &g, err), err);
    if (!g) return;
    tp_estimate e1;
    TP_CHECK_OK(tp_estimate_graph(g, NULL, &e1, err), err);
    /* budget: the weights plus room for some activations */
    tp_fit_options fo;
    tp_fit_options_default(&fo);
    fo.symbol = "seq";
    fo.budget_bytes = e1.weight_bytes + (64ull << 20);
    fo.max_value = o.n_ctx; /* the position table bounds seq */
    tp_fit_result fr;
    TP_CHECK_OK(tp_estimate_max_fit(g, &fo, NULL, &fr, err), err);
    TP_CHECK(fr.value >= 1);
    TP_CHECK_LE_U64(fr.peak_bytes, fo.budget_bytes);
    TP_CHECK(!fr.at_max);
    TP_CHECK(fr.next_peak_bytes > fo.budget_bytes);
    /* independent check at value and value + 1 */
    tp_estimate e;
    TP_CHECK_OK(tp_graph_bind(g, "seq", fr.value, err), err);
    TP_CHECK_OK(tp_estimate_graph(g, NULL, &e, err), err);
    TP_CHECK_EQ_U64(e.peak_bytes, fr.peak_bytes);
    TP_CHECK_OK(tp_graph_bind(g, "seq", fr.value + 1, err), err);
    TP_CHECK_OK(tp_estimate_graph(g, NULL, &e, err), err);
    TP_CHECK_EQ_U64(e.peak_bytes, fr.next_peak_bytes);
    printf("  demo: weights %llu, seq <= %lld at peak %llu (next %llu), %u plans\n",
           (unsigned long long)e1.weight_bytes, (long long)fr.value,
           (unsigned long long)fr.peak_bytes, (unsigned long long)fr.next_peak_bytes,
           fr.evaluations);
    tp_graph_destroy(g);
}

/* Every allocation of an estimate failing in turn gives TP_ERR_NOMEM and frees everything. */
TP_TEST(test_alloc_failure_sweep) {
    int sweeps = 0;
    for (long k = 0; k < 500; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, 0);
        tp_error err_s, *err = &err_s;
        tp_graph *g = mlp_graph(&fa.hook, 4, err);
        TP_CHECK(g != NULL);
        if (!g) return;
        long live_before = fa.live;
        fa.fail_at = fa.count + 1 + k;
        tp_estimate e;
        tp_status s = tp_estimate_graph(g, NULL, &e, err);
        if (s != TP_OK) TP_CHECK_STATUS(s, TP_ERR_NOMEM);
        TP_CHECK_EQ_I64(fa.live, live_before);
        int failed = fa.failed;
        fa.fail_at = 0;
        tp_graph_destroy(g);
        TP_CHECK_EQ_I64(fa.live, 0);
        sweeps++;
        if (!failed) {
            TP_CHECK_OK(s, err);
            break;
        }
    }
    TP_CHECK(sweeps > 1);
}

/* ---- GGUF / LLM ---- */

typedef struct wbuf {
    unsigned char data[65536];
    size_t len;
} wbuf;

static void w_bytes(wbuf *b, const void *p, size_t n) {
    if (b->len + n <= sizeof b->data) memcpy(b->data + b->len, p, n);
    b->len += n;
}
static void w_u32(wbuf *b, uint32_t v) {
    unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    w_bytes(b, x, 4);
}
static void w_u64(wbuf *b, uint64_t v) {
    w_u32(b, (uint32_t)v);
    w_u32(b, (uint32_t)(v >> 32));
}
static void w_str(wbuf *b, const char *s) {
    w_u64(b, strlen(s));
    w_bytes(b, s, strlen(s));
}
static void kv_u32(wbuf *b, const char *k, uint32_t v) {
    w_str(b, k);
    w_u32(b, 4); /* UINT32 */
    w_u32(b, v);
}
static void kv_str(wbuf *b, const char *k, const char *v) {
    w_str(b, k);
    w_u32(b, 8); /* STRING */
    w_str(b, v);
}
/* Tensor infos get consecutive data offsets (32-aligned); tiny_data() then
 * writes the data section those offsets need. */
static uint64_t g_data_end;
static const char *g_arch = "llama";

static void tensor_n(wbuf *b, const char *name, uint32_t n_dims, const uint64_t *ne, uint32_t type,
                     uint64_t bytes) {
    w_str(b, name);
    w_u32(b, n_dims);
    for (uint32_t i = 0; i < n_dims; i++)
        w_u64(b, ne[i]);
    w_u32(b, type);
    w_u64(b, g_data_end);
    g_data_end += (bytes + 31) / 32 * 32;
}

static void tensor(wbuf *b, const char *name, uint64_t ne0, uint64_t ne1, uint32_t type,
                   uint64_t bytes) {
    const uint64_t ne[2] = {ne0, ne1};
    tensor_n(b, name, 2, ne, type, bytes);
}

static void tensor3(wbuf *b, const char *name, uint64_t ne0, uint64_t ne1, uint64_t ne2,
                    uint32_t type, uint64_t bytes) {
    const uint64_t ne[3] = {ne0, ne1, ne2};
    tensor_n(b, name, 3, ne, type, bytes);
}

/* Pad to the alignment and write g_data_end zero bytes of tensor data. */
static void tiny_data(wbuf *b) {
    while (b->len % 32)
        w_bytes(b, "", 1);
    for (uint64_t i = 0; i < g_data_end; i++)
        w_bytes(b, "", 1);
}

static void kv_arch_u32(wbuf *b, const char *suffix, uint32_t v) {
    char k[128];
    snprintf(k, sizeof k, "%s.%s", g_arch, suffix);
    kv_u32(b, k, v);
}

/* A tiny llama-like GGUF v3: 2 layers, d=64, 4 heads (2 KV), ff 172, 100 tokens;
 * with moe: 4 experts (2 used) and one stacked expert tensor per layer. */
static void tiny_gguf_moe(wbuf *b, uint32_t q_type, bool with_heads, bool moe) {
    b->len = 0;
    g_data_end = 0;
    w_u32(b, 0x46554747u);
    w_u32(b, 3);
    w_u64(b, moe ? 7 : 5);                                      /* tensors */
    w_u64(b, (uint64_t)(with_heads ? 14 : 13) + (moe ? 2 : 0)); /* key/values */
    kv_str(b, "general.architecture", g_arch);
    if (moe) {
        kv_arch_u32(b, "expert_count", 4);
        kv_arch_u32(b, "expert_used_count", 2);
    }
    kv_str(b, "general.name", "tiny");
    kv_arch_u32(b, "block_count", 2);
    kv_arch_u32(b, "context_length", 256);
    kv_arch_u32(b, "embedding_length", 64);
    kv_arch_u32(b, "feed_forward_length", 172);
    if (with_heads) kv_arch_u32(b, "attention.head_count", 4);
    kv_arch_u32(b, "attention.head_count_kv", 2);
    w_str(b, "llama.rope.freq_base"); /* a float: skipped */
    w_u32(b, 6);
    w_u32(b, 0x461c4000u);
    w_str(b, "tokenizer.ggml.tokens"); /* array of 100 strings */
    w_u32(b, 9);
    w_u32(b, 8);
    w_u64(b, 100);
    for (int i = 0; i < 100; i++) {
        char t[16];
        snprintf(t, sizeof t, "tok%d", i);
        w_str(b, t);
    }
    w_str(b, "tokenizer.ggml.scores"); /* array of 100 f32 */
    w_u32(b, 9);
    w_u32(b, 6);
    w_u64(b, 100);
    for (int i = 0; i < 100; i++)
        w_u32(b, 0);
    w_str(b, "general.flag"); /* a bool */
    w_u32(b, 7);
    w_bytes(b, "\1", 1);
    w_str(b, "general.nested"); /* array of arrays of u8 */
    w_u32(b, 9);
    w_u32(b, 9);
    w_u64(b, 2);
    for (int i = 0; i < 2; i++) {
        w_u32(b, 0);
        w_u64(b, 3);
        w_bytes(b, "abc", 3);
    }
    kv_u32(b, "general.alignment", 32);
    tensor(b, "token_embd.weight", 64, 100, 1, 12800); /* f16 */
    tensor(b, "blk.0.attn_q.weight", 64, 64, 8, 4352); /* q8_0: 128 blocks x 34 */
    tensor(b, "blk.1.attn_q.weight", 64, 64, q_type, 4352);
    tensor(b, "blk.0.ffn_up.weight", 256, 4, 12, 576); /* q4_k: 4 blocks x 144 */
    tensor(b, "output_norm.weight", 64, 1, 0, 256);    /* f32 */
    if (moe) {                                         /* q4_k: 8192 el = 32 blocks = 4608 B each */
        tensor3(b, "blk.0.ffn_up_exps.weight", 256, 8, 4, 12, 4608);
        tensor3(b, "blk.1.ffn_up_exps.weight", 256, 8, 4, 12, 4608);
    }
    tiny_data(b);
}

static void tiny_gguf(wbuf *b, uint32_t q_type, bool with_heads) {
    tiny_gguf_moe(b, q_type, with_heads, false);
}

static bool write_buf(const char *path, const wbuf *b, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(b->data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

TP_TEST(test_gguf_llm) {
    tp_error err_s, *err = &err_s;
    static wbuf b;
    char path[64];
    snprintf(path, sizeof path, "/tmp/tp_test_%ld.gguf", (long)getpid());
    tiny_gguf(&b, 8, true);
    TP_CHECK(b.len < sizeof b.data);
    TP_CHECK(write_buf(path, &b, b.len));
    tp_registry *r = NULL;
    TP_CHECK_OK(tp_registry_create(NULL, &r, err), err);
    tp_llm_config c;
    TP_CHECK_OK(tp_gguf_read_llm(path, r, &c, err), err);
    TP_CHECK_STR(c.arch, "llama");
    TP_CHECK_EQ_U64(c.gguf_version, 3);
    TP_CHECK_EQ_U64(c.n_layer, 2);
    TP_CHECK_EQ_U64(c.n_ctx_train, 256);
    TP_CHECK_EQ_U64(c.n_embd, 64);
    TP_CHECK_EQ_U64(c.n_ff, 172);
    TP_CHECK_EQ_U64(c.n_head, 4);
    TP_CHECK_EQ_U64(c.n_head_kv, 2);
    TP_CHECK_EQ_U64(c.head_dim_k, 16);
    TP_CHECK_EQ_U64(c.head_dim_v, 16);
    TP_CHECK_EQ_U64(c.n_vocab, 100);
    TP_CHECK_EQ_U64(c.n_tensors, 5);
    const uint64_t wbytes = 12800 + 4352 + 4352 + 576 + 256;
    TP_CHECK_EQ_U64(c.weight_bytes, wbytes);
    TP_CHECK_EQ_U64(tp_registry_total_bytes(r), wbytes);
    const tp_weight_entry *e = tp_registry_find(r, "token_embd.weight");
    TP_CHECK(e != NULL);
    if (e) { /* row-major: [100, 64] */
        TP_CHECK_EQ_I64(e->dims[0], 100);
        TP_CHECK_EQ_I64(e->dims[1], 64);
        TP_CHECK_EQ_I64(e->dtype, TP_DTYPE_F16);
    }
    tp_registry_destroy(r);

    TP_CHECK_EQ_U64(c.alignment, 32);
    TP_CHECK(c.family_known && c.has_kv && !c.swa);
    TP_CHECK_EQ_U64(c.layer_head_kv[0], 2);
    TP_CHECK_EQ_U64(c.layer_head_kv[1], 2);
    /* the tensors lie back to back from the data section's start: mapped = all */
    TP_CHECK_EQ_U64(c.layout[TP_LLM_REPACK_NONE].mapped_bytes, wbytes);
    TP_CHECK_EQ_U64(c.layout[TP_LLM_REPACK_AVX2].repacked_tensors, 0); /* q4_k ne1 4: no */
    TP_CHECK_EQ_U64(c.data_offset % 32, 0);
    TP_CHECK_EQ_U64(c.file_bytes, c.data_offset + wbytes);

    /* the estimate, by hand (llama.cpp's rules, tensorplan/llm.h) */
    tp_llm_options o;
    tp_llm_options_default(&o);
    o.repack = TP_LLM_REPACK_NONE;
    tp_llm_estimate le;
    TP_CHECK_OK(tp_llm_estimate_memory(&c, &o, &le, err), err);
    TP_CHECK_EQ_U64(le.n_ctx, 256);
    TP_CHECK_EQ_U64(le.kv_cells, 256);
    TP_CHECK_EQ_U64(le.n_ubatch, 256); /* ubatch <= batch <= requested n_ctx */
    TP_CHECK_EQ_U64(le.model_bytes, wbytes);
    TP_CHECK_EQ_U64(le.kv_k_bytes, 2 * (256 * 2 * 16) * 2); /* layers x cells x row x f16 */
    TP_CHECK_EQ_U64(le.kv_cache_bytes, 2 * le.kv_k_bytes);
    TP_CHECK_EQ_U64(le.output_bytes, 100 * 4);
    /* inputs 256 x 28 + masks 256 x 256 x 2 (f16) + ffn phase 256 x (4 x 172 + 64) x 4 */
    TP_CHECK_EQ_U64(le.compute_formula_bytes, 256 * 28 + 256 * 256 * 2 + 256 * 752 * 4);
    /* a llama graph is planned (bench/llm_truth.sh checks it against llama.cpp) */
    TP_CHECK(le.compute_planned);
    TP_CHECK(le.compute_bytes > 256 * 256 * 2); /* at least the mask */
    TP_CHECK_EQ_U64(le.peak_bytes, wbytes + 65536 + 400 + le.compute_bytes);
    /* n_ctx is padded to 256 cells, then split over 3 streams (each padded again) */
    o.n_ctx = 64;
    o.n_seq = 3;
    o.type_k = o.type_v = TP_DTYPE_Q8_0;
    TP_CHECK_OK(tp_llm_estimate_memory(&c, &o, &le, err), err);
    TP_CHECK_EQ_U64(le.n_ctx_seq, 256);
    TP_CHECK_EQ_U64(le.n_stream, 3);
    TP_CHECK_EQ_U64(le.n_ubatch, 64);
    TP_CHECK_EQ_U64(le.kv_cache_bytes, 2 * 2 * (256 * 3 * 34)); /* one q8_0 block per row */
    TP_CHECK_EQ_U64(le.output_bytes, 3 * 100 * 4);
    o.kv_unified = true; /* one stream of all cells */
    TP_CHECK_OK(tp_llm_estimate_memory(&c, &o, &le, err), err);
    TP_CHECK_EQ_U64(le.n_stream, 1);
    TP_CHECK_EQ_U64(le.kv_cache_bytes, 2 * 2 * (256 * 34));
    o.kv_unified = false;
    o.type_k = TP_DTYPE_Q4_K; /* a row of 32 is not a whole q4_K block: llama.cpp refuses */
    TP_CHECK_STATUS(tp_llm_estimate_memory(&c, &o, &le, err), TP_ERR_SHAPE);
    TP_CHECK_CONTAINS(err->msg, "layer 0");
    o.type_k = TP_DTYPE_F16;
    o.flash_attn = false; /* a quantized V needs flash attention */
    TP_CHECK_STATUS(tp_llm_estimate_memory(&c, &o, &le, err), TP_ERR_INVALID);
    o.type_v = TP_DTYPE_F16;
    TP_CHECK_OK(tp_llm_estimate_memory(&c, &o, &le, err), err);
    o.n_ctx = 1ull << 50;
    TP_CHECK_STATUS(tp_llm_estimate_memory(&c, &o, &le, err), TP_ERR_OVERFLOW);
    o.n_ctx = 256;
    o.n_seq = 512; /* 256 cells for 512 sequences: llama.cpp's n_ctx_seq == 0 */
    TP_CHECK_STATUS(tp_llm_estimate_memory(&c, &o, &le, err), TP_ERR_INVALID);
    tp_llm_config bad = c;
    bad.n_head = 0;
    TP_CHECK_STATUS(tp_llm_estimate_memory(&bad, NULL, &le, err), TP_ERR_INVALID);

    /* every truncation of the file is an error, never a crash or a leak */
    int parse_errors = 0;
    for (size_t n = 0; n < b.len; n += 7) {
        TP_CHECK(write_buf(path, &b, n));
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, 0);
        tp_registry *rr = NULL;
        TP_CHECK_OK(tp_registry_create(&fa.hook, &rr, err), err);
        tp_status st = tp_gguf_read_llm(path, rr, &c, err);
        if (st == TP_ERR_PARSE) parse_errors++;
        TP_CHECK(st != TP_OK);
        tp_registry_destroy(rr);
        TP_CHECK_EQ_I64(fa.live, 0);
    }
    TP_CHECK(parse_errors > 100);
    /* allocation failures while registering: TP_ERR_NOMEM, nothing leaks */
    TP_CHECK(write_buf(path, &b, b.len));
    int nomem = 0;
    for (long k = 1; k < 60; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, k);
        tp_registry *rr = NULL;
        tp_status st = tp_registry_create(&fa.hook, &rr, err);
        if (st == TP_OK) st = tp_gguf_read_llm(path, rr, &c, err);
        if (st != TP_OK) {
            TP_CHECK_STATUS(st, TP_ERR_NOMEM);
            nomem++;
        }
        tp_registry_destroy(rr);
        TP_CHECK_EQ_I64(fa.live, 0);
        if (!fa.failed) break;
    }
    TP_CHECK(nomem > 5);
    /* bad magic, version, unknown tensor type, missing head count */
    TP_CHECK(write_buf(path, &b, b.len));
    b.data[0] = 'X';
    TP_CHECK(write_buf(path, &b, b.len));
    TP_CHECK_STATUS(tp_gguf_read_llm(path, NULL, &c, err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err->msg, "bad magic");
    b.data[0] = 'G';
    b.data[4] = 1;
    TP_CHECK(write_buf(path, &b, b.len));
    TP_CHECK_STATUS(tp_gguf_read_llm(path, NULL, &c, err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err->msg, "version");
    tiny_gguf(&b, 99, true);
    TP_CHECK(write_buf(path, &b, b.len));
    TP_CHECK_STATUS(tp_gguf_read_llm(path, NULL, &c, err), TP_ERR_UNSUPPORTED);
    TP_CHECK_CONTAINS(err->msg, "blk.1.attn_q.weight");
    tiny_gguf(&b, 8, false);
    TP_CHECK(write_buf(path, &b, b.len));
    TP_CHECK_STATUS(tp_gguf_read_llm(path, NULL, &c, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "missing key llama.attention.head_count");
    TP_CHECK_STATUS(tp_gguf_read_llm("/nonexistent/x.gguf", NULL, &c, err), TP_ERR_NOT_FOUND);
    TP_CHECK_STATUS(tp_gguf_read_llm("/dev/zero", NULL, &c, err), TP_ERR_IO);
    TP_CHECK_CONTAINS(err->msg, "not a regular file");
    /* tensor data cut short: the error names the tensor and the file size */
    tiny_gguf(&b, 8, true);
    TP_CHECK(write_buf(path, &b, b.len - 100));
    TP_CHECK_STATUS(tp_gguf_read_llm(path, NULL, &c, err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err->msg, "tensor 'output_norm.weight': data ends at byte");
    TP_CHECK_CONTAINS(err->msg, "past the end of the file");
    /* a sliding-window family: gemma2 (window default 4096, pattern 2: SWA, global, ...) */
    g_arch = "gemma2";
    tiny_gguf(&b, 8, true);
    g_arch = "llama";
    TP_CHECK(write_buf(path, &b, b.len));
    TP_CHECK_OK(tp_gguf_read_llm(path, NULL, &c, err), err);
    TP_CHECK(c.swa && c.family_known);
    TP_CHECK_EQ_U64(c.n_swa, 4096);
    TP_CHECK_EQ_U64(c.layer_swa[0], 1);
    TP_CHECK_EQ_U64(c.layer_swa[1], 0);
    tp_llm_options_default(&o);
    o.n_ctx = 8192;
    TP_CHECK_OK(tp_llm_estimate_memory(&c, &o, &le, err), err);
    /* SWA cells: pad256(min(8192, 4096 + 512)) = 4608; the global layer: 8192 */
    TP_CHECK_EQ_U64(le.kv_cells_swa, 4608);
    TP_CHECK_EQ_U64(le.kv_swa_bytes, 2 * 4608 * 32 * 2);
    TP_CHECK_EQ_U64(le.kv_cache_bytes, 2 * (4608 + 8192) * 32 * 2);
    o.swa_full = true;
    TP_CHECK_OK(tp_llm_estimate_memory(&c, &o, &le, err), err);
    TP_CHECK_EQ_U64(le.kv_cache_bytes, 2 * (8192 + 8192) * 32 * 2);
    /* a hybrid family (lfm2) without its short-convolution length: the key is named */
    g_arch = "lfm2";
    tiny_gguf(&b, 8, true);
    g_arch = "llama";
    TP_CHECK(write_buf(path, &b, b.len));
    TP_CHECK_STATUS(tp_gguf_read_llm(path, NULL, &c, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "missing key lfm2.shortconv.l_cache");
    /* an architecture outside the table is sized as a decoder and says so */
    g_arch = "someformer";
    tiny_gguf(&b, 8, true);
    g_arch = "llama";
    TP_CHECK(write_buf(path, &b, b.len));
    TP_CHECK_OK(tp_gguf_read_llm(path, NULL, &c, err), err);
    TP_CHECK(!c.family_known && c.has_kv && !c.swa);
    /* MoE layout from the stacked expert tensors */
    tiny_gguf_moe(&b, 8, true, true);
    TP_CHECK(write_buf(path, &b, b.len));
    TP_CHECK_OK(tp_gguf_read_llm(path, NULL, &c, err), err);
    TP_CHECK_EQ_U64(c.n_expert, 4);
    TP_CHECK_EQ_U64(c.n_expert_used, 2);
    TP_CHECK_EQ_U64(c.moe_layers, 2);
    TP_CHECK_EQ_U64(c.expert_tensor_bytes, 2 * 4608);
    TP_CHECK_EQ_U64(c.expert_bytes, 4608 / 4);
    TP_CHECK_EQ_U64(c.weight_bytes, wbytes + 2 * 4608);
    /* feed-forward with 2 experts used: 4 x t x n_ff x 2 + t x n_embd (f32) */
    tp_llm_options_default(&o);
    o.n_ctx = 64;
    TP_CHECK_OK(tp_llm_estimate_memory(&c, &o, &le, err), err);
    TP_CHECK_EQ_U64(le.compute_formula_bytes, 64 * 28 + 64 * 256 * 2 + 64 * (4 * 172 * 2 + 64) * 4);
    TP_CHECK(le.compute_planned);
    TP_CHECK(le.compute_bytes > 64 * 256 * 2);

    /* the longest context that fits a budget, checked against a linear scan */
    tp_fit_options fo;
    tp_fit_options_default(&fo);
    fo.symbol = "ctx";
    fo.budget_bytes = c.weight_bytes + (2u << 20);
    tp_fit_result fr;
    TP_CHECK_OK(tp_llm_max_fit(&c, NULL, &fo, &fr, err), err);
    int64_t want = 0;
    for (int64_t v = 1; v < 100000; v++) {
        tp_llm_options_default(&o);
        o.n_ctx = (uint64_t)v;
        if (tp_llm_estimate_memory(&c, &o, &le, NULL) != TP_OK || le.peak_bytes > fo.budget_bytes)
            break;
        want = v;
    }
    TP_CHECK(want > 1);
    TP_CHECK_EQ_I64(fr.value, want);
    TP_CHECK_LE_U64(fr.peak_bytes, fo.budget_bytes);
    TP_CHECK(fr.next_peak_bytes > fo.budget_bytes);
    TP_CHECK_EQ_U64(fr.estimate.weight_bytes, le.model_bytes);
    fo.symbol = "seqs";
    fo.budget_bytes = c.weight_bytes + (4u << 20);
    tp_llm_options_default(&o);
    o.n_ctx = 256;
    TP_CHECK_OK(tp_llm_max_fit(&c, &o, &fo, &fr, err), err);
    TP_CHECK(fr.value >= 1);
    o.n_seq = (uint64_t)fr.value;
    TP_CHECK_OK(tp_llm_estimate_memory(&c, &o, &le, err), err);
    TP_CHECK_EQ_U64(le.peak_bytes, fr.peak_bytes);
    fo.budget_bytes = c.weight_bytes; /* nothing fits */
    TP_CHECK_STATUS(tp_llm_max_fit(&c, &o, &fo, &fr, err), TP_ERR_OVER_BUDGET);
    TP_CHECK_CONTAINS(err->msg, "even seqs=1 does not fit");
    fo.symbol = "layers";
    TP_CHECK_STATUS(tp_llm_max_fit(&c, &o, &fo, &fr, err), TP_ERR_NOT_FOUND);
    remove(path);
}

int main(void) {
    TP_RUN(test_breakdown_by_hand);
    TP_RUN(test_tied_constants_registry);
    TP_RUN(test_unbound_and_bad_args);
    TP_RUN(test_fits_in_message);
    TP_RUN(test_moe_offload);
    TP_RUN(test_max_fit_small);
    TP_RUN(test_max_fit_demo);
    TP_RUN(test_alloc_failure_sweep);
    TP_RUN(test_gguf_llm);
    return tp_test_finish();
}
