/* Per-op-class micro-benchmarks of the CPU calibration: depthwise convolution and bilinear
 * resize, the classes whose CPU cost follows neither the GEMM curve nor the STREAM triad
 * (docs/cost.md, "Op classes"). Each takes a few milliseconds. */
#include "cost/calib_ops.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/mem.h"
#include "cost/gemm_kernels.h"
#include "cost/amx_dot.h"
#include "cost/calib_gelu.h"
#include "cost/calib_prelu.h"
#include "cost/calib_transpose.h"
#include "cost/int8_dot.h"
#include "cost/qgemm_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TP_HAVE_X86_DW 1
#include <immintrin.h>
#endif

/* Depthwise problem: CB blocks of 16 channels, an (H + 2) × (W + 2) padded input plane per
   block, 3×3 filter, stride 1: the layout onnxruntime's NCHWc depthwise kernel runs. 64
   channels at 56 × 56: 0.8 MiB in, 0.8 MiB out (a mobilenet block). */
enum { DW_CB = 4, DW_H = 56, DW_W = 56, DW_PH = DW_H + 2, DW_PW = DW_W + 2, DW_LANES = 16 };
_Static_assert((DW_CB * DW_PH * DW_PW * DW_LANES) % 16 == 0 && (DW_CB * 9 * DW_LANES) % 16 == 0,
               "input, filter and output start on 64-byte boundaries");
/* Resize problem: 2× bilinear upsampling of 32 channels of 48 × 48 (0.3 MiB in, 1.2 out). */
enum { RS_C = 32, RS_H = 48, RS_W = 48 };

typedef struct dw_job {
    const float *x, *w;
    float *y;
} dw_job;

typedef void (*dw_rows_fn)(const dw_job *j, uint32_t r0, uint32_t r1);

typedef float v16f __attribute__((vector_size(64)));

/* y[cb][r][c][:] = Σ_{dy,dx} x[cb][r+dy][c+dx][:] · w[cb][dy][dx][:] for rows r0..r1, DW_COLS
   (4) output pixels at a time: independent accumulators, as a runtime's depthwise kernel keeps (one
   accumulator per pixel makes nine dependent multiply-adds a chain that runs at the FMA latency,
   half onnxruntime's rate: 25.7 against 55-59 GFLOP/s on mobilenet_v2's 28×28 and 14×14 blocks
   at one thread, 2026-11-26) */
enum { DW_COLS = 4 };
_Static_assert(DW_COLS == 4 && DW_W % DW_COLS == 0, "four accumulators, whole groups per row");
static void dw_rows_generic(const dw_job *j, uint32_t r0, uint32_t r1) {
    for (uint32_t cb = 0; cb < DW_CB; cb++) {
        const float *x = j->x + (size_t)cb * DW_PH * DW_PW * DW_LANES;
        const float *w = j->w + (size_t)cb * 9 * DW_LANES;
        float *y = j->y + (size_t)cb * DW_H * DW_W * DW_LANES;
        v16f k[9];
        memcpy(k, w, sizeof k);
        for (uint32_t r = r0; r < r1; r++)
            for (uint32_t c = 0; c < DW_W; c += DW_COLS) {
                v16f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, v;
                for (uint32_t t = 0; t < 9; t++) {
                    const float *p = x + ((size_t)(r + t / 3) * DW_PW + c + t % 3) * DW_LANES;
                    memcpy(&v, p, sizeof v);
                    a0 += v * k[t];
                    memcpy(&v, p + DW_LANES, sizeof v);
                    a1 += v * k[t];
                    memcpy(&v, p + 2 * DW_LANES, sizeof v);
                    a2 += v * k[t];
                    memcpy(&v, p + 3 * DW_LANES, sizeof v);
                    a3 += v * k[t];
                }
                float *o = y + ((size_t)r * DW_W + c) * DW_LANES;
                memcpy(o, &a0, sizeof a0);
                memcpy(o + DW_LANES, &a1, sizeof a1);
                memcpy(o + 2 * DW_LANES, &a2, sizeof a2);
                memcpy(o + 3 * DW_LANES, &a3, sizeof a3);
            }
    }
}

#ifdef TP_HAVE_X86_DW
/* The nine taps written out: with a loop over them the compiler kept the filter on the stack
   and divided by 3 at every tap (32-42 GFLOP/s where the same arithmetic unrolled runs 79-83) */
#define DW_TAPS(TAP) TAP(0) TAP(1) TAP(2) TAP(3) TAP(4) TAP(5) TAP(6) TAP(7) TAP(8)
/* Tap t into the four accumulators a0..a3 of pixels c..c+3 of row r, lanes `off` on (the same
   for both ISAs: FMA and LOAD name their intrinsics) */
#define DW_TAP(t, FMA, LOAD, off)                                                                  \
    {                                                                                              \
        const float *p = x + ((size_t)(r + (t) / 3) * DW_PW + c + (t) % 3) * DW_LANES + (off);     \
        a0 = FMA(LOAD(p), k[t], a0);                                                               \
        a1 = FMA(LOAD(p + DW_LANES), k[t], a1);                                                    \
        a2 = FMA(LOAD(p + 2 * DW_LANES), k[t], a2);                                                \
        a3 = FMA(LOAD(p + 3 * DW_LANES), k[t], a3);                                                \
    }

__attribute__((target("avx512f"))) static void dw_rows_avx512(const dw_job *j, uint32_t r0,
                                                              uint32_t r1) {
    for (uint32_t cb = 0; cb < DW_CB; cb++) {
        const float *x = j->x + (size_t)cb * DW_PH * DW_PW * DW_LANES;
        const float *w = j->w + (size_t)cb * 9 * DW_LANES;
        float *y = j->y + (size_t)cb * DW_H * DW_W * DW_LANES;
        __m512 k[9];
        for (int t = 0; t < 9; t++)
            k[t] = _mm512_loadu_ps(w + t * DW_LANES);
        for (uint32_t r = r0; r < r1; r++)
            for (uint32_t c = 0; c < DW_W; c += DW_COLS) {
                __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
#define DW_TAP512(t) DW_TAP(t, _mm512_fmadd_ps, _mm512_loadu_ps, 0)
                DW_TAPS(DW_TAP512)
#undef DW_TAP512
                float *o = y + ((size_t)r * DW_W + c) * DW_LANES;
                _mm512_storeu_ps(o, a0);
                _mm512_storeu_ps(o + DW_LANES, a1);
                _mm512_storeu_ps(o + 2 * DW_LANES, a2);
                _mm512_storeu_ps(o + 3 * DW_LANES, a3);
            }
    }
}

