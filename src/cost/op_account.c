/* Op cost accounting: flops and bytes of every IR op kind (docs/cost.md). */
#include "tensorplan/cost.h"

#include <math.h>
#include <string.h>

#include "cost/qdq_cost.h"
#include "ortgraph/ort_where.h"
#include "ortgraph/ort_xform.h"

/* ---- small checked helpers ---- */

typedef struct op_acct {
    const tp_graph *g;
    tp_node_id id;
    const tp_node *n;
    tp_error *err;
} op_acct;

static tp_status overflow(const op_acct *a, const char *what) {
    return tp_error_setx(a->err, TP_ERR_OVERFLOW, TP_NO_OFFSET, a->id,
                         "node %d '%s' (%s): %s overflows 64 bits", (int)a->id, a->n->name,
                         tp_op_name(&a->n->op), what);
}

static tp_status bad_shape(const op_acct *a, const char *what) {
    return tp_error_setx(a->err, TP_ERR_SHAPE, TP_NO_OFFSET, a->id, "node %d '%s' (%s): %s",
                         (int)a->id, a->n->name, tp_op_name(&a->n->op), what);
}

static tp_status mul(const op_acct *a, uint64_t x, uint64_t y, uint64_t *out) {
    if (!tp_mul_u64(x, y, out)) return overflow(a, "flop count");
    return TP_OK;
}

static tp_status add(const op_acct *a, uint64_t x, uint64_t y, uint64_t *out) {
    if (!tp_add_u64(x, y, out)) return overflow(a, "count");
    return TP_OK;
}

static const tp_node *input_node(const op_acct *a, uint32_t i) {
    if (i >= a->n->n_inputs) return NULL;
    return tp_graph_node(a->g, a->n->inputs[i]);
}

/* Value of dim `axis` (negative counts from the end) of a node's shape. */
static tp_status dim_of(const op_acct *a, const tp_node *node, int32_t axis, uint64_t *out) {
    int32_t r = node->shape.rank;
    int32_t ax = axis < 0 ? axis + r : axis;
    if (ax < 0 || ax >= r) return bad_shape(a, "operand rank too small for its op");
    int64_t v = 0;
    tp_status s = tp_graph_dim_value(a->g, node->shape.dims[ax], &v, a->err);
    if (s != TP_OK) return s;
    if (v < 0) return bad_shape(a, "negative dimension");
    *out = (uint64_t)v;
    return TP_OK;
}

static tp_status elems_of(const op_acct *a, tp_node_id id, uint64_t *out) {
    return tp_graph_node_elements(a->g, id, out, a->err);
}

static tp_status bytes_of(const op_acct *a, tp_node_id id, uint64_t *out) {
    return tp_graph_node_bytes(a->g, id, out, a->err);
}

static uint64_t ceil_log2(uint64_t v) {
    uint64_t r = 0;
    while (r < 63 && ((uint64_t)1 << r) < v)
        r++;
    return r;
}

/* Per-element flop counts of unary functions (docs/cost.md). */
static uint64_t unary_flops(int32_t fn) {
    switch (fn) {
    case TP_UNARY_IDENTITY:
        return 0;
    case TP_UNARY_EXP:
    case TP_UNARY_LOG:
    case TP_UNARY_SQRT:
    case TP_UNARY_RSQRT:
    case TP_UNARY_RECIP:
    case TP_UNARY_SIGMOID:
    case TP_UNARY_TANH:
    case TP_UNARY_ERF:
    case TP_UNARY_SIN:
    case TP_UNARY_COS:
    case TP_UNARY_ELU:
    case TP_UNARY_SOFTPLUS:
        return 4;
    case TP_UNARY_GELU:
    case TP_UNARY_SILU:
        return 8;
    case TP_UNARY_HARD_SIGMOID:
    case TP_UNARY_HARD_SWISH:
    case TP_UNARY_LEAKY_RELU:
    case TP_UNARY_CLIP:
        return 2;
    default:
        return 1;
    }
}

static uint64_t norm_flops(int32_t kind) {
    switch (kind) {
    case TP_NORM_RMS:
        return 4;
    case TP_NORM_BATCH:
        return 4;
    default:
        return 8; /* layer, group, instance, lrn */
    }
}

static uint64_t reduce_flops(int32_t fn) {
    switch (fn) {
    case TP_REDUCE_L1:
    case TP_REDUCE_L2:
    case TP_REDUCE_SUM_SQUARE:
        return 2;
    case TP_REDUCE_LOG_SUM_EXP:
        return 4;
    default:
        return 1;
    }
}

/* A transpose's input, rank and permutation (no permutation given: the dims reversed), each
   entry checked to lie in range. */
static tp_status transpose_perm(const op_acct *a, const tp_node **in_out, int32_t *rank,
                                int32_t perm[TP_MAX_RANK]) {
    const tp_node *in = input_node(a, 0);
    if (!in) return bad_shape(a, "transpose without input");
    int32_t r = in->shape.rank;
    bool all_neg = true;
    for (int32_t i = 0; i < r; i++)
        if (a->n->op.attrs.transpose.perm[i] >= 0) all_neg = false;
    bool all_zero = true;
    for (int32_t i = 0; i < r; i++)
        if (a->n->op.attrs.transpose.perm[i] != 0) all_zero = false;
    for (int32_t i = 0; i < r; i++) {
        perm[i] = (all_neg || (all_zero && r > 1)) ? r - 1 - i : a->n->op.attrs.transpose.perm[i];
        if (perm[i] < 0 || perm[i] >= r) return bad_shape(a, "transpose permutation out of range");
    }
    *in_out = in;
    *rank = r;
    return TP_OK;
}

