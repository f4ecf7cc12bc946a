/* bench_alloc — arena placement quality and speed.
 *
 *   bench_alloc [DIR] [--time-limit SEC] [--skip-synthetic] [--skip-minimalloc]
 *               [--skip-dense] [--skip-million] [--write-csv OUT_DIR] [--models DIR]
 *               [--only DENSE_SET_NAME]
 *
 * DIR holds the MiniMalloc "challenging" instances (default:
 * TP_SOURCE_DIR/../shared/benchmarks/minimalloc). For each instance: greedy, bestfit, exact
 * (minimize within the limit) and exact@cap (capacity mode at 1,048,576 bytes, the task
 * MiniMalloc solves). For each instance and algorithm it prints
 * the arena, arena / lower bound, whether the answer is proven optimal, wall time, the wall
 * time until the first complete plan (what a time limit cannot cut), CPU time,
 * and the planner's own peak heap use (a counting allocator passed to tp_alloc_plan).
 * Then the same for synthetic graph-like buffer sets of 10,000 and 100,000 buffers (short
 * lifetimes, many small buffers, a few large ones, some skip connections), the dense
 * compiler-like traces of dense_traces.h (18k-1M buffers, up to 150k live; --write-csv
 * also writes them as CSV), and with --models the traces of real models' plans written by
 * scripts/model_traces.sh. Every plan is checked with tp_alloc_verify. The last line gives
 * the process CPU time and peak RSS (getrusage). Figures only; no pass/fail.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/resource.h>

#include "dense_traces.h"
#include "tensorplan.h"

typedef struct counting {
    tp_allocator hook;
    size_t live, peak;
} counting;

static void *c_alloc(void *ctx, size_t size) {
    counting *c = ctx;
    void *p = malloc(size ? size : 1);
    if (p) {
        c->live += size;
        if (c->live > c->peak) c->peak = c->live;
    }
    return p;
}
static void *c_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    counting *c = ctx;
    void *p = realloc(ptr, new_size ? new_size : 1);
    if (p) {
        c->live = c->live - old_size + new_size;
        if (c->live > c->peak) c->peak = c->live;
    }
    return p;
}
static void c_free(void *ctx, void *ptr, size_t size) {
    counting *c = ctx;
    if (!ptr) return;
    c->live -= size;
    free(ptr);
}

static double now_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_state = 0x853C49E6748FEA9Bu;
static uint64_t rnd(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Du;
}
static double rnd01(void) {
    return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0);
}

/* Graph-like buffer set: one output per step, mostly consumed at the next few steps. */
static tp_buffer *graph_like(size_t n, uint64_t seed) {
    rng_state = seed * 0x9E3779B97F4A7C15u + 1;
    tp_buffer *b = calloc(n, sizeof *b);
    if (!b) return NULL;
    for (size_t i = 0; i < n; i++) {
        double u = rnd01(), v = rnd01();
        uint64_t size;
        if (u < 0.02)
            size = (uint64_t)(1048576.0 * (1.0 + 15.0 * v)); /* a few large: 1-16 MiB */
        else if (u < 0.20)
            size = (uint64_t)(65536.0 * (1.0 + 15.0 * v)); /* medium: 64 KiB - 1 MiB */
        else
            size = 256 + (uint64_t)(65280.0 * v * v); /* many small */
        double w = rnd01();
        int64_t len;
        if (w < 0.70)
            len = 1;
        else if (w < 0.90)
            len = 2 + (int64_t)(rnd() % 3);
        else if (w < 0.98)
            len = 5 + (int64_t)(rnd() % 26);
        else
            len = 100 + (int64_t)(rnd() % 1900); /* skip connections, caches */
        b[i].size = size;
        b[i].birth = (int64_t)i;
        b[i].death = (int64_t)i + len;
        b[i].fixed_offset = -1;
        b[i].id = (int64_t)i;
    }
    return b;
}

