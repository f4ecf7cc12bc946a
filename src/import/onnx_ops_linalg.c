/* ONNX shape rules: MatMul / Gemm / Einsum, Conv / ConvTranspose, pooling
 * (onnx_ops.h). */
#include <stdio.h>
#include <string.h>

#include "import/onnx_ops.h"

/* ---- matmul family ---- */

/* numpy matmul of shapes a and b into *out. */
static tp_status ox_matmul_shape(tp_ox_ctx *c, const tp_shape *a0, const tp_shape *b0,
                                 tp_shape *out) {
    tp_shape a = *a0, b = *b0;
    if (a.rank == 0 || b.rank == 0) return tp_ox_fail(c, TP_ERR_SHAPE, "matmul of a scalar");
    bool a1 = a.rank == 1, b1 = b.rank == 1;
    if (a1) {
        a.rank = 2;
        a.dims[1] = a.dims[0];
        a.dims[0] = tp_dim_static(1);
    }
    if (b1) {
        b.rank = 2;
        b.dims[1] = tp_dim_static(1);
    }
    tp_dim ka = a.dims[a.rank - 1], kb = b.dims[b.rank - 2];
    if (tp_dim_is_static(ka) && tp_dim_is_static(kb) && ka.size != kb.size)
        return tp_ox_fail(c, TP_ERR_SHAPE, "matmul inner dims differ: %lld vs %lld",
                          (long long)ka.size, (long long)kb.size);
    tp_shape ba = a, bb = b;
    ba.rank = a.rank - 2;
    bb.rank = b.rank - 2;
    const tp_shape *sh[2] = {&ba, &bb};
    tp_shape batch;
    tp_status st = tp_ox_broadcast(c, sh, 2, &batch);
    if (st != TP_OK) return st;
    *out = batch;
    if (!a1) out->dims[out->rank++] = a.dims[a.rank - 2];
    if (!b1) out->dims[out->rank++] = b.dims[b.rank - 1];
    if (out->rank > TP_MAX_RANK) return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "rank too large");
    return TP_OK;
}

static tp_status r_matmul(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st != TP_OK) return st;
    c->out[0].elem_type = c->in[0].elem_type;
    c->op.kind = TP_OP_MATMUL;
    return tp_ox_ir_shape(c, 0);
}

/* MatMulInteger (a, b, a_zero_point, b_zero_point) -> int32 and QLinearMatMul (a, a_scale,
 * a_zp, b, b_scale, b_zp, y_scale, y_zp) -> y's 8-bit type: IR matrix products of the two 8-bit
 * operands (`a`, `b` the input indices), so that the cost model prices their multiply-adds
 * (docs/cost.md, "Integer matrix products"); the scalar scales and zero points are not IR
 * inputs. */
static tp_status integer_matmul(tp_ox_ctx *c, int32_t a, int32_t b, int32_t out_elem) {
    tp_status st = ox_matmul_shape(c, &c->in[a].shape, &c->in[b].shape, &c->out[0].shape);
    if (st != TP_OK) return st;
    c->out[0].elem_type = out_elem;
    c->op.kind = TP_OP_MATMUL;
    tp_ox_ir_inputs(c, 2, (const int32_t[]){a, b});
    return tp_ox_ir_shape(c, 0);
}

static tp_status r_matmul_integer(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 4);
    if (st != TP_OK) return st;
    return integer_matmul(c, 0, 1, TP_ONNX_INT32);
}

static tp_status r_qlinear_matmul(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 8, 8);
    if (st != TP_OK) return st;
    return integer_matmul(c, 0, 3, c->in[7].elem_type);
}

static tp_status r_gemm(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 3);
    if (st != TP_OK) return st;
    c->out[0].elem_type = c->in[0].elem_type;
    c->op.kind = TP_OP_GEMM;
    c->op.attrs.gemm.trans_a = tp_ox_attr_int(c, "transA", 0) != 0;
    c->op.attrs.gemm.trans_b = tp_ox_attr_int(c, "transB", 0) != 0;
    c->op.attrs.gemm.alpha = tp_ox_attr_float(c, "alpha", 1.0f);
    c->op.attrs.gemm.beta = tp_ox_attr_float(c, "beta", 1.0f);
    return tp_ox_ir_shape(c, 0);
}

