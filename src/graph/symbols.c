/* Symbolic dims: named symbols, derived expressions, binding and evaluation.
 *
 * Every symbol (named or derived) has an id; a derived symbol `a op b` only
 * refers to earlier symbols, so re-evaluating the table in id order after a
 * binding change gives every derived value in one pass, and reads
 * (tp_graph_dim_value) never write to the graph. Derived expressions are
 * hash-consed: the same (op, a, b) gives the same symbol, so equal expressions
 * compare equal by id. */
#include "core/mem.h"
#include "graph/graph_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool tp_graph_dim_ok(const tp_graph *g, tp_dim d) {
    if (tp_dim_is_static(d)) return d.size >= 0;
    return d.sym >= 0 && (size_t)d.sym < g->n_syms;
}

/* ---- lookup helpers ---- */

static bool sym_name_eq(const void *ctx, int32_t id, const void *key) {
    const tp_graph *g = ctx;
    return strcmp(g->syms[id].name, (const char *)key) == 0;
}

typedef struct expr_key {
    int32_t op;
    int32_t a_sym, b_sym;
    int64_t a_size, b_size;
} expr_key;

static expr_key make_key(tp_sym_op op, tp_dim a, tp_dim b) {
    expr_key k;
    memset(&k, 0, sizeof k);
    k.op = (int32_t)op;
    k.a_sym = a.sym;
    k.b_sym = b.sym;
    k.a_size = tp_dim_is_static(a) ? a.size : 0;
    k.b_size = tp_dim_is_static(b) ? b.size : 0;
    return k;
}

static bool sym_expr_eq(const void *ctx, int32_t id, const void *key) {
    const tp_graph *g = ctx;
    const tp_gsym *s = &g->syms[id];
    if (s->name) return false;
    expr_key k = make_key(s->op, s->a, s->b);
    return memcmp(&k, key, sizeof k) == 0;
}

static tp_sym_id find_named(const tp_graph *g, const char *name) {
    return tp_idmap_find(&g->sym_names, tp_hash_str(name), sym_name_eq, g, name);
}

/* ---- evaluation ---- */

static void operand(const tp_graph *g, tp_dim d, int64_t *v, int32_t *state, tp_sym_id *unb) {
    if (tp_dim_is_static(d)) {
        *v = d.size;
        *state = SYM_OK;
        *unb = -1;
        return;
    }
    const tp_gsym *s = &g->syms[d.sym];
    *v = s->value;
    *state = s->state;
    *unb = s->first_unbound;
}

static int32_t compute(tp_sym_op op, int64_t a, int64_t b, int64_t *out) {
    switch (op) {
    case TP_SYM_ADD:
        if (a > INT64_MAX - b) return SYM_OVERFLOW;
        *out = a + b;
        return SYM_OK;
    case TP_SYM_SUB:
        if (b > a) return SYM_NEGATIVE;
        *out = a - b;
        return SYM_OK;
    case TP_SYM_MUL:
        if (a != 0 && b > INT64_MAX / a) return SYM_OVERFLOW;
        *out = a * b;
        return SYM_OK;
    case TP_SYM_DIV_FLOOR:
        if (b == 0) return SYM_DIV_ZERO;
        *out = a / b;
        return SYM_OK;
    case TP_SYM_DIV_CEIL:
        if (b == 0) return SYM_DIV_ZERO;
        *out = a / b + (a % b != 0);
        return SYM_OK;
    case TP_SYM_MAX:
        *out = a > b ? a : b;
        return SYM_OK;
    case TP_SYM_MIN:
        *out = a < b ? a : b;
        return SYM_OK;
    }
    return SYM_DIV_ZERO;
}

