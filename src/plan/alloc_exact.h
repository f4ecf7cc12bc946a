/*
 * Internal interface of the best-fit heuristics and the exact search
 * (src/plan/alloc_bestfit.c, src/plan/alloc_exact*.c). See docs/exact.md.
 *
 * Placer entry points follow the contract of alloc_internal.h. The search also reports
 * whether its answer is proven optimal and which algorithm produced it, through
 * tp__alloc_search.
 */
#ifndef TP_PLAN_ALLOC_EXACT_H
#define TP_PLAN_ALLOC_EXACT_H

#include "tensorplan/alloc.h"

/* ---- best-fit heuristics (alloc_bestfit.c) ---- */
typedef struct tp_bestfit_info {
    int order;            /* order that won: 0 size, 1 breadth, 2 start, 3 length, 4 area, 5 size
                           * class, 6 the sweep (tp__alloc_sweep), 7 quarter size class then
                           * longest lifetime, 8 the peak-out sweep
                           * (tp__alloc_sweep_peak), 9 the class split (tp__alloc_split),
                           * 10 the window search (tp__alloc_window) on the best of those */
    bool best_fit;        /* true: best-fit gap rule won; false: first-fit */
    double first_plan_at; /* monotonic seconds (tp__xs_now) when the first complete plan was
                           * in hand: the pass no deadline cuts; 0 without a plan */
} tp_bestfit_info;

/* deadline: monotonic seconds (tp__xs_now) after which no further run starts and a running
 * one stops (the best plan so far stands); 0 = none. Every pass honours it except the one
 * that gives the first plan, which always completes: the sweeps on long lifetimes (after
 * the class split, cut off by it), the first gap-index or list run otherwise. So the time
 * is about max(deadline, first plan), and the plan never worse than the first one. */
tp_status tp__alloc_bestfit_ex(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                               double deadline, const tp_allocator *alloc, uint64_t *offsets,
                               uint64_t *arena, tp_bestfit_info *info, tp_error *err);
tp_status tp__alloc_bestfit(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                            const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                            tp_error *err);

/* Sweep placer (alloc_sweep.c): birth order (ties: largest first), each buffer into the
 * best-fit (use_best_fit) or lowest free gap of the arena at its birth; O(n log n) whatever
 * the number of live buffers. TP_ERR_UNSUPPORTED with pre-placed buffers (not an error for
 * callers that have other placers), TP_ERR_NOMEM, TP_ERR_OVERFLOW. */
tp_status tp__alloc_sweep(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                          bool use_best_fit, const tp_allocator *alloc, uint64_t *offsets,
                          uint64_t *arena, tp_error *err);
/* The same with time mirrored when `reverse`: death order (latest first; ties: largest
 * first), each buffer into a gap of the arena as it stands at its death, buffers given back
 * once the new buffer's death is below their birth. Any plan is valid for the mirrored
 * instance iff it is for the original one (lifetimes overlap iff mirrored ones do).
 * deadline (monotonic seconds, tp__xs_now; 0: none): TP_ERR_TIMEOUT (offsets partly
 * written, no plan) when it has passed after the sort or at any 4,096th buffer. */
tp_status tp__alloc_sweep_ex(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                             bool use_best_fit, bool reverse, double deadline,
                             const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                             tp_error *err);
/* Peak-out sweep (alloc_sweep_peak.c): the buffers alive at the most crowded step p stacked
 * first, then a forward sweep over the buffers born after p and a mirrored one over those
 * that died before p (the two halves never overlap in time). Same errors as the sweep,
 * and the same deadline (0: none; both halves check it). */
tp_status tp__alloc_sweep_peak(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                               bool use_best_fit, double deadline, const tp_allocator *alloc,
                               uint64_t *offsets, uint64_t *arena, tp_error *err);

/* A step where the live placement bytes are largest (the earliest such birth step); when the
 * running sum would pass 2^64 the scan stops there (any step is valid for the callers). n > 0.
 * TP_ERR_NOMEM. */
tp_status tp__alloc_peak_step(const tp_buffer *bufs, size_t n, const tp_allocator *alloc,
                              int64_t *p, tp_error *err);
/* The same, also giving the live placement bytes at that step (*bytes: the lower bound of
 * tp_alloc_lower_bound) unless they pass 2^64 (*overflow; then *bytes is 0). n > 0,
 * placement sizes must not overflow. O(n) radix passes (2-3 on traces of up to millions of
 * steps). TP_ERR_NOMEM. */
