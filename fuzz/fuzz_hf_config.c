/* libFuzzer target for Hugging Face config.json reading (tp_hf_read_llm: the JSON
 * reader, the model_type mapping, the family rules) and the llama.cpp estimate on
 * what it gives.
 *
 * Build: cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTP_FUZZ=ON
 *        cmake --build build-fuzz --target fuzz_hf_config
 * Run:   build-fuzz/fuzz/fuzz_hf_config fuzz/corpus/hf_config -max_total_time=600
 *
 * Each input is written as config.json in a private temporary directory (no
 * safetensors beside it: the weights are counted from the shape).
 * tests/test_fuzz_replay.c replays fuzz/corpus/hf_config/. Invariants (abort() on
 * violation): a failure has a status and a message; a success has an architecture,
 * layers, heads and an embedding, at most TP_LLM_MAX_LAYERS layers, the mapped model
 * buffer equal to the weights, nothing repacked but AMX's copies (at most twice the
 * weights), and the estimate either fails with a message or sums its terms.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, O_CLOEXEC in the fuzz build */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tensorplan.h"
#include "tensorplan/llm.h"

int tp_fuzz_hf_config(const uint8_t *data, size_t size);

static void hf_check(bool ok) {
    if (!ok) abort();
}

int tp_fuzz_hf_config(const uint8_t *data, size_t size) {
    char path[1024];
    fz_write("config.json", data, size, path, sizeof path);
    tp_llm_config c;
    tp_error err;
    tp_error_clear(&err);
    tp_status s = tp_hf_read_llm(path, NULL, &c, &err);
    if (s != TP_OK) {
        hf_check(err.status == s && err.msg[0] != '\0');
        return 0;
    }
    hf_check(c.arch[0] && c.n_layer && c.n_embd && c.n_head && c.n_layer <= TP_LLM_MAX_LAYERS);
    hf_check(memchr(c.arch, '\0', sizeof c.arch) != NULL);
    /* the mapping is the whole file; only AMX copies (f16 matrices, and a tied output's
       duplicate of the embedding table: at most the weights twice) */
    for (int k = 0; k < TP_LLM_REPACK_COUNT; k++)
        hf_check(c.layout[k].mapped_bytes == c.weight_bytes &&
                 (k == TP_LLM_REPACK_AMX ? c.layout[k].repack_bytes / 2 <= c.weight_bytes
                                         : c.layout[k].repack_bytes == 0));
    tp_llm_options o;
    tp_llm_options_default(&o);
    o.n_ctx = 4096;
    tp_llm_estimate e;
    tp_error_clear(&err);
    s = tp_llm_estimate_memory(&c, &o, &e, &err);
    if (s != TP_OK) {
        hf_check(err.status == s && err.msg[0] != '\0');
        return 0;
    }
    hf_check(e.model_bytes == c.weight_bytes + e.model_repack_bytes);
    hf_check(e.peak_bytes - e.model_bytes - e.kv_cache_bytes - e.output_bytes == e.compute_bytes);
    return 0;
}

#ifndef TP_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return tp_fuzz_hf_config(data, size);
}
#endif