/* The axis roles of an Einsum of two operands that is a contraction (tp_einsum_role): every
 * letter of a term appears once in it and also in the other operand or the output; "..." axes
 * are batch axes. Any other equation (one operand, three, a diagonal, a letter summed within
 * one operand) leaves the roles TP_EINSUM_NONE: a custom node without a cost. */
static void einsum_roles(tp_ox_ctx *c, char terms[][64], uint32_t nt, const char *outs) {
    if (nt != 2) return;
    bool in_out[128] = {0}, in_term[2][128] = {{0}};
    for (const char *q = outs; *q; q++)
        if (*q != '.' && (unsigned char)*q < 128) in_out[(unsigned char)*q] = true;
    for (uint32_t t = 0; t < 2; t++)
        for (const char *q = terms[t]; *q; q++) {
            unsigned char L = (unsigned char)*q;
            if (L == '.' || L >= 128) continue;
            if (in_term[t][L]) return; /* a diagonal */
            in_term[t][L] = true;
        }
    uint8_t role[2][TP_MAX_RANK] = {{0}};
    for (uint32_t t = 0; t < 2; t++) {
        int32_t ax = 0, n_letters = 0;
        for (const char *q = terms[t]; *q; q++)
            if (*q != '.') n_letters++;
        int32_t n_ell = strstr(terms[t], "...") ? c->in[t].shape.rank - n_letters : 0;
        for (const char *q = terms[t]; *q; q++) {
            unsigned char L = (unsigned char)*q;
            if (L == '.') {
                if (q[1] == '.' && q[2] == '.') {
                    for (int32_t e = 0; e < n_ell && ax < TP_MAX_RANK; e++)
                        role[t][ax++] = TP_EINSUM_BATCH;
                    q += 2;
                }
                continue;
            }
            if (ax >= TP_MAX_RANK) return;
            bool other = in_term[1 - t][L];
            if (other && in_out[L])
                role[t][ax++] = TP_EINSUM_BATCH;
            else if (other)
                role[t][ax++] = TP_EINSUM_SUM;
            else if (in_out[L])
                role[t][ax++] = t == 0 ? TP_EINSUM_ROWS : TP_EINSUM_COLS;
            else
                return; /* summed within one operand */
        }
    }
    memcpy(c->einsum_role, role, sizeof role);
}

/* Einsum: output subscripts (explicit after "->" or implicit: letters used
 * once, sorted), with "..." broadcast over the inputs' leading dims. */
