/* Shape and dtype inference: the dispatcher, elementwise ops, the matmul
 * family, norms, softmax, reductions, attention and rope. Data movement ops
 * are in infer_data.c; conv/pool and signal ops in infer_spatial.c; the
 * helpers they share (errors, axes, broadcasting, element counts) in
 * infer_common.c. */
#include "core/mem.h"
#include "graph/graph_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *shp(const tp_infer_ctx *c, const tp_shape *s, char *buf, size_t cap) {
    return tp_graph_shape_str(c->g, s, buf, cap);
}

/* Two dims that must be equal: an error only when provably different. */
static tp_status must_agree(const tp_infer_ctx *c, tp_dim a, tp_dim b, const char *what,
                            const tp_shape *sa, const tp_shape *sb, tp_error *err) {
    if (tp_dim_is_static(a) && tp_dim_is_static(b) && a.size != b.size) {
        char b1[128], b2[128];
        return tp_infer_fail(c, TP_ERR_SHAPE, err,
                             "%s differ: %s vs %s (%" PRId64 " vs %" PRId64 ")", what,
                             shp(c, sa, b1, sizeof b1), shp(c, sb, b2, sizeof b2), a.size, b.size);
    }
    return TP_OK;
}

/* ---- elementwise ---- */

static bool is_int_like(tp_dtype t) {
    const tp_dtype_info *d = tp_dtype_get(t);
    return d && (d->kind == 'I' || d->kind == 'B');
}

static tp_status same_dtype(const tp_infer_ctx *c, uint32_t i, uint32_t j, tp_error *err) {
    if (c->in[i]->dtype != c->in[j]->dtype)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "input %u is %s but input %u is %s", i,
                             tp_dtype_name(c->in[i]->dtype), j, tp_dtype_name(c->in[j]->dtype));
    return TP_OK;
}

static tp_status no_quant(const tp_infer_ctx *c, uint32_t i, tp_error *err) {
    if (tp_dtype_is_quantized(c->in[i]->dtype))
        return tp_infer_fail(c, TP_ERR_INVALID, err,
                             "input %u is block-quantized (%s); only matmul-like ops take "
                             "quantized weights",
                             i, tp_dtype_name(c->in[i]->dtype));
    return TP_OK;
}

static tp_status infer_elementwise(const tp_infer_ctx *c, tp_shape *out, tp_dtype *dtype,
                                   tp_error *err) {
    const tp_op *op = c->op;
    tp_status st;
    for (uint32_t i = 0; i < c->n_in; i++)
        if ((st = no_quant(c, i, err)) != TP_OK) return st;
    switch (op->kind) {
    case TP_OP_UNARY:
        if ((unsigned)op->sub >= (unsigned)TP_UNARY_COUNT)
            return tp_infer_fail(c, TP_ERR_INVALID, err, "unknown unary function %d", op->sub);
        if (op->sub == TP_UNARY_NOT && !is_int_like(c->in[0]->dtype))
            return tp_infer_fail(c, TP_ERR_INVALID, err, "not of a %s tensor (needs bool/int)",
                                 tp_dtype_name(c->in[0]->dtype));
        *out = c->in[0]->shape;
        *dtype = c->in[0]->dtype;
        return TP_OK;
    case TP_OP_BINARY:
    case TP_OP_COMPARE: {
        unsigned count = op->kind == TP_OP_BINARY ? TP_BINARY_COUNT : TP_COMPARE_COUNT;
        if ((unsigned)op->sub >= count)
            return tp_infer_fail(c, TP_ERR_INVALID, err, "unknown %s function %d",
                                 tp_op_kind_name(op->kind), op->sub);
        bool pow = op->kind == TP_OP_BINARY && op->sub == TP_BINARY_POW;
        if (!pow && (st = same_dtype(c, 0, 1, err)) != TP_OK) return st;
        bool logic =
            op->kind == TP_OP_BINARY &&
            (op->sub == TP_BINARY_AND || op->sub == TP_BINARY_OR || op->sub == TP_BINARY_XOR);
        if (logic && !is_int_like(c->in[0]->dtype))
            return tp_infer_fail(c, TP_ERR_INVALID, err, "logical op on %s (needs bool/int)",
                                 tp_dtype_name(c->in[0]->dtype));
        *dtype = op->kind == TP_OP_COMPARE ? TP_DTYPE_BOOL : c->in[0]->dtype;
        return tp_infer_broadcast(c, &c->in[0]->shape, &c->in[1]->shape, out, err);
    }
    case TP_OP_WHERE: {
        if (c->in[0]->dtype != TP_DTYPE_BOOL)
            return tp_infer_fail(c, TP_ERR_INVALID, err, "condition is %s, not bool",
                                 tp_dtype_name(c->in[0]->dtype));
        if ((st = same_dtype(c, 1, 2, err)) != TP_OK) return st;
        tp_shape t;
        if ((st = tp_infer_broadcast(c, &c->in[0]->shape, &c->in[1]->shape, &t, err)) != TP_OK)
            return st;
        *dtype = c->in[1]->dtype;
        return tp_infer_broadcast(c, &t, &c->in[2]->shape, out, err);
    }
    default: /* cast */
        if (!tp_dtype_is_valid(op->attrs.cast.to))
            return tp_infer_fail(c, TP_ERR_INVALID, err, "cast to invalid dtype %d",
                                 (int)op->attrs.cast.to);
        *out = c->in[0]->shape;
        *dtype = op->attrs.cast.to;
        return TP_OK;
    }
}

