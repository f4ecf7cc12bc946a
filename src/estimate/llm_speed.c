/* LLM throughput: llama-bench's pp / tg tokens per second predicted from the
 * GGUF's tensors and a device model (tensorplan/llm_speed.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "estimate/llm_amx.h"
#include "estimate/llm_repack.h"
#include "tensorplan/llm_speed.h"

/* Graph nodes per layer of a llama-style decoder step (norm, mul, q/k/v
 * matmuls, two ropes, two KV copies, flash attention, output matmul, add,
 * norm, mul, gate/up matmuls, glu, down matmul, add: ~20); the output adds a
 * few. Used for the overhead term only. */
#define NODES_PER_LAYER 20.0
#define NODES_OUTPUT 4.0
/* KV cells llama.cpp attends are the used cells padded to this. */
#define KV_PAD 256

/* CPU kernel rates of llama.cpp's CPU backend, relative to the device's large
 * f32 GEMM throughput G (GFLOP/s = flops per ns):
 *   dec  weight elements per ns of a decode matrix-vector product's arithmetic, per G; the
 *        bytes it reads are priced apart, at the read bandwidth of the working set
 *        (tp_device_read_gbps), and the two add up: one thread computes or waits
 *   pp   prefill GEMM flops per ns, per G (llama.cpp's quantized GEMMs run at a rate that
 *        hardly depends on the shape at these sizes, so the f32 curve's shape is not used)
 * Fitted with bench/llm_speed.sh on the fit set (the ~20 M, ~120 M and ~400 M dense models and
 * the ~40 M MoE, one thread; llama.cpp v0.5.0 of node-llama-cpp, its zen4 CPU variant, on an
 * AMD EPYC family 26 (Zen 5) with AVX-512): each factor scaled until its type's fit-set
 * predicted / measured ratio (geometric mean) was 1, measured with the other jobs on the machine
 * stopped. f16 decode is bound by the bytes it reads: its arithmetic factor is large and says
 * little.
 * Session 34 found the prefill's attention priced for one layer instead of n_layer and llama.cpp's
 * flash attention far slower than the rates it was priced at (CPU_FA_PREFILL, CPU_FA_DECODE); with
 * both corrected, the prefill factors (pp of f32 and f16, ipp) and the quantized decode factors
 * (idec) were refitted by the same rule over session 32's and 33's windows of the AMD EPYC Zen 3
 * host (fit-set geometric mean of predicted / measured one-thread figures 1, each window predicted
 * with its own calibration): pp f32 0.3322 -> 0.363, f16 0.3627 -> 0.400, ipp q8_0 0.89 -> 0.959,
 * q4_0 1.10 -> 1.095, idec q8_0 0.54 -> 0.63, q4_0 1.15 -> 1.60 (the decode attention of the first
 * 128 tokens, now its own term, had been inside idec: the 20 M q4_0 model's decode is mostly
 * arithmetic and attention).
 * docs/estimate.md has the table and the held-out errors. */
#define TP_IPP_Q8_0 0.959
#define TP_IPP_Q4_0 1.095
#define TP_IDEC_Q8_0 0.57
#define TP_IDEC_Q4_0 1.30
typedef struct type_rate {
    tp_dtype type;
    double dec, pp;
    /* prefill GEMM flops per ns per calibrated int8 block-dot GOP/s (tp_device_model.
       int8_dot_gops), for the quantized types: their prefill runs on integer dot products, whose
       rate relative to an f32 GEMM is a property of the microarchitecture (pp, fitted on the Zen 5
       VM, was 1.6-2.0x too fast on the session-12 Cascade Lake host); 0: priced by pp × G.
       Fitted on this host's fit set (docs/estimate.md, "Session 12"). */
    double ipp;
    /* decode arithmetic in int8 dot operations per ns (two per weight element) per calibrated
       int8 block-dot GOP/s, for the quantized types: their decode is llama.cpp's q8_0 × q8_0 (or
       q4_0 × q8_0) vector dot product, an integer kernel; dec × G (fitted on the Zen 5 VM's
       AVX-512 kernels) put the 400 M and 850 M q8_0 decode 20-37 % below llama-bench (one thread,
       two measurement passes) on an AVX2 host whose f32 GEMM is OpenBLAS's. 0: priced by dec × G.
       Fitted on session 32's host (docs/estimate.md, "Session 32": 0.509 and 0.966, one window);
       session 33 refitted them the same way (each type's fit-set geometric mean of predicted /
       measured one-thread decode is 1) over two windows of that host, each predicted with its
       own calibration: q8_0 0.54, q4_0 1.15 (with session 32's: 0.979 and 0.935 over the two
       windows). docs/estimate.md, "Session 33". */
    double idec;
} type_rate;

static const type_rate cpu_rates[] = {
    {TP_DTYPE_F32, 0.8985, 0.363, 0, 0},
    {TP_DTYPE_F16, 1.228, 0.400, 0, 0},
    {TP_DTYPE_Q8_0, 0.1235, 0.6137, TP_IPP_Q8_0, TP_IDEC_Q8_0},
    {TP_DTYPE_Q4_0, 0.3577, 1.112, TP_IPP_Q4_0, TP_IDEC_Q4_0},
};
/* Prefill of MoE expert tensors of a type the CPU backend does not repack (q8_0, f16, f32 on
 * x86): llama.cpp's mul_mat_id multiplies each expert by the tokens routed to it (gathered rows,
 * ggml_vec_dot in blocks of 16 rows by 16 tokens): its rate per flop relative to a dense GEMM of
 * the same type. Fitted on the ~40 M MoE of the fit set (the ~330 M MoE is held out), first on
 * the Zen 5 VM over both quantized types (0.4732). Session 34 prices the repacked types'
 * experts by their own kernel (expert_gemv) and refitted this factor on the ~40 M q8_0 MoE alone,
 * over four windows of the AMD EPYC Zen 3 host, each predicted with its own calibration (its
 * one-thread prefill's predicted / measured geometric mean 1), with attention counted in every
 * layer: 0.508. docs/estimate.md, "Session 34". */
#define CPU_MOE_PREFILL 0.508
/* The repacked types' experts (expert_gemv): the decode kernel's arithmetic and the cache reads
 * of one expert per routed token, sped up by this factor, fitted like CPU_MOE_PREFILL on the
 * ~40 M q4_0 MoE (predicted / measured 0.880 without it once attention counted every layer). The
 * held-out MoEs' q4_0 prefill at one thread: mean |error| 23.5 % before session 34, 7.5 % with
 * this rule (five windows); 27.6 -> 8.0 % in a window no fit used. */