__attribute__((target("avx2,fma"))) static void dw_rows_avx2(const dw_job *j, uint32_t r0,
                                                             uint32_t r1) {
    for (uint32_t cb = 0; cb < DW_CB; cb++) {
        const float *x = j->x + (size_t)cb * DW_PH * DW_PW * DW_LANES;
        const float *w = j->w + (size_t)cb * 9 * DW_LANES;
        float *y = j->y + (size_t)cb * DW_H * DW_W * DW_LANES;
        for (uint32_t h = 0; h < 2; h++) {
            __m256 k[9];
            for (int t = 0; t < 9; t++)
                k[t] = _mm256_loadu_ps(w + t * DW_LANES + h * 8);
            for (uint32_t r = r0; r < r1; r++)
                for (uint32_t c = 0; c < DW_W; c += DW_COLS) {
                    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
#define DW_TAP256(t) DW_TAP(t, _mm256_fmadd_ps, _mm256_loadu_ps, h * 8)
                    DW_TAPS(DW_TAP256)
#undef DW_TAP256
                    float *o = y + ((size_t)r * DW_W + c) * DW_LANES + h * 8;
                    _mm256_storeu_ps(o, a0);
                    _mm256_storeu_ps(o + DW_LANES, a1);
                    _mm256_storeu_ps(o + 2 * DW_LANES, a2);
                    _mm256_storeu_ps(o + 3 * DW_LANES, a3);
                }
        }
    }
}
#undef DW_TAP
#undef DW_TAPS
#endif

static dw_rows_fn dw_kernel_for(tp_cpu_isa isa) {
#ifdef TP_HAVE_X86_DW
    if (isa == TP_CPU_ISA_AVX512) return dw_rows_avx512;
    if (isa == TP_CPU_ISA_AVX2) return dw_rows_avx2;
#else
    (void)isa;
#endif
    return dw_rows_generic;
}

typedef struct dw_run {
    dw_job job;
    dw_rows_fn rows;
} dw_run;

static void dw_part(void *ctx, uint32_t part, uint32_t parts) {
    const dw_run *d = ctx;
    uint32_t r0 = tp_pool_first(DW_H, part, parts), r1 = tp_pool_first(DW_H, part + 1, parts);
    if (r0 < r1) d->rows(&d->job, r0, r1);
}

/* Bilinear 2× upsampling (half-pixel centres, clamped edges), plain C as a runtime's
   generic resize kernel is: column indices and weights computed once, then per output
   element four reads and three interpolations. */
typedef struct rs_job {
    const float *x;
    float *y;
} rs_job;

static void rs_part(void *ctx, uint32_t part, uint32_t parts) {
    const rs_job *j = ctx;
    uint32_t c0 = tp_pool_first(RS_C, part, parts), c1 = tp_pool_first(RS_C, part + 1, parts);
    const uint32_t oh = 2 * RS_H, ow = 2 * RS_W;
    /* per output column: source columns and weight, computed once (as runtimes do) */
    uint32_t xs0[2 * RS_W], xs1[2 * RS_W];
    float wxs[2 * RS_W];
    for (uint32_t q = 0; q < ow; q++) {
        float fx = ((float)q + 0.5f) * 0.5f - 0.5f;
        if (fx < 0) fx = 0;
        xs0[q] = (uint32_t)fx;
        xs1[q] = xs0[q] + 1 < RS_W ? xs0[q] + 1 : RS_W - 1;
        wxs[q] = fx - (float)xs0[q];
    }
    for (uint32_t c = c0; c < c1; c++) {
        const float *x = j->x + (size_t)c * RS_H * RS_W;
        float *y = j->y + (size_t)c * oh * ow;
        for (uint32_t r = 0; r < oh; r++) {
            float fy = ((float)r + 0.5f) * 0.5f - 0.5f;
            if (fy < 0) fy = 0;
            uint32_t y0 = (uint32_t)fy, y1 = y0 + 1 < RS_H ? y0 + 1 : RS_H - 1;
            float wy = fy - (float)y0;
            const float *t = x + (size_t)y0 * RS_W, *u = x + (size_t)y1 * RS_W;
            for (uint32_t q = 0; q < ow; q++) {
                uint32_t x0 = xs0[q], x1 = xs1[q];
                float wx = wxs[q];
                float a = t[x0], b = t[x1], cc = u[x0], d = u[x1];
                float top = a + (b - a) * wx, bot = cc + (d - cc) * wx;
                y[(size_t)r * ow + q] = top + (bot - top) * wy;
            }
        }
    }
}

/* The expand pass of an expand-then-GEMM convolution, as MLAS's generic convolution runs it
   (convolve.cpp MlasConvOperation, MlasConvIm2Col; its SGEMM's packing of B; read, not copied):
   - im2col: the patches of a 3×3, stride 1, padding 1 convolution of IC_C channels of IC_H ×
     IC_W into a column buffer of (IC_C · 9) rows by IC_H · IC_W pixels: per row of the buffer and
     output row, the taps in the top or bottom padding zero-filled, the others copied as one run
     between the left and right padding, four floats at a time (128-bit loads and stores) and the
     rest one at a time;
   - then, as the GEMM takes the buffer in slices of IC_SLICE pixels by IC_SLICE rows, each slice
     packed into panels of 16 columns (every row's 16 floats in a row of the panel), which is
     what MLAS's SGEMM does to a B it was not given packed.
   Until session 25 the replica was the im2col alone, its runs a memcpy the compiler made
   `rep movsq` (3.1 GB/s, where the vector moves run at 11.8-19.1): that slow copy stood in for the
   packing by accident (docs/cost.md, "The expand pass"). */
enum { IC_C = 32, IC_H = 28, IC_W = 28, IC_SLICE = 128, IC_PANEL = 16 };

typedef float v4f __attribute__((vector_size(16)));

typedef struct ic_job {
    const float *x;
    float *cols, *packed; /* the column buffer; one packed slice per part */
} ic_job;