/* ---- matmul family ---- */

static tp_status mm_dtype(const tp_infer_ctx *c, tp_dtype a, tp_dtype b, tp_dtype *out,
                          tp_error *err) {
    bool qa = tp_dtype_is_quantized(a), qb = tp_dtype_is_quantized(b);
    if (qa && qb)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "both operands are block-quantized (%s, %s)",
                             tp_dtype_name(a), tp_dtype_name(b));
    if (qa || qb) {
        *out = qa ? b : a; /* quantized weights: the result has the activation's type */
        return TP_OK;
    }
    if (a != b && !(tp_dtype_is_int8(a) && tp_dtype_is_int8(b)))
        return tp_infer_fail(c, TP_ERR_INVALID, err, "operands have different dtypes (%s, %s)",
                             tp_dtype_name(a), tp_dtype_name(b));
    if (a == TP_DTYPE_BOOL)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "matrix product of bool tensors");
    *out = a;
    return TP_OK;
}

/* numpy matmul of a and b (b transposed in its last two dims when trans_b). */
static tp_status matmul_shape(const tp_infer_ctx *c, const tp_shape *a, const tp_shape *b,
                              bool trans_b, tp_shape *out, tp_error *err) {
    char b1[128], b2[128];
    if (a->rank < 1 || b->rank < 1)
        return tp_infer_fail(c, TP_ERR_SHAPE, err, "matrix product of a scalar (%s, %s)",
                             shp(c, a, b1, sizeof b1), shp(c, b, b2, sizeof b2));
    if (trans_b && b->rank < 2)
        return tp_infer_fail(c, TP_ERR_SHAPE, err, "trans_b needs a rank >= 2 operand, got %s",
                             shp(c, b, b1, sizeof b1));
    tp_shape A = *a, B = *b;
    bool a_vec = A.rank == 1, b_vec = B.rank == 1;
    if (a_vec) A = tp_shape_make(2, (tp_dim[]){tp_dim_static(1), a->dims[0]});
    if (b_vec) B = tp_shape_make(2, (tp_dim[]){b->dims[0], tp_dim_static(1)});
    if (trans_b) {
        tp_dim t = B.dims[B.rank - 1];
        B.dims[B.rank - 1] = B.dims[B.rank - 2];
        B.dims[B.rank - 2] = t;
    }
    tp_dim m = A.dims[A.rank - 2], ka = A.dims[A.rank - 1];
    tp_dim kb = B.dims[B.rank - 2], n = B.dims[B.rank - 1];
    tp_status st = must_agree(c, ka, kb, "contraction dims", a, b, err);
    if (st != TP_OK) return st;
    tp_shape ba = tp_shape_make(A.rank - 2, A.dims), bb = tp_shape_make(B.rank - 2, B.dims);
    tp_shape batch;
    if ((st = tp_infer_broadcast(c, &ba, &bb, &batch, err)) != TP_OK) return st;
    tp_shape o = batch;
    if (!a_vec) o.dims[o.rank++] = m;
    if (!b_vec) o.dims[o.rank++] = n;
    *out = o;
    return TP_OK;
}

