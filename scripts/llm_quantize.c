/* llama.cpp's own quantizer (llama_model_quantize, the code llama-quantize runs) for the
 * --weights-type truth test: tests/cli/test_llm_weights_type.sh, bench/llm_weights_type.sh.
 * Compiled by scripts/fixtures-llm.sh against the prebuilt libllama of npm node-llama-cpp
 * (the same release as the headers), so CI builds nothing of llama.cpp for it.
 * Usage: llm_quantize IN.gguf OUT.gguf FTYPE   (FTYPE: llama_ftype number, llama.h) */
#include <stdio.h>
#include <stdlib.h>

#include "ggml-backend.h"
#include "llama.h"

static void quiet(enum ggml_log_level level, const char *text, void *ud) {
    (void)ud;
    if (level == GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: llm_quantize IN.gguf OUT.gguf FTYPE\n");
        return 2;
    }
    llama_log_set(quiet, NULL);
    ggml_backend_load_all();
    llama_backend_init();
    llama_model_quantize_params p = llama_model_quantize_default_params();
    p.ftype = (enum llama_ftype)atoi(argv[3]);
    p.nthread = 1;
    p.allow_requantize = true;
    uint32_t rc = llama_model_quantize(argv[1], argv[2], &p);
    llama_backend_free();
    return rc == 0 ? 0 : 1;
}
