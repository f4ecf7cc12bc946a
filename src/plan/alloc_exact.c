/* EXACT and AUTO: the best heuristic first, then the anytime exact search per
 * independent component (docs/exact.md).
 *
 * Per component, the minimize mode is a sequence of capacity decisions: first at the
 * lower bound (a plan there is optimal), then bisection between the highest cap known
 * infeasible or unknown and the best arena found. Each decision runs a portfolio of
 * static preorders with restarts (node budgets doubling), which tames the heavy-tailed
 * run times of a single depth-first search; node budgets keep it deterministic.
 */
#include <string.h>

#include "core/mem.h"
#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"

#define MAX_SEARCH_BUFFERS 2048u
#define MAX_SEARCH_PAIRS ((size_t)4 << 20)
#define FIRST_NODE_BUDGET 4000u
#define UNWIND_SHARE 0.01 /* of the time limit, left for returning (see tp__alloc_search) */

typedef struct comp_state {
    uint64_t arena, lb;
    bool proven, unsearchable;
} comp_state;

/* The buffers of one component and the problem of the current restart. */
typedef struct portfolio {
    const tp_buffer *bufs;
    const uint32_t *members;
    size_t m;
    uint64_t opt_align;
    tp_xs_problem cur;
    bool have;
    uint64_t *off;
    const tp_allocator *alloc;
} portfolio;

static void portfolio_free(portfolio *pf) {
    if (pf->have) tp__xs_free(&pf->cur);
    tp_mem_free(pf->alloc, pf->off, pf->m * sizeof *pf->off);
    memset(pf, 0, sizeof *pf);
}

/* TP_ERR_UNSUPPORTED: too large for the search (not an error for the caller). */
static tp_status portfolio_init(portfolio *pf, const tp_buffer *bufs, const uint32_t *members,
                                size_t m, uint64_t opt_align, const tp_allocator *alloc,
                                tp_error *err) {
    memset(pf, 0, sizeof *pf);
    pf->alloc = alloc;
    if (m > MAX_SEARCH_BUFFERS) return TP_ERR_UNSUPPORTED;
    pf->bufs = bufs;
    pf->members = members;
    pf->opt_align = opt_align;
    pf->m = m;
    pf->off = tp_mem_alloc(alloc, m * sizeof *pf->off);
    if (!pf->off) {
        portfolio_free(pf);
        return tp_error_set(err, TP_ERR_NOMEM, "exact: out of memory (%zu offsets)", m);
    }
    return TP_OK;
}

static tp_status portfolio_variant(portfolio *pf, int variant, tp_error *err) {
    if (pf->have) tp__xs_free(&pf->cur);
    pf->have = false;
    tp_status st =
        tp__xs_build(pf->bufs, pf->members, pf->m, pf->opt_align, variant % TP_XS_PREORDERS,
                     MAX_SEARCH_PAIRS, pf->alloc, &pf->cur, err);
    pf->have = st == TP_OK;
    if (pf->have) pf->cur.fresh_parts = variant >= TP_XS_PREORDERS;
    return st;
}

/* Decide arena <= cap for one component; on FEASIBLE the offsets are written to the
 * caller's array. probe_deadline <= 0: none. Restart schedule: round r runs each variant
 * (the three preorders with static ranks, then the three with the parts found during the
 * search ranked afresh) with a node budget of FIRST_NODE_BUDGET * 2^r (a complete search needs no
 * restart: a run that ends within its budget proves the answer). tight_cap (0: none, else
 * < cap): a tighter cap tried alongside in every run (a plan within it fits within cap
 * too, and it prunes much harder when it is feasible) with a quarter of the node budget;
 * dropped once proven infeasible. */
