/*
 * Step sort: a stable LSD radix sort of (step, value) pairs by step (step_sort.c).
 *
 * Shared by the peak-step sweep (alloc_sweep_peak.c: births and deaths with their sizes)
 * and the live lists (live_lists.c: buffers by birth, ties in index order). Stable, so an
 * array built in index order comes out in (step, index) order, the order qsort with a
 * (step, index) comparator gives. 8 bits a pass, only as many passes as the range of steps
 * needs (2-3 for traces of 60,000 to a million steps). No allocation; reentrant.
 */
#ifndef TP_PLAN_STEP_SORT_H
#define TP_PLAN_STEP_SORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct tp__step_item {
    int64_t t;  /* the step (any int64) */
    uint64_t v; /* carried along: a size, a buffer index */
} tp__step_item;

/* Sort a[0..n) by t ascending, stably; tmp holds n items (scratch). */
void tp__step_sort(tp__step_item *a, tp__step_item *tmp, size_t n);

#endif
