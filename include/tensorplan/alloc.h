/*
 * tensorplan/alloc.h — arena placement over plain (size, birth, death) buffers
 * so that buffers alive at the same step never share a byte. Knows nothing of graphs: the same code
 * plans ONNX graphs, LLM decoders and MiniMalloc CSV instances.
 *
 * Lifetimes are inclusive steps [birth, death]; two buffers conflict when their
 * lifetimes overlap (inclusive) and their placed byte ranges overlap. A buffer
 * occupies [offset, offset + size + tail_guard) when placed.
 *
 * Example:
 *     tp_buffer b[2] = {{.size = 100, .birth = 0, .death = 1, .fixed_offset = -1},
 *                       {.size = 50,  .birth = 1, .death = 2, .fixed_offset = -1}};
 *     tp_alloc_options o; tp_alloc_options_default(&o);
 *     uint64_t off[2]; tp_alloc_result r;
 *     if (tp_alloc_plan(b, 2, &o, NULL, off, &r, &err) == TP_OK) printf("%llu\n", r.arena_bytes);
 *
 * Zero placement size (size + tail_guard == 0) buffers still get an offset; they conflict
 * only with a live buffer that strictly contains their offset (greedy puts them at 0).
 * Fixed buffers are placed first and never move. docs/allocator.md has the exact rules,
 * what "the reference result" of TP_ALGO_GREEDY_SIZE means, and complexities.
 *
 * Ownership: inputs are read-only; offsets are written to the caller's array.
 * Thread safety: reentrant; no global state except reading the environment
 * variable TENSORPLAN_ARENA_NO_REUSE in tp_alloc_options_default.
 */
#ifndef TENSORPLAN_ALLOC_H
#define TENSORPLAN_ALLOC_H

#include "tensorplan/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_buffer {
    uint64_t size;        /* bytes recorded in the slot (unguarded) */
    uint64_t tail_guard;  /* extra bytes reserved after the buffer when placed */
    int64_t birth, death; /* inclusive steps, birth <= death */
    uint64_t alignment;   /* 0 = the options' alignment; else a power of two */
    int64_t fixed_offset; /* -1 = to be placed; >= 0 = pre-placed at this offset */
    int64_t id;           /* caller's id (node id, CSV id); carried through */
} tp_buffer;

typedef enum tp_alloc_algo {
    TP_ALGO_GREEDY_SIZE, /* the reference: largest first, lowest non-conflicting offset */
    TP_ALGO_NO_REUSE,    /* every buffer at the aligned end of the previous one */
    TP_ALGO_BEST_FIT,    /* best-fit over several orders, keeps the best */
    TP_ALGO_EXACT,       /* anytime exact search (best heuristic first) */
    TP_ALGO_AUTO,        /* best heuristic, then exact search within the time limit */
    TP_ALGO_COUNT
} tp_alloc_algo;

TP_API const char *tp_alloc_algo_name(tp_alloc_algo a); /* "greedy", "noreuse", "bestfit", ... */
TP_API tp_status tp_alloc_algo_parse(const char *name, tp_alloc_algo *out, tp_error *err);

typedef struct tp_alloc_options {
    uint64_t alignment;  /* power of two; default 64 */
    tp_alloc_algo algo;  /* default TP_ALGO_GREEDY_SIZE */
    double time_limit_s; /* exact/auto search budget; default 0.0 (heuristics only).
                          * Wall time from the call's start, the input checks and the
                          * lower bound included; the passes stop at 99 % of it so the
                          * call returns within it, except for the first plan (below) */
    uint64_t capacity;   /* exact search capacity mode: 0 = minimize */
    /* Optional progress callback for long searches (may be NULL). */
    void (*progress)(void *ctx, double elapsed_s, uint64_t best_arena, uint64_t lower_bound);
    void *progress_ctx;
} tp_alloc_options;

/* Defaults; algo becomes TP_ALGO_NO_REUSE when TENSORPLAN_ARENA_NO_REUSE=1. */
TP_API void tp_alloc_options_default(tp_alloc_options *o);

typedef struct tp_alloc_result {
    uint64_t arena_bytes;       /* max(offset + size + tail_guard) */
    uint64_t lower_bound_bytes; /* max over steps of live (size + tail_guard) */
    tp_alloc_algo algo_used;    /* for AUTO: the algorithm whose answer was kept */
    bool optimal;               /* proven optimal (arena == LB, or exhausted search) */
    double seconds;             /* wall time spent */
    /* Wall time until the first complete plan was in hand. A time limit bounds only what
     * follows it: auto/exact always finish their first heuristic plan (at a million dense
     * buffers that takes seconds), so `seconds` is about max(time_limit_s, this). Other
     * algorithms: the whole placement. */
    double first_plan_seconds;
} tp_alloc_result;

/* Place n buffers. offsets[i] receives buffer i's offset (fixed buffers keep
 * theirs). opt NULL = tp_alloc_options_default; result may be NULL. On error the
 * contents of offsets are unspecified.
 * Errors: TP_ERR_INVALID (alignment not a power of two, birth >
 * death, negative birth, fixed offset not aligned, fixed buffers overlapping
 * each other), TP_ERR_OVERFLOW (sizes/offsets beyond 64 bits), TP_ERR_NOMEM,
 * TP_ERR_INFEASIBLE (capacity mode proved no fit), TP_ERR_TIMEOUT (capacity
 * mode ran out of time without an answer). alloc may be NULL (libc). */
TP_API tp_status tp_alloc_plan(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                               const tp_allocator *alloc, uint64_t *offsets,
                               tp_alloc_result *result, tp_error *err);

/* The arena lower bound (no placement can beat it): max over steps of the sum of (size +
 * tail_guard) of the buffers alive at that step. O(n log n). */
TP_API tp_status tp_alloc_lower_bound(const tp_buffer *bufs, size_t n, const tp_allocator *alloc,
                                      uint64_t *out, tp_error *err);

/* Independent verifier: every offset aligned (buffer alignment or `alignment`),
 * fixed buffers at their offsets, no two buffers with overlapping lifetimes
 * overlapping in bytes, every end <= arena_bytes. TP_ERR_VERIFY names the
 * first offending pair (ids, offsets, sizes, lifetimes). O(n log n). */
TP_API tp_status tp_alloc_verify(const tp_buffer *bufs, size_t n, const uint64_t *offsets,
                                 uint64_t alignment, uint64_t arena_bytes,
                                 const tp_allocator *alloc, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
