/* Device catalog: spec-sheet figures parsed from CSV, efficiency factors, and
 * device models built from them. */
#include "tensorplan/cost.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/mem.h"
#include "cost/catalog_builtin.h"

#define CATALOG_MAX_BYTES (1u << 20)
#define BANDWIDTH_EFFICIENCY 0.8

struct tp_catalog {
    const tp_allocator *alloc;
    tp_catalog_entry *e;
    size_t n, cap;
    double default_eff;
    /* learned from this machine's calibration (CPU entries) */
    double cpu_eff;
    uint32_t n_cpu_curve;
    tp_gemm_point cpu_curve[TP_GEMM_CURVE_MAX]; /* gflops = fraction of the largest shape */
    double cpu_dispatch_ns, cpu_round_trip_ns;
};

enum {
    C_NAME,
    C_KIND,
    C_F32,
    C_F16,
    C_BF16,
    C_INT8,
    C_MEM,
    C_MEMGIB,
    C_LINK,
    C_UNIFIED,
    C_THREADS,
    C_EFF,
    C_SOURCE,
    C_COUNT
};
static const char *const col_names[C_COUNT] = {
    "name",       "kind",      "f32_gflops", "f16_gflops", "bf16_gflops", "int8_gops", "mem_gbps",
    "memory_gib", "link_gbps", "unified",    "threads",    "efficiency",  "source"};

/* Split one CSV line in place (double quotes protect commas; "" is a quote). */
static int split_csv(char *line, char **fields, int max) {
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max) return -1;
        char *out = p;
        fields[n++] = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0') return -1; /* unterminated quote */
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            if (*p != ',' && *p != '\0') return -1;
        } else {
            while (*p && *p != ',')
                *out++ = *p++;
        }
        bool more = *p == ',';
        *out = '\0';
        if (!more) break;
        p++;
    }
    return n;
}

static tp_status parse_num(const char *v, double *out, int line, const char *col, tp_error *err) {
    if (*v == '\0') {
        *out = 0;
        return TP_OK;
    }
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0 || !isfinite(x) || x < 0)
        return tp_error_setx(err, TP_ERR_PARSE, TP_NO_OFFSET, TP_NO_NODE,
                             "catalog line %d, column %s: '%s' is not a non-negative number", line,
                             col, v);
    *out = x;
    return TP_OK;
}

static tp_status parse_row(char **f, const int *map, int line, tp_catalog_entry *e, tp_error *err) {
    memset(e, 0, sizeof *e);
    const char *name = f[map[C_NAME]];
    if (!*name || strlen(name) >= sizeof e->name)
        return tp_error_set(err, TP_ERR_PARSE, "catalog line %d: name empty or longer than %zu",
                            line, sizeof e->name - 1);
    snprintf(e->name, sizeof e->name, "%s", name);
    if (tp_device_kind_parse(f[map[C_KIND]], &e->kind, err) != TP_OK) {
        tp_error_prefix(err, "catalog line %d, column kind: ", line);
        if (err) err->status = TP_ERR_PARSE; /* the status returned */
        return TP_ERR_PARSE;
    }
    double v[C_COUNT] = {0};
    for (int c = C_F32; c <= C_EFF; c++) {
        if (map[c] < 0) continue;
        tp_status s = parse_num(f[map[c]], &v[c], line, col_names[c], err);
        if (s != TP_OK) return s;
    }
    e->f32_gflops = v[C_F32];
    e->f16_gflops = v[C_F16];
    e->bf16_gflops = v[C_BF16];
    e->int8_gops = v[C_INT8];
    e->mem_gbps = v[C_MEM];
    e->link_gbps = v[C_LINK];
    e->unified = v[C_UNIFIED] != 0;
    e->threads = v[C_THREADS] < 1e6 ? (uint32_t)v[C_THREADS] : 0;
    e->efficiency = v[C_EFF];
    if (v[C_MEMGIB] > 0 && v[C_MEMGIB] < 1.6e10)
        e->memory_bytes = (uint64_t)(v[C_MEMGIB] * 1073741824.0);
    if (e->efficiency > 1)
        return tp_error_set(err, TP_ERR_PARSE, "catalog line %d: efficiency %g > 1", line,
                            e->efficiency);
    if (!(e->mem_gbps > 0))
        return tp_error_set(err, TP_ERR_PARSE, "catalog line %d (%s): mem_gbps must be > 0", line,
                            e->name);
    if (map[C_SOURCE] >= 0) snprintf(e->source, sizeof e->source, "%s", f[map[C_SOURCE]]);
    return TP_OK;
}