static int load_csv(const char *path, tp_buffer **b, size_t *n) {
    tp_error err;
    if (tp_csv_load_buffers(path, NULL, b, n, &err) != TP_OK) {
        fprintf(stderr, "bench_alloc: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static void run_one(const char *name, const tp_buffer *b, size_t n, tp_alloc_algo algo,
                    uint64_t alignment, double limit, uint64_t capacity) {
    counting c = {{c_alloc, c_realloc, c_free, NULL}, 0, 0};
    c.hook.ctx = &c;
    tp_alloc_options o;
    tp_alloc_options_default(&o);
    o.algo = algo;
    o.alignment = alignment;
    o.time_limit_s = limit;
    o.capacity = capacity;
    char algo_name[32];
    snprintf(algo_name, sizeof algo_name, "%s%s", tp_alloc_algo_name(algo), capacity ? "@cap" : "");
    uint64_t *off = malloc((n ? n : 1) * sizeof *off);
    tp_alloc_result r;
    memset(&r, 0, sizeof r);
    tp_error err;
    double w0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    tp_status st = tp_alloc_plan(b, n, &o, &c.hook, off, &r, &err);
    double wall = now_s(CLOCK_MONOTONIC) - w0, cpu = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (st != TP_OK) {
        printf("| %-9s | %7zu | %-9s | %s: %s | | | | %7.3f | | %7.3f | | |\n", name, n, algo_name,
               tp_status_name(st), err.msg, wall, cpu);
        free(off);
        return;
    }
    tp_status v = tp_alloc_verify(b, n, off, alignment, r.arena_bytes, NULL, &err);
    printf("| %-9s | %7zu | %-9s | %12" PRIu64 " | %12" PRIu64 " | %7.4f | %-3s | %7.3f | %7.3f "
           "| %7.3f | %8.1f | %s |\n",
           name, n, algo_name, r.arena_bytes, r.lower_bound_bytes,
           r.lower_bound_bytes ? (double)r.arena_bytes / (double)r.lower_bound_bytes : 1.0,
           r.optimal ? "yes" : "no", wall, r.first_plan_seconds, cpu, (double)c.peak / 1024.0,
           v == TP_OK ? "ok" : err.msg);
    fflush(stdout);
    free(off);
}

/* Write a trace as MiniMalloc CSV (id,lower,upper,size; live on [lower, upper)). */
static void write_csv(const char *dir, const char *name, const tp_buffer *b, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.csv", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bench_alloc: cannot write %s\n", path);
        return;
    }
    fprintf(f, "id,lower,upper,size\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%zu,%" PRId64 ",%" PRId64 ",%" PRIu64 "\n", i, b[i].birth, b[i].death + 1,
                b[i].size);
    fclose(f);
}

/* Compiler-like dense traces (dense_traces.h): train (nested saved activations, ~9k live at
 * 62k buffers), longmix (log-uniform lifetimes), graph (short lifetimes), and a million
 * buffers. Alignment 64. */
static void dense_section(double limit, int big, const char *csv_dir, const char *only) {
    static const struct {
        const char *name;
        int kind;
        size_t n;
        uint64_t seed;
    } sets[] = {{"train18k", 0, 18000, 1},
                {"train62k/1", 0, 62000, 1},
                {"train62k/2", 0, 62000, 2},
                {"longmix62k", 1, 62000, 1},
                {"graph100k", 2, 100000, 1},
                {"train1M", 0, 1000000, 3},
                {"longmix1M", 1, 1000000, 3},
                /* held out: no tunable was ever chosen on these (report them apart) */
                {"longmix62k/2", 1, 62000, 2},
                {"longmix62k/3", 1, 62000, 3}};
    printf("\n# dense traces (bench/dense_traces.h); live = most buffers alive at one step\n");
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        if (!big && sets[k].n >= 1000000) continue;
        if (only && strcmp(only, sets[k].name) != 0) continue;
        tp_buffer *b = trace_make(sets[k].kind, sets[k].n, sets[k].seed, 0.12);
        if (!b) return;
        char label[48];
        snprintf(label, sizeof label, "%s (live %zu)", sets[k].name, trace_max_live(b, sets[k].n));
        if (csv_dir) write_csv(csv_dir, sets[k].name, b, sets[k].n);
        /* the reference greedy (gap index) takes minutes at a million dense buffers */
        if (sets[k].n < 1000000) run_one(label, b, sets[k].n, TP_ALGO_GREEDY_SIZE, 64, 0, 0);
        run_one(label, b, sets[k].n, TP_ALGO_BEST_FIT, 64, 0, 0);
        run_one(label, b, sets[k].n, TP_ALGO_AUTO, 64, limit, 0);
        free(b);
    }
}

