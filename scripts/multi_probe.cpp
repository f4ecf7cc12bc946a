// Multi-device llama.cpp probe (ground truth for tensorplan's per-device LLM placement).
//
// Takes llama-fit-params' own command line (-m MODEL --rpc HOST:PORT,... -c N -ngl K -ts a,b
// -nkvo -ot PATTERN=BUFT --n-cpu-moe N ...), parsed by llama.cpp's common argument parser, and
// does what `llama-fit-params --fit-print on` does (load without allocating, create the context,
// take llama_get_memory_breakdown), but prints every buffer type in BYTES, where fit-print floors
// to MiB and drops buffer types that are neither host nor one of the model's devices:
//   buffer <buffer type> <device or -> <host 0|1> <model> <context> <compute>
//   device <index> <device name>
// With MULTI_PROBE_ALLOC=1 in the environment it loads the model for real instead (weights
// allocated on every device and read from the file, the context created): the figures are then
// what llama.cpp allocates, not its projection.
// Built by scripts/fixtures-multi.sh against the static libraries of .fixtures/multi/build.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "arg.h"
#include "common.h"
#include "ggml-backend.h"
#include "llama.h"
#include "../src/llama-ext.h"

int main(int argc, char **argv) {
    common_params params;
    if (!common_params_parse(argc, argv, params, LLAMA_EXAMPLE_FIT_PARAMS)) return 1;
    llama_backend_init();
    llama_model_params mp = common_model_params_to_llama(params);
    llama_context_params cp = common_context_params_to_llama(params);
    const char *alloc = getenv("MULTI_PROBE_ALLOC");
    if (!alloc || alloc[0] != '1') {
        mp.no_alloc = true;
        mp.load_mode = LLAMA_LOAD_MODE_NONE;
    }
    llama_model *model = llama_model_load_from_file(params.model.path.c_str(), mp);
    if (!model) {
        fprintf(stderr, "multi_probe: failed to load %s\n", params.model.path.c_str());
        return 1;
    }
    llama_context *ctx = llama_init_from_model(model, cp);
    if (!ctx) {
        fprintf(stderr, "multi_probe: failed to create the context\n");
        llama_model_free(model);
        return 1;
    }
    for (int i = 0; i < llama_model_n_devices(model); i++)
        printf("device %d %s\n", i, ggml_backend_dev_name(llama_model_get_device(model, i)));
    for (const auto &kv : llama_get_memory_breakdown(ctx)) {
        ggml_backend_buffer_type_t buft = kv.first;
        ggml_backend_dev_t dev = ggml_backend_buft_get_device(buft);
        printf("buffer %s %s %d %zu %zu %zu\n", ggml_backend_buft_name(buft),
               dev ? ggml_backend_dev_name(dev) : "-", ggml_backend_buft_is_host(buft) ? 1 : 0,
               kv.second.model, kv.second.context, kv.second.compute);
    }
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
