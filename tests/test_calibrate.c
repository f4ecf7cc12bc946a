/* Calibration: quick CPU run, cache round trip, cache keys and file errors,
 * CUDA "no driver" answer. Uses a temporary cache directory. */
/* ctest-labels: threads */
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cost/amx_dot.h"
#include "cost/calib_barrier.h"
#include "cost/calib_gelu.h"
#include "cost/calib_prelu.h"
#include "cost/calib_step.h"
#include "cost/calib_wake.h"
#include "cost/cpu_pool.h"
#include "cost/gemm_kernels.h"
#include "cost/gemm_split.h"
#include "cost/int8_dot.h"
#include "cost/qgemm_kernels.h"
#include "tensorplan/cost.h"

static tp_error err_storage;
static tp_error *err = &err_storage;
static char tmpdir[256];

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    TP_CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

TP_TEST(cache_dir_and_path) {
    char buf[512];
    tp_calib_options o;
    tp_calib_options_default(&o);
    /* no directory given: no cache (the CLI passes the XDG one, test_env.c) */
    TP_CHECK_STATUS(tp_calib_cache_dir(&o, buf, sizeof buf, err), TP_ERR_NOT_FOUND);
    o.cache_dir = "/explicit";
    TP_CHECK_OK(tp_calib_cache_dir(&o, buf, sizeof buf, err), err);
    TP_CHECK_STR(buf, "/explicit");
    TP_CHECK_OK(
        tp_calib_cache_path("/x", "AMD EPYC 7B13 64-Core Processor", 8, buf, sizeof buf, err), err);
    TP_CHECK_STR(buf, "/x/calib-amd-epyc-7b13-64-core-processor-t8.txt");
    TP_CHECK_OK(tp_calib_cache_path("/x", "@@", 1, buf, sizeof buf, err), err);
    TP_CHECK_STR(buf, "/x/calib-unknown-t1.txt");
    char model[128];
    tp_cpu_model_name(model, sizeof model);
    TP_CHECK(model[0] != '\0');
    TP_CHECK(tp_calib_default_threads() >= 1);
}

static tp_device_model sample(void) {
    tp_device_model d;
    tp_device_model_default(TP_DEVICE_CPU, &d);
    snprintf(d.name, sizeof d.name, "cpu");
    d.source = TP_SOURCE_MEASURED;
    d.n_gemm = 3;
    d.gemm[0] = (tp_gemm_point){16, 1.0 / 3.0};
    d.gemm[1] = (tp_gemm_point){64, 12.25};
    d.gemm[2] = (tp_gemm_point){192, 33.125};
    d.n_skinny = 2;
    d.skinny[0] = (tp_gemm_point){1, 0.7};
    d.skinny[1] = (tp_gemm_point){8, 5.5};
    d.dispatch_ns = 1234.5;
    d.round_trip_ns = 0.1;
    d.mem_gbps = 11.7;
    d.readback_gbps = 9.25;
    d.threads = 3;
    d.memory_bytes = 1ull << 40;
    d.dwconv_gflops = 21.5;
    d.gemm_stream_gbps = 27.5;
    d.norm_gbps = 11.25;
    d.im2col_gbps = 7.75;
    d.int8_dot_gops = 61.5;
    d.barrier_ns = 350;
    d.wake_ns = 9500;
    d.resize_gbps = 3.25;
    d.cache_gbps = 40.5;
    d.cache_bytes = 786432;
    d.mem_set_bytes = 100663296;
    d.vector_floats = 16;
    d.runtime_node_ns = 412.5;
    d.runtime_run_ns = 17250;
    d.runtime_group_ns = 131.25;
    d.denormal_ns = 62.5;
    d.skip_norm_gbps = 1.625;
    d.gelu_gbps = 3.25;
    d.col2im_gbps = 1.875;
    d.transpose_gbps = 0.875;
    d.bias_gelu_gbps = 2.125;
    d.prelu_gbps = 4.375;
    d.int8_speedup = 1.875;
    d.u8u8_speedup = 1.5;
    snprintf(d.gemm_impl, sizeof d.gemm_impl, "builtin");
    return d;
}

