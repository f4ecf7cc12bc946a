/* Built-in f32 GEMM kernels for the CPU calibration.
 *
 * Each kernel walks K in blocks of KB, packs a KB × NR panel of B contiguously
 * (zero-padded at the right edge) and runs a register-blocked MR × NR micro-kernel
 * over the rows: MR rows of A are broadcast and multiplied into NR columns held in
 * vector registers (fused multiply-add). The AVX-512 and AVX2 kernels are compiled
 * with function target attributes, so one binary carries all of them and the
 * calibration picks by the detected ISA; the generic kernel uses GCC vector
 * extensions only. Rows left over after the MR blocks take smaller blocks of the
 * same micro-kernel (MR = 4, 2, 1), so skinny products stay vectorised. */
#include "cost/gemm_kernels.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/mem.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TP_HAVE_X86_KERNELS 1
#include <immintrin.h>
#endif

/* K block (a KB × NR panel of B stays in L1) and row block (an MC × KB block of A
 * stays in L2 while every column panel passes over it); MC is a multiple of both
 * kernels' row blocks (8 and 6). */
enum { KB = 256, MC = 96, PACK_MIN_ROWS = 2 * MC };

/* Columns of a micro-kernel's register block (its packed panels' width), per ISA. */
enum { NR_AVX512 = 32, NR_AVX2 = 16 };

static void zero_rows(const tp_gemm_job *j, uint32_t r0, uint32_t r1) {
    for (uint32_t i = r0; i < r1; i++)
        memset(j->c + (size_t)i * j->n, 0, sizeof(float) * j->n);
}

/* pack[p][0..nr) = B[p0 + p][c0 .. c0 + w), zero beyond w */
static void pack_panel(const tp_gemm_job *j, uint32_t p0, uint32_t kc, uint32_t c0, uint32_t w,
                       uint32_t nr, float *pack) {
    for (uint32_t p = 0; p < kc; p++) {
        float *dst = pack + (size_t)p * nr;
        memcpy(dst, j->b + (size_t)(p0 + p) * j->n + c0, sizeof(float) * w);
        if (w < nr) memset(dst + w, 0, sizeof(float) * (nr - w));
    }
}

/* The whole kc × n block of B as panels of NR columns: panel q at q·KB·NR. */
static void pack_block(const tp_gemm_job *j, uint32_t p0, uint32_t kc, uint32_t nr, float *pack) {
    for (uint32_t c0 = 0, q = 0; c0 < j->n; c0 += nr, q++)
        pack_panel(j, p0, kc, c0, j->n - c0 < nr ? j->n - c0 : nr, nr, pack + (size_t)q * KB * nr);
}

/* A 64-byte aligned buffer for pack_block (NULL when out of memory); *raw and
 * *bytes are what pack_release needs. */
static float *pack_acquire(uint32_t n, uint32_t nr, void **raw, size_t *bytes) {
    size_t panels = ((size_t)n + nr - 1) / nr;
    *bytes = panels * KB * nr * sizeof(float) + 64;
    *raw = tp_mem_alloc(NULL, *bytes);
    if (!*raw) return NULL;
    uintptr_t u = ((uintptr_t)*raw + 63) & ~(uintptr_t)63;
    return (float *)u;
}

/* ---------------------------------------------------------------- generic */

typedef float v4f __attribute__((vector_size(16)));

