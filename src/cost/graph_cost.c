/* Graph cost prediction: per-node roofline + dispatch, graph total (roofline: Williams, Waterman &
 * Patterson, CACM 2009). */
#include "tensorplan/cost.h"

#include <math.h>
#include <string.h>

#include "core/mem.h"
#include "cost/fusion.h"
#include "cost/gemm_rate.h"
#include "cost/layout_copies.h"
#include "cost/qdq_cost.h"
#include "ortgraph/ort_qdq.h"
#include "ortgraph/ort_xform.h"

/* onnxruntime's NCHWc channel block: 16 floats on a CPU with AVX-512, else 8 (MLAS picks it by
   the CPU's vector width, whichever GEMM our calibration chose) */
static uint64_t nchwc_block(const tp_device_model *d) {
    return d->kind == TP_DEVICE_CPU && d->vector_floats >= 16 ? 16 : 8;
}

/* Whether onnxruntime runs this convolution in its NCHWc layout (tp_ort_conv_converts, the rule
   the memory profile's layout emulation uses too): the channels and groups of each kernel kind
   as tp_op_account lays them out (dense: gemm_n filters; grouped: gemm_batch groups of gemm_m;
   depthwise: gemm_batch = gemm_n channels). */
static bool nchwc_conv(const tp_device_model *d, const tp_op_cost *oc) {
    /* a half-precision convolution too: the CPU provider computes it in float32 (its Casts
       around it; tp_ort_computes_f32), as an NCHWc Conv when the channels allow */
    tp_dtype t = oc->compute_dtype;
    if (d->kind != TP_DEVICE_CPU || oc->spatial_rank == 0 ||
        (t != TP_DTYPE_F32 && t != TP_DTYPE_F16 && t != TP_DTYPE_BF16))
        return false;
    uint64_t groups = 1, cout = oc->gemm_n;
    if (oc->kernel == TP_KERNEL_GROUPED) {
        groups = oc->gemm_batch;
        cout = tp_sat_mul_u64(oc->gemm_m, oc->gemm_batch);
    } else if (oc->kernel == TP_KERNEL_DEPTHWISE) {
        groups = oc->gemm_batch;
    } else if (oc->kernel != TP_KERNEL_GENERIC) {
        return false;
    }
    return tp_ort_conv_converts(oc->spatial_rank, groups, tp_sat_mul_u64(oc->conv_cin, groups),
                                cout, (uint32_t)nchwc_block(d));
}

/* The channels a convolution in NCHWc computes beyond the model's: MLAS works on whole blocks,
   so onnxruntime pads the filters to a multiple of the block (nchwc_transformer.cc; its
   optimized graphs read [32, 96, 3, 3] for 24 filters) and a blocked input to one too (40 input
   channels are read as 48, zeros included); a dense convolution with fewer input channels than
   the block reads them unpadded (NCHW). A depthwise one's channels are padded the same way (its
   blocked tensor's; its time not probed). A grouped one converts only with whole blocks per
   group. Probes (docs/cost.md, "Session 24"): 3×3 96 -> 24 took 96 -> 32's time (22.11 against
   22.27 ms for four), 40 -> 64 and 36 -> 64 took 48 -> 64's. `in_nchwc`: nchwc_conv's answer,
   which eval takes once per node for the helpers below. Writes the padded output and input
   channels of one group (*n_out, *k_in: gemm_n and gemm_k as padded) and returns the ratio of
   the padded work to the model's; 1 when the convolution does not run in NCHWc. */
static double nchwc_padding(const tp_device_model *d, const tp_op_cost *oc, bool in_nchwc,
                            uint64_t *n_out, uint64_t *k_in) {
    *n_out = oc->gemm_n;
    *k_in = oc->gemm_k;
    if (!in_nchwc || oc->kernel == TP_KERNEL_GROUPED || oc->gemm_n == 0) return 1.0;
    uint64_t b = nchwc_block(d), c = oc->gemm_n;
    uint64_t cp = tp_sat_mul_u64((c + b - 1) / b, b);
    *n_out = cp;
    double ratio = (double)cp / (double)c;
    uint64_t cin = oc->conv_cin;
    if (oc->kernel == TP_KERNEL_GENERIC && cin >= b && oc->gemm_k % cin == 0) {
        uint64_t area = oc->gemm_k / cin, cinp = tp_sat_mul_u64((cin + b - 1) / b, b);
        *k_in = tp_sat_mul_u64(cinp, area);
        ratio *= (double)cinp / (double)cin;
    }
    return ratio;
}

/* MLAS's NCHWc convolution kernels compute the filter blocks of a dense convolution in sets of
   up to four (FilterCount), six output pixels at a time: one accumulator per block and pixel.
   A set of one block has six accumulators, too few to hide the multiply-add's latency
   (SconvKernelAvx512F.S): the shape of MLAS's NCHWc depthwise kernel (independent accumulators
   per output pixel, a filter vector in a register; six there, four in the calibration's replica),
   whose rate the calibration measures (dwconv_gflops, one thread's; the dense kernel splits
   among the threads).
   That set runs at the lower of the GEMM curve's rate and that one. Probes (docs/cost.md,
   "Session 24"; bench/accuracy/probe_set.sh nchwc): at one thread a set of one block ran at 92-96
   GFLOP/s in a fast and in a slow window of this host, where sets of four ran at 165 and 103 and
   the calibration measured the depthwise kernel at 99; sets of two and three ran at 0.79-0.99 of
   the four-block rate (twelve chains or more: no latency bound). Returns the factor on the
   convolution's time at the curve's rate `gf` for its `n_out` filters (padded) in sets of four,
   the last set the remainder; 1 without a set of one block, without a measured depthwise rate,
   or on a CPU whose block is not AVX-512's 16 floats (not measured on an 8-float block). */