static tp_status infer_matmul(const tp_infer_ctx *c, tp_shape *out, tp_dtype *dtype,
                              tp_error *err) {
    const tp_node *a = c->in[0], *b = c->in[1];
    char b1[128], b2[128];
    tp_status st = mm_dtype(c, a->dtype, b->dtype, dtype, err);
    if (st != TP_OK) return st;
    switch (c->op->kind) {
    case TP_OP_MATMUL:
        return matmul_shape(c, &a->shape, &b->shape, false, out, err);
    case TP_OP_BATCHED_DOT:
        if (a->shape.rank != 3 || b->shape.rank != 3)
            return tp_infer_fail(c, TP_ERR_SHAPE, err, "needs A[b,m,k] and B[b,k,n], got %s, %s",
                                 shp(c, &a->shape, b1, sizeof b1),
                                 shp(c, &b->shape, b2, sizeof b2));
        return matmul_shape(c, &a->shape, &b->shape, false, out, err);
    case TP_OP_FUSED_MATMUL: {
        const tp_op *op = c->op;
        if ((unsigned)op->attrs.fused.act >= (unsigned)TP_UNARY_COUNT)
            return tp_infer_fail(c, TP_ERR_INVALID, err, "unknown activation %d",
                                 (int)op->attrs.fused.act);
        if (op->attrs.fused.has_bias != (c->n_in == 3))
            return tp_infer_fail(c, TP_ERR_INVALID, err, "has_bias is %s but %u inputs given",
                                 op->attrs.fused.has_bias ? "true" : "false", c->n_in);
        tp_shape mm;
        st = matmul_shape(c, &a->shape, &b->shape, op->attrs.fused.trans_b, &mm, err);
        if (st != TP_OK || c->n_in < 3) {
            *out = mm;
            return st;
        }
        if ((st = no_quant(c, 2, err)) != TP_OK) return st;
        tp_shape t;
        if ((st = tp_infer_broadcast(c, &mm, &c->in[2]->shape, &t, err)) != TP_OK) return st;
        if (t.rank != mm.rank)
            return tp_infer_fail(c, TP_ERR_SHAPE, err, "bias %s has a higher rank than %s",
                                 shp(c, &c->in[2]->shape, b1, sizeof b1),
                                 shp(c, &mm, b2, sizeof b2));
        *out = mm;
        return TP_OK;
    }
    default: { /* gemm */
        const tp_op *op = c->op;
        if (a->shape.rank != 2 || b->shape.rank != 2)
            return tp_infer_fail(c, TP_ERR_SHAPE, err, "gemm needs 2-D operands, got %s, %s",
                                 shp(c, &a->shape, b1, sizeof b1),
                                 shp(c, &b->shape, b2, sizeof b2));
        bool ta = op->attrs.gemm.trans_a, tb = op->attrs.gemm.trans_b;
        tp_dim m = a->shape.dims[ta ? 1 : 0], ka = a->shape.dims[ta ? 0 : 1];
        tp_dim kb = b->shape.dims[tb ? 1 : 0], n = b->shape.dims[tb ? 0 : 1];
        if ((st = must_agree(c, ka, kb, "contraction dims", &a->shape, &b->shape, err)) != TP_OK)
            return st;
        tp_shape o = tp_shape_make(2, (tp_dim[]){m, n});
        if (c->n_in == 3) {
            const tp_shape *cs = &c->in[2]->shape;
            tp_shape t;
            if ((st = no_quant(c, 2, err)) != TP_OK) return st;
            if (cs->rank > 2)
                return tp_infer_fail(c, TP_ERR_SHAPE, err, "C %s has rank > 2",
                                     shp(c, cs, b1, sizeof b1));
            if ((st = tp_infer_broadcast(c, &o, cs, &t, err)) != TP_OK) return st;
            for (int32_t i = 0; i < 2; i++)
                if ((st = must_agree(c, t.dims[i], o.dims[i], "C must broadcast to [M,N]; dims", cs,
                                     &o, err)) != TP_OK)
                    return st;
        }
        *out = o;
        return TP_OK;
    }
    }
}