/* True when a transpose only moves unit dims (no data movement). */
static tp_status transpose_is_free(const op_acct *a, bool *out) {
    const tp_node *in = NULL;
    int32_t r = 0, perm[TP_MAX_RANK];
    tp_status s = transpose_perm(a, &in, &r, perm);
    if (s != TP_OK) return s;
    int32_t last = -1;
    for (int32_t i = 0; i < r; i++) {
        uint64_t d = 0;
        if ((s = dim_of(a, in, perm[i], &d)) != TP_OK) return s;
        if (d == 1) continue;
        if (perm[i] < last) {
            *out = false;
            return TP_OK;
        }
        last = perm[i];
    }
    *out = true;
    return TP_OK;
}

/* Whether the permutation moves one axis alone, as onnxruntime's CPU Transpose decides it
   (transpose.cc IsMovingSingleAxis, read): at the first slot that differs from its index, either
   the axis found there moved outwards to it and the slots after it hold the others in order, or
   the axis of that slot moved inwards and the others kept their order around it. */
static bool single_axis_moved(const int32_t *perm, int32_t r, int32_t *from, int32_t *to) {
    for (int32_t i = 0; i < r; i++) {
        if (perm[i] == i) continue;
        bool outwards = true;
        for (int32_t cur = i + 1, expected = i; cur < r; cur++, expected++) {
            if (perm[cur] != expected) {
                outwards = false;
                break;
            }
            if (cur == perm[i]) expected++;
        }
        if (outwards) {
            *from = perm[i];
            *to = i;
            return true;
        }
        int32_t moved_to = -1;
        for (int32_t cur = i, expected = i + 1; cur < r; cur++) {
            if (perm[cur] == expected) {
                expected++;
                continue;
            }
            if (perm[cur] != i) return false;
            moved_to = cur;
        }
        *from = i;
        *to = moved_to;
        return moved_to >= 0;
    }
    return false;
}

/* The walk of onnxruntime's CPU Transpose (tp_op_cost.transpose_steps): a single axis moved past
   blocks of 1, 2, 4 or 8 bytes goes to MLAS's 2-D transpose or a plain loop (no walk counted),
   past wider blocks to a memcpy per block; any other permutation to a multi-index walk over the
   axes in front of the largest suffix that stays in place, copying that suffix per step, or one
   element per step when the innermost axis moves. A permutation that keeps every axis above 1 in
   order is a copy (transpose_is_free). */
static tp_status account_transpose(const op_acct *a, uint64_t elems, tp_op_cost *c) {
    const tp_node *in = NULL;
    int32_t r = 0, perm[TP_MAX_RANK];
    tp_status s = transpose_perm(a, &in, &r, perm);
    if (s != TP_OK || elems == 0) return s;
    uint64_t dims[TP_MAX_RANK];
    for (int32_t i = 0; i < r; i++)
        if ((s = dim_of(a, in, i, &dims[i])) != TP_OK) return s;
    int32_t from = 0, to = 0;
    uint64_t block = 1; /* elements copied per step */
    if (single_axis_moved(perm, r, &from, &to)) {
        for (int32_t i = (from > to ? from : to) + 1; i < r; i++)
            if ((s = mul(a, block, dims[i], &block)) != TP_OK) return s;
        uint64_t esz = 0;
        tp_error e2;
        if (tp_dtype_bytes(a->n->dtype, block, &esz, &e2) != TP_OK) return TP_OK;
        if (esz == 1 || esz == 2 || esz == 4 || esz == 8) return TP_OK;
    } else {
        for (int32_t i = r - 1; i >= 0 && perm[i] == i; i--)
            if ((s = mul(a, block, dims[i], &block)) != TP_OK) return s;
        c->transpose_by_element = block == 1;
    }
    c->transpose_steps = block > 0 && elems > block ? elems / block : 0;
    if (c->transpose_steps == 0) c->transpose_by_element = false;
    return TP_OK;
}

tp_status tp_op_is_metadata(const tp_graph *g, tp_node_id id, bool *out, tp_error *err) {
    const tp_node *n = g ? tp_graph_node(g, id) : NULL;
    if (!n || !out)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id, "node %d: no such node",
                             (int)id);
    op_acct a = {g, id, n, err};
    /* identity: runtimes elide it (ONNX exports are full of them) */
    bool identity = n->op.kind == TP_OP_UNARY && n->op.sub == TP_UNARY_IDENTITY;
    bool shape_only = (n->flags & TP_NODE_SHAPE_ONLY) != 0;
    /* computed once by the runtime's constant folding when it loads the model, never run */
    bool folded = (n->flags & TP_NODE_FOLDED) != 0;
    if (tp_op_is_boundary(n->op.kind) || n->op.kind == TP_OP_OUTPUT_OF || identity || shape_only ||
        folded) {
        *out = true;
        return TP_OK;
    }
    if (n->op.kind == TP_OP_TRANSPOSE) return transpose_is_free(&a, out);
    bool view = false;
    uint64_t off = 0;
    tp_status s = tp_graph_node_view(g, id, &view, &off, err);
    if (s != TP_OK) return s;
    *out = view;
    return TP_OK;
}

/* ---- GEMM-like ops ---- */

