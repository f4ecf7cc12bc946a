/* --weights-type LIST of `estimate` and `fit` (LLMs): the model as llama-quantize would
 * write it in each llama.cpp file type (tp_llm_read_as). One type: the estimate uses it;
 * several: a table of model bytes and peak per type (estimate). */
#ifndef TP_CLI_LLM_WTYPES_H
#define TP_CLI_LLM_WTYPES_H

#include "cli.h"
#include "tensorplan/llm.h"

#define TP_WTYPES_MAX 16

typedef struct tp_cli_llm_wtypes {
    int n;
    char name[TP_WTYPES_MAX][16];
    uint64_t weight_bytes[TP_WTYPES_MAX]; /* tensors */
    uint64_t model_bytes[TP_WTYPES_MAX];  /* model buffers (mapped + repack) */
    uint64_t peak[TP_WTYPES_MAX];         /* 0: no figure (err) */
    char err[TP_WTYPES_MAX][TP_ERROR_MSG_CAP];
} tp_cli_llm_wtypes;

/* "q8_0,q4_k_m,...": 1 on success, else a usage error (exit 2). Names are checked when run. */
int tp_cli_llm_wtypes_parse(const char *cmd, const char *val, tp_cli_llm_wtypes *w);
/* The first type (NULL when none): what a single-type run reads the model as. */
const char *tp_cli_llm_wtypes_single(const tp_cli_llm_wtypes *w);
/* Check every name: 0, or a usage error naming the known types (exit 2). */
int tp_cli_llm_wtypes_check(const char *cmd, const tp_cli_llm_wtypes *w);
/* Each row: read path as that type, estimate with o. */
void tp_cli_llm_wtypes_run(const char *path, const tp_llm_options *o, tp_cli_llm_wtypes *w);
void tp_cli_llm_wtypes_print(const tp_cli_llm_wtypes *w, uint64_t budget);
void tp_cli_llm_wtypes_json(tp_json *j, const tp_cli_llm_wtypes *w, uint64_t budget);

#endif
