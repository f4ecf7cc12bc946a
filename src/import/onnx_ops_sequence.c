/* Shape rules of sequence and optional values: SequenceEmpty, SequenceConstruct,
 * SequenceInsert, SequenceAt, SequenceErase, SequenceLength, SplitToSequence,
 * ConcatFromSequence, Optional, OptionalHasElement, OptionalGetElement.
 *
 * A sequence value is an IR node of its element type holding every element
 * (onnxruntime copies tensors into a sequence), shape [total elements]; the
 * converter keeps the element shapes in the value (tp_ox_seq). An optional is
 * sized like what it holds. Element shapes that are not known exactly (an index
 * that is not known, a length that depends on a Loop's trip count) are the
 * largest of the candidates: an upper bound. */
#include <string.h>

#include "core/mem.h"
#include "import/onnx_ops.h"

static const tp_ox_seq *in_seq(const tp_ox_ctx *c, uint32_t i) {
    return i < c->n_in && c->in[i].present && c->in[i].value ? c->in[i].value->seq : NULL;
}

static tp_status need_seq(tp_ox_ctx *c, uint32_t i, const tp_ox_seq **s) {
    *s = in_seq(c, i);
    if (!*s || (*s)->kind != 's')
        return tp_ox_fail(c, TP_ERR_SHAPE, "input %u is not a sequence", i);
    return TP_OK;
}

static tp_status sequence_nomem(tp_ox_ctx *c) {
    return tp_ox_fail(c, TP_ERR_NOMEM, "out of memory (sequence)");
}

/* Number of elements: n_head + reps x (n - n_head). */
static tp_status seq_len(tp_ox_ctx *c, const tp_ox_seq *s, tp_dim *out) {
    tp_dim r;
    tp_status st =
        tp_ox_dim(c, TP_SYM_MUL, s->reps, tp_dim_static((int64_t)(s->n - s->n_head)), &r);
    if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_ADD, tp_dim_static((int64_t)s->n_head), r, out);
    return st;
}

static tp_status sum_elems(tp_ox_ctx *c, const tp_shape *el, uint32_t from, uint32_t to,
                           tp_dim *out) {
    tp_dim r = tp_dim_static(0), p;
    for (uint32_t i = from; i < to; i++) {
        tp_status st = tp_ox_prod(c, &el[i], 0, el[i].rank, &p);
        if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_ADD, r, p, &r);
        if (st != TP_OK) return st;
    }
    *out = r;
    return TP_OK;
}

/* Tensor elements held: the size of the value. */
tp_status tp_ox_seq_total(tp_ox_ctx *c, const tp_ox_seq *s, tp_dim *out) {
    if (s->none) {
        *out = tp_dim_static(0);
        return TP_OK;
    }
    if (s->inner) return tp_ox_seq_total(c, s->inner, out);
    tp_dim head, group;
    tp_status st = sum_elems(c, s->el, 0, s->n_head, &head);
    if (st == TP_OK) st = sum_elems(c, s->el, s->n_head, s->n, &group);
    if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_MUL, s->reps, group, &group);
    if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_ADD, head, group, out);
    return st;
}

/* Output k is the sequence s (ownership taken). */
static tp_status out_seq(tp_ox_ctx *c, uint32_t k, tp_ox_seq *s) {
    tp_ox_out *o = &c->out[k];
    tp_dim total;
    tp_status st = tp_ox_seq_total(c, s, &total);
    if (st != TP_OK) {
        tp_ox_seq_free(c->alloc, s);
        return st;
    }
    o->shape.rank = 1;
    o->shape.dims[0] = total;
    if (s->kind == 'o' && !s->none && !s->inner && s->n == 1)
        o->shape = s->el[0]; /* an optional tensor has the tensor's shape */
    const tp_ox_seq *t = s->inner ? s->inner : s;
    o->elem_type = t->elem ? t->elem : TP_ONNX_FLOAT;
    tp_ox_value *v = tp_ox_value_of_seq(c->alloc, s);
    if (!v) return sequence_nomem(c);
    tp_ox_set_value(c, k, v);
    return TP_OK;
}

