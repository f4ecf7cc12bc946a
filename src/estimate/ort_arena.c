/* onnxruntime's activation memory over two runs, emulated (see ort_arena.h).
 *
 * What is modelled, from onnxruntime 1.30's source (read, not copied):
 *  - BFC arena (core/framework/bfc_arena.cc): requests rounded up to 256 bytes; the free
 *    chunk chosen is the smallest that fits (bins of powers of two from 256 bytes, each
 *    ordered by size then address, so best fit overall); a chunk is split only when it is at
 *    least twice the request or would waste 128 MiB or more; freed chunks coalesce with free
 *    neighbours of the same region; regions never merge. When nothing fits the arena extends
 *    by a new region: next-power-of-two starts at 1 MiB, doubles until the request fits and
 *    doubles again after a region of the current size; same-as-requested takes the request.
 *  - Memory pattern (core/framework/mem_pattern_planner.h): run 1's allocation trace (sizes
 *    aligned to 64 bytes) is laid out best-fit into the gaps between live blocks and the free
 *    tail of the block so far (between the highest live block and the largest extent reached),
 *    else after the highest live block; its extent is one block that run 2 asks the arena for.
 *  - Residency: only pages a tensor writes become resident (regions come from mmap), and
 *    the arena keeps every region, so the RSS growth is the union of touched pages. */
#include "estimate/ort_arena.h"

#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "tensorplan/plan.h"

#define BFC_MIN_ALLOC 256u
#define BFC_INITIAL_REGION (1u << 20)
#define BFC_MAX_DEAD ((uint64_t)128 << 20)
#define PATTERN_ALIGN 64u
#define PAGE 4096u

typedef struct sim_event {
    int64_t step;
    uint32_t kind; /* 0 alloc, 1 free */
    uint32_t buf;
} sim_event;

typedef struct sim_chunk {
    uint64_t ptr, size;
    int32_t prev, next;
    bool used, dead;
} sim_chunk;

typedef struct sim_span {
    uint64_t lo, hi;
} sim_span;

typedef struct ort_sim {
    const tp_allocator *a;
    sim_chunk *chunks;
    size_t n_chunks, cap_chunks;
    sim_span *touched;
    size_t n_touched, cap_touched;
    uint64_t next_base, curr_region, reserved;
    uint32_t regions;
    bool next_pow2;
    uint64_t region_base[TP_ORT_ARENA_REGIONS_MAX]; /* the first regions' addresses */
} ort_sim;

static int ort_cmp_event(const void *pa, const void *pb) {
    const sim_event *x = pa, *y = pb;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return x->buf < y->buf ? -1 : x->buf > y->buf;
}

