/* What onnxruntime's graph knows statically of an ONNX value (onnx_ops.h): whether its value is
 * computed while the model runs, and whether a node's output dims come from such a value.
 * Modelled from onnxruntime 1.30's source, not copied:
 * - its shape inference asks ONNX's inference functions with the graph's constant initializers
 *   as the only input data (graph.cc: no partial data propagation), so a Reshape, Slice, Expand
 *   ... whose shape-giving input is computed at run time gets an output without known dims;
 * - its constant folding (constant_folding.cc) turns into initializers the Constant nodes, a
 *   Shape whose input dims (the ones it returns) are all numbers, and every node whose inputs all
 *   are initializers; a Shape over a symbolic dim stays, and so does everything computed from it
 *   (Gather of a dim that is a number included: the Shape is folded whole or not at all);
 * - its ReshapeFusion (reshape_fusion.cc) replaces a Reshape's shape built by Concat from
 *   constants and `Shape(x) -> Gather(k)` of the Reshape's own input x at position k by a
 *   constant with 0 there (a dim ONNX then copies); an element from any other subgraph becomes
 *   -1, which ONNX cannot resolve over a symbolic input dim. */
#include <string.h>

#include "import/onnx_ops.h"

/* Ops whose output dims come from the values of their inputs from index `first` on (0: every
 * input's, the data-dependent sizes). */
typedef struct shape_param_op {
    const char *op;
    uint32_t first;
} shape_param_op;

static const shape_param_op SHAPE_PARAM_OPS[] = {
    {"Reshape", 1},
    {"Slice", 1},
    {"Expand", 1},
    {"Tile", 1},
    {"Pad", 1},
    {"Squeeze", 1},
    {"Unsqueeze", 1},
    {"Split", 1},
    {"TopK", 1},
    {"Resize", 1},
    {"Upsample", 1},
    {"OneHot", 1},
    {"Range", 0},
    {"ConstantOfShape", 0},
    {"CenterCropPad", 1},
    {"ReduceSum", 1},
    {"ReduceMean", 1},
    {"ReduceMax", 1},
    {"ReduceMin", 1},
    {"ReduceProd", 1},
    {"ReduceL1", 1},
    {"ReduceL2", 1},
    {"ReduceLogSum", 1},
    {"ReduceLogSumExp", 1},
    {"ReduceSumSquare", 1},
    /* data-dependent sizes: from the values of every input */
    {"NonZero", 0},
    {"Compress", 0},
    {"Unique", 0},
    {"NonMaxSuppression", 0},
};

bool tp_ox_value_at_runtime(const tp_ox_ctx *c) {
    if (c->node_flags & TP_NODE_SHAPE_ONLY) {
        /* Shape or Size: folded when the dims it returns (its rule's value) are all numbers */
        const tp_ox_value *v = c->n_out > 0 ? c->out[0].value : NULL;
        if (!v || v->is_float || v->seq || (c->n_in > 0 && c->in[0].dims_unknown)) return true;
        for (int64_t k = 0; k < v->n; k++)
            if (!tp_dim_is_static(v->d[k])) return true;
        return false;
    }
    /* a Constant has no inputs: folded */
    for (uint32_t i = 0; i < c->n_in; i++)
        if (c->in[i].present && c->in[i].runtime) return true;
    return false;
}

/* ReshapeFusion: every element of the target a number other than -1, or the input's own dim at
 * that position (copied as 0). Only tensorplan's values are seen, not the subgraph that made them:
 * a number from another tensor's Shape is taken as a constant. */
static bool reshape_fuses(const tp_ox_ctx *c) {
    const tp_ox_value *v = c->n_in > 1 ? c->in[1].value : NULL;
    if (!v || v->is_float || v->seq) return false;
    const tp_shape *x = &c->in[0].shape;
    for (int64_t k = 0; k < v->n; k++) {
        tp_dim d = v->d[k];
        if (tp_dim_is_static(d) && d.size >= 0) continue;
        if (!tp_dim_is_static(d) && k < x->rank && tp_graph_dim_equal(c->g, d, x->dims[k]))
            continue;
        return false;
    }
    return true;
}

bool tp_ox_dims_from_runtime(const tp_ox_ctx *c) {
    const char *op = c->node->op_type;
    for (size_t t = 0; t < sizeof SHAPE_PARAM_OPS / sizeof SHAPE_PARAM_OPS[0]; t++) {
        if (strcmp(op, SHAPE_PARAM_OPS[t].op) != 0) continue;
        bool runtime = false;
        for (uint32_t i = SHAPE_PARAM_OPS[t].first; i < c->n_in; i++)
            if (c->in[i].present && c->in[i].runtime) runtime = true;
        if (runtime && strcmp(op, "Reshape") == 0 && reshape_fuses(c)) return false;
        return runtime;
    }
    return false;
}