/* List every element when the repeat count is static and small. */
static bool seq_expand(const tp_allocator *a, tp_ox_seq *s) {
    if (s->n == s->n_head) {
        s->reps = tp_dim_static(1);
        return true;
    }
    if (!tp_dim_is_static(s->reps)) return false;
    int64_t reps = s->reps.size, group = (int64_t)(s->n - s->n_head);
    if (reps < 0 || (int64_t)s->n_head + reps * group > TP_OX_MAX_VALUES) return false;
    uint32_t total = s->n_head + (uint32_t)(reps * group);
    tp_shape *el = tp_mem_alloc(a, (total ? total : 1) * sizeof *el);
    if (!el) return false;
    memcpy(el, s->el, s->n_head * sizeof *el);
    for (int64_t r = 0; r < reps; r++)
        memcpy(el + s->n_head + r * group, s->el + s->n_head, (size_t)group * sizeof *el);
    tp_mem_free(a, s->el, s->n * sizeof *s->el);
    s->el = el;
    s->n = s->n_head = total;
    s->reps = tp_dim_static(1);
    return true;
}

/* The largest element shape (dims: max over every element); *exact when all
 * elements have the same shape. Elements of different ranks: TP_ERR_UNSUPPORTED. */
static tp_status seq_max_shape(tp_ox_ctx *c, const tp_ox_seq *s, tp_shape *out, bool *exact) {
    if (s->n == 0) return tp_ox_fail(c, TP_ERR_SHAPE, "the sequence is empty");
    *out = s->el[0];
    *exact = !s->approx;
    for (uint32_t i = 1; i < s->n; i++) {
        if (s->el[i].rank != out->rank)
            return tp_ox_fail(c, TP_ERR_UNSUPPORTED,
                              "sequence elements of different ranks (%d and %d)", out->rank,
                              s->el[i].rank);
        for (int32_t d = 0; d < out->rank; d++) {
            if (tp_graph_dim_equal(c->g, out->dims[d], s->el[i].dims[d])) continue;
            *exact = false;
            tp_status st = tp_ox_dim(c, TP_SYM_MAX, out->dims[d], s->el[i].dims[d], &out->dims[d]);
            if (st != TP_OK) return st;
        }
    }
    return TP_OK;
}

/* One element of the largest shape repeated length times (an upper bound). */
static tp_status seq_collapse(tp_ox_ctx *c, tp_ox_seq *s) {
    tp_shape m;
    bool exact;
    tp_dim len;
    tp_status st = seq_max_shape(c, s, &m, &exact);
    if (st == TP_OK) st = seq_len(c, s, &len);
    if (st != TP_OK) return st;
    tp_shape *el = tp_mem_alloc(c->alloc, sizeof *el);
    if (!el) return sequence_nomem(c);
    *el = m;
    tp_mem_free(c->alloc, s->el, s->n * sizeof *s->el);
    s->el = el;
    s->n = 1;
    s->n_head = 0;
    s->reps = len;
    s->approx = s->approx || !exact;
    return TP_OK;
}

/* A static index into a fully listed sequence (negative counts from the end). */
static bool seq_index(const tp_ox_ctx *c, uint32_t i, const tp_ox_seq *s, bool insert,
                      uint32_t *out) {
    int64_t p, n;
    if (s->n != s->n_head || i >= c->n_in || !c->in[i].present || !c->in[i].value ||
        !tp_ox_value_int(c->in[i].value, 0, &p))
        return false;
    if (p < 0) p += s->n;
    n = (int64_t)s->n + (insert ? 1 : 0);
    if (p < 0 || p >= n) return false;
    *out = (uint32_t)p;
    return true;
}