static tp_status r_einsum(tp_ox_ctx *c) {
    const char *eq = tp_ox_attr_str(c, "equation", "");
    char terms[16][64], outs[64];
    uint32_t nt = 0;
    size_t p = 0;
    bool explicit_out = false;
    outs[0] = 0;
    terms[0][0] = 0;
    for (const char *s = eq;; s++) {
        if (*s == ' ') continue;
        if (*s == ',' || *s == 0 || (*s == '-' && s[1] == '>')) {
            if (nt >= 16) return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "too many einsum terms");
            terms[nt][p] = 0;
            nt++;
            p = 0;
            if (*s == '-') {
                explicit_out = true;
                snprintf(outs, sizeof outs, "%s", s + 2);
                size_t w = 0;
                for (size_t r = 0; outs[r]; r++)
                    if (outs[r] != ' ') outs[w++] = outs[r];
                outs[w] = 0;
                break;
            }
            if (*s == 0) break;
            continue;
        }
        if (p + 1 >= sizeof terms[0]) return tp_ox_fail(c, TP_ERR_PARSE, "einsum term too long");
        terms[nt][p++] = *s;
    }
    if (nt != c->n_in)
        return tp_ox_fail(c, TP_ERR_PARSE, "einsum '%s' has %u terms for %u inputs", eq, nt,
                          c->n_in);
    tp_dim letter[128];
    bool seen[128] = {0};
    int count[128] = {0};
    tp_shape ell[16];
    const tp_shape *ellp[16];
    for (uint32_t t = 0; t < nt; t++) {
        const tp_shape *s = &c->in[t].shape;
        const char *tm = terms[t];
        int32_t n_letters = 0;
        for (const char *q = tm; *q; q++)
            if (*q != '.') n_letters++;
        int32_t n_ell = strstr(tm, "...") ? s->rank - n_letters : 0;
        if (n_ell < 0) return tp_ox_fail(c, TP_ERR_SHAPE, "einsum term '%s' rank mismatch", tm);
        ell[t].rank = n_ell;
        ellp[t] = &ell[t];
        int32_t ax = 0;
        for (const char *q = tm; *q; q++) {
            if (*q == '.') {
                if (q[1] == '.' && q[2] == '.') {
                    for (int32_t e = 0; e < n_ell; e++)
                        ell[t].dims[e] = s->dims[ax++];
                    q += 2;
                }
                continue;
            }
            unsigned char L = (unsigned char)*q;
            if (L >= 128 || ax >= s->rank)
                return tp_ox_fail(c, TP_ERR_SHAPE, "einsum term '%s' does not match rank %d", tm,
                                  (int)s->rank);
            tp_dim d = s->dims[ax++];
            if (!seen[L] || (tp_dim_is_static(letter[L]) && letter[L].size == 1)) letter[L] = d;
            seen[L] = true;
            count[L]++;
        }
        if (ax != s->rank)
            return tp_ox_fail(c, TP_ERR_SHAPE, "einsum term '%s' does not match rank %d", tm,
                              (int)s->rank);
    }
    tp_shape eb;
    tp_status st = tp_ox_broadcast(c, ellp, nt, &eb);
    if (st != TP_OK) return st;
    tp_shape *o = &c->out[0].shape;
    o->rank = 0;
    if (!explicit_out) {
        for (int32_t e = 0; e < eb.rank; e++)
            o->dims[o->rank++] = eb.dims[e];
        for (int L = 0; L < 128; L++)
            if (count[L] == 1 && o->rank < TP_MAX_RANK) o->dims[o->rank++] = letter[L];
    } else {
        for (const char *q = outs; *q; q++) {
            if (*q == '.') {
                if (q[1] == '.' && q[2] == '.') {
                    for (int32_t e = 0; e < eb.rank && o->rank < TP_MAX_RANK; e++)
                        o->dims[o->rank++] = eb.dims[e];
                    q += 2;
                }
                continue;
            }
            unsigned char L = (unsigned char)*q;
            if (L >= 128 || !seen[L] || o->rank >= TP_MAX_RANK)
                return tp_ox_fail(c, TP_ERR_PARSE, "einsum output letter '%c' not in inputs", *q);
            o->dims[o->rank++] = letter[L];
        }
    }
    c->out[0].elem_type = c->in[0].elem_type;
    if (!explicit_out) { /* the implicit output: "..." then the letters used once, sorted */
        size_t w = 0;
        if (eb.rank > 0) w += (size_t)snprintf(outs, sizeof outs, "...");
        for (int L = 0; L < 128 && w + 1 < sizeof outs; L++)
            if (count[L] == 1) outs[w++] = (char)L;
        outs[w] = 0;
    }
    einsum_roles(c, terms, nt, outs);
    return TP_OK;
}

/* ---- convolution and pooling ---- */

/* Window attributes (kernel, stride, dilation, pads) above this are rejected, so
 * that the size arithmetic below cannot overflow. */
#define WIN_LIMIT ((int64_t)1 << 31)
#define DIM_LIMIT ((int64_t)1 << 61)

typedef struct win {
    int32_t sp;
    int64_t k[8], s[8], d[8], pb[8], pe[8], op[8];
    const char *auto_pad;
    bool ceil;
} win;

