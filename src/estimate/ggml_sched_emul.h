/* Emulation of ggml's backend scheduler (ggml-backend.cpp,
 * ggml_backend_sched_split_graph, then ggml_gallocr_reserve_n over its graph
 * copy) for a tp_gg_graph whose tensors carry their layer and TP_GG_W_* kind
 * (internal). The rules, as read from ggml's and llama.cpp's sources:
 *   1. a tensor in (or a view of) a pre-allocated buffer runs on that
 *      buffer's backend (caches, set_rows into them); graph inputs on the CPU
 *      (the last backend); an op reading a weight where the weight is (not
 *      rope, not flash attention); llama.cpp forces "norm-<layer>" to its
 *      layer's backend when every layer is offloaded or the ubatch is < 32
 *   2. non-CPU assignments spread down then up the node list to unassigned
 *      non-view nodes, then every assignment does (down, up)
 *   3. a node still unassigned goes to the backend holding most of its sources
 *   4. views follow their root; unassigned sources follow their consumer
 *   5. splits are runs of nodes on one backend (a new one also where a node
 *      reads a weight of another backend while the split has inputs); a
 *      source on another backend is copied into the split's backend (once
 *      per backend), the copy allocated at the split's start; with
 *      n_copies > 1 (pipeline parallelism) every graph input gets n_copies
 *      copies on its backend and every split input n_copies copies on the
 *      split's, all allocated first and never freed
 *   the graph copy (per split: each input's keep-alive view and its copy,
 *   then the split's nodes; leafs: input copies, then the graph's leafs) is
 *   planned with one allocator per backend (ggml_alloc_emul.h).
 * Every backend has its own buffer type (RPC devices and the CPU: no backend
 * reads another's buffers) and supports every op, as RPC backends report. */
#ifndef TP_ESTIMATE_GGML_SCHED_EMUL_H
#define TP_ESTIMATE_GGML_SCHED_EMUL_H

#include "estimate/ggml_alloc_emul.h"

typedef struct tp_gs_backends {
    uint32_t n;                        /* backends; the last one is the CPU */
    uint64_t align[TP_GA_MAX_BUFFERS]; /* each backend's buffer alignment */
    uint32_t n_copies;                 /* 1, or 4 with pipeline parallelism */
    bool force_norm;                   /* "norm-<layer>" pinned to its layer's backend */
    int32_t n_layer;
    const uint8_t *layer_be;  /* [n_layer + 2]: backend of layer il's weights at il + 1
                               * (il = -1: token embedding, n_layer: output layer) */
    const uint8_t *expert_be; /* [n_layer]: backend of layer il's expert weights */
    const uint8_t *cache_be;  /* [n_layer]: backend of layer il's KV cache */
} tp_gs_backends;

/* Split g over b's backends and plan it; sizes[k] receives backend k's
 * compute buffer. g is modified (copies added, sources redirected).
 * TP_ERR_INVALID, TP_ERR_OVERFLOW, TP_ERR_NOMEM. */
tp_status tp__gs_reserve(tp_gg_graph *g, const tp_gs_backends *b, uint64_t *sizes, tp_error *err);

#endif
