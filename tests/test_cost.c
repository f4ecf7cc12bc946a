/* Op accounting, device-model throughput and graph cost, against hand-computed values. */
#include "harness.h"

#include <math.h>
#include <stdio.h>

#include "tensorplan/cost.h"
#include "cost/gemm_rate.h"
#include "cost/op_class.h"

static tp_error err_storage;
static tp_error *err = &err_storage;

static tp_node_id in(tp_graph *g, const char *name, tp_dtype t, int32_t rank, const int64_t *d) {
    tp_shape s = tp_shape_of(rank, d);
    tp_node_id id = -1;
    TP_CHECK_OK(tp_graph_add_input(g, name, t, &s, &id, err), err);
    return id;
}

static tp_node_id par(tp_graph *g, const char *name, tp_dtype t, int32_t rank, const int64_t *d) {
    tp_shape s = tp_shape_of(rank, d);
    tp_node_id id = -1;
    TP_CHECK_OK(tp_graph_add_param(g, name, t, &s, &id, err), err);
    return id;
}

static tp_node_id op(tp_graph *g, tp_op o, const tp_node_id *ins, uint32_t n, tp_dtype t,
                     int32_t rank, const int64_t *d) {
    tp_shape s = tp_shape_of(rank, d);
    tp_node_id id = -1;
    TP_CHECK_OK(tp_graph_add_op_shaped(g, &o, ins, n, &s, t, NULL, &id, err), err);
    return id;
}

static tp_op_cost acc(tp_graph *g, tp_node_id id) {
    tp_op_cost c;
    memset(&c, 0, sizeof c);
    TP_CHECK_OK(tp_op_account(g, id, &c, err), err);
    return c;
}

static tp_graph *new_graph(void) {
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, err), err);
    return g;
}

TP_TEST(matmul_flops_and_bytes) {
    tp_graph *g = new_graph();
    tp_node_id a = in(g, "a", TP_DTYPE_F32, 3, (int64_t[]){2, 3, 4});
    tp_node_id w = par(g, "w", TP_DTYPE_F32, 2, (int64_t[]){4, 5});
    tp_node_id y = op(g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){a, w}, 2, TP_DTYPE_F32, 3,
                      (int64_t[]){2, 3, 5});
    tp_op_cost c = acc(g, y);
    /* 2·(2·3)·4·5 = 240 */
    TP_CHECK_EQ_U64(c.flops, 240);
    TP_CHECK_EQ_U64(c.bytes_read, 24 * 4 + 20 * 4);
    TP_CHECK_EQ_U64(c.bytes_written, 30 * 4);
    TP_CHECK_EQ_U64(c.launches, 1);
    TP_CHECK(c.cls == TP_COST_GEMM);
    /* shared weights fold the batch into m */
    TP_CHECK_EQ_U64(c.gemm_m, 6);
    TP_CHECK_EQ_U64(c.gemm_k, 4);
    TP_CHECK_EQ_U64(c.gemm_n, 5);
    /* batched operands keep one GEMM per batch element */
    tp_node_id b = in(g, "b", TP_DTYPE_F32, 3, (int64_t[]){2, 4, 5});
    tp_node_id z = op(g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){a, b}, 2, TP_DTYPE_F32, 3,
                      (int64_t[]){2, 3, 5});
    c = acc(g, z);
    TP_CHECK_EQ_U64(c.flops, 240);
    TP_CHECK_EQ_U64(c.gemm_m, 3);
    TP_CHECK_EQ_U64(c.gemm_batch, 2);
    tp_graph_destroy(g);
}

TP_TEST(gemm_trans_and_bias) {
    tp_graph *g = new_graph();
    tp_node_id a = in(g, "a", TP_DTYPE_F32, 2, (int64_t[]){8, 16});
    tp_node_id b = par(g, "b", TP_DTYPE_F32, 2, (int64_t[]){32, 16});
    tp_node_id bias = par(g, "c", TP_DTYPE_F32, 1, (int64_t[]){32});
    tp_op o = {.kind = TP_OP_GEMM};
    o.attrs.gemm.trans_b = true;
    o.attrs.gemm.alpha = 1.0;
    o.attrs.gemm.beta = 1.0;
    tp_node_id y = op(g, o, (tp_node_id[]){a, b, bias}, 3, TP_DTYPE_F32, 2, (int64_t[]){8, 32});
    tp_op_cost c = acc(g, y);
    /* 2·8·16·32 + 8·32 (C added) = 8192 + 256 */
    TP_CHECK_EQ_U64(c.flops, 8448);
    TP_CHECK_EQ_U64(c.gemm_m, 8);
    TP_CHECK_EQ_U64(c.gemm_k, 16);
    TP_CHECK_EQ_U64(c.gemm_n, 32);
    TP_CHECK_EQ_U64(c.bytes_read, (128 + 512 + 32) * 4);
    tp_graph_destroy(g);
}

TP_TEST(fused_matmul_bias_act) {
    tp_graph *g = new_graph();
    tp_node_id a = in(g, "a", TP_DTYPE_F32, 2, (int64_t[]){4, 8});
    tp_node_id w = par(g, "w", TP_DTYPE_F32, 2, (int64_t[]){8, 2});
    tp_node_id b = par(g, "b", TP_DTYPE_F32, 1, (int64_t[]){2});
    tp_op o = {.kind = TP_OP_FUSED_MATMUL};
    o.attrs.fused.act = TP_UNARY_GELU;
    o.attrs.fused.has_bias = true;
    tp_node_id y = op(g, o, (tp_node_id[]){a, w, b}, 3, TP_DTYPE_F32, 2, (int64_t[]){4, 2});
    /* 2·4·8·2 + 8 (bias) + 8·8 (gelu, 8 per element) = 128 + 8 + 64 */
    TP_CHECK_EQ_U64(acc(g, y).flops, 200);
    tp_graph_destroy(g);
}

static tp_op conv_op(tp_op_kind kind, int64_t k, int64_t stride, int64_t dil, int64_t pad,
                     int64_t groups) {
    tp_op o = {.kind = kind};
    o.attrs.conv.spatial = 2;
    for (int i = 0; i < 2; i++) {
        o.attrs.conv.kernel[i] = k;
        o.attrs.conv.stride[i] = stride;
        o.attrs.conv.dilation[i] = dil;
        o.attrs.conv.pad_begin[i] = pad;
        o.attrs.conv.pad_end[i] = pad;
    }
    o.attrs.conv.groups = groups;
    return o;
}

TP_TEST(conv_groups_dilation_transpose) {
    tp_graph *g = new_graph();
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 4, (int64_t[]){1, 3, 8, 8});
    tp_node_id w = par(g, "w", TP_DTYPE_F32, 4, (int64_t[]){4, 3, 3, 3});
    tp_node_id b = par(g, "b", TP_DTYPE_F32, 1, (int64_t[]){4});
    tp_node_id y = op(g, conv_op(TP_OP_CONV, 3, 1, 1, 1, 1), (tp_node_id[]){x, w}, 2, TP_DTYPE_F32,
                      4, (int64_t[]){1, 4, 8, 8});
    tp_op_cost c = acc(g, y);
    /* 2 · 256 out · (3/1) · 9 = 13824 */
    TP_CHECK_EQ_U64(c.flops, 13824);
    TP_CHECK_EQ_U64(c.gemm_m, 64);
    TP_CHECK_EQ_U64(c.gemm_k, 27);
    TP_CHECK_EQ_U64(c.gemm_n, 4);
    tp_node_id yb = op(g, conv_op(TP_OP_CONV, 3, 1, 1, 1, 1), (tp_node_id[]){x, w, b}, 3,
                       TP_DTYPE_F32, 4, (int64_t[]){1, 4, 8, 8});
    TP_CHECK_EQ_U64(acc(g, yb).flops, 13824 + 256);
    /* dilation 2, no padding: effective kernel 5, output 4×4: 2 · 64 · 3 · 9 */
    tp_node_id yd = op(g, conv_op(TP_OP_CONV, 3, 1, 2, 0, 1), (tp_node_id[]){x, w}, 2, TP_DTYPE_F32,
                       4, (int64_t[]){1, 4, 4, 4});
    TP_CHECK_EQ_U64(acc(g, yd).flops, 3456);
    /* depthwise: groups = 4, W[4,1,3,3]: 2 · 256 · (4/4) · 9 */
    tp_node_id x4 = in(g, "x4", TP_DTYPE_F32, 4, (int64_t[]){1, 4, 8, 8});
    tp_node_id wd = par(g, "wd", TP_DTYPE_F32, 4, (int64_t[]){4, 1, 3, 3});
    tp_node_id dw = op(g, conv_op(TP_OP_CONV, 3, 1, 1, 1, 4), (tp_node_id[]){x4, wd}, 2,
                       TP_DTYPE_F32, 4, (int64_t[]){1, 4, 8, 8});
    c = acc(g, dw);
    TP_CHECK_EQ_U64(c.flops, 4608);
    TP_CHECK_EQ_U64(c.gemm_k, 9);
    TP_CHECK_EQ_U64(c.gemm_n, 4); /* groups side by side: throughput shape uses all of c_out */
    TP_CHECK_EQ_U64(c.gemm_batch, 4);
    TP_CHECK(c.kernel == TP_KERNEL_DEPTHWISE);
    TP_CHECK(c.spatial_rank == 2);        /* X[1,4,8,8]: a 2-D convolution */
    TP_CHECK_EQ_U64(c.border_pixels, 16); /* 8 rows, pad 1 each side: 2 edge columns */
    TP_CHECK(acc(g, y).kernel == TP_KERNEL_GENERIC);
    /* grouped, 2 channels per group: a GEMM per group, not the depthwise kernel */
    tp_node_id wg = par(g, "wg", TP_DTYPE_F32, 4, (int64_t[]){4, 2, 3, 3});
    tp_node_id gr = op(g, conv_op(TP_OP_CONV, 3, 1, 1, 1, 2), (tp_node_id[]){x4, wg}, 2,
                       TP_DTYPE_F32, 4, (int64_t[]){1, 4, 8, 8});
    c = acc(g, gr);
    TP_CHECK(c.kernel == TP_KERNEL_GROUPED); /* im2col + one GEMM per group (onnxruntime) */
    TP_CHECK_EQ_U64(c.flops, 2 * 256 * 2 * 9);
    TP_CHECK_EQ_U64(c.gemm_m, 2);  /* the group's filters: c_out / groups */
    TP_CHECK_EQ_U64(c.gemm_k, 18); /* c_in / groups · 9 */
    TP_CHECK_EQ_U64(c.gemm_n, 64); /* output pixels */
    TP_CHECK_EQ_U64(c.gemm_batch, 2);
    TP_CHECK_EQ_U64(c.conv_cin, 2); /* per group */
    TP_CHECK(c.conv_expands);       /* 3×3: im2col patches */
    /* 1×1, stride 1, unpadded: the input multiplied directly */
    tp_node_id w1 = par(g, "w1x1", TP_DTYPE_F32, 4, (int64_t[]){4, 4, 1, 1});
    tp_node_id p1 = op(g, conv_op(TP_OP_CONV, 1, 1, 1, 0, 1), (tp_node_id[]){x4, w1}, 2,
                       TP_DTYPE_F32, 4, (int64_t[]){1, 4, 8, 8});
    c = acc(g, p1);
    TP_CHECK(!c.conv_expands);
    TP_CHECK_EQ_U64(c.conv_cin, 4);
    /* tap share: 3×3, padding 1 on 8×8: 22 of 24 (output, tap) pairs per dim read the input;
       the row dim counts by its square root */
    double f = 22.0 / 24.0;
    TP_CHECK_NEAR(acc(g, y).tap_share, f * sqrt(f), 1e-12);
    TP_CHECK_NEAR(acc(g, yd).tap_share, 1, 0); /* dilation 2, no padding: every tap inside */
    /* dilation 4, padding 4: taps at -4, 0, +4 read 4, 8, 4 of 8 outputs */
    tp_node_id yp = op(g, conv_op(TP_OP_CONV, 3, 1, 4, 4, 1), (tp_node_id[]){x, w}, 2, TP_DTYPE_F32,
                       4, (int64_t[]){1, 4, 8, 8});
    f = 16.0 / 24.0;
    TP_CHECK_NEAR(acc(g, yp).tap_share, f * sqrt(f), 1e-12);
    /* strided: not modelled, 1 */
    tp_node_id ys = op(g, conv_op(TP_OP_CONV, 3, 2, 1, 1, 1), (tp_node_id[]){x, w}, 2, TP_DTYPE_F32,
                       4, (int64_t[]){1, 4, 4, 4});
    TP_CHECK_NEAR(acc(g, ys).tap_share, 1, 0);
    /* transposed, stride 2: X[1,4,4,4], W[4,2,3,3] -> [1,2,9,9]; 2 · 64 in · 2 · 9 */
    tp_node_id xt = in(g, "xt", TP_DTYPE_F32, 4, (int64_t[]){1, 4, 4, 4});
    tp_node_id wt = par(g, "wt", TP_DTYPE_F32, 4, (int64_t[]){4, 2, 3, 3});
    tp_node_id yt = op(g, conv_op(TP_OP_CONV_TRANSPOSE, 3, 2, 1, 0, 1), (tp_node_id[]){xt, wt}, 2,
                       TP_DTYPE_F32, 4, (int64_t[]){1, 2, 9, 9});
    c = acc(g, yt);
    TP_CHECK_EQ_U64(c.flops, 2304);
    /* its column buffer: (2 filters · 9 taps) rows by 16 input pixels, added one element at a
       time (stride 2), no bias */
    TP_CHECK_EQ_U64(c.col2im_elems, 18 * 16);
    TP_CHECK(!c.col2im_rows && !c.col2im_bias);
    /* stride 1, unpadded, with a bias: a row at a time; padded: one element at a time again */
    tp_node_id bt = par(g, "bt", TP_DTYPE_F32, 1, (int64_t[]){2});
    tp_node_id y1 = op(g, conv_op(TP_OP_CONV_TRANSPOSE, 3, 1, 1, 0, 1), (tp_node_id[]){xt, wt, bt},
                       3, TP_DTYPE_F32, 4, (int64_t[]){1, 2, 6, 6});
    c = acc(g, y1);
    TP_CHECK_EQ_U64(c.col2im_elems, 18 * 16);
    TP_CHECK(c.col2im_rows && c.col2im_bias);
    tp_node_id yp1 = op(g, conv_op(TP_OP_CONV_TRANSPOSE, 3, 1, 1, 1, 1), (tp_node_id[]){xt, wt}, 2,
                        TP_DTYPE_F32, 4, (int64_t[]){1, 2, 4, 4});
    TP_CHECK(!acc(g, yp1).col2im_rows);
    /* two groups of 2 input channels: W[4,1,3,3], one filter per group, both groups' columns */
    tp_node_id wt2 = par(g, "wt2", TP_DTYPE_F32, 4, (int64_t[]){4, 1, 3, 3});
    tp_op o2 = conv_op(TP_OP_CONV_TRANSPOSE, 3, 2, 1, 0, 2);
    tp_node_id yg = op(g, o2, (tp_node_id[]){xt, wt2}, 2, TP_DTYPE_F32, 4, (int64_t[]){1, 2, 9, 9});
    TP_CHECK_EQ_U64(acc(g, yg).col2im_elems, 2 * 9 * 16);
    TP_CHECK_EQ_U64(acc(g, y).col2im_elems, 0); /* not a transposed convolution */
    tp_graph_destroy(g);
}

TP_TEST(attention_grouped_kv) {
    tp_graph *g = new_graph();
    tp_node_id q = in(g, "q", TP_DTYPE_F32, 3, (int64_t[]){2, 5, 32});
    tp_node_id k = in(g, "k", TP_DTYPE_F32, 3, (int64_t[]){2, 7, 16});
    tp_node_id v = in(g, "v", TP_DTYPE_F32, 3, (int64_t[]){2, 7, 16});
    tp_op o = {.kind = TP_OP_ATTENTION};
    o.attrs.attention.heads = 4;
    o.attrs.attention.kv_heads = 2;
    o.attrs.attention.head_dim = 8;
    tp_node_id y = op(g, o, (tp_node_id[]){q, k, v}, 3, TP_DTYPE_F32, 3, (int64_t[]){2, 5, 32});
    tp_op_cost c = acc(g, y);
    /* 4 · b2 · h4 · s_q5 · s_kv7 · d8 = 8960 */
    TP_CHECK_EQ_U64(c.flops, 8960);
    TP_CHECK_EQ_U64(c.gemm_m, 5);
    TP_CHECK_EQ_U64(c.gemm_k, 8);
    TP_CHECK_EQ_U64(c.gemm_n, 7);
    TP_CHECK_EQ_U64(c.bytes_read, (320 + 224 + 224) * 4);
    /* grouped heads without kv_heads given: kv heads = heads, s_kv from k's size */
    tp_node_id k2 = in(g, "k2", TP_DTYPE_F32, 3, (int64_t[]){2, 3, 32});
    tp_node_id v2 = in(g, "v2", TP_DTYPE_F32, 3, (int64_t[]){2, 3, 32});
    tp_op mh = o;
    mh.attrs.attention.kv_heads = 0;
    c = acc(g, op(g, mh, (tp_node_id[]){q, k2, v2}, 3, TP_DTYPE_F32, 3, (int64_t[]){2, 5, 32}));
    TP_CHECK_EQ_U64(c.flops, 4ull * 2 * 4 * 5 * 3 * 8);
    tp_graph_destroy(g);
}

TP_TEST(memory_bound_ops) {
    tp_graph *g = new_graph();
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 2, (int64_t[]){4, 10});
    tp_op ln = {.kind = TP_OP_NORM, .sub = TP_NORM_LAYER};
    ln.attrs.norm.axis = -1;
    ln.attrs.norm.eps = 1e-5;
    tp_node_id n = op(g, ln, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 2, (int64_t[]){4, 10});
    tp_op_cost c = acc(g, n);
    TP_CHECK_EQ_U64(c.flops, 320); /* 8 per element */
    TP_CHECK(c.cls == TP_COST_MEMORY);
    tp_op sm = {.kind = TP_OP_SOFTMAX};
    sm.attrs.axis.axis = -1;
    TP_CHECK_EQ_U64(
        acc(g, op(g, sm, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 2, (int64_t[]){4, 10})).flops,
        200); /* 5 per element */
    tp_op rd = {.kind = TP_OP_REDUCE, .sub = TP_REDUCE_SUM};
    rd.attrs.reduce.n_axes = 1;
    rd.attrs.reduce.axes[0] = 1;
    rd.attrs.reduce.keepdims = false;
    c = acc(g, op(g, rd, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 1, (int64_t[]){4}));
    TP_CHECK_EQ_U64(c.flops, 40); /* 1 per input element */
    TP_CHECK_EQ_U64(c.bytes_read, 160);
    TP_CHECK_EQ_U64(c.bytes_written, 16);
    /* f16 gelu: 8 flops per element, 2 bytes per element */
    tp_node_id h = in(g, "h", TP_DTYPE_F16, 1, (int64_t[]){10});
    c = acc(g, op(g, (tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_GELU}, (tp_node_id[]){h}, 1,
                  TP_DTYPE_F16, 1, (int64_t[]){10}));
    TP_CHECK_EQ_U64(c.flops, 80);
    TP_CHECK_EQ_U64(c.bytes_read, 20);
    TP_CHECK_EQ_U64(c.bytes_written, 20);
    /* binary add with broadcasting: 1 per output element, reads both operands */
    tp_node_id r = in(g, "r", TP_DTYPE_F32, 1, (int64_t[]){10});
    c = acc(g, op(g, (tp_op){.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD}, (tp_node_id[]){x, r}, 2,
                  TP_DTYPE_F32, 2, (int64_t[]){4, 10}));
    TP_CHECK_EQ_U64(c.flops, 40);
    TP_CHECK_EQ_U64(c.bytes_read, 160 + 40);
    tp_graph_destroy(g);
}

