/* The CPU calibration's read-bandwidth curves (calibrate_read.h). A pass reads every 64-byte
 * line of the working set once. Two passes per size:
 * - one stream in 8-byte words with four independent sums (tp_device_model.read): what a kernel
 *   that walks its weights row after row reaches (llama.cpp's CPU decode outside its AMX
 *   variant; session 20's host, its zen4 variant, held-out decode within -1 ... +23 % priced by
 *   it, docs/estimate.md "Session 20");
 * - STREAMS streams at once in the widest vector loads the CPU runs (read_streams): what a
 *   kernel that reads several weight panels side by side reaches (llama.cpp's AMX decode reads
 *   four tiles per block). One stream leaves the memory system idle between the few misses a
 *   core's prefetcher keeps in flight: on session 20's host, one thread, AVX-512, 1 / 2 / 4 / 8
 *   streams read a 256 MiB set at 9.0 / 12.1 / 14.8 / 16.3 GB/s, and llama.cpp's AMX variant
 *   decoded 400m_q8_0 (476 MB packed) at 16.1 GB/s or more.
 * A 4 MiB set sits in the caches, 256 MiB is beyond most last-level caches (docs/cost.md, "Read
 * bandwidth"). */
#include "calibrate_read.h"

#include <stdint.h>
#include <string.h>

#include "core/mem.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TP_READ_X86 1
#include <immintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON)
#define TP_READ_NEON 1
#include <arm_neon.h>
#endif

#define MIB ((size_t)1 << 20)
#define LINE_WORDS 8u /* 8-byte words per 64-byte line */

/* Streams of the read_streams pass: the range is cut into STREAMS consecutive pieces, read line
   by line side by side. */
#define STREAMS 8u

/* Sum of one range of whole 64-byte lines [w0, w1) (word indexes, multiples of LINE_WORDS). */
typedef uint64_t (*read_fn)(const uint64_t *buf, size_t w0, size_t w1);

/* The words per stream (whole lines); the lines past STREAMS × that are read after. */
static size_t stream_words(size_t w0, size_t w1) {
    return (w1 - w0) / LINE_WORDS / STREAMS * LINE_WORDS;
}

/* One stream, 8-byte words, four independent sums: the `read` curve. */
static uint64_t read_one_stream(const uint64_t *b, size_t w0, size_t w1) {
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = w0; i < w1; i += LINE_WORDS) { /* one 64-byte line per step */
        s0 += b[i] ^ b[i + 1];
        s1 += b[i + 2] ^ b[i + 3];
        s2 += b[i + 4] ^ b[i + 5];
        s3 += b[i + 6] ^ b[i + 7];
    }
    return s0 + s1 + s2 + s3;
}

static uint64_t read_generic(const uint64_t *b, size_t w0, size_t w1) {
    uint64_t acc[STREAMS] = {0};
    size_t per = stream_words(w0, w1);
    for (size_t i = 0; i < per; i += LINE_WORDS)
        for (uint32_t s = 0; s < STREAMS; s++) {
            const uint64_t *l = b + w0 + s * per + i;
            acc[s] += (l[0] ^ l[1]) + (l[2] ^ l[3]) + (l[4] ^ l[5]) + (l[6] ^ l[7]);
        }
    for (size_t i = w0 + STREAMS * per; i < w1; i += LINE_WORDS)
        acc[0] += b[i] ^ b[i + 7];
    uint64_t sum = 0;
    for (uint32_t s = 0; s < STREAMS; s++)
        sum += acc[s];
    return sum;
}

#ifdef TP_READ_X86
/* One 64-byte load per line and stream, one accumulator per stream. */
__attribute__((target("avx512f"))) static uint64_t read_avx512(const uint64_t *b, size_t w0,
                                                               size_t w1) {
    __m512i acc[STREAMS];
    for (uint32_t s = 0; s < STREAMS; s++)
        acc[s] = _mm512_setzero_si512();
    size_t per = stream_words(w0, w1);
    for (size_t i = 0; i < per; i += LINE_WORDS)
        for (uint32_t s = 0; s < STREAMS; s++)
            acc[s] =
                _mm512_xor_si512(acc[s], _mm512_loadu_si512((const void *)(b + w0 + s * per + i)));
    for (size_t i = w0 + STREAMS * per; i < w1; i += LINE_WORDS)
        acc[0] = _mm512_xor_si512(acc[0], _mm512_loadu_si512((const void *)(b + i)));
    for (uint32_t s = 1; s < STREAMS; s++)
        acc[0] = _mm512_xor_si512(acc[0], acc[s]);
    uint64_t o[8];
    _mm512_storeu_si512((void *)o, acc[0]);
    return o[0] + o[1] + o[2] + o[3] + o[4] + o[5] + o[6] + o[7];
}

/* Two 32-byte loads per line and stream. */
__attribute__((target("avx2"))) static uint64_t read_avx2(const uint64_t *b, size_t w0, size_t w1) {
    __m256i acc[STREAMS];
    for (uint32_t s = 0; s < STREAMS; s++)
        acc[s] = _mm256_setzero_si256();
    size_t per = stream_words(w0, w1);
    for (size_t i = 0; i < per; i += LINE_WORDS)
        for (uint32_t s = 0; s < STREAMS; s++) {
            const uint64_t *l = b + w0 + s * per + i;
            __m256i x = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)l),
                                         _mm256_loadu_si256((const __m256i *)(l + 4)));
            acc[s] = _mm256_xor_si256(acc[s], x);
        }
    for (size_t i = w0 + STREAMS * per; i < w1; i += LINE_WORDS)
        acc[0] = _mm256_xor_si256(acc[0], _mm256_loadu_si256((const __m256i *)(b + i)));
    for (uint32_t s = 1; s < STREAMS; s++)
        acc[0] = _mm256_xor_si256(acc[0], acc[s]);
    uint64_t o[4];
    _mm256_storeu_si256((__m256i *)o, acc[0]);
    return o[0] + o[1] + o[2] + o[3];
}
#endif

