/*
 * tensorplan/graph.h — the graph IR.
 *
 * A graph is an append-only list of nodes; insertion order is a topological
 * order (a node may only use earlier nodes). The step of a node is its id.
 * Every node has one output tensor (shape + dtype). Dims are static or
 * symbolic; symbolic dims refer to named symbols ("batch", "seq") or to derived
 * expressions over other dims ("past+seq", "(h+2*pad-k)/s+1"), and are bound
 * with tp_graph_bind() before planning.
 *
 * Example:
 *     tp_graph *g; tp_error err;
 *     tp_graph_create(NULL, &g, &err);
 *     tp_dim batch; tp_graph_symbol(g, "batch", &batch, &err);
 *     tp_shape xs = tp_shape_make(2, (tp_dim[]){batch, tp_dim_static(768)});
 *     tp_node_id x, w, y;
 *     tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err);
 *     tp_graph_add_param(g, "w", TP_DTYPE_F32, &(tp_shape){2, {{768,-1},{3072,-1}}}, &w, &err);
 *     tp_graph_add_op(g, &(tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x, w}, 2, "mm", &y, &err);
 *     tp_graph_mark_output(g, y, &err);
 *     tp_graph_bind(g, "batch", 8, &err);
 *     ... plan (tensorplan/plan.h) ...
 *     tp_graph_destroy(g);
 *
 * Ownership: the graph owns its nodes, names and symbol table; pointers
 * returned by accessors stay valid until the next mutating call or destroy.
 * Thread safety: a graph may be read from several threads at once; mutation
 * (add, bind, mark) needs exclusive access.
 */
#ifndef TENSORPLAN_GRAPH_H
#define TENSORPLAN_GRAPH_H

#include "tensorplan/core.h"
#include "tensorplan/dtype.h"
#include "tensorplan/shape.h" /* tp_dim, tp_shape */

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t tp_node_id; /* index into the graph; -1 = none */

/* ---- ops ---- */

typedef enum tp_op_kind {
    TP_OP_INPUT,          /* graph input; name = node name */
    TP_OP_PARAM,          /* weight; name = node name; attrs.param */
    TP_OP_CONSTANT,       /* constant tensor */
    TP_OP_UNARY,          /* sub: tp_unary_fn */
    TP_OP_BINARY,         /* sub: tp_binary_fn; numpy broadcasting */
    TP_OP_COMPARE,        /* sub: tp_compare_fn; broadcasting; output bool */
    TP_OP_WHERE,          /* (cond, a, b); broadcasting */
    TP_OP_CAST,           /* attrs.cast.to; a view when to == input dtype */
    TP_OP_MATMUL,         /* numpy matmul: batched, broadcast batch dims */
    TP_OP_GEMM,           /* attrs.gemm: (A, B[, C]) 2-D with optional transposes */
    TP_OP_BATCHED_DOT,    /* (A[b,m,k], B[b,k,n]) -> [b,m,n] */
    TP_OP_FUSED_MATMUL,   /* matmul + optional bias (input 2) + activation attrs.fused */
    TP_OP_CONV,           /* attrs.conv: (X[N,C,spatial...], W[M,C/g,k...][, B]); of 8-bit
                             X and W it may be given int32 (tp_graph_add_op_shaped: ONNX
                             ConvInteger) */
    TP_OP_CONV_TRANSPOSE, /* attrs.conv (out_pad used) */
    TP_OP_POOL,           /* sub: tp_pool_kind; attrs.conv for window (groups unused) */
    TP_OP_NORM,           /* sub: tp_norm_kind; attrs.norm; inputs (x, scale?, bias?...) */
    TP_OP_SOFTMAX,        /* sub: 0 softmax, 1 log-softmax; attrs.axis.axis */
    TP_OP_REDUCE,         /* sub: tp_reduce_fn; attrs.reduce */
    TP_OP_ATTENTION,      /* attrs.attention: (q, k, v[, mask]) or (qkv[, mask]) when packed */
    TP_OP_ROPE,           /* rotary embedding: (x[, cos, sin]); shape of x */
    TP_OP_GATHER,         /* (data, indices); attrs.axis.axis */
    TP_OP_SCATTER,        /* (data, indices, updates); attrs.axis.axis; shape of data */
    TP_OP_CONCAT,         /* attrs.axis.axis */
    TP_OP_SPLIT,          /* one piece of a split: attrs.narrow (axis, start, length) */
    TP_OP_SLICE,          /* attrs.slice */
    TP_OP_NARROW,         /* attrs.narrow; a view when axis == 0 */
    TP_OP_PAD,            /* attrs.pad */
    TP_OP_EXPAND,         /* explicit output shape (broadcast target) */
    TP_OP_TILE,           /* attrs.tile.repeats */
    TP_OP_RESHAPE,        /* explicit output shape; a view */
    TP_OP_TRANSPOSE,      /* attrs.transpose.perm */
    TP_OP_SQUEEZE,        /* attrs.axes; a view */
    TP_OP_UNSQUEEZE,      /* attrs.axes; a view */
    TP_OP_FLATTEN,        /* attrs.axis.axis; a view */
    TP_OP_RESIZE,         /* explicit output shape, or attrs.resize scales */
    TP_OP_TOPK,           /* attrs.topk; values output (indices via TP_OP_OUTPUT_OF) */
    TP_OP_CUMSUM,         /* attrs.axis.axis */
    TP_OP_FFT,            /* attrs.signal; real -> complex half spectrum over the last axis */
    TP_OP_LOG_MEL,        /* attrs.signal; spectrogram -> [.., frames, n_mels] */
    TP_OP_WELCH_PEAKS,    /* attrs.signal; Welch PSD peak picking -> [.., k] */
    TP_OP_CUSTOM,         /* attrs.custom; explicit output shape */
    TP_OP_IF,             /* control flow, opaque; explicit output shape */
    TP_OP_LOOP,           /* control flow, opaque; explicit output shape */
    TP_OP_SCAN,           /* control flow, opaque; explicit output shape */
    TP_OP_OUTPUT_OF,      /* secondary output attrs.output_of.index of the multi-output
                             node given as input 0; explicit shape; born with its producer */
    TP_OP_KIND_COUNT
} tp_op_kind;