static double nchwc_filter_sets(const tp_device_model *d, const tp_op_cost *oc, bool in_nchwc,
                                uint64_t n_out, double gf) {
    uint64_t b = nchwc_block(d);
    if (b != 16 || oc->kernel != TP_KERNEL_GENERIC || !in_nchwc || n_out < b ||
        !(d->dwconv_gflops > 0) || !(gf > 0))
        return 1.0;
    uint64_t blocks = n_out / b;
    double one_set = d->dwconv_gflops * (double)(d->threads ? d->threads : 1);
    if (blocks % 4 != 1 || one_set >= gf) return 1.0;
    return ((double)(blocks - 1) + gf / one_set) / (double)blocks;
}

/* Bytes of one element of the node's GEMM operands; 4 (f32) for a dtype without a whole size. */
static uint64_t operand_bytes(const tp_op_cost *oc) {
    uint64_t esz = 0;
    if (tp_dtype_bytes(oc->compute_dtype, 1, &esz, NULL) != TP_OK || esz == 0) esz = 4;
    return esz;
}

/* A copy of `bytes` (read and written at the memory curve): MLAS's SGEMM packing a B it was not
   given packed into its panels (a direct convolution's input, a matmul's run-time B). */
static double copy_ns(const tp_device_model *d, double bytes) {
    return 2 * bytes / tp_device_mem_gbps(d, (uint64_t)(2 * bytes));
}

/* The passes before the GEMM of a convolution that MLAS's generic convolution runs (not NCHWc).
   Every one but a 1×1, stride-1, unpadded one (which multiplies the input directly) expands its
   patches (convolve.cpp), and the GEMM packs them: for every group (gemm_batch), its input
   channels × taps (gemm_k) × the output pixels. x86 has no plain depthwise kernel, so a depthwise
   one not in NCHWc does the same, channel by channel. Priced at the calibrated rate of both
   (im2col_gbps; docs/cost.md, "The expand pass"), without one a pass at the memory curve. The
   direct one's GEMM still packs its B, the input (MLAS's SGEMM copies a B it was not given
   packed into panels): a copy, read and written, at the memory curve (docs/cost.md, "A direct
   convolution's GEMM packs its input"). 0 for anything else. */
static double im2col_ns(const tp_device_model *d, const tp_op_cost *oc, bool in_nchwc) {
    if (d->kind != TP_DEVICE_CPU || in_nchwc || oc->spatial_rank == 0 || oc->direct_quant) return 0;
    double pixels = (double)(oc->kernel == TP_KERNEL_GROUPED ? oc->gemm_n : oc->gemm_m);
    uint64_t esz = operand_bytes(oc);
    double bytes = (double)oc->gemm_batch * (double)oc->gemm_k * pixels * (double)esz;
    if (!oc->conv_expands) {
        if (oc->kernel != TP_KERNEL_GENERIC && oc->kernel != TP_KERNEL_GROUPED) return 0;
        return copy_ns(d, bytes);
    }
    double gbps = d->im2col_gbps > 0 ? d->im2col_gbps : tp_device_mem_gbps(d, (uint64_t)bytes);
    return bytes / gbps;
}

/* The copy of B into panels that MLAS's SGEMM makes on every run of a matmul whose B is computed
   at run time (tp_op_cost.pack_b_elems: attention's Q·Kᵀ and its probabilities times V): read and
   written, at the memory curve, as a direct convolution's pack of its input (docs/cost.md,
   "MatMuls of two activations pack B"). 0 for other nodes and non-CPU devices. */
static double pack_b_ns(const tp_device_model *d, const tp_op_cost *oc) {
    if (d->kind != TP_DEVICE_CPU || oc->pack_b_elems == 0) return 0;
    return copy_ns(d, (double)oc->pack_b_elems * (double)operand_bytes(oc));
}

/* The runtime's walk over the groups of a grouped or depthwise convolution on its generic path
   (MLAS, not NCHWc): one im2col and one small GEMM call per group, whose fixed cost
   (runtime_group_ns, calibrated) dwarfs the arithmetic of a short 1-D depthwise convolution
   (docs/cost.md, "Session 17"). 0 for a dense or an NCHWc convolution, a non-CPU device.
   Measured at batch 1: MLAS walks images × groups, and gemm_batch counts the groups only, so a
   batch of N is priced one walk instead of N (under). */
static double group_walk_ns(const tp_device_model *d, const tp_op_cost *oc, bool in_nchwc) {
    if (d->kind != TP_DEVICE_CPU || !(d->runtime_group_ns > 0) || oc->spatial_rank == 0 ||
        (oc->kernel != TP_KERNEL_GROUPED && oc->kernel != TP_KERNEL_DEPTHWISE) ||
        oc->gemm_batch < 2 || in_nchwc || oc->direct_quant)
        return 0;
    return (double)oc->gemm_batch * d->runtime_group_ns;
}

/* What a transposed convolution does after its GEMM, as onnxruntime's ConvTranspose runs it
   (conv_transpose.cc, math_cpu.cc Col2im; read): it zeroes the output, adds every element of the
   column buffer into its output pixel, then adds the bias per channel, all on the calling thread
   (probes: the col2im time did not fall at two threads; docs/cost.md, "Transposed
   convolutions"). The columns are added one element at a time, at the calibrated col2im rate,
   unless the loop runs along rows (tp_op_cost.col2im_rows: a vectorised pass over the columns,
   priced as their read at the memory curve, the pixels they add into staying in the caches: a
   channel's image; probe k3s1_32 took 0.20 ms beyond its GEMM, priced 0.13 ms so, 0.39 if its
   pixels were read and written again per column element); the zeroing writes the output, the
   bias reads and writes it,
   both at the memory curve. Without a col2im rate the element-at-a-time pass is priced as the
   rows one. 0 for other nodes and non-CPU devices. */