static tp_status read_window(tp_ox_ctx *c, win *w, int32_t sp, const int64_t *kernel) {
    uint32_t n;
    w->sp = sp;
    for (int32_t i = 0; i < sp; i++) {
        w->k[i] = kernel ? kernel[i] : 1;
        w->s[i] = w->d[i] = 1;
        w->pb[i] = w->pe[i] = w->op[i] = 0;
    }
    const int64_t *v = tp_ox_attr_ints(c, "strides", &n);
    if (v && n != (uint32_t)sp) return tp_ox_fail(c, TP_ERR_PARSE, "strides has %u values", n);
    for (uint32_t i = 0; v && i < n; i++)
        w->s[i] = v[i];
    v = tp_ox_attr_ints(c, "dilations", &n);
    if (v && n != (uint32_t)sp) return tp_ox_fail(c, TP_ERR_PARSE, "dilations has %u values", n);
    for (uint32_t i = 0; v && i < n; i++)
        w->d[i] = v[i];
    v = tp_ox_attr_ints(c, "pads", &n);
    if (v && n != 2u * (uint32_t)sp) return tp_ox_fail(c, TP_ERR_PARSE, "pads has %u values", n);
    for (int32_t i = 0; v && i < sp; i++) {
        w->pb[i] = v[i];
        w->pe[i] = v[i + sp];
    }
    v = tp_ox_attr_ints(c, "output_padding", &n);
    for (uint32_t i = 0; v && i < n && i < (uint32_t)sp; i++)
        w->op[i] = v[i];
    for (int32_t i = 0; i < sp; i++)
        if (w->s[i] <= 0 || w->d[i] <= 0 || w->k[i] <= 0 || w->pb[i] < 0 || w->pe[i] < 0 ||
            w->s[i] > WIN_LIMIT || w->d[i] > WIN_LIMIT || w->k[i] > WIN_LIMIT ||
            w->pb[i] > WIN_LIMIT || w->pe[i] > WIN_LIMIT || w->op[i] < 0 || w->op[i] > WIN_LIMIT)
            return tp_ox_fail(c, TP_ERR_PARSE,
                              "bad window on axis %d (kernel %lld, stride %lld, "
                              "dilation %lld, pads %lld/%lld)",
                              (int)i, (long long)w->k[i], (long long)w->s[i], (long long)w->d[i],
                              (long long)w->pb[i], (long long)w->pe[i]);
    w->auto_pad = tp_ox_attr_str(c, "auto_pad", "NOTSET");
    w->ceil = tp_ox_attr_int(c, "ceil_mode", 0) != 0;
    return TP_OK;
}

/* x + k for a possibly negative static k. */
static tp_status add_const(tp_ox_ctx *c, tp_dim x, int64_t k, tp_dim *out) {
    if (k == 0) {
        *out = x;
        return TP_OK;
    }
    if (k >= 0) return tp_ox_dim(c, TP_SYM_ADD, x, tp_dim_static(k), out);
    return tp_ox_dim(c, TP_SYM_SUB, x, tp_dim_static(-k), out);
}

/* Output size of one spatial axis of conv / pool. */
static tp_status conv_window_out(tp_ox_ctx *c, const win *w, int32_t i, tp_dim in, tp_dim *out) {
    int64_t ek = w->d[i] * (w->k[i] - 1) + 1;
    tp_dim r;
    tp_status st;
    if (strcmp(w->auto_pad, "SAME_UPPER") == 0 || strcmp(w->auto_pad, "SAME_LOWER") == 0) {
        return tp_ox_dim(c, TP_SYM_DIV_CEIL, in, tp_dim_static(w->s[i]), out);
    }
    int64_t pads = strcmp(w->auto_pad, "VALID") == 0 ? 0 : w->pb[i] + w->pe[i];
    if (tp_dim_is_static(in)) {
        if (in.size > DIM_LIMIT)
            return tp_ox_fail(c, TP_ERR_OVERFLOW, "spatial size %lld too large",
                              (long long)in.size);
        int64_t num = in.size + pads - ek;
        if (num < 0)
            return tp_ox_fail(c, TP_ERR_SHAPE,
                              "window %lld larger than padded input %lld on "
                              "spatial axis %d",
                              (long long)ek, (long long)(in.size + pads), (int)i);
        int64_t o = (w->ceil ? (num + w->s[i] - 1) / w->s[i] : num / w->s[i]) + 1;
        /* ceil mode: the last window must start inside the input or left padding */
        if (w->ceil && (o - 1) * w->s[i] >= in.size + w->pb[i]) o--;
        *out = tp_dim_static(o);
        return TP_OK;
    }
    if (w->s[i] == 1) return add_const(c, in, pads - ek + 1, out); /* keeps `h` as `h` */
    st = add_const(c, in, pads - ek, &r);
    if (st == TP_OK)
        st = tp_ox_dim(c, w->ceil ? TP_SYM_DIV_CEIL : TP_SYM_DIV_FLOOR, r, tp_dim_static(w->s[i]),
                       &r);
    if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_ADD, r, tp_dim_static(1), out);
    return st;
}

