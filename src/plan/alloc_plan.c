/* tp_alloc_plan: options, algorithm names, input validation and dispatch to the placers. */
#include "core/mem.h"
#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"

#include <stdlib.h>
#include <string.h>

void tp_alloc_options_default(tp_alloc_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->alignment = 64;
    o->algo = TP_ALGO_GREEDY_SIZE;
    o->time_limit_s = 0.0;
    o->capacity = 0;
}

static const char *const algo_names[TP_ALGO_COUNT] = {"greedy", "noreuse", "bestfit", "exact",
                                                      "auto"};

const char *tp_alloc_algo_name(tp_alloc_algo a) {
    if ((int)a < 0 || a >= TP_ALGO_COUNT) return "unknown";
    return algo_names[a];
}

tp_status tp_alloc_algo_parse(const char *name, tp_alloc_algo *out, tp_error *err) {
    static const struct {
        const char *alias;
        tp_alloc_algo algo;
    } aliases[] = {{"greedy-size", TP_ALGO_GREEDY_SIZE}, {"greedy_size", TP_ALGO_GREEDY_SIZE},
                   {"no-reuse", TP_ALGO_NO_REUSE},       {"no_reuse", TP_ALGO_NO_REUSE},
                   {"best-fit", TP_ALGO_BEST_FIT},       {"best_fit", TP_ALGO_BEST_FIT}};
    if (!name || !out)
        return tp_error_set(err, TP_ERR_INVALID, "allocation algorithm: NULL argument");
    for (int a = 0; a < TP_ALGO_COUNT; a++)
        if (strcmp(name, algo_names[a]) == 0) {
            *out = (tp_alloc_algo)a;
            return TP_OK;
        }
    for (size_t k = 0; k < sizeof aliases / sizeof aliases[0]; k++)
        if (strcmp(name, aliases[k].alias) == 0) {
            *out = aliases[k].algo;
            return TP_OK;
        }
    return tp_error_set(err, TP_ERR_INVALID,
                        "unknown allocation algorithm '%s' (expected greedy, noreuse, bestfit, "
                        "exact or auto)",
                        name);
}

static tp_status buffer_error(tp_error *err, tp_status s, const tp_buffer *b, size_t i,
                              const char *what) {
    return tp_error_setx(err, s, TP_NO_OFFSET, b->id,
                         "buffer %zu (id %lld, size %llu, tail guard %llu, lifetime [%lld, %lld], "
                         "alignment %llu, fixed offset %lld): %s",
                         i, (long long)b->id, (unsigned long long)b->size,
                         (unsigned long long)b->tail_guard, (long long)b->birth,
                         (long long)b->death, (unsigned long long)b->alignment,
                         (long long)b->fixed_offset, what);
}

tp_status tp__alloc_validate(const tp_buffer *bufs, size_t n, const uint64_t *offsets,
                             const tp_alloc_options *opt, const tp_allocator *alloc,
                             tp_error *err) {
    if (!tp_is_pow2_u64(opt->alignment))
        return tp_error_set(err, TP_ERR_INVALID, "alignment %llu is not a power of two",
                            (unsigned long long)opt->alignment);
    if ((int)opt->algo < 0 || opt->algo >= TP_ALGO_COUNT)
        return tp_error_set(err, TP_ERR_INVALID, "unknown allocation algorithm %d", (int)opt->algo);
    if (n == 0) return TP_OK;
    if (!bufs || !offsets)
        return tp_error_set(err, TP_ERR_INVALID, "NULL buffers or offsets for %zu buffers", n);
    size_t n_fixed = 0;
    for (size_t i = 0; i < n; i++) {
        const tp_buffer *b = &bufs[i];
        uint64_t ps, end;
        if (b->birth < 0) return buffer_error(err, TP_ERR_INVALID, b, i, "negative birth step");
        if (b->birth > b->death)
            return buffer_error(err, TP_ERR_INVALID, b, i, "birth after death");
        if (b->alignment != 0 && !tp_is_pow2_u64(b->alignment))
            return buffer_error(err, TP_ERR_INVALID, b, i, "alignment is not a power of two");
        if (!tp_add_u64(b->size, b->tail_guard, &ps))
            return buffer_error(err, TP_ERR_OVERFLOW, b, i, "size + tail guard passes 2^64");
        if (b->fixed_offset >= 0) {
            if ((uint64_t)b->fixed_offset & (tp__alloc_align(b, opt->alignment) - 1))
                return buffer_error(err, TP_ERR_INVALID, b, i, "fixed offset is not aligned");
            if (!tp_add_u64((uint64_t)b->fixed_offset, ps, &end))
                return buffer_error(err, TP_ERR_OVERFLOW, b, i,
                                    "fixed offset + placement size passes 2^64");
            n_fixed++;
        }
    }
    if (n_fixed < 2) return TP_OK;
    size_t *idx = tp_mem_calloc(alloc, n_fixed, sizeof *idx);
    if (!idx) return tp_error_set(err, TP_ERR_NOMEM, "out of memory checking fixed buffers");
    size_t m = 0;
    uint64_t *offs = (uint64_t *)offsets; /* the caller's output array, used as scratch */
    for (size_t i = 0; i < n; i++)
        if (bufs[i].fixed_offset >= 0) {
            idx[m++] = i;
            offs[i] = (uint64_t)bufs[i].fixed_offset;
        }
    bool found = false;
    size_t a = 0, c = 0;
    tp_status st = tp__alloc_find_conflict(bufs, n, idx, m, offs, alloc, &found, &a, &c, err);
    tp_mem_free(alloc, idx, n_fixed * sizeof *idx);
    if (st != TP_OK || !found) return st;
    return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, bufs[c].id,
                         "fixed buffers %zu (id %lld, offset %lld, size %llu, lifetime [%lld, "
                         "%lld]) and %zu (id %lld, offset %lld, size %llu, lifetime [%lld, %lld]) "
                         "overlap",
                         a, (long long)bufs[a].id, (long long)bufs[a].fixed_offset,
                         (unsigned long long)bufs[a].size, (long long)bufs[a].birth,
                         (long long)bufs[a].death, c, (long long)bufs[c].id,
                         (long long)bufs[c].fixed_offset, (unsigned long long)bufs[c].size,
                         (long long)bufs[c].birth, (long long)bufs[c].death);
}

