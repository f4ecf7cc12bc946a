/* GGUF metadata gguf_reader for the LLM estimate: header, key/value metadata and
 * tensor infos (never the tensor data), the tensor data layout (alignment,
 * where each tensor lies, which tensors the CPU backend repacks) and the
 * family's per-layer attention layout. Bounded: every count is checked
 * against the bytes left in the file before it drives a loop. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "core/mem.h"
#include "core/open_file.h"
#include "gguf_family.h"
#include "gguf_layout.h"
#include "llm_config.h"
#include "name_set.h"
#include "tensorplan/llm.h"

#define GGUF_MAGIC 0x46554747u /* "GGUF" little-endian */
#define NAME_CAP 256           /* keys and tensor names longer than this are an error */

enum {
    GT_U8 = 0,
    GT_I8 = 1,
    GT_U16 = 2,
    GT_I16 = 3,
    GT_U32 = 4,
    GT_I32 = 5,
    GT_F32 = 6,
    GT_BOOL = 7,
    GT_STRING = 8,
    GT_ARRAY = 9,
    GT_U64 = 10,
    GT_I64 = 11,
    GT_F64 = 12
};

typedef struct gguf_reader {
    FILE *f;
    const char *path;
    uint64_t pos, size;
    tp_error *err;
    tp_status st;
} gguf_reader;

static bool gguf_fail(gguf_reader *r, tp_status s, const char *what) {
    if (r->st == TP_OK)
        r->st = tp_error_setx(r->err, s, r->pos, TP_NO_NODE, "gguf: %s at offset %llu: %s", r->path,
                              (unsigned long long)r->pos, what);
    return false;
}

static bool rd(gguf_reader *r, void *dst, uint64_t n) {
    if (n > r->size - r->pos) return gguf_fail(r, TP_ERR_PARSE, "truncated file");
    if (n && fread(dst, 1, (size_t)n, r->f) != (size_t)n)
        return gguf_fail(r, TP_ERR_IO, "read error");
    r->pos += n;
    return true;
}

static bool skip(gguf_reader *r, uint64_t n) {
    if (n > r->size - r->pos) return gguf_fail(r, TP_ERR_PARSE, "truncated file");
    if (n > (uint64_t)INT64_MAX / 2 || fseeko(r->f, (off_t)n, SEEK_CUR) != 0)
        return gguf_fail(r, TP_ERR_IO, "seek error");
    r->pos += n;
    return true;
}

static bool u32le(gguf_reader *r, uint32_t *v) {
    unsigned char b[4];
    if (!rd(r, b, 4)) return false;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return true;
}

static bool u64le(gguf_reader *r, uint64_t *v) {
    unsigned char b[8];
    if (!rd(r, b, 8)) return false;
    *v = 0;
    for (int i = 7; i >= 0; i--)
        *v = *v << 8 | b[i];
    return true;
}

/* A gguf string into buf (NUL-terminated); longer than cap-1 is an error, and so
 * is a NUL byte inside (keys and names that differ after it would collide). */
static bool str(gguf_reader *r, char *buf, size_t cap) {
    uint64_t n;
    if (!u64le(r, &n)) return false;
    if (n >= cap) return gguf_fail(r, TP_ERR_PARSE, "string longer than supported");
    uint64_t start = r->pos;
    if (!rd(r, buf, n)) return false;
    buf[n] = '\0';
    const char *nul = memchr(buf, '\0', (size_t)n);
    if (nul) {
        r->pos = start + (uint64_t)(nul - buf);
        return gguf_fail(r, TP_ERR_PARSE, "NUL byte inside a key or name");
    }
    return true;
}

/* Records a key or tensor name read at offset `at`: an empty or repeated one is an
 * error, as llama.cpp refuses such files. */
static bool unique_name(gguf_reader *r, tp_name_set *names, const char *what, const char *name,
                        uint64_t at) {
    bool dup = false;
    if (!tp_name_set_add(names, name, &dup)) return gguf_fail(r, TP_ERR_NOMEM, "out of memory");
    if (!dup && name[0]) return true;
    char msg[NAME_CAP + 96];
    if (dup)
        snprintf(msg, sizeof msg, "duplicate %s '%s' (llama.cpp refuses the file)", what, name);
    else
        snprintf(msg, sizeof msg, "empty %s (llama.cpp refuses the file)", what);
    r->pos = at;
    return gguf_fail(r, TP_ERR_PARSE, msg);
}

