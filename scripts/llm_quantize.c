/* llama.cpp's own quantizer (llama_model_quantize, the code llama-quantize runs) for the
 * --weights-type truth test: tests/cli/test_llm_weights_type.sh, bench/llm_weights_type.sh.
 * Compiled by scripts/llm_quantize_build.sh against the prebuilt libllama of npm
 * node-llama-cpp (the same release as the headers), so nothing of llama.cpp is built.
 * Usage: llm_quantize IN.gguf OUT.gguf FTYPE [imatrix]
 *   FTYPE: llama_ftype number (llama.h). "imatrix": a uniform importance matrix (all ones,
 *   ne0 × ne2 per tensor), which the 1-2 bit iq types and q2_k_s require; the values do not
 *   change any tensor's type or size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml-backend.h"
#include "ggml.h"
#include "gguf.h"
#include "llama.h"

static void quiet(enum ggml_log_level level, const char *text, void *ud) {
    (void)ud;
    if (level == GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

/* One all-ones entry per tensor of the input (NULL-terminated array), or NULL. */
static struct llama_model_imatrix_data *uniform_imatrix(const char *path) {
    struct ggml_context *ctx = NULL;
    struct gguf_init_params gp = {true, &ctx};
    struct gguf_context *g = gguf_init_from_file(path, gp);
    if (!g) return NULL;
    int64_t n = gguf_get_n_tensors(g);
    struct llama_model_imatrix_data *im = calloc((size_t)n + 1, sizeof *im);
    for (int64_t i = 0; im && i < n; i++) {
        const char *name = gguf_get_tensor_name(g, i);
        struct ggml_tensor *t = ggml_get_tensor(ctx, name);
        size_t size = (size_t)(t->ne[0] * t->ne[2]);
        float *d = malloc(size * sizeof *d);
        for (size_t k = 0; d && k < size; k++)
            d[k] = 1.0f;
        char *nm = malloc(strlen(name) + 1);
        if (nm) memcpy(nm, name, strlen(name) + 1);
        im[i].name = nm;
        im[i].data = d;
        im[i].size = size;
    }
    return im; /* freed at exit */
}

int main(int argc, char **argv) {
    if (argc != 4 && !(argc == 5 && strcmp(argv[4], "imatrix") == 0)) {
        fprintf(stderr, "usage: llm_quantize IN.gguf OUT.gguf FTYPE [imatrix]\n");
        return 2;
    }
    llama_log_set(quiet, NULL);
    ggml_backend_load_all();
    llama_backend_init();
    llama_model_quantize_params p = llama_model_quantize_default_params();
    p.ftype = (enum llama_ftype)atoi(argv[3]);
    p.nthread = 1;
    p.allow_requantize = true;
    if (argc == 5 && !(p.imatrix = uniform_imatrix(argv[1]))) {
        fprintf(stderr, "llm_quantize: cannot read %s\n", argv[1]);
        return 1;
    }
    uint32_t rc = llama_model_quantize(argv[1], argv[2], &p);
    llama_backend_free();
    return rc == 0 ? 0 : 1;
}