static tp_status account_matmul(const op_acct *a, uint64_t out_elems, tp_op_cost *c) {
    const tp_node *A = input_node(a, 0), *B = input_node(a, 1);
    if (!A || !B) return bad_shape(a, "matmul needs two inputs");
    uint64_t k = 0, n = 1, m = 1;
    tp_status s;
    bool trans_a = false, trans_b = false;
    if (a->n->op.kind == TP_OP_GEMM) {
        trans_a = a->n->op.attrs.gemm.trans_a;
        trans_b = a->n->op.attrs.gemm.trans_b;
    } else if (a->n->op.kind == TP_OP_FUSED_MATMUL) {
        trans_b = a->n->op.attrs.fused.trans_b;
    }
    if (A->shape.rank == 1) {
        if ((s = dim_of(a, A, 0, &k)) != TP_OK) return s;
    } else {
        if ((s = dim_of(a, A, trans_a ? -2 : -1, &k)) != TP_OK) return s;
        if ((s = dim_of(a, A, trans_a ? -1 : -2, &m)) != TP_OK) return s;
    }
    if (B->shape.rank >= 2) {
        if ((s = dim_of(a, B, trans_b ? -2 : -1, &n)) != TP_OK) return s;
    }
    /* flops = 2 · out_elems · k  (= 2·m·k·n per batch element) */
    if ((s = mul(a, out_elems, k, &c->flops)) != TP_OK) return s;
    if ((s = mul(a, c->flops, 2, &c->flops)) != TP_OK) return s;
    bool has_c = (a->n->op.kind == TP_OP_GEMM && a->n->n_inputs >= 3) ||
                 (a->n->op.kind == TP_OP_FUSED_MATMUL &&
                  (a->n->op.attrs.fused.has_bias || a->n->n_inputs >= 3));
    if (has_c && (s = add(a, c->flops, out_elems, &c->flops)) != TP_OK) return s;
    if (a->n->op.kind == TP_OP_FUSED_MATMUL) {
        uint64_t act = 0;
        if ((s = mul(a, out_elems, unary_flops(a->n->op.attrs.fused.act), &act)) != TP_OK) return s;
        if ((s = add(a, c->flops, act, &c->flops)) != TP_OK) return s;
    }
    /* One GEMM instance: weights shared across the batch fold into m. */
    if (n == 0 || out_elems == 0) {
        c->gemm_m = m;
        c->gemm_batch = 0;
    } else if (B->shape.rank <= 2) {
        c->gemm_m = out_elems / n;
        c->gemm_batch = 1;
    } else {
        c->gemm_m = m;
        c->gemm_batch = m ? out_elems / n / m : 0;
    }
    c->gemm_k = k;
    c->gemm_n = n;
    c->activation_rows = true;
    c->compute_dtype = tp__product_dtype(A, B);
    /* a B the runtime cannot pack ahead: MLAS's SGEMM copies it into panels on every run, for
     * two rows or more, or a transposed A (docs/cost.md, "MatMuls of two activations pack B") */
    bool b_constant = tp_op_is_weight(B->op.kind) || (B->flags & TP_NODE_FOLDED) != 0;
    if (!b_constant && (c->gemm_m >= 2 || trans_a) &&
        (!tp_mul_u64(c->gemm_batch, k, &c->pack_b_elems) ||
         !tp_mul_u64(c->pack_b_elems, n, &c->pack_b_elems)))
        return overflow(a, "packed B elements");
    if ((A->flags & TP_NODE_DENORMAL_OUT) && n > 0) {
        /* A's elements: out_elems / n rows of k, m of them per instance (A's q x k scores) */
        uint64_t a_elems = 0;
        if ((s = mul(a, out_elems / n, k, &a_elems)) != TP_OK) return s;
        c->denormal_elems = (uint64_t)((double)a_elems * TP_MASK_SHARE(m, k));
    }
    return TP_OK;
}

/* A contraction of two operands (an ONNX Einsum with tp_op.attrs.custom.einsum_role set): a
   batched GEMM whose m is the product of operand 0's row axes, n of operand 1's column axes and k
   of operand 0's summed axes; the batch is what the output holds beyond m × n (its batch axes,
   broadcast). onnxruntime's Einsum lays its operands out for a batched MatMul first (transposes
   where the letters are out of that order), which is not counted. */
static tp_status account_einsum(const op_acct *a, uint64_t out_elems, tp_op_cost *c) {
    const tp_node *op[2] = {input_node(a, 0), input_node(a, 1)};
    if (!op[0] || !op[1]) return bad_shape(a, "einsum contraction needs two inputs");
    uint64_t m = 1, n = 1, k = 1;
    tp_status s;
    for (int t = 0; t < 2; t++)
        for (int32_t i = 0; i < op[t]->shape.rank && i < TP_MAX_RANK; i++) {
            uint8_t role = a->n->op.attrs.custom.einsum_role[t][i];
            uint64_t *into = role == TP_EINSUM_ROWS            ? &m
                             : role == TP_EINSUM_COLS          ? &n
                             : role == TP_EINSUM_SUM && t == 0 ? &k
                                                               : NULL;
            if (!into) continue;
            uint64_t d = 0;
            if ((s = dim_of(a, op[t], i, &d)) != TP_OK) return s;
            if ((s = mul(a, *into, d, into)) != TP_OK) return s;
        }
    if ((s = mul(a, out_elems, k, &c->flops)) != TP_OK) return s;
    if ((s = mul(a, c->flops, 2, &c->flops)) != TP_OK) return s;
    c->gemm_m = m;
    c->gemm_k = k;
    c->gemm_n = n;
    c->gemm_batch = m && n ? out_elems / m / n : 0;
    c->activation_rows = true;
    c->compute_dtype = op[0]->dtype;
    return TP_OK;
}

static tp_status kernel_area(const op_acct *a, const tp_node *w, uint64_t *out) {
    uint64_t area = 1;
    for (int32_t i = 2; i < w->shape.rank; i++) {
        uint64_t d = 0;
        tp_status s = dim_of(a, w, i, &d);
        if (s != TP_OK) return s;
        if ((s = mul(a, area, d, &area)) != TP_OK) return s;
    }
    *out = area;
    return TP_OK;
}

/* Share of the convolution's time left when the taps that read padding are skipped. The
   share of (output, tap) pairs inside the input is exact per spatial dim (stride 1: tap i at
   offset i·dilation − pad_begin reads the input for in − |offset| outputs, clipped by the
   output size). onnxruntime's NCHWc kernel skips a whole kernel row that falls in the padding;
   along a row (the last spatial dim) it runs the padded outputs on a slower path: measured
   (bench/accuracy/probe_models.py, 3×3 convolutions 256 → 256 on 33×33, dilation 1/6/12/24/36,
   time 1/0.86/0.77/0.44/0.19 of dilation 1) it saves about the square root of that dim's share.
   1 when a dim is unknown or strided. */
