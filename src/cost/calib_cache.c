/* Calibration cache: one device model per key=value text file under
 * $XDG_CACHE_HOME/tensorplan (else ~/.cache/tensorplan), keyed by CPU model
 * and thread count. */
#include "tensorplan/cost.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/mem.h"

/* 2: op-class rates, the cache point and the read curve; format 1 files load with 0 */
#define CACHE_FORMAT 2
#define CACHE_MAX_BYTES 65536

tp_status tp_calib_cache_dir(const tp_calib_options *o, char *buf, size_t cap, tp_error *err) {
    if (o && o->cache_dir && *o->cache_dir) {
        if ((size_t)snprintf(buf, cap, "%s", o->cache_dir) >= cap)
            return tp_error_set(err, TP_ERR_INVALID, "cache directory path too long");
        return TP_OK;
    }
    return tp_error_set(err, TP_ERR_NOT_FOUND,
                        "no cache directory (tp_calib_options.cache_dir is not set)");
}

tp_status tp_calib_cache_path(const char *dir, const char *cpu_model, uint32_t threads, char *buf,
                              size_t cap, tp_error *err) {
    if (!dir || !cpu_model || !buf)
        return tp_error_set(err, TP_ERR_INVALID, "cache path: NULL argument");
    char slug[81];
    size_t k = 0;
    bool dash = false;
    for (const char *p = cpu_model; *p && k < sizeof slug - 1; p++) {
        char ch = *p;
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
            slug[k++] = ch;
            dash = false;
        } else if (ch >= 'A' && ch <= 'Z') {
            slug[k++] = (char)(ch - 'A' + 'a');
            dash = false;
        } else if (!dash && k > 0) {
            slug[k++] = '-';
            dash = true;
        }
    }
    while (k > 0 && slug[k - 1] == '-')
        k--;
    slug[k] = '\0';
    if (k == 0) snprintf(slug, sizeof slug, "unknown");
    int n = snprintf(buf, cap, "%s/calib-%s-t%u.txt", dir, slug, threads);
    if (n < 0 || (size_t)n >= cap) return tp_error_set(err, TP_ERR_INVALID, "cache path too long");
    return TP_OK;
}

/* mkdir -p for the parent directories of path. */
static tp_status make_parents(const char *path, tp_error *err) {
    char tmp[1024];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return tp_error_set(err, TP_ERR_INVALID, "path too long: %s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return tp_error_set(err, TP_ERR_IO, "cannot create directory %s: %s", tmp,
                                strerror(errno));
        *p = '/';
    }
    return TP_OK;
}

/* "\nNAME=bytes:gbps bytes:gbps ..." (nothing for an empty curve). */
static void write_bw_curve(FILE *f, const char *name, const tp_bw_point *p, uint32_t n) {
    if (n > 0) fprintf(f, "\n%s=", name);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%s%.17g:%.17g", i ? " " : "", p[i].bytes, p[i].gbps);
}

