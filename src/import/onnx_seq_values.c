/* Sequence and optional values of the ONNX importer (tp_ox_seq, onnx_values.h):
 * creation, copies, element insertion and the value that wraps one. */
#include <string.h>

#include "core/mem.h"
#include "import/onnx_values.h"

tp_ox_seq *tp_ox_seq_new(const tp_allocator *a, char kind, int32_t elem) {
    tp_ox_seq *s = tp_mem_calloc(a, 1, sizeof *s);
    if (!s) return NULL;
    s->kind = kind;
    s->elem = elem;
    s->reps = tp_dim_static(1);
    return s;
}

void tp_ox_seq_free(const tp_allocator *a, tp_ox_seq *s) {
    if (!s) return;
    tp_ox_seq_free(a, s->inner);
    if (s->el) tp_mem_free(a, s->el, s->n * sizeof *s->el);
    tp_mem_free(a, s, sizeof *s);
}

tp_ox_seq *tp_ox_seq_copy(const tp_allocator *a, const tp_ox_seq *s) {
    tp_ox_seq *c = tp_mem_alloc(a, sizeof *c);
    if (!c) return NULL;
    *c = *s;
    c->el = NULL;
    c->inner = NULL;
    if (s->n && !(c->el = tp_mem_alloc(a, s->n * sizeof *c->el))) {
        tp_mem_free(a, c, sizeof *c);
        return NULL;
    }
    if (s->n) memcpy(c->el, s->el, s->n * sizeof *c->el);
    if (s->inner && !(c->inner = tp_ox_seq_copy(a, s->inner))) {
        tp_ox_seq_free(a, c);
        return NULL;
    }
    return c;
}

bool tp_ox_seq_insert(const tp_allocator *a, tp_ox_seq *s, uint32_t at, const tp_shape *shape) {
    if (s->n >= TP_OX_MAX_VALUES || at > s->n) return false;
    tp_shape *el = tp_mem_alloc(a, (s->n + 1) * sizeof *el);
    if (!el) return false;
    if (at) memcpy(el, s->el, at * sizeof *el);
    el[at] = *shape;
    if (s->n > at) memcpy(el + at + 1, s->el + at, (s->n - at) * sizeof *el);
    if (s->el) tp_mem_free(a, s->el, s->n * sizeof *s->el);
    s->el = el;
    s->n++;
    if (at <= s->n_head) s->n_head++;
    return true;
}

tp_ox_value *tp_ox_value_of_seq(const tp_allocator *a, tp_ox_seq *s) {
    tp_ox_value *v = s ? tp_mem_calloc(a, 1, sizeof *v) : NULL;
    if (!v) {
        tp_ox_seq_free(a, s);
        return NULL;
    }
    v->seq = s;
    return v;
}
