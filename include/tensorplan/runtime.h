/*
 * tensorplan/runtime.h — runtime profiles: what a given runtime really takes
 * for a model, beside what the best plan needs: a figure is only as good as
 * the runtime it is compared with (docs/runtime.md has the measurements).
 *
 *   TP_RUNTIME_PLAN         the best arena a planner reaches + weights + inputs
 *                           (tp_estimate's peak; nothing added)
 *   TP_RUNTIME_ONNXRUNTIME  onnxruntime, CPU execution provider, default session
 *                           options unless tp_ort_options says otherwise: the
 *                           peak resident-memory growth of a process over
 *                           session creation and the first two runs
 *   TP_RUNTIME_LLAMA_CPP    llama.cpp for GGUF models: the terms come from the
 *                           LLM estimate (tp_llm_estimate); this profile only
 *                           names them here (TP_ERR_UNSUPPORTED for a graph)
 *
 * Example:
 *     tp_estimate e; tp_estimate_graph(g, NULL, &e, &err);
 *     tp_runtime_options ro; tp_runtime_options_default(&ro);
 *     ro.runtime = TP_RUNTIME_ONNXRUNTIME;
 *     tp_runtime_estimate re;
 *     if (tp_runtime_estimate_graph(g, &e, &ro, &re, &err) == TP_OK)
 *         printf("%s takes %llu bytes (plan %llu)\n", tp_runtime_name(re.runtime),
 *                (unsigned long long)re.peak_bytes, (unsigned long long)re.plan_peak_bytes);
 *
 * The onnxruntime profile is a model of onnxruntime 1.30's CPU memory (see
 * docs/runtime.md for each term, where it comes from in onnxruntime's source,
 * and which coefficients were fitted on the calibration models of
 * bench/ort_memory and checked on held-out ones). It is an upper estimate by
 * design: it is meant to be at or above what onnxruntime takes, never below.
 *
 * Ownership: plain structs; nothing retained. Thread safety: reads the graph only.
 */
#ifndef TENSORPLAN_RUNTIME_H
#define TENSORPLAN_RUNTIME_H

#include "tensorplan/estimate.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tp_runtime_kind {
    TP_RUNTIME_PLAN = 0,
    TP_RUNTIME_ONNXRUNTIME,
    TP_RUNTIME_LLAMA_CPP,
} tp_runtime_kind;

/* "plan", "onnxruntime", "llama.cpp"; never NULL ("unknown" out of range). */
TP_API const char *tp_runtime_name(tp_runtime_kind k);
/* Parse one of the names above (also "ort", "llama"); TP_ERR_INVALID otherwise,
 * with the accepted names in the message. */
TP_API tp_status tp_runtime_parse(const char *name, tp_runtime_kind *out, tp_error *err);

typedef enum tp_ort_arena_extend {
    TP_ORT_ARENA_NEXT_POWER_OF_TWO = 0, /* onnxruntime's default */
    TP_ORT_ARENA_SAME_AS_REQUESTED = 1,
} tp_ort_arena_extend;

/* onnxruntime session options that change memory. */
typedef struct tp_ort_options {
    bool mem_pattern;                 /* enable_mem_pattern (default true) */
    bool cpu_arena;                   /* enable_cpu_mem_arena (default true) */
    tp_ort_arena_extend arena_extend; /* arena_extend_strategy (default next power of two) */
    bool prepacking;                  /* !session.disable_prepacking (default true) */
    uint32_t intra_op_threads;        /* intra_op_num_threads (default 2; 0 = 1 per core) */
    bool copy_outputs;                /* the caller copies every graph output into its own
                                         buffers, as onnxruntime-node and onnxruntime's Python
                                         binding do (default true); false for a C/C++ caller,
                                         whose outputs stay onnxruntime's tensors */
    uint64_t model_file_bytes;        /* size of the model file (.onnx, without external data):
                                         onnxruntime parses it whole and holds the parsed model,
                                         embedded weights included, beside its own copies; the
                                         caller fills it (the CLI does, from tp_onnx_model_info);
                                         default 0 */
} tp_ort_options;

typedef struct tp_runtime_options {
    tp_runtime_kind runtime; /* default TP_RUNTIME_PLAN */
    tp_ort_options ort;
} tp_runtime_options;

TP_API void tp_runtime_options_default(tp_runtime_options *o);

/* A runtime's figure and its terms. For TP_RUNTIME_PLAN every term but the
 * plan's is 0 and peak_bytes == plan_peak_bytes. */
