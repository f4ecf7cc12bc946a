/* Value propagation of small tensors for the ONNX importer (see onnx_values.h). */
#include "import/onnx_values.h"

#include <math.h>
#include <string.h>

#include "core/mem.h"

/* ---- symbolic arithmetic with a memo of built expressions ---- */

/* The definition of a derived dim: the memo, else the graph's own (expressions
 * built by the IR's shape rules, tp_ox_ir_shape). */
static const tp_ox_symdef *symdef_buf(const tp_ox_syms *s, tp_dim d, tp_ox_symdef *buf) {
    if (tp_dim_is_static(d) || d.sym < 0) return NULL;
    if ((size_t)d.sym < s->cap && s->defs[d.sym].set) return &s->defs[d.sym];
    if (!tp_graph_dim_def(s->g, d, &buf->op, &buf->a, &buf->b)) return NULL;
    buf->set = true;
    return buf;
}
#define symdef(s, d) symdef_buf((s), (d), &(tp_ox_symdef){0})

static bool deq(const tp_ox_syms *s, tp_dim x, tp_dim y) {
    return tp_graph_dim_equal(s->g, x, y);
}

/* d = min(c, v) with c static (either operand order). */
static bool min_const(const tp_ox_syms *s, tp_dim d, int64_t *c, tp_dim *v) {
    const tp_ox_symdef *e = symdef(s, d);
    if (!e || e->op != TP_SYM_MIN) return false;
    if (tp_dim_is_static(e->a)) {
        *c = e->a.size;
        *v = e->b;
        return true;
    }
    if (tp_dim_is_static(e->b)) {
        *c = e->b.size;
        *v = e->a;
        return true;
    }
    return false;
}

/* Is x <= y for every binding (all dims >= 0)? A sound, incomplete prover over the
 * expressions the converter built; false means "not proven". */
static bool le(const tp_ox_syms *s, tp_dim x, tp_dim y, int depth) {
    if (deq(s, x, y)) return true;
    if (tp_dim_is_static(x) && tp_dim_is_static(y)) return x.size <= y.size;
    if (tp_dim_is_static(x) && x.size <= 0) return true;
    if (depth <= 0) return false;
    const tp_ox_symdef *ex = symdef(s, x), *ey = symdef(s, y);
    if (ey && (ey->op == TP_SYM_MAX || ey->op == TP_SYM_ADD) &&
        (le(s, x, ey->a, depth - 1) || le(s, x, ey->b, depth - 1)))
        return true;
    if (ey && ey->op == TP_SYM_MUL && tp_dim_is_static(ey->a) && ey->a.size >= 1 &&
        le(s, x, ey->b, depth - 1))
        return true;
    if (!ex) return false;
    switch (ex->op) {
    case TP_SYM_MIN:
        return le(s, ex->a, y, depth - 1) || le(s, ex->b, y, depth - 1);
    case TP_SYM_DIV_FLOOR:
    case TP_SYM_DIV_CEIL:
        return tp_dim_is_static(ex->b) && ex->b.size >= 1 && le(s, ex->a, y, depth - 1);
    case TP_SYM_SUB: {
        if (le(s, ex->a, y, depth - 1)) return true;
        /* min(c, p+q) - min(c, p) <= q: a slice [p : p+q] clamped to c */
        int64_t c1, c2;
        tp_dim v1, v2;
        if (min_const(s, ex->a, &c1, &v1) && min_const(s, ex->b, &c2, &v2) && c1 == c2) {
            const tp_ox_symdef *sum = symdef(s, v1);
            if (sum && sum->op == TP_SYM_ADD) {
                if (deq(s, sum->a, v2) && le(s, sum->b, y, depth - 1)) return true;
                if (deq(s, sum->b, v2) && le(s, sum->a, y, depth - 1)) return true;
            }
        }
        return false;
    }
    default:
        return false;
    }
}

