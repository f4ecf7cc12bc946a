/* ONNX shape rules: recurrent nets, detection, quantization, signal ops,
 * random ops, optimizers and control flow (If / Loop / Scan as opaque nodes
 * typed from their bodies' declared outputs) (onnx_ops.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "import/onnx_ops.h"

static tp_status nomem(tp_ox_ctx *c) {
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
    return tp_ox_data_dim(c, "nms", &c->out[0].shape.dims[0]);
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

static tp_status r_quantize(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 3);
    if (st != TP_OK) return st;
    c->out[0].shape = c->in[0].shape;
    int64_t od = tp_ox_attr_int(c, "output_dtype", 0);
    c->out[0].elem_type = od > 0                              ? (int32_t)od
                          : (c->n_in > 2 && c->in[2].present) ? c->in[2].elem_type
                                                              : TP_ONNX_UINT8;
    return TP_OK;
}

static tp_status r_dequantize(tp_ox_ctx *c) {
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

/* ---- control flow ---- */

static const tp_onnx_graph *attr_graph(const tp_ox_ctx *c, const char *name) {
    const tp_onnx_attr *a = tp__onnx_find_attr(c->node, name);
    return a ? a->g : NULL;
}

/* Shape of a subgraph output (static, dim_param symbol, or unknown). */
static tp_status body_shape(tp_ox_ctx *c, uint32_t out, const tp_onnx_value_info *vi, int32_t lead,
                            tp_shape *s, int32_t *elem) {
    if (vi->rank < 0 || vi->rank + lead > TP_MAX_RANK || vi->kind != 't')
        return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "subgraph output '%s' has no tensor shape",
                          vi->name);
    s->rank = vi->rank + lead;
    for (int32_t k = 0; k < vi->rank; k++) {
        const tp_onnx_dim *d = &vi->dims[k];
        tp_status st = TP_OK;
        if (d->param && d->param[0])
            st = tp_graph_symbol(c->g, d->param, &s->dims[lead + k], c->err);
        else if (d->value >= 0)
            s->dims[lead + k] = tp_dim_static(d->value);
        else
            st = tp_ox_unknown_dim(c, out, lead + k, &s->dims[lead + k]);
        if (st != TP_OK) return st;
    }
    *elem = vi->elem_type;
    return TP_OK;
}

static tp_status r_if(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    const tp_onnx_graph *t = attr_graph(c, "then_branch"), *e = attr_graph(c, "else_branch");
    if (!t || !e) return tp_ox_fail(c, TP_ERR_PARSE, "If without then/else branches");
    int64_t cv;
    const tp_onnx_graph *pick = NULL;
    if (c->in[0].value && tp_ox_value_int(c->in[0].value, 0, &cv)) pick = cv ? t : e;
    if (t->n_outputs != c->n_out || e->n_outputs != c->n_out)
        return tp_ox_fail(c, TP_ERR_SHAPE, "branches have %u/%u outputs, node %u", t->n_outputs,
                          e->n_outputs, c->n_out);
    for (uint32_t k = 0; k < c->n_out; k++) {
        tp_shape a, b;
        int32_t ea, eb;
        if ((st = body_shape(c, k, &(pick ? pick : t)->outputs[k], 0, &a, &ea)) != TP_OK) return st;
        c->out[k].shape = a;
        c->out[k].elem_type = ea;
        if (pick) continue;
        if ((st = body_shape(c, k, &e->outputs[k], 0, &b, &eb)) != TP_OK) return st;
        if (a.rank != b.rank) return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "branch ranks differ");
        for (int32_t d = 0; d < a.rank; d++)
            if (!tp_graph_dim_equal(c->g, a.dims[d], b.dims[d]) &&
                (st = tp_ox_unknown_dim(c, k, d, &c->out[k].shape.dims[d])) != TP_OK)
                return st;
    }
    c->op.kind = TP_OP_IF;
    return TP_OK;
}

