/* ONNX shape rules: recurrent nets, detection, quantization, signal ops,
 * random ops and optimizers (onnx_ops.h). Control flow is onnx_control.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "import/onnx_ops.h"

static tp_status misc_nomem(tp_ox_ctx *c) {
    return tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
}

/* Scalar integer value of input i (static or symbolic); false when unknown. */
static bool scalar_dim(const tp_ox_ctx *c, uint32_t i, tp_dim *d) {
    if (i >= c->n_in || !c->in[i].present || !c->in[i].value || c->in[i].value->n != 1)
        return false;
    const tp_ox_value *v = c->in[i].value;
    if (v->is_float) {
        if (!(v->f[0] >= 0 && v->f[0] < 9e18)) return false;
        *d = tp_dim_static((int64_t)v->f[0]);
    } else {
        *d = v->d[0];
    }
    return true;
}

/* ---- recurrent ---- */

static tp_status r_rnn(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 3, 8);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape, *w = &c->in[1].shape;
    if (x->rank != 3 || w->rank != 3 || c->in[2].shape.rank != 3)
        return tp_ox_fail(c, TP_ERR_SHAPE, "X, W and R must be 3-D");
    int64_t layout = tp_ox_attr_int(c, "layout", 0);
    tp_dim seq = layout ? x->dims[1] : x->dims[0], batch = layout ? x->dims[0] : x->dims[1];
    tp_dim dirs = w->dims[0];
    tp_dim hid = tp_dim_static(tp_ox_attr_int(c, "hidden_size", 0));
    if (hid.size <= 0) {
        int64_t gates = strcmp(c->node->op_type, "LSTM") == 0  ? 4
                        : strcmp(c->node->op_type, "GRU") == 0 ? 3
                                                               : 1;
        if ((st = tp_ox_dim(c, TP_SYM_DIV_FLOOR, c->in[2].shape.dims[1], tp_dim_static(gates),
                            &hid)) != TP_OK)
            return st;
    }
    for (uint32_t k = 0; k < c->n_out; k++) {
        tp_shape *o = &c->out[k].shape;
        c->out[k].elem_type = c->in[0].elem_type;
        if (k == 0) {
            o->rank = 4;
            if (layout) {
                o->dims[0] = batch;
                o->dims[1] = seq;
                o->dims[2] = dirs;
            } else {
                o->dims[0] = seq;
                o->dims[1] = dirs;
                o->dims[2] = batch;
            }
            o->dims[3] = hid;
        } else {
            o->rank = 3;
            o->dims[0] = layout ? batch : dirs;
            o->dims[1] = layout ? dirs : batch;
            o->dims[2] = hid;
        }
    }
    return TP_OK;
}

/* ---- detection / sampling ---- */

static tp_status r_nms(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 5);
    if (st != TP_OK) return st;
    c->out[0].shape.rank = 2;
    c->out[0].shape.dims[1] = tp_dim_static(3);
    c->out[0].elem_type = TP_ONNX_INT64;
    /* boxes [batch, spatial, 4], scores [batch, classes, spatial]: at most
     * min(max_output_boxes_per_class, spatial) boxes per batch and class */
    const tp_shape *b = &c->in[0].shape, *sc = &c->in[1].shape;
    if (b->rank != 3 || sc->rank != 3)
        return tp_ox_fail(c, TP_ERR_SHAPE, "boxes and scores need rank 3");
    tp_dim per = b->dims[1], upper;
    int64_t mx;
    const tp_ox_value *mv = c->n_in > 2 && c->in[2].present ? c->in[2].value : NULL;
    bool known = mv && mv->n >= 1 && tp_ox_value_int(mv, 0, &mx) && mx >= 0;
    if (c->n_in > 2 && c->in[2].present && !known) {
        /* unknown max_output_boxes_per_class: every box may be kept */
    } else if ((st = tp_ox_dim(c, TP_SYM_MIN, per, tp_dim_static(known ? mx : 0), &per)) != TP_OK) {
        return st;
    }
    if ((st = tp_ox_dim(c, TP_SYM_MUL, per, sc->dims[1], &upper)) != TP_OK ||
        (st = tp_ox_dim(c, TP_SYM_MUL, upper, b->dims[0], &upper)) != TP_OK)
        return st;
    return tp_ox_data_dim_upper(c, "nms", upper,
                                "min(max_output_boxes_per_class, boxes) x classes x batch",
                                &c->out[0].shape.dims[0]);
}

