/* A 4-layer decoder for placement tests and the llm_devices fuzz target: one
 * 1000-byte f32 weight per layer (block 1's is an expert tensor, so expert
 * overrides have something to move), an output and a token embedding, in a
 * real registry. Returns NULL when the registry cannot be built. */
#ifndef TP_FUZZ_LLM_TINY_MODEL_H
#define TP_FUZZ_LLM_TINY_MODEL_H

#include <string.h>

#include "tensorplan/llm.h"
#include "tensorplan/registry.h"

static tp_registry *tp_llm_tiny_model(tp_llm_config *c) {
    memset(c, 0, sizeof *c);
    memcpy(c->arch, "llama", 6);
    c->n_layer = 4;
    c->n_embd = 64;
    c->n_ff = 128;
    c->n_head = 4;
    c->n_head_kv = 2;
    c->head_dim_k = c->head_dim_v = 16;
    c->n_vocab = 100;
    c->has_kv = true;
    c->family_known = true;
    for (int i = 0; i < 4; i++)
        c->layer_head_kv[i] = 2;
    tp_registry *r = NULL;
    tp_error err;
    if (tp_registry_create(NULL, &r, &err) != TP_OK) return NULL;
    static const char *const names[] = {"token_embd.weight",          "blk.0.attn_q.weight",
                                        "blk.1.ffn_gate_exps.weight", "blk.2.attn_q.weight",
                                        "blk.3.attn_q.weight",        "output.weight"};
    for (int i = 0; i < 6; i++) {
        tp_weight_desc d;
        memset(&d, 0, sizeof d);
        d.name = names[i];
        d.rank = 1;
        d.dims[0] = 250;
        d.dtype = TP_DTYPE_F32;
        d.bytes = 1000;
        if (tp_registry_add(r, &d, NULL, &err) != TP_OK) {
            tp_registry_destroy(r);
            return NULL;
        }
    }
    return r;
}

#endif
