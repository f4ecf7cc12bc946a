/* ONNX -> IR conversion: the node walk, the value table, value_info checks,
 * graph inputs (with optional known values), initializers and the outer values
 * captured by control-flow bodies. The per-op rules are in onnx_ops_*.c, their
 * helpers in onnx_ops_util.c. See onnx_convert.h and docs/onnx.md. */
#include "import/onnx_convert_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

typedef tp_ox_conv conv;

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    /* FNV's low bits mix poorly (names share long suffixes): finalize */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

/* ---- value table ---- */

ox_val *tp__ox_val_find(const conv *cv, const char *name) {
    if (!cv->cap_slots) return NULL;
    size_t mask = cv->cap_slots - 1, i = (size_t)hash_str(name) & mask;
    while (cv->slots[i] >= 0) {
        ox_val *v = &cv->vals[cv->slots[i]];
        if (strcmp(v->name, name) == 0) return v;
        i = (i + 1) & mask;
    }
    return NULL;
}

static void slots_insert(int32_t *slots, size_t cap, const ox_val *vals, int32_t id) {
    size_t mask = cap - 1, i = (size_t)hash_str(vals[id].name) & mask;
    while (slots[i] >= 0)
        i = (i + 1) & mask;
    slots[i] = id;
}

/* Add (or replace: a later definition shadows) a value. Takes ownership of value. */
tp_status tp__ox_val_add(conv *cv, const char *name, tp_node_id node, const tp_shape *shape,
                         int32_t elem, tp_ox_value *value) {
    ox_val *old = tp__ox_val_find(cv, name);
    if (old && cv->depth > 0 && (size_t)(old - cv->vals) < cv->scopes[cv->depth - 1].n_vals) {
        /* a body shadows an outer value: restored when the scope closes */
        if (!tp_mem_grow(cv->a, (void **)&cv->undo, sizeof *cv->undo, &cv->cap_undo,
                         cv->n_undo + 1))
            goto nomem;
        cv->undo[cv->n_undo].idx = (int32_t)(old - cv->vals);
        cv->undo[cv->n_undo].old = *old;
        cv->n_undo++;
        old->node = node;
        old->shape = *shape;
        old->elem = elem;
        old->value = value;
        old->runtime = true;
        old->dims_unknown = false;
        old->mask_min = tp_ox_value_mask_min(value);
        old->unscanned = NULL;
        return TP_OK;
    }
    if (old) {
        tp_ox_value_free(cv->a, old->value);
        old->node = node;
        old->shape = *shape;
        old->elem = elem;
        old->value = value;
        old->runtime = true;
        old->dims_unknown = false;
        old->mask_min = tp_ox_value_mask_min(value);
        old->unscanned = NULL;
        return TP_OK;
    }
    if ((cv->n_vals + 1) * 2 > cv->cap_slots) {
        size_t nc = cv->cap_slots ? cv->cap_slots * 2 : 256;
        int32_t *ns = tp_mem_alloc(cv->a, nc * sizeof *ns);
        if (!ns) goto nomem;
        memset(ns, 0xff, nc * sizeof *ns);
        for (size_t i = 0; i < cv->n_vals; i++)
            slots_insert(ns, nc, cv->vals, (int32_t)i);
        tp_mem_free(cv->a, cv->slots, cv->cap_slots * sizeof *cv->slots);
        cv->slots = ns;
        cv->cap_slots = nc;
    }
    if (!tp_mem_grow(cv->a, (void **)&cv->vals, sizeof *cv->vals, &cv->cap_vals, cv->n_vals + 1))
        goto nomem;
    ox_val *v = &cv->vals[cv->n_vals];
    v->name = name;
    v->node = node;
    v->shape = *shape;
    v->elem = elem;
    v->value = value;
    v->runtime = true; /* until known otherwise (an initializer, a folded node) */
    v->dims_unknown = false;
    v->outer_fold = false;
    v->outer_bytes = 0;
    v->mask_min = tp_ox_value_mask_min(value);
    v->unscanned = NULL;
    slots_insert(cv->slots, cv->cap_slots, cv->vals, (int32_t)cv->n_vals);
    cv->n_vals++;
    return TP_OK;
nomem:
    tp_ox_value_free(cv->a, value);
    return tp_error_set(cv->err, TP_ERR_NOMEM, "onnx: out of memory (value table)");
}

/* ---- body scopes ---- */

tp_status tp__ox_scope_open(conv *cv, const tp_onnx_graph *body) {
    if (cv->depth >= TP_OX_MAX_SCOPES)
        return tp_error_set(cv->err, TP_ERR_UNSUPPORTED,
                            "onnx: control-flow bodies nested more than %d deep", TP_OX_MAX_SCOPES);
    /* onnxruntime keeps a session state per body (runtime_ort.c) */
    if (!cv->dry) {
        tp_status st = tp_graph_add_bodies(cv->g, 1, 0, cv->err);
        if (st != TP_OK) return st;
    }
    ox_scope *sc = &cv->scopes[cv->depth++];
    sc->g = body;
    sc->n_vals = cv->n_vals;
    sc->n_undo = cv->n_undo;
    return TP_OK;
}

void tp__ox_scope_close(conv *cv) {
    if (cv->depth == 0) return;
    const ox_scope *sc = &cv->scopes[--cv->depth];
    while (cv->n_undo > sc->n_undo) {
        const ox_undo *u = &cv->undo[--cv->n_undo];
        tp_ox_value_free(cv->a, cv->vals[u->idx].value);
        cv->vals[u->idx] = u->old;
    }
    for (size_t i = sc->n_vals; i < cv->n_vals; i++)
        tp_ox_value_free(cv->a, cv->vals[i].value);
    cv->n_vals = sc->n_vals;
    if (cv->cap_slots) {
        memset(cv->slots, 0xff, cv->cap_slots * sizeof *cv->slots);
        for (size_t i = 0; i < cv->n_vals; i++)
            slots_insert(cv->slots, cv->cap_slots, cv->vals, (int32_t)i);
    }
}

