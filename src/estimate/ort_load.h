/* The weights stored inside an .onnx file as onnxruntime 1.30 loads and pre-packs them, through
 * an emulation of glibc's heap (internal; docs/runtime.md "Session 15"). Read in traces of
 * onnxruntime-node's allocations (bench/ort_memory/malloc_trace.sh), not in its source: the file
 * is read through one buffer of up to 4 MiB, every embedded initializer's bytes are allocated as
 * the model is parsed (file order), the buffer is freed; then the session copies each
 * initializer (file order) and frees its parsed bytes; then each pre-packing kernel allocates
 * its packed copy (tp_ort_pack_steps: a further kernel packing the same initializer frees its
 * copy at once, one copy stays) and an initializer every use of which is packed is freed after
 * its last packing. glibc serves each of these by mmap or from the heap by its dynamic
 * threshold (glibc_heap.h): a weight whose session copy comes from the heap and is freed leaves
 * a hole that stays resident. Whether a later packed copy reuses such a hole varied from run to
 * run (patch_mixer_embedded: 70-96 MB); the emulation takes the worst case, packed copies never
 * reuse a hole. Conv weights are not emulated (their re-laid-out and fused copies are the Conv
 * factor's, runtime_ort.c); nor weights in an external data file, nor control-flow bodies'. */
#ifndef TP_ESTIMATE_ORT_LOAD_H
#define TP_ESTIMATE_ORT_LOAD_H

#include "estimate/ort_arena.h"

typedef struct tp_ort_load {
    uint64_t weight_bytes;   /* the emulated initializers' bytes, each once */
    uint64_t resident_bytes; /* what the emulated heap and mappings hold once packing is done */
    uint64_t peak_bytes;     /* the most they held while the session was created */
    /* The arena's regions (run 1 and 2) malloc'd after creation into that heap: a region that
     * fits a hole the creation left takes pages already resident, one at the top of the heap or
     * mmapped adds the pages the runs touch in it. arena_growth_bytes: what they add; valid when
     * arena_placed (weights were emulated and the arena's regions were listed). */
    uint64_t arena_growth_bytes;
    bool arena_placed;
} tp_ort_load;

/* Conv or ConvTranspose: the readers whose weights keep the Conv factor (runtime_ort.c). */
bool tp_ort_is_conv(tp_op_kind k);
/* Which weights the emulation covers: emulated[id] = 1 for a main-graph Param of at least 64 KiB
 * stored in the model file (not external, not tied to another) that no Conv or ConvTranspose
 * reads (emulated
 * has a byte per node of g; zeroed first). Nothing when model_file_bytes is 0 (a graph built
 * through the API: nothing is known of its storage). */
void tp_ort_load_select(const tp_graph *g, uint64_t model_file_bytes, uint8_t *emulated);
/* Emulate their load and packing (steps: tp_ort_pack_steps_compute), then, when arena is not
 * NULL and lists its regions, the arena's regions in the heap that leaves. TP_ERR_NOMEM,
 * TP_ERR_OVERFLOW, the graph's shape errors. */
tp_status tp_ort_load_emulate(const tp_graph *g, uint64_t model_file_bytes, const uint8_t *emulated,
                              const tp_ort_pack_steps *steps, const tp_ort_arena_sim *arena,
                              tp_ort_load *out, tp_error *err);

#endif