static void eval_one(tp_graph *g, tp_gsym *s, tp_sym_id id) {
    if (s->name) {
        s->state = s->bound ? SYM_OK : SYM_UNBOUND;
        s->first_unbound = s->bound ? -1 : id;
        if (!s->bound && s->has_upper) {
            /* an unbound data-dependent size takes its upper bound */
            int64_t v;
            int32_t st;
            tp_sym_id u;
            operand(g, s->upper, &v, &st, &u);
            if (st == SYM_OK) {
                s->state = SYM_OK;
                s->value = v;
                s->first_unbound = -1;
            } else if (st != SYM_UNBOUND) {
                s->state = st;
            }
        }
        return;
    }
    int64_t va, vb;
    int32_t sa, sb;
    tp_sym_id ua, ub;
    operand(g, s->a, &va, &sa, &ua);
    operand(g, s->b, &vb, &sb, &ub);
    s->first_unbound = ua >= 0 ? ua : ub;
    if (sa != SYM_OK || sb != SYM_OK) {
        /* an unbound operand wins: binding it is what the user must do first */
        s->state = (sa == SYM_UNBOUND || sb == SYM_UNBOUND) ? SYM_UNBOUND : sa != SYM_OK ? sa : sb;
        return;
    }
    s->state = compute(s->op, va, vb, &s->value);
}

void tp_graph_syms_reeval(tp_graph *g) {
    /* an upper bound may be an expression created after its symbol: repeat while
     * a bounded symbol changes (bounds of bounds chain a few levels at most) */
    for (int pass = 0; pass < 16; pass++) {
        bool changed = false;
        for (size_t i = 0; i < g->n_syms; i++) {
            tp_gsym *s = &g->syms[i];
            int32_t old_state = s->state;
            int64_t old_value = s->value;
            eval_one(g, s, (tp_sym_id)i);
            if (s->has_upper && !s->bound && (s->state != old_state || s->value != old_value))
                changed = true;
        }
        if (!changed) break;
    }
}

tp_status tp_graph_symbol_set_upper(tp_graph *g, tp_dim sym, tp_dim upper, const char *why,
                                    tp_error *err) {
    if (!g || !tp_graph_dim_ok(g, sym) || tp_dim_is_static(sym) || !tp_graph_dim_ok(g, upper))
        return tp_error_set(err, TP_ERR_INVALID, "tp_graph_symbol_set_upper: invalid argument");
    tp_gsym *s = &g->syms[sym.sym];
    if (!s->name)
        return tp_error_set(err, TP_ERR_INVALID, "tp_graph_symbol_set_upper: not a named symbol");
    if (!tp_dim_is_static(upper) && upper.sym == sym.sym)
        return tp_error_set(err, TP_ERR_INVALID,
                            "tp_graph_symbol_set_upper: '%.200s' bounded by itself", s->name);
    const char *w = tp_graph_arena_strdup(g, why ? why : "");
    if (!w) return tp_error_set(err, TP_ERR_NOMEM, "out of memory setting a bound");
    s->has_upper = true;
    s->upper = upper;
    s->upper_why = w;
    tp_graph_syms_reeval(g);
    return TP_OK;
}

bool tp_graph_symbol_upper(const tp_graph *g, uint32_t index, int64_t *value, const char **why) {
    if (!g || index >= g->n_named) return false;
    const tp_gsym *s = &g->syms[g->named[index]];
    if (!s->has_upper || s->bound || s->state != SYM_OK) return false;
    if (value) *value = s->value;
    if (why) *why = s->upper_why;
    return true;
}

/* ---- creation ---- */