/* ---- value_info index ---- */

static tp_status vi_build(conv *cv, const tp_onnx_graph *gr) {
    size_t n = (size_t)gr->n_value_infos + gr->n_outputs;
    size_t cap = 16;
    while (cap < n * 2)
        cap *= 2;
    cv->vi = tp_mem_calloc(cv->a, cap, sizeof *cv->vi);
    if (!cv->vi) return tp_error_set(cv->err, TP_ERR_NOMEM, "onnx: out of memory (value_info)");
    cv->cap_vi = cap;
    for (size_t k = 0; k < n; k++) {
        const tp_onnx_value_info *v =
            k < gr->n_value_infos ? &gr->value_infos[k] : &gr->outputs[k - gr->n_value_infos];
        if (!v->name[0]) continue;
        size_t i = (size_t)hash_str(v->name) & (cap - 1);
        bool dup = false;
        while (cv->vi[i]) {
            if (strcmp(cv->vi[i]->name, v->name) == 0) {
                dup = true;
                break;
            }
            i = (i + 1) & (cap - 1);
        }
        if (!dup) cv->vi[i] = v;
    }
    return TP_OK;
}

static const tp_onnx_value_info *vi_in(const tp_onnx_value_info *v, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0) return &v[i];
    return NULL;
}

/* value_info of a name: the innermost body that declares it, else the main graph. */
static const tp_onnx_value_info *vi_find(const conv *cv, const char *name) {
    if (!name[0]) return NULL;
    for (uint32_t d = cv->depth; d > 0; d--) {
        const tp_onnx_graph *b = cv->scopes[d - 1].g;
        const tp_onnx_value_info *v = vi_in(b->value_infos, b->n_value_infos, name);
        if (!v) v = vi_in(b->outputs, b->n_outputs, name);
        if (v) return v;
    }
    if (!cv->cap_vi) return NULL;
    size_t i = (size_t)hash_str(name) & (cv->cap_vi - 1);
    while (cv->vi[i]) {
        if (strcmp(cv->vi[i]->name, name) == 0) return cv->vi[i];
        i = (i + 1) & (cv->cap_vi - 1);
    }
    return NULL;
}

/* ---- rule index ---- */

static int rule_cmp(const void *x, const void *y) {
    return strcmp(((const ox_rule_ix *)x)->op, ((const ox_rule_ix *)y)->op);
}

static tp_status rules_build(conv *cv) {
    const tp_ox_rule *(*fams[])(size_t *) = {
        tp__ox_rules_elementwise, tp__ox_rules_linalg, tp__ox_rules_shape, tp__ox_rules_index,
        tp__ox_rules_reduce,      tp__ox_rules_misc,   tp__ox_rules_const, tp__ox_rules_sequence};
    size_t total = 0, n;
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        fams[f](&n);
        total += n;
    }
    cv->rules = tp_mem_alloc(cv->a, total * sizeof *cv->rules);
    if (!cv->rules) return tp_error_set(cv->err, TP_ERR_NOMEM, "onnx: out of memory (rules)");
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        const tp_ox_rule *r = fams[f](&n);
        for (size_t i = 0; i < n; i++) {
            cv->rules[cv->n_rules].op = r[i].op_type;
            cv->rules[cv->n_rules].fn = r[i].fn;
            cv->n_rules++;
        }
    }
    qsort(cv->rules, cv->n_rules, sizeof *cv->rules, rule_cmp);
    return TP_OK;
}

static tp_ox_rule_fn rule_find(const conv *cv, const char *op) {
    ox_rule_ix key = {op, NULL};
    const ox_rule_ix *r = bsearch(&key, cv->rules, cv->n_rules, sizeof key, rule_cmp);
    return r ? r->fn : NULL;
}

static const char *elem_name(int32_t e) {
    tp_dtype t;
    if (tp_onnx_elem_type_to_dtype(e, &t, NULL) == TP_OK) return tp_dtype_name(t);
    return tp_onnx_elem_type_name(e);
}

/* ---- shapes from value_info ---- */

static tp_status shape_from_vi(conv *cv, const tp_onnx_value_info *vi, const char *what,
                               tp_shape *s) {
    if (vi->rank < 0)
        return tp_error_set(cv->err, TP_ERR_UNSUPPORTED, "onnx: %s '%s' has no shape", what,
                            vi->name);
    if (vi->rank > TP_MAX_RANK)
        return tp_error_set(cv->err, TP_ERR_UNSUPPORTED,
                            "onnx: %s '%s' has rank %d (at most %d supported)", what, vi->name,
                            (int)vi->rank, TP_MAX_RANK);
    s->rank = vi->rank;
    for (int32_t k = 0; k < vi->rank; k++) {
        const tp_onnx_dim *d = &vi->dims[k];
        tp_status st = TP_OK;
        if (d->param && d->param[0]) {
            st = tp_graph_symbol(cv->g, d->param, &s->dims[k], cv->err);
        } else if (d->value >= 0) {
            s->dims[k] = tp_dim_static(d->value);
        } else {
            char name[200];
            snprintf(name, sizeof name, "unk_%s_%d", vi->name, (int)k);
            st = tp_graph_symbol(cv->g, name, &s->dims[k], cv->err);
        }
        if (st != TP_OK) return st;
    }
    return TP_OK;
}