static tp_status r_roi_align(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 3, 3);
    if (st != TP_OK) return st;
    if ((st = tp_ox_rank_check(c, 0, 4, 4)) != TP_OK) return st;
    if ((st = tp_ox_rank_check(c, 1, 2, 2)) != TP_OK) return st;
    tp_shape *o = &c->out[0].shape;
    o->rank = 4;
    o->dims[0] = c->in[1].shape.dims[0];
    o->dims[1] = c->in[0].shape.dims[1];
    o->dims[2] = tp_dim_static(tp_ox_attr_int(c, "output_height", 1));
    o->dims[3] = tp_dim_static(tp_ox_attr_int(c, "output_width", 1));
    c->out[0].elem_type = c->in[0].elem_type;
    return TP_OK;
}

static tp_status r_grid_sample(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape, *g = &c->in[1].shape;
    if (x->rank < 3 || g->rank != x->rank)
        return tp_ox_fail(c, TP_ERR_SHAPE, "X [N,C,..] and grid [N,..,k] of equal rank needed");
    tp_shape *o = &c->out[0].shape;
    o->rank = x->rank;
    o->dims[0] = x->dims[0];
    o->dims[1] = x->dims[1];
    for (int32_t k = 2; k < x->rank; k++)
        o->dims[k] = g->dims[k - 1];
    c->out[0].elem_type = c->in[0].elem_type;
    return TP_OK;
}

/* ---- quantization ---- */

static tp_status r_misc_quantize(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 3);
    if (st != TP_OK) return st;
    c->out[0].shape = c->in[0].shape;
    int64_t od = tp_ox_attr_int(c, "output_dtype", 0);
    c->out[0].elem_type = od > 0                              ? (int32_t)od
                          : (c->n_in > 2 && c->in[2].present) ? c->in[2].elem_type
                                                              : TP_ONNX_UINT8;
    return TP_OK;
}

static tp_status r_misc_dequantize(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 3);
    if (st != TP_OK) return st;
    c->out[0].shape = c->in[0].shape;
    c->out[0].elem_type = c->in[1].elem_type;
    return TP_OK;
}

static tp_status r_dyn_quantize(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    c->out[0].shape = c->in[0].shape;
    c->out[0].elem_type = TP_ONNX_UINT8;
    for (uint32_t k = 1; k < c->n_out && k < 3; k++) {
        c->out[k].shape.rank = 0;
        c->out[k].elem_type = k == 1 ? TP_ONNX_FLOAT : TP_ONNX_UINT8;
    }
    return TP_OK;
}

/* ---- signal ---- */

static tp_status r_window(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    c->out[0].shape.rank = 1;
    c->out[0].elem_type = (int32_t)tp_ox_attr_int(c, "output_datatype", TP_ONNX_FLOAT);
    if (!scalar_dim(c, 0, &c->out[0].shape.dims[0]))
        return tp_ox_unknown_dim(c, 0, 0, &c->out[0].shape.dims[0]);
    return TP_OK;
}