static tp_status new_sym(tp_graph *g, const tp_gsym *proto, tp_sym_id *out, tp_error *err) {
    if (g->n_syms >= (size_t)INT32_MAX)
        return tp_error_set(err, TP_ERR_INVALID, "too many symbols in the graph");
    if (!tp_mem_grow(g->alloc, (void **)&g->syms, sizeof *g->syms, &g->cap_syms, g->n_syms + 1))
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory adding a symbol");
    tp_idmap *map = proto->name ? &g->sym_names : &g->sym_exprs;
    if (!tp_idmap_reserve(map, g->alloc))
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory adding a symbol");
    if (proto->name &&
        !tp_mem_grow(g->alloc, (void **)&g->named, sizeof *g->named, &g->cap_named, g->n_named + 1))
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory adding a symbol");
    tp_gsym s = *proto;
    uint64_t hash;
    if (proto->name) {
        s.name = tp_graph_arena_strdup(g, proto->name);
        if (!s.name) return tp_error_set(err, TP_ERR_NOMEM, "out of memory adding a symbol");
        hash = tp_hash_str(s.name);
    } else {
        expr_key k = make_key(s.op, s.a, s.b);
        hash = tp_hash_bytes(&k, sizeof k);
    }
    tp_sym_id id = (tp_sym_id)g->n_syms;
    eval_one(g, &s, id);
    g->syms[g->n_syms++] = s;
    tp_idmap_insert(map, hash, id);
    if (proto->name) g->named[g->n_named++] = id;
    *out = id;
    return TP_OK;
}

tp_status tp_graph_symbol(tp_graph *g, const char *name, tp_dim *out, tp_error *err) {
    if (!g || !name || !out)
        return tp_error_set(err, TP_ERR_INVALID, "tp_graph_symbol: NULL argument");
    if (!name[0] || strchr(name, '=') || strlen(name) > 255)
        return tp_error_set(err, TP_ERR_INVALID,
                            "invalid symbol name '%.64s' (must be 1..255 chars without '=')", name);
    tp_sym_id id = find_named(g, name);
    if (id < 0) {
        tp_gsym proto;
        memset(&proto, 0, sizeof proto);
        proto.name = name;
        proto.first_unbound = -1;
        tp_status st = new_sym(g, &proto, &id, err);
        if (st != TP_OK) return st;
    }
    out->size = 0;
    out->sym = id;
    return TP_OK;
}

static bool is_static_val(tp_dim d, int64_t v) {
    return tp_dim_is_static(d) && d.size == v;
}

/* A symbolic dim as c*x (c static >= 1): x itself (c = 1) or a derived c*x. */
static bool linear_term(const tp_graph *g, tp_dim d, int64_t *c, tp_dim *x) {
    if (tp_dim_is_static(d)) return false;
    const tp_gsym *s = &g->syms[d.sym];
    if (!s->name && s->op == TP_SYM_MUL && tp_dim_is_static(s->a) && s->a.size >= 1 &&
        !tp_dim_is_static(s->b)) {
        *c = s->a.size;
        *x = s->b;
        return true;
    }
    *c = 1;
    *x = d;
    return true;
}

static const char *sym_op_str(tp_sym_op op) {
    switch (op) {
    case TP_SYM_ADD:
        return "+";
    case TP_SYM_SUB:
        return "-";
    case TP_SYM_MUL:
        return "*";
    case TP_SYM_DIV_FLOOR:
        return "/";
    case TP_SYM_DIV_CEIL:
        return "ceil/";
    case TP_SYM_MAX:
        return "max";
    case TP_SYM_MIN:
        return "min";
    }
    return "?";
}

