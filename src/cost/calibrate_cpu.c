/* CPU calibration: GEMM GFLOP/s by shape (BLAS loaded at run time, else a
 * built-in blocked kernel), STREAM triad bandwidth, memcpy readback bandwidth,
 * fork/join dispatch and thread ping-pong round-trip overheads. */
#include "tensorplan/cost.h"

#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __APPLE__
#include <sys/sysctl.h>
#include <sys/types.h>
#endif

#include "core/mem.h"
#include "cost/calib_barrier.h"
#include "cost/calib_wake.h"
#include "cost/calibrate_read.h"
#include "cost/calib_ops.h"
#include "cost/calib_step.h"
#include "cost/cpu_pool.h"
#include "cost/gemm_kernels.h"
#include "cost/gemm_split.h"

void tp_calib_options_default(tp_calib_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
}

uint32_t tp_calib_default_threads(void) {
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int c = CPU_COUNT(&set);
        if (c >= 1) return (uint32_t)(c > TP_POOL_MAX_THREADS ? TP_POOL_MAX_THREADS : c);
    }
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    return (uint32_t)(n > TP_POOL_MAX_THREADS ? TP_POOL_MAX_THREADS : n);
}

/* Value of the first "key : value" line of /proc/cpuinfo whose key is `key`. */
static bool cpuinfo_field(const char *key, char *buf, size_t cap) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return false;
    char line[4096];
    bool found = false;
    size_t klen = strlen(key);
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0) continue;
        char *p = line + klen;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != ':') continue;
        p++;
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, "\n");
        if (n >= cap) n = cap - 1;
        memcpy(buf, p, n);
        buf[n] = '\0';
        found = n > 0;
    }
    fclose(f);
    return found;
}

void tp_cpu_model_name(char *buf, size_t cap) {
    if (!buf || cap == 0) return;
#ifdef __APPLE__
    size_t len = cap;
    if (sysctlbyname("machdep.cpu.brand_string", buf, &len, NULL, 0) == 0 && len > 1) return;
#endif
    if (cpuinfo_field("model name", buf, cap)) return;
    if (cpuinfo_field("Hardware", buf, cap)) return;
    if (cpuinfo_field("cpu model", buf, cap)) return;
    if (cpuinfo_field("CPU part", buf, cap)) {
        char part[64];
        snprintf(part, sizeof part, "%s", buf);
        snprintf(buf, cap, "cpu-part-%s", part);
        return;
    }
    snprintf(buf, cap, "unknown");
}

/* Effective core clock in GHz, measured: a chain of dependent integer adds runs
 * one per cycle, timed by this thread's CPU time. The "cpu MHz" of /proc/cpuinfo
 * is often the base clock (a VM shows its host's nominal clock), well below the
 * boost clock a busy core runs at. 0 when not measurable on this target. */
static double measure_ghz(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    double best = 0;
    for (int t = 0; t < 3; t++) {
        uint64_t n = 2000000, x = 0;
        double t0 = tp_thread_cpu_ns();
        __asm__ volatile("1:\n\t"
                         "add $1, %0\n\t"
                         "add $1, %0\n\t"
                         "add $1, %0\n\t"
                         "add $1, %0\n\t"
                         "sub $1, %1\n\t"
                         "jnz 1b"
                         : "+r"(x), "+r"(n)
                         :
                         : "cc");
        double el = tp_thread_cpu_ns() - t0;
        double ghz = el > 0 ? 4.0 * 2000000.0 / el : 0;
        if (ghz > best) best = ghz;
    }
    return best;
#else
    return 0;
#endif
}

/* Derived f32 peak: threads × GHz × f32 flops per cycle (from the ISA). */
static double derive_peak_gflops(uint32_t threads) {
    char mhz[64] = "";
    double ghz = measure_ghz();
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    if (f) {
        long khz = 0;
        if (fscanf(f, "%ld", &khz) == 1 && khz > 0 && (double)khz / 1e6 > ghz)
            ghz = (double)khz / 1e6;
        fclose(f);
    }
    if (ghz <= 0 && cpuinfo_field("cpu MHz", mhz, sizeof mhz)) ghz = atof(mhz) / 1000.0;
    if (ghz <= 0) return 0;
    /* f32 flops per cycle per core: two FMA pipes × lanes × 2 (AVX-512 and AVX2
     * parts of recent x86 cores have two FMA units; NEON cores two 128-bit pipes) */
    tp_cpu_features feat;
    tp_cpu_features_detect(&feat);
    double per_cycle = 8; /* 4-wide SIMD, mul + add */
    if (feat.isa == TP_CPU_ISA_AVX512)
        per_cycle = 64;
    else if (feat.isa == TP_CPU_ISA_AVX2)
        per_cycle = 32;
    else if (feat.avx)
        per_cycle = 16;
    else if (feat.isa == TP_CPU_ISA_NEON)
        per_cycle = 16;
    return (double)threads * ghz * per_cycle;
}