static bool auto_same(const win *w) {
    return strcmp(w->auto_pad, "SAME_UPPER") == 0 || strcmp(w->auto_pad, "SAME_LOWER") == 0;
}

/* auto_pad SAME_*: the explicit pads that give the same output (for the IR's
 * conv attributes, which carry pads only). Static sizes; stride 1 otherwise. */
static void resolve_same_pads(win *w, const tp_shape *x, const tp_shape *o) {
    bool upper = strcmp(w->auto_pad, "SAME_UPPER") == 0;
    if (!upper && strcmp(w->auto_pad, "SAME_LOWER") != 0) {
        if (strcmp(w->auto_pad, "VALID") == 0)
            for (int32_t i = 0; i < w->sp; i++)
                w->pb[i] = w->pe[i] = 0;
        return;
    }
    for (int32_t i = 0; i < w->sp; i++) {
        tp_dim in = x->dims[2 + i], out = o->dims[2 + i];
        int64_t ek = w->d[i] * (w->k[i] - 1) + 1, total;
        if (tp_dim_is_static(in) && tp_dim_is_static(out))
            total = (out.size - 1) * w->s[i] + ek - in.size;
        else if (w->s[i] == 1)
            total = ek - 1;
        else
            total = 0;
        if (total < 0) total = 0;
        w->pb[i] = upper ? total / 2 : total - total / 2;
        w->pe[i] = total - w->pb[i];
    }
}

static void fill_conv_attrs(tp_op *op, const win *w, int64_t groups) {
    op->attrs.conv.spatial = w->sp;
    for (int32_t i = 0; i < w->sp && i < 3; i++) {
        op->attrs.conv.kernel[i] = w->k[i];
        op->attrs.conv.stride[i] = w->s[i];
        op->attrs.conv.dilation[i] = w->d[i];
        op->attrs.conv.pad_begin[i] = w->pb[i];
        op->attrs.conv.pad_end[i] = w->pe[i];
        op->attrs.conv.out_pad[i] = w->op[i];
    }
    op->attrs.conv.groups = groups;
    op->attrs.conv.ceil_mode = w->ceil;
}

/* Conv-like: x index xi, weight index wi. */
static tp_status conv_common(tp_ox_ctx *c, uint32_t xi, uint32_t wi, int32_t out_elem, bool ir) {
    const tp_shape *x = &c->in[xi].shape, *wt = &c->in[wi].shape;
    if (x->rank < 3 || wt->rank != x->rank)
        return tp_ox_fail(c, TP_ERR_SHAPE, "Conv needs X [N,C,spatial..] and W of the same rank");
    int32_t sp = x->rank - 2;
    int64_t kern[8];
    uint32_t nk;
    const int64_t *ks = tp_ox_attr_ints(c, "kernel_shape", &nk);
    for (int32_t i = 0; i < sp; i++) {
        if (ks && nk == (uint32_t)sp)
            kern[i] = ks[i];
        else if (tp_dim_is_static(wt->dims[2 + i]))
            kern[i] = wt->dims[2 + i].size;
        else
            return tp_ox_fail(c, TP_ERR_SHAPE, "kernel size of axis %d unknown", (int)i);
    }
    win w;
    tp_status st = read_window(c, &w, sp, kern);
    if (st != TP_OK) return st;
    int64_t groups = tp_ox_attr_int(c, "group", 1);
    if (groups < 1) /* ONNX requires group >= 1; 0 used to be taken as 1 */
        return tp_ox_fail(c, TP_ERR_INVALID, "attribute group=%lld: must be >= 1",
                          (long long)groups);
    c->out[0].elem_type = out_elem;
    if (ir && sp <= 3 && !auto_same(&w)) { /* explicit pads: the IR's conv geometry */
        resolve_same_pads(&w, x, x);
        c->op.kind = TP_OP_CONV;
        fill_conv_attrs(&c->op, &w, groups);
        return tp_ox_ir_shape(c, 0);
    }
    tp_shape *o = &c->out[0].shape;
    o->rank = x->rank;
    o->dims[0] = x->dims[0];
    o->dims[1] = wt->dims[0];
    for (int32_t i = 0; i < sp; i++)
        if ((st = conv_window_out(c, &w, i, x->dims[2 + i], &o->dims[2 + i])) != TP_OK) return st;
    resolve_same_pads(&w, x, o);
    if (ir && sp <= 3) {
        c->op.kind = TP_OP_CONV;
        fill_conv_attrs(&c->op, &w, groups);
    }
    return TP_OK;
}

