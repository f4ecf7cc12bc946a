/*
 * tensorplan/llm.h — LLM memory as llama.cpp allocates it, from a GGUF file's
 * header: the model buffers, the KV cache, the output buffer and the compute
 * buffer, each named as llama.cpp names it (its memory breakdown).
 *
 *   model    the tensors' byte range as llama.cpp maps it (mmap: from the first
 *            tensor's offset to the end of the last one), plus the CPU_REPACK
 *            buffer where the CPU backend repacks weights (x86 with AVX2:
 *            q4_0, q4_K, iq4_nl, mxfp4; with AVX-512 also q2_K; matrix
 *            weights whose ne[1] is a multiple of 8)
 *   context  the KV cache: per layer K = type_k[n_embd_k_gqa(il), cells, streams]
 *            and V = type_v[...] (V padded to the widest layer without flash
 *            attention), each padded to 32 bytes; cells = n_ctx per sequence
 *            rounded up to 256; sliding-window layers hold
 *            pad256(min(cells, n_swa·(unified ? n_seq : 1) + n_ubatch)) cells
 *            (all cells with swa_full); encoders (BERT) have none
 *   output   logits (n_vocab floats) and embeddings (n_embd floats, only with
 *            embeddings on) for max(1, n_seq) outputs, as reserved when the
 *            context is created
 *   compute  the prefill graph of one ubatch as llama.cpp builds it (llama
 *            dense and MoE, qwen2, qwen3moe, gemma3), planned as ggml's
 *            graph allocator plans it (equal to the byte to llama.cpp on
 *            the 84 test runs, docs/estimate.md); other architectures,
 *            n_seq > 1 (not compared with llama.cpp), and embeddings contexts
 *            keep a FORMULA (see tp_llm_estimate_memory; within 0-11 %
 *            above llama.cpp on the test models); compute_planned says
 *            which
 *
 * Example:
 *     tp_llm_config c; tp_llm_options o; tp_llm_estimate e; tp_error err;
 *     tp_llm_options_default(&o); o.n_ctx = 32768; o.type_k = o.type_v = TP_DTYPE_Q8_0;
 *     if (tp_gguf_read_llm("model.gguf", NULL, &c, &err) == TP_OK &&
 *         tp_llm_estimate_memory(&c, &o, &e, &err) == TP_OK)
 *         printf("model %llu KV %llu output %llu compute %llu\n", ...);
 *
 * Ownership: plain structs; nothing is retained. Thread safety: reentrant.
 */
#ifndef TENSORPLAN_LLM_H
#define TENSORPLAN_LLM_H

#include "tensorplan/estimate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-layer arrays hold this many layers; a GGUF with more is TP_ERR_UNSUPPORTED. */
#define TP_LLM_MAX_LAYERS 1024

/* How the CPU backend repacks weights (model buffer CPU_REPACK). */
typedef enum tp_llm_repack {
    TP_LLM_REPACK_AUTO = 0, /* this host's CPU (x86 AVX2/AVX-512 rules; none elsewhere) */
    TP_LLM_REPACK_NONE,     /* no repack (llama.cpp --no-repack, or a GPU backend) */
    TP_LLM_REPACK_AVX2,     /* x86 with AVX2 */
    TP_LLM_REPACK_AVX512,   /* x86 with AVX-512 */
    TP_LLM_REPACK_AMX,      /* x86 with AMX (a llama.cpp built with AMX: its AMX buffer first,
                               then the AVX-512 rule for what AMX does not take) */
    TP_LLM_REPACK_COUNT
} tp_llm_repack;

/* The model buffers for one repack rule. */
typedef struct tp_llm_model_layout {
    uint64_t mapped_bytes;     /* last - first byte of the tensors left in the mapping */
    uint64_t repack_bytes;     /* repacked tensors (CPU_REPACK, and AMX under the AMX rule),
                                  each padded to 32 bytes */
    uint64_t repacked_tensors; /* how many */
} tp_llm_model_layout;

