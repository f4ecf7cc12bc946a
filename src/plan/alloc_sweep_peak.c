/* Peak-out sweep: the sweep placer (alloc_sweep.c) started at the most crowded step.
 *
 * Let p be a step where the live bytes are largest (the lower bound's step). Every buffer
 * either is alive at p (the "clique"), is born after p, or dies before p; a buffer born
 * after p never overlaps one that died before p. So the plan splits in two sweeps that
 * share only the clique:
 *
 *   forwards:  the clique with births raised to p, plus the buffers born after p, in birth
 *              order (tp__alloc_sweep_ex);
 *   backwards: the clique with deaths lowered to p, plus the buffers that died before p,
 *              with time mirrored (death order, latest first).
 *
 * Raising a clique member's birth to p (or lowering its death) changes none of its overlaps
 * inside its half: the other buffers of that half all live on one side of p. In both
 * sweeps the clique members are the first events, all at one step, and the sweep orders
 * them the same way (largest first, then by index, and the sub-arrays keep the input
 * order), so starting from the same empty arena they get the same offsets: stacked from 0,
 * exactly the lower bound at p apart from alignment padding. (The merge checks that the
 * two offsets agree and reports TP_ERR_UNSUPPORTED otherwise, which callers treat as "no
 * plan from this placer".) The arena is the larger of the two halves'.
 *
 * The forward sweep alone pays for the crowded step with the fragmentation it built up
 * before reaching it; starting there packs the step that sets the lower bound first
 * (measured: longmix62k 1.026 x LB against 1.033 forwards and 1.029 mirrored; longmix1M
 * 1.0072 against 1.0127 and 1.0076; train18k 1.0000 against 1.0039).
 */
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"
#include "plan/step_sort.h"

typedef tp__step_item step_ev; /* t: the step, v: the placement size */

tp_status tp__alloc_peak_step(const tp_buffer *bufs, size_t n, const tp_allocator *alloc,
                              int64_t *p, tp_error *err) {
    uint64_t bytes;
    bool overflow;
    return tp__alloc_peak(bufs, n, alloc, p, &bytes, &overflow, err);
}

tp_status tp__alloc_peak(const tp_buffer *bufs, size_t n, const tp_allocator *alloc, int64_t *p,
                         uint64_t *bytes, bool *overflow, tp_error *err) {
    *bytes = 0;
    *overflow = false;
    step_ev *born = tp_mem_alloc(alloc, n * sizeof *born);
    step_ev *dies = tp_mem_alloc(alloc, n * sizeof *dies);
    step_ev *tmp = tp_mem_alloc(alloc, n * sizeof *tmp);
    if (!born || !dies || !tmp) {
        tp_mem_free(alloc, born, n * sizeof *born);
        tp_mem_free(alloc, dies, n * sizeof *dies);
        tp_mem_free(alloc, tmp, n * sizeof *tmp);
        return tp_error_set(err, TP_ERR_NOMEM, "sweep: out of memory for %zu buffers", n);
    }
    for (size_t i = 0; i < n; i++) {
        born[i] = (step_ev){bufs[i].birth, tp__alloc_psize(&bufs[i])};
        dies[i] = (step_ev){bufs[i].death, born[i].v};
    }
    tp__step_sort(born, tmp, n); /* (qsort here took about a tenth of the class split's
                                  * time on longmix62k) */
    tp__step_sort(dies, tmp, n);
    tp_mem_free(alloc, tmp, n * sizeof *tmp);
    uint64_t live = 0, best = 0;
    *p = n ? born[0].t : 0;
    for (size_t k = 0, d = 0; k < n; k++) {
        for (; d < n && dies[d].t < born[k].t; d++) /* died before this step */
            live -= dies[d].v;
        if (!tp_add_u64(live, born[k].v, &live)) {
            *p = born[k].t;
            *overflow = true;
            break;
        }
        if ((k + 1 == n || born[k + 1].t != born[k].t) && live > best) {
            best = live;
            *p = born[k].t;
        }
    }
    *bytes = *overflow ? 0 : best;
    tp_mem_free(alloc, born, n * sizeof *born);
    tp_mem_free(alloc, dies, n * sizeof *dies);
    return TP_OK;
}

tp_status tp__alloc_sweep_peak(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                               bool use_best_fit, double deadline, const tp_allocator *alloc,
                               uint64_t *offsets, uint64_t *arena, tp_error *err) {
    *arena = 0;
    if (n == 0) return TP_OK;
    for (size_t i = 0; i < n; i++)
        if (bufs[i].fixed_offset >= 0)
            return tp_error_set(err, TP_ERR_UNSUPPORTED, "sweep: pre-placed buffers");
    int64_t p = 0;
    tp_status st = tp__alloc_peak_step(bufs, n, alloc, &p, err);
    if (st != TP_OK) return st;
    tp_buffer *sub = tp_mem_alloc(alloc, n * sizeof *sub);
    size_t *map = tp_mem_alloc(alloc, n * sizeof *map);
    uint64_t *so = tp_mem_alloc(alloc, n * sizeof *so);
    if (!sub || !map || !so) {
        st = tp_error_set(err, TP_ERR_NOMEM, "sweep: out of memory for %zu buffers", n);
        goto done;
    }
    for (int half = 0; half < 2; half++) { /* 0: forwards from p, 1: backwards from p */
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            const tp_buffer *b = &bufs[i];
            if (half == 0 ? b->death < p : b->birth > p) continue;
            sub[m] = *b;
            if (half == 0 && sub[m].birth < p) sub[m].birth = p;
            if (half == 1 && sub[m].death > p) sub[m].death = p;
            map[m++] = i;
        }
        uint64_t a = 0;
        st = tp__alloc_sweep_ex(sub, m, opt, use_best_fit, half == 1, deadline, alloc, so, &a, err);
        if (st != TP_OK) goto done;
        for (size_t k = 0; k < m; k++) {
            size_t i = map[k];
            bool clique = bufs[i].birth <= p && bufs[i].death >= p;
            if (half == 1 && clique && offsets[i] != so[k]) {
                st = tp_error_set(err, TP_ERR_UNSUPPORTED,
                                  "sweep: buffer %zu placed at %llu forwards, %llu backwards", i,
                                  (unsigned long long)offsets[i], (unsigned long long)so[k]);
                goto done;
            }
            offsets[i] = so[k];
        }
        if (a > *arena) *arena = a;
    }
done:
    tp_mem_free(alloc, sub, n * sizeof *sub);
    tp_mem_free(alloc, map, n * sizeof *map);
    tp_mem_free(alloc, so, n * sizeof *so);
    return st;
}
