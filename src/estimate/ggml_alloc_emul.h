/* Emulation of ggml's graph allocator (ggml-alloc.c, ggml_gallocr_reserve_n)
 * on a tp_gg_graph (internal). The rules, as read from ggml's sources:
 *   - leafs first, in leaf order, then every INPUT node and INPUT source,
 *     then the nodes in graph order: each node's unallocated sources, then
 *     the node; external tensors and views take no memory of their own
 *   - a node of an in-place op takes over its first source (in source order)
 *     that this allocator owns, is not an output, has the same type, shape
 *     and strides, and has this node as its only remaining consumer and no
 *     views (a view source: its root must have no other use); the tail of a
 *     larger source is given back
 *   - after a node, a source whose consumers and views are all done is freed
 *     (a view's root when its last view is done); outputs are never freed
 *   - the dynamic allocator: sizes rounded up to the alignment; the smallest
 *     free block that fits (ties: the later one) other than the last, else
 *     the last block (which grows the buffer); freed ranges merge with
 *     neighbours; the buffer is the highest end ever reached (max_size)
 * buffer ids pick one of n_buf allocators (the scheduler's backends). */
#ifndef TP_ESTIMATE_GGML_ALLOC_EMUL_H
#define TP_ESTIMATE_GGML_ALLOC_EMUL_H

#include "estimate/ggml_graph.h"

#define TP_GA_MAX_BUFFERS 16

/* Plan g. node_buf[i] / leaf_buf[i]: buffer of the i-th node / leaf (NULL:
 * all 0). align[b]: alignment of buffer b (a power of two). max_size[b]
 * receives buffer b's size. TP_ERR_INVALID (bad ids, alignment),
 * TP_ERR_OVERFLOW, TP_ERR_NOMEM. */
tp_status tp__ga_reserve(const tp_gg_graph *g, const uint8_t *node_buf, const uint8_t *leaf_buf,
                         uint32_t n_buf, const uint64_t *align, uint64_t *max_size, tp_error *err);

#endif
