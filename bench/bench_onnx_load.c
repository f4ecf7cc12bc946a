/* bench_onnx_load — ONNX load time against file size.
 *
 * For every model in .fixtures/models/ (graph files with external weights, as
 * exported by scripts/export_models.py) and .fixtures/bench/ (single-file
 * copies with embedded weights, made by scripts/onnx_embed.py), measure:
 *   open  — mmap + zero-copy decode (tp_onnx_model_open + close)
 *   load  — the whole import: decode + conversion to the IR (tp_onnx_load)
 * first after evicting the file from the page cache (posix_fadvise DONTNEED,
 * best effort: a "cold" start), then the median of warm runs.
 * Weights are never read: the figures should not grow with the weight bytes.
 *
 * Goals (issue 4): resnet50 under 50 ms, a 650 MB GPT-2 file under 1 s.
 *
 * usage: bench_onnx_load [--runs N] [FILE.onnx ...]   (default: the fixtures)
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tensorplan.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void evict(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return;
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define MAX_RUNS 64

static int bench_file(const char *path, int runs) {
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    tp_error err;
    tp_onnx_model *m;
    double open_t[MAX_RUNS], load_t[MAX_RUNS], open_c[MAX_RUNS], load_c[MAX_RUNS];
    double cold_open, cold_load = -1;
    evict(path);
    double t0 = now_ms();
    if (tp_onnx_model_open(path, NULL, NULL, &m, &err) != TP_OK) {
        printf("%-44s open failed: %s\n", path, err.msg);
        return 1;
    }
    cold_open = now_ms() - t0;
    tp_onnx_info info;
    if (tp_onnx_model_info(m, &info, &err) != TP_OK) {
        tp_onnx_model_destroy(m);
        return 1;
    }
    uint32_t nodes = info.n_nodes_total;
    uint64_t params = info.param_bytes, external = info.external_bytes;
    tp_onnx_model_destroy(m);
    for (int r = 0; r < runs; r++) {
        double c0 = cpu_ms();
        t0 = now_ms();
        tp_onnx_model_open(path, NULL, NULL, &m, &err);
        tp_onnx_model_destroy(m);
        open_t[r] = now_ms() - t0;
        open_c[r] = cpu_ms() - c0;
    }
    /* full import */
    tp_graph *g;
    evict(path);
    t0 = now_ms();
    tp_status s = tp_onnx_load(path, NULL, NULL, &g, &err);
    if (s == TP_OK) {
        cold_load = now_ms() - t0;
        tp_graph_destroy(g);
        for (int r = 0; r < runs; r++) {
            double c0 = cpu_ms();
            t0 = now_ms();
            tp_onnx_load(path, NULL, NULL, &g, &err);
            load_t[r] = now_ms() - t0;
            tp_graph_destroy(g);
            load_c[r] = cpu_ms() - c0;
        }
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    double mib = (double)st.st_size / 1048576.0;
    printf("%-26s %8.1f %8.1f %8.1f %6u %9.3f %9.3f %8.3f", base, mib,
           (double)(params - external) / 1048576.0, (double)external / 1048576.0, nodes, cold_open,
           median(open_t, runs), median(open_c, runs));
    if (cold_load >= 0)
        printf(" %9.3f %9.3f %8.3f\n", cold_load, median(load_t, runs), median(load_c, runs));
    else
        printf("  load failed: %s\n", err.msg);
    return 0;
}

static int bench_dir(const char *dir, int runs) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    char *names[256];
    int n = 0, fails = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".onnx") == 0) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(names[i], names[j]) > 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    for (int i = 0; i < n; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        fails += bench_file(path, runs);
        free(names[i]);
    }
    return fails;
}

int main(int argc, char **argv) {
    int runs = 7, fails = 0, files = 0;
    printf("ONNX load time (ms) against file size; embedded weights are skipped, not read\n");
    printf("%-26s %8s %8s %8s %6s %9s %9s %8s %9s %9s %8s\n", "model", "file MiB", "in-file",
           "external", "nodes", "open cold", "open warm", "open cpu", "load cold", "load warm",
           "load cpu");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = atoi(argv[++i]);
            if (runs < 1) runs = 1;
            if (runs > MAX_RUNS) runs = MAX_RUNS;
            continue;
        }
        fails += bench_file(argv[i], runs);
        files++;
    }
    if (!files) {
        fails += bench_dir(TP_SOURCE_DIR "/.fixtures/models", runs);
        fails += bench_dir(TP_SOURCE_DIR "/.fixtures/bench", runs);
    }
    printf("(in-file/external: parameter MiB; warm = median wall time of %d runs, cpu = median "
           "process CPU time of the same runs; cold = first run after posix_fadvise(DONTNEED))\n",
           runs);
    return fails ? 1 : 0;
}