typedef enum tp_unary_fn {
    TP_UNARY_IDENTITY,
    TP_UNARY_NEG,
    TP_UNARY_ABS,
    TP_UNARY_EXP,
    TP_UNARY_LOG,
    TP_UNARY_SQRT,
    TP_UNARY_RSQRT,
    TP_UNARY_RECIP,
    TP_UNARY_RELU,
    TP_UNARY_GELU,
    TP_UNARY_SILU,
    TP_UNARY_SIGMOID,
    TP_UNARY_TANH,
    TP_UNARY_ERF,
    TP_UNARY_SIN,
    TP_UNARY_COS,
    TP_UNARY_FLOOR,
    TP_UNARY_CEIL,
    TP_UNARY_ROUND,
    TP_UNARY_SIGN,
    TP_UNARY_NOT,
    TP_UNARY_LEAKY_RELU,
    TP_UNARY_ELU,
    TP_UNARY_HARD_SIGMOID,
    TP_UNARY_HARD_SWISH,
    TP_UNARY_SOFTPLUS,
    TP_UNARY_CLIP,
    TP_UNARY_OTHER,
    TP_UNARY_COUNT
} tp_unary_fn;

typedef enum tp_binary_fn {
    TP_BINARY_ADD,
    TP_BINARY_SUB,
    TP_BINARY_MUL,
    TP_BINARY_DIV,
    TP_BINARY_POW,
    TP_BINARY_MAX,
    TP_BINARY_MIN,
    TP_BINARY_MOD,
    TP_BINARY_AND,
    TP_BINARY_OR,
    TP_BINARY_XOR,
    TP_BINARY_OTHER,
    TP_BINARY_PRELU, /* y = x > 0 ? x : x * slope (the slope broadcast to x) */
    TP_BINARY_COUNT
} tp_binary_fn;

typedef enum tp_compare_fn {
    TP_COMPARE_EQ,
    TP_COMPARE_NE,
    TP_COMPARE_LT,
    TP_COMPARE_LE,
    TP_COMPARE_GT,
    TP_COMPARE_GE,
    TP_COMPARE_COUNT
} tp_compare_fn;

typedef enum tp_pool_kind {
    TP_POOL_MAX,
    TP_POOL_AVG,
    TP_POOL_LP,
    TP_POOL_GLOBAL_MAX,
    TP_POOL_GLOBAL_AVG,
    TP_POOL_COUNT
} tp_pool_kind;