TP_TEST(per_element_counts) {
    tp_graph *g = new_graph();
    tp_node_id v = in(g, "v", TP_DTYPE_F32, 1, (int64_t[]){4});
    tp_node_id w = in(g, "w", TP_DTYPE_F32, 1, (int64_t[]){4});
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 2, (int64_t[]){4, 10});
    const int64_t four[] = {4};
    struct {
        tp_op o;
        tp_node_id a, b;
        uint64_t want;
    } cases[] = {
        {{.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU}, v, -1, 4},
        {{.kind = TP_OP_UNARY, .sub = TP_UNARY_EXP}, v, -1, 16},
        {{.kind = TP_OP_UNARY, .sub = TP_UNARY_SILU}, v, -1, 32},
        {{.kind = TP_OP_UNARY, .sub = TP_UNARY_HARD_SWISH}, v, -1, 8},
        {{.kind = TP_OP_BINARY, .sub = TP_BINARY_POW}, v, w, 16},
        {{.kind = TP_OP_BINARY, .sub = TP_BINARY_DIV}, v, w, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tp_node_id ins[2] = {cases[i].a, cases[i].b};
        tp_op_cost c =
            acc(g, op(g, cases[i].o, ins, cases[i].b >= 0 ? 2 : 1, TP_DTYPE_F32, 1, four));
        TP_CHECK_EQ_U64(c.flops, cases[i].want);
        TP_CHECK_EQ_U64(c.bytes_written, 16);
    }
    /* compare: 1 per element, bool output of 1 byte per element */
    tp_op_cost c = acc(g, op(g, (tp_op){.kind = TP_OP_COMPARE, .sub = TP_COMPARE_LT},
                             (tp_node_id[]){v, w}, 2, TP_DTYPE_BOOL, 1, four));
    TP_CHECK_EQ_U64(c.flops, 4);
    TP_CHECK_EQ_U64(c.bytes_read, 32);
    TP_CHECK_EQ_U64(c.bytes_written, 4);
    tp_node_id cond = in(g, "cond", TP_DTYPE_BOOL, 1, four);
    c = acc(g, op(g, (tp_op){.kind = TP_OP_WHERE}, (tp_node_id[]){cond, v, w}, 3, TP_DTYPE_F32, 1,
                  four));
    TP_CHECK_EQ_U64(c.flops, 4);
    TP_CHECK_EQ_U64(c.bytes_read, 4 + 16 + 16);
    /* rms norm 4 per element; reductions per input element: l2 2, log-sum-exp 4 */
    tp_op rms = {.kind = TP_OP_NORM, .sub = TP_NORM_RMS};
    rms.attrs.norm.axis = -1;
    rms.attrs.norm.eps = 1e-6;
    TP_CHECK_EQ_U64(
        acc(g, op(g, rms, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 2, (int64_t[]){4, 10})).flops, 160);
    tp_op rd = {.kind = TP_OP_REDUCE, .sub = TP_REDUCE_L2};
    rd.attrs.reduce.n_axes = 1;
    rd.attrs.reduce.axes[0] = 1;
    TP_CHECK_EQ_U64(acc(g, op(g, rd, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 1, four)).flops, 80);
    rd.sub = TP_REDUCE_LOG_SUM_EXP;
    TP_CHECK_EQ_U64(acc(g, op(g, rd, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 1, four)).flops, 160);
    /* cumsum 1 per element, topk 1 per input element */
    tp_op cs = {.kind = TP_OP_CUMSUM};
    cs.attrs.axis.axis = 1;
    TP_CHECK_EQ_U64(
        acc(g, op(g, cs, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 2, (int64_t[]){4, 10})).flops, 40);
    tp_op tk = {.kind = TP_OP_TOPK};
    tk.attrs.topk.k = 3;
    tk.attrs.topk.axis = -1;
    tk.attrs.topk.largest = true;
    TP_CHECK_EQ_U64(
        acc(g, op(g, tk, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 2, (int64_t[]){4, 3})).flops, 40);
    /* rope 3 per element */
    tp_node_id r = in(g, "r", TP_DTYPE_F32, 3, (int64_t[]){2, 4, 8});
    TP_CHECK_EQ_U64(acc(g, op(g, (tp_op){.kind = TP_OP_ROPE}, (tp_node_id[]){r}, 1, TP_DTYPE_F32, 3,
                              (int64_t[]){2, 4, 8}))
                        .flops,
                    192);
    /* data movement: 0 flops, bytes = inputs + output */
    tp_node_id p = in(g, "p", TP_DTYPE_F32, 2, (int64_t[]){2, 3});
    tp_node_id q = in(g, "q", TP_DTYPE_F32, 2, (int64_t[]){4, 3});
    tp_op cat = {.kind = TP_OP_CONCAT};
    cat.attrs.axis.axis = 0;
    c = acc(g, op(g, cat, (tp_node_id[]){p, q}, 2, TP_DTYPE_F32, 2, (int64_t[]){6, 3}));
    TP_CHECK_EQ_U64(c.flops, 0);
    TP_CHECK_EQ_U64(c.bytes_read, 72);
    TP_CHECK_EQ_U64(c.bytes_written, 72);
    tp_op pad = {.kind = TP_OP_PAD};
    pad.attrs.pad.begin[0] = 1;
    pad.attrs.pad.end[0] = 1;
    c = acc(g, op(g, pad, (tp_node_id[]){p}, 1, TP_DTYPE_F32, 2, (int64_t[]){4, 3}));
    TP_CHECK_EQ_U64(c.flops + c.bytes_read + c.bytes_written, 0 + 24 + 48);
    tp_op tile = {.kind = TP_OP_TILE};
    tile.attrs.tile.repeats[0] = 2;
    tile.attrs.tile.repeats[1] = 1;
    c = acc(g, op(g, tile, (tp_node_id[]){p}, 1, TP_DTYPE_F32, 2, (int64_t[]){4, 3}));
    TP_CHECK_EQ_U64(c.flops + c.bytes_read + c.bytes_written, 0 + 24 + 48);
    tp_graph_destroy(g);
}

TP_TEST(pool_counts) {
    tp_graph *g = new_graph();
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 4, (int64_t[]){1, 2, 4, 4});
    tp_op p = conv_op(TP_OP_POOL, 2, 2, 1, 0, 1);
    p.sub = TP_POOL_MAX;
    /* 8 outputs × 4-element window */
    TP_CHECK_EQ_U64(
        acc(g, op(g, p, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 4, (int64_t[]){1, 2, 2, 2})).flops, 32);
    tp_op gp = {.kind = TP_OP_POOL, .sub = TP_POOL_GLOBAL_AVG};
    gp.attrs.conv.spatial = 2;
    TP_CHECK_EQ_U64(
        acc(g, op(g, gp, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 4, (int64_t[]){1, 2, 1, 1})).flops,
        32);
    tp_graph_destroy(g);
}

TP_TEST(gather_slice_read_only_what_they_copy) {
    tp_graph *g = new_graph();
    tp_node_id table = par(g, "emb", TP_DTYPE_F32, 2, (int64_t[]){100, 16});
    tp_node_id idx = in(g, "ids", TP_DTYPE_I64, 1, (int64_t[]){3});
    tp_op ga = {.kind = TP_OP_GATHER};
    ga.attrs.axis.axis = 0;
    tp_op_cost c =
        acc(g, op(g, ga, (tp_node_id[]){table, idx}, 2, TP_DTYPE_F32, 2, (int64_t[]){3, 16}));
    TP_CHECK_EQ_U64(c.flops, 0);
    TP_CHECK_EQ_U64(c.bytes_read, 3 * 16 * 4 + 3 * 8); /* rows touched + indices */
    TP_CHECK_EQ_U64(c.bytes_written, 192);
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 2, (int64_t[]){10, 4});
    tp_op sl = {.kind = TP_OP_SLICE};
    sl.attrs.slice.n = 1;
    sl.attrs.slice.axes[0] = 1;
    sl.attrs.slice.starts[0] = 1;
    sl.attrs.slice.ends[0] = 3;
    sl.attrs.slice.steps[0] = 1;
    c = acc(g, op(g, sl, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 2, (int64_t[]){10, 2}));
    TP_CHECK_EQ_U64(c.bytes_read, 80);
    TP_CHECK_EQ_U64(c.bytes_written, 80);
    TP_CHECK_EQ_U64(c.launches, 1);
    tp_graph_destroy(g);
}

TP_TEST(quantized_sizes_not_four_bytes) {
    tp_graph *g = new_graph();
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 2, (int64_t[]){2, 64});
    tp_node_id w = par(g, "w", TP_DTYPE_Q4_0, 2, (int64_t[]){64, 32});
    tp_op_cost c = acc(g, op(g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x, w}, 2,
                             TP_DTYPE_F32, 2, (int64_t[]){2, 32}));
    /* weights: 2048 q4_0 elements = 64 blocks × 18 bytes (not 2048 × 4) */
    TP_CHECK_EQ_U64(c.bytes_read, 2 * 64 * 4 + 1152);
    TP_CHECK_EQ_U64(c.bytes_written, 2 * 32 * 4);
    TP_CHECK_EQ_U64(c.flops, 2 * 2 * 64 * 32);
    tp_graph_destroy(g);
}

TP_TEST(views_and_free_transposes_are_metadata) {
    tp_graph *g = new_graph();
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 2, (int64_t[]){1, 6});
    tp_node_id r = op(g, (tp_op){.kind = TP_OP_RESHAPE}, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 2,
                      (int64_t[]){2, 3});
    tp_op_cost c = acc(g, r);
    TP_CHECK(c.cls == TP_COST_METADATA);
    TP_CHECK_EQ_U64(c.launches, 0);
    TP_CHECK_EQ_U64(c.bytes_read + c.bytes_written + c.flops, 0);
    tp_op tr = {.kind = TP_OP_TRANSPOSE};
    tr.attrs.transpose.perm[0] = 1;
    tr.attrs.transpose.perm[1] = 0;
    /* [1,6] -> [6,1]: only a unit dim moves */
    c = acc(g, op(g, tr, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 2, (int64_t[]){6, 1}));
    TP_CHECK(c.cls == TP_COST_METADATA);
    /* [2,3] -> [3,2]: a real copy */
    c = acc(g, op(g, tr, (tp_node_id[]){r}, 1, TP_DTYPE_F32, 2, (int64_t[]){3, 2}));
    TP_CHECK(c.cls == TP_COST_MEMORY);
    TP_CHECK_EQ_U64(c.launches, 1);
    TP_CHECK_EQ_U64(c.bytes_read, 24);
    TP_CHECK_EQ_U64(c.bytes_written, 24);
    TP_CHECK(acc(g, x).cls == TP_COST_METADATA);
    /* identity is elided by runtimes */
    c = acc(g, op(g, (tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_IDENTITY}, (tp_node_id[]){x}, 1,
                  TP_DTYPE_F32, 2, (int64_t[]){1, 6}));
    TP_CHECK(c.cls == TP_COST_METADATA);
    TP_CHECK_EQ_U64(c.launches, 0);
    tp_graph_destroy(g);
}

/* A transpose's walk as onnxruntime's CPU Transpose takes it (transpose.cc): none for one axis
   moved past single elements (MLAS's 2-D transpose), one step per element when the innermost
   axis moves among others, one per block copied otherwise. */
static tp_op_cost transposed(tp_graph *g, tp_dtype t, int32_t rank, const int64_t *dims,
                             const int32_t *perm) {
    char name[32];
    snprintf(name, sizeof name, "t%u", tp_graph_node_count(g));
    tp_node_id x = in(g, name, t, rank, dims);
    tp_op tr = {.kind = TP_OP_TRANSPOSE};
    int64_t out[TP_MAX_RANK];
    for (int32_t i = 0; i < rank; i++) {
        tr.attrs.transpose.perm[i] = perm[i];
        out[i] = dims[perm[i]];
    }
    return acc(g, op(g, tr, (tp_node_id[]){x}, 1, t, rank, out));
}

TP_TEST(transpose_paths_as_onnxruntime_walks_them) {
    tp_graph *g = new_graph();
    static const struct {
        tp_dtype t;
        int32_t rank;
        int64_t dims[6];
        int32_t perm[6];
        uint64_t steps;
        bool by_element;
    } cases[] = {
        /* one axis moved past 4-byte elements: MLAS's 2-D transpose, no walk */
        {TP_DTYPE_F32, 2, {2, 3}, {1, 0}, 0, false},
        {TP_DTYPE_F32, 4, {1, 56, 56, 64}, {0, 3, 1, 2}, 0, false},
        {TP_DTYPE_F32, 4, {1, 12, 128, 64}, {0, 1, 3, 2}, 0, false},
        /* one axis moved past wider blocks: a memcpy per block (attention's heads) */
        {TP_DTYPE_F32, 5, {1, 64, 49, 2, 32}, {0, 1, 3, 2, 4}, 64 * 49 * 2, false},
        {TP_DTYPE_F32, 4, {1, 197, 12, 64}, {0, 2, 1, 3}, 197 * 12, false},
        {TP_DTYPE_F64, 2, {4, 6}, {1, 0}, 0, false},
        {TP_DTYPE_F64, 3, {4, 6, 2}, {1, 0, 2}, 24, false},
        /* several axes moved, the innermost kept: a block per step of the multi-index */
        {TP_DTYPE_F32, 6, {1, 8, 7, 8, 7, 32}, {0, 2, 4, 1, 3, 5}, 8 * 7 * 8 * 7, false},
        /* the innermost moved among others: one element per step (maxvit_t's windows) */
        {TP_DTYPE_F32, 6, {1, 8, 8, 7, 7, 64}, {0, 5, 1, 3, 2, 4}, 8 * 8 * 7 * 7 * 64, true},
        {TP_DTYPE_F32, 4, {1, 32, 56, 56}, {0, 3, 2, 1}, 32 * 56 * 56, true},
        {TP_DTYPE_F32, 3, {64, 96, 48}, {2, 1, 0}, 64 * 96 * 48, true},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tp_op_cost c = transposed(g, cases[k].t, cases[k].rank, cases[k].dims, cases[k].perm);
        TP_CHECK(c.cls == TP_COST_MEMORY);
        TP_CHECK_EQ_U64(c.transpose_steps, cases[k].steps);
        TP_CHECK_EQ_I64(c.transpose_by_element, cases[k].by_element);
    }
    /* no permutation: the dims reversed, [4, 5, 6] walked element by element */
    tp_node_id x = in(g, "r", TP_DTYPE_F32, 3, (int64_t[]){4, 5, 6});
    tp_op rev = {.kind = TP_OP_TRANSPOSE};
    for (int i = 0; i < TP_MAX_RANK; i++)
        rev.attrs.transpose.perm[i] = -1;
    tp_op_cost c = acc(g, op(g, rev, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 3, (int64_t[]){6, 5, 4}));
    TP_CHECK_EQ_U64(c.transpose_steps, 120);
    TP_CHECK(c.transpose_by_element);
    tp_graph_destroy(g);
}

/* An Einsum that contracts two operands (the importer's axis roles) is a batched GEMM: maxvit_t's
   q·kᵀ, "BGHID,BGHJD->BGHIJ" on [2,3,4,5,6] and [2,3,4,7,6]. */
TP_TEST(einsum_contraction_is_a_batched_gemm) {
    tp_graph *g = new_graph();
    tp_node_id q = in(g, "q", TP_DTYPE_F32, 5, (int64_t[]){2, 3, 4, 5, 6});
    tp_node_id k = in(g, "k", TP_DTYPE_F32, 5, (int64_t[]){2, 3, 4, 7, 6});
    tp_op e = {.kind = TP_OP_CUSTOM};
    e.attrs.custom.name = "Einsum";
    e.attrs.custom.n_inputs = 2;
    static const uint8_t roles[2][5] = {
        {TP_EINSUM_BATCH, TP_EINSUM_BATCH, TP_EINSUM_BATCH, TP_EINSUM_ROWS, TP_EINSUM_SUM},
        {TP_EINSUM_BATCH, TP_EINSUM_BATCH, TP_EINSUM_BATCH, TP_EINSUM_COLS, TP_EINSUM_SUM}};
    for (int t = 0; t < 2; t++)
        memcpy(e.attrs.custom.einsum_role[t], roles[t], 5);
    tp_node_id y = op(g, e, (tp_node_id[]){q, k}, 2, TP_DTYPE_F32, 5, (int64_t[]){2, 3, 4, 5, 7});
    tp_op_cost c = acc(g, y);
    TP_CHECK(c.cls == TP_COST_GEMM);
    TP_CHECK_EQ_U64(c.gemm_m, 5);
    TP_CHECK_EQ_U64(c.gemm_k, 6);
    TP_CHECK_EQ_U64(c.gemm_n, 7);
    TP_CHECK_EQ_U64(c.gemm_batch, 24);
    TP_CHECK_EQ_U64(c.flops, 2ull * 24 * 5 * 6 * 7);
    TP_CHECK(tp_cost_op_class_of(tp_graph_node(g, y), &c) == TP_OPC_MATMUL);
    /* without roles: a custom node, data movement only */
    tp_op plain = {.kind = TP_OP_CUSTOM};
    plain.attrs.custom.name = "Einsum";
    plain.attrs.custom.n_inputs = 2;
    tp_node_id z =
        op(g, plain, (tp_node_id[]){q, k}, 2, TP_DTYPE_F32, 5, (int64_t[]){2, 3, 4, 5, 7});
    c = acc(g, z);
    TP_CHECK(c.cls == TP_COST_MEMORY);
    TP_CHECK_EQ_U64(c.flops, 0);
    TP_CHECK(tp_cost_op_class_of(tp_graph_node(g, z), &c) == TP_OPC_OTHER);
    tp_graph_destroy(g);
}