/* Hyper-parameters of an LLM, as read from GGUF metadata
 * ("<arch>.block_count", "<arch>.attention.head_count", ...). */
typedef struct tp_llm_config {
    char arch[64];               /* general.architecture, e.g. "llama" */
    uint64_t n_layer;            /* <arch>.block_count */
    uint64_t n_ctx_train;        /* <arch>.context_length (0 when absent) */
    uint64_t n_embd;             /* <arch>.embedding_length */
    uint64_t n_ff;               /* <arch>.feed_forward_length (0 when absent) */
    uint64_t n_ff_exp;           /* <arch>.expert_feed_forward_length (0: n_ff) */
    uint64_t n_head;             /* <arch>.attention.head_count (the largest layer's) */
    uint64_t n_head_kv;          /* <arch>.attention.head_count_kv (largest; default n_head) */
    uint64_t head_dim_k;         /* <arch>.attention.key_length (default n_embd / n_head) */
    uint64_t head_dim_v;         /* <arch>.attention.value_length (default head_dim_k) */
    uint64_t n_vocab;            /* <arch>.vocab_size, else tokens' count, else token_embd rows */
    uint64_t n_expert;           /* <arch>.expert_count (0: dense) */
    uint64_t n_expert_used;      /* <arch>.expert_used_count */
    uint64_t n_expert_shared;    /* <arch>.expert_shared_count (always-on experts, n_ff_exp wide) */
    uint64_t n_layer_dense_lead; /* <arch>.leading_dense_block_count (dense FFN, n_ff wide) */
    uint64_t n_swa;        /* sliding window (<arch>.attention.sliding_window or the family's) */
    uint64_t n_tensors;    /* tensor infos in the file */
    uint64_t weight_bytes; /* sum of the tensors' bytes */
    uint64_t alignment;    /* general.alignment (default 32) */
    uint64_t data_offset;  /* file offset of the tensor data section */
    uint64_t file_bytes;   /* size of the file */
    uint32_t gguf_version; /* 2 or 3 */
    bool family_known;     /* arch is in tensorplan's family table (else sized as a decoder) */
    bool has_kv;           /* false for encoders (BERT-style): no KV cache */
    bool swa;              /* the family interleaves sliding-window layers */
    bool qk_norm;          /* attn_q_norm tensors: Q and K are normed per head */
    bool tied_output;      /* the LM head is the token embedding (no output.weight) */
    char output_norm[32];  /* the output norm's tensor name ("output_norm.weight"; lfm2:
                            * "token_embd_norm.weight"), an output-layer tensor */
    uint8_t tied_repacked; /* bit k: the CPU backend repacks that duplicate under tp_llm_repack k */
    /* MoE layout from the stacked expert tensors ("*_exps", llama.cpp naming): */
    uint64_t expert_tensor_bytes; /* all *_exps tensors */
    uint64_t moe_layers;          /* distinct blk.N holding *_exps tensors */
    uint64_t expert_bytes;        /* one expert of one layer: all / (n_expert × moe_layers) */
    /* model buffers per repack rule (index: tp_llm_repack; AUTO's entry is unused) */
    tp_llm_model_layout layout[TP_LLM_REPACK_COUNT];
    /* per layer (first min(n_layer, TP_LLM_MAX_LAYERS)): */
    uint32_t layer_head_kv[TP_LLM_MAX_LAYERS]; /* KV heads (0: no KV in this layer) */
    uint8_t layer_swa[TP_LLM_MAX_LAYERS];      /* 1: sliding-window layer */
    /* hybrid families: layers with a fixed-size recurrent state instead of a KV cache */
    uint8_t layer_recr[TP_LLM_MAX_LAYERS]; /* 1: recurrent layer */
    uint64_t recurrent_layers;             /* how many */
    uint64_t n_embd_r, n_embd_s;           /* state widths per sequence (f32 elements): the conv
                                            * rows (llama.cpp n_embd_r) and the SSM state (n_embd_s) */
    /* multi-head latent attention (deepseek2; 0 elsewhere): <arch>.attention.q_lora_rank (0: one
     * Q projection), .kv_lora_rank, .rope.dimension_count, .attention.key_length_mla and
     * .value_length_mla (the decompressed head sizes) */
    uint64_t n_lora_q, n_lora_kv, n_rot, head_dim_k_mla, head_dim_v_mla;
    /* deepseek2's expert routing (build_moe_ffn): <arch>.expert_gating_func (0: absent, 1
     * softmax, 2 sigmoid), .expert_weights_norm, .expert_weights_scale other than 0 and 1, an
     * expert-selection bias (blk.N.exp_probs_b); moe_routing_extra: the file sets routing or
     * attention the compute graph does not build (expert groups, another gating function,
     * attention temperature, MTP layers, expert biases, merged gate/up experts), and the
     * compute buffer keeps the formula */
    uint8_t moe_gating;
    uint64_t n_expert_groups, n_group_used; /* <arch>.expert_group_count, _used_count */
    bool moe_norm_w, moe_scale, moe_probs_bias, moe_routing_extra;
} tp_llm_config;