tp_status tp_ox_sym_expr(tp_ox_syms *s, tp_sym_op op, tp_dim a, tp_dim b, tp_dim *out,
                         tp_error *err) {
    const tp_ox_symdef *e;
    switch (op) {
    case TP_SYM_ADD: /* (x-y)+y = x, y+(x-y) = x (a dim x-y is never negative) */
        if ((e = symdef(s, a)) != NULL && e->op == TP_SYM_SUB && tp_graph_dim_equal(s->g, e->b, b))
            return *out = e->a, TP_OK;
        if ((e = symdef(s, b)) != NULL && e->op == TP_SYM_SUB && tp_graph_dim_equal(s->g, e->b, a))
            return *out = e->a, TP_OK;
        break;
    case TP_SYM_SUB: /* (x+y)-y = x, (x+y)-x = y */
        if ((e = symdef(s, a)) != NULL && e->op == TP_SYM_ADD) {
            if (tp_graph_dim_equal(s->g, e->b, b)) return *out = e->a, TP_OK;
            if (tp_graph_dim_equal(s->g, e->a, b)) return *out = e->b, TP_OK;
        }
        break;
    case TP_SYM_DIV_FLOOR: /* (k*x)/k = x, (m*x)/k = (m/k)*x when k divides m */
    case TP_SYM_DIV_CEIL:
        if (tp_dim_is_static(b) && b.size > 0 && (e = symdef(s, a)) != NULL &&
            e->op == TP_SYM_MUL) {
            tp_dim k = tp_dim_is_static(e->a) ? e->a : e->b,
                   x = tp_dim_is_static(e->a) ? e->b : e->a;
            if (tp_dim_is_static(k) && k.size % b.size == 0) {
                if (k.size == b.size) return *out = x, TP_OK;
                return tp_ox_sym_expr(s, TP_SYM_MUL, tp_dim_static(k.size / b.size), x, out, err);
            }
        }
        break;
    case TP_SYM_MAX: /* max(a,b) = b when a <= b is provable, and vice versa */
        if (le(s, b, a, 8)) return *out = a, TP_OK;
        if (le(s, a, b, 8)) return *out = b, TP_OK;
        break;
    case TP_SYM_MIN:
        if (le(s, a, b, 8)) return *out = a, TP_OK;
        if (le(s, b, a, 8)) return *out = b, TP_OK;
        break;
    default:
        break;
    }
    tp_status st = tp_graph_dim_expr(s->g, op, a, b, out, err);
    if (st != TP_OK || tp_dim_is_static(*out) || out->sym < 0) return st;
    size_t id = (size_t)out->sym;
    if (id >= s->cap) {
        size_t nc = s->cap ? s->cap : 64;
        while (nc <= id)
            nc *= 2;
        tp_ox_symdef *nd = tp_mem_realloc(s->alloc, s->defs, s->cap * sizeof *nd, nc * sizeof *nd);
        if (!nd) return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory (symbol memo)");
        memset(nd + s->cap, 0, (nc - s->cap) * sizeof *nd);
        s->defs = nd;
        s->cap = nc;
    }
    if (!s->defs[id].set && !tp_graph_dim_equal(s->g, *out, a) &&
        !tp_graph_dim_equal(s->g, *out, b)) {
        s->defs[id].set = true;
        s->defs[id].op = op;
        s->defs[id].a = a;
        s->defs[id].b = b;
    }
    return TP_OK;
}

void tp_ox_syms_free(tp_ox_syms *s) {
    tp_mem_free(s->alloc, s->defs, s->cap * sizeof *s->defs);
    s->defs = NULL;
    s->cap = 0;
    tp_mem_free(s->alloc, s->pre_bound, s->cap_pre_bound * sizeof *s->pre_bound);
    s->pre_bound = NULL;
    s->n_pre_bound = s->cap_pre_bound = 0;
    tp_mem_free(s->alloc, s->pb_value, s->cap_pb_value * sizeof *s->pb_value);
    tp_mem_free(s->alloc, s->pb_known, s->cap_pb_known * sizeof *s->pb_known);
    s->pb_value = NULL;
    s->pb_known = NULL;
    s->pb_len = s->cap_pb_value = s->cap_pb_known = 0;
}

tp_status tp_ox_syms_pre_bound(tp_ox_syms *s, tp_dim d, int64_t value, tp_error *err) {
    if (tp_dim_is_static(d)) return TP_OK;
    if (!tp_mem_grow(s->alloc, (void **)&s->pre_bound, sizeof *s->pre_bound, &s->cap_pre_bound,
                     s->n_pre_bound + 1))
        return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory (bound dims)");
    s->pre_bound[s->n_pre_bound].sym = d.sym;
    s->pre_bound[s->n_pre_bound].value = value;
    s->n_pre_bound++;
    s->pb_len = 0; /* the values derived so far may change */
    return TP_OK;
}

tp_ox_value *tp_ox_value_new(const tp_allocator *a, int64_t n, bool is_float) {
    if (n < 0 || n > TP_OX_MAX_VALUES) return NULL;
    tp_ox_value *v = tp_mem_calloc(a, 1, sizeof *v);
    if (!v) return NULL;
    v->n = n;
    v->is_float = is_float;
    size_t cnt = n ? (size_t)n : 1;
    if (is_float)
        v->f = tp_mem_calloc(a, cnt, sizeof *v->f);
    else
        v->d = tp_mem_calloc(a, cnt, sizeof *v->d);
    if (!v->f && !v->d) {
        tp_mem_free(a, v, sizeof *v);
        return NULL;
    }
    return v;
}