tp_status tp_graph_dim_expr(tp_graph *g, tp_sym_op op, tp_dim a, tp_dim b, tp_dim *out,
                            tp_error *err) {
    if (!g || !out) return tp_error_set(err, TP_ERR_INVALID, "tp_graph_dim_expr: NULL argument");
    if ((unsigned)op > (unsigned)TP_SYM_MIN)
        return tp_error_set(err, TP_ERR_INVALID, "invalid symbolic operator %d", (int)op);
    if (!tp_graph_dim_ok(g, a) || !tp_graph_dim_ok(g, b))
        return tp_error_set(err, TP_ERR_INVALID,
                            "invalid dim operand (size %" PRId64 ", sym %d / size %" PRId64
                            ", sym %d)",
                            a.size, (int)a.sym, b.size, (int)b.sym);
    if (tp_dim_is_static(a) && tp_dim_is_static(b)) {
        int64_t v = 0;
        switch (compute(op, a.size, b.size, &v)) {
        case SYM_OK:
            *out = tp_dim_static(v);
            return TP_OK;
        case SYM_OVERFLOW:
            return tp_error_set(err, TP_ERR_OVERFLOW,
                                "dimension %" PRId64 " %s %" PRId64 " overflows 64 bits", a.size,
                                sym_op_str(op), b.size);
        case SYM_NEGATIVE:
            return tp_error_set(err, TP_ERR_INVALID,
                                "dimension %" PRId64 " - %" PRId64 " is negative", a.size, b.size);
        default:
            return tp_error_set(err, TP_ERR_INVALID,
                                "division by zero in dimension %" PRId64 " %s 0", a.size,
                                sym_op_str(op));
        }
    }
    bool eq = tp_graph_dim_equal(g, a, b);
    /* linear folding: x+x = 2*x, c*x+x = (c+1)*x, c*(d*x) = (c*d)*x */
    if (op == TP_SYM_ADD || op == TP_SYM_MUL) {
        int64_t ca, cb;
        tp_dim xa, xb;
        bool la = linear_term(g, a, &ca, &xa), lb = linear_term(g, b, &cb, &xb);
        if (op == TP_SYM_ADD && la && lb && tp_graph_dim_equal(g, xa, xb) && ca <= INT64_MAX - cb)
            return tp_graph_dim_expr(g, TP_SYM_MUL, tp_dim_static(ca + cb), xa, out, err);
        if (op == TP_SYM_MUL && tp_dim_is_static(a) && lb && cb != 1 && a.size != 0 &&
            cb <= INT64_MAX / a.size)
            return tp_graph_dim_expr(g, TP_SYM_MUL, tp_dim_static(a.size * cb), xb, out, err);
        if (op == TP_SYM_MUL && tp_dim_is_static(b) && la && ca != 1 && b.size != 0 &&
            ca <= INT64_MAX / b.size)
            return tp_graph_dim_expr(g, TP_SYM_MUL, tp_dim_static(b.size * ca), xa, out, err);
    }
    /* algebraic simplifications that hold for every value >= 0 */
    switch (op) {
    case TP_SYM_ADD:
        if (is_static_val(a, 0)) return *out = b, TP_OK;
        if (is_static_val(b, 0)) return *out = a, TP_OK;
        break;
    case TP_SYM_SUB:
        if (is_static_val(b, 0)) return *out = a, TP_OK;
        if (eq) return *out = tp_dim_static(0), TP_OK;
        break;
    case TP_SYM_MUL:
        if (is_static_val(a, 1)) return *out = b, TP_OK;
        if (is_static_val(b, 1)) return *out = a, TP_OK;
        if (is_static_val(a, 0) || is_static_val(b, 0)) return *out = tp_dim_static(0), TP_OK;
        break;
    case TP_SYM_DIV_FLOOR:
    case TP_SYM_DIV_CEIL:
        if (is_static_val(b, 0))
            return tp_error_set(err, TP_ERR_INVALID, "division by zero in a symbolic dimension");
        if (is_static_val(b, 1)) return *out = a, TP_OK;
        if (is_static_val(a, 0)) return *out = tp_dim_static(0), TP_OK;
        break;
    case TP_SYM_MAX:
        if (eq || is_static_val(b, 0)) return *out = a, TP_OK;
        if (is_static_val(a, 0)) return *out = b, TP_OK;
        break;
    case TP_SYM_MIN:
        if (eq) return *out = a, TP_OK;
        if (is_static_val(a, 0) || is_static_val(b, 0)) return *out = tp_dim_static(0), TP_OK;
        break;
    }
    /* canonical operand order for commutative operators: static first, then by id */
    if (op == TP_SYM_ADD || op == TP_SYM_MUL || op == TP_SYM_MAX || op == TP_SYM_MIN) {
        bool swap = (!tp_dim_is_static(a) && tp_dim_is_static(b)) ||
                    (!tp_dim_is_static(a) && !tp_dim_is_static(b) && b.sym < a.sym);
        if (swap) {
            tp_dim t = a;
            a = b;
            b = t;
        }
    }
    if (tp_dim_is_static(a))
        a.sym = TP_NO_SYM;
    else
        a.size = 0;
    if (tp_dim_is_static(b))
        b.sym = TP_NO_SYM;
    else
        b.size = 0;
    expr_key k = make_key(op, a, b);
    tp_sym_id id = tp_idmap_find(&g->sym_exprs, tp_hash_bytes(&k, sizeof k), sym_expr_eq, g, &k);
    if (id < 0) {
        tp_gsym proto;
        memset(&proto, 0, sizeof proto);
        proto.op = op;
        proto.a = a;
        proto.b = b;
        proto.first_unbound = -1;
        tp_status st = new_sym(g, &proto, &id, err);
        if (st != TP_OK) return st;
    }
    out->size = 0;
    out->sym = id;
    return TP_OK;
}

