/* Host memory: /proc/meminfo, cgroup v2/v1 limits, process RSS (Linux), sysctl
 * and VM statistics (macOS). Parsers take paths so tests run them on fixtures. */
#include "tensorplan/sysmem.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef __APPLE__
#include <mach/mach.h>
#include <sys/sysctl.h>
#include <sys/types.h>
#endif

#define LINE_CAP 4096
/* A v1 "no limit" is PAGE_COUNTER_MAX pages (about 2^63); anything this big is unlimited. */
#define V1_UNLIMITED (1ull << 62)

/* Parse a decimal u64 at *p (no sign), advancing *p. false when there are no
 * digits or the value overflows. */
static bool meminfo_parse_u64(const char **p, uint64_t *out) {
    const char *s = *p;
    uint64_t v = 0;
    if (*s < '0' || *s > '9') return false;
    while (*s >= '0' && *s <= '9') {
        if (!tp_mul_u64(v, 10, &v) || !tp_add_u64(v, (uint64_t)(*s - '0'), &v)) return false;
        s++;
    }
    *p = s;
    *out = v;
    return true;
}

static const char *meminfo_skip_ws(const char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* Read a line; a line longer than the buffer is consumed and *truncated set. */
static bool read_line(FILE *f, char *buf, size_t cap, bool *truncated) {
    if (!fgets(buf, (int)cap, f)) return false;
    size_t n = strlen(buf);
    *truncated = false;
    if (n > 0 && buf[n - 1] == '\n') {
        buf[n - 1] = '\0';
    } else if (!feof(f)) {
        int c;
        *truncated = true;
        while ((c = fgetc(f)) != EOF && c != '\n') {
        }
    }
    return true;
}

tp_status tp_sysmem_parse_meminfo(const char *path, uint64_t *total_bytes,
                                  uint64_t *available_bytes, tp_error *err) {
    if (!path || !total_bytes || !available_bytes)
        return tp_error_set(err, TP_ERR_INVALID, "meminfo: NULL argument");
    FILE *f = fopen(path, "r");
    if (!f)
        return tp_error_set(err, TP_ERR_IO, "meminfo: cannot open %s: %s", path, strerror(errno));
    char line[LINE_CAP];
    bool trunc;
    uint64_t total = 0, avail = 0, mfree = 0, buffers = 0, cached = 0;
    bool has_total = false, has_avail = false, has_free = false;
    unsigned lineno = 0;
    tp_status st = TP_OK;
    while (read_line(f, line, sizeof line, &trunc)) {
        lineno++;
        static const char *const keys[] = {
            "MemTotal:", "MemAvailable:", "MemFree:", "Buffers:", "Cached:"};
        uint64_t *dst[] = {&total, &avail, &mfree, &buffers, &cached};
        for (size_t k = 0; k < 5; k++) {
            size_t kl = strlen(keys[k]);
            if (strncmp(line, keys[k], kl) != 0) continue;
            const char *p = meminfo_skip_ws(line + kl);
            uint64_t v;
            if (!meminfo_parse_u64(&p, &v)) {
                st = tp_error_set(err, TP_ERR_PARSE, "meminfo: %s line %u: bad number in '%.60s'",
                                  path, lineno, line);
                goto done;
            }
            p = meminfo_skip_ws(p);
            uint64_t mult = 1;
            if (strncmp(p, "kB", 2) == 0) {
                mult = 1024;
                p += 2;
            }
            if (*meminfo_skip_ws(p) != '\0') {
                st =
                    tp_error_set(err, TP_ERR_PARSE, "meminfo: %s line %u: trailing garbage '%.60s'",
                                 path, lineno, line);
                goto done;
            }
            if (!tp_mul_u64(v, mult, dst[k])) {
                st = tp_error_set(err, TP_ERR_PARSE, "meminfo: %s line %u: value overflows", path,
                                  lineno);
                goto done;
            }
            if (k == 0) has_total = true;
            if (k == 1) has_avail = true;
            if (k == 2) has_free = true;
        }
    }
    if (!has_total) {
        st = tp_error_set(err, TP_ERR_PARSE, "meminfo: %s: no MemTotal line (%u lines read)", path,
                          lineno);
        goto done;
    }
    if (!has_avail) {
        if (!has_free) {
            st = tp_error_set(err, TP_ERR_PARSE, "meminfo: %s: neither MemAvailable nor MemFree",
                              path);
            goto done;
        }
        avail = tp_sat_add_u64(tp_sat_add_u64(mfree, buffers), cached);
    }
    *total_bytes = total;
    *available_bytes = avail < total ? avail : total;
done:
    fclose(f);
    return st;
}

/* Read a one-value cgroup file. *exists=false when it cannot be opened.
 * *is_max for the literal "max". */
static tp_status read_cgroup_value(const char *dir, const char *name, bool *exists, bool *is_max,
                                   uint64_t *out, tp_error *err) {
    char path[1024];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof path)
        return tp_error_set(err, TP_ERR_INVALID, "cgroup: path too long: %s/%s", dir, name);
    *exists = false;
    *is_max = false;
    FILE *f = fopen(path, "r");
    if (!f) return TP_OK;
    *exists = true;
    char line[128];
    bool trunc = false;
    bool got = read_line(f, line, sizeof line, &trunc);
    fclose(f);
    if (!got || trunc || line[0] == '\0')
        return tp_error_set(err, TP_ERR_PARSE, "cgroup: %s is empty or truncated", path);
    if (strcmp(line, "max") == 0) {
        *is_max = true;
        *out = 0;
        return TP_OK;
    }
    const char *p = line;
    if (!meminfo_parse_u64(&p, out) || *meminfo_skip_ws(p) != '\0')
        return tp_error_set(err, TP_ERR_PARSE,
                            "cgroup: %s: expected a byte count or 'max', got '%.40s'", path, line);
    return TP_OK;
}