typedef enum tp_norm_kind {
    TP_NORM_LAYER,
    TP_NORM_RMS,
    TP_NORM_GROUP,
    TP_NORM_BATCH,
    TP_NORM_INSTANCE,
    TP_NORM_LRN,
    TP_NORM_COUNT
} tp_norm_kind;

typedef enum tp_reduce_fn {
    TP_REDUCE_SUM,
    TP_REDUCE_MEAN,
    TP_REDUCE_MAX,
    TP_REDUCE_MIN,
    TP_REDUCE_PROD,
    TP_REDUCE_L1,
    TP_REDUCE_L2,
    TP_REDUCE_SUM_SQUARE,
    TP_REDUCE_LOG_SUM_EXP,
    TP_REDUCE_ARGMAX,
    TP_REDUCE_ARGMIN,
    TP_REDUCE_COUNT
} tp_reduce_fn;

typedef enum tp_mask_kind {
    TP_MASK_NONE,
    TP_MASK_CAUSAL,
    TP_MASK_EXPLICIT,
    TP_MASK_COUNT
} tp_mask_kind;

/* The role of an input axis of a contraction (an ONNX Einsum of two operands whose letters each
 * appear in the other operand or in the output): tp_op.attrs.custom.einsum_role. */
typedef enum tp_einsum_role {
    TP_EINSUM_NONE = 0, /* not a contraction (attrs of any other custom node) */
    TP_EINSUM_BATCH,    /* in both operands and the output (and "..." axes) */
    TP_EINSUM_ROWS,     /* in operand 0 and the output: a GEMM's m */
    TP_EINSUM_COLS,     /* in operand 1 and the output: a GEMM's n */
    TP_EINSUM_SUM       /* in both operands, not the output: summed over, a GEMM's k */
} tp_einsum_role;

typedef struct tp_op {
    tp_op_kind kind;
    int32_t sub; /* tp_unary_fn / tp_binary_fn / tp_compare_fn / tp_pool_kind / tp_norm_kind /
                    tp_reduce_fn / softmax variant, by kind */
    union {
        struct {
            int32_t tied_to;
            uint32_t body_depth;
            uint64_t data_offset;
            uint64_t data_bytes;
            bool external;
        } param;
        /* tied_to: node id of the Param this one aliases (counted once), or -1.
           body_depth: 0 for a weight of the main graph; k for an initializer (or, on a
           Constant, a Constant node) of a control-flow body (If branch, Loop/Scan body)
           nested k bodies deep.
           data_offset/bytes: where the weight lives in its file (0 when unknown).
           external: its bytes are in an external data file, not in the model file
           (tp_graph_set_param_external; false by default). */
        struct {
            tp_dtype to;
        } cast;
        struct {
            int64_t axis;
        } axis;
        struct {
            bool trans_a, trans_b;
            double alpha, beta;
        } gemm;
        struct {
            int32_t act;
            bool has_bias;
            bool trans_b;
        } fused; /* act: tp_unary_fn */
        struct {
            int32_t spatial; /* number of spatial dims (1..3) */
            int64_t kernel[3], stride[3], dilation[3], pad_begin[3], pad_end[3], out_pad[3];
            int64_t groups; /* conv only; >= 1 */
            bool ceil_mode; /* pool only */
        } conv;
        struct {
            int64_t axis;
            double eps;
            int64_t groups;
        } norm;
        struct {
            int32_t n_axes;
            int64_t axes[TP_MAX_RANK];
            bool keepdims;
        } reduce;
        struct {
            int64_t heads, kv_heads, head_dim; /* kv_heads < heads: grouped-query */
            int32_t mask;                      /* tp_mask_kind */
            bool packed_qkv;                   /* input 0 is [b, s, 3*h*d] (or grouped) */
        } attention;
        struct {
            int32_t n;
            int64_t axes[TP_MAX_RANK], starts[TP_MAX_RANK], ends[TP_MAX_RANK], steps[TP_MAX_RANK];
        } slice; /* ONNX semantics: negative indices count from the end; ends clamp */
        struct {
            int64_t axis, start, length;
        } narrow;
        struct {
            int64_t begin[TP_MAX_RANK], end[TP_MAX_RANK];
            bool zero_fill;  /* mode constant, value 0 */
            bool pads_const; /* pads from an initializer or Constant, not computed at run time */
        } pad;
        struct {
            int64_t repeats[TP_MAX_RANK];
        } tile;
        struct {
            int32_t perm[TP_MAX_RANK];
        } transpose; /* all -1 / zero rank: reverse */
        struct {
            int32_t n_axes;
            int64_t axes[TP_MAX_RANK];
        } axes; /* squeeze/unsqueeze */
        struct {
            double scales[TP_MAX_RANK];
            /* nearest with constant scales of positive integers (batch and channels 1), no sizes
             * input and, from opset 11, asymmetric coordinates and nearest_mode floor: every
             * output element a copy of one input element (onnxruntime runs it as a copy) */
            bool int_nearest;
            /* the forms onnxruntime 1.30's NCHWc layout runs as its Upsample on a blocked input:
             * int_nearest, or linear with integer scales (from opset 11 with asymmetric,
             * half_pixel or align_corners coordinates) */
            bool nchwc;
        } resize;
        struct {
            int64_t k, axis;
            bool largest;
        } topk;
        struct {
            int64_t n_fft, hop, n_mels, k_peaks;
        } signal;
        struct {
            const char *name;
            int32_t n_inputs;
            /* An ONNX Einsum of two operands that is a contraction: the tp_einsum_role of each
             * axis of operand 0 and operand 1 (cost models price it as a batched GEMM); all
             * TP_EINSUM_NONE for any other custom node. */
            uint8_t einsum_role[2][TP_MAX_RANK];
        } custom; /* name copied by the graph */
        struct {
            int32_t index;
        } output_of;
    } attrs;
} tp_op;

