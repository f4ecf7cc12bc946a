/* The CLI's device models, shared by `profile`, `cost` and `calibrate`.
 *
 * A device name resolves to a model:
 *   cpu                 this machine, calibrated (cached under ~/.cache/tensorplan)
 *   cuda                the first CUDA GPU, measured (driver + cuBLAS loaded at run time)
 *   cpu-default, cuda-default, rocm-default, metal-default, gpu-default
 *                       built-in figures (source "default")
 *   h100-sxm, l4, ...   a catalog entry (data/devices/catalog.csv, built in):
 *                       spec-sheet peak × efficiency (CPUs: learned from this machine)
 */
#ifndef TP_CLI_DEVICE_H
#define TP_CLI_DEVICE_H

#include "cli_opts.h"

typedef struct tp_cli_devices {
    /* options */
    bool quick;               /* quick calibration when none is cached */
    bool force;               /* calibrate again */
    bool quiet;               /* no progress lines on stderr */
    uint32_t threads;         /* CPU calibration threads; 0 = TENSORPLAN_THREADS or all */
    tp_dtype dtype;           /* GEMM precision on catalog devices (default f32) */
    double efficiency;        /* catalog default efficiency; 0 = keep (0.5) */
    const char *catalog_path; /* NULL = the built-in catalog */
    /* state */
    tp_catalog *catalog;
    bool have_cpu, cpu_tried, learned;
    tp_device_model cpu;
    tp_calib_info cpu_info;
} tp_cli_devices;

void tp_cli_devices_init(tp_cli_devices *d);
void tp_cli_devices_free(tp_cli_devices *d);
/* Resolve a name (see above). TP_ERR_NOT_FOUND for an unknown name or an
 * unavailable device (no CUDA driver), with the reason in err. */
tp_status tp_cli_device_resolve(tp_cli_devices *d, const char *name, tp_device_model *out,
                                tp_error *err);
/* The catalog (loaded on first use). */
tp_status tp_cli_devices_catalog(tp_cli_devices *d, tp_catalog **out, tp_error *err);
/* Parse a --host-ops list: comma-separated op kind names (tp_op_kind_name:
 * custom, fft, log_mel, ...), "default" (the library default set) or "none".
 * TP_ERR_NOT_FOUND naming an unknown kind. */
tp_status tp_cli_parse_host_ops(const char *list, tp_io_options *out, tp_error *err);
/* Apply the --dtype and --host-ops options of `cmd` (either may be NULL) to d
 * and *io (which starts from the defaults). Returns 0, or TP_EXIT_USAGE after
 * printing the usage error. */
int tp_cli_devices_options(tp_cli_devices *d, const char *cmd, const char *dtype,
                           const char *host_ops, tp_io_options *io);
/* Rows shared by `profile` and `cost` (const char * / bool destinations). */
#define TP_CLI_DEVICE_DTYPE(type, field)                                                           \
    {                                                                                              \
        .name = "dtype", .kind = TP_OPT_STRING, .takes = true, .dest = offsetof(type, field),      \
        .value = "T", .choices = "f32 f16 bf16",                                                   \
        .help = "GEMM precision on catalog devices: f32 (default), f16, bf16"                      \
    }
#define TP_CLI_DEVICE_QUICK(type, field)                                                           \
    TP_OPT_FLAG_ROW("quick", type, field, "quick calibration when none is cached")
#define TP_CLI_DEVICE_HOST_OPS(type, field)                                                        \
    TP_OPT_STRING_ROW("host-ops", type, field, "LIST",                                             \
                      "op kinds that force a host round trip (sync points):\n"                     \
                      "comma-separated kind names, 'none' or 'default'\n"                          \
                      "(default: custom,fft,log_mel,welch_peaks)")

/* Write a device model as a JSON object. */
void tp_cli_json_device(tp_json *j, const tp_device_model *m);
/* Print a device model as indented text lines. */
void tp_cli_print_device(FILE *f, const tp_device_model *m);
/* The ISA behind a measured CPU model ("avx512", ...), "" for other models. */
const char *tp_cli_device_isa(const tp_device_model *m);
/* One line on a prediction's basis and expected error (tp_cost_accuracy_of), e.g.
 * "basis measured, kernel builtin-avx512 (avx512), expected error ±20.4 % (...)". */
const char *tp_cli_accuracy_str(const tp_device_model *m, char *buf, size_t cap);

#endif
