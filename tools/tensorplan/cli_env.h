/* The environment variables the CLI honours (tensorplan/env.h), read once. */
#ifndef TP_CLI_ENV_H
#define TP_CLI_ENV_H

#include "tensorplan.h"

/* The documented TENSORPLAN_* variables (and the calibration cache directory),
 * read on first use; the library itself reads none. */
const tp_env_options *tp_cli_env(void);

#endif
