/* libFuzzer target for the host memory parsers of include/tensorplan/sysmem.h:
 * /proc/meminfo, /proc/<pid>/statm and status, cgroup v1/v2 controller files,
 * /proc/self/cgroup with /proc/self/mountinfo, and their combination.
 *
 * Build: cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTP_FUZZ=ON
 *        cmake --build build-fuzz --target fuzz_sysmem
 * Run:   build-fuzz/fuzz/fuzz_sysmem fuzz/corpus/sysmem -max_total_time=180
 *
 * Input: the first byte picks the parser (modulo 6), the rest holds one or more
 * files separated by a line "--8<--" (FZ_SEP in fuzz/fuzz_util.h); a file that
 * is exactly "-" is left out (does not exist):
 *   0 meminfo        the meminfo file (modes 0-2: the whole rest is one file)
 *   1 statm          second byte = log2 of the page size, then the statm file
 *   2 status         the status file (VmRSS)
 *   3 cgroup         memory.max, memory.current, memory.limit_in_bytes,
 *                    memory.usage_in_bytes of one directory
 *   4 find_cgroup    the /proc/self/cgroup file, the mountinfo file
 *   5 host_from      meminfo, then the four cgroup files of a leaf directory,
 *                    then the four of its parent
 * The parsers take paths, so the files are written to a private temporary
 * directory (fuzz/fuzz_util.h). The body is tp_fuzz_sysmem();
 * tests/test_fuzz_replay.c compiles this file with TP_FUZZ_NO_MAIN and replays
 * fuzz/corpus/sysmem/ through it. Invariants (abort() on violation): failures
 * carry a message; available <= total; the cgroup version is 0, 1 or 2 with
 * consistent limit fields; the cgroup directory found is NUL-terminated within
 * the caller's buffer; combined figures never exceed the meminfo figures.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, O_CLOEXEC, open_memstream in the fuzz build */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tensorplan.h"

int tp_fuzz_sysmem(const uint8_t *data, size_t size);

static void sysmem_check(bool ok) {
    if (!ok) abort();
}

static void sysmem_check_err(tp_status s, const tp_error *err) {
    sysmem_check(s != TP_OK && err->status == s && err->msg[0] != '\0');
}

static const char *const sysmem_cg_files[4] = {"memory.max", "memory.current",
                                               "memory.limit_in_bytes", "memory.usage_in_bytes"};

/* Write (or remove) the four controller files of directory rel from parts. */
static void sysmem_write_cgroup(const char *rel, const fz_part *parts, int n_parts) {
    char name[64], path[1024];
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "%s/%s", rel, sysmem_cg_files[i]);
        if (i < n_parts && !fz_absent(&parts[i]))
            fz_write(name, parts[i].p, parts[i].n, path, sizeof path);
        else
            fz_unlink(name);
    }
}

static void sysmem_check_cgroup(const tp_cgroup_memory *cg) {
    sysmem_check(cg->version == 0 || cg->version == 1 || cg->version == 2);
    if (cg->version == 0) sysmem_check(!cg->limited && cg->limit_bytes == 0);
    if (!cg->limited) sysmem_check(cg->limit_bytes == 0);
}

static void sysmem_meminfo(const fz_part *p) {
    char path[1024];
    fz_write("meminfo", p->p, p->n, path, sizeof path);
    uint64_t total = 0, avail = 0;
    tp_error err;
    tp_error_clear(&err);
    tp_status s = tp_sysmem_parse_meminfo(path, &total, &avail, &err);
    if (s != TP_OK)
        sysmem_check_err(s, &err);
    else
        sysmem_check(avail <= total);
}

static void sysmem_statm(const fz_part *p) {
    char path[1024];
    uint64_t page = p->n > 0 ? 1ull << (p->p[0] % 64) : 4096;
    fz_part rest = {p->n > 0 ? p->p + 1 : p->p, p->n > 0 ? p->n - 1 : 0};
    fz_write("statm", rest.p, rest.n, path, sizeof path);
    uint64_t rss = 0;
    tp_error err;
    tp_error_clear(&err);
    tp_status s = tp_sysmem_parse_statm(path, page, &rss, &err);
    if (s != TP_OK)
        sysmem_check_err(s, &err);
    else
        sysmem_check(rss % page == 0);
}