/* n floats from src to dst (unaligned), or zeros where src is NULL, as MLAS moves them. GCC would
   turn the loop back into a library call (loop distribution): not here. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
static void
ic_run(float *dst, const float *src, int n) {
    v4f zero = {0, 0, 0, 0}, v;
    for (; n >= 4; n -= 4, dst += 4) {
        if (src) {
            memcpy(&v, src, sizeof v);
            src += 4;
        } else {
            v = zero;
        }
        memcpy(dst, &v, sizeof v);
    }
    for (; n > 0; n--)
        *dst++ = src ? *src++ : 0.0f;
}

/* rows k0..k0+kc of columns n0..n0+nc (nc a multiple of the panel) of the column buffer into
   panels of IC_PANEL columns */
static void ic_pack(const float *cols, float *packed, uint32_t k0, uint32_t kc, uint32_t n0,
                    uint32_t nc) {
    const size_t ld = (size_t)IC_H * IC_W;
    for (uint32_t c = 0; c < nc; c += IC_PANEL)
        for (uint32_t k = 0; k < kc; k++, packed += IC_PANEL)
            ic_run(packed, cols + (size_t)(k0 + k) * ld + n0 + c, IC_PANEL);
}

static void ic_part(void *ctx, uint32_t part, uint32_t parts) {
    const ic_job *j = ctx;
    uint32_t c0 = tp_pool_first(IC_C, part, parts), c1 = tp_pool_first(IC_C, part + 1, parts);
    for (uint32_t c = c0; c < c1; c++) {
        const float *x = j->x + (size_t)c * IC_H * IC_W;
        for (int kh = 0; kh < 3; kh++)
            for (int kw = 0; kw < 3; kw++) {
                float *col = j->cols + ((size_t)c * 9 + (size_t)(kh * 3 + kw)) * IC_H * IC_W;
                int lo = kw == 0 ? 1 : 0, hi = kw == 2 ? IC_W - 1 : IC_W; /* copied columns */
                for (int oh = 0; oh < IC_H; oh++, col += IC_W) {
                    int ih = oh + kh - 1;
                    if (ih < 0 || ih >= IC_H) {
                        ic_run(col, NULL, IC_W);
                        continue;
                    }
                    if (lo) col[0] = 0;
                    ic_run(col + lo, x + (size_t)ih * IC_W + lo + kw - 1, hi - lo);
                    if (hi < IC_W) col[IC_W - 1] = 0;
                }
            }
    }
    /* this part's rows, slice by slice (the last pixels beyond whole panels left out) */
    float *packed = j->packed + (size_t)part * IC_SLICE * IC_SLICE;
    uint32_t k_end = c1 * 9, n_end = IC_H * IC_W / IC_PANEL * IC_PANEL;
    for (uint32_t n0 = 0; n0 < n_end; n0 += IC_SLICE)
        for (uint32_t k0 = c0 * 9; k0 < k_end; k0 += IC_SLICE)
            ic_pack(j->cols, packed, k0, k_end - k0 < IC_SLICE ? k_end - k0 : IC_SLICE, n0,
                    n_end - n0 < IC_SLICE ? n_end - n0 : IC_SLICE);
}

/* col2im of a transposed convolution: onnxruntime's ConvTranspose multiplies into a column
   buffer, then adds every column element into its output pixel (math_cpu.cc Col2im, read, not
   copied): one element at a time wherever the stride along the width is above 1 or there is
   padding (its three loops differ in their bounds checks, not in that). A 2×2, stride-2 transposed
   convolution of CT_C channels of CT_H × CT_W (the upsampling of a U-Net or a text detector:
   0.6 MiB of columns into 0.6 MiB of output), on the calling thread alone as onnxruntime runs it
   (its time did not fall at two threads: docs/cost.md, "Transposed convolutions"). The output
   is zeroed once, outside the timing (the runtime's zeroing is priced as a stream); the stride
   is read from the job, as onnxruntime reads it at run time, so that the compiler cannot
   specialise the loop for it. */
enum { CT_C = 16, CT_H = 48, CT_W = 48, CT_K = 2 };

typedef struct ct_job {
    const float *cols;
    float *out;
    int stride;
} ct_job;

static void ct_part(void *ctx, uint32_t part, uint32_t parts) {
    const ct_job *j = ctx;
    int s = j->stride, ow = (CT_W - 1) * s + CT_K, oh = (CT_H - 1) * s + CT_K;
    uint32_t c0 = tp_pool_first(CT_C, part, parts), c1 = tp_pool_first(CT_C, part + 1, parts);
    for (uint32_t c = c0; c < c1; c++)
        for (int kh = 0; kh < CT_K; kh++)
            for (int kw = 0; kw < CT_K; kw++) {
                const float *col =
                    j->cols + (((size_t)c * CT_K + (size_t)kh) * CT_K + (size_t)kw) * CT_H * CT_W;
                float *img = j->out + (size_t)c * (size_t)oh * (size_t)ow;
                for (int y = 0; y < CT_H; y++) {
                    float *row = img + (size_t)(y * s + kh) * (size_t)ow + (size_t)kw;
                    for (int x = 0; x < CT_W; x++)
                        row[(size_t)x * (size_t)s] += col[(size_t)y * CT_W + (size_t)x];
                }
            }
}

/* Weight stream of a few-row GEMM: WS_M rows of activations (hot) times a K × N weight stored
   as contiguous K × WS_NR panels, the layout a runtime pre-packs constant weights into. Over a
   cold set of panels (more than any last-level cache) every weight byte comes from memory once
   per pass; over a hot set (in the caches) the same products run from cache. The difference per
   byte is what streaming the weights adds to a GEMM's arithmetic (docs/cost.md, "Weights
   streamed from memory"). */
enum { WS_M = 16, WS_K = 768, WS_NR = 32, WS_COLD_MIB = 96, WS_HOT_PANELS = 8 };

typedef struct ws_job {
    const float *a, *panels;
    float *c; /* WS_M × WS_NR per part */
    uint32_t n_panels;
    tp_gemm_rows_fn rows;
} ws_job;

