/*
 * tensorplan/plan.h — liveness and graph memory plans (docs/planning.md).
 *
 * Example:
 *     tp_plan_options po; tp_plan_options_default(&po);
 *     tp_plan *p;
 *     if (tp_plan_graph(g, &po, &p, &err) != TP_OK) fprintf(stderr, "%s\n", err.msg);
 *     printf("arena %llu / LB %llu\n", (unsigned long long)tp_plan_arena_bytes(p),
 *            (unsigned long long)tp_plan_lower_bound_bytes(p));
 *     char *txt; size_t len; tp_plan_report_text(p, g, &txt, &len, &err); ... tp_free_string(txt);
 *     tp_plan_destroy(p);
 *
 * Ownership: a plan owns its slots; it keeps no pointer to the graph.
 * Thread safety: planning reads the graph only; plans are immutable once built
 * and may be read from several threads.
 */
#ifndef TENSORPLAN_PLAN_H
#define TENSORPLAN_PLAN_H

#include "tensorplan/alloc.h"
#include "tensorplan/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tp_width_policy {
    TP_WIDTH_NATIVE,     /* true byte widths */
    TP_WIDTH_F32_UNIFORM /* every slot elements × 4 (backends that widen to f32) */
} tp_width_policy;

typedef struct tp_plan_options {
    uint64_t alignment;        /* power of two; default 64 */
    tp_alloc_algo algo;        /* default TP_ALGO_GREEDY_SIZE (TP_ALGO_NO_REUSE from env) */
    double time_limit_s;       /* for exact/auto */
    bool allocate_params;      /* default true (inference); false for backward plans */
    bool allocate_inputs;      /* default true */
    bool allocate_constants;   /* default true */
    tp_width_policy width;     /* default native */
    bool pin_output_ancestors; /* true: every ancestor of an output lives to the end; default
                                  false (each buffer dies after its last reader) */
    bool inplace;              /* in-place reuse for elementwise ops; default true */
} tp_plan_options;

/* Inference defaults; reads TENSORPLAN_ARENA_NO_REUSE=1 (-> TP_ALGO_NO_REUSE). */
TP_API void tp_plan_options_default(tp_plan_options *o);

/* ---- liveness ---- */

/* Per-node liveness. For a view, root is the node owning the bytes and
 * view_offset the byte offset into it (chains summed); for an in-place node,
 * root is the parent whose slot it reuses. */
typedef struct tp_live {
    tp_node_id root;      /* buffer owner (itself for a plain buffer) */
    uint64_t view_offset; /* offset into root's bytes */
    uint64_t bytes;       /* this node's own byte size (policy-adjusted) */
    int64_t birth, death; /* inclusive steps */
    bool is_view;
    bool inplace; /* reuses root's slot in place (elementwise op) */
} tp_live;

typedef struct tp_liveness tp_liveness;
/* Compute liveness for every node. Requires bound symbols (TP_ERR_UNBOUND names
 * them). alloc may be NULL. */
TP_API tp_status tp_liveness_compute(const tp_graph *g, const tp_plan_options *opt,
                                     const tp_allocator *alloc, tp_liveness **out, tp_error *err);
TP_API void tp_liveness_destroy(tp_liveness *l);
TP_API uint32_t tp_liveness_count(const tp_liveness *l);
TP_API const tp_live *tp_liveness_get(const tp_liveness *l, tp_node_id id);
/* Bytes saved by in-place reuse. */
TP_API uint64_t tp_liveness_inplace_saved_bytes(const tp_liveness *l);

/* ---- plans ---- */

typedef struct tp_slot {
    tp_node_id node;
    uint64_t offset;      /* root offset + view offset */
    uint64_t size;        /* the node's own (unguarded) size */
    int64_t birth, death; /* inclusive */
    tp_node_id root;      /* buffer owner */
    bool is_view;
    bool inplace;
    bool fixed; /* pre-placed (e.g. backward weights) */
} tp_slot;

typedef struct tp_plan tp_plan;

/* Plan every buffer of a bound graph. TP_ERR_UNBOUND, TP_ERR_INVALID
 * (alignment, missing output), TP_ERR_OVERFLOW, TP_ERR_NOMEM. Uses the graph's
 * allocator. */
TP_API tp_status tp_plan_graph(const tp_graph *g, const tp_plan_options *opt, tp_plan **out,
                               tp_error *err);
TP_API void tp_plan_destroy(tp_plan *p);

TP_API uint64_t tp_plan_arena_bytes(const tp_plan *p);
TP_API uint64_t tp_plan_lower_bound_bytes(const tp_plan *p);
/* Sum of buffer sizes, views excluded (a view owns no bytes); a statistic, so it
 * saturates at UINT64_MAX instead of failing the plan. */
TP_API uint64_t tp_plan_unshared_bytes(const tp_plan *p);
/* unshared - arena, saturating at 0. */
TP_API uint64_t tp_plan_saved_bytes(const tp_plan *p);
TP_API uint64_t tp_plan_inplace_saved_bytes(const tp_plan *p);
TP_API const tp_alloc_result *tp_plan_alloc_result(const tp_plan *p);
/* Node count of the graph the plan was made for. */
TP_API uint32_t tp_plan_node_count(const tp_plan *p);
/* Slots sorted by offset (ties by node id). */
TP_API uint32_t tp_plan_slot_count(const tp_plan *p);
TP_API const tp_slot *tp_plan_slot(const tp_plan *p, uint32_t index);
/* Slot of a node; NULL when the node has none (not allocated by policy). */
TP_API const tp_slot *tp_plan_slot_of(const tp_plan *p, tp_node_id node);
/* Re-check the plan with the independent verifier (tp_alloc_verify). */
TP_API tp_status tp_plan_verify(const tp_plan *p, tp_error *err);

/* Text report, one row per slot sorted by offset (ties by node id); node is the
 * node's name, or "%<id>" when unnamed:
 *   # arena_size=A total_unshared=T saved=S
 *   # offset<TAB>size<TAB>node
 *   rows...
 * *out is NUL-terminated, allocated with malloc; free it with tp_free_string(). */
TP_API tp_status tp_plan_report_text(const tp_plan *p, const tp_graph *g, char **out, size_t *len,
                                     tp_error *err);
TP_API void tp_free_string(char *s);

/* ---- backward plans sharing the forward weight layout ---- */

/* Plan `backward` so that each of its Params whose name matches a forward
 * Param gets the forward offset; those weight slots are pre-placed and live
 * for the whole run, and activations are placed around them (never over a
 * weight, which the forward layout still holds).
 * The forward plan must have been made with allocate_params = true.
 * opt->allocate_params is ignored (weights come from the forward layout). */
TP_API tp_status tp_plan_backward(const tp_plan *forward, const tp_graph *forward_graph,
                                  const tp_graph *backward, const tp_plan_options *opt,
                                  tp_plan **out, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
