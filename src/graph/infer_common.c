/* Helpers shared by the shape inference rules (infer*.c) and the builder:
 * errors with the node context, axis normalisation, symbolic expressions,
 * numpy broadcasting and element-count comparison. */
#include "graph/graph_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tp_status tp_infer_fail(const tp_infer_ctx *c, tp_status s, tp_error *err, const char *fmt, ...) {
    if (!err) return s;
    char msg[TP_ERROR_MSG_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tp_error_setx(err, s, TP_NO_OFFSET, c->self, "node %d '%.120s' (%s): %s", (int)c->self,
                         c->name, tp_op_name(c->op), msg);
}

tp_status tp_infer_axis(const tp_infer_ctx *c, int64_t axis, int32_t rank, const char *what,
                        int32_t *out, tp_error *err) {
    int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank)
        return tp_infer_fail(c, TP_ERR_INVALID, err, "%s %" PRId64 " is out of range for rank %d",
                             what, axis, (int)rank);
    *out = (int32_t)a;
    return TP_OK;
}

tp_status tp_infer_expr(const tp_infer_ctx *c, tp_sym_op op, tp_dim a, tp_dim b, tp_dim *out,
                        tp_error *err) {
    tp_error e2;
    tp_status st = tp_graph_dim_expr(c->g, op, a, b, out, &e2);
    if (st != TP_OK) return tp_infer_fail(c, st, err, "%s", e2.msg);
    return TP_OK;
}

/* ---- broadcasting ---- */

tp_status tp_infer_broadcast(const tp_infer_ctx *c, const tp_shape *a, const tp_shape *b,
                             tp_shape *out, tp_error *err) {
    int32_t r = a->rank > b->rank ? a->rank : b->rank;
    tp_shape o = tp_shape_make(r, NULL);
    for (int32_t i = 0; i < r; i++) {
        int32_t ia = a->rank - r + i, ib = b->rank - r + i;
        tp_dim da = ia >= 0 ? a->dims[ia] : tp_dim_static(1);
        tp_dim db = ib >= 0 ? b->dims[ib] : tp_dim_static(1);
        bool sa = tp_dim_is_static(da), sb = tp_dim_is_static(db);
        if (tp_graph_dim_equal(c->g, da, db) || (sb && db.size == 1)) {
            o.dims[i] = da;
        } else if (sa && da.size == 1) {
            o.dims[i] = db;
        } else if (sa && sb) {
            char b1[128], b2[128];
            return tp_infer_fail(c, TP_ERR_SHAPE, err,
                                 "cannot broadcast %s with %s (%" PRId64 " vs %" PRId64 ")",
                                 tp_graph_shape_str(c->g, a, b1, sizeof b1),
                                 tp_graph_shape_str(c->g, b, b2, sizeof b2), da.size, db.size);
        } else if (sa || sb) {
            o.dims[i] = sa ? da : db; /* the symbol must be 1 or equal to the static size */
        } else {
            tp_status st = tp_infer_expr(c, TP_SYM_MAX, da, db, &o.dims[i], err);
            if (st != TP_OK) return st;
        }
    }
    *out = o;
    return TP_OK;
}

/* ---- element-count comparison (views given an explicit shape) ---- */

typedef struct factors {
    uint64_t stat;
    bool stat_ovf;
    int32_t syms[64];
    int n;
    bool too_many;
} factors;

static void add_factor(const tp_graph *g, factors *f, tp_dim d) {
    if (f->too_many) return;
    if (tp_dim_is_static(d)) {
        if (!tp_mul_u64(f->stat, (uint64_t)d.size, &f->stat)) f->stat_ovf = true;
        return;
    }
    const tp_gsym *s = &g->syms[d.sym];
    if (!s->name && s->op == TP_SYM_MUL) {
        add_factor(g, f, s->a);
        add_factor(g, f, s->b);
        return;
    }
    if (f->n == 64) {
        f->too_many = true;
        return;
    }
    f->syms[f->n++] = d.sym;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int tp_graph_count_cmp(const tp_graph *g, const tp_shape *a, const tp_shape *b) {
    uint64_t na, nb;
    if (tp_graph_shape_elements(g, a, &na, NULL) == TP_OK &&
        tp_graph_shape_elements(g, b, &nb, NULL) == TP_OK)
        return na == nb;
    factors fa, fb;
    memset(&fa, 0, sizeof fa);
    memset(&fb, 0, sizeof fb);
    fa.stat = fb.stat = 1;
    for (int32_t i = 0; i < a->rank; i++)
        add_factor(g, &fa, a->dims[i]);
    for (int32_t i = 0; i < b->rank; i++)
        add_factor(g, &fb, b->dims[i]);
    if (fa.stat_ovf || fb.stat_ovf || fa.too_many || fb.too_many) return -1;
    if (fa.stat == 0 || fb.stat == 0) return (fa.stat == 0 && fb.stat == 0) ? 1 : -1;
    if (fa.n != fb.n) return -1;
    qsort(fa.syms, (size_t)fa.n, sizeof fa.syms[0], cmp_i32);
    qsort(fb.syms, (size_t)fb.n, sizeof fb.syms[0], cmp_i32);
    if (memcmp(fa.syms, fb.syms, (size_t)fa.n * sizeof fa.syms[0]) != 0) return -1;
    return fa.stat == fb.stat;
}
