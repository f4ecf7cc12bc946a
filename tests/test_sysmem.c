/* Tests of host/GPU memory detection (sysmem) on fixture files and on this machine. */
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "tensorplan/sysmem.h"

#define FIX TP_SOURCE_DIR "/tests/fixtures/sysmem/"

TP_TEST(test_meminfo) {
    tp_error err_s, *err = &err_s;
    uint64_t total = 0, avail = 0;
    TP_CHECK_OK(tp_sysmem_parse_meminfo(FIX "meminfo", &total, &avail, err), err);
    TP_CHECK_EQ_U64(total, 16384000ull * 1024);
    TP_CHECK_EQ_U64(avail, 8192000ull * 1024);
    /* no MemAvailable: MemFree + Buffers + Cached */
    TP_CHECK_OK(tp_sysmem_parse_meminfo(FIX "meminfo_old", &total, &avail, err), err);
    TP_CHECK_EQ_U64(total, 1000000ull * 1024);
    TP_CHECK_EQ_U64(avail, 420000ull * 1024);
    TP_CHECK_STATUS(tp_sysmem_parse_meminfo(FIX "meminfo_garbage", &total, &avail, err),
                    TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err->msg, "line 1");
    TP_CHECK_CONTAINS(err->msg, "meminfo_garbage");
    TP_CHECK_STATUS(tp_sysmem_parse_meminfo(FIX "meminfo_truncated", &total, &avail, err),
                    TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err->msg, "no MemTotal");
    TP_CHECK_STATUS(tp_sysmem_parse_meminfo(FIX "meminfo_overflow", &total, &avail, err),
                    TP_ERR_PARSE);
    TP_CHECK_STATUS(tp_sysmem_parse_meminfo(FIX "no_such_file", &total, &avail, err), TP_ERR_IO);
    TP_CHECK_STATUS(tp_sysmem_parse_meminfo(NULL, &total, &avail, err), TP_ERR_INVALID);
}