tp_status tp_device_model_save(const tp_device_model *d, const char *key, const char *path,
                               tp_error *err) {
    tp_status s = tp_device_model_validate(d, err);
    if (s != TP_OK) return s;
    if (!path || !key) return tp_error_set(err, TP_ERR_INVALID, "save: NULL path or key");
    if (strchr(key, '\n'))
        return tp_error_set(err, TP_ERR_INVALID, "save: key contains a line break");
    if (strchr(d->name, '\n') || strchr(d->gemm_impl, '\n'))
        return tp_error_set(err, TP_ERR_INVALID,
                            "save: device name or gemm_impl contains a line break");
    if ((s = make_parents(path, err)) != TP_OK) return s;
    char tmp[1100];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return tp_error_set(err, TP_ERR_INVALID, "path too long: %s", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return tp_error_set(err, TP_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    fprintf(f, "# tensorplan device model (units: ns, GFLOP/s, GB/s = bytes/ns)\n");
    fprintf(f, "format=%d\nkey=%s\nname=%s\nkind=%s\nsource=%s\ngemm_impl=%s\ngemm=", CACHE_FORMAT,
            key, d->name, tp_device_kind_name(d->kind), tp_model_source_name(d->source),
            d->gemm_impl);
    for (uint32_t i = 0; i < d->n_gemm; i++)
        fprintf(f, "%s%.17g:%.17g", i ? " " : "", d->gemm[i].dim, d->gemm[i].gflops);
    if (d->n_skinny > 0) fprintf(f, "\nskinny=");
    for (uint32_t i = 0; i < d->n_skinny; i++)
        fprintf(f, "%s%.17g:%.17g", i ? " " : "", d->skinny[i].dim, d->skinny[i].gflops);
    write_bw_curve(f, "read", d->read, d->n_read);
    write_bw_curve(f, "read_streams", d->read_streams, d->n_read_streams);
    fprintf(f,
            "\nf16_speedup=%.17g\nbf16_speedup=%.17g\nint8_speedup=%.17g\ndispatch_ns=%.17g\n"
            "round_trip_ns=%.17g\nmem_gbps=%.17g\nreadback_gbps=%.17g\nunified=%d\nthreads=%u\n"
            "memory_bytes=%llu\nefficiency=%.17g\ndwconv_gflops=%.17g\nresize_gbps=%.17g\n"
            "cache_gbps=%.17g\ncache_bytes=%llu\nmem_set_bytes=%llu\nbarrier_ns=%.17g\n"
            "wake_ns=%.17g\ngemm_stream_gbps=%.17g\nnorm_gbps=%.17g\nint8_dot_gops=%.17g\n"
            "vector_floats=%u\nim2col_gbps=%.17g\nruntime_node_ns=%.17g\nruntime_run_ns=%.17g\n"
            "runtime_group_ns=%.17g\namx_int8_gops=%.17g\ndenormal_ns=%.17g\n"
            "skip_norm_gbps=%.17g\ngelu_gbps=%.17g\ncol2im_gbps=%.17g\ntranspose_gbps=%.17g\n"
            "bias_gelu_gbps=%.17g\nprelu_gbps=%.17g\nu8u8_speedup=%.17g\n",
            d->f16_speedup, d->bf16_speedup, d->int8_speedup, d->dispatch_ns, d->round_trip_ns,
            d->mem_gbps, d->readback_gbps, d->unified ? 1 : 0, d->threads,
            (unsigned long long)d->memory_bytes, d->efficiency, d->dwconv_gflops, d->resize_gbps,
            d->cache_gbps, (unsigned long long)d->cache_bytes, (unsigned long long)d->mem_set_bytes,
            d->barrier_ns, d->wake_ns, d->gemm_stream_gbps, d->norm_gbps, d->int8_dot_gops,
            d->vector_floats, d->im2col_gbps, d->runtime_node_ns, d->runtime_run_ns,
            d->runtime_group_ns, d->amx_int8_gops, d->denormal_ns, d->skip_norm_gbps, d->gelu_gbps,
            d->col2im_gbps, d->transpose_gbps, d->bias_gelu_gbps, d->prelu_gbps, d->u8u8_speedup);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0) bad = true;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return tp_error_set(err, TP_ERR_IO, "cannot write %s: %s", path, strerror(e));
    }
    return TP_OK;
}

static tp_status parse_double(const char *v, double *out, const char *path, int line, const char *k,
                              tp_error *err) {
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0 || !isfinite(x))
        return tp_error_set(err, TP_ERR_PARSE, "%s:%d: %s: '%s' is not a number", path, line, k, v);
    *out = x;
    return TP_OK;
}