static tp_status parse_lines(tp_catalog *cat, char *text, tp_error *err) {
    int map[C_COUNT];
    bool have_header = false;
    int line = 0;
    char *save = NULL;
    for (char *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
        line++;
        size_t len = strlen(ln);
        if (len > 0 && ln[len - 1] == '\r') ln[--len] = '\0';
        if (*ln == '#' || *ln == '\0') continue;
        char *f[C_COUNT + 8];
        int nf = split_csv(ln, f, C_COUNT + 8);
        if (nf < 0)
            return tp_error_set(err, TP_ERR_PARSE,
                                "catalog line %d: bad quoting or more than %d columns", line,
                                C_COUNT + 8);
        if (!have_header) {
            for (int c = 0; c < C_COUNT; c++) {
                map[c] = -1;
                for (int i = 0; i < nf; i++)
                    if (strcmp(f[i], col_names[c]) == 0) map[c] = i;
            }
            if (map[C_NAME] < 0 || map[C_KIND] < 0 || map[C_F32] < 0 || map[C_MEM] < 0)
                return tp_error_set(err, TP_ERR_PARSE,
                                    "catalog line %d: header needs name, kind, f32_gflops and "
                                    "mem_gbps columns",
                                    line);
            have_header = true;
            continue;
        }
        for (int c = 0; c < C_COUNT; c++)
            if (map[c] >= nf)
                return tp_error_set(err, TP_ERR_PARSE,
                                    "catalog line %d: %d columns, header has more", line, nf);
        if (!tp_mem_grow(cat->alloc, (void **)&cat->e, sizeof *cat->e, &cat->cap, cat->n + 1))
            return tp_error_set(err, TP_ERR_NOMEM, "catalog: out of memory at line %d", line);
        tp_catalog_entry e;
        tp_status s = parse_row(f, map, line, &e, err);
        if (s != TP_OK) return s;
        for (size_t i = 0; i < cat->n; i++)
            if (strcasecmp(cat->e[i].name, e.name) == 0)
                return tp_error_set(err, TP_ERR_PARSE, "catalog line %d: duplicate device '%s'",
                                    line, e.name);
        cat->e[cat->n++] = e;
    }
    if (!have_header) return tp_error_set(err, TP_ERR_PARSE, "catalog: no header line");
    return TP_OK;
}

tp_status tp_catalog_parse(const char *text, size_t len, const tp_allocator *alloc,
                           tp_catalog **out, tp_error *err) {
    if (!text || !out) return tp_error_set(err, TP_ERR_INVALID, "catalog: NULL text or result");
    if (len > CATALOG_MAX_BYTES)
        return tp_error_set(err, TP_ERR_INVALID, "catalog: %zu bytes, limit %u", len,
                            CATALOG_MAX_BYTES);
    tp_catalog *c = tp_mem_calloc(alloc, 1, sizeof *c);
    if (!c) return tp_error_set(err, TP_ERR_NOMEM, "catalog: out of memory");
    c->alloc = alloc;
    c->default_eff = 0.5;
    char *copy = tp_mem_alloc(alloc, len + 1);
    if (!copy) {
        tp_catalog_destroy(c);
        return tp_error_set(err, TP_ERR_NOMEM, "catalog: out of memory");
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    tp_status s = parse_lines(c, copy, err);
    tp_mem_free(alloc, copy, len + 1);
    if (s != TP_OK) {
        tp_catalog_destroy(c);
        return s;
    }
    *out = c;
    return TP_OK;
}

tp_status tp_catalog_load(const char *path, const tp_allocator *alloc, tp_catalog **out,
                          tp_error *err) {
    if (!path) return tp_error_set(err, TP_ERR_INVALID, "catalog: NULL path");
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        return tp_error_set(err, e == ENOENT ? TP_ERR_NOT_FOUND : TP_ERR_IO, "cannot open %s: %s",
                            path, strerror(e));
    }
    char *buf = tp_mem_alloc(alloc, CATALOG_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        return tp_error_set(err, TP_ERR_NOMEM, "catalog %s: out of memory", path);
    }
    size_t n = fread(buf, 1, CATALOG_MAX_BYTES + 1, f);
    bool bad = ferror(f) != 0;
    fclose(f);
    tp_status s;
    if (bad)
        s = tp_error_set(err, TP_ERR_IO, "cannot read %s", path);
    else if (n > CATALOG_MAX_BYTES)
        s = tp_error_set(err, TP_ERR_INVALID, "catalog %s: larger than %u bytes", path,
                         CATALOG_MAX_BYTES);
    else
        s = tp_catalog_parse(buf, n, alloc, out, err);
    if (s != TP_OK && bad == false && n <= CATALOG_MAX_BYTES) tp_error_prefix(err, "%s: ", path);
    tp_mem_free(alloc, buf, CATALOG_MAX_BYTES + 1);
    return s;
}