#define CPU_MOE_GEMV 1.215
/* With T threads and a one-thread calibration (tp_llm_speed_options.one_thread), those blocks are
 * priced at T times the one-thread rate: each thread takes its own blocks of an expert from a
 * shared counter and multiplies them from its L1, with no barrier between experts, while the
 * T-thread calibration's dot rate gained 1.57-2.10x from a second thread over six windows on
 * session 34's host, llama.cpp's q8_0 MoE prefill 1.64-2.35x (about 2). There, at 2 threads, the
 * ~40 M q8_0 MoE's prefill was -15 ... -17 % with the T-thread rate in four windows (predicted /
 * measured 0.814), 0.932 with this rule (held out: 0.865 -> 1.001, mean |error| 23.9 -> 19.7 %),
 * both before attention counted every layer; in a fifth window, measured after the choice,
 * -14 -> -20 % (held out 20.1 -> 21.5 %: there the calibration gained 2.10x). Measured at 2
 * threads only. */
/* llama.cpp's CPU flash attention (ggml-cpu/ops.cpp, read, not copied), which llama.cpp's auto
 * setting turns on for the CPU. Prefill runs its tiled path: 64 queries by 64 keys, the K and V
 * tiles converted from f16 to f32, the products in f32 SIMD, an online softmax. Decode runs one
 * query at a time over every used cell: an f16 dot product, one expf, an f16 multiply-add of the
 * V row, key after key (cells the mask rules out are skipped). Their costs relative to the
 * large f32 GEMM rate G:
 *   CPU_FA_*_SCORE  scores (one per query, key and head) per ns per G: the mask, the maximum,
 *                   the exponential and the scaling of each score
 *   CPU_FA_*_ELEM   elements of K and V (dk + dv per score) per ns per G: their conversion from
 *                   f16, the products and the V accumulation
 *   CPU_FA_DECODE_CELL  ns x G each decode score costs more per cell in the cache: llama-bench's
 *                   decode took 60-90 ns per cell and head at -d 2048, 150-300 at -d 8192 (more
 *                   with more KV heads); neither the KV bytes nor the read curve explained it
 * Decode's KV bytes themselves are read at the working set's bandwidth (step_on). Fitted (least
 * squares of the relative error) on the time the depth adds (prefill: attention alone; decode:
 * less the KV bytes' read time) over bench/llm_depth.py's fit set: 20 M q4_0, 120 M q8_0 and f16,
 * 400 M q4_0 (heads of 64) and 120 M q8_0 with heads of 128, which tells the per-score cost from
 * the per-element one (prefill: about 13 ns per score plus 0.03 per element); llama-bench -d 2048
 * and 8192 against -d 0, one thread, session 34's host (an AMD EPYC Zen 3 with AVX2) with one
 * calibration of the same window. Fit set at depth: pp -9 ... +14 %, tg -23 ... +31 %; held out
 * (the 330 M MoE at -d 2048 / 8192, a 150 M model with heads of 96 at -d 4096, the 850 M at -d
 * 1024): pp -7 ... +15 %,
 * tg -29 ... +27 %.
 * Before, prefill attention was priced at the f16 GEMM rate for one layer (not n_layer) and
 * decode attention at the f16 decode rate: at depth 8192, pp512 +252 ... +387 % and tg +468 ...
 * +931 % over llama-bench. docs/estimate.md, "Session 34". */
#define CPU_FA_PREFILL_SCORE 0.000967
#define CPU_FA_PREFILL_ELEM 0.373
#define CPU_FA_DECODE_SCORE 0.00164
#define CPU_FA_DECODE_ELEM 0.0638
#define CPU_FA_DECODE_CELL 1.61
/* FA_THREADS: with T threads and a one-thread calibration (tp_llm_speed_options.one_thread),
 * flash attention takes the one-thread time / T: llama.cpp gives each thread its own queries
 * (prefill) or its own share of the cells (decode), with no shared bandwidth to wait on. In one
 * window (19:17 UTC, 20 M q4_0 and 120 M q8_0 at -d 4096) the time the depth added fell from one
 * thread to two by 2.06x / 2.04x (prefill) and 2.9x / 2.2x (decode); priced with the 2-thread
 * calibration (1.47x there) and the decode gain (1.65) the 2-thread figures were -33 / -24 % (pp)
 * and -49 / -37 % (tg). Measured at 2 threads only. */
/* With tokens already in the cache (n_depth > 0) a CPU figure's band is at least the largest
   error of bench/llm_depth.py at depth, rounded up: -29 ... +31 % in the window of the fit (fit
   set and held out), but the 20 M model's decode at -d 4096 / 8192 was -31 / -34 % in a later
   window and -46 % at -d 4096 (tg16, tests/cli/test_llm_speed.sh) in another: the cost per cell
   moves with the host's cache state. One host, one thread, depths 1024-8192. */
#define CPU_ERROR_BAND_DEPTH 0.50
/* Per graph node (ns) at one thread, and per llama_decode call. With more threads, llama.cpp's
 * threads meet at a spinning barrier after every node: the calibration's barrier_ns is added
 * (its fork/join dispatch_ns wakes sleeping threads, which llama.cpp's polling threads are not;
 * a calibration without barrier_ns falls back to it). */
#define CPU_NODE_NS 300.0
#define CPU_CALL_NS 30000.0
/* The held-out benchmark's error (bench/llm_speed.sh, docs/estimate.md), one thread: dense
 * (~850 M) within 10 % in the window the factors were fitted in, widened to 25 % because a
 * calibration in another window moves the prediction by up to 15 % (the host's memory
 * bandwidth moves); MoE (~330 M held out) decode of q8_0 +75 %. Session 33 (AMD EPYC Zen 3, three
 * windows, each with its own calibrations) measured -26.6 % (850m_q4_0 decode, a window whose
 * one-thread calibration read 8.2 GB/s while llama.cpp read about 10; -23 % with the refitted
 * idec): 0.30. */
