/*
 * tensorplan/llm_devices.h — an LLM spread over several devices as llama.cpp
 * places it: a device set (GPUs, RPC servers, the host), the layer split by
 * --tensor-split and -ngl, the output layer, expert overrides (-ot exps=CPU,
 * --n-cpu-moe), the KV cache on its layer's device (or on the host with
 * --no-kv-offload), and per device model / KV / compute / total / free.
 *
 * llama.cpp's rules, as read from its source (src/llama-model.cpp
 * load_tensors, src/llama-kv-cache.cpp, common/arg.cpp):
 *   - devices are the non-CPU devices in order; the host CPU is not one of
 *     them, it takes what no device takes;
 *   - -ngl N offloads the LAST N of the n_layer + 1 "layers" (the repeating
 *     blocks and, as layer n_layer, the output); all by default;
 *   - layer il (counted from the first offloaded one, i) goes to the first
 *     device d whose cumulative split fraction exceeds i / n_offloaded; the
 *     fractions are -ts normalised, or each device's free memory when no -ts;
 *   - the token embedding (input layer) always stays on the CPU; a model
 *     without output.weight gets a second copy of it on the output device;
 *   - -ot exps=CPU keeps every *_exps tensor on the CPU, --n-cpu-moe N those
 *     of blocks 0..N-1;
 *   - each K and V tensor lives on its layer's device (the host with
 *     --no-kv-offload), each padded to the buffer alignment;
 *   - a weight is padded to its buffer's alignment (32 bytes for CPU and RPC
 *     buffers; 128 for CUDA buffers); on the host, fit-params' projection
 *     (no allocation) sums padded tensors, a real mmap load maps the file
 *     range, which tp_llm_estimate reports for the single-device case.
 *
 * Ownership: plain structs, nothing retained. Thread safety: reentrant.
 */
#ifndef TENSORPLAN_LLM_DEVICES_H
#define TENSORPLAN_LLM_DEVICES_H

#include "tensorplan/llm.h"
#include "tensorplan/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_LLM_MAX_DEVICES 16
#define TP_LLM_DEVICE_NAME_CAP 96
#define TP_LLM_SOURCE_CAP 160

typedef enum tp_llm_device_kind {
    TP_LLM_DEV_CPU = 0, /* the host (at most one entry) */
    TP_LLM_DEV_CUDA,
    TP_LLM_DEV_RPC, /* a ggml rpc-server: HOST:PORT */
    TP_LLM_DEV_METAL,
    TP_LLM_DEV_KIND_COUNT
} tp_llm_device_kind;

const char *tp_llm_device_kind_name(tp_llm_device_kind k); /* "cpu", "cuda", "rpc", "metal" */

typedef struct tp_llm_device {
    char name[TP_LLM_DEVICE_NAME_CAP]; /* "cuda0", "rpc:127.0.0.1:50052", "h100-sxm", "cpu" */
    tp_llm_device_kind kind;
    char endpoint[TP_LLM_DEVICE_NAME_CAP]; /* rpc: HOST:PORT ("" otherwise) */
    uint64_t size_bytes;                   /* memory the device has (0: unknown) */
    char size_source[TP_LLM_SOURCE_CAP];   /* "given", "catalog h100-sxm: 80 GiB", ... */
    uint64_t reserved_bytes;               /* memory the device cannot give to llama.cpp */
    char reserved_source[TP_LLM_SOURCE_CAP];
    uint64_t alignment; /* buffer alignment of its weights and KV (bytes) */
} tp_llm_device;

typedef struct tp_llm_device_set {
    size_t n; /* entries in dev, in the order given (GPU-like devices keep theirs) */
    tp_llm_device dev[TP_LLM_MAX_DEVICES];
} tp_llm_device_set;

/* Parse a comma-separated device list: "cuda0:24GiB,cuda1:24GiB,cpu:64GiB",
 * "rpc:127.0.0.1:50052:8GiB", catalog names ("h100-sxm", "rtx4090",
 * "apple-m2"; sized from the built-in device catalog, optionally
 * "rtx4090:20GiB" to override), "cpu" alone (sized from this host's
 * available memory). Sizes: a number with B, KiB, MiB, GiB, TiB (or KB, MB,
 * GB, TB = powers of 10). Reserved: CUDA 512 MiB (assumed context + cuBLAS
 * workspace), Metal 1/4 of the unified memory (assumed
 * recommendedMaxWorkingSetSize cap), RPC and CPU none; each with its source.
 * Errors: TP_ERR_INVALID / TP_ERR_PARSE naming the entry, TP_ERR_NOT_FOUND for
 * an unknown catalog name, TP_ERR_UNSUPPORTED above TP_LLM_MAX_DEVICES. */
tp_status tp_llm_device_set_parse(const char *spec, tp_llm_device_set *out, tp_error *err);

