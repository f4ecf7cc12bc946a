/* The dtype table, GGUF block sizes included (ggml's type traits, ggml/src/ggml.c). */
#include "tensorplan/dtype.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

static const tp_dtype_info dtype_table[] = {
#define TP_DTYPE_INFO_(e, name, be, bb, k) {name, be, bb, k},
    TP_DTYPE_LIST(TP_DTYPE_INFO_)
#undef TP_DTYPE_INFO_
};

bool tp_dtype_is_valid(tp_dtype t) {
    return (unsigned)t < (unsigned)TP_DTYPE_COUNT;
}

const tp_dtype_info *tp_dtype_get(tp_dtype t) {
    return tp_dtype_is_valid(t) ? &dtype_table[t] : NULL;
}

const char *tp_dtype_name(tp_dtype t) {
    return tp_dtype_is_valid(t) ? dtype_table[t].name : "?";
}

bool tp_dtype_is_quantized(tp_dtype t) {
    return tp_dtype_is_valid(t) && dtype_table[t].kind == 'Q';
}

bool tp_dtype_is_int8(tp_dtype t) {
    return t == TP_DTYPE_U8 || t == TP_DTYPE_I8;
}

bool tp_dtype_is_float(tp_dtype t) {
    return tp_dtype_is_valid(t) && dtype_table[t].kind == 'F';
}

uint32_t tp_dtype_elem_bytes_hint(tp_dtype t) {
    if (!tp_dtype_is_valid(t)) return 0;
    const tp_dtype_info *d = &dtype_table[t];
    uint32_t b = (d->block_bytes + d->block_elems - 1) / d->block_elems;
    return b ? b : 1;
}

static const struct {
    const char *alias;
    tp_dtype t;
} dtype_aliases[] = {
    {"float64", TP_DTYPE_F64},
    {"double", TP_DTYPE_F64},
    {"float32", TP_DTYPE_F32},
    {"float", TP_DTYPE_F32},
    {"fp32", TP_DTYPE_F32},
    {"float16", TP_DTYPE_F16},
    {"fp16", TP_DTYPE_F16},
    {"half", TP_DTYPE_F16},
    {"bfloat16", TP_DTYPE_BF16},
    {"int64", TP_DTYPE_I64},
    {"int32", TP_DTYPE_I32},
    {"int16", TP_DTYPE_I16},
    {"int8", TP_DTYPE_I8},
    {"uint64", TP_DTYPE_U64},
    {"uint32", TP_DTYPE_U32},
    {"uint16", TP_DTYPE_U16},
    {"uint8", TP_DTYPE_U8},
    {"complex64", TP_DTYPE_C64},
    {"complex128", TP_DTYPE_C128},
    {"f8e4m3fn", TP_DTYPE_F8E4M3},
    {"float8e4m3fn", TP_DTYPE_F8E4M3},
    {"f8e5m2", TP_DTYPE_F8E5M2},
    {"float8e5m2", TP_DTYPE_F8E5M2},
};

tp_status tp_dtype_parse(const char *name, tp_dtype *out, tp_error *err) {
    char low[32];
    size_t n = name ? strlen(name) : 0;
    if (!name || !out || n == 0 || n >= sizeof low)
        return tp_error_set(err, TP_ERR_NOT_FOUND, "unknown dtype '%s'", name ? name : "(null)");
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    for (int t = 0; t < TP_DTYPE_COUNT; t++) {
        if (strcmp(low, dtype_table[t].name) == 0) {
            *out = (tp_dtype)t;
            return TP_OK;
        }
    }
    for (size_t i = 0; i < sizeof dtype_aliases / sizeof dtype_aliases[0]; i++) {
        if (strcmp(low, dtype_aliases[i].alias) == 0) {
            *out = dtype_aliases[i].t;
            return TP_OK;
        }
    }
    return tp_error_set(err, TP_ERR_NOT_FOUND, "unknown dtype '%s'", name);
}

tp_status tp_dtype_bytes(tp_dtype t, uint64_t elements, uint64_t *out_bytes, tp_error *err) {
    if (!tp_dtype_is_valid(t))
        return tp_error_set(err, TP_ERR_INVALID, "invalid dtype value %d", (int)t);
    const tp_dtype_info *d = &dtype_table[t];
    if (elements % d->block_elems != 0)
        return tp_error_set(err, TP_ERR_SHAPE,
                            "%s tensor of %" PRIu64
                            " elements is not a whole number of %u-element blocks",
                            d->name, elements, d->block_elems);
    uint64_t blocks = elements / d->block_elems;
    if (!tp_mul_u64(blocks, d->block_bytes, out_bytes))
        return tp_error_set(err, TP_ERR_OVERFLOW,
                            "%" PRIu64 " elements of %s overflow a 64-bit byte count", elements,
                            d->name);
    return TP_OK;
}
