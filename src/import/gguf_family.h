/* LLM family table (internal): sliding-window layout and KV presence per
 * general.architecture, as llama.cpp's per-family loaders decide them. */
#ifndef TP_GGUF_FAMILY_H
#define TP_GGUF_FAMILY_H

#include <stdbool.h>
#include <stdint.h>

typedef enum tp_gguf_swa_kind {
    TP_GGUF_SWA_NONE = 0, /* no sliding window */
    TP_GGUF_SWA_ALWAYS,   /* sliding-window layers (window from the key, else the default) */
    TP_GGUF_SWA_IF_KEY    /* only when <arch>.attention.sliding_window > 0 */
} tp_gguf_swa_kind;

/* A fixed-size recurrent state in some layers (hybrid families). */
typedef enum tp_gguf_recurrent_kind {
    TP_GGUF_RECR_NONE = 0,
    TP_GGUF_RECR_SHORTCONV /* LFM2: layers without KV heads hold (l_cache - 1) x n_embd conv rows */
} tp_gguf_recurrent_kind;

typedef struct tp_gguf_family {
    const char *arch;     /* general.architecture */
    tp_gguf_swa_kind swa; /* sliding-window attention */
    uint64_t default_swa; /* window when the key is absent (0: the key is required) */
    uint64_t swa_pattern; /* default <arch>.attention.sliding_window_pattern */
    bool dense_first;     /* the global layer opens each pattern period */
    bool has_kv;          /* false for encoders */
    tp_gguf_recurrent_kind recurrent;
    const char *output_norm; /* the output norm's tensor name when not output_norm.weight */
} tp_gguf_family;

/* The family of arch, or NULL when tensorplan does not know it. */
const tp_gguf_family *tp_gguf_family_find(const char *arch);

/* llama.cpp's llama_hparams::set_swa_pattern: n_pattern 0 = every layer SWA;
 * else n_pattern-1 SWA layers then one global (global first with dense_first). */
void tp_gguf_family_swa_pattern(uint64_t n_pattern, bool dense_first, uint64_t n_layer,
                                uint8_t *is_swa);

#endif
