/* Max-fit search: the largest value of a symbolic dim whose estimated peak
 * fits a budget, by exponential then binary search over re-bound plans. */
#include "tensorplan/estimate.h"

#include <stdio.h>
#include <string.h>

void tp_fit_options_default(tp_fit_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->min_value = 1;
    o->max_value = (int64_t)1 << 40;
}

typedef struct search {
    tp_graph *g;
    const char *symbol;
    const tp_estimate_options *eo;
    uint32_t evaluations;
} search;

/* Bind the symbol to v and estimate. A 64-bit overflow anywhere means "far
 * too big": *peak = UINT64_MAX and TP_OK. */
static tp_status evaluate(search *s, int64_t v, tp_estimate *e, tp_error *err) {
    tp_status st = tp_graph_bind(s->g, s->symbol, v, err);
    if (st != TP_OK) return st;
    s->evaluations++;
    tp_error local;
    st = tp_estimate_graph(s->g, s->eo, e, &local);
    if (st == TP_ERR_OVERFLOW) {
        memset(e, 0, sizeof *e);
        e->peak_bytes = UINT64_MAX;
        return TP_OK;
    }
    if (st != TP_OK) {
        if (err) *err = local;
        tp_error_prefix(err, "max-fit: %s=%lld: ", s->symbol, (long long)v);
        return st;
    }
    return TP_OK;
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
    if (fo->min_value < 0 || fo->max_value < fo->min_value)
        return tp_error_set(err, TP_ERR_INVALID, "max-fit: bad range [%lld, %lld] for '%s'",
                            (long long)fo->min_value, (long long)fo->max_value, fo->symbol);
    tp_status st = check_symbol(g, fo->symbol, err);
    if (st != TP_OK) return st;
    search s = {g, fo->symbol, eo, 0};
    const uint64_t budget = fo->budget_bytes;

    /* lo always fits (once found); hi never fits (or is max_value + 1 unknown) */
    int64_t lo = fo->min_value;
    tp_estimate e_lo, e_hi, e;
    memset(&e_lo, 0, sizeof e_lo);
    memset(&e_hi, 0, sizeof e_hi);
    memset(&e, 0, sizeof e);
    if ((st = evaluate(&s, lo, &e_lo, err)) != TP_OK) return st;
    if (e_lo.peak_bytes > budget) {
        out->value = lo - 1;
        out->next_value = lo;
        out->next_peak_bytes = e_lo.peak_bytes;
        out->next_evaluated = true;
        out->evaluations = s.evaluations;
        tp_deficit d;
        tp_error fe;
        tp_estimate_fits_in(&e_lo, budget, &d, &fe);
        return tp_error_set(err, TP_ERR_OVER_BUDGET, "even %s=%lld does not fit: %s", fo->symbol,
                            (long long)lo, fe.msg);
    }
    /* exponential phase: lo, 2·lo, 4·lo, ... (from 1 when lo is 0) */
    int64_t hi = -1;
    bool hi_known = false;
    while (lo < fo->max_value) {
        int64_t probe = lo == 0 ? 1 : (lo > fo->max_value / 2 ? fo->max_value : lo * 2);
        if ((st = evaluate(&s, probe, &e, err)) != TP_OK) return st;
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
        if ((st = evaluate(&s, mid, &e, err)) != TP_OK) return st;
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
        if ((st = evaluate(&s, lo + 1, &e, err)) != TP_OK) return st;
        out->next_peak_bytes = e.peak_bytes;
        out->next_evaluated = true;
    }
    out->evaluations = s.evaluations;
    return tp_graph_bind(g, fo->symbol, lo, err);
}
