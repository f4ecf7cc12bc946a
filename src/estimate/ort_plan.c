/* onnxruntime's allocation planner, emulated over the run-1 trace (see ort_arena.h). Modelled
 * from onnxruntime 1.30's core/framework/allocation_planner.cc, not copied: walking the
 * execution order, each output of a node (graph outputs excepted: allocated for the caller)
 * 1. reuses an input in place when the kernel declares MayInplace for it, that input's buffer
 *    has no other reader left, and both shapes are the same known shape;
 * 2. else reuses a freed buffer of the same known shape (the free list is searched from the
 *    most recently freed);
 * 3. else is allocated from the arena.
 * A buffer is freed (enters the free list) after the step of its last reader, its reusers'
 * readers included. Shapes "known" are those onnxruntime's static shape inference knows: every
 * dim a number or a named symbol (the caller's shape_key, 0 when not). Only the buffers
 * allocated (reuses == -1) reach the BFC arena and the memory pattern.
 *
 * Step 2 is on in the profile (same_shape true): with onnxruntime's execution order and the
 * fused kernels' lifetimes emulated, it reproduces the plateaus of onnxruntime's own arena trace
 * (convnext_tiny's run-1 peak 29.86 MiB emulated, 29.84 measured; docs/runtime.md). */
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "estimate/ort_arena.h"

typedef struct plan_step {
    int64_t birth;
    uint32_t buf;
} plan_step;

static int plan_cmp_birth(const void *pa, const void *pb) {
    const plan_step *x = pa, *y = pb;
    if (x->birth != y->birth) return x->birth < y->birth ? -1 : 1;
    return x->buf < y->buf ? -1 : x->buf > y->buf;
}

static uint32_t plan_original(const tp_ort_buf *b, uint32_t i) {
    while (b[i].reuses >= 0)
        i = (uint32_t)b[i].reuses;
    return i;
}

static void plan_take(tp_ort_buf *b, uint32_t i, uint32_t o) {
    b[i].reuses = (int32_t)o;
    if (b[i].death > b[o].death) b[o].death = b[i].death;
}

tp_status tp_ort_plan_reuse(const tp_allocator *a, tp_ort_buf *b, size_t n, bool same_shape,
                            tp_error *err) {
    if (n == 0) return TP_OK;
    if (n > INT32_MAX) return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: too many buffers");
    size_t bytes = n * sizeof(uint32_t);
    plan_step *ord = tp_mem_alloc(a, n * sizeof *ord);
    uint32_t *live = tp_mem_alloc(a, bytes);
    uint32_t *fl = tp_mem_alloc(a, bytes), *freed = tp_mem_alloc(a, bytes);
    tp_status st = TP_OK;
    if (!ord || !live || !fl || !freed) {
        st = tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (allocation planner)");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        ord[i] = (plan_step){b[i].birth, (uint32_t)i};
        b[i].reuses = -1;
    }
    qsort(ord, n, sizeof *ord, plan_cmp_birth);
    size_t n_live = 0, n_fl = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = ord[k].buf;
        int64_t s = b[i].birth;
        /* buffers whose last reader ran before this step join the free list, earliest first */
        size_t n_freed = 0;
        for (size_t j = 0; j < n_live;) {
            if (b[live[j]].death < s) {
                freed[n_freed++] = live[j];
                live[j] = live[--n_live];
            } else {
                j++;
            }
        }
        for (size_t x = 1; x < n_freed; x++)
            for (size_t y = x; y > 0 && b[freed[y - 1]].death > b[freed[y]].death; y--) {
                uint32_t t = freed[y];
                freed[y] = freed[y - 1];
                freed[y - 1] = t;
            }
        for (size_t x = 0; x < n_freed; x++)
            fl[n_fl++] = freed[x];
        if (b[i].scratch) continue; /* a kernel's own request, outside the plan */
        if (!b[i].output && b[i].shape_key != 0) {
            if (b[i].inplace_of >= 0 && (size_t)b[i].inplace_of < n) {
                uint32_t in = (uint32_t)b[i].inplace_of, o = plan_original(b, in);
                if (!b[o].output && !b[o].scratch && b[o].death == s &&
                    b[in].shape_key == b[i].shape_key) {
                    plan_take(b, i, o);
                    continue;
                }
            }
            size_t f = same_shape ? n_fl : 0;
            while (f > 0 && b[fl[f - 1]].shape_key != b[i].shape_key)
                f--;
            if (f > 0) {
                uint32_t o = fl[f - 1];
                memmove(&fl[f - 1], &fl[f], (n_fl - f) * sizeof *fl);
                n_fl--;
                plan_take(b, i, o);
                live[n_live++] = o;
                continue;
            }
        }
        live[n_live++] = i;
    }
done:
    tp_mem_free(a, ord, n * sizeof *ord);
    tp_mem_free(a, live, bytes);
    tp_mem_free(a, fl, bytes);
    tp_mem_free(a, freed, bytes);
    return st;
}
