/* tensorplan._native: a graph from a path or bytes, with the importer's options (dims known
 * before loading, values of graph inputs) and the bindings. */
#include "native.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void tp_py_load_free(tp_py_load *l) {
    for (uint32_t k = 0; k < l->n_values; k++) {
        free((int64_t *)l->values[k].values);
        free((double *)l->values[k].float_values);
    }
    for (uint32_t k = 0; k < l->n_dims; k++)
        free((char *)l->dims[k]);
    free(l->values);
    free(l->dims);
    memset(l, 0, sizeof *l);
}

/* "name=value" strings of dims for tp_onnx_options.dims (an If on a dim is decided while
 * converting, as the CLI's --dim does). */
static int read_dims(PyObject *dims, tp_py_load *l) {
    Py_ssize_t n = PyDict_Size(dims);
    if (n <= 0) return 0;
    if ((size_t)n > UINT32_MAX || !(l->dims = calloc((size_t)n, sizeof *l->dims))) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(dims, &pos, &k, &v)) {
        const char *name = PyUnicode_Check(k) ? PyUnicode_AsUTF8AndSize(k, NULL) : NULL;
        long long val = PyLong_Check(v) ? PyLong_AsLongLong(v) : -1;
        if (!name || PyErr_Occurred() || val < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "dims: names are str, values ints >= 0");
            return -1;
        }
        int len = snprintf(NULL, 0, "%s=%lld", name, val);
        char *s = len < 0 ? NULL : malloc((size_t)len + 1);
        if (!s) {
            PyErr_NoMemory();
            return -1;
        }
        snprintf(s, (size_t)len + 1, "%s=%lld", name, val);
        l->dims[l->n_dims++] = s;
    }
    return 0;
}

/* One input's values: a list of ints (int64) or of floats (finite doubles), as _api.py makes. */
static int read_value(PyObject *name, PyObject *list, tp_onnx_input_value *iv) {
    const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
    if (!s || !PyList_Check(list)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "input_values: {name: [numbers]}");
        return -1;
    }
    Py_ssize_t n = PyList_Size(list);
    if (n < 1 || n > 1024) {
        PyErr_Format(PyExc_ValueError, "input_values[%s]: 1 to 1024 values, got %zd", s, n);
        return -1;
    }
    bool ints = true;
    for (Py_ssize_t i = 0; i < n; i++)
        ints = ints && PyLong_Check(PyList_GetItem(list, i));
    iv->name = s; /* borrowed from the dict's key, alive for the call */
    iv->count = (uint32_t)n;
    int64_t *iv_ints = ints ? calloc((size_t)n, sizeof *iv_ints) : NULL;
    double *iv_reals = ints ? NULL : calloc((size_t)n, sizeof *iv_reals);
    iv->values = iv_ints;
    iv->float_values = iv_reals;
    if (!iv_ints && !iv_reals) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyList_GetItem(list, i);
        if (ints)
            iv_ints[i] = PyLong_AsLongLong(x);
        else
            iv_reals[i] = PyFloat_AsDouble(x);
        double d = ints ? 0.0 : iv_reals[i];
        if (PyErr_Occurred() || d != d || d - d != 0) { /* NaN, inf */
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError,
                         "input_values[%s]: value %zd is not an int64 or a finite float", s, i + 1);
            return -1;
        }
    }
    return 0;
}

