/* The LLM context sweep of `estimate` (--sweep ctx=4k,8k,... --sweep-kv f16,q8_0,...):
 * llama.cpp's peak for each context (rows) and KV cache type (columns). */
#ifndef TP_CLI_LLM_SWEEP_H
#define TP_CLI_LLM_SWEEP_H

#include "cli.h"
#include "tensorplan/llm.h"

#define TP_SWEEP_MAX 16

typedef struct tp_cli_llm_sweep {
    int n_ctx, n_kv;
    uint64_t ctx[TP_SWEEP_MAX];
    tp_dtype kv[TP_SWEEP_MAX];
    uint64_t peak[TP_SWEEP_MAX][TP_SWEEP_MAX]; /* [ctx][kv]; 0 = not possible (see err) */
    uint64_t kv_bytes[TP_SWEEP_MAX][TP_SWEEP_MAX];
    char err[TP_SWEEP_MAX][TP_SWEEP_MAX][96]; /* why a cell has no figure */
} tp_cli_llm_sweep;

/* "ctx=4k,8k,32k,128k" (k = 1024, m = 1048576). 1 on success, else a usage error (exit 2). */
int tp_cli_llm_sweep_parse(const char *cmd, const char *val, tp_cli_llm_sweep *sw);
/* "f16,q8_0,q4_0": K and V types of the columns. */
int tp_cli_llm_sweep_parse_kv(const char *cmd, const char *val, tp_cli_llm_sweep *sw);
/* Fill every cell from the estimate with o's other options. */
void tp_cli_llm_sweep_run(const tp_llm_config *c, const tp_llm_options *o, tp_cli_llm_sweep *sw);
void tp_cli_llm_sweep_print(const tp_cli_llm_sweep *sw, uint64_t budget);
void tp_cli_llm_sweep_json(tp_json *j, const tp_cli_llm_sweep *sw, uint64_t budget);

#endif