#define CPU_ERROR_BAND_DENSE 0.30
#define CPU_ERROR_BAND_MOE 0.80
/* More than one thread: the same benchmark at 2 threads (factors fitted at one thread, calibrated
 * at two, spinning barrier per node, decode stretched by CPU_DECODE_MT_FACTOR). On the Zen 5 VM
 * the factor was fitted on, held-out dense decode was -11 ... +11 % (+12 ... +41 % without it).
 * On session 29's AVX2 EPYC, with that factor (1.27), -17 ... -38 %: the band was that host's
 * largest held-out error, rounded up. Session 32 refitted the factor there (1.10, with the
 * quantized decode per int8 dot rate): held-out dense decode -14 ... -28 % over two measurement
 * windows and two calibrations. How the refit does on the Zen 5 VM is not measured, so the band
 * stays. MoE: one-thread runs of the same MoE moved by 1.6x between windows (docs/estimate.md),
 * so its band stays the one-thread one. */
#define CPU_ERROR_BAND_DENSE_MT 0.40
/* A CPU whose llama.cpp runs AMX kernels (tp_llm_host_repack() == AMX: ggml's sapphirerapids
 * variant or a native build) for the weight types they take, where the calibration could not run
 * AMX tiles (the OS refused them; amx_int8_gops 0). On session 19's host (AMX, 300 MiB L3;
 * bench/llm_speed.sh, one thread, fit-set models 20m_q4_0, 120m_q8_0 / q4_0 / f16), before the
 * AMX rates below, every rate was predicted below llama-bench: pp512 -47 ... -77 %, tg128 -22 ...
 * -64 %; held out -33 ... -72 %. Not a fit: the band says how far off the figure was there. */
#define CPU_ERROR_BAND_AMX 0.80

/* llama.cpp's AMX kernels (ggml-cpu/amx, read in its source) on a CPU whose calibration measured
 * AMX tiles (tp_device_model.amx_int8_gops > 0), for the matrices its AMX buffer takes (the
 * types of tp__llm_amx_type, ne[1] a multiple of 32, ne[0] of the type's alignment, not stacked
 * experts: the memory rule of src/import/gguf_layout.c):
 *   dec  decode (one row: AVX-512 VNNI dot products for the quantized types, AVX-512 for f16)
 *        weight elements per ns of arithmetic per G, as cpu_rates; its reads are the packed
 *        bytes (Q8_0 rows carry 4 bytes more per block), at the multi-stream read curve
 *        (tp_device_read_streams_gbps: its kernels read four weight tiles side by side)
 *   pp   prefill flops per ns: quantized types per amx_int8_gops (tiles per block of 32, the
 *        sums scaled with AVX-512), f16 per G (its AMX kernel is AVX-512 floating point).
 * Fitted on session 20's host (AMX-INT8, AVX512-FP16, 2 MiB L2 per core, 300 MiB L3), the fit set
 * of bench/llm_speed.sh (20 M, 120 M, 400 M, one thread), llama.cpp's sapphirerapids variant;
 * docs/estimate.md, "Session 20". Other types borrow by bits per weight, as cpu_rates.
 * Fit (2026-11-27, 23:10-23:45 UTC): each factor scaled until its type's fit-set predicted /
 * measured ratio (geometric mean) was 1, predictions the mean over four calibrations taken in
 * the window, measurements the geometric mean of two or three llama-bench runs 15 minutes apart
 * (the host's speed moved 1.5x within minutes: one calibration's reference kernel read 62 and
 * 121 GFLOP/s at its two ends). Held out (850 M dense, 330 M MoE), the same way: pp / tg 850m_f16
 * -20 / -33 %, 850m_q4_0 -16 / +6 %, 850m_q8_0 +2 / +4 %, moe_q4_0 -22 / +6 %, moe_q8_0 -4 / -1 %
 * (before, without AMX rates: -33 ... -72 %). */
#define AMX_DEC_F16 0.117
#define AMX_PP_F16 0.492
#define AMX_DEC_Q8_0 1.38
#define AMX_PP_Q8_0 0.592
#define AMX_DEC_Q4_0 1.13
#define AMX_PP_Q4_0 0.534
/* Dense: what one calibration gives. The figures above average four calibrations; each alone
   put the held-out dense figures at -42 ... +61 % (the AMX tiles' rate read 195-550 GOP/s over
   the session on this host, llama-bench's prefill moved far less), so the band is 0.60. MoE: the
   CPU band (its expert tensors are not AMX's: the fit-set MoE was -21 ... -38 %). */
#define AMX_ERROR_BAND_DENSE 0.60
#define AMX_ERROR_BAND_MOE 0.80

typedef struct amx_rate {
    tp_dtype type;
    double dec, pp;
} amx_rate;

static const amx_rate amx_rates[] = {
    {TP_DTYPE_F16, AMX_DEC_F16, AMX_PP_F16},
    {TP_DTYPE_Q8_0, AMX_DEC_Q8_0, AMX_PP_Q8_0},
    {TP_DTYPE_Q4_0, AMX_DEC_Q4_0, AMX_PP_Q4_0},
};

/* Decode with more than one thread: llama.cpp's decode step gains less from the second thread
 * than the calibration's reads and GEMM do. The step's arithmetic and reads are stretched by this
 * factor: the geometric mean of predicted / measured over the fit set's 13 decode figures at 2
 * threads is 1 with it. Session 9 fitted 1.27 on the Zen 5 VM (reads and GEMM gained 1.9-2.0x
 * there, llama.cpp 1.5-1.75x), with the decode arithmetic of every type priced per f32 GEMM.
 * Session 32 prices the quantized types' arithmetic per int8 dot rate (idec) and refitted the
 * factor on its host (AMD EPYC Zen 3, AVX2; bench/llm_speed.sh --threads 1,2, 2026-11-29 11:22
 * UTC, every other job stopped): 1.10 (1.00 without the 20 M models, whose one-thread decode is
 * already 20-46 % over). Held out there: -9 ... -28 % at 2 threads (the same measurements with
 * 1.27 and the f32 GEMM pricing: -28 ... -41 %).
 * docs/estimate.md, "Session 32". Validated at 2 threads only, and relative to a measured
 * calibration: catalog CPUs keep their spec-sheet figures.
 * Session 33 measured a second window on the same host and fitted the factor on the ratio of
 * the two thread counts (predicted 2t/1t over measured 2t/1t, which cancels what the one-thread
 * step gets wrong): 0.98 over both windows' fit sets, against 1.27 on the Zen 5 VM. The factor
 * stretches the T-thread calibration's reads, whose gain from a second thread differs by host
 * (1.9-2.0x there, 1.34-1.78x here by window, 256 MiB), while llama.cpp's own gain differs less
 * (1.5-1.75x there, 1.64-2.08x on the 850 M models here; fitted over the fit set, 1.65): so
 * with a one-thread calibration at hand the step is priced from it
 * (CPU_DECODE_THREAD_GAIN); the factor serves only callers that give none
 * (tp_llm_speed_options.one_thread). */