static int cmp_span(const void *pa, const void *pb) {
    const sim_span *x = pa, *y = pb;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool sim_touch(ort_sim *s, uint64_t ptr, uint64_t len) {
    if (len == 0) return true;
    if (!tp_mem_grow(s->a, (void **)&s->touched, sizeof *s->touched, &s->cap_touched,
                     s->n_touched + 1))
        return false;
    s->touched[s->n_touched++] = (sim_span){ptr, ptr + len};
    return true;
}

static int32_t sim_new_chunk(ort_sim *s) {
    if (s->n_chunks >= INT32_MAX) return -1;
    if (!tp_mem_grow(s->a, (void **)&s->chunks, sizeof *s->chunks, &s->cap_chunks, s->n_chunks + 1))
        return -1;
    memset(&s->chunks[s->n_chunks], 0, sizeof *s->chunks);
    s->chunks[s->n_chunks].prev = s->chunks[s->n_chunks].next = -1;
    return (int32_t)s->n_chunks++;
}

/* Best fit: the smallest free chunk that holds rounded bytes, lowest address on ties. */
static int32_t sim_find(const ort_sim *s, uint64_t rounded) {
    int32_t best = -1;
    for (size_t i = 0; i < s->n_chunks; i++) {
        const sim_chunk *c = &s->chunks[i];
        if (c->used || c->dead || c->size < rounded) continue;
        if (best < 0 || c->size < s->chunks[best].size ||
            (c->size == s->chunks[best].size && c->ptr < s->chunks[best].ptr))
            best = (int32_t)i;
    }
    return best;
}

static tp_status sim_extend(ort_sim *s, uint64_t rounded, tp_error *err) {
    uint64_t bytes = rounded;
    if (s->next_pow2) {
        bool grown = false;
        while (rounded > s->curr_region) {
            if (s->curr_region > UINT64_MAX / 2)
                return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: arena region overflows");
            s->curr_region *= 2;
            grown = true;
        }
        bytes = s->curr_region;
        if (!grown && s->curr_region <= UINT64_MAX / 2) s->curr_region *= 2;
    }
    int32_t h = sim_new_chunk(s);
    if (h < 0) return tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (arena emulation)");
    uint64_t end;
    if (!tp_add_u64(s->next_base, bytes, &end) || !tp_align_up_u64(end, PAGE, &end) ||
        !tp_add_u64(s->reserved, bytes, &s->reserved))
        return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: arena regions overflow 64 bits");
    s->chunks[h].ptr = s->next_base;
    s->chunks[h].size = bytes;
    if (s->regions < TP_ORT_ARENA_REGIONS_MAX) s->region_base[s->regions] = s->next_base;
    s->next_base = end;
    s->regions++;
    return TP_OK;
}

/* Allocate bytes; *out receives the chunk. Touches the bytes asked for when touch. */
static tp_status sim_alloc(ort_sim *s, uint64_t bytes, bool touch, int32_t *out, tp_error *err) {
    uint64_t rounded;
    if (!tp_align_up_u64(bytes, BFC_MIN_ALLOC, &rounded))
        return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: tensor size overflows 64 bits");
    int32_t h = sim_find(s, rounded);
    if (h < 0) {
        tp_status st = sim_extend(s, rounded, err);
        if (st != TP_OK) return st;
        h = sim_find(s, rounded);
        if (h < 0)
            return tp_error_set(err, TP_ERR_INVALID, "runtime: arena emulation lost a region");
    }
    uint64_t size = s->chunks[h].size;
    if (size / 2 >= rounded || size - rounded >= BFC_MAX_DEAD) {
        int32_t n = sim_new_chunk(s);
        if (n < 0)
            return tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (arena emulation)");
        sim_chunk *c = &s->chunks[h], *nc = &s->chunks[n];
        nc->ptr = c->ptr + rounded;
        nc->size = c->size - rounded;
        nc->prev = h;
        nc->next = c->next;
        if (c->next >= 0) s->chunks[c->next].prev = n;
        c->next = n;
        c->size = rounded;
    }
    s->chunks[h].used = true;
    if (touch && !sim_touch(s, s->chunks[h].ptr, bytes))
        return tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (arena emulation)");
    *out = h;
    return TP_OK;
}

/* Merge chunk y (free, x's next) into x. */
static void sim_merge(ort_sim *s, int32_t x, int32_t y) {
    sim_chunk *cx = &s->chunks[x], *cy = &s->chunks[y];
    cx->size += cy->size;
    cx->next = cy->next;
    if (cy->next >= 0) s->chunks[cy->next].prev = x;
    cy->dead = true;
}

static void sim_free(ort_sim *s, int32_t h) {
    s->chunks[h].used = false;
    int32_t nx = s->chunks[h].next;
    if (nx >= 0 && !s->chunks[nx].used) sim_merge(s, h, nx);
    int32_t pv = s->chunks[h].prev;
    if (pv >= 0 && !s->chunks[pv].used) sim_merge(s, pv, h);
}

/* The union of the touched spans (sorted by address) in whole pages, clipped to [lo_c, hi_c). */
static uint64_t span_pages(const ort_sim *s, uint64_t lo_c, uint64_t hi_c) {
    uint64_t total = 0, lo = 0, hi = 0;
    bool open = false;
    for (size_t i = 0; i < s->n_touched; i++) {
        uint64_t l = s->touched[i].lo / PAGE * PAGE;
        uint64_t h = (s->touched[i].hi + PAGE - 1) / PAGE * PAGE; /* regions < 2^64 - PAGE */
        if (l < lo_c) l = lo_c;
        if (h > hi_c) h = hi_c;
        if (l >= h) continue;
        if (open && l <= hi) {
            if (h > hi) hi = h;
            continue;
        }
        if (open) total += hi - lo;
        lo = l;
        hi = h;
        open = true;
    }
    return open ? total + (hi - lo) : 0;
}

/* Union of the touched spans, in whole pages (sorts them). */
static uint64_t sim_resident(ort_sim *s) {
    if (s->n_touched == 0) return 0;
    qsort(s->touched, s->n_touched, sizeof *s->touched, cmp_span);
    return span_pages(s, 0, UINT64_MAX);
}

/* Each listed region's size and touched pages (the spans sorted by sim_resident first; regions
 * are page-aligned and disjoint, each ending where the next begins). */
static void sim_regions(const ort_sim *s, tp_ort_arena_sim *out) {
    for (uint32_t r = 0; r < s->regions && r < TP_ORT_ARENA_REGIONS_MAX; r++) {
        uint64_t lo = s->region_base[r],
                 hi = r + 1 < s->regions ? s->region_base[r + 1] : s->next_base;
        out->region_bytes[r] = hi - lo;
        out->region_touched[r] = span_pages(s, lo, hi);
    }
}

/* The memory-pattern planner over the trace: returns the block's size. live holds the
 * buffers in the block, sorted by offset. */
static tp_status pattern_size(const tp_allocator *a, tp_ort_buf *bufs, const sim_event *ev,
                              size_t n_ev, uint32_t n_bufs, uint64_t *out, tp_error *err) {
    uint32_t *live = tp_mem_alloc(a, (size_t)n_bufs * sizeof *live + 1);
    if (!live) return tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (memory pattern)");
    size_t n_live = 0;
    uint64_t peak = 0;
    tp_status st = TP_OK;
    *out = 0;
    for (size_t e = 0; e < n_ev && st == TP_OK; e++) {
        uint32_t b = ev[e].buf;
        /* a scratch buffer is not an OrtValue and a graph output is allocated for the caller
         * (execution_frame.cc: TraceAllocate skips kAllocateOutput): neither is traced */
        if (bufs[b].scratch || bufs[b].output) continue;
        if (ev[e].kind == 1) {
            for (size_t i = 0; i < n_live; i++)
                if (live[i] == b) {
                    memmove(&live[i], &live[i + 1], (n_live - i - 1) * sizeof *live);
                    n_live--;
                    break;
                }
            continue;
        }
        uint64_t size;
        if (!tp_align_up_u64(bufs[b].bytes, PATTERN_ALIGN, &size)) {
            st = tp_error_set(err, TP_ERR_OVERFLOW, "runtime: tensor size overflows 64 bits");
            break;
        }
        uint64_t cur = 0, waste = UINT64_MAX, off = 0;
        size_t at = n_live;
        if (n_live) off = bufs[live[n_live - 1]].pat_off + bufs[live[n_live - 1]].bytes;
        for (size_t i = 0; i < n_live; i++) {
            const tp_ort_buf *lb = &bufs[live[i]];
            if (lb->pat_off >= cur) {
                uint64_t gap = lb->pat_off - cur;
                if (gap >= size && gap - size < waste) {
                    waste = gap - size;
                    off = cur;
                    at = i;
                }
            }
            cur = lb->pat_off + lb->bytes;
        }
        /* the free tail of the block so far competes as one more gap (it is where a buffer
         * that fits no gap goes anyway: after the highest live block) */
        if (cur < peak && peak - cur >= size && peak - cur - size < waste) {
            off = cur;
            at = n_live;
        }
        bufs[b].pat_off = off;
        uint64_t end;
        if (!tp_add_u64(off, size, &end)) {
            st = tp_error_set(err, TP_ERR_OVERFLOW, "runtime: memory pattern overflows 64 bits");
            break;
        }
        bufs[b].bytes = size; /* aligned from here on: the block's own extent */
        if (end > peak) peak = end;
        memmove(&live[at + 1], &live[at], (n_live - at) * sizeof *live);
        live[at] = b;
        n_live++;
    }
    tp_mem_free(a, live, (size_t)n_bufs * sizeof *live + 1);
    *out = peak;
    return st;
}

/* The allocation (at birth) and free (after death) events of the buffers with their own
 * allocation, in step order, allocations of a step first; ev holds 2 * nb. Returns the count. */
static size_t trace_events(const tp_ort_buf *bufs, size_t nb, sim_event *ev) {
    size_t n_ev = 0;
    for (uint32_t i = 0; i < (uint32_t)nb; i++) {
        if (bufs[i].reuses >= 0) continue; /* the planner gave it another buffer's memory */
        ev[n_ev++] = (sim_event){bufs[i].birth, 0, i};
        ev[n_ev++] = (sim_event){bufs[i].death, 1, i};
    }
    qsort(ev, n_ev, sizeof *ev, ort_cmp_event);
    return n_ev;
}

tp_status tp_ort_pattern_block(const tp_allocator *a, tp_ort_buf *b, size_t n, uint64_t *out,
                               tp_error *err) {
    if (!b || !out) return tp_error_set(err, TP_ERR_INVALID, "runtime: NULL argument");
    if (n > UINT32_MAX / 2)
        return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: too many buffers (%zu)", n);
    sim_event *ev = tp_mem_alloc(a, n * 2 * sizeof *ev + 1);
    if (!ev) return tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (%zu buffers)", n);
    size_t n_ev = trace_events(b, n, ev);
    tp_status st = pattern_size(a, b, ev, n_ev, (uint32_t)n, out, err);
    tp_mem_free(a, ev, n * 2 * sizeof *ev + 1);
    return st;
}

/* Replay the trace's allocation and free events through the arena: every buffer's (run 1), or
 * only those the memory pattern does not hold (run 2, beside its block): kernels' scratch and
 * the graph outputs. */
static tp_status replay(ort_sim *s, tp_ort_buf *bufs, const sim_event *ev, size_t n_ev,
                        bool beside_pattern, tp_error *err) {
    tp_status st = TP_OK;
    for (size_t e = 0; e < n_ev && st == TP_OK; e++) {
        tp_ort_buf *b = &bufs[ev[e].buf];
        if (beside_pattern && !b->scratch && !b->output) continue;
        if (ev[e].kind == 0)
            st = sim_alloc(s, b->bytes, true, &b->chunk, err);
        else
            sim_free(s, b->chunk);
    }
    return st;
}

/* The arena's chunks the session's creation leaves: a ConvTranspose's transposed copy of its
 * constant filter (conv_transpose.cc PrePack, from the kernel's allocator: onnxruntime 1.30's
 * verbose log extends the arena at creation by exactly each filter's bytes, conv_autoencoder of
 * heldout10), in node order. Untouched here: the weight terms count their pages; they only
 * occupy the arena. MatMul's and Gemm's packed copies do not extend it (tiny_lm of heldout2:
 * nothing at creation). The packed 8-bit weights of a QDQ group's quantized kernels (QLinearConv,
 * QGemm, QLinearMatMul) are in the arena too: onnxruntime's arena trace holds resnet50_qdq's
 * 24.35 MiB of them from run 1's first kernel (docs/runtime.md, "Session 36"). Those of the
 * dynamic quantization's MatMuls are in the arena too (bert_base_dynq: 83.67 MiB at run 1's end),
 * yet its heap trace shows each as its own malloc of its size, many in heap holes: they are left
 * to the weights' emulation, at its worst case (with them here and in holes, four held-out rows
 * fell below). */
static tp_status creation_packs(const tp_graph *g, ort_sim *s, tp_error *err) {
    uint32_t n = tp_graph_node_count(g);
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        if (!nd || nd->n_inputs < 2) continue;
        tp_node_id wid = -1;
        if (nd->op.kind == TP_OP_CONV_TRANSPOSE)
            wid = tp_ort_initializer_of(g, nd->inputs[1]);
        else
            wid = tp_ort_qdq_packed_weight(g, nd, 1);
        const tp_node *w = wid >= 0 ? tp_graph_node(g, wid) : NULL;
        uint64_t bytes;
        if (!w || w->op.kind != TP_OP_PARAM || tp_graph_node_bytes(g, wid, &bytes, NULL) != TP_OK ||
            bytes == 0)
            continue;
        if (nd->op.kind != TP_OP_CONV_TRANSPOSE &&
            (bytes = tp_ort_packed_bytes(g, nd, w, bytes)) == 0)
            continue;
        int32_t h;
        tp_status st = sim_alloc(s, bytes, false, &h, err);
        if (st != TP_OK) return st;
    }
    return TP_OK;
}

