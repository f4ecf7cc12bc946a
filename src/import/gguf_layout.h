/* Where a GGUF's tensors lie and which ones llama.cpp's CPU backend repacks
 * (internal; used by the GGUF LLM reader). */
#ifndef TP_GGUF_LAYOUT_H
#define TP_GGUF_LAYOUT_H

#include "tensorplan/llm.h"

#define TP_GGUF_NAME_CAP 256

typedef struct tp_gguf_layout {
    uint64_t first[TP_LLM_REPACK_COUNT], last[TP_LLM_REPACK_COUNT]; /* mapped range per rule */
    bool any[TP_LLM_REPACK_COUNT];
    uint64_t mapped_sum[TP_LLM_REPACK_COUNT]; /* mapped ranges of the files already closed */
    tp_llm_model_layout out[TP_LLM_REPACK_COUNT];
    bool has_output; /* an output.weight tensor (else llama.cpp ties it to token_embd) */
    bool has_embd;   /* token_embd.weight seen: its type, dims and bytes below */
    tp_dtype embd_dt;
    uint32_t embd_n_dims;
    uint64_t embd_dims[2], embd_bytes;
    unsigned char moe_seen[4096 / 8]; /* blk.N holding *_exps tensors (all files) */
    bool moe_overflow;                /* a *_exps tensor outside blk.0..4095 */
    uint64_t end_max;                 /* largest offset + bytes (relative to the data section) */
    char end_name[TP_GGUF_NAME_CAP];  /* the tensor that ends there */
} tp_gguf_layout;

void tp_gguf_layout_init(tp_gguf_layout *l);

/* Account one tensor (dims innermost first, as GGUF lists them). false on a
 * 64-bit overflow of offset + bytes. */
bool tp_gguf_layout_add(tp_gguf_layout *l, const char *name, tp_dtype dt, uint32_t n_dims,
                        const uint64_t *dims, uint64_t offset, uint64_t bytes);

/* A split model's next file: llama.cpp maps each file on its own, so the
 * current file's ranges are summed and a new range starts. */
void tp_gguf_layout_next_file(tp_gguf_layout *l);

/* The model buffers per rule into c->layout (closes the current file). */
void tp_gguf_layout_finish(tp_gguf_layout *l, tp_llm_config *c);

#endif