/* Does the inferred shape/type agree with a value_info? Static dims and ranks
 * must match; symbolic dims on either side are not contradicted. */
static tp_status check_vi(conv *cv, tp_ox_ctx *c, uint32_t k, const tp_onnx_value_info *vi) {
    const tp_ox_out *o = &c->out[k];
    if (vi->kind != 't' && vi->kind != '?') return TP_OK;
    if (vi->elem_type && o->elem_type && vi->elem_type != o->elem_type)
        return tp_ox_fail(c, TP_ERR_SHAPE, "output '%s': inferred type %s, value_info says %s",
                          vi->name, elem_name(o->elem_type), elem_name(vi->elem_type));
    if (vi->rank < 0) return TP_OK;
    bool named_only = true; /* no static dim: an exporter's guess (torch names every dim) */
    for (int32_t d = 0; d < vi->rank; d++)
        if (vi->dims[d].value >= 0 && (!vi->dims[d].param || !vi->dims[d].param[0]))
            named_only = false;
    if (vi->rank != o->shape.rank && named_only && vi->rank > 0) {
        /* onnxruntime only warns and runs with the computed shape: so does the plan */
        char msg[400];
        snprintf(msg, sizeof msg,
                 "value_info of '%s' has rank %d, its node computes rank %d (as onnxruntime "
                 "does); the value_info is ignored",
                 vi->name, (int)vi->rank, (int)o->shape.rank);
        return cv->dry ? TP_OK : tp_graph_add_note(cv->g, msg, cv->err);
    }
    bool bad = vi->rank != o->shape.rank;
    for (int32_t d = 0; !bad && d < vi->rank; d++) {
        tp_dim x = o->shape.dims[d];
        if (vi->dims[d].value >= 0 && (!vi->dims[d].param || !vi->dims[d].param[0]) &&
            tp_dim_is_static(x) && x.size != vi->dims[d].value)
            bad = true;
    }
    if (bad) {
        char sb[160], vb[160];
        size_t p = 0;
        vb[0] = 0;
        for (int32_t d = 0; d < vi->rank && p < sizeof vb - 24; d++) {
            const tp_onnx_dim *od = &vi->dims[d];
            int w;
            if (od->param && od->param[0])
                w = snprintf(vb + p, sizeof vb - p, "%s%s", d ? "," : "", od->param);
            else if (od->value >= 0)
                w = snprintf(vb + p, sizeof vb - p, "%s%lld", d ? "," : "", (long long)od->value);
            else
                w = snprintf(vb + p, sizeof vb - p, "%s?", d ? "," : "");
            if (w > 0) p += (size_t)w;
        }
        (void)cv;
        return tp_ox_fail(c, TP_ERR_SHAPE, "output '%s': inferred shape %s, value_info says [%s]",
                          vi->name, tp_graph_shape_str(c->g, &o->shape, sb, sizeof sb), vb);
    }
    return TP_OK;
}

/* ---- the walk ---- */

static tp_status set_param_data(conv *cv, tp_node_id id, const tp_onnx_tensor *t) {
    uint64_t off, bytes;
    if (t->location == TP_ONNX_DATA_RAW) {
        off = t->raw_offset;
        bytes = t->raw_size;
    } else if (t->location == TP_ONNX_DATA_EXTERNAL) {
        off = t->ext_offset; /* into the external data file */
        bytes = t->ext_length ? t->ext_length : t->n_bytes;
    } else {
        off = t->msg_offset; /* typed fields: the TensorProto message */
        bytes = t->msg_size;
    }
    return tp_graph_set_param_data(cv->g, id, off, bytes, cv->err);
}

static tp_status tensor_shape(conv *cv, const tp_onnx_tensor *t, tp_shape *s) {
    if (t->rank > TP_MAX_RANK)
        return tp_error_set(cv->err, TP_ERR_UNSUPPORTED,
                            "onnx: tensor '%s' has rank %u (at most %d supported)", t->name,
                            t->rank, TP_MAX_RANK);
    s->rank = (int32_t)t->rank;
    for (uint32_t k = 0; k < t->rank; k++)
        s->dims[k] = tp_dim_static(t->dims[k]);
    return TP_OK;
}

const char *tp__ox_ir_name(const conv *cv, const char *name, char *buf, size_t cap) {
    tp_node_id id;
    if (cv->depth == 0 || !name[0] || tp_graph_find(cv->g, name, &id, NULL) != TP_OK) return name;
    for (uint32_t k = 1;; k++) {
        snprintf(buf, cap, "%.*s#%u", (int)(cap > 24 ? cap - 24 : 0), name, k);
        if (tp_graph_find(cv->g, buf, &id, NULL) != TP_OK) return buf;
    }
}