/* Read a GGUF file's header, metadata and tensor infos (no tensor data).
 * Every tensor is registered in r as a base weight when r is non-NULL (first
 * registration wins, as always). Per-layer arrays (head_count_kv,
 * sliding_window_pattern) are read when general.architecture precedes them
 * (gguf writers put it first). Errors: TP_ERR_IO, TP_ERR_PARSE (bad magic,
 * unsupported version, truncated or inconsistent fields, a bad alignment, a
 * tensor whose data lies past the end of the file; err->offset is the file
 * offset and the message names the field or tensor), TP_ERR_UNSUPPORTED (a
 * tensor type this build does not size, more than TP_LLM_MAX_LAYERS layers),
 * TP_ERR_INVALID (missing keys: the message names every missing
 * "<arch>.…" key), TP_ERR_OVERFLOW, TP_ERR_NOMEM. Reentrant; uses stdio only. */
TP_API tp_status tp_gguf_read_llm(const char *path, tp_registry *r, tp_llm_config *out,
                                  tp_error *err);

/* The same config from a Hugging Face checkpoint: `path` is its config.json or
 * the folder holding it. model_type maps to llama.cpp's architecture (llama,
 * mistral and mixtral → llama; qwen2, qwen2_moe, qwen3, qwen3_moe, gemma,
 * gemma2, gemma3 (text_config of a multimodal config), phi3); hidden_size,
 * num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim,
 * intermediate_size, moe_intermediate_size, vocab_size, max_position_embeddings,
 * num_local_experts / num_experts, num_experts_per_tok, sliding_window (unless
 * use_sliding_window is false), sliding_window_pattern and layer_types give the
 * fields the GGUF keys give. The weights are the safetensors beside the config
 * (model.safetensors.index.json or model.safetensors, read with
 * tp_safetensors_read, registered in r), else counted from the shape at
 * torch_dtype's size (2 bytes; 4 for float32): embeddings (and an untied
 * output), attention (biases for qwen2), gated FFN or experts with the router,
 * norms. Either way that is the model buffer of a GGUF converted at the same
 * precision (f16/bf16 weights are not repacked); norms llama.cpp keeps in f32
 * and per-tensor alignment are not counted. Errors: as tp_gguf_read_llm, plus
 * TP_ERR_UNSUPPORTED for an unmapped model_type (named) and the JSON and
 * safetensors readers' TP_ERR_PARSE with offsets. Reentrant. */
TP_API tp_status tp_hf_read_llm(const char *path, tp_registry *r, tp_llm_config *out,
                                tp_error *err);

/* tp_gguf_read_llm for a path ending in .gguf, else tp_hf_read_llm. */
TP_API tp_status tp_llm_read(const char *path, tp_registry *r, tp_llm_config *out, tp_error *err);

