/* GEMM rates of a device model that the graph cost needs apart from tp_device_gemm_gflops
 * (docs/cost.md, "Weights streamed from memory"). Internal to src/cost. Pure functions of the
 * model: thread-safe. */
#ifndef TP_COST_GEMM_RATE_H
#define TP_COST_GEMM_RATE_H

#include "tensorplan/cost.h"

/* GFLOP/s of an m×k by k×n product whose m rows are activations against a weight: the square
   curve's upper envelope, the skinny curve applied to a short reduction (k) only, not to few
   rows; times the dtype's speedup; 1.0 for a model without a GEMM curve. */
double tp__gemm_rows_gflops(const tp_device_model *d, tp_dtype dtype, uint64_t m, uint64_t k,
                            uint64_t n);

/* The share (0..1) of a run's weights, `weight_set_bytes` in all, that comes from memory
   rather than the caches, read off the read-bandwidth curve: 0 at or below its smallest
   working set, 1 at or beyond its largest, in between by the time per byte. 0 without a
   curve of at least two points. */
double tp__weight_stream_share(const tp_device_model *d, double weight_set_bytes);

#endif
