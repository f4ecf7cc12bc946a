/* tensorplan._native: the C library's planner and estimator for Python.
 *
 * A CPython extension on the stable ABI (Py_LIMITED_API 3.10): one binary serves every
 * CPython >= 3.10, and it needs nothing at build time beyond a C compiler and the
 * Python headers. It takes and returns plain Python objects (str/bytes, dicts, lists,
 * ints); tensorplan/__init__.py turns them into dataclasses. Errors become the
 * exception class registered with _set_error_class(code, message, node, offset).
 * The GIL is released while the library loads, plans, estimates or allocates. */
#define Py_LIMITED_API 0x030A0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>

#include "tensorplan.h"

static PyObject *error_class = NULL;

static PyObject *raise(const tp_error *err, tp_status s) {
    PyObject *cls = error_class ? error_class : PyExc_RuntimeError;
    PyObject *exc = PyObject_CallFunction(cls, "ssLK", tp_status_name(s),
                                          err->msg[0] ? err->msg : tp_status_str(s),
                                          (long long)err->node, (unsigned long long)err->offset);
    if (exc) {
        PyErr_SetObject(cls, exc);
        Py_DECREF(exc);
    }
    return NULL;
}

static PyObject *set_error_class(PyObject *self, PyObject *arg) {
    (void)self;
    Py_XINCREF(arg);
    Py_XDECREF(error_class);
    error_class = arg;
    Py_RETURN_NONE;
}

/* ---- a graph from a path or bytes, with bindings ---- */

typedef struct src {
    const char *path;
    const char *data;
    Py_ssize_t size;
} src;

static int parse_src(PyObject *model, src *s) {
    memset(s, 0, sizeof *s);
    if (PyBytes_Check(model)) {
        char *d;
        if (PyBytes_AsStringAndSize(model, &d, &s->size) != 0) return -1;
        s->data = d;
        return 0;
    }
    if (PyUnicode_Check(model)) {
        s->path = PyUnicode_AsUTF8AndSize(model, NULL);
        return s->path ? 0 : -1;
    }
    PyErr_SetString(PyExc_TypeError, "model must be a path (str) or the model's bytes");
    return -1;
}

/* Load and bind; batch-like/unnamed dims left unbound get 1. NULL with the
 * exception set. *defaults receives the names bound by default (new list). */
static tp_graph *load_graph(PyObject *model, PyObject *dims, PyObject **defaults) {
    src s;
    *defaults = NULL;
    if (parse_src(model, &s) != 0) return NULL;
    tp_graph *g = NULL;
    tp_error err;
    tp_error_clear(&err);
    tp_status st;
    Py_BEGIN_ALLOW_THREADS;
    if (s.path)
        st = tp_onnx_load(s.path, NULL, NULL, &g, &err);
    else
        st = tp_onnx_load_memory(s.data, (size_t)s.size, NULL, NULL, &g, &err);
    Py_END_ALLOW_THREADS;
    if (st != TP_OK) return raise(&err, st), NULL;
    if (dims && dims != Py_None) {
        if (!PyDict_Check(dims)) {
            tp_graph_destroy(g);
            PyErr_SetString(PyExc_TypeError, "dims must be a dict {name: int}");
            return NULL;
        }
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (PyDict_Next(dims, &pos, &k, &v)) {
            const char *name = PyUnicode_Check(k) ? PyUnicode_AsUTF8AndSize(k, NULL) : NULL;
            long long val = PyLong_Check(v) ? PyLong_AsLongLong(v) : -1;
            if (!name || PyErr_Occurred() || val < 0) {
                tp_graph_destroy(g);
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "dims: names are str, values ints >= 0");
                return NULL;
            }
            if ((st = tp_graph_bind(g, name, (int64_t)val, &err)) != TP_OK) {
                tp_graph_destroy(g);
                return raise(&err, st), NULL;
            }
        }
    }
    uint32_t bound[64], n = 0;
    if ((st = tp_graph_bind_defaults(g, bound, 64, &n, &err)) != TP_OK) {
        tp_graph_destroy(g);
        return raise(&err, st), NULL;
    }
    *defaults = PyList_New(0);
    for (uint32_t i = 0; *defaults && i < n && i < 64; i++) {
        PyObject *nm = PyUnicode_FromString(tp_graph_symbol_name(g, bound[i]));
        if (!nm || PyList_Append(*defaults, nm) != 0) Py_CLEAR(*defaults);
        Py_XDECREF(nm);
    }
    if (!*defaults) {
        tp_graph_destroy(g);
        return NULL;
    }
    return g;
}

