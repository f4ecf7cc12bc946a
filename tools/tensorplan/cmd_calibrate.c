/* tensorplan calibrate — measure this machine's device models and cache them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_device.h"
#include "tensorplan/env.h"
#include "cli_env.h"

typedef struct calib_args {
    tp_calib_options o;
    bool json, no_cuda;
} calib_args;

static const tp_cli_opt calibrate_opts[] = {
    TP_OPT_FLAG_ROW("force", calib_args, o.force,
                    "measure again even when a cached calibration exists"),
    TP_OPT_FLAG_ROW("quick", calib_args, o.quick,
                    "small shapes and few repetitions (under 2 s; for CI)"),
    TP_OPT_U32_ROW("threads", calib_args, o.threads, "N", 1, TP_ENV_THREADS_MAX,
                   "threads to calibrate with (default: CPUs available, or\n"
                   "TENSORPLAN_THREADS)"),
    TP_OPT_FLAG_ROW("no-blas", calib_args, o.no_blas,
                    "do not load a BLAS library (built-in kernel only)"),
    TP_OPT_FLAG_ROW("no-cuda", calib_args, no_cuda, "do not try the CUDA driver"),
    TP_CLI_COMMON(calib_args, json),
    TP_CLI_END,
};

const tp_cli_command tp_cli_calibrate_command = {
    .name = "calibrate",
    .summary = "measure this machine (GEMM, memory bandwidth, overheads) for the cost model",
    .synopsis = "[--force] [--quick] [--threads N] [--no-blas] [--no-cuda] [--json]",
    .description =
        "Measure this CPU: f32 GEMM GFLOP/s at small and large shapes (OpenBLAS or\n"
        "another cblas loaded at run time when installed and faster, else the built-in\n"
        "blocked kernel; the output says which), STREAM-triad bandwidth, copy (readback)\n"
        "bandwidth, thread-pool dispatch and thread round-trip overheads. Results are\n"
        "cached in $XDG_CACHE_HOME/tensorplan/ (else ~/.cache/tensorplan/), keyed by CPU\n"
        "model and thread count, and reused by `profile` and `cost` until --force.\n"
        "A CUDA GPU is measured too when its driver and cuBLAS load (never required).",
    .opts = calibrate_opts,
    .examples = "tensorplan calibrate\n"
                "tensorplan calibrate --quick --json",
    .notes = "Exit codes: 0 ok, 1 error, 2 usage error.",
};

/* The reference kernel's change over the measurement, percent (0 when not measured). */
static double calib_change_pct(const tp_calib_info *info) {
    if (!(info->steady_start_gflops > 0) || !(info->steady_end_gflops > 0)) return 0;
    return 100.0 * (info->steady_end_gflops / info->steady_start_gflops - 1.0);
}

static bool calib_steady(const tp_calib_info *info) {
    return fabs(calib_change_pct(info)) <= TP_CALIB_UNSTEADY_PCT;
}