static tp_status r_seq_empty(tp_ox_ctx *c) {
    tp_ox_seq *s = tp_ox_seq_new(c->alloc, 's', (int32_t)tp_ox_attr_int(c, "dtype", TP_ONNX_FLOAT));
    return s ? out_seq(c, 0, s) : sequence_nomem(c);
}

static tp_status r_seq_construct(tp_ox_ctx *c) {
    if (c->n_in == 0) return tp_ox_fail(c, TP_ERR_PARSE, "SequenceConstruct without inputs");
    tp_ox_seq *s = tp_ox_seq_new(c->alloc, 's', c->in[0].elem_type);
    if (!s) return sequence_nomem(c);
    for (uint32_t i = 0; i < c->n_in; i++) {
        if (!c->in[i].present || in_seq(c, i) || c->in[i].elem_type != s->elem) {
            tp_ox_seq_free(c->alloc, s);
            return tp_ox_fail(c, TP_ERR_SHAPE, "input %u is not a tensor of the first's type", i);
        }
        if (!tp_ox_seq_insert(c->alloc, s, s->n, &c->in[i].shape)) {
            tp_ox_seq_free(c->alloc, s);
            return sequence_nomem(c);
        }
    }
    return out_seq(c, 0, s);
}

/* Add one element of shape t at the end of a sequence with a repeated group:
 * one more repetition when the group is that one shape, else the sequence
 * collapses to its largest element (an upper bound). */
static tp_status seq_append_repeated(tp_ox_ctx *c, tp_ox_seq *s, const tp_shape *t) {
    bool same = s->n - s->n_head == 1 && s->n_head == 0 && s->el[0].rank == t->rank;
    for (int32_t d = 0; same && d < t->rank; d++)
        same = tp_graph_dim_equal(c->g, s->el[0].dims[d], t->dims[d]);
    tp_status st = same ? TP_OK : seq_collapse(c, s);
    if (st != TP_OK) return st;
    if (!same) {
        if (s->el[0].rank != t->rank)
            return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "sequence elements of different ranks");
        for (int32_t d = 0; d < t->rank; d++)
            if (!tp_graph_dim_equal(c->g, s->el[0].dims[d], t->dims[d]) &&
                (st = tp_ox_dim(c, TP_SYM_MAX, s->el[0].dims[d], t->dims[d], &s->el[0].dims[d])) !=
                    TP_OK)
                return st;
        s->approx = true;
    }
    return tp_ox_dim(c, TP_SYM_ADD, s->reps, tp_dim_static(1), &s->reps);
}

static tp_status r_seq_insert(tp_ox_ctx *c) {
    const tp_ox_seq *in;
    tp_status st = tp_ox_arity(c, 2, 3);
    if (st == TP_OK) st = need_seq(c, 0, &in);
    if (st != TP_OK) return st;
    if (in_seq(c, 1) || (in->n && c->in[1].elem_type != in->elem))
        return tp_ox_fail(c, TP_ERR_SHAPE, "the tensor does not match the sequence's type");
    tp_ox_seq *s = tp_ox_seq_copy(c->alloc, in);
    if (!s) return sequence_nomem(c);
    s->elem = c->in[1].elem_type;
    seq_expand(c->alloc, s);
    uint32_t at = s->n;
    bool has_pos = c->n_in > 2 && c->in[2].present;
    if (has_pos && !seq_index(c, 2, s, true, &at)) {
        at = s->n; /* position unknown: the element shapes are right, their order is not */
        s->approx = true;
    }
    if (s->n == s->n_head) {
        if (!tp_ox_seq_insert(c->alloc, s, at, &c->in[1].shape)) st = sequence_nomem(c);
    } else {
        st = seq_append_repeated(c, s, &c->in[1].shape);
    }
    if (st != TP_OK) {
        tp_ox_seq_free(c->alloc, s);
        return st;
    }
    return out_seq(c, 0, s);
}