static int plan_options(const char *algo, unsigned long long align, tp_plan_options *po) {
    tp_plan_options_default(po);
    if (algo) {
        tp_error err;
        tp_error_clear(&err);
        tp_status st = tp_alloc_algo_parse(algo, &po->algo, &err);
        if (st != TP_OK) return raise(&err, st), -1;
    }
    if (align) po->alignment = align;
    return 0;
}

/* Set d[key] = unsigned integer; -1 on failure. */
static int put_u64(PyObject *d, const char *key, unsigned long long v) {
    PyObject *o = PyLong_FromUnsignedLongLong(v);
    int r = o ? PyDict_SetItemString(d, key, o) : -1;
    Py_XDECREF(o);
    return r;
}

static int put_obj(PyObject *d, const char *key, PyObject *o) { /* steals o */
    int r = o ? PyDict_SetItemString(d, key, o) : -1;
    Py_XDECREF(o);
    return r;
}

/* ---- plan ---- */

static PyObject *py_plan(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *model, *dims;
    const char *algo = NULL;
    unsigned long long align = 0;
    if (!PyArg_ParseTuple(args, "OO|zK", &model, &dims, &algo, &align)) return NULL;
    tp_plan_options po;
    if (plan_options(algo, align, &po) != 0) return NULL;
    PyObject *defaults;
    tp_graph *g = load_graph(model, dims, &defaults);
    if (!g) return NULL;
    tp_plan *p = NULL;
    tp_error err;
    tp_error_clear(&err);
    tp_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = tp_plan_graph(g, &po, &p, &err);
    Py_END_ALLOW_THREADS;
    if (st != TP_OK) {
        tp_graph_destroy(g);
        Py_DECREF(defaults);
        return raise(&err, st);
    }
    PyObject *d = PyDict_New(), *slots = PyList_New(0);
    int bad = !d || !slots;
    bad = bad || put_u64(d, "arena_bytes", tp_plan_arena_bytes(p));
    bad = bad || put_u64(d, "lower_bound_bytes", tp_plan_lower_bound_bytes(p));
    bad = bad || put_u64(d, "unshared_bytes", tp_plan_unshared_bytes(p));
    bad = bad || put_u64(d, "inplace_saved_bytes", tp_plan_inplace_saved_bytes(p));
    for (uint32_t k = 0; !bad && k < tp_plan_slot_count(p); k++) {
        const tp_slot *s = tp_plan_slot(p, k);
        const tp_node *n = tp_graph_node(g, s->node);
        PyObject *row =
            Py_BuildValue("(sKKLLOO)", n && n->name ? n->name : "", (unsigned long long)s->offset,
                          (unsigned long long)s->size, (long long)s->birth, (long long)s->death,
                          s->is_view ? Py_True : Py_False, s->inplace ? Py_True : Py_False);
        bad = !row || PyList_Append(slots, row) != 0;
        Py_XDECREF(row);
    }
    if (!bad) {
        Py_INCREF(slots);
        bad = put_obj(d, "slots", slots);
    }
    if (!bad) {
        Py_INCREF(defaults);
        bad = put_obj(d, "default_bindings", defaults);
    }
    Py_XDECREF(slots);
    Py_DECREF(defaults);
    tp_plan_destroy(p);
    tp_graph_destroy(g);
    if (bad) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

/* ---- estimate ---- */

static PyObject *estimate_dict(const tp_estimate *e) {
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    if (put_u64(d, "activation_bytes", e->activation_bytes) ||
        put_u64(d, "weight_bytes", e->weight_bytes) || put_u64(d, "input_bytes", e->input_bytes) ||
        put_u64(d, "peak_bytes", e->peak_bytes)) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *py_estimate(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *model, *dims;
    const char *algo = NULL;
    unsigned long long align = 0;
    if (!PyArg_ParseTuple(args, "OO|zK", &model, &dims, &algo, &align)) return NULL;
    tp_estimate_options eo;
    tp_estimate_options_default(&eo);
    if (plan_options(algo, align, &eo.plan) != 0) return NULL;
    PyObject *defaults;
    tp_graph *g = load_graph(model, dims, &defaults);
    if (!g) return NULL;
    tp_estimate e;
    tp_error err;
    tp_error_clear(&err);
    tp_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = tp_estimate_graph(g, &eo, &e, &err);
    Py_END_ALLOW_THREADS;
    tp_graph_destroy(g);
    if (st != TP_OK) {
        Py_DECREF(defaults);
        return raise(&err, st);
    }
    PyObject *d = estimate_dict(&e);
    if (!d || put_obj(d, "default_bindings", defaults) != 0) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

/* ---- fit ---- */

static PyObject *py_fit(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *model, *dims;
    const char *symbol;
    unsigned long long budget;
    long long lo = 1, hi = 0;
    if (!PyArg_ParseTuple(args, "OOsK|LL", &model, &dims, &symbol, &budget, &lo, &hi)) return NULL;
    PyObject *defaults;
    tp_graph *g = load_graph(model, dims, &defaults);
    if (!g) return NULL;
    tp_fit_options fo;
    tp_fit_options_default(&fo);
    fo.symbol = symbol;
    fo.budget_bytes = budget;
    if (lo > 0) fo.min_value = lo;
    if (hi > 0) fo.max_value = hi;
    tp_estimate_options eo;
    tp_estimate_options_default(&eo);
    tp_fit_result fr;
    tp_error err;
    tp_error_clear(&err);
    tp_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = tp_estimate_max_fit(g, &fo, &eo, &fr, &err);
    Py_END_ALLOW_THREADS;
    tp_graph_destroy(g);
    Py_DECREF(defaults);
    if (st != TP_OK) return raise(&err, st);
    PyObject *d = estimate_dict(&fr.estimate);
    if (!d) return NULL;
    PyObject *v = PyLong_FromLongLong(fr.value);
    PyObject *nv = PyLong_FromLongLong(fr.next_value);
    if (put_obj(d, "value", v) || put_obj(d, "next_value", nv) ||
        put_u64(d, "next_peak_bytes", fr.next_evaluated ? fr.next_peak_bytes : 0)) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* ---- alloc ---- */

static PyObject *py_alloc(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *seq;
    const char *algo = NULL;
    unsigned long long align = 0;
    if (!PyArg_ParseTuple(args, "O|zK", &seq, &algo, &align)) return NULL;
    PyObject *fast = PySequence_Fast(seq, "buffers must be a sequence of (size, birth, death)");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Size(fast);
    if (n < 0) {
        Py_DECREF(fast);
        return NULL;
    }
    size_t cnt = (size_t)n;
    tp_buffer *b = calloc(cnt ? cnt : 1, sizeof *b);
    uint64_t *off = calloc(cnt ? cnt : 1, sizeof *off);
    if (!b || !off) {
        free(b);
        free(off);
        Py_DECREF(fast);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PySequence_GetItem(fast, i);
        unsigned long long size = 0;
        long long birth = 0, death = 0;
        int ok = t && PyArg_ParseTuple(t, "KLL", &size, &birth, &death);
        Py_XDECREF(t);
        if (!ok) {
            free(b);
            free(off);
            Py_DECREF(fast);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "buffer: (size, birth, death)");
            return NULL;
        }
        b[i].size = size;
        b[i].birth = birth;
        b[i].death = death;
        b[i].fixed_offset = -1;
        b[i].id = (int64_t)i;
    }
    Py_DECREF(fast);
    tp_alloc_options o;
    tp_alloc_options_default(&o);
    tp_error err;
    tp_error_clear(&err);
    tp_status st = TP_OK;
    if (algo) st = tp_alloc_algo_parse(algo, &o.algo, &err);
    if (align) o.alignment = align;
    tp_alloc_result r;
    if (st == TP_OK) {
        Py_BEGIN_ALLOW_THREADS;
        st = tp_alloc_plan(b, cnt, &o, NULL, off, &r, &err);
        Py_END_ALLOW_THREADS;
    }
    free(b);
    if (st != TP_OK) {
        free(off);
        return raise(&err, st);
    }
    PyObject *offsets = PyList_New(n);
    for (Py_ssize_t i = 0; offsets && i < n; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(off[i]);
        if (!v || PyList_SetItem(offsets, i, v) != 0) Py_CLEAR(offsets);
    }
    free(off);
    if (!offsets) return NULL;
    PyObject *d = PyDict_New();
    if (!d || put_obj(d, "offsets", offsets) || put_u64(d, "arena_bytes", r.arena_bytes) ||
        put_u64(d, "lower_bound_bytes", r.lower_bound_bytes) ||
        put_obj(d, "algorithm", PyUnicode_FromString(tp_alloc_algo_name(r.algo_used))) ||
        put_obj(d, "optimal", PyBool_FromLong(r.optimal))) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

/* ---- inspect ---- */

static PyObject *py_inspect(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *model, *dims;
    if (!PyArg_ParseTuple(args, "OO", &model, &dims)) return NULL;
    PyObject *defaults;
    tp_graph *g = load_graph(model, dims, &defaults);
    if (!g) return NULL;
    PyObject *d = PyDict_New(), *ins = PyList_New(0), *outs = PyList_New(0);
    int bad = !d || !ins || !outs;
    uint32_t nn = tp_graph_node_count(g);
    for (uint32_t i = 0; !bad && i < nn; i++) {
        const tp_node *n = tp_graph_node(g, (tp_node_id)i);
        bool is_in = n->op.kind == TP_OP_INPUT, is_out = (n->flags & TP_NODE_OUTPUT) != 0;
        if (!is_in && !is_out) continue;
        char shape[256];
        uint64_t bytes = 0;
        tp_error err;
        PyObject *nb = tp_graph_node_bytes(g, (tp_node_id)i, &bytes, &err) == TP_OK
                           ? PyLong_FromUnsignedLongLong(bytes)
                           : (Py_INCREF(Py_None), Py_None);
        PyObject *row = Py_BuildValue(
            "(ssN)", n->name ? n->name : "", tp_dtype_name(n->dtype),
            PyUnicode_FromString(tp_graph_shape_str(g, &n->shape, shape, sizeof shape)));
        PyObject *full = row ? Py_BuildValue("(OO)", row, nb) : NULL;
        Py_XDECREF(row);
        Py_XDECREF(nb);
        if (full && is_in) bad = PyList_Append(ins, full) != 0;
        if (full && is_out && !bad) bad = PyList_Append(outs, full) != 0;
        if (!full) bad = 1;
        Py_XDECREF(full);
    }
    if (!bad) bad = put_u64(d, "nodes", nn);
    if (!bad) {
        Py_INCREF(ins);
        bad = put_obj(d, "inputs", ins);
    }
    if (!bad) {
        Py_INCREF(outs);
        bad = put_obj(d, "outputs", outs);
    }
    if (!bad) {
        Py_INCREF(defaults);
        bad = put_obj(d, "default_bindings", defaults);
    }
    Py_XDECREF(ins);
    Py_XDECREF(outs);
    Py_DECREF(defaults);
    tp_graph_destroy(g);
    if (bad) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *py_version(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    return PyUnicode_FromString(tp_version());
}

static PyMethodDef methods[] = {
    {"_set_error_class", set_error_class, METH_O, "Register the exception class."},
    {"plan", py_plan, METH_VARARGS, "plan(model, dims, algo=None, align=0) -> dict"},
    {"estimate", py_estimate, METH_VARARGS, "estimate(model, dims, algo=None, align=0) -> dict"},
    {"fit", py_fit, METH_VARARGS, "fit(model, dims, symbol, budget, lo=1, hi=0) -> dict"},
    {"alloc", py_alloc, METH_VARARGS, "alloc(buffers, algo=None, align=0) -> dict"},
    {"inspect", py_inspect, METH_VARARGS, "inspect(model, dims) -> dict"},
    {"version", py_version, METH_NOARGS, "The C library's version."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT,
                                    "tensorplan._native",
                                    "tensorplan's C library.",
                                    -1,
                                    methods,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL};

PyMODINIT_FUNC PyInit__native(void);
PyMODINIT_FUNC PyInit__native(void) {
    return PyModule_Create(&module);
}