#define CPU_DECODE_MT_FACTOR 1.10
#define CPU_ERROR_BAND_MOE_MT 0.80
/* llama.cpp's decode step with T threads on a CPU is its one-thread step (priced by a one-thread
 * calibration of the same host) divided by this gain per doubling of the threads: the geometric
 * mean of measured (2t / 1t) over predicted (one-thread step / gain) is 1 on the fit set of
 * bench/llm_speed.sh (20 M, 120 M, 400 M dense, 40 M MoE; 26 decode figures over two windows
 * on session 33's host, an AMD EPYC Zen 3 with AVX2: session 32's 11:22 UTC measurements and
 * session 33's of 14:38-14:58 UTC, each with its own calibrations; bench/llm_thread_gain.py):
 * 1.67 (1.65 on the dense models of 120 M and more). Session 9 measured llama.cpp's gain at
 * 1.5-1.75x on the Zen 5 VM (docs/estimate.md, "Session 9"). Held out (850 M dense, 330 M MoE),
 * 2 threads, stretch 1.10 -> this rule: the 11:22 window -17.0, -27.1, -16.1, -14.4, -8.0 % ->
 * -5.1, -18.4, -6.0, -9.2, +3.0 %; the 14:38 window -26.1, -32.7, -32.1, -19.3, -18.4 % -> -24.0,
 * -29.9, -29.3, -12.8, -15.0 % (that window's one-thread calibration read 8.2 GB/s while llama.cpp
 * read about 10: its one-thread figures were -4.5, -26.6, -24.6, -5.1, -4.1 %, and the two-thread
 * ones follow them). A third window, measured after the choice (15:05-15:14 UTC, held-out models
 * only): -18, -30, -30, -11, -12 % -> -6, -20, -19, +1, +2 %; with the refitted idec above,
 * -6, -13, -17, +8, +5 % (the other windows: -13 ... +5 % and -28 ... -8 %). Measured at 2
 * threads only; more threads extrapolate the gain per doubling, no faster than the T-thread
 * calibration's reads.
 * docs/estimate.md, "Session 33". */
#define CPU_DECODE_THREAD_GAIN 1.65
/* The largest held-out dense error at 2 threads with the rule above, rounded up: -29.9 % with
   session 32's idec, -28.0 % with session 33's. */
#define CPU_ERROR_BAND_DENSE_GAIN 0.30

/* A quantized type that no table lists borrows the rate of the benchmarked type nearest in bits
   per weight: 8-bit-ish blocks like q8_0, smaller ones like q4_0. */
static bool eight_bit_like(tp_dtype t) {
    const tp_dtype_info *di = tp_dtype_get(t);
    return !di || di->block_elems == 0 ||
           8.0 * (double)di->block_bytes / (double)di->block_elems > 6.0;
}

static bool quantized(tp_dtype t) {
    const tp_dtype_info *di = tp_dtype_get(t);
    return di && di->block_elems > 1;
}

static const type_rate *rate_for(tp_dtype t, bool *borrowed) {
    size_t n = sizeof cpu_rates / sizeof cpu_rates[0];
    *borrowed = false;
    for (size_t i = 0; i < n; i++)
        if (cpu_rates[i].type == t) return &cpu_rates[i];
    *borrowed = true;
    if (t == TP_DTYPE_BF16) return &cpu_rates[1];
    if (quantized(t)) return eight_bit_like(t) ? &cpu_rates[2] : &cpu_rates[3];
    return &cpu_rates[0];
}

static const amx_rate *amx_rate_for(tp_dtype t) {
    size_t n = sizeof amx_rates / sizeof amx_rates[0];
    for (size_t i = 0; i < n; i++)
        if (amx_rates[i].type == t) return &amx_rates[i];
    return eight_bit_like(t) ? &amx_rates[1] : &amx_rates[2];
}

void tp_llm_speed_options_default(tp_llm_speed_options *o) {
    memset(o, 0, sizeof *o);
    o->n_prompt = 512;
    o->n_gen = 128;
    o->n_ubatch = 512;
    o->type_k = o->type_v = TP_DTYPE_F16;
}

/* One matrix of the model as the forward pass uses it. */
typedef struct mat_use {
    double elements;  /* weight elements multiplied per token */
    double bytes;     /* weight bytes read per decode token */
    double all_bytes; /* bytes read per prefill ubatch */
    double k;         /* inner dimension (ne0) */
    double n;         /* output rows per token (elements / k) */
    bool output;      /* the output layer: one token in prefill */
    bool expert;      /* an MoE expert tensor (*_exps): each token runs only its experts */
    bool amx;         /* in llama.cpp's AMX buffer (amx_mark) */
    tp_dtype type;
    const tp_weight_entry *e; /* the registry's entry */
} mat_use;

static bool is_matrix(const tp_weight_entry *w) {
    return w->kind != TP_WEIGHT_TIED_ALIAS && w->rank >= 2 && w->dims[0] > 1 && w->dims[1] > 1;
}

/* The fraction of a tensor a token reads: experts used / experts for *_exps. */
static double token_fraction(const tp_llm_config *c, const char *name) {
    if (strstr(name, "_exps") && c->n_expert > 0 && c->n_expert_used > 0)
        return (double)c->n_expert_used / (double)c->n_expert;
    return 1.0;
}

static double kv_row_bytes(const tp_llm_config *c, const tp_llm_speed_options *o, uint64_t il) {
    uint64_t heads = il < TP_LLM_MAX_LAYERS ? c->layer_head_kv[il] : c->n_head_kv;
    const tp_dtype_info *k = tp_dtype_get(o->type_k), *v = tp_dtype_get(o->type_v);
    double kb = k ? (double)k->block_bytes / (double)k->block_elems : 2.0;
    double vb = v ? (double)v->block_bytes / (double)v->block_elems : 2.0;
    return (double)heads * ((double)c->head_dim_k * kb + (double)c->head_dim_v * vb);
}

static double pad_cells(double cells) {
    return ceil(cells / KV_PAD) * KV_PAD;
}

/* The f32 GEMM rate of large shapes: the device curve's upper envelope at its end, as
   tp_device_gemm_gflops reads it (a dip at the largest calibrated shape is the calibration
   kernel's blocking or a shared core, not the device). */