tp_status tp__alloc_peak(const tp_buffer *bufs, size_t n, const tp_allocator *alloc, int64_t *p,
                         uint64_t *bytes, bool *overflow, tp_error *err);

/* Class split (alloc_split.c): the large buffers by quarter size class (within a class: those
 * alive at the peak step first, then the longest) at the lowest free offset in a gap index;
 * the small ones (below a size threshold holding about 1/1024 of the peak step's bytes) by
 * the peak-out sweep in a strip above them. fill: then, within the deadline, the small ones
 * at the lowest free offsets among the large ones instead (same order), kept when that
 * arena is lower. TP_ERR_UNSUPPORTED with pre-placed buffers, TP_ERR_TIMEOUT past the
 * deadline (monotonic seconds; 0: none) before the strip plan stands (finish: unless three
 * quarters of the large buffers are placed by then; the rest and the strip are then placed
 * past it, and the fill is cut off: for a caller with no plan yet, finishing costs about
 * what the sweep that would replace the split costs), TP_ERR_NOMEM,
 * TP_ERR_OVERFLOW. *n_strip (NULL: not wanted): how many buffers the returned plan has in
 * the strip (0 when the fill won). */
tp_status tp__alloc_split(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                          double deadline, const tp_allocator *alloc, uint64_t *offsets,
                          uint64_t *arena, bool fill, bool finish, size_t *n_strip, tp_error *err);

/* Local search until the deadline (alloc_improve.c): re-place the buffers that end near the
 * top of the arena, in several orders and fit rules, keeping a round only when the arena
 * shrinks. offsets / *arena: a valid plan in, a plan at least as good out; *rounds: rounds
 * tried. Pre-placed buffers stay. TP_ERR_NOMEM. */
tp_status tp__alloc_improve(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                            double deadline, const tp_allocator *alloc, uint64_t *offsets,
                            uint64_t *arena, unsigned *rounds, tp_error *err);

/* Window search until the deadline or the try budget (alloc_window.c): re-place the
 * buffers of a time window around the buffer that sets the arena, in squeaky-wheel orders
 * (the members that end high go earlier next try), keeping a try only when the window's
 * top drops. offsets / *arena: a valid plan in, a plan at least as good out. Pre-placed
 * buffers stay. Without a deadline and a try budget it returns at once. TP_ERR_NOMEM. */
typedef struct tp_window_run {
    double start;         /* monotonic seconds: the planner's start (progress reports) */
    double deadline;      /* monotonic seconds; 0: none */
    uint64_t max_tries;   /* 0: no budget */
    uint64_t lower_bound; /* tp_alloc_lower_bound of the buffers: stop there */
    uint64_t tries;       /* out: tries made */
} tp_window_run;
tp_status tp__alloc_window(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                           tp_window_run *run, const tp_allocator *alloc, uint64_t *offsets,
                           uint64_t *arena, tp_error *err);

/* ---- exact search (alloc_exact.c) ---- */
typedef struct tp_search_report {
    bool proven_optimal; /* arena == lower bound, or the search space was exhausted */
    tp_alloc_algo used;  /* TP_ALGO_BEST_FIT when the search did not improve the heuristic */
    uint64_t nodes;      /* search nodes visited */
    uint64_t heuristic_arena;
    double first_plan_at; /* monotonic seconds: the heuristics' first complete plan */
} tp_search_report;

/* EXACT (opt->algo == TP_ALGO_EXACT) or AUTO (anything else): best heuristic, then the
 * search within opt->time_limit_s counted from `start` (monotonic seconds, tp__xs_now;
 * <= 0: the call's own start), so a caller's work before the call counts against the
 * limit (EXACT: a limit <= 0 means none; AUTO: <= 0 means heuristics only). Capacity mode
 * when opt->capacity > 0: returns the first plan with arena <= capacity, TP_ERR_INFEASIBLE
 * when none exists (proved), TP_ERR_TIMEOUT when the limit ran out first. rep may be
 * NULL. */
tp_status tp__alloc_search(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                           double start, const tp_allocator *alloc, uint64_t *offsets,
                           uint64_t *arena, tp_search_report *rep, tp_error *err);
tp_status tp__alloc_exact(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                          const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                          tp_error *err);
tp_status tp__alloc_auto(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                         const tp_allocator *alloc, uint64_t *offsets, uint64_t *arena,
                         tp_error *err);

