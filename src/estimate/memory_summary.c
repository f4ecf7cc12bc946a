/* The memory figures of a report (see tensorplan/runtime.h): the estimate with its
 * activation plan, the onnxruntime profile, and the no-reuse arena. */
#include <string.h>

#include "tensorplan/runtime.h"

tp_status tp_memory_summary_compute(const tp_graph *g, const tp_plan_options *po,
                                    uint64_t model_file_bytes, tp_memory_summary *out,
                                    tp_error *err) {
    if (!g || !out) return tp_error_set(err, TP_ERR_INVALID, "memory summary: NULL argument");
    memset(out, 0, sizeof *out);
    tp_estimate_options eo;
    tp_estimate_options_default(&eo);
    if (po) eo.plan = *po;
    tp_memory_summary s;
    memset(&s, 0, sizeof s);
    tp_status st = tp_estimate_graph_plan(g, &eo, &s.estimate, &s.activation_plan, err);
    if (st != TP_OK) return st;
    tp_runtime_options ro;
    tp_runtime_options_default(&ro);
    ro.runtime = TP_RUNTIME_ONNXRUNTIME;
    ro.ort.model_file_bytes = model_file_bytes;
    st = tp_runtime_estimate_graph(g, &s.estimate, &ro, &s.onnxruntime, err);
    if (st == TP_OK) {
        tp_plan_options nr_opt = eo.plan;
        nr_opt.allocate_params = nr_opt.allocate_inputs = nr_opt.allocate_constants = false;
        nr_opt.algo = TP_ALGO_NO_REUSE;
        tp_plan *nr = NULL;
        st = tp_plan_graph(g, &nr_opt, &nr, err);
        if (st == TP_OK) s.noreuse_bytes = tp_plan_arena_bytes(nr);
        tp_plan_destroy(nr);
    }
    if (st != TP_OK) {
        tp_plan_destroy(s.activation_plan);
        return st;
    }
    *out = s;
    return TP_OK;
}

void tp_memory_summary_destroy(tp_memory_summary *s) {
    if (!s) return;
    tp_plan_destroy(s->activation_plan);
    s->activation_plan = NULL;
}