static bool skip_str(gguf_reader *r) {
    uint64_t n;
    return u64le(r, &n) && skip(r, n);
}

static uint64_t scalar_size(uint32_t t) {
    switch (t) {
    case GT_U8:
    case GT_I8:
    case GT_BOOL:
        return 1;
    case GT_U16:
    case GT_I16:
        return 2;
    case GT_U32:
    case GT_I32:
    case GT_F32:
        return 4;
    case GT_U64:
    case GT_I64:
    case GT_F64:
        return 8;
    default:
        return 0;
    }
}

/* Read an integer-typed value (any width/sign; negative is an error). */
static bool int_value(gguf_reader *r, uint32_t t, uint64_t *v) {
    unsigned char b[8] = {0};
    uint64_t n = scalar_size(t);
    if (n == 0 || t == GT_F32 || t == GT_F64 || t == GT_BOOL)
        return gguf_fail(r, TP_ERR_PARSE, "expected an integer value");
    if (!rd(r, b, n)) return false;
    uint64_t u = 0;
    for (int i = (int)n - 1; i >= 0; i--)
        u = u << 8 | b[i];
    bool is_signed = t == GT_I8 || t == GT_I16 || t == GT_I32 || t == GT_I64;
    if (is_signed && (b[n - 1] & 0x80)) return gguf_fail(r, TP_ERR_PARSE, "negative value");
    *v = u;
    return true;
}

static bool skip_value(gguf_reader *r, uint32_t t, int depth);

/* Skip `count` array elements of type et. */
static bool skip_array_body(gguf_reader *r, uint32_t et, uint64_t count, int depth) {
    uint64_t es = scalar_size(et);
    if (es) {
        uint64_t total;
        if (!tp_mul_u64(es, count, &total)) return gguf_fail(r, TP_ERR_PARSE, "array too large");
        return skip(r, total);
    }
    if (et != GT_STRING && et != GT_ARRAY) return gguf_fail(r, TP_ERR_PARSE, "bad array type");
    /* each element takes at least 8 bytes: bound the loop by the file */
    if (count > (r->size - r->pos) / 8) return gguf_fail(r, TP_ERR_PARSE, "array count too large");
    for (uint64_t i = 0; i < count; i++)
        if (!skip_value(r, et, depth + 1)) return false;
    return true;
}

/* Skip a value of type t (arrays included; nested arrays bounded by depth). */
static bool skip_value(gguf_reader *r, uint32_t t, int depth) {
    if (t == GT_STRING) return skip_str(r);
    if (t == GT_ARRAY) {
        uint32_t et;
        uint64_t count;
        if (depth > 4) return gguf_fail(r, TP_ERR_PARSE, "arrays nested too deeply");
        if (!u32le(r, &et) || !u64le(r, &count)) return false;
        return skip_array_body(r, et, count, depth);
    }
    uint64_t n = scalar_size(t);
    if (n == 0) return gguf_fail(r, TP_ERR_PARSE, "unknown value type");
    return skip(r, n);
}

