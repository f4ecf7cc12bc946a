/* libFuzzer target for the device catalog CSV reader (tp_catalog_parse) and
 * the device models built from its entries.
 *
 * Build: cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTP_FUZZ=ON
 *        cmake --build build-fuzz --target fuzz_catalog
 * Run:   build-fuzz/fuzz/fuzz_catalog fuzz/corpus/catalog -max_total_time=180
 *
 * The body is tp_fuzz_catalog(); tests/test_fuzz_replay.c compiles this file
 * with TP_FUZZ_NO_MAIN and replays fuzz/corpus/catalog/ through it. Invariants
 * (abort() on violation): a failing parse returns a non-OK status with a
 * message and no catalog; on success every entry has a non-empty name, unique
 * case-insensitively and found by tp_catalog_find, non-negative figures,
 * mem_gbps > 0 and efficiency <= 1; every device model built from an entry
 * (before and after tp_catalog_learn_efficiency and tp_catalog_set_efficiency)
 * either fails with a message or validates, and its GEMM throughput is
 * positive and not NaN.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, O_CLOEXEC, open_memstream in the fuzz build */
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tensorplan.h"

int tp_fuzz_catalog(const uint8_t *data, size_t size);

static void catalog_check(bool ok) {
    if (!ok) abort();
}

static void catalog_check_models(const tp_catalog *c) {
    static const tp_dtype dts[] = {TP_DTYPE_F32, TP_DTYPE_F16, TP_DTYPE_BF16, TP_DTYPE_I8};
    for (uint32_t i = 0; i < tp_catalog_count(c); i++) {
        const tp_catalog_entry *e = tp_catalog_get(c, i);
        for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
            tp_device_model d;
            tp_error err;
            tp_error_clear(&err);
            tp_status s = tp_catalog_entry_model(c, e, dts[k], &d, &err);
            if (s != TP_OK) {
                catalog_check(err.status == s && err.msg[0] != '\0');
                continue;
            }
            catalog_check(d.source == TP_SOURCE_CATALOG && strcmp(d.name, e->name) == 0);
            tp_error_clear(&err);
            catalog_check(tp_device_model_validate(&d, &err) == TP_OK);
            static const uint64_t shapes[][3] = {
                {1, 1, 1}, {64, 64, 64}, {1, 4096, 4096}, {8192, 8192, 8192}};
            for (size_t j = 0; j < sizeof shapes / sizeof shapes[0]; j++) {
                double g =
                    tp_device_gemm_gflops(&d, dts[k], shapes[j][0], shapes[j][1], shapes[j][2]);
                catalog_check(g > 0 && !isnan(g));
            }
        }
    }
}

int tp_fuzz_catalog(const uint8_t *data, size_t size) {
    tp_catalog *c = NULL;
    tp_error err;
    tp_error_clear(&err);
    tp_status s = tp_catalog_parse((const char *)data, size, NULL, &c, &err);
    if (s != TP_OK) {
        catalog_check(c == NULL && err.status == s && err.msg[0] != '\0');
        return 0;
    }
    uint32_t n = tp_catalog_count(c);
    catalog_check(tp_catalog_get(c, n) == NULL);
    for (uint32_t i = 0; i < n; i++) {
        const tp_catalog_entry *e = tp_catalog_get(c, i);
        catalog_check(e != NULL && e->name[0] != '\0');
        catalog_check(memchr(e->name, '\0', sizeof e->name) != NULL);
        catalog_check(memchr(e->source, '\0', sizeof e->source) != NULL);
        catalog_check((unsigned)e->kind < TP_DEVICE_KIND_COUNT);
        catalog_check(e->f32_gflops >= 0 && e->f16_gflops >= 0 && e->bf16_gflops >= 0 &&
                      e->int8_gops >= 0 && e->link_gbps >= 0 && e->mem_gbps > 0);
        catalog_check(e->efficiency >= 0 && e->efficiency <= 1);
        const tp_catalog_entry *f = NULL;
        tp_error_clear(&err);
        catalog_check(tp_catalog_find(c, e->name, &f, &err) == TP_OK && f == e);
        for (uint32_t j = 0; j < i; j++)
            catalog_check(strcasecmp(tp_catalog_get(c, j)->name, e->name) != 0);
    }
    catalog_check_models(c);
    /* this machine's curve and overheads applied to CPU entries */
    tp_device_model cpu;
    tp_device_model_default(TP_DEVICE_CPU, &cpu);
    tp_error_clear(&err);
    catalog_check(tp_catalog_learn_efficiency(c, &cpu, 1000.0, &err) == TP_OK);
    tp_catalog_set_default_efficiency(c, 0.25);
    if (n > 0) {
        tp_error_clear(&err);
        catalog_check(tp_catalog_set_efficiency(c, tp_catalog_get(c, 0)->name, 0.75, &err) ==
                      TP_OK);
        catalog_check(tp_catalog_get(c, 0)->efficiency == 0.75);
    }
    catalog_check_models(c);
    tp_catalog_destroy(c);
    return 0;
}

#ifndef TP_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return tp_fuzz_catalog(data, size);
}
#endif