tp_status tp__ox_add_initializer(conv *cv, const tp_onnx_tensor *t) {
    tp_shape s;
    tp_dtype dt;
    tp_status st = tensor_shape(cv, t, &s);
    if (st != TP_OK) return st;
    st = tp_onnx_elem_type_to_dtype(t->data_type, &dt, cv->err);
    if (st != TP_OK) {
        tp_error_prefix(cv->err, "onnx: initializer '%s': ", t->name);
        return st;
    }
    tp_node_id id = TP_NO_NODE;
    if (!cv->dry) {
        char buf[256];
        st = tp_graph_add_param(cv->g, tp__ox_ir_name(cv, t->name, buf, sizeof buf), dt, &s, &id,
                                cv->err);
        if (st != TP_OK) return st;
        if ((st = set_param_data(cv, id, t)) != TP_OK) return st;
        if (t->location == TP_ONNX_DATA_EXTERNAL &&
            (st = tp_graph_set_param_external(cv->g, id, true, cv->err)) != TP_OK)
            return st;
        /* a body's initializer: onnxruntime holds more copies of it (runtime_ort.c) */
        if (cv->depth &&
            (st = tp_graph_set_param_body_depth(cv->g, id, cv->depth, cv->err)) != TP_OK)
            return st;
    }
    tp_ox_value *v = NULL;
    st = tp_ox_value_from_tensor(cv->a, cv->m, t, &v, cv->err);
    if (st != TP_OK) return st;
    if ((st = tp__ox_val_add(cv, t->name, id, &s, t->data_type, v)) != TP_OK) return st;
    ox_val *val = tp__ox_val_find(cv, t->name);
    val->runtime = false;
    if (!v) val->unscanned = t;
    return TP_OK;
}

/* The caller-given value of a graph input (tp_onnx_options.input_values). */
static tp_status input_value(conv *cv, const tp_onnx_value_info *vi, const tp_shape *s, tp_dtype dt,
                             tp_ox_value **out) {
    *out = NULL;
    const tp_onnx_input_value *iv = NULL;
    for (uint32_t i = 0; i < cv->opt->n_input_values && cv->opt->input_values; i++)
        if (cv->opt->input_values[i].name && strcmp(cv->opt->input_values[i].name, vi->name) == 0)
            iv = &cv->opt->input_values[i];
    if (!iv) return TP_OK;
    int64_t n;
    if (!tp_ox_shape_static_count(s, TP_OX_MAX_VALUES, &n) || n != (int64_t)iv->count ||
        (n > 0 && !iv->values && !iv->float_values))
        return tp_error_set(cv->err, TP_ERR_SHAPE,
                            "onnx: value given for graph input '%s' has %u elements, its shape "
                            "needs a static count of at most %d",
                            vi->name, iv->count, TP_OX_MAX_VALUES);
    bool fl = tp_dtype_is_float(dt);
    tp_ox_value *v = tp_ox_value_new(cv->a, n, fl);
    if (!v) return tp_error_set(cv->err, TP_ERR_NOMEM, "onnx: out of memory (input values)");
    for (int64_t i = 0; i < n; i++) {
        double f = iv->float_values ? iv->float_values[i] : (double)iv->values[i];
        if (fl) {
            v->f[i] = f;
        } else if (iv->values) {
            v->d[i] = tp_dim_static(iv->values[i]);
        } else if (f > -9.2e18 && f < 9.2e18) {
            v->d[i] = tp_dim_static((int64_t)f);
        } else {
            tp_ox_value_free(cv->a, v);
            return tp_error_set(cv->err, TP_ERR_INVALID,
                                "onnx: value %g for integer graph input '%s'", f, vi->name);
        }
    }
    *out = v;
    return TP_OK;
}

/* A sequence (or optional) graph input: elements of the declared element shape,
 * as many as the symbol seqlen_<input>; an optional may be empty. */
static tp_status add_seq_input(conv *cv, const tp_onnx_value_info *vi) {
    tp_shape el, s;
    tp_dtype dt;
    tp_status st = shape_from_vi(cv, vi, "graph input element", &el);
    if (st == TP_OK) st = tp_onnx_elem_type_to_dtype(vi->elem_type, &dt, cv->err);
    if (st != TP_OK) {
        tp_error_prefix(cv->err, "onnx: graph input '%s': ", vi->name);
        return st;
    }
    bool seq = vi->kind == 's' || vi->inner == 's';
    tp_ox_seq *q = tp_ox_seq_new(cv->a, seq ? 's' : 'o', vi->elem_type);
    tp_ox_value *v = NULL;
    if (!q || !tp_ox_seq_insert(cv->a, q, 0, &el)) {
        tp_ox_seq_free(cv->a, q);
        return tp_error_set(cv->err, TP_ERR_NOMEM, "onnx: out of memory (sequence input)");
    }
    tp_dim total = tp_dim_static(1);
    for (int32_t d = 0; st == TP_OK && d < el.rank; d++)
        st = tp_ox_sym_expr(&cv->syms, TP_SYM_MUL, total, el.dims[d], &total, cv->err);
    if (st == TP_OK && seq) {
        char name[256];
        snprintf(name, sizeof name, "seqlen_%s", vi->name);
        q->n_head = 0;
        if ((st = tp_graph_symbol(cv->g, name, &q->reps, cv->err)) == TP_OK)
            st = tp_ox_sym_expr(&cv->syms, TP_SYM_MUL, q->reps, total, &total, cv->err);
    }
    if (st == TP_OK && vi->kind == 'o') { /* may be empty: OptionalHasElement is unknown */
        if (seq) {
            tp_ox_seq *o = tp_ox_seq_new(cv->a, 'o', vi->elem_type);
            if (o)
                o->inner = q;
            else
                tp_ox_seq_free(cv->a, q);
            q = o;
        }
        if (q) q->approx = true;
    }
    if (st == TP_OK && !q)
        st = tp_error_set(cv->err, TP_ERR_NOMEM, "onnx: out of memory (sequence input)");
    if (st != TP_OK) {
        tp_ox_seq_free(cv->a, q);
        return st;
    }
    if (!(v = tp_ox_value_of_seq(cv->a, q))) /* q is freed on failure */
        return tp_error_set(cv->err, TP_ERR_NOMEM, "onnx: out of memory (sequence input)");
    if (vi->kind == 'o' && !seq)
        s = el;
    else
        s = tp_shape_make(1, &total);
    tp_node_id id;
    st = tp_graph_add_input(cv->g, vi->name, dt, &s, &id, cv->err);
    if (st != TP_OK) {
        tp_ox_value_free(cv->a, v);
        return st;
    }
    return tp__ox_val_add(cv, vi->name, id, &s, vi->elem_type, v);
}

