/* tensorplan._native: report — everything `tensorplan report` shows, gathered through the
 * public API (estimate with its activation plan, the onnxruntime profile, the plan without
 * reuse, live bytes, the IO profile, the memory-map SVG, device prediction), and the HTML
 * page around the tables tensorplan/_html.py writes. */
#include "native.h"

#include <stdlib.h>
#include <string.h>

typedef struct ranked {
    uint64_t size;
    int64_t node;
    uint32_t slot;
} ranked;

static int by_size_desc(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    if (x->size != y->size) return x->size > y->size ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

static PyObject *slot_dict(const tp_graph *g, const tp_plan *p, const int64_t *ends, uint32_t i) {
    const tp_slot *s = tp_plan_slot(p, i);
    const tp_node *n = tp_graph_node(g, s->node);
    return Py_BuildValue("{sLsssssKsKsLsL}", "node", (long long)s->node, "name", n->name, "op",
                         tp_op_name(&n->op), "size_bytes", (unsigned long long)s->size,
                         "offset_bytes", (unsigned long long)s->offset, "birth",
                         (long long)s->birth, "death", (long long)ends[s->node]);
}

/* The `limit` largest buffers (not views, not in place), alive at `step` when step >= 0. */
static PyObject *largest(const tp_graph *g, const tp_plan *p, const int64_t *ends, int64_t step,
                         uint32_t limit) {
    uint32_t n = tp_plan_slot_count(p), m = 0;
    ranked *r = calloc(n ? n : 1, sizeof *r);
    PyObject *list = r ? PyList_New(0) : PyErr_NoMemory();
    for (uint32_t i = 0; list && i < n; i++) {
        const tp_slot *s = tp_plan_slot(p, i);
        if (s->is_view || s->inplace) continue;
        if (step >= 0 && !(s->birth <= step && step <= ends[s->node])) continue;
        r[m++] = (ranked){s->size, s->node, i};
    }
    if (list) qsort(r, m, sizeof *r, by_size_desc);
    for (uint32_t k = 0; list && k < m && k < limit; k++)
        if (tp_py_append(list, slot_dict(g, p, ends, r[k].slot)) != 0) Py_CLEAR(list);
    free(r);
    return list;
}

typedef struct gathered {
    tp_estimate est;
    tp_runtime_estimate ort;
    tp_plan *act;
    uint64_t noreuse_bytes;
    uint64_t *live;
    int64_t *ends;
    size_t steps, peak_step;
    tp_io_profile io;
    char *svg;
} gathered;

static tp_status gather(const tp_graph *g, uint64_t file_bytes, bool want_svg, gathered *r,
                        tp_error *err) {
    tp_plan_options po;
    tp_plan_options_default(&po);
    tp_env_options env;
    tp_env_options_read(&env);
    tp_env_apply_plan(&env, &po);
    tp_memory_summary ms;
    tp_status st = tp_memory_summary_compute(g, &po, file_bytes, &ms, err);
    if (st != TP_OK) return st;
    r->est = ms.estimate;
    r->act = ms.activation_plan; /* r owns it now */
    r->ort = ms.onnxruntime;
    r->noreuse_bytes = ms.noreuse_bytes;
    size_t cap = (size_t)tp_graph_node_count(g) + 1;
    r->live = calloc(cap, sizeof *r->live);
    r->ends = calloc(cap, sizeof *r->ends);
    if (!r->live || !r->ends) return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    st = tp_plan_live_bytes(r->act, g, r->live, cap, &r->steps, &r->peak_step, err);
    if (st == TP_OK) st = tp_plan_buffer_ends(r->act, g, r->ends, cap, err);
    if (st == TP_OK) st = tp_io_profile_compute(g, NULL, &r->io, err);
    if (st == TP_OK && want_svg) {
        tp_svg_options so;
        tp_svg_options_default(&so);
        so.title = "activation arena: x = step, y = offset";
        size_t len = 0;
        st = tp_plan_svg(r->act, g, &so, &r->svg, &len, err);
    }
    return st;
}

static void gathered_free(gathered *r) {
    tp_plan_destroy(r->act);
    free(r->live);
    free(r->ends);
    tp_free_string(r->svg);
}

static PyObject *ort_dict(const tp_runtime_estimate *o) {
    return Py_BuildValue(
        "{sKsKsKsKsKsKsKsKsKsKsKss}", "peak_bytes", (unsigned long long)o->peak_bytes,
        "over_plan_bytes", (unsigned long long)tp_sat_sub_u64(o->peak_bytes, o->plan_peak_bytes),
        "session_fixed_bytes", (unsigned long long)o->session_fixed_bytes, "graph_bytes",
        (unsigned long long)o->graph_bytes, "model_copy_bytes",
        (unsigned long long)o->model_copy_bytes, "weight_bytes",
        (unsigned long long)o->weight_bytes, "prepacked_bytes",
        (unsigned long long)o->prepacked_bytes, "arena_bytes", (unsigned long long)o->arena_bytes,
        "input_bytes", (unsigned long long)o->input_bytes, "output_copy_bytes",
        (unsigned long long)o->output_copy_bytes, "calibration_margin_bytes",
        (unsigned long long)o->calibration_margin_bytes, "not_modelled",
        o->not_modelled ? o->not_modelled : "");
}

static PyObject *io_dict(const tp_io_profile *io) {
    return Py_BuildValue(
        "{sKsKsKsKsKsK}", "kernel_launches", (unsigned long long)io->kernel_launches,
        "device_traffic_bytes", (unsigned long long)io->device_traffic_bytes, "sync_points",
        (unsigned long long)io->sync_points, "host_output_bytes",
        (unsigned long long)io->host_output_bytes, "host_readback_unified_bytes",
        (unsigned long long)tp_io_host_readback_bytes(io, true), "host_readback_discrete_bytes",
        (unsigned long long)tp_io_host_readback_bytes(io, false));
}

static int put_counts(PyObject *d, const tp_graph *g) {
    uint32_t kinds[TP_OP_KIND_COUNT] = {0}, params = 0;
    for (uint32_t i = 0; i < tp_graph_node_count(g); i++) {
        const tp_node *n = tp_graph_node(g, (tp_node_id)i);
        kinds[n->op.kind]++;
        if (n->op.kind == TP_OP_PARAM && n->op.attrs.param.tied_to < 0) params++;
    }
    PyObject *counts = PyDict_New();
    for (int k = 0; counts && k < TP_OP_KIND_COUNT; k++)
        if (kinds[k] && tp_py_put_u64(counts, tp_op_kind_name((tp_op_kind)k), kinds[k]) != 0)
            Py_CLEAR(counts);
    return tp_py_put_u64(d, "nodes", tp_graph_node_count(g)) ||
                   tp_py_put_u64(d, "params", params) || tp_py_put_obj(d, "op_counts", counts)
               ? -1
               : 0;
}

static int put_memory(PyObject *d, const gathered *r, unsigned long long budget, const char *how) {
    tp_deficit def;
    tp_error fe;
    tp_error_clear(&fe);
    bool fits = tp_estimate_fits_in(&r->est, budget, &def, &fe) == TP_OK;
    return tp_py_put_u64(d, "weights_bytes", r->est.weight_bytes) ||
                   tp_py_put_u64(d, "activations_bytes", r->est.activation_bytes) ||
                   tp_py_put_u64(d, "activations_no_reuse_bytes", r->noreuse_bytes) ||
                   tp_py_put_u64(d, "lower_bound_bytes", tp_plan_lower_bound_bytes(r->act)) ||
                   tp_py_put_u64(d, "inputs_bytes", r->est.input_bytes) ||
                   tp_py_put_u64(d, "peak_bytes", r->est.peak_bytes) ||
                   tp_py_put_u64(d, "budget_bytes", budget) ||
                   tp_py_put_str(d, "budget_source", how) || tp_py_put_bool(d, "fits", fits) ||
                   tp_py_put_u64(d, "deficit_bytes", def.deficit_bytes) ||
                   tp_py_put_obj(d, "deficit_message",
                                 fits ? Py_NewRef(Py_None) : PyUnicode_FromString(fe.msg)) ||
                   tp_py_put_str(d, "runtime", "plan") ||
                   tp_py_put_obj(d, "onnxruntime", ort_dict(&r->ort))
               ? -1
               : 0;
}

static int put_peak(PyObject *d, const tp_graph *g, const gathered *r, uint32_t top) {
    PyObject *peak = PyDict_New();
    if (!peak || tp_py_put_u64(peak, "step", r->peak_step) ||
        tp_py_put_u64(peak, "live_bytes", r->live[r->peak_step]) ||
        tp_py_put_obj(peak, "largest_live",
                      largest(g, r->act, r->ends, (int64_t)r->peak_step, 5))) {
        Py_XDECREF(peak);
        return -1;
    }
    return tp_py_put_obj(d, "largest_activations", largest(g, r->act, r->ends, -1, top)) ||
                   tp_py_put_obj(d, "peak", peak)
               ? -1
               : 0;
}

PyObject *tp_py_report(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *model, *load, *budget_obj, *devices;
    const char *dtype = NULL;
    unsigned int top = 8;
    int want_svg = 0, quick = 0;
    if (!PyArg_ParseTuple(args, "OOOO|Ippz", &model, &load, &budget_obj, &devices, &top, &want_svg,
                          &quick, &dtype))
        return NULL;
    unsigned long long budget = 0;
    char how[256];
    if (tp_py_budget(budget_obj, &budget, how, sizeof how) != 0) return NULL;
    tp_py_model m;
    if (tp_py_model_load(model, load, &m) != 0) return NULL;
    gathered r;
    memset(&r, 0, sizeof r);
    tp_error err;
    tp_error_clear(&err);
    tp_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = gather(m.g, m.file_bytes, want_svg != 0, &r, &err);
    Py_END_ALLOW_THREADS;
    PyObject *d = st == TP_OK ? PyDict_New() : tp_py_raise(&err, st);
    PyObject *list = NULL, *choice = NULL;
    if (d && devices != Py_None && tp_py_predict(m.g, devices, dtype, quick, &list, &choice) != 0)
        Py_CLEAR(d);
    if (d && (put_counts(d, m.g) || put_memory(d, &r, budget, how) || put_peak(d, m.g, &r, top) ||
              tp_py_put_obj(d, "io", io_dict(&r.io)) ||
              tp_py_put_obj(d, "devices", list ? list : PyList_New(0)) ||
              tp_py_put_obj(d, "choice", choice ? choice : Py_NewRef(Py_None)) ||
              tp_py_put_obj(d, "svg", r.svg ? PyUnicode_FromString(r.svg) : Py_NewRef(Py_None)) ||
              tp_py_put_assumptions(d, m.g) ||
              tp_py_put_obj(d, "default_bindings", Py_NewRef(m.defaults))))
        Py_CLEAR(d);
    gathered_free(&r);
    tp_py_model_release(&m);
    return d;
}

PyObject *tp_py_html_page(PyObject *self, PyObject *args) {
    (void)self;
    const char *title, *svg, *tables;
    if (!PyArg_ParseTuple(args, "szz", &title, &svg, &tables)) return NULL;
    char *page = NULL;
    size_t len = 0;
    tp_error err;
    tp_error_clear(&err);
    tp_status st = tp_report_html_page(title, svg, tables, &page, &len, &err);
    if (st != TP_OK) return tp_py_raise(&err, st);
    PyObject *s = PyUnicode_FromStringAndSize(page, (Py_ssize_t)len);
    tp_free_string(page);
    return s;
}