static void ws_part(void *ctx, uint32_t part, uint32_t parts) {
    const ws_job *j = ctx;
    uint32_t p0 = tp_pool_first(j->n_panels, part, parts),
             p1 = tp_pool_first(j->n_panels, part + 1, parts);
    float *c = j->c + (size_t)part * WS_M * WS_NR;
    for (uint32_t p = p0; p < p1; p++) {
        tp_gemm_job g = {j->a, j->panels + (size_t)p * WS_K * WS_NR, c, WS_M, WS_K, WS_NR, NULL};
        j->rows(&g, 0, WS_M);
    }
}

/* Row normalization (LayerNorm) over LN_ROWS rows of LN_COLS floats (384 KiB in, 384 KiB out:
   a transformer's hidden states), plain C as a runtime's generic kernel is: per row one pass
   that sums the values and their squares in order (a chain of dependent additions: without
   reassociation no compiler vectorizes it), then one pass that scales and shifts. */
enum { LN_ROWS = 128, LN_COLS = 768 };

typedef struct ln_job {
    const float *x, *gamma, *beta;
    float *y;
} ln_job;

/* One row; restrict: the second pass vectorizes, as a runtime's (compiled with alias checks) does
 */
static void ln_row(const float *restrict x, const float *restrict gamma, const float *restrict beta,
                   float *restrict y) {
    float sum = 0, sq = 0;
    for (uint32_t h = 0; h < LN_COLS; h++) {
        sum += x[h];
        sq += x[h] * x[h];
    }
    float mean = sum / LN_COLS, var = sq / LN_COLS - mean * mean;
    float sd = sqrtf(var > 0 ? var + 1e-5f : 1e-5f);
    for (uint32_t h = 0; h < LN_COLS; h++)
        y[h] = (x[h] - mean) / sd * gamma[h] + beta[h];
}

static void ln_part(void *ctx, uint32_t part, uint32_t parts) {
    const ln_job *j = ctx;
    uint32_t r0 = tp_pool_first(LN_ROWS, part, parts), r1 = tp_pool_first(LN_ROWS, part + 1, parts);
    for (uint32_t r = r0; r < r1; r++)
        ln_row(j->x + (size_t)r * LN_COLS, j->gamma, j->beta, j->y + (size_t)r * LN_COLS);
}

/* Residual add + row normalization as onnxruntime 1.30's SkipLayerNormalization runs it on a CPU
   (its float kernel, disassembled from the npm package's libonnxruntime.so: docs/cost.md,
   "SkipLayerNormalization"): per row one pass that adds the two addends, stores the sum and
   updates a running mean and variance after every element (Welford: the mean's subtract, divide
   and add wait on each other, a chain no compiler may break without reassociation), then one
   vectorized pass that normalizes. Over the LayerNorm benchmark's rows. */
typedef struct sn_job {
    const float *x, *skip, *gamma, *beta;
    float *y;
} sn_job;

static void sn_row(const float *restrict x, const float *restrict skip, const float *restrict gamma,
                   const float *restrict beta, float *restrict y) {
    float mean = 0, m2 = 0;
    for (uint32_t h = 0; h < LN_COLS; h++) {
        float v = x[h] + skip[h];
        y[h] = v;
        float delta = v - mean;
        mean += delta / (float)(h + 1);
        m2 += (v - mean) * delta;
    }
    float sd = sqrtf(m2 / LN_COLS + 1e-5f);
    for (uint32_t h = 0; h < LN_COLS; h++)
        y[h] = (y[h] - mean) / sd * gamma[h] + beta[h];
}

static void sn_part(void *ctx, uint32_t part, uint32_t parts) {
    const sn_job *j = ctx;
    uint32_t r0 = tp_pool_first(LN_ROWS, part, parts), r1 = tp_pool_first(LN_ROWS, part + 1, parts);
    for (uint32_t r = r0; r < r1; r++) {
        size_t o = (size_t)r * LN_COLS;
        sn_row(j->x + o, j->skip + o, j->gamma, j->beta, j->y + o);
    }
}

/* One thread: the thread's CPU time; several: the pool's busy time. */
static double op_clock(const tp_pool *pool) {
    return pool->n > 1 ? pool->busy_ns : tp_thread_cpu_ns();
}

/* Best rate (units per ns) over `trials` trials of at least min_ns each, on the pool's threads or
   (caller_only) on the calling thread alone, whatever the pool's size. */
static double op_bench(tp_pool *pool, bool caller_only, tp_pool_fn fn, void *ctx, double units,
                       int trials, double min_ns) {
    void (*run)(tp_pool *, tp_pool_fn, void *) = caller_only ? tp_pool_run_caller : tp_pool_run;
    double best = 0;
    run(pool, fn, ctx); /* first touch, warm caches */
    for (int t = 0; t < trials; t++) {
        uint64_t reps = 0;
        double t0 = op_clock(pool), el;
        do {
            run(pool, fn, ctx);
            reps++;
            el = op_clock(pool) - t0;
        } while (el < min_ns);
        double rate = units * (double)reps / el;
        if (rate > best) best = rate;
    }
    return best;
}

/* A pass of the pool's parts counts as streaming together when its wall clock is within this
   factor of its busy time: parts that ran one after the other (a vCPU descheduled, another
   process on a core) each had the memory to themselves, and their busy time says nothing of two
   streams at once. */
#define WS_TOGETHER 1.10

/* ns per weight byte, by op_clock, of `reps` runs of j over its n_panels: on the calling thread
   alone (!all) or on every part of the pool. *together: false when the pool's parts did not run
   at the same time (WS_TOGETHER); always true on one thread. */
static double ws_ns_per_byte(tp_pool *pool, bool all, ws_job *j, uint32_t reps, bool *together) {
    double t0 = op_clock(pool), w0 = tp_now_ns();
    for (uint32_t r = 0; r < reps; r++) {
        if (all)
            tp_pool_run(pool, ws_part, j);
        else
            tp_pool_run_caller(pool, ws_part, j);
    }
    double busy = op_clock(pool) - t0, wall = tp_now_ns() - w0;
    *together = !all || pool->n < 2 || wall <= WS_TOGETHER * busy;
    return busy / ((double)reps * j->n_panels * (double)WS_K * WS_NR * sizeof(float));
}

/* 1 / (cold ns per byte - hot ns per byte), best pass of each, the cold passes only where the
   parts streamed together; TP_STREAM_FREE_GBPS when the cold set is not slower; 0 when no cold
   pass counted. The hot set is WS_HOT_PANELS panels per part (each core's own caches). */
