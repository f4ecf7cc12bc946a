/* Built-in 8-bit integer GEMM kernels (qgemm_kernels.h).
 *
 * A register block of TP_QGEMM_MR rows × TP_QGEMM_NR columns walks k: u8s8 four k at a time,
 * one 32-bit lane holding four activation bytes (broadcast) against the four weight bytes of
 * one column, multiplied and summed into 32-bit lanes (AVX2: vpmaddubsw, then vpmaddwd by ones
 * and an add; AVX-512 VNNI: vpdpbusd); u8u8 two k at a time, both operands widened to 16 bits
 * (vpmaddwd and an add). This is the structure of onnxruntime's MLAS integer GEMM kernels (read
 * for the technique only). CPUs without AVX2 take the plain C kernels. */
#include "cost/qgemm_kernels.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TP_HAVE_X86_QGEMM 1
#include <immintrin.h>
#endif

size_t tp_qgemm_packed_bytes(tp_qgemm_kind kind, uint32_t k, uint32_t n) {
    return (size_t)k * n * (kind == TP_QGEMM_U8S8 ? 1u : 2u);
}

void tp_qgemm_pack_b(tp_qgemm_kind kind, const void *b, uint32_t k, uint32_t n, void *out) {
    if (kind == TP_QGEMM_U8S8) {
        const int8_t *src = b;
        int8_t *dst = out;
        for (uint32_t p = 0; p < k / 4; p++)
            for (uint32_t q = 0; q < n; q++)
                for (uint32_t t = 0; t < 4; t++)
                    dst[((size_t)p * n + q) * 4 + t] = src[(size_t)(p * 4 + t) * n + q];
        return;
    }
    const uint8_t *src = b;
    int16_t *dst = out;
    for (uint32_t p = 0; p < k / 2; p++)
        for (uint32_t q = 0; q < n; q++)
            for (uint32_t t = 0; t < 2; t++)
                dst[((size_t)p * n + q) * 2 + t] = (int16_t)src[(size_t)(p * 2 + t) * n + q];
}

static void u8s8_generic(const tp_qgemm_job *j, uint32_t r0, uint32_t r1) {
    const int8_t *b = j->b;
    for (uint32_t i = r0; i < r1; i++)
        for (uint32_t q = 0; q < j->n; q++) {
            int32_t s = 0;
            for (uint32_t p = 0; p < j->k / 4; p++)
                for (uint32_t t = 0; t < 4; t++)
                    s += (int32_t)j->a[(size_t)i * j->k + p * 4 + t] *
                         (int32_t)b[((size_t)p * j->n + q) * 4 + t];
            j->c[(size_t)i * j->n + q] = s;
        }
}

static void u8u8_generic(const tp_qgemm_job *j, uint32_t r0, uint32_t r1) {
    const int16_t *a = (const int16_t *)(const void *)j->a, *b = j->b;
    for (uint32_t i = r0; i < r1; i++)
        for (uint32_t q = 0; q < j->n; q++) {
            int32_t s = 0;
            for (uint32_t p = 0; p < j->k / 2; p++)
                for (uint32_t t = 0; t < 2; t++)
                    s += (int32_t)a[(size_t)i * j->k + p * 2 + t] *
                         (int32_t)b[((size_t)p * j->n + q) * 2 + t];
            j->c[(size_t)i * j->n + q] = s;
        }
}

#ifdef TP_HAVE_X86_QGEMM
#define TARGET_AVX2 __attribute__((target("avx2,fma")))
#define TARGET_VNNI __attribute__((target("avx2,fma,avx512f,avx512vl,avx512vnni")))

/* acc += the k-group products of a (broadcast activation lane) and b (eight columns) */
TARGET_AVX2 static inline __m256i acc_u8s8_avx2(__m256i acc, __m256i a, __m256i b) {
    return _mm256_add_epi32(acc,
                            _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), _mm256_set1_epi16(1)));
}
TARGET_VNNI static inline __m256i acc_u8s8_vnni(__m256i acc, __m256i a, __m256i b) {
    return _mm256_dpbusd_epi32(acc, a, b);
}
TARGET_AVX2 static inline __m256i acc_u8u8_avx2(__m256i acc, __m256i a, __m256i b) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
}

