/* Option groups shared by several subcommands (rows of the declarative
 * tables, cli_opts.h). */
#ifndef TP_CLI_OPTIONS_H
#define TP_CLI_OPTIONS_H

#include "cli_opts.h"
#include "tensorplan/estimate.h"

/* Planner options on a tp_plan_options: --align N (power of two), --algo NAME,
 * --no-inplace, --f32-uniform. */
extern const tp_cli_opt tp_cli_plan_opts[];
#define TP_CLI_PLAN(type, field) TP_OPT_GROUP_ROW(tp_cli_plan_opts, type, field, NULL)

/* LLM (GGUF) options on a tp_llm_options: --ctx N, --seqs N, --ubatch N, --batch N
 * (positive integers), --kv-type DTYPE (K and V), --cache-type-k DTYPE,
 * --cache-type-v DTYPE, --repack RULE, and the flags --swa-full, --kv-unified,
 * --embeddings, --no-flash-attn. The group's seen flag says one was given. */
extern const tp_cli_opt tp_cli_llm_opts[];
#define TP_CLI_LLM(type, field, seen_field)                                                        \
    {                                                                                              \
        .kind = TP_OPT_GROUP, .dest = offsetof(type, field),                                       \
        .seen = TP_CLI_SEEN(type, seen_field), .group = tp_cli_llm_opts                            \
    }

/* The row --f32-uniform's apply (width = elements x 4 bytes) on a tp_plan_options. */
int tp_cli_apply_f32_uniform(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val,
                             void *dest);

#endif
