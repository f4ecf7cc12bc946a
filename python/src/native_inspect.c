/* tensorplan._native: inspect — the ONNX file's summary, and its inputs' and outputs' sizes
 * once its shapes are inferred and its dims bound. */
#include "native.h"

#include <string.h>

/* {name, elem_type, dtype, shape, size_bytes}: shape entries are ints, dim names or None;
 * size_bytes from the bound graph (None when unknown). */
static PyObject *value_dict(const tp_onnx_value_info *v, const tp_graph *g) {
    tp_dtype dt;
    PyObject *dtype = tp_onnx_elem_type_to_dtype(v->elem_type, &dt, NULL) == TP_OK
                          ? PyUnicode_FromString(tp_dtype_name(dt))
                          : Py_NewRef(Py_None);
    PyObject *shape = v->rank < 0 ? Py_NewRef(Py_None) : PyList_New(0);
    for (int32_t i = 0; shape && shape != Py_None && i < v->rank; i++) {
        PyObject *e = v->dims[i].param        ? PyUnicode_FromString(v->dims[i].param)
                      : v->dims[i].value >= 0 ? PyLong_FromLongLong(v->dims[i].value)
                                              : Py_NewRef(Py_None);
        if (tp_py_append(shape, e) != 0) Py_CLEAR(shape);
    }
    tp_node_id id;
    uint64_t bytes = 0;
    PyObject *size = g && tp_graph_find(g, v->name, &id, NULL) == TP_OK &&
                             tp_graph_node_bytes(g, id, &bytes, NULL) == TP_OK
                         ? PyLong_FromUnsignedLongLong(bytes)
                         : Py_NewRef(Py_None);
    PyObject *d = dtype && shape && size ? PyDict_New() : NULL;
    if (d && (tp_py_put_str(d, "name", v->name) ||
              tp_py_put_str(d, "elem_type", tp_onnx_elem_type_name(v->elem_type)) ||
              tp_py_put_obj(d, "dtype", Py_NewRef(dtype)) ||
              tp_py_put_obj(d, "shape", Py_NewRef(shape)) ||
              tp_py_put_obj(d, "size_bytes", Py_NewRef(size))))
        Py_CLEAR(d);
    Py_XDECREF(dtype);
    Py_XDECREF(shape);
    Py_XDECREF(size);
    return d;
}

static int put_info(PyObject *d, const tp_onnx_info *in, const tp_graph *g) {
    PyObject *opsets = PyList_New(0), *ins = PyList_New(0), *outs = PyList_New(0),
             *ops = PyDict_New();
    int bad = !opsets || !ins || !outs || !ops;
    for (uint32_t i = 0; !bad && i < in->n_opsets; i++)
        bad = tp_py_append(opsets, Py_BuildValue("{sssL}", "domain", in->opsets[i].domain,
                                                 "version", (long long)in->opsets[i].version));
    for (uint32_t i = 0; !bad && i < in->n_inputs; i++)
        bad = tp_py_append(ins, value_dict(in->inputs[i], g));
    for (uint32_t i = 0; !bad && i < in->n_outputs; i++)
        bad = tp_py_append(outs, value_dict(&in->outputs[i], g));
    for (uint32_t i = 0; !bad && i < in->n_ops; i++)
        bad = tp_py_put_u64(ops, in->ops[i].op_type, in->ops[i].count);
    bad = bad || tp_py_put_u64(d, "file_bytes", in->file_bytes);
    bad = bad || tp_py_put_i64(d, "ir_version", in->ir_version);
    bad = bad || tp_py_put_str(d, "producer_name", in->producer_name);
    bad = bad || tp_py_put_str(d, "producer_version", in->producer_version);
    bad = bad || tp_py_put_str(d, "graph_name", in->graph_name);
    bad = bad || tp_py_put_i64(d, "opset", in->opset);
    bad = bad || tp_py_put_obj(d, "opsets", Py_NewRef(opsets));
    bad = bad || tp_py_put_obj(d, "inputs", Py_NewRef(ins));
    bad = bad || tp_py_put_obj(d, "outputs", Py_NewRef(outs));
    bad = bad || tp_py_put_u64(d, "n_nodes", in->n_nodes);
    bad = bad || tp_py_put_u64(d, "n_nodes_total", in->n_nodes_total);
    bad = bad || tp_py_put_u64(d, "n_subgraphs", in->n_subgraphs);
    bad = bad || tp_py_put_obj(d, "ops", Py_NewRef(ops));
    bad = bad ||
          tp_py_put_obj(d, "params",
                        Py_BuildValue("{sKsKsKsKsKsK}", "count", (unsigned long long)in->n_params,
                                      "elements", (unsigned long long)in->param_elements, "bytes",
                                      (unsigned long long)in->param_bytes, "unique_bytes",
                                      (unsigned long long)in->unique_param_bytes, "external_bytes",
                                      (unsigned long long)in->external_bytes, "external_count",
                                      (unsigned long long)in->n_external));
    Py_XDECREF(opsets);
    Py_XDECREF(ins);
    Py_XDECREF(outs);
    Py_XDECREF(ops);
    return bad ? -1 : 0;
}

PyObject *tp_py_inspect(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *model, *load, *dims;
    if (!PyArg_ParseTuple(args, "OO", &model, &load)) return NULL;
    const char *path = NULL;
    char *data = NULL;
    Py_ssize_t size = 0;
    if (PyBytes_Check(model)) {
        if (PyBytes_AsStringAndSize(model, &data, &size) != 0) return NULL;
    } else if (!PyUnicode_Check(model) || !(path = PyUnicode_AsUTF8AndSize(model, NULL))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "model must be a path (str) or the model's bytes");
        return NULL;
    }
    tp_py_load l;
    if (tp_py_load_read(load, &l, &dims) != 0) return NULL;
    tp_onnx_model *om = NULL;
    tp_onnx_info info;
    tp_py_model m = {NULL, 0, NULL};
    tp_error err, conv;
    tp_error_clear(&err);
    tp_error_clear(&conv);
    tp_status st, cs = TP_OK;
    Py_BEGIN_ALLOW_THREADS;
    st = path ? tp_onnx_model_open(path, &l.opt, NULL, &om, &err)
              : tp_onnx_model_open_memory(data, (size_t)size, &l.opt, NULL, &om, &err);
    if (st == TP_OK) st = tp_onnx_model_info(om, &info, &err);
    if (st == TP_OK) cs = tp_onnx_model_to_graph(om, &l.opt, NULL, &m.g, &conv);
    Py_END_ALLOW_THREADS;
    tp_py_load_free(&l);
    if (st != TP_OK) {
        tp_onnx_model_destroy(om);
        return tp_py_raise(&err, st);
    }
    /* a model whose shapes cannot be inferred is still described (shape_error says why) */
    if (cs == TP_OK && tp_py_model_bind(&m, dims) != 0) {
        tp_py_model_release(&m);
        tp_onnx_model_destroy(om);
        return NULL;
    }
    PyObject *d = PyDict_New();
    if (d &&
        (put_info(d, &info, m.g) || tp_py_put_bool(d, "shapes_inferred", cs == TP_OK) ||
         tp_py_put_obj(d, "shape_error",
                       cs == TP_OK ? Py_NewRef(Py_None) : PyUnicode_FromString(conv.msg)) ||
         tp_py_put_obj(d, "default_bindings", m.defaults ? Py_NewRef(m.defaults) : PyList_New(0))))
        Py_CLEAR(d);
    tp_py_model_release(&m);
    tp_onnx_model_destroy(om);
    return d;
}