TP_TEST(test_cgroup_files) {
    tp_error err_s, *err = &err_s;
    tp_cgroup_memory cg;
    TP_CHECK_OK(tp_sysmem_read_cgroup(FIX "cg2_num", &cg, err), err);
    TP_CHECK_EQ_I64(cg.version, 2);
    TP_CHECK(cg.limited);
    TP_CHECK_EQ_U64(cg.limit_bytes, 4294967296ull);
    TP_CHECK_EQ_U64(cg.usage_bytes, 1073741824ull);
    TP_CHECK_OK(tp_sysmem_read_cgroup(FIX "cg2_max", &cg, err), err);
    TP_CHECK_EQ_I64(cg.version, 2);
    TP_CHECK(!cg.limited);
    TP_CHECK_EQ_U64(cg.usage_bytes, 123456);
    TP_CHECK_OK(tp_sysmem_read_cgroup(FIX "cg1", &cg, err), err);
    TP_CHECK_EQ_I64(cg.version, 1);
    TP_CHECK(cg.limited);
    TP_CHECK_EQ_U64(cg.limit_bytes, 2147483648ull);
    TP_CHECK_EQ_U64(cg.usage_bytes, 536870912ull);
    TP_CHECK_OK(tp_sysmem_read_cgroup(FIX "cg1_unlimited", &cg, err), err);
    TP_CHECK_EQ_I64(cg.version, 1);
    TP_CHECK(!cg.limited);
    TP_CHECK_OK(tp_sysmem_read_cgroup(FIX "cg_none", &cg, err), err);
    TP_CHECK_EQ_I64(cg.version, 0);
    TP_CHECK_STATUS(tp_sysmem_read_cgroup(FIX "cg2_garbage", &cg, err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err->msg, "memory.max");
    TP_CHECK_CONTAINS(err->msg, "lots");
    TP_CHECK_STATUS(tp_sysmem_read_cgroup(FIX "cg2_truncated", &cg, err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err->msg, "empty or truncated");
    TP_CHECK_STATUS(tp_sysmem_read_cgroup(FIX "cg2_nocurrent", &cg, err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err->msg, "memory.current");
}

TP_TEST(test_host_from) {
    tp_error err_s, *err = &err_s;
    tp_host_memory hm;
    const uint64_t mt = 16384000ull * 1024, ma = 8192000ull * 1024;
    /* no cgroup */
    TP_CHECK_OK(tp_sysmem_host_from(FIX "meminfo", NULL, &hm, err), err);
    TP_CHECK_EQ_U64(hm.total_bytes, mt);
    TP_CHECK_EQ_U64(hm.available_bytes, ma);
    TP_CHECK_EQ_I64(hm.cgroup.version, 0);
    /* v2 limit 4 GiB, usage 1 GiB: total 4 GiB, available 3 GiB */
    TP_CHECK_OK(tp_sysmem_host_from(FIX "meminfo", FIX "cg2_num", &hm, err), err);
    TP_CHECK_EQ_U64(hm.total_bytes, 4294967296ull);
    TP_CHECK_EQ_U64(hm.available_bytes, 3221225472ull);
    TP_CHECK_EQ_U64(hm.meminfo_available_bytes, ma);
    TP_CHECK_EQ_I64(hm.cgroup.version, 2);
    /* "max": no cap */
    TP_CHECK_OK(tp_sysmem_host_from(FIX "meminfo", FIX "cg2_max", &hm, err), err);
    TP_CHECK_EQ_U64(hm.total_bytes, mt);
    TP_CHECK_EQ_U64(hm.available_bytes, ma);
    /* v1 limit 2 GiB, usage 512 MiB */
    TP_CHECK_OK(tp_sysmem_host_from(FIX "meminfo", FIX "cg1", &hm, err), err);
    TP_CHECK_EQ_U64(hm.total_bytes, 2147483648ull);
    TP_CHECK_EQ_U64(hm.available_bytes, 1610612736ull);
    TP_CHECK_EQ_I64(hm.cgroup.version, 1);
    TP_CHECK_OK(tp_sysmem_host_from(FIX "meminfo", FIX "cg1_unlimited", &hm, err), err);
    TP_CHECK_EQ_U64(hm.available_bytes, ma);
    /* nested: the child is "max" but its parent allows 8 GiB - 3 GiB = 5 GiB */
    TP_CHECK_OK(tp_sysmem_host_from(FIX "meminfo", FIX "cg2_nested/child", &hm, err), err);
    TP_CHECK_EQ_U64(hm.total_bytes, 8589934592ull);
    TP_CHECK_EQ_U64(hm.available_bytes, ma < 5368709120ull ? ma : 5368709120ull);
    TP_CHECK_EQ_U64(hm.cgroup.limit_bytes, 8589934592ull);
    TP_CHECK_CONTAINS(hm.cgroup_dir, "cg2_nested");
    TP_CHECK(strstr(hm.cgroup_dir, "child") == NULL);
    /* the cgroup's room is larger than MemAvailable: MemAvailable wins */
    TP_CHECK_OK(tp_sysmem_host_from(FIX "meminfo_old", FIX "cg2_num", &hm, err), err);
    TP_CHECK_EQ_U64(hm.total_bytes, 1000000ull * 1024);
    TP_CHECK_EQ_U64(hm.available_bytes, 420000ull * 1024);
    TP_CHECK_STATUS(tp_sysmem_host_from(FIX "meminfo", FIX "cg2_garbage", &hm, err), TP_ERR_PARSE);
    TP_CHECK_STATUS(tp_sysmem_host_from(FIX "meminfo_garbage", NULL, &hm, err), TP_ERR_PARSE);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

TP_TEST(test_find_cgroup) {
    tp_error err_s, *err = &err_s;
    char mi[64], text[2048], dir[512];
    snprintf(mi, sizeof mi, "/tmp/tp_mountinfo_%ld", (long)getpid());
    /* hybrid v1 + v2 layout like this machine: cgroup2 without memory.max at the
     * v2 path, so the v1 memory controller is used */
    snprintf(text, sizeof text,
             "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
             "35 31 0:32 / %smnt_v1 rw,relatime - cgroup cgroup rw,memory\n"
             "41 31 0:38 / %smnt_v2_absent rw,relatime - cgroup2 cgroup2 rw\n",
             FIX, FIX);
    write_file(mi, text);
    TP_CHECK_OK(tp_sysmem_find_cgroup(FIX "proc_cgroup_v1", mi, dir, sizeof dir, err), err);
    TP_CHECK_STR(dir, FIX "mnt_v1/process_api/abc");
    tp_host_memory hm;
    TP_CHECK_OK(tp_sysmem_host_from(FIX "meminfo", dir, &hm, err), err);
    TP_CHECK_EQ_U64(hm.total_bytes, 3221225472ull);
    TP_CHECK_EQ_U64(hm.available_bytes, 2147483648ull);
    /* pure v2 */
    snprintf(text, sizeof text,
             "30 23 0:26 / %smnt_v2 rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
             "rw,nsdelegate\n",
             FIX);
    write_file(mi, text);
    TP_CHECK_OK(tp_sysmem_find_cgroup(FIX "proc_cgroup_v2", mi, dir, sizeof dir, err), err);
    TP_CHECK_STR(dir, FIX "mnt_v2/user.slice/session-1.scope");
    TP_CHECK_OK(tp_sysmem_host_from(FIX "meminfo", dir, &hm, err), err);
    TP_CHECK_EQ_U64(hm.total_bytes, 1073741824ull);
    TP_CHECK_EQ_U64(hm.available_bytes, 805306368ull);
    /* a v1 mount whose root is the process's own cgroup (container view) */
    snprintf(text, sizeof text,
             "35 31 0:32 /process_api %smnt_v1/process_api rw - cgroup cgroup rw,memory\n", FIX);
    write_file(mi, text);
    TP_CHECK_OK(tp_sysmem_find_cgroup(FIX "proc_cgroup_v1", mi, dir, sizeof dir, err), err);
    TP_CHECK_STR(dir, FIX "mnt_v1/process_api/abc");
    /* no memory controller mounted: "" */
    write_file(mi, "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n");
    TP_CHECK_OK(tp_sysmem_find_cgroup(FIX "proc_cgroup_v1", mi, dir, sizeof dir, err), err);
    TP_CHECK_STR(dir, "");
    TP_CHECK_STATUS(tp_sysmem_find_cgroup(FIX "proc_cgroup_garbage", mi, dir, sizeof dir, err),
                    TP_ERR_PARSE);
    TP_CHECK_STATUS(tp_sysmem_find_cgroup(FIX "no_such", mi, dir, sizeof dir, err), TP_ERR_IO);
    TP_CHECK_STATUS(
        tp_sysmem_find_cgroup(FIX "proc_cgroup_v1", FIX "no_such", dir, sizeof dir, err),
        TP_ERR_IO);
    remove(mi);
}

TP_TEST(test_rss_parsers) {
    tp_error err_s, *err = &err_s;
    uint64_t v = 0;
    TP_CHECK_OK(tp_sysmem_parse_statm(FIX "statm", 4096, &v, err), err);
    TP_CHECK_EQ_U64(v, 567ull * 4096);
    TP_CHECK_OK(tp_sysmem_parse_status_rss(FIX "status", &v, err), err);
    TP_CHECK_EQ_U64(v, 2048ull * 1024);
    TP_CHECK_STATUS(tp_sysmem_parse_status_rss(FIX "status_kthread", &v, err), TP_ERR_NOT_FOUND);
    TP_CHECK_STATUS(tp_sysmem_parse_statm(FIX "meminfo", 4096, &v, err), TP_ERR_PARSE);
    TP_CHECK_STATUS(tp_sysmem_parse_statm(FIX "statm", UINT64_MAX, &v, err), TP_ERR_PARSE);
}

TP_TEST(test_soft_budget) {
    tp_error err_s, *err = &err_s;
    uint64_t b = 0;
    tp_budget_source src;
    TP_CHECK_OK(tp_sysmem_soft_budget_from(1000, NULL, NULL, &b, &src, err), err);
    TP_CHECK_EQ_U64(b, 800);
    TP_CHECK_EQ_I64(src, TP_BUDGET_FRACTION_DEFAULT);
    TP_CHECK_OK(tp_sysmem_soft_budget_from(10000000007ull, NULL, NULL, &b, &src, err), err);
    TP_CHECK_EQ_U64(b, 8000000005ull); /* floor(0.8 x 10000000007) */
    TP_CHECK_OK(tp_sysmem_soft_budget_from(UINT64_MAX, "1", NULL, &b, &src, err), err);
    TP_CHECK_EQ_U64(b, UINT64_MAX);
    TP_CHECK_OK(tp_sysmem_soft_budget_from(1000, "0.5", NULL, &b, &src, err), err);
    TP_CHECK_EQ_U64(b, 500);
    TP_CHECK_EQ_I64(src, TP_BUDGET_FRACTION_ENV);
    TP_CHECK_OK(tp_sysmem_soft_budget_from(1000, "0.5", "123456", &b, &src, err), err);
    TP_CHECK_EQ_U64(b, 123456);
    TP_CHECK_EQ_I64(src, TP_BUDGET_BYTES_ENV);
    TP_CHECK_STATUS(tp_sysmem_soft_budget_from(1000, "1.5", NULL, &b, &src, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "TENSORPLAN_SOFT_MEMORY_FRACTION");
    TP_CHECK_STATUS(tp_sysmem_soft_budget_from(1000, "0", NULL, &b, &src, err), TP_ERR_INVALID);
    TP_CHECK_STATUS(tp_sysmem_soft_budget_from(1000, "0.8x", NULL, &b, &src, err), TP_ERR_INVALID);
    TP_CHECK_STATUS(tp_sysmem_soft_budget_from(1000, NULL, "12GiB", &b, &src, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "TENSORPLAN_MEMORY_BUDGET_BYTES");
    TP_CHECK_STATUS(tp_sysmem_soft_budget_from(1000, NULL, "99999999999999999999", &b, &src, err),
                    TP_ERR_INVALID);
    /* the default: 0.80 (the environment is the CLI's business, test_env.c) */
    TP_CHECK_OK(tp_sysmem_soft_budget(4000, &b, &src, err), err);
    TP_CHECK_EQ_U64(b, 3200);
    TP_CHECK(src == TP_BUDGET_FRACTION_DEFAULT);
}

TP_TEST(test_this_machine) {
    tp_error err_s, *err = &err_s;
    tp_host_memory hm;
    TP_CHECK_OK(tp_sysmem_host(&hm, err), err);
    TP_CHECK(hm.total_bytes > 0);
    TP_CHECK(hm.available_bytes > 0);
    TP_CHECK_LE_U64(hm.available_bytes, hm.total_bytes);
    TP_CHECK_LE_U64(hm.total_bytes, hm.meminfo_total_bytes);
    uint64_t rss = 0;
    TP_CHECK_OK(tp_sysmem_process_rss(&rss, err), err);
    TP_CHECK(rss > 0);
    TP_CHECK_LE_U64(rss, hm.meminfo_total_bytes);
    printf("  host: total %llu, available %llu, cgroup v%d %s (%s), rss %llu\n",
           (unsigned long long)hm.total_bytes, (unsigned long long)hm.available_bytes,
           hm.cgroup.version, hm.cgroup.limited ? "limited" : "unlimited",
           hm.cgroup_dir[0] ? hm.cgroup_dir : "-", (unsigned long long)rss);
}

TP_TEST(test_gpu) {
    tp_error err_s, *err = &err_s;
    tp_gpu_memory gm;
    /* a library that does not exist: a normal "no GPU" answer */
    TP_CHECK_OK(tp_sysmem_gpu("libtensorplan-no-such-driver.so.1", 0, &gm, err), err);
    TP_CHECK(!gm.present);
    TP_CHECK_EQ_I64(gm.device_count, 0);
    TP_CHECK_CONTAINS(gm.reason, "no CUDA driver");
    /* a library without the CUDA entry points */
    TP_CHECK_OK(tp_sysmem_gpu("libm.so.6", 0, &gm, err), err);
    TP_CHECK(!gm.present);
    TP_CHECK_CONTAINS(gm.reason, "lacks required entry points");
    TP_CHECK_STATUS(tp_sysmem_gpu(NULL, -1, &gm, err), TP_ERR_INVALID);
    TP_CHECK_STATUS(tp_sysmem_gpu(NULL, 0, NULL, err), TP_ERR_INVALID);
    /* the real driver, if any */
    TP_CHECK_OK(tp_sysmem_gpu(NULL, 0, &gm, err), err);
    if (gm.present) {
        TP_CHECK(gm.total_bytes > 0);
        TP_CHECK_LE_U64(gm.free_bytes, gm.total_bytes);
        TP_CHECK(gm.device_count >= 1);
        printf("  gpu 0: %s total %llu free %llu\n", gm.name, (unsigned long long)gm.total_bytes,
               (unsigned long long)gm.free_bytes);
    } else {
        TP_CHECK(gm.reason[0] != '\0');
        printf("  gpu: none (%s)\n", gm.reason);
    }
}

/* The success path against a fake driver built from a fixture source (needs a
 * C compiler at test time; without one the test says so and checks nothing). */
TP_TEST(test_gpu_fake_driver) {
    tp_error err_s, *err = &err_s;
    char so[96], cmd[512];
    snprintf(so, sizeof so, "/tmp/tp_fake_cuda_%ld.so", (long)getpid());
    const char *cc = getenv("CC");
    snprintf(cmd, sizeof cmd, "%s -shared -fPIC -o %s %sfake_cuda.c 2>/dev/null",
             cc && *cc ? cc : "cc", so, FIX);
    if (system(cmd) != 0) {
        printf("  fake driver: no C compiler to build it, not checked\n");
        return;
    }
    tp_gpu_memory gm;
    unsetenv("FAKE_CUDA_MODE");
    TP_CHECK_OK(tp_sysmem_gpu(so, 0, &gm, err), err);
    TP_CHECK(gm.present);
    TP_CHECK_EQ_I64(gm.device_count, 2);
    TP_CHECK_EQ_U64(gm.total_bytes, 85899345920ull);
    TP_CHECK_EQ_U64(gm.free_bytes, 84825604096ull);
    TP_CHECK_STR(gm.name, "Fake GPU 80GB");
    TP_CHECK_OK(tp_sysmem_gpu(so, 1, &gm, err), err);
    TP_CHECK_STR(gm.name, "Fake GPU 16GB");
    /* no such device */
    TP_CHECK_OK(tp_sysmem_gpu(so, 2, &gm, err), err);
    TP_CHECK(!gm.present);
    TP_CHECK_CONTAINS(gm.reason, "device 2 not present (2 devices)");
    /* cuInit fails: a normal "no GPU" answer with the driver's words */
    setenv("FAKE_CUDA_MODE", "noinit", 1);
    TP_CHECK_OK(tp_sysmem_gpu(so, 0, &gm, err), err);
    TP_CHECK(!gm.present);
    TP_CHECK_CONTAINS(gm.reason, "cuInit failed: no CUDA-capable device is detected (100)");
    /* cuMemGetInfo fails: the context is still popped and released */
    setenv("FAKE_CUDA_MODE", "memfail", 1);
    TP_CHECK_OK(tp_sysmem_gpu(so, 0, &gm, err), err);
    TP_CHECK(!gm.present);
    TP_CHECK_CONTAINS(gm.reason, "cuMemGetInfo failed");
    unsetenv("FAKE_CUDA_MODE");
    void *lib = dlopen(so, RTLD_NOW | RTLD_NOLOAD);
    int (*balance)(void) = NULL;
    if (lib) *(void **)&balance = dlsym(lib, "fake_cuda_balance");
    TP_CHECK(balance != NULL);
    if (balance) TP_CHECK_EQ_I64(balance(), 0); /* every retain released, every push popped */
    remove(so);
}

int main(void) {
    TP_RUN(test_meminfo);
    TP_RUN(test_cgroup_files);
    TP_RUN(test_host_from);
    TP_RUN(test_find_cgroup);
    TP_RUN(test_rss_parsers);
    TP_RUN(test_soft_budget);
    TP_RUN(test_this_machine);
    TP_RUN(test_gpu);
    TP_RUN(test_gpu_fake_driver);
    return tp_test_finish();
}