/* GGML tensor type ids -> tensorplan dtypes (-1: unknown). */
static int ggml_type(uint32_t t) {
    switch (t) {
    case 0:
        return TP_DTYPE_F32;
    case 1:
        return TP_DTYPE_F16;
    case 2:
        return TP_DTYPE_Q4_0;
    case 3:
        return TP_DTYPE_Q4_1;
    case 6:
        return TP_DTYPE_Q5_0;
    case 7:
        return TP_DTYPE_Q5_1;
    case 8:
        return TP_DTYPE_Q8_0;
    case 9:
        return TP_DTYPE_Q8_1;
    case 10:
        return TP_DTYPE_Q2_K;
    case 11:
        return TP_DTYPE_Q3_K;
    case 12:
        return TP_DTYPE_Q4_K;
    case 13:
        return TP_DTYPE_Q5_K;
    case 14:
        return TP_DTYPE_Q6_K;
    case 15:
        return TP_DTYPE_Q8_K;
    case 16:
        return TP_DTYPE_IQ2_XXS;
    case 17:
        return TP_DTYPE_IQ2_XS;
    case 18:
        return TP_DTYPE_IQ3_XXS;
    case 19:
        return TP_DTYPE_IQ1_S;
    case 20:
        return TP_DTYPE_IQ4_NL;
    case 21:
        return TP_DTYPE_IQ3_S;
    case 22:
        return TP_DTYPE_IQ2_S;
    case 23:
        return TP_DTYPE_IQ4_XS;
    case 24:
        return TP_DTYPE_I8;
    case 25:
        return TP_DTYPE_I16;
    case 26:
        return TP_DTYPE_I32;
    case 27:
        return TP_DTYPE_I64;
    case 28:
        return TP_DTYPE_F64;
    case 29:
        return TP_DTYPE_IQ1_M;
    case 30:
        return TP_DTYPE_BF16;
    case 34:
        return TP_DTYPE_TQ1_0;
    case 35:
        return TP_DTYPE_TQ2_0;
    case 39:
        return TP_DTYPE_MXFP4;
    case 40:
        return TP_DTYPE_NVFP4;
    case 41:
        return TP_DTYPE_Q1_0;
    case 42:
        return TP_DTYPE_Q2_0;
    default:
        return -1;
    }
}

/* The metadata keys the estimate uses, relative to "<arch>."; extra: the
 * field is in tp_llm_meta_extra, not in the config. */
static const struct {
    const char *suffix;
    bool extra;
    size_t field;
} arch_keys[] = {
    {"block_count", false, offsetof(tp_llm_config, n_layer)},
    {"context_length", false, offsetof(tp_llm_config, n_ctx_train)},
    {"embedding_length", false, offsetof(tp_llm_config, n_embd)},
    {"feed_forward_length", false, offsetof(tp_llm_config, n_ff)},
    {"expert_feed_forward_length", false, offsetof(tp_llm_config, n_ff_exp)},
    {"attention.head_count", false, offsetof(tp_llm_config, n_head)},
    {"attention.head_count_kv", false, offsetof(tp_llm_config, n_head_kv)},
    {"attention.key_length", false, offsetof(tp_llm_config, head_dim_k)},
    {"attention.value_length", false, offsetof(tp_llm_config, head_dim_v)},
    {"attention.sliding_window", false, offsetof(tp_llm_config, n_swa)},
    {"attention.sliding_window_pattern", true, offsetof(tp_llm_meta_extra, swa_pattern)},
    {"attention.key_length_mla", true, offsetof(tp_llm_meta_extra, key_length_mla)},
    {"shortconv.l_cache", true, offsetof(tp_llm_meta_extra, shortconv_l_cache)},
    {"vocab_size", false, offsetof(tp_llm_config, n_vocab)},
    {"expert_count", false, offsetof(tp_llm_config, n_expert)},
    {"expert_used_count", false, offsetof(tp_llm_config, n_expert_used)},
    {"expert_shared_count", false, offsetof(tp_llm_config, n_expert_shared)},
    {"leading_dense_block_count", false, offsetof(tp_llm_config, n_layer_dense_lead)},
    {"attention.q_lora_rank", false, offsetof(tp_llm_config, n_lora_q)},
    {"attention.kv_lora_rank", false, offsetof(tp_llm_config, n_lora_kv)},
    {"rope.dimension_count", false, offsetof(tp_llm_config, n_rot)},
    {"attention.key_length_mla", false, offsetof(tp_llm_config, head_dim_k_mla)},
    {"attention.value_length_mla", false, offsetof(tp_llm_config, head_dim_v_mla)},
    {"expert_group_count", false, offsetof(tp_llm_config, n_expert_groups)},
    {"expert_group_used_count", false, offsetof(tp_llm_config, n_group_used)},
};

/* "<arch>." keys that change the MoE routing or attention graph beyond what
 * llm_graph.c builds (any value: the graph is then not claimed). */
static const char *const routing_keys[] = {
    "attention.temperature_scale",
    "attention.temperature_length",
    "nextn_predict_layers",
};
#define N_ROUTING_KEYS (sizeof routing_keys / sizeof routing_keys[0])
#define N_ARCH_KEYS (sizeof arch_keys / sizeof arch_keys[0])

/* Metadata values seen before general.architecture is known are kept by full
 * key; the file order is free, so keys are matched after the scan. */