static double col2im_ns(const tp_device_model *d, const tp_op_cost *oc) {
    if (oc->col2im_elems == 0 || d->kind != TP_DEVICE_CPU) return 0;
    uint64_t esz = operand_bytes(oc);
    double cols = (double)oc->col2im_elems * (double)esz, out = (double)oc->bytes_written;
    double pass = oc->col2im_rows || !(d->col2im_gbps > 0)
                      ? cols / tp_device_mem_gbps(d, (uint64_t)cols)
                      : cols / d->col2im_gbps;
    double stream = tp_device_mem_gbps(d, oc->bytes_written);
    return pass + out / stream + (oc->col2im_bias ? 2.0 * out / stream : 0);
}

/* The walk of a transpose as onnxruntime's CPU Transpose runs it (transpose.cc, read), on the
   calling thread at any thread count: its steps (tp_op_cost.transpose_steps) at the calibrated
   walk's rate, a step per 4-byte element there (calib_transpose.h). A walk one element at a time
   copies the data as it walks: its stream is in the walk's rate, and eval() drops it. 0 without a
   walk, a walk rate (catalog, default, an older cache) or on a non-CPU device. */
static double transpose_walk_ns(const tp_device_model *d, const tp_op_cost *oc) {
    if (oc->transpose_steps == 0 || d->kind != TP_DEVICE_CPU || !(d->transpose_gbps > 0)) return 0;
    return (double)oc->transpose_steps * (double)sizeof(float) / d->transpose_gbps;
}

/* The calibrated rate of a memory-class kernel that is not a stream, 0 for a stream (or a rate
   not measured): a node takes the slower of its stream and this rate. Resize: interpolation;
   row normalizations: a chain of dependent sums per row; onnxruntime's erf GELU kernels: an erf
   polynomial per element (BiasGelu: three passes and a scratch tensor; without its rate, an
   older cache's, the Gelu's); SkipLayerNormalization: a running mean, element after element
   (without its rate, the row normalization's); PRelu: one element at a time with a branch. */
static double kernel_rate(const tp_device_model *d, tp_cost_kernel k) {
    switch (k) {
    case TP_KERNEL_RESIZE:
        return d->resize_gbps;
    case TP_KERNEL_ROWNORM:
        return d->norm_gbps;
    case TP_KERNEL_GELU:
        return d->gelu_gbps;
    case TP_KERNEL_BIAS_GELU:
        return d->bias_gelu_gbps > 0 ? d->bias_gelu_gbps : d->gelu_gbps;
    case TP_KERNEL_SKIP_NORM:
        return d->skip_norm_gbps > 0 ? d->skip_norm_gbps : d->norm_gbps;
    case TP_KERNEL_PRELU:
        return d->prelu_gbps;
    default:
        return 0;
    }
}

/* A depthwise output pixel at the left or right edge (its window in the padding) costs one
   channel as much as 108 flops at the calibrated rate, six interior 3×3 pixels: onnxruntime's
   NCHWc depthwise kernel computes the edges on a slower path. Measured on synthetic chains of
   depthwise convolutions (3×3, 5×5, 7×7 at 7-56 pixels, one thread; docs/cost.md, session 8):
   about 22 ns per edge pixel and block of 16 channels whatever the filter size, against 3.4 ns
   for an interior 3×3 one; 7×7 maps at 3×3 ran at 29 GFLOP/s against 62 at 56×56. */
#define DW_BORDER_FLOPS 108.0

/* onnxruntime's MLAS runs a GEMM (and a convolution's) on more than one thread once it has this
   many multiply-adds per thread (MLAS_SGEMM_THREAD_COMPLEXITY, 64 Ki): almost every GEMM node
   is handed to the pool. */
#define MLAS_GEMM_THREAD_MACS 65536.0

/* A GEMM node that onnxruntime hands to its pool although it is too small to gain from a second
   thread: the calling thread pays a wake-up of a sleeping pool thread (wake_ns, calibrated), then
   does the work itself before the woken thread arrives. Per-node profiles of the fitting models
   at 2 threads (docs/cost.md, "Waking the pool"): convolutions and matmuls under 100 us took
   0.81 t1 + 15.8 us, elementwise kernels (which onnxruntime's cost model keeps on the calling
   thread when small) 1.17 t1 + 7.5 us. */
static bool wakes_pool(const tp_device_model *d, const tp_op_cost *oc) {
    double macs =
        (double)oc->gemm_batch * (double)oc->gemm_m * (double)oc->gemm_k * (double)oc->gemm_n;
    return d->kind == TP_DEVICE_CPU && d->source == TP_SOURCE_MEASURED && d->wake_ns > 0 &&
           oc->cls == TP_COST_GEMM && macs >= MLAS_GEMM_THREAD_MACS;
}

/* A measured CPU at one thread: onnxruntime creates no intra-op pool (OrtThreadPoolParams: a
   pool size of 1 creates none) and runs every node and parallel-for on the calling thread. */
static bool one_measured_thread(const tp_device_model *d) {
    return d->kind == TP_DEVICE_CPU && d->threads == 1 && d->source == TP_SOURCE_MEASURED;
}

/* A measured CPU with a pool of several threads and the figures the recurrent rule needs. */
static bool measured_pool(const tp_device_model *d) {
    return d->kind == TP_DEVICE_CPU && d->threads > 1 && d->source == TP_SOURCE_MEASURED &&
           d->runtime_node_ns > 0 && d->cache_gbps > 0 && d->wake_ns > 0;
}

