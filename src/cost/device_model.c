/* Device models: kinds, sources, defaults, validation, GEMM throughput curve. */
#include "tensorplan/cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cost/gemm_rate.h"

static const char *const device_kind_names[TP_DEVICE_KIND_COUNT] = {"cuda", "rocm", "metal", "gpu",
                                                                    "cpu"};

const char *tp_device_kind_name(tp_device_kind k) {
    if ((unsigned)k >= TP_DEVICE_KIND_COUNT) return "?";
    return device_kind_names[k];
}

const char *tp_model_source_name(tp_model_source s) {
    switch (s) {
    case TP_SOURCE_DEFAULT:
        return "default";
    case TP_SOURCE_CATALOG:
        return "catalog";
    case TP_SOURCE_MEASURED:
        return "measured";
    }
    return "?";
}

tp_status tp_device_kind_parse(const char *s, tp_device_kind *out, tp_error *err) {
    for (int i = 0; s && i < TP_DEVICE_KIND_COUNT; i++) {
        if (strcasecmp(s, device_kind_names[i]) == 0) {
            *out = (tp_device_kind)i;
            return TP_OK;
        }
    }
    return tp_error_set(err, TP_ERR_NOT_FOUND,
                        "unknown device kind '%s' (expected cuda, rocm, metal, gpu or cpu)",
                        s ? s : "(null)");
}

/* Conservative built-in figures (docs/cost.md, "default models"). */
void tp_device_model_default(tp_device_kind kind, tp_device_model *out) {
    tp_device_model d;
    memset(&d, 0, sizeof d);
    if ((unsigned)kind >= TP_DEVICE_KIND_COUNT) kind = TP_DEVICE_CPU;
    d.kind = kind;
    d.source = TP_SOURCE_DEFAULT;
    d.f16_speedup = d.bf16_speedup = d.int8_speedup = 1.0;
    d.efficiency = 1.0;
    snprintf(d.name, sizeof d.name, "%s-default", device_kind_names[kind]);
    snprintf(d.gemm_impl, sizeof d.gemm_impl, "default");
    if (kind == TP_DEVICE_CPU) {
        static const tp_gemm_point c[] = {{16, 4}, {64, 20}, {256, 40}, {1024, 50}};
        d.n_gemm = 4;
        memcpy(d.gemm, c, sizeof c);
        d.dispatch_ns = 2000;
        d.round_trip_ns = 20000;
        d.mem_gbps = 10;
        d.readback_gbps = 10;
        d.unified = true;
        d.threads = 1;
    } else {
        static const tp_gemm_point gp[] = {{16, 20}, {128, 1000}, {1024, 5000}, {4096, 8000}};
        d.n_gemm = 4;
        memcpy(d.gemm, gp, sizeof gp);
        d.f16_speedup = d.bf16_speedup = 2.0;
        d.int8_speedup = 4.0;
        d.dispatch_ns = 8000;
        d.round_trip_ns = 30000;
        d.mem_gbps = kind == TP_DEVICE_METAL ? 100 : 300;
        d.readback_gbps = kind == TP_DEVICE_METAL ? 100 : 10;
        d.unified = kind == TP_DEVICE_METAL;
    }
    *out = d;
}

static bool pos_finite(double v) {
    return isfinite(v) && v > 0;
}

/* A bandwidth curve: at most TP_READ_CURVE_MAX points, positive, sorted by size. */
static tp_status validate_bw_curve(const char *nm, const char *what, const tp_bw_point *p,
                                   uint32_t n, tp_error *err) {
    if (n > TP_READ_CURVE_MAX)
        return tp_error_set(err, TP_ERR_INVALID, "device '%s': %s has %u points, need 0..%d", nm,
                            what, n, TP_READ_CURVE_MAX);
    for (uint32_t i = 0; i < n; i++) {
        if (!pos_finite(p[i].bytes) || !pos_finite(p[i].gbps))
            return tp_error_set(err, TP_ERR_INVALID,
                                "device '%s': %s point %u (%g bytes, %g GB/s) must be "
                                "positive and finite",
                                nm, what, i, p[i].bytes, p[i].gbps);
        if (i > 0 && !(p[i].bytes > p[i - 1].bytes))
            return tp_error_set(err, TP_ERR_INVALID,
                                "device '%s': %s points not sorted by size (%g after %g)", nm, what,
                                p[i].bytes, p[i - 1].bytes);
    }
    return TP_OK;
}

