/*
 * Internal: value propagation for the ONNX importer.
 *
 * Torch exports compute the shapes of Reshape / Expand / Range / ConstantOfShape
 * ... at run time from Shape -> Gather -> Unsqueeze -> Concat chains. To infer
 * those shapes statically the converter tracks the *values* of small tensors:
 * integer elements as tp_dim (static numbers or symbolic dims such as `batch`,
 * so that Shape of a [batch, seq, 768] tensor is the value {batch, seq, 768}),
 * floating-point elements as double. Values come from initializers, Constant
 * nodes and Shape/Size, and flow through the ops listed in docs/onnx.md.
 *
 * Ownership: a tp_ox_value and its arrays are allocated with the converter's
 * allocator (tp_ox_value_free). Not thread-safe (per conversion).
 */
#ifndef TP_IMPORT_ONNX_VALUES_H
#define TP_IMPORT_ONNX_VALUES_H

#include "import/onnx_model.h"

/* Largest tensor whose values are tracked. */
#define TP_OX_MAX_VALUES 1024

/* A sequence or optional value (onnx_ops_sequence.c). The element tensors are
 * el[0, n_head) once, then the group el[n_head, n) repeated reps times (a
 * length that depends on the trip count of a Loop, or on a split of a symbolic
 * size). An optional holds one tensor (n = 1), a sequence (inner), or nothing
 * (none). approx: element order or shapes are upper bounds (an insert at an
 * unknown position, elements of different shapes merged). */
typedef struct tp_ox_seq {
    char kind; /* 's' sequence, 'o' optional */
    bool none; /* optional without a value */
    bool approx;
    int32_t elem; /* ONNX element type of the tensors */
    uint32_t n, n_head;
    tp_dim reps;             /* static 1 when there is no repeated group */
    tp_shape *el;            /* n shapes (NULL when n is 0) */
    struct tp_ox_seq *inner; /* optional of a sequence */
} tp_ox_seq;

typedef struct tp_ox_value {
    /* Non-NULL: the value is a sequence or optional, not a tensor; n is 0 and
     * the tensor fields are unused. */
    tp_ox_seq *seq;
    int64_t n;     /* number of elements */
    bool is_float; /* f[] holds the elements; else d[] */
    tp_dim *d;     /* integer (and bool) elements: static or symbolic */
    double *f;     /* float elements */
    /* Float elements that are a scaled symbolic dim (a shape cast to float and
     * multiplied or divided by constants: torch / Paddle size arithmetic):
     * element i = fk[i] x fs[i] when fs[i] is symbolic; f[i] is then NaN, so
     * code that knows only f[] sees an unknown element. NULL when none. */
    tp_dim *fs;
    double *fk;
} tp_ox_value;

/* Symbolic arithmetic for the converter: tp_graph_dim_expr plus a memo of the
 * expressions the converter built (derived symbol -> op, a, b), used to apply
 * identities that hold for all dims >= 0 and that the graph does not:
 * (a+b)-b = a, and max(a,b) = b / min(a,b) = a whenever a <= b is provable from
 * the built expressions (min(a,c) <= a, a <= a+c, x/k <= x, and
 * min(c,p+q)-min(c,p) <= q for a clamped slice [p : p+q]). */
typedef struct tp_ox_symdef {
    bool set;
    tp_sym_op op;
    tp_dim a, b;
} tp_ox_symdef;

typedef struct tp_ox_syms {
    tp_graph *g;
    const tp_allocator *alloc;
    tp_ox_symdef *defs; /* indexed by symbol id */
    size_t cap;
    /* symbols with values known before converting (tp_onnx_options.dims):
     * comparisons of these are decided with their values (the graph itself is
     * bound after loading) */
    struct tp_ox_pre_bound {
        tp_sym_id sym;
        int64_t value;
    } * pre_bound;
    size_t n_pre_bound, cap_pre_bound;
    /* every symbol's value under those dims, filled in id order as comparisons ask (a derived
     * symbol refers to earlier ones only): pb_known[id] 1 when pb_value[id] holds it, 0 when it
     * depends on a symbol not bound before converting */
    int64_t *pb_value;
    uint8_t *pb_known;
    size_t pb_len, cap_pb_value, cap_pb_known;
} tp_ox_syms;

tp_status tp_ox_sym_expr(tp_ox_syms *s, tp_sym_op op, tp_dim a, tp_dim b, tp_dim *out,
                         tp_error *err);
void tp_ox_syms_free(tp_ox_syms *s);
/* Record the value of a symbol known before converting (see pre_bound). */
tp_status tp_ox_syms_pre_bound(tp_ox_syms *s, tp_dim d, int64_t value, tp_error *err);

/* A new value with n elements (d[] or f[] zeroed). NULL on NOMEM or n too big. */
tp_ox_value *tp_ox_value_new(const tp_allocator *a, int64_t n, bool is_float);
void tp_ox_value_free(const tp_allocator *a, tp_ox_value *v);
tp_ox_value *tp_ox_value_copy(const tp_allocator *a, const tp_ox_value *v);