#ifdef TP_READ_NEON
/* Four 16-byte loads per line and stream. */
static uint64_t read_neon(const uint64_t *b, size_t w0, size_t w1) {
    uint64x2_t acc[STREAMS];
    for (uint32_t s = 0; s < STREAMS; s++)
        acc[s] = vdupq_n_u64(0);
    size_t per = stream_words(w0, w1);
    for (size_t i = 0; i < per; i += LINE_WORDS)
        for (uint32_t s = 0; s < STREAMS; s++) {
            const uint64_t *l = b + w0 + s * per + i;
            uint64x2_t x = veorq_u64(veorq_u64(vld1q_u64(l), vld1q_u64(l + 2)),
                                     veorq_u64(vld1q_u64(l + 4), vld1q_u64(l + 6)));
            acc[s] = veorq_u64(acc[s], x);
        }
    for (size_t i = w0 + STREAMS * per; i < w1; i += LINE_WORDS)
        acc[0] = veorq_u64(acc[0], vld1q_u64(b + i));
    for (uint32_t s = 1; s < STREAMS; s++)
        acc[0] = veorq_u64(acc[0], acc[s]);
    return vgetq_lane_u64(acc[0], 0) + vgetq_lane_u64(acc[0], 1);
}
#endif

static read_fn read_kernel_for(const tp_cpu_features *f, const char **name) {
#ifdef TP_READ_X86
    if (f && f->isa == TP_CPU_ISA_AVX512) {
        *name = "streams-avx512";
        return read_avx512;
    }
    if (f && f->isa == TP_CPU_ISA_AVX2) {
        *name = "streams-avx2";
        return read_avx2;
    }
#endif
#ifdef TP_READ_NEON
    if (f && f->isa == TP_CPU_ISA_NEON) {
        *name = "streams-neon";
        return read_neon;
    }
#endif
    (void)f;
    *name = "streams-generic";
    return read_generic;
}

const char *tp_calib_read_kernel_name(const tp_cpu_features *feat) {
    const char *name = NULL;
    (void)read_kernel_for(feat, &name);
    return name;
}

typedef struct read_job {
    const uint64_t *buf;
    size_t words; /* 8-byte words in the working set, a multiple of LINE_WORDS */
    read_fn fn;
    uint64_t sink[64]; /* one per part: keeps the sums alive */
} read_job;

static void read_part(void *ctx, uint32_t part, uint32_t parts) {
    read_job *j = ctx;
    size_t i0 = j->words * part / parts, i1 = j->words * (part + 1) / parts;
    i0 &= ~(size_t)(LINE_WORDS - 1);
    i1 &= ~(size_t)(LINE_WORDS - 1);
    j->sink[part % 64] = j->fn(j->buf, i0, i1);
}

/* Best bytes per ns over `passes` passes, each timed by the pool's busy CPU time (the slowest
   part), so that other processes taking the cores do not stretch it. */
static double read_gbps(tp_pool *pool, read_job *j, int passes) {
    tp_pool_run(pool, read_part, j); /* warm: the caches hold what they can */
    double best = 0, bytes = (double)j->words * 8.0;
    for (int k = 0; k < passes; k++) {
        double b0 = pool->busy_ns;
        tp_pool_run(pool, read_part, j);
        double el = pool->busy_ns - b0;
        if (el > 0 && bytes / el > best) best = bytes / el;
    }
    return best;
}

tp_status tp_calib_read_curve(tp_pool *pool, const tp_cpu_features *feat, bool quick,
                              tp_device_model *d, const char **kernel, tp_error *err) {
    static const size_t full_mib[] = {4, 8, 16, 32, 64, 128, 256};
    static const size_t quick_mib[] = {4, 16, 64};
    const size_t *mib = quick ? quick_mib : full_mib;
    uint32_t n = quick ? 3 : 7;
    size_t max_bytes = mib[n - 1] * MIB;
    uint64_t *buf = tp_mem_alloc(NULL, max_bytes);
    if (!buf)
        return tp_error_set(err, TP_ERR_NOMEM,
                            "calibrate: cannot allocate %zu MiB for the read bandwidth",
                            mib[n - 1]);
    for (size_t i = 0; i < max_bytes / 8; i++)
        buf[i] = (uint64_t)i * 0x9E3779B97F4A7C15u;
    read_job one, many;
    memset(&one, 0, sizeof one);
    memset(&many, 0, sizeof many);
    one.buf = many.buf = buf;
    one.fn = read_one_stream;
    const char *name = NULL;
    many.fn = read_kernel_for(feat, &name);
    uint32_t kept = 0, kept_many = 0;
    for (uint32_t i = 0; i < n; i++) { /* the two passes side by side: the same host moment */
        one.words = many.words = mib[i] * MIB / 8;
        int passes = mib[i] >= 128 ? 3 : 5;
        double g = read_gbps(pool, &one, passes), gm = read_gbps(pool, &many, passes);
        if (g > 0) d->read[kept++] = (tp_bw_point){(double)(mib[i] * MIB), g};
        if (gm > 0) d->read_streams[kept_many++] = (tp_bw_point){(double)(mib[i] * MIB), gm};
    }
    d->n_read = kept;
    d->n_read_streams = kept_many;
    if (kernel) *kernel = name;
    tp_mem_free(NULL, buf, max_bytes);
    return TP_OK;
}