tp_status tp_sysmem_read_cgroup(const char *dir, tp_cgroup_memory *out, tp_error *err) {
    if (!dir || !out) return tp_error_set(err, TP_ERR_INVALID, "cgroup: NULL argument");
    memset(out, 0, sizeof *out);
    bool exists, is_max, u_exists, u_max;
    uint64_t limit = 0, usage = 0;
    tp_status st = read_cgroup_value(dir, "memory.max", &exists, &is_max, &limit, err);
    if (st != TP_OK) return st;
    if (exists) {
        st = read_cgroup_value(dir, "memory.current", &u_exists, &u_max, &usage, err);
        if (st != TP_OK) return st;
        if (!u_exists || u_max)
            return tp_error_set(err, TP_ERR_PARSE,
                                "cgroup: %s has memory.max but no usable "
                                "memory.current",
                                dir);
        out->version = 2;
        out->limited = !is_max;
        out->limit_bytes = is_max ? 0 : limit;
        out->usage_bytes = usage;
        return TP_OK;
    }
    st = read_cgroup_value(dir, "memory.limit_in_bytes", &exists, &is_max, &limit, err);
    if (st != TP_OK) return st;
    if (!exists) return TP_OK; /* no memory controller here */
    if (is_max)
        return tp_error_set(err, TP_ERR_PARSE,
                            "cgroup: %s/memory.limit_in_bytes: 'max' is not a "
                            "cgroup v1 value",
                            dir);
    st = read_cgroup_value(dir, "memory.usage_in_bytes", &u_exists, &u_max, &usage, err);
    if (st != TP_OK) return st;
    if (!u_exists || u_max)
        return tp_error_set(err, TP_ERR_PARSE,
                            "cgroup: %s has memory.limit_in_bytes but no "
                            "usable memory.usage_in_bytes",
                            dir);
    out->version = 1;
    out->limited = limit < V1_UNLIMITED;
    out->limit_bytes = out->limited ? limit : 0;
    out->usage_bytes = usage;
    return TP_OK;
}

static bool file_exists(const char *dir, const char *name) {
    char path[1024];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    return n > 0 && (size_t)n < sizeof path && access(path, R_OK) == 0;
}

/* Does the comma-separated list contain item? */
static bool list_has(const char *list, size_t len, const char *item) {
    size_t il = strlen(item);
    const char *p = list, *end = list + len;
    while (p < end) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        size_t l = c ? (size_t)(c - p) : (size_t)(end - p);
        if (l == il && memcmp(p, item, il) == 0) return true;
        p += l + 1;
    }
    return false;
}

typedef struct mount_info {
    char root[512];
    char point[512];
    bool found;
} mount_info;