TP_TEST(fft_and_log_mel) {
    tp_graph *g = new_graph();
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 2, (int64_t[]){2, 8});
    tp_op f = {.kind = TP_OP_FFT};
    f.attrs.signal.n_fft = 8;
    tp_node_id y = -1;
    tp_shape s = tp_shape_of(2, (int64_t[]){2, 5});
    if (tp_graph_add_op_shaped(g, &f, (tp_node_id[]){x}, 1, &s, TP_DTYPE_C64, NULL, &y, err) ==
        TP_OK) {
        /* 2 transforms × 2.5 · 8 · log2(8) = 2 × 60 */
        TP_CHECK_EQ_U64(acc(g, y).flops, 120);
    } else {
        TP_FAIL_("fft shape rule: %s", err->msg);
    }
    /* log-mel from a spectrogram [2, 4 frames, 5 bins] -> [2, 4, 3 mels]:
       2 · 24 · 5 (filter bank) + 24 (log) */
    tp_node_id spec = in(g, "spec", TP_DTYPE_F32, 3, (int64_t[]){2, 4, 5});
    tp_op lm = {.kind = TP_OP_LOG_MEL};
    lm.attrs.signal.n_mels = 3;
    TP_CHECK_EQ_U64(
        acc(g, op(g, lm, (tp_node_id[]){spec}, 1, TP_DTYPE_F32, 3, (int64_t[]){2, 4, 3})).flops,
        264);
    /* from a waveform of 16 samples, n_fft 8, hop 4: 3 frames × (2.5·8·3 + 2·5 bins)
       + 2 · 9 · 5 + 9 */
    tp_node_id wav = in(g, "wav", TP_DTYPE_F32, 2, (int64_t[]){1, 16});
    lm.attrs.signal.n_fft = 8;
    lm.attrs.signal.hop = 4;
    TP_CHECK_EQ_U64(
        acc(g, op(g, lm, (tp_node_id[]){wav}, 1, TP_DTYPE_F32, 3, (int64_t[]){1, 3, 3})).flops,
        3 * 70 + 90 + 9);
    /* Welch peaks over [2, 64] with n_fft 16: 128 · (2.5 · 4 + 4) */
    tp_node_id sig = in(g, "sig", TP_DTYPE_F32, 2, (int64_t[]){2, 64});
    tp_op we = {.kind = TP_OP_WELCH_PEAKS};
    we.attrs.signal.n_fft = 16;
    we.attrs.signal.k_peaks = 4;
    tp_op_cost wc = acc(g, op(g, we, (tp_node_id[]){sig}, 1, TP_DTYPE_F32, 2, (int64_t[]){2, 4}));
    TP_CHECK_EQ_U64(wc.flops, 1792);
    /* signal ops are host ops by default: a sync point each in the IO profile */
    TP_CHECK(wc.launches == 1);
    tp_graph_destroy(g);
}

TP_TEST(overflow_and_unbound_are_errors) {
    tp_graph *g = new_graph();
    tp_dim big, k, n;
    TP_CHECK_OK(tp_graph_symbol(g, "big", &big, err), err);
    TP_CHECK_OK(tp_graph_symbol(g, "k", &k, err), err);
    TP_CHECK_OK(tp_graph_symbol(g, "n", &n, err), err);
    tp_shape as = tp_shape_make(2, (tp_dim[]){big, k});
    tp_shape bs = tp_shape_make(2, (tp_dim[]){k, n});
    tp_shape ys = tp_shape_make(2, (tp_dim[]){big, n});
    tp_node_id a, b, y;
    TP_CHECK_OK(tp_graph_add_input(g, "a", TP_DTYPE_F32, &as, &a, err), err);
    TP_CHECK_OK(tp_graph_add_param(g, "b", TP_DTYPE_F32, &bs, &b, err), err);
    TP_CHECK_OK(tp_graph_add_op_shaped(g, &(tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){a, b}, 2,
                                       &ys, TP_DTYPE_F32, "mm", &y, err),
                err);
    tp_op_cost c;
    TP_CHECK_STATUS(tp_op_account(g, y, &c, err), TP_ERR_UNBOUND);
    TP_CHECK_OK(tp_graph_bind(g, "big", (int64_t)1 << 40, err), err);
    TP_CHECK_OK(tp_graph_bind(g, "k", (int64_t)1 << 20, err), err);
    TP_CHECK_OK(tp_graph_bind(g, "n", (int64_t)1 << 20, err), err);
    /* 2 · 2^60 · 2^20 does not fit in 64 bits */
    TP_CHECK_STATUS(tp_op_account(g, y, &c, err), TP_ERR_OVERFLOW);
    TP_CHECK_CONTAINS(err->msg, "mm");
    TP_CHECK_STATUS(tp_op_account(g, 99, &c, err), TP_ERR_INVALID);
    tp_graph_destroy(g);
}

static tp_device_model flat_model(double gflops, double gbps) {
    tp_device_model d;
    tp_device_model_default(TP_DEVICE_CPU, &d);
    d.n_gemm = 1;
    d.gemm[0].dim = 1;
    d.gemm[0].gflops = gflops;
    d.mem_gbps = gbps;
    d.readback_gbps = 1;
    d.dispatch_ns = 10;
    d.round_trip_ns = 1000;
    d.unified = false;
    d.source = TP_SOURCE_MEASURED;
    return d;
}

TP_TEST(gemm_curve_interpolation) {
    tp_device_model d = flat_model(1, 1);
    d.n_gemm = 2;
    d.gemm[0] = (tp_gemm_point){10, 10};
    d.gemm[1] = (tp_gemm_point){1000, 110};
    d.f16_speedup = 2;
    /* cbrt(100^3) = 100, halfway between 10 and 1000 in log space */
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 100, 100, 100), 60, 1e-9);
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 2, 2, 2), 10, 1e-12);
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 4096, 4096, 4096), 110, 1e-12);
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F16, 100, 100, 100), 120, 1e-9);
    /* m=10, k=100, n=1000: cbrt(10^6) = 100 */
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 10, 100, 1000), 60, 1e-9);
    TP_CHECK_OK(tp_device_model_validate(&d, err), err);
    /* skinny curve: min(m,k,n) = 4 -> halfway (log) between 1 and 16: 30 GFLOP/s < square 60 */
    d.n_skinny = 2;
    d.skinny[0] = (tp_gemm_point){1, 10};
    d.skinny[1] = (tp_gemm_point){16, 50};
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 4, 500, 500), 30, 1e-9);
    /* cbrt(16·1000·62.5)=100 -> square 60; min dim 16 is the skinny curve's end: no cap */
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 16, 1000, 63), 60, 0.5);
    /* few output columns (n = 4) follow the square curve: the skinny curve is measured
       with few rows (m) */
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 500, 500, 4), 60, 1e-9);
    /* skinny value above the square one does not raise it */
    d.skinny[1].gflops = 500;
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 10, 100, 1000), 60, 1e-9);
    TP_CHECK_OK(tp_device_model_validate(&d, err), err);
    d.skinny[1].dim = 0.5;
    TP_CHECK_STATUS(tp_device_model_validate(&d, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "skinny");
    d.n_skinny = 0;
    d.gemm[1].dim = 5;
    TP_CHECK_STATUS(tp_device_model_validate(&d, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "sorted");
    d = flat_model(1, 0);
    TP_CHECK_STATUS(tp_device_model_validate(&d, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "mem_gbps");
}

TP_TEST(node_roofline) {
    tp_device_model d = flat_model(1, 1);
    d.threads = 2; /* a fork/join per kernel (one thread: none, below) */
    tp_op_cost oc = {.cls = TP_COST_GEMM,
                     .launches = 1,
                     .flops = 240,
                     .bytes_read = 176,
                     .bytes_written = 120,
                     .gemm_m = 6,
                     .gemm_k = 4,
                     .gemm_n = 5,
                     .gemm_batch = 1,
                     .compute_dtype = TP_DTYPE_F32};
    tp_node_cost nc = tp_node_cost_eval(&d, 3, &oc);
    TP_CHECK_NEAR(nc.compute_ns, 240, 1e-9); /* 240 flops / 1 GFLOP/s */
    TP_CHECK_NEAR(nc.memory_ns, 296, 1e-9);  /* 296 bytes / 1 GB/s */
    TP_CHECK_NEAR(nc.total_ns, 306, 1e-9);   /* max + 10 ns dispatch */
    d.gemm[0].gflops = 0.5;
    nc = tp_node_cost_eval(&d, 3, &oc);
    TP_CHECK_NEAR(nc.total_ns, 490, 1e-9); /* compute-bound: 480 + 10 */
    /* a depthwise convolution: the calibrated depthwise rate when the model has one */
    oc.kernel = TP_KERNEL_DEPTHWISE;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 3, &oc).compute_ns, 480, 1e-9); /* not measured: curve */
    d.dwconv_gflops = 0.25;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 3, &oc).compute_ns, 960, 1e-9);
    /* a resize: the slower of the stream and the calibrated interpolation rate */
    tp_op_cost rs = {.cls = TP_COST_MEMORY,
                     .launches = 1,
                     .bytes_read = 100,
                     .bytes_written = 400,
                     .kernel = TP_KERNEL_RESIZE};
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 3, &rs).memory_ns, 500, 1e-9);
    d.resize_gbps = 0.5;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 3, &rs).memory_ns, 1000, 1e-9);
    d.resize_gbps = 2;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 3, &rs).memory_ns, 500, 1e-9);
    /* one thread, measured: onnxruntime runs inline, no fork/join; a default model keeps it */
    d.threads = 1;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 3, &rs).total_ns, 500, 1e-9);
    d.runtime_node_ns = 7;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 3, &rs).total_ns, 507, 1e-9);
    d.source = TP_SOURCE_DEFAULT;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 3, &rs).total_ns, 517, 1e-9);
    oc.cls = TP_COST_METADATA;
    oc.launches = 0;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 3, &oc).total_ns, 0, 0);
}

/* Several threads: a calibrated CPU's depthwise rate is one thread's (onnxruntime's depthwise
   kernel gains nothing from a second thread) and the node still pays the fork, however small;
   other nodes too small to split run inline at one thread's share of the pool's rate. */
TP_TEST(depthwise_at_several_threads) {
    tp_device_model d = flat_model(1, 1000);
    d.threads = 2;
    d.dispatch_ns = 100;
    d.dwconv_gflops = 2;
    tp_op_cost oc = {.cls = TP_COST_GEMM,
                     .launches = 1,
                     .flops = 40,
                     .gemm_m = 1,
                     .gemm_k = 9,
                     .gemm_n = 16,
                     .gemm_batch = 16,
                     .compute_dtype = TP_DTYPE_F32,
                     .kernel = TP_KERNEL_DEPTHWISE,
                     .spatial_rank = 2,
                     .conv_cin = 1};
    tp_node_cost nc = tp_node_cost_eval(&d, 0, &oc);
    TP_CHECK_NEAR(nc.compute_ns, 20, 1e-9); /* 40 flops at 2 GFLOP/s, not doubled */
    TP_CHECK_NEAR(nc.total_ns, 120, 1e-9);  /* + the fork, though 20 · 2 < 20 + 100 */
    /* 5 edge pixels of 16 channels: 5 · 16 · 108 flops more at 2 GFLOP/s */
    oc.border_pixels = 5;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 20 + 5.0 * 16 * 108 / 2, 1e-9);
    oc.border_pixels = 0;
    /* a 1-D depthwise convolution, or one whose channels are not aligned to 4: MLAS's generic
       convolution, too small to split (40 ns inline at one thread's share: × 2, no fork) */
    oc.spatial_rank = 1;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, 40, 1e-9);
    oc.spatial_rank = 2;
    oc.gemm_n = oc.gemm_batch = 14;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, 40, 1e-9);
    /* ... which expands every channel's patches first (the 1-D one: 16 channels × 9 taps × 1
       pixel × 4 bytes at 2 bytes per ns, 288 ns): now worth splitting (20 + 288 ns and the fork) */
    oc.gemm_n = oc.gemm_batch = 16;
    oc.spatial_rank = 1;
    oc.conv_expands = true;
    d.im2col_gbps = 2;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, 20 + 16 * 9 * 4 / 2.0 + 100, 1e-9);
    oc.spatial_rank = 2; /* 2-D, 16 channels: NCHWc, one thread's rate and the fork */
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, 120, 1e-9);
    oc.conv_expands = false;
    d.im2col_gbps = 0;
    oc.kernel = TP_KERNEL_GENERIC; /* the same size as a GEMM: too small to split */
    nc = tp_node_cost_eval(&d, 0, &oc);
    TP_CHECK_NEAR(nc.total_ns, 80, 1e-9); /* 40 ns at 1 GFLOP/s, inline: × 2, no fork */
    /* a catalog CPU has no measured one-thread rate: its depthwise node is split like others */
    d.source = TP_SOURCE_CATALOG;
    oc.kernel = TP_KERNEL_DEPTHWISE;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, 40, 1e-9);
}

/* Several threads, a pool whose threads sleep: a GEMM node that onnxruntime's MLAS hands to the
   pool (64 Ki multiply-adds or more) but that is too small to split pays the wake-up of a pool
   thread on top of its inline time; a smaller one, a memory-bound node, a node worth splitting,
   one thread or a catalog CPU pay none. */
TP_TEST(wake_for_small_gemms) {
    tp_device_model d = flat_model(1000, 1000); /* 1 flop per ps: the GEMMs below are tiny */
    d.threads = 2;
    d.dispatch_ns = 30000;
    d.wake_ns = 10000;
    tp_op_cost oc = {.cls = TP_COST_GEMM,
                     .launches = 1,
                     .flops = 2 * 64 * 64 * 16,
                     .gemm_m = 64,
                     .gemm_k = 64,
                     .gemm_n = 16,
                     .gemm_batch = 1,
                     .compute_dtype = TP_DTYPE_F32};
    double inline_ns = 2.0 * (double)oc.flops / 1000; /* one thread's share of the rate */
    tp_node_cost nc = tp_node_cost_eval(&d, 0, &oc);  /* 65536 multiply-adds: to the pool */
    TP_CHECK_NEAR(nc.total_ns, inline_ns + 10000, 1e-9);
    TP_CHECK_NEAR(nc.dispatch_ns, 10000, 1e-9);
    oc.gemm_n = 15; /* 61440: MLAS keeps it on the calling thread */
    oc.flops = 2 * 64 * 64 * 15;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, 2.0 * (double)oc.flops / 1000, 1e-9);
    oc.gemm_n = 16;
    oc.flops = 2 * 64 * 64 * 16;
    oc.launches = 3; /* a wake-up per launch */
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, inline_ns + 30000, 1e-9);
    oc.launches = 1;
    /* large enough to split: the split time and the fork/join, no wake-up on top */
    oc.flops = 200000000; /* 200 us at the pool's rate: split, + 30 us */
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, 200000 + 30000, 1e-6);
    /* between: inline + wake-up would cost more than split + fork/join, so it is split */
    oc.flops = 25000000; /* 25 us split + 30 = 55 < 50 + 10 inline */
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, 25000 + 30000, 1e-6);
    oc.flops = 2 * 64 * 64 * 16;
    /* a memory-bound node too small to split: inline, no wake-up (onnxruntime's cost model
       keeps small elementwise loops on the calling thread) */
    tp_op_cost ew = {
        .cls = TP_COST_MEMORY, .launches = 1, .bytes_read = 4096, .bytes_written = 4096};
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &ew).total_ns, 2.0 * 8192 / 1000, 1e-9);
    /* not measured (a calibration before wake_ns), a catalog CPU, one thread: none */
    d.wake_ns = 0;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, inline_ns, 1e-9);
    d.wake_ns = 10000;
    d.source = TP_SOURCE_CATALOG;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, inline_ns, 1e-9);
    d.source = TP_SOURCE_MEASURED;
    d.threads = 1;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, (double)oc.flops / 1000, 1e-9);
}

TP_TEST(node_grouped_conv) {
    tp_device_model d = flat_model(1, 1);
    d.n_gemm = 2;
    d.gemm[0] = (tp_gemm_point){2, 1};
    d.gemm[1] = (tp_gemm_point){64, 32};
    d.vector_floats = 16; /* an AVX-512 CPU, whichever GEMM the calibration chose */
    snprintf(d.gemm_impl, sizeof d.gemm_impl, "openblas-SkylakeX");
    /* 4 groups of 2 filters, k = 18, 64 pixels: per-group GEMM cbrt(2·18·64) = 13.2 on the
       curve, plus writing the im2col buffers, 4 · 18 · 64 floats at 1 GB/s */
    tp_op_cost oc = {.cls = TP_COST_GEMM,
                     .launches = 1,
                     .flops = 2 * 8 * 18 * 64,
                     .gemm_m = 2,
                     .gemm_k = 18,
                     .conv_cin = 2,
                     .gemm_n = 64,
                     .gemm_batch = 4,
                     .compute_dtype = TP_DTYPE_F32,
                     .kernel = TP_KERNEL_GROUPED,
                     .spatial_rank = 2,
                     .conv_expands = true};
    double gf = tp_device_gemm_gflops(&d, TP_DTYPE_F32, 2, 18, 64);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns,
                  (double)oc.flops / gf + 4.0 * 18 * 64 * 4, 1e-6);
    /* 16 filters per group and k = 144 (16 channels · 9): NCHWc-aligned with AVX-512, priced as
       the dense convolution (pixels × k × all filters), no im2col */
    oc.gemm_m = 16;
    oc.gemm_k = 144;
    oc.conv_cin = 16;
    oc.flops = 2 * 64 * 144 * 64;
    gf = tp_device_gemm_gflops(&d, TP_DTYPE_F32, 64, 144, 64);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops / gf, 1e-6);
    /* 8 filters of 8 channels per group: aligned to AVX2's block of 8, not to AVX-512's 16: on
       this CPU im2col + a GEMM per group, whatever the BLAS (the block once followed gemm_impl's
       name, so an OpenBLAS calibration priced it as the dense convolution) */
    oc.gemm_m = 8;
    oc.gemm_k = 72;
    oc.conv_cin = 8;
    oc.flops = 2 * 32 * 72 * 64;
    double im2col_ns = 4.0 * 72 * 64 * 4;
    gf = tp_device_gemm_gflops(&d, TP_DTYPE_F32, 8, 72, 64);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops / gf + im2col_ns,
                  1e-6);
    d.vector_floats = 8; /* AVX2: the dense shape */
    gf = tp_device_gemm_gflops(&d, TP_DTYPE_F32, 64, 72, 32);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops / gf, 1e-6);
    /* a 1-D grouped convolution never runs in NCHWc */
    oc.spatial_rank = 1;
    gf = tp_device_gemm_gflops(&d, TP_DTYPE_F32, 8, 72, 64);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops / gf + im2col_ns,
                  1e-6);
    /* a measured im2col rate prices the expansion (2 bytes per ns) */
    d.im2col_gbps = 2;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops / gf + im2col_ns / 2,
                  1e-6);
    /* a 1x1, stride-1, unpadded one multiplies the input directly: no im2col, but the GEMM
       packs its input, read and written at the memory curve (1 byte per ns here) */
    oc.conv_expands = false;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops / gf + 2 * im2col_ns,
                  1e-6);
    oc.conv_expands = true;
    d.im2col_gbps = 0;
    oc.spatial_rank = 2;
    d.vector_floats = 16;
    oc.gemm_m = 16;
    oc.gemm_k = 144;
    oc.conv_cin = 16;
    oc.flops = 2 * 64 * 144 * 64;
    gf = tp_device_gemm_gflops(&d, TP_DTYPE_F32, 64, 144, 64);
    /* the tap share scales the GEMM time in NCHWc, whose kernel skips the taps in the padding */
    oc.tap_share = 0.5;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 0.5 * (double)oc.flops / gf, 1e-6);
    /* not on the expand-then-GEMM path (1-D here), whose GEMM multiplies the zeros of its im2col */
    oc.spatial_rank = 1;
    double halved = tp_node_cost_eval(&d, 0, &oc).compute_ns;
    oc.tap_share = 1;
    TP_CHECK_NEAR(halved, tp_node_cost_eval(&d, 0, &oc).compute_ns, 1e-6);
}

