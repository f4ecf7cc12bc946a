/*
 * tensorplan/cost.h — op cost accounting, the static IO profile, device
 * models, graph cost prediction, calibration, the device catalog and device
 * choice.
 *
 * Units: one convention everywhere, named in the field names. Time in
 * nanoseconds (`_ns`), throughput in GFLOP/s (`_gflops` = flops per ns),
 * bandwidth in GB/s (`_gbps` = 10^9 bytes/s = bytes per ns), sizes in bytes.
 * So `flops / gflops` and `bytes / gbps` are both nanoseconds.
 *
 * Worked example — predict a graph's latency on this machine and on an H100:
 *
 *     tp_device_model cpu, h100;
 *     tp_calib_options co; tp_calib_options_default(&co);
 *     tp_calibrate_cpu_cached(&co, &cpu, NULL, &err);   // measured once, then cached
 *     tp_catalog *cat; tp_catalog_load_default(NULL, &cat, &err);
 *     tp_catalog_model(cat, "h100-sxm", TP_DTYPE_F32, &h100, &err);
 *     tp_graph_cost gc;
 *     tp_graph_cost_compute(g, &cpu, NULL, NULL, &gc, &err);
 *     printf("%.3f ms\n", gc.total_ns / 1e6);
 *     for (uint32_t i = 0; i < gc.n_nodes; i++) ... gc.nodes[i].total_ns ...
 *     tp_graph_cost_destroy(&gc);
 *     tp_catalog_destroy(cat);
 *
 * Ownership: plain result structs are the caller's; tp_graph_cost owns its node
 * array (tp_graph_cost_destroy frees it); a tp_catalog owns its entries.
 * Errors: tp_status with a message naming the node, op, file line or value.
 * Thread safety: accounting, profiles, costs and policy are pure functions of
 * their arguments (reentrant; a graph may be read from several threads).
 * Calibration runs benchmark threads of its own and must not be run twice at
 * the same time in one process; the cache file is written atomically (rename).
 */
#ifndef TENSORPLAN_COST_H
#define TENSORPLAN_COST_H

#include "tensorplan/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- op accounting */

/* Cost class of a node. */
typedef enum tp_cost_class {
    TP_COST_METADATA, /* boundary ops, views, data-free transposes: 0 launches, 0 bytes */
    TP_COST_GEMM,     /* matmul / gemm / batched dot / fused matmul / conv / attention */
    TP_COST_MEMORY    /* everything else: memory-bound kernels */
} tp_cost_class;

/* The calibrated rate that prices a node besides the GEMM curve and the memory bandwidth
 * (docs/cost.md, "Op classes"). */
typedef enum tp_cost_kernel {
    TP_KERNEL_GENERIC,   /* GEMM curve (GEMM class) or mem_gbps (memory class) */
    TP_KERNEL_DEPTHWISE, /* depthwise convolution: tp_device_model.dwconv_gflops */
    TP_KERNEL_RESIZE,    /* resize: tp_device_model.resize_gbps */
    TP_KERNEL_ROWNORM,   /* layer / RMS / group / instance normalization: norm_gbps */
    TP_KERNEL_GROUPED,   /* grouped convolution (groups > 1, not depthwise): one GEMM per group
                            of gemm_m = the group's filters (rows) by gemm_n = output pixels,
                            after an im2col pass of gemm_batch · gemm_k · gemm_n elements */
    TP_KERNEL_RECURRENT, /* LSTM / GRU / RNN: the input projection of every step at once
                            (rec_proj_*), then gemm_batch steps one after another, each the
                            hidden state (gemm_m rows) by R (gemm_k × gemm_n), which it reads
                            again at every step */
    TP_KERNEL_SELECT,    /* Where: on a measured CPU, onnxruntime's kernel: select_bytes on one
                            thread, no pool (docs/cost.md, "Where") */
    TP_KERNEL_GELU,      /* the last Mul of an erf GELU that onnxruntime runs as one Gelu kernel
                            (the graph cost sets it): gelu_gbps (docs/cost.md, "GELU") */
    TP_KERNEL_SKIP_NORM, /* a layer normalization that runs as onnxruntime's
                            SkipLayerNormalization, its residual Add taken in (the graph cost
                            sets it; bytes count both addends): skip_norm_gbps, else norm_gbps
                            (docs/cost.md, "SkipLayerNormalization") */
    TP_KERNEL_BIAS_GELU, /* the last Mul of an erf GELU that onnxruntime fuses with the bias Add
                            before it into one BiasGelu kernel (the graph cost sets it, where
                            MatMulAddFusion did not take that Add into a Gemm first):
                            bias_gelu_gbps, else gelu_gbps (docs/cost.md, "BiasGelu") */
    TP_KERNEL_PRELU      /* PRelu: prelu_gbps (docs/cost.md, "PRelu") */
} tp_cost_kernel;

/* Flops and bytes of one node (docs/cost.md lists the per-element counts).
 * For TP_COST_GEMM nodes gemm_{m,k,n} is the shape of one GEMM instance and
 * gemm_batch the number of instances (conv: im2col shape per group; attention:
 * QKᵀ per head), used to look up the device's shape-dependent throughput. */
