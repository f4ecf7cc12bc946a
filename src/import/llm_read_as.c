/* An LLM sized as llama-quantize would write it in another file type
 * (tensorplan/llm.h: tp_llm_read_as): the tensors (the GGUF's, or the converter's for a
 * Hugging Face config) in llama.cpp's order, each given the type llama.cpp's rules choose
 * (llm_quant.c), its bytes (rows × row size) padded to GGUF's 32-byte alignment in one
 * file, and the model buffers of that file (gguf_layout.c: mapping and CPU repack). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "llm_quant.h"
#include "llm_tensors.h"
#include "tensorplan/llm.h"
#include "tensorplan/registry.h"

/* llama_model_loader::weight_name_comparer: by blk.N (others first), then by name. */
static int layer_key(const char *name) {
    int v = -1;
    if (sscanf(name, "blk.%d.", &v) != 1) v = -1;
    return v;
}

static int by_layer_then_name(const void *pa, const void *pb) {
    const tp_llm_tensor *a = pa, *b = pb;
    int la = layer_key(a->name), lb = layer_key(b->name);
    if (la != lb) return la < lb ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* The GGUF's tensors from a registry (dims outermost first there). */
static tp_status from_registry(const tp_registry *reg, uint32_t first, tp_llm_tensors *l,
                               tp_error *err) {
    for (uint32_t i = first; i < tp_registry_count(reg); i++) {
        const tp_weight_entry *w = tp_registry_entry(reg, i);
        uint64_t ne[4];
        if (w->rank < 1 || w->rank > 4)
            return tp_error_set(err, TP_ERR_UNSUPPORTED, "tensor '%.64s': rank %d", w->name,
                                (int)w->rank);
        for (int32_t d = 0; d < w->rank; d++)
            ne[d] = (uint64_t)w->dims[w->rank - 1 - d];
        tp_status st = tp__llm_tensors_add(l, w->name, w->dtype, (uint32_t)w->rank, ne, err);
        if (st != TP_OK) return st;
    }
    return TP_OK;
}

static tp_status unknown_type(const char *name, tp_error *err) {
    char list[512];
    size_t n = 0;
    list[0] = '\0';
    for (int i = 0; tp__llm_ftype_name(i) && n < sizeof list; i++) {
        int w = snprintf(list + n, sizeof list - n, "%s%s", i ? " " : "", tp__llm_ftype_name(i));
        if (w < 0) break;
        n += (size_t)w;
    }
    return tp_error_set(err, TP_ERR_NOT_FOUND,
                        "unknown weights type '%.32s' (llama.cpp file types: %s)", name, list);
}

tp_status tp_llm_read_as(const char *path, const char *weights_type, tp_registry *r,
                         tp_llm_config *out, tp_error *err) {
    if (!weights_type || !weights_type[0]) return tp_llm_read(path, r, out, err);
    if (!path || !out) return tp_error_set(err, TP_ERR_INVALID, "NULL argument");
    int ft = tp__llm_ftype_find(weights_type);
    if (ft < 0) return unknown_type(weights_type, err);
    size_t n = strlen(path);
    bool gguf = n > 5 && strcmp(path + n - 5, ".gguf") == 0;
    tp_registry *own = NULL;
    tp_status st = TP_OK;
    if (!r && gguf && (st = tp_registry_create(NULL, &own, err)) != TP_OK) return st;
    tp_registry *reg = r ? r : own;
    const tp_allocator *a = reg ? tp_registry_allocator(reg) : NULL;
    uint32_t first = reg ? tp_registry_count(reg) : 0;
    tp_llm_tensors l;
    tp__llm_tensors_init(&l, a);
    tp_dtype *types = NULL;
    tp_hf_shape shape;
    if (gguf) {
        st = tp_gguf_read_llm(path, reg, out, err);
        if (st == TP_OK) st = from_registry(reg, first, &l, err);
    } else {
        st = tp__hf_read_llm_shape(path, r, out, &shape, err);
        if (st == TP_OK) st = tp__hf_tensors(out, &shape, &l, err);
    }
    if (st != TP_OK) goto done;
    qsort(l.t, l.n, sizeof *l.t, by_layer_then_name);
    types = tp_mem_alloc(a, (l.n ? l.n : 1) * sizeof *types);
    if (!types) {
        st = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    st = tp__llm_quant_types(out, &l, ft, types, err);
    if (st == TP_OK) st = tp__llm_tensors_lay_out(&l, types, a, out, err);
    if (st != TP_OK) tp_error_prefix(err, "%s as %s: ", path, tp__llm_ftype_name(ft));
done:
    if (types) tp_mem_free(a, types, (l.n ? l.n : 1) * sizeof *types);
    tp__llm_tensors_free(&l);
    tp_registry_destroy(own);
    return st;
}

const char *tp_llm_weights_type_name(int i) {
    return tp__llm_ftype_name(i);
}
