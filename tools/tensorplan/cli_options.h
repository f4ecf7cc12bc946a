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

/* Returned for an option that takes no value (consumed the option only). */
#define TP_CLI_OPT_FLAG 100

/* LLM (GGUF) options: --ctx N, --seqs N, --ubatch N, --batch N (positive integers),
 * --kv-type DTYPE (K and V), --cache-type-k DTYPE, --cache-type-v DTYPE, --repack RULE,
 * and the flags --swa-full, --kv-unified, --embeddings, --no-flash-attn (these return
 * TP_CLI_OPT_FLAG). Sets *used when one was given. */
int tp_cli_llm_option(const char *cmd, const char *opt, const char *val, tp_llm_options *llm,
                      bool *used);

#endif
