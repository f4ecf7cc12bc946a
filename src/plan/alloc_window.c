/* Window search: squeaky-wheel re-placement of a time window around the buffer that sets
 * the arena (local search under a deadline; anytime: the plan only ever improves).
 *
 * On graph-like sets (short lifetimes, a few long skip connections) the arena is set in one
 * place: small long-lived buffers that found no gap free over their whole lifetime below
 * the top. A window is the span of the lifetimes of every buffer that overlaps the lifetime
 * of the buffer with the highest end. Its members are the buffers inside the span (not
 * pre-placed, placement size > 0); every other buffer that overlaps the span stays where it
 * is, as an obstacle clipped to the span (clipping changes nothing for a member: a member
 * lies inside the span, so it overlaps the clipped obstacle iff it overlaps the obstacle).
 *
 * A try places every member, in one order, at the lowest aligned offset free of the
 * obstacles and of the members placed before it (a gap index over the window). The order:
 * quarter size class (as the class4 run of alloc_bestfit.c) raised by a per-buffer boost
 * and a small random noise, then the longest lifetime, then the lowest index. After each
 * try the members that ended above halfway between the lower bound and the window's best
 * top get a higher boost ("squeaky wheel": what ends up high is placed earlier next time);
 * boosts are kept when the same region comes back as a new window (reset per window, the
 * search stalled at graph100k/3 1.0048 x LB; kept, it goes on to 1.0000).
 * A try is kept when all members are placed and the highest member end is below the best
 * top so far; it stops as soon as a member reaches that top (it cannot be kept). A window
 * ends when its top no longer sets the arena (below the highest end outside it, or at the
 * lower bound) or after STALL tries without a gain; the next window is taken around
 * the buffer that sets the arena then (the same one again: new tries, new noise). The
 * search stops at the deadline, the try budget, within 2^-14 of the lower bound (what is
 * left there is mostly alignment padding: graph100k/1 starts 524 bytes above a bound of
 * 51 MB; tries that close to it seldom stop early, so they cost the most, for gains that
 * a ratio shown to 4 decimals does not show), or after IDLE_MAX windows in a row whose
 * top did not drop.
 *
 * Validity: a member overlaps in time only buffers that overlap the span, all of which are
 * members or obstacles in the window's gap index when it is placed, so a kept try is
 * conflict-free by the greedy placer's argument; the buffers outside the window keep their
 * offsets. Deterministic for a given try count (seeded noise); a deadline stops it at a
 * load-dependent point.
 */
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"
#include "plan/gap_index.h"

#define STALL 50u         /* tries without a gain before the window is taken again */
#define NOISE 2u          /* random shift of a member's class, in sixteenths of a class */
#define BOOST_STEP 8u     /* boost per try that ended high: half a size class */
#define BOOST_MAX 1024u   /* cap: keeps the priority range (and the counting sort) small */
#define PRIO_N 2053u      /* 4 * 255 (largest class) + BOOST_MAX + 2 * NOISE + 1 */
#define WINDOW_MAX 65536u /* more members: not a graph-like window; stop */
#define IDLE_MAX 32u      /* windows in a row without a gain: stop */
#define CLOSE_SHIFT 14    /* stop within lower bound / 2^14 of it (0.006 %) */

typedef struct wsearch {
    const tp_buffer *bufs;
    size_t n;
    uint64_t align;
    const tp_allocator *alloc;
    size_t nw, ns;       /* members; members + obstacles */
    tp_buffer *sub;      /* members (longest first) then obstacles, lifetimes clipped */
    uint32_t *map;       /* window slot -> buffer index */
    uint16_t *base;      /* members: 16 x quarter size class */
    uint16_t *boost;     /* per buffer (all n): kept from window to window */
    uint32_t *order;     /* members: this try's placement order */
    uint64_t *woff;      /* members: this try's offsets */
    tp__alloc_key *keys; /* members: static order */
    size_t cap_sub, cap_map, cap_base, cap_boost, cap_order, cap_woff, cap_keys;
    uint32_t count[PRIO_N + 1];
    uint64_t rng;
} wsearch;

