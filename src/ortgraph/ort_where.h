/* onnxruntime's CPU Where (internal; ort_where.c). Its kernel (where_op.cc) selects in three
 * passes: X_selection = cond ? X : 0 over the broadcast of cond and X (the output's shape),
 * Y_selection = cond ? 0 : Y over the broadcast of cond and Y, then the merge of the two into
 * the output. Read by the cost model (the passes' bytes) and by the onnxruntime memory profile
 * (the two selections, asked of the arena while the kernel runs).
 *
 * Thread safety: pure functions of the graph. */
#ifndef TP_ORTGRAPH_ORT_WHERE_H
#define TP_ORTGRAPH_ORT_WHERE_H
#include "tensorplan/graph.h"

/* The elements of node n's Y_selection: the broadcast of its cond's and its Y's shapes under
 * g's current bindings. false when n is no Where of three inputs or a dim is not bound (then
 * *elems is 0). Never more than the output's elements, so no overflow once those are known. */
bool tp_ort_where_y_selection(const tp_graph *g, const tp_node *n, uint64_t *elems);

#endif