/* ---- binding ---- */

tp_status tp_graph_bind(tp_graph *g, const char *name, int64_t value, tp_error *err) {
    if (!g || !name) return tp_error_set(err, TP_ERR_INVALID, "tp_graph_bind: NULL argument");
    tp_sym_id id = find_named(g, name);
    if (id < 0)
        return tp_error_set(err, TP_ERR_NOT_FOUND, "the graph has no symbol '%.200s'", name);
    if (value < 0)
        return tp_error_set(err, TP_ERR_INVALID, "symbol '%.200s' bound to negative value %" PRId64,
                            name, value);
    g->syms[id].bound = true;
    g->syms[id].value = value;
    tp_graph_syms_reeval(g);
    return TP_OK;
}

tp_status tp_graph_bind_str(tp_graph *g, const char *assignment, tp_error *err) {
    if (!g || !assignment)
        return tp_error_set(err, TP_ERR_INVALID, "tp_graph_bind_str: NULL argument");
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment || strlen(assignment) > 300)
        return tp_error_set(err, TP_ERR_PARSE, "expected name=value, got '%.300s'", assignment);
    char name[301];
    while (*assignment == ' ' || *assignment == '\t')
        assignment++;
    size_t n = eq > assignment ? (size_t)(eq - assignment) : 0;
    memcpy(name, assignment, n);
    name[n] = '\0';
    while (n > 0 && (name[n - 1] == ' ' || name[n - 1] == '\t'))
        name[--n] = '\0';
    if (n == 0)
        return tp_error_set(err, TP_ERR_PARSE, "expected name=value, got '%.300s'", assignment);
    const char *v = eq + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    char *end = NULL;
    errno = 0;
    long long val = strtoll(v, &end, 10);
    if (!*v || end == v || errno == ERANGE)
        return tp_error_set(err, TP_ERR_PARSE, "'%.300s': value is not a 64-bit integer",
                            assignment);
    while (*end == ' ' || *end == '\t')
        end++;
    if (*end)
        return tp_error_set(err, TP_ERR_PARSE, "'%.300s': trailing characters after the value",
                            assignment);
    return tp_graph_bind(g, name, (int64_t)val, err);
}

void tp_graph_unbind_all(tp_graph *g) {
    if (!g) return;
    for (size_t i = 0; i < g->n_syms; i++)
        g->syms[i].bound = false;
    tp_graph_syms_reeval(g);
}

uint32_t tp_graph_symbol_count(const tp_graph *g) {
    return g ? (uint32_t)g->n_named : 0;
}

const char *tp_graph_symbol_name(const tp_graph *g, uint32_t index) {
    if (!g || index >= g->n_named) return NULL;
    return g->syms[g->named[index]].name;
}

/* ---- reading ---- */

