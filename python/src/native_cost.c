/* tensorplan._native: cost — predicted latency per device and the device choice.
 *
 * Device names follow the CLI's rules (docs/cost.md): "cpu" this machine, calibrated
 * (cached under $XDG_CACHE_HOME/tensorplan or ~/.cache/tensorplan); "cuda" the first CUDA
 * GPU, measured; "<kind>-default" built-in figures; any other name a catalog entry
 * (data/devices/catalog.csv, built in; CPU entries learn their efficiency from this
 * machine's calibration); "all" = cpu, cuda and every catalog device. Everything goes
 * through the public API (tensorplan/cost.h, tensorplan/env.h). */
#include "native.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_DEVICES 64

typedef struct resolver {
    tp_env_options env;
    tp_dtype dtype;
    bool quick;
    tp_catalog *catalog;
    bool have_cpu, cpu_tried, learned;
    tp_device_model cpu;
    tp_calib_info cpu_info;
    tp_error cpu_err;
} resolver;

static tp_status catalog(resolver *r, tp_error *err) {
    return r->catalog ? TP_OK : tp_catalog_load_default(NULL, &r->catalog, err);
}

static tp_status calibrate_cpu(resolver *r, tp_error *err) {
    if (!r->have_cpu && !r->cpu_tried) {
        r->cpu_tried = true;
        tp_calib_options o;
        tp_calib_options_default(&o);
        tp_env_apply_calib(&r->env, &o);
        o.quick = r->quick;
        tp_error_clear(&r->cpu_err);
        r->have_cpu = tp_calibrate_cpu_cached(&o, &r->cpu, &r->cpu_info, &r->cpu_err) == TP_OK;
    }
    if (r->have_cpu) return TP_OK;
    if (err) *err = r->cpu_err;
    return r->cpu_err.status ? r->cpu_err.status : TP_ERR_NOT_FOUND;
}

static tp_status resolve(resolver *r, const char *name, tp_device_model *out, tp_error *err) {
    if (strcasecmp(name, "cpu") == 0) {
        tp_status s = calibrate_cpu(r, err);
        if (s == TP_OK) *out = r->cpu;
        return s;
    }
    if (strcasecmp(name, "cuda") == 0) {
        tp_calib_options o;
        tp_calib_options_default(&o);
        tp_env_apply_calib(&r->env, &o);
        o.quick = r->quick;
        return tp_calibrate_cuda(&o, out, err);
    }
    const char *dash = strrchr(name, '-');
    tp_device_kind k;
    char kind[16];
    size_t n = dash ? (size_t)(dash - name) : 0;
    if (dash && strcasecmp(dash, "-default") == 0 && n < sizeof kind) {
        memcpy(kind, name, n);
        kind[n] = '\0';
        if (tp_device_kind_parse(kind, &k, NULL) == TP_OK) {
            tp_device_model_default(k, out);
            return TP_OK;
        }
    }
    tp_status s = catalog(r, err);
    if (s != TP_OK) return s;
    const tp_catalog_entry *e;
    if (tp_catalog_find(r->catalog, name, &e, NULL) != TP_OK) {
        char known[1024];
        size_t len = 0;
        known[0] = '\0';
        for (uint32_t i = 0; i < tp_catalog_count(r->catalog) && len + 70 < sizeof known; i++)
            len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "",
                                    tp_catalog_get(r->catalog, i)->name);
        return tp_error_set(err, TP_ERR_NOT_FOUND,
                            "unknown device '%s' (cpu, cuda, <kind>-default or a catalog "
                            "device: %s)",
                            name, known);
    }
    if (e->kind == TP_DEVICE_CPU && !r->learned) {
        r->learned = true;
        if (calibrate_cpu(r, NULL) == TP_OK && r->cpu_info.peak_gflops > 0)
            (void)tp_catalog_learn_efficiency(r->catalog, &r->cpu, r->cpu_info.peak_gflops, NULL);
    }
    return tp_catalog_entry_model(r->catalog, e, r->dtype, out, err);
}