/* ---- norms, softmax, reductions ---- */

static tp_status infer_norm(const tp_infer_ctx *c, tp_shape *out, tp_dtype *dtype, tp_error *err) {
    const tp_node *x = c->in[0];
    const tp_op *op = c->op;
    tp_status st;
    int32_t ax = 0;
    if ((st = no_quant(c, 0, err)) != TP_OK) return st;
    if (op->kind == TP_OP_SOFTMAX) {
        if (op->sub != 0 && op->sub != 1)
            return tp_infer_fail(c, TP_ERR_INVALID, err, "unknown softmax variant %d", op->sub);
        if ((st = tp_infer_axis(c, op->attrs.axis.axis, x->shape.rank, "axis", &ax, err)) != TP_OK)
            return st;
    } else {
        if ((unsigned)op->sub >= (unsigned)TP_NORM_COUNT)
            return tp_infer_fail(c, TP_ERR_INVALID, err, "unknown norm kind %d", op->sub);
        if (x->shape.rank < 1) return tp_infer_fail(c, TP_ERR_SHAPE, err, "norm of a scalar");
        switch (op->sub) {
        case TP_NORM_LAYER:
        case TP_NORM_RMS:
            st = tp_infer_axis(c, op->attrs.norm.axis, x->shape.rank, "axis", &ax, err);
            if (st != TP_OK) return st;
            break;
        case TP_NORM_GROUP: {
            int64_t gr = op->attrs.norm.groups;
            if (x->shape.rank < 2 || gr < 1)
                return tp_infer_fail(c, TP_ERR_INVALID, err,
                                     "group norm needs [N,C,...] and groups >= 1 (rank %d, "
                                     "groups %" PRId64 ")",
                                     (int)x->shape.rank, gr);
            tp_dim ch = x->shape.dims[1];
            if (tp_dim_is_static(ch) && ch.size % gr != 0)
                return tp_infer_fail(
                    c, TP_ERR_SHAPE, err,
                    "%" PRId64 " channels are not divisible into %" PRId64 " groups", ch.size, gr);
            break;
        }
        case TP_NORM_BATCH:
        case TP_NORM_INSTANCE:
        case TP_NORM_LRN:
            if (x->shape.rank < 2)
                return tp_infer_fail(c, TP_ERR_SHAPE, err, "needs [N,C,...], got rank %d",
                                     (int)x->shape.rank);
            break;
        default:
            break;
        }
    }
    *out = x->shape;
    *dtype = x->dtype;
    return TP_OK;
}

static tp_status infer_reduce(const tp_infer_ctx *c, tp_shape *out, tp_dtype *dtype,
                              tp_error *err) {
    const tp_node *x = c->in[0];
    const tp_op *op = c->op;
    tp_status st;
    if ((unsigned)op->sub >= (unsigned)TP_REDUCE_COUNT)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "unknown reduce function %d", op->sub);
    if ((st = no_quant(c, 0, err)) != TP_OK) return st;
    int32_t n = op->attrs.reduce.n_axes, r = x->shape.rank;
    bool arg = op->sub == TP_REDUCE_ARGMAX || op->sub == TP_REDUCE_ARGMIN;
    if (n < 0 || n > TP_MAX_RANK || (arg && n > 1))
        return tp_infer_fail(c, TP_ERR_INVALID, err, "%d reduction axes", (int)n);
    bool red[TP_MAX_RANK] = {false};
    if (n == 0) {
        for (int32_t i = 0; i < r; i++)
            red[i] = true; /* ONNX: no axes = every axis (arg*: axis 0) */
        if (arg && r > 0) {
            for (int32_t i = 1; i < r; i++)
                red[i] = false;
        }
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t a = 0;
        if ((st = tp_infer_axis(c, op->attrs.reduce.axes[i], r, "reduce axis", &a, err)) != TP_OK)
            return st;
        if (red[a])
            return tp_infer_fail(c, TP_ERR_INVALID, err, "reduce axis %" PRId64 " repeated",
                                 op->attrs.reduce.axes[i]);
        red[a] = true;
    }
    tp_shape o = tp_shape_make(0, NULL);
    for (int32_t i = 0; i < r; i++) {
        if (!red[i])
            o.dims[o.rank++] = x->shape.dims[i];
        else if (op->attrs.reduce.keepdims)
            o.dims[o.rank++] = tp_dim_static(1);
    }
    *out = o;
    *dtype = arg ? TP_DTYPE_I64 : x->dtype;
    return TP_OK;
}