TP_API const char *tp_op_kind_name(tp_op_kind k); /* "matmul", ...; never NULL */
/* A readable op name including the sub-function, e.g. "binary.add", "pool.max". Never NULL. */
TP_API const char *tp_op_name(const tp_op *op);

/* Node flags. */
enum {
    TP_NODE_OUTPUT = 1u << 0,            /* graph output (tp_graph_mark_output) */
    TP_NODE_READS_INPUTS_LATE = 1u << 1, /* inputs' chains live until the end of the run */
    TP_NODE_SHAPE_ONLY = 1u << 2,        /* reads only its inputs' shapes, never their bytes (ONNX
                                            Shape/Size): no kernel launch, no host sync in cost models;
                                            liveness still counts it as a reader (conservative) */
    TP_NODE_DEVICE_KERNEL = 1u << 3,     /* a custom node that is an ordinary device kernel (a
                                            standard op the IR cannot spell exactly, e.g. an ONNX
                                            Slice with symbolic bounds), not a host callback: never
                                            a sync point in the IO profile */
    TP_NODE_DIMS_AT_RUNTIME = 1u << 4,   /* its output dims come from values computed while the
                                            model runs (an ONNX Reshape whose shape is built from
                                            Shape over a symbolic dim): onnxruntime's static
                                            shape inference does not know them, so its planner
                                            reuses no buffer by shape there (runtime_ort.c) */
    TP_NODE_DENORMAL_OUT = 1u << 5,      /* its float output holds denormal numbers: an ONNX
                                            Softmax over scores plus a mask whose constant lies in
                                            exp's denormal band (Swin's -100). On a CPU that does
                                            not flush them to zero (onnxruntime's default), a
                                            GEMM that multiplies by them takes a microcode assist
                                            per vector operation (docs/cost.md, "Denormal
                                            attention masks") */
    TP_NODE_EXP_UNDERFLOW = 1u << 6,     /* a float Softmax whose input carries a mask constant
                                            at or below -87 (a denormal-band fill, -1e4, the
                                            float minimum Hugging Face's causal masks use, -inf):
                                            exp() of its masked scores leaves the normal range,
                                            which onnxruntime's exp kernel pays in microcode
                                            assists on a CPU that does not flush denormals
                                            (docs/cost.md, "Masked Softmax") */
    TP_NODE_FOLDED = 1u << 7,            /* every input a constant: onnxruntime's constant folding
                                            computes it when the session loads and keeps its
                                            output as an initializer (importers; runtime_ort.c
                                            prices it as one, not as a kernel) */
    TP_NODE_FOLDED_COPY = 1u << 8,       /* TP_NODE_FOLDED inside a control-flow body, from a
                                            weight of an enclosing scope: when a node that runs
                                            reads it, the body holds its own copy */
};