static tp_status r_seq_at(tp_ox_ctx *c) {
    const tp_ox_seq *in;
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st == TP_OK) st = need_seq(c, 0, &in);
    if (st != TP_OK) return st;
    tp_ox_seq *s = tp_ox_seq_copy(c->alloc, in);
    if (!s) return sequence_nomem(c);
    seq_expand(c->alloc, s);
    uint32_t at;
    bool exact;
    if (!s->approx && seq_index(c, 1, s, false, &at)) {
        c->out[0].shape = s->el[at];
    } else {
        st = seq_max_shape(c, s, &c->out[0].shape, &exact);
    }
    c->out[0].elem_type = s->elem;
    tp_ox_seq_free(c->alloc, s);
    return st;
}

static tp_status r_seq_erase(tp_ox_ctx *c) {
    const tp_ox_seq *in;
    tp_status st = tp_ox_arity(c, 1, 2);
    if (st == TP_OK) st = need_seq(c, 0, &in);
    if (st != TP_OK) return st;
    tp_ox_seq *s = tp_ox_seq_copy(c->alloc, in);
    if (!s) return sequence_nomem(c);
    seq_expand(c->alloc, s);
    uint32_t at = s->n ? s->n - 1 : 0;
    bool known = s->n == s->n_head && s->n > 0 &&
                 (c->n_in < 2 || !c->in[1].present || seq_index(c, 1, s, false, &at));
    if (known) {
        tp_shape *el = s->n > 1 ? tp_mem_alloc(c->alloc, (s->n - 1) * sizeof *el) : NULL;
        if (s->n > 1 && !el) {
            tp_ox_seq_free(c->alloc, s);
            return sequence_nomem(c);
        }
        if (at) memcpy(el, s->el, at * sizeof *el);
        if (s->n - at - 1) memcpy(el + at, s->el + at + 1, (s->n - at - 1) * sizeof *el);
        tp_mem_free(c->alloc, s->el, s->n * sizeof *s->el);
        s->el = el;
        s->n--;
        s->n_head--;
    } else {
        s->approx = true; /* which element goes is not known: keep all (an upper bound) */
    }
    return out_seq(c, 0, s);
}

static tp_status r_seq_length(tp_ox_ctx *c) {
    const tp_ox_seq *s;
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st == TP_OK) st = need_seq(c, 0, &s);
    if (st != TP_OK) return st;
    c->out[0].shape.rank = 0;
    c->out[0].elem_type = TP_ONNX_INT64;
    if (s->approx) return TP_OK; /* an erase at an unknown position: length unknown */
    tp_ox_value *v = tp_ox_value_new(c->alloc, 1, false);
    if (!v) return sequence_nomem(c);
    tp_ox_set_value(c, 0, v);
    return seq_len(c, s, &v->d[0]);
}

