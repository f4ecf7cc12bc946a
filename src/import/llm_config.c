/* Defaults and family rules shared by the LLM config readers (llm_config.h). */
#include "llm_config.h"

#include <stdio.h>
#include <string.h>

#include "gguf_family.h"

/* Missing required keys, named, into buf ("" when none). */
static void missing_keys(const tp_llm_config *c, char *buf, size_t cap) {
    static const char *const names[] = {"block_count", "embedding_length", "attention.head_count"};
    const uint64_t vals[] = {c->n_layer, c->n_embd, c->n_head};
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < 3 && n < cap; i++) {
        if (vals[i]) continue;
        int w = snprintf(buf + n, cap - n, "%s%s.%s", n ? ", " : "",
                         c->arch[0] ? c->arch : "<arch>", names[i]);
        if (w < 0) break;
        n += (size_t)w;
    }
}

/* Defaults, the family's rules and the per-layer layout, after the scan. */
tp_status tp__llm_config_finish(tp_llm_config *c, const tp_llm_meta_extra *x, const char *prefix,
                                tp_error *err) {
    char miss[3 * (64 + 32)];
    if (!c->arch[0])
        return tp_error_set(err, TP_ERR_INVALID, "%sgeneral.architecture is missing", prefix);
    missing_keys(c, miss, sizeof miss);
    if (miss[0]) {
        char msg[sizeof miss + 96];
        snprintf(msg, sizeof msg, "architecture '%s': missing key%s %s", c->arch,
                 strchr(miss, ',') ? "s" : "", miss);
        return tp_error_set(err, TP_ERR_INVALID, "%s%s", prefix, msg);
    }
    if (c->n_layer > TP_LLM_MAX_LAYERS) {
        char msg[192];
        snprintf(msg, sizeof msg, "%s.block_count %llu: more than %d layers are not supported",
                 c->arch, (unsigned long long)c->n_layer, TP_LLM_MAX_LAYERS);
        return tp_error_set(err, TP_ERR_UNSUPPORTED, "%s%s", prefix, msg);
    }
    if (c->n_head_kv == 0 && !x->head_kv_array) c->n_head_kv = c->n_head;
    if (c->head_dim_k == 0) c->head_dim_k = c->n_embd / c->n_head;
    if (c->head_dim_v == 0) c->head_dim_v = c->head_dim_k;
    if (x->key_length_mla) c->head_dim_v = 0; /* MLA: the cache holds K (the latent) only */
    if (!x->head_kv_array)
        for (uint64_t il = 0; il < c->n_layer; il++)
            c->layer_head_kv[il] =
                (uint32_t)(c->n_head_kv > UINT32_MAX ? UINT32_MAX : c->n_head_kv);
    const tp_gguf_family *fam = tp_gguf_family_find(c->arch);
    c->family_known = fam != NULL;
    c->has_kv = fam ? fam->has_kv : true;
    snprintf(c->output_norm, sizeof c->output_norm, "%s",
             fam && fam->output_norm ? fam->output_norm : "output_norm.weight");
    if (fam && fam->recurrent == TP_GGUF_RECR_SHORTCONV) {
        if (x->shortconv_l_cache < 2) {
            char msg[192];
            snprintf(msg, sizeof msg,
                     "architecture '%s': missing key %s.shortconv.l_cache (at least 2)", c->arch,
                     c->arch);
            return tp_error_set(err, TP_ERR_INVALID, "%s%s", prefix, msg);
        }
        uint64_t r;
        if (!tp_mul_u64(c->n_embd, x->shortconv_l_cache - 1, &r) || r > (1ull << 40))
            return tp_error_set(err, TP_ERR_UNSUPPORTED,
                                "%s%s.shortconv.l_cache %llu x embedding %llu: a recurrent state "
                                "of more than 2^40 elements is not supported",
                                prefix, c->arch, (unsigned long long)x->shortconv_l_cache,
                                (unsigned long long)c->n_embd);
        c->n_embd_r = r;
        c->n_embd_s = 0;
        for (uint64_t il = 0; il < c->n_layer; il++)
            if (c->layer_head_kv[il] == 0) {
                c->layer_recr[il] = 1;
                c->recurrent_layers++;
            }
    }
    bool swa = fam && (fam->swa == TP_GGUF_SWA_ALWAYS ||
                       (fam->swa == TP_GGUF_SWA_IF_KEY && x->has_swa_key && c->n_swa > 0));
    if (swa && !x->has_swa_key) c->n_swa = fam->default_swa;
    if (swa && c->n_swa == 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "architecture '%s': missing key %s.attention.sliding_window",
                 c->arch, c->arch);
        return tp_error_set(err, TP_ERR_INVALID, "%s%s", prefix, msg);
    }
    if (!swa) {
        c->n_swa = 0;
        memset(c->layer_swa, 0, sizeof c->layer_swa);
    } else if (!x->pattern_array) {
        tp_gguf_family_swa_pattern(x->has_pattern ? x->swa_pattern : fam->swa_pattern,
                                   fam->dense_first, c->n_layer, c->layer_swa);
    }
    c->swa = swa;
    return TP_OK;
}