/* Scan mountinfo for the cgroup2 mount and the v1 mount carrying "memory". */
static tp_status scan_mountinfo(const char *path, mount_info *v2, mount_info *v1, tp_error *err) {
    FILE *f = fopen(path, "r");
    if (!f)
        return tp_error_set(err, TP_ERR_IO, "cgroup: cannot open %s: %s", path, strerror(errno));
    char line[LINE_CAP];
    bool trunc;
    while (read_line(f, line, sizeof line, &trunc)) {
        if (trunc) continue;
        /* id parent maj:min root mountpoint opts [optional...] - fstype source superopts */
        char *fields[6] = {0};
        char *save = NULL, *tok = strtok_r(line, " ", &save);
        int nf = 0;
        while (tok && nf < 5) {
            fields[nf++] = tok;
            tok = strtok_r(NULL, " ", &save);
        }
        if (nf < 5) continue;
        while (tok && strcmp(tok, "-") != 0)
            tok = strtok_r(NULL, " ", &save);
        if (!tok) continue;
        char *fstype = strtok_r(NULL, " ", &save);
        char *source = strtok_r(NULL, " ", &save);
        char *super = strtok_r(NULL, " ", &save);
        (void)source;
        if (!fstype) continue;
        mount_info *m = NULL;
        if (strcmp(fstype, "cgroup2") == 0 && !v2->found) m = v2;
        if (strcmp(fstype, "cgroup") == 0 && !v1->found && super &&
            list_has(super, strlen(super), "memory"))
            m = v1;
        if (!m) continue;
        snprintf(m->root, sizeof m->root, "%s", fields[3]);
        snprintf(m->point, sizeof m->point, "%s", fields[4]);
        m->found = true;
    }
    fclose(f);
    return TP_OK;
}

/* Join the mount point with the cgroup path made relative to the mount root. */
static bool join_cgroup(const mount_info *m, const char *cg_path, char *buf, size_t cap) {
    const char *rel = cg_path;
    size_t rl = strlen(m->root);
    if (strcmp(m->root, "/") != 0) {
        if (strncmp(cg_path, m->root, rl) == 0 && (cg_path[rl] == '/' || cg_path[rl] == '\0'))
            rel = cg_path + rl;
        else
            rel = ""; /* outside this mount's view: use the mount point */
    }
    if (strcmp(rel, "/") == 0) rel = "";
    int n = snprintf(buf, cap, "%s%s", m->point, rel);
    return n > 0 && (size_t)n < cap;
}

tp_status tp_sysmem_find_cgroup(const char *proc_cgroup_path, const char *mountinfo_path, char *buf,
                                size_t cap, tp_error *err) {
    if (!proc_cgroup_path || !mountinfo_path || !buf || cap == 0)
        return tp_error_set(err, TP_ERR_INVALID, "cgroup: NULL argument");
    buf[0] = '\0';
    FILE *f = fopen(proc_cgroup_path, "r");
    if (!f)
        return tp_error_set(err, TP_ERR_IO, "cgroup: cannot open %s: %s", proc_cgroup_path,
                            strerror(errno));
    char line[LINE_CAP], v2_path[LINE_CAP] = "", v1_path[LINE_CAP] = "";
    bool trunc, has_v2 = false, has_v1 = false;
    unsigned lineno = 0;
    while (read_line(f, line, sizeof line, &trunc)) {
        lineno++;
        if (trunc || line[0] == '\0') continue;
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c1 || !c2) {
            fclose(f);
            return tp_error_set(err, TP_ERR_PARSE,
                                "cgroup: %s line %u: expected "
                                "'id:controllers:path', got '%.60s'",
                                proc_cgroup_path, lineno, line);
        }
        const char *ctrl = c1 + 1;
        size_t ctrl_len = (size_t)(c2 - ctrl);
        if (c1 - line == 1 && line[0] == '0' && ctrl_len == 0) {
            snprintf(v2_path, sizeof v2_path, "%s", c2 + 1);
            has_v2 = true;
        } else if (list_has(ctrl, ctrl_len, "memory")) {
            snprintf(v1_path, sizeof v1_path, "%s", c2 + 1);
            has_v1 = true;
        }
    }
    fclose(f);
    mount_info m2 = {.found = false}, m1 = {.found = false};
    tp_status st = scan_mountinfo(mountinfo_path, &m2, &m1, err);
    if (st != TP_OK) return st;
    char dir[1100];
    if (has_v2 && m2.found) {
        if (join_cgroup(&m2, v2_path, dir, sizeof dir) && file_exists(dir, "memory.max")) {
            goto found;
        }
        if (file_exists(m2.point, "memory.max")) {
            snprintf(dir, sizeof dir, "%s", m2.point);
            goto found;
        }
    }
    if (has_v1 && m1.found) {
        if (join_cgroup(&m1, v1_path, dir, sizeof dir) && file_exists(dir, "memory.limit_in_bytes"))
            goto found;
        if (file_exists(m1.point, "memory.limit_in_bytes")) {
            snprintf(dir, sizeof dir, "%s", m1.point);
            goto found;
        }
    }
    return TP_OK;
