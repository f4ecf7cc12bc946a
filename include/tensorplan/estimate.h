/*
 * tensorplan/estimate.h — memory estimate before loading weights:
 * activations, weights, inputs, the peak, whether it fits a budget (and by how
 * much it does not), MoE expert offload sizing, and the max-fit search for
 * the largest batch/sequence that fits.
 *
 *   activation_bytes = arena of a plan of the non-boundary buffers only
 *                      (allocate_params / inputs / constants all false)
 *   weight_bytes     = the weight registry's total, or without one the graph's
 *                      Param + Constant bytes with tied Params counted once
 *   input_bytes      = sum of the Input sizes
 *   peak_bytes       = activation + weight + input   (nothing is
 *                      counted twice — the arena never contains weights/inputs)
 *
 * Example:
 *     tp_estimate_options eo; tp_estimate_options_default(&eo);
 *     tp_estimate e; tp_deficit d; tp_error err;
 *     if (tp_estimate_graph(g, &eo, &e, &err) == TP_OK &&
 *         tp_estimate_fits_in(&e, 512ull << 20, &d, &err) == TP_ERR_OVER_BUDGET)
 *         puts(err.msg);  // "estimated peak 812.4 MiB exceeds budget 512.0 MiB by 300.4 MiB
 *                         //  (activation 102.0, weights 700.1, inputs 10.3)"
 *
 *     tp_fit_options fo; tp_fit_options_default(&fo);
 *     fo.symbol = "seq"; fo.budget_bytes = 8ull << 30;
 *     tp_fit_result fr;
 *     if (tp_estimate_max_fit(g, &fo, &eo, &fr, &err) == TP_OK)
 *         printf("seq <= %lld\n", (long long)fr.value);
 *
 * Ownership: results are plain structs; nothing is retained.
 * Thread safety: tp_estimate_graph only reads the graph (and the registry);
 * tp_estimate_max_fit re-binds the graph's symbol and needs exclusive access.
 */
#ifndef TENSORPLAN_ESTIMATE_H
#define TENSORPLAN_ESTIMATE_H

#include "tensorplan/plan.h"
#include "tensorplan/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_estimate {
    uint64_t activation_bytes;
    uint64_t weight_bytes;
    uint64_t input_bytes;
    uint64_t peak_bytes; /* activation + weight + input */
    /* detail */
    uint64_t param_bytes;         /* graph Params, tied aliases once (0 with a registry) */
    uint64_t constant_bytes;      /* graph Constants (0 with a registry) */
    uint32_t tied_params_skipped; /* tied Params not counted again */
    bool from_registry;           /* weight_bytes came from a registry */
} tp_estimate;

typedef struct tp_estimate_options {
    /* alignment, algorithm, width policy, in-place... for the activation plan;
     * its allocate_params / allocate_inputs / allocate_constants are ignored
     * (always false for the activation plan). */
    tp_plan_options plan;
    /* weights from this registry instead of the graph's Params + Constants
     * (may be NULL). The registry's total replaces both. */
    const tp_registry *registry;
} tp_estimate_options;

/* Plan defaults (tp_plan_options_default) and no registry. */
TP_API void tp_estimate_options_default(tp_estimate_options *o);

/* Estimate a bound graph. o may be NULL (defaults). Errors: those of
 * tp_plan_graph (TP_ERR_UNBOUND naming the symbols, TP_ERR_INVALID,
 * TP_ERR_NOMEM) and TP_ERR_OVERFLOW when a sum exceeds 64 bits. */
TP_API tp_status tp_estimate_graph(const tp_graph *g, const tp_estimate_options *o,
                                   tp_estimate *out, tp_error *err);

/* As tp_estimate_graph, and hand over the activation plan it made (boundary
 * buffers not allocated) in *activation_plan (NULL allowed: not kept; on error
 * *activation_plan is NULL). The caller destroys it with tp_plan_destroy. */
TP_API tp_status tp_estimate_graph_plan(const tp_graph *g, const tp_estimate_options *o,
                                        tp_estimate *out, tp_plan **activation_plan, tp_error *err);

/* How far over a budget an estimate is. */
typedef struct tp_deficit {
    uint64_t budget_bytes;
    uint64_t peak_bytes;
    uint64_t deficit_bytes; /* peak - budget (0 when it fits) */
    uint64_t activation_bytes;
    uint64_t weight_bytes;
    uint64_t input_bytes;
} tp_deficit;

