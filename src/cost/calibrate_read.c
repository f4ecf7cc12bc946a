/* The CPU calibration's read-bandwidth curve (calibrate_read.h). A pass reads every 64-byte
 * line of the working set once, with several independent sums so that loads, not additions,
 * bound it; a 4 MiB set sits in the caches, 256 MiB is beyond any last-level cache of today's
 * CPUs (docs/cost.md, "Read bandwidth"). */
#include "calibrate_read.h"

#include <stdint.h>
#include <string.h>

#include "core/mem.h"

#define MIB ((size_t)1 << 20)

typedef struct read_job {
    const uint64_t *buf;
    size_t words;      /* 8-byte words in the working set */
    uint64_t sink[64]; /* one per part: keeps the sums alive */
} read_job;

static void read_part(void *ctx, uint32_t part, uint32_t parts) {
    read_job *j = ctx;
    size_t i0 = j->words * part / parts, i1 = j->words * (part + 1) / parts;
    i0 &= ~(size_t)7;
    i1 &= ~(size_t)7;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = i0; i < i1; i += 8) { /* one 64-byte line per step */
        s0 += j->buf[i] ^ j->buf[i + 1];
        s1 += j->buf[i + 2] ^ j->buf[i + 3];
        s2 += j->buf[i + 4] ^ j->buf[i + 5];
        s3 += j->buf[i + 6] ^ j->buf[i + 7];
    }
    j->sink[part % 64] = s0 + s1 + s2 + s3;
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

tp_status tp_calib_read_curve(tp_pool *pool, bool quick, tp_device_model *d, tp_error *err) {
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
    read_job j;
    memset(&j, 0, sizeof j);
    j.buf = buf;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        j.words = mib[i] * MIB / 8;
        double g = read_gbps(pool, &j, mib[i] >= 128 ? 3 : 5);
        if (g > 0) d->read[kept++] = (tp_bw_point){(double)(mib[i] * MIB), g};
    }
    d->n_read = kept;
    tp_mem_free(NULL, buf, max_bytes);
    return TP_OK;
}