int tp_cli_calibrate(int argc, char **argv) {
    const char *cmd = "calibrate";
    calib_args a;
    memset(&a, 0, sizeof a);
    tp_calib_options_default(&a.o);
    int rc = tp_cli_parse(&tp_cli_calibrate_command, argc, argv, &a);
    if (rc) return rc < 0 ? TP_EXIT_OK : rc; /* -1: --help */
    tp_env_apply_calib(tp_cli_env(), &a.o);  /* after the options: --threads wins */
    tp_calib_options o = a.o;
    bool json = a.json, no_cuda = a.no_cuda;
    tp_error err;
    tp_error_clear(&err);
    tp_device_model cpu, gpu;
    tp_calib_info info;
    if (!json && tp_cli_progress_enabled(false))
        fprintf(stderr, "tensorplan: calibrating%s...\n", o.quick ? " (quick)" : "");
    tp_status s = tp_calibrate_cpu_cached(&o, &cpu, &info, &err);
    if (s != TP_OK) {
        tp_cli_error(cmd, &err);
        return tp_cli_exit_for(s);
    }
    tp_error cerr;
    tp_error_clear(&cerr);
    tp_status cs = TP_ERR_NOT_FOUND;
    if (no_cuda)
        snprintf(cerr.msg, sizeof cerr.msg, "not tried (--no-cuda)");
    else
        cs = tp_calibrate_cuda(&o, &gpu, &cerr);
    double eff = info.peak_gflops > 0 ? cpu.gemm[cpu.n_gemm - 1].gflops / info.peak_gflops : 0;
    if (json) {
        tp_json j;
        tp_json_init(&j, stdout, true);
        tp_json_begin_object(&j);
        tp_json_kv_str(&j, "schema", "tensorplan.calibrate/1");
        tp_json_kv_str(&j, "tensorplan_version", tp_version());
        tp_json_kv_str(&j, "cpu_model", info.cpu_model);
        tp_json_kv_bool(&j, "from_cache", info.from_cache);
        tp_json_kv_bool(&j, "quick", info.quick);
        tp_json_kv_str(&j, "cache_path", info.cache_path);
        tp_json_kv_str(&j, "cache_key", info.cache_key);
        tp_json_kv_f64(&j, "elapsed_ms", info.elapsed_ms);
        tp_json_kv_f64(&j, "op_rates_ms", info.op_rates_ms);
        tp_json_kv_f64(&j, "derived_peak_gflops", info.peak_gflops);
        tp_json_kv_f64(&j, "efficiency", eff);
        tp_json_kv_str(&j, "isa", tp_cpu_isa_name(info.isa));
        tp_json_key(&j, "kernels");
        tp_json_begin_object(&j);
        tp_json_kv_str(&j, "builtin", info.builtin_kernel);
        tp_json_kv_f64(&j, "builtin_gflops", info.builtin_gflops);
        tp_json_kv_str(&j, "blas", info.blas_name);
        tp_json_kv_str(&j, "blas_core", info.blas_core);
        tp_json_kv_f64(&j, "blas_gflops", info.blas_gflops);
        tp_json_kv_str(&j, "int8", info.int8_kernel);
        tp_json_kv_str(&j, "u8s8", info.u8s8_kernel);
        tp_json_kv_str(&j, "u8u8", info.u8u8_kernel);
        tp_json_kv_str(&j, "read", info.read_kernel);
        tp_json_end_object(&j);
        tp_json_key(&j, "steadiness");
        tp_json_begin_object(&j);
        tp_json_kv_f64(&j, "start_gflops", info.steady_start_gflops);
        tp_json_kv_f64(&j, "end_gflops", info.steady_end_gflops);
        tp_json_kv_bool(&j, "steady", calib_steady(&info));
        tp_json_end_object(&j);
        tp_json_key(&j, "cpu");
        tp_cli_json_device(&j, &cpu);
        tp_json_key(&j, "cuda");
        if (cs == TP_OK)
            tp_cli_json_device(&j, &gpu);
        else
            tp_json_null(&j);
        tp_json_kv_str(&j, "cuda_status", cs == TP_OK ? "ok" : cerr.msg);
        tp_json_end_object(&j);
        tp_json_finish(&j);
        return TP_EXIT_OK;
    }
    printf("cpu: %s, %u threads%s\n", info.cpu_model, cpu.threads,
           info.from_cache ? " (cached)" : "");
    tp_cli_print_device(stdout, &cpu);
    printf("  isa          %s", tp_cpu_isa_name(info.isa));
    if (info.builtin_gflops > 0)
        printf("; largest GEMM: %s %.1f GFLOP/s", info.builtin_kernel, info.builtin_gflops);
    if (info.blas_gflops > 0)
        printf(", %s%s%s%s %.1f GFLOP/s", info.blas_name, info.blas_core[0] ? " (core " : "",
               info.blas_core, info.blas_core[0] ? ")" : "", info.blas_gflops);
    if (info.int8_kernel[0]) printf("; int8 dot kernel %s", info.int8_kernel);
    if (info.u8s8_kernel[0])
        printf("; integer GEMM kernels %s, %s", info.u8s8_kernel, info.u8u8_kernel);
    if (info.read_kernel[0]) printf("; read curve %s", info.read_kernel);
    printf("\n");
    if (info.peak_gflops > 0)
        printf("  peak         %.1f GFLOP/s derived (threads x GHz x f32 flops/cycle); "
               "largest GEMM reaches %.1f%%\n",
               info.peak_gflops, 100.0 * eff);
    if (info.from_cache)
        printf("  cache        %s (use --force to measure again)\n", info.cache_path);
    else
        printf("  measured in  %.0f ms%s (op-class micro-benchmarks %.0f ms); cache %s\n",
               info.elapsed_ms, info.quick ? " (quick)" : "", info.op_rates_ms,
               info.cache_path[0] ? info.cache_path : "(not written)");
    if (info.steady_start_gflops > 0 && info.steady_end_gflops > 0) {
        printf("  steadiness   reference kernel %.1f -> %.1f GFLOP/s at start / end (%+.1f%%)",
               info.steady_start_gflops, info.steady_end_gflops, calib_change_pct(&info));
        if (!calib_steady(&info))
            printf(": the machine changed speed while it was measured (other processes or "
                   "tenants); measure again on a quiet machine (--force)");
        printf("\n");
    }
    if (cs == TP_OK) {
        printf("cuda:\n");
        tp_cli_print_device(stdout, &gpu);
    } else {
        printf("cuda: %s\n", cerr.msg);
    }
    return TP_EXIT_OK;
}