typedef struct tp_op_cost {
    tp_cost_class cls;
    uint32_t launches;      /* 0 for metadata, else 1 */
    uint64_t flops;         /* floating-point (or integer) operations */
    uint64_t bytes_read;    /* true dtype sizes (quantized: blocks × block bytes) */
    uint64_t bytes_written; /* the node's output bytes */
    uint64_t weight_bytes;  /* of bytes_read: inputs that are weights or constants */
    uint64_t gemm_m, gemm_k, gemm_n, gemm_batch;
    /* gemm_m counts activation rows (matmul, gemm, fused matmul): few of them, against a
     * weight in the caches, still run at the square curve's rate (docs/cost.md, "Weights
     * streamed from memory"); false for convolutions, whose few rows are filters. */
    bool activation_rows;
    tp_dtype compute_dtype; /* dtype of the GEMM operands (input 0) or the output */
    tp_cost_kernel kernel;  /* the rate that prices it where the device model measured one */
    /* Convolution: the share of the GEMM time that is left once the kernel taps that fall in
     * the padding are skipped (dilated convolutions on small maps); 0 or 1: all of it. */
    double tap_share;
    /* Convolution (not transposed): the input's spatial dims (2 for a 2-D convolution); 0 for
     * other ops. */
    uint32_t spatial_rank;
    /* 2-D convolution: the output pixels (per channel, all images) whose filter window reaches
     * into the left or right padding (a runtime computes them on a slower path); else 0. */
    uint64_t border_pixels;
    /* Recurrent node (TP_KERNEL_RECURRENT): the input projection's flops (every direction) and
     * its GEMM shape (rec_proj_m = steps × batch rows, k = rec_input, n = gemm_n); else 0. */
    uint64_t rec_proj_flops, rec_proj_m, rec_input;
    /* Convolution (not transposed): the input channels of one group, and whether a generic
     * (not channel-blocked) kernel expands it into im2col patches first: any kernel tap, stride
     * or padding beyond a 1×1, stride-1, unpadded one (which multiplies the input directly). */
    uint64_t conv_cin;
    bool conv_expands;
    /* GEMM whose first operand holds denormal numbers (its producer has TP_NODE_DENORMAL_OUT: a
     * Softmax over a mask in exp's denormal band): the operand's elements expected to be
     * denormal, its masked share (TP_MASK_SHARE); else 0. */
    uint64_t denormal_elems;
    /* Softmax with TP_NODE_EXP_UNDERFLOW: its elements expected to be masked (TP_MASK_SHARE),
     * whose exp() underflows; `exp_denormal` when the fill is in exp's denormal band (the
     * Softmax then also writes denormals: TP_NODE_DENORMAL_OUT); else 0 / false. */
    uint64_t underflow_elems;
    uint64_t underflow_rows; /* its rows holding masked scores (causal: q - 1 of every q) */
    /* Where (TP_KERNEL_SELECT): the bytes onnxruntime's CPU kernel moves, three passes one after
     * another: cond and X into an output-sized selection, cond and Y into one of their
     * broadcast shape, and the merge of the two into the output; else 0. */
    uint64_t select_bytes;
    bool exp_denormal;
    /* Transposed convolution: the elements of its column buffer (every image and group), which
     * the runtime adds back into the output after its GEMM, and whether onnxruntime adds them a
     * row at a time (2-D, stride 1 along the width, nothing padded, no dilation: a vectorised
     * loop) rather than one element at a time; else 0 / false. */
    uint64_t col2im_elems;
    bool col2im_rows;
    bool col2im_bias; /* and whether it adds a bias, per channel, after them */
    /* Transpose, by the path onnxruntime's CPU kernel takes for its permutation (transpose.cc,
     * read): the steps of its source walk, one per element when the innermost axis moves among
     * others (`transpose_by_element`), one per block copied (a memcpy) when the innermost axes
     * stay in place or one axis moves past blocks wider than 8 bytes; 0 when one axis moves past
     * single elements (MLAS's 2-D transpose, priced as a stream), for a copy and other nodes. */
    uint64_t transpose_steps;
    bool transpose_by_element;
    /* MatMul, Gemm or FusedMatMul whose B is computed at run time (not a weight, a constant or a
     * node the runtime folds at load, which it packs once): B's elements that MLAS's SGEMM copies
     * into its panels on every run, each GEMM instance its own B (gemm_batch x k x n); 0 when an
     * instance has one row (MLAS reads B in place for one row) and for other nodes. */
    uint64_t pack_b_elems;
    /* A QLinearConv (of a QOperator model, or of a QDQ group after onnxruntime's fusion) that
     * MLAS runs on an indirection buffer, with neither a column buffer nor a walk over the
     * groups: a depthwise one, or one of int8 weights (qlinearconv.cc's symmetric path, which
     * the quantization tool's symmetric weights take). One of uint8 weights takes an im2col. */
    bool direct_quant;
} tp_op_cost;

/* The share of a masked Softmax's q x k scores (q rows of k) taken as masked: the mask's values
 * are known only at run time, so a causal mask's, (q - 1) / (2k): about half of a square one
 * (Swin's shifted windows mask 0.12-0.43 of theirs, by geometry), none for one query row (a
 * decode step's) (docs/cost.md, "Masked Softmax"). 0 when k is 0. */
#define TP_MASK_SHARE(q, k) ((k) > 0 && (q) > 0 ? ((double)(q)-1.0) / (2.0 * (double)(k)) : 0.0)

/* Account node `id` of a bound graph. TP_ERR_INVALID (bad id, missing attrs such
 * as attention heads), TP_ERR_UNBOUND, TP_ERR_OVERFLOW (flops beyond 64 bits),
 * TP_ERR_SHAPE (inconsistent operand shapes); the message names node and op. */
TP_API tp_status tp_op_account(const tp_graph *g, tp_node_id id, tp_op_cost *out, tp_error *err);

/* True when the node moves no data: boundary ops, views (tp_graph_node_view),
 * transposes that keep the order of all non-unit dims, secondary outputs,
 * identity (runtimes elide it), and nodes the runtime folds when it loads the
 * model (TP_NODE_FOLDED: never run). */
TP_API tp_status tp_op_is_metadata(const tp_graph *g, tp_node_id id, bool *out, tp_error *err);