/* What runtime_group_ns = 150 ns adds to a node (its compute and total against none). */
static tp_node_cost walk_added(tp_device_model d, const tp_op_cost *oc) {
    d.runtime_group_ns = 0;
    tp_node_cost without = tp_node_cost_eval(&d, 0, oc);
    d.runtime_group_ns = 150;
    tp_node_cost with = tp_node_cost_eval(&d, 0, oc);
    with.compute_ns -= without.compute_ns;
    with.total_ns -= without.total_ns;
    return with;
}

/* The group walk of a grouped or depthwise convolution on onnxruntime's generic path: every group
   costs runtime_group_ns on the calling thread (one im2col and one small GEMM call each), on top
   of the arithmetic; none in NCHWc, none for a dense one, none on a GPU, and not scaled when a
   small node runs on one thread of several. */
TP_TEST(group_walk_on_the_generic_path) {
    tp_device_model d = flat_model(1, 1);
    d.n_gemm = 2;
    d.gemm[0] = (tp_gemm_point){2, 1};
    d.gemm[1] = (tp_gemm_point){64, 32};
    d.vector_floats = 16;
    d.dwconv_gflops = 8;
    d.im2col_gbps = 1000;
    /* silero_vad's first depthwise convolution: 258 channels of 8 samples, kernel 5 (1-D) */
    tp_op_cost oc = {.cls = TP_COST_GEMM,
                     .launches = 1,
                     .flops = 2 * 258 * 8 * 5,
                     .gemm_m = 8,
                     .gemm_k = 5,
                     .conv_cin = 1,
                     .gemm_n = 258,
                     .gemm_batch = 258,
                     .compute_dtype = TP_DTYPE_F32,
                     .kernel = TP_KERNEL_DEPTHWISE,
                     .spatial_rank = 1,
                     .conv_expands = true};
    tp_node_cost w = walk_added(d, &oc);
    TP_CHECK_NEAR(w.compute_ns, 258 * 150.0, 1e-6);
    TP_CHECK_NEAR(w.total_ns, 258 * 150.0, 1e-6);
    /* two threads: the node is too small to split and runs on one of them, its arithmetic at
       that thread's share of the throughput; the walk is the same */
    d.threads = 2;
    d.dispatch_ns = 5000;
    TP_CHECK_NEAR(walk_added(d, &oc).total_ns, 258 * 150.0, 1e-6);
    d.threads = 1;
    d.dispatch_ns = 0;
    /* the same as a 2-D depthwise convolution of 16-aligned channels: NCHWc, no walk */
    oc.spatial_rank = 2;
    oc.gemm_n = oc.gemm_batch = 256;
    oc.flops = 2 * 256 * 8 * 5;
    TP_CHECK_NEAR(walk_added(d, &oc).total_ns, 0, 1e-9);
    /* 4 groups of 8 filters of 8 channels (2-D): not aligned to the block of 16, the walk */
    oc.kernel = TP_KERNEL_GROUPED;
    oc.gemm_m = 8;
    oc.gemm_k = 72;
    oc.conv_cin = 8;
    oc.gemm_n = 64;
    oc.gemm_batch = 4;
    oc.flops = 2 * 32 * 72 * 64;
    TP_CHECK_NEAR(walk_added(d, &oc).total_ns, 4 * 150.0, 1e-6);
    /* a dense convolution, one group: no walk */
    oc.kernel = TP_KERNEL_GENERIC;
    oc.gemm_batch = 1;
    TP_CHECK_NEAR(walk_added(d, &oc).total_ns, 0, 1e-9);
    /* a GPU runs no MLAS convolution */
    oc.kernel = TP_KERNEL_GROUPED;
    oc.gemm_batch = 4;
    d.kind = TP_DEVICE_GPU;
    TP_CHECK_NEAR(walk_added(d, &oc).total_ns, 0, 1e-9);
}

/* A transposed convolution's Col2im, as onnxruntime runs it: after the GEMM, on the calling
   thread whatever the thread count, the output zeroed (a stream), the columns added one element at
   a time at the calibrated col2im rate or a row at a time as a read of the columns, the bias a
   read and a write of the output; the read of the columns without a col2im rate; nothing on a
   GPU. */
TP_TEST(transposed_conv_col2im_on_the_calling_thread) {
    tp_device_model d = flat_model(1000, 4); /* the GEMM's memory dominates its arithmetic */
    /* ppocr_det's first ConvTranspose: 24 -> 24 channels, 2×2 stride 2, 160×120 in */
    tp_op_cost oc = {.cls = TP_COST_GEMM,
                     .launches = 1,
                     .flops = 2ull * 19200 * 24 * 96,
                     .gemm_m = 19200,
                     .gemm_k = 24,
                     .gemm_n = 96,
                     .gemm_batch = 1,
                     .bytes_read = 19200 * 24 * 4,
                     .bytes_written = 76800 * 24 * 4,
                     .compute_dtype = TP_DTYPE_F32,
                     .kernel = TP_KERNEL_GENERIC};
    tp_node_cost base = tp_node_cost_eval(&d, 0, &oc); /* no column buffer: the GEMM alone */
    oc.col2im_elems = 19200 * 96;
    double cols = 19200.0 * 96 * 4, out = 76800.0 * 24 * 4;
    /* without a col2im rate the columns are a stream */
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns - base.total_ns, cols / 4 + out / 4, 1e-3);
    d.col2im_gbps = 2;
    tp_node_cost elems = tp_node_cost_eval(&d, 0, &oc);
    TP_CHECK_NEAR(elems.total_ns - base.total_ns, cols / 2 + out / 4, 1e-3);
    TP_CHECK_NEAR(elems.compute_ns - base.compute_ns, cols / 2 + out / 4, 1e-3);
    /* a row at a time, with a bias */
    oc.col2im_rows = oc.col2im_bias = true;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns - base.total_ns,
                  cols / 4 + out / 4 + 2 * out / 4, 1e-3);
    oc.col2im_rows = oc.col2im_bias = false;
    /* two threads, a fork dearer than the node: the GEMM runs on one thread at its share of the
       two threads' throughput (doubled), the Col2im is what it was */
    d.threads = 2;
    d.dispatch_ns = 1e8;
    oc.col2im_elems = 0;
    tp_node_cost base2 = tp_node_cost_eval(&d, 0, &oc);
    TP_CHECK(base2.total_ns > 1.9 * base.total_ns);
    oc.col2im_elems = 19200 * 96;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns - base2.total_ns, cols / 2 + out / 4,
                  1e-3);
    /* a GPU runs no Col2im of onnxruntime's CPU provider */
    d.kind = TP_DEVICE_GPU;
    tp_node_cost gpu = tp_node_cost_eval(&d, 0, &oc);
    oc.col2im_elems = 0;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, gpu.total_ns, 1e-9);
}

/* A transpose's walk is priced at the calibrated walk rate on the calling thread: per element
   it replaces the stream (the walk copies), per block it comes on top of the stream. */
TP_TEST(transpose_walk_on_the_calling_thread) {
    tp_device_model d = flat_model(1000, 4);
    tp_op_cost oc = {.cls = TP_COST_MEMORY,
                     .launches = 1,
                     .bytes_read = 200704 * 4,
                     .bytes_written = 200704 * 4,
                     .compute_dtype = TP_DTYPE_F32};
    tp_node_cost stream = tp_node_cost_eval(&d, 0, &oc);
    double walk = 200704.0 * 4 / 2; /* 4-byte steps at 2 GB/s */
    oc.transpose_steps = 200704;
    oc.transpose_by_element = true;
    /* without a walk rate (catalog, default, an older cache): the stream */
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, stream.total_ns, 1e-9);
    d.transpose_gbps = 2;
    tp_node_cost byel = tp_node_cost_eval(&d, 0, &oc);
    TP_CHECK_NEAR(byel.total_ns, walk + byel.dispatch_ns, 1e-6);
    TP_CHECK_NEAR(byel.memory_ns, 0, 1e-12);
    /* a block per step: the steps on top of the stream */
    oc.transpose_steps = 6272;
    oc.transpose_by_element = false;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns - stream.total_ns, 6272.0 * 4 / 2, 1e-6);
    /* two threads: the walk is what it was (onnxruntime's Transpose runs on the calling thread) */
    oc.transpose_steps = 200704;
    oc.transpose_by_element = true;
    d.threads = 2;
    tp_node_cost two = tp_node_cost_eval(&d, 0, &oc);
    TP_CHECK_NEAR(two.total_ns - two.dispatch_ns, walk, 1e-6);
    /* a GPU walks nothing of onnxruntime's CPU provider */
    d.kind = TP_DEVICE_GPU;
    tp_node_cost gpu = tp_node_cost_eval(&d, 0, &oc);
    oc.transpose_steps = 0;
    oc.transpose_by_element = false;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).total_ns, gpu.total_ns, 1e-9);
}

/* A dense 2-D convolution's cost record: `pixels` output pixels, `cin` input channels, `taps`
   kernel taps, `cout` filters (what tp_op_account writes for one; no bias). */
static tp_op_cost dense_conv(uint64_t pixels, uint64_t cin, uint64_t taps, uint64_t cout) {
    return (tp_op_cost){.cls = TP_COST_GEMM,
                        .launches = 1,
                        .flops = 2 * pixels * cin * taps * cout,
                        .gemm_m = pixels,
                        .gemm_k = cin * taps,
                        .gemm_n = cout,
                        .gemm_batch = 1,
                        .compute_dtype = TP_DTYPE_F32,
                        .spatial_rank = 2,
                        .conv_cin = cin,
                        .conv_expands = true};
}

/* A dense convolution that onnxruntime's NCHWc transformer leaves plain (input channels neither
   under the block nor aligned to 4, or not 2-D) runs MLAS's generic convolution: im2col of
   output pixels × patch elements first, at the im2col rate. */
/* MLAS's SGEMM packs a B it was not given packed: a MatMul of two activations (attention's
   Q·Kᵀ and P·V) copies B on every run, for two rows or more; a weight (pre-packed once at load)
   or a single row (MLAS's one-row kernel reads B in place) does not (docs/cost.md, "MatMuls of
   two activations pack B"). */
TP_TEST(activation_matmul_packs_b) {
    tp_graph *g = new_graph();
    tp_node_id q = in(g, "q", TP_DTYPE_F32, 4, (int64_t[]){1, 8, 4, 64});
    tp_node_id kt = in(g, "kt", TP_DTYPE_F32, 4, (int64_t[]){1, 8, 64, 256});
    tp_node_id s = op(g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){q, kt}, 2, TP_DTYPE_F32, 4,
                      (int64_t[]){1, 8, 4, 256});
    tp_op_cost c = acc(g, s);
    TP_CHECK_EQ_U64(c.gemm_batch, 8);
    TP_CHECK_EQ_U64(c.pack_b_elems, 8 * 64 * 256);
    /* priced as B read and written at the memory curve (1 byte per ns), beside the arithmetic */
    tp_device_model d = flat_model(1, 1);
    double gemm = (double)c.flops / tp_device_gemm_gflops(&d, TP_DTYPE_F32, 4, 64, 256);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &c).compute_ns, gemm + 2.0 * 8 * 64 * 256 * 4, 1e-6);
    /* one query row: read in place */
    tp_node_id q1 = in(g, "q1", TP_DTYPE_F32, 4, (int64_t[]){1, 8, 1, 64});
    tp_node_id s1 = op(g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){q1, kt}, 2, TP_DTYPE_F32, 4,
                       (int64_t[]){1, 8, 1, 256});
    TP_CHECK_EQ_U64(acc(g, s1).pack_b_elems, 0);
    /* a weight is packed once when the session loads it */
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 2, (int64_t[]){4, 512});
    tp_node_id w = par(g, "w", TP_DTYPE_F32, 2, (int64_t[]){512, 1408});
    tp_node_id y = op(g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x, w}, 2, TP_DTYPE_F32, 2,
                      (int64_t[]){4, 1408});
    TP_CHECK_EQ_U64(acc(g, y).pack_b_elems, 0);
    /* a GPU runs no MLAS */
    d.kind = TP_DEVICE_GPU;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &c).compute_ns, gemm, 1e-6);
    tp_graph_destroy(g);
}

TP_TEST(node_dense_conv_expands_unless_blocked) {
    tp_device_model d = flat_model(1, 1);
    d.vector_floats = 16;
    d.im2col_gbps = 4;
    /* 3x3, 58 -> 24 channels, 64 output pixels: k = 522 */
    tp_op_cost oc = dense_conv(64, 58, 9, 24);
    double gemm = (double)oc.flops / tp_device_gemm_gflops(&d, TP_DTYPE_F32, 64, 522, 24);
    double cols = 64.0 * 522 * 4 / 4; /* bytes of the column buffer at 4 bytes per ns */
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, gemm + cols, 1e-6);
    /* 3 input channels (under the block) are read in NCHW: NCHWc, no im2col; its 24 filters
       computed as 32 (whole blocks) */
    oc.conv_cin = 3;
    oc.gemm_k = 27;
    oc.flops = 2 * 64 * 27 * 24;
    double blocked =
        (double)oc.flops * 32 / 24 / tp_device_gemm_gflops(&d, TP_DTYPE_F32, 64, 27, 32);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, blocked, 1e-6);
    /* 20 input channels: aligned to 4, NCHWc (any output channels, padded), its blocked input
       read as 32 channels */
    oc.conv_cin = 20;
    oc.gemm_k = 180;
    oc.flops = 2 * 64 * 180 * 24;
    blocked = (double)oc.flops * (32.0 / 24) * (32.0 / 20) /
              tp_device_gemm_gflops(&d, TP_DTYPE_F32, 64, 288, 32);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, blocked, 1e-6);
    /* a 1-D or 3-D convolution is never blocked */
    oc.conv_cin = 58;
    oc.gemm_k = 522;
    oc.flops = 2 * 64 * 522 * 24;
    oc.spatial_rank = 3;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, gemm + cols, 1e-6);
    /* 1x1, stride 1, unpadded: multiplies the input directly, and the GEMM packs it (the
       input's bytes read and written at the memory curve, 1 byte per ns here); not in NCHWc */
    oc.conv_expands = false;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, gemm + 2 * 64.0 * 522 * 4, 1e-6);
    oc.spatial_rank = 2;
    oc.conv_cin = 64; /* aligned: NCHWc's pointwise kernel, no packing */
    oc.gemm_k = 64;
    oc.flops = 2 * 64 * 64 * 24;
    TP_CHECK_NEAR(
        tp_node_cost_eval(&d, 0, &oc).compute_ns,
        (double)oc.flops * (32.0 / 24) / tp_device_gemm_gflops(&d, TP_DTYPE_F32, 64, 64, 32), 1e-6);
    oc.spatial_rank = 3;
    oc.conv_cin = 58;
    oc.gemm_k = 522;
    oc.flops = 2 * 64 * 522 * 24;
    /* a GPU runs no MLAS convolution */
    oc.conv_expands = true;
    d.kind = TP_DEVICE_GPU;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, gemm, 1e-6);
}

/* A convolution in NCHWc computes whole channel blocks, and MLAS runs its filter blocks in sets
   of up to four: a set of one block runs at the lower of the curve's rate and the calibrated
   depthwise rate (the same six accumulator chains) times the threads (docs/cost.md, "Session
   24"). Depthwise channels are padded too; an AVX2 block of 8 and a plain convolution keep the
   full rate. */
TP_TEST(nchwc_padded_channels_and_filter_sets) {
    tp_device_model d = flat_model(1, 1);
    d.n_gemm = 1;
    d.gemm[0].gflops = 10; /* 10 flops per ns at every shape */
    d.vector_floats = 16;
    d.dwconv_gflops = 5; /* a set of one block: 5 flops per ns at one thread */
    /* 3x3, 64 -> 64 channels, 64 output pixels: four blocks, one set of four */
    tp_op_cost oc = dense_conv(64, 64, 9, 64);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops / 10, 1e-6);
    /* 48 filters: one set of three, full rate; 40 are computed as 48 */
    oc = dense_conv(64, 64, 9, 48);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops / 10, 1e-6);
    oc = dense_conv(64, 64, 9, 40);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops * 48 / 40 / 10, 1e-6);
    /* 16 filters: one set of one block, at the depthwise rate */
    oc = dense_conv(64, 64, 9, 16);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops / 5, 1e-6);
    /* two threads: the dense kernel splits the set between them (10 flops per ns, the curve's) */
    tp_device_model pool = d;
    pool.threads = 2;
    TP_CHECK_NEAR(tp_node_cost_eval(&pool, 0, &oc).compute_ns, (double)oc.flops / 10, 1e-6);
    /* 80 filters: a set of four blocks at 10 and a set of one at 5 */
    oc = dense_conv(64, 64, 9, 80);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns,
                  (double)oc.flops * (4.0 / 5 / 10 + 1.0 / 5 / 5), 1e-6);
    /* without a measured depthwise rate: the curve's */
    d.dwconv_gflops = 0;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops / 10, 1e-6);
    d.dwconv_gflops = 5;
    /* 40 input channels of a blocked input are read as 48 (and 16 filters as one set) */
    oc = dense_conv(64, 40, 9, 16);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops * 48 / 40 / 5, 1e-6);
    /* AVX2's block of 8: no padding of 40 channels, the curve's rate */
    d.vector_floats = 8;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops / 10, 1e-6);
    /* a 1-D convolution is never blocked: im2col at the memory rate (1 byte per ns) */
    d.vector_floats = 16;
    oc.spatial_rank = 1;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns,
                  (double)oc.flops / 10 + 64.0 * 360 * 4 / 1.0, 1e-6);
    /* a depthwise one: its 24 channels computed as 32, at the depthwise rate */
    oc.spatial_rank = 2;
    oc.kernel = TP_KERNEL_DEPTHWISE;
    oc.conv_cin = 1;
    oc.gemm_n = 24;
    oc.gemm_batch = 24;
    oc.gemm_k = 9;
    oc.flops = 2 * 64 * 9 * 24;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, (double)oc.flops * 32 / 24 / 5, 1e-6);
}

/* LSTM / GRU / RNN (a custom node of the ONNX importer): the input projection of every step as
   one GEMM, then the steps one after another, each a roofline of the few-row arithmetic against
   reading R again. Hand-computed on a GRU of 10 steps, batch 1, input 8, hidden 4. */
