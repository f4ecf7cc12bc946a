/* Option groups shared by several subcommands, parsed in one place. */
#ifndef TP_CLI_OPTIONS_H
#define TP_CLI_OPTIONS_H

#include "cli.h"
#include "tensorplan/estimate.h"

/* Each parser looks at option `opt` with its (possibly NULL) value `val`:
 * returns 1 when it consumed the option and its value, 0 when `opt` is not
 * one of its options, and TP_EXIT_USAGE after printing a usage error. */

/* Planner options: --align N (power of two), --algo NAME. */
int tp_cli_plan_option(const char *cmd, const char *opt, const char *val, tp_plan_options *po);

/* LLM (GGUF) options: --ctx N, --seqs N, --ubatch N (positive integers), --kv-type DTYPE.
 * Sets *used when one was given. */
int tp_cli_llm_option(const char *cmd, const char *opt, const char *val, tp_llm_options *llm,
                      bool *used);

#endif