tp_status tp_graph_dim_value(const tp_graph *g, tp_dim d, int64_t *out, tp_error *err) {
    if (!g || !out) return tp_error_set(err, TP_ERR_INVALID, "tp_graph_dim_value: NULL argument");
    if (!tp_graph_dim_ok(g, d))
        return tp_error_set(err, TP_ERR_INVALID, "invalid dim (size %" PRId64 ", sym %d)", d.size,
                            (int)d.sym);
    if (tp_dim_is_static(d)) {
        *out = d.size;
        return TP_OK;
    }
    const tp_gsym *s = &g->syms[d.sym];
    char buf[160];
    switch (s->state) {
    case SYM_OK:
        *out = s->value;
        return TP_OK;
    case SYM_UNBOUND:
        if (s->name) return tp_error_set(err, TP_ERR_UNBOUND, "symbol '%s' is unbound", s->name);
        return tp_error_set(err, TP_ERR_UNBOUND, "symbol '%s' is unbound (in %s)",
                            s->first_unbound >= 0 ? g->syms[s->first_unbound].name : "?",
                            tp_graph_dim_str(g, d, buf, sizeof buf));
    case SYM_OVERFLOW:
        return tp_error_set(err, TP_ERR_OVERFLOW, "dimension %s overflows 64 bits",
                            tp_graph_dim_str(g, d, buf, sizeof buf));
    case SYM_NEGATIVE:
        return tp_error_set(err, TP_ERR_INVALID, "dimension %s is negative under the bindings",
                            tp_graph_dim_str(g, d, buf, sizeof buf));
    default:
        return tp_error_set(err, TP_ERR_INVALID, "division by zero in dimension %s",
                            tp_graph_dim_str(g, d, buf, sizeof buf));
    }
}

typedef struct writer {
    char *buf;
    size_t cap, len;
} writer;

static void put_str(writer *w, const char *s) {
    while (*s && w->len + 1 < w->cap)
        w->buf[w->len++] = *s++;
    w->buf[w->len] = '\0';
}

static void put_dim(const tp_graph *g, writer *w, tp_dim d) {
    if (w->len + 1 >= w->cap) return; /* full: bounds the recursion depth too */
    char num[32];
    if (tp_dim_is_static(d)) {
        snprintf(num, sizeof num, "%" PRId64, d.size);
        put_str(w, num);
        return;
    }
    if (d.sym < 0 || (size_t)d.sym >= g->n_syms) {
        put_str(w, "?");
        return;
    }
    const tp_gsym *s = &g->syms[d.sym];
    if (s->name) {
        put_str(w, s->name);
        return;
    }
    switch (s->op) {
    case TP_SYM_DIV_CEIL:
    case TP_SYM_MAX:
    case TP_SYM_MIN:
        put_str(w, s->op == TP_SYM_DIV_CEIL ? "ceil(" : s->op == TP_SYM_MAX ? "max(" : "min(");
        put_dim(g, w, s->a);
        put_str(w, s->op == TP_SYM_DIV_CEIL ? "/" : ",");
        put_dim(g, w, s->b);
        put_str(w, ")");
        return;
    default:
        put_str(w, "(");
        put_dim(g, w, s->a);
        put_str(w, sym_op_str(s->op));
        put_dim(g, w, s->b);
        put_str(w, ")");
        return;
    }
}

const char *tp_graph_dim_str(const tp_graph *g, tp_dim d, char *buf, size_t cap) {
    if (!buf || cap == 0) return buf;
    writer w = {buf, cap, 0};
    buf[0] = '\0';
    if (!g) {
        put_str(&w, "?");
        return buf;
    }
    put_dim(g, &w, d);
    return buf;
}

const char *tp_graph_shape_str(const tp_graph *g, const tp_shape *s, char *buf, size_t cap) {
    if (!buf || cap == 0) return buf;
    writer w = {buf, cap, 0};
    buf[0] = '\0';
    if (!g || !s) {
        put_str(&w, "?");
        return buf;
    }
    put_str(&w, "[");
    for (int32_t i = 0; i < s->rank && i < TP_MAX_RANK; i++) {
        if (i) put_str(&w, ",");
        put_dim(g, &w, s->dims[i]);
    }
    put_str(&w, "]");
    return buf;
}

bool tp_graph_dim_equal(const tp_graph *g, tp_dim a, tp_dim b) {
    (void)g;
    if (tp_dim_is_static(a) != tp_dim_is_static(b)) return false;
    return tp_dim_is_static(a) ? a.size == b.size : a.sym == b.sym;
}
