/* The GELU micro-benchmark's kernel (calib_gelu.h). The error function is this file's own: odd
 * Taylor terms of erf for small |x| and 1 - exp(-q(|x|)) with a fitted-shape polynomial q for
 * large |x| (a rough shape, within 0.1 of erf: what is timed is the operation mix, and
 * test_calibrate checks the result against erf), with the operation mix of
 * onnxruntime's MLAS erf (read, not copied): a 6-term and an 8-term Horner chain, an exp by range
 * reduction and a 7-term polynomial, a power of two built in the exponent bits, both branches on
 * every lane and a select. */
#include "cost/calib_gelu.h"

#include <string.h>

#include "cost/cpu_pool.h"

_Static_assert(TP_GELU_CHUNK % 16 == 0, "whole vectors of 16 lanes per chunk");

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TP_HAVE_X86_GELU 1
#include <immintrin.h>
#endif

/* Small branch: erf(x) = x (c0 + c1 x² + ... + c5 x¹⁰), the Taylor series' first six terms
   (2/sqrt(pi) times 1, -1/3, 1/10, -1/42, 1/216, -1/1320). */
static const float SMALL[6] = {1.1283792f,    -0.37612638f,  0.11283792f,
                               -0.026866171f, 0.0052239775f, -0.00085483270f};
/* Large branch: erf(x) = 1 - exp(-q(x)), q a polynomial in x (q(x) ~ x² + 0.6x at large x). */
static const float BIG[8] = {0.0f, 0.0f, 0.0f, -0.003f, 0.02f, 0.9f, 0.62f, 0.0f};
#define GELU_SPLIT 0.92f  /* |x| above it: the large branch */
#define GELU_ABS_MAX 3.9f /* erf is 1 in float beyond it */
/* exp(t) = 2^n · p(f), n = round(t / ln 2), f = t - n ln 2 (split in a high and a low part) */
static const float EXP_P[7] = {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24,
                               1.0f / 6,    0.5f,       1.0f};
#define LN2_HI 0.693145752f
#define LN2_LO 1.42860677e-6f
#define LOG2E 1.44269504f
#define ROUND_C 12582912.0f /* 1.5 · 2^23: adding it rounds to an integer */

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

static v4f v4_set(float v) {
    return (v4f){v, v, v, v};
}

/* m ? a : b, lane by lane (m: all ones or zero per lane, a comparison's result) */
static v4f v4_sel(v4i m, v4f a, v4f b) {
    return (v4f)(((v4i)a & m) | ((v4i)b & ~m));
}

/* 4 lanes in vector arithmetic (a multiply and an add where MLAS's generic kernel has them);
   n: a multiple of 16. */
static void erf_v4(float *y, size_t n) {
    for (size_t i = 0; i < n; i += 4) {
        v4f v;
        memcpy(&v, y + i, sizeof v);
        v4i neg = v < 0;
        v4f a = v4_sel(neg, -v, v);
        a = v4_sel(a < GELU_ABS_MAX, a, v4_set(GELU_ABS_MAX));
        v4f s = a * a, p = v4_set(SMALL[5]);
        for (int k = 4; k >= 0; k--)
            p = p * s + SMALL[k];
        p = p * a;
        v4f q = v4_set(BIG[0]);
        for (int k = 1; k < 8; k++)
            q = q * a + BIG[k];
        v4f t = -(q * a);
        v4f nn = (t * LOG2E + ROUND_C) - ROUND_C;
        v4f f = t - nn * LN2_HI - nn * LN2_LO, e = v4_set(EXP_P[0]);
        for (int k = 1; k < 7; k++)
            e = e * f + EXP_P[k];
        e = e * f + 1.0f;
        v4i bits = (__builtin_convertvector(nn, v4i) + 127) << 23;
        v4f r = v4_sel(a > GELU_SPLIT, 1.0f - e * (v4f)bits, p);
        r = v4_sel(neg, -r, r);
        memcpy(y + i, &r, sizeof r);
    }
}

#ifdef TP_HAVE_X86_GELU
/* The two branches of erf at |x| = a (s = a²) in W-bit vectors (256 or 512): p, the small
   branch's value, and e and nn, the large branch's exp(-q(a)) as e · 2^nn. */
