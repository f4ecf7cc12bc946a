/* Emulation of onnxruntime's CPU activation memory over its first two runs
 * (internal; docs/runtime.md "The arena term"). Modelled from onnxruntime's
 * source, not copied: the BFC arena (bfc_arena.cc) serves run 1 tensor by
 * tensor, and the memory-pattern planner (mem_pattern_planner.h) lays the
 * run-1 trace out into one block that run 2 asks the arena for. */
#ifndef TP_ESTIMATE_ORT_ARENA_H
#define TP_ESTIMATE_ORT_ARENA_H

#include "tensorplan/plan.h"

typedef struct tp_ort_arena_sim {
    uint64_t first_run_bytes;   /* pages run 1's chunks touched (resident after run 1) */
    uint64_t mem_pattern_bytes; /* the memory-pattern block of run 2 (0 without pattern) */
    uint64_t resident_bytes;    /* pages touched after run 2: what the RSS sees */
    uint64_t reserved_bytes;    /* sum of the arena's regions (virtual) */
    uint32_t regions;           /* arena extensions */
} tp_ort_arena_sim;

/* One buffer of the run-1 trace: allocated at step birth, freed after step death
 * (steps are twice the node index, odd steps are onnxruntime's reorder nodes). */
typedef struct tp_ort_buf {
    tp_node_id id; /* the node it stands for (its layout copy for reorders) */
    uint64_t bytes;
    int64_t birth, death;
    int32_t chunk; /* run 1: the arena chunk holding it */
    uint64_t pat_off;
    bool scratch; /* a kernel's scratch buffer: from the arena, not in the memory pattern */
} tp_ort_buf;

/* The buffers onnxruntime allocates for g's activations with its NCHWc layout
 * transformer (ort_nchwc.c): *out (of *n_out) from g's allocator, free with
 * tp_mem_free(alloc, *out, *cap_out * sizeof **out). block: NCHWc channel block (16 on
 * AVX-512, 8 on AVX2; 0 = no layout transformation). */
tp_status tp_ort_trace_buffers(const tp_graph *g, const tp_liveness *l, uint32_t block,
                               tp_ort_buf **out, size_t *n_out, size_t *cap_out, tp_error *err);

/* Replay the activations of bound graph g (no in-place reuse; weights and graph
 * inputs are not in the arena) in node order through an emulated BFC arena:
 * run 1 allocates each buffer when its producer runs and frees it after its
 * last reader; with mem_pattern, run 2 asks for the pattern block. next_pow2:
 * arena_extend_strategy next-power-of-two (else same-as-requested).
 * Errors: those of tp_liveness_compute, TP_ERR_NOMEM, TP_ERR_OVERFLOW. */
tp_status tp_ort_arena_simulate(const tp_graph *g, bool mem_pattern, bool next_pow2, uint32_t block,
                                tp_ort_arena_sim *out, tp_error *err);

#endif
