/* Internal: what every LLM config reader (GGUF metadata, Hugging Face config.json)
 * does after reading its keys: defaults, the family's rules (KV or none, sliding
 * windows and their per-layer pattern) and the per-layer KV heads. */
#ifndef TP_IMPORT_LLM_CONFIG_H
#define TP_IMPORT_LLM_CONFIG_H

#include "tensorplan/llm.h"

/* Values read beside the config that decide config fields after the scan. */
typedef struct tp_llm_meta_extra {
    uint64_t swa_pattern;       /* sliding_window_pattern (scalar form: every Nth layer is full) */
    uint64_t key_length_mla;    /* MLA: the K cache holds the latent only */
    uint64_t shortconv_l_cache; /* LFM2-style short convolution: kernel length */
    uint64_t has_swa_key;       /* a sliding window was given */
    uint64_t has_pattern;       /* the pattern came as a scalar */
    bool pattern_array;         /* layer_swa[] was filled per layer */
    bool head_kv_array;         /* layer_head_kv[] was filled per layer */
    bool alignment_set;
} tp_llm_meta_extra;

/* Checks the required fields (arch, layers, embedding, heads; the message names
 * the missing keys in GGUF terms after `prefix`) and applies the defaults and the
 * family's rules. TP_ERR_INVALID, TP_ERR_UNSUPPORTED (too many layers). */
tp_status tp__llm_config_finish(tp_llm_config *c, const tp_llm_meta_extra *x, const char *prefix,
                                tp_error *err);

#endif