/* ---- attention and rope ---- */

static tp_status infer_attention(const tp_infer_ctx *c, tp_shape *out, tp_dtype *dtype,
                                 tp_error *err) {
    const tp_op *op = c->op;
    int64_t h = op->attrs.attention.heads, kvh = op->attrs.attention.kv_heads;
    int64_t d = op->attrs.attention.head_dim;
    int32_t mask = op->attrs.attention.mask;
    bool packed = op->attrs.attention.packed_qkv;
    const tp_node *q = c->in[0];
    char b1[128], b2[128];
    tp_status st;
    const int64_t lim = INT64_C(1) << 24;
    if (h < 1 || kvh < 0 || d < 0 || h > lim || kvh > lim || d > lim || (kvh > 0 && h % kvh != 0))
        return tp_infer_fail(c, TP_ERR_INVALID, err,
                             "bad head counts: heads %" PRId64 ", kv_heads %" PRId64
                             ", head_dim %" PRId64
                             " (heads >= 1, a multiple of kv_heads, all <= 2^24)",
                             h, kvh, d);
    if (kvh == 0) kvh = h;
    if (mask < 0 || mask >= TP_MASK_COUNT)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "unknown mask kind %d", (int)mask);
    uint32_t n_data = packed ? 1 : 3;
    if (mask == TP_MASK_EXPLICIT && c->n_in != n_data + 1)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "explicit mask but no mask input");
    for (uint32_t i = 0; i < n_data; i++) {
        if ((st = no_quant(c, i, err)) != TP_OK) return st;
        if (i && (st = same_dtype(c, 0, i, err)) != TP_OK) return st;
    }
    *dtype = q->dtype;
    if (packed) {
        if (q->shape.rank != 3)
            return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                 "packed qkv must be [b,s,(h+2*kv_h)*d], got %s",
                                 shp(c, &q->shape, b1, sizeof b1));
        tp_dim t = q->shape.dims[2];
        int64_t parts = h + 2 * kvh;
        if (d == 0) {
            if (!tp_dim_is_static(t))
                return tp_infer_fail(c, TP_ERR_INVALID, err,
                                     "head_dim is needed when the packed dim is symbolic");
            if (t.size % parts != 0)
                return tp_infer_fail(
                    c, TP_ERR_SHAPE, err,
                    "packed dim %" PRId64 " is not a multiple of %" PRId64 " heads", t.size, parts);
            d = t.size / parts;
        } else if (tp_dim_is_static(t) && t.size != parts * d) {
            return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                 "packed dim %" PRId64 " != (heads %" PRId64
                                 " + 2*kv_heads %" PRId64 ") * head_dim %" PRId64,
                                 t.size, h, kvh, d);
        }
        *out =
            tp_shape_make(3, (tp_dim[]){q->shape.dims[0], q->shape.dims[1], tp_dim_static(h * d)});
        return TP_OK;
    }
    const tp_node *k = c->in[1], *v = c->in[2];
    int32_t r = q->shape.rank;
    if ((r != 3 && r != 4) || k->shape.rank != r || v->shape.rank != r)
        return tp_infer_fail(c, TP_ERR_SHAPE, err,
                             "q, k, v must all be [b,s,h*d] or all [b,h,s,d]; q is %s, k is %s",
                             shp(c, &q->shape, b1, sizeof b1), shp(c, &k->shape, b2, sizeof b2));
    if ((st = must_agree(c, q->shape.dims[0], k->shape.dims[0], "batch dims", &q->shape, &k->shape,
                         err)) != TP_OK ||
        (st = must_agree(c, k->shape.dims[0], v->shape.dims[0], "batch dims", &k->shape, &v->shape,
                         err)) != TP_OK)
        return st;
    int32_t seq = r == 3 ? 1 : 2;
    if ((st = must_agree(c, k->shape.dims[seq], v->shape.dims[seq], "key/value lengths", &k->shape,
                         &v->shape, err)) != TP_OK)
        return st;
    if (r == 3 && d == 0 && tp_dim_is_static(q->shape.dims[2]) && q->shape.dims[2].size % h != 0)
        return tp_infer_fail(c, TP_ERR_SHAPE, err,
                             "q last dim %" PRId64 " is not a multiple of %" PRId64 " heads",
                             q->shape.dims[2].size, h);
    if (r == 3 && d > 0) {
        tp_dim qd = q->shape.dims[2], kd = k->shape.dims[2];
        if (tp_dim_is_static(qd) && qd.size != h * d)
            return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                 "q last dim %" PRId64 " != heads %" PRId64 " * head_dim %" PRId64,
                                 qd.size, h, d);
        if (tp_dim_is_static(kd) && kd.size != kvh * d)
            return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                 "k last dim %" PRId64 " != kv_heads %" PRId64
                                 " * head_dim %" PRId64,
                                 kd.size, kvh, d);
    }
    if (r == 4) {
        tp_dim qh = q->shape.dims[1], kh = k->shape.dims[1];
        if (tp_dim_is_static(qh) && qh.size != h)
            return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                 "q has %" PRId64 " heads, attrs say %" PRId64, qh.size, h);
        if (tp_dim_is_static(kh) && kh.size != kvh)
            return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                 "k has %" PRId64 " heads, attrs say kv_heads %" PRId64, kh.size,
                                 kvh);
        if ((st = must_agree(c, q->shape.dims[3], k->shape.dims[3], "head dims", &q->shape,
                             &k->shape, err)) != TP_OK)
            return st;
    }
    *out = q->shape;
    return TP_OK;
}

