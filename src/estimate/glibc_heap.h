/* An emulation of glibc malloc's resident memory for a sequence of large allocations and frees
 * (internal; docs/runtime.md "Session 15"). Modelled on glibc 2.36's documented behaviour
 * (mallopt(3): M_MMAP_THRESHOLD, M_TRIM_THRESHOLD), read in bench/ort_memory/malloc_trace.sh's
 * traces of onnxruntime, not copied from glibc:
 *   - a request at least the mmap threshold (initially 128 KiB) is served by mmap and given back
 *     to the system when freed;
 *   - freeing such a chunk larger than the threshold, up to 32 MiB, raises the threshold to its
 *     size (the dynamic threshold), and the trim threshold to twice that;
 *   - a smaller request is served from the heap: the smallest free hole that fits it (holes
 *     coalesce with their neighbours), else the top of the heap grows;
 *   - a freed heap chunk stays resident as a hole, unless it joins the top of the heap and the
 *     top's free space then exceeds the trim threshold (the heap shrinks).
 * Resident = the heap's extent + the mmapped chunks; the peak is tracked. One arena (the main
 * one): which of glibc's per-thread arenas a request lands in is not modelled; a caller that
 * wants the worst case asks an allocation not to reuse holes. Not thread-safe (one owner). */
#ifndef TP_ESTIMATE_GLIBC_HEAP_H
#define TP_ESTIMATE_GLIBC_HEAP_H

#include "tensorplan/core.h"

typedef struct tp_glibc_heap tp_glibc_heap;

/* An empty heap (a: the allocator of its own bookkeeping, NULL = libc). TP_ERR_NOMEM. */
tp_status tp_glibc_heap_create(const tp_allocator *a, tp_glibc_heap **out, tp_error *err);
void tp_glibc_heap_destroy(tp_glibc_heap *h);
/* Allocate bytes; *block names it for tp_glibc_heap_free. reuse false: a heap request takes new
 * pages at the top even where a hole would fit (the worst case of the hole's reuse).
 * TP_ERR_NOMEM (bookkeeping), TP_ERR_OVERFLOW (more than 2^62 bytes or 2^32 blocks). */
tp_status tp_glibc_heap_alloc(tp_glibc_heap *h, uint64_t bytes, bool reuse, uint32_t *block,
                              tp_error *err);
/* Free a block from tp_glibc_heap_alloc (a block freed twice or unknown is ignored). */
void tp_glibc_heap_free(tp_glibc_heap *h, uint32_t block);
uint64_t tp_glibc_heap_resident(const tp_glibc_heap *h); /* heap extent + mmapped, now */
uint64_t tp_glibc_heap_peak(const tp_glibc_heap *h);     /* the largest resident so far */

#endif