static tp_status add_input(conv *cv, const tp_onnx_value_info *vi) {
    tp_shape s;
    tp_dtype dt;
    if (vi->kind == 's' || vi->kind == 'o') return add_seq_input(cv, vi);
    if (vi->kind != 't' && vi->kind != '?')
        return tp_error_set(cv->err, TP_ERR_UNSUPPORTED,
                            "onnx: graph input '%s' is not a tensor (kind '%c')", vi->name,
                            vi->kind);
    tp_status st = shape_from_vi(cv, vi, "graph input", &s);
    if (st != TP_OK) return st;
    st = tp_onnx_elem_type_to_dtype(vi->elem_type, &dt, cv->err);
    if (st != TP_OK) {
        tp_error_prefix(cv->err, "onnx: graph input '%s': ", vi->name);
        return st;
    }
    tp_node_id id;
    st = tp_graph_add_input(cv->g, vi->name, dt, &s, &id, cv->err);
    if (st != TP_OK) return st;
    tp_ox_value *v = NULL;
    if ((st = input_value(cv, vi, &s, dt, &v)) != TP_OK) return st;
    return tp__ox_val_add(cv, vi->name, id, &s, vi->elem_type, v);
}

static tp_status ensure_scratch(conv *cv, size_t n_in, size_t n_out) {
    if (!tp_mem_grow(cv->a, (void **)&cv->ins, sizeof *cv->ins, &cv->cap_ins, n_in + 1) ||
        !tp_mem_grow(cv->a, (void **)&cv->outs, sizeof *cv->outs, &cv->cap_outs, n_out + 1) ||
        !tp_mem_grow(cv->a, (void **)&cv->ids, sizeof *cv->ids, &cv->cap_ids, n_in + 1))
        return tp_error_set(cv->err, TP_ERR_NOMEM, "onnx: out of memory (node scratch)");
    return TP_OK;
}

/* Outputs typed from value_info (unknown ops with allow_unknown_ops). */
static tp_status rule_from_value_info(conv *cv, tp_ox_ctx *c) {
    for (uint32_t k = 0; k < c->n_out; k++) {
        if (!c->node->outputs[k][0]) continue;
        const tp_onnx_value_info *vi = vi_find(cv, c->node->outputs[k]);
        if (!vi || vi->rank < 0 || !vi->elem_type)
            return tp_ox_fail(c, TP_ERR_UNSUPPORTED,
                              "no shape rule, and no value_info gives the shape of output '%s'",
                              c->node->outputs[k]);
        tp_status st = shape_from_vi(cv, vi, "value_info", &c->out[k].shape);
        if (st != TP_OK) return st;
        c->out[k].elem_type = vi->elem_type;
    }
    return TP_OK;
}

/* ---- outer-scope values captured by subgraphs (If / Loop / Scan bodies) ---- */

static bool defined_in(const tp_onnx_graph *g, const char *name) {
    for (uint32_t i = 0; i < g->n_inputs; i++)
        if (strcmp(g->inputs[i].name, name) == 0) return true;
    for (uint32_t i = 0; i < g->n_initializers; i++)
        if (strcmp(g->initializers[i].name, name) == 0) return true;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        for (uint32_t k = 0; k < g->nodes[i].n_outputs; k++)
            if (strcmp(g->nodes[i].outputs[k], name) == 0) return true;
    return false;
}

static tp_status capture_graph(conv *cv, const tp_onnx_graph **chain, uint32_t depth,
                               uint32_t *n_ids);

static tp_status capture_node(conv *cv, const tp_onnx_node *n, const tp_onnx_graph **chain,
                              uint32_t depth, uint32_t *n_ids) {
    for (uint32_t j = 0; j < n->n_attrs; j++) {
        const tp_onnx_attr *a = &n->attrs[j];
        for (uint32_t k = 0; k < a->n_graphs + (a->g ? 1u : 0u); k++) {
            if (depth >= 64) return TP_OK; /* deeper nesting: no more captures */
            chain[depth] = k < a->n_graphs ? a->graphs[k] : a->g;
            tp_status st = capture_graph(cv, chain, depth + 1, n_ids);
            if (st != TP_OK) return st;
        }
    }
    return TP_OK;
}

/* Names a subgraph reads that none of the enclosing subgraphs defines are values
 * of the main graph: the control-flow node reads them (for liveness). */
static tp_status capture_graph(conv *cv, const tp_onnx_graph **chain, uint32_t depth,
                               uint32_t *n_ids) {
    const tp_onnx_graph *g = chain[depth - 1];
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const tp_onnx_node *n = &g->nodes[i];
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            const char *name = n->inputs[k];
            bool local = !name[0];
            for (uint32_t d = 0; !local && d < depth; d++)
                local = defined_in(chain[d], name);
            const ox_val *v = local ? NULL : tp__ox_val_find(cv, name);
            if (!v) continue;
            bool dup = false;
            for (uint32_t j = 0; j < *n_ids && !dup; j++)
                dup = cv->ids[j] == v->node;
            if (dup) continue;
            if (!tp_mem_grow(cv->a, (void **)&cv->ids, sizeof *cv->ids, &cv->cap_ids, *n_ids + 1))
                return tp_error_set(cv->err, TP_ERR_NOMEM, "onnx: out of memory (captures)");
            cv->ids[(*n_ids)++] = v->node;
        }
        tp_status st = capture_node(cv, n, chain, depth, n_ids);
        if (st != TP_OK) return st;
    }
    return TP_OK;
}

