/*
 * tensorplan/tracker.h — run-time memory accounting.
 *
 * A tracker counts bytes a runtime allocates on a device and refuses
 * allocations that would exceed an optional limit. The limit check and the add
 * are ONE atomic step (a compare-and-swap loop), so racing threads can never
 * push the total past the limit; the peak is raised with a CAS-max and is
 * exact. Deallocating more than is allocated is an error, never a wrap.
 *
 * Example:
 *     tp_tracker *t; tp_error err;
 *     tp_tracker_create(NULL, 8ull << 30, &t, &err);          // 8 GiB limit
 *     if (tp_tracker_allocate(t, bytes, &err) == TP_ERR_OOM) puts(err.msg);
 *     ...
 *     tp_tracker_deallocate(t, bytes, &err);
 *     printf("peak %llu\n", (unsigned long long)tp_tracker_peak_bytes(t));
 *     tp_tracker_destroy(t);
 *
 * Ownership: the tracker is an opaque object created with an optional
 * allocator; tp_tracker_destroy(NULL) is a no-op.
 * Thread safety: every tp_tracker_* function except create/destroy may be
 * called from any number of threads at once (C11 atomics, lock-free). The
 * helpers tp_tensor_bytes / tp_attention_bytes are pure.
 */
#ifndef TENSORPLAN_TRACKER_H
#define TENSORPLAN_TRACKER_H

#include "tensorplan/core.h"
#include "tensorplan/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_TRACKER_DEFAULT_OVERHEAD 1.1

typedef struct tp_tracker tp_tracker;

/* Create a tracker with the given limit (0 = unlimited) and overhead factor
 * TP_TRACKER_DEFAULT_OVERHEAD. alloc may be NULL (libc). TP_ERR_NOMEM,
 * TP_ERR_INVALID (out == NULL). */
TP_API tp_status tp_tracker_create(const tp_allocator *alloc, uint64_t limit_bytes,
                                   tp_tracker **out, tp_error *err);
TP_API void tp_tracker_destroy(tp_tracker *t);

/* Account `bytes` more. TP_ERR_OOM when limit > 0 and allocated + bytes would
 * exceed it (message: requested, limit, current; nothing is added);
 * TP_ERR_OVERFLOW when the total would exceed 64 bits. On success the peak is
 * raised to the new total if higher. */
TP_API tp_status tp_tracker_allocate(tp_tracker *t, uint64_t bytes, tp_error *err);
/* Account `bytes` fewer. TP_ERR_UNDERFLOW (nothing changes) when bytes >
 * allocated. */
TP_API tp_status tp_tracker_deallocate(tp_tracker *t, uint64_t bytes, tp_error *err);
/* True when allocating `bytes` now would succeed (a snapshot: another thread
 * may change the answer right after). */
TP_API bool tp_tracker_would_fit(const tp_tracker *t, uint64_t bytes);
/* Zero allocated and peak; the limit and overhead factor are kept. Not atomic
 * with respect to concurrent allocate/deallocate calls. */
TP_API void tp_tracker_reset(tp_tracker *t);

TP_API uint64_t tp_tracker_allocated_bytes(const tp_tracker *t);
TP_API uint64_t tp_tracker_peak_bytes(const tp_tracker *t);
TP_API uint64_t tp_tracker_limit_bytes(const tp_tracker *t);
/* Change the limit (0 = unlimited). Allocations already made are kept even if
 * they exceed a new, lower limit; later allocations are checked against it. */
TP_API void tp_tracker_set_limit(tp_tracker *t, uint64_t limit_bytes);
TP_API double tp_tracker_overhead_factor(const tp_tracker *t);
/* Factor applied by tp_tracker_estimate_with_overhead; must be in
 * [1.0, 1e9] (TP_ERR_INVALID otherwise). It is applied at 10^-6 resolution. */
TP_API tp_status tp_tracker_set_overhead_factor(tp_tracker *t, double factor, tp_error *err);

/* ceil(tp_tensor_bytes(dims, dtype) × overhead_factor), computed in integers
 * (factor rounded to parts per million, so 4000 × 1.1 = 4400). Errors as
 * tp_tensor_bytes; TP_ERR_OVERFLOW when the product exceeds 64 bits. */
TP_API tp_status tp_tracker_estimate_with_overhead(const tp_tracker *t, const int64_t *dims,
                                                   int32_t rank, tp_dtype dtype,
                                                   uint64_t *out_bytes, tp_error *err);

/* Bytes of a dense tensor of static dims (rank 0 = a scalar, 1 element).
 * TP_ERR_INVALID (negative dim, rank < 0 or > 8, dims NULL with rank > 0, bad
 * dtype), TP_ERR_OVERFLOW, TP_ERR_SHAPE (quantized element count not a whole
 * number of blocks). */
TP_API tp_status tp_tensor_bytes(const int64_t *dims, int32_t rank, tp_dtype dtype,
                                 uint64_t *out_bytes, tp_error *err);
/* Working memory of one attention call: (3·b·h·s·d [Q,K,V] + b·h·s² [scores] +
 * b·h·s·d [output]) elements of dtype. TP_ERR_INVALID (negative argument, bad
 * dtype), TP_ERR_OVERFLOW, TP_ERR_SHAPE (quantized, not whole blocks). */
TP_API tp_status tp_attention_bytes(int64_t b, int64_t h, int64_t s, int64_t d, tp_dtype dtype,
                                    uint64_t *out_bytes, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
