/*
 * tensorplan/shape.h — tensor shapes: static and symbolic dimensions.
 *
 * A dim is static (a size >= 0) or symbolic: an index into the symbol table of
 * the graph that made it (tensorplan/graph.h names symbols, derives
 * expressions over them and binds them to values). Shapes are plain values of
 * at most TP_MAX_RANK dims; nothing here allocates or needs a graph.
 *
 * Example:
 *     tp_shape w = tp_shape_of(2, (int64_t[]){768, 3072});      static [768,3072]
 *     tp_shape x = tp_shape_make(2, (tp_dim[]){batch, tp_dim_static(768)});
 *     tp_shape_is_static(&w) == true; tp_shape_is_static(&x) == false
 *
 * Thread safety: every function is pure and reentrant.
 */
#ifndef TENSORPLAN_SHAPE_H
#define TENSORPLAN_SHAPE_H

#include "tensorplan/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_MAX_RANK 8

typedef int32_t tp_sym_id; /* index into a graph's symbol table; -1 = static dim */
#define TP_NO_SYM (-1)

/* A dimension: static (sym == TP_NO_SYM, size >= 0) or symbolic (sym >= 0, size
 * ignored). */
typedef struct tp_dim {
    int64_t size;
    tp_sym_id sym;
} tp_dim;

typedef struct tp_shape {
    int32_t rank;
    tp_dim dims[TP_MAX_RANK];
} tp_shape;

static inline tp_dim tp_dim_static(int64_t size) {
    tp_dim d = {size, TP_NO_SYM};
    return d;
}
static inline bool tp_dim_is_static(tp_dim d) {
    return d.sym == TP_NO_SYM;
}
/* Build a shape from rank static sizes (rank clamped to 0..TP_MAX_RANK; sizes may be
 * NULL for all zeros; unused dims are zero). */
TP_API tp_shape tp_shape_of(int32_t rank, const int64_t *sizes);
/* Build a shape from rank dims (same clamping; dims may be NULL). */
TP_API tp_shape tp_shape_make(int32_t rank, const tp_dim *dims);
/* True when every dim is static (false for NULL). */
TP_API bool tp_shape_is_static(const tp_shape *s);

#ifdef __cplusplus
}
#endif
#endif