TP_TEST(recurrent_steps_read_r_every_step) {
    tp_graph *g = new_graph();
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 3, (int64_t[]){10, 1, 8});
    tp_node_id w = par(g, "w", TP_DTYPE_F32, 3, (int64_t[]){1, 12, 8});
    tp_node_id r = par(g, "r", TP_DTYPE_F32, 3, (int64_t[]){1, 12, 4});
    tp_op gru = {.kind = TP_OP_CUSTOM};
    gru.attrs.custom.name = "GRU";
    gru.attrs.custom.n_inputs = 3;
    tp_node_id y =
        op(g, gru, (tp_node_id[]){x, w, r}, 3, TP_DTYPE_F32, 4, (int64_t[]){10, 1, 1, 4});
    TP_CHECK_OK(tp_graph_mark_output(g, y, err), err);
    tp_op_cost c = acc(g, y);
    TP_CHECK(c.cls == TP_COST_GEMM && c.kernel == TP_KERNEL_RECURRENT);
    TP_CHECK_EQ_U64(c.gemm_m, 1);      /* batch rows */
    TP_CHECK_EQ_U64(c.gemm_k, 4);      /* hidden */
    TP_CHECK_EQ_U64(c.gemm_n, 12);     /* 3 gates x hidden */
    TP_CHECK_EQ_U64(c.gemm_batch, 10); /* steps x directions, one after another */
    TP_CHECK_EQ_U64(c.rec_proj_flops, 2 * 10 * 8 * 12);
    TP_CHECK_EQ_U64(c.rec_proj_m, 10);
    TP_CHECK_EQ_U64(c.rec_input, 8);
    /* projection 1920 + recurrence 2 * 10 * 4 * 12 = 960 + gates 10 * 12 * 8 = 960 */
    TP_CHECK_EQ_U64(c.flops, 1920 + 960 + 960);
    /* a step reads R (4 * 12 floats = 192 bytes) at 0.5 GB/s: 384 ns, against 96 flops at
       1 GFLOP/s: the read decides; the projection 1920 ns, the gates 960 ns */
    tp_device_model d = flat_model(1, 100);
    d.n_read = 1;
    d.read[0] = (tp_bw_point){1 << 20, 0.5};
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &c).compute_ns, 1920 + 10 * 384.0 + 960, 1e-6);
    /* a fast read: the arithmetic decides (96 ns a step) */
    d.read[0].gbps = 100;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &c).compute_ns, 1920 + 10 * 96.0 + 960, 1e-6);
    /* one thread of a measured CPU that carries its runtime's node cost and a cached-pass rate:
       a step pays one node (50 ns) and reads R at the cached rate while R fits the cache (192
       bytes at 2 GB/s: 96 ns), 146 ns against the 96 of the arithmetic */
    d.read[0].gbps = 0.5;
    d.threads = 1;
    d.runtime_node_ns = 50;
    d.mem_gbps = 1;
    d.cache_gbps = 2;
    d.cache_bytes = 4096;
    d.mem_set_bytes = 1 << 20;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &c).compute_ns, 1920 + 10 * 146.0 + 960, 1e-6);
    /* R beyond the cache point: the memory curve's pass rate at R's size (session 27: the
       step down from the cache rate, not the read curve's first point at once) */
    d.cache_bytes = 64;
    double rate = tp_device_mem_gbps(&d, 192);
    TP_CHECK(rate > 1 && rate < 2);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &c).compute_ns, 1920 + 10 * (50 + 192 / rate) + 960,
                  1e-6);
    /* several threads keep the read curve's rate (384 ns a step) */
    d.threads = 2;
    d.cache_bytes = 4096;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &c).compute_ns, 1920 + 10 * 384.0 + 960, 1e-6);
    /* any other custom op stays a memory pass */
    gru.attrs.custom.name = "host_thing";
    tp_node_id z =
        op(g, gru, (tp_node_id[]){x, w, r}, 3, TP_DTYPE_F32, 4, (int64_t[]){10, 1, 1, 4});
    TP_CHECK(acc(g, z).cls == TP_COST_MEMORY);
    tp_graph_destroy(g);
}

/* A recurrent node's account, batch 1: `steps` steps against R (hidden k × gates n), `flops` in
   all, of which `proj_flops` the input projection (proj_m rows of `input`). */
static tp_op_cost recurrent_cost(uint64_t k, uint64_t n, uint64_t steps, uint64_t flops,
                                 uint64_t proj_flops, uint64_t proj_m, uint64_t input) {
    tp_op_cost oc = {.cls = TP_COST_GEMM,
                     .kernel = TP_KERNEL_RECURRENT,
                     .launches = 1,
                     .flops = flops,
                     .gemm_m = 1,
                     .gemm_k = k,
                     .gemm_n = n,
                     .gemm_batch = steps,
                     .rec_proj_flops = proj_flops,
                     .rec_proj_m = proj_m,
                     .rec_input = input,
                     .compute_dtype = TP_DTYPE_F32};
    return oc;
}

/* Several threads of a measured CPU (a pool with a measured wake-up): MLAS splits a step's GEMM
   over the pool when it has at least 65,536 multiply-adds, each thread reading its share of R
   (half, at two threads) at its part of the pool's cached-pass rate (cache_gbps / threads, since
   session 27) while it fits the triad's working set, past the read curve's first point at its
   part of the curve's bandwidth, log-linearly in between; a split step pays two wake-ups. A
   smaller step runs on the calling thread and reads all of R. Ten steps of a GRU of hidden 256 (R
   = 256 x 768 floats) and of hidden 64 (64 x 192), batch 1. */
TP_TEST(recurrent_steps_split_over_a_pool) {
    tp_device_model d = flat_model(1, 1);
    d.threads = 2;
    d.runtime_node_ns = 50;
    d.wake_ns = 10;
    d.cache_gbps = 0.02; /* the pool's: 0.01 a thread */
    d.cache_bytes = 1 << 20;
    d.n_read = 1;
    d.read[0] = (tp_bw_point){4 << 20, 0.004};
    tp_op_cost oc = recurrent_cost(256, 768, 10, 10 * 2 * 256 * 768, 0, 1, 1);
    double share = 256.0 * 768 * 4 / 2; /* 393,216 bytes a thread, in the cache */
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 10 * (50 + share / 0.01 + 20), 1e-3);
    /* past the curve's first point: a thread's part of its bandwidth (0.002 GB/s) */
    d.cache_bytes = 1 << 16;
    d.read[0].bytes = 1 << 18;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 10 * (50 + share / 0.002 + 20), 1e-3);
    /* in between (cache 128 KiB, first point 1 MiB): log(3) / log(8) of the way down */
    d.cache_bytes = 1 << 17;
    d.read[0].bytes = 1 << 20;
    double rate = 0.01 + log(3.0) / log(8.0) * (0.002 - 0.01); /* from a thread's 0.01 */
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 10 * (50 + share / rate + 20), 1e-3);
    /* hidden 64: 12,288 multiply-adds a step, not split: all of R (49,152 bytes), no wake-up */
    d.cache_bytes = 1 << 20;
    d.read[0].bytes = 4 << 20;
    oc.gemm_k = 64;
    oc.gemm_n = 192;
    oc.flops = 10 * 2 * 64 * 192;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 10 * (50 + 49152 / 0.01), 1e-3);
    /* with a small kernel call's cost (runtime_group_ns) a step pays that, not a node */
    d.runtime_group_ns = 5;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 10 * (5 + 49152 / 0.01), 1e-3);
}

/* A step reads R with full-width vector loads (session 29): where the calibration's multi-stream
   read curve is faster than the cached-pass rate of R's size, the step reads R at that curve's
   rate at R's size, at least at its first point; where it is slower, nothing changes. One thread
   of a measured CPU, then a pool of two whose split step reads a thread's part of the pool's
   curve at the pool's working set. Ten steps of a GRU of hidden 256 (R = 786,432 bytes) and 1024
   (R = 12 MiB), batch 1. */
TP_TEST(recurrent_step_reads_r_with_vector_loads) {
    tp_device_model d = flat_model(1000, 1); /* the arithmetic never decides */
    d.threads = 1;
    d.runtime_node_ns = 50;
    d.runtime_group_ns = 5;
    d.mem_gbps = 1;
    d.cache_gbps = 2;
    d.cache_bytes = 1 << 20; /* R fits: the cached-pass rate, 2 GB/s */
    d.mem_set_bytes = 64 << 20;
    d.n_read = 2;
    d.read[0] = (tp_bw_point){4 << 20, 1.5};
    d.read[1] = (tp_bw_point){16 << 20, 1.0};
    tp_op_cost oc = recurrent_cost(256, 768, 10, 10 * 2 * 256 * 768, 0, 1, 1);
    double r = 256.0 * 768 * 4;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 10 * (5 + r / 2.0), 1e-3);
    /* a multi-stream curve slower than the cache rate: unchanged */
    d.n_read_streams = 2;
    d.read_streams[0] = (tp_bw_point){4 << 20, 1.8};
    d.read_streams[1] = (tp_bw_point){16 << 20, 1.2};
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 10 * (5 + r / 2.0), 1e-3);
    /* faster: R (below the curve's first point) at the first point's 3 GB/s */
    d.read_streams[0].gbps = 3;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 10 * (5 + r / 3.0), 1e-3);
    /* an R of 12 MiB: the curve at its size (log-linear between 3 and 1.2), against the memory
       pass rate there */
    tp_op_cost big = recurrent_cost(1024, 3072, 10, 10 * 2 * 1024 * 3072, 0, 1, 1);
    double rb = 1024.0 * 3072 * 4;
    double vec = tp_device_read_streams_gbps(&d, rb);
    TP_CHECK(vec > 1.2 && vec < 3 && vec > tp_device_mem_gbps(&d, (uint64_t)rb));
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &big).compute_ns, 10 * (5 + rb / vec), 1e-3);
    /* a pool of two: the split step's thread reads half of R at half the pool's curve at R's
       size (2 GB/s a thread here), above its part of the cached-pass rate (0.01) */
    d.threads = 2;
    d.wake_ns = 10;
    d.cache_gbps = 0.02;
    d.read_streams[0].gbps = 4;
    double share = r / 2;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 10 * (5 + share / 2.0 + 20), 1e-3);
    /* without a multi-stream curve: its part of the cached-pass rate, as before */
    d.n_read_streams = 0;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 10 * (5 + share / 0.01 + 20), 1e-3);
}

/* A step of a recurrent node on a measured CPU that carries a small kernel call's cost
   (runtime_group_ns): onnxruntime walks the steps inside one node, so a step pays one MLAS call
   (20 ns here), not a node (50), and its arithmetic and the gates run at the rate of all steps'
   rows as one product (the square curve's small points hold a call's overhead, now the fixed
   cost). Hand-computed on the GRU of recurrent_steps_read_r_every_step (10 steps, batch 1, input
   8, hidden 4), one thread; square curve 1 GFLOP/s at 4, 10 at 7: one step's 1 x 4 x 12
   (cube root 3.6) at 1, all ten steps' rows (cube root 7.8) at 10. */
TP_TEST(recurrent_step_pays_a_kernel_call) {
    tp_device_model d = flat_model(1, 1);
    d.n_gemm = 2;
    d.gemm[0] = (tp_gemm_point){4, 1};
    d.gemm[1] = (tp_gemm_point){7, 10};
    d.n_skinny = 0;
    d.threads = 1;
    d.runtime_node_ns = 50;
    d.mem_gbps = 1;
    d.cache_gbps = 2;
    d.cache_bytes = 4096;
    d.mem_set_bytes = 1 << 20;
    d.n_read = 1;
    d.read[0] = (tp_bw_point){1 << 20, 0.5};
    tp_op_cost oc = recurrent_cost(4, 12, 10, 1920 + 960 + 960, 1920, 10, 8);
    /* no call cost: a node a step (50 + R's 192 bytes at 2 GB/s = 146 ns, against 96 flops at
       1 GFLOP/s), the gates' 960 flops at 1; the projection (cube root 9.9) at 10: 192 ns */
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 192 + 10 * 146.0 + 960, 1e-6);
    /* a call a step: 20 + 96 = 116 ns against 9.6 of the arithmetic; the gates at 10: 96 ns */
    d.runtime_group_ns = 20;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 192 + 10 * 116.0 + 96, 1e-6);
    /* a catalog or default model keeps one step's rows and no fixed cost of its own */
    d.source = TP_SOURCE_CATALOG;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 192 + 10 * 384.0 + 960, 1e-6);
}

/* Weights streamed from memory (docs/cost.md): a GEMM with constant weights adds the share of
   its weight bytes that the run's weight set reads from memory, at gemm_stream_gbps, to its
   arithmetic at the square curve's rate (the skinny curve no longer applies). */
TP_TEST(weights_streamed_from_memory) {
    tp_device_model d = flat_model(100, 1);
    d.n_skinny = 1;
    d.skinny[0] = (tp_gemm_point){64, 10}; /* would price 16 rows at 10 GFLOP/s */
    d.n_read = 2;
    d.read[0] = (tp_bw_point){1000, 4};   /* cache: 0.25 ns per byte */
    d.read[1] = (tp_bw_point){100000, 1}; /* memory: 1 ns per byte */
    tp_op_cost oc = {.cls = TP_COST_GEMM,
                     .launches = 1,
                     .flops = 2 * 16 * 100 * 100,
                     .bytes_read = 40000 + 6400,
                     .bytes_written = 6400,
                     .weight_bytes = 40000,
                     .gemm_m = 16,
                     .gemm_k = 100,
                     .gemm_n = 100,
                     .gemm_batch = 1,
                     .activation_rows = true,
                     .compute_dtype = TP_DTYPE_F32};
    /* no stream rate measured: the skinny curve, no stream term */
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 320000.0 / 10, 1e-9);
    d.gemm_stream_gbps = 2;
    /* the share: 0 at or below the curve's first point, 1 at or beyond its last, in between
       by the time per byte (at 10,000 bytes: 1 / read = 0.25 + 0.5 · 0.75) */
    TP_CHECK_NEAR(tp__weight_stream_share(&d, 500), 0, 0);
    TP_CHECK_NEAR(tp__weight_stream_share(&d, 1e9), 1, 0);
    double at = 1.0 / tp_device_read_gbps(&d, 10000);
    TP_CHECK_NEAR(tp__weight_stream_share(&d, 10000), (at - 0.25) / 0.75, 1e-12);
    TP_CHECK(at > 0.25 && at < 1);
    /* one node alone: its 40,000 weight bytes are the set: share (1/read(40000) - 0.25) / 0.75 */
    double share = tp__weight_stream_share(&d, 40000);
    TP_CHECK(share > 0 && share < 1);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 320000.0 / 100 + 40000 * share / 2,
                  1e-6);
    /* no weights (two activations): arithmetic only */
    oc.weight_bytes = 0;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 320000.0 / 100, 1e-9);
    /* a convolution's few rows are filters: the skinny curve still prices them */
    oc.activation_rows = false;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 320000.0 / 10, 1e-9);
    /* a short reduction (k below the skinny curve's last point) is skinny for matmuls too */
    oc.activation_rows = true;
    oc.gemm_m = 100;
    oc.gemm_k = 16;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).compute_ns, 320000.0 / 10, 1e-9);
    d.gemm_stream_gbps = -1;
    TP_CHECK_STATUS(tp_device_model_validate(&d, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "gemm_stream_gbps");
}

/* A GEMM whose first operand a denormal-masked Softmax wrote (TP_NODE_DENORMAL_OUT) pays, at
   the masked share of the operand's elements (a causal mask's: (q - 1) / 2k of q x k scores),
   ceil(n / lanes) assists of denormal_ns each, the threads sharing them; no flag, or no
   measured cost, adds nothing (docs/cost.md, "Denormal attention masks"). */
TP_TEST(denormal_operand_assists) {
    tp_graph *g = new_graph();
    tp_node_id s = in(g, "s", TP_DTYPE_F32, 3, (int64_t[]){8, 49, 49});
    tp_node_id v = in(g, "v", TP_DTYPE_F32, 3, (int64_t[]){8, 49, 40});
    tp_op sm = {.kind = TP_OP_SOFTMAX};
    sm.attrs.axis.axis = -1;
    tp_node_id p = op(g, sm, (tp_node_id[]){s}, 1, TP_DTYPE_F32, 3, (int64_t[]){8, 49, 49});
    tp_node_id y = op(g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){p, v}, 2, TP_DTYPE_F32, 3,
                      (int64_t[]){8, 49, 40});
    tp_op_cost plain = acc(g, y);
    TP_CHECK_EQ_U64(plain.denormal_elems, 0);
    TP_CHECK_OK(tp_graph_set_flags(g, p, TP_NODE_DENORMAL_OUT, err), err);
    tp_op_cost oc = acc(g, y);
    TP_CHECK_EQ_U64(oc.denormal_elems, (uint64_t)(8 * 49 * 49 * (48.0 / 98.0)));
    tp_device_model d = flat_model(100, 1);
    d.vector_floats = 16;
    double base = tp_node_cost_eval(&d, y, &oc).compute_ns;
    TP_CHECK_NEAR(base, tp_node_cost_eval(&d, y, &plain).compute_ns, 1e-9); /* not measured */
    d.denormal_ns = 50;
    /* 40 columns: 3 vectors of 16 per element */
    TP_CHECK_NEAR(tp_node_cost_eval(&d, y, &oc).compute_ns - base,
                  (double)oc.denormal_elems * 3 * 50, 1e-6);
    d.threads = 2;
    double base2 = tp_node_cost_eval(&d, y, &plain).compute_ns;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, y, &oc).compute_ns - base2,
                  (double)oc.denormal_elems * 3 * 50 / 2, 1e-6);
    d.denormal_ns = -1;
    TP_CHECK_STATUS(tp_device_model_validate(&d, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "denormal_ns");
    tp_graph_destroy(g);
}

/* A Softmax whose mask underflows exp() (TP_NODE_EXP_UNDERFLOW) pays 1.3 assists of
   denormal_ns per vector of its masked scores (3.3 with a fill in exp's denormal band) and 2.5
   per row holding some, the threads sharing them; the masked share is a causal mask's, none for one
   query row (a decode step); no flag, or no measured cost, adds nothing (docs/cost.md, "Masked
   Softmax"). */
TP_TEST(masked_softmax_underflow) {
    tp_graph *g = new_graph();
    tp_node_id s = in(g, "s", TP_DTYPE_F32, 3, (int64_t[]){12, 64, 64});
    tp_node_id s1 = in(g, "s1", TP_DTYPE_F32, 3, (int64_t[]){12, 1, 65});
    tp_op sm = {.kind = TP_OP_SOFTMAX};
    sm.attrs.axis.axis = -1;
    tp_node_id p = op(g, sm, (tp_node_id[]){s}, 1, TP_DTYPE_F32, 3, (int64_t[]){12, 64, 64});
    tp_node_id p1 = op(g, sm, (tp_node_id[]){s1}, 1, TP_DTYPE_F32, 3, (int64_t[]){12, 1, 65});
    tp_op_cost plain = acc(g, p);
    TP_CHECK_EQ_U64(plain.underflow_elems, 0);
    TP_CHECK_OK(tp_graph_set_flags(g, p, TP_NODE_EXP_UNDERFLOW, err), err);
    TP_CHECK_OK(tp_graph_set_flags(g, p1, TP_NODE_EXP_UNDERFLOW, err), err);
    tp_op_cost oc = acc(g, p);
    TP_CHECK_EQ_U64(oc.underflow_elems, 12 * 63 * 64 / 2); /* the strict upper triangle */
    TP_CHECK_EQ_U64(oc.underflow_rows, 12 * 63);           /* every row but the first */
    TP_CHECK(!oc.exp_denormal);
    TP_CHECK_EQ_U64(acc(g, p1).underflow_elems, 0);
    TP_CHECK_EQ_U64(acc(g, p1).underflow_rows, 0);
    tp_device_model d = flat_model(100, 1);
    d.vector_floats = 16;
    double base = tp_node_cost_eval(&d, p, &plain).total_ns;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, p, &oc).total_ns, base, 1e-9); /* not measured */
    d.denormal_ns = 50;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, p, &oc).total_ns - base,
                  ((double)oc.underflow_elems / 16 * 1.3 + 12 * 63 * 2.5) * 50, 1e-6);
    TP_CHECK_OK(tp_graph_set_flags(g, p, TP_NODE_EXP_UNDERFLOW | TP_NODE_DENORMAL_OUT, err), err);
    tp_op_cost band = acc(g, p);
    TP_CHECK(band.exp_denormal);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, p, &band).total_ns - base,
                  ((double)band.underflow_elems / 16 * 3.3 + 12 * 63 * 2.5) * 50, 1e-6);
    d.threads = 2;
    double base2 = tp_node_cost_eval(&d, p, &plain).total_ns;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, p, &band).total_ns - base2,
                  ((double)band.underflow_elems / 16 * 3.3 + 12 * 63 * 2.5) * 50 / 2, 1e-6);
    tp_graph_destroy(g);
}

