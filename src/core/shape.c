/* Shapes: static and symbolic dims (tensorplan/shape.h). */
#include "tensorplan/shape.h"

#include <string.h>

tp_shape tp_shape_of(int32_t rank, const int64_t *sizes) {
    tp_shape s;
    memset(&s, 0, sizeof s);
    if (rank < 0) rank = 0;
    if (rank > TP_MAX_RANK) rank = TP_MAX_RANK;
    s.rank = rank;
    for (int32_t i = 0; i < TP_MAX_RANK; i++)
        s.dims[i] = tp_dim_static(i < rank && sizes ? sizes[i] : 0);
    return s;
}

tp_shape tp_shape_make(int32_t rank, const tp_dim *dims) {
    tp_shape s;
    memset(&s, 0, sizeof s);
    if (rank < 0) rank = 0;
    if (rank > TP_MAX_RANK) rank = TP_MAX_RANK;
    s.rank = rank;
    for (int32_t i = 0; i < TP_MAX_RANK; i++)
        s.dims[i] = i < rank && dims ? dims[i] : tp_dim_static(0);
    return s;
}

bool tp_shape_is_static(const tp_shape *s) {
    if (!s) return false;
    for (int32_t i = 0; i < s->rank && i < TP_MAX_RANK; i++)
        if (!tp_dim_is_static(s->dims[i])) return false;
    return true;
}
