/* tensorplan._native: estimate (with a runtime profile and a budget) and fit. */
#include "native.h"

#include <string.h>

/* onnxruntime options from a dict {mem_pattern, cpu_arena, arena_extend_strategy,
 * prepacking, intra_op_threads, copy_outputs} (missing keys keep the defaults). 0 or -1. */
static int ort_options(PyObject *o, tp_ort_options *ort) {
    if (!o || o == Py_None) return 0;
    if (!PyDict_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "ort options must be a dict");
        return -1;
    }
    static const char *const flags[] = {"mem_pattern", "cpu_arena", "prepacking", "copy_outputs"};
    bool *dst[] = {&ort->mem_pattern, &ort->cpu_arena, &ort->prepacking, &ort->copy_outputs};
    for (int i = 0; i < 4; i++) {
        PyObject *v = PyDict_GetItemString(o, flags[i]); /* borrowed */
        if (!v) continue;
        int t = PyObject_IsTrue(v);
        if (t < 0) return -1;
        *dst[i] = t != 0;
    }
    PyObject *v = PyDict_GetItemString(o, "intra_op_threads");
    if (v) {
        long long n = PyLong_AsLongLong(v);
        if (n < 0 || n > 4096 || PyErr_Occurred()) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "intra_op_threads: 0..4096");
            return -1;
        }
        ort->intra_op_threads = (uint32_t)n;
    }
    v = PyDict_GetItemString(o, "arena_extend_strategy");
    if (v) {
        const char *s = PyUnicode_Check(v) ? PyUnicode_AsUTF8AndSize(v, NULL) : NULL;
        if (s && strcmp(s, "next-power-of-two") == 0)
            ort->arena_extend = TP_ORT_ARENA_NEXT_POWER_OF_TWO;
        else if (s && strcmp(s, "same-as-requested") == 0)
            ort->arena_extend = TP_ORT_ARENA_SAME_AS_REQUESTED;
        else {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "arena_extend_strategy: 'next-power-of-two' "
                                                  "or 'same-as-requested'");
            return -1;
        }
    }
    return 0;
}

static PyObject *runtime_dict(const tp_runtime_estimate *rt, const tp_ort_options *ort) {
    PyObject *d = PyDict_New(), *terms = PyDict_New();
    int bad = !d || !terms;
    bad = bad || tp_py_put_str(d, "name", tp_runtime_name(rt->runtime));
    bad = bad || tp_py_put_u64(d, "peak_bytes", rt->peak_bytes);
    bad = bad || tp_py_put_u64(d, "plan_peak_bytes", rt->plan_peak_bytes);
    bad = bad ||
          tp_py_put_u64(d, "over_plan_bytes", tp_sat_sub_u64(rt->peak_bytes, rt->plan_peak_bytes));
    bad = bad || tp_py_put_u64(terms, "session_fixed_bytes", rt->session_fixed_bytes);
    bad = bad || tp_py_put_u64(terms, "graph_bytes", rt->graph_bytes);
    bad = bad || tp_py_put_u64(terms, "model_copy_bytes", rt->model_copy_bytes);
    bad = bad || tp_py_put_u64(terms, "weight_bytes", rt->weight_bytes);
    bad = bad || tp_py_put_u64(terms, "prepacked_bytes", rt->prepacked_bytes);
    bad = bad || tp_py_put_u64(terms, "arena_bytes", rt->arena_bytes);
    bad = bad || tp_py_put_u64(terms, "input_bytes", rt->input_bytes);
    bad = bad || tp_py_put_u64(terms, "output_copy_bytes", rt->output_copy_bytes);
    bad = bad || tp_py_put_u64(terms, "calibration_margin_bytes", rt->calibration_margin_bytes);
    if (!bad) bad = tp_py_put_obj(d, "terms", Py_NewRef(terms));
    if (!bad && rt->runtime == TP_RUNTIME_ONNXRUNTIME) {
        bad = bad || tp_py_put_u64(d, "activation_plan_bytes", rt->activation_plan_bytes);
        bad = bad || tp_py_put_u64(d, "arena_first_run_bytes", rt->arena_first_run_bytes);
        bad = bad || tp_py_put_u64(d, "mem_pattern_bytes", rt->mem_pattern_bytes);
        bad = bad || tp_py_put_u64(d, "arena_emulated_bytes", rt->arena_emulated_bytes);
        bad = bad || tp_py_put_u64(d, "load_transient_bytes", rt->load_transient_bytes);
        bad = bad || tp_py_put_u64(d, "node_count", rt->node_count);
        bad = bad || tp_py_put_u64(d, "model_file_bytes", ort->model_file_bytes);
        bad = bad || tp_py_put_u64(d, "conv_weight_bytes", rt->conv_weight_bytes);
        bad = bad || tp_py_put_u64(d, "conv_nchwc_weight_bytes", rt->conv_nchwc_weight_bytes);
        bad = bad || tp_py_put_u64(d, "conv_flat_weight_bytes", rt->conv_flat_weight_bytes);
        bad = bad || tp_py_put_u64(d, "gemm_weight_bytes", rt->gemm_weight_bytes);
        bad = bad || tp_py_put_u64(d, "other_weight_bytes", rt->other_weight_bytes);
        bad = bad || tp_py_put_u64(d, "body_weight_bytes", rt->body_weight_bytes);
        bad = bad || tp_py_put_u64(d, "heap_emulated_weight_bytes", rt->heap_emulated_weight_bytes);
        bad = bad || tp_py_put_u64(d, "heap_emulated_bytes", rt->heap_emulated_bytes);
        bad = bad || tp_py_put_u64(d, "arena_in_holes_bytes", rt->arena_in_holes_bytes);
        bad = bad || tp_py_put_u64(d, "arena_reserved_bytes", rt->arena_reserved_bytes);
        bad = bad || tp_py_put_str(d, "session_fixed_source", rt->fixed_source);
        bad = bad || tp_py_put_str(d, "not_modelled", rt->not_modelled ? rt->not_modelled : "");
        bad =
            bad ||
            tp_py_put_obj(
                d, "options",
                Py_BuildValue(
                    "{sOsOsssOsIsO}", "mem_pattern", ort->mem_pattern ? Py_True : Py_False,
                    "cpu_arena", ort->cpu_arena ? Py_True : Py_False, "arena_extend_strategy",
                    ort->arena_extend == TP_ORT_ARENA_NEXT_POWER_OF_TWO ? "next-power-of-two"
                                                                        : "same-as-requested",
                    "prepacking", ort->prepacking ? Py_True : Py_False, "intra_op_threads",
                    ort->intra_op_threads, "copy_outputs", ort->copy_outputs ? Py_True : Py_False));
    }
    Py_XDECREF(terms);
    if (bad) Py_CLEAR(d);
    return d;
}

