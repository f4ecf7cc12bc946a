/* A small model of a ggml compute graph, enough to plan it as ggml's graph
 * allocator does (internal; ggml_graph.c builds it, ggml_alloc_emul.c plans
 * it, llm_graph.c fills it with llama.cpp's decoder).
 *
 * A tensor has an element type (tp_dtype), four dimensions and strides, up
 * to TP_GG_MAX_SRC sources, the root tensor it views (if any) and flags.
 * tp__gg_expand adds a tensor and its unvisited ancestors to the node and
 * leaf lists in ggml_build_forward_expand's order (depth first, sources left
 * to right, post-order; op-less tensors are leafs). Sizes are 64-bit and
 * overflow-checked; a builder error sticks in g->status and every later call
 * returns -1. */
#ifndef TP_ESTIMATE_GGML_GRAPH_H
#define TP_ESTIMATE_GGML_GRAPH_H

#include "tensorplan/core.h"
#include "tensorplan/dtype.h"

#define TP_GG_MAX_SRC 10

enum { TP_GG_INPUT = 1, TP_GG_OUTPUT = 2 };

/* The ops whose kind matters to the allocator or the scheduler. */
typedef enum tp_gg_op {
    TP_GG_NONE = 0, /* leaf: an input, a weight, a cache */
    TP_GG_VIEW,     /* view, reshape, permute, transpose (no memory of its own) */
    TP_GG_INPLACE,  /* an op ggml may run in place (add, mul, norm, rope, softmax, scale, unary) */
    TP_GG_OTHER,    /* everything else (mul_mat, get_rows, cont, cpy, glu, flash attention, ...) */
    TP_GG_SET_ROWS  /* set_rows into a cache: a view of the cache */
} tp_gg_op;

typedef struct tp_gg_tensor {
    int32_t src[TP_GG_MAX_SRC]; /* -1: none */
    int32_t view_src;           /* root of a view, -1 otherwise */
    uint64_t view_offs;
    tp_gg_op op;
    tp_dtype type;
    int64_t ne[4];
    uint64_t nb[4];
    uint8_t flags;   /* TP_GG_INPUT / TP_GG_OUTPUT */
    bool external;   /* memory set before planning (weights, KV cache) */
    bool visited;    /* already in the node or leaf list */
    int32_t layer;   /* decoder layer it belongs to, -1: input side, n_layer: output */
    uint8_t wkind;   /* TP_GG_W_*: what of its layer the op reads (for the scheduler) */
    bool norm_named; /* llama.cpp names it "norm-<layer>" (ggml_sched_emul.h) */
} tp_gg_tensor;

/* What a tensor's layer lends it, for the scheduler's first pass: an op that
 * reads a weight (an expert weight) of its layer runs where that weight is; a
 * cache (and a set_rows into it) lives where the layer's KV is. */
enum { TP_GG_W_NONE = 0, TP_GG_W_WEIGHT, TP_GG_W_EXPERT, TP_GG_W_CACHE };

typedef struct tp_gg_graph {
    tp_gg_tensor *t;
    uint32_t n_t, cap_t;
    uint32_t *nodes;
    uint32_t n_nodes, cap_nodes;
    uint32_t *leafs;
    uint32_t n_leafs, cap_leafs;
    int32_t cur_layer; /* stamped on new tensors */
    tp_status status;  /* first error; TP_OK while building works */
} tp_gg_graph;

void tp__gg_init(tp_gg_graph *g);
void tp__gg_free(tp_gg_graph *g);

/* A new contiguous tensor type[ne0, ne1, ne2, ne3] made by op from srcs
 * (nsrc of them, -1 entries allowed). Returns its index or -1. */
int32_t tp__gg_new(tp_gg_graph *g, tp_gg_op op, tp_dtype type, int64_t ne0, int64_t ne1,
                   int64_t ne2, int64_t ne3, const int32_t *srcs, int nsrc);
/* A leaf: an external tensor (weights, caches) or a graph input (flags). */
int32_t tp__gg_leaf(tp_gg_graph *g, tp_dtype type, int64_t ne0, int64_t ne1, int64_t ne2,
                    int64_t ne3, bool external, uint8_t flags);
/* A view of a (any op that only re-describes memory): shape ne, strides nb
 * (nb == NULL: contiguous), byte offset offs into a. */
int32_t tp__gg_view(tp_gg_graph *g, int32_t a, const int64_t ne[4], const uint64_t *nb,
                    uint64_t offs);
int32_t tp__gg_reshape(tp_gg_graph *g, int32_t a, int64_t ne0, int64_t ne1, int64_t ne2,
                       int64_t ne3);
int32_t tp__gg_permute(tp_gg_graph *g, int32_t a, int p0, int p1, int p2, int p3);
/* Same shape and strides as a, new memory (ggml_dup_tensor-like op result). */
int32_t tp__gg_like(tp_gg_graph *g, tp_gg_op op, int32_t a, const int32_t *srcs, int nsrc);
/* ggml_build_forward_expand(t). */
void tp__gg_expand(tp_gg_graph *g, int32_t t);

/* Grow the array *p (capacity *cap elements of elem bytes) to hold need;
 * false when out of memory or past 2^30 elements. */
bool tp__gg_grow(void **p, uint32_t *cap, uint32_t need, size_t elem);

/* ggml_nbytes: the bytes a tensor spans. */
bool tp__gg_nbytes(const tp_gg_tensor *t, uint64_t *out);
bool tp__gg_is_contiguous(const tp_gg_tensor *t);

#endif
