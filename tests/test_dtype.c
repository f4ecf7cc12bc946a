/* dtype table: sizes (GGUF block-quantized types included), names, parsing,
 * byte counts with whole-block and overflow errors. */
#include "harness.h"

/* Expected values written out independently of the X-macro table. */
static const struct {
    tp_dtype t;
    const char *name;
    uint32_t block_elems, block_bytes;
    char kind;
} expect[] = {
    {TP_DTYPE_F64, "f64", 1, 8, 'F'},
    {TP_DTYPE_F32, "f32", 1, 4, 'F'},
    {TP_DTYPE_F16, "f16", 1, 2, 'F'},
    {TP_DTYPE_BF16, "bf16", 1, 2, 'F'},
    {TP_DTYPE_F8E4M3, "f8e4m3", 1, 1, 'F'},
    {TP_DTYPE_F8E5M2, "f8e5m2", 1, 1, 'F'},
    {TP_DTYPE_I64, "i64", 1, 8, 'I'},
    {TP_DTYPE_I32, "i32", 1, 4, 'I'},
    {TP_DTYPE_I16, "i16", 1, 2, 'I'},
    {TP_DTYPE_I8, "i8", 1, 1, 'I'},
    {TP_DTYPE_U64, "u64", 1, 8, 'I'},
    {TP_DTYPE_U32, "u32", 1, 4, 'I'},
    {TP_DTYPE_U16, "u16", 1, 2, 'I'},
    {TP_DTYPE_U8, "u8", 1, 1, 'I'},
    {TP_DTYPE_BOOL, "bool", 1, 1, 'B'},
    {TP_DTYPE_C64, "c64", 1, 8, 'C'},
    {TP_DTYPE_C128, "c128", 1, 16, 'C'},
    {TP_DTYPE_Q4_0, "q4_0", 32, 18, 'Q'},
    {TP_DTYPE_Q4_1, "q4_1", 32, 20, 'Q'},
    {TP_DTYPE_Q5_0, "q5_0", 32, 22, 'Q'},
    {TP_DTYPE_Q5_1, "q5_1", 32, 24, 'Q'},
    {TP_DTYPE_Q8_0, "q8_0", 32, 34, 'Q'},
    {TP_DTYPE_Q8_1, "q8_1", 32, 36, 'Q'},
    {TP_DTYPE_Q2_K, "q2_k", 256, 84, 'Q'},
    {TP_DTYPE_Q3_K, "q3_k", 256, 110, 'Q'},
    {TP_DTYPE_Q4_K, "q4_k", 256, 144, 'Q'},
    {TP_DTYPE_Q5_K, "q5_k", 256, 176, 'Q'},
    {TP_DTYPE_Q6_K, "q6_k", 256, 210, 'Q'},
    {TP_DTYPE_Q8_K, "q8_k", 256, 292, 'Q'},
    {TP_DTYPE_IQ2_XXS, "iq2_xxs", 256, 66, 'Q'},
    {TP_DTYPE_IQ2_XS, "iq2_xs", 256, 74, 'Q'},
    {TP_DTYPE_IQ2_S, "iq2_s", 256, 82, 'Q'},
    {TP_DTYPE_IQ3_XXS, "iq3_xxs", 256, 98, 'Q'},
    {TP_DTYPE_IQ3_S, "iq3_s", 256, 110, 'Q'},
    {TP_DTYPE_IQ1_S, "iq1_s", 256, 50, 'Q'},
    {TP_DTYPE_IQ1_M, "iq1_m", 256, 56, 'Q'},
    {TP_DTYPE_IQ4_NL, "iq4_nl", 32, 18, 'Q'},
    {TP_DTYPE_IQ4_XS, "iq4_xs", 256, 136, 'Q'},
    {TP_DTYPE_TQ1_0, "tq1_0", 256, 54, 'Q'},
    {TP_DTYPE_TQ2_0, "tq2_0", 256, 66, 'Q'},
    /* ggml-common.h: block_mxfp4 {e8m0; 16 nibbles}, nvfp4 {4 ue4m3 scales; 32 nibbles},
     * q1_0 {f16; 128 bits}, q2_0 {f16; 64 x 2 bits} */
    {TP_DTYPE_MXFP4, "mxfp4", 32, 17, 'Q'},
    {TP_DTYPE_NVFP4, "nvfp4", 64, 36, 'Q'},
    {TP_DTYPE_Q1_0, "q1_0", 128, 18, 'Q'},
    {TP_DTYPE_Q2_0, "q2_0", 64, 18, 'Q'},
};
#define N_EXPECT (sizeof expect / sizeof expect[0])