/* The budget verdict on `checked` (the runtime's peak) into d. */
static int put_verdict(PyObject *d, const tp_estimate *checked, unsigned long long budget,
                       const char *how) {
    tp_deficit def;
    tp_error fe;
    tp_error_clear(&fe);
    bool fits = tp_estimate_fits_in(checked, budget, &def, &fe) == TP_OK;
    if (tp_py_put_u64(d, "budget_bytes", budget) || tp_py_put_str(d, "budget_source", how) ||
        tp_py_put_bool(d, "fits", fits) || tp_py_put_u64(d, "deficit_bytes", def.deficit_bytes) ||
        tp_py_put_u64(d, "headroom_bytes", tp_sat_sub_u64(budget, checked->peak_bytes)))
        return -1;
    return tp_py_put_obj(d, "message", fits ? Py_NewRef(Py_None) : PyUnicode_FromString(fe.msg));
}

static int put_estimate_terms(PyObject *d, const tp_estimate *e) {
    return tp_py_put_u64(d, "weights_bytes", e->weight_bytes) ||
                   tp_py_put_u64(d, "activations_bytes", e->activation_bytes) ||
                   tp_py_put_u64(d, "inputs_bytes", e->input_bytes) ||
                   tp_py_put_u64(d, "peak_bytes", e->peak_bytes)
               ? -1
               : 0;
}

