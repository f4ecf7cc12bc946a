/* Internal: an LLM's weight tensors by llama.cpp name and shape (GGUF order of dims,
 * innermost first), the input of the --weights-type what-if (llm_quant.c), read from a
 * GGUF or derived from a Hugging Face config (hf_tensors.c). */
#ifndef TP_IMPORT_LLM_TENSORS_H
#define TP_IMPORT_LLM_TENSORS_H

#include "tensorplan/llm.h"

#define TP_LLM_TENSOR_NAME_CAP 96

typedef struct tp_llm_tensor {
    char name[TP_LLM_TENSOR_NAME_CAP]; /* "blk.3.attn_v.weight" */
    uint32_t n_dims;                   /* 1..4 */
    uint64_t ne[4];                    /* innermost first; unused dims are 1 */
    tp_dtype type;                     /* the type it has before quantizing */
} tp_llm_tensor;

typedef struct tp_llm_tensors {
    tp_llm_tensor *t; /* owned, allocated with a */
    size_t n, cap;
    const tp_allocator *a;
} tp_llm_tensors;

void tp__llm_tensors_init(tp_llm_tensors *l, const tp_allocator *a);
void tp__llm_tensors_free(tp_llm_tensors *l);
/* Append one (dims innermost first). TP_ERR_NOMEM, TP_ERR_INVALID (name too long, rank). */
tp_status tp__llm_tensors_add(tp_llm_tensors *l, const char *name, tp_dtype type, uint32_t n_dims,
                              const uint64_t *ne, tp_error *err);

/* The weight figures (weight_bytes, n_tensors, alignment 32, the experts') and the model
 * buffers of every repack rule (gguf_layout.c) of a GGUF holding the tensors of l back to back,
 * each at types[i] (NULL: its own type), into c. TP_ERR_NOMEM, TP_ERR_OVERFLOW. */
tp_status tp__llm_tensors_lay_out(const tp_llm_tensors *l, const tp_dtype *types,
                                  const tp_allocator *a, tp_llm_config *c, tp_error *err);

/* The tensors llama.cpp's converter writes for a Hugging Face config (hf_config.c reads it):
 * names and shapes from the hyper-parameters; matrices in `matrix_type`, norms, biases and
 * the MoE router in f32. */
typedef struct tp_hf_shape {
    bool gated, qkv_bias, post_norms, fused; /* fused: phi3's attn_qkv and gate+up in ffn_up */
    bool tied;                               /* no output.weight */
    uint64_t n_ff_exp, n_shared_ff;          /* expert and shared-expert FFN widths */
    tp_dtype matrix_type;
} tp_hf_shape;

/* tp_hf_read_llm that also gives the shape (shape may be NULL). */
tp_status tp__hf_read_llm_shape(const char *path, tp_registry *reg, tp_llm_config *out,
                                tp_hf_shape *shape, tp_error *err);

tp_status tp__hf_tensors(const tp_llm_config *c, const tp_hf_shape *s, tp_llm_tensors *out,
                         tp_error *err);

#endif
