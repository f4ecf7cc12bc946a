/* Internal: the liveness and plan structures shared by liveness.c, plan_options.c,
 * plan_graph.c and plan_backward.c. Not a public header. */
#ifndef TP_PLAN_INTERNAL_H
#define TP_PLAN_INTERNAL_H

#include "tensorplan/plan.h"

struct tp_liveness {
    const tp_allocator *alloc;
    uint32_t n;             /* node count */
    int64_t last;           /* = n: the step outputs and boundary buffers live to */
    tp_live *live;          /* n entries */
    int64_t *buf_death;     /* n entries; for buffer owners (root == id): the death of the
                               whole buffer (max over the owner, its views and in-place users) */
    uint64_t inplace_saved; /* bytes saved by in-place reuse */
};

/* A pre-placed buffer for tp_plan_build: a node's slot fixed at `offset` and
 * living over [0, last], or (node == TP_NO_NODE) a reserved region with no node. */
typedef struct tp_plan_fixed {
    tp_node_id node;
    uint64_t offset;
    uint64_t size;
    uint64_t tail_guard;
    uint64_t alignment;
} tp_plan_fixed;

struct tp_plan {
    const tp_allocator *alloc;
    uint32_t n_nodes;
    uint64_t alignment;
    tp_slot *slots; /* sorted by offset, ties by node id */
    uint32_t n_slots;
    int32_t *slot_of;   /* n_nodes entries: node -> slot index, or -1 */
    int32_t *buffer_of; /* n_nodes entries: buffer owner -> buffer index, or -1 */
    tp_buffer *buffers; /* what was handed to the allocator (id = node id, or n_nodes + k
                           for reserved regions) */
    uint64_t *offsets;
    size_t n_buffers;
    size_t buf_cap; /* allocated entries of buffers/offsets */
    uint64_t arena;
    uint64_t lower_bound;
    uint64_t unshared;
    uint64_t inplace_saved;
    tp_alloc_result result;
};

/* Build a plan for graph g from its liveness l: every allocated buffer owner
 * becomes a tp_buffer (boundary ones by the allocate_* toggles, with tail
 * guards), `fixed` entries are pre-placed, the allocator places the rest, and
 * every node whose owner was placed gets a slot. Verifies the result. */
tp_status tp_plan_build(const tp_graph *g, const tp_liveness *l, const tp_plan_options *opt,
                        const tp_plan_fixed *fixed, size_t n_fixed, tp_plan **out, tp_error *err);

/* Check options: alignment a power of two. */
tp_status tp_plan_check_options(const tp_plan_options *opt, tp_error *err);

#endif