/* Make room for scaled symbolic float elements (all plain at first). */
static bool value_sym_alloc(const tp_allocator *a, tp_ox_value *v) {
    if (v->fs) return true;
    size_t cnt = v->n ? (size_t)v->n : 1;
    v->fs = tp_mem_calloc(a, cnt, sizeof *v->fs);
    v->fk = tp_mem_calloc(a, cnt, sizeof *v->fk);
    if (v->fs && v->fk) {
        for (size_t i = 0; i < cnt; i++)
            v->fs[i] = tp_dim_static(0);
        return true;
    }
    tp_mem_free(a, v->fs, v->fs ? cnt * sizeof *v->fs : 0);
    tp_mem_free(a, v->fk, v->fk ? cnt * sizeof *v->fk : 0);
    v->fs = NULL;
    v->fk = NULL;
    return false;
}

/* Element i of a float value is scale x symbolic dim. */
static bool value_sym(const tp_ox_value *v, int64_t i, double *k, tp_dim *d) {
    if (!v->is_float || !v->fs || i >= v->n || tp_dim_is_static(v->fs[i])) return false;
    *k = v->fk[i];
    *d = v->fs[i];
    return true;
}

static tp_status set_sym(const tp_allocator *a, tp_ox_value *r, int64_t i, double k, tp_dim d,
                         tp_error *err) {
    if (!value_sym_alloc(a, r))
        return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory (values)");
    r->f[i] = NAN;
    r->fk[i] = k;
    r->fs[i] = d;
    return TP_OK;
}

void tp_ox_value_free(const tp_allocator *a, tp_ox_value *v) {
    if (!v) return;
    if (v->seq) {
        tp_ox_seq_free(a, v->seq);
        tp_mem_free(a, v, sizeof *v);
        return;
    }
    size_t cnt = v->n ? (size_t)v->n : 1;
    if (v->fs) tp_mem_free(a, v->fs, cnt * sizeof *v->fs);
    if (v->fk) tp_mem_free(a, v->fk, cnt * sizeof *v->fk);
    if (v->f) tp_mem_free(a, v->f, cnt * sizeof *v->f);
    if (v->d) tp_mem_free(a, v->d, cnt * sizeof *v->d);
    tp_mem_free(a, v, sizeof *v);
}

tp_ox_value *tp_ox_value_copy(const tp_allocator *a, const tp_ox_value *v) {
    if (v->seq) {
        tp_ox_seq *s = tp_ox_seq_copy(a, v->seq);
        return s ? tp_ox_value_of_seq(a, s) : NULL;
    }
    tp_ox_value *c = tp_ox_value_new(a, v->n, v->is_float);
    if (!c) return NULL;
    if (v->n) {
        if (v->is_float)
            memcpy(c->f, v->f, (size_t)v->n * sizeof *c->f);
        else
            memcpy(c->d, v->d, (size_t)v->n * sizeof *c->d);
    }
    if (v->fs) {
        if (!value_sym_alloc(a, c)) {
            tp_ox_value_free(a, c);
            return NULL;
        }
        memcpy(c->fs, v->fs, (size_t)v->n * sizeof *c->fs);
        memcpy(c->fk, v->fk, (size_t)v->n * sizeof *c->fk);
    }
    return c;
}

bool tp_ox_value_int(const tp_ox_value *v, int64_t i, int64_t *out) {
    if (!v || i < 0 || i >= v->n) return false;
    if (v->is_float) {
        double x = v->f[i];
        if (!(x > -9.2e18 && x < 9.2e18)) return false;
        *out = (int64_t)x;
        return true;
    }
    if (!tp_dim_is_static(v->d[i])) return false;
    *out = v->d[i].size;
    return true;
}

bool tp_ox_shape_static_count(const tp_shape *s, int64_t limit, int64_t *out) {
    int64_t n = 1;
    for (int32_t i = 0; i < s->rank; i++) {
        if (!tp_dim_is_static(s->dims[i]) || s->dims[i].size < 0) return false;
        if (s->dims[i].size && n > limit / s->dims[i].size) return false;
        n *= s->dims[i].size;
    }
    if (n > limit) return false;
    *out = n;
    return true;
}

static bool tracked_type(int32_t t, bool *is_float) {
    switch (t) {
    case TP_ONNX_FLOAT:
    case TP_ONNX_DOUBLE:
    case TP_ONNX_FLOAT16:
    case TP_ONNX_BFLOAT16:
        *is_float = true;
        return true;
    case TP_ONNX_INT64:
    case TP_ONNX_INT32:
    case TP_ONNX_INT16:
    case TP_ONNX_INT8:
    case TP_ONNX_UINT8:
    case TP_ONNX_UINT16:
    case TP_ONNX_UINT32:
    case TP_ONNX_UINT64:
    case TP_ONNX_BOOL:
        *is_float = false;
        return true;
    default:
        return false;
    }
}