static tp_status r_conv(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 3);
    if (st != TP_OK) return st;
    return conv_common(c, 0, 1, c->in[0].elem_type, true);
}

/* ConvInteger (x, w, x_zero_point, w_zero_point) -> int32: an IR convolution of x and w (its
 * geometry for the cost model and onnxruntime's column buffer); the scalar zero points are not
 * IR inputs. */
static tp_status r_conv_integer(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 4);
    if (st != TP_OK) return st;
    tp_ox_ir_inputs(c, 2, (const int32_t[]){0, 1});
    return conv_common(c, 0, 1, TP_ONNX_INT32, true);
}

tp_status tp_ox_integer_conv_note(const tp_ox_ctx *c) {
    if (strcmp(c->node->op_type, "ConvInteger") != 0 || c->n_in < 2 ||
        c->in[1].elem_type != TP_ONNX_INT8)
        return TP_OK;
    return tp_graph_add_note(
        c->g,
        "a ConvInteger has int8 weights: onnxruntime runs it on another path, 5.8-7.7x slower than "
        "with uint8 weights in probes (docs/cost.md, \"Integer matrix products\"); its time is "
        "priced as with uint8 weights, under",
        c->err);
}

/* QLinearConv (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B) -> y's 8-bit type: an IR
 * convolution of x and w, as ConvInteger; the int32 bias, scales and zero points are not IR
 * inputs. */
static tp_status r_qlinear_conv(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 8, 9);
    if (st != TP_OK) return st;
    tp_ox_ir_inputs(c, 2, (const int32_t[]){0, 3});
    return conv_common(c, 0, 3, c->in[7].elem_type, true);
}