/* ---- dispatcher ---- */

tp_status tp_graph_infer(const tp_infer_ctx *c, tp_shape *out, tp_dtype *dtype, bool *no_rule,
                         tp_error *err) {
    *no_rule = false;
    *out = tp_shape_make(0, NULL);
    *dtype = c->n_in ? c->in[0]->dtype : TP_DTYPE_F32;
    switch (c->op->kind) {
    case TP_OP_UNARY:
    case TP_OP_BINARY:
    case TP_OP_COMPARE:
    case TP_OP_WHERE:
    case TP_OP_CAST:
        return infer_elementwise(c, out, dtype, err);
    case TP_OP_MATMUL:
    case TP_OP_GEMM:
    case TP_OP_BATCHED_DOT:
    case TP_OP_FUSED_MATMUL:
        return infer_matmul(c, out, dtype, err);
    case TP_OP_NORM:
    case TP_OP_SOFTMAX:
        return infer_norm(c, out, dtype, err);
    case TP_OP_REDUCE:
        return infer_reduce(c, out, dtype, err);
    case TP_OP_ATTENTION:
        return infer_attention(c, out, dtype, err);
    case TP_OP_ROPE:
    case TP_OP_CUMSUM: {
        tp_status st = no_quant(c, 0, err);
        if (st != TP_OK) return st;
        if (c->op->kind == TP_OP_CUMSUM) {
            int32_t ax = 0;
            st = tp_infer_axis(c, c->op->attrs.axis.axis, c->in[0]->shape.rank, "axis", &ax, err);
            if (st != TP_OK) return st;
        }
        *out = c->in[0]->shape;
        *dtype = c->in[0]->dtype;
        return TP_OK;
    }
    case TP_OP_RESHAPE:
    case TP_OP_EXPAND:
    case TP_OP_CUSTOM:
    case TP_OP_IF:
    case TP_OP_LOOP:
    case TP_OP_SCAN:
    case TP_OP_OUTPUT_OF:
        *no_rule = true;
        return TP_OK;
    default:
        break;
    }
    bool handled = false;
    tp_status st = tp_infer_data(c, out, dtype, no_rule, &handled, err);
    if (st != TP_OK || handled) return st;
    st = tp_infer_spatial(c, out, dtype, no_rule, &handled, err);
    if (st != TP_OK || handled) return st;
    *no_rule = true;
    return TP_OK;
}