static double conv_tap_share(const op_acct *a) {
    const tp_node *X = input_node(a, 0);
    const tp_op *op = &a->n->op;
    int32_t sp = op->attrs.conv.spatial;
    if (!X || sp < 1 || sp > 3 || (int32_t)X->shape.rank != sp + 2) return 1;
    double share = 1;
    for (int32_t i = 0; i < sp; i++) {
        uint64_t in = 0;
        if (dim_of(a, X, 2 + i, &in) != TP_OK || in == 0) return 1;
        int64_t k = op->attrs.conv.kernel[i], d = op->attrs.conv.dilation[i];
        int64_t pb = op->attrs.conv.pad_begin[i], st = op->attrs.conv.stride[i];
        int64_t pe = op->attrs.conv.pad_end[i];
        /* bounds that keep the arithmetic below in int64 and the loop short (hostile
           attributes are input): other kernels keep all their taps */
        const int64_t lim = (int64_t)1 << 24;
        if (k < 1 || d < 1 || st != 1 || pb < 0 || pe < 0 || k > 4096 || d > lim || pb > lim ||
            pe > lim || in > (uint64_t)1 << 40)
            return 1;
        int64_t out = (int64_t)in + pb + pe - d * (k - 1);
        if (out < 1) return 1;
        double valid = 0;
        for (int64_t t = 0; t < k; t++) {
            int64_t off = t * d - pb, lo = off < 0 ? -off : 0, hi = out;
            if (hi > (int64_t)in - off)
                hi = (int64_t)in - off; /* outputs o with 0 <= o + off < in */
            if (hi > lo) valid += (double)(hi - lo);
        }
        double f = valid / ((double)k * (double)out);
        share *= i == sp - 1 ? sqrt(f) : f;
    }
    return share > 0 && share <= 1 ? share : 1;
}

/* Output pixels (per channel, all images) of a 2-D convolution whose filter window reaches into
   the left or right padding: the output rows times the columns at either edge (ceil(pad /
   stride) each, at most the width). 0 when the shapes or attributes are not those of a plain
   2-D convolution. */
static uint64_t conv_border_pixels(const op_acct *a, uint64_t out_elems, uint64_t cout) {
    const tp_op *op = &a->n->op;
    uint64_t w = 0;
    if (op->attrs.conv.spatial != 2 || a->n->shape.rank != 4 || cout == 0) return 0;
    if (dim_of(a, a->n, 3, &w) != TP_OK || w == 0) return 0;
    int64_t pb = op->attrs.conv.pad_begin[1], pe = op->attrs.conv.pad_end[1];
    int64_t st = op->attrs.conv.stride[1];
    const int64_t lim = (int64_t)1 << 40; /* hostile attributes are input: no overflow below */
    if (pb < 0 || pe < 0 || st < 1 || pb > lim || pe > lim || st > lim) return 0;
    uint64_t cols = (uint64_t)((pb + st - 1) / st) + (uint64_t)((pe + st - 1) / st);
    if (cols > w) cols = w;
    return out_elems / cout / w * cols; /* rows × cols <= out_elems / cout */
}

/* LSTM / GRU / RNN (X[seq, batch, input], W[dirs, G·hid, input], R[dirs, G·hid, hid] with
   layout 0; X[batch, seq, input] with layout 1). onnxruntime's CPU kernels
   (deep_cpu_lstm.cc, deep_cpu_gru.cc) project the input of every step in one GEMM per
   direction, then run the steps one after another: per step the hidden state by R (a few-row
   GEMM whose weights it reads again each step) and the gates' activations. */
static tp_status account_recurrent(const op_acct *a, uint64_t gates, tp_op_cost *c) {
    const tp_node *X = input_node(a, 0), *W = input_node(a, 1), *R = input_node(a, 2);
    if (!X || !W || !R || X->shape.rank != 3 || W->shape.rank != 3 || R->shape.rank != 3 ||
        a->n->shape.rank != 4)
        return bad_shape(a, "recurrent op needs X, W, R of rank 3 and a 4-D output");
    uint64_t dirs = 0, gh = 0, input = 0, hid = 0, y1 = 0, seq = 0, batch = 0, x0 = 0, x1 = 0;
    tp_status s;
    if ((s = dim_of(a, W, 0, &dirs)) != TP_OK || (s = dim_of(a, W, 1, &gh)) != TP_OK ||
        (s = dim_of(a, W, 2, &input)) != TP_OK || (s = dim_of(a, R, 2, &hid)) != TP_OK ||
        (s = dim_of(a, X, 0, &x0)) != TP_OK || (s = dim_of(a, X, 1, &x1)) != TP_OK ||
        (s = dim_of(a, a->n, 1, &y1)) != TP_OK)
        return s;
    uint64_t want = 0;
    if ((s = mul(a, gates, hid, &want)) != TP_OK) return s;
    if (gh != want) return bad_shape(a, "W's rows are not gates x hidden size");
    /* Y is [seq, dirs, batch, hid] (layout 0) or [batch, seq, dirs, hid] (layout 1) */
    bool layout0 = y1 == dirs;
    seq = layout0 ? x0 : x1;
    batch = layout0 ? x1 : x0;
    uint64_t steps = 0, rows = 0, dir_rows = 0, f = 0, proj = 0, rec = 0, act = 0;
    if ((s = mul(a, seq, dirs, &steps)) != TP_OK || (s = mul(a, seq, batch, &rows)) != TP_OK ||
        (s = mul(a, rows, dirs, &dir_rows)) != TP_OK)
        return s;
    /* projection: 2 · seq·batch · input · G·hid per direction */
    if ((s = mul(a, dir_rows, input, &f)) != TP_OK || (s = mul(a, f, gh, &f)) != TP_OK ||
        (s = mul(a, f, 2, &proj)) != TP_OK)
        return s;
    /* recurrence: 2 · batch · hid · G·hid per step */
    if ((s = mul(a, dir_rows, hid, &f)) != TP_OK || (s = mul(a, f, gh, &f)) != TP_OK ||
        (s = mul(a, f, 2, &rec)) != TP_OK)
        return s;
    /* gates: an activation (4 flops) and a few multiply-adds per gate value */
    if ((s = mul(a, dir_rows, gh, &f)) != TP_OK || (s = mul(a, f, 8, &act)) != TP_OK) return s;
    if ((s = add(a, proj, rec, &f)) != TP_OK || (s = add(a, f, act, &c->flops)) != TP_OK) return s;
    c->kernel = TP_KERNEL_RECURRENT;
    c->gemm_m = batch;
    c->gemm_k = hid;
    c->gemm_n = gh;
    c->gemm_batch = steps;
    c->activation_rows = true;
    c->rec_proj_flops = proj;
    c->rec_proj_m = rows;
    c->rec_input = input;
    return TP_OK;
}