/* ---------------------------------------------------------------- IO profile */

typedef struct tp_io_options {
    /* Bit (1 << kind) for each tp_op_kind that forces a host round trip (a sync
     * point). Default: custom, fft, log-mel, Welch peaks. */
    uint64_t host_op_mask;
} tp_io_options;

TP_API void tp_io_options_default(tp_io_options *o);

typedef struct tp_io_profile {
    uint64_t kernel_launches;      /* non-metadata nodes */
    uint64_t device_traffic_bytes; /* Σ (bytes of all inputs + output) over non-metadata nodes */
    uint64_t sync_points;          /* non-metadata nodes whose kind is in host_op_mask */
    uint64_t host_output_bytes;    /* bytes of the outputs read back (true dtype sizes) */
    uint64_t metadata_nodes;       /* nodes skipped as metadata */
} tp_io_profile;

/* Profile of a bound graph; o may be NULL (defaults). host_output_bytes counts
 * every marked graph output (views included: their bytes are read back too).
 * Sums saturate at UINT64_MAX. TP_ERR_UNBOUND, TP_ERR_INVALID. */
TP_API tp_status tp_io_profile_compute(const tp_graph *g, const tp_io_options *o,
                                       tp_io_profile *out, tp_error *err);
/* The selected-outputs variant: as above, but host_output_bytes counts only the
 * given nodes (each once), sized with their true dtype (not 4 bytes per element). */
TP_API tp_status tp_io_profile_selected(const tp_graph *g, const tp_io_options *o,
                                        const tp_node_id *outputs, uint32_t n_outputs,
                                        tp_io_profile *out, tp_error *err);
/* host_readback(unified) = host_output if unified, else host_output +
 * device_traffic / 4 (saturating). */
TP_API uint64_t tp_io_host_readback_bytes(const tp_io_profile *p, bool unified);

/* ---------------------------------------------------------------- device models */

typedef enum tp_device_kind {
    TP_DEVICE_CUDA,
    TP_DEVICE_ROCM,
    TP_DEVICE_METAL,
    TP_DEVICE_GPU,
    TP_DEVICE_CPU,
    TP_DEVICE_KIND_COUNT
} tp_device_kind; /* declaration order is the tie-break priority */

typedef enum tp_model_source {
    TP_SOURCE_DEFAULT, /* built-in guesses: lowest confidence */
    TP_SOURCE_CATALOG, /* vendor spec sheet × efficiency */
    TP_SOURCE_MEASURED /* calibrated on this machine */
} tp_model_source;

TP_API const char *tp_device_kind_name(tp_device_kind k);   /* "cuda", ...; never NULL */
TP_API const char *tp_model_source_name(tp_model_source s); /* "measured", ...; never NULL */
/* Parse "cuda"/"rocm"/"metal"/"gpu"/"cpu" (case-insensitive). TP_ERR_NOT_FOUND. */
TP_API tp_status tp_device_kind_parse(const char *s, tp_device_kind *out, tp_error *err);

#define TP_GEMM_CURVE_MAX 8
#define TP_DEVICE_NAME_CAP 64

/* One point of the GEMM throughput curve: `gflops` achieved by an f32 GEMM whose
 * geometric-mean dimension cbrt(m·k·n) is `dim`. */
typedef struct tp_gemm_point {
    double dim;
    double gflops;
} tp_gemm_point;

#define TP_READ_CURVE_MAX 8

/* One point of the read-bandwidth curve: `gbps` (bytes per ns) achieved reading a working set
 * of `bytes` once per pass, over and over: cache levels at small sizes, memory at large ones. */
typedef struct tp_bw_point {
    double bytes;
    double gbps;
} tp_bw_point;

/* tp_device_model.gemm_stream_gbps when streaming weights from memory costs nothing measurable */
#define TP_STREAM_FREE_GBPS 1e6

