/*
 * Internal: ONNX -> IR conversion (implemented in onnx_convert.c and
 * onnx_ops_*.c by the shape-inference side of the importer).
 *
 * tp__onnx_convert appends the model's main graph to g (normally an empty
 * graph created by the caller with the caller's allocator): initializers ->
 * Param nodes (op.attrs.param.data_offset/data_bytes from tp_onnx_tensor),
 * Constant nodes -> constants, non-initializer graph inputs -> Input nodes with
 * dim_param -> symbols, every node -> an IR op with inferred shape/dtype, graph
 * outputs marked. opt is never NULL here (the reader passes defaults).
 * On error g may hold a partial graph; the caller destroys it.
 * Errors: TP_ERR_UNSUPPORTED (op without a rule: names node, op, opset, input
 * shapes), TP_ERR_SHAPE, TP_ERR_PARSE, TP_ERR_NOMEM, TP_ERR_OVERFLOW.
 */
#ifndef TP_IMPORT_ONNX_CONVERT_H
#define TP_IMPORT_ONNX_CONVERT_H

#include "import/onnx_model.h"

struct tp_ox_conv;
struct tp_ox_ctx;
/* Converts one If/Loop/Scan node (sets *handled) or leaves it to the op rules. */
typedef tp_status (*tp__ox_control_fn)(struct tp_ox_conv *cv, struct tp_ox_ctx *c, bool *handled);
/* control_flow: tp__ox_control_flow (onnx_control.c) to convert If/Loop/Scan bodies;
 * NULL keeps them opaque. */
tp_status tp__onnx_convert(const tp_onnx_model *m, const tp_onnx_options *opt, tp_graph *g,
                           tp__ox_control_fn control_flow, tp_error *err);

#endif
