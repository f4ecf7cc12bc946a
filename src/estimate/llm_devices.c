/* A device set for LLM placement: parsing "cuda0:24GiB,rpc:HOST:PORT:8GiB,
 * h100-sxm,cpu", sizes from the text, the built-in catalog or this host, and
 * what each device reserves (tensorplan/llm_devices.h). */
#include <stdio.h>
#include <string.h>

#include "tensorplan/cost.h"
#include "tensorplan/llm_devices.h"
#include "tensorplan/sysmem.h"

#define MIB (1024ull * 1024ull)
#define CUDA_RESERVED (512ull * MIB)

const char *tp_llm_device_kind_name(tp_llm_device_kind k) {
    static const char *names[TP_LLM_DEV_KIND_COUNT] = {"cpu", "cuda", "rpc", "metal"};
    return (unsigned)k < TP_LLM_DEV_KIND_COUNT ? names[k] : "unknown";
}

/* "24GiB", "512MiB", "8GB", "1000000" (bytes) into *out. */
static bool parse_size(const char *s, uint64_t *out) {
    static const struct {
        const char *unit;
        uint64_t mult;
    } units[] = {{"TiB", 1ull << 40},
                 {"GiB", 1ull << 30},
                 {"MiB", 1ull << 20},
                 {"KiB", 1ull << 10},
                 {"TB", 1000000000000ull},
                 {"GB", 1000000000ull},
                 {"MB", 1000000ull},
                 {"KB", 1000ull},
                 {"B", 1},
                 {"", 1}};
    uint64_t whole = 0, frac = 0, frac_div = 1;
    const char *p = s;
    if (*p < '0' || *p > '9') return false;
    for (; *p >= '0' && *p <= '9'; p++)
        if (!tp_mul_u64(whole, 10, &whole) || !tp_add_u64(whole, (uint64_t)(*p - '0'), &whole))
            return false;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9' && frac_div < 1000000000ull; p++) {
            frac = frac * 10 + (uint64_t)(*p - '0');
            frac_div *= 10;
        }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(p, units[i].unit) != 0) continue;
        uint64_t v, f;
        if (!tp_mul_u64(whole, units[i].mult, &v)) return false;
        /* fraction: frac / frac_div of the unit (units ≤ 2^40, frac_div ≤ 10^9: no overflow) */
        f = (uint64_t)((double)frac / (double)frac_div * (double)units[i].mult);
        return tp_add_u64(v, f, out);
    }
    return false;
}

static void set_reserve(tp_llm_device *d) {
    d->alignment = 32; /* ggml CPU and RPC (a CPU server) buffers */
    switch (d->kind) {
    case TP_LLM_DEV_CUDA:
        d->alignment = 128; /* ggml-cuda buffer type alignment */
        d->reserved_bytes = CUDA_RESERVED;
        snprintf(d->reserved_source, sizeof d->reserved_source,
                 "assumed 512 MiB: CUDA context + cuBLAS workspace (not measured here; "
                 "typically 300-600 MiB)");
        break;
    case TP_LLM_DEV_METAL:
        d->reserved_bytes = d->size_bytes / 4;
        snprintf(d->reserved_source, sizeof d->reserved_source,
                 "assumed 1/4 of unified memory: Metal recommendedMaxWorkingSetSize ~ 3/4");
        break;
    case TP_LLM_DEV_RPC:
        snprintf(d->reserved_source, sizeof d->reserved_source,
                 "none: a CPU rpc-server allocates plain host buffers");
        break;
    default:
        snprintf(d->reserved_source, sizeof d->reserved_source, "none");
        break;
    }
}

