/* Embedded weights through onnxruntime's load and glibc's heap: ort_load.h. */
#include "estimate/ort_load.h"

#include <string.h>

#include "core/mem.h"
#include "estimate/glibc_heap.h"

/* the largest buffer the model file is read through (observed: min(file, 4 MiB)) */
#define PARSE_BUFFER_MAX (4ull << 20)
/* The smallest weight emulated: what the traces looked at (64 KiB). Smaller ones come from
 * glibc's bins, which the emulation does not model, and keep the profile's other rules; this
 * also bounds the emulation's work (best fit scans the holes) to (file / 64 KiB)^2 steps. */
#define EMULATED_MIN (64u * 1024u)

bool tp_ort_is_conv(tp_op_kind k) {
    return k == TP_OP_CONV || k == TP_OP_CONV_TRANSPOSE;
}

void tp_ort_load_select(const tp_graph *g, uint64_t model_file_bytes, uint8_t *emulated) {
    uint32_t n = tp_graph_node_count(g);
    memset(emulated, 0, n);
    if (!model_file_bytes) return;
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        uint64_t bytes;
        if (nd && nd->op.kind == TP_OP_PARAM && nd->op.attrs.param.tied_to < 0 &&
            !nd->op.attrs.param.external && nd->op.attrs.param.body_depth == 0 &&
            tp_graph_node_bytes(g, (tp_node_id)id, &bytes, NULL) == TP_OK && bytes >= EMULATED_MIN)
            emulated[id] = 1;
    }
    for (uint32_t id = 0; id < n; id++) { /* a Conv's weight or bias keeps the Conv factor */
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        if (!nd || !tp_ort_is_conv(nd->op.kind)) continue;
        for (uint32_t i = 1; i < nd->n_inputs; i++) {
            tp_node_id w = tp_ort_initializer_of(g, nd->inputs[i]);
            if (w >= 0 && (uint32_t)w < n) emulated[w] = 0;
        }
    }
}

/* The arena's regions, in the order the runs ask for them, into the heap the creation left
 * (onnxruntime's CPU allocator: one aligned malloc per region, on the thread that runs the session,
 * as the creation's were: malloc_trace.sh, encoder6_d256_embedded, whose 1 and 2 MiB regions came
 * from holes and whose 4 MiB region grew the heap). A region from a hole adds nothing; a region
 * that grows the heap or is mmapped adds the pages the runs touch in it, no more than it grew. */
static tp_status place_arena(tp_glibc_heap *h, const tp_ort_arena_sim *arena, tp_ort_load *out,
                             tp_error *err) {
    for (uint32_t r = 0; r < arena->regions; r++) {
        uint64_t before = tp_glibc_heap_resident(h), grew;
        uint32_t block;
        tp_status s = tp_glibc_heap_alloc(h, arena->region_bytes[r], true, &block, err);
        if (s != TP_OK) return s;
        grew = tp_sat_sub_u64(tp_glibc_heap_resident(h), before);
        if (grew > arena->region_touched[r]) grew = arena->region_touched[r];
        if (!tp_add_u64(out->arena_growth_bytes, grew, &out->arena_growth_bytes))
            return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: arena bytes overflow 64 bits");
    }
    out->arena_placed = true;
    return TP_OK;
}

tp_status tp_ort_load_emulate(const tp_graph *g, uint64_t model_file_bytes, const uint8_t *emulated,
                              const tp_ort_pack_steps *steps, const tp_ort_arena_sim *arena,
                              tp_ort_load *out, tp_error *err) {
    memset(out, 0, sizeof *out);
    uint32_t n = tp_graph_node_count(g);
    uint32_t count = 0;
    for (uint32_t id = 0; id < n; id++)
        count += emulated[id] ? 1u : 0u;
    if (!count) return TP_OK;
    const tp_allocator *a = tp_graph_allocator(g);
    size_t cap = (size_t)n + 1;
    uint32_t *raw = tp_mem_alloc(a, cap * sizeof *raw), *copy = tp_mem_alloc(a, cap * sizeof *copy);
    tp_glibc_heap *h = NULL;
    tp_status s = (!raw || !copy)
                      ? tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (%u nodes)", n)
                      : tp_glibc_heap_create(a, &h, err);
    uint32_t buf = 0;
    /* the parse: the file's buffer, every embedded initializer's bytes, the buffer freed */
    if (s == TP_OK)
        s = tp_glibc_heap_alloc(
            h, model_file_bytes < PARSE_BUFFER_MAX ? model_file_bytes : PARSE_BUFFER_MAX, true,
            &buf, err);
    for (uint32_t id = 0; id < n && s == TP_OK; id++) {
        if (!emulated[id]) continue;
        uint64_t bytes;
        if ((s = tp_graph_node_bytes(g, (tp_node_id)id, &bytes, err)) != TP_OK) break;
        if (!tp_add_u64(out->weight_bytes, bytes, &out->weight_bytes))
            s = tp_error_set(err, TP_ERR_OVERFLOW,
                             "runtime: embedded weight bytes overflow 64 bits");
        if (s == TP_OK) s = tp_glibc_heap_alloc(h, bytes, true, &raw[id], err);
    }
    if (s == TP_OK) tp_glibc_heap_free(h, buf);
    /* the session's copies, each followed by the free of its parsed bytes */
    for (uint32_t id = 0; id < n && s == TP_OK; id++) {
        if (!emulated[id]) continue;
        uint64_t bytes;
        if ((s = tp_graph_node_bytes(g, (tp_node_id)id, &bytes, err)) != TP_OK) break;
        if ((s = tp_glibc_heap_alloc(h, bytes, true, &copy[id], err)) == TP_OK)
            tp_glibc_heap_free(h, raw[id]);
    }
    /* pre-packing: the first packing of a weight keeps its copy (never put into a hole: the
     * worst case), a further kernel's copy of the same weight is freed at once; the erased freed */
    uint64_t further_max = 0;
    for (size_t i = 0; steps && i < steps->n && s == TP_OK; i++) {
        const tp_ort_pack_step *st = &steps->steps[i];
        if (st->weight < 0 || (uint32_t)st->weight >= n || !emulated[st->weight]) continue;
        uint32_t packed;
        if ((s = tp_glibc_heap_alloc(h, st->packed, !st->first, &packed, err)) != TP_OK) break;
        if (!st->first) tp_glibc_heap_free(h, packed);
        if (!st->first && st->packed > further_max) further_max = st->packed;
        if (st->erases) tp_glibc_heap_free(h, copy[st->weight]);
    }
    /* the worst case of a further copy's free: a hole that stays resident, the largest such copy
     * once (albert_like_embedded's traces: in its upper modes the further copies of its shared
     * 3-4 MiB weights left holes that later requests did not reuse; in its lower modes none) */
    if (s == TP_OK && (!tp_add_u64(tp_glibc_heap_resident(h), further_max, &out->resident_bytes) ||
                       !tp_add_u64(tp_glibc_heap_peak(h), further_max, &out->peak_bytes)))
        s = tp_error_set(err, TP_ERR_OVERFLOW, "runtime: embedded weight bytes overflow 64 bits");
    if (s == TP_OK && arena && arena->regions_listed) s = place_arena(h, arena, out, err);
    tp_glibc_heap_destroy(h);
    tp_mem_free(a, raw, cap * sizeof *raw);
    tp_mem_free(a, copy, cap * sizeof *copy);
    return s;
}
