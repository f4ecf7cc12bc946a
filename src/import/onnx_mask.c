/* Attention masks whose fill value makes a Softmax write denormal numbers (onnx_ops.h).
 *
 * A masked attention adds a large negative constant to the scores it masks (or selects it with
 * Where) before the Softmax. exp() of a value between about -104 and -87 is a denormal float
 * (below FLT_MIN, above the smallest denormal); below that it is 0, above it a normal number.
 * So a fill value of -100 (torchvision's and Hugging Face's Swin) leaves the masked share of
 * the Softmax's output denormal, where -1e4, -1e9, -inf or FLT_MIN leave zeros. Measured with
 * onnxruntime 1.30 on an Intel Xeon (docs/cost.md, "Denormal attention masks"): the MatMul that
 * multiplies the probabilities by V ran 55x slower with a -90 or -100 mask than without, and
 * 1.3-1.9x with -120, -1e4, -inf or FLT_MIN. The Softmax itself pays for every fill at or below
 * the band's top, where exp() leaves the normal range (docs/cost.md, "Masked Softmax"): a
 * causal Softmax of 12 x 512 x 512 took 10-14 ms with -1e4, the float minimum or -inf, 21-22 ms
 * with -100, against 1.4-1.9 ms unmasked.
 *
 * The value followed here is the most negative constant that reaches a tensor through
 * additions, selections and copies: a constant's own elements (tensorplan tracks the values of
 * tensors up to TP_OX_MAX_VALUES elements; a larger initializer, such as a mask registered as a
 * module's buffer, is read once when such an op reads it, from the model file or its external
 * data file), then Add / Sum / Where / Concat / Min of them, and the ops that move or repeat
 * elements without changing them. A multiplication or any other arithmetic ends it (the scale
 * is not known). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/file_map.h"
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

static bool op_in(const char *op_type, const char *const *ops) {
    for (; *ops; ops++)
        if (strcmp(op_type, *ops) == 0) return true;
    return false;
}

/* Ops that pass their data input's (input 0's) elements on unchanged, moved or repeated
   (inference: Dropout is the identity): a mask's fill value and a Softmax's denormals alike */
static const char *const MOVE[] = {"Reshape", "Unsqueeze", "Squeeze", "Expand", "Transpose",
                                   "Cast",    "Slice",     "Gather",  "Tile",   "Identity",
                                   "Flatten", "Pad",       "Dropout", NULL};

/* The inputs [*first, *last) of a node whose elements reach its first output unchanged: every
   input of Add, Concat, Min and Sum (not Max's: it keeps the larger values), Where's two
   branches, the data input of the ops that move elements; none for any other op. */
static void carried_inputs(const char *domain, const char *op_type, uint32_t n_in, uint32_t *first,
                           uint32_t *last) {
    static const char *const COMBINE[] = {"Add", "Concat", "Min", "Sum", NULL};
    *first = *last = 0;
    if (domain[0]) return;
    if (op_in(op_type, COMBINE))
        *last = n_in;
    else if (strcmp(op_type, "Where") == 0)
        *first = 1, *last = n_in;
    else if (op_in(op_type, MOVE))
        *last = n_in > 0 ? 1 : 0;
}

double tp_ox_mask_min(const tp_ox_ctx *c) {
    double lo = c->n_out > 0 ? tp_ox_value_mask_min(c->out[0].value) : INFINITY;
    uint32_t first, last;
    carried_inputs(c->node->domain, c->node->op_type, c->n_in, &first, &last);
    for (uint32_t i = first; i < last; i++)
        if (c->in[i].present && c->in[i].mask_min < lo) lo = c->in[i].mask_min;
    return lo;
}

bool tp_ox_mask_reads(const tp_onnx_node *n, uint32_t input) {
    /* a Gather's table is an embedding, not a mask: not read */
    if (!n->domain[0] && strcmp(n->op_type, "Gather") == 0) return false;
    uint32_t first, last;
    carried_inputs(n->domain, n->op_type, n->n_inputs, &first, &last);
    return input >= first && input < last;
}

/* The largest initializer read for its least value: 16 Mi elements (a 4,096 x 4,096 mask), so
   that no weight of gigabytes is read where a copy op moves it */
#define MASK_READ_MAX (16ull << 20)

/* The path of t's external data, in the model's directory or, for a model file that is a
   symbolic link, in the directory of the file it names (the data beside the real model); NULL
   where neither holds it (tp__onnx_external_path). */