/* ---------------------------------------------------------------- GEMM */

typedef void (*sgemm_fn)(int order, int ta, int tb, int m, int n, int k, float alpha,
                         const float *a, int lda, const float *b, int ldb, float beta, float *c,
                         int ldc);
typedef void (*set_threads_fn)(int n);

typedef struct blas_lib {
    void *handle;
    sgemm_fn sgemm;
    char name[TP_DEVICE_NAME_CAP];
} blas_lib;

static bool blas_open(blas_lib *b, uint32_t threads) {
    static const struct {
        const char *file, *name;
    } libs[] = {{"libopenblas.so.0", "openblas"},
                {"libopenblas.so", "openblas"},
                {"libopenblasp-r0.so", "openblas"},
                {"libblis.so.4", "blis"},
                {"libblas.so.3", "blas"}};
    memset(b, 0, sizeof b[0]);
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
        void *h = dlopen(libs[i].file, RTLD_NOW | RTLD_LOCAL);
        if (!h) continue;
        union {
            void *p;
            sgemm_fn f;
            set_threads_fn t;
        } u;
        u.p = dlsym(h, "cblas_sgemm");
        if (!u.p) {
            dlclose(h);
            continue;
        }
        b->handle = h;
        b->sgemm = u.f;
        snprintf(b->name, sizeof b->name, "%s", libs[i].name);
        u.p = dlsym(h, "openblas_set_num_threads");
        if (u.p) u.t((int)threads);
        return true;
    }
    return false;
}

/* OpenBLAS's own name for the kernel set it runs ("Haswell", "SkylakeX"), which
 * OPENBLAS_CORETYPE can force below what the CPU supports; "" for other BLAS. */
static void blas_core_name(const blas_lib *b, char *buf, size_t cap) {
    union {
        void *p;
        char *(*f)(void);
    } u;
    buf[0] = '\0';
    u.p = dlsym(b->handle, "openblas_get_corename");
    if (!u.p) return;
    const char *nm = u.f();
    if (nm) snprintf(buf, cap, "%s", nm);
    for (char *q = buf; *q; q++)
        if (*q == '\n' || *q == '\r') *q = ' ';
}

typedef struct gemm_run {
    tp_gemm_job job;
    tp_gemm_rows_fn rows;
} gemm_run;

/* One part of a GEMM on the pool, split as onnxruntime's MLAS splits its SGEMM (gemm_split.h).
   Before session 10 every GEMM was split by rows in blocks of 24: a 16-row product gave one
   thread all the work, and a 64-row one 24 rows against 40. */
static void gemm_part(void *ctx, uint32_t part, uint32_t parts) {
    const gemm_run *g = ctx;
    tp_gemm_job sub;
    uint32_t r0, r1;
    if (tp__gemm_split(&g->job, part, parts, &sub, &r0, &r1)) g->rows(&sub, r0, r1);
}

typedef struct bench_ctx {
    tp_pool *pool;
    const blas_lib *blas; /* NULL = built-in */
    tp_gemm_rows_fn rows; /* the built-in kernel */
    tp_cpu_isa isa;       /* its ISA (the layout of a packed B) */
    double min_ns;        /* minimum time per trial */
    int trials;
    bool cpu_clock; /* time by CPU time (clock_ns), robust to other processes */
} bench_ctx;

/* One thread: the thread's CPU time. Several: the pool's busy time (Σ over fork/joins of the
   slowest part's CPU time), so that other processes on a shared machine stretch neither;
   a BLAS runs its own threads: the wall clock. */
static double clock_ns(const bench_ctx *bc) {
    if (!bc->cpu_clock) return tp_now_ns();
    if (bc->pool->n > 1 && !bc->blas) return bc->pool->busy_ns;
    return tp_thread_cpu_ns();
}

/* `reps` products of one small GEMM on the calling thread, in one pool task (one clock read
   around all of them, not per product: a CPU-clock read is a system call in some VMs, ~1 µs,
   the time of a whole 32³ product). */
typedef struct gemm_batch {
    gemm_run run;
    uint32_t reps;
} gemm_batch;

static void gemm_batch_part(void *ctx, uint32_t part, uint32_t parts) {
    (void)part;
    (void)parts;
    const gemm_batch *gb = ctx;
    for (uint32_t r = 0; r < gb->reps; r++)
        gemm_part((void *)&gb->run, 0, 1);
}

