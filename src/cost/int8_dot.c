/* Built-in int8 block-dot GEMM kernels (int8_dot.h).
 *
 * A register block of RM activation rows × RN weight rows walks the blocks of 32 values: the
 * activation blocks' absolute values are taken once, each weight block is given the sign of the
 * activation it meets (so that an unsigned × signed byte product is the signed one), the 32
 * products are summed into 8 integer lanes (AVX-512 VNNI: vpdpbusd; AVX2: vpmaddubsw then
 * vpmaddwd), converted to float and accumulated with the product of the two block scales
 * (fused multiply-add). This is how a quantized runtime's CPU dot products work (llama.cpp's
 * q8_0 kernels and tinyBLAS, read for the technique only). Rows or weight rows left over after
 * the register blocks, and CPUs without AVX2, take the plain C kernel. */
#include "cost/int8_dot.h"

#include <stddef.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TP_HAVE_X86_INT8 1
#include <immintrin.h>
#endif

/* c[i][q] for rows i0..i1 and weight rows q0..q1, one block at a time in plain C. */
static void dot_plain(const tp_int8_dot_job *j, uint32_t i0, uint32_t i1, uint32_t q0,
                      uint32_t q1) {
    uint32_t nb = j->k / TP_Q8_BLOCK;
    for (uint32_t i = i0; i < i1; i++)
        for (uint32_t q = q0; q < q1; q++) {
            const int8_t *a = j->a + (size_t)i * j->k, *w = j->w + (size_t)q * j->k;
            float sum = 0;
            for (uint32_t b = 0; b < nb; b++) {
                int32_t s = 0;
                for (uint32_t e = 0; e < TP_Q8_BLOCK; e++)
                    s += (int32_t)a[b * TP_Q8_BLOCK + e] * (int32_t)w[b * TP_Q8_BLOCK + e];
                sum += j->sa[(size_t)i * nb + b] * j->sw[(size_t)q * nb + b] * (float)s;
            }
            j->c[(size_t)i * j->n + q] = sum;
        }
}

static void kernel_generic(const tp_int8_dot_job *j, uint32_t n0, uint32_t n1) {
    dot_plain(j, 0, j->m, n0, n1);
}

#ifdef TP_HAVE_X86_INT8
#define TARGET_AVX2 __attribute__((target("avx2,fma")))
#define TARGET_VNNI __attribute__((target("avx2,fma,avx512f,avx512vl,avx512vnni")))

/* The whole register blocks of rows × weight rows; the edges go to dot_plain. */
#define INT8_KERNEL(NAME, TARGET, RM, RN, DOT)                                                     \
    TARGET static float NAME##_hsum(__m256 v) {                                                    \
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));             \
        s = _mm_add_ps(s, _mm_movehl_ps(s, s));                                                    \
        s = _mm_add_ss(s, _mm_movehdup_ps(s));                                                     \
        return _mm_cvtss_f32(s);                                                                   \
    }                                                                                              \
    TARGET static void NAME(const tp_int8_dot_job *j, uint32_t n0, uint32_t n1) {                  \
        uint32_t nb = j->k / TP_Q8_BLOCK;                                                          \
        uint32_t mfull = j->m - j->m % (RM), nfull = n0 + (n1 - n0) - (n1 - n0) % (RN);            \
        for (uint32_t q = n0; q < nfull; q += (RN))                                                \
            for (uint32_t i = 0; i < mfull; i += (RM)) {                                           \
                __m256 acc[RM][RN];                                                                \
                _Pragma("GCC unroll 4") for (uint32_t r = 0; r < (RM); r++)                        \
                    _Pragma("GCC unroll 4") for (uint32_t s = 0; s < (RN); s++) acc[r][s] =        \
                        _mm256_setzero_ps();                                                       \
                for (uint32_t b = 0; b < nb; b++) {                                                \
                    __m256i av[RM], ax[RM];                                                        \
                    float sa[RM];                                                                  \
                    _Pragma("GCC unroll 4") for (uint32_t r = 0; r < (RM); r++) {                  \
                        av[r] = _mm256_loadu_si256(                                                \
                            (const __m256i *)(j->a + (size_t)(i + r) * j->k + b * TP_Q8_BLOCK));   \
                        ax[r] = _mm256_sign_epi8(av[r], av[r]);                                    \
                        sa[r] = j->sa[(size_t)(i + r) * nb + b];                                   \
                    }                                                                              \
                    _Pragma("GCC unroll 4") for (uint32_t s = 0; s < (RN); s++) {                  \
                        __m256i wv = _mm256_loadu_si256(                                           \
                            (const __m256i *)(j->w + (size_t)(q + s) * j->k + b * TP_Q8_BLOCK));   \
                        float sw = j->sw[(size_t)(q + s) * nb + b];                                \
                        _Pragma("GCC unroll 4") for (uint32_t r = 0; r < (RM); r++) {              \
                            __m256i d = DOT(ax[r], _mm256_sign_epi8(wv, av[r]));                   \
                            acc[r][s] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d),                     \
                                                        _mm256_set1_ps(sa[r] * sw), acc[r][s]);    \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
                _Pragma("GCC unroll 4") for (uint32_t r = 0; r < (RM); r++)                        \
                    _Pragma("GCC unroll 4") for (uint32_t s = 0; s < (RN); s++)                    \
                        j->c[(size_t)(i + r) * j->n + q + s] = NAME##_hsum(acc[r][s]);             \
            }                                                                                      \
        if (mfull < j->m) dot_plain(j, mfull, j->m, n0, nfull);                                    \
        if (nfull < n1) dot_plain(j, 0, j->m, nfull, n1);                                          \
    }

/* unsigned × signed bytes, summed in fours into 8 int32 lanes */
TARGET_AVX2 static inline __m256i dot_avx2(__m256i ux, __m256i sy) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(ux, sy), _mm256_set1_epi16(1));
}
TARGET_VNNI static inline __m256i dot_vnni(__m256i ux, __m256i sy) {
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), ux, sy);
}

/* 16 vector registers with AVX2: 2 × 4 accumulators; 32 with AVX-512: 4 × 4 */
INT8_KERNEL(kernel_avx2, TARGET_AVX2, 2, 4, dot_avx2)
INT8_KERNEL(kernel_vnni, TARGET_VNNI, 4, 4, dot_vnni)
#endif

uint32_t tp_int8_dot_kernels(const tp_cpu_features *f, tp_int8_dot_fn *out, const char **names) {
    uint32_t n = 0;
#ifdef TP_HAVE_X86_INT8
    if (f && f->avx512vnni && f->avx512f && f->avx2 && f->fma) {
        out[n] = kernel_vnni;
        names[n++] = "int8-avx512vnni";
    }
    if (f && f->avx2 && f->fma) {
        out[n] = kernel_avx2;
        names[n++] = "int8-avx2";
    }
#else
    (void)f;
#endif
    out[n] = kernel_generic;
    names[n++] = "int8-generic";
    return n;
}

tp_int8_dot_fn tp_int8_dot_kernel_for(const tp_cpu_features *f, const char **name) {
    tp_int8_dot_fn k[3];
    const char *names[3];
    tp_int8_dot_kernels(f, k, names);
    if (name) *name = names[0];
    return k[0];
}