static tp_status r_dft(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 3);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    if (x->rank < 2) return tp_ox_fail(c, TP_ERR_SHAPE, "DFT input needs rank >= 2");
    int64_t axis = tp_ox_attr_int(c, "axis", 1);
    if (c->opset >= 20) {
        int64_t a, n;
        axis = -2;
        if (c->n_in > 2 && c->in[2].present && tp_ox_input_ints(c, 2, &a, 1, &n)) axis = a;
    }
    if (axis < 0) axis += x->rank;
    if (axis < 0 || axis >= x->rank - 1) return tp_ox_fail(c, TP_ERR_SHAPE, "bad DFT axis");
    tp_shape *o = &c->out[0].shape;
    *o = *x;
    o->dims[x->rank - 1] = tp_dim_static(2);
    tp_dim len = x->dims[axis];
    if (c->n_in > 1 && c->in[1].present && !scalar_dim(c, 1, &len))
        if ((st = tp_ox_unknown_dim(c, 0, (int32_t)axis, &len)) != TP_OK) return st;
    if (tp_ox_attr_int(c, "onesided", 0)) {
        st = tp_ox_dim(c, TP_SYM_DIV_FLOOR, len, tp_dim_static(2), &len);
        if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_ADD, len, tp_dim_static(1), &len);
        if (st != TP_OK) return st;
    }
    o->dims[axis] = len;
    c->out[0].elem_type = c->in[0].elem_type;
    return TP_OK;
}

static tp_status r_stft(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 4);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    if (x->rank != 3) return tp_ox_fail(c, TP_ERR_SHAPE, "STFT signal must be [batch, len, 1|2]");
    tp_dim step, flen;
    tp_shape *o = &c->out[0].shape;
    o->rank = 4;
    o->dims[0] = x->dims[0];
    o->dims[3] = tp_dim_static(2);
    bool have_len = scalar_dim(c, 3, &flen);
    if (!have_len && c->n_in > 2 && c->in[2].present && c->in[2].shape.rank == 1) {
        flen = c->in[2].shape.dims[0];
        have_len = true;
    }
    if (!scalar_dim(c, 1, &step) || !have_len || !tp_dim_is_static(step) || step.size <= 0) {
        st = tp_ox_unknown_dim(c, 0, 1, &o->dims[1]);
        if (st == TP_OK) st = tp_ox_unknown_dim(c, 0, 2, &o->dims[2]);
        c->out[0].elem_type = c->in[0].elem_type;
        return st;
    }
    tp_dim r;
    st = tp_ox_dim(c, TP_SYM_SUB, x->dims[1], flen, &r);
    if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_DIV_FLOOR, r, step, &r);
    if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_ADD, r, tp_dim_static(1), &o->dims[1]);
    if (st != TP_OK) return st;
    if (tp_ox_attr_int(c, "onesided", 1)) {
        st = tp_ox_dim(c, TP_SYM_DIV_FLOOR, flen, tp_dim_static(2), &r);
        if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_ADD, r, tp_dim_static(1), &o->dims[2]);
    } else {
        o->dims[2] = flen;
    }
    c->out[0].elem_type = c->in[0].elem_type;
    return st;
}

static tp_status r_mel_weight(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 5, 5);
    if (st != TP_OK) return st;
    tp_dim mels, dft;
    tp_shape *o = &c->out[0].shape;
    o->rank = 2;
    c->out[0].elem_type = (int32_t)tp_ox_attr_int(c, "output_datatype", TP_ONNX_FLOAT);
    if (!scalar_dim(c, 0, &mels) || !scalar_dim(c, 1, &dft)) {
        st = tp_ox_unknown_dim(c, 0, 0, &o->dims[0]);
        if (st == TP_OK) st = tp_ox_unknown_dim(c, 0, 1, &o->dims[1]);
        return st;
    }
    st = tp_ox_dim(c, TP_SYM_DIV_FLOOR, dft, tp_dim_static(2), &o->dims[0]);
    if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_ADD, o->dims[0], tp_dim_static(1), &o->dims[0]);
    o->dims[1] = mels;
    return st;
}

/* ---- random ---- */

static tp_status r_random_like(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    c->out[0].shape = c->in[0].shape;
    int64_t dt = tp_ox_attr_int(c, "dtype", 0);
    c->out[0].elem_type = dt > 0 ? (int32_t)dt : c->in[0].elem_type;
    return TP_OK;
}

static tp_status r_random(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 0, 0);
    if (st != TP_OK) return st;
    uint32_t n;
    const int64_t *s = tp_ox_attr_ints(c, "shape", &n);
    if (!s || n > TP_MAX_RANK) return tp_ox_fail(c, TP_ERR_PARSE, "missing or bad 'shape'");
    c->out[0].shape = tp_shape_of((int32_t)n, s);
    c->out[0].elem_type = (int32_t)tp_ox_attr_int(c, "dtype", TP_ONNX_FLOAT);
    return TP_OK;
}

