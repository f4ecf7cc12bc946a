/* The default memory budget of the CLI: this machine's soft budget. */
#ifndef TP_CLI_BUDGET_H
#define TP_CLI_BUDGET_H

#include "cli.h"

/* The soft budget of the host's available memory (or GPU 0's free memory when
 * gpu): TENSORPLAN_MEMORY_BUDGET_BYTES, else TENSORPLAN_SOFT_MEMORY_FRACTION
 * (default 0.80) × available. `how` receives a one-line description of where
 * the figure came from. TP_ERR_UNSUPPORTED when gpu and no GPU is present. */
tp_status tp_cli_default_budget(bool gpu, uint64_t *out, char *how, size_t cap, tp_error *err);

/* The soft budget of `avail_bytes` of memory described by `what` ("available
 * host memory"), with the same environment overrides and description. */
tp_status tp_cli_soft_budget(uint64_t avail_bytes, const char *what, uint64_t *out, char *how,
                             size_t cap, tp_error *err);

#endif