typedef struct tp_device_model {
    char name[TP_DEVICE_NAME_CAP]; /* "cpu", "cuda:0", "h100-sxm", ... */
    tp_device_kind kind;
    tp_model_source source;
    uint32_t n_gemm;                       /* points in gemm[], sorted by dim, >= 1 */
    tp_gemm_point gemm[TP_GEMM_CURVE_MAX]; /* f32 GEMM GFLOP/s by shape */
    /* Skinny GEMMs: GFLOP/s when the smallest of m, k, n is `dim` and the other
     * two are large (decode steps, GEMV-like products). 0 points = not modelled. */
    uint32_t n_skinny;
    tp_gemm_point skinny[TP_GEMM_CURVE_MAX];
    double f16_speedup, bf16_speedup; /* throughput multiplier vs f32 (>= 0; 0 = 1) */
    /* likewise for 8-bit integer/float8 operands; for integer GEMMs and convolutions, those of
     * unsigned activations by signed weights (u8 × s8: onnxruntime's MatMulInteger,
     * DynamicQuantizeMatMul, QLinearConv with int8 weights). A CPU calibration measures it
     * against its float32 kernel (docs/cost.md, "Integer matrix products"). */
    double int8_speedup;
    /* integer GEMMs and convolutions of two unsigned 8-bit operands (u8 × u8), which MLAS
     * widens to 16 bits on AVX2 (0: as int8_speedup; a CPU calibration measures it) */
    double u8u8_speedup;
    double dispatch_ns;   /* per-kernel launch / dispatch overhead */
    double round_trip_ns; /* per-forward host<->device round trip */
    /* One meeting of `threads` spinning threads (CPU calibration, 0 = not measured or one
     * thread): what a runtime whose threads poll between graph nodes (llama.cpp) pays per
     * node, where dispatch_ns is a fork/join that wakes sleeping threads. */
    double barrier_ns;
    /* What the calling thread pays to wake one sleeping thread of its pool (CPU calibration, 0 =
     * not measured or one thread): a runtime whose pool threads sleep between kernels
     * (onnxruntime with spinning off) pays it for every kernel it hands to the pool, even one
     * too small to gain from the second thread (docs/cost.md, "Waking the pool"). */
    double wake_ns;
    double mem_gbps;                    /* device memory bandwidth, bytes per ns */
    double readback_gbps;               /* device -> host copy bandwidth */
    bool unified;                       /* host and device share memory */
    uint32_t threads;                   /* CPU threads used (GPUs: 0) */
    uint64_t memory_bytes;              /* device memory size, 0 = unknown */
    double efficiency;                  /* achieved / peak applied (catalog), else 1 */
    char gemm_impl[TP_DEVICE_NAME_CAP]; /* "openblas", "builtin", "cublas", "catalog" */
    /* f32 lanes of the widest vector ISA the CPU runs (tp_cpu_isa_floats of tp_cpu_features.isa:
     * 16 AVX-512, 8 AVX2, 4 NEON or generic), set by the CPU calibration from the CPU's features,
     * whichever GEMM it chose; 0 = not known (catalog, default, GPUs). A runtime's kernels pick
     * their layouts by it (onnxruntime's NCHWc channel block), not by the BLAS a calibration
     * happened to load. */
    uint32_t vector_floats;
    /* Per-op-class rates measured by the CPU calibration's micro-benchmarks (docs/cost.md,
     * "Op classes"), >= 0; 0 = not measured: depthwise convolutions then follow the GEMM
     * curve and resizes mem_gbps, as catalog and default models do. */
    double dwconv_gflops; /* 3×3 depthwise convolution, channel-blocked (NCHWc) kernel */
    double resize_gbps;   /* bilinear 2× resize, bytes read + written per ns */
    double norm_gbps;     /* row normalization (LayerNorm), bytes read + written per ns */
    /* A residual add and row normalization in one kernel whose row statistics are a running
     * mean and variance, element after element (a subtract, a divide and an add each waiting on
     * the last: onnxruntime 1.30's SkipLayerNormalization on a CPU), both addends read + the
     * output written, per ns, on `threads` threads; 0 = not measured (then norm_gbps). */
    double skip_norm_gbps;
    /* An erf GELU as one kernel (onnxruntime's Gelu / BiasGelu on a CPU, with the kernel it picks
     * for the CPU: one 16-lane pass on AVX-512, else a scaling pass, a vectorized erf and the
     * product per task of 4096 elements; src/cost/calib_gelu.h), input read + output written per
     * ns, on `threads` threads; 0 = not measured (then the stream). */
    double gelu_gbps;
    /* BiasGelu, the erf GELU that onnxruntime fuses with the bias Add before it (its contrib
     * kernel: a scratch tensor and three passes per row, the erf on MLAS's FMA3 kernel even on
     * AVX-512; src/cost/calib_gelu.h), input read + output written per ns, on `threads` threads;
     * 0 = not measured (then gelu_gbps). */
    double bias_gelu_gbps;
    /* PRelu as onnxruntime 1.30's CPU kernel runs it (one element at a time with a branch on its
     * sign, no vector instructions; src/cost/calib_prelu.h), on inputs whose signs come in runs
     * (the branch predicted), input read + output written per ns, on `threads` threads; 0 = not
     * measured (then the stream). */
    double prelu_gbps;
    /* The expand pass of a convolution that runs as expand-then-GEMM (onnxruntime's generic MLAS
     * convolution: 1-D and 3-D ones, grouped ones, 2-D ones not in the NCHWc layout): its im2col
     * and the GEMM's packing of the column buffer, bytes of the column buffer per ns; 0 = not
     * measured (then mem_gbps' curve prices them). */
    double im2col_gbps;
    /* col2im of a transposed convolution (onnxruntime's ConvTranspose adds its column buffer
     * back into the output one element at a time, on one thread, unless the stride along the
     * width is 1 and nothing is padded), column-buffer bytes read per ns on one thread; 0 = not
     * measured (then the memory curve prices the pass). */
    double col2im_gbps;
    /* A transpose that moves its innermost axis among other axes (onnxruntime's CPU Transpose
     * walks it one element at a time with a multi-index, on the calling thread; a block at a
     * time, one step of the walk each, when the innermost axes stay: src/cost/calib_transpose.h),
     * element bytes copied per ns on one thread, the 4-byte elements of [2, 48, 32, 64] by
     * (0, 3, 2, 1); 0 = not measured (then the memory curve prices transposes). */
    double transpose_gbps;
    /* int8 block-dot products (blocks of 32 signed bytes with a float scale each, the arithmetic
     * of a quantized LLM's prefill on a CPU: src/cost/int8_dot.h), 2 ops per multiply-add per
     * ns with `threads` threads, on this CPU's integer dot-product instructions (AVX-512 VNNI,
     * AVX2, else plain C); 0 = not measured (catalog, default, older caches). LLM prefill of
     * quantized weights is priced from it (docs/estimate.md, "Throughput"). */
    double int8_dot_gops;
    /* The same int8 block-dot products on AMX tiles (src/cost/amx_dot.h: TDPBSSD per block of 32,
     * the sums scaled into float accumulators with AVX-512), as llama.cpp's AMX kernels run a
     * quantized prefill; 0 = not measured (a CPU or OS without AMX-INT8, catalog, default, older
     * caches). docs/estimate.md, "Session 20". */
    double amx_int8_gops;
    /* What a denormal operand costs: extra ns per vector multiply-add whose broadcast operand is
     * a denormal number, on one thread, with the CPU's default floating-point mode (no
     * flush-to-zero, as onnxruntime runs); 0 = no measurable extra, or not measured (catalog,
     * default, older caches). A GEMM with tp_op_cost.denormal_elems adds denormal_elems x
     * ceil(n / lanes) of them (docs/cost.md, "Denormal attention masks"); a Softmax with
     * tp_op_cost.underflow_elems 1.3 of them per vector of those elements (3.3 where it writes
     * denormals) and 2.5 per row holding them (docs/cost.md, "Masked Softmax"). */
    double denormal_ns;
    /* Bandwidth of a pass whose data fits the caches: the triad over cache_bytes (read +
     * written) runs at cache_gbps; mem_gbps was measured over mem_set_bytes. 0 = not
     * measured (every pass at mem_gbps). tp_device_mem_gbps interpolates between them. */
    double cache_gbps;
    uint64_t cache_bytes, mem_set_bytes;
    /* Weight bytes per ns that a few-row GEMM streams from memory on top of its arithmetic
     * (CPU calibration: 16 rows by packed weight panels beyond the caches, against the same
     * panels in cache, every thread streaming its share; TP_STREAM_FREE_GBPS: no measurable
     * cost). A GEMM whose constant weights
     * do not stay in the caches between runs adds weight bytes / this rate to its arithmetic
     * (docs/cost.md, "Weights streamed from memory"). 0 = not measured (catalog and default
     * models, older caches): no stream term, the skinny curve prices few-row GEMMs. */
    double gemm_stream_gbps;
    /* Overheads of the runtime that executes the graph, not of the hardware: added per
     * launched node and per forward. A calibrated CPU model gets onnxruntime's, as multiples of
     * a measured interpreter step (the multiples from the probe of bench/accuracy; docs/cost.md,
     * "Runtime overheads"); cached since session 15. 0 = none. */
    double runtime_node_ns, runtime_run_ns;
    /* The same runtime's cost per group of a grouped or depthwise convolution that it runs on
     * its generic path (not in its NCHWc layout: every 1-D one, and 2-D ones whose groups do not
     * fit its channel blocks): onnxruntime's MLAS expands and multiplies group by group, one
     * small GEMM call each (docs/cost.md, "Session 17"). Cached since session 17; 0 = none. */
    double runtime_group_ns;
    /* Read bandwidth by working-set size (tp_device_read_gbps), measured by the CPU
     * calibration with `threads` threads, sorted by bytes; 0 points = not measured (catalog,
     * default, CUDA): mem_gbps at every size. */
    uint32_t n_read;
    tp_bw_point read[TP_READ_CURVE_MAX];
    /* The same sizes read in several streams at once with the widest vector loads of the CPU
     * (tp_device_read_streams_gbps; src/cost/calibrate_read.c): what a kernel that reads several
     * weight panels side by side reaches (llama.cpp's AMX decode). read above is one stream of
     * 8-byte words: what a kernel walking its weights row after row reaches (llama.cpp's other
     * CPU decode kernels). 0 points = not measured (catalog, default, CUDA, older caches). */
    uint32_t n_read_streams;
    tp_bw_point read_streams[TP_READ_CURVE_MAX];
} tp_device_model;