/* tp_llm_read as llama.cpp's `llama-quantize` would write the model in another file type
 * (weights_type, llama-quantize's names in any case: f32, f16, bf16, q8_0, q4_0, q4_1,
 * q5_0, q5_1, q2_k, q2_k_s, q3_k_s, q3_k_m, q3_k_l, q4_k_s, q4_k_m, q5_k_s, q5_k_m, q6_k,
 * iq1_s, iq1_m, iq2_xxs, iq2_xs, iq2_s, iq2_m, iq3_xxs, iq3_xs, iq3_s, iq3_m, iq4_nl,
 * iq4_xs, tq1_0, tq2_0, mxfp4_moe; q3_k, q4_k, q5_k mean their _m), so a model can be sized
 * before it is downloaded or quantized. NULL or "" is tp_llm_read. The tensors are the
 * GGUF's (whatever their types now: the what-if starts from their shapes) or, for a
 * Hugging Face config, the ones llama.cpp's converter writes for its model_type (names
 * and shapes from the config; the safetensors are not read for this). Each gets the type
 * llama.cpp's src/llama-quant.cpp chooses: 1-D tensors, norms and MoE routers keep
 * theirs; token_embd/output, attn_v, attn_k, ffn_down, attn_output follow the file
 * type's mix (the _M types' extra bits on some layers, the GQA and 8-expert bumps);
 * a row that is not a whole number of blocks falls back as llama.cpp does. The iq1/iq2/
 * iq3_xxs/iq3_xs/q2_k_s types need an importance matrix in llama.cpp: they are sized as
 * quantized with one. The file is one GGUF (split inputs become one), tensors padded to
 * 32 bytes, so weight_bytes, n_tensors, the expert figures and layout[] (mapped range and
 * CPU repack per rule) describe it. r, when non-NULL, gets the tensors at their types
 * in the input file. Errors: as tp_llm_read, plus TP_ERR_NOT_FOUND (unknown type: the
 * message lists the names), TP_ERR_UNSUPPORTED (llama.cpp refuses: a row no fallback
 * fits, an MoE tensor outside blk.0..n_layer-1). Reentrant. */
TP_API tp_status tp_llm_read_as(const char *path, const char *weights_type, tp_registry *r,
                                tp_llm_config *out, tp_error *err);

/* Name of the i-th weights type tp_llm_read_as knows ("f32", ..., "q4_k_m", ...); NULL
 * past the last (enumerates them). */
TP_API const char *tp_llm_weights_type_name(int i);

typedef struct tp_llm_options {
    uint64_t n_ctx;       /* context length (all sequences); default 0 = n_ctx_train (else 4096) */
    uint64_t n_seq;       /* parallel sequences (llama.cpp n_seq_max); default 1 */
    uint64_t n_ubatch;    /* tokens per forward pass; default 512 */
    uint64_t n_batch;     /* logical batch; default 2048 (the ubatch is at most this) */
    tp_dtype type_k;      /* K cache element type (--cache-type-k); default f16 */
    tp_dtype type_v;      /* V cache element type (--cache-type-v); default f16 */
    bool flash_attn;      /* flash attention (llama.cpp's auto turns it on for CPU); default true */
    bool swa_full;        /* full-size SWA cache (--swa-full); default false */
    bool kv_unified;      /* one KV stream for all sequences (--kv-unified); default false */
    bool embeddings;      /* the context also outputs embeddings; default false */
    tp_llm_repack repack; /* default AUTO (this host) */
} tp_llm_options;

TP_API void tp_llm_options_default(tp_llm_options *o);

/* The repack rule of this host's CPU (AMX where the CPU and OS offer AMX-INT8 and AVX512-VNNI, else
 * AVX-512 or AVX2 on x86; NONE elsewhere). */
TP_API tp_llm_repack tp_llm_host_repack(void);
/* "none", "avx2", "avx512", "amx" ("auto" for AUTO; "?" out of range). */
TP_API const char *tp_llm_repack_name(tp_llm_repack r);