static void sysmem_status(const fz_part *p) {
    char path[1024];
    fz_write("status", p->p, p->n, path, sizeof path);
    uint64_t rss = 0;
    tp_error err;
    tp_error_clear(&err);
    tp_status s = tp_sysmem_parse_status_rss(path, &rss, &err);
    if (s != TP_OK)
        sysmem_check_err(s, &err);
    else
        sysmem_check(rss % 1024 == 0);
}

static void sysmem_cgroup(const fz_part *parts, int n) {
    char dir[1024];
    fz_mkdir("cg");
    sysmem_write_cgroup("cg", parts, n);
    tp_cgroup_memory cg;
    tp_error err;
    tp_error_clear(&err);
    tp_status s = tp_sysmem_read_cgroup(fz_path("cg", dir, sizeof dir), &cg, &err);
    if (s != TP_OK)
        sysmem_check_err(s, &err);
    else
        sysmem_check_cgroup(&cg);
}

static void sysmem_find(const fz_part *parts, int n) {
    char pc[1024], mi[1024];
    fz_write("proc_cgroup", parts[0].p, parts[0].n, pc, sizeof pc);
    if (n > 1)
        fz_write("mountinfo", parts[1].p, parts[1].n, mi, sizeof mi);
    else
        fz_write("mountinfo", NULL, 0, mi, sizeof mi);
    static const size_t caps[] = {512, 8, 1};
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        char buf[512];
        memset(buf, 'x', sizeof buf);
        tp_error err;
        tp_error_clear(&err);
        tp_status s = tp_sysmem_find_cgroup(pc, mi, buf, caps[k], &err);
        if (s != TP_OK)
            sysmem_check_err(s, &err);
        else
            sysmem_check(memchr(buf, '\0', caps[k]) != NULL);
    }
}

static void sysmem_host(const fz_part *parts, int n) {
    char mi[1024], dir[1024];
    fz_write("meminfo", parts[0].p, parts[0].n, mi, sizeof mi);
    fz_mkdir("hp");
    fz_mkdir("hp/leaf");
    sysmem_write_cgroup("hp/leaf", parts + 1, n - 1);
    sysmem_write_cgroup("hp", parts + 5, n > 5 ? n - 5 : 0);
    tp_host_memory hm;
    tp_error err;
    tp_error_clear(&err);
    tp_status s = tp_sysmem_host_from(mi, fz_path("hp/leaf", dir, sizeof dir), &hm, &err);
    if (s != TP_OK) {
        sysmem_check_err(s, &err);
        return;
    }
    sysmem_check(hm.available_bytes <= hm.total_bytes);
    sysmem_check(hm.total_bytes <= hm.meminfo_total_bytes);
    sysmem_check(hm.available_bytes <= hm.meminfo_available_bytes);
    sysmem_check(hm.meminfo_available_bytes <= hm.meminfo_total_bytes);
    sysmem_check_cgroup(&hm.cgroup);
    sysmem_check((hm.cgroup.version == 0) == (hm.cgroup_dir[0] == '\0'));
    if (hm.cgroup.limited) sysmem_check(hm.total_bytes <= hm.cgroup.limit_bytes);
}

int tp_fuzz_sysmem(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    fz_part all = {data + 1, size - 1}, parts[9];
    int n = fz_split(all.p, all.n, parts, 9);
    switch (data[0] % 6) {
    case 0:
        sysmem_meminfo(&all);
        break;
    case 1:
        sysmem_statm(&all);
        break;
    case 2:
        sysmem_status(&all);
        break;
    case 3:
        sysmem_cgroup(parts, n);
        break;
    case 4:
        sysmem_find(parts, n);
        break;
    default:
        sysmem_host(parts, n);
        break;
    }
    return 0;
}

#ifndef TP_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return tp_fuzz_sysmem(data, size);
}
#endif
