/* libFuzzer target for the safetensors header reader (tp_safetensors_read) and the
 * JSON reader under it (src/core/json_dom.c).
 *
 * Build: cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTP_FUZZ=ON
 *        cmake --build build-fuzz --target fuzz_safetensors
 * Run:   build-fuzz/fuzz/fuzz_safetensors fuzz/corpus/safetensors -max_total_time=600
 *
 * Each input is written to a file in a private temporary directory (fuzz/fuzz_util.h).
 * tests/test_fuzz_replay.c replays fuzz/corpus/safetensors/ through tp_fuzz_safetensors.
 * Invariants (abort() on violation): a failing read returns a non-OK status with a
 * message; a successful one registers at most n_tensors weights whose bytes sum to
 * tensor_bytes, which fits in the file after its header, and reads the same figures
 * without a registry.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, O_CLOEXEC in the fuzz build */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tensorplan.h"

int tp_fuzz_safetensors(const uint8_t *data, size_t size);

static void st_check(bool ok) {
    if (!ok) abort();
}

int tp_fuzz_safetensors(const uint8_t *data, size_t size) {
    char path[1024];
    fz_write("model.safetensors", data, size, path, sizeof path);
    tp_registry *r = NULL;
    tp_error err;
    tp_error_clear(&err);
    if (tp_registry_create(NULL, &r, &err) != TP_OK) abort();
    tp_safetensors_info si;
    tp_status s = tp_safetensors_read(path, r, &si, &err);
    if (s != TP_OK) {
        st_check(err.status == s && err.msg[0] != '\0');
        tp_registry_destroy(r);
        return 0;
    }
    st_check(si.n_files == 1 && si.file_bytes == size && si.header_bytes <= size);
    st_check(si.tensor_bytes <= size - si.header_bytes);
    st_check(tp_registry_count(r) <= si.n_tensors);
    st_check(tp_registry_total_bytes(r) <= si.tensor_bytes);
    uint64_t by_dtype = 0;
    for (int k = 0; k < TP_DTYPE_COUNT; k++)
        by_dtype += si.dtype_bytes[k];
    st_check(by_dtype == si.tensor_bytes);
    tp_safetensors_info s2;
    st_check(tp_safetensors_read(path, NULL, &s2, &err) == TP_OK);
    st_check(memcmp(&s2, &si, sizeof si) == 0);
    tp_registry_destroy(r);
    return 0;
}

#ifndef TP_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return tp_fuzz_safetensors(data, size);
}
#endif