/* Whether any spatial dim of a convolution's window is strided, padded or dilated. */
typedef struct conv_window {
    bool strided, padded, dilated;
} conv_window;

static conv_window window_of(const tp_op *o) {
    conv_window w = {false, false, false};
    for (int32_t i = 0; i < o->attrs.conv.spatial && i < 3; i++) {
        w.strided |= o->attrs.conv.stride[i] > 1;
        w.padded |= o->attrs.conv.pad_begin[i] != 0 || o->attrs.conv.pad_end[i] != 0;
        w.dilated |= o->attrs.conv.dilation[i] > 1;
    }
    return w;
}

static tp_status account_conv(const op_acct *a, uint64_t out_elems, tp_op_cost *c) {
    const tp_node *X = input_node(a, 0), *W = input_node(a, 1);
    if (!X || !W || X->shape.rank < 3 || W->shape.rank < 3)
        return bad_shape(a, "conv needs X[N,C,...] and W[M,C/g,...]");
    int64_t groups = a->n->op.attrs.conv.groups < 1 ? 1 : a->n->op.attrs.conv.groups;
    uint64_t g = (uint64_t)groups, cin = 0, area = 0, x_elems = 0, cout = 0;
    tp_status s;
    if ((s = dim_of(a, X, 1, &cin)) != TP_OK) return s;
    if ((s = kernel_area(a, W, &area)) != TP_OK) return s;
    if (cin % g != 0) return bad_shape(a, "input channels not divisible by groups");
    conv_window win = window_of(&a->n->op);
    if (a->n->op.kind == TP_OP_CONV) {
        /* 2 · out_elems · (c_in / groups) · kernel_area */
        if ((s = dim_of(a, a->n, 1, &cout)) != TP_OK) return s;
        if ((s = mul(a, out_elems, cin / g, &c->flops)) != TP_OK) return s;
        if ((s = mul(a, c->flops, area, &c->flops)) != TP_OK) return s;
        if ((s = mul(a, c->flops, 2, &c->flops)) != TP_OK) return s;
        c->gemm_m = cout ? out_elems / cout : 0;
        c->gemm_k = (cin / g) * area;
        c->gemm_n = cout; /* depthwise: the channels run side by side */
        c->tap_share = conv_tap_share(a);
        c->spatial_rank = (uint32_t)X->shape.rank - 2; /* rank >= 3: checked above */
        c->border_pixels = conv_border_pixels(a, out_elems, cout);
        c->conv_cin = cin / g;
        /* a generic kernel multiplies a 1×1, stride-1, unpadded one's input directly */
        c->conv_expands = area > 1 || win.strided || win.padded;
        if (g > 1 && cin / g == 1) {
            c->kernel = TP_KERNEL_DEPTHWISE;
        } else if (g > 1) {
            /* onnxruntime (MLAS) runs a grouped convolution as im2col + one GEMM per group whose
               rows are the group's cout / g filters: a few-row GEMM (docs/cost.md, "Op classes") */
            c->kernel = TP_KERNEL_GROUPED;
            c->gemm_n = c->gemm_m;
            c->gemm_m = cout / g;
        }
    } else {
        /* transposed: 2 · in_elems · (c_out / groups) · kernel_area */
        if ((s = dim_of(a, W, 1, &cout)) != TP_OK) return s; /* W[C_in, C_out/g, k...] */
        if ((s = elems_of(a, a->n->inputs[0], &x_elems)) != TP_OK) return s;
        if ((s = mul(a, x_elems, cout, &c->flops)) != TP_OK) return s;
        if ((s = mul(a, c->flops, area, &c->flops)) != TP_OK) return s;
        if ((s = mul(a, c->flops, 2, &c->flops)) != TP_OK) return s;
        c->gemm_m = cin ? x_elems / cin : 0;
        c->gemm_k = cin / g;
        c->gemm_n = cout * area;
        /* the column buffer: (c_out / groups) · kernel area rows by the input's pixels, per group
           and image (conv_transpose.cc); the rows path of Col2im (math_cpu.cc): 2-D, unit stride
           along the width, no padding, no dilation */
        if ((s = mul(a, c->gemm_m, c->gemm_n, &c->col2im_elems)) != TP_OK) return s;
        if ((s = mul(a, c->col2im_elems, g, &c->col2im_elems)) != TP_OK) return s;
        const tp_op *o = &a->n->op;
        c->col2im_rows = X->shape.rank == 4 && o->attrs.conv.spatial == 2 &&
                         o->attrs.conv.stride[1] <= 1 && !win.padded && !win.dilated;
        c->col2im_bias = a->n->n_inputs >= 3;
    }
    c->gemm_batch = g;
    if (a->n->n_inputs >= 3 && (s = add(a, c->flops, out_elems, &c->flops)) != TP_OK) return s;
    c->compute_dtype = tp__product_dtype(X, W);
    /* QLinearConv (8-bit in and out), as a QDQ group's (cost/qdq_cost.c) */
    c->direct_quant = a->n->op.kind == TP_OP_CONV && tp_dtype_is_int8(X->dtype) &&
                      tp_dtype_is_int8(a->n->dtype) && tp__quant_conv_direct(c, W);
    if (a->n->op.kind == TP_OP_CONV && a->n->dtype == TP_DTYPE_I32 && tp_dtype_is_int8(X->dtype)) {
        /* ONNX ConvInteger as onnxruntime runs it: im2col, then MLAS's integer GEMM with the
           column buffer as its B, which it packs (u8 × u8: widened to 16 bits) on every run, as
           an SGEMM packs a B computed at run time (pack_b_elems). Probes, 3×3, 64 channels at
           128², one thread: 1.13-1.16× a float32 Conv's speed with uint8 weights, against 1.76×
           for a MatMulInteger of a packed weight; with int8 weights 0.15-0.20× (another path,
           not modelled) */
        uint64_t pixels = c->kernel == TP_KERNEL_GROUPED ? c->gemm_n : c->gemm_m;
        if ((s = mul(a, g, c->gemm_k, &c->pack_b_elems)) != TP_OK) return s;
        if ((s = mul(a, c->pack_b_elems, pixels, &c->pack_b_elems)) != TP_OK) return s;
    }
    return TP_OK;
}