found:
    if (strlen(dir) >= cap)
        return tp_error_set(err, TP_ERR_INVALID, "cgroup: directory name longer than %zu bytes",
                            cap);
    snprintf(buf, cap, "%s", dir);
    return TP_OK;
}

/* The bytes a cgroup level still allows: limit - usage (saturating). */
static uint64_t cgroup_room(const tp_cgroup_memory *c) {
    return tp_sat_sub_u64(c->limit_bytes, c->usage_bytes);
}

tp_status tp_sysmem_host_from(const char *meminfo_path, const char *cgroup_dir, tp_host_memory *out,
                              tp_error *err) {
    if (!meminfo_path || !out) return tp_error_set(err, TP_ERR_INVALID, "sysmem: NULL argument");
    memset(out, 0, sizeof *out);
    uint64_t total, avail;
    tp_status st = tp_sysmem_parse_meminfo(meminfo_path, &total, &avail, err);
    if (st != TP_OK) return st;
    out->meminfo_total_bytes = total;
    out->meminfo_available_bytes = avail;
    out->total_bytes = total;
    out->available_bytes = avail;
    if (!cgroup_dir || !cgroup_dir[0]) return TP_OK;
    /* Walk from the leaf up while the levels have memory controller files:
     * a parent's limit applies to its children too. */
    char dir[sizeof out->cgroup_dir];
    int n = snprintf(dir, sizeof dir, "%s", cgroup_dir);
    if (n < 0 || (size_t)n >= sizeof dir)
        return tp_error_set(err, TP_ERR_INVALID, "sysmem: cgroup directory name too long");
    bool first = true;
    for (int depth = 0; depth < 64; depth++) {
        tp_cgroup_memory cg;
        st = tp_sysmem_read_cgroup(dir, &cg, err);
        if (st != TP_OK) return st;
        if (cg.version == 0) break;
        if (first) {
            out->cgroup = cg;
            snprintf(out->cgroup_dir, sizeof out->cgroup_dir, "%s", dir);
            first = false;
        }
        if (cg.limited) {
            if (cg.limit_bytes < out->total_bytes) out->total_bytes = cg.limit_bytes;
            uint64_t room = cgroup_room(&cg);
            if (room < out->available_bytes) out->available_bytes = room;
            /* report the level whose room is tightest */
            if (!out->cgroup.limited || room < cgroup_room(&out->cgroup)) {
                out->cgroup = cg;
                snprintf(out->cgroup_dir, sizeof out->cgroup_dir, "%s", dir);
            }
        }
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) break;
        *slash = '\0';
    }
    return TP_OK;
}

tp_status tp_sysmem_host(tp_host_memory *out, tp_error *err) {
    if (!out) return tp_error_set(err, TP_ERR_INVALID, "sysmem: NULL argument");
#if defined(__linux__)
    char dir[512];
    tp_error e2;
    /* A missing or odd /proc/self/cgroup only means "no cgroup limit found". */
    if (tp_sysmem_find_cgroup("/proc/self/cgroup", "/proc/self/mountinfo", dir, sizeof dir, &e2) !=
        TP_OK)
        dir[0] = '\0';
    return tp_sysmem_host_from("/proc/meminfo", dir, out, err);
#elif defined(__APPLE__)
    memset(out, 0, sizeof *out);
    uint64_t memsize = 0;
    size_t len = sizeof memsize;
    if (sysctlbyname("hw.memsize", &memsize, &len, NULL, 0) != 0)
        return tp_error_set(err, TP_ERR_IO, "sysmem: sysctl hw.memsize failed: %s",
                            strerror(errno));
    vm_statistics64_data_t vm;
    mach_msg_type_number_t count = HOST_VM_INFO64_COUNT;
    if (host_statistics64(mach_host_self(), HOST_VM_INFO64, (host_info64_t)&vm, &count) !=
        KERN_SUCCESS)
        return tp_error_set(err, TP_ERR_IO, "sysmem: host_statistics64 failed");
    uint64_t pages =
        (uint64_t)vm.free_count + (uint64_t)vm.inactive_count + (uint64_t)vm.purgeable_count;
    uint64_t avail = tp_sat_mul_u64(pages, (uint64_t)vm_page_size);
    out->meminfo_total_bytes = out->total_bytes = memsize;
    out->meminfo_available_bytes = out->available_bytes = avail < memsize ? avail : memsize;
    return TP_OK;
#else
    memset(out, 0, sizeof *out);
    return tp_error_set(err, TP_ERR_UNSUPPORTED,
                        "sysmem: host memory query not implemented on "
                        "this platform");
#endif
}

