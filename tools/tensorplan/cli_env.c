/* The CLI's one read of the environment (tensorplan/env.h). */
#include "cli_env.h"

const tp_env_options *tp_cli_env(void) {
    static tp_env_options env;
    static bool read;
    if (!read) {
        tp_env_options_read(&env);
        read = true;
    }
    return &env;
}