tp_status tp_catalog_load_default(const tp_allocator *alloc, tp_catalog **out, tp_error *err) {
    return tp_catalog_parse(tp_catalog_builtin_csv, strlen(tp_catalog_builtin_csv), alloc, out,
                            err);
}

void tp_catalog_destroy(tp_catalog *c) {
    if (!c) return;
    tp_mem_free(c->alloc, c->e, c->cap * sizeof *c->e);
    tp_mem_free(c->alloc, c, sizeof *c);
}

uint32_t tp_catalog_count(const tp_catalog *c) {
    return c ? (uint32_t)c->n : 0;
}

const tp_catalog_entry *tp_catalog_get(const tp_catalog *c, uint32_t index) {
    return c && index < c->n ? &c->e[index] : NULL;
}

tp_status tp_catalog_find(const tp_catalog *c, const char *name, const tp_catalog_entry **out,
                          tp_error *err) {
    for (size_t i = 0; c && name && i < c->n; i++) {
        if (strcasecmp(c->e[i].name, name) == 0) {
            *out = &c->e[i];
            return TP_OK;
        }
    }
    return tp_error_set(err, TP_ERR_NOT_FOUND, "no device '%s' in the catalog",
                        name ? name : "(null)");
}

void tp_catalog_set_default_efficiency(tp_catalog *c, double efficiency) {
    if (c && efficiency > 0 && efficiency <= 1) c->default_eff = efficiency;
}

tp_status tp_catalog_set_efficiency(tp_catalog *c, const char *name, double efficiency,
                                    tp_error *err) {
    if (!(efficiency > 0 && efficiency <= 1))
        return tp_error_set(err, TP_ERR_INVALID, "efficiency %g for '%s' not in (0, 1]", efficiency,
                            name ? name : "(null)");
    const tp_catalog_entry *e;
    tp_status s = tp_catalog_find(c, name, &e, err);
    if (s != TP_OK) return s;
    c->e[e - c->e].efficiency = efficiency;
    return TP_OK;
}

tp_status tp_catalog_learn_efficiency(tp_catalog *c, const tp_device_model *measured,
                                      double peak_gflops, tp_error *err) {
    if (!c) return tp_error_set(err, TP_ERR_INVALID, "learn efficiency: NULL catalog");
    tp_status s = tp_device_model_validate(measured, err);
    if (s != TP_OK) return s;
    if (!(peak_gflops > 0) || !isfinite(peak_gflops))
        return tp_error_set(err, TP_ERR_INVALID,
                            "learn efficiency: this machine's peak GFLOP/s is unknown (%g)",
                            peak_gflops);
    double top = measured->gemm[measured->n_gemm - 1].gflops;
    double eff = top / peak_gflops;
    c->cpu_eff = eff < 0.05 ? 0.05 : eff > 1 ? 1 : eff;
    c->n_cpu_curve = measured->n_gemm;
    for (uint32_t i = 0; i < measured->n_gemm; i++) {
        c->cpu_curve[i].dim = measured->gemm[i].dim;
        double fr = measured->gemm[i].gflops / top;
        c->cpu_curve[i].gflops = fr > 1 ? 1 : fr;
    }
    c->cpu_dispatch_ns = measured->dispatch_ns;
    c->cpu_round_trip_ns = measured->round_trip_ns;
    return TP_OK;
}

