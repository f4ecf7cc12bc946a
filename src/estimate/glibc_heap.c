/* glibc malloc's resident memory, emulated: glibc_heap.h. */
#include "estimate/glibc_heap.h"

#include <string.h>

#include "core/mem.h"

#define MMAP_THRESHOLD_MIN (128u * 1024u) /* glibc's initial M_MMAP_THRESHOLD */
#define MMAP_THRESHOLD_MAX (32ull << 20)  /* its dynamic ceiling on 64 bits */
#define TOP_PAD (128u * 1024u)            /* kept at the top when the heap shrinks */
#define BYTES_MAX (1ull << 62)            /* far above any machine: no sum can wrap */
#define PAGE 4096u

typedef struct heap_block {
    uint64_t addr;  /* heap: offset of the chunk; mmap: unused */
    uint64_t bytes; /* the chunk as glibc sizes it (header and alignment, or pages) */
    uint8_t state;  /* 0 free/unknown, 1 heap, 2 mmapped */
} heap_block;

typedef struct hole {
    uint64_t addr, bytes;
} hole;

struct tp_glibc_heap {
    const tp_allocator *a;
    heap_block *blocks;
    size_t n_blocks, cap_blocks;
    hole *holes; /* free chunks inside the heap, by address, never adjacent (coalesced) */
    size_t n_holes, cap_holes;
    uint64_t top;     /* the heap's extent */
    uint64_t mmapped; /* bytes in mmapped chunks */
    uint64_t threshold, trim;
    uint64_t peak;
};

tp_status tp_glibc_heap_create(const tp_allocator *a, tp_glibc_heap **out, tp_error *err) {
    *out = NULL;
    tp_glibc_heap *h = tp_mem_calloc(a, 1, sizeof *h);
    if (!h) return tp_error_set(err, TP_ERR_NOMEM, "glibc heap emulation: out of memory");
    h->a = a;
    h->threshold = MMAP_THRESHOLD_MIN;
    h->trim = MMAP_THRESHOLD_MIN;
    *out = h;
    return TP_OK;
}

void tp_glibc_heap_destroy(tp_glibc_heap *h) {
    if (!h) return;
    tp_mem_free(h->a, h->blocks, h->cap_blocks * sizeof *h->blocks);
    tp_mem_free(h->a, h->holes, h->cap_holes * sizeof *h->holes);
    tp_mem_free(h->a, h, sizeof *h);
}

uint64_t tp_glibc_heap_resident(const tp_glibc_heap *h) {
    return h ? h->top + h->mmapped : 0;
}

uint64_t tp_glibc_heap_peak(const tp_glibc_heap *h) {
    return h ? h->peak : 0;
}

static void note_peak(tp_glibc_heap *h) {
    if (h->top + h->mmapped > h->peak) h->peak = h->top + h->mmapped;
}

/* the smallest hole that holds bytes, or n_holes */
static size_t smallest_hole(const tp_glibc_heap *h, uint64_t bytes) {
    size_t best = h->n_holes;
    for (size_t i = 0; i < h->n_holes; i++)
        if (h->holes[i].bytes >= bytes &&
            (best == h->n_holes || h->holes[i].bytes < h->holes[best].bytes))
            best = i;
    return best;
}

static void remove_hole(tp_glibc_heap *h, size_t i) {
    memmove(h->holes + i, h->holes + i + 1, (h->n_holes - i - 1) * sizeof *h->holes);
    h->n_holes--;
}

tp_status tp_glibc_heap_alloc(tp_glibc_heap *h, uint64_t bytes, bool reuse, uint32_t *block_id,
                              tp_error *err) {
    if (bytes > BYTES_MAX || h->top > BYTES_MAX || h->mmapped > BYTES_MAX)
        return tp_error_set(err, TP_ERR_OVERFLOW, "glibc heap emulation: %llu bytes",
                            (unsigned long long)bytes);
    if (h->n_blocks >= UINT32_MAX)
        return tp_error_set(err, TP_ERR_OVERFLOW, "glibc heap emulation: too many blocks");
    if (!tp_mem_grow(h->a, (void **)&h->blocks, sizeof *h->blocks, &h->cap_blocks,
                     h->n_blocks + 1) ||
        /* a free adds at most one hole: never more holes than blocks, reserved here */
        !tp_mem_grow(h->a, (void **)&h->holes, sizeof *h->holes, &h->cap_holes, h->n_blocks + 2))
        return tp_error_set(err, TP_ERR_NOMEM, "glibc heap emulation: out of memory");
    heap_block b = {0, 0, 0};
    if (bytes >= h->threshold) { /* mmap: the request and its header, in pages */
        b.bytes = (bytes + 16 + PAGE - 1) / PAGE * PAGE;
        b.state = 2;
        h->mmapped += b.bytes;
    } else { /* a heap chunk: the request and its size field, 16-aligned, at least 32 */
        b.bytes = (bytes + 8 + 15) / 16 * 16;
        if (b.bytes < 32) b.bytes = 32;
        b.state = 1;
        size_t i = reuse ? smallest_hole(h, b.bytes) : h->n_holes;
        if (i < h->n_holes) {
            b.addr = h->holes[i].addr;
            h->holes[i].addr += b.bytes;
            h->holes[i].bytes -= b.bytes;
            if (h->holes[i].bytes < 32) { /* too small to split off: the chunk takes it */
                b.bytes += h->holes[i].bytes;
                remove_hole(h, i);
            }
        } else {
            b.addr = h->top;
            h->top += b.bytes;
        }
    }
    *block_id = (uint32_t)h->n_blocks;
    h->blocks[h->n_blocks++] = b;
    note_peak(h);
    return TP_OK;
}

/* insert [addr, addr + bytes) among the holes, coalescing; the heap shrinks when the top's free
 * space exceeds the trim threshold */
static void add_hole(tp_glibc_heap *h, uint64_t addr, uint64_t bytes) {
    size_t i = 0;
    while (i < h->n_holes && h->holes[i].addr < addr)
        i++;
    if (i > 0 && h->holes[i - 1].addr + h->holes[i - 1].bytes == addr) {
        h->holes[i - 1].bytes += bytes; /* joins the hole before */
        i--;
    } else { /* capacity: reserved by the allocations (holes <= blocks) */
        memmove(h->holes + i + 1, h->holes + i, (h->n_holes - i) * sizeof *h->holes);
        h->holes[i] = (hole){addr, bytes};
        h->n_holes++;
    }
    if (i + 1 < h->n_holes && h->holes[i].addr + h->holes[i].bytes == h->holes[i + 1].addr) {
        h->holes[i].bytes += h->holes[i + 1].bytes; /* and the one after */
        remove_hole(h, i + 1);
    }
    hole *last = &h->holes[h->n_holes - 1];
    if (last->addr + last->bytes == h->top && last->bytes > h->trim) {
        uint64_t keep = last->bytes < TOP_PAD ? last->bytes : TOP_PAD;
        h->top -= last->bytes - keep;
        last->bytes = keep;
    }
}

void tp_glibc_heap_free(tp_glibc_heap *h, uint32_t id) {
    if (!h || id >= h->n_blocks || !h->blocks[id].state) return;
    heap_block *b = &h->blocks[id];
    if (b->state == 2) {
        h->mmapped -= b->bytes;
        if (b->bytes > h->threshold && b->bytes <= MMAP_THRESHOLD_MAX) {
            h->threshold = b->bytes;
            h->trim = 2 * b->bytes;
        }
    } else {
        add_hole(h, b->addr, b->bytes);
    }
    b->state = 0;
}