/* Where is priced as onnxruntime's CPU kernel runs it on a measured CPU: three passes' bytes
   (cond and X into an output-sized selection, cond and Y into one of their broadcast shape, the
   merge into the output), on the calling thread alone, without a fork; a catalog device keeps
   one pass over the pool (docs/cost.md, "Where"). */
TP_TEST(where_as_onnxruntime_runs_it) {
    tp_graph *g = new_graph();
    tp_node_id c = in(g, "c", TP_DTYPE_BOOL, 4, (int64_t[]){1, 1, 64, 64});
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 4, (int64_t[]){1, 12, 64, 64});
    tp_node_id y = in(g, "y", TP_DTYPE_F32, 0, NULL);
    tp_node_id w = op(g, (tp_op){.kind = TP_OP_WHERE}, (tp_node_id[]){c, x, y}, 3, TP_DTYPE_F32, 4,
                      (int64_t[]){1, 12, 64, 64});
    tp_op_cost oc = acc(g, w);
    const uint64_t cb = 64 * 64, xb = 12 * 64 * 64 * 4, ysel = 64 * 64 * 4;
    TP_CHECK_EQ_U64(oc.bytes_read + oc.bytes_written, cb + xb + 4 + xb); /* one pass */
    TP_CHECK_EQ_U64(oc.select_bytes, (cb + xb + xb) + (cb + 4 + ysel) + (xb + ysel + xb));
    tp_device_model d = flat_model(100, 10);
    d.threads = 2;
    d.runtime_node_ns = 500;
    tp_node_cost nc = tp_node_cost_eval(&d, w, &oc);
    TP_CHECK_NEAR(nc.memory_ns, (double)oc.select_bytes / 10 * 2, 1e-6);
    TP_CHECK_NEAR(nc.dispatch_ns, 500, 1e-9); /* no fork */
    d.source = TP_SOURCE_CATALOG;
    nc = tp_node_cost_eval(&d, w, &oc);
    TP_CHECK_NEAR(nc.memory_ns, (double)(oc.bytes_read + oc.bytes_written) / 10, 1e-6);
    tp_graph_destroy(g);
}

/* Inside a graph, the run's weight set is every GEMM's weights: a 2-layer MLP whose weights
   together exceed the read curve's last point streams all of them, each layer alone would not. */
TP_TEST(weight_set_of_a_run) {
    tp_graph *g = new_graph();
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 2, (int64_t[]){16, 1024});
    tp_node_id w1 = par(g, "w1", TP_DTYPE_F32, 2, (int64_t[]){1024, 1024});
    tp_node_id w2 = par(g, "w2", TP_DTYPE_F32, 2, (int64_t[]){1024, 1024});
    tp_node_id h = op(g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x, w1}, 2, TP_DTYPE_F32, 2,
                      (int64_t[]){16, 1024});
    tp_node_id y = op(g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){h, w2}, 2, TP_DTYPE_F32, 2,
                      (int64_t[]){16, 1024});
    TP_CHECK_OK(tp_graph_mark_output(g, y, err), err);
    TP_CHECK_EQ_U64(acc(g, h).weight_bytes, 4u << 20);
    TP_CHECK_EQ_U64(acc(g, y).weight_bytes, 4u << 20);
    tp_device_model d = flat_model(100, 10);
    d.gemm_stream_gbps = 1;
    d.n_read = 2;
    d.read[0] = (tp_bw_point){1 << 20, 10};
    d.read[1] = (tp_bw_point){8 << 20, 1}; /* the two weights (8 MiB) are beyond it */
    tp_graph_cost c;
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &c, err), err);
    double flops = 2.0 * 16 * 1024 * 1024;
    TP_CHECK_NEAR(c.nodes[h].compute_ns, flops / 100 + (4u << 20), 1e-6);
    /* the same node alone: 4 MiB of weights, part of them from cache */
    tp_op_cost oc = acc(g, h);
    TP_CHECK(tp_node_cost_eval(&d, h, &oc).compute_ns < c.nodes[h].compute_ns);
    tp_graph_cost_destroy(&c);
    tp_graph_destroy(g);
}

/* Row normalizations (layer, RMS, group, instance) at the calibrated normalization rate when
   it is slower than the stream; batch normalization (a per-channel scale) keeps the stream. */
TP_TEST(row_normalization_rate) {
    tp_graph *g = new_graph();
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 2, (int64_t[]){128, 768});
    tp_node_id ga = par(g, "g", TP_DTYPE_F32, 1, (int64_t[]){768});
    tp_node_id be = par(g, "b", TP_DTYPE_F32, 1, (int64_t[]){768});
    tp_node_id ln = op(g, (tp_op){.kind = TP_OP_NORM, .sub = TP_NORM_LAYER},
                       (tp_node_id[]){x, ga, be}, 3, TP_DTYPE_F32, 2, (int64_t[]){128, 768});
    tp_node_id bn = op(g, (tp_op){.kind = TP_OP_NORM, .sub = TP_NORM_BATCH},
                       (tp_node_id[]){x, ga, be}, 3, TP_DTYPE_F32, 2, (int64_t[]){128, 768});
    tp_op_cost l = acc(g, ln), b = acc(g, bn);
    TP_CHECK(l.kernel == TP_KERNEL_ROWNORM);
    TP_CHECK(b.kernel == TP_KERNEL_GENERIC);
    tp_device_model d = flat_model(100, 10);
    double bytes = (double)(l.bytes_read + l.bytes_written);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, ln, &l).memory_ns, bytes / 10, 1e-6); /* not measured */
    d.norm_gbps = 2;
    TP_CHECK_NEAR(tp_node_cost_eval(&d, ln, &l).memory_ns, bytes / 2, 1e-6);
    TP_CHECK_NEAR(tp_node_cost_eval(&d, bn, &b).memory_ns, bytes / 10, 1e-6);
    d.norm_gbps = 50; /* faster than the stream: the stream */
    TP_CHECK_NEAR(tp_node_cost_eval(&d, ln, &l).memory_ns, bytes / 10, 1e-6);
    tp_graph_destroy(g);
}

/* x + r -> LayerNormalization, every node built on `s` (a [batch?, rows, 256] shape); the
   normalization is the output. *add and *ln receive the two nodes. */
static tp_graph *skip_norm_graph(bool batch_sym, bool rows_sym, tp_node_id *add, tp_node_id *ln) {
    tp_graph *g = new_graph();
    tp_dim b = tp_dim_static(1), r = tp_dim_static(200);
    if (batch_sym) TP_CHECK_OK(tp_graph_symbol(g, "batch", &b, err), err);
    if (rows_sym) TP_CHECK_OK(tp_graph_symbol(g, "seq", &r, err), err);
    tp_shape s = tp_shape_make(3, (tp_dim[]){b, r, tp_dim_static(256)});
    tp_node_id x = -1, y = -1;
    TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &s, &x, err), err);
    TP_CHECK_OK(tp_graph_add_input(g, "r", TP_DTYPE_F32, &s, &y, err), err);
    tp_node_id ga = par(g, "g", TP_DTYPE_F32, 1, (int64_t[]){256});
    tp_node_id be = par(g, "b", TP_DTYPE_F32, 1, (int64_t[]){256});
    tp_op o = {.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD};
    TP_CHECK_OK(
        tp_graph_add_op_shaped(g, &o, (tp_node_id[]){x, y}, 2, &s, TP_DTYPE_F32, NULL, add, err),
        err);
    tp_op n = {.kind = TP_OP_NORM, .sub = TP_NORM_LAYER};
    n.attrs.norm.axis = -1;
    TP_CHECK_OK(tp_graph_add_op_shaped(g, &n, (tp_node_id[]){*add, ga, be}, 3, &s, TP_DTYPE_F32,
                                       NULL, ln, err),
                err);
    TP_CHECK_OK(tp_graph_mark_output(g, *ln, err), err);
    if (batch_sym) TP_CHECK_OK(tp_graph_bind(g, "batch", 1, err), err);
    if (rows_sym) TP_CHECK_OK(tp_graph_bind(g, "seq", 200, err), err);
    return g;
}

/* onnxruntime fuses a residual Add of two rank-3 addends whose dims it knows into the layer
   normalization after it (SkipLayerNormalization), whose row statistics are a running mean,
   element after element: priced at the calibrated skip_norm_gbps over both addends and the
   output, the Add gone (docs/cost.md, "SkipLayerNormalization"). A symbolic batch still fuses;
   a symbolic row count (unknown to its shape inference) or an Add read twice does not. */
TP_TEST(skip_layer_norm_fusion) {
    tp_device_model d = flat_model(100, 10);
    d.norm_gbps = 5;
    d.skip_norm_gbps = 1.5;
    double elems = 200.0 * 256, params = 2.0 * 256 * 4;
    for (int sym = 0; sym < 2; sym++) {
        tp_node_id add, ln;
        tp_graph *g = skip_norm_graph(sym == 1, false, &add, &ln);
        tp_graph_cost c;
        TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &c, err), err);
        TP_CHECK(c.nodes[add].fused && c.nodes[add].total_ns == 0);
        TP_CHECK(!c.nodes[ln].fused);
        TP_CHECK_EQ_U64(c.nodes[ln].bytes, (uint64_t)(3 * elems * 4 + params));
        TP_CHECK_NEAR(c.nodes[ln].memory_ns, (3 * elems * 4 + params) / 1.5, 1e-6);
        TP_CHECK_EQ_U64(c.fused_nodes, 1);
        /* not measured: the normalization's rate over the same bytes */
        tp_device_model old = d;
        old.skip_norm_gbps = 0;
        tp_graph_cost_destroy(&c);
        TP_CHECK_OK(tp_graph_cost_compute(g, &old, NULL, NULL, &c, err), err);
        TP_CHECK_NEAR(c.nodes[ln].memory_ns, (3 * elems * 4 + params) / 5, 1e-6);
        tp_graph_cost_destroy(&c);
        tp_graph_destroy(g);
    }
    /* rows onnxruntime's inference does not know: the Add and the normalization apart */
    tp_node_id add, ln;
    tp_graph *g = skip_norm_graph(false, true, &add, &ln);
    tp_graph_cost c;
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &c, err), err);
    TP_CHECK(!c.nodes[add].fused && c.nodes[add].total_ns > 0);
    TP_CHECK_NEAR(c.nodes[ln].memory_ns, (2 * elems * 4 + params) / 5, 1e-6);
    tp_graph_cost_destroy(&c);
    tp_graph_destroy(g);
    /* an addend whose dims come from values computed at run time (vit_b_16's class token
       expanded to a batch read by Shape): unknown to onnxruntime's inference, apart */
    g = skip_norm_graph(true, false, &add, &ln);
    TP_CHECK_OK(
        tp_graph_set_flags(g, tp_graph_node(g, add)->inputs[1], TP_NODE_DIMS_AT_RUNTIME, err), err);
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &c, err), err);
    TP_CHECK(!c.nodes[add].fused);
    tp_graph_cost_destroy(&c);
    tp_graph_destroy(g);
    /* the Add read twice (a pre-norm block's residual stream): apart */
    g = skip_norm_graph(false, false, &add, &ln);
    TP_CHECK_OK(tp_graph_mark_output(g, add, err), err);
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &c, err), err);
    TP_CHECK(!c.nodes[add].fused);
    TP_CHECK_EQ_U64(c.fused_nodes, 0);
    tp_graph_cost_destroy(&c);
    tp_graph_destroy(g);
}

/* A nearest resize by integer scales that onnxruntime runs as a copy is a stream, not priced at
   the calibrated (bilinear) resize rate: the 2× one in plain NCHW (its Upsample 2× kernel), any
   integer scale in the NCHWc layout (after a blocked Conv); a 3× one in plain NCHW, or one
   without int_nearest (another mode or coordinates), keeps the resize rate (docs/cost.md,
   "Session 24"). */
TP_TEST(nearest_resize_copies) {
    tp_device_model d = flat_model(100, 10);
    d.resize_gbps = 1;
    d.vector_floats = 16;
    for (int k = 0; k < 4; k++) {
        /* 0: plain 2×; 1: plain 3×; 2: plain 2× not int_nearest; 3: 3× after a blocked Conv */
        int64_t f = k == 1 || k == 3 ? 3 : 2;
        tp_graph *g = new_graph();
        tp_shape xs = tp_shape_of(4, (int64_t[]){1, 16, 8, 8});
        tp_node_id x = -1;
        TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, err), err);
        tp_node_id src = x;
        if (k == 3) {
            tp_node_id w = par(g, "w", TP_DTYPE_F32, 4, (int64_t[]){16, 16, 1, 1});
            src = op(g, conv_op(TP_OP_CONV, 1, 1, 1, 0, 1), (tp_node_id[]){x, w}, 2, TP_DTYPE_F32,
                     4, (int64_t[]){1, 16, 8, 8});
        }
        tp_op r = {.kind = TP_OP_RESIZE};
        r.attrs.resize.scales[0] = r.attrs.resize.scales[1] = 1;
        r.attrs.resize.scales[2] = r.attrs.resize.scales[3] = (double)f;
        r.attrs.resize.int_nearest = k != 2;
        r.attrs.resize.nchwc = k != 2;
        tp_node_id y =
            op(g, r, (tp_node_id[]){src}, 1, TP_DTYPE_F32, 4, (int64_t[]){1, 16, 8 * f, 8 * f});
        tp_op neg = {.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG};
        tp_node_id z =
            op(g, neg, (tp_node_id[]){y}, 1, TP_DTYPE_F32, 4, (int64_t[]){1, 16, 8 * f, 8 * f});
        TP_CHECK_OK(tp_graph_mark_output(g, z, err), err);
        tp_graph_cost c;
        TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &c, err), err);
        double bytes = (double)c.nodes[y].bytes;
        TP_CHECK(bytes > 0);
        TP_CHECK_NEAR(c.nodes[y].memory_ns, bytes / (k == 0 || k == 3 ? 10 : 1), 1e-6);
        tp_graph_cost_destroy(&c);
        tp_graph_destroy(g);
    }
}

/* An erf GELU, x * 0.5 * (1 + erf(x / sqrt 2)) as PyTorch exports nn.GELU, runs in onnxruntime as
   one Gelu kernel (GeluFusion): its Div, Erf, Add and first Mul cost nothing, the last Mul is
   priced at the calibrated GELU rate over its input and output (docs/cost.md, "GELU"); without
   the rate, one pass of the stream. A Mul read twice keeps the chain apart. */
/* A node of shape `s` (static or symbolic dims). */
static tp_node_id op_shaped(tp_graph *g, tp_op o, const tp_node_id *ins, uint32_t n,
                            const tp_shape *s) {
    tp_node_id id = -1;
    TP_CHECK_OK(tp_graph_add_op_shaped(g, &o, ins, n, s, TP_DTYPE_F32, NULL, &id, err), err);
    return id;
}

/* PyTorch's erf GELU of x as it exports it: Mul(Mul(x, Add(Erf(Div(x, c)), 1)), 0.5), every node of
   x's shape; parts receives the Div, Erf, Add and first Mul; returns the last Mul. */
static tp_node_id erf_gelu(tp_graph *g, tp_node_id x, tp_node_id parts[4]) {
    tp_shape xs = tp_graph_node(g, x)->shape;
    tp_node_id c = par(g, "c", TP_DTYPE_F32, 1, (int64_t[]){1});
    tp_node_id one = par(g, "one", TP_DTYPE_F32, 1, (int64_t[]){1});
    tp_node_id half = par(g, "half", TP_DTYPE_F32, 1, (int64_t[]){1});
    tp_op add = {.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD};
    tp_op mul = {.kind = TP_OP_BINARY, .sub = TP_BINARY_MUL};
    parts[0] = op_shaped(g, (tp_op){.kind = TP_OP_BINARY, .sub = TP_BINARY_DIV},
                         (tp_node_id[]){x, c}, 2, &xs);
    parts[1] = op_shaped(g, (tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_ERF},
                         (tp_node_id[]){parts[0]}, 1, &xs);
    parts[2] = op_shaped(g, add, (tp_node_id[]){parts[1], one}, 2, &xs);
    parts[3] = op_shaped(g, mul, (tp_node_id[]){x, parts[2]}, 2, &xs);
    return op_shaped(g, mul, (tp_node_id[]){parts[3], half}, 2, &xs);
}

TP_TEST(gelu_fusion) {
    for (int shared = 0; shared < 2; shared++) {
        tp_graph *g = new_graph();
        tp_node_id x = in(g, "x", TP_DTYPE_F32, 3, (int64_t[]){1, 64, 256});
        tp_node_id parts[4];
        tp_node_id m2 = erf_gelu(g, x, parts);
        TP_CHECK_OK(tp_graph_mark_output(g, m2, err), err);
        if (shared) TP_CHECK_OK(tp_graph_mark_output(g, parts[3], err), err);
        tp_device_model dm = flat_model(100, 10);
        dm.gelu_gbps = 2;
        tp_graph_cost gc;
        TP_CHECK_OK(tp_graph_cost_compute(g, &dm, NULL, NULL, &gc, err), err);
        for (int k = 0; k < 4; k++)
            TP_CHECK(gc.nodes[parts[k]].fused == !shared);
        double bytes = (double)gc.nodes[m2].bytes;
        TP_CHECK_NEAR(gc.nodes[m2].memory_ns, shared ? bytes / 10 : bytes / 2, 1e-6);
        tp_graph_cost_destroy(&gc);
        if (!shared) {
            dm.gelu_gbps = 0; /* not measured: the stream */
            TP_CHECK_OK(tp_graph_cost_compute(g, &dm, NULL, NULL, &gc, err), err);
            TP_CHECK_NEAR(gc.nodes[m2].memory_ns, bytes / 10, 1e-6);
            TP_CHECK_EQ_U64(gc.fused_nodes, 4);
            tp_graph_cost_destroy(&gc);
        }
        tp_graph_destroy(g);
    }
}

/* An erf GELU after a bias Add (a Linear's output before the activation): onnxruntime fuses both
   into BiasGelu, priced at its own rate (three passes, a scratch tensor, MLAS's FMA3 erf), the
   Gelu's rate without it; the bias Add costs nothing. */