static tp_status account_attention(const op_acct *a, uint64_t out_elems, tp_op_cost *c) {
    const tp_node *q = input_node(a, 0);
    if (!q) return bad_shape(a, "attention without inputs");
    uint64_t h = a->n->op.attrs.attention.heads > 0 ? (uint64_t)a->n->op.attrs.attention.heads : 0;
    uint64_t kvh =
        a->n->op.attrs.attention.kv_heads > 0 ? (uint64_t)a->n->op.attrs.attention.kv_heads : h;
    uint64_t d =
        a->n->op.attrs.attention.head_dim > 0 ? (uint64_t)a->n->op.attrs.attention.head_dim : 0;
    tp_status s;
    if (h == 0)
        return tp_error_setx(a->err, TP_ERR_INVALID, TP_NO_OFFSET, a->id,
                             "node %d '%s' (attention): heads attribute is %lld, need >= 1",
                             (int)a->id, a->n->name, (long long)a->n->op.attrs.attention.heads);
    if (d == 0) {
        /* [b, s, h*d]: derive d from the output's last dim */
        uint64_t last = 0;
        if ((s = dim_of(a, a->n, -1, &last)) != TP_OK) return s;
        d = a->n->shape.rank == 4 ? last : last / h;
    }
    uint64_t b = 1;
    if (q->shape.rank >= 3 && (s = dim_of(a, q, 0, &b)) != TP_OK) return s;
    uint64_t hd = 0, bhd = 0, sq = 0, skv = 0;
    if ((s = mul(a, h, d, &hd)) != TP_OK) return s;
    if ((s = mul(a, hd, b, &bhd)) != TP_OK) return s;
    if (bhd == 0 || out_elems % bhd != 0)
        return bad_shape(a, "output elements not a multiple of batch·heads·head_dim");
    sq = out_elems / bhd;
    if (a->n->op.attrs.attention.packed_qkv || a->n->n_inputs < 3) {
        skv = sq;
    } else {
        uint64_t k_elems = 0, denom = 0;
        if ((s = elems_of(a, a->n->inputs[1], &k_elems)) != TP_OK) return s;
        if ((s = mul(a, b * kvh, d, &denom)) != TP_OK) return s;
        if (denom == 0 || k_elems % denom != 0)
            return bad_shape(a, "key elements not a multiple of batch·kv_heads·head_dim");
        skv = k_elems / denom;
    }
    /* 4 · b · h · s_q · s_kv · d: QKᵀ and PV, each 2 flops (multiply + add) per MAC */
    if ((s = mul(a, out_elems, skv, &c->flops)) != TP_OK) return s;
    if ((s = mul(a, c->flops, 4, &c->flops)) != TP_OK) return s;
    c->gemm_m = sq;
    c->gemm_k = d;
    c->gemm_n = skv;
    c->gemm_batch = b * h * 2;
    c->compute_dtype = q->dtype;
    /* both products' B (Kᵀ, then V: d x s_kv each) are computed at run time: packed per head
     * for two query rows or more (docs/cost.md, "MatMuls of two activations pack B") */
    if (sq >= 2 && (!tp_mul_u64(c->gemm_batch, d, &c->pack_b_elems) ||
                    !tp_mul_u64(c->pack_b_elems, skv, &c->pack_b_elems)))
        return overflow(a, "packed B elements");
    return TP_OK;
}

/* ---- memory-bound ops ---- */

static tp_status per_elem(const op_acct *a, uint64_t elems, uint64_t per, tp_op_cost *c) {
    return mul(a, elems, per, &c->flops);
}

