/* NO_REUSE baseline: no sharing at all. Fixed buffers keep their offsets; every other buffer,
 * in input order, goes at the aligned end of the previous one, starting at the end of the
 * fixed region (0 without fixed buffers). O(n), no allocation. */
#include "plan/alloc_internal.h"

tp_status tp__alloc_noreuse(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                            const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                            tp_error *err) {
    (void)alloc;
    uint64_t top = 0;
    for (size_t i = 0; i < n; i++) {
        if (bufs[i].fixed_offset < 0) continue;
        offsets[i] = (uint64_t)bufs[i].fixed_offset;
        uint64_t end = offsets[i] + tp__alloc_psize(&bufs[i]); /* validated */
        if (end > top) top = end;
    }
    uint64_t cursor = top;
    for (size_t i = 0; i < n; i++) {
        const tp_buffer *b = &bufs[i];
        if (b->fixed_offset >= 0) continue;
        uint64_t off, end;
        if (!tp_align_up_u64(cursor, tp__alloc_align(b, opt->alignment), &off) ||
            !tp_add_u64(off, tp__alloc_psize(b), &end))
            return tp_error_set(err, TP_ERR_OVERFLOW,
                                "no-reuse placement of buffer %zu (id %lld, size %llu, tail "
                                "guard %llu) after offset %llu passes 2^64",
                                i, (long long)b->id, (unsigned long long)b->size,
                                (unsigned long long)b->tail_guard, (unsigned long long)cursor);
        offsets[i] = off;
        cursor = end;
        if (end > top) top = end;
    }
    *arena = top;
    return TP_OK;
}