/* One entry "KIND[N][:...]" / "rpc:HOST:PORT[:SIZE]" / "catalog-name[:SIZE]". */
static tp_status parse_entry(const char *e, const tp_catalog *cat, tp_llm_device *d,
                             tp_error *err) {
    memset(d, 0, sizeof *d);
    char buf[TP_LLM_DEVICE_NAME_CAP];
    if (strlen(e) >= sizeof buf || e[0] == '\0')
        return tp_error_set(err, TP_ERR_INVALID, "devices: entry '%s' is empty or too long", e);
    snprintf(buf, sizeof buf, "%s", e);
    const char *size = NULL;
    if (strncmp(buf, "rpc:", 4) == 0) {
        d->kind = TP_LLM_DEV_RPC;
        char *host = buf + 4, *port = strchr(host, ':');
        if (!port || port == host || port[1] < '0' || port[1] > '9')
            return tp_error_set(err, TP_ERR_PARSE, "devices: '%s': expected rpc:HOST:PORT[:SIZE]",
                                e);
        char *colon = strchr(port + 1, ':');
        if (colon) {
            *colon = '\0';
            size = colon + 1;
        }
        snprintf(d->endpoint, sizeof d->endpoint, "%s", host);
        snprintf(d->name, sizeof d->name, "rpc:%s", host);
    } else {
        char *colon = strchr(buf, ':');
        if (colon) {
            *colon = '\0';
            size = colon + 1;
        }
        snprintf(d->name, sizeof d->name, "%s", buf);
        const tp_catalog_entry *ce = NULL;
        tp_error e2;
        size_t k = strspn(buf, "abcdefghijklmnopqrstuvwxyz");
        bool digits = buf[k] == '\0' || strspn(buf + k, "0123456789") == strlen(buf + k);
        if (digits && strncmp(buf, "cuda", k) == 0 && k == 4) {
            d->kind = TP_LLM_DEV_CUDA;
        } else if (digits && k == 5 && strncmp(buf, "metal", 5) == 0) {
            d->kind = TP_LLM_DEV_METAL;
        } else if (digits && k == 3 && strncmp(buf, "cpu", 3) == 0) {
            d->kind = TP_LLM_DEV_CPU;
        } else if (cat && tp_catalog_find(cat, buf, &ce, &e2) == TP_OK) {
            d->kind = ce->kind == TP_DEVICE_METAL ? TP_LLM_DEV_METAL
                      : ce->kind == TP_DEVICE_CPU ? TP_LLM_DEV_CPU
                                                  : TP_LLM_DEV_CUDA;
            d->size_bytes = ce->memory_bytes;
            snprintf(d->size_source, sizeof d->size_source, "catalog %s: %llu MiB", ce->name,
                     (unsigned long long)(ce->memory_bytes / MIB));
        } else {
            return tp_error_set(err, TP_ERR_NOT_FOUND,
                                "devices: '%s' is neither cpu, cudaN, metalN, rpc:HOST:PORT nor a "
                                "catalog device",
                                buf);
        }
    }
    if (size) {
        if (!parse_size(size, &d->size_bytes))
            return tp_error_set(err, TP_ERR_PARSE,
                                "devices: '%s': size '%s' is not a number with B/KiB/MiB/GiB/TiB",
                                e, size);
        snprintf(d->size_source, sizeof d->size_source, "given");
    } else if (d->kind == TP_LLM_DEV_CPU && d->size_bytes == 0) {
        tp_host_memory hm;
        tp_error e2;
        if (tp_sysmem_host(&hm, &e2) == TP_OK) {
            d->size_bytes = hm.available_bytes;
            snprintf(d->size_source, sizeof d->size_source,
                     "measured: this host's available memory");
        }
    }
    if (d->size_bytes == 0 && d->size_source[0] == '\0')
        snprintf(d->size_source, sizeof d->size_source, "unknown (no size given)");
    set_reserve(d);
    return TP_OK;
}

tp_status tp_llm_device_set_parse(const char *spec, tp_llm_device_set *out, tp_error *err) {
    if (!spec || !out) return tp_error_set(err, TP_ERR_INVALID, "devices: NULL argument");
    memset(out, 0, sizeof *out);
    tp_catalog *cat = NULL;
    tp_error ce;
    if (tp_catalog_load_default(NULL, &cat, &ce) != TP_OK) cat = NULL;
    tp_status s = TP_OK;
    bool host = false;
    const char *p = spec;
    while (s == TP_OK) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char entry[TP_LLM_DEVICE_NAME_CAP + 1];
        if (len > TP_LLM_DEVICE_NAME_CAP) {
            s = tp_error_set(err, TP_ERR_INVALID, "devices: an entry is longer than %d bytes",
                             TP_LLM_DEVICE_NAME_CAP);
            break;
        }
        memcpy(entry, p, len);
        entry[len] = '\0';
        if (out->n == TP_LLM_MAX_DEVICES) {
            s = tp_error_set(err, TP_ERR_UNSUPPORTED, "devices: more than %d devices",
                             TP_LLM_MAX_DEVICES);
            break;
        }
        s = parse_entry(entry, cat, &out->dev[out->n], err);
        if (s == TP_OK && out->dev[out->n].kind == TP_LLM_DEV_CPU) {
            if (host) s = tp_error_set(err, TP_ERR_INVALID, "devices: more than one cpu entry");
            host = true;
        }
        if (s == TP_OK) out->n++;
        if (!end) break;
        p = end + 1;
    }
    tp_catalog_destroy(cat);
    return s;
}