static PyObject *device_dict(const tp_device_model *m) {
    PyObject *gemm = PyList_New(0), *skinny = PyList_New(0), *read = PyList_New(0),
             *streams = PyList_New(0);
    int bad = !gemm || !skinny || !read || !streams;
    for (uint32_t i = 0; !bad && i < m->n_gemm; i++)
        bad = tp_py_append(
            gemm, Py_BuildValue("{sdsd}", "dim", m->gemm[i].dim, "gflops", m->gemm[i].gflops));
    for (uint32_t i = 0; !bad && i < m->n_skinny; i++)
        bad = tp_py_append(skinny, Py_BuildValue("{sdsd}", "min_dim", m->skinny[i].dim, "gflops",
                                                 m->skinny[i].gflops));
    for (uint32_t i = 0; !bad && i < m->n_read; i++)
        bad = tp_py_append(
            read, Py_BuildValue("{sdsd}", "bytes", m->read[i].bytes, "gbps", m->read[i].gbps));
    for (uint32_t i = 0; !bad && i < m->n_read_streams; i++)
        bad = tp_py_append(streams, Py_BuildValue("{sdsd}", "bytes", m->read_streams[i].bytes,
                                                  "gbps", m->read_streams[i].gbps));
    PyObject *d = bad ? NULL : PyDict_New();
    if (d &&
        (tp_py_put_str(d, "name", m->name) ||
         tp_py_put_str(d, "kind", tp_device_kind_name(m->kind)) ||
         tp_py_put_str(d, "source", tp_model_source_name(m->source)) ||
         tp_py_put_str(d, "gemm_impl", m->gemm_impl) ||
         tp_py_put_obj(d, "gemm_gflops", Py_NewRef(gemm)) ||
         tp_py_put_obj(d, "skinny_gflops", Py_NewRef(skinny)) ||
         tp_py_put_obj(d, "read_gbps", Py_NewRef(read)) ||
         tp_py_put_obj(d, "read_streams_gbps", Py_NewRef(streams)) ||
         tp_py_put_f64(d, "f16_speedup", m->f16_speedup) ||
         tp_py_put_f64(d, "bf16_speedup", m->bf16_speedup) ||
         tp_py_put_f64(d, "int8_speedup", m->int8_speedup) ||
         tp_py_put_f64(d, "u8u8_speedup", m->u8u8_speedup) ||
         tp_py_put_f64(d, "mem_gbps", m->mem_gbps) ||
         tp_py_put_f64(d, "readback_gbps", m->readback_gbps) ||
         tp_py_put_f64(d, "dispatch_ns", m->dispatch_ns) ||
         tp_py_put_f64(d, "round_trip_ns", m->round_trip_ns) ||
         tp_py_put_f64(d, "barrier_ns", m->barrier_ns) || tp_py_put_f64(d, "wake_ns", m->wake_ns) ||
         tp_py_put_f64(d, "gemm_stream_gbps", m->gemm_stream_gbps) ||
         tp_py_put_f64(d, "norm_gbps", m->norm_gbps) ||
         tp_py_put_f64(d, "skip_norm_gbps", m->skip_norm_gbps) ||
         tp_py_put_f64(d, "gelu_gbps", m->gelu_gbps) ||
         tp_py_put_f64(d, "int8_dot_gops", m->int8_dot_gops) ||
         tp_py_put_f64(d, "amx_int8_gops", m->amx_int8_gops) ||
         tp_py_put_f64(d, "denormal_ns", m->denormal_ns) ||
         tp_py_put_u64(d, "vector_floats", m->vector_floats) ||
         tp_py_put_f64(d, "im2col_gbps", m->im2col_gbps) ||
         tp_py_put_f64(d, "col2im_gbps", m->col2im_gbps) ||
         tp_py_put_f64(d, "transpose_gbps", m->transpose_gbps) ||
         tp_py_put_f64(d, "bias_gelu_gbps", m->bias_gelu_gbps) ||
         tp_py_put_f64(d, "prelu_gbps", m->prelu_gbps) ||
         tp_py_put_bool(d, "unified", m->unified) || tp_py_put_u64(d, "threads", m->threads) ||
         tp_py_put_u64(d, "memory_bytes", m->memory_bytes) ||
         tp_py_put_f64(d, "efficiency", m->efficiency)))
        Py_CLEAR(d);
    Py_XDECREF(gemm);
    Py_XDECREF(skinny);
    Py_XDECREF(read);
    Py_XDECREF(streams);
    return d;
}

