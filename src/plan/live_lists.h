/*
 * Live lists: the placed-buffer index the best-fit heuristics use when lifetimes are short
 * (graph-like sets): each distinct birth step keeps the list of placed buffers alive at it.
 * A query reads the list at the new buffer's birth plus the placed buffers born inside its
 * lifetime; their byte ranges are sorted and swept for gaps. Used only when the lists stay
 * within 32 entries per buffer (else the gap index, gap_index.h, does the work).
 */
#ifndef TP_PLAN_LIVE_LISTS_H
#define TP_PLAN_LIVE_LISTS_H

#include "tensorplan/alloc.h"

typedef struct tp__ll_span {
    uint64_t lo, hi;
} tp__ll_span;

typedef struct tp__live_lists {
    const tp_buffer *bufs;
    size_t n, n_pt, n_lst;
    size_t *by_birth;  /* buffer indices sorted by birth */
    size_t *pt_first;  /* n_pt + 1: first by_birth position of each point */
    uint32_t *pt_of;   /* buffer -> point of its birth */
    uint32_t *pt_last; /* buffer -> last point inside its lifetime */
    size_t *lst_start; /* n_pt + 1 */
    uint32_t *lst_fill, *lst;
    uint8_t *placed;
    tp__ll_span *spans;
    bool usable;
} tp__live_lists;

/* Build; *usable = false (and nothing kept but what tp__ll_free frees) when lifetimes are
 * too long for lists. TP_ERR_NOMEM. */
tp_status tp__ll_init(tp__live_lists *c, const tp_buffer *bufs, size_t n, const tp_allocator *alloc,
                      bool *usable, tp_error *err);
void tp__ll_free(tp__live_lists *c, const tp_allocator *alloc);
void tp__ll_reset(tp__live_lists *c);
/* Record buffer `item` as placed (placement size > 0). */
void tp__ll_insert(tp__live_lists *c, size_t item);
/* Where buffer q goes given the offsets of the placed ones: best fit (smallest gap that
 * holds it aligned, lowest on ties) or first fit; without a gap, the aligned top. False on
 * 64-bit overflow of the aligned top. */
bool tp__ll_place(tp__live_lists *c, size_t q, const uint64_t *off, uint64_t opt_align,
                  bool best_fit, uint64_t *out);

#endif
