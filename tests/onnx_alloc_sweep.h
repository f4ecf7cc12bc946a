/* Shared by the ONNX tests: load ONNX bytes failing the k-th allocation for
 * k = 1, 2, ... until a load needs no more; every failure must be TP_ERR_NOMEM
 * and leak nothing, and the load that does not fail must succeed. */
#ifndef TP_TESTS_ONNX_ALLOC_SWEEP_H
#define TP_TESTS_ONNX_ALLOC_SWEEP_H

#include "harness.h"
#include "tensorplan.h"

/* Returns how many allocation failures were tried (a model worth sweeping has
 * more than a few). */
static inline int tp_test_onnx_alloc_sweep(const char *label, const void *data, size_t size,
                                           const tp_onnx_options *opt) {
    int failures = 0;
    for (long k = 1; k < 100000; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, k);
        tp_graph *g = NULL;
        tp_error err;
        tp_status st = tp_onnx_load_memory(data, size, opt, &fa.hook, &g, &err);
        tp_graph_destroy(g);
        if (fa.live != 0 || fa.live_bytes != 0) {
            TP_FAIL_("%s: fail at %ld: %ld allocations (%zu bytes) leaked", label, k, fa.live,
                     fa.live_bytes);
            break;
        }
        if (!fa.failed) {
            TP_CHECK_OK(st, &err);
            break;
        }
        if (st != TP_ERR_NOMEM) {
            TP_FAIL_("%s: fail at %ld: %s, want NOMEM (%s)", label, k, tp_status_name(st), err.msg);
            break;
        }
        failures++;
    }
    return failures;
}

#endif