/* A default (source TP_SOURCE_DEFAULT) model of the given kind: conservative
 * built-in figures documented in docs/cost.md. */
TP_API void tp_device_model_default(tp_device_kind kind, tp_device_model *out);
/* Check a model: finite, positive throughput and bandwidths, sorted curve.
 * TP_ERR_INVALID naming the field and value. */
TP_API tp_status tp_device_model_validate(const tp_device_model *d, tp_error *err);
/* GEMM throughput in GFLOP/s for one m×k by k×n product with operands of
 * `dtype`: log-linear interpolation of the curve's upper envelope (running
 * maximum over dims) in cbrt(m·k·n), clamped at the
 * ends; when the model has a skinny curve, the lower of that and the skinny
 * curve at min(m, k) (no cap above its last point); times the dtype
 * speedup. Never returns <= 0 for a valid model. */
TP_API double tp_device_gemm_gflops(const tp_device_model *d, tp_dtype dtype, uint64_t m,
                                    uint64_t k, uint64_t n);

/* Read bandwidth in GB/s (bytes per ns) for a working set of `bytes` read once per pass:
 * log-linear interpolation of d->read in the size, clamped at the ends (the last point is
 * memory); mem_gbps when the model has no read curve. Never <= 0 for a valid model. */
TP_API double tp_device_read_gbps(const tp_device_model *d, double bytes);
/* The same for d->read_streams; tp_device_read_gbps where the model has no such curve. */
TP_API double tp_device_read_streams_gbps(const tp_device_model *d, double bytes);

/* Bandwidth in GB/s of a pass that reads and writes `bytes`: cache_gbps up to cache_bytes,
 * mem_gbps from mem_set_bytes on, log-linear in bytes between (docs/cost.md, "Op classes");
 * mem_gbps when the model has no cache point. Never <= 0 for a valid model. */
TP_API double tp_device_mem_gbps(const tp_device_model *d, uint64_t bytes);

/* ---------------------------------------------------------------- cost prediction */

typedef struct tp_node_cost {
    tp_node_id node;
    tp_cost_class cls;
    uint64_t flops;
    uint64_t bytes;     /* read + written */
    double compute_ns;  /* flops / GEMM throughput (0 for memory-bound ops) */
    double memory_ns;   /* bytes / mem_gbps */
    double dispatch_ns; /* (device dispatch + runtime per node) × launches; 0 for metadata */
    double total_ns;    /* max(compute, memory) + dispatch */
    bool fused;         /* runs inside the preceding GEMM-class kernel (docs/cost.md, "Fusion"):
                           costs 0, no launch */
} tp_node_cost;