TP_TEST(every_dtype_size) {
    TP_CHECK_EQ_U64(N_EXPECT, TP_DTYPE_COUNT);
    for (size_t i = 0; i < N_EXPECT; i++) {
        const tp_dtype_info *d = tp_dtype_get(expect[i].t);
        TP_CHECK(d != NULL);
        if (!d) continue;
        TP_CHECK_STR(d->name, expect[i].name);
        TP_CHECK_STR(tp_dtype_name(expect[i].t), expect[i].name);
        TP_CHECK_EQ_U64(d->block_elems, expect[i].block_elems);
        TP_CHECK_EQ_U64(d->block_bytes, expect[i].block_bytes);
        TP_CHECK_EQ_I64(d->kind, expect[i].kind);
        TP_CHECK(tp_dtype_is_quantized(expect[i].t) == (expect[i].kind == 'Q'));
        TP_CHECK(tp_dtype_is_float(expect[i].t) == (expect[i].kind == 'F'));
        /* one block, and 1000 blocks */
        uint64_t b = 0;
        TP_CHECK_OK(tp_dtype_bytes(expect[i].t, expect[i].block_elems, &b, NULL), (tp_error *)0);
        TP_CHECK_EQ_U64(b, expect[i].block_bytes);
        TP_CHECK_OK(tp_dtype_bytes(expect[i].t, 1000ull * expect[i].block_elems, &b, NULL),
                    (tp_error *)0);
        TP_CHECK_EQ_U64(b, 1000ull * expect[i].block_bytes);
        /* the parse of the canonical name and of its upper-case form */
        tp_dtype t = TP_DTYPE_COUNT;
        TP_CHECK_OK(tp_dtype_parse(expect[i].name, &t, NULL), (tp_error *)0);
        TP_CHECK_EQ_I64(t, expect[i].t);
        char up[32];
        size_t n = strlen(expect[i].name);
        for (size_t k = 0; k <= n; k++)
            up[k] =
                (char)(expect[i].name[k] >= 'a' && expect[i].name[k] <= 'z' ? expect[i].name[k] - 32
                                                                            : expect[i].name[k]);
        t = TP_DTYPE_COUNT;
        TP_CHECK_OK(tp_dtype_parse(up, &t, NULL), (tp_error *)0);
        TP_CHECK_EQ_I64(t, expect[i].t);
    }
}

TP_TEST(quantized_examples) {
    uint64_t b = 0;
    /* a 4096 x 4096 q4_0 matrix: 524288 blocks of 18 bytes */
    TP_CHECK_OK(tp_dtype_bytes(TP_DTYPE_Q4_0, 4096ull * 4096ull, &b, NULL), (tp_error *)0);
    TP_CHECK_EQ_U64(b, 9437184);
    /* 4096 x 11008 q4_k: 176128 blocks of 144 bytes */
    TP_CHECK_OK(tp_dtype_bytes(TP_DTYPE_Q4_K, 4096ull * 11008ull, &b, NULL), (tp_error *)0);
    TP_CHECK_EQ_U64(b, 25362432);
    TP_CHECK_EQ_U64(tp_dtype_elem_bytes_hint(TP_DTYPE_Q4_0), 1);
    TP_CHECK_EQ_U64(tp_dtype_elem_bytes_hint(TP_DTYPE_F32), 4);
    TP_CHECK_EQ_U64(tp_dtype_elem_bytes_hint(TP_DTYPE_Q8_K), 2);
    TP_CHECK_EQ_U64(tp_dtype_elem_bytes_hint((tp_dtype)999), 0);
    TP_CHECK_OK(tp_dtype_bytes(TP_DTYPE_F16, 0, &b, NULL), (tp_error *)0);
    TP_CHECK_EQ_U64(b, 0);
}

