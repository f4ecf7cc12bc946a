/* libFuzzer target for the GGUF metadata reader (tp_gguf_read_llm) and the
 * LLM memory estimate that consumes what it reads.
 *
 * Build: cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTP_FUZZ=ON
 *        cmake --build build-fuzz --target fuzz_gguf
 * Run:   build-fuzz/fuzz/fuzz_gguf fuzz/corpus/gguf -max_total_time=180
 * Seeds: /usr/bin/python3 scripts/make_fuzz_gguf.py fuzz/corpus/gguf
 *
 * The reader takes a path, so each input is written to a file in a private
 * temporary directory (fuzz/fuzz_util.h). The body is tp_fuzz_gguf();
 * tests/test_fuzz_replay.c compiles this file with TP_FUZZ_NO_MAIN and replays
 * fuzz/corpus/gguf/ through it. Invariants (abort() on violation): a failing
 * call returns a non-OK status with a message; on success the config is
 * self-consistent (version 2/3, non-zero required fields, expert bytes within
 * the weight bytes, the registry holds at most n_tensors entries whose bytes
 * sum to at most weight_bytes, the mapped model ranges lie in the data
 * section), and the estimate (llama.cpp's terms) and max-fit search on it
 * either fail with a message or return consistent sums.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, O_CLOEXEC, open_memstream in the fuzz build */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tensorplan.h"

int tp_fuzz_gguf(const uint8_t *data, size_t size);

static void gguf_check(bool ok) {
    if (!ok) abort();
}

static void gguf_check_estimate(const tp_llm_config *c) {
    tp_llm_options o;
    tp_llm_options_default(&o);
    tp_llm_estimate e;
    tp_error err;
    tp_error_clear(&err);
    tp_status s = tp_llm_estimate_memory(c, &o, &e, &err);
    if (s != TP_OK) {
        gguf_check(err.status == s && err.msg[0] != '\0');
        return;
    }
    gguf_check(e.weight_bytes == c->weight_bytes);
    gguf_check(e.model_bytes == e.model_mapped_bytes + e.model_repack_bytes);
    gguf_check(e.kv_cache_bytes == e.kv_k_bytes + e.kv_v_bytes &&
               e.kv_swa_bytes <= e.kv_cache_bytes);
    gguf_check(e.peak_bytes - e.model_bytes - e.kv_cache_bytes - e.output_bytes == e.compute_bytes);
    gguf_check(e.n_ctx_seq % 256 == 0 && e.kv_cells == e.n_ctx_seq && e.kv_cells_swa <= e.kv_cells);
    gguf_check(e.repack != TP_LLM_REPACK_AUTO);
    /* every rule's mapped range lies inside the file's data section */
    for (int k = 0; k < TP_LLM_REPACK_COUNT; k++)
        gguf_check(c->layout[k].mapped_bytes == 0 ||
                   c->layout[k].mapped_bytes <= c->file_bytes - c->data_offset);
    /* the largest context within 8 GiB (a binary search over the estimate) */
    tp_fit_options fo;
    tp_fit_options_default(&fo);
    fo.symbol = "ctx";
    fo.budget_bytes = 8ull << 30;
    tp_fit_result fr;
    tp_error_clear(&err);
    s = tp_llm_max_fit(c, &o, &fo, &fr, &err);
    if (s == TP_OK) {
        gguf_check(fr.value >= 1 && fr.peak_bytes <= fo.budget_bytes);
        gguf_check(!fr.next_evaluated || fr.next_peak_bytes > fo.budget_bytes ||
                   fr.value == fo.max_value);
    } else {
        gguf_check(err.status == s && err.msg[0] != '\0');
    }
}

int tp_fuzz_gguf(const uint8_t *data, size_t size) {
    char path[1024];
    fz_write("model.gguf", data, size, path, sizeof path);
    tp_registry *r = NULL;
    tp_error err;
    tp_error_clear(&err);
    if (tp_registry_create(NULL, &r, &err) != TP_OK) abort();
    tp_llm_config c;
    tp_status s = tp_gguf_read_llm(path, r, &c, &err);
    if (s != TP_OK) {
        gguf_check(err.status == s && err.msg[0] != '\0');
        tp_registry_destroy(r);
        return 0;
    }
    gguf_check(c.gguf_version == 2 || c.gguf_version == 3);
    gguf_check(c.arch[0] != '\0' && c.n_layer && c.n_embd && c.n_head);
    gguf_check(c.n_layer <= TP_LLM_MAX_LAYERS && c.alignment);
    /* the data section starts past the end only when no tensor has bytes */
    gguf_check(c.data_offset <= c.file_bytes || c.layout[TP_LLM_REPACK_NONE].mapped_bytes == 0);
    gguf_check(!c.swa || c.n_swa > 0);
    gguf_check(memchr(c.arch, '\0', sizeof c.arch) != NULL);
    gguf_check(c.expert_tensor_bytes <= c.weight_bytes);
    gguf_check(tp_registry_count(r) <= c.n_tensors);
    gguf_check(tp_registry_total_bytes(r) <= c.weight_bytes);
    for (uint32_t i = 0; i < tp_registry_count(r); i++) {
        const tp_weight_entry *w = tp_registry_entry(r, i);
        gguf_check(w && w->name && w->rank >= 0 && w->rank <= TP_MAX_RANK);
        gguf_check(tp_registry_find(r, w->name) == w);
    }
    /* the same file without a registry reads the same figures */
    tp_llm_config c2;
    tp_error_clear(&err);
    gguf_check(tp_gguf_read_llm(path, NULL, &c2, &err) == TP_OK);
    gguf_check(c2.weight_bytes == c.weight_bytes && c2.n_tensors == c.n_tensors &&
               c2.n_vocab == c.n_vocab && c2.moe_layers == c.moe_layers &&
               memcmp(c2.layout, c.layout, sizeof c.layout) == 0 &&
               memcmp(c2.layer_swa, c.layer_swa, sizeof c.layer_swa) == 0);
    gguf_check_estimate(&c);
    tp_registry_destroy(r);
    return 0;
}

#ifndef TP_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return tp_fuzz_gguf(data, size);
}
#endif