typedef struct kv_seen {
    char key[NAME_CAP];
    uint64_t value;
} kv_seen;

/* "<arch>.<suffix>" where arch is known already. */
static bool is_arch_key(const tp_llm_config *c, const char *key, const char *suffix) {
    size_t al = strlen(c->arch);
    return al && strncmp(key, c->arch, al) == 0 && key[al] == '.' &&
           strcmp(key + al + 1, suffix) == 0;
}

static bool is_routing_key(const tp_llm_config *c, const char *key) {
    for (size_t j = 0; j < N_ROUTING_KEYS; j++)
        if (is_arch_key(c, key, routing_keys[j])) return true;
    return false;
}

/* build_moe_ffn's routing options: the weight norm (bool), scale (f32) and
 * gating function (integer); another value type marks the routing unknown. */
static bool read_routing(gguf_reader *r, tp_llm_config *c, const char *key, uint32_t t) {
    unsigned char b[4] = {0};
    if (is_arch_key(c, key, "expert_weights_norm") && t == GT_BOOL) {
        if (!rd(r, b, 1)) return false;
        c->moe_norm_w = b[0] != 0;
    } else if (is_arch_key(c, key, "expert_weights_scale") && t == GT_F32) {
        if (!rd(r, b, 4)) return false;
        uint32_t u =
            (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        float f;
        memcpy(&f, &u, sizeof f);
        c->moe_scale = f != 0.0f && f != 1.0f;
    } else if (is_arch_key(c, key, "expert_gating_func") && t != GT_F32 && t != GT_F64 &&
               t != GT_BOOL && scalar_size(t)) {
        uint64_t v;
        if (!int_value(r, t, &v)) return false;
        if (v == 1 || v == 2)
            c->moe_gating = (uint8_t)v;
        else
            c->moe_routing_extra = true;
    } else {
        c->moe_routing_extra = true;
        return skip_value(r, t, 0);
    }
    return true;
}

static bool is_routing_option(const tp_llm_config *c, const char *key) {
    return is_arch_key(c, key, "expert_weights_norm") ||
           is_arch_key(c, key, "expert_weights_scale") || is_arch_key(c, key, "expert_gating_func");
}

/* A per-layer array (integers into u32 or bools into u8), at most
 * TP_LLM_MAX_LAYERS elements; *maxv gets the largest element. */
static bool read_layer_array(gguf_reader *r, const char *key, uint32_t *out32, uint8_t *out8,
                             uint64_t *maxv) {
    uint32_t et;
    uint64_t count;
    if (!u32le(r, &et) || !u64le(r, &count)) return false;
    if (count > TP_LLM_MAX_LAYERS) {
        char msg[NAME_CAP + 64];
        snprintf(msg, sizeof msg, "%s: %llu layers, more than %d supported", key,
                 (unsigned long long)count, TP_LLM_MAX_LAYERS);
        return gguf_fail(r, TP_ERR_UNSUPPORTED, msg);
    }
    *maxv = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t v;
        if (et == GT_BOOL) {
            uint8_t b;
            if (!rd(r, &b, 1)) return false;
            v = b != 0;
        } else if (!int_value(r, et, &v)) {
            return false;
        }
        if (v > UINT32_MAX) {
            char msg[NAME_CAP + 32];
            snprintf(msg, sizeof msg, "%s[%llu] too large", key, (unsigned long long)i);
            return gguf_fail(r, TP_ERR_PARSE, msg);
        }
        if (out32) out32[i] = (uint32_t)v;
        if (out8) out8[i] = (uint8_t)v;
        if (v > *maxv) *maxv = v;
    }
    return true;
}

