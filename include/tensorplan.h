/*
 * tensorplan.h — the umbrella header of libtensorplan.
 *
 * tensorplan answers, before a single weight is loaded: will a model fit, where
 * does each tensor go, how fast will it run and on which device.
 *
 * Modules (each header documents ownership, errors and thread safety):
 *   tensorplan/version.h  TP_VERSION_* macros of the headers (tp_version(): the library's)
 *   tensorplan/export.h   TP_API, the mark of every exported function
 *   tensorplan/core.h     statuses, tp_error, allocator hook, checked arithmetic
 *   tensorplan/dtype.h    element types (GGUF block-quantized types included)
 *   tensorplan/shape.h    tensor shapes: static and symbolic dims
 *   tensorplan/graph.h    the graph IR, builder, symbolic dims and binding
 *   tensorplan/alloc.h    arena placement over (size, birth, death) buffers
 *   tensorplan/plan.h     liveness, graph plans, reports, backward plans
 *   tensorplan/demo.h     a built-in GPT-2-small-like example model
 *   tensorplan/report.h   the SVG memory map of a plan
 *   tensorplan/csv.h      MiniMalloc-style buffer CSV files
 *   tensorplan/onnx.h     ONNX import (zero-copy reader, inspect info, conversion)
 *   tensorplan/safetensors.h safetensors checkpoints: dtypes, shapes, byte ranges
 *   tensorplan/tracker.h  run-time memory accounting
 *   tensorplan/sysmem.h   host and GPU memory of this machine
 *   tensorplan/registry.h the weight registry of a model
 *   tensorplan/estimate.h memory estimates against budgets
 *   tensorplan/llm.h      GGUF models: weights, KV cache, context sweeps
 *   tensorplan/runtime.h  runtime profiles (what a runtime really takes)
 *   tensorplan/cost.h     op flops/bytes, IO profile, device models, calibration,
 *                         device catalog and device choice
 *   tensorplan/env.h      the environment variables the CLI honours, read in one place
 *
 * Worked example — plan a one-layer MLP for batch 8:
 *
 *     #include <tensorplan.h>
 *     tp_error err; tp_graph *g; tp_plan *plan; tp_plan_options po;
 *     tp_dim batch;
 *     tp_graph_create(NULL, &g, &err);
 *     tp_graph_symbol(g, "batch", &batch, &err);
 *     tp_shape xs = tp_shape_make(2, (tp_dim[]){batch, tp_dim_static(512)});
 *     tp_shape ws = tp_shape_of(2, (int64_t[]){512, 2048});
 *     tp_node_id x, w, h, y;
 *     tp_graph_add_input(g, "x", TP_DTYPE_F32, &xs, &x, &err);
 *     tp_graph_add_param(g, "w", TP_DTYPE_F32, &ws, &w, &err);
 *     tp_graph_add_op(g, &(tp_op){.kind = TP_OP_MATMUL}, (tp_node_id[]){x, w}, 2, "fc", &h, &err);
 *     tp_graph_add_op(g, &(tp_op){.kind = TP_OP_UNARY, .sub = TP_UNARY_GELU},
 *                     (tp_node_id[]){h}, 1, "gelu", &y, &err);
 *     tp_graph_mark_output(g, y, &err);
 *     tp_graph_bind(g, "batch", 8, &err);
 *     tp_plan_options_default(&po);
 *     if (tp_plan_graph(g, &po, &plan, &err) != TP_OK) { puts(err.msg); }
 *     printf("arena %llu bytes\n", (unsigned long long)tp_plan_arena_bytes(plan));
 *     tp_plan_destroy(plan);
 *     tp_graph_destroy(g);
 */
#ifndef TENSORPLAN_H
#define TENSORPLAN_H

#include "tensorplan/version.h"
#include "tensorplan/export.h"
#include "tensorplan/core.h"
#include "tensorplan/dtype.h"
#include "tensorplan/shape.h"
#include "tensorplan/graph.h"
#include "tensorplan/alloc.h"
#include "tensorplan/plan.h"
#include "tensorplan/demo.h"
#include "tensorplan/report.h"
#include "tensorplan/csv.h"
#include "tensorplan/onnx.h"
#include "tensorplan/safetensors.h"
#include "tensorplan/tracker.h"
#include "tensorplan/sysmem.h"
#include "tensorplan/registry.h"
#include "tensorplan/estimate.h"
#include "tensorplan/llm.h"
#include "tensorplan/runtime.h"
#include "tensorplan/cost.h"
#include "tensorplan/env.h"
#include "tensorplan/llm.h"
#include "tensorplan/llm_devices.h"

#endif
