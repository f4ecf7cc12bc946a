/* Plan options: the defaults and their check. Their own file because both
 * liveness.c and plan_graph.c need them (liveness must not depend on the plan
 * builder that uses it). */
#include <string.h>

#include "plan/plan_internal.h"

void tp_plan_options_default(tp_plan_options *o) {
    if (!o) return;
    tp_alloc_options ao;
    tp_alloc_options_default(&ao);
    memset(o, 0, sizeof *o);
    o->alignment = ao.alignment ? ao.alignment : 64;
    o->algo = ao.algo;
    o->time_limit_s = ao.time_limit_s;
    o->allocate_params = true;
    o->allocate_inputs = true;
    o->allocate_constants = true;
    o->width = TP_WIDTH_NATIVE;
    o->pin_output_ancestors = false;
    o->inplace = true;
}

tp_status tp_plan_check_options(const tp_plan_options *opt, tp_error *err) {
    if (!tp_is_pow2_u64(opt->alignment))
        return tp_error_set(err, TP_ERR_INVALID, "plan: alignment %llu is not a power of two",
                            (unsigned long long)opt->alignment);
    if ((int)opt->algo < 0 || opt->algo >= TP_ALGO_COUNT)
        return tp_error_set(err, TP_ERR_INVALID, "plan: unknown allocation algorithm %d",
                            (int)opt->algo);
    if (opt->width != TP_WIDTH_NATIVE && opt->width != TP_WIDTH_F32_UNIFORM)
        return tp_error_set(err, TP_ERR_INVALID, "plan: unknown width policy %d", (int)opt->width);
    return TP_OK;
}
