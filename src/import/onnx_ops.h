/*
 * Internal: the per-op shape rules of the ONNX -> IR converter.
 *
 * onnx_convert.c walks the nodes; for each it fills a tp_ox_ctx with the
 * node's inputs (shape, dtype, known values) and calls the op's rule. A rule
 * fills the outputs (shape, dtype, optionally a propagated value), the IR op
 * for output 0 and which inputs the IR node reads. Rules live in one file per
 * op family (onnx_ops_<family>.c); each file exports a table.
 *
 * Rules never print; errors go through tp_ox_fail (status + message naming
 * node, op, opset and input shapes). Not thread-safe (per conversion).
 */
#ifndef TP_IMPORT_ONNX_OPS_H
#define TP_IMPORT_ONNX_OPS_H

#include "import/onnx_model.h"
#include "import/onnx_values.h"

typedef struct tp_ox_in {
    bool present; /* false for a missing optional input ("") */
    const char *name;
    tp_node_id node; /* IR node holding the value */
    tp_shape shape;
    tp_dtype dtype;
    int32_t elem_type;        /* ONNX element type */
    const tp_ox_value *value; /* known values, or NULL */
    /* what onnxruntime's graph knows of it (onnx_ort_known.c): its value is computed while the
     * model runs (not a constant onnxruntime folds), and its dims come from such a value */
    bool runtime;
    bool dims_unknown;
    double mask_min; /* onnx_mask.c (ox_val.mask_min) */
} tp_ox_in;

typedef struct tp_ox_out {
    tp_shape shape;
    int32_t elem_type;  /* ONNX element type of the output */
    tp_ox_value *value; /* propagated value (owned by the converter once set) */
} tp_ox_out;

typedef struct tp_ox_ctx {
    tp_graph *g;
    tp_ox_syms *syms; /* symbolic arithmetic (tp_ox_dim) */
    const tp_allocator *alloc;
    const tp_onnx_model *m;
    const tp_onnx_node *node;
    int64_t opset; /* of the node's domain */
    tp_error *err;
    uint32_t n_in;
    const tp_ox_in *in;
    uint32_t n_out;
    tp_ox_out *out;
    /* Set by the rule: the IR op of output 0 (default TP_OP_CUSTOM named after
     * the ONNX op), and the inputs the IR node reads (default: every present
     * input, in order). */
    tp_op op;
    uint32_t n_ir_in;
    int32_t ir_in[64];
    bool ir_in_set;
    uint32_t node_flags; /* tp_graph node flags for output 0 (e.g. TP_NODE_SHAPE_ONLY) */
    /* Set by the Einsum rule for a contraction of two operands: tp_op.attrs.custom.einsum_role */
    uint8_t einsum_role[2][TP_MAX_RANK];
} tp_ox_ctx;

typedef tp_status (*tp_ox_rule_fn)(tp_ox_ctx *c);

typedef struct tp_ox_rule {
    const char *op_type; /* default-domain op */
    tp_ox_rule_fn fn;
} tp_ox_rule;

/* Tables, one per family; *n receives the count. */
const tp_ox_rule *tp__ox_rules_elementwise(size_t *n);
const tp_ox_rule *tp__ox_rules_linalg(size_t *n);
const tp_ox_rule *tp__ox_rules_shape(size_t *n);
const tp_ox_rule *tp__ox_rules_index(size_t *n);
const tp_ox_rule *tp__ox_rules_reduce(size_t *n);
const tp_ox_rule *tp__ox_rules_misc(size_t *n);
const tp_ox_rule *tp__ox_rules_const(size_t *n);
const tp_ox_rule *tp__ox_rules_sequence(size_t *n);
/* Ops that take sequence / optional values as inputs (the sequence rules and
 * Identity); any other op given one fails (onnx_ops_sequence.c). */
bool tp__ox_takes_sequences(const char *op);
/* The tensor elements a sequence or optional holds (the size of its IR node). */
tp_status tp_ox_seq_total(tp_ox_ctx *c, const tp_ox_seq *s, tp_dim *out);
/* Output out of a Loop carrying a sequence (init before, iter after one
 * iteration, trip iterations); *last_in (owned by the caller, may be NULL) is
 * the sequence the last iteration starts from when it grows (*grows). */