/* The rate at which one of a measured pool's threads reads its share of a weight read again and
   again: its part of the pool's cached-pass rate (the triad's over the pool, cache_gbps, divided
   by the threads) while the share fits the triad's working set; from the read curve's first point
   on, the thread's part of the curve's bandwidth; in between, a log-linear step from one to the
   other. Sessions 18-26 took the pool's cached-pass rate as one thread's (on the session-18 host
   the triad's ~10 us pass at two threads was no faster than at one); on this host it is 1.8x one
   thread's, and recurrent models at two threads were priced 38-58 % under (docs/cost.md,
   "Recurrent steps at one thread", its "Two threads"). The one-thread rule reads R at the memory
   curve's rate of its size. */
static double thread_share_gbps(const tp_device_model *d, double share) {
    double t = (double)d->threads, c = d->cache_gbps / t, cb = (double)d->cache_bytes;
    if (share <= cb || d->n_read == 0) return c;
    double first = d->read[0].bytes, r0 = tp_device_read_gbps(d, first) / t;
    if (share >= first) return tp_device_read_gbps(d, share) / t;
    if (!(first > cb) || !(r0 < c)) return r0 < c ? r0 : c;
    return c + log(share / cb) / log(first / cb) * (r0 - c);
}

/* The fixed cost of one step of a recurrent node on a measured CPU: onnxruntime's LSTM and GRU
   kernels walk their steps inside one node, each step a small MLAS GEMM call on the calling
   thread and the gates' loops, the same kind of call as a group of the generic convolution walk
   (runtime_group_ns) and no executor step (runtime_node_ns). Step probes (session 19: a GRU or
   LSTM of hidden 8-32, R at most 16 KiB, over 100 and 400 steps; docs/cost.md "Session 19"):
   0.21-0.26 us a step at one and two threads while onnxruntime's node cost 0.65 us and the
   calibration's step about 46 ns, about 4.5-5.5 steps; charging a node per step priced them
   2.5-4x slow. A model without runtime_group_ns keeps the node's cost. */
static double recurrent_step_fixed_ns(const tp_device_model *d) {
    return d->runtime_group_ns > 0 ? d->runtime_group_ns : d->runtime_node_ns;
}

/* The rate at which a measured CPU reads a weight again at every step, given its cached-pass rate
   `cached` for a working set of `bytes`: MLAS's kernel reads a recurrent step's packed R with
   full-width vector loads, which the multi-stream read curve measures (calibrate_read.c), so where
   that curve at the working set (at least at its first point: a weight that fits a cache is read
   at least as fast as the curve's first working set) is faster, its rate. The cache triad (3 x
   256 KiB) and the one-stream curve (8-byte words) understate it where the triad overflows a small
   L2 and scalar loads cannot fill a cache's bandwidth (session 29, an AMD EPYC with 512 KiB of L2 a
   core: onnxruntime read a 4 MiB R at 38 GB/s or more and a 256 KiB one at 34 or more, a step's
   whole time counted as the read, against the triad's 28.5 and the one-stream curve's 24 at 4 MiB;
   docs/cost.md, "Session 29"). Where the curves agree (session 20's host: multi-stream 19-23 GB/s
   at 4 MiB, one-stream 16-23) the cached-pass rate stays. An R larger than the caches (none
   measured) is read at the multi-stream curve's memory rate. Without that curve: `cached`. */
static double reread_gbps(const tp_device_model *d, double cached, double bytes) {
    if (d->n_read_streams == 0) return cached;
    double at = bytes > d->read_streams[0].bytes ? bytes : d->read_streams[0].bytes;
    double vec = tp_device_read_streams_gbps(d, at);
    return vec > cached ? vec : cached;
}

/* A recurrent node (TP_KERNEL_RECURRENT): the input projection of every step as one GEMM, then
   its steps one after another. A step is a roofline: the hidden state (gemm_m rows) by R at the
   rate of few activation rows against a weight (the arithmetic), or reading R (gemm_k × gemm_n,
   which every step reads again) at the read bandwidth of a working set of R's size, whichever
   takes longer; plus the gates' activations at the same arithmetic rate. */