static bool read_kvs(gguf_reader *r, uint64_t n_kv, tp_llm_config *c, tp_llm_meta_extra *x,
                     const tp_allocator *a, kv_seen **seen, size_t *n_seen, size_t *cap_seen,
                     tp_name_set *keys, char key[NAME_CAP]) {
    for (uint64_t i = 0; i < n_kv; i++) {
        uint32_t t;
        uint64_t at = r->pos;
        if (!str(r, key, NAME_CAP) || !unique_name(r, keys, "key", key, at) || !u32le(r, &t))
            return false;
        if (strcmp(key, "general.architecture") == 0) {
            if (t != GT_STRING)
                return gguf_fail(r, TP_ERR_PARSE, "general.architecture not a string");
            if (!str(r, c->arch, sizeof c->arch)) return false;
        } else if (strcmp(key, "tokenizer.ggml.tokens") == 0 && t == GT_ARRAY) {
            uint32_t et;
            uint64_t count;
            if (!u32le(r, &et) || !u64le(r, &count)) return false;
            if (!skip_array_body(r, et, count, 0)) return false;
            c->n_vocab = count; /* <arch>.vocab_size, applied later, wins when present */
        } else if (t == GT_ARRAY && is_arch_key(c, key, "attention.head_count_kv")) {
            if (!read_layer_array(r, key, c->layer_head_kv, NULL, &c->n_head_kv)) return false;
            x->head_kv_array = true;
        } else if (t == GT_ARRAY && is_arch_key(c, key, "attention.head_count")) {
            if (!read_layer_array(r, key, NULL, NULL, &c->n_head)) return false;
        } else if (t == GT_ARRAY && is_arch_key(c, key, "attention.sliding_window_pattern")) {
            uint64_t m;
            if (!read_layer_array(r, key, NULL, c->layer_swa, &m)) return false;
            x->pattern_array = true;
        } else if (is_routing_option(c, key)) {
            if (!read_routing(r, c, key, t)) return false;
        } else if (is_routing_key(c, key)) {
            c->moe_routing_extra = true;
            if (!skip_value(r, t, 0)) return false;
        } else if (strcmp(key, "general.alignment") == 0 && t != GT_ARRAY && t != GT_STRING) {
            if (!int_value(r, t, &c->alignment)) return false;
            if (!tp_is_pow2_u64(c->alignment) || c->alignment > (1u << 30))
                return gguf_fail(r, TP_ERR_PARSE, "general.alignment is not a power of two");
            x->alignment_set = true;
        } else if (strchr(key, '.') && scalar_size(t) && t != GT_F32 && t != GT_F64 &&
                   t != GT_BOOL) {
            uint64_t v;
            if (!int_value(r, t, &v)) return false;
            if (!tp_mem_grow(a, (void **)seen, sizeof **seen, cap_seen, *n_seen + 1))
                return gguf_fail(r, TP_ERR_NOMEM, "out of memory");
            memcpy((*seen)[*n_seen].key, key, NAME_CAP);
            (*seen)[*n_seen].value = v;
            (*n_seen)++;
        } else {
            if (!skip_value(r, t, 0)) return false;
        }
    }
    return true;
}

static bool read_metadata(gguf_reader *r, uint64_t n_kv, tp_llm_config *c, tp_llm_meta_extra *x,
                          const tp_allocator *a, kv_seen **seen, size_t *n_seen, size_t *cap_seen) {
    char key[NAME_CAP]; /* one buffer for the loop, off the loop's frame */
    tp_name_set keys;
    tp_name_set_init(&keys, a);
    bool ok = read_kvs(r, n_kv, c, x, a, seen, n_seen, cap_seen, &keys, key);
    tp_name_set_free(&keys);
    return ok;
}

static void apply_arch_keys(tp_llm_config *c, tp_llm_meta_extra *x, const kv_seen *seen,
                            size_t n_seen) {
    size_t al = strlen(c->arch);
    for (size_t i = 0; i < n_seen; i++) {
        const char *k = seen[i].key;
        if (al == 0 || strncmp(k, c->arch, al) != 0 || k[al] != '.') continue;
        for (size_t j = 0; j < N_ARCH_KEYS; j++) {
            if (strcmp(k + al + 1, arch_keys[j].suffix) != 0) continue;
            /* an array form read earlier wins over a scalar of the same key */
            if (arch_keys[j].field == offsetof(tp_llm_config, n_head_kv) && !arch_keys[j].extra &&
                x->head_kv_array)
                continue;
            char *base = arch_keys[j].extra ? (char *)x : (char *)c;
            uint64_t *dst = (uint64_t *)(void *)(base + arch_keys[j].field);
            *dst = seen[i].value;
            if (arch_keys[j].extra &&
                arch_keys[j].field == offsetof(tp_llm_meta_extra, swa_pattern))
                x->has_pattern = 1;
            if (!arch_keys[j].extra && arch_keys[j].field == offsetof(tp_llm_config, n_swa))
                x->has_swa_key = 1;
        }
    }
}