static tp_status r_split_to_sequence(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 2);
    if (st != TP_OK) return st;
    const tp_shape *x = &c->in[0].shape;
    int64_t axis;
    if ((st = tp_ox_axis(c, tp_ox_attr_int(c, "axis", 0), x->rank, &axis)) != TP_OK) return st;
    bool keep = tp_ox_attr_int(c, "keepdims", 1) != 0;
    tp_ox_seq *s = tp_ox_seq_new(c->alloc, 's', c->in[0].elem_type);
    if (!s) return sequence_nomem(c);
    tp_dim len = x->dims[axis];
    tp_shape e = *x;
    int64_t sp[TP_OX_MAX_VALUES], n_sp = 0;
    bool has_split = c->n_in > 1 && c->in[1].present;
    int64_t k1;
    if (has_split && c->in[1].shape.rank == 0 && c->in[1].value &&
        tp_ox_value_int(c->in[1].value, 0, &k1) && k1 == 1)
        has_split = false; /* parts of 1: onnxruntime applies keepdims (torch's unbind) */
    if (has_split && c->in[1].shape.rank == 1) {
        if (!tp_ox_input_ints(c, 1, sp, TP_OX_MAX_VALUES, &n_sp)) {
            /* sizes unknown: up to n parts, each at most the whole axis */
            tp_ox_seq_free(c->alloc, s);
            return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "split sizes are not known at plan time");
        }
        for (int64_t i = 0; i < n_sp && st == TP_OK; i++) {
            e.dims[axis] = tp_dim_static(sp[i]);
            if (!tp_ox_seq_insert(c->alloc, s, s->n, &e)) st = sequence_nomem(c);
        }
    } else if (has_split) {
        int64_t k;
        if (!c->in[1].value || !tp_ox_value_int(c->in[1].value, 0, &k) || k <= 0) {
            tp_ox_seq_free(c->alloc, s);
            return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "the split size is not known at plan time");
        }
        /* parts of k; the last one is smaller when k does not divide the axis */
        if (tp_dim_is_static(len)) {
            for (int64_t off = 0; off < len.size && st == TP_OK; off += k) {
                e.dims[axis] = tp_dim_static(len.size - off < k ? len.size - off : k);
                if (!tp_ox_seq_insert(c->alloc, s, s->n, &e)) st = sequence_nomem(c);
            }
        } else {
            e.dims[axis] = tp_dim_static(k);
            if (!tp_ox_seq_insert(c->alloc, s, 0, &e)) st = sequence_nomem(c);
            s->n_head = 0;
            if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_DIV_CEIL, len, tp_dim_static(k), &s->reps);
            s->approx = true;
        }
    } else {
        /* parts of 1, the axis removed unless keepdims */
        e.dims[axis] = tp_dim_static(1);
        if (!keep) {
            for (int32_t d = (int32_t)axis; d + 1 < e.rank; d++)
                e.dims[d] = e.dims[d + 1];
            e.rank--;
        }
        if (!tp_ox_seq_insert(c->alloc, s, 0, &e)) st = sequence_nomem(c);
        s->n_head = 0;
        s->reps = len;
        seq_expand(c->alloc, s);
    }
    if (st != TP_OK) {
        tp_ox_seq_free(c->alloc, s);
        return st;
    }
    return out_seq(c, 0, s);
}

static tp_status r_concat_from_sequence(tp_ox_ctx *c) {
    const tp_ox_seq *in;
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st == TP_OK) st = need_seq(c, 0, &in);
    if (st != TP_OK) return st;
    bool new_axis = tp_ox_attr_int(c, "new_axis", 0) != 0;
    tp_shape m;
    bool exact;
    if ((st = seq_max_shape(c, in, &m, &exact)) != TP_OK) return st;
    int64_t axis;
    if ((st = tp_ox_axis(c, tp_ox_attr_int(c, "axis", 0), m.rank + (new_axis ? 1 : 0), &axis)) !=
        TP_OK)
        return st;
    tp_shape *o = &c->out[0].shape;
    c->out[0].elem_type = in->elem;
    if (new_axis) {
        if (m.rank + 1 > TP_MAX_RANK) return tp_ox_fail(c, TP_ERR_UNSUPPORTED, "rank too large");
        o->rank = m.rank + 1;
        for (int32_t d = 0, j = 0; d < o->rank; d++)
            if (d != axis) o->dims[d] = m.dims[j++];
        return seq_len(c, in, &o->dims[axis]);
    }
    /* the axis is the sum of the elements' (head + reps x group) */
    *o = m;
    tp_dim head = tp_dim_static(0), group = tp_dim_static(0);
    for (uint32_t i = 0; i < in->n && st == TP_OK; i++) {
        tp_dim *acc = i < in->n_head ? &head : &group;
        st = tp_ox_dim(c, TP_SYM_ADD, *acc, in->el[i].dims[axis], acc);
    }
    if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_MUL, in->reps, group, &group);
    if (st == TP_OK) st = tp_ox_dim(c, TP_SYM_ADD, head, group, &o->dims[axis]);
    return st;
}