static double large_gemm(const tp_device_model *d) {
    return tp_device_gemm_gflops(d, TP_DTYPE_F32, 1u << 14, 1u << 14, 1u << 14);
}

static bool is_gpu(const tp_device_model *d) {
    return d->kind != TP_DEVICE_CPU;
}

/* Matrix i of the registry as the forward pass uses it; false for tensors
 * that are not read as matrices (norms, biases, the embedding lookup). */
static bool mat_get(const tp_llm_config *c, const tp_registry *w, bool tied, uint32_t i,
                    mat_use *u) {
    const tp_weight_entry *e = tp_registry_entry(w, i);
    if (!e || !is_matrix(e)) return false;
    bool embd = strcmp(e->name, "token_embd.weight") == 0;
    if (embd && !tied) return false; /* a row lookup: one row per token */
    double el = 1;
    for (int32_t r = 0; r < e->rank; r++)
        el *= (double)e->dims[r];
    double frac = token_fraction(c, e->name);
    u->elements = el * frac;
    u->bytes = (double)e->bytes * frac;
    u->all_bytes = (double)e->bytes;
    u->k = (double)e->dims[0];
    u->n = u->elements / u->k;
    u->output = embd || strcmp(e->name, "output.weight") == 0;
    u->expert = frac < 1.0;
    u->type = e->dtype;
    u->e = e;
    return true;
}

/* Whether llama.cpp runs its AMX kernels on device d: a CPU calibrated with AMX tiles, and the
   AMX variant not ruled out by o->repack. */
static bool amx_runs(const tp_device_model *d, const tp_llm_speed_options *o) {
    return !is_gpu(d) && d->amx_int8_gops > 0 &&
           (o->repack == TP_LLM_REPACK_AUTO || o->repack == TP_LLM_REPACK_AMX);
}

/* Whether llama.cpp's AMX buffer takes matrix u on device d (see amx_rates); then u's bytes
   become the packed ones. */
static void amx_mark(const tp_device_model *d, const tp_llm_speed_options *o, mat_use *u) {
    uint64_t align = 0, extra = 0;
    u->amx = false;
    if (!amx_runs(d, o) || u->expert || !tp__llm_amx_type(u->type, &align, &extra)) return;
    if (fmod(u->n, 32.0) != 0 || align == 0 || fmod(u->k, (double)align) != 0) return;
    const tp_dtype_info *di = tp_dtype_get(u->type);
    if (!di || di->block_elems == 0) return;
    u->amx = true;
    double blocks = u->elements / (double)di->block_elems;
    u->bytes += blocks * (double)extra;
    u->all_bytes += blocks * (double)extra;
}

typedef struct mat_set {
    const tp_llm_config *c;
    const tp_registry *w;
    bool tied; /* no output.weight: the embedding is the output layer */
} mat_set;

/* The dominant matrix type (most bytes); false when there is no matrix. */
static bool dominant_type(const mat_set *ms, tp_dtype *out) {
    double by_type[TP_DTYPE_COUNT] = {0};
    bool any = false;
    mat_use u;
    for (uint32_t i = 0; i < tp_registry_count(ms->w); i++)
        if (mat_get(ms->c, ms->w, ms->tied, i, &u) && (unsigned)u.type < TP_DTYPE_COUNT) {
            by_type[u.type] += u.all_bytes;
            any = true;
        }
    tp_dtype best = TP_DTYPE_F32;
    for (int t = 0; t < TP_DTYPE_COUNT; t++)
        if (by_type[t] > by_type[best]) best = (tp_dtype)t;
    *out = best;
    return any;
}

/* Weight elements per ns of a decode matrix-vector product's arithmetic: the quantized types'
   per the calibrated int8 dot rate where it was measured (two operations per element), else
   per the f32 GEMM; amx: a matrix in llama.cpp's AMX buffer (amx_mark). */
static double decode_rate(const tp_device_model *d, tp_dtype t, bool amx) {
    if (amx) return amx_rate_for(t)->dec * large_gemm(d);
    bool borrowed;
    const type_rate *r = rate_for(t, &borrowed);
    if (r->idec > 0 && d->int8_dot_gops > 0) return r->idec * d->int8_dot_gops / 2;
    return r->dec * large_gemm(d);
}

typedef struct speed_ctx {
    const tp_llm_config *c;
    const tp_device_model *d;
    const tp_llm_speed_options *o;
    const tp_device_model *one; /* o->one_thread where it prices d's decode (one_thread_of) */
    tp_llm_repack rule;         /* the CPU repack rule that runs (cpu_rule) */
    double node_ns;             /* one graph node */
    double call_ns;             /* one llama_decode call */
    double nodes;               /* per forward */
} speed_ctx;

/* What one decode token reads and computes on device d. */
typedef struct step_terms {
    double wbytes, kv, set; /* weight and KV bytes read; the working set they come from */
    double mem, kernel;     /* their read time and the weights' arithmetic, ns */
    double attn;            /* flash attention over the cells, ns */
} step_terms;

static void step_on(const speed_ctx *x, const mat_set *ms, const tp_device_model *d, double cells,
                    step_terms *st) {
    const tp_llm_config *c = x->c;
    double wbytes = 0, amx_bytes = 0, set_bytes = 0, kernel = 0, kv = 0, attn_el = 0;
    mat_use m;
    for (uint32_t i = 0; i < tp_registry_count(ms->w); i++) {
        if (!mat_get(c, ms->w, ms->tied, i, &m)) continue;
        amx_mark(d, x->o, &m);
        wbytes += m.bytes;
        if (m.amx) amx_bytes += m.bytes;
        set_bytes += m.all_bytes;
        if (!is_gpu(d)) {
            kernel += m.elements / decode_rate(d, m.type, m.amx);
        }
    }
    double attended = pad_cells(cells);
    for (uint64_t il = 0; il < c->n_layer; il++) {
        kv += attended * kv_row_bytes(c, x->o, il);
        /* flash attention visits the used cells only (the mask skips the padding) */
        attn_el += cells * (double)c->n_head * (double)(c->head_dim_k + c->head_dim_v);
    }
    st->attn = 0;
    if (!is_gpu(d)) {
        double scores = cells * (double)c->n_head * (double)c->n_layer;
        st->attn = scores / (CPU_FA_DECODE_SCORE * large_gemm(d)) +
                   attn_el / (CPU_FA_DECODE_ELEM * large_gemm(d)) +
                   scores * cells * CPU_FA_DECODE_CELL / large_gemm(d);
    }
    /* the bytes one token reads (weights and KV) at the bandwidth of the working set they come
       from: every matrix, experts included. An MoE token reads only its experts, but the next
       token's router picks others, so over a generation every expert passes through the caches
       (llama-bench's tokens are random): the active bytes are no cache-resident set. The
       matrices of llama.cpp's AMX buffer are read as its AMX kernels read them, several weight
       tiles side by side (the multi-stream curve); the others row after row (one stream). */
    double set = set_bytes + kv;
    st->wbytes = wbytes;
    st->kv = kv;
    st->set = set;
    st->mem = (wbytes - amx_bytes + kv) / tp_device_read_gbps(d, set) +
              amx_bytes / tp_device_read_streams_gbps(d, set);
    st->kernel = kernel;
}

