/* The default memory budget: an explicit byte count or a fraction of the
 * available memory, given as strings (the CLI passes the environment's,
 * tensorplan/env.h). */
#include "tensorplan/sysmem.h"

#include <math.h>
#include <stdlib.h>

static bool parse_plain_u64(const char *s, uint64_t *out) {
    uint64_t v = 0;
    if (!*s) return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        if (!tp_mul_u64(v, 10, &v) || !tp_add_u64(v, (uint64_t)(*s - '0'), &v)) return false;
    }
    *out = v;
    return true;
}

tp_status tp_sysmem_soft_budget_from(uint64_t available_bytes, const char *fraction,
                                     const char *budget_bytes, uint64_t *out_bytes,
                                     tp_budget_source *source, tp_error *err) {
    if (!out_bytes) return tp_error_set(err, TP_ERR_INVALID, "budget: NULL output");
    if (budget_bytes && *budget_bytes) {
        uint64_t b;
        if (!parse_plain_u64(budget_bytes, &b) || b == 0)
            return tp_error_set(err, TP_ERR_INVALID,
                                "budget: %s='%.40s' is not a positive byte count",
                                "TENSORPLAN_MEMORY_BUDGET_BYTES", budget_bytes);
        *out_bytes = b;
        if (source) *source = TP_BUDGET_BYTES_ENV;
        return TP_OK;
    }
    double f = TP_SOFT_MEMORY_FRACTION_DEFAULT;
    tp_budget_source src = TP_BUDGET_FRACTION_DEFAULT;
    if (fraction && *fraction) {
        char *end = NULL;
        f = strtod(fraction, &end);
        if (end == fraction || *end != '\0' || !isfinite(f) || !(f > 0.0) || f > 1.0)
            return tp_error_set(err, TP_ERR_INVALID,
                                "budget: %s='%.40s' is not a fraction in (0, 1]",
                                "TENSORPLAN_SOFT_MEMORY_FRACTION", fraction);
        src = TP_BUDGET_FRACTION_ENV;
    }
    /* floor(available x f) in integers at parts-per-million resolution, so
     * 0.8 x 1000 is exactly 800 whatever the binary rounding of 0.8. */
    uint64_t ppm = (uint64_t)llround(f * 1e6);
    uint64_t q = available_bytes / 1000000u, r = available_bytes % 1000000u;
    /* q x ppm <= available since ppm <= 10^6: no overflow */
    *out_bytes = q * ppm + (r * ppm) / 1000000u;
    if (source) *source = src;
    return TP_OK;
}

tp_status tp_sysmem_soft_budget(uint64_t available_bytes, uint64_t *out_bytes,
                                tp_budget_source *source, tp_error *err) {
    return tp_sysmem_soft_budget_from(available_bytes, NULL, NULL, out_bytes, source, err);
}
