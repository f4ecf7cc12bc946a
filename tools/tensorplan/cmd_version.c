/* tensorplan version — print the library version. */
#include <string.h>

#include "cli_opts.h"

typedef struct version_args {
    bool json;
} version_args;

static const tp_cli_opt version_opts[] = {
    TP_CLI_COMMON(version_args, json),
    TP_CLI_END,
};

const tp_cli_command tp_cli_version_command = {
    .name = "version",
    .summary = "print the version",
    .synopsis = "[--json]",
    .description = "Print the version of tensorplan.",
    .opts = version_opts,
    .examples = "tensorplan version --json",
    .notes = "Exit codes: 0 ok, 2 usage error.",
};

int tp_cli_version(int argc, char **argv) {
    version_args a = {false};
    int rc = tp_cli_parse(&tp_cli_version_command, argc, argv, &a);
    if (rc) return rc < 0 ? TP_EXIT_OK : rc; /* -1: --help */
    if (!a.json) {
        printf("tensorplan %s\n", tp_version());
        return TP_EXIT_OK;
    }
    tp_json j;
    tp_json_init(&j, stdout, true);
    tp_json_begin_object(&j);
    tp_json_kv_str(&j, "schema", "tensorplan.version/1");
    tp_json_kv_str(&j, "tensorplan_version", tp_version());
    tp_json_end_object(&j);
    tp_json_finish(&j);
    return TP_EXIT_OK;
}