tp_status tp_device_model_validate(const tp_device_model *d, tp_error *err) {
    if (!d) return tp_error_set(err, TP_ERR_INVALID, "device model is NULL");
    const char *nm = d->name;
    if ((unsigned)d->kind >= TP_DEVICE_KIND_COUNT)
        return tp_error_set(err, TP_ERR_INVALID, "device '%s': kind %d out of range", nm,
                            (int)d->kind);
    if ((unsigned)d->source > TP_SOURCE_MEASURED)
        return tp_error_set(err, TP_ERR_INVALID, "device '%s': source %d out of range", nm,
                            (int)d->source);
    if (d->n_gemm < 1 || d->n_gemm > TP_GEMM_CURVE_MAX)
        return tp_error_set(err, TP_ERR_INVALID, "device '%s': n_gemm = %u, need 1..%d", nm,
                            d->n_gemm, TP_GEMM_CURVE_MAX);
    for (uint32_t i = 0; i < d->n_gemm; i++) {
        if (!pos_finite(d->gemm[i].dim) || !pos_finite(d->gemm[i].gflops))
            return tp_error_set(err, TP_ERR_INVALID,
                                "device '%s': gemm point %u (dim %g, %g GFLOP/s) must be "
                                "positive and finite",
                                nm, i, d->gemm[i].dim, d->gemm[i].gflops);
        if (i > 0 && !(d->gemm[i].dim > d->gemm[i - 1].dim))
            return tp_error_set(err, TP_ERR_INVALID,
                                "device '%s': gemm points not sorted by dim (%g after %g)", nm,
                                d->gemm[i].dim, d->gemm[i - 1].dim);
    }
    if (d->n_skinny > TP_GEMM_CURVE_MAX)
        return tp_error_set(err, TP_ERR_INVALID, "device '%s': n_skinny = %u, need 0..%d", nm,
                            d->n_skinny, TP_GEMM_CURVE_MAX);
    for (uint32_t i = 0; i < d->n_skinny; i++) {
        if (!pos_finite(d->skinny[i].dim) || !pos_finite(d->skinny[i].gflops))
            return tp_error_set(err, TP_ERR_INVALID,
                                "device '%s': skinny point %u (dim %g, %g GFLOP/s) must be "
                                "positive and finite",
                                nm, i, d->skinny[i].dim, d->skinny[i].gflops);
        if (i > 0 && !(d->skinny[i].dim > d->skinny[i - 1].dim))
            return tp_error_set(err, TP_ERR_INVALID,
                                "device '%s': skinny points not sorted by dim (%g after %g)", nm,
                                d->skinny[i].dim, d->skinny[i - 1].dim);
    }
    tp_status st = validate_bw_curve(nm, "read", d->read, d->n_read, err);
    if (st == TP_OK)
        st = validate_bw_curve(nm, "read_streams", d->read_streams, d->n_read_streams, err);
    if (st != TP_OK) return st;
    struct {
        const char *field;
        double v;
        bool allow_zero;
    } f[] = {
        {"mem_gbps", d->mem_gbps, false},
        {"readback_gbps", d->readback_gbps, false},
        {"dispatch_ns", d->dispatch_ns, true},
        {"round_trip_ns", d->round_trip_ns, true},
        {"barrier_ns", d->barrier_ns, true},
        {"wake_ns", d->wake_ns, true},
        {"f16_speedup", d->f16_speedup, true},
        {"bf16_speedup", d->bf16_speedup, true},
        {"int8_speedup", d->int8_speedup, true},
        {"u8u8_speedup", d->u8u8_speedup, true},
        {"efficiency", d->efficiency, true},
        {"dwconv_gflops", d->dwconv_gflops, true},
        {"resize_gbps", d->resize_gbps, true},
        {"cache_gbps", d->cache_gbps, true},
        {"gemm_stream_gbps", d->gemm_stream_gbps, true},
        {"norm_gbps", d->norm_gbps, true},
        {"int8_dot_gops", d->int8_dot_gops, true},
        {"im2col_gbps", d->im2col_gbps, true},
        {"amx_int8_gops", d->amx_int8_gops, true},
        {"denormal_ns", d->denormal_ns, true},
        {"skip_norm_gbps", d->skip_norm_gbps, true},
        {"gelu_gbps", d->gelu_gbps, true},
        {"col2im_gbps", d->col2im_gbps, true},
        {"transpose_gbps", d->transpose_gbps, true},
        {"bias_gelu_gbps", d->bias_gelu_gbps, true},
        {"prelu_gbps", d->prelu_gbps, true},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        bool ok = isfinite(f[i].v) && (f[i].allow_zero ? f[i].v >= 0 : f[i].v > 0);
        if (!ok)
            return tp_error_set(err, TP_ERR_INVALID, "device '%s': %s = %g is not %s", nm,
                                f[i].field, f[i].v,
                                f[i].allow_zero ? "finite and >= 0" : "finite and > 0");
    }
    return TP_OK;
}