tp_status tp__ox_check_outputs(conv *cv, tp_ox_ctx *c) {
    if (!cv->opt->check_value_info) return TP_OK;
    for (uint32_t k = 0; k < c->n_out; k++) {
        const tp_onnx_value_info *vi = vi_find(cv, c->node->outputs[k]);
        tp_status st = vi ? check_vi(cv, c, k, vi) : TP_OK;
        if (st != TP_OK) return st;
    }
    return TP_OK;
}

tp_status tp__ox_emit(conv *cv, tp_ox_ctx *c, const tp_node_id *ids, uint32_t n_ids) {
    const tp_onnx_node *n = c->node;
    tp_status st = TP_OK;
    tp_node_id first = -1;
    if (c->op.kind == TP_OP_CUSTOM) {
        /* rules may have filled other union members before falling back */
        memset(&c->op.attrs, 0, sizeof c->op.attrs);
        c->op.sub = 0;
        c->op.attrs.custom.name = n->op_type;
        c->op.attrs.custom.n_inputs = (int32_t)n_ids;
        memcpy(c->op.attrs.custom.einsum_role, c->einsum_role, sizeof c->einsum_role);
    }
    for (uint32_t k = 0; k < n->n_outputs; k++) {
        const char *oname = n->outputs[k];
        if (!oname[0]) continue;
        tp_dtype dt;
        st = tp_onnx_elem_type_to_dtype(c->out[k].elem_type, &dt, cv->err);
        if (st != TP_OK)
            return tp_ox_fail(c, st, "output '%s' has element type %s, which has no IR dtype",
                              oname, tp_onnx_elem_type_name(c->out[k].elem_type));
        tp_node_id id = TP_NO_NODE;
        char buf[256];
        const char *irname = tp__ox_ir_name(cv, oname, buf, sizeof buf);
        if (cv->dry) {
            /* typed only */
        } else if (c->op.kind == TP_OP_CONSTANT) {
            st = tp_graph_add_constant(cv->g, irname, dt, &c->out[k].shape, &id, cv->err);
            /* a body's Constant node: onnxruntime holds more copies of it (runtime_ort.c) */
            if (st == TP_OK && cv->depth)
                st = tp_graph_set_param_body_depth(cv->g, id, cv->depth, cv->err);
        } else if (first < 0) {
            st = tp_graph_add_op_shaped(cv->g, &c->op, ids, n_ids, &c->out[k].shape, dt, irname,
                                        &id, cv->err);
            if (st == TP_OK && c->node_flags)
                st = tp_graph_set_flags(cv->g, id, c->node_flags, cv->err);
        } else {
            tp_op oo;
            memset(&oo, 0, sizeof oo);
            oo.kind = TP_OP_OUTPUT_OF;
            oo.attrs.output_of.index = (int32_t)k;
            st = tp_graph_add_op_shaped(cv->g, &oo, &first, 1, &c->out[k].shape, dt, irname, &id,
                                        cv->err);
        }
        if (st != TP_OK) {
            tp_error_prefix(cv->err, "onnx: node '%s' (%s, opset %lld): ", n->name, n->op_type,
                            (long long)c->opset);
            return st;
        }
        if (first < 0) first = id;
        /* the graph's own rule may know more (a static size wins over a symbol) */
        const tp_node *gn = id >= 0 ? tp_graph_node(cv->g, id) : NULL;
        if (gn && gn->shape.rank == c->out[k].shape.rank) c->out[k].shape = gn->shape;
        st = tp__ox_val_add(cv, oname, id, &c->out[k].shape, c->out[k].elem_type, c->out[k].value);
        c->out[k].value = NULL;
        if (st != TP_OK) return st;
    }
    return TP_OK;
}

bool tp__ox_outer_value(const tp_ox_conv *cv, const ox_val *v) {
    if (!v) return false;
    if (v->outer_fold) return true;
    const tp_node *w = v->node != TP_NO_NODE ? tp_graph_node(cv->g, v->node) : NULL;
    return cv->depth > 0 && w && (tp_op_is_weight(w->op.kind)) &&
           w->op.attrs.param.body_depth < cv->depth;
}