static tp_status r_loop(tp_ox_ctx *c) {
    if (c->n_in < 2) return tp_ox_fail(c, TP_ERR_PARSE, "Loop needs M and cond inputs");
    const tp_onnx_graph *body = attr_graph(c, "body");
    if (!body) return tp_ox_fail(c, TP_ERR_PARSE, "Loop without a body");
    uint32_t n_carried = c->n_in - 2;
    if (body->n_outputs != 1 + c->n_out || c->n_out < n_carried)
        return tp_ox_fail(c, TP_ERR_SHAPE, "body has %u outputs for %u loop outputs",
                          body->n_outputs, c->n_out);
    tp_dim trip;
    tp_status st;
    int64_t m;
    if (c->in[0].present && c->in[0].value && tp_ox_value_int(c->in[0].value, 0, &m) && m >= 0 &&
        !c->in[1].present)
        trip = tp_dim_static(m);
    else if ((st = tp_ox_data_dim(c, "loop_trips", &trip)) != TP_OK)
        return st;
    for (uint32_t k = 0; k < c->n_out; k++) {
        const tp_onnx_value_info *vi = &body->outputs[1 + k];
        if (k < n_carried) {
            if (c->in[2 + k].present) {
                c->out[k].shape = c->in[2 + k].shape;
                c->out[k].elem_type = c->in[2 + k].elem_type;
                /* a carried value whose declared shape differs (grows) gets the body's */
                if (vi->rank >= 0 && vi->rank != c->out[k].shape.rank &&
                    (st = body_shape(c, k, vi, 0, &c->out[k].shape, &c->out[k].elem_type)) != TP_OK)
                    return st;
            } else if ((st = body_shape(c, k, vi, 0, &c->out[k].shape, &c->out[k].elem_type)) !=
                       TP_OK) {
                return st;
            }
        } else {
            if ((st = body_shape(c, k, vi, 1, &c->out[k].shape, &c->out[k].elem_type)) != TP_OK)
                return st;
            c->out[k].shape.dims[0] = trip;
        }
    }
    c->op.kind = TP_OP_LOOP;
    return TP_OK;
}

/* Scan. Opset 8: (sequence_lens?, states..., scan inputs [batch, seq, ..]) with
 * outputs (states..., scan outputs [batch, seq, ..]); opset 9+: no batch axis,
 * scan_input_axes / scan_output_axes. */
static tp_status r_scan(tp_ox_ctx *c) {
    const tp_onnx_graph *body = attr_graph(c, "body");
    if (!body) return tp_ox_fail(c, TP_ERR_PARSE, "Scan without a body");
    int64_t m = tp_ox_attr_int(c, "num_scan_inputs", 0);
    bool v8 = c->opset < 9;
    uint32_t first = v8 ? 1 : 0; /* opset 8: input 0 is sequence_lens */
    if (m <= 0 || (uint64_t)m + first > c->n_in)
        return tp_ox_fail(c, TP_ERR_PARSE, "num_scan_inputs %lld", (long long)m);
    uint32_t n_state = c->n_in - first - (uint32_t)m;
    if (body->n_outputs != c->n_out || c->n_out < n_state)
        return tp_ox_fail(c, TP_ERR_SHAPE, "body has %u outputs for %u Scan outputs",
                          body->n_outputs, c->n_out);
    uint32_t na;
    const int64_t *in_axes = v8 ? NULL : tp_ox_attr_ints(c, "scan_input_axes", &na);
    const tp_shape *s0 = &c->in[first + n_state].shape;
    int64_t ax0 = v8 ? 1 : (in_axes && na ? in_axes[0] : 0);
    if (ax0 < 0) ax0 += s0->rank;
    if (ax0 < 0 || ax0 >= s0->rank) return tp_ox_fail(c, TP_ERR_SHAPE, "bad scan input axis");
    tp_dim len = s0->dims[ax0];
    uint32_t no;
    const int64_t *out_axes = v8 ? NULL : tp_ox_attr_ints(c, "scan_output_axes", &no);
    tp_status st;
    for (uint32_t k = 0; k < c->n_out; k++) {
        if (k < n_state) {
            tp_ox_same(c, k, first + k);
            continue;
        }
        tp_shape per;
        int32_t elem;
        int32_t lead = v8 ? 1 : 0;
        if ((st = body_shape(c, k, &body->outputs[k], 0, &per, &elem)) != TP_OK) return st;
        int64_t ax = v8 ? 1 : (out_axes && k - n_state < no ? out_axes[k - n_state] : 0);
        int32_t r = per.rank + 1 + lead;
        if (r > TP_MAX_RANK) return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "rank too large");
        if (ax < 0) ax += r;
        if (ax < lead || ax >= r) return tp_ox_fail(c, TP_ERR_SHAPE, "bad scan output axis");
        tp_shape *o = &c->out[k].shape;
        o->rank = r;
        if (v8) o->dims[0] = s0->dims[0];
        for (int32_t d = lead, j = 0; d < r; d++)
            o->dims[d] = d == ax ? len : per.dims[j++];
        c->out[k].elem_type = elem;
    }
    c->op.kind = TP_OP_SCAN;
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

static const tp_ox_rule RULES[] = {
    {"RNN", r_rnn},
    {"GRU", r_rnn},
    {"LSTM", r_rnn},
    {"NonMaxSuppression", r_nms},
    {"RoiAlign", r_roi_align},
    {"GridSample", r_grid_sample},
    {"QuantizeLinear", r_quantize},
    {"DequantizeLinear", r_dequantize},
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
    {"If", r_if},
    {"Loop", r_loop},
    {"Scan", r_scan},
    {"CenterCropPad", r_center_crop_pad},
};

const tp_ox_rule *tp__ox_rules_misc(size_t *n) {
    (void)nomem;
    *n = sizeof RULES / sizeof RULES[0];
    return RULES;
}