static double speedup_for(const tp_device_model *d, tp_dtype t) {
    double s = 1.0;
    switch (t) {
    case TP_DTYPE_F16:
        s = d->f16_speedup;
        break;
    case TP_DTYPE_BF16:
        s = d->bf16_speedup;
        break;
    case TP_DTYPE_U8: /* an integer product's compute dtype: both operands unsigned */
        s = d->u8u8_speedup > 0 ? d->u8u8_speedup : d->int8_speedup;
        break;
    case TP_DTYPE_I8:
    case TP_DTYPE_F8E4M3:
    case TP_DTYPE_F8E5M2:
        s = d->int8_speedup;
        break;
    default:
        break;
    }
    return s > 0 ? s : 1.0;
}

/* Log-linear interpolation of a curve at x, clamped at both ends. */
static double interp(const tp_gemm_point *p, uint32_t cnt, double x) {
    if (cnt == 1 || x <= p[0].dim) return p[0].gflops;
    if (x >= p[cnt - 1].dim) return p[cnt - 1].gflops;
    uint32_t i = 1;
    while (i < cnt - 1 && x > p[i].dim)
        i++;
    double t = (log(x) - log(p[i - 1].dim)) / (log(p[i].dim) - log(p[i - 1].dim));
    return p[i - 1].gflops + t * (p[i].gflops - p[i - 1].gflops);
}

/* The square curve's upper envelope at the cube root of m·k·n (f32, before the dtype speedup). */
static double square_gflops(const tp_device_model *d, double fm, double fk, double fn) {
    uint32_t cnt = d->n_gemm > TP_GEMM_CURVE_MAX ? TP_GEMM_CURVE_MAX : d->n_gemm;
    /* Upper envelope of the square curve (running maximum): a runtime's GEMM does not get
       slower on larger shapes, it picks blockings for them; a measured dip at large dims is
       the calibration kernel's cache blocking (or a shared cache) and would over-price every
       large convolution (docs/cost.md, "GEMM envelope"). */
    tp_gemm_point env[TP_GEMM_CURVE_MAX];
    for (uint32_t i = 0; i < cnt; i++) {
        env[i] = d->gemm[i];
        if (i > 0 && env[i - 1].gflops > env[i].gflops) env[i].gflops = env[i - 1].gflops;
    }
    return interp(env, cnt, cbrt(fm * fk * fn));
}

/* The skinny curve at `small`, when below its last point; else +inf. */
static double skinny_gflops(const tp_device_model *d, double small) {
    uint32_t ns = d->n_skinny > TP_GEMM_CURVE_MAX ? TP_GEMM_CURVE_MAX : d->n_skinny;
    if (ns == 0 || !(small < d->skinny[ns - 1].dim)) return INFINITY;
    return interp(d->skinny, ns, small);
}

double tp__gemm_rows_gflops(const tp_device_model *d, tp_dtype dtype, uint64_t m, uint64_t k,
                            uint64_t n) {
    if (!d || d->n_gemm == 0) return 1.0;
    double fk = (double)(k ? k : 1);
    double g = square_gflops(d, (double)(m ? m : 1), fk, (double)(n ? n : 1));
    double s = skinny_gflops(d, fk);
    if (s < g) g = s;
    g *= speedup_for(d, dtype);
    return g > 0 && isfinite(g) ? g : 1e-9;
}