tp_status tp_ox_value_from_tensor(const tp_allocator *a, const tp_onnx_model *m,
                                  const tp_onnx_tensor *t, tp_ox_value **out, tp_error *err) {
    *out = NULL;
    bool is_float;
    if (!tracked_type(t->data_type, &is_float)) return TP_OK;
    if (t->n_elements > TP_OX_MAX_VALUES || t->location == TP_ONNX_DATA_EXTERNAL) return TP_OK;
    int64_t n = (int64_t)t->n_elements;
    tp_ox_value *v = tp_ox_value_new(a, n, is_float);
    if (!v)
        return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory for the values of '%s'",
                            t->name);
    uint64_t got = 0;
    tp_status st = TP_OK;
    if (n > 0) {
        if (is_float) {
            st = tp__onnx_tensor_read_f64(m, t, v->f, (uint64_t)n, &got, err);
        } else {
            int64_t buf[TP_OX_MAX_VALUES];
            st = tp__onnx_tensor_read_i64(m, t, buf, (uint64_t)n, &got, err);
            for (int64_t i = 0; st == TP_OK && i < n; i++)
                v->d[i] = tp_dim_static(t->data_type == TP_ONNX_BOOL ? (buf[i] != 0) : buf[i]);
        }
    }
    if (st == TP_ERR_UNSUPPORTED) {
        tp_ox_value_free(a, v);
        return TP_OK; /* not tracked */
    }
    if (st != TP_OK) {
        tp_ox_value_free(a, v);
        return st;
    }
    if (got != (uint64_t)n) {
        tp_ox_value_free(a, v);
        return TP_OK; /* no data (e.g. an empty typed field): untracked */
    }
    *out = v;
    return TP_OK;
}

/* Index of the input element feeding output element `flat` under broadcasting. */
static int64_t bcast_index(int64_t flat, const tp_shape *out, const tp_shape *in) {
    int64_t idx = 0, stride = 1;
    int32_t off = out->rank - in->rank;
    for (int32_t k = out->rank - 1; k >= 0; k--) {
        int64_t od = out->dims[k].size;
        int64_t coord = od ? flat % od : 0;
        flat = od ? flat / od : 0;
        int32_t ik = k - off;
        if (ik < 0) continue;
        int64_t id = in->dims[ik].size;
        if (id != 1) idx += coord * stride;
        stride *= id;
    }
    return idx;
}

static int64_t ifloordiv(int64_t x, int64_t y) {
    int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) q--;
    return q;
}

/* A named symbol's value given before converting (the last given wins). */
static bool given_value(const tp_ox_syms *s, tp_sym_id sym, int64_t *v) {
    for (size_t i = s->n_pre_bound; i > 0; i--)
        if (s->pre_bound[i - 1].sym == sym) {
            *v = s->pre_bound[i - 1].value;
            return true;
        }
    return false;
}

/* A static dim or a symbol pre_bound_value has already filled: its value. */
static bool filled_value(const tp_ox_syms *s, tp_dim d, int64_t *v) {
    if (tp_dim_is_static(d)) {
        *v = d.size;
        return true;
    }
    if ((size_t)d.sym >= s->pb_len || !s->pb_known[d.sym]) return false;
    *v = s->pb_value[d.sym];
    return true;
}

/* A static dim, or a symbol whose value follows from the dims bound before converting: a
 * named one given, or an expression of such (the length of an STFT's frames computed from the
 * samples, compared in an If: silero_vad v5). Out of memory: not known (a comparison then
 * stays open, as without the values). */
static bool pre_bound_value(tp_ox_syms *s, tp_dim d, int64_t *v) {
    if (tp_dim_is_static(d)) {
        *v = d.size;
        return true;
    }
    if (!s->n_pre_bound || d.sym < 0) return false;
    size_t want = (size_t)d.sym + 1;
    if (want > s->pb_len) {
        if (!tp_mem_grow(s->alloc, (void **)&s->pb_value, sizeof *s->pb_value, &s->cap_pb_value,
                         want) ||
            !tp_mem_grow(s->alloc, (void **)&s->pb_known, sizeof *s->pb_known, &s->cap_pb_known,
                         want))
            return false;
        for (size_t id = s->pb_len; id < want; id++) {
            tp_dim self = {0, (tp_sym_id)id}, a, b, r;
            tp_sym_op op;
            int64_t va, vb;
            bool known;
            if (!tp_graph_dim_def(s->g, self, &op, &a, &b)) {
                known = given_value(s, (tp_sym_id)id, &s->pb_value[id]);
            } else { /* its operands are static or earlier symbols, filled before it */
                known = filled_value(s, a, &va) && filled_value(s, b, &vb) &&
                        tp_graph_dim_expr(s->g, op, tp_dim_static(va), tp_dim_static(vb), &r,
                                          NULL) == TP_OK &&
                        tp_dim_is_static(r);
                if (known) s->pb_value[id] = r.size;
            }
            s->pb_known[id] = known;
            s->pb_len = id + 1;
        }
    }
    if (!s->pb_known[d.sym]) return false;
    *v = s->pb_value[d.sym];
    return true;
}