static double ws_rate(tp_pool *pool, bool all, ws_job *j, uint32_t n_cold, int passes) {
    uint32_t parts = all ? pool->n : 1;
    double cold = 0, hot = 0; /* best ns per weight byte */
    bool together;
    for (int t = 0; t < passes; t++) {
        j->n_panels = n_cold;
        double per = ws_ns_per_byte(pool, all, j, 1, &together);
        if (together && per > 0 && (cold == 0 || per < cold)) cold = per;
        /* the hot set, again and again (as many bytes as ~1/8 of a cold pass) */
        j->n_panels = WS_HOT_PANELS * parts < n_cold ? WS_HOT_PANELS * parts : n_cold;
        uint32_t reps = n_cold / j->n_panels / 8;
        per = ws_ns_per_byte(pool, all, j, reps ? reps : 1, &together);
        if (per > 0 && (hot == 0 || per < hot)) hot = per;
    }
    if (!(cold > 0 && hot > 0)) return 0;
    /* weights from memory at no measurable cost over cached ones: a rate that prices them at 0 */
    return cold > hot + 1e-6 ? 1.0 / (cold - hot) : TP_STREAM_FREE_GBPS;
}

/* Bytes per ns of weights that a few-row GEMM streams from memory on top of its arithmetic, with
   every thread of the pool streaming its share of the panels (ws_rate); 0 when it could not be
   measured (out of memory). With several threads, only passes whose threads streamed together
   count; where none did, the calling thread's rate stands in (the slower, safer figure).
   Session 20's host (Intel Xeon, 2 vCPU): onnxruntime ran the few-row probes probe_sk8 / sk16 /
   sk64 and the GEMV probe_mv768 1.7-2.2x faster per node at 2 threads than at 1, where the
   session-7 host (AMD EPYC) gained 1.0-1.2x (docs/cost.md, "Weights streamed from memory"). */
static double measure_weight_stream(tp_pool *pool, tp_cpu_isa isa, bool quick) {
    const char *kname = NULL;
    size_t panel = (size_t)WS_K * WS_NR;
    uint32_t n_cold = (uint32_t)(((size_t)WS_COLD_MIB << 20) / (panel * sizeof(float)));
    size_t floats =
        (size_t)n_cold * panel + (size_t)WS_M * WS_K + (size_t)TP_POOL_MAX_THREADS * WS_M * WS_NR;
    float *buf = tp_mem_alloc(NULL, floats * sizeof(float));
    if (!buf) return 0;
    for (size_t i = 0; i < floats; i++) /* values do not matter, only that pages exist */
        buf[i] = 0.25f;
    ws_job j = {buf + (size_t)n_cold * panel, buf, buf + (size_t)n_cold * panel + WS_M * WS_K,
                n_cold, tp_gemm_kernel_for(isa, &kname)};
    int passes = quick ? 2 : 6;
    tp_pool_run(pool, ws_part, &j); /* first touch */
    double rate = 0;
    if (pool->n > 1) rate = ws_rate(pool, true, &j, n_cold, 2 * passes);
    if (rate == 0) rate = ws_rate(pool, false, &j, n_cold, passes);
    tp_mem_free(NULL, buf, floats * sizeof(float));
    return rate;
}

/* What a denormal operand costs (docs/cost.md, "Denormal attention masks"): the calibration's
   GEMM kernel, DN_M rows of A by a K x DN_N panel in the caches, once with every other element of
   A a denormal number (an attention's masked probabilities) and once with normal ones. The extra
   time per vector multiply-add that broadcast a denormal (each meets ceil(DN_N / lanes) of them);
   0 when the denormal run is not measurably slower (a CPU that handles them in hardware). On the
   calling thread, in the process's floating-point mode (not flush-to-zero: onnxruntime's default).
 */
enum { DN_M = 16, DN_K = 512, DN_N = 32 };

typedef struct dn_job {
    tp_gemm_job g;
    tp_gemm_rows_fn rows;
} dn_job;

static void dn_part(void *ctx, uint32_t part, uint32_t parts) {
    const dn_job *j = ctx;
    if (part == 0 && parts > 0) j->rows(&j->g, 0, DN_M);
}

static double measure_denormal(tp_pool *pool, tp_cpu_isa isa, int trials, double min_ns) {
    const char *kname = NULL;
    size_t na = (size_t)DN_M * DN_K, nb = (size_t)DN_K * DN_N, nc = (size_t)DN_M * DN_N;
    size_t np = tp_gemm_packed_floats(isa, DN_K, DN_N);
    size_t floats = na + nb + nc + np + 16;
    float *buf = tp_mem_alloc(NULL, floats * sizeof(float));
    if (!buf) return 0;
    float *a = buf, *b = a + na, *c = b + nb;
    float *packed = np ? tp_mem_align64(c + nc) : NULL;
    for (size_t i = 0; i < nb; i++)
        b[i] = 0.25f + 0.001f * (float)(i % 7);
    dn_job j = {{a, b, c, DN_M, DN_K, DN_N, NULL}, tp_gemm_kernel_for(isa, &kname)};
    if (packed) {
        tp_gemm_pack_b(isa, &j.g, packed);
        j.g.packed_b = packed;
    }
    /* a denormal, made at run time (FLT_MIN / 4096): nothing may fold it */
    volatile float tiny_scale = 1.0f / 4096.0f;
    float tiny = 1.17549435e-38f * tiny_scale;
    double per_call[2]; /* normal, denormal: ns per call */
    for (int den = 0; den < 2; den++) {
        for (size_t i = 0; i < na; i++) /* element 0 of each row normal: the sums stay normal */
            a[i] = den && (i % 2) ? tiny : 1.0f - 0.001f * (float)(i % 5);
        double calls_per_ns = op_bench(pool, true, dn_part, &j, 1.0, trials, min_ns);
        per_call[den] = calls_per_ns > 0 ? 1.0 / calls_per_ns : 0;
    }
    tp_mem_free(NULL, buf, floats * sizeof(float));
    uint32_t lanes = tp_cpu_isa_floats(isa);
    double vectors = (double)((DN_N + lanes - 1) / lanes) * (double)(na / 2);
    if (!(per_call[0] > 0) || !(per_call[1] > per_call[0] * 1.05)) return 0;
    return (per_call[1] - per_call[0]) / vectors;
}