/* TP_OK when e->peak_bytes <= budget_bytes; else TP_ERR_OVER_BUDGET with the
 * deficit in *d (nullable; filled in both cases) and err->msg exactly
 *   "estimated peak 812.4 MiB exceeds budget 512.0 MiB by 300.4 MiB
 *    (activation 102.0, weights 700.1, inputs 10.3)"   (one line)
 * — every figure in MiB (2^20 bytes) with one decimal. */
TP_API tp_status tp_estimate_fits_in(const tp_estimate *e, uint64_t budget_bytes, tp_deficit *d,
                                     tp_error *err);
/* Write the message above for a deficit into buf; returns buf. */
TP_API const char *tp_deficit_format(const tp_deficit *d, char *buf, size_t cap);

/* ---- MoE expert offload ---- */

typedef struct tp_moe_config {
    uint64_t experts_per_layer;   /* E */
    uint64_t moe_layers;          /* L */
    uint64_t expert_bytes;        /* epb: bytes of one expert */
    uint64_t max_device_experts;  /* max_dev: cap on experts per layer kept on the device */
    uint64_t device_budget_bytes; /* B */
    double reserve_fraction;      /* r in [0, 1], applied at 10^-9 resolution */
} tp_moe_config;

typedef struct tp_moe_plan {
    uint64_t reserve_bytes;           /* floor(B × r) */
    uint64_t resident_per_layer;      /* experts per layer kept on the device */
    uint64_t all_expert_bytes;        /* epb × E × L (saturating) */
    uint64_t resident_expert_bytes;   /* epb × per_layer × L (saturating) */
    uint64_t offloaded_expert_bytes;  /* all - resident */
    uint64_t peak_with_offload_bytes; /* activation + input + (weight - all) + resident */
} tp_moe_plan;

/* reserve = floor(B × r); per_layer = min(sat_sub(B, reserve) / sat_mul(epb, L),
 * max_dev, E), or min(max_dev, E) when epb = 0 or L = 0; all and resident as
 * above, saturating; peak_with_offload = activation + input + (weight - all) +
 * resident. Errors: TP_ERR_INVALID (r outside [0, 1] or NaN; all > weight —
 * the experts cannot weigh more than all weights),
 * TP_ERR_OVERFLOW (the peak sum). */
TP_API tp_status tp_estimate_moe_offload(const tp_estimate *e, const tp_moe_config *c,
                                         tp_moe_plan *out, tp_error *err);

/* ---- max-fit search ---- */

typedef struct tp_fit_options {
    const char *symbol;    /* the symbolic dim to maximise ("batch", "seq") */
    uint64_t budget_bytes; /* the peak must be <= this */
    int64_t min_value;     /* smallest value tried; default 1 */
    int64_t max_value;     /* largest value tried; default 2^40 */
} tp_fit_options;

TP_API void tp_fit_options_default(tp_fit_options *o);

typedef struct tp_fit_result {
    int64_t value;            /* largest fitting value; min_value - 1 when none fits */
    tp_estimate estimate;     /* the estimate at value (zeroed when none fits) */
    uint64_t peak_bytes;      /* estimate.peak_bytes */
    int64_t next_value;       /* value + 1 */
    uint64_t next_peak_bytes; /* peak at value + 1 (UINT64_MAX when it overflows 64 bits) */
    bool next_evaluated;      /* false only when value + 1 is not representable */
    bool at_max;          /* value == max_value: the bound, not the budget, stopped the search */
    uint32_t evaluations; /* plans made */
} tp_fit_result;

/* The largest value of fo->symbol in [min_value, max_value] whose peak fits
 * fo->budget_bytes, by exponential search (min, 2·min, 4·min, ...) then binary
 * search over re-bound plans: O(log value) plans. Assumes the peak is
 * monotone non-decreasing in the symbol (true for batch and sequence dims of
 * ordinary models); where it is not, the answer is a value that fits, whose
 * successor does not. A plan whose sizes overflow 64 bits counts as not
 * fitting. Other symbols must already be bound. On return the symbol is bound
 * to the answer (to min_value when none fits).
 * Errors: TP_ERR_NOT_FOUND (no such symbol; the message lists the graph's
 * symbols), TP_ERR_INVALID (min < 0, max < min), TP_ERR_OVER_BUDGET ("even
 * seq=1 does not fit: estimated peak ..."; *out is filled with value =
 * min - 1 and the peak at min as next_peak_bytes), and estimate errors. */
TP_API tp_status tp_estimate_max_fit(tp_graph *g, const tp_fit_options *fo,
                                     const tp_estimate_options *eo, tp_fit_result *out,
                                     tp_error *err);

#ifdef __cplusplus
}
#endif

/* LLM estimates (GGUF, llama.cpp terms) live in their own header. */
#include "tensorplan/llm.h"
#endif
