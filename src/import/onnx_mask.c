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

double tp_ox_mask_min(const tp_ox_ctx *c) {
    /* every input's elements can reach the output (not Max's: it keeps the larger values) */
    static const char *const COMBINE[] = {"Add", "Concat", "Min", "Sum", NULL};
    /* the data input's (input 0; Where: inputs 1 and 2) elements, moved or repeated */
    static const char *const MOVE[] = {"Reshape", "Unsqueeze", "Squeeze", "Expand", "Transpose",
                                       "Cast",    "Slice",     "Gather",  "Tile",   "Identity",
                                       "Flatten", "Pad",       "Sub",     NULL};
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

/* Ops that pass their data input's elements on unchanged (inference: Dropout is the identity) */
static const char *const PASS[] = {"Dropout", "Identity",  "Reshape", "Transpose",
                                   "Squeeze", "Unsqueeze", "Flatten", "Expand",
                                   "Tile",    "Slice",     "Gather",  NULL};

uint32_t tp_ox_mask_flags(const tp_ox_ctx *c) {
    if (c->node->domain[0] || c->n_in < 1 || !c->in[0].present) return 0;
    if (strcmp(c->node->op_type, "Softmax") == 0) {
        /* the band is float32's (fp16's denormals start far higher: exp(-100) is 0 there) */
        if (c->in[0].elem_type != TP_ONNX_FLOAT) return 0;
        double m = c->in[0].mask_min;
        return m >= BAND_LO && m <= BAND_HI ? TP_NODE_DENORMAL_OUT : 0;
    }
    const tp_node *in = c->in[0].node >= 0 ? tp_graph_node(c->g, c->in[0].node) : NULL;
    return in && (in->flags & TP_NODE_DENORMAL_OUT) && op_is(c, PASS) ? TP_NODE_DENORMAL_OUT : 0;
}