static tp_status r_conv_transpose(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 3);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape, *wt = &c->in[1].shape;
    if (x->rank < 3 || wt->rank != x->rank)
        return tp_ox_fail(c, TP_ERR_SHAPE, "ConvTranspose needs X [N,C,..] and W of equal rank");
    int32_t sp = x->rank - 2;
    int64_t kern[8];
    uint32_t nk;
    const int64_t *ks = tp_ox_attr_ints(c, "kernel_shape", &nk);
    for (int32_t i = 0; i < sp; i++) {
        if (ks && nk == (uint32_t)sp)
            kern[i] = ks[i];
        else if (tp_dim_is_static(wt->dims[2 + i]))
            kern[i] = wt->dims[2 + i].size;
        else
            return tp_ox_fail(c, TP_ERR_SHAPE, "kernel size of axis %d unknown", (int)i);
    }
    win w;
    if ((st = read_window(c, &w, sp, kern)) != TP_OK) return st;
    int64_t groups = tp_ox_attr_int(c, "group", 1);
    if (groups < 1) /* ONNX requires group >= 1; 0 used to be taken as 1 */
        return tp_ox_fail(c, TP_ERR_INVALID, "attribute group=%lld: must be >= 1",
                          (long long)groups);
    tp_shape *o = &c->out[0].shape;
    o->rank = x->rank;
    o->dims[0] = x->dims[0];
    if ((st = tp_ox_dim(c, TP_SYM_MUL, wt->dims[1], tp_dim_static(groups), &o->dims[1])) != TP_OK)
        return st;
    uint32_t nos;
    const int64_t *os = tp_ox_attr_ints(c, "output_shape", &nos);
    bool same = strcmp(w.auto_pad, "SAME_UPPER") == 0 || strcmp(w.auto_pad, "SAME_LOWER") == 0;
    for (int32_t i = 0; i < sp; i++) {
        tp_dim *od = &o->dims[2 + i];
        if (os && nos == (uint32_t)sp) {
            *od = tp_dim_static(os[i]);
        } else if (os && nos == (uint32_t)x->rank) {
            *od = tp_dim_static(os[2 + i]);
        } else if (same) {
            st = tp_ox_dim(c, TP_SYM_MUL, x->dims[2 + i], tp_dim_static(w.s[i]), od);
        } else {
            /* s*(in-1) + op + ((k-1)*d+1) - pb - pe */
            tp_dim r;
            st = tp_ox_dim(c, TP_SYM_MUL, x->dims[2 + i], tp_dim_static(w.s[i]), &r);
            if (st == TP_OK)
                st = add_const(
                    c, r, -w.s[i] + w.op[i] + (w.k[i] - 1) * w.d[i] + 1 - w.pb[i] - w.pe[i], od);
        }
        if (st != TP_OK) return st;
    }
    c->out[0].elem_type = c->in[0].elem_type;
    /* explicit pads / output padding that reproduce the output size */
    for (int32_t i = 0; i < sp && (os || same); i++) {
        tp_dim in = x->dims[2 + i], out = o->dims[2 + i];
        if (!tp_dim_is_static(in) || !tp_dim_is_static(out)) continue;
        if (in.size > DIM_LIMIT || out.size > DIM_LIMIT || in.size < 1)
            continue; /* the shape rule reports impossible sizes */
        int64_t total;
        if (__builtin_mul_overflow(w.s[i], in.size - 1, &total) ||
            __builtin_add_overflow(total, w.op[i] + (w.k[i] - 1) * w.d[i] + 1 - out.size, &total))
            return tp_ox_fail(c, TP_ERR_OVERFLOW, "output size of axis %d overflows", (int)i);
        if (total < 0) {
            w.op[i] -= total;
            w.pb[i] = w.pe[i] = 0;
        } else {
            bool upper = strcmp(w.auto_pad, "SAME_UPPER") == 0;
            w.pb[i] = upper ? total / 2 : total - total / 2;
            w.pe[i] = total - w.pb[i];
        }
    }
    if (sp <= 3) {
        c->op.kind = TP_OP_CONV_TRANSPOSE;
        fill_conv_attrs(&c->op, &w, groups);
    }
    return TP_OK;
}

static tp_status r_pool(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    if (x->rank < 3) return tp_ox_fail(c, TP_ERR_SHAPE, "pooling needs X [N,C,spatial..]");
    int32_t sp = x->rank - 2;
    uint32_t nk;
    const int64_t *ks = tp_ox_attr_ints(c, "kernel_shape", &nk);
    if (!ks || nk != (uint32_t)sp)
        return tp_ox_fail(c, TP_ERR_PARSE, "kernel_shape must have %d values", (int)sp);
    win w;
    if ((st = read_window(c, &w, sp, ks)) != TP_OK) return st;
    tp_shape *o = &c->out[0].shape;
    c->out[0].elem_type = c->in[0].elem_type;
    const char *op = c->node->op_type;
    tp_pool_kind kind = strcmp(op, "MaxPool") == 0       ? TP_POOL_MAX
                        : strcmp(op, "AveragePool") == 0 ? TP_POOL_AVG
                                                         : TP_POOL_LP;
    if (sp <= 3 && !auto_same(&w)) { /* explicit pads: the IR's pool geometry */
        resolve_same_pads(&w, x, x);
        c->op.kind = TP_OP_POOL;
        c->op.sub = (int32_t)kind;
        fill_conv_attrs(&c->op, &w, 1);
        st = tp_ox_ir_shape(c, 0);
    } else {
        o->rank = x->rank;
        o->dims[0] = x->dims[0];
        o->dims[1] = x->dims[1];
        for (int32_t i = 0; i < sp && st == TP_OK; i++)
            st = conv_window_out(c, &w, i, x->dims[2 + i], &o->dims[2 + i]);
        resolve_same_pads(&w, x, o);
        if (st == TP_OK && sp <= 3) {
            c->op.kind = TP_OP_POOL;
            c->op.sub = (int32_t)kind;
            fill_conv_attrs(&c->op, &w, 1);
        }
    }
    if (c->n_out > 1) { /* MaxPool indices */
        c->out[1].shape = *o;
        c->out[1].elem_type = TP_ONNX_INT64;
    }
    return st;
}