static uint64_t next_rand(uint64_t *s) { /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint16_t class16(uint64_t s) { /* 4 x (4 floor(log2 s) + the next two bits) */
    int c = 0;
    for (uint64_t v = s; v > 1; v >>= 1)
        c++;
    return (uint16_t)(4 * (4 * c + (c >= 2 ? (int)((s >> (c - 2)) & 3) : 0)));
}

static bool grow_all(wsearch *w, size_t ns, size_t nw) {
    const tp_allocator *a = w->alloc;
    return tp_mem_grow(a, (void **)&w->sub, sizeof *w->sub, &w->cap_sub, ns) &&
           tp_mem_grow(a, (void **)&w->map, sizeof *w->map, &w->cap_map, ns) &&
           tp_mem_grow(a, (void **)&w->base, sizeof *w->base, &w->cap_base, nw) &&
           tp_mem_grow(a, (void **)&w->order, sizeof *w->order, &w->cap_order, nw) &&
           tp_mem_grow(a, (void **)&w->woff, sizeof *w->woff, &w->cap_woff, nw) &&
           tp_mem_grow(a, (void **)&w->keys, sizeof *w->keys, &w->cap_keys, nw);
}

static void free_all(wsearch *w) {
    const tp_allocator *a = w->alloc;
    tp_mem_free(a, w->sub, w->cap_sub * sizeof *w->sub);
    tp_mem_free(a, w->map, w->cap_map * sizeof *w->map);
    tp_mem_free(a, w->base, w->cap_base * sizeof *w->base);
    tp_mem_free(a, w->boost, w->cap_boost * sizeof *w->boost);
    tp_mem_free(a, w->order, w->cap_order * sizeof *w->order);
    tp_mem_free(a, w->woff, w->cap_woff * sizeof *w->woff);
    tp_mem_free(a, w->keys, w->cap_keys * sizeof *w->keys);
}

static bool is_member(const tp_buffer *b, int64_t t0, int64_t t1) {
    return b->fixed_offset < 0 && tp__alloc_psize(b) > 0 && b->birth >= t0 && b->death <= t1;
}

/* Does b (at offset o) take part in the window as an obstacle? A zero-size buffer at 0
 * blocks nothing (nothing is strictly below 0); elsewhere it is the empty run [o, o). */
static bool is_obstacle(const tp_buffer *b, uint64_t o, int64_t t0, int64_t t1) {
    if (is_member(b, t0, t1) || b->birth > t1 || b->death < t0) return false;
    return tp__alloc_psize(b) > 0 || o > 0;
}

/* Collect the window around buffer `top`: members (longest first) and clipped obstacles.
 * *outside = the highest end of every buffer that is not a member. False on NOMEM. */
static bool build_window(wsearch *w, size_t top, const uint64_t *off, uint64_t *outside,
                         uint64_t *inside) {
    const tp_buffer *bufs = w->bufs;
    int64_t t0 = bufs[top].birth, t1 = bufs[top].death;
    for (size_t i = 0; i < w->n; i++) {
        if (bufs[i].birth > bufs[top].death || bufs[i].death < bufs[top].birth) continue;
        if (bufs[i].birth < t0) t0 = bufs[i].birth;
        if (bufs[i].death > t1) t1 = bufs[i].death;
    }
    size_t nw = 0, no = 0;
    *outside = *inside = 0;
    for (size_t i = 0; i < w->n; i++) {
        uint64_t end = off[i] + tp__alloc_psize(&bufs[i]);
        if (is_member(&bufs[i], t0, t1)) {
            nw++;
            if (end > *inside) *inside = end;
            continue;
        }
        if (end > *outside) *outside = end;
        if (is_obstacle(&bufs[i], off[i], t0, t1)) no++;
    }
    w->nw = nw;
    w->ns = nw + no;
    if (nw == 0 || nw > WINDOW_MAX) return true;
    if (!grow_all(w, w->ns, nw)) return false;
    size_t k = 0, o = nw;
    for (size_t i = 0; i < w->n; i++) {
        const tp_buffer *b = &bufs[i];
        if (is_member(b, t0, t1)) {
            w->keys[k].k1 = (uint64_t)(b->death - b->birth);
            w->keys[k].k2 = 0;
            w->keys[k++].idx = i;
        } else if (is_obstacle(b, off[i], t0, t1)) {
            w->sub[o] = *b;
            if (w->sub[o].birth < t0) w->sub[o].birth = t0;
            if (w->sub[o].death > t1) w->sub[o].death = t1;
            w->map[o++] = (uint32_t)i;
        }
    }
    qsort(w->keys, nw, sizeof *w->keys, tp__alloc_key_cmp);
    for (k = 0; k < nw; k++) {
        size_t i = w->keys[k].idx;
        w->sub[k] = bufs[i];
        w->map[k] = (uint32_t)i;
        w->base[k] = class16(tp__alloc_psize(&bufs[i]));
    }
    return true;
}

/* This try's order: priority (class + boost + noise) high first; the static order
 * (longest first, lowest index) within a priority. A counting sort. */
static void make_order(wsearch *w) {
    memset(w->count, 0, sizeof w->count);
    for (size_t k = 0; k < w->nw; k++) {
        uint32_t p = (uint32_t)w->base[k] + w->boost[w->map[k]] +
                     (uint32_t)(next_rand(&w->rng) % (2 * NOISE + 1));
        w->woff[k] = p; /* scratch: the priority */
        w->count[PRIO_N - 1 - p]++;
    }
    uint32_t sum = 0;
    for (size_t p = 0; p <= PRIO_N; p++) {
        uint32_t c = w->count[p];
        w->count[p] = sum;
        sum += c;
    }
    for (size_t k = 0; k < w->nw; k++)
        w->order[w->count[PRIO_N - 1 - w->woff[k]]++] = (uint32_t)k;
}

/* One try; *top = the highest member end, or UINT64_MAX when it stopped at `limit` (or an
 * offset passed 2^64). *placed = members placed. */
static tp_status one_try(wsearch *w, tp__gapidx *g, const uint64_t *off, uint64_t limit,
                         uint64_t *top, size_t *placed, tp_error *err) {
    tp__gx_clear(g);
    tp_status st = TP_OK;
    for (size_t k = w->nw; k < w->ns && st == TP_OK; k++) {
        uint64_t lo = off[w->map[k]];
        st = tp__gx_insert(g, w->sub[k].birth, w->sub[k].death, lo,
                           lo + tp__alloc_psize(&w->sub[k]), err);
    }
    make_order(w);
    *top = 0;
    *placed = 0;
    for (size_t t = 0; t < w->nw && st == TP_OK; t++) {
        size_t k = w->order[t];
        const tp_buffer *b = &w->sub[k];
        uint64_t s = tp__alloc_psize(b), q, blk, end;
        if (!tp__gx_lowest(g, b->birth, b->death, s, tp__alloc_align(b, w->align), &q, &blk) ||
            !tp_add_u64(q, s, &end)) {
            *top = UINT64_MAX;
            return TP_OK;
        }
        w->woff[k] = q;
        *placed = t + 1;
        if (end >= limit) {
            *top = UINT64_MAX;
            return TP_OK;
        }
        if (end > *top) *top = end;
        st = tp__gx_insert(g, b->birth, b->death, q, end, err);
    }
    return st;
}

/* Squeaky wheel: members of the last try that ended above `target` go earlier next time. */
static void raise_high(wsearch *w, size_t placed, uint64_t target) {
    for (size_t t = 0; t < placed; t++) {
        size_t k = w->order[t];
        uint32_t i = w->map[k];
        if (w->woff[k] + tp__alloc_psize(&w->sub[k]) > target)
            w->boost[i] =
                (uint16_t)(w->boost[i] + BOOST_STEP > BOOST_MAX ? BOOST_MAX
                                                                : w->boost[i] + BOOST_STEP);
    }
}

/* Tries on the current window until its top stops setting the arena, STALL tries pass
 * without a gain, the deadline or the try budget. Kept tries go into off. */
static tp_status search_window(wsearch *w, tp_window_run *run, uint64_t *off, uint64_t goal,
                               uint64_t *best, tp_error *err) {
    tp__gapidx g;
    tp_status st = tp__gx_init(&g, w->sub, w->ns, w->alloc, err);
    if (st != TP_OK) return st;
    unsigned stall = 0;
    while (*best > goal && stall < STALL) {
        if (run->max_tries && run->tries >= run->max_tries) break;
        if (run->deadline > 0 && tp__xs_now() >= run->deadline) break;
        uint64_t top;
        size_t placed;
        st = one_try(w, &g, off, *best, &top, &placed, err);
        if (st != TP_OK) break;
        run->tries++;
        if (top < *best) { /* every member placed, below the best top */
            for (size_t k = 0; k < w->nw; k++)
                off[w->map[k]] = w->woff[k];
            *best = top;
            stall = 0;
        } else {
            stall++;
        }
        if (*best > run->lower_bound)
            raise_high(w, placed, run->lower_bound + (*best - run->lower_bound) / 2);
    }
    tp__gx_free(&g);
    return st;
}

tp_status tp__alloc_window(const tp_buffer *bufs, size_t n, const tp_alloc_options *opt,
                           tp_window_run *run, const tp_allocator *alloc, uint64_t *offsets,
                           uint64_t *arena, tp_error *err) {
    run->tries = 0;
    if (n == 0 || n > UINT32_MAX || (run->deadline <= 0 && run->max_tries == 0)) return TP_OK;
    wsearch *w = tp_mem_calloc(alloc, 1, sizeof *w);
    if (!w) return tp_error_set(err, TP_ERR_NOMEM, "window search: out of memory");
    w->bufs = bufs;
    w->n = n;
    w->align = opt->alignment;
    w->alloc = alloc;
    w->rng = 0x5DEECE66Du;
    w->boost = tp_mem_calloc(alloc, n, sizeof *w->boost);
    w->cap_boost = w->boost ? n : 0;
    tp_status st =
        w->boost ? TP_OK : tp_error_set(err, TP_ERR_NOMEM, "window search: out of memory");
    double next_progress = run->start + 1.0;
    unsigned idle = 0;
    uint64_t close = run->lower_bound + (run->lower_bound >> CLOSE_SHIFT);
    while (st == TP_OK && *arena > close) {
        if (run->max_tries && run->tries >= run->max_tries) break;
        if (run->deadline > 0 && tp__xs_now() >= run->deadline) break;
        size_t top = 0;
        uint64_t high = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t end = offsets[i] + tp__alloc_psize(&bufs[i]);
            if (end > high) {
                high = end;
                top = i;
            }
        }
        if (bufs[top].fixed_offset >= 0) break; /* a pre-placed buffer sets the arena */
        uint64_t outside, inside;
        if (!build_window(w, top, offsets, &outside, &inside)) {
            st = tp_error_set(err, TP_ERR_NOMEM, "window search: out of memory for %zu buffers",
                              w->ns);
            break;
        }
        if (w->nw == 0 || w->nw > WINDOW_MAX) break;
        /* work until the window's top is below every other end (or at the bound) */
        uint64_t goal = outside > 0 ? outside - 1 : 0;
        if (goal < run->lower_bound) goal = run->lower_bound;
        if (inside <= goal) break; /* the top is not a member (a zero-size buffer) */
        uint64_t before = inside;
        st = search_window(w, run, offsets, goal, &inside, err);
        if (st != TP_OK) break;
        *arena = inside > outside ? inside : outside;
        idle = inside < before ? 0 : idle + 1;
        if (idle >= IDLE_MAX) break;
        double now = tp__xs_now();
        if (opt->progress && now >= next_progress) {
            opt->progress(opt->progress_ctx, now - run->start, *arena, run->lower_bound);
            next_progress = now + 1.0;
        }
    }
    free_all(w);
    tp_mem_free(alloc, w, sizeof *w);
    return st;
}