TP_TEST(model_file_round_trip) {
    char path[400];
    snprintf(path, sizeof path, "%s/sub/dir/model.txt", tmpdir);
    tp_device_model d = sample(), back;
    TP_CHECK_OK(tp_device_model_save(&d, "key A|threads=3", path, err), err);
    memset(&back, 0, sizeof back);
    TP_CHECK_OK(tp_device_model_load(path, "key A|threads=3", &back, err), err);
    TP_CHECK(memcmp(&d, &back, sizeof d) == 0); /* %.17g round-trips doubles exactly */
    TP_CHECK_OK(tp_device_model_load(path, NULL, &back, err), err);
    TP_CHECK_STATUS(tp_device_model_load(path, "other cpu|threads=3", &back, err),
                    TP_ERR_NOT_FOUND);
    TP_CHECK_CONTAINS(err->msg, "other cpu");
    snprintf(path, sizeof path, "%s/missing.txt", tmpdir);
    TP_CHECK_STATUS(tp_device_model_load(path, NULL, &back, err), TP_ERR_NOT_FOUND);
    /* corrupted files name the line */
    snprintf(path, sizeof path, "%s/bad.txt", tmpdir);
    write_file(path, "format=1\nkey=k\nname=cpu\nkind=cpu\nsource=measured\ngemm=16:abc\n");
    TP_CHECK_STATUS(tp_device_model_load(path, NULL, &back, err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err->msg, ":6:");
    write_file(path, "format=1\nkey=k\nname=cpu\nkind=cpu\nsource=measured\ngemm=16:2\n");
    TP_CHECK_STATUS(tp_device_model_load(path, NULL, &back, err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err->msg, "missing 'mem_gbps'");
    /* CRLF line ends are accepted */
    write_file(path, "format=1\r\nkey=k\r\nname=cpu\r\nkind=cpu\r\nsource=measured\r\n"
                     "gemm=16:2\r\nmem_gbps=3\r\nreadback_gbps=1\r\n");
    TP_CHECK_OK(tp_device_model_load(path, "k", &back, err), err);
    TP_CHECK_NEAR(back.mem_gbps, 3, 0);
    TP_CHECK(back.dwconv_gflops == 0 && back.cache_gbps == 0); /* format 1: no op-class rates */
    write_file(path, "format=3\nkey=k\nname=cpu\nkind=cpu\nsource=measured\ngemm=16:2\n"
                     "mem_gbps=3\nreadback_gbps=1\n");
    TP_CHECK_STATUS(tp_device_model_load(path, NULL, &back, err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err->msg, "unsupported format");
    write_file(path, "format=1\nkey=k\nname=cpu\nkind=cpu\nsource=measured\ngemm=16:2\n"
                     "mem_gbps=-1\nreadback_gbps=1\n");
    TP_CHECK_STATUS(tp_device_model_load(path, NULL, &back, err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err->msg, "mem_gbps");
    d.mem_gbps = NAN;
    TP_CHECK_STATUS(tp_device_model_save(&d, "k", path, err), TP_ERR_INVALID);
    /* a line break in a saved string would smuggle extra lines into the file */
    d.mem_gbps = 3;
    TP_CHECK_STATUS(tp_device_model_save(&d, "k\nname=x", path, err), TP_ERR_INVALID);
    snprintf(d.name, sizeof d.name, "cpu\nmem_gbps=999");
    TP_CHECK_STATUS(tp_device_model_save(&d, "k", path, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "line break");
}

/* Save `full` as the cache at `path` (its quick file removed: it would serve the request), then
   ask for a calibration: true when it measured again rather than load the file (a stale cache). */
static bool stale_cache_measured(const tp_device_model *full, const char *key, const char *path,
                                 const tp_calib_options *o, tp_device_model *again,
                                 tp_calib_info *info) {
    char qpath[520];
    snprintf(qpath, sizeof qpath, "%.*s-quick.txt", (int)(strlen(path) - 4), path);
    if (tp_device_model_save(full, key, path, err) != TP_OK) return false;
    unlink(qpath);
    if (tp_calibrate_cpu_cached(o, again, info, err) != TP_OK) return false;
    return !info->from_cache;
}

TP_TEST(quick_calibration_and_cache) {
    tp_calib_options o;
    tp_calib_options_default(&o);
    o.cache_dir = tmpdir;
    o.quick = true;
    o.threads = 2;
    tp_device_model d, again;
    tp_calib_info info;
    TP_CHECK_OK(tp_calibrate_cpu_cached(&o, &d, &info, err), err);
    TP_CHECK(!info.from_cache);
    TP_CHECK(strncmp(info.cache_path, tmpdir, strlen(tmpdir)) == 0);
    TP_CHECK_CONTAINS(info.cache_path, "/calib-");
    TP_CHECK_CONTAINS(info.cache_path, "-t2-quick.txt");
    TP_CHECK(info.quick);
    TP_CHECK_OK(tp_device_model_validate(&d, err), err);
    TP_CHECK(d.source == TP_SOURCE_MEASURED);
    TP_CHECK_EQ_U64(d.n_gemm, 3);
    TP_CHECK_EQ_U64(d.n_skinny, 3);
    TP_CHECK_EQ_U64(d.threads, 2);
    TP_CHECK(d.unified);
    TP_CHECK(d.mem_gbps > 0.01 && d.readback_gbps > 0.01);
    TP_CHECK(d.dispatch_ns > 0 && d.round_trip_ns >= d.dispatch_ns);
    /* the op-class micro-benchmarks ran (docs/cost.md, "Op classes") */
    TP_CHECK(d.dwconv_gflops > 0.01 && d.resize_gbps > 0.01 && d.cache_gbps > 0.01);
    TP_CHECK(d.norm_gbps > 0.01 && d.gemm_stream_gbps > 0.01 && isfinite(d.gemm_stream_gbps));
    TP_CHECK(d.skip_norm_gbps > 0.01 && isfinite(d.skip_norm_gbps));
    TP_CHECK(d.gelu_gbps > 0.01 && isfinite(d.gelu_gbps));
    TP_CHECK(d.col2im_gbps > 0.01 && isfinite(d.col2im_gbps));
    TP_CHECK(d.transpose_gbps > 0.01 && isfinite(d.transpose_gbps));
    TP_CHECK(d.bias_gelu_gbps > 0.01 && isfinite(d.bias_gelu_gbps));
    TP_CHECK(d.prelu_gbps > 0.01 && isfinite(d.prelu_gbps));
    TP_CHECK(d.cache_bytes > 0 && d.mem_set_bytes > d.cache_bytes);
    TP_CHECK(d.denormal_ns >= 0 && isfinite(d.denormal_ns)); /* 0: no extra cost measured */
    /* the integer GEMMs against the float32 one (a ratio: any CPU runs them, how fast varies) */
    TP_CHECK(d.int8_speedup > 0.05 && isfinite(d.int8_speedup) && d.int8_speedup != 1.0);
    TP_CHECK(d.u8u8_speedup > 0.05 && isfinite(d.u8u8_speedup));
    TP_CHECK(info.op_rates_ms > 0 && info.op_rates_ms < info.elapsed_ms);
    for (uint32_t i = 0; i < d.n_gemm; i++)
        TP_CHECK(d.gemm[i].gflops > 1e-3);
    printf("  quick calibration: %.0f ms, gemm %s %.2f/%.2f/%.2f GFLOP/s, triad %.2f GB/s, "
           "dispatch %.0f ns, round trip %.0f ns, derived peak %.1f GFLOP/s; depthwise %.1f "
           "GFLOP/s, resize %.2f GB/s, cached triad %.2f GB/s (%.0f ms)\n",
           info.elapsed_ms, d.gemm_impl, d.gemm[0].gflops, d.gemm[1].gflops, d.gemm[2].gflops,
           d.mem_gbps, d.dispatch_ns, d.round_trip_ns, info.peak_gflops, d.dwconv_gflops,
           d.resize_gbps, d.cache_gbps, info.op_rates_ms);
    struct stat st;
    TP_CHECK(stat(info.cache_path, &st) == 0);
    /* second call: from the cache, identical figures */
    TP_CHECK_OK(tp_calibrate_cpu_cached(&o, &again, &info, err), err);
    TP_CHECK(info.from_cache);
    TP_CHECK(info.read_kernel[0] != '\0'); /* named from the CPU on a cached run too */
    TP_CHECK(memcmp(&d, &again, sizeof d) == 0);
    /* another thread count is another key */
    o.threads = 1;
    o.no_blas = true;
    TP_CHECK_OK(tp_calibrate_cpu_cached(&o, &again, &info, err), err);
    TP_CHECK(!info.from_cache);
    const char *kname = NULL;
    tp_cpu_features feat;
    tp_cpu_features_detect(&feat);
    (void)tp_gemm_kernel_for(feat.isa, &kname);
    TP_CHECK_STR(again.gemm_impl, kname); /* no BLAS: the built-in kernel of this ISA */
    TP_CHECK_STR(info.builtin_kernel, kname);
    TP_CHECK(info.isa == feat.isa);
    /* the read curve in the CPU's widest vector loads, whatever BLAS the GEMM took */
    TP_CHECK_STR(info.read_kernel, feat.isa == TP_CPU_ISA_AVX512 ? "streams-avx512"
                                   : feat.isa == TP_CPU_ISA_AVX2 ? "streams-avx2"
                                   : feat.isa == TP_CPU_ISA_NEON ? "streams-neon"
                                                                 : "streams-generic");
    TP_CHECK(again.n_read == 3 && again.read[0].gbps > 0.01);
    TP_CHECK_EQ_U64(again.vector_floats,
                    tp_cpu_isa_floats(feat.isa)); /* the CPU's, not the GEMM's */
    TP_CHECK(info.blas_gflops == 0 && info.blas_name[0] == '\0');
    TP_CHECK_EQ_U64(again.threads, 1);
    TP_CHECK(again.barrier_ns == 0); /* one thread meets no one */
    TP_CHECK(again.wake_ns == 0);    /* and wakes no one */
    /* --force measures again */
    o.force = true;
    TP_CHECK_OK(tp_calibrate_cpu_cached(&o, &again, &info, err), err);
    TP_CHECK(!info.from_cache);
    /* the reference kernel at both ends of a measurement; none from a cache */
    TP_CHECK(info.steady_start_gflops > 0 && isfinite(info.steady_start_gflops));
    TP_CHECK(info.steady_end_gflops > 0 && isfinite(info.steady_end_gflops));
    /* a full calibration in the cache serves quick requests too */
    char model[128], dir[300], path[512], key[256];
    tp_cpu_model_name(model, sizeof model);
    tp_calib_cache_key(2, key, sizeof key);
    TP_CHECK_OK(tp_calib_cache_dir(&o, dir, sizeof dir, err), err);
    TP_CHECK_OK(tp_calib_cache_path(dir, model, 2, path, sizeof path, err), err);
    tp_device_model full = sample();
    full.threads = 2;
    TP_CHECK_OK(tp_device_model_save(&full, key, path, err), err);
    o.force = false;
    o.threads = 2;
    TP_CHECK_OK(tp_calibrate_cpu_cached(&o, &again, &info, err), err);
    TP_CHECK(info.from_cache && !info.quick);
    TP_CHECK(info.steady_start_gflops == 0 && info.steady_end_gflops == 0);
    TP_CHECK_STR(info.cache_path, path);
    /* the runtime's overheads are cached (measured in steps of this core's interpreter
       micro-benchmark since session 15): a loaded model carries the file's */
    TP_CHECK(again.runtime_node_ns == 412.5 && again.runtime_run_ns == 17250 &&
             again.runtime_group_ns == 131.25);
    TP_CHECK(memcmp(&full, &again, sizeof full) == 0);
    /* a cache written before the op-class micro-benchmarks (no depthwise rate) is stale */
    full.dwconv_gflops = 0;
    TP_CHECK(stale_cache_measured(&full, key, path, &o, &again, &info));
    TP_CHECK(info.quick && again.dwconv_gflops > 0);
    /* two threads measure the spinning barrier; a 2-thread cache without it is stale */
    TP_CHECK(again.barrier_ns > 0 && isfinite(again.barrier_ns)); /* a load-dependent figure */
    full.dwconv_gflops = 21.5;
    full.barrier_ns = 0;
    TP_CHECK(stale_cache_measured(&full, key, path, &o, &again, &info));
    TP_CHECK(again.barrier_ns > 0);
    /* likewise the wake-up of a sleeping pool thread */
    TP_CHECK(again.wake_ns > 0 && isfinite(again.wake_ns));
    full.barrier_ns = again.barrier_ns;
    full.wake_ns = 0;
    TP_CHECK(stale_cache_measured(&full, key, path, &o, &again, &info));
    TP_CHECK(again.wake_ns > 0);
    /* a cache without the weight stream or the normalization rate is stale */
    full.wake_ns = again.wake_ns;
    full.gemm_stream_gbps = 0;
    TP_CHECK(stale_cache_measured(&full, key, path, &o, &again, &info));
    TP_CHECK(again.gemm_stream_gbps > 0 && again.norm_gbps > 0);
    full.gemm_stream_gbps = 24;
    full.norm_gbps = 0;
    TP_CHECK(stale_cache_measured(&full, key, path, &o, &again, &info));
    TP_CHECK(again.norm_gbps > 0);
    /* and one without the int8 dot rate */
    full.norm_gbps = 9;
    full.int8_dot_gops = 0;
    TP_CHECK(stale_cache_measured(&full, key, path, &o, &again, &info));
    TP_CHECK(again.int8_dot_gops > 0 && isfinite(again.int8_dot_gops));
    TP_CHECK(info.int8_kernel[0] != '\0');
    /* and one without the im2col rate */
    full.int8_dot_gops = 60;
    full.im2col_gbps = 0;
    TP_CHECK(stale_cache_measured(&full, key, path, &o, &again, &info));
    TP_CHECK(again.im2col_gbps > 0 && isfinite(again.im2col_gbps));
    /* and one without the runtime's overheads (saved before session 15): measured, a run costs
       more than a node */
    full.im2col_gbps = 6;
    full.runtime_node_ns = full.runtime_run_ns = 0;
    TP_CHECK(stale_cache_measured(&full, key, path, &o, &again, &info));
    TP_CHECK(again.runtime_node_ns > 0 && isfinite(again.runtime_node_ns));
    TP_CHECK(again.runtime_run_ns > again.runtime_node_ns && isfinite(again.runtime_run_ns));
    /* and one without the per-group convolution cost (saved before session 17): measured, a
       group costs less than a node */
    full.runtime_node_ns = 412.5;
    full.runtime_run_ns = 17250;
    full.runtime_group_ns = 0;
    TP_CHECK(stale_cache_measured(&full, key, path, &o, &again, &info));
    TP_CHECK(again.runtime_group_ns > 0 && isfinite(again.runtime_group_ns));
    TP_CHECK(again.runtime_group_ns < again.runtime_node_ns);
    /* and one without the col2im rate (saved before session 25) */
    full.runtime_group_ns = 131.25;
    full.col2im_gbps = 0;
    TP_CHECK(stale_cache_measured(&full, key, path, &o, &again, &info));
    TP_CHECK(again.col2im_gbps > 0 && isfinite(again.col2im_gbps));
    /* and one without the transpose walk (saved before session 26) */
    full.col2im_gbps = 1.875;
    full.transpose_gbps = 0;
    TP_CHECK(stale_cache_measured(&full, key, path, &o, &again, &info));
    TP_CHECK(again.transpose_gbps > 0 && isfinite(again.transpose_gbps));
    /* and one without the BiasGelu rate (saved before session 26) */
    full.transpose_gbps = 0.875;
    full.bias_gelu_gbps = 0;
    TP_CHECK(stale_cache_measured(&full, key, path, &o, &again, &info));
    TP_CHECK(again.bias_gelu_gbps > 0 && isfinite(again.bias_gelu_gbps));
    /* and one without the PRelu rate (saved before session 27) */
    full.bias_gelu_gbps = 2.125;
    full.prelu_gbps = 0;
    TP_CHECK(stale_cache_measured(&full, key, path, &o, &again, &info));
    TP_CHECK(again.prelu_gbps > 0 && isfinite(again.prelu_gbps));
}

/* The interpreter step behind the runtime's overheads: a positive, finite figure, quick or full
   (tens of ns in a release build, a few µs under the sanitizers' allocator; a millisecond would
   mean a broken loop, not a slow machine). */
TP_TEST(interpreter_step) {
    double q = tp_calib_step_ns(true), f = tp_calib_step_ns(false);
    TP_CHECK(q > 0 && q < 1e6 && isfinite(q));
    TP_CHECK(f > 0 && f < 1e6 && isfinite(f));
}

/* Waking a sleeping thread: nothing to wake for one thread; a positive, finite figure for two,
   below a second (the lower decile of 24 wake-ups). */
TP_TEST(wake_up) {
    TP_CHECK(tp_calib_wake_ns(0, true) == 0);
    TP_CHECK(tp_calib_wake_ns(1, true) == 0);
    double two = tp_calib_wake_ns(2, true);
    TP_CHECK(two > 0 && two < 1e9);
    double full = tp_calib_wake_ns(8, false); /* one sleeper whatever the pool size */
    TP_CHECK(full > 0 && full < 1e9);
}

/* The spinning barrier: no meeting for one thread; a positive figure for two; more threads
   than this machine has cores end in bounded time (each trial stops after 20 ms) with a
   positive figure. */
TP_TEST(spinning_barrier) {
    TP_CHECK(tp_calib_spin_barrier_ns(0, true) == 0);
    TP_CHECK(tp_calib_spin_barrier_ns(1, true) == 0);
    double two = tp_calib_spin_barrier_ns(2, true);
    TP_CHECK(two > 0 && isfinite(two));
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t many = cpus > 0 && cpus < 16 ? (uint32_t)cpus + 2 : 4;
    double t0 = tp_now_ns();
    double over = tp_calib_spin_barrier_ns(many, true);
    double took_s = (tp_now_ns() - t0) / 1e9;
    TP_CHECK(over > 0 && isfinite(over));
    TP_CHECK(took_s < 15 * 0.02 * 4 + 5); /* 15 quick trials of at most 20 ms, with slack */
}

TP_TEST(cuda_without_gpu_is_not_found) {
    tp_calib_options o;
    tp_calib_options_default(&o);
    o.quick = true;
    tp_device_model d;
    tp_status s = tp_calibrate_cuda(&o, &d, err);
    if (s == TP_OK) {
        TP_CHECK(d.kind == TP_DEVICE_CUDA && d.source == TP_SOURCE_MEASURED);
        TP_CHECK_OK(tp_device_model_validate(&d, err), err);
        printf("  cuda: %s\n", d.name);
    } else {
        TP_CHECK_STATUS(s, TP_ERR_NOT_FOUND);
        printf("  cuda: %s\n", err->msg);
    }
}

/* The detected ISA agrees with the kernel's view of the CPU (/proc/cpuinfo flags on
 * Linux x86: the kernel lists a flag only when the OS saves that state). */
TP_TEST(cpu_features_match_cpuinfo) {
    tp_cpu_features f;
    tp_cpu_features_detect(&f);
    printf("  isa %s (avx2 %d fma %d avx512f %d vnni %d bf16 %d amx %d)\n", tp_cpu_isa_name(f.isa),
           f.avx2, f.fma, f.avx512f, f.avx512vnni, f.avx512bf16, f.amx_tile);
    TP_CHECK(strcmp(tp_cpu_isa_name(f.isa), "") != 0);
    TP_CHECK_STR(tp_cpu_isa_name((tp_cpu_isa)99), "generic");
#if defined(__x86_64__) && defined(__linux__)
    FILE *c = fopen("/proc/cpuinfo", "r");
    TP_CHECK(c != NULL);
    if (!c) return;
    char line[8192];
    bool has512 = false, has2 = false, hasfma = false, found = false;
    while (!found && fgets(line, sizeof line, c)) {
        if (strncmp(line, "flags", 5) != 0) continue;
        found = true;
        has512 = strstr(line, " avx512f") != NULL;
        has2 = strstr(line, " avx2") != NULL;
        hasfma = strstr(line, " fma") != NULL;
    }
    fclose(c);
    TP_CHECK(found);
    TP_CHECK(f.avx512f == has512);
    TP_CHECK(f.avx2 == has2);
    TP_CHECK(f.fma == hasfma);
    TP_CHECK(f.isa == (has512           ? TP_CPU_ISA_AVX512
                       : has2 && hasfma ? TP_CPU_ISA_AVX2
                                        : TP_CPU_ISA_GENERIC));
#endif
}

/* Every built-in kernel this CPU can run equals a naive product, on shapes that hit
 * every edge of the register blocks, the K block and the row block. */
TP_TEST(gemm_kernels_match_naive) {
    tp_cpu_features f;
    tp_cpu_features_detect(&f);
    const tp_cpu_isa isas[] = {TP_CPU_ISA_GENERIC, TP_CPU_ISA_AVX2, TP_CPU_ISA_AVX512};
    const uint32_t shapes[][3] = {{1, 1, 1},     {1, 300, 70},  {7, 5, 33},     {9, 257, 31},
                                  {100, 64, 48}, {13, 513, 17}, {400, 300, 37}, {400, 513, 70}};
    uint32_t packed_checked = 0; /* shapes whose halves (>= 192 rows) read the packed B */
    for (size_t t = 0; t < sizeof isas / sizeof isas[0]; t++) {
        if (isas[t] > f.isa || (f.isa == TP_CPU_ISA_NEON && isas[t] != TP_CPU_ISA_GENERIC))
            continue;
        const char *name = NULL;
        tp_gemm_rows_fn rows = tp_gemm_kernel_for(isas[t], &name);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            uint32_t m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
            float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
            float *c = malloc(sizeof(float) * m * n);
            TP_CHECK(a && b && c);
            if (!a || !b || !c) {
                free(a), free(b), free(c);
                return;
            }
            for (uint32_t i = 0; i < m * k; i++)
                a[i] = (float)((i * 7u) % 11u) - 5.0f;
            for (uint32_t i = 0; i < k * n; i++)
                b[i] = (float)((i * 3u) % 7u) - 3.0f;
            tp_gemm_job j = {a, b, c, m, k, n, NULL};
            /* two row ranges, as two workers would run them */
            rows(&j, 0, m / 2);
            rows(&j, m / 2, m);
            double worst = 0;
            for (uint32_t i = 0; i < m; i++)
                for (uint32_t q = 0; q < n; q++) {
                    double ref = 0;
                    for (uint32_t p = 0; p < k; p++)
                        ref += (double)a[i * k + p] * (double)b[p * n + q];
                    double e = fabs(ref - (double)c[i * n + q]);
                    if (e > worst) worst = e;
                }
            if (worst > 1e-2) printf("  %s %ux%ux%u: max error %g\n", name, m, k, n, worst);
            TP_CHECK(worst <= 1e-2);
            /* B packed once beforehand (as the calibration times it): the same product */
            size_t pf = tp_gemm_packed_floats(isas[t], k, n);
            float *pb = pf ? aligned_alloc(64, (pf * sizeof(float) + 63) / 64 * 64) : NULL;
            if (pb) {
                float *c2 = malloc(sizeof(float) * m * n);
                TP_CHECK(c2 != NULL);
                if (c2) {
                    tp_gemm_pack_b(isas[t], &j, pb);
                    tp_gemm_job jp = {a, b, c2, m, k, n, pb};
                    rows(&jp, 0, m / 2);
                    rows(&jp, m / 2, m);
                    uint32_t diff = 0;
                    for (uint32_t i = 0; i < m * n; i++)
                        diff += c2[i] != c[i];
                    if (diff)
                        printf("  %s %ux%ux%u packed: %u elements differ\n", name, m, k, n, diff);
                    TP_CHECK(diff == 0);
                    packed_checked += m / 2 >= 192;
                }
                free(c2);
            }
            free(pb);
            free(a), free(b), free(c);
        }
        printf("  %s: %zu shapes exact\n", name, sizeof shapes / sizeof shapes[0]);
    }
    /* the packed path ran where a vector kernel exists (2 shapes per such kernel) */
    TP_CHECK(f.isa < TP_CPU_ISA_AVX2 || packed_checked >= 2);
    printf("  %u products from a B packed beforehand, identical\n", packed_checked);
}

/* The calibration shares a GEMM between threads as MLAS does: columns when there are more of
   them than rows, else rows. Every part computed with the kernel (B laid out as the column blocks
   the split hands out) assembles into the exact product, each element written once, for shapes
   on both sides of the rule and 1..5 parts. */
TP_TEST(gemm_split_covers_the_product) {
    tp_cpu_features f;
    tp_cpu_features_detect(&f);
    tp_gemm_rows_fn rows = tp_gemm_kernel_for(f.isa, NULL);
    const uint32_t shapes[][3] = {{1, 64, 1024}, {16, 96, 1024}, {64, 32, 70},  {100, 40, 48},
                                  {24, 8, 24},   {3, 17, 5},     {130, 20, 129}};
    uint32_t checked = 0, column_splits = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        uint32_t m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
        float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
        float *bl = malloc(sizeof(float) * k * n), *c = malloc(sizeof(float) * m * n);
        float *out = malloc(sizeof(float) * m * n);
        unsigned char *hits = malloc((size_t)m * n);
        TP_CHECK(a && b && bl && c && out && hits);
        if (!a || !b || !bl || !c || !out || !hits) {
            free(a), free(b), free(bl), free(c), free(out), free(hits);
            return;
        }
        for (uint32_t i = 0; i < m * k; i++)
            a[i] = (float)((i * 5u) % 9u) - 4.0f;
        for (uint32_t i = 0; i < k * n; i++)
            b[i] = (float)((i * 3u) % 7u) - 3.0f;
        for (uint32_t parts = 1; parts <= 5; parts++) {
            tp_gemm_job j = {a, bl, c, m, k, n, NULL};
            /* lay B out as the split reads it: each part's columns as one K × width block */
            bool cols = parts > 1 && n > m;
            for (uint32_t p = 0; p < parts && cols; p++) {
                uint32_t n0 = (uint32_t)((uint64_t)n * p / parts);
                uint32_t n1 = (uint32_t)((uint64_t)n * (p + 1) / parts);
                for (uint32_t r = 0; r < k; r++)
                    for (uint32_t q = n0; q < n1; q++)
                        bl[(size_t)k * n0 + (size_t)r * (n1 - n0) + (q - n0)] =
                            b[(size_t)r * n + q];
            }
            if (!cols) memcpy(bl, b, sizeof(float) * k * n);
            memset(hits, 0, (size_t)m * n);
            for (uint32_t p = 0; p < parts; p++) {
                tp_gemm_job sub;
                uint32_t r0 = 0, r1 = 0;
                if (!tp__gemm_split(&j, p, parts, &sub, &r0, &r1)) continue;
                TP_CHECK(sub.b >= bl && sub.b + (size_t)sub.k * sub.n <= bl + (size_t)k * n);
                TP_CHECK(sub.c >= c && sub.c + (size_t)sub.m * sub.n <= c + (size_t)m * n);
                TP_CHECK(r0 < r1 && r1 <= sub.m && sub.k == k);
                rows(&sub, r0, r1);
                /* back to row-major [m][n]: a column part wrote an m × width block */
                size_t n0 = cols ? (size_t)(sub.c - c) / m : 0;
                for (uint32_t i = r0; i < r1; i++)
                    for (uint32_t q = 0; q < sub.n; q++) {
                        out[(size_t)i * n + n0 + q] = sub.c[(size_t)i * sub.n + q];
                        hits[(size_t)i * n + n0 + q]++;
                    }
            }
            column_splits += cols;
            double worst = 0;
            uint32_t bad_hits = 0;
            for (uint32_t i = 0; i < m; i++)
                for (uint32_t q = 0; q < n; q++) {
                    double ref = 0;
                    for (uint32_t r = 0; r < k; r++)
                        ref += (double)a[i * k + r] * (double)b[(size_t)r * n + q];
                    double e = fabs(ref - (double)out[(size_t)i * n + q]);
                    if (e > worst) worst = e;
                    bad_hits += hits[(size_t)i * n + q] != 1;
                }
            if (worst > 1e-2 || bad_hits)
                printf("  %ux%ux%u in %u parts: max error %g, %u elements not written once\n", m, k,
                       n, parts, worst, bad_hits);
            TP_CHECK(worst <= 1e-2 && bad_hits == 0);
            checked++;
        }
        free(a), free(b), free(bl), free(c), free(out), free(hits);
    }
    TP_CHECK(column_splits > 0 && column_splits < checked);
    printf("  %u splits exact (%u by columns)\n", checked, column_splits);
}

/* A block-dot problem of m rows × n weight rows × k with the extreme values -127 and 127; c is
   the kernel's output. */
typedef struct q8_case {
    int8_t *a, *w;
    float *sa, *sw, *c;
    tp_int8_dot_job job;
} q8_case;

static void q8_case_free(q8_case *q) {
    free(q->a), free(q->w), free(q->sa), free(q->sw), free(q->c);
}

static bool q8_case_make(q8_case *q, uint32_t m, uint32_t k, uint32_t n) {
    uint32_t nb = k / TP_Q8_BLOCK;
    q->a = malloc((size_t)m * k), q->w = malloc((size_t)n * k);
    q->sa = malloc(sizeof(float) * m * nb), q->sw = malloc(sizeof(float) * n * nb);
    q->c = malloc(sizeof(float) * m * n);
    if (!q->a || !q->w || !q->sa || !q->sw || !q->c) {
        q8_case_free(q);
        return false;
    }
    for (uint32_t i = 0; i < m * k; i++)
        q->a[i] = (int8_t)(i % 5 == 0 ? -127 : (int)((i * 37u) % 255u) - 127);
    for (uint32_t i = 0; i < n * k; i++)
        q->w[i] = (int8_t)(i % 7 == 0 ? 127 : (int)((i * 53u) % 255u) - 127);
    for (uint32_t i = 0; i < m * nb; i++)
        q->sa[i] = 0.5f + 0.125f * (float)(i % 3);
    for (uint32_t i = 0; i < n * nb; i++)
        q->sw[i] = 0.25f + 0.0625f * (float)(i % 5);
    q->job = (tp_int8_dot_job){q->a, q->sa, q->w, q->sw, q->c, m, k, n};
    return true;
}

/* The largest relative error of q->c against the exact product (integer block sums, double
   accumulation). */
static double q8_case_worst(const q8_case *q) {
    uint32_t m = q->job.m, k = q->job.k, n = q->job.n, nb = k / TP_Q8_BLOCK;
    double worst = 0;
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t r = 0; r < n; r++) {
            double ref = 0;
            for (uint32_t b = 0; b < nb; b++) {
                long long dot = 0;
                for (uint32_t e = 0; e < TP_Q8_BLOCK; e++)
                    dot += (long long)q->a[i * k + b * TP_Q8_BLOCK + e] *
                           q->w[r * k + b * TP_Q8_BLOCK + e];
                ref += (double)q->sa[i * nb + b] * (double)q->sw[r * nb + b] * (double)dot;
            }
            double e = fabs(ref - (double)q->c[i * n + r]) / (fabs(ref) + 1.0);
            if (e > worst) worst = e;
        }
    return worst;
}

/* Every int8 block-dot kernel this CPU can run equals the exact product (integer sums of the
 * blocks are exact; the float accumulation is checked to a relative 1e-5), on shapes that hit
 * the edges of the register blocks (rows and weight rows not multiples of 4, a split range),
 * with the extreme values -127 and 127. */
TP_TEST(int8_dot_kernels_match_exact) {
    tp_cpu_features f;
    tp_cpu_features_detect(&f);
    tp_int8_dot_fn fns[3];
    const char *names[3];
    uint32_t nk = tp_int8_dot_kernels(&f, fns, names);
    TP_CHECK(nk >= 1 && nk <= 3);
    TP_CHECK_STR(names[nk - 1], "int8-generic");
    const uint32_t shapes[][3] = {{1, 32, 1}, {5, 64, 7}, {8, 96, 16}, {13, 256, 9}, {64, 128, 33}};
    for (uint32_t t = 0; t < nk; t++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            q8_case q;
            TP_CHECK(q8_case_make(&q, shapes[s][0], shapes[s][1], shapes[s][2]));
            if (!q.a) return;
            uint32_t n = q.job.n;
            /* two weight-row ranges, as two threads would run them */
            fns[t](&q.job, 0, n / 2);
            fns[t](&q.job, n / 2, n);
            double worst = q8_case_worst(&q);
            if (worst > 1e-5)
                fprintf(stderr, "%s at %ux%ux%u: relative error %g\n", names[t], q.job.m, q.job.k,
                        n, worst);
            TP_CHECK(worst <= 1e-5);
            q8_case_free(&q);
        }
}

/* Every 8-bit integer GEMM kernel this CPU runs (u8 × s8, u8 × u8) equals the exact integer
 * product, on shapes of one and several register blocks, with the extreme byte values (255 by
 * -64 ... 63: four products stay within vpmaddubsw's 16-bit pairs), the rows split in two as two
 * threads run them. */
TP_TEST(qgemm_kernels_match_exact) {
    tp_cpu_features f;
    tp_cpu_features_detect(&f);
    const uint32_t shapes[][3] = {{4, 4, 16}, {8, 36, 32}, {12, 256, 48}, {64, 64, 16}};
    for (int kind = 0; kind < 2; kind++) {
        tp_qgemm_kind qk = kind ? TP_QGEMM_U8U8 : TP_QGEMM_U8S8;
        tp_qgemm_rows_fn fns[3];
        const char *names[3];
        uint32_t nk = tp_qgemm_kernels(qk, &f, fns, names);
        TP_CHECK(nk >= 1 && nk <= 3);
        TP_CHECK_CONTAINS(names[nk - 1], "-generic");
        for (uint32_t t = 0; t < nk; t++)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                uint32_t m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
                uint8_t *a = malloc((size_t)m * k * 2);
                unsigned char *b = malloc((size_t)k * n);
                void *packed = malloc(tp_qgemm_packed_bytes(qk, k, n));
                int32_t *c = malloc((size_t)m * n * sizeof(int32_t));
                TP_CHECK(a && b && packed && c);
                if (!a || !b || !packed || !c) return;
                int16_t *a16 = (int16_t *)(void *)a;
                for (size_t i = 0; i < (size_t)m * k; i++) {
                    uint8_t v = i % 7 == 0 ? 255 : (uint8_t)(i * 29u % 256u);
                    if (kind)
                        a16[i] = v;
                    else
                        a[i] = v;
                }
                for (size_t i = 0; i < (size_t)k * n; i++)
                    b[i] = kind ? (unsigned char)(i * 17u % 256u)
                                : (unsigned char)(int8_t)((int)(i * 13u % 128u) - 64);
                tp_qgemm_pack_b(qk, b, k, n, packed);
                tp_qgemm_job j = {a, packed, c, m, k, n};
                fns[t](&j, 0, m / 2 / TP_QGEMM_MR * TP_QGEMM_MR);
                fns[t](&j, m / 2 / TP_QGEMM_MR * TP_QGEMM_MR, m);
                int bad = 0;
                for (uint32_t i = 0; i < m; i++)
                    for (uint32_t q = 0; q < n; q++) {
                        int64_t e = 0;
                        for (uint32_t p = 0; p < k; p++) {
                            int64_t av = kind ? a16[(size_t)i * k + p] : a[(size_t)i * k + p];
                            int64_t bv = kind ? (int64_t)b[(size_t)p * n + q]
                                              : (int64_t)(int8_t)b[(size_t)p * n + q];
                            e += av * bv;
                        }
                        bad += c[(size_t)i * n + q] != (int32_t)e;
                    }
                if (bad) fprintf(stderr, "%s at %ux%ux%u: %d wrong\n", names[t], m, k, n, bad);
                TP_CHECK(bad == 0);
                free(a);
                free(b);
                free(packed);
                free(c);
            }
    }
}

/* The AMX block-dot kernel (where this CPU and OS run AMX-INT8) equals the exact product, on
 * shapes of one and several 32-row and 32-weight-row blocks, split in two weight-row ranges as
 * two threads run them (the pack's layout is checked by the values: a misplaced byte changes
 * the sums). */
/* The GELU micro-benchmark computes GELU (its erf is a rough shape, within 0.07 of the exact
   GELU over [-6, 6]) with every kernel this CPU runs, the chunks split between two parts; and
   BiasGelu, the rows split so, with the erf kernel onnxruntime's BiasGelu runs here. */
/* The PRelu kernel: x where x > 0, else x times the slope, each part its share (an odd count, so
   that the last part takes the rest). */
TP_TEST(prelu_kernel_computes_prelu) {
    size_t n = 1001;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    TP_CHECK(x && y);
    if (!x || !y) {
        free(x);
        free(y);
        return;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = (float)((int)(i % 7) - 3) * 0.5f;
    memset(y, 0xff, n * sizeof *y);
    tp_prelu_job j = {.x = x, .y = y, .n = n, .slope = 0.25f};
    for (uint32_t p = 0; p < 3; p++)
        tp_prelu_part(&j, p, 3);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        if (y[i] != (x[i] > 0 ? x[i] : x[i] * 0.25f)) wrong++;
    TP_CHECK_EQ_U64(wrong, 0);
    free(x);
    free(y);
}

TP_TEST(gelu_kernels_compute_gelu) {
    tp_cpu_features f;
    tp_cpu_features_detect(&f);
    size_t n = 3 * (size_t)TP_GELU_CHUNK;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    TP_CHECK(x && y);
    for (size_t i = 0; i < n; i++)
        x[i] = -6.0f + 12.0f * (float)i / (float)n;
    tp_gelu_kernel best = tp_gelu_kernel_for(&f);
    for (int k = (int)best; k <= (int)TP_GELU_V4; k++) { /* the CPU's kernel and the plainer ones */
        memset(y, 0xff, n * sizeof *y);
        tp_gelu_job j = {.x = x, .y = y, .n = n, .kernel = (tp_gelu_kernel)k};
        tp_gelu_part(&j, 0, 2);
        tp_gelu_part(&j, 1, 2);
        double worst = 0;
        for (size_t i = 0; i < n; i++) {
            double g = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt(2.0)));
            double e = fabs((double)y[i] - g);
            if (!(e <= worst)) worst = e; /* NaN counts as worst */
        }
        TP_CHECK(worst < 0.07);
    }
    /* BiasGelu: rows of 1536 with a bias of -0.5 .. +0.5, MLAS's erf kernel for this CPU */
    size_t bl = 1536;
    float *b = malloc(bl * sizeof *b), *t = malloc(n * sizeof *t);
    TP_CHECK(b && t);
    tp_gelu_kernel erf_k = tp_bias_gelu_kernel_for(&f);
    TP_CHECK(erf_k != TP_GELU_AVX512);
    if (b && t && x && y) {
        for (size_t i = 0; i < bl; i++)
            b[i] = -0.5f + (float)i / (float)bl;
        memset(y, 0xff, n * sizeof *y);
        tp_gelu_job j = {
            .x = x, .y = y, .n = n, .kernel = erf_k, .bias = b, .temp = t, .bias_len = bl};
        tp_gelu_part(&j, 0, 2);
        tp_gelu_part(&j, 1, 2);
        double worst = 0;
        for (size_t i = 0; i < n; i++) {
            double v = (double)x[i] + b[i % bl];
            double e = fabs((double)y[i] - 0.5 * v * (1.0 + erf(v / sqrt(2.0))));
            if (!(e <= worst)) worst = e;
        }
        TP_CHECK(worst < 0.07);
    }
    free(b);
    free(t);
    free(x);
    free(y);
}

