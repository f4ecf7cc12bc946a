/* Shape inference for conv / conv-transpose / pool and the signal ops (fft,
 * log-mel spectrogram, Welch peak picking). Symbolic spatial dims become
 * derived symbols such as ((h-1)/2+1). */
#include "graph/graph_internal.h"

#include <inttypes.h>

static int64_t or1(int64_t v) {
    return v == 0 ? 1 : v;
}

/* in + c for a signed constant c. */
static tp_status add_signed(const tp_infer_ctx *c, tp_dim in, int64_t k, tp_dim *out,
                            tp_error *err) {
    if (k >= 0) return tp_infer_expr(c, TP_SYM_ADD, in, tp_dim_static(k), out, err);
    return tp_infer_expr(c, TP_SYM_SUB, in, tp_dim_static(-k), out, err);
}

/* Output size of one spatial dim of a conv/pool window. */
static tp_status window_out(const tp_infer_ctx *c, int32_t i, tp_dim in, int64_t k, bool ceil_mode,
                            tp_dim *out, tp_error *err) {
    const tp_op *op = c->op;
    int64_t s = or1(op->attrs.conv.stride[i]), dil = or1(op->attrs.conv.dilation[i]);
    int64_t pb = op->attrs.conv.pad_begin[i], pe = op->attrs.conv.pad_end[i];
    const int64_t lim = INT64_C(1) << 30; /* window attributes; products stay below 2^61 */
    if (s < 1 || dil < 1 || k < 1 || pb < 0 || pe < 0 || s > lim || dil > lim || k > lim ||
        pb > lim || pe > lim)
        return tp_infer_fail(c, TP_ERR_INVALID, err,
                             "spatial dim %d: kernel %" PRId64 ", stride %" PRId64
                             ", dilation %" PRId64 ", pads %" PRId64 "/%" PRId64
                             " (need kernel, stride, dilation >= 1, pads >= 0, all <= 2^30)",
                             (int)i, k, s, dil, pb, pe);
    int64_t span = dil * (k - 1) + 1, extra = pb + pe - span; /* out = (in + extra)/s + 1 */
    if (tp_dim_is_static(in)) {
        if (in.size > (INT64_C(1) << 40))
            return tp_infer_fail(c, TP_ERR_OVERFLOW, err, "spatial dim too large");
        int64_t num = in.size + extra;
        if (num < 0)
            return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                 "spatial dim %d: input %" PRId64 " (+ pads %" PRId64
                                 ") is smaller than the window %" PRId64,
                                 (int)i, in.size, pb + pe, span);
        int64_t o = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
        /* ceil mode: the last window must start inside the input or the left pad */
        if (ceil_mode && (o - 1) * s >= in.size + pb) o--;
        *out = tp_dim_static(o);
        return TP_OK;
    }
    tp_dim t;
    tp_status st = add_signed(c, in, extra, &t, err);
    if (st == TP_OK)
        st = tp_infer_expr(c, ceil_mode ? TP_SYM_DIV_CEIL : TP_SYM_DIV_FLOOR, t, tp_dim_static(s),
                           &t, err);
    if (st == TP_OK) st = tp_infer_expr(c, TP_SYM_ADD, t, tp_dim_static(1), out, err);
    return st;
}

static tp_status spatial_count(const tp_infer_ctx *c, const tp_shape *x, int32_t *ns,
                               tp_error *err) {
    int32_t n = c->op->attrs.conv.spatial;
    if (n == 0) n = x->rank - 2;
    if (n < 1 || n > 3 || x->rank != n + 2) {
        char b[128];
        return tp_infer_fail(c, TP_ERR_SHAPE, err,
                             "input %s must be [N,C,spatial...] with 1..3 spatial dims "
                             "(attrs.spatial = %d)",
                             tp_graph_shape_str(c->g, x, b, sizeof b),
                             (int)c->op->attrs.conv.spatial);
    }
    *ns = n;
    return TP_OK;
}