/* One integer binary op; *known false when the result cannot be known. */
static tp_status int_op(tp_ox_syms *syms, char op, tp_dim x, tp_dim y, tp_dim *r, bool *known,
                        tp_error *err) {
    *known = true;
    bool sx = tp_dim_is_static(x), sy = tp_dim_is_static(y);
    int64_t bx, by;
    if (!(sx && sy) && (op == '=' || op == '<' || op == '>') && pre_bound_value(syms, x, &bx) &&
        pre_bound_value(syms, y, &by)) {
        /* a comparison of dims bound before loading (an If on x.size(1) > 512) */
        x = tp_dim_static(bx);
        y = tp_dim_static(by);
        sx = sy = true;
    }
    if (sx && sy) {
        int64_t a = x.size, b = y.size, v = 0;
        switch (op) {
        case 'A':
            if (__builtin_add_overflow(a, b, &v)) *known = false;
            break;
        case 'S':
            if (__builtin_sub_overflow(a, b, &v)) *known = false;
            break;
        case 'M':
            if (__builtin_mul_overflow(a, b, &v)) *known = false;
            break;
        case 'D':
            if (b == 0 || (a == INT64_MIN && b == -1))
                *known = false;
            else
                v = a / b; /* ONNX integer Div truncates */
            break;
        case 'R':
            if (b == 0 || (a == INT64_MIN && b == -1))
                *known = false;
            else
                v = a - ifloordiv(a, b) * b; /* Mod with fmod=0: sign of divisor */
            break;
        case 'x':
            v = a > b ? a : b;
            break;
        case 'n':
            v = a < b ? a : b;
            break;
        case '=':
            v = a == b;
            break;
        case '<':
            v = a < b;
            break;
        case '>':
            v = a > b;
            break;
        case 'a':
            v = (a != 0) && (b != 0);
            break;
        case 'o':
            v = (a != 0) || (b != 0);
            break;
        default:
            *known = false;
        }
        *r = tp_dim_static(v);
        return TP_OK;
    }
    /* At least one symbolic operand. */
    tp_sym_op so;
    switch (op) {
    case 'A':
        if (sx && x.size == 0) {
            *r = y;
            return TP_OK;
        }
        if (sy && y.size == 0) {
            *r = x;
            return TP_OK;
        }
        so = TP_SYM_ADD;
        break;
    case 'S':
        if (sy && y.size == 0) {
            *r = x;
            return TP_OK;
        }
        if (tp_graph_dim_equal(syms->g, x, y)) {
            *r = tp_dim_static(0);
            return TP_OK;
        }
        so = TP_SYM_SUB;
        break;
    case 'M':
        if (sx && x.size == 1) {
            *r = y;
            return TP_OK;
        }
        if (sy && y.size == 1) {
            *r = x;
            return TP_OK;
        }
        if ((sx && x.size == 0) || (sy && y.size == 0)) {
            *r = tp_dim_static(0);
            return TP_OK;
        }
        if ((sx && x.size < 0) || (sy && y.size < 0)) {
            *known = false;
            return TP_OK;
        }
        so = TP_SYM_MUL;
        break;
    case 'D':
        if (sy && y.size == 1) {
            *r = x;
            return TP_OK;
        }
        if (tp_graph_dim_equal(syms->g, x, y)) {
            *r = tp_dim_static(1);
            return TP_OK;
        }
        if ((sx && x.size < 0) || !sy || y.size <= 0) {
            *known = false;
            return TP_OK;
        }
        so = TP_SYM_DIV_FLOOR; /* dims are >= 0: truncation == floor */
        break;
    case 'x':
        if (tp_graph_dim_equal(syms->g, x, y)) {
            *r = x;
            return TP_OK;
        }
        so = TP_SYM_MAX;
        break;
    case 'n':
        if (tp_graph_dim_equal(syms->g, x, y)) {
            *r = x;
            return TP_OK;
        }
        so = TP_SYM_MIN;
        break;
    case '=':
        if (tp_graph_dim_equal(syms->g, x, y)) {
            *r = tp_dim_static(1);
            return TP_OK;
        }
        /* a symbolic dim compared with a negative static value */
        if ((sx && x.size < 0) || (sy && y.size < 0)) {
            *r = tp_dim_static(0);
            return TP_OK;
        }
        *known = false;
        return TP_OK;
    default:
        *known = false;
        return TP_OK;
    }
    if ((sx && x.size < 0) || (sy && y.size < 0)) {
        *known = false;
        return TP_OK;
    }
    return tp_ox_sym_expr(syms, so, x, y, r, err);
}