/* A node as stored; read-only for callers. */
typedef struct tp_node {
    tp_op op;
    tp_node_id *inputs;
    uint32_t n_inputs;
    uint32_t flags;
    tp_shape shape;
    tp_dtype dtype;
    const char *name; /* never NULL; "" when unnamed */
} tp_node;

/* ---- lifetime ---- */

typedef struct tp_graph tp_graph;
/* Create an empty graph. alloc may be NULL (libc). TP_ERR_NOMEM. */
TP_API tp_status tp_graph_create(const tp_allocator *alloc, tp_graph **out, tp_error *err);
TP_API void tp_graph_destroy(tp_graph *g);
TP_API const tp_allocator *tp_graph_allocator(const tp_graph *g);

/* ---- symbols ---- */

/* Get or create the named symbol; *out is a symbolic dim referring to it. */
TP_API tp_status tp_graph_symbol(tp_graph *g, const char *name, tp_dim *out, tp_error *err);
typedef enum tp_sym_op {
    TP_SYM_ADD,
    TP_SYM_SUB,
    TP_SYM_MUL,
    TP_SYM_DIV_FLOOR,
    TP_SYM_DIV_CEIL,
    TP_SYM_MAX,
    TP_SYM_MIN
} tp_sym_op;
/* A dim equal to `a op b`. Folds to a static dim when both are static
 * (overflow and division by zero are errors); otherwise a derived symbol. */
TP_API tp_status tp_graph_dim_expr(tp_graph *g, tp_sym_op op, tp_dim a, tp_dim b, tp_dim *out,
                                   tp_error *err);
/* Bind a named symbol to a value (>= 0). TP_ERR_NOT_FOUND when the graph has
 * no such symbol. Re-binding replaces the value. */
TP_API tp_status tp_graph_bind(tp_graph *g, const char *name, int64_t value, tp_error *err);
/* Parse and apply "name=value" (value may be an integer). */
TP_API tp_status tp_graph_bind_str(tp_graph *g, const char *assignment, tp_error *err);
/* Forget all bindings. */
TP_API void tp_graph_unbind_all(tp_graph *g);

/* ---- default bindings ----
 *
 * Every command needs all dims bound, but a model's batch dim (or a dim its
 * exporter left unnamed) rarely matters for a first look. The rule, applied
 * by tp_graph_bind_defaults to each named symbol that is still unbound and is
 * a dim of at least one graph Input:
 *   - batch-like names bind to 1: names starting with "batch" ("batch",
 *     "batch_size", "batchsize", ...) and the names "b", "bs", "n" and "nb",
 *     all compared case-insensitively;
 *   - unnamed dims bind to 1: "unk__<digits>" (as onnxruntime's symbolic shape
 *     inference and tf2onnx name them) and "unk_<tensor>_<axis>" (tensorplan's
 *     ONNX importer, for a dim with neither a value nor a name).
 * Other dims ("seq", "past", ...) stay unbound. Binding first and then calling
 * this keeps the caller's values (the CLI applies --dim first). */
TP_API bool tp_dim_name_is_batch_like(const char *name); /* false for NULL */
TP_API bool tp_dim_name_is_unnamed(const char *name);    /* false for NULL */
/* Bind the symbols chosen by the rule above to 1. The first `cap` of their
 * indices (for tp_graph_symbol_name) are written to bound (may be NULL when cap
 * is 0) in symbol order; *n_bound (may be NULL) receives how many were bound.
 * TP_ERR_INVALID (NULL g), TP_ERR_NOMEM; on error some may be bound already.
 * Needs exclusive access. */
TP_API tp_status tp_graph_bind_defaults(tp_graph *g, uint32_t *bound, uint32_t cap,
                                        uint32_t *n_bound, tp_error *err);
/* Number of named symbols and their names (derived expressions excluded). */
TP_API uint32_t tp_graph_symbol_count(const tp_graph *g);
TP_API const char *tp_graph_symbol_name(const tp_graph *g, uint32_t index);
/* A symbolic dim referring to the index-th named symbol (for tp_graph_dim_value);
 * {0, TP_NO_SYM} for a bad index. */