TP_TEST(aliases) {
    static const struct {
        const char *s;
        tp_dtype t;
    } al[] = {
        {"float32", TP_DTYPE_F32},   {"float", TP_DTYPE_F32},       {"FP32", TP_DTYPE_F32},
        {"fp16", TP_DTYPE_F16},      {"half", TP_DTYPE_F16},        {"float16", TP_DTYPE_F16},
        {"bfloat16", TP_DTYPE_BF16}, {"double", TP_DTYPE_F64},      {"int64", TP_DTYPE_I64},
        {"int8", TP_DTYPE_I8},       {"uint8", TP_DTYPE_U8},        {"Int32", TP_DTYPE_I32},
        {"complex64", TP_DTYPE_C64}, {"f8e4m3fn", TP_DTYPE_F8E4M3}, {"Q4_K", TP_DTYPE_Q4_K},
    };
    for (size_t i = 0; i < sizeof al / sizeof al[0]; i++) {
        tp_dtype t = TP_DTYPE_COUNT;
        TP_CHECK_OK(tp_dtype_parse(al[i].s, &t, NULL), (tp_error *)0);
        TP_CHECK_EQ_I64(t, al[i].t);
    }
}

TP_TEST(parse_errors) {
    tp_error e;
    tp_dtype t;
    TP_CHECK_STATUS(tp_dtype_parse("f33", &t, &e), TP_ERR_NOT_FOUND);
    TP_CHECK_CONTAINS(e.msg, "'f33'");
    TP_CHECK_STATUS(tp_dtype_parse("", &t, &e), TP_ERR_NOT_FOUND);
    TP_CHECK_STATUS(tp_dtype_parse(NULL, &t, &e), TP_ERR_NOT_FOUND);
    TP_CHECK_STATUS(tp_dtype_parse("an_extremely_long_dtype_name_that_overflows", &t, &e),
                    TP_ERR_NOT_FOUND);
    TP_CHECK(tp_dtype_get((tp_dtype)-1) == NULL);
    TP_CHECK(tp_dtype_get(TP_DTYPE_COUNT) == NULL);
    TP_CHECK_STR(tp_dtype_name(TP_DTYPE_COUNT), "?");
    TP_CHECK(!tp_dtype_is_valid(TP_DTYPE_COUNT));
    TP_CHECK(!tp_dtype_is_quantized(TP_DTYPE_COUNT));
}

TP_TEST(byte_count_errors) {
    tp_error e;
    uint64_t b = 7;
    /* 100 elements are not a whole number of 32-element q4_0 blocks */
    TP_CHECK_STATUS(tp_dtype_bytes(TP_DTYPE_Q4_0, 100, &b, &e), TP_ERR_SHAPE);
    TP_CHECK_CONTAINS(e.msg, "q4_0");
    TP_CHECK_CONTAINS(e.msg, "100 elements");
    TP_CHECK_STATUS(tp_dtype_bytes(TP_DTYPE_Q6_K, 255, &b, &e), TP_ERR_SHAPE);
    /* 2^62 f32 elements overflow 64 bits of bytes; 2^61 do not */
    TP_CHECK_STATUS(tp_dtype_bytes(TP_DTYPE_F32, 1ull << 62, &b, &e), TP_ERR_OVERFLOW);
    TP_CHECK_CONTAINS(e.msg, "overflow");
    tp_error *ep = &e;
    TP_CHECK_OK(tp_dtype_bytes(TP_DTYPE_F32, 1ull << 61, &b, ep), ep);
    TP_CHECK_EQ_U64(b, 1ull << 63);
    TP_CHECK_STATUS(tp_dtype_bytes(TP_DTYPE_C128, UINT64_MAX / 8, &b, &e), TP_ERR_OVERFLOW);
    TP_CHECK_STATUS(tp_dtype_bytes((tp_dtype)77, 1, &b, &e), TP_ERR_INVALID);
}

int main(void) {
    TP_RUN(every_dtype_size);
    TP_RUN(quantized_examples);
    TP_RUN(aliases);
    TP_RUN(parse_errors);
    TP_RUN(byte_count_errors);
    return tp_test_finish();
}