#define ERF_BRANCHES(W, a, s, p, e, nn)                                                            \
    __m##W p = _mm##W##_set1_ps(SMALL[5]);                                                         \
    for (int k_ = 4; k_ >= 0; k_--)                                                                \
        p = _mm##W##_fmadd_ps(p, s, _mm##W##_set1_ps(SMALL[k_]));                                  \
    p = _mm##W##_mul_ps(p, a);                                                                     \
    __m##W q_ = _mm##W##_set1_ps(BIG[0]);                                                          \
    for (int k_ = 1; k_ < 8; k_++)                                                                 \
        q_ = _mm##W##_fmadd_ps(q_, a, _mm##W##_set1_ps(BIG[k_]));                                  \
    __m##W t_ = _mm##W##_sub_ps(_mm##W##_setzero_ps(), _mm##W##_mul_ps(q_, a));                    \
    __m##W rc_ = _mm##W##_set1_ps(ROUND_C);                                                        \
    __m##W nn = _mm##W##_sub_ps(_mm##W##_fmadd_ps(t_, _mm##W##_set1_ps(LOG2E), rc_), rc_);         \
    __m##W f_ = _mm##W##_fnmadd_ps(nn, _mm##W##_set1_ps(LN2_HI), t_);                              \
    f_ = _mm##W##_fnmadd_ps(nn, _mm##W##_set1_ps(LN2_LO), f_);                                     \
    __m##W e = _mm##W##_set1_ps(EXP_P[0]);                                                         \
    for (int k_ = 1; k_ < 7; k_++)                                                                 \
        e = _mm##W##_fmadd_ps(e, f_, _mm##W##_set1_ps(EXP_P[k_]));                                 \
    e = _mm##W##_fmadd_ps(e, f_, _mm##W##_set1_ps(1.0f))

/* 8 lanes with fused multiply-adds, as MLAS's FMA3 erf kernel runs on x86-64. */
__attribute__((target("avx2,fma"))) static void erf_fma8(float *y, size_t n) {
    const __m256 neg0 = _mm256_set1_ps(-0.0f);
    for (size_t i = 0; i < n; i += 8) {
        __m256 v = _mm256_loadu_ps(y + i);
        __m256 sign = _mm256_and_ps(v, neg0);
        __m256 a = _mm256_min_ps(_mm256_andnot_ps(neg0, v), _mm256_set1_ps(GELU_ABS_MAX));
        __m256 s = _mm256_mul_ps(a, a);
        __m256 big = _mm256_cmp_ps(a, _mm256_set1_ps(GELU_SPLIT), _CMP_GT_OQ);
        ERF_BRANCHES(256, a, s, p, e, nn);
        __m256i bits =
            _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(nn), _mm256_set1_epi32(127)), 23);
        __m256 l = _mm256_fnmadd_ps(e, _mm256_castsi256_ps(bits), _mm256_set1_ps(1.0f));
        __m256 r = _mm256_or_ps(_mm256_blendv_ps(p, l, big), sign);
        _mm256_storeu_ps(y + i, r);
    }
}

/* 16 lanes, the whole GELU in one pass per vector (onnxruntime 1.30's AVX-512 Gelu kernel, seen
   in its machine code: zmm registers, vscalefps for the power of two, a masked select); the
   sign's bit operations in AVX-512 F's integer form (the float forms need AVX-512 DQ). */
