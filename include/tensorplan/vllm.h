/*
 * tensorplan/vllm.h — how vLLM would size an LLM on a set of identical GPUs, and the
 * launch flags that fit: --tensor-parallel-size, --pipeline-parallel-size,
 * --max-model-len, --gpu-memory-utilization.
 *
 * vLLM's memory rule, as read from its source (vllm/v1/worker/gpu_worker.py
 * determine_available_memory, vllm/v1/core/kv_cache_utils.py, the KV cache specs):
 *
 *   KV pool per GPU = total × gpu_memory_utilization − weights − activation peak
 *                     − non-torch memory
 *
 * where the activation peak is what one profiling forward pass of
 * max_num_batched_tokens dummy tokens (plus a sampler pass over max_num_seqs rows)
 * allocates. The pool is cut into blocks of block_size tokens; one block of one
 * attention layer holds 2 (K, V) × block_size × KV heads per rank × head_dim ×
 * the KV dtype's bytes, and every layer on the rank gets the same number of blocks.
 * A request of max_model_len tokens needs ceil(len / block_size) blocks in each
 * full-attention layer and, in a sliding-window layer, those of
 * min(window − 1 + max_num_batched_tokens, len) tokens plus one; vLLM refuses to
 * start when that exceeds the pool.
 *
 * Tensor parallelism (tp) shards every attention and MLP matrix (and MoE expert
 * widths) tp ways; K/V heads are replicated when tp exceeds them (each rank holds
 * max(1, n_head_kv / tp)); the embedding and the LM head are vocab-parallel (the
 * vocabulary padded to 64 per rank). Pipeline parallelism (pp) gives each stage
 * ceil(n_layer / pp) layers at most; the first stage holds the embedding, the last
 * the LM head and the sampler. The rotary cos/sin cache (max_position × head_dim
 * in the model dtype) lives on every rank.
 *
 * What is MEASURED by nobody here (no vLLM or GPU on the machines this was built on) and
 * therefore ASSUMED, each overridable: the activation peak (a formula from the shapes
 * of the profiling pass, see tp_vllm_plan), the non-torch memory (0.15 GiB, +0.4 GiB
 * with tp > 1 for NCCL / custom all-reduce buffers), and that the CUDA context and the
 * CUDA graphs fit in the (1 − utilization) headroom (vLLM checks that the free
 * memory at start covers total × utilization).
 *
 * Ownership: plain structs, nothing retained. Thread safety: reentrant.
 */
#ifndef TENSORPLAN_VLLM_H
#define TENSORPLAN_VLLM_H

#include "tensorplan/llm.h"
#include "tensorplan/llm_devices.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_vllm_options {
    double gpu_memory_utilization;   /* --gpu-memory-utilization; default 0.9 */
    uint64_t max_model_len;          /* 0: the largest that fits, capped at n_ctx_train */
    uint64_t tensor_parallel;        /* 0: choose (see tp_vllm_plan_compute) */
    uint64_t pipeline_parallel;      /* 0: choose */
    uint64_t max_num_batched_tokens; /* tokens of the profiling pass; default 8192 */
    uint64_t max_num_seqs;           /* rows of the sampler pass; default 256 */
    uint64_t block_size;             /* tokens per KV block; default 16 */
    uint64_t weight_dtype_bytes;     /* 0: from the checkpoint (its bytes / parameters) */
    uint64_t kv_dtype_bytes;         /* 0: "auto" = the model dtype (2); 1 for fp8 */
    uint64_t activation_bytes;       /* 0: the formula; else this figure (e.g. vLLM's log) */
    uint64_t non_torch_bytes;        /* UINT64_MAX: the assumption above; else this figure */
} tp_vllm_options;

TP_API void tp_vllm_options_default(tp_vllm_options *o);

/* The worst (largest) rank of one (tp, pp) layout. */
typedef struct tp_vllm_rank {
    uint64_t weight_bytes;     /* its shard of the weights + the rotary cache */
    uint64_t activation_bytes; /* the profiling pass's peak (ASSUMED formula or given) */
    uint64_t non_torch_bytes;  /* ASSUMED or given */
    uint64_t budget_bytes;     /* total × utilization */
    uint64_t kv_pool_bytes;    /* budget − the above (0 when they exceed it) */
    uint64_t kv_bytes_per_block_all_layers; /* one block in each of its layers */
    uint64_t num_blocks;                    /* blocks per layer the pool holds */
    uint64_t layers;                        /* attention layers on the rank */
} tp_vllm_rank;

typedef struct tp_vllm_plan {
    bool fits;          /* a request of max_model_len tokens fits the pool */
    uint64_t n_gpus;    /* GPUs in the device set */
    uint64_t gpu_bytes; /* the smallest GPU's size (vLLM needs identical ones) */
    uint64_t tensor_parallel, pipeline_parallel;
    uint64_t max_model_len;     /* the one chosen (or asked) */
    uint64_t max_model_len_fit; /* the largest this layout can serve (0: none) */
    uint64_t kv_bytes_for_len;  /* KV one request of max_model_len needs on the rank */
    double max_concurrency;     /* requests of max_model_len the pool holds at once */
    tp_vllm_rank rank;
} tp_vllm_plan;

/* Plan vLLM over the GPUs of ds (its cuda, metal and catalog entries; rpc and cpu
 * entries are ignored). With tensor/pipeline parallel sizes 0, layouts over every GPU
 * come first (tp × pp = the GPU count, the larger tp first; tp a power of two dividing
 * n_head, and dividing n_head_kv or divided by it), then over fewer GPUs; the first
 * whose pool serves max_model_len (or, with max_model_len 0, the model's training
 * context) is chosen; when none does, the layout with the longest servable length
 * (fits false when even that is 0). Errors: TP_ERR_INVALID (no GPU
 * of known size in ds, a utilization outside (0, 1], tp or pp that do not divide the
 * model or exceed the GPUs, zero block size), TP_ERR_OVERFLOW. */
TP_API tp_status tp_vllm_plan_compute(const tp_llm_config *c, const tp_llm_device_set *ds,
                                      const tp_vllm_options *o, tp_vllm_plan *out, tp_error *err);

#ifdef __cplusplus
}
#endif

#endif