/* Output out of an If whose branch is not known, both branches giving a
 * sequence or optional (a and b): their merge, an upper bound of either. */
tp_status tp_ox_seq_if_output(tp_ox_ctx *c, uint32_t out, const tp_ox_seq *a, const tp_ox_seq *b);
tp_status tp_ox_seq_loop(tp_ox_ctx *c, uint32_t out, const tp_ox_seq *init, const tp_ox_seq *iter,
                         tp_dim trip, tp_ox_seq **last_in, bool *grows);
/* The rule of a com.microsoft contrib op (onnx_ops_contrib.c), or NULL. */
tp_ox_rule_fn tp__ox_contrib_rule(const char *op);

/* What onnxruntime's graph knows (onnx_ort_known.c), for a node typed by its rule: its outputs'
 * values are computed while the model runs (false for a Constant, a Shape over dims that are all
 * numbers, a node whose inputs are all constants), and its output dims come from such a value (a
 * Reshape, Slice, Expand, ... whose shape-giving input is computed at run time, a Reshape that
 * onnxruntime's ReshapeFusion turns constant excepted). */
bool tp_ox_value_at_runtime(const tp_ox_ctx *c);
bool tp_ox_dims_from_runtime(const tp_ox_ctx *c);
/* Attention masks (onnx_mask.c): the most negative constant among a value's elements (+inf when
 * none is known or it is not floating point), the one that reaches a node's outputs through
 * additions, selections and copies of its inputs, and the flags it gives the node
 * (TP_NODE_EXP_UNDERFLOW on a float32 Softmax whose input's mask is at or below -87, with
 * TP_NODE_DENORMAL_OUT where it lies in exp's denormal band, and on the ops passing that on). */
double tp_ox_value_mask_min(const tp_ox_value *v);
double tp_ox_mask_min(const tp_ox_ctx *c);
uint32_t tp_ox_mask_flags(const tp_ox_ctx *c);
/* Whether input `input` of n can carry a mask's fill to its output, so that an initializer too
 * large to be value-tracked is read there for its least value (tp_ox_tensor_mask_min): the
 * inputs tp_ox_mask_min follows, but a Gather's table (an embedding). */
bool tp_ox_mask_reads(const tp_onnx_node *n, uint32_t input);
/* The external data file the mask scans read, kept mapped for the conversion (a model keeps its
 * initializers in one file, mostly): `location` as the tensors name it, NULL before the first;
 * `map` NULL when it could not be read. Zero it before use; tp_ox_ext_close unmaps it. */
typedef struct tp_ox_ext {
    const char *location;
    struct tp_file_map *map;
} tp_ox_ext;
void tp_ox_ext_close(tp_ox_ext *x);
/* The least value of an initializer t: +inf when it is not floating point, has more than 16 Mi
 * elements, its type cannot be read, or its data is in an external file that cannot be read
 * (the model came from memory, the file is missing or short, or it lies outside the model's
 * directory and outside the directory of the file a symbolic-link model names). An external
 * file is mapped once per location through `ext`. Errors: those of inconsistent data in the
 * model file or the external file, as tp__onnx_tensor_read_f64. */
tp_status tp_ox_tensor_mask_min(const tp_onnx_model *m, const tp_onnx_tensor *t, tp_ox_ext *ext,
                                double *min, tp_error *err);
/* The graph note of a Softmax given TP_NODE_EXP_UNDERFLOW by tp_ox_mask_flags (`flags`): the
 * fill value and what it costs; TP_OK and nothing for any other node. */
tp_status tp_ox_mask_note(const tp_ox_ctx *c, uint32_t flags);
/* A graph note for a ConvInteger with int8 weights (onnx_ops_linalg.c): onnxruntime runs it on a
 * path 5.8-7.7× slower than with uint8 weights (probes), which the cost model does not price. TP_OK
 * for any other node; TP_ERR_NOMEM. */
tp_status tp_ox_integer_conv_note(const tp_ox_ctx *c);