/* Per-node roofline: max(flops / throughput, bytes / bandwidth) + dispatch;
 * metadata costs 0. A GEMM with weights (weight_bytes) on a model with gemm_stream_gbps adds
 * the stream of the share of them that comes from memory, the node's own weights taken as the
 * run's weight set (tp_graph_cost_compute takes the whole graph's). Pure: thread-safe. */
TP_API tp_node_cost tp_node_cost_eval(const tp_device_model *d, tp_node_id id,
                                      const tp_op_cost *oc);

typedef struct tp_graph_cost {
    double total_ns;        /* round_trip + nodes + layout + readback + sync */
    double round_trip_ns;   /* one per forward: device round trip + runtime per run */
    double nodes_ns;        /* Σ node total_ns */
    double layout_ns;       /* CPU: onnxruntime's NCHWc layout copies (ReorderInput/Output), which
                               no node of the graph stands for; 0 on other devices. In total_ns
                               (docs/cost.md, "Session 14") */
    uint32_t layout_copies; /* how many such copies */
    double readback_ns;     /* host_readback(unified) / readback_gbps */
    double sync_ns;         /* sync_points × round_trip_ns */
    uint64_t flops;         /* Σ node flops */
    uint64_t bytes;         /* Σ node bytes */
    uint32_t fused_nodes;   /* nodes priced 0 as the epilogue of a GEMM-class kernel */
    tp_io_profile io;
    uint32_t n_nodes;    /* entries in nodes (one per graph node; 0 when not requested) */
    tp_node_cost *nodes; /* owned; NULL when not requested */
    const tp_allocator *alloc;
} tp_graph_cost;

/* Predict a bound graph's forward latency on device d (validated first).
 * io may be NULL (defaults); alloc (NULL = libc) allocates the per-node
 * breakdown. TP_ERR_INVALID, TP_ERR_UNBOUND, TP_ERR_OVERFLOW, TP_ERR_NOMEM.
 * On error *out holds no memory. Release with tp_graph_cost_destroy. */
TP_API tp_status tp_graph_cost_compute(const tp_graph *g, const tp_device_model *d,
                                       const tp_io_options *io, const tp_allocator *alloc,
                                       tp_graph_cost *out, tp_error *err);
/* Expected error of a prediction with device model d, from the accuracy benchmark
 * (bench/accuracy; docs/cost.md, "Accuracy"). Strings are static; never NULL. */
typedef struct tp_cost_accuracy {
    const char *basis;     /* the model's source: "measured", "catalog", "default" */
    bool validated;        /* a benchmark backs the figures below (else they are 0) */
    uint32_t models;       /* held-out models the figures come from */
    double mape_pct;       /* mean absolute percentage error on them */
    double under_pct;      /* the largest under-prediction seen (<= 0), percent */
    double over_pct;       /* the largest over-prediction seen (>= 0), percent */
    const char *reference; /* what was measured, or why nothing was */
} tp_cost_accuracy;

/* Fill *out for d (NULL: as a default model). Thread-safe, never fails. */
TP_API void tp_cost_accuracy_of(const tp_device_model *d, tp_cost_accuracy *out);

/* Total only (no per-node breakdown; a one-byte-per-node fusion scratch is allocated). */
TP_API tp_status tp_graph_cost_total(const tp_graph *g, const tp_device_model *d,
                                     const tp_io_options *io, double *total_ns, tp_error *err);
TP_API void tp_graph_cost_destroy(tp_graph_cost *c); /* NULL-safe; frees nodes */
/* Indices of the k most expensive nodes (by total_ns, descending, ties by id),
 * written to idx (capacity k); returns how many were written. */
TP_API uint32_t tp_graph_cost_top(const tp_graph_cost *c, uint32_t k, uint32_t *idx);

/* ---------------------------------------------------------------- calibration */

/* The widest f32 vector instruction set this CPU and its operating system support
 * (x86: CPUID plus XGETBV, so a hypervisor that hides AVX-512 state counts as
 * without it; Arm: NEON is part of AArch64). */
typedef enum tp_cpu_isa {
    TP_CPU_ISA_GENERIC = 0, /* none of the below (scalar or 128-bit SSE/NEON) */
    TP_CPU_ISA_NEON,        /* AArch64 Advanced SIMD, 128-bit */
    TP_CPU_ISA_AVX2,        /* AVX2 + FMA, 256-bit */
    TP_CPU_ISA_AVX512       /* AVX-512 F (+BW, DQ, VL where present), 512-bit */
} tp_cpu_isa;

typedef struct tp_cpu_features {
    bool avx, avx2, fma, avx512f, avx512bw, avx512vnni, avx512bf16; /* x86 */
    bool amx_tile, amx_bf16, amx_int8;                              /* x86 matrix units */
    bool neon, sve;                                                 /* Arm */
    tp_cpu_isa isa; /* the widest usable f32 vector ISA */
} tp_cpu_features;

/* Detect this CPU's features (thread-safe, no allocation, never fails: unknown
 * means false). */
TP_API void tp_cpu_features_detect(tp_cpu_features *out);
/* "avx512", "avx2", "neon", "generic"; never NULL. */
TP_API const char *tp_cpu_isa_name(tp_cpu_isa isa);
/* f32 lanes of one vector register of the ISA: 16 (AVX-512), 8 (AVX2), 4 (NEON, generic). */
TP_API uint32_t tp_cpu_isa_floats(tp_cpu_isa isa);

