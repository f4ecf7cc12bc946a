/* Attention masks whose fill value makes a Softmax write denormal numbers (onnx_ops.h).
 *
 * A masked attention adds a large negative constant to the scores it masks (or selects it with
 * Where) before the Softmax. exp() of a value between about -104 and -87 is a denormal float
 * (below FLT_MIN, above the smallest denormal); below that it is 0, above it a normal number.
 * So a fill value of -100 (torchvision's and Hugging Face's Swin) leaves the masked share of
 * the Softmax's output denormal, where -1e4, -1e9, -inf or FLT_MIN leave zeros. Measured with
 * onnxruntime 1.30 on an Intel Xeon (docs/cost.md, "Denormal attention masks"): the MatMul that
 * multiplies the probabilities by V ran 55x slower with a -90 or -100 mask than without, and
 * 1.3-1.9x with -120, -1e4, -inf or FLT_MIN.
 *
 * The value followed here is the most negative constant that reaches a tensor through
 * additions, selections and copies: a constant's own elements (tensorplan tracks the values of
 * tensors up to TP_OX_MAX_VALUES elements), then Add / Sum / Where / Concat / Min of them, and
 * the ops that move or repeat elements without changing them. A multiplication or any other
 * arithmetic ends it (the scale is not known). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "import/onnx_ops.h"

/* exp() of a mask in [BAND_LO, BAND_HI] is denormal (float32: ln(2^-149) = -103.28 up to
   ln(FLT_MIN) = -87.34); the band is taken on the fill value itself, the scores of a row being
   small next to it. */
#define BAND_LO (-104.0)
#define BAND_HI (-87.0)

double tp_ox_value_mask_min(const tp_ox_value *v) {
    double lo = INFINITY;
    if (!v || v->seq || !v->is_float || !v->f) return lo;
    for (int64_t i = 0; i < v->n; i++)
        if (v->f[i] < lo) lo = v->f[i]; /* NaN (a symbolic element) compares false */
    return lo;
}

static bool op_is(const tp_ox_ctx *c, const char *const *ops) {
    for (; *ops; ops++)
        if (strcmp(c->node->op_type, *ops) == 0) return true;
    return false;
}

/* Ops that pass their data input's (input 0's) elements on unchanged, moved or repeated
   (inference: Dropout is the identity): a mask's fill value and a Softmax's denormals alike */
static const char *const MOVE[] = {"Reshape", "Unsqueeze", "Squeeze", "Expand", "Transpose",
                                   "Cast",    "Slice",     "Gather",  "Tile",   "Identity",
                                   "Flatten", "Pad",       "Dropout", NULL};

double tp_ox_mask_min(const tp_ox_ctx *c) {
    /* every input's elements can reach the output (not Max's: it keeps the larger values) */
    static const char *const COMBINE[] = {"Add", "Concat", "Min", "Sum", NULL};
    double lo = c->n_out > 0 ? tp_ox_value_mask_min(c->out[0].value) : INFINITY;
    if (c->node->domain[0]) return lo;
    uint32_t first = 0, last = 0; /* inputs [first, last) */
    if (op_is(c, COMBINE))
        last = c->n_in;
    else if (strcmp(c->node->op_type, "Where") == 0)
        first = 1, last = c->n_in;
    else if (op_is(c, MOVE))
        last = c->n_in > 0 ? 1 : 0;
    for (uint32_t i = first; i < last; i++)
        if (c->in[i].present && c->in[i].mask_min < lo) lo = c->in[i].mask_min;
    return lo;
}

static bool is_softmax(const tp_ox_ctx *c) {
    return !c->node->domain[0] && strcmp(c->node->op_type, "Softmax") == 0;
}

uint32_t tp_ox_mask_flags(const tp_ox_ctx *c) {
    if (c->node->domain[0] || c->n_in < 1 || !c->in[0].present) return 0;
    /* float32's band and float32's denormals (fp16's start far higher: exp(-100) is 0 there; a
       Cast to another type ends them) */
    if (c->n_out < 1 || c->out[0].elem_type != TP_ONNX_FLOAT) return 0;
    if (is_softmax(c)) {
        double m = c->in[0].mask_min;
        return m >= BAND_LO && m <= BAND_HI ? TP_NODE_DENORMAL_OUT : 0;
    }
    const tp_node *in = c->in[0].node >= 0 ? tp_graph_node(c->g, c->in[0].node) : NULL;
    return in && (in->flags & TP_NODE_DENORMAL_OUT) && op_is(c, MOVE) ? TP_NODE_DENORMAL_OUT : 0;
}

tp_status tp_ox_mask_note(const tp_ox_ctx *c, uint32_t flags) {
    if (!(flags & TP_NODE_DENORMAL_OUT) || !is_softmax(c)) return TP_OK;
    char msg[480]; /* identical notes are kept once: one per fill value */
    snprintf(msg, sizeof msg,
             "a Softmax reads a mask filled with %g, in exp's denormal band: its masked "
             "probabilities are denormal numbers, which the GEMM after it multiplies slowly on a "
             "CPU that does not flush them to zero (onnxruntime's default; its session option "
             "session.set_denormal_as_zero=1 avoids it); priced with half of them masked",
             c->in[0].mask_min);
    return tp_graph_add_note(c->g, msg, c->err);
}
