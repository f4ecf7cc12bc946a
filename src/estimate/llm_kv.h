/* Per-layer KV cache sizes of the LLM estimate (internal; shared by llm.c and
 * llm_placement.c, which puts each layer's K and V on its device). */
#ifndef TP_ESTIMATE_LLM_KV_H
#define TP_ESTIMATE_LLM_KV_H

#include "tensorplan/llm.h"

/* The widest layer's V row (elements): V's row without flash attention. */
uint64_t tp__llm_v_max(const tp_llm_config *c);

/* Layer il's K and V bytes, each padded to align, with e's cells and streams
 * (from tp_llm_estimate_memory). 0 and TP_OK for a layer without KV.
 * TP_ERR_SHAPE / TP_ERR_OVERFLOW as tp_llm_estimate_memory. */
tp_status tp__llm_layer_kv(const tp_llm_config *c, const tp_llm_options *o,
                           const tp_llm_estimate *e, uint64_t il, uint64_t v_max, uint64_t align,
                           uint64_t *k, uint64_t *v, tp_error *err);

/* Layer il's recurrent state (hybrid families): the r and s tensors of
 * llama_memory_recurrent, f32 rows of n_embd_r and n_embd_s for max(1, n_seq)
 * sequences, each padded to align; 0 for a layer with a KV cache. */
uint64_t tp__llm_layer_rs(const tp_llm_config *c, const tp_llm_options *o, uint64_t il,
                          uint64_t align);

#endif