TP_TEST(bias_gelu_fusion) {
    tp_graph *g = new_graph();
    int64_t xs[] = {1, 64, 256};
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 3, xs);
    tp_node_id bias = par(g, "bias", TP_DTYPE_F32, 1, (int64_t[]){256});
    tp_node_id b = op(g, (tp_op){.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD},
                      (tp_node_id[]){x, bias}, 2, TP_DTYPE_F32, 3, xs);
    tp_node_id gelu[4];
    tp_node_id m2 = erf_gelu(g, b, gelu);
    TP_CHECK_OK(tp_graph_mark_output(g, m2, err), err);
    tp_device_model dm = flat_model(100, 10);
    dm.gelu_gbps = 2;
    dm.bias_gelu_gbps = 1;
    tp_graph_cost gc;
    TP_CHECK_OK(tp_graph_cost_compute(g, &dm, NULL, NULL, &gc, err), err);
    TP_CHECK(gc.nodes[b].fused);
    for (int k = 0; k < 4; k++)
        TP_CHECK(gc.nodes[gelu[k]].fused);
    double bytes = (double)gc.nodes[m2].bytes;
    TP_CHECK_NEAR(gc.nodes[m2].memory_ns, bytes / 1, 1e-6);
    tp_graph_cost_destroy(&gc);
    dm.bias_gelu_gbps = 0; /* an older cache: the Gelu's rate */
    TP_CHECK_OK(tp_graph_cost_compute(g, &dm, NULL, NULL, &gc, err), err);
    TP_CHECK_NEAR(gc.nodes[m2].memory_ns, bytes / 2, 1e-6);
    tp_graph_cost_destroy(&gc);
    tp_graph_destroy(g);
}

/* PRelu runs one element at a time with a branch (onnxruntime's CPU kernel): priced at the
   calibrated PRelu rate where that is slower than the stream, as a stream without it. */
TP_TEST(prelu_at_its_own_rate) {
    tp_graph *g = new_graph();
    int64_t xs[] = {1, 16, 4096};
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 3, xs);
    tp_node_id s = par(g, "slope", TP_DTYPE_F32, 2, (int64_t[]){16, 1});
    tp_node_id p = op(g, (tp_op){.kind = TP_OP_BINARY, .sub = TP_BINARY_PRELU},
                      (tp_node_id[]){x, s}, 2, TP_DTYPE_F32, 3, xs);
    TP_CHECK_OK(tp_graph_mark_output(g, p, err), err);
    tp_op_cost oc;
    TP_CHECK_OK(tp_op_account(g, p, &oc, err), err);
    TP_CHECK(oc.kernel == TP_KERNEL_PRELU);
    TP_CHECK_STR(tp_op_name(&tp_graph_node(g, p)->op), "binary.prelu");
    tp_device_model dm = flat_model(100, 10);
    dm.prelu_gbps = 2;
    tp_graph_cost gc;
    TP_CHECK_OK(tp_graph_cost_compute(g, &dm, NULL, NULL, &gc, err), err);
    double bytes = (double)gc.nodes[p].bytes;
    TP_CHECK_NEAR(gc.nodes[p].memory_ns, bytes / 2, 1e-6);
    tp_graph_cost_destroy(&gc);
    dm.prelu_gbps = 20; /* faster than the stream: the stream */
    TP_CHECK_OK(tp_graph_cost_compute(g, &dm, NULL, NULL, &gc, err), err);
    TP_CHECK_NEAR(gc.nodes[p].memory_ns, bytes / 10, 1e-6);
    tp_graph_cost_destroy(&gc);
    dm.prelu_gbps = 0; /* not measured: the stream */
    TP_CHECK_OK(tp_graph_cost_compute(g, &dm, NULL, NULL, &gc, err), err);
    TP_CHECK_NEAR(gc.nodes[p].memory_ns, bytes / 10, 1e-6);
    tp_graph_cost_destroy(&gc);
    tp_graph_destroy(g);
}

/* A Linear's MatMul + bias Add before the GELU: onnxruntime's MatMulAddFusion takes them into a
   Gemm first when it knows the MatMul's input shape whole (then the GELU is a plain Gelu), not
   when a dim is symbolic (then the bias goes into a BiasGelu). */
TP_TEST(bias_gelu_only_without_a_gemm_before_it) {
    for (int sym = 0; sym < 2; sym++) {
        tp_graph *g = new_graph();
        tp_dim batch = tp_dim_static(1);
        if (sym) TP_CHECK_OK(tp_graph_symbol(g, "batch", &batch, err), err);
        tp_shape xs = tp_shape_make(3, (tp_dim[]){batch, tp_dim_static(64), tp_dim_static(256)});
        tp_node_id x = -1;
        TP_CHECK_OK(tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, err), err);
        tp_node_id w = par(g, "w", TP_DTYPE_F32, 2, (int64_t[]){256, 256});
        tp_node_id bias = par(g, "bias", TP_DTYPE_F32, 1, (int64_t[]){256});
        tp_node_id mm = op_shaped(g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x, w}, 2, &xs);
        tp_node_id b = op_shaped(g, (tp_op){.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD},
                                 (tp_node_id[]){mm, bias}, 2, &xs);
        tp_node_id gelu[4];
        tp_node_id m2 = erf_gelu(g, b, gelu);
        TP_CHECK_OK(tp_graph_mark_output(g, m2, err), err);
        if (sym) TP_CHECK_OK(tp_graph_bind(g, "batch", 1, err), err);
        tp_device_model dm = flat_model(100, 10);
        dm.gelu_gbps = 2;
        dm.bias_gelu_gbps = 1;
        tp_graph_cost gc;
        TP_CHECK_OK(tp_graph_cost_compute(g, &dm, NULL, NULL, &gc, err), err);
        double bytes = (double)gc.nodes[m2].bytes;
        TP_CHECK_NEAR(gc.nodes[m2].memory_ns, sym ? bytes / 1 : bytes / 2, 1e-6);
        tp_graph_cost_destroy(&gc);
        tp_graph_destroy(g);
    }
}

/* A global average pooling onnxruntime runs in plain NCHW sums each channel's pixels one add
   after another: priced at the row-normalization rate (docs/cost.md, "Session 15", probe
   probe_gapmul). One whose input is in the NCHWc layout (after a converted Conv) runs MLAS's
   blocked pooling, a stream like before. */
TP_TEST(plain_global_average_pool_at_the_norm_rate) {
    tp_graph *g = new_graph();
    int64_t xs[] = {1, 32, 8, 8}, ps[] = {1, 32, 1, 1};
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 4, xs);
    tp_node_id w = par(g, "w", TP_DTYPE_F32, 4, (int64_t[]){32, 32, 3, 3});
    tp_node_id c =
        op(g, conv_op(TP_OP_CONV, 3, 1, 1, 1, 1), (tp_node_id[]){x, w}, 2, TP_DTYPE_F32, 4, xs);
    tp_op gp = {.kind = TP_OP_POOL, .sub = TP_POOL_GLOBAL_AVG};
    gp.attrs.conv.spatial = 2;
    tp_node_id blocked = op(g, gp, (tp_node_id[]){c}, 1, TP_DTYPE_F32, 4, ps);
    tp_node_id plain = op(g, gp, (tp_node_id[]){x}, 1, TP_DTYPE_F32, 4, ps);
    TP_CHECK_OK(tp_graph_mark_output(g, blocked, err), err);
    TP_CHECK_OK(tp_graph_mark_output(g, plain, err), err);
    tp_device_model d = flat_model(1000, 2);
    d.vector_floats = 16;
    d.norm_gbps = 0.5;
    double bytes = 32.0 * 64 * 4 + 32 * 4;
    tp_graph_cost gc;
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &gc, err), err);
    TP_CHECK_NEAR(gc.nodes[plain].memory_ns, bytes / 0.5, 1e-6);
    TP_CHECK_NEAR(gc.nodes[blocked].memory_ns, bytes / 2, 1e-6);
    tp_graph_cost_destroy(&gc);
    /* not measured: the stream */
    d.norm_gbps = 0;
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &gc, err), err);
    TP_CHECK_NEAR(gc.nodes[plain].memory_ns, bytes / 2, 1e-6);
    tp_graph_cost_destroy(&gc);
    /* not a CPU: no onnxruntime CPU kernel to follow */
    d.norm_gbps = 0.5;
    d.kind = TP_DEVICE_GPU;
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &gc, err), err);
    TP_CHECK_NEAR(gc.nodes[plain].memory_ns, bytes / 2, 1e-6);
    tp_graph_cost_destroy(&gc);
    tp_graph_destroy(g);
}

TP_TEST(cache_bandwidth_curve) {
    tp_device_model d = flat_model(1, 1);
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 10), 1, 0); /* no cache point: mem_gbps */
    d.cache_gbps = 4;
    d.cache_bytes = 1000;
    d.mem_set_bytes = 100000;
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 10), 4, 0);
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 1000), 4, 0);
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 10000), 2.5, 1e-12); /* halfway in log(bytes) */
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 100000), 1, 0);
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 1u << 30), 1, 0);
    tp_op_cost oc = {
        .cls = TP_COST_MEMORY, .launches = 1, .bytes_read = 5000, .bytes_written = 5000};
    TP_CHECK_NEAR(tp_node_cost_eval(&d, 0, &oc).memory_ns, 4000, 1e-9);
    d.cache_gbps = 0.5; /* a cache point below the triad is ignored */
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 10), 1, 0);
    d.cache_gbps = -1;
    TP_CHECK_STATUS(tp_device_model_validate(&d, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "cache_gbps");
}

/* With a measured read curve, the passes between the cache point and memory follow the curve,
   not the log-linear line to mem_set_bytes: where the curve is below the triad's memory rate, its
   shape at the triad's level (scaled to meet mem_gbps at mem_set_bytes), at most mem_gbps; where
   it is above (a cache still holds the pass), its own rate, unscaled; below the curve's first
   point a log-linear step from the cache rate. */
TP_TEST(cache_bandwidth_follows_the_read_curve) {
    tp_device_model d = flat_model(1, 1);
    d.cache_gbps = 4;
    d.cache_bytes = 1000;
    d.mem_set_bytes = 100000;
    d.n_read = 2;
    d.read[0] = (tp_bw_point){10000, 0.7}; /* already at memory rates at 10,000 bytes */
    d.read[1] = (tp_bw_point){100000, 0.8};
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 1000), 4, 0);
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 10000), 0.7 * (1 / 0.8), 1e-12); /* the line: 2.5 */
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 3162), 4 + (log(3.162) / log(10)) * (0.875 - 4), 1e-9);
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 100000), 1, 0);
    double mid = tp_device_read_gbps(&d, 40000) * 1.25;
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 40000), mid, 1e-12);
    TP_CHECK(mid > 0.875 && mid < 1);
    /* the scaled shape stops at the memory rate: a curve at 1.0 where memory reads 0.8 */
    d.read[0] = (tp_bw_point){10000, 1.0};
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 10000), 1, 1e-12); /* not 1.25 */
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 40000), 1, 1e-12);
    /* a curve above the memory rate is a cache's: its own rate (a pass there streams no faster
       than a read), not scaled; 3.0 against the triad's 1 and memory's 0.8 reads 3.0, not 3.75 */
    d.read[0] = (tp_bw_point){10000, 3.0};
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 10000), 3.0, 1e-12);
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 3162), 4 + (log(3.162) / log(10)) * (3.0 - 4), 1e-9);
    /* a curve faster than the cache point is capped by it */
    d.read[0] = (tp_bw_point){10000, 8};
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 10000), 4, 0);
    /* a curve that starts inside the cache point: the line */
    d.read[0] = (tp_bw_point){500, 8};
    TP_CHECK_NEAR(tp_device_mem_gbps(&d, 10000), 2.5, 1e-12);
}

/* x[1,4] -> matmul w[4,4] -> relu -> output; optionally a custom op. */
static tp_graph *mlp(bool with_custom) {
    tp_graph *g = new_graph();
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 2, (int64_t[]){1, 4});
    tp_node_id w = par(g, "w", TP_DTYPE_F32, 2, (int64_t[]){4, 4});
    tp_node_id h = op(g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x, w}, 2, TP_DTYPE_F32, 2,
                      (int64_t[]){1, 4});
    tp_node_id y = op(g, (tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU}, (tp_node_id[]){h}, 1,
                      TP_DTYPE_F32, 2, (int64_t[]){1, 4});
    if (with_custom) {
        tp_op cu = {.kind = TP_OP_CUSTOM};
        cu.attrs.custom.name = "host_thing";
        cu.attrs.custom.n_inputs = 1;
        y = op(g, cu, (tp_node_id[]){y}, 1, TP_DTYPE_F32, 2, (int64_t[]){1, 4});
    }
    TP_CHECK_OK(tp_graph_mark_output(g, y, err), err);
    return g;
}

TP_TEST(graph_cost_hand_computed) {
    tp_graph *g = mlp(false);
    tp_device_model d = flat_model(1, 2);
    d.source = TP_SOURCE_CATALOG; /* a dispatch per kernel at 1 thread (measured: none) */
    tp_graph_cost gc;
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &gc, err), err);
    /* matmul: 32 flops -> 32 ns; bytes 16+64+16 = 96 -> 48 ns; + 10 = 58
       relu: the matmul's epilogue (its only consumer): fused, 0
       readback (not unified) = 16 + traffic 128 / 4 = 48 bytes at 1 GB/s = 48 ns
       total = 1000 + 58 + 48 */
    TP_CHECK_EQ_U64(gc.n_nodes, 4);
    TP_CHECK_NEAR(gc.nodes[2].total_ns, 58, 1e-9);
    TP_CHECK_NEAR(gc.nodes[3].total_ns, 0, 0);
    TP_CHECK(gc.nodes[3].fused && !gc.nodes[2].fused);
    TP_CHECK_EQ_U64(gc.fused_nodes, 1);
    TP_CHECK_NEAR(gc.nodes_ns, 58, 1e-9);
    TP_CHECK_NEAR(gc.readback_ns, 48, 1e-9);
    TP_CHECK_NEAR(gc.total_ns, 1106, 1e-9);
    TP_CHECK_EQ_U64(gc.flops, 36);
    uint32_t top[3];
    TP_CHECK_EQ_U64(tp_graph_cost_top(&gc, 3, top), 1);
    TP_CHECK_EQ_U64(top[0], 2);
    tp_graph_cost_destroy(&gc);
    d.unified = true;
    double t = 0;
    TP_CHECK_OK(tp_graph_cost_total(g, &d, NULL, &t, err), err);
    TP_CHECK_NEAR(t, 1074, 1e-9); /* readback 16 bytes only */
    /* the runtime's overheads: per launched (not fused) node and per forward */
    d.runtime_node_ns = 100;
    d.runtime_run_ns = 500;
    /* a CPU that carries its runtime's per-run cost runs the graph in process: that cost
       replaces the round trip (1000 ns) instead of adding to it; a GPU keeps both */
    TP_CHECK_OK(tp_graph_cost_total(g, &d, NULL, &t, err), err);
    TP_CHECK_NEAR(t, 74 + 100 + 500, 1e-9);
    d.kind = TP_DEVICE_CUDA;
    TP_CHECK_OK(tp_graph_cost_total(g, &d, NULL, &t, err), err);
    TP_CHECK_NEAR(t, 1074 + 100 + 500, 1e-9);
    d.kind = TP_DEVICE_CPU;
    d.runtime_node_ns = d.runtime_run_ns = 0;
    /* two threads: the relu-free graph's matmul (body 48 ns) is too small to split behind a
       100 ns fork/join: it runs on one thread, 2 × 48 = 96 ns, no dispatch */
    d.threads = 2;
    d.dispatch_ns = 100;
    tp_graph_cost gc2;
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &gc2, err), err);
    TP_CHECK_NEAR(gc2.nodes[2].total_ns, 96, 1e-9);
    TP_CHECK_NEAR(gc2.nodes[2].dispatch_ns, 0, 0);
    tp_graph_cost_destroy(&gc2);
    d.dispatch_ns = 10; /* 48 + 10 < 96: split */
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &gc2, err), err);
    TP_CHECK_NEAR(gc2.nodes[2].total_ns, 58, 1e-9);
    tp_graph_cost_destroy(&gc2);
    d.threads = 1;
    tp_graph_destroy(g);
    /* a custom op adds a launch and a sync point (one more round trip) */
    g = mlp(true);
    TP_CHECK_OK(tp_graph_cost_total(g, &d, NULL, &t, err), err);
    /* custom: 32 bytes -> 16 ns + 10; sync 1000 */
    TP_CHECK_NEAR(t, 1000 + 58 + 26 + 16 + 1000, 1e-9);
    d.mem_gbps = -1;
    TP_CHECK_STATUS(tp_graph_cost_total(g, &d, NULL, &t, err), TP_ERR_INVALID);
    tp_graph_destroy(g);
}

TP_TEST(gemm_curve_envelope) {
    /* a dip at large dims (a calibration kernel's blocking) does not lower larger shapes */
    tp_device_model d = flat_model(1, 1);
    d.n_gemm = 3;
    d.gemm[0] = (tp_gemm_point){10, 10};
    d.gemm[1] = (tp_gemm_point){100, 150};
    d.gemm[2] = (tp_gemm_point){1000, 100};
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 1000, 1000, 1000), 150, 1e-9);
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 300, 300, 300), 150, 1e-9);
    TP_CHECK_NEAR(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 100, 100, 100), 150, 1e-9);
    TP_CHECK(tp_device_gemm_gflops(&d, TP_DTYPE_F32, 30, 30, 30) < 150);
}

/* conv -> batchnorm -> add(residual) -> relu -> sigmoid, plus a conv with two consumers
   and a matmul + residual add: which nodes the runtime fuses */