/* ---- helpers for rules (onnx_convert.c) ---- */

/* Set c->err: "onnx: node 'n' (Op, opset 17) with inputs [..] f32, [..] i64: <msg>". */
tp_status tp_ox_fail(tp_ox_ctx *c, tp_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A fresh symbolic dim "unk_<node>_<axis>" for an unknown size. */
tp_status tp_ox_unknown_dim(tp_ox_ctx *c, uint32_t out, int32_t axis, tp_dim *d);
/* A named symbolic dim for a data-dependent size: "<what>_<node>". */
tp_status tp_ox_data_dim(tp_ox_ctx *c, const char *what, tp_dim *d);
/* A data-dependent dim as tp_ox_data_dim with an upper bound used while it is
 * not bound (tp_graph_symbol_set_upper); `how` says what the bound is, e.g.
 * "the elements of its input". */
tp_status tp_ox_data_dim_upper(tp_ox_ctx *c, const char *what, tp_dim upper, const char *how,
                               tp_dim *d);
/* Require at least lo and at most hi inputs (counting trailing missing ones). */
tp_status tp_ox_arity(tp_ox_ctx *c, uint32_t lo, uint32_t hi);
/* Normalize an axis for a rank (negative counts from the end). */
tp_status tp_ox_axis(tp_ox_ctx *c, int64_t axis, int32_t rank, int64_t *out);
/* Numpy broadcasting of n shapes into *out (MAX of symbolic dims). */
tp_status tp_ox_broadcast(tp_ox_ctx *c, const tp_shape *const *shapes, uint32_t n, tp_shape *out);
/* The IR reads only these inputs (indices into c->in); missing ones skipped. */
void tp_ox_ir_inputs(tp_ox_ctx *c, uint32_t n, const int32_t *idx);
/* Integer values of an input (static); false when unknown/symbolic. */
bool tp_ox_input_ints(const tp_ox_ctx *c, uint32_t i, int64_t *out, int64_t cap, int64_t *n);
/* An ints attribute: pointer and count (NULL/0 when absent). */
const int64_t *tp_ox_attr_ints(const tp_ox_ctx *c, const char *name, uint32_t *n);
const float *tp_ox_attr_floats(const tp_ox_ctx *c, const char *name, uint32_t *n);
int64_t tp_ox_attr_int(const tp_ox_ctx *c, const char *name, int64_t dflt);
float tp_ox_attr_float(const tp_ox_ctx *c, const char *name, float dflt);
const char *tp_ox_attr_str(const tp_ox_ctx *c, const char *name, const char *dflt);
bool tp_ox_has_attr(const tp_ox_ctx *c, const char *name);
/* dim arithmetic shortcut (tp_graph_dim_expr with the ctx's error). */
tp_status tp_ox_dim(tp_ox_ctx *c, tp_sym_op op, tp_dim a, tp_dim b, tp_dim *out);
/* Product of dims [from, to) of s. */
tp_status tp_ox_prod(tp_ox_ctx *c, const tp_shape *s, int32_t from, int32_t to, tp_dim *out);
/* Set output i to shape/elem type of input j (same-shape ops). */
void tp_ox_same(tp_ox_ctx *c, uint32_t out, uint32_t in);
/* Set the output's elem type from a tp_dtype / check a shape's rank. */
tp_status tp_ox_rank_check(tp_ox_ctx *c, uint32_t i, int32_t lo, int32_t hi);
/* The geometry engine: output out's shape from the IR's shape rule for c->op
 * (tp_graph_infer_shape) over the inputs the IR node reads (c->ir_in, or every
 * present input). Rules of ONNX ops that map onto an IR op with a rule call
 * this instead of computing the shape themselves; they keep only what is
 * ONNX-specific (attributes into c->op, the element type, values). An op the
 * IR cannot shape is TP_ERR_INVALID (a bug in the rule). */
tp_status tp_ox_ir_shape(tp_ox_ctx *c, uint32_t out);
/* Set output 0 value (takes ownership). */
void tp_ox_set_value(tp_ox_ctx *c, uint32_t out, tp_ox_value *v);

#endif