PyObject *tp_py_estimate(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *model, *load, *budget_obj, *ort_obj = Py_None;
    const char *algo = NULL, *runtime = NULL;
    unsigned long long align = 0;
    double time_limit = -1;
    if (!PyArg_ParseTuple(args, "OOO|zKzOd", &model, &load, &budget_obj, &algo, &align, &runtime,
                          &ort_obj, &time_limit))
        return NULL;
    tp_estimate_options eo;
    tp_estimate_options_default(&eo);
    if (tp_py_plan_options(algo, align, time_limit, &eo.plan) != 0) return NULL;
    tp_runtime_options ro;
    tp_runtime_options_default(&ro);
    tp_error err;
    tp_error_clear(&err);
    tp_status st;
    if (runtime && (st = tp_runtime_parse(runtime, &ro.runtime, &err)) != TP_OK)
        return tp_py_raise(&err, st);
    if (ort_options(ort_obj, &ro.ort) != 0) return NULL;
    unsigned long long budget = 0;
    char how[256];
    if (tp_py_budget(budget_obj, &budget, how, sizeof how) != 0) return NULL;
    tp_py_model m;
    if (tp_py_model_load(model, load, &m) != 0) return NULL;
    ro.ort.model_file_bytes = m.file_bytes;
    tp_estimate e;
    tp_runtime_estimate rt;
    Py_BEGIN_ALLOW_THREADS;
    st = tp_estimate_graph(m.g, &eo, &e, &err);
    if (st == TP_OK) st = tp_runtime_estimate_graph(m.g, &e, &ro, &rt, &err);
    Py_END_ALLOW_THREADS;
    PyObject *d = st == TP_OK ? PyDict_New() : tp_py_raise(&err, st);
    tp_estimate checked = e;
    checked.peak_bytes = rt.peak_bytes; /* the chosen runtime's figure is what must fit */
    if (d && (put_estimate_terms(d, &e) || tp_py_put_u64(d, "param_bytes", e.param_bytes) ||
              tp_py_put_u64(d, "constant_bytes", e.constant_bytes) ||
              tp_py_put_u64(d, "tied_params_skipped", e.tied_params_skipped) ||
              tp_py_put_assumptions(d, m.g) || put_verdict(d, &checked, budget, how) ||
              tp_py_put_obj(d, "runtime", runtime_dict(&rt, &ro.ort)) ||
              tp_py_put_obj(d, "default_bindings", Py_NewRef(m.defaults))))
        Py_CLEAR(d);
    tp_py_model_release(&m);
    return d;
}

PyObject *tp_py_fit(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *model, *load, *budget_obj;
    const char *symbol, *algo = NULL;
    unsigned long long align = 0;
    long long lo = 0, hi = 0;
    if (!PyArg_ParseTuple(args, "OOsO|LLzK", &model, &load, &symbol, &budget_obj, &lo, &hi, &algo,
                          &align))
        return NULL;
    tp_estimate_options eo;
    tp_estimate_options_default(&eo);
    if (tp_py_plan_options(algo, align, -1, &eo.plan) != 0) return NULL;
    tp_fit_options fo;
    tp_fit_options_default(&fo);
    if (lo > 0) fo.min_value = lo;
    if (hi > 0) fo.max_value = hi;
    fo.symbol = symbol;
    unsigned long long budget = 0;
    char how[256];
    if (tp_py_budget(budget_obj, &budget, how, sizeof how) != 0) return NULL;
    fo.budget_bytes = budget;
    tp_py_model m;
    if (tp_py_model_load(model, load, &m) != 0) return NULL;
    tp_fit_result fr;
    memset(&fr, 0, sizeof fr);
    tp_error err;
    tp_error_clear(&err);
    tp_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = tp_estimate_max_fit(m.g, &fo, &eo, &fr, &err);
    Py_END_ALLOW_THREADS;
    bool found = st == TP_OK;
    PyObject *d = found || st == TP_ERR_OVER_BUDGET ? PyDict_New() : tp_py_raise(&err, st);
    if (d &&
        (tp_py_put_str(d, "dim", symbol) || tp_py_put_u64(d, "budget_bytes", budget) ||
         tp_py_put_str(d, "budget_source", how) || tp_py_put_bool(d, "fits", found) ||
         tp_py_put_i64(d, "value", fr.value) || put_estimate_terms(d, &fr.estimate) ||
         tp_py_put_i64(d, "next_value", fr.next_value) ||
         tp_py_put_obj(d, "next_peak_bytes",
                       fr.next_evaluated ? PyLong_FromUnsignedLongLong(fr.next_peak_bytes)
                                         : Py_NewRef(Py_None)) ||
         tp_py_put_bool(d, "at_max", fr.at_max) || tp_py_put_i64(d, "min", fo.min_value) ||
         tp_py_put_i64(d, "max", fo.max_value) ||
         tp_py_put_u64(d, "plans_evaluated", fr.evaluations) ||
         tp_py_put_obj(d, "message", found ? Py_NewRef(Py_None) : PyUnicode_FromString(err.msg)) ||
         tp_py_put_obj(d, "default_bindings", Py_NewRef(m.defaults))))
        Py_CLEAR(d);
    tp_py_model_release(&m);
    return d;
}