static double float_op(char op, double a, double b, bool *known) {
    *known = !isnan(a) && !isnan(b); /* NaN: an element that is not known */
    if (!*known) return 0;
    switch (op) {
    case 'A':
        return a + b;
    case 'S':
        return a - b;
    case 'M':
        return a * b;
    case 'D':
        return a / b;
    case 'R':
        return fmod(a, b);
    case 'x':
        return a > b ? a : b;
    case 'n':
        return a < b ? a : b;
    case '=':
        return a == b;
    case '<':
        return a < b;
    case '>':
        return a > b;
    default:
        *known = false;
        return 0;
    }
}

tp_status tp_ox_value_binary(tp_ox_syms *g, const tp_allocator *a, char op, const tp_ox_value *x,
                             const tp_shape *xs, const tp_ox_value *y, const tp_shape *ys,
                             const tp_shape *out_shape, bool is_float, tp_ox_value **out,
                             tp_error *err) {
    *out = NULL;
    int64_t n;
    if (!tp_ox_shape_static_count(out_shape, TP_OX_MAX_VALUES, &n)) return TP_OK;
    if (x->is_float != y->is_float) return TP_OK;
    tp_ox_value *r = tp_ox_value_new(a, n, is_float);
    if (!r) return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory (values)");
    for (int64_t i = 0; i < n; i++) {
        int64_t ix = bcast_index(i, out_shape, xs), iy = bcast_index(i, out_shape, ys);
        bool known = true;
        if (ix >= x->n || iy >= y->n) {
            known = false;
        } else if (x->is_float) {
            double k, c;
            tp_dim d;
            bool sx = value_sym(x, ix, &k, &d), sy = !sx && value_sym(y, iy, &k, &d);
            c = sx ? y->f[iy] : x->f[ix];
            if ((sx || sy) && is_float && !isnan(c) &&
                !value_sym(sx ? y : x, sx ? iy : ix, &k, &d) &&
                (op == 'M' || (op == 'D' && sx && c != 0.0))) {
                /* scaled dim times / divided by a constant */
                tp_status st = set_sym(a, r, i, op == 'M' ? k * c : k / c, d, err);
                if (st != TP_OK) {
                    tp_ox_value_free(a, r);
                    return st;
                }
                continue;
            }
            double v = float_op(op, x->f[ix], y->f[iy], &known);
            if (is_float)
                r->f[i] = v;
            else
                r->d[i] = tp_dim_static((int64_t)v);
        } else {
            tp_dim d;
            tp_status st = int_op(g, op, x->d[ix], y->d[iy], &d, &known, err);
            if (st != TP_OK) {
                tp_ox_value_free(a, r);
                return st;
            }
            if (known) {
                if (is_float) {
                    if (!tp_dim_is_static(d))
                        known = false;
                    else
                        r->f[i] = (double)d.size;
                } else {
                    r->d[i] = d;
                }
            }
        }
        if (!known) {
            tp_ox_value_free(a, r);
            return TP_OK;
        }
    }
    *out = r;
    return TP_OK;
}

tp_status tp_ox_value_where(const tp_allocator *a, const tp_ox_value *c, const tp_shape *cs,
                            const tp_ox_value *x, const tp_shape *xs, const tp_ox_value *y,
                            const tp_shape *ys, const tp_shape *out_shape, tp_ox_value **out,
                            tp_error *err) {
    *out = NULL;
    int64_t n;
    if (!tp_ox_shape_static_count(out_shape, TP_OX_MAX_VALUES, &n)) return TP_OK;
    if (x->is_float != y->is_float || c->is_float) return TP_OK;
    tp_ox_value *r = tp_ox_value_new(a, n, x->is_float);
    if (!r) return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory (values)");
    for (int64_t i = 0; i < n; i++) {
        int64_t ic = bcast_index(i, out_shape, cs), ix = bcast_index(i, out_shape, xs),
                iy = bcast_index(i, out_shape, ys);
        if (ic >= c->n || ix >= x->n || iy >= y->n || !tp_dim_is_static(c->d[ic])) {
            tp_ox_value_free(a, r);
            return TP_OK;
        }
        bool take_x = c->d[ic].size != 0;
        if (r->is_float)
            r->f[i] = take_x ? x->f[ix] : y->f[iy];
        else
            r->d[i] = take_x ? x->d[ix] : y->d[iy];
    }
    *out = r;
    return TP_OK;
}