static tp_status account_signal(const op_acct *a, uint64_t out_elems, tp_op_cost *c) {
    const tp_node *x = input_node(a, 0);
    if (!x) return bad_shape(a, "signal op without input");
    uint64_t nfft = a->n->op.attrs.signal.n_fft > 0 ? (uint64_t)a->n->op.attrs.signal.n_fft : 0;
    uint64_t in_elems = 0, last = 0;
    tp_status s;
    if ((s = elems_of(a, a->n->inputs[0], &in_elems)) != TP_OK) return s;
    if ((s = dim_of(a, x, -1, &last)) != TP_OK) return s;
    if (nfft == 0) nfft = last;
    uint64_t lg = ceil_log2(nfft), t = 0;
    switch (a->n->op.kind) {
    case TP_OP_FFT: {
        /* real FFT: 2.5 · n · log2(n) per transform; transforms = out / (n/2 + 1) */
        uint64_t bins = nfft / 2 + 1;
        uint64_t frames = bins ? out_elems / bins : 0;
        if ((s = mul(a, nfft, lg, &t)) != TP_OK) return s;
        if ((s = mul(a, t, 5, &t)) != TP_OK) return s;
        return mul(a, frames, t / 2, &c->flops);
    }
    case TP_OP_LOG_MEL: {
        /* from a spectrogram [.., frames, bins]: mel filter bank 2 · out · bins + log per
         * output; from a waveform (n_fft and hop set): + per frame an FFT (2.5 · n · log2 n)
         * and the power spectrum (2 per bin) */
        uint64_t mels =
            a->n->op.attrs.signal.n_mels > 0 ? (uint64_t)a->n->op.attrs.signal.n_mels : 1;
        bool waveform = a->n->op.attrs.signal.n_fft > 0 && a->n->op.attrs.signal.hop > 0;
        uint64_t bins = waveform ? nfft / 2 + 1 : last, stft = 0, per = 0;
        if (waveform) {
            if ((s = mul(a, nfft, lg, &per)) != TP_OK) return s;
            if ((s = mul(a, per, 5, &per)) != TP_OK) return s;
            if ((s = add(a, per / 2, 2 * bins, &per)) != TP_OK) return s;
            if ((s = mul(a, out_elems / mels, per, &stft)) != TP_OK) return s;
        }
        if ((s = mul(a, out_elems, bins, &t)) != TP_OK) return s;
        if ((s = mul(a, t, 2, &t)) != TP_OK) return s;
        if ((s = add(a, t, out_elems, &t)) != TP_OK) return s;
        return add(a, t, stft, &c->flops);
    }
    default:
        /* Welch: windowed FFTs over the input (2.5·log2 n per sample) + 4 for
         * window, |X|², averaging and peak picking */
        if ((s = mul(a, in_elems, (5 * lg) / 2 + 4, &c->flops)) != TP_OK) return s;
        return TP_OK;
    }
}

/* Where as onnxruntime's CPU kernel runs it (ortgraph/ort_where.h): each of its three passes
   reads its two inputs and writes its result; nothing when a dim is not bound. */
static tp_status account_select(const op_acct *a, tp_op_cost *c) {
    uint64_t cb = 0, xb = 0, yb = 0, out = c->bytes_written, ysel = 0, es = 0;
    tp_status s;
    if (a->n->n_inputs != 3 || !tp_ort_where_y_selection(a->g, a->n, &ysel)) return TP_OK;
    if ((s = bytes_of(a, a->n->inputs[0], &cb)) != TP_OK ||
        (s = bytes_of(a, a->n->inputs[1], &xb)) != TP_OK ||
        (s = bytes_of(a, a->n->inputs[2], &yb)) != TP_OK ||
        (s = tp_dtype_bytes(a->n->dtype, ysel, &es, a->err)) != TP_OK)
        return s;
    uint64_t parts[] = {cb, xb, out, cb, yb, es, out, es, out}, total = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if ((s = add(a, total, parts[i], &total)) != TP_OK) return s;
    c->kernel = TP_KERNEL_SELECT;
    c->select_bytes = total;
    return TP_OK;
}

static tp_status account_memory(const op_acct *a, uint64_t out_elems, tp_op_cost *c) {
    const tp_op *op = &a->n->op;
    uint64_t in_elems = 0;
    tp_status s;
    if (a->n->n_inputs > 0 && (s = elems_of(a, a->n->inputs[0], &in_elems)) != TP_OK) return s;
    switch (op->kind) {
    case TP_OP_UNARY:
        return per_elem(a, out_elems, unary_flops(op->sub), c);
    case TP_OP_BINARY:
        if (op->sub == TP_BINARY_PRELU) c->kernel = TP_KERNEL_PRELU;
        return per_elem(a, out_elems, op->sub == TP_BINARY_POW ? 4 : 1, c);
    case TP_OP_WHERE:
        if ((s = account_select(a, c)) != TP_OK) return s;
        return per_elem(a, out_elems, 1, c);
    case TP_OP_COMPARE:
    case TP_OP_CAST:
    case TP_OP_CUMSUM:
        return per_elem(a, out_elems, 1, c);
    case TP_OP_ROPE:
        return per_elem(a, out_elems, 3, c);
    case TP_OP_RESIZE:
        c->kernel = TP_KERNEL_RESIZE;
        return per_elem(a, out_elems, 4, c);
    case TP_OP_NORM:
        /* statistics over rows (not batch normalization: a per-channel scale at inference) */
        if (op->sub != TP_NORM_BATCH && op->sub != TP_NORM_LRN) c->kernel = TP_KERNEL_ROWNORM;
        return per_elem(a, out_elems, norm_flops(op->sub), c);
    case TP_OP_SOFTMAX:
        if (a->n->flags & TP_NODE_EXP_UNDERFLOW) {
            /* the masked share of its rows of k scores, q rows to a mask (docs/cost.md, "Masked
               Softmax"); one row alone is taken as square */
            uint64_t q = 0, k = 0;
            if ((s = dim_of(a, a->n, -1, &k)) != TP_OK) return s;
            if (a->n->shape.rank < 2)
                q = k;
            else if ((s = dim_of(a, a->n, -2, &q)) != TP_OK)
                return s;
            c->underflow_elems = (uint64_t)((double)out_elems * TP_MASK_SHARE(q, k));
            c->underflow_rows = k && q ? out_elems / k / q * (q - 1) : 0;
            c->exp_denormal = (a->n->flags & TP_NODE_DENORMAL_OUT) != 0;
        }
        return per_elem(a, out_elems, 5, c);
    case TP_OP_REDUCE:
        return per_elem(a, in_elems, reduce_flops(op->sub), c);
    case TP_OP_TOPK:
        return per_elem(a, in_elems, 1, c);
    case TP_OP_POOL: {
        if (op->sub == TP_POOL_GLOBAL_MAX || op->sub == TP_POOL_GLOBAL_AVG)
            return per_elem(a, in_elems, 1, c);
        uint64_t area = 1;
        int32_t sp = op->attrs.conv.spatial;
        if (sp < 0 || sp > 3) return bad_shape(a, "pool spatial rank must be 1..3");
        for (int32_t i = 0; i < sp; i++) {
            int64_t k = op->attrs.conv.kernel[i];
            if (k < 1) return bad_shape(a, "pool kernel size must be >= 1");
            if ((s = mul(a, area, (uint64_t)k, &area)) != TP_OK) return s;
        }
        return per_elem(a, out_elems, area, c);
    }
    case TP_OP_FFT:
    case TP_OP_LOG_MEL:
    case TP_OP_WELCH_PEAKS:
        return account_signal(a, out_elems, c);
    default:
        /* gather/scatter/concat/split/slice/narrow/pad/expand/tile/transpose,
         * custom, control flow: data movement only */
        c->flops = 0;
        return TP_OK;
    }
}

