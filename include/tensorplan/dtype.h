/*
 * tensorplan/dtype.h — element types, including GGUF block-quantized weight
 * types whose size is `blocks × block_bytes`, not `elements × bytes`.
 * Thread safety: all functions are pure.
 */
#ifndef TENSORPLAN_DTYPE_H
#define TENSORPLAN_DTYPE_H

#include "tensorplan/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(ENUM, "name", block_elems, block_bytes, kind) ; kind: F float, I int, B bool, C complex, Q
 * quant */
#define TP_DTYPE_LIST(X)                                                                           \
    X(F64, "f64", 1, 8, 'F')                                                                       \
    X(F32, "f32", 1, 4, 'F')                                                                       \
    X(F16, "f16", 1, 2, 'F')                                                                       \
    X(BF16, "bf16", 1, 2, 'F')                                                                     \
    X(F8E4M3, "f8e4m3", 1, 1, 'F')                                                                 \
    X(F8E5M2, "f8e5m2", 1, 1, 'F')                                                                 \
    X(I64, "i64", 1, 8, 'I')                                                                       \
    X(I32, "i32", 1, 4, 'I')                                                                       \
    X(I16, "i16", 1, 2, 'I')                                                                       \
    X(I8, "i8", 1, 1, 'I')                                                                         \
    X(U64, "u64", 1, 8, 'I')                                                                       \
    X(U32, "u32", 1, 4, 'I')                                                                       \
    X(U16, "u16", 1, 2, 'I')                                                                       \
    X(U8, "u8", 1, 1, 'I')                                                                         \
    X(BOOL, "bool", 1, 1, 'B')                                                                     \
    X(C64, "c64", 1, 8, 'C')                                                                       \
    X(C128, "c128", 1, 16, 'C')                                                                    \
    X(Q4_0, "q4_0", 32, 18, 'Q')                                                                   \
    X(Q4_1, "q4_1", 32, 20, 'Q')                                                                   \
    X(Q5_0, "q5_0", 32, 22, 'Q')                                                                   \
    X(Q5_1, "q5_1", 32, 24, 'Q')                                                                   \
    X(Q8_0, "q8_0", 32, 34, 'Q')                                                                   \
    X(Q8_1, "q8_1", 32, 36, 'Q')                                                                   \
    X(Q2_K, "q2_k", 256, 84, 'Q')                                                                  \
    X(Q3_K, "q3_k", 256, 110, 'Q')                                                                 \
    X(Q4_K, "q4_k", 256, 144, 'Q')                                                                 \
    X(Q5_K, "q5_k", 256, 176, 'Q')                                                                 \
    X(Q6_K, "q6_k", 256, 210, 'Q')                                                                 \
    X(Q8_K, "q8_k", 256, 292, 'Q')                                                                 \
    X(IQ2_XXS, "iq2_xxs", 256, 66, 'Q')                                                            \
    X(IQ2_XS, "iq2_xs", 256, 74, 'Q')                                                              \
    X(IQ2_S, "iq2_s", 256, 82, 'Q')                                                                \
    X(IQ3_XXS, "iq3_xxs", 256, 98, 'Q')                                                            \
    X(IQ3_S, "iq3_s", 256, 110, 'Q')                                                               \
    X(IQ1_S, "iq1_s", 256, 50, 'Q')                                                                \
    X(IQ1_M, "iq1_m", 256, 56, 'Q')                                                                \
    X(IQ4_NL, "iq4_nl", 32, 18, 'Q')                                                               \
    X(IQ4_XS, "iq4_xs", 256, 136, 'Q')                                                             \
    X(TQ1_0, "tq1_0", 256, 54, 'Q')                                                                \
    X(TQ2_0, "tq2_0", 256, 66, 'Q')                                                                \
    X(MXFP4, "mxfp4", 32, 17, 'Q')                                                                 \
    X(NVFP4, "nvfp4", 64, 36, 'Q')                                                                 \
    X(Q1_0, "q1_0", 128, 18, 'Q')                                                                  \
    X(Q2_0, "q2_0", 64, 18, 'Q')

typedef enum tp_dtype {
#define TP_DTYPE_ENUM_(e, name, be, bb, k) TP_DTYPE_##e,
    TP_DTYPE_LIST(TP_DTYPE_ENUM_)
#undef TP_DTYPE_ENUM_
        TP_DTYPE_COUNT
} tp_dtype;

typedef struct tp_dtype_info {
    const char *name;     /* "f32", "q4_k", ... */
    uint32_t block_elems; /* elements per block (1 for plain types) */
    uint32_t block_bytes; /* bytes per block */
    char kind;            /* 'F' float, 'I' integer, 'B' bool, 'C' complex, 'Q' block-quantized */
} tp_dtype_info;

/* NULL for an out-of-range value. */
TP_API const tp_dtype_info *tp_dtype_get(tp_dtype t);
/* Name, or "?" for an out-of-range value; never NULL. */
TP_API const char *tp_dtype_name(tp_dtype t);
/* Parse a name ("f32", "float32", "q4_k", "Q4_K", "fp16", "int64", ...). TP_ERR_NOT_FOUND if
 * unknown. */
TP_API tp_status tp_dtype_parse(const char *name, tp_dtype *out, tp_error *err);
TP_API bool tp_dtype_is_valid(tp_dtype t);
TP_API bool tp_dtype_is_quantized(tp_dtype t);
TP_API bool tp_dtype_is_float(tp_dtype t);
/* u8 or i8: the operands of integer convolutions and matrix products (ONNX ConvInteger,
 * MatMulInteger, QLinearConv, QLinearMatMul), which may mix the two. */
TP_API bool tp_dtype_is_int8(tp_dtype t);
/* Bytes per element for plain types; for quantized types, the rounded-up
 * average (bytes per block / elements per block, at least 1). Use for costs,
 * never for sizing buffers. */
TP_API uint32_t tp_dtype_elem_bytes_hint(tp_dtype t);
/* Bytes of `elements` elements. Quantized types need a whole number of blocks
 * (TP_ERR_SHAPE otherwise). TP_ERR_OVERFLOW when it exceeds 64 bits,
 * TP_ERR_INVALID for a bad dtype. */
TP_API tp_status tp_dtype_bytes(tp_dtype t, uint64_t elements, uint64_t *out_bytes, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