typedef struct tp_llm_placement_options {
    int64_t n_gpu_layers;                    /* -ngl; < 0: all (llama.cpp's default) */
    double tensor_split[TP_LLM_MAX_DEVICES]; /* -ts over the non-CPU devices; all 0: by free */
    bool no_kv_offload;                      /* -nkvo: every layer's KV on the host */
    bool experts_on_cpu;                     /* -ot exps=CPU */
    uint64_t n_cpu_moe;                      /* --n-cpu-moe N: experts of blocks 0..N-1 on CPU */
} tp_llm_placement_options;

void tp_llm_placement_options_default(tp_llm_placement_options *po);

typedef struct tp_llm_device_use {
    char name[TP_LLM_DEVICE_NAME_CAP];
    tp_llm_device_kind kind;
    bool host;               /* the CPU host row */
    uint64_t layers;         /* repeating layers placed here */
    bool output;             /* the output layer is here */
    uint64_t expert_layers;  /* layers whose experts are here */
    uint64_t model_bytes;    /* weights (padded per tensor) */
    uint64_t kv_bytes;       /* K + V of its layers */
    uint64_t compute_bytes;  /* the compute buffer (planned or a bound; see tp_llm_place) */
    uint64_t output_bytes;   /* logits buffer (host only) */
    uint64_t total_bytes;    /* model + KV + compute + output */
    bool capacity_known;     /* the device's size is known (given, catalog or measured) */
    uint64_t capacity_bytes; /* size - reserved; 0 when the reserve takes it all (or unknown) */
    uint64_t free_bytes;     /* capacity - total, 0 when it does not fit */
    bool fits;               /* total <= capacity (true when the capacity is unknown) */
} tp_llm_device_use;

typedef struct tp_llm_placement {
    size_t n; /* rows: the non-CPU devices, then the host */
    tp_llm_device_use use[TP_LLM_MAX_DEVICES + 1];
    uint64_t n_gpu_layers;  /* offloaded layers incl. the output */
    bool fits;              /* every row fits */
    bool pipeline_parallel; /* llama.cpp enables it: several devices, all offloaded */
    bool compute_planned;   /* compute_bytes per device from the planned, split graph */
    tp_llm_estimate single; /* the single-device estimate used */
} tp_llm_placement;

/* Place an LLM on a device set. weights: the registry tp_gguf_read_llm filled
 * (every tensor's name and bytes). The compute buffer per device: when every
 * non-CPU device is an RPC server and the single-device estimate planned the
 * graph (compute_planned), that graph split over the devices as ggml's
 * scheduler splits it and planned per backend (src/estimate/ggml_sched_emul.h;
 * equal to the byte to llama.cpp over RPC on bench/multi_device_truth.sh).
 * Otherwise (CUDA, Metal, or a formula architecture) a BOUND built on the
 * single-device formula f (compute_formula_bytes): f on a
 * device with layers (3f with pipeline parallelism, 1.25f with -nkvo), t x (n_vocab + n_embd)
 * floats x 1.5 on a device holding only the output layer, f on the host when it holds layers or
 * experts, else
 * the graph inputs (4 copies with pipeline parallelism) + t x (2 n_embd + n_head dk) floats.
 * Errors: TP_ERR_INVALID (NULL, no weights, a negative split, a split over more devices than the
 * set has), TP_ERR_OVERFLOW, and tp_llm_estimate_memory's. */
tp_status tp_llm_place(const tp_llm_config *c, const tp_registry *weights, const tp_llm_options *o,
                       const tp_llm_device_set *ds, const tp_llm_placement_options *po,
                       tp_llm_placement *out, tp_error *err);

/* Fit over a device set: the largest context in [min_ctx (0: 256), o->n_ctx
 * (0: the model's training context)] at which every row fits with po's
 * placement; when none does, for an MoE model more layers' experts on the host
 * (--n-cpu-moe 1, 2, ...: llama.cpp keeps a layer's stacked experts whole, so
 * a layer's experts are all on one device), then fewer offloaded layers
 * (-ngl one less at a time; an MoE model keeps every layer's experts on the
 * host then). fits false:
 * nothing fits even at -ngl 0 (placement then shows min_ctx). */
typedef struct tp_llm_fit {
    bool fits;
    uint64_t n_ctx;                   /* the context found (0 when nothing fits) */
    tp_llm_placement_options options; /* the -ngl / --n-cpu-moe chosen */
    tp_llm_placement placement;       /* at n_ctx */
} tp_llm_fit;

tp_status tp_llm_place_fit(const tp_llm_config *c, const tp_registry *weights,
                           const tp_llm_options *o, const tp_llm_device_set *ds,
                           const tp_llm_placement_options *po, uint64_t min_ctx, tp_llm_fit *out,
                           tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