static tp_status r_global_pool(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    if (x->rank < 3) return tp_ox_fail(c, TP_ERR_SHAPE, "global pooling needs X [N,C,spatial..]");
    tp_shape *o = &c->out[0].shape;
    *o = *x;
    for (int32_t i = 2; i < x->rank; i++)
        o->dims[i] = tp_dim_static(1);
    c->out[0].elem_type = c->in[0].elem_type;
    const char *op = c->node->op_type;
    c->op.kind = TP_OP_POOL;
    c->op.sub = strcmp(op, "GlobalMaxPool") == 0       ? TP_POOL_GLOBAL_MAX
                : strcmp(op, "GlobalAveragePool") == 0 ? TP_POOL_GLOBAL_AVG
                                                       : TP_POOL_LP;
    if (c->op.sub == TP_POOL_LP || x->rank > 5) c->op.kind = TP_OP_CUSTOM;
    c->op.attrs.conv.spatial = x->rank - 2;
    for (int32_t i = 0; i < 3; i++) {
        c->op.attrs.conv.kernel[i] = c->op.attrs.conv.stride[i] = c->op.attrs.conv.dilation[i] = 1;
    }
    c->op.attrs.conv.groups = 1;
    return c->op.kind == TP_OP_POOL ? tp_ox_ir_shape(c, 0) : TP_OK;
}

/* MaxUnpool(X, I[, output_shape]) */
static tp_status r_max_unpool(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 3);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    if (x->rank < 3) return tp_ox_fail(c, TP_ERR_SHAPE, "MaxUnpool needs X [N,C,spatial..]");
    tp_shape *o = &c->out[0].shape;
    c->out[0].elem_type = c->in[0].elem_type;
    int64_t v[TP_MAX_RANK], n;
    if (c->n_in > 2 && c->in[2].present) {
        if (!tp_ox_input_ints(c, 2, v, TP_MAX_RANK, &n) || n != x->rank) {
            o->rank = x->rank;
            for (int32_t i = 0; i < x->rank; i++)
                if ((st = tp_ox_unknown_dim(c, 0, i, &o->dims[i])) != TP_OK) return st;
            return TP_OK;
        }
        *o = tp_shape_of((int32_t)n, v);
        return TP_OK;
    }
    int32_t sp = x->rank - 2;
    uint32_t nk;
    const int64_t *ks = tp_ox_attr_ints(c, "kernel_shape", &nk);
    if (!ks || nk != (uint32_t)sp)
        return tp_ox_fail(c, TP_ERR_PARSE, "kernel_shape must have %d values", (int)sp);
    win w;
    if ((st = read_window(c, &w, sp, ks)) != TP_OK) return st;
    *o = *x;
    for (int32_t i = 0; i < sp; i++) {
        tp_dim r;
        st = tp_ox_dim(c, TP_SYM_MUL, x->dims[2 + i], tp_dim_static(w.s[i]), &r);
        if (st == TP_OK)
            st = add_const(c, r, -w.s[i] + w.k[i] - w.pb[i] - w.pe[i], &o->dims[2 + i]);
        if (st != TP_OK) return st;
    }
    return TP_OK;
}

static const tp_ox_rule LINALG_RULES[] = {
    {"MatMul", r_matmul},
    {"MatMulInteger", r_matmul_integer},
    {"QLinearMatMul", r_qlinear_matmul},
    {"Gemm", r_gemm},
    {"Einsum", r_einsum},
    {"Conv", r_conv},
    {"ConvInteger", r_conv_integer},
    {"QLinearConv", r_qlinear_conv},
    {"ConvTranspose", r_conv_transpose},
    {"MaxPool", r_pool},
    {"AveragePool", r_pool},
    {"LpPool", r_pool},
    {"GlobalAveragePool", r_global_pool},
    {"GlobalMaxPool", r_global_pool},
    {"GlobalLpPool", r_global_pool},
    {"MaxUnpool", r_max_unpool},
};

const tp_ox_rule *tp__ox_rules_linalg(size_t *n) {
    *n = sizeof LINALG_RULES / sizeof LINALG_RULES[0];
    return LINALG_RULES;
}