TP_TEST(graph_cost_fusion) {
    tp_graph *g = new_graph();
    const int64_t xs[] = {1, 4, 8, 8};
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 4, xs);
    tp_node_id w = par(g, "w", TP_DTYPE_F32, 4, (int64_t[]){4, 4, 3, 3});
    tp_node_id c1 =
        op(g, conv_op(TP_OP_CONV, 3, 1, 1, 1, 1), (tp_node_id[]){x, w}, 2, TP_DTYPE_F32, 4, xs);
    tp_node_id s = par(g, "s", TP_DTYPE_F32, 1, (int64_t[]){4});
    tp_op bn = {.kind = TP_OP_NORM, .sub = TP_NORM_BATCH};
    tp_node_id n1 = op(g, bn, (tp_node_id[]){c1, s, s, s, s}, 5, TP_DTYPE_F32, 4, xs);
    tp_op add = {.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD};
    tp_node_id a1 = op(g, add, (tp_node_id[]){n1, x}, 2, TP_DTYPE_F32, 4, xs); /* residual */
    tp_op relu = {.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU};
    tp_op sig = {.kind = TP_OP_UNARY, .sub = TP_UNARY_SIGMOID};
    tp_node_id r1 = op(g, relu, (tp_node_id[]){a1}, 1, TP_DTYPE_F32, 4, xs);
    tp_node_id s1 = op(g, sig, (tp_node_id[]){r1}, 1, TP_DTYPE_F32, 4, xs); /* 2nd activation */
    /* a conv whose output is used twice: its relu is a pass of its own */
    tp_node_id c2 =
        op(g, conv_op(TP_OP_CONV, 3, 1, 1, 1, 1), (tp_node_id[]){s1, w}, 2, TP_DTYPE_F32, 4, xs);
    tp_node_id r2 = op(g, relu, (tp_node_id[]){c2}, 1, TP_DTYPE_F32, 4, xs);
    tp_node_id a2 = op(g, add, (tp_node_id[]){r2, c2}, 2, TP_DTYPE_F32, 4, xs);
    /* matmul + residual (not a bias): not fused; matmul + bias: fused */
    tp_node_id m = par(g, "m", TP_DTYPE_F32, 2, (int64_t[]){8, 8});
    tp_node_id mm =
        op(g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){a2, m}, 2, TP_DTYPE_F32, 4, xs);
    tp_node_id a3 = op(g, add, (tp_node_id[]){mm, a2}, 2, TP_DTYPE_F32, 4, xs);
    tp_node_id mm2 =
        op(g, (tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){a3, m}, 2, TP_DTYPE_F32, 4, xs);
    tp_node_id bias = par(g, "bias", TP_DTYPE_F32, 1, (int64_t[]){8});
    tp_node_id a4 = op(g, add, (tp_node_id[]){mm2, bias}, 2, TP_DTYPE_F32, 4, xs);
    TP_CHECK_OK(tp_graph_mark_output(g, a4, err), err);
    tp_device_model d = flat_model(1, 1);
    tp_graph_cost gc;
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &gc, err), err);
    TP_CHECK(gc.nodes[n1].fused && gc.nodes[a1].fused && gc.nodes[r1].fused);
    TP_CHECK(!gc.nodes[s1].fused); /* one activation per kernel */
    TP_CHECK(!gc.nodes[c1].fused && !gc.nodes[r2].fused && !gc.nodes[a2].fused);
    TP_CHECK(!gc.nodes[a3].fused && gc.nodes[a4].fused);
    TP_CHECK_EQ_U64(gc.fused_nodes, 4);
    TP_CHECK(gc.nodes[r2].total_ns > 0 && gc.nodes[n1].total_ns == 0);
    tp_graph_cost_destroy(&gc);
    tp_graph_destroy(g);
}

/* A 1-D convolution's residual Add runs as a kernel of its own: onnxruntime's Conv+Sum fusions
   (NCHWc, ConvAddActivationFusion) take 4-D tensors only (convtasnet's 46 residual Adds over
   [1, 128, 2001], 0.22 ms each in its profile). Its bias Add and activation still fuse. */
TP_TEST(conv1d_residual_add_is_not_fused) {
    tp_graph *g = new_graph();
    const int64_t xs[] = {1, 8, 64};
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 3, xs);
    tp_node_id w = par(g, "w", TP_DTYPE_F32, 3, (int64_t[]){8, 8, 1});
    tp_op c = conv_op(TP_OP_CONV, 1, 1, 1, 0, 1);
    c.attrs.conv.spatial = 1;
    tp_node_id c1 = op(g, c, (tp_node_id[]){x, w}, 2, TP_DTYPE_F32, 3, xs);
    tp_op add = {.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD};
    tp_node_id a1 = op(g, add, (tp_node_id[]){c1, x}, 2, TP_DTYPE_F32, 3, xs); /* residual */
    tp_node_id c2 = op(g, c, (tp_node_id[]){a1, w}, 2, TP_DTYPE_F32, 3, xs);
    tp_node_id b = par(g, "b", TP_DTYPE_F32, 2, (int64_t[]){8, 1});
    tp_node_id a2 = op(g, add, (tp_node_id[]){c2, b}, 2, TP_DTYPE_F32, 3, xs); /* bias */
    tp_node_id r = op(g, (tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU}, (tp_node_id[]){a2}, 1,
                      TP_DTYPE_F32, 3, xs);
    TP_CHECK_OK(tp_graph_mark_output(g, r, err), err);
    tp_device_model d = flat_model(1, 1);
    tp_graph_cost gc;
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &gc, err), err);
    TP_CHECK(!gc.nodes[a1].fused && gc.nodes[a1].total_ns > 0);
    TP_CHECK(gc.nodes[a2].fused && gc.nodes[r].fused);
    TP_CHECK_EQ_U64(gc.fused_nodes, 2);
    tp_graph_cost_destroy(&gc);
    tp_graph_destroy(g);
}

/* onnxruntime's NCHWc layout copies: a blocked Conv reading a plain tensor of whole channel
   blocks gets a ReorderInput, a plain reader (or a graph output) of a blocked tensor a
   ReorderOutput; blocked copies pad the channels to the block (16 with AVX-512, 8 else). */
TP_TEST(layout_copies_around_plain_ops) {
    tp_graph *g = new_graph();
    int64_t xs[] = {1, 16, 8, 8}, hs[] = {1, 24, 8, 8}, ys[] = {1, 32, 8, 8};
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 4, xs);
    tp_node_id w1 = par(g, "w1", TP_DTYPE_F32, 4, (int64_t[]){24, 16, 3, 3});
    tp_node_id w2 = par(g, "w2", TP_DTYPE_F32, 4, (int64_t[]){32, 24, 3, 3});
    tp_node_id c1 =
        op(g, conv_op(TP_OP_CONV, 3, 1, 1, 1, 1), (tp_node_id[]){x, w1}, 2, TP_DTYPE_F32, 4, hs);
    tp_node_id r1 = op(g, (tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU}, (tp_node_id[]){c1}, 1,
                       TP_DTYPE_F32, 4, hs);
    tp_op sm = {.kind = TP_OP_SOFTMAX};
    sm.attrs.axis.axis = 1;
    tp_node_id s1 = op(g, sm, (tp_node_id[]){r1}, 1, TP_DTYPE_F32, 4, hs);
    tp_node_id c2 =
        op(g, conv_op(TP_OP_CONV, 3, 1, 1, 1, 1), (tp_node_id[]){s1, w2}, 2, TP_DTYPE_F32, 4, ys);
    TP_CHECK_OK(tp_graph_mark_output(g, c2, err), err);
    tp_device_model d = flat_model(1, 2);
    d.runtime_node_ns = 0;
    d.vector_floats = 16;
    tp_graph_cost gc;
    /* block 16: x (16 channels) -> ReorderInput, 4096 + 4096 bytes; relu (24 channels, blocked
       as 32) -> ReorderOutput for the softmax, 8192 + 6144; the second Conv (24 input channels,
       aligned to 4: onnxruntime 1.30 converts it) -> a ReorderInput of the softmax, 6144 +
       8192, and a ReorderOutput of its graph output, 8192 + 8192 */
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &gc, err), err);
    TP_CHECK_EQ_U64(gc.layout_copies, 4);
    TP_CHECK_NEAR(gc.layout_ns, (8192.0 + 14336.0 + 14336.0 + 16384.0) / 2, 1e-6);
    /* nodes onnxruntime runs: in the total, and in the total-only path the searches call */
    TP_CHECK_NEAR(gc.total_ns,
                  gc.round_trip_ns + gc.nodes_ns + gc.layout_ns + gc.readback_ns + gc.sync_ns,
                  1e-6);
    double total_only = 0;
    TP_CHECK_OK(tp_graph_cost_total(g, &d, NULL, &total_only, err), err);
    TP_CHECK_NEAR(total_only, gc.total_ns, 1e-6);
    tp_graph_cost_destroy(&gc);
    /* block 8: the same two, and the second Conv (24 = 3 blocks) runs blocked: a ReorderInput
       of the softmax (6144 + 6144) and a ReorderOutput of its graph output (8192 + 8192) */
    d.vector_floats = 8;
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &gc, err), err);
    TP_CHECK_EQ_U64(gc.layout_copies, 4);
    TP_CHECK_NEAR(gc.layout_ns, (8192.0 + 12288.0 + 12288.0 + 16384.0) / 2, 1e-6);
    tp_graph_cost_destroy(&gc);
    /* not a CPU: no onnxruntime CPU layout */
    d.kind = TP_DEVICE_GPU;
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &gc, err), err);
    TP_CHECK_EQ_U64(gc.layout_copies, 0);
    TP_CHECK(gc.layout_ns == 0);
    tp_graph_cost_destroy(&gc);
    tp_graph_destroy(g);
}

/* A float16 Concat among float16 operators: onnxruntime's CPU provider keeps it half and computes
   the others in float32, with a Cast to half of each float32-computed input and a Cast to float32
   of its output for a float32 reader: x (f16 [1,16,8,8]) -neg-> a -concat(a, a)-> c -neg-> d.
   a's Cast reads 4096 bytes and writes 2048, c's reads 4096 and writes 8192. The same graph in
   float32 has no Cast. */
TP_TEST(casts_around_a_half_concat) {
    for (int half = 1; half >= 0; half--) {
        tp_dtype t = half ? TP_DTYPE_F16 : TP_DTYPE_F32;
        tp_graph *g = new_graph();
        int64_t xs[] = {1, 16, 8, 8}, cs[] = {1, 32, 8, 8};
        tp_node_id x = in(g, "x", t, 4, xs);
        tp_op neg = {.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG};
        tp_node_id a = op(g, neg, (tp_node_id[]){x}, 1, t, 4, xs);
        tp_op cat = {.kind = TP_OP_CONCAT};
        cat.attrs.axis.axis = 1;
        tp_node_id c = op(g, cat, (tp_node_id[]){a, a}, 2, t, 4, cs);
        tp_node_id dn = op(g, neg, (tp_node_id[]){c}, 1, t, 4, cs);
        TP_CHECK_OK(tp_graph_mark_output(g, dn, err), err);
        tp_device_model d = flat_model(1, 2);
        d.runtime_node_ns = 0;
        d.vector_floats = 8;
        tp_graph_cost gc;
        TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &gc, err), err);
        TP_CHECK_EQ_U64(gc.layout_copies, half ? 2 : 0);
        TP_CHECK_NEAR(gc.layout_ns, half ? (6144.0 + 12288.0) / 2 : 0, 1e-6);
        tp_graph_cost_destroy(&gc);
        tp_graph_destroy(g);
    }
}

/* A node the runtime folds when it loads the model (TP_NODE_FOLDED: every input a constant) is
   never run: metadata, no kernel, no time. */
TP_TEST(folded_node_is_not_run) {
    tp_graph *g = new_graph();
    int64_t ws[] = {64, 64};
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 2, ws);
    tp_node_id w = par(g, "w", TP_DTYPE_F32, 2, ws);
    tp_op neg = {.kind = TP_OP_UNARY, .sub = TP_UNARY_NEG};
    tp_node_id u = op(g, neg, (tp_node_id[]){w}, 1, TP_DTYPE_F32, 2, ws);
    tp_op add = {.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD};
    tp_node_id y = op(g, add, (tp_node_id[]){x, u}, 2, TP_DTYPE_F32, 2, ws);
    TP_CHECK_OK(tp_graph_mark_output(g, y, err), err);
    bool meta = true;
    TP_CHECK_OK(tp_op_is_metadata(g, u, &meta, err), err);
    TP_CHECK(!meta);
    tp_device_model d = flat_model(1, 2);
    tp_graph_cost before, after;
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &before, err), err);
    TP_CHECK_OK(tp_graph_set_flags(g, u, TP_NODE_FOLDED, err), err);
    TP_CHECK_OK(tp_op_is_metadata(g, u, &meta, err), err);
    TP_CHECK(meta);
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &after, err), err);
    TP_CHECK(after.total_ns < before.total_ns);
    tp_graph_cost_destroy(&before);
    tp_graph_cost_destroy(&after);
    tp_graph_destroy(g);
}

/* A batch normalization of its own (after a concat) and its activation: one pass (onnxruntime's
   NCHWc BatchNormalization); a second activation or one after a shared BN is a pass of its own. */
TP_TEST(graph_cost_fusion_batchnorm_activation) {
    tp_graph *g = new_graph();
    const int64_t xs[] = {1, 4, 8, 8}, cs[] = {1, 8, 8, 8};
    tp_node_id x = in(g, "x", TP_DTYPE_F32, 4, xs);
    tp_op cat = {.kind = TP_OP_CONCAT};
    cat.attrs.axis.axis = 1;
    tp_node_id c = op(g, cat, (tp_node_id[]){x, x}, 2, TP_DTYPE_F32, 4, cs);
    tp_node_id s = par(g, "s", TP_DTYPE_F32, 1, (int64_t[]){8});
    tp_op bn = {.kind = TP_OP_NORM, .sub = TP_NORM_BATCH};
    tp_node_id n1 = op(g, bn, (tp_node_id[]){c, s, s, s, s}, 5, TP_DTYPE_F32, 4, cs);
    tp_op relu = {.kind = TP_OP_UNARY, .sub = TP_UNARY_RELU};
    tp_op sig = {.kind = TP_OP_UNARY, .sub = TP_UNARY_SIGMOID};
    tp_node_id r1 = op(g, relu, (tp_node_id[]){n1}, 1, TP_DTYPE_F32, 4, cs);
    tp_node_id s1 = op(g, sig, (tp_node_id[]){r1}, 1, TP_DTYPE_F32, 4, cs);
    tp_node_id n2 = op(g, bn, (tp_node_id[]){s1, s, s, s, s}, 5, TP_DTYPE_F32, 4, cs);
    tp_node_id r2 = op(g, relu, (tp_node_id[]){n2}, 1, TP_DTYPE_F32, 4, cs);
    tp_op add = {.kind = TP_OP_BINARY, .sub = TP_BINARY_ADD};
    tp_node_id a = op(g, add, (tp_node_id[]){r2, n2}, 2, TP_DTYPE_F32, 4, cs);
    TP_CHECK_OK(tp_graph_mark_output(g, a, err), err);
    tp_device_model d = flat_model(1, 1);
    tp_graph_cost gc;
    TP_CHECK_OK(tp_graph_cost_compute(g, &d, NULL, NULL, &gc, err), err);
    TP_CHECK(!gc.nodes[n1].fused && gc.nodes[r1].fused && !gc.nodes[s1].fused);
    TP_CHECK(!gc.nodes[n2].fused && !gc.nodes[r2].fused); /* n2 has two consumers */
    TP_CHECK_EQ_U64(gc.fused_nodes, 1);
    tp_graph_cost_destroy(&gc);
    tp_graph_destroy(g);
}

TP_TEST(accuracy_band) {
    tp_device_model d = flat_model(1, 1);
    d.threads = 1;
    tp_cost_accuracy a;
    tp_cost_accuracy_of(&d, &a);
    TP_CHECK_STR(a.basis, "measured");
    TP_CHECK(a.validated && a.models > 0 && a.mape_pct > 0);
    TP_CHECK(a.under_pct <= 0 && a.over_pct >= 0 && a.mape_pct <= a.over_pct - a.under_pct);
    double mape1 = a.mape_pct;
    d.threads = 2; /* benchmarked apart */
    tp_cost_accuracy_of(&d, &a);
    TP_CHECK(a.validated && a.mape_pct > 0 && a.mape_pct != mape1);
    TP_CHECK_CONTAINS(a.reference, "2 threads");
    d.threads = 4; /* never benchmarked: no band */
    tp_cost_accuracy_of(&d, &a);
    TP_CHECK(!a.validated && a.mape_pct == 0 && a.reference[0]);
    d.threads = 1;
    d.source = TP_SOURCE_CATALOG;
    tp_cost_accuracy_of(&d, &a);
    TP_CHECK(!a.validated);
    TP_CHECK_STR(a.basis, "catalog");
    tp_device_model_default(TP_DEVICE_CUDA, &d);
    tp_cost_accuracy_of(&d, &a);
    TP_CHECK(!a.validated);
    TP_CHECK_STR(a.basis, "default");
    tp_cost_accuracy_of(NULL, &a);
    TP_CHECK(!a.validated && a.reference != NULL);
}

TP_TEST(graph_cost_alloc_failure_sweep) {
    tp_graph *g = mlp(false);
    tp_device_model d = flat_model(1, 2);
    for (long k = 1; k < 5; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, k);
        tp_graph_cost gc;
        tp_status s = tp_graph_cost_compute(g, &d, NULL, &fa.hook, &gc, err);
        if (s == TP_OK) {
            TP_CHECK_NEAR(gc.total_ns, 1132, 1e-9);
            tp_graph_cost_destroy(&gc);
        } else {
            TP_CHECK_STATUS(s, TP_ERR_NOMEM);
        }
        TP_CHECK_EQ_U64(fa.live, 0);
    }
    tp_graph_destroy(g);
}

int main(void) {
    TP_RUN(matmul_flops_and_bytes);
    TP_RUN(gemm_trans_and_bias);
    TP_RUN(fused_matmul_bias_act);
    TP_RUN(conv_groups_dilation_transpose);
    TP_RUN(layout_copies_around_plain_ops);
    TP_RUN(casts_around_a_half_concat);
    TP_RUN(folded_node_is_not_run);
    TP_RUN(attention_grouped_kv);
    TP_RUN(memory_bound_ops);
    TP_RUN(per_element_counts);
    TP_RUN(pool_counts);
    TP_RUN(gather_slice_read_only_what_they_copy);
    TP_RUN(quantized_sizes_not_four_bytes);
    TP_RUN(views_and_free_transposes_are_metadata);
    TP_RUN(transpose_paths_as_onnxruntime_walks_them);
    TP_RUN(einsum_contraction_is_a_batched_gemm);
    TP_RUN(fft_and_log_mel);
    TP_RUN(overflow_and_unbound_are_errors);
    TP_RUN(gemm_curve_interpolation);
    TP_RUN(node_roofline);
    TP_RUN(node_grouped_conv);
    TP_RUN(group_walk_on_the_generic_path);
    TP_RUN(transposed_conv_col2im_on_the_calling_thread);
    TP_RUN(transpose_walk_on_the_calling_thread);
    TP_RUN(activation_matmul_packs_b);
    TP_RUN(node_dense_conv_expands_unless_blocked);
    TP_RUN(nchwc_padded_channels_and_filter_sets);
    TP_RUN(recurrent_steps_read_r_every_step);
    TP_RUN(recurrent_steps_split_over_a_pool);
    TP_RUN(recurrent_step_reads_r_with_vector_loads);
    TP_RUN(recurrent_step_pays_a_kernel_call);
    TP_RUN(graph_cost_hand_computed);
    TP_RUN(gemm_curve_envelope);
    TP_RUN(graph_cost_fusion);
    TP_RUN(conv1d_residual_add_is_not_fused);
    TP_RUN(graph_cost_fusion_batchnorm_activation);
    TP_RUN(cache_bandwidth_curve);
    TP_RUN(cache_bandwidth_follows_the_read_curve);
    TP_RUN(weights_streamed_from_memory);
    TP_RUN(denormal_operand_assists);
    TP_RUN(masked_softmax_underflow);
    TP_RUN(where_as_onnxruntime_runs_it);
    TP_RUN(weight_set_of_a_run);
    TP_RUN(row_normalization_rate);
    TP_RUN(skip_layer_norm_fusion);
    TP_RUN(gelu_fusion);
    TP_RUN(bias_gelu_fusion);
    TP_RUN(prelu_at_its_own_rate);
    TP_RUN(bias_gelu_only_without_a_gemm_before_it);
    TP_RUN(nearest_resize_copies);
    TP_RUN(plain_global_average_pool_at_the_norm_rate);
    TP_RUN(depthwise_at_several_threads);
    TP_RUN(wake_for_small_gemms);
    TP_RUN(accuracy_band);
    TP_RUN(graph_cost_alloc_failure_sweep);
    return tp_test_finish();
}
