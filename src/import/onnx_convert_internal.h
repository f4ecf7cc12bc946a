/*
 * Internal: the state of one ONNX -> IR conversion, shared by the node walk
 * (onnx_convert.c) and the control-flow bodies (onnx_control.c).
 *
 * Values live in one table keyed by name. A subgraph body opens a scope: the
 * values it defines are dropped when the scope closes, and an outer value it
 * shadows is restored (an undo log). In a dry run (dry > 0) nodes are typed
 * and values recorded but no IR node is added (node ids are TP_NO_NODE): Loop
 * and Scan run their body dry first to learn the shapes of their outputs, so
 * that the Loop/Scan node, whose outputs accumulate during the iterations, is
 * added before the body's nodes. Not thread-safe (one conversion).
 */
#ifndef TP_IMPORT_ONNX_CONVERT_INTERNAL_H
#define TP_IMPORT_ONNX_CONVERT_INTERNAL_H

#include "import/onnx_convert.h"
#include "import/onnx_ops.h"

typedef struct ox_val {
    const char *name; /* borrowed from the model */
    tp_node_id node;  /* TP_NO_NODE in a dry run */
    tp_shape shape;
    int32_t elem;
    tp_ox_value *value;
    /* onnx_ort_known.c: computed while the model runs (true unless a constant or known to be
     * folded), and dims onnxruntime's shape inference does not know */
    bool runtime;
    bool dims_unknown;
    /* folded by onnxruntime (runtime false) inside a body from a weight of an enclosing scope,
     * directly or through other such folds: the body keeps a copy (TP_NODE_FOLDED_COPY) */
    bool outer_fold;
    /* in a body not planned (onnx_control.c): the bytes of the enclosing scope's weight such a
     * folded value comes from, taken as its size */
    uint64_t outer_bytes;
    /* onnx_mask.c: the most negative constant that reaches it through additions, selections and
     * copies (an attention mask's fill value); +inf when none */
    double mask_min;
    /* an initializer too large for its values to be tracked: mask_min is read from it when an op
     * that carries a mask's fill first reads it (onnx_mask.c); NULL once read, or for others */
    const tp_onnx_tensor *unscanned;
} ox_val;

typedef struct ox_rule_ix {
    const char *op;
    tp_ox_rule_fn fn;
} ox_rule_ix;

typedef struct ox_undo {
    int32_t idx; /* entry of vals that a body shadowed */
    ox_val old;
} ox_undo;

typedef struct ox_scope {
    const tp_onnx_graph *g; /* the body (its value_info is checked) */
    size_t n_vals;          /* vals[0, n_vals) belong to enclosing scopes */
    size_t n_undo;
} ox_scope;

#define TP_OX_MAX_SCOPES 64

typedef struct tp_ox_conv {
    tp_graph *g;
    tp_ox_syms syms;
    const tp_allocator *a;
    const tp_onnx_model *m;
    const tp_onnx_options *opt;
    tp_error *err;
    ox_val *vals;
    size_t n_vals, cap_vals;
    int32_t *slots; /* open addressing: index into vals, -1 empty */
    size_t cap_slots;
    const tp_onnx_value_info **vi; /* value_info by name (same slot scheme) */
    size_t cap_vi;
    ox_rule_ix *rules;
    size_t n_rules;
    tp_ox_in *ins;
    size_t cap_ins;
    tp_ox_out *outs;
    size_t cap_outs;
    tp_node_id *ids;
    size_t cap_ids;
    ox_undo *undo;
    size_t n_undo, cap_undo;
    tp_ox_ext ext; /* the external data file the mask scans read (onnx_mask.c) */
    ox_scope scopes[TP_OX_MAX_SCOPES];
    uint32_t depth; /* open scopes */
    uint32_t dry;   /* > 0: dry run, no IR nodes */
    /* If/Loop/Scan conversion (tp__ox_control_flow), handed in by the loader so that
     * onnx_convert.c and onnx_control.c do not depend on each other: converting a
     * body converts nodes, and a node may be control flow. NULL: none. */
    tp_status (*control_flow)(struct tp_ox_conv *cv, tp_ox_ctx *c, bool *handled);
} tp_ox_conv;

ox_val *tp__ox_val_find(const tp_ox_conv *cv, const char *name);
/* Whether value v, read inside a control-flow body, is a weight (initializer or Constant) of an
 * enclosing scope or a value folded from one (ox_val.outer_fold): onnxruntime's constant
 * folding of a node reading it makes the body its own copy. */
bool tp__ox_outer_value(const tp_ox_conv *cv, const ox_val *v);
/* Add or shadow a value; takes ownership of value (freed on error). */
tp_status tp__ox_val_add(tp_ox_conv *cv, const char *name, tp_node_id node, const tp_shape *shape,
                         int32_t elem, tp_ox_value *value);
/* Open / close a body scope. Close drops the body's values and restores what
 * it shadowed. */
tp_status tp__ox_scope_open(tp_ox_conv *cv, const tp_onnx_graph *body);
void tp__ox_scope_close(tp_ox_conv *cv);
/* Convert one node (any scope). */
tp_status tp__ox_add_node(tp_ox_conv *cv, const tp_onnx_node *n, uint32_t index);
/* An initializer as a Param (a unique IR name inside bodies); a value only in
 * a dry run. */
tp_status tp__ox_add_initializer(tp_ox_conv *cv, const tp_onnx_tensor *t);
/* Add the IR node(s) of a typed node c: output 0 gets c->op reading ids, the
 * other outputs TP_OP_OUTPUT_OF nodes; value_info checked; values recorded. */
tp_status tp__ox_emit(tp_ox_conv *cv, tp_ox_ctx *c, const tp_node_id *ids, uint32_t n_ids);
/* The IR name for a value: the name itself in the main graph, or when free;
 * inside bodies a taken name gets a suffix "#k". buf holds the result. */
const char *tp__ox_ir_name(const tp_ox_conv *cv, const char *name, char *buf, size_t cap);
/* Check an inferred output against value_info of the enclosing scopes. */
tp_status tp__ox_check_outputs(tp_ox_conv *cv, tp_ox_ctx *c);

/* If / Loop / Scan with their bodies converted (onnx_control.c). c holds the
 * node's typed inputs; true in *handled when the op is one of them. */
tp_status tp__ox_control_flow(tp_ox_conv *cv, tp_ox_ctx *c, bool *handled);

#endif
