/* ONNX model open/close (mmap or borrowed memory), external data checks, and
 * the public load entry points that hand the decoded model to the converter. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "import/file_map.h"
#include "import/onnx_convert.h"
#include "import/onnx_convert_internal.h"
#include "import/onnx_decode.h"

void tp_onnx_options_init(tp_onnx_options *opt) {
    if (!opt) return;
    memset(opt, 0, sizeof *opt);
    opt->check_value_info = true;
}

static tp_onnx_options defaults(const tp_onnx_options *opt) {
    tp_onnx_options o;
    if (opt) return *opt;
    tp_onnx_options_init(&o);
    return o;
}

static void keep_offset_prefix(tp_error *err, const char *what) {
    if (!err) return;
    uint64_t off = err->offset;
    tp_error_prefix(err, "onnx %s: ", what);
    err->offset = off;
}

tp_status tp__onnx_decode_buffer(tp_onnx_model *m, uint32_t max_depth, uint32_t max_nodes,
                                 tp_error *err) {
    tp_status s = tp__onnx_arena_create(m->alloc, &m->arena);
    if (s != TP_OK) return tp_error_set(err, s, "out of memory decoding the model");
    tp_onnx_dctx c = {0};
    c.m = m;
    c.arena = m->arena;
    c.err = err;
    c.max_depth = max_depth ? max_depth : TP_ONNX_DEFAULT_MAX_DEPTH;
    c.max_nodes = max_nodes ? max_nodes : TP_ONNX_DEFAULT_MAX_NODES;
    if (m->size == 0) return tp_error_setx(err, TP_ERR_PARSE, 0, TP_NO_NODE, "empty file");
    return tp__onnx_decode_model(&c, tp__pb_init(m->data, m->size));
}

static tp_status verify_tensor(tp_onnx_model *m, const tp_onnx_tensor *t, tp_error *err) {
    if (t->location != TP_ONNX_DATA_EXTERNAL) return TP_OK;
    const char *path;
    tp_status s = tp__onnx_external_path(m, t, &path, err);
    if (s != TP_OK) return s;
    uint64_t size, end;
    s = tp__file_size(path, &size, err);
    if (s != TP_OK) {
        tp_error_prefix(err, "tensor '%s': external data: ", t->name);
        return s;
    }
    if (!tp_add_u64(t->ext_offset, t->n_bytes, &end) || end > size)
        return tp_error_setx(err, TP_ERR_PARSE, t->msg_offset, TP_NO_NODE,
                             "tensor '%s': external data '%s' has %" PRIu64
                             " bytes, needs offset %" PRIu64 " + %" PRIu64,
                             t->name, path, size, t->ext_offset, t->n_bytes);
    return TP_OK;
}

static tp_status verify_graph(tp_onnx_model *m, const tp_onnx_graph *g, tp_error *err) {
    tp_status s;
    for (uint32_t i = 0; i < g->n_initializers; i++)
        if ((s = verify_tensor(m, &g->initializers[i], err)) != TP_OK) return s;
    for (uint32_t i = 0; i < g->n_sparse_initializers; i++)
        if ((s = verify_tensor(m, &g->sparse_initializers[i].values, err)) != TP_OK) return s;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        for (uint32_t j = 0; j < g->nodes[i].n_attrs; j++) {
            const tp_onnx_attr *a = &g->nodes[i].attrs[j];
            if (a->t && (s = verify_tensor(m, a->t, err)) != TP_OK) return s;
            for (uint32_t k = 0; k < a->n_tensors; k++)
                if ((s = verify_tensor(m, &a->tensors[k], err)) != TP_OK) return s;
            if (a->g && (s = verify_graph(m, a->g, err)) != TP_OK) return s;
            for (uint32_t k = 0; k < a->n_graphs; k++)
                if ((s = verify_graph(m, a->graphs[k], err)) != TP_OK) return s;
        }
    return TP_OK;
}

/* Common tail of both open functions: decode, set base_dir, verify. */
/* Files that are some other model format say so, instead of failing somewhere in the
 * protobuf decoder ("unsupported wire type 7" for a GGUF header). */
static tp_status refuse_other_format(const tp_onnx_model *m, tp_error *err) {
    const uint8_t *d = m->data;
    if (m->size >= 4 && memcmp(d, "GGUF", 4) == 0)
        return tp_error_set(err, TP_ERR_UNSUPPORTED,
                            "this is a GGUF file (llama.cpp weights), not ONNX: "
                            "estimate, fit and report read it");
    if (m->size >= 9 && d[8] == '{' && d[6] == 0 && d[7] == 0)
        return tp_error_set(err, TP_ERR_UNSUPPORTED,
                            "this looks like a safetensors file (8-byte header length, then "
                            "JSON), not ONNX");
    if (m->size >= 4 && memcmp(d, "PK\x03\x04", 4) == 0)
        return tp_error_set(err, TP_ERR_UNSUPPORTED,
                            "this is a zip archive (a PyTorch .pt/.pth checkpoint?), not ONNX: "
                            "export the model to ONNX first");
    return TP_OK;
}