tp_status tp__ox_add_node(conv *cv, const tp_onnx_node *n, uint32_t index) {
    tp_status st = ensure_scratch(cv, n->n_inputs, n->n_outputs);
    if (st != TP_OK) return st;
    tp_ox_ctx c;
    memset(&c, 0, sizeof c);
    c.g = cv->g;
    c.syms = &cv->syms;
    c.alloc = cv->a;
    c.m = cv->m;
    c.node = n;
    c.opset = tp__onnx_opset(cv->m, n->domain);
    c.err = cv->err;
    c.n_in = n->n_inputs;
    c.in = cv->ins;
    c.n_out = n->n_outputs;
    c.out = cv->outs;
    memset(cv->outs, 0, (n->n_outputs + 1) * sizeof *cv->outs);
    for (uint32_t i = 0; i < n->n_inputs; i++) {
        tp_ox_in *in = &cv->ins[i];
        memset(in, 0, sizeof *in);
        in->name = n->inputs[i];
        if (!n->inputs[i][0]) continue;
        ox_val *v = tp__ox_val_find(cv, n->inputs[i]);
        if (!v)
            return tp_error_setx(cv->err, TP_ERR_PARSE, n->offset, TP_NO_NODE,
                                 "onnx: node %u '%s' (%s): input '%s' is not defined by a graph "
                                 "input, an initializer or an earlier node",
                                 index, n->name, n->op_type, n->inputs[i]);
        in->present = true;
        in->node = v->node;
        in->shape = v->shape;
        in->elem_type = v->elem;
        in->value = v->value;
        in->runtime = v->runtime;
        in->dims_unknown = v->dims_unknown;
        if (v->unscanned && tp_ox_mask_reads(n, i)) {
            if ((st = tp_ox_tensor_mask_min(cv->m, v->unscanned, &cv->ext, &v->mask_min,
                                            cv->err)) != TP_OK)
                return st;
            v->unscanned = NULL;
        }
        in->mask_min = v->mask_min;
        tp_onnx_elem_type_to_dtype(v->elem, &in->dtype, NULL);
    }
    c.op.kind = TP_OP_CUSTOM;
    bool std_domain = !n->domain[0] || strcmp(n->domain, "ai.onnx.preview.training") == 0;
    if (n->n_outputs == 0) return TP_OK; /* nothing to compute */
    if (std_domain) {
        bool handled = false;
        st = cv->control_flow ? cv->control_flow(cv, &c, &handled) : TP_OK;
        if (handled || st != TP_OK) return st;
    }
    tp_ox_rule_fn fn = std_domain                                ? rule_find(cv, n->op_type)
                       : strcmp(n->domain, "com.microsoft") == 0 ? tp__ox_contrib_rule(n->op_type)
                                                                 : NULL;
    for (uint32_t i = 0; fn && i < n->n_inputs; i++)
        if (cv->ins[i].value && cv->ins[i].value->seq && !tp__ox_takes_sequences(n->op_type))
            return tp_ox_fail(&c, TP_ERR_SHAPE, "input '%s' is a %s, not a tensor", n->inputs[i],
                              cv->ins[i].value->seq->kind == 's' ? "sequence" : "optional");
    if (fn) {
        st = fn(&c);
    } else if (cv->opt->allow_unknown_ops) {
        st = rule_from_value_info(cv, &c);
    } else {
        st = tp_ox_fail(&c, TP_ERR_UNSUPPORTED, "no shape rule for this op");
    }
    if (st == TP_OK) st = tp__ox_check_outputs(cv, &c);
    if (st != TP_OK) goto fail;
    /* IR inputs */
    uint32_t n_ids = 0;
    if (c.ir_in_set) {
        for (uint32_t i = 0; i < c.n_ir_in; i++)
            cv->ids[n_ids++] = cv->ins[c.ir_in[i]].node;
    } else {
        for (uint32_t i = 0; i < n->n_inputs; i++)
            if (cv->ins[i].present) cv->ids[n_ids++] = cv->ins[i].node;
    }
    if (c.op.kind == TP_OP_CUSTOM && !cv->dry) {
        /* an op unknown here with subgraph attributes reads what they capture */
        const tp_onnx_graph *chain[64];
        if ((st = capture_node(cv, n, chain, 0, &n_ids)) != TP_OK) goto fail;
    }
    if (c.op.kind == TP_OP_CUSTOM && fn)
        c.node_flags |= TP_NODE_DEVICE_KERNEL; /* a standard op, run as a normal kernel */
    /* what onnxruntime's graph knows of the outputs (onnx_ort_known.c) */
    bool runtime = tp_ox_value_at_runtime(&c), unknown = tp_ox_dims_from_runtime(&c);
    if (unknown) c.node_flags |= TP_NODE_DIMS_AT_RUNTIME;
    /* attention masks in exp's denormal band (onnx_mask.c) */
    double mask = tp_ox_mask_min(&c);
    uint32_t mask_flags = tp_ox_mask_flags(&c);
    c.node_flags |= mask_flags;
    for (uint32_t i = 0; i < n->n_inputs && !(c.node_flags & TP_NODE_SHAPE_ONLY); i++)
        if (cv->ins[i].present && cv->ins[i].dims_unknown) unknown = true;
    /* onnxruntime's constant folding computes it at load (not a Constant node: those are
     * initializers already) */
    bool folded = !runtime && c.op.kind != TP_OP_CONSTANT, outer = false;
    for (uint32_t i = 0; folded && cv->depth > 0 && i < n->n_inputs && !outer; i++)
        outer = n->inputs[i][0] && tp__ox_outer_value(cv, tp__ox_val_find(cv, n->inputs[i]));
    if (folded) c.node_flags |= TP_NODE_FOLDED | (outer ? TP_NODE_FOLDED_COPY : 0u);
    st = tp__ox_emit(cv, &c, cv->ids, n_ids);
    for (uint32_t k = 0; st == TP_OK && k < n->n_outputs; k++) {
        ox_val *v = n->outputs[k][0] ? tp__ox_val_find(cv, n->outputs[k]) : NULL;
        if (!v) continue;
        v->runtime = runtime;
        v->dims_unknown = unknown;
        v->outer_fold = outer;
        if (mask < v->mask_min) v->mask_min = mask;
    }
    if (st == TP_OK && !cv->dry) st = tp_ox_mask_note(&c, mask_flags);
    if (st == TP_OK && !cv->dry) st = tp_ox_integer_conv_note(&c);
    if (st == TP_OK && !cv->dry && folded)
        st = tp_graph_add_folded(cv->g, cv->depth ? 0 : 1, cv->depth ? 1 : 0, 0, cv->err);
fail:
    for (uint32_t k = 0; k < n->n_outputs; k++) {
        tp_ox_value_free(cv->a, c.out[k].value);
        c.out[k].value = NULL;
    }
    return st;
}