static double recurrent_ns(const tp_device_model *d, const tp_op_cost *oc) {
    uint64_t esz = operand_bytes(oc);
    double proj_gf =
        tp_device_gemm_gflops(d, oc->compute_dtype, oc->rec_proj_m, oc->rec_input, oc->gemm_n);
    double m = (double)oc->gemm_m, k = (double)oc->gemm_k, n = (double)oc->gemm_n;
    double step_flops = 2.0 * m * k * n;
    double r_bytes = k * n * (double)esz;
    bool one = one_measured_thread(d) && d->runtime_node_ns > 0 && d->cache_gbps > 0;
    bool pool = measured_pool(d);
    /* where a step pays a small kernel call (one of the measured rules below, with
       runtime_group_ns), the arithmetic runs at the rate of all steps' rows as one product: the
       call's own overhead, which the square curve's small points hold (a 16³ product: ~1 us a
       call), is that fixed cost; a step's few rows against R are bound by the read of R, below */
    bool call = (one || pool) && d->runtime_group_ns > 0;
    uint64_t all_rows = tp_sat_mul_u64(oc->gemm_m, oc->gemm_batch > 0 ? oc->gemm_batch : 1);
    double rows_gf = tp__gemm_rows_gflops(d, oc->compute_dtype, call ? all_rows : oc->gemm_m,
                                          oc->gemm_k, oc->gemm_n);
    double step_ns = step_flops / rows_gf;
    double read_ns = r_bytes / tp_device_read_gbps(d, r_bytes);
    if (one) {
        /* one thread of a measured CPU: R, read again at every step, stays in the caches while
           it fits them; onnxruntime's step reads it at the cached-pass rate of R's size (the
           triad's up to cache_bytes, 768 KiB here, then the memory curve) and pays a step's
           fixed cost (recurrent_step_fixed_ns): LSTM/GRU probes of H 32-256, docs/cost.md
           "Session 17" (which read the fixed part as a node's, 0.42 us against a 0.49 us node;
           session 19's probes of H 8-32 measured it directly). Sessions 17-26 stepped down to
           the curve's first point (4 MiB) at once past cache_bytes, as the session-17 host (1
           MiB of L2 a core) read an LSTM of H 256's 1 MiB R at 24 GB/s; this host (2 MiB of L2)
           reads it at 65 GB/s, and R of 1.8-2.4 MB at 35-42 (docs/cost.md, "Recurrent steps at
           one thread"). Since session 29 at the multi-stream curve's rate where that is faster
           (reread_gbps). */
        double rate = reread_gbps(d, tp_device_mem_gbps(d, (uint64_t)r_bytes), r_bytes);
        read_ns = recurrent_step_fixed_ns(d) + r_bytes / rate;
    } else if (pool) {
        /* several threads of a measured CPU: MLAS splits a step's GEMM over the pool when it is
           large enough (MLAS_GEMM_THREAD_MACS, as for any GEMM), each thread then reading its
           share of R at its part of the pool's cached-pass rate (thread_share_gbps) while it
           fits, and the step pays a pool thread's wake-up and the caller's after the join (2
           wake_ns) besides its fixed cost. A smaller step runs on the calling thread and reads
           all of R at that rate (or at its part of the multi-stream curve, where faster:
           reread_gbps). LSTM/GRU probes of H
           64-512 at 2 threads: onnxruntime gains from H 256 on, loses ~5 us a step on a split
           LSTM of H 128, docs/cost.md "Session 18". */
        bool split = m * k * n >= MLAS_GEMM_THREAD_MACS;
        double share = split ? r_bytes / (double)d->threads : r_bytes;
        /* the pool's rates at the pool's working set, a thread's part of them */
        double t = (double)d->threads;
        double rate = reread_gbps(d, thread_share_gbps(d, share) * t, share * t) / t;
        read_ns = recurrent_step_fixed_ns(d) + share / rate + (split ? 2.0 * d->wake_ns : 0);
    }
    if (read_ns > step_ns) step_ns = read_ns;
    double steps = (double)oc->gemm_batch;
    double rest = (double)oc->flops - (double)oc->rec_proj_flops - steps * step_flops;
    double gate_ns = rest > 0 ? rest / rows_gf : 0;
    return (double)oc->rec_proj_flops / proj_gf + steps * step_ns + gate_ns;
}

/* A global average pooling that onnxruntime runs in plain NCHW (its input is not in the NCHWc
   layout; a blocked one runs MLAS's NCHWc pooling, 16 channels to a vector): a sum along each
   channel's pixels, one add after another, like a normalization's row statistics, so it is priced
   at the calibrated row-normalization rate (norm_gbps) rather than as a stream. Probe
   probe_gapmul (docs/cost.md, "Session 15"): GlobalAveragePool of [1, 88, 3, 96] then a Mul by
   it, 40 us per block against 8 for the Mul alone, at the host speed of a norm rate of about
   2.9 GB/s (33 us for its 101 KB). `blocked`: tp__layout_copies's. */
static bool plain_global_avg(const tp_graph *g, tp_node_id id, const uint8_t *blocked) {
    const tp_node *n = tp_graph_node(g, id);
    return n && blocked && n->op.kind == TP_OP_POOL && n->op.sub == TP_POOL_GLOBAL_AVG &&
           n->n_inputs > 0 && n->inputs[0] >= 0 && !blocked[n->inputs[0]];
}

/* A nearest resize by integer scales (attrs.resize.int_nearest: asymmetric coordinates and
   nearest_mode floor from opset 11) that onnxruntime runs as a copy, priced as a stream rather
   than at the calibrated (bilinear) resize rate: in the NCHWc layout (its Upsample copies each
   pixel's channel block) and, in plain NCHW, its 2× kernel (upsample: scales 1, 1, 2, 2; the
   generic nearest kernel, other scales or modes, computes an input index per output element).
   Probes (docs/cost.md, "Session 24"): 2× of [1, 96, 80, 60] 0.67 ms plain and 0.68 ms NCHWc at
   one thread (8.8 MiB: a stream), against 3.6-4.1 ms with half_pixel or round_prefer_floor.
   `blocked`: tp__layout_copies's. */
static bool copying_resize(const tp_graph *g, tp_node_id id, const uint8_t *blocked) {
    const tp_node *n = tp_graph_node(g, id);
    if (!n || n->op.kind != TP_OP_RESIZE || !n->op.attrs.resize.int_nearest) return false;
    if (blocked && blocked[id]) return true;
    const double *sc = n->op.attrs.resize.scales;
    return n->shape.rank == 4 && sc[0] == 1.0 && sc[1] == 1.0 && sc[2] == 2.0 && sc[3] == 2.0;
}

/* A GEMM whose first operand holds denormals: a microcode assist per vector multiply-add that
   broadcasts one (each element meets ceil(n / lanes) of them), the threads sharing the rows
   (docs/cost.md, "Denormal attention masks"). */
static double denormal_ns(const tp_device_model *d, const tp_op_cost *oc) {
    if (oc->denormal_elems == 0 || !(d->denormal_ns > 0)) return 0;
    uint64_t lanes = d->vector_floats ? d->vector_floats : 8;
    double vectors = (double)((oc->gemm_n + lanes - 1) / lanes);
    return (double)oc->denormal_elems * vectors * d->denormal_ns /
           (double)(d->threads ? d->threads : 1);
}

