/* vLLM's sizing of an LLM on a set of GPUs and the vllm serve flags that fit
 * (estimate MODEL --devices GPUS --emit vllm; tensorplan/vllm.h). */
#ifndef TP_CLI_LLM_VLLM_H
#define TP_CLI_LLM_VLLM_H

#include "cli_opts.h"
#include "tensorplan/vllm.h"

/* --gpu-memory-utilization, --tensor-parallel-size, --pipeline-parallel-size,
 * --max-num-batched-tokens, --max-num-seqs, --kv-cache-dtype, --vllm-activation
 * on a tp_vllm_options (call tp_vllm_options_default first). */
extern const tp_cli_opt tp_cli_vllm_opts[];

/* Plan c on the GPUs of ds (max-model-len: lo->n_ctx when set), print the table or
 * JSON and the command line. Returns the exit code (over budget when it does not fit). */
int tp_cli_vllm_run(const char *cmd, const char *model, const tp_llm_config *c,
                    const tp_llm_device_set *ds, const tp_llm_options *lo,
                    const tp_vllm_options *vo, bool json);

#endif