typedef struct candidate {
    char name[TP_DEVICE_NAME_CAP];
    tp_status st;
    tp_device_model m;
    tp_graph_cost gc;
    tp_error why;
} candidate;

/* Names from a list of str; "all" expands. Returns the count, or -1 with the exception. */
static int device_names(PyObject *devices, resolver *r, char names[][TP_DEVICE_NAME_CAP]) {
    PyObject *fast = PySequence_Fast(devices, "devices must be a list of names");
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Size(fast);
    int count = 0;
    for (Py_ssize_t i = 0; i < n && count < MAX_DEVICES; i++) {
        PyObject *o = PySequence_GetItem(fast, i);
        const char *s = o && PyUnicode_Check(o) ? PyUnicode_AsUTF8AndSize(o, NULL) : NULL;
        if (!s) {
            Py_XDECREF(o);
            Py_DECREF(fast);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a device name is a str");
            return -1;
        }
        if (strcmp(s, "all") == 0 && count + 2 <= MAX_DEVICES) {
            snprintf(names[count++], TP_DEVICE_NAME_CAP, "cpu");
            snprintf(names[count++], TP_DEVICE_NAME_CAP, "cuda");
            if (catalog(r, NULL) == TP_OK)
                for (uint32_t k = 0; k < tp_catalog_count(r->catalog) && count < MAX_DEVICES; k++)
                    snprintf(names[count++], TP_DEVICE_NAME_CAP, "%s",
                             tp_catalog_get(r->catalog, k)->name);
        } else {
            snprintf(names[count++], TP_DEVICE_NAME_CAP, "%s", s);
        }
        Py_DECREF(o);
    }
    Py_DECREF(fast);
    if (count == 0) PyErr_SetString(PyExc_ValueError, "devices names no device");
    return count ? count : -1;
}

static PyObject *candidate_dict(const candidate *c) {
    PyObject *d = PyDict_New();
    if (!d || tp_py_put_str(d, "request", c->name) ||
        tp_py_put_bool(d, "available", c->st == TP_OK))
        goto fail;
    if (c->st != TP_OK) {
        if (tp_py_put_str(d, "reason", c->why.msg)) goto fail;
        return d;
    }
    if (tp_py_put_obj(d, "model", device_dict(&c->m)) ||
        tp_py_put_f64(d, "total_ns", c->gc.total_ns) ||
        tp_py_put_f64(d, "round_trip_ns", c->gc.round_trip_ns) ||
        tp_py_put_f64(d, "nodes_ns", c->gc.nodes_ns) ||
        tp_py_put_f64(d, "readback_ns", c->gc.readback_ns) ||
        tp_py_put_f64(d, "sync_ns", c->gc.sync_ns) || tp_py_put_u64(d, "flops", c->gc.flops) ||
        tp_py_put_u64(d, "bytes", c->gc.bytes))
        goto fail;
    return d;
fail:
    Py_XDECREF(d);
    return NULL;
}