/* A CPU calibrated here with more than one thread: its decode step is priced from a one-thread
   calibration (CPU_DECODE_THREAD_GAIN) or stretched (CPU_DECODE_MT_FACTOR). */
static bool measured_threads(const tp_device_model *d) {
    return !is_gpu(d) && d->threads > 1 && d->source == TP_SOURCE_MEASURED;
}

/* o->one_thread where it can price device d's decode step (d: measured_threads; it: a valid
   measured one-thread CPU model), else NULL. */
static const tp_device_model *one_thread_of(const tp_device_model *d,
                                            const tp_llm_speed_options *o) {
    const tp_device_model *one = o->one_thread;
    bool ok = one && measured_threads(d) && one->kind == TP_DEVICE_CPU &&
              one->source == TP_SOURCE_MEASURED && one->threads <= 1 &&
              tp_device_model_validate(one, NULL) == TP_OK;
    return ok ? one : NULL;
}

/* Decode one token at `cells` context: fills the decode fields of s. */
static void decode_token(const speed_ctx *x, const mat_set *ms, double cells, tp_llm_speed *s,
                         double *ns) {
    const tp_device_model *d = x->d;
    step_terms st;
    step_on(x, ms, d, cells, &st);
    double mem = st.mem, kernel = st.kernel, attn = st.attn;
    if (x->one) {
        /* the one-thread step over llama.cpp's gain from the threads, no faster than the
           device's own reads of the same bytes */
        step_terms one;
        step_on(x, ms, x->one, cells, &one);
        double g = pow(CPU_DECODE_THREAD_GAIN, log2((double)d->threads));
        mem = one.mem / g;
        kernel = one.kernel / g;
        if (mem + kernel < st.mem) {
            mem = st.mem;
            kernel = 0;
        }
        /* flash attention splits the cells between the threads, each on its own share (FA_THREADS)
         */
        attn = one.attn / (double)d->threads;
    } else if (measured_threads(d)) {
        mem *= CPU_DECODE_MT_FACTOR;
        kernel *= CPU_DECODE_MT_FACTOR;
    }
    kernel += attn;
    double over = x->nodes * x->node_ns + x->call_ns;
    s->decode_weight_bytes = (uint64_t)st.wbytes;
    s->decode_kv_bytes = (uint64_t)st.kv;
    s->decode_working_set_bytes = (uint64_t)st.set;
    s->decode_memory_ns = mem;
    s->decode_kernel_ns = kernel;
    s->decode_attn_ns = attn;
    s->decode_overhead_ns = over;
    /* a CPU thread's arithmetic and its waits on memory add up (fit: docs/estimate.md); a GPU
       hides one behind the other */
    double body = is_gpu(d) ? (mem > kernel ? mem : kernel) : mem + kernel;
    s->decode_bound = over > body ? "overhead" : mem >= kernel ? "memory" : "kernel";
    *ns = body + over;
}

/* GEMM throughput for a weight type at an m×k by k×n shape; amx: a matrix in llama.cpp's AMX
   buffer (amx_mark). */
static double gemm_rate(const tp_device_model *d, tp_dtype t, bool amx, double m, double k,
                        double n) {
    uint64_t mm = m < 1 ? 1 : (uint64_t)m, kk = k < 1 ? 1 : (uint64_t)k,
             nn = n < 1 ? 1 : (uint64_t)n;
    if (is_gpu(d)) /* llama.cpp's GPU backends run large batches on f16 tensor paths */
        return tp_device_gemm_gflops(d, TP_DTYPE_F16, mm, kk, nn);
    if (amx) {
        const amx_rate *a = amx_rate_for(t);
        return t == TP_DTYPE_F16 ? a->pp * large_gemm(d) : a->pp * d->amx_int8_gops;
    }
    bool borrowed;
    const type_rate *r = rate_for(t, &borrowed);
    if (r->ipp > 0 && d->int8_dot_gops > 0) return r->ipp * d->int8_dot_gops;
    return large_gemm(d) * r->pp;
}

/* The CPU repack rule of llama.cpp on device d: o->repack, AUTO resolved to this host's rule for
   a CPU measured here; NONE (not known) for a catalog CPU and for GPUs. */
static tp_llm_repack cpu_rule(const tp_device_model *d, const tp_llm_speed_options *o) {
    if (is_gpu(d)) return TP_LLM_REPACK_NONE;
    if (o->repack != TP_LLM_REPACK_AUTO) return o->repack;
    return d->source == TP_SOURCE_MEASURED ? tp_llm_host_repack() : TP_LLM_REPACK_NONE;
}

/* Whether llama.cpp multiplies MoE expert matrix m by tokens one at a time with its decode kernel
   (a repacked type's MUL_MAT_ID: ggml-cpu/repack.cpp runs one gemv per routed token over the
   expert's rows, read, not copied), rather than by blocks of tokens (CPU_MOE_PREFILL). */
static bool expert_gemv(const speed_ctx *x, const mat_use *m) {
    return x->c->n_expert > 0 && m->e->rank >= 2 &&
           tp__llm_repacked(x->rule, m->e->name, m->type, (uint32_t)m->e->rank,
                            (uint64_t)m->e->dims[1]);
}

