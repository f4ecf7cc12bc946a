// llama.cpp memory probe (ground truth for tensorplan's LLM estimate).
//
// Loads a GGUF with the given context options through llama.cpp's own code and prints every
// memory term llama.cpp allocates, in bytes:
//   buffer <kind> <buffer type> <bytes>   kind = model | context | compute (llama_get_memory_breakdown)
//   output <bytes>                        the logits/embeddings buffer (output_reserve's allocation)
// Built by scripts/fixtures-llm.sh against the prebuilt libllama of npm node-llama-cpp with the
// headers of the same llama.cpp release (its git bundle). C++ because llama_get_memory_breakdown
// returns a std::map. Usage:
//   llm_probe MODEL.gguf N_CTX N_UBATCH N_SEQ TYPE_K TYPE_V FLASH(0|1) SWA_FULL(0|1) [N_BATCH]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

#include "ggml-backend.h"
#include "llama.h"
#include "llama-ext.h"

static size_t g_last_alloc;
static size_t g_output;
static int g_verbose;

// Interposes ggml-base's function (libllama calls it through the PLT) to see the exact size of
// the output buffer, which the breakdown does not list.
extern "C" ggml_backend_buffer_t ggml_backend_buft_alloc_buffer(ggml_backend_buffer_type_t buft,
                                                                size_t size) {
    typedef ggml_backend_buffer_t (*fn_t)(ggml_backend_buffer_type_t, size_t);
    static fn_t real = (fn_t)dlsym(RTLD_NEXT, "ggml_backend_buft_alloc_buffer");
    g_last_alloc = size;
    return real(buft, size);
}

static void on_log(enum ggml_log_level level, const char *text, void *) {
    if (strstr(text, "output buffer size")) g_output = g_last_alloc;
    if (g_verbose || level == GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

static ggml_type type_of(const char *s) {
    static const struct { const char *n; ggml_type t; } tab[] = {
        {"f32", GGML_TYPE_F32}, {"f16", GGML_TYPE_F16}, {"bf16", GGML_TYPE_BF16},
        {"q8_0", GGML_TYPE_Q8_0}, {"q4_0", GGML_TYPE_Q4_0}, {"q4_1", GGML_TYPE_Q4_1},
        {"q5_0", GGML_TYPE_Q5_0}, {"q5_1", GGML_TYPE_Q5_1}, {"iq4_nl", GGML_TYPE_IQ4_NL}};
    for (auto &e : tab)
        if (!strcmp(s, e.n)) return e.t;
    fprintf(stderr, "llm_probe: unknown type %s\n", s);
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 9) {
        fprintf(stderr, "usage: llm_probe MODEL N_CTX N_UBATCH N_SEQ TYPE_K TYPE_V FLASH SWA_FULL [N_BATCH]\n");
        return 2;
    }
    g_verbose = getenv("LLM_PROBE_VERBOSE") != nullptr;
    llama_log_set(on_log, nullptr);
    const char *dir = getenv("LLM_PROBE_BACKENDS");
    if (dir) ggml_backend_load_all_from_path(dir); else ggml_backend_load_all();
    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    llama_model *model = llama_model_load_from_file(argv[1], mp);
    if (!model) { fprintf(stderr, "llm_probe: cannot load %s\n", argv[1]); return 1; }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = (uint32_t)atoi(argv[2]);
    cp.n_ubatch = (uint32_t)atoi(argv[3]);
    cp.n_batch = argc > 9 ? (uint32_t)atoi(argv[9]) : cp.n_ubatch;
    cp.n_seq_max = (uint32_t)atoi(argv[4]);
    cp.type_k = type_of(argv[5]);
    cp.type_v = type_of(argv[6]);
    cp.flash_attn_type = atoi(argv[7]) ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    cp.swa_full = atoi(argv[8]) != 0;
    cp.n_threads = cp.n_threads_batch = 1;
    cp.no_perf = true;
    llama_context *ctx = llama_init_from_model(model, cp);
    if (!ctx) { fprintf(stderr, "llm_probe: cannot create a context for %s\n", argv[1]); return 1; }
    printf("n_ctx %u\n", llama_n_ctx(ctx));
    for (const auto &[buft, d] : llama_get_memory_breakdown(ctx)) {
        const char *name = ggml_backend_buft_name(buft);
        if (d.model) printf("buffer model %s %zu\n", name, d.model);
        if (d.context) printf("buffer context %s %zu\n", name, d.context);
        if (d.compute) printf("buffer compute %s %zu\n", name, d.compute);
    }
    printf("output %zu\n", g_output);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
