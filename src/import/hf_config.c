/* Hugging Face config.json (and the safetensors beside it) as an LLM config, the same
 * tp_llm_config a GGUF's metadata gives (tensorplan/llm.h: tp_hf_read_llm). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/json_dom.h"
#include "core/mem.h"
#include "core/open_file.h"
#include "llm_config.h"
#include "llm_tensors.h"
#include "tensorplan/llm.h"
#include "tensorplan/safetensors.h"

/* model_type → llama.cpp architecture; gated: the FFN has gate, up and down;
 * norms: RMS/layer norms per layer (gemma2/3 add post-attention and post-FFN ones);
 * tied: llama.cpp's architecture has no output.weight (gemma: always the embedding);
 * fused: attn_qkv and ffn_up holding gate and up (phi3). */
static const struct {
    const char *model_type, *arch;
    bool gated, qkv_bias, qk_norm;
    unsigned norms;
    bool tied, fused;
} hf_families[] = {
    {"llama", "llama", true, false, false, 2, false, false},
    {"mistral", "llama", true, false, false, 2, false, false},
    {"mixtral", "llama", true, false, false, 2, false, false},
    {"qwen2", "qwen2", true, true, false, 2, false, false},
    {"qwen2_moe", "qwen2moe", true, true, false, 2, false, false},
    {"qwen3", "qwen3", true, false, true, 2, false, false},
    {"qwen3_moe", "qwen3moe", true, false, true, 2, false, false},
    {"gemma", "gemma", true, false, false, 2, true, false},
    {"gemma2", "gemma2", true, false, false, 4, true, false},
    {"gemma3", "gemma3", true, false, true, 4, true, false},
    {"gemma3_text", "gemma3", true, false, true, 4, true, false},
    {"phi3", "phi3", true, false, false, 2, false, true},
};

static tp_status read_json(const char *path, const tp_allocator *a, char **text, size_t *len,
                           tp_jdoc **doc, tp_error *err) {
    FILE *f;
    uint64_t size;
    tp_status st = tp__fopen_regular(path, 64u << 20, &f, &size, err);
    if (st != TP_OK) return st;
    *len = (size_t)size;
    *text = tp_mem_alloc(a, *len + 1);
    if (!*text) {
        fclose(f);
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
    }
    size_t got = fread(*text, 1, *len, f);
    fclose(f);
    if (got != *len) return tp_error_set(err, TP_ERR_IO, "%s: read error", path);
    st = tp__json_parse(*text, *len, a, 32, doc, err);
    if (st != TP_OK) tp_error_prefix(err, "%s: ", path);
    return st;
}

static uint64_t get_u64(const tp_jv *o, const char *key, uint64_t dflt) {
    uint64_t v;
    return tp__json_get_u64(o, key, &v) ? v : dflt;
}

/* Bytes per parameter of torch_dtype (bfloat16/float16 2, float32 4; default 2). */
static uint64_t dtype_bytes(const tp_jv *cfg) {
    const tp_jv *t = tp__json_get(cfg, "torch_dtype");
    if (!t) t = tp__json_get(cfg, "dtype");
    return t && t->type == TP_J_STR && strcmp(t->str, "float32") == 0 ? 4 : 2;
}

/* The weights' bytes from the hyper-parameters (when no safetensors lie beside the
 * config), as llama.cpp's converter writes them at torch_dtype's precision: matrices
 * at bpp bytes, vectors (norms, biases) in f32. */
static uint64_t count_weight_bytes(const tp_llm_config *c, uint64_t n_ff_exp, uint64_t n_shared_ff,
                                   bool tied, int fam, uint64_t bpp) {
    uint64_t E = c->n_embd, q = c->n_head * c->head_dim_k, kv = c->n_head_kv * c->head_dim_k;
    uint64_t m = hf_families[fam].gated ? 3 : 2;
    uint64_t attn = E * q + 2 * E * kv + q * E;
    uint64_t ffn = c->n_expert ? c->n_expert * m * E * n_ff_exp + E * c->n_expert +
                                     (n_shared_ff ? m * E * n_shared_ff + E : 0)
                               : m * E * c->n_ff;
    uint64_t vec = hf_families[fam].norms * E + (hf_families[fam].qkv_bias ? q + 2 * kv : 0) +
                   (c->qk_norm ? 2 * c->head_dim_k : 0);
    uint64_t embed = c->n_vocab * E;
    uint64_t mats =
        tp_sat_add_u64(tp_sat_mul_u64(c->n_layer, attn + ffn), tied ? embed : 2 * embed);
    uint64_t vecs = tp_sat_add_u64(tp_sat_mul_u64(c->n_layer, vec), E);
    return tp_sat_add_u64(tp_sat_mul_u64(mats, bpp), tp_sat_mul_u64(vecs, 4));
}