TP_API tp_dim tp_graph_symbol_dim(const tp_graph *g, uint32_t index);
/* True when d is a derived dim (an expression `a op b` built by
 * tp_graph_dim_expr or a shape rule): its operator and operands. */
TP_API bool tp_graph_dim_def(const tp_graph *g, tp_dim d, tp_sym_op *op, tp_dim *a, tp_dim *b);
/* Value of a dim under the current bindings. TP_ERR_UNBOUND naming the
 * unbound symbol(s). Derived: TP_ERR_OVERFLOW / TP_ERR_INVALID (division by 0). */
TP_API tp_status tp_graph_dim_value(const tp_graph *g, tp_dim d, int64_t *out, tp_error *err);
/* Write a dim as text ("768", "batch", "(past+seq)") into buf; returns buf. */
TP_API const char *tp_graph_dim_str(const tp_graph *g, tp_dim d, char *buf, size_t cap);
/* Write a shape as text ("[batch,128,768]"). */
TP_API const char *tp_graph_shape_str(const tp_graph *g, const tp_shape *s, char *buf, size_t cap);
/* True when both dims are provably equal (same static value or same symbol). */
TP_API bool tp_graph_dim_equal(const tp_graph *g, tp_dim a, tp_dim b);

/* ---- building ----
 *
 * Node names are unique: adding a node whose non-empty name is already used
 * fails with TP_ERR_INVALID (unnamed nodes, name NULL or "", are fine). Input,
 * param and constant nodes need a name. A failed add leaves the graph as it
 * was. Every add returns TP_ERR_INVALID (bad ids, arity, dtype, rank >
 * TP_MAX_RANK), TP_ERR_SHAPE (shapes that do not agree, quantized tensors that
 * are not whole blocks), TP_ERR_OVERFLOW (a static byte size over 64 bits) or
 * TP_ERR_NOMEM, with a message naming the node, its op and the shapes. The
 * shape rules of every op are listed in docs/graph.md. */

TP_API tp_status tp_graph_add_input(tp_graph *g, const char *name, tp_dtype dtype,
                                    const tp_shape *shape, tp_node_id *out, tp_error *err);
TP_API tp_status tp_graph_add_param(tp_graph *g, const char *name, tp_dtype dtype,
                                    const tp_shape *shape, tp_node_id *out, tp_error *err);
/* A Param that is a tied alias of `target` (an earlier Param): counted once. */
TP_API tp_status tp_graph_add_tied_param(tp_graph *g, const char *name, tp_node_id target,
                                         tp_node_id *out, tp_error *err);
TP_API tp_status tp_graph_add_constant(tp_graph *g, const char *name, tp_dtype dtype,
                                       const tp_shape *shape, tp_node_id *out, tp_error *err);

/* Add an op node with its output shape and dtype inferred from the inputs and
 * attributes. Inputs must be earlier nodes; arity and dtypes are checked.
 * Ops that need an explicit shape (reshape, expand, custom, control flow, ...)
 * return TP_ERR_INVALID here: use tp_graph_add_op_shaped. name may be NULL. */
TP_API tp_status tp_graph_add_op(tp_graph *g, const tp_op *op, const tp_node_id *inputs,
                                 uint32_t n_inputs, const char *name, tp_node_id *out,
                                 tp_error *err);
/* The output shape and dtype that op's shape rule (the one tp_graph_add_op
 * applies) gives for inputs of these shapes and dtypes, without adding a node:
 * one geometry for importers, also for values they type without adding (a
 * loop body's dry run). *has_rule is false (TP_OK, *shape unset) for ops the
 * graph cannot shape by itself (reshape, expand, custom, control flow, ...).
 * Errors (arity, incompatible shapes) as tp_graph_add_op's. May add derived
 * symbols: needs exclusive access. */
TP_API tp_status tp_graph_infer_shape(tp_graph *g, const tp_op *op,
                                      const tp_shape *const *in_shapes, const tp_dtype *in_dtypes,
                                      uint32_t n_inputs, tp_shape *shape, tp_dtype *dtype,
                                      bool *has_rule, tp_error *err);
/* As tp_graph_add_op with an explicit output shape and dtype. Where the op has
 * a shape rule, the given shape must agree with it (TP_ERR_SHAPE otherwise);
 * for views the byte size must match the aliased bytes. */
