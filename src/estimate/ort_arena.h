/* Emulation of onnxruntime's CPU activation memory over its first two runs
 * (internal; docs/runtime.md "The arena term"). Modelled from onnxruntime's
 * source, not copied: the BFC arena (bfc_arena.cc) serves run 1 tensor by
 * tensor, and the memory-pattern planner (mem_pattern_planner.h) lays the
 * run-1 trace out into one block that run 2 asks the arena for. */
#ifndef TP_ESTIMATE_ORT_ARENA_H
#define TP_ESTIMATE_ORT_ARENA_H

#include "ortgraph/ort_xform.h"
#include "tensorplan/plan.h"

typedef struct tp_ort_arena_sim {
    uint64_t first_run_bytes;   /* pages run 1's chunks touched (resident after run 1) */
    uint64_t mem_pattern_bytes; /* the memory-pattern block of run 2 (0 without pattern) */
    uint64_t resident_bytes;    /* pages touched after run 2: what the RSS sees */
    uint64_t reserved_bytes;    /* sum of the arena's regions (virtual) */
    uint32_t regions;           /* arena extensions */
    /* The regions in the order the arena asked for them (each one malloc of region_bytes), and
     * the pages of each that the two runs touched; listed only while regions <=
     * TP_ORT_ARENA_REGIONS_MAX (regions_listed false beyond: same-as-requested can extend once
     * per tensor). ort_load.c places them in the heap that the session's creation left. */
#define TP_ORT_ARENA_REGIONS_MAX 64
    bool regions_listed;
    uint64_t region_bytes[TP_ORT_ARENA_REGIONS_MAX];
    uint64_t region_touched[TP_ORT_ARENA_REGIONS_MAX];
} tp_ort_arena_sim;

/* One buffer of the run-1 trace: allocated at step birth, freed after step death (steps are
 * twice the position in onnxruntime's execution order, odd steps are its reorder nodes). */
typedef struct tp_ort_buf {
    tp_node_id id; /* the node it stands for (its layout copy for reorders) */
    uint64_t bytes;
    int64_t birth, death;
    int32_t chunk; /* run 1: the arena chunk holding it */
    uint64_t pat_off;
    uint64_t shape_key; /* the shape onnxruntime's static inference knows; 0 = unknown */
    int32_t inplace_of; /* buffer its kernel may overwrite in place (MayInplace), -1 none */
    int32_t reuses;     /* the planner gave it this buffer's memory, -1: its own allocation */
    bool scratch;       /* a kernel's scratch buffer: from the arena, not in the memory pattern */
    bool output;        /* a graph output: allocated for the caller, never reused */
} tp_ort_buf;

/* onnxruntime's default execution order (ReverseDFSFrom over the leaves; ort_order.c): pos[id]
 * receives each operator node's step (-1 for graph inputs, weights and constants), *n_steps the
 * number of steps. key[id]: the node's index in onnxruntime's optimized graph (nodes the
 * optimizer creates come after the model's). TP_ERR_NOMEM. */
tp_status tp_ort_exec_order(const tp_graph *g, const uint64_t *key, int64_t *pos, int64_t *n_steps,
                            tp_error *err);

/* The memory-pattern block of a run-1 trace (mem_pattern_planner.h; ort_arena.c): each buffer
 * with its own allocation (reuses < 0, not scratch) allocated at its birth and freed after its
 * death, in step order, laid out best fit into the gaps between the live blocks or the free tail
 * of the block so far, else after the highest live block; *out receives the block's size. Sets
 * each such buffer's pat_off and rounds its bytes up to 64. TP_ERR_NOMEM, TP_ERR_OVERFLOW. */
tp_status tp_ort_pattern_block(const tp_allocator *a, tp_ort_buf *b, size_t n, uint64_t *out,
                               tp_error *err);

/* onnxruntime's allocation planner over the trace (allocation_planner.cc; ort_plan.c): in
 * birth order, a buffer reuses its in-place input when that input's last reader is its kernel
 * and both have the same known shape, else (same_shape) the most recently freed buffer of the
 * same known shape, else allocates; reuses is set and the reused buffer's death extended.
 * TP_ERR_NOMEM, TP_ERR_OVERFLOW. */
tp_status tp_ort_plan_reuse(const tp_allocator *a, tp_ort_buf *b, size_t n, bool same_shape,
                            tp_error *err);

/* The node indices of onnxruntime's optimized graph, for its execution order (ort_order.c):
 * a pass creates its nodes in the execution order of the graph it starts from, so the model's
 * nodes keep their index, the extended-level fusions' nodes follow in the model graph's order,
 * and the NCHWc nodes follow in the fused graph's order. key (node count + 1): receives them.
 * TP_ERR_NOMEM. */
tp_status tp_ort_exec_keys(const tp_graph *g, const tp_ort_xform *x, uint64_t *key, tp_error *err);

/* The same, with the ReorderOutput nodes of x's blocked tensors as graph nodes, as onnxruntime
 * has them (nchwc_transformer.cc, created last: the highest indices, so a plain reader explores
 * its reorder input first): ro_pos[id] (node count + 1 entries) receives the step after which
 * the ReorderOutput of id's blocked tensor runs (-1: none). TP_ERR_NOMEM. */