static tp_status decide(portfolio *pf, uint64_t cap, uint64_t tight_cap, tp_xs_clock *clk,
                        double probe_deadline, uint64_t *offsets, uint64_t *arena,
                        tp_xs_outcome *out, tp_error *err) {
    double saved = clk->deadline;
    if (probe_deadline > 0 && (saved <= 0 || probe_deadline < saved))
        clk->deadline = probe_deadline;
    tp_status st = TP_OK;
    *out = TP_XS_TIMEOUT;
    for (uint64_t budget = FIRST_NODE_BUDGET;; budget = tp_sat_mul_u64(budget, 2)) {
        for (int v = 0; v < TP_XS_VARIANTS; v++) {
            st = portfolio_variant(pf, v, err);
            if (st != TP_OK) goto done;
            for (int k = tight_cap ? 0 : 1; k < 2; k++) {
                tp_xs_outcome o;
                /* the tighter cap gets a quarter of the budget: when it is not reachable
                 * (D, J) it costs the cap's search a quarter more, not twice */
                st = tp__xs_solve(&pf->cur, k == 0 ? tight_cap : cap, k == 0 ? budget / 4 : budget,
                                  clk, pf->off, arena, &o, err);
                if (st != TP_OK) goto done;
                if (o == TP_XS_FEASIBLE) {
                    for (size_t r = 0; r < pf->m; r++)
                        offsets[pf->cur.gidx[r]] = pf->off[r];
                    *out = o;
                    goto done;
                }
                if (o == TP_XS_INFEASIBLE) {
                    if (k == 1) {
                        *out = o;
                        goto done;
                    }
                    tight_cap = 0; /* proven: no plan within it */
                }
                if (clk->deadline > 0 && tp__xs_now() >= clk->deadline) goto done;
            }
        }
    }
done:
    clk->deadline = saved;
    return st;
}

/* Minimize one component's arena within the clock's deadline, down to `target` (the lower
 * bound of the whole instance: no plan of the instance is smaller, so the component need
 * not be either; a cap there also prunes far harder than the component's own bound). */
static tp_status minimize(portfolio *pf, comp_state *c, uint64_t target, tp_xs_clock *clk,
                          uint64_t *offsets, bool *improved, tp_error *err) {
    uint64_t lo = c->lb > target ? c->lb : target; /* proven bound, or good enough */
    uint64_t tlo = lo;                             /* above every unknown cap */
    bool first = true;
    *improved = false;
    while (c->arena > lo && tlo < c->arena) {
        uint64_t cap = first ? lo : tlo + (c->arena - 1 - tlo) / 2;
        first = false;
        double probe_deadline = 0;
        if (clk->deadline > 0) {
            double now = tp__xs_now();
            if (now >= clk->deadline) break;
            probe_deadline = now + (clk->deadline - now) / 2;
        }
        tp_xs_outcome out;
        uint64_t a = 0;
        tp_status st = decide(pf, cap, 0, clk, probe_deadline, offsets, &a, &out, err);
        if (st != TP_OK) return st;
        if (out == TP_XS_FEASIBLE) {
            c->arena = a;
            *improved = true;
            clk->report_best = a > clk->other_max ? a : clk->other_max;
        } else if (out == TP_XS_INFEASIBLE) {
            lo = cap + 1;
            if (tlo < lo) tlo = lo;
        } else {
            tlo = cap + 1;
        }
    }
    c->proven = c->arena <= lo;
    return TP_OK;
}

static uint64_t comp_arena(const tp_buffer *bufs, const uint32_t *idx, size_t a, size_t b,
                           const uint64_t *offsets) {
    uint64_t top = 0;
    for (size_t i = a; i < b; i++) {
        uint64_t end = offsets[idx[i]] + tp__alloc_psize(&bufs[idx[i]]);
        if (end > top) top = end;
    }
    return top;
}