__attribute__((target("avx512f"))) static void gelu_avx512(const float *restrict x,
                                                           float *restrict y, size_t n) {
    const __m512i sign_bit = _mm512_set1_epi32(INT32_MIN);
    const __m512 one = _mm512_set1_ps(1.0f);
    for (size_t i = 0; i < n; i += 16) {
        __m512 xv = _mm512_loadu_ps(x + i);
        __m512 v = _mm512_mul_ps(xv, _mm512_set1_ps(0.70710678f));
        __m512 a = _mm512_min_ps(_mm512_abs_ps(v), _mm512_set1_ps(GELU_ABS_MAX));
        __m512 s = _mm512_mul_ps(a, a);
        __mmask16 big = _mm512_cmp_ps_mask(a, _mm512_set1_ps(GELU_SPLIT), _CMP_GT_OQ);
        ERF_BRANCHES(512, a, s, p, e, nn);
        __m512 l = _mm512_sub_ps(one, _mm512_scalef_ps(e, nn));
        __m512i r = _mm512_castps_si512(_mm512_mask_blend_ps(big, p, l));
        r = _mm512_or_si512(r, _mm512_and_si512(_mm512_castps_si512(v), sign_bit));
        __m512 g = _mm512_mul_ps(_mm512_mul_ps(xv, _mm512_set1_ps(0.5f)),
                                 _mm512_add_ps(_mm512_castsi512_ps(r), one));
        _mm512_storeu_ps(y + i, g);
    }
}
#undef ERF_BRANCHES
#endif

tp_gelu_kernel tp_gelu_kernel_for(const tp_cpu_features *feat) {
#ifdef TP_HAVE_X86_GELU
    if (feat->avx512f) return TP_GELU_AVX512;
    if (feat->avx2 && feat->fma) return TP_GELU_FMA8;
#else
    (void)feat;
#endif
    return TP_GELU_V4;
}

/* erf of y in place on the 8-lane FMA kernel or the 4-lane one (k: not TP_GELU_AVX512) */
static void erf_in_place(float *y, size_t n, tp_gelu_kernel k) {
#ifdef TP_HAVE_X86_GELU
    if (k == TP_GELU_FMA8) {
        erf_fma8(y, n);
        return;
    }
#else
    (void)k;
#endif
    erf_v4(y, n);
}

static void gelu_chunk(const float *restrict x, float *restrict y, size_t n, tp_gelu_kernel k) {
#ifdef TP_HAVE_X86_GELU
    if (k == TP_GELU_AVX512) {
        gelu_avx512(x, y, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] * 0.70710678f;
    erf_in_place(y, n, k);
    for (size_t i = 0; i < n; i++)
        y[i] = 0.5f * x[i] * (y[i] + 1.0f);
}

tp_gelu_kernel tp_bias_gelu_kernel_for(const tp_cpu_features *feat) {
    tp_gelu_kernel k = tp_gelu_kernel_for(feat);
#ifdef TP_HAVE_X86_GELU
    if (k == TP_GELU_AVX512 && feat->avx2 && feat->fma) return TP_GELU_FMA8;
#endif
    return k == TP_GELU_AVX512 ? TP_GELU_V4 : k;
}

/* One row of BiasGelu: n elements, n a multiple of 8. */
static void bias_gelu_row(const float *restrict x, const float *restrict b, float *restrict t,
                          float *restrict y, size_t n, tp_gelu_kernel k) {
    for (size_t i = 0; i < n; i++) {
        float v = x[i] + b[i];
        y[i] = v * 0.70710678f;
        t[i] = v * 0.5f;
    }
    erf_in_place(y, n, k);
    for (size_t i = 0; i < n; i++)
        y[i] = t[i] * (y[i] + 1.0f);
}

void tp_gelu_part(void *ctx, uint32_t part, uint32_t parts) {
    const tp_gelu_job *j = ctx;
    if (j->bias) {
        uint32_t rows = (uint32_t)(j->n / j->bias_len);
        uint32_t r0 = tp_pool_first(rows, part, parts), r1 = tp_pool_first(rows, part + 1, parts);
        for (uint32_t r = r0; r < r1; r++) {
            size_t o = (size_t)r * j->bias_len;
            bias_gelu_row(j->x + o, j->bias, j->temp + o, j->y + o, j->bias_len, j->kernel);
        }
        return;
    }
    uint32_t chunks = (uint32_t)(j->n / TP_GELU_CHUNK);
    uint32_t c0 = tp_pool_first(chunks, part, parts), c1 = tp_pool_first(chunks, part + 1, parts);
    for (uint32_t c = c0; c < c1; c++) {
        size_t o = (size_t)c * TP_GELU_CHUNK;
        gelu_chunk(j->x + o, j->y + o, TP_GELU_CHUNK, j->kernel);
    }
}
