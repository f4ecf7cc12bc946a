/* Internal: allocation through the optional tp_allocator hook.
 * All library allocations go through these so that the allocation-failure
 * sweep in the tests reaches every error path. */
#ifndef TP_CORE_MEM_H
#define TP_CORE_MEM_H

#include <stdint.h>

#include "tensorplan/core.h"

/* NULL -> the libc allocator. */
const tp_allocator *tp_mem_resolve(const tp_allocator *a);
void *tp_mem_alloc(const tp_allocator *a, size_t size);
/* Zeroed; NULL on count*size overflow. */
void *tp_mem_calloc(const tp_allocator *a, size_t count, size_t size);
void *tp_mem_realloc(const tp_allocator *a, void *ptr, size_t old_size, size_t new_size);
void tp_mem_free(const tp_allocator *a, void *ptr, size_t size);
char *tp_mem_strdup(const tp_allocator *a, const char *s);
/* Free a string obtained from tp_mem_strdup (size recomputed with strlen). */
void tp_mem_free_str(const tp_allocator *a, char *s);
/* Grow a dynamic array (*items, capacity *cap, elements of elem_size) so that it
 * holds at least `need` elements; doubles. Returns false on NOMEM/overflow and
 * leaves the array untouched. */
bool tp_mem_grow(const tp_allocator *a, void **items, size_t elem_size, size_t *cap, size_t need);
/* The first 64-byte boundary at or after p (a cache line; what packed GEMM operands and the
 * benchmarks' buffers need): allocate 64 bytes more than used. */
static inline void *tp_mem_align64(void *p) {
    return (unsigned char *)p + (64 - (uintptr_t)p % 64) % 64;
}

#endif