/* Layer index of a "blk.N." tensor name, or -1. */
static long block_index(const char *name) {
    if (strncmp(name, "blk.", 4) != 0) return -1;
    long v = 0;
    const char *p = name + 4;
    if (*p < '0' || *p > '9') return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (*p - '0');
        if (v > 1000000) return -1;
    }
    return *p == '.' ? v : -1;
}

static bool read_tensors(gguf_reader *r, uint64_t n_tensors, tp_registry *reg, tp_llm_config *c,
                         tp_gguf_layout *lay, tp_name_set *names) {
    char name[NAME_CAP];
    unsigned char *moe_seen = lay->moe_seen;
    for (uint64_t i = 0; i < n_tensors; i++) {
        uint32_t n_dims, type;
        uint64_t dims[TP_MAX_RANK], offset, elems = 1;
        uint64_t at = r->pos;
        if (!str(r, name, sizeof name) || !unique_name(r, names, "tensor name", name, at) ||
            !u32le(r, &n_dims))
            return false;
        if (n_dims > TP_MAX_RANK) return gguf_fail(r, TP_ERR_PARSE, "tensor rank above 8");
        for (uint32_t d = 0; d < n_dims; d++) {
            if (!u64le(r, &dims[d])) return false;
            if (dims[d] > (uint64_t)INT64_MAX || !tp_mul_u64(elems, dims[d], &elems))
                return gguf_fail(r, TP_ERR_OVERFLOW, "tensor element count overflows");
        }
        if (!u32le(r, &type) || !u64le(r, &offset)) return false;
        int dt = ggml_type(type);
        if (dt < 0) {
            char msg[NAME_CAP + 64];
            snprintf(msg, sizeof msg, "tensor '%s' has ggml type %u, unknown here", name,
                     (unsigned)type);
            return gguf_fail(r, TP_ERR_UNSUPPORTED, msg);
        }
        uint64_t bytes;
        tp_error e2;
        if (tp_dtype_bytes((tp_dtype)dt, elems, &bytes, &e2) != TP_OK) {
            char msg[NAME_CAP + TP_ERROR_MSG_CAP + 16];
            snprintf(msg, sizeof msg, "tensor '%s': %s", name, e2.msg);
            return gguf_fail(r, e2.status, msg);
        }
        if (offset % c->alignment != 0) {
            char msg[NAME_CAP + 128];
            snprintf(msg, sizeof msg,
                     "tensor '%s': data offset %llu is not a multiple of the "
                     "alignment %llu",
                     name, (unsigned long long)offset, (unsigned long long)c->alignment);
            return gguf_fail(r, TP_ERR_PARSE, msg);
        }
        if (!tp_gguf_layout_add(lay, name, (tp_dtype)dt, n_dims, dims, offset, bytes))
            return gguf_fail(r, TP_ERR_OVERFLOW, "tensor data offset overflows");
        /* no vocabulary size in the metadata: the token embedding's rows */
        if (c->n_vocab == 0 && n_dims == 2 && strcmp(name, "token_embd.weight") == 0)
            c->n_vocab = dims[1];
        if (strstr(name, "attn_q_norm")) c->qk_norm = true;
        if (strstr(name, "exp_probs_b")) c->moe_probs_bias = true;
        if (strstr(name, "ffn_gate_inp.bias") || strstr(name, "_exps.bias") ||
            strstr(name, "ffn_gate_up_exps"))
            c->moe_routing_extra = true; /* routing or expert ops the graph does not build */
        if (!tp_add_u64(c->weight_bytes, bytes, &c->weight_bytes))
            return gguf_fail(r, TP_ERR_OVERFLOW, "total tensor bytes overflow");
        if (strstr(name, "_exps")) {
            c->expert_tensor_bytes += bytes; /* <= weight_bytes: no overflow */
            long layer = block_index(name);
            if (layer < 0 || layer >= 4096) {
                lay->moe_overflow = true;
            } else if (!(moe_seen[layer / 8] & (1u << (layer % 8)))) {
                moe_seen[layer / 8] = (unsigned char)(moe_seen[layer / 8] | (1u << (layer % 8)));
                c->moe_layers++;
            }
        }
        if (reg) {
            tp_weight_desc d;
            memset(&d, 0, sizeof d);
            d.name = name;
            d.rank = (int32_t)n_dims;
            /* GGUF lists dims innermost first; the registry keeps row-major order */
            for (uint32_t k = 0; k < n_dims; k++)
                d.dims[k] = (int64_t)dims[n_dims - 1 - k];
            d.dtype = (tp_dtype)dt;
            d.bytes = bytes;
            tp_error e3;
            tp_status s = tp_registry_add(reg, &d, NULL, &e3);
            if (s != TP_OK) return gguf_fail(r, s, e3.msg);
        }
    }
    return true;
}

