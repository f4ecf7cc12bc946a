/*
 * tensorplan/llm_speed.h — LLM throughput: prefill and decode tokens per
 * second of a GGUF model on a device model (this CPU calibrated, a catalog
 * device), as llama-bench measures them (pp<n_prompt>, tg<n_gen>).
 *
 * The model (docs/estimate.md, "Throughput"):
 *   decode, per token, at the mean context of the test:
 *     weight bytes read = every matrix but the token-embedding lookup (one row;
 *       a tied embedding is read whole as the output layer); MoE: the shared
 *       tensors plus n_expert_used / n_expert of the stacked *_exps tensors
 *     KV bytes read = K + V of every layer over the cells llama.cpp attends
 *       (the used cells padded to 256)
 *     time (CPU) = weight elements / kernel rate of the weight type
 *                  + weights and KV / read bandwidth of that working set
 *                    (tp_device_read_gbps) + overhead
 *     time (GPU) = max(bytes / memory bandwidth, elements / kernel rate) + overhead
 *   prefill, per ubatch: GEMM flops 2·elements·tokens of every matrix (the
 *     output layer for the last token only, as llama-bench asks for one
 *     logit row), at the device's large f32 GEMM throughput times the weight
 *     type's rate (CPU; MoE expert tensors at a further fitted fraction) or at
 *     its f16 GEMM throughput for that shape (GPU), plus causal attention
 *     2·n_head·(dk+dv)·n²/2 per layer as f16 GEMMs, plus overhead.
 *   overhead: graph nodes per token (~20 per layer) × (a node's cost +
 *     the device's dispatch_ns) plus a fixed cost per llama_decode call.
 * CPU kernel rates per weight type (f32, f16, bf16, q8_0, q4_0, ...) are
 * ratios to the device's large f32 GEMM throughput, fitted against llama-bench
 * (llama.cpp's CPU backend, node-llama-cpp's build) on the random-weight GGUFs
 * of bench/llm_speed.sh (fit set: the ~20 M, ~120 M and ~400 M models and the
 * ~40 M MoE; held out: the ~850 M and ~330 M MoE models); types never benchmarked borrow the
 * nearest bench type's ratio and say so in `kernel`. On a CPU whose calibration measured AMX
 * tiles (amx_int8_gops > 0) the matrices llama.cpp's AMX buffer takes have rates of their own:
 * prefill per the tiles' rate, decode reads at the multi-stream read curve (read_streams),
 * fitted on one AMX host (docs/estimate.md, "Session 20"). GPUs (catalog or measured): decode at
 * the memory bandwidth, prefill at the f16 tensor throughput; never compared with llama.cpp here,
 * so their error band is 0 (unknown).
 *
 * Ownership: plain structs; nothing is retained. Thread safety: reentrant.
 */
#ifndef TENSORPLAN_LLM_SPEED_H
#define TENSORPLAN_LLM_SPEED_H

