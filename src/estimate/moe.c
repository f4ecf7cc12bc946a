/* MoE expert offload sizing: how many experts per layer stay on the
 * device under a budget, and the peak when the rest are offloaded. */
#include "tensorplan/estimate.h"

#include <math.h>
#include <string.h>

/* floor(b × r) for r in [0, 1], in integers with r rounded to parts per
 * billion, so decimal fractions are exact (10 × 0.3 = 3, where the binary
 * double 0.3 = 0.29999... would floor to 2) and no uint64_t b loses precision. */
static uint64_t floor_mul_fraction(uint64_t b, double r) {
    if (r >= 1.0) return b;
    if (r <= 0.0) return 0;
    const uint64_t one = 1000000000u;
    uint64_t ppb = (uint64_t)llround(r * 1e9); /* <= 10^9 */
    /* (q·10^9 + rem) × ppb / 10^9 = q·ppb + rem·ppb / 10^9; rem·ppb < 10^18 */
    return (b / one) * ppb + (b % one) * ppb / one;
}

tp_status tp_estimate_moe_offload(const tp_estimate *e, const tp_moe_config *c, tp_moe_plan *out,
                                  tp_error *err) {
    if (!e || !c || !out) return tp_error_set(err, TP_ERR_INVALID, "moe: NULL argument");
    memset(out, 0, sizeof *out);
    double r = c->reserve_fraction;
    if (!(r >= 0.0 && r <= 1.0))
        return tp_error_set(err, TP_ERR_INVALID, "moe: reserve fraction %g is not in [0, 1]", r);
    const uint64_t E = c->experts_per_layer, L = c->moe_layers, epb = c->expert_bytes;
    const uint64_t B = c->device_budget_bytes;
    uint64_t reserve = floor_mul_fraction(B, r);
    uint64_t per_layer = c->max_device_experts < E ? c->max_device_experts : E;
    if (epb != 0 && L != 0) {
        uint64_t fit = tp_sat_sub_u64(B, reserve) / tp_sat_mul_u64(epb, L);
        if (fit < per_layer) per_layer = fit;
    }
    uint64_t all = tp_sat_mul_u64(tp_sat_mul_u64(epb, E), L);
    uint64_t resident = tp_sat_mul_u64(tp_sat_mul_u64(epb, per_layer), L);
    if (all > e->weight_bytes)
        return tp_error_set(err, TP_ERR_INVALID,
                            "moe: experts weigh %llu bytes (%llu x %llu experts x %llu layers) but "
                            "all weights are only %llu bytes",
                            (unsigned long long)all, (unsigned long long)epb, (unsigned long long)E,
                            (unsigned long long)L, (unsigned long long)e->weight_bytes);
    uint64_t peak;
    if (!tp_add_u64(e->activation_bytes, e->input_bytes, &peak) ||
        !tp_add_u64(peak, e->weight_bytes - all, &peak) || !tp_add_u64(peak, resident, &peak))
        return tp_error_set(err, TP_ERR_OVERFLOW, "moe: peak with offload overflows 64 bits");
    out->reserve_bytes = reserve;
    out->resident_per_layer = per_layer;
    out->all_expert_bytes = all;
    out->resident_expert_bytes = resident;
    out->offloaded_expert_bytes = all - resident; /* resident <= all: per_layer <= E */
    out->peak_with_offload_bytes = peak;
    return TP_OK;
}
