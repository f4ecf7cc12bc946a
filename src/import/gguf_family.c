/* LLM families: what the GGUF metadata does not say and llama.cpp's per-family
 * code decides — which layers use a sliding window (the pattern and its default
 * window), and whether the model has a KV cache at all. One table row per
 * family (llama.cpp src/models/<family>.cpp, load_arch_hparams). */
#include <string.h>

#include "gguf_family.h"

static const tp_gguf_family families[] = {
    /* plain decoders: every layer global attention */
    {"llama", TP_GGUF_SWA_NONE, 0, 0, false, true, TP_GGUF_RECR_NONE,
     NULL}, /* llama 1-3, mistral, mixtral (MoE) */
    {"mistral3", TP_GGUF_SWA_NONE, 0, 0, false, true, TP_GGUF_RECR_NONE, NULL},
    {"qwen2", TP_GGUF_SWA_NONE, 0, 0, false, true, TP_GGUF_RECR_NONE, NULL},
    {"qwen3", TP_GGUF_SWA_NONE, 0, 0, false, true, TP_GGUF_RECR_NONE, NULL},
    {"qwen2moe", TP_GGUF_SWA_NONE, 0, 0, false, true, TP_GGUF_RECR_NONE, NULL},
    {"qwen3moe", TP_GGUF_SWA_NONE, 0, 0, false, true, TP_GGUF_RECR_NONE, NULL},
    {"gemma", TP_GGUF_SWA_NONE, 0, 0, false, true, TP_GGUF_RECR_NONE, NULL},
    /* phi3: llama.cpp turns the sliding window off (all layers global) */
    {"phi3", TP_GGUF_SWA_NONE, 0, 0, false, true, TP_GGUF_RECR_NONE, NULL},
    /* deepseek2: MLA from attention.key_length_mla (K only, one KV head) */
    {"deepseek2", TP_GGUF_SWA_NONE, 0, 0, false, true, TP_GGUF_RECR_NONE, NULL},
    /* interleaved sliding-window attention: pattern n = n-1 SWA layers, then one global */
    {"gemma2", TP_GGUF_SWA_ALWAYS, 4096, 2, false, true, TP_GGUF_RECR_NONE, NULL},
    {"gemma3", TP_GGUF_SWA_IF_KEY, 0, 6, false, true, TP_GGUF_RECR_NONE, NULL},
    {"gpt-oss", TP_GGUF_SWA_ALWAYS, 0, 2, false, true, TP_GGUF_RECR_NONE, NULL},
    {"cohere2", TP_GGUF_SWA_ALWAYS, 0, 4, false, true, TP_GGUF_RECR_NONE, NULL},
    {"exaone4", TP_GGUF_SWA_IF_KEY, 0, 4, false, true, TP_GGUF_RECR_NONE, NULL},
    /* hybrids: short-convolution layers (no KV heads) beside attention layers */
    {"lfm2", TP_GGUF_SWA_NONE, 0, 0, false, true, TP_GGUF_RECR_SHORTCONV, "token_embd_norm.weight"},
    /* encoders: no KV cache */
    {"bert", TP_GGUF_SWA_NONE, 0, 0, false, false, TP_GGUF_RECR_NONE, NULL},
    {"nomic-bert", TP_GGUF_SWA_NONE, 0, 0, false, false, TP_GGUF_RECR_NONE, NULL},
    {"jina-bert-v2", TP_GGUF_SWA_NONE, 0, 0, false, false, TP_GGUF_RECR_NONE, NULL},
    {"modern-bert", TP_GGUF_SWA_NONE, 0, 0, false, false, TP_GGUF_RECR_NONE, NULL},
};

const tp_gguf_family *tp_gguf_family_find(const char *arch) {
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strcmp(families[i].arch, arch) == 0) return &families[i];
    return NULL;
}

void tp_gguf_family_swa_pattern(uint64_t n_pattern, bool dense_first, uint64_t n_layer,
                                uint8_t *is_swa) {
    for (uint64_t il = 0; il < n_layer; il++) {
        bool swa;
        if (n_pattern == 0)
            swa = true;
        else if (dense_first)
            swa = il % n_pattern != 0;
        else
            swa = il % n_pattern < n_pattern - 1;
        is_swa[il] = swa ? 1 : 0;
    }
}