typedef struct tp_llm_estimate {
    uint64_t n_ctx;        /* context cells after llama.cpp's rounding (n_ctx_seq × streams) */
    uint64_t n_ctx_seq;    /* cells per sequence: the requested n_ctx / n_seq, padded to 256 */
    uint64_t kv_cells;     /* cells of a full-attention layer's cache */
    uint64_t kv_cells_swa; /* cells of a sliding-window layer's cache (0: none) */
    uint64_t n_stream;     /* KV streams: 1 unified, else n_seq */
    uint64_t n_ubatch;     /* tokens per pass used for the compute buffer */
    tp_llm_repack repack;  /* the rule used (never AUTO) */
    uint64_t weight_bytes; /* tensor bytes in the file */
    uint64_t model_bytes;  /* model buffers: mapped + repack */
    uint64_t model_mapped_bytes;
    uint64_t model_repack_bytes;
    uint64_t kv_cache_bytes; /* context: K + V of every layer (+ recurrent state) */
    uint64_t kv_k_bytes;
    uint64_t kv_v_bytes;
    uint64_t kv_swa_bytes;          /* the part held by sliding-window layers */
    uint64_t recurrent_bytes;       /* hybrids: the recurrent state (part of kv_cache_bytes) */
    uint64_t output_bytes;          /* logits (+ embeddings) */
    uint64_t compute_bytes;         /* one ubatch's graph: planned, else the formula (below) */
    uint64_t compute_formula_bytes; /* the formula's figure (always computed) */
    bool compute_planned;           /* compute_bytes is the planned graph, not the formula */
    uint64_t peak_bytes;            /* model + KV + output + compute */
} tp_llm_estimate;

/* Estimate an LLM's memory as llama.cpp allocates it on the CPU backend (see
 * the top of this header for each term). The compute buffer is the planned
 * prefill graph where tensorplan builds the architecture (compute_planned);
 * compute_formula_bytes always holds the formula, fitted to the widths ggml's
 * graph allocator reaches on llama.cpp's graphs (bench/llm_truth.sh measures
 * both), with t = min(n_ubatch, n_batch, n_ctx) tokens and per-token widths
 * in f32 elements:
 *   inputs   t·(12 + 16·caches) bytes + KQ masks (t × cells per cache; f16
 *            with flash attention, else f32)
 *   output   n_vocab + n_embd
 *   ffn      4·n_ff_active + n_embd  (MoE: n_ff_exp × experts used)
 *   attention  3·n_embd + 2·n_head·dk + n_head_kv·(dk + dv), plus with flash
 *            attention n_head·dv, else n_head·cells (KQ) and n_head·dk with
 *            Q/K norms
 *   compute  = inputs + masks + t·4·max(output, ffn, attention)
 *            (+ t·n_head_kv·(dk + dv)·2 with a quantized K or V cache)
 * Errors: TP_ERR_INVALID (zero layers/heads/embedding/head dim, bad dtype),
 * TP_ERR_OVERFLOW, TP_ERR_SHAPE (a block-typed cache row not a whole number
 * of blocks, as llama.cpp refuses it). */
TP_API tp_status tp_llm_estimate_memory(const tp_llm_config *c, const tp_llm_options *o,
                                        tp_llm_estimate *out, tp_error *err);

/* Max-fit search over an LLM option: fo->symbol is "ctx", "seqs" or "ubatch"
 * (TP_ERR_NOT_FOUND otherwise); the other options come from o (NULL:
 * defaults). The estimate in *out maps activation = KV cache + output +
 * compute, weight = model buffers, input = 0. A min_value of 0 is raised to
 * 1. Same statuses and monotonicity assumption as tp_estimate_max_fit. */
TP_API tp_status tp_llm_max_fit(const tp_llm_config *c, const tp_llm_options *o,
                                const tp_fit_options *fo, tp_fit_result *out, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