tp_status tp_ox_value_pick(const tp_allocator *a, const tp_ox_value *v, const int64_t *map,
                           int64_t n, tp_ox_value **out, tp_error *err) {
    *out = NULL;
    if (n > TP_OX_MAX_VALUES) return TP_OK;
    tp_ox_value *r = tp_ox_value_new(a, n, v->is_float);
    if (!r) return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory (values)");
    for (int64_t i = 0; i < n; i++) {
        if (map[i] < 0 || map[i] >= v->n) {
            tp_ox_value_free(a, r);
            return TP_OK;
        }
        if (v->is_float)
            r->f[i] = v->f[map[i]];
        else
            r->d[i] = v->d[map[i]];
    }
    *out = r;
    return TP_OK;
}

tp_status tp_ox_value_gather(const tp_allocator *a, const tp_ox_value *data, const tp_shape *ds,
                             const tp_ox_value *idx, const tp_shape *is, int64_t axis,
                             tp_ox_value **out, tp_error *err) {
    *out = NULL;
    int64_t nd, ni;
    if (!tp_ox_shape_static_count(ds, TP_OX_MAX_VALUES, &nd) ||
        !tp_ox_shape_static_count(is, TP_OX_MAX_VALUES, &ni) || axis < 0 || axis >= ds->rank)
        return TP_OK;
    int64_t outer = 1, inner = 1, len = ds->dims[axis].size;
    for (int32_t k = 0; k < axis; k++)
        outer *= ds->dims[k].size;
    for (int32_t k = (int32_t)axis + 1; k < ds->rank; k++)
        inner *= ds->dims[k].size;
    int64_t n = outer * ni * inner;
    if (n > TP_OX_MAX_VALUES) return TP_OK;
    int64_t map[TP_OX_MAX_VALUES];
    int64_t p = 0;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < ni; j++) {
            int64_t ix;
            if (!tp_ox_value_int(idx, j, &ix)) return TP_OK;
            if (ix < 0) ix += len;
            if (ix < 0 || ix >= len) return TP_OK;
            for (int64_t k = 0; k < inner; k++)
                map[p++] = (o * len + ix) * inner + k;
        }
    return tp_ox_value_pick(a, data, map, n, out, err);
}

tp_status tp_ox_value_concat(const tp_allocator *a, const tp_ox_value *const *vs,
                             const tp_shape *const *shapes, uint32_t n, int64_t axis,
                             const tp_shape *out_shape, tp_ox_value **out, tp_error *err) {
    *out = NULL;
    int64_t total;
    if (n == 0 || !tp_ox_shape_static_count(out_shape, TP_OX_MAX_VALUES, &total)) return TP_OK;
    bool is_float = vs[0]->is_float;
    for (uint32_t i = 0; i < n; i++)
        if (vs[i]->is_float != is_float) return TP_OK;
    tp_ox_value *r = tp_ox_value_new(a, total, is_float);
    if (!r) return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory (values)");
    int64_t outer = 1;
    for (int32_t k = 0; k < axis; k++)
        outer *= out_shape->dims[k].size;
    int64_t p = 0;
    for (int64_t o = 0; o < outer; o++)
        for (uint32_t i = 0; i < n; i++) {
            int64_t chunk = 1;
            for (int32_t k = (int32_t)axis; k < shapes[i]->rank; k++)
                chunk *= shapes[i]->dims[k].size;
            for (int64_t k = 0; k < chunk; k++) {
                int64_t src = o * chunk + k;
                if (src >= vs[i]->n || p >= total) {
                    tp_ox_value_free(a, r);
                    return TP_OK;
                }
                if (is_float)
                    r->f[p++] = vs[i]->f[src];
                else
                    r->d[p++] = vs[i]->d[src];
            }
        }
    if (p != total) {
        tp_ox_value_free(a, r);
        return TP_OK;
    }
    *out = r;
    return TP_OK;
}

/* k is (within rounding) the integer *m. */
static bool near_int(double k, int64_t *m) {
    double r = round(k);
    if (!(r >= 1 && r < 1e9) || fabs(k - r) > 1e-9 * r) return false;
    *m = (int64_t)r;
    return true;
}

/* k x d as a dim with rounding mode 'f' floor / 'c' ceil / 't' truncate;
 * false when it is not a dim expression. */