double tp__weight_stream_share(const tp_device_model *d, double weight_set_bytes) {
    uint32_t n = d && d->n_read < TP_READ_CURVE_MAX ? d->n_read : TP_READ_CURVE_MAX;
    if (!d || n < 2 || !(weight_set_bytes > 0)) return 0;
    double lo = 1.0 / tp_device_read_gbps(d, d->read[0].bytes);
    double hi = 1.0 / tp_device_read_gbps(d, d->read[n - 1].bytes);
    double at = 1.0 / tp_device_read_gbps(d, weight_set_bytes);
    if (!(hi > lo)) return weight_set_bytes >= d->read[n - 1].bytes ? 1 : 0;
    double f = (at - lo) / (hi - lo);
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

double tp_device_gemm_gflops(const tp_device_model *d, tp_dtype dtype, uint64_t m, uint64_t k,
                             uint64_t n) {
    if (!d || d->n_gemm == 0) return 1.0;
    double fm = (double)(m ? m : 1), fk = (double)(k ? k : 1), fn = (double)(n ? n : 1);
    double g = square_gflops(d, fm, fk, fn);
    /* the skinny curve is measured with few rows (m × K · K × K): the row blocking of a
       micro-kernel idles and B streams with little reuse (decode steps). A GEMM with few
       output columns (n: a convolution with 32 output channels) streams A with n-fold
       reuse through full-width register blocks and follows the square curve. */
    double s = skinny_gflops(d, fm < fk ? fm : fk);
    if (s < g) g = s;
    g *= speedup_for(d, dtype);
    return g > 0 && isfinite(g) ? g : 1e-9;
}

/* Log-linear interpolation of a bandwidth curve in the size, clamped at the ends. */
static double bw_curve_at(const tp_bw_point *p, uint32_t n, double bytes) {
    tp_gemm_point pts[TP_READ_CURVE_MAX]; /* the same log-linear reading as the GEMM curve */
    if (n > TP_READ_CURVE_MAX) n = TP_READ_CURVE_MAX;
    for (uint32_t i = 0; i < n; i++)
        pts[i] = (tp_gemm_point){p[i].bytes, p[i].gbps};
    double g = interp(pts, n, bytes);
    return g > 0 && isfinite(g) ? g : 1e-9;
}

double tp_device_read_gbps(const tp_device_model *d, double bytes) {
    if (!d) return 1e-9;
    if (d->n_read == 0) return d->mem_gbps > 0 ? d->mem_gbps : 1e-9;
    return bw_curve_at(d->read, d->n_read, bytes);
}

double tp_device_read_streams_gbps(const tp_device_model *d, double bytes) {
    if (!d) return 1e-9;
    if (d->n_read_streams == 0) return tp_device_read_gbps(d, bytes);
    return bw_curve_at(d->read_streams, d->n_read_streams, bytes);
}

/* Memory-bound passes: the triad's cache rate up to cache_bytes and its memory rate from
   mem_set_bytes on. In between, with a measured read curve (the working-set sizes from 4 MiB
   on): where the curve is above the triad's memory rate (a cache still holds the pass), the
   curve's own rate; where it is below, the curve's shape at the triad's level (scaled so that it
   meets mem_gbps at mem_set_bytes; the triad's streams reach more of the memory's bandwidth than
   one read does), at most mem_gbps. Up to the curve's first point, a log-linear step from the
   cache rate. Where a machine's caches stop holding a pass is what it measured, not a straight
   line to mem_set_bytes (session 13: held-out MAPE 28.3 -> 23.2 % at one thread). A pass in a
   cache streams no faster than a read there: on the session-19+ host (a large L3) a vectorized
   add of 6-48 MiB ran at 20-25 GB/s, onnxruntime's elementwise kernels of 2-32 MiB at 18-20,
   the read curve 18-22, while its scaled shape (x1.7) gave 31-37 (docs/cost.md, "Passes in a
   cache"). */
static double curve_pass_gbps(const tp_device_model *d, double bytes, double scale) {
    double r = tp_device_read_gbps(d, bytes);
    if (r > d->mem_gbps) return r;
    r *= scale;
    return r < d->mem_gbps ? r : d->mem_gbps;
}

double tp_device_mem_gbps(const tp_device_model *d, uint64_t bytes) {
    if (!d || !(d->mem_gbps > 0)) return 1e-9;
    double m = d->mem_gbps, c = d->cache_gbps;
    if (!(c > m) || d->cache_bytes == 0 || d->mem_set_bytes <= d->cache_bytes) return m;
    if (bytes <= d->cache_bytes) return c;
    if (bytes >= d->mem_set_bytes) return m;
    double x = (double)bytes, cb = (double)d->cache_bytes;
    uint32_t n = d->n_read > TP_READ_CURVE_MAX ? TP_READ_CURVE_MAX : d->n_read;
    double first = n > 0 ? d->read[0].bytes : 0;
    double at_mem = n > 0 ? tp_device_read_gbps(d, (double)d->mem_set_bytes) : 0;
    if (first > cb && first < (double)d->mem_set_bytes && at_mem > 0) {
        double scale = m / at_mem;
        double g = x >= first ? curve_pass_gbps(d, x, scale) : 0;
        if (x < first) {
            double r0 = curve_pass_gbps(d, first, scale);
            if (r0 > c) r0 = c;
            g = c + log(x / cb) / log(first / cb) * (r0 - c);
        }
        if (g > c) g = c;
        return g > 0 && isfinite(g) ? g : m;
    }
    double t = log(x / cb) / log((double)d->mem_set_bytes / cb);
    return c + t * (m - c);
}