/* One ubatch of t tokens after `past` tokens. */
static void prefill_ubatch(const speed_ctx *x, const mat_set *ms, double t, double past,
                           tp_llm_speed *s) {
    const tp_llm_config *c = x->c;
    const tp_device_model *d = x->d;
    double gemm = 0, flops = 0, bytes = 0;
    mat_use m;
    for (uint32_t i = 0; i < tp_registry_count(ms->w); i++) {
        if (!mat_get(c, ms->w, ms->tied, i, &m)) continue;
        amx_mark(d, x->o, &m);
        double tok = m.output ? 1 : t;
        /* MoE: every token runs its used experts; a ubatch reads every expert */
        double f = 2.0 * m.elements * tok;
        flops += f;
        bytes += m.all_bytes;
        if (m.expert && expert_gemv(x, &m)) {
            /* each routed token: the decode kernel over its expert, whose rows are read again
               for every token, from the cache level that holds one expert */
            double one = m.all_bytes / (double)c->n_expert;
            gemm += tok *
                    (m.elements / decode_rate(d, m.type, false) +
                     m.bytes / tp_device_read_gbps(d, one)) /
                    CPU_MOE_GEMV;
            continue;
        }
        double rate = gemm_rate(d, m.type, m.amx, tok, m.k, m.n);
        if (m.expert && x->one) /* blocks from L1, each thread its own: T x one thread's rate */
            rate = gemm_rate(x->one, m.type, m.amx, tok, m.k, m.n) * (double)d->threads;
        if (m.expert && !is_gpu(d)) rate *= CPU_MOE_PREFILL;
        gemm += f / rate;
    }
    /* causal attention: query i attends past + i + 1 cells, in every layer */
    double pairs = t * past + t * (t + 1) / 2;
    double attn_el =
        pairs * (double)c->n_head * (double)(c->head_dim_k + c->head_dim_v) * (double)c->n_layer;
    double attn;
    if (is_gpu(d))
        attn = 2 * attn_el /
               tp_device_gemm_gflops(d, TP_DTYPE_F16, (uint64_t)t, c->head_dim_k,
                                     (uint64_t)(past + t));
    else { /* llama.cpp's tiled flash attention: per score, and per element of K and V; with a
              one-thread calibration, T threads at T times its rate (FA_THREADS) */
        double g = x->one ? large_gemm(x->one) * (double)d->threads : large_gemm(d);
        attn = pairs * (double)c->n_head * (double)c->n_layer / (CPU_FA_PREFILL_SCORE * g) +
               attn_el / (CPU_FA_PREFILL_ELEM * g);
    }
    flops += 2 * attn_el;
    double mem = bytes / d->mem_gbps;
    double over = x->nodes * x->node_ns + x->call_ns;
    s->prefill_flops += flops;
    s->prefill_gemm_ns += gemm > mem ? gemm : mem;
    s->prefill_attn_ns += attn;
    s->prefill_overhead_ns += over;
    s->prefill_bound = over > gemm + attn ? "overhead" : mem > gemm ? "memory" : "compute";
}

/* Whether any expert matrix of the model is multiplied per routed token (expert_gemv). */
static bool any_expert_gemv(const speed_ctx *x, const mat_set *ms) {
    mat_use m;
    for (uint32_t i = 0; i < tp_registry_count(ms->w); i++)
        if (mat_get(x->c, ms->w, ms->tied, i, &m) && m.expert && expert_gemv(x, &m)) return true;
    return false;
}

/* gain: the decode was priced from a one-thread calibration (speed_ctx.one); gemv: an MoE's
   experts are multiplied per routed token (any_expert_gemv) */
static void describe(const tp_llm_config *c, const tp_device_model *d,
                     const tp_llm_speed_options *o, bool gain, bool gemv, tp_dtype t,
                     tp_llm_speed *s) {
    s->source = d->source;
    if (is_gpu(d)) {
        snprintf(s->kernel, sizeof s->kernel,
                 "%s: decode at memory bandwidth, prefill at the f16 tensor rate (not compared "
                 "with llama.cpp)",
                 tp_device_kind_name(d->kind));
        snprintf(s->basis, sizeof s->basis, "%s %.32s: %.0f GB/s, f16 GEMM %.0f GFLOP/s",
                 tp_model_source_name(d->source), d->name, d->mem_gbps,
                 tp_device_gemm_gflops(d, TP_DTYPE_F16, 4096, 4096, 4096));
        s->error_band = 0;
        snprintf(s->error_source, sizeof s->error_source,
                 "unknown: no llama.cpp run on this device");
        return;
    }
    bool borrowed;
    const type_rate *r = rate_for(t, &borrowed);
    bool amx = amx_runs(d, o) && tp__llm_amx_type(t, NULL, NULL);
    if (amx) {
        const amx_rate *a = amx_rate_for(t);
        if (t == TP_DTYPE_F16)
            snprintf(s->kernel, sizeof s->kernel,
                     "llama.cpp cpu AMX-buffer f16 kernel (AVX-512): decode %.3f, prefill %.3f x "
                     "f32 GEMM (fitted on one AMX host)",
                     a->dec, a->pp);
        else
            snprintf(s->kernel, sizeof s->kernel,
                     "llama.cpp cpu AMX %s kernel%s%s: decode %.3f x f32 GEMM, prefill %.3f x "
                     "AMX int8 tiles %.1f GOP/s (fitted on one AMX host)",
                     tp_dtype_name(t), a->type != t ? " as " : "",
                     a->type != t ? tp_dtype_name(a->type) : "", a->dec, a->pp, d->amx_int8_gops);
    } else if (r->ipp > 0 && r->idec > 0 && d->int8_dot_gops > 0)
        snprintf(s->kernel, sizeof s->kernel,
                 "llama.cpp cpu %s kernel%s%s: decode %.3f, prefill %.2f x int8 dot %.1f GOP/s "
                 "(fitted)",
                 tp_dtype_name(t), borrowed ? " as " : "", borrowed ? tp_dtype_name(r->type) : "",
                 r->idec, r->ipp, d->int8_dot_gops);
    else
        snprintf(s->kernel, sizeof s->kernel,
                 "llama.cpp cpu %s kernel%s%s: decode %.3f, prefill %.2f x f32 GEMM (fitted)",
                 tp_dtype_name(t), borrowed ? " as " : "", borrowed ? tp_dtype_name(r->type) : "",
                 r->dec, r->pp);
    if (gemv) {
        size_t n = strlen(s->kernel);
        snprintf(s->kernel + n, sizeof s->kernel - n,
                 "; repacked MoE experts: decode kernel per token");
    }
    snprintf(s->basis, sizeof s->basis,
             "%s %.24s, %u thread(s): f32 GEMM %.1f GFLOP/s (%.32s), %.1f GB/s",
             tp_model_source_name(d->source), d->name, d->threads ? d->threads : 1, large_gemm(d),
             d->gemm_impl, d->mem_gbps);
    if (gain) { /* the decode's basis: the one-thread calibration */
        size_t n = strlen(s->basis);
        snprintf(s->basis + n, sizeof s->basis - n, "; decode: 1-thread step / %.2f a doubling",
                 CPU_DECODE_THREAD_GAIN);
    }
    bool moe = c->n_expert > 0 && c->expert_tensor_bytes > 0;
    bool mt = d->threads > 1;
    s->error_band = moe ? (mt ? CPU_ERROR_BAND_MOE_MT : CPU_ERROR_BAND_MOE)
                        : (mt ? (gain ? CPU_ERROR_BAND_DENSE_GAIN : CPU_ERROR_BAND_DENSE_MT)
                              : CPU_ERROR_BAND_DENSE);
    snprintf(s->error_source, sizeof s->error_source,
             "largest error on held-out %s models vs llama-bench -t %d, bench/llm_speed.sh",
             moe ? "MoE" : "dense", mt ? 2 : 1);
    if (amx) { /* the held-out error on the one AMX host the rates were fitted on */
        s->error_band = moe ? AMX_ERROR_BAND_MOE : AMX_ERROR_BAND_DENSE;
        if (mt && s->error_band < CPU_ERROR_BAND_DENSE_MT) s->error_band = CPU_ERROR_BAND_DENSE_MT;
        snprintf(s->error_source, sizeof s->error_source,
                 "largest error on held-out %s models vs llama-bench -t 1 with its AMX kernels, "
                 "one AMX host (bench/llm_speed.sh)%s",
                 moe ? "MoE" : "dense", mt ? "; more threads not measured with AMX" : "");
        return;
    }
    /* a measured CPU is this host: where its llama.cpp runs AMX kernels for this type but the
       calibration could not run AMX tiles (the OS refused them), the band is what the benchmark
       measured there before the AMX rates */
    if (d->source == TP_SOURCE_MEASURED && tp__llm_amx_type(t, NULL, NULL) &&
        tp_llm_host_repack() == TP_LLM_REPACK_AMX &&
        (o->repack == TP_LLM_REPACK_AUTO || o->repack == TP_LLM_REPACK_AMX)) {
        if (s->error_band < CPU_ERROR_BAND_AMX) s->error_band = CPU_ERROR_BAND_AMX;
        snprintf(s->error_source, sizeof s->error_source,
                 "this CPU has AMX: llama.cpp's AMX kernels are not calibrated; llama-bench ran "
                 "1.3-4.4x faster than predicted on such a host (bench/llm_speed.sh)");
    }
}

