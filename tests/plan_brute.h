/* Brute-force facts about a buffer plan for the allocator tests, independent of the library's own
 * verifier: O(n²) pairwise checks, to be used on small sets. Header-only (static inline). */
#ifndef TP_TESTS_PLAN_BRUTE_H
#define TP_TESTS_PLAN_BRUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorplan/alloc.h"

/* The bytes a buffer occupies: its size and its tail guard. */
static inline uint64_t psize(const tp_buffer *b) {
    return b->size + b->tail_guard;
}

/* Live at a common step (birth and death inclusive). */
static inline bool time_overlap(const tp_buffer *x, const tp_buffer *y) {
    return x->birth <= y->death && y->birth <= x->death;
}

/* x at offset ox and y at oy are live together and share a byte. */
static inline bool conflict(const tp_buffer *x, uint64_t ox, const tp_buffer *y, uint64_t oy) {
    return time_overlap(x, y) && ox < oy + psize(y) && oy < ox + psize(x);
}

/* No two buffers of the plan conflict. */
static inline bool pairwise_ok(const tp_buffer *b, size_t n, const uint64_t *off) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (conflict(&b[i], off[i], &b[j], off[j])) return false;
    return true;
}

#endif