static bool sym_to_dim(tp_ox_syms *s, double k, tp_dim d, char mode, tp_dim *out, tp_error *err,
                       tp_status *st) {
    int64_t m;
    *st = TP_OK;
    if (!s || !(k > 0)) return false;
    if (near_int(k, &m)) {
        *st = tp_ox_sym_expr(s, TP_SYM_MUL, tp_dim_static(m), d, out, err);
        return *st == TP_OK;
    }
    if (near_int(1.0 / k, &m) && mode != 'r') {
        *st = tp_ox_sym_expr(s, mode == 'c' ? TP_SYM_DIV_CEIL : TP_SYM_DIV_FLOOR, d,
                             tp_dim_static(m), out, err);
        return *st == TP_OK;
    }
    return false;
}

tp_status tp_ox_value_cast(tp_ox_syms *s, const tp_allocator *a, const tp_ox_value *v,
                           bool to_float, bool to_bool, tp_ox_value **out, tp_error *err) {
    *out = NULL;
    tp_ox_value *r = tp_ox_value_new(a, v->n, to_float);
    if (!r) return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory (values)");
    for (int64_t i = 0; i < v->n; i++) {
        double k;
        tp_dim sd;
        tp_status st = TP_OK;
        if (!to_bool && value_sym(v, i, &k, &sd)) {
            if (to_float) {
                st = set_sym(a, r, i, k, sd, err);
            } else if (!sym_to_dim(s, k, sd, 't', &r->d[i], err, &st)) {
                tp_ox_value_free(a, r);
                return st;
            }
            if (st != TP_OK) {
                tp_ox_value_free(a, r);
                return st;
            }
        } else if (v->is_float) {
            double x = v->f[i];
            if (to_bool) x = x != 0.0;
            if (to_float) {
                r->f[i] = x;
            } else {
                if (!(x > -9.2e18 && x < 9.2e18)) {
                    tp_ox_value_free(a, r);
                    return TP_OK;
                }
                r->d[i] = tp_dim_static((int64_t)x);
            }
        } else {
            tp_dim d = v->d[i];
            if (!tp_dim_is_static(d) && to_float && !to_bool) {
                if ((st = set_sym(a, r, i, 1.0, d, err)) != TP_OK) {
                    tp_ox_value_free(a, r);
                    return st;
                }
                continue;
            }
            if (!tp_dim_is_static(d) && to_bool) {
                tp_ox_value_free(a, r);
                return TP_OK;
            }
            if (to_bool) d = tp_dim_static(d.size != 0);
            if (to_float)
                r->f[i] = (double)d.size;
            else
                r->d[i] = d;
        }
    }
    *out = r;
    return TP_OK;
}

tp_status tp_ox_value_round(tp_ox_syms *s, const tp_allocator *a, const tp_ox_value *v, char mode,
                            tp_ox_value **out, tp_error *err) {
    *out = NULL;
    if (!v->is_float) return TP_OK;
    tp_ox_value *r = tp_ox_value_new(a, v->n, true);
    if (!r) return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory (values)");
    for (int64_t i = 0; i < v->n; i++) {
        double k;
        tp_dim sd, d;
        tp_status st = TP_OK;
        if (value_sym(v, i, &k, &sd)) {
            if (!sym_to_dim(s, k, sd, mode, &d, err, &st) ||
                (st = set_sym(a, r, i, 1.0, d, err)) != TP_OK) {
                tp_ox_value_free(a, r);
                return st;
            }
            if (tp_dim_is_static(d)) r->f[i] = (double)d.size, r->fs[i] = tp_dim_static(0);
            continue;
        }
        double x = v->f[i];
        r->f[i] = mode == 'f' ? floor(x) : mode == 'c' ? ceil(x) : nearbyint(x);
    }
    *out = r;
    return TP_OK;
}

tp_status tp_ox_value_reduce(tp_ox_syms *s, const tp_allocator *a, const tp_ox_value *v, char op,
                             tp_ox_value **out, tp_error *err) {
    *out = NULL;
    if (v->seq || v->n <= 0) return TP_OK;
    /* the elements folded by the binary ops' own element rules (int_op, float_op) */
    bool known = true;
    double f = v->is_float ? v->f[0] : 0;
    tp_dim d = v->is_float ? tp_dim_static(0) : v->d[0];
    if (v->is_float && isnan(f)) return TP_OK; /* a scaled symbolic element: unknown */
    for (int64_t i = 1; i < v->n && known; i++) {
        if (v->is_float) {
            f = float_op(op, f, v->f[i], &known);
        } else {
            tp_status st = int_op(s, op, d, v->d[i], &d, &known, err);
            if (st != TP_OK) return st;
        }
    }
    if (!known) return TP_OK;
    tp_ox_value *r = tp_ox_value_new(a, 1, v->is_float);
    if (!r) return tp_error_set(err, TP_ERR_NOMEM, "onnx: out of memory (values)");
    if (v->is_float)
        r->f[0] = f;
    else
        r->d[0] = d;
    *out = r;
    return TP_OK;
}