/* The 8-bit integer GEMMs against the float32 one: one shape (256³: A, B and C in L2), B packed
   once as a runtime pre-packs its weights, on the calling thread alone whatever the pool's size
   (a ratio of one core's instruction throughputs: at two threads the pool's fork and join and the
   host's noise moved it from 1.94 to 2.51 here, and the two-thread prices of resnet50_qdq and
   yolo_like_qdq fell 34-39 % under onnxruntime's; docs/cost.md, "Integer matrix products"). The
   three run in turn within each trial, so that a slow window of the host costs all of them a
   trial rather than one of them every trial; each keeps its best. */
enum { QG_D = 256 };

typedef struct qg_run {
    tp_qgemm_job q;
    tp_qgemm_rows_fn fn;
    tp_gemm_job f;
    tp_gemm_rows_fn frows;
} qg_run;

static void qg_part(void *ctx, uint32_t part, uint32_t parts) {
    const qg_run *r = ctx;
    uint32_t blocks = r->q.m / TP_QGEMM_MR;
    uint32_t b0 = tp_pool_first(blocks, part, parts), b1 = tp_pool_first(blocks, part + 1, parts);
    if (b1 > b0) r->fn(&r->q, b0 * TP_QGEMM_MR, b1 * TP_QGEMM_MR);
}

static void qg_f32_part(void *ctx, uint32_t part, uint32_t parts) {
    const qg_run *r = ctx;
    uint32_t blocks = (r->f.m + TP_GEMM_ROW_GRAIN - 1) / TP_GEMM_ROW_GRAIN;
    uint32_t b0 = tp_pool_first(blocks, part, parts), b1 = tp_pool_first(blocks, part + 1, parts);
    uint32_t r0 = b0 * TP_GEMM_ROW_GRAIN, r1 = b1 * TP_GEMM_ROW_GRAIN;
    if (r1 > r->f.m) r1 = r->f.m;
    if (r1 > r0) r->frows(&r->f, r0, r1);
}

static void measure_qgemm_ratios(tp_pool *pool, const tp_cpu_features *feat, tp_cpu_isa isa,
                                 int trials, double min_ns, tp_calib_op_rates *out) {
    size_t n2 = (size_t)QG_D * QG_D, fpk = tp_gemm_packed_floats(isa, QG_D, QG_D);
    size_t bytes = 3 * n2 * sizeof(float) + fpk * sizeof(float) /* f32 A, B, C, packed B */
                   + 2 * n2 * sizeof(int16_t)                   /* A widened, B packed u8u8 */
                   + 2 * n2 + n2 * sizeof(int32_t) + 64;        /* A, B u8s8, C */
    unsigned char *raw = tp_mem_alloc(NULL, bytes);
    if (!raw) return;
    float *fa = tp_mem_align64(raw), *fb = fa + n2, *fc = fb + n2, *fp = fc + n2;
    int16_t *a16 = (int16_t *)(fp + fpk), *b16 = a16 + n2;
    uint8_t *a8 = (uint8_t *)(b16 + n2), *b8 = a8 + n2;
    int32_t *c32 = (int32_t *)(void *)(b8 + n2);
    int8_t *bs = (int8_t *)(void *)c32; /* the row-major B before packing, in C's room */
    for (size_t i = 0; i < n2; i++) {
        fa[i] = (float)(i % 7) * 0.25f - 0.5f;
        fb[i] = (float)(i % 5) * 0.25f - 0.5f;
        a8[i] = (uint8_t)(i * 37u % 251u);
        a16[i] = (int16_t)a8[i];
    }
    qg_run f32 = {.f = {fa, fb, fc, QG_D, QG_D, QG_D, NULL}};
    f32.frows = tp_gemm_kernel_for(isa, NULL);
    if (fpk) {
        tp_gemm_pack_b(isa, &f32.f, fp);
        f32.f.packed_b = fp;
    }
    for (size_t i = 0; i < n2; i++) /* weights small enough that vpmaddubsw never saturates */
        bs[i] = (int8_t)((int)(i * 13u % 127u) - 63);
    tp_qgemm_pack_b(TP_QGEMM_U8S8, bs, QG_D, QG_D, b8);
    for (size_t i = 0; i < n2; i++)
        ((uint8_t *)bs)[i] = (uint8_t)(i * 11u % 253u);
    tp_qgemm_pack_b(TP_QGEMM_U8U8, bs, QG_D, QG_D, b16);
    qg_run s8 = {.q = {a8, b8, c32, QG_D, QG_D, QG_D}}, u8 = s8;
    s8.fn = tp_qgemm_kernel_for(TP_QGEMM_U8S8, feat, &out->u8s8_kernel);
    u8.q.a = (const uint8_t *)(const void *)a16;
    u8.q.b = b16;
    u8.fn = tp_qgemm_kernel_for(TP_QGEMM_U8U8, feat, &out->u8u8_kernel);
    double ops = 2.0 * QG_D * (double)QG_D * QG_D, best[3] = {0, 0, 0};
    /* a ratio of two best-of figures: more, shorter trials than the other rates (six trials of
       4 ms read u8 × u8 at 1.13-1.50 in calibrations minutes apart) */
    trials *= 3;
    min_ns /= 2;
    for (int t = 0; t < trials; t++) {
        double r = op_bench(pool, true, qg_f32_part, &f32, ops, 1, min_ns);
        if (r > best[0]) best[0] = r;
        r = op_bench(pool, true, qg_part, &s8, ops, 1, min_ns);
        if (r > best[1]) best[1] = r;
        r = op_bench(pool, true, qg_part, &u8, ops, 1, min_ns);
        if (r > best[2]) best[2] = r;
    }
    if (best[0] > 0) {
        out->u8s8_speedup = best[1] / best[0];
        out->u8u8_speedup = best[2] / best[0];
    }
    tp_mem_free(NULL, raw, bytes);
}

/* The int8 block-dot problem: 64 activation rows (a prefill ubatch's share) against 256 weight
   rows of 2048 (0.5 MiB of int8, in L2), the weight rows split across the pool's threads as
   llama.cpp splits a matrix's rows. */
enum { Q8_M = 64, Q8_N = 256, Q8_K = 2048, Q8_RN = 4 };