TP_API tp_status tp_graph_add_op_shaped(tp_graph *g, const tp_op *op, const tp_node_id *inputs,
                                        uint32_t n_inputs, const tp_shape *shape, tp_dtype dtype,
                                        const char *name, tp_node_id *out, tp_error *err);
/* Mark a node as a graph output. */
TP_API tp_status tp_graph_mark_output(tp_graph *g, tp_node_id id, tp_error *err);
/* Set node flags (OR-ed in), e.g. TP_NODE_READS_INPUTS_LATE. */
TP_API tp_status tp_graph_set_flags(tp_graph *g, tp_node_id id, uint32_t flags, tp_error *err);

/* ---- reading ---- */

TP_API uint32_t tp_graph_node_count(const tp_graph *g);
/* NULL when id is out of range. */
TP_API const tp_node *tp_graph_node(const tp_graph *g, tp_node_id id);
/* Find a node by name; TP_ERR_NOT_FOUND. O(1) average. */
TP_API tp_status tp_graph_find(const tp_graph *g, const char *name, tp_node_id *out, tp_error *err);
/* Graph outputs in the order they were marked. */
TP_API uint32_t tp_graph_output_count(const tp_graph *g);
TP_API tp_node_id tp_graph_output(const tp_graph *g, uint32_t index);

/* Element count and byte size of a node's output under the current bindings.
 * TP_ERR_UNBOUND (naming the symbol and node), TP_ERR_OVERFLOW, TP_ERR_SHAPE
 * (quantized tensor not a whole number of blocks). */
TP_API tp_status tp_graph_node_elements(const tp_graph *g, tp_node_id id, uint64_t *out,
                                        tp_error *err);
TP_API tp_status tp_graph_node_bytes(const tp_graph *g, tp_node_id id, uint64_t *out,
                                     tp_error *err);
/* Same for a shape/dtype pair in the context of the graph's symbols. */
TP_API tp_status tp_graph_shape_elements(const tp_graph *g, const tp_shape *s, uint64_t *out,
                                         tp_error *err);
/* Check the whole graph: inputs earlier, arities, dtypes, at least one output,
 * every symbol bound (TP_ERR_UNBOUND lists all unbound names). */
TP_API tp_status tp_graph_validate(const tp_graph *g, bool require_bound, tp_error *err);

/* Views: true when node id aliases its input 0's bytes
 * (reshape, squeeze, unsqueeze, flatten, same-dtype cast, axis-0 narrow);
 * *offset_bytes receives the byte offset into the input (needs bound dims for
 * narrow). Returns TP_OK with *is_view=false for non-views. */
TP_API tp_status tp_graph_node_view(const tp_graph *g, tp_node_id id, bool *is_view,
                                    uint64_t *offset_bytes, tp_error *err);
/* Boundary ops: Input, Param, Constant. */
static inline bool tp_op_is_boundary(tp_op_kind k) {
    return k == TP_OP_INPUT || k == TP_OP_PARAM || k == TP_OP_CONSTANT;
}
/* Weights: Param and Constant (a boundary a runtime may pack or fold at load). */
static inline bool tp_op_is_weight(tp_op_kind k) {
    return k == TP_OP_PARAM || k == TP_OP_CONSTANT;
}
/* Elementwise ops eligible for in-place reuse (unary, binary, compare, where, cast, rope). */
TP_API bool tp_op_is_elementwise(tp_op_kind k);

/* Upper bound of a data-dependent size: while the named symbol `sym` is not
 * bound, it takes the value of `upper` (a static size or a dim over other
 * symbols, e.g. the element count of NonZero's input), so a graph with
 * data-dependent sizes can be planned without bindings, safely (never below the
 * runtime's size). tp_graph_bind still overrides it. `why` (copied) says how the
 * bound was derived. TP_ERR_INVALID when sym is not a named symbol or upper is
 * sym itself. Needs exclusive access. */
TP_API tp_status tp_graph_symbol_set_upper(tp_graph *g, tp_dim sym, tp_dim upper, const char *why,
                                           tp_error *err);
/* True when named symbol `index` (tp_graph_symbol_name order) currently takes its
 * upper bound (not bound by the user, the bound's value known): *value and *why
 * receive it (either may be NULL). */