static tp_status r_optional(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 0, 1);
    if (st != TP_OK) return st;
    bool has = c->n_in > 0 && c->in[0].present;
    const tp_ox_seq *in = has ? in_seq(c, 0) : NULL;
    tp_ox_seq *s = tp_ox_seq_new(c->alloc, 'o', has ? c->in[0].elem_type : TP_ONNX_FLOAT);
    if (!s) return sequence_nomem(c);
    if (!has) {
        s->none = true;
    } else if (in) {
        if (!(s->inner = tp_ox_seq_copy(c->alloc, in))) st = sequence_nomem(c);
    } else if (!tp_ox_seq_insert(c->alloc, s, 0, &c->in[0].shape)) {
        st = sequence_nomem(c);
    }
    if (st != TP_OK) {
        tp_ox_seq_free(c->alloc, s);
        return st;
    }
    return out_seq(c, 0, s);
}

/* Optional, or (opset 18) a tensor or sequence, or a missing input. */
static tp_status r_optional_has_element(tp_ox_ctx *c) {
    const tp_ox_seq *s = in_seq(c, 0);
    bool has = c->n_in > 0 && c->in[0].present && !(s && s->kind == 'o' && s->none);
    c->out[0].shape.rank = 0;
    c->out[0].elem_type = TP_ONNX_BOOL;
    if (s && s->kind == 'o' && s->approx) return TP_OK; /* either, after an If: unknown */
    tp_ox_value *v = tp_ox_value_new(c->alloc, 1, false);
    if (!v) return sequence_nomem(c);
    v->d[0] = tp_dim_static(has ? 1 : 0);
    tp_ox_set_value(c, 0, v);
    return TP_OK;
}

/* The optional's tensor is a view of it; a sequence is passed on. */
static tp_status r_optional_get_element(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    const tp_ox_seq *s = in_seq(c, 0);
    if (s && s->kind == 'o' && s->none)
        return tp_ox_fail(c, TP_ERR_SHAPE, "the optional holds no value");
    if (s && s->kind == 'o' && s->inner) {
        tp_ox_seq *cp = tp_ox_seq_copy(c->alloc, s->inner);
        return cp ? out_seq(c, 0, cp) : sequence_nomem(c);
    }
    if (s && s->kind == 's') {
        tp_ox_seq *cp = tp_ox_seq_copy(c->alloc, s);
        return cp ? out_seq(c, 0, cp) : sequence_nomem(c);
    }
    if (s) {
        c->out[0].shape = s->el[0];
        c->out[0].elem_type = s->elem;
    } else {
        tp_ox_same(c, 0, 0); /* opset 18: a tensor passes through (a view) */
        c->op.kind = TP_OP_UNARY;
        c->op.sub = TP_UNARY_IDENTITY;
        if (c->in[0].value) {
            tp_ox_value *v = tp_ox_value_copy(c->alloc, c->in[0].value);
            if (!v) return sequence_nomem(c);
            tp_ox_set_value(c, 0, v);
        }
    }
    return TP_OK;
}

static const tp_ox_rule SEQUENCE_RULES[] = {
    {"SequenceEmpty", r_seq_empty},
    {"SequenceConstruct", r_seq_construct},
    {"SequenceInsert", r_seq_insert},
    {"SequenceAt", r_seq_at},
    {"SequenceErase", r_seq_erase},
    {"SequenceLength", r_seq_length},
    {"SplitToSequence", r_split_to_sequence},
    {"ConcatFromSequence", r_concat_from_sequence},
    {"Optional", r_optional},
    {"OptionalHasElement", r_optional_has_element},
    {"OptionalGetElement", r_optional_get_element},
};

const tp_ox_rule *tp__ox_rules_sequence(size_t *n) {
    *n = sizeof SEQUENCE_RULES / sizeof SEQUENCE_RULES[0];
    return SEQUENCE_RULES;
}

bool tp__ox_takes_sequences(const char *op) {
    if (strcmp(op, "Identity") == 0) return true;
    for (size_t i = 0; i < sizeof SEQUENCE_RULES / sizeof SEQUENCE_RULES[0]; i++)
        if (strcmp(SEQUENCE_RULES[i].op_type, op) == 0) return true;
    return false;
}