static tp_status parse_curve(char *v, tp_gemm_point *pts, uint32_t *count, const char *path,
                             int line, tp_error *err) {
    *count = 0;
    char *save = NULL;
    for (char *tok = strtok_r(v, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *colon = strchr(tok, ':');
        if (!colon || *count >= TP_GEMM_CURVE_MAX)
            return tp_error_set(err, TP_ERR_PARSE,
                                "%s:%d: curve: expected up to %d 'dim:gflops' pairs", path, line,
                                TP_GEMM_CURVE_MAX);
        *colon = '\0';
        tp_gemm_point pt;
        tp_status s = parse_double(tok, &pt.dim, path, line, "curve dim", err);
        if (s == TP_OK) s = parse_double(colon + 1, &pt.gflops, path, line, "curve gflops", err);
        if (s != TP_OK) return s;
        pts[(*count)++] = pt;
    }
    return TP_OK;
}

/* A bandwidth curve: bytes:gbps pairs, the GEMM curve's syntax. */
static tp_status parse_bw_curve(char *v, const char *k, tp_bw_point *out, uint32_t *count,
                                const char *path, int line, tp_error *err) {
    tp_gemm_point pts[TP_GEMM_CURVE_MAX];
    uint32_t n = 0;
    tp_status s = parse_curve(v, pts, &n, path, line, err);
    if (s != TP_OK) return s;
    if (n > TP_READ_CURVE_MAX)
        return tp_error_set(err, TP_ERR_PARSE, "%s:%d: %s: more than %d points", path, line, k,
                            TP_READ_CURVE_MAX);
    for (uint32_t i = 0; i < n; i++)
        out[i] = (tp_bw_point){pts[i].dim, pts[i].gflops};
    *count = n;
    return TP_OK;
}

static tp_status parse_text(char *text, const char *path, const char *want_key, tp_device_model *d,
                            tp_error *err) {
    enum { F_FORMAT, F_KEY, F_NAME, F_KIND, F_SOURCE, F_GEMM, F_MEM, F_READBACK, F_COUNT };
    bool seen[F_COUNT] = {false};
    tp_device_model_default(TP_DEVICE_CPU, d);
    int line = 0;
    char *save = NULL;
    tp_status s = TP_OK;
    for (char *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
        line++;
        size_t len = strlen(ln);
        if (len > 0 && ln[len - 1] == '\r') ln[len - 1] = '\0'; /* CRLF files */
        if (*ln == '#' || *ln == '\0') continue;
        char *eq = strchr(ln, '=');
        if (!eq) return tp_error_set(err, TP_ERR_PARSE, "%s:%d: expected key=value", path, line);
        *eq = '\0';
        const char *k = ln;
        char *v = eq + 1;
        double x = 0;
        if (strcmp(k, "format") == 0) {
            if (strcmp(v, "1") != 0 && strcmp(v, "2") != 0)
                return tp_error_set(err, TP_ERR_PARSE, "%s:%d: unsupported format %s", path, line,
                                    v);
            seen[F_FORMAT] = true;
        } else if (strcmp(k, "key") == 0) {
            if (want_key && strcmp(v, want_key) != 0)
                return tp_error_set(err, TP_ERR_NOT_FOUND, "%s: calibrated for '%s', not '%s'",
                                    path, v, want_key);
            seen[F_KEY] = true;
        } else if (strcmp(k, "name") == 0) {
            snprintf(d->name, sizeof d->name, "%s", v);
            seen[F_NAME] = true;
        } else if (strcmp(k, "kind") == 0) {
            if ((s = tp_device_kind_parse(v, &d->kind, err)) != TP_OK) {
                tp_error_prefix(err, "%s:%d: ", path, line);
                if (err) err->status = TP_ERR_PARSE; /* the status returned */
                return TP_ERR_PARSE;
            }
            seen[F_KIND] = true;
        } else if (strcmp(k, "source") == 0) {
            if (strcmp(v, "measured") == 0)
                d->source = TP_SOURCE_MEASURED;
            else if (strcmp(v, "catalog") == 0)
                d->source = TP_SOURCE_CATALOG;
            else if (strcmp(v, "default") == 0)
                d->source = TP_SOURCE_DEFAULT;
            else
                return tp_error_set(err, TP_ERR_PARSE, "%s:%d: unknown source '%s'", path, line, v);
            seen[F_SOURCE] = true;
        } else if (strcmp(k, "gemm_impl") == 0) {
            snprintf(d->gemm_impl, sizeof d->gemm_impl, "%s", v);
        } else if (strcmp(k, "gemm") == 0) {
            if ((s = parse_curve(v, d->gemm, &d->n_gemm, path, line, err)) != TP_OK) return s;
            seen[F_GEMM] = true;
        } else if (strcmp(k, "skinny") == 0) {
            if ((s = parse_curve(v, d->skinny, &d->n_skinny, path, line, err)) != TP_OK) return s;
        } else if (strcmp(k, "read") == 0) {
            if ((s = parse_bw_curve(v, k, d->read, &d->n_read, path, line, err)) != TP_OK) return s;
        } else if (strcmp(k, "read_streams") == 0) {
            if ((s = parse_bw_curve(v, k, d->read_streams, &d->n_read_streams, path, line, err)) !=
                TP_OK)
                return s;
        } else if (strcmp(k, "unified") == 0) {
            d->unified = strcmp(v, "1") == 0;
        } else {
            if ((s = parse_double(v, &x, path, line, k, err)) != TP_OK) return s;
            if (strcmp(k, "f16_speedup") == 0)
                d->f16_speedup = x;
            else if (strcmp(k, "bf16_speedup") == 0)
                d->bf16_speedup = x;
            else if (strcmp(k, "int8_speedup") == 0)
                d->int8_speedup = x;
            else if (strcmp(k, "u8u8_speedup") == 0)
                d->u8u8_speedup = x;
            else if (strcmp(k, "dispatch_ns") == 0)
                d->dispatch_ns = x;
            else if (strcmp(k, "round_trip_ns") == 0)
                d->round_trip_ns = x;
            else if (strcmp(k, "mem_gbps") == 0) {
                d->mem_gbps = x;
                seen[F_MEM] = true;
            } else if (strcmp(k, "readback_gbps") == 0) {
                d->readback_gbps = x;
                seen[F_READBACK] = true;
            } else if (strcmp(k, "threads") == 0)
                d->threads = x >= 0 && x < 1e6 ? (uint32_t)x : 0;
            else if (strcmp(k, "vector_floats") == 0)
                d->vector_floats = x >= 0 && x <= 1024 ? (uint32_t)x : 0;
            else if (strcmp(k, "memory_bytes") == 0)
                d->memory_bytes = x >= 0 && x < 1.8e19 ? (uint64_t)x : 0;
            else if (strcmp(k, "efficiency") == 0)
                d->efficiency = x;
            else if (strcmp(k, "barrier_ns") == 0)
                d->barrier_ns = x;
            else if (strcmp(k, "wake_ns") == 0)
                d->wake_ns = x;
            else if (strcmp(k, "gemm_stream_gbps") == 0)
                d->gemm_stream_gbps = x;
            else if (strcmp(k, "norm_gbps") == 0)
                d->norm_gbps = x;
            else if (strcmp(k, "im2col_gbps") == 0)
                d->im2col_gbps = x;
            else if (strcmp(k, "runtime_node_ns") == 0)
                d->runtime_node_ns = x;
            else if (strcmp(k, "runtime_run_ns") == 0)
                d->runtime_run_ns = x;
            else if (strcmp(k, "runtime_group_ns") == 0)
                d->runtime_group_ns = x;
            else if (strcmp(k, "int8_dot_gops") == 0)
                d->int8_dot_gops = x;
            else if (strcmp(k, "amx_int8_gops") == 0)
                d->amx_int8_gops = x;
            else if (strcmp(k, "denormal_ns") == 0)
                d->denormal_ns = x;
            else if (strcmp(k, "skip_norm_gbps") == 0)
                d->skip_norm_gbps = x;
            else if (strcmp(k, "gelu_gbps") == 0)
                d->gelu_gbps = x;
            else if (strcmp(k, "col2im_gbps") == 0)
                d->col2im_gbps = x;
            else if (strcmp(k, "transpose_gbps") == 0)
                d->transpose_gbps = x;
            else if (strcmp(k, "bias_gelu_gbps") == 0)
                d->bias_gelu_gbps = x;
            else if (strcmp(k, "prelu_gbps") == 0)
                d->prelu_gbps = x;
            else if (strcmp(k, "dwconv_gflops") == 0)
                d->dwconv_gflops = x;
            else if (strcmp(k, "resize_gbps") == 0)
                d->resize_gbps = x;
            else if (strcmp(k, "cache_gbps") == 0)
                d->cache_gbps = x;
            else if (strcmp(k, "cache_bytes") == 0)
                d->cache_bytes = x >= 0 && x < 1.8e19 ? (uint64_t)x : 0;
            else if (strcmp(k, "mem_set_bytes") == 0)
                d->mem_set_bytes = x >= 0 && x < 1.8e19 ? (uint64_t)x : 0;
            else
                return tp_error_set(err, TP_ERR_PARSE, "%s:%d: unknown key '%s'", path, line, k);
        }
    }
    static const char *const names[F_COUNT] = {"format", "key",  "name",     "kind",
                                               "source", "gemm", "mem_gbps", "readback_gbps"};
    for (int i = 0; i < F_COUNT; i++)
        if (!seen[i]) return tp_error_set(err, TP_ERR_PARSE, "%s: missing '%s'", path, names[i]);
    if ((s = tp_device_model_validate(d, err)) != TP_OK) {
        tp_error_prefix(err, "%s: ", path);
        if (err) err->status = TP_ERR_PARSE; /* the status returned */
        return TP_ERR_PARSE;
    }
    return TP_OK;
}

tp_status tp_device_model_load(const char *path, const char *key, tp_device_model *out,
                               tp_error *err) {
    if (!path || !out) return tp_error_set(err, TP_ERR_INVALID, "load: NULL path or result");
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        return tp_error_set(err, e == ENOENT ? TP_ERR_NOT_FOUND : TP_ERR_IO, "cannot open %s: %s",
                            path, strerror(e));
    }
    char *text = tp_mem_alloc(NULL, CACHE_MAX_BYTES + 1);
    if (!text) {
        fclose(f);
        return tp_error_set(err, TP_ERR_NOMEM, "load %s: out of memory", path);
    }
    size_t n = fread(text, 1, CACHE_MAX_BYTES + 1, f);
    bool rerr = ferror(f) != 0;
    fclose(f);
    tp_status s;
    if (rerr) {
        s = tp_error_set(err, TP_ERR_IO, "cannot read %s", path);
    } else if (n > CACHE_MAX_BYTES) {
        s = tp_error_set(err, TP_ERR_PARSE, "%s: larger than %d bytes", path, CACHE_MAX_BYTES);
    } else {
        text[n] = '\0';
        tp_device_model d;
        s = parse_text(text, path, key, &d, err);
        if (s == TP_OK) *out = d;
    }
    tp_mem_free(NULL, text, CACHE_MAX_BYTES + 1);
    return s;
}