/* Bytes read: every input once per use, except ops that touch part of input 0. */
static tp_status account_bytes(const op_acct *a, tp_op_cost *c) {
    tp_status s;
    const tp_op_kind k = a->n->op.kind;
    uint64_t total = 0, b = 0;
    for (uint32_t i = 0; i < a->n->n_inputs; i++) {
        tp_node_id in = a->n->inputs[i];
        if (i == 0 && (k == TP_OP_SLICE || k == TP_OP_NARROW || k == TP_OP_SPLIT)) {
            b = c->bytes_written; /* reads exactly what it copies */
        } else if (i == 0 && k == TP_OP_GATHER) {
            /* rows actually gathered: output elements in the data's dtype */
            const tp_node *data = tp_graph_node(a->g, in);
            uint64_t out_elems = 0;
            if ((s = elems_of(a, a->id, &out_elems)) != TP_OK) return s;
            tp_error e2;
            if (tp_dtype_bytes(data->dtype, out_elems, &b, &e2) != TP_OK) {
                if ((s = bytes_of(a, in, &b)) != TP_OK) return s;
            }
            uint64_t whole = 0;
            if ((s = bytes_of(a, in, &whole)) != TP_OK) return s;
            if (b > whole) b = whole;
        } else {
            if ((s = bytes_of(a, in, &b)) != TP_OK) return s;
        }
        if (!tp_add_u64(total, b, &total)) return overflow(a, "bytes read");
        const tp_node *src = tp_graph_node(a->g, in);
        if (src && (tp_op_is_weight(src->op.kind)) &&
            !tp_add_u64(c->weight_bytes, b, &c->weight_bytes))
            return overflow(a, "weight bytes");
    }
    c->bytes_read = total;
    return TP_OK;
}

tp_status tp_op_account(const tp_graph *g, tp_node_id id, tp_op_cost *out, tp_error *err) {
    const tp_node *n = g ? tp_graph_node(g, id) : NULL;
    if (!n || !out)
        return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, id, "node %d: no such node",
                             (int)id);
    op_acct a = {g, id, n, err};
    tp_op_cost c;
    memset(&c, 0, sizeof c);
    c.compute_dtype = n->dtype;
    bool meta = false;
    tp_status s = tp_op_is_metadata(g, id, &meta, err);
    if (s != TP_OK) return s;
    if (meta) {
        c.cls = TP_COST_METADATA;
        *out = c;
        return TP_OK;
    }
    uint64_t out_elems = 0;
    if ((s = elems_of(&a, id, &out_elems)) != TP_OK) return s;
    if ((s = bytes_of(&a, id, &c.bytes_written)) != TP_OK) return s;
    c.launches = 1;
    switch (n->op.kind) {
    case TP_OP_MATMUL:
    case TP_OP_GEMM:
    case TP_OP_BATCHED_DOT:
    case TP_OP_FUSED_MATMUL:
        c.cls = TP_COST_GEMM;
        s = account_matmul(&a, out_elems, &c);
        break;
    case TP_OP_CONV:
    case TP_OP_CONV_TRANSPOSE:
        c.cls = TP_COST_GEMM;
        s = account_conv(&a, out_elems, &c);
        break;
    case TP_OP_ATTENTION:
        c.cls = TP_COST_GEMM;
        s = account_attention(&a, out_elems, &c);
        break;
    default: {
        if (n->op.kind == TP_OP_CUSTOM && n->op.attrs.custom.einsum_role[0][0] != TP_EINSUM_NONE) {
            c.cls = TP_COST_GEMM; /* an Einsum that contracts two operands */
            s = account_einsum(&a, out_elems, &c);
            break;
        }
        /* a recurrent custom node (LSTM, GRU, RNN) is GEMMs; every other op moves memory */
        uint32_t gates = tp_ort_recurrent_gates(n);
        c.cls = gates ? TP_COST_GEMM : TP_COST_MEMORY;
        s = gates ? account_recurrent(&a, gates, &c) : account_memory(&a, out_elems, &c);
        break;
    }
    }
    if (s != TP_OK) return s;
    if (n->op.kind == TP_OP_TRANSPOSE && (s = account_transpose(&a, out_elems, &c)) != TP_OK)
        return s;
    if ((s = account_bytes(&a, &c)) != TP_OK) return s;
    *out = c;
    return TP_OK;
}