static tp_status finish_open(tp_onnx_model *m, const char *path, const tp_onnx_options *o,
                             tp_error *err) {
    tp_status s = refuse_other_format(m, err);
    if (s != TP_OK) return s;
    s = tp__onnx_decode_buffer(m, o->max_depth, o->max_nodes, err);
    if (s != TP_OK) return s;
    const char *dir = o->external_data_dir;
    char *copy = NULL;
    if (dir) {
        copy = tp__onnx_arena_strndup(m->arena, (const uint8_t *)dir, strlen(dir));
    } else if (path && strrchr(path, '/')) {
        uint64_t n = (uint64_t)(strrchr(path, '/') - path);
        copy = tp__onnx_arena_strndup(m->arena, (const uint8_t *)path, n ? n : 1); /* "/x" */
    } else {
        copy = tp__onnx_arena_strndup(m->arena, (const uint8_t *)".", 1);
    }
    char *pcopy = tp__onnx_arena_strndup(m->arena, (const uint8_t *)(path ? path : ""),
                                         path ? strlen(path) : 0);
    if (!copy || !pcopy) return tp_error_set(err, TP_ERR_NOMEM, "out of memory opening the model");
    m->base_dir = copy;
    m->path = pcopy;
    if (o->verify_external_data) return verify_graph(m, m->graph, err);
    return TP_OK;
}

static tp_onnx_model *new_model(const tp_allocator *alloc) {
    tp_onnx_model *m = tp_mem_alloc(alloc, sizeof *m);
    if (!m) return NULL;
    memset(m, 0, sizeof *m);
    m->alloc = alloc;
    m->path = m->base_dir = "";
    return m;
}

void tp_onnx_model_destroy(tp_onnx_model *m) {
    if (!m) return;
    tp__onnx_info_free(m);
    tp__onnx_arena_destroy(m->arena);
    tp__file_map_close(m->map);
    tp_mem_free(m->alloc, m, sizeof *m);
}

tp_status tp_onnx_model_open(const char *path, const tp_onnx_options *opt,
                             const tp_allocator *alloc, tp_onnx_model **out, tp_error *err) {
    if (!out) return tp_error_set(err, TP_ERR_INVALID, "tp_onnx_model_open: out is NULL");
    *out = NULL;
    if (!path) return tp_error_set(err, TP_ERR_INVALID, "tp_onnx_model_open: path is NULL");
    tp_onnx_options o = defaults(opt);
    tp_onnx_model *m = new_model(alloc);
    if (!m) return tp_error_set(err, TP_ERR_NOMEM, "out of memory opening '%s'", path);
    tp_status s = tp__file_map_open(path, alloc, &m->map, err);
    if (s == TP_OK) {
        m->data = m->map->data;
        m->size = m->map->size;
        s = finish_open(m, path, &o, err);
        if (s != TP_OK) keep_offset_prefix(err, path);
    }
    if (s != TP_OK) {
        tp_onnx_model_destroy(m);
        return s;
    }
    *out = m;
    return TP_OK;
}

tp_status tp_onnx_model_open_memory(const void *data, size_t size, const tp_onnx_options *opt,
                                    const tp_allocator *alloc, tp_onnx_model **out, tp_error *err) {
    if (!out) return tp_error_set(err, TP_ERR_INVALID, "tp_onnx_model_open_memory: out is NULL");
    *out = NULL;
    if (!data && size)
        return tp_error_set(err, TP_ERR_INVALID, "tp_onnx_model_open_memory: data is NULL");
    tp_onnx_options o = defaults(opt);
    tp_onnx_model *m = new_model(alloc);
    if (!m) return tp_error_set(err, TP_ERR_NOMEM, "out of memory opening a model");
    m->data = data;
    m->size = size;
    tp_status s = finish_open(m, NULL, &o, err);
    if (s != TP_OK) {
        keep_offset_prefix(err, "(memory)");
        tp_onnx_model_destroy(m);
        return s;
    }
    *out = m;
    return TP_OK;
}

tp_status tp_onnx_model_to_graph(const tp_onnx_model *m, const tp_onnx_options *opt,
                                 const tp_allocator *alloc, tp_graph **out, tp_error *err) {
    if (!out) return tp_error_set(err, TP_ERR_INVALID, "tp_onnx_model_to_graph: out is NULL");
    *out = NULL;
    if (!m) return tp_error_set(err, TP_ERR_INVALID, "tp_onnx_model_to_graph: model is NULL");
    tp_onnx_options o = defaults(opt);
    tp_graph *g;
    tp_status s = tp_graph_create(alloc, &g, err);
    if (s != TP_OK) return s;
    s = tp__onnx_convert(m, &o, g, tp__ox_control_flow, err);
    if (s != TP_OK) {
        tp_graph_destroy(g);
        /* conversion messages start "onnx: "; name the file there, as the decoder does */
        if (err && m->path && m->path[0] && strncmp(err->msg, "onnx: ", 6) == 0) {
            memmove(err->msg, err->msg + 6, strlen(err->msg + 6) + 1);
            keep_offset_prefix(err, m->path);
        } else if (err && m->path && m->path[0] && strncmp(err->msg, "onnx ", 5) != 0) {
            keep_offset_prefix(err, m->path);
        }
        return s;
    }
    *out = g;
    return TP_OK;
}

tp_status tp_onnx_load(const char *path, const tp_onnx_options *opt, const tp_allocator *alloc,
                       tp_graph **out, tp_error *err) {
    tp_onnx_model *m;
    if (out) *out = NULL;
    tp_status s = tp_onnx_model_open(path, opt, alloc, &m, err);
    if (s != TP_OK) return s;
    s = tp_onnx_model_to_graph(m, opt, alloc, out, err);
    tp_onnx_model_destroy(m);
    return s;
}

tp_status tp_onnx_load_memory(const void *data, size_t size, const tp_onnx_options *opt,
                              const tp_allocator *alloc, tp_graph **out, tp_error *err) {
    tp_onnx_model *m;
    if (out) *out = NULL;
    tp_status s = tp_onnx_model_open_memory(data, size, opt, alloc, &m, err);
    if (s != TP_OK) return s;
    s = tp_onnx_model_to_graph(m, opt, alloc, out, err);
    tp_onnx_model_destroy(m);
    return s;
}