typedef struct tp_calib_options {
    bool quick;       /* small shapes, few repetitions (< 2 s); for CI */
    bool force;       /* ignore the cache and measure again */
    bool no_blas;     /* do not load a BLAS library (built-in kernel only) */
    uint32_t threads; /* 0 = the CPUs this process may run on (tp_calib_default_threads) */
    const char
        *cache_dir;           /* calibration cache directory; NULL = no cache (the CLI passes
                                 $XDG_CACHE_HOME/tensorplan or ~/.cache/tensorplan, tensorplan/env.h) */
    const char *cuda_library; /* CUDA driver to load; NULL = libcuda.so.1, else libcuda.so */
} tp_calib_options;

TP_API void tp_calib_options_default(tp_calib_options *o);

/* Extra facts about a calibration run. */
typedef struct tp_calib_info {
    bool from_cache;
    bool quick; /* the figures come from a --quick run */
    char cache_path[512];
    char cache_key[256]; /* tp_calib_cache_key of this run's thread count */
    char cpu_model[128];
    double elapsed_ms;  /* time spent measuring (0 when from cache) */
    double op_rates_ms; /* of which the op-class micro-benchmarks (depthwise conv, resize) */
    double peak_gflops; /* this CPU's derived f32 peak (cores × GHz × flops/cycle); 0 unknown */
    tp_cpu_isa isa;     /* the widest vector ISA detected (the built-in kernel uses it) */
    /* The largest square GEMM with each implementation measured in this run (0 when
     * not measured: cached run, or no BLAS found), so the report can show what the
     * run-time BLAS reached as configured against the built-in kernel. */
    double builtin_gflops, blas_gflops;
    char builtin_kernel[TP_DEVICE_NAME_CAP]; /* "builtin-avx512", ... */
    char blas_name[TP_DEVICE_NAME_CAP];      /* "openblas", "" when none */
    char blas_core[TP_DEVICE_NAME_CAP];      /* OpenBLAS's own core name ("Haswell"), "" */
    char int8_kernel[TP_DEVICE_NAME_CAP];    /* the int8 dot kernel measured ("int8-avx2"), "" */
    /* the integer GEMM kernels behind int8_speedup / u8u8_speedup ("u8s8-avx2", "u8u8-avx2"), "" */
    char u8s8_kernel[TP_DEVICE_NAME_CAP], u8u8_kernel[TP_DEVICE_NAME_CAP];
    char read_kernel[TP_DEVICE_NAME_CAP]; /* read_streams' kernel ("streams-avx512"), "" */
    /* One reference kernel's rate (the built-in 64³ GEMM on one thread, GFLOP/s) when the
     * measurement started and when it ended (0 when not measured: a cached run). On a shared
     * host a core's speed can move by 40 % for minutes; figures whose two ends differ by more
     * than TP_CALIB_UNSTEADY_PCT were measured while the machine changed speed. */
    double steady_start_gflops, steady_end_gflops;
} tp_calib_info;

/* The change of the reference kernel's rate (percent) beyond which `calibrate` warns that the
 * machine changed speed while it was measured. */
#define TP_CALIB_UNSTEADY_PCT 10.0

/* Measure this CPU now: f32 GEMM at small and large square shapes and at
 * skinny shapes (OpenBLAS/BLAS cblas_sgemm loaded at run time when present and
 * faster on the largest shape, else the built-in blocked kernel; gemm_impl
 * says which), STREAM triad bandwidth, memcpy readback bandwidth, dispatch
 * (thread-pool fork/join) and round-trip (two-thread hand-off) overheads.
 * With one thread, GEMM and triad are timed by thread CPU time (robust to other
 * processes); with more, by the wall clock. Source TP_SOURCE_MEASURED. info
 * may be NULL. TP_ERR_NOMEM, TP_ERR_IO (thread creation), TP_ERR_VERIFY (the
 * built-in kernel failed its self-check). Takes ~6 s (quick: < 1 s). */
TP_API tp_status tp_calibrate_cpu(const tp_calib_options *o, tp_device_model *out,
                                  tp_calib_info *info, tp_error *err);
/* As tp_calibrate_cpu but reuse the cache file keyed by CPU model and thread
 * count unless o->force; a fresh measurement is written to the cache (a cache
 * write failure is not an error: info->cache_path is then ""). Quick runs are
 * cached apart ("-quick" file): a full calibration serves quick and full
 * requests, a quick one only quick requests. */
TP_API tp_status tp_calibrate_cpu_cached(const tp_calib_options *o, tp_device_model *out,
                                         tp_calib_info *info, tp_error *err);
/* Measure the first CUDA device through the driver API and cuBLAS, both loaded
 * at run time. TP_ERR_NOT_FOUND ("no CUDA driver" / "no cuBLAS" / "no device")
 * is the normal answer on machines without a GPU. */
TP_API tp_status tp_calibrate_cuda(const tp_calib_options *o, tp_device_model *out, tp_error *err);

/* The CPU model string from /proc/cpuinfo (or sysctl), "unknown" otherwise. */
TP_API void tp_cpu_model_name(char *buf, size_t cap);
/* The thread count calibration uses for o->threads == 0. */
TP_API uint32_t tp_calib_default_threads(void);
/* The cache directory for o (no trailing slash): o->cache_dir. TP_ERR_NOT_FOUND
 * when it is not set. */
TP_API tp_status tp_calib_cache_dir(const tp_calib_options *o, char *buf, size_t cap,
                                    tp_error *err);
/* Cache file path for a CPU model and thread count under dir. */
/* The key a cached calibration with `threads` threads is stored under: the CPU model name,
 * family and model numbers (a virtual machine masks the name and may move to another host
 * generation) and the thread count. Never fails; truncated to cap - 1 bytes. */
TP_API void tp_calib_cache_key(uint32_t threads, char *buf, size_t cap);
TP_API tp_status tp_calib_cache_path(const char *dir, const char *cpu_model, uint32_t threads,
                                     char *buf, size_t cap, tp_error *err);
