/* llama.cpp's prefill graph of one ubatch, built as tp_gg_graph and planned
 * with the ggml allocator emulation (internal; llm_graph.c). */
#ifndef TP_ESTIMATE_LLM_GRAPH_H
#define TP_ESTIMATE_LLM_GRAPH_H

#include "estimate/ggml_graph.h"
#include "tensorplan/llm.h"

/* true when llm_graph.c builds c's architecture with these options (else the
 * caller keeps the compute formula). */
bool tp__llm_graph_covers(const tp_llm_config *c, const tp_llm_options *o);

/* Build the graph llama.cpp reserves for a ubatch of e->n_ubatch tokens (all
 * of them outputs) with e's cache sizes into g (initialised by the caller).
 * Every tensor's layer is stamped (-1: inputs and embeddings, n_layer: the
 * output layer). TP_ERR_UNSUPPORTED when not covered, TP_ERR_OVERFLOW,
 * TP_ERR_NOMEM. */
tp_status tp__llm_graph_build(const tp_llm_config *c, const tp_llm_options *o,
                              const tp_llm_estimate *e, tp_gg_graph *g, tp_error *err);

/* The CPU compute buffer: the graph planned as ggml's allocator plans it. */
tp_status tp__llm_graph_compute(const tp_llm_config *c, const tp_llm_options *o,
                                const tp_llm_estimate *e, uint64_t *bytes, tp_error *err);

#endif