static void conv_free(conv *cv) {
    tp_ox_syms_free(&cv->syms);
    for (size_t i = 0; i < cv->n_vals; i++)
        tp_ox_value_free(cv->a, cv->vals[i].value);
    tp_mem_free(cv->a, cv->vals, cv->cap_vals * sizeof *cv->vals);
    tp_mem_free(cv->a, cv->slots, cv->cap_slots * sizeof *cv->slots);
    tp_mem_free(cv->a, (void *)cv->vi, cv->cap_vi * sizeof *cv->vi);
    tp_mem_free(cv->a, cv->rules, cv->n_rules * sizeof *cv->rules);
    tp_mem_free(cv->a, cv->ins, cv->cap_ins * sizeof *cv->ins);
    tp_mem_free(cv->a, cv->outs, cv->cap_outs * sizeof *cv->outs);
    tp_mem_free(cv->a, cv->ids, cv->cap_ids * sizeof *cv->ids);
    for (size_t i = 0; i < cv->n_undo; i++)
        tp_ox_value_free(cv->a, cv->undo[i].old.value);
    tp_mem_free(cv->a, cv->undo, cv->cap_undo * sizeof *cv->undo);
    tp_ox_ext_close(&cv->ext);
}

/* A dim known before converting ("name=value", tp_onnx_options.dims): its value
 * is remembered for comparisons when a graph input has the symbol (the caller
 * binds the graph after loading). */
static tp_status pre_bind(conv *cv, const char *assignment) {
    const char *eq = assignment ? strchr(assignment, '=') : NULL;
    char name[256];
    if (!eq || eq == assignment || (size_t)(eq - assignment) >= sizeof name)
        return TP_OK; /* malformed: reported when the graph is bound */
    memcpy(name, assignment, (size_t)(eq - assignment));
    name[eq - assignment] = 0;
    tp_dim d;
    bool known = false;
    for (uint32_t k = 0; k < tp_graph_symbol_count(cv->g) && !known; k++)
        if (strcmp(tp_graph_symbol_name(cv->g, k), name) == 0) {
            known = true;
            d = tp_graph_symbol_dim(cv->g, k);
        }
    char *end = NULL;
    errno = 0;
    long long v = strtoll(eq + 1, &end, 10);
    if (errno || end == eq + 1 || *end || v < 0 || !known)
        return TP_OK; /* malformed, or not a dim of a graph input: for tp_graph_bind */
    return tp_ox_syms_pre_bound(&cv->syms, d, (int64_t)v, cv->err);
}

static tp_status convert(conv *cv) {
    const tp_onnx_graph *gr = cv->m->graph;
    tp_status st = rules_build(cv);
    if (st == TP_OK) st = vi_build(cv, gr);
    for (uint32_t i = 0; st == TP_OK && i < gr->n_initializers; i++)
        st = tp__ox_add_initializer(cv, &gr->initializers[i]);
    if (st == TP_OK && gr->n_sparse_initializers)
        st = tp_error_set(cv->err, TP_ERR_UNSUPPORTED,
                          "onnx: sparse initializers ('%s') are not supported",
                          gr->sparse_initializers[0].values.name);
    for (uint32_t i = 0; st == TP_OK && i < gr->n_inputs; i++)
        if (!tp__onnx_graph_find_initializer(gr, gr->inputs[i].name))
            st = add_input(cv, &gr->inputs[i]);
    for (uint32_t i = 0; st == TP_OK && i < cv->opt->n_dims && cv->opt->dims; i++)
        st = pre_bind(cv, cv->opt->dims[i]);
    for (uint32_t i = 0; st == TP_OK && i < cv->opt->n_input_values && cv->opt->input_values; i++) {
        const char *name = cv->opt->input_values[i].name;
        const ox_val *v = name ? tp__ox_val_find(cv, name) : NULL;
        if (!v || tp_graph_node(cv->g, v->node)->op.kind != TP_OP_INPUT)
            st = tp_error_set(cv->err, TP_ERR_NOT_FOUND,
                              "onnx: a value is given for '%s', which is not a graph input",
                              name ? name : "(null)");
    }
    for (uint32_t i = 0; st == TP_OK && i < gr->n_nodes; i++)
        st = tp__ox_add_node(cv, &gr->nodes[i], i);
    for (uint32_t i = 0; st == TP_OK && i < gr->n_outputs; i++) {
        const ox_val *v = tp__ox_val_find(cv, gr->outputs[i].name);
        if (!v)
            st = tp_error_setx(cv->err, TP_ERR_PARSE, gr->outputs[i].offset, TP_NO_NODE,
                               "onnx: graph output '%s' is not produced by any node, input or "
                               "initializer",
                               gr->outputs[i].name);
        else
            st = tp_graph_mark_output(cv->g, v->node, cv->err);
    }
    return st;
}

tp_status tp__onnx_convert(const tp_onnx_model *m, const tp_onnx_options *opt, tp_graph *g,
                           tp__ox_control_fn control_flow, tp_error *err) {
    if (!m || !opt || !g || !m->graph)
        return tp_error_set(err, TP_ERR_INVALID, "onnx: convert: NULL argument");
    conv cv;
    memset(&cv, 0, sizeof cv);
    cv.g = g;
    cv.a = tp_graph_allocator(g);
    cv.syms.g = g;
    cv.syms.alloc = cv.a;
    cv.m = m;
    cv.opt = opt;
    cv.err = err;
    cv.control_flow = control_flow;
    tp_status st = convert(&cv);
    conv_free(&cv);
    return st;
}
