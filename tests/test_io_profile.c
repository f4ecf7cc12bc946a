/* Static IO profile against hand-computed values. */
#include "harness.h"

#include "tensorplan/cost.h"

static tp_error err_storage;
static tp_error *err = &err_storage;

static tp_node_id add(tp_graph *g, tp_op o, const tp_node_id *ins, uint32_t n, tp_dtype t,
                      int32_t rank, const int64_t *d) {
    tp_shape s = tp_shape_of(rank, d);
    tp_node_id id = -1;
    TP_CHECK_OK(tp_graph_add_op_shaped(g, &o, ins, n, &s, t, NULL, &id, err), err);
    return id;
}

typedef struct fixture {
    tp_graph *g;
    tp_node_id x, w, mm, r, c, cu;
} fixture;

/* x[2,8] f32 · w[8,4] f32 -> mm[2,4]; r = reshape(mm)[8] (view); c = cast(r) f16;
 * cu = custom(c) f16[8]; outputs: c, mm. */
static fixture build(void) {
    fixture f;
    memset(&f, 0, sizeof f);
    TP_CHECK_OK(tp_graph_create(NULL, &f.g, err), err);
    tp_shape xs = tp_shape_of(2, (int64_t[]){2, 8}), ws = tp_shape_of(2, (int64_t[]){8, 4});
    TP_CHECK_OK(tp_graph_add_input(f.g, "x", TP_DTYPE_F32, &xs, &f.x, err), err);
    TP_CHECK_OK(tp_graph_add_param(f.g, "w", TP_DTYPE_F32, &ws, &f.w, err), err);
    f.mm = add(f.g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){f.x, f.w}, 2, TP_DTYPE_F32, 2,
               (int64_t[]){2, 4});
    f.r = add(f.g, (tp_op){.kind = TP_OP_RESHAPE}, (tp_node_id[]){f.mm}, 1, TP_DTYPE_F32, 1,
              (int64_t[]){8});
    tp_op cast = {.kind = TP_OP_CAST};
    cast.attrs.cast.to = TP_DTYPE_F16;
    f.c = add(f.g, cast, (tp_node_id[]){f.r}, 1, TP_DTYPE_F16, 1, (int64_t[]){8});
    tp_op cu = {.kind = TP_OP_CUSTOM};
    cu.attrs.custom.name = "host_post";
    cu.attrs.custom.n_inputs = 1;
    f.cu = add(f.g, cu, (tp_node_id[]){f.c}, 1, TP_DTYPE_F16, 1, (int64_t[]){8});
    TP_CHECK_OK(tp_graph_mark_output(f.g, f.c, err), err);
    TP_CHECK_OK(tp_graph_mark_output(f.g, f.mm, err), err);
    return f;
}

TP_TEST(profile_hand_computed) {
    fixture f = build();
    tp_io_profile p;
    TP_CHECK_OK(tp_io_profile_compute(f.g, NULL, &p, err), err);
    TP_CHECK_EQ_U64(p.kernel_launches, 3); /* matmul, cast, custom */
    TP_CHECK_EQ_U64(p.metadata_nodes, 3);  /* x, w, reshape */
    /* matmul 64+128+32, cast 32+16, custom 16+16 */
    TP_CHECK_EQ_U64(p.device_traffic_bytes, 224 + 48 + 32);
    TP_CHECK_EQ_U64(p.sync_points, 1);        /* the custom op */
    TP_CHECK_EQ_U64(p.host_output_bytes, 48); /* c: 8 × f16 = 16, mm: 8 × f32 = 32 */
    TP_CHECK_EQ_U64(tp_io_host_readback_bytes(&p, true), 48);
    TP_CHECK_EQ_U64(tp_io_host_readback_bytes(&p, false), 48 + 304 / 4);
    tp_graph_destroy(f.g);
}

TP_TEST(host_op_set_is_configurable) {
    fixture f = build();
    tp_io_options o;
    tp_io_options_default(&o);
    TP_CHECK(o.host_op_mask & (1ull << TP_OP_CUSTOM));
    TP_CHECK(o.host_op_mask & (1ull << TP_OP_FFT));
    TP_CHECK(o.host_op_mask & (1ull << TP_OP_LOG_MEL));
    tp_io_profile p;
    o.host_op_mask = 0;
    TP_CHECK_OK(tp_io_profile_compute(f.g, &o, &p, err), err);
    TP_CHECK_EQ_U64(p.sync_points, 0);
    o.host_op_mask = (1ull << TP_OP_CAST) | (1ull << TP_OP_CUSTOM);
    TP_CHECK_OK(tp_io_profile_compute(f.g, &o, &p, err), err);
    TP_CHECK_EQ_U64(p.sync_points, 2);
    /* a metadata node never syncs, even when its kind is listed */
    o.host_op_mask = 1ull << TP_OP_RESHAPE;
    TP_CHECK_OK(tp_io_profile_compute(f.g, &o, &p, err), err);
    TP_CHECK_EQ_U64(p.sync_points, 0);
    /* a custom node flagged as an ordinary device kernel is launched but never syncs */
    tp_io_options_default(&o);
    TP_CHECK_OK(tp_graph_set_flags(f.g, f.cu, TP_NODE_DEVICE_KERNEL, err), err);
    TP_CHECK_OK(tp_io_profile_compute(f.g, &o, &p, err), err);
    TP_CHECK_EQ_U64(p.sync_points, 0);
    TP_CHECK_EQ_U64(p.kernel_launches, 3);
    tp_graph_destroy(f.g);
}