/* One GGUF file: header, metadata (into c and x for the first file of a model;
 * a later split file's metadata is read and dropped) and tensor infos (into c,
 * reg and lay; names collects the tensor names of every file); *split_count gets
 * split.count (0 when absent). */
static tp_status read_file(const char *path, bool first, tp_registry *reg, tp_llm_config *c,
                           tp_llm_meta_extra *x, tp_gguf_layout *lay, tp_name_set *names,
                           uint64_t *split_count, tp_error *err) {
    FILE *f;
    uint64_t fsize;
    tp_status os = tp__fopen_regular(path, 0, &f, &fsize, err);
    if (os != TP_OK) {
        tp_error_prefix(err, "gguf: ");
        return os;
    }
    gguf_reader r = {f, path, 0, 0, err, TP_OK};
    if (fseeko(f, 0, SEEK_END) == 0) {
        off_t sz = ftello(f);
        r.size = sz > 0 ? (uint64_t)sz : 0;
    }
    rewind(f);
    const tp_allocator *a = reg ? tp_registry_allocator(reg) : NULL;
    tp_llm_config *scratch = NULL; /* a later file's metadata lands here */
    tp_llm_meta_extra sx;
    kv_seen *seen = NULL;
    size_t n_seen = 0, cap_seen = 0;
    uint32_t magic = 0, version = 0;
    uint64_t n_tensors = 0, n_kv = 0, data_offset = 0;
    if (!u32le(&r, &magic)) goto done;
    if (magic != GGUF_MAGIC) {
        r.pos = 0;
        gguf_fail(&r, TP_ERR_PARSE, "not a GGUF file (bad magic)");
        goto done;
    }
    if (!u32le(&r, &version)) goto done;
    if (version != 2 && version != 3) {
        gguf_fail(&r, TP_ERR_PARSE, "unsupported GGUF version (2 and 3 are read)");
        goto done;
    }
    if (!u64le(&r, &n_tensors) || !u64le(&r, &n_kv)) goto done;
    /* every key/value takes at least 12 bytes, every tensor info at least 24 */
    if (n_kv > r.size / 12 || n_tensors > r.size / 24) {
        gguf_fail(&r, TP_ERR_PARSE, "counts larger than the file can hold");
        goto done;
    }
    if (first) {
        c->alignment = 32; /* GGUF_DEFAULT_ALIGNMENT */
        if (!read_metadata(&r, n_kv, c, x, a, &seen, &n_seen, &cap_seen)) goto done;
        apply_arch_keys(c, x, seen, n_seen);
    } else {
        scratch = tp_mem_alloc(a, sizeof *scratch);
        if (!scratch) {
            gguf_fail(&r, TP_ERR_NOMEM, "out of memory");
            goto done;
        }
        memset(scratch, 0, sizeof *scratch);
        memset(&sx, 0, sizeof sx);
        scratch->alignment = 32;
        if (!read_metadata(&r, n_kv, scratch, &sx, a, &seen, &n_seen, &cap_seen)) goto done;
        c->alignment = scratch->alignment;
    }
    *split_count = 0;
    for (size_t i = 0; i < n_seen; i++)
        if (strcmp(seen[i].key, "split.count") == 0) *split_count = seen[i].value;
    if (!read_tensors(&r, n_tensors, reg, c, lay, names)) goto done;
    if (!tp_add_u64(c->n_tensors, n_tensors, &c->n_tensors)) {
        gguf_fail(&r, TP_ERR_OVERFLOW, "tensor count overflows");
        goto done;
    }
    if (!tp_align_up_u64(r.pos, c->alignment, &data_offset) ||
        lay->end_max > r.size - (data_offset < r.size ? data_offset : r.size)) {
        char msg[NAME_CAP + 128];
        snprintf(msg, sizeof msg,
                 "tensor '%s': data ends at byte %llu, past the end of the file "
                 "(%llu bytes)",
                 lay->end_name, (unsigned long long)tp_sat_add_u64(data_offset, lay->end_max),
                 (unsigned long long)r.size);
        r.pos = data_offset;
        gguf_fail(&r, TP_ERR_PARSE, msg);
        goto done;
    }
    if (first) {
        c->gguf_version = version;
        c->file_bytes = r.size;
        c->data_offset = data_offset;
    }
done:
    tp_mem_free(a, seen, cap_seen * sizeof *seen);
    if (scratch) tp_mem_free(a, scratch, sizeof *scratch);
    fclose(f);
    return r.st;
}

