/*
 * tensorplan/sysmem.h — how much memory this machine has: host total/available (Linux /proc/meminfo
 * capped by the cgroup v2 or v1 memory limit; macOS sysctl + VM statistics), this process's RSS,
 * the default soft budget, and GPU total/free through the CUDA driver loaded at run time (dlopen;
 * never a build dependency — no driver is a normal answer).
 *
 * Example:
 *     tp_host_memory hm; uint64_t budget; tp_error err;
 *     if (tp_sysmem_host(&hm, &err) == TP_OK &&
 *         tp_sysmem_soft_budget(hm.available_bytes, &budget, NULL, &err) == TP_OK)
 *         printf("available %llu, budget %llu\n", hm.available_bytes, budget);
 *     tp_gpu_memory gm;
 *     tp_sysmem_gpu(NULL, 0, &gm, &err);
 *     if (!gm.present) printf("no GPU: %s\n", gm.reason);
 *
 * The parsers take file paths as parameters so that tests run them on fixture
 * files; tp_sysmem_host() calls them on the real /proc and /sys files.
 * Ownership: results are plain structs filled by the caller's storage.
 * Thread safety: reentrant (reads files; the GPU query
 * loads the driver with dlopen, which is thread-safe; the CUDA driver handle
 * is intentionally never dlclose'd, because driver threads may outlive the call).
 */
#ifndef TENSORPLAN_SYSMEM_H
#define TENSORPLAN_SYSMEM_H

#include "tensorplan/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_SOFT_MEMORY_FRACTION_DEFAULT 0.80

/* A cgroup memory controller's figures. */
typedef struct tp_cgroup_memory {
    int version;          /* 2, 1, or 0 when no controller files were found */
    bool limited;         /* false for v2 "max" or a v1 limit at/above 2^62 */
    uint64_t limit_bytes; /* memory.max / memory.limit_in_bytes (when limited) */
    uint64_t usage_bytes; /* memory.current / memory.usage_in_bytes */
} tp_cgroup_memory;

typedef struct tp_host_memory {
    uint64_t total_bytes;             /* physical memory, capped by the cgroup limit */
    uint64_t available_bytes;         /* MemAvailable, capped by (cgroup limit - usage) */
    uint64_t meminfo_total_bytes;     /* MemTotal (or hw.memsize) before capping */
    uint64_t meminfo_available_bytes; /* MemAvailable (or VM stats) before capping */
    tp_cgroup_memory cgroup;          /* the tightest cgroup level found (version 0: none) */
    char cgroup_dir[256];             /* the directory it was read from ("" when none) */
} tp_host_memory;

/* Parse a /proc/meminfo-format file: MemTotal and MemAvailable (kB). Older
 * kernels without MemAvailable: MemFree + Buffers + Cached. TP_ERR_IO (cannot
 * open), TP_ERR_PARSE (MemTotal missing, malformed number, overflow; the
 * message names the file and line). */
TP_API tp_status tp_sysmem_parse_meminfo(const char *path, uint64_t *total_bytes,
                                         uint64_t *available_bytes, tp_error *err);

/* Read one cgroup directory: v2 when it has memory.max (value or the literal
 * "max") + memory.current; else v1 when it has memory.limit_in_bytes +
 * memory.usage_in_bytes; else version 0 (TP_OK: no controller there).
 * TP_ERR_PARSE on garbage or truncated contents (naming the file). */
TP_API tp_status tp_sysmem_read_cgroup(const char *dir, tp_cgroup_memory *out, tp_error *err);

/* Find this process's memory cgroup directory from a /proc/self/cgroup-format
 * file and a /proc/self/mountinfo-format file: the cgroup2 ("0::/path") entry
 * when its mount has memory.max, else the v1 "memory" controller. Writes the
 * directory to buf ("" and TP_OK when none is found). TP_ERR_IO/TP_ERR_PARSE
 * on unreadable/garbled files, TP_ERR_INVALID when buf is too small. */