/* *first_plan_at: when the first complete plan was in hand (monotonic seconds; left 0 by
 * the one-pass placers, whose first plan is their answer). t0: when tp_alloc_plan was
 * entered (the search's time limit counts from it). */
static tp_status dispatch(tp_alloc_algo algo, const tp_buffer *bufs, size_t n,
                          const tp_alloc_options *opt, double t0, const tp_allocator *alloc,
                          uint64_t *offsets, uint64_t *arena, tp_alloc_algo *used, bool *proven,
                          double *first_plan_at, tp_error *err) {
    *used = algo;
    switch (algo) {
    case TP_ALGO_GREEDY_SIZE:
        return tp__alloc_greedy(bufs, n, opt, alloc, offsets, arena, err);
    case TP_ALGO_NO_REUSE:
        return tp__alloc_noreuse(bufs, n, opt, alloc, offsets, arena, err);
    case TP_ALGO_BEST_FIT:
        return tp__alloc_bestfit(bufs, n, opt, alloc, offsets, arena, err);
    case TP_ALGO_EXACT:
    case TP_ALGO_AUTO: {
        tp_search_report rep;
        tp_status s = tp__alloc_search(bufs, n, opt, t0, alloc, offsets, arena, &rep, err);
        *used = rep.used;
        *proven = rep.proven_optimal;
        *first_plan_at = rep.first_plan_at;
        return s;
    }
    case TP_ALGO_COUNT:
    default:
        break;
    }
    return tp_error_set(err, TP_ERR_UNSUPPORTED,
                        "allocation algorithm '%s' is not implemented yet (use greedy or noreuse)",
                        tp_alloc_algo_name(algo));
}

tp_status tp_alloc_plan(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                        const tp_allocator *alloc, uint64_t *offsets, tp_alloc_result *result,
                        tp_error *err) {
    double t0 = tp__xs_now();
    tp_alloc_options defaults;
    if (!opt) {
        tp_alloc_options_default(&defaults);
        opt = &defaults;
    }
    tp_status st = tp__alloc_validate(bufs, n, offsets, opt, alloc, err);
    if (st != TP_OK) return st;
    uint64_t arena = 0, lb = 0;
    tp_alloc_algo used = opt->algo;
    bool proven = false, have_lb = false;
    double first_plan_at = 0;
    /* Under a time limit the limit counts from entry (validation included) and covers the
     * lower bound, computed first (0.003-0.016 s at 62,000 buffers, 0.15 s at a million):
     * computed after the search it came on top of the limit (session 13: `auto` 1 s took
     * 1.013-1.026 s on longmix62k, of which 5-9 ms were the bound). A failure here is left
     * to the call after the placement, so errors come in the same order as without a limit. */
    if (opt->time_limit_s > 0 && (opt->algo == TP_ALGO_AUTO || opt->algo == TP_ALGO_EXACT)) {
        tp_error lb_err;
        have_lb = tp_alloc_lower_bound(bufs, n, alloc, &lb, &lb_err) == TP_OK;
    }
    st = dispatch(opt->algo, bufs, n, opt, t0, alloc, offsets, &arena, &used, &proven,
                  &first_plan_at, err);
    if (st != TP_OK) return st;
    double placed_at = tp__xs_now();
    if (!have_lb) {
        st = tp_alloc_lower_bound(bufs, n, alloc, &lb, err);
        if (st != TP_OK) return st;
    }
    if (result) {
        result->arena_bytes = arena;
        result->lower_bound_bytes = lb;
        result->algo_used = used;
        result->optimal = arena <= lb || proven;
        result->seconds = tp__xs_now() - t0;
        /* (bestfit without a limit reports no first plan: its runs are one answer) */
        result->first_plan_seconds = (first_plan_at > 0 ? first_plan_at : placed_at) - t0;
    }
    return TP_OK;
}