/* The checkpoint's tensors as llama.cpp's converter writes them at the same
 * precision: 1-D tensors (norms, biases) in f32, each tensor's data padded to the
 * 32-byte alignment: c->weight_bytes and the mapped model buffer. */
static tp_status gguf_converted_bytes(const char *st_path, tp_registry *reg, tp_llm_config *c,
                                      tp_error *err) {
    tp_registry *own = NULL;
    tp_status st = TP_OK;
    if (!reg) {
        if ((st = tp_registry_create(NULL, &own, err)) != TP_OK) return st;
        reg = own;
    }
    uint32_t before = tp_registry_count(reg);
    tp_safetensors_info si;
    st = tp_safetensors_read(st_path, reg, &si, err);
    if (st == TP_OK) {
        uint64_t total = 0;
        for (uint32_t i = before; i < tp_registry_count(reg); i++) {
            const tp_weight_entry *w = tp_registry_entry(reg, i);
            uint64_t b = w->bytes;
            if (w->rank <= 1 && (w->dtype == TP_DTYPE_F16 || w->dtype == TP_DTYPE_BF16))
                b = tp_sat_mul_u64(b, 2);
            uint64_t padded;
            if (!tp_align_up_u64(b, 32, &padded)) padded = UINT64_MAX;
            total = tp_sat_add_u64(total, padded);
        }
        c->weight_bytes = total;
        c->n_tensors = si.n_tensors;
    }
    tp_registry_destroy(own);
    return st;
}

/* The AMX rule's buffer (gguf_layout.c) for the converter's tensors (tp__hf_tensors): the copies
 * AMX takes, as a GGUF of these tensors would give them. The converter's tensor order is not
 * known, so the mapping stays whole (weight_bytes): an upper bound, since a copied tensor at
 * either end of the file shortens llama.cpp's mapped range (docs/estimate.md, "AMX"). */
static tp_status amx_rule(tp_llm_config *c, const tp_hf_shape *sh, const tp_allocator *a,
                          tp_error *err) {
    tp_llm_tensors l;
    tp__llm_tensors_init(&l, a);
    tp_llm_config *scratch = tp_mem_calloc(a, 1, sizeof *scratch);
    tp_status st =
        scratch ? tp__hf_tensors(c, sh, &l, err) : tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    if (st == TP_OK) st = tp__llm_tensors_lay_out(&l, NULL, a, scratch, err);
    if (st == TP_OK) {
        const tp_llm_model_layout *amx = &scratch->layout[TP_LLM_REPACK_AMX];
        c->layout[TP_LLM_REPACK_AMX].repack_bytes = amx->repack_bytes;
        c->layout[TP_LLM_REPACK_AMX].repacked_tensors = amx->repacked_tensors;
        c->tied_repacked |= (uint8_t)(scratch->tied_repacked & (1u << TP_LLM_REPACK_AMX));
    }
    tp__llm_tensors_free(&l);
    tp_mem_free(a, scratch, sizeof *scratch);
    return st;
}

static bool hf_ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), t = strlen(tail);
    return n > t && strcmp(s + n - t, tail) == 0;
}