/* A Softmax whose masked scores underflow exp(): onnxruntime's exp kernel takes microcode assists
   on the vectors of them (more where it writes denormals than where it ends at zero) and on
   every row that holds some (its sums); the counts were fitted, in units of the calibrated
   assist (denormal_ns), to onnxruntime's causal Softmaxes of 8 to 512 scores a row and checked
   on models kept out of the fit; the threads share the rows (docs/cost.md, "Masked Softmax"). */
#define EXP_UNDERFLOW_ASSISTS 1.3 /* per vector: -1e4, the float minimum, -inf */
#define EXP_DENORMAL_ASSISTS 3.3  /* per vector: a fill in exp's denormal band (-100) */
#define EXP_ROW_ASSISTS 2.5       /* per row holding masked scores */

static double underflow_ns(const tp_device_model *d, const tp_op_cost *oc) {
    if (oc->underflow_elems == 0 || !(d->denormal_ns > 0)) return 0;
    double lanes = d->vector_floats ? (double)d->vector_floats : 8;
    double per_vector = oc->exp_denormal ? EXP_DENORMAL_ASSISTS : EXP_UNDERFLOW_ASSISTS;
    double assists = (double)oc->underflow_elems / lanes * per_vector +
                     (double)oc->underflow_rows * EXP_ROW_ASSISTS;
    return assists * d->denormal_ns / (double)(d->threads ? d->threads : 1);
}

/* A layer normalization that onnxruntime runs as SkipLayerNormalization (fusion.h): its kernel
   reads the residual Add's two addends where the normalization alone read their sum, and is
   priced at the calibrated rate of that kernel (skip_norm_gbps; docs/cost.md,
   "SkipLayerNormalization"). */
static tp_status skip_norm(const tp_graph *g, tp_node_id id, tp_op_cost *oc, tp_error *err) {
    uint64_t addend = 0;
    tp_status s = tp_graph_node_bytes(g, tp_graph_node(g, id)->inputs[0], &addend, err);
    if (s != TP_OK) return s;
    oc->kernel = TP_KERNEL_SKIP_NORM;
    oc->bytes_read = tp_sat_add_u64(oc->bytes_read, addend);
    return TP_OK;
}

/* `stream_share`: the share of the weights that a run reads from memory (tp__weight_stream_share
   of the run's weight set); a GEMM adds that share of its weight bytes at gemm_stream_gbps. */
static tp_node_cost eval(const tp_device_model *d, tp_node_id id, const tp_op_cost *oc,
                         double stream_share) {
    tp_node_cost nc;
    memset(&nc, 0, sizeof nc);
    nc.node = id;
    nc.cls = oc->cls;
    nc.flops = oc->flops;
    nc.bytes = tp_sat_add_u64(oc->bytes_read, oc->bytes_written);
    if (oc->cls == TP_COST_METADATA || oc->launches == 0) return nc;
    /* a convolution onnxruntime runs in its NCHWc layout (decided once for the helpers below) */
    bool in_nchwc = oc->cls == TP_COST_GEMM && nchwc_conv(d, oc);
    /* a calibrated CPU's depthwise rate is one thread's (calib_ops.h): onnxruntime's NCHWc
       depthwise kernel gains nothing from more threads, yet still forks them */
    bool one_thread = false;
    if (oc->cls == TP_COST_GEMM && oc->flops > 0) {
        uint64_t m = oc->gemm_m, k, n;
        double padded = nchwc_padding(d, oc, in_nchwc, &n, &k);
        if (oc->kernel == TP_KERNEL_GROUPED && in_nchwc) {
            /* grouped in NCHWc: a dense convolution's shape (pixels × k × all filters) */
            m = oc->gemm_n;
            n = tp_sat_mul_u64(oc->gemm_m, oc->gemm_batch);
        }
        /* A measured weight stream prices a few-row matmul as arithmetic at the square
           curve's rate plus the stream of its weights (docs/cost.md, "Weights streamed from
           memory"); without it, the skinny curve stands in for both. Convolutions keep the
           skinny curve for few filters or input channels. */
        bool stream = d->gemm_stream_gbps > 0;
        double gf = stream && oc->activation_rows
                        ? tp__gemm_rows_gflops(d, oc->compute_dtype, m, k, n)
                        : tp_device_gemm_gflops(d, oc->compute_dtype, m, k, n);
        padded *= nchwc_filter_sets(d, oc, in_nchwc, n, gf);
        if (oc->kernel == TP_KERNEL_RECURRENT) {
            nc.compute_ns = recurrent_ns(d, oc);
            stream = false; /* R is read at every step: in recurrent_ns */
        } else {
            /* a depthwise convolution is no GEMM: its calibrated rate (docs/cost.md, "Op
               classes") */
            double border_flops = 0;
            if (oc->kernel == TP_KERNEL_DEPTHWISE && d->dwconv_gflops > 0) {
                gf = d->dwconv_gflops;
                /* onnxruntime's NCHWc depthwise kernel: the calibration's one-thread rate */
                one_thread = d->source == TP_SOURCE_MEASURED && in_nchwc;
                border_flops = (double)oc->border_pixels * (double)oc->gemm_n * DW_BORDER_FLOPS;
            }
            /* GFLOP/s = flops per ns; NCHWc computes its padded channels too */
            nc.compute_ns = ((double)oc->flops + border_flops) * padded / gf;
            /* onnxruntime's NCHWc kernel skips the taps in the padding; the expand-then-GEMM
               path multiplies the zeros its im2col wrote (MlasConvIm2Col, read) */
            if (in_nchwc && oc->tap_share > 0 && oc->tap_share < 1) nc.compute_ns *= oc->tap_share;
        }
        nc.compute_ns += im2col_ns(d, oc, in_nchwc) + denormal_ns(d, oc) + pack_b_ns(d, oc);
        if (stream && oc->weight_bytes > 0 && stream_share > 0)
            nc.compute_ns += (double)oc->weight_bytes * stream_share / d->gemm_stream_gbps;
    }
    nc.memory_ns = (double)nc.bytes / tp_device_mem_gbps(d, nc.bytes); /* GB/s = bytes per ns */
    bool serial = false; /* on the calling thread alone, without the pool */
    if (oc->kernel == TP_KERNEL_SELECT && oc->select_bytes > 0 && d->kind == TP_DEVICE_CPU &&
        d->source == TP_SOURCE_MEASURED) {
        /* onnxruntime's Where: three passes, none of them split among the threads; one thread's
           share of the calibrated bandwidth, as a node too small to split */
        nc.memory_ns = (double)oc->select_bytes / tp_device_mem_gbps(d, oc->select_bytes) *
                       (double)(d->threads ? d->threads : 1);
        serial = true;
    }
    double rate = kernel_rate(d, oc->kernel);
    if (rate > 0 && (double)nc.bytes / rate > nc.memory_ns) nc.memory_ns = (double)nc.bytes / rate;
    nc.memory_ns += underflow_ns(d, oc);
    double walk = oc->cls == TP_COST_GEMM ? 0 : transpose_walk_ns(d, oc);
    if (oc->transpose_by_element && walk > 0)
        nc.memory_ns = 0; /* the walk copies the elements: on the calling thread, below */
    double body = nc.compute_ns > nc.memory_ns ? nc.compute_ns : nc.memory_ns;
    /* one measured thread: no fork/join to charge; the per-node cost is runtime_node_ns
       (catalog and default models carry none, and keep dispatch_ns as their per-kernel guess) */
    double fork = one_measured_thread(d) || serial ? 0 : d->dispatch_ns;
    double wake = wakes_pool(d, oc) ? d->wake_ns : 0;
    if (d->threads > 1 && !one_thread && !serial &&
        body * (double)d->threads + wake < body + fork) {
        /* too small to split: the runtime runs it on the calling thread (no fork/join), at
           about one thread's share of the calibrated multi-thread throughput, after waking a
           pool thread for nothing when it hands GEMMs of this size to its pool */
        body *= (double)d->threads;
        fork = wake;
        if (nc.compute_ns > 0) nc.compute_ns *= (double)d->threads;
        nc.memory_ns *= (double)d->threads;
    }
    /* the group walk, a transposed convolution's col2im and a transpose's walk run on the
       calling thread at any thread count: after the split */
    double on_caller =
        oc->cls == TP_COST_GEMM ? group_walk_ns(d, oc, in_nchwc) + col2im_ns(d, oc) : walk;
    nc.compute_ns += on_caller;
    body += on_caller;
    nc.dispatch_ns = (fork + d->runtime_node_ns) * (double)oc->launches;
    nc.total_ns = body + nc.dispatch_ns;
    return nc;
}