typedef struct tp_runtime_estimate {
    tp_runtime_kind runtime;
    uint64_t plan_peak_bytes;          /* the best plan's peak (tp_estimate.peak_bytes) */
    uint64_t peak_bytes;               /* what the runtime takes: the sum of the terms below */
    uint64_t session_fixed_bytes;      /* a session + its thread pools (measured; see source) */
    uint64_t graph_bytes;              /* per-node session state (kernels, node args) x nodes,
                                          and a session state per control-flow body */
    uint64_t model_copy_bytes;         /* the parsed model file held (embedded weights incl.,
                                          less those pre-packed and then erased),
                                          and the copies of control-flow bodies' initializers
                                          that the nodes holding those bodies keep */
    uint64_t weight_bytes;             /* initializers held (mapped pages touched, or copies) */
    uint64_t prepacked_bytes;          /* pre-packed / re-laid-out weight copies */
    uint64_t arena_bytes;              /* the larger of the emulated BFC arena after two runs
                                          (run 1 tensor by tensor + the memory-pattern block) and
                                          the load's transient: what the runs add to the peak */
    uint64_t input_bytes;              /* the caller's input tensors */
    uint64_t output_copy_bytes;        /* the caller's copies of the graph outputs, each output
                                          once (tp_ort_options.copy_outputs); 0 without */
    uint64_t calibration_margin_bytes; /* in peak_bytes: the fitted intercept + the allowance
                                          for run-to-run spread + the relative safety margin
                                          on the terms above but the session's (docs/runtime.md) */
    uint64_t arena_reserved_bytes;     /* detail, not in peak_bytes: the BFC regions' virtual size
                                          (grown to powers of two by default); only touched pages
                                          are resident */
    uint64_t activation_plan_bytes;    /* detail: tensorplan's activation arena planned without
                                          in-place reuse (for comparison; not in peak_bytes) */
    uint64_t arena_first_run_bytes;    /* detail: emulated BFC arena after run 1 (touched pages) */
    uint64_t mem_pattern_bytes;        /* detail: emulated memory-pattern block of run 2 */
    uint64_t arena_emulated_bytes;     /* detail: emulated arena pages touched after run 2 */
    uint64_t load_transient_bytes;     /* detail: transient of the load: the larger of the
                                          other weights' pages read while copied and the
                                          pre-packing transient (a MatMul/Gemm weight's original
                                          beside the packed copies); arena_bytes = max(this,
                                          emulated) */
    uint64_t node_count;               /* detail: operator nodes (the base of graph_bytes),
                                          those of If branches not planned included */
    uint64_t conv_weight_bytes;        /* detail: weights read by Conv/ConvTranspose */
    uint64_t conv_nchwc_weight_bytes;  /* detail: of conv_weight_bytes, those of 2-D Convs that
                                          onnxruntime converts to NCHWc (re-laid out) */
    uint64_t conv_flat_weight_bytes;   /* detail: of conv_weight_bytes, those read as loaded
                                          (1-D/3-D Conv weights, biases) */
    uint64_t gemm_weight_bytes;        /* detail: weights onnxruntime pre-packs: constant B of
                                          MatMul/Gemm, W and R of LSTM/GRU */
    uint64_t other_weight_bytes;       /* detail: every other weight */
    uint64_t body_weight_bytes;        /* detail: the part of the three above that are
                                          initializers of control-flow bodies (If branches,
                                          Loop/Scan bodies, at any depth) */
    uint64_t heap_emulated_weight_bytes; /* detail: weights stored inside the model file and
                                          read by no Conv, whose load and pre-packing the
                                          profile emulates through glibc's heap (not in the
                                          three classes above; docs/runtime.md, Session 15) */
    uint64_t heap_emulated_bytes;        /* detail: what that emulation holds once the session is
                                            created (their copies, packed copies and the heap holes
                                            their frees left); part of weight_bytes */
    uint64_t arena_in_holes_bytes;       /* detail: of arena_emulated_bytes, the pages that land
                                            in holes that emulation left (resident already, so
                                            not in arena_bytes; docs/runtime.md, Session 28) */
    const char *fixed_source;            /* where session_fixed_bytes was measured; never NULL */
    const char *not_modelled;            /* what the profile found in the graph and does not
                                            model, so that the figure may be below what the
                                            runtime takes (a sentence; static storage); ""
                                            when nothing; never NULL */
} tp_runtime_estimate;

/* The runtime's figure for a bound graph whose plan estimate is e (from
 * tp_estimate_graph with the same graph). o NULL: defaults (the plan profile).
 * Errors: TP_ERR_INVALID (NULL, bad options), TP_ERR_UNSUPPORTED (llama.cpp
 * for a graph: use the GGUF LLM estimate), TP_ERR_OVERFLOW. */
TP_API tp_status tp_runtime_estimate_graph(const tp_graph *g, const tp_estimate *e,
                                           const tp_runtime_options *o, tp_runtime_estimate *out,
                                           tp_error *err);

/* ---- the memory figures of a report ---- */

/* What `tensorplan report` (and Python's report()) shows about memory, computed once:
 * the estimate with its activation plan, onnxruntime's profile at default options, and
 * the activation arena without reuse (the "no reuse" comparison). */
typedef struct tp_memory_summary {
    tp_estimate estimate;            /* the best plan (runtime "plan") */
    tp_plan *activation_plan;        /* owned; boundary buffers not allocated */
    tp_runtime_estimate onnxruntime; /* TP_RUNTIME_ONNXRUNTIME, default options */
    uint64_t noreuse_bytes;          /* activation arena with TP_ALGO_NO_REUSE */
} tp_memory_summary;

/* Compute the summary of a bound graph with plan options po (NULL: defaults; their
 * allocate_* flags are ignored). model_file_bytes: the size of the model file the graph came
 * from (tp_ort_options.model_file_bytes: onnxruntime holds the parsed file; 0 for a graph
 * built in memory). Errors: those of tp_estimate_graph_plan,
 * tp_runtime_estimate_graph and tp_plan_graph; on error *out holds nothing to release.
 * Reads g only. Release with tp_memory_summary_destroy (NULL-safe). */
TP_API tp_status tp_memory_summary_compute(const tp_graph *g, const tp_plan_options *po,
                                           uint64_t model_file_bytes, tp_memory_summary *out,
                                           tp_error *err);
TP_API void tp_memory_summary_destroy(tp_memory_summary *s);

#ifdef __cplusplus
}
#endif
#endif