static double peak_for(const tp_catalog_entry *e, tp_dtype t) {
    double f16 = e->f16_gflops > 0 ? e->f16_gflops : e->f32_gflops;
    double bf16 = e->bf16_gflops > 0 ? e->bf16_gflops : f16;
    switch (t) {
    case TP_DTYPE_F16:
        return f16;
    case TP_DTYPE_BF16:
        return bf16;
    case TP_DTYPE_I8:
    case TP_DTYPE_U8:
    case TP_DTYPE_F8E4M3:
    case TP_DTYPE_F8E5M2:
        return e->int8_gops > 0 ? e->int8_gops : f16;
    default:
        return e->f32_gflops;
    }
}

tp_status tp_catalog_entry_model(const tp_catalog *c, const tp_catalog_entry *e, tp_dtype dtype,
                                 tp_device_model *out, tp_error *err) {
    if (!c || !e || !out) return tp_error_set(err, TP_ERR_INVALID, "catalog model: NULL argument");
    double base = peak_for(e, dtype);
    if (!(base > 0))
        return tp_error_set(err, TP_ERR_UNSUPPORTED,
                            "catalog device '%s' has no published %s GEMM peak", e->name,
                            tp_dtype_name(dtype));
    tp_device_model d;
    tp_device_model_default(e->kind, &d);
    snprintf(d.name, sizeof d.name, "%s", e->name);
    snprintf(d.gemm_impl, sizeof d.gemm_impl, "catalog");
    d.source = TP_SOURCE_CATALOG;
    bool cpu = e->kind == TP_DEVICE_CPU;
    double eff = e->efficiency > 0         ? e->efficiency
                 : (cpu && c->cpu_eff > 0) ? c->cpu_eff
                                           : c->default_eff;
    d.efficiency = eff;
    double top = base * eff;
    if (cpu && c->n_cpu_curve > 0) {
        d.n_gemm = c->n_cpu_curve;
        for (uint32_t i = 0; i < d.n_gemm; i++) {
            d.gemm[i].dim = c->cpu_curve[i].dim;
            d.gemm[i].gflops =
                top * (c->cpu_curve[i].gflops > 1e-4 ? c->cpu_curve[i].gflops : 1e-4);
        }
    } else {
        /* default saturation shapes (docs/cost.md): fraction of peak reached by a
         * GEMM of geometric-mean dimension dim */
        static const tp_gemm_point gpu[] = {
            {32, 0.01}, {128, 0.1}, {512, 0.45}, {2048, 0.85}, {8192, 1.0}};
        static const tp_gemm_point cpus[] = {{16, 0.15}, {64, 0.5}, {256, 0.85}, {1024, 1.0}};
        const tp_gemm_point *shape = cpu ? cpus : gpu;
        d.n_gemm = cpu ? 4 : 5;
        for (uint32_t i = 0; i < d.n_gemm; i++) {
            d.gemm[i].dim = shape[i].dim;
            d.gemm[i].gflops = top * shape[i].gflops;
        }
    }
    d.f16_speedup = peak_for(e, TP_DTYPE_F16) / base;
    d.bf16_speedup = peak_for(e, TP_DTYPE_BF16) / base;
    d.int8_speedup = peak_for(e, TP_DTYPE_I8) / base;
    d.mem_gbps = e->mem_gbps * BANDWIDTH_EFFICIENCY;
    d.unified = e->unified;
    if (e->unified)
        d.readback_gbps = d.mem_gbps;
    else
        d.readback_gbps = (e->link_gbps > 0 ? e->link_gbps : 16) * BANDWIDTH_EFFICIENCY;
    if (cpu && c->cpu_dispatch_ns > 0) {
        d.dispatch_ns = c->cpu_dispatch_ns;
        d.round_trip_ns = c->cpu_round_trip_ns;
    }
    d.threads = e->threads;
    d.memory_bytes = e->memory_bytes;
    tp_status s = tp_device_model_validate(&d, err);
    if (s != TP_OK) return s;
    *out = d;
    return TP_OK;
}

tp_status tp_catalog_model(const tp_catalog *c, const char *name, tp_dtype dtype,
                           tp_device_model *out, tp_error *err) {
    const tp_catalog_entry *e;
    tp_status s = tp_catalog_find(c, name, &e, err);
    if (s != TP_OK) return s;
    return tp_catalog_entry_model(c, e, dtype, out, err);
}