tp_status tp_ort_exec_order_reorders(const tp_graph *g, const uint64_t *key, const tp_ort_xform *x,
                                     int64_t *pos, int64_t *ro_pos, int64_t *n_steps,
                                     tp_error *err);

/* The buffers onnxruntime allocates for g's activations, after its fusions and with its NCHWc
 * layout (ortgraph/ort_xform.c), in its execution order, its planner's reuse applied (ort_trace.c):
 * *out (of *n_out) from g's allocator, free with tp_mem_free(alloc, *out, *cap_out * sizeof **out).
 * block: NCHWc channel block (16 on AVX-512, 8 on AVX2; 0 = no layout transformation). */
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

/* MLAS's packed copy of a float MatMul/Gemm B of bytes (MlasGemmPackBSize): its columns (the
 * last dim) rounded up to 16; 0 when onnxruntime does not pack it (not float, not a matrix). */
uint64_t tp_ort_packed_b_bytes(const tp_graph *g, const tp_node *w, uint64_t bytes);
/* Whether onnxruntime's CPU kernel for n pre-packs its input i when constant: MatMul/Gemm B
 * (input 1), LSTM and GRU W and R (inputs 1 and 2). */
bool tp_ort_packs_input(const tp_node *n, uint32_t i);
/* The 8-bit initializer a QDQ group's Conv, MatMul or Gemm (ortgraph/ort_qdq.h) reads through
 * the DequantizeLinear of its input i and onnxruntime's quantized kernel (QLinearConv,
 * QLinearMatMul, QGemm) pre-packs: input 1, an int8 or uint8 initializer, input 0 dequantized
 * from uint8; else -1. */
tp_node_id tp_ort_qdq_packed_weight(const tp_graph *g, const tp_node *n, uint32_t i);
/* The packed copy reader makes of weight w (bytes): tp_ort_packed_b_bytes for a MatMul/Gemm; for
 * an LSTM/GRU W or R [directions, gates x hidden, K] its gates x hidden rounded up to 16. 0 when
 * not packed. */
uint64_t tp_ort_packed_bytes(const tp_graph *g, const tp_node *reader, const tp_node *w,
                             uint64_t bytes);

/* The initializer that input node in reads as onnxruntime sees it, or -1 when it is not one: a
 * tied copy resolved to its original, and an Identity of an initializer resolved to that
 * initializer (Session 14: identity_elimination.cc removes such an Identity and lets its readers
 * read the initializer itself; torch's exporter emits one initializer per set of equal weights
 * and reads it through Identity nodes, so one initializer can have several packing readers). */
tp_node_id tp_ort_initializer_of(const tp_graph *g, tp_node_id in);
/* Whether node n is an Identity of an initializer (onnxruntime removes it: not a use). */
bool tp_ort_identity_of_initializer(const tp_graph *g, const tp_node *n);

/* What onnxruntime's pre-packing pass does to the weights (ort_prepack.c). */
typedef struct tp_ort_prepack {
    /* The creation peak's excess over the steady state while the weights are packed one by one
     * in the optimized graph's node order: the largest original less the packed copies made
     * after it (weights in an external data file; the caller scales it for embedded ones). */
    uint64_t transient_bytes;
    /* The initializers erased after packing (every reader packs them), each once: only their
     * packed copies stay. */
    uint64_t erased_bytes;
    uint64_t largest_erased_bytes; /* the largest of them */
} tp_ort_prepack;
/* One kernel's pre-packing of a weight, in the order onnxruntime's pass visits them (the optimized
 * graph's node index, as above): the packed copy it allocates, and whether the weight is erased
 * right after (the last packing of a weight every use of which packs it). */
typedef struct tp_ort_pack_step {
    uint64_t key;      /* the packing node's index in the optimized graph */
    tp_node_id weight; /* the initializer (Identity chains and tied copies resolved) */
    uint64_t bytes;    /* the initializer's bytes */
    uint64_t packed;   /* bytes of the packed copy */
    bool first;        /* the weight's first packing: the copy that stays (a further kernel's copy
                          of the same weight is freed at once: Session 15's traces) */
    bool erases;
} tp_ort_pack_step;
typedef struct tp_ort_pack_steps {
    tp_ort_pack_step *steps; /* from the graph's allocator: tp_ort_pack_steps_free */
    size_t n, cap;
} tp_ort_pack_steps;
/* Every packing step of g, in order. TP_ERR_NOMEM, the graph's shape errors (out empty). */
tp_status tp_ort_pack_steps_compute(const tp_graph *g, uint32_t block, tp_ort_pack_steps *out,
                                    tp_error *err);
void tp_ort_pack_steps_free(const tp_graph *g, tp_ort_pack_steps *s);
/* The summary of the packing steps, leaving out the weights skip marks (skip[id] != 0, a byte per
 * node, or NULL: those whose load and packing ort_load.c emulates). TP_ERR_NOMEM. */
tp_status tp_ort_prepack_of_steps(const tp_graph *g, const tp_ort_pack_steps *steps,
                                  const uint8_t *skip, tp_ort_prepack *out, tp_error *err);
/* The same from g's own steps (tp_ort_pack_steps_compute; block: as tp_ort_xform_compute). */
tp_status tp_ort_prepack_compute(const tp_graph *g, uint32_t block, tp_ort_prepack *out,
                                 tp_error *err);

#endif
