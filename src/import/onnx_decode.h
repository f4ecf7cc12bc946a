/*
 * Internal to the ONNX reader: the decode context, the arena that owns every
 * decoded struct, and the per-message decoders (onnx_decode*.c).
 */
#ifndef TP_IMPORT_ONNX_DECODE_H
#define TP_IMPORT_ONNX_DECODE_H

#include "import/onnx_model.h"
#include "import/pb_wire.h"

/* Bump allocator in chunks obtained from the model's tp_allocator. */
typedef struct tp_onnx_arena tp_onnx_arena;
tp_status tp__onnx_arena_create(const tp_allocator *alloc, tp_onnx_arena **out);
void tp__onnx_arena_destroy(tp_onnx_arena *a);
/* Zeroed, 16-byte aligned; NULL on NOMEM/overflow. */
void *tp__onnx_arena_alloc(tp_onnx_arena *a, uint64_t size);
/* count × size, overflow-checked, zeroed; NULL when count is 0 or on failure
 * (check *ok). */
void *tp__onnx_arena_array(tp_onnx_arena *a, uint64_t count, uint64_t size, bool *ok);
/* A NUL-terminated copy of n bytes. */
char *tp__onnx_arena_strndup(tp_onnx_arena *a, const uint8_t *s, uint64_t n);

typedef struct tp_onnx_dctx {
    tp_onnx_model *m;
    tp_onnx_arena *arena;
    tp_error *err;
    uint32_t depth, max_depth;
    uint64_t n_nodes, max_nodes;    /* nodes counted so far in all graphs, and the limit */
    bool have_node_context;         /* innermost node already named in err->msg */
    const tp_onnx_graph *cur_graph; /* graph being decoded (parent of subgraphs) */
} tp_onnx_dctx;

#define TP_ONNX_DEFAULT_MAX_DEPTH 64u
#define TP_ONNX_DEFAULT_MAX_NODES 10000000u

/* Enter a nested message starting at offset `at`; error when too deep.
 * Pair with dctx->depth-- on the way out. */
tp_status tp__onnx_enter(tp_onnx_dctx *c, uint64_t at, const char *what);
/* NOMEM error naming what was being decoded. */
tp_status tp__onnx_nomem(tp_onnx_dctx *c, const char *what);
/* Copy a length-delimited string field. */
tp_status tp__onnx_str(tp_onnx_dctx *c, const tp_pb *sub, const char **out);
/* As tp__onnx_str for names (graph, node, value, tensor, attribute, op type, domain):
 * a NUL byte inside is TP_ERR_PARSE with its file offset, since names that differ
 * only after it would silently become one. */
tp_status tp__onnx_name(tp_onnx_dctx *c, const tp_pb *sub, const char **out);

tp_status tp__onnx_decode_model(tp_onnx_dctx *c, tp_pb r);
tp_status tp__onnx_decode_graph(tp_onnx_dctx *c, tp_pb r, const tp_onnx_graph *parent,
                                tp_onnx_graph **out);
tp_status tp__onnx_decode_tensor(tp_onnx_dctx *c, tp_pb r, tp_onnx_tensor *t);
tp_status tp__onnx_decode_sparse(tp_onnx_dctx *c, tp_pb r, tp_onnx_sparse_tensor *t);
tp_status tp__onnx_decode_value_info(tp_onnx_dctx *c, tp_pb r, tp_onnx_value_info *v);
tp_status tp__onnx_decode_node(tp_onnx_dctx *c, tp_pb r, tp_onnx_node *n);

/* Decode a complete model from [data, data+size) into m (m->data/size/alloc
 * set by the caller; m->arena created here). On error m keeps what it owns
 * (the caller frees via tp__onnx_model_free_parts). */
tp_status tp__onnx_decode_buffer(tp_onnx_model *m, uint32_t max_depth, uint32_t max_nodes,
                                 tp_error *err);

/* Free the info cache (onnx_decode_info.c). */
void tp__onnx_info_free(tp_onnx_model *m);

#endif
