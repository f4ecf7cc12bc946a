/*
 * tensorplan/demo.h — a built-in example model: a GPT-2-small-like transformer
 * decoder built through the C graph API (no model file needed).
 *
 * The graph: token and position embeddings (gather) + add; per layer a
 * pre-norm block — layer norm, QKV projection (+bias), attention, output
 * projection (+bias), residual add, layer norm, MLP (fc + bias, GELU, proj +
 * bias), residual add; then a final layer norm and an LM head tied to the token
 * embedding (logits [batch, seq, vocab], the graph output). Even layers use the
 * fused TP_OP_ATTENTION on the packed QKV tensor (causal); odd layers spell
 * attention out: split Q/K/V, reshape + transpose to heads, Q·Kᵀ, scale,
 * additive mask, softmax, ·V, transpose + reshape back. Symbolic dims `batch`
 * and `seq` are bound to the options' values (defaults 1 and 128).
 *
 * Example:
 *     tp_demo_options o; tp_demo_options_default(&o);
 *     o.seq = 512;
 *     tp_graph *g;
 *     if (tp_demo_transformer(&o, NULL, &g, &err) == TP_OK) { ... plan g ...; tp_graph_destroy(g);
 * }
 *
 * Ownership: the caller owns *out (tp_graph_destroy). Errors: TP_ERR_INVALID
 * for bad options (d_model not divisible by heads, non-positive widths),
 * TP_ERR_NOMEM, and any graph-building error. Thread safety: reentrant.
 */
#ifndef TENSORPLAN_DEMO_H
#define TENSORPLAN_DEMO_H

#include "tensorplan/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_demo_options {
    int32_t layers;  /* decoder blocks; default 2 */
    int64_t d_model; /* default 768 */
    int64_t heads;   /* default 12 (head_dim = d_model / heads) */
    int64_t ffn;     /* MLP width; default 3072 */
    int64_t vocab;   /* default 50257 */
    int64_t n_ctx;   /* rows of the position table; default 1024 */
    int64_t batch;   /* value bound to `batch`; default 1; < 0 leaves it unbound */
    int64_t seq;     /* value bound to `seq`; default 128; < 0 leaves it unbound */
    tp_dtype dtype;  /* weights and activations; default f32 */
} tp_demo_options;

TP_API void tp_demo_options_default(tp_demo_options *o);

/* Build the demo decoder. o may be NULL (defaults); alloc may be NULL (libc)
 * and becomes the graph's allocator. */
TP_API tp_status tp_demo_transformer(const tp_demo_options *o, const tp_allocator *alloc,
                                     tp_graph **out, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
