/* Internal: the graph's storage (nodes, names, symbols) shared by the files of
 * src/graph/. Not installed; callers use include/tensorplan/graph.h. */
#ifndef TP_GRAPH_INTERNAL_H
#define TP_GRAPH_INTERNAL_H

#include "core/idmap.h"
#include "tensorplan/graph.h"

/* Symbol table entry: a named symbol or a derived expression `a op b`. */
enum { SYM_OK = 0, SYM_UNBOUND, SYM_OVERFLOW, SYM_DIV_ZERO, SYM_NEGATIVE };

typedef struct tp_gsym {
    const char *name;        /* named symbols; NULL for derived */
    tp_sym_op op;            /* derived */
    tp_dim a, b;             /* derived operands (earlier symbols or static) */
    int64_t value;           /* current value when state == SYM_OK */
    int32_t state;           /* SYM_* under the current bindings */
    tp_sym_id first_unbound; /* a named symbol it depends on that is unbound, or -1 */
    bool bound;              /* named: bound by the user */
    bool has_upper;          /* named: `upper` is used while unbound (tp_graph_symbol_set_upper) */
    tp_dim upper;
    const char *upper_why; /* how the bound was derived (arena text) */
} tp_gsym;

typedef struct tp_arena_chunk tp_arena_chunk;

struct tp_graph {
    const tp_allocator *alloc; /* resolved, never NULL */
    tp_node *nodes;
    size_t n_nodes, cap_nodes;
    tp_node_id *outputs;
    size_t n_outputs, cap_outputs;
    tp_idmap names; /* node name -> node id */
    tp_gsym *syms;
    size_t n_syms, cap_syms;
    tp_sym_id *named; /* ids of named symbols in creation order */
    size_t n_named, cap_named;
    tp_idmap sym_names; /* symbol name -> sym id */
    tp_idmap sym_exprs; /* (op, a, b) -> derived sym id */
    tp_arena_chunk *arena;
    const char **notes; /* importer notes (text in the arena), notes.c */
    size_t n_notes, cap_notes;
    uint64_t n_bodies;                     /* control-flow bodies of the source model (bodies.c) */
    uint64_t n_unplanned_nodes;            /* nodes of bodies not planned (If branches not taken) */
    uint64_t n_folded_main, n_folded_body; /* nodes a runtime folds into constants (bodies.c) */
    uint64_t folded_copy_bytes;            /* their outputs' copies of outer-scope weights */
};

/* Bump allocation owned by the graph (names, input lists); freed at destroy
 * (graph_arena.c). */
void *tp_graph_arena_alloc(tp_graph *g, size_t size);
char *tp_graph_arena_strdup(tp_graph *g, const char *s);
void tp_graph_arena_free(tp_graph *g);

/* The node store (graph_store.c). */
/* Id of the node with this non-empty name, or -1. */
tp_node_id tp_graph_find_name(const tp_graph *g, const char *name);
/* A copy of s with every dim in canonical form (static: sym = TP_NO_SYM;
 * symbolic: size = 0). */
tp_shape tp_graph_normalized_shape(const tp_shape *s);
/* Append a node whose shape and dtype are decided (the builder checked the op,
 * its inputs and the shape). Fails, leaving the graph as it was, on a duplicate
 * name, an invalid dtype, a static byte size over 64 bits or NOMEM. */
tp_status tp_graph_append_node(tp_graph *g, const tp_op *op, const tp_node_id *inputs,
                               uint32_t n_inputs, const tp_shape *shape, tp_dtype dtype,
                               const char *name, tp_node_id *out, tp_error *err);

/* Re-evaluate every derived symbol after a binding change. */
void tp_graph_syms_reeval(tp_graph *g);
/* Cheap validity check of a dim against this graph (static >= 0 or known sym). */
bool tp_graph_dim_ok(const tp_graph *g, tp_dim d);

/* Shape inference (infer*.c). On success *out and *dtype hold the inferred output.
 * *no_rule is set (and TP_OK returned) when the op has no rule or the rule
 * cannot decide for these inputs; the caller then needs an explicit shape. */
typedef struct tp_infer_ctx {
    tp_graph *g;
    const tp_op *op;
    const tp_node *const *in; /* input nodes */
    uint32_t n_in;
    tp_node_id self; /* id the node will get */
    const char *name;
} tp_infer_ctx;

tp_status tp_graph_infer(const tp_infer_ctx *c, tp_shape *out, tp_dtype *dtype, bool *no_rule,
                         tp_error *err);
/* Error with the node context "node N 'name' (op):" prefixed. */
tp_status tp_infer_fail(const tp_infer_ctx *c, tp_status s, tp_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* numpy broadcasting of two shapes (symbolic aware). */
tp_status tp_infer_broadcast(const tp_infer_ctx *c, const tp_shape *a, const tp_shape *b,
                             tp_shape *out, tp_error *err);
/* Normalise a possibly negative axis against rank (ONNX); error naming the node. */
tp_status tp_infer_axis(const tp_infer_ctx *c, int64_t axis, int32_t rank, const char *what,
                        int32_t *out, tp_error *err);
/* tp_graph_dim_expr with the node context on error. */
tp_status tp_infer_expr(const tp_infer_ctx *c, tp_sym_op op, tp_dim a, tp_dim b, tp_dim *out,
                        tp_error *err);
/* Rules by family (infer_*.c): each handles the kinds it knows and sets *handled. */
tp_status tp_infer_data(const tp_infer_ctx *c, tp_shape *out, tp_dtype *dtype, bool *no_rule,
                        bool *handled, tp_error *err);
tp_status tp_infer_spatial(const tp_infer_ctx *c, tp_shape *out, tp_dtype *dtype, bool *no_rule,
                           bool *handled, tp_error *err);
/* Element counts of two shapes: 1 provably equal, 0 provably different, -1 unknown. */
int tp_graph_count_cmp(const tp_graph *g, const tp_shape *a, const tp_shape *b);
/* Arity bounds of an op kind (max UINT32_MAX = unbounded). */
void tp_op_arity(const tp_op *op, uint32_t *min_in, uint32_t *max_in);

#endif