static tp_status infer_conv(const tp_infer_ctx *c, tp_shape *out, tp_dtype *dtype, tp_error *err) {
    const tp_op *op = c->op;
    const tp_shape *x = &c->in[0]->shape, *w = &c->in[1]->shape;
    bool tr = op->kind == TP_OP_CONV_TRANSPOSE;
    int32_t ns = 0;
    char b1[128], b2[128];
    tp_status st = spatial_count(c, x, &ns, err);
    if (st != TP_OK) return st;
    int64_t g = or1(op->attrs.conv.groups);
    if (g < 1) return tp_infer_fail(c, TP_ERR_INVALID, err, "groups = %" PRId64, g);
    if (w->rank != x->rank)
        return tp_infer_fail(c, TP_ERR_SHAPE, err, "weight %s must have the rank of input %s",
                             tp_graph_shape_str(c->g, w, b1, sizeof b1),
                             tp_graph_shape_str(c->g, x, b2, sizeof b2));
    tp_dtype xd = c->in[0]->dtype, wd = c->in[1]->dtype;
    if (tp_dtype_is_quantized(xd) ||
        (wd != xd && !tp_dtype_is_quantized(wd) && !(tp_dtype_is_int8(xd) && tp_dtype_is_int8(wd))))
        return tp_infer_fail(c, TP_ERR_INVALID, err, "input is %s, weight %s",
                             tp_dtype_name(c->in[0]->dtype), tp_dtype_name(c->in[1]->dtype));
    /* channel checks: conv W[M, C/g, k...]; conv-transpose W[C, M/g, k...] */
    tp_dim cin = x->dims[1], w0 = w->dims[0], w1 = w->dims[1];
    if (!tr && tp_dim_is_static(cin) && tp_dim_is_static(w1) &&
        (w1.size > INT64_MAX / g || cin.size != w1.size * g))
        return tp_infer_fail(c, TP_ERR_SHAPE, err,
                             "input has %" PRId64 " channels, weight %s expects %" PRId64
                             " (x %" PRId64 " groups)",
                             cin.size, tp_graph_shape_str(c->g, w, b1, sizeof b1), w1.size, g);
    if (!tr && tp_dim_is_static(w0) && w0.size % g != 0)
        return tp_infer_fail(c, TP_ERR_SHAPE, err,
                             "%" PRId64 " output channels are not divisible by %" PRId64 " groups",
                             w0.size, g);
    if (tr && tp_dim_is_static(cin) && tp_dim_is_static(w0) && cin.size != w0.size)
        return tp_infer_fail(c, TP_ERR_SHAPE, err,
                             "input has %" PRId64 " channels, weight %s expects %" PRId64, cin.size,
                             tp_graph_shape_str(c->g, w, b1, sizeof b1), w0.size);
    tp_shape o = *x;
    if (tr) {
        if ((st = tp_infer_expr(c, TP_SYM_MUL, w1, tp_dim_static(g), &o.dims[1], err)) != TP_OK)
            return st;
    } else {
        o.dims[1] = w0;
    }
    for (int32_t i = 0; i < ns; i++) {
        tp_dim kd = w->dims[2 + i];
        int64_t k = op->attrs.conv.kernel[i];
        if (tp_dim_is_static(kd)) {
            if (k != 0 && k != kd.size)
                return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                     "kernel attr %" PRId64 " != weight dim %" PRId64, k, kd.size);
            k = kd.size;
        } else if (k == 0) {
            return tp_infer_fail(c, TP_ERR_INVALID, err,
                                 "symbolic kernel size needs attrs.conv.kernel");
        }
        if (!tr) {
            if ((st = window_out(c, i, x->dims[2 + i], k, false, &o.dims[2 + i], err)) != TP_OK)
                return st;
            continue;
        }
        /* conv-transpose: out = s*(in-1) + out_pad + dil*(k-1) + 1 - pb - pe */
        int64_t s = or1(op->attrs.conv.stride[i]), dil = or1(op->attrs.conv.dilation[i]);
        int64_t pb = op->attrs.conv.pad_begin[i], pe = op->attrs.conv.pad_end[i];
        int64_t op_ = op->attrs.conv.out_pad[i];
        const int64_t lim = INT64_C(1) << 30;
        if (s < 1 || dil < 1 || k < 1 || k > lim || s > lim || dil > lim || pb < 0 || pe < 0 ||
            pb > lim || pe > lim || op_ < 0 || op_ > lim)
            return tp_infer_fail(c, TP_ERR_INVALID, err, "bad window attributes for dim %d",
                                 (int)i);
        int64_t extra = op_ + dil * (k - 1) + 1 - pb - pe;
        tp_dim in = x->dims[2 + i];
        if (tp_dim_is_static(in)) {
            if (in.size < 1 || in.size > (INT64_C(1) << 30))
                return tp_infer_fail(c, TP_ERR_SHAPE, err, "spatial dim %d is %" PRId64, (int)i,
                                     in.size);
            int64_t v = s * (in.size - 1) + extra;
            if (v < 1)
                return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                     "output spatial dim %d would be %" PRId64, (int)i, v);
            o.dims[2 + i] = tp_dim_static(v);
        } else {
            tp_dim t;
            st = tp_infer_expr(c, TP_SYM_SUB, in, tp_dim_static(1), &t, err);
            if (st == TP_OK) st = tp_infer_expr(c, TP_SYM_MUL, t, tp_dim_static(s), &t, err);
            if (st == TP_OK) st = add_signed(c, t, extra, &o.dims[2 + i], err);
            if (st != TP_OK) return st;
        }
    }
    if (c->n_in == 3) {
        const tp_shape *bs = &c->in[2]->shape;
        if (bs->rank != 1 || (tp_dim_is_static(bs->dims[0]) && tp_dim_is_static(o.dims[1]) &&
                              bs->dims[0].size != o.dims[1].size))
            return tp_infer_fail(c, TP_ERR_SHAPE, err, "bias %s must be [%s]",
                                 tp_graph_shape_str(c->g, bs, b1, sizeof b1),
                                 tp_graph_dim_str(c->g, o.dims[1], b2, sizeof b2));
    }
    *out = o;
    *dtype = c->in[0]->dtype;
    return TP_OK;
}