/* A sequence carried by a Loop: init before the first iteration, iter after
 * one. When iter is init plus appended elements (a list append), the final
 * sequence is init plus trip x those elements; the body is planned for its last
 * iteration (*last_in: init plus trip - 1 groups). Otherwise the sequence does
 * not grow: iter, merged with init into the largest shapes when they differ. */
tp_status tp_ox_seq_loop(tp_ox_ctx *c, uint32_t out, const tp_ox_seq *init, const tp_ox_seq *iter,
                         tp_dim trip, tp_ox_seq **last_in, bool *grows) {
    *last_in = NULL;
    *grows = false;
    bool prefix = init->n == init->n_head && iter->n == iter->n_head && iter->n > init->n &&
                  !iter->approx && init->kind == 's' && iter->kind == 's';
    for (uint32_t i = 0; prefix && i < init->n; i++) {
        prefix = init->el[i].rank == iter->el[i].rank;
        for (int32_t d = 0; prefix && d < init->el[i].rank; d++)
            prefix = tp_graph_dim_equal(c->g, init->el[i].dims[d], iter->el[i].dims[d]);
    }
    tp_ox_seq *fin = tp_ox_seq_copy(c->alloc, iter);
    if (!fin) return sequence_nomem(c);
    tp_status st = TP_OK;
    if (prefix) {
        *grows = true;
        fin->n_head = init->n;
        fin->reps = trip;
        tp_dim before;
        if ((st = tp_ox_dim(c, TP_SYM_MAX, trip, tp_dim_static(1), &before)) == TP_OK)
            st = tp_ox_dim(c, TP_SYM_SUB, before, tp_dim_static(1), &before);
        if (st == TP_OK && !(*last_in = tp_ox_seq_copy(c->alloc, fin))) st = sequence_nomem(c);
        if (st == TP_OK) {
            (*last_in)->reps = before;
            seq_expand(c->alloc, *last_in);
        }
        if (st == TP_OK) seq_expand(c->alloc, fin);
    } else if (fin->kind == 's' && init->kind == 's' && init->n && !fin->n) {
        tp_ox_seq_free(c->alloc, fin); /* emptied: at most what it started with */
        if (!(fin = tp_ox_seq_copy(c->alloc, init))) return sequence_nomem(c);
    } else if (fin->kind == 's' && init->kind == 's' && init->n) {
        /* merge: every element of either, as one repeated largest shape */
        for (uint32_t i = 0; st == TP_OK && i < init->n; i++)
            st = seq_append_repeated(c, fin, &init->el[i]);
    }
    if (st != TP_OK) {
        tp_ox_seq_free(c->alloc, fin);
        tp_ox_seq_free(c->alloc, *last_in);
        *last_in = NULL;
        return st;
    }
    if ((st = out_seq(c, out, fin)) != TP_OK) {
        tp_ox_seq_free(c->alloc, *last_in);
        *last_in = NULL;
    }
    return st;
}

static bool same_elements(const tp_ox_ctx *c, const tp_ox_seq *a, const tp_ox_seq *b) {
    if (a->kind != b->kind || a->none != b->none || a->n != b->n || a->n_head != b->n_head ||
        !tp_graph_dim_equal(c->g, a->reps, b->reps) || !a->inner != !b->inner)
        return false;
    for (uint32_t i = 0; i < a->n; i++) {
        if (a->el[i].rank != b->el[i].rank) return false;
        for (int32_t d = 0; d < a->el[i].rank; d++)
            if (!tp_graph_dim_equal(c->g, a->el[i].dims[d], b->el[i].dims[d])) return false;
    }
    return !a->inner || same_elements(c, a->inner, b->inner);
}

/* a and b merged (an If output whose branch is not known): a itself when both
 * hold the same shapes, else an upper bound (every element the largest shape of
 * either, as many as the longer). An optional that may or may not hold a value
 * holds the other's (approx: OptionalHasElement is then unknown). */