TP_API bool tp_graph_symbol_upper(const tp_graph *g, uint32_t index, int64_t *value,
                                  const char **why);

/* ---- notes: what an importer assumed ----
 * A note is one line of text saying what was assumed to size the graph (which
 * If branch was planned and why, an upper bound used for a data-dependent dim,
 * a loop trip count). Reports print them and the JSON carries them. The text
 * is copied into the graph (owned by it until tp_graph_destroy). A note equal
 * to an earlier one is not added twice. Needs exclusive access; reading is
 * thread-safe. tp_graph_note returns NULL for an index out of range. */
TP_API tp_status tp_graph_add_note(tp_graph *g, const char *text, tp_error *err);
TP_API uint32_t tp_graph_note_count(const tp_graph *g);
TP_API const char *tp_graph_note(const tp_graph *g, uint32_t index);

/* Record where a Param's bytes live in its model file (importers; 0 = unknown).
 * TP_ERR_INVALID when id is not a Param. Needs exclusive access. */
TP_API tp_status tp_graph_set_param_data(tp_graph *g, tp_node_id id, uint64_t data_offset,
                                         uint64_t data_bytes, tp_error *err);
/* Record that a Param's bytes are stored in an external data file rather than inside the
 * model file (importers; false by default). A runtime loads the two differently (onnxruntime
 * copies an embedded weight out of the parsed model, it maps an external one): runtime_ort.c.
 * TP_ERR_INVALID when id is not a Param. Needs exclusive access. */
TP_API tp_status tp_graph_set_param_external(tp_graph *g, tp_node_id id, bool external,
                                             tp_error *err);
/* Control-flow bodies of the model a graph was imported from (importers): add bodies (If
 * branches, Loop/Scan bodies, at any depth, planned or not) and unplanned_nodes (operator
 * nodes of the bodies not planned: If branches not taken, whose nodes a runtime still
 * loads) to the graph's counts, both 0 for a new graph. TP_ERR_INVALID (NULL g),
 * TP_ERR_OVERFLOW. Needs exclusive access. tp_graph_bodies reads them (NULL outputs
 * skipped; 0 for a NULL graph); thread-safe. */
TP_API tp_status tp_graph_add_bodies(tp_graph *g, uint64_t bodies, uint64_t unplanned_nodes,
                                     tp_error *err);
TP_API void tp_graph_bodies(const tp_graph *g, uint64_t *bodies, uint64_t *unplanned_nodes);
/* Operator nodes of the source model that a runtime computes once when it loads the model
 * (onnxruntime's constant folding: every input a constant) and keeps as constants (importers):
 * add main_nodes (in the main graph) and body_nodes (in control-flow bodies, planned or not) to
 * the graph's counts, and copy_bytes: the copies such nodes of bodies not planned (If branches
 * not taken, which are not graph nodes) keep of weights of enclosing scopes (the planned ones
 * are graph nodes flagged TP_NODE_FOLDED_COPY). All 0 for a new graph. Planned folded nodes
 * stay in the graph as operators (planners see them). The onnxruntime profile prices as
 * constants the nodes counted here (the counts carry whether a fold is inside a body, which a
 * node flag does not), so an importer that flags a graph node TP_NODE_FOLDED also counts it;
 * the flags alone decide the cost model (not run) and the copies. TP_ERR_INVALID (NULL g),
 * TP_ERR_OVERFLOW. Needs exclusive access. tp_graph_folded reads them (NULL outputs skipped; 0 for
 * a NULL graph); thread-safe. */
TP_API tp_status tp_graph_add_folded(tp_graph *g, uint64_t main_nodes, uint64_t body_nodes,
                                     uint64_t copy_bytes, tp_error *err);
TP_API void tp_graph_folded(const tp_graph *g, uint64_t *main_nodes, uint64_t *body_nodes,
                            uint64_t *copy_bytes);
/* Record that a Param is an initializer (or a Constant a constant node) of a control-flow
 * body nested depth bodies deep (importers; 0 = the main graph, the default).
 * TP_ERR_INVALID when id is neither a Param nor a Constant. Needs exclusive access. */
TP_API tp_status tp_graph_set_param_body_depth(tp_graph *g, tp_node_id id, uint32_t depth,
                                               tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