/* ---- optimizers (training): outputs shaped like the updated tensors ---- */

static tp_status r_optimizer(tp_ox_ctx *c) {
    uint32_t groups = strcmp(c->node->op_type, "Adam") == 0 ? 4 : 3;
    if (c->n_in < 2 + groups || (c->n_in - 2) % groups)
        return tp_ox_fail(c, TP_ERR_PARSE, "bad input count %u", c->n_in);
    uint32_t n = (c->n_in - 2) / groups;
    for (uint32_t k = 0; k < c->n_out; k++)
        tp_ox_same(c, k, 2 + k % n);
    return TP_OK;
}

/* ---- strings and sparse features ---- */

static tp_status r_tfidf(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    uint32_t n;
    const int64_t *ix = tp_ox_attr_ints(c, "ngram_indexes", &n);
    int64_t mx = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ix[i] + 1 > mx) mx = ix[i] + 1;
    const tp_shape *x = &c->in[0].shape;
    tp_shape *o = &c->out[0].shape;
    if (x->rank == 1) {
        o->rank = 1;
        o->dims[0] = tp_dim_static(mx);
    } else if (x->rank == 2) {
        o->rank = 2;
        o->dims[0] = x->dims[0];
        o->dims[1] = tp_dim_static(mx);
    } else {
        return tp_ox_fail(c, TP_ERR_SHAPE, "input must be 1-D or 2-D");
    }
    c->out[0].elem_type = TP_ONNX_FLOAT;
    return TP_OK;
}

/* CenterCropPad(input, shape[, axes]) */
static tp_status r_center_crop_pad(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    c->out[0].shape = *x;
    c->out[0].elem_type = c->in[0].elem_type;
    uint32_t na;
    const int64_t *ax = tp_ox_attr_ints(c, "axes", &na);
    const tp_ox_value *v = c->in[1].value;
    int64_t n = ax ? (int64_t)na : (int64_t)x->rank;
    for (int64_t i = 0; i < n; i++) {
        int64_t a = ax ? ax[i] : i;
        if ((st = tp_ox_axis(c, a, x->rank, &a)) != TP_OK) return st;
        if (v && !v->is_float && i < v->n)
            c->out[0].shape.dims[a] = v->d[i];
        else if ((st = tp_ox_unknown_dim(c, 0, (int32_t)a, &c->out[0].shape.dims[a])) != TP_OK)
            return st;
    }
    return TP_OK;
}

static tp_status r_bernoulli(tp_ox_ctx *c) {
    return r_random_like(c);
}

static const tp_ox_rule MISC_RULES[] = {
    {"RNN", r_rnn},
    {"GRU", r_rnn},
    {"LSTM", r_rnn},
    {"NonMaxSuppression", r_nms},
    {"RoiAlign", r_roi_align},
    {"GridSample", r_grid_sample},
    {"QuantizeLinear", r_misc_quantize},
    {"DequantizeLinear", r_misc_dequantize},
    {"DynamicQuantizeLinear", r_dyn_quantize},
    {"HannWindow", r_window},
    {"HammingWindow", r_window},
    {"BlackmanWindow", r_window},
    {"DFT", r_dft},
    {"STFT", r_stft},
    {"MelWeightMatrix", r_mel_weight},
    {"RandomUniformLike", r_random_like},
    {"RandomNormalLike", r_random_like},
    {"RandomUniform", r_random},
    {"RandomNormal", r_random},
    {"Bernoulli", r_bernoulli},
    {"Adagrad", r_optimizer},
    {"Adam", r_optimizer},
    {"Momentum", r_optimizer},
    {"TfIdfVectorizer", r_tfidf},
    {"CenterCropPad", r_center_crop_pad},
};

const tp_ox_rule *tp__ox_rules_misc(size_t *n) {
    (void)misc_nomem;
    *n = sizeof MISC_RULES / sizeof MISC_RULES[0];
    return MISC_RULES;
}
