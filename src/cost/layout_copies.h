/* The layout copies onnxruntime's CPU provider adds to a graph (internal to src/cost): its NCHWc
 * transformer (level "all") keeps convolution chains in a channel-blocked layout and inserts a
 * ReorderOutput where a blocked tensor is read by an operator that runs in plain NCHW (or is a
 * graph output), and a ReorderInput where a blocked Conv reads a plain tensor. Each is a pass
 * of its own over memory that no node of the model stands for (docs/cost.md, "Session 11", **Layout
 * copies**). So are the Casts it inserts around an operator it keeps in half precision (a
 * float16 Concat, tp_ort_half_kernel, among float16 operators it computes in float32): one to
 * half of each float32-computed input, one to float32 of its output for float32 readers. */
#ifndef TP_COST_LAYOUT_COPIES_H
#define TP_COST_LAYOUT_COPIES_H

#include "ortgraph/ort_xform.h"
#include "tensorplan/cost.h"

/* The copies of bound graph g in onnxruntime's optimized form x (tp_ort_xform_compute with the
 * NCHWc channel block, the caller's; block 0: none), each as a memory
 * pass (TP_COST_MEMORY, one launch, plain bytes on one side and the channels padded to the
 * block on the other), for the caller to price: *out (*n_out entries, NULL when none) from g's
 * allocator, freed with tp__layout_copies_free. `blocked` (NULL, or one byte per node of g, the
 * caller's): set to 1 for every node whose output onnxruntime keeps in the blocked layout, 0 for
 * the others. TP_ERR_NOMEM, TP_ERR_UNBOUND, TP_ERR_OVERFLOW. */
tp_status tp__layout_copies(const tp_graph *g, const tp_ort_xform *x, tp_op_cost **out,
                            uint32_t *n_out, uint8_t *blocked, tp_error *err);
void tp__layout_copies_free(const tp_graph *g, tp_op_cost *copies, uint32_t n);

#endif
