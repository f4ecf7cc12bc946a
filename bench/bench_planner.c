/* Planner benchmark: synthetic graph-like buffer sets of 1k, 10k and 100k buffers (fixed seed):
 * one buffer per step, mostly short lifetimes (1-8 steps), some skip connections (16-256
 * steps), a few buffers alive the whole run (inputs/outputs), many small sizes and a few large
 * ones. Two scenarios: 2 or 20 buffers per 1000 alive over [0, last] (inputs/outputs; or
 * weights too, as in an inference plan that allocates params). Prints per size: buffers,
 * wall and CPU seconds, buffers/second, arena / lower bound for the greedy
 * placer and for the no-reuse baseline, and the verifier's time. Best of 3 runs.
 *
 * Usage: bench_planner [max_buffers [max_reference_buffers]]   (defaults 100000, 1000) */
#include "tensorplan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t rng = 0x1234abcdu;
static uint64_t rnd(void) {
    uint64_t z = (rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* whole_permille: buffers per 1000 alive for the whole run (2 = inputs/outputs only; 20 =
 * an inference plan that also allocates its weights). */
static void make_set(tp_buffer *b, size_t n, unsigned whole_permille) {
    rng = 0x1234abcdu + n;
    int64_t last = (int64_t)n;
    for (size_t i = 0; i < n; i++) {
        tp_buffer *x = &b[i];
        x->id = (int64_t)i;
        x->fixed_offset = -1;
        x->alignment = 0;
        x->tail_guard = 0;
        x->birth = (int64_t)i;
        uint64_t r = rnd() % 1000;
        int64_t len;
        if (r < whole_permille) /* inputs / outputs / weights: the whole run */
            len = last - x->birth;
        else if (r < 58 + whole_permille) /* skip connections */
            len = 16 + (int64_t)(rnd() % 241);
        else
            len = 1 + (int64_t)(rnd() % 8);
        x->death = x->birth + len > last ? last : x->birth + len;
        uint64_t s = rnd() % 1000;
        if (s < 10) /* a few large: 1-16 MiB */
            x->size = (1 + rnd() % 16) << 20;
        else if (s < 200) /* medium: 64 KiB - 1 MiB */
            x->size = (64 + rnd() % 960) << 10;
        else /* many small: 256 B - 64 KiB */
            x->size = 256 + rnd() % (64 << 10);
        if (r < whole_permille) {
            x->birth = 0; /* like boundary buffers (inputs, weights): [0, last] */
            x->death = last;
            x->tail_guard = 128;
        }
    }
}

/* The literal reference greedy by size (docs/allocator.md; O(n^3): every placed end is a candidate,
 * each checked against every placed buffer), timed once at the smallest size to show what the fast
 * placer replaces; its offsets must equal the library's. Buffers here have no alignment or fixed
 * offsets. */
static uint64_t ps_of(const tp_buffer *b) {
    return b->size + b->tail_guard;
}
static void reference(const tp_buffer *b, size_t n, const uint64_t *want) {
    size_t *order = malloc(n * sizeof *order);
    uint64_t *off = malloc(n * sizeof *off);
    if (!order || !off) exit(1);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t k = 1; k < n; k++) { /* stable insertion sort, largest first */
        size_t v = order[k], j = k;
        while (j > 0 && ps_of(&b[order[j - 1]]) < ps_of(&b[v])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    double t0 = cpu_s();
    for (size_t k = 0; k < n; k++) {
        const tp_buffer *x = &b[order[k]];
        uint64_t best = UINT64_MAX;
        for (size_t c = 0; c <= k; c++) {
            uint64_t cand = c == k ? 0 : off[order[c]] + ps_of(&b[order[c]]);
            cand = (cand + 63) & ~(uint64_t)63;
            if (cand >= best) continue;
            int ok = 1;
            for (size_t p = 0; p < k && ok; p++) {
                const tp_buffer *y = &b[order[p]];
                uint64_t oy = off[order[p]];
                if (x->birth <= y->death && y->birth <= x->death && cand < oy + ps_of(y) &&
                    oy < cand + ps_of(x))
                    ok = 0;
            }
            if (ok) best = cand;
        }
        off[order[k]] = best;
    }
    double dt = cpu_s() - t0;
    size_t diff = 0;
    for (size_t i = 0; i < n; i++)
        diff += off[i] != want[i];
    printf("%-8s %9zu %10s %10.4f %12.0f   literal O(n^3) reference; offsets differing from "
           "greedy: %zu\n",
           "ref", n, "-", dt, (double)n / dt, diff);
    free(order);
    free(off);
}

static void run(const tp_buffer *b, size_t n, tp_alloc_algo algo, uint64_t *off) {
    tp_alloc_options o;
    tp_alloc_options_default(&o);
    o.algo = algo;
    tp_alloc_result r = {0};
    tp_error e;
    double best = 1e30, best_cpu = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now_s(), c0 = cpu_s();
        if (tp_alloc_plan(b, n, &o, NULL, off, &r, &e) != TP_OK) {
            printf("plan failed: %s\n", e.msg);
            exit(1);
        }
        double dt = now_s() - t0, dc = cpu_s() - c0;
        if (dt < best) best = dt;
        if (dc < best_cpu) best_cpu = dc;
    }
    double t0 = now_s();
    if (tp_alloc_verify(b, n, off, o.alignment, r.arena_bytes, NULL, &e) != TP_OK) {
        printf("verify failed: %s\n", e.msg);
        exit(1);
    }
    double tv = now_s() - t0;
    printf("%-8s %9zu %10.4f %10.4f %12.0f %14" PRIu64 " %14" PRIu64 " %8.4f %10.4f\n",
           tp_alloc_algo_name(algo), n, best, best_cpu, (double)n / best_cpu, r.arena_bytes,
           r.lower_bound_bytes, (double)r.arena_bytes / (double)r.lower_bound_bytes, tv);
}

int main(int argc, char **argv) {
    size_t max_n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 100000;
    size_t ref_max = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 1000;
    printf("# synthetic graph-like buffer sets (seeded); best of 3, one thread; wall and CPU\n"
           "# seconds (CPU is the figure to trust on a loaded machine; buffers/s uses it)\n");
    printf("%-8s %9s %10s %10s %12s %14s %14s %8s %10s\n", "algo", "buffers", "wall_s", "cpu_s",
           "buffers/s", "arena_bytes", "lower_bound", "arena/LB", "verify_s");
    static const unsigned scenarios[] = {2, 20};
    for (size_t sc = 0; sc < sizeof scenarios / sizeof scenarios[0]; sc++) {
        printf("# scenario: %u per 1000 buffers alive for the whole run [0, last]%s\n",
               scenarios[sc], scenarios[sc] > 2 ? " (weights allocated)" : " (inputs/outputs)");
        for (size_t n = 1000; n <= max_n; n *= 10) {
            tp_buffer *b = malloc(n * sizeof *b);
            uint64_t *off = malloc(n * sizeof *off);
            if (!b || !off) return 1;
            make_set(b, n, scenarios[sc]);
            run(b, n, TP_ALGO_GREEDY_SIZE, off);
            if (n <= ref_max) reference(b, n, off);
            run(b, n, TP_ALGO_NO_REUSE, off);
            free(b);
            free(off);
        }
    }
    return 0;
}