static bool is_dir(const char *p) {
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* tp_hf_read_llm, and when shape is non-NULL the tensors' layout for tp__hf_tensors. */
tp_status tp__hf_read_llm_shape(const char *path, tp_registry *reg, tp_llm_config *out,
                                tp_hf_shape *shape, tp_error *err) {
    if (!path || !out) return tp_error_set(err, TP_ERR_INVALID, "config.json: NULL argument");
    memset(out, 0, sizeof *out);
    const tp_allocator *a = reg ? tp_registry_allocator(reg) : NULL;
    char dir[4096], cfg_path[4200];
    bool folder = is_dir(path);
    int w = folder ? snprintf(dir, sizeof dir, "%s", path) : 0;
    if (!folder) {
        const char *slash = strrchr(path, '/');
        w = slash ? snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path)
                  : snprintf(dir, sizeof dir, ".");
    }
    if (w < 0 || (size_t)w >= sizeof dir) return tp_error_set(err, TP_ERR_INVALID, "path too long");
    /* a checkpoint's weights (.safetensors or its index): the config.json beside them */
    bool weights =
        hf_ends_with(path, ".safetensors") || hf_ends_with(path, ".safetensors.index.json");
    snprintf(cfg_path, sizeof cfg_path, "%s%s", folder || weights ? dir : path,
             folder || weights ? "/config.json" : "");
    char *text = NULL;
    size_t len = 0;
    tp_jdoc *doc = NULL;
    tp_llm_config *c = tp_mem_alloc(a, sizeof *c);
    if (!c) return tp_error_set(err, TP_ERR_NOMEM, "config.json: out of memory");
    memset(c, 0, sizeof *c);
    tp_status st = read_json(cfg_path, a, &text, &len, &doc, err);
    if (st != TP_OK) goto done;
    const tp_jv *cfg = tp__json_root(doc);
    const tp_jv *tc = tp__json_get(cfg, "text_config"); /* multimodal: the language model */
    if (tc && tc->type == TP_J_OBJ) cfg = tc;
    const tp_jv *mt = tp__json_get(cfg, "model_type");
    if (!mt) mt = tp__json_get(tp__json_root(doc), "model_type");
    int fam = -1;
    for (size_t i = 0; mt && mt->type == TP_J_STR && i < sizeof hf_families / sizeof hf_families[0];
         i++)
        if (strcmp(mt->str, hf_families[i].model_type) == 0) fam = (int)i;
    if (fam < 0) {
        st = tp_error_set(err, TP_ERR_UNSUPPORTED,
                          "%s: model_type '%.64s' is not mapped to a llama.cpp architecture "
                          "(known: llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, "
                          "gemma, gemma2, gemma3, phi3)",
                          cfg_path, mt && mt->type == TP_J_STR ? mt->str : "(none)");
        goto done;
    }
    snprintf(c->arch, sizeof c->arch, "%s", hf_families[fam].arch);
    c->n_layer = get_u64(cfg, "num_hidden_layers", 0);
    c->n_embd = get_u64(cfg, "hidden_size", 0);
    c->n_ff = get_u64(cfg, "intermediate_size", 0);
    c->n_head = get_u64(cfg, "num_attention_heads", 0);
    c->n_head_kv = get_u64(cfg, "num_key_value_heads", c->n_head);
    c->head_dim_k = get_u64(cfg, "head_dim", 0);
    c->n_vocab = get_u64(cfg, "vocab_size", 0);
    c->n_ctx_train = get_u64(cfg, "max_position_embeddings", 0);
    c->n_expert = get_u64(cfg, "num_local_experts", get_u64(cfg, "num_experts", 0));
    c->n_expert_used = get_u64(cfg, "num_experts_per_tok", 0);
    uint64_t n_ff_exp = get_u64(cfg, "moe_intermediate_size", c->n_ff);
    if (c->n_expert) c->n_ff_exp = n_ff_exp;
    c->qk_norm = hf_families[fam].qk_norm;
    c->alignment = 32;
    tp_llm_meta_extra x;
    memset(&x, 0, sizeof x);
    uint64_t window = get_u64(cfg, "sliding_window", 0);
    const tp_jv *use = tp__json_get(cfg, "use_sliding_window");
    if (window && !(use && use->type == TP_J_BOOL && !use->b)) {
        c->n_swa = window;
        x.has_swa_key = 1;
    }
    uint64_t pattern = get_u64(cfg, "sliding_window_pattern", 0);
    if (pattern) {
        x.swa_pattern = pattern;
        x.has_pattern = 1;
    }
    const tp_jv *types = tp__json_get(cfg, "layer_types");
    if (types && types->type == TP_J_ARR && types->n == c->n_layer &&
        c->n_layer <= TP_LLM_MAX_LAYERS) {
        for (uint32_t i = 0; i < types->n; i++)
            c->layer_swa[i] = types->items[i].type == TP_J_STR &&
                              strcmp(types->items[i].str, "sliding_attention") == 0;
        x.pattern_array = true;
    }
    char prefix[4300];
    snprintf(prefix, sizeof prefix, "%s: ", cfg_path);
    if (c->head_dim_k == 0 && c->n_head) c->head_dim_k = c->n_embd / c->n_head;
    if ((st = tp__llm_config_finish(c, &x, prefix, err)) != TP_OK) goto done;
    /* the weights: the safetensors beside the config, else counted from the shape */
    char st_path[4200];
    snprintf(st_path, sizeof st_path, "%s/model.safetensors.index.json", dir);
    struct stat sb;
    bool have = stat(st_path, &sb) == 0;
    if (!have) {
        snprintf(st_path, sizeof st_path, "%s/model.safetensors", dir);
        have = stat(st_path, &sb) == 0;
    }
    const tp_jv *tie = tp__json_get(cfg, "tie_word_embeddings");
    bool tied = tie && tie->type == TP_J_BOOL ? tie->b : false;
    uint64_t bpp = dtype_bytes(cfg);
    c->tied_output = tied || hf_families[fam].tied;
    tp_hf_shape sh;
    {
        const tp_jv *t = tp__json_get(cfg, "torch_dtype");
        memset(&sh, 0, sizeof sh);
        sh.gated = hf_families[fam].gated;
        sh.qkv_bias = hf_families[fam].qkv_bias;
        sh.post_norms = hf_families[fam].norms == 4;
        sh.fused = hf_families[fam].fused;
        sh.tied = tied || hf_families[fam].tied;
        sh.n_ff_exp = n_ff_exp;
        sh.n_shared_ff = get_u64(cfg, "shared_expert_intermediate_size", 0);
        sh.matrix_type = bpp == 4 ? TP_DTYPE_F32
                         : t && t->type == TP_J_STR && strcmp(t->str, "bfloat16") == 0
                             ? TP_DTYPE_BF16
                             : TP_DTYPE_F16;
        if (shape) *shape = sh;
    }
    if (have) {
        if ((st = gguf_converted_bytes(st_path, reg, c, err)) != TP_OK) goto done;
    } else {
        uint64_t shared = get_u64(cfg, "shared_expert_intermediate_size", 0);
        c->weight_bytes = count_weight_bytes(c, n_ff_exp, shared, c->tied_output, fam, bpp);
    }
    if (c->n_expert) {
        c->moe_layers = c->n_layer;
        c->expert_bytes = tp_sat_mul_u64(3 * c->n_embd * n_ff_exp, bpp);
        c->expert_tensor_bytes = tp_sat_mul_u64(c->expert_bytes, c->n_expert * c->n_layer);
        if (c->expert_tensor_bytes > c->weight_bytes) c->expert_tensor_bytes = c->weight_bytes;
    }
    /* f16/bf16/f32 weights: the CPU backend repacks none of them; AMX copies f16 matrices */
    for (int k = 0; k < TP_LLM_REPACK_COUNT; k++)
        c->layout[k].mapped_bytes = c->weight_bytes;
    if ((st = amx_rule(c, &sh, a, err)) != TP_OK) goto done;
    *out = *c;
done:
    tp__json_free(doc);
    if (text) tp_mem_free(a, text, len + 1);
    tp_mem_free(a, c, sizeof *c);
    return st;
}

tp_status tp_hf_read_llm(const char *path, tp_registry *reg, tp_llm_config *out, tp_error *err) {
    return tp__hf_read_llm_shape(path, reg, out, NULL, err);
}

tp_status tp_llm_read(const char *path, tp_registry *reg, tp_llm_config *out, tp_error *err) {
    size_t n = path ? strlen(path) : 0;
    if (n > 5 && strcmp(path + n - 5, ".gguf") == 0) return tp_gguf_read_llm(path, reg, out, err);
    return tp_hf_read_llm(path, reg, out, err);
}
