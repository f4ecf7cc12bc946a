/* tensorplan._native: the module, errors and small helpers, plan and alloc (model loading:
 * native_load.c). */
#include "native.h"

#include <stdlib.h>
#include <string.h>

static PyObject *error_class = NULL;

PyObject *tp_py_raise(const tp_error *err, tp_status s) {
    PyObject *cls = error_class ? error_class : PyExc_RuntimeError;
    PyObject *node = err->node == TP_NO_NODE ? Py_NewRef(Py_None) : PyLong_FromLongLong(err->node);
    PyObject *off =
        err->offset == TP_NO_OFFSET ? Py_NewRef(Py_None) : PyLong_FromUnsignedLongLong(err->offset);
    PyObject *exc =
        node && off ? PyObject_CallFunction(cls, "ssOO", tp_status_name(s),
                                            err->msg[0] ? err->msg : tp_status_str(s), node, off)
                    : NULL;
    Py_XDECREF(node);
    Py_XDECREF(off);
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

/* ---- helpers ---- */

int tp_py_put_obj(PyObject *d, const char *key, PyObject *o) {
    int r = o ? PyDict_SetItemString(d, key, o) : -1;
    Py_XDECREF(o);
    return r;
}
int tp_py_put_u64(PyObject *d, const char *key, unsigned long long v) {
    return tp_py_put_obj(d, key, PyLong_FromUnsignedLongLong(v));
}
int tp_py_put_i64(PyObject *d, const char *key, long long v) {
    return tp_py_put_obj(d, key, PyLong_FromLongLong(v));
}
int tp_py_put_f64(PyObject *d, const char *key, double v) {
    return tp_py_put_obj(d, key, PyFloat_FromDouble(v));
}
int tp_py_put_str(PyObject *d, const char *key, const char *s) {
    return tp_py_put_obj(d, key, PyUnicode_FromString(s ? s : ""));
}
int tp_py_put_bool(PyObject *d, const char *key, int v) {
    return tp_py_put_obj(d, key, PyBool_FromLong(v));
}
int tp_py_append(PyObject *list, PyObject *o) {
    int r = o ? PyList_Append(list, o) : -1;
    Py_XDECREF(o);
    return r;
}

int tp_py_put_assumptions(PyObject *d, const tp_graph *g) {
    PyObject *notes = PyList_New(0), *bounded = PyList_New(0);
    int bad = !notes || !bounded;
    for (uint32_t k = 0; !bad && k < tp_graph_note_count(g); k++)
        bad = tp_py_append(notes, PyUnicode_FromString(tp_graph_note(g, k))) != 0;
    for (uint32_t k = 0; !bad && k < tp_graph_symbol_count(g); k++) {
        int64_t v;
        const char *why;
        if (!tp_graph_symbol_upper(g, k, &v, &why)) continue;
        bad = tp_py_append(bounded, Py_BuildValue("{sssLss}", "symbol", tp_graph_symbol_name(g, k),
                                                  "value", (long long)v, "why", why)) != 0;
    }
    if (!bad) bad = tp_py_put_obj(d, "notes", Py_NewRef(notes));
    if (!bad) bad = tp_py_put_obj(d, "bounded_dims", Py_NewRef(bounded));
    Py_XDECREF(notes);
    Py_XDECREF(bounded);
    return bad ? -1 : 0;
}

int tp_py_default_budget(unsigned long long *out, char *how, size_t cap) {
    tp_env_options env;
    tp_env_options_read(&env);
    tp_host_memory hm;
    tp_error err;
    tp_error_clear(&err);
    tp_budget_source src;
    uint64_t b = 0;
    tp_status st = tp_sysmem_host(&hm, &err);
    if (st == TP_OK)
        st = tp_sysmem_soft_budget_from(hm.available_bytes, env.soft_memory_fraction,
                                        env.memory_budget_bytes, &b, &src, &err);
    if (st != TP_OK) {
        tp_error_prefix(&err, "cannot determine the default budget (pass budget=): ");
        tp_py_raise(&err, st);
        return -1;
    }
    if (src == TP_BUDGET_BYTES_ENV)
        snprintf(how, cap, "from %s", TP_ENV_MEMORY_BUDGET_BYTES);
    else
        snprintf(how, cap, "soft budget: %s x available host memory %llu bytes",
                 src == TP_BUDGET_FRACTION_ENV ? env.soft_memory_fraction : "0.80",
                 (unsigned long long)hm.available_bytes);
    *out = b;
    return 0;
}

int tp_py_budget(PyObject *budget, unsigned long long *out, char *how, size_t cap) {
    if (budget == Py_None) return tp_py_default_budget(out, how, cap);
    *out = PyLong_AsUnsignedLongLong(budget);
    if (PyErr_Occurred()) return -1;
    snprintf(how, cap, "budget");
    return 0;
}

int tp_py_plan_options(const char *algo, unsigned long long align, double time_limit,
                       tp_plan_options *po) {
    tp_plan_options_default(po);
    tp_env_options env;
    tp_env_options_read(&env);
    tp_env_apply_plan(&env, po);
    if (time_limit >= 0) po->time_limit_s = time_limit;
    if (algo) {
        tp_error err;
        tp_error_clear(&err);
        tp_status st = tp_alloc_algo_parse(algo, &po->algo, &err);
        if (st != TP_OK) return tp_py_raise(&err, st), -1;
    }
    if (align) po->alignment = align;
    return 0;
}

/* ---- plan ---- */

static PyObject *plan_dict(const tp_graph *g, const tp_plan *p, const tp_plan_options *po) {
    const tp_alloc_result *r = tp_plan_alloc_result(p);
    uint64_t lb = tp_plan_lower_bound_bytes(p), arena = tp_plan_arena_bytes(p);
    PyObject *d = PyDict_New(), *slots = PyList_New(0);
    int bad = !d || !slots;
    bad = bad || tp_py_put_str(d, "algo", tp_alloc_algo_name(r->algo_used));
    bad = bad || tp_py_put_u64(d, "alignment", po->alignment);
    bad = bad || tp_py_put_u64(d, "nodes", tp_graph_node_count(g));
    bad = bad || tp_py_put_u64(d, "arena_bytes", arena);
    bad = bad || tp_py_put_u64(d, "lower_bound_bytes", lb);
    bad = bad || tp_py_put_f64(d, "arena_over_lower_bound", lb ? (double)arena / (double)lb : 1.0);
    bad = bad || tp_py_put_u64(d, "unshared_bytes", tp_plan_unshared_bytes(p));
    bad = bad || tp_py_put_u64(d, "saved_bytes", tp_plan_saved_bytes(p));
    bad = bad || tp_py_put_u64(d, "inplace_saved_bytes", tp_plan_inplace_saved_bytes(p));
    bad = bad || tp_py_put_bool(d, "optimal", r->optimal);
    for (uint32_t k = 0; !bad && k < tp_plan_slot_count(p); k++) {
        const tp_slot *s = tp_plan_slot(p, k);
        const tp_node *n = tp_graph_node(g, s->node);
        bad = tp_py_append(slots,
                           Py_BuildValue("(LssKKLLOOL)", (long long)s->node, n->name,
                                         tp_op_name(&n->op), (unsigned long long)s->offset,
                                         (unsigned long long)s->size, (long long)s->birth,
                                         (long long)s->death, s->is_view ? Py_True : Py_False,
                                         s->inplace ? Py_True : Py_False, (long long)s->root)) != 0;
    }
    if (!bad) bad = tp_py_put_obj(d, "slots", Py_NewRef(slots));
    Py_XDECREF(slots);
    if (bad) Py_CLEAR(d);
    return d;
}

PyObject *tp_py_plan(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *model, *load;
    const char *algo = NULL;
    unsigned long long align = 0;
    double time_limit = -1;
    if (!PyArg_ParseTuple(args, "OO|zKd", &model, &load, &algo, &align, &time_limit)) return NULL;
    tp_plan_options po;
    if (tp_py_plan_options(algo, align, time_limit, &po) != 0) return NULL;
    /* as `tensorplan plan`: the best heuristic, then a short exact search (0.25 s unless
     * time_limit says otherwise), so plans are proven optimal where the search can show it */
    if (!algo && po.algo == TP_ALGO_GREEDY_SIZE) {
        po.algo = TP_ALGO_AUTO;
        if (time_limit < 0) po.time_limit_s = 0.25;
    } else if (time_limit < 0) {
        po.time_limit_s = 0.25;
    }
    tp_py_model m;
    if (tp_py_model_load(model, load, &m) != 0) return NULL;
    tp_plan *p = NULL;
    tp_error err;
    tp_error_clear(&err);
    tp_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = tp_plan_graph(m.g, &po, &p, &err);
    Py_END_ALLOW_THREADS;
    PyObject *d = st == TP_OK ? plan_dict(m.g, p, &po) : tp_py_raise(&err, st);
    if (d && tp_py_put_obj(d, "default_bindings", Py_NewRef(m.defaults)) != 0) Py_CLEAR(d);
    tp_plan_destroy(p);
    tp_py_model_release(&m);
    return d;
}

/* ---- alloc ---- */

static int read_buffers(PyObject *seq, tp_buffer **out, size_t *count) {
    PyObject *fast = PySequence_Fast(seq, "buffers must be a sequence of (size, birth, death)");
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Size(fast);
    tp_buffer *b = n >= 0 ? calloc(n ? (size_t)n : 1, sizeof *b) : NULL;
    if (!b) {
        Py_DECREF(fast);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PySequence_GetItem(fast, i);
        unsigned long long size = 0;
        long long birth = 0, death = 0;
        int ok = t && PyArg_ParseTuple(t, "KLL", &size, &birth, &death);
        Py_XDECREF(t);
        if (!ok) {
            free(b);
            Py_DECREF(fast);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "buffer: (size, birth, death)");
            return -1;
        }
        b[i] = (tp_buffer){
            .size = size, .birth = birth, .death = death, .fixed_offset = -1, .id = (int64_t)i};
    }
    Py_DECREF(fast);
    *out = b;
    *count = (size_t)n;
    return 0;
}

