/* libFuzzer target for the calibration cache reader (tp_device_model_load:
 * a key=value text file holding one device model).
 *
 * Build: cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTP_FUZZ=ON
 *        cmake --build build-fuzz --target fuzz_calib_cache
 * Run:   build-fuzz/fuzz/fuzz_calib_cache fuzz/corpus/calib_cache -max_total_time=180
 *
 * The reader takes a path and has no in-memory entry point, so each input is
 * written to a file in a private temporary directory (fuzz/fuzz_util.h). The
 * body is tp_fuzz_calib_cache(); tests/test_fuzz_replay.c compiles this file
 * with TP_FUZZ_NO_MAIN and replays fuzz/corpus/calib_cache/ through it.
 * Invariants (abort() on violation): a failing load returns a non-OK status
 * with a message and leaves the output untouched; a successful one returns a
 * model that validates, that loads again under its own key ("key=" line) and
 * fails with TP_ERR_NOT_FOUND under another; saving it and loading the saved
 * file gives back the same model, field by field.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, O_CLOEXEC, open_memstream in the fuzz build */
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tensorplan.h"

int tp_fuzz_calib_cache(const uint8_t *data, size_t size);

static void calib_check(bool ok) {
    if (!ok) abort();
}

static bool calib_same_curve(const tp_gemm_point *a, const tp_gemm_point *b, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (a[i].dim != b[i].dim || a[i].gflops != b[i].gflops) return false;
    return true;
}

/* Equal strings, or a = b + "\r": a value cut to the field's capacity may end in
 * a CR, which the reader then takes for a CRLF line end (known, harmless). */
static bool calib_same_str(const char *a, const char *b) {
    size_t n = strlen(b);
    return strcmp(a, b) == 0 || (strncmp(a, b, n) == 0 && a[n] == '\r' && a[n + 1] == '\0');
}

static void calib_check_same(const tp_device_model *a, const tp_device_model *b) {
    calib_check(calib_same_str(a->name, b->name) && calib_same_str(a->gemm_impl, b->gemm_impl));
    calib_check(a->kind == b->kind && a->source == b->source);
    calib_check(a->n_gemm == b->n_gemm && calib_same_curve(a->gemm, b->gemm, a->n_gemm));
    calib_check(a->n_skinny == b->n_skinny && calib_same_curve(a->skinny, b->skinny, a->n_skinny));
    calib_check(a->f16_speedup == b->f16_speedup && a->bf16_speedup == b->bf16_speedup &&
                a->int8_speedup == b->int8_speedup);
    calib_check(a->dispatch_ns == b->dispatch_ns && a->round_trip_ns == b->round_trip_ns);
    calib_check(a->mem_gbps == b->mem_gbps && a->readback_gbps == b->readback_gbps);
    calib_check(a->unified == b->unified && a->threads == b->threads &&
                a->memory_bytes == b->memory_bytes && a->efficiency == b->efficiency);
}

/* The value of the file's "key=" lines when they all agree (the reader checks
 * each of them against the wanted key), else NULL. */
static const char *calib_key(const uint8_t *data, size_t size, char *buf, size_t cap) {
    const char *found = NULL;
    size_t pos = 0;
    while (pos < size) {
        const uint8_t *nl = memchr(data + pos, '\n', size - pos);
        size_t end = nl ? (size_t)(nl - data) : size;
        if (end - pos >= 4 && memcmp(data + pos, "key=", 4) == 0) {
            size_t n = end - pos - 4;
            if (n > 0 && data[end - 1] == '\r') n--; /* CRLF, as the reader */
            if (n >= cap) return NULL;
            if (found && (strlen(found) != n || memcmp(found, data + pos + 4, n) != 0)) return NULL;
            memcpy(buf, data + pos + 4, n);
            buf[n] = '\0';
            found = buf;
        }
        pos = end + 1;
    }
    return found;
}

int tp_fuzz_calib_cache(const uint8_t *data, size_t size) {
    char path[1024];
    fz_write("calib.txt", data, size, path, sizeof path);
    tp_device_model d, keep;
    memset(&d, 0xA5, sizeof d);
    keep = d;
    tp_error err;
    tp_error_clear(&err);
    tp_status s = tp_device_model_load(path, NULL, &d, &err);
    if (s != TP_OK) {
        calib_check(err.status == s && err.msg[0] != '\0');
        calib_check(memcmp(&d, &keep, sizeof d) == 0);
        return 0;
    }
    tp_error_clear(&err);
    calib_check(tp_device_model_validate(&d, &err) == TP_OK);
    calib_check(memchr(d.name, '\0', sizeof d.name) &&
                memchr(d.gemm_impl, '\0', sizeof d.gemm_impl));
    double g = tp_device_gemm_gflops(&d, TP_DTYPE_F16, 512, 512, 512);
    calib_check(g > 0 && !isnan(g));
    /* the key check: its own key loads, another one is "not found" */
    char kbuf[256];
    const char *key = NULL;
    if (!memchr(data, '\0', size)) key = calib_key(data, size, kbuf, sizeof kbuf);
    if (key) {
        tp_device_model d2;
        tp_error_clear(&err);
        calib_check(tp_device_model_load(path, key, &d2, &err) == TP_OK);
        calib_check_same(&d, &d2);
        char other[sizeof kbuf + 1];
        snprintf(other, sizeof other, "%sx", key);
        tp_error_clear(&err);
        calib_check(tp_device_model_load(path, other, &d2, &err) == TP_ERR_NOT_FOUND);
    }
    /* save and load back: the text format keeps every field exactly */
    char saved[1024];
    fz_path("saved.txt", saved, sizeof saved);
    fz_remember("saved.txt", false);
    tp_error_clear(&err);
    s = tp_device_model_save(&d, "fuzz-key", saved, &err);
    if (s != TP_OK) {
        fprintf(stderr, "fuzz_calib_cache: save failed: %s\n", err.msg);
        abort();
    }
    tp_device_model back;
    tp_error_clear(&err);
    s = tp_device_model_load(saved, "fuzz-key", &back, &err);
    if (s != TP_OK) {
        fprintf(stderr, "fuzz_calib_cache: saved model does not load: %s\n", err.msg);
        abort();
    }
    calib_check_same(&d, &back);
    return 0;
}

#ifndef TP_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return tp_fuzz_calib_cache(data, size);
}
#endif