tp_node_cost tp_node_cost_eval(const tp_device_model *d, tp_node_id id, const tp_op_cost *oc) {
    /* one node alone: its own weights are the run's weight set */
    return eval(d, id, oc, tp__weight_stream_share(d, (double)oc->weight_bytes));
}

static tp_status run(const tp_graph *g, const tp_device_model *d, const tp_io_options *io,
                     tp_graph_cost *c, tp_error *err) {
    tp_status s = tp_device_model_validate(d, err);
    if (s != TP_OK) return s;
    if ((s = tp_io_profile_compute(g, io, &c->io, err)) != TP_OK) return s;
    uint32_t count = tp_graph_node_count(g);
    uint8_t *fused = NULL, *blocked = NULL;
    tp_op_cost *ocs = NULL;
    /* onnxruntime's optimized graph (ort_xform.h), once: its fusions for the cost model's and, on
       a CPU, its NCHWc layout for the copies */
    tp_ort_xform x;
    if ((s = tp_ort_xform_compute(g, d->kind == TP_DEVICE_CPU ? (uint32_t)nchwc_block(d) : 0, &x,
                                  err)) != TP_OK)
        return s;
    if (count > 0) {
        fused = tp_mem_calloc(c->alloc, count, 1);
        ocs = tp_mem_calloc(c->alloc, count, sizeof *ocs);
        blocked = d->kind == TP_DEVICE_CPU ? tp_mem_calloc(c->alloc, count, 1) : NULL;
        if (!fused || !ocs || (d->kind == TP_DEVICE_CPU && !blocked)) {
            s = tp_error_set(err, TP_ERR_NOMEM, "graph cost: out of memory");
            goto done;
        }
        if ((s = tp_cost_fusion_mark(g, &x, fused, c->alloc, err)) != TP_OK) goto done;
    }
    /* onnxruntime's NCHWc layout copies (layout_copies.h): nodes its optimizer adds
       (ReorderInput / ReorderOutput), run like any other, so in the total (docs/cost.md,
       "Session 14": left out from session 11 on, when the block followed the GEMM's name and an
       OpenBLAS calibration priced AVX-512 CPUs with AVX2's block) */
    if (d->kind == TP_DEVICE_CPU) {
        tp_op_cost *copies;
        uint32_t n_copies;
        if ((s = tp__layout_copies(g, &x, &copies, &n_copies, blocked, err)) != TP_OK) goto done;
        for (uint32_t k = 0; k < n_copies; k++) {
            tp_node_cost nc = eval(d, -1, &copies[k], 0); /* no weights */
            c->layout_ns += nc.total_ns;
        }
        c->layout_copies = n_copies;
        tp__layout_copies_free(g, copies, n_copies);
    }
    /* every node accounted once; the run's weight set (each GEMM weight once per use) first */
    double weight_set = 0;
    for (uint32_t i = 0; i < count; i++) {
        if ((s = tp_op_account(g, (tp_node_id)i, &ocs[i], err)) != TP_OK) goto done;
        if (x.qdq[i] == TP_ORT_QDQ_TARGET && d->kind == TP_DEVICE_CPU &&
            (s = tp__qdq_operands(g, (tp_node_id)i, &ocs[i], err)) != TP_OK)
            goto done;
        if (plain_global_avg(g, (tp_node_id)i, blocked)) ocs[i].kernel = TP_KERNEL_ROWNORM;
        if (copying_resize(g, (tp_node_id)i, blocked)) ocs[i].kernel = TP_KERNEL_GENERIC;
        if (fused[i] == TP_FUSION_GELU)
            ocs[i].kernel =
                (x.stage[i] & TP_ORT_MADE_BIAS_GELU) ? TP_KERNEL_BIAS_GELU : TP_KERNEL_GELU;
        if (fused[i] == TP_FUSION_SKIP_NORM &&
            (s = skip_norm(g, (tp_node_id)i, &ocs[i], err)) != TP_OK)
            goto done;
        if (ocs[i].cls == TP_COST_GEMM) weight_set += (double)ocs[i].weight_bytes;
    }
    double share = tp__weight_stream_share(d, weight_set);
    for (uint32_t i = 0; i < count; i++) {
        tp_node_cost nc = eval(d, (tp_node_id)i, &ocs[i], share);
        if (fused[i] == TP_FUSION_ABSORBED && ocs[i].launches > 0) {
            /* the epilogue of its producer's kernel: no pass over memory, no launch */
            nc.compute_ns = nc.memory_ns = nc.dispatch_ns = nc.total_ns = 0;
            nc.fused = true;
            c->fused_nodes++;
        }
        c->nodes_ns += nc.total_ns;
        c->flops = tp_sat_add_u64(c->flops, nc.flops);
        c->bytes = tp_sat_add_u64(c->bytes, nc.bytes);
        if (c->nodes) c->nodes[i] = nc;
    }
done:
    tp_ort_xform_free(g, &x);
    tp_mem_free(c->alloc, ocs, (size_t)count * sizeof *ocs);
    tp_mem_free(c->alloc, fused, count);
    tp_mem_free(c->alloc, blocked, count);
    if (s != TP_OK) return s;
    /* A CPU that carries its runtime's per-run cost (a measured CPU: onnxruntime's session run as
       the probe times it, from the call to the outputs, hand-offs included) runs the graph in
       the calling process: no device to reach and come back from, so no round trip on top (it
       was the calibration's two-thread ping-pong, 25-28 us in this VM, charged twice) */
    bool in_process = d->kind == TP_DEVICE_CPU && d->runtime_run_ns > 0;
    c->round_trip_ns = (in_process ? 0 : d->round_trip_ns) + d->runtime_run_ns;
    c->readback_ns = (double)tp_io_host_readback_bytes(&c->io, d->unified) / d->readback_gbps;
    c->sync_ns = (double)c->io.sync_points * d->round_trip_ns;
    c->total_ns = c->round_trip_ns + c->nodes_ns + c->layout_ns + c->readback_ns + c->sync_ns;
    return TP_OK;
}