TP_API tp_status tp_sysmem_find_cgroup(const char *proc_cgroup_path, const char *mountinfo_path,
                                       char *buf, size_t cap, tp_error *err);

/* Combine a meminfo file and a cgroup directory (dir may be NULL or "": no
 * cgroup): total = min(MemTotal, limit), available = min(MemAvailable,
 * sat(limit - usage)). */
TP_API tp_status tp_sysmem_host_from(const char *meminfo_path, const char *cgroup_dir,
                                     tp_host_memory *out, tp_error *err);

/* This machine. Linux: /proc/meminfo and the process's cgroup, walking up the
 * cgroup hierarchy to the mount point and keeping the tightest level. macOS:
 * hw.memsize and host VM statistics (free + inactive + purgeable pages).
 * TP_ERR_UNSUPPORTED elsewhere. */
TP_API tp_status tp_sysmem_host(tp_host_memory *out, tp_error *err);

/* Resident set size of this process: /proc/self/statm (resident pages × page
 * size), falling back to VmRSS of /proc/self/status; macOS task_info. */
TP_API tp_status tp_sysmem_process_rss(uint64_t *out_bytes, tp_error *err);
/* Parse a statm-format file (second field = resident pages). */
TP_API tp_status tp_sysmem_parse_statm(const char *path, uint64_t page_bytes, uint64_t *out_bytes,
                                       tp_error *err);
/* Parse a /proc/<pid>/status-format file's VmRSS line (kB). TP_ERR_NOT_FOUND
 * when the line is absent (kernel threads). */
TP_API tp_status tp_sysmem_parse_status_rss(const char *path, uint64_t *out_bytes, tp_error *err);

/* Where a soft budget came from. */
typedef enum tp_budget_source {
    TP_BUDGET_FRACTION_DEFAULT, /* 0.80 × available */
    TP_BUDGET_FRACTION_ENV,     /* the given fraction × available (the CLI: from
                                   TENSORPLAN_SOFT_MEMORY_FRACTION) */
    TP_BUDGET_BYTES_ENV         /* the given byte count (TENSORPLAN_MEMORY_BUDGET_BYTES) */
} tp_budget_source;

/* The default memory budget: floor(0.80 × available_bytes). source may be NULL. */
TP_API tp_status tp_sysmem_soft_budget(uint64_t available_bytes, uint64_t *out_bytes,
                                       tp_budget_source *source, tp_error *err);
/* The memory budget from optional strings (NULL = unset): budget_bytes (a
 * plain integer) if set, else floor(fraction × available_bytes) with fraction
 * (0 < f <= 1) if set, else 0.80. TP_ERR_INVALID names the environment
 * variable the CLI reads it from (tensorplan/env.h) when a string is garbage. */
TP_API tp_status tp_sysmem_soft_budget_from(uint64_t available_bytes, const char *fraction,
                                            const char *budget_bytes, uint64_t *out_bytes,
                                            tp_budget_source *source, tp_error *err);

typedef struct tp_gpu_memory {
    bool present;         /* a driver answered for the device */
    int device_count;     /* devices the driver reports (0 without a driver) */
    uint64_t total_bytes; /* cuMemGetInfo_v2 total */
    uint64_t free_bytes;  /* cuMemGetInfo_v2 free */
    char name[128];       /* cuDeviceGetName */
    char reason[192];     /* why present is false ("no CUDA driver (...)", ...) */
} tp_gpu_memory;

/* Query CUDA device `device` through the driver API loaded at run time:
 * dlopen(library when non-NULL and non-empty, else "libcuda.so.1", else "libcuda.so"), cuInit,
 * cuDeviceGetCount,
 * cuDeviceGet, cuDeviceGetName, cuDevicePrimaryCtxRetain + cuCtxPushCurrent_v2, cuMemGetInfo_v2,
 * then pop and release. No driver, no device, or a driver error all return TP_OK with present =
 * false and the reason; TP_ERR_INVALID only for a NULL out or a negative device. */
TP_API tp_status tp_sysmem_gpu(const char *library, int device, tp_gpu_memory *out, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