/* Best-of-trials GFLOP/s of one m×k by k×n GEMM. */
static double bench_gemm_mkn(const bench_ctx *bc, uint32_t m, uint32_t k, uint32_t n, float *a,
                             float *b, float *c) {
    gemm_run g = {{a, b, c, m, k, n, NULL}, bc->rows};
    double flops = 2.0 * (double)m * (double)k * (double)n, best = 0;
    /* B packed once, outside the timing, as a runtime pre-packs a constant weight (onnxruntime:
       MatMul / Gemm pre-packing, NCHWc filters reordered at load): packed on every call, each
       thread of a row split packed the whole of B again (docs/cost.md, "Session 10") */
    size_t packed = bc->blas ? 0 : tp_gemm_packed_floats(bc->isa, k, n);
    void *raw = packed ? tp_mem_alloc(NULL, packed * sizeof(float) + 64) : NULL;
    if (raw) {
        float *pb = tp_mem_align64(raw);
        tp_gemm_pack_b(bc->isa, &g.job, pb);
        g.job.packed_b = pb;
    }
    /* too small to split (fork/join would dominate), or one thread: on the calling thread */
    bool small = flops <= 2.0 * 64 * 64 * 64 || bc->pool->n == 1;
    /* small products in batches of ~4 MFLOP (tens of µs) between clock reads */
    double per = 4e6 / flops;
    gemm_batch gb = {g, per < 1 ? 1u : per > 4096 ? 4096u : (uint32_t)per};
    for (int t = 0; t < bc->trials; t++) {
        uint64_t reps = 0;
        double t0 = clock_ns(bc), el;
        do {
            if (bc->blas)
                bc->blas->sgemm(101, 111, 111, (int)m, (int)n, (int)k, 1.0f, a, (int)k, b, (int)n,
                                0.0f, c, (int)n);
            else if (small)
                tp_pool_run_caller(bc->pool, gemm_batch_part, &gb);
            else
                tp_pool_run(bc->pool, gemm_part, &g);
            reps += small && !bc->blas ? gb.reps : 1;
            el = clock_ns(bc) - t0;
        } while (el < bc->min_ns);
        double rate = flops * (double)reps / el;
        if (rate > best) best = rate;
    }
    if (raw) tp_mem_free(NULL, raw, packed * sizeof(float) + 64);
    return best;
}

/* Best-of-trials curve of one implementation, the trials interleaved: round after round, one
   trial of every shape. A slow window of the machine (another process, a neighbour on the host)
   then costs one trial of each shape rather than every trial of one: with the trials back to
   back, two-thread calibrations minutes apart measured OpenBLAS's 1024³ at 126, 132, 207 and 224
   GFLOP/s on the session-12 Intel host (docs/cost.md, "Session 12"). The built-in kernel and a
   BLAS are measured one after the other, not interleaved with each other: OpenBLAS's threads
   keep spinning for a while after a call and would slow the built-in kernel's pool.
   `m` NULL: square shapes dims[i]³; else m[i] rows by dmax × dmax. */
static void bench_curve(const bench_ctx *bc, const uint32_t *dims, const uint32_t *m, uint32_t n,
                        uint32_t dmax, float *a, float *b, float *c, double *out) {
    bench_ctx one = *bc;
    one.trials = 1;
    for (uint32_t i = 0; i < n; i++)
        out[i] = 0;
    for (int t = 0; t < bc->trials; t++)
        for (uint32_t i = 0; i < n; i++) {
            uint32_t rows = m ? m[i] : dims[i], kn = m ? dmax : dims[i];
            double r = bench_gemm_mkn(&one, rows, kn, kn, a, b, c);
            if (r > out[i]) out[i] = r;
        }
}

/* Check a built-in kernel against a naive product on ragged shapes (edges of every
 * register block: rows 1..MR+1, columns not a multiple of the vector width). */
static bool gemm_self_check(tp_gemm_rows_fn rows) {
    enum { M = 19, K = 37, N = 45 };
    float a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < K * N; i++)
        b[i] = (float)(i % 5) - 2.0f;
    for (uint32_t m = 1; m <= M; m += 3)
        for (uint32_t n = 1; n <= N; n += 11) {
            tp_gemm_job j = {a, b, c, m, K, n, NULL};
            rows(&j, 0, m);
            for (uint32_t i = 0; i < m; i++)
                for (uint32_t q = 0; q < n; q++) {
                    float s = 0;
                    for (uint32_t p = 0; p < K; p++)
                        s += a[i * K + p] * b[p * n + q];
                    if (fabsf(s - c[i * n + q]) > 1e-3f) return false;
                }
        }
    return true;
}

/* ---------------------------------------------------------------- memory */

typedef struct triad_job {
    double *a, *b, *c;
    size_t n;
    bool copy; /* memcpy b -> a instead of the triad */
} triad_job;