/* C[rows r0..r1) = A · B with a register block of 4 rows × 8 columns. */
static void rows_generic(const tp_gemm_job *j, uint32_t r0, uint32_t r1) {
    const uint32_t n = j->n, k = j->k;
    zero_rows(j, r0, r1);
    for (uint32_t p0 = 0; p0 < k; p0 += KB) {
        uint32_t p1 = p0 + KB < k ? p0 + KB : k;
        uint32_t i = r0;
        for (; i + 4 <= r1; i += 4) {
            uint32_t jj = 0;
            for (; jj + 8 <= n; jj += 8) {
                v4f acc[4][2];
                memset(acc, 0, sizeof acc);
                for (uint32_t p = p0; p < p1; p++) {
                    v4f b0, b1;
                    memcpy(&b0, j->b + (size_t)p * n + jj, sizeof b0);
                    memcpy(&b1, j->b + (size_t)p * n + jj + 4, sizeof b1);
                    for (int r = 0; r < 4; r++) {
                        float av = j->a[(size_t)(i + (uint32_t)r) * k + p];
                        v4f a4 = {av, av, av, av};
                        acc[r][0] += a4 * b0;
                        acc[r][1] += a4 * b1;
                    }
                }
                for (int r = 0; r < 4; r++) {
                    float *cr = j->c + (size_t)(i + (uint32_t)r) * n + jj;
                    for (int q = 0; q < 4; q++) {
                        cr[q] += acc[r][0][q];
                        cr[q + 4] += acc[r][1][q];
                    }
                }
            }
            for (; jj < n; jj++)
                for (uint32_t r = 0; r < 4; r++) {
                    float s = 0;
                    for (uint32_t p = p0; p < p1; p++)
                        s += j->a[(size_t)(i + r) * k + p] * j->b[(size_t)p * n + jj];
                    j->c[(size_t)(i + r) * n + jj] += s;
                }
        }
        for (; i < r1; i++)
            for (uint32_t p = p0; p < p1; p++) {
                float av = j->a[(size_t)i * k + p];
                for (uint32_t q = 0; q < n; q++)
                    j->c[(size_t)i * n + q] += av * j->b[(size_t)p * n + q];
            }
    }
}

#ifdef TP_HAVE_X86_KERNELS

/* The driver around a micro-kernel. With many rows (>= PACK_MIN_ROWS) it packs each
 * K block of B once and, for every MC-row block of A and every NR-column panel, runs
 * the micro-kernel on MR rows at a time, then on 4, 2 and 1 leftover rows. With few
 * rows (skinny products: a decode step's GEMV) packing all of B would cost more than
 * the product, so the micro-kernel reads B in place (row stride n) and only a ragged
 * last panel is copied, zero-padded, to a small buffer. Out of memory for the packed
 * block falls back to the direct path, which needs no heap. */
#define TP_GEMM_ROWS_OF(MICRO, MR, A, PANEL, LDB, C)                                               \
    do {                                                                                           \
        uint32_t i = i0;                                                                           \
        for (; i + MR <= i1; i += MR)                                                              \
            MICRO(A + (size_t)i * k, k, PANEL, LDB, kc, C + (size_t)i * n, n, w, MR);              \
        for (; i + 4 <= i1; i += 4)                                                                \
            MICRO(A + (size_t)i * k, k, PANEL, LDB, kc, C + (size_t)i * n, n, w, 4);               \
        for (; i + 2 <= i1; i += 2)                                                                \
            MICRO(A + (size_t)i * k, k, PANEL, LDB, kc, C + (size_t)i * n, n, w, 2);               \
        for (; i < i1; i++)                                                                        \
            MICRO(A + (size_t)i * k, k, PANEL, LDB, kc, C + (size_t)i * n, n, w, 1);               \
    } while (0)

