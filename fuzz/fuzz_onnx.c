/* libFuzzer target for the ONNX importer: the zero-copy reader (decode, model
 * info, value access) and the import as a whole (conversion to the IR).
 *
 * Build: cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTP_FUZZ=ON
 *        cmake --build build-fuzz --target fuzz_onnx
 * Run:   build-fuzz/fuzz/fuzz_onnx fuzz/corpus/onnx -max_total_time=600
 *
 * The body is tp_fuzz_onnx(); tests/test_fuzz_replay.c compiles this file with
 * TP_FUZZ_NO_MAIN and replays fuzz/corpus/onnx/ through it without libFuzzer.
 * Invariants checked (abort() on violation, so libFuzzer reports a crash):
 * a failing call returns a non-OK status with a message; on success every
 * zero-copy pointer lies inside the input and sizes agree with dims.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/onnx_model.h"
#include "tensorplan.h"

int tp_fuzz_onnx(const uint8_t *data, size_t size);

static void check(bool ok) {
    if (!ok) abort();
}

static void check_tensor(const tp_onnx_model *m, const tp_onnx_tensor *t) {
    if (t->location == TP_ONNX_DATA_RAW) {
        check(t->raw_offset <= m->size && t->raw_size <= m->size - t->raw_offset);
        check(t->raw_size == 0 || t->raw == m->data + t->raw_offset);
        check(t->data_type == TP_ONNX_STRING || t->raw_size == t->n_bytes);
    }
    check(t->msg_offset <= m->size && t->msg_size <= m->size - t->msg_offset);
    for (uint32_t i = 0; i < t->rank; i++)
        check(t->dims[i] >= 0);
    int64_t vals[16];
    uint64_t n;
    tp_error err;
    if (tp__onnx_tensor_read_i64(m, t, vals, 16, &n, &err) == TP_OK)
        check(n == t->n_elements);
    else
        check(err.msg[0] != '\0');
}

static void check_graph(const tp_onnx_model *m, const tp_onnx_graph *g) {
    for (uint32_t i = 0; i < g->n_initializers; i++)
        check_tensor(m, &g->initializers[i]);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const tp_onnx_node *n = &g->nodes[i];
        check(n->op_type[0] != '\0');
        for (uint32_t j = 0; j < n->n_attrs; j++) {
            const tp_onnx_attr *a = &n->attrs[j];
            if (a->t) check_tensor(m, a->t);
            for (uint32_t k = 0; k < a->n_tensors; k++)
                check_tensor(m, &a->tensors[k]);
            if (a->g) {
                check(a->g->parent == g);
                check_graph(m, a->g);
            }
            for (uint32_t k = 0; k < a->n_graphs; k++)
                check_graph(m, a->graphs[k]);
        }
    }
}

/* Again with the graph's symbols bound before converting (tp_onnx_options.dims,
 * values from the input bytes): comparisons of dims decided while converting
 * (an If taking one branch). */
static void convert_with_dims(const tp_onnx_model *m, const tp_graph *first, const uint8_t *data,
                              size_t size) {
    char buf[8][96];
    const char *dims[8];
    uint32_t n = 0;
    for (uint32_t k = 0; k < tp_graph_symbol_count(first) && n < 8; k++) {
        const char *name = tp_graph_symbol_name(first, k);
        if (!name || strchr(name, '=')) continue;
        snprintf(buf[n], sizeof buf[n], "%.80s=%u", name,
                 size ? 1u + data[(k * 7u) % size] * 5u : 1u);
        dims[n] = buf[n];
        n++;
    }
    if (!n) return;
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    opt.dims = dims;
    opt.n_dims = n;
    tp_graph *g = NULL;
    tp_error err;
    tp_error_clear(&err);
    tp_status s = tp_onnx_model_to_graph(m, &opt, NULL, &g, &err);
    if (s == TP_OK)
        tp_graph_destroy(g);
    else
        check(g == NULL && err.msg[0] != '\0');
}

int tp_fuzz_onnx(const uint8_t *data, size_t size) {
    tp_onnx_model *m = NULL;
    tp_error err;
    tp_error_clear(&err);
    tp_status s = tp_onnx_model_open_memory(data, size, NULL, NULL, &m, &err);
    if (s != TP_OK) {
        check(m == NULL && err.status == s && err.msg[0] != '\0');
        return 0;
    }
    check_graph(m, m->graph);
    tp_onnx_info info;
    s = tp_onnx_model_info(m, &info, &err);
    check(s == TP_OK || err.msg[0] != '\0');
    if (s == TP_OK) check(info.unique_param_bytes <= info.param_bytes);
    /* the import as a whole: conversion to the IR */
    tp_graph *g = NULL;
    tp_error_clear(&err);
    s = tp_onnx_model_to_graph(m, NULL, NULL, &g, &err);
    if (s == TP_OK) {
        check(g != NULL);
        convert_with_dims(m, g, data, size);
        tp_graph_destroy(g);
    } else {
        check(g == NULL && err.msg[0] != '\0');
    }
    tp_onnx_model_destroy(m);
    return 0;
}

#ifndef TP_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return tp_fuzz_onnx(data, size);
}
#endif