/* Element i as a static integer; false when symbolic. Floats are truncated. */
bool tp_ox_value_int(const tp_ox_value *v, int64_t i, int64_t *out);

/* Values of an initializer / Constant tensor: *out NULL (and TP_OK) when the
 * tensor is too big, stored externally or of a type that is not tracked. */
tp_status tp_ox_value_from_tensor(const tp_allocator *a, const tp_onnx_model *m,
                                  const tp_onnx_tensor *t, tp_ox_value **out, tp_error *err);

/* Elementwise binary op with numpy broadcasting over values of the given shapes
 * (both static-shaped). op: 'A'dd 'S'ub 'M'ul 'D'iv 'R'emainder(Mod) 'x' max
 * 'n' min '=' equal '<' less '>' greater 'a'nd 'o'r. is_float for the result
 * type. *out NULL when the result cannot be known (symbolic comparison, ...). */
tp_status tp_ox_value_binary(tp_ox_syms *g, const tp_allocator *a, char op, const tp_ox_value *x,
                             const tp_shape *xs, const tp_ox_value *y, const tp_shape *ys,
                             const tp_shape *out_shape, bool is_float, tp_ox_value **out,
                             tp_error *err);
/* Where(cond, x, y) with broadcasting; NULL when a needed cond is unknown. */
tp_status tp_ox_value_where(const tp_allocator *a, const tp_ox_value *c, const tp_shape *cs,
                            const tp_ox_value *x, const tp_shape *xs, const tp_ox_value *y,
                            const tp_shape *ys, const tp_shape *out_shape, tp_ox_value **out,
                            tp_error *err);
/* Gather along axis with static-shaped data/indices (indices may be negative). */
tp_status tp_ox_value_gather(const tp_allocator *a, const tp_ox_value *data, const tp_shape *ds,
                             const tp_ox_value *idx, const tp_shape *is, int64_t axis,
                             tp_ox_value **out, tp_error *err);
/* Copy elements selected by a strided index map: out[i] = v[map[i]]. */
tp_status tp_ox_value_pick(const tp_allocator *a, const tp_ox_value *v, const int64_t *map,
                           int64_t n, tp_ox_value **out, tp_error *err);
/* Concatenate values along axis (shapes static). */
tp_status tp_ox_value_concat(const tp_allocator *a, const tp_ox_value *const *vs,
                             const tp_shape *const *shapes, uint32_t n, int64_t axis,
                             const tp_shape *out_shape, tp_ox_value **out, tp_error *err);
/* Convert to float or integer elements (Cast). A symbolic integer element
 * becomes a scaled symbolic float (1 x dim); a scaled symbolic float becomes an
 * integer dim when the scale is an integer k (k*dim) or the inverse of one
 * (dim/m, truncated like the cast); otherwise *out is NULL (unknown).
 * to_bool: nonzero -> 1 (symbolic elements: unknown). */
tp_status tp_ox_value_cast(tp_ox_syms *s, const tp_allocator *a, const tp_ox_value *v,
                           bool to_float, bool to_bool, tp_ox_value **out, tp_error *err);
/* Floor / Ceil / Round of float values ('f', 'c', 'r'); scaled symbolic
 * elements stay exact when the result is a dim expression (k*dim with an
 * integer k; floor/ceil(dim/m) for a scale 1/m). NULL when unknown. */
tp_status tp_ox_value_round(tp_ox_syms *s, const tp_allocator *a, const tp_ox_value *v, char mode,
                            tp_ox_value **out, tp_error *err);

/* Reduce every element to one with binary op `op` of tp_ox_value_binary ('A' ReduceSum, 'M'
 * ReduceProd, 'x' ReduceMax, 'n' ReduceMin), element by element under that function's rules
 * (symbolic elements into a dim expression): a 1-element value of v's kind; *out NULL when an
 * element is not known (a scaled symbolic float, an overflow) or v is empty. */
tp_status tp_ox_value_reduce(tp_ox_syms *s, const tp_allocator *a, const tp_ox_value *v, char op,
                             tp_ox_value **out, tp_error *err);

/* Sequences: a new empty one (no elements, reps 1), a deep copy, free. NULL on NOMEM. */
tp_ox_seq *tp_ox_seq_new(const tp_allocator *a, char kind, int32_t elem);
tp_ox_seq *tp_ox_seq_copy(const tp_allocator *a, const tp_ox_seq *s);
void tp_ox_seq_free(const tp_allocator *a, tp_ox_seq *s);
/* Append an element shape to the listed ones (at the end, or at index at). */
bool tp_ox_seq_insert(const tp_allocator *a, tp_ox_seq *s, uint32_t at, const tp_shape *shape);
/* A value holding a sequence (takes ownership of s; freed on NOMEM). */
tp_ox_value *tp_ox_value_of_seq(const tp_allocator *a, tp_ox_seq *s);

/* Static element count of a static shape; false when symbolic or > limit. */
bool tp_ox_shape_static_count(const tp_shape *s, int64_t limit, int64_t *out);

#endif