tp_status tp_graph_cost_compute(const tp_graph *g, const tp_device_model *d,
                                const tp_io_options *io, const tp_allocator *alloc,
                                tp_graph_cost *out, tp_error *err) {
    if (!out) return tp_error_set(err, TP_ERR_INVALID, "graph cost: NULL result");
    memset(out, 0, sizeof *out);
    if (!g) return tp_error_set(err, TP_ERR_INVALID, "graph cost: NULL graph");
    tp_graph_cost c;
    memset(&c, 0, sizeof c);
    c.alloc = alloc;
    uint32_t count = tp_graph_node_count(g);
    if (count > 0) {
        c.nodes = tp_mem_calloc(alloc, count, sizeof *c.nodes);
        if (!c.nodes)
            return tp_error_set(err, TP_ERR_NOMEM, "graph cost: out of memory for %u node costs",
                                count);
        c.n_nodes = count;
    }
    tp_status s = run(g, d, io, &c, err);
    if (s != TP_OK) {
        tp_graph_cost_destroy(&c);
        return s;
    }
    *out = c;
    return TP_OK;
}

tp_status tp_graph_cost_total(const tp_graph *g, const tp_device_model *d, const tp_io_options *io,
                              double *total_ns, tp_error *err) {
    if (!g || !total_ns)
        return tp_error_set(err, TP_ERR_INVALID, "graph cost: NULL graph or result");
    tp_graph_cost c;
    memset(&c, 0, sizeof c);
    tp_status s = run(g, d, io, &c, err);
    if (s == TP_OK) *total_ns = c.total_ns;
    return s;
}

void tp_graph_cost_destroy(tp_graph_cost *c) {
    if (!c) return;
    if (c->nodes) tp_mem_free(c->alloc, c->nodes, (size_t)c->n_nodes * sizeof *c->nodes);
    c->nodes = NULL;
    c->n_nodes = 0;
}

uint32_t tp_graph_cost_top(const tp_graph_cost *c, uint32_t k, uint32_t *idx) {
    if (!c || !c->nodes || !idx) return 0;
    uint32_t got = 0;
    /* insertion into a sorted top-k list: O(n·k), k is small (a table's worth) */
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        double t = c->nodes[i].total_ns;
        if (t <= 0) continue;
        uint32_t pos = got;
        while (pos > 0 && c->nodes[idx[pos - 1]].total_ns < t)
            pos--;
        if (pos >= k) continue;
        uint32_t last = got < k ? got : k - 1;
        for (uint32_t j = last; j > pos; j--)
            idx[j] = idx[j - 1];
        idx[pos] = i;
        if (got < k) got++;
    }
    return got;
}
