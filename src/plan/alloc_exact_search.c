/* Exact search over canonical placements (docs/exact.md).
 *
 * Every feasible plan can be pushed down ("gravity") until each buffer sits at the aligned
 * maximum end of the time-overlapping buffers below it. Listing such a plan by (offset,
 * rank) gives a sequence in which each buffer's offset is the aligned top of the current
 * skyline over its lifetime and offsets never decrease. The search decides whether such a
 * sequence exists with every end <= cap:
 *   - state: per-section skyline h[s], per-buffer skyline sky[r], the offset L of the last
 *     step and its rank (another buffer at offset L must have a larger rank);
 *   - branch at the lowest eligible floor x: place one of the buffers whose floor is x (in
 *     rank order), or "skip" x (nothing more starts at x);
 * Pruning rules:
 *   - capacity: a buffer whose floor + size exceeds the cap can never be placed;
 *   - dominance: a buffer that fits entirely in the free gap between its floor and L can
 *     be dropped into it, so the plan is explored elsewhere with that buffer earlier;
 *   - stranded: a buffer below L can only be lifted by a time-overlapping buffer still to
 *     be placed; with none left the branch is dead;
 *   - forced: a buffer with no unplaced time-overlapping buffer left sits at its (final)
 *     floor in every completion and constrains no one: placed at once, no branch;
 *   - lift: a buffer below L ends on top of a neighbour placed later at >= x, so its
 *     offset is >= min over unplaced neighbours q of max(x, floor q) + size q; that
 *     must fit, and serves as its floor in the section bound;
 *   - section bound with unplaced floors: in each section, every unplaced buffer starts at
 *     or above max(x, its floor), so min(those) + (unplaced bytes in s) <= cap;
 *   - identical buffers (same size, lifetime, alignment) are placed in rank order;
 *   - dynamic decomposition: when no unplaced buffer crosses some section boundary, the
 *     two sides are independent and solved one after the other (a failure on one side
 *     never re-explores the other).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/mem.h"
#include "plan/alloc_exact.h"

double tp__xs_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct trail_e {
    uint64_t *ptr;
    uint64_t old;
} trail_e;

typedef struct side_e {
    uint64_t k[4];
    uint32_t r, old;
} side_e;

typedef struct xs {
    const tp_xs_problem *p;
    tp_xs_clock *clk;
    uint64_t cap;
    uint64_t nodes, node_limit;
    bool stop, timed_out;
    uint64_t *h, *rem, *sky, *off, *fl;
    int64_t *cross;
    uint32_t *udeg, *pstack, *by_lo, *first_lo, *hang;
    uint64_t *flr; /* floor of each unplaced rank at the current node (lifted below L) */
    uint8_t *placed;
    size_t n_pstack;
    trail_e *trail;
    size_t n_trail, cap_trail;
    uint32_t *prio; /* per rank: position in the preorder of the current part */
    uint64_t epoch; /* memo key of the current part's preorder */
    side_e *side;   /* stack of the parts' members, with their previous prio */
    size_t n_side, cap_side;
    bool nomem;
    uint64_t *zob;  /* per rank: random key of "rank r unplaced" */
    uint64_t *memo; /* keys of failed states (0 = empty slot), two-way buckets */
    size_t memo_mask;
} xs;