static void triad_part(void *ctx, uint32_t part, uint32_t parts) {
    const triad_job *t = ctx;
    size_t i0 = t->n * part / parts, i1 = t->n * (part + 1) / parts;
    if (t->copy) {
        memcpy(t->a + i0, t->b + i0, (i1 - i0) * sizeof(double));
        return;
    }
    for (size_t i = i0; i < i1; i++)
        t->a[i] = t->b[i] + 3.0 * t->c[i];
}

static double bench_triad(const bench_ctx *bc, triad_job *t) {
    double best = 0;
    double bytes = (t->copy ? 2.0 : 3.0) * (double)t->n * sizeof(double);
    tp_pool_run(bc->pool, triad_part, t); /* first touch */
    for (int k = 0; k < bc->trials + 2; k++) {
        double t0 = clock_ns(bc);
        tp_pool_run(bc->pool, triad_part, t);
        double el = clock_ns(bc) - t0;
        if (el > 0 && bytes / el > best) best = bytes / el;
    }
    return best; /* bytes per ns = GB/s */
}

/* ---------------------------------------------------------------- overheads */

typedef struct tiny_job {
    float x[16 * TP_POOL_MAX_THREADS];
} tiny_job;

static void tiny_part(void *ctx, uint32_t part, uint32_t parts) {
    (void)parts;
    tiny_job *t = ctx;
    for (int i = 0; i < 16; i++)
        t->x[part * 16 + (uint32_t)i] = t->x[part * 16 + (uint32_t)i] * 0.5f + 1.0f;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Lower decile of the time of one fork/join over a 16-element-per-thread kernel (reps × 20
   single samples): a fork/join during which another process held a core measures the
   scheduler, not the hand-off; on an idle machine most samples are near the lower decile. */
static double bench_dispatch(tp_pool *pool, int reps) {
    tiny_job *t = tp_mem_calloc(NULL, 1, sizeof *t);
    if (!t) return 0;
    enum { PER = 20, MAXN = 64 * PER };
    double s[MAXN];
    if (reps > 64) reps = 64;
    int n = reps * PER;
    for (int r = 0; r < n; r++) {
        double t0 = tp_now_ns();
        tp_pool_run(pool, tiny_part, t);
        s[r] = tp_now_ns() - t0;
    }
    tp_mem_free(NULL, t, sizeof *t);
    qsort(s, (size_t)n, sizeof s[0], cmp_double);
    return s[n / 10];
}

/* ---------------------------------------------------------------- driver */

static const uint32_t full_dims[] = {16, 32, 64, 128, 256, 512, 1024};
static const uint32_t quick_dims[] = {16, 64, 192};
/* skinny GEMMs: m rows against a square k = n matrix (the largest dim above) */
static const uint32_t full_skinny[] = {1, 4, 16, 64};
static const uint32_t quick_skinny[] = {1, 8, 32};

static void fill(float *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        p[i] = (float)((i * 7) % 13) * 0.125f - 0.75f;
}

/* onnxruntime's own CPU overheads (the reference runtime of the accuracy benchmark) in steps of
 * the calibration's interpreter micro-benchmark (calib_step.h), so that they follow the speed of
 * the core as onnxruntime's do: per node (executor bookkeeping, output allocation, the kernel
 * call) and per run (a session run from JavaScript, feeds, fetches). Measured on an Intel Cascade
 * Lake VM (2 vCPU, 2026-11-27): bench/accuracy/probe.sh's figures (onnxruntime-node 1.30, a
 * chain of 201 Abs nodes on 64 floats against one; one thread: CPU time, two: the busiest
 * thread's) over the step read just before and just after them, the median of the pairs whose
 * two readings agree within 15 % (12 at one thread, 4 at two). The step read 38-40 ns at the
 * host's full speed and 53-92 ns in its slow spells, onnxruntime 0.39-0.46 and 0.74-1.15 us per
 * node: 10.5-10.9 steps at full speed, 11.7-18.1 in slow spells (docs/cost.md, "Session 15").
 * Several threads cost onnxruntime more per node and per run (its pool's bookkeeping on every
 * kernel, the busiest thread's CPU time). */
#define ORT_NODE_STEPS_1T 12.6
#define ORT_RUN_STEPS_1T 454.0
#define ORT_NODE_STEPS_MT 16.8
#define ORT_RUN_STEPS_MT 565.0
/* Per group of a grouped convolution on onnxruntime's generic path (tp_device_model.
 * runtime_group_ns), the same at every thread count (at 2 threads the probes' fastest runs took
 * what they took at 1: the walk was not split). Measured on the same host (2026-11-27, docs/cost.md
 * "Session 17"): depthwise 1-D convolutions of 256-1024 channels at lengths 8-64, the fastest run
 * of each against a one-node model, above what the cost model priced without the term: 0.12-0.19 us
 * per group at full speed (step 38-40 ns), about 4 steps. */
#define ORT_GROUP_STEPS 4.0

static void set_runtime_overheads(tp_device_model *d, double step_ns) {
    bool one = d->threads <= 1;
    d->runtime_node_ns = (one ? ORT_NODE_STEPS_1T : ORT_NODE_STEPS_MT) * step_ns;
    d->runtime_run_ns = (one ? ORT_RUN_STEPS_1T : ORT_RUN_STEPS_MT) * step_ns;
    d->runtime_group_ns = ORT_GROUP_STEPS * step_ns;
}

/* The rate of one reference kernel (the built-in 64³ GEMM in batches on the calling thread, best
   of 3 short trials by CPU time), taken when the calibration starts and when it ends: on a
   shared host a core's speed can change by 40 % for minutes (other tenants), which CPU time does
   not hide; a calibration whose two figures differ says so (tp_calib_info.steady_*). */
static double reference_rate(const bench_ctx *bc, float *a, float *b, float *c) {
    bench_ctx r = *bc;
    r.blas = NULL;
    r.trials = 3;
    r.min_ns = 10e6;
    return bench_gemm_mkn(&r, 64, 64, 64, a, b, c);
}

tp_status tp_calibrate_cpu(const tp_calib_options *o, tp_device_model *out, tp_calib_info *info,
                           tp_error *err) {
    tp_calib_options def;
    if (!o) {
        tp_calib_options_default(&def);
        o = &def;
    }
    if (!out) return tp_error_set(err, TP_ERR_INVALID, "calibrate: NULL result");
    double start = tp_now_ns();
    tp_cpu_features feat;
    tp_cpu_features_detect(&feat);
    const char *kname = NULL;
    tp_gemm_rows_fn rows = tp_gemm_kernel_for(feat.isa, &kname);
    if (!gemm_self_check(rows))
        return tp_error_set(err, TP_ERR_VERIFY,
                            "calibrate: built-in GEMM kernel %s failed its self-check", kname);
    uint32_t threads = o->threads ? o->threads : tp_calib_default_threads();
    if (threads > TP_POOL_MAX_THREADS) threads = TP_POOL_MAX_THREADS;
    const uint32_t *dims = o->quick ? quick_dims : full_dims;
    uint32_t n_dims = o->quick ? 3 : 7;
    uint32_t dmax = dims[n_dims - 1];
    size_t mat = (size_t)dmax * dmax;
    size_t tri_n = o->quick ? ((size_t)1 << 20) : ((size_t)4 << 20); /* doubles per array */

    tp_device_model d;
    tp_device_model_default(TP_DEVICE_CPU, &d);
    d.source = TP_SOURCE_MEASURED;
    d.threads = threads;
    d.unified = true;
    snprintf(d.name, sizeof d.name, "cpu");

    float *buf = tp_mem_alloc(NULL, 3 * mat * sizeof(float));
    double *tri = tp_mem_alloc(NULL, 3 * tri_n * sizeof(double));
    if (!buf || !tri) {
        tp_mem_free(NULL, buf, 3 * mat * sizeof(float));
        tp_mem_free(NULL, tri, 3 * tri_n * sizeof(double));
        return tp_error_set(err, TP_ERR_NOMEM, "calibrate: cannot allocate %zu MiB of buffers",
                            (3 * mat * sizeof(float) + 3 * tri_n * sizeof(double)) >> 20);
    }
    tp_pool pool;
    tp_status s = tp_pool_start(&pool, threads, err);
    if (s != TP_OK) {
        tp_mem_free(NULL, buf, 3 * mat * sizeof(float));
        tp_mem_free(NULL, tri, 3 * tri_n * sizeof(double));
        return s;
    }
    float *a = buf, *b = buf + mat, *c = buf + 2 * mat;
    fill(a, mat);
    fill(b, mat);
    bench_ctx bc = {&pool, NULL, rows, feat.isa, o->quick ? 8e6 : 30e6, o->quick ? 2 : 6, true};
    double steady_start = reference_rate(&bc, a, b, c);

    /* GEMM: the built-in kernel, then a run-time BLAS if present; keep the faster. */
    double builtin[8] = {0}, blas_g[8] = {0};
    bench_curve(&bc, dims, NULL, n_dims, dmax, a, b, c, builtin);
    blas_lib bl;
    bool have_blas = !o->no_blas && blas_open(&bl, threads);
    bench_ctx bb = bc;
    bb.blas = have_blas ? &bl : NULL;
    if (have_blas) bench_curve(&bb, dims, NULL, n_dims, dmax, a, b, c, blas_g);
    /* the implementation that is faster on the largest shape */
    bool use_blas = have_blas && blas_g[n_dims - 1] > builtin[n_dims - 1];
    d.n_gemm = n_dims;
    for (uint32_t i = 0; i < n_dims; i++) {
        d.gemm[i].dim = dims[i];
        d.gemm[i].gflops = use_blas ? blas_g[i] : builtin[i];
        if (!(d.gemm[i].gflops > 0)) d.gemm[i].gflops = 1e-3;
    }
    char blas_core[24] = ""; /* short enough for "<blas>-<core>" in gemm_impl */
    if (have_blas) blas_core_name(&bl, blas_core, sizeof blas_core);
    if (use_blas && blas_core[0])
        snprintf(d.gemm_impl, sizeof d.gemm_impl, "%.32s-%.24s", bl.name, blas_core);
    else if (use_blas)
        snprintf(d.gemm_impl, sizeof d.gemm_impl, "%s", bl.name);
    else
        snprintf(d.gemm_impl, sizeof d.gemm_impl, "%s", kname);
    /* skinny shapes with the chosen implementation */
    {
        const uint32_t *sk = o->quick ? quick_skinny : full_skinny;
        double rates[4] = {0};
        bench_curve(use_blas ? &bb : &bc, sk, sk, o->quick ? 3 : 4, dmax, a, b, c, rates);
        d.n_skinny = o->quick ? 3 : 4;
        for (uint32_t i = 0; i < d.n_skinny; i++) {
            d.skinny[i].dim = sk[i];
            d.skinny[i].gflops = rates[i] > 0 ? rates[i] : 1e-3;
        }
    }
    if (have_blas) dlclose(bl.handle);

    /* Memory: STREAM triad and a parallel memcpy (readback). */
    triad_job tj = {tri, tri + tri_n, tri + 2 * tri_n, tri_n, false};
    for (size_t i = 0; i < tri_n; i++) {
        tri[tri_n + i] = 1.0;
        tri[2 * tri_n + i] = 2.0;
    }
    d.mem_gbps = bench_triad(&bc, &tj);
    d.mem_set_bytes = (uint64_t)(3 * tri_n * sizeof(double));
    /* the same triad over a working set that stays in the caches (3 × 256 KiB): the rate of
       the elementwise, normalization and data-movement passes of a mid-size model, whose
       tensors stay in L2/L3 between producer and consumer */
    {
        enum { CACHE_N = 32768 };
        triad_job tc = {tri, tri + CACHE_N, tri + 2 * CACHE_N, CACHE_N, false};
        for (size_t i = 0; i < CACHE_N; i++) {
            tri[CACHE_N + i] = 1.0;
            tri[2 * CACHE_N + i] = 2.0;
        }
        bench_ctx cc = bc;
        cc.trials = o->quick ? 4 : 40; /* a pass is ~10 µs: many, best of */
        d.cache_gbps = bench_triad(&cc, &tc);
        d.cache_bytes = (uint64_t)(3 * CACHE_N * sizeof(double));
    }
    tj.copy = true;
    d.readback_gbps = bench_triad(&bc, &tj);
    if (!(d.mem_gbps > 0)) d.mem_gbps = 1;
    if (!(d.readback_gbps > 0)) d.readback_gbps = d.mem_gbps;
    /* Read bandwidth by working-set size (LLM decode streams its weights once per token). */
    const char *read_kernel = NULL;
    s = tp_calib_read_curve(&pool, &feat, o->quick, &d, &read_kernel, err);
    if (s != TP_OK) {
        tp_pool_stop(&pool);
        tp_mem_free(NULL, buf, 3 * mat * sizeof(float));
        tp_mem_free(NULL, tri, 3 * tri_n * sizeof(double));
        return s;
    }

    /* Op classes the GEMM curve and the triad do not describe (src/cost/calib_ops.c). */
    tp_calib_op_rates rates;
    tp_calib_measure_op_rates(&pool, &feat, o->quick, &rates);
    d.dwconv_gflops = rates.dwconv_gflops;
    d.resize_gbps = rates.resize_gbps;
    d.gemm_stream_gbps = rates.gemm_stream_gbps;
    d.norm_gbps = rates.norm_gbps;
    d.im2col_gbps = rates.im2col_gbps;
    d.col2im_gbps = rates.col2im_gbps;
    d.transpose_gbps = rates.transpose_gbps;
    d.bias_gelu_gbps = rates.bias_gelu_gbps;
    d.prelu_gbps = rates.prelu_gbps;
    d.int8_dot_gops = rates.int8_dot_gops;
    if (rates.u8s8_speedup > 0) d.int8_speedup = rates.u8s8_speedup;
    if (rates.u8u8_speedup > 0) d.u8u8_speedup = rates.u8u8_speedup;
    d.amx_int8_gops = rates.amx_int8_gops;
    d.denormal_ns = rates.denormal_ns;
    d.skip_norm_gbps = rates.skip_norm_gbps;
    d.gelu_gbps = rates.gelu_gbps;
    d.vector_floats = tp_cpu_isa_floats(feat.isa);
    double steady_end = reference_rate(&bc, a, b, c);

    /* Overheads: fork/join of the pool (dispatch) and a two-thread ping-pong. */
    d.dispatch_ns = bench_dispatch(&pool, o->quick ? 9 : 31);
    tp_pool_stop(&pool);
    tp_pool pp;
    double rt = 0;
    if (tp_pool_start(&pp, 2, NULL) == TP_OK) {
        rt = bench_dispatch(&pp, o->quick ? 9 : 31);
        tp_pool_stop(&pp);
    }
    d.round_trip_ns = rt > d.dispatch_ns ? rt : d.dispatch_ns;
    d.barrier_ns = tp_calib_spin_barrier_ns(threads, o->quick);
    d.wake_ns = tp_calib_wake_ns(threads, o->quick);
    set_runtime_overheads(&d, tp_calib_step_ns(o->quick));

    tp_mem_free(NULL, buf, 3 * mat * sizeof(float));
    tp_mem_free(NULL, tri, 3 * tri_n * sizeof(double));
    if (info) {
        memset(info, 0, sizeof *info);
        tp_cpu_model_name(info->cpu_model, sizeof info->cpu_model);
        info->elapsed_ms = (tp_now_ns() - start) / 1e6;
        info->op_rates_ms = rates.elapsed_ms;
        info->quick = o->quick;
        info->peak_gflops = derive_peak_gflops(threads);
        info->isa = feat.isa;
        info->builtin_gflops = builtin[n_dims - 1];
        info->steady_start_gflops = steady_start;
        info->steady_end_gflops = steady_end;
        if (rates.int8_kernel)
            snprintf(info->int8_kernel, sizeof info->int8_kernel, "%s", rates.int8_kernel);
        if (rates.u8s8_kernel)
            snprintf(info->u8s8_kernel, sizeof info->u8s8_kernel, "%s", rates.u8s8_kernel);
        if (rates.u8u8_kernel)
            snprintf(info->u8u8_kernel, sizeof info->u8u8_kernel, "%s", rates.u8u8_kernel);
        if (read_kernel) snprintf(info->read_kernel, sizeof info->read_kernel, "%s", read_kernel);
        info->blas_gflops = have_blas ? blas_g[n_dims - 1] : 0;
        snprintf(info->builtin_kernel, sizeof info->builtin_kernel, "%s", kname);
        snprintf(info->blas_name, sizeof info->blas_name, "%s", have_blas ? bl.name : "");
        snprintf(info->blas_core, sizeof info->blas_core, "%s", blas_core);
    }
    if ((s = tp_device_model_validate(&d, err)) != TP_OK) return s;
    *out = d;
    return TP_OK;
}

/* A cached calibration of this key; one written before the op-class micro-benchmarks
   (format 1: no depthwise rate) is stale and measured again, and so is one of an older
   TP_CALIB_FORMAT (the key differs): a benchmark that changed what it measures bumps it.
   2: the depthwise rate on one thread with independent accumulators; 3: its buffers 64-byte
   aligned and its taps unrolled (2026-11-26); 4: the multi-stream read
   curve and the AMX int8 rate (session 20); 5: the weight stream on every thread of the pool
   and the cost of a denormal operand (session 21); 6: the SkipLayerNormalization and GELU rates
   (session 23); 7: the expand replica as MLAS runs it, its im2col runs moved four floats at a
   time (not by a memcpy the compiler made `rep movsq`: 3.1 against 11.8-19.1 GB/s) and the column
   buffer packed for the GEMM, and the col2im rate (session 25); 8: the integer GEMMs' speed
   against the float32 one (int8_speedup, u8u8_speedup; session 36). */
enum { TP_CALIB_FORMAT = 8 };
void tp_calib_cache_key(uint32_t threads, char *buf, size_t cap) {
    if (!buf || cap == 0) return;
    char model[128], fam[16] = "", mod[16] = "";
    tp_cpu_model_name(model, sizeof model);
    /* A virtual machine masks the model name ("AMD EPYC") and may be restored on another host
       generation: the family and model numbers tell them apart, so a cache measured on one is
       not served on the other. */
    (void)cpuinfo_field("cpu family", fam, sizeof fam);
    (void)cpuinfo_field("model", mod, sizeof mod);
    snprintf(buf, cap, "%s|family=%s|model=%s|calib=%d|threads=%u", model, fam, mod,
             TP_CALIB_FORMAT, threads);
}

static bool load_cached(const char *path, const char *key, tp_device_model *out) {
    tp_device_model d;
    if (tp_device_model_load(path, key, &d, NULL) != TP_OK || !(d.dwconv_gflops > 0)) return false;
    if (d.threads > 1 && (!(d.barrier_ns > 0) || !(d.wake_ns > 0)))
        return false; /* measured before barrier_ns or wake_ns */
    if (!(d.gemm_stream_gbps > 0) || !(d.norm_gbps > 0) || !(d.int8_dot_gops > 0))
        return false; /* measured before the weight stream, normalization or int8 rates */
    if (d.vector_floats == 0 || !(d.im2col_gbps > 0))
        return false; /* saved before the vector width or the im2col rate */
    if (!(d.runtime_node_ns > 0) || !(d.runtime_run_ns > 0))
        return false; /* saved before the runtime's overheads were measured (session 15) */
    if (!(d.runtime_group_ns > 0))
        return false; /* saved before its per-group convolution cost (session 17) */
    if (!(d.skip_norm_gbps > 0) || !(d.gelu_gbps > 0))
        return false; /* saved before the skip-norm and GELU rates (session 23) */
    if (!(d.col2im_gbps > 0)) return false; /* saved before the col2im rate (session 25) */
    if (!(d.transpose_gbps > 0) || !(d.bias_gelu_gbps > 0))
        return false; /* saved before the transpose walk and BiasGelu rates (session 26) */
    if (!(d.prelu_gbps > 0)) return false; /* saved before the PRelu rate (session 27) */
    *out = d;
    return true;
}

tp_status tp_calibrate_cpu_cached(const tp_calib_options *o, tp_device_model *out,
                                  tp_calib_info *info, tp_error *err) {
    tp_calib_options def;
    if (!o) {
        tp_calib_options_default(&def);
        o = &def;
    }
    if (!out) return tp_error_set(err, TP_ERR_INVALID, "calibrate: NULL result");
    uint32_t threads = o->threads ? o->threads : tp_calib_default_threads();
    char model[128], dir[400], full[496], quick[512], key[256], qkey[270];
    tp_cpu_model_name(model, sizeof model);
    tp_calib_cache_key(threads, key, sizeof key);
    snprintf(qkey, sizeof qkey, "%s|quick", key);
    bool have_path = tp_calib_cache_dir(o, dir, sizeof dir, NULL) == TP_OK &&
                     tp_calib_cache_path(dir, model, threads, full, sizeof full, NULL) == TP_OK;
    if (have_path) {
        size_t n = strlen(full); /* ".../calib-x-tN.txt" -> ".../calib-x-tN-quick.txt" */
        snprintf(quick, sizeof quick, "%.*s-quick.txt", (int)(n - 4), full);
    }
    if (have_path && !o->force) {
        /* a full calibration serves every request; a quick one only quick requests */
        const char *hit = NULL;
        if (load_cached(full, key, out))
            hit = full;
        else if (o->quick && load_cached(quick, qkey, out))
            hit = quick;
        if (hit) {
            if (info) {
                memset(info, 0, sizeof *info);
                info->from_cache = true;
                info->quick = hit == quick;
                snprintf(info->cache_path, sizeof info->cache_path, "%s", hit);
                snprintf(info->cache_key, sizeof info->cache_key, "%s", key);
                snprintf(info->cpu_model, sizeof info->cpu_model, "%s", model);
                info->peak_gflops = derive_peak_gflops(threads);
                tp_cpu_features feat;
                tp_cpu_features_detect(&feat);
                info->isa = feat.isa;
                const char *kname = NULL;
                (void)tp_gemm_kernel_for(feat.isa, &kname);
                snprintf(info->builtin_kernel, sizeof info->builtin_kernel, "%s", kname);
                snprintf(info->read_kernel, sizeof info->read_kernel, "%s",
                         tp_calib_read_kernel_name(&feat));
            }
            return TP_OK;
        }
    }
    tp_calib_options o2 = *o;
    o2.threads = threads;
    tp_calib_info local;
    tp_status s = tp_calibrate_cpu(&o2, out, &local, err);
    if (s != TP_OK) return s;
    local.cache_path[0] = '\0';
    const char *path = o->quick ? quick : full;
    if (have_path && tp_device_model_save(out, o->quick ? qkey : key, path, NULL) == TP_OK)
        snprintf(local.cache_path, sizeof local.cache_path, "%s", path);
    snprintf(local.cache_key, sizeof local.cache_key, "%s", key);
    if (info) *info = local;
    return TP_OK;
}