tp_status tp__alloc_search(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                           double start, const tp_allocator *alloc, uint64_t *offsets,
                           uint64_t *arena, tp_search_report *rep, tp_error *err) {
    tp_search_report local;
    if (!rep) rep = &local;
    memset(rep, 0, sizeof *rep);
    rep->used = TP_ALGO_BEST_FIT;
    tp_xs_clock clk;
    memset(&clk, 0, sizeof clk);
    clk.start = start > 0 ? start : tp__xs_now();
    clk.next_progress = clk.start + 1.0;
    clk.progress = opt->progress;
    clk.progress_ctx = opt->progress_ctx;
    bool is_exact = opt->algo == TP_ALGO_EXACT;
    double limit = opt->time_limit_s;
    bool searching = is_exact || limit > 0;
    /* The passes stop a hundredth of the limit before it: what follows their last look at
     * the clock (freeing the gap index and the working arrays, 2-6 ms at 62,000 buffers,
     * and up to ~1 ms to the next look) fits in it, so the call returns within the limit
     * (session 13: `auto` 1 s returned after 1.001-1.007 s with the passes stopping at the
     * limit itself) */
    if (limit > 0) clk.deadline = clk.start + limit * (1.0 - UNWIND_SHARE);
    uint64_t cap = opt->capacity;

    tp_bestfit_info bf_info;
    tp_status st =
        tp__alloc_bestfit_ex(bufs, n, opt, clk.deadline, alloc, offsets, arena, &bf_info, err);
    if (st != TP_OK) return st;
    rep->heuristic_arena = *arena;
    rep->first_plan_at = bf_info.first_plan_at;

    bool has_fixed = false;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (tp__alloc_psize(&bufs[i]) == 0) continue;
        if (bufs[i].fixed_offset >= 0)
            has_fixed = true;
        else
            k++;
    }
    if (has_fixed) {
        /* pre-placed buffers break the canonical form the search relies on */
        if (cap && *arena > cap)
            return tp_error_set(err, TP_ERR_TIMEOUT,
                                "exact: heuristic arena %llu exceeds capacity %llu and the "
                                "search does not handle pre-placed buffers",
                                (unsigned long long)*arena, (unsigned long long)cap);
        return TP_OK;
    }
    if (k == 0) {
        rep->proven_optimal = true;
        return TP_OK;
    }
    /* minimize mode with no time left (or none given): the components would only tell
     * whether the plan is at its bound, which tp_alloc_plan checks anyway */
    if (!cap && (!searching || (clk.deadline > 0 && tp__xs_now() >= clk.deadline))) return TP_OK;
    uint32_t *idx = tp_mem_alloc(alloc, k * sizeof *idx);
    size_t *starts = tp_mem_alloc(alloc, (k + 1) * sizeof *starts);
    comp_state *cs = NULL;
    portfolio pf;
    memset(&pf, 0, sizeof pf);
    size_t nc = 0;
    if (!idx || !starts) {
        st = tp_error_set(err, TP_ERR_NOMEM, "exact: out of memory (%zu buffers)", k);
        goto done;
    }
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (tp__alloc_psize(&bufs[i]) > 0) idx[k++] = (uint32_t)i;
    st = tp__xs_components(bufs, idx, k, starts, &nc, alloc, err);
    if (st != TP_OK) goto done;
    cs = tp_mem_calloc(alloc, nc, sizeof *cs);
    if (!cs) {
        st = tp_error_set(err, TP_ERR_NOMEM, "exact: out of memory (%zu components)", nc);
        goto done;
    }
    uint64_t lb = 0;
    for (size_t c = 0; c < nc; c++) {
        size_t m = starts[c + 1] - starts[c];
        cs[c].arena = comp_arena(bufs, idx, starts[c], starts[c + 1], offsets);
        tp_xs_problem p;
        st = m > MAX_SEARCH_BUFFERS ? TP_ERR_UNSUPPORTED
                                    : tp__xs_build(bufs, idx + starts[c], m, opt->alignment, 0,
                                                   MAX_SEARCH_PAIRS, alloc, &p, err);
        if (st == TP_ERR_UNSUPPORTED) {
            cs[c].unsearchable = true;
            st = TP_OK;
        } else if (st != TP_OK) {
            goto done;
        } else {
            cs[c].lb = p.lb;
            tp__xs_free(&p);
        }
        cs[c].proven = !cs[c].unsearchable && cs[c].arena <= cs[c].lb;
        if (cs[c].lb > lb) lb = cs[c].lb;
    }
    clk.report_lb = lb;
    clk.report_best = *arena;

    if (cap) {
        if (lb > cap) {
            st = tp_error_set(err, TP_ERR_INFEASIBLE,
                              "exact: lower bound %llu exceeds capacity %llu",
                              (unsigned long long)lb, (unsigned long long)cap);
            goto done;
        }
        bool unknown = false;
        for (size_t c = 0; c < nc; c++) {
            if (cs[c].arena <= cap) continue;
            if (!searching || cs[c].unsearchable) {
                unknown = true;
                continue;
            }
            st = portfolio_init(&pf, bufs, idx + starts[c], starts[c + 1] - starts[c],
                                opt->alignment, alloc, err);
            if (st == TP_ERR_UNSUPPORTED) {
                st = TP_OK;
                unknown = true;
                continue;
            }
            if (st != TP_OK) goto done;
            tp_xs_outcome out = TP_XS_TIMEOUT;
            uint64_t a = 0;
            /* a plan at the lower bound fits too, and the tighter cap prunes harder (C: 3 ms
             * at its bound, 0.7 s at 1,048,576): both are tried in every run */
            st = decide(&pf, cap, cs[c].lb < cap ? cs[c].lb : 0, &clk, 0, offsets, &a, &out, err);
            portfolio_free(&pf);
            if (st != TP_OK) goto done;
            if (out == TP_XS_INFEASIBLE) {
                st = tp_error_set(err, TP_ERR_INFEASIBLE,
                                  "exact: proved that no plan fits in %llu bytes (lower bound "
                                  "%llu)",
                                  (unsigned long long)cap, (unsigned long long)lb);
                goto done;
            }
            if (out == TP_XS_TIMEOUT) {
                unknown = true;
                break;
            }
            cs[c].arena = a;
            rep->used = TP_ALGO_EXACT;
        }
        if (unknown) {
            st = tp_error_set(err, TP_ERR_TIMEOUT,
                              "exact: no plan within %llu bytes found before the time limit "
                              "(best %llu, lower bound %llu)",
                              (unsigned long long)cap, (unsigned long long)*arena,
                              (unsigned long long)lb);
            goto done;
        }
    } else if (searching) {
        for (;;) {
            size_t c = 0;
            uint64_t other = 0;
            for (size_t j = 1; j < nc; j++)
                if (cs[j].arena > cs[c].arena) c = j;
            for (size_t j = 0; j < nc; j++)
                if (j != c && cs[j].arena > other) other = cs[j].arena;
            if (cs[c].proven || cs[c].unsearchable) break;
            if (clk.deadline > 0 && tp__xs_now() >= clk.deadline) break;
            clk.other_max = other;
            st = portfolio_init(&pf, bufs, idx + starts[c], starts[c + 1] - starts[c],
                                opt->alignment, alloc, err);
            if (st == TP_ERR_UNSUPPORTED) {
                st = TP_OK;
                cs[c].unsearchable = true;
                break;
            }
            if (st != TP_OK) goto done;
            bool improved = false;
            st = minimize(&pf, &cs[c], lb, &clk, offsets, &improved, err);
            portfolio_free(&pf);
            if (st != TP_OK) goto done;
            if (improved) rep->used = TP_ALGO_EXACT;
            if (!cs[c].proven) break; /* time is up */
        }
    }
    uint64_t top = 0;
    size_t worst = 0;
    for (size_t c = 0; c < nc; c++)
        if (cs[c].arena > top) {
            top = cs[c].arena;
            worst = c;
        }
    *arena = top;
    rep->proven_optimal = nc > 0 && cs[worst].proven;
    if (top <= lb) rep->proven_optimal = true;
done:
    if (is_exact && st == TP_OK) rep->used = TP_ALGO_EXACT;
    rep->nodes = clk.nodes;
    portfolio_free(&pf);
    tp_mem_free(alloc, idx, k * sizeof *idx);
    tp_mem_free(alloc, starts, (k + 1) * sizeof *starts);
    tp_mem_free(alloc, cs, nc * sizeof *cs);
    return st;
}

tp_status tp__alloc_exact(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                          const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                          tp_error *err) {
    tp_alloc_options o = *opt;
    o.algo = TP_ALGO_EXACT;
    return tp__alloc_search(bufs, n, &o, 0, alloc, offsets, arena, NULL, err);
}

tp_status tp__alloc_auto(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                         const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                         tp_error *err) {
    tp_alloc_options o = *opt;
    o.algo = TP_ALGO_AUTO;
    return tp__alloc_search(bufs, n, &o, 0, alloc, offsets, arena, NULL, err);
}