tp_status tp_sysmem_parse_statm(const char *path, uint64_t page_bytes, uint64_t *out_bytes,
                                tp_error *err) {
    if (!path || !out_bytes) return tp_error_set(err, TP_ERR_INVALID, "statm: NULL argument");
    FILE *f = fopen(path, "r");
    if (!f) return tp_error_set(err, TP_ERR_IO, "statm: cannot open %s: %s", path, strerror(errno));
    char line[256];
    bool trunc = false;
    bool got = read_line(f, line, sizeof line, &trunc);
    fclose(f);
    const char *p = line;
    uint64_t size_pages, rss_pages;
    if (!got || !meminfo_parse_u64(&p, &size_pages) || *p != ' ' ||
        (p++, !meminfo_parse_u64(&p, &rss_pages)))
        return tp_error_set(err, TP_ERR_PARSE, "statm: %s: expected 'size resident ...'", path);
    if (!tp_mul_u64(rss_pages, page_bytes, out_bytes))
        return tp_error_set(err, TP_ERR_PARSE, "statm: %s: resident bytes overflow", path);
    return TP_OK;
}

tp_status tp_sysmem_parse_status_rss(const char *path, uint64_t *out_bytes, tp_error *err) {
    if (!path || !out_bytes) return tp_error_set(err, TP_ERR_INVALID, "status: NULL argument");
    FILE *f = fopen(path, "r");
    if (!f)
        return tp_error_set(err, TP_ERR_IO, "status: cannot open %s: %s", path, strerror(errno));
    char line[LINE_CAP];
    bool trunc;
    tp_status st = tp_error_set(err, TP_ERR_NOT_FOUND, "status: %s has no VmRSS line", path);
    while (read_line(f, line, sizeof line, &trunc)) {
        if (strncmp(line, "VmRSS:", 6) != 0) continue;
        const char *p = meminfo_skip_ws(line + 6);
        uint64_t kb;
        if (!meminfo_parse_u64(&p, &kb) || strcmp(meminfo_skip_ws(p), "kB") != 0 ||
            !tp_mul_u64(kb, 1024, out_bytes)) {
            st = tp_error_set(err, TP_ERR_PARSE, "status: %s: bad VmRSS line '%.60s'", path, line);
        } else {
            st = TP_OK;
        }
        break;
    }
    fclose(f);
    return st;
}

tp_status tp_sysmem_process_rss(uint64_t *out_bytes, tp_error *err) {
    if (!out_bytes) return tp_error_set(err, TP_ERR_INVALID, "rss: NULL argument");
#if defined(__linux__)
    long page = sysconf(_SC_PAGESIZE);
    if (page > 0 &&
        tp_sysmem_parse_statm("/proc/self/statm", (uint64_t)page, out_bytes, NULL) == TP_OK)
        return TP_OK;
    return tp_sysmem_parse_status_rss("/proc/self/status", out_bytes, err);
#elif defined(__APPLE__)
    mach_task_basic_info_data_t info;
    mach_msg_type_number_t count = MACH_TASK_BASIC_INFO_COUNT;
    if (task_info(mach_task_self(), MACH_TASK_BASIC_INFO, (task_info_t)&info, &count) !=
        KERN_SUCCESS)
        return tp_error_set(err, TP_ERR_IO, "rss: task_info failed");
    *out_bytes = (uint64_t)info.resident_size;
    return TP_OK;
#else
    return tp_error_set(err, TP_ERR_UNSUPPORTED, "rss: not implemented on this platform");
#endif
}