static void header(void) {
    printf(
        "| instance  | buffers | algo      |        arena |  lower bound | arena/LB | opt | wall s "
        "| first s |  cpu s  | peak KiB | verify |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.csv of a folder, in name order. models = 0: MiniMalloc instances (alignment 1;
 * greedy, bestfit, exact, exact@cap 1 MiB, labelled by their first letter); 1: traces of
 * real models' plans (scripts/model_traces.sh; alignment 64; greedy, bestfit, auto). */
static void csv_folder(const char *dir, int models, double limit) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "bench_alloc: cannot open %s (pass the instance folder)\n", dir);
        return;
    }
    char *names[256];
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nn < 256) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".csv") == 0) names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, nn, sizeof *names, cmp_str);
    if (models) printf("\n# traces of real models' plans (%s)\n", dir);
    for (size_t i = 0; i < nn; i++) {
        char path[4096], label[40];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (models)
            snprintf(label, sizeof label, "%.*s", (int)(strlen(names[i]) - 4), names[i]);
        else
            snprintf(label, sizeof label, "%.1s", names[i]);
        tp_buffer *b;
        size_t n;
        if (load_csv(path, &b, &n) == 0) {
            run_one(label, b, n, TP_ALGO_GREEDY_SIZE, models ? 64 : 1, 0, 0);
            run_one(label, b, n, TP_ALGO_BEST_FIT, models ? 64 : 1, 0, 0);
            if (models) {
                run_one(label, b, n, TP_ALGO_AUTO, 64, limit, 0);
            } else {
                run_one(label, b, n, TP_ALGO_EXACT, 1, limit, 0);
                run_one(label, b, n, TP_ALGO_EXACT, 1, limit, 1048576); /* MiniMalloc's task */
            }
            tp_csv_free_buffers(NULL, b, n);
        }
        free(names[i]);
    }
}

int main(int argc, char **argv) {
    const char *dir = TP_SOURCE_DIR "/../shared/benchmarks/minimalloc";
    double limit = 1.0;
    int skip_syn = 0, skip_mm = 0, skip_dense = 0, big = 1;
    const char *csv_dir = NULL, *models_dir = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--time-limit") == 0 && i + 1 < argc)
            limit = atof(argv[++i]);
        else if (strcmp(argv[i], "--skip-synthetic") == 0)
            skip_syn = 1;
        else if (strcmp(argv[i], "--skip-minimalloc") == 0)
            skip_mm = 1;
        else if (strcmp(argv[i], "--skip-dense") == 0)
            skip_dense = 1;
        else if (strcmp(argv[i], "--skip-million") == 0)
            big = 0;
        else if (strcmp(argv[i], "--write-csv") == 0 && i + 1 < argc)
            csv_dir = argv[++i];
        else if (strcmp(argv[i], "--models") == 0 && i + 1 < argc)
            models_dir = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else
            dir = argv[i];
    }
    printf("# bench_alloc: exact/auto time limit %.2f s; times are wall and process CPU\n", limit);
    header();
    if (!skip_mm) csv_folder(dir, 0, limit);
    if (models_dir) csv_folder(models_dir, 1, limit);
    if (!skip_syn) {
        static const size_t sizes[] = {10000, 100000};
        for (size_t k = 0; k < 2; k++) {
            for (uint64_t seed = 1; seed <= 3; seed++) {
                size_t n = sizes[k];
                tp_buffer *b = graph_like(n, seed + 10 * k); /* other seeds per size */
                if (!b) return 1;
                char label[32];
                snprintf(label, sizeof label, "graph%zuk/%" PRIu64, n / 1000, seed);
                run_one(label, b, n, TP_ALGO_GREEDY_SIZE, 64, 0, 0);
                run_one(label, b, n, TP_ALGO_BEST_FIT, 64, 0, 0);
                run_one(label, b, n, TP_ALGO_AUTO, 64, limit, 0);
                free(b);
            }
        }
    }
    if (!skip_dense) dense_section(limit, big, csv_dir, only);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("# process: %.2f s user + %.2f s system CPU, peak RSS %.1f MiB\n",
           (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6,
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6,
           (double)ru.ru_maxrss / 1024.0);
    return 0;
}
