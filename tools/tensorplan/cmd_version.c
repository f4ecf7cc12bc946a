/* tensorplan version — print the library version. */
#include <string.h>

#include "cli.h"

const char tp_cli_version_summary[] = "print the version";

int tp_cli_version(int argc, char **argv) {
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: tensorplan version [--json]\n\nPrint the version of tensorplan.\n");
            return TP_EXIT_OK;
        } else {
            return tp_cli_usage_error("version", "unknown option '%s'", argv[i]);
        }
    }
    if (!json) {
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