static tp_status seq_merge(tp_ox_ctx *c, const tp_ox_seq *a, const tp_ox_seq *b, tp_ox_seq **out) {
    *out = NULL;
    if (a->kind != b->kind)
        return tp_ox_fail(c, TP_ERR_SHAPE, "the branches' values differ in kind");
    if (same_elements(c, a, b))
        return (*out = tp_ox_seq_copy(c->alloc, a)) ? TP_OK : sequence_nomem(c);
    if (a->kind == 'o') {
        const tp_ox_seq *has = a->none ? b : a, *other = a->none ? a : b;
        tp_ox_seq *m = NULL;
        tp_status st = TP_OK;
        if (other->none) {
            m = tp_ox_seq_copy(c->alloc, has);
        } else if (has->inner && other->inner) {
            tp_ox_seq *in = NULL;
            if ((st = seq_merge(c, has->inner, other->inner, &in)) != TP_OK) return st;
            if ((m = tp_ox_seq_copy(c->alloc, has))) {
                tp_ox_seq_free(c->alloc, m->inner);
                m->inner = in;
            } else {
                tp_ox_seq_free(c->alloc, in);
            }
        } else if (has->n == 1 && other->n == 1 && has->el[0].rank == other->el[0].rank) {
            if ((m = tp_ox_seq_copy(c->alloc, has)))
                for (int32_t d = 0; st == TP_OK && d < m->el[0].rank; d++)
                    if (!tp_graph_dim_equal(c->g, m->el[0].dims[d], other->el[0].dims[d]))
                        st = tp_ox_dim(c, TP_SYM_MAX, m->el[0].dims[d], other->el[0].dims[d],
                                       &m->el[0].dims[d]);
        } else {
            return tp_ox_fail(c, TP_ERR_UNSUPPORTED,
                              "the branches' optionals hold different kinds");
        }
        if (!m) return sequence_nomem(c);
        m->approx = true;
        if (st != TP_OK)
            tp_ox_seq_free(c->alloc, m);
        else
            *out = m;
        return st;
    }
    tp_ox_seq *m = tp_ox_seq_copy(c->alloc, a);
    if (!m) return sequence_nomem(c);
    tp_dim la, lb;
    tp_status st = seq_len(c, a, &la);
    if (st == TP_OK) st = seq_len(c, b, &lb);
    if (st == TP_OK && (m->n || b->n)) {
        if (!m->n) { /* a is empty: b's shapes */
            tp_ox_seq_free(c->alloc, m);
            if (!(m = tp_ox_seq_copy(c->alloc, b))) return sequence_nomem(c);
        }
        st = seq_collapse(c, m);
        for (uint32_t i = 0; st == TP_OK && i < b->n; i++) {
            if (b->el[i].rank != m->el[0].rank) {
                st = tp_ox_fail(c, TP_ERR_UNSUPPORTED, "sequence elements of different ranks");
                break;
            }
            for (int32_t d = 0; st == TP_OK && d < b->el[i].rank; d++)
                if (!tp_graph_dim_equal(c->g, m->el[0].dims[d], b->el[i].dims[d]))
                    st = tp_ox_dim(c, TP_SYM_MAX, m->el[0].dims[d], b->el[i].dims[d],
                                   &m->el[0].dims[d]);
        }
        if (st == TP_OK && !tp_graph_dim_equal(c->g, la, lb))
            st = tp_ox_dim(c, TP_SYM_MAX, la, lb, &m->reps);
        m->approx = true;
    }
    if (st != TP_OK) {
        tp_ox_seq_free(c->alloc, m);
        return st;
    }
    *out = m;
    return TP_OK;
}

tp_status tp_ox_seq_if_output(tp_ox_ctx *c, uint32_t out, const tp_ox_seq *a, const tp_ox_seq *b) {
    tp_ox_seq *m;
    tp_status st = seq_merge(c, a, b, &m);
    return st == TP_OK ? out_seq(c, out, m) : st;
}