typedef struct q8_run {
    tp_int8_dot_job job;
    tp_int8_dot_fn fn;  /* NULL: AMX tiles (amx_dot.h) on `packed` */
    const void *packed; /* the weights packed for the tiles */
} q8_run;

static void q8_part(void *ctx, uint32_t part, uint32_t parts) {
    const q8_run *r = ctx;
    uint32_t step = r->fn ? Q8_RN : TP_AMX_BLOCK, groups = r->job.n / step;
    uint32_t g0 = tp_pool_first(groups, part, parts), g1 = tp_pool_first(groups, part + 1, parts);
    if (g1 <= g0) return;
    if (r->fn)
        r->fn(&r->job, g0 * step, g1 * step);
    else
        tp_amx_dot_run(&r->job, r->packed, g0 * step, g1 * step);
}

/* amx: on AMX tiles, the weights packed first as the matrix unit reads them (llama.cpp packs
   them when it loads the model); else with the int8 kernel for feat (*kernel: its name). */
static double measure_int8_dot(tp_pool *pool, const tp_cpu_features *feat, bool amx, int trials,
                               double min_ns, const char **kernel) {
    size_t na = (size_t)Q8_M * Q8_K, nw = (size_t)Q8_N * Q8_K, nb = Q8_K / TP_Q8_BLOCK;
    size_t floats = (Q8_M + Q8_N) * nb + (size_t)Q8_M * Q8_N;
    size_t packed = amx ? tp_amx_dot_packed_bytes(Q8_N, Q8_K) : 0; /* a multiple of 64 */
    size_t bytes = packed + floats * sizeof(float) + na + nw + 64;
    unsigned char *raw = tp_mem_alloc(NULL, bytes);
    if (!raw) return 0;
    unsigned char *p = tp_mem_align64(raw); /* packed, scales and C first */
    float *f = (float *)(p + packed);
    int8_t *a = (int8_t *)(f + floats), *w = a + na;
    for (size_t i = 0; i < floats; i++)
        f[i] = 0.01f * (float)(i % 13);
    for (size_t i = 0; i < na + nw; i++) /* q8_0 values lie in [-127, 127] */
        a[i] = (int8_t)((int)(i * 37u % 255u) - 127);
    q8_run r = {{a, f, w, f + Q8_M * nb, f + (Q8_M + Q8_N) * nb, Q8_M, Q8_K, Q8_N},
                amx ? NULL : tp_int8_dot_kernel_for(feat, kernel),
                p};
    if (amx) tp_amx_dot_pack(&r.job, p);
    double ops = 2.0 * Q8_M * (double)Q8_N * Q8_K;
    double rate = op_bench(pool, false, q8_part, &r, ops, trials, min_ns);
    tp_mem_free(NULL, raw, bytes);
    return rate;
}