static const char *external_path(const tp_onnx_model *m, const tp_onnx_tensor *t) {
    const char *path = NULL;
    tp_error e;
    if (tp__onnx_external_path(m, t, &path, &e) == TP_OK) return path;
    char *real = realpath(m->path, NULL);
    char *slash = real ? strrchr(real, '/') : NULL;
    if (slash) {
        slash[slash == real ? 1 : 0] = 0; /* "/x" -> "/" */
        tp_onnx_model beside = *m;
        beside.base_dir = real;
        if (tp__onnx_external_path(&beside, t, &path, &e) != TP_OK) path = NULL;
    }
    free(real);
    return path;
}

void tp_ox_ext_close(tp_ox_ext *x) {
    if (!x) return;
    tp__file_map_close(x->map);
    x->map = NULL;
    x->location = NULL;
}

/* An external tensor's data, read from its file when the model came from one (a model read from
   memory opens no file for this), mapped once per location (ext). Data it cannot read, or that
   lies outside the model's directory, leaves the mask unknown. */
static tp_status external_min(const tp_onnx_model *m, const tp_onnx_tensor *t, tp_ox_ext *ext,
                              double *min, tp_error *err) {
    uint64_t end;
    if (!m->path[0] || !tp_add_u64(t->ext_offset, t->n_bytes, &end)) return TP_OK;
    if (!ext->location || strcmp(ext->location, t->ext_location) != 0) {
        tp_ox_ext_close(ext);
        ext->location = t->ext_location;
        const char *path = external_path(m, t);
        tp_error e;
        if (path && tp__file_map_open(path, m->alloc, &ext->map, &e) != TP_OK) ext->map = NULL;
    }
    if (!ext->map || end > ext->map->size) return TP_OK;
    tp_onnx_tensor raw = *t;
    raw.location = TP_ONNX_DATA_RAW;
    raw.raw = ext->map->data + t->ext_offset;
    raw.raw_offset = t->ext_offset;
    raw.raw_size = t->n_bytes;
    return tp__onnx_tensor_min_f64(m, &raw, min, err);
}

tp_status tp_ox_tensor_mask_min(const tp_onnx_model *m, const tp_onnx_tensor *t, tp_ox_ext *ext,
                                double *min, tp_error *err) {
    *min = INFINITY;
    bool is_float = t->data_type == TP_ONNX_FLOAT || t->data_type == TP_ONNX_FLOAT16 ||
                    t->data_type == TP_ONNX_BFLOAT16 || t->data_type == TP_ONNX_DOUBLE;
    if (!is_float || t->location == TP_ONNX_DATA_NONE || t->n_elements > MASK_READ_MAX)
        return TP_OK;
    tp_status s = t->location == TP_ONNX_DATA_EXTERNAL ? external_min(m, t, ext, min, err)
                                                       : tp__onnx_tensor_min_f64(m, t, min, err);
    if (s == TP_ERR_UNSUPPORTED) *min = INFINITY, s = TP_OK;
    return s;
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
        if (!(m <= BAND_HI)) return 0;
        return TP_NODE_EXP_UNDERFLOW | (m >= BAND_LO ? TP_NODE_DENORMAL_OUT : 0);
    }
    const tp_node *in = c->in[0].node >= 0 ? tp_graph_node(c->g, c->in[0].node) : NULL;
    return in && (in->flags & TP_NODE_DENORMAL_OUT) && op_in(c->node->op_type, MOVE)
               ? TP_NODE_DENORMAL_OUT
               : 0;
}

tp_status tp_ox_mask_note(const tp_ox_ctx *c, uint32_t flags) {
    if (!(flags & TP_NODE_EXP_UNDERFLOW) || !is_softmax(c)) return TP_OK;
    char msg[560]; /* identical notes are kept once: one per fill value */
    if (flags & TP_NODE_DENORMAL_OUT)
        snprintf(msg, sizeof msg,
                 "a Softmax reads a mask filled with %g, in exp's denormal band: its masked "
                 "probabilities are denormal numbers, which it and the GEMM after it compute "
                 "slowly on a CPU that does not flush them to zero (onnxruntime's default; its "
                 "session option session.set_denormal_as_zero=1 flushes them on its pool's "
                 "threads only, not on the calling thread, which runs everything at 1 thread); "
                 "priced with a causal mask's share of the scores masked",
                 c->in[0].mask_min);
    else
        snprintf(msg, sizeof msg,
                 "a Softmax reads a mask filled with %g: exp() of its masked scores underflows, "
                 "which onnxruntime's exp kernel pays in microcode assists on a CPU that does not "
                 "flush denormals to zero (its default); priced with a causal mask's share of the "
                 "scores masked",
                 c->in[0].mask_min);
    return tp_graph_add_note(c->g, msg, c->err);
}