#include "tensorplan/cost.h"
#include "tensorplan/llm.h"
#include "tensorplan/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_llm_speed_options {
    uint64_t n_prompt; /* prefill tokens (llama-bench -p); default 512; 0 = no prefill test */
    uint64_t n_gen;    /* generated tokens (llama-bench -n); default 128; 0 = no decode test */
    uint64_t n_depth;  /* tokens already in the KV cache (llama-bench -d); default 0 */
    uint64_t n_ubatch; /* tokens per forward pass; default 512 */
    tp_dtype type_k;   /* KV cache types; default f16 */
    tp_dtype type_v;
    /* The weight rule of the llama.cpp CPU variant that runs (tensorplan/llm.h, --repack): AUTO
     * (default) and AMX: its AMX kernels for the matrices its AMX buffer takes, where the device
     * model measured AMX tiles (tp_device_model.amx_int8_gops > 0); any other: no AMX kernels (a
     * llama.cpp without its AMX variant). The rule also says how an MoE's experts are
     * multiplied in prefill: a type it repacks (x86: q4_0, q4_K, iq4_nl, mxfp4) one routed token
     * at a time with the decode kernel, others in blocks of tokens. AUTO is this host's rule for a
     * measured CPU; for a catalog CPU (rule unknown) the experts are priced as blocks. */
    tp_llm_repack repack;
    /* The same CPU calibrated with one thread (source TP_SOURCE_MEASURED, threads 1; borrowed,
     * read during the call only; NULL = none, the default). Used when the device is a measured
     * CPU with more threads: the decode step is then the one-thread step (its reads and
     * arithmetic priced by this model) divided by llama.cpp's gain from more threads (1.65 per
     * doubling, measured on two hosts), never faster than reading the weights at the device's
     * own read curve. Without it, the device's figures with a fitted stretch (docs/estimate.md,
     * "Session 33"). It also prices, at T times its rate with T threads, the prefill of MoE
     * experts that are multiplied in blocks (not repacked) and the flash attention of both tests
     * ("Session 34"). Ignored for other devices and when it is not a one-thread measured CPU. */
    const tp_device_model *one_thread;
} tp_llm_speed_options;

TP_API void tp_llm_speed_options_default(tp_llm_speed_options *o);

#define TP_LLM_SPEED_TEXT_CAP 160

typedef struct tp_llm_speed {
    double prefill_tps;   /* n_prompt / prefill_ns (0 when n_prompt is 0) */
    double decode_tps;    /* n_gen / decode_ns (0 when n_gen is 0) */
    double prefill_ns;    /* the whole prompt */
    double decode_ns;     /* all n_gen tokens */
    tp_dtype weight_type; /* the matrices' dominant type (most bytes) */
    /* decode, one token at the mean context */
    uint64_t decode_weight_bytes; /* weights read per token */
    uint64_t decode_kv_bytes;     /* K + V read per token */
    /* the set those bytes come from, whose size picks the read bandwidth: every matrix (all of
       an MoE's experts: successive tokens route to different ones) + the KV */
    uint64_t decode_working_set_bytes;
    double decode_memory_ns;   /* (weights + KV) / bandwidth */
    double decode_kernel_ns;   /* weight elements / kernel rate + decode_attn_ns */
    double decode_attn_ns;     /* of which llama.cpp's flash attention over the cells */
    double decode_overhead_ns; /* graph nodes and the per-call cost */
    const char *decode_bound;  /* "memory", "kernel" or "overhead" (static) */
    /* prefill, the whole prompt */
    double prefill_flops;       /* GEMM + attention */
    double prefill_gemm_ns;     /* the matrices */
    double prefill_attn_ns;     /* causal attention */
    double prefill_overhead_ns; /* graph nodes per ubatch */
    const char *prefill_bound;  /* "compute", "memory" or "overhead" (static) */
    /* provenance */
    tp_model_source source;                   /* the device model's */
    char kernel[TP_LLM_SPEED_TEXT_CAP];       /* "llama.cpp cpu q4_0 kernel, ratios fitted (...)" */
    char basis[TP_LLM_SPEED_TEXT_CAP];        /* the device figures used */
    double error_band;                        /* expected |error| fraction; 0 = not benchmarked */
    char error_source[TP_LLM_SPEED_TEXT_CAP]; /* where error_band comes from */
} tp_llm_speed;

/* Predict llama-bench's pp<n_prompt> and tg<n_gen> for model c (weights: the
 * registry tp_gguf_read_llm filled, for each tensor's type and size) on
 * device d (its threads field is the thread count for CPUs). o may be NULL
 * (defaults). Errors: TP_ERR_INVALID (NULL arguments, an empty registry, a
 * model with no layers or heads, an invalid device model: the message names
 * the field), TP_ERR_OVERFLOW. Reentrant. */
TP_API tp_status tp_llm_speed_predict(const tp_llm_config *c, const tp_registry *weights,
                                      const tp_device_model *d, const tp_llm_speed_options *o,
                                      tp_llm_speed *out, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