int tp_py_load_read(PyObject *load, tp_py_load *l, PyObject **dims) {
    memset(l, 0, sizeof *l);
    if (!load || !PyTuple_Check(load) || PyTuple_Size(load) != 2) {
        PyErr_SetString(PyExc_TypeError, "load: (dims, input_values)");
        return -1;
    }
    *dims = PyTuple_GetItem(load, 0);
    PyObject *values = PyTuple_GetItem(load, 1);
    if (*dims == Py_None) *dims = NULL;
    if (*dims && !PyDict_Check(*dims)) {
        PyErr_SetString(PyExc_TypeError, "dims must be a dict {name: int}");
        return -1;
    }
    if (*dims && read_dims(*dims, l) != 0) goto fail;
    if (values != Py_None) {
        if (!PyDict_Check(values)) {
            PyErr_SetString(PyExc_TypeError, "input_values must be a dict {name: [numbers]}");
            goto fail;
        }
        Py_ssize_t n = PyDict_Size(values);
        if (n > 0 &&
            ((size_t)n > UINT32_MAX || !(l->values = calloc((size_t)n, sizeof *l->values)))) {
            PyErr_NoMemory();
            goto fail;
        }
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (PyDict_Next(values, &pos, &k, &v)) {
            int bad = read_value(k, v, &l->values[l->n_values]);
            l->n_values++; /* freed with the rest, filled or not */
            if (bad) goto fail;
        }
    }
    tp_onnx_options_init(&l->opt);
    l->opt.dims = (const char *const *)l->dims;
    l->opt.n_dims = l->n_dims;
    l->opt.input_values = l->values;
    l->opt.n_input_values = l->n_values;
    return 0;
fail:
    tp_py_load_free(l);
    return -1;
}

static int bind_dims(tp_graph *g, PyObject *dims) {
    if (!dims) return 0;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(dims, &pos, &k, &v)) {
        const char *name = PyUnicode_AsUTF8AndSize(k, NULL); /* checked by tp_py_load_read */
        long long val = PyLong_AsLongLong(v);
        if (!name || PyErr_Occurred()) return -1;
        tp_error err;
        tp_error_clear(&err);
        tp_status st = tp_graph_bind(g, name, (int64_t)val, &err);
        if (st != TP_OK) {
            tp_error_prefix(&err, "dims[%s]: ", name);
            tp_py_raise(&err, st);
            return -1;
        }
    }
    return 0;
}

int tp_py_model_load(PyObject *model, PyObject *load, tp_py_model *m) {
    memset(m, 0, sizeof *m);
    const char *path = NULL;
    char *data = NULL;
    Py_ssize_t size = 0;
    if (PyBytes_Check(model)) {
        if (PyBytes_AsStringAndSize(model, &data, &size) != 0) return -1;
    } else if (PyUnicode_Check(model)) {
        if (!(path = PyUnicode_AsUTF8AndSize(model, NULL))) return -1;
    } else {
        PyErr_SetString(PyExc_TypeError, "model must be a path (str) or the model's bytes");
        return -1;
    }
    tp_py_load l;
    PyObject *dims;
    if (tp_py_load_read(load, &l, &dims) != 0) return -1;
    tp_error err;
    tp_error_clear(&err);
    tp_status st;
    Py_BEGIN_ALLOW_THREADS;
    if (path)
        st = tp_onnx_load(path, &l.opt, NULL, &m->g, &err);
    else
        st = tp_onnx_load_memory(data, (size_t)size, &l.opt, NULL, &m->g, &err);
    Py_END_ALLOW_THREADS;
    tp_py_load_free(&l);
    if (st != TP_OK) return tp_py_raise(&err, st), -1;
    m->file_bytes = (uint64_t)size;
    struct stat sb;
    if (path && stat(path, &sb) == 0 && sb.st_size > 0) m->file_bytes = (uint64_t)sb.st_size;
    if (tp_py_model_bind(m, dims) != 0) {
        tp_py_model_release(m);
        return -1;
    }
    return 0;
}

int tp_py_model_bind(tp_py_model *m, PyObject *dims) {
    if (bind_dims(m->g, dims) != 0) return -1;
    tp_error err;
    tp_error_clear(&err);
    uint32_t bound[64], n = 0;
    tp_status st = tp_graph_bind_defaults(m->g, bound, 64, &n, &err);
    if (st != TP_OK) return tp_py_raise(&err, st), -1;
    if (!(m->defaults = PyList_New(0))) return -1;
    for (uint32_t i = 0; i < n && i < 64; i++)
        if (tp_py_append(m->defaults, PyUnicode_FromString(tp_graph_symbol_name(m->g, bound[i]))))
            return -1;
    return 0;
}

void tp_py_model_release(tp_py_model *m) {
    tp_graph_destroy(m->g);
    Py_CLEAR(m->defaults);
    m->g = NULL;
}
