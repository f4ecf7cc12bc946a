/* tensorplan._native: shared helpers of the binding's C files.
 *
 * A CPython extension on the stable ABI (Py_LIMITED_API 3.10): one binary serves every
 * CPython >= 3.10. Functions take and return plain Python objects (str/bytes, dicts,
 * lists, ints) whose keys are the terms of the CLI's JSON (docs/json.md);
 * tensorplan/_api.py turns them into dataclasses. Only the public headers in include/
 * are used. The GIL is released while the library loads, plans, estimates, predicts or
 * allocates: every such call works on objects owned by the calling thread only. */
#ifndef TP_PY_NATIVE_H
#define TP_PY_NATIVE_H

#define Py_LIMITED_API 0x030A0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "tensorplan.h"

/* Raise the registered exception class (code, message, node, offset) from err/s;
 * returns NULL. */
PyObject *tp_py_raise(const tp_error *err, tp_status s);

/* A loaded, bound graph and what the caller needs to say about it. */
typedef struct tp_py_model {
    tp_graph *g;
    uint64_t
        file_bytes; /* the model file's size (a path) or the bytes given: onnxruntime holds it */
    PyObject *defaults; /* list of the dim names bound to 1 by default (new reference) */
} tp_py_model;

/* What the importer is told before converting: dims known before loading ("name=value",
 * tp_onnx_options.dims) and values of graph inputs (tp_onnx_options.input_values). Every
 * array is owned; names of values are borrowed from the Python dict given. */
typedef struct tp_py_load {
    tp_onnx_options opt;
    char **dims;
    uint32_t n_dims;
    tp_onnx_input_value *values;
    uint32_t n_values;
} tp_py_load;

/* Read load, a tuple (dims, input_values): dims {name: int} or None, input_values None or
 * {name: [int, ...] | [float, ...]} (tensorplan/_api.py's _load makes it),
 * into l (opt ready to pass) and *dims (borrowed; NULL for none). 0, or -1 with the exception
 * set (nothing to release). Release l with tp_py_load_free once the importer returned. */
int tp_py_load_read(PyObject *load, tp_py_load *l, PyObject **dims);
void tp_py_load_free(tp_py_load *l);

/* Load a model from a path (str) or its bytes with load's importer options, bind its dims
 * and the default bindings. 0, or -1 with the exception set (nothing to release). */
int tp_py_model_load(PyObject *model, PyObject *load, tp_py_model *m);
/* Bind dims ({name: int} or NULL, as tp_py_load_read gives it) and the defaults on m->g
 * (already loaded); fills m->defaults. 0, or -1 with the exception set (the caller releases
 * m). */
int tp_py_model_bind(tp_py_model *m, PyObject *dims);
void tp_py_model_release(tp_py_model *m);

/* Plan options (environment applied) with an algorithm name (NULL = default), an
 * alignment (0 = default) and a search time limit for exact/auto (< 0 = default).
 * 0, or -1 with the exception set. */
int tp_py_plan_options(const char *algo, unsigned long long align, double time_limit,
                       tp_plan_options *po);

/* d[key] = value; each returns 0, or -1 with the exception set. put_obj steals o
 * (NULL o: -1, the exception already set by whoever failed to make it). */
int tp_py_put_u64(PyObject *d, const char *key, unsigned long long v);
int tp_py_put_i64(PyObject *d, const char *key, long long v);
int tp_py_put_f64(PyObject *d, const char *key, double v);
int tp_py_put_str(PyObject *d, const char *key, const char *s);
int tp_py_put_bool(PyObject *d, const char *key, int v);
int tp_py_put_obj(PyObject *d, const char *key, PyObject *o);
/* Append o to list (steals o); 0 or -1. */
int tp_py_append(PyObject *list, PyObject *o);

/* notes[] and bounded_dims[] of {symbol, value, why} of a graph into d. */
int tp_py_put_assumptions(PyObject *d, const tp_graph *g);

/* The default budget: TENSORPLAN_MEMORY_BUDGET_BYTES, else the soft fraction
 * (TENSORPLAN_SOFT_MEMORY_FRACTION, default 0.80) of available host memory.
 * how receives where it came from. 0, or -1 with the exception set. */
int tp_py_default_budget(unsigned long long *out, char *how, size_t cap);

/* budget (an int, or None for the default budget) into *out and how. 0 or -1. */
int tp_py_budget(PyObject *budget, unsigned long long *out, char *how, size_t cap);

/* Module functions, one C file per concept. */
PyObject *tp_py_estimate(PyObject *self, PyObject *args);
PyObject *tp_py_fit(PyObject *self, PyObject *args);
PyObject *tp_py_plan(PyObject *self, PyObject *args);
PyObject *tp_py_alloc(PyObject *self, PyObject *args);
PyObject *tp_py_inspect(PyObject *self, PyObject *args);
PyObject *tp_py_cost(PyObject *self, PyObject *args);
PyObject *tp_py_report(PyObject *self, PyObject *args);
PyObject *tp_py_html_page(PyObject *self, PyObject *args);

/* Device prediction shared by cost() and report(): a list of dicts
 * {request, available, model{} | reason, total_ns, ...} and the choice (a device
 * name, or NULL with *why set). 0, or -1 with the exception set (model errors). */
int tp_py_predict(const tp_graph *g, PyObject *devices, const char *dtype, int quick,
                  PyObject **out_list, PyObject **out_choice);

#endif
