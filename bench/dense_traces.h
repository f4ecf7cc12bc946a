/* dense_traces.h — generators of buffer traces for bench_alloc (header-only, fixed seeds).
 *
 * Compiler-like dense traces ("train"): what a training step looks like to a memory
 * planner. One op per step over T = n / 2 steps, each emitting buffers of these kinds:
 *   - persistent (3 %): weights and optimizer state, born in the first tenth, alive to
 *     the end;
 *   - saved activations (share chosen for the live target): born at step t of the forward
 *     half, freed at the mirrored backward step T - 1 - t (plus a few steps of jitter), so
 *     lifetimes nest and thousands are live at the turn;
 *   - temporaries (most): 1-8 steps;
 *   - medium (10 %): log-uniform length between 8 steps and T / 4.
 * Sizes span 6 orders of magnitude (64 B - 64 MiB): 70 % are drawn from a palette of 256
 * "tensor shapes" (Zipf-like popularity, so equal sizes recur as they do in real traces),
 * 30 % are fresh; the size exponent is log-uniform, the mantissa one of 1, 1.25, 1.5,
 * 1.75 (shapes are products of small factors), rounded to 16 bytes.
 *
 * "longmix": births uniform over n / 2 steps, lengths log-uniform between 1 step and
 * the whole trace, sizes as above: no nesting, many long overlapping lifetimes.
 *
 * "graph": the graph-like sets of bench_alloc (short lifetimes, a few skip connections).
 */
#ifndef TP_BENCH_DENSE_TRACES_H
#define TP_BENCH_DENSE_TRACES_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "tensorplan.h"

typedef struct trace_rng {
    uint64_t s;
} trace_rng;

static uint64_t trace_next(trace_rng *r) { /* splitmix64 */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}
static double trace_u01(trace_rng *r) {
    return (double)(trace_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t trace_fresh_size(trace_rng *r) {
    static const double mant[4] = {1.0, 1.25, 1.5, 1.75};
    double e = 6.0 + 20.0 * trace_u01(r); /* 2^6 .. 2^26 bytes */
    double v = pow(2.0, floor(e)) * mant[trace_next(r) % 4];
    uint64_t s = (uint64_t)v;
    return (s + 15) & ~(uint64_t)15;
}

static uint64_t trace_size(trace_rng *r, const uint64_t *palette) {
    if (trace_u01(r) < 0.7) {
        double u = trace_u01(r); /* Zipf-like: index ~ 256^u - 1 */
        size_t k = (size_t)(pow(256.0, u)) - 1;
        return palette[k < 256 ? k : 255];
    }
    return trace_fresh_size(r);
}

/* Buffer set of n buffers; kind 0 = train, 1 = longmix, 2 = graph. NULL on NOMEM.
 * Steps: [birth, death] inclusive. */
static tp_buffer *trace_make(int kind, size_t n, uint64_t seed, double saved_share) {
    trace_rng r = {seed * 0x9E3779B97F4A7C15u + 7};
    tp_buffer *b = calloc(n ? n : 1, sizeof *b);
    uint64_t palette[256];
    if (!b) return NULL;
    for (size_t k = 0; k < 256; k++)
        palette[k] = trace_fresh_size(&r);
    int64_t T = (int64_t)(n / 2) + 1;
    for (size_t i = 0; i < n; i++) {
        int64_t birth, death;
        uint64_t size = trace_size(&r, palette);
        double u = trace_u01(&r);
        if (kind == 2) { /* graph-like: one output per step, mostly short */
            birth = (int64_t)i;
            if (u < 0.70)
                death = birth + 1;
            else if (u < 0.90)
                death = birth + 2 + (int64_t)(trace_next(&r) % 3);
            else if (u < 0.98)
                death = birth + 5 + (int64_t)(trace_next(&r) % 26);
            else
                death = birth + 100 + (int64_t)(trace_next(&r) % 1900);
        } else if (kind == 1) { /* longmix */
            birth = (int64_t)(trace_next(&r) % (uint64_t)T);
            int64_t len = (int64_t)pow((double)T, trace_u01(&r));
            death = birth + len - 1;
            if (death >= T) death = T - 1;
        } else {
            int64_t t = (int64_t)((double)i / (double)n * (double)T);
            if (u < 0.03) { /* persistent */
                birth = (int64_t)(trace_next(&r) % (uint64_t)(T / 10 + 1));
                death = T - 1;
            } else if (u < 0.03 + saved_share) { /* saved activation, nested */
                birth = (int64_t)(trace_next(&r) % (uint64_t)(T / 2));
                death = T - 1 - birth + (int64_t)(trace_next(&r) % 4);
                if (death >= T) death = T - 1;
            } else if (u < 0.13 + saved_share) { /* medium */
                birth = t;
                int64_t len = 8 + (int64_t)pow((double)(T / 4), trace_u01(&r));
                death = birth + len;
                if (death >= T) death = T - 1;
            } else { /* temporary */
                birth = t;
                death = birth + (int64_t)(trace_next(&r) % 8);
                if (death >= T) death = T - 1;
            }
        }
        b[i].size = size;
        b[i].birth = birth;
        b[i].death = death;
        b[i].fixed_offset = -1;
        b[i].id = (int64_t)i;
    }
    return b;
}

/* Largest number of buffers alive at one step. */
static inline size_t trace_max_live(const tp_buffer *b, size_t n) {
    int64_t T = 0;
    for (size_t i = 0; i < n; i++)
        if (b[i].death + 2 > T) T = b[i].death + 2;
    int64_t *d = calloc((size_t)T, sizeof *d);
    if (!d) return 0;
    for (size_t i = 0; i < n; i++) {
        d[b[i].birth]++;
        d[b[i].death + 1]--;
    }
    int64_t run = 0, best = 0;
    for (int64_t t = 0; t < T; t++) {
        run += d[t];
        if (run > best) best = run;
    }
    free(d);
    return (size_t)best;
}

#endif
