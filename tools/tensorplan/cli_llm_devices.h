/* Multi-device LLM placement options and output (estimate MODEL.gguf
 * --devices SPEC ...): the per-device table, its JSON and the llama.cpp
 * command line that realises the plan. */
#ifndef TP_CLI_LLM_DEVICES_H
#define TP_CLI_LLM_DEVICES_H

#include "cli_opts.h"
#include "tensorplan/llm_devices.h"
#include "tensorplan/vllm.h"

typedef struct tp_cli_devices_args {
    const char *devices;         /* --devices SPEC */
    tp_llm_placement_options po; /* --ngl, --tensor-split, --no-kv-offload, -ot, --n-cpu-moe */
    const char *emit;            /* --emit llama.cpp | vllm */
    tp_vllm_options vllm;        /* --emit vllm: --gpu-memory-utilization ... */
    const char *html;            /* --html FILE: the page with one bar per device */
    bool fit; /* --fit: the largest context, else --n-cpu-moe / fewer layers, that fits */
} tp_cli_devices_args;

/* --devices, --ngl, --tensor-split, --no-kv-offload, --override-tensor exps=CPU,
 * --n-cpu-moe, --emit on a tp_cli_devices_args (call tp_cli_llm_devices_init first). */
extern const tp_cli_opt tp_cli_llm_devices_opts[];
#define TP_CLI_DEVICES(type, field)                                                                \
    { .kind = TP_OPT_GROUP, .dest = offsetof(type, field), .group = tp_cli_llm_devices_opts }

void tp_cli_llm_devices_init(tp_cli_devices_args *d);

/* Read the model (.gguf, config.json, .safetensors), place it on the device set as
 * llama.cpp does (or size it as vLLM does with --emit vllm), print the table (or
 * JSON). Returns the exit code. */
int tp_cli_llm_devices_run(const char *cmd, const char *gguf, const tp_llm_options *o,
                           const tp_cli_devices_args *d, bool json);

#endif