tp_status tp_llm_speed_predict(const tp_llm_config *c, const tp_registry *weights,
                               const tp_device_model *d, const tp_llm_speed_options *o,
                               tp_llm_speed *out, tp_error *err) {
    if (!c || !weights || !d || !out)
        return tp_error_set(err, TP_ERR_INVALID, "tp_llm_speed_predict: NULL argument");
    memset(out, 0, sizeof *out);
    tp_status st = tp_device_model_validate(d, err);
    if (st != TP_OK) return st;
    if (c->n_layer == 0 || c->n_head == 0 || c->head_dim_k == 0)
        return tp_error_set(err, TP_ERR_INVALID, "the model has %llu layers, %llu heads",
                            (unsigned long long)c->n_layer, (unsigned long long)c->n_head);
    tp_llm_speed_options def;
    if (!o) {
        tp_llm_speed_options_default(&def);
        o = &def;
    }
    if (!tp_dtype_is_valid(o->type_k) || !tp_dtype_is_valid(o->type_v))
        return tp_error_set(err, TP_ERR_INVALID, "invalid KV cache type");
    mat_set ms = {c, weights, tp_registry_find(weights, "output.weight") == NULL};
    if (!dominant_type(&ms, &out->weight_type))
        return tp_error_set(err, TP_ERR_INVALID, "the model has no weight matrices to read");

    speed_ctx x = {.c = c, .d = d, .o = o, .one = one_thread_of(d, o), .rule = cpu_rule(d, o)};
    x.nodes = NODES_PER_LAYER * (double)c->n_layer + NODES_OUTPUT;
    if (is_gpu(d)) {
        x.node_ns = d->dispatch_ns;
        x.call_ns = d->round_trip_ns;
    } else {
        double meet = d->barrier_ns > 0 ? d->barrier_ns : d->dispatch_ns;
        x.node_ns = CPU_NODE_NS + (d->threads > 1 ? meet : 0);
        x.call_ns = CPU_CALL_NS;
    }
    if (o->n_gen) {
        double mean_cells = (double)o->n_depth + ((double)o->n_gen + 1) / 2;
        double tok_ns;
        decode_token(&x, &ms, mean_cells, out, &tok_ns);
        out->decode_ns = tok_ns * (double)o->n_gen;
        out->decode_tps = (double)o->n_gen / out->decode_ns * 1e9;
    }
    if (o->n_prompt) {
        double ub = o->n_ubatch ? (double)o->n_ubatch : 512;
        out->prefill_bound = "compute";
        for (double done = 0; done < (double)o->n_prompt; done += ub) {
            double t = (double)o->n_prompt - done < ub ? (double)o->n_prompt - done : ub;
            prefill_ubatch(&x, &ms, t, (double)o->n_depth + done, out);
        }
        out->prefill_ns = out->prefill_gemm_ns + out->prefill_attn_ns + out->prefill_overhead_ns;
        out->prefill_tps = (double)o->n_prompt / out->prefill_ns * 1e9;
    }
    describe(c, d, o, x.one != NULL, any_expert_gemv(&x, &ms), out->weight_type, out);
    if (o->n_depth > 0 && !is_gpu(d) && out->error_band < CPU_ERROR_BAND_DEPTH) {
        out->error_band = CPU_ERROR_BAND_DEPTH;
        snprintf(out->error_source, sizeof out->error_source,
                 "largest error at depth vs llama-bench -d 2048 / 8192, bench/llm_depth.py");
    }
    if (!(out->decode_ns >= 0) || !(out->prefill_ns >= 0) || !isfinite(out->decode_ns) ||
        !isfinite(out->prefill_ns))
        return tp_error_set(err, TP_ERR_OVERFLOW, "throughput prediction is not finite");
    return TP_OK;
}
