/* The transpose-walk micro-benchmark's kernel (calib_transpose.h). Written after the loop that
 * onnxruntime 1.30's npm build runs (its machine code, read with objdump and perf: the
 * multi-index step is a function called once per element, not inlined, whose three arrays are
 * vectors indexed with bounds checks, and the source pointer goes through memory, passed by
 * reference): a step function kept out of line, bounds-checked arrays reached through a struct,
 * and the source position in memory. Inlined into the loop with its state in registers, the same
 * walk ran about twice as fast as onnxruntime's on this host (1.9-2.8 ns an element against
 * 4.7-8.7 on the probes, not paired; docs/cost.md, "Transposes"). */
#include "cost/calib_transpose.h"

#include <stdbool.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define WALK_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define WALK_NOINLINE __declspec(noinline)
#else
#define WALK_NOINLINE
#endif

static const int64_t WALK_DIMS[TP_TRANSPOSE_WALK_RANK] = {2, 48, 32, 64};
static const int WALK_PERM[TP_TRANSPOSE_WALK_RANK] = {0, 3, 2, 1};

/* The walk's state: per output axis above 1, its counter, its bound and the byte stride of the
   source along it, each array with its end (the runtime's vectors, whose checked subscripts
   compare against their size). */
typedef struct walk_index {
    size_t axes;
    size_t *index, *index_end, *bound, *bound_end;
    int64_t *stride, *stride_end;
} walk_index;

static bool walk_in(const walk_index *m, size_t pos) {
    return pos < (size_t)(m->index_end - m->index) && pos < (size_t)(m->bound_end - m->bound) &&
           pos < (size_t)(m->stride_end - m->stride);
}

/* Advance the source's byte offset to the next output element's source (an offset, where the
   runtime moves a pointer: the same arithmetic, without a pointer past the buffer's end). */
static WALK_NOINLINE void walk_step(walk_index *m, int64_t *src) {
    size_t pos = m->axes - 1;
    if (!walk_in(m, pos)) return;
    *src += m->stride[pos];
    if (++m->index[pos] < m->bound[pos]) return;
    *src -= m->stride[pos] * (int64_t)m->index[pos];
    m->index[pos] = 0;
    while (pos-- > 0) {
        if (!walk_in(m, pos)) return;
        *src += m->stride[pos];
        if (++m->index[pos] < m->bound[pos]) return;
        *src -= m->stride[pos] * (int64_t)m->index[pos];
        m->index[pos] = 0;
    }
}

void tp_transpose_walk_part(void *ctx, uint32_t part, uint32_t parts) {
    if (part != 0) return; /* one thread walks the whole tensor */
    (void)parts;
    const tp_transpose_walk_job *j = ctx;
    size_t index[TP_TRANSPOSE_WALK_RANK], bound[TP_TRANSPOSE_WALK_RANK];
    int64_t stride[TP_TRANSPOSE_WALK_RANK];
    size_t axes = 0;
    for (int i = 0; i < TP_TRANSPOSE_WALK_RANK; i++) {
        int64_t s = (int64_t)sizeof(float);
        for (int k = WALK_PERM[i] + 1; k < TP_TRANSPOSE_WALK_RANK; k++)
            s *= WALK_DIMS[k];
        if (WALK_DIMS[WALK_PERM[i]] == 1) continue;
        index[axes] = 0;
        bound[axes] = (size_t)WALK_DIMS[WALK_PERM[i]];
        stride[axes] = s;
        axes++;
    }
    walk_index m = {axes, index, index + axes, bound, bound + axes, stride, stride + axes};
    const unsigned char *src = (const unsigned char *)j->x;
    const int64_t end = (int64_t)(TP_TRANSPOSE_WALK_ELEMS * sizeof(float));
    unsigned char *dst = (unsigned char *)j->y;
    int64_t off = 0; /* in memory: walk_step, out of line, moves it */
    for (size_t e = 0; e < TP_TRANSPOSE_WALK_ELEMS; e++) {
        if (off < 0 || off >= end) return; /* the runtime's bounds check, never taken */
        memcpy(dst, src + off, sizeof(float));
        dst += sizeof(float);
        walk_step(&m, &off);
    }
}