PyObject *tp_py_alloc(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *seq;
    const char *algo = NULL;
    unsigned long long align = 0;
    if (!PyArg_ParseTuple(args, "O|zK", &seq, &algo, &align)) return NULL;
    tp_buffer *b;
    size_t n;
    if (read_buffers(seq, &b, &n) != 0) return NULL;
    uint64_t *off = calloc(n ? n : 1, sizeof *off);
    if (!off) {
        free(b);
        return PyErr_NoMemory();
    }
    tp_alloc_options o;
    tp_alloc_options_default(&o);
    tp_env_options env;
    tp_env_options_read(&env);
    tp_env_apply_alloc(&env, &o);
    tp_error err;
    tp_error_clear(&err);
    tp_status st = algo ? tp_alloc_algo_parse(algo, &o.algo, &err) : TP_OK;
    if (align) o.alignment = align;
    tp_alloc_result r;
    if (st == TP_OK) {
        Py_BEGIN_ALLOW_THREADS;
        st = tp_alloc_plan(b, n, &o, NULL, off, &r, &err);
        Py_END_ALLOW_THREADS;
    }
    free(b);
    PyObject *offsets = st == TP_OK ? PyList_New((Py_ssize_t)n) : NULL;
    for (size_t i = 0; offsets && i < n; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(off[i]);
        if (!v || PyList_SetItem(offsets, (Py_ssize_t)i, v) != 0) Py_CLEAR(offsets);
    }
    free(off);
    if (st != TP_OK) return tp_py_raise(&err, st);
    if (!offsets) return NULL;
    PyObject *d = PyDict_New();
    if (!d || tp_py_put_u64(d, "buffers", n) || tp_py_put_obj(d, "offsets", offsets) ||
        tp_py_put_u64(d, "arena_bytes", r.arena_bytes) ||
        tp_py_put_u64(d, "lower_bound_bytes", r.lower_bound_bytes) ||
        (r.lower_bound_bytes /* arena / LB; None for a zero bound, as the CLI's null */
             ? tp_py_put_f64(d, "ratio", (double)r.arena_bytes / (double)r.lower_bound_bytes)
             : tp_py_put_obj(d, "ratio", Py_NewRef(Py_None))) ||
        tp_py_put_str(d, "algorithm", tp_alloc_algo_name(r.algo_used)) ||
        tp_py_put_bool(d, "optimal", r.optimal)) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

/* ---- module ---- */

static PyObject *py_version(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    return PyUnicode_FromString(tp_version());
}

static PyObject *py_default_budget(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    unsigned long long b;
    char how[256];
    if (tp_py_default_budget(&b, how, sizeof how) != 0) return NULL;
    return Py_BuildValue("(Ks)", b, how);
}

static PyMethodDef methods[] = {
    {"_set_error_class", set_error_class, METH_O, "Register the exception class."},
    {"plan", tp_py_plan, METH_VARARGS, "plan(model, load, algo, align, time_limit) -> dict"},
    {"estimate", tp_py_estimate, METH_VARARGS,
     "estimate(model, load, budget, algo, align, runtime, ort) -> dict"},
    {"fit", tp_py_fit, METH_VARARGS, "fit(model, load, symbol, budget, lo, hi) -> dict"},
    {"alloc", tp_py_alloc, METH_VARARGS, "alloc(buffers, algo=None, align=0) -> dict"},
    {"inspect", tp_py_inspect, METH_VARARGS, "inspect(model, load) -> dict"},
    {"cost", tp_py_cost, METH_VARARGS, "cost(model, load, devices, dtype, quick) -> dict"},
    {"report", tp_py_report, METH_VARARGS, "report(model, load, budget, devices, top) -> dict"},
    {"html_page", tp_py_html_page, METH_VARARGS, "html_page(title, svg, tables) -> str"},
    {"default_budget", py_default_budget, METH_NOARGS, "(bytes, where it came from)"},
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