int tp_py_predict(const tp_graph *g, PyObject *devices, const char *dtype, int quick,
                  PyObject **out_list, PyObject **out_choice) {
    *out_list = *out_choice = NULL;
    resolver r;
    memset(&r, 0, sizeof r);
    tp_env_options_read(&r.env);
    r.quick = quick != 0;
    r.dtype = TP_DTYPE_F32;
    tp_error err;
    tp_error_clear(&err);
    tp_status st = dtype ? tp_dtype_parse(dtype, &r.dtype, &err) : TP_OK;
    if (st != TP_OK) return tp_py_raise(&err, st), -1;
    char names[MAX_DEVICES][TP_DEVICE_NAME_CAP];
    int n = device_names(devices, &r, names);
    candidate *c = n > 0 ? calloc((size_t)n, sizeof *c) : NULL;
    if (!c) {
        tp_catalog_destroy(r.catalog);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return -1;
    }
    tp_device_model models[MAX_DEVICES];
    double costs[MAX_DEVICES];
    uint32_t m = 0, pick = 0;
    tp_status model_error = TP_OK, choice_st = TP_ERR_NOT_FOUND;
    tp_error choice_err;
    tp_error_clear(&choice_err);
    snprintf(choice_err.msg, sizeof choice_err.msg, "no device available");
    Py_BEGIN_ALLOW_THREADS;
    for (int i = 0; i < n && model_error == TP_OK; i++) {
        memcpy(c[i].name, names[i], sizeof c[i].name);
        tp_error_clear(&c[i].why);
        c[i].st = resolve(&r, names[i], &c[i].m, &c[i].why);
        if (c[i].st == TP_OK)
            c[i].st = tp_graph_cost_compute(g, &c[i].m, NULL, NULL, &c[i].gc, &c[i].why);
        if (c[i].st != TP_OK && c[i].st != TP_ERR_NOT_FOUND && c[i].st != TP_ERR_UNSUPPORTED) {
            model_error = c[i].st; /* a model error: the same for every device */
            err = c[i].why;
        } else if (c[i].st == TP_OK) {
            models[m] = c[i].m;
            costs[m++] = c[i].gc.total_ns;
        }
    }
    tp_device_policy policy = {NULL, NULL, NULL};
    tp_env_apply_device_policy(&r.env, &policy);
    if (model_error == TP_OK && m > 0)
        choice_st = tp_pick_best_device(models, costs, m, &policy, &pick, &choice_err);
    Py_END_ALLOW_THREADS;
    PyObject *list = model_error == TP_OK ? PyList_New(0) : NULL;
    for (int i = 0; list && i < n; i++)
        if (tp_py_append(list, candidate_dict(&c[i])) != 0) Py_CLEAR(list);
    for (int i = 0; i < n; i++)
        tp_graph_cost_destroy(&c[i].gc);
    free(c);
    tp_catalog_destroy(r.catalog);
    if (model_error != TP_OK) return tp_py_raise(&err, model_error), -1;
    if (!list) return -1;
    *out_list = list;
    *out_choice = choice_st == TP_OK ? Py_BuildValue("(Os)", Py_True, models[pick].name)
                                     : Py_BuildValue("(Os)", Py_False, choice_err.msg);
    if (*out_choice) return 0;
    Py_CLEAR(*out_list);
    return -1;
}

PyObject *tp_py_cost(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *model, *load, *devices;
    const char *dtype = NULL;
    int quick = 0;
    if (!PyArg_ParseTuple(args, "OOO|zp", &model, &load, &devices, &dtype, &quick)) return NULL;
    tp_py_model m;
    if (tp_py_model_load(model, load, &m) != 0) return NULL;
    PyObject *list, *choice;
    PyObject *d =
        tp_py_predict(m.g, devices, dtype, quick, &list, &choice) == 0 ? PyDict_New() : NULL;
    if (d && (tp_py_put_obj(d, "devices", list) || tp_py_put_obj(d, "choice", choice) ||
              tp_py_put_u64(d, "nodes", tp_graph_node_count(m.g)) ||
              tp_py_put_obj(d, "default_bindings", Py_NewRef(m.defaults))))
        Py_CLEAR(d);
    else if (!d) {
        Py_XDECREF(list);
        Py_XDECREF(choice);
    }
    tp_py_model_release(&m);
    return d;
}