TP_TEST(selected_outputs_use_true_dtype_sizes) {
    fixture f = build();
    tp_io_profile p;
    TP_CHECK_OK(tp_io_profile_selected(f.g, NULL, (tp_node_id[]){f.c}, 1, &p, err), err);
    TP_CHECK_EQ_U64(p.host_output_bytes, 16); /* 8 f16 elements: 16 bytes, not 8 × 4 */
    TP_CHECK_EQ_U64(p.device_traffic_bytes, 304);
    TP_CHECK_OK(tp_io_profile_selected(f.g, NULL, (tp_node_id[]){f.c, f.c, f.cu}, 3, &p, err), err);
    TP_CHECK_EQ_U64(p.host_output_bytes, 32); /* duplicates count once */
    TP_CHECK_OK(tp_io_profile_selected(f.g, NULL, NULL, 0, &p, err), err);
    TP_CHECK_EQ_U64(p.host_output_bytes, 0);
    TP_CHECK_STATUS(tp_io_profile_selected(f.g, NULL, (tp_node_id[]){42}, 1, &p, err),
                    TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "42");
    tp_graph_destroy(f.g);
}

TP_TEST(view_outputs_are_read_back) {
    fixture f = build();
    TP_CHECK_OK(tp_graph_mark_output(f.g, f.r, err), err);
    tp_io_profile p;
    TP_CHECK_OK(tp_io_profile_compute(f.g, NULL, &p, err), err);
    TP_CHECK_EQ_U64(p.host_output_bytes, 48 + 32);
    TP_CHECK_EQ_U64(p.kernel_launches, 3);
    tp_graph_destroy(f.g);
}

TP_TEST(unbound_graph_is_an_error) {
    tp_graph *g;
    TP_CHECK_OK(tp_graph_create(NULL, &g, err), err);
    tp_dim b;
    TP_CHECK_OK(tp_graph_symbol(g, "batch", &b, err), err);
    tp_shape xs = tp_shape_make(2, (tp_dim[]){b, tp_dim_static(4)});
    tp_node_id x, y;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, err), err);
    tp_op relu = {.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU};
    TP_CHECK_OK(tp_graph_add_op_shaped(g, &relu, &x, 1, &xs, TP_DTYPE_F32, "relu", &y, err), err);
    TP_CHECK_OK(tp_graph_mark_output(g, y, err), err);
    tp_io_profile p;
    TP_CHECK_STATUS(tp_io_profile_compute(g, NULL, &p, err), TP_ERR_UNBOUND);
    TP_CHECK_CONTAINS(err->msg, "batch");
    TP_CHECK_OK(tp_graph_bind(g, "batch", 3, err), err);
    TP_CHECK_OK(tp_io_profile_compute(g, NULL, &p, err), err);
    TP_CHECK_EQ_U64(p.device_traffic_bytes, 2 * 3 * 4 * 4);
    TP_CHECK_EQ_U64(p.host_output_bytes, 48);
    TP_CHECK_STATUS(tp_io_profile_compute(NULL, NULL, &p, err), TP_ERR_INVALID);
    tp_graph_destroy(g);
}

TP_TEST(readback_saturates) {
    tp_io_profile p = {0};
    p.host_output_bytes = UINT64_MAX - 1;
    p.device_traffic_bytes = 400;
    TP_CHECK_EQ_U64(tp_io_host_readback_bytes(&p, false), UINT64_MAX);
    TP_CHECK_EQ_U64(tp_io_host_readback_bytes(&p, true), UINT64_MAX - 1);
    TP_CHECK_EQ_U64(tp_io_host_readback_bytes(NULL, true), 0);
}

int main(void) {
    TP_RUN(profile_hand_computed);
    TP_RUN(host_op_set_is_configurable);
    TP_RUN(selected_outputs_use_true_dtype_sizes);
    TP_RUN(view_outputs_are_read_back);
    TP_RUN(unbound_graph_is_an_error);
    TP_RUN(readback_saturates);
    return tp_test_finish();
}