/* Write / read one device model as a key=value text file. Reading checks the
 * format version and every field (TP_ERR_PARSE naming the line), and
 * TP_ERR_NOT_FOUND when the file does not exist. Writing is atomic. */
TP_API tp_status tp_device_model_save(const tp_device_model *d, const char *key, const char *path,
                                      tp_error *err);
TP_API tp_status tp_device_model_load(const char *path, const char *key, tp_device_model *out,
                                      tp_error *err);

/* ---------------------------------------------------------------- catalog */

/* One spec-sheet entry. Peak figures are dense (no sparsity), in GFLOP/s
 * (int8 in GOP/s); 0 = not published. */
typedef struct tp_catalog_entry {
    char name[TP_DEVICE_NAME_CAP];
    tp_device_kind kind;
    double f32_gflops, f16_gflops, bf16_gflops, int8_gops;
    double mem_gbps;
    uint64_t memory_bytes;
    double link_gbps; /* host link, one direction (readback); unified: memory bandwidth */
    bool unified;
    uint32_t threads;
    double efficiency; /* achieved / peak; 0 = use the catalog-wide default */
    char source[256];  /* vendor document the figures come from */
} tp_catalog_entry;

typedef struct tp_catalog tp_catalog;

/* Parse a catalog CSV (header line, then one device a line; see
 * data/devices/catalog.csv). TP_ERR_PARSE naming the line and column. */
TP_API tp_status tp_catalog_parse(const char *text, size_t len, const tp_allocator *alloc,
                                  tp_catalog **out, tp_error *err);
TP_API tp_status tp_catalog_load(const char *path, const tp_allocator *alloc, tp_catalog **out,
                                 tp_error *err);
/* The catalog built into the library (same content as data/devices/catalog.csv). */
TP_API tp_status tp_catalog_load_default(const tp_allocator *alloc, tp_catalog **out,
                                         tp_error *err);
TP_API void tp_catalog_destroy(tp_catalog *c);
TP_API uint32_t tp_catalog_count(const tp_catalog *c);
TP_API const tp_catalog_entry *tp_catalog_get(const tp_catalog *c, uint32_t index);
TP_API tp_status tp_catalog_find(const tp_catalog *c, const char *name,
                                 const tp_catalog_entry **out, tp_error *err);
/* Efficiency applied to entries without their own (default 0.5). */
TP_API void tp_catalog_set_default_efficiency(tp_catalog *c, double efficiency);
/* Set one entry's efficiency (0 < efficiency <= 1). TP_ERR_NOT_FOUND, TP_ERR_INVALID. */
TP_API tp_status tp_catalog_set_efficiency(tp_catalog *c, const char *name, double efficiency,
                                           tp_error *err);
/* Learn the efficiency from this machine: measured large-shape GEMM GFLOP/s /
 * derived peak GFLOP/s (clamped to [0.05, 1]). Applies to CPU entries without
 * their own efficiency. TP_ERR_INVALID when peak is unknown (<= 0). */
TP_API tp_status tp_catalog_learn_efficiency(tp_catalog *c, const tp_device_model *measured,
                                             double peak_gflops, tp_error *err);
/* Build a device model (source TP_SOURCE_CATALOG) from an entry. `dtype` is
 * the precision the runtime runs f32 GEMMs in (TP_DTYPE_F32 for plain f32,
 * F16/BF16 for autocast): large-shape throughput = peak(dtype) × efficiency,
 * smaller shapes follow a saturation curve (this machine's measured curve for
 * CPUs once learned, else the kind's default shape, docs/cost.md); other
 * dtypes get their spec-sheet ratio as speedup; bandwidth = 0.8 × spec;
 * readback = 0.8 × host link (unified: memory bandwidth); overheads from the
 * kind's defaults (CPUs: this machine's once learned). TP_ERR_NOT_FOUND for an
 * unknown name, TP_ERR_UNSUPPORTED when the entry has no published peak. */
TP_API tp_status tp_catalog_model(const tp_catalog *c, const char *name, tp_dtype dtype,
                                  tp_device_model *out, tp_error *err);
TP_API tp_status tp_catalog_entry_model(const tp_catalog *c, const tp_catalog_entry *e,
                                        tp_dtype dtype, tp_device_model *out, tp_error *err);

/* ---------------------------------------------------------------- device choice */

/* Comma-separated lists of device names or kinds ("cuda,h100-sxm,cpu");
 * NULL or "" = unset. */
typedef struct tp_device_policy {
    const char *allow;
    const char *deny;
    const char *prefer;
} tp_device_policy;

/* The CLI fills unset lists from TENSORPLAN_DEVICES, TENSORPLAN_DENY_DEVICES and
 * TENSORPLAN_PREFER_DEVICES (tp_env_apply_device_policy, tensorplan/env.h). */
/* True when entry (a name or a kind) matches model d (case-insensitive). */
TP_API bool tp_device_matches(const tp_device_model *d, const char *entry);

/* Pick the best of n candidate models with predicted costs cost_ns[i]:
 *   1. keep candidates allowed (allow list, if set) and not denied;
 *   2. drop `default`-source models when a measured or catalog one remains;
 *   3. if any remaining matches the prefer list, keep only those;
 *   4. lowest cost; ties broken by kind priority cuda, rocm, metal, gpu, cpu,
 *      then by index.
 * policy may be NULL. TP_ERR_NOT_FOUND when nothing remains (the message says
 * which list removed them), TP_ERR_INVALID for n == 0 or a non-finite cost. */
TP_API tp_status tp_pick_best_device(const tp_device_model *models, const double *cost_ns,
                                     uint32_t n, const tp_device_policy *policy, uint32_t *chosen,
                                     tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
