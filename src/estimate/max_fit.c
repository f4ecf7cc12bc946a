/* Max-fit search: the largest value of a dimension whose estimated peak fits
 * a budget, by exponential then binary search. One search core; the graph
 * version re-binds a symbol and re-plans, the LLM version changes ctx/seqs. */
#include <stdio.h>
#include <string.h>

#include "tensorplan/estimate.h"

void tp_fit_options_default(tp_fit_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->min_value = 1;
    o->max_value = (int64_t)1 << 40;
}

/* Estimate at value v. A 64-bit overflow means "far too big": the callback
 * returns TP_OK with peak UINT64_MAX. */
typedef tp_status (*eval_fn)(void *ctx, int64_t v, tp_estimate *e, tp_error *err);

typedef struct search {
    eval_fn eval;
    void *ctx;
    const char *name;
    uint32_t evaluations;
} search;

static tp_status evaluate(search *s, int64_t v, tp_estimate *e, tp_error *err) {
    s->evaluations++;
    tp_error local;
    tp_error_clear(&local);
    tp_status st = s->eval(s->ctx, v, e, &local);
    if (st == TP_ERR_OVERFLOW) {
        memset(e, 0, sizeof *e);
        e->peak_bytes = UINT64_MAX;
        return TP_OK;
    }
    if (st != TP_OK) {
        if (err) *err = local;
        tp_error_prefix(err, "max-fit: %s=%lld: ", s->name, (long long)v);
    }
    return st;
}

/* The search proper: fills *out; TP_ERR_OVER_BUDGET when even min_value does
 * not fit. The dimension is left at whatever value was evaluated last. */
static tp_status search_max(search *s, const tp_fit_options *fo, tp_fit_result *out,
                            tp_error *err) {
    const uint64_t budget = fo->budget_bytes;
    int64_t lo = fo->min_value, hi = -1;
    bool hi_known = false;
    tp_estimate e_lo, e_hi, e;
    memset(&e_lo, 0, sizeof e_lo);
    memset(&e_hi, 0, sizeof e_hi);
    memset(&e, 0, sizeof e);
    tp_status st = evaluate(s, lo, &e_lo, err);
    if (st != TP_OK) return st;
    if (e_lo.peak_bytes > budget) {
        out->value = lo - 1;
        out->next_value = lo;
        out->next_peak_bytes = e_lo.peak_bytes;
        out->next_evaluated = true;
        out->evaluations = s->evaluations;
        tp_deficit d;
        tp_error fe;
        tp_error_clear(&fe);
        tp_estimate_fits_in(&e_lo, budget, &d, &fe);
        return tp_error_set(err, TP_ERR_OVER_BUDGET, "even %s=%lld does not fit: %s", s->name,
                            (long long)lo, fe.msg);
    }
    /* exponential phase: lo, 2·lo, 4·lo, ... (from 1 when lo is 0), capped at max */
    while (lo < fo->max_value) {
        int64_t probe = lo == 0 ? 1 : (lo > fo->max_value / 2 ? fo->max_value : lo * 2);
        if ((st = evaluate(s, probe, &e, err)) != TP_OK) return st;
        if (e.peak_bytes > budget) {
            hi = probe;
            e_hi = e;
            hi_known = true;
            break;
        }
        lo = probe;
        e_lo = e;
    }
    /* binary phase: invariant fits(lo), !fits(hi) */
    while (hi_known && hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((st = evaluate(s, mid, &e, err)) != TP_OK) return st;
        if (e.peak_bytes <= budget) {
            lo = mid;
            e_lo = e;
        } else {
            hi = mid;
            e_hi = e;
        }
    }
    out->value = lo;
    out->estimate = e_lo;
    out->peak_bytes = e_lo.peak_bytes;
    out->at_max = lo == fo->max_value;
    if (hi_known) {
        out->next_value = hi; /* == lo + 1 */
        out->next_peak_bytes = e_hi.peak_bytes;
        out->next_evaluated = true;
    } else if (lo < INT64_MAX) {
        /* the bound stopped the search: report the successor for information */
        out->next_value = lo + 1;
        if ((st = evaluate(s, lo + 1, &e, err)) != TP_OK) return st;
        out->next_peak_bytes = e.peak_bytes;
        out->next_evaluated = true;
    }
    out->evaluations = s->evaluations;
    return TP_OK;
}

static tp_status check_range(const tp_fit_options *fo, const char *name, tp_error *err) {
    if (fo->min_value < 0 || fo->max_value < fo->min_value)
        return tp_error_set(err, TP_ERR_INVALID, "max-fit: bad range [%lld, %lld] for '%s'",
                            (long long)fo->min_value, (long long)fo->max_value, name);
    return TP_OK;
}