static tp_status infer_pool(const tp_infer_ctx *c, tp_shape *out, tp_error *err) {
    const tp_op *op = c->op;
    const tp_shape *x = &c->in[0]->shape;
    if ((unsigned)op->sub >= (unsigned)TP_POOL_COUNT)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "unknown pool kind %d", op->sub);
    if (tp_dtype_is_quantized(c->in[0]->dtype))
        return tp_infer_fail(c, TP_ERR_INVALID, err, "pooling a block-quantized (%s) tensor",
                             tp_dtype_name(c->in[0]->dtype));
    int32_t ns = 0;
    tp_status st = spatial_count(c, x, &ns, err);
    if (st != TP_OK) return st;
    tp_shape o = *x;
    bool global = op->sub == TP_POOL_GLOBAL_MAX || op->sub == TP_POOL_GLOBAL_AVG;
    for (int32_t i = 0; i < ns; i++) {
        if (global) {
            o.dims[2 + i] = tp_dim_static(1);
            continue;
        }
        st = window_out(c, i, x->dims[2 + i], op->attrs.conv.kernel[i], op->attrs.conv.ceil_mode,
                        &o.dims[2 + i], err);
        if (st != TP_OK) return st;
    }
    *out = o;
    return TP_OK;
}

/* Signal ops work on real float tensors. */
static tp_status signal_input(const tp_infer_ctx *c, tp_error *err) {
    tp_dtype t = c->in[0]->dtype;
    if (!tp_dtype_is_float(t) && t != TP_DTYPE_C64 && t != TP_DTYPE_C128)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "signal input is %s, not a float type",
                             tp_dtype_name(t));
    if (c->in[0]->shape.rank < 1)
        return tp_infer_fail(c, TP_ERR_SHAPE, err, "signal input is a scalar");
    return TP_OK;
}