TP_TEST(amx_dot_matches_exact) {
    tp_cpu_features f;
    tp_cpu_features_detect(&f);
    if (!tp_amx_dot_available(&f)) {
        printf("  no AMX-INT8 on this CPU or OS: kernel not run (amx_tile %d amx_int8 %d)\n",
               f.amx_tile, f.amx_int8);
        return;
    }
    const uint32_t shapes[][3] = {{32, 32, 32}, {32, 96, 64}, {64, 256, 96}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        q8_case q;
        TP_CHECK(q8_case_make(&q, shapes[s][0], shapes[s][1], shapes[s][2]));
        if (!q.a) return;
        uint32_t n = q.job.n;
        size_t pb = (tp_amx_dot_packed_bytes(n, q.job.k) + 63) / 64 * 64;
        void *packed = aligned_alloc(64, pb);
        TP_CHECK(packed != NULL);
        if (packed) {
            tp_amx_dot_pack(&q.job, packed);
            uint32_t half = n / TP_AMX_BLOCK / 2 * TP_AMX_BLOCK;
            tp_amx_dot_run(&q.job, packed, 0, half);
            tp_amx_dot_run(&q.job, packed, half, n);
            double worst = q8_case_worst(&q);
            if (worst > 1e-5)
                fprintf(stderr, "amx at %ux%ux%u: relative error %g\n", q.job.m, q.job.k, n, worst);
            TP_CHECK(worst <= 1e-5);
        }
        free(packed);
        q8_case_free(&q);
    }
}

int main(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tp-calib-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    TP_RUN(cache_dir_and_path);
    TP_RUN(model_file_round_trip);
    TP_RUN(cpu_features_match_cpuinfo);
    TP_RUN(gemm_kernels_match_naive);
    TP_RUN(int8_dot_kernels_match_exact);
    TP_RUN(qgemm_kernels_match_exact);
    TP_RUN(amx_dot_matches_exact);
    TP_RUN(gelu_kernels_compute_gelu);
    TP_RUN(prelu_kernel_computes_prelu);
    TP_RUN(gemm_split_covers_the_product);
    TP_RUN(quick_calibration_and_cache);
    TP_RUN(wake_up);
    TP_RUN(interpreter_step);
    TP_RUN(spinning_barrier);
    TP_RUN(cuda_without_gpu_is_not_found);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) printf("  (could not remove %s)\n", tmpdir);
    return tp_test_finish();
}