#define TP_GEMM_DRIVER(NAME, TARGET, MICRO, NR, MR)                                                \
    static TARGET void NAME(const tp_gemm_job *j, uint32_t r0, uint32_t r1) {                      \
        const uint32_t n = j->n, k = j->k;                                                         \
        void *raw = NULL;                                                                          \
        size_t bytes = 0;                                                                          \
        bool many = r1 - r0 >= PACK_MIN_ROWS;                                                      \
        const float *pre = many ? j->packed_b : NULL;                                              \
        float *own = many && !pre ? pack_acquire(n, NR, &raw, &bytes) : NULL;                      \
        size_t block = (((size_t)n + NR - 1) / NR) * KB * NR;                                      \
        float edge[KB * NR] __attribute__((aligned(64)));                                          \
        zero_rows(j, r0, r1);                                                                      \
        for (uint32_t p0 = 0; p0 < k; p0 += KB) {                                                  \
            uint32_t kc = k - p0 < KB ? k - p0 : KB;                                               \
            if (own) pack_block(j, p0, kc, NR, own);                                               \
            const float *pack = pre ? pre + (size_t)(p0 / KB) * block : own;                       \
            for (uint32_t i0 = r0; i0 < r1; i0 += MC) {                                            \
                uint32_t i1 = r1 - i0 < MC ? r1 : i0 + MC;                                         \
                for (uint32_t c0 = 0; c0 < n; c0 += NR) {                                          \
                    uint32_t w = n - c0 < NR ? n - c0 : NR;                                        \
                    const float *a = j->a + p0;                                                    \
                    float *c = j->c + c0;                                                          \
                    if (pack) {                                                                    \
                        const float *panel = pack + (size_t)(c0 / NR) * KB * NR;                   \
                        TP_GEMM_ROWS_OF(MICRO, MR, a, panel, NR, c);                               \
                    } else if (w < NR) {                                                           \
                        pack_panel(j, p0, kc, c0, w, NR, edge);                                    \
                        TP_GEMM_ROWS_OF(MICRO, MR, a, edge, NR, c);                                \
                    } else {                                                                       \
                        const float *bp = j->b + (size_t)p0 * n + c0;                              \
                        TP_GEMM_ROWS_OF(MICRO, MR, a, bp, n, c);                                   \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        if (raw) tp_mem_free(NULL, raw, bytes);                                                    \
    }

/* Add an MR × NR tile held in `tile` to C, only the first w columns. */
static void add_tile(float *c, uint32_t ldc, const float *tile, uint32_t mr, uint32_t nr,
                     uint32_t w) {
    for (uint32_t r = 0; r < mr; r++)
        for (uint32_t q = 0; q < w; q++)
            c[(size_t)r * ldc + q] += tile[r * nr + q];
}

/* ---------------------------------------------------------------- AVX-512: 8 × 32 */

#define TP_AVX512 __attribute__((target("avx512f")))

static inline __attribute__((always_inline)) TP_AVX512 void
micro_avx512(const float *a, uint32_t lda, const float *pack, uint32_t ldb, uint32_t kc, float *c,
             uint32_t ldc, uint32_t w, const uint32_t MR) {
    __m512 acc[8][2];
    _Pragma("GCC unroll 8") for (uint32_t r = 0; r < MR; r++) acc[r][0] = acc[r][1] =
        _mm512_setzero_ps();
    for (uint32_t p = 0; p < kc; p++) {
        __m512 b0 = _mm512_loadu_ps(pack + (size_t)p * ldb);
        __m512 b1 = _mm512_loadu_ps(pack + (size_t)p * ldb + 16);
        _Pragma("GCC unroll 8") for (uint32_t r = 0; r < MR; r++) {
            __m512 av = _mm512_set1_ps(a[(size_t)r * lda + p]);
            acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
            acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
        }
    }
    if (w == 32) {
        _Pragma("GCC unroll 8") for (uint32_t r = 0; r < MR; r++) {
            float *cr = c + (size_t)r * ldc;
            _mm512_storeu_ps(cr, _mm512_add_ps(_mm512_loadu_ps(cr), acc[r][0]));
            _mm512_storeu_ps(cr + 16, _mm512_add_ps(_mm512_loadu_ps(cr + 16), acc[r][1]));
        }
        return;
    }
    float tile[8 * 32] __attribute__((aligned(64)));
    _Pragma("GCC unroll 8") for (uint32_t r = 0; r < MR; r++) {
        _mm512_store_ps(tile + r * 32, acc[r][0]);
        _mm512_store_ps(tile + r * 32 + 16, acc[r][1]);
    }
    add_tile(c, ldc, tile, MR, 32, w);
}

TP_GEMM_DRIVER(rows_avx512, TP_AVX512, micro_avx512, NR_AVX512, 8)

/* ---------------------------------------------------------------- AVX2 + FMA: 6 × 16 */

#define TP_AVX2 __attribute__((target("avx2,fma")))

static inline __attribute__((always_inline)) TP_AVX2 void
micro_avx2(const float *a, uint32_t lda, const float *pack, uint32_t ldb, uint32_t kc, float *c,
           uint32_t ldc, uint32_t w, const uint32_t MR) {
    __m256 acc[6][2];
    _Pragma("GCC unroll 8") for (uint32_t r = 0; r < MR; r++) acc[r][0] = acc[r][1] =
        _mm256_setzero_ps();
    for (uint32_t p = 0; p < kc; p++) {
        __m256 b0 = _mm256_loadu_ps(pack + (size_t)p * ldb);
        __m256 b1 = _mm256_loadu_ps(pack + (size_t)p * ldb + 8);
        _Pragma("GCC unroll 8") for (uint32_t r = 0; r < MR; r++) {
            __m256 av = _mm256_broadcast_ss(a + (size_t)r * lda + p);
            acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
        }
    }
    if (w == 16) {
        _Pragma("GCC unroll 8") for (uint32_t r = 0; r < MR; r++) {
            float *cr = c + (size_t)r * ldc;
            _mm256_storeu_ps(cr, _mm256_add_ps(_mm256_loadu_ps(cr), acc[r][0]));
            _mm256_storeu_ps(cr + 8, _mm256_add_ps(_mm256_loadu_ps(cr + 8), acc[r][1]));
        }
        return;
    }
    float tile[6 * 16] __attribute__((aligned(32)));
    _Pragma("GCC unroll 8") for (uint32_t r = 0; r < MR; r++) {
        _mm256_store_ps(tile + r * 16, acc[r][0]);
        _mm256_store_ps(tile + r * 16 + 8, acc[r][1]);
    }
    add_tile(c, ldc, tile, MR, 16, w);
}

TP_GEMM_DRIVER(rows_avx2, TP_AVX2, micro_avx2, NR_AVX2, 6)

#endif /* TP_HAVE_X86_KERNELS */

/* The NR of the kernel of `isa`, 0 for the generic kernel (it reads B in place). */
static uint32_t kernel_nr(tp_cpu_isa isa) {
#ifdef TP_HAVE_X86_KERNELS
    if (isa == TP_CPU_ISA_AVX512) return NR_AVX512;
    if (isa == TP_CPU_ISA_AVX2) return NR_AVX2;
#else
    (void)isa;
#endif
    return 0;
}

size_t tp_gemm_packed_floats(tp_cpu_isa isa, uint32_t k, uint32_t n) {
    uint32_t nr = kernel_nr(isa);
    if (nr == 0) return 0;
    size_t blocks = ((size_t)k + KB - 1) / KB, panels = ((size_t)n + nr - 1) / nr;
    return blocks * panels * KB * nr;
}

void tp_gemm_pack_b(tp_cpu_isa isa, const tp_gemm_job *j, float *out) {
    uint32_t nr = kernel_nr(isa);
    if (nr == 0) return;
    size_t block = (((size_t)j->n + nr - 1) / nr) * KB * nr;
    for (uint32_t p0 = 0; p0 < j->k; p0 += KB)
        pack_block(j, p0, j->k - p0 < KB ? j->k - p0 : KB, nr, out + (size_t)(p0 / KB) * block);
}

tp_gemm_rows_fn tp_gemm_kernel_for(tp_cpu_isa isa, const char **name) {
    const char *nm = "builtin-generic";
    tp_gemm_rows_fn fn = rows_generic;
#ifdef TP_HAVE_X86_KERNELS
    if (isa == TP_CPU_ISA_AVX512) {
        nm = "builtin-avx512";
        fn = rows_avx512;
    } else if (isa == TP_CPU_ISA_AVX2) {
        nm = "builtin-avx2";
        fn = rows_avx2;
    }
#else
    (void)isa;
#endif
    if (name) *name = nm;
    return fn;
}