static tp_status infer_signal(const tp_infer_ctx *c, tp_shape *out, tp_dtype *dtype,
                              tp_error *err) {
    const tp_op *op = c->op;
    const tp_shape *x = &c->in[0]->shape;
    int64_t nfft = op->attrs.signal.n_fft, hop = op->attrs.signal.hop;
    tp_status st = signal_input(c, err);
    if (st != TP_OK) return st;
    if (nfft < 0 || hop < 0 || op->attrs.signal.n_mels < 0 || op->attrs.signal.k_peaks < 0)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "negative signal attribute");
    tp_shape o = *x;
    tp_dim *last = &o.dims[x->rank - 1];
    switch (op->kind) {
    case TP_OP_FFT:
        if (tp_dtype_is_float(c->in[0]->dtype) == false)
            return tp_infer_fail(c, TP_ERR_INVALID, err, "fft takes a real input, got %s",
                                 tp_dtype_name(c->in[0]->dtype));
        if (nfft > 0) {
            *last = tp_dim_static(nfft / 2 + 1);
        } else {
            st = tp_infer_expr(c, TP_SYM_DIV_FLOOR, *last, tp_dim_static(2), last, err);
            if (st == TP_OK) st = tp_infer_expr(c, TP_SYM_ADD, *last, tp_dim_static(1), last, err);
            if (st != TP_OK) return st;
        }
        *dtype = TP_DTYPE_C64;
        break;
    case TP_OP_LOG_MEL:
        if (op->attrs.signal.n_mels < 1)
            return tp_infer_fail(c, TP_ERR_INVALID, err, "n_mels must be >= 1");
        if (nfft > 0 && hop > 0) { /* waveform [..., samples] -> [..., frames, n_mels] */
            if (x->rank + 1 > TP_MAX_RANK)
                return tp_infer_fail(c, TP_ERR_SHAPE, err, "result rank exceeds TP_MAX_RANK");
            tp_dim samples = *last, frames;
            if (tp_dim_is_static(samples)) {
                if (samples.size < nfft)
                    return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                         "%" PRId64 " samples are fewer than n_fft %" PRId64,
                                         samples.size, nfft);
                frames = tp_dim_static((samples.size - nfft) / hop + 1);
            } else {
                st = tp_infer_expr(c, TP_SYM_SUB, samples, tp_dim_static(nfft), &frames, err);
                if (st == TP_OK)
                    st = tp_infer_expr(c, TP_SYM_DIV_FLOOR, frames, tp_dim_static(hop), &frames,
                                       err);
                if (st == TP_OK)
                    st = tp_infer_expr(c, TP_SYM_ADD, frames, tp_dim_static(1), &frames, err);
                if (st != TP_OK) return st;
            }
            *last = frames;
            o.dims[o.rank++] = tp_dim_static(op->attrs.signal.n_mels);
        } else { /* spectrogram [..., frames, bins] -> [..., frames, n_mels] */
            if (x->rank < 2)
                return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                     "a spectrogram input must be [..., frames, bins] (or set "
                                     "n_fft and hop for a waveform)");
            *last = tp_dim_static(op->attrs.signal.n_mels);
        }
        *dtype = tp_dtype_is_float(c->in[0]->dtype) ? c->in[0]->dtype : TP_DTYPE_F32;
        break;
    default: /* welch peaks */
        if (op->attrs.signal.k_peaks < 1)
            return tp_infer_fail(c, TP_ERR_INVALID, err, "k_peaks must be >= 1");
        *last = tp_dim_static(op->attrs.signal.k_peaks);
        *dtype = tp_dtype_is_float(c->in[0]->dtype) ? c->in[0]->dtype : TP_DTYPE_F32;
        break;
    }
    *out = o;
    return TP_OK;
}

tp_status tp_infer_spatial(const tp_infer_ctx *c, tp_shape *out, tp_dtype *dtype, bool *no_rule,
                           bool *handled, tp_error *err) {
    (void)no_rule;
    *handled = true;
    *dtype = c->in[0]->dtype;
    switch (c->op->kind) {
    case TP_OP_CONV:
    case TP_OP_CONV_TRANSPOSE:
        return infer_conv(c, out, dtype, err);
    case TP_OP_POOL:
        return infer_pool(c, out, err);
    case TP_OP_FFT:
    case TP_OP_LOG_MEL:
    case TP_OP_WELCH_PEAKS:
        return infer_signal(c, out, dtype, err);
    default:
        *handled = false;
        return TP_OK;
    }
}