/* ---- search internals (alloc_exact_sections.c, alloc_exact_search.c) ---- */

/* One independent subproblem (a component between time cuts), buffers in rank order
 * (largest first). Sections are the maximal step ranges with a constant live set. */
typedef struct tp_xs_problem {
    const tp_allocator *alloc;
    size_t m, n_sec;
    uint32_t *gidx;            /* rank -> index into the caller's buffers */
    uint64_t *size, *align;    /* placement size and alignment, by rank */
    uint32_t *lo, *hi;         /* inclusive section span, by rank */
    uint32_t *adj_start, *adj; /* CSR lists of time-overlapping ranks (m + 1 starts) */
    uint32_t *twin;            /* rank of the previous identical buffer, UINT32_MAX = none */
    uint64_t *sec_total;       /* sum of sizes live in each section (saturating) */
    uint64_t *width;           /* lifetime length in steps, by rank */
    uint64_t lb;               /* max sec_total */
    size_t n_adj;
    int preorder;     /* the static preorder the ranks follow */
    bool fresh_parts; /* search mode: each independent part found during the search
                       * is ranked afresh by the preorder over its remaining bytes and
                       * its canonical sequence restarts at offset 0 (MiniMalloc's
                       * way); false: the static ranks and the current offset stay */
} tp_xs_problem;

/* Split the buffers idx[0..k) (non-fixed, nonzero size) into components at time cuts no
 * buffer crosses. idx is reordered in place (by birth); component c is
 * idx[starts[c] .. starts[c + 1]), starts[*n_comp] == k; starts must have room for k + 1
 * entries. TP_ERR_NOMEM only. */
tp_status tp__xs_components(const tp_buffer *bufs, uint32_t *idx, size_t k, size_t *starts,
                            size_t *n_comp, const tp_allocator *alloc, tp_error *err);

/* Build a subproblem over the buffers members[0..m) with static preorder `preorder`
 * (0..TP_XS_PREORDERS-1, see alloc_exact_sections.c). TP_ERR_NOMEM or TP_ERR_UNSUPPORTED
 * (more than max_adj overlap pairs). */
tp_status tp__xs_build(const tp_buffer *bufs, const uint32_t *members, size_t m, uint64_t opt_align,
                       int preorder, size_t max_adj, const tp_allocator *alloc, tp_xs_problem *p,
                       tp_error *err);
void tp__xs_free(tp_xs_problem *p);
#define TP_XS_PREORDERS 3
/* search variants: the preorders with static ranks, then with fresh parts */
#define TP_XS_VARIANTS (2 * TP_XS_PREORDERS)

typedef enum tp_xs_outcome {
    TP_XS_FEASIBLE,   /* a plan within the cap was found */
    TP_XS_INFEASIBLE, /* proven: no plan within the cap */
    TP_XS_TIMEOUT     /* nothing found before the deadline or the node limit */
} tp_xs_outcome;

typedef struct tp_xs_clock {
    double start, deadline; /* monotonic seconds; deadline <= 0: none */
    void (*progress)(void *ctx, double elapsed_s, uint64_t best_arena, uint64_t lower_bound);
    void *progress_ctx;
    double next_progress;
    uint64_t report_best, report_lb; /* figures passed to progress */
    uint64_t other_max;              /* largest arena of the other components */
    uint64_t nodes;
} tp_xs_clock;

double tp__xs_now(void);
/* Whether a placement loop at its k-th item (from 0) looks at the clock: every 16th. A
 * lowest- or best-fit query on a dense trace costs up to ~50 us, so a loop past its deadline
 * stops within about a millisecond; a clock read costs ~25 ns. (Until session 13 the loops
 * looked every 256-1024 items and ran 6-17 ms past the deadline on 62,000-buffer traces.)
 * The sweeps and the rebuilds, at a few microseconds an item, look every 256th. */
static inline bool tp__xs_clock_due(size_t k) {
    return (k & 15) == 15;
}

/* Decide whether a plan with arena <= cap exists (node_limit 0 = none). On FEASIBLE, off
 * receives offsets by rank and *arena the plan's arena. */
tp_status tp__xs_solve(const tp_xs_problem *p, uint64_t cap, uint64_t node_limit, tp_xs_clock *clk,
                       uint64_t *off, uint64_t *arena, tp_xs_outcome *outcome, tp_error *err);

#endif