void tp_calib_measure_op_rates(tp_pool *pool, const tp_cpu_features *feat, bool quick,
                               tp_calib_op_rates *out) {
    tp_cpu_isa isa = feat->isa;
    memset(out, 0, sizeof *out);
    double start = tp_now_ns();
    int trials = quick ? 2 : 6; /* best of several short trials: robust to neighbours */
    double min_ns = quick ? 2e6 : 4e6;
    size_t nx = (size_t)DW_CB * DW_PH * DW_PW * DW_LANES, nw = (size_t)DW_CB * 9 * DW_LANES;
    size_t ny = (size_t)DW_CB * DW_H * DW_W * DW_LANES;
    size_t dw_floats = nx + nw + ny;
    /* 64-byte aligned, as a runtime's arena is (onnxruntime: 64): a vector load across two cache
       lines halves the rate (40-49 against 77-84 GFLOP/s) */
    float *raw = tp_mem_alloc(NULL, (dw_floats + DW_LANES) * sizeof(float));
    if (raw) {
        float *buf = tp_mem_align64(raw);
        for (size_t i = 0; i < dw_floats; i++)
            buf[i] = (float)(i % 11) * 0.1f - 0.5f;
        dw_run d = {{buf, buf + nx, buf + nx + nw}, dw_kernel_for(isa)};
        double flops = 2.0 * 9.0 * (double)ny;
        out->dwconv_gflops = op_bench(pool, true, dw_part, &d, flops, trials, min_ns);
        tp_mem_free(NULL, raw, (dw_floats + DW_LANES) * sizeof(float));
    }
    size_t rx = (size_t)RS_C * RS_H * RS_W, ry = rx * 4;
    float *rb = tp_mem_alloc(NULL, (rx + ry) * sizeof(float));
    if (rb) {
        for (size_t i = 0; i < rx + ry; i++)
            rb[i] = (float)(i % 7) * 0.25f;
        rs_job r = {rb, rb + rx};
        double bytes = (double)(rx + ry) * sizeof(float);
        out->resize_gbps = op_bench(pool, false, rs_part, &r, bytes, trials, min_ns);
        tp_mem_free(NULL, rb, (rx + ry) * sizeof(float));
    }
    size_t ix = (size_t)IC_C * IC_H * IC_W, icols = ix * 9;
    size_t islices = (size_t)(pool->n ? pool->n : 1) * IC_SLICE * IC_SLICE; /* one per part */
    float *ib = tp_mem_alloc(NULL, (ix + icols + islices) * sizeof(float));
    if (ib) {
        for (size_t i = 0; i < ix + icols; i++)
            ib[i] = (float)(i % 5) * 0.5f;
        ic_job ij = {ib, ib + ix, ib + ix + icols};
        double bytes = (double)icols * sizeof(float); /* the column buffer, written and packed */
        out->im2col_gbps = op_bench(pool, false, ic_part, &ij, bytes, trials, min_ns);
        tp_mem_free(NULL, ib, (ix + icols + islices) * sizeof(float));
    }
    /* the column buffer, then the output of the stride-2 transposed convolution */
    size_t cc = (size_t)CT_C * CT_K * CT_K * CT_H * CT_W;
    size_t co = (size_t)CT_C * ((CT_H - 1) * 2 + CT_K) * ((CT_W - 1) * 2 + CT_K);
    float *cb = tp_mem_alloc(NULL, (cc + co) * sizeof(float));
    if (cb) {
        for (size_t i = 0; i < cc; i++)
            cb[i] = (float)(i % 9) * 0.125f - 0.5f; /* sums grow by 0.5 a pass at most */
        memset(cb + cc, 0, co * sizeof(float));
        ct_job cj = {cb, cb + cc, 2};
        double bytes = (double)cc * sizeof(float); /* the columns it reads */
        out->col2im_gbps = op_bench(pool, true, ct_part, &cj, bytes, trials, min_ns);
        tp_mem_free(NULL, cb, (cc + co) * sizeof(float));
    }
    /* the input, then the output of the calibration's transpose */
    float *tb = tp_mem_alloc(NULL, 2 * TP_TRANSPOSE_WALK_ELEMS * sizeof(float));
    if (tb) {
        for (size_t i = 0; i < TP_TRANSPOSE_WALK_ELEMS; i++)
            tb[i] = (float)(i % 23);
        tp_transpose_walk_job tj = {tb, tb + TP_TRANSPOSE_WALK_ELEMS};
        double bytes = (double)TP_TRANSPOSE_WALK_ELEMS * sizeof(float); /* the elements copied */
        out->transpose_gbps =
            op_bench(pool, true, tp_transpose_walk_part, &tj, bytes, trials, min_ns);
        tp_mem_free(NULL, tb, 2 * TP_TRANSPOSE_WALK_ELEMS * sizeof(float));
    }
    size_t lx = (size_t)LN_ROWS * LN_COLS, lfloats = 2 * lx + 2 * LN_COLS;
    float *lb = tp_mem_alloc(NULL, lfloats * sizeof(float));
    if (lb) {
        for (size_t i = 0; i < lfloats; i++)
            lb[i] = (float)(i % 17) * 0.125f - 1.0f;
        ln_job l = {lb, lb + 2 * lx, lb + 2 * lx + LN_COLS, lb + lx};
        double bytes = 2.0 * (double)lx * sizeof(float);
        out->norm_gbps = op_bench(pool, false, ln_part, &l, bytes, trials, min_ns);
        tp_mem_free(NULL, lb, lfloats * sizeof(float));
    }
    size_t sfloats = 3 * lx + 2 * LN_COLS; /* x, skip, y, gamma, beta */
    float *sb = tp_mem_alloc(NULL, sfloats * sizeof(float));
    if (sb) {
        for (size_t i = 0; i < sfloats; i++)
            sb[i] = (float)(i % 13) * 0.125f - 0.75f;
        sn_job sj = {sb, sb + lx, sb + 3 * lx, sb + 3 * lx + LN_COLS, sb + 2 * lx};
        double bytes = 3.0 * (double)lx * sizeof(float); /* both addends read, the output written */
        out->skip_norm_gbps = op_bench(pool, false, sn_part, &sj, bytes, trials, min_ns);
        tp_mem_free(NULL, sb, sfloats * sizeof(float));
    }
    /* GELU over 96 of onnxruntime's 4096-element tasks (1.5 MiB in, 1.5 out: a transformer's
       feed-forward activations), inputs spread over [-3, 3] */
    size_t gn = (size_t)96 * TP_GELU_CHUNK;
    float *gb = tp_mem_alloc(NULL, 2 * gn * sizeof(float));
    if (gb) {
        for (size_t i = 0; i < gn; i++)
            gb[i] = (float)(i % 97) * (6.0f / 96) - 3.0f;
        tp_gelu_job gj = {.x = gb, .y = gb + gn, .n = gn, .kernel = tp_gelu_kernel_for(feat)};
        double bytes = 2.0 * (double)gn * sizeof(float);
        out->gelu_gbps = op_bench(pool, false, tp_gelu_part, &gj, bytes, trials, min_ns);
        tp_mem_free(NULL, gb, 2 * gn * sizeof(float));
    }
    /* BiasGelu over the same elements as rows of 1536 (a feed-forward's hidden width), with its
       scratch tensor: the input read and the output written per ns, as for the GELU */
    size_t bl = 1536, bfloats = 3 * gn + bl;
    float *bb = tp_mem_alloc(NULL, bfloats * sizeof(float));
    if (bb) {
        for (size_t i = 0; i < gn; i++)
            bb[i] = (float)(i % 97) * (6.0f / 96) - 3.0f;
        for (size_t i = 0; i < bl; i++)
            bb[3 * gn + i] = (float)(i % 7) * 0.01f;
        tp_gelu_job bj = {.x = bb,
                          .y = bb + gn,
                          .n = gn,
                          .kernel = tp_bias_gelu_kernel_for(feat),
                          .bias = bb + 3 * gn,
                          .temp = bb + 2 * gn,
                          .bias_len = bl};
        double bytes = 2.0 * (double)gn * sizeof(float);
        out->bias_gelu_gbps = op_bench(pool, false, tp_gelu_part, &bj, bytes, trials, min_ns);
        tp_mem_free(NULL, bb, bfloats * sizeof(float));
    }
    /* PRelu over the same elements, their signs in runs of 512 (a channel's or a row's: the
       branch mostly predicted), the input read and the output written per ns */
    float *pb = tp_mem_alloc(NULL, 2 * gn * sizeof(float));
    if (pb) {
        for (size_t i = 0; i < gn; i++)
            pb[i] = ((i / 512) % 2 ? -1.0f : 1.0f) * ((float)(i % 89) * 0.01f + 0.01f);
        tp_prelu_job pj = {.x = pb, .y = pb + gn, .n = gn, .slope = 0.25f};
        double bytes = 2.0 * (double)gn * sizeof(float);
        out->prelu_gbps = op_bench(pool, false, tp_prelu_part, &pj, bytes, trials, min_ns);
        tp_mem_free(NULL, pb, 2 * gn * sizeof(float));
    }
    out->gemm_stream_gbps = measure_weight_stream(pool, isa, quick);
    out->denormal_ns = measure_denormal(pool, isa, trials, min_ns);
    out->int8_dot_gops = measure_int8_dot(pool, feat, false, trials, min_ns, &out->int8_kernel);
    if (tp_amx_dot_available(feat))
        out->amx_int8_gops = measure_int8_dot(pool, feat, true, trials, min_ns, NULL);
    measure_qgemm_ratios(pool, feat, isa, trials, min_ns, out);
    out->elapsed_ms = (tp_now_ns() - start) / 1e6;
}