tp_status tp_ort_arena_simulate(const tp_graph *g, bool mem_pattern, bool next_pow2, uint32_t block,
                                tp_ort_arena_sim *out, tp_error *err) {
    if (!g || !out) return tp_error_set(err, TP_ERR_INVALID, "runtime: NULL argument");
    memset(out, 0, sizeof *out);
    const tp_allocator *a = tp_graph_allocator(g);
    tp_plan_options po;
    tp_plan_options_default(&po);
    po.allocate_params = po.allocate_inputs = po.allocate_constants = false;
    po.inplace = false;
    tp_liveness *l = NULL;
    tp_status st = tp_liveness_compute(g, &po, a, &l, err);
    if (st != TP_OK) return st;
    tp_ort_buf *bufs = NULL;
    size_t nb = 0, bcap = 0;
    st = tp_ort_trace_buffers(g, l, block, &bufs, &nb, &bcap, err);
    tp_liveness_destroy(l);
    if (st != TP_OK) return st;
    if (nb > UINT32_MAX / 2) {
        tp_mem_free(a, bufs, bcap * sizeof *bufs);
        return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: too many buffers (%zu)", nb);
    }
    size_t n_ev = 0, ev_cap = nb * 2;
    sim_event *ev = tp_mem_alloc(a, ev_cap * sizeof *ev + 1);
    ort_sim s = {a, NULL, 0, 0, NULL, 0, 0, PAGE, BFC_INITIAL_REGION, 0, 0, next_pow2, {0}};
    if (!ev) {
        st = tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (%zu buffers)", nb);
        goto done;
    }
    n_ev = trace_events(bufs, nb, ev);
    /* the session's creation: what its kernels pre-pack into the arena stays there and sets the
     * size the next region doubles from */
    if ((st = creation_packs(g, &s, err)) != TP_OK) goto done;
    /* run 1: tensor by tensor through the arena */
    if ((st = replay(&s, bufs, ev, n_ev, false, err)) != TP_OK) goto done;
    out->first_run_bytes = sim_resident(&s);
    if (mem_pattern && nb > 0) {
        /* run 2: one block for the whole pattern, asked of the arena that run 1 left */
        uint64_t pblock = 0;
        int32_t h = -1;
        if ((st = pattern_size(a, bufs, ev, n_ev, (uint32_t)nb, &pblock, err)) != TP_OK) goto done;
        if (pblock > 0 && (st = sim_alloc(&s, pblock, true, &h, err)) != TP_OK) goto done;
        /* the block lives through the whole run (execution_frame.cc); what the pattern does not
         * hold still comes from the arena beside it: kernels' scratch and the graph outputs.
         * They take the best-fitting free chunk, which can be the new region's tail after the
         * block rather than a chunk run 1 already touched. */
        if ((st = replay(&s, bufs, ev, n_ev, true, err)) != TP_OK) goto done;
        if (h >= 0) sim_free(&s, h);
        out->mem_pattern_bytes = pblock;
    }
    out->resident_bytes = sim_resident(&s); /* sorts the spans */
    out->reserved_bytes = s.reserved;
    out->regions = s.regions;
    out->regions_listed = s.regions <= TP_ORT_ARENA_REGIONS_MAX;
    if (out->regions_listed) sim_regions(&s, out);
done:
    tp_mem_free(a, ev, ev_cap * sizeof *ev + 1);
    tp_mem_free(a, bufs, bcap * sizeof *bufs);
    tp_mem_free(a, s.chunks, s.cap_chunks * sizeof *s.chunks);
    tp_mem_free(a, s.touched, s.cap_touched * sizeof *s.touched);
    return st;
}