/* KG: k values per 32-bit lane (4 bytes, or 2 widened); ESZ: bytes per value of A and B */
#define QGEMM_KERNEL(NAME, TARGET, KG, ESZ, ACC)                                                   \
    TARGET static void NAME(const tp_qgemm_job *j, uint32_t r0, uint32_t r1) {                     \
        const unsigned char *b = j->b;                                                             \
        size_t groups = j->k / (KG), row = (size_t)j->k * (ESZ);                                   \
        for (uint32_t i = r0; i < r1; i += TP_QGEMM_MR)                                            \
            for (uint32_t q = 0; q < j->n; q += TP_QGEMM_NR) {                                     \
                __m256i acc[TP_QGEMM_MR][2];                                                       \
                _Pragma("GCC unroll 4") for (uint32_t r = 0; r < TP_QGEMM_MR; r++) acc[r][0] =     \
                    acc[r][1] = _mm256_setzero_si256();                                            \
                for (size_t p = 0; p < groups; p++) {                                              \
                    const unsigned char *bp = b + ((size_t)p * j->n + q) * 4;                      \
                    __m256i b0 = _mm256_loadu_si256((const __m256i *)(const void *)bp);            \
                    __m256i b1 = _mm256_loadu_si256((const __m256i *)(const void *)(bp + 32));     \
                    _Pragma("GCC unroll 4") for (uint32_t r = 0; r < TP_QGEMM_MR; r++) {           \
                        int32_t lane;                                                              \
                        memcpy(&lane, j->a + (i + r) * row + p * 4, 4);                            \
                        __m256i a = _mm256_set1_epi32(lane);                                       \
                        acc[r][0] = ACC(acc[r][0], a, b0);                                         \
                        acc[r][1] = ACC(acc[r][1], a, b1);                                         \
                    }                                                                              \
                }                                                                                  \
                _Pragma("GCC unroll 4") for (uint32_t r = 0; r < TP_QGEMM_MR; r++) {               \
                    int32_t *c = j->c + (size_t)(i + r) * j->n + q;                                \
                    _mm256_storeu_si256((__m256i *)(void *)c, acc[r][0]);                          \
                    _mm256_storeu_si256((__m256i *)(void *)(c + 8), acc[r][1]);                    \
                }                                                                                  \
            }                                                                                      \
    }

QGEMM_KERNEL(u8s8_avx2, TARGET_AVX2, 4, 1, acc_u8s8_avx2)
QGEMM_KERNEL(u8s8_vnni, TARGET_VNNI, 4, 1, acc_u8s8_vnni)
QGEMM_KERNEL(u8u8_avx2, TARGET_AVX2, 2, 2, acc_u8u8_avx2)
#endif

uint32_t tp_qgemm_kernels(tp_qgemm_kind kind, const tp_cpu_features *feat, tp_qgemm_rows_fn *out,
                          const char **names) {
    uint32_t n = 0;
    bool u8s8 = kind == TP_QGEMM_U8S8;
#ifdef TP_HAVE_X86_QGEMM
    if (u8s8 && feat && feat->avx512vnni && feat->avx512f && feat->avx2 && feat->fma) {
        out[n] = u8s8_vnni;
        names[n++] = "u8s8-avx512vnni";
    }
    if (feat && feat->avx2 && feat->fma) {
        out[n] = u8s8 ? u8s8_avx2 : u8u8_avx2;
        names[n++] = u8s8 ? "u8s8-avx2" : "u8u8-avx2";
    }
#else
    (void)feat;
#endif
    out[n] = u8s8 ? u8s8_generic : u8u8_generic;
    names[n++] = u8s8 ? "u8s8-generic" : "u8u8-generic";
    return n;
}

tp_qgemm_rows_fn tp_qgemm_kernel_for(tp_qgemm_kind kind, const tp_cpu_features *feat,
                                     const char **name) {
    tp_qgemm_rows_fn k[3];
    const char *names[3];
    tp_qgemm_kernels(kind, feat, k, names);
    if (name) *name = names[0];
    return k[0];
}