/* ---- graphs ---- */

typedef struct graph_ctx {
    tp_graph *g;
    const char *symbol;
    const tp_estimate_options *eo;
} graph_ctx;

static tp_status eval_graph(void *p, int64_t v, tp_estimate *e, tp_error *err) {
    graph_ctx *c = p;
    tp_status st = tp_graph_bind(c->g, c->symbol, v, err);
    if (st != TP_OK) return st;
    return tp_estimate_graph(c->g, c->eo, e, err);
}

static tp_status check_symbol(const tp_graph *g, const char *symbol, tp_error *err) {
    uint32_t n = tp_graph_symbol_count(g);
    char names[256] = "";
    size_t len = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *nm = tp_graph_symbol_name(g, i);
        if (nm && strcmp(nm, symbol) == 0) return TP_OK;
        if (nm && len + strlen(nm) + 3 < sizeof names) {
            int w = snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", nm);
            if (w > 0) len += (size_t)w;
        }
    }
    return tp_error_set(err, TP_ERR_NOT_FOUND,
                        "max-fit: the graph has no symbol '%s' (symbols: %s)", symbol,
                        n ? names : "none");
}

tp_status tp_estimate_max_fit(tp_graph *g, const tp_fit_options *fo, const tp_estimate_options *eo,
                              tp_fit_result *out, tp_error *err) {
    if (!g || !fo || !out || !fo->symbol)
        return tp_error_set(err, TP_ERR_INVALID, "max-fit: NULL argument");
    memset(out, 0, sizeof *out);
    tp_status st = check_range(fo, fo->symbol, err);
    if (st == TP_OK) st = check_symbol(g, fo->symbol, err);
    if (st != TP_OK) return st;
    graph_ctx gc = {g, fo->symbol, eo};
    search s = {eval_graph, &gc, fo->symbol, 0};
    st = search_max(&s, fo, out, err);
    if (st != TP_OK) return st; /* over budget: bound to min_value by the first evaluation */
    return tp_graph_bind(g, fo->symbol, out->value, err);
}

/* ---- LLMs ---- */

typedef struct llm_ctx {
    const tp_llm_config *c;
    tp_llm_options o;
    int which; /* 0 ctx, 1 seqs, 2 ubatch */
} llm_ctx;

static tp_status eval_llm(void *p, int64_t v, tp_estimate *e, tp_error *err) {
    llm_ctx *c = p;
    tp_llm_options o = c->o;
    if (c->which == 0) o.n_ctx = (uint64_t)v;
    if (c->which == 1) o.n_seq = (uint64_t)v;
    if (c->which == 2) o.n_ubatch = (uint64_t)v;
    tp_llm_estimate le;
    tp_status st = tp_llm_estimate_memory(c->c, &o, &le, err);
    if (st != TP_OK) return st;
    memset(e, 0, sizeof *e);
    e->weight_bytes = le.model_bytes;
    e->activation_bytes = le.kv_cache_bytes + le.output_bytes + le.compute_bytes; /* <= peak */
    e->peak_bytes = le.peak_bytes;
    return TP_OK;
}

tp_status tp_llm_max_fit(const tp_llm_config *c, const tp_llm_options *o, const tp_fit_options *fo,
                         tp_fit_result *out, tp_error *err) {
    if (!c || !fo || !out || !fo->symbol)
        return tp_error_set(err, TP_ERR_INVALID, "max-fit: NULL argument");
    memset(out, 0, sizeof *out);
    int which = strcmp(fo->symbol, "ctx") == 0      ? 0
                : strcmp(fo->symbol, "seqs") == 0   ? 1
                : strcmp(fo->symbol, "ubatch") == 0 ? 2
                                                    : -1;
    if (which < 0)
        return tp_error_set(err, TP_ERR_NOT_FOUND,
                            "max-fit: an LLM has no dimension '%s' (symbols: ctx, seqs, ubatch)",
                            fo->symbol);
    tp_status st = check_range(fo, fo->symbol, err);
    if (st != TP_OK) return st;
    tp_fit_options f = *fo;
    if (f.min_value == 0) f.min_value = 1; /* 0 would mean "the default" to the estimate */
    if (f.max_value < f.min_value) f.max_value = f.min_value;
    llm_ctx lc;
    lc.c = c;
    lc.which = which;
    if (o)
        lc.o = *o;
    else
        tp_llm_options_default(&lc.o);
    search s = {eval_llm, &lc, fo->symbol, 0};
    return search_max(&s, &f, out, err);
}