/* "NAME-00001-of-0000N.gguf": the path of split k (1-based) into buf. */
static bool split_path(const char *first, uint64_t k, uint64_t n, char *buf, size_t cap) {
    size_t len = strlen(first);
    const size_t tail = strlen("-00001-of-00000.gguf");
    if (len < tail || len >= cap) return false;
    char want[32];
    snprintf(want, sizeof want, "-00001-of-%05llu.gguf", (unsigned long long)n);
    if (strcmp(first + len - tail, want) != 0) return false;
    memcpy(buf, first, len - tail);
    snprintf(buf + len - tail, cap - (len - tail), "-%05llu-of-%05llu.gguf", (unsigned long long)k,
             (unsigned long long)n);
    return true;
}

tp_status tp_gguf_read_llm(const char *path, tp_registry *reg, tp_llm_config *out, tp_error *err) {
    if (!path || !out) return tp_error_set(err, TP_ERR_INVALID, "gguf: NULL argument");
    memset(out, 0, sizeof *out);
    const tp_allocator *a = reg ? tp_registry_allocator(reg) : NULL;
    tp_name_set names; /* tensor names of every file: a repeat is an error */
    tp_name_set_init(&names, a);
    tp_llm_config *c = tp_mem_alloc(a, sizeof *c);
    tp_gguf_layout *lay = tp_mem_alloc(a, sizeof *lay);
    tp_status st = TP_OK;
    if (!c || !lay) {
        st = tp_error_set(err, TP_ERR_NOMEM, "gguf: out of memory");
        goto done;
    }
    memset(c, 0, sizeof *c);
    tp_llm_meta_extra x;
    memset(&x, 0, sizeof x);
    tp_gguf_layout_init(lay);
    uint64_t splits = 0, more;
    st = read_file(path, true, reg, c, &x, lay, &names, &splits, err);
    /* a split model (split.count > 1): the other files, each mapped on its own */
    if (st == TP_OK && splits > 1) {
        char sp[4096];
        if (splits > 99999 || !split_path(path, 1, splits, sp, sizeof sp)) {
            st = tp_error_set(err, TP_ERR_INVALID,
                              "gguf: %s: split.count is %llu but the name is not "
                              "NAME-00001-of-%05llu.gguf",
                              path, (unsigned long long)splits, (unsigned long long)splits);
            goto done;
        }
        for (uint64_t k = 2; k <= splits && st == TP_OK; k++) {
            split_path(path, k, splits, sp, sizeof sp);
            tp_gguf_layout_next_file(lay);
            st = read_file(sp, false, reg, c, &x, lay, &names, &more, err);
        }
    }
    if (st != TP_OK) goto done;
    if (lay->moe_overflow && c->moe_layers < c->n_layer) c->moe_layers = c->n_layer;
    if (c->n_expert && c->moe_layers && c->expert_tensor_bytes)
        c->expert_bytes = c->expert_tensor_bytes / tp_sat_mul_u64(c->n_expert, c->moe_layers);
    c->tied_output = !lay->has_output;
    tp_gguf_layout_finish(lay, c);
    {
        char prefix[4200];
        snprintf(prefix, sizeof prefix, "gguf: %s at offset 0: ", path);
        if ((st = tp__llm_config_finish(c, &x, prefix, err)) != TP_OK) goto done;
    }
    *out = *c;
done:
    tp_name_set_free(&names);
    if (c) tp_mem_free(a, c, sizeof *c);
    if (lay) tp_mem_free(a, lay, sizeof *lay);
    return st;
}