static uint64_t mix64(uint64_t z) { /* splitmix64 finalizer */
    z += 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static void place(xs *s, uint32_t r, uint64_t x) {
    const tp_xs_problem *p = s->p;

    uint64_t end = x + p->size[r];
    s->off[r] = x;
    s->placed[r] = 1;
    s->pstack[s->n_pstack++] = r;
    for (uint32_t sec = p->lo[r]; sec <= p->hi[r]; sec++) {
        s->trail[s->n_trail].ptr = &s->h[sec];
        s->trail[s->n_trail++].old = s->h[sec];
        s->h[sec] = end;
        s->rem[sec] -= p->size[r];
    }
    for (uint32_t k = p->adj_start[r]; k < p->adj_start[r + 1]; k++) {
        uint32_t q = p->adj[k];
        s->udeg[q]--;
        if (!s->placed[q] && s->sky[q] < end) {
            s->trail[s->n_trail].ptr = &s->sky[q];
            s->trail[s->n_trail++].old = s->sky[q];
            s->sky[q] = end;
        }
    }
}

/* Undo every placement above the marks. */
static void undo_to(xs *s, size_t mark_p, size_t mark_t) {
    const tp_xs_problem *p = s->p;
    while (s->n_pstack > mark_p) {
        uint32_t r = s->pstack[--s->n_pstack];
        for (uint32_t sec = p->lo[r]; sec <= p->hi[r]; sec++)
            s->rem[sec] += p->size[r];
        for (uint32_t k = p->adj_start[r]; k < p->adj_start[r + 1]; k++)
            s->udeg[p->adj[k]]++;
        s->placed[r] = 0;
    }
    while (s->n_trail > mark_t) {
        s->n_trail--;
        *s->trail[s->n_trail].ptr = s->trail[s->n_trail].old;
    }
}

static void tick(xs *s) {
    tp_xs_clock *c = s->clk;
    double now = tp__xs_now();
    if (c->deadline > 0 && now >= c->deadline) {
        s->timed_out = true;
        s->stop = true;
    }
    if (c->progress && now >= c->next_progress) {
        c->progress(c->progress_ctx, now - c->start, c->report_best, c->report_lb);
        c->next_progress = now + 1.0;
    }
}

/* Floor of rank r: the aligned top of its skyline; false when it cannot fit under cap. */
static inline bool floor_of(const xs *s, uint32_t r, uint64_t *f) {
    const tp_xs_problem *p = s->p;
    uint64_t mask = p->align[r] - 1, v = s->sky[r], sz = p->size[r];
    if (v > UINT64_MAX - mask) return false;
    *f = (v + mask) & ~mask;
    return sz <= s->cap && *f <= s->cap - sz;
}

static bool twin_waits(const xs *s, uint32_t r) {
    const tp_xs_problem *p = s->p;
    return p->twin[r] != UINT32_MAX && !s->placed[p->twin[r]];
}

#define MAX_CAND 16

static bool branch(xs *s, uint32_t a, uint32_t b, uint64_t L, int64_t lr, uint64_t x, uint32_t cut,
                   uint64_t slack_l, uint64_t slack_r, uint32_t *cand, uint32_t n_cand);

/* Place every unplaced buffer whose sections lie in [a, b] (no unplaced buffer crosses
 * the range's borders). true: all placed (state kept); false: state restored. */
static bool dfs(xs *s, uint32_t a, uint32_t b, uint64_t L, int64_t lr) {
    const tp_xs_problem *p = s->p;
    s->nodes++;
    s->clk->nodes++;
    if ((s->nodes & 127) == 0) tick(s); /* (every 1,024: up to 0.03 s past the limit) */
    if (s->node_limit && s->nodes >= s->node_limit) s->stop = true;
    if (s->stop) return false;
    uint32_t i0 = s->first_lo[a], i1 = s->first_lo[b + 1];
    for (uint32_t sec = a; sec <= b; sec++) {
        s->fl[sec] = UINT64_MAX;
        s->cross[sec] = 0;
    }
    s->cross[b + 1] = 0;

    /* one pass over the unplaced buffers: floors, pruning, the lowest eligible floor x
     * and its candidates, per-section lowest floor, crossing counts */
    uint64_t x = UINT64_MAX;
    uint32_t lo_min = UINT32_MAX, hi_max = 0, cand[MAX_CAND], n_cand = 0;
    /* memo key of the state: the unplaced set, the skyline where they live, L, rank */
    uint64_t key = mix64(L) ^ mix64((uint64_t)lr * 0x2545F4914F6CDD1Du) ^ s->epoch;
    uint32_t n_hang = 0;
    for (uint32_t i = i0; i < i1; i++) {
        uint32_t r = s->by_lo[i];
        if (s->placed[r]) continue;
        uint64_t f;
        if (!floor_of(s, r, &f)) return false;          /* can never fit */
        if (f < L && p->size[r] <= L - f) return false; /* dominated */
        bool eligible = f > L || (f == L && (int64_t)s->prio[r] > lr);
        if (s->udeg[r] == 0) {
            /* no time-overlapping buffer left: its floor is final and it constrains no
             * one, so it sits there in every completion (forced, no branch) */
            if (!eligible) return false; /* stranded below L */
            place(s, r, f);
            continue;
        }
        key ^= s->zob[r];
        if (p->lo[r] < lo_min) lo_min = p->lo[r];
        if (p->hi[r] > hi_max) hi_max = p->hi[r];
        s->flr[r] = f;
        s->cross[p->lo[r] + 1]++;
        s->cross[p->hi[r] + 1]--;
        if (!eligible) {
            s->hang[n_hang++] = r; /* must be lifted: bounded below after x is known */
            continue;
        }
        for (uint32_t sec = p->lo[r]; sec <= p->hi[r]; sec++)
            if (f < s->fl[sec]) s->fl[sec] = f;
        if (twin_waits(s, r)) continue;
        if (f < x) {
            x = f;
            n_cand = 0;
        }
        if (f == x && n_cand <= MAX_CAND) { /* MAX_CAND + 1 marks an overflow */
            if (n_cand < MAX_CAND) cand[n_cand] = r;
            n_cand++;
        }
    }
    if (lo_min == UINT32_MAX) return true; /* nothing left here */
    if (x == UINT64_MAX) return false;
    /* a buffer below L (or at L behind the last rank) ends up on top of a time-overlapping
     * buffer placed later, at offset >= x: its offset is at least the lowest such end */
    for (uint32_t k = 0; k < n_hang; k++) {
        uint32_t r = s->hang[k];
        uint64_t lift = UINT64_MAX;
        for (uint32_t j = p->adj_start[r]; j < p->adj_start[r + 1]; j++) {
            uint32_t q = p->adj[j];
            if (s->placed[q]) continue;
            uint64_t v = tp_sat_add_u64(s->flr[q] > x ? s->flr[q] : x, p->size[q]);
            if (v < lift) lift = v;
        }
        uint64_t mask = p->align[r] - 1;
        if (lift > s->cap || lift > s->cap - mask) return false;
        lift = (lift + mask) & ~mask;
        if (p->size[r] > s->cap || lift > s->cap - p->size[r]) return false;
        for (uint32_t sec = p->lo[r]; sec <= p->hi[r]; sec++)
            if (lift < s->fl[sec]) s->fl[sec] = lift;
        s->flr[r] = lift;
    }
    a = lo_min;
    b = hi_max;

    /* section bound: every future offset is >= x and >= the floors of the unplaced
     * buffers of the section; first cut no unplaced buffer crosses */
    uint32_t cut = 0;
    int64_t run = 0;
    uint64_t slack_l = UINT64_MAX, slack_r = UINT64_MAX; /* tightest section on each side */
    for (uint32_t sec = a; sec <= b; sec++) {
        uint64_t base = s->fl[sec] > x ? s->fl[sec] : x;
        uint64_t need = 0;
        if (s->rem[sec]) {
            need = tp_sat_add_u64(base, s->rem[sec]);
            key ^= mix64(s->h[sec] * 0x9E3779B97F4A7C15u + sec);
        }
        if (need > s->cap) return false;
        run += s->cross[sec];
        if (sec > a && run == 0 && cut == 0) cut = sec;
        uint64_t slack = s->cap - need;
        if (cut == 0 && slack < slack_l) slack_l = slack;
        if (cut != 0 && slack < slack_r) slack_r = slack;
    }
    if (key == 0) key = 1;
    size_t slot = (size_t)(key >> 7) & s->memo_mask;
    if (s->memo[slot] == key || s->memo[slot ^ 1] == key) return false; /* failed before */
    bool ok = branch(s, a, b, L, lr, x, cut, slack_l, slack_r, cand, n_cand);
    if (!ok && !s->stop) {
        if (s->memo[slot] != 0) s->memo[slot ^ 1] = s->memo[slot];
        s->memo[slot] = key;
    }
    return ok;
}

static int cmp_side(const void *x, const void *y) {
    const side_e *p = x, *q = y;
    for (int i = 0; i < 4; i++)
        if (p->k[i] != q->k[i]) return p->k[i] > q->k[i] ? -1 : 1;
    return p->r < q->r ? -1 : (p->r > q->r);
}

/* An independent part [a, b] (no unplaced buffer crosses its borders): its remaining
 * buffers are ranked afresh by the preorder over the bytes still unplaced in each section
 * (MiniMalloc re-sorts each part the same way), and its canonical sequence starts anew at
 * offset 0 (the placed buffers are fixed obstacles: every floor already accounts for them).
 * The previous ranks are restored on return. */
static bool solve_part(xs *s, uint32_t a, uint32_t b) {
    const tp_xs_problem *p = s->p;
    size_t base = s->n_side;
    for (uint32_t i = s->first_lo[a]; i < s->first_lo[b + 1]; i++) {
        uint32_t r = s->by_lo[i];
        if (s->placed[r]) continue;
        if (s->n_side == s->cap_side) {
            size_t nc = s->cap_side ? 2 * s->cap_side : 256;
            side_e *g = tp_mem_realloc(p->alloc, s->side, s->cap_side * sizeof *g, nc * sizeof *g);
            if (!g) {
                s->nomem = s->stop = true;
                s->n_side = base;
                return false;
            }
            s->side = g;
            s->cap_side = nc;
        }
        side_e *e = &s->side[s->n_side++];
        uint64_t total = 0;
        for (uint32_t sec = p->lo[r]; sec <= p->hi[r]; sec++)
            if (s->rem[sec] > total) total = s->rem[sec];
        uint64_t w = p->width[r], area = tp_sat_mul_u64(p->size[r], w);
        switch (p->preorder) {
        case 1:
            e->k[0] = w, e->k[1] = area, e->k[2] = total;
            break;
        case 2:
            e->k[0] = total, e->k[1] = w, e->k[2] = area;
            break;
        default:
            e->k[0] = total, e->k[1] = area, e->k[2] = w;
            break;
        }
        e->k[3] = p->size[r];
        e->r = r;
        e->old = s->prio[r];
    }
    size_t k = s->n_side - base;
    side_e *v = s->side + base;
    qsort(v, k, sizeof *v, cmp_side);
    uint64_t ep = s->epoch, h = 0x51ED27Fu;
    for (size_t i = 0; i < k; i++) {
        s->prio[v[i].r] = (uint32_t)i;
        h ^= s->zob[v[i].r];
    }
    s->epoch = mix64(h);
    bool ok = dfs(s, a, b, 0, -1);
    v = s->side + base; /* the stack may have moved */
    for (size_t i = k; i > 0; i--)
        s->prio[v[i - 1].r] = v[i - 1].old;
    s->n_side = base;
    s->epoch = ep;
    return ok;
}

/* Decomposition at `cut`, or branching on the candidates at x, then skipping x. */
static bool branch(xs *s, uint32_t a, uint32_t b, uint64_t L, int64_t lr, uint64_t x, uint32_t cut,
                   uint64_t slack_l, uint64_t slack_r, uint32_t *cand, uint32_t n_cand) {
    if (cut) {
        /* independent sides: solve the tighter one first (fail first) */
        size_t mp = s->n_pstack, mt = s->n_trail;
        bool ok;
        if (s->p->fresh_parts)
            ok = slack_r < slack_l ? solve_part(s, cut, b) && solve_part(s, a, cut - 1)
                                   : solve_part(s, a, cut - 1) && solve_part(s, cut, b);
        else
            ok = slack_r < slack_l ? dfs(s, cut, b, L, lr) && dfs(s, a, cut - 1, L, lr)
                                   : dfs(s, a, cut - 1, L, lr) && dfs(s, cut, b, L, lr);
        if (ok) return true;
        undo_to(s, mp, mt);
        return false;
    }

    /* branch: each eligible buffer at x in rank order, then skip x */
    if (n_cand <= MAX_CAND) {
        for (uint32_t k = 1; k < n_cand; k++) { /* by preorder */
            uint32_t v = cand[k], j = k;
            while (j > 0 && s->prio[cand[j - 1]] > s->prio[v]) {
                cand[j] = cand[j - 1];
                j--;
            }
            cand[j] = v;
        }
        for (uint32_t k = 0; k < n_cand; k++) {
            size_t mp = s->n_pstack, mt = s->n_trail;
            place(s, cand[k], x);
            if (dfs(s, a, b, x, (int64_t)s->prio[cand[k]])) return true;
            undo_to(s, mp, mt);
            if (s->stop) return false;
        }
        return dfs(s, a, b, x, INT64_MAX);
    }
    int64_t prev = -1; /* many candidates: find them in preorder by scanning */
    for (;;) {
        uint32_t best = UINT32_MAX, best_pr = UINT32_MAX;
        for (uint32_t i = s->first_lo[a]; i < s->first_lo[b + 1]; i++) {
            uint32_t r = s->by_lo[i], pr = s->prio[r];
            if (s->placed[r] || (int64_t)pr <= prev || pr >= best_pr) continue;
            uint64_t f;
            if (!floor_of(s, r, &f) || f != x || twin_waits(s, r)) continue;
            if (f == L && (int64_t)pr <= lr) continue;
            best = r;
            best_pr = pr;
        }
        if (best == UINT32_MAX) break;
        size_t mp = s->n_pstack, mt = s->n_trail;
        place(s, best, x);
        if (dfs(s, a, b, x, (int64_t)best_pr)) return true;
        undo_to(s, mp, mt);
        if (s->stop) return false;
        prev = best_pr;
    }
    return dfs(s, a, b, x, INT64_MAX);
}

tp_status tp__xs_solve(const tp_xs_problem *p, uint64_t cap, uint64_t node_limit, tp_xs_clock *clk,
                       uint64_t *off, uint64_t *arena, tp_xs_outcome *outcome, tp_error *err) {
    const tp_allocator *a = p->alloc;
    size_t m = p->m, ns = p->n_sec;
    xs s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.clk = clk;
    s.cap = cap;
    s.node_limit = node_limit;
    *outcome = TP_XS_INFEASIBLE;
    if (m == 0) {
        *arena = 0;
        *outcome = TP_XS_FEASIBLE;
        return TP_OK;
    }
    size_t span_sum = 0;
    for (size_t r = 0; r < m; r++)
        span_sum += (size_t)(p->hi[r] - p->lo[r]) + 1;
    s.cap_trail = span_sum + p->adj_start[m] + 1;
    s.h = tp_mem_calloc(a, ns, sizeof *s.h);
    s.rem = tp_mem_alloc(a, ns * sizeof *s.rem);
    s.fl = tp_mem_alloc(a, ns * sizeof *s.fl);
    s.cross = tp_mem_alloc(a, (ns + 2) * sizeof *s.cross);
    s.sky = tp_mem_calloc(a, m, sizeof *s.sky);
    s.off = tp_mem_calloc(a, m, sizeof *s.off);
    s.udeg = tp_mem_alloc(a, m * sizeof *s.udeg);
    s.pstack = tp_mem_alloc(a, m * sizeof *s.pstack);
    s.by_lo = tp_mem_alloc(a, m * sizeof *s.by_lo);
    s.first_lo = tp_mem_calloc(a, ns + 2, sizeof *s.first_lo);
    s.placed = tp_mem_calloc(a, m, sizeof *s.placed);
    s.trail = tp_mem_alloc(a, s.cap_trail * sizeof *s.trail);
    s.hang = tp_mem_alloc(a, m * sizeof *s.hang);
    s.flr = tp_mem_alloc(a, m * sizeof *s.flr);
    s.prio = tp_mem_alloc(a, m * sizeof *s.prio);
    size_t memo_n = (size_t)1 << 16;
    while (memo_n < ((size_t)1 << 20) && memo_n < 256 * m)
        memo_n <<= 1;
    s.memo_mask = memo_n - 1;
    s.memo = tp_mem_calloc(a, memo_n, sizeof *s.memo);
    s.zob = tp_mem_alloc(a, m * sizeof *s.zob);
    tp_status st = TP_OK;
    if (!s.memo || !s.zob || !s.h || !s.rem || !s.fl || !s.cross || !s.sky || !s.off || !s.udeg ||
        !s.pstack || !s.by_lo || !s.first_lo || !s.placed || !s.trail || !s.hang || !s.flr ||
        !s.prio) {
        st = tp_error_set(err, TP_ERR_NOMEM, "exact: out of memory for the search state");
        goto done;
    }
    memcpy(s.rem, p->sec_total, ns * sizeof *s.rem);
    for (size_t r = 0; r < m; r++)
        s.zob[r] = mix64(((uint64_t)p->gidx[r] << 20) ^ 0xA5A5A5A5u);
    /* counting sort of ranks by first section (rank order kept within a section) */
    for (size_t r = 0; r < m; r++)
        s.first_lo[p->lo[r] + 1]++;
    for (size_t sec = 0; sec <= ns; sec++)
        s.first_lo[sec + 1] += s.first_lo[sec];
    for (size_t r = 0; r < m; r++)
        s.by_lo[s.first_lo[p->lo[r]]++] = (uint32_t)r;
    for (size_t sec = ns + 1; sec > 0; sec--)
        s.first_lo[sec] = s.first_lo[sec - 1];
    s.first_lo[0] = 0;
    for (size_t r = 0; r < m; r++) {
        s.udeg[r] = p->adj_start[r + 1] - p->adj_start[r];
        s.prio[r] = (uint32_t)r;
    }
    bool ok = p->lb <= cap && dfs(&s, 0, (uint32_t)(ns - 1), 0, -1);
    if (ok) {
        uint64_t top = 0;
        for (size_t r = 0; r < m; r++) {
            off[r] = s.off[r];
            if (s.off[r] + p->size[r] > top) top = s.off[r] + p->size[r];
        }
        *arena = top;
        *outcome = TP_XS_FEASIBLE;
    } else {
        *outcome = s.stop ? TP_XS_TIMEOUT : TP_XS_INFEASIBLE;
    }
    if (s.nomem)
        st = tp_error_set(err, TP_ERR_NOMEM, "exact: out of memory for the search's part stack");
done:
    tp_mem_free(a, s.h, ns * sizeof *s.h);
    tp_mem_free(a, s.rem, ns * sizeof *s.rem);
    tp_mem_free(a, s.fl, ns * sizeof *s.fl);
    tp_mem_free(a, s.cross, (ns + 2) * sizeof *s.cross);
    tp_mem_free(a, s.sky, m * sizeof *s.sky);
    tp_mem_free(a, s.off, m * sizeof *s.off);
    tp_mem_free(a, s.udeg, m * sizeof *s.udeg);
    tp_mem_free(a, s.pstack, m * sizeof *s.pstack);
    tp_mem_free(a, s.by_lo, m * sizeof *s.by_lo);
    tp_mem_free(a, s.first_lo, (ns + 2) * sizeof *s.first_lo);
    tp_mem_free(a, s.placed, m * sizeof *s.placed);
    tp_mem_free(a, s.trail, s.cap_trail * sizeof *s.trail);
    tp_mem_free(a, s.hang, m * sizeof *s.hang);
    tp_mem_free(a, s.flr, m * sizeof *s.flr);
    tp_mem_free(a, s.prio, m * sizeof *s.prio);
    tp_mem_free(a, s.side, s.cap_side * sizeof *s.side);
    tp_mem_free(a, s.memo, (s.memo_mask + 1) * sizeof *s.memo);
    tp_mem_free(a, s.zob, m * sizeof *s.zob);
    return st;
}
